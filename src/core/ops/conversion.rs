//! src/core/ops/conversion.rs: dtype conversion and element extraction (`to`, `float`, `item`, ...).

use crate::core::{DType, Result, Scalar, Tensor};

/// `to(dtype)`: `input` itself (another handle, no copy) when it already has `dtype` and `copy`
/// is false, otherwise a converted copy (torch's `Tensor.to(dtype, copy=False)`).
pub fn to(input: &Tensor, dtype: DType, copy: bool) -> Result<Tensor> {
    if input.dtype() == dtype && !copy {
        return Ok(input.clone());
    }
    input.to_dtype(dtype)
}

/// `Tensor.float()`: `to(float32)`.
pub fn float(input: &Tensor) -> Result<Tensor> {
    to(input, DType::Float32, false)
}
/// `Tensor.double()`: `to(float64)`.
pub fn double(input: &Tensor) -> Result<Tensor> {
    to(input, DType::Float64, false)
}
/// `Tensor.long()`: `to(int64)`.
pub fn long(input: &Tensor) -> Result<Tensor> {
    to(input, DType::Int64, false)
}
/// `Tensor.int()`: `to(int32)`.
pub fn int(input: &Tensor) -> Result<Tensor> {
    to(input, DType::Int32, false)
}
/// `Tensor.bool()`: `to(bool)`.
pub fn bool(input: &Tensor) -> Result<Tensor> {
    to(input, DType::Bool, false)
}

/// `Tensor.item()`: the value of a one-element tensor; `RuntimeError` otherwise.
pub fn item(input: &Tensor) -> Result<Scalar> {
    input.item()
}
