//! src/bindings/tensor_object.rs: the `_C.Tensor` instance and its lifecycle — the Python object
//! that holds a core `Tensor` in place (PyTorch: `THPVariable` in `python_variable.cpp`; nanobind:
//! `nb_type.cpp`'s instances), `wrap` / `unpack` / `tensor_ref`, PyObject preservation, the free
//! list, and the deallocator, traverse and clear of `_C.Tensor` and of its Python subclasses
//! (which the metaclass's `tensor_meta_new` installs). The type object lives here; its slot and
//! method tables are assembled by tensor_type.rs.
//!
//! Layer 1 (objects): see src/bindings/mod.rs.
//!
//! Note [Tensor in place]: a `PyTensor` stores its `Tensor` handle *inside* the Python object
//! (`cdata`), not behind a pointer to a heap box. `tp_alloc` returns zeroed memory (state
//! `Empty`), so `cdata` is initialised with `ptr::write` and released by hand (it is
//! `ManuallyDrop`), exactly once, and only while the object owns it (state `Owned`). Objects are
//! published (returned or stored) only after the write. Code outside this file reads `cdata` only
//! as a borrowed handle (`TensorRef`, Note [Borrowed tensors and replaced handles] in
//! call_scope.rs), never as a reference into the object.
//!
//! Note [PyObject preservation]
//! One core tensor (`TensorImpl`) has at most one Python object, recorded in the tensor's opaque
//! slot (core Note [PyObject slot]); `wrap` returns that object instead of making a new one, so
//! identity holds with no global map. Each object has an explicit state (`ObjState`, nanobind's
//! `nb_inst::state`), which every accessor checks:
//!
//! - `Owned` — Python owns the object. The object holds a strong handle to its tensor (`cdata`);
//!   the tensor's slot points back at the object *without* a reference. Rust may hold more
//!   handles to the tensor (a view's `_base`, a `grad` slot, a running op).
//! - `Preserved` — the tensor owns the object. Entered from `tp_dealloc` when Python drops the
//!   last reference while Rust still holds the tensor (`use_count() > 1`): instead of dying, the
//!   object takes back one reference, which now belongs to the tensor (slot flag `owned`), and it
//!   gives up its own handle (`cdata` keeps the pointer, now a borrowed copy — valid because the
//!   tensor, which owns the object, outlives it). `__dict__`, weak references and the subclass
//!   survive. The GC sees a refcount it cannot explain, so it never collects a preserved object,
//!   and traverse and clear leave alone any object Rust holds (torch's rule).
//!   - Back to `Owned` whenever Python code meets the object again. Through `wrap` (the tensor
//!     comes back from Rust): the tensor's reference is handed to the caller. Through any other
//!     way — a weak reference, `gc.get_objects()` — the next accessor (`tensor_ref`, `unpack`)
//!     flips it first: the object takes a handle again and the tensor drops its reference. So an
//!     entry point only ever works on an `Owned` object, which keeps its tensor alive for the
//!     whole call.
//!   - When the tensor dies (its last Rust handle is dropped, on any thread), the core calls
//!     `release_pyobj` with the dying tensor. Before dropping the tensor's reference, it
//!     *re-homes* the object: the object gets a fresh tensor over the same elements, geometry,
//!     `_base` and `grad` (`Dying::salvage`) and becomes `Owned`. Whatever then runs — the object
//!     freed, its `__del__`, weakref callbacks, or nothing because a weak reference brought it
//!     back to Python meanwhile — sees a valid tensor of its own; no Python code ever sees the
//!     dying `TensorImpl`. (torch stubs such an object out instead; here it keeps working.)
//! - `Empty` — no tensor: freshly allocated, or released by the deallocator.
//!
//! A tensor whose handle an `out=` resize replaced (`replace_tensor`) keeps pointing at the object
//! and owns a reference to it for as long as it lives (a view's `_base` may keep it): a
//! *forwarding* tensor, so `v._base is a` still holds. `wrap` and the release hook tell it from a
//! preserved one by comparing the object's `cdata` with the tensor.
//!
//! Every transition runs with the GIL held (`release_pyobj` takes it first), and the GIL
//! serialises them; the counts read (`use_count`) can only grow from another thread through a
//! handle that thread already has, which makes "no other handle" stable once observed under the
//! GIL. Python subclasses get `tensor_subclass_dealloc`, `tensor_subclass_traverse` and
//! `tensor_subclass_clear` from the metaclass `_C._TensorMeta` (and from `alloc_with`, for
//! classes made without it), which decide preservation *before* CPython's logic would clear
//! `__slots__` and release the type (resurrecting after that would corrupt both).
//!
//! Note [PyTensor free list]
//! Like CPython's float and list free lists, up to `FREE_LIST_MAX` dead objects of the exact
//! type `_C.Tensor` are kept for reuse, so a result tensor skips `PyType_GenericAlloc` (pymalloc,
//! GC link) and `PyObject_GC_Del`. An object enters the list at the very end of
//! `tensor_dealloc`, after it was untracked, its weak references and `__dict__` cleared and its
//! tensor released: it is a dead, untracked allocation with refcount 0 that nothing refers to.
//! Preserved objects never die, so never enter it, and subclass instances (which own a reference
//! to their heap type and have other sizes) never use it. `alloc_with` takes one for
//! `tensor_type()`, zeroes the body as `tp_alloc` would, and revives it with `PyObject_Init`
//! (`_Py_NewReference`: refcount 1, and `_Py_RefTotal` in debug builds, so
//! `sys.gettotalrefcount` balances exactly as for a fresh allocation) and `PyObject_GC_Track`.
//! All of it runs with the GIL held, which serialises the list. The module is never freed (the
//! interpreter keeps single-phase extension modules, and `state.rs` keeps references to it), so
//! the list lives as long as the process; at most `FREE_LIST_MAX` objects stay reachable from it.

