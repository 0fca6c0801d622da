//! src/bindings/device_object.rs: `_C.device` and `_C.layout` with its one instance `_C.strided`
//! (PyTorch: `torch/csrc/Device.cpp`, `torch/csrc/Layout.cpp`), and the check every `device=`
//! argument goes through (Note [Devices]).
//!
//! Layer 2 (calling): see src/bindings/mod.rs.

// Note [Devices]
// ~~~~~~~~~~~~~~
// tensorbind tensors live in CPU memory only. `_C.device` is torch's type all the same: it can
// name any of torch's device types (`_C.device("cuda:1")` is a value like any other, equal,
// hashed and printed as torch does), so code that builds devices runs unchanged. What is
// refused is *using* a device other than the CPU: every `device=` parameter of the schema (type
// `Device`, parsed by `arg_parser.rs`) goes through `require_cpu`, which raises a RuntimeError
// naming the function and the device. `cpu` with any index is the CPU, as in torch. `layout=`
// takes `_C.strided` only (the one layout) and `pin_memory=True` is refused (pinned memory is
// for copies to an accelerator). None of the three reaches the core: the generated bindings
// check them and drop them (build/gen_bindings.rs, as torch's TensorOptions are peeled off).

use super::errors::{runtime_error, type_error, PyResult};
use super::object_ptr::{not_implemented, py_bool, Borrowed, ObjectPtr};
use super::static_type::{getter, method_noargs, StaticType, TypeSpec, GETSET_END, METHODS_END};
use pyo3_ffi as ffi;
use std::ffi::{c_void, CStr};
use std::ptr::{addr_of_mut, null_mut};

/// torch's device types, in `c10::DeviceType` order for the ones it lists in its messages.
const DEVICE_TYPES: [&str; 20] = [
    "cpu",
    "cuda",
    "ipu",
    "xpu",
    "mkldnn",
    "opengl",
    "opencl",
    "ideep",
    "hip",
    "ve",
    "fpga",
    "maia",
    "xla",
    "lazy",
    "vulkan",
    "mps",
    "meta",
    "hpu",
    "mtia",
    "privateuseone",
];

/// A device: its type (an index into `DEVICE_TYPES`) and index (-1: none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Device {
    pub kind: u8,
    pub index: i32,
}

impl Device {
    fn type_name(self) -> &'static str {
        DEVICE_TYPES[self.kind as usize]
    }

    /// torch's `str(device)`: `cpu`, `cuda:1`.
    pub fn text(self) -> String {
        if self.index < 0 {
            self.type_name().to_string()
        } else {
            format!("{}:{}", self.type_name(), self.index)
        }
    }
}

/// The Python object of a device. Layout pinned below.
#[repr(C)]
pub struct PyDevice {
    pub ob_base: ffi::PyObject,
    pub device: Device,
}

const _: () = assert!(std::mem::size_of::<PyDevice>() == 24);

/// The Python object of a layout (one instance: `_C.strided`).
#[repr(C)]
pub struct PyLayout {
    pub ob_base: ffi::PyObject,
}

static DEVICE_TYPE: StaticType = StaticType::new();
static LAYOUT_TYPE: StaticType = StaticType::new();

/// `_C.strided`; set once by `init`, owned by this slot for the life of the process.
static mut STRIDED: *mut ffi::PyObject = null_mut();

/// Parse torch's device string: `type` or `type:index` (index: digits, no sign, no leading 0).
fn parse_device_string(s: &str) -> PyResult<Device> {
    let (ty, index) = match s.split_once(':') {
        Some((t, i)) => (t, Some(i)),
        None => (s, None),
    };
    let kind = DEVICE_TYPES.iter().position(|&d| d == ty);
    let Some(kind) = kind else {
        if ty.is_empty() || !ty.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Err(runtime_error(format!("Invalid device string: '{s}'")));
        }
        return Err(runtime_error(format!(
            "Expected one of {} device type at start of device string: {s}",
            DEVICE_TYPES.join(", ")
        )));
    };
    let index = match index {
        None => -1,
        Some(i) => {
            let digits_ok = !i.is_empty()
                && i.bytes().all(|b| b.is_ascii_digit())
                && (i == "0" || !i.starts_with('0'));
            match i.parse::<i32>() {
                Ok(v) if digits_ok => v,
                _ => return Err(runtime_error(format!("Invalid device string: '{s}'"))),
            }
        }
    };
    Ok(Device {
        kind: kind as u8,
        index,
    })
}

