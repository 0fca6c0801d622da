//! src/bindings/convert.rs: conversions between Python objects and Rust values (numbers, strings,
//! scalars, tuples) used by the parser and the hand-written slots.
//!
//! Layer 1 (objects): see src/bindings/mod.rs.

use super::errors::{runtime_error, BindError, PyResult};
use super::object_ptr::{Borrowed, ObjectPtr};
use crate::core::Scalar;
use pyo3_ffi as ffi;

/// A new `str` object holding `s`.
pub fn py_str(s: &str) -> PyResult<ObjectPtr> {
    // SAFETY: `s` is valid UTF-8 of the given length; returns a new reference or NULL.
    unsafe {
        ObjectPtr::steal_or_err(ffi::PyUnicode_FromStringAndSize(
            s.as_ptr().cast(),
            s.len() as ffi::Py_ssize_t,
        ))
    }
}

/// A new `int` object.
pub fn py_int(v: i64) -> PyResult<ObjectPtr> {
    // SAFETY: returns a new reference or NULL with an error set.
    unsafe { ObjectPtr::steal_or_err(ffi::PyLong_FromLongLong(v)) }
}

/// A new `float` object.
pub fn py_float(v: f64) -> PyResult<ObjectPtr> {
    // SAFETY: returns a new reference or NULL with an error set.
    unsafe { ObjectPtr::steal_or_err(ffi::PyFloat_FromDouble(v)) }
}

/// A new Python `bool`, `int` or `float` for a scalar.
pub fn scalar_to_py(s: Scalar) -> PyResult<ObjectPtr> {
    match s {
        Scalar::Bool(b) => Ok(super::object_ptr::py_bool(b)),
        Scalar::Int(i) => py_int(i),
        Scalar::Float(f) => py_float(f),
    }
}

/// A new tuple of Python ints.
pub fn int_tuple(values: impl ExactSizeIterator<Item = i64>) -> PyResult<ObjectPtr> {
    // SAFETY: `PyTuple_New` returns a new reference or NULL; each `PyTuple_SET_ITEM` steals the
    // new reference `release()` hands it, into a slot of the fresh tuple that is still empty.
    unsafe {
        let t = ObjectPtr::steal_or_err(ffi::PyTuple_New(values.len() as ffi::Py_ssize_t))?;
        for (i, v) in values.enumerate() {
            ffi::PyTuple_SET_ITEM(t.as_ptr(), i as ffi::Py_ssize_t, py_int(v)?.release());
        }
        Ok(t)
    }
}

/// Add `value` to `module` as attribute `name` (the module takes its own reference).
///
/// # Safety
/// `module` is a live module object and the GIL is held.
pub unsafe fn add_object(module: *mut ffi::PyObject, name: &str, value: ObjectPtr) -> PyResult<()> {
    let cname = super::errors::c_string(name);
    // SAFETY: `PyModule_AddObjectRef` does not steal; `value` is released by its drop.
    if unsafe { ffi::PyModule_AddObjectRef(module, cname.as_ptr(), value.as_ptr()) } < 0 {
        return Err(BindError::Python);
    }
    Ok(())
}

/// True for exactly `bool`.
#[inline]
pub fn is_bool(o: Borrowed<'_>) -> bool {
    // SAFETY: type check of a live object.
    unsafe { ffi::PyBool_Check(o.as_ptr()) != 0 }
}

/// True for `int` and its subclasses, `bool` included.
#[inline]
pub fn is_int_or_bool(o: Borrowed<'_>) -> bool {
    // SAFETY: type check of a live object.
    unsafe { ffi::PyLong_Check(o.as_ptr()) != 0 }
}

/// True for `int` and its subclasses except `bool` (torch's `THPUtils_checkLong`).
#[inline]
pub fn is_int(o: Borrowed<'_>) -> bool {
    is_int_or_bool(o) && !is_bool(o)
}

