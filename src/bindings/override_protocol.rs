//! src/bindings/override_protocol.rs: the override protocol, `__tensorbind_function__`
//! (PyTorch: `__torch_function__`, `torch/csrc/utils/python_arg_parser.cpp` and
//! `torch/overrides.py`).
//!
//! Layer 2 (calling): see src/bindings/mod.rs.
//!
//! When an argument bound to a `Tensor` parameter of a `_C` function or method is an instance of
//! a `_C.Tensor` subclass, or any object whose type defines `__tensorbind_function__`, the parser
//! records it as an *overloaded argument*. The call then goes to
//! `type(arg).__tensorbind_function__(func, types, args, kwargs)` for each overloaded argument in
//! torch's order — subclasses before their superclasses, otherwise left to right — until one
//! returns something other than `NotImplemented`. `_C.Tensor`'s own implementation runs the op
//! with the protocol disabled and converts tensor results to the caller's subclass, as torch's
//! default `Tensor.__torch_function__` does.
//!
//! The name differs from torch's on purpose: a `_C.Tensor` (or subclass) handed to torch must not
//! be mistaken for a torch tensor subclass. The common path costs one pointer comparison per
//! tensor argument: an exact `_C.Tensor` never overrides.

use super::errors::{type_error, BindError, PyResult};
use super::object_ptr::{Borrowed, ObjectPtr};
use super::tensor_object::{alloc_with, is_tensor, tensor_ref, tensor_type};
use pyo3_ffi as ffi;
use std::cell::Cell;
use std::sync::atomic::{AtomicPtr, Ordering};

/// Most overloaded arguments one call records (torch has no limit; more is not meaningful).
pub const MAX_OVERLOADED: usize = 8;

/// The protocol's attribute name.
pub const PROTOCOL_NAME: &std::ffi::CStr = c"__tensorbind_function__";

thread_local! {
    /// True while `_C.Tensor.__tensorbind_function__` runs the op itself (torch's
    /// `DisableTorchFunctionSubclass`), so subclass arguments do not dispatch again.
    static DISABLED: Cell<bool> = const { Cell::new(false) };
}

/// The overloaded arguments of one call, in dispatch order. Each is an owned reference, taken
/// when it is recorded: the handlers the protocol calls are Python code, which may drop the
/// arguments (clear a list passed in) while the loop still needs them.
pub struct Overloaded {
    args: [Option<ObjectPtr>; MAX_OVERLOADED],
    len: usize,
    /// More than `MAX_OVERLOADED` distinct types were seen: dispatching raises.
    overflow: bool,
}

impl Default for Overloaded {
    fn default() -> Self {
        Self::new()
    }
}

