//! src/bindings/gil.rs: running a large core call without the GIL (PyTorch: the
//! `pybind11::gil_scoped_release` its generated bindings hold around every ATen call; numpy:
//! `NPY_BEGIN_THREADS_THRESHOLDED`), so other Python threads run meanwhile — two threads doing
//! 512×512 matmuls run in parallel.
//!
//! Layer 0 (references, errors, GIL, state): see src/bindings/mod.rs.
//!
//! Note [Core calls without the GIL]
//! Only the pure-Rust core call runs unlocked: arguments are converted before, and the result is
//! wrapped (or the error raised) after `Unlocked` has re-acquired the GIL. While it is released:
//!
//! - Tensor arguments are our own handles (`TensorArg::own`) in generated code, or borrowed
//!   handles (`TensorRef`): another thread may replace an object's handle meanwhile (`out=`
//!   resizing goes through `replace_tensor`), but the replaced handle is parked until no `_C`
//!   call is running, ours included (Note [Borrowed tensors and replaced handles] in
//!   call_scope.rs), so neither kind can be freed under us. (`write_out_plan` runs an op's plan
//!   into `out=` on borrowed handles this way.)
//! - Nothing the core drops can be the last handle of a tensor that owns its Python object
//!   (Note [PyObject preservation]): the inputs are held by our handles until after the GIL is
//!   back, and tensors the core makes have no Python object. Even if one were, the core's
//!   release hook (`release_pyobj`) takes the GIL itself with `PyGILState_Ensure`, which works on
//!   a thread that released it with `PyEval_SaveThread` (it re-attaches this thread's state), so
//!   it cannot deadlock; this is also why releasing makes a kernel's worker threads safe should
//!   one ever drop such a tensor.
//! - A panic in the core unwinds through `Unlocked::drop`, which re-acquires the GIL before
//!   `handle_errors!` catches the panic and raises `RuntimeError`. Our panic hook touches no
//!   Python state.
//! - Ctrl-C: see Note [Signals during core calls] below.
//! - Python-object arguments (`Generator`, `PyObject*`) keep the GIL: those ops never release.
//! - Two threads writing the same tensor at once (in-place ops, `out=`) race on its data, as in
//!   torch; the bindings' own state (handles, the PyObject slot, refcounts) never races.
//!
//! Thresholds: the release/re-acquire pair costs a few hundred instructions (a mutex and a
//! condition variable each way, ~0.1–0.2 µs) when no other thread wants the GIL, and a thread
//! getting it back may wait up to the switch interval (5 ms) while another thread runs Python
//! code, so small ops keep it. Measured on the benchmark machine (one kernel thread):
//! `ELEMENTS_THRESHOLD`, 64K elements over all tensor arguments, is ~4 µs for `add` of two 32K
//! tensors and ~9 µs for `sum` of 64K; `MULTIPLY_ADDS_THRESHOLD`, 1M multiply-adds, is ~30 µs for
//! a 64×128 @ 128×128 matmul. The round trip then stays within a few percent of the op. numpy
//! releases above 500 elements; torch always.
//!
//! Note [Signals during core calls]
//! CPython runs Python signal handlers (the one raising KeyboardInterrupt for SIGINT) on the main
//! thread, between bytecodes, when it holds the GIL; a C call that runs for seconds delays
//! Ctrl-C for seconds. So `Unlocked` arms the core's interrupt checks for its call
//! (Note [Interrupting kernels]) with `check_signals`: on the main thread, at most every
//! `CHECK_INTERVAL`, it takes the GIL back for a moment, runs `PyErr_CheckSignals` (CPython's
//! advice for long-running C code) and releases it again. A handler that raises — SIGINT's —
//! leaves its exception set and makes the checkpoint unwind with `Interrupted`: the core call
//! stops (its workers too), `Unlocked::drop` re-acquires the GIL, and the trampoline returns the
//! error value with the handler's exception. Its handles were our own (see above), so nothing a
//! handler does to the arguments meanwhile can free them.
//!
//! Costs: the arming itself is a thread-local write and an atomic increment per released call.
//! A check takes the GIL: free when no other thread wants it, up to the switch interval (5 ms)
//! when another thread is running Python code — at most a tenth of the call at 50 ms. Other
//! threads are not checked (CPython handles signals only on the main thread). numpy's loops do
//! not check (its `NPY_SIGINT_ON` macros are empty today); torch's kernels neither. Ops that keep
//! the GIL are short (`ELEMENTS_THRESHOLD`) and are not interrupted — except a broadcast of small
//! inputs to a large output, which keeps the GIL because the inputs are small.

use crate::core::interrupt::{self, ArmGuard};
use crate::core::Tensor;
use pyo3_ffi as ffi;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// The longest a released core call on the main thread runs between two signal checks
/// (Note [Signals during core calls]).
pub const CHECK_INTERVAL: Duration = Duration::from_millis(50);

/// Elementwise, reduction and copy ops release the GIL from this many elements (all tensor
/// arguments together). See Note [Core calls without the GIL].
pub const ELEMENTS_THRESHOLD: usize = 1 << 16;

/// Matrix products release the GIL from this many multiply-adds.
pub const MULTIPLY_ADDS_THRESHOLD: usize = 1 << 20;

/// The elements of the given tensors (absent optional ones count 0).
#[inline]
pub fn elements(ts: &[Option<&Tensor>]) -> usize {
    ts.iter().map(|t| t.map_or(0, Tensor::numel)).sum()
}

/// Whether an op over `elements` elements should run without the GIL.
#[inline]
pub fn elementwise_worth(elements: usize) -> bool {
    elements >= ELEMENTS_THRESHOLD
}

