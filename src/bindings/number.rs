//! src/bindings/number.rs: the operator slots of `_C.Tensor` (PyTorch: the `__add__` family in
//! `python_variable_methods.cpp` and `_tensor.py`). The slots of ops are generated from the
//! schema (`python_operator: __add__, __radd__` → `nb_add`, see build/gen_bindings.rs) and call
//! the shared bodies here — `binary`, `inplace`, `unary` and `power` — because CPython calls
//! them with either operand first and with non-tensor operands: each converts its operands (a
//! number becomes a wrapped number; anything else gives NotImplemented), applies the override
//! protocol, and calls the core op the schema also binds. Written by hand: unary `+`, `bool()`,
//! `int()`, `float()`, `operator.index()`. The number-protocol table, and `tp_richcompare` (which
//! reads the generated table of comparisons), are assembled in tensor_type.rs.
//!
//! Layer 3 (entry points): see src/bindings/mod.rs.

use super::arg_parser::TensorArg;
use super::convert;
use super::errors::{runtime_error, type_error, value_error, PyResult};
use super::gil;
use super::object_ptr::{not_implemented, Borrowed, ObjectPtr};
use super::override_protocol::{self, Overloaded};
use super::tensor_object::{is_tensor, tensor_ref, tensor_type, unpack, wrap};
use crate::core::{Result as CoreResult, Scalar, Tensor};
use pyo3_ffi as ffi;
use std::ffi::c_int;

/// An operand: a tensor (borrowed in place) or a Python number (as a wrapped number); `None` for
/// anything else, which makes the slot return `NotImplemented`.
fn operand<'a>(o: Borrowed<'a>) -> PyResult<Option<TensorArg<'a>>> {
    if let Some(t) = unpack(o) {
        return Ok(Some(TensorArg::Borrowed(t)));
    }
    if convert::is_number(o) {
        return Ok(Some(TensorArg::Owned(Tensor::wrapped_scalar(
            convert::number_to_scalar(o)?,
        )?)));
    }
    if super::numpy::is_numpy_scalar(o) {
        // `np.float32(2) * t`, `t + np.int64(1)`: a wrapped number, as a Python number is (torch).
        let (s, _) = super::numpy::scalar_value(o)?;
        return Ok(Some(TensorArg::Owned(Tensor::wrapped_scalar(s)?)));
    }
    Ok(None)
}

/// Shared body of the binary slots: `a` and `b` are borrowed from CPython for the call.
/// If an operand overrides `_C` (src/bindings/override_protocol.rs), the protocol's answer for
/// `owner.name(*args)`; `None` on the common path.
///
/// # Safety
/// The GIL is held; `args` are live borrowed objects; `self_obj` is the tensor of a method.
unsafe fn protocol(
    owner: *mut ffi::PyObject,
    name: &str,
    self_obj: Option<Borrowed<'_>>,
    args: &[*mut ffi::PyObject],
) -> Option<PyResult<*mut ffi::PyObject>> {
    let mut ov = Overloaded::new();
    for o in self_obj.into_iter().chain(args.iter().map(|&p| {
        // SAFETY: live borrowed operands (contract).
        unsafe { Borrowed::from_ptr(p) }
    })) {
        if override_protocol::overrides(o) {
            ov.push(o);
        }
    }
    if ov.is_empty() {
        return None;
    }
    // SAFETY: contract; `args` is an array of `args.len()` live objects and no keywords.
    Some(unsafe {
        override_protocol::dispatch(
            &ov,
            owner,
            name,
            self_obj,
            args.as_ptr(),
            args.len() as ffi::Py_ssize_t,
            std::ptr::null_mut(),
        )
    })
}

/// A core op of two operands, as the operator slots call it.
pub(crate) type BinaryOp = fn(&Tensor, &Tensor) -> CoreResult<Tensor>;

