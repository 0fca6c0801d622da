//! src/bindings/testing.rs: test hooks — module functions the test suite uses to reach Rust-side
//! behaviour that Python code cannot trigger by itself. Named with a leading underscore and
//! documented as private.

use super::arg_parser::ParsedArgs;
use super::errors::PyResult;
use super::object_ptr::none;
use pyo3_ffi as ffi;

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
