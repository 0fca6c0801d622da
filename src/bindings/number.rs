//! src/bindings/number.rs: hand-written operator slots of `_C.Tensor`
//! (`+ - * / // % ** @ & | ^ << >>`, unary `-`/`+`/`~`/`abs`, in-place `+= -= *= /=`,
//! comparisons, `bool()`, `int()`, `float()`, `operator.index()`), because CPython calls them
//! with either operand first and with non-tensor operands. Each converts its operands and calls
//! the core op the schema also binds (PyTorch: the `__add__` family in
//! `python_variable_methods.cpp` and `_tensor.py`).

use super::arg_parser::TensorArg;
use super::convert;
use super::errors::{runtime_error, type_error, value_error, PyResult};
use super::object_ptr::{not_implemented, Borrowed, ObjectPtr};
use super::tensor_object::{tensor_ref, unpack, wrap};
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
unsafe fn binary(
    a: *mut ffi::PyObject,
    b: *mut ffi::PyObject,
    f: impl FnOnce(&Tensor, &Tensor) -> CoreResult<Tensor>,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: CPython passes two live borrowed operands.
        let (a, b) = unsafe { (Borrowed::from_ptr(a), Borrowed::from_ptr(b)) };
        let (Some(x), Some(y)) = (operand(a)?, operand(b)?) else {
            return Ok(not_implemented().release());
        };
        Ok(wrap(f(&x, &y)?)?.release())
    })
}

/// Shared body of the in-place slots: `a` is the tensor the statement names; returns it.
unsafe fn inplace(
    a: *mut ffi::PyObject,
    b: *mut ffi::PyObject,
    f: impl FnOnce(&Tensor, &Tensor) -> CoreResult<()>,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: CPython passes two live borrowed operands.
        let (a, b) = unsafe { (Borrowed::from_ptr(a), Borrowed::from_ptr(b)) };
        let (Some(x), Some(y)) = (unpack(a), operand(b)?) else {
            return Ok(not_implemented().release());
        };
        f(x, &y)?;
        Ok(a.to_owned().release())
    })
}

macro_rules! binary_slot {
    ($name:ident, $body:expr) => {
        unsafe extern "C" fn $name(
            a: *mut ffi::PyObject,
            b: *mut ffi::PyObject,
        ) -> *mut ffi::PyObject {
            // SAFETY: forwarded CPython slot arguments.
            unsafe { binary(a, b, $body) }
        }
    };
}
macro_rules! inplace_slot {
    ($name:ident, $body:expr) => {
        unsafe extern "C" fn $name(
            a: *mut ffi::PyObject,
            b: *mut ffi::PyObject,
        ) -> *mut ffi::PyObject {
            // SAFETY: forwarded CPython slot arguments.
            unsafe { inplace(a, b, $body) }
        }
    };
}

binary_slot!(nb_add, |x, y| ops::add(x, y, Scalar::Int(1)));
binary_slot!(nb_subtract, |x, y| ops::sub(x, y, Scalar::Int(1)));
binary_slot!(nb_multiply, ops::mul);
binary_slot!(nb_true_divide, |x, y| ops::div(x, y, None));
binary_slot!(nb_floor_divide, ops::floor_divide);
binary_slot!(nb_remainder, ops::remainder);
binary_slot!(nb_matrix_multiply, |x: &Tensor, y: &Tensor| {
    if x.is_wrapped_number() || y.is_wrapped_number() {
        // `t @ 2`: torch raises TypeError for a number operand.
        return Err(crate::core::Error::type_error(
            "matmul(): argument 'other' must be Tensor, not a number",
        ));
    }
    ops::matmul(x, y)
});
binary_slot!(nb_and, ops::bitwise_and);
binary_slot!(nb_or, ops::bitwise_or);
binary_slot!(nb_xor, ops::bitwise_xor);
binary_slot!(nb_lshift, ops::bitwise_left_shift);
binary_slot!(nb_rshift, ops::bitwise_right_shift);
inplace_slot!(nb_inplace_add, |x, y| ops::add_(x, y, Scalar::Int(1)));
inplace_slot!(nb_inplace_subtract, |x, y| ops::sub_(x, y, Scalar::Int(1)));
inplace_slot!(nb_inplace_multiply, ops::mul_);
inplace_slot!(nb_inplace_true_divide, |x, y| ops::div_(x, y, None));

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
    unsafe { binary(a, b, ops::pow) }
}

/// Shared body of the unary slots.
unsafe fn unary(
    a: *mut ffi::PyObject,
    f: impl FnOnce(&Tensor) -> CoreResult<Tensor>,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: CPython calls the slot with a live instance of our type (borrowed).
        let t = unsafe { tensor_ref(Borrowed::from_ptr(a)) };
        Ok(wrap(f(t)?)?.release())
    })
}

unsafe extern "C" fn nb_negative(a: *mut ffi::PyObject) -> *mut ffi::PyObject {
    // SAFETY: forwarded slot argument.
    unsafe { unary(a, ops::neg) }
}
unsafe extern "C" fn nb_absolute(a: *mut ffi::PyObject) -> *mut ffi::PyObject {
    // SAFETY: forwarded slot argument.
    unsafe { unary(a, ops::abs) }
}
unsafe extern "C" fn nb_invert(a: *mut ffi::PyObject) -> *mut ffi::PyObject {
    // SAFETY: forwarded slot argument.
    unsafe { unary(a, ops::bitwise_not) }
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
    let f: fn(&Tensor, &Tensor) -> CoreResult<Tensor> = match op {
        ffi::Py_EQ => ops::eq,
        ffi::Py_NE => ops::ne,
        ffi::Py_LT => ops::lt,
        ffi::Py_LE => ops::le,
        ffi::Py_GT => ops::gt,
        ffi::Py_GE => ops::ge,
        _ => return not_implemented().release(),
    };
    // SAFETY: forwarded CPython slot arguments.
    unsafe { binary(a, b, f) }
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
