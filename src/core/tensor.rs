//! src/core/tensor.rs: `Tensor`, a strided view of a shared `Storage` (PyTorch: `at::Tensor` /
//! `TensorImpl`), with the shape helpers every op uses. Its memory-overlap checks are in
//! `tensor/overlap.rs`; the strided walkers it copies and fills with are in `iter.rs`.

mod overlap;

use super::autograd::meta::{AutogradMeta, MetaInner};
use super::dtype::{DType, Element};
use super::error::{Error, Result};
use super::iter::{strided_for_each, strided_rows};
use super::scalar::Scalar;
use super::sizes_strides::SizesAndStrides;
use super::storage::{ExternalOwner, ExternalStorage, Storage};
use std::cell::UnsafeCell;
use std::ffi::c_void;
use std::sync::atomic::{AtomicIsize, AtomicPtr, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Number of tensor implementations (`TensorImpl`) alive in the process. The refleak run checks
/// it returns to its starting value: a leaked Rust tensor is invisible to
/// `sys.gettotalrefcount()`.
static LIVE_TENSORS: AtomicIsize = AtomicIsize::new(0);

/// How many tensor implementations are alive right now.
pub fn live_tensors() -> isize {
    LIVE_TENSORS.load(Ordering::Relaxed)
}

/// A tensor: a shared handle to one `TensorImpl` (PyTorch: `at::Tensor` → `TensorImpl`).
/// Cloning a `Tensor` gives another handle to the *same* tensor (same identity, same Python
/// object); views are new tensors over the same `Storage` (`as_strided`, `alias`).
#[derive(Clone)]
pub struct Tensor {
    inner: Arc<TensorImpl>,
}

/// A handle that does not keep its tensor alive (saved outputs of autograd nodes).
#[derive(Clone)]
pub struct WeakTensor {
    inner: std::sync::Weak<TensorImpl>,
}

impl WeakTensor {
    /// The tensor, if it is still alive.
    pub fn upgrade(&self) -> Option<Tensor> {
        self.inner.upgrade().map(|inner| Tensor { inner })
    }
}

/// The tensor itself: `sizes`, `strides` (in elements, possibly 0 for broadcast dimensions) and
/// an element `offset` into storage shared by its views (Note [Small tensors]), holding elements
/// of `dtype`, plus what Rust keeps for a tensor besides its data: the base of a view, the `grad`
/// slot, and the opaque slot for its Python object (Note [PyObject slot]). The geometry never
/// changes after creation.
pub struct TensorImpl {
    storage: StorageRef,
    geometry: SizesAndStrides,
    offset: usize,
    dtype: DType,
    /// Set on 0-dim tensors made from a Python number by the binding layer, so that type promotion
    /// treats them as "weak" operands (torch's `is_wrapped_number`).
    wrapped_number: bool,
    /// Set on a `detach()`ed alias of a non-view: `base` then names the tensor whose version
    /// counter it shares, and is not a `_base` (core Note [Version counter]).
    detached: bool,
    /// An inference tensor: allocated in inference mode, or a view of one (core Note
    /// [Inference tensors]).
    inference: bool,
    /// The version counter (torch's `_version`) of a tensor that is not a view and not a
    /// detached alias; the others read their root's (core Note [Version counter]). In what was
    /// padding after `dtype`.
    version: AtomicU32,
    /// For a view: the tensor it views (the root, never itself a view), as torch's `_base`.
    base: Option<Tensor>,
    /// The autograd metadata (`requires_grad`, `.grad`, `grad_fn`, ...), allocated the first
    /// time one is set and never replaced until the tensor dies: NULL for a tensor that never
    /// took part in autograd (core Note [Lazy autograd metadata]).
    autograd: AtomicPtr<AutogradMeta>,
    pyobj: PyObjectSlot,
}

// Note [Small tensors]
// ~~~~~~~~~~~~~~~~~~~~
// A 1-element tensor used to cost five heap blocks: the `TensorImpl`, two `Vec`s for sizes and
// strides, the `Storage` header and the data. Freeing and allocating them was the largest cost of
// a small op (`_C.add(a, b)`), and they made a live small tensor ~2x numpy's footprint. Now:
// - sizes and strides live inline up to 2 dimensions (`SizesAndStrides`, as c10 does up to 5);
// - data of at most `INLINE_BYTES` bytes lives inside the `TensorImpl` (`StorageRef::Inline`).
//   The `TensorImpl` sits in an `Arc` and never moves, so the address is stable; views and
//   restrides of such a tensor hold a handle to it (`StorageRef::Of`) to keep the bytes alive,
//   exactly as they would hold a `Storage` handle. `Of` always names a tensor whose storage is
//   `Inline` (never a chain), so finding the bytes is one step.
// A fresh small tensor is therefore one heap block (plus its Python object). Larger data keeps
// the shared, separately allocated `Storage` (`StorageRef::Heap`).

/// Data of at most this many bytes is stored inside the tensor (Note [Small tensors]): 4 float32,
/// 2 float64/int64 elements.
pub const INLINE_BYTES: usize = 16;

/// Where a tensor's elements live (Note [Small tensors]).
enum StorageRef {
    /// Small data inside this `TensorImpl`; writes follow Note [Storage aliasing].
    Inline {
        bytes: UnsafeCell<[u64; INLINE_BYTES / 8]>,
        nbytes: u8,
    },
    /// A heap buffer shared by reference count with the tensor's views.
    Heap(Storage),
    /// The `Inline` bytes of another tensor (this tensor is a view or restride of it).
    Of(Tensor),
    /// Memory someone else allocated, with an owner to release (Note [External storage]).
    External(ExternalStorage),
}

impl StorageRef {
    fn inline_zeroed(nbytes: usize) -> StorageRef {
        debug_assert!(nbytes <= INLINE_BYTES);
        StorageRef::Inline {
            bytes: UnsafeCell::new([0; INLINE_BYTES / 8]),
            nbytes: nbytes as u8,
        }
    }

    /// Base address of the bytes.
    #[inline]
    fn as_ptr(&self) -> *mut u8 {
        match self {
            StorageRef::Inline { bytes, .. } => bytes.get().cast::<u8>(),
            StorageRef::Heap(s) => s.as_ptr(),
            StorageRef::Of(t) => match &t.storage {
                StorageRef::Inline { bytes, .. } => bytes.get().cast::<u8>(),
                _ => unreachable!("StorageRef::Of names a tensor with inline storage"),
            },
            StorageRef::External(s) => s.as_ptr(),
        }
    }

    fn nbytes(&self) -> usize {
        match self {
            StorageRef::Inline { nbytes, .. } => *nbytes as usize,
            StorageRef::Heap(s) => s.nbytes(),
            StorageRef::Of(t) => t.storage.nbytes(),
            StorageRef::External(s) => s.nbytes(),
        }
    }

    /// Equal for two references to the same bytes; distinct for distinct live storages.
    #[inline]
    fn id(&self) -> usize {
        match self {
            StorageRef::Heap(s) => s.id(),
            StorageRef::External(s) => s.id(),
            _ => self.as_ptr() as usize,
        }
    }

    /// Another reference to the same bytes, for a new tensor over the storage of `owner` (whose
    /// storage this is). Keeps `Of` one step deep.
    fn share(&self, owner: &Tensor) -> StorageRef {
        match self {
            StorageRef::Inline { .. } => StorageRef::Of(owner.clone()),
            StorageRef::Heap(s) => StorageRef::Heap(s.clone()),
            StorageRef::Of(t) => StorageRef::Of(t.clone()),
            StorageRef::External(s) => StorageRef::External(s.clone()),
        }
    }
}

// SAFETY: the interior mutability is (1) the element bytes (`StorageRef::Inline`, like
// `Storage`'s buffer), handed out as raw pointers only and following Note [Storage aliasing]
// (torch's rule: concurrent writers are the caller's responsibility); (2) `grad`, accessed only
// with `GRAD_LOCK` held; (3) the atomic Python-object slot. Everything else is immutable after
// creation.
unsafe impl Send for TensorImpl {}
// SAFETY: as above.
unsafe impl Sync for TensorImpl {}

impl std::ops::Deref for Tensor {
    type Target = TensorImpl;
    #[inline(always)]
    fn deref(&self) -> &TensorImpl {
        &self.inner
    }
}

// Note [PyObject slot]
// ~~~~~~~~~~~~~~~~~~~~
// Each `TensorImpl` has one opaque slot for "my Python object", so the binding layer can hand
// back the same Python object for the same tensor without a global map (PyTorch's
// `PyObjectSlot`). The core never interprets the pointer; it only stores it, with a flag saying
// whether the tensor *owns* a strong reference to that object (PyObject preservation: the
// binding layer moves ownership to the tensor when Python drops its last reference while Rust
// still holds the tensor). When a `TensorImpl` that owns its object is destroyed, the core calls
// the release hook the binding layer registered, on whatever thread the drop happens; the hook
// takes the GIL itself. The hook gets the dying tensor as a `Dying`, from which it can salvage a
// fresh tensor over the same elements (moving storage, geometry, base and grad) for an object
// that must outlive it, *before* it drops its reference: whatever Python code that drop runs
// (a `__del__`, weakref callbacks) then sees the new tensor, never the dying one, which nothing
// can reach any more. The ownership protocol is written down in
// src/bindings/tensor_object.rs, Note [PyObject preservation]. All reads and writes of the slot
// other than that final drop happen with the GIL held, which serialises them.
//
// The pointer and the flag share one word: a Python object is at least 8-aligned, so bit 0 of
// its address is free to say "owned" (8 bytes per tensor instead of 16).
struct PyObjectSlot {
    bits: AtomicUsize,
}

const PYOBJ_OWNED: usize = 1;

/// Guards every tensor's `grad` slot. Gradients are set and read rarely, so one process-wide
/// lock costs nothing measurable and saves a `Mutex` (8 bytes) in every tensor.
static GRAD_LOCK: Mutex<()> = Mutex::new(());

/// Proof that `GRAD_LOCK` is held (`Tensor::with_grad_lock`).
pub(crate) struct MetaAccess(());

impl MetaAccess {
    /// `t`'s lock-protected metadata fields, `None` without metadata (borrows `self`
    /// mutably: one tensor's fields at a time, so two results never alias).
    pub(crate) fn inner<'a>(&'a mut self, t: &'a Tensor) -> Option<&'a mut MetaInner> {
        // SAFETY: a `MetaAccess` exists only inside `with_grad_lock`, which holds `GRAD_LOCK`
        // for its lifetime; `MetaInner` is only accessed with that lock held.
        t.autograd_meta().map(|m| unsafe { m.inner_mut() })
    }
}

/// The binding layer's function that releases a Python object owned by a dying tensor (see
/// Note [PyObject slot]). It receives the object and the dying tensor, from which it may salvage
/// a fresh tensor for the object (`Dying::salvage`).
pub type ReleaseHook = fn(pyobj: *mut c_void, dying: &mut Dying<'_>);

static PYOBJ_RELEASE_HOOK: OnceLock<ReleaseHook> = OnceLock::new();

/// Register the function that releases a Python object owned by a dying tensor. Called once by
/// the binding layer at module initialisation; later calls are ignored.
pub fn set_pyobj_release_hook(hook: ReleaseHook) {
    let _ = PYOBJ_RELEASE_HOOK.set(hook);
}

/// A `TensorImpl` being destroyed (its last handle is gone), as the release hook sees it. Nothing
/// can reach it any more except through this value: no handle exists, and `Of` storage
/// references (which are handles) cannot exist either.
pub struct Dying<'a> {
    imp: &'a mut TensorImpl,
}

impl Dying<'_> {
    /// The address of the dying tensor, as `Tensor::impl_ptr` gives it for a live handle: equal
    /// only to a handle to this very tensor (compare, never dereference).
    pub fn impl_ptr(&self) -> *const c_void {
        (self.imp as *const TensorImpl).cast()
    }

    /// A new tensor that takes over the dying one's elements, geometry, dtype, `_base` and
    /// `grad` (moved, not copied: inline data is copied into the new tensor, heap storage changes
    /// hands), with a new identity and no Python object. The dying tensor is left empty. This is
    /// how a Python object that outlives its tensor gets a valid tensor of its own (binding
    /// layer, Note [PyObject preservation]: re-homing).
    pub fn salvage(&mut self) -> Tensor {
        let imp = &mut *self.imp;
        let storage = std::mem::replace(&mut imp.storage, StorageRef::inline_zeroed(0));
        let geometry = std::mem::replace(&mut imp.geometry, SizesAndStrides::contiguous(&[]));
        let mut t = Tensor::from_parts(
            storage,
            geometry,
            imp.offset,
            imp.dtype,
            imp.base.take(),
            imp.inference,
        );
        let fresh = Arc::get_mut(&mut t.inner).expect("a fresh tensor has one handle");
        fresh.wrapped_number = imp.wrapped_number;
        fresh.detached = imp.detached;
        fresh.inference = imp.inference;
        *fresh.version.get_mut() = *imp.version.get_mut();
        *fresh.autograd.get_mut() = std::mem::replace(imp.autograd.get_mut(), std::ptr::null_mut());
        t
    }
}

