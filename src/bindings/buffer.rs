//! src/bindings/buffer.rs: the buffer protocol (PEP 3118) both ways — `_C.Tensor`'s
//! `bf_getbuffer`/`bf_releasebuffer` (`memoryview(t)`, `np.asarray(t)`: the tensor's memory with
//! a format code per dtype, shape and strides in bytes, writable), with the per-object export
//! count that makes an `out=` resize raise BufferError while an export is open; and tensors over
//! any exporter's memory (`_C.frombuffer`, `_C.as_tensor` of a buffer, `_C.tensor` copies).
//! torch exports no buffer; `frombuffer` is torch's (`tensor_new.cpp`, `tensor_frombuffer`).
//!
//! Layer 2 (calling): see src/bindings/mod.rs.

use super::errors::{set_error, value_error, BindError, PyResult};
use super::external;
use super::object_ptr::Borrowed;
use super::tensor_object::{unpack, PyTensor};
use crate::core::{DType, Tensor};
use pyo3_ffi as ffi;
use std::ffi::{c_int, c_void, CStr};

/// The struct-module format code of each dtype (native byte order and sizes).
fn format_of(d: DType) -> &'static CStr {
    match d {
        DType::Bool => c"?",
        DType::UInt8 => c"B",
        DType::Int8 => c"b",
        DType::Int16 => c"h",
        DType::Int32 => c"i",
        DType::Int64 => c"q",
        DType::Float32 => c"f",
        DType::Float64 => c"d",
    }
}

/// What an open export keeps: a handle to the exported tensor (so its memory outlives the
/// export whatever happens to the object), and the shape and strides the view points into.
struct Export {
    _tensor: Tensor,
    shape_strides: Vec<ffi::Py_ssize_t>,
}

fn buffer_error(msg: &str) -> BindError {
    // SAFETY: `PyExc_BufferError` is a live exception type.
    set_error(unsafe { ffi::PyExc_BufferError }, msg);
    BindError::Python
}

/// True when the strides are those of a Fortran-ordered (column-major) dense layout.
fn is_f_contiguous(sizes: &[usize], strides: &[isize]) -> bool {
    let mut expected: isize = 1;
    for (&n, &s) in sizes.iter().zip(strides) {
        if n == 0 {
            return true;
        }
        if n != 1 && s != expected {
            return false;
        }
        expected *= n as isize;
    }
    true
}

