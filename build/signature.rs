//! build/signature.rs: one model per Python signature — a schema entry seen as a `_C` function
//! or as a method — and its renderings: the parser table, the docstring, `__text_signature__`
//! and the stub types (torchgen: `api/python.py`, `PythonSignature`).

use crate::schema::{BaseTy, Default, Entry, Manual, Op, Returns, Type};
use std::fmt::Write as _;

/// How an entry is called from Python. Further variants (an in-place method derived from a
/// functional entry, an `out=` function) add a case here and in `PySignature::new`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Variant {
    /// A function of `_C`: `self` is the first parameter, named `input`.
    Function,
    /// A method of the class of `self` (`_C.Tensor`, or `_C.Generator`): `self` is bound.
    Method,
}

impl Variant {
    pub(crate) fn of(self, e: &Entry) -> bool {
        match self {
            Variant::Function => e.function,
            Variant::Method => e.method,
        }
    }
}

/// One Python-visible parameter.
#[derive(Clone, Debug)]
pub(crate) struct PyParam {
    pub(crate) name: String,
    pub(crate) ty: Type,
    pub(crate) default: Option<Default>,
    pub(crate) kwarg_only: bool,
    /// Only by position (`METH_O` bindings): `/` in the text signature.
    pub(crate) positional_only: bool,
    /// A Python number binds to this `Tensor` parameter (`numbers_as_tensors`; never `out=`).
    pub(crate) numbers: bool,
}

/// One Python signature: an entry in one variant.
pub(crate) struct PySignature<'a> {
    pub(crate) entry: &'a Entry,
    pub(crate) variant: Variant,
    pub(crate) params: Vec<PyParam>,
    /// For each argument of the `func:` line, its index in `params` (`None` for a method's
    /// bound `self`).
    pub(crate) arg_params: Vec<Option<usize>>,
    /// The index of the appended `out=` parameter, if any.
    pub(crate) out: Option<usize>,
}

