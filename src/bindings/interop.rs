//! src/bindings/interop.rs: the Python surface of memory exchange — `_C.from_numpy`,
//! `_C.as_tensor`, `_C.frombuffer`, `_C.from_dlpack`, `Tensor.numpy`, `Tensor.__array__`,
//! `Tensor.__dlpack__` and `Tensor.__dlpack_device__` (PyTorch: `tensor_new.cpp`,
//! `torch/utils/dlpack.py`, `torch/_tensor.py`). The schema declares them (`manual_binding`); the
//! work is in numpy.rs, buffer.rs and dlpack.rs.
//!
//! Layer 3 (entry points): see src/bindings/mod.rs.

use super::arg_parser::ParsedArgs;
use super::errors::{set_error, type_error, value_error, BindError, PyResult};
use super::object_ptr::{Borrowed, ObjectPtr};
use super::tensor_object::{unpack, wrap, TensorRef};
use super::{buffer, convert, dlpack, numpy};
use crate::core::Tensor;
use pyo3_ffi as ffi;
use std::sync::atomic::{AtomicPtr, Ordering};

fn is_none(o: Option<Borrowed<'_>>) -> bool {
    // SAFETY: identity comparison with the `None` singleton.
    o.is_none_or(|o| o.as_ptr() == unsafe { ffi::Py_None() })
}

fn is_true(o: Borrowed<'_>) -> bool {
    // SAFETY: identity comparison with the `True` singleton.
    o.as_ptr() == unsafe { ffi::Py_True() }
}

/// `_C.from_numpy(ndarray)` (`METH_O`): a tensor sharing the array's memory.
///
/// # Safety
/// Called by CPython with the module and one live borrowed argument.
pub unsafe extern "C" fn from_numpy(
    _module: *mut ffi::PyObject,
    arr: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: CPython's argument, live for the call.
        let arr = unsafe { Borrowed::from_ptr(arr) };
        Ok(wrap(numpy::from_numpy(arr, true)?)?.release())
    })
}

/// True for a buffer exporter `as_tensor` shares: one that is not also a sequence (torch reads
/// `bytearray`, `memoryview` and `array.array` as sequences of Python numbers, so they are copied
/// as by `tensor()`: `as_tensor(bytearray(b"ab"))` is int64 `[97, 98]`).
fn shareable_buffer(o: Borrowed<'_>) -> bool {
    // SAFETY: a slot check of a live object.
    let sequence = unsafe { ffi::PySequence_Check(o.as_ptr()) != 0 };
    !sequence && buffer::has_buffer(o)
}

/// `_C.as_tensor(data, dtype=None)`: shares memory when it can — a tensor of the right dtype is
/// returned itself, a numpy array or another buffer exporter of the right dtype is shared — and
/// copies otherwise (as `_C.tensor`).
pub(crate) fn as_tensor(r: &ParsedArgs<'_>) -> PyResult<*mut ffi::PyObject> {
    // `device=` (parameter 2): checked, the tensor is on the CPU (Note [Devices]).
    r.check_device(2)?;
    let dtype = r.optional_scalar_type(1)?;
    let Some(data) = r.object(0) else {
        return Err(super::errors::runtime_error(
            "Could not infer dtype of NoneType",
        ));
    };
    let convert_to = |t: Tensor| -> PyResult<*mut ffi::PyObject> {
        let t = match dtype {
            Some(d) if d != t.dtype() => t.to_dtype(d)?,
            _ => t,
        };
        Ok(wrap(t)?.release())
    };
    if let Some(t) = unpack(data) {
        if dtype.is_none_or(|d| d == t.dtype()) {
            return Ok(data.to_owned().release());
        }
        return Ok(wrap(t.to_dtype(dtype.unwrap_or(t.dtype()))?)?.release());
    }
    if numpy::is_ndarray(data) {
        return convert_to(numpy::from_numpy(data, true)?);
    }
    if !numpy::is_numpy_scalar(data) && shareable_buffer(data) {
        return convert_to(buffer::shared_from_buffer(data, "as_tensor")?);
    }
    Ok(wrap(super::tensor_new::from_data(data, dtype, "as_tensor")?)?.release())
}

/// `_C.frombuffer(buffer, *, dtype, count=-1, offset=0)`.
pub(crate) fn frombuffer(r: &ParsedArgs<'_>) -> PyResult<*mut ffi::PyObject> {
    let Some(buf) = r.object(0) else {
        return Err(value_error(
            "object does not implement Python buffer protocol.",
        ));
    };
    let t = buffer::frombuffer(buf, r.scalar_type(1)?, r.int(2)?, r.int(3)?)?;
    Ok(wrap(t)?.release())
}

