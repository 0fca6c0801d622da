//! src/core/ops/binary.rs: binary elementwise ops with broadcasting and type promotion
//! (PyTorch: `native/BinaryOps.cpp`, `native/Lerp.cpp`) — the arithmetic ops (`add`, `sub`,
//! `mul`, `div`, `remainder`, `floor_divide`, `pow`, `maximum`, `minimum`), each with its
//! `_plan` (Note [One kernel per op] in plan.rs: the functional form, the in-place method and
//! `out=` all run it); `atan2`, `hypot`, `fmod`; the logical, bitwise and shift ops; `lerp`.

use super::arith::{not_implemented, reject_bool, Arith, MathElem};
use super::plan::{Kernel, Plan};
use crate::core::dtype::{Category, DType};
use crate::core::error::{Error, Result};
use crate::core::iter::{
    binary_into_par, binary_kernel, binary_kernel_dyn, broadcast_shape_of, operand_as, unary_into,
    ElemFn2, Input,
};
use crate::core::promote::{promote_types, result_type};
use crate::core::scalar::Scalar;
use crate::core::tensor::{broadcast_shapes, Tensor};
use std::borrow::Cow;

/// The binary arithmetic ops sharing one driver.
#[derive(Clone, Copy, Debug, PartialEq)]
enum BinOp {
    Add(Scalar),
    Sub(Scalar),
    Mul,
    TrueDiv,
    DivTrunc,
    DivFloor,
    Remainder,
    Pow,
    Maximum,
    Minimum,
}

fn is_one(s: Scalar) -> bool {
    matches!(s, Scalar::Int(1) | Scalar::Bool(true)) || s == Scalar::Float(1.0)
}

/// Run `op` in `dtype` into `out` (dtype `dtype`): `a` and `b` broadcast to `out` and are
/// converted to `dtype` first (0-dim ones read as values: see `Input`).
fn run_binop(op: BinOp, dtype: DType, out: &Tensor, a: &Tensor, b: &Tensor) -> Result<()> {
    crate::dispatch!(dtype, T => run_binop_typed::<T>(op, out, &Input::of(a)?, &Input::of(b)?))
}

fn run_binop_typed<T: Arith>(
    op: BinOp,
    out: &Tensor,
    a: &Input<'_, T>,
    b: &Input<'_, T>,
) -> Result<()> {
    let int_division = matches!(op, BinOp::DivTrunc | BinOp::DivFloor | BinOp::Remainder);
    if int_division && T::DTYPE.is_integral() && out.numel() > 0 && b.any_zero() {
        // torch checks each divisor inside its integer kernels: TORCH_CHECK(b != 0, ...).
        return Err(Error::runtime("ZeroDivisionError"));
    }
    match op {
        BinOp::Add(alpha) if is_one(alpha) => binary_into_par(out, a, b, |x: T, y: T| x.wadd(y)),
        // One kernel serves `add` with alpha and every `sub`: `x + (-alpha)·y` is bit-identical
        // to `x - y` for alpha 1 (negation and multiplication by -1 are exact, wrapping
        // included), so sub needs no kernel of its own (each is ~10 KB per dtype of the wheel).
        BinOp::Add(alpha) | BinOp::Sub(alpha) => {
            let alpha = if matches!(op, BinOp::Sub(_)) {
                // torch: sub is add with -alpha (the negated scalar is what gets range-checked).
                match alpha {
                    Scalar::Int(i) => Scalar::Int(i.wrapping_neg()),
                    Scalar::Float(f) => Scalar::Float(-f),
                    Scalar::Bool(_) => {
                        return Err(Error::runtime("torch boolean negative is not supported."))
                    }
                }
            } else {
                alpha
            };
            let al: T = alpha.to_checked::<T>()?;
            binary_into_par(out, a, b, move |x: T, y: T| x.wadd(al.wmul(y)))
        }
        BinOp::Mul => binary_into_par(out, a, b, |x: T, y: T| x.wmul(y)),
        BinOp::TrueDiv => binary_into_par(out, a, b, |x: T, y: T| x.true_div(y)),
        BinOp::DivTrunc => binary_into_par_dyn(out, a, b, &|x: T, y: T| x.div_trunc(y)),
        BinOp::DivFloor => binary_into_par_dyn(out, a, b, &|x: T, y: T| x.div_floor(y)),
        BinOp::Remainder => binary_into_par_dyn(out, a, b, &|x: T, y: T| x.rem_floor(y)),
        BinOp::Pow => binary_into_par_dyn(out, a, b, &|x: T, y: T| x.pow_(y)),
        BinOp::Maximum => binary_into_par(out, a, b, |x: T, y: T| x.max_nan(y)),
        BinOp::Minimum => binary_into_par(out, a, b, |x: T, y: T| x.min_nan(y)),
    }
}

/// `binary_into_par` with the element function behind `dyn`: one kernel per dtype shared by the
/// ops whose element function is costly anyway (integer division with its zero and sign
/// fix-ups, `floor_divide`, `remainder`, `pow`), instead of one kernel per op and dtype. The
/// cheap, vectorisable ops (add, sub, mul, true division, maximum, minimum) keep their own.
#[inline(never)]
fn binary_into_par_dyn<T: Arith>(
    out: &Tensor,
    a: &Input<'_, T>,
    b: &Input<'_, T>,
    f: &(dyn ElemFn2<T, T> + Sync),
) -> Result<()> {
    binary_into_par(out, a, b, |x, y| f.apply2(x, y))
}

/// `result_type(&[a, b])`, with the common cases first: equal dtypes promote to themselves
/// whatever their categories or weakness, and a tensor with dimensions against a wrapped number
/// (`t + 2.0`) keeps its dtype unless the number's category is higher (then the number counts
/// with its default dtype: int64, float32) — `result_type`'s tier rule for these two operands.
/// Two wrapped numbers (`add(2.5, 1.5)`) take the full rule: float32, as torch.
fn binary_result_type(a: &Tensor, b: &Tensor) -> DType {
    if a.dtype() == b.dtype() && !(a.is_wrapped_number() && b.is_wrapped_number()) {
        return a.dtype();
    }
    let weak_against = |t: &Tensor, w: &Tensor| {
        let wd = match w.dtype().category() {
            Category::Floating => DType::DEFAULT_FLOAT,
            Category::Integral => DType::Int64,
            Category::Bool => DType::Bool,
        };
        if wd.category() > t.dtype().category() {
            promote_types(t.dtype(), wd)
        } else {
            t.dtype()
        }
    };
    if b.is_wrapped_number() && a.dim() > 0 {
        weak_against(a, b)
    } else if a.is_wrapped_number() && b.dim() > 0 {
        weak_against(b, a)
    } else {
        result_type(&[a, b])
    }
}

/// Result dtype of a binary float op: the promoted dtype, or float32 for ints and bools.
fn float_result_type(a: &Tensor, b: &Tensor) -> DType {
    let d = result_type(&[a, b]);
    if d.is_floating_point() {
        d
    } else {
        DType::DEFAULT_FLOAT
    }
}

