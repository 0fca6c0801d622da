//! src/bindings/autograd_methods.rs: the Python surface of autograd (PyTorch:
//! python_variable.cpp's autograd attributes, python_engine.cpp, grad_mode.py): the tensor
//! attributes and methods (`requires_grad`, `grad`, `grad_fn`, `is_leaf`, `data`, `_version`,
//! `detach`, `retain_grad`, `backward`), `_C._autograd_backward` / `_C._autograd_grad` (exported
//! as `_C.autograd.backward` / `grad` by python/_C/autograd.py), `is_grad_enabled`, and the
//! grad-mode types `no_grad`, `enable_grad`, `set_grad_enabled`, `inference_mode` (context
//! managers and decorators).
//!
//! Layer 3 (entry points): see src/bindings/mod.rs.

use super::convert::{add_object, is_bool};
use super::errors::{runtime_error, type_error, PyResult};
use super::node_object::wrap_node;
use super::object_ptr::{none, py_bool, Borrowed, ObjectPtr};
use super::static_type::{
    getset, getter, method_keywords, method_noargs, method_o, StaticType, TypeSpec, GETSET_END,
    METHODS_END,
};
use super::tensor_object::{tensor_ref, unpack, wrap};
use crate::core::autograd::{self, BackwardOptions};
use crate::core::warnings::{warn, WarningKind};
use crate::core::Tensor;
use pyo3_ffi as ffi;
use std::ffi::{c_int, c_void, CStr};
use std::ptr::{addr_of_mut, null_mut};

/// The tensor behind `slf` (a borrowed handle).
///
/// # Safety
/// `slf` is a live `_C.Tensor` (or subclass) instance; GIL held.
unsafe fn this<'a>(slf: *mut ffi::PyObject) -> super::tensor_object::TensorRef<'a> {
    // SAFETY: contract.
    unsafe { tensor_ref(Borrowed::from_ptr(slf)) }
}

/// Positional-or-keyword arguments of a `METH_VARARGS | METH_KEYWORDS` call.
struct Args {
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
}

impl Args {
    /// Check the call against `names` (all positional-or-keyword): torch's TypeErrors.
    ///
    /// # Safety
    /// `args` is a tuple, `kwargs` NULL or a dict, both live; GIL held.
    unsafe fn new(
        fname: &str,
        names: &[&str],
        args: *mut ffi::PyObject,
        kwargs: *mut ffi::PyObject,
    ) -> PyResult<Args> {
        // SAFETY: contract.
        unsafe {
            let n = ffi::PyTuple_GET_SIZE(args) as usize;
            if n > names.len() {
                return Err(type_error(format!(
                    "{fname}() takes from 0 to {} positional arguments but {n} were given",
                    names.len()
                )));
            }
            if !kwargs.is_null() {
                let mut pos: ffi::Py_ssize_t = 0;
                let mut k: *mut ffi::PyObject = null_mut();
                let mut v: *mut ffi::PyObject = null_mut();
                while ffi::PyDict_Next(kwargs, &mut pos, &mut k, &mut v) != 0 {
                    let key = super::convert::str_as_utf8(Borrowed::from_ptr(k))?;
                    match names.iter().position(|x| *x == key) {
                        None => {
                            return Err(type_error(format!(
                                "{fname}() got an unexpected keyword argument '{key}'"
                            )))
                        }
                        Some(i) if i < n => {
                            return Err(type_error(format!(
                                "{fname}() got multiple values for argument '{key}'"
                            )))
                        }
                        _ => {}
                    }
                }
            }
        }
        Ok(Args { args, kwargs })
    }

    /// Argument `i` (named `name`), None when absent or `None`.
    fn get(&self, i: usize, name: &CStr) -> Option<Borrowed<'_>> {
        // SAFETY: live tuple/dict (see `new`); borrowed results, kept alive by the containers
        // for the duration of the call.
        unsafe {
            let p = if (i as ffi::Py_ssize_t) < ffi::PyTuple_GET_SIZE(self.args) {
                ffi::PyTuple_GET_ITEM(self.args, i as ffi::Py_ssize_t)
            } else if self.kwargs.is_null() {
                null_mut()
            } else {
                ffi::PyDict_GetItemString(self.kwargs, name.as_ptr())
            };
            if p.is_null() || p == ffi::Py_None() {
                None
            } else {
                Some(Borrowed::from_ptr(p))
            }
        }
    }

    fn bool(&self, i: usize, name: &CStr, default: bool) -> PyResult<bool> {
        match self.get(i, name) {
            None => Ok(default),
            // SAFETY: a live object; truth testing may run Python code, nothing borrowed is held.
            Some(o) => match unsafe { ffi::PyObject_IsTrue(o.as_ptr()) } {
                -1 => Err(super::errors::BindError::Python),
                v => Ok(v == 1),
            },
        }
    }
}

/// A tensor, or a sequence of tensors, as a list (`what` names the argument in errors).
fn tensor_seq(o: Borrowed<'_>, fname: &str, what: &str) -> PyResult<Vec<Tensor>> {
    if let Some(t) = unpack(o) {
        return Ok(vec![t.clone()]);
    }
    // SAFETY: live object; `PySequence_Fast` returns a new reference to a list or tuple.
    unsafe {
        let seq = ffi::PySequence_Fast(o.as_ptr(), c"".as_ptr());
        if seq.is_null() {
            ffi::PyErr_Clear();
            return Err(type_error(format!(
                "{fname}(): argument '{what}' must be a Tensor or a sequence of Tensors, not {}",
                super::describe::type_name(o)
            )));
        }
        let seq = ObjectPtr::steal_or_err(seq)?;
        let n = ffi::PySequence_Fast_GET_SIZE(seq.as_ptr());
        let items = ffi::PySequence_Fast_ITEMS(seq.as_ptr());
        let mut out = Vec::with_capacity(n as usize);
        for i in 0..n {
            let item = Borrowed::from_ptr(*items.offset(i));
            match unpack(item) {
                Some(t) => out.push(t.clone()),
                None => {
                    return Err(type_error(format!(
                        "{fname}(): argument '{what}' must contain Tensors, not {}",
                        super::describe::type_name(item)
                    )))
                }
            }
        }
        Ok(out)
    }
}

