//! src/core/ops/reduce.rs: the reduction driver (PyTorch: `native/cpu/Reduce.h`,
//! `binary_kernel_reduce`) — one strided reduction over any set of dims, with lane-split and
//! pairwise contiguous kernels, parallel splits that give the same bits as the serial loop, and
//! hooks (`reduce_by`, `reduce_mask`) for reductions given as closures. The reduction ops
//! themselves are `reduce_ops.rs`.

use crate::core::dtype::Element;
use crate::core::error::{Error, Result};
use crate::core::interrupt::{self, Ticker};
use crate::core::iter::strided_for_each;
use crate::core::parallel;
use crate::core::tensor::{maybe_wrap_dim, Tensor};

/// Independent accumulators in the contiguous kernels, so the compiler can vectorise them.
pub(super) const LANES: usize = 8;

/// Float sums of up to this many contiguous elements run as one lane-split block; longer runs
/// are split in two and summed pairwise, bounding the rounding error by O(log n).
const PAIRWISE_BLOCK: usize = 1024;

/// Smallest contiguous output row for which the "accumulate rows into the output" strategy is
/// used when the innermost dimension is not reduced (below it, per-output strided loops win).
pub(super) const ROW_STRATEGY_MIN: usize = 16;

// ----- the reduction driver -------------------------------------------------------------------

/// One reduction: an accumulator type, its identity, how one element enters it, how two partial
/// accumulators combine, and (optionally) a faster kernel for a contiguous run of elements.
pub(super) trait Reducer<T: Element>: Copy {
    type Acc: Copy;
    fn identity(self) -> Self::Acc;
    fn step(self, acc: Self::Acc, v: T) -> Self::Acc;
    fn merge(self, a: Self::Acc, b: Self::Acc) -> Self::Acc;
    #[inline]
    fn reduce_slice(self, s: &[T]) -> Self::Acc {
        lanes_reduce(self, s)
    }
    /// One leaf block (at most `PAIRWISE_BLOCK` elements) of `pairwise_reduce`.
    #[inline]
    fn reduce_leaf(self, s: &[T]) -> Self::Acc {
        lanes_reduce(self, s)
    }
    /// `reduce_slice(s)` computed on several threads, with the same result bit for bit, or
    /// `None` when this reducer has no parallel form (the default) or `s` is too short.
    #[inline]
    fn par_reduce_slice(self, _s: &[T]) -> Option<Self::Acc> {
        None
    }
}

/// Reduce a contiguous slice with `LANES` independent accumulators, merged as a tree.
#[inline]
pub(super) fn lanes_reduce<T: Element, R: Reducer<T>>(r: R, s: &[T]) -> R::Acc {
    let mut lanes = [r.identity(); LANES];
    let mut chunks = s.chunks_exact(LANES);
    for c in &mut chunks {
        for (l, &v) in lanes.iter_mut().zip(c) {
            *l = r.step(*l, v);
        }
    }
    let mut tail = r.identity();
    for &v in chunks.remainder() {
        tail = r.step(tail, v);
    }
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for k in 0..width {
            lanes[k] = r.merge(lanes[k], lanes[k + width]);
        }
    }
    r.merge(lanes[0], tail)
}

/// Pairwise (cascade) reduction of a contiguous slice: blocks of `PAIRWISE_BLOCK` elements are
/// reduced with `reduce_leaf` (`lanes_reduce` unless the reducer has a vectorised kernel),
/// then combined as a binary tree.
pub(super) fn pairwise_reduce<T: Element, R: Reducer<T>>(r: R, s: &[T]) -> R::Acc {
    if s.len() <= CHECKPOINT_SPAN {
        // One interrupt checkpoint per subtree of at most `CHECKPOINT_SPAN` elements (Note
        // [Interrupting kernels]).
        interrupt::checkpoint();
        return pairwise_subtree(r, s);
    }
    let mid = (s.len() / 2) / LANES * LANES;
    r.merge(pairwise_reduce(r, &s[..mid]), pairwise_reduce(r, &s[mid..]))
}

/// Elements of the pairwise tree reduced between two interrupt checkpoints. An armed
/// checkpoint reads the clock (~20 ns through the vDSO); once per 1024-element leaf that was
/// 15% of a 16M float32 `sum` (BENCHMARKS.md), once per 32 leaves it is noise.
const CHECKPOINT_SPAN: usize = 32 * PAIRWISE_BLOCK;

