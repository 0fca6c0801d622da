//! src/core/parallel.rs: a small std-threads parallel-for for the kernels (PyTorch:
//! `ATen/Parallel.h`, `at::parallel_for`, `at::set_num_threads`), with a persistent worker pool.
//!
//! Work is a range `0..n` cut into chunks by the caller's grain; each chunk runs exactly once, on
//! the calling thread or on a pool worker. The chunking never depends on the thread count, so a
//! kernel that writes disjoint ranges (Note [Storage aliasing] in storage.rs) or combines per-chunk
//! partial results in chunk order gives bit-identical results for any number of threads.
//!
//! Below a kernel's work threshold nothing here is touched: the single-thread path costs nothing.
//!
//! Note [Panics in parallel regions]
//! A panic in a chunk, on the calling thread or on a worker, stops the region: the job is marked
//! cancelled so no thread claims another chunk (chunks already running finish, or stop at their
//! next `interrupt::checkpoint`), the submitter waits until every worker has left the job, and
//! then re-raises the panic on the submitting thread with `resume_unwind` — its own panic if it
//! had one, else the first worker's, with the location the panic hook recorded on the worker
//! (`take_panic_location`). torch's `at::parallel_for` rethrows the same way. A worker never
//! dies of a panic; the process never aborts because of one. An interrupt
//! (`interrupt::Interrupted`, see src/core/interrupt.rs) travels the same path.
//!
//! Note [The pool after fork]
//! `fork()` copies only the calling thread: in a child the workers of the parent's pool do not
//! exist, and the pool's mutex may have been held by one of them at the moment of the fork. A
//! `pthread_atfork` child handler (registered when the first pool is made) bumps `FORK_GENERATION`;
//! `pool()` sees that the current pool belongs to an older generation and makes a new one, with
//! its own mutexes and no workers, so the child spawns fresh workers on its first parallel
//! region. The parent's pool is leaked in the child (never touched again: unlocking or dropping a
//! mutex another thread held is undefined).

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, Once, OnceLock};
use std::thread::ThreadId;

use super::interrupt;

/// 0 = not set by the user: use the number of available cores.
static NUM_THREADS: AtomicUsize = AtomicUsize::new(0);

/// Set the number of threads the kernels may use (torch's `set_num_threads`). `n == 0` restores
/// the default (`TENSORBIND_NUM_THREADS` when set to a positive integer, else all cores).
pub fn set_num_threads(n: usize) {
    NUM_THREADS.store(n, Ordering::Relaxed);
}

/// The number of threads the kernels may use (torch's `get_num_threads`): the value set with
/// `set_num_threads`, else the environment variable `TENSORBIND_NUM_THREADS` (read once, like
/// torch's `OMP_NUM_THREADS`), else the number of available cores (at least 1).
pub fn get_num_threads() -> usize {
    match NUM_THREADS.load(Ordering::Relaxed) {
        0 => default_threads(),
        n => n,
    }
}

fn default_threads() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| {
        std::env::var("TENSORBIND_NUM_THREADS")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    })
}

// ----- panic locations ------------------------------------------------------------------------

