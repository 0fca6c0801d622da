//! src/core/ops: the operators, one file per family (PyTorch: `aten/src/ATen/native`). Every op
//! named in `src/native_functions.yaml` is re-exported here under the name the schema gives.

pub mod arith;
pub mod binary;
pub mod compare;
pub mod conversion;
pub mod einsum;
pub mod factories;
pub mod factories2;
pub mod fill;
pub mod format;
pub mod indexing;
pub mod layout;
pub mod linalg;
pub mod multi;
pub mod random_ops;
pub mod reduce;
pub mod reduce2;
pub mod shape;
pub mod unary;

pub use binary::*;
pub use compare::*;
pub use conversion::*;
pub use einsum::*;
pub use factories::*;
pub use factories2::*;
pub use fill::*;
pub use format::*;
pub use indexing::*;
pub use layout::*;
pub use linalg::*;
pub use multi::*;
pub use random_ops::*;
pub use reduce::*;
pub use reduce2::*;
pub use shape::*;
pub use unary::*;
