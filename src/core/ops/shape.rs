//! src/core/ops/shape.rs: (being written)
