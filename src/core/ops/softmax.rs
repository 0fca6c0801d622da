//! src/core/ops/softmax.rs: `softmax` and `log_softmax` along a dim (PyTorch:
//! `native/SoftMax.cpp`), composed from `amax`, `exp`, `sum` and `log`.

use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::ops::{amax, exp, log, sub, sum};
use crate::core::scalar::Scalar;
use crate::core::tensor::{maybe_wrap_dim, Tensor};

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
    // An empty input is returned as it is, whatever its dtype (torch never reaches the kernel).
    if !x.dtype().is_floating_point() && x.numel() != 0 {
        let last = x.dim() == 0 || d == x.dim() - 1;
        // NotImplementedError, as torch's dispatch error.
        return Err(Error::not_implemented(format!(
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
