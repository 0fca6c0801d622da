//! src/core/scalar.rs: `Scalar`, a single bool, int or float value (PyTorch: `c10::Scalar`).

use super::dtype::{Category, DType, Element};
use super::error::{Error, Result};
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

    /// torch's `c10::overflows` as `checked_convert` applies it: conversion to bool never
    /// overflows; infinities and NaN fit the float types; a negative int fits uint8 when its
    /// magnitude does (two's-complement wrap, so `uint8 - 1` works); anything else must lie in
    /// the target's range.
    pub fn overflows(self, to: DType) -> bool {
        let int_range = |d: DType| -> (i64, i64) {
            match d {
                DType::UInt8 => (0, u8::MAX as i64),
                DType::Int8 => (i8::MIN as i64, i8::MAX as i64),
                DType::Int16 => (i16::MIN as i64, i16::MAX as i64),
                DType::Int32 => (i32::MIN as i64, i32::MAX as i64),
                _ => (i64::MIN, i64::MAX),
            }
        };
        match (to, self) {
            (DType::Bool, _) | (_, Scalar::Bool(_)) | (DType::Float64, _) => false,
            (DType::Float32, Scalar::Int(_)) => false,
            (DType::Float32, Scalar::Float(f)) => {
                f.is_finite() && (f < f32::MIN as f64 || f > f32::MAX as f64)
            }
            (_, Scalar::Float(f)) => {
                let (lo, hi) = int_range(to);
                f.is_nan() || f < lo as f64 || f > hi as f64
            }
            (DType::UInt8, Scalar::Int(i)) => i > u8::MAX as i64 || i < -(u8::MAX as i64),
            (_, Scalar::Int(i)) => {
                let (lo, hi) = int_range(to);
                i < lo || i > hi
            }
        }
    }

    /// Convert to `T` as torch's `Scalar::to<T>()` does: a `Runtime` error ("value cannot be
    /// converted to type uint8_t without overflow") when the value does not fit, else a
    /// C++-style cast.
    pub fn to_checked<T: Element>(self) -> Result<T> {
        if self.overflows(T::DTYPE) {
            return Err(Error::runtime(format!(
                "value cannot be converted to type {} without overflow",
                T::DTYPE.cpp_type_name()
            )));
        }
        Ok(self.to::<T>())
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
