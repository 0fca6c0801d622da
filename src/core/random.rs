//! src/core/random.rs: `Generator`, the random number generator behind every random op, and the
//! process-wide default generator (PyTorch: `at::Generator`, `CPUGeneratorImpl`,
//! `at::detail::getDefaultCPUGenerator`).
//!
//! # The algorithm: Philox4x32-10
//!
//! tensorbind uses the counter-based generator Philox4x32-10 (Salmon, Moraes, Dror, Shaw,
//! "Parallel random numbers: as easy as 1, 2, 3", SC'11; the generator torch's CUDA backend and
//! cuRAND use). It was chosen over a sequential generator (torch's CPU mt19937, PCG64,
//! xoshiro256**) because
//! - it is a pure function `block = philox(key, counter)` of 32-bit integer operations only
//!   (multiply-high/low, xor, add), so every machine, compiler and thread count gives the same
//!   bits;
//! - its whole state is two numbers (the 64-bit seed and a 128-bit counter), so `get_state` is 29
//!   bytes and skipping ahead is an addition;
//! - it passes BigCrush, and its known-answer vectors (Random123's `kat_vectors`) pin the
//!   implementation (see the unit tests).
//!
//! The numbers are *not* torch's CPU numbers (torch's CPU generator is mt19937): same seed, same
//! numbers holds within tensorbind only.
//!
//! ## The stream
//! key = (seed low 32 bits, seed high 32 bits); the counter is a 128-bit block index (`c0` is its
//! least significant word). Block `i` yields four 32-bit words `x0, x1, x2, x3`, consumed in
//! that order. An op takes the words it needs from consecutive blocks starting at the current
//! counter, then advances the counter past the last block it touched (unused words of that block
//! are dropped), so each op starts on a fresh block and the numbers of an op do not depend on the
//! ops before it except through the counter.
//!
//! ## Derived distributions (exactly these, in this order)
//! - `u32`: one word. `u64`: two words, `lo = x_k`, `hi = x_{k+1}`, value `hi << 32 | lo`.
//! - uniform float32 in [0, 1): `(u32 >> 8) * 2^-24` (the top 24 bits; every value exact).
//! - uniform float64 in [0, 1): `(u64 >> 11) * 2^-53` (the top 53 bits).
//! - normal (both dtypes): Box–Muller in f64 on pairs: `u1 = 1 - uniform64()` (in (0, 1], so the
//!   log is finite), `u2 = uniform64()`, `r = sqrt(-2 ln u1)`, `z0 = r cos(2π u2)`,
//!   `z1 = r sin(2π u2)`; outputs are `z0, z1, z0', z1', ...` (an odd count drops the last `z1`),
//!   then `mean + std * z`, rounded to float32 when the result is float32.
//! - bounded integer in `[low, high)`: `range = high - low` as u64; draw `x = u64()` until
//!   `x >= 2^64 mod range` (rejection, so there is no modulo bias), then `low + x mod range`.
//! - Bernoulli(p): `uniform64() < p` (one u64 per element).
//! - randperm(n): Fisher–Yates from the back: for `i = n-1 .. 1`, `j = bounded(0, i + 1)`, swap.

use crate::core::error::{Error, Result};
use std::sync::{Mutex, MutexGuard, OnceLock};

const PHILOX_M0: u32 = 0xD251_1F53;
const PHILOX_M1: u32 = 0xCD9E_8D57;
const PHILOX_W0: u32 = 0x9E37_79B9;
const PHILOX_W1: u32 = 0xBB67_AE85;

/// torch's default seed (`default_rng_seed_val`), used by the default generator until
/// `manual_seed`.
pub const DEFAULT_SEED: u64 = 67_280_421_310_721;

/// The `get_state` format version (byte 4 of the state).
pub const STATE_VERSION: u8 = 1;
const STATE_MAGIC: &[u8; 4] = b"TBPX";
/// The length of a `get_state` byte string: magic (4), version (1), seed (8, LE), counter (16, LE).
pub const STATE_LEN: usize = 4 + 1 + 8 + 16;

#[inline(always)]
fn mulhilo(a: u32, b: u32) -> (u32, u32) {
    let p = u64::from(a) * u64::from(b);
    ((p >> 32) as u32, p as u32)
}

/// One Philox4x32-10 block: the four words for `counter` under `key`.
#[inline]
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let mut c = counter;
    let mut k = key;
    for round in 0..10 {
        if round > 0 {
            k[0] = k[0].wrapping_add(PHILOX_W0);
            k[1] = k[1].wrapping_add(PHILOX_W1);
        }
        let (hi0, lo0) = mulhilo(PHILOX_M0, c[0]);
        let (hi1, lo1) = mulhilo(PHILOX_M1, c[2]);
        c = [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0];
    }
    c
}

/// A random number generator: Philox4x32-10 keyed by a 64-bit seed, positioned by a 128-bit
/// block counter (see the module doc for the exact stream). `Send + Sync`; share it behind a
/// `Mutex` (every random op locks it once).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generator {
    seed: u64,
    counter: u128,
}

