//! src/core/ops/factory.rs: tensor factories — `zeros`, `ones`, `empty`, `full`, `arange`,
//! `linspace`, `logspace`, `eye` and the `*_like` forms (PyTorch: `native/TensorFactories.cpp`,
//! `native/RangeFactories.cpp`). The random factories are `random_ops.rs`.

use crate::core::dtype::{Category, DType, Element};
use crate::core::error::{Error, Result};
use crate::core::scalar::Scalar;
use crate::core::tensor::Tensor;

/// Sizes from Python (`int[]`) as `usize`, with torch's check for negative entries
/// (`RuntimeError: Trying to create tensor with negative dimension -1: [-1]`).
pub fn nonnegative_sizes(size: &[i64]) -> Result<Vec<usize>> {
    if let Some(&neg) = size.iter().find(|&&s| s < 0) {
        return Err(Error::runtime(format!(
            "Trying to create tensor with negative dimension {neg}: {size:?}"
        )));
    }
    size.iter()
        .map(|&s| {
            usize::try_from(s).map_err(|_| {
                Error::runtime(format!(
                    "Storage size calculation overflowed with sizes={size:?}"
                ))
            })
        })
        .collect()
}

/// `zeros(size, *, dtype=None)`: a contiguous tensor of zeros of shape `size`; dtype defaults to
/// float32. RuntimeError for a negative size or an element count that overflows; MemoryError
/// when the allocation fails (torch: `torch.zeros`).
pub fn zeros(size: &[i64], dtype: Option<DType>) -> Result<Tensor> {
    Tensor::zeros(
        &nonnegative_sizes(size)?,
        dtype.unwrap_or(DType::DEFAULT_FLOAT),
    )
}

/// `ones(size, *, dtype=None)`: a contiguous tensor of ones (True for bool) of shape `size`;
/// dtype defaults to float32. Errors as `zeros` (torch: `torch.ones`).
pub fn ones(size: &[i64], dtype: Option<DType>) -> Result<Tensor> {
    Tensor::full(
        &nonnegative_sizes(size)?,
        Scalar::Int(1),
        dtype.unwrap_or(DType::DEFAULT_FLOAT),
    )
}

/// `empty(size, *, dtype=None)`: a contiguous tensor of shape `size` (zero-filled here; torch
/// leaves the memory uninitialised); dtype defaults to float32. Errors as `zeros`
/// (torch: `torch.empty`).
pub fn empty(size: &[i64], dtype: Option<DType>) -> Result<Tensor> {
    zeros(size, dtype)
}

/// `full(size, fill_value, *, dtype=None)`: a contiguous tensor of shape `size` holding
/// `fill_value` converted to the dtype. Without `dtype` the dtype follows the value: bool → bool,
/// int → int64, float → float32. Errors as `zeros` (torch: `torch.full`).
pub fn full(size: &[i64], fill_value: Scalar, dtype: Option<DType>) -> Result<Tensor> {
    Tensor::full(
        &nonnegative_sizes(size)?,
        fill_value,
        dtype.unwrap_or(fill_value.default_dtype()),
    )
}

/// `arange(end, *, dtype=None)`: `arange_start_step(0, end, 1, dtype)`.
pub fn arange(end: Scalar, dtype: Option<DType>) -> Result<Tensor> {
    arange_start_step(Scalar::Int(0), end, Scalar::Int(1), dtype)
}

/// `arange(start, end, *, dtype=None)`: `arange_start_step(start, end, 1, dtype)`.
pub fn arange_start(start: Scalar, end: Scalar, dtype: Option<DType>) -> Result<Tensor> {
    arange_start_step(start, end, Scalar::Int(1), dtype)
}

