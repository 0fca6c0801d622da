//! src/bindings/tensor_methods.rs: the hand-written part of `_C.Tensor`'s interface — attributes
//! (`shape`, `dtype`, `ndim`, `T`, `_base`, `grad`, `__dict__`), `tolist`, `__deepcopy__`,
//! `__reduce_ex__`, and the `repr`, `hash` and `iter` slots, which build Python containers or
//! texts the schema cannot express. Everything else on the type is generated from
//! src/native_functions.yaml; tensor_type.rs puts both in the type.
//!
//! Layer 3 (entry points): see src/bindings/mod.rs.

use super::convert;
use super::dtype_object::wrap_dtype;
use super::errors::{BindError, PyResult};
use super::object_ptr::{Borrowed, ObjectPtr};
use super::static_type::{getset, getter, method_keywords, GETSET_END};
use super::tensor_object::{tensor_ref, wrap, TensorRef};
use crate::core::Scalar;
use pyo3_ffi as ffi;
use std::ffi::c_void;

/// The tensor behind `slf`, borrowed for the call.
///
/// # Safety
/// `slf` is a live `_C.Tensor` (getters and methods of the type are only called on instances).
unsafe fn this<'a>(slf: *mut ffi::PyObject) -> TensorRef<'a> {
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

unsafe extern "C" fn get_nbytes(slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of `_C.Tensor`.
        let t = unsafe { this(slf) };
        Ok(convert::py_int((t.numel() * t.dtype().itemsize()) as i64)?.release())
    })
}

unsafe extern "C" fn get_itemsize(slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of `_C.Tensor`.
        let t = unsafe { this(slf) };
        Ok(convert::py_int(t.dtype().itemsize() as i64)?.release())
    })
}

unsafe extern "C" fn get_t(slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of `_C.Tensor`.
        let t = unsafe { this(slf) };
        // torch's `Tensor.T`: all dims reversed (a view), with torch's deprecation warnings.
        Ok(wrap(crate::core::ops::numpy_t(&t)?)?.release())
    })
}

/// `mT`/`mH`/`H`: the core checked the dims (errors, warnings) and built `plain`; a transpose
/// of the last two dims is taken again through autograd so that it records its node.
fn matrix_view(
    t: &crate::core::Tensor,
    plain: crate::core::Tensor,
) -> PyResult<crate::core::Tensor> {
    drop(plain);
    if t.dim() >= 2 {
        Ok(crate::core::autograd::variable_type::transpose(t, -2, -1)?)
    } else {
        Ok(crate::core::autograd::variable_type::permute(t, &[])?)
    }
}

unsafe extern "C" fn get_mt(slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of `_C.Tensor`.
        let t = unsafe { this(slf) };
        Ok(wrap(matrix_view(&t, crate::core::ops::matrix_t(&t, false)?)?)?.release())
    })
}

unsafe extern "C" fn get_mh(slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of `_C.Tensor`.
        let t = unsafe { this(slf) };
        Ok(wrap(matrix_view(&t, crate::core::ops::matrix_t(&t, true)?)?)?.release())
    })
}

unsafe extern "C" fn get_h(slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of `_C.Tensor`.
        let t = unsafe { this(slf) };
        Ok(wrap(matrix_view(&t, crate::core::ops::matrix_h(&t)?)?)?.release())
    })
}

unsafe extern "C" fn get_device(_slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    // Every tensor is in CPU memory (Note [Devices]).
    crate::handle_errors!({ Ok(super::device_object::cpu_device()?.release()) })
}

unsafe extern "C" fn get_layout(_slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({ Ok(super::device_object::strided().release()) })
}

unsafe extern "C" fn get_is_cpu(_slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({ Ok(super::object_ptr::py_bool(true).release()) })
}

unsafe extern "C" fn get_false(_slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({ Ok(super::object_ptr::py_bool(false).release()) })
}

unsafe extern "C" fn get_base(slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of `_C.Tensor`.
        let t = unsafe { this(slf) };
        match t.base() {
            Some(b) => Ok(wrap(b.clone())?.release()),
            None => Ok(super::object_ptr::none().release()),
        }
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

pub(crate) unsafe extern "C" fn tolist(
    slf: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: method of `_C.Tensor`.
        let t = unsafe { this(slf) };
        let values = crate::core::ops::conversion::try_to_scalar_vec(&t)?;
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
                let v = wrap(crate::core::ops::select(&t, 0, i as i64)?)?;
                ffi::PyList_SET_ITEM(list.as_ptr(), i as ffi::Py_ssize_t, v.release());
            }
            ObjectPtr::steal_or_err(ffi::PyObject_GetIter(list.as_ptr())).map(ObjectPtr::release)
        }
    })
}

