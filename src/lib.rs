//! tensorbind: a tensor library with a Rust core (`core`) and a hand-written CPython binding
//! layer (`bindings`) exposed as the extension module `_C`. See ARCHITECTURE.md.

// The crate is named `_C` so that the cdylib exports `PyInit__C`.
#![allow(non_snake_case)]

pub mod bindings;
pub mod core;