/// C++ `operator<<` spelling of a double in torch's messages (`%g`: 6 significant digits,
/// `inf`, `-inf`, `nan`, `2.5`, `1e+20`).
pub(crate) fn fmt_double(v: f64) -> String {
    if v.is_nan() {
        return "nan".to_string();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    // Round to 6 significant digits first; the exponent of the rounded value picks the style.
    let sci = format!("{v:.5e}");
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` output has an exponent");
    let exp: i32 = exp.parse().expect("`{:e}` exponent is an integer");
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exp.abs())
    } else {
        let decimals = (5 - exp).max(0) as usize;
        trim(&format!("{v:.decimals$}"))
    }
}

/// `arange(start, end, step, *, dtype=None)`: the 1-D tensor `start, start + step, ...` stopping
/// before `end` (torch: `torch.arange`).
///
/// * dtype: int64 when `start`, `end` and `step` are all ints (bools count as ints), else
///   float32; an explicit `dtype` wins.
/// * length: `ceil((end - start) / step)` computed in double; for int64 with all-int bounds
///   torch computes `(end - start + step - sign(step)) / step` exactly in integers.
/// * values: `start + i * step` in double for floating dtypes, in int64 (wrapping) for integer
///   dtypes (torch's CPU accumulate types), then cast.
///
/// Errors (RuntimeError): `step must be nonzero`, `unsupported range: inf -> 5` for non-finite
/// bounds, `upper bound and larger bound inconsistent with step sign`,
/// `invalid size, possible overflow?`, and `"arange_cpu" not implemented for 'Bool'`.
pub fn arange_start_step(
    start: Scalar,
    end: Scalar,
    step: Scalar,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let all_int = [start, end, step]
        .iter()
        .all(|s| s.category() != Category::Floating);
    let dtype = dtype.unwrap_or(if all_int {
        DType::Int64
    } else {
        DType::DEFAULT_FLOAT
    });
    if dtype == DType::Bool {
        return Err(Error::not_implemented(
            "\"arange_cpu\" not implemented for 'Bool'",
        ));
    }
    // Validation in double (torch's `arange_check_bounds`).
    let (dstart, dend, dstep) = (start.to_f64(), end.to_f64(), step.to_f64());
    if dstep == 0.0 || dstep.is_nan() {
        return Err(Error::runtime("step must be nonzero"));
    }
    if !(dstart.is_finite() && dend.is_finite()) {
        return Err(Error::runtime(format!(
            "unsupported range: {} -> {}",
            fmt_double(dstart),
            fmt_double(dend)
        )));
    }
    if !((dstep > 0.0 && dend >= dstart) || (dstep < 0.0 && dend <= dstart)) {
        return Err(Error::runtime(
            "upper bound and larger bound inconsistent with step sign",
        ));
    }
    // Length (torch's `compute_arange_size`): exact integer arithmetic for int64 with integer
    // bounds, double otherwise.
    let integral = dtype.is_integral();
    let (istart, iend, istep) = (start.to_i64(), end.to_i64(), step.to_i64());
    let exact = dtype == DType::Int64
        && [start, end, step]
            .iter()
            .all(|s| matches!(s, Scalar::Int(_)));
    let size_d: f64 = if exact {
        let sgn: i128 = if istep > 0 { 1 } else { -1 };
        let num = iend as i128 - istart as i128 + istep as i128 - sgn;
        (num / istep as i128) as f64
    } else {
        ((dend - dstart) / dstep).ceil()
    };
    if !(size_d >= 0.0 && size_d <= i64::MAX as f64) {
        return Err(Error::runtime("invalid size, possible overflow?"));
    }
    let n = size_d as usize;
    let out = Tensor::zeros(&[n], dtype)?;
    crate::dispatch!(dtype, T => {
        use crate::core::dtype::Element;
        let p = out.data_ptr::<T>();
        // SAFETY: `out` is a fresh contiguous tensor of exactly `n` elements of `T`.
        let slice = unsafe { std::slice::from_raw_parts_mut(p, n) };
        if integral {
            for (i, v) in slice.iter_mut().enumerate() {
                *v = T::from_i64(istart.wrapping_add(istep.wrapping_mul(i as i64)));
            }
        } else {
            for (i, v) in slice.iter_mut().enumerate() {
                *v = T::from_f64(dstart + dstep * i as f64);
            }
        }
    });
    Ok(out)
}

fn check_steps(steps: i64) -> Result<usize> {
    if steps < 0 {
        return Err(Error::runtime("number of steps must be non-negative"));
    }
    Ok(steps as usize)
}

/// Fill a fresh contiguous tensor of `steps` elements with `f(k)` for each position `k`.
fn fill_with<T: Element>(out: &Tensor, f: impl Fn(usize) -> T) {
    // SAFETY: `out` is a fresh contiguous tensor of dtype `T` owned by the caller.
    let s = unsafe { std::slice::from_raw_parts_mut(out.data_ptr::<T>(), out.numel()) };
    for (k, v) in s.iter_mut().enumerate() {
        *v = f(k);
    }
}

/// `linspace(start, end, steps, *, dtype=None)`: `steps` evenly spaced values from `start` to
/// `end` inclusive, computed as torch's CPU kernel does (from `start` for the first half, from
/// `end` for the second; in the dtype for floats, in double then truncated for integers).
/// Dtype defaults to float32. RuntimeError "number of steps must be non-negative"; the overflow
/// error when `start`/`end` do not fit the dtype (torch: `torch.linspace`).
pub fn linspace(start: Scalar, end: Scalar, steps: i64, dtype: Option<DType>) -> Result<Tensor> {
    let n = check_steps(steps)?;
    let dtype = dtype.unwrap_or(DType::DEFAULT_FLOAT);
    let out = Tensor::zeros(&[n], dtype)?;
    if n == 0 {
        return Ok(out);
    }
    let half = n / 2;
    match dtype {
        DType::Float32 => {
            let (a, b) = (start.to_checked::<f32>()?, end.to_checked::<f32>()?);
            let step = if n > 1 { (b - a) / (n - 1) as f32 } else { 0.0 };
            fill_with::<f32>(&out, |k| {
                if n == 1 {
                    a
                } else if k < half {
                    a + step * k as f32
                } else {
                    b - step * (n - k - 1) as f32
                }
            });
        }
        _ => crate::dispatch!(dtype, T => {
            let (a, b) = (start.to_checked::<T>()?.to_f64(), end.to_checked::<T>()?.to_f64());
            let step = if n > 1 { (b - a) / (n - 1) as f64 } else { 0.0 };
            fill_with::<T>(&out, |k| {
                T::from_f64(if n == 1 {
                    a
                } else if k < half {
                    a + step * k as f64
                } else {
                    b - step * (n - k - 1) as f64
                })
            });
        }),
    }
    Ok(out)
}

/// The scalars of `linspace` / `logspace`'s tensor overloads (`op` names the op in the error):
/// each given tensor must be 0-dim (torch's RuntimeError "linspace only supports 0-dimensional
/// start and end tensors, but got start with 1 dimension(s)." naming the tensors given; the
/// parser binds a 0-dim tensor to the Scalar overloads first, so the tensor overloads see only
/// others). `None` for an argument that was a Scalar.
fn range_scalars(
    op: &str,
    start: Option<&Tensor>,
    end: Option<&Tensor>,
) -> Result<(Option<Scalar>, Option<Scalar>)> {
    let bad = |t: Option<&Tensor>| t.is_some_and(|t| t.dim() != 0);
    if bad(start) || bad(end) {
        let what = match (start, end) {
            (Some(s), Some(e)) => format!(
                "start with {} dimension(s) and end with {} dimension(s)",
                s.dim(),
                e.dim()
            ),
            (Some(s), None) => format!("start with {} dimension(s)", s.dim()),
            (_, e) => format!("end with {} dimension(s)", e.map_or(0, |e| e.dim())),
        };
        return Err(Error::runtime(format!(
            "{op} only supports 0-dimensional start and end tensors, but got {what}."
        )));
    }
    Ok((
        start.map(|t| t.item()).transpose()?,
        end.map(|t| t.item()).transpose()?,
    ))
}

/// `linspace(Tensor start, Tensor end, steps)`: `linspace` of the two 0-dim tensors' values
/// (RuntimeError for others). Mirrors `torch.linspace`'s tensor overloads.
pub fn linspace_tensor_tensor(
    start: &Tensor,
    end: &Tensor,
    steps: i64,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let (s, e) = range_scalars("linspace", Some(start), Some(end))?;
    linspace(
        s.unwrap_or(Scalar::Int(0)),
        e.unwrap_or(Scalar::Int(0)),
        steps,
        dtype,
    )
}

/// `linspace(Tensor start, Scalar end, steps)`: as `linspace_tensor_tensor`.
pub fn linspace_tensor_scalar(
    start: &Tensor,
    end: Scalar,
    steps: i64,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let (s, _) = range_scalars("linspace", Some(start), None)?;
    linspace(s.unwrap_or(Scalar::Int(0)), end, steps, dtype)
}

/// `linspace(Scalar start, Tensor end, steps)`: as `linspace_tensor_tensor`.
pub fn linspace_scalar_tensor(
    start: Scalar,
    end: &Tensor,
    steps: i64,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let (_, e) = range_scalars("linspace", None, Some(end))?;
    linspace(start, e.unwrap_or(Scalar::Int(0)), steps, dtype)
}

/// `logspace(Tensor start, Tensor end, steps, base=10.0)`: `logspace` of the two 0-dim tensors'
/// values (RuntimeError for others). Mirrors `torch.logspace`'s tensor overloads.
pub fn logspace_tensor_tensor(
    start: &Tensor,
    end: &Tensor,
    steps: i64,
    base: f64,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let (s, e) = range_scalars("logspace", Some(start), Some(end))?;
    logspace(
        s.unwrap_or(Scalar::Int(0)),
        e.unwrap_or(Scalar::Int(0)),
        steps,
        base,
        dtype,
    )
}

/// `logspace(Tensor start, Scalar end, steps, base=10.0)`: as `logspace_tensor_tensor`.
pub fn logspace_tensor_scalar(
    start: &Tensor,
    end: Scalar,
    steps: i64,
    base: f64,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let (s, _) = range_scalars("logspace", Some(start), None)?;
    logspace(s.unwrap_or(Scalar::Int(0)), end, steps, base, dtype)
}

/// `logspace(Scalar start, Tensor end, steps, base=10.0)`: as `logspace_tensor_tensor`.
pub fn logspace_scalar_tensor(
    start: Scalar,
    end: &Tensor,
    steps: i64,
    base: f64,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let (_, e) = range_scalars("logspace", None, Some(end))?;
    logspace(start, e.unwrap_or(Scalar::Int(0)), steps, base, dtype)
}

/// `logspace(start, end, steps, base=10.0, *, dtype=None)`: `base ** linspace(start, end,
/// steps)` as torch's kernel computes it (in the dtype for floats, in double for integers).
/// Dtype defaults to float32. Errors as `linspace` (torch: `torch.logspace`).
pub fn logspace(
    start: Scalar,
    end: Scalar,
    steps: i64,
    base: f64,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let n = check_steps(steps)?;
    let dtype = dtype.unwrap_or(DType::DEFAULT_FLOAT);
    let out = Tensor::zeros(&[n], dtype)?;
    if n == 0 {
        return Ok(out);
    }
    let half = n / 2;
    match dtype {
        DType::Float32 => {
            let (a, b, base) = (
                start.to_checked::<f32>()?,
                end.to_checked::<f32>()?,
                base as f32,
            );
            let step = if n > 1 { (b - a) / (n - 1) as f32 } else { 0.0 };
            fill_with::<f32>(&out, |k| {
                if n == 1 {
                    (base as f64).powf(start.to_f64()) as f32
                } else if k < half {
                    base.powf(a + step * k as f32)
                } else {
                    base.powf(b - step * (n - k - 1) as f32)
                }
            });
        }
        _ => crate::dispatch!(dtype, T => {
            let (a, b) = (start.to_checked::<T>()?.to_f64(), end.to_checked::<T>()?.to_f64());
            let step = if n > 1 { (b - a) / (n - 1) as f64 } else { 0.0 };
            fill_with::<T>(&out, |k| {
                T::from_f64(if n == 1 {
                    base.powf(start.to_f64())
                } else if k < half {
                    base.powf(a + step * k as f64)
                } else {
                    base.powf(b - step * (n - k - 1) as f64)
                })
            });
        }),
    }
    Ok(out)
}

/// `eye(n, *, dtype=None)`: the `n`×`n` identity matrix (float32 by default). RuntimeError
/// "n must be greater or equal to 0, got -1" (torch: `torch.eye`).
pub fn eye(n: i64, dtype: Option<DType>) -> Result<Tensor> {
    eye_m(n, n, dtype)
}

/// `eye(n, m, *, dtype=None)`: the `n`×`m` matrix with ones on the main diagonal. RuntimeError
/// "n must be greater or equal to 0, got -1" (likewise `m`).
pub fn eye_m(n: i64, m: i64, dtype: Option<DType>) -> Result<Tensor> {
    if n < 0 {
        return Err(Error::runtime(format!(
            "n must be greater or equal to 0, got {n}"
        )));
    }
    if m < 0 {
        return Err(Error::runtime(format!(
            "m must be greater or equal to 0, got {m}"
        )));
    }
    let (n, m) = (n as usize, m as usize);
    let out = Tensor::zeros(&[n, m], dtype.unwrap_or(DType::DEFAULT_FLOAT))?;
    crate::dispatch!(out.dtype(), T => fill_with::<T>(&out, |k| T::from_bool(k / m.max(1) == k % m.max(1))));
    Ok(out)
}

/// `zeros_like(input, *, dtype=None)`: a contiguous tensor of zeros with `input`'s shape and
/// (by default) dtype (torch: `torch.zeros_like`; torch keeps a dense input's strides, tensorbind
/// always returns a row-major tensor).
pub fn zeros_like(input: &Tensor, dtype: Option<DType>) -> Result<Tensor> {
    Tensor::zeros(input.sizes(), dtype.unwrap_or(input.dtype()))
}

/// `ones_like(input, *, dtype=None)`: as `zeros_like`, filled with ones (torch: `torch.ones_like`).
pub fn ones_like(input: &Tensor, dtype: Option<DType>) -> Result<Tensor> {
    Tensor::full(
        input.sizes(),
        Scalar::Int(1),
        dtype.unwrap_or(input.dtype()),
    )
}

/// `empty_like(input, *, dtype=None)`: as `zeros_like` (zero-filled here; torch leaves the memory
/// uninitialised) (torch: `torch.empty_like`).
pub fn empty_like(input: &Tensor, dtype: Option<DType>) -> Result<Tensor> {
    zeros_like(input, dtype)
}

/// `full_like(input, fill_value, *, dtype=None)`: a contiguous tensor with `input`'s shape filled
/// with `fill_value`; the dtype defaults to `input`'s, not the value's (torch: `torch.full_like`).
pub fn full_like(input: &Tensor, fill_value: Scalar, dtype: Option<DType>) -> Result<Tensor> {
    Tensor::full(input.sizes(), fill_value, dtype.unwrap_or(input.dtype()))
}

/// `Tensor.new_zeros(size, *, dtype=None)`: zeros of `size`; the dtype defaults to `input`'s
/// (torch: `Tensor.new_zeros`; only the dtype of `input` is read).
pub fn new_zeros(input: &Tensor, size: &[i64], dtype: Option<DType>) -> Result<Tensor> {
    zeros(size, Some(dtype.unwrap_or(input.dtype())))
}

/// `Tensor.new_ones(size, *, dtype=None)`: as `new_zeros`, filled with ones (torch:
/// `Tensor.new_ones`).
pub fn new_ones(input: &Tensor, size: &[i64], dtype: Option<DType>) -> Result<Tensor> {
    ones(size, Some(dtype.unwrap_or(input.dtype())))
}

/// `Tensor.new_empty(size, *, dtype=None)`: as `new_zeros` (zero-filled here; torch leaves the
/// memory uninitialised) (torch: `Tensor.new_empty`).
pub fn new_empty(input: &Tensor, size: &[i64], dtype: Option<DType>) -> Result<Tensor> {
    empty(size, Some(dtype.unwrap_or(input.dtype())))
}

/// `Tensor.new_empty_strided(size, stride, *, dtype=None)`: `empty_strided(size, stride)` with
/// `input`'s dtype by default (tensorbind zero-fills; torch leaves it uninitialised). Errors as
/// `empty_strided` (torch: `Tensor.new_empty_strided`).
pub fn new_empty_strided(
    input: &Tensor,
    size: &[i64],
    stride: &[i64],
    dtype: Option<DType>,
) -> Result<Tensor> {
    super::strided::empty_strided(size, stride, Some(dtype.unwrap_or(input.dtype())))
}

/// `empty_permuted(size, physical_layout, *, dtype=None)`: a tensor of `size` whose memory is
/// laid out as the contiguous tensor of the sizes permuted by `physical_layout` (dim
/// `physical_layout[0]` outermost). Errors (RuntimeError, torch's texts): "Number of dimensions
/// in size does not match the length of the physical_layout; i.e. len(size) = 2 is not equal to
/// len(physical_layout) = 3"; "Dimension out of range (expected to be between 0 and 1, but got 2
/// at index 1).  NB: negative dims not currently supported; file an issue if you want it.";
/// "Duplicate dim not allowed"; negative sizes (torch: `torch.empty_permuted`).
pub fn empty_permuted(
    size: &[i64],
    physical_layout: &[i64],
    dtype: Option<DType>,
) -> Result<Tensor> {
    let n = size.len();
    if physical_layout.len() != n {
        return Err(Error::runtime(format!(
            "Number of dimensions in size does not match the length of the physical_layout; i.e. len(size) = {n} is not equal to len(physical_layout) = {}",
            physical_layout.len()
        )));
    }
    let mut seen = vec![false; n];
    for (i, &d) in physical_layout.iter().enumerate() {
        if d < 0 || d as usize >= n {
            return Err(Error::runtime(format!(
                "Dimension out of range (expected to be between 0 and {}, but got {d} at index {i}).  NB: negative dims not currently supported; file an issue if you want it.",
                n as i64 - 1
            )));
        }
        if seen[d as usize] {
            return Err(Error::runtime("Duplicate dim not allowed"));
        }
        seen[d as usize] = true;
    }
    let phys: Vec<i64> = physical_layout.iter().map(|&d| size[d as usize]).collect();
    nonnegative_sizes(&phys)?;
    let mut strides = vec![0i64; n];
    let mut acc = 1i64;
    for k in (0..n).rev() {
        strides[physical_layout[k] as usize] = acc;
        acc = acc.saturating_mul(phys[k].max(1));
    }
    super::strided::empty_strided(size, &strides, dtype)
}

/// `Tensor.new_full(size, fill_value, *, dtype=None)`: `size` filled with `fill_value`; the
/// dtype defaults to `input`'s, not the value's (torch: `Tensor.new_full`).
pub fn new_full(
    input: &Tensor,
    size: &[i64],
    fill_value: Scalar,
    dtype: Option<DType>,
) -> Result<Tensor> {
    full(size, fill_value, Some(dtype.unwrap_or(input.dtype())))
}

/// The `[2, N]` row and column indices of the lower (`lower`) or upper triangle of a
/// `row × col` matrix, row-major, with the diagonal `offset`.
fn tri_indices(
    row: i64,
    col: i64,
    offset: i64,
    dtype: Option<DType>,
    lower: bool,
    name: &str,
) -> Result<Tensor> {
    let dtype = dtype.unwrap_or(DType::Int64);
    if !dtype.is_integral() {
        return Err(Error::not_implemented(format!(
            "\"{name}\" not implemented for '{}'",
            dtype.scalar_type_name()
        )));
    }
    if row < 0 {
        return Err(Error::runtime(format!(
            "row must be non-negative, got{row}"
        )));
    }
    if col < 0 {
        return Err(Error::runtime(format!(
            "col must be non-negative, got{col}"
        )));
    }
    let mut rows: Vec<i64> = Vec::new();
    let mut cols: Vec<i64> = Vec::new();
    for r in 0..row {
        for c in 0..col {
            let keep = if lower {
                c - r <= offset
            } else {
                c - r >= offset
            };
            if keep {
                rows.push(r);
                cols.push(c);
            }
        }
        crate::core::interrupt::checkpoint();
    }
    let n = rows.len();
    rows.extend(cols);
    let out = Tensor::from_vec(rows, &[2, n])?;
    if dtype == DType::Int64 {
        return Ok(out);
    }
    out.to_dtype(dtype)
}

/// `tril_indices(row, col, offset=0, *, dtype=int64)`: the `[2, N]` indices of the lower
/// triangle (diagonal `offset`) of a `row × col` matrix, row-major. RuntimeError "row must be
/// non-negative, got-1"; NotImplementedError for a float dtype. Mirrors `torch.tril_indices`.
pub fn tril_indices(row: i64, col: i64, offset: i64, dtype: Option<DType>) -> Result<Tensor> {
    tri_indices(row, col, offset, dtype, true, "tril_indices")
}

/// `triu_indices(row, col, offset=0, *, dtype=int64)`: as `tril_indices`, the upper triangle.
/// Mirrors `torch.triu_indices`.
pub fn triu_indices(row: i64, col: i64, offset: i64, dtype: Option<DType>) -> Result<Tensor> {
    tri_indices(row, col, offset, dtype, false, "triu_indices")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::error::ErrorKind;

    #[test]
    fn zeros_ones_full_dtypes() {
        let z = zeros(&[2, 3], None).unwrap();
        assert_eq!(z.dtype(), DType::Float32);
        assert_eq!(z.sizes(), &[2, 3]);
        assert_eq!(z.to_f64_vec(), vec![0.0; 6]);
        let o = ones(&[2], Some(DType::Bool)).unwrap();
        assert_eq!(o.to_vec::<bool>(), vec![true, true]);
        let o = ones(&[], Some(DType::Int32)).unwrap();
        assert_eq!(o.dim(), 0);
        assert_eq!(o.to_vec::<i32>(), vec![1]);
        assert_eq!(empty(&[0, 4], None).unwrap().numel(), 0);
        assert_eq!(
            full(&[2], Scalar::Int(7), None).unwrap().dtype(),
            DType::Int64
        );
        assert_eq!(
            full(&[2], Scalar::Float(2.5), None).unwrap().dtype(),
            DType::Float32
        );
        assert_eq!(
            full(&[2], Scalar::Bool(true), None).unwrap().dtype(),
            DType::Bool
        );
        let f = full(&[3], Scalar::Float(2.7), Some(DType::Int64)).unwrap();
        assert_eq!(f.to_vec::<i64>(), vec![2, 2, 2]);
    }

    #[test]
    fn negative_size_is_runtime_error() {
        let e = zeros(&[-1], None).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Runtime);
        assert_eq!(
            e.message,
            "Trying to create tensor with negative dimension -1: [-1]"
        );
        let e = full(&[2, -3], Scalar::Int(1), None).unwrap_err();
        assert_eq!(
            e.message,
            "Trying to create tensor with negative dimension -3: [2, -3]"
        );
        assert_eq!(
            zeros(&[1 << 40, 1 << 40], None).unwrap_err().kind,
            ErrorKind::Runtime
        );
    }

    #[test]
    fn arange_values_and_dtypes() {
        let a = arange(Scalar::Int(5), None).unwrap();
        assert_eq!(a.dtype(), DType::Int64);
        assert_eq!(a.to_vec::<i64>(), vec![0, 1, 2, 3, 4]);
        let a = arange_start_step(Scalar::Int(1), Scalar::Float(2.5), Scalar::Float(0.5), None)
            .unwrap();
        assert_eq!(a.dtype(), DType::Float32);
        assert_eq!(a.to_vec::<f32>(), vec![1.0, 1.5, 2.0]);
        // torch.arange(10, 0, -3) -> [10, 7, 4, 1]
        let a = arange_start_step(Scalar::Int(10), Scalar::Int(0), Scalar::Int(-3), None).unwrap();
        assert_eq!(a.to_vec::<i64>(), vec![10, 7, 4, 1]);
        // torch.arange(0, 1, 0.1).shape == (10,)
        let a =
            arange_start_step(Scalar::Int(0), Scalar::Int(1), Scalar::Float(0.1), None).unwrap();
        assert_eq!(a.numel(), 10);
        // torch.arange(-1.0, 1.0, 0.5, dtype=float64)
        let a = arange_start_step(
            Scalar::Float(-1.0),
            Scalar::Float(1.0),
            Scalar::Float(0.5),
            Some(DType::Float64),
        )
        .unwrap();
        assert_eq!(a.to_vec::<f64>(), vec![-1.0, -0.5, 0.0, 0.5]);
        // torch.arange(0.5, 5, dtype=torch.int64) -> [0, 1, 2, 3, 4]
        let a = arange_start(Scalar::Float(0.5), Scalar::Int(5), Some(DType::Int64)).unwrap();
        assert_eq!(a.to_vec::<i64>(), vec![0, 1, 2, 3, 4]);
        // torch.arange(2.5) -> [0., 1., 2.]
        let a = arange(Scalar::Float(2.5), None).unwrap();
        assert_eq!(a.to_vec::<f32>(), vec![0.0, 1.0, 2.0]);
        assert_eq!(arange(Scalar::Int(0), None).unwrap().sizes(), &[0]);
        let a = arange(Scalar::Int(4), Some(DType::UInt8)).unwrap();
        assert_eq!(a.to_vec::<u8>(), vec![0, 1, 2, 3]);
        assert_eq!(
            arange(Scalar::Bool(true), None).unwrap().dtype(),
            DType::Int64
        );
    }

    #[test]
    fn arange_errors() {
        let e =
            arange_start_step(Scalar::Int(0), Scalar::Int(5), Scalar::Int(0), None).unwrap_err();
        assert_eq!(
            (e.kind, e.message.as_str()),
            (ErrorKind::Runtime, "step must be nonzero")
        );
        let e =
            arange_start_step(Scalar::Int(0), Scalar::Int(5), Scalar::Int(-1), None).unwrap_err();
        assert_eq!(
            e.message,
            "upper bound and larger bound inconsistent with step sign"
        );
        let e = arange(Scalar::Float(f64::INFINITY), None).unwrap_err();
        assert_eq!(e.message, "unsupported range: 0 -> inf");
        let e = arange_start(Scalar::Float(1e20), Scalar::Float(f64::NAN), None).unwrap_err();
        assert_eq!(e.message, "unsupported range: 1e+20 -> nan");
        assert_eq!(fmt_double(123456789.0), "1.23457e+08");
        assert_eq!(fmt_double(0.0001), "0.0001");
        assert_eq!(fmt_double(2.5), "2.5");
        assert_eq!(fmt_double(-100000.0), "-100000");
        assert_eq!(fmt_double(1e-5), "1e-05");
        let e = arange(Scalar::Int(3), Some(DType::Bool)).unwrap_err();
        assert_eq!(e.message, "\"arange_cpu\" not implemented for 'Bool'");
        // torch.arange(0, 2, 0.5, dtype=torch.int64): 4 elements, the step truncates to 0.
        let a = arange_start_step(
            Scalar::Int(0),
            Scalar::Int(2),
            Scalar::Float(0.5),
            Some(DType::Int64),
        )
        .unwrap();
        assert_eq!(a.to_vec::<i64>(), vec![0, 0, 0, 0]);
    }

    #[test]
    fn like_factories_keep_shape_and_dtype() {
        let t = Tensor::from_vec((0..6i32).collect(), &[2, 3]).unwrap();
        let tt = t.as_strided(vec![3, 2], vec![1, 3], 0);
        let z = zeros_like(&tt, None).unwrap();
        assert_eq!((z.sizes(), z.dtype()), (&[3usize, 2][..], DType::Int32));
        assert!(z.is_contiguous());
        let o = ones_like(&tt, Some(DType::Float64)).unwrap();
        assert_eq!(o.to_vec::<f64>(), vec![1.0; 6]);
        let f = full_like(&t, Scalar::Float(2.9), None).unwrap();
        assert_eq!(f.dtype(), DType::Int32);
        assert_eq!(f.to_vec::<i32>(), vec![2; 6]);
        assert_eq!(empty_like(&t, None).unwrap().sizes(), &[2, 3]);
    }

    #[test]
    fn factories() {
        let l = linspace(Scalar::Int(0), Scalar::Int(1), 5, None).unwrap();
        assert_eq!(l.to_vec::<f32>(), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
        let l = linspace(Scalar::Int(0), Scalar::Int(10), 4, Some(DType::Int64)).unwrap();
        assert_eq!(l.to_vec::<i64>(), vec![0, 3, 6, 10]);
        let g = logspace(
            Scalar::Int(0),
            Scalar::Int(2),
            3,
            10.0,
            Some(DType::Float64),
        )
        .unwrap();
        assert_eq!(g.to_vec::<f64>(), vec![1.0, 10.0, 100.0]);
        let e = eye_m(2, 3, Some(DType::Int64)).unwrap();
        assert_eq!(e.to_vec::<i64>(), vec![1, 0, 0, 0, 1, 0]);
        assert!(eye(-1, None).is_err());
        assert!(linspace(Scalar::Int(0), Scalar::Int(1), -1, None).is_err());
    }
}
