//! src/core/autograd/composite_copy.rs: the `*_copy` variants of the view ops (`view_copy`,
//! `expand_copy`, `permute_copy`, `t_copy`, `transpose_copy`, `unsqueeze_copy`, `squeeze_copy`,
//! `diagonal_copy`, `select_copy`, `narrow_copy`, `unfold_copy`, `as_strided_copy`,
//! `alias_copy`, `unbind_copy`, `split_copy`, `split_with_sizes_copy`), `unsafe_split` /
//! `unsafe_chunk` and the out-of-place `fill` — compositions of the recording wrappers (issue 13).
//!
//! torch generates the `*_copy` ops for functionalization: the view op, then a copy into fresh
//! contiguous memory (`clone(memory_format=contiguous)`). Here they are exactly that, over the
//! recording wrappers, so their history is the view's node then the copy's (torch records one
//! `ViewCopyBackward0`-style node; the gradients are the same).

use super::variable_type as vt;
use crate::core::error::Result;
use crate::core::tensor::Tensor;

/// A fresh contiguous copy of `v` (a view): `clone` when it is contiguous already, else
/// `contiguous()` (which copies). Never shares `v`'s storage.
fn fresh(v: &Tensor) -> Result<Tensor> {
    if v.is_contiguous() {
        vt::clone(v)
    } else {
        vt::contiguous(v)
    }
}

fn fresh_all(vs: Vec<Tensor>) -> Result<Vec<Tensor>> {
    vs.iter().map(fresh).collect()
}

/// `view_copy(input, size)`: `input.view(size)` copied. Mirrors `torch.view_copy`.
pub fn view_copy(input: &Tensor, size: &[i64]) -> Result<Tensor> {
    fresh(&vt::view(input, size)?)
}

/// `expand_copy(input, size, *, implicit=False)`: `input.expand(size)` copied (`implicit` only
/// marks an implicit broadcast in torch's tracer). Mirrors `torch.expand_copy`.
pub fn expand_copy(input: &Tensor, size: &[i64], _implicit: bool) -> Result<Tensor> {
    fresh(&vt::expand(input, size)?)
}

/// `permute_copy(input, dims)`. Mirrors `torch.permute_copy`.
pub fn permute_copy(input: &Tensor, dims: &[i64]) -> Result<Tensor> {
    fresh(&vt::permute(input, dims)?)
}

/// `t_copy(input)`. Mirrors `torch.t_copy`.
pub fn t_copy(input: &Tensor) -> Result<Tensor> {
    fresh(&vt::t(input)?)
}

/// `transpose_copy(input, dim0, dim1)`. Mirrors `torch.transpose_copy`.
pub fn transpose_copy_int(input: &Tensor, dim0: i64, dim1: i64) -> Result<Tensor> {
    fresh(&vt::transpose(input, dim0, dim1)?)
}

/// `unsqueeze_copy(input, dim)`. Mirrors `torch.unsqueeze_copy`.
pub fn unsqueeze_copy(input: &Tensor, dim: i64) -> Result<Tensor> {
    fresh(&vt::unsqueeze(input, dim)?)
}

/// `squeeze_copy(input)`: every size-1 dim removed. Mirrors `torch.squeeze_copy`.
pub fn squeeze_copy(input: &Tensor) -> Result<Tensor> {
    fresh(&vt::squeeze(input)?)
}

/// `squeeze_copy(input, dim)`. Mirrors `torch.squeeze_copy.dim`.
pub fn squeeze_copy_dim(input: &Tensor, dim: i64) -> Result<Tensor> {
    fresh(&vt::squeeze_dim(input, dim)?)
}

/// `squeeze_copy(input, dims)`. Mirrors `torch.squeeze_copy.dims`.
pub fn squeeze_copy_dims(input: &Tensor, dim: &[i64]) -> Result<Tensor> {
    fresh(&vt::squeeze_dims(input, dim)?)
}

