//! src/bindings/tensor_new.rs: hand-written because the schema cannot express "nested Python
//! sequences of numbers": `_C.tensor(data, *, dtype=None)` and the `_C.Tensor(...)` constructor
//! (PyTorch: `torch/csrc/utils/tensor_new.cpp`). Shape and dtype are inferred here; the core
//! builds the tensor.
//!
//! Layer 3 (entry points): see src/bindings/mod.rs.

use super::arg_parser::ParsedArgs;
use super::convert;
use super::describe;
use super::errors::{runtime_error, type_error, value_error, BindError, PyResult};
use super::object_ptr::{Borrowed, ObjectPtr};
use super::tensor_object::{alloc_with, unpack, wrap};
use crate::core::dtype::Category;
use crate::core::promote::promote_types;
use crate::core::{DType, Scalar, Tensor};
use pyo3_ffi as ffi;

/// Deepest nesting we follow before calling the data malformed (torch allows 64 dims too).
const MAX_DIMS: usize = 64;

/// The items of a list or tuple as a fresh, owned vector of new references (so that the
/// sequence may change under us without invalidating what we read).
fn items(o: Borrowed<'_>) -> PyResult<Option<Vec<ObjectPtr>>> {
    // SAFETY: type checks and item reads of a live object; `PySequence_Fast` returns a new
    // reference to a list or tuple whose items we copy out as new references.
    unsafe {
        let p = o.as_ptr();
        if ffi::PyList_Check(p) == 0 && ffi::PyTuple_Check(p) == 0 {
            return Ok(None);
        }
        let n = ffi::PySequence_Size(p);
        if n < 0 {
            return Err(BindError::Python);
        }
        let mut out = Vec::with_capacity(n as usize);
        for i in 0..n {
            out.push(ObjectPtr::steal_or_err(ffi::PySequence_GetItem(p, i))?);
        }
        Ok(Some(out))
    }
}

/// Walk nested sequences: record the shape from the first element at each depth, check every
/// sequence against it, and collect the leaves.
fn collect(
    o: Borrowed<'_>,
    depth: usize,
    shape: &mut Vec<usize>,
    leaves: &mut Vec<Scalar>,
    inferred: &mut Option<DType>,
    leaf_dtype: Option<DType>,
    fname: &str,
) -> PyResult<()> {
    if depth > MAX_DIMS {
        return Err(value_error(format!(
            "{fname}(): too many dimensions (more than {MAX_DIMS})"
        )));
    }
    if leaf_dtype.is_none() && super::numpy::is_ndarray(o) {
        // A numpy array inside a sequence: its values, typed by its dtype (torch's
        // `infer_scalar_type` of an array is its dtype).
        let dtype = super::numpy::array_dtype(o)?;
        // SAFETY: a method call on a live array; a new reference or NULL.
        let list = unsafe {
            ObjectPtr::steal_or_err(ffi::PyObject_CallMethod(
                o.as_ptr(),
                c"tolist".as_ptr(),
                std::ptr::null(),
            ))?
        };
        return collect(
            list.as_borrowed(),
            depth,
            shape,
            leaves,
            inferred,
            Some(dtype),
            fname,
        );
    }
    match items(o)? {
        Some(seq) => {
            if depth == shape.len() {
                if !leaves.is_empty() {
                    // A sequence where an earlier sibling had a number.
                    return Err(value_error(format!(
                        "expected a number at dim {} (got a sequence of length {})",
                        depth.saturating_sub(1),
                        seq.len()
                    )));
                }
                shape.push(seq.len());
            } else if shape[depth] != seq.len() {
                // torch: expected sequence of length 2 at dim 1 (got 3)
                return Err(value_error(format!(
                    "expected sequence of length {} at dim {} (got {})",
                    shape[depth],
                    depth,
                    seq.len()
                )));
            }
            for item in &seq {
                collect(
                    item.as_borrowed(),
                    depth + 1,
                    shape,
                    leaves,
                    inferred,
                    leaf_dtype,
                    fname,
                )?;
            }
            Ok(())
        }
        None => {
            if depth < shape.len() {
                return Err(value_error(format!(
                    "expected sequence of length {} at dim {} (got {})",
                    shape[depth],
                    depth,
                    describe::type_name(o)
                )));
            }
            let mut infer = |d: DType| {
                *inferred = Some(inferred.map_or(d, |i| promote_types(i, d)));
            };
            if super::numpy::is_numpy_scalar(o) {
                let (s, d) = super::numpy::scalar_value(o)?;
                infer(leaf_dtype.unwrap_or(d));
                leaves.push(s);
                return Ok(());
            }
            if convert::is_number(o) {
                let s = convert::number_to_scalar(o)?;
                infer(leaf_dtype.unwrap_or(match s.category() {
                    Category::Floating => DType::DEFAULT_FLOAT,
                    Category::Integral => DType::Int64,
                    Category::Bool => DType::Bool,
                }));
                leaves.push(s);
                return Ok(());
            }
            if let Some(t) = unpack(o) {
                if t.numel() == 1 {
                    infer(match t.item()?.category() {
                        Category::Floating => DType::DEFAULT_FLOAT,
                        Category::Integral => DType::Int64,
                        Category::Bool => DType::Bool,
                    });
                    leaves.push(t.item()?);
                    return Ok(());
                }
                return Err(value_error(
                    "only one element tensors can be converted to Python scalars",
                ));
            }
            // torch: new(): invalid data type 'str'
            Err(type_error(format!(
                "{fname}(): invalid data type '{}'",
                describe::type_name(o)
            )))
        }
    }
}

