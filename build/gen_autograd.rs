//! build/gen_autograd.rs: reads src/derivatives.yaml (which schema entries are differentiable,
//! by which formula node; which are not, and why; which are pending) and checks it against the
//! schema: the build fails for an op with tensors that has no entry, or an entry naming no op
//! (torchgen: `load_derivatives.py`). The bindings generator asks `kind_of` how to call an op:
//! through its recording wrapper (`vt::`), through the bare core op, or the bare op after
//! `vt::check_pending` (src/core/autograd/variable_type.rs).

use crate::schema::{BaseTy, Entry, Op, Returns};
use std::collections::HashMap;
use std::sync::OnceLock;

/// How an op takes part in autograd.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Autograd {
    /// A formula node (src/core/autograd/formulas.rs); the op has a recording wrapper.
    Node(String),
    /// Not differentiable (a factory, an integer or bool result, metadata...).
    NotDifferentiable,
    /// Differentiable, formula not written yet: an error when an input requires grad.
    Pending,
}

static TABLE: OnceLock<HashMap<String, Autograd>> = OnceLock::new();

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

/// Read src/derivatives.yaml and check it covers the schema; the table for `kind_of`.
pub(crate) fn load(text: &str, ops: &[Op]) -> Result<(), String> {
    let mut table: HashMap<String, Autograd> = HashMap::new();
    let mut lines: HashMap<String, usize> = HashMap::new();
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
            "node" => Autograd::Node(v.to_string()),
            "not_differentiable" => Autograd::NotDifferentiable,
            "pending" => Autograd::Pending,
            // The formulas themselves, in torch's notation (documentation of formulas.rs).
            "self" | "other" | "result" | "output_differentiability" => continue,
            _ if k
                .trim()
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ',' || c == ' ') =>
            {
                continue
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
                "`{name}` (line {}) says neither `node:`, `not_differentiable:` nor `pending:`",
                lines[name]
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
                    "src/native_functions.yaml line {}: op `{k}` takes or returns tensors but src/derivatives.yaml has no entry for it: add `- name: {k}` with `node: <FormulaBackward0>` (a formula in src/core/autograd/formulas.rs and a recording wrapper in variable_type.rs), `not_differentiable: <reason>` or `pending: <reason>`",
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
        .map_err(|_| "derivatives loaded twice".to_string())
}

/// How the generated binding of `e` calls the core.
pub(crate) fn kind_of(e: &Entry) -> Autograd {
    TABLE
        .get()
        .and_then(|t| t.get(&key(e)).cloned())
        .unwrap_or(Autograd::NotDifferentiable)
}
