//! src/core/ops/special.rs: scalar special functions for the elementwise ops that std lacks —
//! `erf`/`erfc` (scalar forms), `erfinv`, `lgamma`, `digamma` — in f64 (float32 ops compute in
//! f64 and round; torch's CPU kernels are within float32's tolerance of these).
//!
//! The algorithms: erf by its Maclaurin series below |x| = 2.5 and by the continued fraction of
//! erfc above (Lentz's method, ~1e-16 relative); erfinv by Giles' single-precision polynomial
//! ("Approximating the erfinv function", GPU Gems 4, 2011) refined with two Newton steps on erf;
//! lgamma by Lanczos (g = 7, 9 terms; ~1e-15) with the reflection formula below 0.5; digamma
//! by recurrence up to 10, then the asymptotic series, with reflection below 0.

use std::f64::consts::PI;

const FRAC_2_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI;

/// erfc(x) for x >= 2.5 (continued fraction, modified Lentz).
fn erfc_cf(x: f64) -> f64 {
    // erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + 1/2/(x + 1/(x + 3/2/(x + 2/(x + ...)))))
    let tiny = 1e-300;
    let mut f = x;
    let mut c = x;
    let mut d = 0.0;
    for n in 1..200 {
        let a = n as f64 / 2.0;
        d = x + a * d;
        if d.abs() < tiny {
            d = tiny;
        }
        c = x + a / c;
        if c.abs() < tiny {
            c = tiny;
        }
        d = 1.0 / d;
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    (-x * x).exp() / (f * PI.sqrt())
}

/// erf(x) by the Maclaurin series (|x| < 2.5).
fn erf_series(x: f64) -> f64 {
    // erf(x) = 2/sqrt(pi) * sum_n (-1)^n x^(2n+1) / (n! (2n+1))
    let x2 = x * x;
    let mut term = x;
    let mut sum = x;
    for n in 1..200 {
        term *= -x2 / n as f64;
        let add = term / (2 * n + 1) as f64;
        sum += add;
        if add.abs() < 1e-17 * sum.abs() {
            break;
        }
    }
    FRAC_2_SQRT_PI * sum
}

/// The error function.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.abs() < 2.5 {
        erf_series(x)
    } else if x > 0.0 {
        1.0 - erfc_cf(x)
    } else {
        erfc_cf(-x) - 1.0
    }
}

/// The complementary error function `1 - erf(x)`, accurate where it is tiny.
pub fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x >= 2.5 {
        if x > 27.3 {
            return 0.0;
        }
        erfc_cf(x)
    } else if x <= -2.5 {
        // erfc(-x) < 1e-300 below -27.3 (and the continued fraction would divide inf by inf
        // at -inf): 2, as torch.
        if x < -27.3 {
            return 2.0;
        }
        2.0 - erfc_cf(-x)
    } else {
        // |x| < 2.5: erfc >= 4e-4, so the cancellation costs at most ~4 digits.
        1.0 - erf_series(x)
    }
}

