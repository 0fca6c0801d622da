//! src/core/autograd/formulas.rs: the node kinds — `NodeKind`, the formula of a node with the
//! values it saved inline, its torch class name, `_saved_*` table and `apply` (PyTorch: the
//! generated `Functions.h/.cpp` from derivatives.yaml). Most kinds are generated from the
//! `formula:` entries of `src/derivatives.yaml` (`NodeKind::Generated`, generated.rs); the
//! variants here are the hand-written ones: `AccumulateGrad`, and the `manual:` entries whose
//! shape the generator does not cover yet (several outputs, tensor lists, in-place forms, a
//! node name chosen at run time). The formulas are written over the *recording* wrappers
//! (`variable_type`), so that with `create_graph` they record a graph of their own (double
//! backward).
//!
//! The engine reduces every gradient a formula returns to the shape of the input it is for
//! (`sum_to`, for broadcast inputs) and casts it to the input's dtype (engine.rs), so a formula
//! returns the gradient in the broadcast shape.

use super::copy_slices::{self, ViewGeometry};
use super::formula_helpers::{need, sizes_i64, take_saved};
use super::generated::Generated;
use super::node::{Node, SavedTensor};
use super::variable_type as vt;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::ops::indexing::IndexItem;
use crate::core::scalar::Scalar;
use crate::core::tensor::Tensor;
use std::sync::Arc;

/// The formula of a `NodeKind::LinalgPair` node.
#[derive(Clone, Copy)]
pub enum LinalgPairOp {
    /// `linalg_cholesky_ex`: saves `L`; torch's `cholesky_backward(grad, upper, L)`.
    CholeskyEx { upper: bool },
    /// `linalg_inv_ex`: saves the inverse; `-inverse^T grad inverse^T`.
    InvEx,
    /// `linalg_slogdet` / `slogdet`: saves `A`; `grad_logabsdet * A^-T` (real dtypes: the
    /// sign is piecewise constant).
    Slogdet,
}

/// One node's formula and what it saved. Kept at three words (Note [Compact nodes] in
/// node.rs): a kind whose values take more than two words is boxed — generated kinds by the
/// generator, the hand-written ones as `Manual`.
pub enum NodeKind {
    /// A leaf's gradient sink.
    AccumulateGrad {
        variable: Tensor,
    },
    /// A node generated from a `formula:` entry of src/derivatives.yaml.
    Generated(Generated),
    /// A custom `autograd.Function`'s node: calls the bindings' opaque context (hooks.rs).
    PyFunction(Box<super::hooks::PyFunctionNode>),
    /// The nodes of the nn ops (issue 15), kept in src/core/autograd/nn_formulas.rs.
    Nn(Box<super::nn_formulas::NnNode>),
    /// The nodes of the multi-output linalg ops (issue 12/13), kept in
    /// src/core/autograd/linalg_formulas.rs.
    Linalg(Box<super::linalg_formulas::LinalgNode>),
    /// The hand-written kinds that keep more than two words.
    Manual(Box<Manual>),
    /// `as_strided(self, size, stride, storage_offset)`: the storage geometries of the input and
    /// of the result (copy_slices.rs `as_strided_op_apply`).
    AsStridedOp {
        geometry: Box<[copy_slices::StorageGeometry; 2]>,
    },
    // ---- hand-written formulas (`manual:` entries) ----
    /// A zero gradient for every input under a name chosen at run time (fill_, zero_, rounded
    /// div, the random in-place fills, `normal(Tensor, Tensor)`).
    Zero {
        name: &'static str,
    },
    /// `fill_(value)` with a value tensor that requires grad (torch's `FillBackward3`): zero for
    /// self's old value, `grad.sum()` for the value.
    FillValue,
    /// torch's `NotImplemented` node: the op records history (its results require grad, as
    /// torch's do) but backward through it raises torch's "derivative for aten::{op} is not
    /// implemented" (histogram, scatter with `reduce=`).
    NotImplemented {
        op: &'static str,
    },
    Unsqueeze {
        dim: i64,
    },
    /// clone, contiguous, to/float/double: the gradient passes (the engine casts it).
    Identity {
        name: &'static str,
    },
    Stack {
        dim: i64,
        n: usize,
    },
    /// frexp: the mantissa's gradient is `grad / 2^exponent` (the exponent is not
    /// differentiable).
    Frexp {
        exponent: SavedTensor,
    },
    /// `copy_(src)`: zero for self's old value, `g` for src.
    Copy,
    /// A released node (after `drop`).
    Released,
}

