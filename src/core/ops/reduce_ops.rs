//! src/core/ops/reduce_ops.rs: the reductions (PyTorch: `native/ReduceOps.cpp`) — `sum`,
//! `mean`, `amax`, `amin`, `argmax`, `argmin` (each a `Reducer` of the driver in `reduce.rs`),
//! and on the driver's closure hooks `prod`, `std`, `var`, `norm`, `logsumexp`, `all`, `any`,
//! `count_nonzero`; the whole-tensor `sum`/`mean` of the method forms.

use super::reduce::{
    coalesce, lanes_reduce, pairwise_reduce, par_pairwise_reduce, reduce_by, reduce_mask,
    reduce_with, reduction_mask, try_filled_vec, Reducer, LANES, ROW_STRATEGY_MIN,
};
use crate::core::dtype::{DType, Element};
use crate::core::error::{Error, Result};
use crate::core::iter::{operand_as, strided_for_each};
use crate::core::ops::{add, exp, log, sub, where_};
use crate::core::scalar::Scalar;
use crate::core::tensor::{maybe_wrap_dim, Tensor};
use crate::core::vecmath;
use crate::core::warnings::{self, WarningKind};

// ----- sum and mean ---------------------------------------------------------------------------

/// Integer (and bool) sums: 64-bit accumulation that wraps on overflow, as torch's.
#[derive(Clone, Copy)]
struct SumInt;

impl<T: Element> Reducer<T> for SumInt {
    type Acc = i64;
    #[inline(always)]
    fn identity(self) -> i64 {
        0
    }
    #[inline(always)]
    fn step(self, acc: i64, v: T) -> i64 {
        acc.wrapping_add(v.to_i64())
    }
    #[inline(always)]
    fn merge(self, a: i64, b: i64) -> i64 {
        a.wrapping_add(b)
    }
    fn par_reduce_slice(self, s: &[T]) -> Option<i64> {
        // Wrapping integer addition is associative: any split gives the serial result.
        par_pairwise_reduce(self, s)
    }
}

/// Float sums into a float32 (`F32 = true`) or float64 result: each element is first converted
/// to the result dtype (as torch converts the input), then accumulated in f64, pairwise.
#[derive(Clone, Copy)]
struct SumFloat<const F32: bool>;

impl<T: Element, const F32: bool> Reducer<T> for SumFloat<F32> {
    type Acc = f64;
    #[inline(always)]
    fn identity(self) -> f64 {
        0.0
    }
    #[inline(always)]
    fn step(self, acc: f64, v: T) -> f64 {
        let x = if F32 {
            <f32 as Element>::cast_from(v) as f64
        } else {
            f64::cast_from(v)
        };
        acc + x
    }
    #[inline(always)]
    fn merge(self, a: f64, b: f64) -> f64 {
        a + b
    }
    fn reduce_slice(self, s: &[T]) -> f64 {
        pairwise_reduce(self, s)
    }
    /// float32 into a float32 sum and float64 into float64: the vectorised leaf (Note
    /// [Vectorised reductions]); other conversions the generic lanes.
    #[inline]
    fn reduce_leaf(self, s: &[T]) -> f64 {
        match (T::DTYPE, F32) {
            // SAFETY: `T` is f32 (its dtype says so), so the slice is one of f32.
            (DType::Float32, true) => vecmath::reduce::sum_f32(vecmath::level(), unsafe {
                std::slice::from_raw_parts(s.as_ptr() as *const f32, s.len())
            }),
            // SAFETY: `T` is f64 (its dtype says so).
            (DType::Float64, false) => vecmath::reduce::sum_f64(vecmath::level(), unsafe {
                std::slice::from_raw_parts(s.as_ptr() as *const f64, s.len())
            }),
            _ => lanes_reduce(self, s),
        }
    }
    fn par_reduce_slice(self, s: &[T]) -> Option<f64> {
        par_pairwise_reduce(self, s)
    }
}

