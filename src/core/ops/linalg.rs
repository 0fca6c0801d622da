//! src/core/ops/linalg.rs: (being written)