/// `repr(t)`: torch's format, with `_C` in place of `torch`.
pub(crate) unsafe extern "C" fn tensor_repr(slf: *mut ffi::PyObject) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: `tp_repr` is called with a live instance of this type.
        let t = unsafe { tensor_ref(Borrowed::from_ptr(slf)) };
        super::convert::py_str(&crate::core::format::format_tensor(&t, "_C"))
            .map(ObjectPtr::release)
    })
}

/// `hash(t)`: by identity.
pub(crate) unsafe extern "C" fn tensor_hash(slf: *mut ffi::PyObject) -> ffi::Py_hash_t {
    // Identity hash, as torch's `Tensor.__hash__` (`id(self)`); never -1.
    let h = (slf as usize).rotate_right(4) as ffi::Py_hash_t;
    if h == -1 {
        -2
    } else {
        h
    }
}

/// `t.__reduce_ex__(protocol)`: pickle and `copy` support. The tensor is stored as
/// `_C._rebuild_tensor(type(t), data_bytes, dtype, shape)` plus its `__dict__` as state, so
/// values, dtype, shape, subclass and attributes survive a round trip.
pub(crate) unsafe extern "C" fn reduce_ex(
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
            let rebuild = super::state::rebuild_tensor_fn()?;
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

/// `t.__deepcopy__(memo)`: a copy of the data, dtype, shape, strides, subclass, `__dict__` and
/// `grad`. Tensors that share storage inside one deep copy share one new storage afterwards, as
/// in torch (the memo maps each original storage to its copy).
pub(crate) unsafe extern "C" fn deepcopy(
    slf: *mut ffi::PyObject,
    memo: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: method of `_C.Tensor` (`slf` live, borrowed); `memo` is a live borrowed object.
        // Every CPython call below returns a new reference or NULL with an error set (or, for
        // `PyDict_GetItemWithError`, a borrowed reference or NULL); each is checked.
        unsafe {
            let (obj, t) = (Borrowed::from_ptr(slf), this(slf));
            let memo = if ffi::PyDict_Check(memo) != 0 {
                ObjectPtr::borrow(memo)
            } else {
                ObjectPtr::steal_or_err(ffi::PyDict_New())?
            };
            let key = ObjectPtr::steal_or_err(ffi::Py_BuildValue(
                c"(sn)".as_ptr(),
                c"tensorbind.storage".as_ptr(),
                t.storage_id() as ffi::Py_ssize_t,
            ))?;
            let found = ffi::PyDict_GetItemWithError(memo.as_ptr(), key.as_ptr());
            let flat = if found.is_null() {
                if !ffi::PyErr_Occurred().is_null() {
                    return Err(BindError::Python);
                }
                let flat = wrap(t.copy_storage()?)?;
                if ffi::PyDict_SetItem(memo.as_ptr(), key.as_ptr(), flat.as_ptr()) < 0 {
                    return Err(BindError::Python);
                }
                flat
            } else {
                ObjectPtr::borrow(found)
            };
            let flat_t = tensor_ref(flat.as_borrowed());
            let copy_t = flat_t.restride_owned(t.sizes(), t.strides(), t.storage_offset());
            let new = super::tensor_object::alloc_with(obj.type_ptr(), copy_t)?;
            let id = ObjectPtr::steal_or_err(ffi::PyLong_FromVoidPtr(slf.cast()))?;
            if ffi::PyDict_SetItem(memo.as_ptr(), id.as_ptr(), new.as_ptr()) < 0 {
                return Err(BindError::Python);
            }
            let copy_mod = ObjectPtr::steal_or_err(ffi::PyImport_ImportModule(c"copy".as_ptr()))?;
            let deep = ObjectPtr::steal_or_err(ffi::PyObject_GetAttrString(
                copy_mod.as_ptr(),
                c"deepcopy".as_ptr(),
            ))?;
            let dict = (*(slf as *mut super::tensor_object::PyTensor)).dict;
            if !dict.is_null() && ffi::PyDict_Size(dict) > 0 {
                let d = ObjectPtr::steal_or_err(ffi::PyObject_CallFunctionObjArgs(
                    deep.as_ptr(),
                    dict,
                    memo.as_ptr(),
                    std::ptr::null_mut::<ffi::PyObject>(),
                ))?;
                if ffi::PyObject_SetAttrString(new.as_ptr(), c"__dict__".as_ptr(), d.as_ptr()) < 0 {
                    return Err(BindError::Python);
                }
            }
            if let Some(g) = t.grad() {
                let g = wrap(g)?;
                let gc = ObjectPtr::steal_or_err(ffi::PyObject_CallFunctionObjArgs(
                    deep.as_ptr(),
                    g.as_ptr(),
                    memo.as_ptr(),
                    std::ptr::null_mut::<ffi::PyObject>(),
                ))?;
                if let Some(gt) = super::tensor_object::unpack(gc.as_borrowed()) {
                    tensor_ref(new.as_borrowed()).set_grad(Some(gt.clone()))?;
                }
            }
            Ok(new.release())
        }
    })
}

