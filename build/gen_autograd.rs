//! build/gen_autograd.rs: reads src/derivatives.yaml (which schema entries are differentiable,
//! by which formula node; which are not, and why; which are pending) and checks it against the
//! schema: the build fails for an op with tensors that has no entry, or an entry naming no op
//! (torchgen: `load_derivatives.py`). The bindings generator asks `kind_of` how to call an op:
//! through its recording wrapper (`vt::`), through the bare core op, or the bare op after
//! `vt::check_pending` (src/core/autograd/variable_type.rs). For the `formula:` entries it
//! generates the node kinds and their recording wrappers (`gen_nodes`; torchgen:
//! `gen_autograd_functions.py` and `gen_variable_type.py`), `include!`d by
//! src/core/autograd/generated.rs.

use crate::schema::{BaseTy, Entry, Op, Returns};
use std::collections::HashMap;
use std::sync::OnceLock;

/// How an op takes part in autograd.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Autograd {
    /// A formula node, hand-written (`node:`, src/core/autograd/formulas.rs) or generated
    /// (`formula:`); either way the op has a recording wrapper `vt::op`.
    Node(String),
    /// Not differentiable (a factory, an integer or bool result, metadata...).
    NotDifferentiable,
    /// Differentiable, formula not written yet: an error when an input requires grad.
    Pending,
}

static TABLE: OnceLock<HashMap<String, Autograd>> = OnceLock::new();

/// A `formula:` entry: the node's torch class name and one Rust expression per differentiable
/// input (in the order of the entry's lines).
#[derive(Clone, Debug)]
pub(crate) struct FormulaEntry {
    pub(crate) key: String,
    pub(crate) line: usize,
    pub(crate) class: String,
    pub(crate) formulas: Vec<(String, String)>,
}

/// The key of an entry in src/derivatives.yaml: `name[.overload]` of its schema entry (a derived
/// in-place entry `add_` uses its base's key).
pub(crate) fn key(e: &Entry) -> String {
    let name = if e.plan_inplace {
        e.func.name.strip_suffix('_').unwrap_or(&e.func.name)
    } else {
        &e.func.name
    };
    match &e.func.overload {
        Some(o) => format!("{name}.{o}"),
        None => name.to_string(),
    }
}

/// Whether an entry needs a derivatives entry: a generated binding with a tensor argument or
/// result (hand-written bindings record through the core functions they call).
fn needs_entry(e: &Entry) -> bool {
    if e.manual.is_some() || e.plan_inplace {
        return false;
    }
    let tensor_arg = e.func.args.iter().any(|a| a.ty.base == BaseTy::Tensor);
    let tensor_ret = match &e.func.returns {
        Returns::One(t) => t.base == BaseTy::Tensor,
        Returns::Named(_) => true,
        _ => false,
    };
    tensor_arg || tensor_ret
}

