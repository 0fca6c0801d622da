//! src/core/ops/fill.rs: in-place fills and copies — `fill_`, `zero_`, `copy_` (PyTorch:
//! `native/Fill.cpp`, `native/Copy.cpp`).

use crate::core::error::{Error, Result};
use crate::core::scalar::Scalar;
use crate::core::tensor::Tensor;

/// `self.fill_(value)`: set every element to `value`, a 0-dim tensor or a Python number
/// (wrapped). A Python number must fit `self`'s dtype (torch's RuntimeError "value cannot be
/// converted to type uint8_t without overflow"); a 0-dim tensor is cast like `copy_`. A value
/// with dimensions is torch's RuntimeError "fill_ only supports 0-dimension value tensor but got
/// tensor with 1 dimensions.". Mirrors `Tensor.fill_`, which (unlike the ops with a plan) torch
/// exempts from the overlap checks: an expanded self is filled.
pub fn fill_(self_: &Tensor, value: &Tensor) -> Result<()> {
    self_.check_inference_write()?;
    if value.dim() != 0 {
        return Err(Error::runtime(format!(
            "fill_ only supports 0-dimension value tensor but got tensor with {} dimensions.",
            value.dim()
        )));
    }
    let v = value.item()?;
    if value.is_wrapped_number() {
        self_.fill_(v)?;
    } else {
        self_.fill_cast(v);
    }
    self_.bump_version();
    Ok(())
}

/// `self.copy_(src, non_blocking=False)`: write `src` into `self`, broadcasting `src` to
/// `self`'s shape and converting its dtype (any dtype to any dtype, as torch's `copy_`);
/// `non_blocking` has no effect on the CPU. Errors (RuntimeError): shapes that do not
/// broadcast to `self`'s; an expanded `self`, or `src` partially overlapping `self` (torch's
/// overlap errors). Mirrors `Tensor.copy_`.
pub fn copy_(self_: &Tensor, src: &Tensor, non_blocking: bool) -> Result<()> {
    self_.check_inference_write()?;
    let _ = non_blocking;
    // TensorIterator's broadcast of `self` with `src`, then `self` must hold the result: torch's
    // two errors, before anything is written.
    let shape = crate::core::tensor::broadcast_shapes(self_.sizes(), src.sizes())?;
    if shape != self_.sizes() {
        return Err(Error::runtime(format!(
            "output with shape {:?} doesn't match the broadcast shape {:?}",
            self_.sizes(),
            shape
        )));
    }
    self_.copy_from(src)?;
    self_.bump_version();
    Ok(())
}

/// `self.zero_()`: set every element to zero. Mirrors `Tensor.zero_`.
pub fn zero_(self_: &Tensor) -> Result<()> {
    self_.check_inference_write()?;
    self_.fill_cast(Scalar::Int(0));
    self_.bump_version();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::dtype::{DType, Element};
    use crate::core::error::ErrorKind;

    fn t<T: Element>(v: Vec<T>, shape: &[usize]) -> Tensor {
        Tensor::from_vec(v, shape).unwrap()
    }

    fn w(s: impl Into<Scalar>) -> Tensor {
        Tensor::wrapped_scalar(s.into()).unwrap()
    }

    fn msg(r: Result<impl std::fmt::Debug>) -> (ErrorKind, String) {
        let e = r.unwrap_err();
        (e.kind, e.message)
    }

    #[test]
    fn fill_and_zero() {
        let a = Tensor::zeros(&[2, 2], DType::UInt8).unwrap();
        fill_(&a, &w(7i64)).unwrap();
        assert_eq!(a.to_vec::<u8>(), vec![7; 4]);
        fill_(&a, &w(-1i64)).unwrap();
        assert_eq!(a.to_vec::<u8>(), vec![255; 4]);
        assert_eq!(
            msg(fill_(&a, &w(300i64))).1,
            "value cannot be converted to type uint8_t without overflow"
        );
        assert_eq!(
            msg(fill_(&a, &w(-1.0))).1,
            "value cannot be converted to type uint8_t without overflow"
        );
        fill_(
            &a,
            &Tensor::scalar_tensor(Scalar::Int(300), DType::Int64).unwrap(),
        )
        .unwrap();
        assert_eq!(a.to_vec::<u8>(), vec![44; 4]);
        assert_eq!(
            msg(fill_(&a, &t(vec![1u8], &[1]))).1,
            "fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions."
        );
        let f = Tensor::zeros(&[3], DType::Float32).unwrap();
        assert_eq!(
            msg(fill_(&f, &w(1e300))).1,
            "value cannot be converted to type float without overflow"
        );
        fill_(&f, &w(f64::INFINITY)).unwrap();
        assert_eq!(f.to_vec::<f32>(), vec![f32::INFINITY; 3]);
        let i = Tensor::zeros(&[2], DType::Int32).unwrap();
        fill_(&i, &w(2.7)).unwrap();
        assert_eq!(i.to_vec::<i32>(), vec![2, 2]);
        let b = Tensor::zeros(&[2], DType::Bool).unwrap();
        fill_(&b, &w(5i64)).unwrap();
        assert_eq!(b.to_vec::<bool>(), vec![true, true]);
        zero_(&i).unwrap();
        assert_eq!(i.to_vec::<i32>(), vec![0, 0]);
        // Expanded self is allowed for fill_.
        let e = f.as_strided(vec![2, 3], vec![0, 1], 0);
        fill_(&e, &w(1i64)).unwrap();
        assert_eq!(f.to_vec::<f32>(), vec![1.0; 3]);
    }
}
