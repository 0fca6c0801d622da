//! src/core/vecmath/tests.rs: accuracy of every vectorised function at every level this CPU
//! has, against independent references (f32: glibc's f64 result; f64: glibc's f64 result or
//! a compensated f64 formula), and the agreement between levels.
//!
//! Inputs per function and type: a dense even sweep of each interesting range, random bit
//! patterns over every value (all exponents, subnormals, inf, NaN), the special values and
//! each function's boundaries with their neighbours. Debug builds run 1/16 of the sweep
//! points (the kernels are unoptimised there), so `cargo test` stays well under a minute;
//! release runs (`cargo test --release --lib vecmath`) the full sweeps in a few seconds.

use super::*;
use crate::core::vecmath::kernels::Real;

unsafe extern "C" {
    // glibc's libm (linked by std on Linux).
    fn erf(x: f64) -> f64;
    fn erfc(x: f64) -> f64;
}

fn c_erf(x: f64) -> f64 {
    // SAFETY: a pure libm function of one double.
    unsafe { erf(x) }
}

fn c_erfc(x: f64) -> f64 {
    // SAFETY: a pure libm function of one double.
    unsafe { erfc(x) }
}

const SCALE: usize = if cfg!(debug_assertions) { 16 } else { 1 };
const DENSE: usize = (1 << 17) / SCALE;
const RANDOM: usize = (1 << 18) / SCALE;

/// splitmix64.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// `(x + y) / s` with `s = x + y` rounded: the compensated quotient `num / (1 + e)` for
/// `0 <= e <= 1` (error about half an ULP plus `e`'s own).
fn div_one_plus(num: f64, e: f64) -> f64 {
    let s = 1.0 + e;
    let err = (1.0 - s) + e; // exact (Fast2Sum, 1 >= e)
    let q = num / s;
    let rem = (-q).mul_add(s, num); // exact residual of the division
    q + (rem - q * err) / s
}

/// The reference value of `func` at `x`, in f64, from glibc (or glibc-based compensated
/// formulas for sigmoid and gelu).
fn reference(func: Func, x: f64) -> f64 {
    match func {
        Func::Exp => x.exp(),
        Func::Expm1 => x.exp_m1(),
        Func::Log => x.ln(),
        Func::Log1p => x.ln_1p(),
        Func::Log2 => x.log2(),
        Func::Tanh => x.tanh(),
        Func::Sigmoid => sigmoid_ref(x),
        Func::Erf => c_erf(x),
        Func::Sin => x.sin(),
        Func::Cos => x.cos(),
        Func::Sqrt => x.sqrt(),
        Func::Rsqrt => 1.0 / x.sqrt(),
        Func::GeluTanh => {
            if x == f64::NEG_INFINITY {
                return -0.0;
            }
            let u2 = 2.0 * 0.797_884_560_802_865_4 * (x + 0.044715 * x * x * x);
            x * sigmoid_ref(u2)
        }
        Func::GeluErf => {
            if x == f64::NEG_INFINITY {
                return -0.0;
            }
            0.5 * x * c_erfc(-x * std::f64::consts::FRAC_1_SQRT_2)
        }
    }
}

fn sigmoid_ref(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let e = (-x.abs()).exp();
    div_one_plus(if x >= 0.0 { 1.0 } else { e }, e)
}

/// The interesting ranges of each function (dense sweeps), for f32 (`wide = false`) or f64.
fn ranges(func: Func, wide: bool) -> Vec<(f64, f64)> {
    let w = |a: f64, b: f64| if wide { b } else { a };
    match func {
        Func::Exp => vec![(w(-104.0, -746.0), w(89.0, 710.0)), (-1.0, 1.0)],
        Func::Expm1 => vec![
            (w(-30.0, -40.0), w(89.0, 710.0)),
            (-1.0, 1.0),
            (-1e-6, 1e-6),
        ],
        Func::Log | Func::Log2 => vec![(0.0, 4.0), (0.5, 2.0), (0.0, 1e-30), (1.0, 1e30)],
        Func::Log1p => vec![(-1.0, 3.0), (-1e-3, 1e-3), (3.0, 1e30)],
        Func::Tanh => vec![(-10.0, 10.0), (-1.0, 1.0), (w(-10.0, -21.0), w(10.0, 21.0))],
        Func::Sigmoid => vec![(w(-110.0, -750.0), 40.0), (-5.0, 5.0)],
        Func::Erf => vec![(-7.0, 7.0), (-1.5, 1.5)],
        Func::Sin | Func::Cos => vec![
            (-10.0, 10.0),
            (-1.0, 1.0),
            (w(-4200.0, -270000.0), w(4200.0, 270000.0)),
        ],
        Func::Sqrt | Func::Rsqrt => vec![(0.0, 100.0), (0.0, 1e-30)],
        Func::GeluTanh | Func::GeluErf => vec![(-10.0, 10.0), (-30.0, 5.0)],
    }
}

