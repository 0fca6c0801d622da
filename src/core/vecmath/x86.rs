//! src/core/vecmath/x86.rs: `Simd` for x86-64 registers — SSE2 (the baseline, unfused),
//! AVX2+FMA and AVX-512F (fused), for f32 and f64 lanes (PyTorch: `vec256/`, `vec512/`).
//!
//! Note [SIMD types are tokens]
//! The methods of these types are safe functions that execute the instructions of their level.
//! That is sound only because a value of `Avx2F32`, `Avx512F64`, ... exists solely inside a
//! kernel that `mod.rs` entered after `dispatch.rs` found the level's CPU features (or an SSE2
//! one, which every x86-64 CPU has): the types are private to `vecmath`, every kernel is a
//! `#[target_feature]` function, and only the dispatching entry points call kernels. Code
//! outside those kernels must never build one of these values. With every method
//! `#[inline(always)]`, each kernel compiles to straight-line instructions of its level.

use super::simd::Simd;
use std::arch::x86_64::*;

/// Runs one intrinsic expression. See Note [SIMD types are tokens].
macro_rules! arch {
    ($e:expr) => {
        // SAFETY: the instruction belongs to this type's level, whose CPU features were
        // detected before any value of the type was made (Note [SIMD types are tokens]).
        unsafe { $e }
    };
}

