//! src/bindings/gil.rs: running a large core call without the GIL (PyTorch: the
//! `pybind11::gil_scoped_release` its generated bindings hold around every ATen call; numpy:
//! `NPY_BEGIN_THREADS_THRESHOLDED`), so other Python threads run meanwhile — two threads doing
//! 512×512 matmuls run in parallel.
//!
//! Note [Core calls without the GIL]
//! Only the pure-Rust core call runs unlocked: arguments are converted before, and the result is
//! wrapped (or the error raised) after `Unlocked` has re-acquired the GIL. While it is released:
//!
//! - Tensor arguments are our own handles (`TensorArg::own`), never references into a Python
//!   object's `cdata`: another thread may replace that handle meanwhile (`out=` resizing goes
//!   through `replace_tensor`), which would free the tensor under us.
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

use crate::core::Tensor;
use pyo3_ffi as ffi;

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
/// (`Py_END_ALLOW_THREADS`) on every path, unwinding from a panic included. Not `Send`: it must
/// be dropped on the thread that made it.
pub struct Unlocked(*mut ffi::PyThreadState);

impl Unlocked {
    /// Release the GIL.
    ///
    /// # Safety
    /// This thread holds the GIL, and until the guard is dropped nothing on this thread touches a
    /// Python object or calls CPython (see Note [Core calls without the GIL]).
    #[inline]
    pub unsafe fn new() -> Self {
        // SAFETY: contract: the GIL is held by this thread, so it has a thread state to save.
        Unlocked(unsafe { ffi::PyEval_SaveThread() })
    }
}

impl Drop for Unlocked {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: `self.0` is the thread state `PyEval_SaveThread` returned on this thread (the
        // guard is not `Send`); restoring it re-acquires the GIL.
        unsafe { ffi::PyEval_RestoreThread(self.0) }
    }
}
