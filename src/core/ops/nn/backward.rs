//! src/core/ops/nn/backward.rs: the backward kernels of torch.nn.functional (PyTorch:
//! `threshold_backward`, `gelu_backward`, `elu_backward`, ... in `cpu/Activation.cpp`,
//! `nll_loss_backward` in `LossNLL.cpp`, `native_layer_norm_backward`,
//! `native_batch_norm_backward`, `convolution_backward`, `max_pool2d_with_indices_backward`,
//! `embedding_dense_backward`): each takes the gradient of the op's output and what the forward
//! saved, and returns the gradients of the inputs. The autograd nodes that call them are
//! src/core/autograd/nn_formulas.rs. Float32 and float64 only, as the forward kernels; sums
//! over many elements are accumulated in f64 (as the forward statistics).

use super::conv::{as3, Win3};
use super::{contiguous_of, elems, float_dispatch, new_with, Float, Reduction};
use crate::core::dtype::Element;
use crate::core::error::{Error, Result};
use crate::core::ops;
use crate::core::scalar::Scalar;
use crate::core::tensor::Tensor;
use crate::core::vecmath::{self, Func};

/// `t` contiguous in dtype `T` (a conversion of the engine's gradient when it differs).
fn as_t<T: Float>(t: &Tensor) -> Result<Tensor> {
    if t.dtype() == T::DTYPE {
        contiguous_of(t)
    } else {
        t.to_dtype(T::DTYPE)?.contiguous()
    }
}

fn shape_mismatch(op: &str, g: &Tensor, x: &Tensor) -> Error {
    Error::runtime(format!(
        "{op}: grad_output of size {:?} does not match the input of size {:?}",
        g.sizes(),
        x.sizes()
    ))
}

/// `f(g, x)` elementwise over the gradient and the saved input (one shape, float dtype `T`).
fn zip_grad<T: Float>(op: &str, g: &Tensor, x: &Tensor, f: impl Fn(T, T) -> T) -> Result<Tensor> {
    if g.sizes() != x.sizes() {
        return Err(shape_mismatch(op, g, x));
    }
    let (g, x) = (as_t::<T>(g)?, as_t::<T>(x)?);
    new_with::<T>(x.sizes(), |o| {
        // SAFETY: both are contiguous of dtype `T`, read only here.
        let (gs, xs) = unsafe { (elems::<T>(&g), elems::<T>(&x)) };
        for ((o, &g), &x) in o.iter_mut().zip(gs).zip(xs) {
            *o = f(g, x);
        }
        Ok(())
    })
}

/// The activation whose derivative an [`activation_backward`] computes, with its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Activation {
    LeakyRelu {
        negative_slope: f64,
    },
    /// `elu`, and `selu`/`celu` through it.
    Elu {
        alpha: f64,
        scale: f64,
        input_scale: f64,
    },
    Gelu {
        tanh: bool,
    },
    Silu,
    Mish,
    Softplus {
        beta: f64,
        threshold: f64,
    },
    /// `hardtanh`, and `relu6` (0, 6).
    Hardtanh {
        min_val: f64,
        max_val: f64,
    },
    Hardsigmoid,
    Hardswish,
    LogSigmoid,
    Threshold {
        threshold: f64,
    },
}

impl Activation {
    /// torch's name of the backward kernel.
    pub fn kernel_name(&self) -> &'static str {
        match self {
            Activation::LeakyRelu { .. } => "leaky_relu_backward",
            Activation::Elu { .. } => "elu_backward",
            Activation::Gelu { .. } => "gelu_backward",
            Activation::Silu => "silu_backward",
            Activation::Mish => "mish_backward",
            Activation::Softplus { .. } => "softplus_backward",
            Activation::Hardtanh { .. } => "hardtanh_backward",
            Activation::Hardsigmoid => "hardsigmoid_backward",
            Activation::Hardswish => "hardswish_backward",
            Activation::LogSigmoid => "log_sigmoid_backward",
            Activation::Threshold { .. } => "threshold_backward",
        }
    }
}

#[inline(always)]
fn sigmoid<T: Float>(x: T) -> T {
    T::ONE / (T::ONE + (-x).exp())
}

