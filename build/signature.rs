//! build/signature.rs: one model per Python signature (an entry in one variant) and its
//! renderings: the parser spec, the docstring, `__text_signature__` and the stub types
//! (torchgen: `api/python.py`).

use crate::schema::{Arg, Entry, Op};
use std::fmt::Write as _;

#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Variant {
    Function,
    Method,
}

/// The python-visible parameters of one entry in one variant: `self` becomes `input` for
/// functions and is dropped for methods; `out=` is appended for functions with `out: True`.
pub(crate) fn py_params(e: &Entry, v: Variant) -> Vec<Arg> {
    let mut ps: Vec<Arg> = Vec::new();
    for a in &e.args {
        if a.name == "self" {
            if v == Variant::Method {
                continue;
            }
            ps.push(Arg {
                name: "input".into(),
                ..a.clone()
            });
        } else {
            ps.push(a.clone());
        }
    }
    if e.out && v == Variant::Function {
        ps.push(Arg {
            ty: "Tensor?".into(),
            name: "out".into(),
            default: Some("None".into()),
            kwarg_only: true,
        });
    }
    ps
}

pub(crate) fn parser_type(ty: &str) -> String {
    ty.replace("SymInt", "int")
}

pub(crate) fn parser_spec(name: &str, ps: &[Arg]) -> String {
    let mut parts = Vec::new();
    let mut star = false;
    for p in ps {
        if p.kwarg_only && !star {
            parts.push("*".to_string());
            star = true;
        }
        let mut s = format!("{} {}", parser_type(&p.ty), p.name);
        if let Some(d) = &p.default {
            s.push('=');
            s.push_str(d);
        }
        parts.push(s);
    }
    format!("{name}({})", parts.join(", "))
}

/// A python literal for a schema default.
pub(crate) fn py_default(d: &str) -> String {
    if d.starts_with('[') {
        let inner = d.trim_start_matches('[').trim_end_matches(']');
        if inner.trim().is_empty() {
            "()".into()
        } else if inner.contains(',') {
            format!("({inner})")
        } else {
            format!("({inner},)")
        }
    } else {
        d.to_string()
    }
}

/// `(input, other, *, alpha=1, out=None)` — names and defaults only.
pub(crate) fn py_signature(ps: &[Arg], first: Option<&str>) -> String {
    let mut parts: Vec<String> = first.into_iter().map(String::from).collect();
    let mut star = false;
    for p in ps {
        if p.kwarg_only && !star {
            parts.push("*".into());
            star = true;
        }
        match &p.default {
            Some(d) => parts.push(format!("{}={}", p.name, py_default(d))),
            None => parts.push(p.name.clone()),
        }
    }
    parts.join(", ")
}

pub(crate) fn stub_type(ty: &str, numbers_as_tensors: bool) -> String {
    let (base, optional) = match ty.strip_suffix('?') {
        Some(b) => (b, true),
        None => (ty, false),
    };
    let base = base.replace("SymInt", "int");
    let t = match base.as_str() {
        "Tensor" if numbers_as_tensors => "Union[Tensor, _Number]".to_string(),
        "Tensor" => "Tensor".into(),
        "Scalar" => "Union[_Number, Tensor]".into(),
        "int" => "_int".into(),
        "float" => "_float".into(),
        "bool" => "_bool".into(),
        "str" => "str".into(),
        "ScalarType" => "dtype".into(),
        "Tensor[]" => "Sequence[Tensor]".into(),
        "Generator" => "Generator".into(),
        "PyObject*" => "Any".into(),
        s if s.starts_with("int[") => "Union[_int, Sequence[_int]]".into(),
        other => panic!("no stub type for schema type {other:?}"),
    };
    if optional {
        format!("Optional[{t}]")
    } else {
        t
    }
}

/// The field names of a named-tuple return `(Tensor values, Tensor indices)`, if `ret` is one.
pub(crate) fn tuple_fields(ret: &str) -> Option<Vec<String>> {
    let inner = ret.strip_prefix('(')?.strip_suffix(')')?;
    inner
        .split(", ")
        .map(|f| f.strip_prefix("Tensor ").map(str::to_string))
        .collect()
}

pub(crate) fn stub_ret(ret: &str, unwrap_single: bool) -> String {
    if tuple_fields(ret).is_some() {
        return "Any".into(); // replaced by the named-tuple class in `gen_stub`
    }
    match ret {
        "Tensor" | "Tensor(a!)" => "Tensor",
        "Scalar" => "_Number",
        "int" => "_int",
        "bool" => "_bool",
        "float" => "_float",
        "int[]" => "Tuple[_int, ...]",
        "Tensor[]" if unwrap_single => "Union[Tensor, Tuple[Tensor, ...]]",
        "Tensor[]" => "Tuple[Tensor, ...]",
        other => panic!("no stub type for return {other:?}"),
    }
    .into()
}

/// The stub type of an entry's return, naming the named-tuple class where there is one.
pub(crate) fn stub_ret_of(op_name: &str, e: &Entry) -> String {
    if tuple_fields(&e.ret).is_some() {
        return format!("return_types.{op_name}");
    }
    stub_ret(&e.ret, e.unwrap_single)
}

pub(crate) fn docstring(op: &Op, v: Variant) -> String {
    let entries: Vec<&Entry> = op.entries.iter().filter(|e| variant_has(e, v)).collect();
    let mut s = String::new();
    let first = if v == Variant::Method {
        "$self"
    } else {
        "$module"
    };
    if entries.len() == 1 {
        // First line in CPython's `__text_signature__` form.
        let ps = py_params(entries[0], v);
        let _ = write!(s, "{}({})\n--\n\n", op.name, py_signature(&ps, Some(first)));
    } else {
        // Overloaded: no single signature exists, so `inspect.signature` reports the documented
        // fallback `(*args, **kwargs)`; the overloads are listed below.
        let _ = write!(s, "{}({first}, *args, **kwargs)\n--\n\n", op.name);
    }
    for e in &entries {
        let ps = py_params(e, v);
        let sig = py_signature(&ps, None);
        let _ = writeln!(s, "{}({}) -> {}", op.name, sig, stub_ret_of(&op.name, e));
    }
    s.push('\n');
    let mut seen = Vec::new();
    for e in &entries {
        if !seen.contains(&e.doc) {
            let _ = writeln!(s, "{}", e.doc);
            seen.push(e.doc.clone());
        }
    }
    s.push_str("\nSignatures (tried in this order):\n");
    for e in &entries {
        let ps = py_params(e, v);
        let _ = writeln!(
            s,
            "    {} -> {}",
            parser_spec(&op.name, &ps),
            e.ret.replace("(a!)", "")
        );
    }
    let _ = write!(
        s,
        "\nMirrors torch.{}{}. Raises TypeError when no signature matches the arguments.",
        if v == Variant::Method { "Tensor." } else { "" },
        op.name
    );
    s
}

pub(crate) fn variant_has(e: &Entry, v: Variant) -> bool {
    match v {
        Variant::Function => e.function,
        Variant::Method => e.method,
    }
}
