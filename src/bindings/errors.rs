//! src/bindings/errors.rs: one mechanism for errors at the CPython boundary (PyTorch:
//! `HANDLE_TH_ERRORS` / `python_error` / `PyWarningHandler`; PyO3: its trampoline). Every
//! `extern "C"` entry point runs its body through `trampoline` (via `handle_errors!`), so no Rust
//! panic unwinds into CPython, every core `Error` becomes the Python exception ARCHITECTURE.md's
//! table names, an interrupted core call returns the exception its signal handler raised, and
//! the core's warnings become Python warnings (Note [Warnings from the core]).
//!
//! Layer 0 (references, errors, GIL, state): see src/bindings/mod.rs.
//!
//! Note [The panic hook]
//! A panic that our trampoline (or a parallel region, which hands it to one: Note [Panics in
//! parallel regions]) will catch must print nothing — the trampoline raises RuntimeError with
//! the message and the location the hook records. Any other panic goes to the hook that was
//! installed before ours, which prints it as usual: a panic on a thread we spawned, in an entry
//! point that is not a trampoline (it aborts), or in code that links this crate as a Rust
//! library. (Each Rust extension module links its own copy of std and has its own hook, so other
//! extensions in the interpreter are never affected either way.)
//!
//! Which case a panic is decides the hook, not the trampoline, so a call pays nothing for it: the
//! hook walks the stack outward from the panic (`_Unwind_Backtrace`) past the frames of this
//! library and looks at the first frame outside it. When that frame belongs to CPython, our code
//! was entered from Python, through an entry point — a trampoline, which catches the panic. A
//! thread we spawned starts in libc instead; a Rust program that links the crate, in its own
//! code. A per-call "inside the trampoline" flag would say the same, but a thread-local costs a
//! `__tls_get_addr` call in a shared library, about 6% of `t.dtype`.
//! A panic that reaches an entry point without a trampoline aborts with Rust's "panic in a
//! function that cannot unwind"; the hook then prints the panic it kept quiet before chaining.

