//! src/bindings/node_object.rs: the Python objects of autograd graph nodes — `t.grad_fn`
//! (PyTorch: `THPCppFunction`, python_cpp_function.h): `name()`, `next_functions`, `metadata`,
//! `_saved_*` attributes, `AccumulateGrad.variable`, `_sequence_nr`; one object per node,
//! preserved like tensors' (Note [Node objects]).
//!
//! Layer 1 (objects): see src/bindings/mod.rs.

use super::convert::{py_int, py_str, scalar_to_py};
use super::errors::PyResult;
use super::gil::assert_gil_held;
use super::object_ptr::{none, ObjectPtr};
use super::static_type::{
    getter, method_noargs, method_o, StaticType, TypeSpec, GETSET_END, METHODS_END,
};
use super::tensor_object::wrap;
use crate::core::autograd::node::set_node_pyobj_release_hook;
use crate::core::autograd::Node;
use pyo3_ffi as ffi;
use std::ffi::{c_int, c_void};
use std::ptr::{addr_of_mut, null_mut};
use std::sync::Arc;

// Note [Node objects]
// ~~~~~~~~~~~~~~~~~~~
// A node has at most one Python object, recorded in the node's opaque slot (as a tensor's, core
// Note [PyObject slot]): `wrap_node` returns it, so `y.grad_fn is y.grad_fn` and attributes
// put in `metadata` stay. While Python holds the object, the object holds the node (`node` is
// `Some`) and the slot names the object (bit 0 clear). When the last Python reference goes
// while the graph still holds the node, the deallocator *preserves* the object: it takes a
// reference back (the node owns it now: slot bit 0 set) and drops its own handle to the node,
// so there is no cycle; the next `wrap_node` hands that reference back to Python and re-arms
// the handle. When a node that owns its object dies, the release hook (installed at init)
// drops the reference under the GIL, and the object is freed. The object is a GC type: its
// traverse visits `metadata`, so cycles through the dict and Python objects are collectable
// and so are cycles through the Rust graph (`grad_fn.metadata["t"] = t`, hooks capturing their
// tensor): bindings Note [Graphs and the cyclic GC] (graph_gc.rs).

/// `_C._FunctionBase` instance: a node's Python object.
#[repr(C)]
pub struct PyNode {
    ob_base: ffi::PyObject,
    /// The node while Python owns this object; None while preserved (owned by the node).
    node: Option<Arc<Node>>,
    /// `metadata` (a dict, created on first use; owned).
    metadata: *mut ffi::PyObject,
}

static NODE_TYPE: StaticType = StaticType::new();

/// The type of node objects (borrowed, static).
pub fn node_type() -> *mut ffi::PyTypeObject {
    NODE_TYPE.as_ptr()
}

/// Bit 0 of a node's slot: the node owns its (preserved) object (graph_gc.rs reads it too).
const OWNED: usize = super::graph_gc::OWNED;

/// The Python object of `node` (new reference): the existing one if any (Note [Node objects]).
pub fn wrap_node(node: &Arc<Node>) -> PyResult<ObjectPtr> {
    assert_gil_held();
    let slot = node.pyobj();
    if slot != 0 {
        let obj = (slot & !OWNED) as *mut ffi::PyObject;
        if slot & OWNED != 0 {
            // Preserved: the node's reference becomes the caller's; the object holds the node
            // again.
            // SAFETY: a slot with OWNED names a live preserved `PyNode` the node holds one
            // reference to; the GIL is held.
            unsafe {
                (*(obj as *mut PyNode)).node = Some(node.clone());
                node.set_pyobj(obj as usize);
                return ObjectPtr::steal_or_err(obj);
            }
        }
        // SAFETY: a slot without OWNED names the live object that holds this node.
        return Ok(unsafe { ObjectPtr::borrow(obj) });
    }
    // SAFETY: allocating an instance of our readied static type under the GIL.
    unsafe {
        let obj = ffi::PyType_GenericAlloc(node_type(), 0);
        let obj = ObjectPtr::steal_or_err(obj)?;
        let p = obj.as_ptr() as *mut PyNode;
        std::ptr::write(&raw mut (*p).node, Some(node.clone()));
        (*p).metadata = null_mut();
        node.set_pyobj(obj.as_ptr() as usize);
        Ok(obj)
    }
}