/// Implements `Simd` from one level's intrinsics. `@cmp`, `@select`, `@mask`, `@itest` are the
/// parts that differ between vector-register masks (SSE2, AVX2) and `k` masks (AVX-512).
macro_rules! impl_simd {
    (
        $t:ident, $e:ty, $v:ty, $vi:ty, $m:ty, lanes: $lanes:expr,
        load: $load:ident, store: $store:ident, set1: $set1:ident,
        add: $add:ident, sub: $sub:ident, mul: $mul:ident, div: $div:ident,
        fmadd: |$fa:ident, $fb:ident, $fc:ident| $fmadd:expr,
        fnmadd: |$na:ident, $nb:ident, $nc:ident| $fnmadd:expr,
        min: $min:ident, max: $max:ident, sqrt: $sqrt:ident,
        lt: |$la:ident, $lb:ident| $lt:expr, le: |$ea:ident, $eb:ident| $le:expr,
        eq: |$qa:ident, $qb:ident| $eq:expr, unord: |$ua:ident, $ub:ident| $unord:expr,
        select: |$sm:ident, $sa:ident, $sb:ident| $select:expr,
        mask_or: |$oa:ident, $ob:ident| $mor:expr,
        mask_any: |$mm:ident| $many:expr,
        to_bits: $tobits:ident, from_bits: $frombits:ident,
        iset1: $iset1:ident as $ity:ty, iadd: $iadd:ident, isub: $isub:ident,
        iand: $iand:ident, ior: $ior:ident, ixor: $ixor:ident, sll: $sll:ident, srl: $srl:ident,
        itest: |$ta:ident, $tb:ident| $itest:expr,
    ) => {
        #[derive(Clone, Copy)]
        pub(crate) struct $t($v);

        impl Simd for $t {
            type E = $e;
            type I = $vi;
            type M = $m;
            const LANES: usize = $lanes;

            #[inline(always)]
            unsafe fn load(p: *const $e) -> Self {
                // SAFETY: the caller promises `p` is readable for `LANES` elements; the
                // instruction is this level's (Note [SIMD types are tokens]).
                Self(unsafe { $load(p) })
            }
            #[inline(always)]
            unsafe fn store(self, p: *mut $e) {
                // SAFETY: the caller promises `p` is writable for `LANES` elements; the
                // instruction is this level's (Note [SIMD types are tokens]).
                unsafe { $store(p, self.0) }
            }
            #[inline(always)]
            fn splat(v: $e) -> Self {
                Self(arch!($set1(v)))
            }
            #[inline(always)]
            fn add(self, b: Self) -> Self {
                Self(arch!($add(self.0, b.0)))
            }
            #[inline(always)]
            fn sub(self, b: Self) -> Self {
                Self(arch!($sub(self.0, b.0)))
            }
            #[inline(always)]
            fn mul(self, b: Self) -> Self {
                Self(arch!($mul(self.0, b.0)))
            }
            #[inline(always)]
            fn div(self, b: Self) -> Self {
                Self(arch!($div(self.0, b.0)))
            }
            #[inline(always)]
            fn mul_add(self, b: Self, c: Self) -> Self {
                let ($fa, $fb, $fc) = (self.0, b.0, c.0);
                Self($fmadd)
            }
            #[inline(always)]
            fn neg_mul_add(self, b: Self, c: Self) -> Self {
                let ($na, $nb, $nc) = (self.0, b.0, c.0);
                Self($fnmadd)
            }
            #[inline(always)]
            fn min(self, b: Self) -> Self {
                Self(arch!($min(self.0, b.0)))
            }
            #[inline(always)]
            fn max(self, b: Self) -> Self {
                Self(arch!($max(self.0, b.0)))
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                Self(arch!($sqrt(self.0)))
            }
            #[inline(always)]
            fn lt(self, b: Self) -> $m {
                let ($la, $lb) = (self.0, b.0);
                $lt
            }
            #[inline(always)]
            fn le(self, b: Self) -> $m {
                let ($ea, $eb) = (self.0, b.0);
                $le
            }
            #[inline(always)]
            fn eq(self, b: Self) -> $m {
                let ($qa, $qb) = (self.0, b.0);
                $eq
            }
            #[inline(always)]
            fn is_nan(self) -> $m {
                let ($ua, $ub) = (self.0, self.0);
                $unord
            }
            #[inline(always)]
            fn select(m: $m, a: Self, b: Self) -> Self {
                let ($sm, $sa, $sb) = (m, a.0, b.0);
                Self($select)
            }
            #[inline(always)]
            fn mask_or(a: $m, b: $m) -> $m {
                let ($oa, $ob) = (a, b);
                $mor
            }
            #[inline(always)]
            fn mask_any(m: $m) -> bool {
                let $mm = m;
                $many
            }
            #[inline(always)]
            fn to_bits(self) -> $vi {
                arch!($tobits(self.0))
            }
            #[inline(always)]
            fn from_bits(i: $vi) -> Self {
                Self(arch!($frombits(i)))
            }
            #[inline(always)]
            fn isplat(v: u64) -> $vi {
                arch!($iset1(v as $ity))
            }
            #[inline(always)]
            fn iadd(a: $vi, b: $vi) -> $vi {
                arch!($iadd(a, b))
            }
            #[inline(always)]
            fn isub(a: $vi, b: $vi) -> $vi {
                arch!($isub(a, b))
            }
            #[inline(always)]
            fn iand(a: $vi, b: $vi) -> $vi {
                arch!($iand(a, b))
            }
            #[inline(always)]
            fn ior(a: $vi, b: $vi) -> $vi {
                arch!($ior(a, b))
            }
            #[inline(always)]
            fn ixor(a: $vi, b: $vi) -> $vi {
                arch!($ixor(a, b))
            }
            #[inline(always)]
            fn shl(a: $vi, n: u32) -> $vi {
                arch!($sll(a, _mm_cvtsi32_si128(n as i32)))
            }
            #[inline(always)]
            fn shr(a: $vi, n: u32) -> $vi {
                arch!($srl(a, _mm_cvtsi32_si128(n as i32)))
            }
            #[inline(always)]
            fn itest(a: $vi, b: $vi) -> $m {
                let ($ta, $tb) = (a, b);
                $itest
            }
        }
    };
}

// ----- SSE2 ----------------------------------------------------------------------------------