/// The device `o` names, for a parameter: a `_C.device`, a device string, or an int (torch's
/// shorthand for a CUDA index). `what` names the caller for the TypeError.
pub fn device_of(o: Borrowed<'_>, what: &str) -> PyResult<Device> {
    if let Some(d) = unpack_device(o) {
        return Ok(d);
    }
    if super::convert::is_str(o) {
        return parse_device_string(super::convert::str_as_utf8(o)?);
    }
    if super::convert::is_int(o) {
        let i = super::convert::to_i64(o)?;
        if i < 0 {
            return Err(runtime_error("Device index must not be negative"));
        }
        return Ok(Device {
            kind: 1,
            index: i32::try_from(i).map_err(|_| runtime_error("Device index out of range"))?,
        });
    }
    Err(type_error(format!(
        "{what} must be _C.device, str or int, not {}",
        super::describe::type_name(o)
    )))
}

/// Note [Devices]: Ok for the CPU (any index); a RuntimeError naming `fname` and the device for
/// any other.
pub fn require_cpu(fname: &str, d: Device) -> PyResult<()> {
    if d.kind == 0 {
        return Ok(());
    }
    Err(runtime_error(format!(
        "{fname}(): device '{}' is not available: tensorbind has the CPU only (device 'cpu')",
        d.text()
    )))
}

/// The `Device` of `obj` if it is a `_C.device`.
pub fn unpack_device(obj: Borrowed<'_>) -> Option<Device> {
    // SAFETY: `obj` is a live object; the type check precedes the cast to `PyDevice`.
    unsafe {
        if ffi::PyObject_TypeCheck(obj.as_ptr(), DEVICE_TYPE.as_ptr()) != 0 {
            Some((*(obj.as_ptr() as *mut PyDevice)).device)
        } else {
            None
        }
    }
}

/// Whether `obj` is a `_C.layout` (`_C.strided`, the only one).
pub fn is_layout(obj: Borrowed<'_>) -> bool {
    // SAFETY: type check of a live object against our ready static type.
    unsafe { ffi::PyObject_TypeCheck(obj.as_ptr(), LAYOUT_TYPE.as_ptr()) != 0 }
}

/// A new `_C.device` object.
pub fn wrap_device(d: Device) -> PyResult<ObjectPtr> {
    // SAFETY: allocation of our ready type under the GIL; the field is written before any use.
    unsafe {
        let obj = ObjectPtr::steal_or_err(ffi::PyType_GenericAlloc(DEVICE_TYPE.as_ptr(), 0))?;
        std::ptr::write(&raw mut (*(obj.as_ptr() as *mut PyDevice)).device, d);
        Ok(obj)
    }
}

/// `_C.device("cpu")`, the device of every tensor (a new object, as torch returns).
pub fn cpu_device() -> PyResult<ObjectPtr> {
    wrap_device(Device { kind: 0, index: -1 })
}

/// A new reference to `_C.strided`.
pub fn strided() -> ObjectPtr {
    // SAFETY: written once in `init` before any use; the object lives for the process.
    unsafe { ObjectPtr::borrow(*addr_of_mut!(STRIDED)) }
}

const DEVICE_SIGNATURES: &str =
    " * (_C.device device)\n * (str type, int index = -1)\n * (int index)";

