//! src/bindings/tensor_object.rs: `_C.Tensor`, the Python object that holds a core `Tensor` in
//! place (PyTorch: `THPVariable` in `python_variable.cpp`), its static `PyTypeObject`, and
//! `wrap` / `unpack` between the two.
//!
//! Note [Tensor in place]: a `PyTensor` stores its `Tensor` *inside* the Python object (`cdata`),
//! not behind a pointer to a heap box, so a Python tensor is one object allocation (plus the
//! storage and shape vectors). `tp_alloc` returns zeroed memory, so `cdata` is initialised with
//! `ptr::write` and dropped in place with `ptr::drop_in_place` in `tp_dealloc`, exactly once.
//! Every `PyTensor` that CPython can see has an initialised `cdata`: objects are published
//! (returned or stored) only after the write. `tp_new` follows the same rule.

use super::errors::{BindError, PyResult};
use super::object_ptr::{Borrowed, ObjectPtr};
use crate::core::Tensor;
use pyo3_ffi as ffi;
use std::ffi::c_int;
use std::ptr::{addr_of_mut, null_mut};

/// The object layout of `_C.Tensor` and of every Python subclass (which appends its own slots
/// after it).
#[repr(C)]
pub struct PyTensor {
    pub ob_base: ffi::PyObject,
    /// The core tensor, in place. See Note [Tensor in place].
    pub cdata: Tensor,
    /// The instance `__dict__`, created lazily by CPython (`tp_dictoffset`); owned, or NULL.
    pub dict: *mut ffi::PyObject,
    /// The weak-reference list head (`tp_weaklistoffset`); managed by CPython.
    pub weakrefs: *mut ffi::PyObject,
}

// Pin the layout (nanobind's habit): 16-byte header, the tensor, then two pointers.
const _: () = assert!(std::mem::offset_of!(PyTensor, cdata) == 16);
const _: () =
    assert!(std::mem::offset_of!(PyTensor, weakrefs) == std::mem::offset_of!(PyTensor, dict) + 8);
const _: () =
    assert!(std::mem::size_of::<PyTensor>() == std::mem::offset_of!(PyTensor, weakrefs) + 8);

/// The `_C.Tensor` type object, filled in by `init`.
static mut TENSOR_TYPE: ffi::PyTypeObject = {
    // SAFETY: an all-zero `PyTypeObject` is the documented "empty" static type; `init` fills it.
    unsafe { std::mem::zeroed() }
};

/// The type object (borrowed, static).
#[inline(always)]
pub fn tensor_type() -> *mut ffi::PyTypeObject {
    addr_of_mut!(TENSOR_TYPE)
}

/// True when `o` is a `_C.Tensor` or an instance of a subclass (exact type checked first).
#[inline(always)]
pub fn is_tensor(o: Borrowed<'_>) -> bool {
    let tp = o.type_ptr();
    // SAFETY: `PyType_IsSubtype` reads the MRO of a live type.
    tp == tensor_type() || unsafe { ffi::PyType_IsSubtype(tp, tensor_type()) != 0 }
}

/// The core tensor inside `o`, borrowed for as long as `o` is borrowed.
///
/// # Safety
/// `o` must be a tensor (`is_tensor(o)`).
#[inline(always)]
pub unsafe fn tensor_ref<'a>(o: Borrowed<'a>) -> &'a Tensor {
    // SAFETY: `o` is a live `PyTensor` (contract) whose `cdata` is initialised (Note [Tensor in
    // place]); the reference lives no longer than the borrow of `o`.
    unsafe { &(*(o.as_ptr() as *mut PyTensor)).cdata }
}

/// The core tensor inside `o`, or `None` if `o` is not a tensor.
#[inline(always)]
pub fn unpack<'a>(o: Borrowed<'a>) -> Option<&'a Tensor> {
    if is_tensor(o) {
        // SAFETY: checked just above.
        Some(unsafe { tensor_ref(o) })
    } else {
        None
    }
}

/// Allocate an instance of `tp` (the tensor type or a subclass) holding `t`: a new reference.
///
/// # Safety
/// `tp` is `tensor_type()` or a ready subtype of it; the GIL is held.
pub unsafe fn alloc_with(tp: *mut ffi::PyTypeObject, t: Tensor) -> PyResult<ObjectPtr> {
    // SAFETY: `tp_alloc` of a ready type returns a zeroed new reference or NULL (MemoryError set).
    unsafe {
        let alloc = (*tp).tp_alloc.unwrap_or(ffi::PyType_GenericAlloc);
        let obj = alloc(tp, 0);
        if obj.is_null() {
            return Err(BindError::Python); // `t` is dropped normally
        }
        std::ptr::write(&raw mut (*(obj as *mut PyTensor)).cdata, t);
        Ok(ObjectPtr::steal(obj).expect("checked non-NULL"))
    }
}

/// A new Python `_C.Tensor` owning `t`: a new reference.
pub fn wrap(t: Tensor) -> PyResult<ObjectPtr> {
    // SAFETY: our own ready type; binding code runs with the GIL held.
    unsafe { alloc_with(tensor_type(), t) }
}

unsafe extern "C" fn tensor_dealloc(slf: *mut ffi::PyObject) {
    // Never unwinds: dropping a `Tensor` does not panic. See Note [Tensor in place].
    // SAFETY: CPython calls `tp_dealloc` once, on a dead instance of this type (or of a subclass,
    // after `subtype_dealloc` cleared the subclass's own slots). The order follows CPython's
    // guidance for GC types: untrack, clear weakrefs, clear the dict, drop in place, free.
    unsafe {
        ffi::PyObject_GC_UnTrack(slf.cast());
        let p = slf as *mut PyTensor;
        if !(*p).weakrefs.is_null() {
            ffi::PyObject_ClearWeakRefs(slf);
        }
        let dict = std::mem::replace(&mut (*p).dict, null_mut());
        drop(ObjectPtr::steal(dict)); // owned reference released here (NULL is fine)
        std::ptr::drop_in_place(&raw mut (*p).cdata);
        let tp = ffi::Py_TYPE(slf);
        let free = (*tp).tp_free.unwrap_or(ffi::PyObject_GC_Del);
        free(slf.cast());
    }
}

