//! src/core/autograd/variable_type.rs: the recording wrappers (PyTorch: the generated
//! `VariableType` kernels): for each differentiable op, the same signature as the core op in
//! `crate::core::ops`; it runs the op and, when an input requires grad and grad mode is on,
//! makes the op's node, saves what the formula needs and sets the result's history. The
//! wrappers of the `formula:` entries of src/derivatives.yaml are generated (generated.rs,
//! re-exported here); this file holds the shared machinery (`should_record`, `record`,
//! `check_pending`, `inplace`) and the hand-written wrappers of the `manual:` entries. The
//! generated bindings call `vt::op` for both (a missing wrapper is a compile error), the bare
//! `ops::op` otherwise, after `check_pending` for `pending:` ops; in-place methods go through
//! `inplace` (Note [In-place ops and history]).

use super::formulas::{LinalgPairOp, Manual, NodeKind};
// The generated wrappers (`formula:` entries of src/derivatives.yaml) and `NO_SELF_CLONE`.
pub use super::generated::*;
use super::node::{Edge, Node, SavedTensor};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::ops;
use crate::core::ops::indexing::IndexItem as Item;
use crate::core::tensor::Tensor;
use std::sync::Arc;

// ---- nn (issue 15): the recording wrappers of the nn ops live in nn_formulas.rs ----
pub use super::nn_formulas::*;
// ---- linalg (issue 12/13): the multi-output linalg ops and the matrix norms live in
// linalg_formulas.rs ----
pub use super::linalg_formulas::{
    linalg_eigh, linalg_lu, linalg_lu_factor, linalg_lu_factor_ex, linalg_matrix_norm,
    linalg_matrix_norm_str_ord, linalg_norm, linalg_norm_ord_str, linalg_qr, linalg_solve_ex,
    linalg_svd, svd,
};
// The composite ops (issue 13), called as `vt::op` by the generated bindings like the wrappers here.
pub use super::composite::*;
pub use super::composite_stats::*;
// The shape/split composites of issue 13 part 3b.
pub use super::composite_shape::*;
// The `*_copy` variants, unsafe_split/unsafe_chunk and fill of issue 13 part 5.
pub use super::composite_copy::*;
pub use super::composite_misc::*;
// The random in-place fills, in-place composites and NotImplemented nodes (issue 12, session 5).
pub use super::inplace_formulas::*;
// `linear` and the nn ops' `native_*` forms, over the nn wrappers.
pub use super::nn_native::*;
// quantile / nanquantile through their decomposition.
pub use super::composite_quantile::*;

// Note [In-place ops and history]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// `x.op_(args)` with nothing requiring grad (or under no_grad) is the bare kernel: the op's
// plan run into `x`, which bumps `x`'s version (Note [Version counter]). When `x` or an argument
// requires grad and grad mode is on, torch's rules apply:
// - a leaf that requires grad may not be modified ("a leaf Variable that requires grad is being
//   used in an in-place operation."), nor a view of one ("a view of a leaf Variable ...");
// - otherwise the op is computed out of place through its recording wrapper, from `x` itself
//   or — when the op's formula reads `self` — from a recorded clone of `x` (torch saves a clone
//   too: `_saved_self` of `mul_` has `CloneBackward0`), the values are written into `x`, and
//   `x`'s history is rebased onto the new node (`grad_fn`, output 0).
// - in-place writes to a *view* of a tensor in a graph also rebase the view's base: torch's
//   CopySlices (Note [CopySlices] in copy_slices.rs).

/// True when the op must be recorded: some input requires grad (atomic loads only), then
/// grad mode (thread-local, read last: Note [Grad mode is read last]).
#[inline(always)]
pub fn should_record(inputs: &[&Tensor]) -> bool {
    inputs.iter().any(|t| t.requires_grad()) && super::is_grad_enabled()
}

