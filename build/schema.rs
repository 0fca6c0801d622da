//! build/schema.rs: the op schema's model and its reader — the YAML subset of
//! src/native_functions.yaml and the entries it holds (torchgen: `model.py`).

use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub(crate) struct Arg {
    pub(crate) ty: String, // schema type without alias annotation, e.g. "Tensor", "int[1]?", "ScalarType?"
    pub(crate) name: String,
    pub(crate) default: Option<String>,
    pub(crate) kwarg_only: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub(crate) name: String, // python name, e.g. "add"
    pub(crate) args: Vec<Arg>,
    pub(crate) ret: String, // "Tensor", "Tensor(a!)", "Scalar", "int", "bool", "int[]"
    pub(crate) function: bool,
    pub(crate) method: bool,
    pub(crate) numbers_as_tensors: bool,
    pub(crate) unwrap_single: bool,
    pub(crate) out: bool,
    /// `release_gil`: how the generated binding measures the work above which the core call runs
    /// without the GIL (src/bindings/gil.rs).
    pub(crate) release_gil: ReleaseGil,
    /// `structured: True`: the core has `{impl}_plan` (checks, then runs into a new tensor or
    /// straight into `out=`), which the `out=` path calls instead of computing and copying.
    pub(crate) structured: bool,
    pub(crate) impl_fn: String,
    pub(crate) doc: String,
}

/// The schema's `release_gil` key.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ReleaseGil {
    /// `False`: views and metadata, whose cost does not grow with the data.
    Never,
    /// The default: elements of all tensor arguments (`gil::elementwise_worth`).
    Elements,
    /// `matmul`: multiply-adds of the first two tensor arguments (`gil::matmul_worth`).
    Matmul,
}

/// The schema subset we use: a list of mappings, one `key: value` per line.
pub(crate) fn parse_yaml(text: &str) -> Result<Vec<Entry>, String> {
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

pub(crate) fn entry_from_map(m: BTreeMap<String, String>) -> Result<Entry, String> {
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
pub(crate) struct Op {
    pub(crate) name: String,
    pub(crate) entries: Vec<Entry>,
}

pub(crate) fn group(entries: Vec<Entry>) -> Vec<Op> {
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