/// `sum` over a validated `mask`, producing `out_dtype` (the input is converted to it first,
/// as torch does).
fn sum_masked(input: &Tensor, mask: &[bool], keepdim: bool, out_dtype: DType) -> Result<Tensor> {
    let in_dtype = input.dtype();
    // Cases where summing the raw values would differ from summing the converted ones.
    let convert_first = (in_dtype.is_floating_point() && !out_dtype.is_floating_point())
        || (out_dtype == DType::Bool && in_dtype != DType::Bool);
    if convert_first {
        return sum_masked(&input.to_dtype(out_dtype)?, mask, keepdim, out_dtype);
    }
    crate::dispatch!(in_dtype, T => match out_dtype {
        DType::Float32 => reduce_with::<T, f32, _>(input, mask, keepdim, SumFloat::<true>, |a| a as f32),
        DType::Float64 => reduce_with::<T, f64, _>(input, mask, keepdim, SumFloat::<false>, |a| a),
        _ => {
            // Integer results: sum modulo 2^64, then narrow (wrapping) to the result dtype.
            let wide = reduce_with::<T, i64, _>(input, mask, keepdim, SumInt, |a| a)?;
            if out_dtype == DType::Int64 { Ok(wide) } else { wide.to_dtype(out_dtype) }
        }
    })
}

/// `sum(input, dim, keepdim=False, *, dtype=None)` (torch's `sum.dim_IntList`): the sum over
/// `dim` (`None` or empty: every dim; negative dims count from the end).
///
/// Shape: `input`'s with the reduced dims removed, or kept as size 1 when `keepdim`.
/// Dtype: `dtype` if given (the input is converted first); else int64 for bool and integer
/// inputs, the input's dtype for floats. Integer sums wrap; float sums are accumulated in f64.
/// An empty reduction gives 0.
/// Errors: IndexError for a dim out of range; RuntimeError
/// "dim 0 appears multiple times in the list of dims" for a repeated dim.
pub fn sum(
    input: &Tensor,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let mask = reduction_mask(input, dim)?;
    let out_dtype = dtype.unwrap_or(if input.dtype().is_floating_point() {
        input.dtype()
    } else {
        DType::Int64
    });
    sum_masked(input, &mask, keepdim, out_dtype)
}

/// `mean(input, dim, keepdim=False, *, dtype=None)` (torch's `mean.dim`): the sum over `dim`
/// (`None` or empty: every dim) divided by the number of reduced elements, computed as torch's
/// CPU kernel does: `sum(input, dim, keepdim, dtype) / count` in the result dtype.
///
/// Shape as for `sum`. Dtype: `dtype` if given, else the input's; it must be floating.
/// The mean of no elements is NaN.
/// Errors: NotImplementedError "mean(): could not infer output dtype. Input dtype must be either a
/// floating point or complex dtype. Got: Long" for integer/bool inputs without a floating
/// `dtype` ("Optional dtype ..." naming `dtype` when a non-floating one is given); dim errors as
/// for `sum`.
pub fn mean(
    input: &Tensor,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let in_dtype = dtype.unwrap_or(if input.dtype().is_floating_point() {
        input.dtype()
    } else {
        DType::Int64
    });
    if !in_dtype.is_floating_point() {
        let (what, got) = match dtype {
            Some(d) => ("Optional", d.scalar_type_name()),
            None => ("Input", input.dtype().scalar_type_name()),
        };
        // NotImplementedError, as torch (its TORCH_CHECK_NOT_IMPLEMENTED).
        return Err(Error::not_implemented(format!(
            "mean(): could not infer output dtype. {what} dtype must be either a floating point or complex dtype. Got: {got}"
        )));
    }
    let mask = reduction_mask(input, dim)?;
    let count: usize = input
        .sizes()
        .iter()
        .zip(mask.iter())
        .filter(|(_, &m)| m)
        .map(|(&s, _)| s)
        .product();
    let out = sum_masked(input, &mask, keepdim, in_dtype)?;
    let n = out.numel();
    if n > 0 {
        if in_dtype == DType::Float32 {
            let c = count as f32;
            // SAFETY: `out` is a fresh contiguous tensor of `n` float32 elements owned here.
            let s = unsafe { std::slice::from_raw_parts_mut(out.data_ptr::<f32>(), n) };
            s.iter_mut().for_each(|v| *v /= c);
        } else {
            let c = count as f64;
            // SAFETY: `out` is a fresh contiguous tensor of `n` float64 elements owned here.
            let s = unsafe { std::slice::from_raw_parts_mut(out.data_ptr::<f64>(), n) };
            s.iter_mut().for_each(|v| *v /= c);
        }
    }
    Ok(out)
}