/// Whether `matmul(a, b)` should run without the GIL: its multiply-adds, `numel(a) × n` with `n`
/// the columns of `b` (exact for 2-D and for batched `a` with a 2-D `b`; for a batched `b`
/// broadcast over more batches, a lower bound).
#[inline]
pub fn matmul_worth(a: &Tensor, b: &Tensor) -> bool {
    let n = if b.dim() >= 2 {
        b.sizes()[b.dim() - 1]
    } else {
        1
    };
    a.numel().saturating_mul(n) >= MULTIPLY_ADDS_THRESHOLD
}

/// The GIL released (`Py_BEGIN_ALLOW_THREADS`) from `new` until drop, which re-acquires it
/// (`Py_END_ALLOW_THREADS`) on every path, unwinding from a panic or an interrupt included; in
/// between, the core call can be interrupted by a signal (Note [Signals during core calls]).
/// Not `Send`: it must be dropped on the thread that made it.
pub struct Unlocked {
    tstate: *mut ffi::PyThreadState,
    /// Dropped after `drop` has re-acquired the GIL.
    _armed: ArmGuard,
}

impl Unlocked {
    /// Release the GIL.
    ///
    /// # Safety
    /// This thread holds the GIL, and until the guard is dropped nothing on this thread touches a
    /// Python object or calls CPython (see Note [Core calls without the GIL]) — except the
    /// signal check, which takes the GIL back first.
    #[inline]
    pub unsafe fn new() -> Self {
        assert_gil_held();
        // SAFETY: contract: the GIL is held by this thread, so it has a thread state to save.
        let tstate = unsafe { ffi::PyEval_SaveThread() };
        let armed = interrupt::arm(check_signals, tstate as usize, CHECK_INTERVAL);
        pause_point();
        Unlocked {
            tstate,
            _armed: armed,
        }
    }
}

impl Drop for Unlocked {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: `self.tstate` is the thread state `PyEval_SaveThread` returned on this thread
        // (the guard is not `Send`); restoring it re-acquires the GIL.
        unsafe { ffi::PyEval_RestoreThread(self.tstate) }
    }
}

/// The core's interrupt check while an `Unlocked` call runs (Note [Signals during core calls]):
/// on the main thread, take the GIL back, run the Python signal handlers, release it again;
/// true when a handler raised (its exception stays set for the trampoline).
fn check_signals(tstate: usize) -> bool {
    if !on_main_thread() {
        return false;
    }
    let tstate = tstate as *mut ffi::PyThreadState;
    // SAFETY: `tstate` is this thread's state, saved by the `Unlocked` that armed the check on
    // this same thread (`arm` is per thread), and the GIL is released: restoring takes it back.
    // Only `PyErr_CheckSignals` runs with it — Python code may run there (a signal handler); it
    // cannot free our tensors (the core call holds its own handles). Saving releases it again;
    // the returned state is `tstate` itself, which `Unlocked::drop` restores later.
    unsafe {
        ffi::PyEval_RestoreThread(tstate);
        let raised = ffi::PyErr_CheckSignals() != 0;
        let again = ffi::PyEval_SaveThread();
        debug_assert_eq!(again, tstate);
        raised
    }
}

/// Whether this is the process's main thread, where CPython runs signal handlers (on Linux its
/// thread id is the process id; elsewhere assume so and let CPython decide).
fn on_main_thread() -> bool {
    #[cfg(target_os = "linux")]
    // SAFETY: two syscalls without arguments.
    return unsafe { libc::gettid() == libc::getpid() };
    #[cfg(not(target_os = "linux"))]
    return true;
}

/// In builds for a `Py_DEBUG` interpreter, abort with a message unless this thread holds the GIL
/// (`PyGILState_Check`); nothing in other builds. For the places that must run with the GIL.
#[inline(always)]
pub fn assert_gil_held() {
    #[cfg(py_debug)]
    // SAFETY: `PyGILState_Check` may be called from any thread, with or without the GIL.
    if unsafe { ffi::PyGILState_Check() } != 1 {
        // Not a panic: this can run where unwinding is not allowed (`Drop`).
        eprintln!("tensorbind: a Python object was touched without the GIL");
        std::process::abort();
    }
}

// ----- the pause point of the test hook `_C._testing_pause_next_unlocked()` (testing.rs) -------

/// Set by `_C._testing_pause_next_unlocked()`: the next core call that releases the GIL
/// (`gil::Unlocked::new`) stops right after releasing it, until `_C._testing_resume()`.
pub(crate) static PAUSE_REQUESTED: AtomicBool = AtomicBool::new(false);
/// True while a call is stopped at the pause point.
pub(crate) static PAUSED: AtomicBool = AtomicBool::new(false);
/// Set by `_C._testing_resume()`; guarded by a mutex for the condition variable.
pub(crate) static RESUME: Mutex<bool> = Mutex::new(false);
pub(crate) static RESUMED: Condvar = Condvar::new();

/// Called by `Unlocked::new` after the GIL is released: stops there when a test asked for
/// it (one relaxed load otherwise). A test uses it to act (with the GIL) while another thread is
/// provably inside a released core call with its handles taken.
#[inline(always)]
pub(crate) fn pause_point() {
    if PAUSE_REQUESTED.load(Ordering::Relaxed) {
        pause_here();
    }
}

#[cold]
#[inline(never)]
fn pause_here() {
    if !PAUSE_REQUESTED.swap(false, Ordering::AcqRel) {
        return;
    }
    let mut resumed = RESUME.lock().unwrap_or_else(|e| e.into_inner());
    *resumed = false;
    PAUSED.store(true, Ordering::Release);
    // Bounded: a test that forgets to resume does not hang the process forever.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !*resumed {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            break;
        }
        resumed = RESUMED
            .wait_timeout(resumed, left)
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
    PAUSED.store(false, Ordering::Release);
}
