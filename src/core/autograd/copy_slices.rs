//! src/core/autograd/copy_slices.rs: in-place writes into views of tensors in a graph (PyTorch:
//! `CopySlices` in torch/csrc/autograd/functions/tensor.cpp, and the view's regenerated
//! `AsStridedBackward0` of `VariableHooks::grad_fn`), and the `IndexPutBackward0` formula of
//! `t[key] = value` with advanced indices.

// Note [CopySlices]
// ~~~~~~~~~~~~~~~~~
// `v.op_(args)` where `v` is a view of `b` (its root, `Tensor::base`) changes `b`'s values, so
// `b`'s history must change too (torch's rules):
// - the op is recorded as usual, out of place, as a node `F` whose edge 0 is `v`'s history
//   (vt::inplace / the in-place wrappers); then `finish_inplace` makes `b`'s new history a
//   `CopySlices` node over `b`'s old history and `F`'s other edges, remembering `v`'s geometry
//   relative to `b`, and `v`'s new history an `AsStridedBackward0` into that node;
// - `CopySlices` backward, given `b`'s gradient `g`: `result = g.clone()`; the slice of
//   `result` under `v`'s geometry is replaced by `F`'s gradient for its self (0 when `F` gives
//   none: the old values were overwritten); `F`'s other gradients go to `F`'s other edges.
//   `F`'s own edge 0 (the view's old history) is never followed;
// - other views of `b` whose history predates the write are stale: each tensor with a base
//   remembers the version at which its `grad_fn` was set (`MetaInner::view_version`), and a
//   view whose counter moved since gets a fresh `AsStridedBackward0` into `b`'s current history
//   when its history is next read (`grad_fn`, `gradient_edge`), as torch regenerates it.
// With `create_graph` (the incoming gradient requires grad) `CopySlices`, the view's
// `AsStridedBackward0` and `IndexPutBackward0` write their result in recorded ops (the view's
// positions as an index tensor over the flattened base: recorded indexing and an accumulating
// `index_put`), so double backward goes through them.
// Limits (errors, never a wrong gradient): a base that is not contiguous, and `create_graph`
// through `as_strided`'s own node (bare kernels) raise NotImplementedError.

use super::formulas::Manual;
use super::node::{Edge, Node};
use super::variable_type as vt;
use super::NodeKind;
use crate::core::error::{Error, Result};
use crate::core::ops;
use crate::core::ops::indexing::IndexItem;
use crate::core::scalar::Scalar;
use crate::core::tensor::Tensor;
use std::sync::Arc;

/// A view's geometry relative to its contiguous base (element strides, element offset).
#[derive(Clone)]
pub struct ViewGeometry {
    pub base_sizes: Box<[usize]>,
    pub sizes: Box<[usize]>,
    pub strides: Box<[isize]>,
    pub offset: usize,
}

impl ViewGeometry {
    /// The geometry of `view` inside `base`; None when `base` is not contiguous (the
    /// geometry would not carry over to a fresh gradient buffer) or `view` starts before it.
    fn of(view: &Tensor, base: &Tensor) -> Option<ViewGeometry> {
        if !base.is_contiguous() || view.storage_offset() < base.storage_offset() {
            return None;
        }
        Some(ViewGeometry {
            base_sizes: base.sizes().into(),
            sizes: view.sizes().into(),
            strides: view.strides().into(),
            offset: view.storage_offset() - base.storage_offset(),
        })
    }

    /// The slice of `buffer` (a fresh contiguous tensor of the base's shape) this view covers.
    fn slice_of(&self, buffer: &Tensor) -> Tensor {
        buffer.as_strided(&self.sizes, &self.strides, self.offset)
    }
}

fn unsupported(what: &str) -> Error {
    Error::not_implemented(format!(
        "{what} is not supported yet by tensorbind (torch's CopySlices); compute the result out of place instead"
    ))
}

/// After an in-place op on `this` recorded as node `f` (already `this`'s `grad_fn`): when
/// `this` is a view, move the history to its base (Note [CopySlices]). A no-op for non-views.
pub(crate) fn finish_inplace(this: &Tensor, f: Option<Arc<Node>>) -> Result<()> {
    let (Some(base), Some(f)) = (this.base(), f) else {
        return Ok(());
    };
    let Some(geometry) = ViewGeometry::of(this, base) else {
        return Err(unsupported(
            "an in-place write into a view of a non-contiguous tensor in an autograd graph",
        ));
    };
    let mut edges: Vec<Option<Edge>> = Vec::with_capacity(f.next_edges().len().max(1));
    edges.push(base.gradient_edge().map(|e| Edge {
        node: e.node,
        input_nr: e.input_nr,
    }));
    edges.extend(f.next_edges().iter().skip(1).cloned());
    let view_geometry = geometry.clone();
    let cs = Node::new(
        NodeKind::from(Manual::CopySlices { geometry, f }),
        edges,
        &[base],
    );
    base.set_grad_fn(cs.clone(), 0);
    let as_strided = Node::new(
        NodeKind::from(Manual::AsStrided {
            geometry: view_geometry,
        }),
        vec![Some(Edge {
            node: cs,
            input_nr: 0,
        })],
        &[this],
    );
    this.set_grad_fn(as_strided, 0);
    Ok(())
}

