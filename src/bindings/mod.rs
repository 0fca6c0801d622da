//! src/bindings: everything that touches CPython (PyTorch: `torch/csrc`). It parses, converts,
//! calls `core`, and wraps; it never implements math. See ARCHITECTURE.md.

pub mod arg_parser;
pub mod c_view;
pub mod call_scope;
pub mod convert;
pub mod cpython_ext;
pub mod dtype_object;
pub mod entry;
pub mod errors;
pub mod generated;
pub mod generator_object;
pub mod gil;
pub mod mapping;
pub mod module;
pub mod number;
pub mod object_ptr;
pub mod override_protocol;
pub mod structseq;
pub mod tensor_methods;
pub mod tensor_new;
pub mod tensor_object;
pub mod testing;
