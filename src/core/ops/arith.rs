//! src/core/ops/arith.rs: per-element arithmetic of every dtype with torch's CPU semantics
//! (PyTorch: the scalar functions inside `native/cpu/BinaryOpsKernel.cpp`, `UnaryOpsKernel.cpp`
//! and `native/Math.h`) — the `Arith` and `MathElem` traits the unary, binary and compare ops
//! are written with — and torch's dispatch errors for a dtype a kernel has no version for.

use crate::core::dtype::{DType, Element};
use crate::core::error::{Error, Result};

/// Arithmetic on one element type with torch's CPU semantics: integers wrap on overflow (never
/// panic), integer division rounds as torch does (callers reject zero divisors first; a zero
/// divisor still yields 0 here rather than a panic), floats follow IEEE and C's `fmod`/`pow`.
/// Bool: `+` is or, `*` is and (torch's bool kernels); the other bool entries are never
/// reached because the ops reject bool first, and only keep the impl total.
pub(crate) trait Arith: Element {
    fn wadd(self, o: Self) -> Self;
    fn wsub(self, o: Self) -> Self;
    fn wmul(self, o: Self) -> Self;
    /// `/` for floats (only used with floating dtypes).
    fn true_div(self, o: Self) -> Self;
    /// Division rounded toward zero (`div(rounding_mode='trunc')`).
    fn div_trunc(self, o: Self) -> Self;
    /// Division rounded toward -inf (`//`, `div(rounding_mode='floor')`).
    fn div_floor(self, o: Self) -> Self;
    /// Python's `%`: the result has the sign of the divisor.
    fn rem_floor(self, o: Self) -> Self;
    /// `self ** o` (torch's `powi` for integers: negative exponents give 0 except for ±1).
    fn pow_(self, o: Self) -> Self;
    fn wneg(self) -> Self;
    fn wabs(self) -> Self;
    /// `maximum`: NaN if either is NaN, else C++'s `std::max(a, b)`.
    fn max_nan(self, o: Self) -> Self;
    /// `minimum`: NaN if either is NaN, else C++'s `std::min(a, b)`.
    fn min_nan(self, o: Self) -> Self;
}

/// `base ** e` for a non-negative integer exponent, by squaring, wrapping on overflow (the
/// integer `pow` of every integer dtype).
macro_rules! wrapping_pow {
    ($t:ty, $base:expr, $e:expr) => {{
        let (mut base, mut e) = ($base, $e);
        let mut acc: $t = 1;
        while e != 0 {
            if e & 1 != 0 {
                acc = acc.wrapping_mul(base);
            }
            e >>= 1;
            base = base.wrapping_mul(base);
        }
        acc
    }};
}

macro_rules! impl_arith_signed {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline(always)]
            fn wadd(self, o: Self) -> Self { self.wrapping_add(o) }
            #[inline(always)]
            fn wsub(self, o: Self) -> Self { self.wrapping_sub(o) }
            #[inline(always)]
            fn wmul(self, o: Self) -> Self { self.wrapping_mul(o) }
            #[inline(always)]
            fn true_div(self, o: Self) -> Self { self.div_trunc(o) }
            #[inline(always)]
            fn div_trunc(self, o: Self) -> Self {
                if o == 0 { 0 } else { self.wrapping_div(o) }
            }
            #[inline(always)]
            fn div_floor(self, o: Self) -> Self {
                if o == 0 {
                    return 0;
                }
                // c10::div_floor_integer: truncate, then step down when the signs differ and
                // the division is inexact.
                let q = self.wrapping_div(o);
                if (self < 0) != (o < 0) && self.wrapping_rem(o) != 0 { q.wrapping_sub(1) } else { q }
            }
            #[inline(always)]
            fn rem_floor(self, o: Self) -> Self {
                if o == 0 {
                    return 0;
                }
                let r = self.wrapping_rem(o);
                if r != 0 && (r < 0) != (o < 0) { r.wrapping_add(o) } else { r }
            }
            #[inline(always)]
            fn pow_(self, o: Self) -> Self {
                if o < 0 {
                    return match self {
                        1 => 1,
                        -1 => if o % 2 != 0 { -1 } else { 1 },
                        _ => 0,
                    };
                }
                wrapping_pow!($t, self, o)
            }
            #[inline(always)]
            fn wneg(self) -> Self { self.wrapping_neg() }
            #[inline(always)]
            fn wabs(self) -> Self { self.wrapping_abs() }
            #[inline(always)]
            fn max_nan(self, o: Self) -> Self { if self < o { o } else { self } }
            #[inline(always)]
            fn min_nan(self, o: Self) -> Self { if o < self { o } else { self } }
        }
    )*};
}

impl_arith_signed!(i8, i16, i32, i64);