/// True when the pending Python exception is a TypeError.
fn type_error_is_set() -> bool {
    // SAFETY: reading the error indicator with the GIL held.
    unsafe { ffi::PyErr_ExceptionMatches(ffi::PyExc_TypeError) != 0 }
}

/// Call `obj.__dlpack__(**kwargs)` (a new reference).
fn call_dlpack(method: Borrowed<'_>, versioned: bool) -> PyResult<ObjectPtr> {
    // SAFETY: building a keyword dict and calling a live callable; new references or NULL.
    unsafe {
        let args = ObjectPtr::steal_or_err(ffi::PyTuple_New(0))?;
        let kwargs = ObjectPtr::steal_or_err(ffi::PyDict_New())?;
        if versioned {
            let v = ObjectPtr::steal_or_err(ffi::Py_BuildValue(c"(ii)".as_ptr(), 1, 0))?;
            if ffi::PyDict_SetItemString(kwargs.as_ptr(), c"max_version".as_ptr(), v.as_ptr()) < 0 {
                return Err(BindError::Python);
            }
        }
        ObjectPtr::steal_or_err(ffi::PyObject_Call(
            method.as_ptr(),
            args.as_ptr(),
            kwargs.as_ptr(),
        ))
    }
}

/// `_C.from_dlpack(ext_tensor, *, device=None, copy=None)`: a tensor over the memory of any
/// DLPack producer (an object with `__dlpack__`, or a capsule), as `torch.from_dlpack`.
/// `copy=True` copies; `copy=False` refuses read-only data (which otherwise is copied).
pub(crate) fn from_dlpack(r: &ParsedArgs<'_>) -> PyResult<*mut ffi::PyObject> {
    let Some(obj) = r.object(0) else {
        return Err(type_error(
            "from_dlpack(): expected an object with __dlpack__ or a DLPack capsule, got NoneType",
        ));
    };
    let device = r.object(1);
    if !is_none(device) {
        let ok = device.is_some_and(|d| {
            convert::is_str(d) && convert::str_as_utf8(d).is_ok_and(|s| s == "cpu")
        });
        if !ok {
            return Err(value_error(
                "from_dlpack(): tensorbind only has the device 'cpu'",
            ));
        }
    }
    let copy = r.object(2).filter(|o| !is_none(Some(*o)));
    // SAFETY: attribute lookup on a live object; new reference or NULL (AttributeError cleared).
    let method = unsafe { ffi::PyObject_GetAttrString(obj.as_ptr(), c"__dlpack__".as_ptr()) };
    let t = if method.is_null() {
        // SAFETY: GIL held; the object has no `__dlpack__`: it must be a capsule.
        unsafe { ffi::PyErr_Clear() };
        dlpack::from_capsule(obj)?
    } else {
        // SAFETY: a new reference.
        let method = unsafe { ObjectPtr::steal(method) }.expect("checked non-NULL");
        let capsule = match call_dlpack(method.as_borrowed(), true) {
            Ok(c) => c,
            // An older producer (numpy < 2.1) rejects `max_version`: ask again for the legacy
            // capsule, as torch does.
            Err(BindError::Python) if type_error_is_set() => {
                // SAFETY: clearing the TypeError just matched, GIL held.
                unsafe { ffi::PyErr_Clear() };
                call_dlpack(method.as_borrowed(), false)?
            }
            Err(e) => return Err(e),
        };
        dlpack::from_capsule(capsule.as_borrowed())?
    };
    let t = match copy {
        Some(c) if is_true(c) => crate::core::ops::clone(&t)?,
        Some(_) if !t.is_external() => {
            return Err(value_error(
                "from_dlpack(): the producer's data is read-only, so it must be copied, and copy=False forbids that",
            ))
        }
        _ => t,
    };
    Ok(wrap(t)?.release())
}

/// `Tensor.numpy(*, force=False)`: an array sharing the tensor's memory (torch: on the CPU
/// `force=True` shares too).
pub(crate) fn tensor_numpy<'a>(
    r: &ParsedArgs<'a>,
    _this_obj: Borrowed<'a>,
    this: TensorRef<'a>,
) -> PyResult<*mut ffi::PyObject> {
    let force = r.bool(0)?;
    if this.requires_grad() && !force {
        return Err(super::errors::runtime_error(
            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
        ));
    }
    if this.requires_grad() {
        return Ok(numpy::to_numpy(&this.detach())?.release());
    }
    Ok(numpy::to_numpy(&this)?.release())
}

