//! src/core/autograd/formulas.rs: the derivative formulas — one `NodeKind` variant per formula
//! with the values it saves inline, its torch class name, and its `apply` (PyTorch: the
//! generated `Functions.h/.cpp` from derivatives.yaml). The formulas are written over the
//! *recording* wrappers (`variable_type`), so that with `create_graph` they record a graph of
//! their own (double backward). Which schema op uses which formula is declared in
//! `src/derivatives.yaml`, checked by build.rs (build/gen_autograd.rs).
//!
//! The engine reduces every gradient a formula returns to the shape of the input it is for
//! (`sum_to`, for broadcast inputs) and casts it to the input's dtype (engine.rs), so a formula
//! returns the gradient in the broadcast shape.

use super::node::{Node, SavedTensor};
use super::variable_type as vt;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::ops::indexing::IndexItem;
use crate::core::scalar::Scalar;
use crate::core::tensor::Tensor;
use std::sync::Arc;

/// One formula and what it saved.
pub enum NodeKind {
    /// A leaf's gradient sink.
    AccumulateGrad {
        variable: Tensor,
    },
    // ---- hand-written, not generated (hooks helper, issue 12 session 2) ----------------------
    /// A custom `autograd.Function`'s node: calls the bindings' opaque context (hooks.rs).
    PyFunction(Box<super::hooks::PyFunctionNode>),
    // ---- end of the hand-written kinds -------------------------------------------------------
    Add {
        alpha: Scalar,
    },
    Sub {
        alpha: Scalar,
    },
    Mul {
        self_: SavedTensor,
        other: SavedTensor,
    },
    Div {
        self_: SavedTensor,
        other: SavedTensor,
    },
    Neg,
    Exp {
        result: SavedTensor,
    },
    Log {
        self_: SavedTensor,
    },
    Sqrt {
        result: SavedTensor,
    },
    Pow {
        self_: SavedTensor,
        exponent: SavedTensor,
        result: SavedTensor,
    },
    Tanh {
        result: SavedTensor,
    },
    Sigmoid {
        result: SavedTensor,
    },
    Relu {
        result: SavedTensor,
    },
    Abs {
        self_: SavedTensor,
    },
    Sin {
        self_: SavedTensor,
    },
    Cos {
        self_: SavedTensor,
    },
    Square {
        self_: SavedTensor,
    },
    /// floor, ceil, round, trunc, sign: zero gradient (torch records a node returning zeros).
    Zero {
        name: &'static str,
    },
    Sum {
        self_sizes: Box<[usize]>,
    },
    SumDim {
        self_sizes: Box<[usize]>,
        dims: Box<[bool]>,
        keepdim: bool,
    },
    Mean {
        self_sizes: Box<[usize]>,
        numel: usize,
    },
    MeanDim {
        self_sizes: Box<[usize]>,
        dims: Box<[bool]>,
        keepdim: bool,
        count: usize,
    },
    Mm {
        self_: SavedTensor,
        mat2: SavedTensor,
    },
    Matmul {
        self_: SavedTensor,
        other: SavedTensor,
    },
    Dot {
        self_: SavedTensor,
        other: SavedTensor,
    },
    /// view, reshape, flatten, unflatten, squeeze: back to the input's shape.
    Reshape {
        name: &'static str,
        self_sizes: Box<[usize]>,
    },
    Transpose {
        name: &'static str,
        dim0: i64,
        dim1: i64,
    },
    Permute {
        dims: Box<[i64]>,
    },
    Unsqueeze {
        dim: i64,
    },
    /// expand: the engine's `sum_to` does the work.
    Expand,
    /// clone, contiguous, to/float/double: the gradient passes (the engine casts it).
    Identity {
        name: &'static str,
    },
    Softmax {
        result: SavedTensor,
        dim: i64,
    },
    LogSoftmax {
        result: SavedTensor,
        dim: i64,
    },
    Cat {
        dim: i64,
        sizes: Box<[usize]>,
    },
    Stack {
        dim: i64,
        n: usize,
    },
    Where {
        condition: SavedTensor,
    },
    Clamp {
        self_: SavedTensor,
        min: Option<Scalar>,
        max: Option<Scalar>,
    },
    /// maximum / minimum (and max.other / min.other): `is_max` picks which.
    MaxMin {
        name: &'static str,
        self_: SavedTensor,
        other: SavedTensor,
        is_max: bool,
    },
    /// max.dim / min.dim: the gradient goes to the returned index.
    MaxMinDim {
        name: &'static str,
        self_sizes: Box<[usize]>,
        dim: i64,
        keepdim: bool,
        indices: SavedTensor,
    },
    /// max(), min(), amax, amin: the gradient is split evenly among the extremal elements.
    Extremum {
        name: &'static str,
        self_: SavedTensor,
        result: SavedTensor,
        dims: Option<Box<[i64]>>,
        keepdim: bool,
    },
    Gather {
        self_sizes: Box<[usize]>,
        dim: i64,
        index: SavedTensor,
    },
    IndexSelect {
        self_sizes: Box<[usize]>,
        dim: i64,
        index: SavedTensor,
    },
    MaskedFill {
        mask: SavedTensor,
    },
    Select {
        self_sizes: Box<[usize]>,
        dim: i64,
        index: i64,
    },
    Narrow {
        self_sizes: Box<[usize]>,
        dim: i64,
        start: i64,
        length: i64,
    },
    /// `t[items]`: an accumulating `index_put` into zeros of the input's shape.
    Index {
        name: &'static str,
        self_sizes: Box<[usize]>,
        self_dtype: DType,
        items: Box<[IndexItem]>,
    },
    /// `copy_(src)`: zero for self's old value, `g` for src.
    Copy,
    ScatterSrc {
        dim: i64,
        index: SavedTensor,
    },
    ScatterAdd {
        dim: i64,
        index: SavedTensor,
    },
    IndexAdd {
        dim: i64,
        index: SavedTensor,
        alpha: Scalar,
        source_dim: usize,
    },
    /// The elementwise functions of `UnaryOp` (saving self and result).
    Unary {
        op: UnaryOp,
        self_: SavedTensor,
        result: SavedTensor,
    },
    Atan2 {
        self_: SavedTensor,
        other: SavedTensor,
    },
    Hypot {
        self_: SavedTensor,
        other: SavedTensor,
        result: SavedTensor,
    },
    LerpScalar {
        weight: Scalar,
    },
    LerpTensor {
        self_: SavedTensor,
        end: SavedTensor,
        weight: SavedTensor,
    },
    Logsumexp {
        self_: SavedTensor,
        result: SavedTensor,
        dims: Box<[i64]>,
        keepdim: bool,
    },
    Cumsum {
        dim: i64,
    },
    /// var / std over `dims` (None: all) with `correction`.
    VarStd {
        name: &'static str,
        self_: SavedTensor,
        result: SavedTensor,
        dims: Option<Box<[i64]>>,
        correction: f64,
        keepdim: bool,
        is_std: bool,
    },
    /// norm with p = 2.
    Norm2 {
        self_: SavedTensor,
        result: SavedTensor,
        dims: Option<Box<[i64]>>,
        keepdim: bool,
    },
    Flip {
        dims: Box<[i64]>,
    },
    Roll {
        shifts: Box<[i64]>,
        dims: Box<[i64]>,
    },
    TrilTriu {
        name: &'static str,
        diagonal: i64,
        upper: bool,
    },
    Trace {
        self_sizes: Box<[usize]>,
    },
    Outer {
        self_: SavedTensor,
        vec2: SavedTensor,
    },
    Movedim {
        source: Box<[i64]>,
        destination: Box<[i64]>,
    },
    /// A released node (after `drop`).
    Released,
}