thread_local! {
    /// Where the last panic on this thread happened ("file:line"), when a panic hook recorded it
    /// (the bindings install one); see Note [Panics in parallel regions].
    static PANIC_LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Record where a panic on this thread happened (called by a panic hook).
pub fn set_panic_location(location: Option<String>) {
    // `try_with`: a hook can run while the thread's locals are being destroyed.
    let _ = PANIC_LOCATION.try_with(|p| *p.borrow_mut() = location);
}

/// Take the location recorded for the last panic on this thread, if any.
pub fn take_panic_location() -> Option<String> {
    PANIC_LOCATION
        .try_with(|p| p.borrow_mut().take())
        .ok()
        .flatten()
}

// ----- jobs -----------------------------------------------------------------------------------

/// A panic caught on a worker, on its way to the submitter.
type CaughtPanic = (Box<dyn Any + Send>, Option<String>);

/// A job handed to the pool: a type-erased `Fn(usize)` called with chunk indices, and counters.
/// It lives on the submitting thread's stack; the submitter waits until every helper that
/// picked it up has left it before returning (see `parallel_for_dyn`).
struct Job {
    /// The chunk body, called with `(start, end)` of one chunk.
    call: *const dyn ChunkFn,
    n: usize,
    grain: usize,
    n_chunks: usize,
    next: AtomicUsize,
    /// Helpers currently inside this job.
    active: AtomicUsize,
    /// Set when a chunk panicked or was interrupted: no thread claims another chunk.
    cancelled: AtomicBool,
    /// The first panic caught on a worker (Note [Panics in parallel regions]).
    panic: Mutex<Option<CaughtPanic>>,
    /// The thread that submitted the job: what its chunks report (warnings) belongs to it.
    submitter: ThreadId,
}

// SAFETY: `call` points to a `Sync` closure that outlives every use (the submitter waits for all
// helpers to leave the job before returning); the other fields are atomics, a mutex and a
// `ThreadId`.
unsafe impl Send for Job {}
// SAFETY: as above.
unsafe impl Sync for Job {}

impl Job {
    /// Claim and run chunks until none are left or the job is cancelled. Checks for an interrupt
    /// before each chunk (see src/core/interrupt.rs); a panic or interrupt unwinds out of here.
    fn work(&self) {
        loop {
            // Before the claim, so that the submitter checks at least once even when the
            // workers have claimed every chunk.
            interrupt::checkpoint();
            if self.cancelled.load(Ordering::Relaxed) {
                return;
            }
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= self.n_chunks {
                return;
            }
            let start = i * self.grain;
            // SAFETY: `call` is alive while any thread is inside the job (see `Job`).
            unsafe { (*self.call).run_chunk(start, (start + self.grain).min(self.n)) };
        }
    }
}

thread_local! {
    /// On a pool worker, the job it is running (null otherwise): `worker_job_cancelled` and
    /// `job_submitter` read it.
    static WORKER_JOB: Cell<*const Job> = const { Cell::new(std::ptr::null()) };
}

/// True on a pool worker whose current job has been cancelled (a chunk panicked or the
/// submitter was interrupted): long chunks stop early at their next `interrupt::checkpoint`.
pub(crate) fn worker_job_cancelled() -> bool {
    WORKER_JOB.with(|j| {
        let job = j.get();
        // SAFETY: a non-null `WORKER_JOB` is the job this worker is registered as active in, so
        // it is alive (the submitter waits for this worker to leave it).
        !job.is_null() && unsafe { (*job).cancelled.load(Ordering::Relaxed) }
    })
}

/// True on a pool worker while it runs a job's chunks: a panic there is caught and carried to
/// the submitter (Note [Panics in parallel regions]), so a panic hook can treat it as handled.
pub fn in_worker_job() -> bool {
    WORKER_JOB.with(|j| !j.get().is_null())
}

/// The thread whose work this thread is doing: the submitter of the job a pool worker is
/// running, else the current thread itself.
pub(crate) fn job_submitter() -> ThreadId {
    let job = WORKER_JOB.with(Cell::get);
    if job.is_null() {
        std::thread::current().id()
    } else {
        // SAFETY: as in `worker_job_cancelled`.
        unsafe { (*job).submitter }
    }
}

// ----- the pool -------------------------------------------------------------------------------

/// The pool's shared state: the job being offered (as an address), with a generation counter so
/// a worker joins each job at most once.
struct Pool {
    state: Mutex<PoolState>,
    wake: Condvar,
    done: Condvar,
    /// Serialises submitters: one parallel region at a time uses the pool; a second concurrent
    /// caller (another thread, or a nested region) runs its chunks itself.
    submit: Mutex<()>,
    /// The `FORK_GENERATION` this pool was made in (Note [The pool after fork]).
    fork_generation: usize,
}

struct PoolState {
    job: usize,
    generation: u64,
    workers: usize,
}

/// The current pool (leaked: it lives for the process, or until a fork replaces it).
static POOL: AtomicPtr<Pool> = AtomicPtr::new(std::ptr::null_mut());
/// How many `fork()`s this process descends from (bumped in the child by `after_fork_child`).
static FORK_GENERATION: AtomicUsize = AtomicUsize::new(0);

/// `pthread_atfork` child handler: the parent's pool is not usable here (Note [The pool after
/// fork]). Only an atomic increment: async-signal-safe, as a child handler must be.
extern "C" fn after_fork_child() {
    FORK_GENERATION.fetch_add(1, Ordering::Relaxed);
}

/// The pool of this process (made on first use, and again in a forked child).
fn pool() -> &'static Pool {
    let p = POOL.load(Ordering::Acquire);
    // SAFETY: a non-null `POOL` is a leaked `Box<Pool>`, never freed.
    if !p.is_null() && unsafe { (*p).fork_generation } == FORK_GENERATION.load(Ordering::Relaxed) {
        // SAFETY: as above.
        return unsafe { &*p };
    }
    new_pool(p)
}

