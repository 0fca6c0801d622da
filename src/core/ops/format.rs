//! src/core/ops/format.rs: (being written)