/// `pairwise_reduce` below the checkpoint span: the same tree (the same `mid` at every node,
/// so the same bits), without checkpoints.
fn pairwise_subtree<T: Element, R: Reducer<T>>(r: R, s: &[T]) -> R::Acc {
    if s.len() <= PAIRWISE_BLOCK {
        return r.reduce_leaf(s);
    }
    let mid = (s.len() / 2) / LANES * LANES;
    r.merge(
        pairwise_subtree(r, &s[..mid]),
        pairwise_subtree(r, &s[mid..]),
    )
}

/// Contiguous runs from which a single-output reduction is split across threads.
const PAR_REDUCE_MIN: usize = 1 << 18;

/// Largest subtree of the pairwise tree that one parallel task reduces.
const PAR_REDUCE_LEAF: usize = 1 << 16;

/// The subtrees of `pairwise_reduce`'s tree over `len` elements starting at `lo` that have at
/// most `PAR_REDUCE_LEAF` elements (or cannot be split), in order, as `(start, len)`.
fn pairwise_leaves(lo: usize, len: usize, out: &mut Vec<(usize, usize)>) {
    if len <= PAIRWISE_BLOCK || len <= PAR_REDUCE_LEAF {
        out.push((lo, len));
        return;
    }
    let mid = (len / 2) / LANES * LANES;
    pairwise_leaves(lo, mid, out);
    pairwise_leaves(lo + mid, len - mid, out);
}

/// Merge the leaf results `parts` (from `pairwise_leaves` over `len` elements) back up the same
/// tree; `next` walks `parts` in order.
fn pairwise_combine<T: Element, R: Reducer<T>>(
    r: R,
    parts: &[R::Acc],
    next: &mut usize,
    len: usize,
) -> R::Acc {
    if len <= PAIRWISE_BLOCK || len <= PAR_REDUCE_LEAF {
        let v = parts[*next];
        *next += 1;
        return v;
    }
    let mid = (len / 2) / LANES * LANES;
    let a = pairwise_combine(r, parts, next, mid);
    let b = pairwise_combine(r, parts, next, len - mid);
    r.merge(a, b)
}

/// `pairwise_reduce(r, s)` with the leaf subtrees reduced on several threads: the tree and the
/// order of every merge are those of the serial version, so the result is identical bit for
/// bit, whatever the thread count. `None` when `s` is short, one thread is configured, or the
/// small bookkeeping buffers cannot be allocated (the caller then runs the serial kernel).
pub(super) fn par_pairwise_reduce<T: Element, R: Reducer<T> + Sync>(r: R, s: &[T]) -> Option<R::Acc>
where
    R::Acc: Send + Default,
{
    if s.len() < PAR_REDUCE_MIN || parallel::get_num_threads() <= 1 {
        return None;
    }
    let mut leaves = Vec::new();
    leaves
        .try_reserve_exact(2 * s.len().div_ceil(PAR_REDUCE_LEAF))
        .ok()?;
    pairwise_leaves(0, s.len(), &mut leaves);
    let parts = parallel::parallel_map_chunks(leaves.len(), 1, |i, _| {
        let (lo, len) = leaves[i];
        pairwise_reduce(r, &s[lo..lo + len])
    })?;
    let mut next = 0;
    Some(pairwise_combine(r, &parts, &mut next, s.len()))
}

/// Items a `DimBuf` keeps on the stack before it spills to the heap.
const DIMBUF_INLINE: usize = 8;

/// A short list of per-dimension values (sizes, strides, flags) of one reduction, held on the
/// stack up to `DIMBUF_INLINE` items and on the heap beyond: a reduction over a tensor of up to
/// eight dims allocates nothing but its output (small reductions spent most of their time in
/// such little `Vec`s).
#[derive(Clone)]
pub(crate) struct DimBuf<T: Copy + Default> {
    len: usize,
    inline: [T; DIMBUF_INLINE],
    /// Every item once more than `DIMBUF_INLINE` were pushed (then `inline` is unused).
    heap: Vec<T>,
}

impl<T: Copy + Default> DimBuf<T> {
    #[inline]
    fn new() -> Self {
        DimBuf {
            len: 0,
            inline: [T::default(); DIMBUF_INLINE],
            heap: Vec::new(),
        }
    }

    /// `n` copies of `v`.
    fn filled(n: usize, v: T) -> Self {
        if n <= DIMBUF_INLINE {
            return DimBuf {
                len: n,
                inline: [v; DIMBUF_INLINE],
                heap: Vec::new(),
            };
        }
        DimBuf {
            len: n,
            inline: [T::default(); DIMBUF_INLINE],
            heap: vec![v; n],
        }
    }

