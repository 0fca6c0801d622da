//! src/bindings/numpy.rs: numpy without a build-time or run-time dependency (PyTorch:
//! `torch/csrc/utils/tensor_numpy.cpp`) — numpy's C API table, fetched lazily from the
//! `_ARRAY_API` capsule the first time a numpy-specific function needs it (as numpy's own
//! `import_array` does), the layout of an array object, the dtype mapping, `from_numpy` (an array
//! as a tensor sharing its memory) and `to_numpy` (a tensor as an array sharing its memory), and
//! numpy scalars as numbers.
//!
//! Layer 2 (calling): see src/bindings/mod.rs.
//!
//! Nothing here imports numpy unless asked to by a numpy-specific call (`from_numpy`,
//! `Tensor.numpy`); checks on other paths (`is_ndarray`, `is_numpy_scalar`) only look at numpy if
//! the program has imported it already — otherwise no object can be an array.

use super::errors::{runtime_error, type_error, value_error, BindError, PyResult};
use super::external;
use super::object_ptr::{Borrowed, ObjectPtr};
use crate::core::{DType, Scalar, Tensor};
use pyo3_ffi as ffi;
use std::ffi::{c_char, c_int, c_long, c_void, CStr};
use std::sync::atomic::{AtomicPtr, Ordering};

// Indices into numpy's C API table (numpy/_core/code_generators/numpy_api.py); fixed by numpy's
// ABI across 1.x and 2.x.
const API_ARRAY_TYPE: usize = 2;
const API_GENERIC_TYPE: usize = 10;
const API_DESCR_FROM_TYPE: usize = 45;
const API_DESCR_FROM_SCALAR: usize = 57;
const API_NEW_FROM_DESCR: usize = 94;
const API_SET_BASE_OBJECT: usize = 282;

// numpy's type numbers (`NPY_TYPES`, numpy/ndarraytypes.h).
const NPY_BOOL: c_int = 0;
const NPY_BYTE: c_int = 1;
const NPY_UBYTE: c_int = 2;
const NPY_SHORT: c_int = 3;
const NPY_INT: c_int = 5;
const NPY_LONG: c_int = 7;
const NPY_LONGLONG: c_int = 9;
const NPY_FLOAT: c_int = 11;
const NPY_DOUBLE: c_int = 12;

// Array flags (`NPY_ARRAY_*`).
const NPY_ARRAY_ALIGNED: c_int = 0x0100;
const NPY_ARRAY_WRITEABLE: c_int = 0x0400;

/// The start of numpy's `PyArrayObject_fields` (numpy/ndarraytypes.h), the same in 1.x and 2.x.
#[repr(C)]
struct PyArrayObject {
    ob_base: ffi::PyObject,
    data: *mut c_char,
    nd: c_int,
    dimensions: *mut ffi::Py_ssize_t,
    strides: *mut ffi::Py_ssize_t,
    base: *mut ffi::PyObject,
    descr: *mut PyArrayDescr,
    flags: c_int,
}

/// The start of numpy's `PyArray_Descr`: the same up to `type_num` in 1.x and 2.x (2.x changed
/// the fields after it, which we never read).
#[repr(C)]
struct PyArrayDescr {
    ob_base: ffi::PyObject,
    typeobj: *mut ffi::PyTypeObject,
    kind: c_char,
    type_: c_char,
    byteorder: c_char,
    flags: c_char,
    type_num: c_int,
}

/// numpy's C API: the function table and the two types we test for.
pub struct Numpy {
    table: *const *mut c_void,
    ndarray: *mut ffi::PyTypeObject,
    generic: *mut ffi::PyTypeObject,
}

// SAFETY: the table and the types are immortal for the process (numpy, once imported, is never
// unloaded; we keep a reference to the module), and are only used with the GIL held.
unsafe impl Sync for Numpy {}
// SAFETY: as above.
unsafe impl Send for Numpy {}

static NUMPY: AtomicPtr<Numpy> = AtomicPtr::new(std::ptr::null_mut());

