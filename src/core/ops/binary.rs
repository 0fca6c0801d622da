//! src/core/ops/binary.rs: binary elementwise ops with broadcasting and type promotion
//! (PyTorch: `native/BinaryOps.cpp`, `native/Lerp.cpp`) — the arithmetic ops (`add`, `sub`,
//! `mul`, `div`, `remainder`, `floor_divide`, `pow`, `maximum`, `minimum`) with their
//! `BinaryPlan` (the structured kernel's meta step, which `out=` runs into) and in-place forms
//! (`add_`, `sub_`, `mul_`, `div_`); `atan2`, `hypot`, `fmod`; the logical, bitwise and shift
//! ops; `lerp`.

use super::arith::{not_implemented, reject_bool, Arith, MathElem};
use super::compare::{eq, lt, where_};
use super::unary::abs;
use crate::core::dtype::{Category, DType};
use crate::core::error::{Error, Result};
use crate::core::iter::{
    binary_into_par, binary_op, broadcast_shape_of, operand_as, unary_op, Input,
};
use crate::core::promote::{can_cast, promote_types, result_type};
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
        BinOp::Add(alpha) => {
            if is_one(alpha) {
                return binary_into_par(out, a, b, |x: T, y: T| x.wadd(y));
            }
            let al: T = alpha.to_checked::<T>()?;
            binary_into_par(out, a, b, move |x: T, y: T| x.wadd(al.wmul(y)))
        }
        BinOp::Sub(alpha) => {
            if is_one(alpha) {
                return binary_into_par(out, a, b, |x: T, y: T| x.wsub(y));
            }
            // torch: sub is add with -alpha (the negated scalar is what gets range-checked).
            let neg = match alpha {
                Scalar::Int(i) => Scalar::Int(i.wrapping_neg()),
                Scalar::Float(f) => Scalar::Float(-f),
                Scalar::Bool(_) => {
                    return Err(Error::runtime("torch boolean negative is not supported."))
                }
            };
            let al: T = neg.to_checked::<T>()?;
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
    f: &(dyn Fn(T, T) -> T + Sync),
) -> Result<()> {
    binary_into_par(out, a, b, f)
}

