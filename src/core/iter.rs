//! src/core/iter.rs: the elementwise loop machinery (PyTorch: `TensorIterator` and the CPU
//! loops of `native/cpu/Loops.h`) — strided walkers over the rows of N operands, dense loops with
//! their aliasing modes and their split across threads, operands read as tensors or as values,
//! and the unary and binary drivers every elementwise op runs on.

use crate::core::dtype::{DType, Element};
use crate::core::error::Result;
use crate::core::interrupt::Ticker;
use crate::core::parallel::{self, SendPtr};
use crate::core::tensor::{broadcast_shapes, Tensor};
use std::borrow::Cow;

// ----- strided walkers ----------------------------------------------------------------------

/// Visit every element position of an `N`-operand strided loop over `sizes`, calling `f` with the
/// element offsets (relative to each operand's base) of the `N` operands. The innermost dimension
/// runs as a tight loop. Zero-size shapes visit nothing; a 0-dim shape visits once.
///
/// Only that inner loop is generic over `f`; the odometer over the outer dims is
/// `strided_rows`, shared by every caller (one copy per `N` instead of one per closure: this
/// driver is instantiated for hundreds of kernels, and it is their slow, non-contiguous path).
#[inline]
pub fn strided_for_each<const N: usize>(
    sizes: &[usize],
    strides: [&[isize]; N],
    mut f: impl FnMut([isize; N]),
) {
    strided_rows(
        sizes,
        strides,
        |mut off: [isize; N], len: usize, step: [isize; N]| {
            for _ in 0..len {
                f(off);
                for k in 0..N {
                    off[k] += step[k];
                }
            }
        },
    );
}

/// The rows of an `N`-operand strided loop over `sizes`: calls `row(base, len, step)` once per
/// position of the outer dims (all but the last), in row-major order, where `base` holds the
/// operands' offsets of the row's first element, `len` is the innermost size and `step` the
/// operands' innermost strides. Zero-size shapes call nothing; a 0-dim shape is one row of one
/// element (`len` 1, `step` 0). `row` is called through `dyn RowFn` so this loop exists once
/// per `N`.
#[inline(always)]
pub fn strided_rows<const N: usize>(
    sizes: &[usize],
    strides: [&[isize]; N],
    mut row: impl FnMut([isize; N], usize, [isize; N]),
) {
    strided_rows_dyn(sizes, strides, &mut row)
}

// Note [One-method traits for dyn callbacks]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A closure passed as `&dyn Fn(..)` / `&mut dyn FnMut(..)` gets a vtable holding every method
// of the `Fn` traits: `call`, `call_mut` and a `call_once` shim. Each entry is a function with
// the closure's body inlined, and nothing can drop the unused ones (the vtable names them), so
// each kernel body passed as `dyn` was compiled two or three times: 1,564 `call_once` shims,
// 447 KB of the 9.7 MB `.text` (BENCHMARKS.md, wheel size). The shared drivers take a
// one-method trait instead (`RowFn` here, `ElemFn`/`ElemFn2` below, `ChunkFn` in
// core/parallel.rs, `BinFn` in ops/binary.rs), implemented for every closure of the right
// signature: its vtable has the one method, so the body exists once. The call is the same
// indirect call as before.

/// The row body of `strided_rows`: see Note [One-method traits for dyn callbacks].
pub trait RowFn<const N: usize> {
    /// One row: operands' offsets of its first element, its length, the innermost strides.
    fn row(&mut self, base: [isize; N], len: usize, step: [isize; N]);
}

impl<const N: usize, F: FnMut([isize; N], usize, [isize; N])> RowFn<N> for F {
    #[inline(always)]
    fn row(&mut self, base: [isize; N], len: usize, step: [isize; N]) {
        self(base, len, step)
    }
}

