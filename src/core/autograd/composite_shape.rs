//! src/core/autograd/composite_shape.rs: the shape and split ops of issue 13 part 3b that torch
//! defines as compositions of other ops (CompositeImplicitAutograd: `tensor_split`, `hsplit`,
//! `vsplit`, `dsplit`), written over the recording wrappers of variable_type.rs like
//! composite.rs, so their history is that of the ops they are made of, as in torch: every piece of
//! `x.tensor_split(3)` is a `SliceBackward0` view (a narrow), which — unlike the pieces of
//! `split`/`chunk`/`unbind` — torch lets the caller modify in place.

use super::variable_type as vt;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::tensor::{maybe_wrap_dim, Tensor};

/// torch's `slice(dim, start, end)` bounds on a dim of `size`: negative ends count from the
/// end, then both are clamped to `[0, size]` and `end` to at least `start`. Returns
/// `(start, length)` for `narrow`.
fn slice_bounds(start: i64, end: i64, size: i64) -> (i64, i64) {
    let wrap = |i: i64| if i < 0 { i.saturating_add(size) } else { i };
    let s = wrap(start).clamp(0, size);
    let e = wrap(end).clamp(s, size);
    (s, e - s)
}

fn tensor_split_check_dim(input: &Tensor) -> Result<()> {
    if input.dim() == 0 {
        return Err(Error::runtime(format!(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with {} dims",
            input.dim()
        )));
    }
    Ok(())
}

/// `tensor_split(input, sections, dim=0)`: `sections` views along `dim`, the first
/// `size % sections` of them one longer than the others (`size / sections`); some may be empty.
/// RuntimeError for a 0-dim input or `sections <= 0`; IndexError for `dim` out of range.
/// Mirrors `torch.tensor_split` (each piece a `SliceBackward0` view).
pub fn tensor_split_sections(input: &Tensor, sections: i64, dim: i64) -> Result<Vec<Tensor>> {
    tensor_split_check_dim(input)?;
    if sections <= 0 {
        return Err(Error::runtime(format!(
            "number of sections must be larger than 0, got {sections}"
        )));
    }
    let d = maybe_wrap_dim(dim, input.dim())?;
    let size = input.sizes()[d] as i64;
    let (min_len, extra) = (size / sections, size % sections);
    let mut out = Vec::new();
    out.try_reserve(sections as usize).map_err(|_| {
        Error::out_of_memory(format!("tensor_split: cannot allocate {sections} sections"))
    })?;
    let mut start = 0;
    for i in 0..sections {
        let len = min_len + i64::from(i < extra);
        out.push(vt::narrow(input, d as i64, start, len)?);
        start += len;
    }
    Ok(out)
}

/// `tensor_split(input, indices, dim=0)`: the views `input[..., :i0]`, `input[..., i0:i1]`, ...,
/// `input[..., ik:]` along `dim`, with Python's slice rules (negative indices count from the end,
/// out-of-range ones clamp, a decreasing pair gives an empty piece). Mirrors `torch.tensor_split`.
pub fn tensor_split_indices(input: &Tensor, indices: &[i64], dim: i64) -> Result<Vec<Tensor>> {
    tensor_split_check_dim(input)?;
    let d = maybe_wrap_dim(dim, input.dim())?;
    let size = input.sizes()[d] as i64;
    let mut out = Vec::with_capacity(indices.len() + 1);
    let mut start = 0;
    for &end in indices {
        let (s, len) = slice_bounds(start, end, size);
        out.push(vt::narrow(input, d as i64, s, len)?);
        start = end;
    }
    let (s, len) = slice_bounds(start, size, size);
    out.push(vt::narrow(input, d as i64, s, len)?);
    Ok(out)
}

/// `tensor_split(input, tensor_indices_or_sections, dim=0)`: an int64 tensor, 0-dim (the number
/// of sections) or 1-D (the indices). RuntimeError for another dtype or more dims. Mirrors
/// `torch.tensor_split`.
pub fn tensor_split_tensor_indices_or_sections(
    input: &Tensor,
    tensor_indices_or_sections: &Tensor,
    dim: i64,
) -> Result<Vec<Tensor>> {
    tensor_split_check_dim(input)?;
    let t = tensor_indices_or_sections;
    if t.dtype() != DType::Int64 {
        return Err(Error::runtime(format!(
            "tensor_split expected tensor_indices_or_sections to have dtype of long, but got {}",
            t.dtype().scalar_type_name()
        )));
    }
    match t.dim() {
        0 => tensor_split_sections(input, t.to_vec::<i64>()[0], dim),
        1 => tensor_split_indices(input, &t.to_vec::<i64>(), dim),
        n => Err(Error::runtime(format!(
            "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional tensor, but got a tensor with {n} dims"
        ))),
    }
}

