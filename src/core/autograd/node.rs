//! src/core/autograd/node.rs: graph nodes (PyTorch: `Node`/`Edge` in function.h,
//! `SavedVariable` in saved_variable.h): a node's sequence number, its edges to the nodes of
//! its inputs, the shape and dtype of the gradients it receives, its formula with the values it
//! saved (`NodeKind`, formulas.rs), and the opaque slot for its Python object. Saved tensors
//! check the version counter when unpacked and are released after backward.

use super::formulas::NodeKind;
use super::hooks::{Callback, NodeHooks};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::tensor::{release_deep, Tensor, WeakTensor};
use std::mem::ManuallyDrop;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Sequence numbers: the engine runs the ready node with the highest first (torch's order,
/// reverse creation order). Process-wide (torch: per thread; only the order within one graph
/// matters, and a global counter keeps that order).
static NEXT_SEQ: AtomicU64 = AtomicU64::new(0);

/// An edge to the node that receives the gradient of one input: `input_nr` says which of that
/// node's gradients it is. An input that does not require grad has no edge (`None`).
#[derive(Clone)]
pub struct Edge {
    pub node: Arc<Node>,
    pub input_nr: u32,
}

// Note [Compact nodes]
// ~~~~~~~~~~~~~~~~~~~~
// Recording an op makes one `Node`, and a chain of N ops keeps N of them alive, so the node's
// layout is the per-op heap cost of autograd (issue 12: <= 128 B beyond saved tensors; torch:
// 576 B). A node is one allocation of 120 bytes (the `Arc` counts and a 104-byte `Node`: a
// 128-byte malloc chunk) for an op with up to two inputs, one output of up to three dimensions
// below 2^32 or six below 2^16, and a formula that keeps at most two words:
// - sequence number (8 B);
// - the class name as a thin pointer (8 B), its length in the header (a name of 255 bytes or
//   more points to an interned `&'static str` instead);
// - the header (8 B): the name's length, the number of edges, the output's dtype and number
//   of dimensions, and its first dimension (or first two);
// - the rest of the output's shape (8 B: two more 32-bit dimensions or four 16-bit ones), or,
//   for more dimensions, larger ones or several outputs, a pointer to boxed `InputMeta`s;
// - the edges of up to two inputs (32 B; more inputs — `cat`, `stack`, custom Functions — in a
//   boxed slice in the same 32 bytes);
// - what few nodes have (hooks, outputs that retain their gradient, the Python object of
//   `grad_fn`) behind one pointer, allocated on first use (8 B);
// - the formula behind its lock (32 B: `NodeKind` is three words). Generated kinds whose
//   saved values exceed two words are boxed by the generator (build/gen_autograd.rs,
//   `INLINE_KIND_BYTES`), hand-written ones are boxed as `NodeKind::Manual`, and a saved
//   output's payload is boxed (`SavedTensor::Output`). A saved input is a reference to the
//   tensor and its version (16 B), never a copy of its metadata.
// So `y + y`, `y.sin()` and `y.exp()` cost one 128-byte chunk (224 before this layout, 384 with
// the first one); a kind with two saved tensors (`y * y`) adds a 48-byte box. The sizes are
// pinned at compile time below and by the test `node_layout_is_compact` (tests.rs).

const _: () = assert!(std::mem::size_of::<Node>() <= 104);
const _: () = assert!(std::mem::size_of::<NodeKind>() <= 24);

/// The edges of a node as it is made: up to two inline, more on the heap (Note [Compact
/// nodes]; the node keeps them as `EdgeSlots`).
pub enum Edges {
    Inline { len: u8, edges: [Option<Edge>; 2] },
    Heap(Box<[Option<Edge>]>),
}

impl Edges {
    /// No edges (a leaf's `AccumulateGrad`).
    pub const fn empty() -> Edges {
        Edges::Inline {
            len: 0,
            edges: [None, None],
        }
    }
}

impl FromIterator<Option<Edge>> for Edges {
    fn from_iter<I: IntoIterator<Item = Option<Edge>>>(iter: I) -> Edges {
        let mut it = iter.into_iter();
        let mut edges = [None, None];
        let mut len = 0u8;
        for slot in edges.iter_mut() {
            match it.next() {
                Some(e) => {
                    *slot = e;
                    len += 1;
                }
                None => return Edges::Inline { len, edges },
            }
        }
        match it.next() {
            None => Edges::Inline { len, edges },
            Some(third) => {
                let [a, b] = edges;
                let v: Vec<Option<Edge>> = [a, b, third].into_iter().chain(it).collect();
                Edges::Heap(v.into_boxed_slice())
            }
        }
    }
}

impl From<Vec<Option<Edge>>> for Edges {
    fn from(v: Vec<Option<Edge>>) -> Edges {
        if v.len() <= 2 {
            v.into_iter().collect()
        } else {
            Edges::Heap(v.into_boxed_slice())
        }
    }
}

/// `Header::n_edges` / `Header::meta_len` of a node whose edges / metadata are boxed.
const SPILLED: u8 = u8::MAX;

/// The most dimensions a node keeps inline: three of up to 32 bits, or six of up to 16 bits
/// (`Header::dim0` and `MetaSlot::dims`, 12 bytes; `NARROW` in `Header::meta_len`).
const INLINE_DIMS: usize = 6;

/// The flag of `Header::meta_len` for dimensions stored as 16-bit halves.
const NARROW: u8 = 0x80;

/// A node's edges: `Header::n_edges` (at most 2) inline, or a boxed slice when it is
/// `SPILLED`. The node drops the active field.
union EdgeSlots {
    inline: ManuallyDrop<[Option<Edge>; 2]>,
    heap: ManuallyDrop<Box<[Option<Edge>]>>,
}

/// A node's output metadata past the header: the two words of dimensions after `Header::dim0`
/// (`Header::meta_len` != `SPILLED`), or the boxed metadata of every output when it is
/// `SPILLED`. The node drops the active field.
union MetaSlot {
    dims: [u32; 2],
    heap: ManuallyDrop<Box<Box<[InputMeta]>>>,
}

/// The small fields of a node, in one word.
#[derive(Clone, Copy)]
struct Header {
    /// The length of the class name, or `SPILLED` (the name pointer is to a `&'static str`).
    name_len: u8,
    n_edges: u8,
    /// The output's number of dimensions when inline (with `NARROW` when they are 16-bit
    /// halves of `dim0` and `MetaSlot::dims`), else `SPILLED`.
    meta_len: u8,
    /// The output's dtype (when inline).
    dtype: DType,
    /// The output's first dimension, or the first two when `NARROW` (when inline).
    dim0: u32,
}

/// A `&'static str`'s address in one word (its length in `Header::name_len`).
#[derive(Clone, Copy)]
struct NamePtr(NonNull<u8>);

// SAFETY: the pointer is to immutable data that lives as long as the program (a string
// literal, an interned name, or an interned `&'static str`); sharing it between threads is
// sharing a `&'static str`.
unsafe impl Send for NamePtr {}
// SAFETY: as for `Send`.
unsafe impl Sync for NamePtr {}

impl NamePtr {
    /// `name` as a pointer and the length for `Header::name_len`.
    fn new(name: &'static str) -> (NamePtr, u8) {
        match u8::try_from(name.len()) {
            Ok(len) if len != SPILLED => (NamePtr(NonNull::from(name.as_bytes()).cast()), len),
            _ => (NamePtr(NonNull::from(long_name(name)).cast()), SPILLED),
        }
    }

    /// The name this pointer was made from with length `len`.
    fn get(self, len: u8) -> &'static str {
        if len == SPILLED {
            // SAFETY: `new` made the pointer from a `&'static &'static str` (`long_name`).
            unsafe { *self.0.cast::<&'static str>().as_ptr() }
        } else {
            // SAFETY: `new` made the pointer from a `&'static str` of `len` bytes: valid UTF-8,
            // never freed or written.
            unsafe {
                std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                    self.0.as_ptr(),
                    len as usize,
                ))
            }
        }
    }
}

