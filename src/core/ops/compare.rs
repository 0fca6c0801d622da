//! src/core/ops/compare.rs: elementwise comparisons (`eq`, `ne`, `lt`, `le`, `gt`, `ge`) with
//! broadcasting; operands are compared in their promoted dtype and the result is bool
//! (PyTorch: the comparison ops of `BinaryOps.cpp`).

use crate::core::iter::{binary_op, broadcast_shape_of};
use crate::core::promote::result_type;
use crate::core::{Result, Tensor};

macro_rules! comparison {
    ($(#[$doc:meta])* $name:ident, $op:tt) => {
        $(#[$doc])*
        pub fn $name(input: &Tensor, other: &Tensor) -> Result<Tensor> {
            // Broadcast errors come from `binary_op` before anything is computed.
            let dtype = result_type(&[input, other]);
            crate::dispatch!(dtype, T => binary_op::<T, bool>(input, other, |x: T, y: T| x $op y))
        }
    };
}

comparison!(
    /// `eq(input, other)`: `input == other` elementwise → bool, broadcast; both sides converted
    /// to `result_type(input, other)` first (`int32 tensor == 2.5` compares in float32). NaN is
    /// unequal to everything. RuntimeError when the shapes do not broadcast. Mirrors `torch.eq`.
    eq, ==
);
comparison!(
    /// `ne(input, other)`: `input != other` elementwise → bool (NaN != NaN is true); promotion
    /// and errors as `eq`. Mirrors `torch.ne`.
    ne, !=
);
comparison!(
    /// `lt(input, other)`: `input < other` elementwise → bool (false with NaN; `False < True`);
    /// promotion and errors as `eq`. Mirrors `torch.lt`.
    lt, <
);
comparison!(
    /// `le(input, other)`: `input <= other` elementwise → bool; as `lt`. Mirrors `torch.le`.
    le, <=
);
/// `gt(input, other)`: `input > other` elementwise → bool; as `lt`. Mirrors `torch.gt`.
///
/// Computed as `lt(other, input)` (`x > y` is `y < x` for every pair, NaN included), which
/// shares `lt`'s kernels instead of instantiating a set per dtype; the shapes are checked in
/// the caller's order first so a broadcast error names the tensors as torch does.
pub fn gt(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    broadcast_shape_of(input, other)?;
    lt(other, input)
}

/// `ge(input, other)`: `input >= other` elementwise → bool; as `lt`. Mirrors `torch.ge`.
///
/// Computed as `le(other, input)`, as `gt` is from `lt`.
pub fn ge(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    broadcast_shape_of(input, other)?;
    le(other, input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::dtype::Element;
    use crate::core::{DType, Scalar};

    fn t<T: Element>(v: Vec<T>, shape: &[usize]) -> Tensor {
        Tensor::from_vec(v, shape).unwrap()
    }
    fn w(s: impl Into<Scalar>) -> Tensor {
        Tensor::wrapped_scalar(s.into()).unwrap()
    }

    #[test]
    fn promoted_comparisons_with_scalars() {
        let a = t(vec![1i32, 2, 3], &[3]);
        let r = lt(&a, &w(2.5)).unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<bool>()),
            (DType::Bool, vec![true, true, false])
        );
        assert_eq!(
            le(&a, &w(2i64)).unwrap().to_vec::<bool>(),
            vec![true, true, false]
        );
        assert_eq!(
            gt(&a, &w(2i64)).unwrap().to_vec::<bool>(),
            vec![false, false, true]
        );
        assert_eq!(
            ge(&a, &w(2i64)).unwrap().to_vec::<bool>(),
            vec![false, true, true]
        );
        assert_eq!(
            eq(&a, &w(2.0)).unwrap().to_vec::<bool>(),
            vec![false, true, false]
        );
        assert_eq!(
            ne(&a, &w(2i64)).unwrap().to_vec::<bool>(),
            vec![true, false, true]
        );
        // int64 vs python float compares in float32: 2**24 + 1 rounds to 2**24.
        let big = t(vec![16_777_217i64], &[1]);
        assert_eq!(
            eq(&big, &w(16_777_216.0)).unwrap().to_vec::<bool>(),
            vec![true]
        );
        // uint8 vs an out-of-range python int: the scalar wraps into uint8 (256 → 0).
        assert_eq!(
            eq(&t(vec![0u8], &[1]), &w(256i64))
                .unwrap()
                .to_vec::<bool>(),
            vec![true]
        );
    }

    #[test]
    fn nan_and_bool() {
        let f = t(vec![f32::NAN, 1.0], &[2]);
        assert_eq!(eq(&f, &f).unwrap().to_vec::<bool>(), vec![false, true]);
        assert_eq!(ne(&f, &f).unwrap().to_vec::<bool>(), vec![true, false]);
        assert_eq!(
            lt(&f, &w(5i64)).unwrap().to_vec::<bool>(),
            vec![false, true]
        );
        let b = t(vec![false, true], &[2]);
        assert_eq!(
            lt(&b, &t(vec![true, true], &[2])).unwrap().to_vec::<bool>(),
            vec![true, false]
        );
        assert_eq!(
            eq(&b, &w(1i64)).unwrap().to_vec::<bool>(),
            vec![false, true]
        );
    }

    #[test]
    fn broadcasting_strides_and_errors() {
        let a = t(vec![1i64, 2, 3], &[3, 1]);
        let b = t(vec![2.0f64, 3.0], &[2]);
        let r = ge(&a, &b).unwrap();
        assert_eq!(r.sizes(), &[3, 2]);
        assert_eq!(
            r.to_vec::<bool>(),
            vec![false, false, true, false, true, true]
        );
        let m = t((0..6i64).collect(), &[2, 3]);
        let mt = m.as_strided(vec![3, 2], vec![1, 3], 0);
        assert_eq!(
            gt(&mt, &w(2i64)).unwrap().to_vec::<bool>(),
            vec![false, true, false, true, false, true]
        );
        let e = eq(&t(vec![1i64, 2, 3], &[3]), &t(vec![1i64, 2], &[2])).unwrap_err();
        assert_eq!(e.kind, crate::core::ErrorKind::Runtime);
        assert_eq!(
            e.message,
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"
        );
        // gt/ge run as lt/le with the operands swapped: errors still name `input` as a.
        for op in [gt, ge] {
            let e = op(&t(vec![1i64, 2, 3], &[3]), &t(vec![1i64, 2], &[2])).unwrap_err();
            assert_eq!(
                e.message,
                "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"
            );
        }
        let f = t(vec![f32::NAN, 1.0, 2.0, 3.0], &[4]);
        let g = t(vec![1.0f32, f32::NAN, 2.0, 1.0], &[4]);
        assert_eq!(
            gt(&f, &g).unwrap().to_vec::<bool>(),
            vec![false, false, false, true]
        );
        assert_eq!(
            ge(&f, &g).unwrap().to_vec::<bool>(),
            vec![false, false, true, true]
        );
        let z = eq(&Tensor::zeros(&[0], DType::Int32).unwrap(), &w(1i64)).unwrap();
        assert_eq!((z.sizes(), z.dtype()), (&[0usize][..], DType::Bool));
    }
}
