//! src/core/ops/compare.rs: comparisons and selections (PyTorch: the comparison ops of
//! `native/BinaryOps.cpp`, and `native/TensorCompare.cpp`) — `eq`, `ne`, `lt`, `le`, `gt`, `ge`
//! with broadcasting (operands are compared in their promoted dtype and the result is bool),
//! `where`, `clamp`/`clip`, `isclose`, `allclose`, `equal`.

use super::arith::{not_implemented, Arith};
use super::binary::binary_plan;
use super::plan::{Kernel, Plan};
use crate::core::dtype::{DType, Element};
use crate::core::error::{Error, Result};
use crate::core::iter::{binary_kernel, binary_op, operand_as, strided_for_each, unary_into};
use crate::core::promote::result_type;
use crate::core::scalar::Scalar;
use crate::core::tensor::{broadcast_shapes, Tensor};
use std::borrow::Cow;

macro_rules! comparison {
    ($(#[$doc:meta])* $name:ident, $plan:ident, $op:tt) => {
        $(#[$doc])*
        pub fn $name(input: &Tensor, other: &Tensor) -> Result<Tensor> {
            $plan(input, other)?.run()
        }

        #[doc = concat!("`", stringify!($name), "` checked and ready to run (Note [One kernel per op]).")]
        pub fn $plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<Plan<'a, impl Kernel + 'a>> {
            // Broadcast errors come from the plan, before anything is computed.
            let dtype = result_type(&[input, other]);
            binary_plan(input, other, DType::Bool, move |out, fresh| {
                crate::dispatch!(dtype, T => binary_kernel::<T, bool>(out, input, other, fresh, |x: T, y: T| x $op y))
            })
        }
    };
}

comparison!(
    /// `eq(input, other)`: `input == other` elementwise → bool, broadcast; both sides converted
    /// to `result_type(input, other)` first (`int32 tensor == 2.5` compares in float32). NaN is
    /// unequal to everything. RuntimeError when the shapes do not broadcast. Mirrors `torch.eq`.
    eq, eq_plan, ==
);

comparison!(
    /// `ne(input, other)`: `input != other` elementwise → bool (NaN != NaN is true); promotion
    /// and errors as `eq`. Mirrors `torch.ne`.
    ne, ne_plan, !=
);

comparison!(
    /// `lt(input, other)`: `input < other` elementwise → bool (false with NaN; `False < True`);
    /// promotion and errors as `eq`. Mirrors `torch.lt`.
    lt, lt_plan, <
);

comparison!(
    /// `le(input, other)`: `input <= other` elementwise → bool; as `lt`. Mirrors `torch.le`.
    le, le_plan, <=
);

/// `gt(input, other)`: `input > other` elementwise → bool; as `lt`. Mirrors `torch.gt`.
pub fn gt(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    gt_plan(input, other)?.run()
}

/// `gt` checked and ready to run (Note [One kernel per op]). Computed as `other < input`
/// (`x > y` is `y < x` for every pair, NaN included), which shares `lt`'s kernels instead of
/// instantiating a set per dtype; the shape comes from the caller's order, so a broadcast error
/// names the tensors as torch does.
// The bool arm of `dispatch!` compares bools, as torch's kernel does.
#[allow(clippy::bool_comparison)]
pub fn gt_plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<Plan<'a, impl Kernel + 'a>> {
    let dtype = result_type(&[input, other]);
    binary_plan(
        input,
        other,
        DType::Bool,
        move |out, fresh| crate::dispatch!(dtype, T => binary_kernel::<T, bool>(out, other, input, fresh, |x: T, y: T| x < y)),
    )
}

/// `ge(input, other)`: `input >= other` elementwise → bool; as `lt`. Mirrors `torch.ge`.
pub fn ge(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    ge_plan(input, other)?.run()
}

/// `ge` checked and ready to run (Note [One kernel per op]); computed as `other <= input`, as
/// `gt` is from `lt`.
// The bool arm of `dispatch!` compares bools, as torch's kernel does.
#[allow(clippy::bool_comparison)]
pub fn ge_plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<Plan<'a, impl Kernel + 'a>> {
    let dtype = result_type(&[input, other]);
    binary_plan(
        input,
        other,
        DType::Bool,
        move |out, fresh| crate::dispatch!(dtype, T => binary_kernel::<T, bool>(out, other, input, fresh, |x: T, y: T| x <= y)),
    )
}

// ----- where ----------------------------------------------------------------------------------

/// `where(condition, input, other)`: `input` where `condition` is true, else `other`; all three
/// broadcast together; dtype `result_type(input, other)`. `condition` must be bool (uint8 is
/// still accepted, as torch does with a deprecation warning); otherwise RuntimeError "where
/// expected condition to be a boolean tensor, but got a tensor with dtype Float". Mirrors
/// `torch.where(condition, input, other)`.
pub fn where_(condition: &Tensor, input: &Tensor, other: &Tensor) -> Result<Tensor> {
    let dtype = result_type(&[input, other]);
    let cond = match condition.dtype() {
        DType::Bool => condition.clone(),
        DType::UInt8 => condition.to_dtype(DType::Bool)?,
        d => {
            return Err(Error::runtime(format!(
                "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
                d.scalar_type_name()
            )))
        }
    };
    let shape = broadcast_shapes(
        &broadcast_shapes(cond.sizes(), input.sizes())?,
        other.sizes(),
    )?;
    let (a, b) = (operand_as(input, dtype)?, operand_as(other, dtype)?);
    let out = Tensor::zeros(&shape, dtype)?;
    crate::dispatch!(dtype, T => where_into::<T>(&out, &cond, &a, &b))?;
    Ok(out)
}

/// `out = cond ? a : b` with broadcasting; `out` is fresh, `a`/`b` have dtype `T`.
fn where_into<T: Element>(out: &Tensor, cond: &Tensor, a: &Tensor, b: &Tensor) -> Result<()> {
    let n = out.numel();
    if n == 0 {
        return Ok(());
    }
    let po = out.data_ptr::<T>();
    let pc = cond.data_ptr::<bool>() as *const bool;
    let (pa, pb) = (a.data_ptr::<T>() as *const T, b.data_ptr::<T>() as *const T);
    let dense = |t: &Tensor| t.numel() == n && t.is_contiguous();
    if out.is_contiguous() && dense(cond) && dense(a) && dense(b) {
        // SAFETY: all four are contiguous with `n` elements and `out` is a fresh allocation, so
        // its mutable slice overlaps none of the shared ones.
        let (o, c, x, y) = unsafe {
            (
                std::slice::from_raw_parts_mut(po, n),
                std::slice::from_raw_parts(pc, n),
                std::slice::from_raw_parts(pa, n),
                std::slice::from_raw_parts(pb, n),
            )
        };
        for (((o, &c), &x), &y) in o.iter_mut().zip(c).zip(x).zip(y) {
            *o = if c { x } else { y };
        }
        return Ok(());
    }
    let sc = cond.broadcast_strides(out.sizes())?;
    let sa = a.broadcast_strides(out.sizes())?;
    let sb = b.broadcast_strides(out.sizes())?;
    strided_for_each(
        out.sizes(),
        [out.strides(), &sc, &sa, &sb],
        |[o, c, x, y]| {
            // SAFETY: each offset comes from its tensor's own (broadcast) geometry over `out`'s shape.
            unsafe {
                *po.offset(o) = if *pc.offset(c) {
                    *pa.offset(x)
                } else {
                    *pb.offset(y)
                }
            }
        },
    );
    Ok(())
}

// ----- clamp ----------------------------------------------------------------------------------

const CLAMP_NONE: &str = "torch.clamp: At least one of 'min' or 'max' must not be None";

/// `clamp(input, min=None, max=None)` with number bounds: `min(max(input, min), max)`
/// elementwise (so `max` wins when `min > max`); NaN in input or a bound gives NaN. The result
/// dtype is the input's when floating, else `result_type` of the input and the bounds as Python
/// numbers (`int tensor.clamp(0.5)` → float32). Errors: both bounds None (RuntimeError "torch.clamp:
/// At least one of 'min' or 'max' must not be None"); a bool result (NotImplementedError);
/// a bound outside an integer dtype's range. Mirrors `torch.clamp(Tensor, Scalar?, Scalar?)`.
pub fn clamp(input: &Tensor, min: Option<Scalar>, max: Option<Scalar>) -> Result<Tensor> {
    clamp_plan(input, min, max)?.run()
}

/// `clamp` (number bounds) checked and ready to run (Note [One kernel per op]).
pub fn clamp_plan(
    input: &Tensor,
    min: Option<Scalar>,
    max: Option<Scalar>,
) -> Result<Plan<'_, impl Kernel + '_>> {
    if min.is_none() && max.is_none() {
        return Err(Error::runtime(CLAMP_NONE));
    }
    let mut dtype = input.dtype();
    if !dtype.is_floating_point() {
        let mut ops = vec![input.clone()];
        for s in [min, max].into_iter().flatten() {
            ops.push(Tensor::wrapped_scalar(s)?);
        }
        dtype = result_type(&ops.iter().collect::<Vec<_>>());
    }
    if dtype == DType::Bool {
        let kernel = match (min, max) {
            (Some(_), Some(_)) => "clamp_scalar_cpu",
            (Some(_), None) => "clamp_min_scalar_cpu",
            _ => "clamp_max_scalar_cpu",
        };
        return Err(not_implemented(kernel, dtype));
    }
    crate::dispatch!(dtype, T => {
        min.map(|s| s.to_checked::<T>()).transpose()?;
        max.map(|s| s.to_checked::<T>()).transpose()?;
    });
    Ok(Plan::new(
        Cow::Borrowed(input.sizes()),
        dtype,
        [Some(input), None, None],
        move |out, fresh| {
            let a = operand_as(input, dtype)?;
            crate::dispatch!(dtype, T => {
                let lo: Option<T> = min.map(|s| s.to_checked::<T>()).transpose()?;
                let hi: Option<T> = max.map(|s| s.to_checked::<T>()).transpose()?;
                unary_into::<T, T>(out, &a, fresh, move |x: T| {
                    let x = match lo { Some(l) => x.max_nan(l), None => x };
                    match hi { Some(h) => x.min_nan(h), None => x }
                })
            })
        },
    ))
}

/// `clamp(input, min=None, max=None)` with tensor bounds: broadcast over all three, computed
/// in their promoted dtype, NaN propagating (a lone `min` is `maximum(input, min)`, a lone
/// `max` is `minimum(input, max)`). Errors: both None (RuntimeError, as the number overload);
/// both bounds with a bool result (NotImplementedError `"clamp_cpu" not implemented for
/// 'Bool'`); shapes that do not broadcast. Mirrors `torch.clamp(Tensor, Tensor?, Tensor?)`.
pub fn clamp_tensor(input: &Tensor, min: Option<&Tensor>, max: Option<&Tensor>) -> Result<Tensor> {
    clamp_tensor_plan(input, min, max)?.run()
}

/// `clamp_tensor` checked and ready to run (Note [One kernel per op]).
pub fn clamp_tensor_plan<'a>(
    input: &'a Tensor,
    min: Option<&'a Tensor>,
    max: Option<&'a Tensor>,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let mut operands = vec![input];
    operands.extend(min);
    operands.extend(max);
    let dtype = match (min, max) {
        (None, None) => return Err(Error::runtime(CLAMP_NONE)),
        (Some(_), Some(_)) => {
            let d = result_type(&operands);
            if d == DType::Bool {
                broadcast_shapes(
                    &broadcast_shapes(input.sizes(), operands[1].sizes())?,
                    operands[2].sizes(),
                )?;
                return Err(not_implemented("clamp_cpu", d));
            }
            d
        }
        _ => result_type(&operands),
    };
    let mut shape = input.sizes().to_vec();
    for b in &operands[1..] {
        shape = broadcast_shapes(&shape, b.sizes())?;
    }
    Ok(Plan::new(
        Cow::Owned(shape),
        dtype,
        [Some(input), min, max],
        move |out, _| crate::dispatch!(dtype, T => clamp_into::<T>(out, input, min, max)),
    ))
}

/// `out = min(max(x, lo), hi)` (NaN propagating; absent bounds skipped) with all three broadcast
/// to `out`, computed in `T`. `out` may be exactly `x` or a bound (each element is read before
/// it is written).
fn clamp_into<T: Arith>(
    out: &Tensor,
    x: &Tensor,
    lo: Option<&Tensor>,
    hi: Option<&Tensor>,
) -> Result<()> {
    let x = operand_as(x, T::DTYPE)?;
    let lo = lo.map(|t| operand_as(t, T::DTYPE)).transpose()?;
    let hi = hi.map(|t| operand_as(t, T::DTYPE)).transpose()?;
    let po = out.data_ptr::<T>();
    let geometry = |t: &Tensor| -> Result<(*const T, Vec<isize>)> {
        Ok((
            t.data_ptr::<T>() as *const T,
            t.broadcast_strides(out.sizes())?,
        ))
    };
    let (px, sx) = geometry(&x)?;
    // An absent bound reads `x` (its strides) and is ignored.
    let (pl, sl) = geometry(lo.as_ref().unwrap_or(&x))?;
    let (ph, sh) = geometry(hi.as_ref().unwrap_or(&x))?;
    let (has_lo, has_hi) = (lo.is_some(), hi.is_some());
    strided_for_each(
        out.sizes(),
        [out.strides(), &sx, &sl, &sh],
        |[o, a, l, h]| {
            // SAFETY: each offset comes from its tensor's own (broadcast) geometry over `out`'s
            // shape; every read of this position happens before its write.
            unsafe {
                let mut v = *px.offset(a);
                if has_lo {
                    v = v.max_nan(*pl.offset(l));
                }
                if has_hi {
                    v = v.min_nan(*ph.offset(h));
                }
                *po.offset(o) = v;
            }
        },
    );
    Ok(())
}

/// `clip(input, min=None, max=None)`: alias of `clamp` (number bounds). Mirrors `torch.clip`.
pub fn clip(input: &Tensor, min: Option<Scalar>, max: Option<Scalar>) -> Result<Tensor> {
    clamp(input, min, max)
}

/// `clip` checked and ready to run (Note [One kernel per op]).
pub fn clip_plan(
    input: &Tensor,
    min: Option<Scalar>,
    max: Option<Scalar>,
) -> Result<Plan<'_, impl Kernel + '_>> {
    clamp_plan(input, min, max)
}

/// `clip(input, min=None, max=None)`: alias of `clamp_tensor` (tensor bounds). Mirrors
/// `torch.clip`.
pub fn clip_tensor(input: &Tensor, min: Option<&Tensor>, max: Option<&Tensor>) -> Result<Tensor> {
    clamp_tensor(input, min, max)
}

/// `clip_tensor` checked and ready to run (Note [One kernel per op]).
pub fn clip_tensor_plan<'a>(
    input: &'a Tensor,
    min: Option<&'a Tensor>,
    max: Option<&'a Tensor>,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    clamp_tensor_plan(input, min, max)
}

