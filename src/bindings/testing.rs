//! src/bindings/testing.rs: test hooks — module functions the test suite uses to reach Rust-side
//! behaviour that Python code cannot trigger by itself. Named with a leading underscore and
//! documented as private.
//!
//! Layer 3 (entry points): see src/bindings/mod.rs.

use super::arg_parser::ParsedArgs;
use super::errors::PyResult;
use super::gil::{PAUSED, PAUSE_REQUESTED, RESUME, RESUMED};
use super::object_ptr::{none, py_bool};
use super::static_type::method_noargs;
use pyo3_ffi as ffi;
use std::sync::atomic::Ordering;

/// `_C._hold_in_thread(tensor, seconds)`: a Rust thread takes a handle to `tensor`, holds it for
/// `seconds`, then drops it without the GIL — so a test can drop the last Python reference first
/// and watch the Python object be preserved, then released from a thread that does not hold the
/// GIL (Note [PyObject preservation]). The body of the entry point generated from the schema
/// (`manual_binding`).
pub(crate) fn hold_in_thread(r: &ParsedArgs<'_>) -> PyResult<*mut ffi::PyObject> {
    let t = r.tensor(0)?.clone();
    let seconds = r.float(1)?.clamp(0.0, 60.0);
    let spawned: PyResult<_> = std::thread::Builder::new()
        .name("tensorbind-hold".into())
        .spawn(move || {
            std::thread::sleep(std::time::Duration::from_secs_f64(seconds));
            drop(t);
        })
        .map_err(|e| super::errors::runtime_error(format!("_hold_in_thread(): {e}")));
    drop(spawned?); // detached
    Ok(none().release())
}

// ----- pausing a released core call (the pause point is in gil.rs) ---------------------------

/// `_C._testing_pause_next_unlocked()`: see `gil::pause_point`.
unsafe extern "C" fn fn_pause_next_unlocked(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        PAUSE_REQUESTED.store(true, Ordering::Release);
        Ok(none().release())
    })
}

/// `_C._testing_paused()`: whether a released core call is stopped at the pause point.
unsafe extern "C" fn fn_paused(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({ Ok(py_bool(PAUSED.load(Ordering::Acquire)).release()) })
}

/// `_C._testing_resume()`: let the paused call go on.
unsafe extern "C" fn fn_resume(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        *RESUME.lock().unwrap_or_else(|e| e.into_inner()) = true;
        RESUMED.notify_all();
        Ok(none().release())
    })
}

// ----- panics -----------------------------------------------------------------------------------

/// `_C._testing_panic_in_worker()`: a parallel region (16 chunks on `get_num_threads()`
/// threads) whose chunks panic when they run on a pool worker; retried until one did. Raises
/// the RuntimeError the trampoline makes of the carried panic (Note [Panics in parallel
/// regions]); returns False when no chunk ever ran on a worker (one thread configured).
unsafe extern "C" fn fn_panic_in_worker(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        for _ in 0..200 {
            crate::core::parallel::parallel_for(16, 1, |_, _| {
                if std::thread::current().name() == Some("tensorbind-worker") {
                    panic!("_testing_panic_in_worker: a chunk panicked on a worker");
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            });
        }
        Ok(py_bool(false).release())
    })
}

/// `_C._testing_panic_in_thread()`: a thread of ours panics outside any trampoline; the panic
/// goes to the previous panic hook (Note [The panic hook]), which prints it. Returns once the
/// thread is gone.
unsafe extern "C" fn fn_panic_in_thread(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        let joined = std::thread::Builder::new()
            .name("tensorbind-test".into())
            .spawn(|| panic!("_testing_panic_in_thread: a panic outside the trampoline"))
            .map_err(|e| super::errors::runtime_error(format!("_testing_panic_in_thread(): {e}")))?
            .join();
        Ok(py_bool(joined.is_err()).release())
    })
}

/// `_C._testing_touch_without_gil()`: in a build for a `Py_DEBUG` interpreter, drops an object
/// reference without the GIL, which `gil::assert_gil_held` turns into an abort with a message
/// (run it in a subprocess). Elsewhere RuntimeError: the check is compiled out there.
unsafe extern "C" fn fn_touch_without_gil(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        if !cfg!(py_debug) {
            return Err(super::errors::runtime_error(
                "_testing_touch_without_gil(): only in builds for a Py_DEBUG interpreter",
            ));
        }
        let obj = none();
        // SAFETY: the GIL is held here; this deliberately releases it and then drops `obj`,
        // which the debug check aborts on before anything is touched. (The None singleton is
        // never freed either way.)
        let tstate = unsafe { ffi::PyEval_SaveThread() };
        drop(obj);
        // SAFETY: not reached in a `Py_DEBUG` build; `tstate` is this thread's saved state.
        unsafe { ffi::PyEval_RestoreThread(tstate) };
        Ok(none().release())
    })
}

/// The test hooks of this file as module functions (no sentinel).
pub fn functions() -> Vec<ffi::PyMethodDef> {
    vec![
        method_noargs(
            c"_testing_pause_next_unlocked",
            fn_pause_next_unlocked,
            c"_testing_pause_next_unlocked($module, /)\n--\n\nTest hook: the next core call that releases the GIL stops right after releasing it, until _testing_resume().",
        ),
        method_noargs(
            c"_testing_paused",
            fn_paused,
            c"_testing_paused($module, /)\n--\n\nTest hook: whether a core call is stopped at the pause point.",
        ),
        method_noargs(
            c"_testing_resume",
            fn_resume,
            c"_testing_resume($module, /)\n--\n\nTest hook: lets the paused core call go on.",
        ),
        method_noargs(
            c"_testing_panic_in_worker",
            fn_panic_in_worker,
            c"_testing_panic_in_worker($module, /)\n--\n\nTest hook: a parallel region whose chunks panic on pool workers (raises RuntimeError).",
        ),
        method_noargs(
            c"_testing_touch_without_gil",
            fn_touch_without_gil,
            c"_testing_touch_without_gil($module, /)\n--\n\nTest hook: drops an object reference without the GIL; in a build for a Py_DEBUG interpreter the GIL check aborts the process.",
        ),
        method_noargs(
            c"_testing_panic_in_thread",
            fn_panic_in_thread,
            c"_testing_panic_in_thread($module, /)\n--\n\nTest hook: a thread of the library panics outside any trampoline; returns True once it has.",
        ),
    ]
}