/// `strided_rows`' loop, once per `N`.
#[inline(never)]
fn strided_rows_dyn<const N: usize>(
    sizes: &[usize],
    strides: [&[isize]; N],
    row: &mut dyn RowFn<N>,
) {
    let nd = sizes.len();
    if sizes.contains(&0) {
        return;
    }
    if nd == 0 {
        row.row([0; N], 1, [0; N]);
        return;
    }
    let inner = sizes[nd - 1];
    let inner_strides: [isize; N] = std::array::from_fn(|k| strides[k][nd - 1]);
    let mut index = vec![0usize; nd];
    let mut base = [0isize; N];
    // Copies and strided loops over huge tensors stay interruptible (core/interrupt.rs).
    let mut ticker = super::interrupt::Ticker::new();
    loop {
        row.row(base, inner, inner_strides);
        ticker.tick(inner);
        // Advance the outer index (all dims but the last), carrying like an odometer.
        let mut d = nd - 1;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            index[d] += 1;
            for k in 0..N {
                base[k] += strides[k][d];
            }
            if index[d] < sizes[d] {
                break;
            }
            for k in 0..N {
                base[k] -= strides[k][d] * sizes[d] as isize;
            }
            index[d] = 0;
        }
    }
}

// ----- dense loops --------------------------------------------------------------------------

/// How an output relates to one input of a dense (contiguous) loop.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Alias {
    /// Different storages: `&mut` output and `&` input slices may coexist.
    Distinct,
    /// Exactly the same elements of the same element type (an in-place op's `self`).
    Same,
    /// Shared storage in any other arrangement: raw pointers only.
    Other,
}

fn alias_of<T: Element, R: Element>(out: &Tensor, x: &Tensor) -> Alias {
    if !out.shares_storage(x) {
        Alias::Distinct
    } else if T::DTYPE == R::DTYPE
        && std::ptr::eq(
            out.data_ptr::<R>() as *const u8,
            x.data_ptr::<T>() as *const u8,
        )
    {
        Alias::Same
    } else {
        Alias::Other
    }
}

/// `out[i] = f(x[i])` for `i < n`.
///
/// # Safety
/// `po` and `px` each address `n` contiguous initialised elements of their type, and `mode`
/// truthfully describes how they alias (`Same` only when `T` and `R` are one type).
#[inline(always)]
unsafe fn dense_map<T: Element, R: Element>(
    po: *mut R,
    px: *const T,
    n: usize,
    mode: Alias,
    f: impl Fn(T) -> R,
) {
    match mode {
        Alias::Distinct => {
            // SAFETY: two distinct allocations of `n` elements each (caller's contract), so the
            // mutable and the shared slice do not overlap.
            let (o, x) = unsafe {
                (
                    std::slice::from_raw_parts_mut(po, n),
                    std::slice::from_raw_parts(px, n),
                )
            };
            for (o, &x) in o.iter_mut().zip(x) {
                *o = f(x);
            }
        }
        Alias::Same => {
            // SAFETY: `px` is `po` (same elements, same type): one mutable slice covers both.
            let o = unsafe { std::slice::from_raw_parts_mut(po, n) };
            for o in o.iter_mut() {
                *o = f(T::cast_from(*o));
            }
        }
        Alias::Other => {
            // SAFETY: the caller's contract, passed on.
            unsafe { map_overlapping(po, px, n, &f) }
        }
    }
}

/// A unary element function behind `dyn`: see Note [One-method traits for dyn callbacks].
pub(crate) trait ElemFn<T, R> {
    /// `f(x)`.
    fn apply(&self, x: T) -> R;
}

impl<T, R, F: Fn(T) -> R> ElemFn<T, R> for F {
    #[inline(always)]
    fn apply(&self, x: T) -> R {
        self(x)
    }
}

/// A binary element function behind `dyn`: see Note [One-method traits for dyn callbacks].
pub(crate) trait ElemFn2<T, R> {
    /// `f(x, y)`.
    fn apply2(&self, x: T, y: T) -> R;
}

impl<T, R, F: Fn(T, T) -> R> ElemFn2<T, R> for F {
    #[inline(always)]
    fn apply2(&self, x: T, y: T) -> R {
        self(x, y)
    }
}

