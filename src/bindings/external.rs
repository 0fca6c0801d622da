//! src/bindings/external.rs: Python objects as owners of core external storage (core Note
//! [External storage]) — the owners that release a reference, or a buffer-protocol export, under
//! the GIL when the last tensor or view over their memory dies, on whatever thread that happens
//! (PyTorch: the deleter `tensor_numpy.cpp` gives `at::from_blob`, which decrefs the array).
//!
//! Layer 1 (objects): see src/bindings/mod.rs.

use super::object_ptr::ObjectPtr;
use crate::core::storage::ExternalOwner;
use pyo3_ffi as ffi;
use std::sync::atomic::{AtomicIsize, Ordering};

/// How many external owners made here are still unreleased (`_C._live_external()`, for the
/// leak checks of paths that numpy's refcount drift keeps out of the refleak run).
static LIVE_OWNERS: AtomicIsize = AtomicIsize::new(0);

/// How many external owners are alive right now.
pub fn live_owners() -> isize {
    LIVE_OWNERS.load(Ordering::Relaxed)
}

/// A value moved into an owner closure that runs on another thread.
struct SendBox<T>(T);
// SAFETY: the wrapped values (an owned reference, a `Py_buffer`) are only touched inside
// `with_gil`, which holds the GIL, so moving them between threads is sound.
unsafe impl<T> Send for SendBox<T> {}

/// Run `f` with the GIL held, from any thread, with or without the GIL. After interpreter
/// finalisation `f` is not run: the process is exiting, and taking the GIL would hang (the
/// reference is leaked, as `release_pyobj` does).
fn with_gil(f: impl FnOnce()) {
    // SAFETY: `Py_IsInitialized` may be called at any time; `PyGILState_Ensure`/`Release` pair up
    // around `f` and work whether or not this thread already holds the GIL.
    unsafe {
        if ffi::Py_IsInitialized() == 0 {
            // Not dropped either: dropping `f` would drop what it owns (an `ObjectPtr`: a
            // decref with no interpreter).
            std::mem::forget(f);
            return;
        }
        let gil = ffi::PyGILState_Ensure();
        f();
        ffi::PyGILState_Release(gil);
    }
}

/// An owner that keeps `obj` alive (an owned reference) and drops the reference under the GIL.
pub fn owner_of_object(obj: ObjectPtr) -> ExternalOwner {
    LIVE_OWNERS.fetch_add(1, Ordering::Relaxed);
    let obj = SendBox(obj);
    Box::new(move || {
        let obj = obj;
        with_gil(move || drop(obj.0));
        LIVE_OWNERS.fetch_sub(1, Ordering::Relaxed);
    })
}

/// An owner that holds a buffer-protocol export (`PyObject_GetBuffer` succeeded on `view`) and
/// ends it with `PyBuffer_Release` under the GIL, which also drops the exporter's reference.
pub fn owner_of_buffer(view: Box<ffi::Py_buffer>) -> ExternalOwner {
    LIVE_OWNERS.fetch_add(1, Ordering::Relaxed);
    let view = SendBox(view);
    Box::new(move || {
        let mut view = view;
        // SAFETY: `view` was filled by a successful `PyObject_GetBuffer` and is released once.
        with_gil(|| unsafe { ffi::PyBuffer_Release(&mut *view.0) });
        LIVE_OWNERS.fetch_sub(1, Ordering::Relaxed);
    })
}

/// An owner that runs an arbitrary C deleter `deleter(ctx)` without taking the GIL (the C API's
/// `tb_tensor_from_external`, and DLPack producers: their deleters are callable from any thread).
pub fn owner_of_c_deleter(
    deleter: Option<unsafe extern "C" fn(*mut std::ffi::c_void)>,
    ctx: *mut std::ffi::c_void,
) -> ExternalOwner {
    LIVE_OWNERS.fetch_add(1, Ordering::Relaxed);
    let ctx = SendBox(ctx);
    Box::new(move || {
        let ctx = ctx;
        if let Some(d) = deleter {
            // SAFETY: the creator promised `deleter(ctx)` is valid to call once, from any thread.
            unsafe { d(ctx.0) };
        }
        LIVE_OWNERS.fetch_sub(1, Ordering::Relaxed);
    })
}
