//! src/core/ops/factories.rs: (being written)
