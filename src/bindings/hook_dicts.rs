//! src/bindings/hook_dicts.rs: the hook dicts of autograd hooks (PyTorch: the `_backward_hooks`
//! dicts of python_hook.cpp): each is an ordered dict of the user's functions the graph holds as
//! one opaque callback (core Note [Opaque callbacks]); registering adds to it and returns a
//! `_C._hooks.RemovableHandle`. Used by tensor methods (autograd_hooks.rs) and node objects.
//!
//! Layer 1 (objects): see src/bindings/mod.rs.

use super::errors::{BindError, PyResult};
use super::object_ptr::{Borrowed, ObjectPtr};
use crate::core::autograd::hooks::Callback;
use crate::core::autograd::Node;
use pyo3_ffi as ffi;
use std::ffi::c_void;
use std::ptr::{null_mut, NonNull};
use std::sync::Arc;

/// Call `f(*args)` (new reference).
///
/// # Safety
/// GIL held; `f` live; `args` a tuple.
pub(crate) unsafe fn call(f: *mut ffi::PyObject, args: &ObjectPtr) -> PyResult<ObjectPtr> {
    // SAFETY: contract.
    unsafe { ObjectPtr::steal_or_err(ffi::PyObject_Call(f, args.as_ptr(), null_mut())) }
}

/// A tuple of the given objects (stolen).
pub(crate) fn tuple(items: Vec<ObjectPtr>) -> PyResult<ObjectPtr> {
    // SAFETY: a fresh tuple under the GIL; each item is stolen by it.
    unsafe {
        let t = ObjectPtr::steal_or_err(ffi::PyTuple_New(items.len() as ffi::Py_ssize_t))?;
        for (i, o) in items.into_iter().enumerate() {
            ffi::PyTuple_SET_ITEM(t.as_ptr(), i as ffi::Py_ssize_t, o.release());
        }
        Ok(t)
    }
}

/// A callback owning a new reference to `obj`.
pub(crate) fn callback_of(obj: Borrowed<'_>) -> Arc<Callback> {
    // SAFETY: GIL held; we take a reference the callback owns (released by `cb_release`).
    unsafe {
        ffi::Py_INCREF(obj.as_ptr());
        Arc::new(Callback::new(
            NonNull::new(obj.as_ptr() as *mut c_void).expect("a live object"),
        ))
    }
}

/// `_C._hooks` (python/_C/_hooks.py): `RemovableHandle` and the hook-dict factory.
fn hooks_module() -> PyResult<ObjectPtr> {
    // SAFETY: GIL held; a new reference to the module.
    unsafe { ObjectPtr::steal_or_err(ffi::PyImport_ImportModule(c"_C._hooks".as_ptr())) }
}

fn call_attr(
    module: &ObjectPtr,
    name: &std::ffi::CStr,
    args: Vec<ObjectPtr>,
) -> PyResult<ObjectPtr> {
    // SAFETY: GIL held; live objects.
    unsafe {
        let f =
            ObjectPtr::steal_or_err(ffi::PyObject_GetAttrString(module.as_ptr(), name.as_ptr()))?;
        call(f.as_ptr(), &tuple(args)?)
    }
}

/// Find or make the hook dict a callback slot holds, add `f` to it; the handle.
pub(crate) fn register(
    existing: Option<Arc<Callback>>,
    install: impl FnOnce(Arc<Callback>),
    f: Borrowed<'_>,
) -> PyResult<ObjectPtr> {
    let m = hooks_module()?;
    let dict = match existing {
        // SAFETY: the callback keeps its dict alive; we take our own reference.
        Some(c) => unsafe { ObjectPtr::borrow(c.as_ptr() as *mut ffi::PyObject) },
        None => {
            let d = call_attr(&m, c"_hooks_dict", Vec::new())?;
            install(callback_of(d.as_borrowed()));
            d
        }
    };
    let handle = call_attr(&m, c"RemovableHandle", vec![dict.clone()])?;
    // SAFETY: GIL held; live objects; `dict[handle.id] = f`.
    unsafe {
        let id =
            ObjectPtr::steal_or_err(ffi::PyObject_GetAttrString(handle.as_ptr(), c"id".as_ptr()))?;
        if ffi::PyObject_SetItem(dict.as_ptr(), id.as_ptr(), f.as_ptr()) < 0 {
            return Err(BindError::Python);
        }
    }
    Ok(handle)
}

/// `grad_fn.register_hook(fn)`: `fn(grad_inputs, grad_outputs)` after the node runs.
pub(crate) fn node_register_hook(node: &Arc<Node>, f: Borrowed<'_>) -> PyResult<ObjectPtr> {
    let existing = node.with_hooks(|h| h.post.clone());
    register(existing, |c| node.with_hooks(|h| h.post = Some(c)), f)
}

/// `grad_fn.register_prehook(fn)`: `fn(grad_outputs)` before the node runs.
pub(crate) fn node_register_prehook(node: &Arc<Node>, f: Borrowed<'_>) -> PyResult<ObjectPtr> {
    let existing = node.with_hooks(|h| h.pre.clone());
    register(existing, |c| node.with_hooks(|h| h.pre = Some(c)), f)
}
