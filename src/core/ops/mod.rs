//! src/core/ops: the operators, one file per concept, named after ATen's files (PyTorch:
//! `aten/src/ATen/native`). Every op named in `src/native_functions.yaml` is re-exported here
//! under the name the schema gives. The element loops they run on are `core/iter.rs` (PyTorch:
//! `TensorIterator`); test modules over ~300 lines are in `ops/tests/`.

use crate::core::error::{Error, Result};

/// A fresh contiguous tensor's elements as a mutable slice; use inside an `unsafe` block whose
/// SAFETY comment says the tensor is fresh, contiguous, of that dtype and not otherwise shared.
/// (Defined before the modules below, which use it.)
macro_rules! fresh_slice {
    ($t:expr, $T:ty) => {
        std::slice::from_raw_parts_mut($t.data_ptr::<$T>(), $t.numel())
    };
}

fn try_vec<A>(n: usize, name: &str) -> Result<Vec<A>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| Error::out_of_memory(format!("{name}: failed to allocate")))?;
    Ok(v)
}

pub mod arith;
pub mod bessel;
pub mod binary;
pub mod compare;
pub mod conversion;
pub mod decomp;
pub mod einsum;
pub mod factory;
pub mod fill;
pub mod gemm;
pub mod index;
pub mod indexing;
pub mod linalg;
pub mod linalg_ops;
pub mod nn;
pub mod plan;
pub mod polynomial;
pub mod quantile;
mod radix;
pub mod random_ops;
pub mod reduce;
pub mod reduce_ops;
pub mod scan;
pub mod softmax;
pub mod sort;
pub mod special;
pub mod stats;
pub mod strided;
pub mod transform;
pub mod unary;
pub mod view;

pub use binary::*;
pub use compare::*;
pub use conversion::*;
pub use einsum::*;
pub use factory::*;
pub use fill::*;
pub use index::*;
pub use indexing::*;
pub use linalg::*;
pub use linalg_ops::*;
pub use nn::*;
pub use plan::{Kernel, Plan};
pub use polynomial::*;
pub use quantile::*;
pub use random_ops::*;
pub use reduce_ops::*;
pub use scan::*;
pub use softmax::*;
pub use sort::*;
pub use stats::*;
pub use strided::*;
pub use transform::*;
pub use unary::*;
pub use view::*;