unsafe extern "C" fn tensor_traverse(
    slf: *mut ffi::PyObject,
    visit: ffi::visitproc,
    arg: *mut std::ffi::c_void,
) -> c_int {
    // SAFETY: called by the GC on a live instance; `dict` is an owned reference or NULL.
    unsafe {
        let dict = (*(slf as *mut PyTensor)).dict;
        if !dict.is_null() {
            let r = visit(dict, arg);
            if r != 0 {
                return r;
            }
        }
        // A heap subclass's type is visited by `subtype_traverse`, not here.
    }
    0
}

unsafe extern "C" fn tensor_clear(slf: *mut ffi::PyObject) -> c_int {
    // SAFETY: called by the GC on a live instance; we release the dict we own (Py_CLEAR order:
    // the field is NULL before the reference is dropped).
    unsafe {
        let p = slf as *mut PyTensor;
        let dict = std::mem::replace(&mut (*p).dict, null_mut());
        drop(ObjectPtr::steal(dict));
    }
    0
}

unsafe extern "C" fn tensor_repr(slf: *mut ffi::PyObject) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: `tp_repr` is called with a live instance of this type.
        let t = unsafe { tensor_ref(Borrowed::from_ptr(slf)) };
        super::convert::py_str(&crate::core::ops::format_tensor(t, "_C")).map(ObjectPtr::release)
    })
}

unsafe extern "C" fn tensor_hash(slf: *mut ffi::PyObject) -> ffi::Py_hash_t {
    // Identity hash, as torch's `Tensor.__hash__` (`id(self)`); never -1.
    let h = (slf as usize).rotate_right(4) as ffi::Py_hash_t;
    if h == -1 {
        -2
    } else {
        h
    }
}

const TENSOR_DOC: &std::ffi::CStr = c"Tensor(data=None) -> Tensor\n\n\
A multi-dimensional, strided array of one dtype (PyTorch: torch.Tensor).\n\n\
Calling the type mirrors torch's legacy constructor: Tensor() is an empty float32 tensor,\n\
Tensor(sequence) builds a float32 tensor from nested lists/tuples of numbers, and\n\
Tensor(d0, d1, ...) a zero-filled float32 tensor of that shape. Prefer _C.tensor() and the\n\
factories (_C.zeros, _C.ones, _C.full, _C.arange, ...).\n\n\
Raises TypeError for other argument types and ValueError for ragged nested sequences.";

/// Method, getter and slot tables of `_C.Tensor`, built once by `init` from the generated table
/// and the hand-written entries, then owned by the type for the life of the process.
///
/// # Safety
/// Called once, with the GIL held, from `PyInit__C`.
pub unsafe fn init(module: *mut ffi::PyObject) -> PyResult<()> {
    let mut methods: Vec<ffi::PyMethodDef> = Vec::new();
    methods.extend_from_slice(super::generated::tensor_methods());
    methods.extend(super::tensor_methods::hand_written_methods());
    methods.push(ffi::PyMethodDef::zeroed());
    let methods = Box::leak(methods.into_boxed_slice());
    let getset = Box::leak(super::tensor_methods::getset_table().into_boxed_slice());
    // SAFETY: single-threaded initialisation under the GIL; the statics are not yet shared.
    unsafe {
        let t = tensor_type();
        (*t).tp_name = c"_C.Tensor".as_ptr();
        (*t).tp_basicsize = std::mem::size_of::<PyTensor>() as ffi::Py_ssize_t;
        (*t).tp_flags =
            ffi::Py_TPFLAGS_DEFAULT | ffi::Py_TPFLAGS_BASETYPE | ffi::Py_TPFLAGS_HAVE_GC;
        (*t).tp_doc = TENSOR_DOC.as_ptr();
        (*t).tp_dealloc = Some(tensor_dealloc);
        (*t).tp_traverse = Some(tensor_traverse);
        (*t).tp_clear = Some(tensor_clear);
        (*t).tp_repr = Some(tensor_repr);
        (*t).tp_hash = Some(tensor_hash);
        (*t).tp_richcompare = Some(super::number::tensor_richcompare);
        (*t).tp_as_number = super::number::number_methods();
        (*t).tp_as_mapping = super::mapping::mapping_methods();
        (*t).tp_iter = Some(super::tensor_methods::tensor_iter);
        (*t).tp_dictoffset = std::mem::offset_of!(PyTensor, dict) as ffi::Py_ssize_t;
        (*t).tp_weaklistoffset = std::mem::offset_of!(PyTensor, weakrefs) as ffi::Py_ssize_t;
        (*t).tp_methods = methods.as_mut_ptr();
        (*t).tp_getset = getset.as_mut_ptr();
        (*t).tp_new = Some(super::tensor_new::tensor_type_new);
        (*t).tp_alloc = Some(ffi::PyType_GenericAlloc);
        (*t).tp_free = Some(ffi::PyObject_GC_Del);
        if ffi::PyType_Ready(t) < 0 {
            return Err(BindError::Python);
        }
        super::convert::add_object(module, "Tensor", ObjectPtr::borrow(t as *mut ffi::PyObject))
    }
}