impl Overloaded {
    pub const fn new() -> Self {
        Overloaded {
            args: [const { None }; MAX_OVERLOADED],
            len: 0,
            overflow: false,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0 && !self.overflow
    }

    fn iter(&self) -> impl Iterator<Item = Borrowed<'_>> + '_ {
        self.args[..self.len]
            .iter()
            .map(|a| a.as_ref().expect("set below len").as_borrowed())
    }

    /// Record `o` in torch's order: skip it if its type is already recorded; otherwise insert it
    /// before the first recorded argument whose type is a superclass of its type, else append.
    /// A new reference to `o` is taken at once (no Python code runs here).
    pub fn push(&mut self, o: Borrowed<'_>) {
        let tp = o.type_ptr();
        if self.iter().any(|a| a.type_ptr() == tp) {
            return;
        }
        if self.len == MAX_OVERLOADED {
            self.overflow = true;
            return;
        }
        let at = self
            .iter()
            // SAFETY: reading the MROs of live types.
            .position(|a| unsafe { ffi::PyType_IsSubtype(tp, a.type_ptr()) != 0 })
            .unwrap_or(self.len);
        self.args[at..=self.len].rotate_right(1);
        self.args[at] = Some(o.to_owned());
        self.len += 1;
    }

    /// The list with a method's bound `self` considered first (leftmost), as torch does.
    pub fn with_self(self, self_obj: Borrowed<'_>) -> Overloaded {
        if !overrides(self_obj) {
            return self;
        }
        let mut out = Overloaded::new();
        out.push(self_obj);
        for a in self.iter() {
            out.push(a);
        }
        out.overflow |= self.overflow;
        out
    }
}

/// The protocol's name as an interned str, made once (owned by this static forever).
static PROTOCOL_NAME_STR: AtomicPtr<ffi::PyObject> = AtomicPtr::new(std::ptr::null_mut());

/// Intern the protocol name; called once from module initialisation.
///
/// # Safety
/// The GIL is held.
pub unsafe fn init() -> PyResult<()> {
    // SAFETY: GIL held (contract); a new reference or NULL with an error set.
    let s = unsafe {
        ObjectPtr::steal_or_err(ffi::PyUnicode_InternFromString(PROTOCOL_NAME.as_ptr()))?
    };
    PROTOCOL_NAME_STR.store(s.release(), Ordering::Release);
    Ok(())
}

/// True for the builtin types that never define the protocol (torch's `is_basic_python_type`).
#[inline(always)]
fn is_basic_type(tp: *mut ffi::PyTypeObject) -> bool {
    // SAFETY: only the addresses of the static builtin type objects are taken.
    unsafe {
        [
            &raw mut ffi::PyFloat_Type,
            &raw mut ffi::PyLong_Type,
            &raw mut ffi::PyBool_Type,
            &raw mut ffi::PyUnicode_Type,
            &raw mut ffi::PyList_Type,
            &raw mut ffi::PyTuple_Type,
            &raw mut ffi::PyDict_Type,
            &raw mut ffi::PyComplex_Type,
        ]
        .contains(&tp)
            || tp == ffi::Py_TYPE(ffi::Py_None())
    }
}

/// True when `o`, bound to a `Tensor` parameter, makes the call dispatch through the protocol.
/// An exact `_C.Tensor` costs one comparison; builtin values a second; anything else one
/// exception-free type lookup.
#[inline(always)]
pub fn overrides(o: Borrowed<'_>) -> bool {
    let tp = o.type_ptr();
    if tp == tensor_type() || is_basic_type(tp) || DISABLED.with(Cell::get) {
        return false;
    }
    let name = PROTOCOL_NAME_STR.load(Ordering::Acquire);
    // SAFETY: `tp` is a live type and `name` an interned str (set at init); the lookup returns a
    // borrowed reference or NULL and never raises.
    !name.is_null() && unsafe { !super::cpython_ext::_PyType_Lookup(tp, name).is_null() }
}

/// Call the protocol for a call whose parser recorded `overloaded`. `owner` is the module (for a
/// function) or `_C.Tensor` (for a method), where `name` is looked up to get `func`; `self_obj` is
/// the bound tensor of a method call. The vectorcall arguments are passed on unchanged.
///
/// # Safety
/// As `PythonArgParser::parse`: `args` holds `nargs + len(kwnames)` live borrowed objects.
pub unsafe fn dispatch(
    overloaded: &Overloaded,
    owner: *mut ffi::PyObject,
    name: &str,
    self_obj: Option<Borrowed<'_>>,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> PyResult<*mut ffi::PyObject> {
    if overloaded.overflow {
        // torch has no limit; more distinct overriding types in one call is not meaningful.
        return Err(type_error(format!(
            "{name}(): too many distinct types implement __tensorbind_function__ in one call (at most {MAX_OVERLOADED})"
        )));
    }
    // SAFETY: contract; each CPython call returns a new reference or NULL with an error set
    // (checked by `steal_or_err`), and `PyTuple_SET_ITEM` steals into empty slots of fresh tuples.
    // The overloaded arguments are owned by `overloaded` for the whole loop.
    unsafe {
        let cname = super::errors::c_string(name);
        let func = ObjectPtr::steal_or_err(ffi::PyObject_GetAttrString(owner, cname.as_ptr()))?;
        let lead = self_obj.is_some() as usize;
        let pos = ObjectPtr::steal_or_err(ffi::PyTuple_New(nargs + lead as ffi::Py_ssize_t))?;
        if let Some(s) = self_obj {
            ffi::PyTuple_SET_ITEM(pos.as_ptr(), 0, s.to_owned().release());
        }
        for i in 0..nargs as usize {
            let a = Borrowed::from_ptr(*args.add(i)).to_owned();
            ffi::PyTuple_SET_ITEM(pos.as_ptr(), (i + lead) as ffi::Py_ssize_t, a.release());
        }
        let kwargs = ObjectPtr::steal_or_err(ffi::PyDict_New())?;
        if !kwnames.is_null() {
            for k in 0..ffi::PyTuple_GET_SIZE(kwnames) {
                let key = ffi::PyTuple_GET_ITEM(kwnames, k);
                if ffi::PyDict_SetItem(kwargs.as_ptr(), key, *args.add(nargs as usize + k as usize))
                    < 0
                {
                    return Err(BindError::Python);
                }
            }
        }
        let types = ObjectPtr::steal_or_err(ffi::PyTuple_New(overloaded.len as ffi::Py_ssize_t))?;
        for (i, a) in overloaded.iter().enumerate() {
            let tp = ObjectPtr::borrow(a.type_ptr() as *mut ffi::PyObject);
            ffi::PyTuple_SET_ITEM(types.as_ptr(), i as ffi::Py_ssize_t, tp.release());
        }
        for a in overloaded.iter() {
            let handler = ObjectPtr::steal_or_err(ffi::PyObject_GetAttrString(
                a.as_ptr(),
                PROTOCOL_NAME.as_ptr(),
            ))?;
            let ret = ObjectPtr::steal_or_err(ffi::PyObject_CallFunctionObjArgs(
                handler.as_ptr(),
                func.as_ptr(),
                types.as_ptr(),
                pos.as_ptr(),
                kwargs.as_ptr(),
                std::ptr::null_mut::<ffi::PyObject>(),
            ))?;
            if ret.as_ptr() != ffi::Py_NotImplemented() {
                return Ok(ret.release());
            }
        }
        // torch: TypeError: no implementation found for 'torch.add' on types that implement __torch_function__: [<class 'X'>]
        let names: Vec<String> = overloaded
            .iter()
            .map(|a| format!("<class '{}'>", type_qualname(a)))
            .collect();
        let owner_name = if owner == tensor_type() as *mut ffi::PyObject {
            "_C.Tensor."
        } else {
            "_C."
        };
        Err(type_error(format!(
            "no implementation found for '{owner_name}{name}' on types that implement __tensorbind_function__: [{}]",
            names.join(", ")
        )))
    }
}

/// `module.QualName` of `o`'s type, for messages.
fn type_qualname(o: Borrowed<'_>) -> String {
    // SAFETY: `tp_name` of a live type is a NUL-terminated string.
    unsafe {
        std::ffi::CStr::from_ptr((*o.type_ptr()).tp_name)
            .to_string_lossy()
            .into_owned()
    }
}

/// Runs `f` with the protocol disabled on this thread (restored on exit, also on error).
fn with_disabled<T>(f: impl FnOnce() -> T) -> T {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            DISABLED.with(|d| d.set(self.0));
        }
    }
    let _restore = Restore(DISABLED.with(|d| d.replace(true)));
    f()
}

