//! src/core/autograd: reverse-mode automatic differentiation (PyTorch: torch/csrc/autograd) —
//! the per-tensor metadata (`meta.rs`), graph nodes and saved values (`node.rs`), the derivative
//! formulas (`formulas.rs`), in-place writes into views (`copy_slices.rs`), the recording
//! wrappers the bindings call instead of the bare core ops (`variable_type.rs`, torch's
//! VariableType layer) and the engine (`engine.rs`).

// Note [Lazy autograd metadata]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A tensor that never takes part in autograd pays one NULL word: `TensorImpl::autograd`, which
// replaced the old `grad` slot (so `TensorImpl` did not grow). The `AutogradMeta` box is
// allocated the first time a tensor is made to require grad, gets a `grad_fn`, or is given a
// `.grad`, and is then never replaced until the tensor dies (so `&AutogradMeta` borrowed from
// a handle stays valid). Its two hot bits — "requires grad as a leaf" and "has a grad_fn" —
// are atomics read without a lock, which is all an op on plain tensors reads ("does any input
// require grad?": one load per tensor argument). Everything else (`.grad`, `grad_fn`,
// `output_nr`, `retains_grad`, the weak handle to a leaf's `AccumulateGrad`) is read and
// written with the process-wide `GRAD_LOCK` held (tensor.rs), as `.grad` was before.
//
// Note [Record without the lock]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Recording an op reads the histories of its inputs and writes the history of its output.
// The output of an op is a fresh tensor without metadata: `set_grad_fn` builds its
// `AutogradMeta` with `grad_fn` and `output_nr` already filled in and publishes the box with
// one compare-and-swap on `TensorImpl::autograd` (Release on success; `autograd_meta` loads
// it with Acquire), so every later reader — who locks `GRAD_LOCK` only after loading the
// pointer — sees the initialised fields, and no other thread can have touched a box that was
// not yet published. If the CAS fails (another handle gave the tensor metadata meanwhile),
// the usual locked path runs. The inputs' histories are read with `GRAD_LOCK` held, once for
// all inputs of the node (`Tensor::gradient_edges`), not once per input.
//
// Note [Version counter]
// ~~~~~~~~~~~~~~~~~~~~~~
// torch's rules: every in-place write bumps `_version`, also under no_grad; a view and a
// `detach()`ed alias share the counter of the tensor they alias; `.data` gets a fresh one. Here
// the counter is an `AtomicU32` in every `TensorImpl` (in what was padding), and a tensor reads
// the counter of its *version owner*: its `base` (a view's root, or for a detached alias the
// tensor it was detached from — `TensorImpl::detached` says the base is not a `_base`), else
// itself (`Tensor::version_owner`: at most two steps). No allocation, no sharing object. The
// bumps: `Plan::run_into` (every in-place and `out=` form of a planned op), `fill_`, `zero_`,
// `copy_`, the indexed writes (`index_put`) and the other in-place kernels, each once.
// A saved tensor records the version when saved and compares at unpack (node.rs).
//
// Note [Grad mode is read last]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Grad mode (`no_grad`, `enable_grad`, `inference_mode`) is thread-local, as torch's. Reading
// thread-local storage from the cdylib goes through `__tls_get_addr` (~30 instructions), so a
// recording wrapper first asks whether any tensor argument requires grad (atomic loads on the
// tensors) and reads the mode only when one does: ops on plain tensors never touch TLS.

pub mod composite;
pub mod composite_copy;
pub mod composite_misc;
pub mod composite_quantile;
pub mod composite_shape;
pub mod composite_stats;
pub mod copy_slices;
pub mod engine;
pub mod formula_helpers;
pub mod formulas;
pub mod generated;
pub mod hooks;
pub mod inplace_formulas;
pub mod linalg_formulas;
pub mod meta;
pub mod nn_formulas;
pub mod nn_native;
pub mod node;
pub mod variable_type;

use std::cell::Cell;

thread_local! {
    /// This thread's grad mode: bit 0 set = grad mode disabled; bit 1 = inference mode.
    static MODE: Cell<u8> = const { Cell::new(0) };
}

const NO_GRAD: u8 = 1;
const INFERENCE: u8 = 2;

/// Whether ops record gradients on this thread: grad mode on and not in inference mode (inside
/// `inference_mode()`, `enable_grad()` turns grad mode on but nothing is recorded, as torch).
#[inline]
pub fn is_grad_enabled() -> bool {
    MODE.with(|m| m.get() & (NO_GRAD | INFERENCE) == 0)
}

