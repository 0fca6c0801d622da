//! src/bindings/call_scope.rs: how many calls into `_C` are running, on all threads together (a
//! Python callback run by one `_C` call may call `_C` again; another thread may call `_C` while
//! this one waits in Python code) — and the tensor handles whose release is put off until none is
//! (the graveyard).
//!
//! Layer 0 (references, errors, GIL, state): see src/bindings/mod.rs.
//!
//! Note [Borrowed tensors and replaced handles]
//! Entry points read the tensor inside a Python object as a *borrowed handle*
//! (`tensor_object::TensorRef`): a copy of the object's handle that holds no count. The object
//! keeps that tensor alive while it holds the handle, and the object itself is kept alive by
//! whoever passed it in. One operation replaces an object's handle: `out=` giving a tensor a new
//! shape (`tensor_object::replace_tensor`). It can run while borrows of the old handle are live
//! in frames that ran Python code meanwhile — further up this thread's stack (an index whose
//! `__index__` resized the tensor being indexed), or on another thread, which lost the GIL inside
//! such Python code. So the replaced handle is not dropped but *parked*, and released when no
//! `_C` call is running on any thread. Borrows never outlive the call that made them, so every
//! borrow made before the replacement stays valid for as long as it is used; geometry and storage
//! of a tensor never change, so what such a frame reads stays consistent too.
//!
//! Every `extern "C"` entry point enters a scope through the trampoline (`errors::trampoline`),
//! which is entered and left with the GIL held: one increment and one decrement of a counter the
//! GIL guards, and a flag test when it returns to zero. The cost of this simplicity is that a
//! parked handle waits while calls overlap without a break (threads that keep `_C` calls running
//! back to back, with the GIL released inside them). Only handles replaced by an `out=` resize —
//! a deprecated pattern that warns every time — are ever parked.

use crate::core::Tensor;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
use std::sync::Mutex;

/// `_C` calls running, on all threads. Read and written only with the GIL held, which orders
/// the accesses (relaxed atomics compile to plain loads and stores).
static DEPTH: AtomicU32 = AtomicU32::new(0);

/// Replaced handles, released when `DEPTH` returns to 0.
static GRAVEYARD: Mutex<Vec<Tensor>> = Mutex::new(Vec::new());
/// `GRAVEYARD` is not empty (tested without the lock).
static ANY_PARKED: AtomicBool = AtomicBool::new(false);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// One running `_C` call; dropping it ends it. Not `Send`: made and dropped with the GIL held,
/// on one thread.
pub struct Guard(std::marker::PhantomData<*const ()>);

/// Enter a call scope (the trampoline does this for every entry point). The GIL is held.
#[inline(always)]
pub fn enter() -> Guard {
    super::gil::assert_gil_held();
    DEPTH.store(DEPTH.load(Relaxed) + 1, Relaxed);
    Guard(std::marker::PhantomData)
}

impl Drop for Guard {
    #[inline(always)]
    fn drop(&mut self) {
        let d = DEPTH.load(Relaxed) - 1;
        DEPTH.store(d, Relaxed);
        if d == 0 && ANY_PARKED.load(Relaxed) {
            release_parked();
        }
    }
}

/// Release the parked handles (no call is running). Dropping one can run Python code (a tensor
/// that owned its Python object frees it), which can call `_C` and park more: the calls it makes
/// count as running (so nothing is released under it), and the loop picks up what they park.
#[cold]
#[inline(never)]
fn release_parked() {
    loop {
        let dead = {
            let mut g = lock(&GRAVEYARD);
            ANY_PARKED.store(false, Relaxed);
            std::mem::take(&mut *g)
        };
        if dead.is_empty() {
            return;
        }
        DEPTH.store(DEPTH.load(Relaxed) + 1, Relaxed);
        drop(dead);
        DEPTH.store(DEPTH.load(Relaxed) - 1, Relaxed);
    }
}

/// Keep `t`, a tensor handle just replaced inside its Python object, alive until no `_C` call is
/// running (Note [Borrowed tensors and replaced handles]). The GIL is held. Outside any call it
/// is dropped at once.
pub fn park(t: Tensor) {
    if DEPTH.load(Relaxed) == 0 {
        return drop(t);
    }
    lock(&GRAVEYARD).push(t);
    ANY_PARKED.store(true, Relaxed);
}

/// How many replaced handles are waiting to be released (`_C._parked_tensors()`, for tests).
pub fn parked() -> usize {
    lock(&GRAVEYARD).len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::DType;

    #[test]
    fn parked_handles_wait_until_no_call_is_running() {
        // (The counter is process-wide; no other Rust test enters a scope.)
        let t = Tensor::zeros(&[3], DType::Float32).unwrap();
        let probe = t.clone();
        {
            let _outer = enter();
            {
                let _inner = enter();
                park(t);
                assert_eq!(probe.use_count(), 2);
            }
            // still inside the outer call: a frame there may borrow it
            assert_eq!(probe.use_count(), 2);
        }
        assert_eq!(probe.use_count(), 1);
        assert_eq!(parked(), 0);
        // outside any call: released at once
        park(probe.clone());
        assert_eq!(probe.use_count(), 1);
    }
}
