//! src/core/ops/quantile.rs: `quantile` and `nanquantile` with torch's five interpolation modes
//! (PyTorch: `native/Sorting.cpp`'s `quantile_checks`, `quantile_output_shape`,
//! `quantile_compute`). The bare kernel: autograd differentiates the decomposition
//! (src/core/autograd/composite_quantile.rs), as torch.
//!
//! The arithmetic follows torch's step by step, in the input's dtype: each lane is sorted (NaN
//! last), `q` becomes a rank `q * (n - 1)` (`nanquantile`: `q * (non-NaN count - 1)`, clamped at
//! 0; `quantile`: the last index when the lane holds a NaN, so the result is NaN), the rank is
//! floored (`lower`), ceiled (`higher`) or rounded half to even (`nearest`), and `linear` /
//! `midpoint` interpolate the values at `floor(rank)` and `ceil(rank)` with torch's `lerp`.

use super::nn::Float;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::tensor::{maybe_wrap_dim, Tensor};

/// torch's `QUANTILE_INTERPOLATION_MODE`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Linear,
    Lower,
    Higher,
    Midpoint,
    Nearest,
}

/// torch's `get_quantile_interpolation_mode`: RuntimeError for any other string.
fn mode(interpolation: &str) -> Result<Mode> {
    Ok(match interpolation {
        "linear" => Mode::Linear,
        "lower" => Mode::Lower,
        "higher" => Mode::Higher,
        "midpoint" => Mode::Midpoint,
        "nearest" => Mode::Nearest,
        other => {
            return Err(Error::runtime(format!(
                "quantile() interpolation must be one of linear, lower, higher, midpoint or \
                 nearest, but got {other}"
            )))
        }
    })
}

/// torch's `lerp` kernel formula: `a + w (b - a)` below one half, `b - (b - a)(1 - w)` above
/// (exact at both ends).
fn lerp<T: Float>(a: T, b: T, w: T) -> T {
    if w.f64().abs() < 0.5 {
        a + w * (b - a)
    } else {
        b - (b - a) * (T::ONE - w)
    }
}

/// The shared body of `quantile` and `nanquantile` for a tensor `q` (0- or 1-dim).
fn quantile_impl(
    input: &Tensor,
    q: &Tensor,
    dim: Option<i64>,
    keepdim: bool,
    interpolation: &str,
    ignore_nan: bool,
) -> Result<Tensor> {
    // torch evaluates the mode before the checks (an argument of quantile_out_impl).
    let mode = mode(interpolation)?;
    // quantile_checks, in torch's order (the messages say quantile() for nanquantile too).
    if input.numel() == 0 {
        return Err(Error::runtime("quantile() input tensor must be non-empty"));
    }
    if q.dim() > 1 {
        return Err(Error::runtime("quantile() q must be a scalar or 1D tensor"));
    }
    if !matches!(input.dtype(), DType::Float32 | DType::Float64) {
        return Err(Error::runtime(
            "quantile() input tensor must be either float or double dtype",
        ));
    }
    if q.dtype() != input.dtype() {
        return Err(Error::runtime(
            "quantile() q tensor must be same dtype as the input tensor",
        ));
    }
    // quantile_output_shape: the reduced shape, q's length in front when q is 1-dim.
    let wrapped = match dim {
        Some(d) => Some(maybe_wrap_dim(d, input.dim().max(1))?),
        None => None,
    };
    let mut reduced: Vec<usize> = Vec::new();
    match wrapped {
        Some(d) => {
            reduced.extend_from_slice(input.sizes());
            if input.dim() > 0 {
                if keepdim {
                    reduced[d] = 1;
                } else {
                    reduced.remove(d);
                }
            }
        }
        None => {
            if keepdim {
                reduced = vec![1; input.dim()];
            }
        }
    }
    let mut shape = reduced.clone();
    if q.dim() == 1 {
        shape.insert(0, q.numel());
    }
    // The lanes: [outer, n, inner] around the reduced dim (all of input when dim is None).
    let (outer, n, inner) = match wrapped {
        Some(d) if input.dim() > 0 => {
            let s = input.sizes();
            (
                s[..d].iter().product::<usize>(),
                s[d],
                s[d + 1..].iter().product::<usize>(),
            )
        }
        _ => (1, input.numel(), 1),
    };
    if n as f64 > 16_777_216.0 {
        return Err(Error::runtime("quantile() input tensor is too large"));
    }
    crate::dispatch_float!(input.dtype(), T => {
        let qs = q.to_vec::<T>();
        // torch checks the values on CPU with q.ge(0).logical_and_(q.le(1)).all() (NaN fails).
        if !qs.iter().all(|&v| v.f64() >= 0.0 && v.f64() <= 1.0) {
            return Err(Error::runtime("quantile() q values must be in the range [0, 1]"));
        }
        let v = input.to_vec::<T>();
        let lanes = outer * inner;
        let mut out: Vec<T> = super::try_vec(qs.len() * lanes, "quantile")?;
        out.resize(qs.len() * lanes, T::ZERO);
        let mut lane: Vec<T> = super::try_vec(n, "quantile")?;
        for o in 0..outer {
            for i in 0..inner {
                lane.clear();
                lane.extend((0..n).map(|j| v[o * n * inner + i + j * inner]));
                // sort: ascending, NaN last.
                lane.sort_by(|a, b| match (a.is_nan(), b.is_nan()) {
                    (true, true) => std::cmp::Ordering::Equal,
                    (true, false) => std::cmp::Ordering::Greater,
                    (false, true) => std::cmp::Ordering::Less,
                    _ => a.partial_cmp(b).expect("no NaN here"),
                });
                let nan_count = lane.iter().filter(|x| x.is_nan()).count();
                let last = n as f64 - 1.0;
                for (k, &qv) in qs.iter().enumerate() {
                    // The rank in T: q * (n - 1) is exact in f64 (n < 2^24), so one rounding
                    // to T gives T's own product.
                    let mut rank = if ignore_nan {
                        let r = T::of(qv.f64() * ((n - nan_count) as f64 - 1.0));
                        if r.f64() < 0.0 { T::ZERO } else { r }
                    } else if nan_count > 0 {
                        T::of(last)
                    } else {
                        T::of(qv.f64() * last)
                    };
                    match mode {
                        Mode::Lower => rank = T::of(rank.f64().floor()),
                        Mode::Higher => rank = T::of(rank.f64().ceil()),
                        Mode::Nearest => rank = T::of(rank.f64().round_ties_even()),
                        _ => {}
                    }
                    let below = rank.f64() as usize;
                    let mut value = lane[below];
                    if matches!(mode, Mode::Linear | Mode::Midpoint) {
                        let weight = if mode == Mode::Midpoint {
                            T::of(0.5)
                        } else {
                            rank - T::of(below as f64)
                        };
                        let above = rank.f64().ceil() as usize;
                        value = lerp(value, lane[above], weight);
                    }
                    out[k * lanes + o * inner + i] = value;
                }
            }
        }
        Tensor::from_vec(out, &shape)
    }, _ => unreachable!("checked: float32 or float64"))
}

