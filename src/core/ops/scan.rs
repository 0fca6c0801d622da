//! src/core/ops/scan.rs: cumulative ops along a dim — `cumsum`, `cumprod` (PyTorch:
//! `native/ReduceOps.cpp`, the scan kernels of `native/cpu/ReduceOpsKernel.cpp`), each with its
//! plan (Note [One kernel per op]).

use super::plan::{Kernel, Plan};
use super::reduce_ops::int_to_long;
use crate::core::dtype::{DType, Element};
use crate::core::error::Result;
use crate::core::tensor::{maybe_wrap_dim, Tensor};
use std::borrow::Cow;

/// `x` as a contiguous tensor seen as `[outer, n, inner]` around dim `d` (0-dim: all 1).
fn split_at_dim(x: &Tensor, d: usize) -> (usize, usize, usize) {
    if x.dim() == 0 {
        return (1, 1, 1);
    }
    let s = x.sizes();
    (s[..d].iter().product(), s[d], s[d + 1..].iter().product())
}

/// The plan of `cumsum` (`add`) or `cumprod`: the result has `input`'s shape and `out_dtype`.
fn scan_plan(
    input: &Tensor,
    dim: i64,
    out_dtype: DType,
    add: bool,
) -> Result<Plan<'_, impl Kernel + '_>> {
    let d = maybe_wrap_dim(dim, input.dim())?;
    Ok(Plan::new(
        Cow::Borrowed(input.sizes()),
        out_dtype,
        [Some(input), None, None],
        move |out: &Tensor, _| {
            if out.is_contiguous() {
                // `input` converted into `out`, then scanned in place (`out` may be `input`).
                out.copy_from(input)?;
                scan_in_place(out, d, add);
                Ok(())
            } else {
                let tmp = input.to_dtype(out_dtype)?.contiguous()?;
                let tmp = if tmp.shares_storage(input) {
                    tmp.clone_data()?
                } else {
                    tmp
                };
                scan_in_place(&tmp, d, add);
                out.copy_from(&tmp)
            }
        },
    ))
}

/// Running sums (`add`) or products along dim `d` of the contiguous tensor `out`, in place.
fn scan_in_place(out: &Tensor, d: usize, add: bool) {
    let (outer, n, inner) = split_at_dim(out, d);
    if out.numel() == 0 {
        return;
    }
    let out_dtype = out.dtype();
    crate::dispatch!(out_dtype, T => {
        // SAFETY: `out` is contiguous with `outer * n * inner` elements, and no other reference
        // to them is alive during the scan (the caller's copy into it has finished).
        let s = unsafe { std::slice::from_raw_parts_mut(out.data_ptr::<T>(), out.numel()) };
        let float = out_dtype.is_floating_point();
        for o in 0..outer {
            for i in 0..inner {
                let base = o * n * inner + i;
                let mut fa = if add { 0.0 } else { 1.0 };
                let mut ia: i64 = if add { 0 } else { 1 };
                for k in 0..n {
                    let p = base + k * inner;
                    if float {
                        let v = s[p].to_f64();
                        fa = if add { fa + v } else { fa * v };
                        // Accumulated in double, as torch's CPU kernel does.
                        s[p] = T::from_f64(fa);
                    } else {
                        let v = s[p].to_i64();
                        ia = if add { ia.wrapping_add(v) } else { ia.wrapping_mul(v) };
                        s[p] = T::from_i64(ia);
                    }
                }
            }
        }
    });
}

/// `cumsum(input, dim, *, dtype=None)`: running sums along `dim`, same shape. Dtype: `dtype` if
/// given (the input is converted first), else int64 for bool/integer inputs, the input's for
/// floats. IndexError for `dim` out of range (torch: `torch.cumsum`).
pub fn cumsum(input: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
    cumsum_plan(input, dim, dtype)?.run()
}

/// `cumsum` checked and ready to run (Note [One kernel per op]).
pub fn cumsum_plan(
    input: &Tensor,
    dim: i64,
    dtype: Option<DType>,
) -> Result<Plan<'_, impl Kernel + '_>> {
    scan_plan(input, dim, int_to_long(input, dtype), true)
}

/// `cumprod(input, dim, *, dtype=None)`: running products along `dim`; otherwise as `cumsum`.
pub fn cumprod(input: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
    cumprod_plan(input, dim, dtype)?.run()
}

/// `cumprod` checked and ready to run (Note [One kernel per op]).
pub fn cumprod_plan(
    input: &Tensor,
    dim: i64,
    dtype: Option<DType>,
) -> Result<Plan<'_, impl Kernel + '_>> {
    scan_plan(input, dim, int_to_long(input, dtype), false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ops::{argsort, median};

    fn t<T: Element>(v: Vec<T>, s: &[usize]) -> Tensor {
        Tensor::from_vec(v, s).unwrap()
    }

    #[test]
    fn scans_and_sorts() {
        let x = t(vec![3i32, 1, 2, 5, 4, 6], &[2, 3]);
        assert_eq!(
            cumsum(&x, 1, None).unwrap().to_vec::<i64>(),
            vec![3, 4, 6, 5, 9, 15]
        );
        assert_eq!(
            cumprod(&x, 0, None).unwrap().to_vec::<i64>(),
            vec![3, 1, 2, 15, 4, 12]
        );
        assert_eq!(
            argsort(&x, -1, false, false).unwrap().to_vec::<i64>(),
            vec![1, 2, 0, 1, 0, 2]
        );
        assert_eq!(
            argsort(&x, 0, true, false).unwrap().to_vec::<i64>(),
            vec![1, 1, 1, 0, 0, 0]
        );
        let m = median(&t(vec![4.0f32, 1.0, 3.0, 2.0], &[4])).unwrap();
        assert_eq!(m.to_vec::<f32>(), vec![2.0]);
    }
}
