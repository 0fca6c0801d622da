//! src/core/ops/gemm.rs: the GEMM layer behind the matrix products (PyTorch:
//! `native/CPUBlas.cpp`, `native/cpu/BlasKernel.cpp`, and the batched loop of `bmm`) — the
//! batched driver that runs one kernel per batch matrix, cache-blocked float kernels with an
//! AVX2 + FMA instance and a split by rows across threads, and the integer kernel.
//!
//! Note [GEMM results across levels]
//! The float GEMM runs at the vecmath dispatch level (Note [CPU dispatch levels]): an AVX-512F
//! micro-kernel (12×32 f32, 12×16 f64: 24 accumulators in zmm registers), an AVX2 + FMA one
//! (6×16 f32, 6×8 f64) or the portable one (4×8, unfused). Every kernel computes an element
//! of `c` as: for each `KC`-deep slice (`kc_block`, the same at every level), a sum started
//! from zero that adds the slice's products in order, then added to `c`. So the two fused
//! levels give bit-identical results (only the tile shapes differ, and a tile does not
//! change what is summed in which order); the baseline rounds each product separately and
//! differs from them by the rounding of the products: at most `k·eps·sum|a||b|` per element
//! (tests check each level against an f64 reference with that bound, and the fused levels
//! against each other bit for bit). Threads split the rows of `c`, which changes nothing in
//! any element's sum.

use super::linalg::not_implemented_for_bool;
use crate::core::dtype::{DType, Element};
use crate::core::error::Result;
use crate::core::interrupt::{self, Ticker};
use crate::core::iter::strided_for_each;
use crate::core::parallel::{self, SendPtr};
use crate::core::tensor::Tensor;
use crate::core::vecmath::{self, Level};
use std::ops::{Add, Mul};

// ----- batched driver ------------------------------------------------------------------------

/// `out[..., :, :] = a[..., :, :] @ b[..., :, :]` for `a: [*batch, n, k]`, `b: [*batch, k, p]`
/// (any strides, 0 along broadcast dims) and `out: [*batch, n, p]`, a fresh zero-filled
/// contiguous tensor that nothing else aliases. Shapes and dtypes are checked by the callers.
/// Bool raises torch's "not implemented" error for `op`, except for empty products (torch
/// returns before dispatching).
pub(super) fn batched_matmul_into(out: &Tensor, a: &Tensor, b: &Tensor, op: &str) -> Result<()> {
    let nd = a.dim();
    debug_assert!(nd >= 2 && b.dim() == nd && out.dim() == nd && out.is_contiguous());
    let (n, k, p) = (a.sizes()[nd - 2], a.sizes()[nd - 1], b.sizes()[nd - 1]);
    if out.numel() == 0 || k == 0 {
        return Ok(());
    }
    match a.dtype() {
        DType::Bool => Err(not_implemented_for_bool(op)),
        DType::Float32 => {
            run_batches::<f32>(out, a, b, n, k, p, gemm_float::<f32>);
            Ok(())
        }
        DType::Float64 => {
            run_batches::<f64>(out, a, b, n, k, p, gemm_float::<f64>);
            Ok(())
        }
        DType::UInt8 => {
            run_batches::<u8>(out, a, b, n, k, p, gemm_int::<u8>);
            Ok(())
        }
        DType::Int8 => {
            run_batches::<i8>(out, a, b, n, k, p, gemm_int::<i8>);
            Ok(())
        }
        DType::Int16 => {
            run_batches::<i16>(out, a, b, n, k, p, gemm_int::<i16>);
            Ok(())
        }
        DType::Int32 => {
            run_batches::<i32>(out, a, b, n, k, p, gemm_int::<i32>);
            Ok(())
        }
        DType::Int64 => {
            run_batches::<i64>(out, a, b, n, k, p, gemm_int::<i64>);
            Ok(())
        }
    }
}

/// A GEMM kernel: `c (m×n, row-major, contiguous) += a (m×k) · b (k×n)`.
type Kernel<T> = unsafe fn(usize, usize, usize, MatRef<T>, MatRef<T>, &mut [T]);

/// Run `kernel` once per batch index (see `batched_matmul_into`).
#[allow(clippy::too_many_arguments)]
fn run_batches<T: Element>(
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    n: usize,
    k: usize,
    p: usize,
    kernel: Kernel<T>,
) {
    let nd = a.dim();
    let batch = &a.sizes()[..nd - 2];
    let (sa, sb) = (a.strides(), b.strides());
    let (a_ptr, b_ptr) = (a.data_ptr::<T>() as *const T, b.data_ptr::<T>() as *const T);
    let total = out.numel();
    // SAFETY: `out` is a fresh contiguous tensor of `total` elements that no other tensor or
    // reference aliases (the callers allocate it), so a unique mutable slice over it is sound.
    let c_all = unsafe { std::slice::from_raw_parts_mut(out.data_ptr::<T>(), total) };
    let (ars, acs, brs, bcs) = (sa[nd - 2], sa[nd - 1], sb[nd - 2], sb[nd - 1]);
    // The batch matrices at offsets `oa` of `a` (base `a0`) and `ob` of `b` (base `b0`).
    let mat = move |a0: *const T, b0: *const T, oa: isize, ob: isize| {
        (
            MatRef {
                ptr: a0.wrapping_offset(oa),
                rs: ars,
                cs: acs,
            },
            MatRef {
                ptr: b0.wrapping_offset(ob),
                rs: brs,
                cs: bcs,
            },
        )
    };
    let batches = total / (n * p);
    let flops = n.saturating_mul(p).saturating_mul(k);
    if batches > 1 && flops < PAR_GEMM_MIN_FLOPS && parallel::get_num_threads() > 1 {
        // Many small products (bmm): the batch is split across threads, whole matrices per
        // task; each matrix is computed by the same kernel call as in the serial loop.
        let mut offs: Vec<(isize, isize)> = Vec::new();
        if offs.try_reserve_exact(batches).is_ok() {
            strided_for_each(batch, [&sa[..nd - 2], &sb[..nd - 2]], |[oa, ob]| {
                offs.push((oa, ob))
            });
            let grain = PAR_GEMM_MIN_FLOPS.div_ceil(flops.max(1)).max(1);
            let cp = SendPtr(c_all.as_mut_ptr());
            let (ap, bp) = (SendPtr(a_ptr as *mut T), SendPtr(b_ptr as *mut T));
            parallel::parallel_for(batches, grain, |i0, i1| {
                for (i, &(oa, ob)) in offs.iter().enumerate().take(i1).skip(i0) {
                    let (am, bm) = mat(ap.get() as *const T, bp.get() as *const T, oa, ob);
                    // SAFETY: output matrix `i` (n·p elements at i·n·p) is this task's alone
                    // (tasks are disjoint ranges of batch indices) and inside `out`; the
                    // operands are as in the serial loop below.
                    unsafe {
                        let c = std::slice::from_raw_parts_mut(cp.get().add(i * n * p), n * p);
                        kernel(n, p, k, am, bm, c);
                    }
                }
            });
            return;
        }
    }
    let mut chunks = c_all.chunks_exact_mut(n * p);
    strided_for_each(batch, [&sa[..nd - 2], &sb[..nd - 2]], |[oa, ob]| {
        let c = chunks.next().expect("one output matrix per batch index");
        let (am, bm) = mat(a_ptr, b_ptr, oa, ob);
        // SAFETY: `oa`/`ob` are offsets of batch matrices inside `a`/`b` (from their own
        // geometry), so `am` addresses a valid n×k matrix and `bm` a valid k×p matrix of `T`;
        // `c` holds exactly n·p elements.
        unsafe { kernel(n, p, k, am, bm, c) };
    });
}