/// Make the pool for the current fork generation, replacing `old` (see `pool`).
#[cold]
fn new_pool(old: *mut Pool) -> &'static Pool {
    static AT_FORK: Once = Once::new();
    AT_FORK.call_once(|| {
        // SAFETY: registers a plain `extern "C"` function that only touches an atomic. A failure
        // (ENOMEM) leaves forked children with the parent's pool, as before this handler existed.
        unsafe { libc::pthread_atfork(None, None, Some(after_fork_child)) };
    });
    let fresh = Box::into_raw(Box::new(Pool {
        state: Mutex::new(PoolState {
            job: 0,
            generation: 0,
            workers: 0,
        }),
        wake: Condvar::new(),
        done: Condvar::new(),
        submit: Mutex::new(()),
        fork_generation: FORK_GENERATION.load(Ordering::Relaxed),
    }));
    match POOL.compare_exchange(old, fresh, Ordering::AcqRel, Ordering::Acquire) {
        // The old pool (another fork generation's) is leaked on purpose.
        // SAFETY: `fresh` is now the leaked pool, never freed.
        Ok(_) => unsafe { &*fresh },
        Err(_) => {
            // Another thread installed a pool first: drop ours (nobody saw it) and use theirs.
            // SAFETY: `fresh` came from `Box::into_raw` above and was never shared.
            drop(unsafe { Box::from_raw(fresh) });
            pool()
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn worker_loop(p: &'static Pool) {
    let mut seen = 0u64;
    loop {
        let job_addr = {
            let mut st = lock(&p.state);
            while st.generation == seen || st.job == 0 {
                if st.generation != seen {
                    seen = st.generation;
                }
                st = p.wake.wait(st).unwrap_or_else(|e| e.into_inner());
            }
            seen = st.generation;
            let job = st.job as *const Job;
            // SAFETY: a non-zero `job` is a live `Job` while it is published; registering as
            // active under the lock keeps it alive until we decrement.
            unsafe { (*job).active.fetch_add(1, Ordering::AcqRel) };
            st.job
        };
        let job = job_addr as *const Job;
        WORKER_JOB.with(|j| j.set(job));
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // SAFETY: we registered as active, so the submitter waits for us before the job dies.
            unsafe { (*job).work() }
        }));
        WORKER_JOB.with(|j| j.set(std::ptr::null()));
        if let Err(payload) = run {
            let location = take_panic_location();
            // SAFETY: still registered as active: the job is alive until the decrement below.
            let job = unsafe { &*job };
            job.cancelled.store(true, Ordering::Relaxed);
            // An interrupt is the submitter's to report (it saw it first); keep real panics.
            if !payload.is::<interrupt::Interrupted>() {
                let mut slot = lock(&job.panic);
                if slot.is_none() {
                    *slot = Some((payload, location));
                }
            }
        }
        let st = lock(&p.state);
        // SAFETY: still registered as active: the job is alive until this decrement.
        unsafe { (*job).active.fetch_sub(1, Ordering::AcqRel) };
        drop(st);
        p.done.notify_all();
    }
}

