//! src/core/ops/strided.rs: the ops that set a tensor's geometry directly (issue 13 part 3b):
//! `unfold` (sliding windows as a view), `as_strided` (any in-bounds geometry over the storage,
//! as a view) and `empty_strided` (a fresh tensor of a given geometry) (PyTorch:
//! `native/TensorShape.cpp`, `native/TensorFactories.cpp`).

use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::tensor::{maybe_wrap_dim, Tensor};

/// `input.unfold(dimension, size, step)`: a view with `dimension` replaced by the number of
/// windows `(n - size) / step + 1` and a new last dim of `size` (window `i` starts at `i *
/// step`). A 0-dim input counts as one element. RuntimeError "maximum size for tensor at
/// dimension 0 is 7 but size is 8", "size is -1 but must be >= 0", "step is 0 but must be > 0";
/// IndexError for `dimension` out of range. Mirrors `Tensor.unfold`.
pub fn unfold(input: &Tensor, dimension: i64, size: i64, step: i64) -> Result<Tensor> {
    let nd = input.dim();
    let d = maybe_wrap_dim(dimension, nd.max(1))?;
    let max_size = if nd == 0 { 1 } else { input.sizes()[d] as i64 };
    if size > max_size {
        return Err(Error::runtime(format!(
            "maximum size for tensor at dimension {d} is {max_size} but size is {size}"
        )));
    }
    if size < 0 {
        return Err(Error::runtime(format!("size is {size} but must be >= 0")));
    }
    if step <= 0 {
        return Err(Error::runtime(format!("step is {step} but must be > 0")));
    }
    let mut sizes = input.sizes().to_vec();
    let mut strides = input.strides().to_vec();
    let inner_stride = if nd == 0 { 1 } else { strides[d] };
    if nd > 0 {
        sizes[d] = ((max_size - size) / step + 1) as usize;
        // One window when step exceeds the room left: its stride is never used, and a huge
        // step must not overflow it.
        strides[d] = (step as isize).saturating_mul(strides[d]);
    }
    sizes.push(size as usize);
    strides.push(inner_stride);
    Ok(input.as_strided(sizes, strides, input.storage_offset()))
}

/// The bytes of storage a geometry needs: 0 when an extent is 0, else `itemsize * (1 + sum
/// (size - 1) * stride)`; RuntimeError "Storage size calculation overflowed with sizes=[2, -3]
/// and strides=[3, 1]" for negative entries or an overflow (torch's `computeStorageNbytes`).
fn storage_nbytes_for(size: &[i64], stride: &[i64], itemsize: usize) -> Result<u64> {
    let overflow = || {
        Error::runtime(format!(
            "Storage size calculation overflowed with sizes={size:?} and strides={stride:?}"
        ))
    };
    if size.iter().chain(stride).any(|&v| v < 0) {
        return Err(overflow());
    }
    let mut n: u64 = 1;
    for (&s, &st) in size.iter().zip(stride) {
        if s == 0 {
            return Ok(0);
        }
        let (s, st) = (
            u64::try_from(s).map_err(|_| overflow())?,
            u64::try_from(st).map_err(|_| overflow())?,
        );
        n = (s - 1)
            .checked_mul(st)
            .and_then(|r| r.checked_add(n))
            .ok_or_else(overflow)?;
    }
    n.checked_mul(itemsize as u64).ok_or_else(overflow)
}

fn to_usize(v: &[i64]) -> Vec<usize> {
    v.iter().map(|&x| x as usize).collect()
}

fn to_isize(v: &[i64]) -> Vec<isize> {
    v.iter().map(|&x| x as isize).collect()
}