// ----- kernels --------------------------------------------------------------------------------

/// A strided matrix operand: its first element and row/column strides, in elements.
#[derive(Clone, Copy)]
struct MatRef<T> {
    ptr: *const T,
    rs: isize,
    cs: isize,
}

impl<T: Copy> MatRef<T> {
    /// The element at row `i`, column `j`.
    ///
    /// # Safety
    /// `(i, j)` lies inside the matrix this `MatRef` was made for.
    #[inline(always)]
    unsafe fn at(&self, i: usize, j: usize) -> T {
        // SAFETY: in bounds by the caller's contract.
        unsafe { *self.ptr.offset(i as isize * self.rs + j as isize * self.cs) }
    }

    /// Row `i`, columns `j0..j0 + len`, as a slice when the columns are contiguous.
    ///
    /// # Safety
    /// The row range lies inside the matrix this `MatRef` was made for.
    #[inline(always)]
    unsafe fn row_slice(&self, i: usize, j0: usize, len: usize) -> Option<&[T]> {
        if self.cs != 1 {
            return None;
        }
        // SAFETY: contiguous columns; the range is inside the matrix by the caller's contract,
        // and the data is not written while the kernel runs.
        Some(unsafe {
            std::slice::from_raw_parts(self.ptr.offset(i as isize * self.rs + j0 as isize), len)
        })
    }
}

/// The floating element types of the GEMM kernel (f32, f64).
trait FloatElem: Element + Add<Output = Self> + Mul<Output = Self> {
    const ZERO: Self;
    /// `a * b + c`, fused when `FMA` (only instantiated where the CPU has FMA).
    fn madd<const FMA: bool>(a: Self, b: Self, c: Self) -> Self;
    /// The blocked kernel compiled for AVX2 + FMA.
    ///
    /// # Safety
    /// The CPU supports AVX2 and FMA; the operands satisfy `gemm_float`'s contract.
    #[cfg(target_arch = "x86_64")]
    unsafe fn gemm_avx2(
        m: usize,
        n: usize,
        k: usize,
        a: MatRef<Self>,
        b: MatRef<Self>,
        c: &mut [Self],
    );
    /// The blocked kernel compiled for AVX-512F (with AVX2 and FMA).
    ///
    /// # Safety
    /// The CPU supports AVX-512F, AVX2 and FMA; the operands satisfy `gemm_float`'s contract.
    #[cfg(target_arch = "x86_64")]
    unsafe fn gemm_avx512(
        m: usize,
        n: usize,
        k: usize,
        a: MatRef<Self>,
        b: MatRef<Self>,
        c: &mut [Self],
    );
}

/// A micro-kernel: `c[i, j] += sum_p ap[p, i] * bp[p, j]` for `i < h`, `j < w` over the
/// packed `kc×MR` panel `ap` and `kc×NR` panel `bp`, `c` row-major with row stride `ldc`.
/// The sum of each element starts from zero and adds the products in `p` order (fused or
/// not, as the kernel's level), then is added to `c` once: every kernel of the same fusing
/// computes the same value for an element (Note [GEMM results across levels]).
///
/// # Safety
/// `ap` holds `kc·MR` and `bp` `kc·NR` elements; `c` is valid for `h` rows of `w` elements at
/// stride `ldc`, `h <= MR`, `w <= NR`; the CPU has the kernel's features.
type MicroKernel<T> = unsafe fn(usize, *const T, *const T, *mut T, usize, usize, usize);

/// An explicit-register micro-kernel for one x86 level: `$mr` rows of `$nv` vectors of
/// `$lanes` lanes, accumulators held in registers (the loops over `i` and `v` have constant
/// bounds and unroll), `b`'s row loaded once per `p` and `a`'s element broadcast.
macro_rules! x86_micro_kernel {
    (
        $name:ident, $t:ty, $feat:literal, $vt:ty, $mr:literal, $nv:literal, $lanes:literal,
        zero: $zero:ident, load: $load:ident, store: $store:ident, set1: $set1:ident,
        fmadd: $fmadd:ident, add: $add:ident
    ) => {
        /// # Safety
        /// `MicroKernel`'s contract; the CPU has the features named in `target_feature`.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $feat)]
        unsafe fn $name(
            kc: usize,
            ap: *const $t,
            bp: *const $t,
            c: *mut $t,
            ldc: usize,
            h: usize,
            w: usize,
        ) {
            use std::arch::x86_64::*;
            const NR: usize = $nv * $lanes;
            // SAFETY: (the whole body) the features are enabled on this function; the loads
            // read `kc` rows of the packed panels, inside their lengths (contract); the stores
            // write rows `i < h`, columns `< w` of `c` (full tiles) or the local `tile`.
            unsafe {
                let mut acc: [[$vt; $nv]; $mr] = [[$zero(); $nv]; $mr];
                let (mut a, mut b) = (ap, bp);
                for _ in 0..kc {
                    let mut bv: [$vt; $nv] = [$zero(); $nv];
                    for v in 0..$nv {
                        bv[v] = $load(b.add(v * $lanes));
                    }
                    for i in 0..$mr {
                        let ai = $set1(*a.add(i));
                        for v in 0..$nv {
                            acc[i][v] = $fmadd(ai, bv[v], acc[i][v]);
                        }
                    }
                    a = a.add($mr);
                    b = b.add(NR);
                }
                if h == $mr && w == NR {
                    for i in 0..$mr {
                        let row = c.add(i * ldc);
                        for v in 0..$nv {
                            let p = row.add(v * $lanes);
                            $store(p, $add($load(p), acc[i][v]));
                        }
                    }
                } else {
                    let mut tile = [[0.0 as $t; NR]; $mr];
                    for i in 0..$mr {
                        for v in 0..$nv {
                            $store(tile[i].as_mut_ptr().add(v * $lanes), acc[i][v]);
                        }
                    }
                    for (i, trow) in tile.iter().enumerate().take(h) {
                        let row = c.add(i * ldc);
                        for (j, &tv) in trow.iter().enumerate().take(w) {
                            *row.add(j) += tv;
                        }
                    }
                }
            }
        }
    };
}

x86_micro_kernel!(ukr_f32_avx2, f32, "avx2,fma", __m256, 6, 2, 8,
    zero: _mm256_setzero_ps, load: _mm256_loadu_ps, store: _mm256_storeu_ps,
    set1: _mm256_set1_ps, fmadd: _mm256_fmadd_ps, add: _mm256_add_ps);
x86_micro_kernel!(ukr_f64_avx2, f64, "avx2,fma", __m256d, 6, 2, 4,
    zero: _mm256_setzero_pd, load: _mm256_loadu_pd, store: _mm256_storeu_pd,
    set1: _mm256_set1_pd, fmadd: _mm256_fmadd_pd, add: _mm256_add_pd);
