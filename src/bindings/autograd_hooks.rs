//! src/bindings/autograd_hooks.rs: the Python side of the core's opaque callbacks (core Note
//! [Opaque callbacks]; PyTorch: python_hook.cpp, python_function.cpp): `Tensor.register_hook`,
//! `Tensor.register_post_accumulate_grad_hook`, `grad_fn.register_hook` / `register_prehook`,
//! the recording of custom `autograd.Function`s (`_C._C._function_record`), anomaly mode's
//! switches, and the Python side of the callbacks (errors.rs re-raises their exceptions: Note
//! [Errors from callbacks]; graph_gc.rs shows their objects to the GC).
//!
//! Layer 3 (entry points): see src/bindings/mod.rs.

use super::errors::{runtime_error, type_error, BindError, PyResult};
use super::gil::assert_gil_held;
use super::hook_dicts::{call, register, tuple};
use super::object_ptr::{none, py_bool, Borrowed, ObjectPtr};
use super::static_type::{method_keywords, method_noargs, method_o};
use super::tensor_object::{unpack, wrap};
use crate::core::autograd::hooks::{self as core_hooks, Callback, CallbackFns, Grads};
use crate::core::autograd::Node;
use crate::core::error::{Error, Result};
use crate::core::Tensor;
use pyo3_ffi as ffi;
use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::Arc;

/// A `BindError` raised while a callback runs, as a core error (a Python exception set by the
/// failing call is stashed; a core error passes through).
fn to_core(e: BindError) -> Error {
    match e {
        BindError::Core(e) => e,
        BindError::Python => super::errors::stash_python_error(),
    }
}

/// Hold the GIL for the duration of a callback (the engine runs under it; this makes a call from
/// a thread without it safe too).
struct Gil(ffi::PyGILState_STATE);
impl Gil {
    fn take() -> Gil {
        // SAFETY: the interpreter is initialised while tensorbind code runs callbacks.
        Gil(unsafe { ffi::PyGILState_Ensure() })
    }
}
impl Drop for Gil {
    fn drop(&mut self) {
        // SAFETY: paired with the Ensure above.
        unsafe { ffi::PyGILState_Release(self.0) }
    }
}

/// The display name of a hook for torch's messages (`__name__`, else its repr).
fn hook_name(f: *mut ffi::PyObject) -> String {
    // SAFETY: GIL held; `f` a live object; errors are cleared (the name is best effort).
    unsafe {
        let n = ffi::PyObject_GetAttrString(f, c"__name__".as_ptr());
        let n = if n.is_null() {
            ffi::PyErr_Clear();
            ffi::PyObject_Repr(f)
        } else {
            n
        };
        match ObjectPtr::steal(n) {
            Some(n) => super::convert::str_as_utf8(n.as_borrowed())
                .map(|s| s.to_string())
                .unwrap_or_else(|_| {
                    ffi::PyErr_Clear();
                    "<hook>".to_string()
                }),
            None => {
                ffi::PyErr_Clear();
                "<hook>".to_string()
            }
        }
    }
}

/// The hooks of a hook dict, in registration order (a new list: hooks may remove themselves).
///
/// # Safety
/// GIL held; `dict` a live dict.
unsafe fn hook_list(dict: *mut ffi::PyObject) -> PyResult<ObjectPtr> {
    // SAFETY: contract; `PyDict_Values` returns a new list.
    unsafe { ObjectPtr::steal_or_err(ffi::PyDict_Values(dict)) }
}

/// Gradients as a tuple of tensors and Nones.
fn grads_tuple(grads: &[Option<Tensor>]) -> PyResult<ObjectPtr> {
    let mut items = Vec::with_capacity(grads.len());
    for g in grads {
        items.push(match g {
            Some(t) => wrap(t.clone())?,
            None => none(),
        });
    }
    tuple(items)
}

/// torch's legacy type name of a dtype (`torch.FloatTensor`) for the hook messages.
fn legacy_type_name(t: &Tensor) -> &'static str {
    use crate::core::dtype::DType;
    match t.dtype() {
        DType::Float32 => "torch.FloatTensor",
        DType::Float64 => "torch.DoubleTensor",
        DType::Int64 => "torch.LongTensor",
        DType::Int32 => "torch.IntTensor",
        DType::Bool => "torch.BoolTensor",
        _ => "torch.Tensor",
    }
}