/// A fresh `AsStridedBackward0` history for `view`, stale since its base was written in place
/// (Note [CopySlices]); None when the base has no history to point to or the geometry does
/// not carry over (the old history is kept).
pub(crate) fn regenerated_view_node(view: &Tensor, base: &Tensor) -> Option<Arc<Node>> {
    let edge = base.gradient_edge()?;
    let geometry = ViewGeometry::of(view, base)?;
    Some(Node::new(
        NodeKind::from(Manual::AsStrided { geometry }),
        vec![Some(Edge {
            node: edge.node,
            input_nr: edge.input_nr,
        })],
        &[view],
    ))
}

/// Refuses `create_graph` through the nodes of this file (their backward uses bare kernels).
fn check_no_create_graph(g: &Tensor, name: &str) -> Result<()> {
    if g.requires_grad() && super::is_grad_enabled() {
        return Err(vt::not_implemented(&format!("{name} (double backward)")));
    }
    Ok(())
}

/// `CopySlices` backward (Note [CopySlices]); the result has one gradient per edge.
pub(crate) fn copy_slices_apply(
    geometry: &ViewGeometry,
    f: &Arc<Node>,
    node: &Arc<Node>,
    grads: &[Option<Tensor>],
) -> Result<Vec<Option<Tensor>>> {
    let n_out = node.next_edges().len();
    let Some(g) = grads.first().and_then(|g| g.as_ref()) else {
        return Ok(vec![None; n_out]);
    };
    if g.requires_grad() && super::is_grad_enabled() {
        return copy_slices_apply_recorded(geometry, f, g, n_out);
    }
    let result = g.clone_data()?;
    let slice = geometry.slice_of(&result);
    let slice_grad = slice.clone_data()?;
    // Unpack hooks run without the lock (Note [Unpack hooks run outside the node lock]).
    let res = super::hooks::apply_unpacking_first(f.lock_kind(), f, &[Some(slice_grad)])?;
    match res.first().and_then(|r| r.as_ref()) {
        Some(r0) => slice.copy_from(r0)?,
        None => slice.fill_(Scalar::Int(0))?,
    }
    let mut out = Vec::with_capacity(n_out);
    out.push(Some(result));
    out.extend(res.into_iter().skip(1));
    out.resize(n_out, None);
    Ok(out)
}

/// The element positions of a view in its (contiguous) base, as an index tensor over the
/// flattened base (the view's elements in row-major order).
fn view_positions(geometry: &ViewGeometry) -> Result<IndexItem> {
    let geo = StorageGeometry {
        sizes: geometry.sizes.clone(),
        strides: geometry.strides.clone(),
        offset: geometry.offset,
    };
    let pos = geo.positions();
    let n = pos.len();
    Ok(IndexItem::Tensor(Tensor::from_vec(pos, &[n])?))
}

/// `v` (of the view's shape, or broadcast to it) placed into zeros of the base's shape at the
/// view's positions, in recorded ops (an accumulating `index_put` into the flattened zeros: a
/// view written in place does not repeat an element, so nothing adds up).
fn place_into_base(geometry: &ViewGeometry, v: &Tensor) -> Result<Tensor> {
    let view_sizes: Vec<i64> = geometry.sizes.iter().map(|&s| s as i64).collect();
    let base_sizes: Vec<i64> = geometry.base_sizes.iter().map(|&s| s as i64).collect();
    let numel: i64 = base_sizes.iter().product();
    let v = if v.sizes() != &geometry.sizes[..] {
        vt::expand(v, &view_sizes)?
    } else {
        v.clone()
    };
    let z = ops::zeros(&[numel], Some(v.dtype()))?;
    let placed =
        vt::index_put_accumulate(&z, &[view_positions(geometry)?], &vt::reshape(&v, &[-1])?)?;
    vt::reshape(&placed, &base_sizes)
}

