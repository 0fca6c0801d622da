//! src/core/autograd/formula_helpers.rs: the functions the derivative formulas of
//! src/derivatives.yaml call beside the recording wrappers (PyTorch: `FunctionsManual.cpp` —
//! `maybe_multiply`, `sum_backward`, `evenly_distribute_backward`, `var_backward`, ...). Written
//! over the recording wrappers (`vt::`), so that a backward run with `create_graph` records a
//! graph of its own (double backward); values that only select (masks, index tensors, zeros)
//! use the bare ops.

use super::variable_type as vt;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::ops;
use crate::core::scalar::Scalar;
use crate::core::tensor::{maybe_wrap_dim, Tensor};

/// The gradient of the first output, which a formula needs (the engine materialises
/// single-output gradients).
pub(crate) fn need(grads: &[Option<Tensor>]) -> Result<&Tensor> {
    grads
        .first()
        .and_then(|g| g.as_ref())
        .ok_or_else(|| Error::runtime("internal error: a formula got no gradient"))
}

/// Move a saved tensor into `out` (a node releasing what it saved).
pub(crate) fn take_saved(
    s: &mut super::node::SavedTensor,
    out: &mut Vec<super::node::SavedTensor>,
) {
    use super::node::SavedTensor;
    if !matches!(s, SavedTensor::None | SavedTensor::Released) {
        out.push(std::mem::replace(s, SavedTensor::Released));
    }
}

pub(crate) fn sizes_i64(sizes: &[usize]) -> Vec<i64> {
    sizes.iter().map(|&s| s as i64).collect()
}

/// A 0-d tensor holding `v` in `like`'s dtype.
pub(crate) fn scalar_like(v: f64, like: &Tensor) -> Result<Tensor> {
    ops::full(&[], Scalar::Float(v), Some(like.dtype()))
}

/// Zeros of `t`'s shape and dtype (the formula of a function with zero gradient).
pub(crate) fn zeros_like(t: &Tensor) -> Result<Tensor> {
    ops::zeros_like(t, None)
}

/// torch's `maybe_multiply`: `g * alpha`, skipping the multiply for alpha == 1.
pub(crate) fn maybe_multiply(g: &Tensor, alpha: Scalar) -> Result<Tensor> {
    let is_one = match alpha {
        Scalar::Int(1) => true,
        Scalar::Float(f) => f == 1.0,
        Scalar::Bool(true) => true,
        _ => false,
    };
    if is_one {
        Ok(g.clone())
    } else {
        let a = ops::full(&[], alpha, Some(g.dtype()))?;
        vt::mul(g, &a)
    }
}

/// The reduced dims of a reduction over `dim` (None or empty: all) of a tensor of rank `rank`,
/// wrapped and sorted.
fn reduced_dims(dim: Option<&[i64]>, rank: usize) -> Result<Vec<usize>> {
    let mut ds: Vec<usize> = match dim {
        Some(ds) if !ds.is_empty() => ds
            .iter()
            .map(|&d| maybe_wrap_dim(d, rank))
            .collect::<Result<_>>()?,
        _ => (0..rank).collect(),
    };
    ds.sort_unstable();
    ds.dedup();
    Ok(ds)
}

/// `g` and the result `r` of a reduction over `dim` (None or empty: all) of a tensor of rank
/// `rank`, with the reduced dims put back (size 1) unless `keepdim`.
pub(crate) fn unsqueeze_reduced(
    g: &Tensor,
    r: &Tensor,
    dim: Option<&[i64]>,
    keepdim: bool,
    rank: usize,
) -> Result<(Tensor, Tensor)> {
    if keepdim || rank == 0 {
        return Ok((g.clone(), r.clone()));
    }
    let (mut g, mut r) = (g.clone(), r.clone());
    for d in reduced_dims(dim, rank)? {
        g = vt::unsqueeze(&g, d as i64)?;
        // Recorded too: formulas differentiate through the result (double backward).
        r = vt::unsqueeze(&r, d as i64)?;
    }
    Ok((g, r))
}

/// torch's `sum_backward`: `g` (reduced over `dim`, None or empty: all) expanded back to
/// `sizes`.
pub(crate) fn sum_backward(
    g: &Tensor,
    sizes: &[usize],
    dim: Option<&[i64]>,
    keepdim: bool,
) -> Result<Tensor> {
    let mut g = g.clone();
    if !keepdim && g.dim() != sizes.len() {
        for d in reduced_dims(dim, sizes.len())? {
            g = vt::unsqueeze(&g, d as i64)?;
        }
    }
    vt::expand(&g, &sizes_i64(sizes))
}

/// torch's `mean_backward`: `sum_backward` divided by the number of elements averaged.
pub(crate) fn mean_backward(
    g: &Tensor,
    sizes: &[usize],
    dim: Option<&[i64]>,
    keepdim: bool,
) -> Result<Tensor> {
    let count: usize = reduced_dims(dim, sizes.len())?
        .iter()
        .map(|&d| sizes[d])
        .product();
    let e = sum_backward(g, sizes, dim, keepdim)?;
    vt::div(&e, &scalar_like(count as f64, g)?, None)
}

/// torch's `evenly_distribute_backward` (max(), min(), amax, amin): the gradient split evenly
/// among the elements equal to the result.
pub(crate) fn evenly_distribute_backward(
    g: &Tensor,
    input: &Tensor,
    result: &Tensor,
    dim: Option<&[i64]>,
    keepdim: bool,
) -> Result<Tensor> {
    let (g, r) = unsqueeze_reduced(g, result, dim, keepdim, input.dim())?;
    let dt = input.dtype();
    let mut mask = ops::eq(input, &r)?.to_dtype(dt)?;
    if dt.is_floating_point() {
        // torch: a NaN result (median with a NaN, nanmedian of all-NaN) selects the NaNs.
        let nans = ops::mul(
            &ops::isnan(input)?.to_dtype(dt)?,
            &ops::isnan(&r)?.to_dtype(dt)?,
        )?;
        mask = ops::add(&mask, &nans, Scalar::Int(1))?;
    }
    let count = match dim {
        Some(ds) if !ds.is_empty() => ops::sum(&mask, Some(ds), true, None)?,
        _ => ops::sum_all(&mask, None)?,
    };
    vt::div(&vt::mul(&g, &mask)?, &count, None)
}

/// The gradient of `self` (`which` 0) or `other` (1) of maximum (`is_max`) / minimum: to the
/// larger (smaller) input, half to each where they tie.
pub(crate) fn max_min_backward(
    g: &Tensor,
    a: &Tensor,
    b: &Tensor,
    is_max: bool,
    which: usize,
) -> Result<Tensor> {
    let half = scalar_like(0.5, g)?;
    let tie = vt::mul(&ops::eq(a, b)?.to_dtype(g.dtype())?, &half)?;
    let wins = match (is_max, which) {
        (true, 0) | (false, 1) => ops::gt(a, b)?,
        _ => ops::lt(a, b)?,
    };
    vt::mul(
        g,
        &vt::add(&wins.to_dtype(g.dtype())?, &tie, Scalar::Int(1))?,
    )
}