/// torch's `is_grad_enabled()`: the grad-mode flag alone (thread-local).
#[inline]
pub fn is_grad_mode_enabled() -> bool {
    MODE.with(|m| m.get() & NO_GRAD == 0)
}

/// torch's `set_grad_enabled(mode)` (thread-local); returns the previous value.
#[inline]
pub fn set_grad_enabled(enabled: bool) -> bool {
    MODE.with(|m| {
        let old = m.get();
        m.set(if enabled {
            old & !NO_GRAD
        } else {
            old | NO_GRAD
        });
        old & NO_GRAD == 0
    })
}

/// `set_grad_enabled(enabled)` returning the previous (grad enabled, inference) pair, with one
/// thread-local access (`no_grad().__enter__`).
#[inline]
pub fn set_grad_enabled_prev(enabled: bool) -> (bool, bool) {
    MODE.with(|m| {
        let old = m.get();
        m.set(if enabled {
            old & !NO_GRAD
        } else {
            old | NO_GRAD
        });
        (old & NO_GRAD == 0, old & INFERENCE != 0)
    })
}

/// True inside `inference_mode()`.
#[inline]
pub fn is_inference_mode() -> bool {
    MODE.with(|m| m.get() & INFERENCE != 0)
}

// Note [Inference tensors]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// As torch: a tensor allocated while inference mode is on (on its thread) is an *inference
// tensor* (`TensorImpl::inference`); a view or alias of a tensor is one exactly when that tensor
// is (a view of a normal tensor made in inference mode is normal). Outside inference mode an
// inference tensor cannot be written in place (`Tensor::check_inference_write`, called by every
// in-place kernel before it writes), saved for backward (`SavedTensor::input`) or made to require
// grad, and it has no `_version`. Inside inference mode nothing is recorded, even under
// `enable_grad()`. Allocation asks "is inference mode on?" through `INFERENCE_THREADS` (threads
// now in inference mode) first, so outside inference mode it costs one relaxed load and no TLS.

/// How many threads are in inference mode now.
static INFERENCE_THREADS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Keep `INFERENCE_THREADS` in step with a change of this thread's mode from `old` to `new`.
fn count_inference(old: u8, new: u8) {
    use std::sync::atomic::Ordering::Relaxed;
    match (old & INFERENCE != 0, new & INFERENCE != 0) {
        (false, true) => {
            INFERENCE_THREADS.fetch_add(1, Relaxed);
        }
        (true, false) => {
            INFERENCE_THREADS.fetch_sub(1, Relaxed);
        }
        _ => {}
    }
}

/// True when a tensor allocated now is an inference tensor (Note [Inference tensors]).
#[inline]
pub fn allocating_inference() -> bool {
    INFERENCE_THREADS.load(std::sync::atomic::Ordering::Relaxed) != 0 && inference_mode_cold()
}

/// `is_inference_mode()` behind a call that cannot be inlined. Inlined, LLVM hoists the
/// thread-local's address computation (`__tls_get_addr` in a shared object: ~24 instructions)
/// above the `INFERENCE_THREADS` test into every allocation, where it ran on each plain op
/// although inference mode is almost never on (BENCHMARKS.md, "Plain ops against the
/// pre-autograd build").
#[cold]
#[inline(never)]
fn inference_mode_cold() -> bool {
    is_inference_mode()
}

/// Enter or leave inference mode (entering also disables grad mode, leaving enables it, as
/// torch's `InferenceMode(enabled)`); returns the previous (grad enabled, inference) pair for
/// `restore_mode`.
pub fn set_inference_mode(on: bool) -> (bool, bool) {
    MODE.with(|m| {
        let old = m.get();
        let new = if on {
            old | NO_GRAD | INFERENCE
        } else {
            old & !INFERENCE & !NO_GRAD
        };
        m.set(new);
        count_inference(old, new);
        (old & NO_GRAD == 0, old & INFERENCE != 0)
    })
}

/// Restore a mode saved by `set_inference_mode`.
pub fn restore_mode(prev: (bool, bool)) {
    MODE.with(|m| {
        let old = m.get();
        let new = ((!prev.0) as u8 * NO_GRAD) | (prev.1 as u8 * INFERENCE);
        m.set(new);
        count_inference(old, new);
    })
}

/// Runs `f` with grad mode set to `enabled`, restoring the previous mode after (also on error).
pub fn with_grad_mode<R>(enabled: bool, f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            set_grad_enabled(self.0);
        }
    }
    let _restore = Restore(set_grad_enabled(enabled));
    f()
}

pub use engine::{backward, grad, BackwardOptions};
pub use formulas::NodeKind;
pub use meta::AutogradMeta;
pub use node::{Edge, Node};

#[cfg(test)]
mod tests;