/// `Tensor.__array__(dtype=None, copy=None)` (numpy's protocol, version 2): the tensor as an
/// array, shared unless a dtype conversion or `copy=True` asks for a copy; `copy=False` with a
/// conversion is numpy's ValueError.
pub(crate) fn tensor_array<'a>(
    r: &ParsedArgs<'a>,
    _this_obj: Borrowed<'a>,
    this: TensorRef<'a>,
) -> PyResult<*mut ffi::PyObject> {
    let dtype = r.object(0).filter(|o| !is_none(Some(*o)));
    let copy = r.object(1).filter(|o| !is_none(Some(*o)));
    let shared = numpy::to_numpy(&this)?;
    let mut arr = shared.clone();
    if let Some(dt) = dtype {
        // SAFETY: a method call on a live array; new reference or NULL.
        arr = unsafe {
            let astype = ObjectPtr::steal_or_err(ffi::PyObject_GetAttrString(
                shared.as_ptr(),
                c"astype".as_ptr(),
            ))?;
            let args = ObjectPtr::steal_or_err(ffi::PyTuple_Pack(1, dt.as_ptr()))?;
            let kwargs = ObjectPtr::steal_or_err(ffi::Py_BuildValue(
                c"{sO}".as_ptr(),
                c"copy".as_ptr(),
                ffi::Py_False(),
            ))?;
            ObjectPtr::steal_or_err(ffi::PyObject_Call(
                astype.as_ptr(),
                args.as_ptr(),
                kwargs.as_ptr(),
            ))?
        };
    }
    let copied = arr.as_ptr() != shared.as_ptr();
    match copy {
        Some(c) if is_true(c) && !copied => {
            // SAFETY: as above.
            arr = unsafe {
                ObjectPtr::steal_or_err(ffi::PyObject_CallMethod(
                    arr.as_ptr(),
                    c"copy".as_ptr(),
                    std::ptr::null(),
                ))?
            };
        }
        Some(c) if !is_true(c) && copied => {
            return Err(value_error(
                "Unable to avoid copy while creating an array as requested.",
            ))
        }
        _ => {}
    }
    Ok(arr.release())
}

/// `Tensor.__array_wrap__(array, context=None, return_scalar=None)`: a numpy ufunc's result as a
/// tensor (torch: `torch.from_numpy(array)`, bool results as uint8).
pub(crate) fn tensor_array_wrap<'a>(
    r: &ParsedArgs<'a>,
    _this_obj: Borrowed<'a>,
    _this: TensorRef<'a>,
) -> PyResult<*mut ffi::PyObject> {
    let Some(arr) = r.object(0).filter(|o| numpy::is_ndarray(*o)) else {
        return Err(type_error("__array_wrap__(): expected a numpy array"));
    };
    let t = match numpy::from_numpy(arr, false) {
        Ok(t) => t,
        Err(BindError::Core(e)) if e.kind == crate::core::ErrorKind::Value => {
            numpy::copy_from_numpy(arr)?
        }
        Err(e) => return Err(e),
    };
    let t = if t.dtype() == crate::core::DType::Bool {
        t.to_dtype(crate::core::DType::UInt8)?
    } else {
        t
    };
    Ok(wrap(t)?.release())
}

fn buffer_error(msg: &str) -> BindError {
    // SAFETY: a live exception type.
    set_error(unsafe { ffi::PyExc_BufferError }, msg);
    BindError::Python
}

/// `Tensor.__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)`: a DLPack
/// capsule over the tensor's memory — "dltensor_versioned" when `max_version` allows 1.x, the
/// legacy "dltensor" otherwise; `copy=True` exports a copy.
pub(crate) fn tensor_dlpack<'a>(
    r: &ParsedArgs<'a>,
    _this_obj: Borrowed<'a>,
    this: TensorRef<'a>,
) -> PyResult<*mut ffi::PyObject> {
    let stream = r.object(0);
    if !is_none(stream)
        && !stream.is_some_and(|s| convert::is_int(s) && convert::to_i64(s).is_ok_and(|v| v == -1))
    {
        // torch: AssertionError "stream should be None on cpu."; BufferError as the array API says.
        return Err(buffer_error("stream should be None on cpu."));
    }
    let versioned = match r.object(1).filter(|o| !is_none(Some(*o))) {
        None => false,
        Some(v) => {
            // SAFETY: item access on a live object; a new reference or NULL.
            let major = unsafe { ffi::PySequence_GetItem(v.as_ptr(), 0) };
            // SAFETY: new reference or NULL.
            let major = unsafe { ObjectPtr::steal(major) }.ok_or_else(|| {
                type_error("__dlpack__(): max_version must be a tuple (major, minor)")
            })?;
            if !convert::is_int(major.as_borrowed()) {
                return Err(type_error(
                    "__dlpack__(): max_version must be a tuple (major, minor)",
                ));
            }
            convert::to_i64(major.as_borrowed())? >= 1
        }
    };
    if let Some(d) = r.object(2).filter(|o| !is_none(Some(*o))) {
        // SAFETY: a live object; `Py_BuildValue` returns a new tuple or NULL.
        let cpu = unsafe { ObjectPtr::steal_or_err(ffi::Py_BuildValue(c"(ii)".as_ptr(), 1, 0))? };
        // SAFETY: comparison of two live objects; -1 on error.
        let same = unsafe { ffi::PyObject_RichCompareBool(d.as_ptr(), cpu.as_ptr(), ffi::Py_EQ) };
        if same < 0 {
            return Err(BindError::Python);
        }
        if same == 0 {
            return Err(buffer_error(
                "__dlpack__(): dl_device must be (1, 0), the CPU",
            ));
        }
    }
    let copy = r.object(3).is_some_and(|c| !is_none(Some(c)) && is_true(c));
    let t = if copy {
        crate::core::ops::clone(&this)?
    } else {
        (*this).clone()
    };
    Ok(dlpack::to_dlpack(t, versioned, copy)?.release())
}

