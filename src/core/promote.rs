//! src/core/promote.rs: type promotion, torch's `promoteTypes` and `result_type`, with Python
//! numbers as "weak" operands.

use super::dtype::{Category, DType};
use super::tensor::Tensor;

/// The smallest dtype both `a` and `b` convert to without losing their category, following
/// torch's promotion table (`c10::promoteTypes`) for the dtypes we support:
/// bool < any number; uint8 with a signed int → the next signed int that holds both
/// (uint8 + int8 → int16); ints widen; any int with a float → that float; float32 + float64 → float64.
pub fn promote_types(a: DType, b: DType) -> DType {
    use DType::*;
    if a == b {
        return a;
    }
    match (a, b) {
        (Bool, x) | (x, Bool) => x,
        (Float64, _) | (_, Float64) => Float64,
        (Float32, _) | (_, Float32) => Float32,
        (UInt8, Int8) | (Int8, UInt8) => Int16,
        (UInt8, x) | (x, UInt8) => x,
        // Both signed integers: the wider one (variants are declared in width order).
        (x, y) => x.max(y),
    }
}

/// One promotion tier: the running result dtype of the operands seen in it.
#[derive(Default, Clone, Copy)]
struct Tier(Option<DType>);

impl Tier {
    fn add(&mut self, d: DType) {
        self.0 = Some(match self.0 {
            None => d,
            Some(cur) => promote_types(cur, d),
        });
    }
}

/// torch's `result_type` for the operands of one op. Operands fall into three tiers, strongest
/// first: tensors with at least one dimension, 0-dim tensors, and wrapped Python numbers. A weaker
/// tier only matters when its category (bool < integral < floating) is higher than the stronger
/// tiers' result; wrapped numbers then contribute their default dtype (int64, or float32 for a
/// Python float). So `int32 tensor + 2.5 → float32`, `float32 tensor + 2.5 → float32`,
/// `int32 tensor + int64 0-dim tensor → int32`, `uint8 tensor + 1000 → uint8`.
pub fn result_type(operands: &[&Tensor]) -> DType {
    let (mut dim, mut zero, mut wrapped) = (Tier::default(), Tier::default(), Tier::default());
    for t in operands {
        if t.is_wrapped_number() {
            let d = match t.dtype().category() {
                Category::Floating => DType::DEFAULT_FLOAT,
                Category::Integral => DType::Int64,
                Category::Bool => DType::Bool,
            };
            wrapped.add(d);
        } else if t.dim() == 0 {
            zero.add(t.dtype());
        } else {
            dim.add(t.dtype());
        }
    }
    combine(combine(dim.0, zero.0), wrapped.0).unwrap_or(DType::DEFAULT_FLOAT)
}

/// Fold a weaker tier into a stronger one: the weaker tier wins only with a higher category.
fn combine(strong: Option<DType>, weak: Option<DType>) -> Option<DType> {
    match (strong, weak) {
        (None, w) => w,
        (s, None) => s,
        (Some(s), Some(w)) => {
            if w.category() > s.category() {
                Some(promote_types(s, w))
            } else {
                Some(s)
            }
        }
    }
}

/// True when a value of dtype `from` may be written into an `out=` tensor of dtype `to`
/// (torch's `canCast`: no float → integral, no non-bool → bool).
pub fn can_cast(from: DType, to: DType) -> bool {
    from.category() <= to.category()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::scalar::Scalar;
    use DType::*;

    #[test]
    fn table() {
        assert_eq!(promote_types(Int32, Int64), Int64);
        assert_eq!(promote_types(UInt8, Int8), Int16);
        assert_eq!(promote_types(Bool, UInt8), UInt8);
        assert_eq!(promote_types(Int64, Float32), Float32);
        assert_eq!(promote_types(Float32, Float64), Float64);
        assert_eq!(promote_types(UInt8, Int32), Int32);
    }

    #[test]
    fn weak_scalars() {
        let i = Tensor::zeros(&[3], Int32).unwrap();
        let f = Tensor::zeros(&[3], Float32).unwrap();
        let u = Tensor::zeros(&[3], UInt8).unwrap();
        let b = Tensor::zeros(&[3], Bool).unwrap();
        let w_float = Tensor::wrapped_scalar(Scalar::Float(2.5)).unwrap();
        let w_int = Tensor::wrapped_scalar(Scalar::Int(1000)).unwrap();
        let z64 = Tensor::zeros(&[], Int64).unwrap();
        let l = Tensor::zeros(&[3], Int64).unwrap();
        assert_eq!(result_type(&[&i, &w_float]), Float32);
        assert_eq!(result_type(&[&f, &w_float]), Float32);
        assert_eq!(result_type(&[&i, &l]), Int64);
        assert_eq!(result_type(&[&u, &w_int]), UInt8);
        assert_eq!(result_type(&[&b, &w_int]), Int64);
        assert_eq!(result_type(&[&i, &z64]), Int32);
        assert_eq!(result_type(&[&z64, &w_float]), Float32);
    }
}