x86_micro_kernel!(ukr_f32_avx512, f32, "avx512f,avx2,fma", __m512, 12, 2, 16,
    zero: _mm512_setzero_ps, load: _mm512_loadu_ps, store: _mm512_storeu_ps,
    set1: _mm512_set1_ps, fmadd: _mm512_fmadd_ps, add: _mm512_add_ps);
x86_micro_kernel!(ukr_f64_avx512, f64, "avx512f,avx2,fma", __m512d, 12, 2, 8,
    zero: _mm512_setzero_pd, load: _mm512_loadu_pd, store: _mm512_storeu_pd,
    set1: _mm512_set1_pd, fmadd: _mm512_fmadd_pd, add: _mm512_add_pd);

/// The unpacked kernel for small products at one x86 level (`is_small_product`): tiles of `$r`
/// rows × `$nv` vectors of `$lanes` columns with the accumulators in registers, `a`'s elements
/// broadcast from where they are and `b`'s rows loaded in place; the columns right of the last
/// full tile one vector at a time, masked past `n` (`x86_masked_edge!`). Each element's sum starts from zero, adds its `k` products in
/// order with fused multiply-adds and is then added to `c` once: what the micro-kernels compute
/// for a single `KC` slice, so the result equals the packed kernel's bit for bit (Note [GEMM
/// results across levels]). Below ~64³ the packing, its buffers and the padded edge tiles cost
/// more than the arithmetic: a batch of 256 products of 32×32 float32 took 2.8× numpy's time
/// through the packed kernel (BENCHMARKS.md).
macro_rules! x86_small_kernel {
    (
        $name:ident, $t:ty, $feat:literal, $vt:ty, $r:literal, $nv:literal, $lanes:literal,
        zero: $zero:ident, load: $load:ident, store: $store:ident, set1: $set1:ident,
        fmadd: $fmadd:ident, add: $add:ident, mask: $mask:ident, mload: $mload:ident,
        mstore: $mstore:ident
    ) => {
        /// # Safety
        /// As `gemm_float`, with `b.cs == 1`; the CPU has the features named in
        /// `target_feature`.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $feat)]
        unsafe fn $name(m: usize, n: usize, k: usize, a: MatRef<$t>, b: MatRef<$t>, c: &mut [$t]) {
            use std::arch::x86_64::*;
            const NR: usize = $nv * $lanes;
            debug_assert!(b.cs == 1 && c.len() == m * n);
            let full_n = n / NR * NR;
            let cp = c.as_mut_ptr();
            let mut i0 = 0;
            while i0 < m {
                let rows = $r.min(m - i0);
                // Rows past the last one repeat it (the tile's loops keep constant bounds);
                // their sums are never stored.
                let mut ri = [0usize; $r];
                for (r, x) in ri.iter_mut().enumerate() {
                    *x = (i0 + r).min(m - 1);
                }
                let mut j0 = 0;
                while j0 < full_n {
                    // SAFETY: (the tile) rows `ri` < m and columns p < k of `a`; row p < k,
                    // columns j0..j0+NR <= n of `b`, contiguous (b.cs == 1); rows i0..i0+rows,
                    // columns j0..j0+NR of the m×n `c`; the features are this function's.
                    unsafe {
                        let mut acc: [[$vt; $nv]; $r] = [[$zero(); $nv]; $r];
                        for p in 0..k {
                            let brow = b.ptr.offset(p as isize * b.rs).add(j0);
                            let mut bv: [$vt; $nv] = [$zero(); $nv];
                            for v in 0..$nv {
                                bv[v] = $load(brow.add(v * $lanes));
                            }
                            for r in 0..$r {
                                let ar = $set1(a.at(ri[r], p));
                                for v in 0..$nv {
                                    acc[r][v] = $fmadd(ar, bv[v], acc[r][v]);
                                }
                            }
                        }
                        for (r, accr) in acc.iter().enumerate().take(rows) {
                            let row = cp.add((i0 + r) * n + j0);
                            for v in 0..$nv {
                                let q = row.add(v * $lanes);
                                $store(q, $add($load(q), accr[v]));
                            }
                        }
                    }
                    j0 += NR;
                }
                // Columns right of the last full tile: one vector of `$lanes` columns at a
                // time, the lanes past `n` masked off (never read or written), the same sums
                // in the same order as in the full tiles.
                while j0 < n {
                    let mask = $mask(n - j0);
                    // SAFETY: (the tile) rows `ri` < m and columns p < k of `a`; row p < k of
                    // `b`, columns j0.. up to n, contiguous (b.cs == 1), the lanes past n
                    // masked; rows i0..i0+rows of `c`, columns j0.. up to n, likewise masked;
                    // the features are this function's.
                    unsafe {
                        let mut acc: [$vt; $r] = [$zero(); $r];
                        for p in 0..k {
                            let bv = $mload(b.ptr.offset(p as isize * b.rs).add(j0), mask);
                            for r in 0..$r {
                                acc[r] = $fmadd($set1(a.at(ri[r], p)), bv, acc[r]);
                            }
                        }
                        for (r, &accr) in acc.iter().enumerate().take(rows) {
                            let q = cp.add((i0 + r) * n + j0);
                            $mstore(q, mask, $add($mload(q, mask), accr));
                        }
                    }
                    j0 += $lanes;
                }
                i0 += $r;
            }
        }
    };
}

/// Masked loads and stores for the small kernel's right edge: `tail_mask_*(w)` enables the
/// first `min(w, lanes)` lanes; `mask_load_*` reads only those lanes (the others are zero) and
/// `mask_store_*` writes only those, so a vector may straddle the end of a row or of the matrix.
macro_rules! x86_masked_edge {
    (
        $t:ty, $feat:literal, $vt:ty, $lanes:literal, $mt:ty,
        $mask:ident = |$w:ident| $mk:expr,
        $mload:ident = |$lp:ident, $lm:ident| $ld:expr,
        $mstore:ident = |$sp:ident, $sm:ident, $sv:ident| $st:expr
    ) => {
        /// The lane mask for the first `min(w, lanes)` lanes.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $feat)]
        #[inline]
        fn $mask($w: usize) -> $mt {
            #[allow(unused_imports)]
            use std::arch::x86_64::*;
            let $w = $w.min($lanes);
            $mk
        }
        /// The masked lanes of `p`, zero elsewhere.
        ///
        /// # Safety
        /// The masked lanes of `p` are readable; the CPU has the features.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $feat)]
        #[inline]
        unsafe fn $mload($lp: *const $t, $lm: $mt) -> $vt {
            use std::arch::x86_64::*;
            // SAFETY: only the masked lanes are read (contract).
            unsafe { $ld }
        }
        /// Store the masked lanes of `v` to `p`.
        ///
        /// # Safety
        /// The masked lanes of `p` are writable; the CPU has the features.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $feat)]
        #[inline]
        unsafe fn $mstore($sp: *mut $t, $sm: $mt, $sv: $vt) {
            use std::arch::x86_64::*;
            // SAFETY: only the masked lanes are written (contract).
            unsafe { $st }
        }
    };
}

