//! src/core/ops/sort.rs: sorting and selection along a dim (PyTorch: `native/Sorting.cpp`,
//! the `max`/`min`/`mode` of `native/TensorCompare.cpp`, `native/Unique.cpp`) — `sort`,
//! `argsort`, `topk`, `kthvalue`, `median`, `mode`, `max`/`min` (all, along a dim, and against
//! another tensor), `aminmax`, `unique`; one sort-key order shared by all of them.

use super::try_vec;
use super::{amax, amin, argmax, argmin, clone, gather, maximum, minimum, narrow};
use crate::core::dtype::{DType, Element};
use crate::core::error::{Error, Result};
use crate::core::scalar::Scalar;
use crate::core::tensor::{maybe_wrap_dim, Tensor};

/// A `u64` whose unsigned order is torch's sort order of `v`: numbers ascending (-0.0 equal to
/// 0.0), every NaN equal to the others and above +inf; bools and integers by value. Sorting
/// keys instead of comparing `T`s with a per-dtype closure keeps one sort for every dtype.
#[inline]
pub(crate) fn sort_key<T: Element>(v: T) -> u64 {
    if T::DTYPE.is_floating_point() {
        let x = v.to_f64(); // exact for f32
        if x.is_nan() {
            return u64::MAX;
        }
        // `+ 0.0` turns -0.0 into 0.0; then flip negatives (ordered by magnitude, reversed)
        // below positives.
        let b = (x + 0.0).to_bits();
        if b >> 63 == 1 {
            !b
        } else {
            b | 1 << 63
        }
    } else {
        (v.to_i64() as u64) ^ 1 << 63
    }
}

/// Sort `(key, position)` pairs ascending. The pairs are all distinct, so this is exactly the
/// stable order of the keys (equal keys keep their positions' order), with the one
/// (unstable, faster) sort instance shared by argsort, sort, topk, kthvalue, median and mode
/// along a dim, and unique.
#[inline(never)]
pub(crate) fn stable_order(pairs: &mut [(u64, usize)]) {
    pairs.sort_unstable();
}

#[inline(always)]
fn is_nan<T: PartialOrd>(v: &T) -> bool {
    v.partial_cmp(v).is_none()
}

/// `x` (contiguous) seen as `[outer, n, inner]` around dim `d` (0-dim: all 1).
fn lanes_of(x: &Tensor, d: usize) -> (usize, usize, usize) {
    if x.dim() == 0 {
        return (1, 1, 1);
    }
    let s = x.sizes();
    (s[..d].iter().product(), s[d], s[d + 1..].iter().product())
}

/// The size of dim `d` of `x` (1 for a 0-dim tensor).
fn dim_size(x: &Tensor, d: usize) -> usize {
    if x.dim() == 0 {
        1
    } else {
        x.sizes()[d]
    }
}

/// `x`'s sizes with dim `d` removed, or set to 1 with `keepdim` (0-dim: `[]`).
fn reduced_sizes(x: &Tensor, d: usize, keepdim: bool) -> Vec<usize> {
    if x.dim() == 0 {
        return Vec::new();
    }
    let mut s = x.sizes().to_vec();
    if keepdim {
        s[d] = 1;
    } else {
        s.remove(d);
    }
    s
}

/// What `lane_reduce` picks from every lane.
#[derive(Clone, Copy)]
enum Pick {
    Max,
    Min,
    Median,
    Mode,
    /// The k-th smallest, 0-based.
    Kth(usize),
}

/// The (stable) ascending order of `lane`, NaN last, into `idx` as `(sort key, position)`
/// pairs (the positions are the `.1`s; see `sort_key`).
fn sort_lane<T: Element>(lane: &[T], idx: &mut Vec<(u64, usize)>) {
    idx.clear();
    idx.extend(lane.iter().enumerate().map(|(j, &v)| (sort_key(v), j)));
    stable_order(idx);
}

