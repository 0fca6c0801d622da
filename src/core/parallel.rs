//! src/core/parallel.rs: a small std-threads parallel-for for the kernels (PyTorch:
//! `ATen/Parallel.h`, `at::parallel_for`, `at::set_num_threads`), with a persistent worker pool.
//!
//! Work is a range `0..n` cut into chunks by the caller's grain; each chunk runs exactly once, on
//! the calling thread or on a pool worker. The chunking never depends on the thread count, so a
//! kernel that writes disjoint ranges (Note [Storage aliasing] in storage.rs) or combines per-chunk
//! partial results in chunk order gives bit-identical results for any number of threads.
//!
//! Below a kernel's work threshold nothing here is touched: the single-thread path costs nothing.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};

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

/// A job handed to the pool: a type-erased `Fn(usize)` called with chunk indices, and counters.
/// It lives on the submitting thread's stack; the submitter waits until every helper that
/// picked it up has left it before returning (see `Job::run`).
struct Job {
    /// The chunk body, called with `(start, end)` of one chunk.
    call: *const (dyn Fn(usize, usize) + Sync),
    n: usize,
    grain: usize,
    n_chunks: usize,
    next: AtomicUsize,
    /// Helpers currently inside this job.
    active: AtomicUsize,
}

// SAFETY: `call` points to a `Sync` closure that outlives every use (the submitter waits for all
// helpers to leave the job before returning); the counters are atomics.
unsafe impl Send for Job {}
// SAFETY: as above.
unsafe impl Sync for Job {}

impl Job {
    /// Claim and run chunks until none are left.
    fn work(&self) {
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= self.n_chunks {
                return;
            }
            let start = i * self.grain;
            // SAFETY: `call` is alive while any thread is inside the job (see `Job`).
            unsafe { (*self.call)(start, (start + self.grain).min(self.n)) };
        }
    }
}

/// The pool's shared state: the job being offered (as an address), with a generation counter so
/// a worker joins each job at most once.
struct Pool {
    state: Mutex<PoolState>,
    wake: Condvar,
    done: Condvar,
}

struct PoolState {
    job: usize,
    generation: u64,
    workers: usize,
}

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| Pool {
        state: Mutex::new(PoolState {
            job: 0,
            generation: 0,
            workers: 0,
        }),
        wake: Condvar::new(),
        done: Condvar::new(),
    })
}

/// Serialises submitters: one parallel region at a time uses the pool; a second concurrent
/// caller (another thread, or a nested region) runs its chunks itself.
static SUBMIT: Mutex<()> = Mutex::new(());

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn worker_loop() {
    let p = pool();
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
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // SAFETY: we registered as active, so the submitter waits for us before the job dies.
            unsafe { (*job).work() }
        }));
        if run.is_err() {
            // The submitter would wait for this worker forever; kernels never panic.
            std::process::abort();
        }
        let st = lock(&p.state);
        // SAFETY: still registered as active: the job is alive until this decrement.
        unsafe { (*job).active.fetch_sub(1, Ordering::AcqRel) };
        drop(st);
        p.done.notify_all();
    }
}

/// Make sure at least `want` workers exist (best effort: a failed spawn just means fewer).
fn ensure_workers(want: usize) {
    let p = pool();
    let mut st = lock(&p.state);
    while st.workers < want {
        let spawned = std::thread::Builder::new()
            .name("tensorbind-worker".into())
            .spawn(worker_loop);
        if spawned.is_err() {
            break;
        }
        st.workers += 1;
    }
}

/// Run `f(chunk_start, chunk_end)` over `0..n` cut into chunks of `grain` elements (the last one
/// shorter), using up to `get_num_threads()` threads; returns when every chunk is done. The
/// chunks are the same for any thread count. With one thread, one chunk, or when another
/// parallel region is already running, everything runs on the calling thread, in order.
///
/// A panic in `f` on a worker aborts the process (kernels must not panic); on the calling thread
/// it propagates as usual.
#[inline]
pub fn parallel_for(n: usize, grain: usize, f: impl Fn(usize, usize) + Sync) {
    // One non-generic driver: the kernel body is instantiated once (as `f`), not once more per
    // call site inside the driver's serial fallback.
    parallel_for_dyn(n, grain, &f)
}

fn parallel_for_dyn(n: usize, grain: usize, f: &(dyn Fn(usize, usize) + Sync)) {
    let grain = grain.max(1);
    let n_chunks = n.div_ceil(grain);
    let threads = get_num_threads().min(n_chunks);
    let guard = if threads > 1 {
        SUBMIT.try_lock().ok()
    } else {
        None
    };
    let Some(_guard) = guard else {
        for i in 0..n_chunks {
            let start = i * grain;
            f(start, (start + grain).min(n));
        }
        return;
    };
    ensure_workers(threads - 1);
    let job = Job {
        // SAFETY: only erases the lifetime; the job is withdrawn and every helper has left it
        // before `f` can go out of scope (below).
        call: unsafe {
            std::mem::transmute::<
                *const (dyn Fn(usize, usize) + Sync + '_),
                *const (dyn Fn(usize, usize) + Sync),
            >(f)
        },
        n,
        grain,
        n_chunks,
        next: AtomicUsize::new(0),
        active: AtomicUsize::new(0),
    };
    let p = pool();
    {
        let mut st = lock(&p.state);
        st.job = &job as *const Job as usize;
        st.generation += 1;
    }
    p.wake.notify_all();
    // A panic here would leave the job published; catch it, withdraw the job, then resume it.
    let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job.work()));
    {
        let mut st = lock(&p.state);
        st.job = 0;
        while job.active.load(Ordering::Acquire) != 0 {
            st = p.done.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }
    if let Err(e) = res {
        std::panic::resume_unwind(e);
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

    #[test]
    fn thread_count_setting() {
        assert!(get_num_threads() >= 1);
    }
}