/// `copy_slices_apply` under `create_graph` (`g` requires grad): the same result in recorded
/// ops — the view's slice of `g` read by recorded indexing, `F` applied to it (recording in
/// turn), and the base's gradient `g` times a constant mask zero under the view plus `F`'s
/// self gradient placed under the view.
fn copy_slices_apply_recorded(
    geometry: &ViewGeometry,
    f: &Arc<Node>,
    g: &Tensor,
    n_out: usize,
) -> Result<Vec<Option<Tensor>>> {
    let view_sizes: Vec<i64> = geometry.sizes.iter().map(|&s| s as i64).collect();
    let flat = vt::reshape(g, &[-1])?;
    let slice_grad = vt::reshape(
        &vt::index(&flat, &[view_positions(geometry)?])?,
        &view_sizes,
    )?;
    // Unpack hooks run without the lock (Note [Unpack hooks run outside the node lock]).
    let res = super::hooks::apply_unpacking_first(f.lock_kind(), f, &[Some(slice_grad)])?;
    let base_sizes: Vec<i64> = geometry.base_sizes.iter().map(|&s| s as i64).collect();
    let keep = ops::ones(&base_sizes, Some(g.dtype()))?;
    geometry.slice_of(&keep).fill_(Scalar::Int(0))?;
    let mut result = vt::mul(g, &keep)?;
    if let Some(r0) = res.first().and_then(|r| r.as_ref()) {
        result = vt::add(&result, &place_into_base(geometry, r0)?, Scalar::Int(1))?;
    }
    let mut out = Vec::with_capacity(n_out);
    out.push(Some(result));
    out.extend(res.into_iter().skip(1));
    out.resize(n_out, None);
    Ok(out)
}

/// `AsStridedBackward0` of a view whose base was written in place: the view's gradient placed
/// into zeros of the base's shape.
pub(crate) fn as_strided_apply(
    geometry: &ViewGeometry,
    grads: &[Option<Tensor>],
) -> Result<Vec<Option<Tensor>>> {
    let Some(g) = grads.first().and_then(|g| g.as_ref()) else {
        return Ok(vec![None]);
    };
    if g.requires_grad() && super::is_grad_enabled() {
        return Ok(vec![Some(place_into_base(geometry, g)?)]);
    }
    let sizes: Vec<i64> = geometry.base_sizes.iter().map(|&s| s as i64).collect();
    let result = ops::zeros(&sizes, Some(g.dtype()))?;
    geometry.slice_of(&result).copy_from(g)?;
    Ok(vec![Some(result)])
}

/// Where a tensor's elements sit in its storage: sizes, element strides and storage offset (the
/// `TensorGeometry` torch's `as_strided_backward` saves).
#[derive(Clone)]
pub struct StorageGeometry {
    pub sizes: Box<[usize]>,
    pub strides: Box<[isize]>,
    pub offset: usize,
}

impl StorageGeometry {
    pub fn of(t: &Tensor) -> StorageGeometry {
        StorageGeometry {
            sizes: t.sizes().into(),
            strides: t.strides().into(),
            offset: t.storage_offset(),
        }
    }

    /// The storage position of every element, in row-major order of the sizes.
    fn positions(&self) -> Vec<i64> {
        let n: usize = self.sizes.iter().product();
        let mut out = Vec::with_capacity(n);
        if n == 0 {
            return out;
        }
        let mut idx = vec![0usize; self.sizes.len()];
        let mut pos = self.offset as isize;
        for _ in 0..n {
            out.push(pos as i64);
            // Advance the multi-index (last dim fastest).
            for d in (0..idx.len()).rev() {
                idx[d] += 1;
                pos += self.strides[d];
                if idx[d] < self.sizes[d] {
                    break;
                }
                pos -= self.strides[d] * self.sizes[d] as isize;
                idx[d] = 0;
            }
        }
        out
    }
}

