//! src/bindings/write_out.rs: finishing an op called with `out=` — `write_out` writes a result
//! into the caller's tensor with torch's cast and resize rules (and its resize warning), and
//! `write_out_plan` runs an op's plan straight into it (Note [One kernel per op]). Called by
//! the generated entry points (through `entry::ret_out`, or directly).
//!
//! Layer 2 (calling): see src/bindings/mod.rs.

use super::describe;
use super::errors::{runtime_error, type_error, value_error, PyResult};
use super::gil;
use super::object_ptr::{Borrowed, ObjectPtr};
use super::tensor_object::{tensor_ref, unpack, TensorRef};
use crate::core::ops::plan::{cast_error, Kernel, Plan};
use crate::core::promote::can_cast;
use crate::core::{DType, Tensor};
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

/// One rule of the schema's `out_dtype:` key: the dtype an `out=` tensor must have (not merely
/// one the result can be cast to) and torch's words when it has another. Checked before any
/// resize, as torch does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutDtype {
    /// input's dtype (torch's structured kernels: `gather`, `aminmax`).
    SelfDtype,
    /// input's dtype (`amax`, `amin`).
    SelfMatch,
    /// input's dtype (`kthvalue`'s values).
    SelfValues,
    /// int64, in `SelfDtype`'s words (the indices of `max(dim)`, `sort`, `topk`).
    Int64,
    /// int64 (`multinomial`).
    Long,
    /// int64 (`nonzero`, `nonzero_static`).
    LongScalarType,
    /// int64 (`kthvalue`'s indices).
    LongIndices,
    /// input's dtype (`mode`'s values).
    SelfOutput,
    /// int64 (`mode`'s indices).
    LongOutput,
    /// input's dtype (`median(dim)`'s and `nanmedian(dim)`'s values).
    SelfSameType,
    /// int64 (`median(dim)`'s and `nanmedian(dim)`'s indices), checked before the other rules.
    LongChecked,
    /// input's dtype (`cummax`'s and `cummin`'s values).
    SelfFound,
    /// int64 (`cummax`'s and `cummin`'s indices).
    LongFound,
    /// int32, in `SelfDtype`'s words (the linalg `_ex` functions' `info`, `pivots`).
    Int32,
    /// input's dtype (`histogram`'s `hist`).
    SelfHist,
    /// input's dtype (`histogram`'s `bin_edges`).
    SelfBinEdges,
    /// input's dtype (`frexp`'s mantissa).
    SelfMantissa,
    /// int32 (`frexp`'s exponent).
    Int32Exponent,
}

