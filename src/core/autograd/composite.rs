//! src/core/autograd/composite.rs: ops torch defines as compositions of other ops
//! (CompositeImplicitAutograd: `view_as`, `expand_as`, `reshape_as`, `broadcast_to`,
//! `broadcast_tensors`, `inner`, `tensordot`, `kron`) — written once over the recording
//! wrappers of variable_type.rs, so that their history is the history of the ops they are made
//! of, as in torch (`x.view_as(y).grad_fn` is a `ViewBackward0`). They have no node of their
//! own; src/derivatives.yaml names the node the composition records. variable_type.rs
//! re-exports them, so the generated bindings call them as `vt::op` like any wrapper.

use super::variable_type as vt;
use crate::core::error::{Error, Result};
use crate::core::ops;
use crate::core::tensor::{broadcast_shapes, maybe_wrap_dim, Tensor};

fn sizes_i64(s: &[usize]) -> Vec<i64> {
    s.iter().map(|&x| x as i64).collect()
}

/// `view_as(input, other)`: `input.view(other.shape)`. Mirrors `Tensor.view_as`.
pub fn view_as(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    vt::view(input, &sizes_i64(other.sizes()))
}

/// `reshape_as(input, other)`: `input.reshape(other.shape)`. Mirrors `Tensor.reshape_as`.
pub fn reshape_as(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    vt::reshape(input, &sizes_i64(other.sizes()))
}

/// `expand_as(input, other)`: `input.expand(other.shape)`. Mirrors `Tensor.expand_as`.
pub fn expand_as(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    vt::expand(input, &sizes_i64(other.sizes()))
}

/// `broadcast_to(input, size)`: `input.expand(size)`. Mirrors `torch.broadcast_to`.
pub fn broadcast_to(input: &Tensor, size: &[i64]) -> Result<Tensor> {
    vt::expand(input, size)
}

/// `broadcast_tensors(*tensors)`: each tensor expanded to the broadcast shape of all (views).
/// RuntimeError "The size of tensor a (3) must match the size of tensor b (2) at non-singleton
/// dimension 1" when they do not broadcast. Mirrors `torch.broadcast_tensors`.
pub fn broadcast_tensors(tensors: &[Tensor]) -> Result<Vec<Tensor>> {
    let mut shape: Vec<usize> = Vec::new();
    for t in tensors {
        shape = broadcast_shapes(&shape, t.sizes())?;
    }
    let target = sizes_i64(&shape);
    tensors.iter().map(|t| vt::expand(t, &target)).collect()
}

/// `tensordot` over explicit dims: `input`'s `dims_a` contracted with `other`'s `dims_b` (same
/// sizes, pairwise); the result has `input`'s free dims then `other`'s. RuntimeError
/// "contracted dimensions need to match, but first has size 3 in dim 1 and second has size 4 in
/// dim 0".
pub fn tensordot_dims(
    input: &Tensor,
    other: &Tensor,
    dims_a: &[i64],
    dims_b: &[i64],
) -> Result<Tensor> {
    if dims_a.len() != dims_b.len() {
        return Err(Error::runtime(
            "both dimension lists should have same length",
        ));
    }
    let (na, nb) = (input.dim(), other.dim());
    let mut ca = Vec::with_capacity(dims_a.len());
    let mut cb = Vec::with_capacity(dims_b.len());
    // A contracted pair of sizes 1 and n: torch sums the size-n side over that dim first, in
    // its own dtype (an int32 sum stays int32, so mm sees one dtype).
    let mut input = input.clone();
    let mut other = other.clone();
    for (&da, &db) in dims_a.iter().zip(dims_b) {
        let (a, b) = (maybe_wrap_dim(da, na)?, maybe_wrap_dim(db, nb)?);
        let (sa, sb) = (input.sizes()[a], other.sizes()[b]);
        if sa != sb && sa == 1 {
            other = vt::sum(&other, Some(&[b as i64]), true, Some(other.dtype()))?;
        } else if sa != sb && sb == 1 {
            input = vt::sum(&input, Some(&[a as i64]), true, Some(input.dtype()))?;
        }
        if input.sizes()[a] != other.sizes()[b] {
            return Err(Error::runtime(format!(
                "contracted dimensions need to match, but first has size {} in dim {} and second has size {} in dim {}",
                input.sizes()[a],
                da,
                other.sizes()[b],
                db
            )));
        }
        ca.push(a);
        cb.push(b);
    }
    let free_a: Vec<usize> = (0..na).filter(|d| !ca.contains(d)).collect();
    let free_b: Vec<usize> = (0..nb).filter(|d| !cb.contains(d)).collect();
    let k: i64 = ca.iter().map(|&d| input.sizes()[d] as i64).product();
    let m: i64 = free_a.iter().map(|&d| input.sizes()[d] as i64).product();
    let n: i64 = free_b.iter().map(|&d| other.sizes()[d] as i64).product();
    let perm_a: Vec<i64> = free_a.iter().chain(&ca).map(|&d| d as i64).collect();
    let perm_b: Vec<i64> = cb.iter().chain(&free_b).map(|&d| d as i64).collect();
    let a2 = vt::reshape(&vt::permute(&input, &perm_a)?, &[m, k])?;
    let b2 = vt::reshape(&vt::permute(&other, &perm_b)?, &[k, n])?;
    let out_shape: Vec<i64> = free_a
        .iter()
        .map(|&d| input.sizes()[d] as i64)
        .chain(free_b.iter().map(|&d| other.sizes()[d] as i64))
        .collect();
    vt::reshape(&vt::mm(&a2, &b2)?, &out_shape)
}

