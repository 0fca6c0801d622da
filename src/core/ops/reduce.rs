//! src/core/ops/reduce.rs: (being written)