/// A name of 255 bytes or more as a `&'static &'static str`, one leaked copy per distinct name
/// (custom Function class names: a bounded set).
#[cold]
fn long_name(name: &'static str) -> &'static &'static str {
    use std::collections::HashMap;
    static NAMES: Mutex<Option<HashMap<&'static str, &'static &'static str>>> = Mutex::new(None);
    let mut g = lock(&NAMES);
    g.get_or_insert_with(HashMap::new)
        .entry(name)
        .or_insert_with(|| Box::leak(Box::new(name)))
}

/// The number of dimensions an `InputMeta` keeps inline.
const META_DIMS: usize = 4;

/// The shape and dtype a node's incoming gradient must have, for an output the node does not
/// keep inline (several outputs, many or large dimensions: Note [Compact nodes]): up to four
/// dimensions inline.
pub enum InputMeta {
    Inline {
        dtype: DType,
        len: u8,
        dims: [usize; META_DIMS],
    },
    Heap {
        dtype: DType,
        sizes: Box<[usize]>,
    },
}

impl InputMeta {
    /// The metadata of a gradient for `t`.
    pub fn of(t: &Tensor) -> InputMeta {
        let sizes = t.sizes();
        let dtype = t.dtype();
        if sizes.len() <= META_DIMS {
            let mut dims = [0; META_DIMS];
            dims[..sizes.len()].copy_from_slice(sizes);
            InputMeta::Inline {
                dtype,
                len: sizes.len() as u8,
                dims,
            }
        } else {
            InputMeta::Heap {
                dtype,
                sizes: sizes.into(),
            }
        }
    }