/// True for `float` and its subclasses.
#[inline]
pub fn is_float(o: Borrowed<'_>) -> bool {
    // SAFETY: type check of a live object.
    unsafe { ffi::PyFloat_Check(o.as_ptr()) != 0 }
}

/// True for a Python number we accept as a scalar: bool, int, float.
#[inline]
pub fn is_number(o: Borrowed<'_>) -> bool {
    is_int_or_bool(o) || is_float(o)
}

/// True for `str`.
#[inline]
pub fn is_str(o: Borrowed<'_>) -> bool {
    // SAFETY: type check of a live object.
    unsafe { ffi::PyUnicode_Check(o.as_ptr()) != 0 }
}

/// The value of a Python int (bool included). Out of the 64-bit range → `OverflowError`, the
/// error CPython sets.
pub fn to_i64(o: Borrowed<'_>) -> PyResult<i64> {
    // SAFETY: `o` is a live int; -1 with an error set signals failure.
    let v = unsafe { ffi::PyLong_AsLongLong(o.as_ptr()) };
    // SAFETY: reading the error indicator under the GIL.
    if v == -1 && unsafe { !ffi::PyErr_Occurred().is_null() } {
        return Err(BindError::Python);
    }
    Ok(v)
}

/// The value of a Python float or int as `f64`.
pub fn to_f64(o: Borrowed<'_>) -> PyResult<f64> {
    // SAFETY: `o` is a live float or int; -1.0 with an error set signals failure.
    let v = unsafe { ffi::PyFloat_AsDouble(o.as_ptr()) };
    // SAFETY: reading the error indicator under the GIL.
    if v == -1.0 && unsafe { !ffi::PyErr_Occurred().is_null() } {
        return Err(BindError::Python);
    }
    Ok(v)
}

/// A Python bool, int or float as a `Scalar` (the caller has checked `is_number`).
pub fn number_to_scalar(o: Borrowed<'_>) -> PyResult<Scalar> {
    let p = o.as_ptr();
    // Exact `float` and `int` first (`t + 2.0`, `t * 3`): one type comparison each, and the
    // float's value read in place (`PyFloat_AS_DOUBLE`) rather than through `PyFloat_AsDouble`.
    // SAFETY: type checks of a live object; an exact float's `ob_fval` is its value.
    unsafe {
        if ffi::PyFloat_CheckExact(p) != 0 {
            return Ok(Scalar::Float(ffi::PyFloat_AS_DOUBLE(p)));
        }
        if ffi::PyLong_CheckExact(p) != 0 {
            return Ok(Scalar::Int(to_i64(o)?));
        }
    }
    if is_bool(o) {
        // SAFETY: identity comparison with the `True` singleton.
        Ok(Scalar::Bool(o.as_ptr() == unsafe { ffi::Py_True() }))
    } else if is_int_or_bool(o) {
        Ok(Scalar::Int(to_i64(o)?))
    } else {
        Ok(Scalar::Float(to_f64(o)?))
    }
}

/// The text of a `str` object, borrowed from it.
///
/// Errors: a str that has no UTF-8 form (lone surrogates, `"\ud800"`) is torch's
/// `RuntimeError: error unpacking string as utf-8`; the UnicodeEncodeError CPython raised is
/// cleared, so callers that fall back on failure (`unwrap_or`) leave no error indicator set.
pub fn str_as_utf8<'a>(o: Borrowed<'a>) -> PyResult<&'a str> {
    let mut len: ffi::Py_ssize_t = 0;
    // SAFETY: `o` is a live str; the returned buffer is cached inside it and lives as long as
    // `o` (lifetime `'a`). NULL means an error is set (lone surrogates), cleared here: it is
    // replaced by the returned error.
    unsafe {
        let p = ffi::PyUnicode_AsUTF8AndSize(o.as_ptr(), &mut len);
        if p.is_null() {
            ffi::PyErr_Clear();
            return Err(runtime_error("error unpacking string as utf-8"));
        }
        let bytes = std::slice::from_raw_parts(p as *const u8, len as usize);
        Ok(std::str::from_utf8_unchecked(bytes))
    }
}
