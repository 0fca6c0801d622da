//! src/core/ops/elementwise.rs: elementwise arithmetic with broadcasting and type promotion
//! (`add`, `sub`, `mul`, `div`, `remainder`, `floor_divide`, `pow`, `maximum`, `minimum`,
//! `where`, `neg`, `abs`, `exp`, `log`, `sqrt`), the in-place forms (`add_`, `sub_`, `mul_`,
//! `div_`, `fill_`, `zero_`), and the shared strided kernels `compare.rs` uses too
//! (PyTorch: `BinaryOps.cpp`, `UnaryOps.cpp`, `TensorCompare.cpp`, `TensorIterator`).

use crate::core::dtype::{Category, DType, Element};
use crate::core::error::{Error, Result};
use crate::core::interrupt::Ticker;
use crate::core::parallel::{self, SendPtr};
use crate::core::promote::{can_cast, promote_types, result_type};
use crate::core::scalar::Scalar;
use crate::core::tensor::{broadcast_shapes, strided_for_each, strided_rows, Tensor};
use std::borrow::Cow;

// ----- element arithmetic ------------------------------------------------------------------

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

// ----- kernels -----------------------------------------------------------------------------

/// `t` in `dtype`: another handle when it already has it, otherwise a converted copy.
pub(crate) fn operand_as(t: &Tensor, dtype: DType) -> Result<Tensor> {
    if t.dtype() == dtype {
        Ok(t.clone())
    } else {
        t.to_dtype(dtype)
    }
}

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
    f: &dyn Fn(T) -> R,
) {
    for i in 0..n {
        // SAFETY: `i < n`; plain reads and writes through raw pointers, no references.
        unsafe { *po.add(i) = f(*px.add(i)) };
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
    f: &dyn Fn(T, T) -> R,
) {
    for i in 0..n {
        // SAFETY: `i < n`; plain reads and writes through raw pointers, no references.
        unsafe { *po.add(i) = f(*pa.add(i), *pb.add(i)) };
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

/// `dense_map` split across threads in chunks of `grain` (disjoint subranges: Note [Storage
/// aliasing]). Only the parallel form lives here, so the kernel is not instantiated twice.
///
/// # Safety
/// As `dense_map`, and `mode` is not `Alias::Other`.
unsafe fn dense_map_par<T: Element, R: Element>(
    po: *mut R,
    px: *const T,
    n: usize,
    grain: usize,
    mode: Alias,
    f: impl Fn(T) -> R + Sync,
) {
    let (po, px) = (SendPtr(po), SendPtr(px as *mut T));
    parallel::parallel_for(n, grain, |s, e| {
        // SAFETY: `[s, e)` is inside the `n` elements of both operands (caller's contract);
        // chunks are disjoint, and `mode` (Distinct or Same) holds for matching subranges too.
        unsafe { dense_map(po.get().add(s), px.get().add(s), e - s, mode, &f) }
    });
}

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
            dense_map2(
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
    fn any_zero(&self) -> bool {
        match self {
            Input::Value(v) => *v == T::default(),
            Input::Tensor(t) => any_zero::<T>(t),
        }
    }
}

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
                unsafe { dense_map_par(po, pb, n, grain, mode, |y| f(x, y)) };
                return Ok(());
            }
        }
        (Some(ta), None) => {
            let mode = alias_of::<T, R>(out, ta);
            if let (Some(y), true) = (b.single(), mode != Alias::Other) {
                let pa = ta.data_ptr::<T>() as *const T;
                // SAFETY: `out` and `a` are contiguous with `n` elements; `mode` is not `Other`;
                // `b`'s one value was read before any write.
                unsafe { dense_map_par(po, pa, n, grain, mode, |x| f(x, y)) };
                return Ok(());
            }
        }
        (None, None) => {}
    }
    binary_into(out, a, b, f)
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
                // aliasing.
                unsafe { dense_map2(po, pa, pb, n, modes, f) };
                return Ok(());
            }
            (None, Some(tb)) => {
                if let Some(x) = a.single() {
                    let pb = tb.data_ptr::<T>() as *const T;
                    // SAFETY: `out` and `b` are contiguous with `n` elements; `a`'s one value
                    // was read before any write.
                    unsafe { dense_map(po, pb, n, mode_of(out, tb), |y| f(x, y)) };
                    return Ok(());
                }
            }
            (Some(ta), None) => {
                if let Some(y) = b.single() {
                    let pa = ta.data_ptr::<T>() as *const T;
                    // SAFETY: `out` and `a` are contiguous with `n` elements; `b`'s one value
                    // was read before any write.
                    unsafe { dense_map(po, pa, n, mode_of(out, ta), |x| f(x, y)) };
                    return Ok(());
                }
            }
            (None, None) => {}
        }
    }
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
        &mut move |[mut o, mut x, mut y], len, [so, sx, sy]| {
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

/// A new tensor of `f(a, b)` over the broadcast shape of `a` and `b`, computed in `T` (operands
/// of another dtype are converted first; 0-dim ones are read as values) with result dtype `R`.
pub(crate) fn binary_op<T: Element, R: Element>(
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(T, T) -> R,
) -> Result<Tensor> {
    let shape = broadcast_shape_of(a, b)?;
    let (a, b) = (Input::<T>::of(a)?, Input::<T>::of(b)?);
    // SAFETY: `binary_into_impl` writes every element of `out` when it returns `Ok`; on an
    // error `out` is dropped unread.
    let out = unsafe { Tensor::empty_uninit(&shape, R::DTYPE)? };
    binary_into_impl::<T, R, true>(&out, &a, &b, f)?;
    Ok(out)
}

/// A new tensor of `f(a)` with `a`'s shape; `a` must have dtype `S`, the result has dtype `R`.
pub(crate) fn unary_op<S: Element, R: Element>(a: &Tensor, f: impl Fn(S) -> R) -> Result<Tensor> {
    debug_assert_eq!(a.dtype(), S::DTYPE);
    // SAFETY: both loops below write every element of `out` (same shape as `a`).
    let out = unsafe { Tensor::empty_uninit(a.sizes(), R::DTYPE)? };
    let n = out.numel();
    if n == 0 {
        return Ok(out);
    }
    let (po, pa) = (out.data_ptr::<R>(), a.data_ptr::<S>() as *const S);
    if a.is_contiguous() {
        // In chunks, with an interrupt checkpoint before each (Note [Interrupting kernels]).
        let mut s = 0;
        while s < n {
            let e = (s + PAR_MAX_GRAIN).min(n);
            crate::core::interrupt::checkpoint();
            // SAFETY: `out` is fresh (its own storage) and both hold `n` contiguous elements, of
            // which `s..e` is a subrange.
            unsafe { dense_map(po.add(s), pa.add(s), e - s, Alias::Distinct, &f) };
            s = e;
        }
    } else {
        // As in `binary_into`: rows, with a `move` closure.
        let strides = [out.strides(), a.strides()];
        let mut ticker = Ticker::new();
        strided_rows(
            a.sizes(),
            strides,
            &mut move |[mut o, mut x], len, [so, sx]| {
                ticker.tick(len);
                for _ in 0..len {
                    // SAFETY: offsets come from each tensor's own geometry over the same shape.
                    unsafe { *po.offset(o) = f(*pa.offset(x)) };
                    (o, x) = (o + so, x + sx);
                }
            },
        );
    }
    Ok(out)
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

// ----- binary ops --------------------------------------------------------------------------

/// The binary arithmetic ops sharing one driver.
#[derive(Clone, Copy, Debug, PartialEq)]
enum BinOp {
    Add(Scalar),
    Sub(Scalar),
    Mul,
    TrueDiv,
    DivTrunc,
    DivFloor,
    Remainder,
    Pow,
    Maximum,
    Minimum,
}

fn is_one(s: Scalar) -> bool {
    matches!(s, Scalar::Int(1) | Scalar::Bool(true)) || s == Scalar::Float(1.0)
}

/// Run `op` in `dtype` into `out` (dtype `dtype`): `a` and `b` broadcast to `out` and are
/// converted to `dtype` first (0-dim ones read as values: see `Input`).
fn run_binop(op: BinOp, dtype: DType, out: &Tensor, a: &Tensor, b: &Tensor) -> Result<()> {
    crate::dispatch!(dtype, T => run_binop_typed::<T>(op, out, &Input::of(a)?, &Input::of(b)?))
}

fn run_binop_typed<T: Arith>(
    op: BinOp,
    out: &Tensor,
    a: &Input<'_, T>,
    b: &Input<'_, T>,
) -> Result<()> {
    let int_division = matches!(op, BinOp::DivTrunc | BinOp::DivFloor | BinOp::Remainder);
    if int_division && T::DTYPE.is_integral() && out.numel() > 0 && b.any_zero() {
        // torch checks each divisor inside its integer kernels: TORCH_CHECK(b != 0, ...).
        return Err(Error::runtime("ZeroDivisionError"));
    }
    match op {
        BinOp::Add(alpha) => {
            if is_one(alpha) {
                return binary_into_par(out, a, b, |x: T, y: T| x.wadd(y));
            }
            let al: T = alpha.to_checked::<T>()?;
            binary_into_par(out, a, b, move |x: T, y: T| x.wadd(al.wmul(y)))
        }
        BinOp::Sub(alpha) => {
            if is_one(alpha) {
                return binary_into_par(out, a, b, |x: T, y: T| x.wsub(y));
            }
            // torch: sub is add with -alpha (the negated scalar is what gets range-checked).
            let neg = match alpha {
                Scalar::Int(i) => Scalar::Int(i.wrapping_neg()),
                Scalar::Float(f) => Scalar::Float(-f),
                Scalar::Bool(_) => {
                    return Err(Error::runtime("torch boolean negative is not supported."))
                }
            };
            let al: T = neg.to_checked::<T>()?;
            binary_into_par(out, a, b, move |x: T, y: T| x.wadd(al.wmul(y)))
        }
        BinOp::Mul => binary_into_par(out, a, b, |x: T, y: T| x.wmul(y)),
        BinOp::TrueDiv => binary_into_par(out, a, b, |x: T, y: T| x.true_div(y)),
        BinOp::DivTrunc => binary_into_par_dyn(out, a, b, &|x: T, y: T| x.div_trunc(y)),
        BinOp::DivFloor => binary_into_par_dyn(out, a, b, &|x: T, y: T| x.div_floor(y)),
        BinOp::Remainder => binary_into_par_dyn(out, a, b, &|x: T, y: T| x.rem_floor(y)),
        BinOp::Pow => binary_into_par_dyn(out, a, b, &|x: T, y: T| x.pow_(y)),
        BinOp::Maximum => binary_into_par(out, a, b, |x: T, y: T| x.max_nan(y)),
        BinOp::Minimum => binary_into_par(out, a, b, |x: T, y: T| x.min_nan(y)),
    }
}

/// `binary_into_par` with the element function behind `dyn`: one kernel per dtype shared by the
/// ops whose element function is costly anyway (integer division with its zero and sign
/// fix-ups, `floor_divide`, `remainder`, `pow`), instead of one kernel per op and dtype. The
/// cheap, vectorisable ops (add, sub, mul, true division, maximum, minimum) keep their own.
#[inline(never)]
fn binary_into_par_dyn<T: Arith>(
    out: &Tensor,
    a: &Input<'_, T>,
    b: &Input<'_, T>,
    f: &(dyn Fn(T, T) -> T + Sync),
) -> Result<()> {
    binary_into_par(out, a, b, f)
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

/// `result_type(&[a, b])`, with the common cases first: equal dtypes promote to themselves
/// whatever their categories or weakness, and a tensor with dimensions against a wrapped number
/// (`t + 2.0`) keeps its dtype unless the number's category is higher (then the number counts
/// with its default dtype: int64, float32) — `result_type`'s tier rule for these two operands.
fn binary_result_type(a: &Tensor, b: &Tensor) -> DType {
    if a.dtype() == b.dtype() {
        return a.dtype();
    }
    let weak_against = |t: &Tensor, w: &Tensor| {
        let wd = match w.dtype().category() {
            Category::Floating => DType::DEFAULT_FLOAT,
            Category::Integral => DType::Int64,
            Category::Bool => DType::Bool,
        };
        if wd.category() > t.dtype().category() {
            promote_types(t.dtype(), wd)
        } else {
            t.dtype()
        }
    };
    if b.is_wrapped_number() && a.dim() > 0 {
        weak_against(a, b)
    } else if a.is_wrapped_number() && b.dim() > 0 {
        weak_against(b, a)
    } else {
        result_type(&[a, b])
    }
}

/// `op(a, b)` into a new tensor of `shape` and `dtype`.
fn binop_new(op: BinOp, dtype: DType, a: &Tensor, b: &Tensor, shape: &[usize]) -> Result<Tensor> {
    crate::dispatch!(dtype, T => {
        let (a, b) = (Input::<T>::of(a)?, Input::<T>::of(b)?);
        // SAFETY: every arm of `run_binop_typed` either fails before writing (then `out` is
        // dropped unread) or writes every element of `out` through `binary_into_par`.
        let out = unsafe { Tensor::empty_uninit(shape, dtype)? };
        run_binop_typed::<T>(op, &out, &a, &b)?;
        Ok(out)
    })
}

/// A binary op whose checks have passed — torch's structured-kernel "meta" step: the broadcast
/// shape, the result dtype and the op's own errors (alpha, rounding mode, bool operands) are
/// settled, nothing is allocated yet. `run` computes into a new tensor (the op itself); `run_into`
/// writes into a caller's `out=` tensor without an intermediate result.
pub struct BinaryPlan<'a> {
    op: BinOp,
    dtype: DType,
    shape: Cow<'a, [usize]>,
    a: &'a Tensor,
    b: &'a Tensor,
}

impl BinaryPlan<'_> {
    /// The result's shape (the operands' broadcast shape).
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The result's dtype (also the dtype the op computes in).
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The result in a new tensor.
    #[inline]
    pub fn run(self) -> Result<Tensor> {
        binop_new(self.op, self.dtype, self.a, self.b, &self.shape)
    }

    /// Write the result into `out` (torch's `add.out`, `mul.out`, ...). `out` must already have
    /// the result's shape (torch resizes it first; the binding does that, see `write_out_plan`),
    /// else RuntimeError "output with shape [3] doesn't match the broadcast shape [2, 3]"; the
    /// result dtype must cast to `out`'s (RuntimeError "result type Float can't be cast to the
    /// desired output type Long").
    ///
    /// The kernel writes straight into `out` when `out` has the result dtype, no two of its
    /// elements share memory, and it shares no storage with an input tensor other than by being
    /// exactly that input (out=a). Otherwise — a cast on the way out, or `out` overlapping an
    /// input in another way (a shifted view of it, say) — the result is computed into a
    /// temporary and copied (`copy_`, with its errors), so the values are always those of the
    /// op computed before `out` is written.
    pub fn run_into(self, out: &Tensor) -> Result<()> {
        if !can_cast(self.dtype, out.dtype()) {
            return Err(cast_error(self.dtype, out.dtype()));
        }
        if out.sizes() != &*self.shape {
            return Err(Error::runtime(format!(
                "output with shape {:?} doesn't match the broadcast shape {:?}",
                out.sizes(),
                &*self.shape
            )));
        }
        // TensorIterator's memory-overlap checks (torch raises these for `out=` too): an expanded
        // `out`, or a dense input covering some but not exactly the same bytes as a dense `out`.
        out.assert_no_internal_overlap()?;
        out.assert_no_partial_overlap(self.a)?;
        out.assert_no_partial_overlap(self.b)?;
        let direct = out.dtype() == self.dtype
            && !overlaps_other_than_exactly(out, self.a, self.dtype)
            && !overlaps_other_than_exactly(out, self.b, self.dtype)
            && out.assert_no_internal_overlap().is_ok();
        if direct {
            return run_binop(self.op, self.dtype, out, self.a, self.b);
        }
        let tmp = self.run()?;
        out.copy_from(&tmp)
    }
}

/// torch's RuntimeError for writing a `from` result into an `out`/`self` of dtype `to`.
fn cast_error(from: DType, to: DType) -> Error {
    Error::runtime(format!(
        "result type {} can't be cast to the desired output type {}",
        from.scalar_type_name(),
        to.scalar_type_name()
    ))
}

/// True when writing `out` could change an element of `x` that a kernel reads after writing it:
/// `x` is a tensor with dimensions that the kernel reads in place (it has the compute dtype) and
/// shares `out`'s storage without being exactly `out`'s elements (same offset, and strides that
/// broadcast to `out`'s). 0-dim inputs are read as values first, other dtypes are converted
/// copies: neither can be affected.
fn overlaps_other_than_exactly(out: &Tensor, x: &Tensor, compute: DType) -> bool {
    x.dim() > 0
        && x.dtype() == compute
        && out.shares_storage(x)
        && !(x.storage_offset() == out.storage_offset()
            && x.broadcast_strides(out.sizes())
                .is_ok_and(|s| s == out.strides()))
}

/// torch's `alpha_check` for add/sub with result dtype `dtype`.
fn alpha_check(dtype: DType, alpha: Scalar) -> Result<()> {
    if matches!(alpha, Scalar::Bool(_)) && dtype != DType::Bool {
        return Err(Error::runtime(
            "Boolean alpha only supported for Boolean results.",
        ));
    }
    if !dtype.is_floating_point() && alpha.is_floating_point() {
        return Err(Error::runtime(
            "For integral input tensors, argument alpha must not be a floating point number.",
        ));
    }
    Ok(())
}

/// torch's `sub_check`: no bool operand (tensor or Python bool) for subtraction.
fn sub_check(input: &Tensor, other: &Tensor) -> Result<()> {
    let (a, b) = (input.dtype() == DType::Bool, other.dtype() == DType::Bool);
    if a && b {
        return Err(Error::runtime(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.",
        ));
    }
    if a || b {
        return Err(Error::runtime(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
        ));
    }
    Ok(())
}

/// torch's dispatch error for a kernel without a bool version (NotImplementedError).
fn reject_bool(dtype: DType, kernel: &str) -> Result<()> {
    if dtype == DType::Bool {
        return Err(Error::not_implemented(format!(
            "\"{kernel}\" not implemented for 'Bool'"
        )));
    }
    Ok(())
}

/// The op for a `div` rounding mode, or torch's error for an unknown mode.
fn div_op(rounding_mode: Option<&str>) -> Result<BinOp> {
    match rounding_mode {
        None => Ok(BinOp::TrueDiv),
        Some("trunc") => Ok(BinOp::DivTrunc),
        Some("floor") => Ok(BinOp::DivFloor),
        Some(other) => Err(Error::runtime(format!(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{other}'"
        ))),
    }
}

/// Result dtype of true division: the promoted dtype, or the default float for ints and bools.
fn float_result_type(a: &Tensor, b: &Tensor) -> DType {
    let d = result_type(&[a, b]);
    if d.is_floating_point() {
        d
    } else {
        DType::DEFAULT_FLOAT
    }
}

/// The compute dtype of `div` with this op, after torch's bool check for the rounding kernels.
fn div_dtype(op: BinOp, a: &Tensor, b: &Tensor) -> Result<DType> {
    match op {
        BinOp::TrueDiv => Ok(float_result_type(a, b)),
        BinOp::DivTrunc => {
            let d = result_type(&[a, b]);
            reject_bool(d, "div_trunc_cpu")?;
            Ok(d)
        }
        _ => {
            let d = result_type(&[a, b]);
            reject_bool(d, "div_floor_cpu")?;
            Ok(d)
        }
    }
}

/// `add(input, other, *, alpha=1)`: `input + alpha * other`, broadcast, in the promoted dtype
/// (`result_type`; Python numbers are weak). Two bools give their logical or. Integers wrap.
/// Errors (RuntimeError): shapes that do not broadcast; a floating `alpha` with an integral or
/// bool result; a bool `alpha` with a non-bool result; an `alpha` outside the result dtype's
/// range. Mirrors `torch.add`.
pub fn add(input: &Tensor, other: &Tensor, alpha: Scalar) -> Result<Tensor> {
    add_plan(input, other, alpha)?.run()
}

/// `add` checked and ready to run into a new tensor or an `out=` tensor (see `BinaryPlan`).
#[inline]
pub fn add_plan<'a>(input: &'a Tensor, other: &'a Tensor, alpha: Scalar) -> Result<BinaryPlan<'a>> {
    let shape = broadcast_shape_of(input, other)?;
    let dtype = binary_result_type(input, other);
    alpha_check(dtype, alpha)?;
    Ok(BinaryPlan {
        op: BinOp::Add(alpha),
        dtype,
        shape,
        a: input,
        b: other,
    })
}

/// `add(input, other, alpha=alpha, out=out)` for an `out` that already has the broadcast shape:
/// the errors of `add`, then those of `BinaryPlan::run_into`. Mirrors `torch.add(..., out=)`
/// (without torch's resizing of a wrong-shaped `out`).
pub fn add_out(out: &Tensor, input: &Tensor, other: &Tensor, alpha: Scalar) -> Result<()> {
    add_plan(input, other, alpha)?.run_into(out)
}

/// `sub(input, other, *, alpha=1)`: `input - alpha * other`, broadcast, in the promoted dtype.
/// Errors as `add`, plus torch's RuntimeError for any bool operand (tensor or Python bool).
/// Mirrors `torch.sub`.
pub fn sub(input: &Tensor, other: &Tensor, alpha: Scalar) -> Result<Tensor> {
    sub_plan(input, other, alpha)?.run()
}

/// `sub` checked and ready to run (see `BinaryPlan`).
#[inline]
pub fn sub_plan<'a>(input: &'a Tensor, other: &'a Tensor, alpha: Scalar) -> Result<BinaryPlan<'a>> {
    sub_check(input, other)?;
    let shape = broadcast_shape_of(input, other)?;
    let dtype = binary_result_type(input, other);
    alpha_check(dtype, alpha)?;
    Ok(BinaryPlan {
        op: BinOp::Sub(alpha),
        dtype,
        shape,
        a: input,
        b: other,
    })
}

/// `sub(..., out=out)` for an `out` of the broadcast shape (as `add_out`).
pub fn sub_out(out: &Tensor, input: &Tensor, other: &Tensor, alpha: Scalar) -> Result<()> {
    sub_plan(input, other, alpha)?.run_into(out)
}

/// `mul(input, other)`: the elementwise product, broadcast, in the promoted dtype (bools: and;
/// integers wrap). RuntimeError when the shapes do not broadcast. Mirrors `torch.mul`.
pub fn mul(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    mul_plan(input, other)?.run()
}

/// `mul` checked and ready to run (see `BinaryPlan`).
#[inline]
pub fn mul_plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<BinaryPlan<'a>> {
    let shape = broadcast_shape_of(input, other)?;
    let dtype = binary_result_type(input, other);
    Ok(BinaryPlan {
        op: BinOp::Mul,
        dtype,
        shape,
        a: input,
        b: other,
    })
}