impl OutDtype {
    /// torch's error for an out tensor of dtype `got` where `want` was needed.
    fn error(self, want: DType, got: DType, op: &str) -> String {
        match self {
            // gather(): Expected out tensor to have dtype float, but got double instead
            OutDtype::SelfDtype | OutDtype::Int64 | OutDtype::Int32 => format!(
                "Expected out tensor to have dtype {}, but got {} instead",
                want.type_meta_name(),
                got.type_meta_name()
            ),
            // amax(): Expected the dtype for input and out to match, but got Float for input's dtype and Double for out's dtype.
            OutDtype::SelfMatch => format!(
                "Expected the dtype for input and out to match, but got {} for input's dtype and {} for out's dtype.",
                want.scalar_type_name(),
                got.scalar_type_name()
            ),
            OutDtype::SelfValues => "output values must be of same type as input".into(),
            // multinomial expects Long tensor out, got: Double
            OutDtype::Long => format!(
                "{op} expects Long tensor out, got: {}",
                got.scalar_type_name()
            ),
            // nonzero: Expected out tensor to have scalar type Long but got scalar typeFloat
            OutDtype::LongScalarType => format!(
                "{op}: Expected out tensor to have scalar type Long but got scalar type{}",
                got.scalar_type_name()
            ),
            OutDtype::LongIndices => "output indices must be of scalar type Long".into(),
            // mode(): expected scalar type 'Float' but got 'Double' for values output
            OutDtype::SelfOutput | OutDtype::LongOutput => format!(
                "expected scalar type '{}' but got '{}' for {} output",
                want.scalar_type_name(),
                got.scalar_type_name(),
                if self == OutDtype::SelfOutput { "values" } else { "indices" }
            ),
            // median(): Expected tensor for 'values' to have the same type as tensor for
            // argument #2 'self'; but type torch.DoubleTensor does not equal torch.FloatTensor
            // (while checking arguments for median) — nanmedian's text says median too.
            OutDtype::SelfSameType => format!(
                "Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but type torch.{}Tensor does not equal torch.{}Tensor (while checking arguments for median)",
                got.scalar_type_name(),
                want.scalar_type_name()
            ),
            // median(): Expected tensor for argument #1 'indices' to have scalar type Long; but
            // got torch.IntTensor instead (while checking arguments for median)
            OutDtype::LongChecked => format!(
                "Expected tensor for argument #1 'indices' to have scalar type Long; but got torch.{}Tensor instead (while checking arguments for median)",
                got.scalar_type_name()
            ),
            // cummax(): expected scalar_type Float but found Double
            OutDtype::SelfFound | OutDtype::LongFound => format!(
                "expected scalar_type {} but found {}",
                want.scalar_type_name(),
                got.scalar_type_name()
            ),
            // histogram(): torch.histogram: input tensor and hist tensor should have the same
            // dtype, but got input float and hist double
            OutDtype::SelfHist => format!(
                "torch.histogram: input tensor and hist tensor should have the same dtype, but got input {} and hist {}",
                want.type_meta_name(),
                got.type_meta_name()
            ),
            OutDtype::SelfBinEdges => format!(
                "torch.histogram: input tensor and bin_edges tensor should have the same dtype, but got input {} and bin_edges {} for dimension 0",
                want.type_meta_name(),
                got.type_meta_name()
            ),
            // frexp(): torch.frexp() expects mantissa to have dtype float but got double
            OutDtype::SelfMantissa => format!(
                "torch.frexp() expects mantissa to have dtype {} but got {}",
                want.type_meta_name(),
                got.type_meta_name()
            ),
            OutDtype::Int32Exponent => format!(
                "torch.frexp() expects exponent to have int dtype but got {}",
                got.type_meta_name()
            ),
        }
    }

    /// Whether torch checks this rule before the others (`median`'s indices before its values).
    fn checked_first(self) -> bool {
        self == OutDtype::LongChecked
    }
}