/// `g * d(a^e)/da`: `g * e * a^(e-1)`, 0 where `e == 0`.
pub(crate) fn pow_backward_self(g: &Tensor, a: &Tensor, e: &Tensor) -> Result<Tensor> {
    let em1 = vt::sub(e, &scalar_like(1.0, e)?, Scalar::Int(1))?;
    let d = vt::mul(e, &vt::pow(a, &em1)?)?;
    let zero = ops::eq(e, &scalar_like(0.0, e)?)?;
    let d = vt::masked_fill(&d, &zero, Scalar::Float(0.0))?;
    vt::mul(g, &d)
}

/// `g * d(a^e)/de`: `g * result * log(a)`, 0 where `a == 0` and `e >= 0`.
pub(crate) fn pow_backward_exponent(
    g: &Tensor,
    a: &Tensor,
    e: &Tensor,
    result: &Tensor,
) -> Result<Tensor> {
    let d = vt::mul(result, &vt::log(a)?)?;
    let a0 = ops::eq(a, &scalar_like(0.0, a)?)?;
    let e0 = ops::ge(e, &scalar_like(0.0, e)?)?;
    let mask = ops::logical_and(&a0, &e0)?;
    let d = vt::masked_fill(&d, &mask, Scalar::Float(0.0))?;
    vt::mul(g, &d)
}

/// `g` where `min < a < max` (either bound optional), 0 elsewhere: at a bound, 0 (torch 2.15's
/// clamp_backward gives ties to the bound, which has no gradient here).
pub(crate) fn clamp_backward(
    g: &Tensor,
    a: &Tensor,
    min: Option<Scalar>,
    max: Option<Scalar>,
) -> Result<Tensor> {
    let mut keep = ops::ones_like(a, Some(DType::Bool))?;
    if let Some(lo) = min {
        let lo = ops::full(&[], lo, Some(a.dtype()))?;
        keep = ops::logical_and(&keep, &ops::gt(a, &lo)?)?;
    }
    if let Some(hi) = max {
        let hi = ops::full(&[], hi, Some(a.dtype()))?;
        keep = ops::logical_and(&keep, &ops::lt(a, &hi)?)?;
    }
    vt::mul(g, &keep)
}

/// matmul's backward for every rank combination: the gradient of `self` (`which` 0) or
/// `other` (1); the engine sums broadcast batch dims away.
pub(crate) fn matmul_backward(g: &Tensor, a: &Tensor, b: &Tensor, which: usize) -> Result<Tensor> {
    let (ra, rb) = (a.dim(), b.dim());
    if ra == 1 && rb == 1 {
        return vt::mul(g, if which == 0 { b } else { a });
    }
    let mut gg = g.clone();
    if ra == 1 {
        gg = vt::unsqueeze(&gg, -2)?;
    }
    if rb == 1 {
        gg = vt::unsqueeze(&gg, -1)?;
    }
    if which == 0 {
        let b2 = if rb == 1 {
            vt::unsqueeze(b, -1)?
        } else {
            b.clone()
        };
        let r = vt::matmul(&gg, &vt::transpose(&b2, -1, -2)?)?;
        if ra == 1 {
            vt::squeeze_dim(&r, -2)
        } else {
            Ok(r)
        }
    } else {
        let a2 = if ra == 1 {
            vt::unsqueeze(a, 0)?
        } else {
            a.clone()
        };
        let r = vt::matmul(&vt::transpose(&a2, -1, -2)?, &gg)?;
        if rb == 1 {
            vt::squeeze_dim(&r, -1)
        } else {
            Ok(r)
        }
    }
}

/// `g` permuted back by the inverse of `dims`.
pub(crate) fn permute_backwards(g: &Tensor, dims: &[i64]) -> Result<Tensor> {
    let mut inv = vec![0i64; dims.len()];
    for (i, &d) in dims.iter().enumerate() {
        inv[maybe_wrap_dim(d, dims.len())?] = i as i64;
    }
    vt::permute(g, &inv)
}

/// `g` rolled back by `shifts`.
pub(crate) fn roll_backward(g: &Tensor, shifts: &[i64], dims: &[i64]) -> Result<Tensor> {
    let neg: Vec<i64> = shifts.iter().map(|s| -s).collect();
    vt::roll(g, &neg, dims)
}

/// softmax's backward from its result `r`: `r * (g - sum(g * r, dim))`.
pub(crate) fn softmax_backward_data(g: &Tensor, r: &Tensor, dim: i64) -> Result<Tensor> {
    let gr = vt::mul(g, r)?;
    let s = vt::sum(&gr, Some(&[dim]), true, None)?;
    vt::sub(&gr, &vt::mul(r, &s)?, Scalar::Int(1))
}

/// log_softmax's backward from its result `r`: `g - exp(r) * sum(g, dim)`.
pub(crate) fn log_softmax_backward_data(g: &Tensor, r: &Tensor, dim: i64) -> Result<Tensor> {
    let s = vt::sum(g, Some(&[dim]), true, None)?;
    vt::sub(g, &vt::mul(&vt::exp(r)?, &s)?, Scalar::Int(1))
}

/// logsumexp's backward: `g * exp(self - result)` (reduced dims put back).
pub(crate) fn logsumexp_backward(
    g: &Tensor,
    x: &Tensor,
    result: &Tensor,
    dim: &[i64],
    keepdim: bool,
) -> Result<Tensor> {
    let (g, r) = unsqueeze_reduced(g, result, Some(dim), keepdim, x.dim())?;
    vt::mul(&g, &vt::exp(&vt::sub(x, &r, Scalar::Int(1))?)?)
}

/// torch's `var_backward` / `std_backward` over `dim` (None or empty: all) with `correction`.
pub(crate) fn var_std_backward(
    g: &Tensor,
    x: &Tensor,
    result: &Tensor,
    dim: Option<&[i64]>,
    correction: f64,
    keepdim: bool,
    is_std: bool,
) -> Result<Tensor> {
    let count: usize = reduced_dims(dim, x.dim())?
        .iter()
        .map(|&d| x.sizes()[d])
        .product();
    let (g, r) = unsqueeze_reduced(g, result, dim, keepdim, x.dim())?;
    let mean = vt::mean(x, dim.filter(|d| !d.is_empty()), true, None)?;
    let centered = vt::sub(x, &mean, Scalar::Int(1))?;
    let denom = count as f64 - correction;
    if is_std {
        let d = vt::div(&centered, &vt::mul(&r, &scalar_like(denom, x)?)?, None)?;
        vt::mul(&g, &d)
    } else {
        vt::mul(&g, &vt::mul(&centered, &scalar_like(2.0 / denom, x)?)?)
    }
}

