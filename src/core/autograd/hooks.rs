//! src/core/autograd/hooks.rs: opaque callbacks the bindings give the core — tensor hooks,
//! post-accumulate-grad hooks, node pre/post hooks, custom Functions' backward (PyTorch:
//! `FunctionPreHook`/`FunctionPostHook` in function_hook.h, `PyFunctionTensorPreHook` in
//! python_hook.h) — and anomaly mode's global flags (PyTorch: `AnomalyMode`).

// Note [Opaque callbacks]
// ~~~~~~~~~~~~~~~~~~~~~~~
// The core never names CPython, yet the engine must call Python code (hooks, a custom
// Function's `backward`) inline, on the calling thread. A `Callback` is one opaque owned pointer
// (a Python object, to the bindings) plus one process-wide table of functions (`CallbackFns`)
// the bindings install at init: how to call each kind of callback, and how to release the
// pointer (from any thread: the bindings take the GIL). The core only stores callbacks, calls
// them through the table and drops them. What a callback pointer is — for hooks, an ordered dict
// of the user's functions, as torch's `PyFunctionTensorPreHook(dict, value_idx)` — is the
// bindings' business; so is visiting it for the cyclic GC (`Node::for_each_callback`).
//
// A callback that fails returns `ErrorKind::External`: the bindings have stashed the Python
// exception and raise that very exception again when the error reaches them (bindings Note
// [Errors from callbacks]); the core passes the error through unchanged.

use super::node::{Node, SavedTensor};
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;
use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

/// Gradients as the engine passes them (None: undefined).
pub type Grads = Vec<Option<Tensor>>;

/// `node_post(obj, node, grad_inputs, grad_outputs)`.
pub type NodePostFn = fn(*mut c_void, &Arc<Node>, Grads, &[Option<Tensor>]) -> Result<Grads>;

/// `function_backward(obj, node, saved, materialize_grads, grad_outputs)`.
pub type FunctionBackwardFn =
    fn(*mut c_void, &Arc<Node>, Vec<Tensor>, bool, &[Option<Tensor>]) -> Result<Grads>;

/// How the core calls each kind of callback (installed once by the bindings).
pub struct CallbackFns {
    /// A tensor pre-hook: the gradient of one tensor, replaced by what the hooks return.
    pub tensor_pre: fn(obj: *mut c_void, grad: Tensor) -> Result<Tensor>,
    /// A leaf's post-accumulate-grad hooks, given the leaf after `.grad` was written.
    pub post_accumulate: fn(obj: *mut c_void, leaf: &Tensor) -> Result<()>,
    /// A node's pre-hooks: the gradients of its outputs, possibly replaced.
    pub node_pre: fn(obj: *mut c_void, node: &Arc<Node>, grad_outputs: Grads) -> Result<Grads>,
    /// A node's post-hooks: the gradients it computed for its inputs, possibly replaced.
    pub node_post: NodePostFn,
    /// A custom Function's `backward` given its saved tensors (after the version check) and
    /// whether undefined gradients are materialised; one gradient per edge of `node`.
    pub function_backward: FunctionBackwardFn,
    /// Release the callback's pointer (any thread).
    pub release: fn(obj: *mut c_void),
}

static FNS: OnceLock<CallbackFns> = OnceLock::new();

/// Install the bindings' callback table (once, at init).
pub fn set_callback_fns(fns: CallbackFns) {
    let _ = FNS.set(fns);
}

fn fns() -> Result<&'static CallbackFns> {
    FNS.get()
        .ok_or_else(|| Error::runtime("internal error: no callback table installed"))
}

/// One opaque callback: an owned pointer the bindings made (Note [Opaque callbacks]).
pub struct Callback(NonNull<c_void>);

// SAFETY: the pointer is only dereferenced by the bindings' functions, which take the GIL (or
// run with it held); the core only moves and drops it.
unsafe impl Send for Callback {}
// SAFETY: as above; shared references only read the pointer value.
unsafe impl Sync for Callback {}

impl Callback {
    /// Take ownership of `obj` (one reference the caller gives up).
    ///
    /// # Safety
    /// `obj` is a pointer the installed `CallbackFns` accept, owned by the caller.
    pub unsafe fn new(obj: NonNull<c_void>) -> Callback {
        Callback(obj)
    }