/// The dim `hsplit`/`vsplit`/`dsplit` split along, after torch's check that `input` has at least
/// `min_dims` dims.
fn xsplit_dim(input: &Tensor, name: &str, min_dims: usize, dim: usize) -> Result<usize> {
    if input.dim() < min_dims {
        // torch's texts: "at least 1 dimension" but "at least 2 dimension" (sic).
        return Err(Error::runtime(format!(
            "torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor with {} dimensions!",
            input.dim()
        )));
    }
    Ok(dim)
}

fn xsplit_sections(
    input: &Tensor,
    name: &str,
    min_dims: usize,
    dim: usize,
    sections: i64,
) -> Result<Vec<Tensor>> {
    let d = xsplit_dim(input, name, min_dims, dim)?;
    let size = input.sizes()[d] as i64;
    // C++'s `%`, as torch: a negative `sections` that divides the size reaches tensor_split's
    // "number of sections must be larger than 0".
    if sections == 0 || size % sections != 0 {
        return Err(Error::runtime(format!(
            "torch.{name} attempted to split along dimension {d}, but the size of the dimension {size} is not divisible by the split_size {sections}!"
        )));
    }
    tensor_split_sections(input, sections, d as i64)
}

/// `hsplit(input, sections)`: `tensor_split(input, sections, dim)` along dim 1 (dim 0 of a 1-D
/// input), which must divide evenly. RuntimeError for a 0-dim input or an uneven split. Mirrors
/// `torch.hsplit`.
pub fn hsplit_int(input: &Tensor, sections: i64) -> Result<Vec<Tensor>> {
    let dim = usize::from(input.dim() != 1);
    xsplit_sections(input, "hsplit", 1, dim, sections)
}

/// `hsplit(input, indices)`: `tensor_split(input, indices, dim)` along dim 1 (dim 0 of a 1-D
/// input). Mirrors `torch.hsplit`.
pub fn hsplit_array(input: &Tensor, indices: &[i64]) -> Result<Vec<Tensor>> {
    let dim = usize::from(input.dim() != 1);
    let d = xsplit_dim(input, "hsplit", 1, dim)?;
    tensor_split_indices(input, indices, d as i64)
}

/// `vsplit(input, sections)`: `tensor_split` along dim 0 of an input of at least 2 dims, which
/// must divide evenly. Mirrors `torch.vsplit`.
pub fn vsplit_int(input: &Tensor, sections: i64) -> Result<Vec<Tensor>> {
    xsplit_sections(input, "vsplit", 2, 0, sections)
}

/// `vsplit(input, indices)`: `tensor_split(input, indices, 0)` of an input of at least 2 dims.
/// Mirrors `torch.vsplit`.
pub fn vsplit_array(input: &Tensor, indices: &[i64]) -> Result<Vec<Tensor>> {
    let d = xsplit_dim(input, "vsplit", 2, 0)?;
    tensor_split_indices(input, indices, d as i64)
}

/// `dsplit(input, sections)`: `tensor_split` along dim 2 of an input of at least 3 dims, which
/// must divide evenly. Mirrors `torch.dsplit`.
pub fn dsplit_int(input: &Tensor, sections: i64) -> Result<Vec<Tensor>> {
    xsplit_sections(input, "dsplit", 3, 2, sections)
}

/// `dsplit(input, indices)`: `tensor_split(input, indices, 2)` of an input of at least 3 dims.
/// Mirrors `torch.dsplit`.
pub fn dsplit_array(input: &Tensor, indices: &[i64]) -> Result<Vec<Tensor>> {
    let d = xsplit_dim(input, "dsplit", 3, 2)?;
    tensor_split_indices(input, indices, d as i64)
}

