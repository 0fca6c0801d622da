//! src/bindings/tensor_object.rs: `_C.Tensor`, the Python object that holds a core `Tensor` in
//! place (PyTorch: `THPVariable` in `python_variable.cpp`), its static `PyTypeObject`, the
//! metaclass that gives Python subclasses their deallocator, and `wrap` / `unpack`.
//!
//! Note [Tensor in place]: a `PyTensor` stores its `Tensor` handle *inside* the Python object
//! (`cdata`), not behind a pointer to a heap box. `tp_alloc` returns zeroed memory, so `cdata` is
//! initialised with `ptr::write` and released by hand (it is `ManuallyDrop`), exactly once, and
//! only while the object owns it (`owns_cdata`). Objects are published (returned or stored) only
//! after the write.
//!
//! Note [PyObject preservation]
//! One core tensor (`TensorImpl`) has at most one Python object, recorded in the tensor's opaque
//! slot (core Note [PyObject slot]); `wrap` returns that object instead of making a new one, so
//! identity holds with no global map. Who owns whom is one of three states:
//!
//! 1. Python owns the object (the normal state). The object holds a strong handle to the tensor
//!    (`cdata`, `owns_cdata = true`); the tensor's slot points back at the object *without* a
//!    reference (`owned = false`). Rust code may hold more handles to the tensor (a view's
//!    `_base`, a `grad` slot).
//! 2. The tensor owns the object (preserved). Entered from `tp_dealloc` when Python drops the
//!    last reference while Rust still holds the tensor (`use_count() > 1`): instead of dying, the
//!    object takes back one reference, which now belongs to the tensor (`owned = true`), and it
//!    gives up its own handle (`owns_cdata = false`; `cdata` keeps the pointer, now borrowed —
//!    valid because the tensor, which owns the object, outlives it). `__dict__`, weak references
//!    and the subclass survive. The GC sees a refcount it cannot explain, so it never collects a
//!    preserved object, and `tp_traverse` does not report the references of an object Rust
//!    still holds (torch's rule), so the GC cannot clear its `__dict__` either.
//!    - Back to state 1 when `wrap` meets the tensor again: the tensor's reference is handed to
//!      the caller, and the object takes a handle again.
//!    - To state 3 when the tensor dies (its last Rust handle is dropped, on any thread): the
//!      core calls `release_pyobj`, which takes the GIL and drops the tensor's reference; the
//!      object is freed, its weakref callbacks run, and its deallocator, seeing
//!      `owns_cdata = false`, leaves the dying tensor alone.
//! 3. Freed: `tp_dealloc` in state 1 with no other Rust handle clears the tensor's slot and
//!    drops the handle (which may free the tensor).
//!
//! Every transition runs with the GIL held (`release_pyobj` takes it first), and the GIL
//! serialises them; the counts read (`use_count`) can only grow from another thread through a
//! handle that thread already has, which makes "no other handle" stable once observed under the
//! GIL. Python subclasses get `tensor_subclass_dealloc` from the metaclass `_C._TensorMeta`,
//! which decides preservation *before* CPython's `subtype_dealloc` clears `__slots__` and
//! releases the type (resurrecting after that would corrupt both).

//!
//! Note [PyTensor free list]
//! Like CPython's float and list free lists, up to `FREE_LIST_MAX` dead objects of the exact
//! type `_C.Tensor` are kept for reuse, so a result tensor skips `PyType_GenericAlloc` (pymalloc,
//! GC link) and `PyObject_GC_Del`. An object enters the list at the very end of
//! `tensor_dealloc`, after it was untracked, its weak references and `__dict__` cleared and its
//! tensor released: it is a dead, untracked allocation with refcount 0 that nothing refers to.
//! Preserved objects (state 2) never die, so never enter it, and subclass instances (which own
//! a reference to their heap type and have other sizes) never use it. `alloc_with` takes one for
//! `tensor_type()`, zeroes the body as `tp_alloc` would, and revives it with `PyObject_Init`
//! (`_Py_NewReference`: refcount 1, and `_Py_RefTotal` in debug builds, so
//! `sys.gettotalrefcount` balances exactly as for a fresh allocation) and `PyObject_GC_Track`.
//! All of it runs with the GIL held, which serialises the list. It is emptied and closed when the
//! module is freed (`m_free` → `close_free_list`); objects dying after that are freed normally.

