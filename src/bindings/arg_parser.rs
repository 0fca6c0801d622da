//! src/bindings/arg_parser.rs: `PythonArgParser`, matching vectorcall arguments against the
//! signatures of the schema (PyTorch: `python_arg_parser.h/.cpp`; numpy: `npy_argparse.c`).
//!
//! Layer 2 (calling): see src/bindings/mod.rs.
//!
//! A parser holds one `FunctionSignature` per overload. Both are static data that build.rs
//! generates from src/native_functions.yaml (the one parser of the schema's grammar, with the
//! defaults parsed at build time), e.g. for `add(Tensor input, Tensor other, *, Scalar alpha=1,
//! Tensor? out=None)`; at run time only the keyword names are interned (`intern_keywords`, at
//! module initialisation), so a call compares them by identity first. `parse` tries the
//! overloads in declaration order and returns `ParsedArgs`: the index of the overload that
//! matched and the argument slots, borrowed from the caller's argument array. Nothing is
//! allocated on the success path (slots live in the caller's `ArgSlots` on the stack, or are
//! the argument array itself for a positional call).
//!
//! Fast path (`parse_positional`): a single-signature parser called without keywords binds
//! `args[i]` to parameter `i` when that is certainly what the generic matcher would do and the
//! call certainly matches (an exact `_C.Tensor` for a `Tensor` parameter is one pointer
//! comparison); anything else, including every failure, goes through the generic matcher, so
//! overload resolution and error messages come from one place.
//!
//! Errors follow torch's texts (rendered examples beside each raise site), with one deliberate
//! fix: "missing 1 required positional argument" is singular (torch pluralizes it backwards).

use super::convert::{self, is_bool, is_float, is_int, is_int_or_bool, is_number, is_str};
use super::describe;
use super::dtype_object::unpack_dtype;
use super::errors::{runtime_error, type_error, BindError, PyResult};
use super::numpy;
use super::object_ptr::Borrowed;
use super::override_protocol::{self, Overloaded};
use super::tensor_object::{is_tensor, tensor_ref, tensor_type, unpack, TensorRef};
use crate::core::{DType, Scalar, Tensor};
use pyo3_ffi as ffi;
use std::ffi::CStr;
use std::ops::Deref;
use std::sync::atomic::{AtomicPtr, Ordering};

/// Most parameters any signature may have (slots are a fixed array on the stack). A call with
/// more keywords than this simply fails to match (one of them is unknown). Checked when the
/// generated tables are compiled (`FunctionSignature::new`).
pub const MAX_PARAMS: usize = 12;

/// The schema types a parameter can have; one extractor each on `ParsedArgs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamType {
    Tensor,
    Scalar,
    Int,
    Float,
    Bool,
    Str,
    IntList,
    /// `float[]`: a tuple or list whose first item is a number (torch's `FloatList`).
    FloatList,
    ScalarType,
    TensorList,
    /// `PyObject*`: any object, converted by hand-written code.
    Object,
    /// `Generator`: a `_C.Generator` (its type is registered at init by `register_generator_type`).
    Generator,
    /// `Device`: a `_C.device`, a device string or an int (Note [Devices]).
    Device,
    /// `Layout`: `_C.strided`.
    Layout,
}

impl ParamType {
    /// How torch names the type in messages and in the signature list.
    fn describe(self) -> &'static str {
        match self {
            ParamType::Tensor => "Tensor",
            ParamType::Scalar => "Number",
            ParamType::Int => "int",
            ParamType::Float => "float",
            ParamType::Bool => "bool",
            ParamType::Str => "str",
            ParamType::IntList => "tuple of ints",
            ParamType::FloatList => "tuple of floats",
            ParamType::ScalarType => "_C.dtype",
            ParamType::TensorList => "tuple of Tensors",
            ParamType::Object => "object",
            ParamType::Generator => "_C.Generator",
            ParamType::Device => "_C.device",
            ParamType::Layout => "_C.layout",
        }
    }
}

/// A parameter's default when the caller omits it (parsed from the schema at build time).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DefaultValue {
    Required,
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'static str),
    IntList(&'static [i64]),
}