// ----- closeness ------------------------------------------------------------------------------

/// `isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False)`: bool tensor, broadcast,
/// true where `input == other` or `|input - other| <= atol + |rtol * other|` (finite), and for
/// NaN pairs when `equal_nan`. Computed as torch does: in the float dtype for floats, in
/// float32 against the integer difference for integers, bools as float32. Errors (RuntimeError):
/// different dtypes ("Float did not match Double"); a negative `rtol` or `atol`. Mirrors
/// `torch.isclose`.
pub fn isclose(
    input: &Tensor,
    other: &Tensor,
    rtol: f64,
    atol: f64,
    equal_nan: bool,
) -> Result<Tensor> {
    if input.dtype() != other.dtype() {
        return Err(Error::runtime(format!(
            "{} did not match {}",
            input.dtype().scalar_type_name(),
            other.dtype().scalar_type_name()
        )));
    }
    if rtol < 0.0 {
        return Err(Error::runtime(format!(
            "rtol must be greater than or equal to zero, but got {rtol}"
        )));
    }
    if atol < 0.0 {
        return Err(Error::runtime(format!(
            "atol must be greater than or equal to zero, but got {atol}"
        )));
    }
    macro_rules! float_close {
        ($t:ty, $a:expr, $b:expr) => {{
            let (rt, at) = (rtol as $t, atol as $t);
            binary_op::<$t, bool>($a, $b, move |x: $t, y: $t| {
                let actual = (x - y).abs();
                x == y
                    || (equal_nan && x.is_nan() && y.is_nan())
                    || (actual.is_finite() && actual <= at + (rt * y).abs())
            })
        }};
    }
    match input.dtype() {
        DType::Float64 => float_close!(f64, input, other),
        DType::Float32 => float_close!(f32, input, other),
        DType::Bool => {
            let (a, b) = (
                operand_as(input, DType::Float32)?,
                operand_as(other, DType::Float32)?,
            );
            float_close!(f32, &a, &b)
        }
        d => {
            let (rt, at) = (rtol as f32, atol as f32);
            crate::dispatch!(d, T => binary_op::<T, bool>(input, other, move |x: T, y: T| {
                // The difference without wrapping (torch 2.15: isclose(int8 -128, 127, atol=3,
                // rtol=0.5) is False), the allowance in float32.
                let actual = (x.to_f64() - y.to_f64()).abs() as f32;
                x == y || actual <= at + (rt * (y.to_f64() as f32)).abs()
            }))
        }
    }
}