/// Optional gradients: None, a tensor, or a sequence of tensors and Nones.
fn optional_tensor_seq(o: Option<Borrowed<'_>>, n: usize) -> PyResult<Vec<Option<Tensor>>> {
    let Some(o) = o else {
        return Ok(vec![None; n]);
    };
    if let Some(t) = unpack(o) {
        return Ok(vec![Some(t.clone())]);
    }
    // SAFETY: as in `tensor_seq`.
    unsafe {
        let seq = ffi::PySequence_Fast(o.as_ptr(), c"".as_ptr());
        if seq.is_null() {
            ffi::PyErr_Clear();
            return Err(type_error(format!(
                "gradients must be Tensors, a sequence of Tensors or None, not {}",
                super::describe::type_name(o)
            )));
        }
        let seq = ObjectPtr::steal_or_err(seq)?;
        let len = ffi::PySequence_Fast_GET_SIZE(seq.as_ptr());
        let items = ffi::PySequence_Fast_ITEMS(seq.as_ptr());
        let mut out = Vec::with_capacity(len as usize);
        for i in 0..len {
            let item = Borrowed::from_ptr(*items.offset(i));
            if item.as_ptr() == ffi::Py_None() {
                out.push(None);
            } else {
                out.push(Some(
                    unpack(item)
                        .ok_or_else(|| type_error("gradients must be Tensors or None"))?
                        .clone(),
                ));
            }
        }
        Ok(out)
    }
}

const CREATE_GRAPH_WARNING: &str = "Using backward() with create_graph=True will create a reference cycle between the parameter and its gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid this. If you have to use this function, make sure to reset the .grad fields of your parameters to None after use to break the cycle and avoid the leak.";

/// The shared body of `Tensor.backward` and `autograd.backward`.
fn run_backward(
    tensors: Vec<Tensor>,
    grads: Vec<Option<Tensor>>,
    retain_graph: Option<bool>,
    create_graph: bool,
    inputs: Option<Vec<Tensor>>,
) -> PyResult<()> {
    if grads.len() != tensors.len() {
        return Err(runtime_error(format!(
            "grad_tensors should have the same length as tensors: got {} and {}",
            grads.len(),
            tensors.len()
        )));
    }
    if create_graph {
        warn(WarningKind::User, CREATE_GRAPH_WARNING);
    }
    let opts = BackwardOptions {
        keep_graph: retain_graph.unwrap_or(create_graph),
        create_graph,
    };
    autograd::backward(&tensors, &grads, opts, inputs.as_deref())?;
    Ok(())
}

fn optional_bool(o: Option<Borrowed<'_>>) -> PyResult<Option<bool>> {
    match o {
        None => Ok(None),
        // SAFETY: a live object.
        Some(o) => match unsafe { ffi::PyObject_IsTrue(o.as_ptr()) } {
            -1 => Err(super::errors::BindError::Python),
            v => Ok(Some(v == 1)),
        },
    }
}

/// `Tensor.backward(gradient=None, retain_graph=None, create_graph=False, inputs=None)`.
unsafe extern "C" fn tensor_backward(
    slf: *mut ffi::PyObject,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: method of `_C.Tensor` with a tuple and an optional dict.
        let (t, a) = unsafe {
            (
                this(slf).clone(),
                Args::new(
                    "backward",
                    &["gradient", "retain_graph", "create_graph", "inputs"],
                    args,
                    kwargs,
                )?,
            )
        };
        let gradient = match a.get(0, c"gradient") {
            None => None,
            Some(o) => Some(
                unpack(o)
                    .ok_or_else(|| {
                        type_error(format!(
                            "backward(): argument 'gradient' must be Tensor or None, not {}",
                            super::describe::type_name(o)
                        ))
                    })?
                    .clone(),
            ),
        };
        let retain = optional_bool(a.get(1, c"retain_graph"))?;
        let create = a.bool(2, c"create_graph", false)?;
        let inputs = match a.get(3, c"inputs") {
            None => None,
            Some(o) => Some(tensor_seq(o, "backward", "inputs")?),
        };
        run_backward(vec![t], vec![gradient], retain, create, inputs)?;
        Ok(none().release())
    })
}

/// `_C.autograd.backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
/// grad_variables=None, inputs=None)`.
unsafe extern "C" fn autograd_backward(
    _m: *mut ffi::PyObject,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: module function with a tuple and an optional dict.
        let a = unsafe {
            Args::new(
                "backward",
                &[
                    "tensors",
                    "grad_tensors",
                    "retain_graph",
                    "create_graph",
                    "grad_variables",
                    "inputs",
                ],
                args,
                kwargs,
            )?
        };
        let tensors = match a.get(0, c"tensors") {
            Some(o) => tensor_seq(o, "backward", "tensors")?,
            None => {
                return Err(type_error(
                    "backward() missing required argument 'tensors' (pos 1)",
                ))
            }
        };
        let grads = optional_tensor_seq(
            a.get(1, c"grad_tensors").or(a.get(4, c"grad_variables")),
            tensors.len(),
        )?;
        let retain = optional_bool(a.get(2, c"retain_graph"))?;
        let create = a.bool(3, c"create_graph", false)?;
        let inputs = match a.get(5, c"inputs") {
            None => None,
            Some(o) => Some(tensor_seq(o, "backward", "inputs")?),
        };
        run_backward(tensors, grads, retain, create, inputs)?;
        Ok(none().release())
    })
}

/// `_C.autograd.grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
/// only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False)`.
unsafe extern "C" fn autograd_grad(
    _m: *mut ffi::PyObject,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: module function with a tuple and an optional dict.
        let a = unsafe {
            Args::new(
                "grad",
                &[
                    "outputs",
                    "inputs",
                    "grad_outputs",
                    "retain_graph",
                    "create_graph",
                    "only_inputs",
                    "allow_unused",
                    "is_grads_batched",
                    "materialize_grads",
                ],
                args,
                kwargs,
            )?
        };
        let outputs = match a.get(0, c"outputs") {
            Some(o) => tensor_seq(o, "grad", "outputs")?,
            None => {
                return Err(type_error(
                    "grad() missing required argument 'outputs' (pos 1)",
                ))
            }
        };
        let inputs_obj = a
            .get(1, c"inputs")
            .ok_or_else(|| type_error("grad() missing required argument 'inputs' (pos 2)"))?;
        let single = unpack(inputs_obj).is_some();
        let inputs = tensor_seq(inputs_obj, "grad", "inputs")?;
        let grads = optional_tensor_seq(a.get(2, c"grad_outputs"), outputs.len())?;
        if grads.len() != outputs.len() {
            return Err(runtime_error(format!(
                "grad_outputs should have the same length as outputs: got {} and {}",
                grads.len(),
                outputs.len()
            )));
        }
        let create = a.bool(4, c"create_graph", false)?;
        let retain = optional_bool(a.get(3, c"retain_graph"))?.unwrap_or(create);
        let materialize = a.bool(8, c"materialize_grads", false)?;
        let allow_unused = optional_bool(a.get(6, c"allow_unused"))?.unwrap_or(materialize);
        if materialize && optional_bool(a.get(6, c"allow_unused"))? == Some(false) {
            return Err(super::errors::value_error(
                "Expected allow_unused to be True or not passed when materialize_grads=True, but got: allow_unused=False.",
            ));
        }
        if a.bool(7, c"is_grads_batched", false)? {
            return Err(runtime_error(
                "grad(): is_grads_batched=True is not supported by tensorbind yet",
            ));
        }
        let _ = single;
        let opts = BackwardOptions {
            keep_graph: retain,
            create_graph: create,
        };
        let result = autograd::grad(&outputs, &inputs, &grads, opts, allow_unused, materialize)?;
        // torch returns a tuple, one entry per input.
        // SAFETY: building a fresh tuple under the GIL; items are stolen.
        unsafe {
            let tuple = ObjectPtr::steal_or_err(ffi::PyTuple_New(result.len() as ffi::Py_ssize_t))?;
            for (i, g) in result.into_iter().enumerate() {
                let o = match g {
                    Some(g) => wrap(g)?,
                    None => none(),
                };
                ffi::PyTuple_SET_ITEM(tuple.as_ptr(), i as ffi::Py_ssize_t, o.release());
            }
            Ok(tuple.release())
        }
    })
}