    #[inline]
    fn push(&mut self, v: T) {
        if self.len < DIMBUF_INLINE {
            self.inline[self.len] = v;
        } else {
            if self.len == DIMBUF_INLINE {
                self.heap.extend_from_slice(&self.inline);
            }
            self.heap.push(v);
        }
        self.len += 1;
    }

    fn truncate(&mut self, n: usize) {
        if n >= self.len {
            return;
        }
        if self.len > DIMBUF_INLINE && n <= DIMBUF_INLINE {
            self.inline[..n].copy_from_slice(&self.heap[..n]);
            self.heap.clear();
        } else {
            self.heap.truncate(n);
        }
        self.len = n;
    }
}

impl<T: Copy + Default> std::ops::Deref for DimBuf<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        if self.len <= DIMBUF_INLINE {
            &self.inline[..self.len]
        } else {
            &self.heap
        }
    }
}

impl<T: Copy + Default> std::ops::DerefMut for DimBuf<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        if self.len <= DIMBUF_INLINE {
            &mut self.inline[..self.len]
        } else {
            &mut self.heap
        }
    }
}

/// Merge adjacent (size, stride) dims that address memory as one dim, after dropping size-1
/// dims: `(a, sa), (b, sb)` with `sa == sb * b` become `(a * b, sb)`.
pub(super) fn coalesce(dims: &[(usize, isize)]) -> (DimBuf<usize>, DimBuf<isize>) {
    let (mut sizes, mut strides) = (DimBuf::<usize>::new(), DimBuf::<isize>::new());
    for &(size, stride) in dims {
        coalesce_push(&mut sizes, &mut strides, size, stride);
    }
    (sizes, strides)
}

/// Append one (size, stride) dim to a coalesced list (see `coalesce`).
#[inline]
fn coalesce_push(
    sizes: &mut DimBuf<usize>,
    strides: &mut DimBuf<isize>,
    size: usize,
    stride: isize,
) {
    if size == 1 {
        return;
    }
    if let (Some(ls), Some(lt)) = (sizes.last_mut(), strides.last_mut()) {
        if *lt == stride * size as isize {
            *ls *= size;
            *lt = stride;
            return;
        }
    }
    sizes.push(size);
    strides.push(stride);
}

/// `strided_for_each` over one operand, without its index buffer for up to two dims (the
/// outer loops of small reductions).
#[inline]
fn for_each_offset(sizes: &[usize], strides: &[isize], mut f: impl FnMut(isize)) {
    match (sizes, strides) {
        ([], []) => f(0),
        ([n], [st]) => {
            let mut o = 0;
            for _ in 0..*n {
                f(o);
                o += st;
            }
        }
        ([n0, n1], [st0, st1]) => {
            let mut o0 = 0;
            for _ in 0..*n0 {
                let mut o = o0;
                for _ in 0..*n1 {
                    f(o);
                    o += st1;
                }
                o0 += st0;
            }
        }
        _ => strided_for_each(sizes, [strides], |[o]| f(o)),
    }
}

/// Fallible buffer of `n` copies of `v` (never aborts on a huge `n`).
pub(super) fn try_filled_vec<A: Copy>(n: usize, v: A) -> Result<Vec<A>> {
    let mut buf = Vec::new();
    buf.try_reserve_exact(n).map_err(|_| {
        Error::out_of_memory(format!(
            "failed to allocate a reduction buffer of {n} elements"
        ))
    })?;
    buf.resize(n, v);
    Ok(buf)
}

