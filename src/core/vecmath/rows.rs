//! src/core/vecmath/rows.rs: fused softmax / log_softmax / logsumexp along one dim of a
//! contiguous block, vectorised with the element kernels' `exp` and `log` (PyTorch:
//! `native/cpu/SoftMaxKernel.cpp`, `_vec_softmax_lastdim` and `_vec_softmax`).
//!
//! Note [Fused softmax]
//! The input is viewed as `[outer, d, inner]` (contiguous) and reduced along `d`:
//! - `inner == 1` (the last dim): per row, one pass for the max (NaN-propagating, as torch's
//!   `vec::maximum`), one for `sum(exp(x - max))` (softmax stores the exponentials), one for
//!   the output: softmax `e * (1 / sum)`, log_softmax `(x - max) - log(sum)`, as torch. The
//!   row's lanes are summed as vectors and then across lanes, so the rounding of the sum
//!   depends on the vector width: levels agree within a few ULP, not bit for bit.
//! - `inner > 1`: a vector of `LANES` neighbouring columns at a time, each lane its own
//!   column, walking the `d` rows; every lane computes the same operations in the same order
//!   at every fused level, so AVX2 and AVX-512 agree bit for bit.
//! - logsumexp: `log(sum(exp(x - m))) + m` with `m` the max, replaced by 0 when it is ±inf
//!   (torch's `logsumexp`: all -inf gives -inf, a +inf gives inf).
//!
//! - rows shorter than `LANES` (`inner == 1`, `d < LANES`, as the class scores of a small
//!   classifier): `LANES` rows at a time through a transposed stack tile, one row per lane,
//!   by the `inner > 1` kernel. A row's max and sum then take its elements in the same order
//!   as the one-row kernel (which sums a single partial vector lane by lane from lane 0, the
//!   -inf padding adding 0), and the same `exp`/`log`: the same values, for a fraction of the
//!   work (no partial loads, horizontal reductions or full-width `exp` per row).
//!
//! Tails (fewer than `LANES` elements) go through a stack buffer padded with -inf, which
//! adds nothing to the max or the sum.

use super::kernels::{self, Real};
use super::simd::Simd;

/// Which fused reduction a kernel computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SoftmaxOp {
    /// `exp(x - max) / sum(exp(x - max))`.
    Softmax,
    /// `x - max - log(sum(exp(x - max)))`.
    LogSoftmax,
    /// `log(sum(exp(x)))` computed stably; one output per reduced line.
    LogSumExp,
}

#[inline(always)]
fn neg_inf<V: Simd>() -> V
where
    V::E: Real,
{
    V::splat(V::E::of(f64::NEG_INFINITY))
}

/// `LANES` elements at `p`, of which the first `rest` are read and the others are -inf.
///
/// # Safety
/// `p` is readable for `rest` elements, `rest <= LANES <= 16`.
#[inline(always)]
unsafe fn load_partial<V: Simd>(p: *const V::E, rest: usize) -> V
where
    V::E: Real,
{
    let mut buf = [V::E::of(f64::NEG_INFINITY); 16];
    // SAFETY: `rest` elements readable at `p` (contract), `buf` holds 16 >= rest.
    unsafe {
        std::ptr::copy_nonoverlapping(p, buf.as_mut_ptr(), rest);
        V::load(buf.as_ptr())
    }
}

/// Stores the first `rest` lanes of `v` at `p`.
///
/// # Safety
/// `p` is writable for `rest` elements, `rest <= LANES <= 16`.
#[inline(always)]
unsafe fn store_partial<V: Simd>(v: V, p: *mut V::E, rest: usize) {
    let mut buf = [V::E::default(); 16];
    // SAFETY: `buf` holds 16 >= LANES elements; `rest` elements writable at `p` (contract).
    unsafe {
        v.store(buf.as_mut_ptr());
        std::ptr::copy_nonoverlapping(buf.as_ptr(), p, rest);
    }
}

/// Helpers the kernels need beyond `Simd`.
trait SimdExt: Simd {
    /// The sum of the lanes, in every lane (lane 0 first, in order).
    fn hsum(self) -> Self;
    /// The max of the lanes, in every lane.
    fn hmax(self) -> Self;
}

impl<V: Simd> SimdExt for V {
    #[inline(always)]
    fn hsum(self) -> V {
        let mut t = [V::E::default(); 16];
        // SAFETY: `t` holds 16 >= LANES elements.
        unsafe { self.store(t.as_mut_ptr()) };
        let mut s = V::splat(t[0]);
        for &x in &t[1..V::LANES] {
            s = s.add(V::splat(x));
        }
        s
    }
    #[inline(always)]
    fn hmax(self) -> V {
        let mut t = [V::E::default(); 16];
        // SAFETY: `t` holds 16 >= LANES elements.
        unsafe { self.store(t.as_mut_ptr()) };
        let mut s = V::splat(t[0]);
        for &x in &t[1..V::LANES] {
            s = s.max(V::splat(x));
        }
        s
    }
}

