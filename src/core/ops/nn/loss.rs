//! src/core/ops/nn/loss.rs: the loss functions (PyTorch: `native/Loss.cpp`,
//! `LossNLL.cpp`, `LossNLL2d.cpp`, `BinaryOps` for `mse_loss`) — `mse_loss`, `l1_loss`,
//! `smooth_l1_loss`, `huber_loss`, `binary_cross_entropy`, `binary_cross_entropy_with_logits`,
//! `kl_div`, `nll_loss_forward` (with the total weight a backward needs), `nll_loss_nd` and
//! `cross_entropy_loss` (class indices or probabilities, `label_smoothing`). `reduction` is
//! torch's enum as an int (0 none, 1 mean, 2 sum; `_Reduction.get_enum`).

use super::{contiguous_of, elems, float_dispatch, new_with, Float, Reduction};
use crate::core::dtype::{DType, Element};
use crate::core::error::{Error, Result};
use crate::core::ops;
use crate::core::scalar::Scalar;
use crate::core::tensor::Tensor;

/// `t` reduced as `reduction` says: itself, its mean or its sum (0-dim).
fn reduce(t: Tensor, reduction: i64) -> Result<Tensor> {
    match Reduction::from_int(reduction)? {
        Reduction::None => Ok(t),
        Reduction::Mean => ops::mean(&t, None, false, None),
        Reduction::Sum => ops::sum(&t, None, false, None),
    }
}

/// `f(a, b)` elementwise over two tensors of one shape and float dtype `T` (a new tensor).
fn zip_map<T: Float>(a: &Tensor, b: &Tensor, mut f: impl FnMut(T, T) -> T) -> Result<Tensor> {
    let (a, b) = (contiguous_of(a)?, contiguous_of(b)?);
    new_with::<T>(a.sizes(), |o| {
        // SAFETY: both are contiguous of dtype `T` (the caller converted them), read only here.
        let (x, y) = unsafe { (elems::<T>(&a), elems::<T>(&b)) };
        for ((o, &x), &y) in o.iter_mut().zip(x).zip(y) {
            *o = f(x, y);
        }
        Ok(())
    })
}

/// `input` and `target` broadcast against each other, in their common float dtype.
fn broadcast_pair(input: &Tensor, target: &Tensor) -> Result<(Tensor, Tensor)> {
    let shape = crate::core::tensor::broadcast_shapes(input.sizes(), target.sizes())?;
    let dtype = crate::core::promote::result_type(&[input, target]);
    let s: Vec<i64> = shape.iter().map(|&x| x as i64).collect();
    Ok((
        ops::expand(&input.to_dtype(dtype)?, &s)?,
        ops::expand(&target.to_dtype(dtype)?, &s)?,
    ))
}

/// `mse_loss(input, target, reduction=1)`: `(input - target)^2`, reduced. Mirrors
/// `torch._C._nn.mse_loss`.
pub fn mse_loss(input: &Tensor, target: &Tensor, reduction: i64) -> Result<Tensor> {
    Reduction::from_int(reduction)?;
    let d = ops::sub(input, target, Scalar::Int(1))?;
    reduce(ops::mul(&d, &d)?, reduction)
}

/// `l1_loss(input, target, reduction=1)`: `|input - target|`, reduced. Mirrors `torch.l1_loss`.
pub fn l1_loss(input: &Tensor, target: &Tensor, reduction: i64) -> Result<Tensor> {
    Reduction::from_int(reduction)?;
    let d = ops::sub(input, target, Scalar::Int(1))?;
    reduce(ops::abs(&d)?, reduction)
}

/// `smooth_l1_loss(input, target, reduction=1, beta=1.0)`: `0.5 d^2 / beta` where `|d| < beta`,
/// else `|d| - beta / 2` (`d = input - target`; `beta == 0` is `l1_loss`). Mirrors
/// `torch._C._nn.smooth_l1_loss`.
pub fn smooth_l1_loss(
    input: &Tensor,
    target: &Tensor,
    reduction: i64,
    beta: f64,
) -> Result<Tensor> {
    Reduction::from_int(reduction)?;
    if beta < 0.0 {
        return Err(Error::runtime(
            "smooth_l1_loss does not support negative values for beta.",
        ));
    }
    if beta == 0.0 {
        return l1_loss(input, target, reduction);
    }
    let (x, t) = broadcast_pair(input, target)?;
    let l = float_dispatch!(x.dtype(), "smooth_l1_cpu", T => {
        let b = T::of(beta);
        zip_map::<T>(&x, &t, |x, y| {
            let d = (x - y).abs();
            if d < b { T::of(0.5) * d * d / b } else { d - T::of(0.5) * b }
        })
    })?;
    reduce(l, reduction)
}