/// Boundary points of each function (their neighbours are added by the caller).
fn boundaries(func: Func) -> Vec<f64> {
    let mut v = vec![0.0, 1.0, -1.0, 0.5, 2.0];
    match func {
        Func::Exp | Func::Sigmoid => v.extend([
            88.722_839_5,
            88.722_84,
            -87.336_54,
            -103.972_08,
            -103.278_93,
            709.782_712_893_384,
            -708.396_418_532_264_1,
            -745.133_219_101_941_1,
            -744.440_071_921_381_3,
        ]),
        Func::Expm1 => v.extend([88.722_84, 88.38, 709.782_712_893_384, -17.0, -37.0]),
        Func::Tanh => v.extend([9.0, 9.01, 9.5, 19.06, 20.0, 0.55, 0.625]),
        Func::Erf => v.extend([3.92, 3.93, 4.0, 5.86, 5.92, 6.0, 2.5, 0.84375]),
        Func::Log1p => v.extend([-0.5, -1.0 + 1e-7, 1e-8]),
        Func::Sin | Func::Cos => {
            // Near multiples of pi/2 the result is small and the reduction is tested hardest.
            let mut m = 1.0;
            while m < 300000.0 {
                for k in [m, m + 1.0, 3.0 * m] {
                    v.push(k * std::f64::consts::FRAC_PI_2);
                }
                m *= 2.0;
            }
            v.extend([4096.0, 262144.0, 1e5, 12868.0, 102_940.0]);
        }
        _ => {}
    }
    v
}

fn f32_inputs(func: Func) -> Vec<f32> {
    let mut v = Vec::new();
    for (lo, hi) in ranges(func, false) {
        for i in 0..=DENSE {
            v.push((lo + (hi - lo) * i as f64 / DENSE as f64) as f32);
        }
    }
    let mut rng = Rng(0x5eed ^ func as u64);
    v.extend((0..RANDOM).map(|_| f32::from_bits(rng.next() as u32)));
    let mut specials = vec![
        f32::INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        f32::MAX,
        f32::EPSILON,
        1e-20,
        1e-38,
    ];
    for b in boundaries(func) {
        let b = b as f32;
        let mut x = b;
        let mut y = b;
        for _ in 0..4 {
            specials.push(x);
            specials.push(y);
            x = x.next_up();
            y = y.next_down();
        }
    }
    for s in specials {
        v.push(s);
        v.push(-s);
    }
    v
}

fn f64_inputs(func: Func) -> Vec<f64> {
    let mut v = Vec::new();
    for (lo, hi) in ranges(func, true) {
        for i in 0..=DENSE {
            v.push(lo + (hi - lo) * i as f64 / DENSE as f64);
        }
    }
    let mut rng = Rng(0xf64 ^ func as u64);
    v.extend((0..RANDOM).map(|_| f64::from_bits(rng.next())));
    let mut specials = vec![
        f64::INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        f64::from_bits(1),
        f64::from_bits(0x000f_ffff_ffff_ffff),
        f64::MAX,
        f64::EPSILON,
        1e-200,
        1e-300,
    ];
    for b in boundaries(func) {
        let mut x = b;
        let mut y = b;
        for _ in 0..4 {
            specials.push(x);
            specials.push(y);
            x = x.next_up();
            y = y.next_down();
        }
    }
    for s in specials {
        v.push(s);
        v.push(-s);
    }
    v
}

/// `2^k` exactly, for `k` in the f64 range including the subnormals.
fn pow2(k: i32) -> f64 {
    if k >= -1022 {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (k + 1074))
    }
}