/// `dense_map`'s loop for operands that partially overlap (rare: e.g. `out=` a shifted view of
/// the input): element by element in index order. Written once per dtype pair with `f` behind
/// `dyn`, instead of a runtime-checked vectorised loop inside every op's kernel.
///
/// # Safety
/// `po` and `px` each address `n` initialised elements of their type.
#[inline(never)]
unsafe fn map_overlapping<T: Element, R: Element>(
    po: *mut R,
    px: *const T,
    n: usize,
    f: &dyn ElemFn<T, R>,
) {
    for i in 0..n {
        // SAFETY: `i < n`; plain reads and writes through raw pointers, no references.
        unsafe { *po.add(i) = f.apply(*px.add(i)) };
    }
}

/// `dense_map2`'s loop for the rarer aliasing cases (`b` is the output, both inputs are, or an
/// operand partially overlaps it): element by element in index order, once per dtype pair.
///
/// # Safety
/// `po`, `pa` and `pb` each address `n` initialised elements of their type.
#[inline(never)]
unsafe fn map2_overlapping<T: Element, R: Element>(
    po: *mut R,
    pa: *const T,
    pb: *const T,
    n: usize,
    f: &dyn ElemFn2<T, R>,
) {
    for i in 0..n {
        // SAFETY: `i < n`; plain reads and writes through raw pointers, no references.
        unsafe { *po.add(i) = f.apply2(*pa.add(i), *pb.add(i)) };
    }
}

/// `out[i] = f(a[i], b[i])` for `i < n`.
///
/// # Safety
/// As `dense_map`, for both inputs.
#[inline(always)]
unsafe fn dense_map2<T: Element, R: Element>(
    po: *mut R,
    pa: *const T,
    pb: *const T,
    n: usize,
    modes: (Alias, Alias),
    f: impl Fn(T, T) -> R,
) {
    match modes {
        (Alias::Distinct, Alias::Distinct) => {
            // SAFETY: the output's storage is distinct from both inputs' (which may share one
            // storage with each other: two shared slices are fine); `n` elements each.
            let (o, x, y) = unsafe {
                (
                    std::slice::from_raw_parts_mut(po, n),
                    std::slice::from_raw_parts(pa, n),
                    std::slice::from_raw_parts(pb, n),
                )
            };
            for ((o, &x), &y) in o.iter_mut().zip(x).zip(y) {
                *o = f(x, y);
            }
        }
        (Alias::Same, Alias::Distinct) => {
            // SAFETY: `pa` is `po`; `pb` lies in another storage; `n` elements each.
            let (o, y) = unsafe {
                (
                    std::slice::from_raw_parts_mut(po, n),
                    std::slice::from_raw_parts(pb, n),
                )
            };
            for (o, &y) in o.iter_mut().zip(y) {
                *o = f(T::cast_from(*o), y);
            }
        }
        _ => {
            // SAFETY: the caller's contract, passed on.
            unsafe { map2_overlapping(po, pa, pb, n, &f) }
        }
    }
}

/// Elements from which a dense elementwise loop is split across threads (below it, one thread:
/// waking the pool costs more than it saves).
const PAR_MIN_ELEMS: usize = 1 << 18;

/// The chunk length for splitting a dense loop of `n` elements across threads, or `None` to run
/// it on the calling thread. Every element is computed the same way whichever thread runs it, so
/// results do not depend on the thread count.
///
/// With one thread the loop still goes through `parallel_for` (which then runs the chunks in
/// order on the calling thread), so a long loop reaches an interrupt checkpoint between chunks
/// (Note [Interrupting kernels] in src/core/interrupt.rs); chunks are at most `PAR_MAX_GRAIN`.
fn par_grain(n: usize) -> Option<usize> {
    if n < PAR_MIN_ELEMS {
        return None;
    }
    let threads = parallel::get_num_threads();
    // A few chunks per thread balance an uneven start; cache-line-sized multiples.
    Some(
        n.div_ceil(threads * 4)
            .clamp(1 << 15, PAR_MAX_GRAIN)
            .next_multiple_of(64),
    )
}

/// The longest chunk of a split dense loop: a few milliseconds of work at most.
const PAR_MAX_GRAIN: usize = 1 << 22;

