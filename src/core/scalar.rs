//! src/core/scalar.rs: `Scalar`, a single bool, int or float value (PyTorch: `c10::Scalar`).

use super::dtype::{Category, DType, Element};
use std::fmt;

/// One number, as a Python caller passes it. Python ints are exact 64-bit integers here.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
}

impl Scalar {
    /// The promotion category of this scalar.
    pub fn category(self) -> Category {
        match self {
            Scalar::Bool(_) => Category::Bool,
            Scalar::Int(_) => Category::Integral,
            Scalar::Float(_) => Category::Floating,
        }
    }

    /// The dtype a tensor made from this scalar alone gets: bool, int64 or the default float
    /// (float32), as `torch.tensor(3)` / `torch.tensor(2.5)` do.
    pub fn default_dtype(self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::Int64,
            Scalar::Float(_) => DType::DEFAULT_FLOAT,
        }
    }

    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as u8 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) => f,
        }
    }

    pub fn to_i64(self) -> i64 {
        match self {
            Scalar::Bool(b) => b as i64,
            Scalar::Int(i) => i,
            Scalar::Float(f) => f as i64,
        }
    }

    pub fn to_bool(self) -> bool {
        match self {
            Scalar::Bool(b) => b,
            Scalar::Int(i) => i != 0,
            Scalar::Float(f) => f != 0.0,
        }
    }

    /// Convert to an element type with torch's casting rules.
    pub fn to<T: Element>(self) -> T {
        match self {
            Scalar::Bool(b) => T::from_bool(b),
            Scalar::Int(i) => T::from_i64(i),
            Scalar::Float(f) => T::from_f64(f),
        }
    }

    /// The scalar holding `v`, in the variant matching `T`'s category.
    pub fn from_element<T: Element>(v: T) -> Scalar {
        match T::DTYPE.category() {
            Category::Bool => Scalar::Bool(v.to_bool()),
            Category::Integral => Scalar::Int(v.to_i64()),
            Category::Floating => Scalar::Float(v.to_f64()),
        }
    }

    pub fn is_floating_point(self) -> bool {
        matches!(self, Scalar::Float(_))
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Bool(b) => write!(f, "{}", if *b { "True" } else { "False" }),
            Scalar::Int(i) => write!(f, "{i}"),
            Scalar::Float(x) => write!(f, "{x}"),
        }
    }
}

impl From<bool> for Scalar {
    fn from(v: bool) -> Self {
        Scalar::Bool(v)
    }
}
impl From<i64> for Scalar {
    fn from(v: i64) -> Self {
        Scalar::Int(v)
    }
}
impl From<f64> for Scalar {
    fn from(v: f64) -> Self {
        Scalar::Float(v)
    }
}