/// Read src/derivatives.yaml and check it covers the schema; the table for `kind_of`. Returns
/// the `formula:` entries, for `gen_nodes`.
pub(crate) fn load(text: &str, ops: &[Op]) -> Result<Vec<FormulaEntry>, String> {
    let mut table: HashMap<String, Autograd> = HashMap::new();
    let mut lines: HashMap<String, usize> = HashMap::new();
    let mut formulas: Vec<FormulaEntry> = Vec::new();
    // The input lines of the current entry: (input, expression).
    let mut inputs: HashMap<String, Vec<(String, String)>> = HashMap::new();
    let mut current: Option<String> = None;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split(" #").next().unwrap_or("").trim_end();
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if let Some(name) = t.strip_prefix("- name:") {
            let name = name.trim().to_string();
            if lines.insert(name.clone(), n + 1).is_some() {
                return Err(format!("line {}: `{name}` is listed twice", n + 1));
            }
            current = Some(name);
            continue;
        }
        let Some(name) = &current else {
            return Err(format!("line {}: a key outside an entry", n + 1));
        };
        let (k, v) = t
            .split_once(':')
            .ok_or_else(|| format!("line {}: expected `key: value`", n + 1))?;
        let v = v.trim();
        let kind = match k.trim() {
            "node" | "manual" => Autograd::Node(v.to_string()),
            "formula" => {
                formulas.push(FormulaEntry {
                    key: name.clone(),
                    line: n + 1,
                    class: v.to_string(),
                    formulas: Vec::new(),
                });
                Autograd::Node(v.to_string())
            }
            "not_differentiable" => Autograd::NotDifferentiable,
            "pending" => Autograd::Pending,
            "result" | "output_differentiability" => continue,
            _ if k
                .trim()
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ',' || c == ' ') =>
            {
                inputs
                    .entry(name.clone())
                    .or_default()
                    .push((k.trim().to_string(), v.to_string()));
                continue;
            }
            other => return Err(format!("line {}: unknown key `{other}`", n + 1)),
        };
        if matches!(kind, Autograd::NotDifferentiable | Autograd::Pending) && v.is_empty() {
            return Err(format!("line {}: `{}` needs a reason", n + 1, k.trim()));
        }
        if table.insert(name.clone(), kind).is_some() {
            return Err(format!("line {}: `{name}` has two kinds", n + 1));
        }
    }
    for name in lines.keys() {
        if !table.contains_key(name) {
            return Err(format!(
                "`{name}` (line {}) says neither `formula:`, `node:`, `not_differentiable:` nor `pending:`",
                lines[name]
            ));
        }
    }
    for f in &mut formulas {
        f.formulas = inputs.remove(&f.key).unwrap_or_default();
        if f.formulas.is_empty() {
            return Err(format!(
                "line {}: `formula: {}` gives no formula line (`self: <expr>`)",
                f.line, f.class
            ));
        }
    }
    let mut known: Vec<String> = Vec::new();
    for op in ops {
        for e in &op.entries {
            if !needs_entry(e) {
                continue;
            }
            let k = key(e);
            if !table.contains_key(&k) {
                return Err(format!(
                    "src/native_functions.yaml line {}: op `{k}` takes or returns tensors but src/derivatives.yaml has no entry for it: add `- name: {k}` with `formula: <XBackward0>` and a formula line per differentiable input, `manual: <XBackward0>` (a hand-written node in src/core/autograd/formulas.rs and a recording wrapper in variable_type.rs), `not_differentiable: <reason>` or `pending: <reason>`",
                    e.line
                ));
            }
            known.push(k);
        }
    }
    for name in table.keys() {
        if !known.contains(name) {
            return Err(format!(
                "line {}: `{name}` names no generated op of src/native_functions.yaml",
                lines[name]
            ));
        }
    }
    TABLE
        .set(table)
        .map_err(|_| "derivatives loaded twice".to_string())?;
    Ok(formulas)
}

/// How the generated binding of `e` calls the core.
pub(crate) fn kind_of(e: &Entry) -> Autograd {
    TABLE
        .get()
        .and_then(|t| t.get(&key(e)).cloned())
        .unwrap_or(Autograd::NotDifferentiable)
}

/// How a schema argument of a generated op is passed to its wrapper (`param`), kept in its node
/// (`field`, made from the parameter by `save`) and bound in a formula (`bind`, from the field);
/// `scalar` gives its `_saved_*` value when it is a number.
struct ArgTy {
    param: &'static str,
    field: &'static str,
    save: &'static str,
    bind: &'static str,
    scalar: Option<&'static str>,
}

