//! src/core/ops/softmax.rs: `softmax` and `log_softmax` along a dim (PyTorch:
//! `native/SoftMax.cpp`), one fused vectorised kernel per line (Note [Fused softmax]).

use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::parallel::{self, SendPtr};
use crate::core::tensor::{maybe_wrap_dim, Tensor};
use crate::core::vecmath::{self, SoftmaxOp};

/// The input of `softmax`/`log_softmax` after the dtype checks: converted to `dtype` if given.
fn softmax_input(
    input: &Tensor,
    dim: i64,
    dtype: Option<DType>,
    name: &str,
) -> Result<(Tensor, usize)> {
    let d = maybe_wrap_dim(dim, input.dim())?;
    let x = match dtype {
        Some(dt) => input.to_dtype(dt)?,
        None => input.clone(),
    };
    // An empty input is returned as it is, whatever its dtype (torch never reaches the kernel).
    if !x.dtype().is_floating_point() && x.numel() != 0 {
        let last = x.dim() == 0 || d == x.dim() - 1;
        // NotImplementedError, as torch's dispatch error.
        return Err(Error::not_implemented(format!(
            "\"{name}{}\" not implemented for '{}'",
            if last {
                "_lastdim_kernel_impl"
            } else {
                "_kernel_impl"
            },
            x.dtype().scalar_type_name()
        )));
    }
    Ok((x, d))
}

/// `op` along dim `d` of the float tensor `x` (any strides: a non-contiguous input is made
/// contiguous first), into a new contiguous tensor: `x`'s shape, or with `d` removed for
/// logsumexp. Lines are split across threads by `outer` index (each line is computed by the
/// same operations whichever thread runs it), with an interrupt checkpoint per chunk.
pub(crate) fn fused_softmax(x: &Tensor, d: usize, op: SoftmaxOp) -> Result<Tensor> {
    let x = if x.is_contiguous() {
        x.clone()
    } else {
        x.contiguous()?
    };
    let sizes = x.sizes();
    let (outer, dd, inner) = if sizes.is_empty() {
        (1, 1, 1)
    } else {
        (
            sizes[..d].iter().product::<usize>(),
            sizes[d],
            sizes[d + 1..].iter().product::<usize>(),
        )
    };
    let out_sizes: Vec<usize> = if op == SoftmaxOp::LogSumExp && !sizes.is_empty() {
        sizes
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != d)
            .map(|(_, &s)| s)
            .collect()
    } else {
        sizes.to_vec()
    };
    // SAFETY: every element is written below (each output line by its kernel call) before
    // the tensor is returned; `dd == 0` only with logsumexp's lines, handled before.
    let out = unsafe { Tensor::empty_uninit(&out_sizes, x.dtype())? };
    if out.numel() == 0 {
        return Ok(out);
    }
    if dd == 0 {
        // logsumexp of empty lines: log(0) = -inf.
        out.fill_(crate::core::scalar::Scalar::Float(f64::NEG_INFINITY))?;
        return Ok(out);
    }
    let line_in = dd * inner;
    let line_out = if op == SoftmaxOp::LogSumExp {
        inner
    } else {
        dd * inner
    };
    // Lines per task: about 64K elements, so small inputs stay on one thread.
    let grain = (1usize << 16).div_ceil(line_in.max(1)).max(1);
    let f64_ = x.dtype() == DType::Float64;
    let (sp, dp) = if f64_ {
        (
            SendPtr(x.data_ptr::<f64>() as *mut u8),
            SendPtr(out.data_ptr::<f64>() as *mut u8),
        )
    } else {
        (
            SendPtr(x.data_ptr::<f32>() as *mut u8),
            SendPtr(out.data_ptr::<f32>() as *mut u8),
        )
    };
    let level = vecmath::level();
    parallel::parallel_for(outer, grain, |o0, o1| {
        crate::core::interrupt::checkpoint();
        // SAFETY: `x` is contiguous with `outer·dd·inner` elements and `out` fresh with
        // `outer·line_out`; lines o0..o1 are this task's alone (tasks are disjoint) and lie
        // inside both; input and output do not overlap (`out` is new).
        unsafe {
            if f64_ {
                let (s, t) = (sp.get() as *const f64, dp.get() as *mut f64);
                vecmath::softmax_f64_at(
                    level,
                    op,
                    s.add(o0 * line_in),
                    t.add(o0 * line_out),
                    o1 - o0,
                    dd,
                    inner,
                );
            } else {
                let (s, t) = (sp.get() as *const f32, dp.get() as *mut f32);
                vecmath::softmax_f32_at(
                    level,
                    op,
                    s.add(o0 * line_in),
                    t.add(o0 * line_out),
                    o1 - o0,
                    dd,
                    inner,
                );
            }
        }
    });
    Ok(out)
}

/// `softmax(input, dim, dtype=None)`: `exp(x - max) / sum(exp(x - max))` along `dim`, same shape,
/// in `dtype` if given (the input is converted first) else the input's floating dtype.
/// Errors: IndexError for `dim` out of range; RuntimeError "\"softmax_lastdim_kernel_impl\" not
/// implemented for 'Long'" (or `softmax_kernel_impl` for an inner dim) for non-float inputs.
pub fn softmax(input: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
    let (x, d) = softmax_input(input, dim, dtype, "softmax")?;
    if x.numel() == 0 {
        return x.clone_data();
    }
    fused_softmax(&x, d, SoftmaxOp::Softmax)
}

