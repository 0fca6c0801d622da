//! src/core/autograd/nn_native.rs: the recording wrappers of `linear` and of the nn ops' `native_*`
//! forms (`nll_loss_forward`, `native_layer_norm`, `native_group_norm`, `native_batch_norm`),
//! written over the wrappers of nn_formulas.rs (whose nodes are torch's `NllLossBackward0`,
//! `NativeLayerNormBackward0`, ...): the differentiable output comes from the recorded op, the
//! statistics from the bare kernel (torch: not differentiable, except native_group_norm's, whose
//! gradients torch's formula ignores — here they have no history).

use super::variable_type as vt;
use crate::core::error::Result;
use crate::core::ops;
use crate::core::scalar::Scalar;
use crate::core::tensor::Tensor;

/// The present tensors among `input` and the optional ones.
fn present<'a>(input: &'a Tensor, rest: &[Option<&'a Tensor>]) -> Vec<&'a Tensor> {
    let mut v = vec![input];
    v.extend(rest.iter().flatten());
    v
}

/// `torch._C._nn.linear`: torch's composite (`addmm` for a matrix input with a bias, `mm`
/// without, `matmul` otherwise), so the gradient flows through the recorded ops as in torch.
pub fn linear(input: &Tensor, weight: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
    if !vt::should_record(&present(input, &[Some(weight), bias])) {
        return ops::linear(input, weight, bias);
    }
    if input.dim() == 0 || weight.dim() == 0 {
        // The kernel's text (torch's).
        return ops::linear(input, weight, bias);
    }
    if weight.dim() == 2 && input.sizes()[input.dim() - 1] != weight.sizes()[1] {
        return ops::linear(input, weight, bias);
    }
    let wt = if weight.dim() == 2 {
        vt::t(weight)?
    } else {
        weight.clone()
    };
    match bias {
        Some(b) if input.dim() == 2 && weight.dim() == 2 && b.dim() <= 1 => {
            vt::addmm(b, input, &wt, Scalar::Int(1), Scalar::Int(1))
        }
        None => vt::matmul(input, &wt),
        Some(b) => {
            let y = vt::matmul(input, &wt)?;
            // torch adds the bias in place into the product: the bias must broadcast to it.
            let shape: Vec<i64> = y.sizes().iter().map(|&s| s as i64).collect();
            vt::add(&y, &vt::expand(b, &shape)?, Scalar::Int(1))
        }
    }
}

/// `nll_loss_forward`: the loss recorded as `nll_loss_nd` does (`NllLossBackward0`), the total
/// weight from the kernel (not differentiable, as torch).
pub fn nll_loss_forward(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    reduction: i64,
    ignore_index: i64,
) -> Result<(Tensor, Tensor)> {
    let (out, total) = ops::nll_loss_forward(input, target, weight, reduction, ignore_index)?;
    if !vt::should_record(&[input]) {
        return Ok((out, total));
    }
    let out = vt::nll_loss_nd(input, target, weight, reduction, ignore_index)?;
    Ok((out, total))
}

/// `native_layer_norm`: the output recorded as `layer_norm` (`NativeLayerNormBackward0`), the
/// mean and 1/std from the kernel (torch: not differentiable).
pub fn native_layer_norm(
    input: &Tensor,
    normalized_shape: &[i64],
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> Result<(Tensor, Tensor, Tensor)> {
    let (out, mean, rstd) = ops::native_layer_norm(input, normalized_shape, weight, bias, eps)?;
    if !vt::should_record(&present(input, &[weight, bias])) {
        return Ok((out, mean, rstd));
    }
    let out = vt::layer_norm(input, normalized_shape, weight, bias, eps)?;
    Ok((out, mean, rstd))
}

/// `native_group_norm`: the output recorded as `group_norm` (`NativeGroupNormBackward0`) of the
/// input seen as `(N, C, HxW)`, the mean and 1/std from the kernel (without history: torch
/// gives them the node but its formula ignores their gradients).
#[allow(non_snake_case, clippy::too_many_arguments)]
pub fn native_group_norm(
    input: &Tensor,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    N: i64,
    C: i64,
    HxW: i64,
    group: i64,
    eps: f64,
) -> Result<(Tensor, Tensor, Tensor)> {
    let (out, mean, rstd) = ops::native_group_norm(input, weight, bias, N, C, HxW, group, eps)?;
    if !vt::should_record(&present(input, &[weight, bias])) {
        return Ok((out, mean, rstd));
    }
    let sizes: Vec<i64> = input.sizes().iter().map(|&s| s as i64).collect();
    let out = if sizes.len() >= 2 && sizes[0] == N && sizes[1] == C {
        vt::group_norm(input, group, weight, bias, eps)?
    } else {
        let x = vt::reshape(input, &[N, C, HxW])?;
        vt::reshape(&vt::group_norm(&x, group, weight, bias, eps)?, &sizes)?
    };
    Ok((out, mean, rstd))
}

/// `native_batch_norm`: the output recorded as `batch_norm` (`NativeBatchNormBackward0`, which
/// also updates the running statistics in training, once), the batch mean and 1/std from the
/// kernel run without running statistics (empty in evaluation, as torch; not differentiable).
#[allow(clippy::too_many_arguments)]
pub fn native_batch_norm(
    input: &Tensor,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    running_mean: Option<&Tensor>,
    running_var: Option<&Tensor>,
    training: bool,
    momentum: f64,
    eps: f64,
) -> Result<(Tensor, Tensor, Tensor)> {
    // Nothing to record, or evaluation without statistics (the kernel's error): the bare kernel.
    if !vt::should_record(&present(input, &[weight, bias]))
        || (!training && (running_mean.is_none() || running_var.is_none()))
    {
        return ops::native_batch_norm(
            input,
            weight,
            bias,
            running_mean,
            running_var,
            training,
            momentum,
            eps,
        );
    }
    // The statistics first (no running statistics given: nothing is updated), then the recorded
    // output, which updates the running statistics in training.
    let (_, save_mean, save_invstd) = if training {
        ops::native_batch_norm(input, weight, bias, None, None, true, momentum, eps)?
    } else {
        ops::native_batch_norm(
            input,
            weight,
            bias,
            running_mean,
            running_var,
            false,
            momentum,
            eps,
        )?
    };
    let out = vt::batch_norm(
        input,
        weight,
        bias,
        running_mean,
        running_var,
        training,
        momentum,
        eps,
        false,
    )?;
    Ok((out, save_mean, save_invstd))
}
