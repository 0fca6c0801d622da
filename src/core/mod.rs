//! src/core: the tensor library, Python-agnostic (PyTorch: ATen/c10). Nothing in here names
//! CPython; see ARCHITECTURE.md, "The one rule".
//!
//! Note [Concurrency contract]
//! A `Tensor` is a handle (`Send + Sync`) to an immutable description — storage, geometry,
//! dtype, base — plus two guarded slots (`grad`, behind a lock, and the Python-object word,
//! atomic). Any number of threads may hold handles, read metadata and read elements at once.
//! Element memory is shared between a tensor and its views and is *not* synchronised: the
//! caller must not let one thread write elements that another thread reads or writes at the
//! same time (torch's rule; in-place ops and `out=` are writes). Kernels may build `&[T]` /
//! `&mut [T]` over the elements they are given, which is why `Tensor::as_slice` is an
//! `unsafe fn`: its caller promises no concurrent writer. The Python binding releases the GIL
//! only around calls on handles it owns (src/bindings/gil.rs), so nothing but a Python program
//! that itself writes one tensor from two threads can break this; geometry and storage never
//! change after creation, so such a program gets torn element values, never a wild access.
//! A view's geometry is checked against its storage when it is made (`Tensor::as_strided`).

pub mod autograd;
pub mod dtype;
pub mod error;
pub mod format;
pub mod interrupt;
pub mod iter;
pub mod ops;
pub mod parallel;
pub mod promote;
pub mod random;
pub mod scalar;
pub mod sizes_strides;
pub mod storage;
pub mod tensor;
pub mod vecmath;
pub mod warnings;

pub use dtype::DType;
pub use error::{Error, ErrorKind, Result};
pub use scalar::Scalar;
pub use tensor::Tensor;