/// The spacing of f32 values at `|r|` (r in f64), subnormal spacing below the normals.
fn ulp32(r: f64) -> f64 {
    let a = r.abs().min(f32::MAX as f64);
    if a < f32::MIN_POSITIVE as f64 {
        return pow2(-149);
    }
    let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    pow2(e - 23)
}

fn ulp64(r: f64) -> f64 {
    let a = r.abs().min(f64::MAX);
    if a < f64::MIN_POSITIVE {
        return pow2(-1074);
    }
    let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    pow2(e - 52)
}

/// The error of `got` against the exact-ish `r` in units of `ulp(r)`, or `Err` when the value
/// class differs from the reference rounded to the result type (`rounded`): NaN vs not, a
/// zero's sign. An infinity counts as the next power of two past the largest finite value.
fn ulp_error(got: f64, r: f64, rounded: f64, ulp: fn(f64) -> f64, big: f64) -> Result<f64, ()> {
    if rounded.is_nan() || got.is_nan() {
        return if rounded.is_nan() && got.is_nan() {
            Ok(0.0)
        } else {
            Err(())
        };
    }
    if rounded == 0.0 && got == 0.0 && rounded.is_sign_negative() != got.is_sign_negative() {
        return Err(());
    }
    if got == r || (got.is_infinite() && got == rounded) {
        return Ok(0.0);
    }
    let fin = |v: f64| if v.is_infinite() { big.copysign(v) } else { v };
    Ok((fin(got) - fin(r)).abs() / ulp(r))
}

/// Max error, its input, and the failures of value class.
#[derive(Default)]
struct Stats {
    max: f64,
    at: f64,
    got: f64,
    class_fail: Vec<(f64, f64, f64)>,
}

impl Stats {
    fn add(&mut self, x: f64, got: f64, e: Result<f64, ()>, r: f64) {
        match e {
            Ok(e) if e > self.max => (self.max, self.at, self.got) = (e, x, got),
            Ok(_) => {}
            Err(()) => self.class_fail.push((x, got, r)),
        }
    }
}

fn check_f32(inputs: &[f32], refs: &[f64], out: &[f32], gelu: bool) -> Stats {
    let mut s = Stats::default();
    for ((&x, &y), &r) in inputs.iter().zip(out).zip(refs) {
        let mut e = ulp_error(y as f64, r, r as f32 as f64, ulp32, pow2(128));
        if gelu && x < 0.0 && r.is_finite() {
            // Documented: for negative x, gelu's error is bounded in ULPs of x (the result
            // decays like exp(-x^2) and is ill-conditioned in x: any rounding of x's square
            // is amplified by x^2 relative to the result).
            e = Ok((y as f64 - r).abs() / ulp32(x as f64));
        }
        s.add(x as f64, y as f64, e, r);
    }
    s
}

fn check_f64(inputs: &[f64], refs: &[f64], out: &[f64], gelu: bool) -> Stats {
    let mut s = Stats::default();
    for ((&x, &y), &r) in inputs.iter().zip(out).zip(refs) {
        let mut e = ulp_error(y, r, r, ulp64, 2f64 * pow2(1023));
        if gelu && x < 0.0 && r.is_finite() {
            e = Ok((y - r).abs() / ulp64(x)); // as in `check_f32`
        }
        s.add(x, y, e, r);
    }
    s
}

/// The documented bounds (max ULP error, every level): (f32, f64). f32 errors are measured
/// against the exact-ish f64 result, so they include the final rounding (a correctly rounded
/// function would show 0.5); f64 errors are against glibc's rounded result.
fn bound(func: Func) -> (f64, f64) {
    match func {
        Func::Exp => (1.1, 1.0),
        Func::Expm1 => (1.7, 2.0),
        Func::Log | Func::Log1p | Func::Log2 => (1.0, 1.0),
        Func::Tanh => (1.6, 2.0),
        Func::Sigmoid => (2.2, 3.0),
        Func::Erf => (1.3, 1.0),
        Func::Sin | Func::Cos => (1.5, 1.0),
        Func::Sqrt => (0.5, 0.0),
        Func::Rsqrt => (1.5, 0.0),
        Func::GeluTanh | Func::GeluErf => (3.0, 3.0),
    }
}

fn levels() -> Vec<Level> {
    Level::ALL
        .into_iter()
        .filter(|l| l.is_supported())
        .collect()
}

