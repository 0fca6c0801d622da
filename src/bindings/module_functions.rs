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

/// `_C.tensordot(a, b, dims=2)` (`METH_FASTCALL`, parsed by the generated parser): `dims` is an
/// int (the last `dims` dims of `a` with the first of `b`), or a pair of int sequences (or of
/// ints) naming the dims to contract pairwise, as torch's Python-level `torch.tensordot`
/// accepts; the composite in src/core/autograd/composite.rs records the history.
pub(crate) fn tensordot(
    r: &super::arg_parser::ParsedArgs<'_>,
) -> super::errors::PyResult<*mut ffi::PyObject> {
    use super::convert::{is_int, to_i64};
    use super::errors::type_error;
    let a = r.tensor(0)?;
    let b = r.tensor(1)?;
    let ints = |o: Borrowed<'_>| -> super::errors::PyResult<Vec<i64>> {
        if is_int(o) {
            return Ok(vec![to_i64(o)?]);
        }
        // SAFETY: type checks of a live object.
        let seq =
            unsafe { ffi::PyList_Check(o.as_ptr()) != 0 || ffi::PyTuple_Check(o.as_ptr()) != 0 };
        if !seq {
            return Err(type_error(format!(
                "tensordot(): dims must be an int or a pair of lists of ints, got an element of type {}",
                super::describe::type_name(o)
            )));
        }
        // SAFETY: `o` is a live list or tuple (checked); PySequence_Fast_ITEMS-style access by
        // index through the abstract API, each item a new reference we own.
        let n = unsafe { ffi::PySequence_Size(o.as_ptr()) };
        if n < 0 {
            return Err(super::errors::BindError::Python);
        }
        let mut v = Vec::with_capacity(n as usize);
        for i in 0..n {
            // SAFETY: `o` is a live sequence and `i` in range; the item is a new reference.
            let item = unsafe {
                super::object_ptr::ObjectPtr::steal_or_err(ffi::PySequence_GetItem(o.as_ptr(), i))?
            };
            if !is_int(item.as_borrowed()) {
                return Err(type_error(format!(
                    "tensordot(): dims must be an int or a pair of lists of ints, got an element of type {}",
                    super::describe::type_name(item.as_borrowed())
                )));
            }
            v.push(to_i64(item.as_borrowed())?);
        }
        Ok(v)
    };
    let result = match r.object(2) {
        None => crate::core::autograd::variable_type::tensordot(&a, &b, 2)?,
        Some(d) if is_int(d) => {
            crate::core::autograd::variable_type::tensordot(&a, &b, to_i64(d)?)?
        }
        Some(d) => {
            let pair = ints_pair(d)?;
            let (da, db) = (ints(pair.0.as_borrowed())?, ints(pair.1.as_borrowed())?);
            crate::core::autograd::variable_type::tensordot_dims(&a, &b, &da, &db)?
        }
    };
    Ok(super::tensor_object::wrap(result)?.release())
}

/// The two items of a length-2 list or tuple (new references); TypeError otherwise.
fn ints_pair(
    o: Borrowed<'_>,
) -> super::errors::PyResult<(super::object_ptr::ObjectPtr, super::object_ptr::ObjectPtr)> {
    // SAFETY: type checks and size of a live object.
    let ok = unsafe {
        (ffi::PyList_Check(o.as_ptr()) != 0 || ffi::PyTuple_Check(o.as_ptr()) != 0)
            && ffi::PySequence_Size(o.as_ptr()) == 2
    };
    if !ok {
        return Err(super::errors::runtime_error(format!(
            "tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] containing two lists, but got dims of type {}",
            super::describe::type_name(o)
        )));
    }
    // SAFETY: `o` is a live list or tuple of length 2; each item is a new reference we own.
    unsafe {
        Ok((
            super::object_ptr::ObjectPtr::steal_or_err(ffi::PySequence_GetItem(o.as_ptr(), 0))?,
            super::object_ptr::ObjectPtr::steal_or_err(ffi::PySequence_GetItem(o.as_ptr(), 1))?,
        ))
    }
}