fn sizes_i64(s: &[usize]) -> Vec<i64> {
    s.iter().map(|&x| x as i64).collect()
}

/// `rot90(input, k=1, dims=[0, 1])`: `input` rotated by 90° `k` times in the plane of `dims`,
/// from the first towards the second (`k` taken mod 4; negative turns the other way): a flip
/// then a transpose (view), a flip of both dims, or a copy. RuntimeError for `dims` not two
/// distinct dims or an input below 2 dims; IndexError for a dim out of range. Mirrors
/// `torch.rot90` (torch records one `Rot90Backward0`; here the flip/transpose are recorded).
pub fn rot90(input: &Tensor, k: i64, dims: &[i64]) -> Result<Tensor> {
    if dims.len() != 2 {
        return Err(Error::runtime(format!(
            "expected total rotation dims == 2, but got dims = {}",
            dims.len()
        )));
    }
    let nd = input.dim();
    if nd < 2 {
        return Err(Error::runtime(format!(
            "expected total dims >= 2, but got total dims = {nd}"
        )));
    }
    let (d0, d1) = (maybe_wrap_dim(dims[0], nd)?, maybe_wrap_dim(dims[1], nd)?);
    if d0 == d1 {
        return Err(Error::runtime(format!(
            "expected rotation dims to be different, but got dim0 = {} and dim1 = {}",
            dims[0], dims[1]
        )));
    }
    let (d0, d1) = (d0 as i64, d1 as i64);
    match k.rem_euclid(4) {
        1 => vt::transpose(&vt::flip(input, &[d1])?, d0, d1),
        2 => vt::flip(input, &[d0, d1]),
        3 => vt::transpose(&vt::flip(input, &[d0])?, d0, d1),
        _ => vt::clone(input),
    }
}

static MESHGRID_WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `meshgrid(*tensors)`: `meshgrid(*tensors, indexing="ij")` after torch's once-per-process
/// UserWarning that the indexing argument will be required. Mirrors `torch.meshgrid`.
pub fn meshgrid(tensors: &[Tensor]) -> Result<Vec<Tensor>> {
    use crate::core::warnings::{warn_once, WarningKind};
    warn_once(&MESHGRID_WARNED, WarningKind::User, || {
        "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument."
            .to_string()
    });
    meshgrid_indexing(tensors, "ij")
}

/// `meshgrid(*tensors, indexing=None)`: `meshgrid_indexing`, or `meshgrid` (with its warning)
/// when `indexing` is None. Mirrors `torch.meshgrid`.
pub fn meshgrid_opt(tensors: &[Tensor], indexing: Option<&str>) -> Result<Vec<Tensor>> {
    match indexing {
        Some(ix) => meshgrid_indexing(tensors, ix),
        None => meshgrid(tensors),
    }
}

/// `meshgrid(*tensors, indexing)`: for 0-dim or 1-D tensors of sizes `n0, n1, ...`, the views
/// of each expanded to `[n0, n1, ...]` along its own dim (`"ij"`), or with the first two dims
/// swapped (`"xy"`, Cartesian). RuntimeError for no tensors, mixed dtypes, a tensor of 2 or
/// more dims, or another `indexing`. Mirrors `torch.meshgrid`.
pub fn meshgrid_indexing(tensors: &[Tensor], indexing: &str) -> Result<Vec<Tensor>> {
    if tensors.is_empty() {
        return Err(Error::runtime("meshgrid expects a non-empty TensorList"));
    }
    if tensors.windows(2).any(|w| w[0].dtype() != w[1].dtype()) {
        return Err(Error::runtime(
            "meshgrid expects all tensors to have the same dtype",
        ));
    }
    let swap = match indexing {
        "xy" => tensors.len() >= 2,
        "ij" => false,
        _ => {
            return Err(Error::runtime(format!(
                "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}"
            )))
        }
    };
    if let Some(t) = tensors.iter().find(|t| t.dim() > 1) {
        // torch prints the tensor itself after "but got: "; its shape is given here.
        return Err(Error::runtime(format!(
            "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of shape {:?}",
            t.sizes()
        )));
    }
    let mut order: Vec<usize> = (0..tensors.len()).collect();
    if swap {
        order.swap(0, 1);
    }
    let shape: Vec<i64> = order.iter().map(|&i| tensors[i].numel() as i64).collect();
    let mut grids = vec![None; tensors.len()];
    for (pos, &i) in order.iter().enumerate() {
        let mut view_shape = vec![1i64; tensors.len()];
        view_shape[pos] = -1;
        grids[i] = Some(vt::expand(&vt::view(&tensors[i], &view_shape)?, &shape)?);
    }
    Ok(grids.into_iter().flatten().collect())
}

