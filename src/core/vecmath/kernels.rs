//! src/core/vecmath/kernels.rs: the element functions as vector algorithms, written once over
//! `Simd` and `Real` (f32 and f64 differ only in their constants and polynomial tables).
//!
//! Each algorithm is a range reduction to a small interval, a polynomial fitted for that
//! interval (`coeffs.rs`, from `gen_coeffs.py`) and a reconstruction; the structure follows the
//! published algorithms of Cephes, fdlibm and SLEEF (Cody-Waite reduction with constants split
//! so the products are exact, fdlibm's `f - (hfsq - s*(hfsq + R))` form of `log1p(f)`, a
//! `2^n` scale applied in two factors so subnormal results round once). Special values are
//! handled by lane selects after the main path, never by branches on data. The measured
//! accuracy of each function is stated on its public entry point in `mod.rs`.

use super::coeffs::*;
use super::simd::Simd;

/// The constants that make the algorithms below f32 or f64 ones.
pub(crate) trait Real: Copy + Default + PartialOrd + 'static {
    /// Mantissa bits (23, 52), the exponent bias, `1.5 * 2^MANT` (adding it rounds to an
    /// integer held in the low bits), the lowest normal.
    const MANT: u32;
    const BIAS: u64;
    const MAGIC: Self;
    const MIN_POSITIVE: Self;
    const INFINITY: Self;
    const NAN: Self;
    /// `2^MANT`, to scale a subnormal into the normal range.
    const TWO_MANT: Self;
    const SQRT_HALF_BITS: u64;
    const MANT_MASK: u64;
    /// `ln 2 = LN2_HI + LN2_LO`, `LN2_HI` short enough that `k * LN2_HI` is exact for every
    /// exponent `k`; `1/ln 2` the same way (for `log2`); `1/ln 2` rounded (for `exp`).
    const LN2_HI: Self;
    const LN2_LO: Self;
    const LOG2E: Self;
    const IVLN2_HI: Self;
    const IVLN2_LO: Self;
    /// The mask that keeps the high half of a mantissa (`log2`'s exact product).
    const HI_MASK: u64;
    /// `pi/2 = A + B + C + D`, A..C short enough that `n * A` etc. are exact for `|n| <
    /// 2^(MANT+1-parts' length)`; `2/pi`.
    const PIO2: [Self; 4];
    const TWO_OVER_PI: Self;
    /// `sin`/`cos` of larger magnitudes go to the scalar fallback.
    const TRIG_MAX: Self;
    /// Clamps that keep `exp`'s and `expm1`'s `2^n` in range (the results there are already
    /// 0, -1 or inf), and where `tanh` is ±1.
    const EXP_LO: Self;
    const EXP_HI: Self;
    const EXPM1_LO: Self;
    const EXPM1_HI: Self;
    const TANH_ONE: Self;
    /// Below this magnitude `expm1(x)`, `log1p(x)` round to `x`.
    const TINY: Self;
    /// At or above this magnitude `erf(x)` rounds to ±1; the boundary between `erf`'s two
    /// tail fits (f64 only).
    const ERF_ONE: Self;
    const ERF_SPLIT: Self;
    /// The centres of the tail fits' variables (`x - C1`, `1/x - C2`).
    const ERF_C1: Self;
    const ERF_C2: Self;
    const EXP_P: &'static [Self];
    const LOG_P: &'static [Self];
    const SIN_P: &'static [Self];
    const COS_P: &'static [Self];
    const TANH_P: &'static [Self];
    const ERF_SMALL: &'static [Self];
    const ERF_TAIL1: &'static [Self];
    /// In `1/x`; empty for f32 (whose first tail reaches `ERF_ONE`).
    const ERF_TAIL2: &'static [Self];
    fn of(x: f64) -> Self;
    fn to_bits64(self) -> u64;
    /// The scalar libm `sin`/`cos` for arguments past `TRIG_MAX` (f32 through f64, rounded).
    fn sin_fallback(self) -> Self;
    fn cos_fallback(self) -> Self;
    fn needs_trig_fallback(self) -> bool;
}