    /// The gradient's shape.
    #[inline]
    pub fn sizes(&self) -> &[usize] {
        match self {
            InputMeta::Inline { len, dims, .. } => &dims[..*len as usize],
            InputMeta::Heap { sizes, .. } => sizes,
        }
    }

    /// The gradient's dtype.
    #[inline]
    pub fn dtype(&self) -> DType {
        match self {
            InputMeta::Inline { dtype, .. } | InputMeta::Heap { dtype, .. } => *dtype,
        }
    }
}

/// The shape and dtype a node's incoming gradient must have (one per forward output), as
/// `Node::input_meta` reads them.
pub enum MetaRef<'a> {
    Inline {
        dtype: DType,
        len: u8,
        dims: [usize; INLINE_DIMS],
    },
    Heap(&'a InputMeta),
}

impl MetaRef<'_> {
    /// The gradient's shape.
    #[inline]
    pub fn sizes(&self) -> &[usize] {
        match self {
            MetaRef::Inline { len, dims, .. } => &dims[..*len as usize],
            MetaRef::Heap(m) => m.sizes(),
        }
    }

    /// The gradient's dtype.
    #[inline]
    pub fn dtype(&self) -> DType {
        match self {
            MetaRef::Inline { dtype, .. } => *dtype,
            MetaRef::Heap(m) => m.dtype(),
        }
    }
}

/// `sizes` as the inline dimensions of a node (`Header::meta_len`, the three words), if they
/// fit: up to three of 32 bits, or up to six of 16 bits.
#[inline]
fn inline_dims(sizes: &[usize]) -> Option<(u8, [u32; 3])> {
    let mut words = [0u32; 3];
    if sizes.len() <= 3 {
        for (w, &s) in words.iter_mut().zip(sizes) {
            *w = u32::try_from(s).ok()?;
        }
        return Some((sizes.len() as u8, words));
    }
    if sizes.len() > INLINE_DIMS {
        return None;
    }
    for (i, &s) in sizes.iter().enumerate() {
        words[i / 2] |= u32::from(u16::try_from(s).ok()?) << (16 * (i % 2));
    }
    Some((sizes.len() as u8 | NARROW, words))
}

/// The dimensions `inline_dims` stored.
#[inline]
fn read_inline_dims(meta_len: u8, words: [u32; 3]) -> (u8, [usize; INLINE_DIMS]) {
    let mut dims = [0usize; INLINE_DIMS];
    if meta_len & NARROW == 0 {
        for (d, w) in dims.iter_mut().zip(words) {
            *d = w as usize;
        }
        (meta_len, dims)
    } else {
        let len = meta_len & !NARROW;
        for (i, d) in dims.iter_mut().enumerate() {
            *d = ((words[i / 2] >> (16 * (i % 2))) & 0xffff) as usize;
        }
        (len, dims)
    }
}

