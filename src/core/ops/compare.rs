//! src/core/ops/compare.rs: (being written)