/// `result_type(&[a, b])`, with the common cases first: equal dtypes promote to themselves
/// whatever their categories or weakness, and a tensor with dimensions against a wrapped number
/// (`t + 2.0`) keeps its dtype unless the number's category is higher (then the number counts
/// with its default dtype: int64, float32) — `result_type`'s tier rule for these two operands.
fn binary_result_type(a: &Tensor, b: &Tensor) -> DType {
    if a.dtype() == b.dtype() {
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

/// `op(a, b)` into a new tensor of `shape` and `dtype`.
fn binop_new(op: BinOp, dtype: DType, a: &Tensor, b: &Tensor, shape: &[usize]) -> Result<Tensor> {
    crate::dispatch!(dtype, T => {
        let (a, b) = (Input::<T>::of(a)?, Input::<T>::of(b)?);
        // SAFETY: every arm of `run_binop_typed` either fails before writing (then `out` is
        // dropped unread) or writes every element of `out` through `binary_into_par`.
        let out = unsafe { Tensor::empty_uninit(shape, dtype)? };
        run_binop_typed::<T>(op, &out, &a, &b)?;
        Ok(out)
    })
}

/// A binary op whose checks have passed — torch's structured-kernel "meta" step: the broadcast
/// shape, the result dtype and the op's own errors (alpha, rounding mode, bool operands) are
/// settled, nothing is allocated yet. `run` computes into a new tensor (the op itself); `run_into`
/// writes into a caller's `out=` tensor without an intermediate result.
pub struct BinaryPlan<'a> {
    op: BinOp,
    dtype: DType,
    shape: Cow<'a, [usize]>,
    a: &'a Tensor,
    b: &'a Tensor,
}

impl BinaryPlan<'_> {
    /// The result's shape (the operands' broadcast shape).
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The result's dtype (also the dtype the op computes in).
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The result in a new tensor.
    #[inline]
    pub fn run(self) -> Result<Tensor> {
        binop_new(self.op, self.dtype, self.a, self.b, &self.shape)
    }

    /// Write the result into `out` (torch's `add.out`, `mul.out`, ...). `out` must already have
    /// the result's shape (torch resizes it first; the binding does that, see `write_out_plan`),
    /// else RuntimeError "output with shape [3] doesn't match the broadcast shape [2, 3]"; the
    /// result dtype must cast to `out`'s (RuntimeError "result type Float can't be cast to the
    /// desired output type Long").
    ///
    /// The kernel writes straight into `out` when `out` has the result dtype, no two of its
    /// elements share memory, and it shares no storage with an input tensor other than by being
    /// exactly that input (out=a). Otherwise — a cast on the way out, or `out` overlapping an
    /// input in another way (a shifted view of it, say) — the result is computed into a
    /// temporary and copied (`copy_`, with its errors), so the values are always those of the
    /// op computed before `out` is written.
    pub fn run_into(self, out: &Tensor) -> Result<()> {
        if !can_cast(self.dtype, out.dtype()) {
            return Err(cast_error(self.dtype, out.dtype()));
        }
        if out.sizes() != &*self.shape {
            return Err(Error::runtime(format!(
                "output with shape {:?} doesn't match the broadcast shape {:?}",
                out.sizes(),
                &*self.shape
            )));
        }
        // TensorIterator's memory-overlap checks (torch raises these for `out=` too): an expanded
        // `out`, or a dense input covering some but not exactly the same bytes as a dense `out`.
        out.assert_no_internal_overlap()?;
        out.assert_no_partial_overlap(self.a)?;
        out.assert_no_partial_overlap(self.b)?;
        let direct = out.dtype() == self.dtype
            && !overlaps_other_than_exactly(out, self.a, self.dtype)
            && !overlaps_other_than_exactly(out, self.b, self.dtype)
            && out.assert_no_internal_overlap().is_ok();
        if direct {
            return run_binop(self.op, self.dtype, out, self.a, self.b);
        }
        let tmp = self.run()?;
        out.copy_from(&tmp)
    }
}

/// torch's RuntimeError for writing a `from` result into an `out`/`self` of dtype `to`.
fn cast_error(from: DType, to: DType) -> Error {
    Error::runtime(format!(
        "result type {} can't be cast to the desired output type {}",
        from.scalar_type_name(),
        to.scalar_type_name()
    ))
}

