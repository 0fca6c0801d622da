//! src/core/interrupt.rs: stopping a long kernel early when its caller asks (Ctrl-C), at cheap
//! checkpoints between chunks, blocks and rows.
//!
//! Note [Interrupting kernels]
//! A caller that waits on a long core call (the bindings, while the GIL is released: see
//! src/bindings/gil.rs) arms this thread with `arm(check, ctx, interval)`. From then on the
//! kernels' checkpoints call `check(ctx)` at most once per `interval`; when it returns true, the
//! checkpoint unwinds with the payload `Interrupted` (`resume_unwind`: no panic hook, no
//! message). Unwinding is how the call stops: every kernel is already unwind-safe for a panic
//! (buffers are owned values, output tensors are fresh until returned), `parallel_for` stops its
//! region and waits for its workers before re-raising (Note [Panics in parallel regions]), and
//! no kernel needs a `Result` it does not already have. The caller catches `Interrupted` at its
//! boundary (the bindings' trampoline, or `catch_interrupt`).
//!
//! What stays valid: the inputs (kernels never write them), the tensors of the interrupted call
//! (its partly written output is dropped), and everything else. An in-place op or `out=` stopped
//! midway leaves its target partly written, like a crash of the loop but with no harm beyond the
//! values.
//!
//! Where checkpoints are: before each chunk of `parallel_for` (on the submitting thread and in
//! the serial fallback) and every few milliseconds while the submitter waits for its workers
//! (they may have claimed every chunk), per row block of the GEMM, per row of the strided loop driver
//! (`strided_rows`, through a `Ticker`), per output or row of the reduction driver and per 32
//! leaves (32 Ki elements) of the pairwise sum. On a pool worker a checkpoint stops the chunk early when the region was
//! cancelled (`parallel::worker_job_cancelled`), so an interrupted matmul does not wait for the
//! workers' halves of the product.
//!
//! Cost: when no thread is armed a checkpoint is one load of a global and a branch; hot loops
//! call it through a `Ticker`, which adds the work done to a local counter and calls it every
//! `TICK_WORK` elements. Armed, a checkpoint reads a thread-local and the clock.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::parallel;

/// The unwind payload of an interrupted core call (see Note [Interrupting kernels]).
#[derive(Debug)]
pub struct Interrupted;

/// The check an armed thread runs at checkpoints: `check(ctx)`, true to stop the call.
pub type CheckFn = fn(usize) -> bool;

/// Work (about one element each) between two real checkpoints of a `Ticker`.
pub const TICK_WORK: usize = 1 << 16;

/// Threads currently armed: while 0, checkpoints return at once.
static ARMED: AtomicUsize = AtomicUsize::new(0);

/// This thread's arming: the check, its context word, the interval, and when to check next.
#[derive(Clone, Copy)]
struct Arming {
    check: CheckFn,
    ctx: usize,
    interval: Duration,
    /// When to call `check` next; `None` until the first checkpoint (so arming reads no clock).
    next: Option<Instant>,
}

thread_local! {
    static ARMING: Cell<Option<Arming>> = const { Cell::new(None) };
}

/// Arm this thread: until the guard is dropped, checkpoints on it call `check(ctx)` at most once
/// per `interval` (the first time `interval` after the first checkpoint), and unwind with
/// `Interrupted` when it returns true. Nested arming restores the outer one on drop.
pub fn arm(check: CheckFn, ctx: usize, interval: Duration) -> ArmGuard {
    let prev = ARMING.with(|a| {
        a.replace(Some(Arming {
            check,
            ctx,
            interval,
            next: None,
        }))
    });
    ARMED.fetch_add(1, Ordering::Relaxed);
    ArmGuard {
        prev,
        _not_send: std::marker::PhantomData,
    }
}

