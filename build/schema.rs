//! build/schema.rs: the op schema's model and its reader — the YAML subset of
//! src/native_functions.yaml, torch's `func` grammar parsed into types, defaults and alias
//! annotations, and our own keys (torchgen: `model.py`). This is the one parser of the grammar:
//! the runtime argument parser only reads the static tables generated from this model, and a
//! malformed entry fails the build with a message naming it.

use std::collections::BTreeMap;
use std::fmt;

// ----- types ------------------------------------------------------------------------------------

/// The base of a schema type (`int` of `int[2]?`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BaseTy {
    Tensor,
    Scalar,
    /// `int` and `SymInt` (we have no symbolic sizes).
    Int,
    Float,
    Bool,
    Str,
    ScalarType,
    Generator,
    /// torch's `Device` and `Layout`: checked by the binding and not passed to the core
    /// (src/bindings/device_object.rs, Note [Devices]).
    Device,
    Layout,
    /// `PyObject*`: any Python object, converted by hand-written code (ours, not torch's).
    PyObject,
}

impl BaseTy {
    fn parse(s: &str) -> Option<BaseTy> {
        Some(match s {
            "Tensor" => BaseTy::Tensor,
            "Scalar" => BaseTy::Scalar,
            "int" | "SymInt" => BaseTy::Int,
            "float" => BaseTy::Float,
            "bool" => BaseTy::Bool,
            "str" => BaseTy::Str,
            "ScalarType" => BaseTy::ScalarType,
            "Generator" => BaseTy::Generator,
            "Device" => BaseTy::Device,
            "Layout" => BaseTy::Layout,
            "PyObject*" => BaseTy::PyObject,
            _ => return None,
        })
    }

    fn schema_name(self) -> &'static str {
        match self {
            BaseTy::Tensor => "Tensor",
            BaseTy::Scalar => "Scalar",
            BaseTy::Int => "int",
            BaseTy::Float => "float",
            BaseTy::Bool => "bool",
            BaseTy::Str => "str",
            BaseTy::ScalarType => "ScalarType",
            BaseTy::Generator => "Generator",
            BaseTy::Device => "Device",
            BaseTy::Layout => "Layout",
            BaseTy::PyObject => "PyObject*",
        }
    }
}

/// torch's alias annotation: `Tensor(a)` (the result aliases this argument: a view),
/// `Tensor(a!)` (written in place), `Tensor(a -> *)` (each element of a `Tensor(a)[]` result
/// aliases this argument).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Alias {
    pub(crate) set: String,
    pub(crate) mutable: bool,
}

/// A parameter or return type: `Tensor(a!)`, `int[1]?`, `Tensor[]`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Type {
    pub(crate) base: BaseTy,
    /// `[]` (`Some(None)`) or `[N]` (`Some(Some(N))`): a list; only of `int` and `Tensor`, and
    /// `float[]` (no fixed size: torch's `float[]?` of `histogram`'s `range=`).
    pub(crate) list: Option<Option<usize>>,
    /// `?`: `None` is accepted.
    pub(crate) optional: bool,
    pub(crate) alias: Option<Alias>,
}

impl Type {
    /// `int`, `Tensor?`, `int[1]`: the grammar `BASE[(ALIAS)][[N]][?]`.
    fn parse(s: &str) -> Result<Type, String> {
        let (s, optional) = match s.strip_suffix('?') {
            Some(b) => (b, true),
            None => (s, false),
        };
        let (s, list) = match s.strip_suffix(']') {
            Some(b) => {
                let (b, n) = b
                    .rsplit_once('[')
                    .ok_or_else(|| format!("type {s:?}: ']' without '['"))?;
                let n = if n.is_empty() {
                    None
                } else {
                    Some(
                        n.parse::<usize>()
                            .map_err(|_| format!("type {s:?}: list size {n:?} is not a number"))?,
                    )
                };
                (b, Some(n))
            }
            None => (s, None),
        };
        let (s, alias) = match s.strip_suffix(')') {
            Some(b) => {
                let (b, a) = b
                    .split_once('(')
                    .ok_or_else(|| format!("type {s:?}: ')' without '('"))?;
                let a = a.strip_suffix(" -> *").unwrap_or(a);
                let (set, mutable) = match a.strip_suffix('!') {
                    Some(set) => (set, true),
                    None => (a, false),
                };
                if set.is_empty() || !set.chars().all(|c| c.is_ascii_lowercase()) {
                    return Err(format!(
                        "alias annotation ({a}) is not an alias set like (a)"
                    ));
                }
                (
                    b,
                    Some(Alias {
                        set: set.to_string(),
                        mutable,
                    }),
                )
            }
            None => (s, None),
        };
        let base = BaseTy::parse(s).ok_or_else(|| format!("unknown type {s:?}"))?;
        if list.is_some() && !matches!(base, BaseTy::Int | BaseTy::Tensor | BaseTy::Float) {
            return Err(format!(
                "lists of {s} are not supported (only int[], float[] and Tensor[])"
            ));
        }
        if base == BaseTy::Float && matches!(list, Some(Some(_))) {
            return Err(format!(
                "{s}[N]: a fixed size is only meaningful for int[N], N > 0"
            ));
        }
        if list == Some(Some(0)) || (base == BaseTy::Tensor && matches!(list, Some(Some(_)))) {
            return Err(format!(
                "{s}[N]: a fixed size is only meaningful for int[N], N > 0"
            ));
        }
        if alias.is_some() && base != BaseTy::Tensor {
            return Err(format!("alias annotation on {s}: only tensors alias"));
        }
        Ok(Type {
            base,
            list,
            optional,
            alias,
        })
    }

    pub(crate) fn is_tensor(&self) -> bool {
        self.base == BaseTy::Tensor && self.list.is_none()
    }
    pub(crate) fn is_tensor_list(&self) -> bool {
        self.base == BaseTy::Tensor && self.list.is_some()
    }
    pub(crate) fn is_int_list(&self) -> bool {
        self.base == BaseTy::Int && self.list.is_some()
    }
}