/// True when writing `out` could change an element of `x` that a kernel reads after writing it:
/// `x` is a tensor with dimensions that the kernel reads in place (it has the compute dtype) and
/// shares `out`'s storage without being exactly `out`'s elements (same offset, and strides that
/// broadcast to `out`'s). 0-dim inputs are read as values first, other dtypes are converted
/// copies: neither can be affected.
fn overlaps_other_than_exactly(out: &Tensor, x: &Tensor, compute: DType) -> bool {
    x.dim() > 0
        && x.dtype() == compute
        && out.shares_storage(x)
        && !(x.storage_offset() == out.storage_offset()
            && x.broadcast_strides(out.sizes())
                .is_ok_and(|s| s == out.strides()))
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
    if a && b {
        return Err(Error::runtime(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.",
        ));
    }
    if a || b {
        return Err(Error::runtime(
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

/// `add` checked and ready to run into a new tensor or an `out=` tensor (see `BinaryPlan`).
#[inline]
pub fn add_plan<'a>(input: &'a Tensor, other: &'a Tensor, alpha: Scalar) -> Result<BinaryPlan<'a>> {
    let shape = broadcast_shape_of(input, other)?;
    let dtype = binary_result_type(input, other);
    alpha_check(dtype, alpha)?;
    Ok(BinaryPlan {
        op: BinOp::Add(alpha),
        dtype,
        shape,
        a: input,
        b: other,
    })
}

/// `add(input, other, alpha=alpha, out=out)` for an `out` that already has the broadcast shape:
/// the errors of `add`, then those of `BinaryPlan::run_into`. Mirrors `torch.add(..., out=)`
/// (without torch's resizing of a wrong-shaped `out`).
pub fn add_out(out: &Tensor, input: &Tensor, other: &Tensor, alpha: Scalar) -> Result<()> {
    add_plan(input, other, alpha)?.run_into(out)
}

/// `sub(input, other, *, alpha=1)`: `input - alpha * other`, broadcast, in the promoted dtype.
/// Errors as `add`, plus torch's RuntimeError for any bool operand (tensor or Python bool).
/// Mirrors `torch.sub`.
pub fn sub(input: &Tensor, other: &Tensor, alpha: Scalar) -> Result<Tensor> {
    sub_plan(input, other, alpha)?.run()
}

/// `sub` checked and ready to run (see `BinaryPlan`).
#[inline]
pub fn sub_plan<'a>(input: &'a Tensor, other: &'a Tensor, alpha: Scalar) -> Result<BinaryPlan<'a>> {
    sub_check(input, other)?;
    let shape = broadcast_shape_of(input, other)?;
    let dtype = binary_result_type(input, other);
    alpha_check(dtype, alpha)?;
    Ok(BinaryPlan {
        op: BinOp::Sub(alpha),
        dtype,
        shape,
        a: input,
        b: other,
    })
}

/// `sub(..., out=out)` for an `out` of the broadcast shape (as `add_out`).
pub fn sub_out(out: &Tensor, input: &Tensor, other: &Tensor, alpha: Scalar) -> Result<()> {
    sub_plan(input, other, alpha)?.run_into(out)
}

/// `mul(input, other)`: the elementwise product, broadcast, in the promoted dtype (bools: and;
/// integers wrap). RuntimeError when the shapes do not broadcast. Mirrors `torch.mul`.
pub fn mul(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    mul_plan(input, other)?.run()
}

/// `mul` checked and ready to run (see `BinaryPlan`).
#[inline]
pub fn mul_plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<BinaryPlan<'a>> {
    let shape = broadcast_shape_of(input, other)?;
    let dtype = binary_result_type(input, other);
    Ok(BinaryPlan {
        op: BinOp::Mul,
        dtype,
        shape,
        a: input,
        b: other,
    })
}

/// `mul(..., out=out)` for an `out` of the broadcast shape (as `add_out`).
pub fn mul_out(out: &Tensor, input: &Tensor, other: &Tensor) -> Result<()> {
    mul_plan(input, other)?.run_into(out)
}

/// `div(input, other, *, rounding_mode=None)`, broadcast. `None`: true division in the promoted
/// dtype, or float32 when that is integral/bool. `"trunc"` / `"floor"`: the quotient rounded
/// toward zero / -inf, in the promoted dtype. Errors: an unknown mode (RuntimeError, torch's
/// text); integer division by zero with a rounding mode (RuntimeError "ZeroDivisionError");
/// a rounding mode on two bools (NotImplementedError, as torch's kernels). Mirrors `torch.div`.
pub fn div(input: &Tensor, other: &Tensor, rounding_mode: Option<&str>) -> Result<Tensor> {
    div_plan(input, other, rounding_mode)?.run()
}

/// `div` checked and ready to run (see `BinaryPlan`).
#[inline]
pub fn div_plan<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
    rounding_mode: Option<&str>,
) -> Result<BinaryPlan<'a>> {
    let op = div_op(rounding_mode)?;
    let shape = broadcast_shape_of(input, other)?;
    let dtype = div_dtype(op, input, other)?;
    Ok(BinaryPlan {
        op,
        dtype,
        shape,
        a: input,
        b: other,
    })
}

/// `div(..., out=out)` for an `out` of the broadcast shape (as `add_out`).
pub fn div_out(
    out: &Tensor,
    input: &Tensor,
    other: &Tensor,
    rounding_mode: Option<&str>,
) -> Result<()> {
    div_plan(input, other, rounding_mode)?.run_into(out)
}

/// `remainder(input, other)` (Python's `%`): `input - floor(input / other) * other`, the result
/// having the sign of `other`; promoted dtype, broadcast. Integer division by zero is a
/// RuntimeError "ZeroDivisionError"; two bools a NotImplementedError. Mirrors `torch.remainder`.
pub fn remainder(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    remainder_plan(input, other)?.run()
}

/// `remainder` checked and ready to run (see `BinaryPlan`).
#[inline]
pub fn remainder_plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<BinaryPlan<'a>> {
    let shape = broadcast_shape_of(input, other)?;
    let dtype = binary_result_type(input, other);
    reject_bool(dtype, "remainder_cpu")?;
    Ok(BinaryPlan {
        op: BinOp::Remainder,
        dtype,
        shape,
        a: input,
        b: other,
    })
}

