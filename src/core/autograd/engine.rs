//! src/core/autograd/engine.rs: the backward engine (PyTorch: engine.cpp): iterative, on the
//! calling thread, in torch's order — dependencies counted from the roots, then the ready node
//! with the highest sequence number first — with input buffers summed, each gradient reduced to
//! its input's shape (`sum_to`) and cast to its dtype, saved values released per node unless
//! the graph is retained, and `create_graph` (grad mode on while formulas run).

use super::node::{Edge, Node};
use super::variable_type as vt;
use crate::core::error::{Error, Result};
use crate::core::ops;
use crate::core::scalar::Scalar;
use crate::core::tensor::Tensor;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;

/// The options shared by `backward` and `grad`.
#[derive(Clone, Copy, Debug, Default)]
pub struct BackwardOptions {
    pub keep_graph: bool,
    pub create_graph: bool,
}

/// torch's `_make_grads`: the given gradients checked against the outputs, ones for scalar
/// outputs without one.
fn make_grads(outputs: &[Tensor], grads: &[Option<Tensor>]) -> Result<Vec<Tensor>> {
    let mut out = Vec::with_capacity(outputs.len());
    for (i, t) in outputs.iter().enumerate() {
        match grads.get(i).and_then(|g| g.as_ref()) {
            Some(g) => {
                if g.sizes() != t.sizes() {
                    return Err(Error::runtime(format!(
                        "Mismatch in shape: grad_output[{i}] has a shape of torch.Size({}) and output[{i}] has a shape of torch.Size({}).",
                        fmt_sizes(g.sizes()),
                        fmt_sizes(t.sizes())
                    )));
                }
                out.push(g.clone());
            }
            None => {
                if t.requires_grad() && t.numel() != 1 {
                    return Err(Error::runtime(
                        "grad can be implicitly created only for scalar outputs",
                    ));
                }
                out.push(ops::ones_like(t, None)?);
            }
        }
    }
    Ok(out)
}

fn fmt_sizes(s: &[usize]) -> String {
    let v: Vec<String> = s.iter().map(|x| x.to_string()).collect();
    format!("[{}]", v.join(", "))
}

/// The edges of the roots; torch's error for one without history.
fn root_edges(outputs: &[Tensor]) -> Result<Vec<Edge>> {
    outputs
        .iter()
        .enumerate()
        .map(|(i, t)| {
            t.gradient_edge()
                .map(|e| Edge {
                    node: e.node,
                    input_nr: e.input_nr,
                })
                .ok_or_else(|| {
                    Error::runtime(format!(
                        "element {i} of tensors does not require grad and does not have a grad_fn"
                    ))
                })
        })
        .collect()
}

/// torch's `Tensor.backward` / `autograd.backward`: accumulate the gradients of `outputs`
/// (seeded with `grads`, ones for scalars) into the `.grad` of the leaves — of `inputs` only
/// when given.
pub fn backward(
    outputs: &[Tensor],
    grads: &[Option<Tensor>],
    opts: BackwardOptions,
    inputs: Option<&[Tensor]>,
) -> Result<()> {
    let edges = root_edges(outputs)?;
    let grads = make_grads(outputs, grads)?;
    let targets = match inputs {
        None => None,
        Some(ins) => {
            if ins.is_empty() {
                return Err(Error::runtime(
                    "'inputs' argument to backward() cannot be empty.",
                ));
            }
            let mut v = Vec::with_capacity(ins.len());
            for t in ins {
                let e = t.gradient_edge().ok_or_else(|| {
                    Error::runtime(
                        "can't retain_grad on Tensor that has requires_grad=False. (Each tensor in backward(inputs=...) must require grad.)",
                    )
                })?;
                v.push((
                    Edge {
                        node: e.node,
                        input_nr: e.input_nr,
                    },
                    t.clone(),
                ));
            }
            Some(v)
        }
    };
    let mut task = GraphTask::new(opts, true);
    let captured = task.run(
        edges,
        grads,
        targets
            .as_ref()
            .map(|v| v.iter().map(|(e, _)| e.clone()).collect()),
    )?;
    // Non-leaf `inputs=`: their gradient is accumulated into `.grad` as for a leaf.
    if let Some(targets) = targets {
        for ((edge, t), g) in targets.iter().zip(captured) {
            if !edge.node.is_accumulate_grad() {
                if let Some(g) = g {
                    accumulate_grad(t, g, opts.create_graph)?;
                }
            }
        }
    }
    Ok(())
}