// ---- the callback table ----------------------------------------------------------------------

fn cb_tensor_pre(obj: *mut c_void, grad: Tensor) -> Result<Tensor> {
    let _gil = Gil::take();
    let dict = obj as *mut ffi::PyObject;
    let run = || -> PyResult<Tensor> {
        let mut grad = grad;
        // SAFETY: GIL held; the callback owns `dict`, alive for this call.
        let hooks = unsafe { hook_list(dict)? };
        // SAFETY: `hooks` is a list we own.
        let n = unsafe { ffi::PyList_GET_SIZE(hooks.as_ptr()) };
        for i in 0..n {
            // SAFETY: borrowed item of our list, which keeps it alive while we use it.
            let f = unsafe { ffi::PyList_GET_ITEM(hooks.as_ptr(), i) };
            // SAFETY: GIL held; `f` is kept alive by `hooks`.
            let r = unsafe { call(f, &tuple(vec![wrap(grad.clone())?])?)? };
            // SAFETY: reading the None singleton.
            if r.as_ptr() == unsafe { ffi::Py_None() } {
                continue;
            }
            let Some(new) = unpack(r.as_borrowed()).map(|t| t.clone()) else {
                return Err(type_error(format!(
                    "expected Variable, but hook returned '{}'",
                    super::describe::type_name(r.as_borrowed())
                )));
            };
            if new.dtype() != grad.dtype() {
                return Err(runtime_error(format!(
                    "hook '{}' has changed the type of value (was {} got {})",
                    hook_name(f),
                    legacy_type_name(&grad),
                    legacy_type_name(&new)
                )));
            }
            if new.sizes() != grad.sizes() {
                return Err(runtime_error(format!(
                    "hook '{}' has changed the size of value",
                    hook_name(f)
                )));
            }
            grad = new;
        }
        Ok(grad)
    };
    run().map_err(to_core)
}

fn cb_post_accumulate(obj: *mut c_void, leaf: &Tensor) -> Result<()> {
    let _gil = Gil::take();
    let dict = obj as *mut ffi::PyObject;
    let run = || -> PyResult<()> {
        // SAFETY: as in `cb_tensor_pre`.
        let hooks = unsafe { hook_list(dict)? };
        // SAFETY: `hooks` is a list we own.
        let n = unsafe { ffi::PyList_GET_SIZE(hooks.as_ptr()) };
        for i in 0..n {
            // SAFETY: borrowed item of our list.
            let f = unsafe { ffi::PyList_GET_ITEM(hooks.as_ptr(), i) };
            // SAFETY: GIL held; `f` is kept alive by `hooks`.
            unsafe { call(f, &tuple(vec![wrap(leaf.clone())?])?)? };
        }
        Ok(())
    };
    run().map_err(to_core)
}

/// Gradients back from a node hook's result: None keeps `current`; a tuple (or list) of the
/// same length replaces it (torch's `check_result`).
fn hook_result(
    f: *mut ffi::PyObject,
    r: ObjectPtr,
    current: Grads,
    none_stays_none: bool,
) -> PyResult<Grads> {
    // SAFETY: GIL held; `r` a live object.
    unsafe {
        if r.as_ptr() == ffi::Py_None() {
            return Ok(current);
        }
        if ffi::PyTuple_Check(r.as_ptr()) == 0 {
            return Err(type_error(format!(
                "expected tuple, but hook returned '{}'",
                super::describe::type_name(r.as_borrowed())
            )));
        }
        let n = ffi::PyTuple_GET_SIZE(r.as_ptr()) as usize;
        if n != current.len() {
            return Err(runtime_error(format!(
                "hook '{}' has returned an incorrect number of values (got {n}, but expected {})",
                hook_name(f),
                current.len()
            )));
        }
        let mut out = Vec::with_capacity(n);
        for (i, old) in current.into_iter().enumerate() {
            let item = Borrowed::from_ptr(ffi::PyTuple_GET_ITEM(r.as_ptr(), i as ffi::Py_ssize_t));
            if item.as_ptr() == ffi::Py_None() {
                out.push(None);
                continue;
            }
            let Some(t) = unpack(item).map(|t| t.clone()) else {
                return Err(type_error(format!(
                    "expected Variable or None (got {})",
                    super::describe::type_name(item)
                )));
            };
            if none_stays_none && old.is_none() {
                return Err(runtime_error(
                    "can't replace a None gradient with a non-None value",
                ));
            }
            out.push(Some(t));
        }
        Ok(out)
    }
}