/// The elementwise functions with a formula over self and result.
#[derive(Clone, Copy, Debug)]
pub enum UnaryOp {
    Expm1,
    Log1p,
    Log2,
    Log10,
    Exp2,
    Rsqrt,
    Reciprocal,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Frac,
    NanToNum,
}

impl UnaryOp {
    fn name(self) -> &'static str {
        match self {
            UnaryOp::Expm1 => "Expm1Backward0",
            UnaryOp::Log1p => "Log1PBackward0",
            UnaryOp::Log2 => "Log2Backward0",
            UnaryOp::Log10 => "Log10Backward0",
            UnaryOp::Exp2 => "Exp2Backward0",
            UnaryOp::Rsqrt => "RsqrtBackward0",
            UnaryOp::Reciprocal => "ReciprocalBackward0",
            UnaryOp::Tan => "TanBackward0",
            UnaryOp::Asin => "AsinBackward0",
            UnaryOp::Acos => "AcosBackward0",
            UnaryOp::Atan => "AtanBackward0",
            UnaryOp::Sinh => "SinhBackward0",
            UnaryOp::Cosh => "CoshBackward0",
            UnaryOp::Frac => "FracBackward0",
            UnaryOp::NanToNum => "NanToNumBackward0",
        }
    }

    /// The gradient of the input from `g`, the input `x` and the result `r`.
    fn grad(self, g: &Tensor, x: &Tensor, r: &Tensor) -> Result<Tensor> {
        let c = |v: f64| scalar_tensor(v, g);
        let one = Scalar::Int(1);
        match self {
            UnaryOp::Expm1 => vt::mul(g, &vt::add(r, &c(1.0)?, one)?),
            UnaryOp::Log1p => vt::div(g, &vt::add(x, &c(1.0)?, one)?, None),
            UnaryOp::Log2 => vt::div(g, &vt::mul(x, &c(std::f64::consts::LN_2)?)?, None),
            UnaryOp::Log10 => vt::div(g, &vt::mul(x, &c(std::f64::consts::LN_10)?)?, None),
            UnaryOp::Exp2 => vt::mul(g, &vt::mul(r, &c(std::f64::consts::LN_2)?)?),
            UnaryOp::Rsqrt => vt::mul(g, &vt::mul(&vt::mul(r, &vt::mul(r, r)?)?, &c(-0.5)?)?),
            UnaryOp::Reciprocal => vt::neg(&vt::mul(g, &vt::mul(r, r)?)?),
            UnaryOp::Tan => vt::mul(g, &vt::add(&c(1.0)?, &vt::mul(r, r)?, one)?),
            UnaryOp::Asin | UnaryOp::Acos => {
                let d = vt::div(
                    g,
                    &vt::sqrt(&vt::sub(&c(1.0)?, &vt::mul(x, x)?, one)?)?,
                    None,
                )?;
                if matches!(self, UnaryOp::Acos) {
                    vt::neg(&d)
                } else {
                    Ok(d)
                }
            }
            UnaryOp::Atan => vt::div(g, &vt::add(&c(1.0)?, &vt::mul(x, x)?, one)?, None),
            UnaryOp::Sinh => vt::mul(g, &vt::cosh(x)?),
            UnaryOp::Cosh => vt::mul(g, &vt::sinh(x)?),
            UnaryOp::Frac => Ok(g.clone()),
            UnaryOp::NanToNum => vt::mul(g, &crate::core::ops::isfinite(x)?),
        }
    }
}

/// A gradient that must be there (the engine materialises single-output gradients).
fn need(g: &Option<Tensor>) -> Result<&Tensor> {
    g.as_ref()
        .ok_or_else(|| Error::runtime("internal error: a formula got no gradient"))
}