/// The max of `n` elements at `p` (stride 1) in every lane; NaN if any is NaN, -inf for none.
///
/// # Safety
/// `p` readable for `n` elements.
#[inline(always)]
unsafe fn row_max<V: Simd>(p: *const V::E, n: usize) -> V
where
    V::E: Real,
{
    let mut acc = neg_inf::<V>();
    let mut nan = acc.is_nan();
    let mut i = 0;
    while i + V::LANES <= n {
        // SAFETY: in range.
        let x = unsafe { V::load(p.add(i)) };
        acc = acc.max(x);
        nan = V::mask_or(nan, x.is_nan());
        i += V::LANES;
    }
    if i < n {
        // SAFETY: `n - i < LANES` elements in range.
        let x = unsafe { load_partial::<V>(p.add(i), n - i) };
        acc = acc.max(x);
        nan = V::mask_or(nan, x.is_nan());
    }
    let nan_any = V::mask_any(nan);
    let m = acc.hmax();
    if nan_any {
        V::splat(V::E::NAN)
    } else {
        m
    }
}

/// One row (`inner == 1`) of `OP` (0 softmax, 1 log_softmax, 2 logsumexp); see Note [Fused
/// softmax].
///
/// # Safety
/// `src` readable for `n` elements, `dst` writable for `n` (1 for logsumexp), disjoint.
#[inline(always)]
pub(crate) unsafe fn row<V: Simd, const OP: u8>(src: *const V::E, dst: *mut V::E, n: usize)
where
    V::E: Real,
{
    // SAFETY: the contract.
    let m = unsafe { row_max::<V>(src, n) };
    let zero = V::splat(V::E::default());
    let shift = if OP == 2 {
        // ±inf max → 0 (torch's logsumexp).
        V::select(m.abs().eq(V::splat(V::E::INFINITY)), zero, m)
    } else {
        m
    };
    let mut s = zero;
    let mut i = 0;
    while i + V::LANES <= n {
        // SAFETY: in range; `dst` written only in range.
        unsafe {
            let e = kernels::exp(V::load(src.add(i)).sub(shift));
            if OP == 0 {
                e.store(dst.add(i));
            }
            s = s.add(e);
        }
        i += V::LANES;
    }
    if i < n {
        // SAFETY: `n - i < LANES` elements in range.
        unsafe {
            let e = kernels::exp(load_partial::<V>(src.add(i), n - i).sub(shift));
            if OP == 0 {
                store_partial(e, dst.add(i), n - i);
            }
            s = s.add(e);
        }
    }
    let s = s.hsum();
    match OP {
        0 => {
            let r = V::splat(V::E::of(1.0)).div(s);
            let mut i = 0;
            while i + V::LANES <= n {
                // SAFETY: in range.
                unsafe { V::load(dst.add(i)).mul(r).store(dst.add(i)) };
                i += V::LANES;
            }
            if i < n {
                // SAFETY: `n - i < LANES` elements in range.
                unsafe {
                    let x = load_partial::<V>(dst.add(i), n - i).mul(r);
                    store_partial(x, dst.add(i), n - i);
                }
            }
        }
        1 => {
            let ls = kernels::log(s);
            let mut i = 0;
            while i + V::LANES <= n {
                // SAFETY: in range.
                unsafe { V::load(src.add(i)).sub(m).sub(ls).store(dst.add(i)) };
                i += V::LANES;
            }
            if i < n {
                // SAFETY: `n - i < LANES` elements in range.
                unsafe {
                    let x = load_partial::<V>(src.add(i), n - i).sub(m).sub(ls);
                    store_partial(x, dst.add(i), n - i);
                }
            }
        }
        _ => {
            let r = kernels::log(s).add(shift);
            // SAFETY: `dst` writable for one element.
            unsafe { store_partial(r, dst, 1) };
        }
    }
}

