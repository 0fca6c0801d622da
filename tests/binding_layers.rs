//! tests/binding_layers.rs: the import rule of the crate (ARCHITECTURE.md, "Layers"): `src/core`
//! names neither CPython nor the bindings, and every module of `src/bindings` imports only modules
//! of its own layer or of a layer below (the layers are declared in src/bindings/mod.rs, and
//! repeated in each module's `//!` header), with no import cycle, within a layer included.
//!
//! The imports are read from the source text: every path that names a sibling module
//! (`super::x`, `crate::bindings::x`, `$crate::bindings::x`, a `use super::{x, y::z}` group, or a
//! path starting with a module brought in by name, `x::f`), outside comments and string literals.
//! The generated bindings (`$OUT_DIR/generated_bindings.rs`, included by generated.rs) reach the
//! hand-written functions the schema names with `manual_binding: CONVENTION module::function`:
//! those count as imports of generated.rs.

use std::collections::{BTreeMap, BTreeSet};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Files of src/bindings that are not modules of the crate.
const NOT_MODULES: &[&str] = &["mod.rs", "generated_sample.rs"];

/// The layer of each module, as src/bindings/mod.rs declares it: a `// Layer N ...` comment line
/// applies to the `pub mod` lines that follow it.
fn declared_layers(mod_rs: &str) -> Result<BTreeMap<String, u32>, String> {
    let mut layers = BTreeMap::new();
    let mut current: Option<u32> = None;
    for line in mod_rs.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("// Layer ") {
            let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
            current = Some(n.parse().map_err(|_| format!("bad layer line: {line}"))?);
        } else if let Some(rest) = line
            .strip_prefix("pub mod ")
            .or_else(|| line.strip_prefix("mod "))
            .or_else(|| line.strip_prefix("pub(crate) mod "))
        {
            let name = rest.trim_end_matches(';').trim().to_string();
            let layer = current.ok_or(format!("`{line}` comes before any `// Layer N` line"))?;
            layers.insert(name, layer);
        }
    }
    Ok(layers)
}

/// `src` without comments and without the contents of string and char literals (so that a
/// path inside a message or a doc comment is not taken for an import).
fn strip(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < c.len() {
        let at = |k: usize| c.get(k).copied().unwrap_or('\0');
        if at(i) == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if at(i) == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if at(i) == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if at(i) == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if at(i) == '"' || (at(i) == 'r' && (at(i + 1) == '"' || at(i + 1) == '#')) {
            // A string literal (a `b`/`c` prefix is left as an identifier; harmless).
            let raw = at(i) == 'r';
            if raw {
                let mut hashes = 0;
                let mut j = i + 1;
                while at(j) == '#' {
                    hashes += 1;
                    j += 1;
                }
                if at(j) != '"' {
                    // `r#ident` or an identifier starting with r: not a literal.
                    out.push(c[i]);
                    i += 1;
                    continue;
                }
                i = j + 1;
                loop {
                    if i >= c.len() {
                        break;
                    }
                    if c[i] == '"' && (1..=hashes).all(|h| at(i + h) == '#') {
                        i += 1 + hashes;
                        break;
                    }
                    i += 1;
                }
            } else {
                i += 1;
                while i < c.len() && c[i] != '"' {
                    i += if c[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
            }
            out.push_str("\"\"");
        } else if at(i) == '\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if at(i + 1) == '\\' {
                i += 3; // the quote, the backslash and the escaped character
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
                out.push_str("' '");
            } else if at(i + 2) == '\'' {
                i += 3;
                out.push_str("' '");
            } else {
                out.push('\'');
                i += 1;
            }
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Path, // `::`
    Punct(char),
}

fn tokens(src: &str) -> Vec<Tok> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        if c[i].is_alphanumeric() || c[i] == '_' || c[i] == '$' {
            let s = i;
            i += 1;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let word: String = c[s..i].iter().collect();
            out.push(Tok::Ident(word.trim_start_matches('$').to_string()));
        } else if c[i] == ':' && c.get(i + 1) == Some(&':') {
            out.push(Tok::Path);
            i += 2;
        } else {
            if !c[i].is_whitespace() {
                out.push(Tok::Punct(c[i]));
            }
            i += 1;
        }
    }
    out
}

/// The paths of the use tree starting at `toks[*i]` (after `use`), up to its end (`;`, or the
/// `,`/`}` that closes the group it is part of), each prefixed with `prefix`.
fn use_tree(toks: &[Tok], i: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut path = prefix;
    loop {
        match toks.get(*i) {
            Some(Tok::Ident(w)) if w == "as" => {
                *i += 2; // `as name`
            }
            Some(Tok::Ident(w)) => {
                path.push(w.clone());
                *i += 1;
            }
            Some(Tok::Path) => *i += 1,
            Some(Tok::Punct('{')) => {
                *i += 1;
                loop {
                    match toks.get(*i) {
                        Some(Tok::Punct('}')) => {
                            *i += 1;
                            break;
                        }
                        Some(Tok::Punct(',')) => *i += 1,
                        None => return,
                        _ => use_tree(toks, i, path.clone(), out),
                    }
                }
                return;
            }
            Some(Tok::Punct('*')) => *i += 1,
            _ => {
                out.push(path);
                return;
            }
        }
    }
}