/// The gradient of `act(self)` from the gradient `grad` of its output (torch's
/// `{act}_backward(grad_output, self, ...)`, the formulas of `cpu/Activation.cpp`).
pub fn activation_backward(act: Activation, grad: &Tensor, input: &Tensor) -> Result<Tensor> {
    let name = act.kernel_name();
    float_dispatch!(input.dtype(), name, T => {
        match act {
            Activation::LeakyRelu { negative_slope } => {
                let s = T::of(negative_slope);
                zip_grad::<T>(name, grad, input, move |g, x| if x > T::ZERO { g } else { g * s })
            }
            Activation::Elu { alpha, scale, input_scale } => {
                let (neg, pos, ipt) = (T::of(alpha * scale), T::of(scale), T::of(input_scale));
                zip_grad::<T>(name, grad, input, move |g, x| {
                    if x <= T::ZERO {
                        g * ipt * neg * (x * ipt).exp()
                    } else {
                        g * pos
                    }
                })
            }
            Activation::Gelu { tanh: false } => {
                // Phi(x) + x phi(x): erf(x / sqrt 2) and exp(-x^2 / 2) from the vectorised
                // kernels, then one fused pass.
                if grad.sizes() != input.sizes() {
                    return Err(shape_mismatch(name, grad, input));
                }
                let (g, x) = (as_t::<T>(grad)?, as_t::<T>(input)?);
                let n = x.numel();
                let (e, q) = (x.clone_data()?, x.clone_data()?);
                if n > 0 {
                    // SAFETY: `e` and `q` are fresh contiguous tensors of `n` elements of dtype
                    // `T`, not shared; `x` is contiguous of dtype `T`.
                    unsafe {
                        let xs = elems::<T>(&x);
                        let es = std::slice::from_raw_parts_mut(e.data_ptr::<T>(), n);
                        let qs = std::slice::from_raw_parts_mut(q.data_ptr::<T>(), n);
                        let r2 = T::of(std::f64::consts::FRAC_1_SQRT_2);
                        let mhalf = T::of(-0.5);
                        for ((e, q), &x) in es.iter_mut().zip(qs.iter_mut()).zip(xs) {
                            *e = x * r2;
                            *q = mhalf * x * x;
                        }
                        if T::DTYPE == crate::core::dtype::DType::Float64 {
                            vecmath::map_f64_inplace(Func::Erf, std::slice::from_raw_parts_mut(e.data_ptr::<f64>(), n));
                            vecmath::map_f64_inplace(Func::Exp, std::slice::from_raw_parts_mut(q.data_ptr::<f64>(), n));
                        } else {
                            vecmath::map_f32_inplace(Func::Erf, std::slice::from_raw_parts_mut(e.data_ptr::<f32>(), n));
                            vecmath::map_f32_inplace(Func::Exp, std::slice::from_raw_parts_mut(q.data_ptr::<f32>(), n));
                        }
                    }
                }
                let k = T::of(0.5 * std::f64::consts::FRAC_2_SQRT_PI * std::f64::consts::FRAC_1_SQRT_2);
                let half = T::of(0.5);
                new_with::<T>(x.sizes(), |o| {
                    // SAFETY: all four are contiguous of dtype `T` and `n` elements.
                    let (gs, xs, es, qs) = unsafe { (elems::<T>(&g), elems::<T>(&x), elems::<T>(&e), elems::<T>(&q)) };
                    for ((((o, &g), &x), &e), &q) in o.iter_mut().zip(gs).zip(xs).zip(es).zip(qs) {
                        *o = g * (half * (T::ONE + e) + x * k * q);
                    }
                    Ok(())
                })
            }
            Activation::Gelu { tanh: true } => {
                let beta = T::of(std::f64::consts::SQRT_2 * std::f64::consts::FRAC_2_SQRT_PI * 0.5);
                let kappa = T::of(0.044715);
                let half = T::of(0.5);
                let three = T::of(3.0);
                zip_grad::<T>(name, grad, input, move |g, x| {
                    let x_sq = x * x;
                    let inner = beta * (x + kappa * x_sq * x);
                    let t = inner.tanh();
                    let left = half * x;
                    let right = T::ONE + t;
                    let left_d = half * right;
                    let right_d = left * (T::ONE - t * t) * beta * (T::ONE + three * kappa * x_sq);
                    g * (left_d + right_d)
                })
            }
            Activation::Silu => zip_grad::<T>(name, grad, input, |g, x| {
                let s = sigmoid(x);
                g * s * (T::ONE + x * (T::ONE - s))
            }),
            Activation::Mish => zip_grad::<T>(name, grad, input, |g, x| {
                let s = sigmoid(x);
                let t = x.exp().ln_1p().tanh();
                g * (t + x * s * (T::ONE - t * t))
            }),
            Activation::Softplus { beta, threshold } => {
                let (b, th) = (T::of(beta), T::of(threshold));
                zip_grad::<T>(name, grad, input, move |g, x| {
                    let z = (x * b).exp();
                    if x * b > th { g } else { g * z / (z + T::ONE) }
                })
            }
            Activation::Hardtanh { min_val, max_val } => {
                let (lo, hi) = (T::of(min_val), T::of(max_val));
                zip_grad::<T>(name, grad, input, move |g, x| {
                    if x <= lo || x >= hi { T::ZERO } else { g }
                })
            }
            Activation::Hardsigmoid => {
                // torch: `one_sixth(1.0f / 6.0f)`, a float constant in both dtypes.
                let (three, sixth) = (T::of(3.0), T::of((1.0f32 / 6.0f32) as f64));
                zip_grad::<T>(name, grad, input, move |g, x| {
                    if x > -three && x < three { g * sixth } else { T::ZERO }
                })
            }
            Activation::Hardswish => {
                let (three, half) = (T::of(3.0), T::of(0.5));
                zip_grad::<T>(name, grad, input, move |g, x| {
                    if x <= -three {
                        T::ZERO
                    } else if x < three {
                        g * (x / three + half)
                    } else {
                        g
                    }
                })
            }
            Activation::LogSigmoid => zip_grad::<T>(name, grad, input, |g, x| {
                // d/dx log(sigmoid(x)) = sigmoid(-x), computed without overflow.
                if x < T::ZERO {
                    g / (T::ONE + x.exp())
                } else {
                    let z = (-x).exp();
                    g * z / (T::ONE + z)
                }
            }),
            Activation::Threshold { threshold } => {
                let th = T::of(threshold);
                zip_grad::<T>(name, grad, input, move |g, x| if x <= th { T::ZERO } else { g })
            }
        }
    })
}

/// The pointwise losses of [`pointwise_loss_backward`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PointLoss {
    Mse,
    L1,
    SmoothL1 { beta: f64 },
    Huber { delta: f64 },
}

impl PointLoss {
    pub fn kernel_name(&self) -> &'static str {
        match self {
            PointLoss::Mse => "mse_loss_backward",
            PointLoss::L1 => "l1_loss_backward",
            PointLoss::SmoothL1 { .. } => "smooth_l1_loss_backward",
            PointLoss::Huber { .. } => "huber_loss_backward",
        }
    }
}

/// The gradient of a pointwise loss `loss(input, target)` with respect to `input`, in the
/// broadcast shape of `input` and `target` (the gradient of `target` is its negation); `grad`
/// is the gradient of the loss (0-dim for the mean and sum reductions).
pub fn pointwise_loss_backward(
    loss: PointLoss,
    grad: &Tensor,
    input: &Tensor,
    target: &Tensor,
    reduction: i64,
) -> Result<Tensor> {
    let red = Reduction::from_int(reduction)?;
    let dtype = crate::core::promote::result_type(&[input, target]);
    float_dispatch!(dtype, loss.kernel_name(), T => {
        let (x, t) = (input.to_dtype(T::DTYPE)?, target.to_dtype(T::DTYPE)?);
        let d = match loss {
            PointLoss::Mse => crate::core::iter::binary_op::<T, T>(&x, &t, |a, b| T::of(2.0) * (a - b))?,
            PointLoss::L1 => crate::core::iter::binary_op::<T, T>(&x, &t, |a, b| {
                let d = a - b;
                if d > T::ZERO { T::ONE } else if d < T::ZERO { -T::ONE } else { d * T::ZERO }
            })?,
            PointLoss::SmoothL1 { beta } => {
                let bt = T::of(beta);
                crate::core::iter::binary_op::<T, T>(&x, &t, move |a, b| {
                    let d = a - b;
                    if d < -bt { -T::ONE } else if d > bt { T::ONE } else if bt == T::ZERO { T::ZERO } else { d / bt }
                })?
            }
            PointLoss::Huber { delta } => {
                let dl = T::of(delta);
                crate::core::iter::binary_op::<T, T>(&x, &t, move |a, b| {
                    let d = a - b;
                    if d < -dl { -dl } else if d > dl { dl } else { d }
                })?
            }
        };
        let g = grad.to_dtype(T::DTYPE)?;
        let gd = ops::mul(&d, &g)?;
        match red {
            Reduction::Mean if d.numel() > 0 => ops::div(
                &gd,
                &Tensor::wrapped_scalar(Scalar::Int(d.numel() as i64))?,
                None,
            ),
            _ => Ok(gd),
        }
    })
}