impl_simd! {
    Sse2F32, f32, __m128, __m128i, __m128, lanes: 4,
    load: _mm_loadu_ps, store: _mm_storeu_ps, set1: _mm_set1_ps,
    add: _mm_add_ps, sub: _mm_sub_ps, mul: _mm_mul_ps, div: _mm_div_ps,
    fmadd: |a, b, c| arch!(_mm_add_ps(_mm_mul_ps(a, b), c)),
    fnmadd: |a, b, c| arch!(_mm_sub_ps(c, _mm_mul_ps(a, b))),
    min: _mm_min_ps, max: _mm_max_ps, sqrt: _mm_sqrt_ps,
    lt: |a, b| arch!(_mm_cmplt_ps(a, b)), le: |a, b| arch!(_mm_cmple_ps(a, b)),
    eq: |a, b| arch!(_mm_cmpeq_ps(a, b)), unord: |a, b| arch!(_mm_cmpunord_ps(a, b)),
    select: |m, a, b| arch!(_mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b))),
    mask_or: |a, b| arch!(_mm_or_ps(a, b)),
    mask_any: |m| arch!(_mm_movemask_ps(m)) != 0,
    to_bits: _mm_castps_si128, from_bits: _mm_castsi128_ps,
    iset1: _mm_set1_epi32 as i32, iadd: _mm_add_epi32, isub: _mm_sub_epi32,
    iand: _mm_and_si128, ior: _mm_or_si128, ixor: _mm_xor_si128, sll: _mm_sll_epi32,
    srl: _mm_srl_epi32,
    itest: |a, b| arch!({
        let zero = _mm_cmpeq_epi32(_mm_and_si128(a, b), _mm_setzero_si128());
        _mm_castsi128_ps(_mm_xor_si128(zero, _mm_set1_epi32(-1)))
    }),
}

impl_simd! {
    Sse2F64, f64, __m128d, __m128i, __m128d, lanes: 2,
    load: _mm_loadu_pd, store: _mm_storeu_pd, set1: _mm_set1_pd,
    add: _mm_add_pd, sub: _mm_sub_pd, mul: _mm_mul_pd, div: _mm_div_pd,
    fmadd: |a, b, c| arch!(_mm_add_pd(_mm_mul_pd(a, b), c)),
    fnmadd: |a, b, c| arch!(_mm_sub_pd(c, _mm_mul_pd(a, b))),
    min: _mm_min_pd, max: _mm_max_pd, sqrt: _mm_sqrt_pd,
    lt: |a, b| arch!(_mm_cmplt_pd(a, b)), le: |a, b| arch!(_mm_cmple_pd(a, b)),
    eq: |a, b| arch!(_mm_cmpeq_pd(a, b)), unord: |a, b| arch!(_mm_cmpunord_pd(a, b)),
    select: |m, a, b| arch!(_mm_or_pd(_mm_and_pd(m, a), _mm_andnot_pd(m, b))),
    mask_or: |a, b| arch!(_mm_or_pd(a, b)),
    mask_any: |m| arch!(_mm_movemask_pd(m)) != 0,
    to_bits: _mm_castpd_si128, from_bits: _mm_castsi128_pd,
    iset1: _mm_set1_epi64x as i64, iadd: _mm_add_epi64, isub: _mm_sub_epi64,
    iand: _mm_and_si128, ior: _mm_or_si128, ixor: _mm_xor_si128, sll: _mm_sll_epi64,
    srl: _mm_srl_epi64,
    // SSE2 has no 64-bit compare: a 64-bit lane is zero when both of its 32-bit halves are.
    itest: |a, b| arch!({
        let z32 = _mm_cmpeq_epi32(_mm_and_si128(a, b), _mm_setzero_si128());
        let z64 = _mm_and_si128(z32, _mm_shuffle_epi32::<0b10_11_00_01>(z32));
        _mm_castsi128_pd(_mm_xor_si128(z64, _mm_set1_epi32(-1)))
    }),
}

// ----- AVX2 + FMA ----------------------------------------------------------------------------