/// The edges of a new node to the histories of `inputs`.
pub(crate) fn collect_edges(inputs: &[&Tensor]) -> Vec<Option<Edge>> {
    inputs
        .iter()
        .map(|t| {
            t.gradient_edge().map(|e| Edge {
                node: e.node,
                input_nr: e.input_nr,
            })
        })
        .collect()
}

/// Make the node `kind` over `inputs` and set it as `out`'s history (output 0). Outputs of a
/// non-floating dtype are not differentiable (torch: `x.long()` does not require grad).
pub(crate) fn record(out: &Tensor, inputs: &[&Tensor], kind: NodeKind) -> Option<Arc<Node>> {
    if !out.dtype().is_floating_point() {
        return None;
    }
    let node = Node::new(kind, Tensor::gradient_edges(inputs), &[out]);
    out.set_grad_fn(node.clone(), 0);
    Some(node)
}

/// `record` for a caller that does not need the node (the generated wrappers): the output
/// takes the only new handle (no reference-count round trip).
pub(crate) fn record_only(out: &Tensor, inputs: &[&Tensor], kind: NodeKind) {
    if out.dtype().is_floating_point() {
        out.set_grad_fn(Node::new(kind, Tensor::gradient_edges(inputs), &[out]), 0);
    }
}

/// torch's text for an op without a formula.
pub fn not_implemented(name: &str) -> Error {
    Error::not_implemented(format!("the derivative for '{name}' is not implemented."))
}

/// For ops declared `pending` in src/derivatives.yaml: an error instead of a result without
/// history when an input requires grad and grad mode is on.
#[inline(always)]
pub fn check_pending(name: &str, inputs: &[&Tensor]) -> Result<()> {
    if should_record(inputs) {
        return Err(not_implemented(name));
    }
    Ok(())
}

/// `t` with `requires_grad` set as a factory's `requires_grad=` asks (torch's text for a
/// non-floating dtype).
/// Inline, with the `requires_grad=True` work out of line: a factory call without it pays one
/// test (Note [Recording wrapper split] in build/gen_autograd.rs).
#[inline(always)]
pub fn with_requires_grad(t: Tensor, requires_grad: bool) -> Result<Tensor> {
    if requires_grad {
        return factory_requires_grad(t);
    }
    Ok(t)
}

#[inline(never)]
fn factory_requires_grad(t: Tensor) -> Result<Tensor> {
    if !t.dtype().is_floating_point() {
        return Err(Error::runtime(
            "Only Tensors of floating point and complex dtype can require gradients",
        ));
    }
    t.set_requires_grad(true)?;
    Ok(t)
}

/// `check_pending` for a tensor-list argument.
pub fn check_pending_list(name: &str, inputs: &[Tensor]) -> Result<()> {
    if inputs.iter().any(|t| t.requires_grad()) && super::is_grad_enabled() {
        return Err(not_implemented(name));
    }
    Ok(())
}

fn sizes_of(t: &Tensor) -> Box<[usize]> {
    t.sizes().into()
}

// ---- hand-written wrappers (`manual:` entries) -----------------------------------------------

pub fn div(a: &Tensor, b: &Tensor, rounding_mode: Option<&str>) -> Result<Tensor> {
    let out = ops::div(a, b, rounding_mode)?;
    if should_record(&[a, b]) {
        if rounding_mode.is_some() {
            // Rounded division: zero gradient (torch's DivBackward with rounding_mode).
            record(
                &out,
                &[a, b],
                NodeKind::Zero {
                    name: "DivBackward2",
                },
            );
        } else {
            let kind = NodeKind::from(Manual::Div {
                self_: SavedTensor::input_if(a, b.requires_grad())?,
                other: SavedTensor::input(b)?,
            });
            record(&out, &[a, b], kind);
        }
    }
    Ok(out)
}

fn values_indices(
    a: &Tensor,
    r: (Tensor, Tensor),
    name: &'static str,
    dim: i64,
    keepdim: bool,
) -> Result<(Tensor, Tensor)> {
    max_min_dim(a, r, name, dim, keepdim)
}