/// Lane masks for AVX2's `maskload`/`maskstore`: the 8 (or 4) words from offset `lanes - w`
/// have their sign bit set in the first `w` lanes.
#[cfg(target_arch = "x86_64")]
static AVX2_MASK32: [i32; 16] = [-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0];
#[cfg(target_arch = "x86_64")]
static AVX2_MASK64: [i64; 8] = [-1, -1, -1, -1, 0, 0, 0, 0];

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::{__m256, __m256d, __m256i, __m512, __m512d, __mmask16, __mmask8};

x86_masked_edge!(
    f32,
    "avx2,fma",
    __m256,
    8,
    __m256i,
    tail_mask_f32_avx2 = |w| {
        // SAFETY: 8 - w + 8 <= 16 words of the table.
        unsafe { _mm256_loadu_si256(AVX2_MASK32.as_ptr().add(8 - w) as *const __m256i) }
    },
    mask_load_f32_avx2 = |p, m| _mm256_maskload_ps(p, m),
    mask_store_f32_avx2 = |p, m, v| _mm256_maskstore_ps(p, m, v)
);
x86_masked_edge!(
    f64,
    "avx2,fma",
    __m256d,
    4,
    __m256i,
    tail_mask_f64_avx2 = |w| {
        // SAFETY: 4 - w + 4 <= 8 words of the table.
        unsafe { _mm256_loadu_si256(AVX2_MASK64.as_ptr().add(4 - w) as *const __m256i) }
    },
    mask_load_f64_avx2 = |p, m| _mm256_maskload_pd(p, m),
    mask_store_f64_avx2 = |p, m, v| _mm256_maskstore_pd(p, m, v)
);
x86_masked_edge!(
    f32,
    "avx512f,avx2,fma",
    __m512,
    16,
    __mmask16,
    tail_mask_f32_avx512 = |w| ((1u32 << w) - 1) as __mmask16,
    mask_load_f32_avx512 = |p, m| _mm512_maskz_loadu_ps(m, p),
    mask_store_f32_avx512 = |p, m, v| _mm512_mask_storeu_ps(p, m, v)
);
x86_masked_edge!(
    f64,
    "avx512f,avx2,fma",
    __m512d,
    8,
    __mmask8,
    tail_mask_f64_avx512 = |w| ((1u32 << w) - 1) as __mmask8,
    mask_load_f64_avx512 = |p, m| _mm512_maskz_loadu_pd(m, p),
    mask_store_f64_avx512 = |p, m, v| _mm512_mask_storeu_pd(p, m, v)
);

x86_small_kernel!(small_f32_avx2, f32, "avx2,fma", __m256, 6, 2, 8,
    zero: _mm256_setzero_ps, load: _mm256_loadu_ps, store: _mm256_storeu_ps,
    set1: _mm256_set1_ps, fmadd: _mm256_fmadd_ps, add: _mm256_add_ps,
    mask: tail_mask_f32_avx2, mload: mask_load_f32_avx2, mstore: mask_store_f32_avx2);
x86_small_kernel!(small_f64_avx2, f64, "avx2,fma", __m256d, 6, 2, 4,
    zero: _mm256_setzero_pd, load: _mm256_loadu_pd, store: _mm256_storeu_pd,
    set1: _mm256_set1_pd, fmadd: _mm256_fmadd_pd, add: _mm256_add_pd,
    mask: tail_mask_f64_avx2, mload: mask_load_f64_avx2, mstore: mask_store_f64_avx2);
x86_small_kernel!(small_f32_avx512, f32, "avx512f,avx2,fma", __m512, 8, 2, 16,
    zero: _mm512_setzero_ps, load: _mm512_loadu_ps, store: _mm512_storeu_ps,
    set1: _mm512_set1_ps, fmadd: _mm512_fmadd_ps, add: _mm512_add_ps,
    mask: tail_mask_f32_avx512, mload: mask_load_f32_avx512, mstore: mask_store_f32_avx512);
x86_small_kernel!(small_f64_avx512, f64, "avx512f,avx2,fma", __m512d, 8, 2, 8,
    zero: _mm512_setzero_pd, load: _mm512_loadu_pd, store: _mm512_storeu_pd,
    set1: _mm512_set1_pd, fmadd: _mm512_fmadd_pd, add: _mm512_add_pd,
    mask: tail_mask_f64_avx512, mload: mask_load_f64_avx512, mstore: mask_store_f64_avx512);

/// `FloatElem` for one float type, with its AVX2 + FMA and AVX-512F instances of the blocked
/// kernel. `#[target_feature]` needs a named function per instantiation, so each type gets
/// its own wrappers, `$avx2` and `$avx512`, around its micro-kernels `$ukr2` (`$mr2`×`$nr2`)
/// and `$ukr512` (`$mr5`×`$nr5`).
macro_rules! impl_float_elem {
    ($t:ty, $avx2:ident, $ukr2:ident, $small2:ident, $mr2:literal, $nr2:literal,
     $avx512:ident, $ukr512:ident, $small512:ident, $mr5:literal, $nr5:literal) => {
        impl FloatElem for $t {
            const ZERO: Self = 0.0;
            #[inline(always)]
            fn madd<const FMA: bool>(a: Self, b: Self, c: Self) -> Self {
                if FMA {
                    a.mul_add(b, c)
                } else {
                    a * b + c
                }
            }
            #[cfg(target_arch = "x86_64")]
            unsafe fn gemm_avx2(
                m: usize,
                n: usize,
                k: usize,
                a: MatRef<$t>,
                b: MatRef<$t>,
                c: &mut [$t],
            ) {
                // SAFETY: forwarded contract (CPU features and operand bounds).
                unsafe { $avx2(m, n, k, a, b, c) }
            }
            #[cfg(target_arch = "x86_64")]
            unsafe fn gemm_avx512(
                m: usize,
                n: usize,
                k: usize,
                a: MatRef<$t>,
                b: MatRef<$t>,
                c: &mut [$t],
            ) {
                // SAFETY: forwarded contract (CPU features and operand bounds).
                unsafe { $avx512(m, n, k, a, b, c) }
            }
        }

        /// # Safety
        /// The CPU supports AVX2 and FMA; the operands satisfy `gemm_float`'s contract.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,fma")]
        unsafe fn $avx2(m: usize, n: usize, k: usize, a: MatRef<$t>, b: MatRef<$t>, c: &mut [$t]) {
            if is_small_product::<$t>(m, n, k) {
                // SAFETY: forwarded operand contract; `with_contiguous_rows` gives the small
                // kernel a `b` with contiguous rows; its features are this function's.
                return unsafe { with_contiguous_rows(k, n, b, |b| $small2(m, n, k, a, b, c)) };
            }
            // SAFETY: forwarded operand contract; the micro-kernel's features are this
            // function's.
            unsafe { gemm_blocked::<$t, $mr2, $nr2>(m, n, k, a, b, c, $ukr2) }
        }

        /// # Safety
        /// The CPU supports AVX-512F, AVX2 and FMA; the operands satisfy `gemm_float`'s
        /// contract.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx512f,avx2,fma")]
        unsafe fn $avx512(
            m: usize,
            n: usize,
            k: usize,
            a: MatRef<$t>,
            b: MatRef<$t>,
            c: &mut [$t],
        ) {
            if is_small_product::<$t>(m, n, k) {
                // SAFETY: forwarded operand contract; `with_contiguous_rows` gives the small
                // kernel a `b` with contiguous rows; its features are this function's.
                return unsafe { with_contiguous_rows(k, n, b, |b| $small512(m, n, k, a, b, c)) };
            }
            // SAFETY: forwarded operand contract; the micro-kernel's features are this
            // function's.
            unsafe { gemm_blocked::<$t, $mr5, $nr5>(m, n, k, a, b, c, $ukr512) }
        }
    };
}

