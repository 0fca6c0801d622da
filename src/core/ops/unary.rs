//! src/core/ops/unary.rs: unary elementwise ops (PyTorch: `native/UnaryOps.cpp`) — `neg`,
//! `abs`, the float ops (`exp`, `log`, `sqrt`, trigonometric, hyperbolic, `sigmoid`, ...),
//! rounding, `sign`, NaN/inf tests, `nan_to_num`, `logical_not`, `bitwise_not`. Each op with
//! variants has its `_plan` (Note [One kernel per op] in plan.rs); the float ops are one table
//! (`float_unary_ops!`). All loops are `iter.rs`'s `unary_into`.

use super::arith::{not_implemented, reject_bool, Arith, MathElem};
use super::plan::{Kernel, Plan};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::iter::{unary_into, unary_into_dyn, unary_op};
use crate::core::scalar::Scalar;
use crate::core::tensor::Tensor;
use crate::core::vecmath::{self, Func};
use std::borrow::Cow;

/// The plan of a unary op of `input` whose result has `input`'s shape and dtype `dtype`; the
/// kernel gets the output and whether it is fresh (see `Plan`).
#[inline(always)]
fn unary_plan<'a>(
    input: &'a Tensor,
    dtype: DType,
    kernel: impl Kernel + 'a,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    Ok(Plan::new(
        Cow::Borrowed(input.sizes()),
        dtype,
        [Some(input), None, None],
        kernel,
    ))
}

/// `neg(input)`: `-input`, same dtype (integers wrap: `-uint8(1) == 255`). A bool tensor is
/// torch's RuntimeError (use `~`/`logical_not`). Mirrors `torch.neg`.
pub fn neg(input: &Tensor) -> Result<Tensor> {
    neg_plan(input)?.run()
}

/// `neg` checked and ready to run (Note [One kernel per op]).
pub fn neg_plan(input: &Tensor) -> Result<Plan<'_, impl Kernel + '_>> {
    if input.dtype() == DType::Bool {
        // NotImplementedError, as torch (TORCH_CHECK_NOT_IMPLEMENTED).
        return Err(Error::not_implemented(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
        ));
    }
    unary_plan(
        input,
        input.dtype(),
        move |out, fresh| crate::dispatch!(input.dtype(), T => unary_into::<T, T>(out, input, fresh, |x: T| x.wneg())),
    )
}

/// `abs(input)`: the absolute value, same dtype (`abs(int8(-128)) == -128`, as torch wraps).
/// A bool tensor is torch's NotImplementedError `"abs_cpu" not implemented for 'Bool'`.
/// Mirrors `torch.abs`.
pub fn abs(input: &Tensor) -> Result<Tensor> {
    abs_plan(input)?.run()
}

/// `abs` checked and ready to run (Note [One kernel per op]).
pub fn abs_plan(input: &Tensor) -> Result<Plan<'_, impl Kernel + '_>> {
    reject_bool(input.dtype(), "abs_cpu")?;
    unary_plan(
        input,
        input.dtype(),
        move |out, fresh| crate::dispatch!(input.dtype(), T => unary_into::<T, T>(out, input, fresh, |x: T| x.wabs())),
    )
}

// ----- float unary ops with vectorised element functions ----------------------------------------

/// The plan of a float unary op computed by the vectorised element functions (`core::vecmath`,
/// Note [Vectorised math]; accuracy per function on `vecmath::Func`): the dtype rule of
/// `float_unary_plan`. The functions read and write contiguous memory: a strided input (or one
/// converted to float32) is made contiguous first, so every layout of the same values gives
/// the same bits; a strided output gets a temporary that is copied in.
#[inline(always)]
fn vec_unary_plan(input: &Tensor, func: Func) -> Result<Plan<'_, impl Kernel + '_>> {
    let dtype = match input.dtype() {
        DType::Float64 => DType::Float64,
        _ => DType::Float32,
    };
    unary_plan(input, dtype, move |out, _fresh| {
        let src = match input.dtype() {
            DType::Float32 | DType::Float64 if input.is_contiguous() => Cow::Borrowed(input),
            DType::Float32 | DType::Float64 => Cow::Owned(input.contiguous()?),
            _ => Cow::Owned(input.to_dtype(DType::Float32)?),
        };
        if out.is_contiguous() {
            vec_map(&src, out, func);
            Ok(())
        } else {
            // SAFETY: `vec_map` writes every element of the fresh contiguous `tmp`.
            let tmp = unsafe { Tensor::empty_uninit(src.sizes(), dtype)? };
            vec_map(&src, &tmp, func);
            out.copy_from(&tmp)
        }
    })
}

/// `out[i] = func(src[i])` over two contiguous tensors of one float dtype and numel, in chunks
/// with an interrupt checkpoint before each (Note [Interrupting kernels]). Their memory is the
/// same range or disjoint: `src` is the plan's input (or a fresh copy of it) and `out` is fresh
/// or, by the plan's contract, exactly that input or sharing no memory with it.
fn vec_map(src: &Tensor, out: &Tensor, func: Func) {
    const CHUNK: usize = 1 << 16;
    let n = out.numel();
    debug_assert!(src.is_contiguous() && out.is_contiguous() && src.numel() == n);
    debug_assert_eq!(src.dtype(), out.dtype());
    let mut s = 0;
    while s < n {
        let e = (s + CHUNK).min(n);
        crate::core::interrupt::checkpoint();
        // SAFETY: both tensors are contiguous with `n` elements of `out`'s dtype (asserted by
        // the plan: `src` has the result dtype), `s..e` lies inside both, and the two ranges
        // are the same or disjoint (see above), which is `map_*_ptr`'s contract.
        unsafe {
            if out.dtype() == DType::Float64 {
                let (a, o) = (src.data_ptr::<f64>().add(s), out.data_ptr::<f64>().add(s));
                vecmath::map_f64_ptr(func, a, o, e - s);
            } else {
                let (a, o) = (src.data_ptr::<f32>().add(s), out.data_ptr::<f32>().add(s));
                vecmath::map_f32_ptr(func, a, o, e - s);
            }
        }
        s = e;
    }
}