/// The position in the non-empty `lane` of the element `p` picks.
fn pick_index<T: Element>(p: Pick, lane: &[T], idx: &mut Vec<(u64, usize)>) -> usize {
    match p {
        Pick::Max | Pick::Min => {
            let max = matches!(p, Pick::Max);
            let mut best = 0;
            for i in 1..lane.len() {
                let (v, b) = (&lane[i], &lane[best]);
                if is_nan(b) {
                    break;
                }
                if is_nan(v) || (max && v > b) || (!max && v < b) {
                    best = i;
                }
            }
            best
        }
        Pick::Median => {
            if let Some(i) = lane.iter().position(is_nan) {
                return i;
            }
            sort_lane(lane, idx);
            idx[(lane.len() - 1) / 2].1
        }
        Pick::Kth(k) => {
            sort_lane(lane, idx);
            idx[k].1
        }
        Pick::Mode => {
            sort_lane(lane, idx);
            let (mut best, mut best_freq, mut freq) = (idx[0].1, 0usize, 0usize);
            for j in 0..idx.len() {
                freq += 1;
                let last = j + 1 == idx.len() || lane[idx[j].1] != lane[idx[j + 1].1];
                if last {
                    if freq > best_freq {
                        best = idx[j].1;
                        best_freq = freq;
                    }
                    freq = 0;
                }
            }
            best
        }
    }
}

/// Runs `p` over every lane of `input` along `dim`: `(values, int64 indices)` shaped as
/// `input` without `dim` (size 1 with `keepdim`).
fn lane_reduce(
    input: &Tensor,
    dim: i64,
    keepdim: bool,
    name: &str,
    p: Pick,
) -> Result<(Tensor, Tensor)> {
    let d = maybe_wrap_dim(dim, input.dim())?;
    let n = dim_size(input, d);
    if n == 0 {
        return Err(Error::index(format!(
            "{name}(): Expected reduction dim {d} to have non-zero size."
        )));
    }
    if let Pick::Kth(k) = p {
        if k >= n {
            return Err(Error::runtime(format!(
                "kthvalue(): selected number k out of range for dimension {d}"
            )));
        }
    }
    if let Pick::Max | Pick::Min = p {
        if input.dtype() != DType::Bool && input.dim() > 0 {
            // The vectorised reduction kernels: amax/amin propagate NaN, argmax/argmin pick the
            // first occurrence (the first NaN), so the pair matches a one-pass scan.
            let max = matches!(p, Pick::Max);
            let dims = [d as i64];
            return if max {
                Ok((
                    amax(input, &dims, keepdim)?,
                    argmax(input, Some(d as i64), keepdim)?,
                ))
            } else {
                Ok((
                    amin(input, &dims, keepdim)?,
                    argmin(input, Some(d as i64), keepdim)?,
                ))
            };
        }
    }
    let sizes = reduced_sizes(input, d, keepdim);
    let values = Tensor::zeros(&sizes, input.dtype())?;
    let indices = Tensor::zeros(&sizes, DType::Int64)?;
    if values.numel() == 0 {
        return Ok((values, indices));
    }
    let x = input.contiguous()?;
    let (outer, n, inner) = lanes_of(&x, d);
    // SAFETY: `indices` is fresh, contiguous int64, owned here.
    let io = unsafe { fresh_slice!(indices, i64) };
    let mut idx: Vec<(u64, usize)> = try_vec(n, name)?;
    crate::dispatch!(x.dtype(), T => {
        // SAFETY: concurrent writers of the input are excluded by Note [Concurrency contract].
        let s = unsafe { x.as_slice::<T>() }.unwrap_or(&[]);
        // SAFETY: `values` is fresh, contiguous, of the input's dtype `T`, owned here.
        let vo = unsafe { fresh_slice!(values, T) };
        let mut lane: Vec<T> = try_vec(n, name)?;
        for o in 0..outer {
            for i in 0..inner {
                let base = o * n * inner + i;
                lane.clear();
                lane.extend((0..n).map(|k| s[base + k * inner]));
                let j = pick_index(p, &lane, &mut idx);
                vo[o * inner + i] = lane[j];
                io[o * inner + i] = j as i64;
            }
        }
    });
    Ok((values, indices))
}

// ----- sort / argsort / topk ------------------------------------------------------------------

