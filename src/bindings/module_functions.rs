//! src/bindings/module_functions.rs: the hand-written module functions of `_C` that belong to no
//! object (PyTorch: `torch/csrc/Module.cpp`): `set_num_threads` and `get_num_threads`, and the
//! counters the test harness reads (`_cpu_level`, `_live_tensors`, `_parked_tensors`, `_tensor_free_list_len`).
//! Declared in src/native_functions.yaml (`manual_binding`), which gives their docstrings,
//! `__text_signature__`s and stubs and puts them in the generated module table.
//!
//! Layer 3 (entry points): see src/bindings/mod.rs.

use super::convert::{py_int, py_str};
use super::object_ptr::Borrowed;
use pyo3_ffi as ffi;

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

/// `_C._cpu_level()`: the dispatch level of the vectorised kernels (Note [CPU dispatch levels]).
pub(crate) unsafe extern "C" fn cpu_level(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({ Ok(py_str(crate::core::vecmath::cpu_level())?.release()) })
}

pub(crate) unsafe extern "C" fn live_tensors(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({ Ok(py_int(crate::core::tensor::live_tensors() as i64)?.release()) })
}

/// `_C._live_external()`: external-memory owners not yet released (numpy arrays, buffer exports,
/// DLPack producers a tensor holds), for leak checks of the interop paths.
pub(crate) unsafe extern "C" fn live_external(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({ Ok(py_int(super::external::live_owners() as i64)?.release()) })
}

/// `_C._live_dlpack()`: DLPack tensors we exported whose deleter has not run yet.
pub(crate) unsafe extern "C" fn live_dlpack(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({ Ok(py_int(super::dlpack::live_exports() as i64)?.release()) })
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
                super::describe::type_name(a)
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