/// `obj` converted to `cls` when it is a tensor that is not already an instance of `cls`: a new
/// object of type `cls` over an alias of the tensor (torch's `Tensor.as_subclass`). Tuples and
/// lists are converted element by element; anything else is returned as is.
///
/// # Safety
/// The GIL is held; `cls` is a subtype of `_C.Tensor`; `obj` is owned.
unsafe fn convert(obj: ObjectPtr, cls: *mut ffi::PyTypeObject) -> PyResult<ObjectPtr> {
    // SAFETY: contract; type checks and reads of live objects; new tuples filled by stealing.
    unsafe {
        let b = obj.as_borrowed();
        if is_tensor(b) {
            if ffi::PyObject_TypeCheck(b.as_ptr(), cls) != 0 {
                return Ok(obj);
            }
            return alloc_with(cls, tensor_ref(b).alias());
        }
        if ffi::PyTuple_CheckExact(b.as_ptr()) != 0 {
            let n = ffi::PyTuple_GET_SIZE(b.as_ptr());
            let out = ObjectPtr::steal_or_err(ffi::PyTuple_New(n))?;
            for i in 0..n {
                let item = ObjectPtr::borrow(ffi::PyTuple_GET_ITEM(b.as_ptr(), i));
                ffi::PyTuple_SET_ITEM(out.as_ptr(), i, convert(item, cls)?.release());
            }
            return Ok(out);
        }
        Ok(obj)
    }
}

