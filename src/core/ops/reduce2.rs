//! src/core/ops/reduce2.rs: more reductions — `prod`, `std`, `var`, `norm`, `logsumexp`, `all`,
//! `any`, `count_nonzero`, `median` — and the scans and sorts along one dim: `cumsum`, `cumprod`,
//! `argsort`, `softmax`, `log_softmax` (PyTorch: `ReduceOps.cpp`, `Sorting.cpp`,
//! `SoftMax.cpp`). Reductions run on reduce.rs's driver (`reduce_by`).

use crate::core::dtype::{DType, Element};
use crate::core::error::{Error, Result};
use crate::core::iter::operand_as;
use crate::core::ops::reduce::{reduce_by, reduce_mask};
use crate::core::ops::{add, amax, exp, log, sub, sum, where_};
use crate::core::scalar::Scalar;
use crate::core::tensor::{maybe_wrap_dim, Tensor};
use crate::core::warnings::{self, WarningKind};

/// The result dtype of `prod`/`cumsum`/`cumprod`: `dtype` if given, else int64 for bool and
/// integer inputs and the input's dtype for floats.
fn int_to_long(input: &Tensor, dtype: Option<DType>) -> DType {
    dtype.unwrap_or(if input.dtype().is_floating_point() {
        input.dtype()
    } else {
        DType::Int64
    })
}

fn prod_masked(
    input: &Tensor,
    mask: &[bool],
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let out_dtype = int_to_long(input, dtype);
    let x = operand_as(input, out_dtype)?;
    crate::dispatch!(out_dtype, T => if out_dtype.is_floating_point() {
        reduce_by::<T, T, f64>(&x, mask, keepdim, 1.0, |a, v: T| a * v.to_f64(), |a, b| a * b, T::from_f64)
    } else {
        reduce_by::<T, T, i64>(
            &x, mask, keepdim, 1,
            |a, v: T| a.wrapping_mul(v.to_i64()),
            |a, b| a.wrapping_mul(b),
            T::from_i64,
        )
    })
}

/// `prod(input, *, dtype=None)`: the product of every element, a 0-dim tensor. Dtype: `dtype`
/// if given (the input is converted first), else int64 for bool/integer inputs, the input's for
/// floats. Integer products wrap. The product of no elements is 1 (torch: `torch.prod`).
pub fn prod(input: &Tensor, dtype: Option<DType>) -> Result<Tensor> {
    let mask = vec![true; input.dim()];
    prod_masked(input, &mask, false, dtype)
}

/// `prod(input, dim, keepdim=False, *, dtype=None)`: the product along `dim` (dropped, or kept
/// as size 1 with `keepdim`); dtypes as `prod`. IndexError for `dim` out of range.
pub fn prod_dim_int(
    input: &Tensor,
    dim: i64,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let mask = reduce_mask(input, Some(&[dim]))?;
    prod_masked(input, &mask, keepdim, dtype)
}

// ----- std and var ----------------------------------------------------------------------------

/// Welford's running (count, mean, sum of squared deviations), merged with Chan's formula.
type Welford = (f64, f64, f64);

#[inline(always)]
fn welford_step(a: Welford, x: f64) -> Welford {
    let n = a.0 + 1.0;
    let d = x - a.1;
    let mean = a.1 + d / n;
    (n, mean, a.2 + d * (x - mean))
}

#[inline(always)]
fn welford_merge(a: Welford, b: Welford) -> Welford {
    if a.0 == 0.0 {
        return b;
    }
    if b.0 == 0.0 {
        return a;
    }
    let n = a.0 + b.0;
    let d = b.1 - a.1;
    (n, a.1 + d * b.0 / n, a.2 + b.2 + d * d * a.0 * b.0 / n)
}

fn var_impl(
    input: &Tensor,
    dim: Option<&[i64]>,
    correction: f64,
    keepdim: bool,
    take_sqrt: bool,
) -> Result<Tensor> {
    if !input.dtype().is_floating_point() {
        return Err(Error::runtime(
            "std and var only support floating point and complex dtypes",
        ));
    }
    let mask = reduce_mask(input, dim)?;
    warn_invalid_degrees_of_freedom(input, &mask, correction, take_sqrt);
    let finish = move |a: Welford| {
        let v = a.2 / (a.0 - correction).max(0.0);
        if take_sqrt {
            v.sqrt()
        } else {
            v
        }
    };
    crate::dispatch_float!(input.dtype(), T => reduce_by::<T, T, Welford>(
        input, &mask, keepdim, (0.0, 0.0, 0.0),
        |a, v: T| welford_step(a, v.to_f64()),
        welford_merge,
        |a| T::from_f64(finish(a)),
    ), _ => Err(Error::runtime("std and var only support floating point and complex dtypes")))
}