fn cb_node_pre(obj: *mut c_void, _node: &Arc<Node>, grads: Grads) -> Result<Grads> {
    let _gil = Gil::take();
    let dict = obj as *mut ffi::PyObject;
    let run = || -> PyResult<Grads> {
        let mut grads = grads;
        // SAFETY: as in `cb_tensor_pre`.
        let hooks = unsafe { hook_list(dict)? };
        // SAFETY: `hooks` is a list we own.
        let n = unsafe { ffi::PyList_GET_SIZE(hooks.as_ptr()) };
        for i in 0..n {
            // SAFETY: borrowed item of our list.
            let f = unsafe { ffi::PyList_GET_ITEM(hooks.as_ptr(), i) };
            // SAFETY: GIL held; `f` is kept alive by `hooks`.
            let r = unsafe { call(f, &tuple(vec![grads_tuple(&grads)?])?)? };
            grads = hook_result(f, r, grads, false)?;
        }
        Ok(grads)
    };
    run().map_err(to_core)
}

fn cb_node_post(
    obj: *mut c_void,
    _node: &Arc<Node>,
    grad_inputs: Grads,
    grad_outputs: &[Option<Tensor>],
) -> Result<Grads> {
    let _gil = Gil::take();
    let dict = obj as *mut ffi::PyObject;
    let run = || -> PyResult<Grads> {
        let mut gi = grad_inputs;
        let go = grads_tuple(grad_outputs)?;
        // SAFETY: as in `cb_tensor_pre`.
        let hooks = unsafe { hook_list(dict)? };
        // SAFETY: `hooks` is a list we own.
        let n = unsafe { ffi::PyList_GET_SIZE(hooks.as_ptr()) };
        for i in 0..n {
            // SAFETY: borrowed item of our list.
            let f = unsafe { ffi::PyList_GET_ITEM(hooks.as_ptr(), i) };
            let args = tuple(vec![grads_tuple(&gi)?, go.clone()])?;
            // SAFETY: GIL held; `f` is kept alive by `hooks`.
            let r = unsafe { call(f, &args)? };
            gi = hook_result(f, r, gi, true)?;
        }
        Ok(gi)
    };
    run().map_err(to_core)
}

/// A custom Function's backward: `ctx._backward_entry(saved, *grads)` (python/_C/autograd.py)
/// with the saved tensors unpacked (version check) and undefined gradients materialised.
fn cb_function_backward(
    obj: *mut c_void,
    node: &Arc<Node>,
    saved: Vec<Tensor>,
    materialize: bool,
    grads: &[Option<Tensor>],
) -> Result<Grads> {
    let _gil = Gil::take();
    let ctx = obj as *mut ffi::PyObject;
    let run = || -> PyResult<Grads> {
        let mut saved_objs = Vec::with_capacity(saved.len());
        for t in saved {
            saved_objs.push(wrap(t)?);
        }
        let mut args = vec![tuple(saved_objs)?];
        for (i, g) in grads.iter().enumerate() {
            args.push(match g {
                Some(t) => wrap(t.clone())?,
                None if materialize => {
                    let m = node.input_meta(i).ok_or_else(|| {
                        Error::runtime("internal error: no metadata for a gradient")
                    })?;
                    let sizes: Vec<i64> = m.sizes().iter().map(|&s| s as i64).collect();
                    wrap(crate::core::ops::zeros(&sizes, Some(m.dtype()))?)?
                }
                None => none(),
            });
        }
        let args = tuple(args)?;
        // SAFETY: GIL held; `ctx` owned by the node for this call.
        let r = unsafe {
            let m = ObjectPtr::steal_or_err(ffi::PyObject_GetAttrString(
                ctx,
                c"_backward_entry".as_ptr(),
            ))?;
            call(m.as_ptr(), &args)?
        };
        let n_edges = node.next_edges().len();
        // SAFETY: `r` is live; the entry returns a tuple (checked).
        unsafe {
            if ffi::PyTuple_Check(r.as_ptr()) == 0
                || ffi::PyTuple_GET_SIZE(r.as_ptr()) as usize != n_edges
            {
                return Err(runtime_error(
                    "internal error: _backward_entry returned a wrong value",
                ));
            }
            let mut out = Vec::with_capacity(n_edges);
            for i in 0..n_edges {
                let item =
                    Borrowed::from_ptr(ffi::PyTuple_GET_ITEM(r.as_ptr(), i as ffi::Py_ssize_t));
                if item.as_ptr() == ffi::Py_None() {
                    out.push(None);
                } else {
                    match unpack(item) {
                        Some(t) => out.push(Some(t.clone())),
                        None => {
                            return Err(type_error(format!(
                                "{}.backward must return Tensors or None, got {}",
                                node.name(),
                                super::describe::type_name(item)
                            )))
                        }
                    }
                }
            }
            Ok(out)
        }
    };
    run().map_err(to_core)
}