use super::call_scope;
use super::errors::{BindError, PyResult};
use super::gil::assert_gil_held;
use super::object_ptr::{Borrowed, ObjectPtr};
use super::static_type::StaticType;
use crate::core::tensor::Dying;
use crate::core::Tensor;
use pyo3_ffi as ffi;
use std::ffi::{c_int, c_void};
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ptr::{addr_of_mut, null_mut};

/// Who owns whom between a tensor object and its tensor (Note [PyObject preservation]).
#[repr(u8)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ObjState {
    /// No tensor: just allocated (`tp_alloc` zeroes the object, so this is 0), or released.
    Empty = 0,
    /// Python owns the object; `cdata` is an owned handle.
    Owned = 1,
    /// The tensor owns the object; `cdata` is a borrowed copy of a handle to it.
    Preserved = 2,
}

/// The object layout of `_C.Tensor` and of every Python subclass (which appends its own slots
/// after it).
#[repr(C)]
pub struct PyTensor {
    pub ob_base: ffi::PyObject,
    /// The core tensor handle, in place: owned in state `Owned`, a borrowed copy in state
    /// `Preserved`, uninitialised in state `Empty`. See Notes [Tensor in place], [PyObject
    /// preservation].
    pub cdata: ManuallyDrop<Tensor>,
    pub state: ObjState,
    /// How many buffer-protocol exports of this object's memory are open (`memoryview(t)`):
    /// while any is, nothing may give the object other memory (`out=` resizing raises
    /// BufferError, as `bytearray` does). In the padding after `state`; changed with the GIL held.
    pub exports: u32,
    /// The instance `__dict__`, created lazily by CPython (`tp_dictoffset`); owned, or NULL.
    pub dict: *mut ffi::PyObject,
    /// The weak-reference list head (`tp_weaklistoffset`); managed by CPython.
    pub weakrefs: *mut ffi::PyObject,
}

// Pin the layout (nanobind's habit): 16-byte header, the handle, the state and the export count
// (in what was padding), then two pointers.
const _: () = assert!(std::mem::offset_of!(PyTensor, cdata) == 16);
const _: () = assert!(std::mem::size_of::<ManuallyDrop<Tensor>>() == 8);
const _: () = assert!(std::mem::offset_of!(PyTensor, state) == 24);
const _: () = assert!(std::mem::size_of::<ObjState>() == 1);
const _: () = assert!(std::mem::offset_of!(PyTensor, exports) == 28);
const _: () = assert!(std::mem::offset_of!(PyTensor, dict) == 32);
const _: () = assert!(std::mem::offset_of!(PyTensor, weakrefs) == 40);
const _: () = assert!(std::mem::size_of::<PyTensor>() == 48);

/// The `_C.Tensor` type object, readied by `tensor_type::init` from the slot and method tables.
pub(crate) static TENSOR_TYPE: StaticType = StaticType::new();

/// The type object (borrowed, static).
#[inline(always)]
pub fn tensor_type() -> *mut ffi::PyTypeObject {
    TENSOR_TYPE.as_ptr()
}

/// True when `o` is a `_C.Tensor` or an instance of a subclass (exact type checked first).
#[inline(always)]
pub fn is_tensor(o: Borrowed<'_>) -> bool {
    let tp = o.type_ptr();
    // SAFETY: `PyType_IsSubtype` reads the MRO of a live type.
    tp == tensor_type() || unsafe { ffi::PyType_IsSubtype(tp, tensor_type()) != 0 }
}

/// A borrowed handle to the tensor inside a tensor object (PyTorch: a borrowed
/// `MaybeOwned<Variable>`): a copy of the object's handle that holds no count, usable as a
/// `&Tensor` (it derefs to one). Valid for `'a`, the borrow of the object: the object keeps the
/// tensor alive while it holds it, and a handle replaced meanwhile is kept alive until the
/// outermost `_C` call returns (Note [Borrowed tensors and replaced handles]). Take an owned
/// handle (`.clone()`, which gives a `Tensor`) to keep the tensor beyond that.
pub struct TensorRef<'a> {
    handle: ManuallyDrop<Tensor>,
    _object: PhantomData<Borrowed<'a>>,
}

impl std::ops::Deref for TensorRef<'_> {
    type Target = Tensor;
    #[inline(always)]
    fn deref(&self) -> &Tensor {
        &self.handle
    }
}

impl<'a> TensorRef<'a> {
    /// Another borrowed handle to the same tensor, for the same borrow.
    #[inline(always)]
    pub fn copy(&self) -> TensorRef<'a> {
        TensorRef {
            // SAFETY: a bitwise copy of a handle that holds no count, like `self`; neither is
            // ever dropped (`ManuallyDrop`).
            handle: unsafe { std::ptr::read(&self.handle) },
            _object: PhantomData,
        }
    }
}

