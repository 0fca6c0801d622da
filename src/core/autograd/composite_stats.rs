//! src/core/autograd/composite_stats.rs: the numeric and statistics ops torch defines as
//! compositions of other ops (CompositeImplicitAutograd: `diff`, `msort`, `trapezoid`/`trapz`,
//! `cov`, `corrcoef`, `ldexp`, `float_power`), written over the recording wrappers of
//! variable_type.rs as composite.rs is, so their history is that of the ops they are made of.
//! variable_type.rs re-exports them; src/derivatives.yaml names the node each records.

use super::variable_type as vt;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::ops;
use crate::core::scalar::Scalar;
use crate::core::tensor::{maybe_wrap_dim, Tensor};
use crate::core::warnings::{warn, WarningKind};

fn num(s: Scalar) -> Result<Tensor> {
    Tensor::wrapped_scalar(s)
}

// ---- diff, msort ----------------------------------------------------------------------------

/// torch's `diff_check_compatible_shape`.
fn diff_check_shape(input: &Tensor, other: Option<&Tensor>, dim: i64) -> Result<()> {
    let Some(o) = other else { return Ok(()) };
    let d = maybe_wrap_dim(dim, input.dim())?;
    if o.dim() != input.dim() {
        return Err(Error::runtime(
            "diff expects prepend or append to be the same dimension as input",
        ));
    }
    for i in 0..o.dim() {
        if i != d && o.sizes()[i] != input.sizes()[i] {
            return Err(Error::runtime(format!(
                "diff expects the shape of tensor to prepend or append to match that of input except along the differencing dimension; input.size({i}) = {}, but got tensor.size({i}) = {}",
                input.sizes()[i],
                o.sizes()[i]
            )));
        }
    }
    Ok(())
}

/// `diff(input, n=1, dim=-1, prepend=None, append=None)`: the n-th forward difference along
/// `dim` (`logical_xor` of neighbours for bool), after concatenating `prepend` and `append`
/// along it; a dim of size `n` or less gives an empty result. RuntimeError "diff expects input
/// to be at least one-dimensional", "order must be non-negative but got -1". Mirrors
/// `torch.diff`.
pub fn diff(
    input: &Tensor,
    n: i64,
    dim: i64,
    prepend: Option<&Tensor>,
    append: Option<&Tensor>,
) -> Result<Tensor> {
    if input.dim() == 0 {
        return Err(Error::runtime(
            "diff expects input to be at least one-dimensional",
        ));
    }
    if n < 0 {
        return Err(Error::runtime(format!(
            "order must be non-negative but got {n}"
        )));
    }
    diff_check_shape(input, prepend, dim)?;
    diff_check_shape(input, append, dim)?;
    let d = maybe_wrap_dim(dim, input.dim())?;
    if n == 0 {
        return vt::clone(input);
    }
    let mut x = if prepend.is_some() || append.is_some() {
        let mut parts = Vec::with_capacity(3);
        if let Some(p) = prepend {
            parts.push(p.clone());
        }
        parts.push(input.clone());
        if let Some(a) = append {
            parts.push(a.clone());
        }
        vt::cat(&parts, d as i64)?
    } else {
        input.clone()
    };
    let len = x.sizes()[d] as i64;
    if n >= len {
        let mut s = x.sizes().to_vec();
        s[d] = 0;
        return Tensor::zeros(&s, x.dtype());
    }
    for _ in 0..n {
        let m = x.sizes()[d] as i64 - 1;
        let hi = vt::narrow(&x, d as i64, 1, m)?;
        let lo = vt::narrow(&x, d as i64, 0, m)?;
        x = if x.dtype() == DType::Bool {
            ops::logical_xor(&hi, &lo)?
        } else {
            vt::sub(&hi, &lo, Scalar::Int(1))?
        };
    }
    Ok(x)
}

/// `msort(input)`: `input` sorted along dim 0 (the values of `sort(input, 0)`). Mirrors
/// `torch.msort`.
pub fn msort(input: &Tensor) -> Result<Tensor> {
    Ok(vt::sort(input, 0, false, false)?.0)
}

// ---- trapezoid ------------------------------------------------------------------------------

/// torch's `zeros_like_except(y, dim)`: zeros of `y`'s shape without `dim`.
fn zeros_except(y: &Tensor, d: usize) -> Result<Tensor> {
    let mut s = y.sizes().to_vec();
    s.remove(d);
    Tensor::zeros(&s, y.dtype())
}