unsafe extern "C" fn device_new(
    _tp: *mut ffi::PyTypeObject,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        let mut first: Option<Borrowed<'_>> = None;
        let mut index: Option<Borrowed<'_>> = None;
        let mut kw_type = false;
        // SAFETY: CPython passes a live tuple and NULL or a live dict; items are borrowed from
        // them for the duration of the call (nothing here runs Python code that could drop them).
        unsafe {
            let n = ffi::PyTuple_GET_SIZE(args);
            if n > 2 {
                return Err(type_error(format!(
                    "device() takes at most 2 arguments ({n} given)"
                )));
            }
            if n >= 1 {
                first = Some(Borrowed::from_ptr(ffi::PyTuple_GET_ITEM(args, 0)));
            }
            if n == 2 {
                index = Some(Borrowed::from_ptr(ffi::PyTuple_GET_ITEM(args, 1)));
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
                        "type" | "device" => {
                            kw_type = name == "type";
                            &mut first
                        }
                        "index" => &mut index,
                        _ => {
                            return Err(type_error(format!(
                                "device() got an unexpected keyword argument '{name}'"
                            )))
                        }
                    };
                    if slot.is_some() {
                        return Err(type_error(format!(
                            "device() got multiple values for argument '{name}'"
                        )));
                    }
                    *slot = Some(Borrowed::from_ptr(v));
                }
            }
        }
        let invalid = |got: &str| {
            type_error(format!(
                "device() received an invalid combination of arguments - got ({got}), but expected one of:\n{DEVICE_SIGNATURES}\n"
            ))
        };
        // SAFETY: identity comparison with the `None` singleton.
        let none = unsafe { ffi::Py_None() };
        let index = index.filter(|i| i.as_ptr() != none);
        let Some(first) = first else {
            return Err(invalid(""));
        };
        let d = if let Some(d) = unpack_device(first) {
            if index.is_some() || kw_type {
                return Err(invalid("_C.device, int"));
            }
            d
        } else if super::convert::is_str(first) {
            let mut d = parse_device_string(super::convert::str_as_utf8(first)?)?;
            if let Some(i) = index {
                if !super::convert::is_int(i) {
                    return Err(type_error(format!(
                        "device(): argument 'index' (position 2) must be int, not {}",
                        super::describe::type_name(i)
                    )));
                }
                if d.index >= 0 {
                    return Err(runtime_error(format!(
                        "type (string) must not include an index because index was passed explicitly: {}",
                        super::convert::str_as_utf8(first)?
                    )));
                }
                let v = super::convert::to_i64(i)?;
                if v < 0 {
                    return Err(runtime_error("Device index must not be negative"));
                }
                d.index =
                    i32::try_from(v).map_err(|_| runtime_error("Device index out of range"))?;
            }
            d
        } else if super::convert::is_int(first) && index.is_none() && !kw_type {
            device_of(first, "device()")?
        } else {
            return Err(invalid(super::describe::type_name(first).as_ref()));
        };
        wrap_device(d).map(ObjectPtr::release)
    })
}

/// Reads the device of a live `_C.device` (a method or slot's `self`).
///
/// # Safety
/// `slf` is a live instance of `_C.device`.
unsafe fn self_device(slf: *mut ffi::PyObject) -> Device {
    // SAFETY: contract.
    unsafe { (*(slf as *mut PyDevice)).device }
}

unsafe extern "C" fn device_repr(slf: *mut ffi::PyObject) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: CPython calls `tp_repr` with a live instance of this type.
        let d = unsafe { self_device(slf) };
        let s = if d.index < 0 {
            format!("device(type='{}')", d.type_name())
        } else {
            format!("device(type='{}', index={})", d.type_name(), d.index)
        };
        super::convert::py_str(&s).map(ObjectPtr::release)
    })
}

unsafe extern "C" fn device_str(slf: *mut ffi::PyObject) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: CPython calls `tp_str` with a live instance of this type.
        let d = unsafe { self_device(slf) };
        super::convert::py_str(&d.text()).map(ObjectPtr::release)
    })
}

unsafe extern "C" fn device_hash(slf: *mut ffi::PyObject) -> ffi::Py_hash_t {
    // SAFETY: CPython calls `tp_hash` with a live instance of this type.
    let d = unsafe { self_device(slf) };
    // c10's std::hash<Device>: the type in the high bits, the index as a byte (-1 is 255).
    ((d.kind as ffi::Py_hash_t) << 16) | (d.index as u8 as ffi::Py_hash_t)
}

unsafe extern "C" fn device_richcompare(
    a: *mut ffi::PyObject,
    b: *mut ffi::PyObject,
    op: std::ffi::c_int,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: CPython passes two live objects.
        let (a, b) = unsafe { (Borrowed::from_ptr(a), Borrowed::from_ptr(b)) };
        match (unpack_device(a), unpack_device(b), op) {
            (Some(x), Some(y), ffi::Py_EQ) => Ok(py_bool(x == y).release()),
            (Some(x), Some(y), ffi::Py_NE) => Ok(py_bool(x != y).release()),
            _ => Ok(not_implemented().release()),
        }
    })
}

unsafe extern "C" fn device_reduce(
    slf: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: called as a method of a live instance of this type.
        let d = unsafe { self_device(slf) };
        let name = super::convert::py_str(d.type_name())?;
        // SAFETY: tuples built from new references we own; PyTuple_Pack takes its own.
        unsafe {
            let args = if d.index < 0 {
                ObjectPtr::steal_or_err(ffi::PyTuple_Pack(1, name.as_ptr()))?
            } else {
                let i = super::convert::py_int(d.index as i64)?;
                ObjectPtr::steal_or_err(ffi::PyTuple_Pack(2, name.as_ptr(), i.as_ptr()))?
            };
            let tp = DEVICE_TYPE.as_ptr() as *mut ffi::PyObject;
            ObjectPtr::steal_or_err(ffi::PyTuple_Pack(2, tp, args.as_ptr())).map(ObjectPtr::release)
        }
    })
}

