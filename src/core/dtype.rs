//! src/core/dtype.rs: the element types a tensor can hold (PyTorch: `c10::ScalarType`).

use std::fmt;

/// The element type of a tensor. The order of the variants is the order of torch's
/// `ScalarType` enum for the types we support.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    Bool,
    UInt8,
    Int8,
    Int16,
    Int32,
    Int64,
    Float32,
    Float64,
}

/// The category of a dtype for type promotion: bool < integral < floating.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    Bool,
    Integral,
    Floating,
}

impl DType {
    /// Every dtype, in a fixed order (used to build the Python singletons).
    pub const ALL: [DType; 8] = [
        DType::Bool,
        DType::UInt8,
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::Float32,
        DType::Float64,
    ];

    /// torch's default floating dtype, used for float Python scalars and for true division of ints.
    pub const DEFAULT_FLOAT: DType = DType::Float32;

    /// Bytes per element.
    pub const fn itemsize(self) -> usize {
        match self {
            DType::Bool | DType::UInt8 | DType::Int8 => 1,
            DType::Int16 => 2,
            DType::Int32 | DType::Float32 => 4,
            DType::Int64 | DType::Float64 => 8,
        }
    }

    pub const fn category(self) -> Category {
        match self {
            DType::Bool => Category::Bool,
            DType::Float32 | DType::Float64 => Category::Floating,
            _ => Category::Integral,
        }
    }

    pub const fn is_floating_point(self) -> bool {
        matches!(self, DType::Float32 | DType::Float64)
    }

    /// True for the integer dtypes (bool excluded, as `torch.is_floating_point`'s counterpart
    /// `isIntegralType(t, includeBool=false)`).
    pub const fn is_integral(self) -> bool {
        matches!(
            self,
            DType::UInt8 | DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64
        )
    }

    /// The name used after `torch.`/`_C.`: `float32`, `int64`, ...
    pub const fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::UInt8 => "uint8",
            DType::Int8 => "int8",
            DType::Int16 => "int16",
            DType::Int32 => "int32",
            DType::Int64 => "int64",
            DType::Float32 => "float32",
            DType::Float64 => "float64",
        }
    }

    /// torch's C++ name, used in some of its error messages (`Float`, `Long`, ...).
    pub const fn scalar_type_name(self) -> &'static str {
        match self {
            DType::Bool => "Bool",
            DType::UInt8 => "Byte",
            DType::Int8 => "Char",
            DType::Int16 => "Short",
            DType::Int32 => "Int",
            DType::Int64 => "Long",
            DType::Float32 => "Float",
            DType::Float64 => "Double",
        }
    }

    /// The C++ type name torch's messages use (`uint8_t`, `int64_t`, `float`, ...).
    pub const fn cpp_type_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::UInt8 => "uint8_t",
            DType::Int8 => "int8_t",
            DType::Int16 => "int16_t",
            DType::Int32 => "int",
            DType::Int64 => "int64_t",
            DType::Float32 => "float",
            DType::Float64 => "double",
        }
    }

    /// The name torch's `caffe2::TypeMeta` prints for a dtype (the demangled C++ type, as on
    /// Linux), used in messages such as "expected m1 and m2 to have the same dtype, but got:
    /// float != long int".
    pub const fn type_meta_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::UInt8 => "unsigned char",
            DType::Int8 => "signed char",
            DType::Int16 => "short int",
            DType::Int32 => "int",
            DType::Int64 => "long int",
            DType::Float32 => "float",
            DType::Float64 => "double",
        }
    }

    /// The dtype whose `name()` is `name`, if any.
    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.iter().copied().find(|d| d.name() == name)
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A Rust type that can be a tensor element. `cast_from` (a tensor's elements converted to
/// another dtype) follows C++ `static_cast` as torch does, and float → integer of values outside
/// the integer's range (undefined in C++) gives what torch's x86-64 build gives (Note [Float to
/// integer conversion]); `from_f64` (a Python number made an element: fill values, bounds)
/// saturates there.
pub trait Element: Copy + Default + PartialOrd + Send + Sync + 'static + fmt::Debug {
    const DTYPE: DType;
    fn to_f64(self) -> f64;
    fn to_i64(self) -> i64;
    fn to_bool(self) -> bool;
    fn from_f64(v: f64) -> Self;
    fn from_i64(v: i64) -> Self;
    fn from_bool(v: bool) -> Self;
    /// A float element converted as torch's x86-64 build converts a tensor's elements (Note
    /// [Float to integer conversion]); `from_f64` for the float types.
    fn from_f64_cast(v: f64) -> Self;
    /// Convert from another element type with torch's casting rules.
    #[inline(always)]
    fn cast_from<S: Element>(v: S) -> Self {
        match S::DTYPE.category() {
            Category::Bool => Self::from_bool(v.to_bool()),
            Category::Integral => Self::from_i64(v.to_i64()),
            Category::Floating => Self::from_f64_cast(v.to_f64()),
        }
    }
}