/// Make sure at least `want` workers exist (best effort: a failed spawn just means fewer).
fn ensure_workers(p: &'static Pool, want: usize) {
    let mut st = lock(&p.state);
    while st.workers < want {
        let spawned = std::thread::Builder::new()
            .name("tensorbind-worker".into())
            .spawn(move || worker_loop(p));
        if spawned.is_err() {
            break;
        }
        st.workers += 1;
    }
}

/// How often a submitter waiting for its workers runs an interrupt checkpoint, while some
/// thread is armed.
const WAIT_CHECK_INTERVAL: std::time::Duration = std::time::Duration::from_millis(2);

/// Run `f(chunk_start, chunk_end)` over `0..n` cut into chunks of `grain` elements (the last one
/// shorter), using up to `get_num_threads()` threads; returns when every chunk is done. The
/// chunks are the same for any thread count. With one thread, one chunk, or when another
/// parallel region is already running, everything runs on the calling thread, in order.
///
/// A panic in `f`, on any thread, stops the region and is re-raised on the calling thread once
/// every worker has left it (Note [Panics in parallel regions]); so is an interrupt, checked
/// before each chunk (`interrupt::checkpoint`).
#[inline]
pub fn parallel_for(n: usize, grain: usize, f: impl Fn(usize, usize) + Sync) {
    // One non-generic driver: the kernel body is instantiated once (as `f`), not once more per
    // call site inside the driver's serial fallback.
    parallel_for_dyn(n, grain, get_num_threads(), &f)
}

/// The body of a parallel region: `run_chunk(start, end)` computes one chunk. A one-method
/// trait instead of `dyn Fn(usize, usize)`: see Note [One-method traits for dyn callbacks].
pub(crate) trait ChunkFn: Sync {
    /// Compute the chunk `[start, end)`.
    fn run_chunk(&self, start: usize, end: usize);
}

impl<F: Fn(usize, usize) + Sync> ChunkFn for F {
    #[inline(always)]
    fn run_chunk(&self, start: usize, end: usize) {
        self(start, end)
    }
}

/// `parallel_for` with up to `threads` threads (the tests pass their own count).
fn parallel_for_dyn(n: usize, grain: usize, threads: usize, f: &dyn ChunkFn) {
    let grain = grain.max(1);
    let n_chunks = n.div_ceil(grain);
    let threads = threads.min(n_chunks);
    let p = if threads > 1 { Some(pool()) } else { None };
    // A region that panicked poisoned `submit` as its guard unwound: poison means nothing here.
    let guard = p.and_then(|p| match p.submit.try_lock() {
        Ok(g) => Some(g),
        Err(std::sync::TryLockError::Poisoned(e)) => Some(e.into_inner()),
        Err(std::sync::TryLockError::WouldBlock) => None,
    });
    let (Some(p), Some(_guard)) = (p, guard) else {
        for i in 0..n_chunks {
            interrupt::checkpoint();
            let start = i * grain;
            f.run_chunk(start, (start + grain).min(n));
        }
        return;
    };
    ensure_workers(p, threads - 1);
    let job = Job {
        // SAFETY: only erases the lifetime; the job is withdrawn and every helper has left it
        // before `f` can go out of scope (below).
        call: unsafe { std::mem::transmute::<*const (dyn ChunkFn + '_), *const dyn ChunkFn>(f) },
        n,
        grain,
        n_chunks,
        next: AtomicUsize::new(0),
        active: AtomicUsize::new(0),
        cancelled: AtomicBool::new(false),
        panic: Mutex::new(None),
        submitter: std::thread::current().id(),
    };
    {
        let mut st = lock(&p.state);
        st.job = &job as *const Job as usize;
        st.generation += 1;
    }
    p.wake.notify_all();
    // A panic here would leave the job published; catch it, withdraw the job, then resume it.
    let mut res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job.work()));
    if res.is_err() {
        job.cancelled.store(true, Ordering::Relaxed);
    }
    {
        let mut st = lock(&p.state);
        st.job = 0;
        while job.active.load(Ordering::Acquire) != 0 {
            if res.is_ok() && interrupt::any_armed() {
                // The workers may hold every remaining chunk: keep the submitter interruptible
                // while it waits (Note [Interrupting kernels]). The check runs without the
                // state lock; an interrupt cancels the job, and the workers stop at their next
                // checkpoint.
                drop(st);
                if let Err(e) = std::panic::catch_unwind(interrupt::checkpoint) {
                    job.cancelled.store(true, Ordering::Relaxed);
                    res = Err(e);
                }
                st = lock(&p.state);
                if job.active.load(Ordering::Acquire) == 0 {
                    break;
                }
                st = p
                    .done
                    .wait_timeout(st, WAIT_CHECK_INTERVAL)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            } else {
                st = p.done.wait(st).unwrap_or_else(|e| e.into_inner());
            }
        }
    }
    if let Err(e) = res {
        std::panic::resume_unwind(e);
    }
    let worker_panic = lock(&job.panic).take();
    if let Some((payload, location)) = worker_panic {
        // `resume_unwind` runs no panic hook: carry the worker's location over by hand.
        set_panic_location(location);
        std::panic::resume_unwind(payload);
    }
}

