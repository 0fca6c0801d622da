//! tests/derivatives_check.rs: the checks build.rs (build/gen_autograd.rs) makes on the
//! `formula:` entries of src/derivatives.yaml before generating their nodes: a formula line for
//! an argument that is not a tensor of the op, or a formula naming a value that is neither an
//! argument, `grad`, `result` nor `<tensor argument>_sizes`, stops the build with a message
//! naming the entry; a valid entry generates its node and wrapper.

#[allow(dead_code)]
#[path = "../build/schema.rs"]
mod schema;

#[allow(dead_code)]
#[path = "../build/gen_autograd.rs"]
mod gen_autograd;

use gen_autograd::{gen_nodes, FormulaEntry};

fn ops() -> Vec<schema::Op> {
    let text = "- func: mul(Tensor self, Tensor other) -> Tensor\n  variants: function, method\n  doc: x.\n- func: sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False) -> Tensor\n  variants: function\n  impl: sum\n  doc: x.\n";
    schema::parse_schema(text)
        .and_then(schema::group)
        .expect("the test schema parses")
}

fn entry(key: &str, lines: &[(&str, &str)]) -> FormulaEntry {
    FormulaEntry {
        key: key.to_string(),
        line: 7,
        class: "XBackward0".to_string(),
        formulas: lines
            .iter()
            .map(|(i, e)| (i.to_string(), e.to_string()))
            .collect(),
    }
}

#[test]
fn a_valid_entry_generates_its_node_and_wrapper() {
    let code = gen_nodes(
        &[entry(
            "mul",
            &[
                ("self", "vt::mul(grad, other)"),
                ("other", "vt::mul(grad, self)"),
            ],
        )],
        &ops(),
    )
    .expect("generates");
    assert!(code.contains("pub struct GenMul"));
    assert!(code.contains("pub fn mul(self_: &Tensor, other: &Tensor) -> Result<Tensor>"));
    // `self` is read only by `other`'s formula: saved only when `other` requires grad.
    assert!(code.contains("self_: SavedTensor::input_if(self_, other.requires_grad())"));
    assert!(code.contains("(\"self\", &_n.self_)"));
}

#[test]
fn only_the_shape_is_saved_for_sizes() {
    let code = gen_nodes(
        &[entry(
            "sum.dim_IntList",
            &[("self", "sum_backward(grad, self_sizes, dim, keepdim)")],
        )],
        &ops(),
    )
    .expect("generates");
    assert!(code.contains("self_sizes: Box<[usize]>"), "{code}");
    assert!(!code.contains("self_: SavedTensor"));
}

#[test]
fn a_formula_for_a_missing_argument_fails() {
    let err =
        gen_nodes(&[entry("mul", &[("input", "Ok(grad.clone())")])], &ops()).expect_err("rejected");
    assert!(
        err.contains("line 7") && err.contains("`input:` names no tensor argument of `mul`"),
        "{err}"
    );
}

#[test]
fn a_formula_naming_an_unknown_value_fails() {
    let err = gen_nodes(
        &[entry("mul", &[("self", "vt::mul(grad, input_sizes)")])],
        &ops(),
    )
    .expect_err("rejected");
    assert!(err.contains("names `input_sizes`"), "{err}");
    let err = gen_nodes(
        &[entry("mul", &[("self", "vt::mul(grads, other)")])],
        &ops(),
    )
    .expect_err("rejected");
    assert!(err.contains("names `grads`"), "{err}");
}

#[test]
fn a_formula_for_a_non_tensor_argument_fails() {
    let err = gen_nodes(
        &[entry("sum.dim_IntList", &[("keepdim", "Ok(grad.clone())")])],
        &ops(),
    )
    .expect_err("rejected");
    assert!(err.contains("`keepdim:` names no tensor argument"), "{err}");
}
