//! src/bindings/dlpack.rs: DLPack 1.x both ways (PyTorch: `aten/src/ATen/DLConvertor.cpp` and
//! `torch/utils/dlpack.py`) — the structs of `dlpack.h`, a tensor exported as a "dltensor" or
//! "dltensor_versioned" capsule, and a capsule consumed into a tensor over the producer's memory.
//!
//! Layer 2 (calling): see src/bindings/mod.rs.
//!
//! Note [DLPack capsule ownership]: an exported capsule owns one `DLManaged*` whose manager
//! context holds a handle to the tensor (so the memory lives as long as the consumer needs it,
//! whatever happens to the tensor's Python object). Exactly one party calls its deleter: the
//! capsule's destructor while the capsule is still named "dltensor[_versioned]" (never
//! consumed), else the consumer, which renamed it "used_dltensor[_versioned]" when it took
//! ownership. When we consume, the deleter becomes the owner of the tensor's external storage
//! (core Note [External storage]) and runs when the last tensor or view over the memory dies,
//! from any thread (DLPack allows that; our own deleter needs no GIL).

use super::errors::{runtime_error, type_error, BindError, PyResult};
use super::external;
use super::object_ptr::{Borrowed, ObjectPtr};
use crate::core::{DType, Tensor};
use pyo3_ffi as ffi;
use std::ffi::{c_void, CStr};

/// `DLDevice`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct DLDevice {
    pub device_type: i32,
    pub device_id: i32,
}

/// `kDLCPU`.
pub const K_DL_CPU: i32 = 1;

/// `DLDataType`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct DLDataType {
    pub code: u8,
    pub bits: u8,
    pub lanes: u16,
}

const K_DL_INT: u8 = 0;
const K_DL_UINT: u8 = 1;
const K_DL_FLOAT: u8 = 2;
const K_DL_BOOL: u8 = 6;

/// `DLTensor`.
#[repr(C)]
pub struct DLTensor {
    pub data: *mut c_void,
    pub device: DLDevice,
    pub ndim: i32,
    pub dtype: DLDataType,
    pub shape: *mut i64,
    pub strides: *mut i64,
    pub byte_offset: u64,
}

