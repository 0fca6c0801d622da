//! src/core/autograd/nn_formulas.rs: the derivative nodes of torch.nn.functional (issue 15) and
//! their recording wrappers — one `NnNode` variant per node (held by `NodeKind::Nn`), whose
//! `apply` calls the backward kernels of src/core/ops/nn/backward.rs, as torch's nodes call
//! `gelu_backward`, `convolution_backward`, `native_layer_norm_backward`, ... The wrappers have
//! the core ops' signatures and are re-exported by variable_type.rs, so the generated bindings
//! call them as `vt::op` for the ops src/derivatives.yaml gives a `node:`.
//!
//! Double backward (Note [nn double backward]): with `create_graph` (grad mode on while the
//! node runs) and the gradient or a saved input requiring grad, a node either computes its
//! gradient with recorded ops (activations, pointwise losses, norms) or records a node of its
//! own over the kernel's result (`BackwardOf` for backwards linear in the gradient,
//! `ConvBackward`). Composite ops
//! (`cross_entropy_loss`, `conv2d`'s batching and `"same"` padding) are composed of recorded
//! ops, as torch composes them.

// Note [nn double backward]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// torch differentiates each backward kernel with a formula of its own (`gelu_double_backward`,
// `_convolution_double_backward`, `max_pool_double_backward`, ...). Here:
// - elementwise activations, pointwise losses and the norms: under `create_graph`, the node
//   computes its gradient with recorded ops (`activation_backward_recorded`,
//   `point_loss_backward_recorded`, `norm_backward_recorded`, `batch_norm_backward_recorded`:
//   the statistics recomputed from the saved input) instead of the kernel, so every order is
//   differentiable. The values agree with the kernel's up to rounding.
// - backwards linear in the gradient and independent of the input (avg / adaptive avg / max
//   pools, upsampling, embedding, nll_loss): the kernel's result gets a `BackwardOf` node whose
//   backward is the forward op applied to the incoming gradient (through the recording wrappers,
//   so higher orders work too); the input's second derivative is zero, as torch's.
// - convolution (bilinear in input and weight): the kernel's results get a `ConvBackward` node
//   over `(grad, input, weight)` computing torch's `_convolution_double_backward` with the
//   forward and backward kernels; a third order through it raises NotImplementedError.

use super::formulas::NodeKind;
use super::inplace_formulas::record_not_implemented;
use super::node::{Edge, Node, SavedTensor};
use super::variable_type as vt;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::ops;
use crate::core::ops::nn::backward::{self as bw, Activation, ConvParams, PointLoss, RowNorm};
use crate::core::ops::nn::upsample::{self as up, Taps};
use crate::core::scalar::Scalar;
use crate::core::tensor::Tensor;
use std::sync::Arc;

/// One nn node and what it saved.
pub enum NnNode {
    /// An elementwise activation: its input saved.
    Act {
        name: &'static str,
        act: Activation,
        self_: SavedTensor,
    },
    /// `mse_loss`, `l1_loss`, `smooth_l1_loss`, `huber_loss` over `(self, target)`.
    PointLoss {
        name: &'static str,
        loss: PointLoss,
        reduction: i64,
        self_: SavedTensor,
        target: SavedTensor,
    },
    /// `binary_cross_entropy` (`logits` false) and `binary_cross_entropy_with_logits` over
    /// `(self, target)` (torch's `*_target_backward` for the target); the weights are not
    /// differentiable, as torch's.
    Bce {
        logits: bool,
        input: SavedTensor,
        target: Tensor,
        weight: Option<Tensor>,
        pos_weight: Option<Tensor>,
        reduction: i64,
    },
    /// `kl_div` over `self`.
    KlDiv {
        target: Tensor,
        reduction: i64,
        log_target: bool,
    },
    /// `nll_loss` over `self` (the target and weight are not differentiable).
    NllLoss {
        self_: SavedTensor,
        target: Tensor,
        weight: Option<Tensor>,
        reduction: i64,
        ignore_index: i64,
        total_weight: f64,
    },
    /// `layer_norm`, `rms_norm`, `group_norm` over `(input[, weight][, bias])`.
    RowNorm {
        name: &'static str,
        kind: RowNorm,
        rows: usize,
        len: usize,
        eps: f64,
        input: SavedTensor,
        weight: Option<SavedTensor>,
        /// The bias's shape when there is one.
        bias_sizes: Option<Box<[usize]>>,
    },
    /// `batch_norm` over `(input[, weight][, bias])`; `running` is the evaluation mode's
    /// `(mean, invstd)` (training recomputes the batch statistics).
    BatchNorm {
        input: SavedTensor,
        weight: Option<SavedTensor>,
        has_bias: bool,
        running: Option<(Vec<f64>, Vec<f64>)>,
        eps: f64,
    },
    /// `convolution` over `(input, weight[, bias])`.
    Conv {
        input: SavedTensor,
        weight: SavedTensor,
        has_bias: bool,
        params: ConvParams,
    },
    /// `max_pool2d` over `self`: the argmax indices saved.
    MaxPool2d {
        self_sizes: Box<[usize]>,
        indices: Tensor,
    },
    /// `avg_pool2d` over `self`: the geometry saved.
    AvgPool2d {
        self_sizes: Box<[usize]>,
        kernel_size: Box<[i64]>,
        stride: Box<[i64]>,
        padding: Box<[i64]>,
        ceil_mode: bool,
        count_include_pad: bool,
        divisor_override: Option<i64>,
    },
    /// `adaptive_avg_pool2d` over `self` (the windows follow from the shapes).
    AdaptiveAvgPool2d { self_sizes: Box<[usize]> },
    /// `upsample_*` over `self`: the taps of the height (the unit taps for 1-d) and width.
    Upsample {
        name: &'static str,
        kernel: &'static str,
        self_sizes: Box<[usize]>,
        taps: Box<(Taps, Taps)>,
    },
    /// `embedding` over `weight`.
    Embedding {
        num_weights: usize,
        indices: Tensor,
        padding_idx: i64,
        scale_grad_by_freq: bool,
    },
    /// `dropout` over `input`: the scaled mask saved.
    Dropout { mask: Tensor },
    /// `pad` in constant mode: the gradient cropped back (padded by the negated pads).
    ConstantPad { pad: Box<[i64]> },
    /// The recorded result of a backward kernel linear in the gradient (Note [nn double
    /// backward]): over the gradient `g` (of `out_sizes`); `of` is the first node's data, whose
    /// forward applied to the incoming gradient is this node's gradient.
    BackwardOf {
        name: &'static str,
        of: Box<NnNode>,
        out_sizes: Box<[usize]>,
    },
    /// The recorded results of `convolution_backward` (Note [nn double backward]): over
    /// `(grad, input, weight)`; `outs` says which results (0 input, 1 weight, 2 bias) it is
    /// the history of, in order.
    ConvBackward {
        grad: SavedTensor,
        input: SavedTensor,
        weight: SavedTensor,
        params: ConvParams,
        outs: Box<[u8]>,
    },
    /// `pad` in reflect / replicate / circular mode: `map` gives, for each output element,
    /// the flat index of the input element it copies; the gradient is summed back through it.
    MappedPad {
        name: &'static str,
        self_sizes: Box<[usize]>,
        map: Tensor,
    },
}

