//! src/bindings/module.rs: `PyInit__C`, the module's entry point (PyTorch: `Module.cpp`). Builds
//! the module from the generated method table (which also lists the hand-written functions the
//! schema declares with `manual_binding`) and the test hooks, readies the types — handing them
//! the generated tables they need (named tuples, Generator methods) — and records the module-wide
//! state (state.rs).
//!
//! Layer 4 (assembly): see src/bindings/mod.rs.

use super::convert::add_object;
use super::errors::PyResult;
use super::object_ptr::{py_bool, ObjectPtr};
use super::static_type::METHODS_END;
use pyo3_ffi as ffi;
use std::ptr::addr_of_mut;
use std::sync::atomic::Ordering;

static mut MODULE_DEF: ffi::PyModuleDef = ffi::PyModuleDef {
    m_base: ffi::PyModuleDef_HEAD_INIT,
    m_name: c"_C".as_ptr(),
    m_doc: c"tensorbind's extension module: a PyTorch-compatible tensor library with a Rust core.\n\nSee _C.Tensor, _C.tensor and the factories (_C.zeros, _C.arange, ...).".as_ptr(),
    m_size: -1,
    m_methods: std::ptr::null_mut(),
    m_slots: std::ptr::null_mut(),
    m_traverse: None,
    m_clear: None,
    // No `m_free`: the module is never freed (the interpreter keeps single-phase extension
    // modules, and the statics above hold references to it), so there is nothing to tear down.
    m_free: None,
};

/// The definition of a submodule of `_C` holding generated functions (`_C._nn`, `_C._linalg`,
/// `_C._special`).
const fn submodule_def(
    name: &'static std::ffi::CStr,
    doc: &'static std::ffi::CStr,
) -> ffi::PyModuleDef {
    ffi::PyModuleDef {
        m_base: ffi::PyModuleDef_HEAD_INIT,
        m_name: name.as_ptr(),
        m_doc: doc.as_ptr(),
        m_size: -1,
        m_methods: std::ptr::null_mut(),
        m_slots: std::ptr::null_mut(),
        m_traverse: None,
        m_clear: None,
        // Never freed, as `_C` itself: `_C` holds it as an attribute for the process's life.
        m_free: None,
    }
}

static mut NN_MODULE_DEF: ffi::PyModuleDef = submodule_def(
    c"_C._nn",
    c"The functions behind _C.nn.functional (torch's torch._C._nn): the schema's `python_module: nn` entries.",
);
static mut LINALG_MODULE_DEF: ffi::PyModuleDef = submodule_def(
    c"_C._linalg",
    c"The functions behind _C.linalg (torch's torch._C._linalg): the schema's `python_module: linalg` entries.",
);
static mut SPECIAL_MODULE_DEF: ffi::PyModuleDef = submodule_def(
    c"_C._special",
    c"The functions behind _C.special (torch's torch._C._special): the schema's `python_module: special` entries.",
);

/// A submodule (`_C._nn`, torch's `torch._C._nn`; `_C._linalg`; `_C._special`) over its
/// generated functions, a new reference; `_C/__init__.py` registers it in `sys.modules`.
///
/// # Safety
/// Called once per `def`, from `init`, under the GIL; `def` is one of the statics above.
unsafe fn submodule(
    def: *mut ffi::PyModuleDef,
    functions: &'static [ffi::PyMethodDef],
) -> PyResult<ObjectPtr> {
    let mut methods: Vec<ffi::PyMethodDef> = Vec::new();
    methods.extend_from_slice(functions);
    methods.push(METHODS_END);
    // The table lives for the life of the process (CPython keeps pointers into it).
    let methods = Box::leak(methods.into_boxed_slice());
    // SAFETY: runs once per definition during module initialisation, under the GIL, before
    // anything is shared; `def` points to a static that lives for the process.
    unsafe {
        (*def).m_methods = methods.as_mut_ptr();
        ObjectPtr::steal_or_err(ffi::PyModule_Create(def))
    }
}

unsafe fn init() -> PyResult<ObjectPtr> {
    super::errors::install_quiet_panic_hook();
    super::arg_parser::intern_keywords(super::generated::keywords())?;
    let mut methods: Vec<ffi::PyMethodDef> = Vec::new();
    methods.extend_from_slice(super::generated::functions());
    methods.extend(super::testing::functions());
    methods.extend(super::autograd_methods::functions());
    methods.push(METHODS_END);
    // The table lives for the life of the process (CPython keeps pointers into it).
    let methods = Box::leak(methods.into_boxed_slice());
    // SAFETY: module initialisation runs once, under the GIL, before anything is shared.
    unsafe {
        let def = addr_of_mut!(MODULE_DEF);
        (*def).m_methods = methods.as_mut_ptr();
        let m = ObjectPtr::steal_or_err(ffi::PyModule_Create(def))?;
        super::override_protocol::init()?;
        super::dtype_object::init(m.as_ptr())?;
        super::device_object::init(m.as_ptr())?;
        super::tensor_type::init(m.as_ptr())?;
        super::structseq::init(m.as_ptr(), super::generated::return_types())?;
        super::generator_methods::init(m.as_ptr(), super::generated::generator_methods())?;
        super::node_object::init(m.as_ptr())?;
        super::autograd_methods::init(m.as_ptr())?;
        add_object(m.as_ptr(), "_py_debug", py_bool(cfg!(py_debug)))?;
        let nn = submodule(
            addr_of_mut!(NN_MODULE_DEF),
            super::generated::nn_functions(),
        )?;
        add_object(m.as_ptr(), "_nn", nn)?;
        let linalg = submodule(
            addr_of_mut!(LINALG_MODULE_DEF),
            super::generated::linalg_functions(),
        )?;
        add_object(m.as_ptr(), "_linalg", linalg)?;
        let special = submodule(
            addr_of_mut!(SPECIAL_MODULE_DEF),
            super::generated::special_functions(),
        )?;
        add_object(m.as_ptr(), "_special", special)?;
        let linalg_error = ObjectPtr::steal_or_err(super::errors::init_linalg_error())?;
        add_object(m.as_ptr(), "_LinAlgError", linalg_error)?;
        // The C API table for other extensions (include/tensorbind.h, `tb_import_api`).
        add_object(m.as_ptr(), "_C_API", super::c_api::capsule()?)?;
        let rebuild = ObjectPtr::steal_or_err(ffi::PyObject_GetAttrString(
            m.as_ptr(),
            c"_rebuild_tensor".as_ptr(),
        ))?;
        // The static keeps this reference for the life of the process.
        super::state::REBUILD_TENSOR.store(rebuild.release(), Ordering::Release);
        // Likewise one reference to the module itself.
        super::state::MODULE.store(m.clone().release(), Ordering::Release);
        add_object(
            m.as_ptr(),
            "__version__",
            super::convert::py_str(env!("CARGO_PKG_VERSION"))?,
        )?;
        Ok(m)
    }
}

/// The module's init function, found by CPython as `PyInit__C`. Returns a new reference to the
/// module, or NULL with an exception set.
///
/// # Safety
/// Called by CPython's import machinery with the GIL held.
#[no_mangle]
pub unsafe extern "C" fn PyInit__C() -> *mut ffi::PyObject {
    // SAFETY: called once by the import machinery, under the GIL.
    crate::handle_errors!({ unsafe { init() }.map(ObjectPtr::release) })
}
