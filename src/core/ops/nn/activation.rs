//! src/core/ops/nn/activation.rs: the activation functions of torch.nn.functional (PyTorch:
//! `native/Activation.cpp`, `cpu/Activation.cpp`) — `leaky_relu`, `elu`/`selu`/`celu`, `gelu`,
//! `silu`, `mish`, `softplus`, `hardtanh`/`relu6`, `hardsigmoid`, `hardswish`, `log_sigmoid`,
//! `threshold`, `glu` — each with its `{op}_plan` (Note [One kernel per op]) so the schema
//! derives the in-place form (`_C._nn.leaky_relu_`, `_C.selu_`).

use super::{not_float, Float};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::iter::unary_into;
use crate::core::ops::plan::{Kernel, Plan};
use crate::core::scalar::Scalar;
use crate::core::tensor::Tensor;
use crate::core::vecmath::{self, Func};
use std::borrow::Cow;

/// The plan of a float-only activation: `f32f`/`f64f` per element, input's shape and dtype;
/// another dtype is torch's NotImplementedError naming `kernel`.
fn float_plan<'a>(
    input: &'a Tensor,
    kernel: &'static str,
    f32f: impl Fn(f32) -> f32 + 'a,
    f64f: impl Fn(f64) -> f64 + 'a,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let dtype = input.dtype();
    if !matches!(dtype, DType::Float32 | DType::Float64) {
        return Err(not_float(kernel, dtype));
    }
    Ok(Plan::new(
        Cow::Borrowed(input.sizes()),
        dtype,
        [Some(input), None, None],
        move |out: &Tensor, fresh: bool| match dtype {
            DType::Float64 => unary_into::<f64, f64>(out, input, fresh, f64f),
            _ => unary_into::<f32, f32>(out, input, fresh, f32f),
        },
    ))
}

/// The plan of a float-only activation computed by a vectorised `vecmath` function.
fn vec_plan<'a>(
    input: &'a Tensor,
    kernel: &'static str,
    func: Func,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let dtype = input.dtype();
    if !matches!(dtype, DType::Float32 | DType::Float64) {
        return Err(not_float(kernel, dtype));
    }
    Ok(Plan::new(
        Cow::Borrowed(input.sizes()),
        dtype,
        [Some(input), None, None],
        move |out: &Tensor, fresh: bool| {
            let n = out.numel();
            if n == 0 {
                return Ok(());
            }
            let same = out.same_tensor(input)
                || (out.data_ptr::<u8>() == input.data_ptr::<u8>()
                    && out.strides() == input.strides());
            let src = super::contiguous_of(input)?;
            if out.is_contiguous() && (fresh || same || !out.shares_storage(input)) {
                crate::core::interrupt::checkpoint();
                // SAFETY: `out` is contiguous with `n` elements of `dtype`; `src` too; they are
                // either the same memory (in place, `map_*` allows it) or do not overlap.
                unsafe {
                    match dtype {
                        DType::Float64 => {
                            let d = std::slice::from_raw_parts_mut(out.data_ptr::<f64>(), n);
                            if same {
                                vecmath::map_f64_inplace(func, d)
                            } else {
                                vecmath::map_f64(func, super::elems::<f64>(&src), d)
                            }
                        }
                        _ => {
                            let d = std::slice::from_raw_parts_mut(out.data_ptr::<f32>(), n);
                            if same {
                                vecmath::map_f32_inplace(func, d)
                            } else {
                                vecmath::map_f32(func, super::elems::<f32>(&src), d)
                            }
                        }
                    }
                }
                Ok(())
            } else {
                let tmp = src.clone_data()?;
                // SAFETY: `tmp` is a fresh contiguous copy of dtype `dtype`.
                unsafe {
                    match dtype {
                        DType::Float64 => vecmath::map_f64_inplace(
                            func,
                            std::slice::from_raw_parts_mut(tmp.data_ptr::<f64>(), n),
                        ),
                        _ => vecmath::map_f32_inplace(
                            func,
                            std::slice::from_raw_parts_mut(tmp.data_ptr::<f32>(), n),
                        ),
                    }
                }
                out.copy_from(&tmp)
            }
        },
    ))
}