/// `tensordot(input, other, dims=2)`: the last `dims` dims of `input` contracted with the first
/// `dims` of `other`. RuntimeError "tensordot expects dims >= 0, but got dims=-1" for a negative
/// count. Mirrors `torch.tensordot`.
pub fn tensordot(input: &Tensor, other: &Tensor, dims: i64) -> Result<Tensor> {
    if dims < 0 {
        return Err(Error::runtime(format!(
            "tensordot expects dims >= 0, but got dims={dims}"
        )));
    }
    let (na, nb) = (input.dim() as i64, other.dim() as i64);
    if dims > na || dims > nb {
        return Err(Error::runtime(format!(
            "tensordot expects dims < ndim_a or ndim_b, but got dims={dims}"
        )));
    }
    let da: Vec<i64> = (na - dims..na).collect();
    let db: Vec<i64> = (0..dims).collect();
    tensordot_dims(input, other, &da, &db)
}

/// `inner(input, other)`: the sum of products over the last dims (`input * other` when either
/// is 0-dim); shape `input.shape[:-1] + other.shape[:-1]`. RuntimeError "inner() the last
/// dimension must match on both input tensors but got shapes [2, 3] and [4, 2]". Mirrors
/// `torch.inner`.
pub fn inner(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    if input.dim() == 0 || other.dim() == 0 {
        return vt::mul(input, other);
    }
    let (la, lb) = (
        input.sizes()[input.dim() - 1],
        other.sizes()[other.dim() - 1],
    );
    if la != lb {
        return Err(Error::runtime(format!(
            "inner() the last dimension must match on both input tensors but got shapes {:?} and {:?}",
            input.sizes(),
            other.sizes()
        )));
    }
    tensordot_dims(input, other, &[-1], &[-1])
}

/// `kron(input, other)`: the Kronecker product; the shorter shape is padded with leading 1s,
/// and dim `i` of the result has size `input.shape[i] * other.shape[i]`. Mirrors `torch.kron`.
pub fn kron(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    let nd = input.dim().max(other.dim());
    let pad = |t: &Tensor| -> Vec<i64> {
        let mut s = vec![1i64; nd - t.dim()];
        s.extend(t.sizes().iter().map(|&x| x as i64));
        s
    };
    let (sa, sb) = (pad(input), pad(other));
    let mut ia = Vec::with_capacity(2 * nd);
    let mut ib = Vec::with_capacity(2 * nd);
    for d in 0..nd {
        ia.extend([sa[d], 1]);
        ib.extend([1, sb[d]]);
    }
    let prod = vt::mul(&vt::reshape(input, &ia)?, &vt::reshape(other, &ib)?)?;
    let out: Vec<i64> = (0..nd).map(|d| sa[d] * sb[d]).collect();
    vt::reshape(&prod, &out)
}