impl_float_elem!(
    f32,
    gemm_f32_avx2,
    ukr_f32_avx2,
    small_f32_avx2,
    6,
    16,
    gemm_f32_avx512,
    ukr_f32_avx512,
    small_f32_avx512,
    12,
    32
);

impl_float_elem!(
    f64,
    gemm_f64_avx2,
    ukr_f64_avx2,
    small_f64_avx2,
    6,
    8,
    gemm_f64_avx512,
    ukr_f64_avx512,
    small_f64_avx512,
    12,
    16
);

/// Rows of `a` per packed block (a multiple of every MR used).
const MC: usize = 96;

/// Columns of `b` per packed block.
const NC: usize = 1024;

/// Depth of a packed block: 4 KiB of `T` per packed row (1024 f32, 512 f64). The same at every
/// level, so that the fused levels add the same products in the same order (Note [GEMM
/// results across levels]). Measured on a Zen 4 (1 MiB L2): a deep block halves the passes
/// over `c`, and was worth ~20% over 256 at 1024² (BENCHMARKS.md).
const fn kc_block<T>() -> usize {
    4096 / size_of::<T>()
}

/// The floating-point GEMM: `c (m×n, row-major) += a (m×k) · b (k×n)`, accumulating in `T`
/// (f32 in f32, as torch's BLAS does). Matrix-vector shapes (`n == 1`, `m == 1`) take direct
/// loops; the rest goes through the packed, cache-blocked kernel (AVX2+FMA when available).
///
/// # Safety
/// `a` addresses a valid m×k matrix and `b` a valid k×n matrix of `T`, neither overlapping `c`;
/// `c.len() == m * n`.
unsafe fn gemm_float<T: FloatElem>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: &mut [T],
) {
    debug_assert_eq!(c.len(), m * n);
    if m == 0 || n == 0 || k == 0 {
        return;
    }
    if n == 1 {
        // Matrix-vector: one dot product per row; 8 independent partial sums when both the
        // row and the vector are contiguous, so the loop vectorises.
        let mut ticker = Ticker::new();
        for (i, ci) in c.iter_mut().enumerate() {
            ticker.tick(k);
            let mut acc = T::ZERO;
            if a.cs == 1 && b.rs == 1 {
                // SAFETY: row i of `a` and column 0 of `b` have k elements (contract).
                let (x, y) = unsafe {
                    (
                        std::slice::from_raw_parts(a.ptr.offset(i as isize * a.rs), k),
                        std::slice::from_raw_parts(b.ptr, k),
                    )
                };
                let mut lanes = [T::ZERO; 8];
                let (xc, yc) = (x.chunks_exact(8), y.chunks_exact(8));
                let (xr, yr) = (xc.remainder(), yc.remainder());
                for (xs, ys) in xc.zip(yc) {
                    for l in 0..8 {
                        lanes[l] = T::madd::<false>(xs[l], ys[l], lanes[l]);
                    }
                }
                for &l in &lanes {
                    acc = acc + l;
                }
                for (&xv, &yv) in xr.iter().zip(yr) {
                    acc = T::madd::<false>(xv, yv, acc);
                }
            } else {
                for p in 0..k {
                    // SAFETY: (i, p) and (p, 0) are inside `a` and `b` (contract).
                    acc = unsafe { T::madd::<false>(a.at(i, p), b.at(p, 0), acc) };
                }
            }
            *ci = *ci + acc;
        }
        return;
    }
    if m == 1 {
        // Vector-matrix: c += a[0, p] * b[p, :], row by row of `b`.
        let mut ticker = Ticker::new();
        for p in 0..k {
            ticker.tick(n);
            // SAFETY: (0, p) is inside `a`; row p of `b` has n elements (contract).
            let (av, row) = unsafe { (a.at(0, p), b.row_slice(p, 0, n)) };
            match row {
                Some(row) => {
                    for (cv, &bv) in c.iter_mut().zip(row) {
                        *cv = T::madd::<false>(av, bv, *cv);
                    }
                }
                None => {
                    for (j, cv) in c.iter_mut().enumerate() {
                        // SAFETY: (p, j) is inside `b` (contract).
                        *cv = T::madd::<false>(av, unsafe { b.at(p, j) }, *cv);
                    }
                }
            }
        }
        return;
    }
    let rows = gemm_par_rows(m, n, k);
    if rows < m {
        // Row blocks of `a` and `c` on several threads; each element of `c` is computed by the
        // same sequence of operations as in one call, so the result does not depend on it.
        let (ap, cp) = (SendPtr(a.ptr as *mut T), SendPtr(c.as_mut_ptr()));
        let (ars, acs) = (a.rs, a.cs);
        let (bp, brs, bcs) = (SendPtr(b.ptr as *mut T), b.rs, b.cs);
        parallel::parallel_for(m, rows, |r0, r1| {
            let a_blk = MatRef {
                ptr: ap.get().wrapping_offset(r0 as isize * ars) as *const T,
                rs: ars,
                cs: acs,
            };
            let b_all = MatRef {
                ptr: bp.get() as *const T,
                rs: brs,
                cs: bcs,
            };
            // SAFETY: rows r0..r1 of `c` (row-major, n per row) are this chunk's alone
            // (chunks are disjoint) and lie inside `c`'s m·n elements.
            let c_blk =
                unsafe { std::slice::from_raw_parts_mut(cp.get().add(r0 * n), (r1 - r0) * n) };
            // SAFETY: `a_blk` addresses rows r0..r1 of the valid m×k matrix `a`, `b_all` is
            // `b`; the caller's contract covers the rest.
            unsafe { gemm_blocked_dispatch(r1 - r0, n, k, a_blk, b_all, c_blk) };
        });
        return;
    }
    // SAFETY: the caller's operand contract.
    unsafe { gemm_blocked_dispatch(m, n, k, a, b, c) }
}

/// Multiply-adds from which a GEMM is split across threads.
const PAR_GEMM_MIN_FLOPS: usize = 1 << 21;

/// Rows of `c` per parallel task for an m×n×k GEMM: `m` itself (one task, no threads) for small
/// products or one configured thread; else one task per thread, in whole micro-tiles (12 is a
/// multiple of every `MR`) so only the last task has a ragged edge.
fn gemm_par_rows(m: usize, n: usize, k: usize) -> usize {
    let threads = parallel::get_num_threads();
    if threads <= 1 || m.saturating_mul(n).saturating_mul(k) < PAR_GEMM_MIN_FLOPS || m < 24 {
        return m;
    }
    m.div_ceil(threads).next_multiple_of(12)
}

/// The blocked kernel for the dispatch level (Note [CPU dispatch levels]): AVX-512F, AVX2 +
/// FMA, or the portable one.
///
/// # Safety
/// As `gemm_float`.
unsafe fn gemm_blocked_dispatch<T: FloatElem>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: &mut [T],
) {
    // SAFETY: the caller's contract; `level()` is supported by this CPU.
    unsafe { gemm_blocked_at(vecmath::level(), m, n, k, a, b, c) }
}