/// `nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index,
/// total_weight)`: the gradient of the nll loss with respect to the log-probabilities `input`
/// (`(C,)`, `(N, C)` or `(N, C, d1, ...)`): `-w[t] * grad` at each target class, 0 elsewhere
/// and at `ignore_index`; divided by `total_weight` for the mean.
pub fn nll_loss_backward(
    grad: &Tensor,
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    reduction: i64,
    ignore_index: i64,
    total_weight: f64,
) -> Result<Tensor> {
    let red = Reduction::from_int(reduction)?;
    let (n, c, s) = match input.dim() {
        0 => return Err(Error::runtime("nll_loss_backward: input of 0 dimensions")),
        1 => (1, input.sizes()[0], 1),
        _ => (
            input.sizes()[0],
            input.sizes()[1],
            input.sizes()[2..].iter().product(),
        ),
    };
    let tg: Vec<i64> = target
        .to_dtype(crate::core::dtype::DType::Int64)?
        .to_vec::<i64>();
    if tg.len() != n * s {
        return Err(Error::runtime(
            "nll_loss_backward: target does not match the input",
        ));
    }
    float_dispatch!(input.dtype(), "nll_loss_backward", T => {
        let w: Option<Vec<T>> = match weight {
            Some(w) => Some(w.to_dtype(T::DTYPE)?.to_vec::<T>()),
            None => None,
        };
        let gv: Vec<T> = grad.to_dtype(T::DTYPE)?.contiguous()?.to_vec::<T>();
        let per_elem = red == Reduction::None;
        if (per_elem && gv.len() != n * s) || (!per_elem && gv.len() != 1) {
            return Err(Error::runtime("nll_loss_backward: grad_output has the wrong shape"));
        }
        let scale = match red {
            Reduction::Mean => 1.0 / total_weight,
            _ => 1.0,
        };
        new_with::<T>(input.sizes(), |o| {
            for i in 0..n {
                for k in 0..s {
                    let t = tg[i * s + k];
                    if t == ignore_index || t < 0 || t as usize >= c {
                        continue;
                    }
                    let gi = if per_elem { gv[i * s + k] } else { gv[0] };
                    let wi = w.as_ref().map_or(T::ONE, |w| w[t as usize]);
                    o[(i * c + t as usize) * s + k] = -(wi * gi) * T::of(scale);
                }
            }
            Ok(())
        })
    })
}

/// Which normalisation of rows [`norm_rows_backward`] differentiates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RowNorm {
    /// `layer_norm`: rows are the trailing `len` elements; the affine index is the column.
    Layer,
    /// `rms_norm`: as layer norm without the mean.
    Rms,
    /// `group_norm` of `(N, C, HxW)` input in `groups` groups: a row is one (sample, group);
    /// the affine index is the channel.
    Group {
        channels: usize,
        groups: usize,
        hw: usize,
    },
}

/// The gradients `(input, weight, bias)` of a row normalisation `(x - mean) * rstd * w + b`
/// (torch's `native_layer_norm_backward`, `native_group_norm_backward`, and `rms_norm`'s
/// formula); the statistics are recomputed from `input` as the forward computed them. `rows`
/// rows of `len` elements; `weight` has one value per affine index. Gradients of `weight` /
/// `bias` are `None` unless asked for.
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
pub fn norm_rows_backward(
    kind: RowNorm,
    grad: &Tensor,
    input: &Tensor,
    weight: Option<&Tensor>,
    rows: usize,
    len: usize,
    eps: f64,
    need_weight: bool,
    need_bias: bool,
) -> Result<(Tensor, Option<Tensor>, Option<Tensor>)> {
    if grad.sizes() != input.sizes() {
        return Err(shape_mismatch("native_layer_norm_backward", grad, input));
    }
    let nparam = match kind {
        RowNorm::Group { channels, .. } => channels,
        _ => len,
    };
    float_dispatch!(input.dtype(), "native_layer_norm_backward", T => {
        let (g, x) = (as_t::<T>(grad)?, as_t::<T>(input)?);
        // SAFETY: both are contiguous of dtype `T`, read only here.
        let (gs, xs) = unsafe { (elems::<T>(&g), elems::<T>(&x)) };
        let w: Option<Vec<f64>> = match weight {
            Some(w) => Some(w.to_dtype(crate::core::dtype::DType::Float64)?.to_vec::<f64>()),
            None => None,
        };
        let rms = kind == RowNorm::Rms;
        // The weight of each column of a row (for group norm, of the row's group), and the
        // per-column sums of g * xhat and g (folded into channels per row for group norm).
        let mut wrow = vec![1.0f64; len];
        let mut wrow_group = usize::MAX;
        if let (Some(w), RowNorm::Layer | RowNorm::Rms) = (&w, kind) {
            wrow.copy_from_slice(&w[..len]);
        }
        let mut dwc = vec![0.0f64; if need_weight { len } else { 0 }];
        let mut dbc = vec![0.0f64; if need_bias { len } else { 0 }];
        let mut dw = vec![0.0f64; if need_weight { nparam } else { 0 }];
        let mut db = vec![0.0f64; if need_bias { nparam } else { 0 }];
        let inv_n = if len == 0 { 0.0 } else { 1.0 / len as f64 };
        let dx = new_with::<T>(input.sizes(), |o| {
            for r in 0..rows {
                crate::core::interrupt::checkpoint();
                if let RowNorm::Group { channels, groups, hw } = kind {
                    let grp = r % groups;
                    if grp != wrow_group {
                        wrow_group = grp;
                        let cpg = channels / groups;
                        for (c, v) in wrow.iter_mut().enumerate() {
                            *v = w.as_ref().map_or(1.0, |w| w[grp * cpg + c / hw]);
                        }
                    }
                }
                let row = NormRow {
                    xr: &xs[r * len..(r + 1) * len],
                    gr: &gs[r * len..(r + 1) * len],
                    wrow: &wrow,
                    rms,
                    eps,
                    inv_n,
                };
                let orow = &mut o[r * len..(r + 1) * len];
                let (dwr, dbr) = (
                    if need_weight { Some(&mut dwc[..]) } else { None },
                    if need_bias { Some(&mut dbc[..]) } else { None },
                );
                norm_row_backward_at(&row, orow, dwr, dbr);
                if let RowNorm::Group { channels, groups, hw } = kind {
                    let base = (r % groups) * (channels / groups);
                    if need_weight {
                        for (k, ch) in dwc.chunks(hw.max(1)).enumerate() {
                            dw[base + k] += ch.iter().sum::<f64>();
                        }
                        dwc.iter_mut().for_each(|v| *v = 0.0);
                    }
                    if need_bias {
                        for (k, ch) in dbc.chunks(hw.max(1)).enumerate() {
                            db[base + k] += ch.iter().sum::<f64>();
                        }
                        dbc.iter_mut().for_each(|v| *v = 0.0);
                    }
                }
            }
            Ok(())
        })?;
        if !matches!(kind, RowNorm::Group { .. }) {
            dw = dwc;
            db = dbc;
        }
        let to_t = |v: Vec<f64>| -> Result<Tensor> {
            Tensor::from_vec(v.into_iter().map(T::of).collect::<Vec<T>>(), &[nparam])
        };
        let dw = if need_weight { Some(to_t(dw)?) } else { None };
        let db = if need_bias { Some(to_t(db)?) } else { None };
        Ok((dx, dw, db))
    })
}

