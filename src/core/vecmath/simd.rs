//! src/core/vecmath/simd.rs: the vector trait the element functions are written against, and
//! its portable one-lane implementation (PyTorch: `ATen/cpu/vec/vec_base.h`; numpy: `npyv`).
//!
//! The kernels in `f32.rs`/`f64.rs` are generic over `Simd` and written once; `x86.rs`
//! implements it for SSE2, AVX2+FMA and AVX-512F registers, this file for a single scalar lane
//! (the baseline off x86-64). See Note [SIMD types are tokens].

/// A vector of `LANES` floats of type `E`, with a lane mask `M` and the same lanes seen as
/// unsigned integers `I` (the float's bits). Every method is `#[inline(always)]` so that a
/// kernel instantiated inside a `#[target_feature]` function compiles to that level's
/// instructions with no calls left.
///
/// Semantics every implementation keeps (the kernels rely on them):
/// - `mul_add(a, b, c)` is `a * b + c`: fused (one rounding) where `FUSED`, two roundings
///   otherwise. Nothing else may differ between levels.
/// - `min(a, b)` / `max(a, b)` are x86's `minps`/`maxps`: `b` when either is NaN, so
///   `V::splat(c).max(x)` keeps a NaN `x`.
/// - comparisons are ordered (false when either side is NaN).
/// - integer lanes wrap; `shl`/`shr` are logical shifts by a count below the lane width.
pub(crate) trait Simd: Copy {
    type E: Copy + Default;
    type I: Copy;
    type M: Copy;
    const LANES: usize;

    /// # Safety
    /// `p` is valid for reading `LANES` elements (no alignment needed).
    unsafe fn load(p: *const Self::E) -> Self;
    /// # Safety
    /// `p` is valid for writing `LANES` elements (no alignment needed).
    unsafe fn store(self, p: *mut Self::E);
    fn splat(v: Self::E) -> Self;
    fn add(self, b: Self) -> Self;
    fn sub(self, b: Self) -> Self;
    fn mul(self, b: Self) -> Self;
    fn div(self, b: Self) -> Self;
    /// `self * b + c` (see the trait's note on fusing).
    fn mul_add(self, b: Self, c: Self) -> Self;
    /// `c - self * b`, fused like `mul_add`.
    fn neg_mul_add(self, b: Self, c: Self) -> Self;
    fn min(self, b: Self) -> Self;
    fn max(self, b: Self) -> Self;
    fn sqrt(self) -> Self;
    fn lt(self, b: Self) -> Self::M;
    fn le(self, b: Self) -> Self::M;
    fn eq(self, b: Self) -> Self::M;
    /// True in lanes where `self` is NaN.
    fn is_nan(self) -> Self::M;
    /// `m ? a : b` lane by lane.
    fn select(m: Self::M, a: Self, b: Self) -> Self;
    fn mask_or(a: Self::M, b: Self::M) -> Self::M;
    fn mask_any(m: Self::M) -> bool;
    fn to_bits(self) -> Self::I;
    fn from_bits(i: Self::I) -> Self;
    fn isplat(v: u64) -> Self::I;
    fn iadd(a: Self::I, b: Self::I) -> Self::I;
    fn isub(a: Self::I, b: Self::I) -> Self::I;
    fn iand(a: Self::I, b: Self::I) -> Self::I;
    fn ior(a: Self::I, b: Self::I) -> Self::I;
    fn ixor(a: Self::I, b: Self::I) -> Self::I;
    fn shl(a: Self::I, n: u32) -> Self::I;
    fn shr(a: Self::I, n: u32) -> Self::I;
    /// True in lanes where `a & b != 0`.
    fn itest(a: Self::I, b: Self::I) -> Self::M;

    // ----- derived -----------------------------------------------------------------------

    #[inline(always)]
    fn gt(self, b: Self) -> Self::M {
        b.lt(self)
    }
    #[inline(always)]
    fn ge(self, b: Self) -> Self::M {
        b.le(self)
    }
    /// `|self|` (clears the sign bit; NaN stays NaN).
    #[inline(always)]
    fn abs(self) -> Self {
        Self::from_bits(Self::iand(self.to_bits(), Self::isplat(!Self::sign_bit())))
    }
    /// The sign bit of `self`, other bits clear, as integer lanes.
    #[inline(always)]
    fn sign(self) -> Self::I {
        Self::iand(self.to_bits(), Self::isplat(Self::sign_bit()))
    }
    /// `self` with its sign bit xor-ed with `s` (a sign-bit-only integer vector).
    #[inline(always)]
    fn xor_sign(self, s: Self::I) -> Self {
        Self::from_bits(Self::ixor(self.to_bits(), s))
    }
    /// The sign bit of one lane as `u64` (`1 << 31` or `1 << 63`).
    #[inline(always)]
    fn sign_bit() -> u64 {
        if size_of::<Self::E>() == 4 {
            1 << 31
        } else {
            1 << 63
        }
    }
    /// Horner's scheme, lowest degree first: `c[0] + x*(c[1] + x*(c[2] + ...))` (`c` is a
    /// constant table, so the loop unrolls).
    #[inline(always)]
    fn poly(x: Self, c: &[Self::E]) -> Self {
        let n = c.len();
        let mut acc = Self::splat(c[n - 1]);
        let mut i = n - 1;
        while i > 0 {
            i -= 1;
            acc = acc.mul_add(x, Self::splat(c[i]));
        }
        acc
    }
}

