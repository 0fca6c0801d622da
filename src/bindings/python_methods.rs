//! src/bindings/python_methods.rs: `_C.Tensor` methods whose op `_C` writes in Python
//! (python/_C/linalg.py: `geqrf`, `ormqr`). `_C.Tensor` is a static type, so Python cannot add
//! methods to it: each method here is a schema entry (`manual_binding:`) whose body calls the
//! package's Python function with `self` first, as torch's `Tensor.geqrf` calls `torch.geqrf`.
//!
//! Layer 3 (entry points): see src/bindings/mod.rs.

use super::arg_parser::ParsedArgs;
use super::errors::PyResult;
use super::object_ptr::{Borrowed, ObjectPtr};
use super::tensor_object::TensorRef;
use pyo3_ffi as ffi;
use std::ffi::CStr;

/// `_C.linalg.<name>(*args)`: a new reference to the result, or the Python error it raised.
fn call_linalg(name: &CStr, args: &[*mut ffi::PyObject]) -> PyResult<*mut ffi::PyObject> {
    // SAFETY: GIL held (an entry point); `PyImport_ImportModule`, `PyObject_GetAttrString` and
    // `PyObject_Vectorcall` return new references or NULL with an error set (`steal_or_err`);
    // `args` are borrowed references the caller keeps alive for the call.
    unsafe {
        let module = ObjectPtr::steal_or_err(ffi::PyImport_ImportModule(c"_C.linalg".as_ptr()))?;
        let f =
            ObjectPtr::steal_or_err(ffi::PyObject_GetAttrString(module.as_ptr(), name.as_ptr()))?;
        let r = ObjectPtr::steal_or_err(ffi::PyObject_Vectorcall(
            f.as_ptr(),
            args.as_ptr(),
            args.len(),
            std::ptr::null_mut(),
        ))?;
        Ok(r.release())
    }
}

/// `Tensor.geqrf()`: `_C.geqrf(self)`, the named tuple `(a, tau)` (METH_NOARGS, as torch's).
///
/// # Safety
/// A METH_NOARGS method of `_C.Tensor`: CPython calls it with a live instance.
pub(crate) unsafe extern "C" fn geqrf(
    slf: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({ call_linalg(c"_geqrf", &[slf]) })
}

/// The Python bool for `b`, borrowed (the two bools are immortal for the process).
fn py_bool(b: bool) -> *mut ffi::PyObject {
    // SAFETY: the addresses of CPython's static `True` and `False`.
    unsafe {
        if b {
            ffi::Py_True()
        } else {
            ffi::Py_False()
        }
    }
}

/// `Tensor.ormqr(input2, input3, left=True, transpose=False)`: `_C.ormqr(self, input2, input3,
/// left, transpose)` (the generated entry point has parsed and type-checked the arguments).
pub(crate) fn ormqr<'a>(
    r: &ParsedArgs<'a>,
    this_obj: Borrowed<'a>,
    _this: TensorRef<'a>,
) -> PyResult<*mut ffi::PyObject> {
    let (Some(tau), Some(other)) = (r.object(0), r.object(1)) else {
        unreachable!("the parser requires input2 and input3");
    };
    let (left, transpose) = (r.bool(2)?, r.bool(3)?);
    call_linalg(
        c"_ormqr",
        &[
            this_obj.as_ptr(),
            tau.as_ptr(),
            other.as_ptr(),
            py_bool(left),
            py_bool(transpose),
        ],
    )
}
