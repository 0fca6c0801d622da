//! src/core/ops/reduce.rs: reductions over dimensions — `sum`, `mean`, `amax`, `amin`, `argmax`,
//! `argmin` (PyTorch: `aten/src/ATen/native/ReduceOps.cpp`), built on one strided reduction driver.

use crate::core::dtype::{DType, Element};
use crate::core::error::{Error, Result};
use crate::core::interrupt::{self, Ticker};
use crate::core::iter::strided_for_each;
use crate::core::parallel;
use crate::core::tensor::{maybe_wrap_dim, Tensor};

/// Independent accumulators in the contiguous kernels, so the compiler can vectorise them.
const LANES: usize = 8;
/// Float sums of up to this many contiguous elements run as one lane-split block; longer runs
/// are split in two and summed pairwise, bounding the rounding error by O(log n).
const PAIRWISE_BLOCK: usize = 1024;
/// Smallest contiguous output row for which the "accumulate rows into the output" strategy is
/// used when the innermost dimension is not reduced (below it, per-output strided loops win).
const ROW_STRATEGY_MIN: usize = 16;

// ----- the reduction driver -------------------------------------------------------------------

/// One reduction: an accumulator type, its identity, how one element enters it, how two partial
/// accumulators combine, and (optionally) a faster kernel for a contiguous run of elements.
trait Reducer<T: Element>: Copy {
    type Acc: Copy;
    fn identity(self) -> Self::Acc;
    fn step(self, acc: Self::Acc, v: T) -> Self::Acc;
    fn merge(self, a: Self::Acc, b: Self::Acc) -> Self::Acc;
    #[inline]
    fn reduce_slice(self, s: &[T]) -> Self::Acc {
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
fn lanes_reduce<T: Element, R: Reducer<T>>(r: R, s: &[T]) -> R::Acc {
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
/// reduced with `lanes_reduce`, then combined as a binary tree.
fn pairwise_reduce<T: Element, R: Reducer<T>>(r: R, s: &[T]) -> R::Acc {
    if s.len() <= PAIRWISE_BLOCK {
        // One interrupt checkpoint per block (Note [Interrupting kernels]).
        interrupt::checkpoint();
        return lanes_reduce(r, s);
    }
    let mid = (s.len() / 2) / LANES * LANES;
    r.merge(pairwise_reduce(r, &s[..mid]), pairwise_reduce(r, &s[mid..]))
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
fn par_pairwise_reduce<T: Element, R: Reducer<T> + Sync>(r: R, s: &[T]) -> Option<R::Acc>
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

/// True for a NaN (any `T`: only floats have values unequal to themselves).
#[inline(always)]
fn is_nan<T: PartialOrd>(v: T) -> bool {
    v.partial_cmp(&v).is_none()
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
fn coalesce(dims: &[(usize, isize)]) -> (DimBuf<usize>, DimBuf<isize>) {
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
fn try_filled_vec<A: Copy>(n: usize, v: A) -> Result<Vec<A>> {
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
fn reduce_with<T: Element, O: Element, R: Reducer<T>>(
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
fn reduction_mask(input: &Tensor, dims: Option<&[i64]>) -> Result<DimBuf<bool>> {
    let nd = input.dim();
    let dims = match dims {
        Some(d) if !d.is_empty() => d,
        _ => return Ok(DimBuf::filled(nd, true)),
    };
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

// ----- sum and mean ---------------------------------------------------------------------------

/// Integer (and bool) sums: 64-bit accumulation that wraps on overflow, as torch's.
#[derive(Clone, Copy)]
struct SumInt;
impl<T: Element> Reducer<T> for SumInt {
    type Acc = i64;
    #[inline(always)]
    fn identity(self) -> i64 {
        0
    }
    #[inline(always)]
    fn step(self, acc: i64, v: T) -> i64 {
        acc.wrapping_add(v.to_i64())
    }
    #[inline(always)]
    fn merge(self, a: i64, b: i64) -> i64 {
        a.wrapping_add(b)
    }
    fn par_reduce_slice(self, s: &[T]) -> Option<i64> {
        // Wrapping integer addition is associative: any split gives the serial result.
        par_pairwise_reduce(self, s)
    }
}

/// Float sums into a float32 (`F32 = true`) or float64 result: each element is first converted
/// to the result dtype (as torch converts the input), then accumulated in f64, pairwise.
#[derive(Clone, Copy)]
struct SumFloat<const F32: bool>;
impl<T: Element, const F32: bool> Reducer<T> for SumFloat<F32> {
    type Acc = f64;
    #[inline(always)]
    fn identity(self) -> f64 {
        0.0
    }
    #[inline(always)]
    fn step(self, acc: f64, v: T) -> f64 {
        let x = if F32 {
            <f32 as Element>::cast_from(v) as f64
        } else {
            f64::cast_from(v)
        };
        acc + x
    }
    #[inline(always)]
    fn merge(self, a: f64, b: f64) -> f64 {
        a + b
    }
    fn reduce_slice(self, s: &[T]) -> f64 {
        pairwise_reduce(self, s)
    }
    fn par_reduce_slice(self, s: &[T]) -> Option<f64> {
        par_pairwise_reduce(self, s)
    }
}

/// `sum` over a validated `mask`, producing `out_dtype` (the input is converted to it first,
/// as torch does).
fn sum_masked(input: &Tensor, mask: &[bool], keepdim: bool, out_dtype: DType) -> Result<Tensor> {
    let in_dtype = input.dtype();
    // Cases where summing the raw values would differ from summing the converted ones.
    let convert_first = (in_dtype.is_floating_point() && !out_dtype.is_floating_point())
        || (out_dtype == DType::Bool && in_dtype != DType::Bool);
    if convert_first {
        return sum_masked(&input.to_dtype(out_dtype)?, mask, keepdim, out_dtype);
    }
    crate::dispatch!(in_dtype, T => match out_dtype {
        DType::Float32 => reduce_with::<T, f32, _>(input, mask, keepdim, SumFloat::<true>, |a| a as f32),
        DType::Float64 => reduce_with::<T, f64, _>(input, mask, keepdim, SumFloat::<false>, |a| a),
        _ => {
            // Integer results: sum modulo 2^64, then narrow (wrapping) to the result dtype.
            let wide = reduce_with::<T, i64, _>(input, mask, keepdim, SumInt, |a| a)?;
            if out_dtype == DType::Int64 { Ok(wide) } else { wide.to_dtype(out_dtype) }
        }
    })
}

/// `sum(input, dim, keepdim=False, *, dtype=None)` (torch's `sum.dim_IntList`): the sum over
/// `dim` (`None` or empty: every dim; negative dims count from the end).
///
/// Shape: `input`'s with the reduced dims removed, or kept as size 1 when `keepdim`.
/// Dtype: `dtype` if given (the input is converted first); else int64 for bool and integer
/// inputs, the input's dtype for floats. Integer sums wrap; float sums are accumulated in f64.
/// An empty reduction gives 0.
/// Errors: IndexError for a dim out of range; RuntimeError
/// "dim 0 appears multiple times in the list of dims" for a repeated dim.
pub fn sum(
    input: &Tensor,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let mask = reduction_mask(input, dim)?;
    let out_dtype = dtype.unwrap_or(if input.dtype().is_floating_point() {
        input.dtype()
    } else {
        DType::Int64
    });
    sum_masked(input, &mask, keepdim, out_dtype)
}

/// `mean(input, dim, keepdim=False, *, dtype=None)` (torch's `mean.dim`): the sum over `dim`
/// (`None` or empty: every dim) divided by the number of reduced elements, computed as torch's
/// CPU kernel does: `sum(input, dim, keepdim, dtype) / count` in the result dtype.
///
/// Shape as for `sum`. Dtype: `dtype` if given, else the input's; it must be floating.
/// The mean of no elements is NaN.
/// Errors: RuntimeError "mean(): could not infer output dtype. Input dtype must be either a
/// floating point or complex dtype. Got: Long" for integer/bool inputs without a floating
/// `dtype` ("Optional dtype ..." naming `dtype` when a non-floating one is given); dim errors as
/// for `sum`.
pub fn mean(
    input: &Tensor,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let in_dtype = dtype.unwrap_or(if input.dtype().is_floating_point() {
        input.dtype()
    } else {
        DType::Int64
    });
    if !in_dtype.is_floating_point() {
        let (what, got) = match dtype {
            Some(d) => ("Optional", d.scalar_type_name()),
            None => ("Input", input.dtype().scalar_type_name()),
        };
        return Err(Error::runtime(format!(
            "mean(): could not infer output dtype. {what} dtype must be either a floating point or complex dtype. Got: {got}"
        )));
    }
    let mask = reduction_mask(input, dim)?;
    let count: usize = input
        .sizes()
        .iter()
        .zip(mask.iter())
        .filter(|(_, &m)| m)
        .map(|(&s, _)| s)
        .product();
    let out = sum_masked(input, &mask, keepdim, in_dtype)?;
    let n = out.numel();
    if n > 0 {
        if in_dtype == DType::Float32 {
            let c = count as f32;
            // SAFETY: `out` is a fresh contiguous tensor of `n` float32 elements owned here.
            let s = unsafe { std::slice::from_raw_parts_mut(out.data_ptr::<f32>(), n) };
            s.iter_mut().for_each(|v| *v /= c);
        } else {
            let c = count as f64;
            // SAFETY: `out` is a fresh contiguous tensor of `n` float64 elements owned here.
            let s = unsafe { std::slice::from_raw_parts_mut(out.data_ptr::<f64>(), n) };
            s.iter_mut().for_each(|v| *v /= c);
        }
    }
    Ok(out)
}

// ----- amax and amin --------------------------------------------------------------------------

/// The lowest and highest value of an element type (identities of max and min).
trait Bounded: Element {
    const LOWEST: Self;
    const HIGHEST: Self;
}
macro_rules! impl_bounded {
    ($($t:ty: $lo:expr, $hi:expr;)*) => {
        $(impl Bounded for $t {
            const LOWEST: Self = $lo;
            const HIGHEST: Self = $hi;
        })*
    };
}
impl_bounded! {
    bool: false, true;
    u8: u8::MIN, u8::MAX;
    i8: i8::MIN, i8::MAX;
    i16: i16::MIN, i16::MAX;
    i32: i32::MIN, i32::MAX;
    i64: i64::MIN, i64::MAX;
    f32: f32::NEG_INFINITY, f32::INFINITY;
    f64: f64::NEG_INFINITY, f64::INFINITY;
}

/// Max (`MAX = true`) or min of the values; a NaN wins over everything (torch propagates NaN).
#[derive(Clone, Copy)]
struct Extreme<const MAX: bool>;
impl<T: Bounded, const MAX: bool> Reducer<T> for Extreme<MAX> {
    type Acc = T;
    #[inline(always)]
    fn identity(self) -> T {
        if MAX {
            T::LOWEST
        } else {
            T::HIGHEST
        }
    }
    #[inline(always)]
    fn step(self, acc: T, v: T) -> T {
        let better = if MAX { v > acc } else { v < acc };
        if better || is_nan(v) {
            v
        } else {
            acc
        }
    }
    #[inline(always)]
    fn merge(self, a: T, b: T) -> T {
        self.step(a, b)
    }
    /// Lanes of plain compare-and-select (which vectorises to max/min instructions), with NaNs
    /// tracked separately: a NaN anywhere makes the result NaN.
    fn reduce_slice(self, s: &[T]) -> T {
        let mut lanes = [self.identity(); LANES];
        let mut nan = [false; LANES];
        let mut chunks = s.chunks_exact(LANES);
        for c in &mut chunks {
            for ((m, n), &v) in lanes.iter_mut().zip(nan.iter_mut()).zip(c) {
                let keep = if MAX { *m > v } else { *m < v };
                *m = if keep { *m } else { v };
                *n |= is_nan(v);
            }
        }
        if nan.iter().any(|&n| n) {
            return s.iter().copied().find(|&v| is_nan(v)).unwrap_or(lanes[0]);
        }
        let mut acc = lanes[0];
        for &m in &lanes[1..] {
            acc = self.step(acc, m);
        }
        for &v in chunks.remainder() {
            acc = self.step(acc, v);
        }
        acc
    }
}

/// torch's `zero_numel_check_dims` for an empty input reduced over `dims` (raw, as passed).
fn zero_numel_check_dims(input: &Tensor, dims: &[i64], name: &str) -> Result<()> {
    if dims.is_empty() {
        return Err(Error::runtime(format!(
            "{name}: Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
        )));
    }
    for &d in dims {
        zero_numel_check_dim(input, d, name)?;
    }
    Ok(())
}

/// torch's `zero_numel_check_dims` for one dim: IndexError when the reduced dim has size 0.
fn zero_numel_check_dim(input: &Tensor, dim: i64, name: &str) -> Result<()> {
    if input.dim() == 0 {
        if dim != 0 && dim != -1 {
            return Err(Error::index(format!(
                "{name}: Expected reduction dim -1 or 0 for scalar but got {dim}"
            )));
        }
    } else if input.size(dim)? == 0 {
        return Err(Error::index(format!(
            "{name}: Expected reduction dim {dim} to have non-zero size."
        )));
    }
    Ok(())
}

fn extreme(input: &Tensor, dim: &[i64], keepdim: bool, max: bool) -> Result<Tensor> {
    if input.numel() == 0 {
        zero_numel_check_dims(input, dim, if max { "amax()" } else { "amin()" })?;
    }
    let mask = reduction_mask(input, Some(dim))?;
    crate::dispatch!(input.dtype(), T => if max {
        reduce_with::<T, T, _>(input, &mask, keepdim, Extreme::<true>, |a| a)
    } else {
        reduce_with::<T, T, _>(input, &mask, keepdim, Extreme::<false>, |a| a)
    })
}

/// `amax(input, dim=[], keepdim=False)`: the maximum over `dim` (empty: every dim), in the
/// input's dtype (bool included). NaN propagates. Shape as for `sum`.
/// Errors: for an empty input, RuntimeError "amax(): Expected reduction dim to be specified for
/// input.numel() == 0. ..." when `dim` is empty, IndexError "amax(): Expected reduction dim 0 to
/// have non-zero size." when a reduced dim has size 0; dim errors as for `sum`.
pub fn amax(input: &Tensor, dim: &[i64], keepdim: bool) -> Result<Tensor> {
    extreme(input, dim, keepdim, true)
}

/// `amin(input, dim=[], keepdim=False)`: the minimum over `dim`; otherwise as `amax`.
pub fn amin(input: &Tensor, dim: &[i64], keepdim: bool) -> Result<Tensor> {
    extreme(input, dim, keepdim, false)
}

// ----- argmax and argmin ----------------------------------------------------------------------

/// True when `v` should replace the current best `best` (strictly better, so the first
/// occurrence wins ties; the first NaN wins over everything).
#[inline(always)]
fn arg_better<T: PartialOrd + Copy, const MAX: bool>(v: T, best: T) -> bool {
    if is_nan(best) {
        false
    } else if is_nan(v) {
        true
    } else if MAX {
        v > best
    } else {
        v < best
    }
}

/// Index of the best of `n >= 1` elements starting at `p`, `stride` apart.
///
/// # Safety
/// `p + k * stride` must address an initialised `T` for every `k < n`.
#[inline]
unsafe fn arg_scan<T: Bounded, const MAX: bool>(p: *const T, n: usize, stride: isize) -> i64 {
    if stride == 1 {
        // SAFETY: `stride == 1`: `n` consecutive initialised elements.
        return arg_scan_slice::<T, MAX>(unsafe { std::slice::from_raw_parts(p, n) });
    }
    // SAFETY: the caller guarantees `n >= 1` readable elements at `p`, `stride` apart.
    let mut best = unsafe { *p };
    let mut best_i = 0usize;
    let mut off = stride;
    for i in 1..n {
        // SAFETY: as above, `off == i * stride` with `i < n`.
        let v = unsafe { *p.offset(off) };
        if arg_better::<T, MAX>(v, best) {
            best = v;
            best_i = i;
        }
        off += stride;
    }
    best_i as i64
}

/// Index of the best element of a non-empty contiguous slice, in two vectorisable passes: the
/// best value (NaN if any), then the first position holding it.
fn arg_scan_slice<T: Bounded, const MAX: bool>(s: &[T]) -> i64 {
    let best = Extreme::<MAX>.reduce_slice(s);
    let pos = if is_nan(best) {
        s.iter().position(|&v| is_nan(v))
    } else {
        s.iter().position(|&v| v == best)
    };
    pos.unwrap_or(0) as i64
}

fn arg_extreme<T: Bounded, const MAX: bool>(
    input: &Tensor,
    dim: Option<usize>,
    out: &Tensor,
) -> Result<()> {
    let base = input.data_ptr::<T>() as *const T;
    let n_out = out.numel();
    // SAFETY: `out` is a fresh contiguous int64 tensor of `n_out` elements owned by the caller.
    let out_slice = unsafe { std::slice::from_raw_parts_mut(out.data_ptr::<i64>(), n_out) };
    match dim {
        None => {
            if input.is_contiguous() {
                // SAFETY: contiguous and non-empty: `numel` elements from `base`.
                out_slice[0] = unsafe { arg_scan::<T, MAX>(base, input.numel(), 1) };
            } else {
                let (mut best, mut best_i, mut i) = (None::<T>, 0usize, 0usize);
                strided_for_each(input.sizes(), [input.strides()], |[o]| {
                    // SAFETY: `o` is the offset of an element of `input`.
                    let v = unsafe { *base.offset(o) };
                    if best.is_none_or(|b| arg_better::<T, MAX>(v, b)) {
                        best = Some(v);
                        best_i = i;
                    }
                    i += 1;
                });
                out_slice[0] = best_i as i64;
            }
        }
        Some(d) => {
            let (n, st) = if input.dim() == 0 {
                (1, 0)
            } else {
                (input.sizes()[d], input.strides()[d])
            };
            if n == 1 {
                return Ok(()); // already zeros
            }
            let outer: Vec<(usize, isize)> = (0..input.dim())
                .filter(|&k| k != d)
                .map(|k| (input.sizes()[k], input.strides()[k]))
                .collect();
            let (osz, ost) = coalesce(&outer);
            if let (Some(&n_last), Some(&1)) = (osz.last(), ost.last()) {
                if n_last >= ROW_STRATEGY_MIN {
                    // Innermost kept dim contiguous: scan whole rows along `d`, in memory order.
                    let k = osz.len() - 1;
                    let mut best = try_filled_vec(n_last, T::default())?;
                    let mut p = 0;
                    strided_for_each(&osz[..k], [&ost[..k]], |[po]| {
                        let idx = &mut out_slice[p..p + n_last];
                        // SAFETY: `po` is the offset of a contiguous row of `n_last` elements.
                        let first = unsafe { std::slice::from_raw_parts(base.offset(po), n_last) };
                        best.copy_from_slice(first);
                        let mut off = po;
                        for r in 1..n {
                            off += st;
                            // SAFETY: `off` is the row `r < n` steps along the reduced dim.
                            let row =
                                unsafe { std::slice::from_raw_parts(base.offset(off), n_last) };
                            for ((b, i), &v) in best.iter_mut().zip(idx.iter_mut()).zip(row) {
                                if arg_better::<T, MAX>(v, *b) {
                                    *b = v;
                                    *i = r as i64;
                                }
                            }
                        }
                        p += n_last;
                    });
                    return Ok(());
                }
            }
            let mut i = 0;
            strided_for_each(&osz, [&ost], |[o]| {
                // SAFETY: `o` is an output position's offset; the reduced dim has `n >= 1`
                // elements `st` apart from it.
                out_slice[i] = unsafe { arg_scan::<T, MAX>(base.offset(o), n, st) };
                i += 1;
            });
        }
    }
    Ok(())
}

fn arg_reduce(input: &Tensor, dim: Option<i64>, keepdim: bool, max: bool) -> Result<Tensor> {
    let name = if max { "argmax" } else { "argmin" };
    let nd = input.dim();
    let wrapped = match dim {
        Some(d) => {
            let w = maybe_wrap_dim(d, nd)?;
            zero_numel_check_dim(input, w as i64, &format!("{name}()"))?;
            Some(w)
        }
        None => {
            if input.numel() == 0 {
                return Err(Error::index(format!(
                    "{name}(): Expected reduction dim to be specified for input.numel() == 0."
                )));
            }
            None
        }
    };
    if input.dtype() == DType::Bool {
        return Err(Error::runtime(format!(
            "\"{name}_cpu\" not implemented for 'Bool'"
        )));
    }
    let out_sizes: Vec<usize> = match wrapped {
        None if keepdim => vec![1; nd],
        None => Vec::new(),
        Some(_) if nd == 0 => Vec::new(),
        Some(w) => (0..nd)
            .filter_map(|k| {
                if k != w {
                    Some(input.sizes()[k])
                } else if keepdim {
                    Some(1)
                } else {
                    None
                }
            })
            .collect(),
    };
    let out = Tensor::zeros(&out_sizes, DType::Int64)?;
    if out.numel() == 0 {
        return Ok(out);
    }
    crate::dispatch!(input.dtype(), T => if max {
        arg_extreme::<T, true>(input, wrapped, &out)
    } else {
        arg_extreme::<T, false>(input, wrapped, &out)
    })?;
    Ok(out)
}

/// `argmax(input, dim=None, keepdim=False)`: int64 index of the maximum along `dim`, or into the
/// flattened tensor when `dim` is `None` (then `keepdim` gives every dim size 1). The first
/// occurrence wins ties; NaN counts as the maximum. Shape: `input`'s without `dim` (size 1 with
/// `keepdim`).
/// Errors: IndexError "argmax(): Expected reduction dim to be specified for input.numel() == 0."
/// for an empty input without `dim`, IndexError "argmax(): Expected reduction dim 0 to have
/// non-zero size." for an empty `dim`, IndexError for `dim` out of range, RuntimeError
/// "\"argmax_cpu\" not implemented for 'Bool'" for bool inputs (as torch).
pub fn argmax(input: &Tensor, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
    arg_reduce(input, dim, keepdim, true)
}

/// `argmin(input, dim=None, keepdim=False)`: index of the minimum; otherwise as `argmax`.
pub fn argmin(input: &Tensor, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
    arg_reduce(input, dim, keepdim, false)
}

// ----- hooks for reduce2.rs -------------------------------------------------------------------

/// A reduction given as closures (an identity, a step, a merge), so other files can run the
/// driver without naming the private `Reducer` trait. `merge` must be associative.
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

    /// The threaded full sum mirrors the serial pairwise tree: bit-identical for any thread
    /// count (set to 2 and 3 here; 1 takes the serial kernel itself).
    #[test]
    fn parallel_sum_is_bitwise_serial() {
        let n = 3_000_017;
        let v: Vec<f32> = (0..n)
            .map(|i| ((i * 7919) % 10007) as f32 * 1.0e-3 + if i % 97 == 0 { 1.0e4 } else { 0.0 })
            .collect();
        let serial = pairwise_reduce(SumFloat::<true>, &v);
        for threads in [2, 3] {
            crate::core::parallel::set_num_threads(threads);
            let par = par_pairwise_reduce(SumFloat::<true>, &v);
            assert_eq!(par.map(f64::to_bits), Some(serial.to_bits()));
        }
        let x = t(v, &[n]);
        let s = sum(&x, None, false, None).unwrap().to_vec::<f32>();
        assert_eq!(s[0].to_bits(), (serial as f32).to_bits());
        // Integer sums (wrapping, exact): threaded equals the closed form.
        let xi = ar(1 << 19, &[1 << 19]);
        let n = 1i64 << 19;
        let want = n * (n - 1) / 2;
        assert_eq!(
            sum(&xi, None, false, None).unwrap().to_vec::<i64>(),
            vec![want]
        );
    }
    use crate::core::error::ErrorKind;

    fn t<T: Element>(v: Vec<T>, s: &[usize]) -> Tensor {
        Tensor::from_vec(v, s).unwrap()
    }
    fn ar(n: i64, s: &[usize]) -> Tensor {
        t((0..n).collect::<Vec<i64>>(), s)
    }
    fn arf(n: usize, s: &[usize]) -> Tensor {
        t((0..n).map(|x| x as f32).collect::<Vec<f32>>(), s)
    }
    /// Transposed view (dims 0 and 1 swapped) of a 2-D tensor.
    fn tr(x: &Tensor) -> Tensor {
        let (s, st) = (x.sizes(), x.strides());
        x.as_strided(vec![s[1], s[0]], vec![st[1], st[0]], x.storage_offset())
    }

    #[test]
    fn sum_all_and_dtypes() {
        let x = ar(6, &[2, 3]);
        let s = sum(&x, None, false, None).unwrap();
        assert_eq!(
            (s.sizes(), s.dtype(), s.to_vec::<i64>()),
            (&[][..], DType::Int64, vec![15])
        );
        let b = t(vec![true, false, true, true], &[4]);
        let s = sum(&b, None, false, None).unwrap();
        assert_eq!((s.dtype(), s.to_vec::<i64>()), (DType::Int64, vec![3]));
        let i = t(vec![1i32, 2, 3], &[3]);
        assert_eq!(sum(&i, None, false, None).unwrap().dtype(), DType::Int64);
        let s = sum(&i, None, false, Some(DType::Float64)).unwrap();
        assert_eq!((s.dtype(), s.to_vec::<f64>()), (DType::Float64, vec![6.0]));
        let s = sum(&i, None, false, Some(DType::Int32)).unwrap();
        assert_eq!((s.dtype(), s.to_vec::<i32>()), (DType::Int32, vec![6]));
        let f = t(vec![1.5f32, 2.25], &[2]);
        let s = sum(&f, Some(&[]), false, None).unwrap();
        assert_eq!((s.dtype(), s.to_vec::<f32>()), (DType::Float32, vec![3.75]));
        // Float input summed as int: converted first (1.5 → 1, 2.7 → 2).
        let f = t(vec![1.5f64, 2.7], &[2]);
        assert_eq!(
            sum(&f, None, false, Some(DType::Int64))
                .unwrap()
                .to_vec::<i64>(),
            vec![3]
        );
        // Sum into bool: any non-zero.
        let z = t(vec![1i64, -1], &[2]);
        assert_eq!(
            sum(&z, None, false, Some(DType::Bool))
                .unwrap()
                .to_vec::<bool>(),
            vec![true]
        );
        // uint8 with dtype=uint8 wraps.
        let u = t(vec![200u8, 100], &[2]);
        assert_eq!(
            sum(&u, None, false, Some(DType::UInt8))
                .unwrap()
                .to_vec::<u8>(),
            vec![44]
        );
        assert_eq!(
            sum(&u, None, false, None).unwrap().to_vec::<i64>(),
            vec![300]
        );
        // int64 wraps.
        let w = t(vec![i64::MAX, 1], &[2]);
        assert_eq!(
            sum(&w, None, false, None).unwrap().to_vec::<i64>(),
            vec![i64::MIN]
        );
    }

    #[test]
    fn sum_dims_keepdim_negative() {
        let x = ar(24, &[2, 3, 4]);
        let s = sum(&x, Some(&[1]), false, None).unwrap();
        assert_eq!(s.sizes(), &[2, 4]);
        assert_eq!(s.to_vec::<i64>(), vec![12, 15, 18, 21, 48, 51, 54, 57]);
        let s = sum(&x, Some(&[-1]), true, None).unwrap();
        assert_eq!(s.sizes(), &[2, 3, 1]);
        assert_eq!(s.to_vec::<i64>(), vec![6, 22, 38, 54, 70, 86]);
        let s = sum(&x, Some(&[0, 2]), false, None).unwrap();
        assert_eq!(s.to_vec::<i64>(), vec![60, 92, 124]);
        let s = sum(&x, Some(&[2, 0]), true, None).unwrap();
        assert_eq!(s.sizes(), &[1, 3, 1]);
        let s = sum(&x, Some(&[0]), false, None).unwrap();
        assert_eq!(s.sizes(), &[3, 4]);
        assert_eq!(
            s.to_vec::<i64>(),
            (0..12).map(|k| 2 * k + 12).collect::<Vec<_>>()
        );
    }

    #[test]
    fn sum_row_strategy_and_strided() {
        // dim 0 of a [3, 20] matrix: the innermost kept dim is contiguous (strategy B).
        let x = arf(60, &[3, 20]);
        let s = sum(&x, Some(&[0]), false, None).unwrap();
        assert_eq!(
            s.to_vec::<f32>(),
            (0..20).map(|k| (3 * k + 60) as f32).collect::<Vec<_>>()
        );
        // Transposed: [20, 3] view, reduce dim 1 (strategy B again), dim 0 (strategy A).
        let xt = tr(&x);
        let s = sum(&xt, Some(&[1]), false, None).unwrap();
        assert_eq!(
            s.to_vec::<f32>(),
            (0..20).map(|k| (3 * k + 60) as f32).collect::<Vec<_>>()
        );
        let s = sum(&xt, Some(&[0]), false, None).unwrap();
        assert_eq!(s.to_vec::<f32>(), vec![190.0, 590.0, 990.0]);
        assert_eq!(
            sum(&xt, None, false, None).unwrap().to_vec::<f32>(),
            vec![1770.0]
        );
        // Small transposed int matrix (strategy C).
        let y = tr(&ar(6, &[2, 3]));
        assert_eq!(
            sum(&y, Some(&[1]), false, None).unwrap().to_vec::<i64>(),
            vec![3, 5, 7]
        );
        assert_eq!(
            sum(&y, Some(&[0]), false, None).unwrap().to_vec::<i64>(),
            vec![3, 12]
        );
        // Broadcast (stride-0) input: [1,2,3] expanded to [4, 3].
        let b = t(vec![1i64, 2, 3], &[3]).as_strided(vec![4, 3], vec![0, 1], 0);
        assert_eq!(
            sum(&b, Some(&[0]), false, None).unwrap().to_vec::<i64>(),
            vec![4, 8, 12]
        );
        assert_eq!(
            sum(&b, None, false, None).unwrap().to_vec::<i64>(),
            vec![24]
        );
        // Multi-dim strided reduction (strategy C, several reduced dims).
        let z = ar(24, &[2, 3, 4]);
        let zp = z.as_strided(vec![4, 3, 2], vec![1, 4, 12], 0); // permute(2, 1, 0)
        assert_eq!(
            sum(&zp, Some(&[1, 2]), false, None)
                .unwrap()
                .to_vec::<i64>(),
            vec![60, 66, 72, 78]
        );
        // Reduced dims that do not coalesce: v[a, b, c] = a + 24b + 4c.
        let v = ar(48, &[48]).as_strided(vec![2, 2, 3], vec![1, 24, 4], 0);
        assert_eq!(
            sum(&v, Some(&[1, 2]), false, None).unwrap().to_vec::<i64>(),
            vec![96, 102]
        );
        assert_eq!(
            amax(&v, &[1, 2], false).unwrap().to_vec::<i64>(),
            vec![32, 33]
        );
    }

    #[test]
    fn float32_sum_is_accurate() {
        let x = Tensor::full(
            &[20_000_000],
            crate::core::Scalar::Float(1.0),
            DType::Float32,
        )
        .unwrap();
        assert_eq!(
            sum(&x, None, false, None).unwrap().to_vec::<f32>(),
            vec![20_000_000.0]
        );
        let x = Tensor::full(
            &[3_000_000],
            crate::core::Scalar::Float(0.1),
            DType::Float32,
        )
        .unwrap();
        let m = mean(&x, None, false, None).unwrap().to_vec::<f32>()[0];
        assert!((m - 0.1).abs() < 1e-7, "{m}");
    }

    #[test]
    fn zero_dim_and_empty() {
        let s = t(vec![5i64], &[]);
        assert_eq!(sum(&s, None, false, None).unwrap().to_vec::<i64>(), vec![5]);
        let r = sum(&s, Some(&[-1]), true, None).unwrap();
        assert_eq!((r.sizes(), r.to_vec::<i64>()), (&[][..], vec![5]));
        assert_eq!(
            sum(&s, Some(&[0, -1]), false, None).unwrap_err().message,
            "dim 0 appears multiple times in the list of dims"
        );
        let e = Tensor::zeros(&[0, 3], DType::Float32).unwrap();
        let r = sum(&e, Some(&[0]), false, None).unwrap();
        assert_eq!(r.to_vec::<f32>(), vec![0.0; 3]);
        assert_eq!(sum(&e, Some(&[1]), false, None).unwrap().sizes(), &[0]);
        let m = mean(&e, None, false, None).unwrap();
        assert!(m.to_vec::<f32>()[0].is_nan());
        let m = mean(&e, Some(&[0]), false, None).unwrap();
        assert!(m.to_vec::<f32>().iter().all(|v| v.is_nan()));
    }

    #[test]
    fn dim_errors() {
        let x = ar(6, &[2, 3]);
        let e = sum(&x, Some(&[2]), false, None).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Index);
        assert_eq!(
            e.message,
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
        );
        let e = sum(&x, Some(&[1, -1]), false, None).unwrap_err();
        assert_eq!(
            (e.kind, e.message.as_str()),
            (
                ErrorKind::Runtime,
                "dim 1 appears multiple times in the list of dims"
            )
        );
        assert_eq!(
            amax(&x, &[0, 0], false).unwrap_err().kind,
            ErrorKind::Runtime
        );
        assert_eq!(
            argmax(&x, Some(-3), false).unwrap_err().kind,
            ErrorKind::Index
        );
    }

    #[test]
    fn mean_values_and_errors() {
        let x = arf(6, &[2, 3]);
        assert_eq!(
            mean(&x, None, false, None).unwrap().to_vec::<f32>(),
            vec![2.5]
        );
        let m = mean(&x, Some(&[1]), true, None).unwrap();
        assert_eq!(
            (m.sizes(), m.to_vec::<f32>()),
            (&[2, 1][..], vec![1.0, 4.0])
        );
        let m = mean(&tr(&x), Some(&[1]), false, None).unwrap();
        assert_eq!(m.to_vec::<f32>(), vec![1.5, 2.5, 3.5]);
        let i = ar(6, &[2, 3]);
        let e = mean(&i, None, false, None).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Runtime);
        assert_eq!(e.message, "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Long");
        let e = mean(&t(vec![1i32], &[1]), None, false, None).unwrap_err();
        assert!(e
            .message
            .ends_with("Input dtype must be either a floating point or complex dtype. Got: Int"));
        let e = mean(&x, None, false, Some(DType::Int32)).unwrap_err();
        assert!(e.message.ends_with(
            "Optional dtype must be either a floating point or complex dtype. Got: Int"
        ));
        let m = mean(&i, Some(&[0]), false, Some(DType::Float64)).unwrap();
        assert_eq!(
            (m.dtype(), m.to_vec::<f64>()),
            (DType::Float64, vec![1.5, 2.5, 3.5])
        );
        let b = t(vec![true, false, false, true], &[4]);
        assert_eq!(
            mean(&b, None, false, Some(DType::Float32))
                .unwrap()
                .to_vec::<f32>(),
            vec![0.5]
        );
    }

    #[test]
    fn amax_amin() {
        let x = t(vec![3.0f32, -1.0, 7.0, 2.0, 9.0, -4.0], &[2, 3]);
        assert_eq!(amax(&x, &[], false).unwrap().to_vec::<f32>(), vec![9.0]);
        assert_eq!(amin(&x, &[], false).unwrap().to_vec::<f32>(), vec![-4.0]);
        assert_eq!(
            amax(&x, &[0], false).unwrap().to_vec::<f32>(),
            vec![3.0, 9.0, 7.0]
        );
        let r = amin(&x, &[-1], true).unwrap();
        assert_eq!(
            (r.sizes(), r.to_vec::<f32>()),
            (&[2, 1][..], vec![-1.0, -4.0])
        );
        assert_eq!(
            amax(&tr(&x), &[1], false).unwrap().to_vec::<f32>(),
            vec![3.0, 9.0, 7.0]
        );
        // NaN propagates, wherever it is.
        let n = t(
            vec![1.0f64, f64::NAN, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0],
            &[10],
        );
        assert!(amax(&n, &[], false).unwrap().to_vec::<f64>()[0].is_nan());
        assert!(amin(&n, &[0], false).unwrap().to_vec::<f64>()[0].is_nan());
        let n2 = t(vec![1.0f32, 2.0, f32::NAN, 0.0], &[2, 2]);
        let r = amax(&n2, &[0], false).unwrap().to_vec::<f32>();
        assert!(r[0].is_nan() && r[1] == 2.0);
        // Ints keep their dtype; bool works.
        let i = t(vec![-5i8, 7, 3], &[3]);
        let r = amax(&i, &[], false).unwrap();
        assert_eq!((r.dtype(), r.to_vec::<i8>()), (DType::Int8, vec![7]));
        let b = t(vec![false, true, false], &[3]);
        assert_eq!(amax(&b, &[], false).unwrap().to_vec::<bool>(), vec![true]);
        assert_eq!(amin(&b, &[], false).unwrap().to_vec::<bool>(), vec![false]);
        // Row strategy: [2, 20] reduced over dim 0.
        let w = arf(40, &[2, 20]);
        assert_eq!(
            amax(&w, &[0], false).unwrap().to_vec::<f32>(),
            (20..40).map(|v| v as f32).collect::<Vec<_>>()
        );
        assert_eq!(
            amin(&w, &[0], false).unwrap().to_vec::<f32>(),
            (0..20).map(|v| v as f32).collect::<Vec<_>>()
        );
    }

    #[test]
    fn amax_empty_errors() {
        let e = Tensor::zeros(&[0, 3], DType::Float32).unwrap();
        let err = amax(&e, &[0], false).unwrap_err();
        assert_eq!(
            (err.kind, err.message.as_str()),
            (
                ErrorKind::Index,
                "amax(): Expected reduction dim 0 to have non-zero size."
            )
        );
        let err = amin(&e, &[-2], false).unwrap_err();
        assert_eq!(
            err.message,
            "amin(): Expected reduction dim -2 to have non-zero size."
        );
        let err = amax(&e, &[], false).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Runtime);
        assert!(err
            .message
            .starts_with("amax(): Expected reduction dim to be specified for input.numel() == 0."));
        let r = amax(&e, &[1], false).unwrap();
        assert_eq!(r.sizes(), &[0]);
    }

    #[test]
    fn argmax_argmin() {
        let x = t(vec![1.0f32, 5.0, 5.0, 0.0, -2.0, 0.0], &[2, 3]);
        let r = argmax(&x, None, false).unwrap();
        assert_eq!(
            (r.dtype(), r.sizes(), r.to_vec::<i64>()),
            (DType::Int64, &[][..], vec![1])
        );
        assert_eq!(argmin(&x, None, false).unwrap().to_vec::<i64>(), vec![4]);
        let r = argmax(&x, None, true).unwrap();
        assert_eq!(r.sizes(), &[1, 1]);
        assert_eq!(
            argmax(&x, Some(1), false).unwrap().to_vec::<i64>(),
            vec![1, 0]
        );
        assert_eq!(
            argmin(&x, Some(1), false).unwrap().to_vec::<i64>(),
            vec![0, 1]
        );
        let r = argmax(&x, Some(0), true).unwrap();
        assert_eq!((r.sizes(), r.to_vec::<i64>()), (&[1, 3][..], vec![0, 0, 0]));
        assert_eq!(
            argmin(&x, Some(-2), false).unwrap().to_vec::<i64>(),
            vec![1, 1, 1]
        );
        // Transposed view: flattened index follows the view's logical order.
        let xt = tr(&x); // [[1, 0], [5, -2], [5, 0]]
        assert_eq!(argmax(&xt, None, false).unwrap().to_vec::<i64>(), vec![2]);
        assert_eq!(argmin(&xt, None, false).unwrap().to_vec::<i64>(), vec![3]);
        assert_eq!(
            argmax(&xt, Some(0), false).unwrap().to_vec::<i64>(),
            vec![1, 0]
        );
        // NaN counts as the max and the min; the first NaN wins.
        let n = t(vec![1.0f64, f64::NAN, 9.0, f64::NAN], &[4]);
        assert_eq!(argmax(&n, None, false).unwrap().to_vec::<i64>(), vec![1]);
        assert_eq!(argmin(&n, Some(0), false).unwrap().to_vec::<i64>(), vec![1]);
        // Ints, 0-dim.
        let i = t(vec![3u8, 9, 9, 1], &[4]);
        assert_eq!(argmax(&i, Some(0), false).unwrap().to_vec::<i64>(), vec![1]);
        let s = t(vec![4i32], &[]);
        let r = argmax(&s, Some(0), true).unwrap();
        assert_eq!((r.sizes(), r.to_vec::<i64>()), (&[][..], vec![0]));
        assert_eq!(argmin(&s, None, false).unwrap().to_vec::<i64>(), vec![0]);
    }

    #[test]
    fn long_rows_and_columns() {
        // Contiguous scans longer than the lane count: ties keep the first, NaN wins.
        let mut v: Vec<f32> = (0..20).map(|k| (k % 7) as f32).collect();
        assert_eq!(
            argmax(&t(v.clone(), &[20]), None, false)
                .unwrap()
                .to_vec::<i64>(),
            vec![6]
        );
        assert_eq!(
            argmin(&t(v.clone(), &[20]), Some(0), false)
                .unwrap()
                .to_vec::<i64>(),
            vec![0]
        );
        v[2] = 9.0; // a NaN later in the same lane as a larger value must still win
        v[10] = f32::NAN;
        v[17] = f32::NAN;
        let x = t(v.clone(), &[20]);
        assert_eq!(argmax(&x, None, false).unwrap().to_vec::<i64>(), vec![10]);
        assert_eq!(argmin(&x, None, false).unwrap().to_vec::<i64>(), vec![10]);
        assert!(amax(&x, &[], false).unwrap().to_vec::<f32>()[0].is_nan());
        assert!(amin(&x, &[], false).unwrap().to_vec::<f32>()[0].is_nan());
        // Columns of a [3, 20] matrix (rows scanned in memory order).
        let mut m: Vec<f32> = (0..60).map(|k| ((k * 7) % 11) as f32).collect();
        m[20 + 4] = f32::NAN;
        let x = t(m.clone(), &[3, 20]);
        let want_max: Vec<i64> = (0..20)
            .map(|j| {
                if j == 4 {
                    return 1;
                }
                let col = [m[j], m[20 + j], m[40 + j]];
                let best = col.iter().cloned().fold(f32::MIN, f32::max);
                col.iter().position(|&c| c == best).unwrap() as i64
            })
            .collect();
        assert_eq!(
            argmax(&x, Some(0), false).unwrap().to_vec::<i64>(),
            want_max
        );
        let r = argmin(&x, Some(0), true).unwrap();
        assert_eq!(r.sizes(), &[1, 20]);
        assert_eq!(r.to_vec::<i64>()[4], 1);
        let am = amax(&x, &[0], false).unwrap().to_vec::<f32>();
        assert!(am[4].is_nan() && am[0] == 8.0 && am[3] == 10.0);
        let ints = t((0..60).map(|k| ((k * 7) % 11) as i64).collect(), &[3, 20]);
        assert_eq!(
            argmax(&ints, Some(0), false).unwrap().to_vec::<i64>()[..4],
            [1, 0, 2, 0]
        );
    }

    #[test]
    fn argmax_errors() {
        let e = Tensor::zeros(&[0], DType::Float32).unwrap();
        let err = argmax(&e, None, false).unwrap_err();
        assert_eq!(
            (err.kind, err.message.as_str()),
            (
                ErrorKind::Index,
                "argmax(): Expected reduction dim to be specified for input.numel() == 0."
            )
        );
        let err = argmin(&e, Some(-1), false).unwrap_err();
        assert_eq!(
            (err.kind, err.message.as_str()),
            (
                ErrorKind::Index,
                "argmin(): Expected reduction dim 0 to have non-zero size."
            )
        );
        let e2 = Tensor::zeros(&[0, 2], DType::Int64).unwrap();
        assert_eq!(argmax(&e2, Some(1), false).unwrap().sizes(), &[0]);
        let b = t(vec![true, false], &[2]);
        let err = argmax(&b, None, false).unwrap_err();
        assert_eq!(
            (err.kind, err.message.as_str()),
            (
                ErrorKind::Runtime,
                "\"argmax_cpu\" not implemented for 'Bool'"
            )
        );
    }
}
