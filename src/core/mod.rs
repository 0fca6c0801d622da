//! src/core: the tensor library, Python-agnostic (PyTorch: ATen/c10). Nothing in here names
//! CPython; see ARCHITECTURE.md, "The one rule".

pub mod dtype;
pub mod error;
pub mod interrupt;
pub mod ops;
pub mod parallel;
pub mod promote;
pub mod random;
pub mod scalar;
pub mod sizes_strides;
pub mod storage;
pub mod tensor;
pub mod warnings;

pub use dtype::DType;
pub use error::{Error, ErrorKind, Result};
pub use scalar::Scalar;
pub use tensor::Tensor;
