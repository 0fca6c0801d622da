//! src/core/ops/elementwise.rs: (being written)