/// `cartesian_prod(*tensors)`: the `[n0 * n1 * ..., k]` tensor of all tuples of elements of the
/// `k` 1-D tensors, the last varying fastest (itertools.product); one tensor is returned as it
/// is. RuntimeError for a tensor that is not 1-D, no tensors, or mixed dtypes. Mirrors
/// `torch.cartesian_prod`.
pub fn cartesian_prod(tensors: &[Tensor]) -> Result<Tensor> {
    if let Some(t) = tensors.iter().find(|t| t.dim() != 1) {
        return Err(Error::runtime(format!(
            "Expect a 1D vector, but got shape {:?}",
            t.sizes()
        )));
    }
    if tensors.len() == 1 {
        return Ok(tensors[0].clone());
    }
    let grids = meshgrid_indexing(tensors, "ij")?;
    let flat: Vec<Tensor> = grids
        .iter()
        .map(|g| vt::flatten(g, 0, -1))
        .collect::<Result<_>>()?;
    vt::stack(&flat, 1)
}

/// `block_diag(*tensors)`: the tensors (0-dim as `[1, 1]`, 1-D `[n]` as `[1, n]`) placed along
/// the diagonal of a zero matrix, in the promoted dtype. RuntimeError for a tensor of more than
/// 2 dims. Mirrors `torch.block_diag` (torch records one `BlockDiagBackward0`; here the concats
/// the blocks are assembled with are recorded).
pub fn block_diag(tensors: &[Tensor]) -> Result<Tensor> {
    let mut blocks = Vec::with_capacity(tensors.len());
    for (i, t) in tensors.iter().enumerate() {
        blocks.push(match t.dim() {
            0 => vt::reshape(t, &[1, 1])?,
            1 => vt::reshape(t, &[1, -1])?,
            2 => t.clone(),
            n => {
                return Err(Error::runtime(format!(
                    "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has {n} dimensions"
                )))
            }
        });
    }
    let dtype = if tensors.is_empty() {
        DType::Float32
    } else {
        let refs: Vec<&Tensor> = tensors.iter().collect();
        crate::core::promote::result_type(&refs)
    };
    let cols: usize = blocks.iter().map(|b| b.sizes()[1]).sum();
    if blocks.is_empty() {
        return Tensor::zeros(&[1, 0], dtype);
    }
    let mut rows = Vec::with_capacity(blocks.len());
    let mut before = 0;
    for b in &blocks {
        let (r, c) = (b.sizes()[0], b.sizes()[1]);
        let after = cols - before - c;
        let row = vt::cat(
            &[
                Tensor::zeros(&[r, before], dtype)?,
                b.clone(),
                Tensor::zeros(&[r, after], dtype)?,
            ],
            1,
        )?;
        rows.push(row);
        before += c;
    }
    vt::cat(&rows, 0)
}

