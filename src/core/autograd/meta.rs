//! src/core/autograd/meta.rs: `AutogradMeta`, a tensor's lazily allocated autograd state (PyTorch:
//! `torch::autograd::AutogradMeta` in variable.h), and the `Tensor` methods over it:
//! `requires_grad`, `grad_fn`, `is_leaf`, `output_nr`, `retain_grad`, `detach`. See core Notes
//! [Lazy autograd metadata] and [Version counter] in mod.rs.

use super::hooks::{Callback, LeafHooks};
use super::node::{Edge, Edges, Node};
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Weak};

const REQUIRES_GRAD: u8 = 1;
const HAS_GRAD_FN: u8 = 2;

/// A tensor's autograd state (Note [Lazy autograd metadata]).
#[derive(Default)]
pub struct AutogradMeta {
    /// `REQUIRES_GRAD` (a leaf's flag) and `HAS_GRAD_FN`, readable without the lock.
    flags: AtomicU8,
    /// The rest, accessed only with `GRAD_LOCK` held (`Tensor::with_meta`).
    inner: UnsafeCell<MetaInner>,
}

// SAFETY: `inner` is only accessed with the process-wide `GRAD_LOCK` held; `flags` is atomic.
unsafe impl Sync for AutogradMeta {}
// SAFETY: as above; every field is `Send`.
unsafe impl Send for AutogradMeta {}

/// The lock-protected fields of `AutogradMeta`.
#[derive(Default)]
pub struct MetaInner {
    /// `.grad`.
    pub grad: Option<Tensor>,
    /// The node that made this tensor (None for a leaf).
    pub grad_fn: Option<Arc<Node>>,
    /// Which output of `grad_fn` this tensor is.
    pub output_nr: u32,
    /// `retain_grad()` was called on this non-leaf.
    pub retains_grad: bool,
    /// A leaf's `AccumulateGrad`, held weakly (the graph owns it; it owns the leaf).
    pub grad_accumulator: Weak<Node>,
    /// For a view: the version of its base when `grad_fn` was set; a different version means
    /// the base was written in place since, and the history is regenerated (Note [CopySlices]).
    pub view_version: u32,
    /// A leaf's hooks (`register_hook`, `register_post_accumulate_grad_hook`), if any.
    pub hooks: Option<Box<LeafHooks>>,
}

impl AutogradMeta {
    /// The lock-protected fields.
    ///
    /// # Safety
    /// `GRAD_LOCK` must be held for as long as the reference is used.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn inner_mut(&self) -> &mut MetaInner {
        // SAFETY: the caller holds `GRAD_LOCK`, which serialises every access.
        unsafe { &mut *self.inner.get() }
    }

    #[inline(always)]
    fn requires_grad(&self) -> bool {
        self.flags.load(Ordering::Relaxed) != 0
    }
}

/// How to refer to a tensor's position in the graph: the node its gradient flows into and the
/// input number there (torch's `gradient_edge`).
pub(crate) struct GradEdge {
    pub node: Arc<Node>,
    pub input_nr: u32,
}

impl Tensor {
    /// torch's `requires_grad`: a leaf marked so, or any tensor with a `grad_fn`. One atomic
    /// load on a tensor with metadata, none without.
    #[inline(always)]
    pub fn requires_grad(&self) -> bool {
        self.autograd_meta().is_some_and(|m| m.requires_grad())
    }

    /// torch's `requires_grad_(flag)` on a leaf: floating-point dtypes only; a non-leaf may
    /// only be set to True (it already is).
    pub fn set_requires_grad(&self, flag: bool) -> Result<()> {
        if !self.is_leaf() {
            if flag {
                return Ok(());
            }
            return Err(Error::runtime(
                "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().",
            ));
        }
        if flag && self.is_inference() && !super::is_inference_mode() {
            return Err(Error::runtime(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.",
            ));
        }
        if flag && !self.dtype().is_floating_point() {
            return Err(Error::runtime(
                "only Tensors of floating point dtype can require gradients",
            ));
        }
        if !flag && self.autograd_meta().is_none() {
            return Ok(());
        }
        let m = self.autograd_meta_or_init();
        if flag {
            m.flags.fetch_or(REQUIRES_GRAD, Ordering::Relaxed);
        } else {
            m.flags.fetch_and(!REQUIRES_GRAD, Ordering::Relaxed);
        }
        Ok(())
    }

