//! src/bindings/entry.rs: the runtime half of every entry point generated from the schema —
//! parse the vectorcall arguments, hand the call to the override protocol when an argument
//! asks for it, run the body under `handle_errors!`; release the GIL around a large core call;
//! turn core results into Python objects (CPython: the shared code Argument Clinic's wrappers
//! call; PyTorch: the `HANDLE_TH_ERRORS` preamble and `wrap()` of its generated bindings).
//!
//! Layer 2 (calling): see src/bindings/mod.rs.
//!
//! A generated entry point is its static parser table, a `body` function (the typed
//! extraction of each argument and the core call: Argument Clinic's `_impl`) and one call into
//! `function` or `method`. src/bindings/generated_sample.rs shows a few, as build.rs writes them.

use super::arg_parser::{ArgSlots, ParsedArgs, PythonArgParser, TensorArg};
use super::convert;
use super::errors::PyResult;
use super::gil;
use super::object_ptr::{py_bool, Borrowed, ObjectPtr};
use super::override_protocol;
use super::structseq;
use super::tensor_object::{tensor_ref, tensor_type, wrap, TensorRef};
use crate::core::{Scalar, Tensor};
use pyo3_ffi as ffi;

// Note [One trampoline per signature kind]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A generated entry point is a static parser table, a `body` (the typed extraction of the
// arguments and the core call) and a call into `function` or `method`. Only the fast parse is
// inlined into each entry point, where it is specialised on the static table (a
// single-signature call without keywords whose arguments certainly bind positionally: a few
// compares per argument). Everything else is shared, one copy per signature kind, with the body
// passed as a plain function pointer: the trampoline (`handle_errors!`: call scope,
// `catch_unwind`, error and warning conversion) in `run_function` / `run_method`, and the
// generic parse and the override protocol in `function_generic` / `method_generic`. Inlined
// into each of the ~1,300 entry points, those parts cost ~0.45 KB of code apiece (0.57 MB of
// the 9.1 MB `.text`, plus unwind tables); shared, the price is one indirect call per Python
// call, which callgrind does not resolve from noise (figures in BENCHMARKS.md). CPython's Argument Clinic makes the same trade: its wrappers share
// `_PyArg_UnpackKeywords` behind an inlined fast check.

/// The typed half of a `_C` function (`body` of a generated entry point): the parsed
/// arguments in, the new reference of the result out.
pub type FunctionBody = fn(&ParsedArgs<'_>) -> PyResult<*mut ffi::PyObject>;

/// The typed half of a `_C.Tensor` method: the parsed arguments, the bound tensor as its
/// Python object (borrowed) and as the tensor inside.
pub type MethodBody =
    for<'a> fn(&ParsedArgs<'a>, Borrowed<'a>, TensorRef<'a>) -> PyResult<*mut ffi::PyObject>;

/// A `_C` function: parse the arguments of a `METH_FASTCALL | METH_KEYWORDS` call with
/// `parser`, dispatch through the override protocol when an argument overrides `_C`, else run
/// `body`; errors and panics become Python exceptions (NULL). Only the fast parse is inlined
/// (Note [One trampoline per signature kind]).
///
/// # Safety
/// CPython's `METH_FASTCALL | METH_KEYWORDS` convention: `module` is the live module that owns
/// the function named `parser.name`; `args` holds `nargs + len(kwnames)` live borrowed objects
/// and `kwnames` is NULL or a tuple of str, all outliving the call; the GIL is held.
#[inline(always)]
pub unsafe fn function(
    parser: &'static PythonArgParser,
    module: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
    body: FunctionBody,
) -> *mut ffi::PyObject {
    // SAFETY: contract (the vectorcall convention).
    if let Some(r) = unsafe { parser.parse_fast(args, nargs, kwnames) } {
        return run_function(&r, body);
    }
    // SAFETY: forwarded contract.
    unsafe { function_generic(parser, module, args, nargs, kwnames, body) }
}

/// `function` after a fast parse: the body under the trampoline (shared by every function).
#[inline(never)]
fn run_function(r: &ParsedArgs<'_>, body: FunctionBody) -> *mut ffi::PyObject {
    crate::handle_errors!({ body(r) })
}