/// Build a core tensor from nested sequences of numbers (or a number, or a tensor). Without
/// `dtype`, the result is bool if every leaf is a bool, float32 if any is a float, else int64
/// (the legacy `Tensor(...)` constructor passes float32).
pub(crate) fn from_data(data: Borrowed<'_>, dtype: Option<DType>, fname: &str) -> PyResult<Tensor> {
    if let Some(t) = unpack(data) {
        // Copy construction (torch recommends `clone()`; the values and shape are kept).
        return Ok(t.to_dtype(dtype.unwrap_or(t.dtype()))?);
    }
    if super::numpy::is_ndarray(data) {
        // A copy keeping the array's dtype (float64 stays float64), at memory speed.
        let t = super::numpy::copy_from_numpy(data)?;
        return Ok(match dtype {
            Some(d) if d != t.dtype() => t.to_dtype(d)?,
            _ => t,
        });
    }
    if super::numpy::is_numpy_scalar(data) {
        let (s, d) = super::numpy::scalar_value(data)?;
        return Ok(Tensor::scalar_tensor(s, dtype.unwrap_or(d))?);
    }
    if let Some(t) = buffer_as_sequence(data, dtype)? {
        return Ok(t);
    }
    let mut shape = Vec::new();
    let mut leaves = Vec::new();
    let mut inferred = None;
    collect(data, 0, &mut shape, &mut leaves, &mut inferred, None, fname)?;
    // `tensor([])` is float32.
    let dtype = dtype.or(inferred).unwrap_or(DType::DEFAULT_FLOAT);
    let t = Tensor::zeros(&shape, dtype)?;
    t.copy_from_scalars(&leaves)?;
    Ok(t)
}

/// A buffer exporter that is not a list, tuple, `bytes` or `str` (`bytearray`, `memoryview`,
/// `array.array`, ...) read as torch reads it — a sequence of its elements, typed like Python
/// numbers (integers give int64, floats float32) — but copied from its memory in one pass.
fn buffer_as_sequence(data: Borrowed<'_>, dtype: Option<DType>) -> PyResult<Option<Tensor>> {
    // SAFETY: type checks of a live object.
    let excluded = unsafe {
        ffi::PyList_Check(data.as_ptr()) != 0
            || ffi::PyTuple_Check(data.as_ptr()) != 0
            || ffi::PyBytes_Check(data.as_ptr()) != 0
            || ffi::PyUnicode_Check(data.as_ptr()) != 0
    };
    if excluded || !super::buffer::has_buffer(data) {
        return Ok(None);
    }
    let shared = super::buffer::shared_from_buffer(data, "tensor")?;
    let target = dtype.unwrap_or(match shared.dtype().category() {
        Category::Floating => DType::DEFAULT_FLOAT,
        Category::Integral => DType::Int64,
        Category::Bool => DType::Bool,
    });
    let t = if target == shared.dtype() {
        crate::core::ops::clone(&shared)?
    } else {
        shared.to_dtype(target)?
    };
    Ok(Some(t))
}

/// `_C.tensor(data, *, dtype=None, requires_grad=False)`: the body of the entry point generated from the schema
/// (`manual_binding: METH_FASTCALL tensor_new::tensor`), which parses the arguments.
pub(crate) fn tensor(r: &ParsedArgs<'_>) -> PyResult<*mut ffi::PyObject> {
    // `device=` and `pin_memory=` (parameters 2 and 4): checked, the tensor is on the CPU
    // (Note [Devices]).
    r.check_device(2)?;
    r.check_pin_memory(4)?;
    let dtype = r.optional_scalar_type(1)?;
    // torch: RuntimeError: Could not infer dtype of NoneType
    let data = r
        .object(0)
        .ok_or_else(|| runtime_error("Could not infer dtype of NoneType"))?;
    if unpack(data).is_some() {
        // torch's UserWarning for copy construction, raised before anything is made (so with
        // `-W error` nothing is left to free).
        // SAFETY: the GIL is held; the category is a live warning class and the message a static
        // C string.
        if unsafe { ffi::PyErr_WarnEx(ffi::PyExc_UserWarning, COPY_CONSTRUCT_WARNING.as_ptr(), 1) }
            < 0
        {
            return Err(BindError::Python);
        }
    }
    let requires_grad = r.bool(3)?;
    let t = from_data(data, dtype, "tensor")?;
    Ok(
        wrap(crate::core::autograd::variable_type::with_requires_grad(
            t,
            requires_grad,
        )?)?
        .release(),
    )
}

