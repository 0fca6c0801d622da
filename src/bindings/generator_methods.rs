//! src/bindings/generator_methods.rs: what Python calls on `_C.Generator` — its constructor,
//! methods and `device` attribute — and the module functions `_C.manual_seed`, `_C.seed`,
//! `_C.initial_seed` (PyTorch: `torch/csrc/Generator.cpp`, `torch/random.py`); and `init`, which
//! readies the type with them. Hand-written (the schema has no object types), but the methods
//! and the module functions are declared in src/native_functions.yaml (`manual_binding`), which
//! gives their docstrings, `__text_signature__`s and stubs and puts them in the generated method
//! tables. The object itself is in generator_object.rs.
//!
//! Layer 3 (entry points): see src/bindings/mod.rs.

use super::errors::{type_error, value_error, BindError, PyResult};
use super::generator_object::{
    alloc_generator, default_generator_object, generator_dealloc, generator_type,
    make_default_object, unpack_generator, PyGenerator, GENERATOR_TYPE,
};
use super::object_ptr::{Borrowed, ObjectPtr};
use super::static_type::{getter, TypeSpec, GETSET_END, METHODS_END};
use crate::core::random::{lock_generator, Generator, DEFAULT_SEED};
use crate::core::{DType, Tensor};
use pyo3_ffi as ffi;
use std::ffi::CStr;
use std::ptr::{addr_of_mut, null_mut};
use std::sync::Mutex;

/// A seed from a Python int as torch unpacks it: an unsigned 64-bit value, or a negative int64
/// taken modulo 2^64 (`manual_seed(-1)` is seed 2^64 - 1). Non-ints → TypeError.
fn unpack_seed(o: Borrowed<'_>, fname: &str) -> PyResult<u64> {
    if !super::convert::is_int_or_bool(o) {
        return Err(type_error(format!(
            "{fname} expected a long, but got {}",
            super::describe::type_name(o)
        )));
    }
    // SAFETY: `o` is a live int; (u64)-1 with an error set signals failure; the error indicator
    // is read and cleared under the GIL.
    unsafe {
        let v = ffi::PyLong_AsUnsignedLongLong(o.as_ptr());
        if v == u64::MAX && !ffi::PyErr_Occurred().is_null() {
            if ffi::PyErr_ExceptionMatches(ffi::PyExc_OverflowError) == 0 {
                return Err(BindError::Python);
            }
            ffi::PyErr_Clear();
            return Ok(super::convert::to_i64(o)? as u64);
        }
        Ok(v)
    }
}

/// A new Python int for a u64.
fn py_u64(v: u64) -> PyResult<ObjectPtr> {
    // SAFETY: returns a new reference or NULL with an error set.
    unsafe { ObjectPtr::steal_or_err(ffi::PyLong_FromUnsignedLongLong(v)) }
}

/// The state of `g` as a 1-D uint8 `_C.Tensor` (torch returns a `torch.ByteTensor`).
fn state_tensor(g: &Mutex<Generator>) -> PyResult<ObjectPtr> {
    let bytes = lock_generator(Some(g)).get_state();
    let n = bytes.len();
    super::tensor_object::wrap(Tensor::from_vec(bytes, &[n])?)
}

/// Restore `g` from a uint8 tensor made by `get_state`.
fn set_state_from(g: &Mutex<Generator>, state: Borrowed<'_>) -> PyResult<()> {
    let t = match super::tensor_object::unpack(state) {
        Some(t) if t.dtype() == DType::UInt8 => t,
        Some(t) => {
            return Err(type_error(format!(
            "expected a _C.Tensor of dtype uint8 (torch.ByteTensor), but got a tensor of dtype {}",
            t.dtype().name()
        )))
        }
        None => {
            return Err(type_error(format!(
                "expected a _C.Tensor of dtype uint8 (torch.ByteTensor), but got {}",
                super::describe::type_name(state)
            )))
        }
    };
    let bytes = crate::core::ops::conversion::try_to_vec::<u8>(&t)?;
    lock_generator(Some(g)).set_state(&bytes)?;
    Ok(())
}