/// The inverse error function: NaN outside [-1, 1], ±inf at ±1.
pub fn erfinv(y: f64) -> f64 {
    if y.is_nan() || !(-1.0..=1.0).contains(&y) {
        return f64::NAN;
    }
    if y == 1.0 {
        return f64::INFINITY;
    }
    if y == -1.0 {
        return f64::NEG_INFINITY;
    }
    if y == 0.0 {
        return y;
    }
    // Giles' single-precision approximation as the start.
    let mut w = -((1.0 - y) * (1.0 + y)).ln();
    let mut x = if w < 5.0 {
        w -= 2.5;
        let mut p = 2.810_226_36e-08;
        p = 3.432_739_39e-07 + p * w;
        p = -3.523_387_7e-06 + p * w;
        p = -4.391_506_54e-06 + p * w;
        p = 0.000_218_580_87 + p * w;
        p = -0.001_253_725_03 + p * w;
        p = -0.004_177_681_64 + p * w;
        p = 0.246_640_727 + p * w;
        p = 1.501_409_41 + p * w;
        p * y
    } else {
        w = w.sqrt() - 3.0;
        let mut p = -0.000_200_214_257;
        p = 0.000_100_950_558 + p * w;
        p = 0.001_349_343_22 + p * w;
        p = -0.003_673_428_44 + p * w;
        p = 0.005_739_507_73 + p * w;
        p = -0.007_622_461_3 + p * w;
        p = 0.009_438_870_47 + p * w;
        p = 1.001_674_06 + p * w;
        p = 2.832_976_82 + p * w;
        p * y
    };
    // Newton on erf(x) - y (f' = 2/sqrt(pi) exp(-x^2)); near |y| = 1 use erfc to keep digits.
    for _ in 0..3 {
        let err = if y.abs() > 0.9 {
            let s = y.signum();
            // erf(x) - y = (1 - y s) s - erfc(x s) s
            s * ((1.0 - y * s) - erfc(x * s))
        } else {
            erf(x) - y
        };
        let d = FRAC_2_SQRT_PI * (-x * x).exp();
        if d == 0.0 || !d.is_finite() {
            break;
        }
        x -= err / d;
    }
    x
}

const LANCZOS_G: f64 = 7.0;
const LANCZOS: [f64; 9] = [
    0.999_999_999_999_809_9,
    676.520_368_121_885_1,
    -1_259.139_216_722_402_8,
    771.323_428_777_653_1,
    -176.615_029_162_140_6,
    12.507_343_278_686_905,
    -0.138_571_095_265_720_12,
    9.984_369_578_019_572e-6,
    1.505_632_735_149_311_6e-7,
];