use crate::core::error::{Error, ErrorKind};
use crate::core::{interrupt, parallel, warnings};
use pyo3_ffi as ffi;
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::ffi::{c_int, c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::null_mut;

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
/// An `AttributeError` with `message` (raised now: the core has no such kind).
pub fn attribute_error(message: impl Into<String>) -> BindError {
    // SAFETY: `PyExc_AttributeError` is initialised by the interpreter; the GIL is held by every
    // caller (binding code).
    set_error(unsafe { ffi::PyExc_AttributeError }, &message.into());
    BindError::Python
}

/// A `RuntimeError` with `message`.
pub fn runtime_error(message: impl Into<String>) -> BindError {
    BindError::Core(Error::runtime(message))
}

/// `_C._LinAlgError` (torch's `torch.linalg.LinAlgError`, a RuntimeError subclass), created by
/// `init_linalg_error` at module init; null before (then `ErrorKind::LinAlg` raises RuntimeError).
/// The static owns one reference for the life of the process.
static LINALG_ERROR: std::sync::atomic::AtomicPtr<ffi::PyObject> =
    std::sync::atomic::AtomicPtr::new(null_mut());

/// Creates `_C._LinAlgError` and returns a new reference to it (the module adds it as an
/// attribute); the static keeps another.
///
/// # Safety
/// Called once, under the GIL, during module initialisation.
pub(crate) unsafe fn init_linalg_error() -> *mut ffi::PyObject {
    // SAFETY: the GIL is held (module init); the name and doc are NUL-terminated literals;
    // `PyExc_RuntimeError` is initialised by the interpreter. The result is a new reference
    // (null with an exception set on failure).
    let t = unsafe {
        ffi::PyErr_NewExceptionWithDoc(
            c"_C._LinAlgError".as_ptr(),
            c"Raised by _C.linalg when a matrix is singular, not positive-definite, or an algorithm does not converge (torch.linalg.LinAlgError).".as_ptr(),
            ffi::PyExc_RuntimeError,
            null_mut(),
        )
    };
    if !t.is_null() {
        // SAFETY: `t` is a live new reference; the static takes one more, never released.
        unsafe { ffi::Py_INCREF(t) };
        LINALG_ERROR.store(t, std::sync::atomic::Ordering::Release);
    }
    t
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
            ErrorKind::LinAlg => {
                let t = LINALG_ERROR.load(std::sync::atomic::Ordering::Acquire);
                if t.is_null() {
                    ffi::PyExc_RuntimeError
                } else {
                    t
                }
            }
            // Raised from the stash when there is one (`restore`); else a RuntimeError.
            ErrorKind::External => ffi::PyExc_RuntimeError,
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
    super::gil::assert_gil_held();
    let msg = c_string(message);
    // SAFETY: `exc` is an exception type (borrowed); `msg` outlives the call, which copies it.
    unsafe { ffi::PyErr_SetString(exc, msg.as_ptr()) }
}

/// Raise `e` in Python (sets the error indicator).
pub fn restore(e: BindError) {
    match e {
        // Note [Errors from callbacks]: the Python exception itself.
        BindError::Core(err) if err.kind == ErrorKind::External && restore_stashed_error() => {}
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
    /// Give up a successful result that will not be returned (a warning turned into an error
    /// after it was made): releases the new reference an object-returning slot holds.
    ///
    /// # Safety
    /// `self` is what an entry point's body returned on success (for an object, a new reference
    /// or NULL), given up here instead of being returned; the GIL is held.
    unsafe fn discard(self);
}
impl ErrorReturn for *mut ffi::PyObject {
    fn error_value() -> Self {
        std::ptr::null_mut()
    }
    unsafe fn discard(self) {
        // SAFETY: the contract: a new reference (or NULL, which `Py_XDECREF` ignores) that we
        // own, with the GIL held.
        unsafe { ffi::Py_XDECREF(self) }
    }
}
impl ErrorReturn for c_int {
    fn error_value() -> Self {
        -1
    }
    unsafe fn discard(self) {}
}
impl ErrorReturn for ffi::Py_ssize_t {
    fn error_value() -> Self {
        -1
    }
    unsafe fn discard(self) {}
}

thread_local! {
    /// The last panic on this thread that the hook kept quiet, as "location: message", printed
    /// should it turn out to be fatal (see Note [The panic hook]).
    static QUIET_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Install our panic hook in front of the current one (Note [The panic hook]): quiet, recording
/// the location, for panics a trampoline will catch; the previous hook for the others. Called
/// from `PyInit__C`; installs once per process.
pub fn install_quiet_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let message = panic_message(info.payload());
            let location = info
                .location()
                .map(|l| format!("{}:{}", l.file(), l.line()));
            if is_abort_message(&message) {
                // The panic is fatal: say what the quiet one before it was.
                if let Some(q) = QUIET_PANIC
                    .try_with(|q| q.borrow_mut().take())
                    .ok()
                    .flatten()
                {
                    eprintln!("tensorbind: Rust panic at {q}");
                }
                previous(info);
            } else if parallel::in_worker_job() || entered_from_cpython() {
                let _ = QUIET_PANIC.try_with(|q| {
                    *q.borrow_mut() =
                        Some(format!("{}: {message}", location.as_deref().unwrap_or("?")))
                });
                parallel::set_panic_location(location);
            } else {
                previous(info);
            }
        }));
    });
}

/// The messages of Rust's own aborting panics: a panic leaving a function that cannot unwind
/// (an `extern "C"` entry point without a trampoline), or one during unwinding.
fn is_abort_message(message: &str) -> bool {
    message == "panic in a function that cannot unwind"
        || message == "panic in a destructor during cleanup"
}

