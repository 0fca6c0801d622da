//! build/gen_bindings.rs: the bindings generator — the `extern "C"` entry points and the
//! method tables of `$OUT_DIR/generated_bindings.rs` (torchgen: `gen_python_functions.py`).

use crate::schema::{Entry, Op, ReleaseGil};
use crate::signature::*;
use std::fmt::Write as _;

pub(crate) fn rust_ident(name: &str) -> String {
    name.to_string()
}

/// The extraction of python parameter `i` of type `ty` into local `a{i}`, and the expression
/// passed to the core function.
pub(crate) fn extract(i: usize, ty: &str) -> (String, String) {
    let t = parser_type(ty);
    let (base, opt) = match t.strip_suffix('?') {
        Some(b) => (b.to_string(), true),
        None => (t.clone(), false),
    };
    let is_int_list = base.starts_with("int[");
    match (base.as_str(), opt) {
        ("Tensor", false) => (format!("let a{i} = r.tensor({i})?;"), format!("&a{i}")),
        ("Tensor", true) => (
            format!("let a{i} = r.optional_tensor({i})?;"),
            format!("a{i}.as_deref()"),
        ),
        ("Scalar", false) => (format!("let a{i} = r.scalar({i})?;"), format!("a{i}")),
        ("Scalar", true) => (
            format!("let a{i} = r.optional_scalar({i})?;"),
            format!("a{i}"),
        ),
        ("int", false) => (format!("let a{i} = r.int({i})?;"), format!("a{i}")),
        ("int", true) => (format!("let a{i} = r.optional_int({i})?;"), format!("a{i}")),
        ("float", false) => (format!("let a{i} = r.float({i})?;"), format!("a{i}")),
        ("bool", false) => (format!("let a{i} = r.bool({i})?;"), format!("a{i}")),
        ("str", false) => (format!("let a{i} = r.string({i})?;"), format!("a{i}")),
        ("str", true) => (
            format!("let a{i} = r.optional_string({i})?;"),
            format!("a{i}"),
        ),
        ("ScalarType", false) => (format!("let a{i} = r.scalar_type({i})?;"), format!("a{i}")),
        ("ScalarType", true) => (
            format!("let a{i} = r.optional_scalar_type({i})?;"),
            format!("a{i}"),
        ),
        ("Tensor[]", false) => (format!("let a{i} = r.tensor_list({i})?;"), format!("&a{i}")),
        ("Generator", true) => (
            format!("let a{i} = r.object({i}).and_then(super::super::generator_object::unpack_generator);"),
            format!("a{i}"),
        ),
        (_, false) if is_int_list => (format!("let a{i} = r.int_list({i})?;"), format!("&a{i}")),
        (_, true) if is_int_list => (
            format!("let a{i} = r.optional_int_list({i})?;"),
            format!("a{i}.as_deref()"),
        ),
        other => panic!("no extractor for schema type {other:?}"),
    }
}

pub(crate) fn c_str_lit(s: &str) -> String {
    format!("c{:?}", s)
}

