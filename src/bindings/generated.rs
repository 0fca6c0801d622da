//! src/bindings/generated.rs: the one place the generated bindings are included, plus the
//! helpers the generated code calls (`write_out`, `write_out_plan`, `MethodTable`).
//!
//! The included file is `$OUT_DIR/generated_bindings.rs`, written by build.rs from
//! src/native_functions.yaml: one `extern "C"` entry point per op and variant (vectorcall:
//! `METH_FASTCALL | METH_KEYWORDS`), each with a static `PythonArgParser` (a table of the
//! schema's parameters) and its body wrapped in `handle_errors!`, and the static tables
//! `KEYWORDS`, `FUNCTIONS` and `TENSOR_METHODS`.

use super::convert;
use super::errors::{type_error, PyResult};
use super::gil;
use super::object_ptr::Borrowed;
use super::tensor_object::{tensor_ref, unpack};
use crate::core::ops::binary::BinaryPlan;
use crate::core::promote::can_cast;
use crate::core::{Error, Tensor};
use pyo3_ffi as ffi;

/// A static array of method definitions. CPython only reads these tables.
pub struct MethodTable<const N: usize>(pub [ffi::PyMethodDef; N]);
// SAFETY: the tables hold pointers to static C strings and functions only, and are never written
// after compilation; CPython reads them under the GIL.
unsafe impl<const N: usize> Sync for MethodTable<N> {}

mod gen {
    #[allow(unused_imports)]
    use super::super::{
        arg_parser::{
            DefaultValue, FunctionParameter, FunctionSignature, Keyword, ParamType, ParsedArgs,
            PythonArgParser, TensorArg,
        },
        entry,
        errors::PyResult,
        generator_object::unpack_generator,
        gil, number,
        object_ptr::Borrowed,
        tensor_object::TensorRef,
    };
    use super::{write_out_plan, MethodTable};
    use crate::core::{ops, Scalar};
    use pyo3_ffi as ffi;
    include!(concat!(env!("OUT_DIR"), "/generated_bindings.rs"));
}

/// The generated module functions.
pub fn functions() -> &'static [ffi::PyMethodDef] {
    &gen::FUNCTIONS.0
}

/// The parameter names of every generated parser (interned by `PyInit__C`).
pub fn keywords() -> &'static [&'static super::arg_parser::Keyword] {
    &gen::KEYWORDS
}

/// The named-tuple return types: (op name, field names).
pub fn return_types() -> &'static [(&'static str, &'static [&'static str])] {
    gen::RETURN_TYPES
}

/// Fill the number-protocol slots of the schema's operators (`python_operator`).
pub(crate) fn fill_number_slots(t: &mut ffi::PyNumberMethods) {
    gen::fill_number_slots(t)
}

/// The rich comparison `op` (`ffi::Py_EQ`, ...): the `_C` function it mirrors and the core op.
pub(crate) fn compare_op(op: std::ffi::c_int) -> Option<(&'static str, super::number::BinaryOp)> {
    gen::compare_op(op)
}

/// The generated `_C.Tensor` methods.
pub fn tensor_methods() -> &'static [ffi::PyMethodDef] {
    &gen::TENSOR_METHODS.0
}

/// The `_C.Generator` methods (hand-written, declared in the schema).
pub fn generator_methods() -> &'static [ffi::PyMethodDef] {
    &gen::GENERATOR_METHODS.0
}

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
            convert::type_name(o)
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

/// The stub, the README's op list and the sample of the bindings generated by build.rs, for the
/// tests below and `make stubs`.
pub const GENERATED_STUB: &str = include_str!(concat!(env!("OUT_DIR"), "/_C.pyi"));
pub const GENERATED_OP_LIST: &str = include_str!(concat!(env!("OUT_DIR"), "/op_list.md"));
pub const GENERATED_SAMPLE: &str = include_str!(concat!(env!("OUT_DIR"), "/generated_sample.rs"));

#[cfg(test)]
mod tests {
    use super::{GENERATED_OP_LIST, GENERATED_SAMPLE, GENERATED_STUB};

    const STUB_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/python/_C/__init__.pyi");
    const README_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    const SAMPLE_PATH: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/bindings/generated_sample.rs"
    );
    const BEGIN: &str =
        "<!-- op list: generated from src/native_functions.yaml by `make stubs` -->\n";
    const END: &str = "<!-- end of op list -->";

    /// The README with its op-list section replaced by the generated one.
    fn readme_with_op_list(readme: &str) -> Option<String> {
        let start = readme.find(BEGIN)? + BEGIN.len();
        let end = readme[start..].find(END)? + start;
        Some(format!(
            "{}{}{}",
            &readme[..start],
            GENERATED_OP_LIST,
            &readme[end..]
        ))
    }

    /// The committed stub, README op list and bindings sample equal what the schema generates.
    /// Run with `UPDATE_GENERATED=1` (`make stubs`) to rewrite them.
    #[test]
    fn committed_generated_files_are_current() {
        let update = std::env::var_os("UPDATE_GENERATED").is_some();
        let readme = std::fs::read_to_string(README_PATH).expect("README.md");
        let new_readme = readme_with_op_list(&readme).expect("README.md lacks the op-list markers");
        if update {
            std::fs::write(STUB_PATH, GENERATED_STUB).expect("write stub");
            std::fs::write(README_PATH, &new_readme).expect("write README");
            std::fs::write(SAMPLE_PATH, GENERATED_SAMPLE).expect("write sample");
            return;
        }
        let committed = std::fs::read_to_string(STUB_PATH).unwrap_or_default();
        assert!(
            committed == GENERATED_STUB,
            "python/_C/__init__.pyi is stale: run `make stubs`"
        );
        assert!(
            readme == new_readme,
            "README.md's op list is stale: run `make stubs`"
        );
        let sample = std::fs::read_to_string(SAMPLE_PATH).unwrap_or_default();
        assert!(
            sample == GENERATED_SAMPLE,
            "src/bindings/generated_sample.rs is stale: run `make stubs`"
        );
    }
}
