//! src/bindings: everything that touches CPython (PyTorch: `torch/csrc`). It parses, converts,
//! calls `core`, and wraps; it never implements math. See ARCHITECTURE.md.
//!
//! The modules form five layers, and a module imports only modules of its own layer or below,
//! never in a cycle (tests/binding_layers.rs checks it against the list below and against the
//! "Layer N" line of each module's header). A new module goes in the lowest layer that holds
//! everything it needs.

// Layer 0 — references, errors, GIL, state: what every other module uses.
pub mod call_scope;
pub mod cpython_ext;
pub mod errors;
pub mod gil;
pub mod object_ptr;
pub mod state;
pub mod static_type;

// Layer 1 — objects: conversions of numbers and strings, and the Python objects we define.
pub mod convert;
pub mod dtype_object;
pub mod external;
pub mod generator_object;
pub mod graph_gc;
pub mod hook_dicts;
pub mod node_object;
pub mod structseq;
pub mod tensor_object;

// Layer 2 — calling: argument parsing, the override protocol, results, messages.
pub mod arg_parser;
pub mod buffer;
pub mod describe;
pub mod device_object;
pub mod dlpack;
pub mod entry;
pub mod numpy;
pub mod override_protocol;
pub mod write_out;

// Layer 3 — entry points: the functions, methods and slots CPython calls.
pub mod autograd_hooks;
pub mod autograd_methods;
pub mod c_api;
pub mod c_view;
pub mod generated;
pub mod generator_methods;
pub mod interop;
pub mod mapping;
pub mod module_functions;
pub mod number;
pub mod python_methods;
pub mod resize;
pub mod tensor_methods;
pub mod tensor_new;
pub mod testing;

// Layer 4 — assembly: the tensor type filled from the entry tables, and module init.
pub mod module;
pub mod tensor_type;