#[test]
fn accuracy_f32_every_level() {
    let mut report = String::new();
    let mut failed = false;
    for func in Func::ALL {
        let inputs = f32_inputs(func);
        let refs: Vec<f64> = inputs.iter().map(|&x| reference(func, x as f64)).collect();
        for level in levels() {
            let mut out = vec![0f32; inputs.len()];
            map_f32_at(level, func, &inputs, &mut out);
            let s = check_f32(
                &inputs,
                &refs,
                &out,
                matches!(func, Func::GeluErf | Func::GeluTanh),
            );
            let ok = s.max <= bound(func).0 && s.class_fail.is_empty();
            failed |= !ok;
            report += &format!(
                "{func:?} f32 {}: max {:.3} ULP at x = {:e} (got {:e}){}\n",
                level.name(),
                s.max,
                s.at,
                s.got,
                if s.class_fail.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; value class wrong at {:?}",
                        &s.class_fail[..s.class_fail.len().min(4)]
                    )
                }
            );
        }
    }
    println!("{report}");
    assert!(!failed, "accuracy bounds exceeded:\n{report}");
}

#[test]
fn accuracy_f64_every_level() {
    let mut report = String::new();
    let mut failed = false;
    for func in Func::ALL {
        let inputs = f64_inputs(func);
        let refs: Vec<f64> = inputs.iter().map(|&x| reference(func, x)).collect();
        for level in levels() {
            let mut out = vec![0f64; inputs.len()];
            map_f64_at(level, func, &inputs, &mut out);
            let s = check_f64(
                &inputs,
                &refs,
                &out,
                matches!(func, Func::GeluErf | Func::GeluTanh),
            );
            let ok = s.max <= bound(func).1 && s.class_fail.is_empty();
            failed |= !ok;
            report += &format!(
                "{func:?} f64 {}: max {:.3} ULP at x = {:e} (got {:e}){}\n",
                level.name(),
                s.max,
                s.at,
                s.got,
                if s.class_fail.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; value class wrong at {:?}",
                        &s.class_fail[..s.class_fail.len().min(4)]
                    )
                }
            );
        }
    }
    println!("{report}");
    assert!(!failed, "accuracy bounds exceeded:\n{report}");
}

