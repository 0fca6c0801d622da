//! src/bindings/mapping.rs: hand-written indexing slots of `_C.Tensor` — `len(t)`, `t[idx]` and
//! `t[idx] = value` for basic indices (ints, 0-dim integer tensors, slices, `None`, `...`),
//! because CPython passes the index as one arbitrary object (PyTorch:
//! `python_variable_indexing.cpp`). The index is translated to core `IndexItem`s here; the core
//! computes the view.

use super::convert;
use super::errors::{index_error, BindError, PyResult};
use super::object_ptr::Borrowed;
use super::tensor_object::{tensor_ref, unpack, wrap};
use crate::core::ops::indexing::{index, IndexItem};
use crate::core::Tensor;
use pyo3_ffi as ffi;
use std::ffi::c_int;
use std::ptr::addr_of_mut;

/// `None` for a slice bound given as `None`, else its integer value (`__index__` is honoured).
fn slice_bound(o: *mut ffi::PyObject) -> PyResult<Option<i64>> {
    // SAFETY: slice fields are live borrowed objects (never NULL: CPython stores `None`).
    unsafe {
        if o == ffi::Py_None() {
            return Ok(None);
        }
        let b = Borrowed::from_ptr(o);
        if let Some(t) = unpack(b) {
            if t.numel() == 1 && !t.dtype().is_floating_point() {
                return Ok(Some(t.item()?.to_i64()));
            }
        }
        let v = ffi::PyNumber_AsSsize_t(o, ffi::PyExc_IndexError);
        if v == -1 && !ffi::PyErr_Occurred().is_null() {
            return Err(BindError::Python);
        }
        Ok(Some(v as i64))
    }
}

/// One index object as an `IndexItem`.
fn item(o: Borrowed<'_>) -> PyResult<IndexItem> {
    // SAFETY: type checks and field reads of a live object; `PySliceObject` is the documented
    // layout of exact `slice` objects (`PySlice_Check` does not admit subclasses).
    unsafe {
        let p = o.as_ptr();
        if p == ffi::Py_None() {
            return Ok(IndexItem::NewAxis);
        }
        if p == ffi::Py_Ellipsis() {
            return Ok(IndexItem::Ellipsis);
        }
        if ffi::PySlice_Check(p) != 0 {
            let s = p as *mut ffi::PySliceObject;
            return Ok(IndexItem::Slice(
                slice_bound((*s).start)?,
                slice_bound((*s).stop)?,
                slice_bound((*s).step)?,
            ));
        }
    }
    if convert::is_int(o) {
        return Ok(IndexItem::Int(convert::to_i64(o)?));
    }
    if let Some(t) = unpack(o) {
        if t.dim() == 0 && t.dtype().is_integral() {
            return Ok(IndexItem::Int(t.item()?.to_i64()));
        }
        return Err(BindError::Core(crate::core::Error::not_implemented(
            "advanced indexing with tensors (masks, index tensors) is not supported yet",
        )));
    }
    // SAFETY: type checks of a live object.
    if unsafe { ffi::PyList_Check(o.as_ptr()) != 0 } {
        return Err(BindError::Core(crate::core::Error::not_implemented(
            "advanced indexing with lists is not supported yet",
        )));
    }
    // torch: only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got str)
    Err(index_error(format!(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got {})",
        convert::type_name(o)
    )))
}

/// The view that `t[key]` denotes.
fn view_for(t: &Tensor, key: Borrowed<'_>) -> PyResult<Tensor> {
    // SAFETY: type check of a live object.
    if unsafe { ffi::PyTuple_Check(key.as_ptr()) } != 0 {
        // SAFETY: a live tuple; items are borrowed from it while we hold `key`.
        let n = unsafe { ffi::PyTuple_GET_SIZE(key.as_ptr()) };
        let mut items = Vec::with_capacity(n as usize);
        for i in 0..n {
            // SAFETY: `i` is in range; the item is borrowed from the tuple.
            let o = unsafe { Borrowed::from_ptr(ffi::PyTuple_GET_ITEM(key.as_ptr(), i)) };
            items.push(item(o)?);
        }
        return Ok(index(t, &items)?);
    }
    Ok(index(t, &[item(key)?])?)
}

unsafe extern "C" fn mp_subscript(
    slf: *mut ffi::PyObject,
    key: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: slot of our type: `slf` a live tensor, `key` a live borrowed object.
        let (t, key) = unsafe { (tensor_ref(Borrowed::from_ptr(slf)), Borrowed::from_ptr(key)) };
        Ok(wrap(view_for(t, key)?)?.release())
    })
}

unsafe extern "C" fn mp_ass_subscript(
    slf: *mut ffi::PyObject,
    key: *mut ffi::PyObject,
    value: *mut ffi::PyObject,
) -> c_int {
    crate::handle_errors!({
        if value.is_null() {
            return Err(super::errors::type_error(
                "Tensor does not support item deletion",
            ));
        }
        // SAFETY: slot of our type: all three are live borrowed objects.
        let (t, key, value) = unsafe {
            (
                tensor_ref(Borrowed::from_ptr(slf)),
                Borrowed::from_ptr(key),
                Borrowed::from_ptr(value),
            )
        };
        let view = view_for(t, key)?;
        if let Some(src) = unpack(value) {
            view.copy_from(src)?;
        } else if convert::is_number(value) {
            view.fill_(convert::number_to_scalar(value)?)?;
        } else {
            // torch: can't assign a str to a scalar tensor
            return Err(super::errors::type_error(format!(
                "can't assign a {} to a Tensor",
                convert::type_name(value)
            )));
        }
        Ok(0)
    })
}

unsafe extern "C" fn mp_length(slf: *mut ffi::PyObject) -> ffi::Py_ssize_t {
    crate::handle_errors!({
        // SAFETY: slot of our type, live instance.
        let t = unsafe { tensor_ref(Borrowed::from_ptr(slf)) };
        if t.dim() == 0 {
            return Err(super::errors::type_error("len() of a 0-d tensor"));
        }
        Ok(t.sizes()[0] as ffi::Py_ssize_t)
    })
}

static mut MAPPING_METHODS: ffi::PyMappingMethods = ffi::PyMappingMethods {
    mp_length: Some(mp_length),
    mp_subscript: Some(mp_subscript),
    mp_ass_subscript: Some(mp_ass_subscript),
};

/// The mapping-protocol table (static; CPython only reads it).
pub fn mapping_methods() -> *mut ffi::PyMappingMethods {
    addr_of_mut!(MAPPING_METHODS)
}
