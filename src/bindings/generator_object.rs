//! src/bindings/generator_object.rs: `_C.Generator`, `_C.default_generator` and the module
//! functions `_C.manual_seed`, `_C.seed`, `_C.initial_seed` (PyTorch: `torch/csrc/Generator.cpp`,
//! `torch/random.py`). Hand-written (the schema has no object types), but the methods and the
//! module functions are declared in src/native_functions.yaml (`manual_binding`), which gives
//! their docstrings, `__text_signature__`s and stubs and puts them in the generated method
//! tables. A `_C.Generator` holds its
//! `Mutex<core::random::Generator>` in place; `_C.default_generator` is the one instance that
//! points at the core's process-wide default generator instead, so ops called with
//! `generator=None` and with `generator=_C.default_generator` draw from the same stream.

use super::errors::{type_error, value_error, BindError, PyResult};
use super::object_ptr::{Borrowed, ObjectPtr};
use crate::core::random::{default_generator, lock_generator, Generator, DEFAULT_SEED};
use crate::core::{DType, Tensor};
use pyo3_ffi as ffi;
use std::ffi::CStr;
use std::ptr::{addr_of_mut, null_mut};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Mutex;

/// The Python object of a generator.
#[repr(C)]
pub struct PyGenerator {
    pub ob_base: ffi::PyObject,
    /// The generator this object owns (unused by `_C.default_generator`).
    pub owned: Mutex<Generator>,
    /// NULL: the object's generator is `owned`; else a `'static` generator it refers to (the
    /// core's default generator).
    pub external: *const Mutex<Generator>,
}

/// The `_C.Generator` type object, filled in by `init`.
static mut GENERATOR_TYPE: ffi::PyTypeObject = {
    // SAFETY: an all-zero `PyTypeObject` is the documented "empty" static type; `init` fills it.
    unsafe { std::mem::zeroed() }
};

/// `_C.default_generator`, set once by `init`; this static owns one reference for the life of
/// the process.
static DEFAULT_OBJECT: AtomicPtr<ffi::PyObject> = AtomicPtr::new(null_mut());

/// The type object (borrowed, static).
pub fn generator_type() -> *mut ffi::PyTypeObject {
    addr_of_mut!(GENERATOR_TYPE)
}

/// The generator inside `o` if `o` is a `_C.Generator` (borrowed for as long as `o` is).
pub fn unpack_generator(o: Borrowed<'_>) -> Option<&Mutex<Generator>> {
    // SAFETY: `o` is a live object; the type check precedes the cast; `owned` was initialised by
    // `tp_new`/`init` before the object was handed out, and `external`, when set, points at a
    // `'static` mutex.
    unsafe {
        if ffi::PyObject_TypeCheck(o.as_ptr(), generator_type()) == 0 {
            return None;
        }
        let p = o.as_ptr() as *mut PyGenerator;
        let ext = (*p).external;
        Some(if ext.is_null() { &(*p).owned } else { &*ext })
    }
}

/// A new reference to `_C.default_generator`.
pub fn default_generator_object() -> PyResult<ObjectPtr> {
    let p = DEFAULT_OBJECT.load(Ordering::Acquire);
    if p.is_null() {
        return Err(super::errors::runtime_error("_C is not initialised"));
    }
    // SAFETY: set once at init to a reference this static owns forever.
    Ok(unsafe { ObjectPtr::borrow(p) })
}

/// Allocate a `_C.Generator` of type `tp` holding `owned` (and `external`): a new reference.
///
/// # Safety
/// `tp` is `generator_type()` (ready); the GIL is held.
unsafe fn alloc_generator(
    tp: *mut ffi::PyTypeObject,
    owned: Generator,
    external: *const Mutex<Generator>,
) -> PyResult<ObjectPtr> {
    // SAFETY: `tp_alloc` of a ready type returns a zeroed new reference or NULL (error set); the
    // fields are written in place before the object is visible to anyone.
    unsafe {
        let alloc = (*tp).tp_alloc.unwrap_or(ffi::PyType_GenericAlloc);
        let obj = ObjectPtr::steal_or_err(alloc(tp, 0))?;
        let p = obj.as_ptr() as *mut PyGenerator;
        std::ptr::write(&raw mut (*p).owned, Mutex::new(owned));
        std::ptr::write(&raw mut (*p).external, external);
        Ok(obj)
    }
}

