//! src/core/ops/nn/misc.rs: `embedding`, `one_hot`, `dropout`, `cosine_similarity`,
//! `pairwise_distance` (PyTorch: `native/Embedding.cpp`, `Onehot.cpp`, `Dropout.cpp`,
//! `Distance.cpp`).

use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::ops;
use crate::core::scalar::Scalar;
use crate::core::tensor::Tensor;

/// `embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False)`: the
/// rows of `weight` at `indices` (shape `indices.shape + [D]`). `padding_idx` only matters to the
/// gradient. Mirrors `torch.embedding`.
pub fn embedding(
    weight: &Tensor,
    indices: &Tensor,
    padding_idx: i64,
    scale_grad_by_freq: bool,
    sparse: bool,
) -> Result<Tensor> {
    let _ = (padding_idx, scale_grad_by_freq, sparse);
    if weight.dim() != 2 {
        return Err(Error::runtime("'weight' must be 2-D"));
    }
    if !matches!(indices.dtype(), DType::Int64 | DType::Int32) {
        return Err(Error::runtime(format!(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got {} instead (while checking arguments for embedding)",
            indices.dtype().scalar_type_name()
        )));
    }
    let flat = ops::reshape(indices, &[-1])?;
    let rows = ops::index_select(weight, 0, &flat)?;
    let mut shape: Vec<i64> = indices.sizes().iter().map(|&s| s as i64).collect();
    shape.push(weight.sizes()[1] as i64);
    ops::reshape(&rows, &shape)
}

/// `one_hot(input, num_classes=-1)`: int64 `input.shape + [num_classes]` with 1 at each class
/// (`-1`: the largest class + 1). Mirrors `torch._C._nn.one_hot`.
pub fn one_hot(input: &Tensor, num_classes: i64) -> Result<Tensor> {
    if input.dtype() != DType::Int64 {
        return Err(Error::runtime(
            "one_hot is only applicable to index tensor of type LongTensor.",
        ));
    }
    let v = input.contiguous()?.to_vec::<i64>();
    let n = if num_classes == -1 {
        if v.is_empty() {
            return Err(Error::runtime(
                "Can not infer total number of classes from empty tensor.",
            ));
        }
        v.iter().copied().max().unwrap_or(0) + 1
    } else {
        num_classes
    };
    if !v.is_empty() {
        if v.iter().any(|&x| x < 0) {
            return Err(Error::runtime("Class values must be non-negative."));
        }
        if v.iter().any(|&x| x >= n) {
            return Err(Error::runtime(
                "Class values must be smaller than num_classes.",
            ));
        }
    }
    if n < 0 {
        return Err(Error::runtime(format!(
            "Expected num_classes to be non-negative or -1, but got {n}"
        )));
    }
    let n = n as usize;
    let mut shape = input.sizes().to_vec();
    shape.push(n);
    let total = crate::core::tensor::checked_numel(&shape)?;
    let mut data = super::super::try_vec::<i64>(total, "one_hot")?;
    data.resize(total, 0);
    for (i, &c) in v.iter().enumerate() {
        data[i * n + c as usize] = 1;
    }
    Tensor::from_vec(data, &shape)
}

/// `dropout(input, p, train)`: in training, each element zeroed with probability `p` (drawn
/// from `_C`'s default generator) and the rest scaled by `1 / (1 - p)`; otherwise (eval, `p ==
/// 0`, no elements) `input` itself, the same tensor, as torch returns it. Mirrors `torch.dropout`.
pub fn dropout(input: &Tensor, p: f64, train: bool) -> Result<Tensor> {
    Ok(dropout_with_mask(input, p, train)?.0)
}

/// `dropout` and the scaled mask it multiplied by (`mask / (1 - p)`, what the backward
/// multiplies the gradient by; `None` when `input` is returned unchanged). torch's
/// `native_dropout` returns the mask the same way.
pub fn dropout_with_mask(input: &Tensor, p: f64, train: bool) -> Result<(Tensor, Option<Tensor>)> {
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::runtime(format!(
            "dropout probability has to be between 0 and 1, but got {p}"
        )));
    }
    if !train || p == 0.0 || input.numel() == 0 {
        return Ok((input.clone(), None));
    }
    if !input.dtype().is_floating_point() {
        return Err(Error::runtime(format!(
            "result type Float can't be cast to the desired output type {}",
            input.dtype().scalar_type_name()
        )));
    }
    if p == 1.0 {
        let zero = Tensor::wrapped_scalar(Scalar::Float(0.0))?;
        let out = ops::mul(input, &zero)?;
        let mask = ops::mul(&ops::ones_like(input, None)?, &zero)?;
        return Ok((out, Some(mask)));
    }
    let mask = ops::bernoulli_p(input, 1.0 - p, None)?;
    let scale = ops::div(
        &mask,
        &Tensor::wrapped_scalar(Scalar::Float(1.0 - p))?,
        None,
    )?;
    let out = ops::mul(input, &scale)?;
    Ok((out, Some(scale)))
}

/// `cosine_similarity(x1, x2, dim=1, eps=1e-8)`: `sum(x1 * x2) / (max(|x1|, eps) max(|x2|,
/// eps))` along `dim`, after broadcasting. Mirrors `torch.cosine_similarity`.
pub fn cosine_similarity(x1: &Tensor, x2: &Tensor, dim: i64, eps: f64) -> Result<Tensor> {
    let shape = crate::core::tensor::broadcast_shapes(x1.sizes(), x2.sizes())?;
    let s: Vec<i64> = shape.iter().map(|&x| x as i64).collect();
    let (a, b) = (ops::expand(x1, &s)?, ops::expand(x2, &s)?);
    let d = [dim];
    let dot = ops::sum(&ops::mul(&a, &b)?, Some(&d), false, None)?;
    let na = ops::clamp(
        &ops::sqrt(&ops::sum(&ops::mul(&a, &a)?, Some(&d), false, None)?)?,
        Some(Scalar::Float(eps)),
        None,
    )?;
    let nb = ops::clamp(
        &ops::sqrt(&ops::sum(&ops::mul(&b, &b)?, Some(&d), false, None)?)?,
        Some(Scalar::Float(eps)),
        None,
    )?;
    ops::div(&dot, &ops::mul(&na, &nb)?, None)
}

/// `pairwise_distance(x1, x2, p=2, eps=1e-6, keepdim=False)`: the p-norm of `x1 - x2 + eps`
/// along the last dim. Mirrors `torch.pairwise_distance`.
pub fn pairwise_distance(
    x1: &Tensor,
    x2: &Tensor,
    p: f64,
    eps: f64,
    keepdim: bool,
) -> Result<Tensor> {
    let d = ops::add(
        &ops::sub(x1, x2, Scalar::Int(1))?,
        &Tensor::wrapped_scalar(Scalar::Float(eps))?,
        Scalar::Int(1),
    )?;
    let last = if d.dim() == 0 { 0 } else { -1 };
    ops::norm(&d, Some(Scalar::Float(p)), Some(&[last]), keepdim)
}
