//! src/core/ops/polynomial.rs: torch.special's orthogonal polynomials — Chebyshev (T, U, V, W
//! and their shifted forms), physicists' and probabilists' Hermite, Laguerre and Legendre —
//! each `(input, n)` broadcast in the promoted float dtype (PyTorch: `native/Math.h`'s
//! `*_polynomial_*_forward`).
//!
//! The recurrences run in the element type itself (float32 for float32, as torch's CPU kernel
//! does), so large degrees round the way torch's do; the closed trigonometric forms torch
//! switches to for large `n` inside (-1, 1) are evaluated through f64's libm. `n` is truncated
//! to an integer as C++'s `static_cast<int64_t>` does on x86-64: NaN, infinities and values
//! outside int64's range become `i64::MIN` (a negative degree: the result is 0).

use super::binary::float_binary_plan_dyn;
use super::nn::Float;
use super::plan::{Kernel, Plan};
use crate::core::error::Result;
use crate::core::tensor::Tensor;

/// `static_cast<int64_t>(n)` as x86-64's `cvttsd2si` computes it (the "integer indefinite"
/// value for NaN and out-of-range inputs).
fn degree(n: f64) -> i64 {
    // 2^63, exact in f64: int64's range is [-2^63, 2^63).
    const TWO_63: f64 = (1u64 << 63) as f64;
    if n.is_nan() || !(-TWO_63..TWO_63).contains(&n) {
        i64::MIN
    } else {
        n as i64
    }
}

/// An interrupt checkpoint every 2^16 steps of a recurrence: torch loops `n` times too, so a
/// huge degree takes as long, but Ctrl-C stops it here.
#[inline(always)]
fn checkpoint(k: i64) {
    if k & 0xffff == 0 {
        crate::core::interrupt::checkpoint();
    }
}

/// `T(k)` for an integer `k` (torch's implicit int64 -> T conversions).
fn t<T: Float>(k: i64) -> T {
    T::of(k as f64)
}

fn acos<T: Float>(x: T) -> f64 {
    x.f64().acos()
}

/// The three-term recurrence `r = a * q - p` from `p0 = 1`, `q = q1`, up to degree `n`
/// (stopping early at a NaN), shared by the Chebyshev kinds.
fn chebyshev_recurrence<T: Float>(a: T, q1: T, n: i64) -> T {
    let mut p = T::ONE;
    let mut q = q1;
    let mut r = q1;
    let mut k = 2;
    while k <= n && !q.is_nan() {
        checkpoint(k);
        r = a * q - p;
        p = q;
        q = r;
        k += 1;
    }
    r
}

pub(crate) fn chebyshev_t<T: Float>(x: T, n: T) -> T {
    let n = degree(n.f64());
    if n < 0 {
        return T::ZERO;
    }
    if x.abs().f64() == 1.0 {
        return if x.f64() > 0.0 || n % 2 == 0 {
            T::ONE
        } else {
            -T::ONE
        };
    }
    if n > 6 && x.abs().f64() < 1.0 {
        return T::of((n as f64 * acos(x)).cos());
    }
    match n {
        0 => T::ONE,
        1 => x,
        _ => chebyshev_recurrence(x + x, x, n),
    }
}

pub(crate) fn chebyshev_u<T: Float>(x: T, n: T) -> T {
    let n = degree(n.f64());
    if n < 0 {
        return T::ZERO;
    }
    if x.abs().f64() == 1.0 {
        return if x.f64() > 0.0 || n % 2 == 0 {
            t(n.wrapping_add(1))
        } else {
            -t::<T>(n.wrapping_add(1))
        };
    }
    if n > 8 && x.abs().f64() < 1.0 {
        let a = acos(x);
        if a.sin() != 0.0 {
            return T::of(((n as f64 + 1.0) * a).sin() / a.sin());
        }
        return T::of((n as f64 + 1.0) * ((n as f64 + 1.0) * a).cos() / x.f64());
    }
    match n {
        0 => T::ONE,
        1 => x + x,
        _ => chebyshev_recurrence(x + x, x + x, n),
    }
}