/// The hand-written kinds whose values take more than two words: boxed in
/// `NodeKind::Manual` (Note [Compact nodes]).
pub enum Manual {
    // ---- in-place writes into views and `t[key] = value` (copy_slices.rs) ----
    /// A base written in place through a view: the view's geometry and the node `f` of the op
    /// applied to the view (Note [CopySlices]).
    CopySlices {
        geometry: ViewGeometry,
        f: Arc<Node>,
    },
    /// A view whose base was written in place: its gradient placed into the base's shape.
    AsStrided {
        geometry: ViewGeometry,
    },
    /// A linalg op with two outputs of which one is differentiable (`cholesky_ex`, `inv_ex`:
    /// output 0; `slogdet`: `logabsdet`, recorded as this node's output 0), with the one tensor
    /// its formula reads.
    LinalgPair {
        op: LinalgPairOp,
        saved: SavedTensor,
    },
    /// `t[items] = value` with advanced indices (torch's `index_put_`).
    IndexPut {
        /// `IndexPutBackward0`, or torch's `MaskedFillBackward0/1` for a one-element value
        /// with a single mask.
        name: &'static str,
        items: Box<[IndexItem]>,
        value_dim: usize,
        /// `index_put_(..., accumulate=True)`: self's gradient is `g` unchanged.
        accumulate: bool,
    },
    // ---- hand-written formulas (`manual:` entries) ----
    Div {
        self_: SavedTensor,
        other: SavedTensor,
    },
    /// reshape, flatten, t of a vector: back to the input's shape.
    Reshape {
        name: &'static str,
        self_sizes: Box<[usize]>,
    },
    /// t of a matrix.
    Transpose {
        name: &'static str,
        dim0: i64,
        dim1: i64,
    },
    Cat {
        dim: i64,
        sizes: Box<[usize]>,
    },
    /// max.dim / min.dim / sort / topk / ...: the gradient goes to the returned index.
    MaxMinDim {
        name: &'static str,
        self_sizes: Box<[usize]>,
        dim: i64,
        keepdim: bool,
        indices: SavedTensor,
    },
    Select {
        self_sizes: Box<[usize]>,
        dim: i64,
        index: i64,
    },
    /// `t[items]`: an accumulating `index_put` into zeros of the input's shape.
    Index {
        name: &'static str,
        self_sizes: Box<[usize]>,
        self_dtype: DType,
        items: Box<[IndexItem]>,
    },
}

impl From<Manual> for NodeKind {
    fn from(m: Manual) -> NodeKind {
        NodeKind::Manual(Box::new(m))
    }
}