/// The output metadata of a node being made: the header's fields and the slot.
struct OutputMeta {
    len: u8,
    dtype: DType,
    dim0: u32,
    slot: MetaSlot,
}

impl OutputMeta {
    /// Inline for one output whose shape fits (`inline_dims`), else boxed.
    #[inline]
    fn of(outputs: &[&Tensor]) -> OutputMeta {
        if let [one] = outputs {
            let sizes = one.sizes();
            if let Some((len, [dim0, d1, d2])) = inline_dims(sizes) {
                return OutputMeta {
                    len,
                    dtype: one.dtype(),
                    dim0,
                    slot: MetaSlot { dims: [d1, d2] },
                };
            }
        }
        OutputMeta {
            len: SPILLED,
            dtype: DType::Float32,
            dim0: 0,
            slot: MetaSlot {
                heap: ManuallyDrop::new(Box::new(
                    outputs.iter().map(|t| InputMeta::of(t)).collect(),
                )),
            },
        }
    }
}

/// A node of the backward graph (torch's `Node`). Shared (`Arc`) by the tensors it made and the
/// edges of later nodes; dropped iteratively (core Note [Deep drops]). Laid out to be one
/// 128-byte allocation for most ops (Note [Compact nodes]).
pub struct Node {
    seq_nr: u64,
    /// The formula's class name (kept outside the lock: messages name it while it is applied).
    name: NamePtr,
    hdr: Header,
    meta: MetaSlot,
    edges: EdgeSlots,
    /// Tensors made by this node that `retain_grad()`, its hooks and its Python object:
    /// allocated on first use (few nodes have them; a NULL word for the others), then never
    /// replaced until the node dies.
    extras: AtomicPtr<Extras>,
    /// The formula and what it saved; locked while the engine applies it.
    kind: Mutex<NodeKind>,
}

/// What few nodes have: the opaque Python object of the node (`grad_fn`, as the tensor's slot,
/// core Note [PyObject slot]: set and read by the bindings only), and under a lock the outputs
/// that retain their gradient (output number, tensor) and hooks (hooks.rs).
#[derive(Default)]
struct Extras {
    pyobj: AtomicUsize,
    locked: Mutex<LockedExtras>,
}

#[derive(Default)]
struct LockedExtras {
    retains: Vec<(u32, WeakTensor)>,
    hooks: NodeHooks,
}

/// The hook the bindings install to release a node's Python object when the node dies.
static NODE_PYOBJ_RELEASE: std::sync::OnceLock<fn(usize)> = std::sync::OnceLock::new();

/// Register the function that releases a node's Python object (bindings, at init).
pub fn set_node_pyobj_release_hook(hook: fn(usize)) {
    let _ = NODE_PYOBJ_RELEASE.set(hook);
}

impl Node {
    /// A node for `kind` with edges `next_edges` (a `Vec` or `Edges`) whose forward outputs
    /// are `outputs`.
    pub fn new(kind: NodeKind, next_edges: impl Into<Edges>, outputs: &[&Tensor]) -> Arc<Node> {
        Node::make(
            NEXT_SEQ.fetch_add(1, Ordering::Relaxed),
            kind,
            next_edges.into(),
            OutputMeta::of(outputs),
        )
    }

    /// A leaf's `AccumulateGrad` (holds the leaf strongly; runs as soon as it is ready: torch
    /// gives it the highest sequence number).
    pub fn new_accumulate(leaf: Tensor) -> Arc<Node> {
        let meta = OutputMeta::of(&[&leaf]);
        Node::make(
            u64::MAX,
            NodeKind::AccumulateGrad { variable: leaf },
            Edges::empty(),
            meta,
        )
    }