/// The tensor inside the tensor object `o`, borrowed for as long as `o` is. A preserved object
/// becomes `Owned` first (Note [PyObject preservation]).
///
/// # Safety
/// `o` must be a tensor (`is_tensor(o)`), and the GIL held. Panics (a RuntimeError at the
/// boundary) if the object holds no tensor, which no Python program can arrange.
#[inline(always)]
pub unsafe fn tensor_ref<'a>(o: Borrowed<'a>) -> TensorRef<'a> {
    assert_gil_held();
    let p = o.as_ptr() as *mut PyTensor;
    // SAFETY: `o` is a live `PyTensor` (contract). In state `Owned` `cdata` is an initialised
    // handle the object keeps alive for `'a` (or, once replaced, the call scope does); the copy
    // holds no count and is never dropped.
    unsafe {
        if (*p).state != ObjState::Owned {
            make_owned(o);
        }
        TensorRef {
            handle: std::ptr::read(&raw const (*p).cdata),
            _object: PhantomData,
        }
    }
}

/// The tensor inside `o`, or `None` if `o` is not a tensor object (or holds no tensor).
#[inline(always)]
pub fn unpack<'a>(o: Borrowed<'a>) -> Option<TensorRef<'a>> {
    if !is_tensor(o) {
        return None;
    }
    // SAFETY: `o` is a tensor object (checked); reading its state byte is always valid.
    if unsafe { (*(o.as_ptr() as *mut PyTensor)).state } == ObjState::Empty {
        return None;
    }
    // SAFETY: checked just above; binding code runs with the GIL held.
    Some(unsafe { tensor_ref(o) })
}

/// Bring the object `o` to state `Owned`: a preserved object (reached without `wrap`, through a
/// weak reference or the GC) takes a handle again, and the tensor gives back its reference.
///
/// # Safety
/// `o` is a live tensor object, borrowed from a caller who owns a reference to it; GIL held.
#[cold]
#[inline(never)]
unsafe fn make_owned(o: Borrowed<'_>) {
    assert_gil_held();
    let p = o.as_ptr() as *mut PyTensor;
    // SAFETY: contract. In state `Preserved` the tensor owns the object and `cdata` is a borrowed
    // copy of a handle to it, so cloning it is valid; the caller's own reference keeps the object
    // alive across the `Py_DECREF` of the tensor's reference (refcount >= 2 before it).
    unsafe {
        match (*p).state {
            ObjState::Owned => {}
            ObjState::Preserved => {
                let owned = (*(*p).cdata).clone();
                owned.set_pyobj(o.as_ptr().cast(), false);
                std::ptr::write(&raw mut (*p).cdata, ManuallyDrop::new(owned));
                (*p).state = ObjState::Owned;
                ffi::Py_DECREF(o.as_ptr()); // the reference the tensor owned
            }
            ObjState::Empty => panic!("a _C.Tensor object was used after its tensor was released"),
        }
    }
}

/// Most dead `_C.Tensor` objects kept for reuse (Note [PyTensor free list]); 48-byte objects,
/// so at most 8 KB with their GC headers.
pub const FREE_LIST_MAX: usize = 128;

/// The free list: `items[..len]` are dead, untracked `_C.Tensor` allocations.
struct FreeList {
    items: [*mut ffi::PyObject; FREE_LIST_MAX],
    len: usize,
}

struct FreeListCell(std::cell::UnsafeCell<FreeList>);
// SAFETY: the list is only read or written with the GIL held (allocation and deallocation of
// Python objects), which serialises every access; the pointers it holds are owned by it.
unsafe impl Sync for FreeListCell {}

static FREE_LIST: FreeListCell = FreeListCell(std::cell::UnsafeCell::new(FreeList {
    items: [null_mut(); FREE_LIST_MAX],
    len: 0,
}));

/// The free list, mutably.
///
/// # Safety
/// The GIL is held, and the reference is dropped before any code that could run Python (or
/// allocate or free a tensor object) runs.
#[inline(always)]
unsafe fn free_list() -> &'static mut FreeList {
    // SAFETY: contract: the GIL serialises all accesses, and no two references coexist.
    unsafe { &mut *FREE_LIST.0.get() }
}

/// A revived `_C.Tensor` from the free list (a new reference, zeroed body, tracked), or NULL.
///
/// # Safety
/// The GIL is held.
#[inline(always)]
unsafe fn free_list_pop() -> *mut ffi::PyObject {
    // SAFETY: GIL held (contract). An entry is a dead, untracked `_C.Tensor` allocation made by
    // `PyType_GenericAlloc` (Note [PyTensor free list]); `PyObject_Init` sets its type and
    // refcount 1 (counting it in `_Py_RefTotal` in debug builds), as `tp_alloc` does.
    unsafe {
        let fl = free_list();
        if fl.len == 0 {
            return null_mut();
        }
        fl.len -= 1;
        let obj = fl.items[fl.len];
        let body = (obj as *mut u8).add(std::mem::size_of::<ffi::PyObject>());
        std::ptr::write_bytes(
            body,
            0,
            std::mem::size_of::<PyTensor>() - std::mem::size_of::<ffi::PyObject>(),
        );
        ffi::PyObject_Init(obj, tensor_type());
        ffi::PyObject_GC_Track(obj.cast());
        obj
    }
}