// The split constants are written with every digit of their exact (short binary) values.
#[allow(clippy::excessive_precision)]
impl Real for f32 {
    const MANT: u32 = 23;
    const BIAS: u64 = 127;
    const MAGIC: f32 = 12582912.0;
    const MIN_POSITIVE: f32 = f32::MIN_POSITIVE;
    const INFINITY: f32 = f32::INFINITY;
    const NAN: f32 = f32::NAN;
    const TWO_MANT: f32 = 8388608.0;
    const SQRT_HALF_BITS: u64 = 0x3f35_04f3;
    const MANT_MASK: u64 = 0x007f_ffff;
    const LN2_HI: f32 = 0.693_115_234_375;
    const LN2_LO: f32 = 3.194_618_3e-5;
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const IVLN2_HI: f32 = 1.442_871_093_75;
    const IVLN2_LO: f32 = -1.760_528_5e-4;
    const HI_MASK: u64 = 0xffff_f000;
    const PIO2: [f32; 4] = [
        1.570_800_781_25,
        -4.453_584_551_811_218e-6,
        -8.706_138_032_721_356e-10,
        6.223_372e-14,
    ];
    const TWO_OVER_PI: f32 = std::f32::consts::FRAC_2_PI;
    const TRIG_MAX: f32 = 4096.0;
    const EXP_LO: f32 = -104.0;
    const EXP_HI: f32 = 89.0;
    const EXPM1_LO: f32 = -30.0;
    const EXPM1_HI: f32 = 88.8;
    const TANH_ONE: f32 = 9.5;
    const TINY: f32 = 1.0 / 67108864.0;
    const ERF_ONE: f32 = 4.0;
    const ERF_SPLIT: f32 = 4.0;
    const ERF_C1: f32 = 2.5;
    const ERF_C2: f32 = 0.0;
    const EXP_P: &'static [f32] = &EXP_F32;
    const LOG_P: &'static [f32] = &LOG_F32;
    const SIN_P: &'static [f32] = &SIN_F32;
    const COS_P: &'static [f32] = &COS_F32;
    const TANH_P: &'static [f32] = &TANH_F32;
    const ERF_SMALL: &'static [f32] = &ERF_SMALL_F32;
    const ERF_TAIL1: &'static [f32] = &ERF_TAIL1_F32;
    const ERF_TAIL2: &'static [f32] = &[];
    #[inline(always)]
    fn of(x: f64) -> f32 {
        x as f32
    }
    #[inline(always)]
    fn to_bits64(self) -> u64 {
        self.to_bits() as u64
    }
    fn sin_fallback(self) -> f32 {
        (self as f64).sin() as f32
    }
    fn cos_fallback(self) -> f32 {
        (self as f64).cos() as f32
    }
    #[inline(always)]
    fn needs_trig_fallback(self) -> bool {
        self.abs() > Self::TRIG_MAX
    }
}

