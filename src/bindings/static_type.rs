//! src/bindings/static_type.rs: the one way our static types are built — a `StaticType` (a
//! `PyTypeObject` in a static, all zeros until module init) is filled from a `TypeSpec` and
//! readied by `StaticType::ready` — and the const constructors of method and attribute rows
//! (`method_noargs`, `method_o`, `method_keywords`, `getter`, `getset`), so that no table spells
//! out a `PyMethodDef` or `PyGetSetDef` by hand (the generated tables are written by build.rs).
//!
//! Layer 0 (references, errors, GIL, state): see src/bindings/mod.rs.
//!
//! Static types rather than `PyType_FromSpec` heap types: `_C.Tensor`'s address is compared on
//! every call (`is_tensor`, the free list), which a static makes a constant; CPython's own
//! extension types are static for the same reason. `TypeSpec` names the slots we use; the others
//! stay zero, which `PyType_Ready` fills by inheritance from the base, as for a C static type.

use super::errors::{BindError, PyResult};
use pyo3_ffi as ffi;
use std::cell::UnsafeCell;
use std::ffi::{c_int, c_ulong, c_void, CStr};
use std::ptr::null_mut;

/// A static type object, zero until `ready` fills it (PyTorch and CPython: a `static
/// PyTypeObject` filled at module init).
pub struct StaticType(UnsafeCell<ffi::PyTypeObject>);

// SAFETY: `ready` writes the object once, with the GIL held, before anything can reach the type;
// after that CPython owns its mutable fields (reference count, caches) and touches them only with
// the GIL held, as for every static type of a C extension.
unsafe impl Sync for StaticType {}

impl StaticType {
    /// An empty type object: all zeros, CPython's "not yet readied" static type.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        // SAFETY: an all-zero `PyTypeObject` is the documented "empty" static type (null
        // pointers, absent slots, zero sizes); `ready` fills it.
        StaticType(UnsafeCell::new(unsafe { std::mem::zeroed() }))
    }

    /// The type object (borrowed, static; a constant address).
    #[inline(always)]
    pub const fn as_ptr(&self) -> *mut ffi::PyTypeObject {
        self.0.get()
    }

    /// Fill the type from `spec` and ready it (`PyType_Ready`).
    ///
    /// # Safety
    /// Called once per type, with the GIL held, during module initialisation, before anything
    /// uses the type; every table and function `spec` names lives for the life of the process.
    pub unsafe fn ready(&self, spec: &TypeSpec) -> PyResult<()> {
        let t = self.as_ptr();
        // SAFETY: contract: nothing else reads or writes the object yet; the GIL is held.
        unsafe {
            if !spec.metatype.is_null() {
                // Py_SET_TYPE (absent from pyo3-ffi for 3.11): classes deriving from this type are
                // made by its metatype.
                (*t).ob_base.ob_base.ob_type = spec.metatype;
            }
            (*t).tp_name = spec.name.as_ptr();
            (*t).tp_doc = spec.doc.as_ptr();
            (*t).tp_basicsize = spec.basicsize as ffi::Py_ssize_t;
            (*t).tp_flags = spec.flags;
            (*t).tp_base = spec.base;
            (*t).tp_new = spec.new;
            (*t).tp_alloc = spec.alloc;
            (*t).tp_free = spec.free;
            (*t).tp_dealloc = spec.dealloc;
            (*t).tp_traverse = spec.traverse;
            (*t).tp_clear = spec.clear;
            (*t).tp_repr = spec.repr;
            (*t).tp_getattro = spec.getattro;
            (*t).tp_call = spec.call;
            (*t).tp_hash = spec.hash;
            (*t).tp_richcompare = spec.richcompare;
            (*t).tp_iter = spec.iter;
            (*t).tp_as_number = spec.as_number;
            (*t).tp_as_mapping = spec.as_mapping;
            (*t).tp_as_buffer = spec.as_buffer;
            (*t).tp_dictoffset = spec.dictoffset as ffi::Py_ssize_t;
            (*t).tp_weaklistoffset = spec.weaklistoffset as ffi::Py_ssize_t;
            (*t).tp_methods = spec.methods;
            (*t).tp_getset = spec.getset;
            if ffi::PyType_Ready(t) < 0 {
                return Err(BindError::Python);
            }
        }
        Ok(())
    }
}

