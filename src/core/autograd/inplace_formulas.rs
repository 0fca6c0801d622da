//! src/core/autograd/inplace_formulas.rs: the hand-written recording wrappers (`manual:` entries
//! of src/derivatives.yaml) of the in-place ops the generator does not derive — the random
//! in-place fills (torch: `self: zeros_like(grad)`), `normal(Tensor, Tensor)`, `renorm_`,
//! `float_power_`, `addbmm_` — and of the ops torch records with its `NotImplemented` node
//! (histogram, scatter with `reduce=`: backward raises, the call does not).

use super::formulas::NodeKind;
use super::node::Node;
use super::variable_type::{self as vt, check_inplace, check_no_grad_view, collect_edges, record};
use crate::core::error::Result;
use crate::core::ops;
use crate::core::random::Generator;
use crate::core::scalar::Scalar;
use crate::core::tensor::Tensor;
use std::sync::Mutex;

type Gen<'a> = Option<&'a Mutex<Generator>>;

/// A random in-place fill `raw` of `this` (and the tensor arguments `others`) recorded as the
/// zero-gradient node `name` (torch's `UniformBackward0`, ...: `self: zeros_like(grad)`; the
/// sample does not depend on the old values). The same checks as `zero_`: the leaf errors, the
/// view made under no_grad, CopySlices for a view.
fn random_fill(
    name: &'static str,
    this: &Tensor,
    others: &[&Tensor],
    raw: impl FnOnce() -> Result<()>,
) -> Result<()> {
    let mut inputs = vec![this];
    inputs.extend_from_slice(others);
    if !vt::should_record(&inputs) {
        if this.base().is_some() && super::is_grad_enabled() {
            check_no_grad_view(this)?;
        }
        return raw();
    }
    check_inplace(this)?;
    raw()?;
    // The edges are collected from `this`'s old history before the new node replaces it.
    let node = record(this, &inputs, NodeKind::Zero { name });
    if node.is_none() && this.base().is_none() {
        this.detach_in_place();
        return Ok(());
    }
    super::copy_slices::finish_inplace(this, node)
}

/// `Tensor.uniform_` recorded as torch's `UniformBackward0`.
pub fn uniform_(this: &Tensor, from: f64, to: f64, generator: Gen) -> Result<()> {
    random_fill("UniformBackward0", this, &[], || {
        ops::uniform_(this, from, to, generator)
    })
}

/// `Tensor.normal_` recorded as torch's `NormalBackward0`.
pub fn normal_(this: &Tensor, mean: f64, std: f64, generator: Gen) -> Result<()> {
    random_fill("NormalBackward0", this, &[], || {
        ops::normal_(this, mean, std, generator)
    })
}

/// `Tensor.bernoulli_(p: Tensor)` recorded as torch's `BernoulliBackward1` (zero for `p` too).
pub fn bernoulli__tensor(this: &Tensor, p: &Tensor, generator: Gen) -> Result<()> {
    random_fill("BernoulliBackward1", this, &[p], || {
        ops::bernoulli__tensor(this, p, generator)
    })
}

/// `Tensor.bernoulli_(p: float)` recorded as torch's `BernoulliBackward2`.
pub fn bernoulli__float(this: &Tensor, p: f64, generator: Gen) -> Result<()> {
    random_fill("BernoulliBackward2", this, &[], || {
        ops::bernoulli__float(this, p, generator)
    })
}

/// `Tensor.exponential_` recorded as torch's `ExponentialBackward0`.
pub fn exponential_(this: &Tensor, lambd: f64, generator: Gen) -> Result<()> {
    random_fill("ExponentialBackward0", this, &[], || {
        ops::exponential_(this, lambd, generator)
    })
}

/// `Tensor.random_(from, to)` recorded as torch's `RandomBackward0`.
pub fn random__from(this: &Tensor, from: i64, to: Option<i64>, generator: Gen) -> Result<()> {
    random_fill("RandomBackward0", this, &[], || {
        ops::random__from(this, from, to, generator)
    })
}

/// `Tensor.random_(to)` recorded as torch's `RandomBackward1`.
pub fn random__to(this: &Tensor, to: i64, generator: Gen) -> Result<()> {
    random_fill("RandomBackward1", this, &[], || {
        ops::random__to(this, to, generator)
    })
}

/// `Tensor.random_()` recorded as torch's `RandomBackward2`.
pub fn random_(this: &Tensor, generator: Gen) -> Result<()> {
    random_fill("RandomBackward2", this, &[], || {
        ops::random_(this, generator)
    })
}

/// `Tensor.geometric_` recorded as torch's `GeometricBackward0`.
pub fn geometric_(this: &Tensor, p: f64, generator: Gen) -> Result<()> {
    random_fill("GeometricBackward0", this, &[], || {
        ops::geometric_(this, p, generator)
    })
}

/// `Tensor.cauchy_` recorded as torch's `CauchyBackward0`.
pub fn cauchy_(this: &Tensor, median: f64, sigma: f64, generator: Gen) -> Result<()> {
    random_fill("CauchyBackward0", this, &[], || {
        ops::cauchy_(this, median, sigma, generator)
    })
}

/// `Tensor.log_normal_` recorded as torch's `LogNormalBackward0`.
pub fn log_normal_(this: &Tensor, mean: f64, std: f64, generator: Gen) -> Result<()> {
    random_fill("LogNormalBackward0", this, &[], || {
        ops::log_normal_(this, mean, std, generator)
    })
}