/// `floor_divide(input, other)` (Python's `//`): `div(input, other, rounding_mode="floor")`.
/// Mirrors `torch.floor_divide`.
pub fn floor_divide(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    div(input, other, Some("floor"))
}

/// `floor_divide` checked and ready to run (see `BinaryPlan`).
#[inline]
pub fn floor_divide_plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<BinaryPlan<'a>> {
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
    if input.is_wrapped_number() && input.dtype() != DType::Bool && input.item()?.to_f64() == 1.0 {
        return Tensor::full(&shape, Scalar::Int(1), dtype);
    }
    if exponent.is_wrapped_number() {
        // torch's pow(Tensor, Scalar): exponent 0 fills ones, exponent 1 copies.
        let e = exponent.item()?;
        if e.to_f64() == 0.0 {
            return Tensor::full(&shape, Scalar::Int(1), dtype);
        }
        if e.to_f64() == 1.0 {
            let out = Tensor::zeros(&shape, dtype)?;
            out.copy_from(input)?;
            return Ok(out);
        }
        reject_bool(dtype, "pow")?;
        let a = operand_as(input, dtype)?;
        return match dtype {
            DType::Float32 => pow_float_scalar::<f32>(&a, e.to_f64(), f32::sqrt),
            DType::Float64 => pow_float_scalar::<f64>(&a, e.to_f64(), f64::sqrt),
            d => crate::dispatch!(d, T => {
                // torch converts the exponent with `Scalar::to<scalar_t>()` (range-checked).
                let et: T = e.to_checked::<T>()?;
                unary_op::<T, T>(&a, move |x: T| x.pow_(et))
            }),
        };
    }
    reject_bool(dtype, "pow")?;
    binop_new(BinOp::Pow, dtype, input, exponent, &shape)
}

/// `a ** e` for a float tensor `a` and a Python-number exponent, with torch's shortcuts
/// (`pow_tensor_scalar_kernel`): 2 → `x*x`, 3 → `x*x*x`, -2 → `1/(x*x)`, 0.5 → `sqrt`,
/// -0.5 → `1/sqrt`, -1 → `1/x`; otherwise `pow` in double precision (C++'s
/// `std::pow(scalar_t, double)`), rounded to `T`.
fn pow_float_scalar<T: Arith>(a: &Tensor, e: f64, sqrt: impl Fn(T) -> T) -> Result<Tensor> {
    let one = T::from_f64(1.0);
    if e == 2.0 {
        unary_op::<T, T>(a, |x: T| x.wmul(x))
    } else if e == 3.0 {
        unary_op::<T, T>(a, |x: T| x.wmul(x).wmul(x))
    } else if e == -2.0 {
        unary_op::<T, T>(a, move |x: T| one.true_div(x.wmul(x)))
    } else if e == 0.5 {
        unary_op::<T, T>(a, sqrt)
    } else if e == -0.5 {
        unary_op::<T, T>(a, move |x: T| one.true_div(sqrt(x)))
    } else if e == -1.0 {
        unary_op::<T, T>(a, move |x: T| one.true_div(x))
    } else {
        unary_op::<T, T>(a, move |x: T| T::from_f64(x.to_f64().powf(e)))
    }
}

/// `maximum(input, other)`: the elementwise larger value, broadcast, promoted dtype; NaN if
/// either is NaN. Mirrors `torch.maximum`.
pub fn maximum(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    maximum_plan(input, other)?.run()
}

