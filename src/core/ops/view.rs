//! src/core/ops/view.rs: view ops, every op whose result shares its input's storage (PyTorch:
//! `native/TensorShape.cpp`) — `view`, `reshape` (a view when the strides allow), `transpose`,
//! `permute`, `squeeze`, `unsqueeze`, `flatten`, `unflatten`, `expand`, `select`, `narrow`,
//! `movedim`, `swapaxes`/`swapdims`, `diagonal`, `split`, `chunk`, `unbind`.

use super::try_vec;
use crate::core::error::{Error, Result};
use crate::core::tensor::{checked_numel, contiguous_strides, maybe_wrap_dim, Tensor};
use crate::core::warnings::{self, WarningKind};
use std::sync::atomic::AtomicBool;

/// torch's `infer_size`: `shape` with its one `-1` replaced so the element count is `numel`.
/// Errors (RuntimeError): `only one dimension can be inferred`, `invalid shape dimension -2`,
/// `shape '[2, 5]' is invalid for input of size 6`, and the "cannot reshape tensor of 0
/// elements" message when `-1` would be ambiguous.
pub fn infer_size(shape: &[i64], numel: usize) -> Result<Vec<usize>> {
    let mut infer_dim: Option<usize> = None;
    let mut newsize: Option<usize> = Some(1);
    for (d, &s) in shape.iter().enumerate() {
        if s == -1 {
            if infer_dim.is_some() {
                return Err(Error::runtime("only one dimension can be inferred"));
            }
            infer_dim = Some(d);
        } else if s >= 0 {
            newsize = newsize.and_then(|n| n.checked_mul(s as usize));
        } else {
            return Err(Error::runtime(format!("invalid shape dimension {s}")));
        }
    }
    let invalid = || {
        Error::runtime(format!(
            "shape '{shape:?}' is invalid for input of size {numel}"
        ))
    };
    let newsize = newsize.ok_or_else(invalid)?;
    let ok =
        numel == newsize || (infer_dim.is_some() && newsize > 0 && numel.is_multiple_of(newsize));
    if !ok {
        return Err(invalid());
    }
    let mut res: Vec<usize> = shape.iter().map(|&s| s.max(0) as usize).collect();
    if let Some(d) = infer_dim {
        if newsize == 0 {
            return Err(Error::runtime(format!(
                "cannot reshape tensor of 0 elements into shape {shape:?} because the unspecified dimension size -1 can be any value and is ambiguous"
            )));
        }
        res[d] = numel / newsize;
    }
    Ok(res)
}