impl NnNode {
    /// torch's class name of the node.
    pub fn name(&self) -> &'static str {
        match self {
            NnNode::Act { name, .. } | NnNode::PointLoss { name, .. } => name,
            NnNode::NllLoss { .. } => "NllLossBackward0",
            NnNode::Bce { logits: false, .. } => "BinaryCrossEntropyBackward0",
            NnNode::Bce { logits: true, .. } => "BinaryCrossEntropyWithLogitsBackward0",
            NnNode::KlDiv { .. } => "KlDivBackward0",
            NnNode::RowNorm { name, .. } => name,
            NnNode::BatchNorm { .. } => "NativeBatchNormBackward0",
            NnNode::Conv { .. } => "ConvolutionBackward0",
            NnNode::MaxPool2d { .. } => "MaxPool2DWithIndicesBackward0",
            NnNode::AvgPool2d { .. } => "AvgPool2DBackward0",
            NnNode::AdaptiveAvgPool2d { .. } => "AdaptiveAvgPool2DBackward0",
            NnNode::Upsample { name, .. } => name,
            NnNode::Embedding { .. } => "EmbeddingBackward0",
            NnNode::Dropout { .. } => "NativeDropoutBackward0",
            NnNode::ConstantPad { .. } => "ConstantPadNdBackward0",
            NnNode::MappedPad { name, .. } => name,
            NnNode::BackwardOf { name, .. } => name,
            NnNode::ConvBackward { .. } => "ConvolutionBackwardBackward0",
        }
    }

    /// The saved tensors by their torch attribute names.
    pub fn saved_tensors(&self) -> Vec<(&'static str, &SavedTensor)> {
        match self {
            NnNode::Act { self_, .. } => vec![("self", self_)],
            NnNode::PointLoss { self_, target, .. } => vec![("self", self_), ("target", target)],
            NnNode::NllLoss { self_, .. } => vec![("self", self_)],
            NnNode::Bce { input, .. } => vec![("self", input)],
            NnNode::RowNorm { input, weight, .. } | NnNode::BatchNorm { input, weight, .. } => {
                let mut v = vec![("input", input)];
                if let Some(w) = weight {
                    v.push(("weight", w));
                }
                v
            }
            NnNode::Conv { input, weight, .. } => vec![("input", input), ("weight", weight)],
            NnNode::ConvBackward {
                grad,
                input,
                weight,
                ..
            } => vec![("grad_output", grad), ("input", input), ("weight", weight)],
            _ => Vec::new(),
        }
    }

    /// Take out everything the node saved (after backward without `retain_graph`).
    pub fn release(&mut self) -> Vec<SavedTensor> {
        let mut out = Vec::new();
        let mut take = |s: &mut SavedTensor| {
            if !matches!(s, SavedTensor::None) {
                out.push(std::mem::replace(s, SavedTensor::Released));
            }
        };
        match self {
            NnNode::Act { self_, .. } | NnNode::NllLoss { self_, .. } => take(self_),
            NnNode::Bce { input, .. } => take(input),
            NnNode::PointLoss { self_, target, .. } => {
                take(self_);
                take(target);
            }
            NnNode::RowNorm { input, weight, .. } | NnNode::BatchNorm { input, weight, .. } => {
                take(input);
                if let Some(w) = weight {
                    take(w);
                }
            }
            NnNode::Conv { input, weight, .. } => {
                take(input);
                take(weight);
            }
            NnNode::ConvBackward {
                grad,
                input,
                weight,
                ..
            } => {
                take(grad);
                take(input);
                take(weight);
            }
            _ => {}
        }
        out
    }

    /// The gradients of the inputs (one per edge of `node`) from the gradient `grads[0]`.
    pub fn apply(&self, node: &Arc<Node>, grads: &[Option<Tensor>]) -> Result<Vec<Option<Tensor>>> {
        let n = Some(node);
        let edges = node.next_edges().len();
        let needs = |i: usize| node.next_edges().get(i).is_some_and(|e| e.is_some());
        if let NnNode::ConvBackward {
            grad,
            input,
            weight,
            params,
            outs,
        } = self
        {
            // Several outputs: any of their gradients may be the only one given.
            return conv_double_backward(
                (grad.unpack(n)?, input.unpack(n)?, weight.unpack(n)?),
                params,
                outs,
                grads,
                [needs(0), needs(1), needs(2)],
            );
        }
        let Some(g) = grads.first().and_then(|g| g.as_ref()) else {
            return Ok(vec![None; edges]);
        };
        Ok(match self {
            NnNode::Act { act, self_, .. } => {
                let x = self_.unpack(n)?;
                if create_graph(&[g, &x]) && matches!(act, Activation::Hardsigmoid) {
                    // torch has no formula for `hardsigmoid_backward`: its result records
                    // torch's NotImplemented node, whose backward raises.
                    let gx = bw::activation_backward(*act, g, &x)?;
                    record_not_implemented("hardsigmoid_backward", &[g, &x], &[&gx]);
                    vec![Some(gx)]
                } else if create_graph(&[g, &x]) {
                    vec![Some(activation_backward_recorded(*act, g, &x)?)]
                } else {
                    vec![Some(bw::activation_backward(*act, g, &x)?)]
                }
            }
            NnNode::PointLoss {
                loss,
                reduction,
                self_,
                target,
                ..
            } => {
                let (x, t) = (self_.unpack(n)?, target.unpack(n)?);
                let recorded = create_graph(&[g, &x, &t]);
                let gx = if recorded {
                    point_loss_backward_recorded(*loss, g, &x, &t, *reduction)?
                } else {
                    bw::pointwise_loss_backward(*loss, g, &x, &t, *reduction)?
                };
                let gt = match (needs(1), recorded) {
                    (false, _) => None,
                    (true, true) => Some(vt::neg(&gx)?),
                    (true, false) => Some(ops::neg(&gx)?),
                };
                vec![if needs(0) { Some(gx) } else { None }, gt]
            }
            NnNode::Bce {
                logits,
                input,
                target,
                weight,
                pos_weight,
                reduction,
            } => {
                // Composed of recorded ops (so create_graph records it), as torch's
                // `binary_cross_entropy_backward` / `binary_cross_entropy_with_logits_backward`
                // and their `_target_backward`s.
                let x = input.unpack(n)?;
                let one = Tensor::wrapped_scalar(Scalar::Int(1))?;
                let weigh = |mut t: Tensor| -> Result<Tensor> {
                    t = vt::mul(&t, g)?;
                    if let Some(w) = weight {
                        t = vt::mul(&t, w)?;
                    }
                    mean_scale(t, *reduction)
                };
                let gi = if needs(0) {
                    let d = if *logits {
                        let s = vt::sigmoid(&x)?;
                        match pos_weight {
                            Some(pw) => {
                                let tp = vt::mul(pw, target)?;
                                let c = vt::sub(
                                    &vt::add(&tp, &one, Scalar::Int(1))?,
                                    target,
                                    Scalar::Int(1),
                                )?;
                                vt::sub(&vt::mul(&c, &s)?, &tp, Scalar::Int(1))?
                            }
                            None => vt::sub(&s, target, Scalar::Int(1))?,
                        }
                    } else {
                        let p = vt::mul(&vt::sub(&one, &x, Scalar::Int(1))?, &x)?;
                        let p = vt::clamp(&p, Some(Scalar::Float(1e-12)), None)?;
                        vt::div(&vt::sub(&x, target, Scalar::Int(1))?, &p, None)?
                    };
                    Some(weigh(d)?)
                } else {
                    None
                };
                let gt = if needs(1) {
                    let d = if *logits {
                        match pos_weight {
                            // log_sigmoid(-x) - log_sigmoid(x) * pos_weight, with
                            // log_sigmoid(v) = -softplus(-v).
                            Some(pw) => {
                                let sp =
                                    |v: &Tensor| vt::softplus(v, Scalar::Int(1), Scalar::Int(20));
                                let ls_neg = vt::neg(&sp(&x)?)?;
                                let ls_pos = vt::neg(&sp(&vt::neg(&x)?)?)?;
                                vt::sub(&ls_neg, &vt::mul(&ls_pos, pw)?, Scalar::Int(1))?
                            }
                            None => vt::neg(&x)?,
                        }
                    } else {
                        // -logit(x) = log(1 - x) - log(x)
                        vt::sub(
                            &vt::log(&vt::sub(&one, &x, Scalar::Int(1))?)?,
                            &vt::log(&x)?,
                            Scalar::Int(1),
                        )?
                    };
                    Some(weigh(d)?)
                } else {
                    None
                };
                vec![gi, gt]
            }
            NnNode::KlDiv {
                target,
                reduction,
                log_target,
            } => {
                let t = if *log_target {
                    vt::exp(target)?
                } else {
                    target.clone()
                };
                let gi = vt::neg(&vt::mul(&t, g)?)?;
                vec![Some(mean_scale(gi, *reduction)?)]
            }
            NnNode::NllLoss {
                self_,
                target,
                weight,
                reduction,
                ignore_index,
                total_weight,
            } => {
                let x = self_.unpack(n)?;
                let gi = bw::nll_loss_backward(
                    g,
                    &x,
                    target,
                    weight.as_ref(),
                    *reduction,
                    *ignore_index,
                    *total_weight,
                )?;
                vec![Some(self.linear_result(
                    gi,
                    g,
                    "NllLossBackwardBackward0",
                )?)]
            }
            NnNode::RowNorm {
                kind,
                rows,
                len,
                eps,
                input,
                weight,
                bias_sizes,
                ..
            } => {
                let x = input.unpack(n)?;
                let w = weight.as_ref().map(|w| w.unpack(n)).transpose()?;
                let wi = usize::from(w.is_some());
                let need_w = w.is_some() && needs(1);
                let need_b = bias_sizes.is_some() && needs(1 + wi);
                let mut all = vec![g, &x];
                all.extend(w.as_ref());
                let recorded = create_graph(&all);
                let (dx, dw, db) = if recorded {
                    norm_backward_recorded(
                        *kind,
                        g,
                        &x,
                        w.as_ref(),
                        (*rows, *len),
                        *eps,
                        need_w,
                        need_b,
                    )?
                } else {
                    bw::norm_rows_backward(
                        *kind,
                        g,
                        &x,
                        w.as_ref(),
                        *rows,
                        *len,
                        *eps,
                        need_w,
                        need_b,
                    )?
                };
                let reshape = |d: Tensor, shape: &[i64]| {
                    if recorded {
                        vt::reshape(&d, shape)
                    } else {
                        ops::reshape(&d, shape)
                    }
                };
                let mut v = vec![Some(dx)];
                if let Some(w) = &w {
                    v.push(dw.map(|d| reshape(d, &shape_of(w))).transpose()?);
                }
                if let Some(bs) = bias_sizes {
                    v.push(db.map(|d| reshape(d, &shape_of_sizes(bs))).transpose()?);
                }
                v
            }
            NnNode::BatchNorm {
                input,
                weight,
                has_bias,
                running,
                eps,
            } => {
                let x = input.unpack(n)?;
                let w = weight.as_ref().map(|w| w.unpack(n)).transpose()?;
                let wi = usize::from(w.is_some());
                let mut all = vec![g, &x];
                all.extend(w.as_ref());
                let running = running.as_ref().map(|(m, s)| (m.as_slice(), s.as_slice()));
                let (need_w, need_b) = (w.is_some() && needs(1), *has_bias && needs(1 + wi));
                let (dx, dw, db) = if create_graph(&all) {
                    let c = x.sizes()[1];
                    let kind = RowNorm::Group {
                        channels: c,
                        groups: c,
                        hw: x.numel() / x.sizes()[0].max(1) / c.max(1),
                    };
                    batch_norm_backward_recorded(
                        kind,
                        g,
                        &x,
                        w.as_ref(),
                        running,
                        *eps,
                        need_w,
                        need_b,
                    )?
                } else {
                    bw::batch_norm_backward(g, &x, w.as_ref(), running, *eps, need_w, need_b)?
                };
                let mut v = vec![Some(dx)];
                if w.is_some() {
                    v.push(dw);
                }
                if *has_bias {
                    v.push(db);
                }
                v
            }
            NnNode::Conv {
                input,
                weight,
                has_bias,
                params,
            } => {
                let (x, w) = (input.unpack(n)?, weight.unpack(n)?);
                let (gi, gw, gb) = bw::convolution_backward(
                    g,
                    &x,
                    &w,
                    params,
                    [needs(0), needs(1), *has_bias && needs(2)],
                )?;
                if create_graph(&[g, &x, &w]) {
                    record_conv_backward(g, &x, &w, params, [&gi, &gw, &gb])?;
                }
                let mut v = vec![gi, gw];
                if *has_bias {
                    v.push(gb);
                }
                v
            }
            NnNode::AvgPool2d {
                self_sizes,
                kernel_size,
                stride,
                padding,
                ceil_mode,
                count_include_pad,
                divisor_override,
            } => {
                let gi = bw::avg_pool2d_backward(
                    g,
                    self_sizes,
                    kernel_size,
                    stride,
                    padding,
                    *ceil_mode,
                    *count_include_pad,
                    *divisor_override,
                )?;
                vec![Some(self.linear_result(
                    gi,
                    g,
                    "AvgPool2DBackwardBackward0",
                )?)]
            }
            NnNode::Upsample {
                kernel,
                self_sizes,
                taps,
                ..
            } => {
                let (th, tw) = &**taps;
                let gi = ops::nn::upsample::resample_backward(kernel, g, self_sizes, th, tw)?;
                vec![Some(self.linear_result(
                    gi,
                    g,
                    "UpsampleBackwardBackward0",
                )?)]
            }
            NnNode::AdaptiveAvgPool2d { self_sizes } => {
                let gi = bw::adaptive_avg_pool2d_backward(g, self_sizes)?;
                vec![Some(self.linear_result(
                    gi,
                    g,
                    "AdaptiveAvgPool2DBackwardBackward0",
                )?)]
            }
            NnNode::MaxPool2d {
                self_sizes,
                indices,
            } => {
                let gi = bw::max_pool2d_backward(g, self_sizes, indices)?;
                vec![Some(self.linear_result(
                    gi,
                    g,
                    "MaxPool2DWithIndicesBackwardBackward0",
                )?)]
            }
            NnNode::Embedding {
                num_weights,
                indices,
                padding_idx,
                scale_grad_by_freq,
            } => {
                let gw = bw::embedding_backward(
                    g,
                    indices,
                    *num_weights,
                    *padding_idx,
                    *scale_grad_by_freq,
                )?;
                vec![Some(self.linear_result(
                    gw,
                    g,
                    "EmbeddingDenseBackwardBackward0",
                )?)]
            }
            NnNode::Dropout { mask } => vec![Some(vt::mul(g, mask)?)],
            NnNode::ConstantPad { pad: pads } => {
                let neg: Vec<i64> = pads.iter().map(|&p| -p).collect();
                vec![Some(pad(g, &neg, "constant", None)?)]
            }
            NnNode::BackwardOf { of, out_sizes, .. } => {
                vec![Some(of.linear_forward(g, out_sizes)?)]
            }
            // Applied above (before the first gradient is required).
            NnNode::ConvBackward { .. } => vec![None; edges],
            NnNode::MappedPad {
                self_sizes, map, ..
            } => {
                let numel: usize = self_sizes.iter().product();
                let z = ops::zeros(&[numel as i64], Some(g.dtype()))?;
                let flat = vt::reshape(g, &[-1])?;
                let sum = vt::index_add(&z, 0, &ops::reshape(map, &[-1])?, &flat, Scalar::Int(1))?;
                vec![Some(vt::reshape(&sum, &shape_of_sizes(self_sizes))?)]
            }
        })
    }
}