/// `dense_map2` split across threads in chunks of `grain` (disjoint subranges).
///
/// # Safety
/// As `dense_map2`, and neither mode is `Alias::Other`.
unsafe fn dense_map2_par<T: Element, R: Element>(
    po: *mut R,
    pa: *const T,
    pb: *const T,
    n: usize,
    grain: usize,
    modes: (Alias, Alias),
    f: impl Fn(T, T) -> R + Sync,
) {
    let (po, pa, pb) = (SendPtr(po), SendPtr(pa as *mut T), SendPtr(pb as *mut T));
    parallel::parallel_for(n, grain, |s, e| {
        // SAFETY: `[s, e)` is inside the `n` elements of all three operands (caller's
        // contract); chunks are disjoint, and `modes` (Distinct or Same) hold for matching
        // subranges too.
        unsafe {
            dense_map2_shared(
                po.get().add(s),
                pa.get().add(s),
                pb.get().add(s),
                e - s,
                modes,
                &f,
            )
        }
    });
}

/// `dense_map2` out of line: the one copy of a binary kernel's dense loops, run by the serial
/// path of `binary_into` and by every chunk of `binary_into_par` (inlined into both, they were
/// compiled twice per op and dtype).
///
/// # Safety
/// As `dense_map2`.
#[inline(never)]
unsafe fn dense_map2_shared<T: Element, R: Element, F: Fn(T, T) -> R>(
    po: *mut R,
    pa: *const T,
    pb: *const T,
    n: usize,
    modes: (Alias, Alias),
    f: &F,
) {
    // SAFETY: the caller's contract, passed on.
    unsafe { dense_map2(po, pa, pb, n, modes, f) }
}

/// `dense_map` of `f(x, b[i])` out of line (see `dense_map2_shared`).
///
/// # Safety
/// As `dense_map`.
#[inline(never)]
unsafe fn dense_map_left_shared<T: Element, R: Element, F: Fn(T, T) -> R>(
    po: *mut R,
    pb: *const T,
    n: usize,
    mode: Alias,
    x: T,
    f: &F,
) {
    // SAFETY: the caller's contract, passed on.
    unsafe { dense_map(po, pb, n, mode, |y| f(x, y)) }
}

/// `dense_map` of `f(a[i], y)` out of line (see `dense_map2_shared`).
///
/// # Safety
/// As `dense_map`.
#[inline(never)]
unsafe fn dense_map_right_shared<T: Element, R: Element, F: Fn(T, T) -> R>(
    po: *mut R,
    pa: *const T,
    n: usize,
    mode: Alias,
    y: T,
    f: &F,
) {
    // SAFETY: the caller's contract, passed on.
    unsafe { dense_map(po, pa, n, mode, |x| f(x, y)) }
}

// ----- operands -----------------------------------------------------------------------------

/// `t` in `dtype`: another handle when it already has it, otherwise a converted copy.
pub(crate) fn operand_as(t: &Tensor, dtype: DType) -> Result<Tensor> {
    if t.dtype() == dtype {
        Ok(t.clone())
    } else {
        t.to_dtype(dtype)
    }
}

/// The broadcast shape of two operands; operands of one shape (the common case), or a 0-dim
/// operand (a Python number), borrow the other's shape instead of building a new one (a
/// per-call allocation on small tensors).
pub(crate) fn broadcast_shape_of<'a>(a: &'a Tensor, b: &'a Tensor) -> Result<Cow<'a, [usize]>> {
    if a.sizes() == b.sizes() || b.dim() == 0 {
        Ok(Cow::Borrowed(a.sizes()))
    } else if a.dim() == 0 {
        Ok(Cow::Borrowed(b.sizes()))
    } else {
        broadcast_shapes(a.sizes(), b.sizes()).map(Cow::Owned)
    }
}

/// One input of a binary kernel, in the compute dtype `T`: a tensor, or a single value — torch's
/// "CPU scalar" operand (a wrapped Python number or any other 0-dim tensor), read once and
/// converted with the casting rules of `copy_`, so `t + 2.0` makes no converted 0-dim tensor.
pub(crate) enum Input<'a, T> {
    Tensor(Cow<'a, Tensor>),
    Value(T),
}