/// torch's `autograd.grad`: the gradients of `outputs` with respect to `inputs`, without
/// touching any `.grad`.
pub fn grad(
    outputs: &[Tensor],
    inputs: &[Tensor],
    grad_outputs: &[Option<Tensor>],
    opts: BackwardOptions,
    allow_unused: bool,
    materialize_grads: bool,
) -> Result<Vec<Option<Tensor>>> {
    let edges = root_edges(outputs)?;
    let grads = make_grads(outputs, grad_outputs)?;
    let mut targets = Vec::with_capacity(inputs.len());
    for t in inputs {
        let e = t.gradient_edge().ok_or_else(|| {
            Error::runtime("One of the differentiated Tensors does not require grad")
        })?;
        targets.push(Edge {
            node: e.node,
            input_nr: e.input_nr,
        });
    }
    let mut task = GraphTask::new(opts, false);
    let captured = task.run(edges, grads, Some(targets))?;
    let mut out = Vec::with_capacity(captured.len());
    for (i, (g, t)) in captured.into_iter().zip(inputs).enumerate() {
        match g {
            Some(g) => out.push(Some(g)),
            None if materialize_grads => out.push(Some(ops::zeros_like(t, None)?)),
            None if allow_unused => out.push(None),
            None => {
                return Err(Error::runtime(format!(
                    "The differentiated Tensor at index {i} appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior."
                )))
            }
        }
    }
    Ok(out)
}

/// Accumulate `g` into `variable.grad` (torch's `AccumulateGrad::accumulateGrad`): the first
/// gradient is stolen when nothing else holds it (else copied); later ones are added in place,
/// or out of place with `create_graph` (so the sum keeps its history).
pub(crate) fn accumulate_grad(variable: &Tensor, g: Tensor, create_graph: bool) -> Result<()> {
    match variable.grad() {
        None => {
            let stealable =
                g.use_count() == 1 && g.is_contiguous() && g.base().is_none() && !g.requires_grad();
            let new = if create_graph || stealable {
                g
            } else {
                let c = ops::clone(&g)?;
                c.detach_in_place();
                c
            };
            variable.set_grad_unchecked(Some(new));
        }
        Some(old) => {
            if create_graph {
                variable.set_grad_unchecked(Some(vt::add(&old, &g, Scalar::Int(1))?));
            } else {
                ops::add_plan(&old, &g, Scalar::Int(1))?.run_into(&old)?;
            }
        }
    }
    Ok(())
}

/// `g` summed down to `sizes` (the gradient of a broadcast input); torch's error when `g`'s
/// shape cannot have come from broadcasting `sizes`.
fn sum_to(g: Tensor, sizes: &[usize], node: &Node, index: usize) -> Result<Tensor> {
    let gs = g.sizes();
    let lead = gs.len().checked_sub(sizes.len());
    let compatible = lead.is_some_and(|lead| {
        sizes
            .iter()
            .zip(&gs[lead..])
            .all(|(&s, &d)| s == d || s == 1)
    });
    if !compatible {
        return Err(Error::runtime(format!(
            "Function {} returned an invalid gradient at index {index} - got {} but expected shape compatible with {}",
            node.name(),
            fmt_sizes(gs),
            fmt_sizes(sizes)
        )));
    }
    let lead = lead.unwrap_or(0);
    let mut dims: Vec<i64> = (0..lead as i64).collect();
    for (i, (&s, &d)) in sizes.iter().zip(&gs[lead..]).enumerate() {
        if s == 1 && d != 1 {
            dims.push((lead + i) as i64);
        }
    }
    let r = if dims.is_empty() {
        g
    } else {
        vt::sum(&g, Some(&dims), true, None)?
    };
    if r.sizes() == sizes {
        return Ok(r);
    }
    let shape: Vec<i64> = sizes.iter().map(|&s| s as i64).collect();
    vt::reshape(&r, &shape)
}