impl DefaultValue {
    fn render(&self) -> String {
        match self {
            DefaultValue::Required => String::new(),
            DefaultValue::None => "None".into(),
            DefaultValue::Bool(b) => if *b { "True" } else { "False" }.into(),
            DefaultValue::Int(i) => i.to_string(),
            DefaultValue::Float(f) => format!("{f:?}"),
            DefaultValue::Str(s) => format!("'{s}'"),
            DefaultValue::IntList(v) => {
                format!(
                    "({})",
                    v.iter()
                        .map(|x| x.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        }
    }
}

/// A parameter name, as a keyword: its text and, once `intern_keywords` has run (at module
/// initialisation), the interned `str` that keyword arguments are compared with by identity
/// first (numpy's `npy_argparse` habit). Generated as one static per distinct name.
pub struct Keyword {
    pub name: &'static str,
    c_name: &'static CStr,
    /// A new reference owned by this static for the life of the process; NULL until interned
    /// (matching then compares text only).
    interned: AtomicPtr<ffi::PyObject>,
}

impl Keyword {
    /// `name` and the same text as a C string (`Keyword::new("alpha", c"alpha")`).
    pub const fn new(name: &'static str, c_name: &'static CStr) -> Keyword {
        Keyword {
            name,
            c_name,
            interned: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    #[inline(always)]
    fn interned(&self) -> *mut ffi::PyObject {
        self.interned.load(Ordering::Relaxed)
    }
}

/// Intern the names of `keywords` (the generated `KEYWORDS` table). Called once from
/// `PyInit__C`, with the GIL held, before any function can be called.
pub fn intern_keywords(keywords: &[&'static Keyword]) -> PyResult<()> {
    for k in keywords {
        if !k.interned().is_null() {
            continue;
        }
        // SAFETY: GIL held (contract); returns a new reference that the static keeps forever,
        // or NULL with MemoryError set.
        let p = unsafe { ffi::PyUnicode_InternFromString(k.c_name.as_ptr()) };
        if p.is_null() {
            return Err(BindError::Python);
        }
        k.interned.store(p, Ordering::Relaxed);
    }
    Ok(())
}

/// One parameter of one signature: static data generated by build.rs from the schema (built
/// with `FunctionParameter::new` and the modifiers below, all `const`).
#[derive(Clone, Copy)]
pub struct FunctionParameter {
    pub keyword: &'static Keyword,
    pub ty: ParamType,
    /// `Type?`, or a `None` default: `None` is accepted.
    pub optional: bool,
    pub default: DefaultValue,
    /// `default` as a `Scalar` (`alpha=1`), so an omitted `Scalar`/`int`/`float`/`bool`
    /// argument costs no match on `DefaultValue` per call.
    default_scalar: Option<Scalar>,
    pub keyword_only: bool,
    /// Bound only by position (a keyword of this name is unexpected).
    pub positional_only: bool,
    /// `int[N]`: the fixed length, so a lone int is accepted (`dim=0`).
    pub size: Option<usize>,
    /// A `Tensor` parameter no Python number binds to although its signature takes numbers as
    /// tensors (`numbers_as_tensors: other`: `eq(2, t)` is torch's TypeError).
    pub no_numbers: bool,
}

impl FunctionParameter {
    /// A required positional-or-keyword parameter.
    pub const fn new(keyword: &'static Keyword, ty: ParamType) -> FunctionParameter {
        FunctionParameter {
            keyword,
            ty,
            optional: false,
            default: DefaultValue::Required,
            default_scalar: None,
            keyword_only: false,
            positional_only: false,
            size: None,
            no_numbers: false,
        }
    }

    /// `Type?`.
    pub const fn optional(self) -> FunctionParameter {
        FunctionParameter {
            optional: true,
            ..self
        }
    }

    /// `=default`.
    pub const fn default(self, default: DefaultValue) -> FunctionParameter {
        FunctionParameter {
            optional: self.optional || matches!(default, DefaultValue::None),
            default,
            default_scalar: match default {
                DefaultValue::Bool(v) => Some(Scalar::Bool(v)),
                DefaultValue::Int(v) => Some(Scalar::Int(v)),
                DefaultValue::Float(v) => Some(Scalar::Float(v)),
                _ => None,
            },
            ..self
        }
    }

    /// After `*`.
    pub const fn keyword_only(self) -> FunctionParameter {
        FunctionParameter {
            keyword_only: true,
            ..self
        }
    }

    /// Before `/`.
    pub const fn positional_only(self) -> FunctionParameter {
        FunctionParameter {
            positional_only: true,
            ..self
        }
    }

    /// No Python number binds here (`numbers_as_tensors: other`, for `input`).
    pub const fn no_numbers(self) -> FunctionParameter {
        FunctionParameter {
            no_numbers: true,
            ..self
        }
    }

    /// `int[N]`.
    pub const fn size(self, n: usize) -> FunctionParameter {
        FunctionParameter {
            size: Some(n),
            ..self
        }
    }

    /// The parameter's name.
    #[inline(always)]
    pub fn name(&self) -> &'static str {
        self.keyword.name
    }

    const fn required(&self) -> bool {
        matches!(self.default, DefaultValue::Required)
    }
}

/// One overload: static data generated by build.rs; the facts the matcher needs are derived
/// from the parameters when the table is compiled (`new` is `const`).
pub struct FunctionSignature {
    pub name: &'static str,
    pub params: &'static [FunctionParameter],
    /// Positional parameters (those before `*`).
    pub max_pos_args: usize,
    /// `zeros(2, 3)`: the only positional parameter is an `int[]`, so varargs ints fill it.
    pub allow_varargs_intlist: bool,
    /// `einsum("ij,jk", a, b)`: the last positional parameter is a `Tensor[]`, so trailing
    /// positional tensors fill it (torch's Python-level `*operands`). Its index.
    pub varargs_tensorlist: Option<usize>,
    /// Python numbers bind to `Tensor` parameters (as wrapped-number tensors).
    pub numbers_as_tensors: bool,
    /// `numbers_as_tensors: one`: at most one `Tensor` parameter of a call may be bound to a
    /// number (torch's overloads `(Tensor, Tensor)`, `(Number self, Tensor)`, `(Tensor,
    /// Number)`). Checked only when a number is bound (`ParsedArgs::optional_tensor`), so calls
    /// with tensors pay nothing for it.
    pub one_number: bool,
    /// For `PythonArgParser::parse_positional`: `Some(n)` when the required parameters are
    /// exactly the first `n` positional ones and no trailing `Tensor[]` takes varargs, so a call
    /// without keywords binds `args[i]` to parameter `i` and needs `n <= nargs <=
    /// max_pos_args`; `None` when the generic matcher must decide.
    pub fast_min_args: Option<usize>,
}

impl FunctionSignature {
    /// The overload `name(params)`; `numbers_as_tensors` lets Python numbers bind to `Tensor`
    /// parameters. Evaluated at compile time: a table breaking the parser's assumptions fails
    /// the build.
    pub const fn new(
        name: &'static str,
        numbers_as_tensors: bool,
        params: &'static [FunctionParameter],
    ) -> FunctionSignature {
        assert!(params.len() <= MAX_PARAMS, "too many parameters");
        let mut max_pos_args = 0;
        let mut required = 0;
        let mut i = 0;
        while i < params.len() {
            if !params[i].keyword_only {
                assert!(max_pos_args == i, "a positional parameter after `*`");
                max_pos_args += 1;
            }
            if params[i].required() {
                required += 1;
            }
            i += 1;
        }
        let allow_varargs_intlist = max_pos_args == 1 && matches!(params[0].ty, ParamType::IntList);
        let varargs_tensorlist =
            if max_pos_args > 0 && matches!(params[max_pos_args - 1].ty, ParamType::TensorList) {
                Some(max_pos_args - 1)
            } else {
                None
            };
        // The required parameters are exactly the first `required` ones, all positional.
        let mut prefix_required = true;
        let mut i = 0;
        while i < required {
            if params[i].keyword_only || !params[i].required() {
                prefix_required = false;
            }
            i += 1;
        }
        let fast_min_args = if prefix_required && varargs_tensorlist.is_none() {
            Some(required)
        } else {
            None
        };
        FunctionSignature {
            name,
            params,
            max_pos_args,
            allow_varargs_intlist,
            varargs_tensorlist,
            numbers_as_tensors,
            one_number: false,
            fast_min_args,
        }
    }

    /// `numbers_as_tensors: one`: at most one `Tensor` parameter may be a Python number.
    pub const fn one_number(self) -> FunctionSignature {
        FunctionSignature {
            one_number: true,
            ..self
        }
    }

    /// The text of the overload with `Tensor` parameter `k` as torch's `Number` overload writes
    /// it (`(Number self, Tensor other, *, Tensor out = None)`), for the `one_number` error.
    fn text_with_number(&self, k: usize) -> String {
        let mut parts = Vec::new();
        let mut star = false;
        for (i, p) in self.params.iter().enumerate() {
            if p.keyword_only && !star {
                parts.push("*".to_string());
                star = true;
            }
            let mut s = if i == k {
                // torch's Scalar overloads name their first argument `self`, not `input`.
                let name = if p.name() == "input" {
                    "self"
                } else {
                    p.name()
                };
                format!("Number {name}")
            } else {
                format!("{} {}", p.ty.describe(), p.name())
            };
            if !p.required() {
                s.push_str(&format!(" = {}", p.default.render()));
            }
            parts.push(s);
        }
        format!("({})", parts.join(", "))
    }

    /// `(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)`, for error
    /// messages (made only when one is raised).
    pub fn text(&self) -> String {
        let mut parts = Vec::new();
        let mut star = false;
        for p in self.params {
            if p.keyword_only && !star {
                parts.push("*".to_string());
                star = true;
            }
            let mut s = format!("{} {}", p.ty.describe(), p.name());
            if !p.required() {
                s.push_str(&format!(" = {}", p.default.render()));
            }
            parts.push(s);
        }
        format!("({})", parts.join(", "))
    }
}

/// The parser of one function or method: its overloads, in the order they are tried. Static
/// data generated by build.rs (`PythonArgParser::new` is `const`).
pub struct PythonArgParser {
    pub name: &'static str,
    signatures: &'static [FunctionSignature],
}

/// Storage for the argument slots of a call that the generic matcher binds (keywords,
/// defaults in the middle, varargs): one per call, on the caller's stack, so `parse` never
/// allocates and its result stays small (a positional call borrows the caller's argument array
/// as its slots instead).
pub struct ArgSlots([*mut ffi::PyObject; MAX_PARAMS]);

impl ArgSlots {
    #[inline(always)]
    pub const fn new() -> Self {
        ArgSlots([std::ptr::null_mut(); MAX_PARAMS])
    }
}

impl Default for ArgSlots {
    fn default() -> Self {
        Self::new()
    }
}

/// The argument slots of a matched call.
pub struct ParsedArgs<'a> {
    /// Index of the overload that matched, in declaration order.
    pub idx: usize,
    sig: &'a FunctionSignature,
    /// One entry per leading parameter, borrowed from the caller's argument array (directly, for
    /// a positional call, or through `ArgSlots`); NULL, or past the end, where the default
    /// applies.
    slots: &'a [*mut ffi::PyObject],
    /// `zeros(2, 3)`: the positional ints that make up parameter 0.
    /// `zeros(2, 3)` / `einsum(eq, a, b)`: the index of the list parameter that positional
    /// varargs fill, and those arguments.
    varargs: Option<(usize, &'a [*mut ffi::PyObject])>,
    /// Some argument overrides `_C`'s behaviour (src/bindings/override_protocol.rs): the caller
    /// then dispatches through the protocol (`overloaded()` lists them) instead of running the
    /// op. A flag, not the list, so the common result stays small enough to return in place.
    has_overloaded: bool,
}

/// A tensor argument: a borrowed handle to the tensor inside its Python object, or a handle of
/// our own (a wrapped number made for this call, or taken by `own`).
pub enum TensorArg<'a> {
    Borrowed(TensorRef<'a>),
    Owned(Tensor),
}

/// Values an `int[]` argument holds in place; longer lists go to the heap.
const INT_LIST_INLINE: usize = 8;

/// An `int[]` argument (a shape, a list of dims): up to `INT_LIST_INLINE` values in place, so
/// the parser allocates nothing for ordinary calls (`zeros((2, 3))`, `sum(t, dim=0)`); longer
/// lists on the heap. Derefs to `[i64]`.
pub enum IntList {
    Inline {
        len: u8,
        values: [i64; INT_LIST_INLINE],
    },
    Heap(Vec<i64>),
}

impl IntList {
    /// The values of `items` (each may fail: the first error is returned).
    fn collect(items: impl ExactSizeIterator<Item = PyResult<i64>>) -> PyResult<IntList> {
        if items.len() > INT_LIST_INLINE {
            return items.collect::<PyResult<Vec<_>>>().map(IntList::Heap);
        }
        let mut values = [0; INT_LIST_INLINE];
        let mut len = 0;
        for v in items {
            values[len] = v?;
            len += 1;
        }
        Ok(IntList::Inline {
            len: len as u8,
            values,
        })
    }

    fn from_slice(v: &[i64]) -> IntList {
        IntList::collect(v.iter().map(|&x| Ok(x))).expect("no element can fail")
    }
}

impl Deref for IntList {
    type Target = [i64];
    #[inline(always)]
    fn deref(&self) -> &[i64] {
        match self {
            IntList::Inline { len, values } => &values[..*len as usize],
            IntList::Heap(v) => v,
        }
    }
}

impl TensorArg<'_> {
    /// Hold our own handle to the tensor instead of a reference into its Python object, before
    /// the GIL is released (Note [Core calls without the GIL] in src/bindings/gil.rs).
    #[inline]
    pub fn own(&mut self) {
        if let TensorArg::Borrowed(t) = self {
            *self = TensorArg::Owned((**t).clone());
        }
    }
}

impl Deref for TensorArg<'_> {
    type Target = Tensor;
    #[inline(always)]
    fn deref(&self) -> &Tensor {
        match self {
            TensorArg::Borrowed(t) => t,
            TensorArg::Owned(t) => t,
        }
    }
}

/// What the caller passed, as `(Tensor, str, dtype=_C.dtype)`, for the overload error.
fn describe_call(args: &[*mut ffi::PyObject], kwnames: &[Borrowed<'_>]) -> String {
    let nargs = args.len() - kwnames.len();
    let mut parts: Vec<String> = Vec::new();
    for (i, &a) in args.iter().enumerate() {
        // SAFETY: every entry of a vectorcall argument array is a live borrowed object.
        let o = unsafe { Borrowed::from_ptr(a) };
        let mut ty = describe_value(o);
        if i >= nargs {
            let name = convert::str_as_utf8(kwnames[i - nargs]).unwrap_or("?");
            ty = format!("{name}={ty}");
        }
        parts.push(ty);
    }
    parts.join(", ")
}

/// `tuple of (int, str)` for sequences, the type name otherwise (torch's `_formattedArgDesc`).
fn describe_value(o: Borrowed<'_>) -> String {
    // SAFETY: type checks of a live object.
    let (is_list, is_tuple) = unsafe {
        (
            ffi::PyList_Check(o.as_ptr()) != 0,
            ffi::PyTuple_Check(o.as_ptr()) != 0,
        )
    };
    if is_list || is_tuple {
        let items = sequence_items(o);
        let inner = items
            .iter()
            // SAFETY: items of a live list/tuple, alive while it is (we only read them here).
            .map(|&p| describe::type_name(unsafe { Borrowed::from_ptr(p) }))
            .collect::<Vec<_>>()
            .join(", ");
        return if is_list {
            format!("list of [{inner}]")
        } else {
            format!("tuple of ({inner})")
        };
    }
    describe::type_name(o)
}

/// The items of a list or tuple, borrowed from it. Valid only until Python code runs (which may
/// change the list): callers read them at once, and take their own reference to anything they
/// keep (the `'a` here is the list's, not its items').
fn sequence_items<'a>(o: Borrowed<'a>) -> &'a [*mut ffi::PyObject] {
    // SAFETY: `PySequence_Fast_ITEMS`-style access for exact list/tuple storage: both keep a
    // contiguous item array of `len` borrowed references.
    unsafe {
        let p = o.as_ptr();
        if ffi::PyTuple_Check(p) != 0 {
            let n = ffi::PyTuple_GET_SIZE(p) as usize;
            let items = (*(p as *mut ffi::PyTupleObject)).ob_item.as_ptr();
            std::slice::from_raw_parts(items, n)
        } else if ffi::PyList_Check(p) != 0 {
            let n = ffi::PyList_GET_SIZE(p) as usize;
            let items = (*(p as *mut ffi::PyListObject)).ob_item as *const *mut ffi::PyObject;
            if n == 0 {
                &[]
            } else {
                std::slice::from_raw_parts(items, n)
            }
        } else {
            &[]
        }
    }
}

/// True for an int-like argument: a Python int (not bool), a 0-dim integral tensor, or a numpy
/// integer scalar.
fn is_int_like(o: Borrowed<'_>) -> bool {
    if is_int(o) {
        return true;
    }
    match unpack(o) {
        Some(t) => t.dim() == 0 && t.dtype().is_integral(),
        None => numpy::is_numpy_int(o),
    }
}

/// The value of a number argument: a Python number, or a numpy scalar (torch accepts both).
fn scalar_of(o: Borrowed<'_>) -> PyResult<Scalar> {
    if !is_number(o) && numpy::is_numpy_scalar(o) {
        return Ok(numpy::scalar_value(o)?.0);
    }
    convert::number_to_scalar(o)
}

/// Whether `o` binds to a parameter of type `ty`. `Err(msg)` explains an int list element.
fn check_type(
    p: &FunctionParameter,
    o: Borrowed<'_>,
    numbers_as_tensors: bool,
) -> Result<(), Option<String>> {
    // SAFETY: identity comparison with the `None` singleton.
    if p.optional && o.as_ptr() == unsafe { ffi::Py_None() } {
        return Ok(());
    }
    let ok = match p.ty {
        ParamType::Tensor => {
            is_tensor(o)
                || (numbers_as_tensors
                    && !p.no_numbers
                    && (is_number(o) || numpy::is_numpy_scalar(o)))
                || override_protocol::overrides(o)
        }
        ParamType::Scalar => {
            is_number(o) || unpack(o).is_some_and(|t| t.dim() == 0) || numpy::is_numpy_scalar(o)
        }
        ParamType::Int => is_int_like(o),
        ParamType::Float => {
            is_int_or_bool(o)
                || is_float(o)
                || unpack(o).is_some_and(|t| t.dim() == 0)
                || numpy::is_numpy_scalar(o)
        }
        ParamType::Bool => {
            is_bool(o)
                || unpack(o).is_some_and(|t| t.dim() == 0 && t.dtype() == DType::Bool)
                || numpy::is_numpy_scalar(o)
                    && numpy::scalar_value(o).is_ok_and(|(_, d)| d == DType::Bool)
        }
        ParamType::Str => is_str(o),
        ParamType::ScalarType => unpack_dtype(o).is_some() || python_type_dtype(o).is_some(),
        ParamType::Object => true,
        ParamType::Device => {
            super::device_object::unpack_device(o).is_some() || is_str(o) || convert::is_int(o)
        }
        ParamType::Layout => super::device_object::is_layout(o),
        ParamType::Generator => {
            let tp = GENERATOR_TYPE.load(std::sync::atomic::Ordering::Acquire);
            // SAFETY: type check of a live object against a ready static type (if registered).
            !tp.is_null() && unsafe { ffi::PyObject_TypeCheck(o.as_ptr(), tp) != 0 }
        }
        ParamType::IntList => {
            // SAFETY: type checks of a live object.
            let seq = unsafe {
                ffi::PyList_Check(o.as_ptr()) != 0 || ffi::PyTuple_Check(o.as_ptr()) != 0
            };
            if !seq {
                is_int_like(o)
            } else {
                for (i, &item) in sequence_items(o).iter().enumerate() {
                    // SAFETY: a borrowed item of the live sequence.
                    let item = unsafe { Borrowed::from_ptr(item) };
                    if !is_int_like(item) {
                        // size(): argument 'size' (position 1) must be tuple of ints, but found element of type str at pos 1
                        return Err(Some(format!(
                            "must be tuple of ints, but found element of type {} at pos {}",
                            describe::type_name(item),
                            i
                        )));
                    }
                }
                true
            }
        }
        ParamType::FloatList => {
            // torch's `is_float_or_complex_list`: a list or tuple, empty or with a number first
            // (complex included: it binds, and fails when read); the other items are checked
            // when read (`ParsedArgs::optional_float_list`).
            // SAFETY: type checks of a live object.
            let seq = unsafe {
                ffi::PyList_Check(o.as_ptr()) != 0 || ffi::PyTuple_Check(o.as_ptr()) != 0
            };
            seq && sequence_items(o).first().is_none_or(|&item| {
                // SAFETY: a borrowed item of the live sequence.
                let item = unsafe { Borrowed::from_ptr(item) };
                // SAFETY: type check of a live object.
                is_number(item)
                    || numpy::is_numpy_scalar(item)
                    || unsafe { ffi::PyComplex_Check(item.as_ptr()) != 0 }
            })
        }
        ParamType::TensorList => {
            // SAFETY: type checks of a live object.
            let seq = unsafe {
                ffi::PyList_Check(o.as_ptr()) != 0 || ffi::PyTuple_Check(o.as_ptr()) != 0
            };
            seq && sequence_items(o).iter().all(|&item| {
                // SAFETY: a borrowed item of the live sequence.
                is_tensor(unsafe { Borrowed::from_ptr(item) })
            })
        }
    };
    if ok {
        Ok(())
    } else {
        Err(None)
    }
}

/// The `_C.Generator` type, for `Generator` parameters (set once at module initialisation).
static GENERATOR_TYPE: std::sync::atomic::AtomicPtr<ffi::PyTypeObject> =
    std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());

/// Register the type that `Generator` parameters accept (src/bindings/generator_object.rs).
pub fn register_generator_type(tp: *mut ffi::PyTypeObject) {
    GENERATOR_TYPE.store(tp, std::sync::atomic::Ordering::Release);
}

/// torch accepts the Python types `bool`, `int` and `float` where a dtype is expected.
fn python_type_dtype(o: Borrowed<'_>) -> Option<DType> {
    // Only the addresses of the static builtin type objects are compared.
    let p = o.as_ptr();
    if p == (&raw mut ffi::PyFloat_Type) as *mut ffi::PyObject {
        Some(DType::Float64)
    } else if p == (&raw mut ffi::PyLong_Type) as *mut ffi::PyObject {
        Some(DType::Int64)
    } else if p == (&raw mut ffi::PyBool_Type) as *mut ffi::PyObject {
        Some(DType::Bool)
    } else {
        None
    }
}

impl PythonArgParser {
    /// A parser for `name` with its overloads, in the order they are tried.
    pub const fn new(name: &'static str, signatures: &'static [FunctionSignature]) -> Self {
        assert!(!signatures.is_empty(), "a parser needs a signature");
        PythonArgParser { name, signatures }
    }