/// `AsStridedBackward0` of `as_strided(self, size, stride, storage_offset)` (torch's
/// `as_strided_backward`): the result's gradient summed into a zero buffer standing for the
/// storage at the result's positions (elements the result repeats add up), then read back at
/// the input's positions; where the input itself repeats a storage element, the element's
/// gradient is shared out evenly among its repeats, as torch's. Bare kernels: no double
/// backward (refused).
pub(crate) fn as_strided_op_apply(
    input: &StorageGeometry,
    output: &StorageGeometry,
    grads: &[Option<Tensor>],
) -> Result<Vec<Option<Tensor>>> {
    let Some(g) = grads.first().and_then(|g| g.as_ref()) else {
        return Ok(vec![None]);
    };
    check_no_create_graph(g, "AsStridedBackward0")?;
    let (ip, op) = (input.positions(), output.positions());
    let len = ip.iter().chain(op.iter()).max().map_or(0, |&m| m + 1);
    let buffer = ops::zeros(&[len], Some(g.dtype()))?;
    let op_t = Tensor::from_vec(op, &[output.sizes.iter().product()])?;
    let flat_g = ops::reshape(&g.clone_data()?, &[-1])?;
    ops::indexing::index_put_accumulate(&buffer, &[IndexItem::Tensor(op_t)], &flat_g)?;
    let n_in = ip.len();
    let mut sorted = ip.clone();
    sorted.sort_unstable();
    let repeats = sorted.windows(2).any(|w| w[0] == w[1]);
    let ip_t = Tensor::from_vec(ip, &[n_in])?;
    let mut gi = ops::indexing::index(&buffer, &[IndexItem::Tensor(ip_t.clone())])?;
    if repeats {
        let count = ops::zeros(&[len], Some(g.dtype()))?;
        let ones = ops::ones(&[n_in as i64], Some(g.dtype()))?;
        ops::indexing::index_put_accumulate(&count, &[IndexItem::Tensor(ip_t.clone())], &ones)?;
        let c = ops::indexing::index(&count, &[IndexItem::Tensor(ip_t)])?;
        gi = ops::div(&gi, &c, None)?;
    }
    let sizes: Vec<i64> = input.sizes.iter().map(|&s| s as i64).collect();
    Ok(vec![Some(ops::reshape(&gi, &sizes)?)])
}

/// `IndexPutBackward0` (`t[items] = value` with advanced indices, torch's `index_put_`): self's
/// gradient is `g` with the written elements zeroed (`g` itself when `accumulate`: the old
/// values are kept, added to), value's is `g[items]` (the engine sums it to value's shape;
/// leading dims value had beyond the indexed shape come back as size 1).
pub(crate) fn index_put_apply(
    items: &[IndexItem],
    value_dim: usize,
    accumulate: bool,
    node: &Arc<Node>,
    grads: &[Option<Tensor>],
) -> Result<Vec<Option<Tensor>>> {
    let Some(g) = grads.first().and_then(|g| g.as_ref()) else {
        return Ok(vec![None, None]);
    };
    let needs = |i: usize| node.next_edges().get(i).is_some_and(|e| e.is_some());
    if g.requires_grad() && super::is_grad_enabled() {
        return index_put_apply_recorded(items, value_dim, accumulate, g, needs(0), needs(1));
    }
    let grad_self = if needs(0) && accumulate {
        Some(g.clone())
    } else if needs(0) {
        let r = g.clone_data()?;
        let zero = Tensor::zeros(&[], g.dtype())?;
        ops::indexing::index_put(&r, items, &zero)?;
        Some(r)
    } else {
        None
    };
    let grad_value = if needs(1) {
        let gv = ops::indexing::index(g, items)?;
        if gv.dim() < value_dim {
            let mut shape = vec![1i64; value_dim - gv.dim()];
            shape.extend(gv.sizes().iter().map(|&s| s as i64));
            Some(ops::reshape(&gv, &shape)?)
        } else {
            Some(gv)
        }
    } else {
        None
    };
    Ok(vec![grad_self, grad_value])
}

/// `index_put_apply` under `create_graph` (`g` requires grad): the same gradients written in
/// recorded ops, so that they are differentiable in turn — self's is `g` times a constant
/// mask with zeros at the written elements, value's `g[items]` (recorded indexing).
fn index_put_apply_recorded(
    items: &[IndexItem],
    value_dim: usize,
    accumulate: bool,
    g: &Tensor,
    need_self: bool,
    need_value: bool,
) -> Result<Vec<Option<Tensor>>> {
    let grad_self = if need_self && accumulate {
        Some(g.clone())
    } else if need_self {
        let keep = ops::ones_like(g, None)?;
        let zero = Tensor::zeros(&[], g.dtype())?;
        ops::indexing::index_put(&keep, items, &zero)?;
        Some(vt::mul(g, &keep)?)
    } else {
        None
    };
    let grad_value = if need_value {
        let gv = vt::index(g, items)?;
        if gv.dim() < value_dim {
            let mut shape = vec![1i64; value_dim - gv.dim()];
            shape.extend(gv.sizes().iter().map(|&s| s as i64));
            Some(vt::reshape(&gv, &shape)?)
        } else {
            Some(gv)
        }
    } else {
        None
    };
    Ok(vec![grad_self, grad_value])
}