impl fmt::Display for Type {
    /// The schema spelling without the alias annotation (`int[1]?`), as the parser spec had it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.base.schema_name())?;
        match self.list {
            Some(Some(n)) => write!(f, "[{n}]")?,
            Some(None) => f.write_str("[]")?,
            None => {}
        }
        if self.optional {
            f.write_str("?")?;
        }
        Ok(())
    }
}

// ----- defaults ---------------------------------------------------------------------------------

/// A default value, parsed at build time (the generated tables hold it as data).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum DefaultValue {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    IntList(Vec<i64>),
}

/// A parameter's default: its value and the literal as written (`1e-05`, `[]`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Default {
    pub(crate) value: DefaultValue,
    pub(crate) text: String,
}

impl Default {
    fn parse(s: &str) -> Result<Default, String> {
        let value = match s {
            "None" => DefaultValue::None,
            "True" => DefaultValue::Bool(true),
            "False" => DefaultValue::Bool(false),
            _ if s.starts_with('[') => {
                let inner = s
                    .strip_prefix('[')
                    .and_then(|x| x.strip_suffix(']'))
                    .ok_or_else(|| format!("default {s:?}: unclosed list"))?
                    .trim();
                if inner.is_empty() {
                    DefaultValue::IntList(vec![])
                } else {
                    DefaultValue::IntList(
                        inner
                            .split(',')
                            .map(|x| x.trim().parse::<i64>())
                            .collect::<Result<_, _>>()
                            .map_err(|_| format!("default {s:?}: not a list of ints"))?,
                    )
                }
            }
            _ if s.len() >= 2
                && (s.starts_with('\'') && s.ends_with('\'')
                    || s.starts_with('"') && s.ends_with('"')) =>
            {
                DefaultValue::Str(s[1..s.len() - 1].to_string())
            }
            _ => {
                if let Ok(i) = s.parse::<i64>() {
                    DefaultValue::Int(i)
                } else {
                    DefaultValue::Float(
                        s.parse::<f64>()
                            .map_err(|_| format!("default {s:?} is not a Python literal"))?,
                    )
                }
            }
        };
        Ok(Default {
            value,
            text: s.to_string(),
        })
    }

    /// The default as a Python literal (`[]` → `()`, `[1]` → `(1,)`).
    pub(crate) fn python(&self) -> String {
        match &self.value {
            DefaultValue::IntList(v) if v.is_empty() => "()".into(),
            DefaultValue::IntList(v) if v.len() == 1 => format!("({},)", v[0]),
            DefaultValue::IntList(v) => format!(
                "({})",
                v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
            ),
            _ => self.text.clone(),
        }
    }

    /// Whether this default suits a parameter of type `ty` (checked at build time).
    fn fits(&self, ty: &Type) -> bool {
        match (&self.value, ty.base) {
            (DefaultValue::None, _) => ty.optional,
            (DefaultValue::IntList(_), BaseTy::Int) => ty.list.is_some(),
            (DefaultValue::Int(_), BaseTy::Int) => true,
            (_, _) if ty.list.is_some() => false,
            (DefaultValue::Bool(_), BaseTy::Bool | BaseTy::Scalar) => true,
            (DefaultValue::Int(_), BaseTy::Scalar | BaseTy::Float) => true,
            (DefaultValue::Float(_), BaseTy::Scalar | BaseTy::Float) => true,
            (DefaultValue::Str(_), BaseTy::Str) => true,
            _ => false,
        }
    }
}

// ----- the func line ----------------------------------------------------------------------------

/// One argument of a `func:` line.
#[derive(Clone, Debug)]
pub(crate) struct Arg {
    pub(crate) ty: Type,
    pub(crate) name: String,
    pub(crate) default: Option<Default>,
    pub(crate) kwarg_only: bool,
}

/// What a `func:` line returns.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Returns {
    /// `()`.
    Nothing,
    /// One value: `Tensor`, `Tensor(a)`, `Tensor(a!)`, `Tensor(a)[]`, `Scalar`, `int`, `int[]`, ...
    One(Type),
    /// A named tuple: `(Tensor values, Tensor indices)` (torch: `torch.return_types.<op>`).
    Named(Vec<String>),
}

/// A parsed `func:` line: `name[.overload](args) -> returns` (torch's `FunctionSchema`).
#[derive(Clone, Debug)]
pub(crate) struct FunctionSchema {
    pub(crate) name: String,
    pub(crate) overload: Option<String>,
    pub(crate) args: Vec<Arg>,
    pub(crate) returns: Returns,
}

