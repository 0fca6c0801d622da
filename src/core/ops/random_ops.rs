//! src/core/ops/random_ops.rs: the random factories and samplers — rand, randn, randint,
//! randperm, normal, bernoulli, rand_like, randn_like (PyTorch: `aten/src/ATen/native/
//! Distributions.cpp`, `TensorFactories.cpp`). The numbers come from a `core::random::Generator`
//! (see src/core/random.rs for the exact algorithms); each op locks its generator once and
//! draws its numbers in the tensor's row-major order.

use crate::core::dtype::{Category, DType, Element};
use crate::core::error::{Error, Result};
use crate::core::ops::factory::nonnegative_sizes;
use crate::core::random::{lock_generator, Generator, Stream};
use crate::core::tensor::Tensor;
use std::sync::Mutex;

/// A fresh contiguous tensor of `sizes`/`dtype` whose elements are `f()` in row-major order.
fn fill_new<T: Element>(sizes: &[usize], mut f: impl FnMut() -> T) -> Result<Tensor> {
    let out = Tensor::zeros(sizes, T::DTYPE)?;
    let n = out.numel();
    let p = out.data_ptr::<T>();
    // SAFETY: `out` is a fresh contiguous tensor of exactly `n` elements of `T`, not shared.
    let slice = unsafe { std::slice::from_raw_parts_mut(p, n) };
    for v in slice {
        *v = f();
    }
    Ok(out)
}

fn not_implemented_for(kernel: &str, dtype: DType) -> Error {
    Error::not_implemented(format!(
        "\"{kernel}\" not implemented for '{}'",
        dtype.scalar_type_name()
    ))
}

/// Uniform [0, 1) values of a floating `dtype` (f32: 24 bits, f64: 53 bits).
fn uniform_tensor(sizes: &[usize], dtype: DType, s: &mut Stream<'_>) -> Result<Tensor> {
    match dtype {
        DType::Float32 => fill_new::<f32>(sizes, || s.uniform_f32()),
        DType::Float64 => fill_new::<f64>(sizes, || s.uniform_f64()),
        d => Err(not_implemented_for("check_uniform_bounds", d)),
    }
}

/// `mean + std * z` for standard normals `z` (Box–Muller pairs), of a floating `dtype`.
fn normal_tensor(
    sizes: &[usize],
    dtype: DType,
    gen: Option<&Mutex<Generator>>,
    mut affine: impl FnMut(usize, f64) -> f64,
) -> Result<Tensor> {
    if !dtype.is_floating_point() {
        return Err(not_implemented_for("normal_kernel_cpu", dtype));
    }
    let out = Tensor::zeros(sizes, DType::Float64)?;
    let n = out.numel();
    // SAFETY: `out` is a fresh contiguous float64 tensor of exactly `n` elements, not shared.
    let z = unsafe { std::slice::from_raw_parts_mut(out.data_ptr::<f64>(), n) };
    {
        let mut g = lock_generator(gen);
        g.stream().fill_normal(z);
    }
    for (i, v) in z.iter_mut().enumerate() {
        *v = affine(i, *v);
    }
    if dtype == DType::Float64 {
        Ok(out)
    } else {
        out.to_dtype(dtype)
    }
}

/// `rand(size, *, generator=None, dtype=None)`: uniform samples in [0, 1) of shape `size`
/// (default float32). Errors: negative sizes (RuntimeError); a non-floating dtype →
/// RuntimeError `"check_uniform_bounds" not implemented for 'Long'` (torch: `torch.rand`).
pub fn rand(
    size: &[i64],
    generator: Option<&Mutex<Generator>>,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let sizes = nonnegative_sizes(size)?;
    let dtype = dtype.unwrap_or(DType::DEFAULT_FLOAT);
    if !dtype.is_floating_point() {
        return Err(not_implemented_for("check_uniform_bounds", dtype));
    }
    let mut g = lock_generator(generator);
    let mut s = g.stream();
    uniform_tensor(&sizes, dtype, &mut s)
}

/// `randn(size, *, generator=None, dtype=None)`: standard normal samples of shape `size`
/// (default float32). Errors: negative sizes; a non-floating dtype → RuntimeError
/// `"normal_kernel_cpu" not implemented for 'Long'` (torch: `torch.randn`).
pub fn randn(
    size: &[i64],
    generator: Option<&Mutex<Generator>>,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let sizes = nonnegative_sizes(size)?;
    normal_tensor(
        &sizes,
        dtype.unwrap_or(DType::DEFAULT_FLOAT),
        generator,
        |_, z| z,
    )
}

/// `rand_like(input, *, dtype=None)`: `rand` with the shape (and by default the dtype) of
/// `input`, from the default generator (torch: `torch.rand_like`).
pub fn rand_like(input: &Tensor, dtype: Option<DType>) -> Result<Tensor> {
    let dtype = dtype.unwrap_or(input.dtype());
    if !dtype.is_floating_point() {
        return Err(not_implemented_for("check_uniform_bounds", dtype));
    }
    let mut g = lock_generator(None);
    let mut s = g.stream();
    uniform_tensor(input.sizes(), dtype, &mut s)
}

