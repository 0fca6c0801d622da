//! src/bindings/call_scope.rs: the dynamic extent of calls into `_C` — how deeply entry points
//! nest on each thread (a Python callback run by one `_C` call may call `_C` again) — and the
//! tensor handles whose release is put off until no call that could still read them is running
//! (the graveyard).
//!
//! Note [Borrowed tensors and replaced handles]
//! Entry points read the tensor inside a Python object as a *borrowed handle*
//! (`tensor_object::TensorRef`): a copy of the object's handle that holds no count. The object
//! keeps that tensor alive while it holds the handle, and the object itself is kept alive by
//! whoever passed it in. One operation replaces an object's handle: `out=` giving a tensor a new
//! shape (`tensor_object::replace_tensor`). It can run while borrows of the old handle are live
//! in frames that ran Python code meanwhile — further up this thread's stack (an index whose
//! `__index__` resized the tensor being indexed), or on another thread, which may have lost the
//! GIL inside such Python code. So the replaced handle is not dropped but *parked*, with a
//! snapshot of every thread that was inside a `_C` call at that moment and which call it was in
//! (its outermost-call epoch). It is released once each of those threads has left that call.
//! Borrows never outlive the call that made them, so every borrow made before the replacement
//! stays valid for as long as it is used; geometry and storage of a tensor never change, so what
//! such a frame reads stays consistent too.
//!
//! Each thread has a slot, registered on its first call and recycled when the thread exits. Every
//! `extern "C"` entry point enters a scope through the trampoline (`errors::trampoline`): a few
//! plain loads and stores on the thread's own slot, and one load of a global flag on leaving
//! the outermost call. All of it runs with the GIL held (the trampoline is entered and left with
//! it), which orders the reads one thread makes of another's slot.

use crate::core::Tensor;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::*};
use std::sync::Mutex;

/// Where one thread is in `_C` calls; read by other threads with the GIL held.
struct ThreadSlot {
    /// Entry points running on the thread.
    depth: AtomicU32,
    /// Counts the thread's outermost calls (and its exit), so that a snapshot can tell "still in
    /// the same call" from "in a later one".
    epoch: AtomicU64,
    /// Owned by a live thread (slots of exited threads are reused).
    in_use: AtomicBool,
}

/// Every slot ever made (leaked on purpose: a few dozen bytes per thread that ever called `_C`
/// at once, reused after the thread exits).
static REGISTRY: Mutex<Vec<&'static ThreadSlot>> = Mutex::new(Vec::new());

/// A replaced handle, with the calls that may still borrow it: (slot, epoch) of each thread that
/// was inside a `_C` call when it was parked.
struct Parked {
    _tensor: Tensor,
    readers: Vec<(&'static ThreadSlot, u64)>,
}

static GRAVEYARD: Mutex<Vec<Parked>> = Mutex::new(Vec::new());
/// The graveyard is not empty (checked on leaving every outermost call, without the lock).
static ANY_PARKED: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// This thread's slot (null until its first call).
    static SLOT: Cell<*const ThreadSlot> = const { Cell::new(std::ptr::null()) };
    /// Hands the slot back when the thread exits (touched once, at registration, so that the
    /// destructor is registered; the per-call path reads only `SLOT`).
    static SLOT_OWNER: SlotOwner = const { SlotOwner(Cell::new(std::ptr::null())) };
}

struct SlotOwner(Cell<*const ThreadSlot>);

impl Drop for SlotOwner {
    fn drop(&mut self) {
        let p = self.0.get();
        if !p.is_null() {
            // SAFETY: slots are leaked, so `p` is valid forever.
            let s = unsafe { &*p };
            s.depth.store(0, Relaxed);
            s.epoch.fetch_add(1, Relaxed);
            s.in_use.store(false, Release);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// This thread's slot, registered on first use.
#[inline(always)]
fn slot() -> &'static ThreadSlot {
    let p = SLOT.with(Cell::get);
    if p.is_null() {
        return register();
    }
    // SAFETY: slots are leaked (`'static`) and `SLOT` only ever holds one.
    unsafe { &*p }
}

#[cold]
#[inline(never)]
fn register() -> &'static ThreadSlot {
    let s = {
        let mut reg = lock(&REGISTRY);
        let free = reg.iter().copied().find(|s| {
            s.in_use
                .compare_exchange(false, true, AcqRel, Relaxed)
                .is_ok()
        });
        free.unwrap_or_else(|| {
            let s: &'static ThreadSlot = Box::leak(Box::new(ThreadSlot {
                depth: AtomicU32::new(0),
                epoch: AtomicU64::new(0),
                in_use: AtomicBool::new(true),
            }));
            reg.push(s);
            s
        })
    };
    SLOT.with(|c| c.set(s));
    // If thread-local storage is being torn down the slot is simply never reused.
    let _ = SLOT_OWNER.try_with(|o| o.0.set(s));
    s
}

