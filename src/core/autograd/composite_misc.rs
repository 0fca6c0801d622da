//! src/core/autograd/composite_misc.rs: `renorm`, `cumulative_trapezoid`, `combinations` and
//! `Tensor.__rdiv__` —
//! ops torch writes as compositions of other ops (issue 13 part 5), here over the recording
//! wrappers so that their history is that of the ops they are made of.

use super::variable_type as vt;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::ops;
use crate::core::scalar::Scalar;
use crate::core::tensor::{maybe_wrap_dim, Tensor};

fn num(s: Scalar) -> Result<Tensor> {
    Tensor::wrapped_scalar(s)
}

/// `renorm(input, p, dim, maxnorm)`: each slice along `dim` whose `p`-norm exceeds `maxnorm`
/// scaled by `maxnorm / (norm + 1e-7)` (torch's formula), the others unchanged. Errors: see
/// `ops::renorm_check`; integer dtypes: vector_norm's NotImplementedError. Mirrors
/// `torch.renorm`.
pub fn renorm(input: &Tensor, p: Scalar, dim: i64, maxnorm: Scalar) -> Result<Tensor> {
    let dims = ops::renorm_check(input, p, dim, maxnorm)?;
    let norm = vt::linalg_vector_norm(input, p, Some(&dims), true, None)?;
    let m = num(Scalar::Float(maxnorm.to_f64()))?;
    let denom = vt::add(&norm, &num(Scalar::Float(1e-7))?, Scalar::Int(1))?;
    let scaled = vt::div(&m, &denom, None)?;
    let factor = vt::where_(&ops::gt(&norm, &m)?, &scaled, &num(Scalar::Float(1.0))?)?;
    vt::mul(input, &factor)
}

/// `y.slice(dim, 0, -1)` and `y.slice(dim, 1)` (torch's clamped slices) as narrows.
fn left_right(y: &Tensor, d: usize) -> Result<(Tensor, Tensor)> {
    let n = y.sizes()[d] as i64;
    let m = (n - 1).max(0);
    let one = n.min(1);
    Ok((
        vt::narrow(y, d as i64, 0, m)?,
        vt::narrow(y, d as i64, one, n - one)?,
    ))
}

fn slice_of_0dim() -> Error {
    Error::index("slice() cannot be applied to a 0-dim tensor.")
}

/// `cumulative_trapezoid(y, *, dx=1, dim=-1)`: the running trapezoidal integral along `dim`,
/// `cumsum(dx / 2 * (y[:-1] + y[1:]))` (one element fewer than `y` along `dim`). Errors:
/// NotImplementedError "cumulative_trapezoid: received a bool input for `y`, but bool is not
/// supported"; IndexError for a 0-dim `y` or a bad `dim`. Mirrors `torch.cumulative_trapezoid`.
pub fn cumulative_trapezoid_dx(y: &Tensor, dx: Scalar, dim: i64) -> Result<Tensor> {
    if y.dtype() == DType::Bool {
        return Err(Error::not_implemented(
            "cumulative_trapezoid: received a bool input for `y`, but bool is not supported",
        ));
    }
    if matches!(dx, Scalar::Bool(_)) {
        return Err(Error::runtime(
            "cumulative_trapezoid: Currently, we only support dx as a real number.",
        ));
    }
    if y.dim() == 0 {
        return Err(slice_of_0dim());
    }
    let d = maybe_wrap_dim(dim, y.dim())?;
    let (l, r) = left_right(y, d)?;
    let s = vt::mul(
        &num(Scalar::Float(dx.to_f64() / 2.0))?,
        &vt::add(&l, &r, Scalar::Int(1))?,
    )?;
    vt::cumsum(&s, d as i64, None)
}