/// numpy's C API, importing numpy on first use. RuntimeError "Numpy is not available" (torch's
/// words) when it cannot be imported.
pub fn numpy() -> PyResult<&'static Numpy> {
    if let Some(np) = loaded_api() {
        return Ok(np);
    }
    // SAFETY: importing a module with the GIL held; new reference or NULL.
    let module = unsafe { ffi::PyImport_ImportModule(c"numpy".as_ptr()) };
    if module.is_null() {
        // SAFETY: clearing the ImportError we replace, GIL held.
        unsafe { ffi::PyErr_Clear() };
        return Err(runtime_error("Numpy is not available"));
    }
    // SAFETY: `module` is a new reference, dropped at once: `fetch_api` keeps numpy alive.
    drop(unsafe { ObjectPtr::steal(module) });
    fetch_api()
}

/// numpy's C API if the program has imported numpy already, else `None` (then no object can be a
/// numpy array or scalar). Never imports numpy, never raises.
pub fn loaded() -> Option<&'static Numpy> {
    if let Some(np) = loaded_api() {
        return Some(np);
    }
    // SAFETY: a lookup in `sys.modules` with the GIL held; both calls return borrowed references
    // or NULL without setting an error.
    let imported = unsafe {
        let modules = ffi::PySys_GetObject(c"modules".as_ptr());
        !modules.is_null() && !ffi::PyDict_GetItemString(modules, c"numpy".as_ptr()).is_null()
    };
    if !imported {
        return None;
    }
    match fetch_api() {
        Ok(np) => Some(np),
        Err(_) => {
            // SAFETY: GIL held.
            unsafe { ffi::PyErr_Clear() };
            None
        }
    }
}

#[inline]
fn loaded_api() -> Option<&'static Numpy> {
    let p = NUMPY.load(Ordering::Acquire);
    // SAFETY: set once to a leaked, never-freed `Numpy`.
    (!p.is_null()).then(|| unsafe { &*p })
}

/// Read numpy's `_ARRAY_API` capsule (numpy 2: `numpy._core._multiarray_umath`; 1.x:
/// `numpy.core._multiarray_umath`) and publish the table.
fn fetch_api() -> PyResult<&'static Numpy> {
    let mut module = std::ptr::null_mut();
    for name in [
        c"numpy._core._multiarray_umath",
        c"numpy.core._multiarray_umath",
    ] {
        // SAFETY: GIL held; new reference or NULL.
        module = unsafe { ffi::PyImport_ImportModule(name.as_ptr()) };
        if !module.is_null() {
            break;
        }
        // SAFETY: GIL held.
        unsafe { ffi::PyErr_Clear() };
    }
    if module.is_null() {
        return Err(runtime_error("Numpy is not available"));
    }
    // The module reference is kept for the life of the process (the table lives in it).
    // SAFETY: `module` is live; the attribute is a new reference or NULL; `PyCapsule_GetPointer`
    // with a NULL name returns the pointer of a capsule whose name is NULL, else sets an error.
    unsafe {
        let capsule = ffi::PyObject_GetAttrString(module, c"_ARRAY_API".as_ptr());
        if capsule.is_null() {
            return Err(BindError::Python);
        }
        let table = ffi::PyCapsule_GetPointer(capsule, std::ptr::null()) as *const *mut c_void;
        ffi::Py_DECREF(capsule); // the module keeps the capsule, and the table, alive
        if table.is_null() {
            return Err(BindError::Python);
        }
        let np = Box::leak(Box::new(Numpy {
            table,
            ndarray: *table.add(API_ARRAY_TYPE) as *mut ffi::PyTypeObject,
            generic: *table.add(API_GENERIC_TYPE) as *mut ffi::PyTypeObject,
        }));
        NUMPY.store(np, Ordering::Release);
        Ok(np)
    }
}

impl Numpy {
    fn entry(&self, i: usize) -> *mut c_void {
        // SAFETY: `i` is one of the API indices above, all inside numpy's table.
        unsafe { *self.table.add(i) }
    }
}