fn cb_release(obj: *mut c_void) {
    // SAFETY: the callback owned one reference; after finalisation the object is leaked.
    unsafe {
        if ffi::Py_IsInitialized() == 0 {
            return;
        }
        let _gil = Gil::take();
        ffi::Py_DECREF(obj as *mut ffi::PyObject);
    }
}

/// A saved-tensor hooks pair (a tuple `(pack_hook, unpack_hook)`) packing `t`: what pack returned.
fn cb_pack(pair: *mut c_void, t: &Tensor) -> Result<(Callback, Callback)> {
    let _gil = Gil::take();
    let run = || -> PyResult<(Callback, Callback)> {
        let pair = pair as *mut ffi::PyObject;
        let args = tuple(vec![wrap(t.clone())?])?;
        // SAFETY: GIL held; the callback owns `pair`, a 2-tuple (made by
        // `_push_saved_tensors_default_hooks`), alive for this call; item 0 is borrowed from it.
        let packed = unsafe { call(ffi::PyTuple_GET_ITEM(pair, 0), &args)? };
        let p = packed.release();
        // SAFETY: `p` is the new reference `call` returned (non-NULL); the callback owns it now.
        // The pair is live (the caller holds it): one new reference for the saved tensor.
        unsafe {
            ffi::Py_INCREF(pair);
            Ok((
                Callback::new(NonNull::new(p as *mut c_void).expect("a live object")),
                Callback::new(NonNull::new(pair as *mut c_void).expect("a live object")),
            ))
        }
    };
    run().map_err(to_core)
}

/// The pair's unpack hook called on `packed`: the tensor it returned (torch's TypeError when it
/// is not a tensor).
fn cb_unpack(pair: *mut c_void, packed: *mut c_void) -> Result<Tensor> {
    let _gil = Gil::take();
    let run = || -> PyResult<Tensor> {
        let pair = pair as *mut ffi::PyObject;
        // SAFETY: GIL held; `packed` is owned by a callback the caller holds (an `Arc` clone),
        // alive for this call; the new tuple takes its own reference.
        let args = unsafe {
            ffi::Py_INCREF(packed as *mut ffi::PyObject);
            tuple(vec![
                ObjectPtr::steal(packed as *mut ffi::PyObject).expect("non-NULL")
            ])?
        };
        // SAFETY: as in `cb_pack`: item 1 of the pair, borrowed from the live tuple.
        let r = unsafe { call(ffi::PyTuple_GET_ITEM(pair, 1), &args)? };
        match unpack(r.as_borrowed()) {
            Some(t) => Ok(t.clone()),
            None => Err(type_error(format!(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of type {}",
                super::describe::type_name(r.as_borrowed())
            ))),
        }
    };
    run().map_err(to_core)
}

