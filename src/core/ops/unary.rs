//! src/core/ops/unary.rs: unary elementwise ops (PyTorch: `native/UnaryOps.cpp`) — `neg`,
//! `abs`, the float ops (`exp`, `log`, `sqrt`, trigonometric, hyperbolic, `sigmoid`, ...),
//! rounding, `sign`, NaN/inf tests, `nan_to_num`, `logical_not`, `bitwise_not`. All loops are
//! `iter.rs`'s `unary_op`.

use super::arith::{not_implemented, reject_bool, Arith, MathElem};
use super::binary::pow;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::iter::{operand_as, unary_op};
use crate::core::scalar::Scalar;
use crate::core::tensor::Tensor;
use crate::core::vecmath::{self, Func};

/// `neg(input)`: `-input`, same dtype (integers wrap: `-uint8(1) == 255`). A bool tensor is
/// torch's RuntimeError (use `~`/`logical_not`). Mirrors `torch.neg`.
pub fn neg(input: &Tensor) -> Result<Tensor> {
    if input.dtype() == DType::Bool {
        return Err(Error::runtime(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
        ));
    }
    crate::dispatch!(input.dtype(), T => unary_op::<T, T>(input, |x: T| x.wneg()))
}

/// `abs(input)`: the absolute value, same dtype (`abs(int8(-128)) == -128`, as torch wraps).
/// A bool tensor is torch's NotImplementedError `"abs_cpu" not implemented for 'Bool'`.
/// Mirrors `torch.abs`.
pub fn abs(input: &Tensor) -> Result<Tensor> {
    reject_bool(input.dtype(), "abs_cpu")?;
    crate::dispatch!(input.dtype(), T => unary_op::<T, T>(input, |x: T| x.wabs()))
}

// ----- float unary ops ------------------------------------------------------------------------

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

/// Elements per call of a vectorised kernel between interrupt checkpoints.
const VEC_CHUNK: usize = 1 << 16;

/// A float unary op computed by the vectorised element functions (`core::vecmath`, Note
/// [Vectorised math]; accuracy per function on `vecmath::Func`): float32/float64 keep their
/// dtype, integers and bool give float32. A non-contiguous input is made contiguous first, so
/// every layout of the same values gives the same bits.
fn vec_unary(input: &Tensor, func: Func) -> Result<Tensor> {
    let src = match input.dtype() {
        DType::Float32 | DType::Float64 => input.contiguous()?,
        _ => input.to_dtype(DType::Float32)?,
    };
    // SAFETY: the loop below writes every element of `out` (same shape and dtype as `src`).
    let out = unsafe { Tensor::empty_uninit(src.sizes(), src.dtype())? };
    let n = out.numel();
    let mut s = 0;
    while s < n {
        let e = (s + VEC_CHUNK).min(n);
        crate::core::interrupt::checkpoint();
        // SAFETY: `src` and `out` are contiguous, hold `n` elements of `src`'s dtype (matched
        // below) and `s..e` lies inside both; `out` is fresh, so the ranges are disjoint.
        unsafe {
            if src.dtype() == DType::Float64 {
                let (a, o) = (src.data_ptr::<f64>().add(s), out.data_ptr::<f64>().add(s));
                vecmath::map_f64_ptr(func, a, o, e - s);
            } else {
                let (a, o) = (src.data_ptr::<f32>().add(s), out.data_ptr::<f32>().add(s));
                vecmath::map_f32_ptr(func, a, o, e - s);
            }
        }
        s = e;
    }
    Ok(out)
}

/// `exp(input)`: `e ** input`; float dtypes kept, integers/bool → float32. Mirrors `torch.exp`.
pub fn exp(input: &Tensor) -> Result<Tensor> {
    vec_unary(input, Func::Exp)
}

/// `log(input)`: the natural logarithm (NaN below 0, -inf at 0); float dtypes kept,
/// integers/bool → float32. Mirrors `torch.log`.
pub fn log(input: &Tensor) -> Result<Tensor> {
    vec_unary(input, Func::Log)
}

/// `sqrt(input)`: the square root (NaN below 0); float dtypes kept, integers/bool → float32.
/// Mirrors `torch.sqrt`.
pub fn sqrt(input: &Tensor) -> Result<Tensor> {
    vec_unary(input, Func::Sqrt)
}