fn sizes_i64(sizes: &[usize]) -> Vec<i64> {
    sizes.iter().map(|&s| s as i64).collect()
}

/// `g` (reduced over `dims`, without kept dims) expanded back to `sizes`.
fn expand_reduced(g: &Tensor, sizes: &[usize], dims: &[bool], keepdim: bool) -> Result<Tensor> {
    let mut g = g.clone();
    if !keepdim {
        for (d, &r) in dims.iter().enumerate() {
            if r {
                g = vt::unsqueeze(&g, d as i64)?;
            }
        }
    }
    vt::expand(&g, &sizes_i64(sizes))
}

fn scalar_tensor(v: f64, like: &Tensor) -> Result<Tensor> {
    crate::core::ops::full(&[], Scalar::Float(v), Some(like.dtype()))
}

impl NodeKind {
    /// torch's class name of the node.
    pub fn name(&self) -> &'static str {
        use NodeKind::*;
        match self {
            AccumulateGrad { .. } => "AccumulateGrad",
            PyFunction(f) => f.name,
            Add { .. } => "AddBackward0",
            Sub { .. } => "SubBackward0",
            Mul { .. } => "MulBackward0",
            Div { .. } => "DivBackward0",
            Neg => "NegBackward0",
            Exp { .. } => "ExpBackward0",
            Log { .. } => "LogBackward0",
            Sqrt { .. } => "SqrtBackward0",
            Pow { .. } => "PowBackward1",
            Tanh { .. } => "TanhBackward0",
            Sigmoid { .. } => "SigmoidBackward0",
            Relu { .. } => "ReluBackward0",
            Abs { .. } => "AbsBackward0",
            Sin { .. } => "SinBackward0",
            Cos { .. } => "CosBackward0",
            Square { .. } => "PowBackward0",
            Zero { name } => name,
            Sum { .. } => "SumBackward0",
            SumDim { .. } => "SumBackward1",
            Mean { .. } => "MeanBackward0",
            MeanDim { .. } => "MeanBackward1",
            Mm { .. } => "MmBackward0",
            Matmul { .. } => "MmBackward0",
            Dot { .. } => "DotBackward0",
            Reshape { name, .. } => name,
            Transpose { name, .. } => name,
            Permute { .. } => "PermuteBackward0",
            Unsqueeze { .. } => "UnsqueezeBackward0",
            Expand => "ExpandBackward0",
            Identity { name } => name,
            Softmax { .. } => "SoftmaxBackward0",
            LogSoftmax { .. } => "LogSoftmaxBackward0",
            Cat { .. } => "CatBackward0",
            Stack { .. } => "StackBackward0",
            Where { .. } => "WhereBackward0",
            Clamp { .. } => "ClampBackward1",
            MaxMin { name, .. } => name,
            MaxMinDim { name, .. } => name,
            Extremum { name, .. } => name,
            Gather { .. } => "GatherBackward0",
            IndexSelect { .. } => "IndexSelectBackward0",
            MaskedFill { .. } => "MaskedFillBackward0",
            Select { .. } => "SelectBackward0",
            Narrow { .. } => "NarrowBackward0",
            Index { name, .. } => name,
            Copy => "CopyBackwards",
            Unary { op, .. } => op.name(),
            Atan2 { .. } => "Atan2Backward0",
            Hypot { .. } => "HypotBackward0",
            LerpScalar { .. } => "LerpBackward0",
            LerpTensor { .. } => "LerpBackward1",
            Logsumexp { .. } => "LogsumexpBackward0",
            Cumsum { .. } => "CumsumBackward0",
            VarStd { name, .. } => name,
            Norm2 { .. } => "NormBackward1",
            Flip { .. } => "FlipBackward0",
            Roll { .. } => "RollBackward0",
            TrilTriu { name, .. } => name,
            Trace { .. } => "TraceBackward0",
            Outer { .. } => "OuterBackward0",
            Movedim { .. } => "MovedimBackward0",
            ScatterSrc { .. } => "ScatterBackward0",
            ScatterAdd { .. } => "ScatterAddBackward0",
            IndexAdd { .. } => "IndexAddBackward0",
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
            Mul { self_, other }
            | Div { self_, other }
            | Dot { self_, other }
            | Matmul { self_, other } => {
                vec![("self", self_), ("other", other)]
            }
            Mm { self_, mat2 } => vec![("self", self_), ("mat2", mat2)],
            MaxMin { self_, other, .. } => vec![("self", self_), ("other", other)],
            Exp { result }
            | Sqrt { result }
            | Tanh { result }
            | Sigmoid { result }
            | Relu { result } => {
                vec![("result", result)]
            }
            Softmax { result, .. } | LogSoftmax { result, .. } => vec![("result", result)],
            Log { self_ } | Abs { self_ } | Sin { self_ } | Cos { self_ } | Square { self_ } => {
                vec![("self", self_)]
            }
            Clamp { self_, .. } => vec![("self", self_)],
            Pow {
                self_,
                exponent,
                result,
            } => vec![("self", self_), ("exponent", exponent), ("result", result)],
            Where { condition } => vec![("condition", condition)],
            Unary { self_, result, .. } | Hypot { self_, result, .. } => {
                vec![("self", self_), ("result", result)]
            }
            Atan2 { self_, other } => vec![("self", self_), ("other", other)],
            LerpTensor { self_, end, weight } => {
                vec![("self", self_), ("end", end), ("weight", weight)]
            }
            Logsumexp { self_, result, .. }
            | VarStd { self_, result, .. }
            | Norm2 { self_, result, .. } => {
                vec![("self", self_), ("result", result)]
            }
            Outer { self_, vec2 } => vec![("self", self_), ("vec2", vec2)],
            MaskedFill { mask } => vec![("mask", mask)],
            Gather { index, .. } | IndexSelect { index, .. } => vec![("index", index)],
            ScatterSrc { index, .. } | ScatterAdd { index, .. } | IndexAdd { index, .. } => {
                vec![("index", index)]
            }
            MaxMinDim { indices, .. } => vec![("indices", indices)],
            Extremum { self_, result, .. } => vec![("self", self_), ("result", result)],
            _ => Vec::new(),
        }
    }

    /// The saved numbers by their torch attribute names (`_saved_alpha`).
    pub fn saved_scalars(&self) -> Vec<(&'static str, Scalar)> {
        use NodeKind::*;
        match self {
            Add { alpha } | Sub { alpha } => vec![("alpha", *alpha)],
            Softmax { dim, .. } | LogSoftmax { dim, .. } | Cat { dim, .. } | Stack { dim, .. } => {
                vec![("dim", Scalar::Int(*dim))]
            }
            Transpose { dim0, dim1, .. } => {
                vec![("dim0", Scalar::Int(*dim0)), ("dim1", Scalar::Int(*dim1))]
            }
            Unsqueeze { dim } => vec![("dim", Scalar::Int(*dim))],
            _ => Vec::new(),
        }
    }

    /// Take out everything the formula saved (after backward without `retain_graph`); what
    /// is returned is dropped by the caller outside the lock.
    pub fn release(&mut self) -> Vec<SavedTensor> {
        if let NodeKind::PyFunction(f) = self {
            return f.release();
        }
        let mut out = Vec::new();
        let mut take = |s: &mut SavedTensor| {
            if !matches!(s, SavedTensor::None) {
                out.push(std::mem::replace(s, SavedTensor::Released));
            }
        };
        use NodeKind::*;
        match self {
            Mul { self_, other }
            | Div { self_, other }
            | Dot { self_, other }
            | Matmul { self_, other } => {
                take(self_);
                take(other);
            }
            MaxMin { self_, other, .. } => {
                take(self_);
                take(other);
            }
            Mm { self_, mat2 } => {
                take(self_);
                take(mat2);
            }
            Exp { result }
            | Sqrt { result }
            | Tanh { result }
            | Sigmoid { result }
            | Relu { result } => take(result),
            Softmax { result, .. } | LogSoftmax { result, .. } => take(result),
            Log { self_ } | Abs { self_ } | Sin { self_ } | Cos { self_ } | Square { self_ } => {
                take(self_)
            }
            Clamp { self_, .. } => take(self_),
            Pow {
                self_,
                exponent,
                result,
            } => {
                take(self_);
                take(exponent);
                take(result);
            }
            Where { condition } => take(condition),
            Unary { self_, result, .. } => {
                take(self_);
                take(result);
            }
            Hypot {
                self_,
                other,
                result,
            } => {
                take(self_);
                take(other);
                take(result);
            }
            Atan2 { self_, other } | Outer { self_, vec2: other } => {
                take(self_);
                take(other);
            }
            LerpTensor { self_, end, weight } => {
                take(self_);
                take(end);
                take(weight);
            }
            Logsumexp { self_, result, .. }
            | VarStd { self_, result, .. }
            | Norm2 { self_, result, .. } => {
                take(self_);
                take(result);
            }
            MaskedFill { mask } => take(mask),
            Gather { index, .. } | IndexSelect { index, .. } => take(index),
            ScatterSrc { index, .. } | ScatterAdd { index, .. } | IndexAdd { index, .. } => {
                take(index)
            }
            MaxMinDim { indices, .. } => take(indices),
            Extremum { self_, result, .. } => {
                take(self_);
                take(result);
            }
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
        if matches!(self, MaxMinDim { .. }) {
            // Two outputs; only `values` is differentiable.
            let MaxMinDim {
                self_sizes,
                dim,
                keepdim,
                indices,
                ..
            } = self
            else {
                unreachable!()
            };
            let Some(g) = grads[0].as_ref() else {
                return Ok(vec![None]);
            };
            let idx = indices.unpack(n)?;
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
        let g = need(&grads[0])?;
        Ok(match self {
            AccumulateGrad { .. } | PyFunction(_) | Released => {
                return Err(Error::runtime("internal error: applying a sink node"))
            }
            Add { alpha } => vec![
                one(&|| Ok(g.clone()), 0)?,
                one(&|| scale(g, *alpha, false), 1)?,
            ],
            Sub { alpha } => vec![
                one(&|| Ok(g.clone()), 0)?,
                one(&|| scale(g, *alpha, true), 1)?,
            ],
            Mul { self_, other } => vec![
                one(&|| vt::mul(g, &other.unpack(n)?), 0)?,
                one(&|| vt::mul(g, &self_.unpack(n)?), 1)?,
            ],
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
            Neg => vec![one(&|| vt::neg(g), 0)?],
            Exp { result } => vec![one(&|| vt::mul(g, &result.unpack(n)?), 0)?],
            Log { self_ } => vec![one(&|| vt::div(g, &self_.unpack(n)?, None), 0)?],
            Sqrt { result } => vec![one(
                &|| {
                    let r = result.unpack(n)?;
                    vt::div(g, &vt::mul(&r, &scalar_tensor(2.0, &r)?)?, None)
                },
                0,
            )?],
            Pow {
                self_,
                exponent,
                result,
            } => vec![
                one(
                    &|| {
                        // g * e * a^(e-1), 0 where e == 0
                        let (a, e) = (self_.unpack(n)?, exponent.unpack(n)?);
                        let em1 = vt::sub(&e, &scalar_tensor(1.0, &e)?, Scalar::Int(1))?;
                        let d = vt::mul(&e, &vt::pow(&a, &em1)?)?;
                        let zero = crate::core::ops::eq(&e, &scalar_tensor(0.0, &e)?)?;
                        let d = vt::masked_fill(&d, &zero, Scalar::Float(0.0))?;
                        vt::mul(g, &d)
                    },
                    0,
                )?,
                one(
                    &|| {
                        // g * result * log(a), 0 where a == 0 and e >= 0
                        let (a, e, r) = (self_.unpack(n)?, exponent.unpack(n)?, result.unpack(n)?);
                        let d = vt::mul(&r, &vt::log(&a)?)?;
                        let a0 = crate::core::ops::eq(&a, &scalar_tensor(0.0, &a)?)?;
                        let e0 = crate::core::ops::ge(&e, &scalar_tensor(0.0, &e)?)?;
                        let mask = crate::core::ops::logical_and(&a0, &e0)?;
                        let d = vt::masked_fill(&d, &mask, Scalar::Float(0.0))?;
                        vt::mul(g, &d)
                    },
                    1,
                )?,
            ],
            Tanh { result } => vec![one(
                &|| {
                    let r = result.unpack(n)?;
                    let one_minus =
                        vt::sub(&scalar_tensor(1.0, &r)?, &vt::mul(&r, &r)?, Scalar::Int(1))?;
                    vt::mul(g, &one_minus)
                },
                0,
            )?],
            Sigmoid { result } => vec![one(
                &|| {
                    let r = result.unpack(n)?;
                    let one_minus = vt::sub(&scalar_tensor(1.0, &r)?, &r, Scalar::Int(1))?;
                    vt::mul(g, &vt::mul(&r, &one_minus)?)
                },
                0,
            )?],
            Relu { result } => vec![one(
                &|| {
                    let r = result.unpack(n)?;
                    let pos = crate::core::ops::gt(&r, &scalar_tensor(0.0, &r)?)?;
                    vt::mul(g, &pos)
                },
                0,
            )?],
            Abs { self_ } => vec![one(
                &|| vt::mul(g, &crate::core::ops::sign(&self_.unpack(n)?)?),
                0,
            )?],
            Sin { self_ } => vec![one(&|| vt::mul(g, &vt::cos(&self_.unpack(n)?)?), 0)?],
            Cos { self_ } => vec![one(
                &|| vt::neg(&vt::mul(g, &vt::sin(&self_.unpack(n)?)?)?),
                0,
            )?],
            Square { self_ } => vec![one(
                &|| {
                    let a = self_.unpack(n)?;
                    vt::mul(g, &vt::mul(&a, &scalar_tensor(2.0, &a)?)?)
                },
                0,
            )?],
            Zero { .. } => vec![one(&|| crate::core::ops::zeros_like(g, None), 0)?],
            Sum { self_sizes } => vec![one(&|| vt::expand(g, &sizes_i64(self_sizes)), 0)?],
            SumDim {
                self_sizes,
                dims,
                keepdim,
            } => {
                vec![one(&|| expand_reduced(g, self_sizes, dims, *keepdim), 0)?]
            }
            Mean { self_sizes, numel } => vec![one(
                &|| {
                    let e = vt::expand(g, &sizes_i64(self_sizes))?;
                    vt::div(&e, &scalar_tensor(*numel as f64, g)?, None)
                },
                0,
            )?],
            MeanDim {
                self_sizes,
                dims,
                keepdim,
                count,
            } => vec![one(
                &|| {
                    let e = expand_reduced(g, self_sizes, dims, *keepdim)?;
                    vt::div(&e, &scalar_tensor(*count as f64, g)?, None)
                },
                0,
            )?],
            Mm { self_, mat2 } => vec![
                one(&|| vt::mm(g, &vt::t(&mat2.unpack(n)?)?), 0)?,
                one(&|| vt::mm(&vt::t(&self_.unpack(n)?)?, g), 1)?,
            ],
            Dot { self_, other } => vec![
                one(&|| vt::mul(g, &other.unpack(n)?), 0)?,
                one(&|| vt::mul(g, &self_.unpack(n)?), 1)?,
            ],
            Matmul { self_, other } => matmul_backward(g, self_, other, n, needs(0), needs(1))?,
            Reshape { self_sizes, .. } => vec![one(&|| vt::reshape(g, &sizes_i64(self_sizes)), 0)?],
            Transpose { dim0, dim1, .. } => vec![one(&|| vt::transpose(g, *dim0, *dim1), 0)?],
            Permute { dims } => vec![one(
                &|| {
                    let mut inv = vec![0i64; dims.len()];
                    for (i, &d) in dims.iter().enumerate() {
                        let d = crate::core::tensor::maybe_wrap_dim(d, dims.len())?;
                        inv[d] = i as i64;
                    }
                    vt::permute(g, &inv)
                },
                0,
            )?],
            Unsqueeze { dim } => vec![one(&|| vt::squeeze_dim(g, *dim), 0)?],
            Expand | Identity { .. } => vec![one(&|| Ok(g.clone()), 0)?],
            Softmax { result, dim } => vec![one(
                &|| {
                    let r = result.unpack(n)?;
                    let gr = vt::mul(g, &r)?;
                    let s = vt::sum(&gr, Some(&[*dim]), true, None)?;
                    vt::sub(&gr, &vt::mul(&r, &s)?, Scalar::Int(1))
                },
                0,
            )?],
            LogSoftmax { result, dim } => vec![one(
                &|| {
                    let r = result.unpack(n)?;
                    let s = vt::sum(g, Some(&[*dim]), true, None)?;
                    vt::sub(g, &vt::mul(&vt::exp(&r)?, &s)?, Scalar::Int(1))
                },
                0,
            )?],
            Cat { dim, sizes } => {
                let mut out = Vec::with_capacity(sizes.len());
                let mut start = 0i64;
                for (i, &s) in sizes.iter().enumerate() {
                    out.push(one(&|| vt::narrow(g, *dim, start, s as i64), i)?);
                    start += s as i64;
                }
                out
            }
            Stack { dim, n: count } => {
                let mut out = Vec::with_capacity(*count);
                for i in 0..*count {
                    out.push(one(&|| vt::select(g, *dim, i as i64), i)?);
                }
                out
            }
            Where { condition } => {
                let c = condition.unpack(n)?;
                let z = scalar_tensor(0.0, g)?;
                vec![
                    None,
                    one(&|| vt::where_(&c, g, &z), 1)?,
                    one(&|| vt::where_(&c, &z, g), 2)?,
                ]
            }
            Clamp { self_, min, max } => vec![one(
                &|| {
                    let a = self_.unpack(n)?;
                    let mut keep = crate::core::ops::ones_like(&a, Some(DType::Bool))?;
                    if let Some(lo) = min {
                        let lo = crate::core::ops::full(&[], *lo, Some(a.dtype()))?;
                        keep =
                            crate::core::ops::logical_and(&keep, &crate::core::ops::ge(&a, &lo)?)?;
                    }
                    if let Some(hi) = max {
                        let hi = crate::core::ops::full(&[], *hi, Some(a.dtype()))?;
                        keep =
                            crate::core::ops::logical_and(&keep, &crate::core::ops::le(&a, &hi)?)?;
                    }
                    vt::mul(g, &keep)
                },
                0,
            )?],
            MaxMin {
                self_,
                other,
                is_max,
                ..
            } => {
                let (a, b) = (self_.unpack(n)?, other.unpack(n)?);
                let half = scalar_tensor(0.5, g)?;
                let tie = vt::mul(&crate::core::ops::eq(&a, &b)?.to_dtype(g.dtype())?, &half)?;
                let (wa, wb) = if *is_max {
                    (crate::core::ops::gt(&a, &b)?, crate::core::ops::lt(&a, &b)?)
                } else {
                    (crate::core::ops::lt(&a, &b)?, crate::core::ops::gt(&a, &b)?)
                };
                vec![
                    one(
                        &|| vt::mul(g, &vt::add(&wa.to_dtype(g.dtype())?, &tie, Scalar::Int(1))?),
                        0,
                    )?,
                    one(
                        &|| vt::mul(g, &vt::add(&wb.to_dtype(g.dtype())?, &tie, Scalar::Int(1))?),
                        1,
                    )?,
                ]
            }
            Extremum {
                self_,
                result,
                dims,
                keepdim,
                ..
            } => vec![one(
                &|| {
                    let (a, r) = (self_.unpack(n)?, result.unpack(n)?);
                    let (g, r) = match dims {
                        Some(ds) if !keepdim && !ds.is_empty() => {
                            let mut ds: Vec<usize> = ds
                                .iter()
                                .map(|&d| crate::core::tensor::maybe_wrap_dim(d, a.dim()))
                                .collect::<Result<_>>()?;
                            ds.sort_unstable();
                            let (mut g, mut r) = (g.clone(), r);
                            for d in ds {
                                g = vt::unsqueeze(&g, d as i64)?;
                                r = crate::core::ops::unsqueeze(&r, d as i64)?;
                            }
                            (g, r)
                        }
                        Some(ds) if !keepdim && ds.is_empty() => {
                            // amax over every dim without keepdim: a 0-d result.
                            (g.clone(), r)
                        }
                        _ => (g.clone(), r),
                    };
                    let mask = crate::core::ops::eq(&a, &r)?.to_dtype(a.dtype())?;
                    let count = match dims {
                        Some(ds) if !ds.is_empty() => {
                            crate::core::ops::sum(&mask, Some(ds), true, None)?
                        }
                        _ => crate::core::ops::sum_all(&mask, None)?,
                    };
                    vt::div(&vt::mul(&g, &mask)?, &count, None)
                },
                0,
            )?],
            Gather {
                self_sizes,
                dim,
                index,
            } => vec![one(
                &|| {
                    let z = crate::core::ops::zeros(&sizes_i64(self_sizes), Some(g.dtype()))?;
                    vt::scatter_add(&z, *dim, &index.unpack(n)?, g)
                },
                0,
            )?],
            IndexSelect {
                self_sizes,
                dim,
                index,
            } => vec![one(
                &|| {
                    let z = crate::core::ops::zeros(&sizes_i64(self_sizes), Some(g.dtype()))?;
                    vt::index_add(&z, *dim, &index.unpack(n)?, g, Scalar::Int(1))
                },
                0,
            )?],
            MaskedFill { mask } => vec![one(
                &|| vt::masked_fill(g, &mask.unpack(n)?, Scalar::Float(0.0)),
                0,
            )?],
            Select {
                self_sizes,
                dim,
                index,
            } => vec![one(
                &|| {
                    let z = crate::core::ops::zeros(&sizes_i64(self_sizes), Some(g.dtype()))?;
                    let idx =
                        crate::core::ops::full(&[1], Scalar::Int(*index), Some(DType::Int64))?;
                    let idx = if *index < 0 {
                        let d = crate::core::tensor::maybe_wrap_dim(*dim, self_sizes.len())?;
                        crate::core::ops::full(
                            &[1],
                            Scalar::Int(*index + self_sizes[d] as i64),
                            Some(DType::Int64),
                        )?
                    } else {
                        idx
                    };
                    vt::index_add(&z, *dim, &idx, &vt::unsqueeze(g, *dim)?, Scalar::Int(1))
                },
                0,
            )?],
            Narrow {
                self_sizes,
                dim,
                start,
                length,
            } => vec![one(
                &|| {
                    let d = crate::core::tensor::maybe_wrap_dim(*dim, self_sizes.len())?;
                    let start = if *start < 0 {
                        *start + self_sizes[d] as i64
                    } else {
                        *start
                    };
                    let idx = crate::core::ops::arange_start(
                        Scalar::Int(start),
                        Scalar::Int(start + length),
                        Some(DType::Int64),
                    )?;
                    let z = crate::core::ops::zeros(&sizes_i64(self_sizes), Some(g.dtype()))?;
                    vt::index_add(&z, *dim, &idx, g, Scalar::Int(1))
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
            Copy => vec![
                one(&|| crate::core::ops::zeros_like(g, None), 0)?,
                one(&|| Ok(g.clone()), 1)?,
            ],
            ScatterSrc { dim, index } => {
                let idx = index.unpack(n)?;
                vec![
                    one(
                        &|| crate::core::ops::scatter_value(g, *dim, &idx, Scalar::Float(0.0)),
                        0,
                    )?,
                    one(&|| vt::gather(g, *dim, &idx), 1)?,
                ]
            }
            ScatterAdd { dim, index } => {
                let idx = index.unpack(n)?;
                vec![
                    one(&|| Ok(g.clone()), 0)?,
                    one(&|| vt::gather(g, *dim, &idx), 1)?,
                ]
            }
            IndexAdd {
                dim,
                index,
                alpha,
                source_dim,
            } => {
                let idx = index.unpack(n)?;
                vec![
                    one(&|| Ok(g.clone()), 0)?,
                    one(
                        &|| {
                            let s = vt::index_select(g, *dim, &idx)?;
                            let s = if *source_dim == 0 {
                                vt::reshape(&s, &[])?
                            } else {
                                s
                            };
                            scale(&s, *alpha, false)
                        },
                        1,
                    )?,
                ]
            }
            Unary { op, self_, result } => vec![one(
                &|| op.grad(g, &self_.unpack(n)?, &result.unpack(n)?),
                0,
            )?],
            Atan2 { self_, other } => {
                let (a, b) = (self_.unpack(n)?, other.unpack(n)?);
                let den = vt::add(&vt::mul(&a, &a)?, &vt::mul(&b, &b)?, Scalar::Int(1))?;
                vec![
                    one(&|| vt::div(&vt::mul(g, &b)?, &den, None), 0)?,
                    one(&|| vt::neg(&vt::div(&vt::mul(g, &a)?, &den, None)?), 1)?,
                ]
            }
            Hypot {
                self_,
                other,
                result,
            } => {
                let r = result.unpack(n)?;
                vec![
                    one(&|| vt::mul(g, &vt::div(&self_.unpack(n)?, &r, None)?), 0)?,
                    one(&|| vt::mul(g, &vt::div(&other.unpack(n)?, &r, None)?), 1)?,
                ]
            }
            LerpScalar { weight } => {
                let w = weight.to_f64();
                vec![
                    one(&|| vt::mul(g, &scalar_tensor(1.0 - w, g)?), 0)?,
                    one(&|| vt::mul(g, &scalar_tensor(w, g)?), 1)?,
                ]
            }
            LerpTensor { self_, end, weight } => {
                let w = weight.unpack(n)?;
                vec![
                    one(
                        &|| vt::mul(g, &vt::sub(&scalar_tensor(1.0, g)?, &w, Scalar::Int(1))?),
                        0,
                    )?,
                    one(&|| vt::mul(g, &w), 1)?,
                    one(
                        &|| {
                            vt::mul(
                                g,
                                &vt::sub(&end.unpack(n)?, &self_.unpack(n)?, Scalar::Int(1))?,
                            )
                        },
                        2,
                    )?,
                ]
            }
            Logsumexp {
                self_,
                result,
                dims,
                keepdim,
            } => vec![one(
                &|| {
                    let (x, r) = (self_.unpack(n)?, result.unpack(n)?);
                    let (g, r) = unsqueeze_reduced(g, &r, Some(dims), *keepdim, x.dim())?;
                    vt::mul(&g, &vt::exp(&vt::sub(&x, &r, Scalar::Int(1))?)?)
                },
                0,
            )?],
            Cumsum { dim } => vec![one(
                &|| {
                    let d = [*dim];
                    vt::flip(&vt::cumsum(&vt::flip(g, &d)?, *dim, None)?, &d)
                },
                0,
            )?],
            VarStd {
                self_,
                result,
                dims,
                correction,
                keepdim,
                is_std,
                ..
            } => vec![one(
                &|| {
                    let (x, r) = (self_.unpack(n)?, result.unpack(n)?);
                    let count: usize = match dims {
                        Some(ds) if !ds.is_empty() => ds
                            .iter()
                            .map(|&d| {
                                crate::core::tensor::maybe_wrap_dim(d, x.dim())
                                    .map(|d| x.sizes()[d])
                            })
                            .collect::<Result<Vec<_>>>()?
                            .into_iter()
                            .product(),
                        _ => x.numel(),
                    };
                    let (g, r) = unsqueeze_reduced(g, &r, dims.as_deref(), *keepdim, x.dim())?;
                    let mean = vt::mean(&x, dims.as_deref().filter(|d| !d.is_empty()), true, None)?;
                    let centered = vt::sub(&x, &mean, Scalar::Int(1))?;
                    let denom = count as f64 - correction;
                    if *is_std {
                        let d =
                            vt::div(&centered, &vt::mul(&r, &scalar_tensor(denom, &x)?)?, None)?;
                        vt::mul(&g, &d)
                    } else {
                        vt::mul(&g, &vt::mul(&centered, &scalar_tensor(2.0 / denom, &x)?)?)
                    }
                },
                0,
            )?],
            Norm2 {
                self_,
                result,
                dims,
                keepdim,
            } => vec![one(
                &|| {
                    let (x, r) = (self_.unpack(n)?, result.unpack(n)?);
                    let (g, r) = unsqueeze_reduced(g, &r, dims.as_deref(), *keepdim, x.dim())?;
                    let d = vt::div(&x, &r, None)?;
                    let zero = crate::core::ops::eq(&r, &scalar_tensor(0.0, &r)?)?;
                    let d = vt::masked_fill(&d, &zero, Scalar::Float(0.0))?;
                    vt::mul(&g, &d)
                },
                0,
            )?],
            Flip { dims } => vec![one(&|| vt::flip(g, dims), 0)?],
            Roll { shifts, dims } => vec![one(
                &|| {
                    let neg: Vec<i64> = shifts.iter().map(|s| -s).collect();
                    vt::roll(g, &neg, dims)
                },
                0,
            )?],
            TrilTriu {
                diagonal, upper, ..
            } => vec![one(
                &|| {
                    if *upper {
                        vt::triu(g, *diagonal)
                    } else {
                        vt::tril(g, *diagonal)
                    }
                },
                0,
            )?],
            Trace { self_sizes } => vec![one(
                &|| {
                    let eye = crate::core::ops::eye_m(
                        self_sizes[0] as i64,
                        self_sizes[1] as i64,
                        Some(g.dtype()),
                    )?;
                    vt::mul(&eye, g)
                },
                0,
            )?],
            Outer { self_, vec2 } => vec![
                one(&|| vt::matmul(g, &vec2.unpack(n)?), 0)?,
                one(&|| vt::matmul(&vt::t(g)?, &self_.unpack(n)?), 1)?,
            ],
            Movedim {
                source,
                destination,
            } => vec![one(&|| vt::movedim_intlist(g, destination, source), 0)?],
            MaxMinDim { .. } => unreachable!(),
        })
    }
}

/// `g` and the result `r` of a reduction over `dims` (None or empty: all) of a tensor of rank
/// `rank`, with the reduced dims put back (size 1) unless `keepdim`.
fn unsqueeze_reduced(
    g: &Tensor,
    r: &Tensor,
    dims: Option<&[i64]>,
    keepdim: bool,
    rank: usize,
) -> Result<(Tensor, Tensor)> {
    if keepdim || rank == 0 {
        return Ok((g.clone(), r.clone()));
    }
    let mut ds: Vec<usize> = match dims {
        Some(ds) if !ds.is_empty() => ds
            .iter()
            .map(|&d| crate::core::tensor::maybe_wrap_dim(d, rank))
            .collect::<Result<_>>()?,
        _ => (0..rank).collect(),
    };
    ds.sort_unstable();
    let (mut g, mut r) = (g.clone(), r.clone());
    for d in ds {
        g = vt::unsqueeze(&g, d as i64)?;
        r = crate::core::ops::unsqueeze(&r, d as i64)?;
    }
    Ok((g, r))
}

/// `g * alpha` (negated for `sub`), skipping the multiply for alpha == 1.
fn scale(g: &Tensor, alpha: Scalar, negate: bool) -> Result<Tensor> {
    let is_one = match alpha {
        Scalar::Int(1) => true,
        Scalar::Float(f) => f == 1.0,
        Scalar::Bool(true) => true,
        _ => false,
    };
    let g = if is_one {
        g.clone()
    } else {
        let a = crate::core::ops::full(&[], alpha, Some(g.dtype()))?;
        vt::mul(g, &a)?
    };
    if negate {
        vt::neg(&g)
    } else {
        Ok(g)
    }
}

/// matmul's backward for every rank combination; the engine sums broadcast batch dims away.
fn matmul_backward(
    g: &Tensor,
    self_: &SavedTensor,
    other: &SavedTensor,
    n: Option<&Arc<Node>>,
    need_a: bool,
    need_b: bool,
) -> Result<Vec<Option<Tensor>>> {
    // Both operands are always saved (their ranks decide the shapes).
    let (a0, b0) = (self_.unpack(n)?, other.unpack(n)?);
    let (ra, rb) = (a0.dim(), b0.dim());
    let a = need_b.then_some(a0);
    let b = need_a.then_some(b0);
    if ra == 1 && rb == 1 {
        return Ok(vec![
            b.map(|b| vt::mul(g, &b)).transpose()?,
            a.map(|a| vt::mul(g, &a)).transpose()?,
        ]);
    }
    let mut gg = g.clone();
    if ra == 1 {
        gg = vt::unsqueeze(&gg, -2)?;
    }
    if rb == 1 {
        gg = vt::unsqueeze(&gg, -1)?;
    }
    let ga = match &b {
        Some(b) => {
            let b2 = if rb == 1 {
                vt::unsqueeze(b, -1)?
            } else {
                b.clone()
            };
            let mut r = vt::matmul(&gg, &vt::transpose(&b2, -1, -2)?)?;
            if ra == 1 {
                r = vt::squeeze_dim(&r, -2)?;
            }
            Some(r)
        }
        None => None,
    };
    let gb = match &a {
        Some(a) => {
            let a2 = if ra == 1 {
                vt::unsqueeze(a, 0)?
            } else {
                a.clone()
            };
            let mut r = vt::matmul(&vt::transpose(&a2, -1, -2)?, &gg)?;
            if rb == 1 {
                r = vt::squeeze_dim(&r, -1)?;
            }
            Some(r)
        }
        None => None,
    };
    Ok(vec![ga, gb])
}