/// `sort(input, dim=-1, descending=False, *, stable=False)`: `(values, indices)` sorted along
/// `dim`, same shape as `input`; indices int64. The sort is always stable; NaN sorts above
/// every number. IndexError for `dim` out of range. Mirrors `torch.sort`.
pub fn sort(input: &Tensor, dim: i64, descending: bool, stable: bool) -> Result<(Tensor, Tensor)> {
    let idx = argsort(input, dim, descending, stable)?;
    if input.dim() == 0 {
        return Ok((clone(input)?, idx));
    }
    let d = maybe_wrap_dim(dim, input.dim())?;
    let x = input.contiguous()?;
    let (outer, n, inner) = lanes_of(&x, d);
    let values = Tensor::zeros(input.sizes(), x.dtype())?;
    crate::dispatch!(x.dtype(), T => {
        // SAFETY: concurrent writers of the input are excluded by Note [Concurrency contract];
        // `values` is a fresh contiguous tensor of `input`'s shape owned here, `idx` the fresh
        // contiguous int64 result of `argsort`.
        let (src, dst, ix) = unsafe {
            (
                x.as_slice::<T>().unwrap_or(&[]),
                std::slice::from_raw_parts_mut(values.data_ptr::<T>(), values.numel()),
                std::slice::from_raw_parts(idx.data_ptr::<i64>() as *const i64, idx.numel()),
            )
        };
        // values[.., k, ..] = x[.., idx[.., k, ..], ..] (the positions are in 0..n).
        for ob in 0..outer {
            let lane0 = ob * n * inner;
            for k in 0..n {
                let row = lane0 + k * inner;
                for i in 0..inner {
                    dst[row + i] = src[lane0 + ix[row + i] as usize * inner + i];
                }
            }
        }
    });
    Ok((values, idx))
}

/// `argsort(input, dim=-1, descending=False, *, stable=False)`: int64 indices that sort `input`
/// along `dim` (always a stable sort; NaN sorts above every number, as torch). Same shape as
/// `input`. IndexError for `dim` out of range (torch: `torch.argsort`).
pub fn argsort(input: &Tensor, dim: i64, descending: bool, stable: bool) -> Result<Tensor> {
    let _ = stable; // the sort is always stable
    let d = maybe_wrap_dim(dim, input.dim())?;
    let x = input.contiguous()?;
    let out = Tensor::zeros(input.sizes(), DType::Int64)?;
    let (outer, n, inner) = lanes_of(&x, d);
    if out.numel() == 0 {
        return Ok(out);
    }
    // SAFETY: `out` is a fresh contiguous int64 tensor owned here.
    let o = unsafe { std::slice::from_raw_parts_mut(out.data_ptr::<i64>(), out.numel()) };
    let mut idx: Vec<(u64, usize)> = Vec::new();
    idx.try_reserve_exact(n)
        .map_err(|_| Error::out_of_memory("argsort(): failed to allocate"))?;
    // Descending: complemented keys (NaN first); equal keys still keep their order (stable).
    let flip = if descending { u64::MAX } else { 0 };
    crate::dispatch!(x.dtype(), T => {
        // SAFETY: concurrent writers of the input are excluded by Note [Concurrency contract].
        let s = unsafe { x.as_slice::<T>() }.unwrap_or(&[]);
        let mut bufs = super::radix::RadixBufs::default();
        for ob in 0..outer {
            for i in 0..inner {
                let base = ob * n * inner + i;
                crate::core::interrupt::checkpoint();
                // Long lanes: the radix sort (Note [Radix argsort]), same order.
                if super::radix::argsort_lane(&mut bufs, n, descending, |j| s[base + j * inner], |k, j| {
                    o[base + k * inner] = j as i64;
                }) {
                    continue;
                }
                idx.clear();
                idx.extend((0..n).map(|j| (sort_key(s[base + j * inner]) ^ flip, j)));
                stable_order(&mut idx);
                for (k, &(_, j)) in idx.iter().enumerate() {
                    o[base + k * inner] = j as i64;
                }
            }
        }
    });
    Ok(out)
}

