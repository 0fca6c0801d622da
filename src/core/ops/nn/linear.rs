//! src/core/ops/nn/linear.rs: `linear` and `bilinear` (PyTorch: `native/Linear.cpp`), over the
//! core's `matmul` (the blocked GEMM of ops/gemm.rs).

use crate::core::error::{Error, Result};
use crate::core::ops;
use crate::core::scalar::Scalar;
use crate::core::tensor::Tensor;

/// `linear(input, weight, bias=None)`: `input @ weight.T + bias`; `input` `(*, in)`, `weight`
/// `(out, in)` (or `(in,)`), `bias` broadcast to the result. Mirrors `torch._C._nn.linear`.
pub fn linear(input: &Tensor, weight: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
    if input.dim() == 0 || weight.dim() == 0 {
        return Err(Error::runtime(
            "both arguments to linear need to be at least 1D, but they are 0D",
        ));
    }
    if weight.dim() == 2 {
        // torch folds the input to a matrix and calls `addmm`, whose text this is.
        let k = input.sizes()[input.dim() - 1];
        if k != weight.sizes()[1] {
            let rows: usize = input.sizes()[..input.dim() - 1].iter().product();
            return Err(Error::runtime(format!(
                "mm: mat1 and mat2 shapes cannot be multiplied ({}x{k} and {}x{})",
                rows.max(if input.dim() == 1 { 1 } else { 0 }),
                weight.sizes()[1],
                weight.sizes()[0]
            )));
        }
    }
    let wt = if weight.dim() == 2 {
        ops::t(weight)?
    } else {
        weight.alias()
    };
    let y = ops::matmul(input, &wt)?;
    match bias {
        None => Ok(y),
        Some(b) => {
            // torch adds the bias in place into the product: the bias must broadcast to it.
            let shape: Vec<i64> = y.sizes().iter().map(|&s| s as i64).collect();
            let bb = ops::expand(b, &shape)?;
            ops::add(&y, &bb, Scalar::Int(1))
        }
    }
}

/// `bilinear(input1, input2, weight, bias=None)`: `y[..., o] = sum_ij x1[..., i] W[o, i, j]
/// x2[..., j] + b[o]`. Mirrors `torch.bilinear`.
pub fn bilinear(
    input1: &Tensor,
    input2: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
) -> Result<Tensor> {
    if input1.dim() == 0 || input2.dim() == 0 {
        return Err(Error::runtime(
            "bilinear(): input dimensions must be at least 1, but got 0",
        ));
    }
    if input1.dim() != input2.dim() {
        return Err(Error::runtime(format!(
            "bilinear(): input dimensions do not match: got {} and {}",
            input1.dim(),
            input2.dim()
        )));
    }
    for d in 0..input1.dim().saturating_sub(1) {
        if input1.sizes()[d] != input2.sizes()[d] {
            return Err(Error::runtime(format!(
                "bilinear(): input batch dimensions do not match: got {:?} and {:?}",
                input1.sizes(),
                input2.sizes()
            )));
        }
    }
    if weight.dim() != 3 {
        return Err(Error::runtime(format!(
            "bilinear(): weight must be 3-dimensional, but got {} dimensions",
            weight.dim()
        )));
    }
    let (o, i, j) = (weight.sizes()[0], weight.sizes()[1], weight.sizes()[2]);
    let last = |t: &Tensor| t.sizes().last().copied().unwrap_or(1);
    if last(input1) != i {
        return Err(Error::runtime(format!(
            "bilinear(): input1 size does not match weight size: got {} but expected {}",
            last(input1),
            i
        )));
    }
    if last(input2) != j {
        return Err(Error::runtime(format!(
            "bilinear(): input2 size does not match weight size: got {} but expected {}",
            last(input2),
            j
        )));
    }
    if let Some(b) = bias {
        if b.dim() != 1 || b.sizes()[0] != o {
            return Err(Error::runtime(format!(
                "bilinear(): bias size does not match weight size: got {} but expected {}",
                b.sizes().first().copied().unwrap_or(0),
                o
            )));
        }
    }
    let batch: Vec<usize> = input1.sizes()[..input1.dim() - 1].to_vec();
    let x1 = ops::reshape(input1, &[-1, i as i64])?;
    let x2 = ops::reshape(input2, &[-1, j as i64])?;
    // tmp[n, o, j] = sum_i x1[n, i] W[o, i, j]
    let w = ops::reshape(
        &ops::permute(weight, &[1, 0, 2])?,
        &[i as i64, (o * j) as i64],
    )?;
    let tmp = ops::reshape(&ops::matmul(&x1, &w)?, &[-1, o as i64, j as i64])?;
    let prod = ops::mul(&tmp, &ops::unsqueeze(&x2, 1)?)?;
    let mut y = ops::sum(&prod, Some(&[-1]), false, None)?;
    if let Some(b) = bias {
        y = ops::add(&y, b, Scalar::Int(1))?;
    }
    let mut shape: Vec<i64> = batch.iter().map(|&s| s as i64).collect();
    shape.push(o as i64);
    ops::reshape(&y, &shape)
}