/// `bf_getbuffer` of `_C.Tensor`: fill `view` with the tensor's memory. BufferError when the
/// consumer asks for a contiguity the tensor lacks.
///
/// # Safety
/// Called by CPython with a live tensor object and a `Py_buffer` to fill; GIL held.
pub unsafe extern "C" fn tensor_getbuffer(
    obj: *mut ffi::PyObject,
    view: *mut ffi::Py_buffer,
    flags: c_int,
) -> c_int {
    crate::handle_errors!({
        if view.is_null() {
            return Err(buffer_error("_C.Tensor: NULL view in getbuffer"));
        }
        // SAFETY: CPython passes a live object of our type (or a subclass).
        let o = unsafe { Borrowed::from_ptr(obj) };
        let Some(t) = unpack(o) else {
            return Err(buffer_error("_C.Tensor: the object holds no tensor"));
        };
        let item = t.dtype().itemsize() as ffi::Py_ssize_t;
        let c_contig = t.is_contiguous();
        let want = |f: c_int| flags & f == f;
        if want(ffi::PyBUF_C_CONTIGUOUS)
            && !c_contig
            && !(want(ffi::PyBUF_ANY_CONTIGUOUS) && is_f_contiguous(t.sizes(), t.strides()))
        {
            return Err(buffer_error("_C.Tensor: the tensor is not C-contiguous"));
        }
        if want(ffi::PyBUF_F_CONTIGUOUS) && !is_f_contiguous(t.sizes(), t.strides()) {
            return Err(buffer_error(
                "_C.Tensor: the tensor is not Fortran-contiguous",
            ));
        }
        if want(ffi::PyBUF_ANY_CONTIGUOUS) && !c_contig && !is_f_contiguous(t.sizes(), t.strides())
        {
            return Err(buffer_error("_C.Tensor: the tensor is not contiguous"));
        }
        if !want(ffi::PyBUF_STRIDES) && !c_contig {
            return Err(buffer_error(
                "_C.Tensor: the tensor is not C-contiguous; request strides (PyBUF_STRIDES)",
            ));
        }
        let ndim = t.dim();
        let mut shape_strides = Vec::with_capacity(2 * ndim);
        shape_strides.extend(t.sizes().iter().map(|&s| s as ffi::Py_ssize_t));
        shape_strides.extend(t.strides().iter().map(|&s| s as ffi::Py_ssize_t * item));
        let data = crate::dispatch!(t.dtype(), T => t.data_ptr::<T>() as *mut c_void);
        let mut export = Box::new(Export {
            _tensor: (*t).clone(),
            shape_strides,
        });
        let (shape, strides) = if ndim == 0 {
            (std::ptr::null_mut(), std::ptr::null_mut())
        } else {
            let p = export.shape_strides.as_mut_ptr();
            // SAFETY: the vector holds `2 * ndim` entries.
            (p, unsafe { p.add(ndim) })
        };
        // SAFETY: `view` is writable (CPython's contract); the object gets one more reference, which
        // `PyBuffer_Release` drops; the export box is freed by `tensor_releasebuffer`.
        unsafe {
            let v = &mut *view;
            v.buf = data;
            ffi::Py_INCREF(obj);
            v.obj = obj;
            v.len = t.numel() as ffi::Py_ssize_t * item;
            v.itemsize = item;
            v.readonly = 0;
            // Without PyBUF_ND the consumer reads `len` bytes from `buf` as one dimension (the
            // tensor is C-contiguous then, checked above), as `PyBuffer_FillInfo` says.
            v.ndim = if want(ffi::PyBUF_ND) {
                ndim as c_int
            } else {
                1
            };
            v.format = if want(ffi::PyBUF_FORMAT) {
                format_of(t.dtype()).as_ptr() as *mut _
            } else {
                std::ptr::null_mut()
            };
            v.shape = if want(ffi::PyBUF_ND) {
                shape
            } else {
                std::ptr::null_mut()
            };
            v.strides = if want(ffi::PyBUF_STRIDES) {
                strides
            } else {
                std::ptr::null_mut()
            };
            v.suboffsets = std::ptr::null_mut();
            v.internal = Box::into_raw(export).cast();
            (*(obj as *mut PyTensor)).exports += 1;
        }
        Ok(0)
    })
}

/// `bf_releasebuffer` of `_C.Tensor`: close one export.
///
/// # Safety
/// Called by CPython (from `PyBuffer_Release`) with a view `tensor_getbuffer` filled; GIL held.
pub unsafe extern "C" fn tensor_releasebuffer(obj: *mut ffi::PyObject, view: *mut ffi::Py_buffer) {
    // SAFETY: contract: `internal` is the box made by `tensor_getbuffer`, released once; `obj` is
    // still alive (the view holds a reference until after this returns).
    unsafe {
        let internal = (*view).internal as *mut Export;
        if !internal.is_null() {
            drop(Box::from_raw(internal));
            (*view).internal = std::ptr::null_mut();
        }
        let p = obj as *mut PyTensor;
        (*p).exports = (*p).exports.saturating_sub(1);
    }
}

/// The buffer procedures of `_C.Tensor` (static, filled at compile time).
pub static mut TENSOR_BUFFER_PROCS: ffi::PyBufferProcs = ffi::PyBufferProcs {
    bf_getbuffer: Some(tensor_getbuffer),
    bf_releasebuffer: Some(tensor_releasebuffer),
};

/// True when `o` exports a buffer.
pub fn has_buffer(o: Borrowed<'_>) -> bool {
    // SAFETY: a slot check of a live object.
    unsafe { ffi::PyObject_CheckBuffer(o.as_ptr()) != 0 }
}

/// An open export of `o`'s memory with `flags`, or the exporter's error.
fn get_buffer(o: Borrowed<'_>, flags: c_int) -> PyResult<Box<ffi::Py_buffer>> {
    // SAFETY: an all-zero `Py_buffer` is a valid "empty" value for `PyObject_GetBuffer` to fill.
    let mut view: Box<ffi::Py_buffer> = Box::new(unsafe { std::mem::zeroed() });
    // SAFETY: `o` is live; on success `view` holds an export that must be released once.
    if unsafe { ffi::PyObject_GetBuffer(o.as_ptr(), &mut *view, flags) } < 0 {
        return Err(BindError::Python);
    }
    Ok(view)
}

