//! build.rs: the build script. Reads `src/native_functions.yaml` (the op schema: torch's `func`
//! grammar, our own keys) and writes into `$OUT_DIR` the binding functions and method tables
//! (`generated_bindings.rs`, and a sample of it checked in as src/bindings/generated_sample.rs),
//! the type stub (`_C.pyi`) and the README's op list; compiles the C layout probe and the C shims
//! (src/c/); emits the `py_debug` cfg when the target interpreter is a `Py_DEBUG` build.
//!
//! Split as torchgen is (PyTorch: `torchgen/`), in modules under `build/`:
//! - `schema.rs` — the schema model and its reader (torchgen: `model.py`);
//! - `signature.rs` — one model per Python signature: parser spec, docstring,
//!   `__text_signature__`, stub types (torchgen: `api/python.py`);
//! - `gen_bindings.rs` — the bindings generator (torchgen: `gen_python_functions.py`);
//! - `gen_stub.rs` — the stub and the op list (torchgen: `gen_pyi.py`);
//! - `gen_autograd.rs` — src/derivatives.yaml, checked against the schema (torchgen:
//!   `load_derivatives.py`): how each generated binding calls the core for autograd.

#[path = "build/gen_autograd.rs"]
mod gen_autograd;
#[path = "build/gen_bindings.rs"]
mod gen_bindings;
#[path = "build/gen_stub.rs"]
mod gen_stub;
#[path = "build/schema.rs"]
mod schema;
#[path = "build/signature.rs"]
mod signature;

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build");
    println!("cargo:rerun-if-changed=src/native_functions.yaml");
    println!("cargo:rerun-if-changed=src/derivatives.yaml");
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
    let text = std::fs::read_to_string("src/native_functions.yaml").expect("read schema");
    let ops = schema::parse_schema(&text)
        .and_then(schema::group)
        .unwrap_or_else(|e| panic!("src/native_functions.yaml: {e}"));
    let derivatives = std::fs::read_to_string("src/derivatives.yaml").expect("read derivatives");
    let formulas = gen_autograd::load(&derivatives, &ops)
        .unwrap_or_else(|e| panic!("src/derivatives.yaml: {e}"));
    let write = |name: &str, text: String| {
        std::fs::write(out_dir.join(name), text).unwrap_or_else(|e| panic!("write {name}: {e}"))
    };
    write(
        "generated_autograd.rs",
        gen_autograd::gen_nodes(&formulas, &ops).unwrap_or_else(|e| panic!("{e}")),
    );
    write("generated_bindings.rs", gen_bindings::gen_bindings(&ops));
    write("generated_sample.rs", gen_bindings::gen_sample(&ops));
    let prelude = std::fs::read_to_string("src/bindings/stub_prelude.pyi").expect("read prelude");
    write("_C.pyi", gen_stub::gen_stub(&ops, &prelude));
    write("op_list.md", gen_stub::gen_op_list(&ops));
    write("_nn.pyi", gen_stub::gen_module_stub(&ops, "nn"));
    write("_linalg.pyi", gen_stub::gen_module_stub(&ops, "linalg"));
    write("_special.pyi", gen_stub::gen_module_stub(&ops, "special"));
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
