//! src/bindings/tensor_methods.rs: the hand-written part of `_C.Tensor`'s interface — attributes
//! (`shape`, `dtype`, `ndim`, `T`) and `tolist`, which build Python containers the schema cannot
//! express. Everything else on the type is generated from src/native_functions.yaml.

use super::convert;
use super::dtype_object::wrap_dtype;
use super::errors::PyResult;
use super::object_ptr::{Borrowed, ObjectPtr};
use super::tensor_object::{tensor_ref, wrap};
use crate::core::{Scalar, Tensor};
use pyo3_ffi as ffi;
use std::ffi::c_void;
use std::ptr::null_mut;

/// The tensor behind `slf`, borrowed for the call.
///
/// # Safety
/// `slf` is a live `_C.Tensor` (getters and methods of the type are only called on instances).
unsafe fn this<'a>(slf: *mut ffi::PyObject) -> &'a Tensor {
    // SAFETY: contract of this function.
    unsafe { tensor_ref(Borrowed::from_ptr(slf)) }
}

unsafe extern "C" fn get_shape(slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of `_C.Tensor`.
        let t = unsafe { this(slf) };
        Ok(convert::int_tuple(t.sizes().iter().map(|&s| s as i64))?.release())
    })
}

unsafe extern "C" fn get_dtype(slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of `_C.Tensor`.
        let t = unsafe { this(slf) };
        Ok(wrap_dtype(t.dtype()).release())
    })
}

unsafe extern "C" fn get_ndim(slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of `_C.Tensor`.
        let t = unsafe { this(slf) };
        Ok(convert::py_int(t.dim() as i64)?.release())
    })
}

unsafe extern "C" fn get_t(slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of `_C.Tensor`.
        let t = unsafe { this(slf) };
        // torch's `Tensor.T`: all dims reversed (a view).
        let dims: Vec<i64> = (0..t.dim() as i64).rev().collect();
        Ok(wrap(crate::core::ops::permute(t, &dims)?)?.release())
    })
}

/// A nested Python list for the elements of `sizes` starting at `values[*pos]`.
fn build_list(values: &[Scalar], sizes: &[usize], pos: &mut usize) -> PyResult<ObjectPtr> {
    if sizes.is_empty() {
        let v = convert::scalar_to_py(values[*pos])?;
        *pos += 1;
        return Ok(v);
    }
    // SAFETY: `PyList_New` returns a new reference or NULL; each `PyList_SET_ITEM` steals the
    // new reference handed to it, into an empty slot of the fresh list.
    unsafe {
        let list = ObjectPtr::steal_or_err(ffi::PyList_New(sizes[0] as ffi::Py_ssize_t))?;
        for i in 0..sizes[0] {
            let item = build_list(values, &sizes[1..], pos)?;
            ffi::PyList_SET_ITEM(list.as_ptr(), i as ffi::Py_ssize_t, item.release());
        }
        Ok(list)
    }
}

unsafe extern "C" fn tolist(slf: *mut ffi::PyObject, _: *mut ffi::PyObject) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: method of `_C.Tensor`.
        let t = unsafe { this(slf) };
        let values = t.to_scalar_vec();
        let mut pos = 0;
        Ok(build_list(&values, t.sizes(), &mut pos)?.release())
    })
}

/// `iter(t)`: the sub-tensors along dim 0, as views (torch's `Tensor.__iter__` is `unbind(0)`).
///
/// # Safety
/// `tp_iter` slot: called by CPython with a live `_C.Tensor`.
pub unsafe extern "C" fn tensor_iter(slf: *mut ffi::PyObject) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: slot of `_C.Tensor`, live instance.
        let t = unsafe { this(slf) };
        if t.dim() == 0 {
            return Err(super::errors::type_error("iteration over a 0-d tensor"));
        }
        let n = t.sizes()[0];
        // SAFETY: `PyList_New` returns a new reference or NULL; `PyList_SET_ITEM` steals each new
        // reference into an empty slot; `PyObject_GetIter` returns a new reference or NULL.
        unsafe {
            let list = ObjectPtr::steal_or_err(ffi::PyList_New(n as ffi::Py_ssize_t))?;
            for i in 0..n {
                let v = wrap(crate::core::ops::select(t, 0, i as i64)?)?;
                ffi::PyList_SET_ITEM(list.as_ptr(), i as ffi::Py_ssize_t, v.release());
            }
            ObjectPtr::steal_or_err(ffi::PyObject_GetIter(list.as_ptr())).map(ObjectPtr::release)
        }
    })
}