/// `allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False)`: whether `isclose` holds
/// everywhere (a bool; the shapes broadcast). Errors as `isclose`. Mirrors `torch.allclose`.
pub fn allclose(
    input: &Tensor,
    other: &Tensor,
    rtol: f64,
    atol: f64,
    equal_nan: bool,
) -> Result<bool> {
    let c = isclose(input, other, rtol, atol, equal_nan)?;
    Ok(!super::conversion::try_to_vec::<bool>(&c)?.contains(&false))
}

/// `equal(input, other)`: true when both have the same shape and equal values (compared in the
/// promoted dtype; NaN is unequal to itself). Mirrors `torch.equal`.
pub fn equal(input: &Tensor, other: &Tensor) -> Result<bool> {
    if input.sizes() != other.sizes() {
        return Ok(false);
    }
    let e = eq(input, other)?;
    Ok(!super::conversion::try_to_vec::<bool>(&e)?.contains(&false))
}

// ----- one-sided clamps (issue 13) --------------------------------------------------------------

/// `clamp_min(input, min)`: `clamp(input, min=min)`. Mirrors `torch.clamp_min`.
pub fn clamp_min(input: &Tensor, min: Scalar) -> Result<Tensor> {
    clamp_min_plan(input, min)?.run()
}

/// `clamp_min` checked and ready to run (Note [One kernel per op]).
pub fn clamp_min_plan(input: &Tensor, min: Scalar) -> Result<Plan<'_, impl Kernel + '_>> {
    clamp_plan(input, Some(min), None)
}

