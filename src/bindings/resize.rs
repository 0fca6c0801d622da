//! src/bindings/resize.rs: `Tensor.resize_` and `Tensor.resize_as_`, which give a tensor object
//! a new shape (and, when it must grow, a larger storage) in place: the object keeps its
//! identity and gets the core's resized tensor (`replace_tensor`, as an `out=` resize does).
//!
//! Layer 3 (entry points): see src/bindings/mod.rs.

use super::arg_parser::ParsedArgs;
use super::errors::PyResult;
use super::object_ptr::Borrowed;
use super::tensor_object::{replace_tensor, TensorRef};
use super::write_out::refuse_if_exported;
use crate::core::ops::resized;
use pyo3_ffi as ffi;

/// Give `this_obj` (whose tensor is `this`) the shape `size`; returns `this_obj` (a new
/// reference). BufferError while a buffer export of its memory is open (the memory under the
/// export could change); the core's errors otherwise (`core::ops::resized`).
fn resize_object<'a>(
    this_obj: Borrowed<'a>,
    this: &TensorRef<'a>,
    size: &[i64],
) -> PyResult<*mut ffi::PyObject> {
    // A new shape gives the object another tensor: not while its memory is exported (checked
    // first: the export itself holds the tensor, which `resized` would read as shared).
    if !this
        .sizes()
        .iter()
        .map(|&s| s as i64)
        .eq(size.iter().copied())
    {
        refuse_if_exported(this_obj)?;
    }
    let t = resized(this, size)?;
    if !t.same_tensor(this) {
        // SAFETY: `this_obj` is the live tensor object this method was called on (our caller,
        // CPython, owns a reference to it for the call); the GIL is held; `t` is a fresh tensor
        // (`resized` made it) with no Python object. `this` stays valid: the replaced handle is
        // parked until the call returns (Note [Borrowed tensors and replaced handles]), and
        // nothing reads it after this line.
        unsafe { replace_tensor(this_obj, t) };
    }
    Ok(this_obj.to_owned().release())
}

/// `Tensor.resize_(*size)`: see `core::ops::resized`. Mirrors torch.Tensor.resize_ (without
/// `memory_format=`, which tensorbind does not have).
pub(crate) fn tensor_resize_<'a>(
    r: &ParsedArgs<'a>,
    this_obj: Borrowed<'a>,
    this: TensorRef<'a>,
) -> PyResult<*mut ffi::PyObject> {
    let size = r.int_list(0)?;
    resize_object(this_obj, &this, &size)
}

/// `Tensor.resize_as_(the_template)`: `resize_(the_template.shape)`. Mirrors
/// torch.Tensor.resize_as_ (without `memory_format=`).
pub(crate) fn tensor_resize_as_<'a>(
    r: &ParsedArgs<'a>,
    this_obj: Borrowed<'a>,
    this: TensorRef<'a>,
) -> PyResult<*mut ffi::PyObject> {
    let size: Vec<i64> = r.tensor(0)?.sizes().iter().map(|&s| s as i64).collect();
    resize_object(this_obj, &this, &size)
}