/// The `correction` of var/std from `unbiased` or the `correction=` argument (default 1).
pub(crate) fn correction_of(c: Option<Scalar>) -> f64 {
    c.map_or(1.0, |c| c.to_f64())
}

/// torch's `norm_backward` (p = 2 when None): p = 0 gives zeros; p = 1 `g * sgn(self)`;
/// p = ±inf `g * sgn(self)` split evenly among the elements whose |self| is the norm; otherwise
/// `g * self * |self|^(p-2) / norm^(p-1)`, 0 where the norm is 0.
pub(crate) fn norm_backward(
    g: &Tensor,
    x: &Tensor,
    result: &Tensor,
    p: Option<Scalar>,
    dim: Option<&[i64]>,
    keepdim: bool,
) -> Result<Tensor> {
    let p = p.map_or(2.0, |p| p.to_f64());
    let (g, r) = unsqueeze_reduced(g, result, dim, keepdim, x.dim())?;
    if p == 0.0 {
        return zeros_like(x);
    }
    if p == 1.0 {
        return vt::mul(&g, &ops::sign(x)?);
    }
    if p.is_infinite() {
        let mask = ops::eq(&ops::abs(x)?, &r)?.to_dtype(x.dtype())?;
        let count = match dim {
            Some(ds) if !ds.is_empty() => ops::sum(&mask, Some(ds), true, None)?,
            _ => ops::sum_all(&mask, None)?,
        };
        let share = vt::div(&vt::mul(&g, &mask)?, &count, None)?;
        return vt::mul(&share, &ops::sign(x)?);
    }
    let d = if p == 2.0 {
        vt::div(x, &r, None)?
    } else {
        let ax = vt::abs(x)?;
        let num = vt::mul(x, &vt::pow(&ax, &scalar_like(p - 2.0, x)?)?)?;
        vt::div(&num, &vt::pow(&r, &scalar_like(p - 1.0, x)?)?, None)?
    };
    let zero = ops::eq(&r, &scalar_like(0.0, &r)?)?;
    let d = vt::masked_fill(&d, &zero, Scalar::Float(0.0))?;
    vt::mul(&g, &d)
}

/// `zeros(sizes).index_add(dim, index, g)`: the backward of the ops that pick slices along
/// `dim` (index_select, narrow, select).
pub(crate) fn index_add_into_zeros(
    g: &Tensor,
    sizes: &[usize],
    dim: i64,
    index: &Tensor,
) -> Result<Tensor> {
    let z = ops::zeros(&sizes_i64(sizes), Some(g.dtype()))?;
    vt::index_add(&z, dim, index, g, Scalar::Int(1))
}

/// gather's backward: `zeros(sizes).scatter_add(dim, index, g)`.
pub(crate) fn gather_backward(
    g: &Tensor,
    sizes: &[usize],
    dim: i64,
    index: &Tensor,
) -> Result<Tensor> {
    let z = ops::zeros(&sizes_i64(sizes), Some(g.dtype()))?;
    vt::scatter_add(&z, dim, index, g)
}

/// narrow's backward: `g` added into zeros of the input's shape at `start..start + length`.
pub(crate) fn narrow_backward(
    g: &Tensor,
    sizes: &[usize],
    dim: i64,
    start: i64,
    length: i64,
) -> Result<Tensor> {
    let d = maybe_wrap_dim(dim, sizes.len())?;
    let start = if start < 0 {
        start + sizes[d] as i64
    } else {
        start
    };
    let idx = ops::arange_start(
        Scalar::Int(start),
        Scalar::Int(start + length),
        Some(DType::Int64),
    )?;
    index_add_into_zeros(g, sizes, dim, &idx)
}

/// index_add's gradient for `source`: `g.index_select(dim, index) * alpha` (in the shape of a
/// 0-d source when `source_rank` is 0).
pub(crate) fn index_add_source_backward(
    g: &Tensor,
    dim: i64,
    index: &Tensor,
    alpha: Scalar,
    source_rank: usize,
) -> Result<Tensor> {
    let s = vt::index_select(g, dim, index)?;
    let s = if source_rank == 0 {
        vt::reshape(&s, &[])?
    } else {
        s
    };
    maybe_multiply(&s, alpha)
}

/// trace's backward: `g` on the diagonal of a matrix of `sizes`.
pub(crate) fn trace_backward(g: &Tensor, sizes: &[usize]) -> Result<Tensor> {
    let eye = ops::eye_m(sizes[0] as i64, sizes[1] as i64, Some(g.dtype()))?;
    vt::mul(&eye, g)
}

/// torch's `prod_backward` over `dim` (None: all elements): `g * result / self` in slices
/// without a zero; in a slice with one zero, the product of the others at the zero and 0
/// elsewhere; 0 in slices with two zeros or more. Second order: exact except in slices with two
/// zeros or more (torch's exclusive cumprods give the product of the rest there; this gives 0).
pub(crate) fn prod_backward(
    g: &Tensor,
    x: &Tensor,
    result: &Tensor,
    dim: Option<i64>,
    keepdim: bool,
) -> Result<Tensor> {
    if x.dim() == 0 {
        return Ok(g.clone());
    }
    let dims = dim.map(|d| [d]);
    let (g, r) = unsqueeze_reduced(g, result, dims.as_ref().map(|d| &d[..]), keepdim, x.dim())?;
    let zero = ops::eq(x, &scalar_like(0.0, x)?)?;
    let count = match dims {
        Some(d) => ops::sum(&zero, Some(&d), true, None)?,
        None => ops::sum_all(&zero, None)?,
    };
    let int = |v: i64| ops::full(&[], Scalar::Int(v), Some(DType::Int64));
    let no_zero = ops::eq(&count, &int(0)?)?;
    let one_zero = ops::logical_and(&ops::eq(&count, &int(1)?)?, &zero)?;
    let safe = vt::masked_fill(x, &zero, Scalar::Float(1.0))?;
    let others = match dim {
        Some(d) => vt::prod_dim_int(&safe, d, true, None)?,
        None => vt::prod(&safe, None)?,
    };
    // In a slice with one zero x_k: at x_k the product of the others; elsewhere
    // `others / x_j * x_k`, 0 in value but with x_k's derivative (double backward).
    let zero_f = zero.to_dtype(x.dtype())?;
    let xk = match dim {
        Some(d) => vt::sum(&vt::mul(x, &zero_f)?, Some(&[d]), true, None)?,
        None => vt::sum_all(&vt::mul(x, &zero_f)?, None)?,
    };
    let in_one = ops::eq(&count, &int(1)?)?;
    let zeros = scalar_like(0.0, x)?;
    let d = vt::where_(
        &no_zero,
        &vt::div(&r, &safe, None)?,
        &vt::where_(
            &in_one,
            &vt::where_(
                &one_zero,
                &others,
                &vt::mul(&vt::div(&others, &safe, None)?, &xk)?,
            )?,
            &zeros,
        )?,
    )?;
    vt::mul(&g, &d)
}