pub fn sort(a: &Tensor, dim: i64, descending: bool, stable: bool) -> Result<(Tensor, Tensor)> {
    values_indices(
        a,
        ops::sort(a, dim, descending, stable)?,
        "SortBackward0",
        dim,
        true,
    )
}

pub fn topk(a: &Tensor, k: i64, dim: i64, largest: bool, sorted: bool) -> Result<(Tensor, Tensor)> {
    values_indices(
        a,
        ops::topk(a, k, dim, largest, sorted)?,
        "TopkBackward0",
        dim,
        true,
    )
}

pub fn kthvalue(a: &Tensor, k: i64, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    values_indices(
        a,
        ops::kthvalue(a, k, dim, keepdim)?,
        "KthvalueBackward0",
        dim,
        keepdim,
    )
}

pub fn median_dim(a: &Tensor, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    values_indices(
        a,
        ops::median_dim(a, dim, keepdim)?,
        "MedianBackward1",
        dim,
        keepdim,
    )
}

pub fn nanmedian_dim(a: &Tensor, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    values_indices(
        a,
        ops::nanmedian_dim(a, dim, keepdim)?,
        "NanmedianBackward1",
        dim,
        keepdim,
    )
}

/// `frexp`: (mantissa, exponent), the mantissa recorded as `FrexpBackward0`.
pub fn frexp(a: &Tensor) -> Result<(Tensor, Tensor)> {
    let (m, e) = ops::frexp(a)?;
    if should_record(&[a]) {
        let kind = NodeKind::Frexp {
            exponent: SavedTensor::input(&e)?,
        };
        let node = Node::new(kind, collect_edges(&[a]), &[&m]);
        m.set_grad_fn(node, 0);
    }
    Ok((m, e))
}

/// `cummax` / `cummin`: the gradient is summed into the running extremes' indices
/// (`CummaxBackward0`, formulas.rs).
pub fn cummax(a: &Tensor, dim: i64) -> Result<(Tensor, Tensor)> {
    max_min_dim(a, ops::cummax(a, dim)?, "CummaxBackward0", dim, true)
}

pub fn cummin(a: &Tensor, dim: i64) -> Result<(Tensor, Tensor)> {
    max_min_dim(a, ops::cummin(a, dim)?, "CumminBackward0", dim, true)
}

pub fn mode(a: &Tensor, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    values_indices(
        a,
        ops::mode(a, dim, keepdim)?,
        "ModeBackward0",
        dim,
        keepdim,
    )
}

// ---- reductions ---------------------------------------------------------------------------

fn max_min_dim(
    a: &Tensor,
    (values, indices): (Tensor, Tensor),
    name: &'static str,
    dim: i64,
    keepdim: bool,
) -> Result<(Tensor, Tensor)> {
    if should_record(&[a]) && values.dtype().is_floating_point() {
        let kind = NodeKind::from(Manual::MaxMinDim {
            name,
            self_sizes: sizes_of(a),
            dim,
            keepdim,
            indices: SavedTensor::input(&indices)?,
        });
        let node = Node::new(kind, collect_edges(&[a]), &[&values]);
        values.set_grad_fn(node, 0);
    }
    Ok((values, indices))
}

pub fn max_dim(a: &Tensor, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    max_min_dim(
        a,
        ops::max_dim(a, dim, keepdim)?,
        "MaxBackward0",
        dim,
        keepdim,
    )
}

pub fn min_dim(a: &Tensor, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    max_min_dim(
        a,
        ops::min_dim(a, dim, keepdim)?,
        "MinBackward0",
        dim,
        keepdim,
    )
}

// ---- shape --------------------------------------------------------------------------------

fn reshape_like(a: &Tensor, out: Tensor, name: &'static str) -> Tensor {
    if should_record(&[a]) {
        record(
            &out,
            &[a],
            NodeKind::from(Manual::Reshape {
                name,
                self_sizes: sizes_of(a),
            }),
        );
    }
    out
}