/// A cursor over the stream of one op: hands out words from consecutive blocks; `finish` writes
/// the advanced counter back.
pub struct Stream<'g> {
    gen: &'g mut Generator,
    key: [u32; 2],
    counter: u128,
    block: [u32; 4],
    pos: usize,
}

impl Generator {
    /// A generator seeded with `seed`, at the start of its stream.
    pub fn new(seed: u64) -> Generator {
        Generator { seed, counter: 0 }
    }

    /// Reseed: the stream restarts at block 0 of `seed` (torch: `Generator.manual_seed`).
    pub fn manual_seed(&mut self, seed: u64) {
        self.seed = seed;
        self.counter = 0;
    }

    /// Reseed from a non-deterministic value (the system clock, a process-wide counter and stack
    /// and heap addresses, mixed by splitmix64) and return it (torch: `Generator.seed`).
    pub fn seed(&mut self) -> u64 {
        let s = nondeterministic_seed();
        self.manual_seed(s);
        s
    }

    /// The seed of the last `new`/`manual_seed`/`seed` (torch: `Generator.initial_seed`).
    pub fn initial_seed(&self) -> u64 {
        self.seed
    }

    /// The block counter (the number of Philox blocks consumed since seeding).
    pub fn offset(&self) -> u128 {
        self.counter
    }

    /// The state as bytes: `b"TBPX"`, version 1, seed (u64 LE), counter (u128 LE); `STATE_LEN`
    /// bytes (torch: `Generator.get_state`, whose format is torch's own).
    pub fn get_state(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(STATE_LEN);
        v.extend_from_slice(STATE_MAGIC);
        v.push(STATE_VERSION);
        v.extend_from_slice(&self.seed.to_le_bytes());
        v.extend_from_slice(&self.counter.to_le_bytes());
        v
    }

    /// Restore a state from `get_state`. Errors (RuntimeError, the generator unchanged): a length
    /// other than `STATE_LEN`, a wrong magic, or an unknown version (torch: `Generator.set_state`).
    pub fn set_state(&mut self, state: &[u8]) -> Result<()> {
        if state.len() != STATE_LEN {
            return Err(Error::runtime(format!(
                "Generator.set_state: expected a state of {STATE_LEN} bytes (tensorbind Philox \
                 state, version {STATE_VERSION}), but got {} bytes",
                state.len()
            )));
        }
        if &state[..4] != STATE_MAGIC {
            return Err(Error::runtime(
                "Generator.set_state: not a tensorbind generator state (bad magic bytes)",
            ));
        }
        if state[4] != STATE_VERSION {
            return Err(Error::runtime(format!(
                "Generator.set_state: unsupported state version {} (expected {STATE_VERSION})",
                state[4]
            )));
        }
        let mut seed = [0u8; 8];
        seed.copy_from_slice(&state[5..13]);
        let mut counter = [0u8; 16];
        counter.copy_from_slice(&state[13..29]);
        self.seed = u64::from_le_bytes(seed);
        self.counter = u128::from_le_bytes(counter);
        Ok(())
    }

    /// A cursor over the stream from the current counter. Drop it with `finish` (or just drop
    /// it: the counter is advanced on drop as well).
    pub fn stream(&mut self) -> Stream<'_> {
        let key = [self.seed as u32, (self.seed >> 32) as u32];
        let counter = self.counter;
        Stream {
            gen: self,
            key,
            counter,
            block: [0; 4],
            pos: 4,
        }
    }
}

impl Default for Generator {
    /// A generator with torch's default seed.
    fn default() -> Self {
        Generator::new(DEFAULT_SEED)
    }
}

impl Stream<'_> {
    /// The next 32-bit word.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        if self.pos == 4 {
            let c = self.counter;
            self.block = philox4x32_10(
                [
                    c as u32,
                    (c >> 32) as u32,
                    (c >> 64) as u32,
                    (c >> 96) as u32,
                ],
                self.key,
            );
            self.counter = self.counter.wrapping_add(1);
            self.pos = 0;
        }
        let w = self.block[self.pos];
        self.pos += 1;
        w
    }

    /// The next 64-bit value: two words, the first is the low half.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let lo = u64::from(self.next_u32());
        let hi = u64::from(self.next_u32());
        hi << 32 | lo
    }

    /// Uniform float32 in [0, 1): the top 24 bits of one word.
    #[inline]
    pub fn uniform_f32(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 * (1.0 / 16_777_216.0)
    }

    /// Uniform float64 in [0, 1): the top 53 bits of one u64.
    #[inline]
    pub fn uniform_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }

    /// A pair of independent standard normals (Box–Muller, see the module doc).
    #[inline]
    pub fn normal_pair(&mut self) -> (f64, f64) {
        let u1 = 1.0 - self.uniform_f64();
        let u2 = self.uniform_f64();
        let r = (-2.0 * u1.ln()).sqrt();
        let theta = std::f64::consts::TAU * u2;
        (r * theta.cos(), r * theta.sin())
    }

    /// Uniform integer in `[0, range)` without modulo bias (rejection); `range > 0`.
    #[inline]
    pub fn bounded_u64(&mut self, range: u64) -> u64 {
        debug_assert!(range > 0);
        let threshold = range.wrapping_neg() % range; // 2^64 mod range
        loop {
            let x = self.next_u64();
            if x >= threshold {
                return x % range;
            }
        }
    }

    /// Fill `out` with standard normals (pairs; an odd length drops the last partner).
    pub fn fill_normal(&mut self, out: &mut [f64]) {
        let mut chunks = out.chunks_exact_mut(2);
        for pair in &mut chunks {
            let (a, b) = self.normal_pair();
            pair[0] = a;
            pair[1] = b;
        }
        if let [last] = chunks.into_remainder() {
            *last = self.normal_pair().0;
        }
    }

    /// Write the advanced counter back to the generator (also done on drop).
    pub fn finish(self) {}
}