/// `topk(input, k, dim=-1, largest=True, sorted=True)`: `(values, indices)` of the `k` largest
/// (smallest with `largest=False`) elements along `dim`, in sorted order (also when
/// `sorted=False`); NaN counts as the largest. RuntimeError "selected index k out of range"
/// unless `0 <= k <= size`. Mirrors `torch.topk`.
pub fn topk(
    input: &Tensor,
    k: i64,
    dim: i64,
    largest: bool,
    sorted: bool,
) -> Result<(Tensor, Tensor)> {
    let _ = sorted; // results are always sorted
    let d = maybe_wrap_dim(dim, input.dim())?;
    let n = dim_size(input, d);
    if k < 0 || k as u64 > n as u64 {
        return Err(Error::runtime("selected index k out of range"));
    }
    let idx = argsort(input, dim, largest, true)?;
    if input.dim() == 0 {
        return Ok((clone(input)?, idx));
    }
    let idx = narrow(&idx, d as i64, 0, k)?.contiguous()?;
    let values = gather(input, d as i64, &idx)?;
    Ok((values, idx))
}

// ----- max / min ------------------------------------------------------------------------------

fn all_extreme(input: &Tensor, max: bool) -> Result<Tensor> {
    let name = if max { "max" } else { "min" };
    if input.numel() == 0 {
        return Err(Error::runtime(format!(
            "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
        )));
    }
    if max {
        amax(input, &[], false)
    } else {
        amin(input, &[], false)
    }
}

/// `max(input)`: the largest element, a 0-dim tensor of the input's dtype (NaN if any element
/// is NaN). RuntimeError for an empty input (torch's text). Mirrors `torch.max(input)`.
pub fn max(input: &Tensor) -> Result<Tensor> {
    all_extreme(input, true)
}

/// `min(input)`: the smallest element; otherwise as `max`.
pub fn min(input: &Tensor) -> Result<Tensor> {
    all_extreme(input, false)
}

/// `max(input, dim, keepdim=False)`: `(values, indices)` of the maximum along `dim`; values
/// keep the input's dtype, indices are int64 (the first occurrence wins ties; the first NaN
/// wins over everything). Shape: `input`'s without `dim` (size 1 with `keepdim`).
/// Errors: IndexError for `dim` out of range or an empty `dim` ("max(): Expected reduction dim
/// 0 to have non-zero size."). Mirrors `torch.max(input, dim)`.
pub fn max_dim(input: &Tensor, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    lane_reduce(input, dim, keepdim, "max", Pick::Max)
}

/// `min(input, dim, keepdim=False)`: as `max_dim`, for the minimum.
pub fn min_dim(input: &Tensor, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    lane_reduce(input, dim, keepdim, "min", Pick::Min)
}

/// `max(input, other)`: the elementwise maximum, as `maximum`.
pub fn max_other(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    maximum(input, other)
}

/// `min(input, other)`: the elementwise minimum, as `minimum`.
pub fn min_other(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    minimum(input, other)
}

// ----- median / mode / kthvalue ---------------------------------------------------------------

