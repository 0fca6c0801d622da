//! build/gen_stub.rs: the stub (`python/_C/__init__.pyi`) and the README's op list
//! (torchgen: `gen_pyi.py`).

use crate::gen_bindings::collect_structseqs;
use crate::schema::{Op, OperatorKind};
use crate::signature::{entries_of, stub_type, PySignature, Variant};
use std::fmt::Write as _;

pub(crate) fn gen_stub(ops: &[Op], prelude: &str) -> String {
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
    out.push_str("\nclass Tensor(_TensorBase):\n");
    out.push_str("    # Methods generated from src/native_functions.yaml.\n");
    for op in ops.iter().filter(|op| op.entries[0].owner() == "Tensor") {
        let es = entries_of(op, Variant::Method);
        for e in &es {
            out.push_str(&PySignature::new(e, Variant::Method).stub_def(es.len() > 1, "    "));
        }
    }
    out.push_str("    # Operators declared in src/native_functions.yaml (python_operator).\n");
    for e in ops.iter().flat_map(|op| &op.entries) {
        for o in &e.operators {
            let line = match (o.kind, o.dunder.as_str()) {
                (OperatorKind::Unary, d) => format!("def {d}(self) -> Tensor: ..."),
                (OperatorKind::Compare, d @ ("__eq__" | "__ne__")) => {
                    format!("def {d}(self, other: Any) -> Tensor: ...  # type: ignore[override]")
                }
                (_, d) => format!(
                    "def {d}(self, other: {}) -> Tensor: ...",
                    stub_type(&e.func.args[1].ty, e.numbers_as_tensors)
                ),
            };
            let _ = writeln!(out, "    {line}");
        }
    }
    out.push_str("\nclass Generator(_GeneratorBase):\n");
    out.push_str("    # Methods declared in src/native_functions.yaml.\n");
    for op in ops.iter().filter(|op| op.entries[0].owner() == "Generator") {
        let es = entries_of(op, Variant::Method);
        for e in &es {
            out.push_str(&PySignature::new(e, Variant::Method).stub_def(es.len() > 1, "    "));
        }
    }
    out.push_str("\n# Functions generated from src/native_functions.yaml.\n");
    for op in ops
        .iter()
        .filter(|op| op.entries[0].python_module.is_none())
    {
        let es = entries_of(op, Variant::Function);
        for e in &es {
            out.push_str(&PySignature::new(e, Variant::Function).stub_def(es.len() > 1, ""));
        }
    }
    out
}

/// The stub of the submodule `_C._{module}` (`python/_C/_nn.pyi`, `_linalg.pyi`,
/// `_special.pyi`): the schema's `python_module: {module}` functions.
pub(crate) fn gen_module_stub(ops: &[Op], module: &str) -> String {
    let mut out = String::new();
    out.push_str("# @generated from src/native_functions.yaml by build.rs — do not edit.\n");
    out.push_str(
        "# Regenerate with `make stubs`; a test keeps this file equal to the generated one.\n",
    );
    out.push_str(&format!(
        "# The functions of `_C._{module}` (torch's `torch._C._{module}`): `python_module: {module}` entries.\n",
    ));
    out.push_str("from typing import Any, Optional, Sequence, Tuple, Union, overload\n");
    out.push_str("import builtins\n\n");
    out.push_str("from . import Generator, Tensor, dtype, return_types\n\n");
    out.push_str("_int = builtins.int\n_float = builtins.float\n_bool = builtins.bool\n");
    out.push_str("_Number = Union[builtins.int, builtins.float, builtins.bool]\n\n");
    for op in ops
        .iter()
        .filter(|op| op.entries[0].python_module.as_deref() == Some(module))
    {
        let es = entries_of(op, Variant::Function);
        for e in &es {
            out.push_str(&PySignature::new(e, Variant::Function).stub_def(es.len() > 1, ""));
        }
    }
    out
}

/// The README's op list: one row per op, with its signatures.
pub(crate) fn gen_op_list(ops: &[Op]) -> String {
    let mut out = String::new();
    out.push_str(
        "| op | function | method | operators | signatures |\n| --- | --- | --- | --- | --- |\n",
    );
    for op in ops.iter().filter(|op| !op.name.starts_with('_')) {
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
                // A `|` inside a table cell is escaped, code spans included (GitHub's tables).
                format!("`{}`", PySignature::new(e, v).typed().replace('|', "\\|"))
            })
            .collect();
        let name = match op.entries[0].owner() {
            _ if op.entries[0].python_module.is_some() => format!(
                "_{}.{}",
                op.entries[0].python_module.as_deref().unwrap_or("nn"),
                op.name
            ),
            "Tensor" => op.name.clone(),
            owner => format!("{owner}.{}", op.name),
        };
        let operators: Vec<String> = op
            .entries
            .iter()
            .flat_map(|e| &e.operators)
            .map(|o| format!("`{}`", o.dunder))
            .collect();
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} |",
            name,
            if f { "yes" } else { "" },
            if m { "yes" } else { "" },
            operators.join(" "),
            sigs.join("<br>")
        );
    }
    out
}