/// This thread's deferred-drop state (Note [Deep drops]): one thread-local, so that a release
/// costs one thread-local lookup (`__tls_get_addr` in the cdylib), not one per field.
struct DeepDrops {
    /// How many deferred-drop releases (`release_deep`) are nested on this thread.
    depth: std::cell::Cell<usize>,
    /// The values whose release was put off because the nesting got deep.
    deferred: std::cell::RefCell<Vec<Box<dyn std::any::Any>>>,
}

thread_local! {
    static DEEP_DROPS: DeepDrops = const {
        DeepDrops {
            depth: std::cell::Cell::new(0),
            deferred: std::cell::RefCell::new(Vec::new()),
        }
    };
}

/// Nested releases beyond this depth are deferred (Note [Deep drops]).
const MAX_DROP_DEPTH: usize = 64;

// Note [Deep drops]
// ~~~~~~~~~~~~~~~~~
// A tensor owns its `grad`, which owns its own `grad`, and so on: `y.grad = x; x = y` a million
// times builds a chain a million links deep, and a recursive drop of it overflows the C stack.
// Autograd graphs are the same (a node owns the edges to its inputs' nodes, which own theirs; a
// tensor owns its `grad_fn`): dropping the output of a 10^6-op chain frees 10^6 nodes.
// The recursion can also pass through Python (a link's Python object is re-homed and freed by
// the release hook, and freeing it drops the link's new tensor). So every owner of such a chain
// (`TensorImpl::drop` for its autograd metadata, `Node::drop` for its edges and saved values)
// releases it through `release_deep`, which counts how deeply such releases nest on this thread;
// past `MAX_DROP_DEPTH` it hands the value to a thread-local list instead, which the outermost
// release empties, one link at a time (CPython's trashcan, for Rust drops). Nothing is lost or
// reordered that anyone could observe: the deferred values have no other owner, and they are
// freed before the outermost drop returns.

/// Release `x` (a tensor's autograd metadata, a node's edges...) without letting nested
/// releases grow the stack beyond `MAX_DROP_DEPTH` levels (Note [Deep drops]).
pub(crate) fn release_deep<T: 'static>(x: T) {
    // `x` moves into the closure; `try_with` fails only while the thread's thread-locals are
    // torn down (the thread is exiting), and then `x` is dropped plainly.
    let mut x = Some(x);
    let _ = DEEP_DROPS.try_with(|s| {
        let x = x.take().expect("taken once");
        let depth = s.depth.get();
        if depth >= MAX_DROP_DEPTH {
            let boxed: Box<dyn std::any::Any> = Box::new(x);
            s.deferred.borrow_mut().push(boxed);
            return;
        }
        s.depth.set(depth + 1);
        drop(x);
        if depth == 0 {
            // Outermost: free what deeper levels put off, each at depth 1 again. (The borrow
            // of the list ends before the value is dropped: its drop may defer more.)
            loop {
                let next = s.deferred.borrow_mut().pop();
                match next {
                    Some(t) => drop(t),
                    None => break,
                }
            }
        }
        s.depth.set(depth);
    });
    drop(x);
}