/// `mul(..., out=out)` for an `out` of the broadcast shape (as `add_out`).
pub fn mul_out(out: &Tensor, input: &Tensor, other: &Tensor) -> Result<()> {
    mul_plan(input, other)?.run_into(out)
}

/// `div(input, other, *, rounding_mode=None)`, broadcast. `None`: true division in the promoted
/// dtype, or float32 when that is integral/bool. `"trunc"` / `"floor"`: the quotient rounded
/// toward zero / -inf, in the promoted dtype. Errors: an unknown mode (RuntimeError, torch's
/// text); integer division by zero with a rounding mode (RuntimeError "ZeroDivisionError");
/// a rounding mode on two bools (NotImplementedError, as torch's kernels). Mirrors `torch.div`.
pub fn div(input: &Tensor, other: &Tensor, rounding_mode: Option<&str>) -> Result<Tensor> {
    div_plan(input, other, rounding_mode)?.run()
}

/// `div` checked and ready to run (see `BinaryPlan`).
#[inline]
pub fn div_plan<'a>(
    input: &'a Tensor,
    other: &'a Tensor,
    rounding_mode: Option<&str>,
) -> Result<BinaryPlan<'a>> {
    let op = div_op(rounding_mode)?;
    let shape = broadcast_shape_of(input, other)?;
    let dtype = div_dtype(op, input, other)?;
    Ok(BinaryPlan {
        op,
        dtype,
        shape,
        a: input,
        b: other,
    })
}