/// The plan of a binary arithmetic op (see Note [One kernel per op]): its kernel runs `op` in
/// `dtype` into an output of that dtype (`run_binop`, which handles an output that is exactly
/// an input, and splits large loops across threads).
#[inline(always)]
fn binop_plan<'a>(
    op: BinOp,
    dtype: DType,
    shape: Cow<'a, [usize]>,
    a: &'a Tensor,
    b: &'a Tensor,
) -> Plan<'a, impl Kernel + 'a> {
    Plan::new(shape, dtype, [Some(a), Some(b), None], move |out, _| {
        run_binop(op, dtype, out, a, b)
    })
}

/// The plan of a binary op of `a` and `b` (their broadcast shape) with result dtype `dtype`
/// and `kernel` (which typically runs `iter::binary_kernel`).
#[inline(always)]
pub(crate) fn binary_plan<'a>(
    a: &'a Tensor,
    b: &'a Tensor,
    dtype: DType,
    kernel: impl Kernel + 'a,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    Ok(Plan::new(
        broadcast_shape_of(a, b)?,
        dtype,
        [Some(a), Some(b), None],
        kernel,
    ))
}

/// torch's `alpha_check` for add/sub with result dtype `dtype`.
fn alpha_check(dtype: DType, alpha: Scalar) -> Result<()> {
    if matches!(alpha, Scalar::Bool(_)) && dtype != DType::Bool {
        return Err(Error::runtime(
            "Boolean alpha only supported for Boolean results.",
        ));
    }
    if !dtype.is_floating_point() && alpha.is_floating_point() {
        return Err(Error::runtime(
            "For integral input tensors, argument alpha must not be a floating point number.",
        ));
    }
    Ok(())
}

/// torch's `sub_check`: no bool operand (tensor or Python bool) for subtraction.
fn sub_check(input: &Tensor, other: &Tensor) -> Result<()> {
    let (a, b) = (input.dtype() == DType::Bool, other.dtype() == DType::Bool);
    // NotImplementedError, as torch (TORCH_CHECK_NOT_IMPLEMENTED).
    if a && b {
        return Err(Error::not_implemented(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.",
        ));
    }
    if a || b {
        return Err(Error::not_implemented(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
        ));
    }
    Ok(())
}

/// The op for a `div` rounding mode, or torch's error for an unknown mode.
fn div_op(rounding_mode: Option<&str>) -> Result<BinOp> {
    match rounding_mode {
        None => Ok(BinOp::TrueDiv),
        Some("trunc") => Ok(BinOp::DivTrunc),
        Some("floor") => Ok(BinOp::DivFloor),
        Some(other) => Err(Error::runtime(format!(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{other}'"
        ))),
    }
}

/// The compute dtype of `div` with this op, after torch's bool check for the rounding kernels.
fn div_dtype(op: BinOp, a: &Tensor, b: &Tensor) -> Result<DType> {
    match op {
        BinOp::TrueDiv => Ok(float_result_type(a, b)),
        BinOp::DivTrunc => {
            let d = result_type(&[a, b]);
            reject_bool(d, "div_trunc_cpu")?;
            Ok(d)
        }
        _ => {
            let d = result_type(&[a, b]);
            reject_bool(d, "div_floor_cpu")?;
            Ok(d)
        }
    }
}

// ----- arithmetic ops -------------------------------------------------------------------------

/// `add(input, other, *, alpha=1)`: `input + alpha * other`, broadcast, in the promoted dtype
/// (`result_type`; Python numbers are weak). Two bools give their logical or. Integers wrap.
/// Errors (RuntimeError): shapes that do not broadcast; a floating `alpha` with an integral or
/// bool result; a bool `alpha` with a non-bool result; an `alpha` outside the result dtype's
/// range. Mirrors `torch.add`.
pub fn add(input: &Tensor, other: &Tensor, alpha: Scalar) -> Result<Tensor> {
    add_plan(input, other, alpha)?.run()
}

/// `add` checked and ready to run into a new tensor or an `out=` tensor (see Note [One kernel per op]).
#[inline]
pub fn add_plan<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
    alpha: Scalar,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let shape = broadcast_shape_of(input, other)?;
    let dtype = binary_result_type(input, other);
    alpha_check(dtype, alpha)?;
    Ok(binop_plan(BinOp::Add(alpha), dtype, shape, input, other))
}

/// `sub(input, other, *, alpha=1)`: `input - alpha * other`, broadcast, in the promoted dtype.
/// Errors as `add`, plus torch's RuntimeError for any bool operand (tensor or Python bool).
/// Mirrors `torch.sub`.
pub fn sub(input: &Tensor, other: &Tensor, alpha: Scalar) -> Result<Tensor> {
    sub_plan(input, other, alpha)?.run()
}

/// `sub` checked and ready to run (see Note [One kernel per op]).
#[inline]
pub fn sub_plan<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
    alpha: Scalar,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    sub_check(input, other)?;
    let shape = broadcast_shape_of(input, other)?;
    let dtype = binary_result_type(input, other);
    alpha_check(dtype, alpha)?;
    Ok(binop_plan(BinOp::Sub(alpha), dtype, shape, input, other))
}

/// `mul(input, other)`: the elementwise product, broadcast, in the promoted dtype (bools: and;
/// integers wrap). RuntimeError when the shapes do not broadcast. Mirrors `torch.mul`.
pub fn mul(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    mul_plan(input, other)?.run()
}

/// `mul` checked and ready to run (see Note [One kernel per op]).
#[inline]
pub fn mul_plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<Plan<'a, impl Kernel + 'a>> {
    let shape = broadcast_shape_of(input, other)?;
    let dtype = binary_result_type(input, other);
    Ok(binop_plan(BinOp::Mul, dtype, shape, input, other))
}

/// `div(input, other, *, rounding_mode=None)`, broadcast. `None`: true division in the promoted
/// dtype, or float32 when that is integral/bool. `"trunc"` / `"floor"`: the quotient rounded
/// toward zero / -inf, in the promoted dtype. Errors: an unknown mode (RuntimeError, torch's
/// text); integer division by zero with a rounding mode (RuntimeError "ZeroDivisionError");
/// a rounding mode on two bools (NotImplementedError, as torch's kernels). Mirrors `torch.div`.
pub fn div(input: &Tensor, other: &Tensor, rounding_mode: Option<&str>) -> Result<Tensor> {
    div_plan(input, other, rounding_mode)?.run()
}

/// `div` checked and ready to run (see Note [One kernel per op]).
#[inline]
pub fn div_plan<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
    rounding_mode: Option<&str>,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let op = div_op(rounding_mode)?;
    let shape = broadcast_shape_of(input, other)?;
    let dtype = div_dtype(op, input, other)?;
    Ok(binop_plan(op, dtype, shape, input, other))
}

/// `remainder(input, other)` (Python's `%`): `input - floor(input / other) * other`, the result
/// having the sign of `other`; promoted dtype, broadcast. Integer division by zero is a
/// RuntimeError "ZeroDivisionError"; two bools a NotImplementedError. Mirrors `torch.remainder`.
pub fn remainder(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    remainder_plan(input, other)?.run()
}

/// `remainder` checked and ready to run (see Note [One kernel per op]).
#[inline]
pub fn remainder_plan<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let shape = broadcast_shape_of(input, other)?;
    let dtype = binary_result_type(input, other);
    reject_bool(dtype, "remainder_cpu")?;
    Ok(binop_plan(BinOp::Remainder, dtype, shape, input, other))
}

/// `floor_divide(input, other)` (Python's `//`): `div(input, other, rounding_mode="floor")`.
/// Mirrors `torch.floor_divide`.
pub fn floor_divide(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    div(input, other, Some("floor"))
}

