//! build/gen_stub.rs: the stub (`python/_C/__init__.pyi`) and the README's op list
//! (torchgen: `gen_pyi.py`).

use crate::gen_bindings::collect_structseqs;
use crate::schema::{Entry, Op};
use crate::signature::*;
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

pub(crate) fn gen_op_list(ops: &[Op]) -> String {
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