/// `log_softmax(input, dim, dtype=None)`: `x - max - log(sum(exp(x - max)))` along `dim`;
/// otherwise as `softmax` (errors name `log_softmax_lastdim_kernel_impl`).
pub fn log_softmax(input: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
    let (x, d) = softmax_input(input, dim, dtype, "log_softmax")?;
    if x.numel() == 0 {
        return x.clone_data();
    }
    fused_softmax(&x, d, SoftmaxOp::LogSoftmax)
}

#[cfg(test)]
mod tests {
    use crate::core::vecmath::{self, Level, SoftmaxOp};

    /// f64 reference of `op` along `d` of `[outer, d, inner]`.
    fn reference(x: &[f64], outer: usize, d: usize, inner: usize, op: SoftmaxOp) -> Vec<f64> {
        let mut out = Vec::new();
        let mut lse = vec![0.0; outer * inner];
        let mut full = vec![0.0; x.len()];
        for o in 0..outer {
            for j in 0..inner {
                let at = |r: usize| x[(o * d + r) * inner + j];
                let m = (0..d).map(at).fold(f64::NEG_INFINITY, f64::max);
                let m = if (0..d).any(|r| at(r).is_nan()) {
                    f64::NAN
                } else {
                    m
                };
                let sh = if op == SoftmaxOp::LogSumExp && m.is_infinite() {
                    0.0
                } else {
                    m
                };
                let s: f64 = (0..d).map(|r| (at(r) - sh).exp()).sum();
                lse[o * inner + j] = s.ln() + sh;
                for r in 0..d {
                    full[(o * d + r) * inner + j] = match op {
                        SoftmaxOp::Softmax => (at(r) - m).exp() / s,
                        _ => at(r) - m - s.ln(),
                    };
                }
            }
        }
        out.extend(if op == SoftmaxOp::LogSumExp {
            lse
        } else {
            full
        });
        out
    }

    /// Every level against an f64 reference, for rows (inner 1) and columns (inner > 1) of
    /// sizes around the vector widths, with NaN and ±inf lines; the fused levels agree bit for
    /// bit on columns (Note [Fused softmax]).
    #[test]
    fn fused_softmax_levels() {
        let shapes = [
            (1, 1, 1),
            (3, 5, 1),
            (2, 17, 1),
            (2, 33, 1),
            (1, 512, 1),
            (2, 7, 3),
            (3, 9, 17),
            (1, 4, 33),
        ];
        for &(outer, d, inner) in &shapes {
            let n = outer * d * inner;
            let mut x: Vec<f64> = (0..n)
                .map(|i| ((i * 37 % 101) as f64 - 50.0) / 7.0)
                .collect();
            if n > 8 {
                x[1] = f64::NAN;
                x[n - 1] = f64::NEG_INFINITY;
            }
            for op in [
                SoftmaxOp::Softmax,
                SoftmaxOp::LogSoftmax,
                SoftmaxOp::LogSumExp,
            ] {
                let want = reference(&x, outer, d, inner, op);
                let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
                let want32 = reference(
                    &x32.iter().map(|&v| v as f64).collect::<Vec<_>>(),
                    outer,
                    d,
                    inner,
                    op,
                );
                let mut cols: Vec<Vec<f32>> = Vec::new();
                for level in Level::ALL.into_iter().filter(|l| l.is_supported()) {
                    let mut o64 = vec![0.0f64; want.len()];
                    let mut o32 = vec![0.0f32; want.len()];
                    // SAFETY: the buffers have the block's and the output's sizes.
                    unsafe {
                        vecmath::softmax_f64_at(
                            level,
                            op,
                            x.as_ptr(),
                            o64.as_mut_ptr(),
                            outer,
                            d,
                            inner,
                        );
                        vecmath::softmax_f32_at(
                            level,
                            op,
                            x32.as_ptr(),
                            o32.as_mut_ptr(),
                            outer,
                            d,
                            inner,
                        );
                    }
                    for (i, (&g, &w)) in o64.iter().zip(&want).enumerate() {
                        assert!(
                            (g.is_nan() && w.is_nan())
                                || g == w
                                || (g - w).abs() <= 1e-13 * (1.0 + w.abs()),
                            "{level:?} {op:?} f64 [{outer},{d},{inner}] @{i}: {g} vs {w}"
                        );
                    }
                    for (i, (&g, &w)) in o32.iter().zip(&want32).enumerate() {
                        let g = g as f64;
                        assert!(
                            (g.is_nan() && w.is_nan())
                                || g == w
                                || (g - w).abs() <= 1e-5 * (1.0 + w.abs()),
                            "{level:?} {op:?} f32 [{outer},{d},{inner}] @{i}: {g} vs {w}"
                        );
                    }
                    if level != Level::Baseline && inner > 1 {
                        cols.push(o32);
                    }
                }
                if cols.len() == 2 {
                    let bits = |v: &Vec<f32>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(
                        bits(&cols[0]),
                        bits(&cols[1]),
                        "{op:?}: fused levels differ"
                    );
                }
            }
        }
    }
}