/// Shared body of the binary slots: `a` and `b` are borrowed from CPython for the call; `name`
/// is the `_C` function the operator mirrors (for the override protocol).
/// `worth` says whether the operands make the op large enough to run without the GIL
/// (src/bindings/gil.rs).
///
/// # Safety
/// CPython's binary slot convention: two live borrowed operands, the GIL held.
pub(crate) unsafe fn binary(
    a: *mut ffi::PyObject,
    b: *mut ffi::PyObject,
    name: &str,
    worth: fn(&Tensor, &Tensor) -> bool,
    f: impl FnOnce(&Tensor, &Tensor) -> CoreResult<Tensor>,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: CPython passes two live borrowed operands; the GIL is held.
        if let Some(r) = unsafe { protocol(super::state::module_object(), name, None, &[a, b]) } {
            return r;
        }
        // SAFETY: as above.
        let (a, b) = unsafe { (Borrowed::from_ptr(a), Borrowed::from_ptr(b)) };
        let (Some(mut x), Some(mut y)) = (operand(a)?, operand(b)?) else {
            return Ok(not_implemented().release());
        };
        let big = worth(&x, &y);
        // SAFETY: the GIL is held; `f` is a core op, which touches no Python object.
        let result = unsafe { call_core(&mut x, &mut y, big, f) };
        Ok(wrap(result?)?.release())
    })
}

/// `f(x, y)`, with the GIL released around it when `unlock` (the op is large enough to pay for
/// it): both handles are made owned first, so nothing another Python thread does to the
/// arguments can free the tensors mid-call (Note [Core calls without the GIL]).
///
/// # Safety
/// The GIL is held, and `f` touches no Python object and calls no CPython API.
unsafe fn call_core<'a, R>(
    x: &mut TensorArg<'a>,
    y: &mut TensorArg<'a>,
    unlock: bool,
    f: impl FnOnce(&Tensor, &Tensor) -> R,
) -> R {
    // SAFETY: contract: only `f`, which touches no Python object, runs until `unlocked` drops.
    let unlocked = unsafe { super::entry::unlock_if(unlock, [Some(&mut *x), Some(&mut *y)]) };
    let result = f(x, y);
    drop(unlocked);
    result
}

/// The elementwise rule of `gil::elementwise_worth` for two operands.
pub(crate) fn elementwise_worth(x: &Tensor, y: &Tensor) -> bool {
    gil::elementwise_worth(gil::elements(&[Some(x), Some(y)]))
}

/// Shared body of the in-place slots: `a` is the tensor the statement names; returns it.
/// `name` is the `_C.Tensor` method the operator mirrors (for the override protocol).
///
/// # Safety
/// As `binary`.
pub(crate) unsafe fn inplace(
    a: *mut ffi::PyObject,
    b: *mut ffi::PyObject,
    name: &str,
    f: impl FnOnce(&Tensor, &Tensor) -> CoreResult<()>,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: CPython passes two live borrowed operands; the GIL is held.
        let (a, b) = unsafe { (Borrowed::from_ptr(a), Borrowed::from_ptr(b)) };
        if is_tensor(a) {
            // SAFETY: as above.
            if let Some(r) = unsafe {
                protocol(
                    tensor_type() as *mut ffi::PyObject,
                    name,
                    Some(a),
                    &[b.as_ptr()],
                )
            } {
                return r;
            }
        }
        let (Some(x), Some(mut y)) = (unpack(a), operand(b)?) else {
            return Ok(not_implemented().release());
        };
        let mut x = TensorArg::Borrowed(x);
        let big = elementwise_worth(&x, &y);
        // SAFETY: as in `binary`.
        unsafe { call_core(&mut x, &mut y, big, f) }?;
        Ok(a.to_owned().release())
    })
}

/// `a ** b`: `pow(a, b)`; the three-argument form `pow(a, b, m)` is refused.
///
/// # Safety
/// CPython's ternary slot convention: three live borrowed operands (`m` is `None` for `**`).
pub(crate) unsafe fn power(
    a: *mut ffi::PyObject,
    b: *mut ffi::PyObject,
    m: *mut ffi::PyObject,
    name: &str,
    worth: fn(&Tensor, &Tensor) -> bool,
    f: impl FnOnce(&Tensor, &Tensor) -> CoreResult<Tensor>,
) -> *mut ffi::PyObject {
    // SAFETY: identity comparison with the `None` singleton.
    if m != unsafe { ffi::Py_None() } {
        return crate::handle_errors!({
            Err(type_error(
                "pow(): the three-argument form (modulus) is not supported for tensors",
            ))
        });
    }
    // SAFETY: forwarded contract.
    unsafe { binary(a, b, name, worth, f) }
}