/// Map each chunk of `0..n` (chunks of `grain`, independent of the thread count) to a partial
/// result with `f(start, end)`, in parallel, and return the partials in chunk order. Combining
/// them in that order makes a reduction deterministic for any thread count. Allocation of the
/// partials' buffer is fallible (`None` when it cannot be had).
pub fn parallel_map_chunks<A: Send + Copy + Default>(
    n: usize,
    grain: usize,
    f: impl Fn(usize, usize) -> A + Sync,
) -> Option<Vec<A>> {
    let grain = grain.max(1);
    let n_chunks = n.div_ceil(grain);
    let mut parts: Vec<A> = Vec::new();
    parts.try_reserve_exact(n_chunks).ok()?;
    parts.resize(n_chunks, A::default());
    let base = SendPtr(parts.as_mut_ptr());
    parallel_for(n, grain, |start, end| {
        let v = f(start, end);
        // SAFETY: chunk `start / grain` is written by exactly one chunk body, inside the buffer
        // of `n_chunks` elements; nobody reads it until `parallel_for` returns.
        unsafe { *base.get().add(start / grain) = v };
    });
    Some(parts)
}

/// A raw pointer that may cross threads; users guarantee disjoint access. Read it with `get()`
/// inside closures (a closure naming the field `.0` would capture the bare pointer).
#[derive(Clone, Copy)]
pub(crate) struct SendPtr<T>(pub(crate) *mut T);

