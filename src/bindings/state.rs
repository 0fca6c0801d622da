//! src/bindings/state.rs: module-wide state — the `_C` module object and `_C._rebuild_tensor`,
//! recorded once by `PyInit__C` (module.rs) and read by the code that needs them (operator slots
//! look `_C` functions up on the module for the override protocol; `__reduce_ex__` names
//! `_rebuild_tensor` in pickles).
//!
//! Layer 0 (references, errors, GIL, state): see src/bindings/mod.rs.

use super::errors::PyResult;
use super::object_ptr::ObjectPtr;
use pyo3_ffi as ffi;
use std::sync::atomic::{AtomicPtr, Ordering};

/// `_C._rebuild_tensor`, looked up once at init; the module's function object, owned here for
/// the life of the process (pickles name it, so it must be the module attribute itself).
pub(crate) static REBUILD_TENSOR: AtomicPtr<ffi::PyObject> = AtomicPtr::new(std::ptr::null_mut());

/// The module object, recorded at init and owned by this static for the life of the process
/// (operator slots look up `_C` functions on it for the override protocol). This reference, like
/// the one `REBUILD_TENSOR`'s function holds on its module, keeps the module alive until exit.
pub(crate) static MODULE: AtomicPtr<ffi::PyObject> = AtomicPtr::new(std::ptr::null_mut());

/// The `_C` extension module (borrowed; alive for the life of the process).
pub fn module_object() -> *mut ffi::PyObject {
    MODULE.load(Ordering::Acquire)
}

/// A new reference to `_C._rebuild_tensor`.
pub fn rebuild_tensor_fn() -> PyResult<ObjectPtr> {
    let p = REBUILD_TENSOR.load(Ordering::Acquire);
    if p.is_null() {
        return Err(super::errors::runtime_error("_C is not initialised"));
    }
    // SAFETY: set once at init to a reference this static owns forever.
    Ok(unsafe { ObjectPtr::borrow(p) })
}