/// torch's UserWarning when the divisor `N - correction` is not positive, N being the elements
/// reduced into each output (0 when there is no output): "std(): degrees of freedom is <= 0.
/// Correction should be strictly less than the reduction factor (input numel divided by output
/// numel)." (torch: `warn_invalid_degrees_of_freedom` in ReduceOps.cpp; emitted on every call).
fn warn_invalid_degrees_of_freedom(input: &Tensor, mask: &[bool], correction: f64, std: bool) {
    let out_numel: usize = input
        .sizes()
        .iter()
        .zip(mask)
        .filter(|(_, &reduced)| !reduced)
        .map(|(&s, _)| s)
        .product();
    let per_output = input.numel().checked_div(out_numel).unwrap_or(0);
    if per_output as f64 - correction <= 0.0 {
        warnings::warn(
            WarningKind::User,
            format!(
                "{}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor (input numel divided by output numel).",
                if std { "std" } else { "var" }
            ),
        );
    }
}

/// torch's `correction` argument as a number (default 1).
fn correction_value(correction: Option<Scalar>) -> f64 {
    correction.map(|c| c.to_f64()).unwrap_or(1.0)
}

/// `var(input, unbiased=True)`: the variance of every element (divisor N - 1, or N when not
/// `unbiased`), a 0-dim tensor of the input's floating dtype. RuntimeError "std and var only
/// support floating point and complex dtypes" for other dtypes (torch: `torch.var`).
pub fn var(input: &Tensor, unbiased: bool) -> Result<Tensor> {
    var_impl(input, None, if unbiased { 1.0 } else { 0.0 }, false, false)
}

/// `var(input, dim, unbiased=True, keepdim=False)`: the variance over `dim` (`None`: all).
pub fn var_dim(
    input: &Tensor,
    dim: Option<&[i64]>,
    unbiased: bool,
    keepdim: bool,
) -> Result<Tensor> {
    var_impl(input, dim, if unbiased { 1.0 } else { 0.0 }, keepdim, false)
}

/// `var(input, dim=None, *, correction=None, keepdim=False)`: the variance over `dim` with
/// divisor `max(0, N - correction)` (correction defaults to 1); errors as `var`.
pub fn var_correction(
    input: &Tensor,
    dim: Option<&[i64]>,
    correction: Option<Scalar>,
    keepdim: bool,
) -> Result<Tensor> {
    var_impl(input, dim, correction_value(correction), keepdim, false)
}

/// `std(input, unbiased=True)`: the square root of `var`; otherwise as `var` (torch: `torch.std`).
pub fn std(input: &Tensor, unbiased: bool) -> Result<Tensor> {
    var_impl(input, None, if unbiased { 1.0 } else { 0.0 }, false, true)
}

/// `std(input, dim, unbiased=True, keepdim=False)`: the standard deviation over `dim`.
pub fn std_dim(
    input: &Tensor,
    dim: Option<&[i64]>,
    unbiased: bool,
    keepdim: bool,
) -> Result<Tensor> {
    var_impl(input, dim, if unbiased { 1.0 } else { 0.0 }, keepdim, true)
}

/// `std(input, dim=None, *, correction=None, keepdim=False)`: as `var_correction`, square-rooted.
pub fn std_correction(
    input: &Tensor,
    dim: Option<&[i64]>,
    correction: Option<Scalar>,
    keepdim: bool,
) -> Result<Tensor> {
    var_impl(input, dim, correction_value(correction), keepdim, true)
}

// ----- norm -----------------------------------------------------------------------------------

