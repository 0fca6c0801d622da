//! src/core/ops/stats.rs: scans with an index, searching, counting and binning — `cummax`,
//! `cummin`, `logcumsumexp`, `searchsorted`, `bucketize`, `isin`, `bincount`, `histc`,
//! `unique_consecutive` (PyTorch: `native/ReduceOps.cpp`'s cummax/cummin helpers,
//! `native/Bucketization.cpp`, `native/TensorCompare.cpp`'s isin, `native/SummaryOps.cpp`,
//! `native/Histogram.cpp`, `native/Unique.cpp`). None of them records a history itself:
//! src/derivatives.yaml says which are recorded by src/core/autograd and which are not
//! differentiable.

use super::arith::not_implemented;
use crate::core::dtype::{DType, Element};
use crate::core::error::{Error, Result};
use crate::core::scalar::Scalar;
use crate::core::tensor::{maybe_wrap_dim, Tensor};

/// `[outer, n, inner]` around dim `d` of a shape (a 0-dim shape: all 1).
fn split_at_dim(sizes: &[usize], d: usize) -> (usize, usize, usize) {
    if sizes.is_empty() {
        return (1, 1, 1);
    }
    (
        sizes[..d].iter().product(),
        sizes[d],
        sizes[d + 1..].iter().product(),
    )
}

/// torch's `IntArrayRef` printing: `[2, 3]`.
fn fmt_sizes(s: &[usize]) -> String {
    let v: Vec<String> = s.iter().map(|x| x.to_string()).collect();
    format!("[{}]", v.join(", "))
}

/// torch's `scalar_to_tensor`: a 0-dim tensor holding a Python number exactly (float64 for a
/// float, int64 for an int, bool for a bool).
fn scalar_to_tensor(s: Scalar) -> Result<Tensor> {
    let dt = match s {
        Scalar::Float(_) => DType::Float64,
        _ => s.default_dtype(),
    };
    Tensor::scalar_tensor(s, dt)
}

// ---- cummax, cummin, logcumsumexp -----------------------------------------------------------

/// The running maximum (`max`) or minimum along `dim` and the index where it was reached: a
/// later equal value moves the index (torch's `>=` / `<=`), and NaN, once met, stays (each new
/// NaN moves the index).
fn cum_extreme(input: &Tensor, dim: i64, max: bool) -> Result<(Tensor, Tensor)> {
    let d = if input.dim() == 0 {
        maybe_wrap_dim(dim, 1)?;
        0
    } else {
        maybe_wrap_dim(dim, input.dim())?
    };
    let (outer, n, inner) = split_at_dim(input.sizes(), d);
    let mut idx = super::try_vec::<i64>(input.numel(), "cummax")?;
    idx.resize(input.numel(), 0);
    let values = crate::dispatch!(input.dtype(), T => {
        let mut v = input.to_vec::<T>();
        #[allow(clippy::eq_op)]
        let is_nan = |x: T| x != x;
        for o in 0..outer {
            for i in 0..inner {
                let base = o * n * inner + i;
                if n == 0 {
                    continue;
                }
                let mut best = v[base];
                let mut bi = 0i64;
                for k in 0..n {
                    let p = base + k * inner;
                    let x = v[p];
                    let better = if max { x >= best } else { x <= best };
                    if is_nan(x) || (!is_nan(best) && better) {
                        best = x;
                        bi = k as i64;
                    }
                    v[p] = best;
                    idx[p] = bi;
                }
            }
        }
        Tensor::from_vec(v, input.sizes())?
    });
    Ok((values, Tensor::from_vec(idx, input.sizes())?))
}

/// `cummax(input, dim)`: the running maximum along `dim` and its index, as
/// `(values, indices)` (int64 indices; the last of equal maxima; NaN propagates). IndexError for
/// `dim` out of range. Mirrors `torch.cummax`.
pub fn cummax(input: &Tensor, dim: i64) -> Result<(Tensor, Tensor)> {
    cum_extreme(input, dim, true)
}

/// `cummin(input, dim)`: the running minimum along `dim` and its index; as `cummax`. Mirrors
/// `torch.cummin`.
pub fn cummin(input: &Tensor, dim: i64) -> Result<(Tensor, Tensor)> {
    cum_extreme(input, dim, false)
}

/// torch's `_log_add_exp_helper`: `log(exp(a) + exp(b))` without overflow; two equal infinities
/// give that infinity, NaN propagates.
fn log_add_exp(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    if lo != hi || lo.is_finite() {
        hi + (lo - hi).exp().ln_1p()
    } else {
        a
    }
}

/// `logcumsumexp(input, dim)`: `log(cumsum(exp(input), dim))` computed without overflow (a
/// running `logaddexp`, accumulated in double). Float dtypes only: NotImplementedError
/// `"logcumsumexp_out_cpu" not implemented for 'Long'`. Mirrors `torch.logcumsumexp`.
pub fn logcumsumexp(input: &Tensor, dim: i64) -> Result<Tensor> {
    if !input.dtype().is_floating_point() {
        return Err(not_implemented("logcumsumexp_out_cpu", input.dtype()));
    }
    let d = if input.dim() == 0 {
        maybe_wrap_dim(dim, 1)?;
        0
    } else {
        maybe_wrap_dim(dim, input.dim())?
    };
    let (outer, n, inner) = split_at_dim(input.sizes(), d);
    let mut v = input.to_f64_vec();
    for o in 0..outer {
        for i in 0..inner {
            let base = o * n * inner + i;
            let mut acc = f64::NEG_INFINITY;
            for k in 0..n {
                let p = base + k * inner;
                acc = log_add_exp(acc, v[p]);
                v[p] = acc;
            }
        }
    }
    Tensor::from_vec(v, input.sizes())?.to_dtype(input.dtype())
}

