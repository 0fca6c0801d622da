//! src/core/autograd/composite_quantile.rs: `quantile` / `nanquantile` under autograd, as torch
//! differentiates them: through their decomposition (torch: CompositeImplicitAutograd in
//! `native/Sorting.cpp`) — each lane sorted (NaN last), the values at `floor(rank)` and
//! `ceil(rank)` gathered, then `lerp`ed (`linear`, `midpoint`) or taken as they are (`lower`,
//! `higher`, `nearest`). The gradient therefore goes to the sorted positions torch's goes to
//! (ties: the sort's order; a lane with a NaN: to the NaN, as torch). Without grad the bare
//! kernel (src/core/ops/quantile.rs) runs; with grad it runs too, for the checks, the errors and
//! the output shape.

use super::variable_type as vt;
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::core::ops;
use crate::core::tensor::{maybe_wrap_dim, Tensor};

/// The recorded decomposition; `out` is the kernel's result (its shape is the result's).
fn decomposed(
    input: &Tensor,
    q: &Tensor,
    dim: Option<i64>,
    interpolation: &str,
    ignore_nan: bool,
    out: &Tensor,
) -> Result<Tensor> {
    let (x, d) = match dim {
        Some(d) if input.dim() > 0 => (input.clone(), maybe_wrap_dim(d, input.dim())? as i64),
        _ => (vt::reshape(input, &[-1])?, 0),
    };
    let (sorted, _) = vt::sort(&x, d, false, false)?;
    // Lanes last: [lanes..., n].
    let moved = vt::movedim(&sorted, d, -1)?;
    let n = moved.sizes()[moved.dim() - 1];
    let lanes = moved.numel() / n.max(1);
    let vals = moved
        .detach()
        .to_dtype(DType::Float64)?
        .contiguous()?
        .to_vec::<f64>();
    let qs = q.to_dtype(DType::Float64)?.contiguous()?.to_vec::<f64>();
    let f32 = input.dtype() == DType::Float32;
    // The rank in the input's dtype, as the kernel rounds it.
    let in_dtype = |r: f64| if f32 { r as f32 as f64 } else { r };
    let mut below = Vec::with_capacity(lanes * qs.len());
    let mut above = Vec::with_capacity(lanes * qs.len());
    let mut weight = Vec::with_capacity(lanes * qs.len());
    for l in 0..lanes {
        let lane = &vals[l * n..(l + 1) * n];
        let nan_count = lane.iter().filter(|v| v.is_nan()).count();
        let last = n as f64 - 1.0;
        for &qv in &qs {
            let mut rank = if ignore_nan {
                in_dtype(qv * ((n - nan_count) as f64 - 1.0)).max(0.0)
            } else if nan_count > 0 {
                last
            } else {
                in_dtype(qv * last)
            };
            match interpolation {
                "lower" => rank = rank.floor(),
                "higher" => rank = rank.ceil(),
                "nearest" => rank = rank.round_ties_even(),
                _ => {}
            }
            let b = rank.floor();
            below.push(b as i64);
            above.push(rank.ceil() as i64);
            weight.push(if interpolation == "midpoint" {
                0.5
            } else {
                rank - b
            });
        }
    }
    let mut shape = moved.sizes()[..moved.dim() - 1].to_vec();
    shape.push(qs.len());
    let below = Tensor::from_vec(below, &shape)?;
    let lo = vt::gather(&moved, -1, &below)?;
    let r = if matches!(interpolation, "linear" | "midpoint") {
        let above = Tensor::from_vec(above, &shape)?;
        let hi = vt::gather(&moved, -1, &above)?;
        let w = Tensor::from_vec(weight, &shape)?.to_dtype(input.dtype())?;
        vt::lerp_tensor(&lo, &hi, &w)?
    } else {
        lo
    };
    // [lanes..., Q] → [Q, lanes...] → the kernel's shape (q's length in front when q is 1-dim,
    // the reduced dims in order, keepdim's ones).
    let r = vt::movedim(&r, -1, 0)?;
    let shape: Vec<i64> = out.sizes().iter().map(|&s| s as i64).collect();
    vt::reshape(&r, &shape)
}

/// `quantile(input, q: Tensor, ...)`, recorded through its decomposition.
pub fn quantile(
    input: &Tensor,
    q: &Tensor,
    dim: Option<i64>,
    keepdim: bool,
    interpolation: &str,
) -> Result<Tensor> {
    let out = ops::quantile(input, q, dim, keepdim, interpolation)?;
    if !vt::should_record(&[input]) {
        return Ok(out);
    }
    decomposed(input, q, dim, interpolation, false, &out)
}

/// `quantile(input, q: float, ...)`, recorded through its decomposition.
pub fn quantile_scalar(
    input: &Tensor,
    q: f64,
    dim: Option<i64>,
    keepdim: bool,
    interpolation: &str,
) -> Result<Tensor> {
    let out = ops::quantile_scalar(input, q, dim, keepdim, interpolation)?;
    if !vt::should_record(&[input]) {
        return Ok(out);
    }
    let qt = Tensor::from_vec(vec![q], &[])?.to_dtype(input.dtype())?;
    decomposed(input, &qt, dim, interpolation, false, &out)
}

/// `nanquantile(input, q: Tensor, ...)`, recorded through its decomposition.
pub fn nanquantile(
    input: &Tensor,
    q: &Tensor,
    dim: Option<i64>,
    keepdim: bool,
    interpolation: &str,
) -> Result<Tensor> {
    let out = ops::nanquantile(input, q, dim, keepdim, interpolation)?;
    if !vt::should_record(&[input]) {
        return Ok(out);
    }
    decomposed(input, q, dim, interpolation, true, &out)
}

/// `nanquantile(input, q: float, ...)`, recorded through its decomposition.
pub fn nanquantile_scalar(
    input: &Tensor,
    q: f64,
    dim: Option<i64>,
    keepdim: bool,
    interpolation: &str,
) -> Result<Tensor> {
    let out = ops::nanquantile_scalar(input, q, dim, keepdim, interpolation)?;
    if !vt::should_record(&[input]) {
        return Ok(out);
    }
    let qt = Tensor::from_vec(vec![q], &[])?.to_dtype(input.dtype())?;
    decomposed(input, &qt, dim, interpolation, true, &out)
}