/// Disarms on drop (restoring an outer arming). Not `Send`: it belongs to the armed thread.
pub struct ArmGuard {
    prev: Option<Arming>,
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Drop for ArmGuard {
    fn drop(&mut self) {
        ARMING.with(|a| a.set(self.prev));
        ARMED.fetch_sub(1, Ordering::Relaxed);
    }
}

/// True while some thread is armed (a cheap test; `checkpoint` does the rest).
#[inline]
pub fn any_armed() -> bool {
    ARMED.load(Ordering::Relaxed) != 0
}

/// A checkpoint: returns at once unless some thread is armed; on an armed thread whose check
/// says stop, or on a pool worker whose region was cancelled, unwinds with `Interrupted`.
#[inline(always)]
pub fn checkpoint() {
    if ARMED.load(Ordering::Relaxed) != 0 {
        checkpoint_armed();
    }
}

#[cold]
#[inline(never)]
fn checkpoint_armed() {
    if parallel::worker_job_cancelled() {
        std::panic::resume_unwind(Box::new(Interrupted));
    }
    let Some(mut a) = ARMING.with(Cell::get) else {
        return;
    };
    let now = Instant::now();
    match a.next {
        Some(next) if now < next => return,
        _ => {}
    }
    let first = a.next.is_none();
    a.next = Some(now + a.interval);
    ARMING.with(|c| c.set(Some(a)));
    if !first && (a.check)(a.ctx) {
        std::panic::resume_unwind(Box::new(Interrupted));
    }
}

/// A local work counter for hot loops: `tick(work)` adds `work` and calls `checkpoint` once per
/// `TICK_WORK` of it, so a loop over small rows pays an add and a compare per row.
#[derive(Default)]
pub struct Ticker(usize);

impl Ticker {
    pub const fn new() -> Self {
        Ticker(0)
    }

    /// Count `work` elements done; a checkpoint every `TICK_WORK` of them.
    #[inline(always)]
    pub fn tick(&mut self, work: usize) {
        self.0 += work;
        if self.0 >= TICK_WORK {
            self.0 = 0;
            checkpoint();
        }
    }
}

/// Run `f`, turning an interrupt (the `Interrupted` unwind) into `Err(Interrupted)`; other
/// panics keep unwinding. For callers of the core that arm a thread themselves.
pub fn catch_interrupt<R>(f: impl FnOnce() -> R) -> Result<R, Interrupted> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(v) => Ok(v),
        Err(payload) if payload.is::<Interrupted>() => Err(Interrupted),
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::DType;
    use std::sync::atomic::AtomicBool;

    static STOP: AtomicBool = AtomicBool::new(false);
    static CALLS: AtomicUsize = AtomicUsize::new(0);

    /// Counts its calls; stops once `STOP` is set.
    fn check(ctx: usize) -> bool {
        assert_eq!(ctx, 42);
        CALLS.fetch_add(1, Ordering::SeqCst);
        STOP.load(Ordering::SeqCst)
    }

    #[test]
    fn unarmed_checkpoints_do_nothing_and_an_armed_check_stops_a_matmul() {
        // Not armed: the check is never called.
        checkpoint();
        let mut t = Ticker::new();
        for _ in 0..10 {
            t.tick(TICK_WORK);
        }
        let a = crate::core::ops::ones(&[300, 300], Some(DType::Float64)).unwrap();
        let before = crate::core::ops::matmul(&a, &a).unwrap();
        // Armed with a check that says stop: the product unwinds with `Interrupted`, on one
        // thread and on several (the workers stop too, and the pool is reusable afterwards).
        for threads in [1, 3] {
            parallel::set_num_threads(threads);
            STOP.store(true, Ordering::SeqCst);
            let calls = CALLS.load(Ordering::SeqCst);
            let r = {
                let _g = arm(check, 42, Duration::ZERO);
                // The first checkpoint only starts the clock: take it here, so that the first
                // one inside the product checks (on this thread, in its chunks or while it
                // waits for the workers).
                checkpoint();
                catch_interrupt(|| crate::core::ops::matmul(&a, &a))
            };
            assert!(r.is_err(), "threads={threads}");
            assert!(CALLS.load(Ordering::SeqCst) > calls);
            // The inputs are untouched and the next call (disarmed) is whole.
            let again = crate::core::ops::matmul(&a, &a).unwrap();
            assert!(crate::core::ops::equal(&again, &before).unwrap());
            assert!(a.to_vec::<f64>().iter().all(|&v| v == 1.0));
        }
        parallel::set_num_threads(0);
    }

    #[test]
    fn armed_check_that_says_go_on_changes_nothing() {
        let x = crate::core::ops::ones(&[1 << 20], Some(DType::Float32)).unwrap();
        let r = {
            let _g = arm(|_| false, 0, Duration::ZERO);
            catch_interrupt(|| crate::core::ops::sum(&x, None, false, None))
        };
        let s = r.expect("not interrupted").unwrap();
        assert_eq!(s.item().unwrap().to_f64(), (1u64 << 20) as f64);
    }

    #[test]
    fn interval_limits_the_checks() {
        static N: AtomicUsize = AtomicUsize::new(0);
        let _g = arm(
            |_| {
                N.fetch_add(1, Ordering::SeqCst);
                false
            },
            0,
            Duration::from_secs(3600),
        );
        for _ in 0..1000 {
            checkpoint();
        }
        assert_eq!(N.load(Ordering::SeqCst), 0);
    }
}
