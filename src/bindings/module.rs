//! src/bindings/module.rs: `PyInit__C`, the module's entry point (PyTorch: `Module.cpp`). Readies
//! the types, builds the module from the generated method table (which also lists the
//! hand-written functions the schema declares with `manual_binding`, such as the ones below),
//! and adds the dtype singletons and the debug hooks the test harness reads.

use super::convert::{add_object, py_int};
use super::errors::PyResult;
use super::object_ptr::{py_bool, Borrowed, ObjectPtr};
use pyo3_ffi as ffi;
use std::ptr::addr_of_mut;
use std::sync::atomic::{AtomicPtr, Ordering};

/// `_C._rebuild_tensor`, looked up once at init; the module's function object, owned here for
/// the life of the process (pickles name it, so it must be the module attribute itself).
static REBUILD_TENSOR: AtomicPtr<ffi::PyObject> = AtomicPtr::new(std::ptr::null_mut());

/// The module object, recorded at init and owned by this static for the life of the process
/// (operator slots look up `_C` functions on it for the override protocol). This reference, like
/// the one `REBUILD_TENSOR`'s function holds on its module, keeps the module alive until exit.
static MODULE: AtomicPtr<ffi::PyObject> = AtomicPtr::new(std::ptr::null_mut());

/// The `_C` extension module (borrowed; alive for the life of the process).
pub fn module_object() -> *mut ffi::PyObject {
    MODULE.load(Ordering::Acquire)
}

/// A new reference to `_C._rebuild_tensor`.
pub fn rebuild_tensor_fn() -> PyResult<ObjectPtr> {
    let p = REBUILD_TENSOR.load(Ordering::Acquire);
    if p.is_null() {
        return Err(super::errors::runtime_error("_C is not initialised"));
    }
    // SAFETY: set once at init to a reference this static owns forever.
    Ok(unsafe { ObjectPtr::borrow(p) })
}

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

pub(crate) unsafe extern "C" fn tensor_free_list_len(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({ Ok(py_int(super::tensor_object::free_list_len() as i64)?.release()) })
}

pub(crate) unsafe extern "C" fn parked_tensors(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({ Ok(py_int(super::call_scope::parked() as i64)?.release()) })
}

pub(crate) unsafe extern "C" fn live_tensors(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({ Ok(py_int(crate::core::tensor::live_tensors() as i64)?.release()) })
}

/// `_C.set_num_threads(n)` (torch.set_num_threads): the number of threads the kernels use from
/// now on (`core::parallel`; results never depend on it). `n` must be an int (TypeError
/// otherwise; torch raises RuntimeError there) and positive (RuntimeError, as torch).
pub(crate) unsafe extern "C" fn set_num_threads(
    _m: *mut ffi::PyObject,
    arg: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: METH_O module function: `arg` is a live borrowed object.
        let a = unsafe { Borrowed::from_ptr(arg) };
        // SAFETY: type checks on a live object.
        let is_int = unsafe { ffi::PyLong_Check(arg) != 0 && ffi::PyBool_Check(arg) == 0 };
        if !is_int {
            return Err(super::errors::type_error(format!(
                "set_num_threads expects an int, but got {}",
                super::convert::type_name(a)
            )));
        }
        let mut overflow = 0;
        // SAFETY: `arg` is an int (checked); overflow is reported through `overflow`.
        let n = unsafe { ffi::PyLong_AsLongLongAndOverflow(arg, &mut overflow) };
        if overflow > 0 || n > i64::from(i32::MAX) {
            return Err(super::errors::runtime_error(format!(
                "set_num_threads expects an int of at most {}",
                i32::MAX
            )));
        }
        if overflow < 0 || n <= 0 {
            return Err(super::errors::runtime_error(
                "set_num_threads expects a positive integer",
            ));
        }
        crate::core::parallel::set_num_threads(n as usize);
        Ok(super::object_ptr::none().release())
    })
}

/// `_C.get_num_threads()` (torch.get_num_threads): the number of threads the kernels use.
pub(crate) unsafe extern "C" fn get_num_threads(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        Ok(py_int(crate::core::parallel::get_num_threads() as i64)?.release())
    })
}

unsafe fn init() -> PyResult<ObjectPtr> {
    super::errors::install_quiet_panic_hook();
    super::arg_parser::intern_keywords(super::generated::keywords())?;
    let mut methods: Vec<ffi::PyMethodDef> = Vec::new();
    methods.extend_from_slice(super::generated::functions());
    methods.extend(super::testing::functions());
    methods.push(ffi::PyMethodDef::zeroed());
    // The table lives for the life of the process (CPython keeps pointers into it).
    let methods = Box::leak(methods.into_boxed_slice());
    // SAFETY: module initialisation runs once, under the GIL, before anything is shared.
    unsafe {
        let def = addr_of_mut!(MODULE_DEF);
        (*def).m_methods = methods.as_mut_ptr();
        let m = ObjectPtr::steal_or_err(ffi::PyModule_Create(def))?;
        super::override_protocol::init()?;
        super::dtype_object::init(m.as_ptr())?;
        super::tensor_object::init(m.as_ptr())?;
        super::structseq::init(m.as_ptr())?;
        super::generator_object::init(m.as_ptr())?;
        add_object(m.as_ptr(), "_py_debug", py_bool(cfg!(py_debug)))?;
        let rebuild = ObjectPtr::steal_or_err(ffi::PyObject_GetAttrString(
            m.as_ptr(),
            c"_rebuild_tensor".as_ptr(),
        ))?;
        // The static keeps this reference for the life of the process.
        REBUILD_TENSOR.store(rebuild.release(), Ordering::Release);
        // Likewise one reference to the module itself.
        MODULE.store(m.clone().release(), Ordering::Release);
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