/// torch's `computeStride`: strides that let a tensor of `oldshape`/`oldstride` be viewed as
/// `newshape` (same element count) without copying, or `None` when some new dimension would
/// span two non-contiguous chunks of the old layout.
pub fn compute_view_strides(
    oldshape: &[usize],
    oldstride: &[isize],
    newshape: &[usize],
) -> Option<Vec<isize>> {
    if oldshape.is_empty() {
        return Some(vec![1; newshape.len()]);
    }
    let numel: usize = oldshape.iter().product();
    if numel == 0 && oldshape == newshape {
        return Some(oldstride.to_vec());
    }
    let mut newstride = vec![0isize; newshape.len()];
    if numel == 0 {
        for d in (0..newshape.len()).rev() {
            newstride[d] = if d == newshape.len() - 1 {
                1
            } else {
                (newshape[d + 1].max(1) as isize).wrapping_mul(newstride[d + 1])
            };
        }
        return Some(newstride);
    }
    let mut view_d = newshape.len() as isize - 1;
    let mut chunk_base_stride = *oldstride.last().expect("non-empty");
    let mut tensor_numel: usize = 1;
    let mut view_numel: usize = 1;
    for tensor_d in (0..oldshape.len()).rev() {
        tensor_numel *= oldshape[tensor_d];
        let chunk_end = tensor_d == 0
            || (oldshape[tensor_d - 1] != 1
                && oldstride[tensor_d - 1]
                    != (tensor_numel as isize).wrapping_mul(chunk_base_stride));
        if chunk_end {
            while view_d >= 0 && (view_numel < tensor_numel || newshape[view_d as usize] == 1) {
                newstride[view_d as usize] = (view_numel as isize).wrapping_mul(chunk_base_stride);
                view_numel *= newshape[view_d as usize];
                view_d -= 1;
            }
            if view_numel != tensor_numel {
                return None;
            }
            if tensor_d > 0 {
                chunk_base_stride = oldstride[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    if view_d != -1 {
        return None;
    }
    Some(newstride)
}

/// Wrap every dim of `dims` for `ndim` dims, with torch's duplicate error.
pub(super) fn wrap_dims_unique(dims: &[i64], ndim: usize) -> Result<Vec<usize>> {
    let mut seen = vec![false; ndim.max(1)];
    let mut out = Vec::with_capacity(dims.len());
    for &d in dims {
        let w = maybe_wrap_dim(d, ndim)?;
        if seen[w] {
            return Err(Error::runtime(format!(
                "dim {w} appears multiple times in the list of dims"
            )));
        }
        seen[w] = true;
        out.push(w);
    }
    Ok(out)
}

/// `Tensor.view(size)`: a view with shape `size` (one `-1` is inferred), always sharing storage.
/// Errors: those of `infer_size`, and RuntimeError "view size is not compatible with input
/// tensor's size and stride (...). Use .reshape(...) instead." when no view exists
/// (torch: `Tensor.view`).
pub fn view(input: &Tensor, size: &[i64]) -> Result<Tensor> {
    let sizes = infer_size(size, input.numel())?;
    match compute_view_strides(input.sizes(), input.strides(), &sizes) {
        Some(strides) => Ok(input.as_strided(sizes, strides, input.storage_offset())),
        None => Err(Error::runtime(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
        )),
    }
}

/// `reshape(input, shape)`: the same elements with shape `shape` (one `-1` is inferred). A view
/// sharing storage when the strides allow it (torch's `computeStride` rule), otherwise a
/// contiguous copy. Errors: those of `infer_size` (torch: `torch.reshape`).
pub fn reshape(input: &Tensor, shape: &[i64]) -> Result<Tensor> {
    let sizes = infer_size(shape, input.numel())?;
    match compute_view_strides(input.sizes(), input.strides(), &sizes) {
        Some(strides) => Ok(input.as_strided(sizes, strides, input.storage_offset())),
        None => {
            let c = input.clone_data()?;
            let strides = contiguous_strides(&sizes);
            Ok(c.restride_owned(sizes, strides, 0))
        }
    }
}

/// `transpose(input, dim0, dim1)`: a view with dims `dim0` and `dim1` swapped (negative dims
/// count from the end; IndexError when out of range) (torch: `torch.transpose`).
pub fn transpose(input: &Tensor, dim0: i64, dim1: i64) -> Result<Tensor> {
    let nd = input.dim();
    let d0 = maybe_wrap_dim(dim0, nd)?;
    let d1 = maybe_wrap_dim(dim1, nd)?;
    let mut sizes = input.sizes().to_vec();
    let mut strides = input.strides().to_vec();
    if nd > 0 {
        sizes.swap(d0, d1);
        strides.swap(d0, d1);
    }
    Ok(input.as_strided(sizes, strides, input.storage_offset()))
}

/// `t(input)`: the transpose of a 2-D tensor (dims 0 and 1 swapped), a view; 0-D and 1-D
/// tensors are returned as they are (a view). RuntimeError "t() expects a tensor with <= 2
/// dimensions, but self is 3D" otherwise (torch: `torch.t`).
pub fn t(input: &Tensor) -> Result<Tensor> {
    if input.dim() > 2 {
        return Err(Error::runtime(format!(
            "t() expects a tensor with <= 2 dimensions, but self is {}D",
            input.dim()
        )));
    }
    transpose(input, 0, if input.dim() < 2 { 0 } else { 1 })
}

/// `Tensor.T`: a view with all dims reversed (torch: `numpy_T`). As torch, warns once per
/// process (UserWarning) for a tensor of neither 0 nor 2 dims, that this use is deprecated, and
/// for a 0-dim tensor, that it is the identity.
pub fn numpy_t(input: &Tensor) -> Result<Tensor> {
    static WARNED_ND: AtomicBool = AtomicBool::new(false);
    static WARNED_0D: AtomicBool = AtomicBool::new(false);
    let nd = input.dim();
    if nd != 2 && nd != 0 {
        warnings::warn_once(&WARNED_ND, WarningKind::User, || {
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it will throw an error in a future release. Consider `x.mT` to transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.".into()
        });
    }
    if nd == 0 {
        warnings::warn_once(&WARNED_0D, WarningKind::User, || {
            "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases."
                .into()
        });
    }
    let dims: Vec<i64> = (0..nd as i64).rev().collect();
    permute(input, &dims)
}

/// `Tensor.mT` (`mh` false) and `Tensor.mH` (`mh` true; the same for real dtypes): a view with
/// the last two dims swapped; a 0-dim tensor is returned as a view of itself, with torch's
/// once-per-process UserWarning. RuntimeError for a 1-D tensor (torch: `matrix_H`/`mT`).
pub fn matrix_t(input: &Tensor, mh: bool) -> Result<Tensor> {
    static WARNED_T: AtomicBool = AtomicBool::new(false);
    static WARNED_H: AtomicBool = AtomicBool::new(false);
    let name = if mh { "mH" } else { "mT" };
    match input.dim() {
        0 => {
            if mh {
                warnings::warn_once(&WARNED_H, WarningKind::User, || {
                    "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().".into()
                });
            } else {
                warnings::warn_once(&WARNED_T, WarningKind::User, || {
                    "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.".into()
                });
            }
            permute(input, &[])
        }
        1 => Err(Error::runtime(format!(
            "tensor.{name} is only supported on matrices or batches of matrices. Got 1-D tensor."
        ))),
        _ => transpose(input, -2, -1),
    }
}

/// `Tensor.H`: the transpose of a matrix (the conjugate transpose; the same for real dtypes);
/// a 0-dim tensor is returned as a view of itself, with torch's once-per-process UserWarning.
/// RuntimeError for any other number of dims (torch: `numpy_H`).
pub fn matrix_h(input: &Tensor) -> Result<Tensor> {
    static WARNED: AtomicBool = AtomicBool::new(false);
    match input.dim() {
        0 => {
            warnings::warn_once(&WARNED, WarningKind::User, || {
                "Tensor.H is deprecated on 0-D tensors. Consider using x.conj().".into()
            });
            permute(input, &[])
        }
        2 => transpose(input, 0, 1),
        1 => Err(Error::runtime(
            "tensor.H is only supported on matrices (2-D tensors). Got 1-D tensor.",
        )),
        n => Err(Error::runtime(format!(
            "tensor.H is only supported on matrices (2-D tensors). Got {n}-D tensor. For batches of matrices, consider using tensor.mH"
        ))),
    }
}

/// `permute(input, dims)`: a view whose dim `i` is `input`'s dim `dims[i]`. `dims` must be a
/// permutation of the dims (negative entries count from the end). Errors: RuntimeError when
/// `len(dims)` differs from `input.dim()` or a dim repeats; IndexError for an out-of-range dim
/// (torch: `torch.permute`).
pub fn permute(input: &Tensor, dims: &[i64]) -> Result<Tensor> {
    let nd = input.dim();
    if dims.len() != nd {
        return Err(Error::runtime(format!(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal to len(dims) = {}",
            dims.len()
        )));
    }
    let mut seen = vec![false; nd];
    let mut sizes = Vec::with_capacity(nd);
    let mut strides = Vec::with_capacity(nd);
    for &d in dims {
        let d = maybe_wrap_dim(d, nd)?;
        if seen[d] {
            return Err(Error::runtime("permute(): duplicate dims are not allowed."));
        }
        seen[d] = true;
        sizes.push(input.sizes()[d]);
        strides.push(input.strides()[d]);
    }
    Ok(input.as_strided(sizes, strides, input.storage_offset()))
}

/// `squeeze(input)`: a view without the dims of size 1 (torch: `torch.squeeze`).
pub fn squeeze(input: &Tensor) -> Result<Tensor> {
    let (sizes, strides): (Vec<usize>, Vec<isize>) = input
        .sizes()
        .iter()
        .zip(input.strides())
        .filter(|(&s, _)| s != 1)
        .map(|(&s, &st)| (s, st))
        .unzip();
    Ok(input.as_strided(sizes, strides, input.storage_offset()))
}

/// `squeeze(input, dim)`: a view without dim `dim` if its size is 1, else an unchanged view.
/// IndexError when `dim` is out of range (torch: `torch.squeeze(input, dim)`).
pub fn squeeze_dim(input: &Tensor, dim: i64) -> Result<Tensor> {
    let d = maybe_wrap_dim(dim, input.dim())?;
    let mut sizes = input.sizes().to_vec();
    let mut strides = input.strides().to_vec();
    if input.dim() > 0 && sizes[d] == 1 {
        sizes.remove(d);
        strides.remove(d);
    }
    Ok(input.as_strided(sizes, strides, input.storage_offset()))
}

/// `squeeze(input, dim)` with a tuple of dims: a view without those of the listed dims that have
/// size 1. Errors: IndexError for a dim out of range, RuntimeError "dim 0 appears multiple times
/// in the list of dims" (torch: `torch.squeeze(input, (0, 1))`).
pub fn squeeze_dims(input: &Tensor, dim: &[i64]) -> Result<Tensor> {
    let ds = wrap_dims_unique(dim, input.dim())?;
    let (sizes, strides): (Vec<usize>, Vec<isize>) = (0..input.dim())
        .filter(|k| !(ds.contains(k) && input.sizes()[*k] == 1))
        .map(|k| (input.sizes()[k], input.strides()[k]))
        .unzip();
    Ok(input.as_strided(sizes, strides, input.storage_offset()))
}

/// `unsqueeze(input, dim)`: a view with a dim of size 1 inserted at `dim`, which ranges over
/// `[-ndim-1, ndim]`; IndexError otherwise (torch: `torch.unsqueeze`).
pub fn unsqueeze(input: &Tensor, dim: i64) -> Result<Tensor> {
    let nd = input.dim();
    let d = maybe_wrap_dim(dim, nd + 1)?;
    let mut sizes = input.sizes().to_vec();
    let mut strides = input.strides().to_vec();
    // torch's inferUnsqueezeGeometry: the new dim's stride is size * stride of the dim it
    // precedes, or 1 at the end.
    let new_stride = if d >= nd {
        1
    } else {
        (sizes[d] as isize).wrapping_mul(strides[d])
    };
    sizes.insert(d, 1);
    strides.insert(d, new_stride);
    Ok(input.as_strided(sizes, strides, input.storage_offset()))
}

/// `flatten(input, start_dim=0, end_dim=-1)`: dims `start_dim..=end_dim` merged into one, through
/// `reshape` (a view when possible). A 0-dim tensor becomes shape `[1]`. Errors: IndexError for
/// an out-of-range dim; RuntimeError "flatten() has invalid args: start_dim cannot come after
/// end_dim" (torch: `torch.flatten`).
pub fn flatten(input: &Tensor, start_dim: i64, end_dim: i64) -> Result<Tensor> {
    let nd = input.dim();
    let s = maybe_wrap_dim(start_dim, nd)?;
    let e = maybe_wrap_dim(end_dim, nd)?;
    if s > e {
        return Err(Error::runtime(
            "flatten() has invalid args: start_dim cannot come after end_dim",
        ));
    }
    if nd == 0 {
        return reshape(input, &[1]);
    }
    if s == e {
        return Ok(input.clone());
    }
    let sizes = input.sizes();
    let merged: usize = sizes[s..=e].iter().product();
    let shape: Vec<i64> = sizes[..s]
        .iter()
        .copied()
        .chain(std::iter::once(merged))
        .chain(sizes[e + 1..].iter().copied())
        .map(|v| v as i64)
        .collect();
    reshape(input, &shape)
}

/// `unflatten(input, dim, sizes)`: a view with dim `dim` split into `sizes` (one may be -1).
/// Errors: RuntimeError "unflatten: sizes must be non-empty", "unflatten: Provided sizes [2, 2]
/// don't multiply up to the size of dim 1 (3) in the input tensor", or the `view` error for a
/// bad -1 inference; IndexError for `dim` out of range (torch: `torch.unflatten`).
pub fn unflatten(input: &Tensor, dim: i64, sizes: &[i64]) -> Result<Tensor> {
    let d = maybe_wrap_dim(dim, input.dim())?;
    if sizes.is_empty() {
        return Err(Error::runtime("unflatten: sizes must be non-empty"));
    }
    if input.dim() == 0 {
        return Err(Error::index(
            "dimension specified as 0 but tensor has no dimensions",
        ));
    }
    let cur = input.sizes()[d];
    let inferred = if sizes.contains(&-1) {
        infer_size(sizes, cur)?
    } else {
        let prod = sizes.iter().try_fold(1i64, |a, &s| a.checked_mul(s));
        if sizes.iter().any(|&s| s < 0) || prod != Some(cur as i64) {
            return Err(Error::runtime(format!(
                "unflatten: Provided sizes {sizes:?} don't multiply up to the size of dim {d} ({cur}) in the input tensor"
            )));
        }
        sizes.iter().map(|&s| s as usize).collect()
    };
    let mut shape: Vec<i64> = input.sizes()[..d].iter().map(|&s| s as i64).collect();
    shape.extend(inferred.iter().map(|&s| s as i64));
    shape.extend(input.sizes()[d + 1..].iter().map(|&s| s as i64));
    view(input, &shape)
}

/// torch's `Tensor::toString()` for a CPU tensor: `torch.FloatTensor`, `torch.LongTensor`, ...
fn type_string(t: &Tensor) -> String {
    format!("torch.{}Tensor", t.dtype().scalar_type_name())
}

/// `Tensor.expand(size)`: a view broadcast to `size`. `-1` keeps a dim's size; new leading dims
/// may be added (not as `-1`); expanded dims get stride 0 (torch's `inferExpandGeometry`).
/// Errors (RuntimeError): fewer sizes than dims, a non-singleton size that differs, `-1` in a
/// new leading dim, a negative size (torch: `Tensor.expand`).
pub fn expand(input: &Tensor, size: &[i64]) -> Result<Tensor> {
    let nd = size.len();
    let td = input.dim();
    if nd < td {
        return Err(Error::runtime(format!(
            "expand({}{{{:?}}}, size={size:?}): the number of sizes provided ({nd}) must be greater or equal to the number of dimensions in the tensor ({td})",
            type_string(input),
            input.sizes()
        )));
    }
    let mut out_sizes = vec![0usize; nd];
    let mut out_strides = vec![0isize; nd];
    for i in (0..nd).rev() {
        let offset = nd - 1 - i;
        let dim = td as isize - 1 - offset as isize;
        let (cur, mut stride) = if dim >= 0 {
            (
                input.sizes()[dim as usize] as i64,
                input.strides()[dim as usize],
            )
        } else if i + 1 < nd {
            (
                1,
                (out_sizes[i + 1] as isize).wrapping_mul(out_strides[i + 1]),
            )
        } else {
            (1, 1)
        };
        let mut target = size[i];
        if target == -1 {
            if dim < 0 {
                return Err(Error::runtime(format!(
                    "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}"
                )));
            }
            target = cur;
        }
        if target < 0 {
            return Err(Error::runtime(format!(
                "Trying to create tensor with negative dimension {target}: {size:?}"
            )));
        }
        if cur != target {
            if cur != 1 {
                return Err(Error::runtime(format!(
                    "The expanded size of the tensor ({target}) must match the existing size ({cur}) at non-singleton dimension {i}.  Target sizes: {size:?}.  Tensor sizes: {:?}",
                    input.sizes()
                )));
            }
            stride = 0;
        }
        out_sizes[i] = target as usize;
        out_strides[i] = stride;
    }
    checked_numel(&out_sizes)?;
    Ok(input.as_strided(out_sizes, out_strides, input.storage_offset()))
}

/// `select(input, dim, index)`: the view at `index` along `dim`, with that dim removed (negative
/// `index` counts from the end). IndexError: "select() cannot be applied to a 0-dim tensor.",
/// an out-of-range `dim`, or "select(): index 5 out of range for tensor of size [3] at
/// dimension 0" (torch: `torch.select`).
pub fn select(input: &Tensor, dim: i64, index: i64) -> Result<Tensor> {
    let nd = input.dim();
    if nd == 0 {
        return Err(Error::index(
            "select() cannot be applied to a 0-dim tensor.",
        ));
    }
    let d = maybe_wrap_dim(dim, nd)?;
    let size = input.sizes()[d] as i64;
    if index < -size || index >= size {
        return Err(Error::index(format!(
            "select(): index {index} out of range for tensor of size {:?} at dimension {d}",
            input.sizes()
        )));
    }
    let index = if index < 0 { index + size } else { index };
    let mut sizes = input.sizes().to_vec();
    let mut strides = input.strides().to_vec();
    let offset = input.storage_offset() as isize + index as isize * strides[d];
    sizes.remove(d);
    strides.remove(d);
    Ok(input.as_strided(sizes, strides, offset as usize))
}

/// `narrow(input, dim, start: Tensor, length)`: `narrow` with `start` a 0-dim integer tensor
/// (bool excluded); otherwise torch's RuntimeError "start must be an 0-dim integral Tensor.".
pub fn narrow_tensor(input: &Tensor, dim: i64, start: &Tensor, length: i64) -> Result<Tensor> {
    if start.dim() != 0 || !start.dtype().is_integral() {
        return Err(Error::runtime("start must be an 0-dim integral Tensor."));
    }
    let s = super::conversion::try_to_vec::<i64>(start)?[0];
    narrow(input, dim, s, length)
}

/// `narrow(input, dim, start, length)`: the view of `length` elements of `dim` from `start`
/// (negative counts from the end). Errors: RuntimeError "narrow() cannot be applied to a 0-dim
/// tensor.", IndexError for `dim` or "start out of range (expected to be in range of [-3, 3],
/// but got 4)", RuntimeError "narrow(): length must be non-negative." and "start (1) + length
/// (3) exceeds dimension size (3)." (torch: `torch.narrow`).
pub fn narrow(input: &Tensor, dim: i64, start: i64, length: i64) -> Result<Tensor> {
    if input.dim() == 0 {
        return Err(Error::runtime(
            "narrow() cannot be applied to a 0-dim tensor.",
        ));
    }
    if length < 0 {
        return Err(Error::runtime("narrow(): length must be non-negative."));
    }
    let d = maybe_wrap_dim(dim, input.dim())?;
    let cur = input.sizes()[d] as i64;
    if start < -cur || start > cur {
        return Err(Error::index(format!(
            "start out of range (expected to be in range of [{}, {cur}], but got {start})",
            -cur
        )));
    }
    let start = if start < 0 { start + cur } else { start };
    if start > cur - length {
        return Err(Error::runtime(format!(
            "start ({start}) + length ({length}) exceeds dimension size ({cur})."
        )));
    }
    let mut sizes = input.sizes().to_vec();
    sizes[d] = length as usize;
    let offset = if length == 0 {
        input.storage_offset()
    } else {
        (input.storage_offset() as isize + start as isize * input.strides()[d]) as usize
    };
    Ok(input.as_strided(sizes, input.strides(), offset))
}

/// `movedim(input, source, destination)`: a view with dim `source` moved to `destination`
/// (torch: `torch.movedim`). IndexError for a dim out of range.
pub fn movedim(input: &Tensor, source: i64, destination: i64) -> Result<Tensor> {
    movedim_intlist(input, &[source], &[destination])
}

/// `movedim(input, source, destination)` with lists of dims: a view with each `source[i]` moved
/// to `destination[i]`, the other dims keeping their order. Errors: RuntimeError "movedim:
/// Invalid source or destination dims: source (2 dims) should contain the same number of dims as
/// destination (1 dims)", "movedim: repeated dim in `source` ([0, 0])" (likewise
/// `destination`); IndexError for a dim out of range.
pub fn movedim_intlist(input: &Tensor, source: &[i64], destination: &[i64]) -> Result<Tensor> {
    let nd = input.dim();
    if source.len() != destination.len() {
        return Err(Error::runtime(format!(
            "movedim: Invalid source or destination dims: source ({} dims) should contain the same number of dims as destination ({} dims)",
            source.len(),
            destination.len()
        )));
    }
    let wrap_all = |ds: &[i64], name: &str| -> Result<Vec<usize>> {
        let w = ds
            .iter()
            .map(|&d| maybe_wrap_dim(d, nd))
            .collect::<Result<Vec<_>>>()?;
        for i in 0..w.len() {
            if w[..i].contains(&w[i]) {
                return Err(Error::runtime(format!(
                    "movedim: repeated dim in `{name}` ({ds:?})"
                )));
            }
        }
        Ok(w)
    };
    let src = wrap_all(source, "source")?;
    let dst = wrap_all(destination, "destination")?;
    if nd == 0 {
        return Ok(input.as_strided(vec![], vec![], input.storage_offset()));
    }
    let mut order: Vec<Option<usize>> = vec![None; nd];
    for (&s, &d) in src.iter().zip(&dst) {
        order[d] = Some(s);
    }
    let mut rest = (0..nd).filter(|k| !src.contains(k));
    let perm: Vec<i64> = order
        .into_iter()
        .map(|o| o.or_else(|| rest.next()).unwrap_or(0) as i64)
        .collect();
    permute(input, &perm)
}

/// `swapaxes(input, axis0, axis1)`: alias of `transpose` (a view).
pub fn swapaxes(input: &Tensor, axis0: i64, axis1: i64) -> Result<Tensor> {
    transpose(input, axis0, axis1)
}

/// `swapdims(input, dim0, dim1)`: alias of `transpose` (a view).
pub fn swapdims(input: &Tensor, dim0: i64, dim1: i64) -> Result<Tensor> {
    transpose(input, dim0, dim1)
}

/// `diagonal(input, offset=0, dim1=0, dim2=1)`: a view of the diagonal of the `dim1`×`dim2`
/// planes (above the main one for `offset > 0`), appended as the last dim. Errors: RuntimeError
/// "diagonal dimensions cannot be identical 0, 0"; IndexError for a dim out of range (torch:
/// `torch.diagonal`).
pub fn diagonal(input: &Tensor, offset: i64, dim1: i64, dim2: i64) -> Result<Tensor> {
    let nd = input.dim();
    let d1 = maybe_wrap_dim(dim1, nd)?;
    let d2 = maybe_wrap_dim(dim2, nd)?;
    if d1 == d2 {
        return Err(Error::runtime(format!(
            "diagonal dimensions cannot be identical {dim1}, {dim2}"
        )));
    }
    let (s1, s2) = (input.sizes()[d1] as i64, input.sizes()[d2] as i64);
    let (st1, st2) = (input.strides()[d1], input.strides()[d2]);
    let mut off = input.storage_offset() as isize;
    let size = if offset >= 0 {
        (s1.min(s2 - offset)).max(0)
    } else {
        ((s1 + offset).min(s2)).max(0)
    };
    if size > 0 {
        off += if offset >= 0 {
            offset as isize * st2
        } else {
            -offset as isize * st1
        };
    }
    let mut sizes = Vec::with_capacity(nd - 1);
    let mut strides = Vec::with_capacity(nd - 1);
    for k in (0..nd).filter(|&k| k != d1 && k != d2) {
        sizes.push(input.sizes()[k]);
        strides.push(input.strides()[k]);
    }
    sizes.push(size as usize);
    strides.push(st1 + st2);
    Ok(input.as_strided(sizes, strides, off as usize))
}

// ----- split / chunk / unbind -----------------------------------------------------------------

/// `split(input, split_size, dim=0)`: views of `input` along `dim`, each `split_size` long (the
/// last may be shorter). RuntimeError for a 0-dim input, a negative `split_size`, or a zero
/// `split_size` on a non-empty dim; IndexError for `dim` out of range. Mirrors `torch.split`.
pub fn split(input: &Tensor, split_size: i64, dim: i64) -> Result<Vec<Tensor>> {
    if input.dim() == 0 {
        return Err(Error::runtime(
            "split expects at least a 1-dimensional tensor",
        ));
    }
    let d = maybe_wrap_dim(dim, input.dim())?;
    if split_size < 0 {
        return Err(Error::runtime(format!(
            "split expects split_size be non-negative, but got split_size={split_size}"
        )));
    }
    let n = input.sizes()[d] as i64;
    if split_size == 0 && n != 0 {
        return Err(Error::runtime(format!(
            "split_size can only be 0 if dimension size is 0, but got dimension size of {n}"
        )));
    }
    let num = if split_size == 0 {
        1
    } else {
        ((n + split_size - 1) / split_size).max(1)
    };
    let mut out = try_vec(num as usize, "split()")?;
    for i in 0..num {
        let start = i * split_size;
        let len = split_size.min(n - start);
        out.push(narrow(input, d as i64, start, len)?);
    }
    Ok(out)
}

/// `split(input, split_sizes: list, dim=0)` (torch's `split_with_sizes`): views of the given
/// lengths along `dim`. RuntimeError when the sizes are negative or do not sum to the dim's size.
pub fn split_sizes(input: &Tensor, split_size: &[i64], dim: i64) -> Result<Vec<Tensor>> {
    if input.dim() == 0 {
        return Err(Error::runtime(
            "split expects at least a 1-dimensional tensor",
        ));
    }
    let d = maybe_wrap_dim(dim, input.dim())?;
    let n = input.sizes()[d] as i64;
    let list = format!(
        "[{}]",
        split_size
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    if split_size.iter().any(|&s| s < 0) {
        return Err(Error::runtime(format!(
            "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes={list}"
        )));
    }
    let total = split_size.iter().try_fold(0i64, |a, &s| a.checked_add(s));
    if total != Some(n) {
        return Err(Error::runtime(format!(
            "split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at dimension {d}), but got split_sizes={list}"
        )));
    }
    let mut out = try_vec(split_size.len(), "split()")?;
    let mut start = 0;
    for &len in split_size {
        out.push(narrow(input, d as i64, start, len)?);
        start += len;
    }
    Ok(out)
}

/// `chunk(input, chunks, dim=0)`: `split` with `split_size = ceil(size / chunks)` (so fewer than
/// `chunks` pieces may come back). RuntimeError for `chunks <= 0` or a 0-dim input.
pub fn chunk(input: &Tensor, chunks: i64, dim: i64) -> Result<Vec<Tensor>> {
    if input.dim() == 0 {
        return Err(Error::runtime(
            "chunk expects at least a 1-dimensional tensor",
        ));
    }
    if chunks <= 0 {
        return Err(Error::runtime(format!(
            "chunk expects `chunks` to be greater than 0, got: {chunks}"
        )));
    }
    let d = maybe_wrap_dim(dim, input.dim())?;
    let n = input.sizes()[d] as i64;
    let size = n / chunks + i64::from(n % chunks != 0);
    if size == 0 && n == 0 {
        let mut sizes = try_vec(chunks as usize, "chunk()")?;
        sizes.resize(chunks as usize, 0i64);
        return split_sizes(input, &sizes, dim);
    }
    split(input, size, dim)
}

/// `unbind(input, dim=0)`: the views `input.select(dim, i)` for every `i`. IndexError for a
/// 0-dim input or `dim` out of range. Mirrors `torch.unbind`.
pub fn unbind(input: &Tensor, dim: i64) -> Result<Vec<Tensor>> {
    if input.dim() == 0 {
        return Err(Error::index(
            "Dimension specified as 0 but tensor has no dimensions",
        ));
    }
    let d = maybe_wrap_dim(dim, input.dim())?;
    let n = input.sizes()[d];
    let mut out = try_vec(n, "unbind()")?;
    for i in 0..n {
        out.push(select(input, d as i64, i as i64)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::dtype::{DType, Element};
    use crate::core::error::ErrorKind;
    use crate::core::ops::*;

    fn arange_t(n: i64, shape: &[usize]) -> Tensor {
        Tensor::from_vec((0..n).collect::<Vec<i64>>(), shape).unwrap()
    }

    fn t<T: Element>(v: Vec<T>, s: &[usize]) -> Tensor {
        Tensor::from_vec(v, s).unwrap()
    }

    #[test]
    fn reshape_views_contiguous_and_copies_transposed() {
        let t = arange_t(6, &[2, 3]);
        let r = reshape(&t, &[3, -1]).unwrap();
        assert_eq!(r.sizes(), &[3, 2]);
        assert!(r.shares_storage(&t));
        assert_eq!(r.to_vec::<i64>(), vec![0, 1, 2, 3, 4, 5]);
        let tt = transpose(&t, 0, 1).unwrap();
        let r = reshape(&tt, &[6]).unwrap();
        assert!(!r.shares_storage(&t));
        assert_eq!(r.to_vec::<i64>(), vec![0, 3, 1, 4, 2, 5]);
        // A transposed tensor can still be viewed when only size-1 dims move.
        let r = reshape(&tt, &[3, 1, 2]).unwrap();
        assert!(r.shares_storage(&t));
        assert_eq!(r.strides(), &[1, 6, 3]); // torch: x.t().reshape(3, 1, 2).stride()
                                             // 0-dim to [1] and back.
        let s = Tensor::from_vec(vec![7i64], &[]).unwrap();
        assert_eq!(reshape(&s, &[1, 1]).unwrap().strides(), &[1, 1]);
        assert_eq!(reshape(&arange_t(1, &[1]), &[]).unwrap().dim(), 0);
    }

    #[test]
    fn reshape_errors() {
        let t = arange_t(6, &[2, 3]);
        let e = reshape(&t, &[2, 5]).unwrap_err();
        assert_eq!(
            (e.kind, e.message.as_str()),
            (
                ErrorKind::Runtime,
                "shape '[2, 5]' is invalid for input of size 6"
            )
        );
        let e = reshape(&t, &[-1, -1]).unwrap_err();
        assert_eq!(e.message, "only one dimension can be inferred");
        let e = reshape(&t, &[-1, 4]).unwrap_err();
        assert_eq!(e.message, "shape '[-1, 4]' is invalid for input of size 6");
        let e = reshape(&t, &[-2, 3]).unwrap_err();
        assert_eq!(e.message, "invalid shape dimension -2");
        let z = Tensor::zeros(&[0, 3], DType::Float32).unwrap();
        assert!(reshape(&z, &[-1, 0])
            .unwrap_err()
            .message
            .starts_with("cannot reshape tensor of 0 elements"));
        assert_eq!(reshape(&z, &[3, -1]).unwrap().sizes(), &[3, 0]);
    }

    #[test]
    fn view_requires_compatible_strides() {
        let t = arange_t(24, &[2, 3, 4]);
        let v = view(&t, &[6, 4]).unwrap();
        assert!(v.shares_storage(&t));
        let p = permute(&t, &[1, 0, 2]).unwrap(); // [3, 2, 4], strides [4, 12, 1]
        let e = view(&p, &[6, 4]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Runtime);
        assert!(e
            .message
            .starts_with("view size is not compatible with input tensor's size and stride"));
        // Splitting the last dim of the permuted tensor is fine.
        let v = view(&p, &[3, 2, 2, 2]).unwrap();
        assert_eq!(v.strides(), &[4, 12, 2, 1]);
        assert_eq!(v.to_vec::<i64>(), p.to_vec::<i64>());
        // An expanded tensor: view of the broadcast dim is allowed by torch when merging stride 0 dims.
        let e = expand(&arange_t(3, &[3]), &[2, 3]).unwrap();
        assert!(view(&e, &[6]).is_err());
        assert_eq!(view(&e, &[2, 3, 1]).unwrap().strides(), &[0, 1, 1]);
    }

    #[test]
    fn transpose_permute_squeeze_unsqueeze() {
        let t = arange_t(24, &[2, 3, 4]);
        let tt = transpose(&t, 0, -1).unwrap();
        assert_eq!(
            (tt.sizes(), tt.strides()),
            (&[4usize, 3, 2][..], &[1isize, 4, 12][..])
        );
        let e = transpose(&t, 0, 5).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Index);
        assert_eq!(
            e.message,
            "Dimension out of range (expected to be in range of [-3, 2], but got 5)"
        );
        let p = permute(&t, &[2, 0, 1]).unwrap();
        assert_eq!(
            (p.sizes(), p.strides()),
            (&[4usize, 2, 3][..], &[1isize, 12, 4][..])
        );
        let e = permute(&arange_t(6, &[2, 3]), &[0, 1, 2]).unwrap_err();
        assert_eq!(e.message, "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = 2 is not equal to len(dims) = 3");
        let e = permute(&t, &[0, 0, 1]).unwrap_err();
        assert_eq!(e.message, "permute(): duplicate dims are not allowed.");
        let e = permute(&t, &[0, -3, 1]).unwrap_err();
        assert_eq!(e.message, "permute(): duplicate dims are not allowed.");

        let s = arange_t(6, &[1, 2, 1, 3]);
        let q = squeeze(&s).unwrap();
        assert_eq!(
            (q.sizes(), q.strides()),
            (&[2usize, 3][..], &[3isize, 1][..])
        );
        assert_eq!(squeeze_dim(&s, 2).unwrap().sizes(), &[1, 2, 3]);
        assert_eq!(squeeze_dim(&s, 1).unwrap().sizes(), &[1, 2, 1, 3]);
        assert_eq!(squeeze_dim(&s, -4).unwrap().sizes(), &[2, 1, 3]);
        let z = Tensor::zeros(&[], DType::Float32).unwrap();
        assert_eq!(squeeze_dim(&z, -1).unwrap().dim(), 0);
        assert_eq!(squeeze(&z).unwrap().dim(), 0);

        let u = unsqueeze(&t, -1).unwrap();
        assert_eq!(
            (u.sizes(), u.strides()),
            (&[2usize, 3, 4, 1][..], &[12isize, 4, 1, 1][..])
        );
        let u = unsqueeze(&t, 1).unwrap();
        assert_eq!(
            (u.sizes(), u.strides()),
            (&[2usize, 1, 3, 4][..], &[12isize, 12, 4, 1][..])
        );
        let e = unsqueeze(&t, 4).unwrap_err();
        assert_eq!(
            e.message,
            "Dimension out of range (expected to be in range of [-4, 3], but got 4)"
        );
        assert_eq!(unsqueeze(&z, 0).unwrap().sizes(), &[1]);
    }

    #[test]
    fn flatten_cases() {
        let t = arange_t(24, &[2, 3, 4]);
        assert_eq!(flatten(&t, 0, -1).unwrap().sizes(), &[24]);
        let f = flatten(&t, 1, 2).unwrap();
        assert_eq!(f.sizes(), &[2, 12]);
        assert!(f.shares_storage(&t));
        let tt = transpose(&t, 0, 2).unwrap();
        let f = flatten(&tt, 0, 1).unwrap();
        assert_eq!(f.sizes(), &[12, 2]);
        assert!(!f.shares_storage(&t));
        assert_eq!(&f.to_vec::<i64>()[..4], &[0, 12, 4, 16]);
        let z = Tensor::zeros(&[], DType::Int64).unwrap();
        assert_eq!(flatten(&z, 0, -1).unwrap().sizes(), &[1]);
        let e = flatten(&t, 2, 1).unwrap_err();
        assert_eq!(
            e.message,
            "flatten() has invalid args: start_dim cannot come after end_dim"
        );
    }

    #[test]
    fn expand_strides_and_errors() {
        let t = arange_t(3, &[3, 1]);
        let e = expand(&t, &[2, 3, 4]).unwrap();
        assert_eq!(
            (e.sizes(), e.strides()),
            (&[2usize, 3, 4][..], &[0isize, 1, 0][..])
        );
        assert!(e.shares_storage(&t));
        assert_eq!(expand(&t, &[-1, 2]).unwrap().sizes(), &[3, 2]);
        // torch.zeros(3).expand(1, 3).stride() == (3, 1)
        let v = arange_t(3, &[3]);
        assert_eq!(expand(&v, &[1, 3]).unwrap().strides(), &[3, 1]);
        let err = expand(&t, &[-1, 3, 4]).unwrap_err();
        assert_eq!(err.message, "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0");
        let err = expand(&t, &[4, 2]).unwrap_err();
        assert_eq!(err.message, "The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 0.  Target sizes: [4, 2].  Tensor sizes: [3, 1]");
        let err = expand(&t, &[3]).unwrap_err();
        assert_eq!(err.message, "expand(torch.LongTensor{[3, 1]}, size=[3]): the number of sizes provided (1) must be greater or equal to the number of dimensions in the tensor (2)");
        let z = Tensor::zeros(&[], DType::Float32).unwrap();
        assert_eq!(expand(&z, &[2, 2]).unwrap().strides(), &[0, 0]);
    }

    #[test]
    fn select_views() {
        let t = arange_t(12, &[3, 4]);
        let s = select(&t, 0, -1).unwrap();
        assert_eq!(s.to_vec::<i64>(), vec![8, 9, 10, 11]);
        assert!(s.shares_storage(&t));
        let s = select(&t, 1, 2).unwrap();
        assert_eq!(s.to_vec::<i64>(), vec![2, 6, 10]);
        let s2 = select(&s, 0, 1).unwrap();
        assert_eq!((s2.dim(), s2.to_vec::<i64>()), (0, vec![6]));
        let e = select(&t, 0, 5).unwrap_err();
        assert_eq!(
            (e.kind, e.message.as_str()),
            (
                ErrorKind::Index,
                "select(): index 5 out of range for tensor of size [3, 4] at dimension 0"
            )
        );
        let e = select(&s2, 0, 0).unwrap_err();
        assert_eq!(
            (e.kind, e.message.as_str()),
            (
                ErrorKind::Index,
                "select() cannot be applied to a 0-dim tensor."
            )
        );
    }

    #[test]
    fn views_share_storage() {
        let x = t((0..12i64).collect(), &[3, 4]);
        let n = narrow(&x, 1, 1, 2).unwrap();
        assert!(n.shares_storage(&x));
        assert_eq!(n.to_vec::<i64>(), vec![1, 2, 5, 6, 9, 10]);
        let d = diagonal(&x, 1, 0, 1).unwrap();
        assert_eq!(d.to_vec::<i64>(), vec![1, 6, 11]);
        let m = movedim(&t((0..6i64).collect(), &[1, 2, 3]), 0, -1).unwrap();
        assert_eq!(m.sizes(), &[2, 3, 1]);
    }

    #[test]
    fn split_chunk_unbind_nonzero_unique() {
        let x = Tensor::from_vec((0..5i64).collect(), &[5]).unwrap();
        let s = split(&x, 2, 0).unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s[2].to_vec::<i64>(), vec![4]);
        assert!(split_sizes(&x, &[1, 1], 0).is_err());
        assert_eq!(chunk(&x, 2, 0).unwrap().len(), 2);
        assert_eq!(unbind(&x, 0).unwrap().len(), 5);
        let m = Tensor::from_vec(vec![0i64, 1, 2, 0], &[2, 2]).unwrap();
        assert_eq!(nonzero(&m).unwrap().to_vec::<i64>(), vec![0, 1, 1, 0]);
        let t = nonzero_as_tuple(&m, true).unwrap();
        assert_eq!(t[0].to_vec::<i64>(), vec![0, 1]);
        assert_eq!(t[1].to_vec::<i64>(), vec![1, 0]);
        let u = Tensor::from_vec(vec![2i64, 1, 2, 3], &[4]).unwrap();
        let r = unique(&u, true, true, true, None).unwrap();
        assert_eq!(r[0].to_vec::<i64>(), vec![1, 2, 3]);
        assert_eq!(r[1].to_vec::<i64>(), vec![1, 0, 1, 2]);
        assert_eq!(r[2].to_vec::<i64>(), vec![1, 2, 1]);
    }
}