/// One row of [`norm_rows_backward`]: its input and gradient, the weight of each column.
struct NormRow<'a, T> {
    xr: &'a [T],
    gr: &'a [T],
    wrow: &'a [f64],
    rms: bool,
    eps: f64,
    inv_n: f64,
}

/// The input gradient of one normalised row into `orow`, and its per-column contributions to
/// the weight / bias gradients. With `xhat = (x - mean) rstd`, `a = sum(g w xhat)`,
/// `b = sum(g w)`: `dx = rstd (g w - (b + xhat a) / n)`, written as
/// `g w c1 + x c2 + c3` in the input's dtype. The statistics and the sums `sum(g w x)`,
/// `sum(g w)` run over eight f64 lanes (the same order at every CPU level), four passes over
/// the row in all (mean, variance, the sums, the output with the weight / bias columns).
#[inline(always)]
fn norm_row_backward<T: Float>(
    row: &NormRow<'_, T>,
    orow: &mut [T],
    dwc: Option<&mut [f64]>,
    dbc: Option<&mut [f64]>,
) {
    let (xr, gr, wr, len) = (row.xr, row.gr, row.wrow, row.xr.len());
    if len == 0 {
        return;
    }
    let (mean, var) = row_moments(xr, row.rms);
    let rstd = 1.0 / (var + row.eps).sqrt();
    // s1 = sum(g w x), s2 = sum(g w).
    let mut s1 = [0.0f64; 8];
    let mut s2 = [0.0f64; 8];
    let (cx, cg, cw) = (xr.chunks_exact(8), gr.chunks_exact(8), wr.chunks_exact(8));
    let (rx, rg, rw) = (cx.remainder(), cg.remainder(), cw.remainder());
    for ((x, g), w) in cx.zip(cg).zip(cw) {
        for k in 0..8 {
            let gw = g[k].f64() * w[k];
            s1[k] += gw * x[k].f64();
            s2[k] += gw;
        }
    }
    let (mut t1, mut t2) = (0.0, 0.0);
    for ((x, g), w) in rx.iter().zip(rg).zip(rw) {
        let gw = g.f64() * w;
        t1 += gw * x.f64();
        t2 += gw;
    }
    let sum1 = s1.iter().sum::<f64>() + t1;
    let b = if row.rms {
        0.0
    } else {
        s2.iter().sum::<f64>() + t2
    };
    // a = sum(g w (x - mean)) rstd
    let a = (sum1 - mean * (s2.iter().sum::<f64>() + t2)) * rstd;
    let inv_n = row.inv_n;
    let c2 = -rstd * rstd * a * inv_n;
    let c3 = -rstd * b * inv_n - c2 * mean;
    let (c1, c2, c3) = (rstd, c2, c3);
    for c in 0..len {
        orow[c] = T::of((gr[c].f64() * wr[c]) * c1 + xr[c].f64() * c2 + c3);
    }
    if let Some(dwc) = dwc {
        for c in 0..len {
            dwc[c] += gr[c].f64() * ((xr[c].f64() - mean) * rstd);
        }
    }
    if let Some(dbc) = dbc {
        for c in 0..len {
            dbc[c] += gr[c].f64();
        }
    }
}

