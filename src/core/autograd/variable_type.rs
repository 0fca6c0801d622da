//! src/core/autograd/variable_type.rs: the recording wrappers (PyTorch: the generated
//! `VariableType` kernels): for each differentiable op, the same signature as the core op in
//! `crate::core::ops`; it runs the op and, when an input requires grad and grad mode is on,
//! makes the op's node (formulas.rs), saves what the formula needs and sets the result's
//! history. The generated bindings call `vt::op` for the ops src/derivatives.yaml gives a
//! `node:` (a missing wrapper is a compile error), the bare `ops::op` otherwise, after
//! `check_pending` for `pending:` ops; in-place methods go through `inplace` (Note [In-place
//! ops and history]).

use super::formulas::{NodeKind, UnaryOp};
use super::node::{Edge, Node, SavedTensor};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::ops;
use crate::core::ops::indexing::IndexItem as Item;
use crate::core::scalar::Scalar;
use crate::core::tensor::Tensor;
use std::sync::Arc;

// The composite ops (issue 13), called as `vt::op` by the generated bindings like the wrappers here.
pub use super::composite::*;

// Note [In-place ops and history]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// `x.op_(args)` with nothing requiring grad (or under no_grad) is the bare kernel: the op's
// plan run into `x`, which bumps `x`'s version (Note [Version counter]). When `x` or an argument
// requires grad and grad mode is on, torch's rules apply:
// - a leaf that requires grad may not be modified ("a leaf Variable that requires grad is being
//   used in an in-place operation."), nor a view of one ("a view of a leaf Variable ...");
// - otherwise the op is computed out of place through its recording wrapper, from `x` itself
//   or — when the op's formula reads `self` — from a recorded clone of `x` (torch saves a clone
//   too: `_saved_self` of `mul_` has `CloneBackward0`), the values are written into `x`, and
//   `x`'s history is rebased onto the new node (`grad_fn`, output 0).
// - in-place writes to a *view* of a tensor in a graph need torch's CopySlices, which is not
//   built yet: they raise NotImplementedError rather than compute wrong gradients.

/// True when the op must be recorded: some input requires grad (atomic loads only), then
/// grad mode (thread-local, read last: Note [Grad mode is read last]).
#[inline(always)]
pub fn should_record(inputs: &[&Tensor]) -> bool {
    inputs.iter().any(|t| t.requires_grad()) && super::is_grad_enabled()
}

/// The edges of a new node to the histories of `inputs`.
pub(crate) fn collect_edges(inputs: &[&Tensor]) -> Vec<Option<Edge>> {
    inputs
        .iter()
        .map(|t| {
            t.gradient_edge().map(|e| Edge {
                node: e.node,
                input_nr: e.input_nr,
            })
        })
        .collect()
}

/// Make the node `kind` over `inputs` and set it as `out`'s history (output 0). Outputs of a
/// non-floating dtype are not differentiable (torch: `x.long()` does not require grad).
fn record(out: &Tensor, inputs: &[&Tensor], kind: NodeKind) -> Option<Arc<Node>> {
    if !out.dtype().is_floating_point() {
        return None;
    }
    let node = Node::new(kind, collect_edges(inputs), &[out]);
    out.set_grad_fn(node.clone(), 0);
    Some(node)
}

/// torch's text for an op without a formula.
pub fn not_implemented(name: &str) -> Error {
    Error::not_implemented(format!("the derivative for '{name}' is not implemented."))
}

/// For ops declared `pending` in src/derivatives.yaml: an error instead of a result without
/// history when an input requires grad and grad mode is on.
#[inline(always)]
pub fn check_pending(name: &str, inputs: &[&Tensor]) -> Result<()> {
    if should_record(inputs) {
        return Err(not_implemented(name));
    }
    Ok(())
}

/// `t` with `requires_grad` set as a factory's `requires_grad=` asks (torch's text for a
/// non-floating dtype).
pub fn with_requires_grad(t: Tensor, requires_grad: bool) -> Result<Tensor> {
    if requires_grad {
        if !t.dtype().is_floating_point() {
            return Err(Error::runtime(
                "Only Tensors of floating point and complex dtype can require gradients",
            ));
        }
        t.set_requires_grad(true)?;
    }
    Ok(t)
}

/// `check_pending` for a tensor-list argument.
pub fn check_pending_list(name: &str, inputs: &[Tensor]) -> Result<()> {
    if inputs.iter().any(|t| t.requires_grad()) && super::is_grad_enabled() {
        return Err(not_implemented(name));
    }
    Ok(())
}

fn sizes_of(t: &Tensor) -> Box<[usize]> {
    t.sizes().into()
}

fn save_out(out: &Tensor) -> Result<SavedTensor> {
    SavedTensor::output(out, 0)
}

/// A node whose kind saves the output: made after the op, then its saved slot filled.
fn record_with_result(
    out: &Tensor,
    inputs: &[&Tensor],
    make: impl FnOnce(SavedTensor) -> NodeKind,
) -> Result<()> {
    if out.dtype().is_floating_point() {
        let kind = make(save_out(out)?);
        record(out, inputs, kind);
    }
    Ok(())
}

// ---- arithmetic ---------------------------------------------------------------------------

pub fn add(a: &Tensor, b: &Tensor, alpha: Scalar) -> Result<Tensor> {
    let out = ops::add(a, b, alpha)?;
    if should_record(&[a, b]) {
        record(&out, &[a, b], NodeKind::Add { alpha });
    }
    Ok(out)
}