/// The node of a node object (borrowed from it).
///
/// # Safety
/// `slf` is a live `PyNode` held by Python (so `node` is `Some`), GIL held.
unsafe fn node_of<'a>(slf: *mut ffi::PyObject) -> &'a Arc<Node> {
    // SAFETY: contract.
    unsafe {
        (*(slf as *mut PyNode))
            .node
            .as_ref()
            .expect("a node object Python holds has its node")
    }
}

unsafe extern "C" fn node_dealloc(slf: *mut ffi::PyObject) {
    // SAFETY: CPython calls `tp_dealloc` once per death, GIL held, on a dead instance.
    unsafe {
        assert_gil_held();
        let p = slf as *mut PyNode;
        if let Some(node) = (*p).node.take() {
            if Arc::strong_count(&node) > 1 && node.pyobj() == slf as usize {
                // Preserve: the node owns the object from now on (Note [Node objects]).
                ffi::Py_INCREF(slf);
                node.set_pyobj(slf as usize | OWNED);
                drop(node);
                return;
            }
            if node.pyobj() == slf as usize {
                node.set_pyobj(0);
            }
            drop(node);
        }
        ffi::PyObject_GC_UnTrack(slf.cast());
        let md = std::mem::replace(&mut (*p).metadata, null_mut());
        if !md.is_null() {
            ffi::Py_DECREF(md);
        }
        let free = (*ffi::Py_TYPE(slf)).tp_free.unwrap_or(ffi::PyObject_GC_Del);
        free(slf.cast());
    }
}

/// The core's hook: a node that owns its Python object (preserved) is dying, on any thread.
fn release_node_pyobj(slot: usize) {
    if slot & OWNED == 0 {
        return;
    }
    // SAFETY: the node owned one reference to this live object; after finalisation the object
    // is leaked (the process is exiting).
    unsafe {
        if ffi::Py_IsInitialized() == 0 {
            return;
        }
        let gil = ffi::PyGILState_Ensure();
        let obj = (slot & !OWNED) as *mut ffi::PyObject;
        ffi::Py_DECREF(obj);
        ffi::PyGILState_Release(gil);
    }
}

unsafe extern "C" fn node_traverse(
    slf: *mut ffi::PyObject,
    visit: ffi::visitproc,
    arg: *mut c_void,
) -> c_int {
    // SAFETY: GC callback on a live instance.
    unsafe {
        let md = (*(slf as *mut PyNode)).metadata;
        if !md.is_null() {
            let r = visit(md, arg);
            if r != 0 {
                return r;
            }
        }
        // Note [Graphs and the cyclic GC]: a node this object alone holds.
        if let Some(node) = (*(slf as *mut PyNode)).node.as_ref() {
            if Arc::strong_count(node) == 1 {
                return super::graph_gc::traverse_node(node, visit, arg);
            }
        }
    }
    0
}

unsafe extern "C" fn node_clear(slf: *mut ffi::PyObject) -> c_int {
    // SAFETY: GC callback on a live instance.
    unsafe {
        let md = std::mem::replace(&mut (*(slf as *mut PyNode)).metadata, null_mut());
        if !md.is_null() {
            ffi::Py_DECREF(md);
        }
        if let Some(node) = (*(slf as *mut PyNode)).node.clone() {
            if Arc::strong_count(&node) == 2 {
                super::graph_gc::clear_node(&node);
            }
        }
    }
    0
}

unsafe extern "C" fn node_repr(slf: *mut ffi::PyObject) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: slot of our type.
        let node = unsafe { node_of(slf) };
        Ok(py_str(&format!("<{} object at {:p}>", node.name(), slf))?.release())
    })
}

unsafe extern "C" fn node_name(
    slf: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: method of our type.
        let node = unsafe { node_of(slf) };
        Ok(py_str(node.name())?.release())
    })
}