/// `clamp_max(input, max)`: `clamp(input, max=max)`. Mirrors `torch.clamp_max`.
pub fn clamp_max(input: &Tensor, max: Scalar) -> Result<Tensor> {
    clamp_max_plan(input, max)?.run()
}

/// `clamp_max` checked and ready to run (Note [One kernel per op]).
pub fn clamp_max_plan(input: &Tensor, max: Scalar) -> Result<Plan<'_, impl Kernel + '_>> {
    clamp_plan(input, None, Some(max))
}

/// `clamp_min(input, min)` with a tensor bound (broadcast). Mirrors `torch.clamp_min`.
pub fn clamp_min_tensor(input: &Tensor, min: &Tensor) -> Result<Tensor> {
    clamp_min_tensor_plan(input, min)?.run()
}

/// `clamp_min_tensor` checked and ready to run (Note [One kernel per op]).
pub fn clamp_min_tensor_plan<'a>(
    input: &'a Tensor,
    min: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    clamp_tensor_plan(input, Some(min), None)
}

/// `clamp_max(input, max)` with a tensor bound (broadcast). Mirrors `torch.clamp_max`.
pub fn clamp_max_tensor(input: &Tensor, max: &Tensor) -> Result<Tensor> {
    clamp_max_tensor_plan(input, max)?.run()
}