/// `median(input)`: the lower median of every element (the element of rank `(n - 1) / 2`), a
/// 0-dim tensor of the input's dtype; NaN if any element is NaN, NaN for an empty float input.
/// RuntimeError "median() input tensor cannot be empty" for an empty non-float input.
pub fn median(input: &Tensor) -> Result<Tensor> {
    crate::dispatch!(input.dtype(), T => {
        let mut v = super::conversion::try_to_vec::<T>(input)?;
        if v.is_empty() {
            if input.dtype().is_floating_point() {
                return Tensor::scalar_tensor(Scalar::Float(f64::NAN), input.dtype());
            }
            return Err(Error::runtime("median() input tensor cannot be empty"));
        }
        if let Some(nan) = v.iter().copied().find(|x| x.partial_cmp(x).is_none()) {
            return Tensor::from_vec(vec![nan], &[]);
        }
        let k = (v.len() - 1) / 2;
        v.select_nth_unstable_by(k, |a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        Tensor::from_vec(vec![v[k]], &[])
    })
}

/// `median(input, dim, keepdim=False)`: `(values, indices)` of the lower median along `dim`
/// (the element of rank `(n - 1) / 2`); a lane holding NaN gives NaN and the first NaN's index.
/// Errors as `max_dim` ("median(): ..."). Mirrors `torch.median(input, dim)`.
pub fn median_dim(input: &Tensor, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    lane_reduce(input, dim, keepdim, "median", Pick::Median)
}

/// `mode(input, dim=-1, keepdim=False)`: `(values, indices)` of the most frequent value along
/// `dim` (the smallest such value on a tie of counts; the index of its last occurrence, as
/// torch's CPU kernel gives). Errors as `max_dim`. Mirrors `torch.mode`.
pub fn mode(input: &Tensor, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    lane_reduce(input, dim, keepdim, "mode", Pick::Mode)
}

/// `kthvalue(input, k, dim=-1, keepdim=False)`: `(values, indices)` of the k-th smallest
/// element (1-based) along `dim` (NaN counts as the largest). RuntimeError
/// "kthvalue(): selected number k out of range for dimension D" unless `1 <= k <= size`.
/// Mirrors `torch.kthvalue`.
pub fn kthvalue(input: &Tensor, k: i64, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    let d = maybe_wrap_dim(dim, input.dim())?;
    let n = dim_size(input, d);
    if n != 0 && (k < 1 || k as u64 > n as u64) {
        return Err(Error::runtime(format!(
            "kthvalue(): selected number k out of range for dimension {d}"
        )));
    }
    let k0 = if k >= 1 { (k - 1) as usize } else { 0 };
    lane_reduce(input, dim, keepdim, "kthvalue", Pick::Kth(k0))
}

// ----- aminmax --------------------------------------------------------------------------------

/// `aminmax(input, *, dim=None, keepdim=False)`: `(min, max)` over `dim`, or over every element
/// when `dim` is `None` (then `keepdim` gives every dim size 1). Errors: RuntimeError for an
/// empty input without `dim`, IndexError for an empty `dim` or `dim` out of range. Mirrors
/// `torch.aminmax`.
pub fn aminmax(input: &Tensor, dim: Option<i64>, keepdim: bool) -> Result<(Tensor, Tensor)> {
    match dim {
        None => {
            if input.numel() == 0 {
                return Err(Error::runtime(
                    "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.",
                ));
            }
            Ok((amin(input, &[], keepdim)?, amax(input, &[], keepdim)?))
        }
        Some(dm) => {
            let d = maybe_wrap_dim(dm, input.dim())?;
            if dim_size(input, d) == 0 {
                return Err(Error::index(format!(
                    "aminmax(): Expected reduction dim {d} to have non-zero size."
                )));
            }
            if input.dim() == 0 {
                return Ok((clone(input)?, clone(input)?));
            }
            Ok((
                amin(input, &[d as i64], keepdim)?,
                amax(input, &[d as i64], keepdim)?,
            ))
        }
    }
}

// ----- unique ---------------------------------------------------------------------------------

/// `unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None)`: the
/// sorted distinct elements (1-D, input dtype; always sorted), then with `return_inverse` the
/// int64 position of every input element in it (input's shape), then with `return_counts` the
/// int64 count of each distinct element. Each NaN is distinct. NotImplementedError for `dim`.
/// Mirrors `torch.unique` (`torch._unique2`).
pub fn unique(
    input: &Tensor,
    sorted: bool,
    return_inverse: bool,
    return_counts: bool,
    dim: Option<i64>,
) -> Result<Vec<Tensor>> {
    let _ = sorted; // always sorted
    if let Some(d) = dim {
        return unique_dim(input, d, return_inverse, return_counts);
    }
    crate::dispatch!(input.dtype(), T => {
        let v = super::conversion::try_to_vec::<T>(input)?;
        let mut idx: Vec<(u64, usize)> = try_vec(v.len(), "unique()")?;
        sort_lane(&v, &mut idx);
        let inverse = Tensor::zeros(input.sizes(), DType::Int64)?;
        // SAFETY: `inverse` is fresh, contiguous int64, owned here.
        let inv = unsafe { fresh_slice!(inverse, i64) };
        let mut vals: Vec<T> = Vec::new();
        let mut counts: Vec<i64> = Vec::new();
        for &(_, j) in &idx {
            match vals.last() {
                Some(last) if *last == v[j] => {}
                _ => {
                    vals.try_reserve(1).map_err(|_| Error::out_of_memory("unique(): failed to allocate"))?;
                    counts.try_reserve(1).map_err(|_| Error::out_of_memory("unique(): failed to allocate"))?;
                    vals.push(v[j]);
                    counts.push(0);
                }
            }
            let g = vals.len() - 1;
            counts[g] += 1;
            inv[j] = g as i64;
        }
        let n = vals.len();
        let mut out = vec![Tensor::from_vec(vals, &[n])?];
        if return_inverse {
            out.push(inverse);
        }
        if return_counts {
            out.push(Tensor::from_vec(counts, &[n])?);
        }
        Ok(out)
    })
}

/// `unique(input, dim=d)`: the distinct slices of `input` along `d` in lexicographic order
/// (torch's `unique_dim`, which always sorts), with the group of each slice (`inverse`, length
/// `input.size(d)`) and the size of each group (`counts`) when asked. Slices compare elementwise
/// as f64 (floats) or i64 (integers and bool): one generic path, not one per dtype; a NaN makes
/// its slice distinct from every other. A size-0 `d` gives an empty result (RuntimeError "Number
/// of zero sized dimensions is more than one, so unique cannot be applied " when another dim is
/// 0 too); a size-0 other dim: RuntimeError "There are 0 sized dimensions, and they aren't
/// selected, so unique cannot be applied". IndexError for `d` out of range.
fn unique_dim(
    input: &Tensor,
    dim: i64,
    return_inverse: bool,
    return_counts: bool,
) -> Result<Vec<Tensor>> {
    let d = maybe_wrap_dim(dim, input.dim())?;
    let n = input.sizes()[d];
    let finish = |out: Tensor, inverse: Tensor, counts: Tensor| {
        let mut r = vec![out];
        if return_inverse {
            r.push(inverse);
        }
        if return_counts {
            r.push(counts);
        }
        r
    };
    if n == 0 {
        if input.sizes().iter().filter(|&&s| s == 0).count() > 1 {
            return Err(Error::runtime(
                "Number of zero sized dimensions is more than one, so unique cannot be applied ",
            ));
        }
        let empty = || Tensor::zeros(&[0], DType::Int64);
        return Ok(finish(input.clone_data()?, empty()?, empty()?));
    }
    if input.numel() == 0 {
        return Err(Error::runtime(
            "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied",
        ));
    }
    // The slices as rows of an [n, m] matrix.
    let moved = super::movedim(input, d as i64, 0)?;
    let moved_sizes = moved.sizes().to_vec();
    let m = input.numel() / n;
    let flat = super::reshape(&moved.contiguous()?, &[n as i64, m as i64])?;
    let rows_equal: Box<dyn Fn(usize, usize) -> bool>;
    let order: Vec<usize>;
    if input.dtype().is_floating_point() {
        let v = flat.to_f64_vec();
        let mut idx: Vec<usize> = (0..n).collect();
        idx.sort_by(|&a, &b| {
            v[a * m..(a + 1) * m]
                .iter()
                .zip(&v[b * m..(b + 1) * m])
                .map(|(x, y)| x.partial_cmp(y).unwrap_or(std::cmp::Ordering::Equal))
                .find(|o| o.is_ne())
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        order = idx;
        rows_equal = Box::new(move |a, b| v[a * m..(a + 1) * m] == v[b * m..(b + 1) * m]);
    } else {
        let v = flat.to_dtype(DType::Int64)?.to_vec::<i64>();
        let mut idx: Vec<usize> = (0..n).collect();
        idx.sort_by(|&a, &b| v[a * m..(a + 1) * m].cmp(&v[b * m..(b + 1) * m]));
        order = idx;
        rows_equal = Box::new(move |a, b| v[a * m..(a + 1) * m] == v[b * m..(b + 1) * m]);
    }
    let mut firsts: Vec<i64> = Vec::new();
    let mut counts: Vec<i64> = Vec::new();
    let mut inverse = vec![0i64; n];
    for (pos, &r) in order.iter().enumerate() {
        if pos == 0 || !rows_equal(order[pos - 1], r) {
            firsts.push(r as i64);
            counts.push(0);
        }
        *counts.last_mut().expect("a group was opened") += 1;
        inverse[r] = firsts.len() as i64 - 1;
    }
    let k = firsts.len();
    let picked = super::index_select(&flat, 0, &Tensor::from_vec(firsts, &[k])?)?;
    let mut sizes: Vec<i64> = moved_sizes.iter().map(|&s| s as i64).collect();
    sizes[0] = k as i64;
    let out = super::movedim(&super::reshape(&picked, &sizes)?, 0, d as i64)?.contiguous()?;
    Ok(finish(
        out,
        Tensor::from_vec(inverse, &[n])?,
        Tensor::from_vec(counts, &[k])?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32t(v: &[f32], s: &[usize]) -> Tensor {
        Tensor::from_vec(v.to_vec(), s).unwrap()
    }

    #[test]
    fn max_min_dim() {
        let x = f32t(&[1., 3., 3., 0., -1., 2.], &[2, 3]);
        let (v, i) = max_dim(&x, 1, false).unwrap();
        assert_eq!(v.to_vec::<f32>(), vec![3., 2.]);
        assert_eq!(i.to_vec::<i64>(), vec![1, 2]);
        let (v, i) = min_dim(&x, 0, true).unwrap();
        assert_eq!(v.sizes(), &[1, 3]);
        assert_eq!(v.to_vec::<f32>(), vec![0., -1., 2.]);
        assert_eq!(i.to_vec::<i64>(), vec![1, 1, 1]);
        let y = f32t(&[1., f32::NAN, 5., f32::NAN], &[4]);
        let (v, i) = max_dim(&y, 0, false).unwrap();
        assert!(v.to_vec::<f32>()[0].is_nan());
        assert_eq!(i.to_vec::<i64>(), vec![1]);
        // non-contiguous input
        let t = x.as_strided(vec![3, 2], vec![1, 3], 0);
        let (v, i) = max_dim(&t, 1, false).unwrap();
        assert_eq!(v.to_vec::<f32>(), vec![1., 3., 3.]);
        assert_eq!(i.to_vec::<i64>(), vec![0, 0, 0]);
        let e = Tensor::zeros(&[0, 2], DType::Float32).unwrap();
        assert!(max_dim(&e, 0, false).is_err());
        assert_eq!(max_dim(&e, 1, false).unwrap().0.sizes(), &[0]);
        assert!(max(&e).is_err());
    }

    #[test]
    fn median_mode_kth() {
        let x = f32t(&[4., 1., 3., 2.], &[4]);
        let (v, i) = median_dim(&x, 0, false).unwrap();
        assert_eq!((v.to_vec::<f32>(), i.to_vec::<i64>()), (vec![2.], vec![3]));
        let (v, i) = kthvalue(&x, 3, 0, false).unwrap();
        assert_eq!((v.to_vec::<f32>(), i.to_vec::<i64>()), (vec![3.], vec![2]));
        assert!(kthvalue(&x, 5, 0, false).is_err());
        assert!(kthvalue(&x, 0, 0, false).is_err());
        let m = Tensor::from_vec(vec![1i64, 2, 2, 3, 3], &[5]).unwrap();
        let (v, i) = mode(&m, 0, false).unwrap();
        assert_eq!((v.to_vec::<i64>(), i.to_vec::<i64>()), (vec![2], vec![2]));
    }

    #[test]
    fn sort_topk() {
        let x = f32t(&[3., 1., 2., 5.], &[4]);
        let (v, i) = sort(&x, -1, true, false).unwrap();
        assert_eq!(v.to_vec::<f32>(), vec![5., 3., 2., 1.]);
        assert_eq!(i.to_vec::<i64>(), vec![3, 0, 2, 1]);
        let (v, i) = topk(&x, 2, 0, false, true).unwrap();
        assert_eq!(v.to_vec::<f32>(), vec![1., 2.]);
        assert_eq!(i.to_vec::<i64>(), vec![1, 2]);
        assert!(topk(&x, 5, 0, true, true).is_err());
    }
}