impl NnNode {
    /// `gi`, a backward kernel's result linear in the gradient `g`, with a `BackwardOf` node
    /// as its history when `g` requires grad under `create_graph` (Note [nn double backward]).
    fn linear_result(&self, gi: Tensor, g: &Tensor, name: &'static str) -> Result<Tensor> {
        if !create_graph(&[g]) {
            return Ok(gi);
        }
        let Some(of) = self.linear_clone() else {
            return Ok(gi);
        };
        record(
            &gi,
            &[g],
            NnNode::BackwardOf {
                name,
                of: Box::new(of),
                out_sizes: g.sizes().into(),
            },
        );
        Ok(gi)
    }

    /// A copy of the data of a node whose backward is linear in the gradient (those
    /// `linear_forward` knows), else None.
    fn linear_clone(&self) -> Option<NnNode> {
        Some(match self {
            NnNode::AvgPool2d {
                self_sizes,
                kernel_size,
                stride,
                padding,
                ceil_mode,
                count_include_pad,
                divisor_override,
            } => NnNode::AvgPool2d {
                self_sizes: self_sizes.clone(),
                kernel_size: kernel_size.clone(),
                stride: stride.clone(),
                padding: padding.clone(),
                ceil_mode: *ceil_mode,
                count_include_pad: *count_include_pad,
                divisor_override: *divisor_override,
            },
            NnNode::AdaptiveAvgPool2d { self_sizes } => NnNode::AdaptiveAvgPool2d {
                self_sizes: self_sizes.clone(),
            },
            NnNode::MaxPool2d {
                self_sizes,
                indices,
            } => NnNode::MaxPool2d {
                self_sizes: self_sizes.clone(),
                indices: indices.clone(),
            },
            NnNode::Upsample {
                name,
                kernel,
                self_sizes,
                taps,
            } => NnNode::Upsample {
                name,
                kernel,
                self_sizes: self_sizes.clone(),
                taps: taps.clone(),
            },
            NnNode::Embedding {
                num_weights,
                indices,
                padding_idx,
                scale_grad_by_freq,
            } => NnNode::Embedding {
                num_weights: *num_weights,
                indices: indices.clone(),
                padding_idx: *padding_idx,
                scale_grad_by_freq: *scale_grad_by_freq,
            },
            NnNode::NllLoss {
                target,
                weight,
                reduction,
                ignore_index,
                total_weight,
                ..
            } => NnNode::NllLoss {
                self_: SavedTensor::None,
                target: target.clone(),
                weight: weight.clone(),
                reduction: *reduction,
                ignore_index: *ignore_index,
                total_weight: *total_weight,
            },
            _ => return None,
        })
    }

    /// The forward of a node whose backward is linear in the gradient, applied to `t` (of the
    /// op's input's shape) through the recording wrappers: the adjoint of that backward, torch's
    /// `*_double_backward` for the gradient. `out_sizes` is the forward's output shape.
    fn linear_forward(&self, t: &Tensor, out_sizes: &[usize]) -> Result<Tensor> {
        match self {
            NnNode::AvgPool2d {
                kernel_size,
                stride,
                padding,
                ceil_mode,
                count_include_pad,
                divisor_override,
                ..
            } => avg_pool2d(
                t,
                kernel_size,
                stride,
                padding,
                *ceil_mode,
                *count_include_pad,
                *divisor_override,
            ),
            NnNode::AdaptiveAvgPool2d { .. } => {
                let nd = out_sizes.len();
                adaptive_avg_pool2d(t, &shape_of_sizes(&out_sizes[nd - 2..]))
            }
            NnNode::MaxPool2d {
                self_sizes,
                indices,
            } => {
                // max_pool_double_backward: the gradient at each chosen element.
                let nd = self_sizes.len();
                let plane = (self_sizes[nd - 2] * self_sizes[nd - 1]) as i64;
                let flat = vt::reshape(t, &[-1, plane])?;
                let idx = ops::reshape(indices, &[flat.sizes()[0] as i64, -1])?;
                vt::reshape(&vt::gather(&flat, 1, &idx)?, &shape_of(indices))
            }
            NnNode::Upsample {
                name, kernel, taps, ..
            } => {
                let (th, tw) = &**taps;
                let out = ops::nn::upsample::resample(kernel, t, th, tw)?;
                if !vt::should_record(&[t]) {
                    return Ok(out);
                }
                Ok(record_upsample(out, t, name, kernel, (**taps).clone()))
            }
            NnNode::Embedding {
                indices,
                padding_idx,
                ..
            } => {
                // embedding_dense_double_backward: the rows at the indices, zero at padding_idx.
                let rows = vt::index_select(t, 0, &ops::reshape(indices, &[-1])?)?;
                let rows = if *padding_idx >= 0 {
                    let pad = Tensor::wrapped_scalar(Scalar::Int(*padding_idx))?;
                    let mask = ops::eq(&ops::reshape(indices, &[-1, 1])?, &pad)?;
                    vt::masked_fill(&rows, &mask, Scalar::Int(0))?
                } else {
                    rows
                };
                let mut shape = shape_of(indices);
                shape.push(t.sizes()[1] as i64);
                vt::reshape(&rows, &shape)
            }
            NnNode::NllLoss {
                target,
                weight,
                reduction,
                ignore_index,
                ..
            } => nll_loss_nd(t, target, weight.as_ref(), *reduction, *ignore_index),
            _ => Err(Error::runtime(format!(
                "{}: internal error: not a linear backward",
                self.name()
            ))),
        }
    }
}

/// True when a node's backward must be recorded: grad mode is on while it runs
/// (`create_graph`) and one of `ts` requires grad.
fn create_graph(ts: &[&Tensor]) -> bool {
    super::is_grad_enabled() && ts.iter().any(|t| t.requires_grad())
}

/// A 0-dim wrapped number (it keeps the other operand's float dtype).
fn num(v: f64) -> Result<Tensor> {
    Tensor::wrapped_scalar(Scalar::Float(v))
}

/// `a > b` elementwise (not differentiable: a mask).
fn above(a: &Tensor, b: f64) -> Result<Tensor> {
    ops::gt(a, &num(b)?)
}

/// `a < b` elementwise (a mask).
fn below(a: &Tensor, b: f64) -> Result<Tensor> {
    ops::gt(&num(b)?, a)
}