/// numpy's API for testing whether `o` is one of its objects: at once when loaded; otherwise only
/// for objects that export a buffer (every numpy array and scalar does), so that the common
/// failure paths (a `str` where a number belongs) never look numpy up in `sys.modules`.
#[inline]
fn numpy_for(o: Borrowed<'_>) -> Option<&'static Numpy> {
    if let Some(np) = loaded_api() {
        return Some(np);
    }
    // SAFETY: reading the type's buffer slot of a live object.
    let exports = unsafe {
        let b = (*o.type_ptr()).tp_as_buffer;
        !b.is_null() && (*b).bf_getbuffer.is_some()
    };
    if exports {
        loaded()
    } else {
        None
    }
}

/// True when `o` is a numpy array (or a subclass), without importing numpy.
pub fn is_ndarray(o: Borrowed<'_>) -> bool {
    match numpy_for(o) {
        // SAFETY: type check of a live object against a live type.
        Some(np) => unsafe { ffi::PyObject_TypeCheck(o.as_ptr(), np.ndarray) != 0 },
        None => false,
    }
}

/// True when `o` is a numpy scalar (`np.float32(1)`, `np.int64(2)`, `np.bool_(True)`, ...).
pub fn is_numpy_scalar(o: Borrowed<'_>) -> bool {
    match numpy_for(o) {
        // SAFETY: as above.
        Some(np) => unsafe { ffi::PyObject_TypeCheck(o.as_ptr(), np.generic) != 0 },
        None => false,
    }
}

/// torch's list in its "can't convert" message, for the dtypes tensorbind has.
const SUPPORTED: &str = "float64, float32, int64, int32, int16, int8, uint8, and bool";

/// Our dtype for numpy's type number `num` of a descriptor `d`, or torch's TypeError naming the
/// numpy type.
///
/// # Safety
/// `d` is a live numpy dtype.
unsafe fn dtype_of_descr(d: *mut PyArrayDescr, what: &str) -> PyResult<DType> {
    // SAFETY: contract: a dtype object, whose prefix is `PyArrayDescr`.
    let num = unsafe { (*d).type_num };
    let long_is_64 = std::mem::size_of::<c_long>() == 8;
    Ok(match num {
        NPY_BOOL => DType::Bool,
        NPY_BYTE => DType::Int8,
        NPY_UBYTE => DType::UInt8,
        NPY_SHORT => DType::Int16,
        NPY_INT => DType::Int32,
        NPY_LONG if long_is_64 => DType::Int64,
        NPY_LONG => DType::Int32,
        NPY_LONGLONG => DType::Int64,
        NPY_FLOAT => DType::Float32,
        NPY_DOUBLE => DType::Float64,
        _ => {
            // SAFETY: `typeobj` is the scalar type of the dtype, a live type with a C-string name.
            let name = unsafe { CStr::from_ptr((*(*d).typeobj).tp_name) }.to_string_lossy();
            return Err(type_error(format!(
                "can't convert {what} of type {name}. The only supported types are: {SUPPORTED}."
            )));
        }
    })
}

/// numpy's type number for `d` (int64 as `NPY_LONG` where `long` is 64-bit, as numpy's default
/// integer is).
fn npy_type(d: DType) -> c_int {
    match d {
        DType::Bool => NPY_BOOL,
        DType::UInt8 => NPY_UBYTE,
        DType::Int8 => NPY_BYTE,
        DType::Int16 => NPY_SHORT,
        DType::Int32 => NPY_INT,
        DType::Int64 if std::mem::size_of::<c_long>() == 8 => NPY_LONG,
        DType::Int64 => NPY_LONGLONG,
        DType::Float32 => NPY_FLOAT,
        DType::Float64 => NPY_DOUBLE,
    }
}

/// torch's warning for a read-only array (`warn_numpy_not_writeable`), given once per process.
const NOT_WRITABLE: &CStr = c"The given NumPy array is not writable, and PyTorch does not support non-writable tensors. This means writing to this tensor will result in undefined behavior. You may want to copy the array to protect its data or make it writable before converting it to a tensor. This type of warning will be suppressed for the rest of this program.";

static WARNED_NOT_WRITABLE: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// `_C.from_numpy(arr)`: a tensor sharing `arr`'s memory, keeping `arr` alive until the last
/// tensor or view over it dies (torch's `tensor_from_numpy`, with its errors). `warn` gives torch's
/// one-time warning for a read-only array.
pub fn from_numpy(arr: Borrowed<'_>, warn: bool) -> PyResult<Tensor> {
    let np = numpy()?;
    // SAFETY: type check of a live object.
    if unsafe { ffi::PyObject_TypeCheck(arr.as_ptr(), np.ndarray) } == 0 {
        return Err(type_error(format!(
            "expected np.ndarray (got {})",
            super::describe::type_name(arr)
        )));
    }
    let a = arr.as_ptr() as *mut PyArrayObject;
    // SAFETY: `arr` is a live array (checked), whose fields numpy keeps valid while it lives; we
    // hold it (borrowed) for the whole function, and nothing here runs Python code before the
    // fields are copied out (the warning, which can, comes after).
    let (data, sizes, strides, dtype, flags) = unsafe {
        let dtype = dtype_of_descr((*a).descr, "np.ndarray")?;
        let order = (*(*a).descr).byteorder as u8;
        if order == b'>' && cfg!(target_endian = "little")
            || order == b'<' && cfg!(target_endian = "big")
        {
            return Err(value_error("given numpy array has byte order different from the native byte order. Conversion between byte orders is currently not supported."));
        }
        let nd = (*a).nd as usize;
        let (dims, st) = if nd == 0 {
            (&[][..], &[][..])
        } else {
            (
                std::slice::from_raw_parts((*a).dimensions, nd),
                std::slice::from_raw_parts((*a).strides, nd),
            )
        };
        let item = dtype.itemsize() as isize;
        let mut strides = Vec::with_capacity(nd);
        for &s in st {
            if s % item != 0 {
                return Err(value_error("given numpy array strides not a multiple of the element byte size. Copy the numpy array to reallocate the memory."));
            }
            strides.push(s / item);
        }
        if strides.iter().any(|&s| s < 0) {
            return Err(value_error("At least one stride in the given numpy array is negative, and tensors with negative strides are not currently supported. (You can probably work around this by making a copy of your array  with array.copy().) "));
        }
        let sizes: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
        (((*a).data) as *mut u8, sizes, strides, dtype, (*a).flags)
    };
    if warn
        && flags & NPY_ARRAY_WRITEABLE == 0
        && !WARNED_NOT_WRITABLE.swap(true, Ordering::Relaxed)
    {
        // SAFETY: a live warning category and a static message; -1 means it became an error.
        if unsafe { ffi::PyErr_WarnEx(ffi::PyExc_UserWarning, NOT_WRITABLE.as_ptr(), 1) } < 0 {
            return Err(BindError::Python);
        }
    }
    let nbytes = footprint(&sizes, &strides, dtype);
    // SAFETY: the array's memory holds its elements for as long as the array lives, and the owner
    // keeps a reference to it until the last tensor over the memory dies.
    let t = unsafe {
        Tensor::from_external(
            data,
            nbytes,
            &sizes,
            &strides,
            0,
            dtype,
            external::owner_of_object(arr.to_owned()),
        )
    }?;
    Ok(t)
}

/// Bytes from the first element to the end of the last one a view reaches (non-negative strides).
fn footprint(sizes: &[usize], strides: &[isize], dtype: DType) -> usize {
    if sizes.contains(&0) {
        return 0;
    }
    let last: usize = sizes
        .iter()
        .zip(strides)
        .map(|(&n, &s)| (n - 1) * s as usize)
        .sum();
    (last + 1) * dtype.itemsize()
}

/// Name of the capsules that own a tensor handle on behalf of foreign code (the `base` of an
/// array made by `to_numpy`).
const TENSOR_CAPSULE: &CStr = c"tensorbind.tensor";

unsafe extern "C" fn drop_tensor_capsule(capsule: *mut ffi::PyObject) {
    // SAFETY: CPython calls a capsule's destructor once, with the GIL held; this capsule holds a
    // handle made by `Tensor::into_raw` under this name.
    unsafe {
        let p = ffi::PyCapsule_GetPointer(capsule, TENSOR_CAPSULE.as_ptr());
        if p.is_null() {
            ffi::PyErr_Clear();
            return;
        }
        drop(Tensor::from_raw(p));
    }
}

/// A capsule owning one handle to `t` (a new reference): a Python object that keeps the tensor's
/// memory alive, whatever later happens to the tensor's Python object.
pub fn tensor_capsule(t: Tensor) -> PyResult<ObjectPtr> {
    let raw = t.into_raw();
    // SAFETY: `raw` is a live handle, given to the capsule, whose destructor takes it back once;
    // on failure we take it back here.
    unsafe {
        let cap = ffi::PyCapsule_New(
            raw as *mut c_void,
            TENSOR_CAPSULE.as_ptr(),
            Some(drop_tensor_capsule),
        );
        if cap.is_null() {
            drop(Tensor::from_raw(raw));
            return Err(BindError::Python);
        }
        Ok(ObjectPtr::steal(cap).expect("checked non-NULL"))
    }
}

type DescrFromType = unsafe extern "C" fn(c_int) -> *mut ffi::PyObject;
type DescrFromScalar = unsafe extern "C" fn(*mut ffi::PyObject) -> *mut ffi::PyObject;
type NewFromDescr = unsafe extern "C" fn(
    *mut ffi::PyTypeObject,
    *mut ffi::PyObject,
    c_int,
    *const ffi::Py_ssize_t,
    *const ffi::Py_ssize_t,
    *mut c_void,
    c_int,
    *mut ffi::PyObject,
) -> *mut ffi::PyObject;
type SetBaseObject = unsafe extern "C" fn(*mut ffi::PyObject, *mut ffi::PyObject) -> c_int;

/// `t.numpy()`: an array over the tensor's memory (a new reference). Its `base` is a capsule
/// holding a handle to the tensor, so the memory lives as long as the array, even if the tensor's
/// Python object is later given other memory (an `out=` resize).
pub fn to_numpy(t: &Tensor) -> PyResult<ObjectPtr> {
    let np = numpy()?;
    let item = t.dtype().itemsize() as ffi::Py_ssize_t;
    let dims: Vec<ffi::Py_ssize_t> = t.sizes().iter().map(|&s| s as ffi::Py_ssize_t).collect();
    let strides: Vec<ffi::Py_ssize_t> = t
        .strides()
        .iter()
        .map(|&s| s as ffi::Py_ssize_t * item)
        .collect();
    let data = crate::dispatch!(t.dtype(), T => t.data_ptr::<T>() as *mut c_void);
    let base = tensor_capsule(t.clone())?;
    // SAFETY: the table entries have numpy's documented signatures. `DescrFromType` returns a new
    // reference that `NewFromDescr` steals (also on failure); `data` stays valid while `base`, which
    // `SetBaseObject` steals on success and failure alike, keeps the tensor alive.
    unsafe {
        let descr_from_type: DescrFromType = std::mem::transmute(np.entry(API_DESCR_FROM_TYPE));
        let new_from_descr: NewFromDescr = std::mem::transmute(np.entry(API_NEW_FROM_DESCR));
        let set_base: SetBaseObject = std::mem::transmute(np.entry(API_SET_BASE_OBJECT));
        let descr = descr_from_type(npy_type(t.dtype()));
        if descr.is_null() {
            return Err(BindError::Python);
        }
        let arr = ObjectPtr::steal_or_err(new_from_descr(
            np.ndarray,
            descr,
            dims.len() as c_int,
            dims.as_ptr(),
            strides.as_ptr(),
            data,
            NPY_ARRAY_WRITEABLE | NPY_ARRAY_ALIGNED,
            std::ptr::null_mut(),
        ))?;
        if set_base(arr.as_ptr(), base.release()) < 0 {
            return Err(BindError::Python);
        }
        Ok(arr)
    }
}

/// The value and dtype of a numpy scalar (`is_numpy_scalar(o)`): `np.float32(2.5)` is
/// `(Float(2.5), Float32)`. torch's TypeError for numpy types tensorbind lacks.
pub fn scalar_value(o: Borrowed<'_>) -> PyResult<(Scalar, DType)> {
    let np = numpy()?;
    // SAFETY: `DescrFromScalar` takes a numpy scalar and returns a new reference to its dtype;
    // `item()` returns a new reference to the Python number (bool, int or float) it holds.
    unsafe {
        let from_scalar: DescrFromScalar = std::mem::transmute(np.entry(API_DESCR_FROM_SCALAR));
        let descr = ObjectPtr::steal_or_err(from_scalar(o.as_ptr()))?;
        let dtype = dtype_of_descr(descr.as_ptr() as *mut PyArrayDescr, "np.ndarray")?;
        let value = ObjectPtr::steal_or_err(ffi::PyObject_CallMethod(
            o.as_ptr(),
            c"item".as_ptr(),
            std::ptr::null(),
        ))?;
        if !super::convert::is_number(value.as_borrowed()) {
            return Err(type_error(format!(
                "can't convert a numpy scalar of type {}",
                super::describe::type_name(o)
            )));
        }
        Ok((
            super::convert::number_to_scalar(value.as_borrowed())?,
            dtype,
        ))
    }
}

/// True for what torch accepts as an int from numpy: an integer scalar (`np.int64(2)`: it has
/// `__index__`; `np.bool_` has not) or a 0-dim integer array (`np.array(2)`).
pub fn is_numpy_int(o: Borrowed<'_>) -> bool {
    let Some(np) = numpy_for(o) else {
        return false;
    };
    // SAFETY: type and slot checks of a live object; an array's `nd` and `descr` are valid.
    unsafe {
        let p = o.as_ptr();
        if ffi::PyObject_TypeCheck(p, np.generic) != 0 {
            return ffi::PyIndex_Check(p) != 0;
        }
        ffi::PyObject_TypeCheck(p, np.ndarray) != 0
            && (*(p as *mut PyArrayObject)).nd == 0
            && dtype_of_descr((*(p as *mut PyArrayObject)).descr, "np.ndarray")
                .is_ok_and(|d| d.is_integral())
    }
}

/// The dtype of a numpy array (`is_ndarray(o)`), or torch's "can't convert" TypeError.
pub fn array_dtype(o: Borrowed<'_>) -> PyResult<DType> {
    // SAFETY: `o` is a live array (contract of callers: `is_ndarray`); its descr is a live dtype.
    unsafe { dtype_of_descr((*(o.as_ptr() as *mut PyArrayObject)).descr, "np.ndarray") }
}

/// A copy of the array `arr` as a new tensor, whatever its strides, byte order or alignment
/// (`_C.tensor(arr)`): shares when `from_numpy` can, then copies; otherwise asks numpy for a
/// native, C-ordered copy first (`arr.astype(arr.dtype.newbyteorder("="), order="C")`).
pub fn copy_from_numpy(arr: Borrowed<'_>) -> PyResult<Tensor> {
    array_dtype(arr)?; // torch's TypeError for unsupported dtypes comes first
    let shared = match from_numpy(arr, false) {
        Ok(t) => t,
        Err(BindError::Core(e)) if e.kind == crate::core::ErrorKind::Value => {
            // SAFETY: attribute reads and method calls on a live array; new references or NULL.
            let native = unsafe {
                let dt = ObjectPtr::steal_or_err(ffi::PyObject_GetAttrString(
                    arr.as_ptr(),
                    c"dtype".as_ptr(),
                ))?;
                let nat = ObjectPtr::steal_or_err(ffi::PyObject_CallMethod(
                    dt.as_ptr(),
                    c"newbyteorder".as_ptr(),
                    c"s".as_ptr(),
                    c"=".as_ptr(),
                ))?;
                let astype = ObjectPtr::steal_or_err(ffi::PyObject_GetAttrString(
                    arr.as_ptr(),
                    c"astype".as_ptr(),
                ))?;
                let args = ObjectPtr::steal_or_err(ffi::PyTuple_Pack(1, nat.as_ptr()))?;
                let kwargs = ObjectPtr::steal_or_err(ffi::PyDict_New())?;
                let order = super::convert::py_str("C")?;
                if ffi::PyDict_SetItemString(kwargs.as_ptr(), c"order".as_ptr(), order.as_ptr()) < 0
                {
                    return Err(BindError::Python);
                }
                ObjectPtr::steal_or_err(ffi::PyObject_Call(
                    astype.as_ptr(),
                    args.as_ptr(),
                    kwargs.as_ptr(),
                ))?
            };
            from_numpy(native.as_borrowed(), false)?
        }
        Err(e) => return Err(e),
    };
    Ok(crate::core::ops::clone(&shared)?)
}
