//! Tests of the autograd core: gradients of small graphs (expected values computed by hand),
//! the engine's order, the version counter, deep chains.

use super::variable_type as vt;
use super::{backward, grad, BackwardOptions};
use crate::core::dtype::DType;
use crate::core::scalar::Scalar;
use crate::core::tensor::Tensor;

fn leaf(v: &[f64], sizes: &[usize]) -> Tensor {
    let t = Tensor::from_vec(v.to_vec(), sizes).unwrap();
    t.set_requires_grad(true).unwrap();
    t
}

fn vals(t: &Tensor) -> Vec<f64> {
    t.to_dtype(DType::Float64).unwrap().to_vec::<f64>()
}

fn opts() -> BackwardOptions {
    BackwardOptions::default()
}

#[test]
fn plain_tensors_have_no_metadata() {
    let t = Tensor::zeros(&[3], DType::Float32).unwrap();
    let u = vt::add(&t, &t, Scalar::Int(1)).unwrap();
    assert!(t.autograd_meta().is_none() && u.autograd_meta().is_none());
    assert!(!u.requires_grad() && u.is_leaf());
}

#[test]
fn mul_add_sum_gradients() {
    // y = sum(a * b + a) => dy/da = b + 1, dy/db = a
    let a = leaf(&[1.0, 2.0, 3.0], &[3]);
    let b = leaf(&[4.0, 5.0, 6.0], &[3]);
    let y = vt::sum_all(
        &vt::add(&vt::mul(&a, &b).unwrap(), &a, Scalar::Int(1)).unwrap(),
        None,
    )
    .unwrap();
    assert_eq!(y.grad_fn().unwrap().name(), "SumBackward0");
    backward(&[y], &[None], opts(), None).unwrap();
    assert_eq!(vals(&a.grad().unwrap()), vec![5.0, 6.0, 7.0]);
    assert_eq!(vals(&b.grad().unwrap()), vec![1.0, 2.0, 3.0]);
}