impl Drop for Stream<'_> {
    fn drop(&mut self) {
        self.gen.counter = self.counter;
    }
}

/// splitmix64's finaliser: a bijective mix of 64 bits.
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A non-deterministic 64-bit seed from std only: nanoseconds since the epoch, a process-wide
/// call counter, the address of a stack slot and of a fresh heap allocation (ASLR), mixed.
pub fn nondeterministic_seed() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let calls = CALLS.fetch_add(1, Ordering::Relaxed);
    let stack = 0u8;
    let stack_addr = &stack as *const u8 as u64;
    let heap = Box::new(0u8);
    let heap_addr = &*heap as *const u8 as u64;
    let mut s = splitmix64(nanos);
    s = splitmix64(s ^ calls);
    s = splitmix64(s ^ stack_addr);
    splitmix64(s ^ heap_addr.rotate_left(32))
}

/// The process-wide default generator (torch: `torch.default_generator`), seeded with
/// `DEFAULT_SEED` until someone calls `manual_seed`.
pub fn default_generator() -> &'static Mutex<Generator> {
    static DEFAULT: OnceLock<Mutex<Generator>> = OnceLock::new();
    DEFAULT.get_or_init(|| Mutex::new(Generator::default()))
}

/// Lock `gen` (or the default generator for `None`), recovering from a poisoned lock (a
/// generator's state is always valid: no op leaves it half-written).
pub fn lock_generator(gen: Option<&Mutex<Generator>>) -> MutexGuard<'_, Generator> {
    gen.unwrap_or_else(|| default_generator())
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// `manual_seed(seed)` on the default generator (torch: `torch.manual_seed`).
pub fn manual_seed_default(seed: u64) {
    lock_generator(None).manual_seed(seed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn philox_known_answers() {
        // Random123 kat_vectors, philox4x32_10.
        assert_eq!(
            philox4x32_10([0, 0, 0, 0], [0, 0]),
            [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
        );
        assert_eq!(
            philox4x32_10([u32::MAX; 4], [u32::MAX; 2]),
            [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
        );
        assert_eq!(
            philox4x32_10(
                [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
                [0xa4093822, 0x299f31d0]
            ),
            [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]
        );
    }

    #[test]
    fn stream_and_state() {
        let mut g = Generator::new(0);
        let mut s = g.stream();
        assert_eq!(s.next_u32(), 0x6627e8d5);
        assert_eq!(s.next_u32(), 0xe169c58d);
        s.finish();
        assert_eq!(g.offset(), 1);
        let st = g.get_state();
        assert_eq!(st.len(), STATE_LEN);
        let a = g.stream().next_u64();
        let mut h = Generator::new(5);
        h.set_state(&st).unwrap();
        assert_eq!(h.stream().next_u64(), a);
        assert!(h.set_state(&st[..10]).is_err());
        let mut bad = st.clone();
        bad[4] = 9;
        assert!(h.set_state(&bad).is_err());
        bad[0] = b'X';
        assert!(h.set_state(&bad).is_err());
        g.manual_seed(7);
        assert_eq!((g.initial_seed(), g.offset()), (7, 0));
    }

    #[test]
    fn distributions() {
        let mut g = Generator::new(42);
        let mut s = g.stream();
        let n = 100_000;
        let mean: f64 = (0..n).map(|_| s.uniform_f64()).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.01);
        let mut z = vec![0.0; n];
        s.fill_normal(&mut z);
        let m = z.iter().sum::<f64>() / n as f64;
        let v = z.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n as f64;
        assert!(m.abs() < 0.02 && (v - 1.0).abs() < 0.02);
        let mut counts = [0usize; 3];
        for _ in 0..30_000 {
            counts[s.bounded_u64(3) as usize] += 1;
        }
        assert!(counts.iter().all(|&c| (9_500..10_500).contains(&c)));
        assert!((0..1000).all(|_| s.uniform_f32() < 1.0));
    }

    #[test]
    fn nondeterministic_seeds_differ() {
        assert_ne!(nondeterministic_seed(), nondeterministic_seed());
        let mut g = Generator::new(1);
        let s = g.seed();
        assert_eq!(g.initial_seed(), s);
    }
}