    /// The opaque pointer (borrowed: valid while this callback lives).
    pub fn as_ptr(&self) -> *mut c_void {
        self.0.as_ptr()
    }

    pub fn tensor_pre(&self, grad: Tensor) -> Result<Tensor> {
        (fns()?.tensor_pre)(self.as_ptr(), grad)
    }

    pub fn post_accumulate(&self, leaf: &Tensor) -> Result<()> {
        (fns()?.post_accumulate)(self.as_ptr(), leaf)
    }

    pub fn node_pre(&self, node: &Arc<Node>, grads: Grads) -> Result<Grads> {
        (fns()?.node_pre)(self.as_ptr(), node, grads)
    }

    pub fn node_post(
        &self,
        node: &Arc<Node>,
        grad_inputs: Grads,
        grad_outputs: &[Option<Tensor>],
    ) -> Result<Grads> {
        (fns()?.node_post)(self.as_ptr(), node, grad_inputs, grad_outputs)
    }

    pub fn function_backward(
        &self,
        node: &Arc<Node>,
        saved: Vec<Tensor>,
        materialize_grads: bool,
        grads: &[Option<Tensor>],
    ) -> Result<Grads> {
        (fns()?.function_backward)(self.as_ptr(), node, saved, materialize_grads, grads)
    }
}

impl Drop for Callback {
    fn drop(&mut self) {
        if let Some(f) = FNS.get() {
            (f.release)(self.0.as_ptr());
        }
    }
}

/// A node's hooks (torch's `tensor_pre_hooks_`, `pre_hooks_`, `post_hooks_`): one callback per
/// kind (each a whole list of user functions, to the bindings).
#[derive(Default)]
pub struct NodeHooks {
    /// Tensor pre-hooks of the node's outputs: (output number, hooks).
    pub tensor_pre: Vec<(u32, Arc<Callback>)>,
    pub pre: Option<Arc<Callback>>,
    pub post: Option<Arc<Callback>>,
}

/// A leaf's hooks (torch keeps them on the tensor; its `AccumulateGrad` reads them).
#[derive(Default)]
pub struct LeafHooks {
    pub tensor_pre: Option<Arc<Callback>>,
    pub post_accumulate: Option<Arc<Callback>>,
}

// ---- anomaly mode ----------------------------------------------------------------------------

const ANOMALY: u8 = 1;
const CHECK_NAN: u8 = 2;

/// Anomaly mode (process-wide, as torch's `AnomalyMode`): bit 0 on, bit 1 check NaN.
static ANOMALY_MODE: AtomicU8 = AtomicU8::new(CHECK_NAN);

/// torch's `is_anomaly_enabled()`.
pub fn is_anomaly_enabled() -> bool {
    ANOMALY_MODE.load(Ordering::Relaxed) & ANOMALY != 0
}

/// torch's `is_anomaly_check_nan_enabled()`.
pub fn is_anomaly_check_nan_enabled() -> bool {
    ANOMALY_MODE.load(Ordering::Relaxed) & CHECK_NAN != 0
}

/// torch's `set_anomaly_enabled(enabled, check_nan)`; returns the previous (enabled, check_nan).
pub fn set_anomaly_enabled(enabled: bool, check_nan: bool) -> (bool, bool) {
    let new = (enabled as u8 * ANOMALY) | (check_nan as u8 * CHECK_NAN);
    let old = ANOMALY_MODE.swap(new, Ordering::Relaxed);
    (old & ANOMALY != 0, old & CHECK_NAN != 0)
}

// ---- custom Functions ------------------------------------------------------------------------

/// The node of a custom `autograd.Function` (torch's `PyNode`): the class's name + "Backward",
/// the context object (opaque: the bindings call its class's `backward`), and the tensors
/// `ctx.save_for_backward` saved, with the version check.
pub struct PyFunctionNode {
    pub name: &'static str,
    pub ctx: Arc<Callback>,
    pub saved: Vec<SavedTensor>,
    /// `ctx.set_materialize_grads(False)` was not called: undefined output grads become zeros.
    pub materialize_grads: bool,
}

