//! src/core/vecmath/reduce.rs: contiguous float reduction kernels run at the dispatch level —
//! sums accumulated in f64, NaN-propagating max/min, and first-position searches (for
//! argmax/argmin) (PyTorch: `native/cpu/SumKernel.cpp`, `ReduceOpsKernel.cpp`).
//!
//! Note [Vectorised reductions]
//! Each kernel is written once over fixed-size lane arrays (`SUM_LANES` f64 partial sums,
//! `EXT_LANES` running extremes) whose loops have constant bounds, and instantiated inside a
//! `#[target_feature]` function per level, where the compiler turns the lane loops into that
//! level's vector instructions. The arithmetic per lane is fixed by the source — element `i`
//! of a block goes to lane `i % SUM_LANES`, lanes merge as a fixed binary tree, the tail is
//! added last — so every level computes the same value bit for bit (no fused operations are
//! involved). Max/min are exact whatever the order; a NaN anywhere gives NaN.
//!
//! float32 sums keep f64 accumulation: measured on 16M standard-normal float32 values, torch's
//! float32 cascade is off the exact sum by ~1e-3 (numpy's pairwise float32 by ~5e-4), ours by
//! ~1e-7 — well inside torch's tolerance, and with the f32 -> f64 conversion folded into the
//! vector loop the kernel is bound by memory bandwidth like theirs (BENCHMARKS.md).

#![allow(clippy::needless_range_loop)] // lane loops with constant bounds, indexed on purpose

use super::dispatch::Level;

/// Partial sums per block (32 f64: four AVX-512 registers, eight AVX2 ones).
const SUM_LANES: usize = 32;

/// Running extremes per block.
const EXT_LANES: usize = 32;

/// The element types of the kernels.
pub(crate) trait Flt: Copy + PartialOrd + Into<f64> + 'static {
    const NEG_INF: Self;
    const INF: Self;
    #[allow(clippy::wrong_self_convention)]
    fn is_nan_(self) -> bool;
}

impl Flt for f32 {
    const NEG_INF: f32 = f32::NEG_INFINITY;
    const INF: f32 = f32::INFINITY;
    #[inline(always)]
    fn is_nan_(self) -> bool {
        self.is_nan()
    }
}

impl Flt for f64 {
    const NEG_INF: f64 = f64::NEG_INFINITY;
    const INF: f64 = f64::INFINITY;
    #[inline(always)]
    fn is_nan_(self) -> bool {
        self.is_nan()
    }
}

/// The sum of `s` in f64 (see Note [Vectorised reductions] for the order).
#[inline(always)]
fn sum_body<T: Flt>(s: &[T]) -> f64 {
    let mut acc = [0.0f64; SUM_LANES];
    let mut chunks = s.chunks_exact(SUM_LANES);
    for c in &mut chunks {
        for j in 0..SUM_LANES {
            acc[j] += c[j].into();
        }
    }
    let mut w = SUM_LANES;
    while w > 1 {
        w /= 2;
        for j in 0..w {
            acc[j] += acc[j + w];
        }
    }
    let mut t = acc[0];
    for &v in chunks.remainder() {
        t += v.into();
    }
    t
}

/// The max (`MAX`) or min of a non-empty `s`; NaN if any element is NaN.
#[inline(always)]
fn extreme_body<T: Flt, const MAX: bool>(s: &[T]) -> T {
    let init = if MAX { T::NEG_INF } else { T::INF };
    let mut m = [init; EXT_LANES];
    let mut nan = [false; EXT_LANES];
    let mut chunks = s.chunks_exact(EXT_LANES);
    for c in &mut chunks {
        for j in 0..EXT_LANES {
            let v = c[j];
            let keep = if MAX { m[j] > v } else { m[j] < v };
            m[j] = if keep { m[j] } else { v };
            nan[j] |= v.is_nan_();
        }
    }
    let mut r = init;
    let mut any_nan = false;
    for j in 0..EXT_LANES {
        any_nan |= nan[j];
        let keep = if MAX { r > m[j] } else { r < m[j] };
        r = if keep { r } else { m[j] };
    }
    for &v in chunks.remainder() {
        any_nan |= v.is_nan_();
        let keep = if MAX { r > v } else { r < v };
        r = if keep { r } else { v };
    }
    if any_nan {
        // The first NaN (its payload, as the scalar loop returns it).
        s.iter().copied().find(|v| v.is_nan_()).unwrap_or(r)
    } else {
        r
    }
}

/// The first position in `s` holding `x` (NaN when `NAN`: the first NaN), or `s.len()`.
#[inline(always)]
fn find_body<T: Flt, const NAN: bool>(s: &[T], x: T) -> usize {
    const W: usize = 32;
    let mut chunks = s.chunks_exact(W);
    let mut base = 0;
    for c in &mut chunks {
        let mut hit = false;
        for j in 0..W {
            hit |= if NAN { c[j].is_nan_() } else { c[j] == x };
        }
        if hit {
            break;
        }
        base += W;
    }
    s[base..]
        .iter()
        .position(|&v| if NAN { v.is_nan_() } else { v == x })
        .map_or(s.len(), |p| base + p)
}

