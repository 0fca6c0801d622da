//! src/core/ops/index.rs: the index ops (PyTorch: `native/TensorAdvancedIndexing.cpp`) —
//! `gather`, `scatter`, `scatter_add`, `index_select`, `index_add`, `index_copy`, `index_fill`,
//! `masked_fill`, `masked_select`, `take`, `nonzero`. The ops that write into a copy of their
//! input have plans whose kernel writes into any output (Note [One kernel per op]), which gives
//! their in-place methods (`scatter_`, `index_add_`, `masked_fill_`, ...). Torch's
//! indexing `t[...]` itself is `indexing.rs`.

use super::plan::{assert_no_overlap, copy_then, Kernel, Plan};
use super::try_vec;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::ops::{narrow, reshape, select};
use crate::core::scalar::Scalar;
use crate::core::tensor::{broadcast_shapes, maybe_wrap_dim, Tensor};
use std::borrow::Cow;

/// Visit every position of `shape` in row-major order with its multi-index.
fn for_each_index(shape: &[usize], mut f: impl FnMut(&[usize]) -> Result<()>) -> Result<()> {
    if shape.contains(&0) {
        return Ok(());
    }
    let mut idx = vec![0usize; shape.len()];
    loop {
        f(&idx)?;
        let mut d = shape.len();
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// Element offset of multi-index `idx` in `t` (relative to its data pointer).
fn offset_of(t: &Tensor, idx: &[usize]) -> isize {
    idx.iter()
        .zip(t.strides())
        .map(|(&i, &s)| i as isize * s)
        .sum()
}

/// Index values of an int64 index tensor in logical order (MemoryError, not an abort, when an
/// expanded index is too large to copy).
fn index_values(index: &Tensor) -> Result<Vec<i64>> {
    // int64, or int32 (gather, scatter and scatter_add take both, as torch 2.15).
    crate::dispatch!(index.dtype(), T => super::conversion::try_map_to_vec(index, |v: T| crate::core::dtype::Element::to_i64(v)))
}

/// `gather(input, dim, index)`: `out[i][j][k] = input[index[i][j][k]][j][k]` (for dim 0), shape
/// of `index`, dtype of `input`. Errors (RuntimeError): "gather(): Expected dtype int32/int64
/// for index", "Index tensor must have the same number of dimensions as input tensor", "Size does not
/// match at dimension 1 expected index [2, 3] to be smaller than self [2, 2] apart from
/// dimension 0", "index 5 is out of bounds for dimension 0 with size 3"; IndexError for `dim`
/// (torch: `torch.gather`).
pub fn gather(input: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
    gather_plan(input, dim, index)?.run()
}

/// `gather` checked and ready to run (Note [One kernel per op]); an index out of range is
/// found before anything is written.
pub fn gather_plan<'a>(
    input: &'a Tensor,
    dim: i64,
    index: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let d = maybe_wrap_dim(dim, input.dim())?;
    // torch 2.15 takes int32 indices too, and any dtype for an empty index.
    if index.numel() != 0 && !matches!(index.dtype(), DType::Int64 | DType::Int32) {
        return Err(Error::runtime(
            "gather(): Expected dtype int32/int64 for index",
        ));
    }
    let (ind, ixd) = (input.dim().max(1), index.dim().max(1));
    if index.numel() != 0 && ind != ixd {
        return Err(Error::runtime(
            "Index tensor must have the same number of dimensions as input tensor",
        ));
    }
    let (in_sizes, ix_sizes) = (one_d(input), one_d(index));
    if index.numel() != 0 {
        for k in (0..ixd).filter(|&k| k != d) {
            if ix_sizes[k] > in_sizes[k] {
                return Err(Error::runtime(format!(
                    "Size does not match at dimension {k} expected index {:?} to be smaller than self {:?} apart from dimension {d}",
                    index.sizes(),
                    input.sizes()
                )));
            }
        }
    }
    Ok(Plan::new(
        Cow::Borrowed(index.sizes()),
        input.dtype(),
        [Some(input), Some(index), None],
        move |out: &Tensor, fresh: bool| {
            if !fresh {
                // torch's gather meta: `out` may share no memory with `input`.
                assert_no_overlap(out, input)?;
            }
            let iv = index_values(index)?;
            let n = in_sizes[d] as i64;
            if let Some(&v) = iv.iter().find(|&&v| v < 0 || v >= n) {
                return Err(Error::runtime(format!(
                    "index {v} is out of bounds for dimension {d} with size {n}"
                )));
            }
            let in_strides: Vec<isize> = if input.dim() == 0 {
                vec![0]
            } else {
                input.strides().to_vec()
            };
            let out_strides: Vec<isize> = if out.dim() == 0 {
                vec![0]
            } else {
                out.strides().to_vec()
            };
            crate::dispatch!(input.dtype(), T => {
                let (pi, po) = (input.data_ptr::<T>() as *const T, out.data_ptr::<T>());
                let mut p = 0usize;
                for_each_index(&ix_sizes, |idx| {
                    let v = iv[p];
                    p += 1;
                    let (mut src, mut dst) = (0isize, 0isize);
                    for (k, &i) in idx.iter().enumerate() {
                        dst += i as isize * out_strides[k];
                        let i = if k == d { v as usize } else { i };
                        src += i as isize * in_strides[k];
                    }
                    // SAFETY: every coordinate is within `input`'s sizes (checked above) and
                    // `idx` within `out`'s (the index's shape); `out` shares no memory with
                    // `input` (fresh, or checked above).
                    unsafe { *po.offset(dst) = *pi.offset(src) };
                    Ok(())
                })
            })
        },
    ))
}

/// The checks of `scatter`/`scatter_add` (`name`), in torch's order; returns the wrapped dim.
fn scatter_check(
    name: &str,
    input: &Tensor,
    dim: i64,
    index: &Tensor,
    src: Option<&Tensor>,
) -> Result<usize> {
    let d = maybe_wrap_dim(dim, input.dim())?;
    // torch 2.15 takes int32 indices too, and any dtype for an empty index.
    if index.numel() != 0 && !matches!(index.dtype(), DType::Int64 | DType::Int32) {
        return Err(Error::runtime(format!(
            "{name}(): Expected dtype int32/int64 for index"
        )));
    }
    if let Some(s) = src {
        if s.dtype() != input.dtype() {
            return Err(Error::runtime(format!(
                "{name}(): Expected self.dtype to be equal to src.dtype"
            )));
        }
    }
    if index.numel() == 0 {
        return Ok(d);
    }
    let (ind, ixd) = (input.dim().max(1), index.dim().max(1));
    if ind != ixd {
        return Err(Error::runtime(
            "Index tensor must have the same number of dimensions as self tensor",
        ));
    }
    let (in_sizes, ix_sizes) = (one_d(input), one_d(index));
    if let Some(s) = src {
        if s.dim().max(1) != ixd {
            return Err(Error::runtime(
                "Index tensor must have the same number of dimensions as src tensor",
            ));
        }
        let src_sizes = one_d(s);
        let bad =
            (0..ixd).any(|k| ix_sizes[k] > src_sizes[k] || (k != d && ix_sizes[k] > in_sizes[k]));
        if bad {
            return Err(Error::runtime(format!(
                "Expected index {:?} to be no larger than self {:?} apart from dimension {d} and to be no larger size than src {:?}",
                index.sizes(),
                input.sizes(),
                s.sizes()
            )));
        }
    } else if (0..ixd).any(|k| k != d && ix_sizes[k] > in_sizes[k]) {
        return Err(Error::runtime(format!(
            "Expected index {:?} to be no larger than self {:?} apart from dimension {d}",
            index.sizes(),
            input.sizes()
        )));
    }
    Ok(d)
}

/// A tensor's sizes, with a 0-dim tensor seen as one element of one dim.
fn one_d(t: &Tensor) -> Vec<usize> {
    if t.dim() == 0 {
        vec![1]
    } else {
        t.sizes().to_vec()
    }
}

/// How `scatter` combines a written value with the element already there.
#[derive(Clone, Copy, PartialEq)]
enum ScatterMode {
    Set,
    Add,
    Multiply,
}

/// torch's `reduce=` argument of `scatter` ("add" or "multiply").
fn scatter_mode(reduce: &str) -> Result<ScatterMode> {
    match reduce {
        "add" => Ok(ScatterMode::Add),
        "multiply" => Ok(ScatterMode::Multiply),
        _ => Err(Error::runtime(
            "reduce argument must be either add or multiply.",
        )),
    }
}

/// Write `src[i][j]` (or `value`) at `out[index[i][j]][j]` (for dim `d` = 0), combined with the
/// element there by `mode`; `out` already holds self's values (checks done by `scatter_check`).
/// An index out of range is torch's RuntimeError, raised before anything is written.
fn scatter_into(
    out: &Tensor,
    d: usize,
    index: &Tensor,
    src: Option<&Tensor>,
    value: Scalar,
    mode: ScatterMode,
) -> Result<()> {
    if index.numel() == 0 {
        return Ok(());
    }
    let iv = index_values(index)?;
    let n = one_d(out)[d] as i64;
    if let Some(&v) = iv.iter().find(|&&v| v < 0 || v >= n) {
        return Err(Error::runtime(format!(
            "index {v} is out of bounds for dimension {d} with size {n}"
        )));
    }
    let out_strides: Vec<isize> = if out.dim() == 0 {
        vec![0]
    } else {
        out.strides().to_vec()
    };
    crate::dispatch!(out.dtype(), T => {
        let po = out.data_ptr::<T>();
        let fill: T = value.to::<T>();
        let mut p = 0usize;
        for_each_index(&one_d(index), |idx| {
            let v = iv[p];
            p += 1;
            let x = match src {
                Some(s) => {
                    let so = if s.dim() == 0 { 0 } else { offset_of(s, idx) };
                    // SAFETY: `idx` is within `src`'s sizes (checked by `scatter_check`).
                    unsafe { *s.data_ptr::<T>().offset(so) }
                }
                None => fill,
            };
            let mut off = 0isize;
            for (k, &i) in idx.iter().enumerate() {
                let i = if k == d { v as usize } else { i };
                off += i as isize * out_strides[k];
            }
            // SAFETY: every coordinate is within `out`'s sizes (checked above and by
            // `scatter_check`); `out` shares no memory with `index` or `src` (the plan's
            // checks, `assert_no_overlap`).
            unsafe {
                let o = po.offset(off);
                *o = match mode {
                    ScatterMode::Set => x,
                    ScatterMode::Add => crate::core::ops::arith::Arith::wadd(*o, x),
                    ScatterMode::Multiply => crate::core::ops::arith::Arith::wmul(*o, x),
                };
            }
            Ok(())
        })
    })
}

/// `scatter(input, dim, index, src)`: a copy of `input` with `out[index[i][j]][j] = src[i][j]`
/// (for dim 0). Errors (RuntimeError): "scatter(): Expected dtype int32/int64 for index",
/// "scatter(): Expected self.dtype to be equal to src.dtype", "Index tensor must have the same
/// number of dimensions as self tensor", "Expected index [..] to be no larger than self [..] apart
/// from dimension 0 and to be no larger size than src [..]", "index 5 is out of bounds for
/// dimension 0 with size 3" (torch: `torch.scatter`).
pub fn scatter_src(input: &Tensor, dim: i64, index: &Tensor, src: &Tensor) -> Result<Tensor> {
    scatter_src_plan(input, dim, index, src)?.run()
}

/// `scatter_src` checked and ready to run (Note [One kernel per op]): `Tensor.scatter_` writes
/// into self, which may share no memory with `index` or `src`.
pub fn scatter_src_plan<'a>(
    input: &'a Tensor,
    dim: i64,
    index: &'a Tensor,
    src: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let d = scatter_check("scatter", input, dim, index, Some(src))?;
    Ok(copy_then(
        input,
        Cow::Borrowed(input.sizes()),
        [Some(index), Some(src)],
        move |out| scatter_into(out, d, index, Some(src), Scalar::Int(0), ScatterMode::Set),
    ))
}