/// Keep the dead `_C.Tensor` `obj` for reuse; false when the list is full (the caller then frees
/// it).
///
/// # Safety
/// The GIL is held; `obj` is an exact `_C.Tensor` at the end of `tensor_dealloc`: untracked,
/// refcount 0, weak references, `__dict__` and tensor released.
#[inline(always)]
unsafe fn free_list_push(obj: *mut ffi::PyObject) -> bool {
    // SAFETY: contract.
    let fl = unsafe { free_list() };
    if fl.len == FREE_LIST_MAX {
        return false;
    }
    fl.items[fl.len] = obj;
    fl.len += 1;
    true
}

/// How many dead `_C.Tensor` objects the free list holds (`_C._tensor_free_list_len()`, for
/// tests).
pub fn free_list_len() -> usize {
    // SAFETY: bindings code runs with the GIL held; the reference is used for one read.
    unsafe { free_list().len }
}

/// Allocate an instance of `tp` (the tensor type or a subclass) holding `t`, which must not have
/// a Python object yet: a new reference. An exact `_C.Tensor` comes from the free list when it
/// has one (Note [PyTensor free list]).
///
/// # Safety
/// `tp` is `tensor_type()` or a ready subtype of it; the GIL is held.
pub unsafe fn alloc_with(tp: *mut ffi::PyTypeObject, t: Tensor) -> PyResult<ObjectPtr> {
    debug_assert!(
        t.pyobj().is_null(),
        "alloc_with: the tensor already has a Python object"
    );
    assert_gil_held();
    // SAFETY: `tp_alloc` of a ready type returns a zeroed new reference or NULL (MemoryError set);
    // a free-list object is the same (see `free_list_pop`).
    unsafe {
        let mut obj = null_mut();
        if tp == tensor_type() {
            obj = free_list_pop();
        } else {
            install_subclass_slots(tp);
        }
        if obj.is_null() {
            let alloc = (*tp).tp_alloc.unwrap_or(ffi::PyType_GenericAlloc);
            obj = alloc(tp, 0);
        }
        if obj.is_null() {
            return Err(BindError::Python); // `t` is dropped normally
        }
        t.set_pyobj(obj.cast(), false);
        let p = obj as *mut PyTensor;
        std::ptr::write(&raw mut (*p).cdata, ManuallyDrop::new(t));
        (*p).state = ObjState::Owned;
        Ok(ObjectPtr::steal(obj).expect("checked non-NULL"))
    }
}

/// The Python object for `t`: its existing object if it has one (a new reference; a preserved
/// object gets the tensor's own reference, handed over — Note [PyObject preservation]), else a
/// new `_C.Tensor` owning `t`.
pub fn wrap(t: Tensor) -> PyResult<ObjectPtr> {
    assert_gil_held();
    let existing = t.pyobj() as *mut ffi::PyObject;
    if existing.is_null() {
        // SAFETY: our own ready type; binding code runs with the GIL held.
        return unsafe { alloc_with(tensor_type(), t) };
    }
    // SAFETY: the slot holds a live `PyTensor` (Python keeps it alive, or the tensor owns a
    // reference to it); the GIL is held, which serialises the ownership flip.
    unsafe {
        let p = existing as *mut PyTensor;
        if t.owns_pyobj()
            && (*p).state == ObjState::Preserved
            && (*p).cdata.impl_ptr() == t.impl_ptr()
        {
            // Preserved → Owned: overwrite the borrowed handle with an owned one (same pointer,
            // one more count) and hand the tensor's reference to the caller.
            std::ptr::write(&raw mut (*p).cdata, ManuallyDrop::new(t.clone()));
            (*p).state = ObjState::Owned;
            t.set_pyobj(existing.cast(), false);
            return Ok(ObjectPtr::steal(existing).expect("non-NULL"));
        }
        // Python owns the object, or `t` is a forwarding tensor (its object holds another
        // tensor now): a new reference.
        Ok(ObjectPtr::borrow(existing))
    }
}

/// How many buffer exports of the tensor object `o`'s memory are open (`PyTensor::exports`).
///
/// # Safety
/// `o` is a live tensor object; the GIL is held.
pub unsafe fn export_count(o: Borrowed<'_>) -> u32 {
    // SAFETY: contract; the field is plain data in every state.
    unsafe { (*(o.as_ptr() as *mut PyTensor)).exports }
}