/// AVX2 and AVX-512 run the same fused operations: bit-identical results. The baseline runs
/// the same unfused operations as the portable one-lane form: bit-identical too.
#[test]
fn levels_agree_bit_for_bit() {
    use super::simd::{Lane32, Lane64, Simd};
    fn lane32(func: Func, x: f32) -> f32 {
        // SAFETY: the one-lane type runs anywhere; `x`/`y` hold one element each.
        unsafe {
            let v = Lane32::load(&x);
            let y = match func {
                Func::Exp => kernels::exp(v),
                Func::Expm1 => kernels::expm1(v),
                Func::Log => kernels::log(v),
                Func::Log1p => kernels::log1p(v),
                Func::Log2 => kernels::log2(v),
                Func::Tanh => kernels::tanh(v),
                Func::Sigmoid => kernels::sigmoid(v),
                Func::Erf => kernels::erf(v),
                Func::Sin => kernels::sincos::<_, false>(v),
                Func::Cos => kernels::sincos::<_, true>(v),
                Func::Sqrt => kernels::sqrt(v),
                Func::Rsqrt => kernels::rsqrt(v),
                Func::GeluTanh => kernels::gelu_tanh(v),
                Func::GeluErf => kernels::gelu_erf(v),
            };
            let mut out = 0f32;
            y.store(&mut out);
            out
        }
    }
    fn lane64(func: Func, x: f64) -> f64 {
        // SAFETY: as in `lane32`.
        unsafe {
            let v = Lane64::load(&x);
            let y = match func {
                Func::Exp => kernels::exp(v),
                Func::Expm1 => kernels::expm1(v),
                Func::Log => kernels::log(v),
                Func::Log1p => kernels::log1p(v),
                Func::Log2 => kernels::log2(v),
                Func::Tanh => kernels::tanh(v),
                Func::Sigmoid => kernels::sigmoid(v),
                Func::Erf => kernels::erf(v),
                Func::Sin => kernels::sincos::<_, false>(v),
                Func::Cos => kernels::sincos::<_, true>(v),
                Func::Sqrt => kernels::sqrt(v),
                Func::Rsqrt => kernels::rsqrt(v),
                Func::GeluTanh => kernels::gelu_tanh(v),
                Func::GeluErf => kernels::gelu_erf(v),
            };
            let mut out = 0f64;
            y.store(&mut out);
            out
        }
    }
    let same32 = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    let same64 = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    for func in Func::ALL {
        let x32 = f32_inputs(func);
        let x64 = f64_inputs(func);
        let mut base32 = vec![0f32; x32.len()];
        let mut base64 = vec![0f64; x64.len()];
        map_f32_at(Level::Baseline, func, &x32, &mut base32);
        map_f64_at(Level::Baseline, func, &x64, &mut base64);
        for (i, &x) in x32.iter().enumerate().step_by(7) {
            let l = lane32(func, x);
            assert!(
                same32(l, base32[i]),
                "{func:?} f32 at {x:e}: lane {l:e}, baseline {:e}",
                base32[i]
            );
        }
        for (i, &x) in x64.iter().enumerate().step_by(7) {
            let l = lane64(func, x);
            assert!(
                same64(l, base64[i]),
                "{func:?} f64 at {x:e}: lane {l:e}, baseline {:e}",
                base64[i]
            );
        }
        if Level::Avx512.is_supported() {
            let (mut a, mut b) = (vec![0f32; x32.len()], vec![0f32; x32.len()]);
            map_f32_at(Level::Avx2, func, &x32, &mut a);
            map_f32_at(Level::Avx512, func, &x32, &mut b);
            for i in 0..x32.len() {
                assert!(
                    same32(a[i], b[i]),
                    "{func:?} f32 at {:e}: avx2 {:e}, avx512 {:e}",
                    x32[i],
                    a[i],
                    b[i]
                );
            }
            let (mut a, mut b) = (vec![0f64; x64.len()], vec![0f64; x64.len()]);
            map_f64_at(Level::Avx2, func, &x64, &mut a);
            map_f64_at(Level::Avx512, func, &x64, &mut b);
            for i in 0..x64.len() {
                assert!(
                    same64(a[i], b[i]),
                    "{func:?} f64 at {:e}: avx2 {:e}, avx512 {:e}",
                    x64[i],
                    a[i],
                    b[i]
                );
            }
        }
    }
}

/// The in-place forms and every tail length give what the out-of-place form gives.
#[test]
fn inplace_and_tails() {
    let src: Vec<f32> = (0..53).map(|i| i as f32 * 0.37 - 9.0).collect();
    let src64: Vec<f64> = src.iter().map(|&x| x as f64).collect();
    for level in levels() {
        for n in 0..src.len() {
            let mut out = vec![0f32; n];
            map_f32_at(level, Func::Tanh, &src[..n], &mut out);
            let mut inplace = src[..n].to_vec();
            map_f32_inplace_at(level, Func::Tanh, &mut inplace);
            assert_eq!(out, inplace);
            for (i, &x) in src[..n].iter().enumerate() {
                assert!(
                    (out[i] as f64 - (x as f64).tanh()).abs() <= 3.0 * ulp32((x as f64).tanh())
                );
            }
            let mut out64 = vec![0f64; n];
            map_f64_at(level, Func::Exp, &src64[..n], &mut out64);
            let mut in64 = src64[..n].to_vec();
            map_f64_inplace_at(level, Func::Exp, &mut in64);
            assert_eq!(out64, in64);
        }
    }
    let mut x = [1.0f32, 0.0];
    exp_f32_inplace(&mut x);
    assert_eq!(x, [std::f32::consts::E, 1.0]);
}

#[test]
fn dispatch_env_values() {
    let best = detected_level();
    assert_eq!(level_for_env(None), best);
    assert_eq!(level_for_env(Some("")), best);
    assert_eq!(level_for_env(Some("bogus")), best);
    assert_eq!(level_for_env(Some("baseline")), Level::Baseline);
    assert_eq!(level_for_env(Some("BASELINE")), Level::Baseline);
    // Asking for more than the CPU has gives the best it has.
    assert_eq!(level_for_env(Some("avx512")), best);
    assert_eq!(level_for_env(Some("avx2")), Level::Avx2.min(best));
    assert!(["baseline", "avx2", "avx512"].contains(&cpu_level()));
    assert!(level().is_supported());
    let _ = <f32 as Real>::MANT;
}