/// The generator of `slf`, a live `_C.Generator`.
///
/// # Safety
/// `slf` is a live instance of `_C.Generator` (CPython passes one to its methods).
unsafe fn self_generator<'a>(slf: *mut ffi::PyObject) -> &'a Mutex<Generator> {
    // SAFETY: contract: a live generator object, alive for the call.
    let o = unsafe { Borrowed::from_ptr(slf) };
    unpack_generator(o).expect("a _C.Generator method called on a _C.Generator")
}

/// `Generator(device='cpu', *, seed=None)`; a lone int positional argument is taken as the seed.
/// Without a seed the generator starts at torch's default seed 67280421310721, as
/// `torch.Generator()` does.
unsafe extern "C" fn generator_new(
    tp: *mut ffi::PyTypeObject,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        let mut device: Option<Borrowed<'_>> = None;
        let mut seed: Option<Borrowed<'_>> = None;
        // SAFETY: CPython passes a live tuple and NULL or a live dict; items are borrowed from
        // them for the duration of the call.
        unsafe {
            let n = ffi::PyTuple_GET_SIZE(args);
            if n > 1 {
                return Err(type_error(format!(
                    "Generator() takes at most 1 positional argument ({n} given)"
                )));
            }
            if n == 1 {
                let a = Borrowed::from_ptr(ffi::PyTuple_GET_ITEM(args, 0));
                if super::convert::is_int(a) {
                    seed = Some(a);
                } else {
                    device = Some(a);
                }
            }
            if !kwargs.is_null() {
                let mut pos: ffi::Py_ssize_t = 0;
                let mut k: *mut ffi::PyObject = null_mut();
                let mut v: *mut ffi::PyObject = null_mut();
                while ffi::PyDict_Next(kwargs, &mut pos, &mut k, &mut v) != 0 {
                    let key = Borrowed::from_ptr(k);
                    let name = if super::convert::is_str(key) {
                        super::convert::str_as_utf8(key)?
                    } else {
                        ""
                    };
                    let slot = match name {
                        "device" => &mut device,
                        "seed" => &mut seed,
                        _ => {
                            return Err(type_error(format!(
                                "Generator() got an unexpected keyword argument '{name}'"
                            )))
                        }
                    };
                    if slot.is_some() {
                        return Err(type_error(format!(
                            "Generator() got multiple values for argument '{name}'"
                        )));
                    }
                    *slot = Some(Borrowed::from_ptr(v));
                }
            }
        }
        if let Some(d) = device {
            // SAFETY: identity comparison with the `None` singleton.
            let is_none = d.as_ptr() == unsafe { ffi::Py_None() };
            let ok =
                is_none || (super::convert::is_str(d) && super::convert::str_as_utf8(d)? == "cpu");
            if !ok {
                return Err(value_error(format!(
                    "Generator(): tensorbind only has the 'cpu' device, got {}",
                    super::describe::type_name(d)
                )));
            }
        }
        let seed = match seed {
            // SAFETY: identity comparison with the `None` singleton.
            Some(s) if s.as_ptr() != unsafe { ffi::Py_None() } => unpack_seed(s, "Generator")?,
            _ => DEFAULT_SEED,
        };
        // SAFETY: `tp` is our ready type (not subclassable); the GIL is held.
        unsafe { alloc_generator(tp, Generator::new(seed), std::ptr::null()) }
            .map(ObjectPtr::release)
    })
}

pub(crate) unsafe extern "C" fn generator_manual_seed(
    slf: *mut ffi::PyObject,
    arg: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: METH_O method of a live generator; `arg` is a borrowed live object.
        let (g, a) = unsafe { (self_generator(slf), Borrowed::from_ptr(arg)) };
        let seed = unpack_seed(a, "manual_seed")?;
        lock_generator(Some(g)).manual_seed(seed);
        // SAFETY: `slf` is alive for the call; the new reference goes to the caller.
        Ok(unsafe { ObjectPtr::borrow(slf) }.release())
    })
}

pub(crate) unsafe extern "C" fn generator_seed(
    slf: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: METH_NOARGS method of a live generator.
        let g = unsafe { self_generator(slf) };
        let s = lock_generator(Some(g)).seed();
        py_u64(s).map(ObjectPtr::release)
    })
}

pub(crate) unsafe extern "C" fn generator_initial_seed(
    slf: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: METH_NOARGS method of a live generator.
        let g = unsafe { self_generator(slf) };
        let s = lock_generator(Some(g)).initial_seed();
        py_u64(s).map(ObjectPtr::release)
    })
}