unsafe extern "C" fn get_next_functions(
    slf: *mut ffi::PyObject,
    _: *mut c_void,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of our type.
        let node = unsafe { node_of(slf) }.clone();
        let edges = node.next_edges();
        // SAFETY: building a fresh tuple under the GIL; each item is stolen by the tuple.
        unsafe {
            let tuple = ObjectPtr::steal_or_err(ffi::PyTuple_New(edges.len() as ffi::Py_ssize_t))?;
            for (i, e) in edges.iter().enumerate() {
                let (obj, nr) = match e {
                    Some(e) => (wrap_node(&e.node)?, e.input_nr as i64),
                    None => (none(), 0),
                };
                let pair = ObjectPtr::steal_or_err(ffi::PyTuple_New(2))?;
                ffi::PyTuple_SET_ITEM(pair.as_ptr(), 0, obj.release());
                ffi::PyTuple_SET_ITEM(pair.as_ptr(), 1, py_int(nr)?.release());
                ffi::PyTuple_SET_ITEM(tuple.as_ptr(), i as ffi::Py_ssize_t, pair.release());
            }
            Ok(tuple.release())
        }
    })
}

unsafe extern "C" fn get_metadata(slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of our type; the dict is owned by the object.
        unsafe {
            let p = slf as *mut PyNode;
            if (*p).metadata.is_null() {
                (*p).metadata = ObjectPtr::steal_or_err(ffi::PyDict_New())?.release();
            }
            Ok(ObjectPtr::borrow((*p).metadata).release())
        }
    })
}

unsafe extern "C" fn get_variable(slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of our type.
        let node = unsafe { node_of(slf) };
        match node.variable() {
            Some(t) => Ok(wrap(t)?.release()),
            None => Err(super::errors::attribute_error(format!(
                "'{}' object has no attribute 'variable'",
                node.name()
            ))),
        }
    })
}

unsafe extern "C" fn get_sequence_nr(
    slf: *mut ffi::PyObject,
    _: *mut c_void,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of our type.
        let node = unsafe { node_of(slf) };
        Ok(py_int(node.seq_nr() as i64)?.release())
    })
}

/// `tp_getattro`: the generic lookup, then the node's saved values as `_saved_<name>`.
unsafe extern "C" fn node_getattro(
    slf: *mut ffi::PyObject,
    name: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // SAFETY: slot of our type; `name` a live str.
    let found = unsafe { ffi::PyObject_GenericGetAttr(slf, name) };
    if !found.is_null() {
        return found;
    }
    // SAFETY: an exception is set; only AttributeError for `_saved_*` is handled here.
    unsafe {
        if ffi::PyErr_ExceptionMatches(ffi::PyExc_AttributeError) == 0 {
            return null_mut();
        }
        let mut len: ffi::Py_ssize_t = 0;
        // The AttributeError is set aside while the name is read, and restored when the name has
        // no UTF-8 form (lone surrogates): such a name is no `_saved_*` field either.
        let (mut ty, mut value, mut tb) = (null_mut(), null_mut(), null_mut());
        ffi::PyErr_Fetch(&mut ty, &mut value, &mut tb);
        let p = ffi::PyUnicode_AsUTF8AndSize(name, &mut len);
        if p.is_null() {
            ffi::PyErr_Clear();
            ffi::PyErr_Restore(ty, value, tb); // steals the three references fetched above
            return null_mut();
        }
        ffi::PyErr_Restore(ty, value, tb); // steals them back: cleared below for `_saved_*` names
        let s = std::str::from_utf8(std::slice::from_raw_parts(p.cast::<u8>(), len as usize))
            .unwrap_or("");
        let Some(field) = s.strip_prefix("_saved_") else {
            return null_mut();
        };
        let field = field.to_string();
        ffi::PyErr_Clear();
        crate::handle_errors!({ saved_attribute(slf, &field) })
    }
}

/// `_saved_<field>` of the node of `slf`: a saved tensor (None if not saved), or a number.
///
/// # Safety
/// `slf` is a live `PyNode`, GIL held.
unsafe fn saved_attribute(slf: *mut ffi::PyObject, field: &str) -> PyResult<*mut ffi::PyObject> {
    // SAFETY: contract.
    let node = unsafe { node_of(slf) }.clone();
    let kind = node.lock_kind();
    if let Some((_, s)) = kind.saved_tensors().into_iter().find(|(n, _)| *n == field) {
        if matches!(s, crate::core::autograd::node::SavedTensor::None) {
            return Ok(none().release());
        }
        // An unpack hook is Python code that may read this node's `_saved_*` again: it runs
        // after the lock is released (core Note [Unpack hooks run outside the node lock]).
        if let crate::core::autograd::node::SavedTensor::Packed(p) = s {
            let snapshot = p.snapshot();
            drop(kind);
            return Ok(wrap(snapshot.unpack(Some(&node))?)?.release());
        }
        let t = s.unpack(Some(&node));
        drop(kind);
        return Ok(wrap(t?)?.release());
    }
    if let Some((_, v)) = kind.saved_scalars().into_iter().find(|(n, _)| *n == field) {
        return Ok(scalar_to_py(v)?.release());
    }
    let name = node.name();
    drop(kind);
    Err(super::errors::attribute_error(format!(
        "'{name}' object has no attribute '_saved_{field}'"
    )))
}

