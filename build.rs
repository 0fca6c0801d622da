//! build.rs: reads `src/native_functions.yaml` (the op schema, torch's syntax) and writes into
//! `$OUT_DIR`: the binding functions and method tables (`generated_bindings.rs`) and the type
//! stub (`_C.pyi`). One parsed schema entry feeds the parser spec, the docstring, the
//! `__text_signature__` and the stub (PyTorch: `gen_python_functions.py`).
//! It also emits the `py_debug` cfg when the target interpreter is a `Py_DEBUG` build.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/native_functions.yaml");
    println!("cargo:rerun-if-changed=src/bindings/stub_prelude.pyi");
    println!("cargo:rerun-if-changed=src/c/layout.c");
    println!("cargo:rerun-if-changed=include/tensorbind.h");
    println!("cargo:rerun-if-changed=src/c/trashcan.c");
    println!("cargo:rustc-check-cfg=cfg(py_debug)");
    let python = emit_python_cfg();
    // The C view of a tensor (include/tensorbind.h): compile its layout probe so the Rust side
    // can check both compilers agree (src/bindings/c_view.rs). And the C shims around CPython
    // macros pyo3-ffi lacks (src/c/trashcan.c), against the target interpreter's headers.
    cc::Build::new()
        .file("src/c/layout.c")
        .file("src/c/trashcan.c")
        .include("include")
        .include(python_include_dir(python.as_deref()))
        .warnings(true)
        .compile("tensorbind_c");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let schema = std::fs::read_to_string("src/native_functions.yaml").expect("read schema");
    let entries = parse_yaml(&schema).unwrap_or_else(|e| panic!("src/native_functions.yaml: {e}"));
    let ops = group(entries);
    std::fs::write(out_dir.join("generated_bindings.rs"), gen_bindings(&ops)).expect("write");
    let prelude = std::fs::read_to_string("src/bindings/stub_prelude.pyi").expect("read prelude");
    std::fs::write(out_dir.join("_C.pyi"), gen_stub(&ops, &prelude)).expect("write stub");
    std::fs::write(out_dir.join("op_list.md"), gen_op_list(&ops)).expect("write op list");
}

/// pyo3-ffi serialises the interpreter config as hex-encoded `key=value` lines in
/// `DEP_PYTHON_PYO3_CONFIG` (it declares `links = "python"`); `build_flags` lists `Py_DEBUG`.
/// Returns the interpreter's `executable` when the config names one.
fn emit_python_cfg() -> Option<String> {
    let hex = std::env::var("DEP_PYTHON_PYO3_CONFIG").ok()?;
    let bytes: Vec<u8> = (0..hex.len() / 2)
        .filter_map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
        .collect();
    let text = String::from_utf8_lossy(&bytes);
    let mut executable = None;
    for line in text.lines() {
        if let Some(flags) = line.strip_prefix("build_flags=") {
            if flags.split(',').any(|f| f == "Py_DEBUG") {
                println!("cargo:rustc-cfg=py_debug");
            }
        }
        if let Some(exe) = line.strip_prefix("executable=") {
            executable = Some(exe.to_string());
        }
    }
    executable
}

/// The C header directory of the interpreter `python` (or of `python3` on PATH), asked of the
/// interpreter itself, so C shims compile against the headers of the build they link into.
fn python_include_dir(python: Option<&str>) -> PathBuf {
    let exe = python.unwrap_or("python3");
    let out = std::process::Command::new(exe)
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['include'])",
        ])
        .output()
        .unwrap_or_else(|e| panic!("running {exe} to find Python's headers: {e}"));
    assert!(
        out.status.success(),
        "{exe} could not report its include directory"
    );
    let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    assert!(
        dir.join("Python.h").exists(),
        "Python.h not found in {} (install the interpreter's development headers)",
        dir.display()
    );
    dir
}

// ----- schema ---------------------------------------------------------------------------------