macro_rules! define_plain {
    ($(#[$doc:meta])* $name:ident, $plan:ident ($($p:ident: $pt:ty),*)) => {
        $(#[$doc])*
        pub fn $name(input: &Tensor $(, $p: $pt)*) -> Result<Tensor> {
            $plan(input $(, $p)*)?.run()
        }
    };
}

#[inline(always)]
fn leaky<T: Float>(x: T, slope: T) -> T {
    if x > T::ZERO {
        x
    } else {
        x * slope
    }
}

define_plain!(
    /// `leaky_relu(input, negative_slope=0.01)`: `x` for `x > 0`, else `negative_slope * x`.
    /// Mirrors `torch._C._nn.leaky_relu`.
    leaky_relu, leaky_relu_plan(negative_slope: Scalar)
);

/// `leaky_relu` checked and ready to run (Note [One kernel per op]).
pub fn leaky_relu_plan(
    input: &Tensor,
    negative_slope: Scalar,
) -> Result<Plan<'_, impl Kernel + '_>> {
    let s = negative_slope.to_f64();
    float_plan(
        input,
        "leaky_relu_cpu",
        move |x: f32| leaky(x, s as f32),
        move |x: f64| leaky(x, s),
    )
}

#[inline(always)]
fn elu_k<T: Float>(x: T, alpha: T, scale: T, input_scale: T) -> T {
    if x > T::ZERO {
        x * scale
    } else {
        (x * input_scale).exp_m1() * alpha * scale
    }
}

define_plain!(
    /// `elu(input, alpha=1, scale=1, input_scale=1)`: `scale * x` for `x > 0`, else
    /// `alpha * scale * (exp(input_scale * x) - 1)` (torch's one kernel behind `elu`, `selu`
    /// and `celu`). Mirrors `torch._C._nn.elu`.
    elu, elu_plan(alpha: Scalar, scale: Scalar, input_scale: Scalar)
);

/// `elu` checked and ready to run (Note [One kernel per op]).
pub fn elu_plan(
    input: &Tensor,
    alpha: Scalar,
    scale: Scalar,
    input_scale: Scalar,
) -> Result<Plan<'_, impl Kernel + '_>> {
    let (a, s, i) = (alpha.to_f64(), scale.to_f64(), input_scale.to_f64());
    float_plan(
        input,
        "elu_cpu",
        move |x: f32| elu_k(x, a as f32, s as f32, i as f32),
        move |x: f64| elu_k(x, a, s, i),
    )
}

const SELU_ALPHA: f64 = 1.673_263_242_354_377_3;
const SELU_SCALE: f64 = 1.050_700_987_355_480_5;

define_plain!(
    /// `selu(input)`: `elu` with torch's fixed `alpha` and `scale`. Mirrors `torch.selu`.
    selu, selu_plan()
);

/// `selu` checked and ready to run (Note [One kernel per op]).
pub fn selu_plan(input: &Tensor) -> Result<Plan<'_, impl Kernel + '_>> {
    elu_plan(
        input,
        Scalar::Float(SELU_ALPHA),
        Scalar::Float(SELU_SCALE),
        Scalar::Float(1.0),
    )
}

define_plain!(
    /// `celu(input, alpha=1.0)`: `elu(input, alpha, 1, 1/alpha)`. Mirrors `torch.celu`.
    celu, celu_plan(alpha: Scalar)
);

/// `celu` checked and ready to run (Note [One kernel per op]).
pub fn celu_plan(input: &Tensor, alpha: Scalar) -> Result<Plan<'_, impl Kernel + '_>> {
    let a = alpha.to_f64();
    if a == 0.0 {
        return Err(Error::runtime("ZeroDivisionError"));
    }
    elu_plan(input, alpha, Scalar::Float(1.0), Scalar::Float(1.0 / a))
}

define_plain!(
    /// `gelu(input, approximate='none')`: `x * Phi(x)` (`'none'`: the erf form; `'tanh'`: the
    /// tanh approximation). Mirrors `torch._C._nn.gelu`.
    gelu, gelu_plan(approximate: &str)
);

/// `gelu` checked and ready to run (Note [One kernel per op]).
pub fn gelu_plan<'a>(input: &'a Tensor, approximate: &str) -> Result<Plan<'a, impl Kernel + 'a>> {
    let func = match approximate {
        "none" => Func::GeluErf,
        "tanh" => Func::GeluTanh,
        _ => {
            return Err(Error::runtime(
                "approximate argument must be either none or tanh.",
            ))
        }
    };
    vec_plan(input, "GeluKernelImpl", func)
}

#[inline(always)]
fn silu_k<T: Float>(x: T) -> T {
    x / (T::ONE + (-x).exp())
}

define_plain!(
    /// `silu(input)`: `x * sigmoid(x)`. Mirrors `torch._C._nn.silu`.
    silu, silu_plan()
);

/// `silu` checked and ready to run (Note [One kernel per op]).
pub fn silu_plan(input: &Tensor) -> Result<Plan<'_, impl Kernel + '_>> {
    float_plan(input, "silu_cpu", silu_k::<f32>, silu_k::<f64>)
}

#[inline(always)]
fn mish_k<T: Float>(x: T) -> T {
    x * x.exp().ln_1p().tanh()
}

define_plain!(
    /// `mish(input)`: `x * tanh(softplus(x))`. Mirrors `torch._C._nn.mish`.
    mish, mish_plan()
);

/// `mish` checked and ready to run (Note [One kernel per op]).
pub fn mish_plan(input: &Tensor) -> Result<Plan<'_, impl Kernel + '_>> {
    float_plan(input, "mish_cpu", mish_k::<f32>, mish_k::<f64>)
}

#[inline(always)]
fn softplus_k<T: Float>(x: T, beta: T, threshold: T) -> T {
    if x * beta > threshold {
        x
    } else {
        (x * beta).exp().ln_1p() / beta
    }
}

define_plain!(
    /// `softplus(input, beta=1, threshold=20)`: `log(1 + exp(beta x)) / beta`, or `x` where
    /// `beta x > threshold`. Mirrors `torch._C._nn.softplus`.
    softplus, softplus_plan(beta: Scalar, threshold: Scalar)
);

/// `softplus` checked and ready to run (Note [One kernel per op]).
pub fn softplus_plan(
    input: &Tensor,
    beta: Scalar,
    threshold: Scalar,
) -> Result<Plan<'_, impl Kernel + '_>> {
    let (b, t) = (beta.to_f64(), threshold.to_f64());
    float_plan(
        input,
        "softplus_cpu",
        move |x: f32| softplus_k(x, b as f32, t as f32),
        move |x: f64| softplus_k(x, b, t),
    )
}

#[inline(always)]
fn hardsigmoid_k<T: Float>(x: T) -> T {
    let six = T::of(6.0);
    (x + T::of(3.0)).maxn(T::ZERO).minn(six) / six
}

define_plain!(
    /// `hardsigmoid(input)`: `relu6(x + 3) / 6`. Mirrors `torch._C._nn.hardsigmoid`.
    hardsigmoid, hardsigmoid_plan()
);

/// `hardsigmoid` checked and ready to run (Note [One kernel per op]).
pub fn hardsigmoid_plan(input: &Tensor) -> Result<Plan<'_, impl Kernel + '_>> {
    float_plan(
        input,
        "hardsigmoid_cpu",
        hardsigmoid_k::<f32>,
        hardsigmoid_k::<f64>,
    )
}

#[inline(always)]
fn hardswish_k<T: Float>(x: T) -> T {
    let six = T::of(6.0);
    x * (x + T::of(3.0)).maxn(T::ZERO).minn(six) / six
}

define_plain!(
    /// `hardswish(input)`: `x * relu6(x + 3) / 6`. Mirrors `torch._C._nn.hardswish`.
    hardswish, hardswish_plan()
);

/// `hardswish` checked and ready to run (Note [One kernel per op]).
pub fn hardswish_plan(input: &Tensor) -> Result<Plan<'_, impl Kernel + '_>> {
    float_plan(
        input,
        "hardswish_cpu",
        hardswish_k::<f32>,
        hardswish_k::<f64>,
    )
}

#[inline(always)]
fn log_sigmoid_k<T: Float>(x: T) -> T {
    x.minn(T::ZERO) - (-x.abs()).exp().ln_1p()
}

define_plain!(
    /// `log_sigmoid(input)`: `log(1 / (1 + exp(-x)))`, computed stably. Mirrors
    /// `torch._C._nn.log_sigmoid`.
    log_sigmoid, log_sigmoid_plan()
);

/// `log_sigmoid` checked and ready to run (Note [One kernel per op]).
pub fn log_sigmoid_plan(input: &Tensor) -> Result<Plan<'_, impl Kernel + '_>> {
    float_plan(
        input,
        "log_sigmoid_cpu",
        log_sigmoid_k::<f32>,
        log_sigmoid_k::<f64>,
    )
}

define_plain!(
    /// `hardtanh(input, min_val=-1, max_val=1)`: `input` clamped to `[min_val, max_val]` (any
    /// dtype but bool, kept). Mirrors `torch._C._nn.hardtanh`.
    hardtanh, hardtanh_plan(min_val: Scalar, max_val: Scalar)
);

/// `hardtanh` checked and ready to run (Note [One kernel per op]).
// The bool arm of `dispatch!` is never taken (rejected above) but still type-checks.
#[allow(clippy::bool_comparison)]
pub fn hardtanh_plan(
    input: &Tensor,
    min_val: Scalar,
    max_val: Scalar,
) -> Result<Plan<'_, impl Kernel + '_>> {
    let dtype = input.dtype();
    if dtype == DType::Bool {
        return Err(not_float("hardtanh", dtype));
    }
    Ok(Plan::new(
        Cow::Borrowed(input.sizes()),
        dtype,
        [Some(input), None, None],
        move |out: &Tensor, fresh: bool| {
            crate::dispatch!(dtype, T => {
                let (lo, hi): (T, T) = (min_val.to::<T>(), max_val.to::<T>());
                unary_into::<T, T>(out, input, fresh, move |x: T| {
                    // NaN stays NaN (neither comparison holds).
                    if x < lo { lo } else if x > hi { hi } else { x }
                })
            })
        },
    ))
}

define_plain!(
    /// `relu6(input)`: `hardtanh(input, 0, 6)`. Mirrors `torch._C._nn.relu6`.
    relu6, relu6_plan()
);

/// `relu6` checked and ready to run (Note [One kernel per op]).
pub fn relu6_plan(input: &Tensor) -> Result<Plan<'_, impl Kernel + '_>> {
    hardtanh_plan(input, Scalar::Int(0), Scalar::Int(6))
}

define_plain!(
    /// `threshold(input, threshold, value)`: `value` where `input <= threshold`, else `input`
    /// (any dtype but bool, kept). Mirrors `torch.threshold`.
    threshold, threshold_plan(threshold: Scalar, value: Scalar)
);

/// `threshold` checked and ready to run (Note [One kernel per op]).
#[allow(clippy::bool_comparison)]
pub fn threshold_plan(
    input: &Tensor,
    threshold: Scalar,
    value: Scalar,
) -> Result<Plan<'_, impl Kernel + '_>> {
    let dtype = input.dtype();
    if dtype == DType::Bool {
        return Err(not_float("threshold_cpu", dtype));
    }
    Ok(Plan::new(
        Cow::Borrowed(input.sizes()),
        dtype,
        [Some(input), None, None],
        move |out: &Tensor, fresh: bool| {
            crate::dispatch!(dtype, T => {
                let (th, v): (T, T) = (threshold.to::<T>(), value.to::<T>());
                unary_into::<T, T>(out, input, fresh, move |x: T| if x <= th { v } else { x })
            })
        },
    ))
}

/// `glu(input, dim=-1)`: `a * sigmoid(b)` of the two halves of `input` along `dim`. Mirrors
/// `torch._C._nn.glu`.
pub fn glu(input: &Tensor, dim: i64) -> Result<Tensor> {
    if !matches!(input.dtype(), DType::Float32 | DType::Float64) {
        return Err(not_float("glu_cpu", input.dtype()));
    }
    if input.dim() == 0 {
        return Err(Error::runtime(
            "glu does not support scalars because halving size must be even",
        ));
    }
    let d = crate::core::tensor::maybe_wrap_dim(dim, input.dim())?;
    let n = input.sizes()[d];
    if !n.is_multiple_of(2) {
        return Err(Error::runtime(format!(
            "Halving dimension must be even, but dimension {d} is size {n}"
        )));
    }
    let h = (n / 2) as i64;
    let a = crate::core::ops::narrow(input, d as i64, 0, h)?;
    let b = crate::core::ops::narrow(input, d as i64, h, h)?;
    crate::core::ops::mul(&a, &crate::core::ops::sigmoid(&b)?)
}