// ---- tensor attributes ----------------------------------------------------------------------

unsafe extern "C" fn get_requires_grad(
    slf: *mut ffi::PyObject,
    _: *mut c_void,
) -> *mut ffi::PyObject {
    // SAFETY: getter of `_C.Tensor`.
    let t = unsafe { this(slf) };
    py_bool(t.requires_grad()).release()
}

unsafe extern "C" fn set_requires_grad(
    slf: *mut ffi::PyObject,
    value: *mut ffi::PyObject,
    _: *mut c_void,
) -> c_int {
    crate::handle_errors!({
        if value.is_null() {
            return Err(type_error("can't delete requires_grad"));
        }
        // SAFETY: setter of `_C.Tensor`; `value` a live borrowed object.
        let (t, v) = unsafe { (this(slf), Borrowed::from_ptr(value)) };
        if !is_bool(v) {
            return Err(type_error(format!(
                "requires_grad must be a bool, not {}",
                super::describe::type_name(v)
            )));
        }
        // SAFETY: identity comparison with the `True` singleton.
        t.set_requires_grad(value == unsafe { ffi::Py_True() })?;
        Ok(0)
    })
}

unsafe extern "C" fn get_is_leaf(slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    // SAFETY: getter of `_C.Tensor`.
    let t = unsafe { this(slf) };
    py_bool(t.is_leaf()).release()
}

unsafe extern "C" fn get_retains_grad(
    slf: *mut ffi::PyObject,
    _: *mut c_void,
) -> *mut ffi::PyObject {
    // SAFETY: getter of `_C.Tensor`.
    let t = unsafe { this(slf) };
    py_bool(t.retains_grad()).release()
}

unsafe extern "C" fn get_grad_fn(slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of `_C.Tensor`.
        let t = unsafe { this(slf) };
        match t.grad_fn() {
            Some(n) => Ok(wrap_node(&n)?.release()),
            None => Ok(none().release()),
        }
    })
}

unsafe extern "C" fn get_version(slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of `_C.Tensor`.
        let t = unsafe { this(slf) };
        if t.is_inference() {
            return Err(runtime_error(
                "Inference tensors do not track version counter.",
            ));
        }
        Ok(super::convert::py_int(t.version() as i64)?.release())
    })
}

unsafe extern "C" fn get_output_nr(slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of `_C.Tensor`.
        let t = unsafe { this(slf) };
        Ok(super::convert::py_int(t.output_nr() as i64)?.release())
    })
}

const NON_LEAF_GRAD_WARNING: &str = "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more information.";

unsafe extern "C" fn get_grad(slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of `_C.Tensor`.
        let t = unsafe { this(slf) };
        if !t.is_leaf() && !t.retains_grad() {
            warn(WarningKind::User, NON_LEAF_GRAD_WARNING);
        }
        match t.grad() {
            Some(g) => Ok(wrap(g)?.release()),
            None => Ok(none().release()),
        }
    })
}

unsafe extern "C" fn set_grad(
    slf: *mut ffi::PyObject,
    value: *mut ffi::PyObject,
    _: *mut c_void,
) -> c_int {
    crate::handle_errors!({
        // SAFETY: setter of `_C.Tensor`; `value` is NULL (`del t.grad`) or a live borrowed object.
        let t = unsafe { this(slf) };
        // SAFETY: identity comparison with the `None` singleton.
        if value.is_null() || value == unsafe { ffi::Py_None() } {
            t.set_grad(None)?;
            return Ok(0);
        }
        // SAFETY: a live borrowed object.
        let v = unsafe { Borrowed::from_ptr(value) };
        match unpack(v) {
            Some(g) => {
                t.set_grad(Some(g.clone()))?;
                Ok(0)
            }
            // torch: TypeError: assigned grad expected to be a Tensor or None but got grad of type str
            None => Err(type_error(format!(
                "assigned grad expected to be a Tensor or None but got grad of type {}",
                super::describe::type_name(v)
            ))),
        }
    })
}

unsafe extern "C" fn get_data(slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of `_C.Tensor`.
        let t = unsafe { this(slf) };
        Ok(wrap(t.data_alias())?.release())
    })
}

unsafe extern "C" fn set_data(
    slf: *mut ffi::PyObject,
    value: *mut ffi::PyObject,
    _: *mut c_void,
) -> c_int {
    crate::handle_errors!({
        if value.is_null() {
            return Err(type_error("can't delete data"));
        }
        // SAFETY: setter of `_C.Tensor`; a live borrowed value.
        let (t, v) = unsafe { (this(slf).clone(), Borrowed::from_ptr(value)) };
        let Some(new) = unpack(v) else {
            return Err(type_error(format!(
                "Variable data has to be a tensor, but got {}",
                super::describe::type_name(v)
            )));
        };
        // torch's `set_data`: the object keeps its identity and autograd state (requires_grad,
        // grad) over the new tensor's elements.
        let mut fresh = new.data_alias();
        if fresh.handles_to(&t) > 0 {
            // Small data lives inside its tensor: `t.data = t.data` would make the new tensor
            // hold the old one, which forwards to this object (Note [Borrowed tensors and
            // replaced handles]) — a cycle through Rust. A copy of the (at most 16) bytes holds
            // the same values.
            fresh = new.clone_data()?;
        }
        if t.is_leaf() && t.requires_grad() {
            fresh.set_requires_grad(true)?;
        }
        t.transfer_grad_to(&fresh);
        // SAFETY: `slf` is borrowed from CPython for this call; `fresh` has no Python object.
        unsafe { super::tensor_object::replace_tensor(Borrowed::from_ptr(slf), fresh) };
        Ok(0)
    })
}