/// Record the differentiable output `out` of a two-output linalg op (`NodeKind::LinalgPair`).
fn record_pair(out: &Tensor, a: &Tensor, op: LinalgPairOp, saved: SavedTensor) {
    record(out, &[a], NodeKind::from(Manual::LinalgPair { op, saved }));
}

/// `linalg.cholesky_ex(A, *, upper=False, check_errors=False)` recorded as torch's
/// `LinalgCholeskyExBackward0` (on `L`; `info` is an integer tensor).
pub fn linalg_cholesky_ex(a: &Tensor, upper: bool, check_errors: bool) -> Result<(Tensor, Tensor)> {
    let (l, info) = ops::linalg_cholesky_ex(a, upper, check_errors)?;
    if should_record(&[a]) {
        let saved = SavedTensor::output(&l, 0)?;
        record_pair(&l, a, LinalgPairOp::CholeskyEx { upper }, saved);
    }
    Ok((l, info))
}

/// `linalg.inv_ex(A, *, check_errors=False)` recorded as torch's `LinalgInvExBackward0`.
pub fn linalg_inv_ex(a: &Tensor, check_errors: bool) -> Result<(Tensor, Tensor)> {
    let (inv, info) = ops::linalg_inv_ex(a, check_errors)?;
    if should_record(&[a]) {
        let saved = SavedTensor::output(&inv, 0)?;
        record_pair(&inv, a, LinalgPairOp::InvEx, saved);
    }
    Ok((inv, info))
}

/// `linalg.slogdet(A)` recorded as torch's `LinalgSlogdetBackward0` on `logabsdet` (the sign
/// of a real matrix has no gradient).
pub fn linalg_slogdet(a: &Tensor) -> Result<(Tensor, Tensor)> {
    let (sign, logabsdet) = ops::linalg_slogdet(a)?;
    if should_record(&[a]) {
        record_pair(&logabsdet, a, LinalgPairOp::Slogdet, SavedTensor::input(a)?);
    }
    Ok((sign, logabsdet))
}

/// `slogdet(input)`: `linalg_slogdet`, as torch.
pub fn slogdet(a: &Tensor) -> Result<(Tensor, Tensor)> {
    linalg_slogdet(a)
}

/// `as_strided(self, size, stride, storage_offset=None)` recorded as torch's
/// `AsStridedBackward0` over the storage geometries of `a` and the result.
pub fn as_strided(
    a: &Tensor,
    size: &[i64],
    stride: &[i64],
    storage_offset: Option<i64>,
) -> Result<Tensor> {
    let out = ops::as_strided(a, size, stride, storage_offset)?;
    if should_record(&[a]) {
        use super::copy_slices::StorageGeometry;
        let geometry = Box::new([StorageGeometry::of(a), StorageGeometry::of(&out)]);
        record(&out, &[a], NodeKind::AsStridedOp { geometry });
    }
    Ok(out)
}

pub fn reshape(a: &Tensor, shape: &[i64]) -> Result<Tensor> {
    let out = ops::reshape(a, shape)?;
    if out.same_tensor(a) {
        return Ok(out);
    }
    let name = if out.base().is_some() {
        "ViewBackward0"
    } else {
        "UnsafeViewBackward0"
    };
    Ok(reshape_like(a, out, name))
}

pub fn flatten(a: &Tensor, start_dim: i64, end_dim: i64) -> Result<Tensor> {
    let out = ops::flatten(a, start_dim, end_dim)?;
    if out.same_tensor(a) {
        return Ok(out);
    }
    Ok(reshape_like(a, out, "ViewBackward0"))
}

pub fn unsqueeze(a: &Tensor, dim: i64) -> Result<Tensor> {
    let out = ops::unsqueeze(a, dim)?;
    if should_record(&[a]) {
        let d = crate::core::tensor::maybe_wrap_dim(dim, a.dim() + 1)? as i64;
        record(&out, &[a], NodeKind::Unsqueeze { dim: d });
    }
    Ok(out)
}