    /// torch's `is_leaf`: no `grad_fn`.
    pub fn is_leaf(&self) -> bool {
        self.autograd_meta()
            .is_none_or(|m| m.flags.load(Ordering::Relaxed) & HAS_GRAD_FN == 0)
    }

    /// The node that made this tensor (torch's `grad_fn`), None for a leaf.
    pub fn grad_fn(&self) -> Option<Arc<Node>> {
        if self.is_leaf() {
            return None;
        }
        self.refresh_view_history();
        self.with_meta(|m| m.and_then(|m| m.grad_fn.clone()))
    }

    /// A view's history after its base was written in place is regenerated from the base's
    /// (Note [CopySlices]); a no-op (one pointer test) for a tensor that is not a view.
    #[inline]
    fn refresh_view_history(&self) {
        let Some(base) = self.base() else {
            return;
        };
        let version = self.version();
        if self.with_meta(|m| m.is_none_or(|m| m.grad_fn.is_none() || m.view_version == version)) {
            return;
        }
        match super::copy_slices::regenerated_view_node(self, base) {
            Some(node) => self.set_grad_fn(node, 0),
            // No history to point to: remember the version so the check is not redone.
            None => self.with_meta_init(|i| i.view_version = version),
        }
    }

    /// Which output of `grad_fn` this tensor is.
    pub fn output_nr(&self) -> u32 {
        self.with_meta(|m| m.map_or(0, |m| m.output_nr))
    }

    /// torch's `retains_grad`.
    pub fn retains_grad(&self) -> bool {
        self.autograd_meta().is_some() && self.with_meta(|m| m.is_some_and(|m| m.retains_grad))
    }

    /// torch's `retain_grad()`: a non-leaf's `.grad` is filled by backward (a no-op on a leaf).
    pub fn retain_grad(&self) -> Result<()> {
        if !self.requires_grad() {
            return Err(Error::runtime(
                "can't retain_grad on Tensor that has requires_grad=False",
            ));
        }
        if self.is_leaf() {
            return Ok(());
        }
        let first = self.with_meta_init(|m| !std::mem::replace(&mut m.retains_grad, true));
        if first {
            if let Some(node) = self.grad_fn() {
                node.add_retained(self.output_nr(), self);
            }
        }
        Ok(())
    }

    /// Make `node` (output `output_nr`) this tensor's history (torch's `set_history`); the
    /// tensor must be fresh or being rebased by an in-place op. A tensor without metadata (an
    /// op's fresh output) gets it filled in before it is published, without `GRAD_LOCK`
    /// (core Note [Record without the lock]).
    pub(crate) fn set_grad_fn(&self, node: Arc<Node>, output_nr: u32) {
        let version = self.version();
        let node = if self.autograd_meta().is_none() {
            let fresh = Box::new(AutogradMeta {
                flags: AtomicU8::new(HAS_GRAD_FN),
                inner: UnsafeCell::new(MetaInner {
                    grad_fn: Some(node),
                    output_nr,
                    view_version: version,
                    ..MetaInner::default()
                }),
            });
            match self.install_autograd_meta(fresh) {
                Ok(()) => return,
                // Another handle gave it metadata meanwhile: the locked path below.
                Err(m) => m
                    .inner
                    .into_inner()
                    .grad_fn
                    .take()
                    .expect("the node just stored"),
            }
        } else {
            node
        };
        let m = self.autograd_meta_or_init();
        let old = self.with_meta_init(|i| {
            i.output_nr = output_nr;
            i.view_version = version;
            i.grad_fn.replace(node)
        });
        m.flags.fetch_or(HAS_GRAD_FN, Ordering::Relaxed);
        drop(old);
    }

    /// Forget this tensor's history (`detach_()`): it becomes a leaf that does not require grad.
    pub fn detach_in_place(&self) {
        let Some(m) = self.autograd_meta() else {
            return;
        };
        m.flags.store(0, Ordering::Relaxed);
        let old = self.with_meta_init(|i| {
            i.output_nr = 0;
            i.retains_grad = false;
            i.grad_fn.take()
        });
        drop(old);
    }