/// torch's warning for `torch.tensor(a_tensor)` (torch/csrc/utils/tensor_new.cpp, `tensor_ctor`).
const COPY_CONSTRUCT_WARNING: &std::ffi::CStr = c"To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).";

/// `_C.Tensor(...)` (`tp_new`): the legacy constructor, for the type and its subclasses.
///
/// # Safety
/// Called by CPython with a ready subtype of `_C.Tensor`, an argument tuple and a dict or NULL.
pub unsafe extern "C" fn tensor_type_new(
    subtype: *mut ffi::PyTypeObject,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: CPython passes a tuple (borrowed) and a dict or NULL (borrowed).
        unsafe {
            if !kwargs.is_null() && ffi::PyDict_Size(kwargs) > 0 {
                return Err(type_error("Tensor(): no keyword arguments are accepted"));
            }
            let n = ffi::PyTuple_GET_SIZE(args);
            let arg = |i: ffi::Py_ssize_t| Borrowed::from_ptr(ffi::PyTuple_GET_ITEM(args, i));
            let t = if n == 0 {
                Tensor::zeros(&[0], DType::DEFAULT_FLOAT)?
            } else if n == 1 && !convert::is_int(arg(0)) {
                if convert::is_number(arg(0)) {
                    // torch: TypeError: new(): data must be a sequence (got float)
                    return Err(type_error(format!(
                        "new(): data must be a sequence (got {})",
                        describe::type_name(arg(0))
                    )));
                }
                from_data(arg(0), Some(DType::DEFAULT_FLOAT), "Tensor")?
            } else {
                let mut sizes = Vec::with_capacity(n as usize);
                for i in 0..n {
                    let o = arg(i);
                    if !convert::is_int(o) {
                        return Err(type_error(format!(
                            "Tensor(): argument {} must be int, not {}",
                            i + 1,
                            describe::type_name(o)
                        )));
                    }
                    sizes.push(convert::to_i64(o)?);
                }
                crate::core::ops::zeros(&sizes, Some(DType::DEFAULT_FLOAT))?
            };
            alloc_with(subtype, t).map(ObjectPtr::release)
        }
    })
}

/// `_C._rebuild_tensor(cls, data, dtype, shape)`: the constructor pickles name (see
/// `Tensor.__reduce_ex__`). `cls` must be `_C.Tensor` or a subclass, `data` the bytes. The body
/// of the entry point generated from the schema (`manual_binding`).
pub(crate) fn rebuild_tensor(r: &ParsedArgs<'_>) -> PyResult<*mut ffi::PyObject> {
    let (Some(cls), Some(data)) = (r.object(0), r.object(1)) else {
        return Err(type_error(
            "_rebuild_tensor(): cls and data must not be None",
        ));
    };
    // SAFETY: type checks of live borrowed objects.
    let is_tensor_type = unsafe {
        ffi::PyType_Check(cls.as_ptr()) != 0
            && ffi::PyType_IsSubtype(
                cls.as_ptr() as *mut ffi::PyTypeObject,
                super::tensor_object::tensor_type(),
            ) != 0
    };
    if !is_tensor_type {
        return Err(type_error(
            "_rebuild_tensor(): cls must be _C.Tensor or a subclass of it",
        ));
    }
    let mut buf: *mut std::ffi::c_char = std::ptr::null_mut();
    let mut len: ffi::Py_ssize_t = 0;
    // SAFETY: `data` is live; on success `buf` points into it for as long as it lives.
    if unsafe { ffi::PyBytes_AsStringAndSize(data.as_ptr(), &mut buf, &mut len) } < 0 {
        return Err(BindError::Python);
    }
    // SAFETY: `len` bytes at `buf`, borrowed from `data`, which outlives this call.
    let bytes = unsafe { std::slice::from_raw_parts(buf as *const u8, len as usize) };
    let shape = r.int_list(3)?;
    let sizes = crate::core::ops::nonnegative_sizes(&shape)?;
    let t = Tensor::from_bytes(bytes, &sizes, r.scalar_type(2)?)?;
    // SAFETY: `cls` is a ready subtype of `_C.Tensor` (checked above).
    unsafe { alloc_with(cls.as_ptr() as *mut ffi::PyTypeObject, t) }.map(ObjectPtr::release)
}