/// `gemm_blocked_dispatch` at a given level (tests compare the levels).
///
/// # Safety
/// As `gemm_float`, and the CPU supports `level`.
#[allow(clippy::too_many_arguments)]
unsafe fn gemm_blocked_at<T: FloatElem>(
    level: Level,
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: &mut [T],
) {
    #[cfg(target_arch = "x86_64")]
    match level {
        // SAFETY: the CPU supports the level (contract), and the operands are the caller's.
        Level::Avx512 => return unsafe { T::gemm_avx512(m, n, k, a, b, c) },
        // SAFETY: as above.
        Level::Avx2 => return unsafe { T::gemm_avx2(m, n, k, a, b, c) },
        Level::Baseline => {}
    }
    // SAFETY: the caller's operand contract; the portable micro-kernel needs no features.
    unsafe { gemm_blocked::<T, 4, 8>(m, n, k, a, b, c, micro_kernel::<T, 4, 8>) }
}

/// Multiply-adds up to which a product with row-contiguous `b` skips packing at the fused
/// levels (`x86_small_kernel!`).
/// Packing both operands, two pack buffers and zero-padded edge tiles cost more than the
/// arithmetic below ~64³: a batch of 256 products of 32×32 float32 took 2.8× numpy's time
/// through the packed kernel (BENCHMARKS.md).
const SMALL_GEMM_FLOPS: usize = 64 * 64 * 64;

/// Whether the unpacked small-product kernel (`x86_small_kernel!`) serves an m×n×k product:
/// small and one `KC`-deep slice. A `b` without contiguous rows (a transposed view, as in
/// `x @ w.t()`) is copied first (`with_contiguous_rows`), as the packed kernel would copy it
/// into its panels.
#[inline(always)]
fn is_small_product<T>(m: usize, n: usize, k: usize) -> bool {
    k <= kc_block::<T>() && m.saturating_mul(n).saturating_mul(k) <= SMALL_GEMM_FLOPS
}

/// Run `f` on the k×n matrix `b` with contiguous rows: `b` itself when its columns are
/// contiguous, else a row-major copy (at most `SMALL_GEMM_FLOPS` elements for a small product).
///
/// # Safety
/// `b` addresses a valid k×n matrix of `T`.
#[inline(always)]
unsafe fn with_contiguous_rows<T: FloatElem, R>(
    k: usize,
    n: usize,
    b: MatRef<T>,
    f: impl FnOnce(MatRef<T>) -> R,
) -> R {
    if b.cs == 1 {
        return f(b);
    }
    let mut rows = Vec::with_capacity(k * n);
    for p in 0..k {
        // SAFETY: (p, j) is inside `b` (contract).
        rows.extend((0..n).map(|j| unsafe { b.at(p, j) }));
    }
    f(MatRef {
        ptr: rows.as_ptr(),
        rs: n as isize,
        cs: 1,
    })
}

/// The packed, cache-blocked GEMM (BLIS loop order): for each `NC`-column block of `b` and
/// `KC`-deep slice, pack `b` into `NR`-wide panels; for each `MC`-row block of `a`, pack it into
/// `MR`-tall panels; then the `MR×NR` register-tile micro-kernel `ukr` sweeps the panels and
/// adds its tile into `c`. Edges are zero-padded in the packs. Strided operands (transposed
/// views) are read in place by the packing, never copied first.
///
/// # Safety
/// As `gemm_float`, and `ukr` is an `MR×NR` micro-kernel the CPU can run.
#[inline(always)]
unsafe fn gemm_blocked<T: FloatElem, const MR: usize, const NR: usize>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: &mut [T],
    ukr: MicroKernel<T>,
) {
    let (mcb, kcb, ncb) = (MC, kc_block::<T>(), NC);
    let nc_max = ncb.min(n.div_ceil(NR) * NR);
    let kc_max = kcb.min(k);
    let mc_max = mcb.min(m.div_ceil(MR) * MR);
    // Bounded by the block constants, not by the user's sizes.
    let mut bpack = vec![T::ZERO; kc_max * nc_max];
    let mut apack = vec![T::ZERO; kc_max * mc_max];
    let cp = c.as_mut_ptr();
    for jc in (0..n).step_by(ncb) {
        let nc = ncb.min(n - jc);
        for pc in (0..k).step_by(kcb) {
            let kc = kcb.min(k - pc);
            // Pack b[pc..pc+kc, jc..jc+nc] as NR-wide panels, row p of a panel contiguous.
            for (panel, jr) in (0..nc).step_by(NR).enumerate() {
                let w = NR.min(nc - jr);
                let dst = &mut bpack[panel * kc * NR..(panel + 1) * kc * NR];
                // SAFETY: rows pc..pc+kc and columns jc..jc+nc are inside `b` (contract).
                unsafe { pack_panel(dst, b, pc, jc + jr, kc, w, NR) };
            }
            for ic in (0..m).step_by(mcb) {
                // At most MC·KC·NC multiply-adds between two checkpoints (Note [Interrupting
                // kernels]).
                interrupt::checkpoint();
                let mc = mcb.min(m - ic);
                // Pack a[ic..ic+mc, pc..pc+kc] as MR-tall panels, column p of a panel
                // contiguous: the panel of aᵀ's columns, so `pack_panel` on the transpose.
                let at = MatRef {
                    ptr: a.ptr,
                    rs: a.cs,
                    cs: a.rs,
                };
                for (panel, ir) in (0..mc).step_by(MR).enumerate() {
                    let h = MR.min(mc - ir);
                    let dst = &mut apack[panel * kc * MR..(panel + 1) * kc * MR];
                    // SAFETY: rows ic..ic+mc and columns pc..pc+kc are inside `a`.
                    unsafe { pack_panel(dst, at, pc, ic + ir, kc, h, MR) };
                }
                // Sweep the tiles.
                for (bpanel, jr) in (0..nc).step_by(NR).enumerate() {
                    let w = NR.min(nc - jr);
                    let bp = &bpack[bpanel * kc * NR..(bpanel + 1) * kc * NR];
                    for (apanel, ir) in (0..mc).step_by(MR).enumerate() {
                        let h = MR.min(mc - ir);
                        let ap = &apack[apanel * kc * MR..(apanel + 1) * kc * MR];
                        let start = (ic + ir) * n + jc + jr;
                        // SAFETY: the panels hold kc·MR and kc·NR elements; rows
                        // ic+ir..ic+ir+h, columns jc+jr..jc+jr+w are inside the m×n `c`.
                        unsafe { ukr(kc, ap.as_ptr(), bp.as_ptr(), cp.add(start), n, h, w) };
                    }
                }
            }
        }
    }
}