/// `scatter(input, dim, index, value)`: as `scatter_src` with every written element `value`
/// (cast to `input`'s dtype).
pub fn scatter_value(input: &Tensor, dim: i64, index: &Tensor, value: Scalar) -> Result<Tensor> {
    scatter_value_plan(input, dim, index, value)?.run()
}

/// `scatter_value` checked and ready to run (Note [One kernel per op]).
pub fn scatter_value_plan<'a>(
    input: &'a Tensor,
    dim: i64,
    index: &'a Tensor,
    value: Scalar,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let d = scatter_check("scatter", input, dim, index, None)?;
    Ok(copy_then(
        input,
        Cow::Borrowed(input.sizes()),
        [Some(index), None],
        move |out| scatter_into(out, d, index, None, value, ScatterMode::Set),
    ))
}

/// `scatter(input, dim, index, src, *, reduce)`: as `scatter_src`, with each value added to
/// (`reduce="add"`) or multiplied into (`"multiply"`) the element there. RuntimeError "reduce
/// argument must be either add or multiply."; torch's deprecation UserWarning (once) pointing
/// to `scatter_reduce` (torch: `torch.scatter(..., reduce=)`).
pub fn scatter_reduce(
    input: &Tensor,
    dim: i64,
    index: &Tensor,
    src: &Tensor,
    reduce: &str,
) -> Result<Tensor> {
    scatter_reduce_plan(input, dim, index, src, reduce)?.run()
}

/// `scatter_reduce` checked and ready to run (Note [One kernel per op]).
pub fn scatter_reduce_plan<'a>(
    input: &'a Tensor,
    dim: i64,
    index: &'a Tensor,
    src: &'a Tensor,
    reduce: &str,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let d = scatter_check("scatter", input, dim, index, Some(src))?;
    let mode = scatter_mode(reduce)?;
    crate::core::warnings::warn_once(&WARNED, crate::core::warnings::WarningKind::User, || {
        "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a future PyTorch release. Use torch.scatter_reduce instead for more reduction options.".into()
    });
    Ok(copy_then(
        input,
        Cow::Borrowed(input.sizes()),
        [Some(index), Some(src)],
        move |out| scatter_into(out, d, index, Some(src), Scalar::Int(0), mode),
    ))
}

/// `scatter(input, dim, index, value, *, reduce)`: as `scatter_value`, combining `value` with
/// the element there by `reduce` ("add" or "multiply").
pub fn scatter_value_reduce(
    input: &Tensor,
    dim: i64,
    index: &Tensor,
    value: Scalar,
    reduce: &str,
) -> Result<Tensor> {
    scatter_value_reduce_plan(input, dim, index, value, reduce)?.run()
}

/// `scatter_value_reduce` checked and ready to run (Note [One kernel per op]).
pub fn scatter_value_reduce_plan<'a>(
    input: &'a Tensor,
    dim: i64,
    index: &'a Tensor,
    value: Scalar,
    reduce: &str,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let d = scatter_check("scatter", input, dim, index, None)?;
    let mode = scatter_mode(reduce)?;
    Ok(copy_then(
        input,
        Cow::Borrowed(input.sizes()),
        [Some(index), None],
        move |out| scatter_into(out, d, index, None, value, mode),
    ))
}

/// The reductions of `scatter_reduce(..., reduce, include_self)`.
#[derive(Clone, Copy, PartialEq)]
enum ScatterReduce {
    Sum,
    Prod,
    Mean,
    Amax,
    Amin,
}