impl FunctionSchema {
    pub(crate) fn parse(func: &str) -> Result<FunctionSchema, String> {
        let (sig, ret) = func
            .rsplit_once(" -> ")
            .ok_or("no ' -> ' before the return type")?;
        let open = sig.find('(').ok_or("no '('")?;
        let full_name = &sig[..open];
        let (name, overload) = match full_name.split_once('.') {
            Some((n, o)) => (n.to_string(), Some(o.to_string())),
            None => (full_name.to_string(), None),
        };
        let ident = |s: &str| {
            !s.is_empty()
                && !s.starts_with(|c: char| c.is_ascii_digit())
                && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        if !ident(&name) || overload.as_deref().is_some_and(|o| !ident(o)) {
            return Err(format!("{full_name:?} is not `name` or `name.overload`"));
        }
        let body = sig[open + 1..]
            .strip_suffix(')')
            .ok_or("the arguments do not end with ')'")?;
        let mut args: Vec<Arg> = Vec::new();
        let mut kwarg_only = false;
        for a in split_top_level(body) {
            if a == "*" {
                if kwarg_only {
                    return Err("two '*'".into());
                }
                kwarg_only = true;
                continue;
            }
            let (decl, default) = match a.split_once('=') {
                Some((d, v)) => (d, Some(Default::parse(v)?)),
                None => (a, None),
            };
            let (ty, aname) = decl
                .rsplit_once(' ')
                .ok_or_else(|| format!("argument {a:?} is not `Type name`"))?;
            let ty = Type::parse(ty).map_err(|e| format!("argument {aname:?}: {e}"))?;
            if !ident(aname) {
                return Err(format!("argument name {aname:?}"));
            }
            if args.iter().any(|x| x.name == aname) {
                return Err(format!("argument {aname:?} appears twice"));
            }
            if let Some(d) = &default {
                if !d.fits(&ty) {
                    return Err(format!(
                        "argument {aname:?}: default {} does not fit type {ty}",
                        d.text
                    ));
                }
            } else if !kwarg_only && args.iter().any(|x| x.default.is_some() && !x.kwarg_only) {
                return Err(format!(
                    "argument {aname:?}: a positional argument without a default follows one with a default"
                ));
            }
            args.push(Arg {
                ty,
                name: aname.to_string(),
                default,
                kwarg_only,
            });
        }
        let ret = ret.trim();
        let returns = if ret == "()" {
            Returns::Nothing
        } else if let Some(inner) = ret.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
            let fields = inner
                .split(", ")
                .map(|f| f.strip_prefix("Tensor ").map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| format!("return {ret:?}: only named tuples of tensors"))?;
            Returns::Named(fields)
        } else {
            let ty = Type::parse(ret).map_err(|e| format!("return: {e}"))?;
            if ty.optional {
                return Err(format!(
                    "return {ret:?}: optional returns are not supported"
                ));
            }
            Returns::One(ty)
        };
        Ok(FunctionSchema {
            name,
            overload,
            args,
            returns,
        })
    }

    /// The returned type, when one value is returned.
    pub(crate) fn ret(&self) -> Option<&Type> {
        match &self.returns {
            Returns::One(t) => Some(t),
            _ => None,
        }
    }

    /// The `self` argument, if any.
    pub(crate) fn self_arg(&self) -> Option<&Arg> {
        self.args.iter().find(|a| a.name == "self")
    }

    /// A view: the result (or each element of a returned list) aliases an argument without
    /// writing it, as torch's `transpose(Tensor(a) self, ...) -> Tensor(a)` says.
    pub(crate) fn is_view(&self) -> bool {
        match self.ret().and_then(|t| t.alias.as_ref()) {
            Some(r) if !r.mutable => self.args.iter().any(|a| {
                a.ty.alias
                    .as_ref()
                    .is_some_and(|x| x.set == r.set && !x.mutable)
            }),
            _ => false,
        }
    }

    /// In place: the result is an argument written in place (`Tensor(a!) self -> Tensor(a!)`).
    pub(crate) fn is_inplace(&self) -> bool {
        match self.ret().and_then(|t| t.alias.as_ref()) {
            Some(r) => r.mutable,
            None => false,
        }
    }

    fn check_aliases(&self) -> Result<(), String> {
        let ret_alias = self.ret().and_then(|t| t.alias.clone());
        for a in &self.args {
            if let Some(al) = &a.ty.alias {
                if ret_alias.as_ref() != Some(al) {
                    return Err(format!(
                        "argument {:?} is annotated ({}{}) but the return is not",
                        a.name,
                        al.set,
                        if al.mutable { "!" } else { "" }
                    ));
                }
            }
        }
        if let Some(r) = &ret_alias {
            if !self.args.iter().any(|a| a.ty.alias.as_ref() == Some(r)) {
                return Err(format!(
                    "the return is annotated ({}) but no argument is",
                    r.set
                ));
            }
            if r.mutable && self.ret().is_some_and(|t| t.list.is_some()) {
                return Err("a list return cannot be written in place".into());
            }
        }
        Ok(())
    }
}

/// `body` split at the commas outside brackets and quotes (`int[1] d=[0, 1], *` → two parts).
fn split_top_level(body: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, None::<char>, 0);
    for (i, c) in body.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '[' | '(') => depth += 1,
            (None, ']' | ')') => depth -= 1,
            (None, ',') if depth == 0 => {
                parts.push(body[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(body[start..].trim());
    parts.retain(|p| !p.is_empty());
    parts
}

// ----- entries ----------------------------------------------------------------------------------

/// The schema's `release_gil` key, or what a view implies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ReleaseGil {
    /// Keep the GIL: `release_gil: False` (metadata, whose cost does not grow with the data),
    /// and every view (derived from the alias annotations).
    Never,
    /// The default: elements of all tensor arguments (`gil::elementwise_worth`).
    Elements,
    /// `matmul`: multiply-adds of the first two tensor arguments (`gil::matmul_worth`).
    Matmul,
}

/// A binding written by hand (`manual_binding: CONVENTION path`): the schema gives its
/// docstring, `__text_signature__` and stub; `path` (under `crate::bindings`) is the code.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Manual {
    /// `METH_FASTCALL path`: the generated entry point parses the arguments (and applies the
    /// override protocol) as for every op, then calls
    /// `path(&ParsedArgs) -> PyResult<*mut PyObject>` (CPython Argument Clinic's `_impl`).
    Fastcall(String),
    /// `METH_O path`: `path` is the `extern "C"` function itself (one positional argument).
    O(String),
    /// `METH_NOARGS path`: `path` is the `extern "C"` function itself.
    NoArgs(String),
}