/// One f32 lane in plain Rust arithmetic: the baseline off x86-64, and on x86-64 a check that
/// the SSE2 level computes exactly the same values lane by lane (both are unfused).
// On x86-64 only the tests run it.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[derive(Clone, Copy)]
pub(crate) struct Lane32(f32);
/// One f64 lane, as `Lane32`.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[derive(Clone, Copy)]
pub(crate) struct Lane64(f64);

macro_rules! impl_lane {
    ($t:ident, $e:ty, $u:ty) => {
        impl Simd for $t {
            type E = $e;
            type I = $u;
            type M = bool;
            const LANES: usize = 1;

            #[inline(always)]
            unsafe fn load(p: *const $e) -> Self {
                // SAFETY: the caller promises `p` is readable for one element.
                Self(unsafe { p.read_unaligned() })
            }
            #[inline(always)]
            unsafe fn store(self, p: *mut $e) {
                // SAFETY: the caller promises `p` is writable for one element.
                unsafe { p.write_unaligned(self.0) }
            }
            #[inline(always)]
            fn splat(v: $e) -> Self {
                Self(v)
            }
            #[inline(always)]
            fn add(self, b: Self) -> Self {
                Self(self.0 + b.0)
            }
            #[inline(always)]
            fn sub(self, b: Self) -> Self {
                Self(self.0 - b.0)
            }
            #[inline(always)]
            fn mul(self, b: Self) -> Self {
                Self(self.0 * b.0)
            }
            #[inline(always)]
            fn div(self, b: Self) -> Self {
                Self(self.0 / b.0)
            }
            #[inline(always)]
            fn mul_add(self, b: Self, c: Self) -> Self {
                Self(self.0 * b.0 + c.0)
            }
            #[inline(always)]
            fn neg_mul_add(self, b: Self, c: Self) -> Self {
                Self(c.0 - self.0 * b.0)
            }
            #[inline(always)]
            fn min(self, b: Self) -> Self {
                Self(if self.0 < b.0 { self.0 } else { b.0 })
            }
            #[inline(always)]
            fn max(self, b: Self) -> Self {
                Self(if self.0 > b.0 { self.0 } else { b.0 })
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                Self(self.0.sqrt())
            }
            #[inline(always)]
            fn lt(self, b: Self) -> bool {
                self.0 < b.0
            }
            #[inline(always)]
            fn le(self, b: Self) -> bool {
                self.0 <= b.0
            }
            #[inline(always)]
            fn eq(self, b: Self) -> bool {
                self.0 == b.0
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                self.0.is_nan()
            }
            #[inline(always)]
            fn select(m: bool, a: Self, b: Self) -> Self {
                if m {
                    a
                } else {
                    b
                }
            }
            #[inline(always)]
            fn mask_or(a: bool, b: bool) -> bool {
                a | b
            }
            #[inline(always)]
            fn mask_any(m: bool) -> bool {
                m
            }
            #[inline(always)]
            fn to_bits(self) -> $u {
                self.0.to_bits()
            }
            #[inline(always)]
            fn from_bits(i: $u) -> Self {
                Self(<$e>::from_bits(i))
            }
            #[inline(always)]
            fn isplat(v: u64) -> $u {
                v as $u
            }
            #[inline(always)]
            fn iadd(a: $u, b: $u) -> $u {
                a.wrapping_add(b)
            }
            #[inline(always)]
            fn isub(a: $u, b: $u) -> $u {
                a.wrapping_sub(b)
            }
            #[inline(always)]
            fn iand(a: $u, b: $u) -> $u {
                a & b
            }
            #[inline(always)]
            fn ior(a: $u, b: $u) -> $u {
                a | b
            }
            #[inline(always)]
            fn ixor(a: $u, b: $u) -> $u {
                a ^ b
            }
            #[inline(always)]
            fn shl(a: $u, n: u32) -> $u {
                a << n
            }
            #[inline(always)]
            fn shr(a: $u, n: u32) -> $u {
                a >> n
            }
            #[inline(always)]
            fn itest(a: $u, b: $u) -> bool {
                a & b != 0
            }
        }
    };
}

impl_lane!(Lane32, f32, u32);
impl_lane!(Lane64, f64, u64);