/// `div(..., out=out)` for an `out` of the broadcast shape (as `add_out`).
pub fn div_out(
    out: &Tensor,
    input: &Tensor,
    other: &Tensor,
    rounding_mode: Option<&str>,
) -> Result<()> {
    div_plan(input, other, rounding_mode)?.run_into(out)
}

/// `remainder(input, other)` (Python's `%`): `input - floor(input / other) * other`, the result
/// having the sign of `other`; promoted dtype, broadcast. Integer division by zero is a
/// RuntimeError "ZeroDivisionError"; two bools a NotImplementedError. Mirrors `torch.remainder`.
pub fn remainder(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    remainder_plan(input, other)?.run()
}

/// `remainder` checked and ready to run (see `BinaryPlan`).
#[inline]
pub fn remainder_plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<BinaryPlan<'a>> {
    let shape = broadcast_shape_of(input, other)?;
    let dtype = binary_result_type(input, other);
    reject_bool(dtype, "remainder_cpu")?;
    Ok(BinaryPlan {
        op: BinOp::Remainder,
        dtype,
        shape,
        a: input,
        b: other,
    })
}

/// `floor_divide(input, other)` (Python's `//`): `div(input, other, rounding_mode="floor")`.
/// Mirrors `torch.floor_divide`.
pub fn floor_divide(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    div(input, other, Some("floor"))
}

/// `floor_divide` checked and ready to run (see `BinaryPlan`).
#[inline]
pub fn floor_divide_plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<BinaryPlan<'a>> {
    div_plan(input, other, Some("floor"))
}