/// `diagonal_copy(input, offset=0, dim1=0, dim2=1)`. Mirrors `torch.diagonal_copy`.
pub fn diagonal_copy(input: &Tensor, offset: i64, dim1: i64, dim2: i64) -> Result<Tensor> {
    fresh(&vt::diagonal(input, offset, dim1, dim2)?)
}

/// `select_copy(input, dim, index)`. Mirrors `torch.select_copy`.
pub fn select_copy_int(input: &Tensor, dim: i64, index: i64) -> Result<Tensor> {
    fresh(&vt::select(input, dim, index)?)
}

/// `narrow_copy(input, dim, start, length)`; a non-negative `dim` past the last is torch's
/// RuntimeError "Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got
/// false.  (...)" (its kernel checks before wrapping). Mirrors `torch.narrow_copy`.
pub fn narrow_copy(input: &Tensor, dim: i64, start: i64, length: i64) -> Result<Tensor> {
    if input.dim() > 0 && dim >= input.dim() as i64 {
        return Err(crate::core::error::Error::runtime(
            "Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)",
        ));
    }
    fresh(&vt::narrow(input, dim, start, length)?)
}

/// `unfold_copy(input, dimension, size, step)`. Mirrors `torch.unfold_copy`.
pub fn unfold_copy(input: &Tensor, dimension: i64, size: i64, step: i64) -> Result<Tensor> {
    fresh(&vt::unfold(input, dimension, size, step)?)
}

/// `as_strided_copy(input, size, stride, storage_offset=None)`. Mirrors `torch.as_strided_copy`.
pub fn as_strided_copy(
    input: &Tensor,
    size: &[i64],
    stride: &[i64],
    storage_offset: Option<i64>,
) -> Result<Tensor> {
    fresh(&vt::as_strided(input, size, stride, storage_offset)?)
}

/// `alias_copy(input)`: a contiguous copy of input. Mirrors `torch.alias_copy`.
pub fn alias_copy(input: &Tensor) -> Result<Tensor> {
    fresh(input)
}

/// `unbind_copy(input, dim=0)`: the slices along `dim`, each copied. Mirrors `torch.unbind_copy`.
pub fn unbind_copy_int(input: &Tensor, dim: i64) -> Result<Vec<Tensor>> {
    fresh_all(vt::unbind(input, dim)?)
}

/// `split_copy(input, split_size, dim=0)`: the pieces of `split`, each copied. Mirrors
/// `torch.split_copy`.
pub fn split_copy_tensor(input: &Tensor, split_size: i64, dim: i64) -> Result<Vec<Tensor>> {
    fresh_all(vt::split(input, split_size, dim)?)
}

/// `split_with_sizes_copy(input, split_sizes, dim=0)`: the pieces of `split_with_sizes`, each
/// copied. Mirrors `torch.split_with_sizes_copy`.
pub fn split_with_sizes_copy(input: &Tensor, split_sizes: &[i64], dim: i64) -> Result<Vec<Tensor>> {
    fresh_all(vt::split_sizes(input, split_sizes, dim)?)
}

/// `unsafe_split(input, split_size, dim=0)`: `split` (torch's variant skips the views' version
/// tracking; here the pieces are the same views as `split`'s). Mirrors `torch.unsafe_split`.
pub fn unsafe_split_tensor(input: &Tensor, split_size: i64, dim: i64) -> Result<Vec<Tensor>> {
    vt::split(input, split_size, dim)
}

/// `unsafe_chunk(input, chunks, dim=0)`: `chunk` (see `unsafe_split`). Mirrors
/// `torch.unsafe_chunk`.
pub fn unsafe_chunk(input: &Tensor, chunks: i64, dim: i64) -> Result<Vec<Tensor>> {
    vt::chunk(input, chunks, dim)
}

/// `fill(input, value)`: a copy of input filled with the 0-dim `value` (a number binds as one):
/// `input.clone().fill_(value)`, fill_'s errors. Mirrors `torch.fill`.
pub fn fill(input: &Tensor, value: &Tensor) -> Result<Tensor> {
    let out = vt::clone(input)?;
    vt::fill_(&out, value)?;
    Ok(out)
}