impl<'a, T: Element> Input<'a, T> {
    /// `t` as an input computed in `T`: a 0-dim tensor becomes its value converted to `T`; a
    /// tensor of dtype `T` is borrowed; any other is converted (a copy).
    #[inline]
    pub(crate) fn of(t: &'a Tensor) -> Result<Input<'a, T>> {
        if t.dim() == 0 {
            // `cast_from` is the conversion `to_dtype` would have stored.
            return Ok(Input::Value(crate::dispatch!(t.dtype(), S => {
                // SAFETY: a 0-dim tensor has one element of its dtype at its data pointer.
                T::cast_from(unsafe { *t.data_ptr::<S>() })
            })));
        }
        if t.dtype() == T::DTYPE {
            Ok(Input::Tensor(Cow::Borrowed(t)))
        } else {
            Ok(Input::Tensor(Cow::Owned(t.to_dtype(T::DTYPE)?)))
        }
    }

    /// The tensor, when it is one with `n` contiguous elements (lines up with a contiguous
    /// output of `n` elements one for one).
    #[inline]
    fn dense(&self, n: usize) -> Option<&Tensor> {
        match self {
            Input::Tensor(t) if t.numel() == n && t.is_contiguous() => Some(&**t),
            _ => None,
        }
    }

    /// The one value of a single-element input (a value, or a tensor of one element).
    #[inline]
    fn single(&self) -> Option<T> {
        match self {
            Input::Value(v) => Some(*v),
            // SAFETY: a one-element tensor of dtype `T` has that element at its data pointer.
            Input::Tensor(t) if t.numel() == 1 => Some(unsafe { *t.data_ptr::<T>() }),
            _ => None,
        }
    }

    /// True when some element is zero.
    pub(crate) fn any_zero(&self) -> bool {
        match self {
            Input::Value(v) => *v == T::default(),
            Input::Tensor(t) => any_zero::<T>(t),
        }
    }
}

/// True when some element of `t` (dtype `T`) is zero.
fn any_zero<T: Element>(t: &Tensor) -> bool {
    // SAFETY: read at once; concurrent writers are excluded by Note [Concurrency contract].
    if let Some(s) = unsafe { t.as_slice::<T>() } {
        return s.iter().any(|&v| v == T::default());
    }
    let p = t.data_ptr::<T>();
    let mut found = false;
    strided_for_each(t.sizes(), [t.strides()], |[o]| {
        // SAFETY: `o` addresses an element of `t`.
        found |= unsafe { *p.offset(o) } == T::default();
    });
    found
}

/// An input's element pointer and strides broadcast to `shape`; a value is addressed through
/// `slot` (where the caller keeps a copy) with all-zero strides.
fn input_geometry<T: Element>(
    x: &Input<'_, T>,
    slot: &T,
    shape: &[usize],
) -> Result<(*const T, Vec<isize>)> {
    match x {
        Input::Tensor(t) => Ok((t.data_ptr::<T>() as *const T, t.broadcast_strides(shape)?)),
        Input::Value(_) => Ok((slot as *const T, vec![0; shape.len()])),
    }
}

// ----- drivers ------------------------------------------------------------------------------

/// `binary_into` with large dense loops split across threads (`core::parallel`); results are
/// identical to `binary_into`'s for any thread count. Broadcast and strided cases, and small
/// ones, go to `binary_into`.
pub(crate) fn binary_into_par<T: Element, R: Element>(
    out: &Tensor,
    a: &Input<'_, T>,
    b: &Input<'_, T>,
    f: impl Fn(T, T) -> R + Sync,
) -> Result<()> {
    let n = out.numel();
    let grain = match par_grain(n) {
        Some(g) if out.is_contiguous() => g,
        _ => return binary_into(out, a, b, f),
    };
    let po = out.data_ptr::<R>();
    match (a.dense(n), b.dense(n)) {
        (Some(ta), Some(tb)) => {
            let modes = (alias_of::<T, R>(out, ta), alias_of::<T, R>(out, tb));
            if modes.0 != Alias::Other && modes.1 != Alias::Other {
                let (pa, pb) = (
                    ta.data_ptr::<T>() as *const T,
                    tb.data_ptr::<T>() as *const T,
                );
                // SAFETY: all three are contiguous with `n` elements; `modes` describe the
                // aliasing and neither is `Other`.
                unsafe { dense_map2_par(po, pa, pb, n, grain, modes, f) };
                return Ok(());
            }
        }
        (None, Some(tb)) => {
            let mode = alias_of::<T, R>(out, tb);
            if let (Some(x), true) = (a.single(), mode != Alias::Other) {
                let pb = tb.data_ptr::<T>() as *const T;
                // SAFETY: `out` and `b` are contiguous with `n` elements; `mode` is not `Other`;
                // `a`'s one value was read before any write.
                let (po, pb) = (SendPtr(po), SendPtr(pb as *mut T));
                parallel::parallel_for(n, grain, |s, e| {
                    // SAFETY: `[s, e)` is inside the `n` elements of both operands; chunks are
                    // disjoint, and `mode` (Distinct or Same) holds for matching subranges too.
                    unsafe {
                        dense_map_left_shared(po.get().add(s), pb.get().add(s), e - s, mode, x, &f)
                    }
                });
                return Ok(());
            }
        }
        (Some(ta), None) => {
            let mode = alias_of::<T, R>(out, ta);
            if let (Some(y), true) = (b.single(), mode != Alias::Other) {
                let pa = ta.data_ptr::<T>() as *const T;
                // SAFETY: `out` and `a` are contiguous with `n` elements; `mode` is not `Other`;
                // `b`'s one value was read before any write.
                let (po, pa) = (SendPtr(po), SendPtr(pa as *mut T));
                parallel::parallel_for(n, grain, |s, e| {
                    // SAFETY: `[s, e)` is inside the `n` elements of both operands; chunks are
                    // disjoint, and `mode` (Distinct or Same) holds for matching subranges too.
                    unsafe {
                        dense_map_right_shared(po.get().add(s), pa.get().add(s), e - s, mode, y, &f)
                    }
                });
                return Ok(());
            }
        }
        (None, None) => {}
    }
    binary_into(out, a, b, f)
}

/// Write `f(a, b)` into `out`, broadcasting `a` and `b` (both in `T`) to `out`'s shape (`out`
/// has dtype `R`). `out` must either share no storage with an input tensor or address exactly
/// that input's elements (in-place); any other overlap is the caller's to avoid. Values are
/// read before anything is written.
pub(crate) fn binary_into<T: Element, R: Element>(
    out: &Tensor,
    a: &Input<'_, T>,
    b: &Input<'_, T>,
    f: impl Fn(T, T) -> R,
) -> Result<()> {
    binary_into_impl::<T, R, false>(out, a, b, f)
}

/// `binary_into`; with `FRESH`, `out` is a new tensor sharing no storage with `a` or `b`, so
/// only the non-aliased loops are instantiated (the in-place and overlapping variants would be
/// dead code in every `binary_op` instance).
#[inline(always)]
fn binary_into_impl<T: Element, R: Element, const FRESH: bool>(
    out: &Tensor,
    a: &Input<'_, T>,
    b: &Input<'_, T>,
    f: impl Fn(T, T) -> R,
) -> Result<()> {
    let mode_of = |out: &Tensor, x: &Tensor| {
        if FRESH {
            Alias::Distinct
        } else {
            alias_of::<T, R>(out, x)
        }
    };
    debug_assert!(out.dtype() == R::DTYPE);
    let n = out.numel();
    if n == 0 {
        return Ok(());
    }
    let po = out.data_ptr::<R>();
    if out.is_contiguous() {
        // An input with as many elements as the output broadcasts without expansion, so when
        // contiguous its elements line up with the output's one for one.
        match (a.dense(n), b.dense(n)) {
            (Some(ta), Some(tb)) => {
                let modes = (mode_of(out, ta), mode_of(out, tb));
                let (pa, pb) = (
                    ta.data_ptr::<T>() as *const T,
                    tb.data_ptr::<T>() as *const T,
                );
                // SAFETY: all three are contiguous with `n` elements; `modes` describe the
                // aliasing. A fresh output inlines its loops (Distinct only); any other shares
                // `binary_into_par`'s copy.
                unsafe {
                    if FRESH {
                        dense_map2(po, pa, pb, n, modes, f)
                    } else {
                        dense_map2_shared(po, pa, pb, n, modes, &f)
                    }
                };
                return Ok(());
            }
            (None, Some(tb)) => {
                if let Some(x) = a.single() {
                    let pb = tb.data_ptr::<T>() as *const T;
                    // SAFETY: `out` and `b` are contiguous with `n` elements; `a`'s one value
                    // was read before any write.
                    unsafe {
                        if FRESH {
                            dense_map(po, pb, n, Alias::Distinct, |y| f(x, y))
                        } else {
                            dense_map_left_shared(po, pb, n, mode_of(out, tb), x, &f)
                        }
                    };
                    return Ok(());
                }
            }
            (Some(ta), None) => {
                if let Some(y) = b.single() {
                    let pa = ta.data_ptr::<T>() as *const T;
                    // SAFETY: `out` and `a` are contiguous with `n` elements; `b`'s one value
                    // was read before any write.
                    unsafe {
                        if FRESH {
                            dense_map(po, pa, n, Alias::Distinct, |x| f(x, y))
                        } else {
                            dense_map_right_shared(po, pa, n, mode_of(out, ta), y, &f)
                        }
                    };
                    return Ok(());
                }
            }
            (None, None) => {}
        }
    }
    binary_strided(out, a, b, f)
}

/// `binary_into`'s strided loop (any layout; `out` may be exactly an input, whose elements are
/// each read before being written).
#[inline(always)]
fn binary_strided<T: Element, R: Element>(
    out: &Tensor,
    a: &Input<'_, T>,
    b: &Input<'_, T>,
    f: impl Fn(T, T) -> R,
) -> Result<()> {
    let po = out.data_ptr::<R>();
    // Values live in these slots for the strided loop (read only).
    let slot_a = a.single().unwrap_or_default();
    let slot_b = b.single().unwrap_or_default();
    let (pa, sa) = input_geometry(a, &slot_a, out.sizes())?;
    let (pb, sb) = input_geometry(b, &slot_b, out.sizes())?;
    // Row by row (the walk over the outer dims is shared code); a `move` closure, so the row
    // loop keeps the pointers and `f`'s captures in registers.
    let strides = [out.strides(), &sa[..], &sb[..]];
    let mut ticker = Ticker::new();
    strided_rows(
        out.sizes(),
        strides,
        move |[mut o, mut x, mut y], len, [so, sx, sy]| {
            ticker.tick(len);
            for _ in 0..len {
                // SAFETY: each offset comes from its operand's own (broadcast) geometry over
                // `out`'s shape (a value's strides are all zero, so it is always its slot).
                unsafe { *po.offset(o) = f(*pa.offset(x), *pb.offset(y)) };
                (o, x, y) = (o + so, x + sx, y + sy);
            }
        },
    );
    Ok(())
}

/// The kernel of a binary op's plan (Note [One kernel per op] in ops/plan.rs): `f(a, b)`
/// computed in `T` (operands of another dtype converted first, 0-dim ones read as values) into
/// `out` (dtype `R`, the broadcast shape). A `fresh` output, or one sharing no storage with an
/// input, gets the dense loops; an output that is exactly an input (in place) the strided loop.
#[inline(always)]
pub(crate) fn binary_kernel<T: Element, R: Element>(
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    fresh: bool,
    f: impl Fn(T, T) -> R,
) -> Result<()> {
    let (xa, xb) = (Input::<T>::of(a)?, Input::<T>::of(b)?);
    if fresh || !(out.shares_storage(a) || out.shares_storage(b)) {
        binary_into_impl::<T, R, true>(out, &xa, &xb, f)
    } else if out.numel() == 0 {
        Ok(())
    } else {
        binary_strided(out, &xa, &xb, f)
    }
}

/// `binary_kernel` with the element function behind `dyn`: one kernel per dtype pair shared by
/// the cold binary ops whose element functions cost more than the indirect call (special
/// functions, `fmod`, `gcd`/`lcm`), instead of one kernel per op and dtype (~11 KB each). Every
/// op with a cheap, vectorisable element function keeps `binary_kernel` with it inlined: behind
/// `dyn`, `fmax`, `copysign` and the shifts ran 2.6-3.2x slower on 1M float32.
#[inline(never)]
pub(crate) fn binary_kernel_dyn<T: Element, R: Element>(
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    fresh: bool,
    f: &dyn ElemFn2<T, R>,
) -> Result<()> {
    binary_kernel::<T, R>(out, a, b, fresh, |x, y| f.apply2(x, y))
}

/// A new tensor of `f(a, b)` over the broadcast shape of `a` and `b`, computed in `T` (operands
/// of another dtype are converted first; 0-dim ones are read as values) with result dtype `R`.
pub(crate) fn binary_op<T: Element, R: Element>(
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(T, T) -> R,
) -> Result<Tensor> {
    let shape = broadcast_shape_of(a, b)?;
    // SAFETY: `binary_kernel` writes every element of `out` when it returns `Ok`; on an error
    // `out` is dropped unread.
    let out = unsafe { Tensor::empty_uninit(&shape, R::DTYPE)? };
    binary_kernel::<T, R>(&out, a, b, true, f)?;
    Ok(out)
}

/// A new tensor of `f(a)` with `a`'s shape; `a` must have dtype `S`, the result has dtype `R`.
pub(crate) fn unary_op<S: Element, R: Element>(a: &Tensor, f: impl Fn(S) -> R) -> Result<Tensor> {
    // SAFETY: `unary_into` writes every element of `out` (same shape as `a`) when it returns
    // `Ok`; on an error `out` is dropped unread.
    let out = unsafe { Tensor::empty_uninit(a.sizes(), R::DTYPE)? };
    unary_into(&out, a, true, f)?;
    Ok(out)
}

/// `unary_into` with the element function behind `dyn`: one kernel per dtype pair shared by the
/// cold unary ops (libm calls, special functions), whose element functions cost more than the
/// indirect call (see `binary_kernel_dyn`).
#[inline(never)]
pub(crate) fn unary_into_dyn<S: Element, R: Element>(
    out: &Tensor,
    a: &Tensor,
    fresh: bool,
    f: &dyn ElemFn<S, R>,
) -> Result<()> {
    unary_into(out, a, fresh, |x| f.apply(x))
}

/// Write `f(a)` into `out` (`a`'s shape, dtype `R`; `a` has dtype `S`): the kernel of every
/// unary op's plan (Note [One kernel per op] in ops/plan.rs). A `fresh` output, or one sharing
/// no storage with `a`, gets the dense loop when both are contiguous; otherwise (any layout, or
/// `out` exactly `a`: in place) the strided loop, which reads each element before writing it.
pub(crate) fn unary_into<S: Element, R: Element>(
    out: &Tensor,
    a: &Tensor,
    fresh: bool,
    f: impl Fn(S) -> R,
) -> Result<()> {
    debug_assert_eq!(a.dtype(), S::DTYPE);
    debug_assert_eq!(out.sizes(), a.sizes());
    let n = out.numel();
    if n == 0 {
        return Ok(());
    }
    let (po, pa) = (out.data_ptr::<R>(), a.data_ptr::<S>() as *const S);
    let distinct = fresh || !out.shares_storage(a);
    if distinct && a.is_contiguous() && out.is_contiguous() {
        // In chunks, with an interrupt checkpoint before each (Note [Interrupting kernels]).
        let mut s = 0;
        while s < n {
            let e = (s + PAR_MAX_GRAIN).min(n);
            crate::core::interrupt::checkpoint();
            // SAFETY: `out` and `a` lie in distinct storages (fresh, or checked above) and both
            // hold `n` contiguous elements, of which `s..e` is a subrange.
            unsafe { dense_map(po.add(s), pa.add(s), e - s, Alias::Distinct, &f) };
            s = e;
        }
    } else {
        // As in `binary_into`: rows, with a `move` closure.
        let strides = [out.strides(), a.strides()];
        let mut ticker = Ticker::new();
        strided_rows(a.sizes(), strides, move |[mut o, mut x], len, [so, sx]| {
            ticker.tick(len);
            for _ in 0..len {
                // SAFETY: offsets come from each tensor's own geometry over the same shape;
                // when `out` is `a`, each element is read before it is written.
                unsafe { *po.offset(o) = f(*pa.offset(x)) };
                (o, x) = (o + so, x + sx);
            }
        });
    }
    Ok(())
}