/// Instantiates `$body` (a generic fn over `Flt` with `$($g)*` const parameters) once per level
/// inside `#[target_feature]` functions, as `$name(level, args) -> $ret`.
macro_rules! per_level {
    ($name:ident, $t:ty, ($($a:ident: $at:ty),*) -> $ret:ty, $body:expr) => {
        /// The kernel at `level` (which the CPU must support); see Note [Vectorised
        /// reductions].
        pub(crate) fn $name(level: Level, $($a: $at),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx2,fma")]
                fn avx512($($a: $at),*) -> $ret {
                    $body
                }
                #[target_feature(enable = "avx2,fma")]
                fn avx2($($a: $at),*) -> $ret {
                    $body
                }
                match level {
                    // SAFETY: the CPU supports the level (the caller passes a supported one).
                    Level::Avx512 => return unsafe { avx512($($a),*) },
                    // SAFETY: as above.
                    Level::Avx2 => return unsafe { avx2($($a),*) },
                    Level::Baseline => {}
                }
            }
            let _ = level;
            $body
        }
    };
}

per_level!(sum_f32, f32, (s: &[f32]) -> f64, sum_body(s));
per_level!(sum_f64, f64, (s: &[f64]) -> f64, sum_body(s));
per_level!(max_f32, f32, (s: &[f32]) -> f32, extreme_body::<f32, true>(s));
per_level!(min_f32, f32, (s: &[f32]) -> f32, extreme_body::<f32, false>(s));
per_level!(max_f64, f64, (s: &[f64]) -> f64, extreme_body::<f64, true>(s));
per_level!(min_f64, f64, (s: &[f64]) -> f64, extreme_body::<f64, false>(s));
per_level!(find_f32, f32, (s: &[f32], x: f32) -> usize, if x.is_nan() { find_body::<f32, true>(s, x) } else { find_body::<f32, false>(s, x) });
per_level!(find_f64, f64, (s: &[f64], x: f64) -> usize, if x.is_nan() { find_body::<f64, true>(s, x) } else { find_body::<f64, false>(s, x) });

#[cfg(test)]
mod tests {
    use super::*;

    /// Every level gives the same bits as the baseline (Note [Vectorised reductions]), close
    /// to an exact-ish reference; max/min/find with NaN, ±0 and ties, over lengths around the
    /// lane counts.
    #[test]
    fn reductions_agree_across_levels() {
        for n in [1usize, 2, 31, 32, 33, 63, 100, 1024, 1031] {
            let x64: Vec<f64> = (0..n)
                .map(|i| ((i * 7919 % 1009) as f64 - 504.0) / 3.0)
                .collect();
            let x32: Vec<f32> = x64.iter().map(|&v| v as f32).collect();
            let want: f64 = x32.iter().map(|&v| v as f64).sum();
            let levels: Vec<Level> = Level::ALL
                .into_iter()
                .filter(|l| l.is_supported())
                .collect();
            let s32: Vec<u64> = levels.iter().map(|&l| sum_f32(l, &x32).to_bits()).collect();
            let s64: Vec<u64> = levels.iter().map(|&l| sum_f64(l, &x64).to_bits()).collect();
            assert!(
                s32.iter().all(|&b| b == s32[0]) && s64.iter().all(|&b| b == s64[0]),
                "n={n}"
            );
            assert!((f64::from_bits(s32[0]) - want).abs() <= 1e-9 * (1.0 + want.abs()));
            let (mx, mn) = (
                x32.iter().copied().fold(f32::NEG_INFINITY, f32::max),
                x32.iter().copied().fold(f32::INFINITY, f32::min),
            );
            let first = |v: f32| x32.iter().position(|&y| y == v).unwrap();
            for &l in &levels {
                assert_eq!(max_f32(l, &x32), mx);
                assert_eq!(min_f32(l, &x32), mn);
                assert_eq!(
                    max_f64(l, &x64),
                    x64.iter().copied().fold(f64::NEG_INFINITY, f64::max)
                );
                assert_eq!(find_f32(l, &x32, mx), first(mx), "n={n}");
                assert_eq!(find_f32(l, &x32, 1e9), n);
                let mut y = x32.clone();
                y[n / 2] = f32::NAN;
                if n > 3 {
                    y[n - 1] = f32::NAN;
                }
                assert!(max_f32(l, &y).is_nan() && min_f32(l, &y).is_nan());
                assert_eq!(find_f32(l, &y, f32::NAN), n / 2);
                let mut z = x64.clone();
                z[n - 1] = f64::NAN;
                assert!(max_f64(l, &z).is_nan() && min_f64(l, &z).is_nan());
                assert_eq!(find_f64(l, &z, f64::NAN), n - 1);
            }
        }
    }
}