/// The table of the float unary ops with vectorised element functions: one line per op — its
/// doc, its name and plan's name, and its `vecmath::Func`. As `float_unary_ops!` otherwise.
macro_rules! vec_unary_ops {
    ($($(#[$doc:meta])* $name:ident, $plan:ident => $func:ident;)*) => {$(
        $(#[$doc])*
        ///
        /// Float dtypes are kept (float32 computed in f32, float64 in f64); integer and bool
        /// inputs give float32. Any shape, including empty and non-contiguous. Computed by the
        /// vectorised element functions (accuracy on `vecmath::Func`).
        pub fn $name(input: &Tensor) -> Result<Tensor> {
            $plan(input)?.run()
        }

        #[doc = concat!("`", stringify!($name), "` checked and ready to run (Note [One kernel per op]).")]
        pub fn $plan(input: &Tensor) -> Result<Plan<'_, impl Kernel + '_>> {
            vec_unary_plan(input, Func::$func)
        }
    )*};
}

vec_unary_ops! {
    /// `exp(input)`: `e ** input`. Mirrors `torch.exp`.
    exp, exp_plan => Exp;
    /// `log(input)`: the natural logarithm (NaN below 0, -inf at 0). Mirrors `torch.log`.
    log, log_plan => Log;
    /// `sqrt(input)`: the square root (NaN below 0). Mirrors `torch.sqrt`.
    sqrt, sqrt_plan => Sqrt;
    /// `sin(input)`: the sine of each element (radians). Mirrors `torch.sin`.
    sin, sin_plan => Sin;
    /// `cos(input)`: the cosine of each element (radians). Mirrors `torch.cos`.
    cos, cos_plan => Cos;
    /// `tanh(input)`: the hyperbolic tangent. Mirrors `torch.tanh`.
    tanh, tanh_plan => Tanh;
    /// `sigmoid(input)`: `1 / (1 + exp(-input))`. Mirrors `torch.sigmoid`.
    sigmoid, sigmoid_plan => Sigmoid;
    /// `expm1(input)`: `exp(input) - 1`, accurate near 0. Mirrors `torch.expm1`.
    expm1, expm1_plan => Expm1;
    /// `log2(input)`: the base-2 logarithm (-inf at 0, NaN below). Mirrors `torch.log2`.
    log2, log2_plan => Log2;
    /// `log1p(input)`: `log(1 + input)`, accurate near 0. Mirrors `torch.log1p`.
    log1p, log1p_plan => Log1p;
    /// `rsqrt(input)`: `1 / sqrt(input)` (inf at 0, NaN below). Mirrors `torch.rsqrt`.
    rsqrt, rsqrt_plan => Rsqrt;
    /// `erf(input)`: the error function `2/sqrt(pi) * integral_0^x exp(-t^2) dt`. Mirrors
    /// `torch.erf` (`torch.special.erf`).
    erf, erf_plan => Erf;
}

// ----- float unary ops: the table -------------------------------------------------------------

/// The plan of a float unary op: float32/float64 keep their dtype (computed in f32/f64);
/// integers and bool are computed in (and return) the default float, float32 (torch's
/// `unary_float_op`). Any layout; in place, `out=` or into a new tensor.
#[inline(always)]
fn float_unary_plan<'a>(
    input: &'a Tensor,
    f32f: impl Fn(f32) -> f32 + 'a,
    f64f: impl Fn(f64) -> f64 + 'a,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let dtype = match input.dtype() {
        DType::Float64 => DType::Float64,
        _ => DType::Float32,
    };
    unary_plan(input, dtype, move |out, fresh| match input.dtype() {
        DType::Float64 => unary_into::<f64, f64>(out, input, fresh, f64f),
        DType::Float32 => unary_into::<f32, f32>(out, input, fresh, &f32f),
        // Convert first (the same per-element cast), then reuse the float32 kernel: one
        // instance per op instead of one per op and input dtype. The copy aliases nothing.
        _ => unary_into::<f32, f32>(out, &input.to_dtype(DType::Float32)?, true, &f32f),
    })
}

/// `float_unary_plan` for the cold ops (libm calls and special functions, whose element
/// functions cost more than an indirect call): the element function behind `dyn`, so the
/// loops exist once per dtype (`unary_into_dyn`) instead of once per op and dtype.
#[inline(always)]
fn float_unary_plan_dyn<'a>(
    input: &'a Tensor,
    f32f: impl Fn(f32) -> f32 + 'a,
    f64f: impl Fn(f64) -> f64 + 'a,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let dtype = match input.dtype() {
        DType::Float64 => DType::Float64,
        _ => DType::Float32,
    };
    unary_plan(input, dtype, move |out, fresh| match input.dtype() {
        DType::Float64 => unary_into_dyn::<f64, f64>(out, input, fresh, &f64f),
        DType::Float32 => unary_into_dyn::<f32, f32>(out, input, fresh, &f32f),
        _ => unary_into_dyn::<f32, f32>(out, &input.to_dtype(DType::Float32)?, true, &f32f),
    })
}

