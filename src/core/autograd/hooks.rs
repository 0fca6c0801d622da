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
    /// A saved-tensor hooks pair's pack hook, given the tensor being saved: what it returned,
    /// and a reference of its own to the pair (each saved tensor owns one: the GC's traversal
    /// visits what each owns).
    pub pack: fn(hooks: *mut c_void, t: &Tensor) -> Result<(Callback, Callback)>,
    /// The pair's unpack hook, given what pack returned: the tensor it returned.
    pub unpack: fn(hooks: *mut c_void, packed: *mut c_void) -> Result<Tensor>,
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

// ---- saved-tensor hooks -----------------------------------------------------------------------

// Note [Saved-tensor hooks]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// torch.autograd.graph.saved_tensors_hooks(pack, unpack) pushes a (pack, unpack) pair on a
// thread-local stack; while the stack is not empty, a tensor a node saves (`SavedTensor::input`
// / `output`) is given to the top pair's pack hook under no_grad, and the node keeps what pack
// returned instead of the tensor (`SavedTensor::Packed`); each unpack (backward, `_saved_*`)
// calls the unpack hook on it. As torch: no version check for packed tensors (the version only
// must not change *during* pack), the unpacked tensor gets the saved tensor's history (the edge
// recorded at save time for an input, the saving node for an output), and
// `disable_saved_tensors_hooks(msg)` makes pushing a pair raise `msg`. The stack is read only when
// `ACTIVE_PAIRS` (pairs pushed on any thread) is not zero, so recording pays one relaxed load when
// no hooks exist. The packed object and the pair are callbacks (Note [Opaque callbacks]): the
// bindings show them to the cyclic GC through the node (`Node::for_each_callback`), so a pack hook
// returning its own output is freed (torch leaks it).

/// Pairs pushed on all threads together (the fast "no hooks anywhere" check).
static ACTIVE_PAIRS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[derive(Default)]
struct SavedHooksState {
    stack: Vec<Arc<Callback>>,
    disabled: Option<String>,
}

thread_local! {
    static SAVED_HOOKS: std::cell::RefCell<SavedHooksState> = Default::default();
}

/// Push a (pack, unpack) pair (`saved_tensors_hooks.__enter__`); the error is the message of an
/// active `disable_saved_tensors_hooks`.
pub fn push_saved_hooks(pair: Callback) -> Result<()> {
    let refused = SAVED_HOOKS.with(|s| {
        let mut s = s.borrow_mut();
        if let Some(m) = &s.disabled {
            return Some(m.clone());
        }
        s.stack.push(Arc::new(pair));
        ACTIVE_PAIRS.fetch_add(1, Ordering::Relaxed);
        None
    });
    // (`pair` was moved into the stack or is dropped here, outside the borrow.)
    match refused {
        Some(m) => Err(Error::runtime(m)),
        None => Ok(()),
    }
}

/// Pop the top pair (`saved_tensors_hooks.__exit__`); the caller drops it (outside the stack's
/// borrow: dropping it may run Python code).
pub fn pop_saved_hooks() -> Option<Arc<Callback>> {
    let top = SAVED_HOOKS.with(|s| s.borrow_mut().stack.pop());
    if top.is_some() {
        ACTIVE_PAIRS.fetch_sub(1, Ordering::Relaxed);
    }
    top
}

/// The pair a tensor saved now is packed with, if any.
#[inline]
pub fn current_saved_hooks() -> Option<Arc<Callback>> {
    if ACTIVE_PAIRS.load(Ordering::Relaxed) == 0 {
        return None;
    }
    SAVED_HOOKS.with(|s| s.borrow().stack.last().cloned())
}

/// `_saved_tensors_hooks_disable(message)`: pushing a pair raises `message` until enabled again.
/// As torch, the message is set first, then an error if pairs are active (raising it).
pub fn disable_saved_hooks(message: &str) -> Result<()> {
    SAVED_HOOKS.with(|s| {
        let mut s = s.borrow_mut();
        s.disabled = Some(message.to_string());
        if s.stack.is_empty() {
            Ok(())
        } else {
            Err(Error::runtime(message))
        }
    })
}

/// `_saved_tensors_hooks_enable()`.
pub fn enable_saved_hooks() {
    SAVED_HOOKS.with(|s| s.borrow_mut().disabled = None);
}

/// The message of an active `disable_saved_tensors_hooks`, if any.
pub fn saved_hooks_disabled_message() -> Option<String> {
    SAVED_HOOKS.with(|s| s.borrow().disabled.clone())
}

