//! build/gen_bindings.rs: the bindings generator — the static parser tables, the `extern "C"`
//! entry points and the method tables of `$OUT_DIR/generated_bindings.rs` (torchgen:
//! `gen_python_functions.py`).

use crate::schema::{BaseTy, DefaultValue, Manual, Op, ReleaseGil, Returns, Type};
use crate::signature::{docstring, entries_of, PySignature, Variant};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The static of a keyword name: `KW_ALPHA`.
fn keyword_static(name: &str) -> String {
    format!("KW_{}", name.to_uppercase())
}

/// The runtime `ParamType` of a schema type.
fn param_type(ty: &Type) -> &'static str {
    match (ty.base, ty.list.is_some()) {
        (BaseTy::Tensor, false) => "Tensor",
        (BaseTy::Tensor, true) => "TensorList",
        (BaseTy::Int, true) => "IntList",
        (BaseTy::Scalar, _) => "Scalar",
        (BaseTy::Int, _) => "Int",
        (BaseTy::Float, _) => "Float",
        (BaseTy::Bool, _) => "Bool",
        (BaseTy::Str, _) => "Str",
        (BaseTy::ScalarType, _) => "ScalarType",
        (BaseTy::Generator, _) => "Generator",
        (BaseTy::PyObject, _) => "Object",
    }
}