/// repeat's backward: `g` viewed as `[r0, s0, r1, s1, ...]` summed over the repeats, in the
/// input's shape (`sizes`, with as many leading 1s as `repeats` has extra dims).
pub(crate) fn repeat_backward(g: &Tensor, sizes: &[usize], repeats: &[i64]) -> Result<Tensor> {
    let pad = repeats.len().saturating_sub(sizes.len());
    let padded: Vec<i64> = std::iter::repeat_n(1, pad)
        .chain(sizes.iter().map(|&s| s as i64))
        .collect();
    let mut split = Vec::with_capacity(2 * repeats.len());
    for (r, s) in repeats.iter().zip(&padded) {
        split.push(*r);
        split.push(*s);
    }
    let summed: Vec<i64> = (0..repeats.len()).map(|i| 2 * i as i64).collect();
    let g = vt::reshape(g, &split)?;
    let g = if summed.is_empty() {
        g
    } else {
        vt::sum(&g, Some(&summed), false, None)?
    };
    vt::reshape(&g, &sizes_i64(sizes))
}

/// tile's backward: repeat's, with `dims` padded by leading 1s to the input's rank.
pub(crate) fn tile_backward(g: &Tensor, sizes: &[usize], dims: &[i64]) -> Result<Tensor> {
    let pad = sizes.len().saturating_sub(dims.len());
    let reps: Vec<i64> = std::iter::repeat_n(1, pad)
        .chain(dims.iter().copied())
        .collect();
    repeat_backward(g, sizes, &reps)
}

/// take's backward: `g` added at the flat positions `index` of zeros of the input's shape.
pub(crate) fn take_backward(g: &Tensor, sizes: &[usize], index: &Tensor) -> Result<Tensor> {
    let numel: usize = sizes.iter().product();
    let idx = ops::reshape(index, &[-1])?;
    let neg = ops::lt(&idx, &ops::full(&[], Scalar::Int(0), Some(idx.dtype()))?)?;
    let shifted = ops::add(
        &idx,
        &ops::full(&[], Scalar::Int(numel as i64), Some(idx.dtype()))?,
        Scalar::Int(1),
    )?;
    let idx = ops::where_(&neg, &shifted, &idx)?;
    let z = ops::zeros(&[numel as i64], Some(g.dtype()))?;
    let flat = vt::index_add(&z, 0, &idx, &vt::reshape(g, &[-1])?, Scalar::Int(1))?;
    vt::reshape(&flat, &sizes_i64(sizes))
}

/// masked_select's backward: `g` written at the true positions of `mask` in zeros of the
/// broadcast shape of the input and the mask (the engine sums it to the input's shape).
pub(crate) fn masked_select_backward(g: &Tensor, sizes: &[usize], mask: &Tensor) -> Result<Tensor> {
    let shape = crate::core::tensor::broadcast_shapes(sizes, mask.sizes())?;
    let shape = sizes_i64(&shape);
    let z = ops::zeros(&shape, Some(g.dtype()))?;
    let m = ops::expand(mask, &shape)?;
    vt::index_put_accumulate(&z, &[ops::indexing::IndexItem::Tensor(m)], g)
}

/// The gradient of a filled value (`index_fill` / `masked_fill` with a tensor value): the sum
/// of `g` over the positions `filled` (a 0/1 tensor of `g`'s shape).
pub(crate) fn fill_value_backward(g: &Tensor, filled: &Tensor) -> Result<Tensor> {
    vt::sum_all(&vt::mul(g, filled)?, None)
}

/// The positions `index_fill(dim, index)` writes, as 1s in zeros of `g`'s shape (each
/// position once, whatever the duplicates in `index`).
pub(crate) fn index_fill_mask(g: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
    ops::index_fill_scalar(&ops::zeros_like(g, None)?, dim, index, Scalar::Int(1))
}

/// norm.str's backward: the Frobenius norm is the 2-norm; `nuc` has no formula here.
pub(crate) fn norm_str_backward(
    g: &Tensor,
    x: &Tensor,
    result: &Tensor,
    p: &str,
    dim: Option<&[i64]>,
    keepdim: bool,
) -> Result<Tensor> {
    if p != "fro" {
        return Err(vt::not_implemented("norm (p='nuc')"));
    }
    norm_backward(g, x, result, None, dim, keepdim)
}

/// A 0-dim integer tensor's value (narrow.Tensor's `start`).
pub(crate) fn int_of(t: &Tensor) -> Result<i64> {
    Ok(t.item()?.to_f64() as i64)
}

// ---- session 3 (issue 12): the formulas of the special, product and clamp ops ---------------

/// A 0-d tensor holding the scalar `v` in `like`'s dtype.
fn scalar_tensor(v: Scalar, like: &Tensor) -> Result<Tensor> {
    ops::full(&[], v, Some(like.dtype()))
}

/// `polygamma(1, x)` (trigamma), elementwise in `x`'s dtype: the recurrence up to 6, then the
/// asymptotic series; the reflection formula below 0.5. A bare op (digamma's formula: its own
/// derivative, polygamma(2, x), is not recorded).
pub(crate) fn trigamma(x: &Tensor) -> Result<Tensor> {
    fn tri(mut x: f64) -> f64 {
        if x.is_nan() {
            return f64::NAN;
        }
        if x <= 0.0 && x == x.floor() {
            return f64::INFINITY;
        }
        if x < 0.5 {
            // trigamma(1 - x) + trigamma(x) = pi^2 / sin^2(pi x)
            let s = (std::f64::consts::PI * x).sin();
            return std::f64::consts::PI * std::f64::consts::PI / (s * s) - tri(1.0 - x);
        }
        let mut acc = 0.0;
        while x < 6.0 {
            acc += 1.0 / (x * x);
            x += 1.0;
        }
        let z2 = 1.0 / (x * x);
        acc + 1.0 / x
            + z2 / 2.0
            + z2 / x * (1.0 / 6.0 - z2 * (1.0 / 30.0 - z2 * (1.0 / 42.0 - z2 / 30.0)))
    }
    let xd = x.to_dtype(DType::Float64)?.contiguous()?;
    let v: Vec<f64> = xd.to_vec::<f64>().into_iter().map(tri).collect();
    Tensor::from_vec(v, x.sizes())?.to_dtype(x.dtype())
}