/// `floor_divide` checked and ready to run (see Note [One kernel per op]).
#[inline]
pub fn floor_divide_plan<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    div_plan(input, other, Some("floor"))
}

/// `pow(input, exponent)`: `input ** exponent`, broadcast, in the promoted dtype. Integer
/// results use exact repeated multiplication (wrapping); a negative integer exponent *tensor*
/// gives 0 except for bases ±1 (torch's `powi`), while a negative Python int exponent with an
/// integral or bool `input` is torch's RuntimeError "Integers to negative integer powers are not
/// allowed.", and a Python int exponent must fit the integer dtype. Float results with a Python
/// number exponent use torch's shortcuts (`x*x` for 2, `sqrt` for 0.5, ...). Bool results exist
/// only for a Python bool/0/1 exponent or base 1 (torch's fill/copy shortcuts); otherwise two
/// bools are a NotImplementedError. Mirrors `torch.pow`.
pub fn pow(input: &Tensor, exponent: &Tensor) -> Result<Tensor> {
    pow_plan(input, exponent)?.run()
}

/// How `pow` computes, after torch's shortcuts.
#[derive(Clone, Copy)]
enum PowKind {
    /// Every element is 1 (a base of 1, an exponent of 0).
    Ones,
    /// `input` itself (an exponent of 1).
    Copy,
    /// A Python-number exponent.
    Scalar(Scalar),
    /// Elementwise, in the result dtype.
    General,
}

/// `pow` checked and ready to run (Note [One kernel per op]).
pub fn pow_plan<'a>(input: &'a Tensor, exponent: &'a Tensor) -> Result<Plan<'a, impl Kernel + 'a>> {
    if exponent.is_wrapped_number()
        && !input.dtype().is_floating_point()
        && exponent.dtype().category() == Category::Integral
        && exponent.item()?.to_i64() < 0
    {
        return Err(Error::runtime(
            "Integers to negative integer powers are not allowed.",
        ));
    }
    let shape = broadcast_shapes(input.sizes(), exponent.sizes())?;
    let dtype = result_type(&[input, exponent]);
    // torch's pow(Scalar base, Tensor exp): a base equal to 1 fills ones (`Scalar::equal`
    // never holds for a bool, so `True ** t` takes the general path).
    let kind = if input.is_wrapped_number()
        && input.dtype() != DType::Bool
        && input.item()?.to_f64() == 1.0
    {
        PowKind::Ones
    } else if exponent.is_wrapped_number() {
        // torch's pow(Tensor, Scalar): exponent 0 fills ones, exponent 1 copies.
        let e = exponent.item()?;
        if e.to_f64() == 0.0 {
            PowKind::Ones
        } else if e.to_f64() == 1.0 {
            PowKind::Copy
        } else {
            reject_bool(dtype, "pow")?;
            if !dtype.is_floating_point() {
                // torch converts the exponent with `Scalar::to<scalar_t>()` (range-checked).
                crate::dispatch!(dtype, T => { e.to_checked::<T>()?; });
            }
            PowKind::Scalar(e)
        }
    } else {
        reject_bool(dtype, "pow")?;
        PowKind::General
    };
    Ok(Plan::new(
        Cow::Owned(shape),
        dtype,
        [Some(input), Some(exponent), None],
        move |out, fresh| match kind {
            PowKind::Ones => out.fill_(Scalar::Int(1)),
            PowKind::Copy => out.copy_from(input),
            PowKind::Scalar(e) => {
                let a = operand_as(input, dtype)?;
                match dtype {
                    DType::Float32 => {
                        pow_float_scalar::<f32>(out, &a, fresh, e.to_f64(), f32::sqrt)
                    }
                    DType::Float64 => {
                        pow_float_scalar::<f64>(out, &a, fresh, e.to_f64(), f64::sqrt)
                    }
                    d => crate::dispatch!(d, T => {
                        let et: T = e.to_checked::<T>()?;
                        unary_into::<T, T>(out, &a, fresh, move |x: T| x.pow_(et))
                    }),
                }
            }
            PowKind::General => run_binop(BinOp::Pow, dtype, out, input, exponent),
        },
    ))
}

/// `a ** e` into `out` for a float tensor `a` and a Python-number exponent, with torch's
/// shortcuts (`pow_tensor_scalar_kernel`): 2 → `x*x`, 3 → `x*x*x`, -2 → `1/(x*x)`, 0.5 →
/// `sqrt`, -0.5 → `1/sqrt`, -1 → `1/x`; otherwise `pow` in double precision (C++'s
/// `std::pow(scalar_t, double)`), rounded to `T`.
fn pow_float_scalar<T: Arith>(
    out: &Tensor,
    a: &Tensor,
    fresh: bool,
    e: f64,
    sqrt: impl Fn(T) -> T,
) -> Result<()> {
    let one = T::from_f64(1.0);
    if e == 2.0 {
        unary_into::<T, T>(out, a, fresh, |x: T| x.wmul(x))
    } else if e == 3.0 {
        unary_into::<T, T>(out, a, fresh, |x: T| x.wmul(x).wmul(x))
    } else if e == -2.0 {
        unary_into::<T, T>(out, a, fresh, move |x: T| one.true_div(x.wmul(x)))
    } else if e == 0.5 {
        unary_into::<T, T>(out, a, fresh, sqrt)
    } else if e == -0.5 {
        unary_into::<T, T>(out, a, fresh, move |x: T| one.true_div(sqrt(x)))
    } else if e == -1.0 {
        unary_into::<T, T>(out, a, fresh, move |x: T| one.true_div(x))
    } else {
        unary_into::<T, T>(out, a, fresh, move |x: T| T::from_f64(x.to_f64().powf(e)))
    }
}

/// `maximum(input, other)`: the elementwise larger value, broadcast, promoted dtype; NaN if
/// either is NaN. Mirrors `torch.maximum`.
pub fn maximum(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    maximum_plan(input, other)?.run()
}

/// `maximum` checked and ready to run (see Note [One kernel per op]).
#[inline]
pub fn maximum_plan<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let shape = broadcast_shape_of(input, other)?;
    let dtype = binary_result_type(input, other);
    Ok(binop_plan(BinOp::Maximum, dtype, shape, input, other))
}

/// `minimum(input, other)`: the elementwise smaller value, broadcast, promoted dtype; NaN if
/// either is NaN. Mirrors `torch.minimum`.
pub fn minimum(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    minimum_plan(input, other)?.run()
}

/// `minimum` checked and ready to run (see Note [One kernel per op]).
#[inline]
pub fn minimum_plan<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let shape = broadcast_shape_of(input, other)?;
    let dtype = binary_result_type(input, other);
    Ok(binop_plan(BinOp::Minimum, dtype, shape, input, other))
}

// ----- float and integer ops ------------------------------------------------------------------

/// `atan2(input, other)`: the angle of `(other, input)` elementwise, broadcast; the promoted
/// dtype, or float32 for integers and bools. Mirrors `torch.atan2`.
pub fn atan2(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    atan2_plan(input, other)?.run()
}

/// `atan2` checked and ready to run (Note [One kernel per op]).
pub fn atan2_plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<Plan<'a, impl Kernel + 'a>> {
    let dtype = float_result_type(input, other);
    binary_plan(input, other, dtype, move |out, fresh| match dtype {
        DType::Float64 => binary_kernel::<f64, f64>(out, input, other, fresh, f64::atan2),
        _ => binary_kernel::<f32, f32>(out, input, other, fresh, f32::atan2),
    })
}