/// `clamp_max_tensor` checked and ready to run (Note [One kernel per op]).
pub fn clamp_max_tensor_plan<'a>(
    input: &'a Tensor,
    max: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    clamp_tensor_plan(input, None, Some(max))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::dtype::Element;
    use crate::core::error::ErrorKind;
    use crate::core::ops::{lerp_scalar, lerp_tensor};
    use crate::core::{DType, Scalar};

    fn t<T: Element>(v: Vec<T>, shape: &[usize]) -> Tensor {
        Tensor::from_vec(v, shape).unwrap()
    }

    fn w(s: impl Into<Scalar>) -> Tensor {
        Tensor::wrapped_scalar(s.into()).unwrap()
    }

    fn msg<T>(r: Result<T>) -> (ErrorKind, String) {
        match r {
            Ok(_) => panic!("expected an error"),
            Err(e) => (e.kind, e.message),
        }
    }

    #[test]
    fn promoted_comparisons_with_scalars() {
        let a = t(vec![1i32, 2, 3], &[3]);
        let r = lt(&a, &w(2.5)).unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<bool>()),
            (DType::Bool, vec![true, true, false])
        );
        assert_eq!(
            le(&a, &w(2i64)).unwrap().to_vec::<bool>(),
            vec![true, true, false]
        );
        assert_eq!(
            gt(&a, &w(2i64)).unwrap().to_vec::<bool>(),
            vec![false, false, true]
        );
        assert_eq!(
            ge(&a, &w(2i64)).unwrap().to_vec::<bool>(),
            vec![false, true, true]
        );
        assert_eq!(
            eq(&a, &w(2.0)).unwrap().to_vec::<bool>(),
            vec![false, true, false]
        );
        assert_eq!(
            ne(&a, &w(2i64)).unwrap().to_vec::<bool>(),
            vec![true, false, true]
        );
        // int64 vs python float compares in float32: 2**24 + 1 rounds to 2**24.
        let big = t(vec![16_777_217i64], &[1]);
        assert_eq!(
            eq(&big, &w(16_777_216.0)).unwrap().to_vec::<bool>(),
            vec![true]
        );
        // uint8 vs an out-of-range python int: the scalar wraps into uint8 (256 → 0).
        assert_eq!(
            eq(&t(vec![0u8], &[1]), &w(256i64))
                .unwrap()
                .to_vec::<bool>(),
            vec![true]
        );
    }

    #[test]
    fn nan_and_bool() {
        let f = t(vec![f32::NAN, 1.0], &[2]);
        assert_eq!(eq(&f, &f).unwrap().to_vec::<bool>(), vec![false, true]);
        assert_eq!(ne(&f, &f).unwrap().to_vec::<bool>(), vec![true, false]);
        assert_eq!(
            lt(&f, &w(5i64)).unwrap().to_vec::<bool>(),
            vec![false, true]
        );
        let b = t(vec![false, true], &[2]);
        assert_eq!(
            lt(&b, &t(vec![true, true], &[2])).unwrap().to_vec::<bool>(),
            vec![true, false]
        );
        assert_eq!(
            eq(&b, &w(1i64)).unwrap().to_vec::<bool>(),
            vec![false, true]
        );
    }

    #[test]
    fn broadcasting_strides_and_errors() {
        let a = t(vec![1i64, 2, 3], &[3, 1]);
        let b = t(vec![2.0f64, 3.0], &[2]);
        let r = ge(&a, &b).unwrap();
        assert_eq!(r.sizes(), &[3, 2]);
        assert_eq!(
            r.to_vec::<bool>(),
            vec![false, false, true, false, true, true]
        );
        let m = t((0..6i64).collect(), &[2, 3]);
        let mt = m.as_strided(vec![3, 2], vec![1, 3], 0);
        assert_eq!(
            gt(&mt, &w(2i64)).unwrap().to_vec::<bool>(),
            vec![false, true, false, true, false, true]
        );
        let e = eq(&t(vec![1i64, 2, 3], &[3]), &t(vec![1i64, 2], &[2])).unwrap_err();
        assert_eq!(e.kind, crate::core::ErrorKind::Runtime);
        assert_eq!(
            e.message,
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"
        );
        // gt/ge run as lt/le with the operands swapped: errors still name `input` as a.
        for op in [gt, ge] {
            let e = op(&t(vec![1i64, 2, 3], &[3]), &t(vec![1i64, 2], &[2])).unwrap_err();
            assert_eq!(
                e.message,
                "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"
            );
        }
        let f = t(vec![f32::NAN, 1.0, 2.0, 3.0], &[4]);
        let g = t(vec![1.0f32, f32::NAN, 2.0, 1.0], &[4]);
        assert_eq!(
            gt(&f, &g).unwrap().to_vec::<bool>(),
            vec![false, false, false, true]
        );
        assert_eq!(
            ge(&f, &g).unwrap().to_vec::<bool>(),
            vec![false, false, true, true]
        );
        let z = eq(&Tensor::zeros(&[0], DType::Int32).unwrap(), &w(1i64)).unwrap();
        assert_eq!((z.sizes(), z.dtype()), (&[0usize][..], DType::Bool));
    }

    #[test]
    fn where_op() {
        let c = t(vec![true, false, true], &[3]);
        let r = where_(&c, &w(1.0), &w(0i64)).unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<f32>()),
            (DType::Float32, vec![1.0, 0.0, 1.0])
        );
        let r = where_(
            &c,
            &t(vec![1i32, 2, 3], &[3]),
            &t(vec![10i64, 20, 30], &[3]),
        )
        .unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<i64>()),
            (DType::Int64, vec![1, 20, 3])
        );
        // Three-way broadcast: [2,1] x [3] x [].
        let c2 = t(vec![true, false], &[2, 1]);
        let r = where_(
            &c2,
            &t(vec![1i64, 2, 3], &[3]),
            &Tensor::scalar_tensor(Scalar::Int(0), DType::Int64).unwrap(),
        )
        .unwrap();
        assert_eq!(r.sizes(), &[2, 3]);
        assert_eq!(r.to_vec::<i64>(), vec![1, 2, 3, 0, 0, 0]);
        let fc = t(vec![1.0f32], &[1]);
        assert_eq!(
            msg(where_(&fc, &w(1i64), &w(0i64))).1,
            "where expected condition to be a boolean tensor, but got a tensor with dtype Float"
        );
        let uc = t(vec![2u8, 0], &[2]);
        assert_eq!(
            where_(&uc, &w(1i64), &w(0i64)).unwrap().to_vec::<i64>(),
            vec![1, 0]
        );
    }

    #[test]
    fn clamp_and_lerp() {
        let i = t(vec![-5i64, 0, 5], &[3]);
        let r = clamp(&i, Some(Scalar::Int(-1)), Some(Scalar::Int(2))).unwrap();
        assert_eq!(r.to_vec::<i64>(), vec![-1, 0, 2]);
        let r = clamp(&i, Some(Scalar::Float(0.5)), None).unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<f32>()),
            (DType::Float32, vec![0.5, 0.5, 5.0])
        );
        assert_eq!(msg(clamp(&i, None, None)).1, CLAMP_NONE);
        let f = t(vec![f32::NAN, 3.0], &[2]);
        let r = clamp_tensor(&f, Some(&t(vec![0.0f32], &[1])), Some(&w(1i64))).unwrap();
        let v = r.to_vec::<f32>();
        assert!(v[0].is_nan() && v[1] == 1.0);
        let a = t(vec![0.0f32, 10.0], &[2]);
        let b = t(vec![10.0f32, 20.0], &[2]);
        assert_eq!(
            lerp_scalar(&a, &b, Scalar::Float(0.25))
                .unwrap()
                .to_vec::<f32>(),
            vec![2.5, 12.5]
        );
        assert_eq!(
            lerp_tensor(&a, &b, &t(vec![0.5f32, 0.75], &[2]))
                .unwrap()
                .to_vec::<f32>(),
            vec![5.0, 17.5]
        );
        assert_eq!(
            msg(lerp_scalar(&a, &t(vec![1.0f64], &[1]), Scalar::Int(1))).1,
            "expected dtype float for `end` but got dtype double"
        );
    }

    #[test]
    fn closeness() {
        let a = t(vec![1.0f32, f32::NAN, f32::INFINITY, 1.0], &[4]);
        let b = t(vec![1.000001f32, f32::NAN, f32::INFINITY, 1.1], &[4]);
        assert_eq!(
            isclose(&a, &b, 1e-5, 1e-8, false).unwrap().to_vec::<bool>(),
            vec![true, false, true, false]
        );
        assert_eq!(
            isclose(&a, &b, 1e-5, 1e-8, true).unwrap().to_vec::<bool>(),
            vec![true, true, true, false]
        );
        assert!(allclose(&a, &a, 1e-5, 1e-8, true).unwrap());
        assert_eq!(
            msg(isclose(&a, &t(vec![1.0f64], &[1]), 1e-5, 1e-8, false)).1,
            "Float did not match Double"
        );
        assert!(equal(&t(vec![1i64, 2], &[2]), &t(vec![1.0f32, 2.0], &[2])).unwrap());
        assert!(!equal(&t(vec![1i64, 2], &[2]), &t(vec![1i64, 2], &[1, 2])).unwrap());
    }
}