/// log|Γ(x)|: inf at 0 and the negative integers.
pub fn lgamma(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() {
        return f64::INFINITY;
    }
    if x <= 0.0 && x == x.floor() {
        return f64::INFINITY;
    }
    if x == 1.0 || x == 2.0 {
        return 0.0;
    }
    if x < 0.5 {
        // Γ(x)Γ(1-x) = π / sin(πx)
        let s = (PI * x).sin().abs();
        return PI.ln() - s.ln() - lgamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = LANCZOS[0];
    let t = x + LANCZOS_G + 0.5;
    for (i, &c) in LANCZOS.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// ψ(x), the logarithmic derivative of Γ: -inf at 0 (torch's choice), NaN at the negative
/// integers.
pub fn digamma(x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if x == f64::INFINITY {
        return x;
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
    }
    if x < 0.0 {
        if x == x.floor() {
            return f64::NAN;
        }
        // ψ(1 - x) - ψ(x) = π cot(πx)
        return digamma(1.0 - x) - PI / (PI * x).tan();
    }
    let mut r = 0.0;
    let mut x = x;
    while x < 10.0 {
        r -= 1.0 / x;
        x += 1.0;
    }
    let f = 1.0 / (x * x);
    let t = f
        * (-1.0 / 12.0
            + f * (1.0 / 120.0
                + f * (-1.0 / 252.0
                    + f * (1.0 / 240.0 + f * (-1.0 / 132.0 + f * (691.0 / 32760.0))))));
    r + x.ln() - 0.5 / x + t
}

/// The modified Bessel function of the first kind of order 0, `sum_k ((x/2)^k / k!)^2` (all
/// terms positive, so the sum is accurate to a few ulps; it overflows to inf near |x| = 713, as
/// the function does). Mirrors `torch.i0` (`torch.special.i0`).
pub fn i0(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() {
        // torch's Cephes form, exp(x) * chbevl(32 / x - 2, ...) / sqrt(x), is inf * 0 there.
        return f64::NAN;
    }
    let h = x.abs() / 2.0;
    let (mut term, mut sum, mut k) = (1.0f64, 1.0f64, 1.0f64);
    loop {
        term *= (h / k) * (h / k);
        sum += term;
        if term <= sum * 1e-17 || !sum.is_finite() {
            return sum;
        }
        k += 1.0;
    }
}

// ----- torch.special additions (issue 13, part 3c) -------------------------------------------

/// The scaled complementary error function `exp(x²) erfc(x)`: the continued fraction without
/// its `exp(-x²)` factor above 2.5 (no underflow), `2 exp(x²) - erfcx(-x)` below 0 (inf once
/// `exp(x²)` overflows). ~1e-15 relative above 2.5, ~1e-12 in [-2.5, 2.5].
pub fn erfcx(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x >= 2.5 {
        if x > 1e8 {
            // The continued fraction's first term: 1/(x sqrt(pi)).
            return 1.0 / (x * PI.sqrt());
        }
        // erfc_cf(x) = exp(-x²) g(x); g(x) = erfc_cf(x) * exp(x²) computed without the factor.
        return erfc_cf_scaled(x);
    }
    if x < 0.0 {
        let e = (x * x).exp();
        if e.is_infinite() {
            return f64::INFINITY;
        }
        return 2.0 * e - erfcx(-x);
    }
    (x * x).exp() * erfc(x)
}

/// `exp(x²) erfc(x)` for x >= 2.5 (erfc_cf without its Gaussian factor).
fn erfc_cf_scaled(x: f64) -> f64 {
    let tiny = 1e-300;
    let mut f = x;
    let mut c = x;
    let mut d = 0.0;
    for n in 1..200 {
        let a = n as f64 / 2.0;
        d = x + a * d;
        if d.abs() < tiny {
            d = tiny;
        }
        c = x + a / c;
        if c.abs() < tiny {
            c = tiny;
        }
        d = 1.0 / d;
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    1.0 / (f * PI.sqrt())
}

/// The standard normal CDF `(1 + erf(x/√2)) / 2`, as `erfc(-x/√2) / 2` (accurate in the left
/// tail).
pub fn ndtr(x: f64) -> f64 {
    if x.is_infinite() {
        // `erfc(-inf)` is NaN in this file's continued fraction; the limits are exact.
        return if x > 0.0 { 1.0 } else { 0.0 };
    }
    0.5 * erfc(-x * std::f64::consts::FRAC_1_SQRT_2)
}

/// `log(ndtr(x))`, accurate in both tails: `log(erfcx(-x/√2)/2) - x²/2` below 0 and
/// `log1p(-erfc(x/√2)/2)` above.
pub fn log_ndtr(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let t = x * std::f64::consts::FRAC_1_SQRT_2;
    if x < 0.0 {
        (0.5 * erfcx(-t)).ln() - t * t
    } else {
        (-0.5 * erfc(t)).ln_1p()
    }
}

/// The inverse of `ndtr` (the standard normal quantile): NaN outside [0, 1], ∓inf at 0 and 1.
/// Acklam's rational approximation (1.15e-9 relative) refined by one Halley step on `ndtr`
/// (~1e-15).
pub fn ndtri(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    const A: [f64; 6] = [
        -3.969683028665376e+01,
        2.209460984245205e+02,
        -2.759285104469687e+02,
        1.383_577_518_672_69e2,
        -3.066479806614716e+01,
        2.506628277459239e+00,
    ];
    const B: [f64; 5] = [
        -5.447609879822406e+01,
        1.615858368580409e+02,
        -1.556989798598866e+02,
        6.680131188771972e+01,
        -1.328068155288572e+01,
    ];
    const C: [f64; 6] = [
        -7.784894002430293e-03,
        -3.223964580411365e-01,
        -2.400758277161838e+00,
        -2.549732539343734e+00,
        4.374664141464968e+00,
        2.938163982698783e+00,
    ];
    const D: [f64; 4] = [
        7.784695709041462e-03,
        3.224671290700398e-01,
        2.445134137142996e+00,
        3.754408661907416e+00,
    ];
    let plow = 0.02425;
    let x = if p < plow {
        let q = (-2.0 * p.ln()).sqrt();
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    } else if p <= 1.0 - plow {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        let q = (-2.0 * (-p).ln_1p()).sqrt();
        -(((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    // Halley's step on ndtr(x) - p (on the complement in the right tail, where p is near 1).
    let e = if p < 0.5 {
        ndtr(x) - p
    } else {
        (1.0 - p) - ndtr(-x)
    };
    let u = e * (2.0 * PI).sqrt() * (x * x / 2.0).exp();
    x - u / (1.0 + x * u / 2.0)
}

/// `I_nu(|x|) e^{-|x|}` for nu = 0 or 1 (the scaled modified Bessel function of the first kind):
/// the power series (positive terms, no cancellation) below 30, the asymptotic expansion above
/// (terms taken while they shrink; ~1e-16 relative at 30).
fn bessel_i_scaled(nu: u32, x: f64) -> f64 {
    let ax = x.abs();
    if ax <= 30.0 {
        let q = ax * ax / 4.0;
        let mut term = if nu == 0 { 1.0 } else { ax / 2.0 };
        let mut sum = term;
        for k in 1..500 {
            term *= q / (k as f64 * (k + nu) as f64);
            sum += term;
            if term < sum * 1e-17 {
                break;
            }
        }
        return sum * (-ax).exp();
    }
    let mu = 4.0 * (nu * nu) as f64;
    let mut term = 1.0;
    let mut sum = 1.0;
    for k in 1..100 {
        let odd = (2 * k - 1) as f64;
        let next = -term * (mu - odd * odd) / (k as f64 * 8.0 * ax);
        if next.abs() >= term.abs() {
            break;
        }
        term = next;
        sum += term;
        if term.abs() < sum.abs() * 1e-17 {
            break;
        }
    }
    sum / (2.0 * PI * ax).sqrt()
}

/// The exponentially scaled modified Bessel function of the first kind of order 0,
/// `i0(x) e^{-|x|}` (even).
pub fn i0e(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() {
        return 0.0;
    }
    bessel_i_scaled(0, x)
}

/// The modified Bessel function of the first kind of order 1 (odd; ±inf once it overflows).
pub fn i1(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() {
        // torch's Cephes form, exp(|x|) * chbevl(32 / |x| - 2, ...) / sqrt(|x|), is inf * 0
        // there (as for i0): NaN.
        return f64::NAN;
    }
    if x.abs() > 713.0 {
        return if x > 0.0 {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
    }
    let v = bessel_i_scaled(1, x) * x.abs().exp();
    if x < 0.0 {
        -v
    } else {
        v
    }
}

/// The exponentially scaled modified Bessel function of the first kind of order 1,
/// `i1(x) e^{-|x|}` (odd).
pub fn i1e(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() {
        return 0.0f64.copysign(x);
    }
    let v = bessel_i_scaled(1, x);
    if x < 0.0 {
        -v
    } else {
        v
    }
}

/// The elementwise entropy `-x ln x` (0 at 0, -inf below 0, NaN for NaN).
pub fn entr(x: f64) -> f64 {
    if x.is_nan() {
        x
    } else if x > 0.0 {
        -x * x.ln()
    } else if x == 0.0 {
        0.0
    } else {
        f64::NEG_INFINITY
    }
}

/// `x * log1p(y)`, 0 where `x` is 0 and `y` is not NaN (torch's `xlog1py`).
pub fn xlog1py(x: f64, y: f64) -> f64 {
    if y.is_nan() {
        return f64::NAN;
    }
    if x == 0.0 {
        return 0.0;
    }
    x * y.ln_1p()
}

/// The Hurwitz zeta function `sum_k (k + q)^(-x)` (Cephes `zeta`, as torch's: Euler–Maclaurin
/// summation with 12 Bernoulli terms, ~1e-16 relative). inf at x = 1, NaN for x < 1, inf at the
/// non-positive integers q, NaN for q ≤ 0 with a non-integer x.
pub fn zeta(x: f64, q: f64) -> f64 {
    const A: [f64; 12] = [
        12.0,
        -720.0,
        30240.0,
        -1209600.0,
        47900160.0,
        -1892437580.3183792,
        7.47242496e10,
        -2950130727918.164,
        116467828143500.67,
        -4597978722407473.0,
        1.8152105401943546e17,
        -7.166165256175667e18,
    ];
    let machep = f64::EPSILON / 2.0;
    if x == 1.0 {
        return f64::INFINITY;
    }
    if x < 1.0 {
        return f64::NAN;
    }
    if q <= 0.0 {
        if q == q.floor() {
            return f64::INFINITY;
        }
        if x != x.floor() {
            return f64::NAN;
        }
    }
    let mut s = q.powf(-x);
    let mut a = q;
    let mut i = 0;
    let mut b = 0.0;
    while i < 9 || a <= 9.0 {
        i += 1;
        a += 1.0;
        b = a.powf(-x);
        s += b;
        if (b / s).abs() < machep {
            return s;
        }
    }
    let w = a;
    s += b * w / (x - 1.0);
    s -= 0.5 * b;
    let mut a = 1.0;
    let mut k = 0.0;
    for coef in A {
        a *= x + k;
        b /= w;
        let t = a * b / coef;
        s += t;
        if (t / s).abs() < machep {
            return s;
        }
        k += 1.0;
        a *= x + k;
        b /= w;
        k += 1.0;
    }
    s
}

/// The regularized lower incomplete gamma function `P(a, x) = γ(a, x) / Γ(a)` (torch's
/// `igamma` / `special.gammainc`), with torch's (Cephes') special cases: NaN for `a < 0`,
/// `x < 0` or a NaN; `a == 0`: 1 for `x > 0`, NaN for `x == 0`; `x == 0`: 0; `a == inf`: 0
/// (NaN when `x` is inf too); `x == inf`: 1. Otherwise the power series for `x < a + 1` and
/// `1 - Q` from the continued fraction beyond (Numerical Recipes' `gser` / `gcf`, prefactor
/// `exp(a ln x - x - lgamma(a))`).
pub fn igamma(a: f64, x: f64) -> f64 {
    // torch's order of special cases (Cephes' `calc_igamma`): a NaN only counts after them, so
    // `igamma(inf, nan)` is 0.0 and `igamma(nan, inf)` is 1.0, as torch.
    if x < 0.0 || a < 0.0 {
        return f64::NAN;
    }
    if a == 0.0 {
        return if x > 0.0 { 1.0 } else { f64::NAN };
    }
    if x == 0.0 {
        return 0.0;
    }
    if a.is_infinite() {
        return if x.is_infinite() { f64::NAN } else { 0.0 };
    }
    if x.is_infinite() {
        return 1.0;
    }
    if a.is_nan() || x.is_nan() {
        return f64::NAN;
    }
    if a > TEMME_MIN_A {
        return 1.0 - igammac_temme(a, x);
    }
    if x < a + 1.0 {
        igamma_series(a, x)
    } else {
        1.0 - igammac_cf(a, x)
    }
}

/// The regularized upper incomplete gamma function `Q(a, x) = 1 - P(a, x)` (torch's `igammac`
/// / `special.gammaincc`), with torch's special cases (see [`igamma`]; `a == 0`, `x > 0`: 0;
/// `x == 0`: 1; `a == inf`: 1; `x == inf`: 0).
pub fn igammac(a: f64, x: f64) -> f64 {
    // torch's order of special cases (Cephes' `calc_igammac`): a NaN only counts after them, so
    // `igammac(inf, nan)` is 1.0 and `igammac(nan, inf)` is 0.0, as torch.
    if x < 0.0 || a < 0.0 {
        return f64::NAN;
    }
    if a == 0.0 {
        return if x > 0.0 { 0.0 } else { f64::NAN };
    }
    if x == 0.0 {
        return 1.0;
    }
    if a.is_infinite() {
        return if x.is_infinite() { f64::NAN } else { 1.0 };
    }
    if x.is_infinite() {
        return 0.0;
    }
    if a.is_nan() || x.is_nan() {
        return f64::NAN;
    }
    if a > TEMME_MIN_A {
        return igammac_temme(a, x);
    }
    if x < a + 1.0 {
        1.0 - igamma_series(a, x)
    } else {
        igammac_cf(a, x)
    }
}

/// Above this `a` the series and the fraction lose their prefactor to cancellation (and need
/// O(sqrt(a)) terms): Temme's uniform asymptotic expansion takes over (Cephes does the same
/// above a = 200 near x = a).
const TEMME_MIN_A: f64 = 1e6;

/// Q(a, x) for large `a` by Temme's expansion to its first term:
/// `erfc(eta sqrt(a / 2)) / 2 + exp(-a eta^2 / 2) / sqrt(2 pi a) * C0(eta)`, with
/// `eta = sign(x/a - 1) sqrt(2 (x/a - 1 - ln(x/a)))` and `C0 = 1/mu - 1/eta` (`mu = x/a - 1`;
/// its Taylor series `-1/3 + eta/12 - 2 eta^2/135` near 0). Relative error O(a^-3/2).
fn igammac_temme(a: f64, x: f64) -> f64 {
    let mu = x / a - 1.0;
    // mu - ln(1 + mu) without cancellation near 0.
    let d = if mu.abs() < 1e-3 {
        mu * mu * (0.5 - mu * (1.0 / 3.0 - mu * (0.25 - mu / 5.0)))
    } else {
        mu - mu.ln_1p()
    };
    let eta = mu.signum() * (2.0 * d).sqrt();
    let c0 = if eta.abs() < 1e-3 {
        -1.0 / 3.0 + eta / 12.0 - 2.0 * eta * eta / 135.0
    } else {
        1.0 / mu - 1.0 / eta
    };
    let z = eta * (a / 2.0).sqrt();
    // x / a - 1 can round to -1 (x far below a): eta and z are then -inf, Q is 1.
    let q0 = if z.is_infinite() {
        if z > 0.0 {
            0.0
        } else {
            1.0
        }
    } else {
        0.5 * erfc(z)
    };
    let r = (-0.5 * a * eta * eta).exp() / (2.0 * std::f64::consts::PI * a).sqrt() * c0;
    (q0 + r).clamp(0.0, 1.0)
}

/// `exp(a ln x - x - lgamma(a))`, the common factor of the series and the fraction.
fn igamma_prefactor(a: f64, x: f64) -> f64 {
    (a * x.ln() - x - lgamma(a)).exp()
}

/// P(a, x) by its power series `x^a e^-x / Γ(a + 1) * sum x^n / ((a + 1) ... (a + n))`.
fn igamma_series(a: f64, x: f64) -> f64 {
    let mut ap = a;
    let mut term = 1.0 / a;
    let mut sum = term;
    for _ in 0..100_000 {
        ap += 1.0;
        term *= x / ap;
        sum += term;
        if term.abs() < sum.abs() * f64::EPSILON {
            break;
        }
    }
    sum * igamma_prefactor(a, x)
}

/// Q(a, x) by its continued fraction (modified Lentz).
fn igammac_cf(a: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let mut b = x + 1.0 - a;
    let mut c = 1.0 / TINY;
    let mut d = 1.0 / b;
    let mut h = d;
    for i in 1..100_000 {
        let an = -(i as f64) * (i as f64 - a);
        b += 2.0;
        d = an * d + b;
        if d.abs() < TINY {
            d = TINY;
        }
        c = b + an / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < f64::EPSILON {
            break;
        }
    }
    igamma_prefactor(a, x) * h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1e-300) || a == b
    }

    // Reference values: mpmath at 30 digits (independent of this code).
    #[test]
    fn erf_and_erfc_match_references() {
        assert!(close(erf(0.5), 0.520_499_877_813_046_5, 1e-15));
        assert!(close(erf(-1.5), -0.966_105_146_475_310_7, 1e-15));
        assert!(close(erf(3.0), 0.999_977_909_503_001_4, 1e-15));
        assert!(close(erfc(5.0), 1.537_459_794_428_034_8e-12, 1e-13));
        assert!(close(erfc(1.0), 0.157_299_207_050_285_13, 1e-12));
        assert!(close(erfc(-1.0), 1.842_700_792_949_715, 1e-15));
        assert!(close(erfc(0.1), 0.887_537_083_981_715, 1e-15));
    }

    #[test]
    fn erfinv_inverts_erf() {
        for &y in &[-0.999_999, -0.9, -0.5, -1e-8, 0.3, 0.7, 0.95, 0.999_999_9] {
            assert!(close(erf(erfinv(y)), y, 1e-13), "{y}");
        }
        assert!(close(erfinv(0.5), 0.476_936_276_204_469_9, 1e-14));
        assert_eq!(erfinv(1.0), f64::INFINITY);
        assert!(erfinv(1.5).is_nan());
    }

    #[test]
    fn lgamma_and_digamma_match_references() {
        assert!(close(lgamma(0.5), 0.572_364_942_924_700_1, 1e-12));
        assert!(close(lgamma(10.0), 12.801_827_480_081_469, 1e-12));
        assert!(close(lgamma(-2.5), -0.056_243_716_497_674_05, 1e-12));
        assert_eq!(lgamma(0.0), f64::INFINITY);
        assert!(close(digamma(1.0), -0.577_215_664_901_532_9, 1e-12));
        assert!(close(digamma(0.5), -1.963_510_026_021_423_5, 1e-12));
        assert!(close(digamma(-0.5), 0.036_489_973_978_576_52, 1e-12));
        assert!(close(digamma(100.0), 4.600_161_852_738_087, 1e-12));
        assert!(digamma(-2.0).is_nan());
        assert_eq!(digamma(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn torch_special_values() {
        // Reference values from torch 2.15's torch.special (float64), but ndtr(-10), where torch
        // gives 0.0: the value is scipy's (erfc keeps the tail).
        let close = |a: f64, b: f64, tol: f64| (a - b).abs() <= tol * b.abs().max(1e-300);
        assert!(close(ndtr(1.0), 0.841344746068543, 1e-14));
        assert!(close(ndtr(-10.0), 7.619853024160527e-24, 1e-12));
        assert!(close(ndtri(0.975), 1.959963984540054, 1e-14));
        assert!(close(ndtri(1e-20), -9.262340089798409, 1e-13));
        assert!(close(log_ndtr(-40.0), -804.6084420137539, 1e-14));
        assert!(close(log_ndtr(3.0), -0.0013508099647481923, 1e-12));
        assert!(close(erfcx(30.0), 0.018795888861416754, 1e-13));
        assert!(close(erfcx(-1.0), 5.008980080762283, 1e-12));
        assert!(close(i0e(1.0), 0.46575960759364043, 1e-14));
        assert!(close(i0e(50.0), 0.056561626647454184, 1e-13));
        assert!(close(i1(1.0), 0.5651591039924851, 1e-14));
        assert!(close(i1e(-40.0), -0.06248222907444206, 1e-13));
        assert!(close(
            zeta(2.0, 1.0),
            std::f64::consts::PI.powi(2) / 6.0,
            1e-15
        ));
        assert!(close(zeta(3.5, 2.5), 0.06517125158965971, 1e-13));
        assert_eq!(entr(0.0), 0.0);
        assert_eq!(xlog1py(0.0, -1.0), 0.0);
    }
}