/// `atleast_1d(input)`: a 0-dim tensor as shape `[1]`; others unchanged (input itself).
/// Mirrors `torch.atleast_1d`.
pub fn atleast_1d(input: &Tensor) -> Result<Tensor> {
    match input.dim() {
        0 => vt::reshape(input, &[1]),
        _ => Ok(input.clone()),
    }
}

/// `atleast_2d(input)`: 0-dim as `[1, 1]`, 1-D `[n]` as `[1, n]`; others unchanged. Mirrors
/// `torch.atleast_2d`.
pub fn atleast_2d(input: &Tensor) -> Result<Tensor> {
    match input.dim() {
        0 => vt::reshape(input, &[1, 1]),
        1 => vt::unsqueeze(input, 0),
        _ => Ok(input.clone()),
    }
}

/// `atleast_3d(input)`: 0-dim as `[1, 1, 1]`, `[n]` as `[1, n, 1]`, `[m, n]` as `[m, n, 1]`;
/// others unchanged. Mirrors `torch.atleast_3d`.
pub fn atleast_3d(input: &Tensor) -> Result<Tensor> {
    match input.dim() {
        0 => vt::reshape(input, &[1, 1, 1]),
        1 => vt::unsqueeze(&vt::unsqueeze(input, 0)?, 2),
        2 => vt::unsqueeze(input, 2),
        _ => Ok(input.clone()),
    }
}

/// `atleast_1d` of each tensor of a sequence. Mirrors `torch.atleast_1d(*tensors)`.
pub fn atleast_1d_sequence(tensors: &[Tensor]) -> Result<Vec<Tensor>> {
    tensors.iter().map(atleast_1d).collect()
}

/// `atleast_2d` of each tensor of a sequence. Mirrors `torch.atleast_2d(*tensors)`.
pub fn atleast_2d_sequence(tensors: &[Tensor]) -> Result<Vec<Tensor>> {
    tensors.iter().map(atleast_2d).collect()
}

/// `atleast_3d` of each tensor of a sequence. Mirrors `torch.atleast_3d(*tensors)`.
pub fn atleast_3d_sequence(tensors: &[Tensor]) -> Result<Vec<Tensor>> {
    tensors.iter().map(atleast_3d).collect()
}

fn non_empty(tensors: &[Tensor], name: &str) -> Result<()> {
    if tensors.is_empty() {
        return Err(Error::runtime(format!(
            "{name} expects a non-empty TensorList"
        )));
    }
    Ok(())
}

/// `hstack(tensors)`: 1-D tensors (0-dim ones as `[1]`) concatenated along dim 0, others along
/// dim 1. RuntimeError "hstack expects a non-empty TensorList". Mirrors `torch.hstack`.
pub fn hstack(tensors: &[Tensor]) -> Result<Tensor> {
    non_empty(tensors, "hstack")?;
    let t = atleast_1d_sequence(tensors)?;
    let dim = if t[0].dim() == 1 { 0 } else { 1 };
    vt::cat(&t, dim)
}

/// `vstack(tensors)`: each as at least 2-D (`[n]` as `[1, n]`), concatenated along dim 0.
/// Mirrors `torch.vstack` (alias `row_stack`).
pub fn vstack(tensors: &[Tensor]) -> Result<Tensor> {
    non_empty(tensors, "vstack")?;
    vt::cat(&atleast_2d_sequence(tensors)?, 0)
}

/// `dstack(tensors)`: each as at least 3-D, concatenated along dim 2. Mirrors `torch.dstack`.
pub fn dstack(tensors: &[Tensor]) -> Result<Tensor> {
    non_empty(tensors, "dstack")?;
    vt::cat(&atleast_3d_sequence(tensors)?, 2)
}

/// `column_stack(tensors)`: 0-dim and 1-D tensors as columns `[n, 1]`, others unchanged,
/// concatenated along dim 1. Mirrors `torch.column_stack`.
pub fn column_stack(tensors: &[Tensor]) -> Result<Tensor> {
    non_empty(tensors, "column_stack")?;
    let cols: Vec<Tensor> = tensors
        .iter()
        .map(|t| {
            if t.dim() <= 1 {
                vt::reshape(t, &[t.numel() as i64, 1])
            } else {
                Ok(t.clone())
            }
        })
        .collect::<Result<_>>()?;
    vt::cat(&cols, 1)
}