/// Every path written in `src` (use trees expanded), as lists of segments.
fn paths(src: &str) -> Vec<Vec<String>> {
    let toks = tokens(&strip(src));
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            Tok::Ident(w) if w == "use" => {
                i += 1;
                use_tree(&toks, &mut i, Vec::new(), &mut out);
            }
            Tok::Ident(w) => {
                // A path: ident (:: ident)*, unless it continues one (`a::b` was taken whole).
                let continues = i > 0 && toks[i - 1] == Tok::Path;
                let mut path = vec![w.clone()];
                let mut j = i + 1;
                while toks.get(j) == Some(&Tok::Path) {
                    match toks.get(j + 1) {
                        Some(Tok::Ident(n)) => path.push(n.clone()),
                        _ => break,
                    }
                    j += 2;
                }
                if !continues && path.len() > 1 {
                    out.push(path);
                }
                i = j.max(i + 1);
            }
            _ => i += 1,
        }
    }
    out
}

/// The sibling modules a module's source imports (itself excluded).
fn imports(module: &str, src: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for p in paths(src) {
        let mut s: &[String] = &p;
        if s.first().map(String::as_str) == Some("crate") {
            if s.get(1).map(String::as_str) != Some("bindings") {
                continue; // crate::core::..., crate::handle_errors
            }
            s = &s[2..];
        } else {
            while s.first().map(String::as_str) == Some("super") {
                s = &s[1..];
            }
        }
        if let Some(first) = s.first() {
            if modules.contains(first) && first != module {
                found.insert(first.clone());
            }
        }
    }
    found
}