impl Arith for u8 {
    #[inline(always)]
    fn wadd(self, o: Self) -> Self {
        self.wrapping_add(o)
    }
    #[inline(always)]
    fn wsub(self, o: Self) -> Self {
        self.wrapping_sub(o)
    }
    #[inline(always)]
    fn wmul(self, o: Self) -> Self {
        self.wrapping_mul(o)
    }
    #[inline(always)]
    fn true_div(self, o: Self) -> Self {
        self.div_trunc(o)
    }
    #[inline(always)]
    fn div_trunc(self, o: Self) -> Self {
        self.checked_div(o).unwrap_or(0)
    }
    #[inline(always)]
    fn div_floor(self, o: Self) -> Self {
        self.checked_div(o).unwrap_or(0)
    }
    #[inline(always)]
    fn rem_floor(self, o: Self) -> Self {
        self.checked_rem(o).unwrap_or(0)
    }
    #[inline(always)]
    fn pow_(self, o: Self) -> Self {
        wrapping_pow!(u8, self, o)
    }
    #[inline(always)]
    fn wneg(self) -> Self {
        self.wrapping_neg()
    }
    #[inline(always)]
    fn wabs(self) -> Self {
        self
    }
    #[inline(always)]
    fn max_nan(self, o: Self) -> Self {
        self.max(o)
    }
    #[inline(always)]
    fn min_nan(self, o: Self) -> Self {
        self.min(o)
    }
}

macro_rules! impl_arith_float {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline(always)]
            fn wadd(self, o: Self) -> Self { self + o }
            #[inline(always)]
            fn wsub(self, o: Self) -> Self { self - o }
            #[inline(always)]
            fn wmul(self, o: Self) -> Self { self * o }
            #[inline(always)]
            fn true_div(self, o: Self) -> Self { self / o }
            #[inline(always)]
            fn div_trunc(self, o: Self) -> Self { (self / o).trunc() }
            #[inline(always)]
            fn div_floor(self, o: Self) -> Self {
                // c10::div_floor_floating: exact for every pair, unlike floor(a / b).
                if o == 0.0 {
                    return self / o;
                }
                let m = self % o;
                let mut d = (self - m) / o;
                if m != 0.0 && (o < 0.0) != (m < 0.0) {
                    d -= 1.0;
                }
                if d != 0.0 {
                    let mut f = d.floor();
                    if d - f > 0.5 {
                        f += 1.0;
                    }
                    f
                } else {
                    <$t>::copysign(0.0, self / o)
                }
            }
            #[inline(always)]
            fn rem_floor(self, o: Self) -> Self {
                let m = self % o;
                if m != 0.0 && (o < 0.0) != (m < 0.0) { m + o } else { m }
            }
            #[inline(always)]
            fn pow_(self, o: Self) -> Self { self.powf(o) }
            #[inline(always)]
            fn wneg(self) -> Self { -self }
            #[inline(always)]
            fn wabs(self) -> Self { self.abs() }
            #[inline(always)]
            fn max_nan(self, o: Self) -> Self {
                if self.is_nan() || o.is_nan() { <$t>::NAN } else if self < o { o } else { self }
            }
            #[inline(always)]
            fn min_nan(self, o: Self) -> Self {
                if self.is_nan() || o.is_nan() { <$t>::NAN } else if o < self { o } else { self }
            }
        }
    )*};
}

impl_arith_float!(f32, f64);

impl Arith for bool {
    #[inline(always)]
    fn wadd(self, o: Self) -> Self {
        self | o
    }
    #[inline(always)]
    fn wsub(self, o: Self) -> Self {
        self ^ o
    }
    #[inline(always)]
    fn wmul(self, o: Self) -> Self {
        self & o
    }
    #[inline(always)]
    fn true_div(self, o: Self) -> Self {
        self & o
    }
    #[inline(always)]
    fn div_trunc(self, o: Self) -> Self {
        self & o
    }
    #[inline(always)]
    fn div_floor(self, o: Self) -> Self {
        self & o
    }
    #[inline(always)]
    fn rem_floor(self, _o: Self) -> Self {
        false
    }
    #[inline(always)]
    fn pow_(self, o: Self) -> Self {
        self | !o
    }
    #[inline(always)]
    fn wneg(self) -> Self {
        self
    }
    #[inline(always)]
    fn wabs(self) -> Self {
        self
    }
    #[inline(always)]
    fn max_nan(self, o: Self) -> Self {
        self | o
    }
    #[inline(always)]
    fn min_nan(self, o: Self) -> Self {
        self & o
    }
}

// ----- math beyond arithmetic -----------------------------------------------------------------

/// Per-type operations the math ops need beyond `Arith`. Entries that only make sense for some
/// dtypes (bit ops for integers and bool, NaN tests for floats) are total for the others with
/// harmless values: the ops reject those dtypes before dispatching.
pub(crate) trait MathElem: Arith {
    /// C's `fmod` (the result has the sign of the dividend); integer zero divisors are rejected
    /// by the caller (0 here, never a panic).
    fn fmod(self, o: Self) -> Self;
    fn band(self, o: Self) -> Self;
    fn bor(self, o: Self) -> Self;
    fn bxor(self, o: Self) -> Self;
    fn bnot(self) -> Self;
    /// torch's `lshift` kernel: 0 for a negative shift or one of at least the bit width.
    fn shl(self, o: Self) -> Self;
    /// torch's `rshift` kernel: a negative or too large shift shifts by the widest amount.
    fn shr(self, o: Self) -> Self;
    /// `(0 < x) - (x < 0)`: 0 for NaN and ±0.
    fn sign(self) -> Self;
    fn nan(self) -> bool;
    fn inf(self) -> bool;
    fn finite(self) -> bool;
}