/// torch's `maybe_wrap_dim(dim, y.dim(), /*wrap_scalar=*/false)`: a 0-dim `y` has no dim.
/// The `x` overload wraps first, as a scalar were 1-dim, and names the wrapped dim (`wrapped`).
fn trapezoid_dim(y: &Tensor, dim: i64, wrapped: bool) -> Result<usize> {
    if y.dim() == 0 {
        let shown = if wrapped {
            maybe_wrap_dim(dim, 1)? as i64
        } else {
            dim
        };
        return Err(Error::index(format!(
            "Dimension specified as {shown} but tensor has no dimensions"
        )));
    }
    maybe_wrap_dim(dim, y.dim())
}

fn trapezoid_no_bool(y: &Tensor) -> Result<()> {
    if y.dtype() == DType::Bool {
        return Err(Error::not_implemented(
            "trapezoid: received a bool input for `y`, but bool is not supported",
        ));
    }
    Ok(())
}

/// `trapezoid(y, *, dx=1, dim=-1)`: the trapezoidal rule along `dim` with constant spacing,
/// `(sum(y) - (y[0] + y[-1]) / 2) * dx`. Mirrors `torch.trapezoid`.
pub fn trapezoid_dx(y: &Tensor, dx: Scalar, dim: i64) -> Result<Tensor> {
    let d = trapezoid_dim(y, dim, false)?;
    if y.sizes()[d] == 0 {
        return zeros_except(y, d);
    }
    trapezoid_no_bool(y)?;
    if matches!(dx, Scalar::Bool(_)) {
        return Err(Error::runtime(
            "trapezoid: Currently, we only support dx as a real number.",
        ));
    }
    let ends = vt::add(
        &vt::select(y, d as i64, 0)?,
        &vt::select(y, d as i64, -1)?,
        Scalar::Int(1),
    )?;
    let s = vt::sub(
        &vt::sum(y, Some(&[d as i64]), false, None)?,
        &vt::mul(&ends, &num(Scalar::Float(0.5))?)?,
        Scalar::Int(1),
    )?;
    vt::mul(&s, &num(Scalar::Float(dx.to_f64()))?)
}

/// `trapezoid(y, x, *, dim=-1)`: the trapezoidal rule along `dim` at the sample points `x` (1-D
/// of `y`'s length along `dim`, or broadcastable to `y`). RuntimeError "trapezoid: There must be
/// one `x` value for each sample point". Mirrors `torch.trapezoid`.
pub fn trapezoid(y: &Tensor, x: &Tensor, dim: i64) -> Result<Tensor> {
    let d = trapezoid_dim(y, dim, true)?;
    if y.sizes()[d] == 0 {
        return zeros_except(y, d);
    }
    if y.dtype() == DType::Bool || x.dtype() == DType::Bool {
        return Err(Error::not_implemented(
            "trapezoid: received a bool input for `x` or `y`, but bool is not supported.",
        ));
    }
    let xv = if x.dim() == 1 {
        if x.sizes()[0] != y.sizes()[d] {
            return Err(Error::runtime(
                "trapezoid: There must be one `x` value for each sample point",
            ));
        }
        let mut s = vec![1i64; y.dim()];
        s[d] = x.sizes()[0] as i64;
        vt::view(x, &s)?
    } else if x.dim() < y.dim() {
        let mut s = vec![1i64; y.dim() - x.dim()];
        s.extend(x.sizes().iter().map(|&v| v as i64));
        vt::view(x, &s)?
    } else {
        x.clone()
    };
    let xd = maybe_wrap_dim(dim, xv.dim())?;
    let xm = xv.sizes()[xd] as i64 - 1;
    let dx = vt::sub(
        &vt::narrow(&xv, xd as i64, 1, xm.max(0))?,
        &vt::narrow(&xv, xd as i64, 0, xm.max(0))?,
        Scalar::Int(1),
    )?;
    let m = y.sizes()[d] as i64 - 1;
    let lr = vt::add(
        &vt::narrow(y, d as i64, 0, m)?,
        &vt::narrow(y, d as i64, 1, m)?,
        Scalar::Int(1),
    )?;
    let s = vt::sum(&vt::mul(&lr, &dx)?, Some(&[d as i64]), false, None)?;
    vt::div(&s, &num(Scalar::Float(2.0))?, None)
}