pub(crate) fn gen_entry_point(
    op: &Op,
    v: Variant,
    structseqs: &[(String, Vec<String>)],
    out: &mut String,
) {
    let entries: Vec<&Entry> = op.entries.iter().filter(|e| variant_has(e, v)).collect();
    let fname = match v {
        Variant::Function => format!("fn_{}", rust_ident(&op.name)),
        Variant::Method => format!("meth_{}", rust_ident(&op.name)),
    };
    let specs: Vec<String> = entries
        .iter()
        .map(|e| format!("{:?}", parser_spec(&op.name, &py_params(e, v))))
        .collect();
    let numbers = entries.iter().any(|e| e.numbers_as_tensors);
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
        "    static PARSER: PythonArgParser = PythonArgParser::new({:?}, &[{}], {numbers});",
        op.name,
        specs.join(", ")
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
    let _ = writeln!(out, "        match r.idx {{");
    for (idx, e) in entries.iter().enumerate() {
        let _ = writeln!(out, "            {idx} => {{");
        let ps = py_params(e, v);
        // See Note [Core calls without the GIL] (src/bindings/gil.rs): ops with tensor arguments
        // and no Python-object arguments release the GIL around the core call above a threshold.
        let is_tensor_ty =
            |ty: &str| matches!(parser_type(ty).as_str(), "Tensor" | "Tensor?" | "Tensor[]");
        let python_object_arg = e.args.iter().any(|a| {
            matches!(
                parser_type(&a.ty).trim_end_matches('?'),
                "Generator" | "PyObject*"
            )
        });
        let unlock = e.release_gil != ReleaseGil::Never
            && !python_object_arg
            && e.args.iter().any(|a| is_tensor_ty(&a.ty));
        let mut call_args = Vec::new();
        // (expression of an `Option<&Tensor>`, statement making the handle our own) per tensor
        // argument, and the element count of `Tensor[]` arguments.
        let mut tensors: Vec<(String, Option<String>)> = Vec::new();
        let mut list_elements: Vec<String> = Vec::new();
        let mut py_i = 0usize;
        for a in &e.args {
            if a.name == "self" && v == Variant::Method {
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
            }
            let (mut stmt, expr) = extract(py_i, &a.ty);
            if unlock {
                match parser_type(&a.ty).as_str() {
                    "Tensor" => {
                        stmt = stmt.replacen("let ", "let mut ", 1);
                        tensors.push((format!("Some(&*a{py_i})"), Some(format!("a{py_i}.own();"))));
                    }
                    "Tensor?" => {
                        stmt = stmt.replacen("let ", "let mut ", 1);
                        tensors.push((
                            format!("a{py_i}.as_deref()"),
                            Some(format!("if let Some(t) = a{py_i}.as_mut() {{ t.own(); }}")),
                        ));
                    }
                    "Tensor[]" => list_elements.push(format!(
                        "a{py_i}.iter().map(crate::core::Tensor::numel).sum::<usize>()"
                    )),
                    _ => {}
                }
            }
            let _ = writeln!(out, "                {stmt}");
            call_args.push(expr);
            py_i += 1;
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
        let out_index = if e.out && v == Variant::Function {
            Some(ps.len() - 1)
        } else {
            None
        };
        let structured_out = e.structured && out_index.is_some() && e.ret == "Tensor";
        if !structured_out {
            out.push_str(&pre);
        }
        match e.ret.as_str() {
            "Tensor" => match out_index {
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
            "Tensor(a!)" => {
                let _ = writeln!(out, "                {call}?;");
                let self_expr = if v == Variant::Method {
                    "self_obj".to_string()
                } else {
                    let pos = ps
                        .iter()
                        .position(|p| p.name == "input")
                        .expect("in-place op needs self");
                    format!("r.object({pos}).expect(\"self is required\")")
                };
                let _ = writeln!(out, "                Ok({self_expr}.to_owned().release())");
            }
            "Scalar" => {
                let _ = writeln!(
                    out,
                    "                Ok(convert::scalar_to_py({call}?)?.release())"
                );
            }
            "int" => {
                let _ = writeln!(
                    out,
                    "                Ok(convert::py_int({call}?)?.release())"
                );
            }
            "float" => {
                let _ = writeln!(
                    out,
                    "                Ok(convert::py_float({call}?)?.release())"
                );
            }
            "bool" => {
                let _ = writeln!(out, "                Ok(py_bool({call}?).release())");
            }
            "int[]" => {
                let _ = writeln!(out, "                let v: Vec<i64> = {call}?;");
                let _ = writeln!(
                    out,
                    "                Ok(convert::int_tuple(v.into_iter())?.release())"
                );
            }
            "Tensor[]" => {
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
            ret if tuple_fields(ret).is_some() => {
                let n = tuple_fields(ret).expect("checked").len();
                let idx = structseq_index(structseqs, &op.name, ret);
                let names: Vec<String> = (0..n).map(|k| format!("r{k}")).collect();
                let _ = writeln!(out, "                let ({}) = {call}?;", names.join(", "));
                let _ = writeln!(
                    out,
                    "                Ok(structseq::new_return({idx}, vec![{}])?.release())",
                    names.join(", ")
                );
            }
            other => panic!("{}: unsupported return type {other}", op.name),
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
            if let Some(fields) = tuple_fields(&e.ret) {
                match out.iter().find(|(n, _)| *n == op.name) {
                    Some((_, f)) => assert_eq!(
                        *f, fields,
                        "{}: overloads return different named tuples",
                        op.name
                    ),
                    None => out.push((op.name.clone(), fields)),
                }
            }
        }
    }
    out
}

pub(crate) fn structseq_index(
    structseqs: &[(String, Vec<String>)],
    name: &str,
    ret: &str,
) -> usize {
    let fields = tuple_fields(ret).expect("a named-tuple return");
    structseqs
        .iter()
        .position(|(n, f)| n == name && *f == fields)
        .expect("collected")
}

pub(crate) fn gen_bindings(ops: &[Op]) -> String {
    let mut out = String::new();
    let structseqs = collect_structseqs(ops);
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
    out.push_str("// @generated from src/native_functions.yaml by build.rs — do not edit.\n");
    out.push_str("// Included once, by src/bindings/generated.rs.\n\n");
    let mut fn_table = Vec::new();
    let mut meth_table = Vec::new();
    for op in ops {
        for v in [Variant::Function, Variant::Method] {
            if !op.entries.iter().any(|e| variant_has(e, v)) {
                continue;
            }
            gen_entry_point(op, v, &structseqs, &mut out);
            let fname = match v {
                Variant::Function => format!("fn_{}", op.name),
                Variant::Method => format!("meth_{}", op.name),
            };
            let row = format!(
                "    ffi::PyMethodDef {{ ml_name: {}.as_ptr(), ml_meth: ffi::PyMethodDefPointer {{ PyCFunctionFastWithKeywords: {fname} }}, ml_flags: ffi::METH_FASTCALL | ffi::METH_KEYWORDS, ml_doc: {}.as_ptr() }},",
                c_str_lit(&op.name),
                c_str_lit(&docstring(op, v))
            );
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