impl NodeKind {
    /// torch's class name of the node.
    pub fn name(&self) -> &'static str {
        use NodeKind::*;
        match self {
            AccumulateGrad { .. } => "AccumulateGrad",
            Generated(k) => k.name(),
            PyFunction(f) => f.name,
            Nn(nn) => nn.name(),
            Linalg(l) => l.name(),
            Manual(m) => m.name(),
            AsStridedOp { .. } => "AsStridedBackward0",
            Zero { name } => name,
            NotImplemented { .. } => "torch::autograd::NotImplemented",
            FillValue => "FillBackward3",
            Unsqueeze { .. } => "UnsqueezeBackward0",
            Identity { name } => name,
            Stack { .. } => "StackBackward0",
            Frexp { .. } => "FrexpBackward0",
            Copy => "CopyBackwards",
            Released => "Released",
        }
    }

    /// The opaque callback this node calls (a custom Function's context), if any.
    pub fn callback(&self) -> Option<&super::hooks::Callback> {
        match self {
            NodeKind::PyFunction(f) => Some(f.ctx.as_ref()),
            _ => None,
        }
    }

    /// The saved values by their torch attribute names (`_saved_self` is `("self", ..)`), for
    /// the bindings' `_saved_*` attributes.
    pub fn saved_tensors(&self) -> Vec<(&'static str, &SavedTensor)> {
        use NodeKind::*;
        match self {
            Generated(k) => k.saved_tensors(),
            Nn(nn) => nn.saved_tensors(),
            Linalg(l) => l.saved_tensors(),
            Manual(m) => m.saved_tensors(),
            Frexp { exponent } => vec![("exponent", exponent)],
            _ => Vec::new(),
        }
    }

    /// The saved numbers by their torch attribute names (`_saved_alpha`).
    pub fn saved_scalars(&self) -> Vec<(&'static str, Scalar)> {
        use NodeKind::*;
        match self {
            Generated(k) => k.saved_scalars(),
            Manual(m) => m.saved_scalars(),
            Stack { dim, .. } => vec![("dim", Scalar::Int(*dim))],
            Unsqueeze { dim } => vec![("dim", Scalar::Int(*dim))],
            _ => Vec::new(),
        }
    }

    /// Take out everything the formula saved (after backward without `retain_graph`); what
    /// is returned is dropped by the caller outside the lock.
    pub fn release(&mut self) -> Vec<SavedTensor> {
        if let NodeKind::Nn(nn) = self {
            return nn.release();
        }
        if let NodeKind::Linalg(l) = self {
            return l.release();
        }
        if let NodeKind::PyFunction(f) = self {
            return f.release();
        }
        let mut out = Vec::new();
        use NodeKind::*;
        match self {
            Generated(k) => k.release(&mut out),
            Manual(m) => m.release(&mut out),
            Frexp { exponent } => take_saved(exponent, &mut out),
            _ => {}
        }
        out
    }

    /// The gradients of the forward inputs (one per edge of `node`; `None` where the input
    /// needs none) from the gradients of the forward outputs `grads`.
    pub fn apply(&self, node: &Arc<Node>, grads: &[Option<Tensor>]) -> Result<Vec<Option<Tensor>>> {
        use NodeKind::*;
        let needs = |i: usize| node.next_edges().get(i).is_some_and(|e| e.is_some());
        let n = Some(node);
        let one = |f: &dyn Fn() -> Result<Tensor>, i: usize| -> Result<Option<Tensor>> {
            if needs(i) {
                f().map(Some)
            } else {
                Ok(None)
            }
        };
        match self {
            Generated(k) => return k.apply(node, grads),
            Nn(nn) => return nn.apply(node, grads),
            Linalg(l) => return l.apply(node, grads),
            Manual(m) => return m.apply(node, grads),
            AsStridedOp { geometry } => {
                return copy_slices::as_strided_op_apply(&geometry[0], &geometry[1], grads)
            }
            Frexp { exponent } => {
                // torch: `grad / exponent.exp2()`; only the mantissa is differentiable.
                let Some(g) = grads[0].as_ref() else {
                    return Ok(vec![None]);
                };
                let e = exponent.unpack(n)?.to_dtype(g.dtype())?;
                return Ok(vec![Some(vt::div(g, &crate::core::ops::exp2(&e)?, None)?)]);
            }
            _ => {}
        }
        let g = need(grads)?;
        Ok(match self {
            // The engine calls a custom Function's backward itself (engine.rs).
            AccumulateGrad { .. } | PyFunction(_) | Released => {
                return Err(Error::runtime("internal error: applying a sink node"))
            }
            Generated(_) | Frexp { .. } | Nn(_) | Linalg(_) | Manual(_) | AsStridedOp { .. } => {
                unreachable!("applied above")
            }
            Zero { .. } => (0..node.next_edges().len())
                .map(|i| one(&|| crate::core::ops::zeros_like(g, None), i))
                .collect::<Result<Vec<_>>>()?,
            FillValue => vec![
                one(&|| crate::core::ops::zeros_like(g, None), 0)?,
                one(&|| vt::sum_all(g, None), 1)?,
            ],
            NotImplemented { op } => {
                return Err(Error::runtime(format!(
                    "derivative for aten::{op} is not implemented"
                )))
            }
            Unsqueeze { dim } => vec![one(&|| vt::squeeze_dim(g, *dim), 0)?],
            Identity { .. } => vec![one(&|| Ok(g.clone()), 0)?],
            Stack { dim, n: count } => {
                let mut out = Vec::with_capacity(*count);
                for i in 0..*count {
                    out.push(one(&|| vt::select(g, *dim, i as i64), i)?);
                }
                out
            }
            Copy => vec![
                one(&|| crate::core::ops::zeros_like(g, None), 0)?,
                one(&|| Ok(g.clone()), 1)?,
            ],
        })
    }
}

