//! src/bindings/dtype_object.rs: `_C.dtype` and its singletons `_C.float32`, ... (PyTorch:
//! `torch/csrc/Dtype.cpp`). One immortal-for-the-module instance per `DType`; `t.dtype is
//! _C.float32` holds because every path returns these objects.
//!
//! Layer 1 (objects): see src/bindings/mod.rs.

use super::errors::PyResult;
use super::object_ptr::{Borrowed, ObjectPtr};
use super::static_type::{getter, method_noargs, StaticType, TypeSpec, GETSET_END, METHODS_END};
use crate::core::DType;
use pyo3_ffi as ffi;
use std::ffi::{c_void, CStr};
use std::ptr::{addr_of_mut, null_mut};

/// The Python object of a dtype. Layout pinned below.
#[repr(C)]
pub struct PyDtype {
    pub ob_base: ffi::PyObject,
    pub dtype: DType,
}

const _: () = assert!(std::mem::size_of::<PyDtype>() == 24);

/// The `_C.dtype` type object, filled in by `init`.
static DTYPE_TYPE: StaticType = StaticType::new();

/// The singletons, indexed by `DType as usize`; set once by `init`, owned by this table for the
/// life of the process (never released: the module cannot be unloaded).
static mut SINGLETONS: [*mut ffi::PyObject; 8] = [null_mut(); 8];

/// The type object (borrowed, static).
pub fn dtype_type() -> *mut ffi::PyTypeObject {
    DTYPE_TYPE.as_ptr()
}

/// The singleton for `d` (a *borrowed* reference, alive for the life of the process).
pub fn dtype_object(d: DType) -> *mut ffi::PyObject {
    // SAFETY: written once in `init` (under the GIL, before any other use); read-only after.
    unsafe { (*addr_of_mut!(SINGLETONS))[d as usize] }
}

/// A new reference to the singleton for `d`.
pub fn wrap_dtype(d: DType) -> ObjectPtr {
    // SAFETY: the singleton is alive for the life of the process.
    unsafe { ObjectPtr::borrow(dtype_object(d)) }
}

/// The `DType` of `obj` if it is a `_C.dtype`.
pub fn unpack_dtype(obj: Borrowed<'_>) -> Option<DType> {
    // SAFETY: `obj` is a live object; the type check precedes the cast to `PyDtype`.
    unsafe {
        if ffi::PyObject_TypeCheck(obj.as_ptr(), dtype_type()) != 0 {
            Some((*(obj.as_ptr() as *mut PyDtype)).dtype)
        } else {
            None
        }
    }
}

unsafe extern "C" fn dtype_repr(slf: *mut ffi::PyObject) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: CPython calls `tp_repr` with a live instance of this type.
        let d = unsafe { (*(slf as *mut PyDtype)).dtype };
        super::convert::py_str(&format!("_C.{}", d.name())).map(ObjectPtr::release)
    })
}

unsafe extern "C" fn dtype_reduce(
    slf: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // `__reduce__` returning a string makes pickle store a reference to the module global of
    // that name, so `pickle.loads(pickle.dumps(_C.float32)) is _C.float32`.
    crate::handle_errors!({
        // SAFETY: called as a method of a live instance of this type.
        let d = unsafe { (*(slf as *mut PyDtype)).dtype };
        super::convert::py_str(d.name()).map(ObjectPtr::release)
    })
}

unsafe extern "C" fn get_is_floating_point(
    slf: *mut ffi::PyObject,
    _: *mut c_void,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of a live instance of this type.
        let d = unsafe { (*(slf as *mut PyDtype)).dtype };
        Ok(super::object_ptr::py_bool(d.is_floating_point()).release())
    })
}

unsafe extern "C" fn get_itemsize(slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of a live instance of this type.
        let d = unsafe { (*(slf as *mut PyDtype)).dtype };
        super::convert::py_int(d.itemsize() as i64).map(ObjectPtr::release)
    })
}

static mut DTYPE_METHODS: [ffi::PyMethodDef; 2] = [
    method_noargs(
        c"__reduce__",
        dtype_reduce,
        c"Pickle support: the dtype is stored by name and restored as the same singleton.",
    ),
    METHODS_END,
];

static mut DTYPE_GETSET: [ffi::PyGetSetDef; 3] = [
    getter(
        c"is_floating_point",
        get_is_floating_point,
        c"True for float32 and float64.",
    ),
    getter(c"itemsize", get_itemsize, c"Size of one element in bytes."),
    GETSET_END,
];

const DTYPE_DOC: &CStr = c"dtype: the element type of a tensor (PyTorch: torch.dtype).\n\nThe instances are singletons exposed as _C.bool, _C.uint8, _C.int8, _C.int16, _C.int32,\n_C.int64, _C.float32 and _C.float64 (aliases: _C.float, _C.double, _C.short, _C.int, _C.long).\nThey cannot be created from Python.";

/// Ready the type and create the singletons; add them (and torch's aliases) to `module`.
///
/// # Safety
/// Called once, with the GIL held, from `PyInit__C`; `module` is a live module object.
pub unsafe fn init(module: *mut ffi::PyObject) -> PyResult<()> {
    // SAFETY: single-threaded initialisation under the GIL; the statics are not yet shared.
    unsafe {
        DTYPE_TYPE.ready(&TypeSpec {
            basicsize: std::mem::size_of::<PyDtype>(),
            repr: Some(dtype_repr),
            methods: addr_of_mut!(DTYPE_METHODS) as *mut ffi::PyMethodDef,
            getset: addr_of_mut!(DTYPE_GETSET) as *mut ffi::PyGetSetDef,
            ..TypeSpec::new(c"_C.dtype", DTYPE_DOC)
        })?;
        let t = dtype_type();
        super::convert::add_object(module, "dtype", ObjectPtr::borrow(t as *mut ffi::PyObject))?;
        for d in DType::ALL {
            let obj = ObjectPtr::steal_or_err(ffi::PyType_GenericAlloc(t, 0))?;
            std::ptr::write(&raw mut (*(obj.as_ptr() as *mut PyDtype)).dtype, d);
            super::convert::add_object(module, d.name(), obj.clone())?;
            // The table keeps this reference for the life of the process.
            (*addr_of_mut!(SINGLETONS))[d as usize] = obj.release();
        }
        for (alias, d) in [
            ("float", DType::Float32),
            ("double", DType::Float64),
            ("short", DType::Int16),
            ("int", DType::Int32),
            ("long", DType::Int64),
        ] {
            super::convert::add_object(module, alias, wrap_dtype(d))?;
        }
    }
    Ok(())
}
