//! src/bindings/tensor_type.rs: `_C.Tensor`'s type object assembled from the entry points — the
//! generated and hand-written methods, the attributes, the number protocol (generated operator
//! slots plus the hand-written ones of number.rs), `tp_richcompare`, indexing (mapping.rs),
//! `repr`/`hash`/`iter` (tensor_methods.rs), the constructor (tensor_new.rs) and the lifecycle
//! slots of tensor_object.rs — and its metaclass `_C._TensorMeta`, which gives Python subclasses
//! their deallocator, traverse and clear (Note [PyObject preservation]).
//!
//! Layer 4 (assembly): see src/bindings/mod.rs.

use super::errors::PyResult;
use super::number::{binary, elementwise_worth, nb_bool, nb_float, nb_index, nb_int, nb_positive};
use super::object_ptr::{not_implemented, ObjectPtr};
use super::static_type::{StaticType, TypeSpec, METHODS_END};
use super::tensor_object::{
    release_pyobj, tensor_clear, tensor_dealloc, tensor_meta_new, tensor_traverse, PyTensor,
    TENSOR_TYPE,
};
use pyo3_ffi as ffi;
use std::ffi::c_int;
use std::ptr::addr_of_mut;

/// The metaclass of `_C.Tensor` (a subclass of `type`), readied by `init`.
static TENSOR_META_TYPE: StaticType = StaticType::new();

/// `tp_richcompare`: `==`, `!=`, `<`, `<=`, `>`, `>=` elementwise, giving bool tensors.
///
/// # Safety
/// Called by CPython with two live borrowed objects, `a` an instance of `_C.Tensor`.
pub unsafe extern "C" fn tensor_richcompare(
    a: *mut ffi::PyObject,
    b: *mut ffi::PyObject,
    op: c_int,
) -> *mut ffi::PyObject {
    // The comparisons the schema declares (`python_operator: __eq__`, ...).
    let Some((name, f)) = super::generated::compare_op(op) else {
        return not_implemented().release();
    };
    // SAFETY: forwarded CPython slot arguments.
    unsafe { binary(a, b, name, elementwise_worth, f) }
}

static mut NUMBER_METHODS: ffi::PyNumberMethods = {
    // SAFETY: an all-zero `PyNumberMethods` means "no slots"; `number_methods` fills it once.
    unsafe { std::mem::zeroed() }
};

/// The number-protocol table, filled on first use (from `init`, under the GIL): the generated
/// slots of the schema's operators, and the hand-written ones of number.rs.
fn number_methods() -> *mut ffi::PyNumberMethods {
    let t = addr_of_mut!(NUMBER_METHODS);
    // SAFETY: called once during module initialisation, before the type is readied and shared.
    unsafe {
        super::generated::fill_number_slots(&mut *t);
        (*t).nb_positive = Some(nb_positive);
        (*t).nb_bool = Some(nb_bool);
        (*t).nb_int = Some(nb_int);
        (*t).nb_float = Some(nb_float);
        (*t).nb_index = Some(nb_index);
    }
    t
}

const TENSOR_DOC: &std::ffi::CStr = c"Tensor(data=None) -> Tensor\n\n\
A multi-dimensional, strided array of one dtype (PyTorch: torch.Tensor).\n\n\
Calling the type mirrors torch's legacy constructor: Tensor() is an empty float32 tensor,\n\
Tensor(sequence) builds a float32 tensor from nested lists/tuples of numbers, and\n\
Tensor(d0, d1, ...) a zero-filled float32 tensor of that shape. Prefer _C.tensor() and the\n\
factories (_C.zeros, _C.ones, _C.full, _C.arange, ...).\n\n\
Raises TypeError for other argument types and ValueError for ragged nested sequences.";

const TENSOR_META_DOC: &std::ffi::CStr = c"The metaclass of _C.Tensor: type, plus the deallocator, traverse and clear that let Python subclasses take part in PyObject preservation.";