/// `pow(input, exponent)`: `input ** exponent`, broadcast, in the promoted dtype. Integer
/// results use exact repeated multiplication (wrapping); a negative integer exponent *tensor*
/// gives 0 except for bases ±1 (torch's `powi`), while a negative Python int exponent with an
/// integral or bool `input` is torch's RuntimeError "Integers to negative integer powers are not
/// allowed.", and a Python int exponent must fit the integer dtype. Float results with a Python
/// number exponent use torch's shortcuts (`x*x` for 2, `sqrt` for 0.5, ...). Bool results exist
/// only for a Python bool/0/1 exponent or base 1 (torch's fill/copy shortcuts); otherwise two
/// bools are a NotImplementedError. Mirrors `torch.pow`.
pub fn pow(input: &Tensor, exponent: &Tensor) -> Result<Tensor> {
    if exponent.is_wrapped_number()
        && !input.dtype().is_floating_point()
        && exponent.dtype().category() == Category::Integral
        && exponent.item()?.to_i64() < 0
    {
        return Err(Error::runtime(
            "Integers to negative integer powers are not allowed.",
        ));
    }
    let shape = broadcast_shapes(input.sizes(), exponent.sizes())?;
    let dtype = result_type(&[input, exponent]);
    // torch's pow(Scalar base, Tensor exp): a base equal to 1 fills ones (`Scalar::equal`
    // never holds for a bool, so `True ** t` takes the general path).
    if input.is_wrapped_number() && input.dtype() != DType::Bool && input.item()?.to_f64() == 1.0 {
        return Tensor::full(&shape, Scalar::Int(1), dtype);
    }
    if exponent.is_wrapped_number() {
        // torch's pow(Tensor, Scalar): exponent 0 fills ones, exponent 1 copies.
        let e = exponent.item()?;
        if e.to_f64() == 0.0 {
            return Tensor::full(&shape, Scalar::Int(1), dtype);
        }
        if e.to_f64() == 1.0 {
            let out = Tensor::zeros(&shape, dtype)?;
            out.copy_from(input)?;
            return Ok(out);
        }
        reject_bool(dtype, "pow")?;
        let a = operand_as(input, dtype)?;
        return match dtype {
            DType::Float32 => pow_float_scalar::<f32>(&a, e.to_f64(), f32::sqrt),
            DType::Float64 => pow_float_scalar::<f64>(&a, e.to_f64(), f64::sqrt),
            d => crate::dispatch!(d, T => {
                // torch converts the exponent with `Scalar::to<scalar_t>()` (range-checked).
                let et: T = e.to_checked::<T>()?;
                unary_op::<T, T>(&a, move |x: T| x.pow_(et))
            }),
        };
    }
    reject_bool(dtype, "pow")?;
    binop_new(BinOp::Pow, dtype, input, exponent, &shape)
}

/// `a ** e` for a float tensor `a` and a Python-number exponent, with torch's shortcuts
/// (`pow_tensor_scalar_kernel`): 2 → `x*x`, 3 → `x*x*x`, -2 → `1/(x*x)`, 0.5 → `sqrt`,
/// -0.5 → `1/sqrt`, -1 → `1/x`; otherwise `pow` in double precision (C++'s
/// `std::pow(scalar_t, double)`), rounded to `T`.
fn pow_float_scalar<T: Arith>(a: &Tensor, e: f64, sqrt: impl Fn(T) -> T) -> Result<Tensor> {
    let one = T::from_f64(1.0);
    if e == 2.0 {
        unary_op::<T, T>(a, |x: T| x.wmul(x))
    } else if e == 3.0 {
        unary_op::<T, T>(a, |x: T| x.wmul(x).wmul(x))
    } else if e == -2.0 {
        unary_op::<T, T>(a, move |x: T| one.true_div(x.wmul(x)))
    } else if e == 0.5 {
        unary_op::<T, T>(a, sqrt)
    } else if e == -0.5 {
        unary_op::<T, T>(a, move |x: T| one.true_div(sqrt(x)))
    } else if e == -1.0 {
        unary_op::<T, T>(a, move |x: T| one.true_div(x))
    } else {
        unary_op::<T, T>(a, move |x: T| T::from_f64(x.to_f64().powf(e)))
    }
}

/// `maximum(input, other)`: the elementwise larger value, broadcast, promoted dtype; NaN if
/// either is NaN. Mirrors `torch.maximum`.
pub fn maximum(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    maximum_plan(input, other)?.run()
}

/// `maximum` checked and ready to run (see `BinaryPlan`).
#[inline]
pub fn maximum_plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<BinaryPlan<'a>> {
    let shape = broadcast_shape_of(input, other)?;
    let dtype = binary_result_type(input, other);
    Ok(BinaryPlan {
        op: BinOp::Maximum,
        dtype,
        shape,
        a: input,
        b: other,
    })
}

/// `minimum(input, other)`: the elementwise smaller value, broadcast, promoted dtype; NaN if
/// either is NaN. Mirrors `torch.minimum`.
pub fn minimum(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    minimum_plan(input, other)?.run()
}

/// `minimum` checked and ready to run (see `BinaryPlan`).
#[inline]
pub fn minimum_plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<BinaryPlan<'a>> {
    let shape = broadcast_shape_of(input, other)?;
    let dtype = binary_result_type(input, other);
    Ok(BinaryPlan {
        op: BinOp::Minimum,
        dtype,
        shape,
        a: input,
        b: other,
    })
}

/// `where(condition, input, other)`: `input` where `condition` is true, else `other`; all three
/// broadcast together; dtype `result_type(input, other)`. `condition` must be bool (uint8 is
/// still accepted, as torch does with a deprecation warning); otherwise RuntimeError "where
/// expected condition to be a boolean tensor, but got a tensor with dtype Float". Mirrors
/// `torch.where(condition, input, other)`.
pub fn where_(condition: &Tensor, input: &Tensor, other: &Tensor) -> Result<Tensor> {
    let dtype = result_type(&[input, other]);
    let cond = match condition.dtype() {
        DType::Bool => condition.clone(),
        DType::UInt8 => condition.to_dtype(DType::Bool)?,
        d => {
            return Err(Error::runtime(format!(
                "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
                d.scalar_type_name()
            )))
        }
    };
    let shape = broadcast_shapes(
        &broadcast_shapes(cond.sizes(), input.sizes())?,
        other.sizes(),
    )?;
    let (a, b) = (operand_as(input, dtype)?, operand_as(other, dtype)?);
    let out = Tensor::zeros(&shape, dtype)?;
    crate::dispatch!(dtype, T => where_into::<T>(&out, &cond, &a, &b))?;
    Ok(out)
}

/// `out = cond ? a : b` with broadcasting; `out` is fresh, `a`/`b` have dtype `T`.
fn where_into<T: Element>(out: &Tensor, cond: &Tensor, a: &Tensor, b: &Tensor) -> Result<()> {
    let n = out.numel();
    if n == 0 {
        return Ok(());
    }
    let po = out.data_ptr::<T>();
    let pc = cond.data_ptr::<bool>() as *const bool;
    let (pa, pb) = (a.data_ptr::<T>() as *const T, b.data_ptr::<T>() as *const T);
    let dense = |t: &Tensor| t.numel() == n && t.is_contiguous();
    if out.is_contiguous() && dense(cond) && dense(a) && dense(b) {
        // SAFETY: all four are contiguous with `n` elements and `out` is a fresh allocation, so
        // its mutable slice overlaps none of the shared ones.
        let (o, c, x, y) = unsafe {
            (
                std::slice::from_raw_parts_mut(po, n),
                std::slice::from_raw_parts(pc, n),
                std::slice::from_raw_parts(pa, n),
                std::slice::from_raw_parts(pb, n),
            )
        };
        for (((o, &c), &x), &y) in o.iter_mut().zip(c).zip(x).zip(y) {
            *o = if c { x } else { y };
        }
        return Ok(());
    }
    let sc = cond.broadcast_strides(out.sizes())?;
    let sa = a.broadcast_strides(out.sizes())?;
    let sb = b.broadcast_strides(out.sizes())?;
    strided_for_each(
        out.sizes(),
        [out.strides(), &sc, &sa, &sb],
        |[o, c, x, y]| {
            // SAFETY: each offset comes from its tensor's own (broadcast) geometry over `out`'s shape.
            unsafe {
                *po.offset(o) = if *pc.offset(c) {
                    *pa.offset(x)
                } else {
                    *pb.offset(y)
                }
            }
        },
    );
    Ok(())
}

// ----- unary ops ---------------------------------------------------------------------------

/// `neg(input)`: `-input`, same dtype (integers wrap: `-uint8(1) == 255`). A bool tensor is
/// torch's RuntimeError (use `~`/`logical_not`). Mirrors `torch.neg`.
pub fn neg(input: &Tensor) -> Result<Tensor> {
    if input.dtype() == DType::Bool {
        return Err(Error::runtime(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
        ));
    }
    crate::dispatch!(input.dtype(), T => unary_op::<T, T>(input, |x: T| x.wneg()))
}

/// `abs(input)`: the absolute value, same dtype (`abs(int8(-128)) == -128`, as torch wraps).
/// A bool tensor is torch's NotImplementedError `"abs_cpu" not implemented for 'Bool'`.
/// Mirrors `torch.abs`.
pub fn abs(input: &Tensor) -> Result<Tensor> {
    reject_bool(input.dtype(), "abs_cpu")?;
    crate::dispatch!(input.dtype(), T => unary_op::<T, T>(input, |x: T| x.wabs()))
}

/// A float unary op: float32/float64 keep their dtype; integers and bool are computed in (and
/// return) the default float, float32 (torch's `unary_float_op`).
fn float_unary(
    input: &Tensor,
    f32f: impl Fn(f32) -> f32 + Copy,
    f64f: impl Fn(f64) -> f64,
) -> Result<Tensor> {
    match input.dtype() {
        DType::Float64 => unary_op::<f64, f64>(input, f64f),
        DType::Float32 => unary_op::<f32, f32>(input, f32f),
        // Convert first (the same per-element cast), then reuse the float32 kernel: one
        // instance per op instead of one per op and input dtype.
        _ => unary_op::<f32, f32>(&input.to_dtype(DType::Float32)?, f32f),
    }
}