/// The tensors of an `out=` argument: `out` itself, or the items of a tuple/list
/// (`out=(values, indices)`), borrowed from it. Anything that is not a tensor is skipped here
/// (the writes report it).
fn out_items(o: Borrowed<'_>) -> Vec<Borrowed<'_>> {
    // SAFETY: type checks of a live object.
    let seq = unsafe { ffi::PyTuple_Check(o.as_ptr()) != 0 || ffi::PyList_Check(o.as_ptr()) != 0 };
    if !seq {
        return vec![o];
    }
    // SAFETY: `o` is a live list or tuple; `PySequence_Fast_ITEMS` gives its item array of
    // `len` borrowed references, read at once (no Python code runs while we hold them).
    unsafe {
        let n = ffi::PySequence_Fast_GET_SIZE(o.as_ptr());
        let items = ffi::PySequence_Fast_ITEMS(o.as_ptr());
        (0..n as usize)
            .map(|i| Borrowed::from_ptr(*items.add(i)))
            .collect()
    }
}

/// torch's dtype checks of `out=` (the schema's `out_dtype:`): one rule per out tensor, against
/// the input's dtype `self_dtype` or int64. RuntimeError with torch's text on the first mismatch.
pub fn check_out_dtype(
    o: Borrowed<'_>,
    rules: &[OutDtype],
    self_dtype: DType,
    op: &str,
) -> PyResult<()> {
    let items = out_items(o);
    let pairs = || items.iter().copied().zip(rules.iter().copied());
    // The rules torch checks first, then the others, each group in the results' order.
    let ordered = pairs()
        .filter(|(_, r)| r.checked_first())
        .chain(pairs().filter(|(_, r)| !r.checked_first()));
    for (item, rule) in ordered {
        let Some(t) = unpack(item) else { continue };
        let want = match rule {
            OutDtype::SelfDtype
            | OutDtype::SelfMatch
            | OutDtype::SelfValues
            | OutDtype::SelfOutput
            | OutDtype::SelfSameType
            | OutDtype::SelfFound
            | OutDtype::SelfHist
            | OutDtype::SelfBinEdges
            | OutDtype::SelfMantissa => self_dtype,
            OutDtype::Int32 | OutDtype::Int32Exponent => DType::Int32,
            OutDtype::Int64
            | OutDtype::Long
            | OutDtype::LongScalarType
            | OutDtype::LongIndices
            | OutDtype::LongOutput
            | OutDtype::LongChecked
            | OutDtype::LongFound => DType::Int64,
        };
        if t.dtype() != want {
            return Err(runtime_error(rule.error(want, t.dtype(), op)));
        }
    }
    Ok(())
}

/// torch's `assert_no_internal_overlap(out)` and `assert_no_overlap(out, input)` for each input
/// (the schema's `out_overlap: forbid`: `cat`, `index_select`, `masked_select`, `take`): `out`
/// may not be an input, nor share memory with one, nor be an expanded tensor.
/// For a named-tuple result, each of its out tensors is checked (`kthvalue`'s values against its
/// input).
pub fn check_out_overlap(o: Borrowed<'_>, inputs: &[&Tensor], lists: &[&[Tensor]]) -> PyResult<()> {
    for item in out_items(o) {
        let Some(out) = unpack(item) else { continue };
        out.assert_no_internal_overlap()?;
        for x in inputs
            .iter()
            .copied()
            .chain(lists.iter().flat_map(|l| l.iter()))
        {
            out.assert_no_overlap(x)?;
        }
    }
    Ok(())
}

/// The schema's `out_overlap: outputs`: the out tensors of a named-tuple result (fields
/// `fields`) may not overlap one another (torch's ValueError "aminmax(): the `min` and `max`
/// out= tensors must not overlap.").
pub fn check_outs_disjoint(o: Borrowed<'_>, fields: &[&str], op: &str) -> PyResult<()> {
    let items: Vec<_> = out_items(o).into_iter().map(unpack).collect();
    for (i, a) in items.iter().enumerate() {
        for (j, b) in items.iter().enumerate().skip(i + 1) {
            let (Some(a), Some(b)) = (a, b) else { continue };
            if a.assert_no_overlap(b).is_err() {
                return Err(value_error(format!(
                    "{op}(): the `{}` and `{}` out= tensors must not overlap.",
                    fields.get(i).copied().unwrap_or("?"),
                    fields.get(j).copied().unwrap_or("?")
                )));
            }
        }
    }
    Ok(())
}

/// The shape checks of `out=(a, b)` for a named-tuple result of `n` tensors, before anything is
/// computed: a tuple or list (the parser has checked that) of exactly `n` tensors.
pub fn check_out_tuple(o: Borrowed<'_>, n: usize, op: &str) -> PyResult<()> {
    let items = out_items(o);
    if items.len() != n {
        // kthvalue(): expected tuple of 2 elements but got 3
        return Err(type_error(format!(
            "expected tuple of {n} elements but got {}",
            items.len()
        )));
    }
    for item in items {
        out_tensor(item, op)?;
    }
    Ok(())
}

/// Finish an op with a named-tuple result called with `out=(a, b)` (checked by
/// `check_out_tuple`): each result is written into its out tensor as `write_out` does (cast
/// check, resize with torch's warning), and the out tensors themselves are returned as the
/// op's named tuple (`_C.return_types.<op>`, the structseq of index `index`).
pub fn write_out_named(
    o: Borrowed<'_>,
    index: usize,
    results: Vec<Tensor>,
    op: &str,
) -> PyResult<*mut ffi::PyObject> {
    check_out_tuple(o, results.len(), op)?;
    // Our own references: a resize warning runs Python code, which may change a list `out`.
    let items: Vec<ObjectPtr> = out_items(o).into_iter().map(Borrowed::to_owned).collect();
    for (item, result) in items.iter().zip(results) {
        // SAFETY: `write_out` returns a new reference to `item` (or NULL with an error set, as
        // `?` reports), owned and dropped here.
        drop(unsafe { ObjectPtr::steal(write_out(item.as_borrowed(), result, op)?) });
    }
    let mut outs = Vec::with_capacity(items.len());
    for item in &items {
        // SAFETY: `item` is a live tensor object (checked by `write_out`), which we own; its
        // handle is read after the writes (a resize replaced it).
        outs.push(unsafe { tensor_ref(item.as_borrowed()) }.clone());
    }
    Ok(super::structseq::new_return(index, outs)?.release())
}