/// `normal(mean: Tensor, std: Tensor)` recorded as torch's `NormalBackward3`: zero gradients
/// for both (torch's derivatives.yaml: `mean: at::zeros_symint(mean.sym_sizes(), grad.options())`,
/// `std: at::zeros_symint(std.sym_sizes(), grad.options())`).
pub fn normal(mean: &Tensor, std: &Tensor, generator: Gen) -> Result<Tensor> {
    let out = ops::normal(mean, std, generator)?;
    if vt::should_record(&[mean, std]) {
        record(
            &out,
            &[mean, std],
            NodeKind::Zero {
                name: "NormalBackward3",
            },
        );
    }
    Ok(out)
}

// ---- in-place forms of composites (Note [In-place ops and history]) ----------------------------

/// `Tensor.renorm_`: computed out of place by the recorded composite `renorm` from a clone of
/// self, written back, history rebased (torch: `RenormBackward0`; here the composite's nodes).
pub fn renorm_(this: &Tensor, p: Scalar, dim: i64, maxnorm: Scalar) -> Result<()> {
    vt::inplace(
        "renorm_",
        this,
        &[],
        |s| ops::renorm_(s, p, dim, maxnorm),
        |s| vt::renorm(s, p, dim, maxnorm),
    )
}

/// `Tensor.float_power_(Tensor)`: the recorded `float_power` composite, in place. Self must be
/// float64 (the kernel's RuntimeError, raised before anything is recorded).
pub fn float_power__tensor(this: &Tensor, exponent: &Tensor) -> Result<()> {
    if this.dtype() != crate::core::dtype::DType::Float64 {
        return ops::float_power__tensor(this, exponent);
    }
    vt::inplace(
        "float_power_",
        this,
        &[exponent],
        |s| ops::float_power__tensor(s, exponent),
        |s| vt::float_power_tensor_tensor(s, exponent),
    )
}

/// `Tensor.float_power_(Scalar)`: as `float_power__tensor`.
pub fn float_power__scalar(this: &Tensor, exponent: Scalar) -> Result<()> {
    if this.dtype() != crate::core::dtype::DType::Float64 {
        return ops::float_power__scalar(this, exponent);
    }
    vt::inplace(
        "float_power_",
        this,
        &[],
        |s| ops::float_power__scalar(s, exponent),
        |s| vt::float_power_tensor_scalar(s, exponent),
    )
}

/// `Tensor.addbmm_`: the recorded `addbmm` composite, in place.
pub fn addbmm_(
    this: &Tensor,
    batch1: &Tensor,
    batch2: &Tensor,
    beta: Scalar,
    alpha: Scalar,
) -> Result<()> {
    vt::inplace(
        "addbmm_",
        this,
        &[batch1, batch2],
        |s| ops::addbmm_(s, batch1, batch2, beta, alpha),
        |s| vt::addbmm(s, batch1, batch2, beta, alpha),
    )
}

// ---- torch's NotImplemented node -----------------------------------------------------------------

/// Give `outs` a `NotImplemented` node over `inputs` when one requires grad under grad mode (the
/// results require grad; backward raises torch's "derivative for aten::{op} is not
/// implemented").
pub(super) fn record_not_implemented(op: &'static str, inputs: &[&Tensor], outs: &[&Tensor]) {
    if !vt::should_record(inputs) || !outs.iter().all(|t| t.dtype().is_floating_point()) {
        return;
    }
    let node = Node::new(NodeKind::NotImplemented { op }, collect_edges(inputs), outs);
    for (i, t) in outs.iter().enumerate() {
        t.set_grad_fn(node.clone(), i as u32);
    }
}

fn with_weight<'a>(input: &'a Tensor, weight: Option<&'a Tensor>) -> Vec<&'a Tensor> {
    let mut v = vec![input];
    v.extend(weight);
    v
}

/// `histogram(input, bins: Tensor)`: torch's `NotImplemented` node on both results.
pub fn histogram_bins_tensor(
    input: &Tensor,
    bins: &Tensor,
    weight: Option<&Tensor>,
    density: bool,
) -> Result<(Tensor, Tensor)> {
    let (h, e) = ops::histogram_bins_tensor(input, bins, weight, density)?;
    let mut inputs = with_weight(input, weight);
    inputs.insert(1, bins);
    record_not_implemented("histogram", &inputs, &[&h, &e]);
    Ok((h, e))
}

/// `histogram(input, bins: int, range=)`: torch's `NotImplemented` node on both results.
pub fn histogram_bin_ct(
    input: &Tensor,
    bins: i64,
    range: Option<&[f64]>,
    weight: Option<&Tensor>,
    density: bool,
) -> Result<(Tensor, Tensor)> {
    let (h, e) = ops::histogram_bin_ct(input, bins, range, weight, density)?;
    record_not_implemented("histogram", &with_weight(input, weight), &[&h, &e]);
    Ok((h, e))
}

/// `scatter(self, dim, index, src, reduce=)`: torch's `NotImplemented` node.
pub fn scatter_reduce(
    input: &Tensor,
    dim: i64,
    index: &Tensor,
    src: &Tensor,
    reduce: &str,
) -> Result<Tensor> {
    let out = ops::scatter_reduce(input, dim, index, src, reduce)?;
    record_not_implemented("scatter", &[input, src], &[&out]);
    Ok(out)
}

/// `scatter(self, dim, index, value, reduce=)`: torch's `NotImplemented` node.
pub fn scatter_value_reduce(
    input: &Tensor,
    dim: i64,
    index: &Tensor,
    value: Scalar,
    reduce: &str,
) -> Result<Tensor> {
    let out = ops::scatter_value_reduce(input, dim, index, value, reduce)?;
    record_not_implemented("scatter", &[input], &[&out]);
    Ok(out)
}