/// `g * f'(x)` of an activation in recorded ops: [`bw::activation_backward`]'s formulas
/// (torch's `cpu/Activation.cpp`), differentiable in `g` and `x` (Note [nn double backward]).
fn activation_backward_recorded(act: Activation, g: &Tensor, x: &Tensor) -> Result<Tensor> {
    let zero = num(0.0)?;
    let scaled = |t: &Tensor, v: f64| -> Result<Tensor> { vt::mul(t, &num(v)?) };
    let one_minus = |t: &Tensor| -> Result<Tensor> { vt::sub(&num(1.0)?, t, Scalar::Int(1)) };
    match act {
        Activation::LeakyRelu { negative_slope } => {
            vt::where_(&above(x, 0.0)?, g, &scaled(g, negative_slope)?)
        }
        Activation::Elu {
            alpha,
            scale,
            input_scale,
        } => {
            // The exponential of the clamped input: the unselected branch stays finite.
            let e = vt::exp(&scaled(
                &vt::clamp(x, None, Some(Scalar::Int(0)))?,
                input_scale,
            )?)?;
            let neg = vt::mul(g, &scaled(&e, input_scale * alpha * scale)?)?;
            vt::where_(&above(x, 0.0)?, &scaled(g, scale)?, &neg)
        }
        Activation::Gelu { tanh: false } => {
            // Phi(x) + x phi(x)
            let cdf = scaled(
                &vt::add(
                    &vt::erf(&scaled(x, std::f64::consts::FRAC_1_SQRT_2)?)?,
                    &num(1.0)?,
                    Scalar::Int(1),
                )?,
                0.5,
            )?;
            let k = 0.5 * std::f64::consts::FRAC_2_SQRT_PI * std::f64::consts::FRAC_1_SQRT_2;
            let pdf = scaled(&vt::exp(&scaled(&vt::square(x)?, -0.5)?)?, k)?;
            vt::mul(g, &vt::add(&cdf, &vt::mul(x, &pdf)?, Scalar::Int(1))?)
        }
        Activation::Gelu { tanh: true } => {
            let beta = std::f64::consts::SQRT_2 * std::f64::consts::FRAC_2_SQRT_PI * 0.5;
            let kappa = 0.044715;
            let x_sq = vt::square(x)?;
            let inner = scaled(
                &vt::add(x, &scaled(&vt::mul(&x_sq, x)?, kappa)?, Scalar::Int(1))?,
                beta,
            )?;
            let t = vt::tanh(&inner)?;
            let left_d = scaled(&vt::add(&t, &num(1.0)?, Scalar::Int(1))?, 0.5)?;
            let poly = vt::add(&scaled(&x_sq, 3.0 * kappa)?, &num(1.0)?, Scalar::Int(1))?;
            let right_d = vt::mul(
                &vt::mul(&scaled(x, 0.5 * beta)?, &one_minus(&vt::square(&t)?)?)?,
                &poly,
            )?;
            vt::mul(g, &vt::add(&left_d, &right_d, Scalar::Int(1))?)
        }
        Activation::Silu => {
            let s = vt::sigmoid(x)?;
            let inner = vt::add(&vt::mul(x, &one_minus(&s)?)?, &num(1.0)?, Scalar::Int(1))?;
            vt::mul(g, &vt::mul(&s, &inner)?)
        }
        Activation::Mish => {
            let s = vt::sigmoid(x)?;
            let t = vt::tanh(&softplus(x, Scalar::Int(1), Scalar::Int(20))?)?;
            let d = vt::add(
                &t,
                &vt::mul(&vt::mul(x, &s)?, &one_minus(&vt::square(&t)?)?)?,
                Scalar::Int(1),
            )?;
            vt::mul(g, &d)
        }
        Activation::Softplus { beta, threshold } => {
            let z = vt::sigmoid(&scaled(x, beta)?)?;
            let linear = ops::gt(&ops::mul(x, &num(beta)?)?, &num(threshold)?)?;
            vt::where_(&linear, g, &vt::mul(g, &z)?)
        }
        Activation::Hardtanh { min_val, max_val } => vt::where_(
            &above(x, min_val)?,
            &vt::where_(&below(x, max_val)?, g, &zero)?,
            &zero,
        ),
        Activation::Hardsigmoid => {
            let sixth = (1.0f32 / 6.0f32) as f64;
            vt::where_(
                &above(x, -3.0)?,
                &vt::where_(&below(x, 3.0)?, &scaled(g, sixth)?, &zero)?,
                &zero,
            )
        }
        Activation::Hardswish => {
            let mid = vt::mul(
                g,
                &vt::add(&scaled(x, 1.0 / 3.0)?, &num(0.5)?, Scalar::Int(1))?,
            )?;
            vt::where_(
                &above(x, -3.0)?,
                &vt::where_(&below(x, 3.0)?, &mid, g)?,
                &zero,
            )
        }
        Activation::LogSigmoid => vt::mul(g, &vt::sigmoid(&vt::neg(x)?)?),
        Activation::Threshold { threshold } => vt::where_(&above(x, threshold)?, g, &zero),
    }
}

/// The input gradient of a pointwise loss in recorded ops (torch's `*_loss_backward`
/// formulas), differentiable in `g`, `x` and `t` (Note [nn double backward]).
fn point_loss_backward_recorded(
    loss: PointLoss,
    g: &Tensor,
    x: &Tensor,
    t: &Tensor,
    reduction: i64,
) -> Result<Tensor> {
    let d = vt::sub(x, t, Scalar::Int(1))?;
    let deriv = match loss {
        PointLoss::Mse => vt::mul(&d, &num(2.0)?)?,
        PointLoss::L1 => vt::sgn(&d)?,
        PointLoss::SmoothL1 { beta: 0.0 } => vt::sgn(&d)?,
        PointLoss::SmoothL1 { beta } => vt::clamp(
            &vt::div(&d, &num(beta)?, None)?,
            Some(Scalar::Int(-1)),
            Some(Scalar::Int(1)),
        )?,
        PointLoss::Huber { delta } => {
            vt::clamp(&d, Some(Scalar::Float(-delta)), Some(Scalar::Float(delta)))?
        }
    };
    let gx = vt::mul(&deriv, g)?;
    // A reduced loss: the gradient broadcast to the input's shape, then scaled for the mean.
    let gx = if gx.sizes() == x.sizes() {
        gx
    } else {
        vt::expand(&gx, &shape_of(x))?
    };
    mean_scale(gx, reduction)
}

/// The gradients `(input, weight, bias)` of a row normalisation in recorded ops (Note [nn
/// double backward]): the statistics recomputed from `x` with recorded ops, then torch's
/// formula `rstd * (g' - mean(g') - xhat * mean(g' xhat))` (`g'` the gradient of `xhat`;
/// without the mean term for rms_norm). `rows` rows of `len` elements as in
/// [`bw::norm_rows_backward`].
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
fn norm_backward_recorded(
    kind: RowNorm,
    g: &Tensor,
    x: &Tensor,
    w: Option<&Tensor>,
    (rows, len): (usize, usize),
    eps: f64,
    need_w: bool,
    need_b: bool,
) -> Result<(Tensor, Option<Tensor>, Option<Tensor>)> {
    let (rows, len) = (rows as i64, len as i64);
    let xr = vt::reshape(x, &[rows, len])?;
    let mean_cols = |t: &Tensor| vt::mean(t, Some(&[1]), true, None);
    let (xhat, rstd) = if kind == RowNorm::Rms {
        let rstd = vt::rsqrt(&vt::add(
            &mean_cols(&vt::square(&xr)?)?,
            &num(eps)?,
            Scalar::Int(1),
        )?)?;
        (vt::mul(&xr, &rstd)?, rstd)
    } else {
        let xc = vt::sub(&xr, &mean_cols(&xr)?, Scalar::Int(1))?;
        let rstd = vt::rsqrt(&vt::add(
            &mean_cols(&vt::square(&xc)?)?,
            &num(eps)?,
            Scalar::Int(1),
        )?)?;
        (vt::mul(&xc, &rstd)?, rstd)
    };
    // The affine index's view: the columns (layer, rms) or the channels of (N, C, HxW).
    let (affine_view, sum_dims): (Vec<i64>, Vec<i64>) = match kind {
        RowNorm::Group { channels, hw, .. } => (vec![-1, channels as i64, hw as i64], vec![0, 2]),
        _ => (vec![rows, len], vec![0]),
    };
    let g_aff = vt::reshape(g, &affine_view)?;
    let gxhat = match w {
        Some(w) => {
            let wshape: Vec<i64> = match kind {
                RowNorm::Group { channels, .. } => vec![1, channels as i64, 1],
                _ => vec![1, len],
            };
            vt::mul(&g_aff, &vt::reshape(w, &wshape)?)?
        }
        None => g_aff.clone(),
    };
    let gxhat = vt::reshape(&gxhat, &[rows, len])?;
    let proj = mean_cols(&vt::mul(&gxhat, &xhat)?)?;
    let mut inner = vt::sub(&gxhat, &vt::mul(&xhat, &proj)?, Scalar::Int(1))?;
    if kind != RowNorm::Rms {
        inner = vt::sub(&inner, &mean_cols(&gxhat)?, Scalar::Int(1))?;
    }
    let dx = vt::reshape(&vt::mul(&rstd, &inner)?, &shape_of(x))?;
    let dw = if need_w {
        let xhat_aff = vt::reshape(&xhat, &affine_view)?;
        Some(vt::sum(
            &vt::mul(&g_aff, &xhat_aff)?,
            Some(&sum_dims),
            false,
            None,
        )?)
    } else {
        None
    };
    let db = if need_b {
        Some(vt::sum(&g_aff, Some(&sum_dims), false, None)?)
    } else {
        None
    };
    Ok((dx, dw, db))
}

/// `batch_norm`'s gradients in recorded ops (Note [nn double backward]): in training the row
/// normalisation of each channel over `(N, *)` (`kind` a group norm of one channel per
/// group, over the channel-major copy), in evaluation the affine map of the running
/// statistics `(mean, invstd)`.
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
fn batch_norm_backward_recorded(
    kind: RowNorm,
    g: &Tensor,
    x: &Tensor,
    w: Option<&Tensor>,
    running: Option<(&[f64], &[f64])>,
    eps: f64,
    need_w: bool,
    need_b: bool,
) -> Result<(Tensor, Option<Tensor>, Option<Tensor>)> {
    let RowNorm::Group {
        channels: c, hw, ..
    } = kind
    else {
        return Err(Error::runtime(
            "batch_norm: internal error: not a channel layout",
        ));
    };
    let n = x.sizes()[0] as i64;
    let (c, s) = (c as i64, hw as i64);
    // (N, C, S) -> (C, N * S): each channel a row.
    let rows_of = |t: &Tensor| -> Result<Tensor> {
        let t = vt::reshape(t, &[n, c, s])?;
        vt::reshape(&vt::contiguous(&vt::transpose(&t, 0, 1)?)?, &[c, n * s])
    };
    let back = |t: &Tensor| -> Result<Tensor> {
        let t = vt::reshape(t, &[c, n, s])?;
        vt::reshape(&vt::contiguous(&vt::transpose(&t, 0, 1)?)?, &shape_of(x))
    };
    let (gr, xr) = (rows_of(g)?, rows_of(x)?);
    match running {
        None => {
            // The weight scales the gradient of xhat.
            let gs = match w {
                Some(w) => vt::mul(&gr, &vt::reshape(w, &[c, 1])?)?,
                None => gr.clone(),
            };
            let (dx, _, _) = norm_backward_recorded(
                RowNorm::Layer,
                &gs,
                &xr,
                None,
                (c as usize, (n * s) as usize),
                eps,
                false,
                false,
            )?;
            let dw = if need_w {
                let m = vt::mean(&xr, Some(&[1]), true, None)?;
                let xc = vt::sub(&xr, &m, Scalar::Int(1))?;
                let var = vt::mean(&vt::square(&xc)?, Some(&[1]), true, None)?;
                let xhat = vt::mul(
                    &xc,
                    &vt::rsqrt(&vt::add(&var, &num(eps)?, Scalar::Int(1))?)?,
                )?;
                Some(vt::sum(&vt::mul(&gr, &xhat)?, Some(&[1]), false, None)?)
            } else {
                None
            };
            let db = if need_b {
                Some(vt::sum(&gr, Some(&[1]), false, None)?)
            } else {
                None
            };
            Ok((back(&dx)?, dw, db))
        }
        Some((mean, invstd)) => {
            let col = |v: &[f64]| -> Result<Tensor> {
                ops::reshape(
                    &Tensor::from_vec(v.to_vec(), &[v.len()])?.to_dtype(x.dtype())?,
                    &[c, 1],
                )
            };
            let (m, is) = (col(mean)?, col(invstd)?);
            let scale = match w {
                Some(w) => vt::mul(&vt::reshape(w, &[c, 1])?, &is)?,
                None => is.clone(),
            };
            let dx = back(&vt::mul(&gr, &scale)?)?;
            let xhat = vt::mul(&vt::sub(&xr, &m, Scalar::Int(1))?, &is)?;
            let dw = if need_w {
                Some(vt::sum(&vt::mul(&gr, &xhat)?, Some(&[1]), false, None)?)
            } else {
                None
            };
            let db = if need_b {
                Some(vt::sum(&gr, Some(&[1]), false, None)?)
            } else {
                None
            };
            Ok((dx, dw, db))
        }
    }
}