/// For operators whose op takes no numbers (`@`): torch's TypeError when an operand is a number
/// (`t @ 2`, `2 @ t`).
pub(crate) fn tensors_only(name: &str, x: &Tensor, y: &Tensor) -> CoreResult<()> {
    if x.is_wrapped_number() || y.is_wrapped_number() {
        return Err(crate::core::Error::type_error(format!(
            "{name}(): argument 'other' must be Tensor, not a number"
        )));
    }
    Ok(())
}

/// Shared body of the unary slots; `name` is the `_C` function the operator mirrors.
///
/// # Safety
/// CPython's unary slot convention: a live instance of `_C.Tensor`, the GIL held.
pub(crate) unsafe fn unary(
    a: *mut ffi::PyObject,
    name: &str,
    f: impl FnOnce(&Tensor) -> CoreResult<Tensor>,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: CPython calls the slot with a live instance of our type (borrowed), GIL held.
        if let Some(r) = unsafe { protocol(super::state::module_object(), name, None, &[a]) } {
            return r;
        }
        // SAFETY: as above.
        let t = unsafe { tensor_ref(Borrowed::from_ptr(a)) };
        Ok(wrap(f(&t)?)?.release())
    })
}

pub(crate) unsafe extern "C" fn nb_positive(a: *mut ffi::PyObject) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: CPython calls the slot with a live instance of our type (borrowed).
        let obj = unsafe { Borrowed::from_ptr(a) };
        // SAFETY: as above.
        if unsafe { tensor_ref(obj) }.dtype() == crate::core::DType::Bool {
            return Err(runtime_error(
                "The `+` operator, on a bool tensor is not supported.",
            ));
        }
        // `+t` returns `t` itself (torch's `positive` of a non-bool tensor is an alias).
        Ok(obj.to_owned().release())
    })
}

/// The single value of a one-element tensor for `int()`/`float()`: ValueError otherwise, as torch.
fn single_value(a: *mut ffi::PyObject) -> PyResult<Scalar> {
    // SAFETY: slots of our type are called with a live instance (borrowed).
    let t = unsafe { tensor_ref(Borrowed::from_ptr(a)) };
    if t.numel() != 1 {
        return Err(value_error(
            "only one element tensors can be converted to Python scalars",
        ));
    }
    Ok(t.item()?)
}

pub(crate) unsafe extern "C" fn nb_int(a: *mut ffi::PyObject) -> *mut ffi::PyObject {
    crate::handle_errors!({
        let v = single_value(a)?;
        let f = convert::scalar_to_py(v)?;
        // SAFETY: `int(x)` of a live Python number: a new reference or NULL (ValueError for NaN,
        // OverflowError for inf, as Python's `int(float)`).
        unsafe { ObjectPtr::steal_or_err(ffi::PyNumber_Long(f.as_ptr())) }.map(ObjectPtr::release)
    })
}

pub(crate) unsafe extern "C" fn nb_float(a: *mut ffi::PyObject) -> *mut ffi::PyObject {
    crate::handle_errors!({ Ok(convert::py_float(single_value(a)?.to_f64())?.release()) })
}

pub(crate) unsafe extern "C" fn nb_index(a: *mut ffi::PyObject) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: slot of our type, live instance.
        let t = unsafe { tensor_ref(Borrowed::from_ptr(a)) };
        if t.numel() != 1 || t.dtype().is_floating_point() {
            return Err(type_error(
                "only integer tensors of a single element can be converted to an index",
            ));
        }
        Ok(convert::py_int(t.item()?.to_i64())?.release())
    })
}

pub(crate) unsafe extern "C" fn nb_bool(a: *mut ffi::PyObject) -> c_int {
    crate::handle_errors!({
        // SAFETY: slot of our type, live instance.
        let t = unsafe { tensor_ref(Borrowed::from_ptr(a)) };
        match t.numel() {
            1 => Ok(t.item()?.to_bool() as c_int),
            0 => Err(runtime_error(
                "Boolean value of Tensor with no values is ambiguous",
            )),
            _ => Err(runtime_error(
                "Boolean value of Tensor with more than one value is ambiguous",
            )),
        }
    })
}
