//! tests/schema_grammar.rs: the schema reader of build.rs (build/schema.rs, the one parser of the
//! `func` grammar): the real schema parses, and malformed entries fail with a message naming
//! the entry and what is wrong (the build then stops with that message).

#[allow(dead_code)]
#[path = "../build/schema.rs"]
mod schema;

use schema::{parse_schema, BaseTy, DefaultValue, Returns};

fn error_of(entry: &str) -> String {
    match parse_schema(entry) {
        Ok(_) => panic!("accepted: {entry}"),
        Err(e) => e,
    }
}

#[test]
fn the_schema_parses_and_groups() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/native_functions.yaml"
    ))
    .expect("schema");
    let entries = parse_schema(&text).expect("the schema parses");
    assert!(entries.len() > 200);
    let ops = schema::group(entries).expect("groups");
    assert!(ops.iter().any(|o| o.name == "add"));
}

#[test]
fn types_defaults_and_annotations_are_parsed() {
    let e = &parse_schema(
        "- func: f.o(Tensor(a!) self, int[2]? dim=None, float rtol=1e-05, int[1] d=[0, 1], *, str m='x') -> Tensor(a!)\n  variants: method\n  doc: d\n",
    )
    .expect("parses")[0];
    assert_eq!(e.name, "f");
    assert_eq!(e.func.overload.as_deref(), Some("o"));
    assert_eq!(e.impl_fn, "f_o");
    let a = &e.func.args;
    assert!(a[0].ty.alias.as_ref().is_some_and(|x| x.mutable));
    assert_eq!(
        (a[1].ty.base, a[1].ty.list, a[1].ty.optional),
        (BaseTy::Int, Some(Some(2)), true)
    );
    assert_eq!(
        a[1].default.as_ref().map(|d| &d.value),
        Some(&DefaultValue::None)
    );
    assert_eq!(
        a[2].default.as_ref().map(|d| &d.value),
        Some(&DefaultValue::Float(1e-5))
    );
    assert_eq!(
        a[2].default.as_ref().map(|d| d.text.as_str()),
        Some("1e-05")
    );
    assert_eq!(
        a[3].default.as_ref().map(|d| d.python()),
        Some("(0, 1)".to_string())
    );
    assert!(a[4].kwarg_only);
    assert_eq!(
        a[4].default.as_ref().map(|d| &d.value),
        Some(&DefaultValue::Str("x".into()))
    );
    assert!(e.func.is_inplace() && !e.func.is_view());
}

#[test]
fn views_are_derived_from_alias_annotations() {
    let es = parse_schema(
        "- func: t(Tensor(a) self, int d) -> Tensor(a)\n  doc: d\n- func: s(Tensor(a -> *) self, int n) -> Tensor(a)[]\n  doc: d\n- func: u(Tensor self) -> Tensor\n  doc: d\n",
    )
    .expect("parses");
    assert!(es[0].func.is_view() && es[1].func.is_view() && !es[2].func.is_view());
    assert_eq!(es[0].release_gil, schema::ReleaseGil::Never);
    assert_eq!(es[2].release_gil, schema::ReleaseGil::Elements);
    assert!(matches!(&es[1].func.returns, Returns::One(t) if t.is_tensor_list()));
}

#[test]
fn inplace_derives_the_in_place_method() {
    let es = parse_schema(
        "- func: f.o(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n  variants: function, method\n  python_operator: __add__, __iadd__\n  inplace: True\n  out: True\n  doc: d\n",
    )
    .expect("parses");
    assert_eq!(es.len(), 2);
    let (f, m) = (&es[0], &es[1]);
    assert!(f.inplace && f.out && !f.out_copy && !f.func.is_inplace());
    assert_eq!(
        f.operators.len(),
        1,
        "__iadd__ moves to the in-place method"
    );
    assert_eq!((m.name.as_str(), m.impl_fn.as_str()), ("f_", "f_o"));
    assert!(m.plan_inplace && m.method && !m.function && !m.out);
    assert!(m.func.is_inplace() && m.func.args[0].ty.alias.as_ref().is_some_and(|a| a.mutable));
    assert_eq!(m.func.overload.as_deref(), Some("o"));
    assert_eq!(m.operators[0].dunder, "__iadd__");
    let c = &parse_schema("- func: g(Tensor self) -> Tensor\n  out: copy\n  doc: d\n")
        .expect("parses")[0];
    assert!(c.out && c.out_copy);
    for (entry, want) in [
        (
            "- func: g(Tensor self) -> Tensor\n  out: maybe\n  doc: d\n",
            "out: \"maybe\" is not True, copy or False",
        ),
        (
            "- func: g(Tensor(a) self) -> Tensor(a)\n  inplace: True\n  doc: d\n",
            "inplace: True needs a generated functional op",
        ),
        (
            "- func: g(int n) -> Tensor\n  inplace: True\n  doc: d\n",
            "inplace: True needs a generated functional op",
        ),
    ] {
        let e = error_of(entry);
        assert!(e.contains(want), "{entry}: {e}");
    }
}