#[derive(Clone, Debug)]
struct Arg {
    ty: String, // schema type without alias annotation, e.g. "Tensor", "int[1]?", "ScalarType?"
    name: String,
    default: Option<String>,
    kwarg_only: bool,
}

#[derive(Clone, Debug)]
struct Entry {
    name: String, // python name, e.g. "add"
    args: Vec<Arg>,
    ret: String, // "Tensor", "Tensor(a!)", "Scalar", "int", "bool", "int[]"
    function: bool,
    method: bool,
    numbers_as_tensors: bool,
    unwrap_single: bool,
    out: bool,
    /// `release_gil`: how the generated binding measures the work above which the core call runs
    /// without the GIL (src/bindings/gil.rs).
    release_gil: ReleaseGil,
    /// `structured: True`: the core has `{impl}_plan` (checks, then runs into a new tensor or
    /// straight into `out=`), which the `out=` path calls instead of computing and copying.
    structured: bool,
    impl_fn: String,
    doc: String,
}

/// The schema's `release_gil` key.
#[derive(Clone, Copy, Debug, PartialEq)]
enum ReleaseGil {
    /// `False`: views and metadata, whose cost does not grow with the data.
    Never,
    /// The default: elements of all tensor arguments (`gil::elementwise_worth`).
    Elements,
    /// `matmul`: multiply-adds of the first two tensor arguments (`gil::matmul_worth`).
    Matmul,
}

/// The schema subset we use: a list of mappings, one `key: value` per line.
fn parse_yaml(text: &str) -> Result<Vec<Entry>, String> {
    let mut raw: Vec<BTreeMap<String, String>> = Vec::new();
    for (lineno, line) in text.lines().enumerate() {
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
                "line {}: expected '- key: value' or '  key: value'",
                lineno + 1
            ));
        };
        if new_item {
            raw.push(BTreeMap::new());
        }
        let (k, v) = body
            .split_once(':')
            .ok_or_else(|| format!("line {}: no ':'", lineno + 1))?;
        let item = raw
            .last_mut()
            .ok_or_else(|| format!("line {}: key outside an item", lineno + 1))?;
        item.insert(k.trim().to_string(), v.trim().to_string());
    }
    raw.into_iter().map(entry_from_map).collect()
}

fn entry_from_map(m: BTreeMap<String, String>) -> Result<Entry, String> {
    for k in m.keys() {
        if ![
            "func",
            "variants",
            "numbers_as_tensors",
            "unwrap_single",
            "out",
            "release_gil",
            "structured",
            "impl",
            "doc",
        ]
        .contains(&k.as_str())
        {
            return Err(format!("unknown key {k:?} in {m:?}"));
        }
    }
    let func = m.get("func").ok_or("entry without func")?;
    let (sig, ret) = func
        .rsplit_once(" -> ")
        .ok_or_else(|| format!("{func}: no return type"))?;
    let open = sig.find('(').ok_or_else(|| format!("{func}: no '('"))?;
    let full_name = &sig[..open];
    let (name, overload) = match full_name.split_once('.') {
        Some((n, o)) => (n.to_string(), Some(o.to_string())),
        None => (full_name.to_string(), None),
    };
    let body = sig[open + 1..]
        .strip_suffix(')')
        .ok_or_else(|| format!("{func}: no ')'"))?;
    let mut args = Vec::new();
    let mut kwarg_only = false;
    for a in body.split(", ").filter(|s| !s.is_empty()) {
        if a == "*" {
            kwarg_only = true;
            continue;
        }
        let (decl, default) = match a.split_once('=') {
            Some((d, v)) => (d, Some(v.to_string())),
            None => (a, None),
        };
        let (ty, aname) = decl
            .rsplit_once(' ')
            .ok_or_else(|| format!("{func}: bad arg {a}"))?;
        let ty = ty.replace("(a!)", "").replace("(a)", "");
        args.push(Arg {
            ty,
            name: aname.to_string(),
            default,
            kwarg_only,
        });
    }
    let variants = m.get("variants").map(String::as_str).unwrap_or("function");
    let flag = |k: &str| m.get(k).map(|v| v == "True").unwrap_or(false);
    let impl_fn = m.get("impl").cloned().unwrap_or_else(|| match &overload {
        Some(o) => format!("{name}_{o}"),
        None => name.clone(),
    });
    Ok(Entry {
        name,
        args,
        ret: ret.trim().to_string(),
        function: variants.contains("function"),
        method: variants.contains("method"),
        numbers_as_tensors: flag("numbers_as_tensors"),
        unwrap_single: flag("unwrap_single"),
        out: flag("out"),
        release_gil: match m.get("release_gil").map(String::as_str) {
            None | Some("True") => ReleaseGil::Elements,
            Some("False") => ReleaseGil::Never,
            Some("matmul") => ReleaseGil::Matmul,
            Some(other) => return Err(format!("{func}: release_gil: {other}?")),
        },
        structured: flag("structured"),
        impl_fn,
        doc: m
            .get("doc")
            .cloned()
            .ok_or_else(|| format!("{func}: every op needs a doc line"))?,
    })
}