pub(crate) fn chebyshev_v<T: Float>(x: T, n: T) -> T {
    let n = degree(n.f64());
    if n < 0 {
        return T::ZERO;
    }
    if x.abs().f64() == 1.0 {
        if x.f64() > 0.0 {
            return T::ONE;
        }
        return if n % 2 == 0 {
            t(n.wrapping_add(n).wrapping_add(1))
        } else {
            -t::<T>(n.wrapping_add(n).wrapping_add(1))
        };
    }
    if n > 8 && x.abs().f64() < 1.0 {
        let a = acos(x);
        if (a / 2.0).sin() != 1.0 {
            return T::of(((n as f64 + 0.5) * a).cos() / (a / 2.0).cos());
        }
        return if n % 2 == 0 {
            t(n.wrapping_add(n).wrapping_add(1))
        } else {
            -t::<T>(n.wrapping_add(n).wrapping_add(1))
        };
    }
    match n {
        0 => T::ONE,
        1 => x + x - T::ONE,
        _ => chebyshev_recurrence(x + x, x + x - T::ONE, n),
    }
}

pub(crate) fn chebyshev_w<T: Float>(x: T, n: T) -> T {
    let n = degree(n.f64());
    if n < 0 {
        return T::ZERO;
    }
    if x.abs().f64() == 1.0 {
        if x.f64() > 0.0 {
            return t(n.wrapping_add(n).wrapping_add(1));
        }
        return if n % 2 == 0 { T::ONE } else { -T::ONE };
    }
    if n > 8 && x.abs().f64() < 1.0 {
        let a = acos(x);
        if (a / 2.0).cos() != 1.0 {
            return T::of(((n as f64 + 0.5) * a).sin() / (a / 2.0).sin());
        }
        if x.f64() > 0.0 {
            return t(n.wrapping_add(n).wrapping_add(1));
        }
        return if n % 2 == 0 { T::ONE } else { -T::ONE };
    }
    match n {
        0 => T::ONE,
        1 => x + x + T::ONE,
        _ => chebyshev_recurrence(x + x, x + x + T::ONE, n),
    }
}

/// The degree above which torch's Hermite polynomials give NaN (`getHermitianLimit`).
fn hermite_limit<T: Float>() -> i64 {
    if std::mem::size_of::<T>() == 4 {
        128
    } else {
        512
    }
}

pub(crate) fn hermite_h<T: Float>(x: T, n: T) -> T {
    let n = degree(n.f64());
    if n < 0 {
        return T::ZERO;
    }
    match n {
        0 => return T::ONE,
        1 => return x + x,
        _ => {}
    }
    if n > hermite_limit::<T>() {
        return T::of(f64::NAN);
    }
    let mut p = T::ONE;
    let mut q = x + x;
    let mut r = T::ZERO;
    let mut k = 2;
    while k < n + n {
        r = (x + x) * q - t::<T>(k) * p;
        p = q;
        q = r;
        k += 2;
    }
    r
}

pub(crate) fn hermite_he<T: Float>(x: T, n: T) -> T {
    let n = degree(n.f64());
    if n < 0 {
        return T::ZERO;
    }
    match n {
        0 => return T::ONE,
        1 => return x,
        _ => {}
    }
    if n > hermite_limit::<T>() {
        return T::of(f64::NAN);
    }
    let mut p = T::ONE;
    let mut q = x;
    let mut r = T::ZERO;
    for k in 1..n {
        r = x * q - t::<T>(k) * p;
        p = q;
        q = r;
    }
    r
}

pub(crate) fn laguerre_l<T: Float>(x: T, n: T) -> T {
    let n = degree(n.f64());
    if n < 0 {
        return T::ZERO;
    }
    if x.abs().f64() == 0.0 {
        return T::ONE;
    }
    match n {
        0 => return T::ONE,
        1 => return T::ONE - x,
        _ => {}
    }
    let mut p = T::ONE;
    let mut q = T::ONE - x;
    let mut r = q;
    let mut k = 1;
    while k < n && !q.is_nan() {
        checkpoint(k);
        r = ((t::<T>(k + k) + (T::ONE - x)) * q - t::<T>(k) * p) / t::<T>(k + 1);
        p = q;
        q = r;
        k += 1;
    }
    r
}