    #[inline]
    fn make(seq_nr: u64, kind: NodeKind, edges: Edges, meta: OutputMeta) -> Arc<Node> {
        let (name, name_len) = NamePtr::new(kind.name());
        let (n_edges, edges) = match edges {
            Edges::Inline { len, edges } => (
                len,
                EdgeSlots {
                    inline: ManuallyDrop::new(edges),
                },
            ),
            Edges::Heap(b) => (
                SPILLED,
                EdgeSlots {
                    heap: ManuallyDrop::new(b),
                },
            ),
        };
        Arc::new(Node {
            seq_nr,
            name,
            hdr: Header {
                name_len,
                n_edges,
                meta_len: meta.len,
                dtype: meta.dtype,
                dim0: meta.dim0,
            },
            meta: meta.slot,
            edges,
            extras: AtomicPtr::new(std::ptr::null_mut()),
            kind: Mutex::new(kind),
        })
    }

    pub fn seq_nr(&self) -> u64 {
        self.seq_nr
    }

    #[inline]
    pub fn next_edges(&self) -> &[Option<Edge>] {
        if self.hdr.n_edges == SPILLED {
            // SAFETY: `n_edges == SPILLED` says `heap` is the active field (`make`).
            unsafe { &self.edges.heap }
        } else {
            // SAFETY: otherwise `inline` is the active field, with `n_edges` <= 2 edges.
            unsafe { &self.edges.inline[..self.hdr.n_edges as usize] }
        }
    }

    /// The boxed output metadata, if the node's is not inline.
    #[inline]
    fn spilled_meta(&self) -> Option<&[InputMeta]> {
        // SAFETY: `meta_len == SPILLED` says `heap` is the active field (`make`).
        (self.hdr.meta_len == SPILLED).then(|| unsafe { &***self.meta.heap })
    }

    /// The number of the node's inputs (its forward's outputs), each with its `input_meta`.
    pub fn num_inputs(&self) -> usize {
        self.spilled_meta().map_or(1, |m| m.len())
    }

