//! src/core/ops/plan.rs: the into-kernel API every op with variants is written to (PyTorch:
//! structured kernels — a `meta` step that settles the result's shape and dtype and raises the
//! op's own errors, and an `impl` step that writes into a given output — with TensorIterator's
//! checks on that output). See Note [One kernel per op].

use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::promote::can_cast;
use crate::core::tensor::Tensor;
use std::borrow::Cow;

// Note [One kernel per op]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// An op with variants is one function `{op}_plan(args) -> Result<Plan>`: the meta step (the
// result's shape and dtype, the op's own errors; nothing allocated, nothing written) returning
// a `Plan` that holds the op's one kernel, a closure that writes the result into an output of
// that shape and dtype. Every variant runs that kernel:
//
// - the functional form `op(x)`  = `op_plan(x)?.run()`         (a new tensor, then the kernel);
// - the in-place method `x.op_()` = `op_plan(x)?.run_into(x)`   (into self);
// - `op(x, out=o)`                = `op_plan(x)?.run_into(o)`   (the binding resizes `o` first
//                                   when its shape differs: src/bindings/write_out.rs).
//
// `run_into` makes TensorIterator's checks on the output, in torch's order: no internal overlap
// and no partial overlap with an input ("unsupported operation: ..."), the result's shape
// ("output with shape [3] doesn't match the broadcast shape [2, 3]"; an in-place op cannot
// grow self), and the cast ("result type Float can't be cast to the desired output type
// Long"). The kernel then writes straight into the output when the output has the result
// dtype and shares memory with no input other than by being exactly that input (`x.exp_()`,
// `add(a, b, out=a)`); otherwise (a cast on the way out, or an aliasing torch cannot detect,
// such as a non-dense view of an input) it writes a temporary that is copied into the output,
// so the values are always those of the op computed before the output is written.
//
// The schema derives the variants from one entry (`inplace: True`, `out: True`; build/schema.rs)
// and the generated bindings call `{impl}_plan`.

/// The kernel of a `Plan`: `kernel(out, fresh)` (see `Plan`).
pub trait Kernel: FnOnce(&Tensor, bool) -> Result<()> {}
impl<F: FnOnce(&Tensor, bool) -> Result<()>> Kernel for F {}

/// An op checked and ready to write its result (see Note [One kernel per op]). `K` is the
/// kernel: `kernel(out, fresh)` writes every element of `out` (the plan's shape and dtype);
/// `fresh` says `out` is a new tensor nobody else sees (so it aliases no input); otherwise `out`
/// shares no memory with an input except by being exactly that input (same elements).
pub struct Plan<'a, K> {
    shape: Cow<'a, [usize]>,
    dtype: DType,
    /// The tensors the kernel reads, for the output checks.
    inputs: [Option<&'a Tensor>; 3],
    kernel: K,
}

impl<'a, K: Kernel> Plan<'a, K> {
    /// A plan writing a result of `shape` and `dtype` from `inputs` with `kernel`.
    #[inline(always)]
    pub fn new(
        shape: Cow<'a, [usize]>,
        dtype: DType,
        inputs: [Option<&'a Tensor>; 3],
        kernel: K,
    ) -> Self {
        Plan {
            shape,
            dtype,
            inputs,
            kernel,
        }
    }

    /// The result's shape.
    #[inline(always)]
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The result's dtype.
    #[inline(always)]
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// True when `t` shares storage with a tensor the kernel reads (an `out=` that must be
    /// resized is then computed first: resizing would replace a tensor the plan borrows).
    pub fn reads(&self, t: &Tensor) -> bool {
        self.inputs.iter().flatten().any(|i| i.shares_storage(t))
    }

    /// The result in a new tensor (the functional form).
    #[inline(always)]
    pub fn run(self) -> Result<Tensor> {
        // SAFETY: the kernel writes every element of `out` when it returns `Ok` (its contract);
        // on an error `out` is dropped unread.
        let out = unsafe { Tensor::empty_uninit(&self.shape, self.dtype)? };
        (self.kernel)(&out, true)?;
        Ok(out)
    }

    /// Write the result into `out` (the in-place form with `out` = self, and `out=`), after
    /// TensorIterator's checks (see Note [One kernel per op]). `out` must have the result's
    /// shape (an in-place op cannot resize self; the `out=` binding resizes first).
    #[inline]
    pub fn run_into(self, out: &Tensor) -> Result<()> {
        if check_output(out, &self.shape, self.dtype, &self.inputs)? {
            (self.kernel)(out, false)
        } else {
            let tmp = self.run()?;
            out.copy_from(&tmp)
        }
    }
}

/// TensorIterator's checks on an output `out` for a result of `shape` and `dtype` read from
/// `inputs`, in torch's order; `Ok(true)` when the kernel may write straight into `out`,
/// `Ok(false)` when it must write a temporary to copy in.
#[inline(never)]
pub fn check_output(
    out: &Tensor,
    shape: &[usize],
    dtype: DType,
    inputs: &[Option<&Tensor>],
) -> Result<bool> {
    out.assert_no_internal_overlap()?;
    for x in inputs.iter().flatten() {
        out.assert_no_partial_overlap(x)?;
    }
    if out.sizes() != shape {
        return Err(Error::runtime(format!(
            "output with shape {:?} doesn't match the broadcast shape {:?}",
            out.sizes(),
            shape
        )));
    }
    if !can_cast(dtype, out.dtype()) {
        return Err(cast_error(dtype, out.dtype()));
    }
    Ok(out.dtype() == dtype && inputs.iter().flatten().all(|x| !aliases_other(out, x)))
}

/// torch's RuntimeError for writing a `from` result into an output (or self) of dtype `to`.
pub fn cast_error(from: DType, to: DType) -> Error {
    Error::runtime(format!(
        "result type {} can't be cast to the desired output type {}",
        from.scalar_type_name(),
        to.scalar_type_name()
    ))
}

/// True when writing `out` could change an element of `x` other than the one at the same
/// position: they share storage without `x` being exactly `out`'s elements (same offset, and
/// strides that broadcast to `out`'s).
fn aliases_other(out: &Tensor, x: &Tensor) -> bool {
    out.shares_storage(x)
        && out.numel() > 0
        && !(x.storage_offset() == out.storage_offset()
            && x.dtype() == out.dtype()
            && x.broadcast_strides(out.sizes())
                .is_ok_and(|s| s == out.strides()))
}