/// `maximum` checked and ready to run (see `BinaryPlan`).
#[inline]
pub fn maximum_plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<BinaryPlan<'a>> {
    let shape = broadcast_shape_of(input, other)?;
    let dtype = binary_result_type(input, other);
    Ok(BinaryPlan {
        op: BinOp::Maximum,
        dtype,
        shape,
        a: input,
        b: other,
    })
}

/// `minimum(input, other)`: the elementwise smaller value, broadcast, promoted dtype; NaN if
/// either is NaN. Mirrors `torch.minimum`.
pub fn minimum(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    minimum_plan(input, other)?.run()
}

/// `minimum` checked and ready to run (see `BinaryPlan`).
#[inline]
pub fn minimum_plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<BinaryPlan<'a>> {
    let shape = broadcast_shape_of(input, other)?;
    let dtype = binary_result_type(input, other);
    Ok(BinaryPlan {
        op: BinOp::Minimum,
        dtype,
        shape,
        a: input,
        b: other,
    })
}

// ----- in place -------------------------------------------------------------------------------

/// TensorIterator's checks for an in-place binary op writing into `self_`, in its order: memory
/// overlap, broadcast shape (the result may not grow `self_`), then the cast of the compute
/// dtype `common` to `self_`'s dtype.
fn inplace_checks(self_: &Tensor, other: &Tensor, common: DType) -> Result<()> {
    self_.assert_no_internal_overlap()?;
    self_.assert_no_partial_overlap(other)?;
    let shape = broadcast_shapes(self_.sizes(), other.sizes())?;
    if shape != self_.sizes() {
        return Err(Error::runtime(format!(
            "output with shape {:?} doesn't match the broadcast shape {:?}",
            self_.sizes(),
            shape
        )));
    }
    if !can_cast(common, self_.dtype()) {
        return Err(cast_error(common, self_.dtype()));
    }
    Ok(())
}

/// `self_ = op(self_, other)` computed in `common` (checks already done). Writes straight into
/// `self_` when it has the compute dtype and `other` does not alias it in another layout;
/// otherwise computes into a temporary and copies (casting) back.
fn binop_inplace(op: BinOp, self_: &Tensor, other: &Tensor, common: DType) -> Result<()> {
    if common == self_.dtype() && !overlaps_other_than_exactly(self_, other, common) {
        return run_binop(op, common, self_, self_, other);
    }
    let tmp = binop_new(op, common, self_, other, self_.sizes())?;
    self_.copy_from(&tmp)
}

/// `self.add_(other, *, alpha=1)`: `self += alpha * other` in place. `other` broadcasts to
/// `self`'s shape; the promoted dtype must cast to `self`'s (no float into int, nothing into
/// bool). Errors (RuntimeError, torch's texts): "output with shape [3] doesn't match the
/// broadcast shape [2, 3]"; "result type Float can't be cast to the desired output type Long";
/// overlapping memory; the `alpha` errors of `add`. Mirrors `Tensor.add_`.
pub fn add_(self_: &Tensor, other: &Tensor, alpha: Scalar) -> Result<()> {
    let common = result_type(&[self_, other]);
    inplace_checks(self_, other, common)?;
    alpha_check(common, alpha)?;
    binop_inplace(BinOp::Add(alpha), self_, other, common)
}

/// `self.sub_(other, *, alpha=1)`: `self -= alpha * other` in place; errors as `add_` and `sub`.
/// Mirrors `Tensor.sub_`.
pub fn sub_(self_: &Tensor, other: &Tensor, alpha: Scalar) -> Result<()> {
    sub_check(self_, other)?;
    let common = result_type(&[self_, other]);
    inplace_checks(self_, other, common)?;
    alpha_check(common, alpha)?;
    binop_inplace(BinOp::Sub(alpha), self_, other, common)
}

/// `self.mul_(other)`: `self *= other` in place; errors as `add_`. Mirrors `Tensor.mul_`.
pub fn mul_(self_: &Tensor, other: &Tensor) -> Result<()> {
    let common = result_type(&[self_, other]);
    inplace_checks(self_, other, common)?;
    binop_inplace(BinOp::Mul, self_, other, common)
}