/// `w <= LANES` neighbouring columns (`inner > 1`) over `d` rows at stride `inner`; see Note
/// [Fused softmax]. Logsumexp writes `w` elements at `dst` (one per column).
///
/// # Safety
/// `src + r * inner + j` readable and (not logsumexp) `dst + r * inner + j` writable for
/// `r < d`, `j < w`; logsumexp: `dst` writable for `w`; disjoint.
#[inline(always)]
pub(crate) unsafe fn cols<V: Simd, const OP: u8>(
    src: *const V::E,
    dst: *mut V::E,
    d: usize,
    inner: usize,
    w: usize,
) where
    V::E: Real,
{
    let full = w == V::LANES;
    // SAFETY: callers pass in-range row pointers (the contract); `w` elements are read.
    let ld = |p: *const V::E| unsafe {
        if full {
            V::load(p)
        } else {
            load_partial::<V>(p, w)
        }
    };
    // SAFETY: as `ld`, `w` elements written.
    let st = |v: V, p: *mut V::E| unsafe {
        if full {
            v.store(p)
        } else {
            store_partial(v, p, w)
        }
    };
    let mut m = neg_inf::<V>();
    let mut nan = m.is_nan();
    for r in 0..d {
        // SAFETY: row r is in range (contract).
        let x = ld(unsafe { src.add(r * inner) });
        m = m.max(x);
        nan = V::mask_or(nan, x.is_nan());
    }
    let m = V::select(nan, V::splat(V::E::NAN), m);
    let zero = V::splat(V::E::default());
    let shift = if OP == 2 {
        V::select(m.abs().eq(V::splat(V::E::INFINITY)), zero, m)
    } else {
        m
    };
    let mut s = zero;
    for r in 0..d {
        // SAFETY: row r is in range (contract).
        let e = kernels::exp(ld(unsafe { src.add(r * inner) }).sub(shift));
        if OP == 0 {
            // SAFETY: as above.
            st(e, unsafe { dst.add(r * inner) });
        }
        s = s.add(e);
    }
    match OP {
        0 => {
            let rcp = V::splat(V::E::of(1.0)).div(s);
            for r in 0..d {
                // SAFETY: row r is in range (contract).
                let p = unsafe { dst.add(r * inner) };
                st(ld(p).mul(rcp), p);
            }
        }
        1 => {
            let ls = kernels::log(s);
            for r in 0..d {
                // SAFETY: row r is in range (contract).
                let (x, p) = unsafe { (ld(src.add(r * inner)), dst.add(r * inner)) };
                st(x.sub(m).sub(ls), p);
            }
        }
        _ => st(kernels::log(s).add(shift), dst),
    }
}

/// Every line of a `[outer, d, inner]` block (see Note [Fused softmax]): `dst` is
/// `[outer, d, inner]`, or `[outer, inner]` for logsumexp.
///
/// # Safety
/// `src` readable for `outer·d·inner` elements, `dst` writable for its shape, disjoint.
#[inline(always)]
pub(crate) unsafe fn block<V: Simd, const OP: u8>(
    src: *const V::E,
    dst: *mut V::E,
    outer: usize,
    d: usize,
    inner: usize,
) where
    V::E: Real,
{
    if inner == 1 && d < V::LANES && outer > 1 {
        // SAFETY: the contract.
        return unsafe { short_rows::<V, OP>(src, dst, outer, d) };
    }
    for o in 0..outer {
        // SAFETY: line `o` of the block and its output are in range (contract).
        unsafe {
            let s = src.add(o * d * inner);
            let t = dst.add(if OP == 2 { o * inner } else { o * d * inner });
            if inner == 1 {
                row::<V, OP>(s, t, d);
            } else {
                let mut j = 0;
                while j < inner {
                    let w = V::LANES.min(inner - j);
                    cols::<V, OP>(s.add(j), t.add(j), d, inner, w);
                    j += w;
                }
            }
        }
    }
}

/// `block` for rows shorter than `LANES` (`inner == 1`, `d < LANES`): `LANES` rows at a time,
/// transposed into a stack tile (lanes past the last row hold zeros, computed and dropped), by
/// `cols`; see Note [Fused softmax].
///
/// # Safety
/// As `block` with `inner == 1` and `d < LANES <= 16`.
#[inline(always)]
unsafe fn short_rows<V: Simd, const OP: u8>(
    src: *const V::E,
    dst: *mut V::E,
    outer: usize,
    d: usize,
) where
    V::E: Real,
{
    let lanes = V::LANES;
    debug_assert!(d < lanes && lanes <= 16);
    let mut tin = [V::E::default(); 256];
    let mut tout = [V::E::default(); 256];
    let mut o = 0;
    while o < outer {
        let w = lanes.min(outer - o);
        if w < lanes {
            tin[..d * lanes].fill(V::E::default());
        }
        for r in 0..w {
            for c in 0..d {
                // SAFETY: row o + r < outer, column c < d of the contiguous block (contract).
                tin[c * lanes + r] = unsafe { *src.add((o + r) * d + c) };
            }
        }
        // SAFETY: the tiles hold d·lanes <= 256 elements at row stride `lanes`; full width.
        unsafe { cols::<V, OP>(tin.as_ptr(), tout.as_mut_ptr(), d, lanes, lanes) };
        for r in 0..w {
            if OP == 2 {
                // SAFETY: logsumexp writes one element per row; row o + r < outer.
                unsafe { *dst.add(o + r) = tout[r] };
            } else {
                for c in 0..d {
                    // SAFETY: row o + r < outer, column c < d of the output (contract).
                    unsafe { *dst.add((o + r) * d + c) = tout[c * lanes + r] };
                }
            }
        }
        o += w;
    }
}