/// A default as a `DefaultValue` expression.
fn default_value(d: &DefaultValue) -> String {
    match d {
        DefaultValue::None => "DefaultValue::None".into(),
        DefaultValue::Bool(b) => format!("DefaultValue::Bool({b})"),
        DefaultValue::Int(i) => format!("DefaultValue::Int({i})"),
        DefaultValue::Float(f) => format!("DefaultValue::Float({f:?})"),
        DefaultValue::Str(s) => format!("DefaultValue::Str({s:?})"),
        DefaultValue::IntList(v) => format!(
            "DefaultValue::IntList(&[{}])",
            v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// The static table of one signature: `FunctionSignature::new("add", true, &[...])`.
fn signature_table(sig: &PySignature<'_>, numbers: bool, indent: &str) -> String {
    let mut s = format!("FunctionSignature::new({:?}, {numbers}, &[\n", sig.name());
    for p in &sig.params {
        let mut e = format!(
            "FunctionParameter::new(&{}, ParamType::{})",
            keyword_static(&p.name),
            param_type(&p.ty)
        );
        if let Some(Some(n)) = p.ty.list {
            let _ = write!(e, ".size({n})");
        }
        if p.ty.optional {
            e.push_str(".optional()");
        }
        if let Some(d) = &p.default {
            let _ = write!(e, ".default({})", default_value(&d.value));
        }
        if p.kwarg_only {
            e.push_str(".keyword_only()");
        }
        if p.positional_only {
            e.push_str(".positional_only()");
        }
        let _ = writeln!(s, "{indent}    {e},");
    }
    let _ = write!(s, "{indent}])");
    s
}

/// The parser of `op` in variant `v`: `PythonArgParser::new("add", &[...])`.
fn parser_table(op: &Op, v: Variant) -> String {
    let entries = entries_of(op, v);
    let numbers = entries.iter().any(|e| e.numbers_as_tensors);
    let mut s = format!("PythonArgParser::new({:?}, &[\n", op.name);
    for e in &entries {
        let sig = PySignature::new(e, v);
        let _ = writeln!(s, "        {},", signature_table(&sig, numbers, "        "));
    }
    s.push_str("    ])");
    s
}

/// The extraction of Python parameter `i` of type `ty` into local `a{i}`, and the expression
/// passed to the core function.
fn extract(i: usize, ty: &Type) -> (String, String) {
    let opt = ty.optional;
    match (ty.base, ty.list.is_some(), opt) {
        (BaseTy::Tensor, false, false) => (format!("let a{i} = r.tensor({i})?;"), format!("&a{i}")),
        (BaseTy::Tensor, false, true) => (
            format!("let a{i} = r.optional_tensor({i})?;"),
            format!("a{i}.as_deref()"),
        ),
        (BaseTy::Tensor, true, false) => (
            format!("let a{i} = r.tensor_list({i})?;"),
            format!("&a{i}"),
        ),
        (BaseTy::Int, true, false) => (format!("let a{i} = r.int_list({i})?;"), format!("&a{i}")),
        (BaseTy::Int, true, true) => (
            format!("let a{i} = r.optional_int_list({i})?;"),
            format!("a{i}.as_deref()"),
        ),
        (BaseTy::Scalar, _, false) => (format!("let a{i} = r.scalar({i})?;"), format!("a{i}")),
        (BaseTy::Scalar, _, true) => (
            format!("let a{i} = r.optional_scalar({i})?;"),
            format!("a{i}"),
        ),
        (BaseTy::Int, _, false) => (format!("let a{i} = r.int({i})?;"), format!("a{i}")),
        (BaseTy::Int, _, true) => (format!("let a{i} = r.optional_int({i})?;"), format!("a{i}")),
        (BaseTy::Float, _, false) => (format!("let a{i} = r.float({i})?;"), format!("a{i}")),
        (BaseTy::Bool, _, false) => (format!("let a{i} = r.bool({i})?;"), format!("a{i}")),
        (BaseTy::Str, _, false) => (format!("let a{i} = r.string({i})?;"), format!("a{i}")),
        (BaseTy::Str, _, true) => (
            format!("let a{i} = r.optional_string({i})?;"),
            format!("a{i}"),
        ),
        (BaseTy::ScalarType, _, false) => {
            (format!("let a{i} = r.scalar_type({i})?;"), format!("a{i}"))
        }
        (BaseTy::ScalarType, _, true) => (
            format!("let a{i} = r.optional_scalar_type({i})?;"),
            format!("a{i}"),
        ),
        (BaseTy::Generator, _, true) => (
            format!("let a{i} = r.object({i}).and_then(super::super::generator_object::unpack_generator);"),
            format!("a{i}"),
        ),
        other => panic!("no extractor for schema type {ty} {other:?}"),
    }
}

fn c_str_lit(s: &str) -> String {
    format!("c{:?}", s)
}

/// The Rust name of the entry point of `op` in variant `v`: `fn_add`, `meth_add`,
/// `generator_meth_seed`.
fn entry_point_name(op: &Op, v: Variant) -> String {
    match (v, op.entries[0].owner()) {
        (Variant::Function, _) => format!("fn_{}", op.name),
        (Variant::Method, "Tensor") => format!("meth_{}", op.name),
        (Variant::Method, owner) => format!("{}_meth_{}", owner.to_lowercase(), op.name),
    }
}

fn gen_entry_point(op: &Op, v: Variant, structseqs: &[(String, Vec<String>)], out: &mut String) {
    let entries = entries_of(op, v);
    let fname = entry_point_name(op, v);
    let _ = writeln!(
        out,
        "/// `{}` ({}).",
        op.name,
        if v == Variant::Method {
            "method"
        } else {
            "function"
        }
    );
    let _ = writeln!(
        out,
        "unsafe extern \"C\" fn {fname}(slf: *mut ffi::PyObject, args: *const *mut ffi::PyObject, nargs: ffi::Py_ssize_t, kwnames: *mut ffi::PyObject) -> *mut ffi::PyObject {{"
    );
    let _ = writeln!(
        out,
        "    static PARSER: PythonArgParser = {};",
        parser_table(op, v)
    );
    let _ = writeln!(out, "    crate::handle_errors!({{");
    let _ = writeln!(out, "        let mut slots = ArgSlots::new();");
    let _ = writeln!(
        out,
        "        // SAFETY: CPython's METH_FASTCALL|METH_KEYWORDS calling convention: `args` holds nargs + len(kwnames) borrowed objects that outlive this call."
    );
    let _ = writeln!(
        out,
        "        let r = unsafe {{ PARSER.parse(&mut slots, args, nargs, kwnames) }}?;"
    );
    if v == Variant::Method {
        let _ = writeln!(
            out,
            "        // SAFETY: `slf` is the instance this method was looked up on: a live `_C.Tensor` (borrowed)."
        );
        let _ = writeln!(
            out,
            "        let self_obj = unsafe {{ Borrowed::from_ptr(slf) }};"
        );
        let _ = writeln!(
            out,
            "        // SAFETY: method descriptors of `_C.Tensor` only bind to tensors."
        );
        let _ = writeln!(
            out,
            "        let self_t = unsafe {{ tensor_ref(self_obj) }};"
        );
        // The override protocol (src/bindings/override_protocol.rs): `self` counts first.
        let _ = writeln!(
            out,
            "        if r.has_overloaded() || override_protocol::overrides(self_obj) {{"
        );
        let _ = writeln!(
            out,
            "            let overloaded = r.overloaded().with_self(self_obj);"
        );
        let _ = writeln!(
            out,
            "            // SAFETY: as for `parse` above; `_C.Tensor` owns the method named here."
        );
        let _ = writeln!(out, "            return unsafe {{ override_protocol::dispatch(&overloaded, tensor_type() as *mut ffi::PyObject, {:?}, Some(self_obj), args, nargs, kwnames) }};", op.name);
        let _ = writeln!(out, "        }}");
    } else {
        let _ = writeln!(out, "        if r.has_overloaded() {{");
        let _ = writeln!(out, "            // SAFETY: as for `parse` above; `slf` is the module, which owns the function named here.");
        let _ = writeln!(out, "            return unsafe {{ override_protocol::dispatch(&r.overloaded(), slf, {:?}, None, args, nargs, kwnames) }};", op.name);
        let _ = writeln!(out, "        }}");
    }
    if let Some(Manual::Fastcall(path)) = op.manual() {
        let _ = writeln!(out, "        super::super::{path}(&r)");
        let _ = writeln!(out, "    }})");
        let _ = writeln!(out, "}}\n");
        return;
    }
    let _ = writeln!(out, "        match r.idx {{");
    for (idx, e) in entries.iter().enumerate() {
        let _ = writeln!(out, "            {idx} => {{");
        let sig = PySignature::new(e, v);
        // See Note [Core calls without the GIL] (src/bindings/gil.rs): ops with tensor arguments
        // and no Python-object arguments release the GIL around the core call above a threshold.
        let python_object_arg = e
            .func
            .args
            .iter()
            .any(|a| matches!(a.ty.base, BaseTy::Generator | BaseTy::PyObject));
        let unlock = e.release_gil != ReleaseGil::Never
            && !python_object_arg
            && e.func.args.iter().any(|a| a.ty.base == BaseTy::Tensor);
        let mut call_args = Vec::new();
        // (expression of an `Option<&Tensor>`, statement making the handle our own) per tensor
        // argument, and the element count of `Tensor[]` arguments.
        let mut tensors: Vec<(String, Option<String>)> = Vec::new();
        let mut list_elements: Vec<String> = Vec::new();
        for (a, pi) in e.func.args.iter().zip(&sig.arg_params) {
            let Some(py_i) = *pi else {
                // The bound `self` of a method.
                if unlock {
                    let _ = writeln!(
                        out,
                        "                let mut self_a = TensorArg::Borrowed(self_t);"
                    );
                    call_args.push("&self_a".to_string());
                    tensors.push(("Some(&*self_a)".into(), Some("self_a.own();".into())));
                } else {
                    call_args.push("self_t".to_string());
                }
                continue;
            };
            let (mut stmt, expr) = extract(py_i, &a.ty);
            if unlock {
                if a.ty.is_tensor() && !a.ty.optional {
                    stmt = stmt.replacen("let ", "let mut ", 1);
                    tensors.push((format!("Some(&*a{py_i})"), Some(format!("a{py_i}.own();"))));
                } else if a.ty.is_tensor() {
                    stmt = stmt.replacen("let ", "let mut ", 1);
                    tensors.push((
                        format!("a{py_i}.as_deref()"),
                        Some(format!("if let Some(t) = a{py_i}.as_mut() {{ t.own(); }}")),
                    ));
                } else if a.ty.is_tensor_list() {
                    list_elements.push(format!(
                        "a{py_i}.iter().map(crate::core::Tensor::numel).sum::<usize>()"
                    ));
                }
            }
            let _ = writeln!(out, "                {stmt}");
            call_args.push(expr);
        }
        let mut call = format!("crate::core::ops::{}({})", e.impl_fn, call_args.join(", "));
        let mut pre = String::new();
        if unlock {
            let worth = if e.release_gil == ReleaseGil::Matmul && tensors.len() >= 2 {
                let arg = |k: usize| {
                    tensors[k]
                        .0
                        .strip_prefix("Some(&*")
                        .and_then(|x| x.strip_suffix(')'))
                        .map(|x| format!("&{x}"))
                        .expect("matmul operands are Tensor")
                };
                format!("gil::matmul_worth({}, {})", arg(0), arg(1))
            } else {
                let mut sum = format!(
                    "gil::elements(&[{}])",
                    tensors
                        .iter()
                        .map(|t| t.0.clone())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                for l in &list_elements {
                    sum.push_str(&format!(" + {l}"));
                }
                format!("gil::elementwise_worth({sum})")
            };
            // Emitted right before the core call is used (for a structured op with `out=`, only
            // on the path without `out`, which is the one that calls it).
            let owns: Vec<&str> = tensors.iter().filter_map(|t| t.1.as_deref()).collect();
            let _ = writeln!(pre, "                let unlocked = if {worth} {{");
            for o in owns {
                let _ = writeln!(pre, "                    {o}");
            }
            let _ = writeln!(pre, "                    // SAFETY: the GIL is held; until `unlocked` is dropped only the core call runs, on our own tensor handles (Note [Core calls without the GIL]).");
            let _ = writeln!(
                pre,
                "                    Some(unsafe {{ gil::Unlocked::new() }})"
            );
            let _ = writeln!(pre, "                }} else {{");
            let _ = writeln!(pre, "                    None");
            let _ = writeln!(pre, "                }};");
            let _ = writeln!(pre, "                let ret = {call};");
            let _ = writeln!(pre, "                drop(unlocked);");
            call = "ret".to_string();
        }
        let out_index = sig.out;
        let structured_out = e.structured && out_index.is_some();
        if !structured_out {
            out.push_str(&pre);
        }
        match &e.func.returns {
            Returns::One(t) if t.is_tensor() && e.func.is_inplace() => {
                let _ = writeln!(out, "                {call}?;");
                let self_expr = if v == Variant::Method {
                    "self_obj".to_string()
                } else {
                    let pos = sig
                        .params
                        .iter()
                        .position(|p| p.name == "input")
                        .expect("in-place op needs self");
                    format!("r.object({pos}).expect(\"self is required\")")
                };
                let _ = writeln!(out, "                Ok({self_expr}.to_owned().release())");
            }
            Returns::One(t) if t.is_tensor() => match out_index {
                Some(oi) if e.structured => {
                    // out= writes straight into `out` through the op's plan (no result copy).
                    let plan = format!(
                        "crate::core::ops::{}_plan({})",
                        e.impl_fn,
                        call_args.join(", ")
                    );
                    let _ = writeln!(out, "                match r.object({oi}) {{");
                    let _ = writeln!(out, "                    None => {{");
                    out.push_str(&pre);
                    let _ = writeln!(out, "                        Ok(wrap({call}?)?.release())");
                    let _ = writeln!(out, "                    }}");
                    let _ = writeln!(
                        out,
                        "                    Some(o) => write_out_plan(o, {plan}?, {:?}),",
                        op.name
                    );
                    let _ = writeln!(out, "                }}");
                }
                Some(oi) => {
                    // Without `out`, wrap the result directly (no call into `write_out`).
                    let _ = writeln!(out, "                let result = {call}?;");
                    let _ = writeln!(out, "                match r.object({oi}) {{");
                    let _ = writeln!(
                        out,
                        "                    None => Ok(wrap(result)?.release()),"
                    );
                    let _ = writeln!(
                        out,
                        "                    Some(o) => write_out(o, result, {:?}),",
                        op.name
                    );
                    let _ = writeln!(out, "                }}");
                }
                None => {
                    let _ = writeln!(out, "                Ok(wrap({call}?)?.release())");
                }
            },
            Returns::One(t) if t.is_tensor_list() => {
                let _ = writeln!(
                    out,
                    "                let v: Vec<crate::core::Tensor> = {call}?;"
                );
                if e.unwrap_single {
                    let _ = writeln!(out, "                if v.len() == 1 {{");
                    let _ = writeln!(out, "                    return Ok(wrap(v.into_iter().next().expect(\"one\"))?.release());");
                    let _ = writeln!(out, "                }}");
                }
                let _ = writeln!(
                    out,
                    "                Ok(structseq::tensor_tuple(v)?.release())"
                );
            }
            Returns::One(t) if t.is_int_list() => {
                let _ = writeln!(out, "                let v: Vec<i64> = {call}?;");
                let _ = writeln!(
                    out,
                    "                Ok(convert::int_tuple(v.into_iter())?.release())"
                );
            }
            Returns::One(t) => {
                let conv = match t.base {
                    BaseTy::Scalar => "convert::scalar_to_py({call}?)?.release()",
                    BaseTy::Int => "convert::py_int({call}?)?.release()",
                    BaseTy::Float => "convert::py_float({call}?)?.release()",
                    BaseTy::Bool => "py_bool({call}?).release()",
                    _ => panic!("{}: unsupported return type {t}", op.name),
                };
                let _ = writeln!(out, "                Ok({})", conv.replace("{call}", &call));
            }
            Returns::Named(fields) => {
                let idx = structseq_index(structseqs, &op.name, fields);
                let names: Vec<String> = (0..fields.len()).map(|k| format!("r{k}")).collect();
                let _ = writeln!(out, "                let ({}) = {call}?;", names.join(", "));
                let _ = writeln!(
                    out,
                    "                Ok(structseq::new_return({idx}, vec![{}])?.release())",
                    names.join(", ")
                );
            }
            Returns::Nothing => panic!("{}: unsupported return ()", op.name),
        }
        let _ = writeln!(out, "            }}");
    }
    let _ = writeln!(
        out,
        "            _ => unreachable!(\"parser returned an unknown overload\"),"
    );
    let _ = writeln!(out, "        }}");
    let _ = writeln!(out, "    }})");
    let _ = writeln!(out, "}}\n");
}

/// The named-tuple return types, one per op name (torch: `torch.return_types.<op>`), in schema
/// order: `(op name, field names)`.
pub(crate) fn collect_structseqs(ops: &[Op]) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for op in ops {
        for e in &op.entries {
            if let Returns::Named(fields) = &e.func.returns {
                match out.iter().find(|(n, _)| *n == op.name) {
                    Some((_, f)) => assert_eq!(
                        f, fields,
                        "{}: overloads return different named tuples",
                        op.name
                    ),
                    None => out.push((op.name.clone(), fields.clone())),
                }
            }
        }
    }
    out
}

fn structseq_index(structseqs: &[(String, Vec<String>)], name: &str, fields: &[String]) -> usize {
    structseqs
        .iter()
        .position(|(n, f)| n == name && f == fields)
        .expect("collected")
}

/// The distinct parameter names of every parser, sorted.
fn keyword_names(ops: &[Op]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for op in ops {
        if op
            .manual()
            .is_some_and(|m| !matches!(m, Manual::Fastcall(_)))
        {
            continue;
        }
        for v in [Variant::Function, Variant::Method] {
            for e in entries_of(op, v) {
                for p in PySignature::new(e, v).params {
                    names.insert(p.name);
                }
            }
        }
    }
    names
}

/// A `PyMethodDef` row.
fn method_def(name: &str, fname: &str, doc: &str) -> String {
    format!(
        "    ffi::PyMethodDef {{ ml_name: {}.as_ptr(), ml_meth: ffi::PyMethodDefPointer {{ PyCFunctionFastWithKeywords: {fname} }}, ml_flags: ffi::METH_FASTCALL | ffi::METH_KEYWORDS, ml_doc: {}.as_ptr() }},",
        c_str_lit(name),
        c_str_lit(doc)
    )
}

pub(crate) fn gen_bindings(ops: &[Op]) -> String {
    let mut out = String::new();
    let structseqs = collect_structseqs(ops);
    out.push_str("// @generated from src/native_functions.yaml by build.rs — do not edit.\n");
    out.push_str("// Included once, by src/bindings/generated.rs.\n\n");
    let _ = writeln!(out, "/// The named-tuple return types: (name, field names), indexed by `structseq::new_return`.");
    let _ = writeln!(
        out,
        "pub(super) static RETURN_TYPES: &[(&str, &[&str])] = &["
    );
    for (name, fields) in &structseqs {
        let fs: Vec<String> = fields.iter().map(|f| format!("{f:?}")).collect();
        let _ = writeln!(out, "    ({name:?}, &[{}]),", fs.join(", "));
    }
    let _ = writeln!(out, "];\n");
    let names = keyword_names(ops);
    let _ = writeln!(
        out,
        "// The parameter names of every parser, interned at init."
    );
    for n in &names {
        let _ = writeln!(
            out,
            "static {}: Keyword = Keyword::new({n:?}, {});",
            keyword_static(n),
            c_str_lit(n)
        );
    }
    let _ = writeln!(
        out,
        "/// Every keyword static above, for `arg_parser::intern_keywords`."
    );
    let _ = writeln!(
        out,
        "pub(super) static KEYWORDS: [&Keyword; {}] = [{}];\n",
        names.len(),
        names
            .iter()
            .map(|n| format!("&{}", keyword_static(n)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut fn_table = Vec::new();
    let mut meth_table = Vec::new();
    for op in ops {
        if op
            .manual()
            .is_some_and(|m| !matches!(m, Manual::Fastcall(_)))
        {
            continue;
        }
        for v in [Variant::Function, Variant::Method] {
            if entries_of(op, v).is_empty() {
                continue;
            }
            gen_entry_point(op, v, &structseqs, &mut out);
            let row = method_def(&op.name, &entry_point_name(op, v), &docstring(op, v));
            match v {
                Variant::Function => fn_table.push(row),
                Variant::Method => meth_table.push(row),
            }
        }
    }
    let _ = writeln!(out, "/// The generated module functions (no sentinel).");
    let _ = writeln!(
        out,
        "pub(super) static FUNCTIONS: MethodTable<{}> = MethodTable([\n{}\n]);\n",
        fn_table.len(),
        fn_table.join("\n")
    );
    let _ = writeln!(out, "/// The generated `_C.Tensor` methods (no sentinel).");
    let _ = writeln!(
        out,
        "pub(super) static TENSOR_METHODS: MethodTable<{}> = MethodTable([\n{}\n]);\n",
        meth_table.len(),
        meth_table.join("\n")
    );
    out
}