impl<T> SendPtr<T> {
    /// The pointer.
    #[inline(always)]
    pub(crate) fn get(&self) -> *mut T {
        self.0
    }
}
// SAFETY: only used for disjoint writes from parallel chunks (see the users).
unsafe impl<T> Send for SendPtr<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for SendPtr<T> {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    #[test]
    fn every_chunk_runs_once() {
        for n in [0usize, 1, 7, 1000, 100_003] {
            let hits: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
            parallel_for(n, 97, |s, e| {
                for h in &hits[s..e] {
                    h.fetch_add(1, Ordering::Relaxed);
                }
            });
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1), "n={n}");
        }
    }

    #[test]
    fn partials_in_chunk_order() {
        let parts = parallel_map_chunks(10_000, 1000, |s, e| (s..e).sum::<usize>()).unwrap();
        assert_eq!(parts.len(), 10);
        for (i, p) in parts.iter().enumerate() {
            assert_eq!(*p, (i * 1000..(i + 1) * 1000).sum::<usize>());
        }
    }

    #[test]
    fn nested_and_concurrent_regions_complete() {
        let total = AtomicU64::new(0);
        std::thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| {
                    parallel_for(64, 1, |_, _| {
                        parallel_for(10, 1, |_, _| {
                            total.fetch_add(1, Ordering::Relaxed);
                        });
                    });
                });
            }
        });
        assert_eq!(total.load(Ordering::Relaxed), 3 * 64 * 10);
    }

    /// Runs `f` as a region of 16 chunks on 3 threads until one of its chunks ran on a pool
    /// worker (a concurrent test may hold the pool, which makes a region run serially); returns
    /// what `catch_unwind` gave for that region.
    fn region_with_workers(f: &dyn ChunkFn, ran_on_worker: &AtomicBool) -> std::thread::Result<()> {
        region_with_workers_reset(f, ran_on_worker, &|| {})
    }

    /// `region_with_workers`, calling `reset` before each attempt.
    fn region_with_workers_reset(
        f: &dyn ChunkFn,
        ran_on_worker: &AtomicBool,
        reset: &dyn Fn(),
    ) -> std::thread::Result<()> {
        for _ in 0..1000 {
            reset();
            ran_on_worker.store(false, Ordering::SeqCst);
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                parallel_for_dyn(16, 1, 3, f)
            }));
            if ran_on_worker.load(Ordering::SeqCst) {
                return r;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        panic!("no chunk ever ran on a pool worker");
    }

    fn on_worker() -> bool {
        std::thread::current().name() == Some("tensorbind-worker")
    }

    fn message(payload: &(dyn Any + Send)) -> String {
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default()
    }

    #[test]
    fn worker_panic_is_resumed_on_the_submitter() {
        // `resume_unwind` is a panic without the hook (the test harness's hook prints a
        // backtrace, slowly, before the unwinding that cancels the region starts).
        let on = AtomicBool::new(false);
        let ran = AtomicUsize::new(0);
        let r = region_with_workers_reset(
            &|_, _| {
                if on_worker() {
                    on.store(true, Ordering::SeqCst);
                    std::panic::resume_unwind(Box::new("chunk failed on a worker"));
                }
                ran.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(1));
            },
            &on,
            &|| ran.store(0, Ordering::SeqCst),
        );
        // The process is alive, and the submitter got the worker's own payload.
        let payload = r.expect_err("the worker's panic reaches the caller");
        assert_eq!(message(&*payload), "chunk failed on a worker");
        // The region stopped early: the submitter did not run the remaining chunks.
        assert!(ran.load(Ordering::SeqCst) < 14);
        // The pool still works afterwards, workers included (the unwinding once poisoned the
        // submitters' mutex, which made every later region run serially).
        let hits = AtomicUsize::new(0);
        parallel_for_dyn(64, 1, 3, &|s, e| {
            hits.fetch_add(e - s, Ordering::SeqCst);
        });
        assert_eq!(hits.load(Ordering::SeqCst), 64);
        let on = AtomicBool::new(false);
        let r = region_with_workers(
            &|_, _| {
                if on_worker() {
                    on.store(true, Ordering::SeqCst);
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            },
            &on,
        );
        assert!(r.is_ok());
    }

    #[test]
    fn submitter_panic_waits_for_every_helper() {
        // The submitter's chunk panics while workers are busy in theirs: `parallel_for` must not
        // unwind (freeing what the chunks borrow) before they have left the job.
        let on = AtomicBool::new(false);
        let in_flight = AtomicUsize::new(0);
        let r = region_with_workers(
            &|_, _| {
                if on_worker() {
                    on.store(true, Ordering::SeqCst);
                    in_flight.fetch_add(1, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    in_flight.fetch_sub(1, Ordering::SeqCst);
                } else {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                    panic!("chunk failed on the submitter");
                }
            },
            &on,
        );
        let payload = r.expect_err("the submitter's panic propagates");
        assert_eq!(message(&*payload), "chunk failed on the submitter");
        assert_eq!(in_flight.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn worker_panic_location_is_carried() {
        // The location a panic hook records on the worker is handed to the submitter.
        let on = AtomicBool::new(false);
        let r = region_with_workers(
            &|_, _| {
                if on_worker() {
                    on.store(true, Ordering::SeqCst);
                    set_panic_location(Some("kernel.rs:7".into()));
                    std::panic::resume_unwind(Box::new("no hook ran"));
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            },
            &on,
        );
        assert!(r.is_err());
        assert_eq!(take_panic_location().as_deref(), Some("kernel.rs:7"));
    }

    #[test]
    fn thread_count_setting() {
        assert!(get_num_threads() >= 1);
    }
}