    /// The shape and dtype of the node's input `i` (its forward's output `i`).
    pub fn input_meta(&self, i: usize) -> Option<MetaRef<'_>> {
        if let Some(m) = self.spilled_meta() {
            return m.get(i).map(MetaRef::Heap);
        }
        if i != 0 {
            return None;
        }
        // SAFETY: `meta_len != SPILLED` says `dims` is the active field (`make`).
        let [d1, d2] = unsafe { self.meta.dims };
        let (len, dims) = read_inline_dims(self.hdr.meta_len, [self.hdr.dim0, d1, d2]);
        Some(MetaRef::Inline {
            dtype: self.hdr.dtype,
            len,
            dims,
        })
    }

    /// The formula's class name (`MulBackward0`, `AccumulateGrad`).
    pub fn name(&self) -> &'static str {
        self.name.get(self.hdr.name_len)
    }

    /// True for a leaf's `AccumulateGrad`.
    pub fn is_accumulate_grad(&self) -> bool {
        self.seq_nr == u64::MAX
    }

    /// The node's extras, if it has any.
    #[inline]
    fn extras_ref(&self) -> Option<&Extras> {
        let p = self.extras.load(Ordering::Acquire);
        // SAFETY: a non-NULL pointer is a box this node owns, published once by
        // `extras_or_init` and freed only in `drop`.
        (!p.is_null()).then(|| unsafe { &*p })
    }

    /// The node's locked extras, if it has any.
    fn extras(&self) -> Option<std::sync::MutexGuard<'_, LockedExtras>> {
        self.extras_ref().map(|x| lock(&x.locked))
    }

    /// The node's extras, allocated now if it has none.
    fn extras_or_init(&self) -> &Extras {
        if let Some(x) = self.extras_ref() {
            return x;
        }
        let fresh = Box::into_raw(Box::default());
        let p = match self.extras.compare_exchange(
            std::ptr::null_mut(),
            fresh,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            Ok(_) => fresh,
            Err(existing) => {
                // SAFETY: `fresh` was never shared.
                drop(unsafe { Box::from_raw(fresh) });
                existing
            }
        };
        // SAFETY: published (by us or the winner) and owned by this node until `drop`.
        unsafe { &*p }
    }

    /// Remember that output `output_nr` (the tensor `t`) retains its gradient.
    pub(crate) fn add_retained(&self, output_nr: u32, t: &Tensor) {
        lock(&self.extras_or_init().locked)
            .retains
            .push((output_nr, t.downgrade()));
    }

    /// The live tensors made by this node that retain their gradient.
    pub(crate) fn retained(&self) -> Vec<(u32, Tensor)> {
        self.extras().map_or(Vec::new(), |x| {
            x.retains
                .iter()
                .filter_map(|(k, w)| w.upgrade().map(|t| (*k, t)))
                .collect()
        })
    }

    /// Read or change the node's hooks (the lock is held during `f`: `f` must not call back
    /// into Python or the engine).
    pub fn with_hooks<R>(&self, f: impl FnOnce(&mut NodeHooks) -> R) -> R {
        f(&mut lock(&self.extras_or_init().locked).hooks)
    }
    /// True when the node has any hook (one load for a node without extras).
    pub fn has_hooks(&self) -> bool {
        self.extras().is_some_and(|x| {
            let h = &x.hooks;
            !h.tensor_pre.is_empty() || h.pre.is_some() || h.post.is_some()
        })
    }

    /// Drop the node's hooks (after a backward that did not retain the graph: the graph is
    /// consumed, and the hooks' Python objects must not outlive it; also the GC's `tp_clear`).
    pub fn clear_hooks(&self) {
        let taken = self.extras().map(|mut x| std::mem::take(&mut x.hooks));
        drop(taken);
    }

    /// Visit every callback this node holds (its hooks, a custom Function's context), for the
    /// bindings' GC traversal. `f` must not call back into Python or the engine.
    pub fn for_each_callback(&self, mut f: impl FnMut(&Callback) -> i32) -> i32 {
        if let Some(x) = self.extras() {
            let h = &x.hooks;
            for c in h
                .tensor_pre
                .iter()
                .map(|(_, c)| c)
                .chain(h.pre.iter())
                .chain(h.post.iter())
            {
                let r = f(c);
                if r != 0 {
                    return r;
                }
            }
        }
        if let Ok(kind) = self.kind.try_lock() {
            if let Some(c) = kind.callback() {
                let r = f(c);
                if r != 0 {
                    return r;
                }
            }
            for p in packed_of(&kind) {
                let r = p.for_each_callback(&mut f);
                if r != 0 {
                    return r;
                }
            }
        }
        0
    }

    /// Take the objects of the node's tensors saved through saved-tensor hooks (the GC's
    /// `tp_clear`; never blocks). The caller drops them.
    pub fn take_packed(&self) -> Vec<Arc<Callback>> {
        let Ok(kind) = self.kind.try_lock() else {
            return Vec::new();
        };
        packed_of(&kind)
            .into_iter()
            .flat_map(|p| p.take())
            .collect()
    }

    /// The formula and its saved values, locked.
    pub fn lock_kind(&self) -> std::sync::MutexGuard<'_, NodeKind> {
        self.kind.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Replace a formula that holds a callback (a custom Function's context) by `Released`,
    /// returning it to be dropped by the caller (the GC's `tp_clear`; never blocks: a node being
    /// applied is left alone).
    pub fn take_callback_kind(&self) -> Option<NodeKind> {
        let mut kind = self.kind.try_lock().ok()?;
        kind.callback()?;
        Some(std::mem::replace(&mut *kind, NodeKind::Released))
    }

    /// For `AccumulateGrad`: the leaf.
    pub fn variable(&self) -> Option<Tensor> {
        match &*self.lock_kind() {
            NodeKind::AccumulateGrad { variable } => Some(variable.clone()),
            _ => None,
        }
    }

    /// Drop what the formula saved (after a backward without `retain_graph`).
    pub fn release_variables(&self) {
        let released = self.lock_kind().release();
        release_deep(released);
    }

    /// The Python object slot (opaque; 0 if none).
    pub fn pyobj(&self) -> usize {
        self.extras_ref()
            .map_or(0, |x| x.pyobj.load(Ordering::Acquire))
    }

    /// Record the Python object (bindings only, with the GIL held).
    pub fn set_pyobj(&self, p: usize) {
        if p == 0 && self.extras_ref().is_none() {
            return;
        }
        self.extras_or_init().pyobj.store(p, Ordering::Release);
    }
}