/// `huber_loss(input, target, reduction=1, delta=1.0)`: `0.5 d^2` where `|d| < delta`, else
/// `delta (|d| - delta / 2)`. Mirrors `torch._C._nn.huber_loss`.
pub fn huber_loss(input: &Tensor, target: &Tensor, reduction: i64, delta: f64) -> Result<Tensor> {
    Reduction::from_int(reduction)?;
    if delta <= 0.0 {
        return Err(Error::runtime(
            "huber_loss does not support non-positive values for delta.",
        ));
    }
    let (x, t) = broadcast_pair(input, target)?;
    let l = float_dispatch!(x.dtype(), "huber_cpu", T => {
        let dl = T::of(delta);
        zip_map::<T>(&x, &t, |x, y| {
            let d = (x - y).abs();
            if d < dl { T::of(0.5) * d * d } else { dl * (d - T::of(0.5) * dl) }
        })
    })?;
    reduce(l, reduction)
}

/// `binary_cross_entropy(input, target, weight=None, reduction=1)`: `-w (t log x + (1 - t)
/// log(1 - x))`, each log clamped at -100 as torch does. Mirrors
/// `torch._C._nn.binary_cross_entropy`.
pub fn binary_cross_entropy(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    reduction: i64,
) -> Result<Tensor> {
    Reduction::from_int(reduction)?;
    if input.sizes() != target.sizes() {
        return Err(Error::runtime(format!(
            "binary_cross_entropy: input and target must have the same shape, got {:?} and {:?}",
            input.sizes(),
            target.sizes()
        )));
    }
    let t = target.to_dtype(input.dtype())?;
    let mut bad = false;
    let l = float_dispatch!(input.dtype(), "binary_cross_entropy", T => {
        zip_map::<T>(input, &t, |x, y| {
            if !(T::ZERO..=T::ONE).contains(&x) {
                bad = true;
            }
            let lx = x.ln().maxn(T::of(-100.0));
            let l1x = (T::ONE - x).ln().maxn(T::of(-100.0));
            (y - T::ONE) * l1x - y * lx
        })
    })?;
    if bad {
        return Err(Error::runtime(
            "all elements of input should be between 0 and 1",
        ));
    }
    let l = match weight {
        Some(w) => ops::mul(&l, w)?,
        None => l,
    };
    reduce(l, reduction)
}

/// `binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
/// reduction=1)`: `(1 - t) x + lw (log(1 + exp(-|x|)) + max(-x, 0))` with `lw = 1 + (pw - 1) t`,
/// times `weight`. Mirrors `torch.binary_cross_entropy_with_logits`.
pub fn binary_cross_entropy_with_logits(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    pos_weight: Option<&Tensor>,
    reduction: i64,
) -> Result<Tensor> {
    Reduction::from_int(reduction)?;
    let (x, t) = broadcast_pair(input, target)?;
    let (a, b) = float_dispatch!(x.dtype(), "binary_cross_entropy_with_logits", T => {
        let a = zip_map::<T>(&x, &t, |x, y| (T::ONE - y) * x)?;
        let b = zip_map::<T>(&x, &t, |x, _| {
            (-x.abs()).exp().ln_1p() + (-x).maxn(T::ZERO)
        })?;
        Ok::<_, Error>((a, b))
    })?;
    let b = match pos_weight {
        Some(pw) => {
            // lw = (pos_weight - 1) * t + 1
            let pwm1 = ops::sub(pw, &Tensor::wrapped_scalar(Scalar::Int(1))?, Scalar::Int(1))?;
            let lw = ops::add(
                &ops::mul(&pwm1, &t)?,
                &Tensor::wrapped_scalar(Scalar::Int(1))?,
                Scalar::Int(1),
            )?;
            ops::mul(&lw, &b)?
        }
        None => b,
    };
    let mut l = ops::add(&a, &b, Scalar::Int(1))?;
    if let Some(w) = weight {
        l = ops::mul(&l, w)?;
    }
    reduce(l, reduction)
}