pub(crate) fn legendre_p<T: Float>(x: T, n: T) -> T {
    let n = degree(n.f64());
    if n < 0 {
        return T::ZERO;
    }
    if x.abs().f64() == 1.0 {
        return if x.f64() > 0.0 || n % 2 == 0 {
            T::ONE
        } else {
            -T::ONE
        };
    }
    match n {
        0 => return T::ONE,
        1 => return x,
        _ => {}
    }
    let mut p = T::ONE;
    let mut q = x;
    let mut r = q;
    let mut k = 1;
    while k < n && !q.is_nan() {
        checkpoint(k);
        r = (t::<T>(k + k + 1) * x * q - t::<T>(k) * p) / t::<T>(k + 1);
        p = q;
        q = r;
        k += 1;
    }
    r
}

pub(crate) fn shifted_chebyshev_t<T: Float>(x: T, n: T) -> T {
    let n = degree(n.f64());
    if n < 0 {
        return T::ZERO;
    }
    if x.f64() == 1.0 {
        return T::ONE;
    }
    if x.f64() == 0.0 {
        return if n % 2 == 0 { T::ONE } else { -T::ONE };
    }
    let y = x + x - T::ONE;
    if n > 6 && y.abs().f64() < 1.0 {
        return T::of((n as f64 * acos(y)).cos());
    }
    match n {
        0 => T::ONE,
        1 => y,
        _ => chebyshev_recurrence(y + y, y, n),
    }
}

pub(crate) fn shifted_chebyshev_u<T: Float>(x: T, n: T) -> T {
    let n = degree(n.f64());
    if n < 0 {
        return T::ZERO;
    }
    if x.f64() == 1.0 {
        return t(n.wrapping_add(1));
    }
    if x.f64() == 0.0 {
        return if n % 2 == 0 {
            t(n.wrapping_add(1))
        } else {
            -t::<T>(n.wrapping_add(1))
        };
    }
    let y = x + x - T::ONE;
    if n > 6 && y.abs().f64() < 1.0 {
        let a = acos(y);
        if a.sin() != 0.0 {
            return T::of(((n as f64 + 1.0) * a).sin() / a.sin());
        }
        return T::of((n as f64 + 1.0) * ((n as f64 + 1.0) * a).cos() / y.f64());
    }
    match n {
        0 => T::ONE,
        1 => y + y,
        _ => chebyshev_recurrence(y + y, y + y, n),
    }
}

pub(crate) fn shifted_chebyshev_v<T: Float>(x: T, n: T) -> T {
    let n = degree(n.f64());
    if n < 0 {
        return T::ZERO;
    }
    if x.f64() == 1.0 {
        return T::ONE;
    }
    if x.f64() == 0.0 {
        return if n % 2 == 0 {
            t(n.wrapping_add(n).wrapping_add(1))
        } else {
            -t::<T>(n.wrapping_add(n).wrapping_add(1))
        };
    }
    let y = x + x - T::ONE;
    if n > 6 && y.abs().f64() < 1.0 {
        let a = acos(y);
        if (a / 2.0).sin() != 1.0 {
            return T::of(((n as f64 + 0.5) * a).cos() / (a / 2.0).cos());
        }
        return if n % 2 == 0 {
            t(n.wrapping_add(n).wrapping_add(1))
        } else {
            -t::<T>(n.wrapping_add(n).wrapping_add(1))
        };
    }
    match n {
        0 => T::ONE,
        1 => y + y - T::ONE,
        _ => chebyshev_recurrence(y + y, y + y - T::ONE, n),
    }
}

pub(crate) fn shifted_chebyshev_w<T: Float>(x: T, n: T) -> T {
    let n = degree(n.f64());
    if n < 0 {
        return T::ZERO;
    }
    if x.f64() == 1.0 {
        return t(n.wrapping_add(n).wrapping_add(1));
    }
    if x.f64() == 0.0 {
        return if n % 2 == 0 { T::ONE } else { -T::ONE };
    }
    let y = x + x - T::ONE;
    if n > 4 && y.abs().f64() < 1.0 {
        let a = acos(y);
        if (a / 2.0).cos() != 1.0 {
            return T::of(((n as f64 + 0.5) * a).sin() / (a / 2.0).sin());
        }
        return if n % 2 == 0 { T::ONE } else { -T::ONE };
    }
    match n {
        0 => T::ONE,
        1 => y + y + T::ONE,
        _ => chebyshev_recurrence(y + y, y + y + T::ONE, n),
    }
}