/// `sum(input, *, dtype=None)`: the sum of all elements (0-dim).
pub fn sum_all(input: &Tensor, dtype: Option<DType>) -> Result<Tensor> {
    sum(input, None, false, dtype)
}

/// `mean(input, *, dtype=None)`: the mean of all elements (0-dim).
pub fn mean_all(input: &Tensor, dtype: Option<DType>) -> Result<Tensor> {
    mean(input, None, false, dtype)
}

// ----- amax and amin --------------------------------------------------------------------------

/// True for a NaN (any `T`: only floats have values unequal to themselves).
#[inline(always)]
fn is_nan<T: PartialOrd>(v: T) -> bool {
    v.partial_cmp(&v).is_none()
}

/// The lowest and highest value of an element type (identities of max and min).
trait Bounded: Element {
    const LOWEST: Self;
    const HIGHEST: Self;
}

macro_rules! impl_bounded {
    ($($t:ty: $lo:expr, $hi:expr;)*) => {
        $(impl Bounded for $t {
            const LOWEST: Self = $lo;
            const HIGHEST: Self = $hi;
        })*
    };
}

impl_bounded! {
    bool: false, true;
    u8: u8::MIN, u8::MAX;
    i8: i8::MIN, i8::MAX;
    i16: i16::MIN, i16::MAX;
    i32: i32::MIN, i32::MAX;
    i64: i64::MIN, i64::MAX;
    f32: f32::NEG_INFINITY, f32::INFINITY;
    f64: f64::NEG_INFINITY, f64::INFINITY;
}

/// Max (`MAX = true`) or min of the values; a NaN wins over everything (torch propagates NaN).
#[derive(Clone, Copy)]
struct Extreme<const MAX: bool>;

impl<T: Bounded, const MAX: bool> Reducer<T> for Extreme<MAX> {
    type Acc = T;
    #[inline(always)]
    fn identity(self) -> T {
        if MAX {
            T::LOWEST
        } else {
            T::HIGHEST
        }
    }
    #[inline(always)]
    fn step(self, acc: T, v: T) -> T {
        let better = if MAX { v > acc } else { v < acc };
        if better || is_nan(v) {
            v
        } else {
            acc
        }
    }
    #[inline(always)]
    fn merge(self, a: T, b: T) -> T {
        self.step(a, b)
    }
    /// Lanes of plain compare-and-select (which vectorises to max/min instructions), with NaNs
    /// tracked separately: a NaN anywhere makes the result NaN.
    fn reduce_slice(self, s: &[T]) -> T {
        if let Some(r) = float_extreme::<T, MAX>(s) {
            return r;
        }
        let mut lanes = [self.identity(); LANES];
        let mut nan = [false; LANES];
        let mut chunks = s.chunks_exact(LANES);
        for c in &mut chunks {
            for ((m, n), &v) in lanes.iter_mut().zip(nan.iter_mut()).zip(c) {
                let keep = if MAX { *m > v } else { *m < v };
                *m = if keep { *m } else { v };
                *n |= is_nan(v);
            }
        }
        if nan.iter().any(|&n| n) {
            return s.iter().copied().find(|&v| is_nan(v)).unwrap_or(lanes[0]);
        }
        let mut acc = lanes[0];
        for &m in &lanes[1..] {
            acc = self.step(acc, m);
        }
        for &v in chunks.remainder() {
            acc = self.step(acc, v);
        }
        acc
    }
}