impl Real for f64 {
    const MANT: u32 = 52;
    const BIAS: u64 = 1023;
    const MAGIC: f64 = 6755399441055744.0;
    const MIN_POSITIVE: f64 = f64::MIN_POSITIVE;
    const INFINITY: f64 = f64::INFINITY;
    const NAN: f64 = f64::NAN;
    const TWO_MANT: f64 = 4503599627370496.0;
    const SQRT_HALF_BITS: u64 = 0x3fe6_a09e_667f_3bcd;
    const MANT_MASK: u64 = 0x000f_ffff_ffff_ffff;
    const LN2_HI: f64 = 0.693_147_180_601_954_5;
    const LN2_LO: f64 = -4.200_915_072_681_084_6e-11;
    const LOG2E: f64 = std::f64::consts::LOG2_E;
    const IVLN2_HI: f64 = 1.442_695_040_721_446_3;
    const IVLN2_LO: f64 = 1.675_171_316_488_651_2e-10;
    const HI_MASK: u64 = 0xffff_ffff_0000_0000;
    const PIO2: [f64; 4] = [
        1.570_796_326_734_125_6,
        6.077_100_506_303_966e-11,
        2.022_266_248_711_166_5e-21,
        8.478_427_660_368_9e-32,
    ];
    const TWO_OVER_PI: f64 = std::f64::consts::FRAC_2_PI;
    const TRIG_MAX: f64 = 262144.0;
    const EXP_LO: f64 = -746.0;
    const EXP_HI: f64 = 710.0;
    const EXPM1_LO: f64 = -40.0;
    const EXPM1_HI: f64 = 709.9;
    const TANH_ONE: f64 = 20.0;
    const TINY: f64 = 1.0 / 36028797018963968.0;
    const ERF_ONE: f64 = 6.0;
    const ERF_SPLIT: f64 = 2.5;
    const ERF_C1: f64 = 1.75;
    const ERF_C2: f64 = 0.283_333_333_333_333_3;
    const EXP_P: &'static [f64] = &EXP_F64;
    const LOG_P: &'static [f64] = &LOG_F64;
    const SIN_P: &'static [f64] = &SIN_F64;
    const COS_P: &'static [f64] = &COS_F64;
    const TANH_P: &'static [f64] = &TANH_F64;
    const ERF_SMALL: &'static [f64] = &ERF_SMALL_F64;
    const ERF_TAIL1: &'static [f64] = &ERF_TAIL1_F64;
    const ERF_TAIL2: &'static [f64] = &ERF_TAIL2_F64;
    #[inline(always)]
    fn of(x: f64) -> f64 {
        x
    }
    #[inline(always)]
    fn to_bits64(self) -> u64 {
        self.to_bits()
    }
    fn sin_fallback(self) -> f64 {
        self.sin()
    }
    fn cos_fallback(self) -> f64 {
        self.cos()
    }
    #[inline(always)]
    fn needs_trig_fallback(self) -> bool {
        self.abs() > Self::TRIG_MAX
    }
}

/// `V::splat` of a constant written as f64.
#[inline(always)]
fn k<V: Simd>(x: f64) -> V
where
    V::E: Real,
{
    V::splat(V::E::of(x))
}

#[inline(always)]
fn kb<V: Simd>(x: V::E) -> V {
    V::splat(x)
}

/// `t - MAGIC` is an integer `n`; returns `n`'s integer lanes (two's complement, low bits).
#[inline(always)]
fn magic_int<V: Simd>(t: V) -> V::I
where
    V::E: Real,
{
    V::isub(t.to_bits(), V::isplat(V::E::MAGIC.to_bits64()))
}

/// `2^n` for integer lanes `n` in the normal exponent range.
#[inline(always)]
fn pow2i<V: Simd>(n: V::I) -> V
where
    V::E: Real,
{
    let e = V::iadd(n, V::isplat(V::E::BIAS));
    V::from_bits(V::shl(e, V::E::MANT))
}

/// `-|x|`.
#[inline(always)]
fn neg_abs<V: Simd>(x: V) -> V
where
    V::E: Real,
{
    V::from_bits(V::ior(x.to_bits(), V::isplat(V::sign_bit())))
}

/// The reduction shared by `exp` and `expm1`: `x = n ln2 + r`, `|r| <= ln2/2` (a little more
/// when unfused), returning `(t, n, r)` with `t - MAGIC = n`.
#[inline(always)]
fn exp_reduce<V: Simd>(x: V) -> (V, V, V)
where
    V::E: Real,
{
    let t = x.mul_add(kb(V::E::LOG2E), kb(V::E::MAGIC));
    let n = t.sub(kb(V::E::MAGIC));
    // `n * LN2_HI` is exact and `x - n * LN2_HI` cancels exactly (Sterbenz), fused or not.
    let r = n.neg_mul_add(kb(V::E::LN2_HI), x);
    let r = n.neg_mul_add(kb(V::E::LN2_LO), r);
    (t, n, r)
}

/// `expm1(r)` for the reduced `r`: `r + r^2 P(r)`.
#[inline(always)]
fn expm1_poly<V: Simd>(r: V) -> V
where
    V::E: Real,
{
    r.mul(r).mul_add(V::poly(r, V::E::EXP_P), r)
}