/// `trapz(y, x, *, dim=-1)`: alias of `trapezoid`. Mirrors `torch.trapz`.
pub fn trapz(y: &Tensor, x: &Tensor, dim: i64) -> Result<Tensor> {
    trapezoid(y, x, dim)
}

/// `trapz(y, *, dx=1, dim=-1)`: alias of `trapezoid(y, dx=dx)`. Mirrors `torch.trapz`.
pub fn trapz_dx(y: &Tensor, dx: f64, dim: i64) -> Result<Tensor> {
    trapezoid_dx(y, Scalar::Float(dx), dim)
}

// ---- cov, corrcoef --------------------------------------------------------------------------

fn is_true(t: &Tensor) -> Result<bool> {
    Ok(t.item()?.to_bool())
}

/// `cov(input, *, correction=1, fweights=None, aweights=None)`: the covariance matrix of the
/// variables in the rows of `input` (a 1-D input is one variable), observations in columns,
/// optionally weighted by integer frequencies and float observation weights; a 0-dim result for
/// one variable. Warns "cov(): degrees of freedom is <= 0..." and divides by 0 then. Errors in
/// torch's words. Mirrors `torch.cov`.
pub fn cov(
    input: &Tensor,
    correction: i64,
    fweights: Option<&Tensor>,
    aweights: Option<&Tensor>,
) -> Result<Tensor> {
    if input.dim() > 2 {
        return Err(Error::runtime(format!(
            "cov(): expected input to have two or fewer dimensions but got an input with {} dimensions",
            input.dim()
        )));
    }
    if input.dtype() == DType::Bool {
        return Err(Error::runtime(
            "cov(): bool dtype is not supported for input",
        ));
    }
    let inp = if input.dim() < 2 {
        vt::view(input, &[1, -1])?
    } else {
        input.clone()
    };
    let nobs = inp.sizes()[1];
    let mut w: Option<Tensor> = None;
    if let Some(f) = fweights {
        if f.dim() > 1 {
            return Err(Error::runtime(format!(
                "cov(): expected fweights to have one or fewer dimensions but got fweights with {} dimensions",
                f.dim()
            )));
        }
        if f.dtype().is_floating_point() || f.dtype() == DType::Bool {
            return Err(Error::runtime(format!(
                "cov(): expected fweights to have integral dtype but got fweights with {} dtype",
                f.dtype().scalar_type_name()
            )));
        }
        if f.numel() != nobs {
            return Err(Error::runtime(format!(
                "cov(): expected fweights to have the same numel as there are observations in the input but got {} != {}",
                f.numel(),
                nobs
            )));
        }
        if nobs != 0 && !is_true(&ops::ge(&ops::min(f)?, &num(Scalar::Int(0))?)?)? {
            return Err(Error::runtime("cov(): fweights cannot be negative"));
        }
        w = Some(f.clone());
    }
    if let Some(a) = aweights {
        if a.dim() > 1 {
            return Err(Error::runtime(format!(
                "cov(): expected aweights to have one or fewer dimensions but got aweights with {} dimensions",
                a.dim()
            )));
        }
        if !a.dtype().is_floating_point() {
            return Err(Error::runtime(format!(
                "cov(): expected aweights to have floating point dtype but got aweights with {} dtype",
                a.dtype().scalar_type_name()
            )));
        }
        if a.numel() != nobs {
            return Err(Error::runtime(format!(
                "cov(): expected aweights to have the same numel as there are observations in the input but got {} != {}",
                a.numel(),
                nobs
            )));
        }
        if nobs != 0 && !is_true(&ops::ge(&ops::min(a)?, &num(Scalar::Int(0))?)?)? {
            return Err(Error::runtime("cov(): aweights cannot be negative"));
        }
        w = Some(match w {
            Some(f) => vt::mul(&f, a)?,
            None => a.clone(),
        });
    }
    let w_sum = match &w {
        Some(w) => vt::sum_all(w, None)?,
        None => Tensor::scalar_tensor(Scalar::Int(nobs as i64), DType::Int64)?,
    };
    if w.is_some() && !is_true(&ops::ne(&w_sum, &num(Scalar::Int(0))?)?)? {
        return Err(Error::runtime(
            "cov(): weights sum to zero, can't be normalized",
        ));
    }
    let weighted = match &w {
        Some(w) => vt::mul(&inp, w)?,
        None => inp.clone(),
    };
    let avg = vt::div(&vt::sum(&weighted, Some(&[1]), false, None)?, &w_sum, None)?;
    let mut norm_factor = match (&w, aweights) {
        (Some(w), Some(a)) if correction != 0 => vt::sub(
            &w_sum,
            &vt::div(
                &vt::mul(
                    &vt::sum_all(&vt::mul(w, a)?, None)?,
                    &num(Scalar::Int(correction))?,
                )?,
                &w_sum,
                None,
            )?,
            Scalar::Int(1),
        )?,
        _ => vt::sub(&w_sum, &num(Scalar::Int(correction))?, Scalar::Int(1))?,
    };
    if is_true(&ops::le(&norm_factor, &num(Scalar::Int(0))?)?)? {
        warn(
            WarningKind::User,
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of observations.",
        );
        norm_factor = Tensor::zeros(&[], norm_factor.dtype())?;
    }
    let centered = vt::sub(&inp, &vt::unsqueeze(&avg, 1)?, Scalar::Int(1))?;
    let rhs = match &w {
        Some(w) => vt::mul(&centered, w)?,
        None => centered.clone(),
    };
    let c = vt::mm(&centered, &vt::t(&rhs)?)?;
    vt::squeeze(&vt::div(&c, &norm_factor, None)?)
}