/// `kl_div(input, target, reduction=1, log_target=False)`: `target (log target - input)`
/// (0 where `target == 0`), or `exp(target) (target - input)` with `log_target`; `reduction`
/// mean is over every element (`'batchmean'` is the Python wrapper's). Mirrors `torch.kl_div`.
pub fn kl_div(input: &Tensor, target: &Tensor, reduction: i64, log_target: bool) -> Result<Tensor> {
    Reduction::from_int(reduction)?;
    let (x, t) = broadcast_pair(input, target)?;
    let l = float_dispatch!(x.dtype(), "kl_div", T => {
        if log_target {
            zip_map::<T>(&x, &t, |x, y| y.exp() * (y - x))
        } else {
            zip_map::<T>(&x, &t, |x, y| {
                // xlogy(t, t) - t * x, with 0 log 0 = 0 (NaN stays NaN)
                let xl = if y == T::ZERO && !y.is_nan() { T::ZERO } else { y * y.ln() };
                xl - y * x
            })
        }
    })?;
    reduce(l, reduction)
}

/// The geometry of an nll/cross-entropy input: `(n, c, s)` for an input seen as `(n, c, s)`
/// (`(C,)` is `(1, C, 1)`, `(N, C)` is `(N, C, 1)`, `(N, C, d1, ...)` is `(N, C, d1*...)`),
/// after torch's checks of the target's shape.
fn nll_geometry(input: &Tensor, target: &Tensor) -> Result<(usize, usize, usize)> {
    let d = input.dim();
    if d < 1 {
        return Err(Error::value(format!(
            "Expected 1 or more dimensions (got {d})"
        )));
    }
    if d == 1 {
        if target.dim() != 0 {
            return Err(Error::runtime(
                "0D or 1D target tensor expected, multi-target not supported",
            ));
        }
        return Ok((1, input.sizes()[0], 1));
    }
    let n = input.sizes()[0];
    let tn = target.sizes().first().copied().unwrap_or(1);
    if target.dim() == 0 || tn != n {
        return Err(Error::value(format!(
            "Expected input batch_size ({n}) to match target batch_size ({}).",
            if target.dim() == 0 { 1 } else { tn }
        )));
    }
    let c = input.sizes()[1];
    let spatial = &input.sizes()[2..];
    if target.sizes()[1..] != *spatial {
        return Err(Error::runtime(format!(
            "Expected target size {:?}, got {:?}",
            [&[n][..], spatial].concat(),
            target.sizes()
        )));
    }
    Ok((n, c, spatial.iter().product()))
}

fn check_target_dtype(target: &Tensor) -> Result<()> {
    if !matches!(target.dtype(), DType::Int64 | DType::UInt8) {
        return Err(Error::runtime(format!(
            "expected scalar type Long but found {}",
            target.dtype().scalar_type_name()
        )));
    }
    Ok(())
}

/// The per-element nll terms of `input` `(n, c, s)`: `(loss[n*s], weight_of_target[n*s])`,
/// both 0 at `ignore_index`.
fn nll_terms<T: Float>(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    ignore_index: i64,
    (n, c, s): (usize, usize, usize),
) -> Result<(Vec<T>, Vec<T>)> {
    let x = contiguous_of(input)?;
    let tg: Vec<i64> = target.to_dtype(DType::Int64)?.to_vec::<i64>();
    let w: Option<Vec<T>> = match weight {
        Some(w) => {
            if w.numel() != c {
                return Err(Error::runtime(format!(
                    "weight tensor should be defined either for all {c} classes or no classes but got weight tensor of shape: {:?}",
                    w.sizes()
                )));
            }
            Some(w.to_dtype(T::DTYPE)?.to_vec::<T>())
        }
        None => None,
    };
    // SAFETY: `x` is contiguous of dtype `T` (the caller dispatched on it).
    let xs = unsafe { elems::<T>(&x) };
    let mut loss = super::super::try_vec::<T>(n * s, "nll_loss")?;
    let mut wt = super::super::try_vec::<T>(n * s, "nll_loss")?;
    for i in 0..n {
        for k in 0..s {
            let t = tg[i * s + k];
            if t == ignore_index {
                loss.push(T::ZERO);
                wt.push(T::ZERO);
                continue;
            }
            if t < 0 || t as usize >= c {
                return Err(Error::index(format!("Target {t} is out of bounds.")));
            }
            let wi = w.as_ref().map_or(T::ONE, |w| w[t as usize]);
            loss.push(-(xs[(i * c + t as usize) * s + k]) * wi);
            wt.push(wi);
        }
    }
    Ok((loss, wt))
}