/// The vectorised max/min of a non-empty f32 or f64 slice (Note [Vectorised reductions]),
/// `None` for other types.
#[inline]
fn float_extreme<T: Element, const MAX: bool>(s: &[T]) -> Option<T> {
    let l = vecmath::level();
    match T::DTYPE {
        DType::Float32 if !s.is_empty() => {
            // SAFETY: `T` is f32 (its dtype says so).
            let x = unsafe { std::slice::from_raw_parts(s.as_ptr() as *const f32, s.len()) };
            let r = if MAX {
                vecmath::reduce::max_f32(l, x)
            } else {
                vecmath::reduce::min_f32(l, x)
            };
            Some(T::cast_from(r))
        }
        DType::Float64 if !s.is_empty() => {
            // SAFETY: `T` is f64 (its dtype says so).
            let x = unsafe { std::slice::from_raw_parts(s.as_ptr() as *const f64, s.len()) };
            let r = if MAX {
                vecmath::reduce::max_f64(l, x)
            } else {
                vecmath::reduce::min_f64(l, x)
            };
            Some(T::cast_from(r))
        }
        _ => None,
    }
}

/// torch's `zero_numel_check_dims` for an empty input reduced over `dims` (raw, as passed).
fn zero_numel_check_dims(input: &Tensor, dims: &[i64], name: &str) -> Result<()> {
    if dims.is_empty() {
        return Err(Error::runtime(format!(
            "{name}: Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
        )));
    }
    for &d in dims {
        zero_numel_check_dim(input, d, name)?;
    }
    Ok(())
}

/// torch's `zero_numel_check_dims` for one dim: IndexError when the reduced dim has size 0.
fn zero_numel_check_dim(input: &Tensor, dim: i64, name: &str) -> Result<()> {
    if input.dim() == 0 {
        if dim != 0 && dim != -1 {
            return Err(Error::index(format!(
                "{name}: Expected reduction dim -1 or 0 for scalar but got {dim}"
            )));
        }
    } else if input.size(dim)? == 0 {
        return Err(Error::index(format!(
            "{name}: Expected reduction dim {dim} to have non-zero size."
        )));
    }
    Ok(())
}

fn extreme(input: &Tensor, dim: &[i64], keepdim: bool, max: bool) -> Result<Tensor> {
    if input.numel() == 0 {
        zero_numel_check_dims(input, dim, if max { "amax()" } else { "amin()" })?;
    }
    let mask = reduction_mask(input, Some(dim))?;
    crate::dispatch!(input.dtype(), T => if max {
        reduce_with::<T, T, _>(input, &mask, keepdim, Extreme::<true>, |a| a)
    } else {
        reduce_with::<T, T, _>(input, &mask, keepdim, Extreme::<false>, |a| a)
    })
}

/// `amax(input, dim=[], keepdim=False)`: the maximum over `dim` (empty: every dim), in the
/// input's dtype (bool included). NaN propagates. Shape as for `sum`.
/// Errors: for an empty input, RuntimeError "amax(): Expected reduction dim to be specified for
/// input.numel() == 0. ..." when `dim` is empty, IndexError "amax(): Expected reduction dim 0 to
/// have non-zero size." when a reduced dim has size 0; dim errors as for `sum`.
pub fn amax(input: &Tensor, dim: &[i64], keepdim: bool) -> Result<Tensor> {
    extreme(input, dim, keepdim, true)
}

/// `amin(input, dim=[], keepdim=False)`: the minimum over `dim`; otherwise as `amax`.
pub fn amin(input: &Tensor, dim: &[i64], keepdim: bool) -> Result<Tensor> {
    extreme(input, dim, keepdim, false)
}

// ----- argmax and argmin ----------------------------------------------------------------------

/// True when `v` should replace the current best `best` (strictly better, so the first
/// occurrence wins ties; the first NaN wins over everything).
#[inline(always)]
fn arg_better<T: PartialOrd + Copy, const MAX: bool>(v: T, best: T) -> bool {
    if is_nan(best) {
        false
    } else if is_nan(v) {
        true
    } else if MAX {
        v > best
    } else {
        v < best
    }
}