/// `scatter_reduce(input, dim, index, src, reduce, *, include_self=True)`: a copy of `input`
/// where each `out[index[i][j]][j]` (for dim 0) is reduced with every `src[i][j]` scattered
/// there by `reduce` ("sum", "prod", "mean", "amax", "amin"; NaN propagates through amax/amin;
/// an integer mean rounds toward -inf), the element of `input` taking part unless
/// `include_self=False`; elements nothing is scattered to keep `input`'s value. Errors as
/// `scatter_src`, and RuntimeError "reduce argument must be either sum, prod, mean, amax or amin,
/// got foo" (torch: `torch.scatter_reduce`).
pub fn scatter_reduce_two(
    input: &Tensor,
    dim: i64,
    index: &Tensor,
    src: &Tensor,
    reduce: &str,
    include_self: bool,
) -> Result<Tensor> {
    scatter_reduce_two_plan(input, dim, index, src, reduce, include_self)?.run()
}

/// `scatter_reduce_two` checked and ready to run (Note [One kernel per op]).
pub fn scatter_reduce_two_plan<'a>(
    input: &'a Tensor,
    dim: i64,
    index: &'a Tensor,
    src: &'a Tensor,
    reduce: &str,
    include_self: bool,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let d = scatter_check("scatter", input, dim, index, Some(src))?;
    let mode = match reduce {
        "sum" => ScatterReduce::Sum,
        "prod" => ScatterReduce::Prod,
        "mean" => ScatterReduce::Mean,
        "amax" => ScatterReduce::Amax,
        "amin" => ScatterReduce::Amin,
        _ => {
            return Err(Error::runtime(format!(
                "reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
            )))
        }
    };
    if mode == ScatterReduce::Mean && input.dtype() == DType::Bool {
        return Err(Error::not_implemented(
            "\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'",
        ));
    }
    Ok(copy_then(
        input,
        Cow::Borrowed(input.sizes()),
        [Some(index), Some(src)],
        move |out| scatter_reduce_into(out, d, index, src, mode, include_self),
    ))
}

/// The kernel of `scatter_reduce_two`: `out` holds self's values (checks done by
/// `scatter_check`); the first value scattered to an element replaces it when `include_self` is
/// false. A mean divides each reached element by the number of values reduced into it.
fn scatter_reduce_into(
    out: &Tensor,
    d: usize,
    index: &Tensor,
    src: &Tensor,
    mode: ScatterReduce,
    include_self: bool,
) -> Result<()> {
    use super::arith::Arith;
    if index.numel() == 0 {
        return Ok(());
    }
    let iv = index_values(index)?;
    let n = one_d(out)[d] as i64;
    if let Some(&v) = iv.iter().find(|&&v| v < 0 || v >= n) {
        return Err(Error::runtime(format!(
            "index {v} is out of bounds for dimension {d} with size {n}"
        )));
    }
    let out_strides: Vec<isize> = if out.dim() == 0 {
        vec![0]
    } else {
        out.strides().to_vec()
    };
    // How many values of src were reduced into each reached element (by its offset in out).
    let mut counts: std::collections::HashMap<isize, i64> = std::collections::HashMap::new();
    crate::dispatch!(out.dtype(), T => {
        let po = out.data_ptr::<T>();
        let ps = src.data_ptr::<T>();
        let mut p = 0usize;
        for_each_index(&one_d(index), |idx| {
            let v = iv[p];
            p += 1;
            let so = if src.dim() == 0 { 0 } else { offset_of(src, idx) };
            // SAFETY: `idx` is within `src`'s sizes (checked by `scatter_check`).
            let x = unsafe { *ps.offset(so) };
            let mut off = 0isize;
            for (k, &i) in idx.iter().enumerate() {
                let i = if k == d { v as usize } else { i };
                off += i as isize * out_strides[k];
            }
            let c = counts.entry(off).or_insert(0);
            let first = *c == 0 && !include_self;
            *c += 1;
            // SAFETY: every coordinate is within `out`'s sizes (checked above and by
            // `scatter_check`); `out` shares no memory with `index` or `src` (the plan's
            // checks, `assert_no_overlap`).
            unsafe {
                let o = po.offset(off);
                *o = if first {
                    x
                } else {
                    match mode {
                        ScatterReduce::Sum | ScatterReduce::Mean => Arith::wadd(*o, x),
                        ScatterReduce::Prod => Arith::wmul(*o, x),
                        ScatterReduce::Amax => Arith::max_nan(*o, x),
                        ScatterReduce::Amin => Arith::min_nan(*o, x),
                    }
                };
            }
            Ok(())
        })?;
        if mode == ScatterReduce::Mean {
            let float = out.dtype().is_floating_point();
            for (&off, &c) in &counts {
                let c: T = Scalar::Int(c + i64::from(include_self)).to::<T>();
                // SAFETY: `off` is the offset of an element of `out` computed above.
                unsafe {
                    let o = po.offset(off);
                    *o = if float { Arith::true_div(*o, c) } else { Arith::div_floor(*o, c) };
                }
            }
        }
        Ok(())
    })
}

/// `index_reduce(input, dim, index, source, reduce, *, include_self=True)`: a copy of `input`
/// where the slice `index[i]` along `dim` is reduced with the slice `i` of `source` by `reduce`
/// ("prod", "mean", "amax", "amin"; as `scatter_reduce_two`), with torch's once-per-process
/// beta UserWarning. RuntimeError "index_reduce(): Expected reduce to be one of prod, mean, amax
/// or amin but got sum.", "index_reduce_(): Expected dtype int32/int64 for index but got: Float",
/// "index_reduce_(): self (Float) and source (Double) must have the same scalar type",
/// "index_reduce_(): Number of indices (3) should be equal to source.size(dim): (4), for dim: 0",
/// "source tensor shape must match self tensor shape, excluding the specified dimension. ...";
/// IndexError for an index that is not a vector or out of range ("index out of range in
/// self"); NotImplementedError for bool (torch: `torch.index_reduce`).
pub fn index_reduce(
    input: &Tensor,
    dim: i64,
    index: &Tensor,
    source: &Tensor,
    reduce: &str,
    include_self: bool,
) -> Result<Tensor> {
    index_reduce_plan(input, dim, index, source, reduce, include_self)?.run()
}

/// `index_reduce` checked and ready to run (Note [One kernel per op]).
pub fn index_reduce_plan<'a>(
    input: &'a Tensor,
    dim: i64,
    index: &'a Tensor,
    source: &'a Tensor,
    reduce: &str,
    include_self: bool,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let mode = match reduce {
        "prod" => ScatterReduce::Prod,
        "mean" => ScatterReduce::Mean,
        "amax" => ScatterReduce::Amax,
        "amin" => ScatterReduce::Amin,
        _ => {
            return Err(Error::runtime(format!(
                "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}."
            )))
        }
    };
    crate::core::warnings::warn_once(&WARNED, crate::core::warnings::WarningKind::User, || {
        "index_reduce() is in beta and the API may change at any time.".into()
    });
    let d = maybe_wrap_dim(dim, input.dim())?;
    if index.dim() > 1 {
        return Err(Error::index(format!(
            "index_reduce_(): Index is supposed to be a vector, but got dim: {} with type: {} and size: {:?}",
            index.dim(),
            index.dtype().scalar_type_name(),
            index.sizes()
        )));
    }
    if !matches!(index.dtype(), DType::Int64 | DType::Int32) {
        return Err(Error::runtime(format!(
            "index_reduce_(): Expected dtype int32/int64 for index but got: {}",
            index.dtype().scalar_type_name()
        )));
    }
    if input.dtype() != source.dtype() {
        return Err(Error::runtime(format!(
            "index_reduce_(): self ({}) and source ({}) must have the same scalar type",
            input.dtype().scalar_type_name(),
            source.dtype().scalar_type_name()
        )));
    }
    if !(d == 0 || d < source.dim()) {
        return Err(Error::runtime(format!(
            "index_reduce_(): Indexing dim {d} is out of bounds of the source tensor with dim {}",
            source.dim()
        )));
    }
    let src_len = if source.dim() == 0 {
        1
    } else {
        source.sizes()[d]
    };
    if index.numel() != src_len {
        return Err(Error::runtime(format!(
            "index_reduce_(): Number of indices ({}) should be equal to source.size(dim): ({src_len}), for dim: {d}",
            index.numel()
        )));
    }
    let (mut ss, mut rs) = (input.sizes().to_vec(), source.sizes().to_vec());
    if input.dim() != 0 && source.dim() != 0 {
        ss.remove(d);
        rs.remove(d);
    }
    if ss != rs {
        return Err(Error::runtime(format!(
            "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = {:?} source.shape = {:?}",
            input.sizes(),
            source.sizes()
        )));
    }
    if input.dtype() == DType::Bool {
        return Err(Error::not_implemented(
            "\"index_func_\" not implemented for 'Bool'",
        ));
    }
    Ok(copy_then(
        input,
        Cow::Borrowed(input.sizes()),
        [Some(index), Some(source)],
        move |out| index_reduce_into(out, d, index, source, mode, include_self),
    ))
}