/// The mean (0 for `rms`) and the biased variance about it (the mean square for `rms`) of a
/// row, in eight f64 lanes.
#[inline(always)]
fn row_moments<T: Float>(xr: &[T], rms: bool) -> (f64, f64) {
    let n = xr.len() as f64;
    let chunks = xr.chunks_exact(8);
    let rest = chunks.remainder();
    let mean = if rms {
        0.0
    } else {
        let mut acc = [0.0f64; 8];
        for c in chunks.clone() {
            for k in 0..8 {
                acc[k] += c[k].f64();
            }
        }
        (acc.iter().sum::<f64>() + rest.iter().map(|v| v.f64()).sum::<f64>()) / n
    };
    let mut sq = [0.0f64; 8];
    for c in chunks {
        for k in 0..8 {
            let d = c[k].f64() - mean;
            sq[k] += d * d;
        }
    }
    let tail: f64 = rest
        .iter()
        .map(|v| {
            let d = v.f64() - mean;
            d * d
        })
        .sum();
    (mean, (sq.iter().sum::<f64>() + tail) / n)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn norm_row_backward_avx2<T: Float>(
    row: &NormRow<'_, T>,
    orow: &mut [T],
    dwc: Option<&mut [f64]>,
    dbc: Option<&mut [f64]>,
) {
    norm_row_backward(row, orow, dwc, dbc)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn norm_row_backward_avx512<T: Float>(
    row: &NormRow<'_, T>,
    orow: &mut [T],
    dwc: Option<&mut [f64]>,
    dbc: Option<&mut [f64]>,
) {
    norm_row_backward(row, orow, dwc, dbc)
}

/// [`norm_row_backward`] at the CPU's vector level (`vecmath::level()`).
fn norm_row_backward_at<T: Float>(
    row: &NormRow<'_, T>,
    orow: &mut [T],
    dwc: Option<&mut [f64]>,
    dbc: Option<&mut [f64]>,
) {
    match vecmath::level() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `level()` reports AVX-512F only when the CPU has it (and AVX2 + FMA).
        vecmath::Level::Avx512 => unsafe { norm_row_backward_avx512(row, orow, dwc, dbc) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `level()` reports AVX2 only when the CPU has AVX2 and FMA.
        vecmath::Level::Avx2 => unsafe { norm_row_backward_avx2(row, orow, dwc, dbc) },
        _ => norm_row_backward(row, orow, dwc, dbc),
    }
}

/// The gradients `(input, weight, bias)` of `batch_norm` over `(N, C, *)` input (torch's
/// `native_batch_norm_backward`). `stats` is `None` in training (the batch statistics are
/// recomputed from `input`, as the forward computed them) or the running `(mean, invstd)` the
/// forward used in evaluation.
#[allow(clippy::type_complexity)]
pub fn batch_norm_backward(
    grad: &Tensor,
    input: &Tensor,
    weight: Option<&Tensor>,
    stats: Option<(&[f64], &[f64])>,
    eps: f64,
    need_weight: bool,
    need_bias: bool,
) -> Result<(Tensor, Option<Tensor>, Option<Tensor>)> {
    if grad.sizes() != input.sizes() {
        return Err(shape_mismatch("native_batch_norm_backward", grad, input));
    }
    let (n, c) = (input.sizes()[0], input.sizes()[1]);
    let s: usize = input.sizes()[2..].iter().product();
    let m = n * s;
    float_dispatch!(input.dtype(), "batch_norm_backward", T => {
        let (g, x) = (as_t::<T>(grad)?, as_t::<T>(input)?);
        // SAFETY: both are contiguous of dtype `T`, read only here.
        let (gs, xs) = unsafe { (elems::<T>(&g), elems::<T>(&x)) };
        let w: Option<Vec<f64>> = match weight {
            Some(w) => Some(w.to_dtype(crate::core::dtype::DType::Float64)?.to_vec::<f64>()),
            None => None,
        };
        let mut mean = vec![0.0f64; c];
        let mut invstd = vec![0.0f64; c];
        match stats {
            Some((rm, ri)) => {
                mean.copy_from_slice(rm);
                invstd.copy_from_slice(ri);
            }
            None => {
                for ch in 0..c {
                    let mut sum = 0.0;
                    for i in 0..n {
                        sum += xs[(i * c + ch) * s..(i * c + ch + 1) * s].iter().map(|v| v.f64()).sum::<f64>();
                    }
                    let mu = if m > 0 { sum / m as f64 } else { f64::NAN };
                    let mut sq = 0.0;
                    for i in 0..n {
                        sq += xs[(i * c + ch) * s..(i * c + ch + 1) * s]
                            .iter()
                            .map(|v| (v.f64() - mu) * (v.f64() - mu))
                            .sum::<f64>();
                    }
                    mean[ch] = mu;
                    invstd[ch] = 1.0 / (sq / m as f64 + eps).sqrt();
                }
            }
        }
        let mut sum_g = vec![0.0f64; c];
        let mut sum_gx = vec![0.0f64; c];
        for i in 0..n {
            for ch in 0..c {
                let base = (i * c + ch) * s;
                for k in base..base + s {
                    let gv = gs[k].f64();
                    sum_g[ch] += gv;
                    sum_gx[ch] += gv * (xs[k].f64() - mean[ch]) * invstd[ch];
                }
            }
        }
        let training = stats.is_none();
        let dx = new_with::<T>(input.sizes(), |o| {
            for i in 0..n {
                for ch in 0..c {
                    let wv = w.as_ref().map_or(1.0, |w| w[ch]);
                    let base = (i * c + ch) * s;
                    let (mg, mgx) = (sum_g[ch] / m as f64, sum_gx[ch] / m as f64);
                    for k in base..base + s {
                        let gv = gs[k].f64();
                        o[k] = T::of(if training {
                            let xh = (xs[k].f64() - mean[ch]) * invstd[ch];
                            wv * invstd[ch] * (gv - mg - xh * mgx)
                        } else {
                            gv * wv * invstd[ch]
                        });
                    }
                }
            }
            Ok(())
        })?;
        let to_t = |v: &[f64]| -> Result<Tensor> {
            Tensor::from_vec(v.iter().map(|&x| T::of(x)).collect::<Vec<T>>(), &[c])
        };
        let dw = if need_weight { Some(to_t(&sum_gx)?) } else { None };
        let db = if need_bias { Some(to_t(&sum_g)?) } else { None };
        Ok((dx, dw, db))
    })
}

/// col2im: the columns `(N, C * kd * kh * kw, od * oh * ow)` of [`super::conv`]'s im2col
/// summed back into a contiguous `(N, C, D, H, W)` image (the adjoint of im2col).
fn col2im<T: Float>(cols: &[T], n: usize, c: usize, g: &Win3, x: &mut [T]) {
    let l = g.l();
    let vol: usize = g.i.iter().product();
    let rows = c * g.taps();
    let [_, ih, iw] = g.i;
    let [od, oh, ow] = g.o;
    for b in 0..n {
        crate::core::interrupt::checkpoint();
        for ch in 0..c {
            let vol_x = &mut x[(b * c + ch) * vol..(b * c + ch + 1) * vol];
            for tz in 0..g.k[0] {
                for ty in 0..g.k[1] {
                    for tx in 0..g.k[2] {
                        let r = ((ch * g.k[0] + tz) * g.k[1] + ty) * g.k[2] + tx;
                        let src = &cols[(b * rows + r) * l..(b * rows + r + 1) * l];
                        for oz in 0..od {
                            let Some(iz) = g.at(0, oz, tz) else { continue };
                            let plane = &mut vol_x[iz * ih * iw..(iz + 1) * ih * iw];
                            for oy in 0..oh {
                                let Some(iy) = g.at(1, oy, ty) else { continue };
                                let dst = &mut plane[iy * iw..(iy + 1) * iw];
                                let row = &src[(oz * oh + oy) * ow..(oz * oh + oy + 1) * ow];
                                for (ox, &v) in row.iter().enumerate() {
                                    if let Some(ix) = g.at(2, ox, tx) {
                                        dst[ix] += v;
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The geometry of a (1-d, 2-d or 3-d) convolution as the forward computed it. `transposed`:
/// the forward was `conv_transpose` (the adjoint of the convolution these parameters describe).
#[derive(Clone, Debug)]
pub struct ConvParams {
    pub stride: Vec<i64>,
    pub padding: Vec<i64>,
    pub dilation: Vec<i64>,
    pub groups: i64,
    pub transposed: bool,
}

// Note [conv as 3-d]
// ~~~~~~~~~~~~~~~~~~
// The convolution kernels (im2col in conv.rs, col2im here) are written once, for 3 spatial
// dims: a 1-d or 2-d convolution is the 3-d one whose missing leading dims have size 1,
// kernel 1, stride 1, padding 0 and dilation 1 (`Win3`, `as3`). Its columns are then exactly
// the lower-rank ones, so conv1d/2d/3d and their transposes share one loop (no copy per rank,
// no monomorphisation beyond the float type).

/// A convolution seen as 3-d (see Note [conv as 3-d]): batch `n`, channels `c`, the spatial
/// geometry `win`, `g` groups of `og` output channels, `k` the column height per group.
struct ConvGeo {
    n: usize,
    c: usize,
    win: Win3,
    g: usize,
    og: usize,
    k: usize,
}

/// The geometry of the convolution of an input of `input_sizes` by a weight of `weight_sizes`
/// whose output has `out_sizes`.
fn conv_geo(
    input_sizes: &[usize],
    weight_sizes: &[usize],
    out_sizes: &[usize],
    p: &ConvParams,
) -> ConvGeo {
    let sp = weight_sizes.len() - 2;
    let param = |v: &[i64]| -> Vec<usize> {
        (0..sp)
            .map(|i| (if v.len() == 1 { v[0] } else { v[i] }) as usize)
            .collect()
    };
    let win = Win3 {
        i: as3(&input_sizes[2..], 1),
        k: as3(&weight_sizes[2..], 1),
        s: as3(&param(&p.stride), 1),
        p: as3(&param(&p.padding), 0),
        d: as3(&param(&p.dilation), 1),
        o: as3(&out_sizes[2..], 1),
    };
    let g = p.groups as usize;
    ConvGeo {
        n: input_sizes[0],
        c: input_sizes[1],
        win,
        g,
        og: weight_sizes[0] / g,
        k: weight_sizes[1] * win.taps(),
    }
}

/// The gradient of a convolution's input (of `input_sizes`) from the gradient of its output:
/// `W^T @ grad` per group, summed back into the image (col2im). This is also the forward of
/// the transposed convolution.
pub fn conv_input_grad(
    grad: &Tensor,
    input_sizes: &[usize],
    weight: &Tensor,
    p: &ConvParams,
) -> Result<Tensor> {
    let q = conv_geo(input_sizes, weight.sizes(), grad.sizes(), p);
    let l = q.win.l();
    let gy = ops::reshape(
        &contiguous_of(grad)?,
        &[q.n as i64, q.g as i64, q.og as i64, l as i64],
    )?;
    float_dispatch!(weight.dtype(), "convolution_backward", T => {
        // (G, K, Og) @ (N, G, Og, L): (N, G, K, L), the columns of the input gradient.
        let wg = ops::reshape(weight, &[q.g as i64, q.og as i64, q.k as i64])?;
        let dcols = ops::matmul(&ops::transpose(&wg, 1, 2)?, &as_t::<T>(&gy)?)?;
        let dcols = contiguous_of(&dcols)?;
        // SAFETY: `dcols` is contiguous of dtype `T` (matmul keeps the dtype).
        let ds = unsafe { elems::<T>(&dcols) };
        new_with::<T>(input_sizes, |xo| {
            col2im(ds, q.n, q.c, &q.win, xo);
            Ok(())
        })
    })
}

/// [`conv_input_grad`] for int64 (torch's transposed convolution of integers, wrapping on
/// overflow): the columns `W^T @ grad` in int64, summed back into the image through the
/// im2col positions (`index_add`) instead of col2im.
pub fn conv_input_grad_int(
    grad: &Tensor,
    input_sizes: &[usize],
    weight: &Tensor,
    p: &ConvParams,
) -> Result<Tensor> {
    let q = conv_geo(input_sizes, weight.sizes(), grad.sizes(), p);
    let l = q.win.l();
    let gy = ops::reshape(grad, &[q.n as i64, q.g as i64, q.og as i64, l as i64])?;
    let wg = ops::reshape(weight, &[q.g as i64, q.og as i64, q.k as i64])?;
    let dcols = ops::matmul(&ops::transpose(&wg, 1, 2)?, &gy)?;
    let pos = super::conv::im2col_positions(q.n, q.c, &q.win)?;
    let numel: usize = input_sizes.iter().product();
    let z = ops::zeros(&[numel as i64 + 1], Some(grad.dtype()))?;
    let sum = ops::index_add(
        &z,
        0,
        &ops::reshape(&pos, &[-1])?,
        &ops::reshape(&dcols, &[-1])?,
        Scalar::Int(1),
    )?;
    let sum = ops::narrow(&sum, 0, 1, numel as i64)?;
    ops::reshape(
        &sum,
        &input_sizes.iter().map(|&x| x as i64).collect::<Vec<_>>(),
    )
}

/// The gradient of a convolution's weight (of `weight_sizes`) from the gradient of its output
/// and its input: `grad @ im2col(input)^T` per group, summed over the batch.
pub fn conv_weight_grad(
    grad: &Tensor,
    input: &Tensor,
    weight_sizes: &[usize],
    p: &ConvParams,
) -> Result<Tensor> {
    let q = conv_geo(input.sizes(), weight_sizes, grad.sizes(), p);
    let l = q.win.l();
    let gy = ops::reshape(
        &contiguous_of(grad)?,
        &[q.n as i64, q.g as i64, q.og as i64, l as i64],
    )?;
    float_dispatch!(input.dtype(), "convolution_backward", T => {
        let x = contiguous_of(input)?;
        // SAFETY: `x` is contiguous of dtype `T`.
        let xs = unsafe { elems::<T>(&x) };
        let cols = new_with::<T>(&[q.n, q.c * q.win.taps(), l], |cols| {
            super::conv::im2col(xs, q.n, q.c, &q.win, cols);
            Ok(())
        })?;
        let cols = ops::reshape(&cols, &[q.n as i64, q.g as i64, q.k as i64, l as i64])?;
        // (N, G, Og, L) @ (N, G, L, K) summed over N: (G, Og, K).
        let per = ops::matmul(&as_t::<T>(&gy)?, &ops::transpose(&cols, 2, 3)?)?;
        let s = ops::sum(&per, Some(&[0]), false, None)?;
        ops::reshape(&s, &weight_sizes.iter().map(|&x| x as i64).collect::<Vec<_>>())
    })
}

/// `convolution_backward(grad_output, input, weight, ...)`: the gradients `(input, weight,
/// bias)` of a batched 1-d, 2-d or 3-d convolution (`input` `(N, C, *)`, `weight` `(O, C / groups,
/// *k)`), or of the transposed convolution (`weight` `(C, O / groups, *k)`), each only when
/// `mask` asks for it. The bias gradient is the sum of `grad` over all but the channel dim.
/// For the transposed convolution `y = conv^T(x, W)`: the input gradient is the convolution
/// of `grad`, the weight gradient the convolution's weight gradient with the roles of `x`
/// (output side) and `grad` (input side) swapped.
#[allow(clippy::type_complexity)]
pub fn convolution_backward(
    grad: &Tensor,
    input: &Tensor,
    weight: &Tensor,
    p: &ConvParams,
    mask: [bool; 3],
) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
    let grad_bias = if mask[2] {
        let mut dims = vec![0i64];
        dims.extend((2..grad.dim() as i64).collect::<Vec<_>>());
        Some(ops::sum(grad, Some(&dims), false, None)?)
    } else {
        None
    };
    let (gi, gw) = if p.transposed {
        let gi = if mask[0] {
            let gy = as_t_dyn(grad, weight)?;
            let mut gi = super::conv::convolution(
                &gy,
                weight,
                None,
                &p.stride,
                &p.padding,
                &p.dilation,
                false,
                &[0],
                p.groups,
            )?;
            // With an output padding of at least the stride (allowed below the dilation) the
            // convolution reaches one step past the input: keep the input's extent.
            for d in 2..input.dim() {
                if gi.sizes()[d] > input.sizes()[d] {
                    gi = ops::narrow(&gi, d as i64, 0, input.sizes()[d] as i64)?;
                }
            }
            Some(gi)
        } else {
            None
        };
        let gw = if mask[1] {
            let gy = as_t_dyn(grad, input)?;
            Some(conv_weight_grad(input, &gy, weight.sizes(), p)?)
        } else {
            None
        };
        (gi, gw)
    } else {
        let gi = if mask[0] {
            Some(conv_input_grad(grad, input.sizes(), weight, p)?)
        } else {
            None
        };
        let gw = if mask[1] {
            Some(conv_weight_grad(grad, input, weight.sizes(), p)?)
        } else {
            None
        };
        (gi, gw)
    };
    Ok((gi, gw, grad_bias))
}

/// `t` in `like`'s dtype.
fn as_t_dyn(t: &Tensor, like: &Tensor) -> Result<Tensor> {
    if t.dtype() == like.dtype() {
        Ok(t.clone())
    } else {
        t.to_dtype(like.dtype())
    }
}

/// `max_pool2d_with_indices_backward`: the gradient of each output element added at the input
/// element its index chose (`indices` are flat indices into each `H * W` plane, as the
/// forward returns them).
pub fn max_pool2d_backward(
    grad: &Tensor,
    input_sizes: &[usize],
    indices: &Tensor,
) -> Result<Tensor> {
    if grad.sizes() != indices.sizes() {
        return Err(Error::runtime(
            "max_pool2d_with_indices_backward: grad_output does not match indices",
        ));
    }
    let nd = input_sizes.len();
    let plane = input_sizes[nd - 2] * input_sizes[nd - 1];
    let ol = indices.sizes()[nd - 2] * indices.sizes()[nd - 1];
    let idx: Vec<i64> = contiguous_of(indices)?.to_vec::<i64>();
    float_dispatch!(grad.dtype(), "max_pool2d_with_indices_backward", T => {
        let g = as_t::<T>(grad)?;
        // SAFETY: contiguous of dtype `T`.
        let gs = unsafe { elems::<T>(&g) };
        new_with::<T>(input_sizes, |o| {
            if ol == 0 {
                return Ok(());
            }
            for (pl, (gp, ip)) in gs.chunks(ol).zip(idx.chunks(ol)).enumerate() {
                let dst = &mut o[pl * plane..(pl + 1) * plane];
                for (&gv, &i) in gp.iter().zip(ip) {
                    if i >= 0 && (i as usize) < plane {
                        dst[i as usize] += gv;
                    }
                }
            }
            Ok(())
        })
    })
}

/// `embedding_dense_backward`: the gradient of `weight` `(num_weights, D)` from the gradient of
/// the gathered rows (`indices.shape + [D]`): each row's gradient added at its index, none at
/// `padding_idx`; with `scale_grad_by_freq`, divided by how often the index occurs.
pub fn embedding_backward(
    grad: &Tensor,
    indices: &Tensor,
    num_weights: usize,
    padding_idx: i64,
    scale_grad_by_freq: bool,
) -> Result<Tensor> {
    let idx: Vec<i64> = indices
        .to_dtype(crate::core::dtype::DType::Int64)?
        .contiguous()?
        .to_vec::<i64>();
    let d = *grad.sizes().last().unwrap_or(&0);
    let mut counts = vec![0usize; if scale_grad_by_freq { num_weights } else { 0 }];
    if scale_grad_by_freq {
        for &i in &idx {
            if i >= 0 && (i as usize) < num_weights {
                counts[i as usize] += 1;
            }
        }
    }
    float_dispatch!(grad.dtype(), "embedding_dense_backward", T => {
        let g = as_t::<T>(grad)?;
        // SAFETY: contiguous of dtype `T`.
        let gs = unsafe { elems::<T>(&g) };
        new_with::<T>(&[num_weights, d], |o| {
            for (r, &i) in idx.iter().enumerate() {
                if i == padding_idx || i < 0 || i as usize >= num_weights {
                    continue;
                }
                let scale = if scale_grad_by_freq { T::ONE / T::of(counts[i as usize] as f64) } else { T::ONE };
                let dst = &mut o[i as usize * d..(i as usize + 1) * d];
                for (o, &gv) in dst.iter_mut().zip(&gs[r * d..(r + 1) * d]) {
                    *o += gv * scale;
                }
            }
            Ok(())
        })
    })
}

/// The shape check of the pooling backward kernels: `grad` must have the forward's output shape.
fn check_pool_grad(op: &str, grad: &Tensor, out_shape: &[usize]) -> Result<()> {
    if grad.sizes() != out_shape {
        return Err(Error::runtime(format!(
            "{op}: grad_output of size {:?} does not match the output of size {out_shape:?}",
            grad.sizes()
        )));
    }
    Ok(())
}

/// `avg_pool2d_backward`: each output element's gradient divided by its window's divisor (the
/// forward's: `divisor_override`, the window size clipped to the padded input, or the elements
/// inside the input) and added at every input element of the window, as torch's
/// `avg_pool2d_backward_out_cpu`.
#[allow(clippy::too_many_arguments)]
pub fn avg_pool2d_backward(
    grad: &Tensor,
    input_sizes: &[usize],
    kernel_size: &[i64],
    stride: &[i64],
    padding: &[i64],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: Option<i64>,
) -> Result<Tensor> {
    let op = "avg_pool2d_backward";
    let g = super::pool::geometry(
        op,
        input_sizes,
        kernel_size,
        stride,
        padding,
        &[1],
        ceil_mode,
    )?;
    check_pool_grad(op, grad, &g.out_shape)?;
    float_dispatch!(grad.dtype(), op, T => {
        let gr = as_t::<T>(grad)?;
        // SAFETY: contiguous of dtype `T`.
        let gs = unsafe { elems::<T>(&gr) };
        new_with::<T>(input_sizes, |o| {
            let (h, w) = (g.h as isize, g.w as isize);
            let (ph, pw) = (g.p[0] as isize, g.p[1] as isize);
            let mut pos = 0;
            for pl in 0..g.planes {
                crate::core::interrupt::checkpoint();
                let plane = &mut o[pl * g.h * g.w..(pl + 1) * g.h * g.w];
                for oy in 0..g.oh {
                    for ox in 0..g.ow {
                        let mut hs = (oy * g.s[0]) as isize - ph;
                        let mut ws = (ox * g.s[1]) as isize - pw;
                        let mut he = (hs + g.k[0] as isize).min(h + ph);
                        let mut we = (ws + g.k[1] as isize).min(w + pw);
                        let pool_size = (he - hs) * (we - ws);
                        hs = hs.max(0);
                        ws = ws.max(0);
                        he = he.min(h);
                        we = we.min(w);
                        let div = match divisor_override {
                            Some(d) => d as f64,
                            None if count_include_pad => pool_size as f64,
                            None => ((he - hs) * (we - ws)) as f64,
                        };
                        let v = gs[pos] / T::of(div);
                        pos += 1;
                        for y in hs..he {
                            let row = &mut plane[y as usize * g.w..(y as usize + 1) * g.w];
                            for x in &mut row[ws as usize..we.max(ws) as usize] {
                                *x += v;
                            }
                        }
                    }
                }
            }
            Ok(())
        })
    })
}

/// `_adaptive_avg_pool2d_backward`: each output element's gradient divided by its window's size
/// and added over the window `[floor(i H / oh), ceil((i + 1) H / oh))` (likewise in W).
pub fn adaptive_avg_pool2d_backward(grad: &Tensor, input_sizes: &[usize]) -> Result<Tensor> {
    let op = "adaptive_avg_pool2d_backward";
    let nd = input_sizes.len();
    if grad.dim() != nd || grad.sizes()[..nd - 2] != input_sizes[..nd - 2] {
        return Err(Error::runtime(format!(
            "{op}: grad_output of size {:?} does not match the input of size {input_sizes:?}",
            grad.sizes()
        )));
    }
    let (oh, ow) = (grad.sizes()[nd - 2], grad.sizes()[nd - 1]);
    let (h, w) = (input_sizes[nd - 2], input_sizes[nd - 1]);
    let planes: usize = input_sizes[..nd - 2].iter().product();
    float_dispatch!(grad.dtype(), op, T => {
        let gr = as_t::<T>(grad)?;
        // SAFETY: contiguous of dtype `T`.
        let gs = unsafe { elems::<T>(&gr) };
        new_with::<T>(input_sizes, |o| {
            if oh == 0 || ow == 0 {
                return Ok(());
            }
            let mut pos = 0;
            for pl in 0..planes {
                crate::core::interrupt::checkpoint();
                let plane = &mut o[pl * h * w..(pl + 1) * h * w];
                for oy in 0..oh {
                    let (hs, he) = (oy * h / oh, ((oy + 1) * h).div_ceil(oh));
                    for ox in 0..ow {
                        let (ws, we) = (ox * w / ow, ((ox + 1) * w).div_ceil(ow));
                        let v = gs[pos] / T::of(((he - hs) * (we - ws)) as f64);
                        pos += 1;
                        for y in hs..he {
                            for x in &mut plane[y * w + ws..y * w + we] {
                                *x += v;
                            }
                        }
                    }
                }
            }
            Ok(())
        })
    })
}