// ---- tensor methods -------------------------------------------------------------------------

unsafe extern "C" fn tensor_requires_grad_(
    slf: *mut ffi::PyObject,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: method of `_C.Tensor`.
        let (t, a) = unsafe {
            (
                this(slf),
                Args::new("requires_grad_", &["requires_grad"], args, kwargs)?,
            )
        };
        let flag = a.bool(0, c"requires_grad", true)?;
        t.set_requires_grad(flag)?;
        // SAFETY: returning a new reference to self.
        Ok(unsafe { ObjectPtr::borrow(slf) }.release())
    })
}

unsafe extern "C" fn tensor_is_inference(
    slf: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // SAFETY: method of `_C.Tensor`.
    let t = unsafe { this(slf) };
    py_bool(t.is_inference()).release()
}

/// `_C.is_inference(input)` (torch.is_inference).
unsafe extern "C" fn is_inference(
    _m: *mut ffi::PyObject,
    o: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: METH_O: `o` is borrowed from the caller for this call.
        let b = unsafe { Borrowed::from_ptr(o) };
        match unpack(b) {
            Some(t) => Ok(py_bool(t.is_inference()).release()),
            None => Err(type_error(format!(
                "is_inference(): argument 'input' (position 1) must be Tensor, not {}",
                super::describe::type_name(b)
            ))),
        }
    })
}

unsafe extern "C" fn tensor_detach(
    slf: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: method of `_C.Tensor`.
        let t = unsafe { this(slf) };
        Ok(wrap(t.detach())?.release())
    })
}

unsafe extern "C" fn tensor_detach_(
    slf: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: method of `_C.Tensor`.
        let t = unsafe { this(slf) };
        if t.base().is_some() && !t.is_leaf() {
            return Err(runtime_error(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and hence detach_() cannot be called on these gradients. To fix this error, please refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.",
            ));
        }
        t.detach_in_place();
        // SAFETY: returning a new reference to self.
        Ok(unsafe { ObjectPtr::borrow(slf) }.release())
    })
}

unsafe extern "C" fn tensor_retain_grad(
    slf: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: method of `_C.Tensor`.
        let t = unsafe { this(slf) };
        t.retain_grad()?;
        Ok(none().release())
    })
}

/// The autograd methods of `_C.Tensor` (no sentinel).
pub fn tensor_methods() -> Vec<ffi::PyMethodDef> {
    vec![
        method_keywords(c"backward", tensor_backward, 0, c"backward(gradient=None, retain_graph=None, create_graph=False, inputs=None)\n--\n\nComputes the gradient of this tensor with respect to the graph leaves and accumulates it into their .grad (torch.Tensor.backward)."),
        method_keywords(c"requires_grad_", tensor_requires_grad_, 0, c"requires_grad_(requires_grad=True)\n--\n\nSets requires_grad in place (leaves only; floating-point dtypes only) and returns self."),
        method_noargs(c"detach", tensor_detach, c"detach()\n--\n\nA new tensor over the same elements, without history (shares the version counter)."),
        method_noargs(c"detach_", tensor_detach_, c"detach_()\n--\n\nDetaches this tensor from its graph in place: it becomes a leaf that does not require grad."),
        method_noargs(c"is_inference", tensor_is_inference, c"is_inference()\n--\n\nTrue for an inference tensor: one allocated inside inference_mode(), or a view of one (torch.Tensor.is_inference)."),
        method_noargs(c"retain_grad", tensor_retain_grad, c"retain_grad()\n--\n\nMakes backward fill .grad of this non-leaf tensor."),
    ]
    .into_iter()
    .chain(super::autograd_hooks::tensor_methods())
    .collect()
}

/// The autograd attributes of `_C.Tensor` (no sentinel).
pub fn tensor_getset() -> Vec<ffi::PyGetSetDef> {
    vec![
        getset(c"requires_grad", get_requires_grad, Some(set_requires_grad), c"Whether gradients are computed for this tensor (torch.Tensor.requires_grad); settable on leaves."),
        getter(c"is_leaf", get_is_leaf, c"True for a tensor without grad_fn (made by the user, not by an op recorded by autograd)."),
        getter(c"grad_fn", get_grad_fn, c"The graph node that made this tensor, or None for a leaf."),
        getter(c"retains_grad", get_retains_grad, c"True when retain_grad() was called on this non-leaf."),
        getter(c"_version", get_version, c"How many in-place writes this tensor (and its views) had."),
        getter(c"output_nr", get_output_nr, c"Which output of grad_fn this tensor is."),
        getset(c"data", get_data, Some(set_data), c"A tensor over the same elements without history and with its own version counter; assigning replaces this tensor's elements."),
        getset(
            c"grad",
            get_grad,
            Some(set_grad),
            c"The gradient accumulated by backward (or assigned), of this tensor's shape and dtype, or None (torch.Tensor.grad).",
        ),
    ]
}

// ---- grad modes -----------------------------------------------------------------------------

unsafe extern "C" fn is_grad_enabled(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    py_bool(autograd::is_grad_mode_enabled()).release()
}

unsafe extern "C" fn is_inference_mode_enabled(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    py_bool(autograd::is_inference_mode()).release()
}

/// A grad-mode object: `no_grad()`, `enable_grad()`, `set_grad_enabled(mode)`,
/// `inference_mode(mode=True)`; `prev` is the mode saved by `__enter__`.
#[repr(C)]
struct PyGradMode {
    ob_base: ffi::PyObject,
    /// What the mode sets: 0 = grad off, 1 = grad on, 2 = inference on, 3 = inference off.
    target: u8,
    /// Saved by `__enter__` (grad enabled, inference).
    prev_grad: bool,
    prev_inference: bool,
}

/// A function decorated with a grad-mode object.
#[repr(C)]
struct PyGradModeWrapped {
    ob_base: ffi::PyObject,
    target: u8,
    func: *mut ffi::PyObject,
}