    /// Match a vectorcall (`args[..nargs]` positional, then one value per name in `kwnames`)
    /// against the overloads.
    ///
    /// # Safety
    /// `args` points to `nargs + len(kwnames)` live borrowed objects, `kwnames` is NULL or a
    /// tuple of str, as CPython passes them to a `METH_FASTCALL | METH_KEYWORDS` function; they
    /// outlive the returned `ParsedArgs`.
    #[inline(always)]
    pub unsafe fn parse<'a>(
        &'a self,
        storage: &'a mut ArgSlots,
        args: *const *mut ffi::PyObject,
        nargs: ffi::Py_ssize_t,
        kwnames: *mut ffi::PyObject,
    ) -> PyResult<ParsedArgs<'a>> {
        let sigs = self.signatures;
        if kwnames.is_null() && sigs.len() == 1 {
            // SAFETY: forwarded contract (no keywords: `args` holds `nargs` objects).
            if let Some(r) = unsafe { parse_positional(&sigs[0], args, nargs) } {
                return Ok(r);
            }
        }
        // SAFETY: forwarded contract.
        unsafe { self.parse_generic(sigs, storage, args, nargs, kwnames) }
    }

    /// The fast half of `parse` alone: `Some` for a single-signature parser called without
    /// keywords whose arguments certainly bind positionally (`parse_positional`), else `None`
    /// and the caller goes on with `parse_generic`. Inlined into each entry point, so it is
    /// specialised on that entry point's static parser table.
    ///
    /// # Safety
    /// As `parse`.
    #[inline(always)]
    pub unsafe fn parse_fast<'a>(
        &'a self,
        args: *const *mut ffi::PyObject,
        nargs: ffi::Py_ssize_t,
        kwnames: *mut ffi::PyObject,
    ) -> Option<ParsedArgs<'a>> {
        let sigs = self.signatures;
        if kwnames.is_null() && sigs.len() == 1 {
            // SAFETY: forwarded contract (no keywords: `args` holds `nargs` objects).
            return unsafe { parse_positional(&sigs[0], args, nargs) };
        }
        None
    }

    /// `parse` without its fast path, for callers that tried `parse_fast` first.
    ///
    /// # Safety
    /// As `parse`.
    #[inline(always)]
    pub unsafe fn parse_slow<'a>(
        &'a self,
        storage: &'a mut ArgSlots,
        args: *const *mut ffi::PyObject,
        nargs: ffi::Py_ssize_t,
        kwnames: *mut ffi::PyObject,
    ) -> PyResult<ParsedArgs<'a>> {
        // SAFETY: forwarded contract.
        unsafe { self.parse_generic(self.signatures, storage, args, nargs, kwnames) }
    }

    /// `parse` for keywords, several overloads, varargs, subclass or protocol arguments, and
    /// every failure (which reports through this path, so messages come from one place).
    ///
    /// # Safety
    /// As `parse`.
    #[inline(never)]
    unsafe fn parse_generic<'a>(
        &'a self,
        sigs: &'a [FunctionSignature],
        storage: &'a mut ArgSlots,
        args: *const *mut ffi::PyObject,
        nargs: ffi::Py_ssize_t,
        kwnames: *mut ffi::PyObject,
    ) -> PyResult<ParsedArgs<'a>> {
        let kw: &[Borrowed<'_>] = if kwnames.is_null() {
            &[]
        } else {
            // SAFETY: `kwnames` is a live tuple of str (contract); its item array holds non-NULL
            // borrowed pointers, and `Borrowed` is `repr(transparent)` over a non-NULL pointer,
            // so the item array can be read as `[Borrowed]` for as long as the tuple lives.
            unsafe {
                let items = sequence_items(Borrowed::from_ptr(kwnames));
                std::slice::from_raw_parts(items.as_ptr() as *const Borrowed<'_>, items.len())
            }
        };
        let nargs = nargs as usize;
        let total = nargs + kw.len();
        let all: &'a [*mut ffi::PyObject] = if total == 0 {
            &[]
        } else {
            // SAFETY: contract of this function: `args` holds `nargs + len(kwnames)` objects,
            // alive for `'a`.
            unsafe { std::slice::from_raw_parts(args, total) }
        };
        for (idx, sig) in sigs.iter().enumerate() {
            // With several overloads a failed match's message is never shown (the combined
            // "invalid combination" message is): don't format it.
            match self.try_match(sig, &mut storage.0, all, nargs, kw, sigs.len() == 1) {
                Ok((varargs, has_overloaded)) => {
                    return Ok(ParsedArgs {
                        idx,
                        sig,
                        slots: &storage.0[..sig.params.len()],
                        varargs,
                        has_overloaded,
                    })
                }
                // One signature: its own specific message (made once, not matched again).
                Err(msg) if sigs.len() == 1 => return Err(type_error(msg)),
                Err(_) => {}
            }
        }
        Err(self.no_match(sigs, all, kw))
    }

    fn no_match(
        &self,
        sigs: &[FunctionSignature],
        all: &[*mut ffi::PyObject],
        kw: &[Borrowed<'_>],
    ) -> BindError {
        // (One signature reports its own message; see `parse_generic`.)
        // add() received an invalid combination of arguments - got (Tensor, str), but expected one of:
        //  * (Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)
        let mut msg = format!(
            "{}() received an invalid combination of arguments - got ({}), but expected one of:\n",
            self.name,
            describe_call(all, kw)
        );
        for s in sigs {
            msg.push_str(&format!(" * {}\n", s.text()));
        }
        type_error(msg.trim_end().to_string())
    }

    /// Try one overload, binding into `slots` (all of which it overwrites); `Ok` gives the
    /// varargs binding and whether an argument overrides `_C`, `Err(message)` says why the
    /// overload does not bind (an empty message unless `want_msg`).
    #[allow(clippy::type_complexity)]
    fn try_match<'a>(
        &self,
        sig: &FunctionSignature,
        slots: &mut [*mut ffi::PyObject; MAX_PARAMS],
        all: &'a [*mut ffi::PyObject],
        nargs: usize,
        kw: &[Borrowed<'_>],
        want_msg: bool,
    ) -> Result<(Option<(usize, &'a [*mut ffi::PyObject])>, bool), String> {
        let name = self.name;
        *slots = [std::ptr::null_mut(); MAX_PARAMS];
        let mut varargs = None;
        let mut positional = nargs;
        if sig.allow_varargs_intlist && nargs >= 1 {
            // SAFETY: a live argument.
            let first = unsafe { Borrowed::from_ptr(all[0]) };
            if is_int_like(first) {
                for (i, &a) in all[..nargs].iter().enumerate() {
                    // SAFETY: a live argument.
                    let o = unsafe { Borrowed::from_ptr(a) };
                    if !is_int_like(o) {
                        // zeros(): argument 'size' must be tuple of ints, but found element of type str at pos 2
                        if !want_msg {
                            return Err(String::new());
                        }
                        return Err(format!(
                            "{name}(): argument '{}' must be tuple of ints, but found element of type {} at pos {}",
                            sig.params[0].name(),
                            describe::type_name(o),
                            i
                        ));
                    }
                }
                varargs = Some((0, &all[..nargs]));
                slots[0] = all[0];
                positional = 1;
            }
        }
        if let Some(vi) = sig.varargs_tensorlist.filter(|&vi| nargs > vi) {
            // SAFETY: a live argument.
            if is_tensor(unsafe { Borrowed::from_ptr(all[vi]) }) {
                for (k, &a) in all[vi..nargs].iter().enumerate() {
                    // SAFETY: a live argument.
                    let o = unsafe { Borrowed::from_ptr(a) };
                    if !is_tensor(o) {
                        // einsum(): argument 'tensors' must be tuple of Tensors, but found element of type str at pos 1
                        if !want_msg {
                            return Err(String::new());
                        }
                        return Err(format!(
                            "{name}(): argument '{}' must be tuple of Tensors, but found element of type {} at pos {}",
                            sig.params[vi].name(),
                            describe::type_name(o),
                            k
                        ));
                    }
                }
                varargs = Some((vi, &all[vi..nargs]));
                slots[vi] = all[vi];
                positional = vi + 1;
            }
        }
        if varargs.is_none() && nargs > sig.max_pos_args {
            // zeros_like() takes 1 positional argument but 2 were given
            // arange() takes from 1 to 3 positional arguments but 4 were given
            let required = sig
                .params
                .iter()
                .filter(|p| !p.keyword_only && p.required())
                .count();
            let was = if nargs == 1 { "was" } else { "were" };
            if !want_msg {
                return Err(String::new());
            }
            return Err(if required == sig.max_pos_args {
                format!(
                    "{name}() takes {} positional argument{} but {nargs} {was} given",
                    sig.max_pos_args,
                    if sig.max_pos_args == 1 { "" } else { "s" }
                )
            } else {
                format!(
                    "{name}() takes from {required} to {} positional arguments but {nargs} {was} given",
                    sig.max_pos_args
                )
            });
        }
        let mut has_overloaded = false;
        let mut used_kw = 0usize;
        let mut missing: Vec<&str> = Vec::new();
        for (i, p) in sig.params.iter().enumerate() {
            let mut obj: *mut ffi::PyObject = std::ptr::null_mut();
            let mut is_kw = false;
            if i < positional && !p.keyword_only {
                obj = all[i];
            }
            if let Some(k) = find_keyword(kw, p) {
                if !obj.is_null() {
                    // add() got multiple values for argument 'other'
                    if !want_msg {
                        return Err(String::new());
                    }
                    return Err(format!(
                        "{name}() got multiple values for argument '{}'",
                        p.name()
                    ));
                }
                obj = all[nargs + k];
                is_kw = true;
                used_kw += 1;
            }
            if obj.is_null() {
                if p.required() {
                    missing.push(p.name());
                }
                continue;
            }
            if let Some((vi, items)) = varargs.filter(|&(vi, _)| vi == i) {
                // Elements checked above; tensors among them may override `_C`.
                if sig.params[vi].ty == ParamType::TensorList {
                    has_overloaded |= any_overrides(items);
                }
                slots[i] = obj;
                continue;
            }
            // SAFETY: a live argument.
            let o = unsafe { Borrowed::from_ptr(obj) };
            if let Err(detail) = check_type(p, o, sig.numbers_as_tensors) {
                if !want_msg {
                    return Err(String::new());
                }
                let what = detail.unwrap_or_else(|| {
                    format!("must be {}, not {}", p.ty.describe(), describe_value(o))
                });
                // add(): argument 'other' (position 2) must be Tensor, not str
                // sum(): argument 'keepdim' must be bool, not int
                if !want_msg {
                    return Err(String::new());
                }
                return Err(if is_kw {
                    format!("{name}(): argument '{}' {what}", p.name())
                } else {
                    format!(
                        "{name}(): argument '{}' (position {}) {what}",
                        p.name(),
                        i + 1
                    )
                });
            }
            if p.ty == ParamType::Tensor {
                has_overloaded |= override_protocol::overrides(o);
            } else if p.ty == ParamType::TensorList {
                has_overloaded |= any_overrides(sequence_items(o));
            }
            slots[i] = obj;
        }
        if !missing.is_empty() {
            // add() missing 1 required positional argument: "other"
            let list = missing
                .iter()
                .map(|m| format!("\"{m}\""))
                .collect::<Vec<_>>()
                .join(", ");
            if !want_msg {
                return Err(String::new());
            }
            return Err(format!(
                "{name}() missing {} required positional argument{}: {list}",
                missing.len(),
                if missing.len() == 1 { "" } else { "s" }
            ));
        }
        if used_kw < kw.len() {
            for &k in kw {
                if !sig.params.iter().any(|p| keyword_matches(k, p)) {
                    // add() got an unexpected keyword argument 'foo'
                    let kname = convert::str_as_utf8(k).unwrap_or("?");
                    if !want_msg {
                        return Err(String::new());
                    }
                    return Err(format!(
                        "{name}() got an unexpected keyword argument '{kname}'"
                    ));
                }
            }
            // A keyword named a positional-only slot already filled: reported above.
        }
        Ok((varargs, has_overloaded))
    }
}

/// True when any of `items` (live borrowed objects) overrides `_C`.
fn any_overrides(items: &[*mut ffi::PyObject]) -> bool {
    items.iter().any(|&item| {
        // SAFETY: a live borrowed argument or item of a live argument sequence.
        override_protocol::overrides(unsafe { Borrowed::from_ptr(item) })
    })
}

/// The positional fast path of `parse`, for a single-signature parser called without keywords
/// (`_C.add(a, b)`, `_C.zeros((2, 3))`): binds `args[i]` to parameter `i` when that is certainly
/// what the generic matcher would do and the call certainly matches, else `None`, and the
/// generic matcher decides (it also writes every error message, so messages and overload
/// resolution come from one place). An exact `_C.Tensor` bound to a `Tensor` parameter costs
/// one pointer comparison: it never overrides `_C` and needs no subtype check.
///
/// # Safety
/// As `PythonArgParser::parse`, with `kwnames` NULL: `args` holds `nargs` live borrowed objects
/// that outlive the result.
#[inline(always)]
unsafe fn parse_positional<'a>(
    sig: &'a FunctionSignature,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
) -> Option<ParsedArgs<'a>> {
    let min = sig.fast_min_args?;
    let nargs = nargs as usize;
    if nargs < min || nargs > sig.max_pos_args {
        return None;
    }
    let all: &'a [*mut ffi::PyObject] = if nargs == 0 {
        &[]
    } else {
        // SAFETY: contract: `args` holds `nargs` live objects.
        unsafe { std::slice::from_raw_parts(args, nargs) }
    };
    if sig.allow_varargs_intlist && nargs >= 1 {
        // `zeros(2, 3)` binds ints as varargs (generic path); a tuple or list is one argument.
        // SAFETY: type checks of a live argument.
        let seq = unsafe { ffi::PyTuple_Check(all[0]) != 0 || ffi::PyList_Check(all[0]) != 0 };
        if !seq {
            return None;
        }
    }
    let tensor_tp = tensor_type();
    for (&a, p) in all.iter().zip(sig.params) {
        // SAFETY: a live argument.
        let o = unsafe { Borrowed::from_ptr(a) };
        let exact_tensor = p.ty == ParamType::Tensor && o.type_ptr() == tensor_tp;
        if !exact_tensor && !binds_without_override(p, o, sig.numbers_as_tensors) {
            return None;
        }
    }
    Some(ParsedArgs {
        idx: 0,
        sig,
        slots: all,
        varargs: None,
        has_overloaded: false,
    })
}