/// Method, getter and slot tables of `_C.Tensor`, built once by `init` from the generated table
/// and the hand-written entries, then owned by the type for the life of the process.
///
/// # Safety
/// Called once, with the GIL held, from `PyInit__C`.
pub unsafe fn init(module: *mut ffi::PyObject) -> PyResult<()> {
    let mut methods: Vec<ffi::PyMethodDef> = Vec::new();
    methods.extend_from_slice(super::generated::tensor_methods());
    methods.extend(super::tensor_methods::hand_written_methods());
    methods.extend(super::autograd_methods::tensor_methods());
    methods.push(METHODS_END);
    let methods = Box::leak(methods.into_boxed_slice());
    let mut getset = super::autograd_methods::tensor_getset();
    getset.extend(super::tensor_methods::getset_table());
    let getset = Box::leak(getset.into_boxed_slice());
    crate::core::tensor::set_pyobj_release_hook(release_pyobj);
    // SAFETY: single-threaded initialisation under the GIL; the statics are not yet shared.
    unsafe {
        // The metaclass: `type` plus a `__new__` that gives Python subclasses our deallocator,
        // traverse and clear (Note [PyObject preservation]). Sizes, flags and GC support are
        // inherited from `type`.
        TENSOR_META_TYPE.ready(&TypeSpec {
            flags: ffi::Py_TPFLAGS_DEFAULT | ffi::Py_TPFLAGS_BASETYPE,
            base: addr_of_mut!(ffi::PyType_Type),
            new: Some(tensor_meta_new),
            ..TypeSpec::new(c"_C._TensorMeta", TENSOR_META_DOC)
        })?;
        let meta = TENSOR_META_TYPE.as_ptr();
        super::convert::add_object(
            module,
            "_TensorMeta",
            ObjectPtr::borrow(meta as *mut ffi::PyObject),
        )?;
        // The static type's own type is the metaclass, so classes deriving from it are made by
        // the metaclass.
        TENSOR_TYPE.ready(&TypeSpec {
            metatype: meta,
            basicsize: std::mem::size_of::<PyTensor>(),
            flags: ffi::Py_TPFLAGS_DEFAULT | ffi::Py_TPFLAGS_BASETYPE | ffi::Py_TPFLAGS_HAVE_GC,
            dealloc: Some(tensor_dealloc),
            traverse: Some(tensor_traverse),
            clear: Some(tensor_clear),
            repr: Some(super::tensor_methods::tensor_repr),
            hash: Some(super::tensor_methods::tensor_hash),
            richcompare: Some(tensor_richcompare),
            as_number: number_methods(),
            as_mapping: super::mapping::mapping_methods(),
            as_buffer: addr_of_mut!(super::buffer::TENSOR_BUFFER_PROCS),
            iter: Some(super::tensor_methods::tensor_iter),
            dictoffset: std::mem::offset_of!(PyTensor, dict),
            weaklistoffset: std::mem::offset_of!(PyTensor, weakrefs),
            methods: methods.as_mut_ptr(),
            getset: getset.as_mut_ptr(),
            new: Some(super::tensor_new::tensor_type_new),
            alloc: Some(ffi::PyType_GenericAlloc),
            free: Some(ffi::PyObject_GC_Del),
            ..TypeSpec::new(c"_C.Tensor", TENSOR_DOC)
        })?;
        let t = TENSOR_TYPE.as_ptr();
        // torch's `__array_priority__ = 1000`: numpy's binary operators defer to ours, so
        // `np.float64(2) * t` and `np.ones(2) + t` give tensors. A class attribute, written into
        // the ready type's dict (a static type refuses `setattr`).
        let priority = super::convert::py_float(1000.0)?;
        if ffi::PyDict_SetItemString(
            (*t).tp_dict,
            c"__array_priority__".as_ptr(),
            priority.as_ptr(),
        ) < 0
        {
            return Err(super::errors::BindError::Python);
        }
        ffi::PyType_Modified(t);
        super::convert::add_object(module, "Tensor", ObjectPtr::borrow(t as *mut ffi::PyObject))
    }
}