/// One rule of `out_dtype:` — which dtype an `out=` tensor must have and torch's words when it
/// has another (src/bindings/write_out.rs, `OutDtype`, holds the texts).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum OutDtype {
    /// `self`: input's dtype, structured kernels' "Expected out tensor to have dtype float, but
    /// got double instead" (`gather`, `aminmax`).
    SelfDtype,
    /// `self_match`: input's dtype, "Expected the dtype for input and out to match, but got
    /// Float for input's dtype and Double for out's dtype." (`amax`, `amin`).
    SelfMatch,
    /// `self_values`: input's dtype, "output values must be of same type as input"
    /// (`kthvalue`).
    SelfValues,
    /// `int64`: int64, the structured kernels' text as `self` ("Expected out tensor to have
    /// dtype long int, but got float instead": the indices of `max(dim)`, `sort`, `topk`).
    Int64,
    /// `long`: int64, "multinomial expects Long tensor out, got: Double".
    Long,
    /// `long_scalar_type`: int64, "nonzero: Expected out tensor to have scalar type Long but got
    /// scalar typeFloat" (`nonzero`, `nonzero_static`; torch's missing space included).
    LongScalarType,
    /// `long_indices`: int64, "output indices must be of scalar type Long" (`kthvalue`).
    LongIndices,
    /// `self_output`: input's dtype, "expected scalar type 'Float' but got 'Double' for values
    /// output" (`mode`).
    SelfOutput,
    /// `long_output`: int64, "expected scalar type 'Long' but got 'Int' for indices output"
    /// (`mode`).
    LongOutput,
    /// `self_same_type`: input's dtype, "Expected tensor for 'values' to have the same type as
    /// tensor for argument #2 'self'; but type torch.DoubleTensor does not equal
    /// torch.FloatTensor (while checking arguments for median)" (`median`, `nanmedian`).
    SelfSameType,
    /// `long_checked`: int64, "Expected tensor for argument #1 'indices' to have scalar type
    /// Long; but got torch.IntTensor instead (while checking arguments for median)"; torch checks
    /// it before the values' rule (`median`, `nanmedian`).
    LongChecked,
    /// `self_found`: input's dtype, "expected scalar_type Float but found Double" (`cummax`).
    SelfFound,
    /// `long_found`: int64, "expected scalar_type Long but found Int" (`cummax`, `cummin`).
    LongFound,
    /// `int32`: int32, in `self`'s words ("Expected out tensor to have dtype int, but got long
    /// int instead": the `info` and `pivots` of the linalg `_ex` functions).
    Int32,
    /// `self_hist` / `self_bin_edges`: input's dtype, "torch.histogram: input tensor and hist
    /// tensor should have the same dtype, but got input float and hist double" (`histogram`).
    SelfHist,
    SelfBinEdges,
    /// `self_mantissa`: input's dtype, "torch.frexp() expects mantissa to have dtype float but
    /// got double" (`frexp`).
    SelfMantissa,
    /// `int32_exponent`: int32, "torch.frexp() expects exponent to have int dtype but got long
    /// int" (`frexp`).
    Int32Exponent,
}

impl OutDtype {
    /// The variant's name in src/bindings/write_out.rs.
    pub(crate) fn rust(self) -> &'static str {
        match self {
            OutDtype::SelfDtype => "write_out::OutDtype::SelfDtype",
            OutDtype::SelfMatch => "write_out::OutDtype::SelfMatch",
            OutDtype::SelfValues => "write_out::OutDtype::SelfValues",
            OutDtype::Int64 => "write_out::OutDtype::Int64",
            OutDtype::Long => "write_out::OutDtype::Long",
            OutDtype::LongScalarType => "write_out::OutDtype::LongScalarType",
            OutDtype::LongIndices => "write_out::OutDtype::LongIndices",
            OutDtype::SelfOutput => "write_out::OutDtype::SelfOutput",
            OutDtype::LongOutput => "write_out::OutDtype::LongOutput",
            OutDtype::SelfSameType => "write_out::OutDtype::SelfSameType",
            OutDtype::LongChecked => "write_out::OutDtype::LongChecked",
            OutDtype::SelfFound => "write_out::OutDtype::SelfFound",
            OutDtype::LongFound => "write_out::OutDtype::LongFound",
            OutDtype::Int32 => "write_out::OutDtype::Int32",
            OutDtype::SelfHist => "write_out::OutDtype::SelfHist",
            OutDtype::SelfBinEdges => "write_out::OutDtype::SelfBinEdges",
            OutDtype::SelfMantissa => "write_out::OutDtype::SelfMantissa",
            OutDtype::Int32Exponent => "write_out::OutDtype::Int32Exponent",
        }
    }
}

/// One schema entry: one overload.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    /// Where it starts in src/native_functions.yaml, for messages.
    pub(crate) line: usize,
    pub(crate) func: FunctionSchema,
    /// The Python name, e.g. "add".
    pub(crate) name: String,
    pub(crate) function: bool,
    pub(crate) method: bool,
    pub(crate) numbers_as_tensors: bool,
    /// `numbers_as_tensors: other`: numbers bind to the Tensor parameters other than `self`
    /// (torch's `eq(Tensor input, Number other)`: `eq(2, t)` is a TypeError).
    pub(crate) numbers_not_self: bool,
    /// `numbers_as_tensors: one`: numbers bind to every Tensor parameter, but at most one of
    /// them may be a number in one call (torch's `(Tensor, Tensor)`, `(Number self, Tensor)`,
    /// `(Tensor, Number)` overloads: `xlogy(2, 3)` is a TypeError).
    pub(crate) numbers_one: bool,
    pub(crate) unwrap_single: bool,
    /// `tuple_if: as_tuple`: a `Tensor[]` result is returned as a tuple when the named bool
    /// argument is True, else as its one tensor (torch's `nonzero(as_tuple=)`).
    pub(crate) tuple_if: Option<String>,
    pub(crate) out: bool,
    /// `release_gil`: how the generated binding measures the work above which the core call runs
    /// without the GIL (src/bindings/gil.rs).
    pub(crate) release_gil: ReleaseGil,
    /// `out: copy` (with `out`): the core has no `{impl}_plan` yet, so `out=` computes a new
    /// tensor and copies it into `out` (`write_out`); `out: True` runs the plan straight into
    /// `out` (Note [One kernel per op] in src/core/ops/plan.rs).
    pub(crate) out_copy: bool,
    /// `out_dtype: self, long`: torch's dtype check on each `out=` tensor (one rule per
    /// returned tensor), made before any resize; empty when `out` casts as usual.
    pub(crate) out_dtype: Vec<OutDtype>,
    /// `out_dtype: ..., after`: the dtype rules are checked once the op has run (torch's linalg
    /// functions and `frexp` check their input first), before anything is written.
    pub(crate) out_dtype_after: bool,
    /// `out_overlap: forbid`: `out=` may share no memory with an input, nor overlap itself
    /// (torch's `assert_no_internal_overlap` and `assert_no_overlap`).
    pub(crate) out_overlap: bool,
    /// `out_overlap: outputs`: the out tensors of a named-tuple result may not overlap each
    /// other (torch's ValueError "aminmax(): the `min` and `max` out= tensors must not overlap.").
    pub(crate) out_overlap_outputs: bool,
    /// `inplace: True`: the entry also gives the in-place method `{name}_` (a derived entry,
    /// placed right after this one).
    pub(crate) inplace: bool,
    /// A derived in-place entry (`{name}_` of an `inplace: True` entry): the core call is
    /// `{impl}_plan(self, ...)` run into `self`.
    pub(crate) plan_inplace: bool,
    pub(crate) impl_fn: String,
    pub(crate) doc: String,
    pub(crate) manual: Option<Manual>,
    /// `python_operator: __add__, __radd__`: the Python operators this entry implements (the
    /// number-protocol slot and its reflected form, or the rich comparison).
    pub(crate) operators: Vec<Operator>,
    /// `python_module: nn`: the function lives in the submodule `_C._nn` (torch's
    /// `torch._C._nn`), not in `_C` itself. `None` for `_C`'s own functions and methods.
    pub(crate) python_module: Option<String>,
}

