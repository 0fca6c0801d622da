//! src/bindings/describe.rs: descriptions of Python values for error messages — `type_name`,
//! the name of an object's type as torch's messages print it (`Tensor`, `int`, `_C.dtype`).
//! Above the objects (it recognises tensors and dtypes), below everything that raises.
//!
//! Layer 2 (calling): see src/bindings/mod.rs.

use super::object_ptr::Borrowed;

/// The name of `o`'s type as torch's messages print it: `Tensor`, `int`, `_C.dtype`, `str`, ...
pub fn type_name(o: Borrowed<'_>) -> String {
    if super::tensor_object::is_tensor(o) {
        return "Tensor".to_string();
    }
    if super::dtype_object::unpack_dtype(o).is_some() {
        return "_C.dtype".to_string();
    }
    // SAFETY: `tp_name` of a live type is a NUL-terminated string owned by the type.
    unsafe {
        let name = std::ffi::CStr::from_ptr((*o.type_ptr()).tp_name);
        name.to_string_lossy().into_owned()
    }
}
