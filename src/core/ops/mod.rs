//! src/core/ops: the operators, one file per family (PyTorch: `aten/src/ATen/native`). Every op
//! named in `src/native_functions.yaml` is re-exported here under the name the schema gives.

pub mod compare;
pub mod conversion;
pub mod elementwise;
pub mod factories;
pub mod format;
pub mod indexing;
pub mod linalg;
pub mod reduce;
pub mod shape;

pub use compare::*;
pub use conversion::*;
pub use elementwise::*;
pub use factories::*;
pub use format::*;
pub use indexing::*;
pub use linalg::*;
pub use reduce::*;
pub use shape::*;