/// The elementwise table of the float unary ops (numpy's ufunc loop tables are the model): one
/// line per op — its doc, its name and plan's name, and its element function for `f32` and for
/// `f64`. Each line gives `op(input)` (a new tensor) and `op_plan(input)`, which the schema's
/// one entry for the op (`inplace: True`, `out: True`) turns into `_C.op`, `Tensor.op`,
/// `Tensor.op_` and `out=` (Note [One kernel per op]; ARCHITECTURE.md, "Adding a unary
/// elementwise op").
macro_rules! float_unary_ops {
    ($plan_fn:ident; $($(#[$doc:meta])* $name:ident, $plan:ident => $f32f:expr, $f64f:expr;)*) => {$(
        $(#[$doc])*
        ///
        /// Float dtypes are kept (float32 computed in f32, float64 in f64); integer and bool
        /// inputs give float32. Any shape, including empty and non-contiguous.
        pub fn $name(input: &Tensor) -> Result<Tensor> {
            $plan(input)?.run()
        }

        #[doc = concat!("`", stringify!($name), "` checked and ready to run (Note [One kernel per op]).")]
        pub fn $plan(input: &Tensor) -> Result<Plan<'_, impl Kernel + '_>> {
            $plan_fn(input, $f32f, $f64f)
        }
    )*};
}

// The cheap, vectorisable ops: their loops inlined with the element function.
float_unary_ops! {
    float_unary_plan;
    /// `reciprocal(input)`: `1 / input` (±inf at ±0). Mirrors `torch.reciprocal`.
    reciprocal, reciprocal_plan => |x: f32| 1.0 / x, |x: f64| 1.0 / x;
    /// `deg2rad(input)`: degrees to radians, `input * pi / 180`. Mirrors `torch.deg2rad`.
    deg2rad, deg2rad_plan => |x: f32| x * (std::f32::consts::PI / 180.0), |x: f64| x * (std::f64::consts::PI / 180.0);
    /// `rad2deg(input)`: radians to degrees, `input * 180 / pi`. Mirrors `torch.rad2deg`.
    rad2deg, rad2deg_plan => |x: f32| x * (180.0 / std::f32::consts::PI), |x: f64| x * (180.0 / std::f64::consts::PI);
}

// The ops calling libm or a special function: one shared loop per dtype.
float_unary_ops! {
    float_unary_plan_dyn;
    /// `tan(input)`: the tangent of each element (radians). Mirrors `torch.tan`.
    tan, tan_plan => f32::tan, f64::tan;
    /// `asin(input)`: the arcsine (NaN outside [-1, 1]). Mirrors `torch.asin`.
    asin, asin_plan => f32::asin, f64::asin;
    /// `acos(input)`: the arccosine (NaN outside [-1, 1]). Mirrors `torch.acos`.
    acos, acos_plan => f32::acos, f64::acos;
    /// `atan(input)`: the arctangent. Mirrors `torch.atan`.
    atan, atan_plan => f32::atan, f64::atan;
    /// `sinh(input)`: the hyperbolic sine. Mirrors `torch.sinh`.
    sinh, sinh_plan => f32::sinh, f64::sinh;
    /// `cosh(input)`: the hyperbolic cosine. Mirrors `torch.cosh`.
    cosh, cosh_plan => f32::cosh, f64::cosh;
    /// `exp2(input)`: `2 ** input`. Mirrors `torch.exp2`.
    exp2, exp2_plan => f32::exp2, f64::exp2;
    /// `log10(input)`: the base-10 logarithm (-inf at 0, NaN below). Mirrors `torch.log10`.
    log10, log10_plan => f32::log10, f64::log10;
    /// `asinh(input)`: the inverse hyperbolic sine. Mirrors `torch.asinh` (alias `arcsinh`).
    asinh, asinh_plan => f32::asinh, f64::asinh;
    /// `acosh(input)`: the inverse hyperbolic cosine (NaN below 1). Mirrors `torch.acosh`
    /// (alias `arccosh`).
    acosh, acosh_plan => f32::acosh, f64::acosh;
    /// `atanh(input)`: the inverse hyperbolic tangent (±inf at ±1, NaN outside [-1, 1]).
    /// Mirrors `torch.atanh` (alias `arctanh`). float32 is computed in f64 and rounded once:
    /// Rust's f32 `atanh` loses ~2e-5 relative near ±1, where torch's (libm's `atanhf`) does not.
    atanh, atanh_plan => |x: f32| (x as f64).atanh() as f32, f64::atanh;
    /// `erfc(input)`: `1 - erf(input)`, accurate where it is tiny (large inputs). Mirrors
    /// `torch.erfc` (`torch.special.erfc`).
    erfc, erfc_plan => |x: f32| super::special::erfc(x as f64) as f32, super::special::erfc;
    /// `erfinv(input)`: the inverse of `erf` (±inf at ±1, NaN outside [-1, 1]). Mirrors
    /// `torch.erfinv` (`torch.special.erfinv`).
    erfinv, erfinv_plan => |x: f32| super::special::erfinv(x as f64) as f32, super::special::erfinv;
    /// `lgamma(input)`: `log(|gamma(input)|)` (inf at 0 and the negative integers). Mirrors
    /// `torch.lgamma` (`torch.special.gammaln`).
    lgamma, lgamma_plan => |x: f32| super::special::lgamma(x as f64) as f32, super::special::lgamma;
    /// `digamma(input)`: `d/dx log(gamma(x))` (-inf at 0, NaN at the negative integers).
    /// Mirrors `torch.digamma` (`torch.special.psi`).
    digamma, digamma_plan => |x: f32| super::special::digamma(x as f64) as f32, super::special::digamma;
    /// `sinc(input)`: the normalised sinc, `sin(pi x) / (pi x)` (1 at 0), computed in the
    /// input's float dtype as torch does. Mirrors `torch.sinc` (`torch.special.sinc`).
    sinc, sinc_plan => |x: f32| if x == 0.0 { 1.0 } else { let p = std::f32::consts::PI * x; p.sin() / p },
        |x: f64| if x == 0.0 { 1.0 } else { let p = std::f64::consts::PI * x; p.sin() / p };
    /// `i0(input)`: the modified Bessel function of the first kind of order 0. Mirrors
    /// `torch.i0` (`torch.special.i0`).
    i0, i0_plan => |x: f32| super::special::i0(x as f64) as f32, super::special::i0;
    /// `special.ndtr(input)`: the standard normal CDF. Mirrors `torch.special.ndtr`.
    special_ndtr, special_ndtr_plan => |x: f32| super::special::ndtr(x as f64) as f32, super::special::ndtr;
    /// `special.ndtri(input)`: the standard normal quantile, the inverse of `ndtr` (∓inf at 0
    /// and 1, NaN outside [0, 1]). Mirrors `torch.special.ndtri`.
    special_ndtri, special_ndtri_plan => |x: f32| super::special::ndtri(x as f64) as f32, super::special::ndtri;
    /// `special.log_ndtr(input)`: `log(ndtr(input))`, accurate in both tails. Mirrors
    /// `torch.special.log_ndtr`.
    special_log_ndtr, special_log_ndtr_plan => |x: f32| super::special::log_ndtr(x as f64) as f32, super::special::log_ndtr;
    /// `special.i0e(input)`: `i0(input) * exp(-|input|)`. Mirrors `torch.special.i0e`.
    special_i0e, special_i0e_plan => |x: f32| super::special::i0e(x as f64) as f32, super::special::i0e;
    /// `special.i1(input)`: the modified Bessel function of the first kind of order 1. Mirrors
    /// `torch.special.i1`.
    special_i1, special_i1_plan => |x: f32| super::special::i1(x as f64) as f32, super::special::i1;
    /// `special.i1e(input)`: `i1(input) * exp(-|input|)`. Mirrors `torch.special.i1e`.
    special_i1e, special_i1e_plan => |x: f32| super::special::i1e(x as f64) as f32, super::special::i1e;
    /// `special.erfcx(input)`: `exp(input²) * erfc(input)` without overflow or underflow.
    /// Mirrors `torch.special.erfcx`.
    special_erfcx, special_erfcx_plan => |x: f32| super::special::erfcx(x as f64) as f32, super::special::erfcx;
    /// `special.entr(input)`: `-x ln x` (0 at 0, -inf below 0). Mirrors `torch.special.entr`.
    special_entr, special_entr_plan => |x: f32| super::special::entr(x as f64) as f32, super::special::entr;
    /// `special.bessel_j0(input)`: the Bessel function of the first kind of order 0 (src/core/ops/bessel.rs). Mirrors
    /// `torch.special.bessel_j0`.
    special_bessel_j0, special_bessel_j0_plan => |x: f32| super::bessel::bessel_j0(x as f64) as f32, super::bessel::bessel_j0;
    /// `special.bessel_j1(input)`: the Bessel function of the first kind of order 1 (src/core/ops/bessel.rs). Mirrors
    /// `torch.special.bessel_j1`.
    special_bessel_j1, special_bessel_j1_plan => |x: f32| super::bessel::bessel_j1(x as f64) as f32, super::bessel::bessel_j1;
    /// `special.bessel_y0(input)`: the Bessel function of the second kind of order 0 (-inf at 0, NaN below) (src/core/ops/bessel.rs). Mirrors
    /// `torch.special.bessel_y0`.
    special_bessel_y0, special_bessel_y0_plan => |x: f32| super::bessel::bessel_y0(x as f64) as f32, super::bessel::bessel_y0;
    /// `special.bessel_y1(input)`: the Bessel function of the second kind of order 1 (-inf at 0, NaN below) (src/core/ops/bessel.rs). Mirrors
    /// `torch.special.bessel_y1`.
    special_bessel_y1, special_bessel_y1_plan => |x: f32| super::bessel::bessel_y1(x as f64) as f32, super::bessel::bessel_y1;
    /// `special.modified_bessel_i0(input)`: the modified Bessel function of the first kind of order 0 (src/core/ops/bessel.rs). Mirrors
    /// `torch.special.modified_bessel_i0`.
    special_modified_bessel_i0, special_modified_bessel_i0_plan => |x: f32| super::bessel::modified_bessel_i0(x as f64) as f32, super::bessel::modified_bessel_i0;
    /// `special.modified_bessel_i1(input)`: the modified Bessel function of the first kind of order 1 (src/core/ops/bessel.rs). Mirrors
    /// `torch.special.modified_bessel_i1`.
    special_modified_bessel_i1, special_modified_bessel_i1_plan => |x: f32| super::bessel::modified_bessel_i1(x as f64) as f32, super::bessel::modified_bessel_i1;
    /// `special.modified_bessel_k0(input)`: the modified Bessel function of the second kind of order 0 (inf at 0, NaN below) (src/core/ops/bessel.rs). Mirrors
    /// `torch.special.modified_bessel_k0`.
    special_modified_bessel_k0, special_modified_bessel_k0_plan => |x: f32| super::bessel::modified_bessel_k0(x as f64) as f32, super::bessel::modified_bessel_k0;
    /// `special.modified_bessel_k1(input)`: the modified Bessel function of the second kind of order 1 (inf at 0, NaN below) (src/core/ops/bessel.rs). Mirrors
    /// `torch.special.modified_bessel_k1`.
    special_modified_bessel_k1, special_modified_bessel_k1_plan => |x: f32| super::bessel::modified_bessel_k1(x as f64) as f32, super::bessel::modified_bessel_k1;
    /// `special.scaled_modified_bessel_k0(input)`: `exp(input) * modified_bessel_k0(input)` without overflow (src/core/ops/bessel.rs). Mirrors
    /// `torch.special.scaled_modified_bessel_k0`.
    special_scaled_modified_bessel_k0, special_scaled_modified_bessel_k0_plan => |x: f32| super::bessel::scaled_modified_bessel_k0(x as f64) as f32, super::bessel::scaled_modified_bessel_k0;
    /// `special.scaled_modified_bessel_k1(input)`: `exp(input) * modified_bessel_k1(input)` without overflow (src/core/ops/bessel.rs). Mirrors
    /// `torch.special.scaled_modified_bessel_k1`.
    special_scaled_modified_bessel_k1, special_scaled_modified_bessel_k1_plan => |x: f32| super::bessel::scaled_modified_bessel_k1(x as f64) as f32, super::bessel::scaled_modified_bessel_k1;
    /// `special.spherical_bessel_j0(input)`: the spherical Bessel function of the first kind of order 0, `sin(x) / x` (src/core/ops/bessel.rs). Mirrors
    /// `torch.special.spherical_bessel_j0`.
    special_spherical_bessel_j0, special_spherical_bessel_j0_plan => |x: f32| super::bessel::spherical_bessel_j0(x as f64) as f32, super::bessel::spherical_bessel_j0;
    /// `special.airy_ai(input)`: the Airy function Ai (src/core/ops/bessel.rs). Mirrors
    /// `torch.special.airy_ai`.
    special_airy_ai, special_airy_ai_plan => |x: f32| super::bessel::airy_ai(x as f64) as f32, super::bessel::airy_ai;
}

/// `special.multigammaln(input, p)`: the multivariate log-gamma
/// `sum_{j<p} lgamma(x - j/2) + p (p - 1)/4 · log(pi)` (torch 2.15 no longer checks
/// `x > (p - 1)/2`); float dtypes kept, integers and bool give float32. RuntimeError "p has to
/// be greater than or equal to 1". Mirrors `torch.special.multigammaln` (torch's `mvlgamma`).
pub fn special_multigammaln(input: &Tensor, p: i64) -> Result<Tensor> {
    if p < 1 {
        return Err(Error::runtime("p has to be greater than or equal to 1"));
    }
    // torch materialises `input.unsqueeze(-1) + arange(p)`: numel * p elements, so a huge p is
    // its allocation error. Reserve as much (never touched) so that a p whose work would not
    // end is a MemoryError here too.
    let elems = input
        .numel()
        .max(1)
        .checked_mul(p as usize)
        .and_then(|n| n.checked_mul(input.dtype().itemsize()))
        .ok_or_else(|| Error::out_of_memory(format!("mvlgamma: p = {p} is too large")))?;
    drop(super::try_vec::<u8>(elems, "mvlgamma")?);
    let vals = super::conversion::try_to_f64_vec(input)?;
    let pf = p as f64;
    let c = pf * (pf - 1.0) / 4.0 * std::f64::consts::PI.ln();
    let out = vals.iter().map(|&x| {
        c + (0..p)
            .map(|j| {
                if j % 65536 == 0 {
                    crate::core::interrupt::checkpoint();
                }
                super::special::lgamma(x - j as f64 / 2.0)
            })
            .sum::<f64>()
    });
    match input.dtype() {
        DType::Float64 => Tensor::from_vec(out.collect::<Vec<f64>>(), input.sizes()),
        _ => Tensor::from_vec(out.map(|v| v as f32).collect::<Vec<f32>>(), input.sizes()),
    }
}

/// `polygamma(n, input)`: the n-th derivative of the digamma function, `n >= 0` (RuntimeError
/// "polygamma(n, x) does not support negative n." otherwise); float dtypes kept, integers and
/// bool give float32. Mirrors `torch.polygamma` (`torch.special.polygamma`).
pub fn polygamma(n: i64, input: &Tensor) -> Result<Tensor> {
    polygamma_plan(n, input)?.run()
}

/// `polygamma` checked and ready to run (Note [One kernel per op]).
pub fn polygamma_plan(n: i64, input: &Tensor) -> Result<Plan<'_, impl Kernel + '_>> {
    if n < 0 {
        return Err(Error::runtime(
            "polygamma(n, x) does not support negative n.",
        ));
    }
    float_unary_plan_dyn(
        input,
        move |x: f32| super::bessel::polygamma(n, x as f64) as f32,
        move |x: f64| super::bessel::polygamma(n, x),
    )
}

/// `input.polygamma(n)`: the method form of `polygamma(n, input)`.
pub fn polygamma_method(input: &Tensor, n: i64) -> Result<Tensor> {
    polygamma(n, input)
}

/// `logit(input, eps=None)`: `log(p / (1 - p))`, with `p` clamped to `[eps, 1 - eps]` when `eps`
/// is given (NaN outside [0, 1] otherwise). Float dtypes are kept; integers and bool give
/// float32. Mirrors `torch.logit` (`torch.special.logit`).
pub fn logit(input: &Tensor, eps: Option<f64>) -> Result<Tensor> {
    logit_plan(input, eps)?.run()
}

/// `logit` checked and ready to run (Note [One kernel per op]).
pub fn logit_plan(input: &Tensor, eps: Option<f64>) -> Result<Plan<'_, impl Kernel + '_>> {
    let f64f = move |x: f64| {
        let p = match eps {
            // torch's `x < lo ? lo : (x > hi ? hi : x)` (no panic when lo > hi).
            Some(e) if x < e => e,
            Some(e) if x > 1.0 - e => 1.0 - e,
            _ => x,
        };
        (p / (1.0 - p)).ln()
    };
    float_unary_plan_dyn(
        input,
        move |x: f32| {
            let p = match eps {
                Some(e) if x < e as f32 => e as f32,
                Some(e) if x > 1.0 - e as f32 => 1.0 - e as f32,
                _ => x,
            };
            (p / (1.0 - p)).ln()
        },
        f64f,
    )
}

// ----- dtype-keeping unary ops ----------------------------------------------------------------

/// `relu(input)`: `max(input, 0)` elementwise, same dtype (NaN stays NaN). A bool tensor is
/// torch's RuntimeError "Boolean inputs not supported for relu". Mirrors `torch.relu`.
pub fn relu(input: &Tensor) -> Result<Tensor> {
    relu_plan(input)?.run()
}

/// `relu` checked and ready to run (Note [One kernel per op]).
// The bool arm of `dispatch!` is never taken (rejected above) but still type-checks.
#[allow(clippy::bool_comparison)]
pub fn relu_plan(input: &Tensor) -> Result<Plan<'_, impl Kernel + '_>> {
    if input.dtype() == DType::Bool {
        return Err(Error::runtime("Boolean inputs not supported for relu"));
    }
    unary_plan(input, input.dtype(), move |out, fresh| {
        crate::dispatch!(input.dtype(), T => unary_into::<T, T>(out, input, fresh, |x: T| {
            if x < T::default() { T::default() } else { x }
        }))
    })
}

/// `square(input)`: `input * input` as `pow(input, 2)`: integers keep their dtype (wrapping),
/// bool gives int64. Mirrors `torch.square`.
pub fn square(input: &Tensor) -> Result<Tensor> {
    square_plan(input)?.run()
}

/// `square` checked and ready to run (Note [One kernel per op]).
pub fn square_plan(input: &Tensor) -> Result<Plan<'_, impl Kernel + '_>> {
    // torch computes pow(input, 2): bool promotes with the int exponent to int64.
    let dtype = match input.dtype() {
        DType::Bool => DType::Int64,
        d => d,
    };
    unary_plan(input, dtype, move |out, fresh| {
        if input.dtype() == dtype {
            crate::dispatch!(dtype, T => unary_into::<T, T>(out, input, fresh, |x: T| x.wmul(x)))
        } else {
            let x = input.to_dtype(dtype)?;
            unary_into::<i64, i64>(out, &x, true, |x: i64| x.wmul(x))
        }
    })
}

/// The plan of a rounding op: floats use `f32f`/`f64f`; integers are copied unchanged (same
/// dtype); bool is torch's NotImplementedError for `kernel`.
#[inline(always)]
fn rounding_plan<'a>(
    input: &'a Tensor,
    kernel: &str,
    f32f: impl Fn(f32) -> f32 + 'a,
    f64f: impl Fn(f64) -> f64 + 'a,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    if input.dtype() == DType::Bool {
        return Err(not_implemented(kernel, DType::Bool));
    }
    unary_plan(input, input.dtype(), move |out, fresh| {
        match input.dtype() {
            DType::Float32 => unary_into::<f32, f32>(out, input, fresh, f32f),
            DType::Float64 => unary_into::<f64, f64>(out, input, fresh, f64f),
            _ => out.copy_from(input),
        }
    })
}