impl_simd! {
    Avx2F32, f32, __m256, __m256i, __m256, lanes: 8,
    load: _mm256_loadu_ps, store: _mm256_storeu_ps, set1: _mm256_set1_ps,
    add: _mm256_add_ps, sub: _mm256_sub_ps, mul: _mm256_mul_ps, div: _mm256_div_ps,
    fmadd: |a, b, c| arch!(_mm256_fmadd_ps(a, b, c)),
    fnmadd: |a, b, c| arch!(_mm256_fnmadd_ps(a, b, c)),
    min: _mm256_min_ps, max: _mm256_max_ps, sqrt: _mm256_sqrt_ps,
    lt: |a, b| arch!(_mm256_cmp_ps::<_CMP_LT_OQ>(a, b)),
    le: |a, b| arch!(_mm256_cmp_ps::<_CMP_LE_OQ>(a, b)),
    eq: |a, b| arch!(_mm256_cmp_ps::<_CMP_EQ_OQ>(a, b)),
    unord: |a, b| arch!(_mm256_cmp_ps::<_CMP_UNORD_Q>(a, b)),
    select: |m, a, b| arch!(_mm256_blendv_ps(b, a, m)),
    mask_or: |a, b| arch!(_mm256_or_ps(a, b)),
    mask_any: |m| arch!(_mm256_movemask_ps(m)) != 0,
    to_bits: _mm256_castps_si256, from_bits: _mm256_castsi256_ps,
    iset1: _mm256_set1_epi32 as i32, iadd: _mm256_add_epi32, isub: _mm256_sub_epi32,
    iand: _mm256_and_si256, ior: _mm256_or_si256, ixor: _mm256_xor_si256,
    sll: _mm256_sll_epi32, srl: _mm256_srl_epi32,
    itest: |a, b| arch!({
        let zero = _mm256_cmpeq_epi32(_mm256_and_si256(a, b), _mm256_setzero_si256());
        _mm256_castsi256_ps(_mm256_xor_si256(zero, _mm256_set1_epi32(-1)))
    }),
}

impl_simd! {
    Avx2F64, f64, __m256d, __m256i, __m256d, lanes: 4,
    load: _mm256_loadu_pd, store: _mm256_storeu_pd, set1: _mm256_set1_pd,
    add: _mm256_add_pd, sub: _mm256_sub_pd, mul: _mm256_mul_pd, div: _mm256_div_pd,
    fmadd: |a, b, c| arch!(_mm256_fmadd_pd(a, b, c)),
    fnmadd: |a, b, c| arch!(_mm256_fnmadd_pd(a, b, c)),
    min: _mm256_min_pd, max: _mm256_max_pd, sqrt: _mm256_sqrt_pd,
    lt: |a, b| arch!(_mm256_cmp_pd::<_CMP_LT_OQ>(a, b)),
    le: |a, b| arch!(_mm256_cmp_pd::<_CMP_LE_OQ>(a, b)),
    eq: |a, b| arch!(_mm256_cmp_pd::<_CMP_EQ_OQ>(a, b)),
    unord: |a, b| arch!(_mm256_cmp_pd::<_CMP_UNORD_Q>(a, b)),
    select: |m, a, b| arch!(_mm256_blendv_pd(b, a, m)),
    mask_or: |a, b| arch!(_mm256_or_pd(a, b)),
    mask_any: |m| arch!(_mm256_movemask_pd(m)) != 0,
    to_bits: _mm256_castpd_si256, from_bits: _mm256_castsi256_pd,
    iset1: _mm256_set1_epi64x as i64, iadd: _mm256_add_epi64, isub: _mm256_sub_epi64,
    iand: _mm256_and_si256, ior: _mm256_or_si256, ixor: _mm256_xor_si256,
    sll: _mm256_sll_epi64, srl: _mm256_srl_epi64,
    itest: |a, b| arch!({
        let zero = _mm256_cmpeq_epi64(_mm256_and_si256(a, b), _mm256_setzero_si256());
        _mm256_castsi256_pd(_mm256_xor_si256(zero, _mm256_set1_epi32(-1)))
    }),
}