/// `exp(x)`; NaN stays NaN, overflow gives inf, underflow rounds (once) through the
/// subnormals to 0.
#[inline(always)]
pub(crate) fn exp<V: Simd>(x: V) -> V
where
    V::E: Real,
{
    // `c.max(x)` keeps a NaN `x` (x86 max returns its second operand when unordered).
    let x = kb::<V>(V::E::EXP_LO).max(x);
    let x = kb::<V>(V::E::EXP_HI).min(x);
    let (t, n, r) = exp_reduce(x);
    let y = expm1_poly(r).add(k(1.0));
    // 2^n as 2^n1 * 2^n2 with n1 = round(n/2): each factor normal for every clamped n, and
    // `y * 2^n1` exact, so a subnormal result is rounded once.
    let ni = magic_int::<V>(t);
    let n1 = magic_int::<V>(n.mul_add(k(0.5), kb(V::E::MAGIC)));
    let n2 = V::isub(ni, n1);
    y.mul(pow2i(n1)).mul(pow2i(n2))
}

/// `exp(x) - 1`, accurate near 0; -1 below `EXPM1_LO`, inf past overflow, `x` itself below
/// `TINY` (so ±0 and subnormals are kept).
#[inline(always)]
pub(crate) fn expm1<V: Simd>(x: V) -> V
where
    V::E: Real,
{
    let xc = kb::<V>(V::E::EXPM1_LO).max(x);
    let xc = kb::<V>(V::E::EXPM1_HI).min(xc);
    let (_, n, r) = exp_reduce(xc);
    let q = expm1_poly(r);
    // expm1(x) = 2^n q + (2^n - 1). 2^n with n at most the largest normal exponent; the one
    // larger n (x just below overflow) is scaled once more by 2 afterwards.
    let max_e = V::E::of(V::E::BIAS as f64);
    let nc = kb::<V>(max_e).min(n);
    let two = pow2i::<V>(magic_int::<V>(nc.add(kb(V::E::MAGIC))));
    let y = q.mul_add(two, two.sub(k(1.0)));
    let big = n.gt(kb(max_e));
    let y = V::select(big, q.add(k(1.0)).mul(two).mul(k(2.0)), y);
    V::select(x.abs().lt(kb(V::E::TINY)), x, y)
}

/// `tanh(x)`: `x + x^3 T(x^2)` below 0.625; above, `sign(x) e / (e + 2)` with `e =
/// expm1(2|x|)` (no cancellation); ±1 past `TANH_ONE`. Each branch runs only when some lane
/// needs it.
#[inline(always)]
pub(crate) fn tanh<V: Simd>(x: V) -> V
where
    V::E: Real,
{
    let a = x.abs();
    let small = a.lt(k(0.625));
    let mut y = x;
    if V::mask_any(small) {
        let z = x.mul(x);
        y = x.mul(z).mul_add(V::poly(z, V::E::TANH_P), x);
        // Keep ±0 and tiny inputs (the polynomial would turn -0 into +0).
        y = V::select(a.lt(kb(V::E::TINY)), x, y);
    }
    if V::mask_any(V::mask_or(a.ge(k(0.625)), a.is_nan())) {
        let ac = kb::<V>(V::E::TANH_ONE).min(a);
        let e = expm1(ac.add(ac));
        let big = e.div(e.add(k(2.0)));
        let big = V::from_bits(V::ior(big.to_bits(), x.sign()));
        y = V::select(small, y, big);
    }
    y
}

/// `sigmoid(x) = 1 / (1 + exp(-x))`, computed from `e = exp(-|x|)` as `1/(1+e)` for `x >= 0`
/// and `e/(1+e)` below, so negative inputs keep full relative accuracy down to the
/// subnormals.
#[inline(always)]
pub(crate) fn sigmoid<V: Simd>(x: V) -> V
where
    V::E: Real,
{
    let e = exp(neg_abs(x));
    let num = V::select(x.ge(k(0.0)), k(1.0), e);
    num.div(e.add(k(1.0)))
}