/// `as_strided(input, size, stride, storage_offset=None)`: a view of `input`'s storage with the
/// given geometry (offset in elements from the storage's start; `input`'s own offset by
/// default), which must lie inside the storage. RuntimeError "mismatch in length of strides and
/// shape", "as_strided: Negative strides are not supported at the moment, got strides: [3,
/// -1]", "setStorage: sizes [2, 3], strides [3, 1], storage offset 1, and itemsize 4 requiring a
/// storage size of 28 are out of bounds for storage of size 24", "Tensor: invalid storage offset
/// -1". Mirrors `torch.as_strided`.
pub fn as_strided(
    input: &Tensor,
    size: &[i64],
    stride: &[i64],
    storage_offset: Option<i64>,
) -> Result<Tensor> {
    if size.len() != stride.len() {
        return Err(Error::runtime("mismatch in length of strides and shape"));
    }
    if stride.iter().any(|&s| s < 0) {
        return Err(Error::runtime(format!(
            "as_strided: Negative strides are not supported at the moment, got strides: {stride:?}"
        )));
    }
    let offset = storage_offset.unwrap_or(input.storage_offset() as i64);
    let item = input.dtype().itemsize();
    let needed = storage_nbytes_for(size, stride, item)?;
    let have = input.storage_nbytes() as u64;
    if needed != 0 {
        let total = (offset as i128) * item as i128 + needed as i128;
        if total > have as i128 {
            return Err(Error::runtime(format!(
                "setStorage: sizes {size:?}, strides {stride:?}, storage offset {offset}, and itemsize {item} requiring a storage size of {total} are out of bounds for storage of size {have}"
            )));
        }
    }
    if offset < 0 {
        return Err(Error::runtime(format!(
            "Tensor: invalid storage offset {offset}"
        )));
    }
    let sizes = to_usize(size);
    crate::core::tensor::checked_numel(&sizes)?;
    Ok(input.as_strided(sizes, to_isize(stride), offset as usize))
}

/// `empty_strided(size, stride, *, dtype=None)`: a fresh tensor of the given geometry over a
/// storage just large enough for it (zero-filled here; torch leaves it uninitialised); dtype
/// defaults to float32. RuntimeError "dimensionality of sizes (2) must match dimensionality of
/// strides (1)", "Trying to create tensor with negative dimension -3: [2, -3]", and the
/// overflow error of negative strides. Mirrors `torch.empty_strided`.
pub fn empty_strided(size: &[i64], stride: &[i64], dtype: Option<DType>) -> Result<Tensor> {
    if size.len() != stride.len() {
        return Err(Error::runtime(format!(
            "dimensionality of sizes ({}) must match dimensionality of strides ({})",
            size.len(),
            stride.len()
        )));
    }
    super::factory::nonnegative_sizes(size)?;
    let dtype = dtype.unwrap_or(DType::DEFAULT_FLOAT);
    let item = dtype.itemsize();
    let nbytes = storage_nbytes_for(size, stride, item)?;
    let n = usize::try_from(nbytes / item as u64).map_err(|_| {
        Error::out_of_memory(format!("empty_strided: cannot allocate {nbytes} bytes"))
    })?;
    let sizes = to_usize(size);
    crate::core::tensor::checked_numel(&sizes)?;
    let flat = Tensor::zeros(&[n], dtype)?;
    Ok(flat.restride_owned(sizes, to_isize(stride), 0))
}

