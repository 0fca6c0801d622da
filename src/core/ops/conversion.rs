//! src/core/ops/conversion.rs: dtype conversion, element extraction and metadata queries
//! (`to`, `float`, `item`, `size`, `stride`, ...) (PyTorch: `native/TensorConversions.cpp`,
//! `native/TensorProperties.cpp`).

use crate::core::dtype::Element;
use crate::core::error::Error;
use crate::core::{DType, Result, Scalar, Tensor};

/// `t`'s elements in logical (row-major) order, each mapped through `f`, copied into a `Vec`
/// whose memory is reserved fallibly: `OutOfMemory` (Python's MemoryError) where an infallible
/// `Vec` would abort the process. Any kernel that copies a caller's tensor into a `Vec` uses this
/// (or `try_to_vec`): an expanded tensor claims up to 2^62 elements over a single stored one, so
/// `_C.zeros(1).expand(2**40).tolist()` must raise, not abort (found by tests/python/fuzzing.py).
pub fn try_map_to_vec<T: Element, U>(t: &Tensor, mut f: impl FnMut(T) -> U) -> Result<Vec<U>> {
    assert_eq!(T::DTYPE, t.dtype(), "try_map_to_vec: wrong element type");
    let n = t.numel();
    let mut out = Vec::new();
    out.try_reserve_exact(n).map_err(|_| {
        Error::out_of_memory(format!(
            "failed to allocate {} bytes to copy a tensor of {n} elements",
            n.saturating_mul(std::mem::size_of::<U>())
        ))
    })?;
    // SAFETY: the slice is copied out at once; concurrent writers are excluded by the core's
    // contract (Note [Concurrency contract]).
    if let Some(s) = unsafe { t.as_slice::<T>() } {
        out.extend(s.iter().map(|&v| f(v)));
        return Ok(out);
    }
    let base = t.data_ptr::<T>();
    crate::core::iter::strided_for_each(t.sizes(), [t.strides()], |[o]| {
        // SAFETY: `strided_for_each` visits exactly the element offsets of `t`'s sizes and
        // strides, each of which addresses an initialised element of `t`'s live storage.
        out.push(f(unsafe { *base.offset(o) }))
    });
    Ok(out)
}

/// `t`'s elements in logical order, copied out; `OutOfMemory` instead of an abort when they do
/// not fit (see `try_map_to_vec`).
pub fn try_to_vec<T: Element>(t: &Tensor) -> Result<Vec<T>> {
    try_map_to_vec(t, |v: T| v)
}

/// `t`'s elements in logical order as `f64` (any dtype); fallible as `try_map_to_vec`.
pub fn try_to_f64_vec(t: &Tensor) -> Result<Vec<f64>> {
    crate::dispatch!(t.dtype(), T => try_map_to_vec(t, |v: T| v.to_f64()))
}

/// `t`'s elements in logical order as `Scalar`s (for `tolist`); fallible as `try_map_to_vec`.
pub fn try_to_scalar_vec(t: &Tensor) -> Result<Vec<Scalar>> {
    crate::dispatch!(t.dtype(), T => try_map_to_vec(t, Scalar::from_element::<T>))
}

/// `to(dtype)`: `input` itself (another handle, no copy) when it already has `dtype` and `copy`
/// is false, otherwise a converted copy (torch's `Tensor.to(dtype, copy=False)`).
/// `non_blocking` has no effect on the CPU (torch: likewise).
pub fn to(input: &Tensor, dtype: DType, non_blocking: bool, copy: bool) -> Result<Tensor> {
    let _ = non_blocking;
    if input.dtype() == dtype && !copy {
        return Ok(input.clone());
    }
    input.to_dtype(dtype)
}

/// `Tensor.float()`: `to(float32)`.
pub fn float(input: &Tensor) -> Result<Tensor> {
    to(input, DType::Float32, false, false)
}

/// `Tensor.double()`: `to(float64)`.
pub fn double(input: &Tensor) -> Result<Tensor> {
    to(input, DType::Float64, false, false)
}

/// `Tensor.long()`: `to(int64)`.
pub fn long(input: &Tensor) -> Result<Tensor> {
    to(input, DType::Int64, false, false)
}

/// `Tensor.int()`: `to(int32)`.
pub fn int(input: &Tensor) -> Result<Tensor> {
    to(input, DType::Int32, false, false)
}

/// `Tensor.bool()`: `to(bool)`.
pub fn bool(input: &Tensor) -> Result<Tensor> {
    to(input, DType::Bool, false, false)
}

/// `Tensor.byte()`: `to(uint8)`.
pub fn byte(input: &Tensor) -> Result<Tensor> {
    to(input, DType::UInt8, false, false)
}

/// `Tensor.char()`: `to(int8)`.
pub fn char(input: &Tensor) -> Result<Tensor> {
    to(input, DType::Int8, false, false)
}