impl Manual {
    /// torch's class name of the node.
    pub fn name(&self) -> &'static str {
        use Manual::*;
        match self {
            CopySlices { .. } => "torch::autograd::CopySlices",
            AsStrided { .. } => "AsStridedBackward0",
            LinalgPair { op, .. } => match op {
                LinalgPairOp::CholeskyEx { .. } => "LinalgCholeskyExBackward0",
                LinalgPairOp::InvEx => "LinalgInvExBackward0",
                LinalgPairOp::Slogdet => "LinalgSlogdetBackward0",
            },
            IndexPut { name, .. } => name,
            Div { .. } => "DivBackward0",
            Reshape { name, .. } => name,
            Transpose { name, .. } => name,
            Cat { .. } => "CatBackward0",
            MaxMinDim { name, .. } => name,
            Select { .. } => "SelectBackward0",
            Index { name, .. } => name,
        }
    }

    fn saved_tensors(&self) -> Vec<(&'static str, &SavedTensor)> {
        use Manual::*;
        match self {
            Div { self_, other } => vec![("self", self_), ("other", other)],
            MaxMinDim { indices, .. } => vec![("indices", indices)],
            LinalgPair { op, saved } => vec![(
                match op {
                    LinalgPairOp::CholeskyEx { .. } => "L",
                    LinalgPairOp::InvEx => "inverse",
                    LinalgPairOp::Slogdet => "A",
                },
                saved,
            )],
            _ => Vec::new(),
        }
    }

    fn saved_scalars(&self) -> Vec<(&'static str, Scalar)> {
        use Manual::*;
        match self {
            Cat { dim, .. } => vec![("dim", Scalar::Int(*dim))],
            Transpose { dim0, dim1, .. } => {
                vec![("dim0", Scalar::Int(*dim0)), ("dim1", Scalar::Int(*dim1))]
            }
            _ => Vec::new(),
        }
    }

    fn release(&mut self, out: &mut Vec<SavedTensor>) {
        use Manual::*;
        match self {
            // The op applied to the view saved its values in its own node.
            CopySlices { f, .. } => f.release_variables(),
            Div { self_, other } => {
                take_saved(self_, out);
                take_saved(other, out);
            }
            MaxMinDim { indices, .. } => take_saved(indices, out),
            LinalgPair { saved, .. } => take_saved(saved, out),
            _ => {}
        }
    }

    fn apply(&self, node: &Arc<Node>, grads: &[Option<Tensor>]) -> Result<Vec<Option<Tensor>>> {
        use Manual::*;
        let needs = |i: usize| node.next_edges().get(i).is_some_and(|e| e.is_some());
        let n = Some(node);
        let one = |f: &dyn Fn() -> Result<Tensor>, i: usize| -> Result<Option<Tensor>> {
            if needs(i) {
                f().map(Some)
            } else {
                Ok(None)
            }
        };
        match self {
            CopySlices { geometry, f } => {
                return copy_slices::copy_slices_apply(geometry, f, node, grads)
            }
            AsStrided { geometry } => return copy_slices::as_strided_apply(geometry, grads),
            LinalgPair { op, saved } => {
                let Some(g) = grads.first().and_then(|g| g.as_ref()) else {
                    return Ok(vec![None]);
                };
                let t = saved.unpack(n)?;
                let ga = match *op {
                    LinalgPairOp::CholeskyEx { upper } => {
                        super::formula_helpers::cholesky_backward(g, upper, &t)?
                    }
                    LinalgPairOp::InvEx => {
                        let it = vt::transpose(&t, -2, -1)?;
                        vt::neg(&vt::matmul(&it, &vt::matmul(g, &it)?)?)?
                    }
                    LinalgPairOp::Slogdet => {
                        let g2 = vt::unsqueeze(&vt::unsqueeze(g, -1)?, -1)?;
                        vt::mul(&g2, &vt::transpose(&vt::linalg_inv(&t)?, -2, -1)?)?
                    }
                };
                return Ok(vec![Some(ga)]);
            }
            IndexPut {
                items,
                value_dim,
                accumulate,
                ..
            } => return copy_slices::index_put_apply(items, *value_dim, *accumulate, node, grads),
            MaxMinDim {
                self_sizes,
                dim,
                keepdim,
                indices,
                ..
            } => {
                // Two outputs; only `values` is differentiable.
                let Some(g) = grads[0].as_ref() else {
                    return Ok(vec![None]);
                };
                let idx = indices.unpack(n)?;
                if matches!(node.name(), "CummaxBackward0" | "CumminBackward0") {
                    // torch's cumulative_max_min_backward: each gradient summed into the index
                    // its running extreme came from (`indices` has `self`'s shape).
                    if self_sizes.iter().product::<usize>() <= 1 {
                        return Ok(vec![Some(g.clone())]);
                    }
                    let z = crate::core::ops::zeros(&sizes_i64(self_sizes), Some(g.dtype()))?;
                    return Ok(vec![Some(vt::scatter_add(&z, *dim, &idx, g)?)]);
                }
                let (g, idx) = if *keepdim {
                    (g.clone(), idx)
                } else {
                    (
                        vt::unsqueeze(g, *dim)?,
                        crate::core::ops::unsqueeze(&idx, *dim)?,
                    )
                };
                let z = crate::core::ops::zeros(&sizes_i64(self_sizes), Some(g.dtype()))?;
                return Ok(vec![Some(vt::scatter_src(&z, *dim, &idx, &g)?)]);
            }
            _ => {}
        }
        let g = need(grads)?;
        Ok(match self {
            CopySlices { .. }
            | AsStrided { .. }
            | LinalgPair { .. }
            | IndexPut { .. }
            | MaxMinDim { .. } => unreachable!("applied above"),
            Div { self_, other } => vec![
                one(&|| vt::div(g, &other.unpack(n)?, None), 0)?,
                one(
                    &|| {
                        let (a, b) = (self_.unpack(n)?, other.unpack(n)?);
                        // -g * a / b^2
                        vt::neg(&vt::div(&vt::mul(g, &a)?, &vt::mul(&b, &b)?, None)?)
                    },
                    1,
                )?,
            ],
            Reshape { self_sizes, .. } => vec![one(&|| vt::reshape(g, &sizes_i64(self_sizes)), 0)?],
            Transpose { dim0, dim1, .. } => vec![one(&|| vt::transpose(g, *dim0, *dim1), 0)?],
            Cat { dim, sizes } => {
                let mut out = Vec::with_capacity(sizes.len());
                let mut start = 0i64;
                for (i, &s) in sizes.iter().enumerate() {
                    out.push(one(&|| vt::narrow(g, *dim, start, s as i64), i)?);
                    start += s as i64;
                }
                out
            }
            Select {
                self_sizes,
                dim,
                index,
            } => vec![one(
                &|| {
                    let z = crate::core::ops::zeros(&sizes_i64(self_sizes), Some(g.dtype()))?;
                    let i = if *index < 0 {
                        let d = crate::core::tensor::maybe_wrap_dim(*dim, self_sizes.len())?;
                        *index + self_sizes[d] as i64
                    } else {
                        *index
                    };
                    let idx = crate::core::ops::full(&[1], Scalar::Int(i), Some(DType::Int64))?;
                    vt::index_add(&z, *dim, &idx, &vt::unsqueeze(g, *dim)?, Scalar::Int(1))
                },
                0,
            )?],
            Index {
                self_sizes,
                self_dtype,
                items,
                ..
            } => vec![one(
                &|| {
                    let z = crate::core::ops::zeros(&sizes_i64(self_sizes), Some(*self_dtype))?;
                    vt::index_put_accumulate(&z, items, g)
                },
                0,
            )?],
        })
    }
}