/// torch's `infinitely_differentiable_logit_backward`: `g / (x (1 - x))`; with `eps`, 0 outside
/// `[eps, 1 - eps]`; without, NaN outside `[0, 1]`.
pub(crate) fn logit_backward(g: &Tensor, x: &Tensor, eps: Option<f64>) -> Result<Tensor> {
    let one_minus = vt::sub(&scalar_like(1.0, x)?, x, Scalar::Int(1))?;
    let d = vt::div(g, &vt::mul(x, &one_minus)?, None)?;
    let (lo, hi, fill) = match eps {
        Some(e) => (e, 1.0 - e, 0.0),
        None => (0.0, 1.0, f64::NAN),
    };
    let out = ops::logical_or(
        &ops::lt(x, &scalar_like(lo, x)?)?,
        &ops::gt(x, &scalar_like(hi, x)?)?,
    )?;
    vt::masked_fill(&d, &out, Scalar::Float(fill))
}

/// xlogy's gradient for `self`: `xlogy(g, other)`, 0 where `self == 0` and `other <= 0`.
pub(crate) fn xlogy_self_backward(g: &Tensor, x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let d = vt::xlogy(g, y)?;
    let mask = ops::logical_and(
        &ops::eq(x, &scalar_like(0.0, x)?)?,
        &ops::le(y, &scalar_like(0.0, y)?)?,
    )?;
    vt::masked_fill(&d, &mask, Scalar::Float(0.0))
}

/// torch's `copysign_tensor_self_backward`: `g * result / self`, 0 where `self == 0`.
pub(crate) fn copysign_backward(g: &Tensor, x: &Tensor, result: &Tensor) -> Result<Tensor> {
    let ratio = vt::div(result, x, None)?;
    let zero = ops::eq(x, &scalar_like(0.0, x)?)?;
    vt::mul(g, &vt::masked_fill(&ratio, &zero, Scalar::Float(0.0))?)
}

/// The tie-splitting gradient of fmax/fmin/clamp_min.Tensor/clamp_max.Tensor (torch 2.15):
/// `where(a == b, g / 2, g)`, 0 where `drop`.
fn tie_split(g: &Tensor, a: &Tensor, b: &Tensor, drop: &Tensor) -> Result<Tensor> {
    let half = vt::mul(g, &scalar_like(0.5, g)?)?;
    let d = vt::where_(&ops::eq(a, b)?, &half, g)?;
    vt::masked_fill(&d, drop, Scalar::Float(0.0))
}

/// fmax (`is_max`) / fmin's gradient for `self` (`which` 0) or `other` (1): ties split, NaN
/// selection as the forward (a NaN loses to a number).
pub(crate) fn fmax_fmin_backward(
    g: &Tensor,
    a: &Tensor,
    b: &Tensor,
    is_max: bool,
    which: usize,
) -> Result<Tensor> {
    let b_nan = ops::isnan(b)?;
    let drop = match (is_max, which) {
        (true, 0) => ops::logical_not(&ops::logical_or(&ops::ge(a, b)?, &b_nan)?)?,
        (true, _) => ops::logical_or(&ops::gt(a, b)?, &b_nan)?,
        (false, 0) => ops::logical_not(&ops::logical_or(&ops::le(a, b)?, &b_nan)?)?,
        (false, _) => ops::logical_or(&ops::lt(a, b)?, &b_nan)?,
    };
    tie_split(g, a, b, &drop)
}

/// clamp_min.Tensor (`is_min`) / clamp_max.Tensor's gradient for `self` (`which` 0) or the
/// bound (1): ties split.
pub(crate) fn clamp_bound_backward(
    g: &Tensor,
    a: &Tensor,
    bound: &Tensor,
    is_min: bool,
    which: usize,
) -> Result<Tensor> {
    let drop = match (is_min, which) {
        (true, 0) | (false, 1) => ops::lt(a, bound)?,
        _ => ops::gt(a, bound)?,
    };
    tie_split(g, a, bound, &drop)
}

/// clamp_min (`is_min`) / clamp_max with a number: `g` where `self > min` (`self < max`),
/// 0 elsewhere, ties included (torch 2.15).
pub(crate) fn clamp_scalar_backward(
    g: &Tensor,
    a: &Tensor,
    bound: Scalar,
    is_min: bool,
) -> Result<Tensor> {
    let b = scalar_tensor(bound, a)?;
    let keep = if is_min {
        ops::gt(a, &b)?
    } else {
        ops::lt(a, &b)?
    };
    vt::where_(&keep, g, &scalar_like(0.0, g)?)
}

/// `g * value`, `value` a number (`maybe_multiply` of a tensor by a number).
pub(crate) fn times(t: &Tensor, value: Scalar) -> Result<Tensor> {
    maybe_multiply(t, value)
}

/// diagonal's backward: `g` written on the diagonal (`offset`, `dim1`, `dim2`) of zeros of
/// `sizes` (an `index_add` at the diagonal's flat positions, recorded for double backward).
pub(crate) fn diagonal_backward(
    g: &Tensor,
    sizes: &[usize],
    offset: i64,
    dim1: i64,
    dim2: i64,
) -> Result<Tensor> {
    let numel: usize = sizes.iter().product();
    let pos = ops::reshape(
        &ops::arange(Scalar::Int(numel as i64), Some(DType::Int64))?,
        &sizes_i64(sizes),
    )?;
    let pos = ops::reshape(&ops::diagonal(&pos, offset, dim1, dim2)?, &[-1])?;
    let z = ops::zeros(&[numel as i64], Some(g.dtype()))?;
    let flat = vt::index_add(&z, 0, &pos, &vt::reshape(g, &[-1])?, Scalar::Int(1))?;
    vt::reshape(&flat, &sizes_i64(sizes))
}

/// diag's backward: of a vector (`sizes` of rank 1), the `offset` diagonal of `g`; of a matrix,
/// diagonal's backward.
pub(crate) fn diag_backward(g: &Tensor, sizes: &[usize], offset: i64) -> Result<Tensor> {
    if sizes.len() == 1 {
        vt::diagonal(g, offset, 0, 1)
    } else {
        diagonal_backward(g, sizes, offset, 0, 1)
    }
}