/// Records a `ConvBackward` node over `(g, x, w)` as the history of the results `res` (input,
/// weight, bias gradients, those computed) of `convolution_backward` (Note [nn double
/// backward]).
fn record_conv_backward(
    g: &Tensor,
    x: &Tensor,
    w: &Tensor,
    params: &ConvParams,
    res: [&Option<Tensor>; 3],
) -> Result<()> {
    let outs: Vec<(u8, &Tensor)> = res
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.as_ref().map(|t| (i as u8, t)))
        .filter(|(_, t)| t.dtype().is_floating_point())
        .collect();
    if outs.is_empty() {
        return Ok(());
    }
    let kind = NnNode::ConvBackward {
        grad: SavedTensor::input(g)?,
        input: SavedTensor::input(x)?,
        weight: SavedTensor::input(w)?,
        params: params.clone(),
        outs: outs.iter().map(|(i, _)| *i).collect(),
    };
    let tensors: Vec<&Tensor> = outs.iter().map(|(_, t)| *t).collect();
    let node = Node::new(
        NodeKind::Nn(Box::new(kind)),
        vt::collect_edges(&[g, x, w]),
        &tensors,
    );
    for (nr, t) in tensors.iter().enumerate() {
        t.set_grad_fn(node.clone(), nr as u32);
    }
    Ok(())
}

/// torch's `_convolution_double_backward` for `y = conv(x, w) + b` (bilinear in `x` and `w`):
/// from the gradients `ggi`, `ggw`, `ggb` of the first backward's results, the gradients of
/// `(grad, input, weight)`: `conv(ggi, w) + conv(x, ggw) + ggb`, the input gradient of
/// `conv(., ggw)` at `grad`, and the weight gradient of `conv(ggi, .)` at `grad`. Computed with
/// the kernels: a third order raises NotImplementedError.
fn conv_double_backward(
    (g, x, w): (Tensor, Tensor, Tensor),
    params: &ConvParams,
    outs: &[u8],
    grads: &[Option<Tensor>],
    needs: [bool; 3],
) -> Result<Vec<Option<Tensor>>> {
    let mut gg: [Option<&Tensor>; 3] = [None; 3];
    for (&k, gr) in outs.iter().zip(grads) {
        gg[k as usize] = gr.as_ref();
    }
    let [ggi, ggw, ggb] = gg;
    let mut all = vec![&g, &x, &w];
    all.extend(gg.iter().flatten());
    if create_graph(&all) {
        return Err(vt::not_implemented("_convolution_double_backward"));
    }
    let sp = x.dim() - 2;
    // The transposed convolution's output padding: what the output has beyond the size its
    // other parameters give.
    let output_padding: Vec<i64> = if params.transposed {
        let at = |v: &[i64], a: usize| if v.len() == 1 { v[0] } else { v[a] };
        (0..sp)
            .map(|a| {
                let base = (x.sizes()[2 + a] as i64 - 1) * at(&params.stride, a)
                    - 2 * at(&params.padding, a)
                    + at(&params.dilation, a) * (w.sizes()[2 + a] as i64 - 1)
                    + 1;
                g.sizes()[2 + a] as i64 - base
            })
            .collect()
    } else {
        vec![0]
    };
    let conv = |a: &Tensor, b: &Tensor| {
        ops::convolution(
            a,
            b,
            None,
            &params.stride,
            &params.padding,
            &params.dilation,
            params.transposed,
            &output_padding,
            params.groups,
        )
    };
    let dg = if needs[0] {
        let mut acc: Option<Tensor> = None;
        let mut add = |t: Tensor| -> Result<()> {
            acc = Some(match acc.take() {
                None => t,
                Some(a) => ops::add(&a, &t, Scalar::Int(1))?,
            });
            Ok(())
        };
        if let Some(ggi) = ggi {
            add(conv(ggi, &w)?)?;
        }
        if let Some(ggw) = ggw {
            add(conv(&x, ggw)?)?;
        }
        if let Some(ggb) = ggb {
            let mut shape = vec![1i64, ggb.numel() as i64];
            shape.extend(std::iter::repeat_n(1, sp));
            add(ops::expand(&ops::reshape(ggb, &shape)?, &shape_of(&g))?)?;
        }
        acc
    } else {
        None
    };
    let dx = match (needs[1], ggw) {
        (true, Some(ggw)) => bw::convolution_backward(&g, &x, ggw, params, [true, false, false])?.0,
        _ => None,
    };
    let dw = match (needs[2], ggi) {
        (true, Some(ggi)) => bw::convolution_backward(&g, ggi, &w, params, [false, true, false])?.1,
        _ => None,
    };
    Ok(vec![dg, dx, dw])
}

/// `g` divided by its number of elements for the mean reduction (1).
fn mean_scale(g: Tensor, reduction: i64) -> Result<Tensor> {
    if reduction == 1 && g.numel() > 0 {
        let n = Tensor::wrapped_scalar(Scalar::Int(g.numel() as i64))?;
        return vt::div(&g, &n, None);
    }
    Ok(g)
}

fn shape_of(t: &Tensor) -> Vec<i64> {
    shape_of_sizes(t.sizes())
}

fn shape_of_sizes(s: &[usize]) -> Vec<i64> {
    s.iter().map(|&s| s as i64).collect()
}

// ---- recording ----------------------------------------------------------------------------

/// Make the nn node `kind` over `inputs` as `out`'s history (float outputs only).
fn record(out: &Tensor, inputs: &[&Tensor], kind: NnNode) {
    if !out.dtype().is_floating_point() {
        return;
    }
    let edges: Vec<Option<Edge>> = vt::collect_edges(inputs);
    let node = Node::new(NodeKind::Nn(Box::new(kind)), edges, &[out]);
    out.set_grad_fn(node, 0);
}

macro_rules! activation_wrappers {
    ($($op:ident ($($p:ident: $pt:ty),*) => $node:literal, $act:expr;)*) => {$(
        pub fn $op(input: &Tensor $(, $p: $pt)*) -> Result<Tensor> {
            let out = ops::$op(input $(, $p)*)?;
            if vt::should_record(&[input]) {
                let act: Result<Activation> = $act;
                record(&out, &[input], NnNode::Act { name: $node, act: act?, self_: SavedTensor::input(input)? });
            }
            Ok(out)
        }
    )*};
}

const SELU_ALPHA: f64 = 1.673_263_242_354_377_3;
const SELU_SCALE: f64 = 1.050_700_987_355_480_5;

activation_wrappers! {
    leaky_relu(negative_slope: Scalar) => "LeakyReluBackward0",
        Ok(Activation::LeakyRelu { negative_slope: negative_slope.to_f64() });
    elu(alpha: Scalar, scale: Scalar, input_scale: Scalar) => "EluBackward0",
        Ok(Activation::Elu { alpha: alpha.to_f64(), scale: scale.to_f64(), input_scale: input_scale.to_f64() });
    selu() => "EluBackward0",
        Ok(Activation::Elu { alpha: SELU_ALPHA, scale: SELU_SCALE, input_scale: 1.0 });
    celu(alpha: Scalar) => "EluBackward0",
        Ok(Activation::Elu { alpha: alpha.to_f64(), scale: 1.0, input_scale: 1.0 / alpha.to_f64() });
    gelu(approximate: &str) => "GeluBackward0",
        Ok(Activation::Gelu { tanh: approximate == "tanh" });
    silu() => "SiluBackward0", Ok(Activation::Silu);
    mish() => "MishBackward0", Ok(Activation::Mish);
    softplus(beta: Scalar, threshold: Scalar) => "SoftplusBackward0",
        Ok(Activation::Softplus { beta: beta.to_f64(), threshold: threshold.to_f64() });
    hardtanh(min_val: Scalar, max_val: Scalar) => "HardtanhBackward0",
        Ok(Activation::Hardtanh { min_val: min_val.to_f64(), max_val: max_val.to_f64() });
    relu6() => "HardtanhBackward0", Ok(Activation::Hardtanh { min_val: 0.0, max_val: 6.0 });
    hardsigmoid() => "HardsigmoidBackward0", Ok(Activation::Hardsigmoid);
    hardswish() => "HardswishBackward0", Ok(Activation::Hardswish);
    log_sigmoid() => "LogSigmoidBackward0", Ok(Activation::LogSigmoid);
    threshold(threshold: Scalar, value: Scalar) => "ThresholdBackward0",
        { let _ = value; Ok(Activation::Threshold { threshold: threshold.to_f64() }) };
}

macro_rules! point_loss_wrappers {
    ($($op:ident ($($p:ident: $pt:ty),*) => $node:literal, $loss:expr;)*) => {$(
        pub fn $op(input: &Tensor, target: &Tensor, reduction: i64 $(, $p: $pt)*) -> Result<Tensor> {
            let out = ops::$op(input, target, reduction $(, $p)*)?;
            if vt::should_record(&[input, target]) {
                record(&out, &[input, target], NnNode::PointLoss {
                    name: $node,
                    loss: $loss,
                    reduction,
                    self_: SavedTensor::input(input)?,
                    target: SavedTensor::input(target)?,
                });
            }
            Ok(out)
        }
    )*};
}

point_loss_wrappers! {
    mse_loss() => "MseLossBackward0", PointLoss::Mse;
    l1_loss() => "L1LossBackward0", PointLoss::L1;
    smooth_l1_loss(beta: f64) => "SmoothL1LossBackward0", PointLoss::SmoothL1 { beta };
    huber_loss(delta: f64) => "HuberLossBackward0", PointLoss::Huber { delta };
}