/// Give the tensor object `o` the tensor `t` in place of its current one (an `out=` tensor given
/// a new shape): the object keeps its identity, `__dict__` and `grad` (moved to `t`). The
/// replaced tensor is kept alive until no call that may borrow it is running (Note [Borrowed
/// tensors and replaced handles]), and forwards to the object for as long as it lives, so views
/// of it (`v._base`) still name `o`.
///
/// # Safety
/// `o` is a live tensor object borrowed from a caller who owns a reference to it; the GIL is
/// held; `t` has no Python object.
pub unsafe fn replace_tensor(o: Borrowed<'_>, t: Tensor) {
    assert_gil_held();
    let p = o.as_ptr() as *mut PyTensor;
    // SAFETY: contract; after `make_owned` the object is `Owned`, so `cdata` is an owned handle,
    // which we take out here and park.
    unsafe {
        make_owned(o);
        let old = ManuallyDrop::into_inner(std::ptr::read(&raw const (*p).cdata));
        old.transfer_grad_to(&t);
        t.set_pyobj(o.as_ptr().cast(), false);
        std::ptr::write(&raw mut (*p).cdata, ManuallyDrop::new(t));
        if old.pyobj() == o.as_ptr().cast() {
            // `old` forwards to the object from now on (views made of it, now or by a frame that
            // borrowed it before, name `o` as their base), owning a reference to it that its
            // release hook drops when it dies.
            ffi::Py_INCREF(o.as_ptr());
            old.set_pyobj(o.as_ptr().cast(), true);
        }
        call_scope::park(old);
    }
}

/// Enter state `Preserved` if Rust still holds the tensor of `slf`, whose refcount just reached
/// zero. Returns true when the object was preserved (the caller must then return at once).
///
/// A tensor held by nothing but its own gradient (`a.grad = a.view(...)`: the view's `_base` is
/// the tensor) is not preserved: nothing outside can reach it, so its gradient is dropped, which
/// breaks the cycle, and the object is freed.
///
/// # Safety
/// Called in a deallocator, with the GIL held, on a dead `PyTensor` (refcount 0).
unsafe fn try_preserve(slf: *mut ffi::PyObject) -> bool {
    // SAFETY: contract; `cdata` is an owned handle in state `Owned` (Note [Tensor in place]).
    unsafe {
        let p = slf as *mut PyTensor;
        if (*p).state != ObjState::Owned {
            return false;
        }
        let t: &Tensor = &(*p).cdata;
        if t.use_count() <= 1 || t.pyobj() != slf.cast() {
            return false;
        }
        let by_grad = t.handles_held_by_own_grad();
        if t.use_count() - by_grad <= 1 {
            // Only this tensor's own gradient holds it. `set_grad(None)` cannot fail.
            let _ = t.set_grad(None);
            return false;
        }
        if let Some(base) = grad_cycle_partner(t) {
            // The other half of the same cycle: this tensor is the gradient of its own base,
            // which nothing but this tensor holds. Dropping the base's gradient frees both.
            let _ = base.set_grad(None);
            return false;
        }
        // Resurrect: the reference taken here belongs to the tensor from now on.
        ffi::Py_INCREF(slf);
        t.set_pyobj(slf.cast(), true);
        (*p).state = ObjState::Preserved;
        // Give up the object's handle; `cdata` keeps the (now borrowed) pointer.
        drop(ManuallyDrop::into_inner(std::ptr::read(
            &raw const (*p).cdata,
        )));
        if ffi::PyObject_GC_IsTracked(slf) == 0 {
            ffi::PyObject_GC_Track(slf.cast());
        }
        true
    }
}

/// For a tensor `t` held only by its Python object and by its base's `grad` slot, where the base
/// is held only by `t` and its Python object (if any) by nothing but the base: that base. Such a
/// pair (`a.grad = a.view(...)`, then both objects dropped, the view's last) is a reference
/// cycle through Rust that nothing outside can reach.
///
/// # Safety
/// The GIL is held; `t` is the tensor of a dying object.
unsafe fn grad_cycle_partner(t: &Tensor) -> Option<Tensor> {
    let base = t.base()?;
    if t.use_count() != 2 || base.use_count() != t.handles_to(base) || !base.grad_is(t) {
        return None;
    }
    let obj = base.pyobj() as *mut ffi::PyObject;
    // Its object, if any, must be one only the base itself holds.
    // SAFETY: a non-NULL slot names a live object (the base owns it when `owns_pyobj`).
    let unreachable = obj.is_null() || base.owns_pyobj() && unsafe { ffi::Py_REFCNT(obj) } == 1;
    unreachable.then(|| base.clone())
}

/// The core's release hook (Note [PyObject preservation]): a tensor that owned a reference to its
/// Python object is dying, on any thread. A preserved object is re-homed on a fresh tensor first;
/// then the tensor's reference is dropped.
pub(crate) fn release_pyobj(obj: *mut c_void, dying: &mut Dying<'_>) {
    // SAFETY: `obj` is the `PyTensor` the dying tensor owns one reference to, so it is alive
    // until the `Py_DECREF` below. After interpreter finalisation the object is leaked (the
    // process is exiting; taking the GIL would hang).
    unsafe {
        if ffi::Py_IsInitialized() == 0 {
            return;
        }
        let gil = ffi::PyGILState_Ensure();
        assert_gil_held();
        let o = obj as *mut ffi::PyObject;
        let p = obj as *mut PyTensor;
        if (*p).state == ObjState::Preserved && (*p).cdata.impl_ptr() == dying.impl_ptr() {
            let fresh = dying.salvage();
            fresh.set_pyobj(obj, false);
            std::ptr::write(&raw mut (*p).cdata, ManuallyDrop::new(fresh));
            (*p).state = ObjState::Owned;
        }
        // Otherwise `dying` was a forwarding tensor: the object holds a tensor of its own.
        ffi::Py_DECREF(o);
        ffi::PyGILState_Release(gil);
    }
}