/// The `ArgTy` of a non-tensor schema type (`{}` stands for the parameter or field).
fn arg_ty(ty: &crate::schema::Type) -> Option<ArgTy> {
    let plain = |param, scalar| ArgTy {
        param,
        field: param,
        save: "{}",
        bind: "{}",
        scalar,
    };
    Some(match (ty.base, ty.list.is_some(), ty.optional) {
        (BaseTy::Scalar, false, false) => plain("Scalar", Some("{}")),
        (BaseTy::Scalar, false, true) => plain("Option<Scalar>", None),
        (BaseTy::Int, false, false) => plain("i64", Some("Scalar::Int({})")),
        (BaseTy::Int, false, true) => plain("Option<i64>", None),
        (BaseTy::Float, false, false) => plain("f64", Some("Scalar::Float({})")),
        (BaseTy::Float, false, true) => plain("Option<f64>", None),
        (BaseTy::Bool, false, false) => plain("bool", Some("Scalar::Bool({})")),
        (BaseTy::ScalarType, false, false) => plain("DType", None),
        (BaseTy::ScalarType, false, true) => plain("Option<DType>", None),
        (BaseTy::Int, true, false) => ArgTy {
            param: "&[i64]",
            field: "Box<[i64]>",
            save: "{}.into()",
            bind: "&*{}",
            scalar: None,
        },
        (BaseTy::Int, true, true) => ArgTy {
            param: "Option<&[i64]>",
            field: "Option<Box<[i64]>>",
            save: "{}.map(Into::into)",
            bind: "{}.as_deref()",
            scalar: None,
        },
        (BaseTy::Float, true, true) => ArgTy {
            param: "Option<&[f64]>",
            field: "Option<Box<[f64]>>",
            save: "{}.map(Into::into)",
            bind: "{}.as_deref()",
            scalar: None,
        },
        (BaseTy::Str, false, false) => ArgTy {
            param: "&str",
            field: "Box<str>",
            save: "{}.into()",
            bind: "&*{}",
            scalar: None,
        },
        (BaseTy::Str, false, true) => ArgTy {
            param: "Option<&str>",
            field: "Option<Box<str>>",
            save: "{}.map(Into::into)",
            bind: "{}.as_deref()",
            scalar: None,
        },
        _ => return None,
    })
}

/// The Rust name of a schema argument (`self` is a keyword).
fn rust_ident(name: &str) -> String {
    match name {
        "self" | "type" | "in" | "fn" | "ref" | "match" | "where" | "mod" | "use" => {
            format!("{name}_")
        }
        _ => name.to_string(),
    }
}

/// The identifiers of a formula that are values (not a method, path segment or called
/// function), in order of appearance, with their byte ranges.
fn value_idents(expr: &str) -> Vec<(usize, usize)> {
    let b = expr.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'"' {
            // Skip a string literal.
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let before = expr[..start].trim_end();
            let after = expr[i..].trim_start();
            let member = before.ends_with('.') || before.ends_with("::");
            let called =
                after.starts_with('(') || after.starts_with("::") || after.starts_with('!');
            if !member && !called {
                out.push((start, i));
            }
            continue;
        }
        if c.is_ascii_digit() {
            // A number literal (with its suffix: `1i64`, `0.5f64`).
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.' || b[i] == b'_') {
                i += 1;
            }
            continue;
        }
        i += 1;
    }
    out
}

/// One value a generated node keeps.
struct Field {
    /// torch's name (`self`, `other`, `result`, `self_sizes`, `alpha`).
    name: String,
    ident: String,
    ty: String,
    /// The expression (in the wrapper) that makes it.
    make: String,
    /// The binding (in `apply`) from `self.{ident}`, or None for a saved tensor.
    bind: Option<String>,
    scalar: Option<String>,
    tensor: bool,
}

/// Generated kinds whose fields take more than this many bytes are boxed in `Generated`, so
/// that the enum (and every node, Note [Compact nodes] in src/core/autograd/node.rs) stays
/// small: inline up to one saved tensor, one number, or two words of numbers.
const INLINE_KIND_BYTES: usize = 16;

/// An upper estimate of the bytes of the fields (`SavedTensor`: 16; a test pins the enum's
/// size, so an estimate that falls behind the real types fails `cargo test`).
fn fields_bytes(fields: &[Field]) -> usize {
    let mut words = 0usize;
    let mut small = 0usize;
    for fl in fields {
        match fl.ty.as_str() {
            "bool" => small += 1,
            "i64" | "f64" => words += 1,
            _ => words += 2,
        }
    }
    words * 8 + small.div_ceil(8) * 8
}

/// The Rust identifier of the generated node of entry `key` (`sum.dim_IntList` →
/// `GenSumDimIntList`).
fn struct_ident(key: &str) -> String {
    let mut s = String::from("Gen");
    for part in key.split(['.', '_']) {
        let mut c = part.chars();
        if let Some(f) = c.next() {
            s.push(f.to_ascii_uppercase());
            s.push_str(c.as_str());
        }
    }
    s
}