/// Index of the best of `n >= 1` elements starting at `p`, `stride` apart.
///
/// # Safety
/// `p + k * stride` must address an initialised `T` for every `k < n`.
#[inline]
unsafe fn arg_scan<T: Bounded, const MAX: bool>(p: *const T, n: usize, stride: isize) -> i64 {
    if stride == 1 {
        // SAFETY: `stride == 1`: `n` consecutive initialised elements.
        return arg_scan_slice::<T, MAX>(unsafe { std::slice::from_raw_parts(p, n) });
    }
    // SAFETY: the caller guarantees `n >= 1` readable elements at `p`, `stride` apart.
    let mut best = unsafe { *p };
    let mut best_i = 0usize;
    let mut off = stride;
    for i in 1..n {
        // SAFETY: as above, `off == i * stride` with `i < n`.
        let v = unsafe { *p.offset(off) };
        if arg_better::<T, MAX>(v, best) {
            best = v;
            best_i = i;
        }
        off += stride;
    }
    best_i as i64
}

/// Index of the best element of a non-empty contiguous slice, in two vectorisable passes: the
/// best value (NaN if any), then the first position holding it.
fn arg_scan_slice<T: Bounded, const MAX: bool>(s: &[T]) -> i64 {
    let best = Extreme::<MAX>.reduce_slice(s);
    let l = vecmath::level();
    let found = match T::DTYPE {
        DType::Float32 => {
            // SAFETY: `T` is f32 (its dtype says so).
            let x = unsafe { std::slice::from_raw_parts(s.as_ptr() as *const f32, s.len()) };
            Some(vecmath::reduce::find_f32(
                l,
                x,
                <f32 as Element>::cast_from(best),
            ))
        }
        DType::Float64 => {
            // SAFETY: `T` is f64 (its dtype says so).
            let x = unsafe { std::slice::from_raw_parts(s.as_ptr() as *const f64, s.len()) };
            Some(vecmath::reduce::find_f64(l, x, f64::cast_from(best)))
        }
        _ => None,
    };
    if let Some(p) = found {
        return if p < s.len() { p as i64 } else { 0 };
    }
    let pos = if is_nan(best) {
        s.iter().position(|&v| is_nan(v))
    } else {
        s.iter().position(|&v| v == best)
    };
    pos.unwrap_or(0) as i64
}

fn arg_extreme<T: Bounded, const MAX: bool>(
    input: &Tensor,
    dim: Option<usize>,
    out: &Tensor,
) -> Result<()> {
    let base = input.data_ptr::<T>() as *const T;
    let n_out = out.numel();
    // SAFETY: `out` is a fresh contiguous int64 tensor of `n_out` elements owned by the caller.
    let out_slice = unsafe { std::slice::from_raw_parts_mut(out.data_ptr::<i64>(), n_out) };
    match dim {
        None => {
            if input.is_contiguous() {
                // SAFETY: contiguous and non-empty: `numel` elements from `base`.
                out_slice[0] = unsafe { arg_scan::<T, MAX>(base, input.numel(), 1) };
            } else {
                let (mut best, mut best_i, mut i) = (None::<T>, 0usize, 0usize);
                strided_for_each(input.sizes(), [input.strides()], |[o]| {
                    // SAFETY: `o` is the offset of an element of `input`.
                    let v = unsafe { *base.offset(o) };
                    if best.is_none_or(|b| arg_better::<T, MAX>(v, b)) {
                        best = Some(v);
                        best_i = i;
                    }
                    i += 1;
                });
                out_slice[0] = best_i as i64;
            }
        }
        Some(d) => {
            let (n, st) = if input.dim() == 0 {
                (1, 0)
            } else {
                (input.sizes()[d], input.strides()[d])
            };
            if n == 1 {
                return Ok(()); // already zeros
            }
            let outer: Vec<(usize, isize)> = (0..input.dim())
                .filter(|&k| k != d)
                .map(|k| (input.sizes()[k], input.strides()[k]))
                .collect();
            let (osz, ost) = coalesce(&outer);
            if let (Some(&n_last), Some(&1)) = (osz.last(), ost.last()) {
                if n_last >= ROW_STRATEGY_MIN {
                    // Innermost kept dim contiguous: scan whole rows along `d`, in memory order.
                    let k = osz.len() - 1;
                    let mut best = try_filled_vec(n_last, T::default())?;
                    let mut p = 0;
                    strided_for_each(&osz[..k], [&ost[..k]], |[po]| {
                        let idx = &mut out_slice[p..p + n_last];
                        // SAFETY: `po` is the offset of a contiguous row of `n_last` elements.
                        let first = unsafe { std::slice::from_raw_parts(base.offset(po), n_last) };
                        best.copy_from_slice(first);
                        let mut off = po;
                        for r in 1..n {
                            off += st;
                            // SAFETY: `off` is the row `r < n` steps along the reduced dim.
                            let row =
                                unsafe { std::slice::from_raw_parts(base.offset(off), n_last) };
                            for ((b, i), &v) in best.iter_mut().zip(idx.iter_mut()).zip(row) {
                                if arg_better::<T, MAX>(v, *b) {
                                    *b = v;
                                    *i = r as i64;
                                }
                            }
                        }
                        p += n_last;
                    });
                    return Ok(());
                }
            }
            let mut i = 0;
            strided_for_each(&osz, [&ost], |[o]| {
                // SAFETY: `o` is an output position's offset; the reduced dim has `n >= 1`
                // elements `st` apart from it.
                out_slice[i] = unsafe { arg_scan::<T, MAX>(base.offset(o), n, st) };
                i += 1;
            });
        }
    }
    Ok(())
}