extern "C" {
    /// src/c/trashcan.c: run `body(op)` inside CPython's trashcan for the deallocator `dealloc`
    /// (`Py_TRASHCAN_BEGIN` / `Py_TRASHCAN_END`). When deallocations nest too deeply, `body` is
    /// not run now: `op` is parked and `Py_TYPE(op)->tp_dealloc(op)` is called again later.
    /// `op` must be untracked by the GC.
    fn tensorbind_trashcan(
        op: *mut ffi::PyObject,
        dealloc: unsafe extern "C" fn(*mut ffi::PyObject),
        body: unsafe extern "C" fn(*mut ffi::PyObject),
    );
}

/// `tp_dealloc` of `_C.Tensor` itself. No trashcan here: chains of exact tensors pass through a
/// `__dict__` (whose deallocator has one) or through `grad` (released iteratively by the core,
/// Note [Deep drops]), and the check would cost every result tensor's deallocation.
pub(crate) unsafe extern "C" fn tensor_dealloc(slf: *mut ffi::PyObject) {
    // SAFETY: CPython calls `tp_dealloc` once per death, with the GIL held, on a dead instance.
    unsafe {
        assert_gil_held();
        if try_preserve(slf) {
            return;
        }
        ffi::PyObject_GC_UnTrack(slf.cast());
        release_instance(slf);
    }
}

/// The base part of every deallocation, after preservation was ruled out and the object was
/// untracked: clear weak references and `__dict__`, release the tensor, free the memory (or keep
/// it on the free list). The order follows CPython's guidance for GC types.
///
/// # Safety
/// `slf` is a dead, untracked tensor object (refcount 0), GIL held.
unsafe fn release_instance(slf: *mut ffi::PyObject) {
    // SAFETY: contract; `cdata` is an owned handle in state `Owned` (the only state a dying
    // object can be in besides `Empty`: a preserved one is owned by its tensor, so never dies).
    unsafe {
        let p = slf as *mut PyTensor;
        if !(*p).weakrefs.is_null() {
            ffi::PyObject_ClearWeakRefs(slf);
        }
        let dict = std::mem::replace(&mut (*p).dict, null_mut());
        drop(ObjectPtr::steal(dict)); // owned reference released here (NULL is fine)
        if (*p).state == ObjState::Owned {
            (*p).state = ObjState::Empty;
            let t = ManuallyDrop::into_inner(std::ptr::read(&raw const (*p).cdata));
            if t.pyobj() == slf.cast() {
                t.set_pyobj(null_mut(), false);
            }
            drop(t);
        }
        let tp = ffi::Py_TYPE(slf);
        if tp == tensor_type() && free_list_push(slf) {
            return; // kept for reuse: Note [PyTensor free list]
        }
        let free = (*tp).tp_free.unwrap_or(ffi::PyObject_GC_Del);
        free(slf.cast());
    }
}

/// `tp_dealloc` of Python subclasses (installed by `install_subclass_slots`). CPython's
/// `subtype_dealloc` cannot be reused once a class's `tp_dealloc` is replaced (it finds "the base
/// deallocator" by skipping classes whose `tp_dealloc` is itself), so this is its 3.11 logic for
/// our case, with preservation first (PyTorch: `THPVariable_subclass_dealloc`): inside the
/// trashcan (chains of instances linked through `__slots__`), run a `__del__` finalizer, clear the
/// `__slots__` of each Python class down to `_C.Tensor`, release the instance, and release the
/// reference every instance of a heap type holds on its type.
unsafe extern "C" fn tensor_subclass_dealloc(slf: *mut ffi::PyObject) {
    // SAFETY: a dead instance of a Python subclass of `_C.Tensor` (a heap type with GC), called by
    // CPython with the GIL held (again by the trashcan if it parked the object).
    unsafe {
        if try_preserve(slf) {
            return;
        }
        ffi::PyObject_GC_UnTrack(slf.cast());
        tensorbind_trashcan(slf, tensor_subclass_dealloc, subclass_dealloc_body);
    }
}

/// The body of `tensor_subclass_dealloc`, run inside the trashcan.
unsafe extern "C" fn subclass_dealloc_body(slf: *mut ffi::PyObject) {
    // SAFETY: as `tensor_subclass_dealloc`; `slf` is untracked.
    unsafe {
        let tp = ffi::Py_TYPE(slf);
        if (*tp).tp_finalize.is_some() {
            // `__del__` runs with the object tracked and temporarily alive; it may resurrect it.
            ffi::PyObject_GC_Track(slf.cast());
            if ffi::PyObject_CallFinalizerFromDealloc(slf) < 0 {
                return; // resurrected by the finalizer
            }
            ffi::PyObject_GC_UnTrack(slf.cast());
            // The finalizer may have made Rust hold the tensor (`keep.append(self[0:1])`): then
            // the object is preserved after all, with its subclass and `__dict__`.
            if try_preserve(slf) {
                return;
            }
        }
        let mut base = tp;
        while !base.is_null() && base != tensor_type() {
            clear_slots(base, slf);
            base = (*base).tp_base;
        }
        release_instance(slf);
        // Every instance of a heap type owns a reference to its type; `_C.Tensor` is static.
        ffi::Py_DECREF(tp as *mut ffi::PyObject);
    }
}

