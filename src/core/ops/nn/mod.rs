//! src/core/ops/nn: the forward kernels of torch.nn.functional (PyTorch: `native/Activation.cpp`,
//! `Loss.cpp`, `layer_norm.cpp`, `Normalization.cpp`, `ConvolutionMM2d.cpp`,
//! `DilatedMaxPool2d.cpp`, `AveragePool2d.cpp`, `PadNd.cpp`, `Embedding.cpp`, `Dropout.cpp`),
//! one file per family, re-exported under the schema's names. Float32 and float64 only, as
//! torch's CPU kernels for these ops (integers get torch's NotImplementedError).
//!
//! Each op is written so a derivative formula can be attached when autograd lands: the pieces a
//! backward needs are results of their own, under ATen's names (`native_layer_norm` returns the
//! mean and rstd, `max_pool2d_with_indices` the argmax, `nll_loss_forward` the total weight,
//! `native_batch_norm` the saved mean and inverse std, `convolution` is the one conv entry).

use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;

pub mod activation;
pub mod backward;
pub mod conv;
pub mod linear;
pub mod loss;
pub mod misc;
pub mod norm;
pub mod pad;
pub mod pool;
pub mod upsample;

pub use activation::*;
pub use conv::*;
pub use linear::*;
pub use loss::*;
pub use misc::*;
pub use norm::*;
pub use pad::*;
pub use pool::*;
pub use upsample::{
    _upsample_nearest_exact1d, _upsample_nearest_exact2d, upsample_bilinear2d, upsample_linear1d,
    upsample_nearest1d, upsample_nearest2d,
};

/// The float element types of the nn kernels (`f32`, `f64`): the libm functions they use and
/// conversions through `f64` for the op's scalar parameters.
pub trait Float:
    crate::core::dtype::Element
    + Copy
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
    + std::ops::AddAssign
    + Send
    + Sync
    + 'static
{
    const ZERO: Self;
    const ONE: Self;
    fn of(x: f64) -> Self;
    fn f64(self) -> f64;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn ln_1p(self) -> Self;
    fn exp_m1(self) -> Self;
    fn tanh(self) -> Self;
    fn abs(self) -> Self;
    fn sqrt(self) -> Self;
    fn powf(self, p: Self) -> Self;
    fn is_nan(self) -> bool;
    fn neg_infinity() -> Self;
    /// `max`, NaN-propagating as torch's `max` kernels (a NaN operand wins).
    fn maxn(self, o: Self) -> Self {
        if self.is_nan() || self >= o {
            self
        } else {
            o
        }
    }
    /// `min`, NaN-propagating.
    fn minn(self, o: Self) -> Self {
        if self.is_nan() || self <= o {
            self
        } else {
            o
        }
    }
}

macro_rules! impl_float {
    ($t:ty) => {
        impl Float for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            #[inline(always)]
            fn of(x: f64) -> Self {
                x as $t
            }
            #[inline(always)]
            fn f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn exp(self) -> Self {
                <$t>::exp(self)
            }
            #[inline(always)]
            fn ln(self) -> Self {
                <$t>::ln(self)
            }
            #[inline(always)]
            fn ln_1p(self) -> Self {
                <$t>::ln_1p(self)
            }
            #[inline(always)]
            fn exp_m1(self) -> Self {
                <$t>::exp_m1(self)
            }
            #[inline(always)]
            fn tanh(self) -> Self {
                <$t>::tanh(self)
            }
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            #[inline(always)]
            fn powf(self, p: Self) -> Self {
                <$t>::powf(self, p)
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            #[inline(always)]
            fn neg_infinity() -> Self {
                <$t>::NEG_INFINITY
            }
        }
    };
}
impl_float!(f32);
impl_float!(f64);