/// `randn_like(input, *, dtype=None)`: `randn` with the shape (and by default the dtype) of
/// `input`, from the default generator (torch: `torch.randn_like`).
pub fn randn_like(input: &Tensor, dtype: Option<DType>) -> Result<Tensor> {
    normal_tensor(
        input.sizes(),
        dtype.unwrap_or(input.dtype()),
        None,
        |_, z| z,
    )
}

/// The inclusive integer range a dtype can hold exactly (floats: ±2^mantissa digits), as torch's
/// `check_from_to_in_range` uses it.
fn exact_int_range(dtype: DType) -> (i128, i128) {
    match dtype {
        DType::Bool => (0, 1),
        DType::UInt8 => (0, 255),
        DType::Int8 => (-128, 127),
        DType::Int16 => (i16::MIN as i128, i16::MAX as i128),
        DType::Int32 => (i32::MIN as i128, i32::MAX as i128),
        DType::Int64 => (i64::MIN as i128, i64::MAX as i128),
        DType::Float32 => (-(1 << 24), 1 << 24),
        DType::Float64 => (-(1 << 53), 1 << 53),
    }
}

/// `randint(low, high, size, *, generator=None, dtype=None)`: integers uniform in `[low, high)`
/// (rejection sampling, no modulo bias) of shape `size`, default dtype int64; any dtype holds the
/// values converted. Errors (RuntimeError, torch's texts): `low >= high` → "random_ expects
/// 'from' to be less than 'to', but got from=5 >= to=5"; bounds the dtype cannot hold → "from is
/// out of bounds for unsigned char" / "to - 1 is out of bounds for unsigned char" (torch:
/// `torch.randint`).
pub fn randint_low(
    low: i64,
    high: i64,
    size: &[i64],
    generator: Option<&Mutex<Generator>>,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let sizes = nonnegative_sizes(size)?;
    let dtype = dtype.unwrap_or(DType::Int64);
    if low >= high {
        return Err(Error::runtime(format!(
            "random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )));
    }
    let (min, max) = exact_int_range(dtype);
    // torch names the C++ type here ("unsigned char", not "Byte").
    let name = typeid_name(dtype);
    if (low as i128) < min || (low as i128) > max {
        return Err(Error::runtime(format!("from is out of bounds for {name}")));
    }
    if (high as i128 - 1) < min || (high as i128 - 1) > max {
        return Err(Error::runtime(format!(
            "to - 1 is out of bounds for {name}"
        )));
    }
    let range = (high as i128 - low as i128) as u64;
    let mut g = lock_generator(generator);
    let mut s = g.stream();
    let mut next = || low.wrapping_add(s.bounded_u64(range) as i64);
    crate::dispatch!(dtype, T => fill_new::<T>(&sizes, || T::from_i64(next())))
}

/// `randint(high, size, *, generator=None, dtype=None)`: `randint_low(0, high, size, ...)`
/// (torch: `torch.randint`).
pub fn randint(
    high: i64,
    size: &[i64],
    generator: Option<&Mutex<Generator>>,
    dtype: Option<DType>,
) -> Result<Tensor> {
    randint_low(0, high, size, generator, dtype)
}

/// `randint_like(input, high, *, generator=None, dtype=None)`: `randint(0, high)` with
/// `input`'s shape and (by default) dtype; `randint`'s errors (torch: `torch.randint_like`).
pub fn randint_like(
    input: &Tensor,
    high: i64,
    generator: Option<&Mutex<Generator>>,
    dtype: Option<DType>,
) -> Result<Tensor> {
    randint_like_low_dtype(input, 0, high, generator, dtype)
}

/// `randint_like(input, low, high, *, generator=None, dtype=None)`: `randint(low, high)` with
/// `input`'s shape and (by default) dtype (torch: `torch.randint_like`).
pub fn randint_like_low_dtype(
    input: &Tensor,
    low: i64,
    high: i64,
    generator: Option<&Mutex<Generator>>,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let size: Vec<i64> = input.sizes().iter().map(|&s| s as i64).collect();
    randint_low(
        low,
        high,
        &size,
        generator,
        Some(dtype.unwrap_or(input.dtype())),
    )
}

/// `randperm(n, *, generator=None, dtype=None)`: a random permutation of `0..n` (Fisher–Yates,
/// see src/core/random.rs), default dtype int64. Errors (RuntimeError): `n < 0` → "n must be
/// non-negative, got-1"; bool → `"randperm" not implemented for 'Bool'`; `n - 1` not exactly
/// representable in the dtype → "n is too large for result tensor type: 'CPUByteType'"
/// (torch: `torch.randperm`).
pub fn randperm(
    n: i64,
    generator: Option<&Mutex<Generator>>,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let dtype = dtype.unwrap_or(DType::Int64);
    if n < 0 {
        return Err(Error::runtime(format!("n must be non-negative, got{n}")));
    }
    if dtype == DType::Bool {
        return Err(not_implemented_for("randperm", dtype));
    }
    let (_, max) = exact_int_range(dtype);
    if (n as i128 - 1) > max {
        return Err(Error::runtime(format!(
            "n is too large for result tensor type: 'CPU{}Type'",
            dtype.scalar_type_name()
        )));
    }
    let nu = n as usize;
    let idx = Tensor::zeros(&[nu], DType::Int64)?;
    // SAFETY: `idx` is a fresh contiguous int64 tensor of exactly `nu` elements, not shared.
    let p = unsafe { std::slice::from_raw_parts_mut(idx.data_ptr::<i64>(), nu) };
    for (i, v) in p.iter_mut().enumerate() {
        *v = i as i64;
    }
    {
        let mut g = lock_generator(generator);
        let mut s = g.stream();
        for i in (1..nu).rev() {
            let j = s.bounded_u64(i as u64 + 1) as usize;
            p.swap(i, j);
        }
    }
    if dtype == DType::Int64 {
        Ok(idx)
    } else {
        idx.to_dtype(dtype)
    }
}

/// `normal(mean, std, *, generator=None)`: samples `mean + std * z` elementwise, `mean` and `std`
/// broadcast together; the result has the broadcast shape and `mean`'s dtype. Errors
/// (RuntimeError): a non-floating `mean` → `"normal_kernel_cpu" not implemented for 'Long'`; a
/// negative (or NaN) std → "normal expects all elements of std >= 0.0"; shapes that do not
/// broadcast (torch: `torch.normal(Tensor, Tensor)`).
pub fn normal(mean: &Tensor, std: &Tensor, generator: Option<&Mutex<Generator>>) -> Result<Tensor> {
    let shape = crate::core::tensor::broadcast_shapes(mean.sizes(), std.sizes())?;
    let dtype = mean.dtype();
    if !dtype.is_floating_point() {
        return Err(not_implemented_for("normal_kernel_cpu", dtype));
    }
    let shape_i: Vec<i64> = shape.iter().map(|&s| s as i64).collect();
    let m = super::conversion::try_to_f64_vec(&crate::core::ops::expand(mean, &shape_i)?)?;
    let sd = super::conversion::try_to_f64_vec(&crate::core::ops::expand(std, &shape_i)?)?;
    if sd.iter().any(|&v| v.is_nan() || v < 0.0) {
        return Err(Error::runtime("normal expects all elements of std >= 0.0"));
    }
    normal_tensor(&shape, dtype, generator, |i, z| m[i] + sd[i] * z)
}

/// `normal(mean, std=1.0, *, generator=None)` with a tensor `mean` and a float `std`: the shape
/// and (floating) dtype of `mean`. Errors as `normal` and `normal_float_float`
/// (torch: `torch.normal.Tensor_float`).
pub fn normal_tensor_float(
    mean: &Tensor,
    std: f64,
    generator: Option<&Mutex<Generator>>,
) -> Result<Tensor> {
    check_std(std)?;
    let dtype = mean.dtype();
    if !dtype.is_floating_point() {
        return Err(not_implemented_for("normal_kernel_cpu", dtype));
    }
    let m = super::conversion::try_to_f64_vec(mean)?;
    normal_tensor(mean.sizes(), dtype, generator, |i, z| m[i] + std * z)
}

/// `normal(mean, std, *, generator=None)` with a float `mean` and a tensor `std`: the shape and
/// (floating) dtype of `std`. Errors as `normal` (torch: `torch.normal.float_Tensor`).
pub fn normal_float_tensor(
    mean: f64,
    std: &Tensor,
    generator: Option<&Mutex<Generator>>,
) -> Result<Tensor> {
    let dtype = std.dtype();
    if !dtype.is_floating_point() {
        return Err(not_implemented_for("normal_kernel_cpu", dtype));
    }
    let sd = super::conversion::try_to_f64_vec(std)?;
    if sd.iter().any(|&v| v.is_nan() || v < 0.0) {
        return Err(Error::runtime("normal expects all elements of std >= 0.0"));
    }
    normal_tensor(std.sizes(), dtype, generator, |i, z| mean + sd[i] * z)
}

fn check_std(std: f64) -> Result<()> {
    if std.is_nan() || std < 0.0 {
        return Err(Error::runtime(format!(
            "normal expects std >= 0.0, but found std {}",
            crate::core::scalar::Scalar::Float(std)
        )));
    }
    Ok(())
}

/// `normal(mean, std, size, *, generator=None, dtype=None)` with float `mean`/`std`: samples of
/// shape `size` (default float32). Errors (RuntimeError): std < 0 → "normal expects std >= 0.0,
/// but found std -1"; a non-floating dtype (torch: `torch.normal.float_float`).
pub fn normal_float_float(
    mean: f64,
    std: f64,
    size: &[i64],
    generator: Option<&Mutex<Generator>>,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let sizes = nonnegative_sizes(size)?;
    check_std(std)?;
    normal_tensor(
        &sizes,
        dtype.unwrap_or(DType::DEFAULT_FLOAT),
        generator,
        |_, z| mean + std * z,
    )
}

/// `bernoulli(input, *, generator=None)`: 1 with probability `input[i]`, else 0; the result has
/// `input`'s shape and (floating) dtype. Errors (RuntimeError): a non-floating input →
/// `"bernoulli_tensor_cpu_self_" not implemented for 'Long'`; a probability outside [0, 1] →
/// "Expected p_in >= 0 && p_in <= 1 to be true, but got false." (torch: `torch.bernoulli`).
pub fn bernoulli(input: &Tensor, generator: Option<&Mutex<Generator>>) -> Result<Tensor> {
    let dtype = input.dtype();
    if dtype.category() != Category::Floating {
        return Err(not_implemented_for("bernoulli_tensor_cpu_self_", dtype));
    }
    let p = super::conversion::try_to_f64_vec(input)?;
    if p.iter().any(|&v| !(0.0..=1.0).contains(&v)) {
        return Err(Error::runtime(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.",
        ));
    }
    let mut g = lock_generator(generator);
    let mut s = g.stream();
    let mut i = 0;
    crate::dispatch!(dtype, T => fill_new::<T>(input.sizes(), || {
        let v = s.uniform_f64() < p[i];
        i += 1;
        T::from_bool(v)
    }))
}

/// `bernoulli(input, p, *, generator=None)`: 1 with probability `p` for every element; the result
/// has `input`'s shape and dtype (any dtype). Errors (RuntimeError): `p` outside [0, 1] →
/// "bernoulli_ expects p to be in [0, 1], but got p=1.5" (torch: `torch.bernoulli.p`).
pub fn bernoulli_p(input: &Tensor, p: f64, generator: Option<&Mutex<Generator>>) -> Result<Tensor> {
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::runtime(format!(
            "bernoulli_ expects p to be in [0, 1], but got p={}",
            c10_double(p)
        )));
    }
    let mut g = lock_generator(generator);
    let mut s = g.stream();
    crate::dispatch!(input.dtype(), T => fill_new::<T>(input.sizes(), || {
        T::from_bool(s.uniform_f64() < p)
    }))
}

// ----- in-place samplers (issue 13) ------------------------------------------------------------

/// Write `values` (a fresh tensor of `self_`'s shape) into `self_` and bump its version.
fn write_samples(self_: &Tensor, values: &Tensor) -> Result<()> {
    self_.check_inference_write()?;
    self_.copy_from(values)?;
    self_.bump_version();
    Ok(())
}

/// `Tensor.uniform_(from=0, to=1, *, generator=None)`: fills self with samples uniform in
/// `[from, to)`. Errors: a non-floating self → NotImplementedError `"check_uniform_bounds" not
/// implemented for 'Long'`; RuntimeError "uniform_ expects to return a [from, to) range, but
/// found from=2 > to=1" (torch: `Tensor.uniform_`).
pub fn uniform_(
    self_: &Tensor,
    from: f64,
    to: f64,
    generator: Option<&Mutex<Generator>>,
) -> Result<()> {
    let dtype = self_.dtype();
    if !dtype.is_floating_point() {
        return Err(not_implemented_for("check_uniform_bounds", dtype));
    }
    if from > to {
        return Err(Error::runtime(format!(
            "uniform_ expects to return a [from, to) range, but found from={} > to={}",
            crate::core::scalar::Scalar::Float(from),
            crate::core::scalar::Scalar::Float(to)
        )));
    }
    let values = {
        let mut g = lock_generator(generator);
        let mut s = g.stream();
        let width = to - from;
        crate::dispatch!(dtype, T => fill_new::<T>(self_.sizes(), || T::from_f64(from + width * s.uniform_f64())))?
    };
    write_samples(self_, &values)
}

/// `Tensor.normal_(mean=0, std=1, *, generator=None)`: fills self with normal samples.
/// Errors: a non-floating self → NotImplementedError `"normal_kernel_cpu" not implemented for
/// 'Long'`; RuntimeError "normal expects std >= 0.0, but found std -1" (torch: `Tensor.normal_`).
pub fn normal_(
    self_: &Tensor,
    mean: f64,
    std: f64,
    generator: Option<&Mutex<Generator>>,
) -> Result<()> {
    if !self_.dtype().is_floating_point() {
        return Err(not_implemented_for("normal_kernel_cpu", self_.dtype()));
    }
    check_std(std)?;
    let values = normal_tensor(self_.sizes(), self_.dtype(), generator, |_, z| {
        mean + std * z
    })?;
    write_samples(self_, &values)
}

/// `Tensor.bernoulli_(p=0.5, *, generator=None)`: fills self (any dtype) with 1 with
/// probability `p`, else 0. RuntimeError "bernoulli_ expects p to be in [0, 1], but got p=1.5"
/// (torch: `Tensor.bernoulli_`).
pub fn bernoulli__float(
    self_: &Tensor,
    p: f64,
    generator: Option<&Mutex<Generator>>,
) -> Result<()> {
    let values = bernoulli_p(self_, p, generator)?;
    write_samples(self_, &values)
}

/// `Tensor.exponential_(lambd=1, *, generator=None)`: fills self with exponential samples of
/// rate `lambd`. Errors (RuntimeError): "exponential_ expects lambda > 0.0, but found
/// lambda=0"; "Exponential distribution is a continuous probability distribution. dtype must be
/// a floating point but you specified Long" (torch: `Tensor.exponential_`).
pub fn exponential_(
    self_: &Tensor,
    lambd: f64,
    generator: Option<&Mutex<Generator>>,
) -> Result<()> {
    let dtype = self_.dtype();
    if !dtype.is_floating_point() {
        return Err(Error::runtime(format!(
            "Exponential distribution is a continuous probability distribution. dtype must be a floating point but you specified {}",
            dtype.scalar_type_name()
        )));
    }
    if lambd.is_nan() || lambd <= 0.0 {
        return Err(Error::runtime(format!(
            "exponential_ expects lambda > 0.0, but found lambda={}",
            crate::core::scalar::Scalar::Float(lambd)
        )));
    }
    let values = {
        let mut g = lock_generator(generator);
        let mut s = g.stream();
        crate::dispatch!(dtype, T => fill_new::<T>(self_.sizes(), || T::from_f64(-(1.0 - s.uniform_f64()).ln() / lambd)))?
    };
    write_samples(self_, &values)
}

/// `Tensor.random_(from, to, *, generator=None)`: fills self with integers uniform in
/// `[from, to)` (the `randint` checks and texts); with `to=None`, in `[from, to_inc]` where
/// `to_inc` is the dtype's largest value (2^24 for float32, 2^53 for float64, the integer
/// maximum, 1 for bool). Errors (RuntimeError) for `to=None`: "from is out of bounds for unsigned
/// char" (torch names the C++ type here); for floats, "random_ expects 'from' casted to dtype to
/// be less than or equal to 'to_inc' casted to dtype, but got from=16777216 > to_inc=16777216"
/// (torch: `Tensor.random_`).
pub fn random__from(
    self_: &Tensor,
    from: i64,
    to: Option<i64>,
    generator: Option<&Mutex<Generator>>,
) -> Result<()> {
    let dtype = self_.dtype();
    let Some(to) = to else {
        let (min, to_inc) = exact_int_range(dtype);
        if dtype.is_floating_point() {
            if from as i128 >= to_inc {
                return Err(Error::runtime(format!(
                    "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted to dtype, but got from={from} > to_inc={to_inc}"
                )));
            }
        } else if (from as i128) < min || from as i128 > to_inc {
            return Err(Error::runtime(format!(
                "from is out of bounds for {}",
                typeid_name(dtype)
            )));
        }
        let values = random_inclusive(self_.sizes(), dtype, from as i128, to_inc, generator)?;
        return write_samples(self_, &values);
    };
    let size: Vec<i64> = self_.sizes().iter().map(|&s| s as i64).collect();
    let values = randint_low(from, to, &size, generator, Some(dtype))?;
    write_samples(self_, &values)
}

/// A double as torch's messages print it (`c10::str`): `nan`, `inf`, `1.5`, `0`.
fn c10_double(v: f64) -> String {
    if v.is_nan() {
        "nan".to_string()
    } else {
        crate::core::scalar::Scalar::Float(v).to_string()
    }
}

/// The name GCC's `typeid(T).name()` demangles to, which some of torch's messages print
/// ("long int", "unsigned char").
fn typeid_name(dtype: DType) -> &'static str {
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

/// A fresh tensor of integers uniform in `[lo, hi]` (`lo <= hi`, both within i64 or the dtype's
/// exact range), converted to `dtype`.
fn random_inclusive(
    sizes: &[usize],
    dtype: DType,
    lo: i128,
    hi: i128,
    generator: Option<&Mutex<Generator>>,
) -> Result<Tensor> {
    let span = hi - lo + 1; // <= 2^64
    let mut g = lock_generator(generator);
    let mut s = g.stream();
    let mut next = || {
        let r = if span > u64::MAX as i128 {
            s.next_u64() as i128
        } else {
            s.bounded_u64(span as u64) as i128
        };
        (lo + r) as i64
    };
    crate::dispatch!(dtype, T => fill_new::<T>(sizes, || T::from_i64(next())))
}

/// `Tensor.random_(*, generator=None)`: fills self with integers uniform in `[0, to_inc]`, the
/// dtype's range from 0 (2^24 for float32, 2^53 for float64, the integer maximum, {0, 1} for
/// bool) (torch: `Tensor.random_`).
pub fn random_(self_: &Tensor, generator: Option<&Mutex<Generator>>) -> Result<()> {
    let dtype = self_.dtype();
    let (_, to_inc) = exact_int_range(dtype);
    let values = random_inclusive(self_.sizes(), dtype, 0, to_inc, generator)?;
    write_samples(self_, &values)
}

/// `Tensor.geometric_(p, *, generator=None)`: fills self with the number of Bernoulli(p) trials
/// up to the first success, `ceil(log(u) / log(1 - p))` for `u` uniform in (0, 1] (values 1, 2,
/// ...; any dtype but bool). Errors: RuntimeError "geometric_ expects p to be in (0, 1), but got
/// p=0"; NotImplementedError `"geometric_cpu" not implemented for 'Bool'` (torch:
/// `Tensor.geometric_`).
pub fn geometric_(self_: &Tensor, p: f64, generator: Option<&Mutex<Generator>>) -> Result<()> {
    if !(p > 0.0 && p < 1.0) {
        return Err(Error::runtime(format!(
            "geometric_ expects p to be in (0, 1), but got p={}",
            c10_double(p)
        )));
    }
    let dtype = self_.dtype();
    if dtype == DType::Bool {
        return Err(not_implemented_for("geometric_cpu", dtype));
    }
    let log_q = (-p).ln_1p();
    let values = {
        let mut g = lock_generator(generator);
        let mut s = g.stream();
        crate::dispatch!(dtype, T => fill_new::<T>(self_.sizes(), || {
            let u = 1.0 - s.uniform_f64();
            T::from_f64((u.ln() / log_q).ceil().max(1.0))
        }))?
    };
    write_samples(self_, &values)
}

/// `Tensor.cauchy_(median=0, sigma=1, *, generator=None)`: fills self with Cauchy samples,
/// `median + sigma * tan(pi * (u - 1/2))`. Errors (RuntimeError): "Cauchy distribution is a
/// continuous probability distribution. dtype must be a floating point but you specified long
/// int"; "cauchy_ expects sigma > 0.0, but found sigma=0" (torch: `Tensor.cauchy_`).
pub fn cauchy_(
    self_: &Tensor,
    median: f64,
    sigma: f64,
    generator: Option<&Mutex<Generator>>,
) -> Result<()> {
    let dtype = self_.dtype();
    if !dtype.is_floating_point() {
        return Err(Error::runtime(format!(
            "Cauchy distribution is a continuous probability distribution. dtype must be a floating point but you specified {}",
            typeid_name(dtype)
        )));
    }
    if sigma.is_nan() || sigma <= 0.0 {
        return Err(Error::runtime(format!(
            "cauchy_ expects sigma > 0.0, but found sigma={}",
            c10_double(sigma)
        )));
    }
    let values = {
        let mut g = lock_generator(generator);
        let mut s = g.stream();
        crate::dispatch!(dtype, T => fill_new::<T>(self_.sizes(), || {
            let u = s.uniform_f64();
            T::from_f64(median + sigma * (std::f64::consts::PI * (u - 0.5)).tan())
        }))?
    };
    write_samples(self_, &values)
}

/// `Tensor.log_normal_(mean=1, std=2, *, generator=None)`: fills self with `exp(mean + std * z)`
/// for standard normals `z`. Errors: NotImplementedError `"log_normal_cpu" not implemented for
/// 'Long'`; RuntimeError "log_normal_ expects std > 0.0, but found std=0" (torch:
/// `Tensor.log_normal_`).
pub fn log_normal_(
    self_: &Tensor,
    mean: f64,
    std: f64,
    generator: Option<&Mutex<Generator>>,
) -> Result<()> {
    if std.is_nan() || std <= 0.0 {
        return Err(Error::runtime(format!(
            "log_normal_ expects std > 0.0, but found std={}",
            c10_double(std)
        )));
    }
    let dtype = self_.dtype();
    if !dtype.is_floating_point() {
        return Err(not_implemented_for("log_normal_cpu", dtype));
    }
    let values = normal_tensor(self_.sizes(), dtype, generator, |_, z| {
        (mean + std * z).exp()
    })?;
    write_samples(self_, &values)
}

/// `Tensor.bernoulli_(p, *, generator=None)` with a tensor `p` (broadcast to self's shape,
/// floating): fills self (any dtype) with 1 where a uniform draw falls below `p`, else 0.
/// Errors: the expand error when `p` does not broadcast to self; NotImplementedError
/// `"bernoulli_tensor_cpu_p_" not implemented for 'Long'` for an integer or bool `p`;
/// RuntimeError "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (...)" for a
/// probability outside [0, 1] (torch: `Tensor.bernoulli_.Tensor`).
pub fn bernoulli__tensor(
    self_: &Tensor,
    p: &Tensor,
    generator: Option<&Mutex<Generator>>,
) -> Result<()> {
    let size: Vec<i64> = self_.sizes().iter().map(|&s| s as i64).collect();
    let p = super::view::expand(p, &size)?;
    if !p.dtype().is_floating_point() {
        return Err(not_implemented_for("bernoulli_tensor_cpu_p_", p.dtype()));
    }
    let probs = super::conversion::try_to_f64_vec(&p)?;
    if probs.iter().any(|&v| !(0.0..=1.0).contains(&v)) {
        return Err(Error::runtime(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)",
        ));
    }
    let values = {
        let mut g = lock_generator(generator);
        let mut s = g.stream();
        let mut i = 0;
        crate::dispatch!(self_.dtype(), T => fill_new::<T>(self_.sizes(), || {
            let v = s.uniform_f64() < probs[i];
            i += 1;
            T::from_bool(v)
        }))?
    };
    write_samples(self_, &values)
}