static NO_GRAD_TYPE: StaticType = StaticType::new();
static ENABLE_GRAD_TYPE: StaticType = StaticType::new();
static SET_GRAD_ENABLED_TYPE: StaticType = StaticType::new();
static INFERENCE_MODE_TYPE: StaticType = StaticType::new();
static WRAPPED_TYPE: StaticType = StaticType::new();

/// Apply `target`, returning the previous (grad enabled, inference) pair.
fn apply_mode(target: u8) -> (bool, bool) {
    match target {
        0 | 1 => autograd::set_grad_enabled_prev(target == 1),
        2 => autograd::set_inference_mode(true),
        // torch's `InferenceMode(false)`: inference off and grad mode on, whatever came before.
        _ => autograd::set_inference_mode(false),
    }
}

unsafe fn alloc_mode(tp: *mut ffi::PyTypeObject, target: u8) -> *mut ffi::PyObject {
    // SAFETY: allocating an instance of a readied static type under the GIL.
    unsafe {
        let o = ffi::PyType_GenericAlloc(tp, 0);
        if !o.is_null() {
            (*(o as *mut PyGradMode)).target = target;
        }
        o
    }
}

unsafe extern "C" fn no_grad_new(
    tp: *mut ffi::PyTypeObject,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: tp_new with a tuple and optional dict.
        unsafe { Args::new("no_grad", &[], args, kwargs)? };
        // SAFETY: as `alloc_mode`.
        unsafe { ObjectPtr::steal_or_err(alloc_mode(tp, 0)).map(ObjectPtr::release) }
    })
}

unsafe extern "C" fn enable_grad_new(
    tp: *mut ffi::PyTypeObject,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: tp_new with a tuple and optional dict.
        unsafe { Args::new("enable_grad", &[], args, kwargs)? };
        // SAFETY: as `alloc_mode`.
        unsafe { ObjectPtr::steal_or_err(alloc_mode(tp, 1)).map(ObjectPtr::release) }
    })
}

unsafe extern "C" fn set_grad_enabled_new(
    tp: *mut ffi::PyTypeObject,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: tp_new with a tuple and optional dict.
        let a = unsafe { Args::new("set_grad_enabled", &["mode"], args, kwargs)? };
        let mode = match a.get(0, c"mode") {
            // SAFETY: identity comparison with the `True` singleton.
            Some(o) if is_bool(o) => o.as_ptr() == unsafe { ffi::Py_True() },
            Some(o) => {
                return Err(type_error(format!(
                    "set_grad_enabled(): argument 'mode' must be bool, not {}",
                    super::describe::type_name(o)
                )))
            }
            None => {
                return Err(type_error(
                    "set_grad_enabled() missing required argument 'mode' (pos 1)",
                ))
            }
        };
        // torch: the mode takes effect at construction (usable as a plain function call).
        let prev = autograd::set_grad_enabled(mode);
        // SAFETY: as `alloc_mode`.
        let o = unsafe { ObjectPtr::steal_or_err(alloc_mode(tp, mode as u8))? };
        // SAFETY: a fresh instance of our type.
        unsafe {
            (*(o.as_ptr() as *mut PyGradMode)).prev_grad = prev;
            (*(o.as_ptr() as *mut PyGradMode)).prev_inference = autograd::is_inference_mode();
        }
        Ok(o.release())
    })
}

unsafe extern "C" fn inference_mode_new(
    tp: *mut ffi::PyTypeObject,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: tp_new with a tuple and optional dict.
        let a = unsafe { Args::new("inference_mode", &["mode"], args, kwargs)? };
        // torch: `inference_mode(func)` (the decorator without parentheses) is
        // `inference_mode()(func)`.
        let func = match a.get(0, c"mode") {
            // SAFETY: GIL held; `o` is borrowed from the arguments for this call.
            Some(o) if !is_bool(o) && unsafe { ffi::PyCallable_Check(o.as_ptr()) } != 0 => Some(o),
            _ => None,
        };
        let mode = if func.is_some() {
            true
        } else {
            a.bool(0, c"mode", true)?
        };
        // SAFETY: as `alloc_mode`.
        let o = unsafe { ObjectPtr::steal_or_err(alloc_mode(tp, if mode { 2 } else { 3 }))? };
        match func {
            None => Ok(o.release()),
            Some(f) => {
                let call_args = super::hook_dicts::tuple(vec![f.to_owned()])?;
                // SAFETY: `o` is a live grad-mode object; `mode_call` borrows both arguments.
                unsafe {
                    ObjectPtr::steal_or_err(mode_call(o.as_ptr(), call_args.as_ptr(), null_mut()))
                }
                .map(ObjectPtr::release)
            }
        }
    })
}

// Note [Idle grad-mode objects]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// `with no_grad(): pass` (issue 12: <= 100 ns) is mostly CPython's own work: making the object,
// and `BEFORE_WITH` looking up `__enter__` and `__exit__`, each lookup making a bound method
// object (allocated, GC-tracked, freed). For `no_grad()` and `enable_grad()` called without
// arguments, each type keeps one *idle* object with its two bound methods made once
// (`IdleMode`), and hands out a new reference to it when nothing else holds it: the object
// holds 3 references then (the slot's and its two bound methods'), and each bound method 1 (the
// slot's). A `with` block holds the object's bound `__exit__` until the block ends, so nested
// blocks (and any object or bound method kept by the caller) see the idle object busy and get a
// fresh object, exactly as before. The types' `__enter__` and `__exit__` are `ModeMethod`
// descriptors wrapping the ordinary method descriptors: for the idle object they return its
// bound method (a new reference), for any other object or the class what the wrapped
// descriptor returns. The state (`prev_grad`, `prev_inference`) is written by `__enter__` and
// reset when the object is handed out again, so a reused object behaves as a fresh one. All of
// it is read and written with the GIL held.

/// A grad-mode type's idle object and its bound `__enter__` / `__exit__` (strong references
/// owned by the slot, made on first use, kept for the life of the process).
struct IdleMode {
    obj: std::cell::Cell<*mut ffi::PyObject>,
    bound: [std::cell::Cell<*mut ffi::PyObject>; 2],
}

// SAFETY: read and written only with the GIL held (`idle_mode`, `mode_method_get`).
unsafe impl Sync for IdleMode {}

impl IdleMode {
    const fn new() -> IdleMode {
        IdleMode {
            obj: std::cell::Cell::new(null_mut()),
            bound: [
                std::cell::Cell::new(null_mut()),
                std::cell::Cell::new(null_mut()),
            ],
        }
    }
}

static IDLE_NO_GRAD: IdleMode = IdleMode::new();
static IDLE_ENABLE: IdleMode = IdleMode::new();