/// What kind of operator a dunder is, and the type slot that implements it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OperatorKind {
    /// `a + b`, and `b + a` reflected (`__radd__`): `nb_add(a, b)` with either operand first.
    Binary,
    /// `a += b`: an in-place method.
    InPlace,
    /// `-a`.
    Unary,
    /// `a == b` (`tp_richcompare`).
    Compare,
}

/// One Python operator of an entry: its dunder name, kind and slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Operator {
    pub(crate) dunder: String,
    pub(crate) kind: OperatorKind,
    /// `nb_add`, or the comparison constant (`Py_EQ`).
    pub(crate) slot: &'static str,
}

/// The operators the schema can declare: (dunder, kind, slot).
const OPERATORS: &[(&str, OperatorKind, &str)] = {
    use OperatorKind::*;
    &[
        ("__add__", Binary, "nb_add"),
        ("__radd__", Binary, "nb_add"),
        ("__sub__", Binary, "nb_subtract"),
        ("__rsub__", Binary, "nb_subtract"),
        ("__mul__", Binary, "nb_multiply"),
        ("__rmul__", Binary, "nb_multiply"),
        ("__truediv__", Binary, "nb_true_divide"),
        ("__rtruediv__", Binary, "nb_true_divide"),
        ("__floordiv__", Binary, "nb_floor_divide"),
        ("__rfloordiv__", Binary, "nb_floor_divide"),
        ("__mod__", Binary, "nb_remainder"),
        ("__rmod__", Binary, "nb_remainder"),
        ("__pow__", Binary, "nb_power"),
        ("__rpow__", Binary, "nb_power"),
        ("__matmul__", Binary, "nb_matrix_multiply"),
        ("__rmatmul__", Binary, "nb_matrix_multiply"),
        ("__and__", Binary, "nb_and"),
        ("__rand__", Binary, "nb_and"),
        ("__or__", Binary, "nb_or"),
        ("__ror__", Binary, "nb_or"),
        ("__xor__", Binary, "nb_xor"),
        ("__rxor__", Binary, "nb_xor"),
        ("__lshift__", Binary, "nb_lshift"),
        ("__rlshift__", Binary, "nb_lshift"),
        ("__rshift__", Binary, "nb_rshift"),
        ("__rrshift__", Binary, "nb_rshift"),
        ("__iadd__", InPlace, "nb_inplace_add"),
        ("__isub__", InPlace, "nb_inplace_subtract"),
        ("__imul__", InPlace, "nb_inplace_multiply"),
        ("__itruediv__", InPlace, "nb_inplace_true_divide"),
        ("__neg__", Unary, "nb_negative"),
        ("__abs__", Unary, "nb_absolute"),
        ("__invert__", Unary, "nb_invert"),
        ("__eq__", Compare, "Py_EQ"),
        ("__ne__", Compare, "Py_NE"),
        ("__lt__", Compare, "Py_LT"),
        ("__le__", Compare, "Py_LE"),
        ("__gt__", Compare, "Py_GT"),
        ("__ge__", Compare, "Py_GE"),
    ]
};

impl Entry {
    /// The class a method variant belongs to: `Generator` when `self` is a `Generator`,
    /// else `Tensor`.
    pub(crate) fn owner(&self) -> &'static str {
        match self.func.self_arg() {
            Some(a) if a.ty.base == BaseTy::Generator => "Generator",
            _ => "Tensor",
        }
    }
}

/// Our own keys (the `func:` line is torch's grammar; everything else is ours). README.md lists
/// them.
const KEYS: &[&str] = &[
    "func",
    "variants",
    "numbers_as_tensors",
    "unwrap_single",
    "tuple_if",
    "out",
    "out_dtype",
    "out_overlap",
    "release_gil",
    "inplace",
    "impl",
    "doc",
    "manual_binding",
    "python_operator",
    "python_module",
];

/// One entry as read: its keys and values.
type RawEntry = BTreeMap<String, String>;