/// `hypot(input, other)`: `sqrt(input^2 + other^2)` without overflow, broadcast, promoted
/// dtype; floats only (`"hypot_cpu" not implemented for 'Long'` otherwise). Mirrors
/// `torch.hypot`.
pub fn hypot(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    hypot_plan(input, other)?.run()
}

/// `hypot` checked and ready to run (Note [One kernel per op]).
pub fn hypot_plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<Plan<'a, impl Kernel + 'a>> {
    let dtype = result_type(&[input, other]);
    if !dtype.is_floating_point() {
        return Err(not_implemented("hypot_cpu", dtype));
    }
    binary_plan(input, other, dtype, move |out, fresh| match dtype {
        DType::Float64 => binary_kernel::<f64, f64>(out, input, other, fresh, f64::hypot),
        _ => binary_kernel::<f32, f32>(out, input, other, fresh, f32::hypot),
    })
}

/// The plan of a float binary op computed by `f32f`/`f64f` in the promoted float dtype
/// (float32 for integer and bool operands).
#[inline(always)]
pub(super) fn float_binary_plan<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
    f32f: impl Fn(f32, f32) -> f32 + Sync + 'a,
    f64f: impl Fn(f64, f64) -> f64 + Sync + 'a,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let dtype = float_result_type(input, other);
    binary_plan(input, other, dtype, move |out, fresh| match dtype {
        DType::Float64 => binary_kernel::<f64, f64>(out, input, other, fresh, &f64f),
        _ => binary_kernel::<f32, f32>(out, input, other, fresh, &f32f),
    })
}

/// The plan of a binary op defined for float dtypes only (`"{kernel}" not implemented for
/// 'Long'` otherwise, as torch), in the promoted dtype.
#[inline(always)]
fn floats_only_binary_plan<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
    kernel: &str,
    f32f: impl Fn(f32, f32) -> f32 + Sync + 'a,
    f64f: impl Fn(f64, f64) -> f64 + Sync + 'a,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let dtype = result_type(&[input, other]);
    if !dtype.is_floating_point() {
        return Err(not_implemented(kernel, dtype));
    }
    binary_plan(input, other, dtype, move |out, fresh| match dtype {
        DType::Float64 => binary_kernel::<f64, f64>(out, input, other, fresh, &f64f),
        _ => binary_kernel::<f32, f32>(out, input, other, fresh, &f32f),
    })
}

/// `float_binary_plan` for the cold ops (special functions, whose element functions cost more
/// than an indirect call): one shared kernel per dtype (`binary_kernel_dyn`).
#[inline(always)]
pub(super) fn float_binary_plan_dyn<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
    f32f: impl Fn(f32, f32) -> f32 + Sync + 'a,
    f64f: impl Fn(f64, f64) -> f64 + Sync + 'a,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let dtype = float_result_type(input, other);
    binary_plan(input, other, dtype, move |out, fresh| match dtype {
        DType::Float64 => binary_kernel_dyn::<f64, f64>(out, input, other, fresh, &f64f),
        _ => binary_kernel_dyn::<f32, f32>(out, input, other, fresh, &f32f),
    })
}

/// `floats_only_binary_plan` for the cold ops: one shared kernel per dtype (`binary_kernel_dyn`).
#[inline(always)]
fn floats_only_binary_plan_dyn<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
    kernel: &str,
    f32f: impl Fn(f32, f32) -> f32 + Sync + 'a,
    f64f: impl Fn(f64, f64) -> f64 + Sync + 'a,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let dtype = result_type(&[input, other]);
    if !dtype.is_floating_point() {
        return Err(not_implemented(kernel, dtype));
    }
    binary_plan(input, other, dtype, move |out, fresh| match dtype {
        DType::Float64 => binary_kernel_dyn::<f64, f64>(out, input, other, fresh, &f64f),
        _ => binary_kernel_dyn::<f32, f32>(out, input, other, fresh, &f32f),
    })
}

/// `xlogy(input, other)`: `input * log(other)`, 0 where `input` is 0 (unless `other` is NaN),
/// broadcast; the promoted float dtype (float32 for integers and bools). Mirrors `torch.xlogy`
/// (`torch.special.xlogy`).
pub fn xlogy(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    xlogy_plan(input, other)?.run()
}

/// `xlogy` checked and ready to run (Note [One kernel per op]).
pub fn xlogy_plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<Plan<'a, impl Kernel + 'a>> {
    fn f<T: num_like::Float>(x: T, y: T) -> T {
        if y.is_nan() {
            y
        } else if x == T::zero() {
            T::zero()
        } else {
            x * y.ln()
        }
    }
    float_binary_plan_dyn(input, other, f::<f32>, f::<f64>)
}

/// `special.xlog1py(input, other)`: `input * log1p(other)`, 0 where `input` is 0 (unless
/// `other` is NaN), broadcast; the promoted float dtype. Mirrors `torch.special.xlog1py`.
pub fn special_xlog1py(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    special_xlog1py_plan(input, other)?.run()
}

/// `special_xlog1py` checked and ready to run (Note [One kernel per op]).
pub fn special_xlog1py_plan<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    float_binary_plan_dyn(
        input,
        other,
        |x: f32, y: f32| super::special::xlog1py(x as f64, y as f64) as f32,
        super::special::xlog1py,
    )
}

/// `special.zeta(input, other)`: the Hurwitz zeta function `sum_k (k + other)^(-input)`,
/// broadcast; the promoted float dtype. Mirrors `torch.special.zeta`.
pub fn special_zeta(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    special_zeta_plan(input, other)?.run()
}

/// `special_zeta` checked and ready to run (Note [One kernel per op]).
pub fn special_zeta_plan<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    float_binary_plan_dyn(
        input,
        other,
        |x: f32, q: f32| super::special::zeta(x as f64, q as f64) as f32,
        super::special::zeta,
    )
}

/// `igamma(input, other)`: the regularized lower incomplete gamma function P(input, other)
/// (`special::igamma`), broadcast, in the promoted dtype, which must be floating
/// (NotImplementedError `"igamma_cpu" not implemented for 'Long'`). Mirrors `torch.igamma` and
/// `torch.special.gammainc`.
pub fn igamma(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    igamma_plan(input, other)?.run()
}

/// `igamma` checked and ready to run (Note [One kernel per op]).
pub fn igamma_plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<Plan<'a, impl Kernel + 'a>> {
    floats_only_binary_plan_dyn(
        input,
        other,
        "igamma_cpu",
        |a: f32, x: f32| super::special::igamma(a as f64, x as f64) as f32,
        super::special::igamma,
    )
}

/// `igammac(input, other)`: the regularized upper incomplete gamma function Q(input, other) =
/// 1 - P (`special::igammac`); as `igamma` (`"igammac_cpu" not implemented for 'Long'`).
/// Mirrors `torch.igammac` and `torch.special.gammaincc`.
pub fn igammac(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    igammac_plan(input, other)?.run()
}

/// `igammac` checked and ready to run (Note [One kernel per op]).
pub fn igammac_plan<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    floats_only_binary_plan_dyn(
        input,
        other,
        "igammac_cpu",
        |a: f32, x: f32| super::special::igammac(a as f64, x as f64) as f32,
        super::special::igammac,
    )
}