// ---- searchsorted, bucketize, isin ----------------------------------------------------------

/// Values of a tensor as keys that compare in the common dtype of two tensors: floats as `f64`
/// when either is a float dtype, else integers as `i64`.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
enum Key {
    F(f64),
    I(i64),
}

fn keys(t: &Tensor, float: bool) -> Vec<Key> {
    if float {
        t.to_f64_vec().into_iter().map(Key::F).collect()
    } else {
        crate::dispatch!(t.dtype(), T => t.to_vec::<T>().into_iter().map(|x| Key::I(x.to_i64())).collect())
    }
}

/// torch's `cus_lower_bound` (`right` false) / `cus_upper_bound`: the first position whose
/// value is not below (not above) `val`, over `n` values read through `at`. NaN compares false,
/// as in torch, so it moves the search right.
fn bound(n: usize, val: Key, right: bool, at: impl Fn(usize) -> Key) -> usize {
    let (mut start, mut end) = (0usize, n);
    while start < end {
        let mid = start + ((end - start) >> 1);
        let m = at(mid);
        // Negated on purpose: a NaN compares false and moves the search right, as torch's.
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        let go_right = if right { !(m > val) } else { !(m >= val) };
        if go_right {
            start = mid + 1;
        } else {
            end = mid;
        }
    }
    start
}

/// `searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
/// sorter=None)`: for each value of `input`, the index where it would be inserted into the
/// innermost dim of `sorted_sequence` to keep it sorted — the first such index (`side='left'`)
/// or the last (`right=True` or `side='right'`). `sorted_sequence` is 1-D or has `input`'s
/// leading dims; `sorter` (int64, its shape) sorts an unsorted sequence. int64 result (int32 with
/// `out_int32`), `input`'s shape. RuntimeErrors in torch's words. Mirrors `torch.searchsorted`.
pub fn searchsorted(
    sorted_sequence: &Tensor,
    input: &Tensor,
    out_int32: bool,
    right: bool,
    side: Option<&str>,
    sorter: Option<&Tensor>,
) -> Result<Tensor> {
    search_checks(sorted_sequence, input, right, side, sorter)?;
    let right = right || side == Some("right");
    let boundaries = sorted_sequence;
    let float = boundaries.dtype().is_floating_point() || input.dtype().is_floating_point();
    let b = keys(boundaries, float);
    let vals = keys(input, float);
    let m = boundaries.sizes()[boundaries.dim() - 1];
    let order: Option<Vec<i64>> = sorter.map(|s| s.to_vec::<i64>());
    if let Some(o) = &order {
        if o.iter().any(|&i| i < 0 || i as u64 >= m as u64) {
            return Err(Error::runtime(
                "torch.searchsorted(): sorter index out of range",
            ));
        }
    }
    // Values per row of `boundaries` (all of them when it is 1-D).
    let k = if boundaries.dim() == 1 {
        vals.len().max(1)
    } else {
        input.sizes()[input.dim() - 1].max(1)
    };
    let mut out: Vec<i64> = super::try_vec(vals.len(), "searchsorted")?;
    for (j, &v) in vals.iter().enumerate() {
        let row = if boundaries.dim() == 1 { 0 } else { j / k };
        let base = row * m;
        let pos = match &order {
            Some(o) => bound(m, v, right, |i| b[base + o[base + i] as usize]),
            None => bound(m, v, right, |i| b[base + i]),
        };
        out.push(pos as i64);
    }
    let t = Tensor::from_vec(out, input.sizes())?;
    if out_int32 {
        t.to_dtype(DType::Int32)
    } else {
        Ok(t)
    }
}

/// torch's `searchsorted_pre_check`, in its order.
fn search_checks(
    boundaries: &Tensor,
    input: &Tensor,
    right: bool,
    side: Option<&str>,
    sorter: Option<&Tensor>,
) -> Result<()> {
    if let Some(s) = side {
        if s != "left" && s != "right" {
            return Err(Error::runtime(format!(
                "torch.searchsorted(): side can only be 'left' or 'right' but got {s}"
            )));
        }
        if right && s == "left" {
            return Err(Error::runtime(format!(
                "torch.searchsorted(): side and right can't be set to opposites, got side of {s} while right was True"
            )));
        }
    }
    if let Some(s) = sorter {
        if s.sizes() != boundaries.sizes() {
            return Err(Error::runtime(format!(
                "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor {}and got sorter tensor {}",
                fmt_sizes(boundaries.sizes()),
                fmt_sizes(s.sizes())
            )));
        }
        if s.dtype() != DType::Int64 {
            return Err(Error::runtime(format!(
                "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype {}",
                s.dtype().scalar_type_name()
            )));
        }
    }
    if input.dim() == 0 && boundaries.dim() != 1 {
        return Err(Error::runtime(format!(
            "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is 1, but we got boundaries tensor dim({}) and input value's dim({}) numel({})",
            boundaries.dim(),
            input.dim(),
            input.numel()
        )));
    }
    if boundaries.dim() == 0 {
        return Err(Error::runtime(
            "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension",
        ));
    }
    let (bs, is) = (boundaries.sizes(), input.sizes());
    let matched = bs.len() == is.len() && bs[..bs.len() - 1] == is[..is.len() - 1];
    if boundaries.dim() != 1 && !matched {
        return Err(Error::runtime(format!(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input value tensor must match, but we got boundaries tensor {} and input value tensor {}",
            fmt_sizes(bs),
            fmt_sizes(is)
        )));
    }
    Ok(())
}