/// The kernel of `index_reduce`: element `idx` of `source` is reduced into the element of `out`
/// at `idx` with `idx[d]` replaced by `index[idx[d]]` (as `scatter_reduce_into`).
fn index_reduce_into(
    out: &Tensor,
    d: usize,
    index: &Tensor,
    source: &Tensor,
    mode: ScatterReduce,
    include_self: bool,
) -> Result<()> {
    use super::arith::Arith;
    let iv = index_values(index)?;
    let n = one_d(out)[d] as i64;
    if iv.iter().any(|&v| v < 0 || v >= n) {
        return Err(Error::index("index out of range in self"));
    }
    let out_strides: Vec<isize> = if out.dim() == 0 {
        vec![0]
    } else {
        out.strides().to_vec()
    };
    let mut counts: std::collections::HashMap<isize, i64> = std::collections::HashMap::new();
    crate::dispatch!(out.dtype(), T => {
        let po = out.data_ptr::<T>();
        let ps = source.data_ptr::<T>();
        for_each_index(&one_d(source), |idx| {
            let so = if source.dim() == 0 { 0 } else { offset_of(source, idx) };
            // SAFETY: `idx` is within `source`'s sizes.
            let x = unsafe { *ps.offset(so) };
            let mut off = 0isize;
            for (k, &i) in idx.iter().enumerate() {
                let i = if k == d { iv[i] as usize } else { i };
                off += i as isize * out_strides[k];
            }
            let c = counts.entry(off).or_insert(0);
            let first = *c == 0 && !include_self;
            *c += 1;
            // SAFETY: every coordinate is within `out`'s sizes (the index values are checked
            // above, the other dims match source's by the plan's checks); `out` shares no memory
            // with `index` or `source` (the plan's checks, `assert_no_overlap`).
            unsafe {
                let o = po.offset(off);
                *o = if first {
                    x
                } else {
                    match mode {
                        ScatterReduce::Sum | ScatterReduce::Mean => Arith::wadd(*o, x),
                        ScatterReduce::Prod => Arith::wmul(*o, x),
                        ScatterReduce::Amax => Arith::max_nan(*o, x),
                        ScatterReduce::Amin => Arith::min_nan(*o, x),
                    }
                };
            }
            Ok(())
        })?;
        if mode == ScatterReduce::Mean {
            let float = out.dtype().is_floating_point();
            for (&off, &c) in &counts {
                let c: T = Scalar::Int(c + i64::from(include_self)).to::<T>();
                // SAFETY: `off` is the offset of an element of `out` computed above.
                unsafe {
                    let o = po.offset(off);
                    *o = if float { Arith::true_div(*o, c) } else { Arith::div_floor(*o, c) };
                }
            }
        }
        Ok(())
    })
}

/// The storage offset (in elements) of the element at row-major position `lin` of `t`.
fn linear_offset(t: &Tensor, mut lin: usize) -> isize {
    let mut off = 0isize;
    for (&n, &st) in t.sizes().iter().zip(t.strides()).rev() {
        off += (lin % n) as isize * st;
        lin /= n;
    }
    off
}

/// `put(input, index, source, accumulate=False)`: a copy of `input` with the elements at the
/// row-major (flattened) positions `index` (negative count from the end) set to — or, with
/// `accumulate`, incremented by — the elements of `source` in order. RuntimeError "put_():
/// Expected a long tensor for index, but got Int", "put_(): self and source expected to have the
/// same dtype, but got self.dtype = Float and source.dtype = Double"; IndexError "put_():
/// Expected source and index to have the same number of elements, ...", "put_(): Tried to put
/// elements into an empty tensor", "out of range: tried to access index 6 on a tensor of 6
/// elements." (torch: `torch.put`).
pub fn put(input: &Tensor, index: &Tensor, source: &Tensor, accumulate: bool) -> Result<Tensor> {
    put_plan(input, index, source, accumulate)?.run()
}

/// `put` checked and ready to run (Note [One kernel per op]).
pub fn put_plan<'a>(
    input: &'a Tensor,
    index: &'a Tensor,
    source: &'a Tensor,
    accumulate: bool,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    if index.dtype() != DType::Int64 {
        return Err(Error::runtime(format!(
            "put_(): Expected a long tensor for index, but got {}",
            index.dtype().scalar_type_name()
        )));
    }
    if input.dtype() != source.dtype() {
        return Err(Error::runtime(format!(
            "put_(): self and source expected to have the same dtype, but got self.dtype = {} and source.dtype = {}",
            input.dtype().scalar_type_name(),
            source.dtype().scalar_type_name()
        )));
    }
    if source.numel() != index.numel() {
        return Err(Error::index(format!(
            "put_(): Expected source and index to have the same number of elements, but got source.numel() = {}, index.numel() = {}",
            source.numel(),
            index.numel()
        )));
    }
    if index.numel() != 0 && input.numel() == 0 {
        return Err(Error::index(
            "put_(): Tried to put elements into an empty tensor",
        ));
    }
    Ok(copy_then(
        input,
        Cow::Borrowed(input.sizes()),
        [Some(index), Some(source)],
        move |out| put_into(out, index, source, accumulate),
    ))
}

fn put_into(out: &Tensor, index: &Tensor, source: &Tensor, accumulate: bool) -> Result<()> {
    use super::arith::Arith;
    if index.numel() == 0 {
        return Ok(());
    }
    let iv = index_values(index)?;
    let n = out.numel() as i64;
    if let Some(&v) = iv.iter().find(|&&v| v < -n || v >= n) {
        return Err(Error::index(format!(
            "out of range: tried to access index {v} on a tensor of {n} elements."
        )));
    }
    crate::dispatch!(out.dtype(), T => {
        let po = out.data_ptr::<T>();
        let ps = source.data_ptr::<T>();
        for (k, &v) in iv.iter().enumerate() {
            let lin = if v < 0 { v + n } else { v } as usize;
            // SAFETY: `k` < source.numel() (== index.numel(), checked by the plan) and `lin` <
            // out.numel() (checked above), so both offsets address elements of their tensors;
            // `out` shares no memory with `source` (the plan's checks).
            unsafe {
                let x = *ps.offset(linear_offset(source, k));
                let o = po.offset(linear_offset(out, lin));
                *o = if accumulate { Arith::wadd(*o, x) } else { x };
            }
        }
        Ok(())
    })
}

/// `masked_scatter(input, mask, source)`: a copy of `input` (broadcast with the bool `mask`)
/// whose elements where `mask` is True are, in row-major order, the first elements of `source`
/// (flattened). RuntimeError "masked_scatter: expected self and source to have same dtypes but
/// gotFloat and Double" (sic), "masked_scatter_ only supports boolean masks, but got mask with
/// dtype Int", "Number of elements of source < number of ones in mask" (torch:
/// `torch.masked_scatter`).
pub fn masked_scatter(input: &Tensor, mask: &Tensor, source: &Tensor) -> Result<Tensor> {
    masked_scatter_plan(input, mask, source)?.run()
}