/// `fliplr(input)`: `flip(input, [1])`; RuntimeError "Input must be >= 2-d." Mirrors
/// `torch.fliplr`.
pub fn fliplr(input: &Tensor) -> Result<Tensor> {
    if input.dim() < 2 {
        return Err(Error::runtime("Input must be >= 2-d."));
    }
    vt::flip(input, &[1])
}

/// `flipud(input)`: `flip(input, [0])`; RuntimeError "Input must be >= 1-d." Mirrors
/// `torch.flipud`.
pub fn flipud(input: &Tensor) -> Result<Tensor> {
    if input.dim() < 1 {
        return Err(Error::runtime("Input must be >= 1-d."));
    }
    vt::flip(input, &[0])
}

/// `ravel(input)`: `input.reshape(-1)`. Mirrors `torch.ravel`.
pub fn ravel(input: &Tensor) -> Result<Tensor> {
    vt::reshape(input, &[-1])
}

/// `std_mean(input, dim=None, *, correction=None, keepdim=False)`: `(std, mean)` over `dim`.
/// Mirrors `torch.std_mean`.
pub fn std_mean_correction(
    input: &Tensor,
    dim: Option<&[i64]>,
    correction: Option<crate::core::scalar::Scalar>,
    keepdim: bool,
) -> Result<Vec<Tensor>> {
    Ok(vec![
        vt::std_correction(input, dim, correction, keepdim)?,
        vt::mean(input, dim, keepdim, None)?,
    ])
}

/// `var_mean(input, dim=None, *, correction=None, keepdim=False)`: `(var, mean)` over `dim`.
/// Mirrors `torch.var_mean`.
pub fn var_mean_correction(
    input: &Tensor,
    dim: Option<&[i64]>,
    correction: Option<crate::core::scalar::Scalar>,
    keepdim: bool,
) -> Result<Vec<Tensor>> {
    Ok(vec![
        vt::var_correction(input, dim, correction, keepdim)?,
        vt::mean(input, dim, keepdim, None)?,
    ])
}

fn unbiased(u: bool) -> Option<crate::core::scalar::Scalar> {
    Some(crate::core::scalar::Scalar::Int(if u { 1 } else { 0 }))
}

/// `std_mean(input, unbiased=True)`. Mirrors `torch.std_mean`.
pub fn std_mean(input: &Tensor, unbiased_: bool) -> Result<Vec<Tensor>> {
    std_mean_correction(input, None, unbiased(unbiased_), false)
}

/// `std_mean(input, dim, unbiased=True, keepdim=False)`. Mirrors `torch.std_mean`.
pub fn std_mean_dim(
    input: &Tensor,
    dim: Option<&[i64]>,
    unbiased_: bool,
    keepdim: bool,
) -> Result<Vec<Tensor>> {
    std_mean_correction(input, dim, unbiased(unbiased_), keepdim)
}

/// `var_mean(input, unbiased=True)`. Mirrors `torch.var_mean`.
pub fn var_mean(input: &Tensor, unbiased_: bool) -> Result<Vec<Tensor>> {
    var_mean_correction(input, None, unbiased(unbiased_), false)
}

/// `var_mean(input, dim, unbiased=True, keepdim=False)`. Mirrors `torch.var_mean`.
pub fn var_mean_dim(
    input: &Tensor,
    dim: Option<&[i64]>,
    unbiased_: bool,
    keepdim: bool,
) -> Result<Vec<Tensor>> {
    var_mean_correction(input, dim, unbiased(unbiased_), keepdim)
}

/// `nansum(input, dim=None, keepdim=False, *, dtype=None)`: the sum treating NaN as 0 (integers:
/// the sum). Mirrors `torch.nansum`.
pub fn nansum(
    input: &Tensor,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<crate::core::dtype::DType>,
) -> Result<Tensor> {
    if !input.dtype().is_floating_point() {
        return vt::sum(input, dim, keepdim, dtype);
    }
    let nan = crate::core::ops::isnan(input)?;
    let zeroed = vt::masked_fill(input, &nan, crate::core::scalar::Scalar::Int(0))?;
    vt::sum(&zeroed, dim, keepdim, dtype)
}

