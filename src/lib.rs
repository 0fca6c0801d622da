//! tensorbind: a tensor library with a Rust core (`core`) and a hand-written CPython binding
//! layer (`bindings`) exposed as the extension module `_C`. See ARCHITECTURE.md.

pub mod core;