fn arg_reduce(input: &Tensor, dim: Option<i64>, keepdim: bool, max: bool) -> Result<Tensor> {
    let name = if max { "argmax" } else { "argmin" };
    // torch checks the dtype first (an empty bool input included).
    if input.dtype() == DType::Bool {
        return Err(Error::not_implemented(format!(
            "{name}(): does not support bool input"
        )));
    }
    let nd = input.dim();
    let wrapped = match dim {
        Some(d) => {
            let w = maybe_wrap_dim(d, nd)?;
            zero_numel_check_dim(input, w as i64, &format!("{name}()"))?;
            Some(w)
        }
        None => {
            if input.numel() == 0 {
                return Err(Error::index(format!(
                    "{name}(): Expected reduction dim to be specified for input.numel() == 0."
                )));
            }
            None
        }
    };
    let out_sizes: Vec<usize> = match wrapped {
        None if keepdim => vec![1; nd],
        None => Vec::new(),
        Some(_) if nd == 0 => Vec::new(),
        Some(w) => (0..nd)
            .filter_map(|k| {
                if k != w {
                    Some(input.sizes()[k])
                } else if keepdim {
                    Some(1)
                } else {
                    None
                }
            })
            .collect(),
    };
    let out = Tensor::zeros(&out_sizes, DType::Int64)?;
    if out.numel() == 0 {
        return Ok(out);
    }
    crate::dispatch!(input.dtype(), T => if max {
        arg_extreme::<T, true>(input, wrapped, &out)
    } else {
        arg_extreme::<T, false>(input, wrapped, &out)
    })?;
    Ok(out)
}

/// `argmax(input, dim=None, keepdim=False)`: int64 index of the maximum along `dim`, or into the
/// flattened tensor when `dim` is `None` (then `keepdim` gives every dim size 1). The first
/// occurrence wins ties; NaN counts as the maximum. Shape: `input`'s without `dim` (size 1 with
/// `keepdim`).
/// Errors: IndexError "argmax(): Expected reduction dim to be specified for input.numel() == 0."
/// for an empty input without `dim`, IndexError "argmax(): Expected reduction dim 0 to have
/// non-zero size." for an empty `dim`, IndexError for `dim` out of range, NotImplementedError
/// "argmax(): does not support bool input" for bool inputs, checked first (as torch 2.15).
pub fn argmax(input: &Tensor, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
    arg_reduce(input, dim, keepdim, true)
}

/// `argmin(input, dim=None, keepdim=False)`: index of the minimum; otherwise as `argmax`.
pub fn argmin(input: &Tensor, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
    arg_reduce(input, dim, keepdim, false)
}