/// The idle slot of a grad-mode type, if it has one.
fn idle_of(tp: *mut ffi::PyTypeObject) -> Option<&'static IdleMode> {
    if tp == NO_GRAD_TYPE.as_ptr() {
        Some(&IDLE_NO_GRAD)
    } else if tp == ENABLE_GRAD_TYPE.as_ptr() {
        Some(&IDLE_ENABLE)
    } else {
        None
    }
}

/// A new reference to `tp`'s idle object when it is idle (made on first use), else a fresh
/// object (Note [Idle grad-mode objects]).
///
/// # Safety
/// GIL held; `tp` is the no_grad or enable_grad type and `idle` its slot.
unsafe fn idle_mode(tp: *mut ffi::PyTypeObject, target: u8, idle: &IdleMode) -> *mut ffi::PyObject {
    // SAFETY: the GIL is held (contract), which serialises every access to `idle`; the objects
    // it holds are strong references owned by the slot, so they are alive.
    unsafe {
        let o = idle.obj.get();
        if !o.is_null() {
            let [e, x] = [idle.bound[0].get(), idle.bound[1].get()];
            if ffi::Py_REFCNT(o) == 3 && ffi::Py_REFCNT(e) == 1 && ffi::Py_REFCNT(x) == 1 {
                // As a fresh object: `__exit__` without `__enter__` restores what zeroed
                // fields say.
                (*(o as *mut PyGradMode)).prev_grad = false;
                (*(o as *mut PyGradMode)).prev_inference = false;
                ffi::Py_INCREF(o);
                return o;
            }
            return alloc_mode(tp, target);
        }
        let o = alloc_mode(tp, target);
        if o.is_null() {
            return o;
        }
        // Make the bound methods with the wrapped descriptors; on failure, no idle object
        // (the caller still gets `o`).
        let mut bound = [null_mut(); 2];
        for (i, name) in [c"__enter__", c"__exit__"].into_iter().enumerate() {
            let d = ffi::PyDict_GetItemString((*tp).tp_dict, name.as_ptr()); // borrowed
            let real = if d.is_null() || ffi::Py_TYPE(d) != MODE_METHOD_TYPE.as_ptr() {
                null_mut()
            } else {
                (*(d as *mut PyModeMethod)).real
            };
            let get = if real.is_null() {
                None
            } else {
                (*ffi::Py_TYPE(real)).tp_descr_get
            };
            bound[i] = match get {
                Some(get) => get(real, o, tp as *mut ffi::PyObject),
                None => null_mut(),
            };
        }
        if bound.iter().any(|b| b.is_null()) {
            ffi::PyErr_Clear();
            for b in bound {
                ffi::Py_XDECREF(b);
            }
            return o;
        }
        // The slot keeps its own (new) reference to `o`; the caller gets the one alloc made.
        ffi::Py_INCREF(o);
        idle.obj.set(o);
        idle.bound[0].set(bound[0]);
        idle.bound[1].set(bound[1]);
        o
    }
}

/// `__enter__` / `__exit__` of no_grad and enable_grad (Note [Idle grad-mode objects]): wraps
/// the ordinary method descriptor `real` (a strong reference); `which` is 0 for `__enter__`.
#[repr(C)]
struct PyModeMethod {
    ob_base: ffi::PyObject,
    real: *mut ffi::PyObject,
    which: usize,
}

static MODE_METHOD_TYPE: StaticType = StaticType::new();

unsafe extern "C" fn mode_method_get(
    slf: *mut ffi::PyObject,
    obj: *mut ffi::PyObject,
    tp: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // SAFETY: `tp_descr_get` of our descriptor type, called by CPython with the GIL held; `slf`
    // is a live `PyModeMethod` whose `real` it owns; `obj` (may be NULL) and `tp` are borrowed.
    unsafe {
        let d = slf as *mut PyModeMethod;
        if !obj.is_null() {
            if let Some(idle) = idle_of(ffi::Py_TYPE(obj)) {
                if obj == idle.obj.get() {
                    let b = idle.bound[(*d).which].get();
                    ffi::Py_INCREF(b);
                    return b;
                }
            }
        }
        let real = (*d).real;
        match (*ffi::Py_TYPE(real)).tp_descr_get {
            Some(get) => get(real, obj, tp),
            None => {
                ffi::Py_INCREF(real);
                real
            }
        }
    }
}

unsafe extern "C" fn mode_method_dealloc(slf: *mut ffi::PyObject) {
    // SAFETY: `tp_dealloc` of our descriptor type: `real` is owned; the memory came from
    // `PyType_GenericAlloc` (the type's `tp_free` is `PyObject_Free`).
    unsafe {
        ffi::Py_XDECREF((*(slf as *mut PyModeMethod)).real);
        ffi::PyObject_Free(slf.cast());
    }
}

/// Replace `tp`'s `__enter__` and `__exit__` by `ModeMethod` descriptors wrapping them.
///
/// # Safety
/// GIL held, at module initialisation, after `tp` and `MODE_METHOD_TYPE` are ready.
unsafe fn wrap_mode_methods(tp: *mut ffi::PyTypeObject) -> PyResult<()> {
    // SAFETY: contract; `tp_dict` is the readied type's dict; every object made here is owned
    // by an `ObjectPtr` until the dict takes its own reference.
    unsafe {
        for (which, name) in [c"__enter__", c"__exit__"].into_iter().enumerate() {
            let real = ffi::PyDict_GetItemString((*tp).tp_dict, name.as_ptr()); // borrowed
            if real.is_null() {
                return Err(runtime_error(
                    "internal error: a grad mode has no __enter__/__exit__",
                ));
            }
            let o =
                ObjectPtr::steal_or_err(ffi::PyType_GenericAlloc(MODE_METHOD_TYPE.as_ptr(), 0))?;
            let d = o.as_ptr() as *mut PyModeMethod;
            ffi::Py_INCREF(real);
            (*d).real = real;
            (*d).which = which;
            if ffi::PyDict_SetItemString((*tp).tp_dict, name.as_ptr(), o.as_ptr()) < 0 {
                return Err(super::errors::BindError::Python);
            }
        }
        ffi::PyType_Modified(tp);
        Ok(())
    }
}