/// Our dtype for a struct-module format string (native alignment and byte order, or standard
/// sizes with `=`/`<` on a little-endian machine) and item size; None for anything else.
fn dtype_of_format(format: Option<&[u8]>, itemsize: usize) -> Option<DType> {
    let mut f = format.unwrap_or(b"B");
    if let Some((&c, rest)) = f.split_first() {
        let native_order = if cfg!(target_endian = "little") {
            b'<'
        } else {
            b'>'
        };
        if c == b'@' || c == b'=' || c == native_order {
            f = rest;
        }
    }
    let [code] = f else { return None };
    let d = match code {
        b'?' => DType::Bool,
        b'B' => DType::UInt8,
        b'b' | b'h' | b'i' | b'l' | b'q' | b'n' => match itemsize {
            1 => DType::Int8,
            2 => DType::Int16,
            4 => DType::Int32,
            8 => DType::Int64,
            _ => return None,
        },
        b'f' => DType::Float32,
        b'd' => DType::Float64,
        _ => return None,
    };
    (d.itemsize() == itemsize).then_some(d)
}

/// A tensor sharing the memory of the buffer exporter `o`, with the element type, shape and
/// strides the export describes (`_C.as_tensor(memoryview(...))`). `fname` names the caller in
/// errors.
pub fn shared_from_buffer(o: Borrowed<'_>, fname: &str) -> PyResult<Tensor> {
    let view = match get_buffer(o, ffi::PyBUF_RECORDS) {
        Ok(v) => v,
        Err(_) => {
            // SAFETY: GIL held; a read-only exporter refuses PyBUF_WRITABLE: retry read-only.
            unsafe { ffi::PyErr_Clear() };
            get_buffer(o, ffi::PyBUF_RECORDS_RO)?
        }
    };
    // SAFETY: the export is open; its fields describe `ndim` sizes and strides in bytes and a
    // NUL-terminated format (or NULL for unsigned bytes).
    let (dtype, sizes, strides, buf) = unsafe {
        let format = (!view.format.is_null()).then(|| CStr::from_ptr(view.format).to_bytes());
        let Some(dtype) = dtype_of_format(format, view.itemsize as usize) else {
            let text = format
                .map(|f| String::from_utf8_lossy(f).into_owned())
                .unwrap_or_default();
            let mut view = view;
            ffi::PyBuffer_Release(&mut *view);
            return Err(super::errors::type_error(format!(
                "{fname}(): the buffer's format '{text}' (item size {}) has no tensorbind dtype",
                view.itemsize
            )));
        };
        let nd = view.ndim as usize;
        let item = view.itemsize;
        let (sizes, strides): (Vec<usize>, Vec<isize>) = if nd == 0 || view.shape.is_null() {
            if nd == 0 {
                (vec![], vec![])
            } else {
                (vec![(view.len / item) as usize], vec![1])
            }
        } else {
            let shape = std::slice::from_raw_parts(view.shape, nd);
            let strides: Vec<isize> = if view.strides.is_null() {
                crate::core::tensor::contiguous_strides(
                    &shape.iter().map(|&s| s as usize).collect::<Vec<_>>(),
                )
            } else {
                let st = std::slice::from_raw_parts(view.strides, nd);
                if st.iter().any(|&s| s % item != 0) {
                    let mut view = view;
                    ffi::PyBuffer_Release(&mut *view);
                    return Err(value_error(format!(
                        "{fname}(): the buffer's strides are not a multiple of its item size"
                    )));
                }
                st.iter().map(|&s| s / item).collect()
            };
            (shape.iter().map(|&s| s as usize).collect(), strides)
        };
        (dtype, sizes, strides, view.buf as *mut u8)
    };
    let nbytes = if sizes.contains(&0) {
        0
    } else {
        let last: isize = sizes
            .iter()
            .zip(&strides)
            .map(|(&n, &s)| (n as isize - 1) * s.max(0))
            .sum();
        (last as usize + 1) * dtype.itemsize()
    };
    // SAFETY: the open export keeps the memory valid and unmoved until the owner releases it.
    let t = unsafe {
        Tensor::from_external(
            buf,
            nbytes,
            &sizes,
            &strides,
            0,
            dtype,
            external::owner_of_buffer(view),
        )
    }?;
    Ok(t)
}