/// `repeat_interleave(repeats, *, output_size=None)`: for a 1-D int64/int32 `repeats`, the
/// indices `0, 1, ...` each repeated `repeats[i]` times, in `repeats`' dtype. RuntimeError
/// "repeat_interleave only accept 1D vector as repeat", "repeats can not be negative",
/// "allocated size does not match required size" (an `output_size` that is not the total);
/// NotImplementedError for other dtypes. Mirrors `torch.repeat_interleave(repeats)`.
pub fn repeat_interleave_tensor(repeats: &Tensor, output_size: Option<i64>) -> Result<Tensor> {
    if repeats.dim() != 1 {
        return Err(Error::runtime(
            "repeat_interleave only accept 1D vector as repeat",
        ));
    }
    if !matches!(repeats.dtype(), DType::Int64 | DType::Int32) {
        return Err(Error::not_implemented(format!(
            "\"repeat_interleave_cpu\" not implemented for '{}'",
            repeats.dtype().scalar_type_name()
        )));
    }
    let reps: Vec<i64> = repeats
        .to_scalar_vec()
        .into_iter()
        .map(|s| s.to::<i64>())
        .collect();
    if reps.iter().any(|&r| r < 0) {
        return Err(Error::runtime("repeats can not be negative"));
    }
    let total = reps
        .iter()
        .try_fold(0i64, |a, &r| a.checked_add(r))
        .ok_or_else(|| Error::out_of_memory("repeat_interleave: the result is too large"))?;
    if output_size.is_some_and(|o| o != total) {
        return Err(Error::runtime(
            "allocated size does not match required size",
        ));
    }
    let mut idx = Vec::new();
    idx.try_reserve_exact(total as usize)
        .map_err(|_| Error::out_of_memory("repeat_interleave: failed to allocate"))?;
    for (i, &r) in reps.iter().enumerate() {
        idx.extend(std::iter::repeat_n(i as i64, r as usize));
    }
    let out = Tensor::from_vec(idx, &[total as usize])?;
    if repeats.dtype() == DType::Int64 {
        Ok(out)
    } else {
        out.to_dtype(repeats.dtype())
    }
}

/// A copy of `input` whose part `part(copy)` (a view of the copy) holds `src`; RuntimeError
/// "expected src to have a size equal to the slice of self. src size = [3], slice size = [4]"
/// when the shapes differ. The shared body of the `*_scatter` ops.
fn scatter_into_part(
    input: &Tensor,
    src: &Tensor,
    part: impl FnOnce(&Tensor) -> Result<Tensor>,
) -> Result<Tensor> {
    let out = input.clone_data()?;
    let view = part(&out)?;
    if view.sizes() != src.sizes() {
        return Err(Error::runtime(format!(
            "expected src to have a size equal to the slice of self. src size = {:?}, slice size = {:?}",
            src.sizes(),
            view.sizes()
        )));
    }
    view.copy_from(src)?;
    Ok(out)
}

/// `select_scatter(input, src, dim, index)`: a copy of `input` with `src` written into
/// `select(dim, index)`. Errors of `select`, and the size check of `scatter_into_part`.
/// Mirrors `torch.select_scatter`.
pub fn select_scatter(input: &Tensor, src: &Tensor, dim: i64, index: i64) -> Result<Tensor> {
    scatter_into_part(input, src, |t| super::select(t, dim, index))
}

/// `input[..., start:end:step]` along `dim` as a view, with Python's slice rules (negative
/// bounds count from the end, out-of-range ones clamp; None is the start / end). RuntimeError
/// "slice step must be positive".
pub fn slice_view(
    input: &Tensor,
    dim: i64,
    start: Option<i64>,
    end: Option<i64>,
    step: i64,
) -> Result<Tensor> {
    let d = maybe_wrap_dim(dim, input.dim())?;
    if step <= 0 {
        return Err(Error::runtime("slice step must be positive"));
    }
    let n = input.sizes()[d] as i64;
    let wrap = |i: i64| if i < 0 { i.saturating_add(n) } else { i };
    let s = wrap(start.unwrap_or(0)).clamp(0, n);
    let e = wrap(end.unwrap_or(n)).clamp(s, n);
    let len = if e > s { (e - s - 1) / step + 1 } else { 0 };
    let mut sizes = input.sizes().to_vec();
    let mut strides = input.strides().to_vec();
    let offset =
        input.storage_offset() as isize + if len > 0 { s as isize * strides[d] } else { 0 };
    sizes[d] = len as usize;
    strides[d] = strides[d].saturating_mul(step as isize);
    Ok(input.as_strided(sizes, strides, offset as usize))
}

