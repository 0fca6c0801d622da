//! src/core/ops/factories2.rs: more factories — `linspace`, `logspace`, `eye` (PyTorch:
//! `RangeFactories.cpp`, `TensorFactories.cpp`).

use crate::core::dtype::{DType, Element};
use crate::core::error::{Error, Result};
use crate::core::scalar::Scalar;
use crate::core::tensor::Tensor;

fn check_steps(steps: i64) -> Result<usize> {
    if steps < 0 {
        return Err(Error::runtime("number of steps must be non-negative"));
    }
    Ok(steps as usize)
}

/// Fill a fresh contiguous tensor of `steps` elements with `f(k)` for each position `k`.
fn fill_with<T: Element>(out: &Tensor, f: impl Fn(usize) -> T) {
    // SAFETY: `out` is a fresh contiguous tensor of dtype `T` owned by the caller.
    let s = unsafe { std::slice::from_raw_parts_mut(out.data_ptr::<T>(), out.numel()) };
    for (k, v) in s.iter_mut().enumerate() {
        *v = f(k);
    }
}

/// `linspace(start, end, steps, *, dtype=None)`: `steps` evenly spaced values from `start` to
/// `end` inclusive, computed as torch's CPU kernel does (from `start` for the first half, from
/// `end` for the second; in the dtype for floats, in double then truncated for integers).
/// Dtype defaults to float32. RuntimeError "number of steps must be non-negative"; the overflow
/// error when `start`/`end` do not fit the dtype (torch: `torch.linspace`).
pub fn linspace(start: Scalar, end: Scalar, steps: i64, dtype: Option<DType>) -> Result<Tensor> {
    let n = check_steps(steps)?;
    let dtype = dtype.unwrap_or(DType::DEFAULT_FLOAT);
    let out = Tensor::zeros(&[n], dtype)?;
    if n == 0 {
        return Ok(out);
    }
    let half = n / 2;
    match dtype {
        DType::Float32 => {
            let (a, b) = (start.to_checked::<f32>()?, end.to_checked::<f32>()?);
            let step = if n > 1 { (b - a) / (n - 1) as f32 } else { 0.0 };
            fill_with::<f32>(&out, |k| {
                if n == 1 {
                    a
                } else if k < half {
                    a + step * k as f32
                } else {
                    b - step * (n - k - 1) as f32
                }
            });
        }
        _ => crate::dispatch!(dtype, T => {
            let (a, b) = (start.to_checked::<T>()?.to_f64(), end.to_checked::<T>()?.to_f64());
            let step = if n > 1 { (b - a) / (n - 1) as f64 } else { 0.0 };
            fill_with::<T>(&out, |k| {
                T::from_f64(if n == 1 {
                    a
                } else if k < half {
                    a + step * k as f64
                } else {
                    b - step * (n - k - 1) as f64
                })
            });
        }),
    }
    Ok(out)
}

/// `logspace(start, end, steps, base=10.0, *, dtype=None)`: `base ** linspace(start, end,
/// steps)` as torch's kernel computes it (in the dtype for floats, in double for integers).
/// Dtype defaults to float32. Errors as `linspace` (torch: `torch.logspace`).
pub fn logspace(
    start: Scalar,
    end: Scalar,
    steps: i64,
    base: f64,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let n = check_steps(steps)?;
    let dtype = dtype.unwrap_or(DType::DEFAULT_FLOAT);
    let out = Tensor::zeros(&[n], dtype)?;
    if n == 0 {
        return Ok(out);
    }
    let half = n / 2;
    match dtype {
        DType::Float32 => {
            let (a, b, base) = (
                start.to_checked::<f32>()?,
                end.to_checked::<f32>()?,
                base as f32,
            );
            let step = if n > 1 { (b - a) / (n - 1) as f32 } else { 0.0 };
            fill_with::<f32>(&out, |k| {
                if n == 1 {
                    (base as f64).powf(start.to_f64()) as f32
                } else if k < half {
                    base.powf(a + step * k as f32)
                } else {
                    base.powf(b - step * (n - k - 1) as f32)
                }
            });
        }
        _ => crate::dispatch!(dtype, T => {
            let (a, b) = (start.to_checked::<T>()?.to_f64(), end.to_checked::<T>()?.to_f64());
            let step = if n > 1 { (b - a) / (n - 1) as f64 } else { 0.0 };
            fill_with::<T>(&out, |k| {
                T::from_f64(if n == 1 {
                    base.powf(start.to_f64())
                } else if k < half {
                    base.powf(a + step * k as f64)
                } else {
                    base.powf(b - step * (n - k - 1) as f64)
                })
            });
        }),
    }
    Ok(out)
}

/// `eye(n, *, dtype=None)`: the `n`×`n` identity matrix (float32 by default). RuntimeError
/// "n must be greater or equal to 0, got -1" (torch: `torch.eye`).
pub fn eye(n: i64, dtype: Option<DType>) -> Result<Tensor> {
    eye_m(n, n, dtype)
}

/// `eye(n, m, *, dtype=None)`: the `n`×`m` matrix with ones on the main diagonal. RuntimeError
/// "n must be greater or equal to 0, got -1" (likewise `m`).
pub fn eye_m(n: i64, m: i64, dtype: Option<DType>) -> Result<Tensor> {
    if n < 0 {
        return Err(Error::runtime(format!(
            "n must be greater or equal to 0, got {n}"
        )));
    }
    if m < 0 {
        return Err(Error::runtime(format!(
            "m must be greater or equal to 0, got {m}"
        )));
    }
    let (n, m) = (n as usize, m as usize);
    let out = Tensor::zeros(&[n, m], dtype.unwrap_or(DType::DEFAULT_FLOAT))?;
    crate::dispatch!(out.dtype(), T => fill_with::<T>(&out, |k| T::from_bool(k / m.max(1) == k % m.max(1))));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factories() {
        let l = linspace(Scalar::Int(0), Scalar::Int(1), 5, None).unwrap();
        assert_eq!(l.to_vec::<f32>(), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
        let l = linspace(Scalar::Int(0), Scalar::Int(10), 4, Some(DType::Int64)).unwrap();
        assert_eq!(l.to_vec::<i64>(), vec![0, 3, 6, 10]);
        let g = logspace(
            Scalar::Int(0),
            Scalar::Int(2),
            3,
            10.0,
            Some(DType::Float64),
        )
        .unwrap();
        assert_eq!(g.to_vec::<f64>(), vec![1.0, 10.0, 100.0]);
        let e = eye_m(2, 3, Some(DType::Int64)).unwrap();
        assert_eq!(e.to_vec::<i64>(), vec![1, 0, 0, 0, 1, 0]);
        assert!(eye(-1, None).is_err());
        assert!(linspace(Scalar::Int(0), Scalar::Int(1), -1, None).is_err());
    }
}