/// torch's "A saved tensor pack hook is modifying its input in place" (2.15 wording).
const ERR_PACK_INPLACE: &str = "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook cannot be modified by in-place operations as this can lead to unexpected side-effects. Please open an issue if you need to perform in-place operations on the input to a pack hook.";

/// A tensor saved through saved-tensor hooks (Note [Saved-tensor hooks]).
pub struct PackedSaved {
    /// The (pack, unpack) pair (a reference of this saved tensor's own).
    pair: std::sync::Mutex<Option<Arc<Callback>>>,
    /// What pack returned; None once the GC cleared it.
    packed: std::sync::Mutex<Option<Arc<Callback>>>,
    /// For an input: where its gradient went when saved (None: it did not require grad).
    edge: Option<super::node::Edge>,
    /// For an output: its output number (its history is the node unpacking it).
    output_nr: Option<u32>,
}

/// Save `t` through `pair` (`output_nr`: `t` is that output of the node being made).
pub(crate) fn pack_saved(
    pair: Arc<Callback>,
    t: &Tensor,
    output_nr: Option<u32>,
) -> Result<super::node::SavedTensor> {
    let version = t.version();
    EVER_PACKED.store(true, Ordering::Relaxed);
    let (packed, own_pair) = super::with_grad_mode(false, || (fns()?.pack)(pair.as_ptr(), t))?;
    drop(pair);
    if t.version() != version {
        return Err(Error::runtime(ERR_PACK_INPLACE));
    }
    let edge = match output_nr {
        Some(_) => None,
        None => t.gradient_edge().map(|e| super::node::Edge {
            node: e.node,
            input_nr: e.input_nr,
        }),
    };
    Ok(super::node::SavedTensor::Packed(Box::new(PackedSaved {
        pair: std::sync::Mutex::new(Some(Arc::new(own_pair))),
        packed: std::sync::Mutex::new(Some(Arc::new(packed))),
        edge,
        output_nr,
    })))
}

impl PackedSaved {
    /// Call the unpack hook and give its tensor the saved tensor's history (`node`: the node that
    /// saved it). The locks are not held while Python code runs; a value unpacked ahead of the
    /// node's formula (`apply_unpacking_first`) is used instead of calling the hook again.
    pub(crate) fn unpack(&self, node: Option<&Arc<Node>>) -> Result<Tensor> {
        if let Some(t) = take_unpacked(self) {
            return Ok(t);
        }
        self.snapshot().unpack(node)
    }

    /// What `unpack` needs, copied out so that the hook can run after the node's lock is
    /// released (Note [Unpack hooks run outside the node lock]).
    pub(crate) fn snapshot(&self) -> PackedSnapshot {
        PackedSnapshot {
            pair: self.pair.lock().unwrap_or_else(|e| e.into_inner()).clone(),
            packed: self
                .packed
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
            edge: self.edge.clone(),
            output_nr: self.output_nr,
        }
    }

    /// Visit the pair and the packed object (the bindings' GC traversal).
    pub(crate) fn for_each_callback(&self, f: &mut dyn FnMut(&Callback) -> i32) -> i32 {
        for m in [&self.pair, &self.packed] {
            if let Ok(g) = m.try_lock() {
                if let Some(c) = g.as_ref() {
                    let r = f(c);
                    if r != 0 {
                        return r;
                    }
                }
            }
        }
        0
    }

    /// Take the pair and the packed object (the GC's `tp_clear`); the caller drops them.
    pub(crate) fn take(&self) -> Vec<Arc<Callback>> {
        let mut out = Vec::new();
        for m in [&self.pair, &self.packed] {
            if let Ok(mut g) = m.try_lock() {
                out.extend(g.take());
            }
        }
        out
    }
}

// Note [Unpack hooks run outside the node lock]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A node's formula and saved values sit behind its `kind` mutex, which is not reentrant. An
// unpack hook is Python code, and Python code can read the same node's `_saved_*` attributes
// (which lock it again) — so no unpack hook may run while the lock is held, or the thread
// deadlocks on itself. Two paths unpack: the `_saved_*` getter (bindings: node_object.rs)
// copies a `PackedSnapshot` under the lock and calls the hook after releasing it; the engine
// applies a node through `apply_unpacking_first`, which unpacks every hooked saved tensor of the
// node first, without the lock (torch's generated `apply` also unpacks all its saved values at
// its start), and hands the results to the formula through a thread-local table keyed by the
// `PackedSaved`'s address, emptied when the formula returns.

