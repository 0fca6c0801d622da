//! src/bindings/number.rs: hand-written operator slots of `_C.Tensor`
//! (`+ - * / // % ** @ & | ^ << >>`, unary `-`/`+`/`~`/`abs`, in-place `+= -= *= /=`,
//! comparisons, `bool()`, `int()`, `float()`, `operator.index()`), because CPython calls them
//! with either operand first and with non-tensor operands. Each converts its operands and calls
//! the core op the schema also binds (PyTorch: the `__add__` family in
//! `python_variable_methods.cpp` and `_tensor.py`).

use super::arg_parser::TensorArg;
use super::convert;
use super::errors::{runtime_error, type_error, value_error, PyResult};
use super::gil;
use super::object_ptr::{not_implemented, Borrowed, ObjectPtr};
use super::override_protocol::{self, Overloaded};
use super::tensor_object::{is_tensor, tensor_ref, tensor_type, unpack, wrap};
use crate::core::ops;
use crate::core::{Result as CoreResult, Scalar, Tensor};
use pyo3_ffi as ffi;
use std::ffi::c_int;
use std::ptr::addr_of_mut;

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

/// Shared body of the binary slots: `a` and `b` are borrowed from CPython for the call; `name`
/// is the `_C` function the operator mirrors (for the override protocol).
/// `worth` says whether the operands make the op large enough to run without the GIL
/// (src/bindings/gil.rs).
unsafe fn binary(
    a: *mut ffi::PyObject,
    b: *mut ffi::PyObject,
    name: &str,
    worth: fn(&Tensor, &Tensor) -> bool,
    f: impl FnOnce(&Tensor, &Tensor) -> CoreResult<Tensor>,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: CPython passes two live borrowed operands; the GIL is held.
        if let Some(r) = unsafe { protocol(super::module::module_object(), name, None, &[a, b]) } {
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
unsafe fn call_core<R>(
    x: &mut TensorArg<'_>,
    y: &mut TensorArg<'_>,
    unlock: bool,
    f: impl FnOnce(&Tensor, &Tensor) -> R,
) -> R {
    let unlocked = if unlock {
        x.own();
        y.own();
        // SAFETY: contract: the GIL is held and only `f`, which touches no Python object, runs
        // until `unlocked` is dropped.
        Some(unsafe { gil::Unlocked::new() })
    } else {
        None
    };
    let result = f(x, y);
    drop(unlocked);
    result
}

/// The elementwise rule of `gil::elementwise_worth` for two operands.
fn elementwise_worth(x: &Tensor, y: &Tensor) -> bool {
    gil::elementwise_worth(gil::elements(&[Some(x), Some(y)]))
}

/// Shared body of the in-place slots: `a` is the tensor the statement names; returns it.
/// `name` is the `_C.Tensor` method the operator mirrors (for the override protocol).
unsafe fn inplace(
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

macro_rules! binary_slot {
    ($name:ident, $op:literal, $body:expr) => {
        binary_slot!($name, $op, elementwise_worth, $body);
    };
    ($name:ident, $op:literal, $worth:expr, $body:expr) => {
        unsafe extern "C" fn $name(
            a: *mut ffi::PyObject,
            b: *mut ffi::PyObject,
        ) -> *mut ffi::PyObject {
            // SAFETY: forwarded CPython slot arguments.
            unsafe { binary(a, b, $op, $worth, $body) }
        }
    };
}
macro_rules! inplace_slot {
    ($name:ident, $op:literal, $body:expr) => {
        unsafe extern "C" fn $name(
            a: *mut ffi::PyObject,
            b: *mut ffi::PyObject,
        ) -> *mut ffi::PyObject {
            // SAFETY: forwarded CPython slot arguments.
            unsafe { inplace(a, b, $op, $body) }
        }
    };
}

binary_slot!(nb_add, "add", |x, y| ops::add(x, y, Scalar::Int(1)));
binary_slot!(nb_subtract, "sub", |x, y| ops::sub(x, y, Scalar::Int(1)));
binary_slot!(nb_multiply, "mul", ops::mul);
binary_slot!(nb_true_divide, "div", |x, y| ops::div(x, y, None));
binary_slot!(nb_floor_divide, "floor_divide", ops::floor_divide);
binary_slot!(nb_remainder, "remainder", ops::remainder);
binary_slot!(
    nb_matrix_multiply,
    "matmul",
    gil::matmul_worth,
    |x: &Tensor, y: &Tensor| {
        if x.is_wrapped_number() || y.is_wrapped_number() {
            // `t @ 2`: torch raises TypeError for a number operand.
            return Err(crate::core::Error::type_error(
                "matmul(): argument 'other' must be Tensor, not a number",
            ));
        }
        ops::matmul(x, y)
    }
);
binary_slot!(nb_and, "bitwise_and", ops::bitwise_and);
binary_slot!(nb_or, "bitwise_or", ops::bitwise_or);
binary_slot!(nb_xor, "bitwise_xor", ops::bitwise_xor);
binary_slot!(nb_lshift, "bitwise_left_shift", ops::bitwise_left_shift);
binary_slot!(nb_rshift, "bitwise_right_shift", ops::bitwise_right_shift);
inplace_slot!(nb_inplace_add, "add_", |x, y| ops::add_(
    x,
    y,
    Scalar::Int(1)
));
inplace_slot!(nb_inplace_subtract, "sub_", |x, y| ops::sub_(
    x,
    y,
    Scalar::Int(1)
));
inplace_slot!(nb_inplace_multiply, "mul_", ops::mul_);
inplace_slot!(nb_inplace_true_divide, "div_", |x, y| ops::div_(x, y, None));

unsafe extern "C" fn nb_power(
    a: *mut ffi::PyObject,
    b: *mut ffi::PyObject,
    m: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // SAFETY: identity comparison with the `None` singleton.
    if m != unsafe { ffi::Py_None() } {
        return crate::handle_errors!({
            Err(type_error(
                "pow(): the three-argument form (modulus) is not supported for tensors",
            ))
        });
    }
    // SAFETY: forwarded CPython slot arguments.
    unsafe { binary(a, b, "pow", elementwise_worth, ops::pow) }
}

/// Shared body of the unary slots; `name` is the `_C` function the operator mirrors.
unsafe fn unary(
    a: *mut ffi::PyObject,
    name: &str,
    f: impl FnOnce(&Tensor) -> CoreResult<Tensor>,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: CPython calls the slot with a live instance of our type (borrowed), GIL held.
        if let Some(r) = unsafe { protocol(super::module::module_object(), name, None, &[a]) } {
            return r;
        }
        // SAFETY: as above.
        let t = unsafe { tensor_ref(Borrowed::from_ptr(a)) };
        Ok(wrap(f(&t)?)?.release())
    })
}

unsafe extern "C" fn nb_negative(a: *mut ffi::PyObject) -> *mut ffi::PyObject {
    // SAFETY: forwarded slot argument.
    unsafe { unary(a, "neg", ops::neg) }
}
unsafe extern "C" fn nb_absolute(a: *mut ffi::PyObject) -> *mut ffi::PyObject {
    // SAFETY: forwarded slot argument.
    unsafe { unary(a, "abs", ops::abs) }
}
unsafe extern "C" fn nb_invert(a: *mut ffi::PyObject) -> *mut ffi::PyObject {
    // SAFETY: forwarded slot argument.
    unsafe { unary(a, "bitwise_not", ops::bitwise_not) }
}
unsafe extern "C" fn nb_positive(a: *mut ffi::PyObject) -> *mut ffi::PyObject {
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

unsafe extern "C" fn nb_int(a: *mut ffi::PyObject) -> *mut ffi::PyObject {
    crate::handle_errors!({
        let v = single_value(a)?;
        let f = convert::scalar_to_py(v)?;
        // SAFETY: `int(x)` of a live Python number: a new reference or NULL (ValueError for NaN,
        // OverflowError for inf, as Python's `int(float)`).
        unsafe { ObjectPtr::steal_or_err(ffi::PyNumber_Long(f.as_ptr())) }.map(ObjectPtr::release)
    })
}

unsafe extern "C" fn nb_float(a: *mut ffi::PyObject) -> *mut ffi::PyObject {
    crate::handle_errors!({ Ok(convert::py_float(single_value(a)?.to_f64())?.release()) })
}

unsafe extern "C" fn nb_index(a: *mut ffi::PyObject) -> *mut ffi::PyObject {
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

unsafe extern "C" fn nb_bool(a: *mut ffi::PyObject) -> c_int {
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

/// `tp_richcompare`: `==`, `!=`, `<`, `<=`, `>`, `>=` elementwise, giving bool tensors.
///
/// # Safety
/// Called by CPython with two live borrowed objects, `a` an instance of `_C.Tensor`.
pub unsafe extern "C" fn tensor_richcompare(
    a: *mut ffi::PyObject,
    b: *mut ffi::PyObject,
    op: c_int,
) -> *mut ffi::PyObject {
    type BinaryOp = fn(&Tensor, &Tensor) -> CoreResult<Tensor>;
    let (name, f): (&str, BinaryOp) = match op {
        ffi::Py_EQ => ("eq", ops::eq),
        ffi::Py_NE => ("ne", ops::ne),
        ffi::Py_LT => ("lt", ops::lt),
        ffi::Py_LE => ("le", ops::le),
        ffi::Py_GT => ("gt", ops::gt),
        ffi::Py_GE => ("ge", ops::ge),
        _ => return not_implemented().release(),
    };
    // SAFETY: forwarded CPython slot arguments.
    unsafe { binary(a, b, name, elementwise_worth, f) }
}

static mut NUMBER_METHODS: ffi::PyNumberMethods = {
    // SAFETY: an all-zero `PyNumberMethods` means "no slots"; `number_methods` fills it once.
    unsafe { std::mem::zeroed() }
};

/// The number-protocol table, filled on first use (from `tensor_object::init`, under the GIL).
pub fn number_methods() -> *mut ffi::PyNumberMethods {
    let t = addr_of_mut!(NUMBER_METHODS);
    // SAFETY: called once during module initialisation, before the type is readied and shared.
    unsafe {
        (*t).nb_add = Some(nb_add);
        (*t).nb_subtract = Some(nb_subtract);
        (*t).nb_multiply = Some(nb_multiply);
        (*t).nb_true_divide = Some(nb_true_divide);
        (*t).nb_floor_divide = Some(nb_floor_divide);
        (*t).nb_remainder = Some(nb_remainder);
        (*t).nb_power = Some(nb_power);
        (*t).nb_matrix_multiply = Some(nb_matrix_multiply);
        (*t).nb_negative = Some(nb_negative);
        (*t).nb_positive = Some(nb_positive);
        (*t).nb_absolute = Some(nb_absolute);
        (*t).nb_invert = Some(nb_invert);
        (*t).nb_and = Some(nb_and);
        (*t).nb_or = Some(nb_or);
        (*t).nb_xor = Some(nb_xor);
        (*t).nb_lshift = Some(nb_lshift);
        (*t).nb_rshift = Some(nb_rshift);
        (*t).nb_bool = Some(nb_bool);
        (*t).nb_int = Some(nb_int);
        (*t).nb_float = Some(nb_float);
        (*t).nb_index = Some(nb_index);
        (*t).nb_inplace_add = Some(nb_inplace_add);
        (*t).nb_inplace_subtract = Some(nb_inplace_subtract);
        (*t).nb_inplace_multiply = Some(nb_inplace_multiply);
        (*t).nb_inplace_true_divide = Some(nb_inplace_true_divide);
    }
    t
}