impl PyFunctionNode {
    pub(crate) fn release(&mut self) -> Vec<SavedTensor> {
        self.saved
            .iter_mut()
            .map(|s| std::mem::replace(s, SavedTensor::Released))
            .collect()
    }
}

/// A custom Function's backward, prepared under the node's lock (context, saved tensors after
/// the version check, materialize flag) so that it runs — Python code — without the lock.
pub(crate) type PreparedBackward = (Arc<Callback>, Vec<Tensor>, bool);

/// For a custom Function's node: what its backward needs (None for other kinds).
pub(crate) fn prepare_function_backward(
    kind: &super::formulas::NodeKind,
    node: &Arc<Node>,
) -> Option<Result<PreparedBackward>> {
    let super::formulas::NodeKind::PyFunction(f) = kind else {
        return None;
    };
    let saved: Result<Vec<Tensor>> = f.saved.iter().map(|s| s.unpack(Some(node))).collect();
    Some(saved.map(|s| (f.ctx.clone(), s, f.materialize_grads)))
}

/// `name` as a `&'static str`, one leaked copy per distinct name (class names: a bounded set).
pub fn intern_name(name: &str) -> &'static str {
    use std::collections::HashSet;
    use std::sync::Mutex;
    static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut g = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    let set = g.get_or_insert_with(HashSet::new);
    if let Some(s) = set.get(name) {
        return s;
    }
    let s: &'static str = Box::leak(name.to_string().into_boxed_str());
    set.insert(s);
    s
}

/// torch's `mark_dirty` on a leaf that requires grad ("has been", not "is being").
const ERR_DIRTY_LEAF: &str =
    "a leaf Variable that requires grad has been used in an in-place operation.";

/// Record a custom Function's call (torch's `_wrap_outputs` + `THPFunction_apply`'s recording):
/// one node named `name` with an edge per tensor input, holding `ctx` and the tensors
/// `to_save` saved (outputs weakly, as every saved output: no cycle through the context), made
/// the history of every differentiable output. An output that is an input is recorded in place
/// when `dirty` (the input itself gets the history), else returned as a new alias of it, as
/// torch. Returns the outputs as they must be returned to the caller.
#[allow(clippy::too_many_arguments)]
pub fn record_function(
    name: &str,
    ctx: Callback,
    inputs: &[Tensor],
    outputs: &[Tensor],
    to_save: &[Tensor],
    dirty: &[Tensor],
    non_differentiable: &[Tensor],
    materialize_grads: bool,
) -> Result<(Arc<Node>, Vec<Tensor>)> {
    for d in dirty {
        if d.is_leaf_requiring_grad() {
            return Err(Error::runtime(ERR_DIRTY_LEAF));
        }
    }
    let edges: Vec<Option<super::node::Edge>> = inputs
        .iter()
        .map(|t| {
            t.gradient_edge().map(|e| super::node::Edge {
                node: e.node,
                input_nr: e.input_nr,
            })
        })
        .collect();
    let mut outs: Vec<Tensor> = Vec::with_capacity(outputs.len());
    for o in outputs {
        let is_input = inputs.iter().any(|i| i.is_same(o));
        let is_dirty = dirty.iter().any(|d| d.is_same(o));
        outs.push(if is_input && !is_dirty {
            o.detach_alias()
        } else {
            o.clone()
        });
    }
    let mut saved = Vec::with_capacity(to_save.len());
    for t in to_save {
        match outputs.iter().position(|o| o.is_same(t)) {
            Some(i) => saved.push(SavedTensor::output(&outs[i], i as u32)?),
            None => saved.push(SavedTensor::input(t)),
        }
    }
    let kind = super::formulas::NodeKind::PyFunction(Box::new(PyFunctionNode {
        name: intern_name(name),
        ctx: Arc::new(ctx),
        saved,
        materialize_grads,
    }));
    let refs: Vec<&Tensor> = outs.iter().collect();
    let node = Node::new(kind, edges, &refs);
    for (i, (o, orig)) in outs.iter().zip(outputs).enumerate() {
        if non_differentiable.iter().any(|n| n.is_same(orig)) {
            continue;
        }
        if !o.dtype().is_floating_point() {
            continue;
        }
        o.set_grad_fn(node.clone(), i as u32);
    }
    Ok((node, outs))
}