unsafe extern "C" fn node_register_hook(
    slf: *mut ffi::PyObject,
    f: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: method of our type; `f` a live borrowed argument.
        let node = unsafe { node_of(slf) }.clone();
        // SAFETY: a live borrowed argument of this call.
        let f = unsafe { super::object_ptr::Borrowed::from_ptr(f) };
        Ok(super::hook_dicts::node_register_hook(&node, f)?.release())
    })
}

unsafe extern "C" fn node_register_prehook(
    slf: *mut ffi::PyObject,
    f: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: method of our type; `f` a live borrowed argument.
        let node = unsafe { node_of(slf) }.clone();
        // SAFETY: a live borrowed argument of this call.
        let f = unsafe { super::object_ptr::Borrowed::from_ptr(f) };
        Ok(super::hook_dicts::node_register_prehook(&node, f)?.release())
    })
}

static mut NODE_METHODS: [ffi::PyMethodDef; 4] = [
    method_noargs(
        c"name",
        node_name,
        c"name()\n--\n\nThe node's class name (torch: `MulBackward0`).",
    ),
    method_o(
        c"register_hook",
        node_register_hook,
        c"register_hook(fn)\n--\n\nRegisters fn(grad_inputs, grad_outputs) -> tuple or None, run after the node computes its gradients; returns a handle with remove().",
    ),
    method_o(
        c"register_prehook",
        node_register_prehook,
        c"register_prehook(fn)\n--\n\nRegisters fn(grad_outputs) -> tuple or None, run before the node; returns a handle with remove().",
    ),
    METHODS_END,
];

static mut NODE_GETSET: [ffi::PyGetSetDef; 5] = [
    getter(c"next_functions", get_next_functions, c"The (node, input_nr) pairs of the node's inputs; (None, 0) for an input that does not require grad."),
    getter(c"metadata", get_metadata, c"A dict for the user's data, kept with the node."),
    getter(c"variable", get_variable, c"AccumulateGrad only: the leaf tensor it accumulates into."),
    getter(c"_sequence_nr", get_sequence_nr, c"The node's sequence number (the engine runs higher numbers first)."),
    GETSET_END,
];

const NODE_DOC: &std::ffi::CStr = c"A node of the autograd graph (torch: the class of `t.grad_fn`, e.g. MulBackward0; here one type for every node, its class name given by `name()`).";

/// Ready the node type and install the core's release hook.
///
/// # Safety
/// Called once, with the GIL held, at module initialisation.
pub unsafe fn init(module: *mut ffi::PyObject) -> PyResult<()> {
    set_node_pyobj_release_hook(release_node_pyobj);
    // SAFETY: single-threaded initialisation under the GIL; the statics are not yet shared.
    unsafe {
        NODE_TYPE.ready(&TypeSpec {
            basicsize: std::mem::size_of::<PyNode>(),
            flags: (ffi::Py_TPFLAGS_DEFAULT | ffi::Py_TPFLAGS_HAVE_GC) as _,
            dealloc: Some(node_dealloc),
            traverse: Some(node_traverse),
            clear: Some(node_clear),
            repr: Some(node_repr),
            getattro: Some(node_getattro),
            alloc: Some(ffi::PyType_GenericAlloc),
            free: Some(ffi::PyObject_GC_Del),
            methods: addr_of_mut!(NODE_METHODS) as *mut ffi::PyMethodDef,
            getset: addr_of_mut!(NODE_GETSET) as *mut ffi::PyGetSetDef,
            ..TypeSpec::new(c"_C._FunctionBase", NODE_DOC)
        })?;
        super::convert::add_object(
            module,
            "_FunctionBase",
            ObjectPtr::borrow(node_type() as *mut ffi::PyObject),
        )?;
    }
    Ok(())
}