/// `nll_loss_nd`: the loss of `nll_loss_forward`, recorded with its total weight.
pub fn nll_loss_nd(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    reduction: i64,
    ignore_index: i64,
) -> Result<Tensor> {
    let (out, total) = ops::nll_loss_forward(input, target, weight, reduction, ignore_index)?;
    if vt::should_record(&[input]) {
        check_no_grad("nll_loss_forward", "weight", weight)?;
        let total_weight = total.to_dtype(DType::Float64)?.to_vec::<f64>()[0];
        record(
            &out,
            &[input],
            NnNode::NllLoss {
                self_: SavedTensor::input(input)?,
                target: target.detach(),
                weight: weight.map(|w| w.detach()),
                reduction,
                ignore_index,
                total_weight,
            },
        );
    } else {
        check_no_grad("nll_loss_forward", "weight", weight)?;
    }
    Ok(out)
}

pub fn binary_cross_entropy(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    reduction: i64,
) -> Result<Tensor> {
    let out = ops::binary_cross_entropy(input, target, weight, reduction)?;
    check_no_grad("binary_cross_entropy", "weight", weight)?;
    if vt::should_record(&[input, target]) {
        record(
            &out,
            &[input, target],
            NnNode::Bce {
                logits: false,
                input: SavedTensor::input(input)?,
                target: target.to_dtype(input.dtype())?,
                weight: weight.map(|w| w.detach()),
                pos_weight: None,
                reduction,
            },
        );
    }
    Ok(out)
}

pub fn binary_cross_entropy_with_logits(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    pos_weight: Option<&Tensor>,
    reduction: i64,
) -> Result<Tensor> {
    let out = ops::binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)?;
    let op = "binary_cross_entropy_with_logits";
    check_no_grad(op, "weight", weight)?;
    check_no_grad(op, "pos_weight", pos_weight)?;
    if vt::should_record(&[input, target]) {
        record(
            &out,
            &[input, target],
            NnNode::Bce {
                logits: true,
                input: SavedTensor::input(input)?,
                target: target.detach(),
                weight: weight.map(|w| w.detach()),
                pos_weight: pos_weight.map(|w| w.detach()),
                reduction,
            },
        );
    }
    Ok(out)
}

pub fn kl_div(input: &Tensor, target: &Tensor, reduction: i64, log_target: bool) -> Result<Tensor> {
    let out = ops::kl_div(input, target, reduction, log_target)?;
    if target.requires_grad() && super::is_grad_enabled() {
        // torch's kl_div is a composite: `exp(t) * (t - x)` for log targets, else
        // `xlogy(t, t) - t * x`, then the reduction; composed of recorded ops here too
        // (`xlogy(t, t)` as `t * log(t)` where `t != 0`, else 0).
        let prod = vt::mul(target, input)?;
        let pointwise = if log_target {
            vt::mul(&vt::exp(target)?, &vt::sub(target, input, Scalar::Int(1))?)?
        } else {
            let zero = Tensor::wrapped_scalar(Scalar::Float(0.0))?;
            let nz = ops::ne(target, &zero)?;
            let tlogt = vt::where_(&nz, &vt::mul(target, &vt::log(target)?)?, &zero)?;
            vt::sub(&tlogt, &prod, Scalar::Int(1))?
        };
        return match reduction {
            0 => Ok(pointwise),
            1 => vt::mean_all(&pointwise, None),
            _ => vt::sum_all(&pointwise, None),
        };
    }
    if vt::should_record(&[input]) {
        record(
            &out,
            &[input],
            NnNode::KlDiv {
                target: target.detach(),
                reduction,
                log_target,
            },
        );
    }
    Ok(out)
}

/// `glu`: `a * sigmoid(b)` of the halves, composed of recorded ops when an input requires grad
/// (the forward kernel checks the arguments first).
pub fn glu(input: &Tensor, dim: i64) -> Result<Tensor> {
    let out = ops::glu(input, dim)?;
    if !vt::should_record(&[input]) {
        return Ok(out);
    }
    let d = if dim < 0 {
        dim + input.dim() as i64
    } else {
        dim
    };
    let half = (input.sizes()[d as usize] / 2) as i64;
    let a = vt::narrow(input, d, 0, half)?;
    let b = vt::narrow(input, d, half, half)?;
    vt::mul(&a, &vt::sigmoid(&b)?)
}

/// torch's error for an argument the op is not differentiable in that requires grad.
fn check_no_grad(op: &str, arg: &str, t: Option<&Tensor>) -> Result<()> {
    if t.is_some_and(|t| t.requires_grad()) && super::is_grad_enabled() {
        return Err(Error::runtime(format!(
            "The function '{op}' is not differentiable with respect to argument '{arg}'. This input cannot have requires_grad True."
        )));
    }
    Ok(())
}

/// `cross_entropy_loss`: composed of recorded ops as torch composes it
/// (`cross_entropy_loss_label_smoothing` / `_prob_target`): `log_softmax` over the class dim,
/// then `nll_loss_nd` (class indices) or `-sum(w * target * logp)` (probabilities), with the
/// smoothing term mixed in.
pub fn cross_entropy_loss(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    reduction: i64,
    ignore_index: i64,
    label_smoothing: f64,
) -> Result<Tensor> {
    if !vt::should_record(&[input, target]) || input.dim() == 0 {
        return ops::cross_entropy_loss(
            input,
            target,
            weight,
            reduction,
            ignore_index,
            label_smoothing,
        );
    }
    if target.dtype().is_floating_point() || !(0.0..=1.0).contains(&label_smoothing) {
        // Validation (and torch's errors) by the forward kernel; the recorded composition
        // follows. Class indices are checked by `nll_loss_nd` itself.
        ops::cross_entropy_loss(
            input,
            target,
            weight,
            reduction,
            ignore_index,
            label_smoothing,
        )?;
    }
    check_no_grad("nll_loss_forward", "weight", weight)?;
    let red = ops::nn::Reduction::from_int(reduction)?;
    let class_dim: i64 = if input.dim() == 1 { 0 } else { 1 };
    let c = input.sizes()[class_dim as usize];
    let logp = vt::log_softmax(input, class_dim, None)?;
    let wshape: Vec<i64> = (0..input.dim())
        .map(|d| if d as i64 == class_dim { c as i64 } else { 1 })
        .collect();
    let wview = weight.map(|w| ops::reshape(w, &wshape)).transpose()?;
    let num = |v: f64| Tensor::wrapped_scalar(Scalar::Float(v));
    let reduce = |t: Tensor, denom: f64| -> Result<Tensor> {
        match red {
            ops::nn::Reduction::None => Ok(t),
            ops::nn::Reduction::Sum => vt::sum(&t, None, false, None),
            ops::nn::Reduction::Mean => {
                vt::div(&vt::sum(&t, None, false, None)?, &num(denom)?, None)
            }
        }
    };
    if target.dtype().is_floating_point() {
        // Probabilities: -sum_c w_c t_c logp_c, the mean over the batch elements.
        let ts = if label_smoothing > 0.0 {
            vt::add(
                &vt::mul(target, &num(1.0 - label_smoothing)?)?,
                &num(label_smoothing / c as f64)?,
                Scalar::Int(1),
            )?
        } else {
            target.clone()
        };
        let mut prod = vt::mul(&logp, &ts)?;
        if let Some(w) = &wview {
            prod = vt::mul(&prod, w)?;
        }
        let per = vt::neg(&vt::sum(&prod, Some(&[class_dim]), false, None)?)?;
        let count = (input.numel() / c.max(1)) as f64;
        return reduce(per, count);
    }
    let nll = nll_loss_nd(&logp, target, weight, reduction, ignore_index)?;
    if label_smoothing <= 0.0 {
        return Ok(nll);
    }
    let mut lw = logp.clone();
    if let Some(w) = &wview {
        lw = vt::mul(&lw, w)?;
    }
    let smooth = vt::neg(&vt::sum(&lw, Some(&[class_dim]), false, None)?)?;
    let ignore = ops::eq(target, &Tensor::wrapped_scalar(Scalar::Int(ignore_index))?)?;
    let smooth = vt::masked_fill(&smooth, &ignore, Scalar::Float(0.0))?;
    let denom = {
        let tg = target.to_dtype(DType::Int64)?.contiguous()?.to_vec::<i64>();
        let wv = weight
            .map(|w| w.to_dtype(DType::Float64).map(|w| w.to_vec::<f64>()))
            .transpose()?;
        tg.iter()
            .filter(|&&t| t != ignore_index)
            .map(|&t| wv.as_ref().map_or(1.0, |w| w[t as usize]))
            .sum::<f64>()
    };
    let smooth = reduce(smooth, denom)?;
    vt::add(
        &vt::mul(&nll, &num(1.0 - label_smoothing)?)?,
        &vt::mul(&smooth, &num(label_smoothing / c as f64)?)?,
        Scalar::Int(1),
    )
}

/// The `inputs` of a node over `(input, weight?, bias?)`: the present ones.
fn present<'a>(
    input: &'a Tensor,
    weight: Option<&'a Tensor>,
    bias: Option<&'a Tensor>,
) -> Vec<&'a Tensor> {
    let mut v = vec![input];
    v.extend(weight);
    v.extend(bias);
    v
}