/// `norm(input, p=2, dim=None, keepdim=False)`: the vector p-norm over `dim` (`None`: every
/// element) as `torch.linalg.vector_norm` computes it: p = inf (max |x|), -inf (min |x|), 0
/// (count of non-zeros), otherwise `sum(|x|^p)^(1/p)`. Result in the input's floating dtype.
/// Errors: RuntimeError "linalg.vector_norm only supports floating point and complex dtypes, but
/// got: Long" for non-floating inputs; RuntimeError for p = ±inf (or negative p) on an empty
/// reduction ("linalg.vector_norm cannot compute the inf norm on an empty tensor because the
/// operation does not have an identity"); dim errors as for `sum`.
pub fn norm(
    input: &Tensor,
    p: Option<Scalar>,
    dim: Option<&[i64]>,
    keepdim: bool,
) -> Result<Tensor> {
    let dtype = input.dtype();
    if !dtype.is_floating_point() {
        return Err(Error::runtime(format!(
            "linalg.vector_norm only supports floating point and complex dtypes, but got: {}",
            dtype.scalar_type_name()
        )));
    }
    let p = p.map(|s| s.to_f64()).unwrap_or(2.0);
    let mask = reduce_mask(input, dim)?;
    if input.numel() == 0 && p < 0.0 {
        let what = if p == f64::NEG_INFINITY {
            "-inf".to_string()
        } else {
            format!("{p}")
        };
        return Err(Error::runtime(format!(
            "linalg.vector_norm cannot compute the {what} norm on an empty tensor because the operation does not have an identity"
        )));
    }
    if input.numel() == 0 && p == f64::INFINITY {
        let empty_reduced = input.sizes().iter().zip(&mask).any(|(&s, &m)| m && s == 0);
        if empty_reduced || input.dim() == 0 {
            return Err(Error::runtime(
                "linalg.vector_norm cannot compute the inf norm on an empty tensor because the operation does not have an identity",
            ));
        }
    }
    crate::dispatch_float!(dtype, T => {
        if p == f64::INFINITY {
            reduce_by::<T, T, f64>(input, &mask, keepdim, 0.0, |a, v: T| {
                let x = v.to_f64().abs();
                if x.is_nan() || a.is_nan() { f64::NAN } else { a.max(x) }
            }, |a, b| if a.is_nan() || b.is_nan() { f64::NAN } else { a.max(b) }, T::from_f64)
        } else if p == f64::NEG_INFINITY {
            reduce_by::<T, T, f64>(input, &mask, keepdim, f64::INFINITY, |a, v: T| {
                let x = v.to_f64().abs();
                if x.is_nan() || a.is_nan() { f64::NAN } else { a.min(x) }
            }, |a, b| if a.is_nan() || b.is_nan() { f64::NAN } else { a.min(b) }, T::from_f64)
        } else if p == 0.0 {
            reduce_by::<T, T, f64>(input, &mask, keepdim, 0.0,
                |a, v: T| a + if v.to_f64() != 0.0 { 1.0 } else { 0.0 }, |a, b| a + b, T::from_f64)
        } else if p == 1.0 {
            reduce_by::<T, T, f64>(input, &mask, keepdim, 0.0,
                |a, v: T| a + v.to_f64().abs(), |a, b| a + b, T::from_f64)
        } else if p == 2.0 {
            reduce_by::<T, T, f64>(input, &mask, keepdim, 0.0,
                |a, v: T| { let x = v.to_f64(); a + x * x }, |a, b| a + b, |a| T::from_f64(a.sqrt()))
        } else {
            reduce_by::<T, T, f64>(input, &mask, keepdim, 0.0,
                move |a, v: T| a + v.to_f64().abs().powf(p), |a, b| a + b, move |a| T::from_f64(a.powf(1.0 / p)))
        }
    }, _ => Err(Error::runtime("linalg.vector_norm only supports floating point and complex dtypes")))
}

// ----- logsumexp, all, any, count_nonzero, median ----------------------------------------------