/// Splits a positive `x` into `2^k m`, `m` in `[sqrt(1/2), sqrt 2)`; returns `(k, m - 1)` with
/// `k` as a float. Subnormals are scaled up first. Other inputs give garbage the callers
/// replace.
#[inline(always)]
fn log_reduce<V: Simd>(x: V) -> (V, V)
where
    V::E: Real,
{
    let sub = x.lt(kb(V::E::MIN_POSITIVE));
    let xs = V::select(sub, x.mul(kb(V::E::TWO_MANT)), x);
    let kadj = V::select(sub, k(V::E::MANT as f64), k(0.0));
    let one_bits = V::E::BIAS << V::E::MANT;
    let i = V::iadd(xs.to_bits(), V::isplat(one_bits - V::E::SQRT_HALF_BITS));
    let kbits = V::shr(i, V::E::MANT);
    // The biased exponent is small: adding it to MAGIC's bits makes MAGIC + kbits exactly.
    let kf = V::from_bits(V::iadd(kbits, V::isplat(V::E::MAGIC.to_bits64())))
        .sub(k(1.5 * (1u64 << V::E::MANT) as f64 + V::E::BIAS as f64))
        .sub(kadj);
    let m_bits = V::iadd(
        V::iand(i, V::isplat(V::E::MANT_MASK)),
        V::isplat(V::E::SQRT_HALF_BITS),
    );
    (kf, V::from_bits(m_bits).sub(k(1.0)))
}

/// The pieces of `log(1 + f)` for `|f| < sqrt2 - 1`: `s = f/(2+f)`, `hfsq = f^2/2` and
/// `R = z P(z)` with `z = s^2`, so that `log(1 + f) = f - (hfsq - s (hfsq + R))`.
#[inline(always)]
fn log_parts<V: Simd>(f: V) -> (V, V, V)
where
    V::E: Real,
{
    let s = f.div(f.add(k(2.0)));
    let z = s.mul(s);
    let r = z.mul(V::poly(z, V::E::LOG_P));
    let hfsq = k::<V>(0.5).mul(f).mul(f);
    (s, hfsq, r)
}

/// `k ln2 + log(1 + f) + c`, `c` a small correction.
#[inline(always)]
fn log_combine<V: Simd>(kf: V, f: V, c: V) -> V
where
    V::E: Real,
{
    let (s, hfsq, r) = log_parts(f);
    let lo = s.mul_add(hfsq.add(r), kf.mul_add(kb(V::E::LN2_LO), c));
    kf.mul_add(kb(V::E::LN2_HI), f.sub(hfsq.sub(lo)))
}

/// NaN below 0 (and for NaN), -inf at ±0, inf at inf.
#[inline(always)]
fn log_specials<V: Simd>(x: V, y: V, zero_at: V) -> V
where
    V::E: Real,
{
    let y = V::select(x.ge(zero_at), y, kb(V::E::NAN));
    let y = V::select(
        x.eq(zero_at),
        kb::<V>(V::E::INFINITY).xor_sign(V::isplat(V::sign_bit())),
        y,
    );
    V::select(x.eq(kb(V::E::INFINITY)), x, y)
}

/// `ln(x)`.
#[inline(always)]
pub(crate) fn log<V: Simd>(x: V) -> V
where
    V::E: Real,
{
    let (kf, f) = log_reduce(x);
    let y = log_combine(kf, f, k(0.0));
    log_specials(x, y, k(0.0))
}

/// `log2(x)`: `k + log(1+f)/ln2` with `log(1+f)` split into a short high part, so that its
/// product with `1/ln2`'s high part is exact (fdlibm's `log2`).
#[inline(always)]
pub(crate) fn log2<V: Simd>(x: V) -> V
where
    V::E: Real,
{
    let (kf, f) = log_reduce(x);
    let (s, hfsq, r) = log_parts(f);
    let hi = V::from_bits(V::iand(f.sub(hfsq).to_bits(), V::isplat(V::E::HI_MASK)));
    let lo = s.mul_add(hfsq.add(r), f.sub(hi).sub(hfsq));
    let val_hi = hi.mul(kb(V::E::IVLN2_HI));
    let val_lo = lo.mul_add(kb(V::E::IVLN2_HI), lo.add(hi).mul(kb(V::E::IVLN2_LO)));
    let w = kf.add(val_hi);
    let val_lo = val_lo.add(kf.sub(w).add(val_hi));
    log_specials(x, val_lo.add(w), k(0.0))
}