/// True when, walking outward from here, the first stack frame outside this library belongs to
/// CPython (see Note [The panic hook]). Only called from the panic hook.
fn entered_from_cpython() -> bool {
    /// The load address of the object (executable or shared library) holding `addr`, if any.
    fn object_base(addr: usize) -> Option<usize> {
        // SAFETY: `dladdr` only reads the loader's tables; `info` is a plain struct it fills.
        unsafe {
            let mut info: libc::Dl_info = std::mem::zeroed();
            (libc::dladdr(addr as *const c_void, &mut info) != 0).then_some(info.dli_fbase as usize)
        }
    }
    struct Walk {
        ours: Option<usize>,
        python: Option<usize>,
        /// Whether a frame of this library was seen yet (the walk starts in the unwinder).
        seen_ours: bool,
        /// The first frame outside this library after one of it: Some(true) when CPython's.
        verdict: Option<bool>,
        frames: usize,
    }
    extern "C" fn step(ctx: *mut unwind::Context, arg: *mut c_void) -> c_int {
        // SAFETY: `arg` is the `Walk` passed to `_Unwind_Backtrace` below, alive for the walk.
        let walk = unsafe { &mut *(arg as *mut Walk) };
        // SAFETY: `ctx` is the unwinder's context for the current frame.
        let ip = unsafe { unwind::_Unwind_GetIP(ctx) };
        walk.frames += 1;
        let base = if ip == 0 { None } else { object_base(ip) };
        if base.is_some() && base == walk.ours {
            walk.seen_ours = true;
        } else if walk.seen_ours {
            walk.verdict = Some(base.is_some() && base == walk.python);
            return unwind::URC_NORMAL_STOP;
        }
        if walk.frames > 10_000 {
            return unwind::URC_NORMAL_STOP;
        }
        unwind::URC_NO_REASON
    }
    let mut walk = Walk {
        ours: object_base(entered_from_cpython as *const () as usize),
        python: object_base(ffi::PyErr_CheckSignals as *const () as usize),
        seen_ours: false,
        verdict: None,
        frames: 0,
    };
    if walk.ours.is_none() || walk.python.is_none() || walk.ours == walk.python {
        return false;
    }
    // SAFETY: `step` matches the callback signature; `walk` outlives the call.
    unsafe { unwind::_Unwind_Backtrace(step, &mut walk as *mut Walk as *mut c_void) };
    walk.verdict == Some(true)
}

/// The unwinder's stack-walking API (libgcc's `unwind.h`), which Rust's own unwinding links.
mod unwind {
    use std::ffi::{c_int, c_void};

    /// `struct _Unwind_Context`, opaque.
    #[repr(C)]
    pub struct Context {
        _private: [u8; 0],
    }
    /// `_URC_NO_REASON`: go on to the next frame.
    pub const URC_NO_REASON: c_int = 0;
    /// `_URC_NORMAL_STOP`: stop the walk.
    pub const URC_NORMAL_STOP: c_int = 4;

    extern "C" {
        /// `_Unwind_Reason_Code _Unwind_Backtrace(_Unwind_Trace_Fn, void *)`.
        pub fn _Unwind_Backtrace(
            trace: extern "C" fn(*mut Context, *mut c_void) -> c_int,
            arg: *mut c_void,
        ) -> c_int;
        /// `_Unwind_Ptr _Unwind_GetIP(struct _Unwind_Context *)`.
        pub fn _Unwind_GetIP(ctx: *mut Context) -> usize;
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_string()
    }
}

/// Run the body of an entry point: `Ok(v)` → `v`; `Err(e)` → raise `e`, return the error
/// value; a panic → `RuntimeError` naming the panic and its location, return the error value;
/// an interrupted core call (Note [Interrupting kernels]) → the error value, its exception being
/// set already. Then the core's warnings recorded during the call are raised as Python warnings
/// (`raise_warnings`). The per-call cost is one load before the body and one load and compare
/// after it (`warnings::mark` / `recorded_since`).
#[inline(always)]
pub fn trampoline<R: ErrorReturn>(body: impl FnOnce() -> PyResult<R>) -> R {
    let mark = warnings::mark();
    // The call scope ends inside `catch_unwind`, so handles parked during the call are released
    // before an error or a warning is raised (src/bindings/call_scope.rs).
    let scoped = || {
        let _scope = super::call_scope::enter();
        body()
    };
    let r = match catch_unwind(AssertUnwindSafe(scoped)) {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => {
            restore(e);
            R::error_value()
        }
        Err(payload) => {
            raise_panic(payload);
            R::error_value()
        }
    };
    if warnings::recorded_since(mark) {
        return raise_warnings(mark, r);
    }
    r
}

/// Raise what a caught unwind means: an interrupt's exception is already set (by the signal
/// handler `PyErr_CheckSignals` ran, src/bindings/gil.rs); a panic becomes `RuntimeError`.
#[cold]
#[inline(never)]
fn raise_panic(payload: Box<dyn Any + Send>) {
    if payload.is::<interrupt::Interrupted>() {
        restore(BindError::Python);
        return;
    }
    let loc = parallel::take_panic_location();
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
}

