//! src/core/vecmath/dispatch.rs: the CPU level the vectorised kernels run at, detected once
//! and overridable by `TENSORBIND_CPU` (PyTorch: `DispatchStub`'s `CPUCapability` and
//! `ATEN_CPU_CAPABILITY`; numpy: `NPY_DISABLE_CPU_FEATURES`).
//!
//! Note [CPU dispatch levels]
//! Three levels, best first: `Avx512` (AVX-512F, with AVX2 and FMA), `Avx2` (AVX2 and FMA) and
//! `Baseline` (SSE2 on x86-64, which every x86-64 CPU has; a portable one-lane loop on other
//! architectures, where it is the only level). The level is chosen on first use and cached:
//! - with `TENSORBIND_CPU` unset or empty: the best level the CPU has (std's
//!   `is_x86_feature_detected!`, which also checks the OS saves the registers);
//! - `TENSORBIND_CPU=avx512|avx2|baseline` (any case): that level if the CPU has it, else the
//!   best level it does have (asking for AVX-512 on an AVX2 machine gives AVX2) — never a
//!   level that would fault;
//! - any other value: ignored, the detected level is used (no error: the variable is a testing
//!   and benchmarking knob, read where there is no caller to report to).
//!
//! Kernels are chosen per call by a `match` on the cached level (one relaxed atomic load), so
//! tests and benchmarks can also run a kernel at any level the CPU has (`*_at` functions).

use std::sync::atomic::{AtomicU8, Ordering};

/// A dispatch level of the vectorised kernels. See Note [CPU dispatch levels].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// SSE2 on x86-64 (4 f32 / 2 f64 lanes, no FMA); one scalar lane elsewhere.
    Baseline,
    /// AVX2 + FMA (8 f32 / 4 f64 lanes).
    Avx2,
    /// AVX-512F (16 f32 / 8 f64 lanes).
    Avx512,
}

impl Level {
    /// Every level, worst first.
    pub const ALL: [Level; 3] = [Level::Baseline, Level::Avx2, Level::Avx512];

    /// The level's name as `TENSORBIND_CPU` spells it: `"baseline"`, `"avx2"`, `"avx512"`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Baseline => "baseline",
            Level::Avx2 => "avx2",
            Level::Avx512 => "avx512",
        }
    }

    /// The level named `s` (as `name` spells it, any case), or `None`.
    pub fn parse(s: &str) -> Option<Level> {
        Level::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s.trim()))
    }

    /// Whether this CPU can run kernels of this level.
    pub fn is_supported(self) -> bool {
        self <= detected_level()
    }

    /// This level if the CPU has it, else the best level it has.
    pub fn or_supported(self) -> Level {
        self.min(detected_level())
    }
}

/// The best level this CPU supports (detected on each call; `level()` caches the choice).
pub fn detected_level() -> Level {
    #[cfg(target_arch = "x86_64")]
    {
        let avx2 = std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma");
        if avx2 && std::arch::is_x86_feature_detected!("avx512f") {
            return Level::Avx512;
        }
        if avx2 {
            return Level::Avx2;
        }
    }
    Level::Baseline
}

/// The level `TENSORBIND_CPU = value` selects on this CPU (see Note [CPU dispatch levels]).
pub fn level_for_env(value: Option<&str>) -> Level {
    match value.and_then(Level::parse) {
        Some(asked) => asked.or_supported(),
        None => detected_level(),
    }
}

const UNSET: u8 = u8::MAX;
static LEVEL: AtomicU8 = AtomicU8::new(UNSET);

/// The level the kernels run at: chosen on first use from the CPU and `TENSORBIND_CPU`, then
/// fixed for the life of the process.
#[inline]
pub fn level() -> Level {
    match LEVEL.load(Ordering::Relaxed) {
        0 => Level::Baseline,
        1 => Level::Avx2,
        2 => Level::Avx512,
        _ => init_level(),
    }
}

#[cold]
fn init_level() -> Level {
    let env = std::env::var("TENSORBIND_CPU").ok();
    let l = level_for_env(env.as_deref());
    // Racing initialisers compute the same value; either store is fine.
    LEVEL.store(l as u8, Ordering::Relaxed);
    l
}

/// The name of the level in use (`"avx512"`, `"avx2"` or `"baseline"`), for `_C._cpu_level()`
/// and the benchmark's header.
pub fn cpu_level() -> &'static str {
    level().name()
}