fn transpose_like(a: &Tensor, out: Tensor, name: &'static str, dim0: i64, dim1: i64) -> Tensor {
    if should_record(&[a]) {
        record(
            &out,
            &[a],
            NodeKind::from(Manual::Transpose { name, dim0, dim1 }),
        );
    }
    out
}

pub fn t(a: &Tensor) -> Result<Tensor> {
    let out = ops::t(a)?;
    if a.dim() < 2 {
        return Ok(reshape_like(a, out, "TBackward0"));
    }
    Ok(transpose_like(a, out, "TBackward0", 0, 1))
}

fn identity_like(a: &Tensor, out: Tensor, name: &'static str) -> Tensor {
    if out.same_tensor(a) {
        return out;
    }
    if should_record(&[a]) {
        record(&out, &[a], NodeKind::Identity { name });
    }
    out
}

pub fn clone(a: &Tensor) -> Result<Tensor> {
    Ok(identity_like(a, ops::clone(a)?, "CloneBackward0"))
}

pub fn contiguous(a: &Tensor) -> Result<Tensor> {
    Ok(identity_like(a, ops::contiguous(a)?, "CloneBackward0"))
}

pub fn to(a: &Tensor, dtype: DType, non_blocking: bool, copy: bool) -> Result<Tensor> {
    Ok(identity_like(
        a,
        ops::to(a, dtype, non_blocking, copy)?,
        "ToCopyBackward0",
    ))
}

/// `Tensor.to(device, dtype)` (every tensor is on the CPU): recorded as `to(dtype)`.
pub fn to_device(
    a: &Tensor,
    dtype: Option<DType>,
    non_blocking: bool,
    copy: bool,
) -> Result<Tensor> {
    Ok(identity_like(
        a,
        ops::to_device(a, dtype, non_blocking, copy)?,
        "ToCopyBackward0",
    ))
}

/// `Tensor.to(other)`: recorded as `to(other.dtype)`; `other` gets no gradient.
pub fn to_other(a: &Tensor, other: &Tensor, non_blocking: bool, copy: bool) -> Result<Tensor> {
    Ok(identity_like(
        a,
        ops::to_other(a, other, non_blocking, copy)?,
        "ToCopyBackward0",
    ))
}

/// `normal(mean: Tensor, std: float)`: a sample; `mean` gets a zero gradient (torch's
/// `NormalBackward1`).
pub fn normal_tensor_float(
    mean: &Tensor,
    std: f64,
    generator: Option<&std::sync::Mutex<crate::core::random::Generator>>,
) -> Result<Tensor> {
    let out = ops::normal_tensor_float(mean, std, generator)?;
    if should_record(&[mean]) {
        record(
            &out,
            &[mean],
            NodeKind::Zero {
                name: "NormalBackward1",
            },
        );
    }
    Ok(out)
}

/// `normal(mean: float, std: Tensor)`: a sample; `std` gets a zero gradient (torch's
/// `NormalBackward2`).
pub fn normal_float_tensor(
    mean: f64,
    std: &Tensor,
    generator: Option<&std::sync::Mutex<crate::core::random::Generator>>,
) -> Result<Tensor> {
    let out = ops::normal_float_tensor(mean, std, generator)?;
    if should_record(&[std]) {
        record(
            &out,
            &[std],
            NodeKind::Zero {
                name: "NormalBackward2",
            },
        );
    }
    Ok(out)
}

pub fn float(a: &Tensor) -> Result<Tensor> {
    Ok(identity_like(a, ops::float(a)?, "ToCopyBackward0"))
}

pub fn double(a: &Tensor) -> Result<Tensor> {
    Ok(identity_like(a, ops::double(a)?, "ToCopyBackward0"))
}