/// `Tensor.short()`: `to(int16)`.
pub fn short(input: &Tensor) -> Result<Tensor> {
    to(input, DType::Int16, false, false)
}

/// `Tensor.to(device=None, dtype=None, non_blocking=False, copy=False)`: the device was checked
/// by the caller (every tensor is on the CPU); as `to(dtype)`, with `dtype` defaulting to
/// `input`'s (input itself unless a copy or a new dtype is asked for).
pub fn to_device(
    input: &Tensor,
    dtype: Option<DType>,
    non_blocking: bool,
    copy: bool,
) -> Result<Tensor> {
    to(input, dtype.unwrap_or(input.dtype()), non_blocking, copy)
}

/// `Tensor.to(other, non_blocking=False, copy=False)`: `to(other.dtype)` (and other's device,
/// the CPU).
pub fn to_other(input: &Tensor, other: &Tensor, non_blocking: bool, copy: bool) -> Result<Tensor> {
    to(input, other.dtype(), non_blocking, copy)
}

/// `Tensor.cpu()`: input itself (every tensor is in CPU memory; torch returns self too).
pub fn cpu(input: &Tensor) -> Result<Tensor> {
    Ok(input.clone())
}

/// `Tensor.item()`: the value of a one-element tensor; `RuntimeError` otherwise.
pub fn item(input: &Tensor) -> Result<Scalar> {
    input.item()
}

/// `Tensor.dim()`: the number of dimensions.
pub fn dim(input: &Tensor) -> Result<i64> {
    Ok(input.dim() as i64)
}

/// `numel(input)`: the number of elements.
pub fn numel(input: &Tensor) -> Result<i64> {
    Ok(input.numel() as i64)
}

/// `Tensor.size(dim=None)`: the shape. (`dim` is always `None` here: an int `dim` binds to the
/// `size.int` overload, tried first.)
pub fn sizes(input: &Tensor, dim: Option<i64>) -> Result<Vec<i64>> {
    debug_assert!(dim.is_none(), "size(int) binds to size_dim");
    Ok(input.sizes().iter().map(|&s| s as i64).collect())
}

/// torch's `maybe_wrap_dim(dim, ndim, wrap_scalar=false)`, as `TensorImpl::size(dim)` and
/// `stride(dim)` use it: a 0-dim tensor has no dim to ask about (IndexError "Dimension specified
/// as 0 but tensor has no dimensions"), where reductions accept 0 and -1 for it.
fn check_not_scalar(input: &Tensor, dim: i64) -> Result<()> {
    if input.dim() == 0 {
        return Err(crate::core::error::Error::index(format!(
            "Dimension specified as {dim} but tensor has no dimensions"
        )));
    }
    Ok(())
}

/// `Tensor.size(dim)`: one size; IndexError when `dim` is out of range (any dim of a 0-dim
/// tensor is).
pub fn size_dim(input: &Tensor, dim: i64) -> Result<i64> {
    check_not_scalar(input, dim)?;
    Ok(input.size(dim)? as i64)
}

/// `Tensor.stride(dim=None)`: the strides, in elements. (`dim` is always `None` here: an int
/// `dim` binds to the `stride.int` overload, tried first.)
pub fn strides(input: &Tensor, dim: Option<i64>) -> Result<Vec<i64>> {
    debug_assert!(dim.is_none(), "stride(int) binds to stride_dim");
    Ok(input.strides().iter().map(|&s| s as i64).collect())
}

/// `Tensor.stride(dim)`: one stride; IndexError when `dim` is out of range (any dim of a 0-dim
/// tensor is).
pub fn stride_dim(input: &Tensor, dim: i64) -> Result<i64> {
    check_not_scalar(input, dim)?;
    Ok(i64::try_from(input.stride(dim)?).unwrap_or(i64::MAX))
}

/// `Tensor.element_size()`: the size of one element in bytes.
pub fn element_size(input: &Tensor) -> Result<i64> {
    Ok(input.dtype().itemsize() as i64)
}

/// `Tensor.data_ptr()`: the address of the first element, 0 for a tensor over no memory (torch's
/// null data pointer of an empty storage).
pub fn data_ptr(input: &Tensor) -> Result<i64> {
    if input.storage_nbytes() == 0 {
        return Ok(0);
    }
    Ok(crate::dispatch!(input.dtype(), T => input.data_ptr::<T>() as usize as i64))
}

/// `Tensor.storage_offset()`: the first element's offset in the storage, in elements.
pub fn storage_offset(input: &Tensor) -> Result<i64> {
    Ok(input.storage_offset() as i64)
}

/// `Tensor.is_contiguous()`.
pub fn is_contiguous(input: &Tensor) -> Result<bool> {
    Ok(input.is_contiguous())
}

/// `is_floating_point(input)`.
pub fn is_floating_point(input: &Tensor) -> Result<bool> {
    Ok(input.dtype().is_floating_point())
}