/// The object-valued, writable `__slots__` members that the heap class `tp` adds (CPython's
/// `PyHeapType_GET_MEMBERS`: `Py_SIZE(tp)` member definitions follow the heap type object).
///
/// # Safety
/// `tp` is a live type object.
unsafe fn slot_members(tp: *mut ffi::PyTypeObject) -> &'static [ffi::PyMemberDef] {
    // SAFETY: contract; a heap type object is `Py_TYPE(tp)->tp_basicsize` bytes followed by its
    // member definitions, which live as long as the type (the caller uses them while it lives).
    unsafe {
        if (*tp).tp_flags & ffi::Py_TPFLAGS_HEAPTYPE == 0 {
            return &[];
        }
        let n = (*(tp as *mut ffi::PyVarObject)).ob_size.max(0) as usize;
        let members = (tp as *mut u8)
            .add((*ffi::Py_TYPE(tp as *mut ffi::PyObject)).tp_basicsize as usize)
            as *const ffi::PyMemberDef;
        std::slice::from_raw_parts(members, n)
    }
}

/// The address of each object-valued `__slots__` member of `obj` that the heap class `tp` adds.
///
/// # Safety
/// `tp` is a heap subclass of `_C.Tensor` in `obj`'s layout chain; `obj` is a live instance.
unsafe fn slot_addresses(
    tp: *mut ffi::PyTypeObject,
    obj: *mut ffi::PyObject,
) -> impl Iterator<Item = *mut *mut ffi::PyObject> {
    // SAFETY: contract: each `Py_T_OBJECT_EX` member is an owned reference or NULL at `offset`
    // inside `obj`.
    unsafe { slot_members(tp) }
        .iter()
        .filter(|m| m.type_code == ffi::Py_T_OBJECT_EX && m.flags & ffi::Py_READONLY == 0)
        .map(move |m| {
            // SAFETY: the member's offset lies inside `obj` (CPython laid the class out).
            unsafe { (obj as *mut u8).add(m.offset as usize) as *mut *mut ffi::PyObject }
        })
}

/// Release the object-valued `__slots__` that the heap class `tp` added to `obj`
/// (CPython's `clear_slots`).
///
/// # Safety
/// As `slot_addresses`; the GIL is held.
unsafe fn clear_slots(tp: *mut ffi::PyTypeObject, obj: *mut ffi::PyObject) {
    // SAFETY: contract; `Py_CLEAR` order: the slot is NULL before its reference is dropped.
    unsafe {
        for addr in slot_addresses(tp, obj) {
            let v = std::mem::replace(&mut *addr, null_mut());
            drop(ObjectPtr::steal(v)); // owned reference released (NULL is fine)
        }
    }
}

/// True while Rust holds (or owns) the tensor of the tensor object `slf`: the object is a root
/// for the GC, so traverse reports none of its references and clear clears nothing (torch's
/// rule: the references Rust holds are invisible to the GC, so it must not judge the object).
///
/// # Safety
/// `slf` is a live tensor object; GIL held.
unsafe fn held_by_rust(slf: *mut ffi::PyObject) -> bool {
    // SAFETY: contract; `cdata` is a valid handle in states `Owned` and `Preserved`.
    unsafe {
        let p = slf as *mut PyTensor;
        match (*p).state {
            ObjState::Owned => (*p).cdata.use_count() > 1,
            ObjState::Preserved => true,
            ObjState::Empty => false,
        }
    }
}

pub(crate) unsafe extern "C" fn tensor_traverse(
    slf: *mut ffi::PyObject,
    visit: ffi::visitproc,
    arg: *mut c_void,
) -> c_int {
    // SAFETY: called by the GC on a live instance; `dict` is an owned reference or NULL.
    unsafe {
        if held_by_rust(slf) {
            return 0;
        }
        let dict = (*(slf as *mut PyTensor)).dict;
        if !dict.is_null() {
            let r = visit(dict, arg);
            if r != 0 {
                return r;
            }
        }
        traverse_graph(slf, visit, arg)
    }
}

/// Note [Graphs and the cyclic GC] (graph_gc.rs): what the core tensor of an object Python
/// alone owns holds of Python through its autograd state.
///
/// # Safety
/// `tp_traverse` of a live instance that `held_by_rust` said Rust does not hold; GIL held.
unsafe fn traverse_graph(
    slf: *mut ffi::PyObject,
    visit: ffi::visitproc,
    arg: *mut c_void,
) -> c_int {
    // SAFETY: contract; an `Owned` object's `cdata` is a valid handle.
    unsafe {
        let p = slf as *mut PyTensor;
        if (*p).state != ObjState::Owned || (*p).cdata.autograd_meta().is_none() {
            return 0;
        }
        super::graph_gc::traverse_autograd(&(*p).cdata, visit, arg)
    }
}