/// Hand-written methods the schema does not describe (no sentinel): appended to the generated
/// table by `tensor_type::init`. (`tolist`, `as_subclass`, `__deepcopy__` and `__reduce_ex__`
/// are hand-written too, but declared in the schema with `manual_binding`, which puts them in
/// the generated table with their docstrings.)
pub fn hand_written_methods() -> Vec<ffi::PyMethodDef> {
    vec![method_keywords(
        super::override_protocol::PROTOCOL_NAME,
        super::override_protocol::default_impl,
        ffi::METH_CLASS,
        c"__tensorbind_function__(cls, func, types, args=(), kwargs=None)\n--\n\nThe override protocol's default (PyTorch: Tensor.__torch_function__): returns\nNotImplemented unless cls is a subclass of every type in types; otherwise calls\nfunc(*args, **kwargs) with the protocol disabled and returns tensor results as cls instances.\nOverride it in a subclass (as a classmethod) to intercept every _C function, method and\noperator the subclass takes part in.",
    )]
}

/// The attribute table (with sentinel).
pub fn getset_table() -> Vec<ffi::PyGetSetDef> {
    vec![
        getter(c"shape", get_shape, c"The sizes of the dims, as a tuple of ints (torch.Tensor.shape; torch returns torch.Size)."),
        getter(c"dtype", get_dtype, c"The element type, one of the _C.dtype singletons (torch.Tensor.dtype)."),
        getter(c"ndim", get_ndim, c"The number of dims, as an int (torch.Tensor.ndim)."),
        getter(c"nbytes", get_nbytes, c"The bytes the tensor's elements take: numel() * element_size(), an int, whatever the layout (an expanded tensor counts each element; torch.Tensor.nbytes)."),
        getter(c"itemsize", get_itemsize, c"The size of one element in bytes, an int: element_size() (torch.Tensor.itemsize)."),
        getter(c"T", get_t, c"A view with all dims reversed (torch.Tensor.T)."),
        getter(c"mT", get_mt, c"A view with the last two dims swapped (torch.Tensor.mT). RuntimeError for a 1-D tensor."),
        getter(c"mH", get_mh, c"A view with the last two dims swapped: the conjugate transpose, for real dtypes the same as mT (torch.Tensor.mH)."),
        getter(c"H", get_h, c"The transpose of a matrix (torch.Tensor.H: the conjugate transpose, for real dtypes a plain transpose). RuntimeError unless 2-D (0-D: the identity, with a warning)."),
        getter(c"device", get_device, c"The device of the tensor's memory: always _C.device('cpu') (torch.Tensor.device)."),
        getter(c"layout", get_layout, c"The memory layout: always _C.strided (torch.Tensor.layout)."),
        getter(c"is_cpu", get_is_cpu, c"True: every tensorbind tensor is in CPU memory (torch.Tensor.is_cpu)."),
        getter(c"is_cuda", get_false, c"False: tensorbind has no CUDA tensors (torch.Tensor.is_cuda)."),
        getter(c"is_meta", get_false, c"False: tensorbind has no meta tensors (torch.Tensor.is_meta)."),
        getter(c"_base", get_base, c"For a view, the tensor it views (the root of a chain of views); None otherwise (torch.Tensor._base)."),
        // Static types get no `__dict__` descriptor from CPython; the generic pair reads and
        // replaces the instance dict at `tp_dictoffset`.
        getset(
            c"__dict__",
            ffi::PyObject_GenericGetDict,
            Some(ffi::PyObject_GenericSetDict),
            c"The instance attribute dictionary (created on first use).",
        ),
        GETSET_END,
    ]
}