#[test]
fn broadcast_gradient_is_summed_to_the_input_shape() {
    let a = leaf(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let b = leaf(&[1.0, 1.0, 1.0], &[3]);
    let y = vt::sum_all(&vt::mul(&a, &b).unwrap(), None).unwrap();
    backward(&[y], &[None], opts(), None).unwrap();
    assert_eq!(vals(&b.grad().unwrap()), vec![5.0, 7.0, 9.0]);
    assert_eq!(b.grad().unwrap().sizes(), &[3]);
}

#[test]
fn second_backward_without_retain_graph_fails_with_torch_text() {
    let a = leaf(&[1.0, 2.0], &[2]);
    let y = vt::sum_all(&vt::mul(&a, &a).unwrap(), None).unwrap();
    backward(std::slice::from_ref(&y), &[None], opts(), None).unwrap();
    let e = backward(&[y], &[None], opts(), None).unwrap_err();
    assert!(e
        .message
        .starts_with("Trying to backward through the graph a second time"));
}

#[test]
fn retain_graph_accumulates() {
    let a = leaf(&[1.0, 2.0], &[2]);
    let y = vt::sum_all(&vt::mul(&a, &a).unwrap(), None).unwrap();
    let keep = BackwardOptions {
        keep_graph: true,
        create_graph: false,
    };
    backward(std::slice::from_ref(&y), &[None], keep, None).unwrap();
    backward(&[y], &[None], keep, None).unwrap();
    assert_eq!(vals(&a.grad().unwrap()), vec![4.0, 8.0]);
}

#[test]
fn version_counter_is_shared_by_views_and_detach_not_data() {
    let a = Tensor::zeros(&[4], DType::Float32).unwrap();
    let v = crate::core::ops::narrow(&a, 0, 1, 2).unwrap();
    let d = a.detach();
    let data = a.data_alias();
    assert_eq!(a.version(), 0);
    crate::core::ops::zero_(&v).unwrap();
    assert_eq!((a.version(), v.version(), d.version()), (1, 1, 1));
    crate::core::ops::add_plan(&d, &d, Scalar::Int(1))
        .unwrap()
        .run_into(&d)
        .unwrap();
    assert_eq!(a.version(), 2);
    assert_eq!(data.version(), 0);
    assert!(d.base().is_none());
}

#[test]
fn modified_saved_tensor_is_reported() {
    let a = leaf(&[0.0, 1.0, 2.0], &[3]);
    let b = vt::sigmoid(&a).unwrap();
    let c = vt::sum_all(&b, None).unwrap();
    // b.mul_(2) under grad mode (b is a non-leaf)
    let two = Tensor::from_vec(vec![2.0f64], &[]).unwrap();
    vt::inplace(
        "mul_",
        &b,
        &[&two],
        |s| crate::core::ops::mul_plan(s, &two)?.run_into(s),
        |s| vt::mul(s, &two),
    )
    .unwrap();
    let e = backward(&[c], &[None], opts(), None).unwrap_err();
    // torch 2.15 names the node that saved the output (Sigmoid), not b's new history (Mul).
    assert!(
        e.message.starts_with("one of the variables needed for gradient computation has been modified by an inplace operation: [torch.DoubleTensor [3]], which is output 0 of Sigmoid, is at version 1; expected version 0 instead."),
        "{}",
        e.message
    );
}

#[test]
fn leaf_in_place_is_an_error() {
    let a = leaf(&[1.0], &[1]);
    let e = vt::inplace(
        "add_",
        &a,
        &[],
        |s| crate::core::ops::add_plan(s, s, Scalar::Int(1))?.run_into(s),
        |s| vt::add(s, s, Scalar::Int(1)),
    )
    .unwrap_err();
    assert_eq!(
        e.message,
        "a leaf Variable that requires grad is being used in an in-place operation."
    );
    // under no_grad it is allowed
    super::with_grad_mode(false, || {
        vt::inplace(
            "add_",
            &a,
            &[],
            |s| crate::core::ops::add_plan(s, s, Scalar::Int(1))?.run_into(s),
            |s| vt::add(s, s, Scalar::Int(1)),
        )
        .unwrap()
    });
    assert_eq!(vals(&a), vec![2.0]);
}

#[test]
fn engine_runs_highest_sequence_number_first() {
    // Two branches from x; the accumulation order into x.grad follows the sequence numbers,
    // the sum is what matters: d/dx (exp(x) + x*x) = exp(x) + 2x
    let x = leaf(&[0.5], &[1]);
    let y = vt::add(
        &vt::exp(&x).unwrap(),
        &vt::mul(&x, &x).unwrap(),
        Scalar::Int(1),
    )
    .unwrap();
    let y = vt::sum_all(&y, None).unwrap();
    backward(&[y], &[None], opts(), None).unwrap();
    let g = vals(&x.grad().unwrap())[0];
    assert!((g - (0.5f64.exp() + 1.0)).abs() < 1e-12);
}

#[test]
fn autograd_grad_and_create_graph_give_second_derivatives() {
    // y = x^3 => dy/dx = 3x^2, d2y/dx2 = 6x
    let x = leaf(&[2.0], &[]);
    let three = Tensor::from_vec(vec![3.0f64], &[]).unwrap();
    let y = vt::pow(&x, &three).unwrap();
    let create = BackwardOptions {
        keep_graph: true,
        create_graph: true,
    };
    let g = grad(
        &[y],
        std::slice::from_ref(&x),
        &[None],
        create,
        false,
        false,
    )
    .unwrap();
    let g = g[0].clone().unwrap();
    assert_eq!(vals(&g), vec![12.0]);
    assert!(g.requires_grad());
    let gg = grad(
        &[g],
        std::slice::from_ref(&x),
        &[None],
        opts(),
        false,
        false,
    )
    .unwrap();
    assert_eq!(vals(gg[0].as_ref().unwrap()), vec![12.0]);
    assert!(x.grad().is_none());
}

#[test]
fn unused_input_errors_unless_allowed() {
    let x = leaf(&[1.0], &[1]);
    let z = leaf(&[1.0], &[1]);
    let y = vt::sum_all(&vt::exp(&x).unwrap(), None).unwrap();
    let keep = BackwardOptions {
        keep_graph: true,
        create_graph: false,
    };
    let e = grad(
        std::slice::from_ref(&y),
        &[x.clone(), z.clone()],
        &[None],
        keep,
        false,
        false,
    )
    .unwrap_err();
    assert_eq!(e.message, "The differentiated Tensor at index 1 appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior.");
    let g = grad(
        std::slice::from_ref(&y),
        &[x.clone(), z.clone()],
        &[None],
        keep,
        true,
        false,
    )
    .unwrap();
    assert!(g[1].is_none());
    let g = grad(&[y], &[x, z], &[None], keep, false, true).unwrap();
    assert_eq!(vals(g[1].as_ref().unwrap()), vec![0.0]);
}

#[test]
fn matmul_and_log_softmax_gradients() {
    // loss = -log_softmax(x @ w)[0, 0]; check against finite differences
    let xv = [0.1, -0.2, 0.3, 0.4, 0.5, -0.6];
    let wv = [0.7, -0.1, 0.2, 0.05, -0.3, 0.9];
    let loss_of = |w: &Tensor| {
        let x = Tensor::from_vec(xv.to_vec(), &[2, 3]).unwrap();
        let ls = vt::log_softmax(&vt::matmul(&x, w).unwrap(), 1, None).unwrap();
        let picked = vt::select(&vt::select(&ls, 0, 0).unwrap(), 0, 0).unwrap();
        vt::neg(&picked).unwrap()
    };
    let w = leaf(&wv, &[3, 2]);
    backward(&[loss_of(&w)], &[None], opts(), None).unwrap();
    let g = vals(&w.grad().unwrap());
    for i in 0..6 {
        let mut p = wv;
        let mut m = wv;
        p[i] += 1e-6;
        m[i] -= 1e-6;
        let fp = vals(&loss_of(&Tensor::from_vec(p.to_vec(), &[3, 2]).unwrap()))[0];
        let fm = vals(&loss_of(&Tensor::from_vec(m.to_vec(), &[3, 2]).unwrap()))[0];
        assert!(
            (g[i] - (fp - fm) / 2e-6).abs() < 1e-6,
            "{i}: {} vs {}",
            g[i],
            (fp - fm) / 2e-6
        );
    }
}

#[test]
fn million_node_chain_backward_and_drop() {
    let x = leaf(&[1.0], &[1]);
    let one = Tensor::from_vec(vec![1.0f64], &[1]).unwrap();
    let mut y = x.clone();
    for _ in 0..1_000_000 {
        y = vt::add(&y, &one, Scalar::Int(1)).unwrap();
    }
    backward(std::slice::from_ref(&y), &[None], opts(), None).unwrap();
    assert_eq!(vals(&x.grad().unwrap()), vec![1.0]);
    drop(y); // a recursive drop would overflow the stack
             // and a graph dropped without backward
    let mut y = x.clone();
    for _ in 0..1_000_000 {
        y = vt::mul(&y, &one).unwrap();
    }
    drop(y);
}

#[test]
fn node_layout_is_compact() {
    // Note [Compact nodes]: the node of a one-output op with up to two inputs, a shape of up to
    // three dimensions and a formula of at most two words is one 128-byte malloc chunk (the
    // `Arc` counts and the `Node`: at most 120 bytes). A formula kind that outgrows them (a new
    // hand-written `NodeKind` variant, or a generated kind the generator's `fields_bytes`
    // estimate gets wrong) fails here: box its payload.
    use std::mem::size_of;
    assert_eq!(size_of::<super::node::SavedTensor>(), 16);
    assert_eq!(size_of::<Option<super::node::Edge>>(), 16);
    assert!(size_of::<super::generated::Generated>() <= 24);
    assert!(size_of::<super::formulas::NodeKind>() <= 24);
    assert!(size_of::<std::sync::Mutex<super::formulas::NodeKind>>() <= 32);
    assert!(size_of::<super::node::Node>() <= 104);
    // `ArcInner<Node>`: two counts and the node; glibc rounds a request of up to 120 bytes
    // (plus its 8-byte header) to a 128-byte chunk.
    assert!(2 * size_of::<usize>() + size_of::<super::node::Node>() <= 120);
}

#[test]
fn spilled_node_layouts_read_back() {
    // Note [Compact nodes]: what does not fit inline (more than two edges, four dimensions, a
    // dimension of 2^32 or more, several outputs, a name of 255 bytes or more) is boxed and
    // reads back the same.
    use super::node::{Edge, Node};
    use super::NodeKind;
    let a = leaf(&[1.0], &[1]);
    let e = || {
        Some(Edge {
            node: a.gradient_edge().unwrap().node,
            input_nr: 0,
        })
    };
    let t4 = Tensor::zeros(&[2, 3, 1, 5], DType::Float64).unwrap();
    let t3 = Tensor::zeros(&[4, 1, 6], DType::Float32).unwrap();
    let wide =
        crate::core::ops::expand(&Tensor::zeros(&[1], DType::Float32).unwrap(), &[1i64 << 33])
            .unwrap();
    let long: &'static str = Box::leak("L".repeat(300).into_boxed_str());
    let n = Node::new(NodeKind::Zero { name: long }, vec![e(), None, e()], &[&t4]);
    assert_eq!(n.name(), long);
    assert_eq!(n.next_edges().len(), 3);
    assert!(n.next_edges()[1].is_none() && n.next_edges()[2].is_some());
    assert_eq!(n.num_inputs(), 1);
    let m = n.input_meta(0).unwrap();
    assert_eq!((m.sizes(), m.dtype()), (&[2, 3, 1, 5][..], DType::Float64));
    assert!(n.input_meta(1).is_none());

    let n = Node::new(
        NodeKind::Zero {
            name: "ZeroBackward0",
        },
        vec![None, e()],
        &[&t3],
    );
    assert_eq!(n.name(), "ZeroBackward0");
    assert_eq!(n.next_edges().len(), 2);
    let m = n.input_meta(0).unwrap();
    assert_eq!((m.sizes(), m.dtype()), (&[4, 1, 6][..], DType::Float32));

    let one = Tensor::zeros(&[1], DType::Int64).unwrap();
    for sizes in [
        &[70000, 1, 2, 3][..],
        &[1, 2, 3, 4, 5, 6, 7],
        &[65535, 1, 2, 3, 4, 5],
    ] {
        let i64s: Vec<i64> = sizes.iter().map(|&s| s as i64).collect();
        let t = crate::core::ops::expand(&one, &i64s).unwrap();
        let n = Node::new(NodeKind::Copy, vec![e()], &[&t]);
        let m = n.input_meta(0).unwrap();
        assert_eq!((m.sizes(), m.dtype()), (sizes, DType::Int64));
    }

    let n = Node::new(NodeKind::Zero { name: "" }, Vec::new(), &[&wide, &t3]);
    assert_eq!((n.name(), n.next_edges().len(), n.num_inputs()), ("", 0, 2));
    assert_eq!(n.input_meta(0).unwrap().sizes(), &[1usize << 33][..]);
    assert_eq!(n.input_meta(1).unwrap().sizes(), &[4, 1, 6][..]);

    let s = Tensor::zeros(&[], DType::Float32).unwrap();
    let n = Node::new(NodeKind::Copy, vec![e()], &[&s]);
    assert_eq!(n.input_meta(0).unwrap().sizes(), &[] as &[usize]);
    assert_eq!(n.name(), "CopyBackwards");
}