pub fn sub(a: &Tensor, b: &Tensor, alpha: Scalar) -> Result<Tensor> {
    let out = ops::sub(a, b, alpha)?;
    if should_record(&[a, b]) {
        record(&out, &[a, b], NodeKind::Sub { alpha });
    }
    Ok(out)
}

pub fn mul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let out = ops::mul(a, b)?;
    if should_record(&[a, b]) {
        let kind = NodeKind::Mul {
            self_: SavedTensor::input_if(a, b.requires_grad()),
            other: SavedTensor::input_if(b, a.requires_grad()),
        };
        record(&out, &[a, b], kind);
    }
    Ok(out)
}

pub fn div(a: &Tensor, b: &Tensor, rounding_mode: Option<&str>) -> Result<Tensor> {
    let out = ops::div(a, b, rounding_mode)?;
    if should_record(&[a, b]) {
        if rounding_mode.is_some() {
            // Rounded division: zero gradient (torch's DivBackward with rounding_mode).
            record(
                &out,
                &[a, b],
                NodeKind::Zero {
                    name: "DivBackward2",
                },
            );
        } else {
            let kind = NodeKind::Div {
                self_: SavedTensor::input_if(a, b.requires_grad()),
                other: SavedTensor::input(b),
            };
            record(&out, &[a, b], kind);
        }
    }
    Ok(out)
}

pub fn pow(a: &Tensor, e: &Tensor) -> Result<Tensor> {
    let out = ops::pow(a, e)?;
    if should_record(&[a, e]) {
        record_with_result(&out, &[a, e], |r| NodeKind::Pow {
            self_: SavedTensor::input(a),
            exponent: SavedTensor::input(e),
            result: r,
        })?;
    }
    Ok(out)
}

pub fn neg(a: &Tensor) -> Result<Tensor> {
    let out = ops::neg(a)?;
    if should_record(&[a]) {
        record(&out, &[a], NodeKind::Neg);
    }
    Ok(out)
}

macro_rules! unary_saving_result {
    ($($name:ident => $kind:ident;)*) => {$(
        pub fn $name(a: &Tensor) -> Result<Tensor> {
            let out = ops::$name(a)?;
            if should_record(&[a]) {
                record_with_result(&out, &[a], |r| NodeKind::$kind { result: r })?;
            }
            Ok(out)
        }
    )*};
}

unary_saving_result! {
    exp => Exp;
    sqrt => Sqrt;
    tanh => Tanh;
    sigmoid => Sigmoid;
    relu => Relu;
}

macro_rules! unary_saving_self {
    ($($name:ident => $kind:ident;)*) => {$(
        pub fn $name(a: &Tensor) -> Result<Tensor> {
            let out = ops::$name(a)?;
            if should_record(&[a]) {
                record(&out, &[a], NodeKind::$kind { self_: SavedTensor::input(a) });
            }
            Ok(out)
        }
    )*};
}

unary_saving_self! {
    log => Log;
    abs => Abs;
    sin => Sin;
    cos => Cos;
    square => Square;
}

macro_rules! unary_zero_grad {
    ($($name:ident => $node:literal;)*) => {$(
        pub fn $name(a: &Tensor) -> Result<Tensor> {
            let out = ops::$name(a)?;
            if should_record(&[a]) {
                record(&out, &[a], NodeKind::Zero { name: $node });
            }
            Ok(out)
        }
    )*};
}

unary_zero_grad! {
    floor => "FloorBackward0";
    ceil => "CeilBackward0";
    trunc => "TruncBackward0";
    round => "RoundBackward0";
    sign => "SignBackward0";
}

macro_rules! unary_op {
    ($($name:ident => $op:ident;)*) => {$(
        pub fn $name(a: &Tensor) -> Result<Tensor> {
            let out = ops::$name(a)?;
            if should_record(&[a]) {
                record_with_result(&out, &[a], |r| NodeKind::Unary {
                    op: UnaryOp::$op,
                    self_: SavedTensor::input(a),
                    result: r,
                })?;
            }
            Ok(out)
        }
    )*};
}

unary_op! {
    expm1 => Expm1;
    log1p => Log1p;
    log2 => Log2;
    log10 => Log10;
    exp2 => Exp2;
    rsqrt => Rsqrt;
    reciprocal => Reciprocal;
    tan => Tan;
    asin => Asin;
    acos => Acos;
    atan => Atan;
    sinh => Sinh;
    cosh => Cosh;
    frac => Frac;
}

pub fn nan_to_num(
    a: &Tensor,
    nan: Option<Scalar>,
    posinf: Option<Scalar>,
    neginf: Option<Scalar>,
) -> Result<Tensor> {
    let out = ops::nan_to_num(a, nan, posinf, neginf)?;
    if should_record(&[a]) {
        record_with_result(&out, &[a], |r| NodeKind::Unary {
            op: UnaryOp::NanToNum,
            self_: SavedTensor::input(a),
            result: r,
        })?;
    }
    Ok(out)
}

pub fn atan2(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let out = ops::atan2(a, b)?;
    if should_record(&[a, b]) {
        let kind = NodeKind::Atan2 {
            self_: SavedTensor::input(a),
            other: SavedTensor::input(b),
        };
        record(&out, &[a, b], kind);
    }
    Ok(out)
}

pub fn hypot(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let out = ops::hypot(a, b)?;
    if should_record(&[a, b]) {
        record_with_result(&out, &[a, b], |r| NodeKind::Hypot {
            self_: SavedTensor::input(a),
            other: SavedTensor::input(b),
            result: r,
        })?;
    }
    Ok(out)
}