macro_rules! vec_unary_ops {
    ($($(#[$doc:meta])* $name:ident => $func:ident;)*) => {$(
        $(#[$doc])*
        ///
        /// Float dtypes are kept (float32 computed in f32, float64 in f64); integer and bool
        /// inputs give float32. Any shape, including empty and non-contiguous. Computed by the
        /// vectorised element functions (accuracy on `vecmath::Func`).
        pub fn $name(input: &Tensor) -> Result<Tensor> {
            vec_unary(input, Func::$func)
        }
    )*};
}

vec_unary_ops! {
    /// `sin(input)`: the sine of each element (radians). Mirrors `torch.sin`.
    sin => Sin;
    /// `cos(input)`: the cosine of each element (radians). Mirrors `torch.cos`.
    cos => Cos;
    /// `tanh(input)`: the hyperbolic tangent. Mirrors `torch.tanh`.
    tanh => Tanh;
    /// `sigmoid(input)`: `1 / (1 + exp(-input))`. Mirrors `torch.sigmoid`.
    sigmoid => Sigmoid;
    /// `expm1(input)`: `exp(input) - 1`, accurate near 0. Mirrors `torch.expm1`.
    expm1 => Expm1;
    /// `log2(input)`: the base-2 logarithm (-inf at 0, NaN below). Mirrors `torch.log2`.
    log2 => Log2;
    /// `log1p(input)`: `log(1 + input)`, accurate near 0. Mirrors `torch.log1p`.
    log1p => Log1p;
    /// `rsqrt(input)`: `1 / sqrt(input)` (inf at 0, NaN below). Mirrors `torch.rsqrt`.
    rsqrt => Rsqrt;
}

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
    /// `exp2(input)`: `2 ** input`. Mirrors `torch.exp2`.
    exp2 => f32::exp2, f64::exp2;
    /// `log10(input)`: the base-10 logarithm (-inf at 0, NaN below). Mirrors `torch.log10`.
    log10 => f32::log10, f64::log10;
    /// `reciprocal(input)`: `1 / input` (±inf at ±0). Mirrors `torch.reciprocal`.
    reciprocal => |x: f32| 1.0 / x, |x: f64| 1.0 / x;
}

// ----- dtype-keeping unary ops ----------------------------------------------------------------

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::dtype::Element;
    use crate::core::error::ErrorKind;

    fn t<T: Element>(v: Vec<T>, shape: &[usize]) -> Tensor {
        Tensor::from_vec(v, shape).unwrap()
    }

    fn msg<T>(r: Result<T>) -> (ErrorKind, String) {
        match r {
            Ok(_) => panic!("expected an error"),
            Err(e) => (e.kind, e.message),
        }
    }

    #[test]
    fn float_unary_dtypes() {
        // The vectorised functions are within their documented ULP bounds of the f64 results
        // (`vecmath::Func`), not necessarily equal to libm's f32 results.
        let near = |got: f32, want: f64, ulps: f64| {
            (got as f64 - want).abs() <= ulps * f64::from(f32::EPSILON) * want.abs()
        };
        let r = sin(&t(vec![0i64, 1], &[2])).unwrap();
        assert_eq!(r.dtype(), DType::Float32);
        let v = r.to_vec::<f32>();
        assert!(v[0] == 0.0 && near(v[1], 1f64.sin(), 1.5), "{v:?}");
        let r = exp2(&t(vec![3.0f64, -1.0], &[2])).unwrap();
        assert_eq!(r.to_vec::<f64>(), vec![8.0, 0.5]);
        let r = rsqrt(&t(vec![4.0f32, 0.0], &[2])).unwrap();
        assert_eq!(r.to_vec::<f32>(), vec![0.5, f32::INFINITY]);
        let r = sigmoid(&t(vec![true], &[1])).unwrap();
        assert!(near(r.to_vec::<f32>()[0], 1.0 / (1.0 + (-1f64).exp()), 2.2));
        let m = t(vec![1.0f64, 10.0, 100.0, 1000.0], &[2, 2]);
        let mt = m.as_strided(vec![2, 2], vec![1, 2], 0);
        assert_eq!(
            log10(&mt).unwrap().to_vec::<f64>(),
            vec![0.0, 2.0, 1.0, 3.0]
        );
    }

    #[test]
    fn unary() {
        assert_eq!(
            neg(&t(vec![1u8, 0], &[2])).unwrap().to_vec::<u8>(),
            vec![255, 0]
        );
        assert!(msg(neg(&t(vec![true], &[1])))
            .1
            .starts_with("Negation, the `-` operator, on a bool tensor"));
        let r = abs(&t(vec![-128i8, -3, 4], &[3])).unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<i8>()),
            (DType::Int8, vec![-128, 3, 4])
        );
        assert_eq!(
            abs(&t(vec![-1.5f64], &[1])).unwrap().to_vec::<f64>(),
            vec![1.5]
        );
        assert_eq!(
            msg(abs(&t(vec![true], &[1]))),
            (
                ErrorKind::NotImplemented,
                "\"abs_cpu\" not implemented for 'Bool'".into()
            )
        );
        let r = exp(&t(vec![0i64, 1], &[2])).unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<f32>()),
            (DType::Float32, vec![1.0, std::f32::consts::E])
        );
        let r = log(&t(vec![1.0f64, 0.0, -1.0], &[3])).unwrap();
        assert_eq!(r.dtype(), DType::Float64);
        let v = r.to_vec::<f64>();
        assert_eq!((v[0], v[1]), (0.0, f64::NEG_INFINITY));
        assert!(v[2].is_nan());
        let r = sqrt(&t(vec![true, false], &[2])).unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<f32>()),
            (DType::Float32, vec![1.0, 0.0])
        );
        // Non-contiguous input.
        let m = t(vec![1.0f32, 4.0, 9.0, 16.0], &[2, 2]);
        let mt = m.as_strided(vec![2, 2], vec![1, 2], 0);
        assert_eq!(sqrt(&mt).unwrap().to_vec::<f32>(), vec![1.0, 3.0, 2.0, 4.0]);
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
}
