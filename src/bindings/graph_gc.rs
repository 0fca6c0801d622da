//! src/bindings/graph_gc.rs: what the cyclic GC sees of autograd graphs — the Python objects a
//! tensor's graph holds (hook dicts, custom Function contexts, preserved node objects), visited
//! and cleared from the `tp_traverse` / `tp_clear` of tensor and node objects (Note [Graphs and
//! the cyclic GC]).
//!
//! Layer 1 (objects): see src/bindings/mod.rs.

use super::gil::assert_gil_held;
use crate::core::autograd::Node;
use crate::core::Tensor;
use pyo3_ffi as ffi;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

/// Bit 0 of a node's Python-object slot: the node owns its preserved object (node_object.rs,
/// Note [Node objects]).
pub(crate) const OWNED: usize = 1;

/// The preserved Python object `node` owns, if any (borrowed: the node holds it).
pub(crate) fn preserved_object(node: &Node) -> Option<*mut ffi::PyObject> {
    let slot = node.pyobj();
    (slot & OWNED != 0).then_some((slot & !OWNED) as *mut ffi::PyObject)
}

/// Drop the node's preserved object, if any (a GC `tp_clear` of the only holder of the node).
pub(crate) fn release_preserved(node: &Node) {
    assert_gil_held();
    let slot = node.pyobj();
    if slot & OWNED != 0 {
        node.set_pyobj(0);
        let obj = (slot & !OWNED) as *mut ffi::PyObject;
        // SAFETY: the node owned this reference; the slot no longer names the object, so
        // nothing can hand it out again. The object's `node` is None (preserved), so its
        // deallocator will not touch the node.
        unsafe { ffi::Py_DECREF(obj) };
    }
}

// Note [Graphs and the cyclic GC]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A hook that captures the tensor it is registered on (`y.register_hook(lambda g: g * y)`), a
// context attribute holding an output (`ctx.out = out`) or `y.grad_fn.metadata["y"] = y` make a
// cycle through the Rust graph: Python object → core tensor → node → callback (or the node's
// preserved object) → … → the Python object. torch never frees these (research §2.1). Here a
// tensor object that Python alone owns (its core tensor is held by nothing else:
// `held_by_rust` is false) also reports what its core tensor alone owns: a leaf's hook dicts,
// and — when the tensor is the only holder of its `grad_fn` (strong count one) — that node's
// hook dicts, its custom Function context and its preserved Python object. Everything reported
// is exclusively reachable through the object, which is the GC's contract for `tp_traverse`;
// `tp_clear` drops the same references. A node object Python owns does the same for its node
// when it is that node's only holder. Graphs that are consumed by a backward without
// `retain_graph` drop their hooks at once (engine.rs), so shared graphs leak nothing either once
// backwarded; a graph shared by several live tensors and dropped without backward is freed when
// the last of them goes.

/// Visit the Python objects `t`'s autograd state exclusively holds (Note [Graphs and the cyclic
/// GC]). The caller established that Python alone owns `t`.
///
/// # Safety
/// Called from a `tp_traverse` with the GIL held.
pub(crate) unsafe fn traverse_autograd(
    t: &Tensor,
    visit: ffi::visitproc,
    arg: *mut c_void,
) -> c_int {
    let (pre, post) = t.leaf_hooks();
    for c in pre.iter().chain(post.iter()) {
        // SAFETY: the callback's pointer is a live object it owns a reference to.
        let r = unsafe { visit(c.as_ptr() as *mut ffi::PyObject, arg) };
        if r != 0 {
            return r;
        }
    }
    if let Some(node) = t.grad_fn() {
        // Ours (`t`'s meta) plus the clone just made.
        if Arc::strong_count(&node) == 2 {
            // SAFETY: as above; the node is exclusively `t`'s.
            return unsafe { traverse_node(&node, visit, arg) };
        }
    }
    0
}

/// Visit what `node` holds of Python: hook dicts, a Function's context, its preserved object.
///
/// # Safety
/// GIL held; the node is exclusively owned by the object being traversed.
pub(crate) unsafe fn traverse_node(
    node: &Arc<Node>,
    visit: ffi::visitproc,
    arg: *mut c_void,
) -> c_int {
    // SAFETY: each callback's pointer is a live object it owns a reference to.
    let r = node.for_each_callback(|c| unsafe { visit(c.as_ptr() as *mut ffi::PyObject, arg) });
    if r != 0 {
        return r;
    }
    if let Some(obj) = preserved_object(node) {
        // SAFETY: the node owns one reference to its preserved object.
        return unsafe { visit(obj, arg) };
    }
    0
}

/// Drop what `traverse_autograd` visits (`tp_clear`). `t` is a clone of the object's handle
/// (so the node is exclusively the tensor's when its strong count is two: `t`'s meta and the
/// clone `grad_fn` returns).
pub(crate) fn clear_autograd_owned(t: &Tensor) {
    if t.autograd_meta().is_some() {
        let taken = t.with_leaf_hooks(std::mem::take);
        drop(taken);
    }
    if let Some(node) = t.grad_fn() {
        if Arc::strong_count(&node) == 2 {
            clear_node(&node);
        }
    }
}

/// Drop the Python objects `node` holds (`tp_clear`).
pub(crate) fn clear_node(node: &Arc<Node>) {
    node.clear_hooks();
    drop(node.take_callback_kind());
    drop(node.take_packed());
    release_preserved(node);
}