/// `exp(input)`: `e ** input`; float dtypes kept, integers/bool → float32. Mirrors `torch.exp`.
pub fn exp(input: &Tensor) -> Result<Tensor> {
    float_unary(input, f32::exp, f64::exp)
}

/// `log(input)`: the natural logarithm (NaN below 0, -inf at 0); float dtypes kept,
/// integers/bool → float32. Mirrors `torch.log`.
pub fn log(input: &Tensor) -> Result<Tensor> {
    float_unary(input, f32::ln, f64::ln)
}

/// `sqrt(input)`: the square root (NaN below 0); float dtypes kept, integers/bool → float32.
/// Mirrors `torch.sqrt`.
pub fn sqrt(input: &Tensor) -> Result<Tensor> {
    float_unary(input, f32::sqrt, f64::sqrt)
}

// ----- in place ----------------------------------------------------------------------------

/// TensorIterator's checks for an in-place binary op writing into `self_`, in its order: memory
/// overlap, broadcast shape (the result may not grow `self_`), then the cast of the compute
/// dtype `common` to `self_`'s dtype.
fn inplace_checks(self_: &Tensor, other: &Tensor, common: DType) -> Result<()> {
    self_.assert_no_internal_overlap()?;
    self_.assert_no_partial_overlap(other)?;
    let shape = broadcast_shapes(self_.sizes(), other.sizes())?;
    if shape != self_.sizes() {
        return Err(Error::runtime(format!(
            "output with shape {:?} doesn't match the broadcast shape {:?}",
            self_.sizes(),
            shape
        )));
    }
    if !can_cast(common, self_.dtype()) {
        return Err(cast_error(common, self_.dtype()));
    }
    Ok(())
}

/// `self_ = op(self_, other)` computed in `common` (checks already done). Writes straight into
/// `self_` when it has the compute dtype and `other` does not alias it in another layout;
/// otherwise computes into a temporary and copies (casting) back.
fn binop_inplace(op: BinOp, self_: &Tensor, other: &Tensor, common: DType) -> Result<()> {
    if common == self_.dtype() && !overlaps_other_than_exactly(self_, other, common) {
        return run_binop(op, common, self_, self_, other);
    }
    let tmp = binop_new(op, common, self_, other, self_.sizes())?;
    self_.copy_from(&tmp)
}

/// `self.add_(other, *, alpha=1)`: `self += alpha * other` in place. `other` broadcasts to
/// `self`'s shape; the promoted dtype must cast to `self`'s (no float into int, nothing into
/// bool). Errors (RuntimeError, torch's texts): "output with shape [3] doesn't match the
/// broadcast shape [2, 3]"; "result type Float can't be cast to the desired output type Long";
/// overlapping memory; the `alpha` errors of `add`. Mirrors `Tensor.add_`.
pub fn add_(self_: &Tensor, other: &Tensor, alpha: Scalar) -> Result<()> {
    let common = result_type(&[self_, other]);
    inplace_checks(self_, other, common)?;
    alpha_check(common, alpha)?;
    binop_inplace(BinOp::Add(alpha), self_, other, common)
}

/// `self.sub_(other, *, alpha=1)`: `self -= alpha * other` in place; errors as `add_` and `sub`.
/// Mirrors `Tensor.sub_`.
pub fn sub_(self_: &Tensor, other: &Tensor, alpha: Scalar) -> Result<()> {
    sub_check(self_, other)?;
    let common = result_type(&[self_, other]);
    inplace_checks(self_, other, common)?;
    alpha_check(common, alpha)?;
    binop_inplace(BinOp::Sub(alpha), self_, other, common)
}

/// `self.mul_(other)`: `self *= other` in place; errors as `add_`. Mirrors `Tensor.mul_`.
pub fn mul_(self_: &Tensor, other: &Tensor) -> Result<()> {
    let common = result_type(&[self_, other]);
    inplace_checks(self_, other, common)?;
    binop_inplace(BinOp::Mul, self_, other, common)
}

/// `self.div_(other, *, rounding_mode=None)`: `self /= other` in place. True division computes
/// in float, so an integer `self` is the cast RuntimeError ("result type Float can't be cast to
/// the desired output type Long"); with "trunc"/"floor" integers stay integers. Other errors as
/// `div` and `add_`. Mirrors `Tensor.div_`.
pub fn div_(self_: &Tensor, other: &Tensor, rounding_mode: Option<&str>) -> Result<()> {
    let op = div_op(rounding_mode)?;
    let common = match op {
        BinOp::TrueDiv => float_result_type(self_, other),
        _ => result_type(&[self_, other]),
    };
    inplace_checks(self_, other, common)?;
    let common = div_dtype(op, self_, other)?;
    binop_inplace(op, self_, other, common)
}

/// `self.fill_(value)`: set every element to `value`, a 0-dim tensor or a Python number
/// (wrapped). A Python number must fit `self`'s dtype (torch's RuntimeError "value cannot be
/// converted to type uint8_t without overflow"); a 0-dim tensor is cast like `copy_`. A value
/// with dimensions is torch's RuntimeError "fill_ only supports 0-dimension value tensor but got
/// tensor with 1 dimensions.". Mirrors `Tensor.fill_`.
pub fn fill_(self_: &Tensor, value: &Tensor) -> Result<()> {
    if value.dim() != 0 {
        return Err(Error::runtime(format!(
            "fill_ only supports 0-dimension value tensor but got tensor with {} dimensions.",
            value.dim()
        )));
    }
    let v = value.item()?;
    if value.is_wrapped_number() {
        self_.fill_(v)
    } else {
        self_.fill_cast(v);
        Ok(())
    }
}