/// `_push_saved_tensors_default_hooks(pack_hook, unpack_hook)` (torch._C._autograd's).
unsafe extern "C" fn push_saved_hooks(
    _m: *mut ffi::PyObject,
    args: *mut ffi::PyObject,
    _kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: module function with a tuple of arguments (borrowed from the caller).
        unsafe {
            if ffi::PyTuple_GET_SIZE(args) != 2 {
                return Err(type_error(
                    "_push_saved_tensors_default_hooks() takes 2 arguments (pack_hook, unpack_hook)",
                ));
            }
            for (i, what) in [(0, "pack_hook"), (1, "unpack_hook")] {
                let f = ffi::PyTuple_GET_ITEM(args, i);
                if ffi::PyCallable_Check(f) == 0 {
                    return Err(type_error(format!(
                        "saved_tensors_hooks(): argument '{what}' must be callable, not {}",
                        super::describe::type_name(Borrowed::from_ptr(f))
                    )));
                }
            }
            // The pair is the argument tuple itself (immutable; one new reference for the core).
            ffi::Py_INCREF(args);
            let cb = Callback::new(NonNull::new(args as *mut c_void).expect("live"));
            core_hooks::push_saved_hooks(cb)?;
            Ok(none().release())
        }
    })
}

/// `_pop_saved_tensors_default_hooks()`.
unsafe extern "C" fn pop_saved_hooks(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    drop(core_hooks::pop_saved_hooks());
    none().release()
}

/// `_saved_tensors_hooks_disable(error_message)`.
unsafe extern "C" fn saved_hooks_disable(
    _m: *mut ffi::PyObject,
    msg: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: METH_O: `msg` is borrowed from the caller for this call.
        let m = unsafe { Borrowed::from_ptr(msg) };
        let text = super::convert::str_as_utf8(m)
            .map_err(|_| {
                // SAFETY: GIL held; the failed conversion set an error we replace.
                unsafe { ffi::PyErr_Clear() };
                type_error(format!(
                    "disable_saved_tensors_hooks(): argument 'error_message' must be str, not {}",
                    super::describe::type_name(m)
                ))
            })?
            .to_string();
        core_hooks::disable_saved_hooks(&text)?;
        Ok(none().release())
    })
}

/// `_saved_tensors_hooks_enable()`.
unsafe extern "C" fn saved_hooks_enable(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    core_hooks::enable_saved_hooks();
    none().release()
}

/// `_saved_tensors_hooks_is_enabled()`.
unsafe extern "C" fn saved_hooks_is_enabled(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    py_bool(core_hooks::saved_hooks_disabled_message().is_none()).release()
}

/// `_saved_tensors_hooks_get_disabled_error_message()`: the message, or None.
unsafe extern "C" fn saved_hooks_disabled_message(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        match core_hooks::saved_hooks_disabled_message() {
            None => Ok(none().release()),
            Some(m) => Ok(super::convert::py_str(&m)?.release()),
        }
    })
}

// ---- registration ----------------------------------------------------------------------------

const ERR_HOOK_NO_GRAD: &str = "cannot register a hook on a tensor that doesn't require gradient";

/// `Tensor.register_hook(hook)`.
unsafe extern "C" fn tensor_register_hook(
    slf: *mut ffi::PyObject,
    f: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: method of `_C.Tensor`; `f` a live borrowed argument.
        let (t, f) = unsafe {
            (
                super::tensor_object::tensor_ref(Borrowed::from_ptr(slf)).clone(),
                Borrowed::from_ptr(f),
            )
        };
        if !t.requires_grad() {
            return Err(runtime_error(ERR_HOOK_NO_GRAD));
        }
        let h = match t.grad_fn() {
            Some(node) => {
                let nr = t.output_nr();
                let existing = node.with_hooks(|h| {
                    h.tensor_pre
                        .iter()
                        .find(|(k, _)| *k == nr)
                        .map(|(_, c)| c.clone())
                });
                register(
                    existing,
                    |c| node.with_hooks(|h| h.tensor_pre.push((nr, c))),
                    f,
                )?
            }
            None => {
                let existing = t.with_leaf_hooks(|h| h.tensor_pre.clone());
                register(
                    existing,
                    |c| t.with_leaf_hooks(|h| h.tensor_pre = Some(c)),
                    f,
                )?
            }
        };
        Ok(h.release())
    })
}