/// `select` (inline, Note [Recording wrapper split] in build/gen_autograd.rs).
#[inline(always)]
pub fn select(a: &Tensor, dim: i64, index: i64) -> Result<Tensor> {
    let out = ops::select(a, dim, index)?;
    if should_record(&[a]) {
        record_select(&out, a, dim, index);
    }
    Ok(out)
}

/// Records `SelectBackward0` for `select` and `t[i]`.
#[inline(never)]
fn record_select(out: &Tensor, a: &Tensor, dim: i64, index: i64) {
    let kind = NodeKind::from(Manual::Select {
        self_sizes: sizes_of(a),
        dim,
        index,
    });
    record(out, &[a], kind);
}

pub fn cat(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
    let out = ops::cat(tensors, dim)?;
    let refs: Vec<&Tensor> = tensors.iter().collect();
    if should_record(&refs) {
        let d = crate::core::tensor::maybe_wrap_dim(dim, out.dim())?;
        let sizes = tensors
            .iter()
            .map(|t| {
                if t.dim() == 1 && t.numel() == 0 {
                    0
                } else {
                    t.sizes()[d]
                }
            })
            .collect();
        record(&out, &refs, NodeKind::from(Manual::Cat { dim, sizes }));
    }
    Ok(out)
}

pub fn stack(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
    let out = ops::stack(tensors, dim)?;
    let refs: Vec<&Tensor> = tensors.iter().collect();
    if should_record(&refs) {
        let kind = NodeKind::Stack {
            dim,
            n: tensors.len(),
        };
        record(&out, &refs, kind);
    }
    Ok(out)
}

// ---- indexing -----------------------------------------------------------------------------

/// `t[items]` (the bindings' `__getitem__`).
pub fn index(a: &Tensor, items: &[Item]) -> Result<Tensor> {
    let out = ops::indexing::index(a, items)?;
    if should_record(&[a]) {
        let kind = NodeKind::from(Manual::Index {
            name: index_node_name(items),
            self_sizes: sizes_of(a),
            self_dtype: a.dtype(),
            items: items.into(),
        });
        record(&out, &[a], kind);
    }
    Ok(out)
}

/// torch's node name for `t[items]`: the last op its indexing applies (`t[:, 1]` is a select,
/// `t[1:]` a slice, anything with an index tensor or mask an index).
fn index_node_name(items: &[Item]) -> &'static str {
    if items
        .iter()
        .any(|i| matches!(i, Item::Tensor(_) | Item::Bool(_)))
    {
        return "IndexBackward0";
    }
    let full = |i: &Item| {
        matches!(
            i,
            Item::Slice(None, None, None) | Item::Slice(None, None, Some(1)) | Item::Ellipsis
        )
    };
    match items.iter().rev().find(|i| !full(i)) {
        Some(Item::Int(_)) => "SelectBackward0",
        Some(Item::NewAxis) => "UnsqueezeBackward0",
        Some(Item::Slice(..)) => "SliceBackward0",
        _ => "AliasBackward0",
    }
}

/// `t[i]` for an int `i` (the bindings' fast path).
#[inline(always)]
pub fn index_int(a: &Tensor, i: i64) -> Result<Tensor> {
    let out = ops::indexing::index_int(a, i)?;
    if should_record(&[a]) {
        record_select(&out, a, 0, i);
    }
    Ok(out)
}

/// The backward of `t[items]`: `z[items] += g` into `z`, a fresh tensor without history
/// (zeros of the input's shape), returned. When `g` requires grad (`create_graph`), `z` gets
/// torch's `IndexPutBackward0` with `accumulate=True` (edge 0, `z`'s, is empty): `g`'s gradient
/// is indexing again, `grad[items]`, itself recorded, so every order is differentiable.
pub fn index_put_accumulate(z: &Tensor, items: &[Item], g: &Tensor) -> Result<Tensor> {
    if !should_record(&[g]) {
        ops::indexing::index_put_accumulate(z, items, g)?;
        return Ok(z.clone());
    }
    let value_dim = g.dim();
    // The edges are collected before the write (z has none: it requires no grad).
    let edges = collect_edges(&[z, g]);
    ops::indexing::index_put_accumulate(z, items, g)?;
    if z.dtype().is_floating_point() {
        let node = Node::new(
            NodeKind::from(Manual::IndexPut {
                name: "IndexPutBackward0",
                items: items.into(),
                value_dim,
                accumulate: true,
            }),
            edges,
            &[z],
        );
        z.set_grad_fn(node, 0);
    }
    Ok(z.clone())
}

