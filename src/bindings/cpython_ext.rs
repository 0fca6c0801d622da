//! src/bindings/cpython_ext.rs: CPython declarations that pyo3-ffi 0.30 lacks for 3.11, with
//! CPython's names, each with the header it comes from. Nothing else declares C symbols.
//!
//! Layer 0 (references, errors, GIL, state): see src/bindings/mod.rs.

use pyo3_ffi as ffi;

extern "C" {
    /// `Include/cpython/object.h`: look `name` (a str) up in the MRO of `type`, without
    /// descriptors or instance dicts. Returns a *borrowed* reference or NULL, and never sets an
    /// exception (unlike `PyObject_GetAttr`, which formats an AttributeError on a miss).
    pub fn _PyType_Lookup(
        tp: *mut ffi::PyTypeObject,
        name: *mut ffi::PyObject,
    ) -> *mut ffi::PyObject;
}