pub fn lerp_scalar(a: &Tensor, end: &Tensor, weight: Scalar) -> Result<Tensor> {
    let out = ops::lerp_scalar(a, end, weight)?;
    if should_record(&[a, end]) {
        record(&out, &[a, end], NodeKind::LerpScalar { weight });
    }
    Ok(out)
}

pub fn lerp_tensor(a: &Tensor, end: &Tensor, weight: &Tensor) -> Result<Tensor> {
    let out = ops::lerp_tensor(a, end, weight)?;
    if should_record(&[a, end, weight]) {
        let kind = NodeKind::LerpTensor {
            self_: SavedTensor::input(a),
            end: SavedTensor::input(end),
            weight: SavedTensor::input(weight),
        };
        record(&out, &[a, end, weight], kind);
    }
    Ok(out)
}

pub fn logsumexp(a: &Tensor, dim: &[i64], keepdim: bool) -> Result<Tensor> {
    let out = ops::logsumexp(a, dim, keepdim)?;
    if should_record(&[a]) {
        record_with_result(&out, &[a], |r| NodeKind::Logsumexp {
            self_: SavedTensor::input(a),
            result: r,
            dims: dim.into(),
            keepdim,
        })?;
    }
    Ok(out)
}

pub fn cumsum(a: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
    let out = ops::cumsum(a, dim, dtype)?;
    if should_record(&[a]) {
        record(&out, &[a], NodeKind::Cumsum { dim });
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn var_std(
    a: &Tensor,
    out: Tensor,
    name: &'static str,
    dims: Option<&[i64]>,
    correction: f64,
    keepdim: bool,
    is_std: bool,
) -> Result<Tensor> {
    if should_record(&[a]) {
        record_with_result(&out, &[a], |r| NodeKind::VarStd {
            name,
            self_: SavedTensor::input(a),
            result: r,
            dims: dims.map(Into::into),
            correction,
            keepdim,
            is_std,
        })?;
    }
    Ok(out)
}

fn correction_of(c: Option<Scalar>) -> f64 {
    c.map_or(1.0, |c| c.to_f64())
}

pub fn var(a: &Tensor, unbiased: bool) -> Result<Tensor> {
    var_std(
        a,
        ops::var(a, unbiased)?,
        "VarBackward0",
        None,
        unbiased as u8 as f64,
        false,
        false,
    )
}

pub fn var_dim(a: &Tensor, dim: Option<&[i64]>, unbiased: bool, keepdim: bool) -> Result<Tensor> {
    let out = ops::var_dim(a, dim, unbiased, keepdim)?;
    var_std(
        a,
        out,
        "VarBackward0",
        dim,
        unbiased as u8 as f64,
        keepdim,
        false,
    )
}

pub fn var_correction(
    a: &Tensor,
    dim: Option<&[i64]>,
    correction: Option<Scalar>,
    keepdim: bool,
) -> Result<Tensor> {
    let out = ops::var_correction(a, dim, correction, keepdim)?;
    var_std(
        a,
        out,
        "VarBackward0",
        dim,
        correction_of(correction),
        keepdim,
        false,
    )
}

pub fn std(a: &Tensor, unbiased: bool) -> Result<Tensor> {
    var_std(
        a,
        ops::std(a, unbiased)?,
        "StdBackward0",
        None,
        unbiased as u8 as f64,
        false,
        true,
    )
}

pub fn std_dim(a: &Tensor, dim: Option<&[i64]>, unbiased: bool, keepdim: bool) -> Result<Tensor> {
    let out = ops::std_dim(a, dim, unbiased, keepdim)?;
    var_std(
        a,
        out,
        "StdBackward0",
        dim,
        unbiased as u8 as f64,
        keepdim,
        true,
    )
}

pub fn std_correction(
    a: &Tensor,
    dim: Option<&[i64]>,
    correction: Option<Scalar>,
    keepdim: bool,
) -> Result<Tensor> {
    let out = ops::std_correction(a, dim, correction, keepdim)?;
    var_std(
        a,
        out,
        "StdBackward0",
        dim,
        correction_of(correction),
        keepdim,
        true,
    )
}

pub fn norm(a: &Tensor, p: Option<Scalar>, dim: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
    let out = ops::norm(a, p, dim, keepdim)?;
    if should_record(&[a]) {
        if p.is_some_and(|p| p.to_f64() != 2.0) {
            return Err(not_implemented("norm (p != 2)"));
        }
        record_with_result(&out, &[a], |r| NodeKind::Norm2 {
            self_: SavedTensor::input(a),
            result: r,
            dims: dim.map(Into::into),
            keepdim,
        })?;
    }
    Ok(out)
}

pub fn flip(a: &Tensor, dims: &[i64]) -> Result<Tensor> {
    let out = ops::flip(a, dims)?;
    if should_record(&[a]) {
        record(&out, &[a], NodeKind::Flip { dims: dims.into() });
    }
    Ok(out)
}

pub fn roll(a: &Tensor, shifts: &[i64], dims: &[i64]) -> Result<Tensor> {
    let out = ops::roll(a, shifts, dims)?;
    if should_record(&[a]) {
        let kind = NodeKind::Roll {
            shifts: shifts.into(),
            dims: dims.into(),
        };
        record(&out, &[a], kind);
    }
    Ok(out)
}

pub fn tril(a: &Tensor, diagonal: i64) -> Result<Tensor> {
    let out = ops::tril(a, diagonal)?;
    if should_record(&[a]) {
        let kind = NodeKind::TrilTriu {
            name: "TrilBackward0",
            diagonal,
            upper: false,
        };
        record(&out, &[a], kind);
    }
    Ok(out)
}

pub fn triu(a: &Tensor, diagonal: i64) -> Result<Tensor> {
    let out = ops::triu(a, diagonal)?;
    if should_record(&[a]) {
        let kind = NodeKind::TrilTriu {
            name: "TriuBackward0",
            diagonal,
            upper: true,
        };
        record(&out, &[a], kind);
    }
    Ok(out)
}

pub fn trace(a: &Tensor) -> Result<Tensor> {
    let out = ops::trace(a)?;
    if should_record(&[a]) {
        record(
            &out,
            &[a],
            NodeKind::Trace {
                self_sizes: sizes_of(a),
            },
        );
    }
    Ok(out)
}

pub fn outer(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let out = ops::outer(a, b)?;
    if should_record(&[a, b]) {
        let kind = NodeKind::Outer {
            self_: SavedTensor::input(a),
            vec2: SavedTensor::input(b),
        };
        record(&out, &[a, b], kind);
    }
    Ok(out)
}

pub fn movedim(a: &Tensor, source: i64, destination: i64) -> Result<Tensor> {
    movedim_intlist(a, &[source], &[destination])
}

pub fn movedim_intlist(a: &Tensor, source: &[i64], destination: &[i64]) -> Result<Tensor> {
    let out = ops::movedim_intlist(a, source, destination)?;
    if should_record(&[a]) {
        let kind = NodeKind::Movedim {
            source: source.into(),
            destination: destination.into(),
        };
        record(&out, &[a], kind);
    }
    Ok(out)
}

fn values_indices(
    a: &Tensor,
    r: (Tensor, Tensor),
    name: &'static str,
    dim: i64,
    keepdim: bool,
) -> Result<(Tensor, Tensor)> {
    max_min_dim(a, r, name, dim, keepdim)
}

pub fn sort(a: &Tensor, dim: i64, descending: bool, stable: bool) -> Result<(Tensor, Tensor)> {
    values_indices(
        a,
        ops::sort(a, dim, descending, stable)?,
        "SortBackward0",
        dim,
        true,
    )
}

pub fn topk(a: &Tensor, k: i64, dim: i64, largest: bool, sorted: bool) -> Result<(Tensor, Tensor)> {
    values_indices(
        a,
        ops::topk(a, k, dim, largest, sorted)?,
        "TopkBackward0",
        dim,
        true,
    )
}

pub fn kthvalue(a: &Tensor, k: i64, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    values_indices(
        a,
        ops::kthvalue(a, k, dim, keepdim)?,
        "KthvalueBackward0",
        dim,
        keepdim,
    )
}

pub fn median_dim(a: &Tensor, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    values_indices(
        a,
        ops::median_dim(a, dim, keepdim)?,
        "MedianBackward1",
        dim,
        keepdim,
    )
}

pub fn mode(a: &Tensor, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    values_indices(
        a,
        ops::mode(a, dim, keepdim)?,
        "ModeBackward0",
        dim,
        keepdim,
    )
}

pub fn where_(condition: &Tensor, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let out = ops::where_(condition, a, b)?;
    if should_record(&[a, b]) {
        let kind = NodeKind::Where {
            condition: SavedTensor::input(condition),
        };
        record(&out, &[condition, a, b], kind);
    }
    Ok(out)
}

pub fn clamp(a: &Tensor, min: Option<Scalar>, max: Option<Scalar>) -> Result<Tensor> {
    let out = ops::clamp(a, min, max)?;
    if should_record(&[a]) {
        let kind = NodeKind::Clamp {
            self_: SavedTensor::input(a),
            min,
            max,
        };
        record(&out, &[a], kind);
    }
    Ok(out)
}

pub fn clip(a: &Tensor, min: Option<Scalar>, max: Option<Scalar>) -> Result<Tensor> {
    clamp(a, min, max)
}

fn max_min(a: &Tensor, b: &Tensor, out: Tensor, name: &'static str, is_max: bool) -> Tensor {
    if should_record(&[a, b]) {
        let kind = NodeKind::MaxMin {
            name,
            self_: SavedTensor::input(a),
            other: SavedTensor::input(b),
            is_max,
        };
        record(&out, &[a, b], kind);
    }
    out
}

pub fn maximum(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    Ok(max_min(a, b, ops::maximum(a, b)?, "MaximumBackward0", true))
}

pub fn minimum(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    Ok(max_min(
        a,
        b,
        ops::minimum(a, b)?,
        "MinimumBackward0",
        false,
    ))
}

pub fn max_other(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    Ok(max_min(
        a,
        b,
        ops::max_other(a, b)?,
        "MaximumBackward0",
        true,
    ))
}

pub fn min_other(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    Ok(max_min(
        a,
        b,
        ops::min_other(a, b)?,
        "MinimumBackward0",
        false,
    ))
}

pub fn masked_fill(a: &Tensor, mask: &Tensor, value: Scalar) -> Result<Tensor> {
    let out = ops::masked_fill(a, mask, value)?;
    if should_record(&[a]) {
        let kind = NodeKind::MaskedFill {
            mask: SavedTensor::input(mask),
        };
        record(&out, &[a], kind);
    }
    Ok(out)
}

// ---- reductions ---------------------------------------------------------------------------

fn dims_mask(a: &Tensor, dim: Option<&[i64]>) -> Result<Box<[bool]>> {
    let mut mask = vec![false; a.dim()];
    match dim {
        None | Some([]) => mask.iter_mut().for_each(|m| *m = true),
        Some(ds) => {
            for &d in ds {
                mask[crate::core::tensor::maybe_wrap_dim(d, a.dim())?] = true;
            }
        }
    }
    Ok(mask.into())
}

pub fn sum_all(a: &Tensor, dtype: Option<DType>) -> Result<Tensor> {
    let out = ops::sum_all(a, dtype)?;
    if should_record(&[a]) {
        record(
            &out,
            &[a],
            NodeKind::Sum {
                self_sizes: sizes_of(a),
            },
        );
    }
    Ok(out)
}

pub fn sum(a: &Tensor, dim: Option<&[i64]>, keepdim: bool, dtype: Option<DType>) -> Result<Tensor> {
    let out = ops::sum(a, dim, keepdim, dtype)?;
    if should_record(&[a]) {
        let kind = NodeKind::SumDim {
            self_sizes: sizes_of(a),
            dims: dims_mask(a, dim)?,
            keepdim,
        };
        record(&out, &[a], kind);
    }
    Ok(out)
}

pub fn mean_all(a: &Tensor, dtype: Option<DType>) -> Result<Tensor> {
    let out = ops::mean_all(a, dtype)?;
    if should_record(&[a]) {
        let kind = NodeKind::Mean {
            self_sizes: sizes_of(a),
            numel: a.numel(),
        };
        record(&out, &[a], kind);
    }
    Ok(out)
}

pub fn mean(
    a: &Tensor,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let out = ops::mean(a, dim, keepdim, dtype)?;
    if should_record(&[a]) {
        let dims = dims_mask(a, dim)?;
        let count = a
            .sizes()
            .iter()
            .zip(dims.iter())
            .filter(|(_, &r)| r)
            .map(|(&s, _)| s)
            .product();
        let kind = NodeKind::MeanDim {
            self_sizes: sizes_of(a),
            dims,
            keepdim,
            count,
        };
        record(&out, &[a], kind);
    }
    Ok(out)
}

fn extremum(
    a: &Tensor,
    out: Tensor,
    name: &'static str,
    dims: Option<&[i64]>,
    keepdim: bool,
) -> Result<Tensor> {
    if should_record(&[a]) {
        record_with_result(&out, &[a], |r| NodeKind::Extremum {
            name,
            self_: SavedTensor::input(a),
            result: r,
            dims: dims.map(Into::into),
            keepdim,
        })?;
    }
    Ok(out)
}

pub fn max(a: &Tensor) -> Result<Tensor> {
    extremum(a, ops::max(a)?, "MaxBackward1", None, false)
}

pub fn min(a: &Tensor) -> Result<Tensor> {
    extremum(a, ops::min(a)?, "MinBackward1", None, false)
}

pub fn amax(a: &Tensor, dim: &[i64], keepdim: bool) -> Result<Tensor> {
    extremum(
        a,
        ops::amax(a, dim, keepdim)?,
        "AmaxBackward0",
        Some(dim),
        keepdim,
    )
}

pub fn amin(a: &Tensor, dim: &[i64], keepdim: bool) -> Result<Tensor> {
    extremum(
        a,
        ops::amin(a, dim, keepdim)?,
        "AminBackward0",
        Some(dim),
        keepdim,
    )
}

fn max_min_dim(
    a: &Tensor,
    (values, indices): (Tensor, Tensor),
    name: &'static str,
    dim: i64,
    keepdim: bool,
) -> Result<(Tensor, Tensor)> {
    if should_record(&[a]) && values.dtype().is_floating_point() {
        let kind = NodeKind::MaxMinDim {
            name,
            self_sizes: sizes_of(a),
            dim,
            keepdim,
            indices: SavedTensor::input(&indices),
        };
        let node = Node::new(kind, collect_edges(&[a]), &[&values]);
        values.set_grad_fn(node, 0);
    }
    Ok((values, indices))
}

pub fn max_dim(a: &Tensor, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    max_min_dim(
        a,
        ops::max_dim(a, dim, keepdim)?,
        "MaxBackward0",
        dim,
        keepdim,
    )
}

pub fn min_dim(a: &Tensor, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    max_min_dim(
        a,
        ops::min_dim(a, dim, keepdim)?,
        "MinBackward0",
        dim,
        keepdim,
    )
}

pub fn softmax(a: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
    let out = ops::softmax(a, dim, dtype)?;
    if should_record(&[a]) {
        record_with_result(&out, &[a], |r| NodeKind::Softmax { result: r, dim })?;
    }
    Ok(out)
}

pub fn log_softmax(a: &Tensor, dim: i64, dtype: Option<DType>) -> Result<Tensor> {
    let out = ops::log_softmax(a, dim, dtype)?;
    if should_record(&[a]) {
        record_with_result(&out, &[a], |r| NodeKind::LogSoftmax { result: r, dim })?;
    }
    Ok(out)
}

// ---- linear algebra -----------------------------------------------------------------------

pub fn mm(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let out = ops::mm(a, b)?;
    if should_record(&[a, b]) {
        let kind = NodeKind::Mm {
            self_: SavedTensor::input_if(a, b.requires_grad()),
            mat2: SavedTensor::input_if(b, a.requires_grad()),
        };
        record(&out, &[a, b], kind);
    }
    Ok(out)
}

pub fn matmul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let out = ops::matmul(a, b)?;
    if should_record(&[a, b]) {
        let kind = NodeKind::Matmul {
            self_: SavedTensor::input(a),
            other: SavedTensor::input(b),
        };
        record(&out, &[a, b], kind);
    }
    Ok(out)
}

pub fn dot(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let out = ops::dot(a, b)?;
    if should_record(&[a, b]) {
        let kind = NodeKind::Dot {
            self_: SavedTensor::input_if(a, b.requires_grad()),
            other: SavedTensor::input_if(b, a.requires_grad()),
        };
        record(&out, &[a, b], kind);
    }
    Ok(out)
}

// ---- shape --------------------------------------------------------------------------------

fn reshape_like(a: &Tensor, out: Tensor, name: &'static str) -> Tensor {
    if should_record(&[a]) {
        record(
            &out,
            &[a],
            NodeKind::Reshape {
                name,
                self_sizes: sizes_of(a),
            },
        );
    }
    out
}

pub fn view(a: &Tensor, size: &[i64]) -> Result<Tensor> {
    Ok(reshape_like(a, ops::view(a, size)?, "ViewBackward0"))
}

pub fn reshape(a: &Tensor, shape: &[i64]) -> Result<Tensor> {
    let out = ops::reshape(a, shape)?;
    if out.same_tensor(a) {
        return Ok(out);
    }
    let name = if out.base().is_some() {
        "ViewBackward0"
    } else {
        "UnsafeViewBackward0"
    };
    Ok(reshape_like(a, out, name))
}

pub fn flatten(a: &Tensor, start_dim: i64, end_dim: i64) -> Result<Tensor> {
    let out = ops::flatten(a, start_dim, end_dim)?;
    if out.same_tensor(a) {
        return Ok(out);
    }
    Ok(reshape_like(a, out, "ViewBackward0"))
}

pub fn unflatten(a: &Tensor, dim: i64, sizes: &[i64]) -> Result<Tensor> {
    Ok(reshape_like(
        a,
        ops::unflatten(a, dim, sizes)?,
        "ViewBackward0",
    ))
}

pub fn squeeze(a: &Tensor) -> Result<Tensor> {
    Ok(reshape_like(a, ops::squeeze(a)?, "SqueezeBackward0"))
}

pub fn squeeze_dim(a: &Tensor, dim: i64) -> Result<Tensor> {
    Ok(reshape_like(
        a,
        ops::squeeze_dim(a, dim)?,
        "SqueezeBackward1",
    ))
}

pub fn squeeze_dims(a: &Tensor, dim: &[i64]) -> Result<Tensor> {
    Ok(reshape_like(
        a,
        ops::squeeze_dims(a, dim)?,
        "SqueezeBackward2",
    ))
}

pub fn unsqueeze(a: &Tensor, dim: i64) -> Result<Tensor> {
    let out = ops::unsqueeze(a, dim)?;
    if should_record(&[a]) {
        let d = crate::core::tensor::maybe_wrap_dim(dim, a.dim() + 1)? as i64;
        record(&out, &[a], NodeKind::Unsqueeze { dim: d });
    }
    Ok(out)
}

fn transpose_like(a: &Tensor, out: Tensor, name: &'static str, dim0: i64, dim1: i64) -> Tensor {
    if should_record(&[a]) {
        record(&out, &[a], NodeKind::Transpose { name, dim0, dim1 });
    }
    out
}

pub fn transpose(a: &Tensor, dim0: i64, dim1: i64) -> Result<Tensor> {
    Ok(transpose_like(
        a,
        ops::transpose(a, dim0, dim1)?,
        "TransposeBackward0",
        dim0,
        dim1,
    ))
}

pub fn swapaxes(a: &Tensor, dim0: i64, dim1: i64) -> Result<Tensor> {
    Ok(transpose_like(
        a,
        ops::swapaxes(a, dim0, dim1)?,
        "TransposeBackward0",
        dim0,
        dim1,
    ))
}

pub fn swapdims(a: &Tensor, dim0: i64, dim1: i64) -> Result<Tensor> {
    Ok(transpose_like(
        a,
        ops::swapdims(a, dim0, dim1)?,
        "TransposeBackward0",
        dim0,
        dim1,
    ))
}

pub fn t(a: &Tensor) -> Result<Tensor> {
    let out = ops::t(a)?;
    if a.dim() < 2 {
        return Ok(reshape_like(a, out, "TBackward0"));
    }
    Ok(transpose_like(a, out, "TBackward0", 0, 1))
}

pub fn permute(a: &Tensor, dims: &[i64]) -> Result<Tensor> {
    let out = ops::permute(a, dims)?;
    if should_record(&[a]) {
        record(&out, &[a], NodeKind::Permute { dims: dims.into() });
    }
    Ok(out)
}

pub fn expand(a: &Tensor, size: &[i64]) -> Result<Tensor> {
    let out = ops::expand(a, size)?;
    if should_record(&[a]) {
        record(&out, &[a], NodeKind::Expand);
    }
    Ok(out)
}

fn identity_like(a: &Tensor, out: Tensor, name: &'static str) -> Tensor {
    if out.same_tensor(a) {
        return out;
    }
    if should_record(&[a]) {
        record(&out, &[a], NodeKind::Identity { name });
    }
    out
}

pub fn clone(a: &Tensor) -> Result<Tensor> {
    Ok(identity_like(a, ops::clone(a)?, "CloneBackward0"))
}

pub fn contiguous(a: &Tensor) -> Result<Tensor> {
    Ok(identity_like(a, ops::contiguous(a)?, "CloneBackward0"))
}

pub fn to(a: &Tensor, dtype: DType, non_blocking: bool, copy: bool) -> Result<Tensor> {
    Ok(identity_like(
        a,
        ops::to(a, dtype, non_blocking, copy)?,
        "ToCopyBackward0",
    ))
}

pub fn float(a: &Tensor) -> Result<Tensor> {
    Ok(identity_like(a, ops::float(a)?, "ToCopyBackward0"))
}

pub fn double(a: &Tensor) -> Result<Tensor> {
    Ok(identity_like(a, ops::double(a)?, "ToCopyBackward0"))
}

pub fn select(a: &Tensor, dim: i64, index: i64) -> Result<Tensor> {
    let out = ops::select(a, dim, index)?;
    if should_record(&[a]) {
        let kind = NodeKind::Select {
            self_sizes: sizes_of(a),
            dim,
            index,
        };
        record(&out, &[a], kind);
    }
    Ok(out)
}

pub fn narrow(a: &Tensor, dim: i64, start: i64, length: i64) -> Result<Tensor> {
    let out = ops::narrow(a, dim, start, length)?;
    if should_record(&[a]) {
        let kind = NodeKind::Narrow {
            self_sizes: sizes_of(a),
            dim,
            start,
            length,
        };
        record(&out, &[a], kind);
    }
    Ok(out)
}

pub fn cat(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
    let out = ops::cat(tensors, dim)?;
    let refs: Vec<&Tensor> = tensors.iter().collect();
    if should_record(&refs) {
        let d = crate::core::tensor::maybe_wrap_dim(dim, out.dim())?;
        let sizes = tensors
            .iter()
            .map(|t| {
                if t.dim() == 1 && t.numel() == 0 {
                    0
                } else {
                    t.sizes()[d]
                }
            })
            .collect();
        record(&out, &refs, NodeKind::Cat { dim, sizes });
    }
    Ok(out)
}

pub fn stack(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
    let out = ops::stack(tensors, dim)?;
    let refs: Vec<&Tensor> = tensors.iter().collect();
    if should_record(&refs) {
        let kind = NodeKind::Stack {
            dim,
            n: tensors.len(),
        };
        record(&out, &refs, kind);
    }
    Ok(out)
}

// ---- indexing -----------------------------------------------------------------------------

pub fn gather(a: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
    let out = ops::gather(a, dim, index)?;
    if should_record(&[a]) {
        let kind = NodeKind::Gather {
            self_sizes: sizes_of(a),
            dim,
            index: SavedTensor::input(index),
        };
        record(&out, &[a], kind);
    }
    Ok(out)
}

pub fn index_select(a: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
    let out = ops::index_select(a, dim, index)?;
    if should_record(&[a]) {
        let kind = NodeKind::IndexSelect {
            self_sizes: sizes_of(a),
            dim,
            index: SavedTensor::input(index),
        };
        record(&out, &[a], kind);
    }
    Ok(out)
}

/// `t[items]` (the bindings' `__getitem__`).
pub fn index(a: &Tensor, items: &[Item]) -> Result<Tensor> {
    let out = ops::indexing::index(a, items)?;
    if should_record(&[a]) {
        let kind = NodeKind::Index {
            name: index_node_name(items),
            self_sizes: sizes_of(a),
            self_dtype: a.dtype(),
            items: items.into(),
        };
        record(&out, &[a], kind);
    }
    Ok(out)
}

/// torch's node name for `t[items]`: the last op its indexing applies (`t[:, 1]` is a select,
/// `t[1:]` a slice, anything with an index tensor or mask an index).
fn index_node_name(items: &[Item]) -> &'static str {
    if items
        .iter()
        .any(|i| matches!(i, Item::Tensor(_) | Item::Bool(_)))
    {
        return "IndexBackward0";
    }
    let full = |i: &Item| {
        matches!(
            i,
            Item::Slice(None, None, None) | Item::Slice(None, None, Some(1)) | Item::Ellipsis
        )
    };
    match items.iter().rev().find(|i| !full(i)) {
        Some(Item::Int(_)) => "SelectBackward0",
        Some(Item::NewAxis) => "UnsqueezeBackward0",
        Some(Item::Slice(..)) => "SliceBackward0",
        _ => "AliasBackward0",
    }
}