/// `masked_scatter` checked and ready to run (Note [One kernel per op]).
pub fn masked_scatter_plan<'a>(
    input: &'a Tensor,
    mask: &'a Tensor,
    source: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    // torch: expand_outplace(mask, self), so the mask is "tensor a" in the broadcast error.
    let shape = broadcast_shapes(mask.sizes(), input.sizes())?;
    if input.dtype() != source.dtype() {
        return Err(Error::runtime(format!(
            "masked_scatter: expected self and source to have same dtypes but got{} and {}",
            input.dtype().scalar_type_name(),
            source.dtype().scalar_type_name()
        )));
    }
    if mask.dtype() != DType::Bool {
        return Err(Error::runtime(format!(
            "masked_scatter_ only supports boolean masks, but got mask with dtype {}",
            mask.dtype().scalar_type_name()
        )));
    }
    Ok(copy_then(
        input,
        Cow::Owned(shape),
        [Some(mask), Some(source)],
        move |out| masked_scatter_into(out, mask, source),
    ))
}

fn masked_scatter_into(out: &Tensor, mask: &Tensor, source: &Tensor) -> Result<()> {
    if out.numel() == 0 {
        return Ok(());
    }
    let mask = super::expand(
        mask,
        &out.sizes().iter().map(|&x| x as i64).collect::<Vec<_>>(),
    )?;
    let bits: Vec<bool> = mask.to_vec::<bool>();
    let ones = bits.iter().filter(|&&b| b).count();
    if ones > source.numel() {
        return Err(Error::runtime(
            "Number of elements of source < number of ones in mask",
        ));
    }
    crate::dispatch!(out.dtype(), T => {
        let po = out.data_ptr::<T>();
        let ps = source.data_ptr::<T>();
        let mut k = 0usize;
        for (lin, &b) in bits.iter().enumerate() {
            if b {
                // SAFETY: `lin` < out.numel() (bits has out's numel elements) and `k` <
                // source.numel() (ones <= source.numel(), checked above); `out` shares no
                // memory with `source` (the plan's checks).
                unsafe {
                    *po.offset(linear_offset(out, lin)) = *ps.offset(linear_offset(source, k));
                }
                k += 1;
            }
        }
        Ok(())
    })
}

/// `scatter_add(input, dim, index, src)`: a copy of `input` with `out[index[i][j]][j] +=
/// src[i][j]` (for dim 0), repeated indices accumulating. Errors as `scatter_src` (torch's
/// scatter meta step names them `scatter()` here too) (torch: `torch.scatter_add`).
pub fn scatter_add(input: &Tensor, dim: i64, index: &Tensor, src: &Tensor) -> Result<Tensor> {
    scatter_add_plan(input, dim, index, src)?.run()
}

/// `scatter_add` checked and ready to run (Note [One kernel per op]).
pub fn scatter_add_plan<'a>(
    input: &'a Tensor,
    dim: i64,
    index: &'a Tensor,
    src: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let d = scatter_check("scatter", input, dim, index, Some(src))?;
    Ok(copy_then(
        input,
        Cow::Borrowed(input.sizes()),
        [Some(index), Some(src)],
        move |out| scatter_into(out, d, index, Some(src), Scalar::Int(0), ScatterMode::Add),
    ))
}

/// The index values of a vector (or one value) of int64 or int32.
fn index_vector(index: &Tensor) -> Result<Vec<i64>> {
    crate::dispatch!(index.dtype(), T => super::conversion::try_map_to_vec(index, |v: T| crate::core::dtype::Element::to_i64(v)))
}

/// A shape as c10 prints a `std::vector` in an error message: the sizes separated by spaces.
fn c10_sizes(sizes: &[usize]) -> String {
    sizes
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `t`'s sizes without dim `d` (a 0-dim tensor: none).
fn sliced_sizes(t: &Tensor, d: usize) -> Vec<usize> {
    let mut v = t.sizes().to_vec();
    if !v.is_empty() {
        v.remove(d);
    }
    v
}

/// torch's slice-shape check of `index_add_`/`index_copy_` (`name`).
fn slice_shape_error(name: &str, ds: &[usize], d: usize, ss: &[usize]) -> Error {
    Error::runtime(format!(
        "{name}(): Source/destination tensor must have same slice shapes. Destination slice shape: {} at dimension {d} and source slice shape: {} at dimension 0.",
        c10_sizes(ds),
        c10_sizes(ss)
    ))
}

/// torch's `index_add` meta checks (`index_func_meta_impl`), in its order; returns the wrapped
/// dim and the index values.
fn index_add_check(
    input: &Tensor,
    dim: i64,
    index: &Tensor,
    source: &Tensor,
) -> Result<(usize, Vec<i64>)> {
    let d = maybe_wrap_dim(dim, input.dim())?;
    if index.dim() > 1 {
        return Err(Error::index(format!(
            "index_add_(): Index is supposed to be a vector, but got dim: {} with type: {} and size: {:?}",
            index.dim(),
            index.dtype().scalar_type_name(),
            index.sizes()
        )));
    }
    if !matches!(index.dtype(), DType::Int64 | DType::Int32) {
        return Err(Error::runtime(format!(
            "index_add_(): Expected dtype int32/int64 for index but got: {}",
            index.dtype().scalar_type_name()
        )));
    }
    if source.dtype() != input.dtype() {
        return Err(Error::runtime(format!(
            "index_add_(): self ({}) and source ({}) must have the same scalar type",
            input.dtype().scalar_type_name(),
            source.dtype().scalar_type_name()
        )));
    }
    if d != 0 && d >= source.dim() {
        return Err(Error::runtime(format!(
            "index_add_(): Indexing dim {d} is out of bounds of the source tensor with dim {}",
            source.dim()
        )));
    }
    let along = if source.dim() == 0 {
        1
    } else {
        source.sizes()[d]
    };
    if index.numel() != along {
        return Err(Error::runtime(format!(
            "index_add_(): Number of indices ({}) should be equal to source.size(dim): ({along}), for dim: {d}",
            index.numel()
        )));
    }
    let (ds, ss) = if source.dim() != 0 && input.dim() != 0 {
        (sliced_sizes(input, d), sliced_sizes(source, d))
    } else {
        (input.sizes().to_vec(), source.sizes().to_vec())
    };
    if ds != ss {
        return Err(Error::runtime(format!(
            "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = {:?} source.shape = {:?}",
            input.sizes(),
            source.sizes()
        )));
    }
    Ok((d, index_vector(index)?))
}

/// torch's `index_copy` meta checks, in its order; returns the wrapped dim and the index values.
fn index_copy_check(
    input: &Tensor,
    dim: i64,
    index: &Tensor,
    source: &Tensor,
) -> Result<(usize, Vec<i64>)> {
    let d = maybe_wrap_dim(dim, input.dim())?;
    if index.dim() > 1 {
        return Err(Error::index(format!(
            "index_copy_(): Index should have dimension 1 or 0 (got {})",
            index.dim()
        )));
    }
    let n = index.numel();
    if source.dim() == 0 && n != 1 {
        return Err(Error::index(format!(
            "index_copy_(): When source is scalar, index should have one element (got {n})"
        )));
    } else if source.dim() != input.dim() && source.dim() != 0 && input.dim() != 0 {
        return Err(Error::index(format!(
            "index_copy_(): When source and destination are not scalars, their dimensionality must match. Source dimensionality ({}), destination dimensionality ({})",
            source.dim(),
            input.dim()
        )));
    }
    if index.dtype() != DType::Int64 {
        return Err(Error::runtime(format!(
            "index_copy_(): Expected a long tensor for index, but got {}",
            index.dtype().scalar_type_name()
        )));
    }
    if source.dtype() != input.dtype() {
        return Err(Error::runtime(format!(
            "index_copy_(): self and source expected to have the same dtype, but got (self) {} and (source) {}",
            input.dtype().scalar_type_name(),
            source.dtype().scalar_type_name()
        )));
    }
    let (ds, ss) = (sliced_sizes(input, d), sliced_sizes(source, d));
    if ds != ss {
        return Err(slice_shape_error("index_copy_", &ds, d, &ss));
    }
    if source.dim() != 0 && n != source.sizes()[d] {
        return Err(Error::index(format!(
            "index_copy_(): Number of indices ({n}) should be equal to source.size(dim) ({})",
            source.sizes()[d]
        )));
    }
    Ok((d, index_vector(index)?))
}

/// The slice `i` of `t` along `d` (the whole of a 0-dim tensor), a view.
fn slice_at(t: &Tensor, d: usize, i: i64) -> Result<Tensor> {
    if t.dim() == 0 {
        Ok(t.alias())
    } else {
        narrow(t, d as i64, i, 1)
    }
}

/// `index_add(input, dim, index, source, *, alpha=1)`: a copy of `input` with `alpha *
/// source[i]` added to its slice `index[i]` along `dim` (repeated indices accumulate). `index`
/// is a vector of int64 or int32; `source` has `input`'s dtype, `len(index)` slices along `dim`
/// and `input`'s slice shape. Errors (torch's): RuntimeError "index_add_(): Expected dtype
/// int32/int64 for index", "index_add_(): self (Float) and source (Double) must have the same
/// scalar type", "index_add_(): Number of indices (3) should be equal to source.size(dim): (2),
/// for dim: 0", "source tensor shape must match self tensor shape, ...", "index 5 is out of
/// bounds for dimension 0 with size 3",
/// the slice-shape error, the `alpha` errors of `add`; IndexError "index_add_(): Index is
/// supposed to be a vector" (torch: `torch.index_add`).
pub fn index_add(
    input: &Tensor,
    dim: i64,
    index: &Tensor,
    source: &Tensor,
    alpha: Scalar,
) -> Result<Tensor> {
    index_add_plan(input, dim, index, source, alpha)?.run()
}

/// `index_add` checked and ready to run (Note [One kernel per op]).
pub fn index_add_plan<'a>(
    input: &'a Tensor,
    dim: i64,
    index: &'a Tensor,
    source: &'a Tensor,
    alpha: Scalar,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let (d, iv) = index_add_check(input, dim, index, source)?;
    let n = one_d(input)[d] as i64;
    if let Some(&v) = iv.iter().find(|&&v| v < 0 || v >= n) {
        // torch's CPU kernel: element-wise for a 0- or 1-dim self, slice-wise otherwise.
        return Err(if input.dim() <= 1 {
            Error::index("index out of range in self")
        } else {
            Error::runtime(format!(
                "index {v} is out of bounds for dimension {d} with size {n}"
            ))
        });
    }
    // torch converts `alpha` to the tensor's dtype (`alpha.to<scalar_t>()`): 1.5 adds 1 times
    // the source to an integer tensor, and any nonzero alpha is true for bool.
    let alpha = match (input.dtype(), alpha) {
        (DType::Bool, a) => Scalar::Bool(a.to_f64() != 0.0),
        (dt, Scalar::Float(f)) if dt.is_integral() => Scalar::Int(f as i64),
        (_, Scalar::Bool(b)) => Scalar::Int(b as i64),
        (_, a) => a,
    };
    Ok(copy_then(
        input,
        Cow::Borrowed(input.sizes()),
        [Some(index), Some(source)],
        move |out| {
            for (i, &v) in iv.iter().enumerate() {
                let dst = slice_at(out, d, v)?;
                let src = slice_at(source, d, i as i64)?;
                super::binary::add_plan(&dst, &src, alpha)?.run_into(&dst)?;
            }
            Ok(())
        },
    ))
}