/// Each violation of the rule, as a sentence: an import of a higher layer, or a cycle.
fn violations(
    layers: &BTreeMap<String, u32>,
    deps: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<String> {
    let mut bad = Vec::new();
    for (m, ds) in deps {
        for d in ds {
            let (lm, ld) = (layers[m], layers[d]);
            if ld > lm {
                bad.push(format!(
                    "{m} (layer {lm}) imports {d} (layer {ld}): imports go to the same layer or down"
                ));
            }
        }
    }
    // Cycles: depth-first search; a back edge closes one.
    fn visit(
        m: &str,
        deps: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
        bad: &mut Vec<String>,
    ) {
        state.insert(m.to_string(), 1);
        stack.push(m.to_string());
        for d in deps.get(m).into_iter().flatten() {
            match state.get(d.as_str()).copied().unwrap_or(0) {
                0 => visit(d, deps, state, stack, bad),
                1 => {
                    let start = stack.iter().position(|x| x == d).expect("on the stack");
                    let mut cycle = stack[start..].to_vec();
                    cycle.push(d.clone());
                    bad.push(format!("import cycle: {}", cycle.join(" -> ")));
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(m.to_string(), 2);
    }
    let mut state = BTreeMap::new();
    for m in deps.keys() {
        if state.get(m.as_str()).copied().unwrap_or(0) == 0 {
            visit(m, deps, &mut state, &mut Vec::new(), &mut bad);
        }
    }
    bad
}

/// The modules the schema's `manual_binding` entries name (reached by the generated code).
fn manual_binding_modules(schema: &str) -> BTreeSet<String> {
    schema
        .lines()
        .filter_map(|l| l.trim().strip_prefix("manual_binding:"))
        .filter_map(|rest| rest.split_whitespace().nth(1))
        .filter_map(|path| path.split("::").next())
        .map(str::to_string)
        .collect()
}

fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{ROOT}/{path}")).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn bindings_import_only_downward_and_without_cycles() {
    let layers = declared_layers(&read("src/bindings/mod.rs")).expect("mod.rs declares layers");
    assert!(layers.len() > 10, "mod.rs lists the modules: {layers:?}");
    let modules: BTreeSet<String> = layers.keys().cloned().collect();

    // Every file is a declared module (or known not to be one), and says its layer.
    let mut on_disk = BTreeSet::new();
    for e in std::fs::read_dir(format!("{ROOT}/src/bindings")).expect("src/bindings") {
        let name = e.expect("entry").file_name().into_string().expect("utf-8");
        if name.ends_with(".rs") && !NOT_MODULES.contains(&name.as_str()) {
            on_disk.insert(name.trim_end_matches(".rs").to_string());
        }
    }
    assert_eq!(
        on_disk, modules,
        "src/bindings/*.rs and the list in mod.rs differ"
    );

    let mut deps = BTreeMap::new();
    let mut problems = Vec::new();
    for m in &modules {
        let src = read(&format!("src/bindings/{m}.rs"));
        let header: String = src
            .lines()
            .take_while(|l| l.starts_with("//!"))
            .collect::<Vec<_>>()
            .join("\n");
        let says = format!("Layer {}", layers[m]);
        if !header.contains(&says) {
            problems.push(format!(
                "src/bindings/{m}.rs: its //! header does not say \"{says}\" (mod.rs does)"
            ));
        }
        let mut d = imports(m, &src, &modules);
        if m == "generated" {
            d.extend(manual_binding_modules(&read("src/native_functions.yaml")));
        }
        deps.insert(m.clone(), d);
    }
    if std::env::var_os("BINDING_LAYERS_PRINT").is_some() {
        // `BINDING_LAYERS_PRINT=1 cargo test --test binding_layers -- --nocapture`: the graph.
        for (m, d) in &deps {
            let d: Vec<String> = d.iter().map(|x| format!("{x} ({})", layers[x])).collect();
            eprintln!("{} {m}: {}", layers[m], d.join(", "));
        }
    }
    problems.extend(violations(&layers, &deps));
    assert!(
        problems.is_empty(),
        "src/bindings breaks its layering (see ARCHITECTURE.md, \"Layers\"):\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn core_names_neither_cpython_nor_the_bindings() {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).expect("dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(
        std::path::Path::new(&format!("{ROOT}/src/core")),
        &mut files,
    );
    assert!(!files.is_empty());
    let mut bad = Vec::new();
    for f in files {
        let src = std::fs::read_to_string(&f).expect("read");
        for p in paths(&src) {
            let named = p.first().is_some_and(|s| s == "pyo3_ffi")
                || (p.first().is_some_and(|s| s == "crate")
                    && p.get(1).is_some_and(|s| s == "bindings"));
            if named {
                bad.push(format!("{}: {}", f.display(), p.join("::")));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "src/core reaches CPython or the bindings:\n  {}",
        bad.join("\n  ")
    );
}

// ----- the checker itself -------------------------------------------------------------------

fn check(mod_rs: &str, files: &[(&str, &str)]) -> Vec<String> {
    let layers = declared_layers(mod_rs).expect("layers");
    let modules: BTreeSet<String> = layers.keys().cloned().collect();
    let deps = files
        .iter()
        .map(|(m, src)| (m.to_string(), imports(m, src, &modules)))
        .collect();
    violations(&layers, &deps)
}

const MOD_RS: &str = "// Layer 0\npub mod errors;\npub mod gil;\n// Layer 1 objects\npub mod \
                      tensor_object;\npub mod convert;\n// Layer 2\npub mod arg_parser;\n";

#[test]
fn the_checker_reads_every_way_of_naming_a_module() {
    let modules: BTreeSet<String> = ["errors", "gil", "convert", "arg_parser", "tensor_object"]
        .map(String::from)
        .into();
    let src = r#"
        //! mentions super::arg_parser in a comment only
        use super::errors::{self, PyResult};
        use super::super::{gil, convert::{py_int, py_str}};
        fn f() -> &'static str { let c = '"'; let q = '\''; "super::arg_parser::x in a string" }
        fn g<'a>(x: &'a u8) { crate::bindings::tensor_object::wrap(); std::convert::identity(1); }
    "#;
    let got = imports("number", src, &modules);
    let want: BTreeSet<String> = ["errors", "gil", "convert", "tensor_object"]
        .map(String::from)
        .into();
    assert_eq!(got, want);
    let src = "macro_rules! m { () => { $crate::bindings::gil::x() } }";
    assert_eq!(imports("errors", src, &modules), ["gil".to_string()].into());
}

#[test]
fn the_checker_fails_an_upward_import() {
    let ok = check(
        MOD_RS,
        &[
            ("errors", "use super::gil;"),
            ("convert", "use super::errors::PyResult;"),
            ("tensor_object", "use super::convert; use super::errors;"),
            ("arg_parser", "use super::tensor_object::wrap;"),
        ],
    );
    assert!(ok.is_empty(), "{ok:?}");
    let bad = check(
        MOD_RS,
        &[
            ("gil", "fn f() { super::tensor_object::wrap(); }"),
            ("tensor_object", ""),
        ],
    );
    assert_eq!(
        bad,
        ["gil (layer 0) imports tensor_object (layer 1): imports go to the same layer or down"]
    );
}

#[test]
fn the_checker_fails_a_cycle_within_a_layer() {
    let bad = check(
        MOD_RS,
        &[
            ("convert", "use super::tensor_object::is_tensor;"),
            ("tensor_object", "use super::convert::py_str;"),
        ],
    );
    assert_eq!(bad, ["import cycle: convert -> tensor_object -> convert"]);
}