/// A copy of a `PackedSaved`'s references, to call its unpack hook without the node's lock.
pub(crate) struct PackedSnapshot {
    pair: Option<Arc<Callback>>,
    packed: Option<Arc<Callback>>,
    edge: Option<super::node::Edge>,
    output_nr: Option<u32>,
}

impl PackedSnapshot {
    /// Call the unpack hook and give its tensor the saved tensor's history (`node`: the node
    /// that saved it).
    pub(crate) fn unpack(&self, node: Option<&Arc<Node>>) -> Result<Tensor> {
        let (Some(pair), Some(packed)) = (&self.pair, &self.packed) else {
            return Err(Error::runtime(super::node::ERR_BACKWARD_TWICE));
        };
        let u = (fns()?.unpack)(pair.as_ptr(), packed.as_ptr())?;
        if let Some(nr) = self.output_nr {
            let t = u.data_alias();
            if let Some(n) = node {
                t.set_grad_fn(n.clone(), nr);
            }
            return Ok(t);
        }
        let Some(edge) = &self.edge else {
            return Ok(if u.requires_grad() { u.data_alias() } else { u });
        };
        // The unpacked tensor is the saved one (an identity unpack): it has the history already.
        if let Some(e) = u.gradient_edge() {
            if Arc::ptr_eq(&e.node, &edge.node) && e.input_nr == edge.input_nr {
                return Ok(u);
            }
        }
        // Else an alias whose gradient flows where the saved tensor's did (for a leaf, into its
        // `AccumulateGrad`: the alias is then not a leaf itself; torch makes it one).
        let t = u.data_alias();
        t.set_grad_fn(edge.node.clone(), edge.input_nr);
        Ok(t)
    }
}

/// Set once a saved-tensor hook packs a tensor: before that no node holds a `PackedSaved` and
/// `apply_unpacking_first` has nothing to look for.
static EVER_PACKED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

thread_local! {
    /// The hooked saved tensors unpacked ahead of the formula being applied on this thread, by
    /// the address of their `PackedSaved` (Note [Unpack hooks run outside the node lock]).
    static UNPACKED: std::cell::RefCell<Vec<(usize, Tensor)>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn take_unpacked(p: &PackedSaved) -> Option<Tensor> {
    let key = p as *const PackedSaved as usize;
    UNPACKED.with(|u| {
        let u = u.borrow();
        u.iter().find(|(k, _)| *k == key).map(|(_, t)| t.clone())
    })
}

/// Apply `node`'s formula (`kind`: its locked formula) to `grads` with every tensor it saved
/// through saved-tensor hooks unpacked first, without the lock (Note [Unpack hooks run outside
/// the node lock]). The engine's call of a node's formula.
pub(crate) fn apply_unpacking_first(
    kind: std::sync::MutexGuard<'_, super::formulas::NodeKind>,
    node: &Arc<Node>,
    grads: &[Option<Tensor>],
) -> Result<Vec<Option<Tensor>>> {
    // No scan (an allocation per node) unless saved-tensor hooks ever packed a tensor.
    if !EVER_PACKED.load(Ordering::Relaxed) {
        return kind.apply(node, grads);
    }
    let snaps: Vec<(usize, PackedSnapshot)> = super::node::packed_of(&kind)
        .into_iter()
        .map(|p| (p as *const PackedSaved as usize, p.snapshot()))
        .collect();
    if snaps.is_empty() {
        return kind.apply(node, grads);
    }
    drop(kind);
    let mut done = Vec::with_capacity(snaps.len());
    for (key, s) in &snaps {
        done.push((*key, s.unpack(Some(node))?));
    }
    drop(snaps);
    /// Removes this node's entries (the last `n`: a nested apply removes its own before
    /// returning) also when the formula unwinds.
    struct Entries(usize);
    impl Drop for Entries {
        fn drop(&mut self) {
            // Dropped after the borrow ends: a tensor's drop may run Python code.
            let tail = UNPACKED.with(|u| {
                let mut u = u.borrow_mut();
                let keep = u.len().saturating_sub(self.0);
                u.split_off(keep)
            });
            drop(tail);
        }
    }
    let entries = Entries(done.len());
    UNPACKED.with(|u| u.borrow_mut().extend(done));
    let r = node.lock_kind().apply(node, grads);
    drop(entries);
    r
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
            None => saved.push(SavedTensor::input(t)?),
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