/// `logsumexp(input, dim, keepdim=False)`: `log(sum(exp(input), dim))`, computed stably as
/// torch does (the max along `dim` is subtracted first; infinite maxima are not). Integer and
/// bool inputs are converted to float32 first. Errors: dim errors as for `sum`.
pub fn logsumexp(input: &Tensor, dim: &[i64], keepdim: bool) -> Result<Tensor> {
    let x = if input.dtype().is_floating_point() {
        input.clone()
    } else {
        input.to_dtype(DType::DEFAULT_FLOAT)?
    };
    reduce_mask(&x, Some(dim))?;
    if x.numel() == 0 {
        // log(0) = -inf over empty reductions, without amax's empty-input errors.
        let s = sum(&x, Some(dim), keepdim, None)?;
        return log(&s);
    }
    let m = amax(&x, dim, true)?;
    let inf_mask = crate::core::ops::abs(&m)?;
    let inf = Tensor::scalar_tensor(Scalar::Float(f64::INFINITY), x.dtype())?;
    let is_inf = crate::core::ops::eq(&inf_mask, &inf)?;
    let zero = Tensor::scalar_tensor(Scalar::Float(0.0), x.dtype())?;
    let m = where_(&is_inf, &zero, &m)?;
    let e = exp(&sub(&x, &m, Scalar::Int(1))?)?;
    let s = log(&sum(&e, Some(dim), keepdim, None)?)?;
    let m = if keepdim {
        m
    } else {
        let mask = reduce_mask(&x, Some(dim))?;
        let sizes: Vec<i64> = m
            .sizes()
            .iter()
            .zip(&mask)
            .filter(|(_, &r)| !r)
            .map(|(&s, _)| s as i64)
            .collect();
        crate::core::ops::reshape(&m, &sizes)?
    };
    add(&s, &m, Scalar::Int(1))
}

/// A bool tensor of `input != 0` (`input` itself when bool): reductions that only look at
/// truth values (`all`, `any`, `count_nonzero`) convert first and run one bool kernel instead of
/// one per dtype. The cast is `Element::to_bool` (NaN is true), as their kernels used.
fn truth_values(input: &Tensor) -> Result<Tensor> {
    if input.dtype() == DType::Bool {
        Ok(input.clone())
    } else {
        input.to_dtype(DType::Bool)
    }
}

fn all_any(input: &Tensor, mask: &[bool], keepdim: bool, all: bool) -> Result<Tensor> {
    let x = truth_values(input)?;
    let r = if all {
        reduce_by::<bool, bool, bool>(&x, mask, keepdim, true, |a, v| a & v, |a, b| a & b, |a| a)
    } else {
        reduce_by::<bool, bool, bool>(&x, mask, keepdim, false, |a, v| a | v, |a, b| a | b, |a| a)
    }?;
    if input.dtype() == DType::UInt8 {
        r.to_dtype(DType::UInt8)
    } else {
        Ok(r)
    }
}

/// `all(input)`: whether every element is non-zero, a 0-dim bool tensor (uint8 for uint8
/// inputs, as torch). True for an empty input (torch: `torch.all`).
pub fn all(input: &Tensor) -> Result<Tensor> {
    all_any(input, &vec![true; input.dim()], false, true)
}

/// `all(input, dim, keepdim=False)`: `all` along `dim`. IndexError for `dim` out of range.
pub fn all_dim(input: &Tensor, dim: i64, keepdim: bool) -> Result<Tensor> {
    let mask = reduce_mask(input, Some(&[dim]))?;
    all_any(input, &mask, keepdim, true)
}

/// `any(input)`: whether some element is non-zero; otherwise as `all` (torch: `torch.any`).
pub fn any(input: &Tensor) -> Result<Tensor> {
    all_any(input, &vec![true; input.dim()], false, false)
}

/// `any(input, dim, keepdim=False)`: `any` along `dim`. IndexError for `dim` out of range.
pub fn any_dim(input: &Tensor, dim: i64, keepdim: bool) -> Result<Tensor> {
    let mask = reduce_mask(input, Some(&[dim]))?;
    all_any(input, &mask, keepdim, false)
}

/// `count_nonzero(input, dim=None)`: the number of non-zero elements over `dim` (an int or a
/// tuple; `None` or empty: every dim), int64, dims removed. Errors: IndexError for a dim out of
/// range, RuntimeError "dim 0 appears multiple times in the list of dims" (torch:
/// `torch.count_nonzero`).
pub fn count_nonzero(input: &Tensor, dim: Option<&[i64]>) -> Result<Tensor> {
    let mask = reduce_mask(input, dim)?;
    reduce_by::<bool, i64, i64>(
        &truth_values(input)?,
        &mask,
        false,
        0,
        |a, v| a + v as i64,
        |a, b| a + b,
        |a| a,
    )
}