/// Check a formula entry against its schema entry and work out what its node keeps; returns
/// (fields, inputs as (rust ident, expression with names mapped, names used)).
#[allow(clippy::type_complexity)]
fn analyse(
    f: &FormulaEntry,
    e: &Entry,
) -> Result<(Vec<Field>, Vec<(String, String, Vec<String>)>), String> {
    let at = |m: String| format!("src/derivatives.yaml line {} (`{}`): {m}", f.line, f.key);
    let args = &e.func.args;
    let tensor_arg = |name: &str| {
        args.iter().any(|a| {
            a.name == name && a.ty.base == BaseTy::Tensor && a.ty.list.is_none() && !a.ty.optional
        })
    };
    match &e.func.returns {
        Returns::One(t) if t.base == BaseTy::Tensor && t.list.is_none() => {}
        _ => {
            return Err(at(
                "a generated node has one tensor result; mark a multi-output op `manual:`".into(),
            ))
        }
    }
    let mut inputs = Vec::new();
    let mut used_by: HashMap<String, Vec<String>> = HashMap::new();
    for (input, expr) in &f.formulas {
        if !tensor_arg(input) {
            return Err(at(format!(
                "`{input}:` names no tensor argument of `{}` (its arguments: {})",
                e.func.name,
                args.iter()
                    .map(|a| a.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        let mut names = Vec::new();
        let mut mapped = String::new();
        let mut last = 0;
        for (s, t) in value_idents(expr) {
            let id = &expr[s..t];
            let known = id == "grad"
                || id == "result"
                || args.iter().any(|a| a.name == id)
                || id.strip_suffix("_sizes").is_some_and(|a| {
                    args.iter()
                        .any(|x| x.name == a && x.ty.base == BaseTy::Tensor)
                });
            if !known {
                if id.ends_with("_sizes")
                    || id == "grads"
                    || id.starts_with("result") && id.len() > 6
                {
                    return Err(at(format!(
                        "the formula for `{input}` names `{id}`, which is not an argument of `{}`, `grad`, `result` or `<tensor argument>_sizes`",
                        e.func.name
                    )));
                }
                continue;
            }
            mapped.push_str(&expr[last..s]);
            let r = match id.strip_suffix("_sizes") {
                Some(_) if !args.iter().any(|x| x.name == id) => id.to_string(),
                _ => rust_ident(id),
            };
            mapped.push_str(&r);
            last = t;
            if !names.contains(&id.to_string()) {
                names.push(id.to_string());
                used_by
                    .entry(id.to_string())
                    .or_default()
                    .push(input.clone());
            }
        }
        mapped.push_str(&expr[last..]);
        inputs.push((rust_ident(input), mapped, names));
    }
    let input_names: Vec<&String> = f.formulas.iter().map(|(i, _)| i).collect();
    let mut fields = Vec::new();
    for a in args {
        let id = rust_ident(&a.name);
        if let Some(users) = used_by.get(&a.name) {
            if a.ty.base == BaseTy::Tensor {
                if a.ty.list.is_some() || a.ty.optional {
                    return Err(at(format!(
                        "cannot save `{}` ({}): mark it `manual:`",
                        a.name, a.ty
                    )));
                }
                let all = input_names.iter().all(|i| users.contains(i));
                let make = if all {
                    format!("SavedTensor::input({id})?")
                } else {
                    let cond: Vec<String> = users
                        .iter()
                        .map(|u| format!("{}.requires_grad()", rust_ident(u)))
                        .collect();
                    format!("SavedTensor::input_if({id}, {})?", cond.join(" || "))
                };
                fields.push(Field {
                    name: a.name.clone(),
                    ident: id.clone(),
                    ty: "SavedTensor".into(),
                    make,
                    bind: None,
                    scalar: None,
                    tensor: true,
                });
            } else {
                let t = arg_ty(&a.ty).ok_or_else(|| {
                    at(format!(
                        "cannot save `{}` ({}): mark it `manual:`",
                        a.name, a.ty
                    ))
                })?;
                let field = format!("self.{id}");
                fields.push(Field {
                    name: a.name.clone(),
                    ident: id.clone(),
                    ty: t.field.into(),
                    make: t.save.replace("{}", &id),
                    bind: Some(t.bind.replace("{}", &field)),
                    scalar: t.scalar.map(|s| s.replace("{}", &field)),
                    tensor: false,
                });
            }
        }
        let sizes = format!("{}_sizes", a.name);
        if used_by.contains_key(&sizes) && !args.iter().any(|x| x.name == sizes) {
            let sid = sizes.clone();
            fields.push(Field {
                name: sizes.clone(),
                ident: sid.clone(),
                ty: "Box<[usize]>".into(),
                make: format!("{id}.sizes().into()"),
                bind: Some(format!("&*self.{sid}")),
                scalar: None,
                tensor: false,
            });
        }
    }
    if used_by.contains_key("result") {
        fields.push(Field {
            name: "result".into(),
            ident: "result".into(),
            ty: "SavedTensor".into(),
            make: "SavedTensor::output(&out, 0)?".into(),
            bind: None,
            scalar: None,
            tensor: true,
        });
    }
    Ok((fields, inputs))
}

/// The generated nodes and recording wrappers of the `formula:` entries (OUT_DIR
/// `generated_autograd.rs`, `include!`d by src/core/autograd/generated.rs).
pub(crate) fn gen_nodes(formulas: &[FormulaEntry], ops: &[Op]) -> Result<String, String> {
    use std::fmt::Write;
    let mut out = String::from(
        "// Generated by build.rs (build/gen_autograd.rs) from src/derivatives.yaml: do not edit.\n\n",
    );
    let mut variants = Vec::new();
    let mut no_self = Vec::new();
    let mut reads_self: Vec<String> = Vec::new();
    for f in formulas {
        let e = ops
            .iter()
            .flat_map(|op| &op.entries)
            .find(|e| !e.plan_inplace && e.manual.is_none() && key(e) == f.key)
            .ok_or_else(|| {
                format!(
                    "src/derivatives.yaml line {}: `{}` names no generated op",
                    f.line, f.key
                )
            })?;
        let (fields, inputs) = analyse(f, e)?;
        let sid = struct_ident(&f.key);
        // The node.
        let _ = writeln!(
            out,
            "/// `{}` of `{}` (src/derivatives.yaml line {}).",
            f.class, f.key, f.line
        );
        let _ = writeln!(out, "pub struct {sid} {{");
        for fl in &fields {
            let _ = writeln!(out, "    {}: {},", fl.ident, fl.ty);
        }
        let _ = writeln!(out, "}}\n");
        let _ = writeln!(out, "impl {sid} {{");
        let _ = writeln!(
            out,
            "    fn apply(&self, node: &Arc<Node>, grads: &[Option<Tensor>]) -> Result<Vec<Option<Tensor>>> {{"
        );
        let any_tensor = inputs.iter().any(|(_, _, names)| {
            names
                .iter()
                .any(|nm| fields.iter().any(|fl| &fl.name == nm && fl.tensor))
        });
        let any_grad = inputs
            .iter()
            .any(|(_, _, names)| names.iter().any(|n| n == "grad"));
        // Named so as not to shadow a schema argument (`polygamma`'s `n`).
        if any_tensor {
            let _ = writeln!(out, "        let owner_node = Some(node);");
        }
        let _ = writeln!(
            out,
            "        let needs = |i: usize| node.next_edges().get(i).is_some_and(|e| e.is_some());"
        );
        if any_grad {
            let _ = writeln!(out, "        let g = need(grads)?;");
        } else {
            let _ = writeln!(out, "        let _ = grads;");
        }
        let _ = writeln!(out, "        Ok(vec![");
        for (i, (_, expr, names)) in inputs.iter().enumerate() {
            let _ = writeln!(out, "            if needs({i}) {{");
            for nm in names {
                if nm == "grad" {
                    let _ = writeln!(out, "                let grad: &Tensor = g;");
                    continue;
                }
                let fl = fields
                    .iter()
                    .find(|fl| &fl.name == nm)
                    .expect("a field per name");
                match &fl.bind {
                    None => {
                        let _ = writeln!(
                            out,
                            "                let {} = &self.{}.unpack(owner_node)?;",
                            fl.ident, fl.ident
                        );
                    }
                    Some(b) => {
                        let _ = writeln!(out, "                let {} = {b};", fl.ident);
                    }
                }
            }
            let _ = writeln!(out, "                let r: Result<Tensor> = {expr};");
            let _ = writeln!(out, "                Some(r?)");
            let _ = writeln!(out, "            }} else {{");
            let _ = writeln!(out, "                None");
            let _ = writeln!(out, "            }},");
        }
        let _ = writeln!(out, "        ])\n    }}\n}}\n");
        // The recording wrapper.
        let params: Vec<String> = e
            .func
            .args
            .iter()
            .map(|a| {
                let ty = if a.ty.base == BaseTy::Tensor && a.ty.list.is_none() && !a.ty.optional {
                    "&Tensor".to_string()
                } else {
                    arg_ty(&a.ty)
                        .map(|t| t.param.to_string())
                        .ok_or_else(|| format!("src/derivatives.yaml line {}: `{}`: no wrapper parameter for `{}` ({}); mark it `manual:`", f.line, f.key, a.name, a.ty))?
                };
                Ok(format!("{}: {ty}", rust_ident(&a.name)))
            })
            .collect::<Result<_, String>>()?;
        let call_args: Vec<String> = e.func.args.iter().map(|a| rust_ident(&a.name)).collect();
        let diff: Vec<String> = inputs.iter().map(|(i, _, _)| i.clone()).collect();
        // Note [Recording wrapper split]: the wrapper is `#[inline(always)]` (plain `#[inline]`
        // is not taken: each wrapper has several callers, the function, method and operator
        // bindings) and only tests whether to record; building and recording the node is an out-of-line `record_*` function. Inlined
        // into its binding, the wrapper costs a plain op (no input requires grad) two loads and
        // a test, not a frame of its own that saves five registers and moves the
        // `Result<Tensor>` (~20 instructions per call of `_C.add`, BENCHMARKS.md "Plain ops
        // against the pre-autograd build").
        let _ = writeln!(
            out,
            "/// `{}` recorded as `{}` (generated from src/derivatives.yaml).",
            f.key, f.class
        );
        if params.len() > 7 {
            let _ = writeln!(out, "#[allow(clippy::too_many_arguments)]");
        }
        let _ = writeln!(out, "#[inline(always)]");
        let _ = writeln!(
            out,
            "pub fn {}({}) -> Result<Tensor> {{",
            e.impl_fn,
            params.join(", ")
        );
        let _ = writeln!(
            out,
            "    let out = ops::{}({})?;",
            e.impl_fn,
            call_args.join(", ")
        );
        let _ = writeln!(
            out,
            "    if should_record(&[{}]) && out.dtype().is_floating_point() {{",
            diff.join(", ")
        );
        let _ = writeln!(
            out,
            "        record_{}(&out, {})?;",
            e.impl_fn,
            call_args.join(", ")
        );
        let _ = writeln!(out, "    }}\n    Ok(out)\n}}\n");
        let _ = writeln!(
            out,
            "/// Records `{}` (Note [Recording wrapper split] in build/gen_autograd.rs).",
            f.class
        );
        if params.len() > 6 {
            let _ = writeln!(out, "#[allow(clippy::too_many_arguments)]");
        }
        let _ = writeln!(out, "#[inline(never)]\n#[allow(unused_variables)]");
        let _ = writeln!(
            out,
            "fn record_{}(out: &Tensor, {}) -> Result<()> {{",
            e.impl_fn,
            params.join(", ")
        );
        let _ = writeln!(out, "    let node = {sid} {{");
        for fl in &fields {
            if fl.make == fl.ident {
                let _ = writeln!(out, "        {},", fl.ident);
            } else {
                let _ = writeln!(out, "        {}: {},", fl.ident, fl.make);
            }
        }
        let _ = writeln!(out, "    }};");
        let boxed = fields_bytes(&fields) > INLINE_KIND_BYTES;
        let _ = writeln!(
            out,
            "    record_only(out, &[{}], NodeKind::Generated(Generated::{sid}({})));",
            diff.join(", "),
            if boxed { "Box::new(node)" } else { "node" }
        );
        let _ = writeln!(out, "    Ok(())\n}}\n");
        if e.inplace {
            // An in-place name shared by overloads (`lerp_`) clones when any of them reads self.
            if fields.iter().any(|fl| fl.name == "self" && fl.tensor) {
                reads_self.push(format!("{}_", e.name));
            } else {
                no_self.push(format!("{}_", e.name));
            }
        }
        variants.push((sid, f.class.clone(), fields, boxed));
    }
    // The enum of generated kinds and its tables.
    let _ = writeln!(
        out,
        "/// The generated node kinds (one per `formula:` entry)."
    );
    let _ = writeln!(out, "pub enum Generated {{");
    for (sid, _, _, boxed) in &variants {
        if *boxed {
            let _ = writeln!(out, "    {sid}(Box<{sid}>),");
        } else {
            let _ = writeln!(out, "    {sid}({sid}),");
        }
    }
    let _ = writeln!(out, "}}\n");
    let _ = writeln!(out, "impl Generated {{");
    let _ = writeln!(out, "    /// torch's class name.\n    pub fn name(&self) -> &'static str {{\n        match self {{");
    for (sid, class, _, _) in &variants {
        let _ = writeln!(out, "            Generated::{sid}(_) => {class:?},");
    }
    let _ = writeln!(out, "        }}\n    }}\n");
    let _ = writeln!(out, "    /// The saved tensors by torch's attribute names.\n    pub fn saved_tensors(&self) -> Vec<(&'static str, &SavedTensor)> {{\n        match self {{");
    for (sid, _, fields, _) in &variants {
        let items: Vec<String> = fields
            .iter()
            .filter(|fl| fl.tensor)
            .map(|fl| format!("({:?}, &_n.{})", fl.name, fl.ident))
            .collect();
        let _ = writeln!(
            out,
            "            Generated::{sid}(_n) => vec![{}],",
            items.join(", ")
        );
    }
    let _ = writeln!(out, "        }}\n    }}\n");
    let _ = writeln!(out, "    /// The saved numbers by torch's attribute names.\n    pub fn saved_scalars(&self) -> Vec<(&'static str, Scalar)> {{\n        match self {{");
    for (sid, _, fields, _) in &variants {
        let items: Vec<String> = fields
            .iter()
            .filter_map(|fl| {
                fl.scalar
                    .as_ref()
                    .map(|s| format!("({:?}, {})", fl.name, s.replace("self.", "_n.")))
            })
            .collect();
        let _ = writeln!(
            out,
            "            Generated::{sid}(_n) => vec![{}],",
            items.join(", ")
        );
    }
    let _ = writeln!(out, "        }}\n    }}\n");
    let _ = writeln!(out, "    /// Take out the saved tensors into `out`.\n    pub fn release(&mut self, _out: &mut Vec<SavedTensor>) {{\n        match self {{");
    for (sid, _, fields, _) in &variants {
        let items: Vec<String> = fields
            .iter()
            .filter(|fl| fl.tensor)
            .map(|fl| format!("take_saved(&mut _n.{}, _out);", fl.ident))
            .collect();
        let _ = writeln!(
            out,
            "            Generated::{sid}(_n) => {{ {} }}",
            items.join(" ")
        );
    }
    let _ = writeln!(out, "        }}\n    }}\n");
    let _ = writeln!(out, "    /// The gradients of the inputs.\n    pub fn apply(&self, node: &Arc<Node>, grads: &[Option<Tensor>]) -> Result<Vec<Option<Tensor>>> {{\n        match self {{");
    for (sid, _, _, _) in &variants {
        let _ = writeln!(
            out,
            "            Generated::{sid}(n) => n.apply(node, grads),"
        );
    }
    let _ = writeln!(out, "        }}\n    }}\n}}\n");
    no_self.retain(|n| !reads_self.contains(n));
    no_self.sort();
    no_self.dedup();
    let _ = writeln!(
        out,
        "/// The in-place methods whose formula does not read `self`: they record from `self` itself,\n/// not from a clone of it (Note [In-place ops and history]).\npub const NO_SELF_CLONE: &[&str] = &[{}];",
        no_self.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ")
    );
    Ok(out)
}