/// `log(1 + x)`, accurate near 0: `u = 1 + x` is reduced as in `log`, and the rounding error
/// of `u` is added back as `c = (x - (u - 1)) / u` (after fdlibm's `log1p`). `x` itself below
/// `TINY`; -inf at -1, NaN below.
#[inline(always)]
pub(crate) fn log1p<V: Simd>(x: V) -> V
where
    V::E: Real,
{
    let one = k::<V>(1.0);
    let u = x.add(one);
    let (kf, f) = log_reduce(u);
    // The rounding error of `u` by Fast2Sum, the larger operand first: exact.
    let c = V::select(x.gt(one), one.sub(u.sub(x)), x.sub(u.sub(one))).div(u);
    let y = log_combine(kf, f, c);
    let y = log_specials(x, y, k(-1.0));
    V::select(x.abs().lt(kb(V::E::TINY)), x, y)
}

/// `erfc(a)` for `a >= 1` (or NaN): `exp(-a^2) Q(a)` with `Q` fitting `erfc(a) exp(a^2)` (in
/// `a`, and for f64 past `ERF_SPLIT` in `1/a`); 0 from `ERF_ONE` on.
#[inline(always)]
fn erfc_tail<V: Simd>(a: V) -> V
where
    V::E: Real,
{
    let ac = kb::<V>(V::E::ERF_ONE).min(a);
    let mut q = V::poly(ac.sub(kb(V::E::ERF_C1)), V::E::ERF_TAIL1);
    if !V::E::ERF_TAIL2.is_empty() {
        let far = ac.ge(kb(V::E::ERF_SPLIT));
        if V::mask_any(far) {
            let t = k::<V>(1.0).div(ac).sub(kb(V::E::ERF_C2));
            q = V::select(far, V::poly(t, V::E::ERF_TAIL2), q);
        }
    }
    let e = exp(ac.mul(neg_abs(ac)));
    V::select(a.ge(kb(V::E::ERF_ONE)), k(0.0), e.mul(q))
}

/// `erf(x)`: `x + x E(x^2)` below 1 (`E = erf(x)/x - 1`, small); above, `1 - erfc(|x|)` with
/// the sign of `x`. Each branch runs only when some lane needs it.
#[inline(always)]
pub(crate) fn erf<V: Simd>(x: V) -> V
where
    V::E: Real,
{
    let a = x.abs();
    let small = a.lt(k(1.0));
    let mut y = x;
    if V::mask_any(small) {
        y = x.mul_add(V::poly(x.mul(x), V::E::ERF_SMALL), x);
    }
    if V::mask_any(V::mask_or(a.ge(k(1.0)), a.is_nan())) {
        let big = k::<V>(1.0).sub(erfc_tail(a));
        let big = V::from_bits(V::ior(big.to_bits(), x.sign()));
        y = V::select(small, y, big);
    }
    y
}

/// `sin(x)` (`COS = false`) or `cos(x)` (`COS = true`): `x = n pi/2 + r` by a four-part
/// Cody-Waite reduction, `|r| <= pi/4`, then the sine or cosine polynomial by the quadrant.
/// Lanes with `|x| > TRIG_MAX` (and ±inf) are recomputed by the scalar libm.
#[inline(always)]
pub(crate) fn sincos<V: Simd, const COS: bool>(x: V) -> V
where
    V::E: Real,
{
    let t = x.mul_add(kb(V::E::TWO_OVER_PI), kb(V::E::MAGIC));
    let n = t.sub(kb(V::E::MAGIC));
    let [pa, pb, pc, pd] = V::E::PIO2;
    // `x - n A` and `n B` are exact; their difference is kept as a sum `hi + lo` (2Sum), so
    // that `r` is rounded once at the end.
    let r1 = n.neg_mul_add(kb(pa), x);
    let p = n.mul(kb(pb));
    let hi = r1.sub(p);
    let bb = hi.sub(r1);
    let lo = r1.sub(hi.sub(bb)).sub(p.add(bb));
    let lo = n.neg_mul_add(kb(pc), lo);
    let lo = n.neg_mul_add(kb(pd), lo);
    let r = hi.add(lo);
    let mut q = magic_int::<V>(t);
    if COS {
        q = V::iadd(q, V::isplat(1));
    }
    let z = r.mul(r);
    let s = r.mul(z).mul_add(V::poly(z, V::E::SIN_P), r);
    // cos r = 1 - z/2 + z^2 C(z), with the rounding error of 1 - z/2 added back.
    let hz = k::<V>(0.5).mul(z);
    let w = k::<V>(1.0).sub(hz);
    let c = w.add(
        k::<V>(1.0)
            .sub(w)
            .sub(hz)
            .add(z.mul(z).mul(V::poly(z, V::E::COS_P))),
    );
    let y = V::select(V::itest(q, V::isplat(1)), c, s);
    let y = y.xor_sign(V::shl(V::iand(q, V::isplat(2)), size_bits::<V>() - 2));
    // sin keeps ±0 and tiny inputs (the polynomial would turn -0 into +0).
    let y = if COS {
        y
    } else {
        V::select(x.abs().lt(kb(V::E::TINY)), x, y)
    };
    let big = x.abs().gt(kb(V::E::TRIG_MAX));
    if V::mask_any(big) {
        return trig_fallback::<V, COS>(x, y);
    }
    y
}