/// One backward pass (torch's `GraphTask`).
struct GraphTask {
    opts: BackwardOptions,
    /// `backward` (accumulate into `.grad`) rather than `grad` (capture only).
    accumulate: bool,
}

/// A node and its key in the maps (its address).
fn key(n: &Arc<Node>) -> usize {
    Arc::as_ptr(n) as usize
}

impl GraphTask {
    fn new(opts: BackwardOptions, accumulate: bool) -> GraphTask {
        GraphTask { opts, accumulate }
    }

    /// Run from `roots` seeded with `grads`. With `targets`, only the nodes that lead to a
    /// target run, and the gradient arriving at each target is returned (in order).
    fn run(
        &mut self,
        roots: Vec<Edge>,
        grads: Vec<Tensor>,
        targets: Option<Vec<Edge>>,
    ) -> Result<Vec<Option<Tensor>>> {
        // Discover the graph and count dependencies (iteratively).
        let mut deps: HashMap<usize, usize> = HashMap::new();
        let mut nodes: HashMap<usize, Arc<Node>> = HashMap::new();
        let mut stack: Vec<Arc<Node>> = Vec::new();
        for e in &roots {
            if nodes.insert(key(&e.node), e.node.clone()).is_none() {
                stack.push(e.node.clone());
            }
        }
        while let Some(n) = stack.pop() {
            for e in n.next_edges().iter().flatten() {
                *deps.entry(key(&e.node)).or_insert(0) += 1;
                if nodes.insert(key(&e.node), e.node.clone()).is_none() {
                    stack.push(e.node.clone());
                }
            }
        }
        // Which nodes lead to a target (children are created before their parents, so they
        // have lower sequence numbers; AccumulateGrad nodes are sinks).
        let needed: Option<HashMap<usize, bool>> = targets.as_ref().map(|targets| {
            let mut order: Vec<&Arc<Node>> = nodes.values().collect();
            order.sort_by_key(|n| {
                if n.is_accumulate_grad() {
                    0
                } else {
                    n.seq_nr() + 1
                }
            });
            let mut needed = HashMap::with_capacity(order.len());
            for n in order {
                let is_target = targets.iter().any(|t| Arc::ptr_eq(&t.node, n));
                let child = n
                    .next_edges()
                    .iter()
                    .flatten()
                    .any(|e| needed.get(&key(&e.node)).copied().unwrap_or(false));
                needed.insert(key(n), is_target || child);
            }
            needed
        });
        let mut captured: Vec<Option<Tensor>> = vec![None; targets.as_ref().map_or(0, |t| t.len())];

        // Seed the buffers of the roots.
        let mut buffers: HashMap<usize, Vec<Option<Tensor>>> = HashMap::new();
        for (e, g) in roots.iter().zip(grads) {
            let g = self.validate(g, &e.node, e.input_nr as usize, &e.node, 0)?;
            add_to_buffer(
                &mut buffers,
                &e.node,
                e.input_nr as usize,
                g,
                self.opts.create_graph,
            )?;
        }
        let mut ready: BinaryHeap<(u64, usize)> = BinaryHeap::new();
        for e in &roots {
            let k = key(&e.node);
            if deps.get(&k).copied().unwrap_or(0) == 0 && !ready.iter().any(|&(_, x)| x == k) {
                ready.push((e.node.seq_nr(), k));
            }
        }
        super::with_grad_mode(self.opts.create_graph, || -> Result<()> {
            while let Some((_, k)) = ready.pop() {
                let node = nodes[&k].clone();
                let mut buffer = buffers
                    .remove(&k)
                    .unwrap_or_else(|| vec![None; node.num_inputs().max(1)]);
                let has_hooks = node.has_hooks();
                let leaf = if node.is_accumulate_grad() {
                    node.variable()
                } else {
                    None
                };
                // Note [Hooks ordering] (torch's node.h): tensor pre-hooks, then the
                // retains_grad capture, then the node's pre-hooks, the node, its post-hooks.
                call_tensor_pre_hooks(&node, leaf.as_ref(), has_hooks, &mut buffer)?;
                if let Some(targets) = &targets {
                    for (i, t) in targets.iter().enumerate() {
                        if Arc::ptr_eq(&t.node, &node) {
                            captured[i] = buffer.get(t.input_nr as usize).cloned().flatten();
                        }
                    }
                }
                if let Some(needed) = &needed {
                    if !needed.get(&k).copied().unwrap_or(false) {
                        continue;
                    }
                }
                for (k_out, t) in node.retained() {
                    if let Some(Some(g)) = buffer.get(k_out as usize) {
                        accumulate_grad(&t, g.clone(), self.opts.create_graph)?;
                    }
                }
                let (pre, post) = if has_hooks {
                    node.with_hooks(|h| (h.pre.clone(), h.post.clone()))
                } else {
                    (None, None)
                };
                if let Some(pre) = pre {
                    buffer = pre.node_pre(&node, buffer)?;
                }
                if node.is_accumulate_grad() {
                    let execute = self.accumulate
                        && targets
                            .as_ref()
                            .is_none_or(|ts| ts.iter().any(|t| Arc::ptr_eq(&t.node, &node)));
                    if execute {
                        if let (Some(v), Some(Some(g))) = (leaf.as_ref(), buffer.first()) {
                            accumulate_grad(v, g.clone(), self.opts.create_graph)?;
                            if let (_, Some(hook)) = v.leaf_hooks() {
                                hook.post_accumulate(v)?;
                            }
                        }
                    }
                    if let Some(post) = post {
                        post.node_post(&node, Vec::new(), &buffer)?;
                    }
                    continue;
                }
                let mut outputs = if buffer.iter().all(|g| g.is_none()) {
                    vec![None; node.next_edges().len()]
                } else {
                    let kind = node.lock_kind();
                    let r = match super::hooks::prepare_function_backward(&kind, &node) {
                        // A custom Function's backward runs Python: not under the lock.
                        Some(prepared) => {
                            drop(kind);
                            prepared.and_then(|(ctx, saved, materialize)| {
                                ctx.function_backward(&node, saved, materialize, &buffer)
                            })
                        }
                        // Unpack hooks run without the lock (Note [Unpack hooks run outside
                        // the node lock]).
                        None => super::hooks::apply_unpacking_first(kind, &node, &buffer),
                    };
                    match r {
                        Ok(r) => r,
                        Err(e) => return Err(anomaly_context(&node, e)),
                    }
                };
                if let Some(post) = post {
                    outputs = post.node_post(&node, outputs, &buffer)?;
                }
                if super::hooks::is_anomaly_enabled()
                    && super::hooks::is_anomaly_check_nan_enabled()
                {
                    check_nan(&node, &outputs)?;
                }
                drop(buffer);
                if !self.opts.keep_graph {
                    node.release_variables();
                    if has_hooks {
                        // The graph is consumed: its hooks' Python objects go with it (torch
                        // keeps them, a known leak).
                        node.clear_hooks();
                    }
                }
                for (i, e) in node.next_edges().iter().enumerate() {
                    let Some(e) = e else { continue };
                    let ek = key(&e.node);
                    if let Some(needed) = &needed {
                        if !needed.get(&ek).copied().unwrap_or(false) {
                            continue;
                        }
                    }
                    if let Some(Some(g)) = outputs.get(i) {
                        let g = self.validate(g.clone(), &e.node, e.input_nr as usize, &node, i)?;
                        add_to_buffer(
                            &mut buffers,
                            &e.node,
                            e.input_nr as usize,
                            g,
                            self.opts.create_graph,
                        )?;
                    }
                    let d = deps.get_mut(&ek).expect("discovered");
                    *d -= 1;
                    if *d == 0 {
                        ready.push((e.node.seq_nr(), ek));
                    }
                }
            }
            Ok(())
        })?;
        Ok(captured)
    }