/// torch's one-time warning for a read-only buffer given to `frombuffer`.
const NOT_WRITABLE: &CStr = c"The given buffer is not writable, and PyTorch does not support non-writable tensors. This means you can write to the underlying (supposedly non-writable) buffer using the tensor. You may want to copy the buffer to protect its data or make it writable before converting it to a tensor. This type of warning will be suppressed for the rest of this program.";

static WARNED_NOT_WRITABLE: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// `_C.frombuffer(buffer, *, dtype, count=-1, offset=0)`: a 1-D tensor over `count` elements of
/// `dtype` from byte `offset` of the buffer, sharing its memory (torch's `tensor_frombuffer`, its
/// errors and warning). The export stays open while the tensor lives, so the exporter cannot
/// resize its memory meanwhile.
pub fn frombuffer(o: Borrowed<'_>, dtype: DType, count: i64, offset: i64) -> PyResult<Tensor> {
    if !has_buffer(o) {
        return Err(value_error(
            "object does not implement Python buffer protocol.",
        ));
    }
    let view = match get_buffer(o, ffi::PyBUF_WRITABLE) {
        Ok(v) => v,
        Err(_) => {
            // SAFETY: GIL held.
            unsafe { ffi::PyErr_Clear() };
            let v = get_buffer(o, ffi::PyBUF_SIMPLE).map_err(|_| {
                super::errors::runtime_error("could not retrieve buffer from object")
            })?;
            if !WARNED_NOT_WRITABLE.swap(true, std::sync::atomic::Ordering::Relaxed) {
                // SAFETY: a live category and a static message; on -1 the warning became an error
                // and the export is released by dropping the owner below.
                if unsafe { ffi::PyErr_WarnEx(ffi::PyExc_UserWarning, NOT_WRITABLE.as_ptr(), 1) }
                    < 0
                {
                    external::owner_of_buffer(v)(); // ends the export now
                    return Err(BindError::Python);
                }
            }
            v
        }
    };
    let (len, buf) = (view.len as i64, view.buf as *mut u8);
    let owner = external::owner_of_buffer(view);
    let elsize = dtype.itemsize() as i64;
    let check = |ok: bool, msg: String| if ok { Ok(()) } else { Err(value_error(msg)) };
    let checks = (|| {
        check(
            len > 0 && count != 0,
            format!("both buffer length ({len}) and count ({count}) must not be 0"),
        )?;
        check(
            offset >= 0 && offset < len,
            format!("offset ({offset} bytes) must be non-negative and no greater than buffer length ({len} bytes) minus 1"),
        )?;
        check(
            count > 0 || (len - offset) % elsize == 0,
            format!(
                "buffer length ({} bytes) after offset ({offset} bytes) must be a multiple of element size ({elsize})",
                len - offset
            ),
        )?;
        let count = if count < 0 {
            (len - offset) / elsize
        } else {
            count
        };
        check(
            count.checked_mul(elsize).and_then(|n| n.checked_add(offset)).is_some_and(|end| end <= len),
            format!("requested buffer length ({count} * {elsize} bytes) after offset ({offset} bytes) must not be greater than actual buffer length ({len} bytes)"),
        )?;
        Ok(count)
    })();
    let count = match checks {
        Ok(c) => c,
        Err(e) => {
            owner(); // ends the export now
            return Err(e);
        }
    };
    // SAFETY: the open export keeps `len` bytes at `buf` valid until the owner releases it;
    // `offset + count * elsize <= len` was checked.
    let t = unsafe {
        Tensor::from_external(
            buf.add(offset as usize),
            (count * elsize) as usize,
            &[count as usize],
            &[1],
            0,
            dtype,
            owner,
        )
    }
    .map_err(|e| {
        if e.kind == crate::core::ErrorKind::Value {
            value_error(format!(
                "frombuffer(): offset {offset} puts the first {} element at an address that is not a multiple of its size {elsize}; tensorbind needs aligned elements",
                dtype.name()
            ))
        } else {
            e.into()
        }
    })?;
    Ok(t)
}