    /// torch's `detach()`: same elements and version counter, no history.
    pub fn detach(&self) -> Tensor {
        self.detach_alias()
    }

    /// Where this tensor's gradient goes (torch's `gradient_edge`): `(grad_fn, output_nr)` for a
    /// non-leaf; for a leaf that requires grad, its `AccumulateGrad` (made now if the graph
    /// holds none); None otherwise.
    pub(crate) fn gradient_edge(&self) -> Option<GradEdge> {
        self.autograd_meta()?;
        self.refresh_for_edge();
        Tensor::with_grad_lock(|access| self.gradient_edge_locked(access))
    }

    /// The edges of a node over `inputs` (`gradient_edge` of each), with one `GRAD_LOCK` round
    /// trip for all of them.
    pub(crate) fn gradient_edges(inputs: &[&Tensor]) -> Edges {
        if !inputs.iter().any(|t| t.requires_grad()) {
            return inputs.iter().map(|_| None).collect();
        }
        for t in inputs {
            t.refresh_for_edge();
        }
        Tensor::with_grad_lock(|access| {
            inputs
                .iter()
                .map(|t| {
                    t.gradient_edge_locked(access).map(|e| Edge {
                        node: e.node,
                        input_nr: e.input_nr,
                    })
                })
                .collect()
        })
    }

    /// A view's history regenerated if its base changed (before `gradient_edge_locked`, which
    /// cannot: regenerating takes `GRAD_LOCK`).
    #[inline]
    fn refresh_for_edge(&self) {
        if self.requires_grad() && !self.is_leaf() {
            self.refresh_view_history();
        }
    }

    /// `gradient_edge` with `GRAD_LOCK` held (`refresh_for_edge` done).
    fn gradient_edge_locked(
        &self,
        access: &mut crate::core::tensor::MetaAccess,
    ) -> Option<GradEdge> {
        let m = self.autograd_meta()?;
        if !m.requires_grad() {
            return None;
        }
        let leaf = self.is_leaf();
        let i = access.inner(self)?;
        if !leaf {
            return i.grad_fn.clone().map(|node| GradEdge {
                node,
                input_nr: i.output_nr,
            });
        }
        if let Some(node) = i.grad_accumulator.upgrade() {
            return Some(GradEdge { node, input_nr: 0 });
        }
        let node = Node::new_accumulate(self.clone());
        i.grad_accumulator = Arc::downgrade(&node);
        Some(GradEdge { node, input_nr: 0 })
    }

    /// Read or change a leaf's hooks (GRAD_LOCK is held during `f`: `f` must not call back into
    /// Python or autograd).
    pub fn with_leaf_hooks<R>(&self, f: impl FnOnce(&mut LeafHooks) -> R) -> R {
        self.with_meta_init(|m| f(m.hooks.get_or_insert_with(Default::default)))
    }

    /// A leaf's (tensor pre-hooks, post-accumulate-grad hooks), without allocating metadata.
    pub fn leaf_hooks(&self) -> (Option<Arc<Callback>>, Option<Arc<Callback>>) {
        if self.autograd_meta().is_none() {
            return (None, None);
        }
        self.with_meta(|m| {
            m.and_then(|m| m.hooks.as_ref()).map_or((None, None), |h| {
                (h.tensor_pre.clone(), h.post_accumulate.clone())
            })
        })
    }

    /// True when this tensor is a leaf requiring grad, or a view of one (the in-place checks).
    pub(crate) fn is_leaf_requiring_grad(&self) -> bool {
        self.requires_grad() && self.is_leaf()
    }

    /// The name of the op that made this tensor (`Sigmoid`, `Add`...) for torch's messages.
    pub(crate) fn grad_fn_short_name(&self) -> Option<&'static str> {
        self.grad_fn().map(|n| {
            let name = n.name();
            name.strip_suffix("Backward0")
                .or_else(|| name.strip_suffix("Backward1"))
                .or_else(|| name.strip_suffix("Backward"))
                .unwrap_or(name)
        })
    }
}