    /// `g`, the gradient `producer` computed for its edge `index`, made to fit input
    /// `input_nr` of `target`: reduced to its shape, cast to its dtype (torch's
    /// `validate_outputs`).
    fn validate(
        &self,
        g: Tensor,
        target: &Arc<Node>,
        input_nr: usize,
        producer: &Node,
        index: usize,
    ) -> Result<Tensor> {
        let Some(meta) = target.input_meta(input_nr) else {
            return Ok(g);
        };
        let g = if g.sizes() != meta.sizes() {
            sum_to(g, meta.sizes(), producer, index)?
        } else {
            g
        };
        if g.dtype() != meta.dtype() {
            return vt::to(&g, meta.dtype(), false, false);
        }
        Ok(g)
    }
}

/// Add `g` into input `i` of `node`'s buffer (in place when the buffered tensor is ours alone).
fn add_to_buffer(
    buffers: &mut HashMap<usize, Vec<Option<Tensor>>>,
    node: &Arc<Node>,
    i: usize,
    g: Tensor,
    create_graph: bool,
) -> Result<()> {
    let n = node.num_inputs().max(i + 1);
    let slot = buffers.entry(key(node)).or_insert_with(|| vec![None; n]);
    match slot[i].take() {
        None => slot[i] = Some(g),
        Some(old) => {
            let sum = if !create_graph
                && old.use_count() == 1
                && old.base().is_none()
                && old.is_contiguous()
                && old.sizes() == g.sizes()
                && old.dtype() == g.dtype()
            {
                ops::add_plan(&old, &g, Scalar::Int(1))?.run_into(&old)?;
                old
            } else {
                vt::add(&old, &g, Scalar::Int(1))?
            };
            slot[i] = Some(sum);
        }
    }
    Ok(())
}

