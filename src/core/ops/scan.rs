//! src/core/ops/scan.rs: cumulative ops along a dim — `cumsum`, `cumprod` (PyTorch:
//! `native/ReduceOps.cpp`, the scan kernels of `native/cpu/ReduceOpsKernel.cpp`).

use super::reduce_ops::int_to_long;
use crate::core::dtype::{DType, Element};
use crate::core::error::Result;
use crate::core::tensor::{maybe_wrap_dim, Tensor};

/// `x` as a contiguous tensor seen as `[outer, n, inner]` around dim `d` (0-dim: all 1).
fn split_at_dim(x: &Tensor, d: usize) -> (usize, usize, usize) {
    if x.dim() == 0 {
        return (1, 1, 1);
    }
    let s = x.sizes();
    (s[..d].iter().product(), s[d], s[d + 1..].iter().product())
}

/// Running sums (`add`) or products along `dim`, on a contiguous copy converted to `out_dtype`.
fn scan(input: &Tensor, dim: i64, out_dtype: DType, add: bool) -> Result<Tensor> {
    let d = maybe_wrap_dim(dim, input.dim())?;
    let out = input.to_dtype(out_dtype)?;
    let (outer, n, inner) = split_at_dim(&out, d);
    if out.numel() == 0 {
        return Ok(out);
    }
    crate::dispatch!(out_dtype, T => {
        // SAFETY: `out` is a fresh contiguous tensor of `outer * n * inner` elements owned here.
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
    Ok(out)
}

/// `cumsum(input, dim, *, dtype=None)`: running sums along `dim`, same shape. Dtype: `dtype` if
/// given (the input is converted first), else int64 for bool/integer inputs, the input's for
/// floats. IndexError for `dim` out of range (torch: `torch.cumsum`).
pub fn cumsum(input: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
    scan(input, dim, int_to_long(input, dtype), true)
}

/// `cumprod(input, dim, *, dtype=None)`: running products along `dim`; otherwise as `cumsum`.
pub fn cumprod(input: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
    scan(input, dim, int_to_long(input, dtype), false)
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
