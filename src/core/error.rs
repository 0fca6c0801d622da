//! src/core/error.rs: the core's one error type, `Error { kind, message }` (PyTorch: the `c10::Error` family).

use std::fmt;

/// What went wrong, in the categories a caller can act on. The binding layer maps each kind to
/// exactly one Python exception type (see ARCHITECTURE.md, "Errors").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// An index or dimension out of range (`IndexError`).
    Index,
    /// An argument of the wrong type or dtype (`TypeError`).
    Type,
    /// An argument of the right type with a bad value (`ValueError`).
    Value,
    /// Anything else that failed at run time: shape mismatches, bad state (`RuntimeError`).
    Runtime,
    /// A valid request this library does not implement (`NotImplementedError`).
    NotImplemented,
    /// A failed allocation (`MemoryError`).
    OutOfMemory,
    /// A linear-algebra routine failed on the input's values — a singular matrix, one that is
    /// not positive-definite, no convergence (torch's `torch.linalg.LinAlgError`, a
    /// RuntimeError subclass: `_C._LinAlgError`).
    LinAlg,
    /// A callback the bindings gave the core (a Python hook) failed; the bindings hold the
    /// original exception and raise it again (core Note [Opaque callbacks]).
    External,
}

/// A core error: its kind and a complete, human-readable message naming the operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
}

/// The core's result type.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
        }
    }
    pub fn index(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Index, message)
    }
    pub fn type_error(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Type, message)
    }
    pub fn value(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Value, message)
    }
    pub fn runtime(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Runtime, message)
    }
    pub fn not_implemented(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotImplemented, message)
    }
    pub fn linalg(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::LinAlg, message)
    }
    pub fn out_of_memory(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::OutOfMemory, message)
    }
    pub fn external(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::External, message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// Return early with an error of the given kind: `bail!(Runtime, "sum(): dim {} out of range", d)`.
#[macro_export]
macro_rules! bail {
    ($kind:ident, $($arg:tt)*) => {
        return Err($crate::core::error::Error::new(
            $crate::core::error::ErrorKind::$kind,
            format!($($arg)*),
        ))
    };
}