/// `multinomial(input, num_samples, replacement=False, *, generator=None)`: `num_samples`
/// category indices (int64) per row of the 1-D or 2-D floating `input` of non-negative weights.
/// With replacement: inverse-CDF draws; without: the `num_samples` largest `w / e` for
/// exponential `e` (torch's algorithm; zero-weight categories come last, in any order). Errors
/// (RuntimeError, torch's texts): "multinomial only supports floating-point dtypes for input,
/// got: Long"; "prob_dist must be 1 or 2 dim"; "cannot sample n_sample <= 0 samples"; "cannot
/// sample n_sample > prob_dist.size(-1) samples without replacement"; "number of categories
/// cannot exceed 2^24"; "probability tensor contains either `inf`, `nan` or element < 0";
/// "invalid multinomial distribution (sum of probabilities <= 0)" (torch: `torch.multinomial`).
pub fn multinomial(
    input: &Tensor,
    num_samples: i64,
    replacement: bool,
    generator: Option<&Mutex<Generator>>,
) -> Result<Tensor> {
    let dtype = input.dtype();
    if !dtype.is_floating_point() {
        return Err(Error::runtime(format!(
            "multinomial only supports floating-point dtypes for input, got: {}",
            dtype.scalar_type_name()
        )));
    }
    let dim = input.dim();
    if dim != 1 && dim != 2 {
        return Err(Error::runtime("prob_dist must be 1 or 2 dim"));
    }
    if num_samples <= 0 {
        return Err(Error::runtime("cannot sample n_sample <= 0 samples"));
    }
    let n = num_samples as usize;
    let cats = input.sizes()[dim - 1];
    if !replacement && n > cats {
        return Err(Error::runtime(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement",
        ));
    }
    if cats > 1 << 24 {
        return Err(Error::runtime("number of categories cannot exceed 2^24"));
    }
    let rows = if dim == 2 { input.sizes()[0] } else { 1 };
    let w = super::conversion::try_to_f64_vec(input)?;
    if w.iter().any(|&v| !v.is_finite() || v < 0.0) {
        return Err(Error::runtime(
            "probability tensor contains either `inf`, `nan` or element < 0",
        ));
    }
    for r in 0..rows {
        if w[r * cats..(r + 1) * cats].iter().sum::<f64>() <= 0.0 {
            return Err(Error::runtime(
                "invalid multinomial distribution (sum of probabilities <= 0)",
            ));
        }
    }
    let total = rows
        .checked_mul(n)
        .ok_or_else(|| Error::out_of_memory("multinomial: failed to allocate"))?;
    let mut out: Vec<i64> = super::try_vec(total, "multinomial")?;
    let mut g = lock_generator(generator);
    let mut s = g.stream();
    for r in 0..rows {
        let row = &w[r * cats..(r + 1) * cats];
        if replacement {
            let mut cdf = Vec::with_capacity(cats);
            let mut acc = 0.0;
            for &v in row {
                acc += v;
                cdf.push(acc);
            }
            for _ in 0..n {
                let u = s.uniform_f64() * acc;
                // The first category whose cumulative weight exceeds u (never a zero weight).
                let mut k = cdf.partition_point(|&c| c <= u).min(cats - 1);
                while row[k] == 0.0 && k > 0 {
                    k -= 1;
                }
                out.push(k as i64);
            }
        } else {
            let mut keys: Vec<(f64, usize)> = row
                .iter()
                .enumerate()
                .map(|(k, &v)| {
                    let e = -(1.0 - s.uniform_f64()).ln();
                    (v / e, k)
                })
                .collect();
            keys.sort_by(|a, b| b.0.total_cmp(&a.0));
            out.extend(keys[..n].iter().map(|&(_, k)| k as i64));
        }
    }
    let sizes: Vec<usize> = if dim == 2 { vec![rows, n] } else { vec![n] };
    Tensor::from_vec(out, &sizes)
}