/// `self.zero_()`: set every element to zero. Mirrors `Tensor.zero_`.
pub fn zero_(self_: &Tensor) -> Result<()> {
    self_.fill_cast(Scalar::Int(0));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Large dense adds take the threaded path (when more than one thread is configured) and
    /// must equal a plain serial loop exactly: new output, scalar operand, alpha, in place.
    #[test]
    fn parallel_add_matches_serial_loop() {
        crate::core::parallel::set_num_threads(3);
        let n = (1 << 19) + 123;
        let xa: Vec<f32> = (0..n).map(|i| (i % 1013) as f32 * 0.37 - 91.0).collect();
        let xb: Vec<f32> = (0..n).map(|i| (i % 777) as f32 * 1.3e-3 + 0.5).collect();
        let (a, b) = (
            Tensor::from_vec(xa.clone(), &[n]).unwrap(),
            Tensor::from_vec(xb.clone(), &[n]).unwrap(),
        );
        let want: Vec<f32> = xa.iter().zip(&xb).map(|(x, y)| x + y).collect();
        assert_eq!(add(&a, &b, Scalar::Int(1)).unwrap().to_vec::<f32>(), want);
        let want2: Vec<f32> = xa.iter().zip(&xb).map(|(x, y)| x + 2.0 * y).collect();
        assert_eq!(add(&a, &b, Scalar::Int(2)).unwrap().to_vec::<f32>(), want2);
        let s = Tensor::wrapped_scalar(Scalar::Float(2.5)).unwrap();
        let want3: Vec<f32> = xa.iter().map(|x| x + 2.5).collect();
        assert_eq!(add(&a, &s, Scalar::Int(1)).unwrap().to_vec::<f32>(), want3);
        let want4: Vec<f32> = xa.iter().zip(&xb).map(|(x, y)| x * y).collect();
        assert_eq!(mul(&a, &b).unwrap().to_vec::<f32>(), want4);
        add_(&a, &b, Scalar::Int(1)).unwrap();
        assert_eq!(a.to_vec::<f32>(), want);
    }
    use crate::core::error::ErrorKind;

    fn t<T: Element>(v: Vec<T>, shape: &[usize]) -> Tensor {
        Tensor::from_vec(v, shape).unwrap()
    }
    fn w(s: impl Into<Scalar>) -> Tensor {
        Tensor::wrapped_scalar(s.into()).unwrap()
    }
    fn msg(r: Result<impl std::fmt::Debug>) -> (ErrorKind, String) {
        let e = r.unwrap_err();
        (e.kind, e.message)
    }

    #[test]
    fn out_entry_points_write_in_place_and_check() {
        let a = t(vec![1.0f32, 2.0, 3.0], &[3]);
        let out = Tensor::zeros(&[3], DType::Float64).unwrap();
        add_out(&out, &a, &w(0.5), Scalar::Int(2)).unwrap();
        assert_eq!(out.to_vec::<f64>(), vec![2.0, 3.0, 4.0]);
        // out is the first input; out is a shifted view of the input (torch's partial overlap
        // error, out untouched)
        mul_out(&a, &a, &w(2i64)).unwrap();
        assert_eq!(a.to_vec::<f32>(), vec![2.0, 4.0, 6.0]);
        let x = t(vec![1i64, 2, 3, 4], &[4]);
        let (head, tail) = (
            x.as_strided(vec![3], vec![1], 0),
            x.as_strided(vec![3], vec![1], 1),
        );
        assert!(sub_out(&tail, &head, &w(1i64), Scalar::Int(1)).is_err());
        assert_eq!(x.to_vec::<i64>(), vec![1, 2, 3, 4]);
        let i = Tensor::zeros(&[3], DType::Int64).unwrap();
        assert_eq!(
            msg(div_out(
                &i,
                &x.as_strided(vec![3], vec![1], 0),
                &w(2i64),
                None
            )),
            (
                ErrorKind::Runtime,
                "result type Float can't be cast to the desired output type Long".into()
            )
        );
        assert_eq!(
            msg(add_out(&i, &x, &w(1i64), Scalar::Int(1))),
            (
                ErrorKind::Runtime,
                "output with shape [3] doesn't match the broadcast shape [4]".into()
            )
        );
        let one = t(vec![1.0f64], &[1]);
        let p = add_plan(&x, &one, Scalar::Int(1)).unwrap();
        assert_eq!((p.shape(), p.dtype()), (&[4usize][..], DType::Float64));
    }

    #[test]
    fn promotion_with_python_scalars() {
        let a = t(vec![1i32, 2, 3], &[3]);
        let r = add(&a, &w(2.5), Scalar::Int(1)).unwrap();
        assert_eq!(r.dtype(), DType::Float32);
        assert_eq!(r.to_vec::<f32>(), vec![3.5, 4.5, 5.5]);
        let r = add(&a, &t(vec![10i64, 20, 30], &[3]), Scalar::Int(1)).unwrap();
        assert_eq!(r.dtype(), DType::Int64);
        assert_eq!(r.to_vec::<i64>(), vec![11, 22, 33]);
        // A 0-dim int64 tensor does not widen an int32 tensor.
        let z = Tensor::scalar_tensor(Scalar::Int(5), DType::Int64).unwrap();
        assert_eq!(add(&a, &z, Scalar::Int(1)).unwrap().dtype(), DType::Int32);
        let u = t(vec![250u8], &[1]);
        let r = add(&u, &w(10i64), Scalar::Int(1)).unwrap();
        assert_eq!(r.dtype(), DType::UInt8);
        assert_eq!(r.to_vec::<u8>(), vec![4]);
        // bool tensor + int → int64; bool + bool → logical or.
        let b = t(vec![true, false, false], &[3]);
        assert_eq!(
            add(&b, &w(1i64), Scalar::Int(1)).unwrap().to_vec::<i64>(),
            vec![2, 1, 1]
        );
        let r = add(&b, &t(vec![true, true, false], &[3]), Scalar::Int(1)).unwrap();
        assert_eq!(r.dtype(), DType::Bool);
        assert_eq!(r.to_vec::<bool>(), vec![true, true, false]);
    }

    #[test]
    fn broadcasting_and_strides() {
        let a = t(vec![0i64, 10, 20], &[3, 1]);
        let b = t(vec![1i64, 2, 3, 4], &[4]);
        let r = add(&a, &b, Scalar::Int(1)).unwrap();
        assert_eq!(r.sizes(), &[3, 4]);
        assert_eq!(
            r.to_vec::<i64>(),
            vec![1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24]
        );
        // Transposed (non-contiguous) operand.
        let m = t((0..6i64).collect(), &[2, 3]);
        let mt = m.as_strided(vec![3, 2], vec![1, 3], 0);
        let r = mul(&mt, &t(vec![1i64, 100], &[2])).unwrap();
        assert_eq!(r.to_vec::<i64>(), vec![0, 300, 1, 400, 2, 500]);
        let r = sub(&mt, &mt.contiguous().unwrap(), Scalar::Int(1)).unwrap();
        assert_eq!(r.to_vec::<i64>(), vec![0; 6]);
        let e = msg(add(&t(vec![1i64, 2, 3], &[3]), &b, Scalar::Int(1)));
        assert_eq!(e.0, ErrorKind::Runtime);
        assert_eq!(
            e.1,
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0"
        );
        // Empty shapes.
        let r = add(
            &Tensor::zeros(&[0, 3], DType::Float32).unwrap(),
            &w(1.0),
            Scalar::Int(1),
        )
        .unwrap();
        assert_eq!(r.sizes(), &[0, 3]);
        // Scalar on the left, 0-dim result.
        let r = sub(
            &w(10i64),
            &Tensor::scalar_tensor(Scalar::Int(3), DType::Int32).unwrap(),
            Scalar::Int(1),
        )
        .unwrap();
        assert_eq!(
            (r.dim(), r.dtype(), r.to_vec::<i32>()),
            (0, DType::Int32, vec![7])
        );
    }

    #[test]
    fn alpha() {
        let a = t(vec![1i64, 2], &[2]);
        let b = t(vec![3i64, 4], &[2]);
        assert_eq!(
            add(&a, &b, Scalar::Int(2)).unwrap().to_vec::<i64>(),
            vec![7, 10]
        );
        assert_eq!(
            sub(&a, &b, Scalar::Int(2)).unwrap().to_vec::<i64>(),
            vec![-5, -6]
        );
        let f = t(vec![1.0f32, 2.0], &[2]);
        assert_eq!(
            add(&f, &b, Scalar::Float(0.5)).unwrap().to_vec::<f32>(),
            vec![2.5, 4.0]
        );
        assert_eq!(
            msg(add(&a, &b, Scalar::Float(2.0))).1,
            "For integral input tensors, argument alpha must not be a floating point number."
        );
        assert_eq!(
            msg(add(&a, &b, Scalar::Bool(true))).1,
            "Boolean alpha only supported for Boolean results."
        );
        let u = t(vec![1u8], &[1]);
        assert_eq!(
            msg(add(&u, &u, Scalar::Int(300))).1,
            "value cannot be converted to type uint8_t without overflow"
        );
        // uint8 subtraction with alpha wraps.
        assert_eq!(
            sub(&u, &t(vec![2u8], &[1]), Scalar::Int(1))
                .unwrap()
                .to_vec::<u8>(),
            vec![255]
        );
    }

    #[test]
    fn sub_rejects_bools() {
        let b = t(vec![true, false], &[2]);
        assert_eq!(
            msg(sub(&b, &b, Scalar::Int(1))).1,
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead."
        );
        assert_eq!(
            msg(sub(&b, &w(true), Scalar::Int(1))).1,
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead."
        );
        assert!(msg(sub(&b, &w(1i64), Scalar::Int(1)))
            .1
            .starts_with("Subtraction, the `-` operator, with a bool tensor"));
    }

    #[test]
    fn integer_overflow_wraps() {
        let a = t(vec![i32::MAX, i32::MIN], &[2]);
        assert_eq!(
            add(&a, &w(1i64), Scalar::Int(1)).unwrap().to_vec::<i32>(),
            vec![i32::MIN, i32::MIN + 1]
        );
        assert_eq!(mul(&a, &w(2i64)).unwrap().to_vec::<i32>(), vec![-2, 0]);
        assert_eq!(neg(&a).unwrap().to_vec::<i32>(), vec![-i32::MAX, i32::MIN]);
        let m = t(vec![i64::MIN], &[1]);
        assert_eq!(
            div(&m, &w(-1i64), Some("trunc")).unwrap().to_vec::<i64>(),
            vec![i64::MIN]
        );
        assert_eq!(remainder(&m, &w(-1i64)).unwrap().to_vec::<i64>(), vec![0]);
        assert_eq!(
            floor_divide(&m, &w(-1i64)).unwrap().to_vec::<i64>(),
            vec![i64::MIN]
        );
    }

    #[test]
    fn division() {
        let a = t(vec![1i64, 2, 3], &[3]);
        let r = div(&a, &w(2i64), None).unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<f32>()),
            (DType::Float32, vec![0.5, 1.0, 1.5])
        );
        let d = t(vec![1.0f64, -1.0, 0.0], &[3]);
        let r = div(&d, &w(0i64), None).unwrap().to_vec::<f64>();
        assert_eq!((r[0], r[1]), (f64::INFINITY, f64::NEG_INFINITY));
        assert!(r[2].is_nan());
        let s = t(vec![-7i64, 7], &[2]);
        let r = div(&s, &w(2i64), Some("trunc")).unwrap();
        assert_eq!((r.dtype(), r.to_vec::<i64>()), (DType::Int64, vec![-3, 3]));
        assert_eq!(
            floor_divide(&s, &w(2i64)).unwrap().to_vec::<i64>(),
            vec![-4, 3]
        );
        assert_eq!(
            floor_divide(&s, &w(-2i64)).unwrap().to_vec::<i64>(),
            vec![3, -4]
        );
        assert_eq!(
            div(&s, &w(2.0), Some("floor")).unwrap().to_vec::<f32>(),
            vec![-4.0, 3.0]
        );
        let f = t(vec![-7.5f32, 7.5, 0.0, 1.0], &[4]);
        assert_eq!(
            floor_divide(&f, &w(2i64)).unwrap().to_vec::<f32>(),
            vec![-4.0, 3.0, 0.0, 0.0]
        );
        let r = floor_divide(&f, &w(-1.0)).unwrap().to_vec::<f32>();
        assert_eq!(r, vec![7.0, -8.0, -0.0, -1.0]);
        assert!(r[2].is_sign_negative());
        assert_eq!(
            floor_divide(&t(vec![-1.0f32], &[1]), &w(0.0))
                .unwrap()
                .to_vec::<f32>(),
            vec![f32::NEG_INFINITY]
        );
        assert_eq!(
            div(&f, &w(2i64), Some("trunc")).unwrap().to_vec::<f32>(),
            vec![-3.0, 3.0, 0.0, 0.0]
        );
        // uint8 division.
        let u = t(vec![200u8, 7], &[2]);
        assert_eq!(
            floor_divide(&u, &t(vec![3u8, 2], &[2]))
                .unwrap()
                .to_vec::<u8>(),
            vec![66, 3]
        );
    }

    #[test]
    fn division_errors() {
        let s = t(vec![-7i64, 7], &[2]);
        assert_eq!(
            msg(div(&s, &w(2i64), Some("xyz"))).1,
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'xyz'"
        );
        let zero = t(vec![1i64, 0], &[2]);
        assert_eq!(
            msg(div(&s, &zero, Some("floor"))),
            (ErrorKind::Runtime, "ZeroDivisionError".into())
        );
        assert_eq!(msg(div(&s, &w(0i64), Some("trunc"))).1, "ZeroDivisionError");
        assert_eq!(msg(remainder(&s, &w(0i64))).1, "ZeroDivisionError");
        // uint8 scalar 256 wraps to 0 in the compute dtype.
        assert_eq!(
            msg(floor_divide(&t(vec![1u8], &[1]), &w(256i64))).1,
            "ZeroDivisionError"
        );
        // Integer true division by zero is fine (float).
        assert_eq!(
            div(&s, &w(0i64), None).unwrap().to_vec::<f32>(),
            vec![f32::NEG_INFINITY, f32::INFINITY]
        );
        let b = t(vec![true], &[1]);
        assert_eq!(
            msg(floor_divide(&b, &b)),
            (
                ErrorKind::NotImplemented,
                "\"div_floor_cpu\" not implemented for 'Bool'".into()
            )
        );
        assert_eq!(
            msg(remainder(&b, &b)).1,
            "\"remainder_cpu\" not implemented for 'Bool'"
        );
        assert_eq!(div(&b, &b, None).unwrap().to_vec::<f32>(), vec![1.0]);
    }

    #[test]
    fn remainder_python_style() {
        let f = t(vec![-7.0f32, 7.0], &[2]);
        assert_eq!(
            remainder(&f, &w(3i64)).unwrap().to_vec::<f32>(),
            vec![2.0, 1.0]
        );
        assert_eq!(
            remainder(&f, &w(-3i64)).unwrap().to_vec::<f32>(),
            vec![-1.0, -2.0]
        );
        let i = t(vec![-7i32, 7, 6], &[3]);
        assert_eq!(
            remainder(&i, &w(3i64)).unwrap().to_vec::<i32>(),
            vec![2, 1, 0]
        );
        assert_eq!(
            remainder(&i, &w(-3i64)).unwrap().to_vec::<i32>(),
            vec![-1, -2, 0]
        );
        let r = remainder(&i, &w(2.5)).unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<f32>()),
            (DType::Float32, vec![0.5, 2.0, 1.0])
        );
        let r = remainder(&t(vec![-5.0f64, 5.0], &[2]), &w(f64::INFINITY))
            .unwrap()
            .to_vec::<f64>();
        assert_eq!(r, vec![f64::INFINITY, 5.0]);
    }

    #[test]
    fn powers() {
        let a = t(vec![2i64, 3, -2], &[3]);
        assert_eq!(pow(&a, &w(2i64)).unwrap().to_vec::<i64>(), vec![4, 9, 4]);
        assert_eq!(pow(&a, &w(3i64)).unwrap().to_vec::<i64>(), vec![8, 27, -8]);
        assert_eq!(
            msg(pow(&a, &w(-1i64))).1,
            "Integers to negative integer powers are not allowed."
        );
        let r = pow(&a, &w(-1.0)).unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<f32>()),
            (DType::Float32, vec![0.5, 1.0 / 3.0, -0.5])
        );
        // Negative exponent tensors follow powi.
        let base = t(vec![2i64, 1, -1, -1, 0], &[5]);
        let e = t(vec![-1i64, -5, -3, -2, 0], &[5]);
        assert_eq!(
            pow(&base, &e).unwrap().to_vec::<i64>(),
            vec![0, 1, -1, 1, 1]
        );
        // Overflow wraps.
        assert_eq!(
            pow(&t(vec![2i32], &[1]), &w(40i64))
                .unwrap()
                .to_vec::<i32>(),
            vec![0]
        );
        assert_eq!(
            pow(&t(vec![3u8], &[1]), &w(5i64)).unwrap().to_vec::<u8>(),
            vec![243]
        );
        let f = t(vec![4.0f32, 9.0], &[2]);
        assert_eq!(pow(&f, &w(0.5)).unwrap().to_vec::<f32>(), vec![2.0, 3.0]);
        // torch's float shortcuts and the double-precision general case.
        let g = t(vec![4.0f32, -2.0], &[2]);
        assert_eq!(pow(&g, &w(2i64)).unwrap().to_vec::<f32>(), vec![16.0, 4.0]);
        assert_eq!(pow(&g, &w(3.0)).unwrap().to_vec::<f32>(), vec![64.0, -8.0]);
        assert_eq!(
            pow(&g, &w(-2i64)).unwrap().to_vec::<f32>(),
            vec![0.0625, 0.25]
        );
        assert_eq!(pow(&g, &w(-1.0)).unwrap().to_vec::<f32>(), vec![0.25, -0.5]);
        assert_eq!(pow(&g, &w(-0.5)).unwrap().to_vec::<f32>()[0], 0.5);
        assert_eq!(pow(&g, &w(2.5)).unwrap().to_vec::<f32>()[0], 32.0);
        assert!(pow(&g, &w(2.5)).unwrap().to_vec::<f32>()[1].is_nan());
        let r = pow(&t(vec![4i32], &[1]), &w(0.5)).unwrap();
        assert_eq!((r.dtype(), r.to_vec::<f32>()), (DType::Float32, vec![2.0]));
        // Integer exponents are range-checked into the dtype, as torch's Scalar::to.
        assert_eq!(
            msg(pow(&t(vec![3u8], &[1]), &w(300i64))).1,
            "value cannot be converted to type uint8_t without overflow"
        );
        // A 0-dim tensor exponent is not a Python number: powi, no error.
        let z = Tensor::scalar_tensor(Scalar::Int(-1), DType::Int64).unwrap();
        assert_eq!(
            pow(&t(vec![2i64, 1], &[2]), &z).unwrap().to_vec::<i64>(),
            vec![0, 1]
        );
        // Non-contiguous float base.
        let m = t(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2]);
        let mt = m.as_strided(vec![2, 2], vec![1, 2], 0);
        assert_eq!(
            pow(&mt, &w(2i64)).unwrap().to_vec::<f64>(),
            vec![1.0, 9.0, 4.0, 16.0]
        );
        // Scalar base.
        let r = pow(&w(2i64), &t(vec![0i32, 3], &[2])).unwrap();
        assert_eq!((r.dtype(), r.to_vec::<i32>()), (DType::Int32, vec![1, 8]));
        // Bool: copy / fill shortcuts, else not implemented.
        let b = t(vec![true, false], &[2]);
        assert_eq!(
            pow(&b, &w(true)).unwrap().to_vec::<bool>(),
            vec![true, false]
        );
        assert_eq!(
            pow(&b, &w(false)).unwrap().to_vec::<bool>(),
            vec![true, true]
        );
        assert_eq!(pow(&b, &w(2i64)).unwrap().to_vec::<i64>(), vec![1, 0]);
        assert_eq!(
            msg(pow(&b, &b)),
            (
                ErrorKind::NotImplemented,
                "\"pow\" not implemented for 'Bool'".into()
            )
        );
    }

    #[test]
    fn max_min() {
        let a = t(vec![1.0f32, f32::NAN, 3.0], &[3]);
        let b = t(vec![2.0f64, 0.0, f64::NAN], &[3]);
        let r = maximum(&a, &b).unwrap();
        assert_eq!(r.dtype(), DType::Float64);
        let v = r.to_vec::<f64>();
        assert_eq!(v[0], 2.0);
        assert!(v[1].is_nan() && v[2].is_nan());
        assert_eq!(minimum(&a, &b).unwrap().to_vec::<f64>()[0], 1.0);
        let i = t(vec![1i32, 5], &[2]);
        let r = maximum(&i, &t(vec![3i64], &[1])).unwrap();
        assert_eq!((r.dtype(), r.to_vec::<i64>()), (DType::Int64, vec![3, 5]));
        assert_eq!(
            minimum(&i, &t(vec![3i64], &[1])).unwrap().to_vec::<i64>(),
            vec![1, 3]
        );
        let bb = t(vec![true, false], &[2]);
        assert_eq!(
            maximum(&bb, &t(vec![false, false], &[2]))
                .unwrap()
                .to_vec::<bool>(),
            vec![true, false]
        );
    }

    #[test]
    fn where_op() {
        let c = t(vec![true, false, true], &[3]);
        let r = where_(&c, &w(1.0), &w(0i64)).unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<f32>()),
            (DType::Float32, vec![1.0, 0.0, 1.0])
        );
        let r = where_(
            &c,
            &t(vec![1i32, 2, 3], &[3]),
            &t(vec![10i64, 20, 30], &[3]),
        )
        .unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<i64>()),
            (DType::Int64, vec![1, 20, 3])
        );
        // Three-way broadcast: [2,1] x [3] x [].
        let c2 = t(vec![true, false], &[2, 1]);
        let r = where_(
            &c2,
            &t(vec![1i64, 2, 3], &[3]),
            &Tensor::scalar_tensor(Scalar::Int(0), DType::Int64).unwrap(),
        )
        .unwrap();
        assert_eq!(r.sizes(), &[2, 3]);
        assert_eq!(r.to_vec::<i64>(), vec![1, 2, 3, 0, 0, 0]);
        let fc = t(vec![1.0f32], &[1]);
        assert_eq!(
            msg(where_(&fc, &w(1i64), &w(0i64))).1,
            "where expected condition to be a boolean tensor, but got a tensor with dtype Float"
        );
        let uc = t(vec![2u8, 0], &[2]);
        assert_eq!(
            where_(&uc, &w(1i64), &w(0i64)).unwrap().to_vec::<i64>(),
            vec![1, 0]
        );
    }

    #[test]
    fn unary() {
        assert_eq!(
            neg(&t(vec![1u8, 0], &[2])).unwrap().to_vec::<u8>(),
            vec![255, 0]
        );
        assert!(msg(neg(&t(vec![true], &[1])))
            .1
            .starts_with("Negation, the `-` operator, on a bool tensor"));
        let r = abs(&t(vec![-128i8, -3, 4], &[3])).unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<i8>()),
            (DType::Int8, vec![-128, 3, 4])
        );
        assert_eq!(
            abs(&t(vec![-1.5f64], &[1])).unwrap().to_vec::<f64>(),
            vec![1.5]
        );
        assert_eq!(
            msg(abs(&t(vec![true], &[1]))),
            (
                ErrorKind::NotImplemented,
                "\"abs_cpu\" not implemented for 'Bool'".into()
            )
        );
        let r = exp(&t(vec![0i64, 1], &[2])).unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<f32>()),
            (DType::Float32, vec![1.0, std::f32::consts::E])
        );
        let r = log(&t(vec![1.0f64, 0.0, -1.0], &[3])).unwrap();
        assert_eq!(r.dtype(), DType::Float64);
        let v = r.to_vec::<f64>();
        assert_eq!((v[0], v[1]), (0.0, f64::NEG_INFINITY));
        assert!(v[2].is_nan());
        let r = sqrt(&t(vec![true, false], &[2])).unwrap();
        assert_eq!(
            (r.dtype(), r.to_vec::<f32>()),
            (DType::Float32, vec![1.0, 0.0])
        );
        // Non-contiguous input.
        let m = t(vec![1.0f32, 4.0, 9.0, 16.0], &[2, 2]);
        let mt = m.as_strided(vec![2, 2], vec![1, 2], 0);
        assert_eq!(sqrt(&mt).unwrap().to_vec::<f32>(), vec![1.0, 3.0, 2.0, 4.0]);
    }

    #[test]
    fn in_place() {
        let a = t(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
        add_(&a, &t(vec![10.0f32, 20.0, 30.0], &[3]), Scalar::Int(1)).unwrap();
        assert_eq!(a.to_vec::<f32>(), vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
        mul_(&a, &w(2i64)).unwrap();
        assert_eq!(a.to_vec::<f32>()[0], 22.0);
        div_(&a, &w(2i64), None).unwrap();
        sub_(&a, &a.clone(), Scalar::Int(1)).unwrap();
        assert_eq!(a.to_vec::<f32>(), vec![0.0; 6]);
        // Aliasing self: a += a.
        let x = t(vec![1i64, 2, 3], &[3]);
        add_(&x, &x.clone(), Scalar::Int(1)).unwrap();
        assert_eq!(x.to_vec::<i64>(), vec![2, 4, 6]);
        // Result must not grow self.
        let small = t(vec![1.0f32, 2.0, 3.0], &[3]);
        assert_eq!(
            msg(add_(
                &small,
                &Tensor::zeros(&[2, 3], DType::Float32).unwrap(),
                Scalar::Int(1)
            ))
            .1,
            "output with shape [3] doesn't match the broadcast shape [2, 3]"
        );
        // Casts.
        assert_eq!(
            msg(add_(&x, &w(2.5), Scalar::Int(1))).1,
            "result type Float can't be cast to the desired output type Long"
        );
        assert_eq!(
            msg(div_(&x, &w(2i64), None)).1,
            "result type Float can't be cast to the desired output type Long"
        );
        div_(&x, &w(4i64), Some("floor")).unwrap();
        assert_eq!(x.to_vec::<i64>(), vec![0, 1, 1]);
        let u = t(vec![250u8, 1], &[2]);
        add_(&u, &t(vec![10i64, 1], &[2]), Scalar::Int(1)).unwrap();
        assert_eq!((u.dtype(), u.to_vec::<u8>()), (DType::UInt8, vec![4, 2]));
        let fl = t(vec![1.5f32], &[1]);
        mul_(&fl, &t(vec![2.0f64], &[1])).unwrap();
        assert_eq!(
            (fl.dtype(), fl.to_vec::<f32>()),
            (DType::Float32, vec![3.0])
        );
        // Non-contiguous self.
        let m = t((0..6i64).collect(), &[2, 3]);
        let mt = m.as_strided(vec![3, 2], vec![1, 3], 0);
        add_(&mt, &t(vec![100i64, 200], &[2]), Scalar::Int(1)).unwrap();
        assert_eq!(m.to_vec::<i64>(), vec![100, 101, 102, 203, 204, 205]);
        // a.add_(a.t()): the same bytes in another order is torch's partial overlap error.
        let sq = t(vec![1i64, 2, 3, 4], &[2, 2]);
        assert!(add_(
            &sq,
            &sq.as_strided(vec![2, 2], vec![1, 2], 0),
            Scalar::Int(1),
        )
        .is_err());
        assert_eq!(sq.to_vec::<i64>(), vec![1, 2, 3, 4]);
    }

    #[test]
    fn in_place_overlap_errors() {
        let x = t(vec![1.0f32, 2.0, 3.0], &[3]);
        let part = x.as_strided(vec![2], vec![1], 1);
        let head = x.as_strided(vec![2], vec![1], 0);
        assert!(msg(add_(&part, &head, Scalar::Int(1))).1.starts_with(
            "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location."
        ));
        let expanded = x.as_strided(vec![2, 3], vec![0, 1], 0);
        assert!(msg(mul_(&expanded, &w(2i64))).1.starts_with(
            "unsupported operation: more than one element of the written-to tensor refers to a single memory location."
        ));
        assert!(msg(sub_(&t(vec![true], &[1]), &w(true), Scalar::Int(1)))
            .1
            .starts_with("Subtraction"));
        assert_eq!(
            msg(div_(&x, &w(1i64), Some("round"))).1,
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'"
        );
    }

    #[test]
    fn fill_and_zero() {
        let a = Tensor::zeros(&[2, 2], DType::UInt8).unwrap();
        fill_(&a, &w(7i64)).unwrap();
        assert_eq!(a.to_vec::<u8>(), vec![7; 4]);
        fill_(&a, &w(-1i64)).unwrap();
        assert_eq!(a.to_vec::<u8>(), vec![255; 4]);
        assert_eq!(
            msg(fill_(&a, &w(300i64))).1,
            "value cannot be converted to type uint8_t without overflow"
        );
        assert_eq!(
            msg(fill_(&a, &w(-1.0))).1,
            "value cannot be converted to type uint8_t without overflow"
        );
        fill_(
            &a,
            &Tensor::scalar_tensor(Scalar::Int(300), DType::Int64).unwrap(),
        )
        .unwrap();
        assert_eq!(a.to_vec::<u8>(), vec![44; 4]);
        assert_eq!(
            msg(fill_(&a, &t(vec![1u8], &[1]))).1,
            "fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions."
        );
        let f = Tensor::zeros(&[3], DType::Float32).unwrap();
        assert_eq!(
            msg(fill_(&f, &w(1e300))).1,
            "value cannot be converted to type float without overflow"
        );
        fill_(&f, &w(f64::INFINITY)).unwrap();
        assert_eq!(f.to_vec::<f32>(), vec![f32::INFINITY; 3]);
        let i = Tensor::zeros(&[2], DType::Int32).unwrap();
        fill_(&i, &w(2.7)).unwrap();
        assert_eq!(i.to_vec::<i32>(), vec![2, 2]);
        let b = Tensor::zeros(&[2], DType::Bool).unwrap();
        fill_(&b, &w(5i64)).unwrap();
        assert_eq!(b.to_vec::<bool>(), vec![true, true]);
        zero_(&i).unwrap();
        assert_eq!(i.to_vec::<i32>(), vec![0, 0]);
        // Expanded self is allowed for fill_.
        let e = f.as_strided(vec![2, 3], vec![0, 1], 0);
        fill_(&e, &w(1i64)).unwrap();
        assert_eq!(f.to_vec::<f32>(), vec![1.0; 3]);
    }
}
