//! src/core/autograd/composite.rs: ops torch defines as compositions of other ops
//! (CompositeImplicitAutograd: `view_as`, `expand_as`, `reshape_as`, `broadcast_to`,
//! `broadcast_tensors`, `inner`, `tensordot`, `kron`) — written once over the recording
//! wrappers of variable_type.rs, so that their history is the history of the ops they are made
//! of, as in torch (`x.view_as(y).grad_fn` is a `ViewBackward0`). They have no node of their
//! own; src/derivatives.yaml names the node the composition records. variable_type.rs
//! re-exports them, so the generated bindings call them as `vt::op` like any wrapper.

use super::variable_type as vt;
use crate::core::error::{Error, Result};
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
pub fn tensordot_dims(input: &Tensor, other: &Tensor, dims_a: &[i64], dims_b: &[i64]) -> Result<Tensor> {
    if dims_a.len() != dims_b.len() {
        return Err(Error::runtime(
            "both dimension lists should have same length",
        ));
    }
    let (na, nb) = (input.dim(), other.dim());
    let mut ca = Vec::with_capacity(dims_a.len());
    let mut cb = Vec::with_capacity(dims_b.len());
    for (&da, &db) in dims_a.iter().zip(dims_b) {
        let (a, b) = (maybe_wrap_dim(da, na)?, maybe_wrap_dim(db, nb)?);
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
    let a2 = vt::reshape(&vt::permute(input, &perm_a)?, &[m, k])?;
    let b2 = vt::reshape(&vt::permute(other, &perm_b)?, &[k, n])?;
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
    let (la, lb) = (input.sizes()[input.dim() - 1], other.sizes()[other.dim() - 1]);
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