/// `diag_embed(input, offset=0, dim1=-2, dim2=-1)`: a tensor of one more dim whose `dim1`×`dim2`
/// planes hold the last dim of `input` on their `offset` diagonal, zeros elsewhere (planes of
/// size `n + |offset|`). RuntimeError "diagonal dimensions cannot be identical 1, 1"; IndexError
/// for a dim out of range (of `input.dim() + 1` dims). Mirrors `torch.diag_embed` (torch records
/// one `DiagEmbedBackward0`; here the where/expand/movedim it is made of are recorded).
pub fn diag_embed(input: &Tensor, offset: i64, dim1: i64, dim2: i64) -> Result<Tensor> {
    let nd = input.dim() + 1;
    let (d1, d2) = (maybe_wrap_dim(dim1, nd)?, maybe_wrap_dim(dim2, nd)?);
    if d1 == d2 {
        return Err(Error::runtime(format!(
            "diagonal dimensions cannot be identical {dim1}, {dim2}"
        )));
    }
    // A 0-dim input is one diagonal element.
    let input = if input.dim() == 0 {
        vt::reshape(input, &[1])?
    } else {
        input.clone()
    };
    let n = *input.sizes().last().unwrap_or(&1) as i64;
    let too_large = || Error::out_of_memory(format!("diag_embed: offset {offset} too large"));
    let k = i64::try_from(offset.unsigned_abs()).map_err(|_| too_large())?;
    let m = n.checked_add(k).ok_or_else(too_large)?;
    m.checked_mul(m).ok_or_else(too_large)?;
    let dtype = input.dtype();
    let lead: Vec<usize> = input.sizes()[..input.dim() - 1].to_vec();
    // The last dim padded with |offset| zeros to the plane's size m.
    let padded = if k == 0 {
        input.clone()
    } else {
        let mut zshape = lead.clone();
        zshape.push(k as usize);
        vt::cat(&[input.clone(), Tensor::zeros(&zshape, dtype)?], -1)?
    };
    // Element (i, j) of a plane: padded[i] when j == i + offset (offset >= 0: along rows), or
    // padded[j] when i == j - offset (offset < 0: along columns).
    let mut plane = sizes_i64(&lead);
    plane.extend([m, m]);
    let spread = if offset >= 0 {
        vt::expand(&vt::unsqueeze(&padded, -1)?, &plane)?
    } else {
        vt::expand(&vt::unsqueeze(&padded, -2)?, &plane)?
    };
    let mut mask = Vec::new();
    mask.try_reserve_exact((m * m) as usize)
        .map_err(|_| Error::out_of_memory("diag_embed: failed to allocate"))?;
    for i in 0..m {
        for j in 0..m {
            mask.push(j - i == offset);
        }
    }
    let mask = Tensor::from_vec(mask, &[m as usize, m as usize])?;
    let zero = Tensor::zeros(&[], dtype)?;
    let out = vt::where_(&mask, &spread, &zero)?;
    let out = vt::movedim_intlist(
        &out,
        &[nd as i64 - 2, nd as i64 - 1],
        &[d1 as i64, d2 as i64],
    )?;
    vt::contiguous(&out)
}

/// `diagflat(input, offset=0)`: the flattened input on the `offset` diagonal of a square
/// matrix of side `numel + |offset|`. Mirrors `torch.diagflat`.
pub fn diagflat(input: &Tensor, offset: i64) -> Result<Tensor> {
    diag_embed(&vt::reshape(input, &[-1])?, offset, 0, 1)
}