/// `Tensor.register_post_accumulate_grad_hook(hook)`.
unsafe extern "C" fn tensor_register_post_accumulate_grad_hook(
    slf: *mut ffi::PyObject,
    f: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: as in `tensor_register_hook`.
        let (t, f) = unsafe {
            (
                super::tensor_object::tensor_ref(Borrowed::from_ptr(slf)).clone(),
                Borrowed::from_ptr(f),
            )
        };
        if !t.requires_grad() {
            return Err(runtime_error(ERR_HOOK_NO_GRAD));
        }
        if !t.is_leaf() {
            return Err(runtime_error(
                "post accumulate grad hooks cannot be registered on non-leaf tensors",
            ));
        }
        let existing = t.with_leaf_hooks(|h| h.post_accumulate.clone());
        let h = register(
            existing,
            |c| t.with_leaf_hooks(|h| h.post_accumulate = Some(c)),
            f,
        )?;
        Ok(h.release())
    })
}

// ---- custom Functions ------------------------------------------------------------------------

/// Tensors of a tuple (every item must be a tensor).
fn tensors_of(o: Borrowed<'_>, what: &str) -> PyResult<Vec<Tensor>> {
    // SAFETY: GIL held; `o` live; a tuple is checked before its items are read.
    unsafe {
        if ffi::PyTuple_Check(o.as_ptr()) == 0 {
            return Err(type_error(format!(
                "_function_record(): {what} must be a tuple"
            )));
        }
        let n = ffi::PyTuple_GET_SIZE(o.as_ptr());
        let mut v = Vec::with_capacity(n as usize);
        for i in 0..n {
            let item = Borrowed::from_ptr(ffi::PyTuple_GET_ITEM(o.as_ptr(), i));
            match unpack(item) {
                Some(t) => v.push(t.clone()),
                None => {
                    return Err(type_error(format!(
                        "{what} must contain Tensors, not {}",
                        super::describe::type_name(item)
                    )))
                }
            }
        }
        Ok(v)
    }
}

/// `_C._C._function_record(ctx, name, inputs, outputs, to_save, dirty, non_differentiable,
/// materialize_grads)`: record a custom Function's call; returns the outputs (a tuple) as the
/// caller must see them.
unsafe extern "C" fn function_record(
    _m: *mut ffi::PyObject,
    args: *mut ffi::PyObject,
    _kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: module function with a tuple of arguments.
        unsafe {
            if ffi::PyTuple_GET_SIZE(args) != 8 {
                return Err(type_error("_function_record() takes 8 arguments"));
            }
            let item = |i| Borrowed::from_ptr(ffi::PyTuple_GET_ITEM(args, i));
            let ctx = item(0);
            let name = super::convert::str_as_utf8(item(1))?.to_string();
            let inputs = tensors_of(item(2), "inputs")?;
            let outputs = tensors_of(item(3), "outputs")?;
            let to_save = tensors_of(item(4), "saved tensors")?;
            let dirty = tensors_of(item(5), "dirty tensors")?;
            let non_diff = tensors_of(item(6), "non-differentiable tensors")?;
            let materialize = ffi::PyObject_IsTrue(item(7).as_ptr());
            if materialize < 0 {
                return Err(BindError::Python);
            }
            ffi::Py_INCREF(ctx.as_ptr());
            let cb = Callback::new(NonNull::new(ctx.as_ptr() as *mut c_void).expect("live"));
            let (_node, outs) = core_hooks::record_function(
                &name,
                cb,
                &inputs,
                &outputs,
                &to_save,
                &dirty,
                &non_diff,
                materialize == 1,
            )?;
            let mut objs = Vec::with_capacity(outs.len());
            for t in outs {
                objs.push(wrap(t)?);
            }
            Ok(tuple(objs)?.release())
        }
    })
}

// ---- anomaly mode ----------------------------------------------------------------------------

unsafe extern "C" fn set_anomaly_enabled(
    _m: *mut ffi::PyObject,
    args: *mut ffi::PyObject,
    _kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: module function with a tuple of arguments; truth tests on live objects.
        unsafe {
            let n = ffi::PyTuple_GET_SIZE(args);
            if !(1..=2).contains(&n) {
                return Err(type_error(
                    "_set_anomaly_enabled() takes 1 or 2 arguments (enabled, check_nan=True)",
                ));
            }
            let truth = |i| match ffi::PyObject_IsTrue(ffi::PyTuple_GET_ITEM(args, i)) {
                -1 => Err(BindError::Python),
                v => Ok(v == 1),
            };
            let enabled = truth(0)?;
            let check_nan = if n == 2 { truth(1)? } else { true };
            core_hooks::set_anomaly_enabled(enabled, check_nan);
            Ok(none().release())
        }
    })
}