/// cumprod's backward along `dim`: without zeros, `flip(cumsum(flip(g * result))) / x`; with a
/// zero in `x`, the exact sum `d_k = sum_{j >= k} g_j prod_{i <= j, i != k} x_i` (an n×n
/// product per slice). Both are recorded (double backward).
pub(crate) fn cumprod_backward(
    g: &Tensor,
    x: &Tensor,
    result: &Tensor,
    dim: i64,
) -> Result<Tensor> {
    if x.dim() == 0 || x.numel() == 0 {
        return Ok(g.clone());
    }
    let d = maybe_wrap_dim(dim, x.dim())? as i64;
    let g = if g.dtype() == x.dtype() {
        g.clone()
    } else {
        vt::to(g, x.dtype(), false, false)?
    };
    let has_zero = ops::sum_all(&ops::eq(x, &scalar_like(0.0, x)?)?, None)?
        .item()?
        .to_f64()
        > 0.0;
    if !has_zero {
        let r = if result.dtype() == x.dtype() {
            result.clone()
        } else {
            vt::to(result, x.dtype(), false, false)?
        };
        let s = vt::flip(
            &vt::cumsum(&vt::flip(&vt::mul(&g, &r)?, &[d])?, d, None)?,
            &[d],
        )?;
        return vt::div(&s, x, None);
    }
    let n = x.sizes()[d as usize] as i64;
    let last = x.dim() as i64 - 1;
    let xm = vt::movedim_intlist(x, &[d], &[last])?;
    let gm = vt::movedim_intlist(&g, &[d], &[last])?;
    // rows[..., k, i] = x_i, with x_k replaced by 1.
    let mut shape: Vec<i64> = xm.sizes().iter().map(|&s| s as i64).collect();
    shape.insert(shape.len() - 1, n);
    let rows = vt::expand(&vt::unsqueeze(&xm, -2)?, &shape)?;
    let eye = ops::eye_m(n, n, Some(DType::Bool))?;
    let rows = vt::where_(&eye, &scalar_like(1.0, x)?, &rows)?;
    let prods = vt::cumprod(&rows, -1, None)?;
    // Keep j >= k (the upper triangle).
    let upper = ops::triu(&ops::ones_like(&eye, Some(x.dtype()))?, 0)?;
    let prods = vt::mul(&prods, &upper)?;
    let dk = vt::squeeze_dim(&vt::matmul(&prods, &vt::unsqueeze(&gm, -1)?)?, -1)?;
    vt::movedim_intlist(&dk, &[last], &[d])
}

/// cdist's gradient for `x1` (`which` 0; for `x2`, the roles swapped and the result
/// transposed): `sum_j g[i, j] * d dist(x1_i, x2_j) / d x1_i`, written over broadcast
/// differences (p = 0: zeros; p = 1: sign; p = inf: sign where |diff| is the distance;
/// otherwise `sign(diff) |diff|^(p-1) / dist^(p-1)`, 0 where the distance is 0).
pub(crate) fn cdist_backward(
    g: &Tensor,
    x1: &Tensor,
    x2: &Tensor,
    p: f64,
    result: &Tensor,
    which: usize,
) -> Result<Tensor> {
    let (a, b, g, r) = if which == 0 {
        (x1.clone(), x2.clone(), g.clone(), result.clone())
    } else {
        (
            x2.clone(),
            x1.clone(),
            vt::transpose(g, -1, -2)?,
            vt::transpose(result, -1, -2)?,
        )
    };
    if p == 0.0 {
        return zeros_like(&a);
    }
    // diff[..., i, j, m] = a[..., i, m] - b[..., j, m]
    let diff = vt::sub(
        &vt::unsqueeze(&a, -2)?,
        &vt::unsqueeze(&b, -3)?,
        Scalar::Int(1),
    )?;
    let r3 = vt::unsqueeze(&r, -1)?;
    let sign = ops::sign(&diff)?;
    let d = if p == 1.0 {
        vt::mul(&ops::ones_like(&diff, None)?, &sign)?
    } else if p.is_infinite() {
        let hit = ops::eq(&ops::abs(&diff)?, &r3)?.to_dtype(diff.dtype())?;
        vt::mul(&hit, &sign)?
    } else if p == 2.0 {
        vt::div(&diff, &r3, None)?
    } else {
        let num = vt::mul(
            &sign,
            &vt::pow(&vt::abs(&diff)?, &scalar_like(p - 1.0, &diff)?)?,
        )?;
        vt::div(&num, &vt::pow(&r3, &scalar_like(p - 1.0, &diff)?)?, None)?
    };
    let zero = ops::eq(&r3, &scalar_like(0.0, &r3)?)?;
    let d = vt::masked_fill(&d, &zero, Scalar::Float(0.0))?;
    vt::sum(
        &vt::mul(&d, &vt::unsqueeze(&g, -1)?)?,
        Some(&[-2]),
        false,
        None,
    )
}

/// torch's `i1_backward` (`scaled` false) and `i1e_backward` (`scaled` true): `grad * (i0(x) -
/// result / x)`, or `grad * (i0e(x) - result * (sgn(x) + 1 / x))` for the scaled form, with the
/// limit 0.5 where `|x|` is at most the dtype's epsilon (the quotient is 0 / 0 there; `x` is
/// replaced by epsilon inside the `where` so that its gradient stays finite, as torch).
pub(crate) fn i1_backward(g: &Tensor, x: &Tensor, result: &Tensor, scaled: bool) -> Result<Tensor> {
    let eps = if x.dtype() == DType::Float64 {
        f64::EPSILON
    } else {
        f32::EPSILON as f64
    };
    let not_tiny = ops::gt(&ops::abs(x)?, &scalar_like(eps, x)?)?;
    let safe = vt::where_(&not_tiny, x, &scalar_like(eps, x)?)?;
    let gx = if scaled {
        let k = vt::add(&ops::sign(&safe)?, &vt::reciprocal(&safe)?, Scalar::Int(1))?;
        vt::sub(
            &vt::special_i0e(&safe)?,
            &vt::mul(result, &k)?,
            Scalar::Int(1),
        )?
    } else {
        vt::sub(
            &vt::i0(&safe)?,
            &vt::mul(result, &vt::reciprocal(&safe)?)?,
            Scalar::Int(1),
        )?
    };
    vt::mul(g, &vt::where_(&not_tiny, &gx, &scalar_like(0.5, x)?)?)
}

/// torch's `mvlgamma_backward`: `grad * sum_{j < p} digamma(x - j / 2)`.
pub(crate) fn mvlgamma_backward(g: &Tensor, x: &Tensor, p: i64) -> Result<Tensor> {
    let mut acc = vt::digamma(x)?;
    for j in 1..p {
        let shifted = vt::sub(x, &scalar_like(j as f64 / 2.0, x)?, Scalar::Int(1))?;
        acc = vt::add(&acc, &vt::digamma(&shifted)?, Scalar::Int(1))?;
    }
    vt::mul(g, &acc)
}

