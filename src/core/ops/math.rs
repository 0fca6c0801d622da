//! src/core/ops/math.rs: elementwise math — trigonometric/hyperbolic/exponential unary ops,
//! rounding, sign and NaN/inf tests, `nan_to_num`, logical and bitwise ops, shifts, `atan2`,
//! `fmod`, `hypot`, `clamp`/`clip`, `lerp`, `isclose`/`allclose`/`equal` (PyTorch:
//! `UnaryOps.cpp`, `BinaryOps.cpp`, `TensorCompare.cpp`, `Lerp.cpp`). All loops are the shared
//! kernels of `elementwise.rs` (`unary_op`, `binary_op`) or compositions of existing ops.

use super::compare::{eq, lt};
use super::elementwise::{abs, add, maximum, minimum, mul, pow, sub, where_, Arith};
use crate::core::dtype::{DType, Element};
use crate::core::error::{Error, Result};
use crate::core::iter::{binary_op, operand_as, unary_op};
use crate::core::promote::result_type;
use crate::core::scalar::Scalar;
use crate::core::tensor::{broadcast_shapes, Tensor};

// ----- element helpers ---------------------------------------------------------------------

/// Per-type operations the math ops need beyond `Arith`. Entries that only make sense for some
/// dtypes (bit ops for integers and bool, NaN tests for floats) are total for the others with
/// harmless values: the ops reject those dtypes before dispatching.
trait MathElem: Arith {
    /// C's `fmod` (the result has the sign of the dividend); integer zero divisors are rejected
    /// by the caller (0 here, never a panic).
    fn fmod(self, o: Self) -> Self;
    fn band(self, o: Self) -> Self;
    fn bor(self, o: Self) -> Self;
    fn bxor(self, o: Self) -> Self;
    fn bnot(self) -> Self;
    /// torch's `lshift` kernel: 0 for a negative shift or one of at least the bit width.
    fn shl(self, o: Self) -> Self;
    /// torch's `rshift` kernel: a negative or too large shift shifts by the widest amount.
    fn shr(self, o: Self) -> Self;
    /// `(0 < x) - (x < 0)`: 0 for NaN and ±0.
    fn sign(self) -> Self;
    fn nan(self) -> bool;
    fn inf(self) -> bool;
    fn finite(self) -> bool;
}