/// Run the tensor pre-hooks of `node`'s inputs on `buffer` (for an `AccumulateGrad`, the
/// leaf's), replacing each gradient with what the hooks return.
fn call_tensor_pre_hooks(
    node: &Arc<Node>,
    leaf: Option<&Tensor>,
    has_hooks: bool,
    buffer: &mut [Option<Tensor>],
) -> Result<()> {
    if let Some(v) = leaf {
        if let (Some(hook), _) = v.leaf_hooks() {
            if let Some(g) = buffer.first_mut().and_then(|g| g.take()) {
                buffer[0] = Some(hook.tensor_pre(g)?);
            }
        }
    }
    if !has_hooks {
        return Ok(());
    }
    let hooks = node.with_hooks(|h| h.tensor_pre.clone());
    for (nr, hook) in hooks {
        if let Some(slot) = buffer.get_mut(nr as usize) {
            if let Some(g) = slot.take() {
                *slot = Some(hook.tensor_pre(g)?);
            }
        }
    }
    Ok(())
}

/// Under anomaly mode, an error in a node's backward is preceded by torch's warning naming it
/// (torch also prints the forward traceback, which is not recorded here).
fn anomaly_context(node: &Node, e: Error) -> Error {
    if super::hooks::is_anomaly_enabled() {
        crate::core::warnings::warn(
            crate::core::warnings::WarningKind::User,
            format!(
                "Error detected in {}. Traceback of forward call that caused the error is not recorded by tensorbind.",
                node.name()
            ),
        );
    }
    e
}

/// torch's anomaly-mode NaN check of a node's outputs.
fn check_nan(node: &Node, outputs: &[Option<Tensor>]) -> Result<()> {
    for (i, g) in outputs.iter().enumerate() {
        let Some(g) = g else { continue };
        if !g.dtype().is_floating_point() {
            continue;
        }
        let any = ops::any(&ops::isnan(g)?)?;
        if matches!(any.item()?, Scalar::Bool(true)) {
            let e = Error::runtime(format!(
                "Function '{}' returned nan values in its {i}th output.",
                node.name()
            ));
            return Err(anomaly_context(node, e));
        }
    }
    Ok(())
}