/// `slice_scatter(input, src, dim=0, start=None, end=None, step=1)`: a copy of `input` with
/// `src` written into `input[..., start:end:step]` along `dim`. Mirrors `torch.slice_scatter`.
pub fn slice_scatter(
    input: &Tensor,
    src: &Tensor,
    dim: i64,
    start: Option<i64>,
    end: Option<i64>,
    step: i64,
) -> Result<Tensor> {
    scatter_into_part(input, src, |t| slice_view(t, dim, start, end, step))
}

/// `diagonal_scatter(input, src, offset=0, dim1=0, dim2=1)`: a copy of `input` with `src`
/// written into `diagonal(offset, dim1, dim2)`. Mirrors `torch.diagonal_scatter`.
pub fn diagonal_scatter(
    input: &Tensor,
    src: &Tensor,
    offset: i64,
    dim1: i64,
    dim2: i64,
) -> Result<Tensor> {
    scatter_into_part(input, src, |t| super::diagonal(t, offset, dim1, dim2))
}

/// The tensor `t.resize_(size)` leaves in `t`'s place (Tensor.resize_): `size` with contiguous
/// strides at `t`'s storage offset over `t`'s storage when it is large enough (the elements it
/// holds are kept: the storage is reinterpreted row-major), else over a larger copy of it whose
/// new bytes are zero (torch leaves them uninitialised). `t` itself when `size` is its shape
/// (its strides kept, as torch). A view stays a view of its base. Errors (RuntimeError):
/// "cannot resize variables that require grad"; torch's "numel: integer multiplication
/// overflow" for a negative size; "Trying to resize storage that is not resizable" for memory
/// another library owns (numpy, DLPack, a buffer); and, where torch would grow a storage other
/// tensors share, an error saying tensorbind cannot (Tensor::storage_growable); likewise for a
/// tensor small enough to keep its elements inside itself while a view shares them.
pub fn resized(t: &Tensor, size: &[i64]) -> Result<Tensor> {
    if t.requires_grad() {
        return Err(Error::runtime("cannot resize variables that require grad"));
    }
    if size.iter().any(|&s| s < 0) {
        return Err(Error::runtime("numel: integer multiplication overflow"));
    }
    let sizes = to_usize(size);
    if sizes == t.sizes() {
        return Ok(t.clone());
    }
    let numel = crate::core::tensor::checked_numel(&sizes)?;
    let mut strides = vec![0isize; sizes.len()];
    let mut acc: isize = 1;
    for (st, &n) in strides.iter_mut().zip(&sizes).rev() {
        *st = acc;
        acc = acc.saturating_mul(n.max(1) as isize);
    }
    let item = t.dtype().itemsize();
    let offset = t.storage_offset();
    let needed = if numel == 0 {
        0
    } else {
        offset
            .checked_add(numel)
            .and_then(|n| n.checked_mul(item))
            .ok_or_else(|| Error::runtime("numel: integer multiplication overflow"))?
    };
    // A tensor whose elements live inside itself (Note [Small tensors]) is not restrided in
    // place: the new tensor would hold the old one (for the bytes), which the binding keeps
    // forwarding to the Python object — a cycle no collector sees. It gets a copy of its bytes
    // instead, as a grown storage does.
    let inline_owner = t.owns_inline_storage();
    if needed <= t.storage_nbytes() && !inline_owner {
        return Ok(match t.base() {
            Some(_) => t.as_strided(sizes, strides, offset),
            None => t.restride_owned(sizes, strides, offset),
        });
    }
    match t.storage_growable() {
        Ok(()) => {}
        Err("not resizable") => {
            return Err(Error::runtime(
                "Trying to resize storage that is not resizable",
            ))
        }
        Err(_) if needed > t.storage_nbytes() => {
            return Err(Error::runtime(format!(
                "resize_: cannot grow the storage ({} bytes) of a tensor that shares it with \
                 another tensor (a view or its base) to {needed} bytes: tensorbind's storages \
                 have a fixed size (torch grows the shared storage in place); resize a tensor \
                 of its own (clone() it first)",
                t.storage_nbytes()
            )))
        }
        Err(_) => {
            return Err(Error::runtime(format!(
                "resize_: cannot resize a tensor of at most {} bytes (kept inside the tensor \
                 itself) while another tensor (a view) shares its elements: resize a tensor of \
                 its own (clone() it first)",
                crate::core::tensor::INLINE_BYTES
            )))
        }
    }
    let old_n = t.storage_nbytes() / item;
    let grown = Tensor::zeros(&[needed.max(t.storage_nbytes()) / item], t.dtype())?;
    if old_n > 0 {
        grown
            .as_strided([old_n], [1isize], 0)
            .copy_from(&t.as_strided([old_n], [1isize], 0))?;
    }
    Ok(grown.restride_owned(sizes, strides, offset))
}