/// `t.__reduce_ex__(protocol)`: pickle and `copy` support. The tensor is stored as
/// `_C._rebuild_tensor(type(t), data_bytes, dtype, shape)` plus its `__dict__` as state, so
/// values, dtype, shape, subclass and attributes survive a round trip.
unsafe extern "C" fn reduce_ex(
    slf: *mut ffi::PyObject,
    _protocol: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: method of `_C.Tensor`: `slf` is a live instance (borrowed).
        let (obj, t) = unsafe { (Borrowed::from_ptr(slf), this(slf)) };
        let bytes = t.to_bytes()?;
        // SAFETY: each call returns a new reference or NULL with an error set; the module lookup
        // returns a new reference to `_C._C`'s `_rebuild_tensor`.
        unsafe {
            let data = ObjectPtr::steal_or_err(ffi::PyBytes_FromStringAndSize(
                bytes.as_ptr().cast(),
                bytes.len() as ffi::Py_ssize_t,
            ))?;
            let shape = convert::int_tuple(t.sizes().iter().map(|&s| s as i64))?;
            let rebuild = super::module::rebuild_tensor_fn()?;
            let tp = ObjectPtr::borrow(obj.type_ptr() as *mut ffi::PyObject);
            let dtype = wrap_dtype(t.dtype());
            let args = ObjectPtr::steal_or_err(ffi::PyTuple_Pack(
                4,
                tp.as_ptr(),
                data.as_ptr(),
                dtype.as_ptr(),
                shape.as_ptr(),
            ))?;
            let dict = (*(slf as *mut super::tensor_object::PyTensor)).dict;
            let state = if dict.is_null() || ffi::PyDict_Size(dict) == 0 {
                super::object_ptr::none()
            } else {
                ObjectPtr::borrow(dict)
            };
            ObjectPtr::steal_or_err(ffi::PyTuple_Pack(
                3,
                rebuild.as_ptr(),
                args.as_ptr(),
                state.as_ptr(),
            ))
            .map(ObjectPtr::release)
        }
    })
}

/// Hand-written methods (no sentinel): appended to the generated table by `tensor_object::init`.
pub fn hand_written_methods() -> Vec<ffi::PyMethodDef> {
    vec![
        ffi::PyMethodDef {
            ml_name: c"tolist".as_ptr(),
            ml_meth: ffi::PyMethodDefPointer { PyCFunction: tolist },
            ml_flags: ffi::METH_NOARGS,
            ml_doc: c"tolist($self, /)\n--\n\nReturns the data as nested Python lists of bool, int or float (a number for a 0-dim tensor).\n\nMirrors torch.Tensor.tolist.".as_ptr(),
        },
        ffi::PyMethodDef {
            ml_name: c"__reduce_ex__".as_ptr(),
            ml_meth: ffi::PyMethodDefPointer { PyCFunction: reduce_ex },
            ml_flags: ffi::METH_O,
            ml_doc: c"__reduce_ex__($self, protocol, /)\n--\n\nPickle and copy support: values, dtype, shape, subclass and __dict__ round-trip\n(views are copied, not shared).".as_ptr(),
        },
    ]
}

/// The attribute table (with sentinel).
pub fn getset_table() -> Vec<ffi::PyGetSetDef> {
    let row = |name: &'static std::ffi::CStr, get: ffi::getter, doc: &'static std::ffi::CStr| {
        ffi::PyGetSetDef {
            name: name.as_ptr(),
            get: Some(get),
            set: None,
            doc: doc.as_ptr(),
            closure: null_mut(),
        }
    };
    vec![
        row(c"shape", get_shape, c"The sizes of the dims, as a tuple of ints (torch.Tensor.shape; torch returns torch.Size)."),
        row(c"dtype", get_dtype, c"The element type, one of the _C.dtype singletons (torch.Tensor.dtype)."),
        row(c"ndim", get_ndim, c"The number of dims, as an int (torch.Tensor.ndim)."),
        row(c"T", get_t, c"A view with all dims reversed (torch.Tensor.T)."),
        // Static types get no `__dict__` descriptor from CPython; the generic pair reads and
        // replaces the instance dict at `tp_dictoffset`.
        ffi::PyGetSetDef {
            name: c"__dict__".as_ptr(),
            get: Some(ffi::PyObject_GenericGetDict),
            set: Some(ffi::PyObject_GenericSetDict),
            doc: c"The instance attribute dictionary (created on first use).".as_ptr(),
            closure: null_mut(),
        },
        ffi::PyGetSetDef { name: std::ptr::null(), get: None, set: None, doc: std::ptr::null(), closure: null_mut() },
    ]
}
