//! src/bindings/mapping.rs: hand-written indexing slots of `_C.Tensor` — `len(t)`, `t[idx]` and
//! `t[idx] = value` for ints, slices, `None`, `...`, `True`/`False`, index tensors and masks,
//! and (nested) lists of ints or bools, because CPython passes the index as one arbitrary object
//! (PyTorch: `python_variable_indexing.cpp`). The index is translated to core `IndexItem`s here;
//! the core computes the view or the advanced-indexing copy, and the writes. Also
//! `Tensor.index_put_` / `index_put` (manual bindings of the schema: tuples of index tensors).
//!
//! Layer 3 (entry points): see src/bindings/mod.rs.

use super::arg_parser::ParsedArgs;
use super::convert;
use super::describe;
use super::errors::{index_error, BindError, PyResult};
use super::object_ptr::{Borrowed, ObjectPtr};
use super::tensor_new::from_data;
use super::tensor_object::{tensor_ref, unpack, wrap, TensorRef};
use crate::core::autograd::copy_slices::{index_put_accumulate, setitem, setitem_records};
use crate::core::autograd::variable_type as vt;
use crate::core::ops::indexing::{index_put, index_put_int, index_put_tensors_, IndexItem};
use crate::core::{DType, Tensor};
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
    if convert::is_bool(o) {
        // SAFETY: comparison with the `True` singleton.
        return Ok(IndexItem::Bool(o.as_ptr() == unsafe { ffi::Py_True() }));
    }
    if convert::is_int(o) {
        return Ok(IndexItem::Int(convert::to_i64(o)?));
    }
    if let Some(t) = unpack(o) {
        // The core sorts tensors out: 0-dim integer ones act as ints, bool/uint8 ones as masks.
        return Ok(IndexItem::Tensor(t.alias()));
    }
    if super::numpy::is_numpy_scalar(o) {
        // `t[np.int64(1)]`, `t[np.bool_(True)]`: as the Python int or bool (torch).
        let (v, d) = super::numpy::scalar_value(o)?;
        match (v, d) {
            (crate::core::Scalar::Bool(b), _) => return Ok(IndexItem::Bool(b)),
            (crate::core::Scalar::Int(i), _) => return Ok(IndexItem::Int(i)),
            _ => {}
        }
    }
    if is_sequence(o) || super::numpy::is_ndarray(o) {
        // torch's `indexing_tensor_from_data`: a list of bools is a mask, anything else is
        // converted to int64 (floats truncated; `[]` is an empty int64 index).
        let t = from_data(o, None, "index")?;
        let t = match t.dtype() {
            DType::Bool | DType::Int64 => t,
            _ => from_data(o, Some(DType::Int64), "index")?,
        };
        return Ok(IndexItem::Tensor(t));
    }
    // torch: only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got str)
    Err(index_error(format!(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got {})",
        describe::type_name(o)
    )))
}

/// True for exactly `int` (not `bool`, not a subclass, which may define `__index__` or other
/// behaviour): the key of the integer fast paths; its value needs no `__index__` call.
#[inline]
fn is_exact_int(o: Borrowed<'_>) -> bool {
    // SAFETY: type check of a live object.
    unsafe { ffi::PyLong_CheckExact(o.as_ptr()) != 0 }
}

/// True for a list or tuple (the sequences an index may spell index tensors with; `str` is
/// not one, so `t["a"]` stays torch's "valid indices" IndexError).
fn is_sequence(o: Borrowed<'_>) -> bool {
    // SAFETY: type checks of a live object.
    unsafe { ffi::PyList_Check(o.as_ptr()) != 0 || ffi::PyTuple_Check(o.as_ptr()) != 0 }
}

/// torch's `treatSequenceAsTuple`: a list key shorter than 32 holding a tensor, a sequence, a
/// slice, `...` or `None` is read as a tuple of index items (numpy's legacy rule), so
/// `t[[[0, 1], [1, 2]]]` is `t[[0, 1], [1, 2]]`; other lists are one index tensor.
fn list_as_tuple(key: Borrowed<'_>) -> bool {
    // SAFETY: type check and item reads of a live list; items are borrowed from it while we
    // hold `key` and call nothing that could run Python code.
    unsafe {
        let p = key.as_ptr();
        if ffi::PyList_Check(p) == 0 {
            return false;
        }
        let n = ffi::PyList_GET_SIZE(p);
        if n >= 32 {
            return false;
        }
        (0..n).any(|i| {
            let o = ffi::PyList_GET_ITEM(p, i);
            unpack(Borrowed::from_ptr(o)).is_some()
                || is_sequence(Borrowed::from_ptr(o))
                || ffi::PySlice_Check(o) != 0
                || o == ffi::Py_Ellipsis()
                || o == ffi::Py_None()
        })
    }
}

/// The core index items that `key` spells.
fn items_for(key: Borrowed<'_>) -> PyResult<Vec<IndexItem>> {
    // SAFETY: type check of a live object.
    if unsafe { ffi::PyTuple_Check(key.as_ptr()) } != 0 || list_as_tuple(key) {
        // SAFETY: a live tuple or list.
        let n = unsafe { ffi::PySequence_Size(key.as_ptr()) };
        if n < 0 {
            return Err(BindError::Python);
        }
        let mut items = Vec::with_capacity(n as usize);
        for i in 0..n {
            // SAFETY: a live sequence; `PySequence_GetItem` returns a new reference (or NULL
            // with an exception set if a list shrank under Python code run meanwhile).
            let o = unsafe { ObjectPtr::steal_or_err(ffi::PySequence_GetItem(key.as_ptr(), i))? };
            items.push(item(o.as_borrowed())?);
        }
        return Ok(items);
    }
    Ok(vec![item(key)?])
}