/// torch's `cholesky_backward(gL, upper, L)` (Iain Murray, arXiv 1602.07527): with `L` lower
/// (transposed first when `upper`), `gA = tril(L^T gL)`, symmetrised as `0.5 (gA + tril(gA,
/// -1)^T)`, then `L^-T gA L^-1` by two triangular solves.
pub(crate) fn cholesky_backward(g: &Tensor, upper: bool, l: &Tensor) -> Result<Tensor> {
    let (l, g) = if upper {
        (vt::transpose(l, -2, -1)?, vt::transpose(g, -2, -1)?)
    } else {
        (l.clone(), g.clone())
    };
    let lt = vt::transpose(&l, -2, -1)?;
    let ga = vt::tril(&vt::matmul(&lt, &g)?, 0)?;
    let ga = vt::add(
        &ga,
        &vt::transpose(&vt::tril(&ga, -1)?, -2, -1)?,
        Scalar::Int(1),
    )?;
    let ga = vt::mul(&ga, &scalar_like(0.5, &ga)?)?;
    let ga = vt::linalg_solve_triangular(&lt, &ga, true, true, false)?;
    vt::linalg_solve_triangular(&l, &ga, false, false, false)
}

/// torch's `scatter_reduce_backward` for `scatter_reduce(self, dim, index, src, reduce,
/// include_self)` with result `result`: the gradients of `self` (`for_src` false) or `src`.
/// `sum` passes `grad` through (gathered for `src`); `mean` divides by the number of values
/// reduced into each element; `amax` / `amin` share each element's gradient evenly among the
/// values equal to the result; `prod` divides out each factor, with torch's zero handling
/// (`prod_reduce_backward`). Without
/// `include_self`, the elements of `self` that were scattered into get no gradient.
#[allow(clippy::too_many_arguments)]
pub(crate) fn scatter_reduce_backward(
    g: &Tensor,
    self_: &Tensor,
    dim: i64,
    index: &Tensor,
    src: &Tensor,
    reduce: &str,
    include_self: bool,
    result: &Tensor,
    for_src: bool,
) -> Result<Tensor> {
    let (grad_self, grad_src) = match reduce {
        "sum" => (g.clone(), vt::gather(g, dim, index)?),
        "mean" => {
            let start = if include_self { 1.0 } else { 0.0 };
            let n = ops::full(&sizes_i64(g.sizes()), Scalar::Float(start), Some(g.dtype()))?;
            let n = ops::scatter_add(&n, dim, index, &ops::ones_like(src, None)?)?;
            let n = ops::masked_fill(&n, &ops::eq(&n, &scalar_like(0.0, &n)?)?, Scalar::Int(1))?;
            let n_src = ops::gather(&n, dim, index)?;
            (
                vt::div(g, &n, None)?,
                vt::div(&vt::gather(g, dim, index)?, &n_src, None)?,
            )
        }
        "amax" | "amin" => {
            let value = vt::gather(result, dim, index)?;
            let self_is = ops::eq(self_, result)?.to_dtype(g.dtype())?;
            let src_is = ops::eq(src, &value)?.to_dtype(g.dtype())?;
            let n = ops::scatter_add(&self_is, dim, index, &src_is)?;
            let distributed = vt::div(g, &n, None)?;
            (
                vt::mul(&self_is, &distributed)?,
                vt::mul(&src_is, &vt::gather(&distributed, dim, index)?)?,
            )
        }
        _ => {
            let into = ReduceInto {
                scatter: true,
                dim,
                index,
            };
            prod_reduce_backward(g, self_, src, result, include_self, &into)?
        }
    };
    if for_src {
        return Ok(grad_src);
    }
    if include_self {
        Ok(grad_self)
    } else {
        vt::scatter_value(&grad_self, dim, index, Scalar::Float(0.0))
    }
}

// ---- session 5 (issue 12): the Bessel family and the incomplete gamma functions --------------

/// Which order-1 Bessel function `bessel_order1_backward` differentiates.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum BesselKind {
    /// `special_bessel_j1`: `J1' = J0 - J1 / x`, 0.5 at 0.
    J,
    /// `special_bessel_y1`: `Y1' = Y0 - Y1 / x`, +inf at 0 (torch's value there).
    Y,
    /// `special_modified_bessel_i1`: `I1' = I0 - I1 / x`, 0.5 at 0 (torch's `i1_backward`).
    I,
    /// `special_modified_bessel_k1`: `K1' = -(K0 + K1 / x)`, -inf at 0 without a special case.
    K,
}

/// The derivative of an order-1 Bessel function from its order-0 companion and the result
/// (torch's derivatives.yaml lines for `special_bessel_j1`, `special_bessel_y1`,
/// `special_modified_bessel_i1`, `special_modified_bessel_k1`). Where the quotient `result / x`
/// is 0 / 0 or -inf / 0 (J, I, Y at x = 0) the limit is taken instead, with `x` replaced by 1
/// inside the `where` so that the other branch (and its gradient) stays finite.
pub(crate) fn bessel_order1_backward(
    g: &Tensor,
    x: &Tensor,
    result: &Tensor,
    kind: BesselKind,
) -> Result<Tensor> {
    if kind == BesselKind::K {
        let d = vt::add(
            &vt::special_modified_bessel_k0(x)?,
            &vt::div(result, x, None)?,
            Scalar::Int(1),
        )?;
        return vt::mul(g, &vt::neg(&d)?);
    }
    if kind == BesselKind::I {
        return i1_backward(g, x, result, false);
    }
    let zero = ops::eq(x, &scalar_like(0.0, x)?)?;
    let safe = vt::where_(&zero, &scalar_like(1.0, x)?, x)?;
    let (order0, at_zero) = match kind {
        BesselKind::J => (vt::special_bessel_j0(&safe)?, 0.5),
        _ => (vt::special_bessel_y0(&safe)?, f64::INFINITY),
    };
    let d = vt::sub(&order0, &vt::div(result, &safe, None)?, Scalar::Int(1))?;
    vt::mul(g, &vt::where_(&zero, &scalar_like(at_zero, x)?, &d)?)
}

/// The gradient of `igamma(a, x)` (`sign` 1) or `igammac(a, x)` (`sign` -1) with respect to
/// `x`: `±grad * exp((a - 1) * log(x) - x - lgamma(a))` (torch's derivatives.yaml line; the
/// gradient with respect to `a` is not implemented, as torch).
pub(crate) fn igamma_other_backward(
    g: &Tensor,
    a: &Tensor,
    x: &Tensor,
    sign: f64,
) -> Result<Tensor> {
    let am1 = vt::sub(a, &scalar_like(1.0, a)?, Scalar::Int(1))?;
    let e = vt::sub(
        &vt::sub(&vt::mul(&am1, &vt::log(x)?)?, x, Scalar::Int(1))?,
        &vt::lgamma(a)?,
        Scalar::Int(1),
    )?;
    let d = vt::mul(g, &vt::exp(&e)?)?;
    if sign < 0.0 {
        vt::neg(&d)
    } else {
        Ok(d)
    }
}