impl<'a> PySignature<'a> {
    /// `self` becomes `input` for functions and is bound for methods; `out=` is appended for
    /// functions with `out: True` (a tuple of tensors for a named-tuple result).
    pub(crate) fn new(e: &'a Entry, v: Variant) -> PySignature<'a> {
        let positional_only = matches!(e.manual, Some(Manual::O(_)));
        let mut params = Vec::new();
        let mut arg_params = Vec::new();
        for a in &e.func.args {
            if a.name == "self" && v == Variant::Method {
                arg_params.push(None);
                continue;
            }
            arg_params.push(Some(params.len()));
            params.push(PyParam {
                name: if a.name == "self" {
                    "input".into()
                } else {
                    a.name.clone()
                },
                ty: a.ty.clone(),
                default: a.default.clone(),
                kwarg_only: a.kwarg_only,
                positional_only,
                numbers: e.numbers_as_tensors && !(e.numbers_not_self && a.name == "self"),
            });
        }
        let out = (e.out && v == Variant::Function).then(|| {
            // A named-tuple result takes a tuple of tensors, one per field (torch's
            // `out=(values, indices)`).
            let named = matches!(e.func.returns, Returns::Named(_));
            params.push(PyParam {
                name: "out".into(),
                ty: Type {
                    base: BaseTy::Tensor,
                    list: named.then_some(None),
                    optional: true,
                    alias: None,
                },
                default: Some(Default {
                    value: crate::schema::DefaultValue::None,
                    text: "None".into(),
                }),
                kwarg_only: true,
                positional_only: false,
                numbers: false,
            });
            params.len() - 1
        });
        PySignature {
            entry: e,
            variant: v,
            params,
            arg_params,
            out,
        }
    }

    /// The Python name.
    pub(crate) fn name(&self) -> &str {
        &self.entry.name
    }

    /// `add(Tensor input, Tensor other, *, Scalar alpha=1, Tensor? out=None)`: the schema
    /// spelling of this signature (the docstring's "Signatures" list).
    pub(crate) fn spec(&self) -> String {
        let mut parts = Vec::new();
        let mut star = false;
        for p in &self.params {
            if p.kwarg_only && !star {
                parts.push("*".to_string());
                star = true;
            }
            let mut s = format!("{} {}", p.ty, p.name);
            if let Some(d) = &p.default {
                s.push('=');
                s.push_str(&d.text);
            }
            parts.push(s);
        }
        format!("{}({})", self.name(), parts.join(", "))
    }

    /// `input, other, *, alpha=1, out=None` — names and defaults only, after `first` (`$self`,
    /// `$module`) when given: the `__text_signature__` form.
    pub(crate) fn untyped(&self, first: Option<&str>) -> String {
        let mut parts: Vec<String> = first.into_iter().map(String::from).collect();
        let mut star = false;
        for p in &self.params {
            if p.kwarg_only && !star {
                parts.push("*".into());
                star = true;
            }
            match &p.default {
                Some(d) => parts.push(format!("{}={}", p.name, d.python())),
                None => parts.push(p.name.clone()),
            }
        }
        if self.params.iter().any(|p| p.positional_only) || (first.is_some() && self.is_noargs()) {
            parts.push("/".into());
        }
        parts.join(", ")
    }

    /// `squeeze(input: Tensor, dim: int) -> Tensor`: the signature with Python types, as the
    /// docstrings and the README's op list show each overload (names and defaults alone do not
    /// tell `squeeze(input, dim)` from `squeeze(input, dim)`).
    pub(crate) fn typed(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        let mut star = false;
        for p in &self.params {
            if p.kwarg_only && !star {
                parts.push("*".into());
                star = true;
            }
            let ty = doc_type(&p.ty, p.numbers);
            match &p.default {
                Some(d) => parts.push(format!("{}: {ty} = {}", p.name, d.python())),
                None => parts.push(format!("{}: {ty}", p.name)),
            }
        }
        if self.params.iter().any(|p| p.positional_only) {
            parts.push("/".into());
        }
        format!(
            "{}({}) -> {}",
            self.name(),
            parts.join(", "),
            doc_ret(self.entry)
        )
    }

    fn is_noargs(&self) -> bool {
        matches!(self.entry.manual, Some(Manual::NoArgs(_)))
    }

    /// The stub type of this signature's return, naming the named-tuple class where there is
    /// one.
    pub(crate) fn stub_ret(&self) -> String {
        stub_ret(self.entry)
    }

    /// The stub `def` line(s) of this signature, under `indent`; `overloaded` adds `@overload`.
    pub(crate) fn stub_def(&self, overloaded: bool, indent: &str) -> String {
        let ps = &self.params;
        // `zeros(2, 3)`: an `int[]` that is the only positional parameter also takes varargs
        // ints (the parser's rule), which a stub spells as a second overload with `*size: int`.
        let varargs = ps.iter().filter(|p| !p.kwarg_only).count() == 1 && ps[0].ty.is_int_list();
        let render = |as_varargs: bool| -> String {
            let mut parts: Vec<String> = Vec::new();
            if self.variant == Variant::Method {
                parts.push("self".into());
            }
            let mut star = false;
            for (i, p) in ps.iter().enumerate() {
                if i == 0 && as_varargs {
                    parts.push(format!("*{}: _int", p.name));
                    star = true;
                    continue;
                }
                if p.kwarg_only && !star {
                    parts.push("*".into());
                    star = true;
                }
                let ty = if i == 0 && varargs {
                    "Sequence[_int]".to_string()
                } else {
                    stub_type(&p.ty, p.numbers)
                };
                // A Python keyword (`from` of `uniform_`) gets torch's stub spelling `from_`.
                let name = if matches!(p.name.as_str(), "from" | "in" | "is" | "lambda" | "def") {
                    format!("{}_", p.name)
                } else {
                    p.name.clone()
                };
                match &p.default {
                    Some(d) => parts.push(format!("{name}: {} = {}", ty, d.python())),
                    None => parts.push(format!("{name}: {}", ty)),
                }
            }
            if ps.iter().any(|p| p.positional_only) {
                parts.push("/".into());
            }
            let mut s = String::new();
            if overloaded || varargs {
                let _ = writeln!(s, "{indent}@overload");
            }
            let _ = writeln!(
                s,
                "{indent}def {}({}) -> {}: ...",
                self.name(),
                parts.join(", "),
                self.stub_ret()
            );
            s
        };
        let mut s = render(false);
        if varargs {
            s.push_str(&render(true));
        }
        s
    }
}

/// The stub type of a parameter.
pub(crate) fn stub_type(ty: &Type, numbers_as_tensors: bool) -> String {
    let t = match (ty.base, ty.list.is_some()) {
        (BaseTy::Tensor, false) if numbers_as_tensors => "Union[Tensor, _Number]",
        (BaseTy::Tensor, false) => "Tensor",
        (BaseTy::Tensor, true) => "Sequence[Tensor]",
        (BaseTy::Int, true) => "Union[_int, Sequence[_int]]",
        (BaseTy::Float, true) => "Sequence[_float]",
        (BaseTy::Scalar, _) => "Union[_Number, Tensor]",
        (BaseTy::Int, _) => "_int",
        (BaseTy::Float, _) => "_float",
        (BaseTy::Bool, _) => "_bool",
        (BaseTy::Str, _) => "str",
        (BaseTy::ScalarType, _) => "dtype",
        (BaseTy::Generator, _) => "Generator",
        (BaseTy::Device, _) => "Union[device, str, _int]",
        (BaseTy::Layout, _) => "layout",
        (BaseTy::PyObject, _) => "Any",
    };
    if ty.optional {
        format!("Optional[{t}]")
    } else {
        t.to_string()
    }
}

/// A parameter's type as the docs write it: Python's spelling, with `Number` for torch's
/// `Scalar` (`int | float | bool`, or a 0-dim tensor).
fn doc_type(ty: &Type, numbers_as_tensors: bool) -> String {
    let t = match (ty.base, ty.list) {
        (BaseTy::Tensor, None) if numbers_as_tensors => "Tensor | Number",
        (BaseTy::Tensor, None) => "Tensor",
        (BaseTy::Tensor, Some(_)) => "Sequence[Tensor]",
        (BaseTy::Int, Some(Some(_))) => "int | Sequence[int]",
        (BaseTy::Int, Some(None)) => "Sequence[int]",
        (BaseTy::Float, Some(_)) => "Sequence[float]",
        (BaseTy::Scalar, _) => "Number",
        (BaseTy::Int, _) => "int",
        (BaseTy::Float, _) => "float",
        (BaseTy::Bool, _) => "bool",
        (BaseTy::Str, _) => "str",
        (BaseTy::ScalarType, _) => "dtype",
        (BaseTy::Generator, _) => "Generator",
        (BaseTy::Device, _) => "device | str | int",
        (BaseTy::Layout, _) => "layout",
        (BaseTy::PyObject, _) => "object",
    };
    if ty.optional {
        format!("{t} | None")
    } else {
        t.to_string()
    }
}

/// An entry's return as the docs write it.
fn doc_ret(e: &Entry) -> String {
    let ty = match &e.func.returns {
        Returns::Named(_) => return format!("return_types.{}", e.name),
        Returns::Nothing => return "None".into(),
        Returns::One(t) => t,
    };
    match (ty.base, ty.list.is_some()) {
        (BaseTy::Tensor, false) => "Tensor",
        (BaseTy::Tensor, true) if e.unwrap_single || e.tuple_if.is_some() => {
            "Tensor | tuple[Tensor, ...]"
        }
        (BaseTy::Tensor, true) => "tuple[Tensor, ...]",
        (BaseTy::Int, true) => "tuple[int, ...]",
        (BaseTy::Scalar, _) => "Number",
        (BaseTy::Int, _) => "int",
        (BaseTy::Bool, _) => "bool",
        (BaseTy::Float, _) => "float",
        (BaseTy::Generator, _) => "Generator",
        (BaseTy::Device, _) => "device | str | int",
        (BaseTy::Layout, _) => "layout",
        (BaseTy::PyObject, _) => "object",
        (BaseTy::Str, _) => "str",
        (BaseTy::ScalarType, _) => "dtype",
    }
    .into()
}

/// The stub type of an entry's return, naming the named-tuple class where there is one.
pub(crate) fn stub_ret(e: &Entry) -> String {
    let ty = match &e.func.returns {
        Returns::Named(_) => return format!("return_types.{}", e.name),
        Returns::Nothing => return "None".into(),
        Returns::One(t) => t,
    };
    match (ty.base, ty.list.is_some()) {
        (BaseTy::Tensor, false) => "Tensor",
        (BaseTy::Tensor, true) if e.unwrap_single || e.tuple_if.is_some() => {
            "Union[Tensor, Tuple[Tensor, ...]]"
        }
        (BaseTy::Tensor, true) => "Tuple[Tensor, ...]",
        (BaseTy::Int, true) => "Tuple[_int, ...]",
        (BaseTy::Scalar, _) => "_Number",
        (BaseTy::Int, _) => "_int",
        (BaseTy::Bool, _) => "_bool",
        (BaseTy::Float, _) => "_float",
        (BaseTy::Generator, _) => "Generator",
        (BaseTy::Device, _) => "Union[device, str, _int]",
        (BaseTy::Layout, _) => "layout",
        (BaseTy::PyObject, _) => "Any",
        (BaseTy::Str, _) => "str",
        (BaseTy::ScalarType, _) => "dtype",
    }
    .into()
}

/// The schema spelling of an entry's return without alias annotations (`Tensor`,
/// `(Tensor values, Tensor indices)`).
pub(crate) fn schema_ret(e: &Entry) -> String {
    match &e.func.returns {
        Returns::Nothing => "()".into(),
        Returns::One(t) => t.to_string(),
        Returns::Named(fields) => format!(
            "({})",
            fields
                .iter()
                .map(|f| format!("Tensor {f}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The entries of `op` that have variant `v`.
pub(crate) fn entries_of(op: &Op, v: Variant) -> Vec<&Entry> {
    op.entries.iter().filter(|e| v.of(e)).collect()
}

/// The docstring of `op` in variant `v`: a `__text_signature__` header (CPython's
/// `name($module, ...)\n--\n\n` form) for a single signature, the overloads with their types
/// (in the order the parser tries them), the doc lines, and what it mirrors.
pub(crate) fn docstring(op: &Op, v: Variant) -> String {
    let entries = entries_of(op, v);
    let sigs: Vec<PySignature<'_>> = entries.iter().map(|e| PySignature::new(e, v)).collect();
    let mut s = String::new();
    let first = if v == Variant::Method {
        "$self"
    } else {
        "$module"
    };
    if sigs.len() == 1 {
        let _ = write!(s, "{}({})\n--\n\n", op.name, sigs[0].untyped(Some(first)));
    } else {
        // Overloaded: no single signature exists, so `inspect.signature` reports the documented
        // fallback `(*args, **kwargs)`; the overloads are listed below.
        let _ = write!(s, "{}({first}, *args, **kwargs)\n--\n\n", op.name);
    }
    for sig in &sigs {
        let _ = writeln!(s, "{}", sig.typed());
    }
    s.push('\n');
    let mut seen = Vec::new();
    for e in &entries {
        if !seen.contains(&e.doc) {
            let _ = writeln!(s, "{}", e.doc);
            seen.push(e.doc.clone());
        }
    }
    let parsed = op.manual().is_none_or(|m| matches!(m, Manual::Fastcall(_)));
    let mut tail = Vec::new();
    if sigs.len() > 1 {
        tail.push("The signatures are tried in the order listed.".to_string());
    }
    if !op.name.starts_with('_') {
        let (owner, name) = match (v, entries[0].python_module.as_deref()) {
            (Variant::Method, _) => (format!("{}.", entries[0].owner()), op.name.as_str()),
            // torch.linalg.solve is torch._C._linalg.linalg_solve (and torch.special likewise).
            (_, Some(m @ ("linalg" | "special"))) => (
                format!("{m}."),
                op.name
                    .strip_prefix(&format!("{m}_"))
                    .unwrap_or(op.name.as_str()),
            ),
            (_, Some(m)) => (format!("_C._{m}."), op.name.as_str()),
            (_, None) => (String::new(), op.name.as_str()),
        };
        tail.push(format!("Mirrors torch.{owner}{name}."));
    }
    if parsed {
        tail.push("Raises TypeError when no signature matches the arguments.".into());
    }
    if !tail.is_empty() {
        let _ = write!(s, "\n{}", tail.join(" "));
    }
    s.trim_end().to_string()
}