/// For `parse_positional`, an argument other than an exact `_C.Tensor` for a `Tensor`
/// parameter: whether it binds to `p` and does not override `_C` (kept out of line so the
/// common loop stays a few instructions).
#[inline(never)]
fn binds_without_override(
    p: &FunctionParameter,
    o: Borrowed<'_>,
    numbers_as_tensors: bool,
) -> bool {
    // The fast parse runs outside the trampoline (Note [One trampoline per signature kind]):
    // a panic here must not unwind into CPython. It declines instead, and the generic parse
    // repeats the check under the trampoline, where the panic becomes a RuntimeError.
    std::panic::catch_unwind(|| {
        if check_type(p, o, numbers_as_tensors).is_err() {
            return false;
        }
        !match p.ty {
            ParamType::Tensor => override_protocol::overrides(o),
            ParamType::TensorList => any_overrides(sequence_items(o)),
            _ => false,
        }
    })
    .unwrap_or(false)
}

/// Identity first (interned names), then string equality (numpy's `npy_argparse` habit).
#[inline]
fn keyword_matches(k: Borrowed<'_>, p: &FunctionParameter) -> bool {
    if p.positional_only {
        return false;
    }
    if k.as_ptr() == p.keyword.interned() {
        return true;
    }
    // SAFETY: `k` is a live str (a keyword name) and `c_name` a NUL-terminated ASCII name;
    // returns 0 when equal, and cannot fail.
    unsafe { ffi::PyUnicode_CompareWithASCIIString(k.as_ptr(), p.keyword.c_name.as_ptr()) == 0 }
}