/// `special.gammainc(input, other)`: `igamma`. Mirrors `torch.special.gammainc`.
pub fn special_gammainc(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    igamma(input, other)
}

/// `special_gammainc` checked and ready to run (Note [One kernel per op]).
pub fn special_gammainc_plan<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    igamma_plan(input, other)
}

/// `special.gammaincc(input, other)`: `igammac`. Mirrors `torch.special.gammaincc`.
pub fn special_gammaincc(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    igammac(input, other)
}

/// `special_gammaincc` checked and ready to run (Note [One kernel per op]).
pub fn special_gammaincc_plan<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    igammac_plan(input, other)
}

/// `copysign(input, other)`: `|input|` with the sign (bit) of `other`, broadcast; the promoted
/// float dtype (float32 for integers and bools). Mirrors `torch.copysign`.
pub fn copysign(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    copysign_plan(input, other)?.run()
}

/// `copysign` checked and ready to run (Note [One kernel per op]).
pub fn copysign_plan<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    float_binary_plan(input, other, f32::copysign, f64::copysign)
}

/// `logaddexp(input, other)`: `log(exp(input) + exp(other))` without overflow, broadcast;
/// floats only (`"logaddexp_cpu" not implemented for 'Long'`). Mirrors `torch.logaddexp`.
pub fn logaddexp(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    logaddexp_plan(input, other)?.run()
}

/// `logaddexp` checked and ready to run (Note [One kernel per op]).
pub fn logaddexp_plan<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    fn f<T: num_like::Float>(a: T, b: T) -> T {
        if a.is_infinite() && a == b {
            // Both inf or both -inf: the formula below would give NaN (inf - inf).
            a
        } else {
            let m = if a > b { a } else { b };
            let d = if a > b { b - a } else { a - b };
            if m.is_nan() || d.is_nan() {
                a + b
            } else {
                m + d.exp().ln_1p()
            }
        }
    }
    floats_only_binary_plan_dyn(input, other, "logaddexp_cpu", f::<f32>, f::<f64>)
}

/// `logaddexp2(input, other)`: `log2(2^input + 2^other)` without overflow, broadcast; floats
/// only (`"logaddexp2_cpu" not implemented for 'Long'`). Mirrors `torch.logaddexp2`.
pub fn logaddexp2(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    logaddexp2_plan(input, other)?.run()
}

/// `logaddexp2` checked and ready to run (Note [One kernel per op]).
pub fn logaddexp2_plan<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    fn f<T: num_like::Float>(a: T, b: T) -> T {
        if a.is_infinite() && a == b {
            a
        } else {
            let m = if a > b { a } else { b };
            let d = if a > b { b - a } else { a - b };
            if m.is_nan() || d.is_nan() {
                a + b
            } else {
                m + d.exp2().ln_1p() / T::ln2()
            }
        }
    }
    floats_only_binary_plan_dyn(input, other, "logaddexp2_cpu", f::<f32>, f::<f64>)
}

/// `fmax(input, other)`: the elementwise maximum, ignoring NaN (NaN only where both are NaN),
/// broadcast, in the promoted dtype (integers and bool too). Mirrors `torch.fmax`.
pub fn fmax(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    fmax_plan(input, other)?.run()
}

/// `fmax` checked and ready to run (Note [One kernel per op]).
pub fn fmax_plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<Plan<'a, impl Kernel + 'a>> {
    fmaxmin_plan(input, other, true)
}

/// `fmin(input, other)`: the elementwise minimum, ignoring NaN (NaN only where both are NaN),
/// broadcast, in the promoted dtype (integers and bool too). Mirrors `torch.fmin`.
pub fn fmin(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    fmin_plan(input, other)?.run()
}

/// `fmin` checked and ready to run (Note [One kernel per op]).
pub fn fmin_plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<Plan<'a, impl Kernel + 'a>> {
    fmaxmin_plan(input, other, false)
}

// The bool arm compares bools with `<` as the other dtypes do.
#[allow(clippy::bool_comparison)]
fn fmaxmin_plan<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
    max: bool,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let dtype = binary_result_type(input, other);
    binary_plan(input, other, dtype, move |out, fresh| match dtype {
        // f64::max/min return the other operand when one is NaN: fmax/fmin exactly.
        DType::Float64 => {
            binary_kernel::<f64, f64>(out, input, other, fresh, move |a: f64, b: f64| {
                if max {
                    a.max(b)
                } else {
                    a.min(b)
                }
            })
        }
        DType::Float32 => {
            binary_kernel::<f32, f32>(out, input, other, fresh, move |a: f32, b: f32| {
                if max {
                    a.max(b)
                } else {
                    a.min(b)
                }
            })
        }
        _ => {
            crate::dispatch!(dtype, T => binary_kernel::<T, T>(out, input, other, fresh, move |a: T, b: T| {
                if (a < b) == max { b } else { a }
            }))
        }
    })
}

/// The float operations the generic float kernels above need (f32 and f64).
mod num_like {
    pub trait Float:
        Copy
        + PartialOrd
        + std::ops::Add<Output = Self>
        + std::ops::Sub<Output = Self>
        + std::ops::Mul<Output = Self>
        + std::ops::Div<Output = Self>
    {
        fn zero() -> Self;
        fn ln2() -> Self;
        fn is_nan(self) -> bool;
        fn is_infinite(self) -> bool;
        fn ln(self) -> Self;
        fn exp(self) -> Self;
        fn exp2(self) -> Self;
        fn ln_1p(self) -> Self;
    }
    macro_rules! float_impl {
        ($t:ident) => {
            impl Float for $t {
                fn zero() -> Self {
                    0.0
                }
                fn ln2() -> Self {
                    std::$t::consts::LN_2
                }
                fn is_nan(self) -> bool {
                    $t::is_nan(self)
                }
                fn is_infinite(self) -> bool {
                    $t::is_infinite(self)
                }
                fn ln(self) -> Self {
                    $t::ln(self)
                }
                fn exp(self) -> Self {
                    $t::exp(self)
                }
                fn exp2(self) -> Self {
                    $t::exp2(self)
                }
                fn ln_1p(self) -> Self {
                    $t::ln_1p(self)
                }
            }
        };
    }
    float_impl!(f32);
    float_impl!(f64);
}

/// `true_divide(input, other)`: `div(input, other)` (true division; integers give float32).
/// Mirrors `torch.true_divide`.
pub fn true_divide(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    div(input, other, None)
}

/// `true_divide` checked and ready to run (Note [One kernel per op]).
pub fn true_divide_plan<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    div_plan(input, other, None)
}

/// `rsub(input, other, alpha=1)`: `other - alpha * input` (sub with the operands swapped).
/// Mirrors `torch.rsub`.
pub fn rsub(input: &Tensor, other: &Tensor, alpha: Scalar) -> Result<Tensor> {
    sub(other, input, alpha)
}

/// `addcmul(input, tensor1, tensor2, *, value=1)`: `input + value * tensor1 * tensor2`, all
/// three broadcast, in their promoted dtype (NotImplementedError `"addcmul_cpu_out" not
/// implemented for 'Bool'`). Mirrors `torch.addcmul` (and `Tensor.addcmul_`, which optimizers
/// use).
pub fn addcmul(
    input: &Tensor,
    tensor1: &Tensor,
    tensor2: &Tensor,
    value: Scalar,
) -> Result<Tensor> {
    addcmul_plan(input, tensor1, tensor2, value)?.run()
}