// Note [Float to integer conversion]
// C++ leaves `static_cast<int8_t>(300.7)` undefined; torch's x86-64 build compiles its
// conversions to `cvttsd2si`/`cvttss2si` (and their vector forms), which truncate towards zero
// into a 32-bit register for int8, int16 and int32 and a 64-bit one for uint8 and int64, give the
// "integer indefinite" value (the minimum) for NaN, infinities and anything out of that
// register's range, and then keep the low bits. So uint8(300.7) is 44, int8(-1.5) is -1,
// int16(70000.5) is 4464, int8(1e10) is 0, int32(nan) is -2147483648. tensorbind converts a
// tensor's elements the same way on every CPU (`Element::from_f64_cast`, behind `cast_from`:
// `to`, `copy_`, `byte()`, ...; Rust's `as` alone would saturate), so results do not depend on
// the machine. A Python number made an element (`from_f64`: fill values, clamp bounds) still
// saturates, as torch's own scalar paths compare such bounds without wrapping them.

/// Truncation into a 64-bit register as x86-64's `cvttsd2si` does: `i64::MIN` for NaN and
/// anything out of range.
#[inline(always)]
fn trunc_i64_x86(v: f64) -> i64 {
    if v > -9.223_372_036_854_778e18 && v < 9.223_372_036_854_776e18 {
        v as i64
    } else {
        i64::MIN
    }
}

/// Truncation into a 32-bit register as x86-64's `cvttsd2si` does: `i32::MIN` for NaN and
/// anything out of range.
#[inline(always)]
fn trunc_i32_x86(v: f64) -> i32 {
    if v > -2_147_483_649.0 && v < 2_147_483_648.0 {
        v as i32
    } else {
        i32::MIN
    }
}

macro_rules! impl_element_num {
    ($t:ty, $d:ident) => {
        impl_element_num!($t, $d, |v: f64| v as $t);
    };
    ($t:ty, $d:ident, $from_f64_cast:expr) => {
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn to_bool(self) -> bool {
                self != (0 as $t)
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn from_f64_cast(v: f64) -> Self {
                ($from_f64_cast)(v)
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn from_bool(v: bool) -> Self {
                (v as u8) as $t
            }
        }
    };
}
// See Note [Float to integer conversion].
impl_element_num!(u8, UInt8, |v: f64| trunc_i64_x86(v) as u8);
impl_element_num!(i8, Int8, |v: f64| trunc_i32_x86(v) as i8);
impl_element_num!(i16, Int16, |v: f64| trunc_i32_x86(v) as i16);
impl_element_num!(i32, Int32, trunc_i32_x86);
impl_element_num!(i64, Int64, trunc_i64_x86);
impl_element_num!(f32, Float32);
impl_element_num!(f64, Float64);

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as u8 as f64
    }
    #[inline(always)]
    fn to_i64(self) -> i64 {
        self as i64
    }
    #[inline(always)]
    fn to_bool(self) -> bool {
        self
    }
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    #[inline(always)]
    fn from_f64_cast(v: f64) -> Self {
        v != 0.0
    }
    #[inline(always)]
    fn from_i64(v: i64) -> Self {
        v != 0
    }
    #[inline(always)]
    fn from_bool(v: bool) -> Self {
        v
    }
}

/// `dispatch!` for ops defined only on the floating dtypes: `$body` with `$T` bound to `f32` or
/// `f64`; any other dtype evaluates `$other` (callers reject non-floating inputs before, so that
/// is an internal error). Instantiates the body twice instead of once per dtype.
#[macro_export]
macro_rules! dispatch_float {
    ($dtype:expr, $T:ident => $body:expr, _ => $other:expr) => {
        match $dtype {
            $crate::core::dtype::DType::Float32 => {
                #[allow(dead_code)]
                type $T = f32;
                $body
            }
            $crate::core::dtype::DType::Float64 => {
                #[allow(dead_code)]
                type $T = f64;
                $body
            }
            _ => $other,
        }
    };
}

/// Run `$body` with the type alias `$T` bound to the Rust element type of `$dtype`:
/// `dispatch!(t.dtype(), T => t.to_vec::<T>())`.
#[macro_export]
macro_rules! dispatch {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            $crate::core::dtype::DType::Bool => {
                #[allow(dead_code)]
                type $T = bool;
                $body
            }
            $crate::core::dtype::DType::UInt8 => {
                #[allow(dead_code)]
                type $T = u8;
                $body
            }
            $crate::core::dtype::DType::Int8 => {
                #[allow(dead_code)]
                type $T = i8;
                $body
            }
            $crate::core::dtype::DType::Int16 => {
                #[allow(dead_code)]
                type $T = i16;
                $body
            }
            $crate::core::dtype::DType::Int32 => {
                #[allow(dead_code)]
                type $T = i32;
                $body
            }
            $crate::core::dtype::DType::Int64 => {
                #[allow(dead_code)]
                type $T = i64;
                $body
            }
            $crate::core::dtype::DType::Float32 => {
                #[allow(dead_code)]
                type $T = f32;
                $body
            }
            $crate::core::dtype::DType::Float64 => {
                #[allow(dead_code)]
                type $T = f64;
                $body
            }
        }
    };
}