/// Run `$body` with `$T` bound to `f32` or `f64` for a float `$dtype`; any other dtype is torch's
/// NotImplementedError `"$kernel" not implemented for 'Long'`.
macro_rules! float_dispatch {
    ($dtype:expr, $kernel:expr, $T:ident => $body:expr) => {
        match $dtype {
            $crate::core::dtype::DType::Float32 => {
                type $T = f32;
                $body
            }
            $crate::core::dtype::DType::Float64 => {
                type $T = f64;
                $body
            }
            other => Err($crate::core::ops::nn::not_float($kernel, other)),
        }
    };
}
pub(crate) use float_dispatch;

/// torch's dispatch error for a float-only kernel.
pub(crate) fn not_float(kernel: &str, dtype: DType) -> Error {
    super::arith::not_implemented(kernel, dtype)
}

/// `t`'s elements in order, as a slice of a contiguous tensor (`t` itself when it is
/// contiguous, else a contiguous copy kept alive in the returned tensor).
pub(crate) fn contiguous_of(t: &Tensor) -> Result<Tensor> {
    if t.is_contiguous() {
        Ok(t.alias())
    } else {
        t.contiguous()
    }
}

/// The elements of a contiguous tensor of dtype `T`.
///
/// # Safety
/// `t` is contiguous, of dtype `T`, and nobody writes it while the slice lives.
pub(crate) unsafe fn elems<T: Float>(t: &Tensor) -> &[T] {
    debug_assert!(t.is_contiguous() && t.dtype() == T::DTYPE);
    if t.numel() == 0 {
        return &[];
    }
    // SAFETY: the caller's contract; `data_ptr` points at the first of `numel` elements.
    unsafe { std::slice::from_raw_parts(t.data_ptr::<T>(), t.numel()) }
}

/// A new contiguous tensor of `shape` and dtype `T` filled by `fill` (which must write every
/// element; it is called with an empty slice for an empty tensor).
pub(crate) fn new_with<T: Float>(
    shape: &[usize],
    fill: impl FnOnce(&mut [T]) -> Result<()>,
) -> Result<Tensor> {
    let out = Tensor::zeros(shape, T::DTYPE)?;
    if out.numel() > 0 {
        // SAFETY: `out` is fresh, contiguous, of dtype `T` and not shared.
        let s = unsafe { std::slice::from_raw_parts_mut(out.data_ptr::<T>(), out.numel()) };
        fill(s)?;
    } else {
        // Still called: kernels also compute per-row statistics (of empty rows).
        fill(&mut [])?;
    }
    Ok(out)
}

/// torch's `reduction` enum (`at::Reduction`): 0 none, 1 mean, 2 sum.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Reduction {
    None,
    Mean,
    Sum,
}

impl Reduction {
    /// The enum from its int (as `_Reduction.get_enum` gives it).
    pub fn from_int(r: i64) -> Result<Reduction> {
        match r {
            0 => Ok(Reduction::None),
            1 => Ok(Reduction::Mean),
            2 => Ok(Reduction::Sum),
            _ => Err(Error::value(format!(
                "{r} is not a valid value for reduction"
            ))),
        }
    }
}

/// The largest stride, padding, dilation or kernel size the kernels take (index arithmetic
/// then stays far from overflow); larger values are a RuntimeError.
pub(crate) const MAX_PARAM: i64 = 1 << 31;

/// The int list argument `v` of an op of `dims` spatial dimensions as exactly `dims` values:
/// one value is repeated (torch's `_pair`), `default` when empty (pooling's stride).
pub(crate) fn expand_param(
    op: &str,
    name: &str,
    v: &[i64],
    dims: usize,
    default: Option<&[i64]>,
) -> Result<Vec<i64>> {
    match v.len() {
        0 if default.is_some() => Ok(default.unwrap_or(&[]).to_vec()),
        1 => Ok(vec![v[0]; dims]),
        n if n == dims => Ok(v.to_vec()),
        _ => Err(Error::runtime(format!(
            "{op}: {name} must either be a single int, or a tuple of {dims} ints"
        ))),
    }
}