pub(crate) unsafe extern "C" fn generator_get_state(
    slf: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: METH_NOARGS method of a live generator.
        let g = unsafe { self_generator(slf) };
        state_tensor(g).map(ObjectPtr::release)
    })
}

pub(crate) unsafe extern "C" fn generator_set_state(
    slf: *mut ffi::PyObject,
    arg: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: METH_O method of a live generator; `arg` is a borrowed live object.
        let (g, a) = unsafe { (self_generator(slf), Borrowed::from_ptr(arg)) };
        set_state_from(g, a)?;
        // SAFETY: `slf` is alive for the call; the new reference goes to the caller.
        Ok(unsafe { ObjectPtr::borrow(slf) }.release())
    })
}

unsafe extern "C" fn get_device(
    _slf: *mut ffi::PyObject,
    _: *mut std::ffi::c_void,
) -> *mut ffi::PyObject {
    crate::handle_errors!({ super::convert::py_str("cpu").map(ObjectPtr::release) })
}

static mut GENERATOR_GETSET: [ffi::PyGetSetDef; 2] = [
    getter(
        c"device",
        get_device,
        c"The device of the generator: always 'cpu'.",
    ),
    GETSET_END,
];

pub(crate) unsafe extern "C" fn fn_manual_seed(
    _m: *mut ffi::PyObject,
    arg: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: METH_O module function; `arg` is a borrowed live object.
        let a = unsafe { Borrowed::from_ptr(arg) };
        let seed = unpack_seed(a, "manual_seed")?;
        lock_generator(None).manual_seed(seed);
        default_generator_object().map(ObjectPtr::release)
    })
}

pub(crate) unsafe extern "C" fn fn_seed(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({ py_u64(lock_generator(None).seed()).map(ObjectPtr::release) })
}

pub(crate) unsafe extern "C" fn fn_initial_seed(
    _m: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({ py_u64(lock_generator(None).initial_seed()).map(ObjectPtr::release) })
}

const GENERATOR_DOC: &CStr = c"Generator(device='cpu', *, seed=None)\n--\n\nA random number generator (PyTorch: torch.Generator): Philox4x32-10, the same numbers on every\nmachine. Without a seed it starts at torch's default seed 67280421310721; a lone int argument is\ntaken as the seed. Pass it to the random ops as generator=.";

/// Ready `_C.Generator` with its constructor, attribute and `methods` (the generated
/// `GENERATOR_METHODS`, which `PyInit__C` passes in), create `_C.default_generator` (bound to the
/// core's default generator) and add the type and that object to `module`
/// (`manual_seed`/`seed`/`initial_seed` are in the generated module table).
///
/// # Safety
/// Called once, with the GIL held, from `PyInit__C`; `module` is a live module object.
pub unsafe fn init(module: *mut ffi::PyObject, methods: &[ffi::PyMethodDef]) -> PyResult<()> {
    // The methods are declared in the schema (`manual_binding`); the table lives for the life
    // of the process (CPython keeps pointers into it).
    let mut methods = methods.to_vec();
    methods.push(METHODS_END);
    // SAFETY: single-threaded initialisation under the GIL; the statics are not yet shared.
    unsafe {
        GENERATOR_TYPE.ready(&TypeSpec {
            basicsize: std::mem::size_of::<PyGenerator>(),
            new: Some(generator_new),
            dealloc: Some(generator_dealloc),
            alloc: Some(ffi::PyType_GenericAlloc),
            free: Some(ffi::PyObject_Free),
            methods: Box::leak(methods.into_boxed_slice()).as_mut_ptr(),
            getset: addr_of_mut!(GENERATOR_GETSET) as *mut ffi::PyGetSetDef,
            ..TypeSpec::new(c"_C.Generator", GENERATOR_DOC)
        })?;
        let t = generator_type();
        super::arg_parser::register_generator_type(t);
        super::convert::add_object(
            module,
            "Generator",
            ObjectPtr::borrow(t as *mut ffi::PyObject),
        )?;
        let def = make_default_object()?;
        super::convert::add_object(module, "default_generator", def)?;
    }
    Ok(())
}
