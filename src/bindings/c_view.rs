//! src/bindings/c_view.rs: the Rust side of include/tensorbind.h — `tb_tensor_view_get`, the C
//! view of a `_C.Tensor` for other native code, and the check that the C layout matches ours.
//!
//! Layer 3 (entry points): see src/bindings/mod.rs.

use super::object_ptr::Borrowed;
use super::tensor_object::unpack;
use pyo3_ffi as ffi;
use std::ffi::{c_int, c_void};

/// `tb_tensor_view` of include/tensorbind.h.
#[repr(C)]
pub struct TbTensorView {
    pub data: *mut c_void,
    pub sizes: *const u64,
    pub strides: *const i64,
    pub ndim: i64,
    pub dtype: i32,
    pub itemsize: i32,
}

// `usize`/`isize` are 64-bit on the targets we support, so the shape vectors are `u64`/`i64`.
const _: () = assert!(std::mem::size_of::<usize>() == 8);

extern "C" {
    /// Compiled from src/c/layout.c: sizeof, offsetof(ndim), offsetof(dtype) as C sees them.
    static tb_tensor_view_layout: [u64; 3];
}

/// True when the C compiler's layout of `tb_tensor_view` equals this struct's.
pub fn c_layout_matches() -> bool {
    // SAFETY: a constant array defined in src/c/layout.c, linked into this library.
    let c = unsafe { tb_tensor_view_layout };
    c == [
        std::mem::size_of::<TbTensorView>() as u64,
        std::mem::offset_of!(TbTensorView, ndim) as u64,
        std::mem::offset_of!(TbTensorView, dtype) as u64,
    ]
}

/// Fill `out` with a borrowed view of the tensor `obj`; 0 on success, -1 if `obj` is NULL or not
/// a tensor. The caller holds the GIL.
///
/// # Safety
/// `obj` is NULL or a live Python object; `out` is NULL or valid for writes.
#[no_mangle]
pub unsafe extern "C" fn tb_tensor_view_get(obj: *mut c_void, out: *mut TbTensorView) -> c_int {
    if obj.is_null() || out.is_null() {
        return -1;
    }
    // SAFETY: `obj` is a live object (contract); the view borrows from it.
    let Some(t) = unpack(unsafe { Borrowed::from_ptr(obj as *mut ffi::PyObject) }) else {
        return -1;
    };
    let view = TbTensorView {
        data: crate::dispatch!(t.dtype(), T => t.data_ptr::<T>() as *mut c_void),
        sizes: t.sizes().as_ptr() as *const u64,
        strides: t.strides().as_ptr() as *const i64,
        ndim: t.dim() as i64,
        dtype: t.dtype() as i32,
        itemsize: t.dtype().itemsize() as i32,
    };
    // SAFETY: `out` is valid for writes (contract).
    unsafe { out.write(view) };
    0
}

#[cfg(test)]
mod tests {
    #[test]
    fn c_and_rust_agree_on_the_view_layout() {
        assert!(super::c_layout_matches());
    }
}