/// `corrcoef(input)`: Pearson correlation coefficients of the rows of `input` (`cov` normalised
/// by the standard deviations, clipped to [-1, 1]; one variable gives `c / c`: 1, or NaN).
/// Mirrors `torch.corrcoef`.
pub fn corrcoef(input: &Tensor) -> Result<Tensor> {
    if input.dim() > 2 {
        return Err(Error::runtime(format!(
            "corrcoef(): expected input to have two or fewer dimensions but got an input with {} dimensions",
            input.dim()
        )));
    }
    let c = cov(input, 1, None, None)?;
    if c.dim() == 0 {
        return vt::div(&c, &c, None);
    }
    let n = c.sizes()[0] as i64;
    // The diagonal as a masked row sum (diagonal has no recording wrapper yet).
    let eye = ops::eye(n, Some(c.dtype()))?;
    let d = vt::sum(&vt::mul(&c, &eye)?, Some(&[1]), false, None)?;
    let stddev = vt::sqrt(&d)?;
    let c = vt::div(&c, &vt::view(&stddev, &[-1, 1])?, None)?;
    let c = vt::div(&c, &vt::view(&stddev, &[1, -1])?, None)?;
    vt::clamp(&c, Some(Scalar::Int(-1)), Some(Scalar::Int(1)))
}

// ---- ldexp, float_power ---------------------------------------------------------------------

/// `ldexp(input, other)`: `input * 2 ** other`, broadcast (float32 for integer operands).
/// Mirrors `torch.ldexp`.
pub fn ldexp(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    vt::mul(input, &vt::pow(&num(Scalar::Float(2.0))?, other)?)
}

/// `float_power(input, exponent)`: `pow` computed in float64 (both operands converted first).
/// Mirrors `torch.float_power`.
pub fn float_power_tensor_tensor(input: &Tensor, exponent: &Tensor) -> Result<Tensor> {
    vt::pow(
        &vt::to(input, DType::Float64, false, false)?,
        &vt::to(exponent, DType::Float64, false, false)?,
    )
}

/// `float_power(input, exponent)` with a number exponent, taken as a double.
pub fn float_power_tensor_scalar(input: &Tensor, exponent: Scalar) -> Result<Tensor> {
    vt::pow(
        &vt::to(input, DType::Float64, false, false)?,
        &num(Scalar::Float(exponent.to_f64()))?,
    )
}

/// `float_power(self, exponent)` with a number base, taken as a double.
pub fn float_power_scalar(input: Scalar, exponent: &Tensor) -> Result<Tensor> {
    vt::pow(
        &num(Scalar::Float(input.to_f64()))?,
        &vt::to(exponent, DType::Float64, false, false)?,
    )
}

// ---- addbmm -------------------------------------------------------------------------------

