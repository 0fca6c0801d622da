//! src/core/ops/nn/norm.rs: the normalisation layers (PyTorch: `native/layer_norm.cpp`,
//! `group_norm.cpp`, `Normalization.cpp`) — `native_layer_norm` (with the mean and rstd a
//! backward needs) and `layer_norm`, `native_group_norm` and `group_norm`, `rms_norm`,
//! `native_batch_norm` (training statistics and running statistics updated in place) and
//! `batch_norm`. Statistics are accumulated in f64 and written in the input's dtype.

use super::{contiguous_of, elems, float_dispatch, new_with, Float};
use crate::core::dtype::Element;
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;

/// The affine parameter `t` (`weight` or `bias`) as `numel` values of `T`, or `None`.
fn affine<T: Float>(t: Option<&Tensor>) -> Result<Option<Vec<T>>> {
    Ok(match t {
        Some(t) => Some(t.to_dtype(T::DTYPE)?.to_vec::<T>()),
        None => None,
    })
}

/// Normalise `rows` rows of `len` contiguous values each: `(x - mean) * rstd * w + b`, with
/// `w`/`b` indexed by `param(row, col)`; returns per-row `(mean, rstd)`.
#[allow(clippy::too_many_arguments)]
fn normalize_rows<T: Float>(
    x: &[T],
    out: &mut [T],
    rows: usize,
    len: usize,
    eps: f64,
    rms: bool,
    scale: impl Fn(usize, usize) -> (f64, f64),
) -> (Vec<f64>, Vec<f64>) {
    let mut means = Vec::with_capacity(rows);
    let mut rstds = Vec::with_capacity(rows);
    for r in 0..rows {
        crate::core::interrupt::checkpoint();
        let row = &x[r * len..(r + 1) * len];
        let mean = if rms || len == 0 {
            0.0
        } else {
            row.iter().map(|v| v.f64()).sum::<f64>() / len as f64
        };
        let var = if len == 0 {
            0.0
        } else {
            row.iter()
                .map(|v| {
                    let d = v.f64() - mean;
                    d * d
                })
                .sum::<f64>()
                / len as f64
        };
        let rstd = 1.0 / (var + eps).sqrt();
        for (c, (o, v)) in out[r * len..(r + 1) * len].iter_mut().zip(row).enumerate() {
            let (w, b) = scale(r, c);
            *o = T::of((v.f64() - mean) * rstd * w + b);
        }
        means.push(mean);
        rstds.push(rstd);
    }
    (means, rstds)
}

// Note [Layer norm rows]
// `native_layer_norm` and `rms_norm` normalise each row in two passes at the CPU's vector level
// (`vecmath::level()`, Note [CPU dispatch levels]): the row statistics are sums in f64 over
// eight running lanes (lane k takes elements k, k + 8, ...; the lanes are added in order at
// the end, then the tail), so the result is the same at every level; the output is computed
// in the input's dtype as torch's kernel does, `(x * rstd + (-mean * rstd)) * w + b` with `mean`
// and `rstd` rounded to the dtype first (no fused multiply-add). Before, every element went
// through f64 and a per-element closure.

/// The mean (0 for `rms`) and the biased variance about it (the mean square for `rms`) of
/// `row`, summed in eight f64 lanes.
#[inline(always)]
fn row_stats<T: Float>(row: &[T], rms: bool) -> (f64, f64) {
    let n = row.len();
    if n == 0 {
        return (0.0, 0.0);
    }
    let chunks = row.chunks_exact(8);
    let rest = chunks.remainder();
    let mean = if rms {
        0.0
    } else {
        let mut acc = [0.0f64; 8];
        for c in chunks.clone() {
            for k in 0..8 {
                acc[k] += c[k].f64();
            }
        }
        (acc.iter().sum::<f64>() + rest.iter().map(|v| v.f64()).sum::<f64>()) / n as f64
    };
    let mut sq = [0.0f64; 8];
    for c in chunks {
        for k in 0..8 {
            let d = c[k].f64() - mean;
            sq[k] += d * d;
        }
    }
    let tail: f64 = rest
        .iter()
        .map(|v| {
            let d = v.f64() - mean;
            d * d
        })
        .sum();
    (mean, (sq.iter().sum::<f64>() + tail) / n as f64)
}