#[test]
fn malformed_entries_name_the_entry() {
    let cases = [
        (
            "- func: f(Tensr self) -> Tensor\n  doc: d\n",
            "unknown type \"Tensr\"",
        ),
        (
            "- func: f(Tensor self, int d=x) -> Tensor\n  doc: d\n",
            "default \"x\" is not a Python literal",
        ),
        (
            "- func: f(Tensor self, int d=None) -> Tensor\n  doc: d\n",
            "default None does not fit type int",
        ),
        (
            "- func: f(Tensor self, float d=[1]) -> Tensor\n  doc: d\n",
            "does not fit type float",
        ),
        (
            "- func: f(Tensor self) -> Tensor\n  doc: d\n  colour: red\n",
            "unknown key \"colour\"",
        ),
        (
            "- func: f(Tensor self) -> Tensor\n",
            "every op needs a doc line",
        ),
        (
            "- func: f(Tensor self, int a=1, int b) -> Tensor\n  doc: d\n",
            "without a default follows",
        ),
        (
            "- func: f(Tensor(a) self) -> Tensor\n  doc: d\n",
            "is annotated (a) but the return is not",
        ),
        (
            "- func: f(Tensor self) -> Tensor(a)\n  doc: d\n",
            "no argument is",
        ),
        ("- func: f(Tensor self) Tensor\n  doc: d\n", "no ' -> '"),
        (
            "- func: f(Tensor self, int self) -> Tensor\n  doc: d\n",
            "appears twice",
        ),
        (
            "- func: f(int x) -> Tensor\n  variants: method\n  doc: d\n",
            "needs an argument named self",
        ),
        (
            "- func: f(Tensor self) -> Tensor\n  out: yes\n  doc: d\n",
            "is not True, copy or False",
        ),
        (
            "- func: f(Tensor self) -> int\n  out: True\n  doc: d\n",
            "out: True needs",
        ),
        (
            "- func: f(Tensor(a) self) -> Tensor(a)\n  release_gil: False\n  doc: d\n",
            "release_gil: False on a view",
        ),
        (
            "- func: f(Tensor self, str[] s) -> Tensor\n  doc: d\n",
            "lists of str",
        ),
        (
            "- func: f(int x) -> ()\n  doc: d\n",
            "needs a manual_binding",
        ),
        (
            "- func: f(int x, int y) -> ()\n  manual_binding: METH_O m::f\n  doc: d\n",
            "METH_O takes exactly one",
        ),
    ];
    for (entry, want) in cases {
        let err = error_of(entry);
        assert!(err.starts_with("line 1: entry `f"), "{err}");
        assert!(err.contains(want), "{entry:?}: {err}");
    }
}

#[test]
fn one_entry_per_operator_slot() {
    let entries = parse_schema(
        "- func: f(Tensor self, Tensor other) -> Tensor\n  python_operator: __add__\n  doc: d\n- func: g(Tensor self, Tensor other) -> Tensor\n  python_operator: __radd__\n  doc: d\n",
    )
    .expect("each entry is well formed");
    let err = match schema::group(entries) {
        Ok(_) => panic!("two entries share nb_add"),
        Err(e) => e,
    };
    assert!(
        err.contains("line 4") && err.contains("nb_add") && err.contains("line 1"),
        "{err}"
    );
}
