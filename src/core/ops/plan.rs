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
        out.check_inference_write()?;
        // One call of the kernel for both cases: each call site inlines the op's whole kernel.
        let temporary = if check_output(out, &self.shape, self.dtype, &self.inputs)? {
            None
        } else {
            // SAFETY: the kernel writes every element of the temporary when it returns `Ok`
            // (its contract); on an error the temporary is dropped unread.
            Some(unsafe { Tensor::empty_uninit(&self.shape, self.dtype)? })
        };
        (self.kernel)(temporary.as_ref().unwrap_or(out), temporary.is_some())?;
        if let Some(tmp) = &temporary {
            out.copy_from(tmp)?;
        }
        // An in-place write (core Note [Version counter]), also under no_grad.
        out.bump_version();
        Ok(())
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

/// torch's `assert_no_overlap(out, input)` for the ops writing into a copy of
/// their input (`copy_then`), `cat`, `gather`, `index_select`, ...: the written tensor may not
/// be an input nor share any byte with one (not even all of it). For two dense layouts this is
/// torch's check (`Tensor::assert_no_overlap`: disjoint parts of one storage are fine); other
/// layouts, which torch does not check, may share no storage at all.
pub(crate) fn assert_no_overlap(out: &Tensor, input: &Tensor) -> Result<()> {
    if out.is_non_overlapping_and_dense() && input.is_non_overlapping_and_dense() {
        return out.assert_no_overlap(input);
    }
    if out.shares_storage(input) && out.numel() > 0 && input.numel() > 0 {
        return Err(Error::runtime(
            "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.",
        ));
    }
    Ok(())
}

/// The plan of an op that writes into a copy of `input` (the functional forms of `scatter`,
/// `index_add`, `masked_fill`, `tril`, ...:
/// torch's `self.clone().op_(...)`): the result has `shape` (`input` broadcast) and `input`'s
/// dtype; the kernel copies `input` into the output unless it is `input` itself (in place),
/// then runs `write`. In place, or into `out=`, the written tensor may not share memory with
/// `reads` (torch's `assert_no_overlap`).
#[inline(always)]
pub(crate) fn copy_then<'a>(
    input: &'a Tensor,
    shape: Cow<'a, [usize]>,
    reads: [Option<&'a Tensor>; 2],
    write: impl FnOnce(&Tensor) -> Result<()> + 'a,
) -> Plan<'a, impl Kernel + 'a> {
    Plan::new(
        shape,
        input.dtype(),
        [Some(input), reads[0], reads[1]],
        move |out: &Tensor, fresh: bool| {
            if !fresh {
                for r in reads.into_iter().flatten() {
                    assert_no_overlap(out, r)?;
                }
            }
            if !out.is_same(input) {
                out.copy_from(input)?;
            }
            write(out)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ops::{exp_plan, sin_plan};

    fn msg<T: std::fmt::Debug>(r: Result<T>) -> String {
        r.unwrap_err().message
    }

    #[test]
    fn run_into_checks_in_torchs_order_and_writes_in_place() {
        let x = Tensor::from_vec(vec![0.0f64, 1.0], &[2]).unwrap();
        exp_plan(&x).unwrap().run_into(&x).unwrap();
        let v = x.to_vec::<f64>();
        // within exp's documented 1 ULP (vectorised, `vecmath::Func::Exp`)
        assert!(
            v[0] == 1.0 && (v[1] - 1f64.exp()).abs() <= f64::EPSILON * 1f64.exp(),
            "{v:?}"
        );
        let i = Tensor::from_vec(vec![1i64, 2], &[2]).unwrap();
        assert_eq!(
            msg(exp_plan(&i).unwrap().run_into(&i)),
            "result type Float can't be cast to the desired output type Long"
        );
        // the shape check comes before the cast check
        let wide = Tensor::zeros(&[3], DType::Int64).unwrap();
        assert_eq!(
            msg(exp_plan(&i).unwrap().run_into(&wide)),
            "output with shape [3] doesn't match the broadcast shape [2]"
        );
        // a shifted view of the input: torch's partial-overlap error, nothing written
        let t = Tensor::from_vec(vec![0.0f32, 1.0, 2.0], &[3]).unwrap();
        let (head, tail) = (t.as_strided([2], [1], 0), t.as_strided([2], [1], 1));
        assert!(msg(sin_plan(&head).unwrap().run_into(&tail)).starts_with("unsupported operation"));
        assert_eq!(t.to_vec::<f32>(), vec![0.0, 1.0, 2.0]);
        // another dtype: computed into a temporary and cast on the way out
        let out = Tensor::zeros(&[2], DType::Float32).unwrap();
        exp_plan(&x).unwrap().run_into(&out).unwrap();
        assert_eq!(out.dtype(), DType::Float32);
    }
}