/// The schema subset we use: a list of mappings, one `key: value` per line. Returns each
/// mapping with the line it starts on.
fn read_yaml(text: &str) -> Result<Vec<(usize, RawEntry)>, String> {
    let mut raw: Vec<(usize, RawEntry)> = Vec::new();
    for (lineno, line) in text.lines().enumerate() {
        let lineno = lineno + 1;
        let t = line.trim_end();
        if t.trim_start().starts_with('#') || t.trim().is_empty() {
            continue;
        }
        let (new_item, body) = if let Some(rest) = t.strip_prefix("- ") {
            (true, rest)
        } else if let Some(rest) = t.strip_prefix("  ") {
            (false, rest)
        } else {
            return Err(format!(
                "line {lineno}: expected '- key: value' or '  key: value'"
            ));
        };
        if new_item {
            raw.push((lineno, BTreeMap::new()));
        }
        let (k, v) = body
            .split_once(':')
            .ok_or_else(|| format!("line {lineno}: no ':'"))?;
        let (_, item) = raw
            .last_mut()
            .ok_or_else(|| format!("line {lineno}: key outside an item"))?;
        if item
            .insert(k.trim().to_string(), v.trim().to_string())
            .is_some()
        {
            return Err(format!("line {lineno}: key {:?} given twice", k.trim()));
        }
    }
    Ok(raw)
}

/// Parse the schema. An error names the entry (its line and `func:`) and what is wrong.
pub(crate) fn parse_schema(text: &str) -> Result<Vec<Entry>, String> {
    let mut entries = Vec::new();
    for (line, m) in read_yaml(text)? {
        let func = m.get("func").cloned().unwrap_or_default();
        let e = entry_from_map(line, m).map_err(|e| format!("line {line}: entry `{func}`: {e}"))?;
        entries.extend(e);
    }
    Ok(entries)
}

/// The entry of one schema item, and the in-place entry it derives (`inplace: True`).
fn entry_from_map(line: usize, m: RawEntry) -> Result<Vec<Entry>, String> {
    for k in m.keys() {
        if !KEYS.contains(&k.as_str()) {
            return Err(format!(
                "unknown key {k:?} (known keys: {})",
                KEYS.join(", ")
            ));
        }
    }
    let func = FunctionSchema::parse(m.get("func").ok_or("no func key")?)?;
    func.check_aliases()?;
    let flag = |k: &str| -> Result<bool, String> {
        match m.get(k).map(String::as_str) {
            None | Some("False") => Ok(false),
            Some("True") => Ok(true),
            Some(other) => Err(format!("{k}: {other:?} is not True or False")),
        }
    };
    let variants = m.get("variants").map(String::as_str).unwrap_or("function");
    let mut function = false;
    let mut method = false;
    for v in variants.split(',').map(str::trim) {
        match v {
            "function" => function = true,
            "method" => method = true,
            other => return Err(format!("variants: unknown variant {other:?}")),
        }
    }
    if method && func.self_arg().is_none() {
        return Err("variants: method needs an argument named self".into());
    }
    let release_gil = match m.get("release_gil").map(String::as_str) {
        None | Some("True") if func.is_view() => ReleaseGil::Never,
        None | Some("True") => ReleaseGil::Elements,
        Some("False") if func.is_view() => {
            return Err("release_gil: False on a view (its alias annotation says so)".into())
        }
        Some("False") => ReleaseGil::Never,
        Some("matmul") => ReleaseGil::Matmul,
        Some(other) => return Err(format!("release_gil: {other:?}?")),
    };
    let manual = match m.get("manual_binding") {
        None => None,
        Some(v) => {
            let (conv, path) = v
                .split_once(' ')
                .ok_or("manual_binding: expected `CONVENTION path`")?;
            Some(match conv {
                "METH_FASTCALL" => Manual::Fastcall(path.to_string()),
                "METH_O" => Manual::O(path.to_string()),
                "METH_NOARGS" => Manual::NoArgs(path.to_string()),
                other => {
                    return Err(format!(
                        "manual_binding: convention {other:?} is not METH_FASTCALL, METH_O or METH_NOARGS"
                    ))
                }
            })
        }
    };
    let impl_fn = m
        .get("impl")
        .cloned()
        .unwrap_or_else(|| match &func.overload {
            Some(o) => format!("{}_{o}", func.name),
            None => func.name.clone(),
        });
    let mut operators = Vec::new();
    for d in m
        .get("python_operator")
        .map(String::as_str)
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
    {
        let &(_, kind, slot) = OPERATORS
            .iter()
            .find(|(n, _, _)| *n == d)
            .ok_or_else(|| format!("python_operator: {d:?} is not an operator we bind"))?;
        operators.push(Operator {
            dunder: d.to_string(),
            kind,
            slot,
        });
    }
    let (out, out_copy) = match m.get("out").map(String::as_str) {
        None | Some("False") => (false, false),
        Some("True") => (true, false),
        Some("copy") => (true, true),
        Some(other) => return Err(format!("out: {other:?} is not True, copy or False")),
    };
    let out_dtype_after = m
        .get("out_dtype")
        .is_some_and(|v| v.split(',').map(str::trim).any(|r| r == "after"));
    let out_dtype = match m.get("out_dtype") {
        None => Vec::new(),
        Some(v) => v
            .split(',')
            .map(str::trim)
            .filter(|r| *r != "after")
            .map(|r| match r {
                "self" => Ok(OutDtype::SelfDtype),
                "self_match" => Ok(OutDtype::SelfMatch),
                "self_values" => Ok(OutDtype::SelfValues),
                "int64" => Ok(OutDtype::Int64),
                "long" => Ok(OutDtype::Long),
                "long_scalar_type" => Ok(OutDtype::LongScalarType),
                "long_indices" => Ok(OutDtype::LongIndices),
                "self_output" => Ok(OutDtype::SelfOutput),
                "long_output" => Ok(OutDtype::LongOutput),
                "self_same_type" => Ok(OutDtype::SelfSameType),
                "long_checked" => Ok(OutDtype::LongChecked),
                "self_found" => Ok(OutDtype::SelfFound),
                "long_found" => Ok(OutDtype::LongFound),
                "int32" => Ok(OutDtype::Int32),
                "self_hist" => Ok(OutDtype::SelfHist),
                "self_bin_edges" => Ok(OutDtype::SelfBinEdges),
                "self_mantissa" => Ok(OutDtype::SelfMantissa),
                "int32_exponent" => Ok(OutDtype::Int32Exponent),
                other => Err(format!(
                    "out_dtype: {other:?} is not self, self_match, self_values, int64, long, long_scalar_type, long_indices, self_output, long_output, self_same_type, long_checked, self_found, long_found, int32, self_hist, self_bin_edges, self_mantissa or int32_exponent"
                )),
            })
            .collect::<Result<Vec<_>, String>>()?,
    };
    let (mut out_overlap, mut out_overlap_outputs) = (false, false);
    for v in m
        .get("out_overlap")
        .map(String::as_str)
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty())
    {
        match v {
            "forbid" => out_overlap = true,
            "outputs" => out_overlap_outputs = true,
            other => return Err(format!("out_overlap: {other:?} is not forbid or outputs")),
        }
    }
    if out_overlap_outputs && !matches!(func.returns, Returns::Named(_)) {
        return Err("out_overlap: outputs needs a named-tuple result".into());
    }
    if !out && (!out_dtype.is_empty() || out_overlap || out_overlap_outputs) {
        return Err("out_dtype and out_overlap need out: True or copy".into());
    }
    let inplace = flag("inplace")?;
    let python_module = match m.get("python_module").map(String::as_str) {
        None => None,
        Some(m @ ("nn" | "linalg" | "special")) => Some(m.to_string()),
        Some(other) => {
            return Err(format!(
                "python_module: {other:?} is not nn, linalg or special"
            ))
        }
    };
    if python_module.is_some()
        && (method || !operators.is_empty() || m.contains_key("manual_binding"))
    {
        return Err(
            "python_module entries are functions of `_C._nn`, `_C._linalg` or `_C._special` (no method, operator or manual binding)"
                .into(),
        );
    }
    // The in-place operators (`__iadd__`) belong to the derived in-place method.
    let (inplace_ops, operators): (Vec<Operator>, Vec<Operator>) = operators
        .into_iter()
        .partition(|o| inplace && o.kind == OperatorKind::InPlace);
    let mut entry = Entry {
        line,
        operators,
        name: func.name.clone(),
        function,
        method,
        numbers_as_tensors: matches!(
            m.get("numbers_as_tensors").map(String::as_str),
            Some("other" | "one")
        ) || flag("numbers_as_tensors")?,
        numbers_not_self: m.get("numbers_as_tensors").map(String::as_str) == Some("other"),
        numbers_one: m.get("numbers_as_tensors").map(String::as_str) == Some("one"),
        unwrap_single: flag("unwrap_single")?,
        tuple_if: m.get("tuple_if").cloned(),
        out,
        out_copy,
        out_dtype,
        out_dtype_after,
        out_overlap,
        out_overlap_outputs,
        inplace,
        plan_inplace: false,
        release_gil,
        impl_fn,
        doc: m.get("doc").cloned().ok_or("every op needs a doc line")?,
        manual,
        func,
        python_module,
    };
    check_entry(&entry)?;
    if !inplace {
        return Ok(vec![entry]);
    }
    let derived = derive_inplace(&entry, inplace_ops)?;
    check_entry(&derived)?;
    entry.inplace = true;
    Ok(vec![entry, derived])
}