/// `self.div_(other, *, rounding_mode=None)`: `self /= other` in place. True division computes
/// in float, so an integer `self` is the cast RuntimeError ("result type Float can't be cast to
/// the desired output type Long"); with "trunc"/"floor" integers stay integers. Other errors as
/// `div` and `add_`. Mirrors `Tensor.div_`.
pub fn div_(self_: &Tensor, other: &Tensor, rounding_mode: Option<&str>) -> Result<()> {
    let op = div_op(rounding_mode)?;
    let common = match op {
        BinOp::TrueDiv => float_result_type(self_, other),
        _ => result_type(&[self_, other]),
    };
    inplace_checks(self_, other, common)?;
    let common = div_dtype(op, self_, other)?;
    binop_inplace(op, self_, other, common)
}

// ----- float and integer ops ------------------------------------------------------------------

/// `atan2(input, other)`: the angle of `(other, input)` elementwise, broadcast; the promoted
/// dtype, or float32 for integers and bools. Mirrors `torch.atan2`.
pub fn atan2(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    match float_result_type(input, other) {
        DType::Float64 => binary_op::<f64, f64>(input, other, f64::atan2),
        _ => binary_op::<f32, f32>(input, other, f32::atan2),
    }
}

/// `hypot(input, other)`: `sqrt(input^2 + other^2)` without overflow, broadcast, promoted
/// dtype; floats only (`"hypot_cpu" not implemented for 'Long'` otherwise). Mirrors
/// `torch.hypot`.
pub fn hypot(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    match result_type(&[input, other]) {
        DType::Float64 => binary_op::<f64, f64>(input, other, f64::hypot),
        DType::Float32 => binary_op::<f32, f32>(input, other, f32::hypot),
        d => Err(not_implemented("hypot_cpu", d)),
    }
}

/// `fmod(input, other)`: C's `fmod`, the remainder with the sign of the dividend, broadcast, in
/// the promoted dtype (Python numbers are weak). Integer division by zero is a RuntimeError
/// "ZeroDivisionError"; bools are a NotImplementedError. Mirrors `torch.fmod`.
pub fn fmod(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    let dtype = result_type(&[input, other]);
    if dtype == DType::Bool {
        return Err(not_implemented("fmod_cpu", dtype));
    }
    let b = operand_as(other, dtype)?;
    let shape = broadcast_shapes(input.sizes(), other.sizes())?;
    // torch checks each divisor inside its integer kernel, so only when there is work to do.
    if dtype.is_integral() && shape.iter().product::<usize>() > 0 {
        let zero = eq(&b, &Tensor::wrapped_scalar(Scalar::Int(0))?)?;
        if super::conversion::try_to_vec::<bool>(&zero)?.contains(&true) {
            return Err(Error::runtime("ZeroDivisionError"));
        }
    }
    crate::dispatch!(dtype, T => binary_op::<T, T>(input, &b, |x: T, y: T| x.fmod(y)))
}