/// `function` when the fast parse declined: the generic parse (and its errors), the override
/// protocol, then the body, under the trampoline (shared by every function).
///
/// # Safety
/// As `function`.
#[inline(never)]
unsafe fn function_generic(
    parser: &'static PythonArgParser,
    module: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
    body: FunctionBody,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        let mut slots = ArgSlots::new();
        // SAFETY: contract (the vectorcall convention).
        let r = unsafe { parser.parse_slow(&mut slots, args, nargs, kwnames) }?;
        if r.has_overloaded() {
            // SAFETY: contract; `module` owns the function named `parser.name`.
            return unsafe {
                override_protocol::dispatch(
                    &r.overloaded(),
                    module,
                    parser.name,
                    None,
                    args,
                    nargs,
                    kwnames,
                )
            };
        }
        body(&r)
    })
}

/// A `_C.Tensor` method: as `function`, with the bound tensor passed to `body` both as its
/// Python object (for in-place ops, which return it) and as the tensor inside; the bound tensor
/// takes part in the override protocol first.
///
/// # Safety
/// As `function`, with `slf` a live `_C.Tensor` (or subclass instance) that the method was
/// looked up on, and `_C.Tensor` owning the method named `parser.name`.
#[inline(always)]
pub unsafe fn method(
    parser: &'static PythonArgParser,
    slf: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
    body: MethodBody,
) -> *mut ffi::PyObject {
    // SAFETY: contract: `slf` is a live tensor, borrowed for the call.
    let self_obj = unsafe { Borrowed::from_ptr(slf) };
    // The override protocol (src/bindings/override_protocol.rs): `self` counts first; an exact
    // `_C.Tensor` never overrides (one compare).
    if !override_protocol::overrides(self_obj) {
        // SAFETY: contract (the vectorcall convention).
        if let Some(r) = unsafe { parser.parse_fast(args, nargs, kwnames) } {
            return run_method(&r, self_obj, body);
        }
    }
    // SAFETY: forwarded contract.
    unsafe { method_generic(parser, slf, args, nargs, kwnames, body) }
}

/// `method` after a fast parse, `self` not overriding: the body under the trampoline.
#[inline(never)]
fn run_method<'a>(
    r: &ParsedArgs<'a>,
    self_obj: Borrowed<'a>,
    body: MethodBody,
) -> *mut ffi::PyObject {
    // SAFETY: `method`'s contract: method descriptors of `_C.Tensor` only bind to tensors, and
    // `self_obj` is borrowed for the call.
    let self_t = unsafe { tensor_ref(self_obj) };
    crate::handle_errors!({ body(r, self_obj, self_t) })
}

/// `method` when the fast parse declined or `self` overrides `_C`: the generic parse, the
/// override protocol, then the body, under the trampoline (shared by every method).
///
/// # Safety
/// As `method`.
#[inline(never)]
unsafe fn method_generic(
    parser: &'static PythonArgParser,
    slf: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
    body: MethodBody,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        let mut slots = ArgSlots::new();
        // SAFETY: contract (the vectorcall convention).
        let r = unsafe { parser.parse_slow(&mut slots, args, nargs, kwnames) }?;
        // SAFETY: contract: `slf` is a live tensor, borrowed for the call.
        let self_obj = unsafe { Borrowed::from_ptr(slf) };
        // SAFETY: as above: method descriptors of `_C.Tensor` only bind to tensors.
        let self_t = unsafe { tensor_ref(self_obj) };
        // The override protocol (src/bindings/override_protocol.rs): `self` counts first.
        if r.has_overloaded() || override_protocol::overrides(self_obj) {
            let overloaded = r.overloaded().with_self(self_obj);
            // SAFETY: contract; `_C.Tensor` owns the method named `parser.name`.
            return unsafe {
                override_protocol::dispatch(
                    &overloaded,
                    tensor_type() as *mut ffi::PyObject,
                    parser.name,
                    Some(self_obj),
                    args,
                    nargs,
                    kwnames,
                )
            };
        }
        body(&r, self_obj, self_t)
    })
}