/// Pack rows `p0..p0+kc`, columns `j0..j0+w` of `x` into `dst` as `kc` rows of `width`
/// elements (`w <= width`, the rest zero). Rows of `x` with contiguous columns are copied; a
/// column-contiguous `x` (a transposed view) is read column by column, so each source element
/// is visited in memory order either way.
///
/// # Safety
/// The rows and columns are inside the matrix `x` addresses; `dst.len() == kc * width`.
#[inline(always)]
unsafe fn pack_panel<T: FloatElem>(
    dst: &mut [T],
    x: MatRef<T>,
    p0: usize,
    j0: usize,
    kc: usize,
    w: usize,
    width: usize,
) {
    debug_assert_eq!(dst.len(), kc * width);
    if x.cs == 1 {
        for (p, row) in dst.chunks_exact_mut(width).enumerate() {
            // SAFETY: the caller's bounds.
            let src = unsafe { x.row_slice(p0 + p, j0, w) }.expect("contiguous columns");
            row[..w].copy_from_slice(src);
            row[w..].fill(T::ZERO);
        }
    } else {
        for j in 0..w {
            // SAFETY: the caller's bounds; column j0 + j, rows p0.. are inside `x`.
            let col = unsafe { x.ptr.offset((j0 + j) as isize * x.cs + p0 as isize * x.rs) };
            for p in 0..kc {
                // SAFETY: as above.
                dst[p * width + j] = unsafe { *col.offset(p as isize * x.rs) };
            }
        }
        if w < width {
            for row in dst.chunks_exact_mut(width) {
                row[w..].fill(T::ZERO);
            }
        }
    }
}

/// The portable micro-kernel (`MicroKernel`, unfused): the `MR×NR` register tile of
/// `ap (kc×MR packed) · bp (kc×NR packed)`, added into `c`.
///
/// # Safety
/// `MicroKernel`'s contract.
unsafe fn micro_kernel<T: FloatElem, const MR: usize, const NR: usize>(
    kc: usize,
    ap: *const T,
    bp: *const T,
    c: *mut T,
    ldc: usize,
    h: usize,
    w: usize,
) {
    // SAFETY: the panels hold kc·MR and kc·NR elements (contract).
    let (ap, bp) = unsafe {
        (
            std::slice::from_raw_parts(ap, kc * MR),
            std::slice::from_raw_parts(bp, kc * NR),
        )
    };
    let mut acc = [[T::ZERO; NR]; MR];
    for (av, bv) in ap.chunks_exact(MR).zip(bp.chunks_exact(NR)) {
        for i in 0..MR {
            let ai = av[i];
            for j in 0..NR {
                acc[i][j] = T::madd::<false>(ai, bv[j], acc[i][j]);
            }
        }
    }
    for (i, trow) in acc.iter().enumerate().take(h) {
        for (j, &tv) in trow.iter().enumerate().take(w) {
            // SAFETY: row i < h, column j < w of `c` (contract).
            unsafe {
                let cv = c.add(i * ldc + j);
                *cv = *cv + tv;
            }
        }
    }
}

/// The integer element types of the GEMM kernel, with wrapping arithmetic (C++'s behaviour on
/// overflow in practice).
trait IntElem: Element {
    fn wrapping_mul_add(a: Self, b: Self, c: Self) -> Self;
}

macro_rules! impl_int_elem {
    ($($t:ty),*) => {$(
        impl IntElem for $t {
            #[inline(always)]
            fn wrapping_mul_add(a: Self, b: Self, c: Self) -> Self {
                c.wrapping_add(a.wrapping_mul(b))
            }
        }
    )*};
}

impl_int_elem!(u8, i8, i16, i32, i64);