macro_rules! polynomial_ops {
    ($($(#[$doc:meta])* $name:ident, $plan:ident => $f:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(x: &Tensor, n: &Tensor) -> Result<Tensor> {
            $plan(x, n)?.run()
        }

        #[doc = concat!("`", stringify!($name), "` checked and ready to run (Note [One kernel per op]).")]
        pub fn $plan<'a>(x: &'a Tensor, n: &'a Tensor) -> Result<Plan<'a, impl Kernel + 'a>> {
            float_binary_plan_dyn(x, n, $f::<f32>, $f::<f64>)
        }
    )*};
}

polynomial_ops! {
    /// `special.chebyshev_polynomial_t(input, n)`: the Chebyshev polynomial of the first kind
    /// `T_n(input)` (0 for n < 0), broadcast; the promoted float dtype (float32 for integers).
    /// Mirrors `torch.special.chebyshev_polynomial_t`.
    special_chebyshev_polynomial_t, special_chebyshev_polynomial_t_plan => chebyshev_t;
    /// `special.chebyshev_polynomial_u(input, n)`: the Chebyshev polynomial of the second kind
    /// `U_n(input)`. Mirrors `torch.special.chebyshev_polynomial_u`.
    special_chebyshev_polynomial_u, special_chebyshev_polynomial_u_plan => chebyshev_u;
    /// `special.chebyshev_polynomial_v(input, n)`: the Chebyshev polynomial of the third kind
    /// `V_n(input)`. Mirrors `torch.special.chebyshev_polynomial_v`.
    special_chebyshev_polynomial_v, special_chebyshev_polynomial_v_plan => chebyshev_v;
    /// `special.chebyshev_polynomial_w(input, n)`: the Chebyshev polynomial of the fourth kind
    /// `W_n(input)`. Mirrors `torch.special.chebyshev_polynomial_w`.
    special_chebyshev_polynomial_w, special_chebyshev_polynomial_w_plan => chebyshev_w;
    /// `special.shifted_chebyshev_polynomial_t(input, n)`: `T_n(2 input - 1)`. Mirrors
    /// `torch.special.shifted_chebyshev_polynomial_t`.
    special_shifted_chebyshev_polynomial_t, special_shifted_chebyshev_polynomial_t_plan => shifted_chebyshev_t;
    /// `special.shifted_chebyshev_polynomial_u(input, n)`: `U_n(2 input - 1)`. Mirrors
    /// `torch.special.shifted_chebyshev_polynomial_u`.
    special_shifted_chebyshev_polynomial_u, special_shifted_chebyshev_polynomial_u_plan => shifted_chebyshev_u;
    /// `special.shifted_chebyshev_polynomial_v(input, n)`: `V_n(2 input - 1)`. Mirrors
    /// `torch.special.shifted_chebyshev_polynomial_v`.
    special_shifted_chebyshev_polynomial_v, special_shifted_chebyshev_polynomial_v_plan => shifted_chebyshev_v;
    /// `special.shifted_chebyshev_polynomial_w(input, n)`: `W_n(2 input - 1)`. Mirrors
    /// `torch.special.shifted_chebyshev_polynomial_w`.
    special_shifted_chebyshev_polynomial_w, special_shifted_chebyshev_polynomial_w_plan => shifted_chebyshev_w;
    /// `special.hermite_polynomial_h(input, n)`: the physicists' Hermite polynomial `H_n(input)`
    /// (NaN above degree 128 in float32, 512 in float64, as torch). Mirrors
    /// `torch.special.hermite_polynomial_h`.
    special_hermite_polynomial_h, special_hermite_polynomial_h_plan => hermite_h;
    /// `special.hermite_polynomial_he(input, n)`: the probabilists' Hermite polynomial
    /// `He_n(input)`. Mirrors `torch.special.hermite_polynomial_he`.
    special_hermite_polynomial_he, special_hermite_polynomial_he_plan => hermite_he;
    /// `special.laguerre_polynomial_l(input, n)`: the Laguerre polynomial `L_n(input)`. Mirrors
    /// `torch.special.laguerre_polynomial_l`.
    special_laguerre_polynomial_l, special_laguerre_polynomial_l_plan => laguerre_l;
    /// `special.legendre_polynomial_p(input, n)`: the Legendre polynomial `P_n(input)`. Mirrors
    /// `torch.special.legendre_polynomial_p`.
    special_legendre_polynomial_p, special_legendre_polynomial_p_plan => legendre_p;
}