/// Overloads grouped by python name, in first-appearance order (the order they are tried).
struct Op {
    name: String,
    entries: Vec<Entry>,
}

fn group(entries: Vec<Entry>) -> Vec<Op> {
    let mut ops: Vec<Op> = Vec::new();
    for e in entries {
        match ops.iter_mut().find(|o| o.name == e.name) {
            Some(o) => o.entries.push(e),
            None => ops.push(Op {
                name: e.name.clone(),
                entries: vec![e],
            }),
        }
    }
    ops
}

// ----- one model of each python signature -----------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum Variant {
    Function,
    Method,
}

/// The python-visible parameters of one entry in one variant: `self` becomes `input` for
/// functions and is dropped for methods; `out=` is appended for functions with `out: True`.
fn py_params(e: &Entry, v: Variant) -> Vec<Arg> {
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

fn parser_type(ty: &str) -> String {
    ty.replace("SymInt", "int")
}

fn parser_spec(name: &str, ps: &[Arg]) -> String {
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
fn py_default(d: &str) -> String {
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
fn py_signature(ps: &[Arg], first: Option<&str>) -> String {
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

fn stub_type(ty: &str, numbers_as_tensors: bool) -> String {
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
fn tuple_fields(ret: &str) -> Option<Vec<String>> {
    let inner = ret.strip_prefix('(')?.strip_suffix(')')?;
    inner
        .split(", ")
        .map(|f| f.strip_prefix("Tensor ").map(str::to_string))
        .collect()
}

fn stub_ret(ret: &str, unwrap_single: bool) -> String {
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
fn stub_ret_of(op_name: &str, e: &Entry) -> String {
    if tuple_fields(&e.ret).is_some() {
        return format!("return_types.{op_name}");
    }
    stub_ret(&e.ret, e.unwrap_single)
}

// ----- bindings -------------------------------------------------------------------------------

fn rust_ident(name: &str) -> String {
    name.to_string()
}

/// The extraction of python parameter `i` of type `ty` into local `a{i}`, and the expression
/// passed to the core function.
fn extract(i: usize, ty: &str) -> (String, String) {
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

fn docstring(op: &Op, v: Variant) -> String {
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

fn variant_has(e: &Entry, v: Variant) -> bool {
    match v {
        Variant::Function => e.function,
        Variant::Method => e.method,
    }
}

fn c_str_lit(s: &str) -> String {
    format!("c{:?}", s)
}

fn gen_entry_point(op: &Op, v: Variant, structseqs: &[(String, Vec<String>)], out: &mut String) {
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
                    call_args.push("&self_t".to_string());
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
fn collect_structseqs(ops: &[Op]) -> Vec<(String, Vec<String>)> {
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

fn structseq_index(structseqs: &[(String, Vec<String>)], name: &str, ret: &str) -> usize {
    let fields = tuple_fields(ret).expect("a named-tuple return");
    structseqs
        .iter()
        .position(|(n, f)| n == name && *f == fields)
        .expect("collected")
}

fn gen_bindings(ops: &[Op]) -> String {
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

// ----- stub and op list ---------------------------------------------------------------------

fn gen_stub(ops: &[Op], prelude: &str) -> String {
    let mut out = String::new();
    out.push_str("# @generated from src/native_functions.yaml and src/bindings/stub_prelude.pyi by build.rs — do not edit.\n");
    out.push_str(
        "# Regenerate with `make stubs`; a test keeps this file equal to the generated one.\n",
    );
    out.push_str(prelude);
    out.push_str("\n# Named-tuple returns (`_C.return_types.<op>`), generated from the schema.\nclass return_types:\n");
    let structseqs = collect_structseqs(ops);
    if structseqs.is_empty() {
        out.push_str("    pass\n");
    }
    for (name, fields) in &structseqs {
        let _ = writeln!(out, "    class {name}(NamedTuple):");
        for f in fields {
            let _ = writeln!(out, "        {f}: Tensor");
        }
    }
    let stub_def = |name: &str, e: &Entry, v: Variant, overloaded: bool, indent: &str| -> String {
        let ps = py_params(e, v);
        // `zeros(2, 3)`: an `int[]` that is the only positional parameter also takes varargs
        // ints (the parser's rule), which a stub spells as a second overload with `*size: int`.
        let varargs = ps.iter().filter(|p| !p.kwarg_only).count() == 1
            && parser_type(&ps[0].ty)
                .trim_end_matches('?')
                .starts_with("int[");
        let render = |as_varargs: bool| -> String {
            let mut parts: Vec<String> = Vec::new();
            if v == Variant::Method {
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
                    stub_type(&p.ty, e.numbers_as_tensors)
                };
                match &p.default {
                    Some(d) => parts.push(format!("{}: {} = {}", p.name, ty, py_default(d))),
                    None => parts.push(format!("{}: {}", p.name, ty)),
                }
            }
            let mut s = String::new();
            if overloaded || varargs {
                let _ = writeln!(s, "{indent}@overload");
            }
            let _ = writeln!(
                s,
                "{indent}def {name}({}) -> {}: ...",
                parts.join(", "),
                stub_ret_of(name, e)
            );
            s
        };
        let mut s = render(false);
        if varargs {
            s.push_str(&render(true));
        }
        s
    };
    out.push_str("\nclass Tensor(_TensorBase):\n");
    out.push_str("    # Methods generated from src/native_functions.yaml.\n");
    for op in ops {
        let es: Vec<&Entry> = op.entries.iter().filter(|e| e.method).collect();
        for e in &es {
            out.push_str(&stub_def(
                &op.name,
                e,
                Variant::Method,
                es.len() > 1,
                "    ",
            ));
        }
    }
    out.push_str("\n# Functions generated from src/native_functions.yaml.\n");
    for op in ops {
        let es: Vec<&Entry> = op.entries.iter().filter(|e| e.function).collect();
        for e in &es {
            out.push_str(&stub_def(&op.name, e, Variant::Function, es.len() > 1, ""));
        }
    }
    out
}

fn gen_op_list(ops: &[Op]) -> String {
    let mut out = String::new();
    out.push_str("| op | function | method | signatures |\n| --- | --- | --- | --- |\n");
    for op in ops {
        let f = op.entries.iter().any(|e| e.function);
        let m = op.entries.iter().any(|e| e.method);
        let sigs: Vec<String> = op
            .entries
            .iter()
            .map(|e| {
                let v = if e.function {
                    Variant::Function
                } else {
                    Variant::Method
                };
                format!("`{}({})`", op.name, py_signature(&py_params(e, v), None))
            })
            .collect();
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            op.name,
            if f { "yes" } else { "" },
            if m { "yes" } else { "" },
            sigs.join("<br>")
        );
    }
    out
}