/// `nll_loss_forward(input, target, weight, reduction, ignore_index)`: the negative
/// log-likelihood loss of log-probabilities `input` (`(C,)`, `(N, C)` or `(N, C, d1, ...)`)
/// at class indices `target`, and the total weight of the counted targets (what the backward
/// divides by). Mirrors ATen's `nll_loss_forward` / `nll_loss2d_forward`.
pub fn nll_loss_forward(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    reduction: i64,
    ignore_index: i64,
) -> Result<(Tensor, Tensor)> {
    let red = Reduction::from_int(reduction)?;
    check_target_dtype(target)?;
    let geo = nll_geometry(input, target)?;
    float_dispatch!(input.dtype(), "nll_loss_forward_out_frame", T => {
        let (loss, wt) = nll_terms::<T>(input, target, weight, ignore_index, geo)?;
        let total: f64 = wt.iter().map(|w| w.f64()).sum();
        let total_t = Tensor::from_vec(vec![T::of(total)], &[])?;
        let out = match red {
            Reduction::None => {
                let shape: Vec<usize> = if input.dim() == 1 {
                    vec![]
                } else {
                    target.sizes().to_vec()
                };
                Tensor::from_vec(loss, &shape)?
            }
            Reduction::Sum => {
                let s: f64 = loss.iter().map(|l| l.f64()).sum();
                Tensor::from_vec(vec![T::of(s)], &[])?
            }
            Reduction::Mean => {
                let s: f64 = loss.iter().map(|l| l.f64()).sum();
                Tensor::from_vec(vec![T::of(s / total)], &[])?
            }
        };
        Ok((out, total_t))
    })
}

/// `nll_loss_nd(input, target, weight=None, reduction=1, ignore_index=-100)`: the loss of
/// `nll_loss_forward`. Mirrors `torch._C._nn.nll_loss_nd`.
pub fn nll_loss_nd(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    reduction: i64,
    ignore_index: i64,
) -> Result<Tensor> {
    Ok(nll_loss_forward(input, target, weight, reduction, ignore_index)?.0)
}