/// The tensors `kind` saved through saved-tensor hooks (Note [Saved-tensor hooks]).
pub(crate) fn packed_of(kind: &NodeKind) -> Vec<&super::hooks::PackedSaved> {
    let saved: Vec<&SavedTensor> = if let NodeKind::PyFunction(f) = kind {
        f.saved.iter().collect()
    } else {
        kind.saved_tensors().into_iter().map(|(_, s)| s).collect()
    };
    saved
        .into_iter()
        .filter_map(|s| match s {
            SavedTensor::Packed(p) => Some(&**p),
            _ => None,
        })
        .collect()
}

impl Drop for Node {
    fn drop(&mut self) {
        let extras = std::mem::replace(self.extras.get_mut(), std::ptr::null_mut());
        // SAFETY: a non-NULL pointer is the box `extras_or_init` published, owned by this node.
        let extras = (!extras.is_null()).then(|| unsafe { Box::from_raw(extras) });
        if let Some(x) = &extras {
            let p = x.pyobj.load(Ordering::Acquire);
            if p != 0 {
                if let Some(hook) = NODE_PYOBJ_RELEASE.get() {
                    hook(p);
                }
            }
        }
        // Core Note [Deep drops]: the edges own the rest of the graph.
        let edges = if self.hdr.n_edges == SPILLED {
            // SAFETY: `heap` is the active field (`make`); taken once, here.
            Edges::Heap(unsafe { ManuallyDrop::take(&mut self.edges.heap) })
        } else {
            Edges::Inline {
                len: self.hdr.n_edges,
                // SAFETY: `inline` is the active field (`make`); taken once, here.
                edges: unsafe { ManuallyDrop::take(&mut self.edges.inline) },
            }
        };
        let meta = (self.hdr.meta_len == SPILLED)
            // SAFETY: `heap` is the active field (`make`); taken once, here.
            .then(|| unsafe { ManuallyDrop::take(&mut self.meta.heap) });
        let kind = std::mem::replace(
            self.kind.get_mut().unwrap_or_else(|e| e.into_inner()),
            NodeKind::Released,
        );
        release_deep((edges, kind, extras));
        drop(meta);
    }
}

/// Lock `m`, whatever a panic under it left.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// torch's `ERR_BACKWARD_TWICE`.
pub const ERR_BACKWARD_TWICE: &str = "Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.";

/// torch's error when an inference tensor is saved for backward (core Note [Inference tensors]).
pub const ERR_INFERENCE_SAVED: &str = "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.";

/// A tensor a formula saved (torch's `SavedVariable`).
pub enum SavedTensor {
    /// Not saved (the formula that needs it will not run).
    None,
    /// An input (or a leaf): held strongly, so `_saved_self` is the very tensor.
    Input { tensor: Tensor, version: u32 },
    /// An output of this node (boxed: keeps `SavedTensor` at two words, Note [Compact nodes]).
    Output(Box<SavedOutput>),
    /// Saved through saved-tensor hooks (`saved_tensors_hooks`, hooks.rs): what the pack hook
    /// returned, given to the unpack hook at each unpack.
    Packed(Box<super::hooks::PackedSaved>),
    /// Released after backward.
    Released,
}

/// A saved output: held weakly (no cycle through its `grad_fn`), plus a handle to its elements
/// that does not own it, so the value survives the tensor.
pub struct SavedOutput {
    weak: WeakTensor,
    data: Tensor,
    version: u32,
    output_nr: u32,
}

impl SavedTensor {
    /// Save an input (through the saved-tensor hooks when some are active: an error is the
    /// pack hook's, or an inference tensor's).
    pub fn input(t: &Tensor) -> Result<SavedTensor> {
        if t.is_inference() {
            return Err(Error::runtime(ERR_INFERENCE_SAVED));
        }
        if let Some(hooks) = super::hooks::current_saved_hooks() {
            // As torch, a wrapped Python number is not shown to the hooks.
            if !t.is_wrapped_number() {
                return super::hooks::pack_saved(hooks, t, None);
            }
        }
        Ok(SavedTensor::Input {
            tensor: t.clone(),
            version: t.version(),
        })
    }