/// The in-place method `{name}_` of an `inplace: True` entry (torch writes it as a second
/// entry, `{name}_(Tensor(a!) self, ...) -> Tensor(a!)`; here it is derived): the same
/// arguments and overload, `self` written in place, no `out=`; the core call is the entry's
/// `{impl}_plan` run into `self` (Note [One kernel per op] in src/core/ops/plan.rs).
fn derive_inplace(base: &Entry, operators: Vec<Operator>) -> Result<Entry, String> {
    let written = Alias {
        set: "a".into(),
        mutable: true,
    };
    if base.manual.is_some()
        || base.func.is_view()
        || base.func.is_inplace()
        || base.func.ret().is_none_or(|t| !t.is_tensor())
        || base
            .func
            .args
            .first()
            .is_none_or(|a| a.name != "self" || !a.ty.is_tensor() || a.ty.optional)
    {
        return Err(
            "inplace: True needs a generated functional op `(Tensor self, ...) -> Tensor`".into(),
        );
    }
    let mut func = base.func.clone();
    func.name = format!("{}_", base.name);
    // In `_C._nn` the in-place form is a function of the module (torch's
    // `torch._C._nn.leaky_relu_(input, ...)`), not a method.
    let in_nn = base.python_module.is_some();
    func.args[0].ty.alias = Some(written.clone());
    func.returns = Returns::One(Type {
        base: BaseTy::Tensor,
        list: None,
        optional: false,
        alias: Some(written),
    });
    Ok(Entry {
        line: base.line,
        name: func.name.clone(),
        func,
        function: in_nn,
        method: !in_nn,
        numbers_as_tensors: base.numbers_as_tensors,
        numbers_not_self: base.numbers_not_self,
        numbers_one: base.numbers_one,
        unwrap_single: false,
        tuple_if: None,
        out: false,
        out_copy: false,
        out_dtype: Vec::new(),
        out_dtype_after: false,
        out_overlap: false,
        out_overlap_outputs: false,
        inplace: false,
        plan_inplace: true,
        release_gil: base.release_gil,
        impl_fn: base.impl_fn.clone(),
        doc: format!(
            "In place: {} The result is written into self, which keeps its shape and dtype (RuntimeError when the result's dtype cannot be cast to self's, or its shape is not self's); returns self.",
            base.doc
        ),
        manual: None,
        operators,
        python_module: base.python_module.clone(),
    })
}