/// `index_copy(input, dim, index, source)`: a copy of `input` with its slice `index[i]` along
/// `dim` replaced by `source[i]` (for a repeated index the last write wins). `index` is a
/// vector of int64. Errors (torch's, from `index_copy_()`): IndexError for the index's rank, the
/// number of indices and an index out of range ("index_copy_(): index 5 is out of bounds for
/// dimension 0 with size 3"); RuntimeError for the index dtype ("Expected a long tensor for
/// index, but got Int"), the dtypes and the slice shapes (torch: `torch.index_copy`).
pub fn index_copy(input: &Tensor, dim: i64, index: &Tensor, source: &Tensor) -> Result<Tensor> {
    index_copy_plan(input, dim, index, source)?.run()
}

/// `index_copy` checked and ready to run (Note [One kernel per op]).
pub fn index_copy_plan<'a>(
    input: &'a Tensor,
    dim: i64,
    index: &'a Tensor,
    source: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let (d, iv) = index_copy_check(input, dim, index, source)?;
    let n = one_d(input)[d] as i64;
    if let Some(&v) = iv.iter().find(|&&v| v < 0 || v >= n) {
        return Err(Error::index(format!(
            "index_copy_(): index {v} is out of bounds for dimension {d} with size {n}"
        )));
    }
    Ok(copy_then(
        input,
        Cow::Borrowed(input.sizes()),
        [Some(index), Some(source)],
        move |out| {
            for (i, &v) in iv.iter().enumerate() {
                slice_at(out, d, v)?.copy_from(&slice_at(source, d, i as i64)?)?;
            }
            Ok(())
        },
    ))
}

/// `index_fill(input, dim, index, value)`: a copy of `input` with its slices `index[i]` along
/// `dim` filled with `value` (a number, which must fit the dtype, or a 0-dim tensor, cast).
/// `index` is a vector of int64; negative indices count from the end. Errors: IndexError
/// "index_fill_(): Expected dtype int64 for index.", "index 5 is out of bounds for dimension 0
/// with size 3"; RuntimeError "Index has to be a vector/scalar", "index_fill_ only supports a
/// 0-dimensional value tensor, but got tensor with 1 dimension(s)." (torch: `torch.index_fill`).
pub fn index_fill_scalar(
    input: &Tensor,
    dim: i64,
    index: &Tensor,
    value: Scalar,
) -> Result<Tensor> {
    index_fill_scalar_plan(input, dim, index, value)?.run()
}

/// `index_fill` (number value) checked and ready to run (Note [One kernel per op]).
pub fn index_fill_scalar_plan<'a>(
    input: &'a Tensor,
    dim: i64,
    index: &'a Tensor,
    value: Scalar,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    index_fill_any(input, dim, index, value, true)
}

/// `index_fill` with a 0-dim tensor value (cast to `input`'s dtype).
pub fn index_fill_tensor(
    input: &Tensor,
    dim: i64,
    index: &Tensor,
    value: &Tensor,
) -> Result<Tensor> {
    index_fill_tensor_plan(input, dim, index, value)?.run()
}

/// `index_fill` (tensor value) checked and ready to run (Note [One kernel per op]).
pub fn index_fill_tensor_plan<'a>(
    input: &'a Tensor,
    dim: i64,
    index: &'a Tensor,
    value: &Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    if value.dim() != 0 {
        return Err(Error::runtime(format!(
            "index_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
            value.dim()
        )));
    }
    index_fill_any(input, dim, index, value.item()?, false)
}

fn index_fill_any<'a>(
    input: &'a Tensor,
    dim: i64,
    index: &'a Tensor,
    value: Scalar,
    checked: bool,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    // torch's order: the index dtype (IndexError), the dim, the index's rank.
    if index.dtype() != DType::Int64 {
        return Err(Error::index(
            "index_fill_(): Expected dtype int64 for index.",
        ));
    }
    let d = maybe_wrap_dim(dim, input.dim())?;
    if index.dim() > 1 {
        return Err(Error::runtime("Index has to be a vector/scalar"));
    }
    let iv = index_vector(index)?;
    let n = one_d(input)[d] as i64;
    if let Some(&v) = iv.iter().find(|&&v| v < -n || v >= n) {
        return Err(Error::index(format!(
            "index {v} is out of bounds for dimension {d} with size {n}"
        )));
    }
    if checked {
        // A Python number must fit the dtype (torch's overflow RuntimeError, as `fill_`).
        crate::dispatch!(input.dtype(), T => value.to_checked::<T>().map(|_| ()))?;
    }
    Ok(copy_then(
        input,
        Cow::Borrowed(input.sizes()),
        [Some(index), None],
        move |out| {
            for &v in &iv {
                let v = if v < 0 { v + n } else { v };
                slice_at(out, d, v)?.fill_cast(value);
            }
            Ok(())
        },
    ))
}

