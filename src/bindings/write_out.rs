//! src/bindings/write_out.rs: finishing an op called with `out=` — `write_out` writes a result
//! into the caller's tensor with torch's cast and resize rules (and its resize warning), and
//! `write_out_plan` runs an op's plan straight into it (Note [One kernel per op]). Called by
//! the generated entry points (through `entry::ret_out`, or directly).
//!
//! Layer 2 (calling): see src/bindings/mod.rs.

use super::describe;
use super::errors::{runtime_error, type_error, PyResult};
use super::gil;
use super::object_ptr::Borrowed;
use super::tensor_object::{tensor_ref, unpack, TensorRef};
use crate::core::ops::plan::{cast_error, Kernel, Plan};
use crate::core::promote::can_cast;
use crate::core::Tensor;
use pyo3_ffi as ffi;

/// `o` as the tensor of an `out=` argument, or torch's TypeError.
fn out_tensor<'a>(o: Borrowed<'a>, op: &str) -> PyResult<TensorRef<'a>> {
    unpack(o).ok_or_else(|| {
        // add(): argument 'out' must be Tensor, not int
        type_error(format!(
            "{op}(): argument 'out' must be Tensor, not {}",
            describe::type_name(o)
        ))
    })
}

/// BufferError while a buffer export of `o`'s memory is open (`memoryview(out)`): resizing would
/// give the object other memory under the export (bytearray's rule and words).
pub(crate) fn refuse_if_exported(o: Borrowed<'_>) -> PyResult<()> {
    // SAFETY: `o` is a live tensor object (the callers unpacked it); the GIL is held.
    if unsafe { super::tensor_object::export_count(o) } > 0 {
        // SAFETY: `PyExc_BufferError` is a live exception type.
        super::errors::set_error(
            unsafe { ffi::PyExc_BufferError },
            "Existing exports of data: object cannot be re-sized",
        );
        return Err(super::errors::BindError::Python);
    }
    Ok(())
}

/// Resize the tensor object `o` (an `out=` tensor whose shape is not `shape`) to `shape`,
/// keeping its dtype, with torch's UserWarning unless it had no elements (`resize_output`).
///
/// Resizing gives the object a new tensor of the new shape (`replace_tensor`): the object keeps
/// its identity, `__dict__` and `grad`, and views of the old tensor still name it as `_base`
/// (Note [PyObject preservation], forwarding tensors). The warning runs Python code (warning
/// filters, `showwarning`), which may even resize `o` again: the tensor is read afresh after it.
fn resize_out(o: Borrowed<'_>, shape: &[usize]) -> PyResult<()> {
    refuse_if_exported(o)?;
    // SAFETY: `o` is a live tensor object (the callers unpacked it) borrowed from our caller,
    // who owns a reference to it; the GIL is held.
    let numel = unsafe { tensor_ref(o) }.numel();
    if numel != 0 {
        let msg = format!(
            "An output with one or more elements was resized since it had shape {:?}, which does not match the required output shape {:?}. This behavior is deprecated, and in a future release outputs will not be resized unless they have zero elements.",
            // SAFETY: as above.
            unsafe { tensor_ref(o) }.sizes(),
            shape
        );
        let cmsg = super::errors::c_string(&msg);
        // SAFETY: `PyExc_UserWarning` is a live type; -1 means the warning became an error.
        if unsafe { ffi::PyErr_WarnEx(ffi::PyExc_UserWarning, cmsg.as_ptr(), 1) } < 0 {
            return Err(super::errors::BindError::Python);
        }
    }
    // The warning ran Python code, which may have exported `o`'s memory meanwhile.
    refuse_if_exported(o)?;
    // SAFETY: as above (read afresh: the warning ran Python code).
    let dtype = unsafe { tensor_ref(o) }.dtype();
    let resized = Tensor::zeros(shape, dtype)?;
    // SAFETY: as above; `resized` is fresh (no Python object). Borrowed handles to the old
    // tensor (any up the stack) stay valid: the old handle is parked until the outermost call
    // returns (Note [Borrowed tensors and replaced handles]).
    unsafe { super::tensor_object::replace_tensor(o, resized) };
    Ok(())
}