/// `t[i]` for an int `i` (the bindings' fast path).
pub fn index_int(a: &Tensor, i: i64) -> Result<Tensor> {
    let out = ops::indexing::index_int(a, i)?;
    if should_record(&[a]) {
        let kind = NodeKind::Select {
            self_sizes: sizes_of(a),
            dim: 0,
            index: i,
        };
        record(&out, &[a], kind);
    }
    Ok(out)
}

/// The backward of `t[items]`: `z[items] += g` (a recorded op only as far as `g` goes: the
/// result's history is an `IndexBackward0`-free identity of `g`, enough for double backward
/// of the ops in front of it).
pub fn index_put_accumulate(z: &Tensor, items: &[Item], g: &Tensor) -> Result<Tensor> {
    ops::indexing::index_put_accumulate(z, items, g)?;
    if should_record(&[g]) {
        // d(z)/d(g) is indexing again: z[items] gives g's gradient.
        return Err(not_implemented("index (double backward)"));
    }
    Ok(z.clone())
}

pub fn scatter_src(a: &Tensor, dim: i64, index: &Tensor, src: &Tensor) -> Result<Tensor> {
    let out = ops::scatter_src(a, dim, index, src)?;
    if should_record(&[a, src]) {
        let kind = NodeKind::ScatterSrc {
            dim,
            index: SavedTensor::input(index),
        };
        record(&out, &[a, src], kind);
    }
    Ok(out)
}