// ----- prod -----------------------------------------------------------------------------------

/// The result dtype of `prod`/`cumsum`/`cumprod`: `dtype` if given, else int64 for bool and
/// integer inputs and the input's dtype for floats.
pub(super) fn int_to_long(input: &Tensor, dtype: Option<DType>) -> DType {
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
        return Err(Error::not_implemented(
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
    ), _ => Err(Error::not_implemented("std and var only support floating point and complex dtypes")))
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
/// `unbiased`), a 0-dim tensor of the input's floating dtype. NotImplementedError "std and var only
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

/// `norm(input, p: str, dim=None, keepdim=False)`, as torch.functional.norm: `p="fro"` over at
/// most two dims is the vector 2-norm over `dim` (every element by default); otherwise (`"nuc"`,
/// the sum of the singular values, or `"fro"` over more dims) `linalg.matrix_norm(input, p,
/// dim)` with `dim` every dimension by default, whose errors follow (the input must then have
/// two dims: "linalg.matrix_norm: dim must be a 2-tuple. Got 0 1 2"; another string is
/// "linalg.matrix_norm: Order abc not supported.").
pub fn norm_str(input: &Tensor, p: &str, dim: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
    if p == "fro" && dim.is_none_or(|d| d.len() <= 2) {
        return norm(input, Some(Scalar::Float(2.0)), dim, keepdim);
    }
    let all: Vec<i64> = (0..input.dim() as i64).collect();
    super::linalg_ops::linalg_matrix_norm_str_ord(input, p, dim.unwrap_or(&all), keepdim, None)
}

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

// ----- logsumexp, all, any, count_nonzero -----------------------------------------------------

/// `logsumexp(input, dim, keepdim=False)`: `log(sum(exp(input), dim))`, computed stably as
/// torch does (the max along `dim` is subtracted first; infinite maxima are not). Integer and
/// bool inputs are converted to float32 first. Errors: dim errors as for `sum`.
pub fn logsumexp(input: &Tensor, dim: &[i64], keepdim: bool) -> Result<Tensor> {
    let x = if input.dtype().is_floating_point() {
        input.clone()
    } else {
        input.to_dtype(DType::DEFAULT_FLOAT)?
    };
    let mask = reduce_mask(&x, Some(dim))?;
    if x.numel() == 0 {
        // log(0) = -inf over empty reductions, without amax's empty-input errors.
        let s = sum(&x, Some(dim), keepdim, None)?;
        return log(&s);
    }
    if x.dim() > 0 && mask.iter().filter(|&&r| r).count() == 1 {
        // One dim: the fused kernel (Note [Fused softmax]).
        let d = mask.iter().position(|&r| r).expect("one reduced dim");
        let r = crate::core::ops::softmax::fused_softmax(
            &x,
            d,
            crate::core::vecmath::SoftmaxOp::LogSumExp,
        )?;
        return if keepdim {
            crate::core::ops::unsqueeze(&r, d as i64)
        } else {
            Ok(r)
        };
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

/// The mask of `all`/`any` over a tuple of dims: `None` every dim, `()` none (torch 2.15: then
/// the result is each element's truth value).
fn all_any_mask(input: &Tensor, dim: Option<&[i64]>) -> Result<Vec<bool>> {
    match dim {
        Some([]) => Ok(vec![false; input.dim()]),
        d => reduce_mask(input, d),
    }
}

/// `all(input, dim=None, keepdim=False)` with a tuple of dims (see `all_any_mask`). IndexError
/// for a dim out of range; RuntimeError for a repeated one.
pub fn all_dims(input: &Tensor, dim: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
    all_any(input, &all_any_mask(input, dim)?, keepdim, true)
}

/// `any(input, dim=None, keepdim=False)` with a tuple of dims; otherwise as `all_dims`.
pub fn any_dims(input: &Tensor, dim: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
    all_any(input, &all_any_mask(input, dim)?, keepdim, false)
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

#[cfg(test)]
#[path = "tests/reduce_ops.rs"]
mod tests;