/// A seed from a Python int as torch unpacks it: an unsigned 64-bit value, or a negative int64
/// taken modulo 2^64 (`manual_seed(-1)` is seed 2^64 - 1). Non-ints → TypeError.
fn unpack_seed(o: Borrowed<'_>, fname: &str) -> PyResult<u64> {
    if !super::convert::is_int_or_bool(o) {
        return Err(type_error(format!(
            "{fname} expected a long, but got {}",
            super::convert::type_name(o)
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
                super::convert::type_name(state)
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
                    super::convert::type_name(d)
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

unsafe extern "C" fn generator_dealloc(slf: *mut ffi::PyObject) {
    // SAFETY: CPython calls `tp_dealloc` once, on a dead instance whose fields `tp_new`/`init`
    // initialised; the mutex is dropped in place, then the memory is freed by the type's
    // `tp_free`.
    unsafe {
        let p = slf as *mut PyGenerator;
        std::ptr::drop_in_place(&raw mut (*p).owned);
        let tp = ffi::Py_TYPE(slf);
        let free = (*tp).tp_free.unwrap_or(ffi::PyObject_Free);
        free(slf.cast());
    }
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
    ffi::PyGetSetDef {
        name: c"device".as_ptr(),
        get: Some(get_device),
        set: None,
        doc: c"The device of the generator: always 'cpu'.".as_ptr(),
        closure: null_mut(),
    },
    ffi::PyGetSetDef {
        name: std::ptr::null(),
        get: None,
        set: None,
        doc: std::ptr::null(),
        closure: null_mut(),
    },
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

/// Ready `_C.Generator`, create `_C.default_generator` (bound to the core's default generator)
/// and add the type and that object to `module` (`manual_seed`/`seed`/`initial_seed` are in the
/// generated module table).
///
/// # Safety
/// Called once, with the GIL held, from `PyInit__C`; `module` is a live module object.
pub unsafe fn init(module: *mut ffi::PyObject) -> PyResult<()> {
    // SAFETY: single-threaded initialisation under the GIL; the statics are not yet shared.
    unsafe {
        let t = generator_type();
        (*t).tp_name = c"_C.Generator".as_ptr();
        (*t).tp_basicsize = std::mem::size_of::<PyGenerator>() as ffi::Py_ssize_t;
        (*t).tp_flags = ffi::Py_TPFLAGS_DEFAULT;
        (*t).tp_doc = GENERATOR_DOC.as_ptr();
        (*t).tp_new = Some(generator_new);
        (*t).tp_dealloc = Some(generator_dealloc);
        (*t).tp_alloc = Some(ffi::PyType_GenericAlloc);
        (*t).tp_free = Some(ffi::PyObject_Free);
        // The methods are declared in the schema (`manual_binding`); the table lives for the life
        // of the process (CPython keeps pointers into it).
        let mut methods = super::generated::generator_methods().to_vec();
        methods.push(ffi::PyMethodDef::zeroed());
        (*t).tp_methods = Box::leak(methods.into_boxed_slice()).as_mut_ptr();
        (*t).tp_getset = addr_of_mut!(GENERATOR_GETSET) as *mut ffi::PyGetSetDef;
        if ffi::PyType_Ready(t) < 0 {
            return Err(BindError::Python);
        }
        super::arg_parser::register_generator_type(t);
        super::convert::add_object(
            module,
            "Generator",
            ObjectPtr::borrow(t as *mut ffi::PyObject),
        )?;
        let def = alloc_generator(t, Generator::default(), default_generator())?;
        super::convert::add_object(module, "default_generator", def.clone())?;
        // The static keeps this reference for the life of the process.
        DEFAULT_OBJECT.store(def.release(), Ordering::Release);
    }
    Ok(())
}
