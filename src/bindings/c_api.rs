//! src/bindings/c_api.rs: the C API table of include/tensorbind.h (`tb_c_api`), published by `_C`
//! as the capsule `_C._C_API` for other extensions (as numpy publishes `_ARRAY_API`): is this a
//! tensor, borrow its view, a tensor over external memory with a deleter, a new tensor.
//!
//! Layer 3 (entry points): see src/bindings/mod.rs.

use super::c_view::{tb_tensor_view_get, TbTensorView};
use super::errors::{value_error, PyResult};
use super::external;
use super::object_ptr::{Borrowed, ObjectPtr};
use super::tensor_object::{is_tensor, wrap};
use crate::core::{DType, Tensor};
use pyo3_ffi as ffi;
use std::ffi::{c_int, c_void, CStr};

/// `TB_C_API_VERSION`: bumped whenever an entry is appended to the table.
pub const C_API_VERSION: u32 = 1;

/// `TB_C_API_CAPSULE`: the capsule's name, the dotted path `PyCapsule_Import` resolves.
pub const C_API_CAPSULE: &CStr = c"_C._C_API";

/// `tb_deleter`.
pub type TbDeleter = Option<unsafe extern "C" fn(*mut c_void)>;

/// `tb_c_api` of include/tensorbind.h.
#[repr(C)]
pub struct TbCApi {
    pub version: u32,
    pub size: u32,
    pub is_tensor: unsafe extern "C" fn(*mut c_void) -> c_int,
    pub view_get: unsafe extern "C" fn(*mut c_void, *mut TbTensorView) -> c_int,
    pub from_external: unsafe extern "C" fn(
        *mut c_void,
        i32,
        i64,
        *const i64,
        *const i64,
        TbDeleter,
        *mut c_void,
    ) -> *mut c_void,
    pub zeros: unsafe extern "C" fn(i32, i64, *const i64) -> *mut c_void,
}

extern "C" {
    /// Compiled from src/c/layout.c: sizeof(tb_c_api), offsetof(tb_c_api, zeros).
    static tb_c_api_layout: [u64; 2];
}

/// True when the C compiler's layout of `tb_c_api` equals this struct's.
pub fn c_layout_matches() -> bool {
    // SAFETY: a constant array defined in src/c/layout.c, linked into this library.
    let c = unsafe { tb_c_api_layout };
    c == [
        std::mem::size_of::<TbCApi>() as u64,
        std::mem::offset_of!(TbCApi, zeros) as u64,
    ]
}

/// The table itself: static, immutable, alive as long as the library.
static C_API: TbCApi = TbCApi {
    version: C_API_VERSION,
    size: std::mem::size_of::<TbCApi>() as u32,
    is_tensor: api_is_tensor,
    view_get: tb_tensor_view_get,
    from_external: api_from_external,
    zeros: api_zeros,
};

/// The capsule `_C._C_API` (a new reference), pointing at the static table.
pub fn capsule() -> PyResult<ObjectPtr> {
    // SAFETY: the table is static and never freed; the capsule has no destructor.
    unsafe {
        ObjectPtr::steal_or_err(ffi::PyCapsule_New(
            (&raw const C_API) as *mut c_void,
            C_API_CAPSULE.as_ptr(),
            None,
        ))
    }
}

unsafe extern "C" fn api_is_tensor(obj: *mut c_void) -> c_int {
    if obj.is_null() {
        return 0;
    }
    // SAFETY: the caller passes a live object and holds the GIL (the header's contract).
    is_tensor(unsafe { Borrowed::from_ptr(obj.cast()) }) as c_int
}

fn dtype_of(code: i32) -> PyResult<DType> {
    usize::try_from(code)
        .ok()
        .and_then(|i| DType::ALL.get(i).copied())
        .ok_or_else(|| value_error(format!("tb_c_api: dtype {code} is not a tb_dtype (0..=7)")))
}

/// Sizes (non-negative) from a C array of `ndim` entries.
///
/// # Safety
/// `sizes` points at `ndim` readable entries (or `ndim` is 0).
unsafe fn sizes_of(ndim: i64, sizes: *const i64) -> PyResult<Vec<usize>> {
    if ndim < 0 || (ndim > 0 && sizes.is_null()) {
        return Err(value_error(format!(
            "tb_c_api: bad ndim {ndim} or NULL sizes"
        )));
    }
    let s = if ndim == 0 {
        &[][..]
    } else {
        // SAFETY: contract.
        unsafe { std::slice::from_raw_parts(sizes, ndim as usize) }
    };
    Ok(crate::core::ops::nonnegative_sizes(s)?)
}

unsafe extern "C" fn api_from_external(
    data: *mut c_void,
    dtype: i32,
    ndim: i64,
    sizes: *const i64,
    strides: *const i64,
    deleter: TbDeleter,
    ctx: *mut c_void,
) -> *mut c_void {
    let owner = external::owner_of_c_deleter(deleter, ctx);
    let r: *mut ffi::PyObject = crate::handle_errors!({
        let dtype = match dtype_of(dtype) {
            Ok(d) => d,
            Err(e) => {
                owner();
                return Err(e);
            }
        };
        // SAFETY: the header's contract: `ndim` sizes (and strides, unless NULL) are readable.
        let sizes = match unsafe { sizes_of(ndim, sizes) } {
            Ok(s) => s,
            Err(e) => {
                owner();
                return Err(e);
            }
        };
        let strides: Vec<isize> = if strides.is_null() {
            crate::core::tensor::contiguous_strides(&sizes)
        } else {
            // SAFETY: as above.
            unsafe { std::slice::from_raw_parts(strides, sizes.len()) }
                .iter()
                .map(|&s| s as isize)
                .collect()
        };
        let nbytes = if sizes.contains(&0) {
            0
        } else {
            let last: isize = sizes
                .iter()
                .zip(&strides)
                .map(|(&n, &s)| (n as isize - 1) * s.max(0))
                .sum();
            (last.max(0) as usize + 1) * dtype.itemsize()
        };
        // SAFETY: the header's contract: `data` holds the elements the view reaches until the
        // deleter runs; from here on `from_external` owns the owner (it runs it on failure too).
        let t = unsafe {
            Tensor::from_external(data.cast(), nbytes, &sizes, &strides, 0, dtype, owner)
        }?;
        Ok(wrap(t)?.release())
    });
    r.cast()
}

unsafe extern "C" fn api_zeros(dtype: i32, ndim: i64, sizes: *const i64) -> *mut c_void {
    let r: *mut ffi::PyObject = crate::handle_errors!({
        let dtype = dtype_of(dtype)?;
        // SAFETY: the header's contract.
        let sizes = unsafe { sizes_of(ndim, sizes) }?;
        Ok(wrap(Tensor::zeros(&sizes, dtype)?)?.release())
    });
    r.cast()
}

#[cfg(test)]
mod tests {
    #[test]
    fn c_and_rust_agree_on_the_api_table_layout() {
        assert!(super::c_layout_matches());
    }
}