/// `searchsorted(sorted_sequence, value)` for a Python number: a 0-dim result.
pub fn searchsorted_scalar(
    sorted_sequence: &Tensor,
    value: Scalar,
    out_int32: bool,
    right: bool,
    side: Option<&str>,
    sorter: Option<&Tensor>,
) -> Result<Tensor> {
    let v = scalar_to_tensor(value)?;
    searchsorted(sorted_sequence, &v, out_int32, right, side, sorter)
}

/// `bucketize(input, boundaries, *, out_int32=False, right=False)`: the index of the bucket of
/// each value, `searchsorted(boundaries, input, right=right)` over 1-D `boundaries`
/// (RuntimeError "boundaries tensor must be 1 dimension, but got dim(2)"). Mirrors
/// `torch.bucketize`.
pub fn bucketize(
    input: &Tensor,
    boundaries: &Tensor,
    out_int32: bool,
    right: bool,
) -> Result<Tensor> {
    if boundaries.dim() != 1 {
        return Err(Error::runtime(format!(
            "boundaries tensor must be 1 dimension, but got dim({})",
            boundaries.dim()
        )));
    }
    searchsorted(boundaries, input, out_int32, right, None, None)
}

/// `bucketize(value, boundaries)` for a Python number: a 0-dim result.
pub fn bucketize_scalar(
    value: Scalar,
    boundaries: &Tensor,
    out_int32: bool,
    right: bool,
) -> Result<Tensor> {
    let v = scalar_to_tensor(value)?;
    bucketize(&v, boundaries, out_int32, right)
}

/// `isin(elements, test_elements, *, assume_unique=False, invert=False)`: a bool tensor of
/// `elements`' shape, True where the element equals one of `test_elements` (compared in their
/// common dtype; NaN matches nothing), negated with `invert`. `assume_unique` only allows a
/// faster path in torch. NotImplementedError "Unsupported input type encountered for isin():
/// Bool" for bool operands. Mirrors `torch.isin`.
pub fn isin(
    elements: &Tensor,
    test_elements: &Tensor,
    assume_unique: bool,
    invert: bool,
) -> Result<Tensor> {
    let _ = assume_unique; // a hint for torch's sort-based path; the answer is the same
    if elements.dtype() == DType::Bool || test_elements.dtype() == DType::Bool {
        return Err(Error::not_implemented(
            "Unsupported input type encountered for isin(): Bool",
        ));
    }
    let float = elements.dtype().is_floating_point() || test_elements.dtype().is_floating_point();
    let mut test = keys(test_elements, float);
    test.retain(|k| !matches!(k, Key::F(f) if f.is_nan()));
    test.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let out: Vec<bool> = keys(elements, float)
        .into_iter()
        .map(|e| {
            let p = bound(test.len(), e, false, |i| test[i]);
            (p < test.len() && test[p] == e) != invert
        })
        .collect();
    Tensor::from_vec(out, elements.sizes())
}

/// `isin(elements, test_element)` for one Python number.
pub fn isin_tensor_scalar(
    elements: &Tensor,
    test_element: Scalar,
    assume_unique: bool,
    invert: bool,
) -> Result<Tensor> {
    let t = scalar_to_tensor(test_element)?;
    isin(elements, &t, assume_unique, invert)
}

/// `isin(element, test_elements)` for one Python number: a 0-dim bool tensor.
pub fn isin_scalar_tensor(
    element: Scalar,
    test_elements: &Tensor,
    assume_unique: bool,
    invert: bool,
) -> Result<Tensor> {
    let t = scalar_to_tensor(element)?;
    isin(&t, test_elements, assume_unique, invert)
}

// ---- bincount, histc ------------------------------------------------------------------------

/// `bincount(input, weights=None, minlength=0)`: the number of occurrences of each value of the
/// 1-D non-negative integer `input` (int64), or the sums of `weights` per value (float32 for
/// float32 weights, else float64), `max(input) + 1` or `minlength` long. Errors in torch's
/// words and order (NotImplementedError `"bincount_cpu" not implemented for 'Float'`).
/// Mirrors `torch.bincount`.
pub fn bincount(input: &Tensor, weights: Option<&Tensor>, minlength: i64) -> Result<Tensor> {
    let dt = input.dtype();
    if dt.is_floating_point() || dt == DType::Bool {
        return Err(not_implemented("bincount_cpu", dt));
    }
    if minlength < 0 {
        return Err(Error::runtime("minlength should be >= 0"));
    }
    let out_dtype = match weights {
        None => DType::Int64,
        Some(w) if w.dtype() == DType::Float32 => DType::Float32,
        Some(_) => DType::Float64,
    };
    if input.dim() == 1 && input.numel() == 0 {
        // torch: int64 zeros here even with weights.
        return Tensor::zeros(&[minlength as usize], DType::Int64);
    }
    let vals: Vec<i64> =
        crate::dispatch!(dt, T => input.to_vec::<T>().into_iter().map(|x| x.to_i64()).collect());
    if input.dim() != 1 || vals.iter().any(|&v| v < 0) {
        return Err(Error::runtime(
            "bincount only supports 1-d non-negative integral inputs.",
        ));
    }
    if let Some(w) = weights {
        if w.dim() != 1 || w.sizes()[0] != input.sizes()[0] {
            return Err(Error::runtime(
                "weights should be 1-d and have the same length as input",
            ));
        }
    }
    let len = (vals.iter().copied().max().unwrap_or(-1) + 1).max(minlength) as usize;
    match weights {
        None => {
            let mut counts: Vec<i64> = super::try_vec(len, "bincount")?;
            counts.resize(len, 0);
            for &v in &vals {
                counts[v as usize] += 1;
            }
            Tensor::from_vec(counts, &[len])
        }
        Some(w) => {
            let mut sums: Vec<f64> = super::try_vec(len, "bincount")?;
            sums.resize(len, 0.0);
            for (&v, x) in vals.iter().zip(w.to_f64_vec()) {
                sums[v as usize] += x;
            }
            Tensor::from_vec(sums, &[len])?.to_dtype(out_dtype)
        }
    }
}