/// Marks one entry point running on this thread; dropping it leaves the scope. Not `Send`.
pub struct Guard {
    slot: &'static ThreadSlot,
    _not_send: std::marker::PhantomData<*const ()>,
}

/// Enter a call scope (the trampoline does this for every entry point). The GIL is held.
#[inline(always)]
pub fn enter() -> Guard {
    let s = slot();
    let d = s.depth.load(Relaxed);
    if d == 0 {
        s.epoch
            .store(s.epoch.load(Relaxed).wrapping_add(1), Relaxed);
    }
    s.depth.store(d + 1, Relaxed);
    Guard {
        slot: s,
        _not_send: std::marker::PhantomData,
    }
}

impl Drop for Guard {
    #[inline(always)]
    fn drop(&mut self) {
        let d = self.slot.depth.load(Relaxed) - 1;
        self.slot.depth.store(d, Relaxed);
        if d == 0 && ANY_PARKED.load(Relaxed) {
            release_parked();
        }
    }
}

/// Release every parked handle no running call can still borrow. Dropping one can run Python
/// code (a tensor that owned its Python object frees it), which can call `_C` and park more:
/// nothing is dropped while the graveyard is locked.
#[cold]
#[inline(never)]
fn release_parked() {
    loop {
        let done: Vec<Parked> = {
            let mut g = lock(&GRAVEYARD);
            let (done, kept): (Vec<Parked>, Vec<Parked>) =
                std::mem::take(&mut *g).into_iter().partition(|p| {
                    p.readers.iter().all(|&(s, epoch)| {
                        s.depth.load(Relaxed) == 0 || s.epoch.load(Relaxed) != epoch
                    })
                });
            *g = kept;
            ANY_PARKED.store(!g.is_empty(), Relaxed);
            done
        };
        if done.is_empty() {
            return;
        }
        drop(done);
    }
}

/// Keep `t`, a tensor handle just replaced inside its Python object, alive until every call
/// running now (on any thread) has returned (Note [Borrowed tensors and replaced handles]). The
/// GIL is held. With no call running anywhere it is dropped at once.
pub fn park(t: Tensor) {
    let readers: Vec<(&'static ThreadSlot, u64)> = lock(&REGISTRY)
        .iter()
        .filter(|s| s.in_use.load(Acquire) && s.depth.load(Relaxed) > 0)
        .map(|&s| (s, s.epoch.load(Relaxed)))
        .collect();
    if readers.is_empty() {
        return drop(t);
    }
    lock(&GRAVEYARD).push(Parked {
        _tensor: t,
        readers,
    });
    ANY_PARKED.store(true, Relaxed);
}

/// How many entry points are running on this thread (0 outside `_C`).
pub fn depth() -> u32 {
    slot().depth.load(Relaxed)
}

/// How many replaced handles are waiting to be released (`_C._parked_tensors()`, for tests).
pub fn parked() -> usize {
    lock(&GRAVEYARD).len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::DType;

    /// The graveyard is process-wide: these tests must not see each other's calls.
    static SERIAL: Mutex<()> = Mutex::new(());

    #[test]
    fn parked_handles_wait_for_the_calls_that_could_borrow_them() {
        let _serial = lock(&SERIAL);
        let t = Tensor::zeros(&[3], DType::Float32).unwrap();
        let probe = t.clone();
        {
            let _outer = enter();
            {
                let _inner = enter();
                park(t);
                assert_eq!(probe.use_count(), 2);
            }
            // still inside the outermost call: an outer frame may borrow it
            assert_eq!(probe.use_count(), 2);
        }
        assert_eq!(probe.use_count(), 1);
        // outside any call (on any thread): released at once
        let u = probe.clone();
        park(u);
        assert_eq!(probe.use_count(), 1);
    }

    #[test]
    fn a_call_on_another_thread_keeps_a_parked_handle_alive() {
        let _serial = lock(&SERIAL);
        let t = Tensor::zeros(&[3], DType::Float32).unwrap();
        let probe = t.clone();
        let (in_call, go_on) = (std::sync::Barrier::new(2), std::sync::Barrier::new(2));
        std::thread::scope(|sc| {
            sc.spawn(|| {
                let _g = enter(); // a call that may hold a borrow of `t`
                in_call.wait();
                go_on.wait();
            });
            in_call.wait();
            park(t); // parked from outside any call on this thread
            assert_eq!(probe.use_count(), 2);
            {
                let _g = enter();
            } // this thread's calls end: the other thread is still in its call
            assert_eq!(probe.use_count(), 2);
            go_on.wait();
        });
        // the other thread left its call (and exited); the next exit releases it
        {
            let _g = enter();
        }
        assert_eq!(probe.use_count(), 1);
    }
}