pub fn scatter_add(a: &Tensor, dim: i64, index: &Tensor, src: &Tensor) -> Result<Tensor> {
    let out = ops::scatter_add(a, dim, index, src)?;
    if should_record(&[a, src]) {
        let kind = NodeKind::ScatterAdd {
            dim,
            index: SavedTensor::input(index),
        };
        record(&out, &[a, src], kind);
    }
    Ok(out)
}

pub fn index_add(
    a: &Tensor,
    dim: i64,
    index: &Tensor,
    source: &Tensor,
    alpha: Scalar,
) -> Result<Tensor> {
    let out = ops::index_add(a, dim, index, source, alpha)?;
    if should_record(&[a, source]) {
        let kind = NodeKind::IndexAdd {
            dim,
            index: SavedTensor::input(index),
            alpha,
            source_dim: source.dim(),
        };
        record(&out, &[a, source], kind);
    }
    Ok(out)
}

// ---- in-place -----------------------------------------------------------------------------

/// torch's `check_inplace`: the leaf errors, and the pending CopySlices case.
fn check_inplace(this: &Tensor) -> Result<()> {
    if this.is_leaf_requiring_grad() {
        return Err(Error::runtime(
            "a leaf Variable that requires grad is being used in an in-place operation.",
        ));
    }
    if let Some(base) = this.base() {
        if base.is_leaf_requiring_grad() || this.is_leaf_requiring_grad() {
            return Err(Error::runtime(
                "a view of a leaf Variable that requires grad is being used in an in-place operation.",
            ));
        }
        return Err(Error::not_implemented(
            "in-place modification of a view of a tensor that is part of an autograd graph is not supported yet by tensorbind (torch's CopySlices); compute the result out of place instead",
        ));
    }
    Ok(())
}