// ---- in-place -----------------------------------------------------------------------------

/// torch's text for an in-place write under grad mode into a view made under no_grad.
const NO_GRAD_VIEW: &str = "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and the inplace either both inside the no_grad block (if you don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked).";

/// A view made under no_grad of a tensor that requires grad (torch's
/// `CreationMeta::NO_GRAD_MODE`): a view whose base requires grad while the view itself does
/// not, which only a view made with grad mode off can be (one made under grad mode has the
/// view op's history; `detach()` and `.data` are not views). Checked by the in-place paths
/// only under grad mode, where torch refuses the write.
#[inline]
pub(crate) fn check_no_grad_view(this: &Tensor) -> Result<()> {
    if !this.requires_grad() && this.base().is_some_and(|b| b.requires_grad()) {
        return Err(Error::runtime(NO_GRAD_VIEW));
    }
    Ok(())
}

/// torch's `check_inplace`: the leaf errors, the view made under no_grad, and the pending
/// CopySlices case.
pub(crate) fn check_inplace(this: &Tensor) -> Result<()> {
    this.check_inference_write()?;
    check_no_grad_view(this)?;
    if this.is_leaf_requiring_grad() {
        return Err(Error::runtime(
            "a leaf Variable that requires grad is being used in an in-place operation.",
        ));
    }
    if this.base().is_some_and(|b| b.is_leaf_requiring_grad()) || view_of_leaf(this) {
        return Err(Error::runtime(
            "a view of a leaf Variable that requires grad is being used in an in-place operation.",
        ));
    }
    Ok(())
}

/// True when `this` is a view whose history is a chain of view nodes ending at the
/// `AccumulateGrad` of a leaf that requires grad: a view of a leaf that is itself a view (of a
/// root that does not require grad), which `base()` (the root) does not reveal.
fn view_of_leaf(this: &Tensor) -> bool {
    const VIEW_NODES: &[&str] = &[
        "AliasBackward0",
        "AsStridedBackward0",
        "ExpandBackward0",
        "MovedimBackward0",
        "NarrowBackward0",
        "PermuteBackward0",
        "SelectBackward0",
        "SliceBackward0",
        "SqueezeBackward0",
        "SqueezeBackward1",
        "SqueezeBackward2",
        "TBackward0",
        "TransposeBackward0",
        "UnsqueezeBackward0",
        "ViewBackward0",
    ];
    if this.base().is_none() {
        return false;
    }
    let mut node = this.grad_fn();
    // A view chain longer than this is not one a program builds; give up (no error).
    for _ in 0..64 {
        match node {
            Some(n) if n.is_accumulate_grad() => return true,
            Some(n) if VIEW_NODES.contains(&n.name()) => {
                node = n
                    .next_edges()
                    .first()
                    .and_then(|e| e.as_ref())
                    .map(|e| e.node.clone());
            }
            _ => return false,
        }
    }
    false
}