/// `nanmean(input, dim=None, keepdim=False, *, dtype=None)`: the mean of the elements that are
/// not NaN (NaN where all are). NotImplementedError "nanmean(): expected input to have floating
/// point or complex dtype but got Long" for other dtypes. Mirrors `torch.nanmean`.
pub fn nanmean(
    input: &Tensor,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<crate::core::dtype::DType>,
) -> Result<Tensor> {
    if !input.dtype().is_floating_point() {
        return Err(Error::not_implemented(format!(
            "nanmean(): expected input to have floating point or complex dtype but got {}",
            input.dtype().scalar_type_name()
        )));
    }
    let keep = crate::core::ops::logical_not(&crate::core::ops::isnan(input)?)?;
    let count = crate::core::ops::sum(&keep, dim, keepdim, None)?;
    vt::div(&nansum(input, dim, keepdim, dtype)?, &count, None)
}

/// `take_along_dim(input, indices, dim=None)`: `gather` along `dim` after broadcasting `input`
/// and `indices` over the other dims; without `dim`, over the flattened input. RuntimeError
/// "torch.take_along_dim(): input and indices should have the same number of dimensions, but
/// got 2 dimensions for input, and 1 dimensions for indices". Mirrors `torch.take_along_dim`.
pub fn take_along_dim(input: &Tensor, indices: &Tensor, dim: Option<i64>) -> Result<Tensor> {
    let Some(dim) = dim else {
        return vt::gather(
            &vt::reshape(input, &[-1])?,
            0,
            &crate::core::ops::reshape(indices, &[-1])?,
        );
    };
    if input.dim() != indices.dim() {
        return Err(Error::runtime(format!(
            "torch.take_along_dim(): input and indices should have the same number of dimensions, but got {} dimensions for input, and {} dimensions for indices",
            input.dim(),
            indices.dim()
        )));
    }
    let d = maybe_wrap_dim(dim, input.dim())?;
    let mut a: Vec<usize> = input.sizes().to_vec();
    let mut b: Vec<usize> = indices.sizes().to_vec();
    a[d] = 1;
    b[d] = 1;
    let shape = broadcast_shapes(&a, &b)?;
    let mut si = sizes_i64(&shape);
    let mut sx = si.clone();
    si[d] = indices.sizes()[d] as i64;
    sx[d] = input.sizes()[d] as i64;
    // Negative indices count from the end (Python's modulo, as torch's take_along_dim).
    let size = crate::core::tensor::Tensor::wrapped_scalar(crate::core::scalar::Scalar::Int(
        input.sizes()[d] as i64,
    ))?;
    let zero = crate::core::tensor::Tensor::wrapped_scalar(crate::core::scalar::Scalar::Int(0))?;
    let wrapped = crate::core::ops::where_(
        &crate::core::ops::lt(indices, &zero)?,
        &crate::core::ops::remainder(indices, &size)?,
        indices,
    )?;
    let idx = crate::core::ops::expand(&wrapped, &si)?;
    vt::gather(&vt::expand(input, &sx)?, d as i64, &idx)
}

/// `einsum(equation, tensors)`, recorded through the ops it is made of (diagonal, sum, permute,
/// expand, reshape, matmul), as torch's composite einsum is. Mirrors `torch.einsum`.
pub fn einsum(equation: &str, tensors: &[Tensor]) -> Result<Tensor> {
    const RECORDING: ops::einsum::EinsumKernels = ops::einsum::EinsumKernels {
        diagonal: vt::diagonal,
        sum: vt::sum,
        permute: vt::permute,
        expand: vt::expand,
        reshape: vt::reshape,
        matmul: vt::matmul,
    };
    if tensors.iter().any(|t| t.requires_grad()) && crate::core::autograd::is_grad_enabled() {
        ops::einsum::einsum_with(&RECORDING, equation, tensors)
    } else {
        ops::einsum(equation, tensors)
    }
}