/// `index_select(input, dim, index)`: the entries of `input` at positions `index` (1-D or 0-dim,
/// int64 or int32) along `dim`, a copy. Errors: IndexError "index out of range in self" (also
/// for negative indices) and for `dim`; RuntimeError "index_select(): Index is supposed to be a
/// vector", "index_select(): Expected dtype int32 or int64 for index" (torch:
/// `torch.index_select`).
pub fn index_select(input: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
    index_select_plan(input, dim, index)?.run()
}

/// `index_select` checked and ready to run (Note [One kernel per op]); into `out=`, `out` may
/// share no memory with `input` or `index` (torch's `assert_no_overlap`).
pub fn index_select_plan<'a>(
    input: &'a Tensor,
    dim: i64,
    index: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    let d = maybe_wrap_dim(dim, input.dim())?;
    if index.dim() > 1 {
        return Err(Error::index(
            "index_select(): Index is supposed to be a vector",
        ));
    }
    if input.dim() == 0 && index.numel() != 1 {
        return Err(Error::runtime(format!(
            "index_select(): Index to scalar can have only 1 value, got {} value(s)",
            index.numel()
        )));
    }
    if !matches!(index.dtype(), DType::Int64 | DType::Int32) {
        return Err(Error::runtime(
            "index_select(): Expected dtype int32 or int64 for index",
        ));
    }
    let iv: Vec<i64> = crate::dispatch!(index.dtype(), T => super::conversion::try_map_to_vec(index, |v: T| crate::core::dtype::Element::to_i64(v)))?;
    let n = if input.dim() == 0 {
        1
    } else {
        input.sizes()[d] as i64
    };
    if iv.iter().any(|&v| v < 0 || v >= n) {
        return Err(Error::index("index out of range in self"));
    }
    // A 0-dim input gives a 0-dim result whatever the index's shape, as torch.
    let shape = if input.dim() == 0 {
        Vec::new()
    } else {
        let mut sizes = input.sizes().to_vec();
        sizes[d] = iv.len();
        sizes
    };
    Ok(Plan::new(
        Cow::Owned(shape),
        input.dtype(),
        [Some(input), Some(index), None],
        move |out: &Tensor, fresh: bool| {
            if !fresh {
                assert_no_overlap(out, input)?;
                assert_no_overlap(out, index)?;
            }
            if input.dim() == 0 {
                return out.copy_from(input);
            }
            for (k, &v) in iv.iter().enumerate() {
                narrow(out, d as i64, k as i64, 1)?.copy_from(&narrow(input, d as i64, v, 1)?)?;
            }
            Ok(())
        },
    ))
}

fn check_bool_mask(mask: &Tensor, what: &str) -> Result<()> {
    if mask.dtype() != DType::Bool {
        return Err(Error::runtime(format!(
            "{what} only supports boolean masks, but got mask with dtype {}",
            mask.dtype().type_meta_name()
        )));
    }
    Ok(())
}

fn masked_fill_any<'a>(
    input: &'a Tensor,
    mask: &'a Tensor,
    value: Scalar,
    checked: bool,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    check_bool_mask(mask, "masked_fill_")?;
    let shape = broadcast_shapes(input.sizes(), mask.sizes())?;
    if checked {
        crate::dispatch!(input.dtype(), T => { value.to_checked::<T>()?; });
    }
    Ok(copy_then(
        input,
        Cow::Owned(shape),
        [None, None],
        move |out| {
            let ms = mask.broadcast_strides(out.sizes())?;
            let pm = mask.data_ptr::<bool>() as *const bool;
            crate::dispatch!(out.dtype(), T => {
                let v: T = value.to::<T>();
                let po = out.data_ptr::<T>();
                crate::core::iter::strided_for_each(out.sizes(), [out.strides(), &ms], |[o, m]| {
                    // SAFETY: offsets come from each tensor's own (broadcast) geometry over `out`'s
                    // shape; the mask is read at each position before that position is written.
                    unsafe {
                        if *pm.offset(m) {
                            *po.offset(o) = v;
                        }
                    }
                });
            });
            Ok(())
        },
    ))
}

/// `masked_fill(input, mask, value)`: a copy of `input` with `value` where the bool `mask`
/// (broadcast with `input`) is true. Errors: RuntimeError "masked_fill_ only supports boolean
/// masks, but got mask with dtype long int", "value cannot be converted to type uint8_t without
/// overflow", broadcast errors (torch: `torch.masked_fill`).
pub fn masked_fill(input: &Tensor, mask: &Tensor, value: Scalar) -> Result<Tensor> {
    masked_fill_any(input, mask, value, true)?.run()
}

/// `masked_fill` (number value) checked and ready to run (Note [One kernel per op]); in place
/// the mask must broadcast to self's shape.
pub fn masked_fill_plan<'a>(
    input: &'a Tensor,
    mask: &'a Tensor,
    value: Scalar,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    masked_fill_any(input, mask, value, true)
}

/// `masked_fill(input, mask, value)` with a 0-dim tensor `value` (cast to `input`'s dtype).
/// RuntimeError "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1
/// dimension(s)."; otherwise as `masked_fill`.
pub fn masked_fill_tensor(input: &Tensor, mask: &Tensor, value: &Tensor) -> Result<Tensor> {
    masked_fill_tensor_plan(input, mask, value)?.run()
}

/// `masked_fill_tensor` checked and ready to run (Note [One kernel per op]).
pub fn masked_fill_tensor_plan<'a>(
    input: &'a Tensor,
    mask: &'a Tensor,
    value: &Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    if value.dim() != 0 {
        return Err(Error::runtime(format!(
            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
            value.dim()
        )));
    }
    masked_fill_any(input, mask, value.item()?, false)
}

/// `masked_select(input, mask)`: the 1-D tensor of the elements of `input` where the bool `mask`
/// is true, after broadcasting both. RuntimeError "masked_select: expected BoolTensor for mask"
/// (torch: `torch.masked_select`).
pub fn masked_select(input: &Tensor, mask: &Tensor) -> Result<Tensor> {
    masked_select_plan(input, mask)?.run()
}

/// `masked_select` checked and ready to run (Note [One kernel per op]): the meta step counts
/// the selected elements (the result's length).
pub fn masked_select_plan<'a>(
    input: &'a Tensor,
    mask: &'a Tensor,
) -> Result<Plan<'a, impl Kernel + 'a>> {
    if mask.dtype() != DType::Bool {
        return Err(Error::runtime(
            "masked_select: expected BoolTensor for mask",
        ));
    }
    let shape = broadcast_shapes(input.sizes(), mask.sizes())?;
    let ms = mask.broadcast_strides(&shape)?;
    let pm = mask.data_ptr::<bool>() as *const bool;
    let mut count = 0usize;
    crate::core::iter::strided_for_each(&shape, [&ms], |[m]| {
        // SAFETY: `m` comes from `mask`'s broadcast geometry over `shape`.
        count += unsafe { *pm.offset(m) } as usize;
    });
    Ok(Plan::new(
        Cow::Owned(vec![count]),
        input.dtype(),
        [Some(input), Some(mask), None],
        move |out: &Tensor, fresh: bool| {
            if !fresh {
                assert_no_overlap(out, input)?;
                assert_no_overlap(out, mask)?;
            }
            let xs = input.broadcast_strides(&shape)?;
            let so = out.strides()[0];
            crate::dispatch!(input.dtype(), T => {
                let (px, po) = (input.data_ptr::<T>() as *const T, out.data_ptr::<T>());
                let mut k = 0isize;
                crate::core::iter::strided_for_each(&shape, [&xs, &ms], |[x, m]| {
                    // SAFETY: offsets from each tensor's broadcast geometry; fewer than `count`
                    // elements are written (the mask is read-only and was counted in the meta
                    // step), each at `out`'s stride.
                    unsafe {
                        if *pm.offset(m) {
                            *po.offset(k * so) = *px.offset(x);
                            k += 1;
                        }
                    }
                });
            });
            Ok(())
        },
    ))
}