/// `t[items] = value` when autograd records it (`t` or `value` requires grad, grad mode on):
/// basic items copy into the view (an in-place op on a view: CopySlices on `t`'s base, or on
/// `t` itself); advanced items are torch's `index_put_` on `t`, recorded as
/// `IndexPutBackward0`. The value has `t`'s dtype or is a 0-dim tensor (the bindings convert
/// numbers). Errors: torch's leaf error; those of `index_put`.
pub fn setitem(t: &Tensor, items: &[IndexItem], value: &Tensor) -> Result<()> {
    let basic = !items
        .iter()
        .any(|i| matches!(i, IndexItem::Tensor(_) | IndexItem::Bool(_)));
    if basic && t.is_leaf_requiring_grad() {
        // The write goes through a view of `t` (torch's text says so).
        return Err(Error::runtime(
            "a view of a leaf Variable that requires grad is being used in an in-place operation.",
        ));
    }
    vt::check_inplace(t)?;
    if basic {
        let view = ops::indexing::index(t, items)?;
        if view.base().is_none() {
            // `index` of basic items is always a view; a failure here is a core bug.
            return Err(Error::runtime(
                "internal error: basic indexing did not return a view",
            ));
        }
        // torch's `slicePrefix1sSize`: leading size-1 dims of the value are dropped.
        let lead = value.sizes().iter().take_while(|&&s| s == 1).count();
        let value = if lead > 0 {
            let shape: Vec<i64> = value.sizes()[lead..].iter().map(|&s| s as i64).collect();
            vt::reshape(value, &shape)?
        } else {
            value.clone()
        };
        ops::copy_(&view, &value, false)?;
        if !t.dtype().is_floating_point() {
            return Ok(());
        }
        // Recorded even when neither the view (made by the bare `index`, no history) nor the
        // value requires grad: `t` does, and its base gets the CopySlices.
        let node = Node::new(
            NodeKind::Copy,
            vt::collect_edges(&[&view, &value]),
            &[&view],
        );
        view.set_grad_fn(node.clone(), 0);
        return finish_inplace(&view, Some(node));
    }
    let value_dim = value.dim();
    if !t.dtype().is_floating_point() {
        return ops::indexing::index_put(t, items, value);
    }
    // The edges are collected before the write: `t`'s history as it was.
    let edges = vt::collect_edges(&[t, value]);
    ops::indexing::index_put(t, items, value)?;
    // torch routes a one-element value with a single mask to `masked_fill_`.
    let single_mask = ops::indexing::is_single_mask(items);
    let name = match (single_mask && value.numel() == 1, value.requires_grad()) {
        (true, false) => "MaskedFillBackward0",
        (true, true) => "MaskedFillBackward1",
        _ => "IndexPutBackward0",
    };
    let node = Node::new(
        NodeKind::from(Manual::IndexPut {
            name,
            items: items.into(),
            value_dim,
            accumulate: false,
        }),
        edges,
        &[t],
    );
    t.set_grad_fn(node.clone(), 0);
    finish_inplace(t, Some(node))
}

/// `t.index_put_(indices, value, accumulate=True)` when autograd records it (as `setitem`
/// decides): the sum into `t`, recorded as torch's `IndexPutBackward0` with self's gradient
/// passed through. `value` must have `t`'s dtype (torch's error otherwise, from the kernel).
/// Errors: torch's leaf error; those of `index_put_tensors_`.
pub fn index_put_accumulate(t: &Tensor, indices: &[Tensor], value: &Tensor) -> Result<()> {
    vt::check_inplace(t)?;
    if !t.dtype().is_floating_point() {
        return ops::indexing::index_put_tensors_(t, indices, value, true);
    }
    let value_dim = value.dim();
    // The edges are collected before the write: `t`'s history as it was.
    let edges = vt::collect_edges(&[t, value]);
    ops::indexing::index_put_tensors_(t, indices, value, true)?;
    let items: Vec<IndexItem> = indices.iter().cloned().map(IndexItem::Tensor).collect();
    let node = Node::new(
        NodeKind::from(Manual::IndexPut {
            name: "IndexPutBackward0",
            items: items.into(),
            value_dim,
            accumulate: true,
        }),
        edges,
        &[t],
    );
    t.set_grad_fn(node.clone(), 0);
    finish_inplace(t, Some(node))
}

/// True when `t[key] = value` must go through `setitem` (something requires grad, grad mode on;
/// or `t` is a view of a tensor that requires grad, which `setitem` checks: a view made under
/// no_grad is refused).
#[inline]
pub fn setitem_records(t: &Tensor, value: Option<&Tensor>) -> bool {
    (t.requires_grad()
        || value.is_some_and(|v| v.requires_grad())
        || t.base().is_some_and(|b| b.requires_grad()))
        && super::is_grad_enabled()
}