/// The integer GEMM: `c (m×n, row-major) += a (m×k) · b (k×n)` with wrapping arithmetic, in
/// i-k-j order so the inner loop runs along contiguous rows of `b` and `c`.
///
/// # Safety
/// As `gemm_float`.
unsafe fn gemm_int<T: IntElem>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: &mut [T],
) {
    debug_assert_eq!(c.len(), m * n);
    if n == 0 {
        return;
    }
    let mut ticker = Ticker::new();
    for (i, crow) in c.chunks_exact_mut(n).enumerate().take(m) {
        ticker.tick(n * k);
        for p in 0..k {
            // SAFETY: (i, p) is inside `a`; row p of `b` has n elements (contract).
            let (av, row) = unsafe { (a.at(i, p), b.row_slice(p, 0, n)) };
            match row {
                Some(row) => {
                    for (cv, &bv) in crow.iter_mut().zip(row) {
                        *cv = T::wrapping_mul_add(av, bv, *cv);
                    }
                }
                None => {
                    for (j, cv) in crow.iter_mut().enumerate() {
                        // SAFETY: (p, j) is inside `b` (contract).
                        *cv = T::wrapping_mul_add(av, unsafe { b.at(p, j) }, *cv);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::dtype::DType;
    use crate::core::ops::{mm, transpose};

    fn t_f32(v: Vec<f32>, s: &[usize]) -> Tensor {
        Tensor::from_vec(v, s).unwrap()
    }

    /// Reference product in f64 of two row-major matrices.
    fn naive(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
        let mut c = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                c[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
            }
        }
        c
    }

    fn close(x: &[f64], y: &[f64], tol: f64) {
        assert_eq!(x.len(), y.len());
        for (a, b) in x.iter().zip(y) {
            assert!((a - b).abs() <= tol * (1.0 + b.abs()), "{a} vs {b}");
        }
    }

    /// A GEMM split by rows across threads equals the single-call kernel bit for bit, for
    /// contiguous and transposed (strided) operands.
    #[test]
    fn parallel_gemm_matches_single_call() {
        crate::core::parallel::set_num_threads(3);
        let (m, k, n) = (301, 70, 203);
        let av: Vec<f32> = (0..m * k)
            .map(|i| ((i * 37) % 101) as f32 * 0.01 - 0.5)
            .collect();
        let bv: Vec<f32> = (0..k * n)
            .map(|i| ((i * 53) % 97) as f32 * 0.02 - 1.0)
            .collect();
        assert!(
            gemm_par_rows(m, n, k) < m,
            "the test must take the threaded path"
        );
        let a = t_f32(av.clone(), &[m, k]);
        let b = t_f32(bv.clone(), &[k, n]);
        let mut want = vec![0.0f32; m * n];
        let (am, bm) = (
            MatRef {
                ptr: av.as_ptr(),
                rs: k as isize,
                cs: 1,
            },
            MatRef {
                ptr: bv.as_ptr(),
                rs: n as isize,
                cs: 1,
            },
        );
        // SAFETY: `am`/`bm` address the m×k and k×n row-major buffers; `want` has m·n elements.
        unsafe { gemm_blocked_dispatch(m, n, k, am, bm, &mut want) };
        assert_eq!(mm(&a, &b).unwrap().to_vec::<f32>(), want);
        // b transposed: a k×n view of an n×k buffer.
        let bt = t_f32(
            (0..n * k).map(|i| bv[(i % k) * n + i / k]).collect(),
            &[n, k],
        );
        let btv = transpose(&bt, 0, 1).unwrap();
        assert_eq!(mm(&a, &btv).unwrap().to_vec::<f32>(), want);
    }

    /// Every level the CPU has, against an f64 reference within the bound of Note [GEMM
    /// results across levels]; the fused levels bit for bit equal; row-major, transposed and
    /// general strided operands; edge tiles (sizes not multiples of any MR/NR) and a depth
    /// over one `KC` slice.
    #[test]
    fn gemm_levels_agree() {
        fn run<T: FloatElem + Into<f64>>(conv: fn(f64) -> T, tol: f64) {
            for &(m, k, n) in &[
                (1, 1, 1),
                (2, 3, 2),
                (13, 17, 35),
                (25, 1100, 33),
                (97, 64, 129),
                (12, 8, 32),
                (64, 64, 64),
            ] {
                let av: Vec<T> = (0..m * k)
                    .map(|i| conv(((i * 37 % 101) as f64 - 50.0) / 64.0))
                    .collect();
                let bv: Vec<T> = (0..k * n)
                    .map(|i| conv(((i * 53 % 97) as f64 - 48.0) / 32.0))
                    .collect();
                // bt: b stored column-major (n×k buffer); as: a with a column stride of 2.
                let bt: Vec<T> = (0..n * k).map(|i| bv[(i % k) * n + i / k]).collect();
                let a2: Vec<T> = av.iter().flat_map(|&x| [x, conv(9.0)]).collect();
                let (af, bf): (Vec<f64>, Vec<f64>) = (
                    av.iter().map(|&x| x.into()).collect(),
                    bv.iter().map(|&x| x.into()).collect(),
                );
                let want = naive(&af, &bf, m, k, n);
                let bound: Vec<f64> = {
                    let aa: Vec<f64> = af.iter().map(|x| x.abs()).collect();
                    let bb: Vec<f64> = bf.iter().map(|x| x.abs()).collect();
                    naive(&aa, &bb, m, k, n)
                };
                let mut fused: Option<Vec<T>> = None;
                for level in Level::ALL.into_iter().filter(|l| l.is_supported()) {
                    let operands = [
                        (
                            MatRef {
                                ptr: av.as_ptr(),
                                rs: k as isize,
                                cs: 1,
                            },
                            MatRef {
                                ptr: bv.as_ptr(),
                                rs: n as isize,
                                cs: 1,
                            },
                        ),
                        (
                            MatRef {
                                ptr: av.as_ptr(),
                                rs: k as isize,
                                cs: 1,
                            },
                            MatRef {
                                ptr: bt.as_ptr(),
                                rs: 1,
                                cs: k as isize,
                            },
                        ),
                        (
                            MatRef {
                                ptr: a2.as_ptr(),
                                rs: 2 * k as isize,
                                cs: 2,
                            },
                            MatRef {
                                ptr: bv.as_ptr(),
                                rs: n as isize,
                                cs: 1,
                            },
                        ),
                    ];
                    let mut first: Option<Vec<T>> = None;
                    for (am, bm) in operands {
                        let mut c = vec![T::ZERO; m * n];
                        // SAFETY: the MatRefs address m×k and k×n matrices inside the
                        // buffers; `c` has m·n elements; the level is supported.
                        unsafe { gemm_blocked_at(level, m, n, k, am, bm, &mut c) };
                        for ((&g, &w), &bd) in c.iter().zip(&want).zip(&bound) {
                            let g: f64 = g.into();
                            assert!(
                                (g - w).abs() <= tol * k as f64 * bd,
                                "{level:?} {m}x{k}x{n}: {g} vs {w}"
                            );
                        }
                        // Packing never changes the values.
                        match &first {
                            None => first = Some(c),
                            Some(f) => assert!(f == &c, "{level:?}: strided operands differ"),
                        }
                    }
                    if level != Level::Baseline {
                        match &fused {
                            None => fused = first,
                            Some(f) => assert!(Some(f) == first.as_ref(), "fused levels differ"),
                        }
                    }
                }
            }
        }
        run::<f32>(|x| x as f32, f32::EPSILON as f64);
        run::<f64>(|x| x, f64::EPSILON);
    }

    /// A batch of small products split across threads (bmm) equals the f64 reference per
    /// matrix bit for bit in f64 where exact, for broadcast and strided batches.
    #[test]
    fn batched_small_products_across_threads() {
        crate::core::parallel::set_num_threads(2);
        let (bt, m, k, n) = (300, 5, 7, 3);
        let av: Vec<f64> = (0..bt * m * k).map(|i| (i % 17) as f64 - 8.0).collect();
        let bv: Vec<f64> = (0..bt * k * n).map(|i| (i % 13) as f64 - 6.0).collect();
        let a = Tensor::from_vec(av.clone(), &[bt, m, k]).unwrap();
        let b = Tensor::from_vec(bv.clone(), &[bt, k, n]).unwrap();
        assert!(bt > 1 && m * n * k < PAR_GEMM_MIN_FLOPS);
        let got = crate::core::ops::matmul(&a, &b).unwrap().to_vec::<f64>();
        for t in 0..bt {
            let want = naive(
                &av[t * m * k..(t + 1) * m * k],
                &bv[t * k * n..(t + 1) * k * n],
                m,
                k,
                n,
            );
            assert_eq!(&got[t * m * n..(t + 1) * m * n], &want[..], "batch {t}");
        }
        // b transposed per batch (a strided view).
        let btr = transpose(&Tensor::from_vec(bv.clone(), &[bt, n, k]).unwrap(), 1, 2).unwrap();
        let got = crate::core::ops::matmul(&a, &btr).unwrap().to_vec::<f64>();
        for t in 0..bt {
            let bm: Vec<f64> = (0..k * n)
                .map(|i| bv[t * n * k + (i % n) * k + i / n])
                .collect();
            let want = naive(&av[t * m * k..(t + 1) * m * k], &bm, m, k, n);
            assert_eq!(
                &got[t * m * n..(t + 1) * m * n],
                &want[..],
                "transposed batch {t}"
            );
        }
    }

    #[test]
    fn gemm_matches_reference_on_odd_sizes() {
        for &(m, k, n) in &[
            (7, 5, 3),
            (13, 300, 33),
            (1, 9, 17),
            (17, 9, 1),
            (100, 70, 1100),
            (6, 16, 16),
        ] {
            let av: Vec<f64> = (0..m * k)
                .map(|i| ((i * 7 % 13) as f64 - 6.0) / 4.0)
                .collect();
            let bv: Vec<f64> = (0..k * n)
                .map(|i| ((i * 5 % 11) as f64 - 5.0) / 8.0)
                .collect();
            let expect = naive(&av, &bv, m, k, n);
            let a64 = Tensor::from_vec(av.clone(), &[m, k]).unwrap();
            let b64 = Tensor::from_vec(bv.clone(), &[k, n]).unwrap();
            close(&mm(&a64, &b64).unwrap().to_vec::<f64>(), &expect, 1e-12);
            let a32 = a64.to_dtype(DType::Float32).unwrap();
            let b32 = b64.to_dtype(DType::Float32).unwrap();
            close(&mm(&a32, &b32).unwrap().to_f64_vec(), &expect, 1e-4);
            // Column-major operands through transposed views.
            let a_cm = transpose(&a64, 0, 1).unwrap().contiguous().unwrap();
            let a_cm = transpose(&a_cm, 0, 1).unwrap();
            assert!(!a_cm.is_contiguous() || m == 1 || k == 1);
            close(&mm(&a_cm, &b64).unwrap().to_vec::<f64>(), &expect, 1e-12);
            let ai = a64.to_dtype(DType::Int32).unwrap();
            let bi = b64.to_dtype(DType::Int32).unwrap();
            let ei = naive(&ai.to_f64_vec(), &bi.to_f64_vec(), m, k, n);
            assert_eq!(mm(&ai, &bi).unwrap().to_f64_vec(), ei);
        }
    }
}