pub fn layer_norm(
    input: &Tensor,
    normalized_shape: &[i64],
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> Result<Tensor> {
    let out = ops::layer_norm(input, normalized_shape, weight, bias, eps)?;
    let inputs = present(input, weight, bias);
    if vt::should_record(&inputs) {
        let len: usize = normalized_shape.iter().map(|&s| s as usize).product();
        let rows = input.numel().checked_div(len).unwrap_or(0);
        record(
            &out,
            &inputs,
            NnNode::RowNorm {
                name: "NativeLayerNormBackward0",
                kind: RowNorm::Layer,
                rows,
                len,
                eps,
                input: SavedTensor::input(input)?,
                weight: weight.map(SavedTensor::input).transpose()?,
                bias_sizes: bias.map(|b| b.sizes().into()),
            },
        );
    }
    Ok(out)
}

pub fn rms_norm(
    input: &Tensor,
    normalized_shape: &[i64],
    weight: Option<&Tensor>,
    eps: Option<f64>,
) -> Result<Tensor> {
    let out = ops::rms_norm(input, normalized_shape, weight, eps)?;
    let inputs = present(input, weight, None);
    if vt::should_record(&inputs) {
        let len: usize = normalized_shape.iter().map(|&s| s as usize).product();
        let rows = input.numel().checked_div(len).unwrap_or(0);
        let eps = eps.unwrap_or(if input.dtype() == DType::Float32 {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        });
        record(
            &out,
            &inputs,
            NnNode::RowNorm {
                name: "RmsNormBackward0",
                kind: RowNorm::Rms,
                rows,
                len,
                eps,
                input: SavedTensor::input(input)?,
                weight: weight.map(SavedTensor::input).transpose()?,
                bias_sizes: None,
            },
        );
    }
    Ok(out)
}

pub fn group_norm(
    input: &Tensor,
    num_groups: i64,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> Result<Tensor> {
    let out = ops::group_norm(input, num_groups, weight, bias, eps)?;
    let inputs = present(input, weight, bias);
    if vt::should_record(&inputs) {
        let (n, c) = (input.sizes()[0], input.sizes()[1]);
        let hw: usize = input.sizes()[2..].iter().product();
        let groups = num_groups as usize;
        record(
            &out,
            &inputs,
            NnNode::RowNorm {
                name: "NativeGroupNormBackward0",
                kind: RowNorm::Group {
                    channels: c,
                    groups,
                    hw,
                },
                rows: n * groups,
                len: c / groups * hw,
                eps,
                input: SavedTensor::input(input)?,
                weight: weight.map(SavedTensor::input).transpose()?,
                bias_sizes: bias.map(|b| b.sizes().into()),
            },
        );
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
pub fn batch_norm(
    input: &Tensor,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    running_mean: Option<&Tensor>,
    running_var: Option<&Tensor>,
    training: bool,
    momentum: f64,
    eps: f64,
    cudnn_enabled: bool,
) -> Result<Tensor> {
    let inputs = present(input, weight, bias);
    let rec = vt::should_record(&inputs);
    // The evaluation statistics, read before the op (which leaves them alone in eval).
    let running = match (rec && !training, running_mean, running_var) {
        (true, Some(m), Some(v)) => {
            let m = m.to_dtype(DType::Float64)?.contiguous()?.to_vec::<f64>();
            let v = v.to_dtype(DType::Float64)?.contiguous()?.to_vec::<f64>();
            Some((m, v.iter().map(|v| 1.0 / (v + eps).sqrt()).collect()))
        }
        _ => None,
    };
    let out = ops::batch_norm(
        input,
        weight,
        bias,
        running_mean,
        running_var,
        training,
        momentum,
        eps,
        cudnn_enabled,
    )?;
    if rec {
        record(
            &out,
            &inputs,
            NnNode::BatchNorm {
                input: SavedTensor::input(input)?,
                weight: weight.map(SavedTensor::input).transpose()?,
                has_bias: bias.is_some(),
                running,
                eps,
            },
        );
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
pub fn convolution(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    transposed: bool,
    output_padding: &[i64],
    groups: i64,
) -> Result<Tensor> {
    let out = ops::convolution(
        input,
        weight,
        bias,
        stride,
        padding,
        dilation,
        transposed,
        output_padding,
        groups,
    )?;
    let inputs = present(input, Some(weight), bias);
    if vt::should_record(&inputs) {
        record(
            &out,
            &inputs,
            NnNode::Conv {
                input: SavedTensor::input(input)?,
                weight: SavedTensor::input(weight)?,
                has_bias: bias.is_some(),
                params: ConvParams {
                    stride: stride.to_vec(),
                    padding: padding.to_vec(),
                    dilation: dilation.to_vec(),
                    groups,
                    transposed,
                },
            },
        );
    }
    Ok(out)
}

/// conv1d / conv2d with int padding, composed as torch composes them: a batch dim added to
/// unbatched input, `convolution`, the batch dim removed (all recorded).
#[allow(clippy::too_many_arguments)]
fn conv_nd(
    dims: usize,
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    groups: i64,
) -> Result<Tensor> {
    let unbatched = input.dim() == dims + 1;
    let x = if unbatched {
        vt::unsqueeze(input, 0)?
    } else {
        input.clone()
    };
    let y = convolution(
        &x,
        weight,
        bias,
        stride,
        padding,
        dilation,
        false,
        &[0],
        groups,
    )?;
    if unbatched {
        vt::squeeze_dim(&y, 0)
    } else {
        Ok(y)
    }
}

macro_rules! conv_wrappers {
    ($($op:ident, $op_padding:ident, $dims:literal;)*) => {$(
        #[allow(clippy::too_many_arguments)]
        pub fn $op(
            input: &Tensor,
            weight: &Tensor,
            bias: Option<&Tensor>,
            stride: &[i64],
            padding: &[i64],
            dilation: &[i64],
            groups: i64,
        ) -> Result<Tensor> {
            if !vt::should_record(&present(input, Some(weight), bias))
                || !(input.dim() == $dims + 1 || input.dim() == $dims + 2)
            {
                return ops::$op(input, weight, bias, stride, padding, dilation, groups);
            }
            conv_nd($dims, input, weight, bias, stride, padding, dilation, groups)
        }

        #[allow(clippy::too_many_arguments)]
        pub fn $op_padding(
            input: &Tensor,
            weight: &Tensor,
            bias: Option<&Tensor>,
            stride: &[i64],
            padding: &str,
            dilation: &[i64],
            groups: i64,
        ) -> Result<Tensor> {
            let out = ops::$op_padding(input, weight, bias, stride, padding, dilation, groups)?;
            if !vt::should_record(&present(input, Some(weight), bias)) {
                return Ok(out);
            }
            // The forward succeeded, so the arguments are valid: recompute it recorded.
            let stride = ops::nn::expand_param(stringify!($op), "stride", stride, $dims, None)?;
            let dilation = ops::nn::expand_param(stringify!($op), "dilation", dilation, $dims, None)?;
            if padding == "valid" || weight.dim() != $dims + 2 {
                return conv_nd($dims, input, weight, bias, &stride, &[0], &dilation, groups);
            }
            let mut sym = Vec::new();
            let mut pads = Vec::new();
            for i in 0..$dims {
                let total = dilation[i] * (weight.sizes()[2 + i] as i64 - 1);
                sym.push(total / 2);
                pads.push(total - 2 * (total / 2));
            }
            let x = if pads.iter().any(|&e| e > 0) {
                let mut p = Vec::new();
                for i in (0..$dims).rev() {
                    p.push(0);
                    p.push(pads[i]);
                }
                pad(input, &p, "constant", None)?
            } else {
                input.clone()
            };
            conv_nd($dims, &x, weight, bias, &stride, &sym, &dilation, groups)
        }
    )*};
}

conv_wrappers! {
    conv1d, conv1d_padding, 1;
    conv2d, conv2d_padding, 2;
    conv3d, conv3d_padding, 3;
}

pub fn max_pool2d(
    input: &Tensor,
    kernel_size: &[i64],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    ceil_mode: bool,
) -> Result<Tensor> {
    if !vt::should_record(&[input]) {
        return ops::max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode);
    }
    let (out, indices) =
        ops::max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)?;
    record(
        &out,
        &[input],
        NnNode::MaxPool2d {
            self_sizes: input.sizes().into(),
            indices,
        },
    );
    Ok(out)
}

pub fn embedding(
    weight: &Tensor,
    indices: &Tensor,
    padding_idx: i64,
    scale_grad_by_freq: bool,
    sparse: bool,
) -> Result<Tensor> {
    let out = ops::embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse)?;
    if vt::should_record(&[weight]) {
        if sparse {
            return Err(Error::not_implemented(
                "embedding: sparse gradients are not supported by tensorbind (sparse=True); use sparse=False",
            ));
        }
        record(
            &out,
            &[weight],
            NnNode::Embedding {
                num_weights: weight.sizes()[0],
                indices: indices.detach(),
                padding_idx,
                scale_grad_by_freq,
            },
        );
    }
    Ok(out)
}

pub fn dropout(input: &Tensor, p: f64, train: bool) -> Result<Tensor> {
    if !vt::should_record(&[input]) {
        return ops::dropout(input, p, train);
    }
    match ops::nn::dropout_with_mask(input, p, train)? {
        (out, Some(mask)) => {
            record(&out, &[input], NnNode::Dropout { mask });
            Ok(out)
        }
        // Returned unchanged (eval, p == 0): torch returns the input itself, history and all.
        (out, None) => Ok(out),
    }
}

pub fn pad(input: &Tensor, pad: &[i64], mode: &str, value: Option<f64>) -> Result<Tensor> {
    let out = ops::pad(input, pad, mode, value)?;
    if vt::should_record(&[input]) {
        if mode == "constant" {
            record(&out, &[input], NnNode::ConstantPad { pad: pad.into() });
        } else {
            // The same padding of the input's flat element indices says where each output
            // element came from.
            let ids = ops::arange(Scalar::Int(input.numel() as i64), Some(DType::Int64))?;
            let ids = ops::reshape(&ids, &shape_of(input))?;
            let map = ops::pad(&ids, pad, mode, None)?;
            let dims = pad.len() / 2;
            let name = match (mode, dims) {
                ("reflect", 1) => "ReflectionPad1DBackward0",
                ("reflect", 2) => "ReflectionPad2DBackward0",
                ("reflect", _) => "ReflectionPad3DBackward0",
                ("replicate", 1) => "ReplicationPad1DBackward0",
                ("replicate", 2) => "ReplicationPad2DBackward0",
                ("replicate", _) => "ReplicationPad3DBackward0",
                _ => "CircularPadBackward0",
            };
            record(
                &out,
                &[input],
                NnNode::MappedPad {
                    name,
                    self_sizes: input.sizes().into(),
                    map,
                },
            );
        }
    }
    Ok(out)
}

pub fn max_pool2d_with_indices(
    input: &Tensor,
    kernel_size: &[i64],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    ceil_mode: bool,
) -> Result<(Tensor, Tensor)> {
    let (out, indices) =
        ops::max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)?;
    if vt::should_record(&[input]) {
        record(
            &out,
            &[input],
            NnNode::MaxPool2d {
                self_sizes: input.sizes().into(),
                indices: indices.clone(),
            },
        );
    }
    Ok((out, indices))
}

pub fn avg_pool2d(
    input: &Tensor,
    kernel_size: &[i64],
    stride: &[i64],
    padding: &[i64],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: Option<i64>,
) -> Result<Tensor> {
    let out = ops::avg_pool2d(
        input,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
    )?;
    if vt::should_record(&[input]) {
        record(
            &out,
            &[input],
            NnNode::AvgPool2d {
                self_sizes: input.sizes().into(),
                kernel_size: kernel_size.into(),
                stride: stride.into(),
                padding: padding.into(),
                ceil_mode,
                count_include_pad,
                divisor_override,
            },
        );
    }
    Ok(out)
}

/// `adaptive_avg_pool2d`: an output size of 1 is the mean over the last two dims (recorded as
/// `mean`, as torch's composite does), else the kernel with its own node.
pub fn adaptive_avg_pool2d(input: &Tensor, output_size: &[i64]) -> Result<Tensor> {
    let out = ops::adaptive_avg_pool2d(input, output_size)?;
    if !vt::should_record(&[input]) {
        return Ok(out);
    }
    if output_size.iter().all(|&s| s == 1) && input.numel() > 0 {
        return vt::mean(input, Some(&[-1, -2]), true, None);
    }
    record(
        &out,
        &[input],
        NnNode::AdaptiveAvgPool2d {
            self_sizes: input.sizes().into(),
        },
    );
    Ok(out)
}

/// `bilinear`: composed of recorded ops when an input requires grad (torch composes it of
/// `_trilinear`): `sum_j (x1 @ W_(i, o j)) * x2_j`, then the bias.
pub fn bilinear(
    input1: &Tensor,
    input2: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
) -> Result<Tensor> {
    let out = ops::bilinear(input1, input2, weight, bias)?;
    let mut all = vec![input1, input2, weight];
    all.extend(bias);
    if !vt::should_record(&all) {
        return Ok(out);
    }
    let (o, i, j) = (
        weight.sizes()[0] as i64,
        weight.sizes()[1] as i64,
        weight.sizes()[2] as i64,
    );
    let lead = &input1.sizes()[..input1.dim() - 1];
    let b = lead.iter().product::<usize>() as i64;
    let x1 = vt::reshape(input1, &[b, i])?;
    let x2 = vt::reshape(input2, &[b, 1, j])?;
    let w = vt::reshape(&vt::permute(weight, &[1, 0, 2])?, &[i, o * j])?;
    let t = vt::reshape(&vt::matmul(&x1, &w)?, &[b, o, j])?;
    let y = vt::sum(&vt::mul(&t, &x2)?, Some(&[2]), false, None)?;
    let mut shape = shape_of_sizes(lead);
    shape.push(o);
    let y = vt::reshape(&y, &shape)?;
    match bias {
        Some(bias) => vt::add(&y, bias, Scalar::Int(1)),
        None => Ok(y),
    }
}

/// `cosine_similarity`: composed of recorded ops when an input requires grad, as torch's
/// composite: `sum((x1 / max(|x1|, eps)) * (x2 / max(|x2|, eps)), dim)`, the norms clamped
/// without recording the clamp (the gradient flows through the unclamped norm, as torch's
/// `clamp_min_` under no_grad).
pub fn cosine_similarity(x1: &Tensor, x2: &Tensor, dim: i64, eps: f64) -> Result<Tensor> {
    let out = ops::cosine_similarity(x1, x2, dim, eps)?;
    if !vt::should_record(&[x1, x2]) {
        return Ok(out);
    }
    let shape = crate::core::tensor::broadcast_shapes(x1.sizes(), x2.sizes())?;
    let s = shape_of_sizes(&shape);
    let (a, b) = (vt::expand(x1, &s)?, vt::expand(x2, &s)?);
    let d = [dim];
    let clamped_norm = |t: &Tensor| -> Result<Tensor> {
        let n = vt::norm(t, Some(Scalar::Int(2)), Some(&d), true)?;
        let v = n.detach();
        // The clamp's shift is a constant: value max(|t|, eps), gradient of |t|.
        let shift = ops::sub(
            &ops::clamp(&v, Some(Scalar::Float(eps)), None)?,
            &v,
            Scalar::Int(1),
        )?;
        vt::add(&n, &shift, Scalar::Int(1))
    };
    let (na, nb) = (clamped_norm(&a)?, clamped_norm(&b)?);
    let prod = vt::mul(&vt::div(&a, &na, None)?, &vt::div(&b, &nb, None)?)?;
    vt::sum(&prod, Some(&d), false, None)
}

/// `pairwise_distance`: `norm(x1 - x2 + eps, p, -1, keepdim)` of recorded ops when an input
/// requires grad, as torch's composite.
pub fn pairwise_distance(
    x1: &Tensor,
    x2: &Tensor,
    p: f64,
    eps: f64,
    keepdim: bool,
) -> Result<Tensor> {
    let out = ops::pairwise_distance(x1, x2, p, eps, keepdim)?;
    if !vt::should_record(&[x1, x2]) {
        return Ok(out);
    }
    let e = Tensor::wrapped_scalar(Scalar::Float(eps))?;
    let d = vt::add(&vt::sub(x1, x2, Scalar::Int(1))?, &e, Scalar::Int(1))?;
    let last = if d.dim() == 0 { 0 } else { -1 };
    vt::norm(&d, Some(Scalar::Float(p)), Some(&[last]), keepdim)
}

/// conv_transpose1d / conv_transpose2d, composed as torch composes them: a batch dim added to
/// unbatched input, the transposed `convolution`, the batch dim removed (all recorded).
macro_rules! conv_transpose_wrappers {
    ($($op:ident, $dims:literal;)*) => {$(
        #[allow(clippy::too_many_arguments)]
        pub fn $op(
            input: &Tensor,
            weight: &Tensor,
            bias: Option<&Tensor>,
            stride: &[i64],
            padding: &[i64],
            output_padding: &[i64],
            groups: i64,
            dilation: &[i64],
        ) -> Result<Tensor> {
            if !vt::should_record(&present(input, Some(weight), bias))
                || !(input.dim() == $dims + 1 || input.dim() == $dims + 2)
            {
                return ops::$op(input, weight, bias, stride, padding, output_padding, groups, dilation);
            }
            let unbatched = input.dim() == $dims + 1;
            let x = if unbatched { vt::unsqueeze(input, 0)? } else { input.clone() };
            let y = convolution(&x, weight, bias, stride, padding, dilation, true, output_padding, groups)?;
            if unbatched {
                vt::squeeze_dim(&y, 0)
            } else {
                Ok(y)
            }
        }
    )*};
}

conv_transpose_wrappers! {
    conv_transpose1d, 1;
    conv_transpose2d, 2;
    conv_transpose3d, 3;
}

/// Records an `upsample_*` result over `input` with its taps.
fn record_upsample(
    out: Tensor,
    input: &Tensor,
    name: &'static str,
    kernel: &'static str,
    taps: (Taps, Taps),
) -> Tensor {
    record(
        &out,
        &[input],
        NnNode::Upsample {
            name,
            kernel,
            self_sizes: input.sizes().into(),
            taps: Box::new(taps),
        },
    );
    out
}

pub fn upsample_nearest1d(
    input: &Tensor,
    output_size: &[i64],
    scales: Option<f64>,
) -> Result<Tensor> {
    let out = ops::upsample_nearest1d(input, output_size, scales)?;
    if !vt::should_record(&[input]) {
        return Ok(out);
    }
    let taps = up::upsample_nearest1d_taps(input, output_size, scales, false)?;
    Ok(record_upsample(
        out,
        input,
        "UpsampleNearest1DBackward0",
        "upsample_nearest1d_backward",
        taps,
    ))
}

pub fn upsample_nearest2d(
    input: &Tensor,
    output_size: &[i64],
    scales_h: Option<f64>,
    scales_w: Option<f64>,
) -> Result<Tensor> {
    let out = ops::upsample_nearest2d(input, output_size, scales_h, scales_w)?;
    if !vt::should_record(&[input]) {
        return Ok(out);
    }
    let taps = up::upsample_nearest2d_taps(input, output_size, scales_h, scales_w, false)?;
    Ok(record_upsample(
        out,
        input,
        "UpsampleNearest2DBackward0",
        "upsample_nearest2d_backward",
        taps,
    ))
}

pub fn upsample_linear1d(
    input: &Tensor,
    output_size: &[i64],
    align_corners: bool,
    scales: Option<f64>,
) -> Result<Tensor> {
    let out = ops::upsample_linear1d(input, output_size, align_corners, scales)?;
    if !vt::should_record(&[input]) {
        return Ok(out);
    }
    let taps = up::upsample_linear1d_taps(input, output_size, align_corners, scales)?;
    Ok(record_upsample(
        out,
        input,
        "UpsampleLinear1DBackward0",
        "upsample_linear1d_backward",
        taps,
    ))
}

pub fn upsample_bilinear2d(
    input: &Tensor,
    output_size: &[i64],
    align_corners: bool,
    scales_h: Option<f64>,
    scales_w: Option<f64>,
) -> Result<Tensor> {
    let out = ops::upsample_bilinear2d(input, output_size, align_corners, scales_h, scales_w)?;
    if !vt::should_record(&[input]) {
        return Ok(out);
    }
    let taps = up::upsample_bilinear2d_taps(input, output_size, align_corners, scales_h, scales_w)?;
    Ok(record_upsample(
        out,
        input,
        "UpsampleBilinear2DBackward0",
        "upsample_bilinear2d_backward",
        taps,
    ))
}

pub fn _upsample_nearest_exact1d(
    input: &Tensor,
    output_size: &[i64],
    scales: Option<f64>,
) -> Result<Tensor> {
    let out = ops::_upsample_nearest_exact1d(input, output_size, scales)?;
    if !vt::should_record(&[input]) {
        return Ok(out);
    }
    let taps = up::upsample_nearest1d_taps(input, output_size, scales, true)?;
    Ok(record_upsample(
        out,
        input,
        "UpsampleNearestExact1DBackward0",
        "_upsample_nearest_exact1d_backward",
        taps,
    ))
}

pub fn _upsample_nearest_exact2d(
    input: &Tensor,
    output_size: &[i64],
    scales_h: Option<f64>,
    scales_w: Option<f64>,
) -> Result<Tensor> {
    let out = ops::_upsample_nearest_exact2d(input, output_size, scales_h, scales_w)?;
    if !vt::should_record(&[input]) {
        return Ok(out);
    }
    let taps = up::upsample_nearest2d_taps(input, output_size, scales_h, scales_w, true)?;
    Ok(record_upsample(
        out,
        input,
        "UpsampleNearestExact2DBackward0",
        "_upsample_nearest_exact2d_backward",
        taps,
    ))
}