/// `DLManagedTensor` (the legacy, unversioned struct).
#[repr(C)]
pub struct DLManagedTensor {
    pub dl_tensor: DLTensor,
    pub manager_ctx: *mut c_void,
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// `DLPackVersion`.
#[repr(C)]
pub struct DLPackVersion {
    pub major: u32,
    pub minor: u32,
}

/// `DLManagedTensorVersioned` (DLPack 1.0).
#[repr(C)]
pub struct DLManagedTensorVersioned {
    pub version: DLPackVersion,
    pub manager_ctx: *mut c_void,
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    pub flags: u64,
    pub dl_tensor: DLTensor,
}

/// `DLPACK_FLAG_BITMASK_READ_ONLY`, `DLPACK_FLAG_BITMASK_IS_COPIED`.
const FLAG_READ_ONLY: u64 = 1;
const FLAG_IS_COPIED: u64 = 2;

const NAME: &CStr = c"dltensor";
const USED_NAME: &CStr = c"used_dltensor";
const NAME_VERSIONED: &CStr = c"dltensor_versioned";
const USED_NAME_VERSIONED: &CStr = c"used_dltensor_versioned";

fn dl_dtype(d: DType) -> DLDataType {
    let (code, bits) = match d {
        DType::Bool => (K_DL_BOOL, 8),
        DType::UInt8 => (K_DL_UINT, 8),
        DType::Int8 => (K_DL_INT, 8),
        DType::Int16 => (K_DL_INT, 16),
        DType::Int32 => (K_DL_INT, 32),
        DType::Int64 => (K_DL_INT, 64),
        DType::Float32 => (K_DL_FLOAT, 32),
        DType::Float64 => (K_DL_FLOAT, 64),
    };
    DLDataType {
        code,
        bits,
        lanes: 1,
    }
}

fn dtype_of_dl(t: DLDataType) -> PyResult<DType> {
    if t.lanes != 1 {
        return Err(runtime_error(format!(
            "from_dlpack(): DLPack data with {} lanes is not supported",
            t.lanes
        )));
    }
    Ok(match (t.code, t.bits) {
        (K_DL_BOOL, 8) => DType::Bool,
        (K_DL_UINT, 8) => DType::UInt8,
        (K_DL_INT, 8) => DType::Int8,
        (K_DL_INT, 16) => DType::Int16,
        (K_DL_INT, 32) => DType::Int32,
        (K_DL_INT, 64) => DType::Int64,
        (K_DL_FLOAT, 32) => DType::Float32,
        (K_DL_FLOAT, 64) => DType::Float64,
        (code, bits) => {
            return Err(type_error(format!(
                "from_dlpack(): DLPack dtype (code {code}, {bits} bits) has no tensorbind dtype; the supported ones are bool, uint8, int8, int16, int32, int64, float32 and float64"
            )))
        }
    })
}

/// A C deleter taking its context word (a DLPack deleter, whose argument is the managed struct).
type CDeleter = Option<unsafe extern "C" fn(*mut c_void)>;

/// What an exported capsule's manager context owns (Note [DLPack capsule ownership]).
struct ExportCtx {
    _tensor: Tensor,
    shape: Vec<i64>,
    strides: Vec<i64>,
}

/// How many exported DLPack tensors are not yet deleted (`_C._live_dlpack()`, for leak checks).
static LIVE_EXPORTS: std::sync::atomic::AtomicIsize = std::sync::atomic::AtomicIsize::new(0);

/// How many exported DLPack tensors are alive.
pub fn live_exports() -> isize {
    LIVE_EXPORTS.load(std::sync::atomic::Ordering::Relaxed)
}

/// The exported struct with its context, one allocation each.
struct Exported<M> {
    managed: M,
    _ctx: ExportCtx,
}

unsafe extern "C" fn delete_versioned(m: *mut DLManagedTensorVersioned) {
    if m.is_null() {
        return;
    }
    // SAFETY: `m` is the first field of an `Exported` made by `to_dlpack` (`repr(Rust)` puts it
    // wherever, so we go through `manager_ctx`, which points at the box itself); freed once.
    unsafe {
        drop(Box::from_raw(
            (*m).manager_ctx as *mut Exported<DLManagedTensorVersioned>,
        ))
    };
    LIVE_EXPORTS.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
}

unsafe extern "C" fn delete_legacy(m: *mut DLManagedTensor) {
    if m.is_null() {
        return;
    }
    // SAFETY: as in `delete_versioned`.
    unsafe {
        drop(Box::from_raw(
            (*m).manager_ctx as *mut Exported<DLManagedTensor>,
        ))
    };
    LIVE_EXPORTS.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
}

/// Capsule destructor: delete the managed tensor if nobody consumed it.
unsafe extern "C" fn capsule_destructor(capsule: *mut ffi::PyObject) {
    // SAFETY: CPython calls this once with the GIL held. A capsule still named as produced was
    // never consumed, so we own its managed tensor; a renamed one belongs to its consumer.
    unsafe {
        if ffi::PyCapsule_IsValid(capsule, NAME_VERSIONED.as_ptr()) != 0 {
            let m = ffi::PyCapsule_GetPointer(capsule, NAME_VERSIONED.as_ptr())
                as *mut DLManagedTensorVersioned;
            if let Some(d) = (*m).deleter {
                d(m);
            }
        } else if ffi::PyCapsule_IsValid(capsule, NAME.as_ptr()) != 0 {
            let m = ffi::PyCapsule_GetPointer(capsule, NAME.as_ptr()) as *mut DLManagedTensor;
            if let Some(d) = (*m).deleter {
                d(m);
            }
        }
    }
}

/// `t.__dlpack__(...)`'s capsule (a new reference): versioned when `versioned`, with
/// `IS_COPIED` when `copied` (the caller made `t` a copy).
pub fn to_dlpack(t: Tensor, versioned: bool, copied: bool) -> PyResult<ObjectPtr> {
    let mut ctx = ExportCtx {
        shape: t.sizes().iter().map(|&s| s as i64).collect(),
        strides: t.strides().iter().map(|&s| s as i64).collect(),
        _tensor: t,
    };
    let t = &ctx._tensor;
    let dl_tensor = DLTensor {
        data: crate::dispatch!(t.dtype(), T => t.data_ptr::<T>() as *mut c_void),
        device: DLDevice {
            device_type: K_DL_CPU,
            device_id: 0,
        },
        ndim: t.dim() as i32,
        dtype: dl_dtype(t.dtype()),
        shape: ctx.shape.as_mut_ptr(),
        strides: ctx.strides.as_mut_ptr(),
        byte_offset: 0,
    };
    LIVE_EXPORTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    // The vectors' heap blocks do not move when `ctx` moves into the box.
    let (ptr, name): (*mut c_void, &CStr) = if versioned {
        let b = Box::into_raw(Box::new(Exported {
            managed: DLManagedTensorVersioned {
                version: DLPackVersion { major: 1, minor: 0 },
                manager_ctx: std::ptr::null_mut(),
                deleter: Some(delete_versioned),
                flags: if copied { FLAG_IS_COPIED } else { 0 },
                dl_tensor,
            },
            _ctx: ctx,
        }));
        // SAFETY: `b` is a fresh box; the manager context points at the box itself.
        let ptr = unsafe {
            (*b).managed.manager_ctx = b.cast();
            (&raw mut (*b).managed).cast()
        };
        (ptr, NAME_VERSIONED)
    } else {
        let b = Box::into_raw(Box::new(Exported {
            managed: DLManagedTensor {
                dl_tensor,
                manager_ctx: std::ptr::null_mut(),
                deleter: Some(delete_legacy),
            },
            _ctx: ctx,
        }));
        // SAFETY: as above.
        let ptr = unsafe {
            (*b).managed.manager_ctx = b.cast();
            (&raw mut (*b).managed).cast()
        };
        (ptr, NAME)
    };
    // SAFETY: the capsule takes the managed tensor; on failure we delete it ourselves.
    unsafe {
        let cap = ffi::PyCapsule_New(ptr, name.as_ptr(), Some(capsule_destructor));
        if cap.is_null() {
            if versioned {
                delete_versioned(ptr.cast());
            } else {
                delete_legacy(ptr.cast());
            }
            return Err(BindError::Python);
        }
        Ok(ObjectPtr::steal(cap).expect("checked non-NULL"))
    }
}

/// A tensor over the memory of the DLPack capsule `capsule` (consuming it: renamed "used_...",
/// its deleter then ours to call, exactly once). Read-only data (versioned flag) is copied, and
/// the producer's tensor deleted at once: tensorbind has no read-only tensors.
pub fn from_capsule(capsule: Borrowed<'_>) -> PyResult<Tensor> {
    let p = capsule.as_ptr();
    // SAFETY: capsule checks and pointer reads on a live object; the DLPack structs are read as
    // the producer laid them out (dlpack.h), and valid until their deleter runs.
    unsafe {
        let versioned = ffi::PyCapsule_IsValid(p, NAME_VERSIONED.as_ptr()) != 0;
        if !versioned && ffi::PyCapsule_IsValid(p, NAME.as_ptr()) == 0 {
            let used = ffi::PyCapsule_IsValid(p, USED_NAME.as_ptr()) != 0
                || ffi::PyCapsule_IsValid(p, USED_NAME_VERSIONED.as_ptr()) != 0;
            return Err(if used {
                runtime_error("from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed only once, so you might have already constructed a tensor from it once.")
            } else {
                type_error(format!(
                    "from_dlpack(): expected an object with __dlpack__ or a DLPack capsule, got {}",
                    super::describe::type_name(capsule)
                ))
            });
        }
        let (dl, flags, deleter): (*mut DLTensor, u64, (CDeleter, *mut c_void)) = if versioned {
            let m = ffi::PyCapsule_GetPointer(p, NAME_VERSIONED.as_ptr())
                as *mut DLManagedTensorVersioned;
            if m.is_null() {
                return Err(BindError::Python);
            }
            if (*m).version.major > 1 {
                return Err(runtime_error(format!(
                    "from_dlpack(): DLPack version {}.{} is not supported (the major version must be 1)",
                    (*m).version.major,
                    (*m).version.minor
                )));
            }
            let d = (*m)
                .deleter
                .map(|d| std::mem::transmute::<_, unsafe extern "C" fn(*mut c_void)>(d));
            (&raw mut (*m).dl_tensor, (*m).flags, (d, m.cast()))
        } else {
            let m = ffi::PyCapsule_GetPointer(p, NAME.as_ptr()) as *mut DLManagedTensor;
            if m.is_null() {
                return Err(BindError::Python);
            }
            let d = (*m)
                .deleter
                .map(|d| std::mem::transmute::<_, unsafe extern "C" fn(*mut c_void)>(d));
            (&raw mut (*m).dl_tensor, 0, (d, m.cast()))
        };
        let dlt = &*dl;
        if dlt.device.device_type != K_DL_CPU {
            return Err(runtime_error(format!(
                "from_dlpack(): tensorbind only has CPU tensors, the DLPack tensor is on device type {}",
                dlt.device.device_type
            )));
        }
        let dtype = dtype_of_dl(dlt.dtype)?;
        let nd = dlt.ndim.max(0) as usize;
        let sizes: Vec<usize> = if nd == 0 {
            vec![]
        } else {
            std::slice::from_raw_parts(dlt.shape, nd)
                .iter()
                .map(|&s| s.max(0) as usize)
                .collect()
        };
        let strides: Vec<isize> = if nd == 0 || dlt.strides.is_null() {
            crate::core::tensor::contiguous_strides(&sizes)
        } else {
            std::slice::from_raw_parts(dlt.strides, nd)
                .iter()
                .map(|&s| s as isize)
                .collect()
        };
        let data = (dlt.data as *mut u8).add(dlt.byte_offset as usize);
        // From here on the capsule is consumed: the deleter is ours to run, exactly once.
        let used = if versioned {
            USED_NAME_VERSIONED
        } else {
            USED_NAME
        };
        if ffi::PyCapsule_SetName(p, used.as_ptr()) < 0 {
            return Err(BindError::Python);
        }
        let owner = external::owner_of_c_deleter(deleter.0, deleter.1);
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
        let t = Tensor::from_external(data, nbytes, &sizes, &strides, 0, dtype, owner)?;
        if flags & FLAG_READ_ONLY != 0 {
            // Copy, and let the producer go now (dropping `t` runs its deleter).
            return Ok(crate::core::ops::clone(&t)?);
        }
        Ok(t)
    }
}