/// `addcmul` checked and ready to run (Note [One kernel per op]).
pub fn addcmul_plan<'a>(
    input: &'a Tensor,
    tensor1: &'a Tensor,
    tensor2: &'a Tensor,
    value: Scalar,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let dtype = result_type(&[input, tensor1, tensor2]);
    if dtype == DType::Bool {
        return Err(not_implemented("addcmul_cpu_out", dtype));
    }
    addc_plan(input, tensor1, tensor2, dtype, move |out, a, b, c| {
        crate::dispatch!(dtype, T => {
            let v = if dtype.is_floating_point() {
                <T as crate::core::dtype::Element>::from_f64(value.to_f64())
            } else {
                <T as crate::core::dtype::Element>::from_i64(value.to_i64())
            };
            ternary_into::<T>(out, a, b, c, move |x: T, y: T, z: T| x.wadd(v.wmul(y.wmul(z))))
        })
    })
}

/// `addcdiv(input, tensor1, tensor2, *, value=1)`: `input + value * tensor1 / tensor2`, all
/// three broadcast, in their promoted dtype; floats only (torch's RuntimeError "Integer division
/// with addcdiv is no longer supported, ..." for integer and bool operands). Mirrors
/// `torch.addcdiv` (and `Tensor.addcdiv_`, which optimizers use).
pub fn addcdiv(
    input: &Tensor,
    tensor1: &Tensor,
    tensor2: &Tensor,
    value: Scalar,
) -> Result<Tensor> {
    addcdiv_plan(input, tensor1, tensor2, value)?.run()
}

/// `addcdiv` checked and ready to run (Note [One kernel per op]).
pub fn addcdiv_plan<'a>(
    input: &'a Tensor,
    tensor1: &'a Tensor,
    tensor2: &'a Tensor,
    value: Scalar,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    if !tensor1.dtype().is_floating_point() && !tensor2.dtype().is_floating_point() {
        return Err(Error::runtime(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all dtypes.",
        ));
    }
    let dtype = result_type(&[input, tensor1, tensor2]);
    if !dtype.is_floating_point() {
        return Err(not_implemented("addcdiv_cpu_out", dtype));
    }
    addc_plan(
        input,
        tensor1,
        tensor2,
        dtype,
        move |out, a, b, c| match dtype {
            DType::Float64 => {
                let v = value.to_f64();
                ternary_into::<f64>(out, a, b, c, move |x: f64, y: f64, z: f64| x + v * (y / z))
            }
            _ => {
                let v = value.to_f64() as f32;
                ternary_into::<f32>(out, a, b, c, move |x: f32, y: f32, z: f32| x + v * (y / z))
            }
        },
    )
}

/// The plan of `addcmul`/`addcdiv`: the broadcast shape of the three operands, dtype `dtype`;
/// the kernel gets the operands converted to `dtype` (copies only where they differ).
fn addc_plan<'a>(
    input: &'a Tensor,
    t1: &'a Tensor,
    t2: &'a Tensor,
    dtype: DType,
    kernel: impl Fn(&Tensor, &Tensor, &Tensor, &Tensor) -> Result<()> + 'a,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let shape = broadcast_shapes(&broadcast_shapes(input.sizes(), t1.sizes())?, t2.sizes())?;
    Ok(Plan::new(
        Cow::Owned(shape),
        dtype,
        [Some(input), Some(t1), Some(t2)],
        move |out: &Tensor, _fresh: bool| {
            let conv = |t: &'a Tensor| -> Result<Cow<'a, Tensor>> {
                if t.dtype() == dtype {
                    Ok(Cow::Borrowed(t))
                } else {
                    Ok(Cow::Owned(t.to_dtype(dtype)?))
                }
            };
            let (a, b, c) = (conv(input)?, conv(t1)?, conv(t2)?);
            kernel(out, &a, &b, &c)
        },
    ))
}

/// `out = f(a, b, c)` elementwise, all three broadcast to `out` (dtype `T`, theirs). `out` may
/// be exactly one of them: each position is read before it is written.
fn ternary_into<T: Arith>(
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    c: &Tensor,
    f: impl Fn(T, T, T) -> T,
) -> Result<()> {
    let geometry = |t: &Tensor| -> Result<(*const T, Vec<isize>)> {
        Ok((
            t.data_ptr::<T>() as *const T,
            t.broadcast_strides(out.sizes())?,
        ))
    };
    let ((pa, sa), (pb, sb), (pc, sc)) = (geometry(a)?, geometry(b)?, geometry(c)?);
    let po = out.data_ptr::<T>();
    crate::core::iter::strided_for_each(
        out.sizes(),
        [out.strides(), &sa, &sb, &sc],
        |[o, x, y, z]| {
            // SAFETY: each offset comes from its tensor's own (broadcast) geometry over `out`'s
            // shape; every read of this position happens before its write.
            unsafe {
                *po.offset(o) = f(*pa.offset(x), *pb.offset(y), *pc.offset(z));
            }
        },
    );
    Ok(())
}

/// `fmod(input, other)`: C's `fmod`, the remainder with the sign of the dividend, broadcast, in
/// the promoted dtype (Python numbers are weak). Integer division by zero is a RuntimeError
/// "ZeroDivisionError"; bools are a NotImplementedError. Mirrors `torch.fmod`.
pub fn fmod(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    fmod_plan(input, other)?.run()
}

/// `fmod` checked and ready to run (Note [One kernel per op]).
pub fn fmod_plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<Plan<'a, impl Kernel + 'a>> {
    let dtype = result_type(&[input, other]);
    if dtype == DType::Bool {
        return Err(not_implemented("fmod_cpu", dtype));
    }
    binary_plan(input, other, dtype, move |out, fresh| {
        crate::dispatch!(dtype, T => {
            // torch checks each divisor inside its integer kernel, so only when there is work.
            if dtype.is_integral() && out.numel() > 0 && Input::<T>::of(other)?.any_zero() {
                return Err(Error::runtime("ZeroDivisionError"));
            }
            binary_kernel_dyn::<T, T>(out, input, other, fresh, &|x: T, y: T| x.fmod(y))
        })
    })
}