#[inline]
fn find_keyword(kw: &[Borrowed<'_>], p: &FunctionParameter) -> Option<usize> {
    if p.positional_only {
        return None;
    }
    let interned = p.keyword.interned();
    kw.iter()
        .position(|&k| k.as_ptr() == interned)
        .or_else(|| kw.iter().position(|&k| keyword_matches(k, p)))
}

impl<'a> ParsedArgs<'a> {
    #[inline(always)]
    fn slot(&self, i: usize) -> Option<Borrowed<'a>> {
        let p = self.raw(i);
        // SAFETY: identity comparison with the `None` singleton.
        if p.is_null() || p == unsafe { ffi::Py_None() } {
            None
        } else {
            // SAFETY: a non-NULL slot is a live argument borrowed from the caller for `'a`.
            Some(unsafe { Borrowed::from_ptr(p) })
        }
    }

    /// The argument bound to parameter `i`, or NULL (omitted).
    #[inline(always)]
    fn raw(&self, i: usize) -> *mut ffi::PyObject {
        self.slots.get(i).copied().unwrap_or(std::ptr::null_mut())
    }

    fn param(&self, i: usize) -> &'a FunctionParameter {
        &self.sig.params[i]
    }

    /// Whether an argument overrides `_C` (then dispatch through the protocol with
    /// `overloaded()` instead of running the op).
    #[inline(always)]
    pub fn has_overloaded(&self) -> bool {
        self.has_overloaded
    }

    /// The arguments that override `_C`, in dispatch order: recorded again from the bound
    /// arguments, in the order the matcher visited them (parameters in order, sequence items
    /// in order), so the list is the one torch's parser builds while matching.
    pub fn overloaded(&self) -> Overloaded {
        let mut ov = Overloaded::new();
        if !self.has_overloaded {
            return ov;
        }
        /// Record those of `items` that override (`push` takes its own reference to each).
        ///
        /// # Safety
        /// `items` are live arguments (or items of live argument sequences), and no Python code
        /// runs while they are read.
        unsafe fn push_all(ov: &mut Overloaded, items: &[*mut ffi::PyObject]) {
            for &item in items {
                // SAFETY: contract.
                let item = unsafe { Borrowed::from_ptr(item) };
                if override_protocol::overrides(item) {
                    ov.push(item);
                }
            }
        }
        for (i, p) in self.sig.params.iter().enumerate() {
            if let Some((_, items)) = self.varargs.filter(|&(vi, _)| vi == i) {
                if p.ty == ParamType::TensorList {
                    // SAFETY: varargs are live arguments borrowed for `'a`.
                    unsafe { push_all(&mut ov, items) };
                }
                continue;
            }
            let obj = self.raw(i);
            if obj.is_null() {
                continue;
            }
            if p.ty == ParamType::Tensor {
                // SAFETY: a non-NULL slot is a live argument borrowed from the caller for `'a`.
                unsafe { push_all(&mut ov, &[obj]) };
            } else if p.ty == ParamType::TensorList {
                // SAFETY: as above; the items of a live list/tuple argument, read and owned at
                // once (`overrides` and `push` run no Python code).
                unsafe { push_all(&mut ov, sequence_items(Borrowed::from_ptr(obj))) };
            }
        }
        ov
    }

    /// `Tensor` parameter `i`: borrowed in place, or a wrapped number when numbers are allowed.
    /// An exact `_C.Tensor` is recognised by one pointer comparison.
    #[inline(always)]
    pub fn tensor(&self, i: usize) -> PyResult<TensorArg<'a>> {
        let p = self.raw(i);
        // SAFETY: a non-NULL slot is a live argument; reading its type is a field load.
        if !p.is_null() && unsafe { ffi::Py_TYPE(p) } == tensor_type() {
            // SAFETY: an exact `_C.Tensor` (checked just above), borrowed for `'a`.
            return Ok(TensorArg::Borrowed(unsafe {
                tensor_ref(Borrowed::from_ptr(p))
            }));
        }
        self.tensor_generic(i)
    }

    #[inline(never)]
    fn tensor_generic(&self, i: usize) -> PyResult<TensorArg<'a>> {
        match self.optional_tensor(i)? {
            Some(t) => Ok(t),
            None => Err(type_error(format!(
                "{}(): argument '{}' must be Tensor, not None",
                self.sig.name,
                self.param(i).name()
            ))),
        }
    }

    /// `Tensor?` parameter `i` (`None` when omitted or `None`).
    pub fn optional_tensor(&self, i: usize) -> PyResult<Option<TensorArg<'a>>> {
        let Some(o) = self.slot(i) else {
            return Ok(None);
        };
        if is_tensor(o) {
            // SAFETY: checked just above.
            return Ok(Some(TensorArg::Borrowed(unsafe { tensor_ref(o) })));
        }
        if self.sig.one_number {
            self.check_one_number(i)?;
        }
        let s = scalar_of(o)?;
        Ok(Some(TensorArg::Owned(Tensor::wrapped_scalar(s)?)))
    }

    /// `numbers_as_tensors: one`, with a number bound to `Tensor` parameter `i`: another
    /// number bound to a `Tensor` parameter is torch's TypeError (no overload takes two).
    #[inline(never)]
    fn check_one_number(&self, i: usize) -> PyResult<()> {
        let is_num = |j: usize| {
            self.sig.params[j].ty == ParamType::Tensor
                && self
                    .slot(j)
                    .is_some_and(|o| !is_tensor(o) && !override_protocol::overrides(o))
        };
        if !(0..self.sig.params.len()).any(|j| j != i && is_num(j)) {
            return Ok(());
        }
        // xlogy() received an invalid combination of arguments - got (int, int), but expected one of:
        //  * (Tensor input, Tensor other, *, Tensor out = None)
        //  * (Number self, Tensor other, *, Tensor out = None)
        //  * (Tensor input, Number other, *, Tensor out = None)
        let got: Vec<String> = (0..self.sig.params.len())
            .filter_map(|j| self.slot(j))
            .map(describe_value)
            .collect();
        let mut msg = format!(
            "{}() received an invalid combination of arguments - got ({}), but expected one of:\n * {}\n",
            self.sig.name,
            got.join(", "),
            self.sig.text()
        );
        for (k, p) in self.sig.params.iter().enumerate() {
            if p.ty == ParamType::Tensor && !p.keyword_only && !p.no_numbers {
                msg.push_str(&format!(" * {}\n", self.sig.text_with_number(k)));
            }
        }
        Err(type_error(msg.trim_end().to_string()))
    }

    /// The Python object passed for parameter `i`, if any and not `None` (for `out=`).
    pub fn object(&self, i: usize) -> Option<Borrowed<'a>> {
        self.slot(i)
    }

    /// `Scalar` parameter `i` (a number, or a 0-dim tensor's value). An omitted argument takes
    /// the default precomputed with the signature.
    #[inline(always)]
    pub fn scalar(&self, i: usize) -> PyResult<Scalar> {
        match self.slot(i) {
            Some(o) => match unpack(o) {
                Some(t) => Ok(t.item()?),
                None => scalar_of(o),
            },
            None => match self.param(i).default_scalar {
                Some(s) => Ok(s),
                None => Err(self.bad_default(i, &self.param(i).default)),
            },
        }
    }

    /// `Scalar?` parameter `i`.
    pub fn optional_scalar(&self, i: usize) -> PyResult<Option<Scalar>> {
        if self.slot(i).is_none() && self.param(i).default == DefaultValue::None {
            return Ok(None);
        }
        self.scalar(i).map(Some)
    }

    /// `int` parameter `i`.
    pub fn int(&self, i: usize) -> PyResult<i64> {
        match self.slot(i) {
            Some(o) => int_value(o),
            None => match &self.param(i).default {
                DefaultValue::Int(v) => Ok(*v),
                d => Err(self.bad_default(i, d)),
            },
        }
    }

    /// `int?` parameter `i`.
    pub fn optional_int(&self, i: usize) -> PyResult<Option<i64>> {
        match self.slot(i) {
            Some(o) => int_value(o).map(Some),
            None => match &self.param(i).default {
                DefaultValue::Int(v) => Ok(Some(*v)),
                _ => Ok(None),
            },
        }
    }

    /// `float?` parameter `i`: `None` when absent or `None`.
    pub fn optional_float(&self, i: usize) -> PyResult<Option<f64>> {
        match self.slot(i) {
            Some(_) => self.float(i).map(Some),
            None => match &self.param(i).default {
                DefaultValue::Float(v) => Ok(Some(*v)),
                DefaultValue::Int(v) => Ok(Some(*v as f64)),
                _ => Ok(None),
            },
        }
    }

    /// `float` parameter `i`.
    pub fn float(&self, i: usize) -> PyResult<f64> {
        match self.slot(i) {
            Some(o) => match unpack(o) {
                Some(t) => Ok(t.item()?.to_f64()),
                None => convert::to_f64(o),
            },
            None => match &self.param(i).default {
                DefaultValue::Float(v) => Ok(*v),
                DefaultValue::Int(v) => Ok(*v as f64),
                d => Err(self.bad_default(i, d)),
            },
        }
    }

    /// `bool` parameter `i`.
    pub fn bool(&self, i: usize) -> PyResult<bool> {
        match self.slot(i) {
            Some(o) => match unpack(o) {
                Some(t) => Ok(t.item()?.to_bool()),
                // SAFETY: identity comparison with the `True` singleton.
                None if is_bool(o) => Ok(o.as_ptr() == unsafe { ffi::Py_True() }),
                None => Ok(scalar_of(o)?.to_bool()),
            },
            None => match &self.param(i).default {
                DefaultValue::Bool(v) => Ok(*v),
                d => Err(self.bad_default(i, d)),
            },
        }
    }

    /// `str` parameter `i`, borrowed from the argument.
    pub fn string(&self, i: usize) -> PyResult<&'a str> {
        match self.optional_string(i)? {
            Some(s) => Ok(s),
            None => Err(self.bad_default(i, &self.param(i).default)),
        }
    }

    /// `str?` parameter `i`: the argument, else the default (`None`, or a `'static` string of
    /// the generated table).
    pub fn optional_string(&self, i: usize) -> PyResult<Option<&'a str>> {
        match self.slot(i) {
            Some(o) => convert::str_as_utf8(o).map(Some).map_err(|_| {
                // div(): argument 'rounding_mode' is a str with no UTF-8 form (error unpacking string as utf-8)
                runtime_error(format!(
                    "{}(): argument '{}' is a str with no UTF-8 form (error unpacking string as utf-8)",
                    self.sig.name,
                    self.param(i).name()
                ))
            }),
            None => match &self.param(i).default {
                DefaultValue::Str(s) => Ok(Some(s)),
                _ => Ok(None),
            },
        }
    }

    /// `int[]` parameter `i`: varargs ints, a tuple/list of ints, or a lone int.
    pub fn int_list(&self, i: usize) -> PyResult<IntList> {
        match self.optional_int_list(i)? {
            Some(v) => Ok(v),
            None => Err(self.bad_default(i, &self.param(i).default)),
        }
    }

    /// `int[]?` parameter `i`.
    pub fn optional_int_list(&self, i: usize) -> PyResult<Option<IntList>> {
        if i == 0 {
            if let Some((0, items)) = self.varargs {
                return IntList::collect(
                    items
                        .iter()
                        // SAFETY: live borrowed arguments.
                        .map(|&p| int_value(unsafe { Borrowed::from_ptr(p) })),
                )
                .map(Some);
            }
        }
        match self.slot(i) {
            Some(o) => {
                // SAFETY: type checks of a live object.
                let seq = unsafe {
                    ffi::PyList_Check(o.as_ptr()) != 0 || ffi::PyTuple_Check(o.as_ptr()) != 0
                };
                if !seq && is_int_like(o) {
                    return IntList::collect(std::iter::once(int_value(o))).map(Some);
                }
                IntList::collect(
                    sequence_items(o)
                        .iter()
                        // SAFETY: borrowed items of a live list/tuple.
                        .map(|&p| int_value(unsafe { Borrowed::from_ptr(p) })),
                )
                .map(Some)
            }
            None => match &self.param(i).default {
                DefaultValue::IntList(v) => Ok(Some(IntList::from_slice(v))),
                DefaultValue::Int(v) => Ok(Some(IntList::from_slice(&[*v]))),
                _ => Ok(None),
            },
        }
    }

    /// `float[]` parameter `i`.
    pub fn float_list(&self, i: usize) -> PyResult<Vec<f64>> {
        match self.optional_float_list(i)? {
            Some(v) => Ok(v),
            None => Err(self.bad_default(i, &self.param(i).default)),
        }
    }

    /// `float[]?` parameter `i`: the items of a list or tuple, each a number, a numpy scalar or a
    /// one-element tensor (torch's `doublelist`); TypeError "histogram(): argument 'range' must
    /// be tuple of floats, but found element of type str at pos 2" (1-based) for another item.
    pub fn optional_float_list(&self, i: usize) -> PyResult<Option<Vec<f64>>> {
        let Some(o) = self.slot(i) else {
            return Ok(None);
        };
        // Our own references: reading a numpy scalar or a tensor may run Python code.
        let items: Vec<_> = sequence_items(o)
            .iter()
            // SAFETY: borrowed items of a live list/tuple, each taken as a new reference.
            .map(|&p| unsafe { Borrowed::from_ptr(p) }.to_owned())
            .collect();
        let mut values = Vec::with_capacity(items.len());
        for (k, item) in items.iter().enumerate() {
            let item = item.as_borrowed();
            let v = if let Some(t) = unpack(item) {
                t.item()?.to_f64()
            } else if is_number(item) || numpy::is_numpy_scalar(item) {
                scalar_of(item)?.to_f64()
            } else {
                return Err(type_error(format!(
                    "{}(): argument '{}' must be tuple of floats, but found element of type {} at pos {}",
                    self.sig.name,
                    self.param(i).name(),
                    describe::type_name(item),
                    k + 1
                )));
            };
            values.push(v);
        }
        Ok(Some(values))
    }

    /// `ScalarType` parameter `i`.
    pub fn scalar_type(&self, i: usize) -> PyResult<DType> {
        match self.optional_scalar_type(i)? {
            Some(d) => Ok(d),
            None => Err(self.bad_default(i, &self.param(i).default)),
        }
    }

    /// `ScalarType?` parameter `i`.
    pub fn optional_scalar_type(&self, i: usize) -> PyResult<Option<DType>> {
        Ok(self
            .slot(i)
            .and_then(|o| unpack_dtype(o).or_else(|| python_type_dtype(o))))
    }

    /// `Device?` parameter `i`, checked and dropped (Note [Devices]): Ok when absent, None or
    /// the CPU; RuntimeError for another device or a malformed device string.
    pub fn check_device(&self, i: usize) -> PyResult<()> {
        match self.slot(i) {
            Some(o) => {
                let d = super::device_object::device_of(o, "device")?;
                super::device_object::require_cpu(self.sig.name, d)
            }
            None => Ok(()),
        }
    }

    /// `bool pin_memory` parameter `i`, checked and dropped (Note [Devices]): True is refused.
    pub fn check_pin_memory(&self, i: usize) -> PyResult<()> {
        let pinned = match self.slot(i) {
            Some(_) => self.bool(i)?,
            None => false,
        };
        if pinned {
            return Err(super::errors::runtime_error(format!(
                "{}(): pin_memory=True needs an accelerator; tensorbind has the CPU only",
                self.sig.name
            )));
        }
        Ok(())
    }

    /// `Tensor[]` parameter `i`: new handles to the tensors (no data copied).
    pub fn tensor_list(&self, i: usize) -> PyResult<Vec<Tensor>> {
        let items = match self.varargs {
            Some((vi, items)) if vi == i => items,
            _ => match self.slot(i) {
                Some(o) => sequence_items(o),
                None => return Err(self.bad_default(i, &self.param(i).default)),
            },
        };
        Ok(items
            .iter()
            // SAFETY: borrowed items checked to be tensors by `check_type`.
            .map(|&p| unsafe { tensor_ref(Borrowed::from_ptr(p)) }.clone())
            .collect())
    }

    fn bad_default(&self, i: usize, d: &DefaultValue) -> BindError {
        BindError::Core(crate::core::Error::runtime(format!(
            "tensorbind internal error: {}(): parameter '{}' has no usable default ({d:?})",
            self.sig.name,
            self.param(i).name()
        )))
    }
}

/// The value of an int-like argument (a Python int, or a 0-dim integral tensor).
fn int_value(o: Borrowed<'_>) -> PyResult<i64> {
    match unpack(o) {
        Some(t) => Ok(t.item()?.to_i64()),
        None => convert::to_i64(o),
    }
}