/// Raise the warnings this thread's call recorded since `mark` (Note [Warnings from the core]),
/// in order, with `PyErr_WarnEx` (so filters, `catch_warnings` and `-W error` apply), as torch's
/// `PyWarningHandler` does. After a successful call `r` is returned unless a warning raised (an
/// "error" filter): then `r` is discarded and the error value returned. After a failed call the
/// pending exception is kept; a warning that raises meanwhile is reported as unraisable.
#[cold]
#[inline(never)]
fn raise_warnings<R: ErrorReturn>(mark: u64, r: R) -> R {
    let pending = warnings::take_since(mark);
    if pending.is_empty() {
        return r;
    }
    super::gil::assert_gil_held();
    // SAFETY: the trampoline returns to CPython with the GIL held; reading the indicator.
    let failed = unsafe { !ffi::PyErr_Occurred().is_null() };
    let (mut ty, mut value, mut tb) = (
        std::ptr::null_mut(),
        std::ptr::null_mut(),
        std::ptr::null_mut(),
    );
    if failed {
        // SAFETY: the GIL is held; we now own the three references (or NULLs).
        unsafe { ffi::PyErr_Fetch(&mut ty, &mut value, &mut tb) };
    }
    for w in pending {
        let category = match w.kind {
            // SAFETY: the `PyExc_*` globals are live exception types (borrowed).
            warnings::WarningKind::User => unsafe { ffi::PyExc_UserWarning },
            // SAFETY: as above.
            warnings::WarningKind::Deprecation => unsafe { ffi::PyExc_DeprecationWarning },
        };
        let msg = c_string(&w.message);
        // SAFETY: GIL held; `category` is a warning class, `msg` outlives the call. Python code
        // can run here (filters, `showwarning`); nothing of the call is borrowed any more.
        if unsafe { ffi::PyErr_WarnEx(category, msg.as_ptr(), 1) } < 0 {
            if failed {
                // SAFETY: GIL held; an exception is set, which this reports and clears.
                unsafe { ffi::PyErr_WriteUnraisable(std::ptr::null_mut()) };
            } else {
                // SAFETY: `r` is the body's successful result, not returned; the GIL is held.
                unsafe { r.discard() };
                return R::error_value();
            }
        }
    }
    if failed {
        // SAFETY: GIL held; gives back the references taken by `PyErr_Fetch` above.
        unsafe { ffi::PyErr_Restore(ty, value, tb) };
    }
    r
}

/// Wrap an entry point's body: `handle_errors!({ ...; Ok(result) })`. See `trampoline`.
#[macro_export]
macro_rules! handle_errors {
    ($body:block) => {
        $crate::bindings::errors::trampoline(|| $body)
    };
}

// Note [Errors from callbacks]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A Python hook (or a custom Function's `backward`) that raises must surface as that very
// exception (`KeyError('boom')` stays a KeyError, with its traceback), yet the error travels back
// through the core as a core `Error`. The callback fetches the exception into this thread's
// stash and returns `ErrorKind::External`; `errors::restore` puts the stashed exception back when
// an `External` error reaches CPython. One slot per thread suffices: the engine stops at the
// first error, and a newer stash replaces (and releases) an older one that was never raised.

thread_local! {
    /// (type, value, traceback) of the last exception a callback raised, new references or NULL.
    static STASH: Cell<[*mut ffi::PyObject; 3]> = const { Cell::new([null_mut(); 3]) };
}

/// Move the current Python exception into the stash; the core error that stands for it.
pub(crate) fn stash_python_error() -> Error {
    // SAFETY: GIL held (callbacks run under it); PyErr_Fetch gives new references (or NULLs).
    unsafe {
        let (mut t, mut v, mut tb) = (null_mut(), null_mut(), null_mut());
        ffi::PyErr_Fetch(&mut t, &mut v, &mut tb);
        let old = STASH.with(|s| s.replace([t, v, tb]));
        for p in old {
            if !p.is_null() {
                ffi::Py_DECREF(p);
            }
        }
    }
    Error::external("an exception raised by a Python hook")
}

/// Raise the stashed exception (errors::restore, for an `External` error); false if none.
pub(crate) fn restore_stashed_error() -> bool {
    let [t, v, tb] = STASH.with(|s| s.replace([null_mut(); 3]));
    if t.is_null() {
        return false;
    }
    // SAFETY: GIL held by every caller of `restore`; PyErr_Restore steals the three references.
    unsafe { ffi::PyErr_Restore(t, v, tb) };
    true
}