impl Drop for TensorImpl {
    fn drop(&mut self) {
        LIVE_TENSORS.fetch_sub(1, Ordering::Relaxed);
        let bits = *self.pyobj.bits.get_mut();
        let p = (bits & !PYOBJ_OWNED) as *mut c_void;
        if !p.is_null() && bits & PYOBJ_OWNED != 0 {
            if let Some(hook) = PYOBJ_RELEASE_HOOK.get() {
                // The hook may move everything out of `self` into a new tensor (`salvage`).
                hook(p, &mut Dying { imp: self });
            }
        }
        let meta = std::mem::replace(self.autograd.get_mut(), std::ptr::null_mut());
        if !meta.is_null() {
            // SAFETY: a non-NULL `autograd` is a `Box::into_raw` this tensor owns (set once in
            // `autograd_meta_or_init`, moved only by `salvage`, which leaves NULL behind).
            release_deep(unsafe { Box::from_raw(meta) });
        }
    }
}

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tensor")
            .field("sizes", &self.sizes())
            .field("strides", &self.strides())
            .field("offset", &self.offset)
            .field("dtype", &self.dtype)
            .finish()
    }
}

/// Number of elements of a shape, or a `Runtime` error if the product overflows.
pub fn checked_numel(sizes: &[usize]) -> Result<usize> {
    sizes
        .iter()
        .try_fold(1usize, |acc, &s| acc.checked_mul(s))
        .ok_or_else(|| {
            Error::runtime(format!(
                "Storage size calculation overflowed with sizes={sizes:?}"
            ))
        })
}

/// Row-major (C-contiguous) strides for `sizes`.
pub fn contiguous_strides(sizes: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; sizes.len()];
    let mut acc: isize = 1;
    for i in (0..sizes.len()).rev() {
        strides[i] = acc;
        acc = acc.wrapping_mul(sizes[i].max(1) as isize);
    }
    strides
}

/// Wrap a possibly negative dimension index into `0..ndim` as torch's `maybe_wrap_dim` does
/// (a 0-dim tensor accepts -1 and 0). Out of range is an `Index` error with torch's message.
pub fn maybe_wrap_dim(dim: i64, ndim: usize) -> Result<usize> {
    let n = ndim.max(1) as i64;
    if dim < -n || dim >= n {
        return Err(Error::index(format!(
            "Dimension out of range (expected to be in range of [{}, {}], but got {})",
            -n,
            n - 1,
            dim
        )));
    }
    Ok(if dim < 0 {
        (dim + n) as usize
    } else {
        dim as usize
    })
}

/// The broadcast of two shapes, right-aligned as numpy and torch do; a `Runtime` error with
/// torch's message when a pair of sizes is neither equal nor 1.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0usize; n];
    for i in 0..n {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(Error::runtime(format!(
                "The size of tensor a ({da}) must match the size of tensor b ({db}) at non-singleton dimension {i}"
            )));
        };
    }
    Ok(out)
}

/// torch's error for an in-place write into an inference tensor outside inference mode (its
/// sentences run together, as torch's).
pub const ERR_INFERENCE_INPLACE: &str = "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.";

impl Tensor {
    // ----- construction ---------------------------------------------------------------------

    /// `inference`: the new tensor is an inference tensor (core Note [Inference tensors]).
    fn from_parts(
        storage: StorageRef,
        geometry: SizesAndStrides,
        offset: usize,
        dtype: DType,
        base: Option<Tensor>,
        inference: bool,
    ) -> Tensor {
        LIVE_TENSORS.fetch_add(1, Ordering::Relaxed);
        Tensor {
            inner: Arc::new(TensorImpl {
                storage,
                geometry,
                offset,
                dtype,
                wrapped_number: false,
                detached: false,
                inference,
                version: AtomicU32::new(0),
                base,
                autograd: AtomicPtr::new(std::ptr::null_mut()),
                pyobj: PyObjectSlot {
                    bits: AtomicUsize::new(0),
                },
            }),
        }
    }

    /// A new contiguous tensor of zeros. Sizes are checked for overflow (element count ×
    /// itemsize) and memory is reserved fallibly: `Runtime` on overflow, `OutOfMemory` when the
    /// allocator refuses. (Python's `empty` is the same: memory it hands out is always zeroed.)
    pub fn zeros(sizes: &[usize], dtype: DType) -> Result<Tensor> {
        Tensor::allocate(sizes, dtype, true)
    }

    /// A new contiguous tensor whose elements are **not initialised** (torch's `at::empty`), for a
    /// kernel that writes every element before anything reads one: a large output then costs
    /// neither `calloc`'s zeroing nor a second pass over memory. Small tensors are zeroed anyway
    /// (it is free for inline data). Errors as for `zeros`.
    ///
    /// # Safety
    /// The caller must write every element before any element is read or the tensor escapes
    /// (to Python, or to code that reads it): reading uninitialised memory is undefined behaviour,
    /// and a bool element must hold 0 or 1.
    pub unsafe fn empty_uninit(sizes: &[usize], dtype: DType) -> Result<Tensor> {
        Tensor::allocate(sizes, dtype, false)
    }

    fn allocate(sizes: &[usize], dtype: DType, zeroed: bool) -> Result<Tensor> {
        let numel = checked_numel(sizes)?;
        let nbytes = numel
            .checked_mul(dtype.itemsize())
            .filter(|&n| n <= isize::MAX as usize)
            .ok_or_else(|| {
                Error::runtime(format!(
                    "Storage size calculation overflowed with sizes={sizes:?} and dtype={dtype}"
                ))
            })?;
        let storage = if nbytes <= INLINE_BYTES {
            StorageRef::inline_zeroed(nbytes)
        } else if zeroed {
            StorageRef::Heap(Storage::zeroed(nbytes)?)
        } else {
            StorageRef::Heap(Storage::uninit(nbytes)?)
        };
        Ok(Tensor::from_parts(
            storage,
            SizesAndStrides::contiguous(sizes),
            0,
            dtype,
            None,
            crate::core::autograd::allocating_inference(),
        ))
    }

    /// A tensor over memory the core did not allocate (Note [External storage] in storage.rs):
    /// `nbytes` bytes at `ptr`, viewed with `sizes`, `strides` (in elements, none negative) and an
    /// element `offset`; `owner` runs exactly once, when the last tensor or view over the memory
    /// dies — also when this function fails. `Value` errors for a view that reaches outside the
    /// bytes, a negative stride, or a base address not aligned to the element size.
    ///
    /// # Safety
    /// `ptr` is valid for reads and writes of `nbytes` bytes until `owner` runs, and the memory
    /// holds initialised elements of `dtype` (for bool: 0 or 1) wherever the view reaches.
    pub unsafe fn from_external(
        ptr: *mut u8,
        nbytes: usize,
        sizes: &[usize],
        strides: &[isize],
        offset: usize,
        dtype: DType,
        owner: ExternalOwner,
    ) -> Result<Tensor> {
        // SAFETY: contract; from here on the owner runs when `storage` is dropped, error or not.
        let storage = unsafe { ExternalStorage::new(ptr, nbytes, owner) };
        assert_eq!(
            sizes.len(),
            strides.len(),
            "from_external: sizes and strides differ"
        );
        let item = dtype.itemsize();
        if strides.iter().any(|&s| s < 0) {
            return Err(Error::value(format!(
                "external memory with negative strides {strides:?} is not supported"
            )));
        }
        if !(ptr as usize).is_multiple_of(item) {
            return Err(Error::value(format!(
                "external memory at address {ptr:p} is not aligned to the {item}-byte elements of {dtype}"
            )));
        }
        let numel = checked_numel(sizes)?;
        if numel > 0 {
            // The last element the view reaches, in elements from the base.
            let last = sizes.iter().zip(strides).try_fold(offset, |acc, (&n, &s)| {
                acc.checked_add((n - 1).checked_mul(s as usize)?)
            });
            let fits = last
                .and_then(|l| l.checked_add(1)?.checked_mul(item))
                .is_some_and(|end| end <= nbytes);
            if !fits {
                return Err(Error::value(format!(
                    "a view with sizes {sizes:?}, strides {strides:?} and offset {offset} of {dtype} \
                     elements does not fit in {nbytes} bytes of external memory"
                )));
            }
        }
        Ok(Tensor::from_parts(
            StorageRef::External(storage),
            SizesAndStrides::new(sizes, strides),
            offset,
            dtype,
            None,
            crate::core::autograd::allocating_inference(),
        ))
    }

    /// This handle as a raw pointer, for foreign code to keep (a capsule, a DLPack manager
    /// context); give it back exactly once to `from_raw`, which releases it.
    pub fn into_raw(self) -> *const c_void {
        Arc::into_raw(self.inner).cast()
    }

    /// The handle `into_raw` gave out.
    ///
    /// # Safety
    /// `p` came from `into_raw` and is given back only once.
    pub unsafe fn from_raw(p: *const c_void) -> Tensor {
        // SAFETY: contract: `p` is an `Arc<TensorImpl>` pointer from `Arc::into_raw`.
        let inner = unsafe { Arc::from_raw(p.cast::<TensorImpl>()) };
        Tensor { inner }
    }

