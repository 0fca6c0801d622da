//! src/bindings/errors.rs: one mechanism for errors at the CPython boundary (PyTorch:
//! `HANDLE_TH_ERRORS` / `python_error`; PyO3: its trampoline). Every `extern "C"` entry point runs
//! its body through `trampoline` (via `handle_errors!`), so no Rust panic unwinds into CPython and
//! every core `Error` becomes the Python exception ARCHITECTURE.md's table names.

use crate::core::error::{Error, ErrorKind};
use pyo3_ffi as ffi;
use std::cell::RefCell;
use std::ffi::{c_int, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// An error on its way to CPython: a core `Error` still to be raised, or a Python exception that
/// is already set (PyTorch's `python_error`).
#[derive(Debug)]
pub enum BindError {
    Core(Error),
    /// The Python error indicator is already set by a CPython call.
    Python,
}

/// The binding layer's result type.
pub type PyResult<T> = Result<T, BindError>;

impl From<Error> for BindError {
    fn from(e: Error) -> Self {
        BindError::Core(e)
    }
}

/// A `TypeError` with `message` (the caller's mistake in types).
pub fn type_error(message: impl Into<String>) -> BindError {
    BindError::Core(Error::type_error(message))
}
/// A `ValueError` with `message`.
pub fn value_error(message: impl Into<String>) -> BindError {
    BindError::Core(Error::value(message))
}
/// An `IndexError` with `message`.
pub fn index_error(message: impl Into<String>) -> BindError {
    BindError::Core(Error::index(message))
}
/// A `RuntimeError` with `message`.
pub fn runtime_error(message: impl Into<String>) -> BindError {
    BindError::Core(Error::runtime(message))
}

/// The Python exception type for each core error kind: the one table of ARCHITECTURE.md.
fn exception_type(kind: ErrorKind) -> *mut ffi::PyObject {
    // SAFETY: the `PyExc_*` globals are initialised by the interpreter before any module loads;
    // we only read them (borrowed references).
    unsafe {
        match kind {
            ErrorKind::Index => ffi::PyExc_IndexError,
            ErrorKind::Type => ffi::PyExc_TypeError,
            ErrorKind::Value => ffi::PyExc_ValueError,
            ErrorKind::Runtime => ffi::PyExc_RuntimeError,
            ErrorKind::NotImplemented => ffi::PyExc_NotImplementedError,
            ErrorKind::OutOfMemory => ffi::PyExc_MemoryError,
        }
    }
}

/// `message` as a C string; interior NULs (impossible in our messages, possible in user strings
/// echoed back) are replaced so the text is never lost.
pub fn c_string(message: &str) -> CString {
    CString::new(message.replace('\0', "\\0")).expect("NULs were replaced")
}

/// Set `exc` (one of the `PyExc_*` exception types) with `message` as the current Python error.
pub(crate) fn set_error(exc: *mut ffi::PyObject, message: &str) {
    let msg = c_string(message);
    // SAFETY: `exc` is an exception type (borrowed); `msg` outlives the call, which copies it.
    unsafe { ffi::PyErr_SetString(exc, msg.as_ptr()) }
}

/// Raise `e` in Python (sets the error indicator).
pub fn restore(e: BindError) {
    match e {
        BindError::Core(err) => set_error(exception_type(err.kind), &err.message),
        BindError::Python => {
            // SAFETY: reading the error indicator needs only the GIL, which every caller holds.
            if unsafe { ffi::PyErr_Occurred() }.is_null() {
                // SAFETY: as above; `PyExc_SystemError` is a live exception type.
                set_error(
                    unsafe { ffi::PyExc_SystemError },
                    "tensorbind: an error was reported but no Python exception was set",
                );
            }
        }
    }
}

/// What an entry point returns to CPython when it has raised: NULL for object-returning slots,
/// -1 for int- and size-returning slots.
pub trait ErrorReturn {
    fn error_value() -> Self;
}
impl ErrorReturn for *mut ffi::PyObject {
    fn error_value() -> Self {
        std::ptr::null_mut()
    }
}
impl ErrorReturn for c_int {
    fn error_value() -> Self {
        -1
    }
}
impl ErrorReturn for ffi::Py_ssize_t {
    fn error_value() -> Self {
        -1
    }
}

thread_local! {
    /// Where the last panic on this thread happened, recorded by our quiet panic hook.
    static PANIC_LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Replace the default panic hook (which prints a backtrace to stderr when `RUST_BACKTRACE` is
/// set) with one that only records the location; the trampoline puts message and location into
/// the Python exception. Called once from `PyInit__C`.
pub fn install_quiet_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let loc = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()));
        PANIC_LOCATION.with(|p| *p.borrow_mut() = loc);
    }));
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_string()
    }
}

/// Run the body of an entry point: `Ok(v)` → `v`; `Err(e)` → raise `e`, return the error
/// value; a panic → `RuntimeError` naming the panic and its location, return the error value.
#[inline(always)]
pub fn trampoline<R: ErrorReturn>(body: impl FnOnce() -> PyResult<R>) -> R {
    // The call scope ends inside `catch_unwind`, so handles parked during the call are released
    // before an error is raised (src/bindings/call_scope.rs).
    let scoped = || {
        let _scope = super::call_scope::enter();
        body()
    };
    match catch_unwind(AssertUnwindSafe(scoped)) {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => {
            restore(e);
            R::error_value()
        }
        Err(payload) => {
            let loc = PANIC_LOCATION.with(|p| p.borrow_mut().take());
            let msg = match loc {
                Some(l) => format!(
                    "tensorbind internal error (Rust panic at {l}): {}",
                    panic_message(&*payload)
                ),
                None => format!(
                    "tensorbind internal error (Rust panic): {}",
                    panic_message(&*payload)
                ),
            };
            // SAFETY: `PyExc_RuntimeError` is a live exception type (borrowed).
            set_error(unsafe { ffi::PyExc_RuntimeError }, &msg);
            R::error_value()
        }
    }
}

/// Wrap an entry point's body: `handle_errors!({ ...; Ok(result) })`. See `trampoline`.
#[macro_export]
macro_rules! handle_errors {
    ($body:block) => {
        $crate::bindings::errors::trampoline(|| $body)
    };
}