/// torch's `clone_preserve_strides`: a copy of `input`'s whole storage viewed with `input`'s
/// sizes, strides and storage offset (a plain contiguous clone when `input` has internal
/// overlap, where the geometry cannot be kept).
fn clone_preserve_strides(input: &Tensor) -> Result<Tensor> {
    if input.assert_no_internal_overlap().is_err() {
        return input.clone_data();
    }
    let n = input.storage_nbytes() / input.dtype().itemsize();
    let whole = input.as_strided([n], [1isize], 0).clone_data()?;
    Ok(whole.restride_owned(input.sizes(), input.strides(), input.storage_offset()))
}

/// `as_strided_scatter(input, src, size, stride, storage_offset=None)`: a copy of `input` (its
/// whole storage, with its geometry: torch's `clone_preserve_strides`) with `src` written into
/// `as_strided(copy, size, stride, storage_offset)`. Errors of `as_strided`, and RuntimeError
/// "expected src to have a size equal to the slice of self. src size = [3], slice size = [2,
/// 2]". Mirrors `torch.as_strided_scatter`.
pub fn as_strided_scatter(
    input: &Tensor,
    src: &Tensor,
    size: &[i64],
    stride: &[i64],
    storage_offset: Option<i64>,
) -> Result<Tensor> {
    if input.requires_grad() && !input.is_contiguous() {
        // torch 2.15's check (an internal assert there, a RuntimeError either way): its
        // derivative assumes a contiguous input.
        return Err(Error::runtime(
            "as_strided_scatter is currently only supported for contiguous inputs",
        ));
    }
    let out = clone_preserve_strides(input)?;
    let view = as_strided(&out, size, stride, storage_offset)?;
    if view.sizes() != src.sizes() {
        return Err(Error::runtime(format!(
            "expected src to have a size equal to the slice of self. src size = {:?}, slice size = {:?}",
            src.sizes(),
            view.sizes()
        )));
    }
    view.copy_from(src)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_nbytes_matches_torch() {
        assert_eq!(storage_nbytes_for(&[2, 3], &[1, 2], 4).unwrap(), 24);
        assert_eq!(storage_nbytes_for(&[2, 3], &[4, 2], 4).unwrap(), 36);
        assert_eq!(storage_nbytes_for(&[0, 3], &[4, 2], 4).unwrap(), 0);
        assert!(storage_nbytes_for(&[2, -3], &[3, 1], 4).is_err());
        assert!(storage_nbytes_for(&[i64::MAX, 3], &[i64::MAX, 1], 4).is_err());
    }

    #[test]
    fn unfold_windows() {
        let t = Tensor::from_vec((0..7).collect::<Vec<i64>>(), &[7]).unwrap();
        let u = unfold(&t, 0, 3, 2).unwrap();
        assert_eq!(u.sizes(), &[3, 3]);
        assert_eq!(
            u.contiguous().unwrap().to_vec::<i64>(),
            vec![0, 1, 2, 2, 3, 4, 4, 5, 6]
        );
    }
}