unsafe extern "C" fn get_type(slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of a live instance of this type.
        let d = unsafe { self_device(slf) };
        super::convert::py_str(d.type_name()).map(ObjectPtr::release)
    })
}

unsafe extern "C" fn get_index(slf: *mut ffi::PyObject, _: *mut c_void) -> *mut ffi::PyObject {
    crate::handle_errors!({
        // SAFETY: getter of a live instance of this type.
        let d = unsafe { self_device(slf) };
        if d.index < 0 {
            Ok(super::object_ptr::none().release())
        } else {
            super::convert::py_int(d.index as i64).map(ObjectPtr::release)
        }
    })
}

unsafe extern "C" fn layout_repr(_slf: *mut ffi::PyObject) -> *mut ffi::PyObject {
    crate::handle_errors!({ super::convert::py_str("_C.strided").map(ObjectPtr::release) })
}

unsafe extern "C" fn layout_reduce(
    _slf: *mut ffi::PyObject,
    _: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // A string: pickle stores a reference to the module global `_C.strided`.
    crate::handle_errors!({ super::convert::py_str("strided").map(ObjectPtr::release) })
}

static mut DEVICE_METHODS: [ffi::PyMethodDef; 2] = [
    method_noargs(
        c"__reduce__",
        device_reduce,
        c"Pickle support: rebuilt as device(type) or device(type, index).",
    ),
    METHODS_END,
];

static mut DEVICE_GETSET: [ffi::PyGetSetDef; 3] = [
    getter(c"type", get_type, c"The device type: 'cpu', 'cuda', ..."),
    getter(c"index", get_index, c"The device index, or None."),
    GETSET_END,
];

static mut LAYOUT_METHODS: [ffi::PyMethodDef; 2] = [
    method_noargs(
        c"__reduce__",
        layout_reduce,
        c"Pickle support: stored by name, restored as the same object.",
    ),
    METHODS_END,
];

const DEVICE_DOC: &CStr = c"device(type, index=None) / device('type:index') / device(device): where a tensor's memory is (PyTorch: torch.device).\n\nEvery torch device type can be named; tensorbind tensors live on the CPU only, and\nfactories, to() and the other device= parameters raise RuntimeError for any other device.";

const LAYOUT_DOC: &CStr =
    c"layout: the memory layout of a tensor (PyTorch: torch.layout); _C.strided is the only one.";

/// Ready the types; add `device`, `layout` and `strided` to `module`.
///
/// # Safety
/// Called once, with the GIL held, from `PyInit__C`; `module` is a live module object.
pub unsafe fn init(module: *mut ffi::PyObject) -> PyResult<()> {
    // SAFETY: single-threaded initialisation under the GIL; the statics are not yet shared.
    unsafe {
        // tp_str has no TypeSpec field and `ready` leaves it alone: set first, so that
        // PyType_Ready adds its `__str__`.
        (*DEVICE_TYPE.as_ptr()).tp_str = Some(device_str);
        DEVICE_TYPE.ready(&TypeSpec {
            basicsize: std::mem::size_of::<PyDevice>(),
            new: Some(device_new),
            repr: Some(device_repr),
            hash: Some(device_hash),
            richcompare: Some(device_richcompare),
            methods: addr_of_mut!(DEVICE_METHODS) as *mut ffi::PyMethodDef,
            getset: addr_of_mut!(DEVICE_GETSET) as *mut ffi::PyGetSetDef,
            ..TypeSpec::new(c"_C.device", DEVICE_DOC)
        })?;
        super::convert::add_object(
            module,
            "device",
            ObjectPtr::borrow(DEVICE_TYPE.as_ptr() as *mut ffi::PyObject),
        )?;
        LAYOUT_TYPE.ready(&TypeSpec {
            basicsize: std::mem::size_of::<PyLayout>(),
            repr: Some(layout_repr),
            methods: addr_of_mut!(LAYOUT_METHODS) as *mut ffi::PyMethodDef,
            ..TypeSpec::new(c"_C.layout", LAYOUT_DOC)
        })?;
        super::convert::add_object(
            module,
            "layout",
            ObjectPtr::borrow(LAYOUT_TYPE.as_ptr() as *mut ffi::PyObject),
        )?;
        let s = ObjectPtr::steal_or_err(ffi::PyType_GenericAlloc(LAYOUT_TYPE.as_ptr(), 0))?;
        super::convert::add_object(module, "strided", s.clone())?;
        // The slot keeps this reference for the life of the process.
        *addr_of_mut!(STRIDED) = s.release();
    }
    Ok(())
}