/// `median(input)`: the lower median of every element (the element of rank `(n - 1) / 2`), a
/// 0-dim tensor of the input's dtype; NaN if any element is NaN, NaN for an empty float input.
/// RuntimeError "median() input tensor cannot be empty" for an empty non-float input.
pub fn median(input: &Tensor) -> Result<Tensor> {
    crate::dispatch!(input.dtype(), T => {
        let mut v = super::conversion::try_to_vec::<T>(input)?;
        if v.is_empty() {
            if input.dtype().is_floating_point() {
                return Tensor::scalar_tensor(Scalar::Float(f64::NAN), input.dtype());
            }
            return Err(Error::runtime("median() input tensor cannot be empty"));
        }
        if let Some(nan) = v.iter().copied().find(|x| x.partial_cmp(x).is_none()) {
            return Tensor::from_vec(vec![nan], &[]);
        }
        let k = (v.len() - 1) / 2;
        v.select_nth_unstable_by(k, |a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        Tensor::from_vec(vec![v[k]], &[])
    })
}

// ----- along one dim: cumsum, cumprod, argsort, softmax ---------------------------------------

/// `x` as a contiguous tensor seen as `[outer, n, inner]` around dim `d` (0-dim: all 1).
fn split_at_dim(x: &Tensor, d: usize) -> (usize, usize, usize) {
    if x.dim() == 0 {
        return (1, 1, 1);
    }
    let s = x.sizes();
    (s[..d].iter().product(), s[d], s[d + 1..].iter().product())
}

/// Running sums (`add`) or products along `dim`, on a contiguous copy converted to `out_dtype`.
fn scan(input: &Tensor, dim: i64, out_dtype: DType, add: bool) -> Result<Tensor> {
    let d = maybe_wrap_dim(dim, input.dim())?;
    let out = input.to_dtype(out_dtype)?;
    let (outer, n, inner) = split_at_dim(&out, d);
    if out.numel() == 0 {
        return Ok(out);
    }
    crate::dispatch!(out_dtype, T => {
        // SAFETY: `out` is a fresh contiguous tensor of `outer * n * inner` elements owned here.
        let s = unsafe { std::slice::from_raw_parts_mut(out.data_ptr::<T>(), out.numel()) };
        let float = out_dtype.is_floating_point();
        for o in 0..outer {
            for i in 0..inner {
                let base = o * n * inner + i;
                let mut fa = if add { 0.0 } else { 1.0 };
                let mut ia: i64 = if add { 0 } else { 1 };
                for k in 0..n {
                    let p = base + k * inner;
                    if float {
                        let v = s[p].to_f64();
                        fa = if add { fa + v } else { fa * v };
                        // Accumulated in double, as torch's CPU kernel does.
                        s[p] = T::from_f64(fa);
                    } else {
                        let v = s[p].to_i64();
                        ia = if add { ia.wrapping_add(v) } else { ia.wrapping_mul(v) };
                        s[p] = T::from_i64(ia);
                    }
                }
            }
        }
    });
    Ok(out)
}

/// `cumsum(input, dim, *, dtype=None)`: running sums along `dim`, same shape. Dtype: `dtype` if
/// given (the input is converted first), else int64 for bool/integer inputs, the input's for
/// floats. IndexError for `dim` out of range (torch: `torch.cumsum`).
pub fn cumsum(input: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
    scan(input, dim, int_to_long(input, dtype), true)
}

/// `cumprod(input, dim, *, dtype=None)`: running products along `dim`; otherwise as `cumsum`.
pub fn cumprod(input: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
    scan(input, dim, int_to_long(input, dtype), false)
}

/// A `u64` whose unsigned order is torch's sort order of `v`: numbers ascending (-0.0 equal to
/// 0.0), every NaN equal to the others and above +inf; bools and integers by value. Sorting
/// keys instead of comparing `T`s with a per-dtype closure keeps one sort for every dtype.
#[inline]
pub(crate) fn sort_key<T: Element>(v: T) -> u64 {
    if T::DTYPE.is_floating_point() {
        let x = v.to_f64(); // exact for f32
        if x.is_nan() {
            return u64::MAX;
        }
        // `+ 0.0` turns -0.0 into 0.0; then flip negatives (ordered by magnitude, reversed)
        // below positives.
        let b = (x + 0.0).to_bits();
        if b >> 63 == 1 {
            !b
        } else {
            b | 1 << 63
        }
    } else {
        (v.to_i64() as u64) ^ 1 << 63
    }
}

/// Sort `(key, position)` pairs ascending. The pairs are all distinct, so this is exactly the
/// stable order of the keys (equal keys keep their positions' order), with the one
/// (unstable, faster) sort instance shared by argsort, sort, topk, kthvalue, median and mode
/// along a dim, and unique.
#[inline(never)]
pub(crate) fn stable_order(pairs: &mut [(u64, usize)]) {
    pairs.sort_unstable();
}

/// `argsort(input, dim=-1, descending=False, *, stable=False)`: int64 indices that sort `input`
/// along `dim` (always a stable sort; NaN sorts above every number, as torch). Same shape as
/// `input`. IndexError for `dim` out of range (torch: `torch.argsort`).
pub fn argsort(input: &Tensor, dim: i64, descending: bool, stable: bool) -> Result<Tensor> {
    let _ = stable; // the sort is always stable
    let d = maybe_wrap_dim(dim, input.dim())?;
    let x = input.contiguous()?;
    let out = Tensor::zeros(input.sizes(), DType::Int64)?;
    let (outer, n, inner) = split_at_dim(&x, d);
    if out.numel() == 0 {
        return Ok(out);
    }
    // SAFETY: `out` is a fresh contiguous int64 tensor owned here.
    let o = unsafe { std::slice::from_raw_parts_mut(out.data_ptr::<i64>(), out.numel()) };
    let mut idx: Vec<(u64, usize)> = Vec::new();
    idx.try_reserve_exact(n)
        .map_err(|_| Error::out_of_memory("argsort(): failed to allocate"))?;
    // Descending: complemented keys (NaN first); equal keys still keep their order (stable).
    let flip = if descending { u64::MAX } else { 0 };
    crate::dispatch!(x.dtype(), T => {
        // SAFETY: concurrent writers of the input are excluded by Note [Concurrency contract].
        let s = unsafe { x.as_slice::<T>() }.unwrap_or(&[]);
        for ob in 0..outer {
            for i in 0..inner {
                let base = ob * n * inner + i;
                idx.clear();
                idx.extend((0..n).map(|j| (sort_key(s[base + j * inner]) ^ flip, j)));
                stable_order(&mut idx);
                for (k, &(_, j)) in idx.iter().enumerate() {
                    o[base + k * inner] = j as i64;
                }
            }
        }
    });
    Ok(out)
}

/// The input of `softmax`/`log_softmax` after the dtype checks: converted to `dtype` if given.
fn softmax_input(
    input: &Tensor,
    dim: i64,
    dtype: Option<DType>,
    name: &str,
) -> Result<(Tensor, usize)> {
    let d = maybe_wrap_dim(dim, input.dim())?;
    let x = match dtype {
        Some(dt) => input.to_dtype(dt)?,
        None => input.clone(),
    };
    if !x.dtype().is_floating_point() {
        let last = x.dim() == 0 || d == x.dim() - 1;
        return Err(Error::runtime(format!(
            "\"{name}{}\" not implemented for '{}'",
            if last {
                "_lastdim_kernel_impl"
            } else {
                "_kernel_impl"
            },
            x.dtype().scalar_type_name()
        )));
    }
    Ok((x, d))
}

/// `softmax(input, dim, dtype=None)`: `exp(x - max) / sum(exp(x - max))` along `dim`, same shape,
/// in `dtype` if given (the input is converted first) else the input's floating dtype.
/// Errors: IndexError for `dim` out of range; RuntimeError "\"softmax_lastdim_kernel_impl\" not
/// implemented for 'Long'" (or `softmax_kernel_impl` for an inner dim) for non-float inputs.
pub fn softmax(input: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
    let (x, d) = softmax_input(input, dim, dtype, "softmax")?;
    if x.numel() == 0 {
        return x.clone_data();
    }
    let dims = [d as i64];
    let m = amax(&x, &dims, true)?;
    let e = exp(&sub(&x, &m, Scalar::Int(1))?)?;
    let s = sum(&e, Some(&dims), true, None)?;
    crate::core::ops::div(&e, &s, None)
}

/// `log_softmax(input, dim, dtype=None)`: `x - max - log(sum(exp(x - max)))` along `dim`;
/// otherwise as `softmax` (errors name `log_softmax_lastdim_kernel_impl`).
pub fn log_softmax(input: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
    let (x, d) = softmax_input(input, dim, dtype, "log_softmax")?;
    if x.numel() == 0 {
        return x.clone_data();
    }
    let dims = [d as i64];
    let m = amax(&x, &dims, true)?;
    let shifted = sub(&x, &m, Scalar::Int(1))?;
    let s = log(&sum(&exp(&shifted)?, Some(&dims), true, None)?)?;
    sub(&shifted, &s, Scalar::Int(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t<T: Element>(v: Vec<T>, s: &[usize]) -> Tensor {
        Tensor::from_vec(v, s).unwrap()
    }

    #[test]
    fn prod_and_var() {
        let x = t(vec![1i64, 2, 3, 4, 5, 6], &[2, 3]);
        assert_eq!(prod(&x, None).unwrap().to_vec::<i64>(), vec![720]);
        assert_eq!(
            prod_dim_int(&x, 1, false, None).unwrap().to_vec::<i64>(),
            vec![6, 120]
        );
        let f = t(vec![1.0f64, 2.0, 3.0, 4.0], &[4]);
        assert_eq!(var(&f, true).unwrap().to_vec::<f64>(), vec![5.0 / 3.0]);
        assert_eq!(
            std(&f, false).unwrap().to_vec::<f64>(),
            vec![1.25f64.sqrt()]
        );
        assert!(var(&x, true).is_err());
    }

    #[test]
    fn scans_and_sorts() {
        let x = t(vec![3i32, 1, 2, 5, 4, 6], &[2, 3]);
        assert_eq!(
            cumsum(&x, 1, None).unwrap().to_vec::<i64>(),
            vec![3, 4, 6, 5, 9, 15]
        );
        assert_eq!(
            cumprod(&x, 0, None).unwrap().to_vec::<i64>(),
            vec![3, 1, 2, 15, 4, 12]
        );
        assert_eq!(
            argsort(&x, -1, false, false).unwrap().to_vec::<i64>(),
            vec![1, 2, 0, 1, 0, 2]
        );
        assert_eq!(
            argsort(&x, 0, true, false).unwrap().to_vec::<i64>(),
            vec![1, 1, 1, 0, 0, 0]
        );
        let m = median(&t(vec![4.0f32, 1.0, 3.0, 2.0], &[4])).unwrap();
        assert_eq!(m.to_vec::<f32>(), vec![2.0]);
    }

    #[test]
    fn strided_inputs_and_errors() {
        use crate::core::error::ErrorKind;
        // [[1, 5, 2], [7, 3, 4]] transposed: var over dim 1 is the column variance.
        let x = t(vec![1.0f32, 5.0, 2.0, 7.0, 3.0, 4.0], &[2, 3]);
        let xt = x.as_strided(vec![3, 2], vec![1, 3], 0);
        assert_eq!(
            var_dim(&xt, Some(&[1]), true, false)
                .unwrap()
                .to_vec::<f32>(),
            vec![18.0, 2.0, 2.0]
        );
        assert_eq!(
            norm(&xt, Some(Scalar::Float(f64::INFINITY)), None, false)
                .unwrap()
                .to_vec::<f32>(),
            vec![7.0]
        );
        assert_eq!(
            cumsum(&xt, 0, None).unwrap().to_vec::<f32>(),
            vec![1.0, 7.0, 6.0, 10.0, 8.0, 14.0]
        );
        let i = t(vec![1i64, 2], &[2]);
        let e = norm(&i, None, None, false).unwrap_err();
        assert_eq!(
            (e.kind, e.message.as_str()),
            (
                ErrorKind::Runtime,
                "linalg.vector_norm only supports floating point and complex dtypes, but got: Long"
            )
        );
        let e = softmax(&i, 0, None).unwrap_err();
        assert_eq!(
            e.message,
            "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'"
        );
        assert_eq!(cumsum(&i, 1, None).unwrap_err().kind, ErrorKind::Index);
        let big = t(vec![1000.0f64, 1000.0], &[2]);
        let l = logsumexp(&big, &[0], false).unwrap().to_vec::<f64>()[0];
        assert!((l - (1000.0 + 2f64.ln())).abs() < 1e-9);
        let u = t(vec![0u8, 3], &[2]);
        let a = all(&u).unwrap();
        assert_eq!((a.dtype(), a.to_vec::<u8>()), (DType::UInt8, vec![0]));
        assert_eq!(count_nonzero(&u, None).unwrap().to_vec::<i64>(), vec![1]);
    }
}