    /// True when the tensor's memory is external (Note [External storage]): shared with its
    /// producer rather than allocated by the core.
    pub fn is_external(&self) -> bool {
        let s = match &self.storage {
            StorageRef::Of(t) => &t.storage,
            s => s,
        };
        matches!(s, StorageRef::External(_))
    }

    /// A new contiguous tensor filled with `value` converted to `dtype`.
    /// `value` must fit `dtype` (torch's overflow `Runtime` error otherwise).
    pub fn full(sizes: &[usize], value: Scalar, dtype: DType) -> Result<Tensor> {
        // SAFETY: `fill_` checks `value` before writing, then writes every element; on an error
        // `t` is dropped unread.
        let t = unsafe { Tensor::empty_uninit(sizes, dtype)? };
        t.fill_(value)?;
        Ok(t)
    }

    /// A new contiguous tensor holding `data` (row-major) with shape `sizes`.
    /// Panics if `data.len()` differs from the shape's element count (a core programming error).
    pub fn from_vec<T: Element>(data: Vec<T>, sizes: &[usize]) -> Result<Tensor> {
        assert_eq!(
            checked_numel(sizes)?,
            data.len(),
            "from_vec: data length mismatch"
        );
        // SAFETY: every element is written from `data` just below before `t` is returned.
        let t = unsafe { Tensor::empty_uninit(sizes, T::DTYPE)? };
        // SAFETY: `t` is a fresh contiguous tensor of `data.len()` elements of `T`.
        unsafe {
            std::ptr::copy_nonoverlapping(data.as_ptr(), t.data_ptr::<T>(), data.len());
        }
        Ok(t)
    }

    /// A 0-dim tensor holding `value` converted to `dtype`.
    pub fn scalar_tensor(value: Scalar, dtype: DType) -> Result<Tensor> {
        Tensor::full(&[], value, dtype)
    }

    /// A 0-dim "wrapped number" tensor made from a Python number: its dtype is the scalar's
    /// default (bool, int64, float32) and type promotion treats it as a weak operand.
    pub fn wrapped_scalar(value: Scalar) -> Result<Tensor> {
        let dtype = match value {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::Int64,
            // Stored in double so no precision is lost before promotion decides the dtype.
            Scalar::Float(_) => DType::Float64,
        };
        let mut t = Tensor::scalar_tensor(value, dtype)?;
        Arc::get_mut(&mut t.inner)
            .expect("a fresh tensor has one handle")
            .wrapped_number = true;
        Ok(t)
    }

    // ----- metadata -------------------------------------------------------------------------

    pub fn dtype(&self) -> DType {
        self.dtype
    }
    #[inline(always)]
    pub fn sizes(&self) -> &[usize] {
        self.geometry.sizes()
    }
    #[inline(always)]
    pub fn strides(&self) -> &[isize] {
        self.geometry.strides()
    }
    /// Element offset of the first element within the storage.
    pub fn storage_offset(&self) -> usize {
        self.offset
    }
    /// Size in bytes of the storage this tensor views (all of it, not only this view's part).
    pub fn storage_nbytes(&self) -> usize {
        self.storage.nbytes()
    }

    /// Whether `resize_` may give this tensor a larger storage in place of its own: its own
    /// bytes (inline, or a heap storage no other handle names), not memory someone else
    /// allocated (torch: "Trying to resize storage that is not resizable") and not bytes another
    /// tensor also reads (torch grows a shared storage for every tensor on it; a tensorbind
    /// storage never changes size, so the tensors would part). `Err` names which.
    /// True when the elements live inside this very tensor (Note [Small tensors]): a tensor
    /// made over its storage would hold a handle to this one.
    pub fn owns_inline_storage(&self) -> bool {
        matches!(self.storage, StorageRef::Inline { .. })
    }