/// torch's error for a differentiable op called with `out=` while autograd would record it: an
/// input (`inputs`, the tensors of `lists`) or `out` itself requires grad, under grad mode
/// (torch's generated VariableType `*_out` functions). Not differentiable ops skip the check.
pub fn check_out_grad(
    out: Borrowed<'_>,
    inputs: &[&Tensor],
    lists: &[&[Tensor]],
    op: &str,
) -> PyResult<()> {
    let out_requires_grad = unpack(out).is_some_and(|t| t.requires_grad());
    let any = out_requires_grad
        || inputs.iter().any(|t| t.requires_grad())
        || lists.iter().any(|l| l.iter().any(|t| t.requires_grad()));
    if any && crate::core::autograd::is_grad_enabled() {
        // add(): functions with out=... arguments don't support automatic differentiation, but one of the arguments requires grad.
        return Err(runtime_error(format!(
            "{op}(): functions with out=... arguments don't support automatic differentiation, \
             but one of the arguments requires grad."
        )));
    }
    Ok(())
}

/// Finish an op called with `out=o` (not None; without it the generated code wraps `result`
/// itself): write `result` into `o` (torch's rules: the dtype must be castable, a different
/// shape resizes `out` with a UserWarning unless it was empty) and return `o` itself (a new
/// reference). For ops whose schema entry says `out: copy` (no core plan yet), and for a plan
/// whose `out` must be resized while the plan reads it.
pub fn write_out(o: Borrowed<'_>, result: Tensor, op: &str) -> PyResult<*mut ffi::PyObject> {
    let t = out_tensor(o, op)?;
    if !can_cast(result.dtype(), t.dtype()) {
        return Err(cast_error(result.dtype(), t.dtype()).into());
    }
    if t.sizes() != result.sizes() {
        resize_out(o, result.sizes())?;
    }
    // SAFETY: `o` is a live tensor object (checked above).
    let t = unsafe { tensor_ref(o) };
    t.copy_from(&result)?;
    Ok(o.to_owned().release())
}

/// Finish an op called with `out=` through its plan (Note [One kernel per op] in
/// src/core/ops/plan.rs): the op writes straight into `out` (`Plan::run_into`: no intermediate
/// result, no copy), after resizing `out` to the result's shape when it differs (torch's
/// `resize_output`: a UserWarning unless `out` was empty; the cast check comes first, as in
/// torch). Returns `out` itself (a new reference).
pub fn write_out_plan<K: Kernel>(
    out: Borrowed<'_>,
    plan: Plan<'_, K>,
    op: &str,
) -> PyResult<*mut ffi::PyObject> {
    let t = out_tensor(out, op)?;
    // Set when `out` must be resized but the plan reads it: the result is computed into this
    // new tensor first (resizing replaces `out`'s tensor, which the plan borrows), then copied.
    // One `run_into` call below for both cases: each call site inlines the op's whole kernel.
    let mut computed_first = None;
    if t.sizes() != plan.shape() {
        if !can_cast(plan.dtype(), t.dtype()) {
            return Err(cast_error(plan.dtype(), t.dtype()).into());
        }
        if plan.reads(&t) {
            computed_first = Some(Tensor::zeros(plan.shape(), plan.dtype())?);
        } else {
            resize_out(out, plan.shape())?;
        }
    }
    // SAFETY: `out` is a live tensor object (unpacked above), borrowed from our caller.
    let t = unsafe { tensor_ref(out) };
    let target: &Tensor = computed_first.as_ref().unwrap_or(&t);
    // `plan` may borrow `t` itself (out=input): both are shared borrows, and the kernel handles
    // that aliasing; nothing replaces `out`'s tensor from here on. A large output is written
    // without the GIL: the plan's inputs and `t` are borrowed handles, which stay valid while
    // this call runs even if another thread replaces them (Note [Borrowed tensors and replaced
    // handles]), and only the core runs meanwhile.
    let work: usize = plan.shape().iter().product();
    let unlocked = (computed_first.is_none() && gil::elementwise_worth(work)).then(|| {
        // SAFETY: the GIL is held; until `unlocked` is dropped only `run_into` runs, on handles
        // that stay valid for this call (see above).
        unsafe { gil::Unlocked::new() }
    });
    let done = plan.run_into(target);
    drop(unlocked);
    done?;
    match computed_first {
        Some(result) => write_out(out, result, op),
        None => Ok(out.to_owned().release()),
    }
}