/// Release the GIL for the core call that follows when the tensors it reads hold
/// `gil::ELEMENTS_THRESHOLD` elements or more (`extra`: the elements of `Tensor[]` arguments):
/// the tensor arguments become our own handles first. The GIL is back when the returned guard
/// is dropped. See Note [Core calls without the GIL] (src/bindings/gil.rs).
///
/// # Safety
/// The GIL is held, and until the guard is dropped only a core call runs on this thread (no
/// Python object is touched, no CPython API is called).
#[inline(always)]
pub unsafe fn unlock_for_elements<const N: usize>(
    extra: usize,
    tensors: [Option<&mut TensorArg<'_>>; N],
) -> Option<gil::Unlocked> {
    let elements = extra + tensors.iter().flatten().map(|t| t.numel()).sum::<usize>();
    // SAFETY: forwarded contract.
    unsafe { unlock_if(gil::elementwise_worth(elements), tensors) }
}

/// Release the GIL for the core call that follows when `worth` (e.g. `gil::matmul_worth`),
/// after making the tensor arguments our own handles. See `unlock_for_elements`.
///
/// # Safety
/// As `unlock_for_elements`.
#[inline(always)]
pub unsafe fn unlock_if<const N: usize>(
    worth: bool,
    tensors: [Option<&mut TensorArg<'_>>; N],
) -> Option<gil::Unlocked> {
    if !worth {
        return None;
    }
    for t in tensors.into_iter().flatten() {
        t.own();
    }
    // SAFETY: forwarded contract; the tensors the core call reads are our own handles, so no
    // other thread can free them meanwhile (Note [Core calls without the GIL]).
    Some(unsafe { gil::Unlocked::new() })
}

/// The elements of a `Tensor[]` argument (for `unlock_for_elements`).
#[inline]
pub fn list_elements(tensors: &[Tensor]) -> usize {
    tensors.iter().map(Tensor::numel).sum()
}

/// A core result as a Python object (torch: `wrap()`): tensors keep their identity (`wrap`),
/// numbers and lists of ints become Python numbers and tuples, `Tensor[]` a tuple of tensors.
pub trait IntoPy {
    fn into_py(self) -> PyResult<ObjectPtr>;
}

impl IntoPy for Tensor {
    #[inline(always)]
    fn into_py(self) -> PyResult<ObjectPtr> {
        wrap(self)
    }
}
impl IntoPy for Scalar {
    fn into_py(self) -> PyResult<ObjectPtr> {
        convert::scalar_to_py(self)
    }
}
impl IntoPy for i64 {
    fn into_py(self) -> PyResult<ObjectPtr> {
        convert::py_int(self)
    }
}
impl IntoPy for f64 {
    fn into_py(self) -> PyResult<ObjectPtr> {
        convert::py_float(self)
    }
}
impl IntoPy for bool {
    fn into_py(self) -> PyResult<ObjectPtr> {
        Ok(py_bool(self))
    }
}
impl IntoPy for Vec<i64> {
    fn into_py(self) -> PyResult<ObjectPtr> {
        convert::int_tuple(self.into_iter())
    }
}
impl IntoPy for Vec<Tensor> {
    fn into_py(self) -> PyResult<ObjectPtr> {
        structseq::tensor_tuple(self)
    }
}

/// The value an entry point returns for a core result: a new reference, or the error raised.
#[inline(always)]
pub fn ret<T: IntoPy>(result: crate::core::Result<T>) -> PyResult<*mut ffi::PyObject> {
    Ok(result?.into_py()?.release())
}

/// The result of an op with `out=`: `out` (a new reference) after writing the result into it
/// (`write_out::write_out`: torch's cast and resize rules), or the result itself without `out`.
#[inline(always)]
pub fn ret_out(
    result: crate::core::Result<Tensor>,
    out: Option<Borrowed<'_>>,
    op: &str,
) -> PyResult<*mut ffi::PyObject> {
    let result = result?;
    match out {
        None => ret(Ok(result)),
        Some(o) => super::write_out::write_out(o, result, op),
    }
}

/// `unwrap_single: True`: a list of one tensor is returned as that tensor, else a tuple.
pub fn ret_unwrap_single(result: crate::core::Result<Vec<Tensor>>) -> PyResult<*mut ffi::PyObject> {
    let mut v = result?;
    if v.len() == 1 {
        return ret(Ok(v.pop().expect("one tensor")));
    }
    ret(Ok(v))
}

/// A `Tensor[]` result returned as a tuple when `tuple` (the schema's `tuple_if` argument) is
/// True, else as its one tensor (torch's `nonzero(as_tuple=False)`).
pub fn ret_tuple_if(
    tuple: bool,
    result: crate::core::Result<Vec<Tensor>>,
) -> PyResult<*mut ffi::PyObject> {
    let mut v = result?;
    if !tuple && v.len() == 1 {
        return ret(Ok(v.pop().expect("one tensor")));
    }
    ret(Ok(v))
}

/// A named-tuple result: `_C.return_types` type number `index` (the generated `RETURN_TYPES`)
/// holding `values`.
pub fn ret_named(index: usize, values: Vec<Tensor>) -> PyResult<*mut ffi::PyObject> {
    Ok(structseq::new_return(index, values)?.release())
}