macro_rules! logical_ops {
    ($($(#[$doc:meta])* $name:ident, $op:tt;)*) => {$(
        $(#[$doc])*
        pub fn $name(input: &Tensor, other: &Tensor) -> Result<Tensor> {
            binary_op::<bool, bool>(input, other, |x: bool, y: bool| x $op y)
        }
    )*};
}

logical_ops! {
    /// `logical_and(input, other)`: bool tensor, both nonzero; any dtypes, broadcast.
    /// Mirrors `torch.logical_and`.
    logical_and, &;
    /// `logical_or(input, other)`: bool tensor, either nonzero; any dtypes, broadcast.
    /// Mirrors `torch.logical_or`.
    logical_or, |;
    /// `logical_xor(input, other)`: bool tensor, exactly one nonzero; any dtypes, broadcast.
    /// Mirrors `torch.logical_xor`.
    logical_xor, ^;
}

macro_rules! integer_binary_ops {
    ($($(#[$doc:meta])* $name:ident, $kernel:literal, $reject_bool:literal, $m:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(input: &Tensor, other: &Tensor) -> Result<Tensor> {
            let dtype = result_type(&[input, other]);
            if dtype.is_floating_point() || ($reject_bool && dtype == DType::Bool) {
                return Err(not_implemented($kernel, dtype));
            }
            crate::dispatch!(dtype, T => binary_op::<T, T>(input, other, |x: T, y: T| x.$m(y)))
        }
    )*};
}

integer_binary_ops! {
    /// `bitwise_and(input, other)` (`&`): integers and bools, promoted dtype, broadcast. Floats
    /// are torch's NotImplementedError `"bitwise_and_cpu" not implemented for 'Float'`.
    /// Mirrors `torch.bitwise_and`.
    bitwise_and, "bitwise_and_cpu", false, band;
    /// `bitwise_or(input, other)` (`|`): as `bitwise_and`. Mirrors `torch.bitwise_or`.
    bitwise_or, "bitwise_or_cpu", false, bor;
    /// `bitwise_xor(input, other)` (`^`): as `bitwise_and`. Mirrors `torch.bitwise_xor`.
    bitwise_xor, "bitwise_xor_cpu", false, bxor;
    /// `bitwise_left_shift(input, other)` (`<<`): integers only, promoted dtype, broadcast; a
    /// negative shift or one of at least the bit width gives 0. Floats and bools are a
    /// NotImplementedError (`"lshift_cpu" not implemented for 'Float'`). Mirrors
    /// `torch.bitwise_left_shift`.
    bitwise_left_shift, "lshift_cpu", true, shl;
    /// `bitwise_right_shift(input, other)` (`>>`): arithmetic shift for signed integers, integers
    /// only; a negative or too large shift fills with the sign (0 for uint8). Mirrors
    /// `torch.bitwise_right_shift`.
    bitwise_right_shift, "rshift_cpu", true, shr;
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
    same_dtype(input, end, "end")?;
    match input.dtype() {
        DType::Float32 => {
            let w = weight.to_f64() as f32;
            binary_op::<f32, f32>(input, end, move |s: f32, e: f32| {
                if w.abs() < 0.5 {
                    s + w * (e - s)
                } else {
                    e - (e - s) * (1.0 - w)
                }
            })
        }
        DType::Float64 => {
            let w = weight.to_f64();
            binary_op::<f64, f64>(input, end, move |s: f64, e: f64| {
                if w.abs() < 0.5 {
                    s + w * (e - s)
                } else {
                    e - (e - s) * (1.0 - w)
                }
            })
        }
        d => Err(not_implemented("lerp_kernel_scalar", d)),
    }
}

/// `lerp(input, end, weight)` with a tensor weight: as `lerp_scalar` elementwise, all three
/// broadcast; `end` and `weight` must have `input`'s dtype ("expected dtype float for `weight`
/// but got dtype double"); floats only (`"lerp_kernel_tensor" not implemented for 'Long'`).
/// Mirrors `torch.lerp(Tensor, Tensor, Tensor)`.
pub fn lerp_tensor(input: &Tensor, end: &Tensor, weight: &Tensor) -> Result<Tensor> {
    same_dtype(input, end, "end")?;
    same_dtype(input, weight, "weight")?;
    broadcast_shapes(
        &broadcast_shapes(input.sizes(), end.sizes())?,
        weight.sizes(),
    )?;
    if !input.dtype().is_floating_point() {
        return Err(not_implemented("lerp_kernel_tensor", input.dtype()));
    }
    // Composed from the shared kernels, in the input dtype throughout (all three share it).
    let one = Scalar::Int(1);
    let diff = sub(end, input, one)?;
    let small = lt(&abs(weight)?, &Tensor::wrapped_scalar(Scalar::Float(0.5))?)?;
    let low = add(input, &mul(weight, &diff)?, one)?;
    let one_minus_w = sub(&Tensor::wrapped_scalar(one)?, weight, one)?;
    let high = sub(end, &mul(&diff, &one_minus_w)?, one)?;
    where_(&small, &low, &high)
}

#[cfg(test)]
#[path = "tests/binary.rs"]
mod tests;