/// The generic reduction: reduce the dims of `input` where `mask` is true with `r`, writing
/// `finish(acc)` into a new contiguous tensor of dtype `O` (reduced dims kept as size 1 when
/// `keepdim`, removed otherwise). `mask` has one entry per dim of `input`.
///
/// Strategies: (A) the reduced dims form one contiguous run → a slice kernel per output;
/// (B) the innermost kept dim is contiguous → whole rows accumulate into a row of outputs, in
/// memory order; (C) otherwise a strided loop per output.
pub(super) fn reduce_with<T: Element, O: Element, R: Reducer<T>>(
    input: &Tensor,
    mask: &[bool],
    keepdim: bool,
    r: R,
    finish: impl Fn(R::Acc) -> O,
) -> Result<Tensor> {
    debug_assert_eq!(mask.len(), input.dim());
    let (sizes, strides) = (input.sizes(), input.strides());
    let mut out_sizes = DimBuf::<usize>::new();
    // The kept dims, coalesced as they come (they stay in order).
    let (mut osz, mut ost) = (DimBuf::<usize>::new(), DimBuf::<isize>::new());
    let mut red = DimBuf::<(usize, isize)>::new();
    for d in 0..sizes.len() {
        if mask[d] {
            if keepdim {
                out_sizes.push(1);
            }
            red.push((sizes[d], strides[d]));
        } else {
            out_sizes.push(sizes[d]);
            coalesce_push(&mut osz, &mut ost, sizes[d], strides[d]);
        }
    }
    let out = Tensor::zeros(&out_sizes, O::DTYPE)?;
    let n_out = out.numel();
    if n_out == 0 {
        return Ok(out);
    }
    // SAFETY: `out` is a fresh contiguous tensor of `n_out` elements that nothing else sees yet.
    let out_slice = unsafe { std::slice::from_raw_parts_mut(out.data_ptr::<O>(), n_out) };
    if red.iter().any(|d| d.0 == 0) {
        out_slice.fill(finish(r.identity()));
        return Ok(out);
    }
    let base = input.data_ptr::<T>() as *const T;
    // The reduced dims may be visited in any order: walk them in memory order.
    if red.len() > 1 {
        sort_dims_outer_first(&mut red);
    }
    let (rsz, rst) = coalesce(&red);

    // (A) one contiguous run per output.
    if rsz.len() == 1 && rst[0] == 1 {
        let n = rsz[0];
        if n_out == 1 {
            // One output (a full reduction): the reducer may split the run across threads.
            // SAFETY: with one output, the reduced run is the `n` consecutive elements at the
            // input's data pointer.
            let s = unsafe { std::slice::from_raw_parts(base, n) };
            out_slice[0] = finish(r.par_reduce_slice(s).unwrap_or_else(|| r.reduce_slice(s)));
            return Ok(out);
        }
        let mut i = 0;
        let mut ticker = Ticker::new();
        for_each_offset(&osz, &ost, |o| {
            ticker.tick(n);
            // SAFETY: `o` is the offset of an output position's first reduced element, and the
            // reduced run is `n` consecutive elements of `input`.
            let s = unsafe { std::slice::from_raw_parts(base.offset(o), n) };
            out_slice[i] = finish(r.reduce_slice(s));
            i += 1;
        });
        return Ok(out);
    }

    // (B) innermost kept dim contiguous: accumulate whole rows.
    if let (Some(&n_last), Some(&1)) = (osz.last(), ost.last()) {
        if !rsz.is_empty() && n_last >= ROW_STRATEGY_MIN {
            let k = osz.len() - 1;
            let mut acc = try_filled_vec(n_last, r.identity())?;
            let mut p = 0;
            let mut ticker = Ticker::new();
            for_each_offset(&osz[..k], &ost[..k], |po| {
                acc.fill(r.identity());
                for_each_offset(&rsz, &rst, |ro| {
                    ticker.tick(n_last);
                    // SAFETY: `po + ro` is the offset of the first element of a contiguous row of
                    // `n_last` kept elements of `input`.
                    let row = unsafe { std::slice::from_raw_parts(base.offset(po + ro), n_last) };
                    for (a, &v) in acc.iter_mut().zip(row) {
                        *a = r.step(*a, v);
                    }
                });
                for (o, &a) in out_slice[p..p + n_last].iter_mut().zip(&acc) {
                    *o = finish(a);
                }
                p += n_last;
            });
            return Ok(out);
        }
    }

    // (C) a strided loop per output.
    let mut i = 0;
    let mut ticker = Ticker::new();
    match rsz.len() {
        0 => for_each_offset(&osz, &ost, |o| {
            ticker.tick(1);
            // SAFETY: `o` is the offset of an element of `input`.
            out_slice[i] = finish(r.step(r.identity(), unsafe { *base.offset(o) }));
            i += 1;
        }),
        1 => {
            let (n, st) = (rsz[0], rst[0]);
            for_each_offset(&osz, &ost, |o| {
                ticker.tick(n);
                let mut acc = r.identity();
                let mut p = o;
                for _ in 0..n {
                    // SAFETY: `p` walks the reduced dim of `input` from the output's offset.
                    acc = r.step(acc, unsafe { *base.offset(p) });
                    p += st;
                }
                out_slice[i] = finish(acc);
                i += 1;
            })
        }
        _ => for_each_offset(&osz, &ost, |o| {
            let mut acc = r.identity();
            for_each_offset(&rsz, &rst, |ro| {
                ticker.tick(1);
                // SAFETY: `o + ro` is the offset of an element of `input`.
                acc = r.step(acc, unsafe { *base.offset(o + ro) });
            });
            out_slice[i] = finish(acc);
            i += 1;
        }),
    }
    Ok(out)
}