unsafe extern "C" fn is_anomaly_enabled(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    py_bool(core_hooks::is_anomaly_enabled()).release()
}

unsafe extern "C" fn is_anomaly_check_nan_enabled(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    py_bool(core_hooks::is_anomaly_check_nan_enabled()).release()
}

// ---- tables ----------------------------------------------------------------------------------

/// The hook methods of `_C.Tensor` (no sentinel).
pub fn tensor_methods() -> Vec<ffi::PyMethodDef> {
    vec![
        method_o(c"register_hook", tensor_register_hook, c"register_hook(hook)\n--\n\nRegisters hook(grad) -> Tensor or None, run when the gradient of this tensor is computed; returns a handle with remove()."),
        method_o(c"register_post_accumulate_grad_hook", tensor_register_post_accumulate_grad_hook, c"register_post_accumulate_grad_hook(hook)\n--\n\nLeaves only: registers hook(tensor), run after the gradient is accumulated into .grad; returns a handle with remove()."),
    ]
}

/// Module functions of this file (no sentinel).
pub fn functions() -> Vec<ffi::PyMethodDef> {
    vec![
        method_keywords(c"_function_record", function_record, 0, c"_function_record(ctx, name, inputs, outputs, to_save, dirty, non_differentiable, materialize_grads)\n--\n\nRecords a custom autograd.Function call (used by _C.autograd.Function.apply)."),
        method_keywords(c"_set_anomaly_enabled", set_anomaly_enabled, 0, c"_set_anomaly_enabled(enabled, check_nan=True)\n--\n\ntorch._C._set_anomaly_enabled."),
        method_noargs(c"is_anomaly_enabled", is_anomaly_enabled, c"is_anomaly_enabled()\n--\n\nTrue when anomaly detection is on (torch.is_anomaly_enabled)."),
        method_keywords(c"_push_saved_tensors_default_hooks", push_saved_hooks, 0, c"_push_saved_tensors_default_hooks(pack_hook, unpack_hook)\n--\n\nPushes a saved-tensor hooks pair on this thread's stack (torch._C._autograd's; used by _C.autograd.graph.saved_tensors_hooks)."),
        method_noargs(c"_pop_saved_tensors_default_hooks", pop_saved_hooks, c"_pop_saved_tensors_default_hooks()\n--\n\nPops this thread's top saved-tensor hooks pair."),
        method_o(c"_saved_tensors_hooks_disable", saved_hooks_disable, c"_saved_tensors_hooks_disable(error_message)\n--\n\nMakes pushing saved-tensor hooks raise RuntimeError(error_message) on this thread (raises it now if hooks are active)."),
        method_noargs(c"_saved_tensors_hooks_enable", saved_hooks_enable, c"_saved_tensors_hooks_enable()\n--\n\nAllows saved-tensor hooks again on this thread."),
        method_noargs(c"_saved_tensors_hooks_is_enabled", saved_hooks_is_enabled, c"_saved_tensors_hooks_is_enabled()\n--\n\nFalse inside disable_saved_tensors_hooks()."),
        method_noargs(c"_saved_tensors_hooks_get_disabled_error_message", saved_hooks_disabled_message, c"_saved_tensors_hooks_get_disabled_error_message()\n--\n\nThe message of the active disable_saved_tensors_hooks(), or None."),
        method_noargs(c"is_anomaly_check_nan_enabled", is_anomaly_check_nan_enabled, c"is_anomaly_check_nan_enabled()\n--\n\nTrue when anomaly detection checks backward outputs for NaN."),
    ]
}

/// Install the core's callback table.
pub fn init() {
    assert_gil_held();
    core_hooks::set_callback_fns(CallbackFns {
        tensor_pre: cb_tensor_pre,
        post_accumulate: cb_post_accumulate,
        node_pre: cb_node_pre,
        node_post: cb_node_post,
        function_backward: cb_function_backward,
        release: cb_release,
        pack: cb_pack,
        unpack: cb_unpack,
    });
}