macro_rules! impl_math_int {
    ($($t:ty),*) => {$(
        impl MathElem for $t {
            #[inline(always)]
            fn fmod(self, o: Self) -> Self { if o == 0 { 0 } else { self.wrapping_rem(o) } }
            #[inline(always)]
            fn band(self, o: Self) -> Self { self & o }
            #[inline(always)]
            fn bor(self, o: Self) -> Self { self | o }
            #[inline(always)]
            fn bxor(self, o: Self) -> Self { self ^ o }
            #[inline(always)]
            fn bnot(self) -> Self { !self }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn shl(self, o: Self) -> Self {
                let bits = <$t>::BITS as $t;
                if o < 0 || o >= bits { 0 } else { self.wrapping_shl(o as u32) }
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn shr(self, o: Self) -> Self {
                // Signed types shift by at most BITS - 1 (sign fill); unsigned ones give 0.
                let signed = <$t>::MIN != 0;
                let max = <$t>::BITS as $t - signed as $t;
                if o < 0 || o >= max {
                    if signed { self.wrapping_shr(max as u32) } else { 0 }
                } else {
                    self.wrapping_shr(o as u32)
                }
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn sign(self) -> Self { (0 < self) as $t - (self < 0) as $t }
            #[inline(always)]
            fn nan(self) -> bool { false }
            #[inline(always)]
            fn inf(self) -> bool { false }
            #[inline(always)]
            fn finite(self) -> bool { true }
        }
    )*};
}
impl_math_int!(u8, i8, i16, i32, i64);

macro_rules! impl_math_float {
    ($($t:ty),*) => {$(
        impl MathElem for $t {
            #[inline(always)]
            fn fmod(self, o: Self) -> Self { self % o }
            #[inline(always)]
            fn band(self, _o: Self) -> Self { self }
            #[inline(always)]
            fn bor(self, _o: Self) -> Self { self }
            #[inline(always)]
            fn bxor(self, _o: Self) -> Self { self }
            #[inline(always)]
            fn bnot(self) -> Self { self }
            #[inline(always)]
            fn shl(self, _o: Self) -> Self { self }
            #[inline(always)]
            fn shr(self, _o: Self) -> Self { self }
            #[inline(always)]
            fn sign(self) -> Self { ((0.0 < self) as u8 as $t) - ((self < 0.0) as u8 as $t) }
            #[inline(always)]
            fn nan(self) -> bool { self.is_nan() }
            #[inline(always)]
            fn inf(self) -> bool { self.is_infinite() }
            #[inline(always)]
            fn finite(self) -> bool { self.is_finite() }
        }
    )*};
}
impl_math_float!(f32, f64);

impl MathElem for bool {
    #[inline(always)]
    fn fmod(self, _o: Self) -> Self {
        false
    }
    #[inline(always)]
    fn band(self, o: Self) -> Self {
        self & o
    }
    #[inline(always)]
    fn bor(self, o: Self) -> Self {
        self | o
    }
    #[inline(always)]
    fn bxor(self, o: Self) -> Self {
        self ^ o
    }
    #[inline(always)]
    fn bnot(self) -> Self {
        !self
    }
    #[inline(always)]
    fn shl(self, _o: Self) -> Self {
        self
    }
    #[inline(always)]
    fn shr(self, _o: Self) -> Self {
        self
    }
    #[inline(always)]
    fn sign(self) -> Self {
        self
    }
    #[inline(always)]
    fn nan(self) -> bool {
        false
    }
    #[inline(always)]
    fn inf(self) -> bool {
        false
    }
    #[inline(always)]
    fn finite(self) -> bool {
        true
    }
}

/// torch's dispatch error for a kernel without a version for `dtype` (NotImplementedError):
/// `"bitwise_and_cpu" not implemented for 'Float'`.
fn not_implemented(kernel: &str, dtype: DType) -> Error {
    Error::not_implemented(format!(
        "\"{kernel}\" not implemented for '{}'",
        dtype.scalar_type_name()
    ))
}

/// A float unary op: float32/float64 keep their dtype (computed in f32/f64); integers and bool
/// are computed in (and return) the default float, float32 (torch's `unary_float_op`).
fn float_unary(
    input: &Tensor,
    f32f: impl Fn(f32) -> f32 + Copy + Send + Sync,
    f64f: impl Fn(f64) -> f64 + Send + Sync,
) -> Result<Tensor> {
    match input.dtype() {
        DType::Float64 => unary_op::<f64, f64>(input, f64f),
        DType::Float32 => unary_op::<f32, f32>(input, f32f),
        // Convert first (the same per-element cast), then reuse the float32 kernel: one
        // instance per op instead of one per op and input dtype.
        _ => unary_op::<f32, f32>(&input.to_dtype(DType::Float32)?, f32f),
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

// ----- float unary ops ---------------------------------------------------------------------

macro_rules! float_unary_ops {
    ($($(#[$doc:meta])* $name:ident => $f32f:expr, $f64f:expr;)*) => {$(
        $(#[$doc])*
        ///
        /// Float dtypes are kept (float32 computed in f32, float64 in f64); integer and bool
        /// inputs give float32. Any shape, including empty and non-contiguous.
        pub fn $name(input: &Tensor) -> Result<Tensor> {
            float_unary(input, $f32f, $f64f)
        }
    )*};
}

float_unary_ops! {
    /// `sin(input)`: the sine of each element (radians). Mirrors `torch.sin`.
    sin => f32::sin, f64::sin;
    /// `cos(input)`: the cosine of each element (radians). Mirrors `torch.cos`.
    cos => f32::cos, f64::cos;
    /// `tan(input)`: the tangent of each element (radians). Mirrors `torch.tan`.
    tan => f32::tan, f64::tan;
    /// `asin(input)`: the arcsine (NaN outside [-1, 1]). Mirrors `torch.asin`.
    asin => f32::asin, f64::asin;
    /// `acos(input)`: the arccosine (NaN outside [-1, 1]). Mirrors `torch.acos`.
    acos => f32::acos, f64::acos;
    /// `atan(input)`: the arctangent. Mirrors `torch.atan`.
    atan => f32::atan, f64::atan;
    /// `sinh(input)`: the hyperbolic sine. Mirrors `torch.sinh`.
    sinh => f32::sinh, f64::sinh;
    /// `cosh(input)`: the hyperbolic cosine. Mirrors `torch.cosh`.
    cosh => f32::cosh, f64::cosh;
    /// `tanh(input)`: the hyperbolic tangent. Mirrors `torch.tanh`.
    tanh => f32::tanh, f64::tanh;
    /// `sigmoid(input)`: `1 / (1 + exp(-input))`. Mirrors `torch.sigmoid`.
    sigmoid => |x: f32| 1.0 / (1.0 + (-x).exp()), |x: f64| 1.0 / (1.0 + (-x).exp());
    /// `exp2(input)`: `2 ** input`. Mirrors `torch.exp2`.
    exp2 => f32::exp2, f64::exp2;
    /// `expm1(input)`: `exp(input) - 1`, accurate near 0. Mirrors `torch.expm1`.
    expm1 => f32::exp_m1, f64::exp_m1;
    /// `log2(input)`: the base-2 logarithm (-inf at 0, NaN below). Mirrors `torch.log2`.
    log2 => f32::log2, f64::log2;
    /// `log10(input)`: the base-10 logarithm (-inf at 0, NaN below). Mirrors `torch.log10`.
    log10 => f32::log10, f64::log10;
    /// `log1p(input)`: `log(1 + input)`, accurate near 0. Mirrors `torch.log1p`.
    log1p => f32::ln_1p, f64::ln_1p;
    /// `rsqrt(input)`: `1 / sqrt(input)` (inf at 0, NaN below). Mirrors `torch.rsqrt`.
    rsqrt => |x: f32| 1.0 / x.sqrt(), |x: f64| 1.0 / x.sqrt();
    /// `reciprocal(input)`: `1 / input` (±inf at ±0). Mirrors `torch.reciprocal`.
    reciprocal => |x: f32| 1.0 / x, |x: f64| 1.0 / x;
}

// ----- dtype-keeping unary ops -------------------------------------------------------------

/// `relu(input)`: `max(input, 0)` elementwise, same dtype (NaN stays NaN). A bool tensor is
/// torch's RuntimeError "Boolean inputs not supported for relu". Mirrors `torch.relu`.
// The bool arm of `dispatch!` is never taken (rejected above) but still type-checks.
#[allow(clippy::bool_comparison)]
pub fn relu(input: &Tensor) -> Result<Tensor> {
    if input.dtype() == DType::Bool {
        return Err(Error::runtime("Boolean inputs not supported for relu"));
    }
    crate::dispatch!(input.dtype(), T => unary_op::<T, T>(input, |x: T| {
        if x < T::default() { T::default() } else { x }
    }))
}

/// `square(input)`: `input * input` as `pow(input, 2)`: integers keep their dtype (wrapping),
/// bool gives int64. Mirrors `torch.square`.
pub fn square(input: &Tensor) -> Result<Tensor> {
    pow(input, &Tensor::wrapped_scalar(Scalar::Int(2))?)
}

/// A rounding op: floats use `f32f`/`f64f`; integers are returned as a copy (same dtype);
/// bool is torch's NotImplementedError for `kernel`.
fn rounding(
    input: &Tensor,
    kernel: &str,
    f32f: impl Fn(f32) -> f32 + Send + Sync,
    f64f: impl Fn(f64) -> f64 + Send + Sync,
) -> Result<Tensor> {
    match input.dtype() {
        DType::Float32 => unary_op::<f32, f32>(input, f32f),
        DType::Float64 => unary_op::<f64, f64>(input, f64f),
        DType::Bool => Err(not_implemented(kernel, DType::Bool)),
        _ => input.clone_data(),
    }
}

/// `floor(input)`: rounds down; integers are copied unchanged; bool is a NotImplementedError
/// (`"floor_vml_cpu" not implemented for 'Bool'`). Mirrors `torch.floor`.
pub fn floor(input: &Tensor) -> Result<Tensor> {
    rounding(input, "floor_vml_cpu", f32::floor, f64::floor)
}

/// `ceil(input)`: rounds up; integers are copied unchanged; bool is a NotImplementedError.
/// Mirrors `torch.ceil`.
pub fn ceil(input: &Tensor) -> Result<Tensor> {
    rounding(input, "ceil_vml_cpu", f32::ceil, f64::ceil)
}

/// `trunc(input)`: rounds toward zero; integers are copied unchanged; bool is a
/// NotImplementedError. Mirrors `torch.trunc`.
pub fn trunc(input: &Tensor) -> Result<Tensor> {
    rounding(input, "trunc_vml_cpu", f32::trunc, f64::trunc)
}

/// `round(input)`: rounds half to even (`nearbyint`); integers are copied unchanged; bool is a
/// NotImplementedError. Mirrors `torch.round`.
pub fn round(input: &Tensor) -> Result<Tensor> {
    rounding(
        input,
        "round_vml_cpu",
        f32::round_ties_even,
        f64::round_ties_even,
    )
}

/// `round(input, *, decimals)`: rounds half to even at `decimals` decimal places (negative:
/// to tens, hundreds, ...), as torch: `nearbyint(x * 10^d) / 10^d`, or `nearbyint(x / 10^-d) *
/// 10^-d` for negative `d`, in the input's float dtype. `decimals=0` is `round(input)`.
/// Otherwise floats only: NotImplementedError `"round_cpu" not implemented for 'Long'`.
/// Mirrors `torch.round(input, decimals=...)`.
pub fn round_decimals(input: &Tensor, decimals: i64) -> Result<Tensor> {
    if decimals == 0 {
        return round(input);
    }
    let neg = decimals < 0;
    let p = 10f64.powf(decimals.unsigned_abs() as f64);
    match input.dtype() {
        DType::Float32 => {
            let p = p as f32;
            unary_op::<f32, f32>(input, move |x: f32| {
                if neg {
                    (x / p).round_ties_even() * p
                } else {
                    (x * p).round_ties_even() / p
                }
            })
        }
        DType::Float64 => unary_op::<f64, f64>(input, move |x: f64| {
            if neg {
                (x / p).round_ties_even() * p
            } else {
                (x * p).round_ties_even() / p
            }
        }),
        d => Err(not_implemented("round_cpu", d)),
    }
}

/// `frac(input)`: `input - trunc(input)` (sign of input); floats only, other dtypes are torch's
/// NotImplementedError `"frac_cpu" not implemented for 'Long'`. Mirrors `torch.frac`.
pub fn frac(input: &Tensor) -> Result<Tensor> {
    match input.dtype() {
        DType::Float32 => unary_op::<f32, f32>(input, |x: f32| x - x.trunc()),
        DType::Float64 => unary_op::<f64, f64>(input, |x: f64| x - x.trunc()),
        d => Err(not_implemented("frac_cpu", d)),
    }
}

/// `sign(input)`: -1, 0 or 1 in the input's dtype (bool: unchanged; NaN and -0.0 give 0, as
/// torch's `(0 < x) - (x < 0)`). Mirrors `torch.sign`.
pub fn sign(input: &Tensor) -> Result<Tensor> {
    crate::dispatch!(input.dtype(), T => unary_op::<T, T>(input, |x: T| x.sign()))
}

/// `isnan(input)`: bool tensor, true where the element is NaN (never for integers/bool).
/// Mirrors `torch.isnan`.
pub fn isnan(input: &Tensor) -> Result<Tensor> {
    // Integers and bool are never NaN or infinite: a constant, without a kernel per dtype.
    crate::dispatch_float!(input.dtype(), T => unary_op::<T, bool>(input, |x: T| x.nan()),
        _ => Tensor::full(input.sizes(), Scalar::Bool(false), DType::Bool))
}

/// `isinf(input)`: bool tensor, true where the element is ±inf (never for integers/bool).
/// Mirrors `torch.isinf`.
pub fn isinf(input: &Tensor) -> Result<Tensor> {
    // Integers and bool are never NaN or infinite: a constant, without a kernel per dtype.
    crate::dispatch_float!(input.dtype(), T => unary_op::<T, bool>(input, |x: T| x.inf()),
        _ => Tensor::full(input.sizes(), Scalar::Bool(false), DType::Bool))
}

/// `isfinite(input)`: bool tensor, false for NaN and ±inf (always true for integers/bool).
/// Mirrors `torch.isfinite`.
pub fn isfinite(input: &Tensor) -> Result<Tensor> {
    // Integers and bool are never NaN or infinite: a constant, without a kernel per dtype.
    crate::dispatch_float!(input.dtype(), T => unary_op::<T, bool>(input, |x: T| x.finite()),
        _ => Tensor::full(input.sizes(), Scalar::Bool(true), DType::Bool))
}

/// `nan_to_num(input, nan=0.0, posinf=None, neginf=None)`: NaN → `nan`, +inf → `posinf`
/// (default: the dtype's largest finite value), -inf → `neginf` (default: its lowest finite
/// value); the replacements are cast to the dtype as C++ does. Integer and bool inputs are
/// copied unchanged. Mirrors `torch.nan_to_num`.
pub fn nan_to_num(
    input: &Tensor,
    nan: Option<Scalar>,
    posinf: Option<Scalar>,
    neginf: Option<Scalar>,
) -> Result<Tensor> {
    let nan = nan.map_or(0.0, Scalar::to_f64);
    match input.dtype() {
        DType::Float32 => {
            let (n, p, m) = (
                nan as f32,
                posinf.map_or(f32::MAX, |s| s.to_f64() as f32),
                neginf.map_or(f32::MIN, |s| s.to_f64() as f32),
            );
            unary_op::<f32, f32>(input, move |x: f32| {
                if x.is_nan() {
                    n
                } else if x == f32::INFINITY {
                    p
                } else if x == f32::NEG_INFINITY {
                    m
                } else {
                    x
                }
            })
        }
        DType::Float64 => {
            let (n, p, m) = (
                nan,
                posinf.map_or(f64::MAX, Scalar::to_f64),
                neginf.map_or(f64::MIN, Scalar::to_f64),
            );
            unary_op::<f64, f64>(input, move |x: f64| {
                if x.is_nan() {
                    n
                } else if x == f64::INFINITY {
                    p
                } else if x == f64::NEG_INFINITY {
                    m
                } else {
                    x
                }
            })
        }
        _ => input.clone_data(),
    }
}

/// `logical_not(input)`: bool tensor, true where the element is zero (any dtype; NaN is
/// nonzero). Mirrors `torch.logical_not`.
pub fn logical_not(input: &Tensor) -> Result<Tensor> {
    let b = operand_as(input, DType::Bool)?;
    unary_op::<bool, bool>(&b, |x: bool| !x)
}

/// `bitwise_not(input)` (`~`): the bitwise complement of integers, the logical not of bools,
/// same dtype. Floats are torch's NotImplementedError `"bitwise_not_cpu" not implemented for
/// 'Float'`. Mirrors `torch.bitwise_not`.
pub fn bitwise_not(input: &Tensor) -> Result<Tensor> {
    let d = input.dtype();
    if d.is_floating_point() {
        return Err(not_implemented("bitwise_not_cpu", d));
    }
    crate::dispatch!(d, T => unary_op::<T, T>(input, |x: T| x.bnot()))
}

// ----- binary ops --------------------------------------------------------------------------

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

// ----- clamp -------------------------------------------------------------------------------

const CLAMP_NONE: &str = "torch.clamp: At least one of 'min' or 'max' must not be None";

/// `clamp(input, min=None, max=None)` with number bounds: `min(max(input, min), max)`
/// elementwise (so `max` wins when `min > max`); NaN in input or a bound gives NaN. The result
/// dtype is the input's when floating, else `result_type` of the input and the bounds as Python
/// numbers (`int tensor.clamp(0.5)` → float32). Errors: both bounds None (RuntimeError "torch.clamp:
/// At least one of 'min' or 'max' must not be None"); a bool result (NotImplementedError);
/// a bound outside an integer dtype's range. Mirrors `torch.clamp(Tensor, Scalar?, Scalar?)`.
pub fn clamp(input: &Tensor, min: Option<Scalar>, max: Option<Scalar>) -> Result<Tensor> {
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
    let a = operand_as(input, dtype)?;
    crate::dispatch!(dtype, T => {
        let lo: Option<T> = min.map(|s| s.to_checked::<T>()).transpose()?;
        let hi: Option<T> = max.map(|s| s.to_checked::<T>()).transpose()?;
        unary_op::<T, T>(&a, move |x: T| {
            let x = match lo { Some(l) => x.max_nan(l), None => x };
            match hi { Some(h) => x.min_nan(h), None => x }
        })
    })
}

/// `clamp(input, min=None, max=None)` with tensor bounds: broadcast over all three, computed
/// in their promoted dtype, NaN propagating (a lone `min` is `maximum(input, min)`, a lone
/// `max` is `minimum(input, max)`). Errors: both None (RuntimeError, as the number overload);
/// both bounds with a bool result (NotImplementedError `"clamp_cpu" not implemented for
/// 'Bool'`); shapes that do not broadcast. Mirrors `torch.clamp(Tensor, Tensor?, Tensor?)`.
pub fn clamp_tensor(input: &Tensor, min: Option<&Tensor>, max: Option<&Tensor>) -> Result<Tensor> {
    match (min, max) {
        (None, None) => Err(Error::runtime(CLAMP_NONE)),
        (Some(lo), None) => maximum(input, lo),
        (None, Some(hi)) => minimum(input, hi),
        (Some(lo), Some(hi)) => {
            let dtype = result_type(&[input, lo, hi]);
            broadcast_shapes(&broadcast_shapes(input.sizes(), lo.sizes())?, hi.sizes())?;
            if dtype == DType::Bool {
                return Err(not_implemented("clamp_cpu", dtype));
            }
            let (a, lo, hi) = (
                operand_as(input, dtype)?,
                operand_as(lo, dtype)?,
                operand_as(hi, dtype)?,
            );
            minimum(&maximum(&a, &lo)?, &hi)
        }
    }
}

/// `clip(input, min=None, max=None)`: alias of `clamp` (number bounds). Mirrors `torch.clip`.
pub fn clip(input: &Tensor, min: Option<Scalar>, max: Option<Scalar>) -> Result<Tensor> {
    clamp(input, min, max)
}

/// `clip(input, min=None, max=None)`: alias of `clamp_tensor` (tensor bounds). Mirrors
/// `torch.clip`.
pub fn clip_tensor(input: &Tensor, min: Option<&Tensor>, max: Option<&Tensor>) -> Result<Tensor> {
    clamp_tensor(input, min, max)
}

// ----- lerp --------------------------------------------------------------------------------

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

// ----- closeness ---------------------------------------------------------------------------

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
                // torch: the difference in the integer dtype (wrapping), the allowance in float32.
                let actual = x.wsub(y).wabs().to_f64() as f32;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::error::ErrorKind;

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
    fn float_unary_dtypes() {
        let r = sin(&t(vec![0i64, 1], &[2])).unwrap();
        assert_eq!(r.dtype(), DType::Float32);
        assert_eq!(r.to_vec::<f32>(), vec![0.0, 1f32.sin()]);
        let r = exp2(&t(vec![3.0f64, -1.0], &[2])).unwrap();
        assert_eq!(r.to_vec::<f64>(), vec![8.0, 0.5]);
        let r = rsqrt(&t(vec![4.0f32, 0.0], &[2])).unwrap();
        assert_eq!(r.to_vec::<f32>(), vec![0.5, f32::INFINITY]);
        let r = sigmoid(&t(vec![true], &[1])).unwrap();
        assert_eq!(r.to_vec::<f32>(), vec![1.0 / (1.0 + (-1f32).exp())]);
        let m = t(vec![1.0f64, 10.0, 100.0, 1000.0], &[2, 2]);
        let mt = m.as_strided(vec![2, 2], vec![1, 2], 0);
        assert_eq!(
            log10(&mt).unwrap().to_vec::<f64>(),
            vec![0.0, 2.0, 1.0, 3.0]
        );
    }

    #[test]
    fn rounding_and_sign() {
        let f = t(vec![-2.5f32, -0.5, 0.5, 1.5, 2.7], &[5]);
        assert_eq!(
            round(&f).unwrap().to_vec::<f32>(),
            vec![-2.0, -0.0, 0.0, 2.0, 3.0]
        );
        assert_eq!(
            floor(&f).unwrap().to_vec::<f32>(),
            vec![-3.0, -1.0, 0.0, 1.0, 2.0]
        );
        let i = t(vec![-3i32, 4], &[2]);
        let r = ceil(&i).unwrap();
        assert_eq!((r.dtype(), r.to_vec::<i32>()), (DType::Int32, vec![-3, 4]));
        assert_eq!(msg(frac(&i)).1, "\"frac_cpu\" not implemented for 'Int'");
        let r = round_decimals(&t(vec![1.2345f64, 1234.5], &[2]), 2).unwrap();
        assert_eq!(r.to_vec::<f64>(), vec![1.23, 1234.5]);
        let r = round_decimals(&t(vec![1250.0f64, 1351.0], &[2]), -2).unwrap();
        assert_eq!(r.to_vec::<f64>(), vec![1200.0, 1400.0]);
        assert_eq!(
            sign(&t(vec![-2.0f32, 0.0, f32::NAN, 3.0], &[4]))
                .unwrap()
                .to_vec::<f32>(),
            vec![-1.0, 0.0, 0.0, 1.0]
        );
        assert_eq!(
            sign(&t(vec![200u8, 0], &[2])).unwrap().to_vec::<u8>(),
            vec![1, 0]
        );
        let r = square(&t(vec![true, false], &[2])).unwrap();
        assert_eq!((r.dtype(), r.to_vec::<i64>()), (DType::Int64, vec![1, 0]));
        assert_eq!(
            relu(&t(vec![-1i8, 5], &[2])).unwrap().to_vec::<i8>(),
            vec![0, 5]
        );
        assert_eq!(
            msg(relu(&t(vec![true], &[1]))).1,
            "Boolean inputs not supported for relu"
        );
    }

    #[test]
    fn nan_inf() {
        let f = t(vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1.0], &[4]);
        assert_eq!(
            isnan(&f).unwrap().to_vec::<bool>(),
            vec![true, false, false, false]
        );
        assert_eq!(
            isfinite(&f).unwrap().to_vec::<bool>(),
            vec![false, false, false, true]
        );
        assert_eq!(
            nan_to_num(&f, None, None, None).unwrap().to_vec::<f64>(),
            vec![0.0, f64::MAX, f64::MIN, 1.0]
        );
        assert_eq!(
            nan_to_num(&f, Some(Scalar::Float(1.5)), Some(Scalar::Int(9)), None)
                .unwrap()
                .to_vec::<f64>(),
            vec![1.5, 9.0, f64::MIN, 1.0]
        );
        assert_eq!(
            isfinite(&t(vec![1i64], &[1])).unwrap().to_vec::<bool>(),
            vec![true]
        );
    }

    #[test]
    fn bits_and_logic() {
        let a = t(vec![12i32, -1, 5], &[3]);
        let b = t(vec![10i32, 3, 1], &[3]);
        assert_eq!(bitwise_and(&a, &b).unwrap().to_vec::<i32>(), vec![8, 3, 1]);
        assert_eq!(bitwise_xor(&a, &b).unwrap().to_vec::<i32>(), vec![6, -4, 4]);
        assert_eq!(bitwise_not(&a).unwrap().to_vec::<i32>(), vec![-13, 0, -6]);
        assert_eq!(
            msg(bitwise_and(&t(vec![1.0f32], &[1]), &w(1i64))),
            (
                ErrorKind::NotImplemented,
                "\"bitwise_and_cpu\" not implemented for 'Float'".into()
            )
        );
        let s = t(vec![1i64, -8, 1], &[3]);
        assert_eq!(
            bitwise_left_shift(&s, &t(vec![3i64, 1, 64], &[3]))
                .unwrap()
                .to_vec::<i64>(),
            vec![8, -16, 0]
        );
        assert_eq!(
            bitwise_right_shift(&s, &t(vec![1i64, 1, 70], &[3]))
                .unwrap()
                .to_vec::<i64>(),
            vec![0, -4, 0]
        );
        assert_eq!(
            bitwise_right_shift(&t(vec![-8i64], &[1]), &w(100i64))
                .unwrap()
                .to_vec::<i64>(),
            vec![-1]
        );
        let r = logical_xor(&t(vec![0.0f32, f32::NAN, 2.0], &[3]), &w(1i64)).unwrap();
        assert_eq!(r.to_vec::<bool>(), vec![true, false, false]);
        assert_eq!(
            logical_not(&t(vec![0i64, 3], &[2]))
                .unwrap()
                .to_vec::<bool>(),
            vec![true, false]
        );
    }

    #[test]
    fn binary_float_ops() {
        let r = atan2(&t(vec![1i64], &[1]), &t(vec![1i64], &[1])).unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<f32>()),
            (DType::Float32, vec![std::f32::consts::FRAC_PI_4])
        );
        assert_eq!(
            hypot(&t(vec![3.0f64], &[1]), &w(4i64))
                .unwrap()
                .to_vec::<f64>(),
            vec![5.0]
        );
        assert_eq!(
            msg(hypot(&t(vec![3i64], &[1]), &w(4i64))).1,
            "\"hypot_cpu\" not implemented for 'Long'"
        );
        assert_eq!(
            fmod(&t(vec![-7i64, 7], &[2]), &w(3i64))
                .unwrap()
                .to_vec::<i64>(),
            vec![-1, 1]
        );
        assert_eq!(
            fmod(&t(vec![-7.5f32, 7.5], &[2]), &w(-2i64))
                .unwrap()
                .to_vec::<f32>(),
            vec![-1.5, 1.5]
        );
        assert_eq!(
            msg(fmod(&t(vec![1i32], &[1]), &w(0i64))).1,
            "ZeroDivisionError"
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