// ---- session 5 (issue 12): index_reduce, and prod for scatter_reduce -------------------------

/// The primitives of a reduction "into" `self` along `dim` at `index`: `scatter_*` (`scatter`
/// true: `index` has src's shape, `gather` reads back) or `index_*` (`index` is 1-D,
/// `index_select` reads back). Recording wrappers, so that double backward records.
pub(crate) struct ReduceInto<'a> {
    pub(crate) scatter: bool,
    pub(crate) dim: i64,
    pub(crate) index: &'a Tensor,
}

impl ReduceInto<'_> {
    /// `base.scatter_reduce(dim, index, src, reduce, include_self)` or `index_reduce`.
    fn reduce(
        &self,
        base: &Tensor,
        src: &Tensor,
        reduce: &str,
        include_self: bool,
    ) -> Result<Tensor> {
        if self.scatter {
            vt::scatter_reduce_two(base, self.dim, self.index, src, reduce, include_self)
        } else {
            vt::index_reduce(base, self.dim, self.index, src, reduce, include_self)
        }
    }

    /// `base.scatter_add(dim, index, src)` or `index_add` (bare: counts and masks only).
    fn add(&self, base: &Tensor, src: &Tensor) -> Result<Tensor> {
        if self.scatter {
            ops::scatter_add(base, self.dim, self.index, src)
        } else {
            ops::index_add(base, self.dim, self.index, src, Scalar::Int(1))
        }
    }

    /// The values of a `self`-shaped tensor at the positions src's elements go to.
    fn pick(&self, t: &Tensor) -> Result<Tensor> {
        if self.scatter {
            vt::gather(t, self.dim, self.index)
        } else {
            vt::index_select(t, self.dim, self.index)
        }
    }

    /// `pick` with the bare op (masks and counts).
    fn pick_bare(&self, t: &Tensor) -> Result<Tensor> {
        if self.scatter {
            ops::gather(t, self.dim, self.index)
        } else {
            ops::index_select(t, self.dim, self.index)
        }
    }

    /// `t` with zeros at the positions written into (the self gradient without include_self).
    fn zero_at(&self, t: &Tensor) -> Result<Tensor> {
        if self.scatter {
            vt::scatter_value(t, self.dim, self.index, Scalar::Float(0.0))
        } else {
            vt::index_fill_scalar(t, self.dim, self.index, Scalar::Int(0))
        }
    }
}

/// torch's `prod` branch of `scatter_reduce_backward` / `index_reduce_backward`: the gradients
/// of `self` and `src` of a product reduction, each factor divided out of the product where it
/// is not zero; a zero factor gets the product of the others (computed again with that factor
/// replaced by 1); a `src` position sharing its target with another zero gets 0. (torch raises
/// a DelayedError on double backward through the last case; here that gradient is recorded.)
pub(crate) fn prod_reduce_backward(
    g: &Tensor,
    self_: &Tensor,
    src: &Tensor,
    result: &Tensor,
    include_self: bool,
    into: &ReduceInto,
) -> Result<(Tensor, Tensor)> {
    let zero_of = |t: &Tensor| -> Result<Tensor> { ops::eq(t, &scalar_like(0.0, t)?) };
    let self_zero = zero_of(self_)?;
    let masked_self = vt::masked_fill(self_, &self_zero, Scalar::Int(1))?;
    let masked_self_result = into.reduce(&masked_self, src, "prod", include_self)?;
    let grad_self = vt::div(&vt::mul(g, &masked_self_result)?, &masked_self, None)?;
    let src_zero = zero_of(src)?;
    let counts = into.add(
        &ops::zeros_like(self_, None)?,
        &src_zero.to_dtype(self_.dtype())?,
    )?;
    let src_num_zeros = into.pick_bare(&counts)?;
    let single = ops::logical_and(
        &src_zero,
        &ops::eq(&src_num_zeros, &scalar_like(1.0, &src_num_zeros)?)?,
    )?;
    let masked_src = vt::masked_fill(src, &single, Scalar::Int(1))?;
    let masked_src_result = into.reduce(self_, &masked_src, "prod", include_self)?;
    let grad_src = vt::where_(
        &single,
        &into.pick(&vt::mul(g, &masked_src_result)?)?,
        &vt::div(
            &into.pick(&vt::mul(g, result)?)?,
            &vt::masked_fill(src, &src_zero, Scalar::Int(1))?,
            None,
        )?,
    )?;
    Ok((grad_self, grad_src))
}

/// torch's `index_reduce_backward(grad, self, dim, index, source, reduce, include_self,
/// result)`: the gradient of `self` (`for_source` false) or `source`. `prod` as
/// `prod_reduce_backward`; `mean` divides by the number of values reduced into each element;
/// `amax` / `amin` share each element's gradient evenly among the values equal to it. Without
/// `include_self`, the elements of `self` written into get no gradient.
#[allow(clippy::too_many_arguments)]
pub(crate) fn index_reduce_backward(
    g: &Tensor,
    self_: &Tensor,
    dim: i64,
    index: &Tensor,
    source: &Tensor,
    reduce: &str,
    include_self: bool,
    result: &Tensor,
    for_source: bool,
) -> Result<Tensor> {
    let into = ReduceInto {
        scatter: false,
        dim,
        index,
    };
    let (grad_self, grad_src) = match reduce {
        "prod" => prod_reduce_backward(g, self_, source, result, include_self, &into)?,
        "mean" => {
            let start = if include_self { 1.0 } else { 0.0 };
            let n = ops::full(&sizes_i64(g.sizes()), Scalar::Float(start), Some(g.dtype()))?;
            let n = into.add(&n, &ops::ones_like(source, None)?.to_dtype(g.dtype())?)?;
            let n = ops::masked_fill(&n, &ops::eq(&n, &scalar_like(0.0, &n)?)?, Scalar::Int(1))?;
            let n_src = into.pick_bare(&n)?;
            (
                vt::div(g, &n, None)?,
                vt::div(&into.pick(g)?, &n_src, None)?,
            )
        }
        _ => {
            // amax / amin (the op itself rejects any other reduce).
            let value = into.pick(result)?;
            let self_is = ops::eq(self_, result)?.to_dtype(g.dtype())?;
            let src_is = ops::eq(source, &value)?.to_dtype(g.dtype())?;
            let n = into.add(&self_is, &src_is)?;
            let distributed = vt::div(g, &n, None)?;
            (
                vt::mul(&self_is, &distributed)?,
                vt::mul(&src_is, &into.pick(&distributed)?)?,
            )
        }
    };
    if for_source {
        return Ok(grad_src);
    }
    if include_self {
        Ok(grad_self)
    } else {
        into.zero_at(&grad_self)
    }
}