/// `addbmm(input, batch1, batch2, *, beta=1, alpha=1)`: `beta * input + alpha *
/// sum_b(batch1[b] @ batch2[b])`, `input` broadcast to `[n, p]`; `beta = 0` ignores `input`
/// (its NaN and inf too). Errors in torch's words and order. Mirrors `torch.addbmm`.
pub fn addbmm(
    input: &Tensor,
    batch1: &Tensor,
    batch2: &Tensor,
    beta: Scalar,
    alpha: Scalar,
) -> Result<Tensor> {
    ops::addbmm_checks(input, batch1, batch2)?;
    let (beta, alpha) = ops::addbmm_scalars(batch1.dtype(), beta, alpha);
    let (n, p) = (batch1.sizes()[1] as i64, batch2.sizes()[2] as i64);
    // Summed in the batches' dtype: torch keeps an integer dtype (sum alone would give int64).
    let prod = vt::sum(
        &vt::matmul(batch1, batch2)?,
        Some(&[0]),
        false,
        Some(batch1.dtype()),
    )?;
    let prod = if alpha == Scalar::Int(1) {
        prod
    } else {
        vt::mul(&prod, &num(alpha)?)?
    };
    if beta.to_f64() == 0.0 {
        return Ok(prod);
    }
    let b_self = vt::expand(input, &[n, p])?;
    let b_self = if beta == Scalar::Int(1) {
        b_self
    } else {
        vt::mul(&b_self, &num(beta)?)?
    };
    vt::add(&b_self, &prod, Scalar::Int(1))
}

// ---- formulas -------------------------------------------------------------------------------

/// The gradient of `sinc` (torch's `sinc_backward`): `grad * (pi x cos(pi x) - sin(pi x)) /
/// (pi x^2)`, 0 at `x == 0`. Written over the recording wrappers (double backward).
pub fn sinc_backward(grad: &Tensor, input: &Tensor) -> Result<Tensor> {
    let pix = vt::mul(input, &num(Scalar::Float(std::f64::consts::PI))?)?;
    let numer = vt::sub(
        &vt::mul(&pix, &vt::cos(&pix)?)?,
        &vt::sin(&pix)?,
        Scalar::Int(1),
    )?;
    let d = vt::div(&numer, &vt::mul(&pix, input)?, None)?;
    let zero = ops::eq(input, &num(Scalar::Int(0))?)?;
    vt::mul(grad, &vt::masked_fill(&d, &zero, Scalar::Int(0))?)
}

/// `logcumsumexp(x)` of `x` reversed along `dim`, reversed back (a suffix log-sum-exp).
fn reverse_logcumsumexp(x: &Tensor, dim: i64) -> Result<Tensor> {
    vt::flip(&vt::logcumsumexp(&vt::flip(x, &[dim])?, dim)?, &[dim])
}

/// The gradient of `logcumsumexp` (torch's `logcumsumexp_backward`): the positive and the
/// negative parts of `grad` carried through suffix log-sum-exps in log space, so nothing
/// overflows: `exp(rlcse(log(grad+) - result) + self) - exp(rlcse(log(grad-) - result) + self)`.
pub fn logcumsumexp_backward(
    grad: &Tensor,
    input: &Tensor,
    result: &Tensor,
    dim: i64,
) -> Result<Tensor> {
    if grad.dim() == 0 || grad.numel() == 0 {
        return Ok(grad.clone());
    }
    let lowest = match grad.dtype() {
        DType::Float32 => f32::MIN as f64,
        _ => f64::MIN,
    };
    let grad_min = Tensor::scalar_tensor(Scalar::Float(lowest), grad.dtype())?;
    let log_abs = vt::log(&vt::abs(grad)?)?;
    let zero = num(Scalar::Int(0))?;
    let pos = vt::where_(&ops::gt(grad, &zero)?, &log_abs, &grad_min)?;
    let neg = vt::where_(&ops::lt(grad, &zero)?, &log_abs, &grad_min)?;
    let one = Scalar::Int(1);
    let out_pos = vt::exp(&vt::add(
        &reverse_logcumsumexp(&vt::sub(&pos, result, one)?, dim)?,
        input,
        one,
    )?)?;
    let out_neg = vt::exp(&vt::add(
        &reverse_logcumsumexp(&vt::sub(&neg, result, one)?, dim)?,
        input,
        one,
    )?)?;
    vt::sub(&out_pos, &out_neg, one)
}