/// The `tp_clear` counterpart of `traverse_graph`.
///
/// # Safety
/// As `traverse_graph`, from a `tp_clear`.
unsafe fn clear_graph(slf: *mut ffi::PyObject) {
    // SAFETY: contract; the handle is cloned so that nothing borrowed from the object is held
    // while Python code runs (dropping hooks may run `__del__`s).
    unsafe {
        let p = slf as *mut PyTensor;
        if (*p).state != ObjState::Owned || (*p).cdata.autograd_meta().is_none() {
            return;
        }
        // (`cdata` is a `ManuallyDrop`: clone the tensor, not the wrapper, so the clone drops.)
        let t: Tensor = Tensor::clone(&(*p).cdata);
        super::graph_gc::clear_autograd_owned(&t);
    }
}

pub(crate) unsafe extern "C" fn tensor_clear(slf: *mut ffi::PyObject) -> c_int {
    // SAFETY: called by the GC on a live instance; we release the dict we own (Py_CLEAR order:
    // the field is NULL before the reference is dropped). An object Rust holds keeps everything:
    // it will be preserved when its last Python reference goes.
    unsafe {
        if held_by_rust(slf) {
            return 0;
        }
        clear_graph(slf);
        let p = slf as *mut PyTensor;
        let dict = std::mem::replace(&mut (*p).dict, null_mut());
        drop(ObjectPtr::steal(dict));
    }
    0
}

/// `tp_traverse` of Python subclasses (PyTorch: `THPVariable_subclass_traverse`): nothing while
/// Rust holds the tensor; otherwise the `__slots__` of every Python class down to `_C.Tensor`,
/// the `__dict__`, and the (heap) type, as CPython's `subtype_traverse`.
unsafe extern "C" fn tensor_subclass_traverse(
    slf: *mut ffi::PyObject,
    visit: ffi::visitproc,
    arg: *mut c_void,
) -> c_int {
    // SAFETY: called by the GC on a live instance of a heap subclass; slot values and the dict
    // are owned references or NULL.
    unsafe {
        if held_by_rust(slf) {
            return 0;
        }
        let tp = ffi::Py_TYPE(slf);
        let mut base = tp;
        while !base.is_null() && base != tensor_type() {
            for addr in slot_addresses(base, slf) {
                if !(*addr).is_null() {
                    let r = visit(*addr, arg);
                    if r != 0 {
                        return r;
                    }
                }
            }
            base = (*base).tp_base;
        }
        let dict = (*(slf as *mut PyTensor)).dict;
        if !dict.is_null() {
            let r = visit(dict, arg);
            if r != 0 {
                return r;
            }
        }
        let r = traverse_graph(slf, visit, arg);
        if r != 0 {
            return r;
        }
        visit(tp as *mut ffi::PyObject, arg)
    }
}

/// `tp_clear` of Python subclasses: nothing while Rust holds the tensor; otherwise the
/// `__slots__` and the `__dict__` (CPython's `subtype_clear`).
unsafe extern "C" fn tensor_subclass_clear(slf: *mut ffi::PyObject) -> c_int {
    // SAFETY: called by the GC on a live instance of a heap subclass.
    unsafe {
        if held_by_rust(slf) {
            return 0;
        }
        let mut base = ffi::Py_TYPE(slf);
        while !base.is_null() && base != tensor_type() {
            clear_slots(base, slf);
            base = (*base).tp_base;
        }
        tensor_clear(slf)
    }
}

/// Give the Python subclass `tp` of `_C.Tensor` our deallocator, traverse and clear (CPython gave
/// it `subtype_dealloc`, `subtype_traverse` and `subtype_clear`, which know nothing of
/// preservation). Idempotent; called when the metaclass makes a class and, for classes made
/// without it (`type.__new__` called directly), whenever an instance is allocated (every
/// instance is made by `alloc_with`, so before the first one exists).
///
/// # Safety
/// `tp` is a ready subtype of `_C.Tensor`; GIL held.
#[inline]
unsafe fn install_subclass_slots(tp: *mut ffi::PyTypeObject) {
    // SAFETY: contract; a heap type's slots are ours to set before instances exist (and the
    // functions installed are right for every instance of such a class).
    unsafe {
        if (*tp).tp_flags & ffi::Py_TPFLAGS_HEAPTYPE == 0 {
            return;
        }
        (*tp).tp_dealloc = Some(tensor_subclass_dealloc);
        (*tp).tp_traverse = Some(tensor_subclass_traverse);
        (*tp).tp_clear = Some(tensor_subclass_clear);
    }
}

/// `_C._TensorMeta.__new__`: `type.__new__`, then give a new subclass of `_C.Tensor` our
/// deallocator, traverse and clear (Note [PyObject preservation]).
pub(crate) unsafe extern "C" fn tensor_meta_new(
    meta: *mut ffi::PyTypeObject,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: CPython calls `tp_new` with a metatype, an argument tuple and a dict or NULL;
        // `type.__new__` returns a new reference or NULL with an error set.
        unsafe {
            let type_new = (*addr_of_mut!(ffi::PyType_Type))
                .tp_new
                .ok_or_else(|| super::errors::runtime_error("type has no tp_new"))?;
            let cls = ObjectPtr::steal_or_err(type_new(meta, args, kwargs))?;
            let tp = cls.as_ptr() as *mut ffi::PyTypeObject;
            if ffi::PyType_Check(cls.as_ptr()) != 0 && ffi::PyType_IsSubtype(tp, tensor_type()) != 0
            {
                install_subclass_slots(tp);
            }
            Ok(cls.release())
        }
    })
}