/// `cumulative_trapezoid(y, x, *, dim=-1)`: the running trapezoidal integral at the sample
/// points `x` (1-D of `y`'s length along `dim`, or broadcastable to `y`):
/// `cumsum((y[:-1] + y[1:]) * diff(x)) / 2`. Errors: RuntimeError "cumulative_trapezoid: There
/// must be one `x` value for each sample point"; NotImplementedError for bool inputs. Mirrors
/// `torch.cumulative_trapezoid`.
pub fn cumulative_trapezoid(y: &Tensor, x: &Tensor, dim: i64) -> Result<Tensor> {
    if y.dtype() == DType::Bool || x.dtype() == DType::Bool {
        return Err(Error::not_implemented(
            "cumulative_trapezoid: received a bool input for `x` or `y`, but bool is not supported",
        ));
    }
    if y.dim() == 0 {
        if x.dim() == 1 {
            // torch reads `y.size(dim)`, which names dim wrapped as if y were 1-D.
            return Err(Error::index(format!(
                "Dimension specified as {} but tensor has no dimensions",
                maybe_wrap_dim(dim, 1)?
            )));
        }
        return Err(slice_of_0dim());
    }
    let d = maybe_wrap_dim(dim, y.dim())?;
    let xv = if x.dim() == 1 {
        if x.sizes()[0] != y.sizes()[d] {
            return Err(Error::runtime(
                "cumulative_trapezoid: There must be one `x` value for each sample point",
            ));
        }
        let mut s = vec![1i64; y.dim()];
        s[d] = x.sizes()[0] as i64;
        vt::view(x, &s)?
    } else if x.dim() < y.dim() {
        let mut s = vec![1i64; y.dim() - x.dim()];
        s.extend(x.sizes().iter().map(|&v| v as i64));
        vt::view(x, &s)?
    } else {
        x.clone()
    };
    let xd = maybe_wrap_dim(dim, xv.dim())?;
    let (xl, xr) = left_right(&xv, xd)?;
    let dx = vt::sub(&xr, &xl, Scalar::Int(1))?;
    let (l, r) = left_right(y, d)?;
    let s = vt::mul(&vt::add(&l, &r, Scalar::Int(1))?, &dx)?;
    vt::div(
        &vt::cumsum(&s, d as i64, None)?,
        &num(Scalar::Float(2.0))?,
        None,
    )
}

/// `combinations(input, r=2, with_replacement=False)`: the length-`r` combinations of the 1-D
/// `input`'s elements, in lexicographic order of their positions, as the rows of an `[n, r]`
/// tensor (`[0, r]` when there are none; `r == 0` gives an empty 1-D tensor). Errors
/// (RuntimeError): "Expect a 1D vector, but got shape [2, 2]"; "Expect a non-negative number,
/// but got -1". Mirrors `torch.combinations`.
pub fn combinations(input: &Tensor, r: i64, with_replacement: bool) -> Result<Tensor> {
    if input.dim() != 1 {
        return Err(Error::runtime(format!(
            "Expect a 1D vector, but got shape {:?}",
            input.sizes()
        )));
    }
    if r < 0 {
        return Err(Error::runtime(format!(
            "Expect a non-negative number, but got {r}"
        )));
    }
    if r == 0 {
        return Tensor::zeros(&[0], input.dtype());
    }
    let n = input.sizes()[0];
    let r = r as usize;
    let oom = || Error::out_of_memory("combinations: failed to allocate");
    // The number of combinations, C(n, r) or C(n + r - 1, r), exactly or "too many".
    let (top, k) = if with_replacement {
        ((n + r).saturating_sub(1), r)
    } else {
        (n, r)
    };
    let count = if k > top {
        0u128
    } else {
        let k = k.min(top - k) as u128;
        let mut c: u128 = 1;
        for i in 0..k {
            c = c.checked_mul(top as u128 - i).ok_or_else(oom)? / (i + 1);
        }
        c
    };
    let count = usize::try_from(count).map_err(|_| oom())?;
    // The [count, r] position indices, row-major, in lexicographic order (an iterative odometer:
    // no recursion r deep, one fallible allocation).
    let total = count.checked_mul(r).ok_or_else(oom)?;
    let mut flat: Vec<i64> = Vec::new();
    flat.try_reserve_exact(total).map_err(|_| oom())?;
    if count > 0 {
        let mut idx: Vec<usize> = if with_replacement {
            vec![0; r]
        } else {
            (0..r).collect()
        };
        loop {
            flat.extend(idx.iter().map(|&v| v as i64));
            // The rightmost position that can still advance.
            let limit = |i: usize| if with_replacement { n - 1 } else { n - r + i };
            let Some(i) = (0..r).rev().find(|&i| idx[i] < limit(i)) else {
                break;
            };
            idx[i] += 1;
            let base = idx[i];
            for (off, v) in idx[i + 1..].iter_mut().enumerate() {
                *v = if with_replacement {
                    base
                } else {
                    base + off + 1
                };
            }
        }
    }
    let index = Tensor::from_vec(flat, &[total])?;
    vt::view(
        &vt::index_select(input, 0, &index)?,
        &[count as i64, r as i64],
    )
}

/// `Tensor.__rdiv__(other)`: `other / input` (Python 2's reflected division, which torch keeps
/// as an alias of `__rtruediv__`). Mirrors `Tensor.__rdiv__`.
pub fn rdiv(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    vt::div(other, input, None)
}
