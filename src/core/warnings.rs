//! src/core/warnings.rs: warnings the core raises (PyTorch: `TORCH_WARN`, `TORCH_WARN_ONCE`,
//! `c10::Warning`), kept until the caller takes them.
//!
//! Note [Warnings from the core]
//! A kernel that wants to warn calls `warn(kind, message)` (or `warn_once`) and carries on; the
//! warning is recorded with a sequence number for the thread whose work it is — the thread
//! itself, or for a pool worker the thread that submitted the parallel region (only that thread
//! reports). The core never prints. Its caller takes the warnings at its boundary: the bindings'
//! trampoline notes `mark()` when a call starts and, when `recorded_since(mark)` at the end,
//! takes this thread's warnings recorded since the mark (`take_since`) and raises each as a
//! Python warning of its category with the GIL held (src/bindings/errors.rs), which is where
//! `warnings.catch_warnings()` and `-W error` apply. A call nested inside another (Python code
//! run from a core call) takes only its own, like torch's stack of `PyWarningHandler`s.
//!
//! The store is one mutex-protected list for the process: warnings are rare, and the common
//! path (no warning) is the one relaxed load in `recorded_since`. Warnings nobody takes (a Rust
//! caller that never asks) are dropped, oldest first, beyond `MAX_KEPT`.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::thread::ThreadId;

use super::parallel;

/// A warning's category (torch: `c10::UserWarning`, `c10::DeprecationWarning`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarningKind {
    /// Python's `UserWarning` (torch's `TORCH_WARN`).
    User,
    /// Python's `DeprecationWarning` (torch's `TORCH_WARN_DEPRECATION`).
    Deprecation,
}

/// One warning: its category and its complete message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    pub kind: WarningKind,
    pub message: String,
}

/// A recorded warning: (sequence number, owning thread, warning).
type Entry = (u64, ThreadId, Warning);
/// Recorded warnings not yet taken, oldest first.
static KEPT: Mutex<Vec<Entry>> = Mutex::new(Vec::new());
/// Warnings recorded since the process started (the next sequence number).
static RECORDED: AtomicU64 = AtomicU64::new(0);
/// At most this many warnings are kept; beyond it the oldest is dropped.
pub const MAX_KEPT: usize = 1024;

/// Record a warning for the thread whose work this is (see Note [Warnings from the core]).
pub fn warn(kind: WarningKind, message: impl Into<String>) {
    let owner = parallel::job_submitter();
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    let seq = RECORDED.fetch_add(1, Ordering::Relaxed);
    let warning = Warning {
        kind,
        message: message.into(),
    };
    push_bounded(&mut kept, (seq, owner, warning), MAX_KEPT);
}

/// Append `entry`, first dropping the oldest entries beyond `cap - 1`: nobody took those (a
/// thread outside any trampoline), and they must not keep newer warnings out.
fn push_bounded(kept: &mut Vec<Entry>, entry: Entry, cap: usize) {
    if kept.len() >= cap {
        kept.drain(..=kept.len() - cap);
    }
    kept.push(entry);
}

/// `warn` the first time this is reached with `flag` in the process (torch's
/// `TORCH_WARN_ONCE`); later calls do nothing.
pub fn warn_once(flag: &AtomicBool, kind: WarningKind, message: impl FnOnce() -> String) {
    if !flag.load(Ordering::Relaxed) && !flag.swap(true, Ordering::Relaxed) {
        warn(kind, message());
    }
}

/// A mark for `recorded_since` / `take_since`: the number of warnings recorded so far.
#[inline(always)]
pub fn mark() -> u64 {
    RECORDED.load(Ordering::Relaxed)
}

/// True when some thread recorded a warning after `mark` was taken (cheap: one load).
#[inline(always)]
pub fn recorded_since(mark: u64) -> bool {
    RECORDED.load(Ordering::Relaxed) != mark
}

/// Take this thread's warnings recorded since `mark`, oldest first.
pub fn take_since(mark: u64) -> Vec<Warning> {
    let me = std::thread::current().id();
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    let mut out = Vec::new();
    kept.retain(|(seq, owner, w)| {
        if *seq >= mark && *owner == me {
            out.push(w.clone());
            false
        } else {
            true
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_belong_to_their_thread_and_scope() {
        let outer = mark();
        warn(WarningKind::User, "outer");
        let inner = mark();
        warn(WarningKind::Deprecation, "inner");
        // Another thread's warning is not ours.
        std::thread::spawn(|| warn(WarningKind::User, "elsewhere"))
            .join()
            .unwrap();
        assert!(recorded_since(inner));
        let got = take_since(inner);
        assert_eq!(
            got,
            vec![Warning {
                kind: WarningKind::Deprecation,
                message: "inner".into()
            }]
        );
        let got = take_since(outer);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].message, "outer");
        assert!(take_since(outer).is_empty());
    }

    #[test]
    fn warnings_on_pool_workers_go_to_the_submitter() {
        let m = mark();
        crate::core::parallel::set_num_threads(3);
        crate::core::parallel::parallel_for(8, 1, |s, _| {
            if s == 5 {
                warn(WarningKind::User, "from chunk 5");
            }
        });
        crate::core::parallel::set_num_threads(0);
        let got = take_since(m);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].message, "from chunk 5");
    }

    #[test]
    fn a_full_store_drops_the_oldest() {
        // Warnings nobody takes cannot keep newer ones out.
        let me = std::thread::current().id();
        let w = |i: u64| {
            (
                i,
                me,
                Warning {
                    kind: WarningKind::User,
                    message: i.to_string(),
                },
            )
        };
        let mut kept = Vec::new();
        for i in 0..10 {
            push_bounded(&mut kept, w(i), 4);
        }
        assert_eq!(kept.iter().map(|e| e.0).collect::<Vec<_>>(), [6, 7, 8, 9]);
    }

    #[test]
    fn warn_once_warns_once() {
        static FLAG: AtomicBool = AtomicBool::new(false);
        let m = mark();
        for _ in 0..3 {
            warn_once(&FLAG, WarningKind::User, || "once".into());
        }
        let got = take_since(m);
        assert_eq!(got.iter().filter(|w| w.message == "once").count(), 1);
    }
}
