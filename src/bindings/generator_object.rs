//! src/bindings/generator_object.rs: the `_C.Generator` object (PyTorch:
//! `torch/csrc/Generator.cpp`) — its layout, its static type object, `unpack_generator`,
//! allocation and deallocation, and `_C.default_generator`, the one instance that points at the
//! core's process-wide default generator instead of owning one, so ops called with
//! `generator=None` and with `generator=_C.default_generator` draw from the same stream. A
//! `_C.Generator` holds its `Mutex<core::random::Generator>` in place. The type's constructor,
//! methods and the module functions `_C.manual_seed`, `_C.seed`, `_C.initial_seed` are in
//! generator_methods.rs, which readies the type.
//!
//! Layer 1 (objects): see src/bindings/mod.rs.

use super::errors::PyResult;
use super::object_ptr::{Borrowed, ObjectPtr};
use super::static_type::StaticType;
use crate::core::random::{default_generator, Generator};
use pyo3_ffi as ffi;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Mutex;

/// The Python object of a generator.
#[repr(C)]
pub struct PyGenerator {
    pub ob_base: ffi::PyObject,
    /// The generator this object owns (unused by `_C.default_generator`).
    pub owned: Mutex<Generator>,
    /// NULL: the object's generator is `owned`; else a `'static` generator it refers to (the
    /// core's default generator).
    pub external: *const Mutex<Generator>,
}

/// The `_C.Generator` type object, readied by `generator_methods::init`.
pub(crate) static GENERATOR_TYPE: StaticType = StaticType::new();

/// `_C.default_generator`, set once by `make_default_object`; this static owns one reference
/// for the life of the process.
static DEFAULT_OBJECT: AtomicPtr<ffi::PyObject> = AtomicPtr::new(null_mut());

/// The type object (borrowed, static).
pub fn generator_type() -> *mut ffi::PyTypeObject {
    GENERATOR_TYPE.as_ptr()
}

/// The generator inside `o` if `o` is a `_C.Generator` (borrowed for as long as `o` is).
pub fn unpack_generator(o: Borrowed<'_>) -> Option<&Mutex<Generator>> {
    // SAFETY: `o` is a live object; the type check precedes the cast; `owned` was initialised by
    // `tp_new`/`init` before the object was handed out, and `external`, when set, points at a
    // `'static` mutex.
    unsafe {
        if ffi::PyObject_TypeCheck(o.as_ptr(), generator_type()) == 0 {
            return None;
        }
        let p = o.as_ptr() as *mut PyGenerator;
        let ext = (*p).external;
        Some(if ext.is_null() { &(*p).owned } else { &*ext })
    }
}

/// A new reference to `_C.default_generator`.
pub fn default_generator_object() -> PyResult<ObjectPtr> {
    let p = DEFAULT_OBJECT.load(Ordering::Acquire);
    if p.is_null() {
        return Err(super::errors::runtime_error("_C is not initialised"));
    }
    // SAFETY: set once at init to a reference this static owns forever.
    Ok(unsafe { ObjectPtr::borrow(p) })
}

/// Allocate a `_C.Generator` of type `tp` holding `owned` (and `external`): a new reference.
///
/// # Safety
/// `tp` is `generator_type()` (ready); the GIL is held.
pub(crate) unsafe fn alloc_generator(
    tp: *mut ffi::PyTypeObject,
    owned: Generator,
    external: *const Mutex<Generator>,
) -> PyResult<ObjectPtr> {
    // SAFETY: `tp_alloc` of a ready type returns a zeroed new reference or NULL (error set); the
    // fields are written in place before the object is visible to anyone.
    unsafe {
        let alloc = (*tp).tp_alloc.unwrap_or(ffi::PyType_GenericAlloc);
        let obj = ObjectPtr::steal_or_err(alloc(tp, 0))?;
        let p = obj.as_ptr() as *mut PyGenerator;
        std::ptr::write(&raw mut (*p).owned, Mutex::new(owned));
        std::ptr::write(&raw mut (*p).external, external);
        Ok(obj)
    }
}

pub(crate) unsafe extern "C" fn generator_dealloc(slf: *mut ffi::PyObject) {
    // SAFETY: CPython calls `tp_dealloc` once, on a dead instance whose fields `tp_new`/`init`
    // initialised; the mutex is dropped in place, then the memory is freed by the type's
    // `tp_free`.
    unsafe {
        let p = slf as *mut PyGenerator;
        std::ptr::drop_in_place(&raw mut (*p).owned);
        let tp = ffi::Py_TYPE(slf);
        let free = (*tp).tp_free.unwrap_or(ffi::PyObject_Free);
        free(slf.cast());
    }
}

/// Create `_C.default_generator` (bound to the core's default generator) and keep it for the
/// life of the process: a new reference to it.
///
/// # Safety
/// Called once, with the GIL held, from `generator_methods::init`, after the type is ready.
pub(crate) unsafe fn make_default_object() -> PyResult<ObjectPtr> {
    // SAFETY: contract; the type is ready.
    let def =
        unsafe { alloc_generator(generator_type(), Generator::default(), default_generator()) }?;
    // The static keeps this reference for the life of the process.
    DEFAULT_OBJECT.store(def.clone().release(), Ordering::Release);
    Ok(def)
}