/// `aminmax(input, *, dim=None, keepdim=False)`: `(amin, amax)` over `dim` (all dims when
/// None), recorded as amin and amax (torch records one `AminmaxBackward0`; the gradients are
/// the same: split evenly among the tied extremes). Mirrors `torch.aminmax`.
pub fn aminmax(input: &Tensor, dim: Option<i64>, keepdim: bool) -> Result<(Tensor, Tensor)> {
    if !vt::should_record(&[input]) || input.dim() == 0 {
        return ops::aminmax(input, dim, keepdim);
    }
    let dims: Vec<i64> = dim.into_iter().collect();
    Ok((
        vt::amin(input, &dims, keepdim)?,
        vt::amax(input, &dims, keepdim)?,
    ))
}

/// The pieces `pieces` (a bare split of `input` along `dim`) recorded as narrows of `input`
/// when it requires grad (torch records one `SplitBackward0`/`SplitWithSizesBackward0` for all
/// of them; the gradients are the same: each piece's gradient lands in its slice).
fn narrow_pieces(input: &Tensor, dim: i64, pieces: Vec<Tensor>) -> Result<Vec<Tensor>> {
    if !vt::should_record(&[input]) {
        return Ok(pieces);
    }
    let d = maybe_wrap_dim(dim, input.dim())? as i64;
    let mut start = 0i64;
    let mut out = Vec::with_capacity(pieces.len());
    for p in &pieces {
        let len = p.sizes()[d as usize] as i64;
        out.push(vt::narrow(input, d, start, len)?);
        start += len;
    }
    Ok(out)
}

/// `split(input, split_size, dim=0)`: pieces of `split_size` along `dim` (views). Mirrors
/// `torch.split`.
pub fn split(input: &Tensor, split_size: i64, dim: i64) -> Result<Vec<Tensor>> {
    narrow_pieces(input, dim, ops::split(input, split_size, dim)?)
}

/// `split(input, split_sizes, dim=0)`: pieces of the given sizes along `dim` (views). Mirrors
/// `torch.split`.
pub fn split_sizes(input: &Tensor, split_size: &[i64], dim: i64) -> Result<Vec<Tensor>> {
    narrow_pieces(input, dim, ops::split_sizes(input, split_size, dim)?)
}

/// `chunk(input, chunks, dim=0)`: at most `chunks` equal pieces along `dim` (views). Mirrors
/// `torch.chunk`.
pub fn chunk(input: &Tensor, chunks: i64, dim: i64) -> Result<Vec<Tensor>> {
    narrow_pieces(input, dim, ops::chunk(input, chunks, dim)?)
}

/// `unbind(input, dim=0)`: the slices along `dim` (views), recorded as selects (torch: one
/// `UnbindBackward0`). Mirrors `torch.unbind`.
pub fn unbind(input: &Tensor, dim: i64) -> Result<Vec<Tensor>> {
    let pieces = ops::unbind(input, dim)?;
    if !vt::should_record(&[input]) {
        return Ok(pieces);
    }
    (0..pieces.len() as i64)
        .map(|i| vt::select(input, dim, i))
        .collect()
}

/// `clamp(input, min=Tensor, max=Tensor)`: recorded as `clamp_min` then `clamp_max` (torch
/// records one `ClampBackward0`; the gradients are the same, ties split between the input and
/// the bound, a bound above the other taking it all). Mirrors `torch.clamp`.
pub fn clamp_tensor(input: &Tensor, min: Option<&Tensor>, max: Option<&Tensor>) -> Result<Tensor> {
    let out = ops::clamp_tensor(input, min, max)?;
    let mut inputs = vec![input];
    inputs.extend(min);
    inputs.extend(max);
    if !vt::should_record(&inputs) || !out.dtype().is_floating_point() {
        return Ok(out);
    }
    let mut r = input.clone();
    if let Some(lo) = min {
        r = vt::clamp_min_tensor(&r, lo)?;
    }
    if let Some(hi) = max {
        r = vt::clamp_max_tensor(&r, hi)?;
    }
    if r.dtype() != out.dtype() {
        r = vt::to(&r, out.dtype(), false, false)?;
    }
    Ok(r)
}

/// `clip(input, min=Tensor, max=Tensor)`: `clamp`. Mirrors `torch.clip`.
pub fn clip_tensor(input: &Tensor, min: Option<&Tensor>, max: Option<&Tensor>) -> Result<Tensor> {
    clamp_tensor(input, min, max)
}
