//! src/core/ops/gemm.rs: the GEMM layer behind the matrix products (PyTorch:
//! `native/CPUBlas.cpp`, `native/cpu/BlasKernel.cpp`, and the batched loop of `bmm`) — the
//! batched driver that runs one kernel per batch matrix, cache-blocked float kernels with an
//! AVX2 + FMA instance and a split by rows across threads, and the integer kernel.

use super::linalg::not_implemented_for_bool;
use crate::core::dtype::{DType, Element};
use crate::core::error::Result;
use crate::core::interrupt::{self, Ticker};
use crate::core::iter::strided_for_each;
use crate::core::parallel::{self, SendPtr};
use crate::core::tensor::Tensor;
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
    let mut chunks = c_all.chunks_exact_mut(n * p);
    strided_for_each(batch, [&sa[..nd - 2], &sb[..nd - 2]], |[oa, ob]| {
        let c = chunks.next().expect("one output matrix per batch index");
        let am = MatRef {
            ptr: a_ptr.wrapping_offset(oa),
            rs: sa[nd - 2],
            cs: sa[nd - 1],
        };
        let bm = MatRef {
            ptr: b_ptr.wrapping_offset(ob),
            rs: sb[nd - 2],
            cs: sb[nd - 1],
        };
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
}

/// `FloatElem` for one float type, with its AVX2 + FMA instance of the blocked kernel
/// (`$mr` x `$nr` micro-tile). `#[target_feature]` needs a named function per instantiation,
/// so each type gets its own wrapper, `$avx2`.
macro_rules! impl_float_elem {
    ($t:ty, $avx2:ident, $mr:literal, $nr:literal) => {
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
        }

        /// # Safety
        /// The CPU supports AVX2 and FMA; the operands satisfy `gemm_float`'s contract.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,fma")]
        unsafe fn $avx2(m: usize, n: usize, k: usize, a: MatRef<$t>, b: MatRef<$t>, c: &mut [$t]) {
            // SAFETY: forwarded operand contract.
            unsafe { gemm_blocked::<$t, $mr, $nr, true>(m, n, k, a, b, c) }
        }
    };
}

impl_float_elem!(f32, gemm_f32_avx2, 6, 16);

impl_float_elem!(f64, gemm_f64_avx2, 6, 8);

/// Rows of `a` per packed block (a multiple of every MR used).
const MC: usize = 96;

/// Depth of a packed block.
const KC: usize = 256;

/// Columns of `b` per packed block.
const NC: usize = 512;

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

/// The blocked kernel for the CPU: AVX2 + FMA when detected, else the portable one.
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
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
        // SAFETY: AVX2 and FMA were just detected; the operand contract is the caller's.
        unsafe { T::gemm_avx2(m, n, k, a, b, c) };
        return;
    }
    // SAFETY: the caller's operand contract.
    unsafe { gemm_blocked::<T, 4, 8, false>(m, n, k, a, b, c) }
}

/// The packed, cache-blocked GEMM (BLIS loop order): for each `NC`-column block of `b` and
/// `KC`-deep slice, pack `b` into `NR`-wide panels; for each `MC`-row block of `a`, pack it into
/// `MR`-tall panels; then an `MR×NR` register-tile micro-kernel sweeps the panels and adds its
/// tile into `c`. Edges are zero-padded in the packs.
///
/// # Safety
/// As `gemm_float`.
#[inline(always)]
unsafe fn gemm_blocked<T: FloatElem, const MR: usize, const NR: usize, const FMA: bool>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: &mut [T],
) {
    let nc_max = NC.min(n.div_ceil(NR) * NR);
    let kc_max = KC.min(k);
    let mc_max = MC.min(m.div_ceil(MR) * MR);
    // Bounded by the block constants, not by the user's sizes.
    let mut bpack = vec![T::ZERO; kc_max * nc_max];
    let mut apack = vec![T::ZERO; kc_max * mc_max];
    for jc in (0..n).step_by(NC) {
        let nc = NC.min(n - jc);
        for pc in (0..k).step_by(KC) {
            let kc = KC.min(k - pc);
            // Pack b[pc..pc+kc, jc..jc+nc] as NR-wide panels, row p of a panel contiguous.
            for (panel, jr) in (0..nc).step_by(NR).enumerate() {
                let w = NR.min(nc - jr);
                let dst = &mut bpack[panel * kc * NR..(panel + 1) * kc * NR];
                for p in 0..kc {
                    let row = &mut dst[p * NR..(p + 1) * NR];
                    // SAFETY: rows pc..pc+kc and columns jc..jc+nc are inside `b` (contract).
                    match unsafe { b.row_slice(pc + p, jc + jr, w) } {
                        Some(src) => row[..w].copy_from_slice(src),
                        None => {
                            for (j, v) in row[..w].iter_mut().enumerate() {
                                // SAFETY: as above.
                                *v = unsafe { b.at(pc + p, jc + jr + j) };
                            }
                        }
                    }
                    row[w..].fill(T::ZERO);
                }
            }
            for ic in (0..m).step_by(MC) {
                // At most MC·KC·NC multiply-adds between two checkpoints (Note [Interrupting
                // kernels]).
                interrupt::checkpoint();
                let mc = MC.min(m - ic);
                // Pack a[ic..ic+mc, pc..pc+kc] as MR-tall panels, column p of a panel contiguous.
                for (panel, ir) in (0..mc).step_by(MR).enumerate() {
                    let h = MR.min(mc - ir);
                    let dst = &mut apack[panel * kc * MR..(panel + 1) * kc * MR];
                    for p in 0..kc {
                        let col = &mut dst[p * MR..(p + 1) * MR];
                        for (i, v) in col[..h].iter_mut().enumerate() {
                            // SAFETY: rows ic..ic+mc and columns pc..pc+kc are inside `a`.
                            *v = unsafe { a.at(ic + ir + i, pc + p) };
                        }
                        col[h..].fill(T::ZERO);
                    }
                }
                // Sweep the tiles.
                for (bpanel, jr) in (0..nc).step_by(NR).enumerate() {
                    let w = NR.min(nc - jr);
                    let bp = &bpack[bpanel * kc * NR..(bpanel + 1) * kc * NR];
                    for (apanel, ir) in (0..mc).step_by(MR).enumerate() {
                        let h = MR.min(mc - ir);
                        let ap = &apack[apanel * kc * MR..(apanel + 1) * kc * MR];
                        let tile = micro_kernel::<T, MR, NR, FMA>(ap, bp);
                        for (i, trow) in tile.iter().enumerate().take(h) {
                            let start = (ic + ir + i) * n + jc + jr;
                            for (cv, &tv) in c[start..start + w].iter_mut().zip(&trow[..w]) {
                                *cv = *cv + tv;
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The `MR×NR` register tile of `ap (kc×MR packed) · bp (kc×NR packed)`.
#[inline(always)]
fn micro_kernel<T: FloatElem, const MR: usize, const NR: usize, const FMA: bool>(
    ap: &[T],
    bp: &[T],
) -> [[T; NR]; MR] {
    let mut acc = [[T::ZERO; NR]; MR];
    for (av, bv) in ap.chunks_exact(MR).zip(bp.chunks_exact(NR)) {
        for i in 0..MR {
            let ai = av[i];
            for j in 0..NR {
                acc[i][j] = T::madd::<FMA>(ai, bv[j], acc[i][j]);
            }
        }
    }
    acc
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