macro_rules! logical_ops {
    ($($(#[$doc:meta])* $name:ident, $plan:ident, $op:tt;)*) => {$(
        $(#[$doc])*
        pub fn $name(input: &Tensor, other: &Tensor) -> Result<Tensor> {
            $plan(input, other)?.run()
        }

        #[doc = concat!("`", stringify!($name), "` checked and ready to run (Note [One kernel per op]).")]
        pub fn $plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<Plan<'a, impl Kernel + 'a>> {
            binary_plan(input, other, DType::Bool, move |out, fresh| {
                binary_kernel::<bool, bool>(out, input, other, fresh, |x: bool, y: bool| x $op y)
            })
        }
    )*};
}

logical_ops! {
    /// `logical_and(input, other)`: bool tensor, both nonzero; any dtypes, broadcast.
    /// Mirrors `torch.logical_and`.
    logical_and, logical_and_plan, &;
    /// `logical_or(input, other)`: bool tensor, either nonzero; any dtypes, broadcast.
    /// Mirrors `torch.logical_or`.
    logical_or, logical_or_plan, |;
    /// `logical_xor(input, other)`: bool tensor, exactly one nonzero; any dtypes, broadcast.
    /// Mirrors `torch.logical_xor`.
    logical_xor, logical_xor_plan, ^;
}

macro_rules! integer_binary_ops {
    ($($(#[$doc:meta])* $name:ident, $plan:ident, $kernel:literal, $reject_bool:literal, $m:ident, $run:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(input: &Tensor, other: &Tensor) -> Result<Tensor> {
            $plan(input, other)?.run()
        }

        #[doc = concat!("`", stringify!($name), "` checked and ready to run (Note [One kernel per op]).")]
        pub fn $plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<Plan<'a, impl Kernel + 'a>> {
            let dtype = result_type(&[input, other]);
            if dtype.is_floating_point() || ($reject_bool && dtype == DType::Bool) {
                return Err(not_implemented($kernel, dtype));
            }
            binary_plan(input, other, dtype, move |out, fresh| {
                crate::dispatch!(dtype, T => $run::<T, T>(out, input, other, fresh, &|x: T, y: T| x.$m(y)))
            })
        }
    )*};
}

integer_binary_ops! {
    /// `bitwise_and(input, other)` (`&`): integers and bools, promoted dtype, broadcast. Floats
    /// are torch's NotImplementedError `"bitwise_and_cpu" not implemented for 'Float'`.
    /// Mirrors `torch.bitwise_and`.
    bitwise_and, bitwise_and_plan, "bitwise_and_cpu", false, band, binary_kernel;
    /// `bitwise_or(input, other)` (`|`): as `bitwise_and`. Mirrors `torch.bitwise_or`.
    bitwise_or, bitwise_or_plan, "bitwise_or_cpu", false, bor, binary_kernel;
    /// `bitwise_xor(input, other)` (`^`): as `bitwise_and`. Mirrors `torch.bitwise_xor`.
    bitwise_xor, bitwise_xor_plan, "bitwise_xor_cpu", false, bxor, binary_kernel;
    /// `bitwise_left_shift(input, other)` (`<<`): integers only, promoted dtype, broadcast; a
    /// negative shift or one of at least the bit width gives 0. Floats and bools are a
    /// NotImplementedError (`"lshift_cpu" not implemented for 'Float'`). Mirrors
    /// `torch.bitwise_left_shift`.
    bitwise_left_shift, bitwise_left_shift_plan, "lshift_cpu", true, shl, binary_kernel;
    /// `bitwise_right_shift(input, other)` (`>>`): arithmetic shift for signed integers, integers
    /// only; a negative or too large shift fills with the sign (0 for uint8). Mirrors
    /// `torch.bitwise_right_shift`.
    bitwise_right_shift, bitwise_right_shift_plan, "rshift_cpu", true, shr, binary_kernel;
}

// ----- lerp -----------------------------------------------------------------------------------

/// torch's check that `other` (named `what`) has `input`'s dtype, with its TypeMeta names.
fn same_dtype(input: &Tensor, other: &Tensor, what: &str) -> Result<()> {
    if input.dtype() != other.dtype() {
        return Err(Error::runtime(format!(
            "expected dtype {} for `{what}` but got dtype {}",
            input.dtype().type_meta_name(),
            other.dtype().type_meta_name()
        )));
    }
    Ok(())
}

/// `lerp(input, end, weight)` with a number weight: `input + weight * (end - input)`, computed
/// as torch does (`end - (end - input) * (1 - weight)` when `|weight| >= 0.5`), broadcast.
/// `end` must have `input`'s dtype (RuntimeError "expected dtype float for `end` but got dtype
/// double"); floats only (NotImplementedError `"lerp_kernel_scalar" not implemented for
/// 'Long'`). Mirrors `torch.lerp(Tensor, Tensor, Scalar)`.
pub fn lerp_scalar(input: &Tensor, end: &Tensor, weight: Scalar) -> Result<Tensor> {
    lerp_scalar_plan(input, end, weight)?.run()
}

/// `lerp_scalar` checked and ready to run (Note [One kernel per op]).
pub fn lerp_scalar_plan<'a>(
    input: &'a Tensor,
    end: &'a Tensor,
    weight: Scalar,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    same_dtype(input, end, "end")?;
    let dtype = input.dtype();
    if !dtype.is_floating_point() {
        return Err(not_implemented("lerp_kernel_scalar", dtype));
    }
    binary_plan(input, end, dtype, move |out, fresh| match dtype {
        DType::Float32 => {
            let w = weight.to_f64() as f32;
            binary_kernel::<f32, f32>(out, input, end, fresh, move |s: f32, e: f32| {
                if w.abs() < 0.5 {
                    s + w * (e - s)
                } else {
                    e - (e - s) * (1.0 - w)
                }
            })
        }
        _ => {
            let w = weight.to_f64();
            binary_kernel::<f64, f64>(out, input, end, fresh, move |s: f64, e: f64| {
                if w.abs() < 0.5 {
                    s + w * (e - s)
                } else {
                    e - (e - s) * (1.0 - w)
                }
            })
        }
    })
}

/// `lerp(input, end, weight)` with a tensor weight: as `lerp_scalar` elementwise, all three
/// broadcast; `end` and `weight` must have `input`'s dtype ("expected dtype float for `weight`
/// but got dtype double"); floats only (`"lerp_kernel_tensor" not implemented for 'Long'`).
/// Mirrors `torch.lerp(Tensor, Tensor, Tensor)`.
pub fn lerp_tensor(input: &Tensor, end: &Tensor, weight: &Tensor) -> Result<Tensor> {
    lerp_tensor_plan(input, end, weight)?.run()
}

/// `lerp_tensor` checked and ready to run (Note [One kernel per op]).
pub fn lerp_tensor_plan<'a>(
    input: &'a Tensor,
    end: &'a Tensor,
    weight: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    same_dtype(input, end, "end")?;
    same_dtype(input, weight, "weight")?;
    let shape = broadcast_shapes(
        &broadcast_shapes(input.sizes(), end.sizes())?,
        weight.sizes(),
    )?;
    let dtype = input.dtype();
    if !dtype.is_floating_point() {
        return Err(not_implemented("lerp_kernel_tensor", dtype));
    }
    Ok(Plan::new(
        Cow::Owned(shape),
        dtype,
        [Some(input), Some(end), Some(weight)],
        move |out, _| match dtype {
            DType::Float32 => lerp_into::<f32>(out, input, end, weight),
            _ => lerp_into::<f64>(out, input, end, weight),
        },
    ))
}

/// `out = lerp(s, e, w)` elementwise (torch's two formulas, by `|w| < 0.5`), all three
/// broadcast to `out` (dtype `T`, theirs). `out` may be exactly one of them: each position is
/// read before it is written.
fn lerp_into<T: Arith>(out: &Tensor, s: &Tensor, e: &Tensor, w: &Tensor) -> Result<()> {
    let geometry = |t: &Tensor| -> Result<(*const T, Vec<isize>)> {
        Ok((
            t.data_ptr::<T>() as *const T,
            t.broadcast_strides(out.sizes())?,
        ))
    };
    let ((ps, ss), (pe, se), (pw, sw)) = (geometry(s)?, geometry(e)?, geometry(w)?);
    let po = out.data_ptr::<T>();
    let one = T::from_f64(1.0);
    crate::core::iter::strided_for_each(
        out.sizes(),
        [out.strides(), &ss, &se, &sw],
        |[o, a, b, c]| {
            // SAFETY: each offset comes from its tensor's own (broadcast) geometry over `out`'s
            // shape; every read of this position happens before its write.
            unsafe {
                let (x, y, t) = (*ps.offset(a), *pe.offset(b), *pw.offset(c));
                let diff = y.wsub(x);
                *po.offset(o) = if t.wabs().to_f64() < 0.5 {
                    x.wadd(t.wmul(diff))
                } else {
                    y.wsub(diff.wmul(one.wsub(t)))
                };
            }
        },
    );
    Ok(())
}