macro_rules! rounding_ops {
    ($($(#[$doc:meta])* $name:ident, $plan:ident, $kernel:literal => $f32f:expr, $f64f:expr;)*) => {$(
        $(#[$doc])*
        pub fn $name(input: &Tensor) -> Result<Tensor> {
            $plan(input)?.run()
        }

        #[doc = concat!("`", stringify!($name), "` checked and ready to run (Note [One kernel per op]).")]
        pub fn $plan(input: &Tensor) -> Result<Plan<'_, impl Kernel + '_>> {
            rounding_plan(input, $kernel, $f32f, $f64f)
        }
    )*};
}

rounding_ops! {
    /// `floor(input)`: rounds down; integers are copied unchanged; bool is a NotImplementedError
    /// (`"floor_vml_cpu" not implemented for 'Bool'`). Mirrors `torch.floor`.
    floor, floor_plan, "floor_vml_cpu" => f32::floor, f64::floor;
    /// `ceil(input)`: rounds up; integers are copied unchanged; bool is a NotImplementedError.
    /// Mirrors `torch.ceil`.
    ceil, ceil_plan, "ceil_vml_cpu" => f32::ceil, f64::ceil;
    /// `trunc(input)`: rounds toward zero; integers are copied unchanged; bool is a
    /// NotImplementedError. Mirrors `torch.trunc`.
    trunc, trunc_plan, "trunc_vml_cpu" => f32::trunc, f64::trunc;
    /// `round(input)`: rounds half to even (`nearbyint`); integers are copied unchanged; bool is
    /// a NotImplementedError. Mirrors `torch.round`.
    round, round_plan, "round_vml_cpu" => f32::round_ties_even, f64::round_ties_even;
}

/// `round(input, *, decimals)`: rounds half to even at `decimals` decimal places (negative:
/// to tens, hundreds, ...), as torch: `nearbyint(x * 10^d) / 10^d`, or `nearbyint(x / 10^-d) *
/// 10^-d` for negative `d`, in the input's float dtype. `decimals=0` is `round(input)`.
/// Otherwise floats only: NotImplementedError `"round_cpu" not implemented for 'Long'`.
/// Mirrors `torch.round(input, decimals=...)`.
pub fn round_decimals(input: &Tensor, decimals: i64) -> Result<Tensor> {
    round_decimals_plan(input, decimals)?.run()
}

/// `round_decimals` checked and ready to run (Note [One kernel per op]).
pub fn round_decimals_plan(input: &Tensor, decimals: i64) -> Result<Plan<'_, impl Kernel + '_>> {
    if decimals == 0 {
        if input.dtype() == DType::Bool {
            return Err(not_implemented("round_vml_cpu", DType::Bool));
        }
    } else if !input.dtype().is_floating_point() {
        return Err(not_implemented("round_cpu", input.dtype()));
    }
    let neg = decimals < 0;
    let p = 10f64.powf(decimals.unsigned_abs() as f64);
    unary_plan(input, input.dtype(), move |out, fresh| {
        match input.dtype() {
            _ if decimals == 0 && !input.dtype().is_floating_point() => out.copy_from(input),
            DType::Float32 if decimals == 0 => {
                unary_into::<f32, f32>(out, input, fresh, f32::round_ties_even)
            }
            DType::Float64 if decimals == 0 => {
                unary_into::<f64, f64>(out, input, fresh, f64::round_ties_even)
            }
            DType::Float32 => {
                let p = p as f32;
                unary_into::<f32, f32>(out, input, fresh, move |x: f32| {
                    if neg {
                        (x / p).round_ties_even() * p
                    } else {
                        (x * p).round_ties_even() / p
                    }
                })
            }
            _ => unary_into::<f64, f64>(out, input, fresh, move |x: f64| {
                if neg {
                    (x / p).round_ties_even() * p
                } else {
                    (x * p).round_ties_even() / p
                }
            }),
        }
    })
}

/// `frac(input)`: `input - trunc(input)` (sign of input); floats only, other dtypes are torch's
/// NotImplementedError `"frac_cpu" not implemented for 'Long'`. Mirrors `torch.frac`.
pub fn frac(input: &Tensor) -> Result<Tensor> {
    frac_plan(input)?.run()
}

/// `frac` checked and ready to run (Note [One kernel per op]).
pub fn frac_plan(input: &Tensor) -> Result<Plan<'_, impl Kernel + '_>> {
    if !input.dtype().is_floating_point() {
        return Err(not_implemented("frac_cpu", input.dtype()));
    }
    unary_plan(input, input.dtype(), move |out, fresh| {
        match input.dtype() {
            DType::Float32 => unary_into::<f32, f32>(out, input, fresh, |x: f32| x - x.trunc()),
            _ => unary_into::<f64, f64>(out, input, fresh, |x: f64| x - x.trunc()),
        }
    })
}

/// `sign(input)`: -1, 0 or 1 in the input's dtype (bool: unchanged; NaN and -0.0 give 0, as
/// torch's `(0 < x) - (x < 0)`). Mirrors `torch.sign`.
pub fn sign(input: &Tensor) -> Result<Tensor> {
    sign_plan(input)?.run()
}

/// `sgn(input)`: for real dtypes torch's `sgn` is `sign`. Mirrors `torch.sgn`.
pub fn sgn(input: &Tensor) -> Result<Tensor> {
    sign_plan(input)?.run()
}

/// `sgn` checked and ready to run: `sign`'s plan (Note [One kernel per op]).
pub fn sgn_plan(input: &Tensor) -> Result<Plan<'_, impl Kernel + '_>> {
    sign_plan(input)
}

/// `sign` checked and ready to run (Note [One kernel per op]).
pub fn sign_plan(input: &Tensor) -> Result<Plan<'_, impl Kernel + '_>> {
    unary_plan(
        input,
        input.dtype(),
        move |out, fresh| crate::dispatch!(input.dtype(), T => unary_into::<T, T>(out, input, fresh, |x: T| x.sign())),
    )
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

/// `signbit(input)`: bool tensor, true where the sign bit is set (-0.0 and negative NaN
/// included; never for bool). Mirrors `torch.signbit`.
pub fn signbit(input: &Tensor) -> Result<Tensor> {
    use crate::core::dtype::Element;
    match input.dtype() {
        DType::Float32 => unary_op::<f32, bool>(input, |x: f32| x.is_sign_negative()),
        DType::Float64 => unary_op::<f64, bool>(input, |x: f64| x.is_sign_negative()),
        DType::Bool => Tensor::full(input.sizes(), Scalar::Bool(false), DType::Bool),
        dt => crate::dispatch!(dt, T => unary_op::<T, bool>(input, |x: T| x.to_i64() < 0)),
    }
}

/// `isposinf(input)`: bool tensor, true where the element is +inf (never for integers/bool).
/// Mirrors `torch.isposinf`.
pub fn isposinf(input: &Tensor) -> Result<Tensor> {
    match input.dtype() {
        DType::Float32 => unary_op::<f32, bool>(input, |x: f32| x == f32::INFINITY),
        DType::Float64 => unary_op::<f64, bool>(input, |x: f64| x == f64::INFINITY),
        _ => Tensor::full(input.sizes(), Scalar::Bool(false), DType::Bool),
    }
}

/// `isneginf(input)`: bool tensor, true where the element is -inf (never for integers/bool).
/// Mirrors `torch.isneginf`.
pub fn isneginf(input: &Tensor) -> Result<Tensor> {
    match input.dtype() {
        DType::Float32 => unary_op::<f32, bool>(input, |x: f32| x == f32::NEG_INFINITY),
        DType::Float64 => unary_op::<f64, bool>(input, |x: f64| x == f64::NEG_INFINITY),
        _ => Tensor::full(input.sizes(), Scalar::Bool(false), DType::Bool),
    }
}

/// `isreal(input)`: bool tensor, true where the imaginary part is 0 — everywhere, for the real
/// dtypes tensorbind has. Mirrors `torch.isreal`.
pub fn isreal(input: &Tensor) -> Result<Tensor> {
    Tensor::full(input.sizes(), Scalar::Bool(true), DType::Bool)
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
    nan_to_num_plan(input, nan, posinf, neginf)?.run()
}

/// `nan_to_num` checked and ready to run (Note [One kernel per op]).
pub fn nan_to_num_plan(
    input: &Tensor,
    nan: Option<Scalar>,
    posinf: Option<Scalar>,
    neginf: Option<Scalar>,
) -> Result<Plan<'_, impl Kernel + '_>> {
    let nan = nan.map_or(0.0, Scalar::to_f64);
    unary_plan(input, input.dtype(), move |out, fresh| {
        match input.dtype() {
            DType::Float32 => {
                let (n, p, m) = (
                    nan as f32,
                    posinf.map_or(f32::MAX, |s| s.to_f64() as f32),
                    neginf.map_or(f32::MIN, |s| s.to_f64() as f32),
                );
                unary_into::<f32, f32>(out, input, fresh, move |x: f32| {
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
                unary_into::<f64, f64>(out, input, fresh, move |x: f64| {
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
            _ => out.copy_from(input),
        }
    })
}

/// `logical_not(input)`: bool tensor, true where the element is zero (any dtype; NaN is
/// nonzero). Mirrors `torch.logical_not`.
pub fn logical_not(input: &Tensor) -> Result<Tensor> {
    logical_not_plan(input)?.run()
}

/// `logical_not` checked and ready to run (Note [One kernel per op]). In place, the bool
/// result is cast back to self's dtype (torch's `logical_not_`).
pub fn logical_not_plan(input: &Tensor) -> Result<Plan<'_, impl Kernel + '_>> {
    unary_plan(input, DType::Bool, move |out, fresh| {
        if input.dtype() == DType::Bool {
            unary_into::<bool, bool>(out, input, fresh, |x: bool| !x)
        } else {
            let b = input.to_dtype(DType::Bool)?;
            unary_into::<bool, bool>(out, &b, true, |x: bool| !x)
        }
    })
}

/// `bitwise_not(input)` (`~`): the bitwise complement of integers, the logical not of bools,
/// same dtype. Floats are torch's NotImplementedError `"bitwise_not_cpu" not implemented for
/// 'Float'`. Mirrors `torch.bitwise_not`.
pub fn bitwise_not(input: &Tensor) -> Result<Tensor> {
    bitwise_not_plan(input)?.run()
}

/// `bitwise_not` checked and ready to run (Note [One kernel per op]).
pub fn bitwise_not_plan(input: &Tensor) -> Result<Plan<'_, impl Kernel + '_>> {
    let d = input.dtype();
    if d.is_floating_point() {
        return Err(not_implemented("bitwise_not_cpu", d));
    }
    unary_plan(
        input,
        d,
        move |out, fresh| crate::dispatch!(d, T => unary_into::<T, T>(out, input, fresh, |x: T| x.bnot())),
    )
}

/// `positive(input)`: input itself (`+input`); NotImplementedError "The `+` operator, on a bool
/// tensor is not supported." for bool. Mirrors `torch.positive`.
pub fn positive(input: &Tensor) -> Result<Tensor> {
    if input.dtype() == DType::Bool {
        return Err(Error::not_implemented(
            "The `+` operator, on a bool tensor is not supported.",
        ));
    }
    Ok(input.clone())
}

/// `real(input)`, `conj(input)`, `resolve_conj(input)`, `resolve_neg(input)`,
/// `conj_physical(input)` of a real tensor: input itself (torch returns the same tensor for
/// real dtypes; complex dtypes do not exist here). Mirror `torch.real` etc.
pub fn real(input: &Tensor) -> Result<Tensor> {
    Ok(input.clone())
}

/// See [`real`]. Mirrors `torch.conj`.
pub fn conj(input: &Tensor) -> Result<Tensor> {
    Ok(input.clone())
}

/// See [`real`]. Mirrors `torch.resolve_conj`.
pub fn resolve_conj(input: &Tensor) -> Result<Tensor> {
    Ok(input.clone())
}

/// See [`real`]. Mirrors `torch.resolve_neg`.
pub fn resolve_neg(input: &Tensor) -> Result<Tensor> {
    Ok(input.clone())
}

/// See [`real`]. Mirrors `torch.conj_physical`.
pub fn conj_physical(input: &Tensor) -> Result<Tensor> {
    Ok(input.clone())
}

/// `angle(input)` of a real tensor: pi where input < 0, NaN where it is NaN, else 0; integer
/// and bool inputs give the default float dtype (float32), floats keep theirs. Mirrors
/// `torch.angle`.
pub fn angle(input: &Tensor) -> Result<Tensor> {
    let x = if input.dtype().is_floating_point() {
        input.clone()
    } else {
        input.to_dtype(DType::DEFAULT_FLOAT)?
    };
    let dt = x.dtype();
    let zero = Tensor::full(&[], Scalar::Float(0.0), dt)?;
    let pi = Tensor::full(&[], Scalar::Float(std::f64::consts::PI), dt)?;
    let r = super::where_(&super::lt(&x, &zero)?, &pi, &zero)?;
    super::where_(&isnan(&x)?, &x, &r)
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