/// Before `t[key] = value` (an in-place write through a view of `t`): torch's leaf error; the
/// write into a tensor in a graph (or of a value requiring grad) needs CopySlices (pending).
pub fn check_setitem(t: &Tensor, value: Option<&Tensor>) -> Result<()> {
    let value_rg = value.is_some_and(|v| v.requires_grad());
    if !(t.requires_grad() || value_rg) || !super::is_grad_enabled() {
        return Ok(());
    }
    if t.is_leaf_requiring_grad() || t.base().is_some_and(|b| b.is_leaf_requiring_grad()) {
        return Err(Error::runtime(
            "a view of a leaf Variable that requires grad is being used in an in-place operation.",
        ));
    }
    Err(Error::not_implemented(
        "t[key] = value on a tensor that is part of an autograd graph (or with a value that requires grad) is not supported yet by tensorbind (torch's CopySlices); use torch.where or index_put out of place instead",
    ))
}

/// Ops whose formula does not read `self`, so the in-place form needs no clone of it.
const NO_SELF_CLONE: &[&str] = &[
    "add_", "sub_", "neg_", "exp_", "sqrt_", "tanh_", "sigmoid_", "relu_", "floor_", "ceil_",
    "trunc_", "round_", "sign_",
];

/// An in-place op `name` on `this` with tensor arguments `others` (Note [In-place ops and
/// history]): `raw` is the bare kernel into `this`; `functional` the recording out-of-place
/// form computed from a given `self`.
pub fn inplace(
    name: &str,
    this: &Tensor,
    others: &[&Tensor],
    raw: impl FnOnce(&Tensor) -> Result<()>,
    functional: impl FnOnce(&Tensor) -> Result<Tensor>,
) -> Result<()> {
    if !(this.requires_grad() || others.iter().any(|t| t.requires_grad()))
        || !super::is_grad_enabled()
    {
        return raw(this);
    }
    check_inplace(this)?;
    let src = if this.requires_grad() && !NO_SELF_CLONE.contains(&name) {
        clone(this)?
    } else {
        this.clone()
    };
    let r = functional(&src)?;
    if r.sizes() != this.sizes() || !crate::core::promote::can_cast(r.dtype(), this.dtype()) {
        // Let the kernel raise torch's error (shape, cast) before anything is written.
        return raw(this);
    }
    this.copy_from(&r)?;
    this.bump_version();
    rebase_history(this, &r);
    Ok(())
}