/// C++'s printing of a double in an error message (`1`, `0.5`, `inf`, `-nan`).
fn fmt_c(x: f64) -> String {
    if x.is_nan() {
        "-nan".to_string()
    } else {
        format!("{x}")
    }
}

/// `histc(input, bins=100, min=0, max=0)`: the histogram of `input`'s elements over `bins`
/// equal bins spanning `[min, max]` (the data's range when `min == max`, widened by 1 on each
/// side when that range is one point); elements outside (and NaN) are ignored, `max` falls in
/// the last bin. Float dtypes only, result of `input`'s dtype. Mirrors `torch.histc`.
pub fn histc(input: &Tensor, bins: i64, min: Scalar, max: Scalar) -> Result<Tensor> {
    let dt = input.dtype();
    if !dt.is_floating_point() {
        return Err(not_implemented("histogram_cpu", dt));
    }
    if bins <= 0 {
        return Err(Error::runtime(format!(
            "torch.histogram(): bins must be > 0, but got {bins} for dimension 0"
        )));
    }
    let round = |x: f64| -> f64 {
        if dt == DType::Float32 {
            x as f32 as f64
        } else {
            x
        }
    };
    let vals = input.to_f64_vec();
    let (mut lo, mut hi) = (round(min.to_f64()), round(max.to_f64()));
    if lo == hi && !vals.is_empty() {
        // aminmax: NaN propagates.
        lo = vals.iter().copied().fold(f64::INFINITY, |a, b| {
            if b.is_nan() || a.is_nan() {
                f64::NAN
            } else {
                a.min(b)
            }
        });
        hi = vals.iter().copied().fold(f64::NEG_INFINITY, |a, b| {
            if b.is_nan() || a.is_nan() {
                f64::NAN
            } else {
                a.max(b)
            }
        });
    }
    if lo == hi {
        lo -= 1.0;
        hi += 1.0;
    }
    if lo > hi {
        return Err(Error::runtime("torch.histc: max must be larger than min"));
    }
    if !(lo.is_finite() && hi.is_finite()) {
        return Err(Error::runtime(format!(
            "torch.histc: range of [{}, {}] is not finite",
            fmt_c(lo),
            fmt_c(hi)
        )));
    }
    let nb = bins as usize;
    let mut hist: Vec<f64> = super::try_vec(nb, "histc")?;
    hist.resize(nb, 0.0);
    for &x in &vals {
        if !(x >= lo && x <= hi) {
            continue;
        }
        let mut pos = round(round(round(x - lo) * bins as f64) / round(hi - lo)) as usize;
        if pos >= nb {
            pos = nb - 1;
        }
        hist[pos] += 1.0;
    }
    Tensor::from_vec(hist, &[nb])?.to_dtype(dt)
}

// ---- unique_consecutive ---------------------------------------------------------------------

/// `unique_consecutive(input, return_inverse=False, return_counts=False, dim=None)`: the input
/// with each run of equal consecutive elements (slices along `dim`, when given) kept once, then
/// the inverse indices (input's shape, or `[size(dim)]`) and the run lengths when asked for
/// (int64). Without `dim` the input is flattened (a 0-dim input gives shape `[1]`). Mirrors
/// `torch.unique_consecutive`.
pub fn unique_consecutive(
    input: &Tensor,
    return_inverse: bool,
    return_counts: bool,
    dim: Option<i64>,
) -> Result<Vec<Tensor>> {
    let (outer, n, inner, d) = match dim {
        None => (1, input.numel(), 1, None),
        Some(dm) => {
            let d = if input.dim() == 0 {
                maybe_wrap_dim(dm, 1)?;
                0
            } else {
                maybe_wrap_dim(dm, input.dim())?
            };
            let (o, n, i) = split_at_dim(input.sizes(), d);
            (o, n, i, Some(d))
        }
    };
    let mut keep: Vec<usize> = Vec::new();
    let mut inverse: Vec<i64> = super::try_vec(n, "unique_consecutive")?;
    let mut counts: Vec<i64> = Vec::new();
    let kept = crate::dispatch!(input.dtype(), T => {
        let v = input.to_vec::<T>();
        // Slice `k` along the dim equals slice `j`: every element compares equal (NaN never does).
        let same = |j: usize, k: usize| {
            (0..outer).all(|o| (0..inner).all(|i| v[(o * n + j) * inner + i] == v[(o * n + k) * inner + i]))
        };
        for k in 0..n {
            if keep.last().is_none_or(|&j| !same(j, k)) {
                keep.push(k);
                counts.push(0);
            }
            *counts.last_mut().expect("a run was pushed") += 1;
            inverse.push(keep.len() as i64 - 1);
        }
        let mut out: Vec<T> = super::try_vec(outer * keep.len() * inner, "unique_consecutive")?;
        for o in 0..outer {
            for &k in &keep {
                out.extend_from_slice(&v[(o * n + k) * inner..(o * n + k + 1) * inner]);
            }
        }
        let shape: Vec<usize> = match d {
            None => vec![keep.len()],
            Some(d) if input.dim() == 0 => { let _ = d; vec![keep.len()] }
            Some(d) => { let mut s = input.sizes().to_vec(); s[d] = keep.len(); s }
        };
        Tensor::from_vec(out, &shape)?
    });
    let mut res = vec![kept];
    if return_inverse {
        let shape: Vec<usize> = match d {
            None => input.sizes().to_vec(),
            Some(_) => vec![n],
        };
        res.push(Tensor::from_vec(inverse, &shape)?);
    }
    if return_counts {
        let len = counts.len();
        res.push(Tensor::from_vec(counts, &[len])?);
    }
    Ok(res)
}