use super::errors::{BindError, PyResult};
use super::object_ptr::{Borrowed, ObjectPtr};
use crate::core::Tensor;
use pyo3_ffi as ffi;
use std::ffi::{c_int, c_void};
use std::mem::ManuallyDrop;
use std::ptr::{addr_of_mut, null_mut};

/// The object layout of `_C.Tensor` and of every Python subclass (which appends its own slots
/// after it).
#[repr(C)]
pub struct PyTensor {
    pub ob_base: ffi::PyObject,
    /// The core tensor handle, in place. Owned (holding a count) while `owns_cdata`; borrowed
    /// while the tensor owns this object. See Notes [Tensor in place], [PyObject preservation].
    pub cdata: ManuallyDrop<Tensor>,
    pub owns_cdata: bool,
    /// The instance `__dict__`, created lazily by CPython (`tp_dictoffset`); owned, or NULL.
    pub dict: *mut ffi::PyObject,
    /// The weak-reference list head (`tp_weaklistoffset`); managed by CPython.
    pub weakrefs: *mut ffi::PyObject,
}

// Pin the layout (nanobind's habit): 16-byte header, the handle, the flag, then two pointers.
const _: () = assert!(std::mem::offset_of!(PyTensor, cdata) == 16);
const _: () = assert!(std::mem::size_of::<ManuallyDrop<Tensor>>() == 8);
const _: () = assert!(std::mem::offset_of!(PyTensor, dict) == 32);
const _: () = assert!(std::mem::offset_of!(PyTensor, weakrefs) == 40);
const _: () = assert!(std::mem::size_of::<PyTensor>() == 48);

/// The `_C.Tensor` type object, filled in by `init`.
static mut TENSOR_TYPE: ffi::PyTypeObject = {
    // SAFETY: an all-zero `PyTypeObject` is the documented "empty" static type; `init` fills it.
    unsafe { std::mem::zeroed() }
};

/// The metaclass of `_C.Tensor` (a subclass of `type`), filled in by `init`.
static mut TENSOR_META_TYPE: ffi::PyTypeObject = {
    // SAFETY: as above.
    unsafe { std::mem::zeroed() }
};

/// The type object (borrowed, static).
#[inline(always)]
pub fn tensor_type() -> *mut ffi::PyTypeObject {
    addr_of_mut!(TENSOR_TYPE)
}

/// True when `o` is a `_C.Tensor` or an instance of a subclass (exact type checked first).
#[inline(always)]
pub fn is_tensor(o: Borrowed<'_>) -> bool {
    let tp = o.type_ptr();
    // SAFETY: `PyType_IsSubtype` reads the MRO of a live type.
    tp == tensor_type() || unsafe { ffi::PyType_IsSubtype(tp, tensor_type()) != 0 }
}

/// The core tensor inside `o`, borrowed for as long as `o` is borrowed.
///
/// # Safety
/// `o` must be a tensor (`is_tensor(o)`).
#[inline(always)]
pub unsafe fn tensor_ref<'a>(o: Borrowed<'a>) -> &'a Tensor {
    // SAFETY: `o` is a live `PyTensor` (contract) whose `cdata` is initialised (Note [Tensor in
    // place]) and points at a live tensor in both ownership states (Note [PyObject
    // preservation]); the reference lives no longer than the borrow of `o`.
    unsafe { &(*(o.as_ptr() as *mut PyTensor)).cdata }
}