/// Order `(size, stride)` dims by decreasing |stride| (stable: ties keep their order), so a
/// walk over them runs in memory order. Not generic and never inlined: a sort inside the generic
/// `reduce_with` would be one copy of the std stable sort per reduction instance.
#[inline(never)]
fn sort_dims_outer_first(dims: &mut [(usize, isize)]) {
    dims.sort_by_key(|d| std::cmp::Reverse(d.1.unsigned_abs()));
}

/// Which dims of `input` a reduction over `dims` covers (`None` or empty: all), with torch's
/// errors: IndexError for an out-of-range dim, RuntimeError for a repeated one.
pub(super) fn reduction_mask(input: &Tensor, dims: Option<&[i64]>) -> Result<DimBuf<bool>> {
    let nd = input.dim();
    let dims = match dims {
        Some(d) if !d.is_empty() => d,
        _ => return Ok(DimBuf::filled(nd, true)),
    };
    // torch's dim mask is a 64-bit set (`make_dim_mask`).
    if nd > 64 {
        return Err(Error::runtime(
            "only tensors with up to 64 dims are supported",
        ));
    }
    let mut seen = DimBuf::filled(nd.max(1), false);
    for &d in dims {
        let w = maybe_wrap_dim(d, nd)?;
        if seen[w] {
            return Err(Error::runtime(format!(
                "dim {w} appears multiple times in the list of dims"
            )));
        }
        seen[w] = true;
    }
    seen.truncate(nd);
    Ok(seen)
}

// ----- closures as reductions -----------------------------------------------------------------

/// A reduction given as closures (an identity, a step, a merge), so other files can run the
/// driver without implementing the `Reducer` trait. `merge` must be associative.
#[derive(Clone, Copy)]
struct FnReducer<A, S, M> {
    identity: A,
    step: S,
    merge: M,
}

impl<T: Element, A: Copy, S: Fn(A, T) -> A + Copy, M: Fn(A, A) -> A + Copy> Reducer<T>
    for FnReducer<A, S, M>
{
    type Acc = A;
    #[inline(always)]
    fn identity(self) -> A {
        self.identity
    }
    #[inline(always)]
    fn step(self, acc: A, v: T) -> A {
        (self.step)(acc, v)
    }
    #[inline(always)]
    fn merge(self, a: A, b: A) -> A {
        (self.merge)(a, b)
    }
}

/// Hook: run the reduction driver over the dims of `input` (dtype `T`) where `mask` is true,
/// with accumulator `A` starting at `identity`, writing `finish(acc)` as dtype `O` (shape as for
/// `sum`). `mask` has one entry per dim of `input`.
pub(crate) fn reduce_by<T: Element, O: Element, A: Copy>(
    input: &Tensor,
    mask: &[bool],
    keepdim: bool,
    identity: A,
    step: impl Fn(A, T) -> A + Copy,
    merge: impl Fn(A, A) -> A + Copy,
    finish: impl Fn(A) -> O,
) -> Result<Tensor> {
    let r = FnReducer {
        identity,
        step,
        merge,
    };
    reduce_with::<T, O, _>(input, mask, keepdim, r, finish)
}

/// Hook: torch's dim-list check for reductions (`None` or empty: every dim), as a mask.
pub(crate) fn reduce_mask(input: &Tensor, dims: Option<&[i64]>) -> Result<Vec<bool>> {
    reduction_mask(input, dims).map(|m| m.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `DimBuf` holds eight items inline, spills the ninth and later ones to the heap, and
    /// comes back inline when truncated.
    #[test]
    fn dimbuf_inline_spill_truncate() {
        let mut b = DimBuf::<usize>::new();
        assert!(b.is_empty());
        for k in 0..8 {
            b.push(k);
        }
        assert_eq!(&*b, &[0, 1, 2, 3, 4, 5, 6, 7]);
        assert!(b.heap.is_empty());
        b.push(8);
        b.push(9);
        assert_eq!(&*b, &(0..10).collect::<Vec<_>>()[..]);
        b[9] = 90;
        assert_eq!(b.last(), Some(&90));
        b.truncate(9);
        assert_eq!(&*b, &(0..9).collect::<Vec<_>>()[..]);
        b.truncate(3);
        assert_eq!(&*b, &[0, 1, 2]);
        assert!(b.heap.is_empty());
        b.push(7);
        assert_eq!(&*b, &[0, 1, 2, 7]);
        assert_eq!(&*DimBuf::filled(10, true), &[true; 10][..]);
        let (sz, st) = coalesce(&[(2, 12), (1, 99), (3, 4), (4, 1), (5, 0)]);
        assert_eq!((&*sz, &*st), (&[24, 5][..], &[1, 0][..]));
    }
}