/// `no_grad()` / `enable_grad()` (the types' `tp_vectorcall`, as CPython's own types have): with
/// no argument the object is made directly, without `tp_call`'s argument tuple, `tp_new`'s
/// parsing and `tp_init` (a third of `with no_grad(): pass`); any argument goes through `tp_new`,
/// which raises its error.
unsafe extern "C" fn mode_vectorcall(
    callable: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargsf: usize,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    let tp = callable as *mut ffi::PyTypeObject;
    // SAFETY: CPython's vectorcall protocol: `callable` is one of our two types (they cannot be
    // subclassed), `args` holds `nargs` positional then `len(kwnames)` keyword values, all
    // borrowed for this call; `kwnames` is NULL or a tuple of str.
    unsafe {
        let nargs = ffi::PyVectorcall_NARGS(nargsf);
        let nkw = if kwnames.is_null() {
            0
        } else {
            ffi::PyTuple_GET_SIZE(kwnames)
        };
        if nargs == 0 && nkw == 0 {
            let enable = tp == ENABLE_GRAD_TYPE.as_ptr();
            return idle_mode(
                tp,
                u8::from(enable),
                if enable { &IDLE_ENABLE } else { &IDLE_NO_GRAD },
            );
        }
        let Some(tuple) = ObjectPtr::steal(ffi::PyTuple_New(nargs)) else {
            return null_mut();
        };
        for i in 0..nargs {
            let o = *args.offset(i);
            ffi::Py_INCREF(o);
            // Steals the new reference into the fresh tuple.
            ffi::PyTuple_SET_ITEM(tuple.as_ptr(), i, o);
        }
        let dict = if nkw > 0 {
            let Some(d) = ObjectPtr::steal(ffi::PyDict_New()) else {
                return null_mut();
            };
            for i in 0..nkw {
                let k = ffi::PyTuple_GET_ITEM(kwnames, i);
                if ffi::PyDict_SetItem(d.as_ptr(), k, *args.offset(nargs + i)) < 0 {
                    return null_mut();
                }
            }
            Some(d)
        } else {
            None
        };
        match (*tp).tp_new {
            Some(new) => new(
                tp,
                tuple.as_ptr(),
                dict.as_ref().map_or(null_mut(), |d| d.as_ptr()),
            ),
            None => null_mut(),
        }
    }
}

unsafe extern "C" fn mode_enter(
    slf: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // SAFETY: method of a grad-mode type.
    unsafe {
        let p = slf as *mut PyGradMode;
        if ffi::Py_TYPE(slf) == SET_GRAD_ENABLED_TYPE.as_ptr() {
            // Already applied at construction.
        } else {
            let (g, i) = apply_mode((*p).target);
            (*p).prev_grad = g;
            (*p).prev_inference = i;
        }
        let none = ffi::Py_None();
        ffi::Py_INCREF(none);
        none
    }
}

unsafe extern "C" fn mode_exit(
    slf: *mut ffi::PyObject,
    _args: *mut *mut ffi::PyObject,
    _nargs: ffi::Py_ssize_t,
) -> *mut ffi::PyObject {
    // SAFETY: method of a grad-mode type.
    unsafe {
        let p = slf as *mut PyGradMode;
        autograd::restore_mode(((*p).prev_grad, (*p).prev_inference));
        // torch's `__exit__` returns None (a falsy result: exceptions propagate).
        let none = ffi::Py_None();
        ffi::Py_INCREF(none);
        none
    }
}

/// `mode(func)`: a callable running `func` under the mode.
unsafe extern "C" fn mode_call(
    slf: *mut ffi::PyObject,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: tp_call with a tuple and optional dict.
        unsafe {
            if ffi::PyTuple_GET_SIZE(args) != 1
                || !kwargs.is_null() && ffi::PyDict_Size(kwargs) != 0
            {
                return Err(type_error(
                    "a grad mode used as a decorator takes one function",
                ));
            }
            let func = ffi::PyTuple_GET_ITEM(args, 0);
            if ffi::PyCallable_Check(func) == 0 {
                return Err(type_error(
                    "a grad mode used as a decorator takes a callable",
                ));
            }
            let o = ObjectPtr::steal_or_err(ffi::PyType_GenericAlloc(WRAPPED_TYPE.as_ptr(), 0))?;
            let w = o.as_ptr() as *mut PyGradModeWrapped;
            (*w).target = (*(slf as *mut PyGradMode)).target;
            ffi::Py_INCREF(func);
            (*w).func = func;
            // Attribute reads (`__name__`, `__doc__`) go through to `func` (wrapped_getattro).
            Ok(o.release())
        }
    })
}

unsafe extern "C" fn wrapped_call(
    slf: *mut ffi::PyObject,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // SAFETY: tp_call of our wrapper type; `func` is owned by it (NULL only after `tp_clear`,
    // when a cycle holding the wrapper is being collected: then a RuntimeError, not a crash).
    // The call owns a new reference to `func` for its duration, so the wrapped function cannot
    // free it (e.g. by clearing the wrapper) while it runs.
    unsafe {
        let w = slf as *mut PyGradModeWrapped;
        let f = (*w).func;
        if f.is_null() {
            ffi::PyErr_SetString(
                ffi::PyExc_RuntimeError,
                c"grad-mode decorated function: the wrapped function was cleared by the garbage collector".as_ptr(),
            );
            return null_mut();
        }
        let f = ObjectPtr::borrow(f);
        let prev = apply_mode((*w).target);
        let r = ffi::PyObject_Call(f.as_ptr(), args, kwargs);
        autograd::restore_mode(prev);
        r
    }
}

unsafe extern "C" fn wrapped_dealloc(slf: *mut ffi::PyObject) {
    // SAFETY: a dying instance of our GC wrapper type, GIL held.
    unsafe {
        ffi::PyObject_GC_UnTrack(slf.cast());
        let w = slf as *mut PyGradModeWrapped;
        let f = std::mem::replace(&mut (*w).func, null_mut());
        if !f.is_null() {
            ffi::Py_DECREF(f);
        }
        ffi::PyObject_GC_Del(slf.cast());
    }
}

unsafe extern "C" fn wrapped_traverse(
    slf: *mut ffi::PyObject,
    visit: ffi::visitproc,
    arg: *mut c_void,
) -> c_int {
    // SAFETY: GC callback.
    unsafe {
        let f = (*(slf as *mut PyGradModeWrapped)).func;
        if !f.is_null() {
            return visit(f, arg);
        }
    }
    0
}

unsafe extern "C" fn wrapped_clear(slf: *mut ffi::PyObject) -> c_int {
    // SAFETY: GC callback.
    unsafe {
        let f = std::mem::replace(&mut (*(slf as *mut PyGradModeWrapped)).func, null_mut());
        if !f.is_null() {
            ffi::Py_DECREF(f);
        }
    }
    0
}