/// `out = (x * a + c) * w + b` over a row (`w`, `b` per column when present).
#[inline(always)]
fn row_apply<T: Float>(row: &[T], out: &mut [T], a: T, c: T, w: Option<&[T]>, b: Option<&[T]>) {
    match (w, b) {
        (Some(w), Some(b)) => {
            for (((o, &x), &w), &b) in out.iter_mut().zip(row).zip(w).zip(b) {
                *o = (x * a + c) * w + b;
            }
        }
        (Some(w), None) => {
            for ((o, &x), &w) in out.iter_mut().zip(row).zip(w) {
                *o = (x * a + c) * w;
            }
        }
        (None, Some(b)) => {
            for ((o, &x), &b) in out.iter_mut().zip(row).zip(b) {
                *o = (x * a + c) + b;
            }
        }
        (None, None) => {
            for (o, &x) in out.iter_mut().zip(row) {
                *o = x * a + c;
            }
        }
    }
}

/// The rows of a layer / rms norm with per-column `w`, `b` (Note [Layer norm rows]); the
/// per-row `(mean, rstd)` pushed onto `stats`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn layer_rows_body<T: Float>(
    x: &[T],
    out: &mut [T],
    len: usize,
    eps: f64,
    rms: bool,
    w: Option<&[T]>,
    b: Option<&[T]>,
    stats: &mut (Vec<f64>, Vec<f64>),
) {
    if len == 0 {
        return;
    }
    for (row, o) in x.chunks_exact(len).zip(out.chunks_exact_mut(len)) {
        crate::core::interrupt::checkpoint();
        let (mean, var) = row_stats(row, rms);
        let rstd = 1.0 / (var + eps).sqrt();
        // The shift `-mean * rstd` in the dtype, as torch's kernel computes it: a row equal to
        // its mean gives exactly 0 (`x * a + c` cancels).
        let a = T::of(rstd);
        row_apply(row, o, a, -(T::of(mean) * a), w, b);
        stats.0.push(mean);
        stats.1.push(rstd);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn layer_rows_avx2<T: Float>(
    x: &[T],
    out: &mut [T],
    len: usize,
    eps: f64,
    rms: bool,
    w: Option<&[T]>,
    b: Option<&[T]>,
    stats: &mut (Vec<f64>, Vec<f64>),
) {
    layer_rows_body(x, out, len, eps, rms, w, b, stats)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn layer_rows_avx512<T: Float>(
    x: &[T],
    out: &mut [T],
    len: usize,
    eps: f64,
    rms: bool,
    w: Option<&[T]>,
    b: Option<&[T]>,
    stats: &mut (Vec<f64>, Vec<f64>),
) {
    layer_rows_body(x, out, len, eps, rms, w, b, stats)
}

/// [`layer_rows_body`] at the CPU's level; returns the per-row `(mean, rstd)`.
#[allow(clippy::too_many_arguments)]
fn layer_rows<T: Float>(
    x: &[T],
    out: &mut [T],
    rows: usize,
    len: usize,
    eps: f64,
    rms: bool,
    w: Option<&[T]>,
    b: Option<&[T]>,
) -> (Vec<f64>, Vec<f64>) {
    let mut stats = (Vec::with_capacity(rows), Vec::with_capacity(rows));
    match crate::core::vecmath::level() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `level()` reports AVX-512F only when the CPU has it (and AVX2 + FMA).
        crate::core::vecmath::Level::Avx512 => unsafe {
            layer_rows_avx512(x, out, len, eps, rms, w, b, &mut stats)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `level()` reports AVX2 only when the CPU has AVX2 and FMA.
        crate::core::vecmath::Level::Avx2 => unsafe {
            layer_rows_avx2(x, out, len, eps, rms, w, b, &mut stats)
        },
        _ => layer_rows_body(x, out, len, eps, rms, w, b, &mut stats),
    }
    if len == 0 {
        // Empty rows: torch's mean 0 and rstd 1 / sqrt(eps).
        stats.0 = vec![0.0; rows];
        stats.1 = vec![1.0 / eps.sqrt(); rows];
    }
    stats
}

/// torch's check of `normalized_shape` against `input`, `weight` and `bias`; returns the
/// number of leading dims (`axis`).
fn check_layer_norm(
    input: &Tensor,
    normalized_shape: &[i64],
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
) -> Result<usize> {
    let ns: Vec<usize> = normalized_shape
        .iter()
        .map(|&s| s.max(0) as usize)
        .collect();
    if ns.is_empty() {
        return Err(Error::runtime(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = []",
        ));
    }
    let fmt = |v: &[usize]| {
        format!(
            "[{}]",
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    for (what, t) in [("weight", weight), ("bias", bias)] {
        if let Some(t) = t {
            if t.sizes() != ns.as_slice() {
                return Err(Error::runtime(format!(
                    "Expected {what} to be of same shape as normalized_shape, but got {what} of shape {} and normalized_shape = {}",
                    fmt(t.sizes()),
                    fmt(&ns)
                )));
            }
        }
    }
    let d = input.dim();
    if d < ns.len() || input.sizes()[d - ns.len()..] != *ns.as_slice() {
        return Err(Error::runtime(format!(
            "Given normalized_shape={}, expected input with shape [*, {}], but got input of size{}",
            fmt(&ns),
            ns.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            fmt(input.sizes())
        )));
    }
    Ok(d - ns.len())
}

/// `native_layer_norm(input, normalized_shape, weight, bias, eps)`: the layer norm over the last
/// `len(normalized_shape)` dims, and the per-row `mean` and `rstd` (shape `input.shape[:axis] +
/// [1] * len(normalized_shape)`). Mirrors `torch.native_layer_norm`.
pub fn native_layer_norm(
    input: &Tensor,
    normalized_shape: &[i64],
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> Result<(Tensor, Tensor, Tensor)> {
    let axis = check_layer_norm(input, normalized_shape, weight, bias)?;
    let rows: usize = input.sizes()[..axis].iter().product();
    let len: usize = input.sizes()[axis..].iter().product();
    let mut stat_shape = input.sizes()[..axis].to_vec();
    stat_shape.extend(std::iter::repeat_n(1, input.dim() - axis));
    float_dispatch!(input.dtype(), "LayerNormKernelImpl", T => {
        let x = contiguous_of(input)?;
        let (w, b) = (affine::<T>(weight)?, affine::<T>(bias)?);
        let mut stats = (Vec::new(), Vec::new());
        let out = new_with::<T>(input.sizes(), |o| {
            // SAFETY: `x` is contiguous of dtype `T`.
            let xs = unsafe { elems::<T>(&x) };
            stats = layer_rows(xs, o, rows, len, eps, false, w.as_deref(), b.as_deref());
            Ok(())
        })?;
        let mean = Tensor::from_vec(stats.0.iter().map(|&m| T::of(m)).collect(), &stat_shape)?;
        let rstd = Tensor::from_vec(stats.1.iter().map(|&r| T::of(r)).collect(), &stat_shape)?;
        Ok((out, mean, rstd))
    })
}

/// `layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5)`: the output of
/// `native_layer_norm`. Mirrors `torch.layer_norm`.
pub fn layer_norm(
    input: &Tensor,
    normalized_shape: &[i64],
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> Result<Tensor> {
    Ok(native_layer_norm(input, normalized_shape, weight, bias, eps)?.0)
}

/// `rms_norm(input, normalized_shape, weight=None, eps=None)`: `x / sqrt(mean(x^2) + eps) * w`
/// over the last dims (`eps` defaults to the dtype's machine epsilon). Mirrors `torch.rms_norm`.
pub fn rms_norm(
    input: &Tensor,
    normalized_shape: &[i64],
    weight: Option<&Tensor>,
    eps: Option<f64>,
) -> Result<Tensor> {
    let axis = check_layer_norm(input, normalized_shape, weight, None)?;
    let rows: usize = input.sizes()[..axis].iter().product();
    let len: usize = input.sizes()[axis..].iter().product();
    float_dispatch!(input.dtype(), "rms_norm", T => {
        let eps = eps.unwrap_or(if T::DTYPE == crate::core::dtype::DType::Float32 {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        });
        let x = contiguous_of(input)?;
        let w = affine::<T>(weight)?;
        new_with::<T>(input.sizes(), |o| {
            // SAFETY: `x` is contiguous of dtype `T`.
            let xs = unsafe { elems::<T>(&x) };
            layer_rows(xs, o, rows, len, eps, true, w.as_deref(), None);
            Ok(())
        })
    })
}

/// `native_group_norm(input, weight, bias, N, C, HxW, group, eps)`: the group norm of `input`
/// seen as `(N, C, HxW)` over `group` groups of channels, and the per-(n, group) `mean` and
/// `rstd` (shape `(N, group)`). Mirrors `torch.native_group_norm`.
#[allow(non_snake_case, clippy::too_many_arguments)]
pub fn native_group_norm(
    input: &Tensor,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    N: i64,
    C: i64,
    HxW: i64,
    group: i64,
    eps: f64,
) -> Result<(Tensor, Tensor, Tensor)> {
    if group <= 0 || C % group != 0 {
        return Err(Error::runtime(format!(
            "Expected number of channels in input to be divisible by num_groups, but got input of shape {:?} and num_groups={group}",
            input.sizes()
        )));
    }
    if N < 0 || C < 0 || HxW < 0 {
        return Err(Error::runtime(format!(
            "native_group_norm: N, C and HxW must be non-negative, but got {N}, {C} and {HxW}"
        )));
    }
    let (n, c, hw, g) = (N as usize, C as usize, HxW as usize, group as usize);
    let count = n.checked_mul(c).and_then(|x| x.checked_mul(hw));
    if count != Some(input.numel()) {
        return Err(Error::runtime(format!(
            "Expected the input to have N * C * HxW = {N} * {C} * {HxW} elements, but got {}",
            input.numel()
        )));
    }
    for (what, t) in [("weight", weight), ("bias", bias)] {
        if let Some(t) = t {
            if t.dim() != 1 || t.numel() != c {
                return Err(Error::runtime(format!(
                    "Expected {what} to be a vector of size equal to the number of channels in input, but got {what} of shape {:?} and input of shape {:?}",
                    t.sizes(),
                    input.sizes()
                )));
            }
        }
    }
    let cpg = c / g;
    float_dispatch!(input.dtype(), "GroupNormKernelImpl", T => {
        let x = contiguous_of(input)?;
        let (w, b) = (affine::<T>(weight)?, affine::<T>(bias)?);
        let mut stats = (Vec::new(), Vec::new());
        let out = new_with::<T>(input.sizes(), |o| {
            // SAFETY: `x` is contiguous of dtype `T`.
            let xs = unsafe { elems::<T>(&x) };
            // Row r = (n, group): cpg * hw contiguous values; column col lies in channel
            // group * cpg + col / hw.
            stats = normalize_rows(xs, o, n * g, cpg * hw, eps, false, |r, col| {
                let ch = (r % g) * cpg + col / hw.max(1);
                (
                    w.as_ref().map_or(1.0, |w| w[ch].f64()),
                    b.as_ref().map_or(0.0, |b| b[ch].f64()),
                )
            });
            Ok(())
        })?;
        let mean = Tensor::from_vec(stats.0.iter().map(|&m| T::of(m)).collect(), &[n, g])?;
        let rstd = Tensor::from_vec(stats.1.iter().map(|&r| T::of(r)).collect(), &[n, g])?;
        Ok((out, mean, rstd))
    })
}

/// `group_norm(input, num_groups, weight=None, bias=None, eps=1e-5)`: the output of
/// `native_group_norm` for `input` `(N, C, *)`. Mirrors `torch.group_norm`.
pub fn group_norm(
    input: &Tensor,
    num_groups: i64,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> Result<Tensor> {
    if input.dim() < 2 {
        return Err(Error::runtime(format!(
            "Expected at least 2 dimensions for input tensor but received {}",
            input.dim()
        )));
    }
    let n = input.sizes()[0] as i64;
    let c = input.sizes()[1] as i64;
    let hw: usize = input.sizes()[2..].iter().product();
    Ok(native_group_norm(input, weight, bias, n, c, hw as i64, num_groups, eps)?.0)
}

/// `native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
/// eps)`: the batch norm of `input` `(N, C, *)` per channel, and the saved mean and inverse
/// std of the batch (training; empty in eval). In training the running statistics, when given,
/// are updated in place: `r = (1 - momentum) r + momentum * stat` (the unbiased variance).
/// Mirrors `torch.native_batch_norm`.
#[allow(clippy::too_many_arguments)]
pub fn native_batch_norm(
    input: &Tensor,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    running_mean: Option<&Tensor>,
    running_var: Option<&Tensor>,
    training: bool,
    momentum: f64,
    eps: f64,
) -> Result<(Tensor, Tensor, Tensor)> {
    // torch's checks in its order: the statistics and affine parameters against the number of
    // channels (0 for input of fewer than 2 dims), then the channel dim itself.
    let c = if input.dim() >= 2 {
        input.sizes()[1]
    } else {
        0
    };
    for (what, t, required) in [
        ("running_mean", running_mean, !training),
        ("running_var", running_var, !training),
        ("weight", weight, false),
        ("bias", bias, false),
    ] {
        match t {
            Some(t) if t.numel() != c => {
                return Err(Error::runtime(format!(
                    "{what} should contain {c} elements not {}",
                    t.numel()
                )));
            }
            None if required => {
                return Err(Error::runtime(format!(
                    "{what} must be defined in evaluation mode"
                )));
            }
            _ => {}
        }
    }
    if input.dim() < 2 {
        return Err(Error::index(
            "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
        ));
    }
    let n = input.sizes()[0];
    let s: usize = input.sizes()[2..].iter().product();
    float_dispatch!(input.dtype(), "batch_norm", T => {
        let x = contiguous_of(input)?;
        // SAFETY: `x` is contiguous of dtype `T`.
        let xs = unsafe { elems::<T>(&x) };
        let (w, b) = (affine::<T>(weight)?, affine::<T>(bias)?);
        let count = n * s;
        let (mean, invstd): (Vec<f64>, Vec<f64>) = if training {
            let mut mean = vec![0.0f64; c];
            let mut var = vec![0.0f64; c];
            for ch in 0..c {
                let mut sum = 0.0;
                for i in 0..n {
                    sum += xs[(i * c + ch) * s..(i * c + ch + 1) * s].iter().map(|v| v.f64()).sum::<f64>();
                }
                let m = if count > 0 { sum / count as f64 } else { f64::NAN };
                let mut sq = 0.0;
                for i in 0..n {
                    sq += xs[(i * c + ch) * s..(i * c + ch + 1) * s]
                        .iter()
                        .map(|v| (v.f64() - m) * (v.f64() - m))
                        .sum::<f64>();
                }
                mean[ch] = m;
                var[ch] = sq / count as f64;
            }
            // The running statistics, in place (unbiased variance).
            if let Some(rm) = running_mean {
                let old = rm.to_dtype(crate::core::dtype::DType::Float64)?.to_vec::<f64>();
                let new: Vec<f64> = old.iter().zip(&mean).map(|(o, m)| (1.0 - momentum) * o + momentum * m).collect();
                rm.copy_from(&Tensor::from_vec(new, rm.sizes())?)?;
            }
            if let Some(rv) = running_var {
                let old = rv.to_dtype(crate::core::dtype::DType::Float64)?.to_vec::<f64>();
                let unb = if count > 1 { count as f64 / (count - 1) as f64 } else { f64::INFINITY };
                let new: Vec<f64> = old
                    .iter()
                    .zip(&var)
                    .map(|(o, v)| (1.0 - momentum) * o + momentum * v * unb)
                    .collect();
                rv.copy_from(&Tensor::from_vec(new, rv.sizes())?)?;
            }
            (mean, var.iter().map(|v| 1.0 / (v + eps).sqrt()).collect())
        } else {
            let rm = running_mean.map(|t| t.to_dtype(crate::core::dtype::DType::Float64)).transpose()?;
            let rv = running_var.map(|t| t.to_dtype(crate::core::dtype::DType::Float64)).transpose()?;
            let m = rm.map(|t| t.to_vec::<f64>()).unwrap_or_default();
            let v: Vec<f64> = rv.map(|t| t.to_vec::<f64>()).unwrap_or_default();
            (m, v.iter().map(|v| 1.0 / (v + eps).sqrt()).collect())
        };
        let out = new_with::<T>(input.sizes(), |o| {
            for i in 0..n {
                for ch in 0..c {
                    let (wv, bv) = (
                        w.as_ref().map_or(1.0, |w| w[ch].f64()),
                        b.as_ref().map_or(0.0, |b| b[ch].f64()),
                    );
                    let base = (i * c + ch) * s;
                    for k in base..base + s {
                        o[k] = T::of((xs[k].f64() - mean[ch]) * invstd[ch] * wv + bv);
                    }
                }
            }
            Ok(())
        })?;
        let (sm, si) = if training {
            (
                Tensor::from_vec(mean.iter().map(|&m| T::of(m)).collect(), &[c])?,
                Tensor::from_vec(invstd.iter().map(|&m| T::of(m)).collect(), &[c])?,
            )
        } else {
            (Tensor::zeros(&[0], T::DTYPE)?, Tensor::zeros(&[0], T::DTYPE)?)
        };
        Ok((out, sm, si))
    })
}

/// `batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
/// cudnn_enabled)`: the output of `native_batch_norm`. Mirrors `torch.batch_norm`.
#[allow(clippy::too_many_arguments)]
pub fn batch_norm(
    input: &Tensor,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    running_mean: Option<&Tensor>,
    running_var: Option<&Tensor>,
    training: bool,
    momentum: f64,
    eps: f64,
    _cudnn_enabled: bool,
) -> Result<Tensor> {
    Ok(native_batch_norm(
        input,
        weight,
        bias,
        running_mean,
        running_var,
        training,
        momentum,
        eps,
    )?
    .0)
}