// ---- nanmedian, frexp, scalar_tensor, addbmm_ ------------------------------------------------

/// The lower median of the non-NaN values of one lane read through `at` (`n` values): its value
/// and position, or the first NaN's when every value is NaN. `None` for an empty lane.
fn nan_median_lane<T: Element>(n: usize, at: impl Fn(usize) -> T) -> Option<(T, usize)> {
    #[allow(clippy::eq_op)]
    let is_nan = |x: T| x != x;
    let mut idx: Vec<usize> = (0..n).filter(|&i| !is_nan(at(i))).collect();
    if idx.is_empty() {
        return if n == 0 { None } else { Some((at(0), 0)) };
    }
    // A stable sort: among equal values the earlier position ranks first.
    idx.sort_by(|&a, &b| {
        at(a)
            .partial_cmp(&at(b))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let k = idx[(idx.len() - 1) / 2];
    Some((at(k), k))
}

/// `nanmedian(input)`: the lower median of the non-NaN elements as a 0-dim tensor (NaN when
/// there are none). NotImplementedError `"median_cpu" not implemented for 'Bool'`. Mirrors
/// `torch.nanmedian`.
pub fn nanmedian(input: &Tensor) -> Result<Tensor> {
    if input.dtype() == DType::Bool {
        return Err(not_implemented("median_cpu", DType::Bool));
    }
    crate::dispatch!(input.dtype(), T => {
        let v = input.to_vec::<T>();
        match nan_median_lane(v.len(), |i| v[i]) {
            Some((m, _)) => Tensor::from_vec(vec![m], &[]),
            // torch: NaN, which an integer dtype holds as its cast.
            None if input.dtype().is_floating_point() => Tensor::scalar_tensor(Scalar::Float(f64::NAN), input.dtype()),
            None => Tensor::scalar_tensor(Scalar::Int(i64::MIN), input.dtype()),
        }
    })
}

/// `nanmedian(input, dim, keepdim=False)`: `(values, indices)` of the lower median of the
/// non-NaN elements along `dim` (NaN and the first index for an all-NaN lane). IndexError
/// "median(): Expected reduction dim 1 to have non-zero size." for an empty dim of a non-empty
/// input. Mirrors `torch.nanmedian(input, dim)`.
pub fn nanmedian_dim(input: &Tensor, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    if input.dtype() == DType::Bool {
        return Err(not_implemented("median_cpu", DType::Bool));
    }
    let d = if input.dim() == 0 {
        maybe_wrap_dim(dim, 1)?;
        0
    } else {
        maybe_wrap_dim(dim, input.dim())?
    };
    let (outer, n, inner) = split_at_dim(input.sizes(), d);
    let mut shape = input.sizes().to_vec();
    if input.dim() > 0 {
        if keepdim {
            shape[d] = 1;
        } else {
            shape.remove(d);
        }
    }
    if n == 0 && outer * inner != 0 {
        return Err(Error::index(format!(
            "median(): Expected reduction dim {d} to have non-zero size."
        )));
    }
    let mut idx: Vec<i64> = super::try_vec(outer * inner, "nanmedian")?;
    let values = crate::dispatch!(input.dtype(), T => {
        let v = input.to_vec::<T>();
        let mut vals: Vec<T> = super::try_vec(outer * inner, "nanmedian")?;
        for o in 0..outer {
            for i in 0..inner {
                let base = o * n * inner + i;
                let (m, k) = nan_median_lane(n, |j| v[base + j * inner]).expect("a non-empty lane");
                vals.push(m);
                idx.push(k as i64);
            }
        }
        Tensor::from_vec(vals, &shape)?
    });
    Ok((values, Tensor::from_vec(idx, &shape)?))
}

/// `frexp(input)`: `(mantissa, exponent)` with `input = mantissa * 2 ** exponent`,
/// `0.5 <= |mantissa| < 1` (0, inf and NaN are their own mantissa with exponent 0); the mantissa
/// has `input`'s dtype, the exponent is int32. RuntimeError "torch.frexp() only supports
/// floating-point dtypes". Mirrors `torch.frexp`.
pub fn frexp(input: &Tensor) -> Result<(Tensor, Tensor)> {
    if !input.dtype().is_floating_point() {
        return Err(Error::runtime(
            "torch.frexp() only supports floating-point dtypes",
        ));
    }
    let v = input.to_f64_vec();
    let mut mant: Vec<f64> = super::try_vec(v.len(), "frexp")?;
    let mut expo: Vec<i32> = super::try_vec(v.len(), "frexp")?;
    for x in v {
        let (m, e) = frexp_f64(x);
        mant.push(m);
        expo.push(e);
    }
    Ok((
        Tensor::from_vec(mant, input.sizes())?.to_dtype(input.dtype())?,
        Tensor::from_vec(expo, input.sizes())?,
    ))
}

/// C's `frexp` for a double (exact: a power-of-two scaling; a float32 value keeps its
/// decomposition, subnormals included, because every float32 is a normal double).
fn frexp_f64(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let (mut y, mut shift) = (x, 0i32);
    if x.abs() < f64::MIN_POSITIVE {
        y = x * 2f64.powi(64);
        shift = -64;
    }
    let bits = y.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i32 - 1022;
    let m = f64::from_bits((bits & !(0x7ffu64 << 52)) | (1022u64 << 52));
    (m, e + shift)
}

/// `scalar_tensor(s, *, dtype=None)`: a 0-dim tensor holding `s`, float32 (the default dtype)
/// unless `dtype` is given — even for an int or bool. Mirrors `torch.scalar_tensor`.
pub fn scalar_tensor(s: Scalar, dtype: Option<DType>) -> Result<Tensor> {
    Tensor::scalar_tensor(s, dtype.unwrap_or(DType::DEFAULT_FLOAT))
}

/// `Tensor.addbmm_(batch1, batch2, *, beta=1, alpha=1)`: `self = beta * self + alpha *
/// sum_b(batch1[b] @ batch2[b])` in place (`beta = 0` ignores self's values). The checks of
/// `addbmm`. Mirrors `Tensor.addbmm_`.
pub fn addbmm_(
    self_: &Tensor,
    batch1: &Tensor,
    batch2: &Tensor,
    beta: Scalar,
    alpha: Scalar,
) -> Result<()> {
    addbmm_checks(self_, batch1, batch2)?;
    let (beta, alpha) = addbmm_scalars(batch1.dtype(), beta, alpha);
    let prod = super::sum(
        &super::bmm(batch1, batch2)?,
        Some(&[0]),
        false,
        Some(batch1.dtype()),
    )?;
    let prod = super::mul(&prod, &Tensor::wrapped_scalar(alpha)?)?;
    let r = if beta.to_f64() == 0.0 {
        prod
    } else {
        super::add(
            &super::mul(self_, &Tensor::wrapped_scalar(beta)?)?,
            &prod,
            Scalar::Int(1),
        )?
    };
    self_.copy_from(&r)
}

/// `beta` and `alpha` as torch's integer kernel reads them: truncated to integers for an
/// integer dtype (`beta=0.6` is 0 there, which ignores `self`).
pub fn addbmm_scalars(dtype: DType, beta: Scalar, alpha: Scalar) -> (Scalar, Scalar) {
    if dtype.is_floating_point() {
        return (beta, alpha);
    }
    let int = |s: Scalar| match s {
        Scalar::Float(f) => Scalar::Int(f as i64),
        other => other,
    };
    (int(beta), int(alpha))
}

/// torch's checks of `addbmm`, in its order: `self` expands to `[n, p]`, both batches are 3-D,
/// of one count and of matching inner sizes, and of one dtype.
pub fn addbmm_checks(self_: &Tensor, batch1: &Tensor, batch2: &Tensor) -> Result<()> {
    let n = if batch1.dim() > 1 {
        batch1.sizes()[1]
    } else {
        1
    };
    let p = if batch2.dim() > 2 {
        batch2.sizes()[2]
    } else {
        1
    };
    super::expand(self_, &[n as i64, p as i64])?;
    if batch1.dim() != 3 {
        return Err(Error::runtime("batch1 must be a 3D tensor"));
    }
    if batch2.dim() != 3 {
        return Err(Error::runtime("batch2 must be a 3D tensor"));
    }
    let (s1, s2) = (batch1.sizes(), batch2.sizes());
    if s1[0] != s2[0] {
        return Err(Error::runtime(format!(
            "batch1 and batch2 must have same number of batches, got {} and {}",
            s1[0], s2[0]
        )));
    }
    if s1[2] != s2[1] {
        return Err(Error::runtime(format!(
            "Incompatible matrix sizes for bmm ({}x{} and {}x{})",
            s1[1], s1[2], s2[1], s2[2]
        )));
    }
    if batch1.dtype() != batch2.dtype() || self_.dtype() != batch1.dtype() {
        let other = if self_.dtype() != batch1.dtype() {
            batch1
        } else {
            batch2
        };
        return Err(Error::runtime(format!(
            "self and mat2 must have the same dtype, but got {} and {}",
            self_.dtype().scalar_type_name(),
            other.dtype().scalar_type_name()
        )));
    }
    Ok(())
}

// ---- histogram (issue 13) ---------------------------------------------------------------------

/// caffe2's TypeMeta name of a dtype, which torch's histogramdd messages print ("float", "long
/// int").
fn type_meta_name(dtype: DType) -> &'static str {
    match dtype {
        DType::Bool => "bool",
        DType::UInt8 => "unsigned char",
        DType::Int8 => "signed char",
        DType::Int16 => "short int",
        DType::Int32 => "int",
        DType::Int64 => "long int",
        DType::Float32 => "float",
        DType::Float64 => "double",
    }
}

/// A double as C++'s `operator<<` prints it (6 significant digits, `%g`).
fn fmt_g(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let e = x.abs().log10().floor() as i32;
    let trim = |s: String| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if !(-5..6).contains(&e) {
        let s = format!("{x:.5e}");
        let (m, ex) = s.split_once('e').unwrap_or((&s, "0"));
        let ex: i32 = ex.parse().unwrap_or(0);
        format!(
            "{}e{}{:02}",
            trim(m.to_string()),
            if ex < 0 { '-' } else { '+' },
            ex.abs()
        )
    } else {
        trim(format!("{:.*}", (5 - e).max(0) as usize, x))
    }
}

/// torch's `std::upper_bound` over `edges` (a binary search; `edges` need not be sorted, as in
/// torch, which does not check).
fn upper_bound(edges: &[f64], x: f64) -> usize {
    let (mut first, mut count) = (0usize, edges.len());
    while count > 0 {
        let step = count / 2;
        let it = first + step;
        if x >= edges[it] {
            first = it + 1;
            count -= step + 1;
        } else {
            count = step;
        }
    }
    first
}

/// The histogram of `input` (any shape, floating) over the bin `edges` (as f64, from the tensor
/// `edges_t` of input's dtype): elements outside `[edges[0], edges[last]]` (and NaN) ignored, the
/// last bin closed on the right; `weight` (input's dtype and number of elements) sums weights
/// instead of counting; `density` divides by the total and the bin widths.
fn histogram_over_edges(
    input: &Tensor,
    edges_t: Tensor,
    weight: Option<&Tensor>,
    density: bool,
) -> Result<(Tensor, Tensor)> {
    let dt = input.dtype();
    let edges = edges_t.to_f64_vec();
    let nb = edges.len() - 1;
    if let Some(w) = weight {
        if w.dtype() != dt {
            return Err(Error::runtime(format!(
                "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should have the same dtype, but got input({}), and weight({})",
                type_meta_name(dt),
                type_meta_name(w.dtype())
            )));
        }
        if w.numel() != input.numel() {
            return Err(Error::runtime(format!(
                "torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor excluding its innermost dimension, but got input with shape [{}, 1] and weight with shape [{}]",
                input.numel(),
                w.numel()
            )));
        }
    }
    let vals = input.to_f64_vec();
    let wts = weight.map(|w| w.to_f64_vec());
    let mut hist: Vec<f64> = super::try_vec(nb, "histogram")?;
    hist.resize(nb, 0.0);
    let (lo, hi) = (edges[0], edges[nb]);
    for (i, &x) in vals.iter().enumerate() {
        if !(x >= lo && x <= hi) {
            continue;
        }
        let mut pos = upper_bound(&edges, x).saturating_sub(1);
        if pos >= nb {
            pos = nb - 1;
        }
        hist[pos] += wts.as_ref().map_or(1.0, |w| w[i]);
    }
    if density {
        let total: f64 = hist.iter().sum();
        for (k, h) in hist.iter_mut().enumerate() {
            *h = *h / total / (edges[k + 1] - edges[k]);
        }
    }
    let hist = Tensor::from_vec(hist, &[nb])?.to_dtype(dt)?;
    Ok((hist, edges_t))
}

fn histogram_float_only(input: &Tensor) -> Result<()> {
    if !input.dtype().is_floating_point() {
        return Err(not_implemented("histogramdd", input.dtype()));
    }
    Ok(())
}

fn histogram_bins_positive(bins: i64) -> Result<()> {
    if bins <= 0 {
        return Err(Error::runtime(format!(
            "torch.histogram(): bins must be > 0, but got {bins} for dimension 0"
        )));
    }
    Ok(())
}

/// `histogram(input, bins, *, weight=None, density=False)` with a tensor of bin edges (1-D, of
/// input's dtype, at least 2 of them; not checked for order, as torch): `(hist, bin_edges)`.
/// Errors (RuntimeError, torch's histogramdd texts): "torch.histogramdd: input tensor and bins
/// tensors should have the same dtype, but got input with dtype float and bins for dimension 0
/// with dtype long int", "... bins tensor should have one dimension, ...", "torch.histogram():
/// bins must be > 0, but got 0 for dimension 0"; the weight checks; NotImplementedError
/// `"histogramdd" not implemented for 'Long'` (torch: `torch.histogram.bins_tensor`).
pub fn histogram_bins_tensor(
    input: &Tensor,
    bins: &Tensor,
    weight: Option<&Tensor>,
    density: bool,
) -> Result<(Tensor, Tensor)> {
    if input.dtype() != bins.dtype() {
        return Err(Error::runtime(format!(
            "torch.histogramdd: input tensor and bins tensors should have the same dtype, but got input with dtype {} and bins for dimension 0 with dtype {}",
            type_meta_name(input.dtype()),
            type_meta_name(bins.dtype())
        )));
    }
    if bins.dim() != 1 {
        return Err(Error::runtime(format!(
            "torch.histogramdd: bins tensor should have one dimension, but got {} dimensions in the bins tensor for dimension 0",
            bins.dim()
        )));
    }
    if bins.numel() == 0 {
        return Err(Error::runtime(
            "torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements in the bins tensor for dimension 0",
        ));
    }
    histogram_float_only(input)?;
    histogram_bins_positive(bins.numel() as i64 - 1)?;
    histogram_over_edges(input, bins.clone_data()?, weight, density)
}

/// `histogram(input, bins=100, *, range=None, weight=None, density=False)`: `bins` equal bins
/// over `range` (`[min, max]`) or the data's range (widened by 0.5 on each side when it is one
/// point; `[0, 1]` for no data). Errors, in torch's order: "torch.histogram(): bins must be > 0,
/// ..."; with a `range`, "torch.histogramdd: for a 1-dimensional histogram range should have 2
/// elements, but got 3", "torch.histogramdd: dimension 0's range [1, inf] is not finite" (or
/// a NaN or inf in the data), "torch.histogramdd: min should not exceed max, but got min 3 max 1
/// for dimension 0", all before the dtype and weight checks (torch: `torch.histogram.bin_ct`).
pub fn histogram_bin_ct(
    input: &Tensor,
    bins: i64,
    range: Option<&[f64]>,
    weight: Option<&Tensor>,
    density: bool,
) -> Result<(Tensor, Tensor)> {
    let range = match range {
        None => None,
        Some(r) => {
            histogram_bins_positive(bins)?;
            let &[lo, hi] = r else {
                return Err(Error::runtime(format!(
                    "torch.histogramdd: for a 1-dimensional histogram range should have 2 elements, but got {}",
                    r.len()
                )));
            };
            histogram_check_range(lo, hi)?;
            Some((lo, hi))
        }
    };
    histogram_range_impl(input, bins, range, weight, density)
}

/// A histogram's `[lo, hi]`: finite, `lo <= hi` (torch's histogramdd texts).
fn histogram_check_range(lo: f64, hi: f64) -> Result<()> {
    if !(lo.is_finite() && hi.is_finite()) {
        return Err(Error::runtime(format!(
            "torch.histogramdd: dimension 0's range [{}, {}] is not finite",
            fmt_g(lo),
            fmt_g(hi)
        )));
    }
    if lo > hi {
        return Err(Error::runtime(format!(
            "torch.histogramdd: min should not exceed max, but got min {} max {} for dimension 0",
            fmt_g(lo),
            fmt_g(hi)
        )));
    }
    Ok(())
}

fn histogram_range_impl(
    input: &Tensor,
    bins: i64,
    range: Option<(f64, f64)>,
    weight: Option<&Tensor>,
    density: bool,
) -> Result<(Tensor, Tensor)> {
    histogram_float_only(input)?;
    histogram_bins_positive(bins)?;
    let (mut lo, mut hi) = match range {
        Some(r) => r,
        None if input.numel() > 0 => {
            let (mn, mx) = super::aminmax(input, None, false)?;
            (mn.to_f64_vec()[0], mx.to_f64_vec()[0])
        }
        None => (0.0, 1.0),
    };
    histogram_check_range(lo, hi)?;
    if lo == hi {
        lo -= 0.5;
        hi += 0.5;
    }
    let edges = super::linspace(
        Scalar::Float(lo),
        Scalar::Float(hi),
        bins.saturating_add(1),
        Some(input.dtype()),
    )?;
    histogram_over_edges(input, edges, weight, density)
}

// ---- renorm (issue 13) ------------------------------------------------------------------------

/// `renorm`'s checks (torch's meta function, then the dim wrap); returns the dims every slice
/// norm reduces (all but `dim`). RuntimeError "renorm: non-positive-norm not supported",
/// "renorm: expected maxnorm to be >= 0 but got -5", "renorm: input needs at least 2
/// dimensions, got 1 dimensions"; IndexError for `dim`.
pub fn renorm_check(input: &Tensor, p: Scalar, dim: i64, maxnorm: Scalar) -> Result<Vec<i64>> {
    if p.to_f64().is_nan() || p.to_f64() <= 0.0 {
        return Err(Error::runtime("renorm: non-positive-norm not supported"));
    }
    let m = maxnorm.to_f64();
    if m.is_nan() || m < 0.0 {
        return Err(Error::runtime(format!(
            "renorm: expected maxnorm to be >= 0 but got {}",
            Scalar::Float(m)
        )));
    }
    let ndim = input.dim();
    if ndim < 2 {
        return Err(Error::runtime(format!(
            "renorm: input needs at least 2 dimensions, got {ndim} dimensions"
        )));
    }
    let d = maybe_wrap_dim(dim, ndim)?;
    Ok((0..ndim as i64).filter(|&k| k != d as i64).collect())
}

/// `Tensor.renorm_(p, dim, maxnorm)`: every slice along `dim` whose `p`-norm exceeds `maxnorm`
/// scaled by `maxnorm / (norm + 1e-7)`, in place (torch's formula); `renorm`'s errors and
/// vector_norm's NotImplementedError for integer dtypes (torch: `Tensor.renorm_`).
pub fn renorm_(input: &Tensor, p: Scalar, dim: i64, maxnorm: Scalar) -> Result<()> {
    let dims = renorm_check(input, p, dim, maxnorm)?;
    let norm = super::linalg_vector_norm(input, p, Some(&dims), true, None)?;
    let m = Tensor::wrapped_scalar(Scalar::Float(maxnorm.to_f64()))?;
    let eps = Tensor::wrapped_scalar(Scalar::Float(1e-7))?;
    let one = Tensor::wrapped_scalar(Scalar::Float(1.0))?;
    let scaled = super::div(&m, &super::add(&norm, &eps, Scalar::Int(1))?, None)?;
    let factor = super::where_(&super::gt(&norm, &m)?, &scaled, &one)?;
    let out = super::mul(input, &factor)?;
    input.copy_from(&out)?;
    input.bump_version();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn searches_and_counts() {
        let s = Tensor::from_vec(vec![1.0f32, 3.0, 5.0, 7.0, 9.0], &[5]).unwrap();
        let v = Tensor::from_vec(vec![3.0f32, 6.0, 9.0], &[3]).unwrap();
        let r = searchsorted(&s, &v, false, false, None, None).unwrap();
        assert_eq!(r.to_vec::<i64>(), vec![1, 3, 4]);
        let r = searchsorted(&s, &v, false, true, None, None).unwrap();
        assert_eq!(r.to_vec::<i64>(), vec![2, 3, 5]);
        let x = Tensor::from_vec(vec![0i64, 1, 1, 3], &[4]).unwrap();
        assert_eq!(
            bincount(&x, None, 0).unwrap().to_vec::<i64>(),
            vec![1, 2, 0, 1]
        );
        let (m, i) = cummax(&Tensor::from_vec(vec![1i64, 1, 0, 2], &[4]).unwrap(), 0).unwrap();
        assert_eq!(m.to_vec::<i64>(), vec![1, 1, 1, 2]);
        assert_eq!(i.to_vec::<i64>(), vec![0, 1, 1, 3]);
    }
}