/// The cached `(DLDeviceType.kDLCPU, 0)` tuple.
static CPU_DEVICE: AtomicPtr<ffi::PyObject> = AtomicPtr::new(std::ptr::null_mut());

/// `(DLDeviceType.kDLCPU, 0)`: built once, the IntEnum made as torch's `DLDeviceType`.
fn cpu_device() -> PyResult<ObjectPtr> {
    let p = CPU_DEVICE.load(Ordering::Acquire);
    if !p.is_null() {
        // SAFETY: the static holds a reference for the life of the process.
        return Ok(unsafe { ObjectPtr::borrow(p) });
    }
    // SAFETY: importing `enum` and calling `IntEnum(name, members)`; new references or NULL.
    let tuple = unsafe {
        let enum_mod = ObjectPtr::steal_or_err(ffi::PyImport_ImportModule(c"enum".as_ptr()))?;
        let members = ObjectPtr::steal_or_err(ffi::Py_BuildValue(
            c"[(si)(si)(si)(si)(si)(si)(si)(si)(si)(si)(si)(si)(si)(si)]".as_ptr(),
            c"kDLCPU".as_ptr(),
            1,
            c"kDLCUDA".as_ptr(),
            2,
            c"kDLCUDAHost".as_ptr(),
            3,
            c"kDLOpenCL".as_ptr(),
            4,
            c"kDLVulkan".as_ptr(),
            7,
            c"kDLMetal".as_ptr(),
            8,
            c"kDLVPI".as_ptr(),
            9,
            c"kDLROCM".as_ptr(),
            10,
            c"kDLROCMHost".as_ptr(),
            11,
            c"kDLExtDev".as_ptr(),
            12,
            c"kDLCUDAManaged".as_ptr(),
            13,
            c"kDLOneAPI".as_ptr(),
            14,
            c"kDLWebGPU".as_ptr(),
            15,
            c"kDLHexagon".as_ptr(),
            16,
        ))?;
        let cls = ObjectPtr::steal_or_err(ffi::PyObject_CallMethod(
            enum_mod.as_ptr(),
            c"IntEnum".as_ptr(),
            c"sO".as_ptr(),
            c"DLDeviceType".as_ptr(),
            members.as_ptr(),
        ))?;
        let cpu = ObjectPtr::steal_or_err(ffi::PyObject_GetAttrString(
            cls.as_ptr(),
            c"kDLCPU".as_ptr(),
        ))?;
        ObjectPtr::steal_or_err(ffi::Py_BuildValue(c"(Oi)".as_ptr(), cpu.as_ptr(), 0))?
    };
    // A concurrent first call (another thread, between our GIL releases) may have won: keep one.
    match CPU_DEVICE.compare_exchange(
        std::ptr::null_mut(),
        tuple.as_ptr(),
        Ordering::AcqRel,
        Ordering::Acquire,
    ) {
        Ok(_) => {
            let kept = tuple.clone();
            std::mem::forget(kept); // the static's reference
            Ok(tuple)
        }
        // SAFETY: the static holds a reference for the life of the process.
        Err(other) => Ok(unsafe { ObjectPtr::borrow(other) }),
    }
}

/// `Tensor.__dlpack_device__()` (`METH_NOARGS`): `(DLDeviceType.kDLCPU, 0)`.
///
/// # Safety
/// Called by CPython with a live tensor object.
pub unsafe extern "C" fn tensor_dlpack_device(
    _slf: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({ Ok(cpu_device()?.release()) })
}