/// What a static type is made of: its name and doc, instance size and flags, and the slots and
/// tables we give it (CPython's `PyType_Spec`, as plain fields). Start from `TypeSpec::new` and
/// set the rest with struct update syntax (`..TypeSpec::new(name, doc)`); fields left at their
/// default are inherited from the base by `PyType_Ready`.
#[derive(Clone, Copy)]
pub struct TypeSpec {
    pub name: &'static CStr,
    pub doc: &'static CStr,
    /// `tp_basicsize`: the instance size in bytes; 0 inherits the base's.
    pub basicsize: usize,
    pub flags: c_ulong,
    /// The type of the type (a metaclass); NULL: the base's (`type`).
    pub metatype: *mut ffi::PyTypeObject,
    /// NULL: `object`.
    pub base: *mut ffi::PyTypeObject,
    pub new: Option<ffi::newfunc>,
    pub alloc: Option<ffi::allocfunc>,
    pub free: Option<ffi::freefunc>,
    pub dealloc: Option<ffi::destructor>,
    pub traverse: Option<ffi::traverseproc>,
    pub clear: Option<ffi::inquiry>,
    pub repr: Option<ffi::reprfunc>,
    /// `tp_getattro`; None inherits the base's (the generic lookup).
    pub getattro: Option<ffi::getattrofunc>,
    /// `tp_call`: instances are callable.
    pub call: Option<ffi::ternaryfunc>,
    pub hash: Option<ffi::hashfunc>,
    pub richcompare: Option<ffi::richcmpfunc>,
    pub iter: Option<ffi::getiterfunc>,
    pub as_number: *mut ffi::PyNumberMethods,
    pub as_mapping: *mut ffi::PyMappingMethods,
    /// `tp_as_buffer`: the buffer protocol (PEP 3118), or NULL.
    pub as_buffer: *mut ffi::PyBufferProcs,
    /// `tp_dictoffset`, `tp_weaklistoffset`: offsets in the instance; 0 for none.
    pub dictoffset: usize,
    pub weaklistoffset: usize,
    /// Sentinel-terminated tables, alive for the life of the process; NULL for none.
    pub methods: *mut ffi::PyMethodDef,
    pub getset: *mut ffi::PyGetSetDef,
}

impl TypeSpec {
    /// A type named `name` (`"_C.Tensor"`: module and name, as `tp_name` wants) with docstring
    /// `doc`, `Py_TPFLAGS_DEFAULT`, and nothing else.
    pub const fn new(name: &'static CStr, doc: &'static CStr) -> TypeSpec {
        TypeSpec {
            name,
            doc,
            basicsize: 0,
            flags: ffi::Py_TPFLAGS_DEFAULT,
            metatype: null_mut(),
            base: null_mut(),
            new: None,
            alloc: None,
            free: None,
            dealloc: None,
            traverse: None,
            clear: None,
            repr: None,
            getattro: None,
            call: None,
            hash: None,
            richcompare: None,
            iter: None,
            as_number: null_mut(),
            as_mapping: null_mut(),
            as_buffer: null_mut(),
            dictoffset: 0,
            weaklistoffset: 0,
            methods: null_mut(),
            getset: null_mut(),
        }
    }
}

// ----- rows of method and attribute tables ------------------------------------------------------

/// A `METH_NOARGS` method: `f(self, NULL)`.
pub const fn method_noargs(
    name: &'static CStr,
    f: ffi::PyCFunction,
    doc: &'static CStr,
) -> ffi::PyMethodDef {
    ffi::PyMethodDef {
        ml_name: name.as_ptr(),
        ml_meth: ffi::PyMethodDefPointer { PyCFunction: f },
        ml_flags: ffi::METH_NOARGS,
        ml_doc: doc.as_ptr(),
    }
}

/// A `METH_O` method: `f(self, arg)`.
pub const fn method_o(
    name: &'static CStr,
    f: ffi::PyCFunction,
    doc: &'static CStr,
) -> ffi::PyMethodDef {
    ffi::PyMethodDef {
        ml_name: name.as_ptr(),
        ml_meth: ffi::PyMethodDefPointer { PyCFunction: f },
        ml_flags: ffi::METH_O,
        ml_doc: doc.as_ptr(),
    }
}

/// A `METH_VARARGS | METH_KEYWORDS` method, `f(self, args, kwargs)`, with `extra` flags
/// (`METH_CLASS`, ...).
pub const fn method_keywords(
    name: &'static CStr,
    f: ffi::PyCFunctionWithKeywords,
    extra: c_int,
    doc: &'static CStr,
) -> ffi::PyMethodDef {
    ffi::PyMethodDef {
        ml_name: name.as_ptr(),
        ml_meth: ffi::PyMethodDefPointer {
            PyCFunctionWithKeywords: f,
        },
        ml_flags: ffi::METH_VARARGS | ffi::METH_KEYWORDS | extra,
        ml_doc: doc.as_ptr(),
    }
}

/// The sentinel that ends a method table.
pub const METHODS_END: ffi::PyMethodDef = ffi::PyMethodDef::zeroed();

/// A read-only attribute.
pub const fn getter(name: &'static CStr, get: ffi::getter, doc: &'static CStr) -> ffi::PyGetSetDef {
    getset(name, get, None, doc)
}

/// An attribute with a getter and, unless `set` is `None`, a setter.
pub const fn getset(
    name: &'static CStr,
    get: ffi::getter,
    set: Option<ffi::setter>,
    doc: &'static CStr,
) -> ffi::PyGetSetDef {
    ffi::PyGetSetDef {
        name: name.as_ptr(),
        get: Some(get),
        set,
        doc: doc.as_ptr(),
        closure: null_mut::<c_void>(),
    }
}

/// The sentinel that ends an attribute table.
pub const GETSET_END: ffi::PyGetSetDef = ffi::PyGetSetDef {
    name: std::ptr::null(),
    get: None,
    set: None,
    doc: std::ptr::null(),
    closure: null_mut::<c_void>(),
};