/// Give `this` the history of `r` (an in-place op's result computed out of place).
fn rebase_history(this: &Tensor, r: &Tensor) {
    match r.grad_fn() {
        Some(node) if this.dtype().is_floating_point() => this.set_grad_fn(node, r.output_nr()),
        _ => this.detach_in_place(),
    }
}

/// `fill_` (value tensor): gradient zero for self.
pub fn fill_(this: &Tensor, value: &Tensor) -> Result<()> {
    if !should_record(&[this, value]) {
        return ops::fill_(this, value);
    }
    check_inplace(this)?;
    check_pending("fill_", &[value])?;
    ops::fill_(this, value)?;
    record(
        this,
        &[this],
        NodeKind::Zero {
            name: "FillBackward0",
        },
    );
    Ok(())
}

/// `zero_`: gradient zero for self.
pub fn zero_(this: &Tensor) -> Result<()> {
    if !should_record(&[this]) {
        return ops::zero_(this);
    }
    check_inplace(this)?;
    ops::zero_(this)?;
    record(
        this,
        &[this],
        NodeKind::Zero {
            name: "ZeroBackward0",
        },
    );
    Ok(())
}

/// `copy_(src)`: gradient zero for self's old value, `g` (reduced and cast) for `src`.
pub fn copy_(this: &Tensor, src: &Tensor, non_blocking: bool) -> Result<()> {
    if !should_record(&[this, src]) {
        return ops::copy_(this, src, non_blocking);
    }
    check_inplace(this)?;
    ops::copy_(this, src, non_blocking)?;
    // The edges are collected from `this`'s old history before the new node replaces it.
    if record(this, &[this, src], NodeKind::Copy).is_none() {
        this.detach_in_place();
    }
    Ok(())
}