    /// Save `t` only when `needed`.
    pub fn input_if(t: &Tensor, needed: bool) -> Result<SavedTensor> {
        if needed {
            SavedTensor::input(t)
        } else {
            Ok(SavedTensor::None)
        }
    }

    /// Save output `output_nr` of the node being made.
    pub fn output(t: &Tensor, output_nr: u32) -> Result<SavedTensor> {
        if let Some(hooks) = super::hooks::current_saved_hooks() {
            return super::hooks::pack_saved(hooks, t, Some(output_nr));
        }
        Ok(SavedTensor::Output(Box::new(SavedOutput {
            weak: t.downgrade(),
            data: t.data_without_owner()?,
            version: t.version(),
            output_nr,
        })))
    }

    /// The saved tensor, after the version check (torch's `unpack`). `node` is the node that
    /// saved it (a saved output whose tensor died is rebuilt with `node` as its history).
    pub fn unpack(&self, node: Option<&Arc<Node>>) -> Result<Tensor> {
        let (t, saved_version) = match self {
            SavedTensor::None => {
                return Err(Error::runtime(
                    "internal error: a formula read a value it did not save",
                ))
            }
            SavedTensor::Released => return Err(Error::runtime(ERR_BACKWARD_TWICE)),
            SavedTensor::Packed(p) => return p.unpack(node),
            SavedTensor::Input { tensor, version } => (tensor.clone(), *version),
            SavedTensor::Output(o) => match o.weak.upgrade() {
                // torch names the node that saved the output, also after an in-place op
                // rebased the output's history.
                Some(t) if t.version() != o.version => {
                    return Err(modified_error_named(
                        &t,
                        o.version,
                        node.map(|n| (o.output_nr, n.name())),
                    ))
                }
                Some(t) => (t, o.version),
                None => {
                    if o.data.version() != o.version {
                        return Err(modified_error_named(
                            &o.data,
                            o.version,
                            node.map(|n| (o.output_nr, n.name())),
                        ));
                    }
                    let t = o.data.data_alias();
                    if let Some(n) = node {
                        t.set_grad_fn(n.clone(), o.output_nr);
                    }
                    return Ok(t);
                }
            },
        };
        if t.version() != saved_version {
            return Err(modified_error(&t, saved_version));
        }
        Ok(t)
    }

    pub fn is_released(&self) -> bool {
        matches!(self, SavedTensor::Released)
    }
}

/// torch's "modified by an inplace operation" message.
fn modified_error(t: &Tensor, saved_version: u32) -> Error {
    modified_error_named(t, saved_version, None)
}

/// The node's short name for the message (`SigmoidBackward0` → `Sigmoid`, `ExpFBackward` →
/// `ExpF`).
fn short_name(name: &str) -> &str {
    name.strip_suffix("Backward0")
        .or_else(|| name.strip_suffix("Backward1"))
        .or_else(|| name.strip_suffix("Backward"))
        .unwrap_or(name)
}

/// As `modified_error`, naming `(output_nr, node name)` when given (a saved output), else the
/// tensor's current history.
fn modified_error_named(t: &Tensor, saved_version: u32, saver: Option<(u32, &str)>) -> Error {
    let kind = match t.dtype() {
        DType::Float32 => "torch.FloatTensor",
        DType::Float64 => "torch.DoubleTensor",
        DType::Int64 => "torch.LongTensor",
        DType::Int32 => "torch.IntTensor",
        DType::Bool => "torch.BoolTensor",
        _ => "torch.Tensor",
    };
    let sizes: Vec<String> = t.sizes().iter().map(|s| s.to_string()).collect();
    let which = match (saver, t.grad_fn_short_name()) {
        (Some((nr, name)), _) => format!(", which is output {nr} of {}", short_name(name)),
        (None, Some(name)) => format!(", which is output {} of {}", t.output_nr(), name),
        (None, None) => String::new(),
    };
    Error::runtime(format!(
        "one of the variables needed for gradient computation has been modified by an inplace operation: [{kind} [{}]]{which}, is at version {}; expected version {saved_version} instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).",
        sizes.join(", "),
        t.version()
    ))
}