    pub fn storage_growable(&self) -> std::result::Result<(), &'static str> {
        match &self.storage {
            StorageRef::External(_) => Err("not resizable"),
            StorageRef::Of(_) => Err("shared"),
            StorageRef::Heap(s) if s.is_shared() => Err("shared"),
            StorageRef::Inline { .. } if Arc::strong_count(&self.inner) > 1 => Err("shared"),
            _ => Ok(()),
        }
    }
    #[inline(always)]
    pub fn dim(&self) -> usize {
        self.geometry.ndim()
    }
    pub fn numel(&self) -> usize {
        self.sizes().iter().product()
    }
    pub fn is_wrapped_number(&self) -> bool {
        self.wrapped_number
    }
    /// Size of dimension `dim` (negative counts from the end). A 0-dim tensor has none: torch's
    /// `Index` error "Dimension specified as 0 but tensor has no dimensions".
    pub fn size(&self, dim: i64) -> Result<usize> {
        Ok(self.sizes()[self.wrap_own_dim(dim)?])
    }
    /// Stride of dimension `dim` (negative counts from the end); errors as for `size`.
    pub fn stride(&self, dim: i64) -> Result<isize> {
        Ok(self.strides()[self.wrap_own_dim(dim)?])
    }
    /// torch's `maybe_wrap_dim(dim, ndim, wrap_scalar=false)`: a dimension of this tensor.
    fn wrap_own_dim(&self, dim: i64) -> Result<usize> {
        if self.dim() == 0 {
            return Err(Error::index(format!(
                "Dimension specified as {dim} but tensor has no dimensions"
            )));
        }
        maybe_wrap_dim(dim, self.dim())
    }
    /// True when two tensors share one storage.
    pub fn shares_storage(&self, other: &Tensor) -> bool {
        self.storage.id() == other.storage.id()
    }

    /// True when the elements are laid out row-major without gaps (torch's rule: dimensions of
    /// size 1 may have any stride).
    pub fn is_contiguous(&self) -> bool {
        let mut expected: isize = 1;
        for i in (0..self.sizes().len()).rev() {
            if self.sizes()[i] == 1 {
                continue;
            }
            if self.sizes()[i] == 0 {
                return true;
            }
            if self.strides()[i] != expected {
                return false;
            }
            expected *= self.sizes()[i] as isize;
        }
        true
    }

    // ----- raw data access ------------------------------------------------------------------

    /// Pointer to the first element (at the storage offset). Reads and writes through it must
    /// stay within the tensor's strided footprint; see Note [Storage aliasing].
    #[inline]
    pub fn data_ptr<T: Element>(&self) -> *mut T {
        debug_assert_eq!(T::DTYPE, self.dtype, "data_ptr: wrong element type");
        // SAFETY: offset is within the storage by construction of every view; inline bytes are
        // 8-aligned, enough for every element type.
        unsafe { (self.storage.as_ptr() as *mut T).add(self.offset) }
    }

    /// The elements as a slice when the tensor is contiguous.
    ///
    /// # Safety
    /// No other thread writes these elements while the slice is alive (tensors share memory with
    /// their views; Note [Concurrency contract] in core/mod.rs).
    pub unsafe fn as_slice<T: Element>(&self) -> Option<&[T]> {
        if !self.is_contiguous() || T::DTYPE != self.dtype {
            return None;
        }
        // SAFETY: contiguous tensor: `numel` consecutive initialised elements from `data_ptr`.
        Some(unsafe { std::slice::from_raw_parts(self.data_ptr::<T>(), self.numel()) })
    }

    /// The elements in logical (row-major) order, copied out.
    pub fn to_vec<T: Element>(&self) -> Vec<T> {
        // SAFETY: the slice is copied out at once; concurrent writers are excluded by the
        // core's contract (Note [Concurrency contract]).
        if let Some(s) = unsafe { self.as_slice::<T>() } {
            return s.to_vec();
        }
        assert_eq!(T::DTYPE, self.dtype, "to_vec: wrong element type");
        let mut out = Vec::with_capacity(self.numel());
        let base = self.data_ptr::<T>();
        strided_for_each(self.sizes(), [self.strides()], |[o]| {
            // SAFETY: `o` is the offset of an element of this tensor.
            out.push(unsafe { *base.offset(o) })
        });
        out
    }

    /// The elements in logical order, each converted to `f64` (any dtype).
    pub fn to_f64_vec(&self) -> Vec<f64> {
        crate::dispatch!(self.dtype, T => self.to_vec::<T>().into_iter().map(|v| v.to_f64()).collect())
    }

    /// The element at multi-index `index` (one entry per dimension, already in range).
    pub fn get(&self, index: &[usize]) -> Scalar {
        assert_eq!(index.len(), self.dim(), "get: index rank mismatch");
        let off: isize = index
            .iter()
            .zip(self.strides())
            .map(|(&i, &s)| i as isize * s)
            .sum();
        crate::dispatch!(self.dtype, T => {
            // SAFETY: every index is in range, so `off` addresses an element of this tensor.
            let v = unsafe { *self.data_ptr::<T>().offset(off) };
            Scalar::from_element(v)
        })
    }

    /// Every element as a `Scalar`, in logical (row-major) order (for `tolist`).
    pub fn to_scalar_vec(&self) -> Vec<Scalar> {
        crate::dispatch!(self.dtype, T => self.to_vec::<T>().into_iter().map(Scalar::from_element).collect())
    }

    /// The elements in logical order as native-endian bytes (for pickling).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let c = self.contiguous()?;
        let n = c.numel() * c.dtype.itemsize();
        let mut out = Vec::new();
        out.try_reserve_exact(n)
            .map_err(|_| Error::out_of_memory(format!("failed to allocate {n} bytes")))?;
        // SAFETY: `c` is contiguous: `n` initialised bytes start at its first element.
        let src = unsafe {
            std::slice::from_raw_parts(c.storage.as_ptr().add(c.offset * c.dtype.itemsize()), n)
        };
        out.extend_from_slice(src);
        Ok(out)
    }

    /// A new contiguous tensor of `sizes` and `dtype` holding `bytes` (native-endian, as
    /// `to_bytes` writes them); a `Value` error if the length does not match or a bool byte is
    /// not 0 or 1.
    pub fn from_bytes(bytes: &[u8], sizes: &[usize], dtype: DType) -> Result<Tensor> {
        // SAFETY: all `n` bytes are written below (after the checks, whose errors drop `t`
        // unread); bool bytes are checked to be 0 or 1 first.
        let t = unsafe { Tensor::empty_uninit(sizes, dtype)? };
        let n = t.numel() * dtype.itemsize();
        if bytes.len() != n {
            return Err(Error::value(format!(
                "expected {n} bytes for a {dtype} tensor of shape {sizes:?}, got {}",
                bytes.len()
            )));
        }
        if dtype == DType::Bool && bytes.iter().any(|&b| b > 1) {
            return Err(Error::value(
                "bool tensor data must hold only the bytes 0 and 1",
            ));
        }
        // SAFETY: `t` is a fresh contiguous tensor of exactly `n` bytes; every byte pattern is a
        // valid element (bool bytes were checked above).
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), t.storage.as_ptr(), n) };
        Ok(t)
    }

    /// The single element of a one-element tensor; torch's `RuntimeError` otherwise.
    pub fn item(&self) -> Result<Scalar> {
        let n = self.numel();
        if n != 1 {
            return Err(Error::runtime(format!(
                "a Tensor with {n} elements cannot be converted to Scalar"
            )));
        }
        Ok(self.get(&vec![0; self.dim()]))
    }

    // ----- views and copies -----------------------------------------------------------------

    /// A view of `self` with new geometry over the same storage; its `base()` is `self`'s base,
    /// or `self` (torch's `as_strided`). Every element the view can address must lie inside the
    /// storage: the ops compute geometry that does, and this is checked (a panic otherwise).
    pub fn as_strided(
        &self,
        sizes: impl AsRef<[usize]>,
        strides: impl AsRef<[isize]>,
        offset: usize,
    ) -> Tensor {
        let base = match &self.base {
            Some(b) if !self.detached => b.clone(),
            _ => self.clone(),
        };
        self.restride(sizes.as_ref(), strides.as_ref(), offset, Some(base))
    }

    /// A view with the same geometry: a new tensor (its own identity) over the same elements
    /// (torch's `alias`, what `t[...]` returns).
    pub fn alias(&self) -> Tensor {
        self.as_strided(self.sizes(), self.strides(), self.offset)
    }

    /// `self`'s storage under new geometry *without* recording a base: for a tensor the calling op
    /// allocated itself and returns in another shape (torch's `_unsafe_view`), so the result is
    /// not a view of anything the caller can see. Same guarantee as `as_strided`.
    pub fn restride_owned(
        &self,
        sizes: impl AsRef<[usize]>,
        strides: impl AsRef<[isize]>,
        offset: usize,
    ) -> Tensor {
        self.restride(sizes.as_ref(), strides.as_ref(), offset, None)
    }

    fn restride(
        &self,
        sizes: &[usize],
        strides: &[isize],
        offset: usize,
        base: Option<Tensor>,
    ) -> Tensor {
        let t = Tensor::from_parts(
            self.storage.share(self),
            SizesAndStrides::new(sizes, strides),
            offset,
            self.dtype,
            base,
            self.inference,
        );
        // Checked in release builds too: a view reaching outside its storage would let safe code
        // read and write memory it does not own. O(ndim); a failure is a core bug (the panic
        // becomes a RuntimeError at the Python boundary, never a wild access).
        assert!(
            t.numel() == 0 || {
                let (lo, hi) = t.footprint();
                lo >= 0 && hi as usize <= t.storage.nbytes()
            },
            "view outside its storage: {t:?}"
        );
        t
    }

    /// A contiguous tensor with the same values: `self` itself (the same tensor) when already
    /// contiguous, otherwise a copy (torch's `contiguous()`). A wrapped number loses its
    /// weak-operand mark.
    pub fn contiguous(&self) -> Result<Tensor> {
        if self.is_contiguous() {
            if self.wrapped_number {
                return Ok(self.restride_owned(self.sizes(), self.strides(), self.offset));
            }
            return Ok(self.clone());
        }
        self.clone_data()
    }

    // ----- identity, base, grad, Python object slot -------------------------------------------

    /// The tensor this one is a view of (torch's `_base`), or `None` for a non-view.
    pub fn base(&self) -> Option<&Tensor> {
        if self.detached {
            return None;
        }
        self.base.as_ref()
    }

    /// True when both handles are the same tensor (not merely the same values or view).
    pub fn same_tensor(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// The address of the tensor this handle refers to: equal for two handles to the same
    /// tensor (compare, never dereference).
    pub fn impl_ptr(&self) -> *const c_void {
        Arc::as_ptr(&self.inner).cast()
    }

    /// Number of handles to this tensor (Rust owners, the Python object's included).
    pub fn use_count(&self) -> usize {
        Arc::strong_count(&self.inner)
    }

    /// This tensor's autograd metadata, if it has any (core Note [Lazy autograd metadata]).
    #[inline(always)]
    pub fn autograd_meta(&self) -> Option<&AutogradMeta> {
        let p = self.autograd.load(Ordering::Acquire);
        // SAFETY: a non-NULL pointer is a live box owned by this tensor, never replaced or
        // freed while a handle exists (freed only in `drop`, moved only by `salvage`).
        (!p.is_null()).then(|| unsafe { &*p })
    }

    /// This tensor's autograd metadata, allocated now if it has none.
    pub fn autograd_meta_or_init(&self) -> &AutogradMeta {
        if let Some(m) = self.autograd_meta() {
            return m;
        }
        let fresh = Box::into_raw(Box::new(AutogradMeta::default()));
        match self.autograd.compare_exchange(
            std::ptr::null_mut(),
            fresh,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            // SAFETY: just stored; owned by this tensor from now on (see `autograd_meta`).
            Ok(_) => unsafe { &*fresh },
            Err(existing) => {
                // SAFETY: `fresh` was never shared; `existing` is the winner, as above.
                unsafe {
                    drop(Box::from_raw(fresh));
                    &*existing
                }
            }
        }
    }

    /// Publish `meta` as this tensor's autograd metadata if it has none (core Note [Record
    /// without the lock]); gives `meta` back when the tensor already has metadata.
    pub(crate) fn install_autograd_meta(
        &self,
        meta: Box<AutogradMeta>,
    ) -> std::result::Result<(), Box<AutogradMeta>> {
        let fresh = Box::into_raw(meta);
        match self.autograd.compare_exchange(
            std::ptr::null_mut(),
            fresh,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            // Owned by this tensor from now on (see `autograd_meta`).
            Ok(_) => Ok(()),
            // SAFETY: `fresh` came from `Box::into_raw` above and was never shared.
            Err(_) => Err(unsafe { Box::from_raw(fresh) }),
        }
    }

    /// Run `f` with `GRAD_LOCK` held, giving it access to the metadata fields of any tensor
    /// (`MetaAccess::inner`): one lock round trip for all the inputs of a node.
    pub(crate) fn with_grad_lock<R>(f: impl FnOnce(&mut MetaAccess) -> R) -> R {
        let _guard = GRAD_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut MetaAccess(()))
    }

    /// Run `f` on this tensor's metadata fields with `GRAD_LOCK` held (`None`: no metadata).
    pub(crate) fn with_meta<R>(&self, f: impl FnOnce(Option<&mut MetaInner>) -> R) -> R {
        let _guard = GRAD_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: `MetaInner` is only accessed with `GRAD_LOCK` held.
        f(self.autograd_meta().map(|m| unsafe { m.inner_mut() }))
    }

    /// Run `f` on this tensor's metadata fields (allocated if need be) with `GRAD_LOCK` held.
    pub(crate) fn with_meta_init<R>(&self, f: impl FnOnce(&mut MetaInner) -> R) -> R {
        let m = self.autograd_meta_or_init();
        let _guard = GRAD_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: `MetaInner` is only accessed with `GRAD_LOCK` held.
        f(unsafe { m.inner_mut() })
    }

    /// The `grad` slot (torch's `.grad`): another handle to the stored tensor, if any.
    pub fn grad(&self) -> Option<Tensor> {
        self.autograd_meta()?;
        self.with_meta(|m| m.and_then(|m| m.grad.clone()))
    }

    /// Set or clear the `grad` slot. torch's checks: the gradient must have this tensor's dtype
    /// and shape, and cannot be the tensor itself (all `Runtime` errors).
    pub fn set_grad(&self, grad: Option<Tensor>) -> Result<()> {
        if let Some(g) = &grad {
            if g.same_tensor(self) {
                return Err(Error::runtime("can't assign Variable as its own grad"));
            }
            // torch 2.15's texts (the size is checked first).
            if g.sizes() != self.sizes() {
                let fmt = |s: &[usize]| {
                    let v: Vec<String> = s.iter().map(|x| x.to_string()).collect();
                    format!("[{}]", v.join(", "))
                };
                return Err(Error::runtime(format!(
                    "attempting to assign a gradient of size '{}' to a tensor of size '{}'. Please ensure that the gradient and the tensor are the same size",
                    fmt(g.sizes()),
                    fmt(self.sizes())
                )));
            }
            if g.dtype != self.dtype {
                let cpp = match g.dtype {
                    DType::Bool => "bool",
                    DType::UInt8 => "unsigned char",
                    DType::Int8 => "signed char",
                    DType::Int16 => "short int",
                    DType::Int32 => "int",
                    DType::Int64 => "long int",
                    DType::Float32 => "float",
                    DType::Float64 => "double",
                };
                return Err(Error::runtime(format!(
                    "attempting to assign a gradient with dtype '{cpp}' to a tensor with grad_dtype '{}'. The gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may break downstream systems that assume they match.",
                    self.dtype.scalar_type_name()
                )));
            }
        }
        self.set_grad_unchecked(grad);
        Ok(())
    }

    /// Set or clear the `grad` slot without checks (the engine's accumulation).
    pub(crate) fn set_grad_unchecked(&self, grad: Option<Tensor>) {
        if grad.is_none() && self.autograd_meta().is_none() {
            return;
        }
        let old = self.with_meta_init(|m| std::mem::replace(&mut m.grad, grad));
        drop(old); // released after the lock, so a Python object it owns is freed without it held
    }

    /// Move this tensor's gradient, unchecked, to `to` (whose own gradient is dropped): for a
    /// tensor that takes over another's identity (an `out=` tensor given new geometry keeps its
    /// `.grad`, as torch's in-place resize does).
    pub fn transfer_grad_to(&self, to: &Tensor) {
        let moved = self.with_meta(|m| m.and_then(|m| m.grad.take()));
        to.set_grad_unchecked(moved);
    }

    /// How many handles to `other` this tensor holds: as its `_base`, and as the owner of its
    /// inline storage (a view of a small tensor holds both).
    pub fn handles_to(&self, other: &Tensor) -> usize {
        let by_base = self.base.as_ref().is_some_and(|b| b.same_tensor(other));
        let by_storage = matches!(&self.storage, StorageRef::Of(o) if o.same_tensor(other));
        by_base as usize + by_storage as usize
    }

    /// True when this tensor's gradient is `t` itself.
    pub fn grad_is(&self, t: &Tensor) -> bool {
        self.with_meta(|m| {
            m.and_then(|m| m.grad.as_ref())
                .is_some_and(|g| g.same_tensor(t))
        })
    }

    /// How many handles to this tensor its own gradient holds — as its `_base` or as the owner
    /// of its inline storage — when nothing else holds that gradient, so that those handles die
    /// with this tensor's `grad` (`a.grad = a.view(...)` is a reference cycle otherwise); 0 when
    /// there is no gradient or something else holds it.
    pub fn handles_held_by_own_grad(&self) -> usize {
        self.with_meta(|m| {
            let Some(g) = m.and_then(|m| m.grad.as_ref()) else {
                return 0;
            };
            if g.use_count() != 1 {
                return 0;
            }
            g.handles_to(self)
        })
    }

    // ----- version counter, detach, weak handles (core Note [Version counter]) -----------------

    /// The tensor whose counter this one reads: its base (for a view or detached alias), else
    /// itself.
    #[inline(always)]
    fn version_owner(&self) -> &TensorImpl {
        match &self.base {
            Some(b) => match &b.base {
                // A view of a detached alias names the alias as its base; one more step.
                Some(bb) => &bb.inner,
                None => &b.inner,
            },
            None => &self.inner,
        }
    }

    /// torch's `_version`: how many in-place writes this tensor, its views and its detached
    /// aliases have had.
    pub fn version(&self) -> u32 {
        self.version_owner().version.load(Ordering::Relaxed)
    }

    /// torch's `is_inference()` (core Note [Inference tensors]).
    #[inline(always)]
    pub fn is_inference(&self) -> bool {
        self.inference
    }

    /// torch's check before an in-place write (every in-place kernel calls it before writing):
    /// an inference tensor may be written only in inference mode.
    #[inline(always)]
    pub fn check_inference_write(&self) -> Result<()> {
        if self.inference && !crate::core::autograd::is_inference_mode() {
            return Err(Error::runtime(ERR_INFERENCE_INPLACE));
        }
        Ok(())
    }

    /// Count one in-place write (every in-place kernel calls this, also under no_grad).
    #[inline(always)]
    pub fn bump_version(&self) {
        self.version_owner().version.fetch_add(1, Ordering::Relaxed);
    }

    /// torch's `detach()`: a new tensor over the same elements, with no autograd history,
    /// sharing this tensor's version counter (a view stays a view of the same base).
    pub fn detach_alias(&self) -> Tensor {
        if self.base().is_some() || self.detached {
            return self.alias_keeping_base();
        }
        let mut t = self.restride(
            self.sizes(),
            self.strides(),
            self.offset,
            Some(self.clone()),
        );
        let imp = Arc::get_mut(&mut t.inner).expect("a fresh tensor has one handle");
        imp.detached = true;
        imp.wrapped_number = self.wrapped_number;
        t
    }

    fn alias_keeping_base(&self) -> Tensor {
        let mut t = self.restride(self.sizes(), self.strides(), self.offset, self.base.clone());
        let imp = Arc::get_mut(&mut t.inner).expect("a fresh tensor has one handle");
        imp.detached = self.detached;
        t
    }

    /// torch's `.data`: a new tensor over the same elements with no autograd history and a
    /// version counter of its own (starting at 0).
    pub fn data_alias(&self) -> Tensor {
        self.restride(self.sizes(), self.strides(), self.offset, None)
    }

    /// A tensor over the same elements that holds no handle to `self` (so a node may keep it
    /// without a reference cycle through `self`'s `grad_fn`): `self`'s heap storage shared, or
    /// a copy of inline data. No autograd history; version counter of its own.
    pub fn data_without_owner(&self) -> Result<Tensor> {
        match &self.storage {
            StorageRef::Inline { .. } | StorageRef::Of(_) => self.clone_data(),
            _ => Ok(self.restride(self.sizes(), self.strides(), self.offset, None)),
        }
    }

    /// A weak handle: does not keep the tensor alive (`WeakTensor::upgrade`).
    pub fn downgrade(&self) -> WeakTensor {
        WeakTensor {
            inner: Arc::downgrade(&self.inner),
        }
    }

    /// An identifier of the storage, equal for tensors that share it (while it is alive).
    pub fn storage_id(&self) -> usize {
        self.storage.id()
    }

    /// A new 1-D contiguous tensor holding a copy of this tensor's *whole* storage (every
    /// element of it, not just the ones this view addresses), so the original geometry can be
    /// re-applied to the copy with `restride_owned` (deep copies that keep views sharing).
    pub fn copy_storage(&self) -> Result<Tensor> {
        let n = self.storage.nbytes() / self.dtype.itemsize();
        // SAFETY: all `n` elements are copied in just below (a storage holds a whole number of
        // elements: it was allocated as `numel * itemsize` bytes).
        let out = unsafe { Tensor::empty_uninit(&[n], self.dtype)? };
        // SAFETY: both buffers hold `n * itemsize` bytes (the copy was sized from the source);
        // the destination is a fresh allocation, so they do not overlap.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.storage.as_ptr(),
                out.storage.as_ptr(),
                n * self.dtype.itemsize(),
            )
        };
        Ok(out)
    }

    /// The Python object recorded for this tensor (opaque; NULL if none). See Note [PyObject slot].
    pub fn pyobj(&self) -> *mut c_void {
        (self.pyobj.bits.load(Ordering::Acquire) & !PYOBJ_OWNED) as *mut c_void
    }

    /// True when this tensor owns a strong reference to its Python object.
    pub fn owns_pyobj(&self) -> bool {
        self.pyobj.bits.load(Ordering::Acquire) & PYOBJ_OWNED != 0
    }

    /// Record the Python object (NULL to clear) and whether this tensor owns it. The binding layer
    /// calls this with the GIL held. See Note [PyObject slot].
    pub fn set_pyobj(&self, p: *mut c_void, owned: bool) {
        debug_assert_eq!(p as usize & PYOBJ_OWNED, 0, "Python objects are aligned");
        let bits = p as usize | if owned { PYOBJ_OWNED } else { 0 };
        self.pyobj.bits.store(bits, Ordering::Release);
    }

    /// A new contiguous tensor with a copy of the values (torch's `clone()`).
    pub fn clone_data(&self) -> Result<Tensor> {
        self.to_dtype(self.dtype)
    }

    /// A new contiguous tensor with the values converted to `dtype` (always a copy).
    pub fn to_dtype(&self, dtype: DType) -> Result<Tensor> {
        // SAFETY: `copy_from` into a fresh tensor of `self`'s shape writes every element (a fresh
        // tensor neither is nor overlaps `self`, so no early return); on an error `out` is
        // dropped unread.
        let out = unsafe { Tensor::empty_uninit(self.sizes(), dtype)? };
        out.copy_from(self)?;
        Ok(out)
    }

    /// Strides of `self` broadcast to `shape` (0 for broadcast dimensions), or torch's
    /// `expand` error when a non-singleton size differs.
    pub fn broadcast_strides(&self, shape: &[usize]) -> Result<Vec<isize>> {
        let nd = shape.len();
        if self.dim() > nd {
            return Err(Error::runtime(format!(
                "expand: the number of sizes provided ({nd}) must be greater or equal to the number of dimensions in the tensor ({})",
                self.dim()
            )));
        }
        let lead = nd - self.dim();
        let mut out = vec![0isize; nd];
        for i in 0..self.dim() {
            let (s, target) = (self.sizes()[i], shape[lead + i]);
            out[lead + i] = if s == target {
                self.strides()[i]
            } else if s == 1 {
                0
            } else {
                return Err(Error::runtime(format!(
                    "The expanded size of the tensor ({target}) must match the existing size ({s}) at non-singleton dimension {}.  Target sizes: {shape:?}.  Tensor sizes: {:?}",
                    lead + i,
                    self.sizes()
                )));
            };
        }
        Ok(out)
    }

    /// Write `src` into `self` element by element, broadcasting `src` to `self`'s shape and
    /// converting its dtype (torch's `copy_`). `self` must not partially overlap `src`.
    ///
    /// torch's checks come first: an expanded destination, or a dense source that partially
    /// overlaps a dense destination, is a `Runtime` error. Other overlapping layouts, which torch
    /// does not detect, are copied through a temporary so the result is always right.
    pub fn copy_from(&self, src: &Tensor) -> Result<()> {
        if self.is_same(src) {
            return Ok(());
        }
        self.assert_no_internal_overlap()?;
        self.assert_no_partial_overlap(src)?;
        if self.may_partially_overlap(src) {
            return self.copy_from(&src.clone_data()?);
        }
        let src_strides = src.broadcast_strides(self.sizes())?;
        crate::dispatch!(self.dtype, D => crate::dispatch!(src.dtype, S => {
            let (dst_ptr, src_ptr) = (self.data_ptr::<D>(), src.data_ptr::<S>());
            if let (true, true, true) = (self.is_contiguous(), src.is_contiguous(), src.sizes() == self.sizes()) {
                let n = self.numel();
                // SAFETY: both contiguous with `n` elements; distinct allocations or identical
                // ranges (a copy onto itself reads each element before writing it).
                unsafe {
                    for i in 0..n {
                        *dst_ptr.add(i) = D::cast_from(*src_ptr.add(i));
                    }
                }
            } else {
                // Row by row, with a `move` closure so the row loop keeps both pointers in
                // registers (the outer walk is `strided_rows`, shared).
                let strides = [self.strides(), &src_strides[..]];
                strided_rows(self.sizes(), strides, move |[mut d, mut s], len, [sd, ss]| {
                    for _ in 0..len {
                        // SAFETY: offsets come from each tensor's own (broadcast) geometry.
                        unsafe { *dst_ptr.offset(d) = D::cast_from(*src_ptr.offset(s)) };
                        (d, s) = (d + sd, s + ss);
                    }
                });
            }
        }));
        Ok(())
    }

    /// Write `values` (row-major, one per element) into a contiguous tensor, converting each
    /// to the tensor's dtype; a value that does not fit is torch's overflow `Runtime` error,
    /// which names the dtype as `torch.tensor` does ("... to type uint8 without overflow").
    /// Panics if the count differs (a core programming error).
    pub fn copy_from_scalars(&self, values: &[Scalar]) -> Result<()> {
        assert!(
            self.is_contiguous() && values.len() == self.numel(),
            "copy_from_scalars: bad input"
        );
        crate::dispatch!(self.dtype, T => {
            let p = self.data_ptr::<T>();
            for (i, v) in values.iter().enumerate() {
                if v.overflows(T::DTYPE) {
                    return Err(Error::runtime(format!(
                        "value cannot be converted to type {} without overflow",
                        T::DTYPE.name()
                    )));
                }
                let x: T = v.to::<T>();
                // SAFETY: contiguous tensor of `values.len()` elements.
                unsafe { *p.add(i) = x };
            }
        });
        Ok(())
    }

    /// Set every element to `value`, which must fit the dtype (torch's `fill_` with a Python
    /// number: `Runtime` "value cannot be converted to type uint8_t without overflow").
    pub fn fill_(&self, value: Scalar) -> Result<()> {
        crate::dispatch!(self.dtype, T => value.to_checked::<T>().map(|_| ()))?;
        self.fill_cast(value);
        Ok(())
    }

    /// Set every element to `value` cast C++-style to the dtype (no range check: torch's
    /// `fill_` with a 0-dim tensor, and `zero_`).
    pub fn fill_cast(&self, value: Scalar) {
        crate::dispatch!(self.dtype, T => {
            let v: T = value.to::<T>();
            let p = self.data_ptr::<T>();
            if self.is_contiguous() {
                // SAFETY: contiguous: `numel` elements from `p`.
                unsafe { std::slice::from_raw_parts_mut(p, self.numel()).fill(v) };
            } else {
                strided_for_each(self.sizes(), [self.strides()], |[o]| {
                    // SAFETY: `o` addresses an element of this tensor.
                    unsafe { *p.offset(o) = v }
                });
            }
        })
    }

    /// True when both are the same view: one storage, offset, shape, strides and dtype.
    pub fn is_same(&self, other: &Tensor) -> bool {
        self.shares_storage(other)
            && self.offset == other.offset
            && self.sizes() == other.sizes()
            && self.strides() == other.strides()
            && self.dtype == other.dtype
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn external_memory_is_shared_and_released_once_with_the_last_view() {
        use std::sync::atomic::AtomicUsize;
        static RELEASED: AtomicUsize = AtomicUsize::new(0);
        let mut data: Vec<f32> = (0..12).map(|i| i as f32).collect();
        let ptr = data.as_mut_ptr().cast::<u8>();
        // A 3x2 view with strides (4, 2) over a 3x4 row-major buffer, starting at element 1.
        // SAFETY: `data` outlives the tensors (checked: released before it is dropped).
        let t = unsafe {
            Tensor::from_external(
                ptr,
                48,
                &[3, 2],
                &[4, 2],
                1,
                DType::Float32,
                Box::new(|| {
                    RELEASED.fetch_add(1, Ordering::SeqCst);
                }),
            )
        }
        .unwrap();
        assert!(t.is_external());
        assert_eq!(t.to_vec::<f32>(), vec![1.0, 3.0, 5.0, 7.0, 9.0, 11.0]);
        // SAFETY: element 0 of the view is in bounds.
        unsafe { t.data_ptr::<f32>().write(-1.0) };
        let v = crate::core::ops::select(&t, 0, 2).unwrap();
        drop(t);
        assert_eq!(RELEASED.load(Ordering::SeqCst), 0);
        assert_eq!(v.to_vec::<f32>(), vec![9.0, 11.0]);
        drop(v);
        assert_eq!(RELEASED.load(Ordering::SeqCst), 1);
        assert_eq!(data[1], -1.0);
    }

    #[test]
    fn external_views_outside_the_memory_are_refused_and_still_released() {
        use std::sync::atomic::AtomicUsize;
        static RELEASED: AtomicUsize = AtomicUsize::new(0);
        let mut data = [0u64; 4];
        let ptr = data.as_mut_ptr().cast::<u8>();
        let release = || -> ExternalOwner {
            Box::new(|| {
                RELEASED.fetch_add(1, Ordering::SeqCst);
            })
        };
        // SAFETY: `data` outlives every call; failures create no tensor.
        unsafe {
            let e = Tensor::from_external(ptr, 32, &[5], &[1], 0, DType::Int64, release());
            assert_eq!(e.unwrap_err().kind, crate::core::ErrorKind::Value);
            let e = Tensor::from_external(ptr.add(1), 31, &[1], &[1], 0, DType::Int64, release());
            assert_eq!(e.unwrap_err().kind, crate::core::ErrorKind::Value);
            let e = Tensor::from_external(ptr, 32, &[2], &[-1], 1, DType::Int64, release());
            assert_eq!(e.unwrap_err().kind, crate::core::ErrorKind::Value);
            let empty = Tensor::from_external(ptr, 0, &[0, 3], &[3, 1], 0, DType::Int64, release());
            assert_eq!(empty.unwrap().numel(), 0);
        }
        assert_eq!(RELEASED.load(Ordering::SeqCst), 4);
    }

    #[test]
    fn zeros_has_contiguous_strides() {
        let t = Tensor::zeros(&[2, 3, 4], DType::Float32).unwrap();
        assert_eq!(t.strides(), &[12, 4, 1]);
        assert!(t.is_contiguous());
        assert_eq!(t.numel(), 24);
    }

    #[test]
    fn overflowing_size_is_an_error_not_an_abort() {
        let e = Tensor::zeros(&[1 << 62, 8], DType::Float32).unwrap_err();
        assert_eq!(e.kind, super::super::error::ErrorKind::Runtime);
        let e = Tensor::zeros(&[1 << 40], DType::Float64).unwrap_err();
        assert_eq!(e.kind, super::super::error::ErrorKind::OutOfMemory);
    }

    #[test]
    fn broadcast_shapes_follows_numpy() {
        assert_eq!(broadcast_shapes(&[3, 1], &[4]).unwrap(), vec![3, 4]);
        assert_eq!(broadcast_shapes(&[], &[2, 2]).unwrap(), vec![2, 2]);
        assert!(broadcast_shapes(&[3], &[4]).is_err());
    }

    #[test]
    fn transposed_view_iterates_in_logical_order() {
        let t = Tensor::from_vec((0..6i64).collect(), &[2, 3]).unwrap();
        let tt = t.as_strided(vec![3, 2], vec![1, 3], 0);
        assert!(!tt.is_contiguous());
        assert_eq!(tt.to_vec::<i64>(), vec![0, 3, 1, 4, 2, 5]);
        let c = tt.contiguous().unwrap();
        assert!(!c.shares_storage(&t));
        assert_eq!(c.to_vec::<i64>(), vec![0, 3, 1, 4, 2, 5]);
    }

    #[test]
    fn small_tensor_is_one_small_block() {
        // Note [Small tensors]: with the `Arc` counts (16 bytes) the block must stay within 120
        // bytes, glibc's 128-byte chunk, for the footprint target (RSS per 1-element tensor).
        #[cfg(target_pointer_width = "64")]
        assert!(std::mem::size_of::<TensorImpl>() <= 104);
        let t = Tensor::from_vec(vec![1.5f32, 2.5], &[2]).unwrap();
        assert!(matches!(t.storage, StorageRef::Inline { nbytes: 8, .. }));
        let v = t.as_strided([1usize], [1isize], 1);
        assert!(matches!(&v.storage, StorageRef::Of(o) if o.same_tensor(&t)));
        assert!(v.shares_storage(&t) && v.storage_id() == t.storage_id());
        assert_eq!(v.to_vec::<f32>(), vec![2.5]);
        // A view of a view names the owner of the bytes, never the intermediate view.
        let w = v.restride_owned([0usize; 0], [0isize; 0], 1);
        assert!(matches!(&w.storage, StorageRef::Of(o) if o.same_tensor(&t)));
        drop(t);
        v.fill_(Scalar::Float(7.0)).unwrap();
        assert_eq!(w.item().unwrap(), Scalar::Float(7.0));
        let big = Tensor::zeros(&[5], DType::Float32).unwrap();
        assert!(matches!(big.storage, StorageRef::Heap(_)));
    }

    #[test]
    fn autograd_fields_fit_in_the_old_layout() {
        // Note [Lazy autograd metadata]: the autograd word replaced the `grad` slot and the
        // version counter and `detached` flag sit in padding, so a tensor is no larger than
        // before autograd.
        #[allow(dead_code)]
        struct BeforeAutograd {
            storage: StorageRef,
            geometry: SizesAndStrides,
            offset: usize,
            dtype: DType,
            wrapped_number: bool,
            base: Option<Tensor>,
            grad: UnsafeCell<Option<Tensor>>,
            pyobj: PyObjectSlot,
        }
        assert_eq!(
            std::mem::size_of::<TensorImpl>(),
            std::mem::size_of::<BeforeAutograd>()
        );
    }

    #[test]
    fn grad_and_pyobj_slots() {
        let t = Tensor::zeros(&[2], DType::Int64).unwrap();
        assert!(t.grad().is_none());
        let g = Tensor::zeros(&[2], DType::Int64).unwrap();
        t.set_grad(Some(g.clone())).unwrap();
        assert!(t.grad().unwrap().same_tensor(&g));
        assert!(t.set_grad(Some(t.clone())).is_err());
        t.set_grad(None).unwrap();
        assert_eq!(g.use_count(), 1);
        let fake = 0x1000usize as *mut c_void;
        t.set_pyobj(fake, true);
        assert_eq!((t.pyobj(), t.owns_pyobj()), (fake, true));
        t.set_pyobj(fake, false);
        assert_eq!((t.pyobj(), t.owns_pyobj()), (fake, false));
        t.set_pyobj(std::ptr::null_mut(), false);
    }

    #[test]
    fn size_and_stride_of_a_0_dim_tensor_are_index_errors() {
        let t = Tensor::zeros(&[], DType::Float32).unwrap();
        for e in [t.size(0).unwrap_err(), t.stride(-1).unwrap_err()] {
            assert_eq!(e.kind, super::super::error::ErrorKind::Index);
        }
        assert_eq!(
            t.size(0).unwrap_err().message,
            "Dimension specified as 0 but tensor has no dimensions"
        );
    }

    #[test]
    fn wrap_dim() {
        assert_eq!(maybe_wrap_dim(-1, 3).unwrap(), 2);
        assert!(maybe_wrap_dim(3, 3).is_err());
        assert_eq!(maybe_wrap_dim(-1, 0).unwrap(), 0);
    }
}