/// `cross_entropy_loss(input, target, weight=None, reduction=1, ignore_index=-100,
/// label_smoothing=0.0)`: `nll_loss(log_softmax(input, class dim), target)` for class indices
/// (integer `target`), or `-sum_c w_c t_c log_softmax(input)_c` for class probabilities (a
/// float `target` of `input`'s shape); `label_smoothing` mixes the target with the uniform
/// distribution. Mirrors `torch._C._nn.cross_entropy_loss`.
pub fn cross_entropy_loss(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    reduction: i64,
    ignore_index: i64,
    label_smoothing: f64,
) -> Result<Tensor> {
    let red = Reduction::from_int(reduction)?;
    if !(0.0..=1.0).contains(&label_smoothing) {
        return Err(Error::runtime(format!(
            "label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
        )));
    }
    if input.dim() == 0 {
        return Err(Error::value("Expected 1 or more dimensions (got 0)"));
    }
    let class_dim = if input.dim() == 1 { 0 } else { 1 };
    let logp = ops::log_softmax(input, class_dim, None)?;
    let c = input.sizes().get(class_dim as usize).copied().unwrap_or(1);
    if target.dtype().is_floating_point() && target.sizes() == input.sizes() {
        if ignore_index != -100 {
            return Err(Error::runtime(
                "ignore_index is not supported for floating point target",
            ));
        }
        if let Some(w) = weight {
            if w.numel() != c {
                return Err(Error::runtime(format!(
                    "weight tensor should be defined either for all {c} classes or no classes but got weight tensor of shape: {:?}",
                    w.sizes()
                )));
            }
        }
        return float_dispatch!(logp.dtype(), "cross_entropy", T => {
            let lp = contiguous_of(&logp)?;
            let tg = target.to_dtype(T::DTYPE)?.contiguous()?;
            let (n, s) = if input.dim() == 1 {
                (1, 1)
            } else {
                (input.sizes()[0], input.sizes()[2..].iter().product())
            };
            let w: Option<Vec<T>> = match weight {
                Some(w) => Some(w.to_dtype(T::DTYPE)?.to_vec::<T>()),
                None => None,
            };
            let ls = label_smoothing;
            // SAFETY: both are contiguous of dtype `T`.
            let (x, t) = unsafe { (elems::<T>(&lp), elems::<T>(&tg)) };
            let mut per = vec![T::ZERO; n * s];
            for i in 0..n {
                for k in 0..s {
                    let mut acc = 0.0f64;
                    for cl in 0..c {
                        let idx = (i * c + cl) * s + k;
                        let tv = t[idx].f64() * (1.0 - ls) + ls / c as f64;
                        let wv = w.as_ref().map_or(1.0, |w| w[cl].f64());
                        acc -= wv * tv * x[idx].f64();
                    }
                    per[i * s + k] = T::of(acc);
                }
            }
            let shape: Vec<usize> = if input.dim() == 1 {
                vec![]
            } else {
                [&input.sizes()[..1], &input.sizes()[2..]].concat()
            };
            let per_t = Tensor::from_vec(per, &shape)?;
            match red {
                Reduction::None => Ok(per_t),
                Reduction::Sum => ops::sum(&per_t, None, false, None),
                Reduction::Mean => {
                    let total = ops::sum(&per_t, None, false, None)?;
                    ops::div(&total, &Tensor::wrapped_scalar(Scalar::Int((n * s) as i64))?, None)
                }
            }
        });
    }
    if target.dtype().is_floating_point() {
        return Err(Error::runtime(format!(
            "expected target dtype to be Long or Byte, but got {}",
            target.dtype().scalar_type_name()
        )));
    }
    let nll = nll_loss_nd(&logp, target, weight, reduction, ignore_index)?;
    if label_smoothing <= 0.0 {
        return Ok(nll);
    }
    // The smoothing term: -sum_c w_c logp_c per element, 0 where the target is ignored.
    let geo = nll_geometry(input, target)?;
    float_dispatch!(logp.dtype(), "cross_entropy", T => {
        let (n, c, s) = geo;
        let lp = contiguous_of(&logp)?;
        // SAFETY: contiguous of dtype `T`.
        let x = unsafe { elems::<T>(&lp) };
        let tg: Vec<i64> = target.to_dtype(DType::Int64)?.to_vec::<i64>();
        let w: Option<Vec<f64>> = match weight {
            Some(w) => Some(w.to_dtype(DType::Float64)?.to_vec::<f64>()),
            None => None,
        };
        let mut smooth = vec![0.0f64; n * s];
        let mut wsum = 0.0f64;
        let mut count = 0usize;
        for i in 0..n {
            for k in 0..s {
                let t = tg[i * s + k];
                if t == ignore_index {
                    continue;
                }
                count += 1;
                wsum += w.as_ref().map_or(1.0, |w| w[t as usize]);
                let mut acc = 0.0;
                for cl in 0..c {
                    acc -= x[(i * c + cl) * s + k].f64() * w.as_ref().map_or(1.0, |w| w[cl]);
                }
                smooth[i * s + k] = acc;
            }
        }
        let eps = label_smoothing / c as f64;
        let nllv = nll.to_dtype(DType::Float64)?.to_vec::<f64>();
        let out: Vec<T> = match red {
            Reduction::None => nllv
                .iter()
                .zip(&smooth)
                .map(|(l, sm)| T::of((1.0 - label_smoothing) * l + sm * eps))
                .collect(),
            Reduction::Sum => {
                let sm: f64 = smooth.iter().sum();
                vec![T::of((1.0 - label_smoothing) * nllv[0] + sm * eps)]
            }
            Reduction::Mean => {
                let sm: f64 = smooth.iter().sum();
                let denom = if w.is_some() { wsum } else { count as f64 };
                vec![T::of((1.0 - label_smoothing) * nllv[0] + sm / denom * eps)]
            }
        };
        Tensor::from_vec(out, nll.sizes())
    })
}