unsafe extern "C" fn wrapped_getattro(
    slf: *mut ffi::PyObject,
    name: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // SAFETY: the wrapped function's attributes (`__name__`, `__doc__`) are read through.
    unsafe {
        let func = (*(slf as *mut PyGradModeWrapped)).func;
        if ffi::PyUnicode_CompareWithASCIIString(name, c"__doc__".as_ptr()) == 0 && !func.is_null()
        {
            return ffi::PyObject_GetAttr(func, name);
        }
        let r = ffi::PyObject_GenericGetAttr(slf, name);
        if !r.is_null() {
            return r;
        }
        let func = (*(slf as *mut PyGradModeWrapped)).func;
        if func.is_null() {
            return r; // cleared by the GC: the generic AttributeError stands
        }
        ffi::PyErr_Clear();
        ffi::PyObject_GetAttr(func, name)
    }
}

static mut MODE_METHODS: [ffi::PyMethodDef; 3] = [
    method_noargs(c"__enter__", mode_enter, c"Enter the mode."),
    ffi::PyMethodDef {
        ml_name: c"__exit__".as_ptr(),
        ml_meth: ffi::PyMethodDefPointer {
            PyCFunctionFast: mode_exit,
        },
        ml_flags: ffi::METH_FASTCALL,
        ml_doc: c"Leave the mode, restoring the previous one.".as_ptr(),
    },
    METHODS_END,
];

static mut NO_GETSET: [ffi::PyGetSetDef; 1] = [GETSET_END];

/// Module functions of this file (no sentinel).
pub fn functions() -> Vec<ffi::PyMethodDef> {
    vec![
        method_noargs(c"is_grad_enabled", is_grad_enabled, c"is_grad_enabled()\n--\n\nTrue when gradients are recorded on this thread (torch.is_grad_enabled)."),
        method_o(c"is_inference", is_inference, c"is_inference(input)\n--\n\nTrue when input is an inference tensor (torch.is_inference)."),
        method_noargs(c"is_inference_mode_enabled", is_inference_mode_enabled, c"is_inference_mode_enabled()\n--\n\nTrue inside inference_mode() on this thread."),
        method_keywords(c"_autograd_backward", autograd_backward, 0, c"_autograd_backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None)\n--\n\ntorch.autograd.backward (exported as _C.autograd.backward)."),
        method_keywords(c"_autograd_grad", autograd_grad, 0, c"_autograd_grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False)\n--\n\ntorch.autograd.grad (exported as _C.autograd.grad)."),
    ]
    .into_iter()
    .chain(super::autograd_hooks::functions())
    .collect()
}

/// Ready the grad-mode types and add them to `module`.
///
/// # Safety
/// Called once, with the GIL held, at module initialisation.
pub unsafe fn init(module: *mut ffi::PyObject) -> PyResult<()> {
    super::autograd_hooks::init();
    let methods = addr_of_mut!(MODE_METHODS) as *mut ffi::PyMethodDef;
    let getset = addr_of_mut!(NO_GETSET) as *mut ffi::PyGetSetDef;
    let size = std::mem::size_of::<PyGradMode>();
    // SAFETY: single-threaded initialisation under the GIL.
    unsafe {
        for (ty, name, pyname, new, doc) in [
            (&NO_GRAD_TYPE, c"_C.no_grad", "no_grad", no_grad_new as ffi::newfunc, c"Context manager and decorator that disables gradient recording on this thread (torch.no_grad)."),
            (&ENABLE_GRAD_TYPE, c"_C.enable_grad", "enable_grad", enable_grad_new as ffi::newfunc, c"Context manager and decorator that enables gradient recording on this thread (torch.enable_grad)."),
            (&SET_GRAD_ENABLED_TYPE, c"_C.set_grad_enabled", "set_grad_enabled", set_grad_enabled_new as ffi::newfunc, c"set_grad_enabled(mode): sets gradient recording on or off now; as a context manager, restores the previous mode on exit (torch.set_grad_enabled)."),
            (&INFERENCE_MODE_TYPE, c"_C.inference_mode", "inference_mode", inference_mode_new as ffi::newfunc, c"inference_mode(mode=True)\n--\n\nContext manager and decorator (torch.inference_mode): inside, nothing is recorded (also under enable_grad()) and every tensor allocated is an inference tensor (is_inference()): outside inference mode such a tensor cannot be modified in place, saved for backward or made to require grad (RuntimeError, torch's texts), and has no _version. mode=False turns inference mode off and grad mode on. Thread-local; usable as @inference_mode, @inference_mode() or @inference_mode(False)."),
        ] {
            ty.ready(&TypeSpec {
                basicsize: size,
                new: Some(new),
                call: Some(mode_call),
                alloc: Some(ffi::PyType_GenericAlloc),
                free: Some(ffi::PyObject_Free),
                methods,
                getset,
                ..TypeSpec::new(name, doc)
            })?;
            add_object(module, pyname, ObjectPtr::borrow(ty.as_ptr() as *mut ffi::PyObject))?;
        }
        MODE_METHOD_TYPE.ready(&TypeSpec {
            basicsize: std::mem::size_of::<PyModeMethod>(),
            alloc: Some(ffi::PyType_GenericAlloc),
            free: Some(ffi::PyObject_Free),
            dealloc: Some(mode_method_dealloc),
            ..TypeSpec::new(
                c"_C._ModeMethod",
                c"__enter__ / __exit__ of no_grad and enable_grad: the ordinary method, bound without an allocation for the type's reusable instance.",
            )
        })?;
        (*MODE_METHOD_TYPE.as_ptr()).tp_descr_get = Some(mode_method_get);
        for ty in [&NO_GRAD_TYPE, &ENABLE_GRAD_TYPE] {
            (*ty.as_ptr()).tp_vectorcall = Some(mode_vectorcall);
            wrap_mode_methods(ty.as_ptr())?;
        }
        WRAPPED_TYPE.ready(&TypeSpec {
            basicsize: std::mem::size_of::<PyGradModeWrapped>(),
            flags: (ffi::Py_TPFLAGS_DEFAULT | ffi::Py_TPFLAGS_HAVE_GC) as _,
            call: Some(wrapped_call),
            dealloc: Some(wrapped_dealloc),
            traverse: Some(wrapped_traverse),
            clear: Some(wrapped_clear),
            getattro: Some(wrapped_getattro),
            alloc: Some(ffi::PyType_GenericAlloc),
            free: Some(ffi::PyObject_GC_Del),
            ..TypeSpec::new(
                c"_C._grad_mode_function",
                c"A function run under a grad mode (made by using no_grad() etc. as a decorator).",
            )
        })?;
    }
    Ok(())
}