/// What `t[key]` denotes: a view for basic indices, a copy with advanced ones.
fn view_for(t: &Tensor, key: Borrowed<'_>) -> PyResult<Tensor> {
    Ok(vt::index(t, &items_for(key)?)?)
}

unsafe extern "C" fn mp_subscript(
    slf: *mut ffi::PyObject,
    key: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: slot of our type: `slf` a live tensor, `key` a live borrowed object.
        let (t, key) = unsafe { (tensor_ref(Borrowed::from_ptr(slf)), Borrowed::from_ptr(key)) };
        if is_exact_int(key) {
            // `t[3]`: one select, no index-item list (torch's getitem fast path for an int).
            return Ok(wrap(vt::index_int(&t, convert::to_i64(key)?)?)?.release());
        }
        Ok(wrap(view_for(&t, key)?)?.release())
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
        if is_exact_int(key) && convert::is_number(value) {
            // `t[3] = 2.0`: convert the number (overflow-checked), select, fill; no 0-dim value
            // tensor and no index-item list (torch's setitem fast path for an int key).
            let (i, v) = (convert::to_i64(key)?, convert::number_to_scalar(value)?);
            if setitem_records(&t, None) {
                // A tensor in a graph: recorded (core Note [CopySlices]).
                let v = Tensor::zeros(&[], t.dtype())?;
                v.fill_(convert::number_to_scalar(value)?)?;
                setitem(&t, &[IndexItem::Int(i)], &v)?;
                return Ok(0);
            }
            index_put_int(&t, i, v)?;
            return Ok(0);
        }
        let items = items_for(key)?;
        if setitem_records(&t, unpack(value).as_deref()) {
            // `t` or the value requires grad under grad mode: the write is recorded (core Note
            // [CopySlices]). A number becomes a 0-dim tensor of `t`'s dtype, as below.
            let v = match unpack(value) {
                Some(src) => (*src).clone(),
                None if convert::is_number(value) => {
                    let v = Tensor::zeros(&[], t.dtype())?;
                    v.fill_(convert::number_to_scalar(value)?)?;
                    v
                }
                None => {
                    return Err(super::errors::type_error(format!(
                        "can't assign a {} to a Tensor",
                        describe::type_name(value)
                    )))
                }
            };
            setitem(&t, &items, &v)?;
            return Ok(0);
        }
        if let Some(src) = unpack(value) {
            index_put(&t, &items, &src)?;
        } else if convert::is_number(value) {
            // torch's `valueToTensor`: a number becomes a 0-dim tensor of `t`'s dtype (checked
            // for overflow), which the core fills with.
            let v = Tensor::zeros(&[], t.dtype())?;
            v.fill_(convert::number_to_scalar(value)?)?;
            index_put(&t, &items, &v)?;
        } else {
            // torch: can't assign a str to a scalar tensor
            return Err(super::errors::type_error(format!(
                "can't assign a {} to a Tensor",
                describe::type_name(value)
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

/// `Tensor.index_put_(indices, values, accumulate=False)` (manual binding of the schema entry):
/// `self[indices] = values` for a tuple of index tensors, or `+=` with `accumulate`; returns
/// `self`. Recorded by autograd as `t[indices] = values` is (core Note [CopySlices]); with
/// `accumulate`, as torch's `IndexPutBackward0` with self's gradient passed through.
pub(crate) fn tensor_index_put_<'a>(
    r: &ParsedArgs<'a>,
    this_obj: Borrowed<'a>,
    this: TensorRef<'a>,
) -> PyResult<*mut ffi::PyObject> {
    let (indices, values, accumulate) = (r.tensor_list(0)?, r.tensor(1)?, r.bool(2)?);
    put(&this, &indices, &values, accumulate)?;
    Ok(this_obj.to_owned().release())
}

/// `Tensor.index_put(indices, values, accumulate=False)`: `index_put_` on a (recorded) clone.
pub(crate) fn tensor_index_put<'a>(
    r: &ParsedArgs<'a>,
    _this_obj: Borrowed<'a>,
    this: TensorRef<'a>,
) -> PyResult<*mut ffi::PyObject> {
    let (indices, values, accumulate) = (r.tensor_list(0)?, r.tensor(1)?, r.bool(2)?);
    let out = vt::clone(&this)?;
    put(&out, &indices, &values, accumulate)?;
    Ok(wrap(out)?.release())
}

fn put(t: &Tensor, indices: &[Tensor], values: &Tensor, accumulate: bool) -> PyResult<()> {
    if setitem_records(t, Some(values)) {
        if accumulate {
            return Ok(index_put_accumulate(t, indices, values)?);
        }
        let items: Vec<IndexItem> = indices.iter().cloned().map(IndexItem::Tensor).collect();
        return Ok(setitem(t, &items, values)?);
    }
    Ok(index_put_tensors_(t, indices, values, accumulate)?)
}