/// `sum_to_size(input, size)`: `input` summed down to `size`, which must expand to `input`'s
/// shape (over its leading dims and the dims where `size` is 1); `input` itself when already of
/// that shape; a full `sum()` for an empty `size`. RuntimeError "size {[4]} is not expandable
/// to size {[2, 3]}.". Mirrors `Tensor.sum_to_size`.
pub fn sum_to_size(input: &Tensor, size: &[i64]) -> Result<Tensor> {
    let sizes = input.sizes();
    let fmt = |v: &[i64]| {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let expandable = size.len() <= sizes.len()
        && size
            .iter()
            .rev()
            .zip(sizes.iter().rev())
            .all(|(&s, &t)| s == t as i64 || s == 1);
    if !expandable {
        return Err(Error::runtime(format!(
            "size {{[{}]}} is not expandable to size {{[{}]}}.",
            fmt(size),
            fmt(&sizes_i64(sizes))
        )));
    }
    if size.is_empty() {
        // torch's sum_to: an empty shape is a full `sum()` (integers accumulate in int64).
        return vt::sum(input, None, false, None);
    }
    let lead = sizes.len() - size.len();
    let mut reduce: Vec<i64> = (0..lead as i64).collect();
    for (i, &s) in size.iter().enumerate() {
        if s == 1 && sizes[lead + i] != 1 {
            reduce.push((lead + i) as i64);
        }
    }
    let mut t = input.clone();
    if !reduce.is_empty() {
        t = vt::sum(&t, Some(&reduce), true, None)?;
    }
    if lead > 0 {
        t = vt::view(&t, size)?;
    }
    Ok(t)
}

/// The gradient of `unfold(input, dimension, size, step)`: each window's gradient added back at
/// its place, `zeros(input_sizes).index_add(dimension, positions, grad)` with the windows'
/// elements flattened in order (recorded, so double backward works). torch's
/// `unfold_backward`.
pub fn unfold_backward(
    grad: &Tensor,
    input_sizes: &[usize],
    dimension: i64,
    size: i64,
    step: i64,
) -> Result<Tensor> {
    if input_sizes.is_empty() {
        // A 0-dim input unfolds to [size] (size 0 or 1).
        return vt::reshape(&vt::sum(grad, None, false, None)?, &[]);
    }
    let d = maybe_wrap_dim(dimension, input_sizes.len())?;
    let windows = grad.sizes()[d] as i64;
    // [..., windows, ..., size] -> [..., windows, size, ...] -> [..., windows * size, ...]
    let last = grad.dim() as i64 - 1;
    let moved = vt::movedim_intlist(grad, &[last], &[d as i64 + 1])?;
    let flat = vt::flatten(&moved, d as i64, d as i64 + 1)?;
    let mut pos = Vec::with_capacity((windows * size).max(0) as usize);
    for w in 0..windows {
        for e in 0..size {
            pos.push(w * step + e);
        }
    }
    let npos = pos.len();
    let index = Tensor::from_vec(pos, &[npos])?;
    let zeros = Tensor::zeros(input_sizes, grad.dtype())?;
    vt::index_add(
        &zeros,
        d as i64,
        &index,
        &flat,
        crate::core::scalar::Scalar::Int(1),
    )
}

/// `grad[..., start:end:step]` along `dim`, recorded (a narrow, then an index_select for a
/// step above 1): the gradient of `slice_scatter`'s `src`.
pub fn slice_grad(
    grad: &Tensor,
    dim: i64,
    start: Option<i64>,
    end: Option<i64>,
    step: i64,
) -> Result<Tensor> {
    let d = maybe_wrap_dim(dim, grad.dim())?;
    let n = grad.sizes()[d] as i64;
    let (s, len) = slice_bounds(start.unwrap_or(0), end.unwrap_or(n), n);
    let part = vt::narrow(grad, d as i64, s, len)?;
    if step <= 1 {
        return Ok(part);
    }
    let picks: Vec<i64> = (0..len).step_by(step as usize).collect();
    let k = picks.len();
    vt::index_select(&part, d as i64, &Tensor::from_vec(picks, &[k])?)
}

/// `grad.diagonal(offset, dim1, dim2)`, recorded (movedim, flatten, index_select): the
/// gradient of `diagonal_scatter`'s `src`.
pub fn diagonal_grad(grad: &Tensor, offset: i64, dim1: i64, dim2: i64) -> Result<Tensor> {
    let nd = grad.dim();
    let (d1, d2) = (maybe_wrap_dim(dim1, nd)?, maybe_wrap_dim(dim2, nd)?);
    let (a, b) = (grad.sizes()[d1] as i64, grad.sizes()[d2] as i64);
    let len = if offset >= 0 {
        a.min(b - offset).max(0)
    } else {
        (a + offset).min(b).max(0)
    };
    let (r0, c0) = (offset.min(0).abs(), offset.max(0));
    let picks: Vec<i64> = (0..len).map(|i| (i + r0) * b + i + c0).collect();
    let moved = vt::movedim_intlist(
        grad,
        &[d1 as i64, d2 as i64],
        &[nd as i64 - 2, nd as i64 - 1],
    )?;
    let flat = vt::flatten(&moved, nd as i64 - 2, nd as i64 - 1)?;
    let k = picks.len();
    vt::index_select(&flat, nd as i64 - 2, &Tensor::from_vec(picks, &[k])?)
}

/// The gradient of `masked_scatter`'s `source`: `grad`'s elements where `mask` is True, in
/// order, then zeros, in `source`'s shape (torch's `masked_scatter_backward`); recorded.
pub fn masked_scatter_source_grad(
    grad: &Tensor,
    mask: &Tensor,
    source_sizes: &[usize],
) -> Result<Tensor> {
    let picked = vt::masked_select(grad, mask)?;
    let n: usize = source_sizes.iter().product();
    let rest = n.saturating_sub(picked.numel());
    let all = if rest > 0 {
        vt::cat(&[picked, Tensor::zeros(&[rest], grad.dtype())?], 0)?
    } else {
        picked
    };
    vt::reshape(&all, &sizes_i64(source_sizes))
}

/// `repeat_interleave(input, repeats: Tensor, dim=None, *, output_size=None)`: each slice
/// `i` of `input` along `dim` (of the flattened input without `dim`) repeated `repeats[i]`
/// times — an index_select, as torch; a 0-dim or one-element `repeats` applies to every slice.
/// RuntimeError "repeats must have the same size as input along dim, but got repeats.size(0) =
/// 2 and input.size(1) = 3", "repeats must be 0-dim or 1-dim tensor", and the errors of
/// `repeat_interleave(repeats)`. Mirrors `torch.repeat_interleave`.
pub fn repeat_interleave_self_tensor(
    input: &Tensor,
    repeats: &Tensor,
    dim: Option<i64>,
    output_size: Option<i64>,
) -> Result<Tensor> {
    let (input, dim) = match dim {
        Some(d) => (input.clone(), d),
        None => (vt::flatten(input, 0, -1)?, 0),
    };
    let d = maybe_wrap_dim(dim, input.dim().max(1))?;
    let len = if input.dim() == 0 {
        1
    } else {
        input.sizes()[d]
    };
    let repeats = if repeats.dim() == 0 || (repeats.dim() == 1 && repeats.sizes()[0] == 1) {
        crate::core::ops::expand(&crate::core::ops::reshape(repeats, &[1])?, &[len as i64])?
    } else if repeats.dim() == 1 {
        if repeats.sizes()[0] != len {
            return Err(Error::runtime(format!(
                "repeats must have the same size as input along dim, but got repeats.size(0) = {} and input.size({d}) = {len}",
                repeats.sizes()[0]
            )));
        }
        repeats.clone()
    } else {
        return Err(Error::runtime("repeats must be 0-dim or 1-dim tensor"));
    };
    let index = crate::core::ops::repeat_interleave_tensor(&repeats, output_size)?;
    vt::index_select(&input, d as i64, &index)
}

/// `repeat_interleave(input, repeats: int, dim=None, *, output_size=None)`: each slice along
/// `dim` (of the flattened input without `dim`) repeated `repeats` times, as
/// `input.unsqueeze(dim + 1).expand(...).flatten(dim, dim + 1)` (torch's composition).
/// RuntimeError "Repeats must be non-negative", "repeat_interleave: Invalid output_size,
/// expected 4 but got 5". Mirrors `torch.repeat_interleave`.
pub fn repeat_interleave_self_int(
    input: &Tensor,
    repeats: i64,
    dim: Option<i64>,
    output_size: Option<i64>,
) -> Result<Tensor> {
    if repeats < 0 {
        return Err(Error::runtime("Repeats must be non-negative"));
    }
    let (input, dim) = match dim {
        Some(d) => (input.clone(), d),
        None => (vt::flatten(input, 0, -1)?, 0),
    };
    let d = maybe_wrap_dim(dim, input.dim().max(1))? as i64;
    let mut shape = sizes_i64(input.sizes());
    if let Some(o) = output_size {
        let expected = shape
            .get(d as usize)
            .copied()
            .unwrap_or(1)
            .checked_mul(repeats)
            .ok_or_else(|| Error::runtime("repeat_interleave: the result is too large"))?;
        if o != expected {
            return Err(Error::runtime(format!(
                "repeat_interleave: Invalid output_size, expected {expected} but got {o}"
            )));
        }
    }
    let un = vt::unsqueeze(&input, d + 1)?;
    shape.insert((d + 1) as usize, repeats);
    vt::flatten(&vt::expand(&un, &shape)?, d, d + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_bounds_follow_python_slices() {
        assert_eq!(slice_bounds(0, 3, 4), (0, 3));
        assert_eq!(slice_bounds(1, 0, 4), (1, 0));
        assert_eq!(slice_bounds(0, 5, 4), (0, 4));
        assert_eq!(slice_bounds(5, 4, 4), (4, 0));
        assert_eq!(slice_bounds(0, -1, 4), (0, 3));
        assert_eq!(slice_bounds(-1, 4, 4), (3, 1));
        assert_eq!(slice_bounds(-9, 2, 4), (0, 2));
        assert_eq!(slice_bounds(i64::MIN, i64::MAX, 4), (0, 4));
    }
}