/// `_C.Tensor.__tensorbind_function__(cls, func, types, args=(), kwargs=None)`: the default
/// implementation (a classmethod). Returns `NotImplemented` unless `cls` is a subclass of every
/// type in `types`; otherwise calls `func(*args, **kwargs)` with the protocol disabled and
/// converts tensor results to `cls`.
///
/// # Safety
/// Called by CPython as a `METH_CLASS | METH_VARARGS | METH_KEYWORDS` method.
pub unsafe extern "C" fn default_impl(
    cls: *mut ffi::PyObject,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: `cls` is the class the classmethod was looked up on, `args` a tuple, `kwargs` a
        // dict or NULL; all borrowed. New references are owned by `ObjectPtr`s.
        unsafe {
            let n = ffi::PyTuple_GET_SIZE(args);
            if !kwargs.is_null() && ffi::PyDict_Size(kwargs) > 0 || !(2..=4).contains(&n) {
                return Err(type_error(
                    "__tensorbind_function__() takes func, types, args=(), kwargs=None (positionally)",
                ));
            }
            let func = ffi::PyTuple_GET_ITEM(args, 0);
            let types = ffi::PyTuple_GET_ITEM(args, 1);
            let fargs = if n > 2 {
                ffi::PyTuple_GET_ITEM(args, 2)
            } else {
                std::ptr::null_mut()
            };
            let fkwargs = if n > 3 {
                ffi::PyTuple_GET_ITEM(args, 3)
            } else {
                std::ptr::null_mut()
            };
            let cls_t = cls as *mut ffi::PyTypeObject;
            let it = ObjectPtr::steal_or_err(ffi::PyObject_GetIter(types))?;
            loop {
                let item = ffi::PyIter_Next(it.as_ptr());
                if item.is_null() {
                    if !ffi::PyErr_Occurred().is_null() {
                        return Err(BindError::Python);
                    }
                    break;
                }
                let item = ObjectPtr::steal(item).expect("non-NULL");
                let r = ffi::PyObject_IsSubclass(cls, item.as_ptr());
                if r < 0 {
                    return Err(BindError::Python);
                }
                if r == 0 {
                    return Ok(super::object_ptr::not_implemented().release());
                }
            }
            let call_args = if fargs.is_null() || fargs == ffi::Py_None() {
                ObjectPtr::steal_or_err(ffi::PyTuple_New(0))?
            } else {
                ObjectPtr::steal_or_err(ffi::PySequence_Tuple(fargs))?
            };
            let call_kwargs = if fkwargs.is_null() || fkwargs == ffi::Py_None() {
                std::ptr::null_mut()
            } else {
                fkwargs
            };
            let ret = with_disabled(|| {
                ObjectPtr::steal_or_err(ffi::PyObject_Call(func, call_args.as_ptr(), call_kwargs))
            })?;
            if ffi::PyType_IsSubtype(cls_t, tensor_type()) == 0 {
                return Ok(ret.release());
            }
            convert(ret, cls_t).map(ObjectPtr::release)
        }
    })
}

/// `Tensor.as_subclass(cls)`: the same data as a `cls` instance (a new object over an alias).
///
/// # Safety
/// Called by CPython as a `METH_O` method of `_C.Tensor`.
pub unsafe extern "C" fn as_subclass(
    slf: *mut ffi::PyObject,
    cls: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: `slf` a live tensor, `cls` a live borrowed object (type-checked below).
        unsafe {
            if ffi::PyType_Check(cls) == 0
                || ffi::PyType_IsSubtype(cls as *mut ffi::PyTypeObject, tensor_type()) == 0
            {
                // torch: TypeError: as_subclass(): argument 'cls' must be a subclass of Tensor
                return Err(type_error(
                    "as_subclass(): argument 'cls' must be a subclass of _C.Tensor",
                ));
            }
            let t = tensor_ref(Borrowed::from_ptr(slf));
            alloc_with(cls as *mut ffi::PyTypeObject, t.alias()).map(ObjectPtr::release)
        }
    })
}