// ----- issue 13, part 3a: heaviside, gcd, lcm, nextafter, float_power_ ----------------------

/// `heaviside(input, values)`: 0 where `input < 0` (and NaN), `values` where it is 0, 1 where
/// it is positive, broadcast. Both of one dtype (RuntimeError "heaviside is not yet implemented
/// for tensors with different dtypes."). Mirrors `torch.heaviside`.
pub fn heaviside(input: &Tensor, values: &Tensor) -> Result<Tensor> {
    heaviside_plan(input, values)?.run()
}

/// `heaviside` checked and ready to run (Note [One kernel per op]).
pub fn heaviside_plan<'a>(
    input: &'a Tensor,
    values: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    use crate::core::dtype::Element;
    if input.dtype() != values.dtype() {
        return Err(Error::runtime(
            "heaviside is not yet implemented for tensors with different dtypes.",
        ));
    }
    let dtype = input.dtype();
    binary_plan(input, values, dtype, move |out, fresh| {
        crate::dispatch!(dtype, T => binary_kernel::<T, T>(out, input, values, fresh, |x: T, v: T| {
            if x == T::from_i64(0) {
                v
            } else {
                // `partial_cmp`: NaN compares unordered, so it is not positive (0, as torch).
                T::from_bool(x.partial_cmp(&T::from_i64(0)) == Some(std::cmp::Ordering::Greater))
            }
        }))
    })
}

/// torch's `calc_gcd`: Euclid's algorithm on the absolute values (wrapping, as C++'s `abs`).
fn gcd_i64(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a, b);
    while a != 0 {
        let c = a;
        a = b.wrapping_rem(a);
        b = c;
    }
    b
}

/// The plan of `gcd` / `lcm`: integer dtypes only (`"gcd_cpu" not implemented for 'Float'`,
/// and for 'Bool'), in the promoted dtype, computed in it.
fn gcd_lcm_plan<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
    kernel: &'static str,
    lcm: bool,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    use crate::core::dtype::Element;
    let dtype = result_type(&[input, other]);
    if dtype.is_floating_point() || dtype == DType::Bool {
        return Err(not_implemented(kernel, dtype));
    }
    binary_plan(input, other, dtype, move |out, fresh| {
        crate::dispatch!(dtype, T => binary_kernel_dyn::<T, T>(out, input, other, fresh, &|x: T, y: T| {
            let (a, b) = (x.to_i64(), y.to_i64());
            // Computed in the dtype, as torch's kernel: `abs` and the casts wrap like C++'s
            // (`gcd(-128, 0)` is -128 in int8).
            let abs_t = |v: i64| T::from_i64(v.wrapping_abs()).to_i64();
            let g = T::from_i64(gcd_i64(abs_t(a), abs_t(b))).to_i64();
            if !lcm {
                T::from_i64(g)
            } else if g == 0 {
                T::from_i64(0)
            } else if std::mem::size_of::<T>() < 4 {
                // int8/uint8/int16: C++ promotes `a / g * b` and `::abs` to int, so nothing
                // wraps before the final cast (`lcm(300, 301)` in int16 is 90300 cast: 24764).
                T::from_i64((a / g * b).abs())
            } else {
                T::from_i64(T::from_i64(T::from_i64(a.wrapping_div(g)).to_i64().wrapping_mul(b)).to_i64().wrapping_abs())
            }
        }))
    })
}

/// `gcd(input, other)`: the greatest common divisor of each pair (non-negative; 0 for two 0s),
/// integers only, broadcast, promoted dtype. Mirrors `torch.gcd`.
pub fn gcd(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    gcd_plan(input, other)?.run()
}

/// `gcd` checked and ready to run (Note [One kernel per op]).
pub fn gcd_plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<Plan<'a, impl Kernel + 'a>> {
    gcd_lcm_plan(input, other, "gcd_cpu", false)
}

/// `lcm(input, other)`: the least common multiple of each pair (`|a / gcd * b|`, 0 when either
/// is 0), integers only, broadcast, promoted dtype. Mirrors `torch.lcm`.
pub fn lcm(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    lcm_plan(input, other)?.run()
}

/// `lcm` checked and ready to run (Note [One kernel per op]).
pub fn lcm_plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<Plan<'a, impl Kernel + 'a>> {
    gcd_lcm_plan(input, other, "lcm_cpu", true)
}

/// `nextafter(input, other)`: the next representable value after `input` towards `other`
/// (`other` itself when equal, NaN when either is NaN), broadcast; floats only
/// (`"nextafter_cpu" not implemented for 'Long'`). Mirrors `torch.nextafter`.
pub fn nextafter(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    nextafter_plan(input, other)?.run()
}

/// `nextafter` checked and ready to run (Note [One kernel per op]).
pub fn nextafter_plan<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    fn f32n(x: f32, y: f32) -> f32 {
        if x.is_nan() || y.is_nan() {
            f32::NAN
        } else if x == y {
            y
        } else if y > x {
            x.next_up()
        } else {
            x.next_down()
        }
    }
    fn f64n(x: f64, y: f64) -> f64 {
        if x.is_nan() || y.is_nan() {
            f64::NAN
        } else if x == y {
            y
        } else if y > x {
            x.next_up()
        } else {
            x.next_down()
        }
    }
    floats_only_binary_plan(input, other, "nextafter_cpu", f32n, f64n)
}

/// torch's check of `float_power_`: the result is float64, so `self` must be.
fn float_power_self_check(self_: &Tensor) -> Result<()> {
    if self_.dtype() != DType::Float64 {
        return Err(Error::runtime(format!(
            "the base given to float_power_ has dtype {} but the operation's result requires dtype Double",
            self_.dtype().scalar_type_name()
        )));
    }
    Ok(())
}

/// `Tensor.float_power_(exponent)`: `self = self ** exponent` in float64; `self` must be float64.
/// Mirrors `Tensor.float_power_`.
pub fn float_power__tensor(self_: &Tensor, exponent: &Tensor) -> Result<()> {
    float_power_self_check(self_)?;
    let e = exponent.to_dtype(DType::Float64)?;
    let plan = pow_plan(self_, &e)?;
    plan.run_into(self_)
}

/// `Tensor.float_power_(exponent)` with a number exponent, taken as a double.
pub fn float_power__scalar(self_: &Tensor, exponent: Scalar) -> Result<()> {
    float_power_self_check(self_)?;
    let e = Tensor::wrapped_scalar(Scalar::Float(exponent.to_f64()))?;
    let plan = pow_plan(self_, &e)?;
    plan.run_into(self_)
}

#[cfg(test)]
#[path = "tests/binary.rs"]
mod tests;