/// `Tensor.random_(to, *, generator=None)`: `random_(0, to)` (torch: `Tensor.random_`).
pub fn random__to(self_: &Tensor, to: i64, generator: Option<&Mutex<Generator>>) -> Result<()> {
    random__from(self_, 0, Some(to), generator)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gen(seed: u64) -> Mutex<Generator> {
        Mutex::new(Generator::new(seed))
    }

    #[test]
    fn rand_reproducible_and_golden() {
        let g = gen(0);
        let a = rand(&[3], Some(&g), None).unwrap().to_vec::<f32>();
        // Block 0 of seed 0 is 6627e8d5 e169c58d bc57ac4c; top 24 bits * 2^-24.
        let expect: Vec<f32> = [0x6627e8d5u32, 0xe169c58d, 0xbc57ac4c]
            .iter()
            .map(|w| (w >> 8) as f32 / 16_777_216.0)
            .collect();
        assert_eq!(a, expect);
        assert_eq!(g.lock().unwrap().offset(), 1);
        let b = rand(&[3], Some(&gen(0)), None).unwrap().to_vec::<f32>();
        assert_eq!(a, b);
        let c = rand(&[3], Some(&g), None).unwrap().to_vec::<f32>();
        assert_ne!(a, c);
        let d = rand(&[2], Some(&gen(0)), Some(DType::Float64)).unwrap();
        assert_eq!(d.dtype(), DType::Float64);
        assert!(rand(&[2], Some(&g), Some(DType::Int64))
            .unwrap_err()
            .message
            .contains("\"check_uniform_bounds\" not implemented for 'Long'"));
        assert!(rand(&[-1], Some(&g), None).is_err());
    }

    #[test]
    fn randn_stats() {
        let g = gen(1);
        let t = randn(&[100_001], Some(&g), None).unwrap().to_f64_vec();
        let m = t.iter().sum::<f64>() / t.len() as f64;
        let v = t.iter().map(|x| (x - m).powi(2)).sum::<f64>() / t.len() as f64;
        assert!(m.abs() < 0.02 && (v.sqrt() - 1.0).abs() < 0.02);
        assert!(randn(&[1], Some(&g), Some(DType::Int32)).is_err());
    }

    #[test]
    fn randint_and_errors() {
        let g = gen(2);
        let t = randint_low(-3, 4, &[10_000], Some(&g), None).unwrap();
        assert_eq!(t.dtype(), DType::Int64);
        let v = t.to_vec::<i64>();
        assert!(v.iter().all(|&x| (-3..4).contains(&x)));
        assert!((-3..4).all(|k| v.contains(&k)));
        let e = randint(0, &[1], Some(&g), None).unwrap_err();
        assert_eq!(
            e.message,
            "random_ expects 'from' to be less than 'to', but got from=0 >= to=0"
        );
        let e = randint(300, &[1], Some(&g), Some(DType::UInt8)).unwrap_err();
        assert_eq!(e.message, "to - 1 is out of bounds for unsigned char");
        let f = randint(5, &[4], Some(&g), Some(DType::Float32)).unwrap();
        assert!(f.to_f64_vec().iter().all(|&x| x.fract() == 0.0 && x < 5.0));
        // The full int64 range works (range 2^64 - 1).
        assert!(randint_low(i64::MIN, i64::MAX, &[4], Some(&g), None).is_ok());
    }

    #[test]
    fn randperm_is_permutation() {
        let g = gen(3);
        let mut v = randperm(1000, Some(&g), None).unwrap().to_vec::<i64>();
        v.sort_unstable();
        assert_eq!(v, (0..1000).collect::<Vec<_>>());
        assert!(randperm(0, Some(&g), None).unwrap().numel() == 0);
        assert!(randperm(-1, Some(&g), None).is_err());
        assert!(randperm(3, Some(&g), Some(DType::Bool)).is_err());
        assert!(randperm(257, Some(&g), Some(DType::UInt8)).is_err());
        assert!(randperm(256, Some(&g), Some(DType::UInt8)).is_ok());
    }

    #[test]
    fn normal_and_bernoulli() {
        let g = gen(4);
        let mean = Tensor::from_vec(vec![0.0f32, 100.0], &[2, 1]).unwrap();
        let std = Tensor::from_vec(vec![0.0f32, 0.0, 0.0], &[3]).unwrap();
        let t = normal(&mean, &std, Some(&g)).unwrap();
        assert_eq!(t.sizes(), &[2, 3]);
        assert_eq!(t.to_vec::<f32>(), vec![0.0, 0.0, 0.0, 100.0, 100.0, 100.0]);
        let neg = Tensor::from_vec(vec![-1.0f32], &[1]).unwrap();
        assert!(normal(&mean, &neg, Some(&g)).is_err());
        let e = normal_float_float(0.0, -1.0, &[1], Some(&g), None).unwrap_err();
        assert_eq!(e.message, "normal expects std >= 0.0, but found std -1");
        let p = Tensor::from_vec(vec![0.0f64, 1.0, 0.0, 1.0], &[4]).unwrap();
        assert_eq!(
            bernoulli(&p, Some(&g)).unwrap().to_vec::<f64>(),
            vec![0.0, 1.0, 0.0, 1.0]
        );
        let ones = Tensor::zeros(&[50_000], DType::Int64).unwrap();
        let b = bernoulli_p(&ones, 0.25, Some(&g)).unwrap();
        let frac = b.to_f64_vec().iter().sum::<f64>() / 50_000.0;
        assert!((frac - 0.25).abs() < 0.01);
        assert!(bernoulli_p(&ones, 1.5, Some(&g)).is_err());
        assert!(bernoulli(&ones, Some(&g)).is_err());
    }
}