/// A Python float `q` as torch's scalar overload takes it: range-checked first (RuntimeError
/// "quantile() q must be in the range [0, 1] but got 1.5"), then a 0-dim tensor of input's dtype.
fn scalar_q(input: &Tensor, q: f64) -> Result<Tensor> {
    if !(0.0..=1.0).contains(&q) {
        return Err(Error::runtime(format!(
            "quantile() q must be in the range [0, 1] but got {}",
            super::factory::fmt_double(q)
        )));
    }
    Tensor::scalar_tensor(crate::core::scalar::Scalar::Float(q), input.dtype())
}

/// `quantile(input, q, dim=None, keepdim=False, *, interpolation='linear')`: the q-th
/// quantiles of input (flattened when dim is None) along dim, float32/float64 only; a 1-D q
/// puts its length in front of the reduced shape. A lane holding a NaN gives NaN. Mirrors
/// `torch.quantile`.
pub fn quantile(
    input: &Tensor,
    q: &Tensor,
    dim: Option<i64>,
    keepdim: bool,
    interpolation: &str,
) -> Result<Tensor> {
    quantile_impl(input, q, dim, keepdim, interpolation, false)
}

/// `quantile(input, q: float, ...)`: torch's `quantile.scalar` overload.
pub fn quantile_scalar(
    input: &Tensor,
    q: f64,
    dim: Option<i64>,
    keepdim: bool,
    interpolation: &str,
) -> Result<Tensor> {
    let q = scalar_q(input, q)?;
    quantile_impl(input, &q, dim, keepdim, interpolation, false)
}

/// `nanquantile(input, q, dim=None, keepdim=False, *, interpolation='linear')`: `quantile`
/// over the non-NaN values of each lane (NaN for a lane of NaNs only). Mirrors
/// `torch.nanquantile`.
pub fn nanquantile(
    input: &Tensor,
    q: &Tensor,
    dim: Option<i64>,
    keepdim: bool,
    interpolation: &str,
) -> Result<Tensor> {
    quantile_impl(input, q, dim, keepdim, interpolation, true)
}

/// `nanquantile(input, q: float, ...)`: torch's `nanquantile.scalar` overload.
pub fn nanquantile_scalar(
    input: &Tensor,
    q: f64,
    dim: Option<i64>,
    keepdim: bool,
    interpolation: &str,
) -> Result<Tensor> {
    let q = scalar_q(input, q)?;
    quantile_impl(input, &q, dim, keepdim, interpolation, true)
}
