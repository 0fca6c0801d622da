//! src/bindings/write_out.rs: finishing an op called with `out=` — `write_out` writes a result
//! into the caller's tensor with torch's cast and resize rules (and its resize warning), and
//! `write_out_plan` lets a structured op (`structured: True` in the schema) write straight into
//! it. Called by the generated entry points (through `entry::ret_out`, or directly).
//!
//! Layer 2 (calling): see src/bindings/mod.rs.

use super::describe;
use super::errors::{type_error, PyResult};
use super::gil;
use super::object_ptr::Borrowed;
use super::tensor_object::{tensor_ref, unpack};
use crate::core::ops::binary::BinaryPlan;
use crate::core::promote::can_cast;
use crate::core::{Error, Tensor};
use pyo3_ffi as ffi;

/// Finish an op called with `out=o` (not None; without it the generated code wraps `result`
/// itself): write `result` into `o` (torch's rules: the dtype must be castable, a different
/// shape resizes `out` with a UserWarning unless it was empty) and return `o` itself (a new
/// reference).
///
/// Resizing gives the object a new tensor of the new shape (`replace_tensor`): the object keeps
/// its identity, `__dict__` and `grad`, and views of the old tensor still name it as `_base`
/// (Note [PyObject preservation], forwarding tensors). The warning runs Python code (warning
/// filters, `showwarning`), which may even resize `o` again: the tensor is read afresh after it.
pub fn write_out(o: Borrowed<'_>, result: Tensor, op: &str) -> PyResult<*mut ffi::PyObject> {
    let Some(t) = unpack(o) else {
        // add(): argument 'out' must be Tensor, not int
        return Err(type_error(format!(
            "{op}(): argument 'out' must be Tensor, not {}",
            describe::type_name(o)
        )));
    };
    if !can_cast(result.dtype(), t.dtype()) {
        return Err(Error::runtime(format!(
            "result type {} can't be cast to the desired output type {}",
            result.dtype().scalar_type_name(),
            t.dtype().scalar_type_name()
        ))
        .into());
    }
    if t.sizes() != result.sizes() {
        // SAFETY: `o` is a live tensor object (checked above); the GIL is held.
        if unsafe { super::tensor_object::export_count(o) } > 0 {
            // bytearray's words: a memoryview of `out` still exports its current memory.
            // SAFETY: `PyExc_BufferError` is a live exception type.
            super::errors::set_error(
                unsafe { ffi::PyExc_BufferError },
                "Existing exports of data: object cannot be re-sized",
            );
            return Err(super::errors::BindError::Python);
        }
        if t.numel() != 0 {
            let msg = format!(
                "An output with one or more elements was resized since it had shape {:?}, which does not match the required output shape {:?}. This behavior is deprecated, and in a future release outputs will not be resized unless they have zero elements.",
                t.sizes(),
                result.sizes()
            );
            let cmsg = super::errors::c_string(&msg);
            // SAFETY: `PyExc_UserWarning` is a live type; -1 means the warning became an error.
            if unsafe { ffi::PyErr_WarnEx(ffi::PyExc_UserWarning, cmsg.as_ptr(), 1) } < 0 {
                return Err(super::errors::BindError::Python);
            }
        }
        // SAFETY: `o` is a live tensor object (checked above) borrowed from our caller, who owns
        // a reference to it; the GIL is held.
        let dtype = unsafe { tensor_ref(o) }.dtype();
        let resized = Tensor::zeros(result.sizes(), dtype)?;
        // SAFETY: as above; `resized` is fresh (no Python object). Borrowed handles to the old
        // tensor (`t`, and any further up the stack) stay valid: the old handle is parked until
        // the outermost call returns (Note [Borrowed tensors and replaced handles]).
        unsafe { super::tensor_object::replace_tensor(o, resized) };
    }
    // SAFETY: `o` is a live tensor object (checked above).
    let t = unsafe { tensor_ref(o) };
    t.copy_from(&result)?;
    Ok(o.to_owned().release())
}

/// Finish an op with `out=` given, for ops with a core plan (`structured: True` in the schema):
/// when `out` is a tensor of the result's shape whose dtype the result casts to, the op writes
/// straight into it (`BinaryPlan::run_into`: no intermediate result, no copy); otherwise the result
/// is computed and handed to `write_out`, whose errors, resizing and warning are unchanged.
/// Returns `out` itself (a new reference).
pub fn write_out_plan(
    out: Borrowed<'_>,
    plan: BinaryPlan<'_>,
    op: &str,
) -> PyResult<*mut ffi::PyObject> {
    match unpack(out) {
        Some(t) if t.sizes() == plan.shape() && can_cast(plan.dtype(), t.dtype()) => {
            // `plan` may borrow `t` itself (out=input): both are shared borrows, and the kernel
            // handles that aliasing; nothing replaces `out`'s tensor on this path. A large
            // output is written without the GIL: the plan's inputs and `t` are borrowed handles,
            // which stay valid while this call runs even if another thread replaces them (Note
            // [Borrowed tensors and replaced handles]), and only the core runs meanwhile.
            let work: usize = plan.shape().iter().product();
            let unlocked = gil::elementwise_worth(work).then(|| {
                // SAFETY: the GIL is held; until `unlocked` is dropped only `run_into` runs, on
                // handles that stay valid for this call (see above).
                unsafe { gil::Unlocked::new() }
            });
            let done = plan.run_into(&t);
            drop(unlocked);
            done?;
            Ok(out.to_owned().release())
        }
        // The resize path replaces `out`'s tensor, which `plan` may borrow: compute first.
        _ => write_out(out, plan.run()?, op),
    }
}