// ----- AVX-512F ------------------------------------------------------------------------------

impl_simd! {
    Avx512F32, f32, __m512, __m512i, __mmask16, lanes: 16,
    load: _mm512_loadu_ps, store: _mm512_storeu_ps, set1: _mm512_set1_ps,
    add: _mm512_add_ps, sub: _mm512_sub_ps, mul: _mm512_mul_ps, div: _mm512_div_ps,
    fmadd: |a, b, c| arch!(_mm512_fmadd_ps(a, b, c)),
    fnmadd: |a, b, c| arch!(_mm512_fnmadd_ps(a, b, c)),
    min: _mm512_min_ps, max: _mm512_max_ps, sqrt: _mm512_sqrt_ps,
    lt: |a, b| arch!(_mm512_cmp_ps_mask::<_CMP_LT_OQ>(a, b)),
    le: |a, b| arch!(_mm512_cmp_ps_mask::<_CMP_LE_OQ>(a, b)),
    eq: |a, b| arch!(_mm512_cmp_ps_mask::<_CMP_EQ_OQ>(a, b)),
    unord: |a, b| arch!(_mm512_cmp_ps_mask::<_CMP_UNORD_Q>(a, b)),
    select: |m, a, b| arch!(_mm512_mask_blend_ps(m, b, a)),
    mask_or: |a, b| a | b,
    mask_any: |m| m != 0,
    to_bits: _mm512_castps_si512, from_bits: _mm512_castsi512_ps,
    iset1: _mm512_set1_epi32 as i32, iadd: _mm512_add_epi32, isub: _mm512_sub_epi32,
    iand: _mm512_and_si512, ior: _mm512_or_si512, ixor: _mm512_xor_si512,
    sll: _mm512_sll_epi32, srl: _mm512_srl_epi32,
    itest: |a, b| arch!(_mm512_test_epi32_mask(a, b)),
}

impl_simd! {
    Avx512F64, f64, __m512d, __m512i, __mmask8, lanes: 8,
    load: _mm512_loadu_pd, store: _mm512_storeu_pd, set1: _mm512_set1_pd,
    add: _mm512_add_pd, sub: _mm512_sub_pd, mul: _mm512_mul_pd, div: _mm512_div_pd,
    fmadd: |a, b, c| arch!(_mm512_fmadd_pd(a, b, c)),
    fnmadd: |a, b, c| arch!(_mm512_fnmadd_pd(a, b, c)),
    min: _mm512_min_pd, max: _mm512_max_pd, sqrt: _mm512_sqrt_pd,
    lt: |a, b| arch!(_mm512_cmp_pd_mask::<_CMP_LT_OQ>(a, b)),
    le: |a, b| arch!(_mm512_cmp_pd_mask::<_CMP_LE_OQ>(a, b)),
    eq: |a, b| arch!(_mm512_cmp_pd_mask::<_CMP_EQ_OQ>(a, b)),
    unord: |a, b| arch!(_mm512_cmp_pd_mask::<_CMP_UNORD_Q>(a, b)),
    select: |m, a, b| arch!(_mm512_mask_blend_pd(m, b, a)),
    mask_or: |a, b| a | b,
    mask_any: |m| m != 0,
    to_bits: _mm512_castpd_si512, from_bits: _mm512_castsi512_pd,
    iset1: _mm512_set1_epi64 as i64, iadd: _mm512_add_epi64, isub: _mm512_sub_epi64,
    iand: _mm512_and_si512, ior: _mm512_or_si512, ixor: _mm512_xor_si512,
    sll: _mm512_sll_epi64, srl: _mm512_srl_epi64,
    itest: |a, b| arch!(_mm512_test_epi64_mask(a, b)),
}