/// `take(input, index)`: the elements of the flattened `input` at the int64 positions `index`
/// (negative counts from the end), shape of `index`. Errors: RuntimeError "take(): Expected a
/// long tensor for index, but got Int"; IndexError "out of range: tried to access index 10 on a
/// tensor of 6 elements." (torch: `torch.take`).
pub fn take(input: &Tensor, index: &Tensor) -> Result<Tensor> {
    take_plan(input, index)?.run()
}

/// `take` checked and ready to run (Note [One kernel per op]).
pub fn take_plan<'a>(input: &'a Tensor, index: &'a Tensor) -> Result<Plan<'a, impl Kernel + 'a>> {
    if index.dtype() != DType::Int64 {
        return Err(Error::runtime(format!(
            "take(): Expected a long tensor for index, but got {}",
            index.dtype().scalar_type_name()
        )));
    }
    // The index values are read (and checked) first, as before any allocation: an expanded
    // index too large to copy is a MemoryError.
    let n = input.numel() as i64;
    let iv = index_values(index)?;
    if let Some(&v) = iv.iter().find(|&&v| v < -n || v >= n) {
        return Err(Error::index(format!(
            "out of range: tried to access index {v} on a tensor of {n} elements."
        )));
    }
    Ok(Plan::new(
        Cow::Borrowed(index.sizes()),
        input.dtype(),
        [Some(input), Some(index), None],
        move |out: &Tensor, _| {
            let flat = reshape(input, &[-1])?;
            crate::dispatch!(input.dtype(), T => {
                // The values are read (copied) before `out`, which may be `input`, is written.
                let vals = super::conversion::try_to_vec::<T>(&flat)?;
                let po = out.data_ptr::<T>();
                let mut k = 0usize;
                // Row-major order: the k-th position of `out` takes `index`'s k-th value.
                crate::core::iter::strided_for_each(out.sizes(), [out.strides()], |[o]| {
                    let v = iv[k];
                    k += 1;
                    // SAFETY: `o` addresses an element of `out` (its own geometry); `v` was
                    // checked to lie in `[-n, n)`.
                    unsafe { *po.offset(o) = vals[if v < 0 { v + n } else { v } as usize] };
                });
            });
            Ok(())
        },
    ))
}

// ----- nonzero --------------------------------------------------------------------------------

/// Flat (row-major) positions of the non-zero elements of `input`.
fn nonzero_flat(input: &Tensor) -> Result<Vec<usize>> {
    crate::dispatch!(input.dtype(), T => {
        let v = super::conversion::try_to_vec::<T>(input)?;
        let zero = T::default();
        let count = v.iter().filter(|&&x| x != zero).count();
        let mut out = try_vec(count, "nonzero()")?;
        out.extend(v.iter().enumerate().filter(|(_, &x)| x != zero).map(|(i, _)| i));
        Ok(out)
    })
}

/// `nonzero(input)`: int64 `[n, ndim]` indices of the non-zero elements in row-major order
/// (NaN counts as non-zero). Mirrors `torch.nonzero`.
pub fn nonzero(input: &Tensor) -> Result<Tensor> {
    let flat = nonzero_flat(input)?;
    let nd = input.dim();
    let out = Tensor::zeros(&[flat.len(), nd], DType::Int64)?;
    // SAFETY: `out` is fresh, contiguous int64, owned here.
    let o = unsafe { fresh_slice!(out, i64) };
    for (r, &f) in flat.iter().enumerate() {
        let mut rem = f;
        for k in (0..nd).rev() {
            let s = input.sizes()[k];
            o[r * nd + k] = (rem % s) as i64;
            rem /= s;
        }
    }
    Ok(out)
}

/// `nonzero(input, *, as_tuple)`: with `as_tuple`, one 1-D int64 index tensor per dim (one for
/// a 0-dim input, as torch); without, `[nonzero(input)]`.
pub fn nonzero_as_tuple(input: &Tensor, as_tuple: bool) -> Result<Vec<Tensor>> {
    let nz = nonzero(input)?;
    if !as_tuple {
        return Ok(vec![nz]);
    }
    if input.dim() == 0 {
        let n = nz.sizes()[0];
        return Ok(vec![Tensor::zeros(&[n], DType::Int64)?]);
    }
    let mut out = try_vec(input.dim(), "nonzero()")?;
    for k in 0..input.dim() {
        out.push(select(&nz, 1, k as i64)?.contiguous()?);
    }
    Ok(out)
}

/// `nonzero_static(input, *, size, fill_value=-1)`: `nonzero(input)` with exactly `size` rows:
/// the first `size` indices when there are more, the rows after the last index filled with
/// `fill_value` when there are fewer. RuntimeError "nonzero_static: 'size' must be an
/// non-negative integer". Mirrors `torch.nonzero_static`.
pub fn nonzero_static(input: &Tensor, size: i64, fill_value: i64) -> Result<Tensor> {
    if size < 0 {
        return Err(Error::runtime(
            "nonzero_static: 'size' must be an non-negative integer",
        ));
    }
    let nz = nonzero(input)?;
    let (n, nd) = (nz.sizes()[0], input.dim());
    let size = size as usize;
    let keep = n.min(size);
    let out = Tensor::full(&[size, nd], Scalar::Int(fill_value), DType::Int64)?;
    if keep > 0 && nd > 0 {
        narrow(&out, 0, 0, keep as i64)?.copy_from(&narrow(&nz, 0, 0, keep as i64)?)?;
    }
    Ok(out)
}

/// `argwhere(input)`: the `[n, ndim]` int64 indices of the non-zero elements (`nonzero`).
/// Mirrors `torch.argwhere`.
pub fn argwhere(input: &Tensor) -> Result<Tensor> {
    nonzero(input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::dtype::Element;
    use crate::core::ops::*;

    fn t<T: Element>(v: Vec<T>, s: &[usize]) -> Tensor {
        Tensor::from_vec(v, s).unwrap()
    }

    #[test]
    fn index_ops_and_errors() {
        use crate::core::error::ErrorKind;
        let x = t((0..12i64).collect(), &[3, 4]);
        let e = narrow(&x, 0, 1, 3).unwrap_err();
        assert_eq!(
            (e.kind, e.message.as_str()),
            (
                ErrorKind::Runtime,
                "start (1) + length (3) exceeds dimension size (3)."
            )
        );
        assert_eq!(narrow(&x, 0, 4, 0).unwrap_err().kind, ErrorKind::Index);
        let idx = t(vec![2i64, 0, 1, 0], &[1, 4]);
        assert_eq!(
            gather(&x, 0, &idx).unwrap().to_vec::<i64>(),
            vec![8, 1, 6, 3]
        );
        let bad = t(vec![3i64], &[1, 1]);
        assert_eq!(
            gather(&x, 0, &bad).unwrap_err().message,
            "index 3 is out of bounds for dimension 0 with size 3"
        );
        let s = scatter_value(&x, 1, &t(vec![0i64], &[1, 1]), Scalar::Int(-1)).unwrap();
        assert_eq!(s.to_vec::<i64>()[..4], [-1, 1, 2, 3]);
        let m = t(vec![1i64, 0, 0, 1], &[4]);
        assert_eq!(
            masked_fill(&x, &m, Scalar::Int(0)).unwrap_err().message,
            "masked_fill_ only supports boolean masks, but got mask with dtype long int"
        );
        let mb = t(vec![true, false, false, true], &[4]);
        assert_eq!(
            masked_select(&x, &mb).unwrap().to_vec::<i64>(),
            vec![0, 3, 4, 7, 8, 11]
        );
        let xt = x.as_strided(vec![4, 3], vec![1, 4], 0);
        assert_eq!(flip(&xt, &[0, 1]).unwrap().to_vec::<i64>()[..3], [11, 7, 3]);
        assert_eq!(
            flip(&x, &[0, -2]).unwrap_err().message,
            "dim 0 appears multiple times in the list of dims"
        );
    }
}