macro_rules! impl_math_int {
    ($($t:ty),*) => {$(
        impl MathElem for $t {
            #[inline(always)]
            fn fmod(self, o: Self) -> Self { if o == 0 { 0 } else { self.wrapping_rem(o) } }
            #[inline(always)]
            fn band(self, o: Self) -> Self { self & o }
            #[inline(always)]
            fn bor(self, o: Self) -> Self { self | o }
            #[inline(always)]
            fn bxor(self, o: Self) -> Self { self ^ o }
            #[inline(always)]
            fn bnot(self) -> Self { !self }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn shl(self, o: Self) -> Self {
                let bits = <$t>::BITS as $t;
                if o < 0 || o >= bits { 0 } else { self.wrapping_shl(o as u32) }
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn shr(self, o: Self) -> Self {
                // Signed types shift by at most BITS - 1 (sign fill); unsigned ones give 0.
                let signed = <$t>::MIN != 0;
                let max = <$t>::BITS as $t - signed as $t;
                if o < 0 || o >= max {
                    if signed { self.wrapping_shr(max as u32) } else { 0 }
                } else {
                    self.wrapping_shr(o as u32)
                }
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn sign(self) -> Self { (0 < self) as $t - (self < 0) as $t }
            #[inline(always)]
            fn nan(self) -> bool { false }
            #[inline(always)]
            fn inf(self) -> bool { false }
            #[inline(always)]
            fn finite(self) -> bool { true }
        }
    )*};
}

impl_math_int!(u8, i8, i16, i32, i64);

macro_rules! impl_math_float {
    ($($t:ty),*) => {$(
        impl MathElem for $t {
            #[inline(always)]
            fn fmod(self, o: Self) -> Self { self % o }
            #[inline(always)]
            fn band(self, _o: Self) -> Self { self }
            #[inline(always)]
            fn bor(self, _o: Self) -> Self { self }
            #[inline(always)]
            fn bxor(self, _o: Self) -> Self { self }
            #[inline(always)]
            fn bnot(self) -> Self { self }
            #[inline(always)]
            fn shl(self, _o: Self) -> Self { self }
            #[inline(always)]
            fn shr(self, _o: Self) -> Self { self }
            #[inline(always)]
            fn sign(self) -> Self { ((0.0 < self) as u8 as $t) - ((self < 0.0) as u8 as $t) }
            #[inline(always)]
            fn nan(self) -> bool { self.is_nan() }
            #[inline(always)]
            fn inf(self) -> bool { self.is_infinite() }
            #[inline(always)]
            fn finite(self) -> bool { self.is_finite() }
        }
    )*};
}

impl_math_float!(f32, f64);

impl MathElem for bool {
    #[inline(always)]
    fn fmod(self, _o: Self) -> Self {
        false
    }
    #[inline(always)]
    fn band(self, o: Self) -> Self {
        self & o
    }
    #[inline(always)]
    fn bor(self, o: Self) -> Self {
        self | o
    }
    #[inline(always)]
    fn bxor(self, o: Self) -> Self {
        self ^ o
    }
    #[inline(always)]
    fn bnot(self) -> Self {
        !self
    }
    #[inline(always)]
    fn shl(self, _o: Self) -> Self {
        self
    }
    #[inline(always)]
    fn shr(self, _o: Self) -> Self {
        self
    }
    #[inline(always)]
    fn sign(self) -> Self {
        self
    }
    #[inline(always)]
    fn nan(self) -> bool {
        false
    }
    #[inline(always)]
    fn inf(self) -> bool {
        false
    }
    #[inline(always)]
    fn finite(self) -> bool {
        true
    }
}

// ----- dtypes a kernel lacks ------------------------------------------------------------------

/// torch's dispatch error for a kernel without a version for `dtype` (NotImplementedError):
/// `"bitwise_and_cpu" not implemented for 'Float'`.
pub(super) fn not_implemented(kernel: &str, dtype: DType) -> Error {
    Error::not_implemented(format!(
        "\"{kernel}\" not implemented for '{}'",
        dtype.scalar_type_name()
    ))
}

/// torch's dispatch error for a kernel without a bool version (NotImplementedError).
pub(super) fn reject_bool(dtype: DType, kernel: &str) -> Result<()> {
    if dtype == DType::Bool {
        return Err(Error::not_implemented(format!(
            "\"{kernel}\" not implemented for 'Bool'"
        )));
    }
    Ok(())
}