/// Bits in a lane.
#[inline(always)]
fn size_bits<V: Simd>() -> u32 {
    (size_of::<V::E>() * 8) as u32
}

#[cold]
#[inline(never)]
fn trig_fallback<V: Simd, const COS: bool>(x: V, y: V) -> V
where
    V::E: Real,
{
    let mut xs = [V::E::default(); 16];
    let mut ys = [V::E::default(); 16];
    // SAFETY: no vector has more than 16 lanes, so both arrays hold `LANES` elements.
    unsafe {
        x.store(xs.as_mut_ptr());
        y.store(ys.as_mut_ptr());
    }
    for i in 0..V::LANES {
        if xs[i].needs_trig_fallback() {
            ys[i] = if COS {
                xs[i].cos_fallback()
            } else {
                xs[i].sin_fallback()
            };
        }
    }
    // SAFETY: as above.
    unsafe { V::load(ys.as_ptr()) }
}

/// `sqrt(x)`, correctly rounded (the instruction).
#[inline(always)]
pub(crate) fn sqrt<V: Simd>(x: V) -> V {
    x.sqrt()
}

/// `1 / sqrt(x)`, two correctly rounded steps (as torch computes it): inf at +0, -inf at -0.
#[inline(always)]
pub(crate) fn rsqrt<V: Simd>(x: V) -> V
where
    V::E: Real,
{
    k::<V>(1.0).div(x.sqrt())
}

/// gelu's tanh form `x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`, computed as the equal
/// `x sigmoid(2u)` (no cancellation for negative `x`); 0 with `x`'s sign at -inf.
#[inline(always)]
pub(crate) fn gelu_tanh<V: Simd>(x: V) -> V
where
    V::E: Real,
{
    const K0: f64 = 0.797_884_560_802_865_4; // sqrt(2/pi)
    let x2 = x.mul(x);
    let u2 = x.mul(x2.mul_add(k(2.0 * K0 * 0.044715), k(2.0 * K0)));
    let y = x.mul(sigmoid(u2));
    // -inf * sigmoid(-inf) = -inf * 0: the limit is -0.
    V::select(
        x.eq(kb::<V>(V::E::INFINITY).xor_sign(V::isplat(V::sign_bit()))),
        k(-0.0),
        y,
    )
}

/// gelu's erf form `x/2 (1 + erf(x / sqrt 2))`, with `1 + erf(z)` taken as `erfc(-z)` below
/// `z = -1` (no cancellation); -0 where `erfc` underflows its fit (`x < -ERF_ONE sqrt 2`, the
/// true value is below `2^-23` resp. `2^-52` there, and torch's formula gives -0 too).
#[inline(always)]
pub(crate) fn gelu_erf<V: Simd>(x: V) -> V
where
    V::E: Real,
{
    let z = x.mul(k(std::f64::consts::FRAC_1_SQRT_2));
    let mut one_plus = erf(z).add(k(1.0));
    let neg = z.lt(k(-1.0));
    if V::mask_any(neg) {
        one_plus = V::select(neg, erfc_tail(z.abs()), one_plus);
    }
    let y = k::<V>(0.5).mul(x).mul(one_plus);
    V::select(
        x.eq(kb::<V>(V::E::INFINITY).xor_sign(V::isplat(V::sign_bit()))),
        k(-0.0),
        y,
    )
}