/// An in-place op `name` on `this` with tensor arguments `others` (Note [In-place ops and
/// history]): `raw` is the bare kernel into `this`; `functional` the recording out-of-place
/// form computed from a given `self`.
pub fn inplace(
    name: &str,
    this: &Tensor,
    others: &[&Tensor],
    raw: impl FnOnce(&Tensor) -> Result<()>,
    functional: impl FnOnce(&Tensor) -> Result<Tensor>,
) -> Result<()> {
    this.check_inference_write()?;
    if !(this.requires_grad() || others.iter().any(|t| t.requires_grad())) {
        if this.base().is_some() && super::is_grad_enabled() {
            check_no_grad_view(this)?;
        }
        return raw(this);
    }
    if !super::is_grad_enabled() {
        return raw(this);
    }
    check_inplace(this)?;
    // The formula reads the original `self`: compute from a copy of it that carries `this`'s
    // own gradient edge (no `CloneBackward0` node: the new node's edge goes to `this`'s old
    // history, as torch's rebase_history), saved by the node instead of `this`, which the
    // write below changes. Also when only an argument requires grad: its formula may read
    // `self` (`a.mul_(w)` saves `a` for `w`'s gradient).
    let src = if !NO_SELF_CLONE.contains(&name) {
        let copy = ops::clone(this)?;
        if let Some(e) = this.gradient_edge() {
            copy.set_grad_fn(e.node, e.input_nr);
        }
        copy
    } else {
        this.clone()
    };
    let r = functional(&src)?;
    if r.sizes() != this.sizes() || !crate::core::promote::can_cast(r.dtype(), this.dtype()) {
        // Let the kernel raise torch's error (shape, cast) before anything is written.
        return raw(this);
    }
    this.copy_from(&r)?;
    this.bump_version();
    rebase_history(this, &r)
}

/// Give `this` the history of `r` (an in-place op's result computed out of place); for a view,
/// its base's history too (Note [CopySlices]).
fn rebase_history(this: &Tensor, r: &Tensor) -> Result<()> {
    match r.grad_fn() {
        Some(node) if this.dtype().is_floating_point() => {
            this.set_grad_fn(node.clone(), r.output_nr());
            super::copy_slices::finish_inplace(this, Some(node))
        }
        _ => {
            if this.base().is_none() {
                this.detach_in_place();
            }
            Ok(())
        }
    }
}

/// `fill_` (value tensor): gradient zero for self.
pub fn fill_(this: &Tensor, value: &Tensor) -> Result<()> {
    if !should_record(&[this, value]) {
        if this.base().is_some() && super::is_grad_enabled() {
            check_no_grad_view(this)?;
        }
        return ops::fill_(this, value);
    }
    check_inplace(this)?;
    ops::fill_(this, value)?;
    // A value that requires grad: torch's `FillBackward3` (`self: zeros_like(grad)`, `value:
    // grad.sum()`); the edges are collected from `this`'s old history first.
    let node = if value.requires_grad() {
        record(this, &[this, value], NodeKind::FillValue)
    } else {
        record(
            this,
            &[this],
            NodeKind::Zero {
                name: "FillBackward0",
            },
        )
    };
    super::copy_slices::finish_inplace(this, node)
}

/// `zero_`: gradient zero for self.
pub fn zero_(this: &Tensor) -> Result<()> {
    if !should_record(&[this]) {
        if this.base().is_some() && super::is_grad_enabled() {
            check_no_grad_view(this)?;
        }
        return ops::zero_(this);
    }
    check_inplace(this)?;
    ops::zero_(this)?;
    let node = record(
        this,
        &[this],
        NodeKind::Zero {
            name: "ZeroBackward0",
        },
    );
    super::copy_slices::finish_inplace(this, node)
}

/// `copy_(src)`: gradient zero for self's old value, `g` (reduced and cast) for `src`.
pub fn copy_(this: &Tensor, src: &Tensor, non_blocking: bool) -> Result<()> {
    if !should_record(&[this, src]) {
        if this.base().is_some() && super::is_grad_enabled() {
            check_no_grad_view(this)?;
        }
        return ops::copy_(this, src, non_blocking);
    }
    check_inplace(this)?;
    ops::copy_(this, src, non_blocking)?;
    // The edges are collected from `this`'s old history before the new node replaces it.
    match record(this, &[this, src], NodeKind::Copy) {
        None if this.base().is_none() => {
            this.detach_in_place();
            Ok(())
        }
        node => super::copy_slices::finish_inplace(this, node),
    }
}