/// Rules across keys, so that the generator never meets an entry it cannot bind.
fn check_entry(e: &Entry) -> Result<(), String> {
    let ret = e.func.ret();
    let named = match &e.func.returns {
        Returns::Named(fields) => Some(fields.len()),
        _ => None,
    };
    if e.out && named.is_some() && !e.out_copy {
        // `out=(values, indices)`: the results are computed, then copied into the out tensors.
        return Err(
            "out= of a named-tuple result needs out: copy (no plan has two outputs)".into(),
        );
    }
    if e.out && named.is_none() && (e.func.is_inplace() || ret.is_none_or(|t| !t.is_tensor())) {
        return Err("out: True needs a functional op returning one Tensor or a named tuple".into());
    }
    if !e.out_dtype.is_empty() && e.out_dtype.len() != named.unwrap_or(1) {
        return Err("out_dtype needs one rule per returned tensor".into());
    }
    if e.unwrap_single && ret.is_none_or(|t| !t.is_tensor_list()) {
        return Err("unwrap_single: True needs a Tensor[] return".into());
    }
    if let Some(arg) = &e.tuple_if {
        if ret.is_none_or(|t| !t.is_tensor_list()) {
            return Err("tuple_if needs a Tensor[] return".into());
        }
        if !e
            .func
            .args
            .iter()
            .any(|a| &a.name == arg && a.ty.base == BaseTy::Bool && !a.ty.optional)
        {
            return Err(format!("tuple_if: {arg} names no bool argument"));
        }
    }
    if e.release_gil == ReleaseGil::Matmul
        && e.func.args.iter().filter(|a| a.ty.is_tensor()).count() < 2
    {
        return Err("release_gil: matmul needs two Tensor arguments".into());
    }
    if e.func.is_inplace() && e.func.self_arg().is_none_or(|a| a.ty.alias.is_none()) {
        return Err("an in-place op writes `Tensor(a!) self`".into());
    }
    for o in &e.operators {
        check_operator(e, o)?;
    }
    match &e.manual {
        Some(Manual::O(_)) => {
            let n = e.func.args.iter().filter(|a| a.name != "self").count();
            if n != 1
                || e.func
                    .args
                    .iter()
                    .any(|a| a.default.is_some() || a.kwarg_only)
            {
                return Err("METH_O takes exactly one positional argument".into());
            }
        }
        Some(Manual::NoArgs(_)) => {
            if e.func.args.iter().any(|a| a.name != "self") {
                return Err("METH_NOARGS takes no arguments".into());
            }
        }
        Some(Manual::Fastcall(_)) | None => {}
    }
    if e.manual.is_none() {
        for a in &e.func.args {
            if a.ty.base == BaseTy::Generator && a.name == "self" {
                return Err("Generator methods are hand-written (manual_binding)".into());
            }
        }
        if e.func.returns == Returns::Nothing
            || ret.is_some_and(|t| matches!(t.base, BaseTy::Generator | BaseTy::PyObject))
        {
            return Err("this return type needs a manual_binding".into());
        }
    }
    Ok(())
}

/// An operator's entry has the shape its slot calls: `self` and (but for unary ones) one more
/// `Tensor`, every other argument defaulted (the slot passes the defaults).
fn check_operator(e: &Entry, o: &Operator) -> Result<(), String> {
    let d = &o.dunder;
    let args = &e.func.args;
    let operands = if o.kind == OperatorKind::Unary { 1 } else { 2 };
    let shape_ok = args.len() >= operands
        && args[0].name == "self"
        && args[..operands]
            .iter()
            .all(|a| a.ty.is_tensor() && !a.ty.optional && a.default.is_none() && !a.kwarg_only)
        && args[operands..].iter().all(|a| a.default.is_some())
        && e.manual.is_none();
    if !shape_ok {
        return Err(format!(
            "python_operator: {d} needs `Tensor self`{} and defaults for the other arguments",
            if operands == 2 {
                ", one more Tensor"
            } else {
                ""
            }
        ));
    }
    let fits = match o.kind {
        OperatorKind::InPlace => e.method && e.func.is_inplace(),
        _ => e.function && !e.func.is_inplace() && e.func.ret().is_some_and(Type::is_tensor),
    };
    if !fits {
        return Err(format!(
            "python_operator: {d} needs {}",
            if o.kind == OperatorKind::InPlace {
                "an in-place method (`Tensor(a!) self -> Tensor(a!)`)"
            } else {
                "a function returning one Tensor"
            }
        ));
    }
    Ok(())
}

/// Overloads grouped by Python name and owning class, in first-appearance order (the order they
/// are tried).
pub(crate) struct Op {
    pub(crate) name: String,
    pub(crate) entries: Vec<Entry>,
}

impl Op {
    /// Whether any overload is manual (then all must be: one entry point per name).
    pub(crate) fn manual(&self) -> Option<&Manual> {
        self.entries.iter().find_map(|e| e.manual.as_ref())
    }
}

/// Group entries into ops: one per (name, owner) — `Generator.manual_seed` and the function
/// `manual_seed` are different ops.
pub(crate) fn group(entries: Vec<Entry>) -> Result<Vec<Op>, String> {
    // One entry per operator slot (`__add__` and `__radd__` share `nb_add`, on one entry).
    let mut slots: Vec<(&str, &Entry)> = Vec::new();
    for e in &entries {
        for o in &e.operators {
            match slots.iter().find(|(s, _)| *s == o.slot) {
                Some((_, other)) if other.line != e.line => {
                    return Err(format!(
                        "line {}: `{}`: python_operator {} uses the slot {}, which line {} already declares",
                        e.line, e.name, o.dunder, o.slot, other.line
                    ))
                }
                Some(_) => {}
                None => slots.push((o.slot, e)),
            }
        }
    }
    let mut ops: Vec<Op> = Vec::new();
    for e in entries {
        let owner = e.owner();
        match ops.iter_mut().find(|o| {
            o.name == e.name
                && o.entries[0].owner() == owner
                && o.entries[0].python_module == e.python_module
        }) {
            Some(o) => {
                if o.manual().is_some() || e.manual.is_some() {
                    return Err(format!(
                        "line {}: `{}`: a hand-written binding has exactly one overload",
                        e.line, e.name
                    ));
                }
                o.entries.push(e)
            }
            None => ops.push(Op {
                name: e.name.clone(),
                entries: vec![e],
            }),
        }
    }
    Ok(ops)
}