/// The core tensor inside `o`, or `None` if `o` is not a tensor.
#[inline(always)]
pub fn unpack<'a>(o: Borrowed<'a>) -> Option<&'a Tensor> {
    if is_tensor(o) {
        // SAFETY: checked just above.
        Some(unsafe { tensor_ref(o) })
    } else {
        None
    }
}

/// Most dead `_C.Tensor` objects kept for reuse (Note [PyTensor free list]); 48-byte objects,
/// so at most 8 KB with their GC headers.
pub const FREE_LIST_MAX: usize = 128;

/// The free list: `items[..len]` are dead, untracked `_C.Tensor` allocations.
struct FreeList {
    items: [*mut ffi::PyObject; FREE_LIST_MAX],
    len: usize,
    /// Set by `close_free_list` (module teardown): no more objects are kept.
    closed: bool,
}

struct FreeListCell(std::cell::UnsafeCell<FreeList>);
// SAFETY: the list is only read or written with the GIL held (allocation and deallocation of
// Python objects), which serialises every access; the pointers it holds are owned by it.
unsafe impl Sync for FreeListCell {}

static FREE_LIST: FreeListCell = FreeListCell(std::cell::UnsafeCell::new(FreeList {
    items: [null_mut(); FREE_LIST_MAX],
    len: 0,
    closed: false,
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

/// Keep the dead `_C.Tensor` `obj` for reuse; false when the list is full or closed (the caller
/// then frees it).
///
/// # Safety
/// The GIL is held; `obj` is an exact `_C.Tensor` at the end of `tensor_dealloc`: untracked,
/// refcount 0, weak references, `__dict__` and tensor released.
#[inline(always)]
unsafe fn free_list_push(obj: *mut ffi::PyObject) -> bool {
    // SAFETY: contract.
    let fl = unsafe { free_list() };
    if fl.closed || fl.len == FREE_LIST_MAX {
        return false;
    }
    fl.items[fl.len] = obj;
    fl.len += 1;
    true
}

/// Free every kept object and keep none from now on (module teardown, `m_free`).
///
/// # Safety
/// The GIL is held.
pub unsafe fn close_free_list() {
    // SAFETY: GIL held (contract); each entry is a dead, untracked GC allocation that only the
    // list refers to, freed with the deallocator `tp_free` would use.
    unsafe {
        let fl = free_list();
        fl.closed = true;
        while fl.len > 0 {
            fl.len -= 1;
            ffi::PyObject_GC_Del(fl.items[fl.len].cast());
        }
    }
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
    // SAFETY: `tp_alloc` of a ready type returns a zeroed new reference or NULL (MemoryError set);
    // a free-list object is the same (see `free_list_pop`).
    unsafe {
        let mut obj = null_mut();
        if tp == tensor_type() {
            obj = free_list_pop();
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
        (*p).owns_cdata = true;
        Ok(ObjectPtr::steal(obj).expect("checked non-NULL"))
    }
}

/// The Python object for `t`: its existing object if it has one (state 1: a new reference to
/// it; state 2: the tensor's own reference, handed over — Note [PyObject preservation]), else a
/// new `_C.Tensor` owning `t`.
pub fn wrap(t: Tensor) -> PyResult<ObjectPtr> {
    let existing = t.pyobj() as *mut ffi::PyObject;
    if existing.is_null() {
        // SAFETY: our own ready type; binding code runs with the GIL held.
        return unsafe { alloc_with(tensor_type(), t) };
    }
    // SAFETY: the slot holds a live `PyTensor` (in state 1 Python keeps it alive, in state 2 the
    // tensor owns it); the GIL is held, which serialises the ownership flip.
    unsafe {
        if t.owns_pyobj() {
            let p = existing as *mut PyTensor;
            // Overwrite the borrowed handle with an owned one (same pointer, one more count).
            std::ptr::write(&raw mut (*p).cdata, ManuallyDrop::new(t.clone()));
            (*p).owns_cdata = true;
            t.set_pyobj(existing.cast(), false);
            Ok(ObjectPtr::steal(existing).expect("non-NULL")) // the tensor's reference, handed over
        } else {
            Ok(ObjectPtr::borrow(existing))
        }
    }
}

/// Replace the tensor inside the live tensor object `o` with `t` (an `out=` tensor resized to a
/// new shape): the old tensor forgets the object, `t` records it.
///
/// # Safety
/// `o` is a live tensor object owned by Python (state 1), the GIL is held, and no Rust reference
/// into its `cdata` is in use.
pub unsafe fn replace_tensor(o: Borrowed<'_>, t: Tensor) {
    // SAFETY: contract: state 1, so `cdata` is an owned handle we may drop after the swap.
    unsafe {
        let p = o.as_ptr() as *mut PyTensor;
        let old = ManuallyDrop::into_inner(std::ptr::read(&(*p).cdata));
        if old.pyobj() == o.as_ptr().cast() {
            old.set_pyobj(null_mut(), false);
        }
        t.set_pyobj(o.as_ptr().cast(), false);
        std::ptr::write(&raw mut (*p).cdata, ManuallyDrop::new(t));
        drop(old);
    }
}

/// Enter state 2 if Rust still holds the tensor of `slf`, whose refcount just reached zero.
/// Returns true when the object was preserved (the caller must then return at once).
///
/// # Safety
/// Called first thing in a deallocator, with the GIL held, on a dead `PyTensor`.
unsafe fn try_preserve(slf: *mut ffi::PyObject) -> bool {
    // SAFETY: contract; `cdata` is valid when `owns_cdata` (Note [Tensor in place]).
    unsafe {
        let p = slf as *mut PyTensor;
        if !(*p).owns_cdata {
            return false; // state 2 → 3: the tensor is dying and released us
        }
        let t: &Tensor = &(*p).cdata;
        if t.use_count() <= 1 || t.pyobj() != slf.cast() {
            return false;
        }
        // Resurrect: the reference taken here belongs to the tensor from now on.
        ffi::Py_INCREF(slf);
        t.set_pyobj(slf.cast(), true);
        (*p).owns_cdata = false;
        // Give up the object's handle; `cdata` keeps the (now borrowed) pointer.
        drop(ManuallyDrop::into_inner(std::ptr::read(&(*p).cdata)));
        true
    }
}

/// The core's release hook (Note [PyObject preservation], state 2 → 3): drop the reference a
/// dying tensor owned, on any thread.
fn release_pyobj(p: *mut c_void) {
    // SAFETY: `p` is the `PyTensor` the dying tensor owned one reference to. After interpreter
    // finalisation the object is leaked (the process is exiting; taking the GIL would hang).
    unsafe {
        if ffi::Py_IsInitialized() == 0 {
            return;
        }
        let gil = ffi::PyGILState_Ensure();
        ffi::Py_DECREF(p as *mut ffi::PyObject);
        ffi::PyGILState_Release(gil);
    }
}

/// `tp_dealloc` of `_C.Tensor` itself, and the base part of every subclass's deallocation.
unsafe extern "C" fn tensor_dealloc(slf: *mut ffi::PyObject) {
    // Never unwinds: dropping a `Tensor` does not panic.
    // SAFETY: CPython calls `tp_dealloc` once per death, on a dead instance of this type (or of a
    // subclass, after `tensor_subclass_dealloc` and `subtype_dealloc` ran). The order follows
    // CPython's guidance for GC types: untrack, clear weakrefs, clear the dict, drop, free.
    unsafe {
        if ffi::Py_TYPE(slf) == tensor_type() && try_preserve(slf) {
            return;
        }
        ffi::PyObject_GC_UnTrack(slf.cast());
        let p = slf as *mut PyTensor;
        if !(*p).weakrefs.is_null() {
            ffi::PyObject_ClearWeakRefs(slf);
        }
        let dict = std::mem::replace(&mut (*p).dict, null_mut());
        drop(ObjectPtr::steal(dict)); // owned reference released here (NULL is fine)
        if (*p).owns_cdata {
            (*p).owns_cdata = false;
            let t = ManuallyDrop::into_inner(std::ptr::read(&(*p).cdata));
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

/// `tp_dealloc` of Python subclasses (installed by the metaclass). CPython's `subtype_dealloc`
/// cannot be reused once a class's `tp_dealloc` is replaced (it finds "the base deallocator" by
/// skipping classes whose `tp_dealloc` is itself), so this is its 3.11 logic for our case, with
/// preservation first (PyTorch: `THPVariable_subclass_dealloc`): run a `__del__` finalizer,
/// clear the `__slots__` of each Python class down to `_C.Tensor`, run `tensor_dealloc`, and
/// release the reference every instance of a heap type holds on its type.
unsafe extern "C" fn tensor_subclass_dealloc(slf: *mut ffi::PyObject) {
    // SAFETY: a dead instance of a Python subclass of `_C.Tensor` (a heap type with GC), called
    // once per death by CPython with the GIL held.
    unsafe {
        if try_preserve(slf) {
            return;
        }
        let tp = ffi::Py_TYPE(slf);
        ffi::PyObject_GC_UnTrack(slf.cast());
        if (*tp).tp_finalize.is_some() {
            // `__del__` runs with the object tracked and temporarily alive; it may resurrect it.
            ffi::PyObject_GC_Track(slf.cast());
            if ffi::PyObject_CallFinalizerFromDealloc(slf) < 0 {
                return; // resurrected by the finalizer
            }
            ffi::PyObject_GC_UnTrack(slf.cast());
        }
        let mut base = tp;
        while !base.is_null() && base != tensor_type() {
            clear_slots(base, slf);
            base = (*base).tp_base;
        }
        tensor_dealloc(slf);
        // Every instance of a heap type owns a reference to its type; `_C.Tensor` is static.
        ffi::Py_DECREF(tp as *mut ffi::PyObject);
    }
}

/// Release the object-valued `__slots__` that the heap class `tp` added to `obj`
/// (CPython's `clear_slots`; the members follow the heap type object, `Py_SIZE(tp)` of them).
///
/// # Safety
/// `tp` is a heap subclass of `_C.Tensor` in `obj`'s MRO; `obj` is a dying instance.
unsafe fn clear_slots(tp: *mut ffi::PyTypeObject, obj: *mut ffi::PyObject) {
    // SAFETY: contract. A heap type object is `Py_TYPE(tp)->tp_basicsize` bytes followed by its
    // `Py_SIZE(tp)` member definitions (`PyHeapType_GET_MEMBERS`); each `Py_T_OBJECT_EX` member
    // is an owned reference or NULL at `offset` inside `obj`.
    unsafe {
        if (*tp).tp_flags & ffi::Py_TPFLAGS_HEAPTYPE == 0 {
            return;
        }
        let n = (*(tp as *mut ffi::PyVarObject)).ob_size;
        let members = (tp as *mut u8)
            .add((*ffi::Py_TYPE(tp as *mut ffi::PyObject)).tp_basicsize as usize)
            as *const ffi::PyMemberDef;
        for i in 0..n.max(0) as usize {
            let m = &*members.add(i);
            if m.type_code == ffi::Py_T_OBJECT_EX && m.flags & ffi::Py_READONLY == 0 {
                let addr = (obj as *mut u8).add(m.offset as usize) as *mut *mut ffi::PyObject;
                let v = std::mem::replace(&mut *addr, null_mut());
                drop(ObjectPtr::steal(v)); // owned reference released (NULL is fine)
            }
        }
    }
}

/// `_C._TensorMeta.__init__`: `type.__init__`, then install `tensor_subclass_dealloc` on the new
/// class (CPython gave it `subtype_dealloc`).
unsafe extern "C" fn tensor_meta_init(
    cls: *mut ffi::PyObject,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> c_int {
    // SAFETY: CPython calls `tp_init` with a new class object made by `type.__new__`.
    unsafe {
        let base_init = (*addr_of_mut!(ffi::PyType_Type))
            .tp_init
            .expect("type has tp_init");
        if base_init(cls, args, kwargs) < 0 {
            return -1;
        }
        // Only classes made by `type.__new__` deriving from `_C.Tensor` come here (this is the
        // metaclass of `_C.Tensor`); they are heap types with CPython's `subtype_dealloc`.
        let tp = cls as *mut ffi::PyTypeObject;
        if (*tp).tp_flags & ffi::Py_TPFLAGS_HEAPTYPE != 0
            && ffi::PyType_IsSubtype(tp, tensor_type()) != 0
        {
            (*tp).tp_dealloc = Some(tensor_subclass_dealloc);
        }
    }
    0
}

unsafe extern "C" fn tensor_traverse(
    slf: *mut ffi::PyObject,
    visit: ffi::visitproc,
    arg: *mut std::ffi::c_void,
) -> c_int {
    // SAFETY: called by the GC on a live instance; `dict` is an owned reference or NULL.
    unsafe {
        let p = slf as *mut PyTensor;
        // An object Rust still holds (or owns) is a root: report none of its references, so the
        // GC never clears a `__dict__` that preservation must keep (torch's rule).
        if !(*p).owns_cdata || (*p).cdata.use_count() > 1 {
            return 0;
        }
        let dict = (*p).dict;
        if !dict.is_null() {
            let r = visit(dict, arg);
            if r != 0 {
                return r;
            }
        }
        // A heap subclass's type is visited by `subtype_traverse`, not here.
    }
    0
}

unsafe extern "C" fn tensor_clear(slf: *mut ffi::PyObject) -> c_int {
    // SAFETY: called by the GC on a live instance; we release the dict we own (Py_CLEAR order:
    // the field is NULL before the reference is dropped).
    unsafe {
        let p = slf as *mut PyTensor;
        let dict = std::mem::replace(&mut (*p).dict, null_mut());
        drop(ObjectPtr::steal(dict));
    }
    0
}

unsafe extern "C" fn tensor_repr(slf: *mut ffi::PyObject) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: `tp_repr` is called with a live instance of this type.
        let t = unsafe { tensor_ref(Borrowed::from_ptr(slf)) };
        super::convert::py_str(&crate::core::ops::format_tensor(t, "_C")).map(ObjectPtr::release)
    })
}

unsafe extern "C" fn tensor_hash(slf: *mut ffi::PyObject) -> ffi::Py_hash_t {
    // Identity hash, as torch's `Tensor.__hash__` (`id(self)`); never -1.
    let h = (slf as usize).rotate_right(4) as ffi::Py_hash_t;
    if h == -1 {
        -2
    } else {
        h
    }
}

const TENSOR_DOC: &std::ffi::CStr = c"Tensor(data=None) -> Tensor\n\n\
A multi-dimensional, strided array of one dtype (PyTorch: torch.Tensor).\n\n\
Calling the type mirrors torch's legacy constructor: Tensor() is an empty float32 tensor,\n\
Tensor(sequence) builds a float32 tensor from nested lists/tuples of numbers, and\n\
Tensor(d0, d1, ...) a zero-filled float32 tensor of that shape. Prefer _C.tensor() and the\n\
factories (_C.zeros, _C.ones, _C.full, _C.arange, ...).\n\n\
Raises TypeError for other argument types and ValueError for ragged nested sequences.";

/// Method, getter and slot tables of `_C.Tensor`, built once by `init` from the generated table
/// and the hand-written entries, then owned by the type for the life of the process.
///
/// # Safety
/// Called once, with the GIL held, from `PyInit__C`.
pub unsafe fn init(module: *mut ffi::PyObject) -> PyResult<()> {
    let mut methods: Vec<ffi::PyMethodDef> = Vec::new();
    methods.extend_from_slice(super::generated::tensor_methods());
    methods.extend(super::tensor_methods::hand_written_methods());
    methods.push(ffi::PyMethodDef::zeroed());
    let methods = Box::leak(methods.into_boxed_slice());
    let getset = Box::leak(super::tensor_methods::getset_table().into_boxed_slice());
    crate::core::tensor::set_pyobj_release_hook(release_pyobj);
    // SAFETY: single-threaded initialisation under the GIL; the statics are not yet shared.
    unsafe {
        // The metaclass: `type` plus an `__init__` that gives Python subclasses
        // `tensor_subclass_dealloc` (Note [PyObject preservation]). Sizes, flags and GC support
        // are inherited from `type`.
        let meta = addr_of_mut!(TENSOR_META_TYPE);
        (*meta).tp_name = c"_C._TensorMeta".as_ptr();
        (*meta).tp_flags = ffi::Py_TPFLAGS_DEFAULT | ffi::Py_TPFLAGS_BASETYPE;
        (*meta).tp_doc = c"The metaclass of _C.Tensor: type, plus the deallocator that lets Python subclasses take part in PyObject preservation.".as_ptr();
        (*meta).tp_base = addr_of_mut!(ffi::PyType_Type);
        (*meta).tp_init = Some(tensor_meta_init);
        if ffi::PyType_Ready(meta) < 0 {
            return Err(BindError::Python);
        }
        super::convert::add_object(
            module,
            "_TensorMeta",
            ObjectPtr::borrow(meta as *mut ffi::PyObject),
        )?;
        let t = tensor_type();
        // Py_SET_TYPE (absent from pyo3-ffi for 3.11): the static type's own type is the
        // metaclass, so classes deriving from it are made by the metaclass.
        (*t).ob_base.ob_base.ob_type = meta;
        (*t).tp_name = c"_C.Tensor".as_ptr();
        (*t).tp_basicsize = std::mem::size_of::<PyTensor>() as ffi::Py_ssize_t;
        (*t).tp_flags =
            ffi::Py_TPFLAGS_DEFAULT | ffi::Py_TPFLAGS_BASETYPE | ffi::Py_TPFLAGS_HAVE_GC;
        (*t).tp_doc = TENSOR_DOC.as_ptr();
        (*t).tp_dealloc = Some(tensor_dealloc);
        (*t).tp_traverse = Some(tensor_traverse);
        (*t).tp_clear = Some(tensor_clear);
        (*t).tp_repr = Some(tensor_repr);
        (*t).tp_hash = Some(tensor_hash);
        (*t).tp_richcompare = Some(super::number::tensor_richcompare);
        (*t).tp_as_number = super::number::number_methods();
        (*t).tp_as_mapping = super::mapping::mapping_methods();
        (*t).tp_iter = Some(super::tensor_methods::tensor_iter);
        (*t).tp_dictoffset = std::mem::offset_of!(PyTensor, dict) as ffi::Py_ssize_t;
        (*t).tp_weaklistoffset = std::mem::offset_of!(PyTensor, weakrefs) as ffi::Py_ssize_t;
        (*t).tp_methods = methods.as_mut_ptr();
        (*t).tp_getset = getset.as_mut_ptr();
        (*t).tp_new = Some(super::tensor_new::tensor_type_new);
        (*t).tp_alloc = Some(ffi::PyType_GenericAlloc);
        (*t).tp_free = Some(ffi::PyObject_GC_Del);
        if ffi::PyType_Ready(t) < 0 {
            return Err(BindError::Python);
        }
        super::convert::add_object(module, "Tensor", ObjectPtr::borrow(t as *mut ffi::PyObject))
    }
}
