// @generated from src/native_functions.yaml by build.rs — do not edit.
//
// A sample of `$OUT_DIR/generated_bindings.rs`: the entry points of a few representative
// ops, checked in so that reviewers see what the generator writes (as CPython checks in its
// Argument Clinic output). Not compiled: the real file is included by src/bindings/generated.rs.
// `cargo test` fails when this copy is stale; `make stubs` rewrites it.

/// `add` (function):
/// `add(Tensor input, Tensor other, *, Scalar alpha=1, Tensor? out=None) -> Tensor`
unsafe extern "C" fn fn_add(slf: *mut ffi::PyObject, args: *const *mut ffi::PyObject, nargs: ffi::Py_ssize_t, kwnames: *mut ffi::PyObject) -> *mut ffi::PyObject {
    static PARSER: PythonArgParser = PythonArgParser::new("add", &[
        FunctionSignature::new("add", true, &[
            FunctionParameter::new(&KW_INPUT, ParamType::Tensor),
            FunctionParameter::new(&KW_OTHER, ParamType::Tensor),
            FunctionParameter::new(&KW_ALPHA, ParamType::Scalar).default(DefaultValue::Int(1)).keyword_only(),
            FunctionParameter::new(&KW_OUT, ParamType::Tensor).optional().default(DefaultValue::None).keyword_only(),
        ]),
    ]);
    fn body(r: &ParsedArgs<'_>) -> PyResult<*mut ffi::PyObject> {
        let mut a0 = r.tensor(0)?;
        let mut a1 = r.tensor(1)?;
        let a2 = r.scalar(2)?;
        match r.object(3) {
            None => {
                // SAFETY: only the core call runs until `unlocked` is dropped (Note [Core calls without the GIL]).
                let unlocked = unsafe { entry::unlock_for_elements(0, [Some(&mut a0), Some(&mut a1)]) };
                let ret = vt::add(&a0, &a1, a2);
                drop(unlocked);
                entry::ret(ret)
            }
            Some(o) => { check_out_grad(o, &[&*a0, &*a1], &[], "add")?; write_out_plan(o, ops::add_plan(&a0, &a1, a2)?, "add") }
        }
    }
    // SAFETY: CPython calls this function with the METH_FASTCALL | METH_KEYWORDS convention, on the module.
    unsafe { entry::function(&PARSER, slf, args, nargs, kwnames, body) }
}

/// `add` (method):
/// `add(Tensor other, *, Scalar alpha=1) -> Tensor`
unsafe extern "C" fn meth_add(slf: *mut ffi::PyObject, args: *const *mut ffi::PyObject, nargs: ffi::Py_ssize_t, kwnames: *mut ffi::PyObject) -> *mut ffi::PyObject {
    static PARSER: PythonArgParser = PythonArgParser::new("add", &[
        FunctionSignature::new("add", true, &[
            FunctionParameter::new(&KW_OTHER, ParamType::Tensor),
            FunctionParameter::new(&KW_ALPHA, ParamType::Scalar).default(DefaultValue::Int(1)).keyword_only(),
        ]),
    ]);
    fn body<'a>(r: &ParsedArgs<'a>, _: Borrowed<'a>, this: TensorRef<'a>) -> PyResult<*mut ffi::PyObject> {
        let mut this = TensorArg::Borrowed(this);
        let mut a0 = r.tensor(0)?;
        let a1 = r.scalar(1)?;
        // SAFETY: only the core call runs until `unlocked` is dropped (Note [Core calls without the GIL]).
        let unlocked = unsafe { entry::unlock_for_elements(0, [Some(&mut this), Some(&mut a0)]) };
        let ret = vt::add(&this, &a0, a1);
        drop(unlocked);
        entry::ret(ret)
    }
    // SAFETY: CPython calls this method with the METH_FASTCALL | METH_KEYWORDS convention, on a `_C.Tensor`.
    unsafe { entry::method(&PARSER, slf, args, nargs, kwnames, body) }
}

/// `transpose` (method):
/// `transpose(int dim0, int dim1) -> Tensor`
unsafe extern "C" fn meth_transpose(slf: *mut ffi::PyObject, args: *const *mut ffi::PyObject, nargs: ffi::Py_ssize_t, kwnames: *mut ffi::PyObject) -> *mut ffi::PyObject {
    static PARSER: PythonArgParser = PythonArgParser::new("transpose", &[
        FunctionSignature::new("transpose", false, &[
            FunctionParameter::new(&KW_DIM0, ParamType::Int),
            FunctionParameter::new(&KW_DIM1, ParamType::Int),
        ]),
    ]);
    fn body<'a>(r: &ParsedArgs<'a>, _: Borrowed<'a>, this: TensorRef<'a>) -> PyResult<*mut ffi::PyObject> {
        // A view (alias annotation `Tensor(a)`): it keeps the GIL; the core records `_base`.
        entry::ret(vt::transpose(&this, r.int(0)?, r.int(1)?))
    }
    // SAFETY: CPython calls this method with the METH_FASTCALL | METH_KEYWORDS convention, on a `_C.Tensor`.
    unsafe { entry::method(&PARSER, slf, args, nargs, kwnames, body) }
}

/// `squeeze` (function):
/// `squeeze(Tensor input) -> Tensor`
/// `squeeze(Tensor input, int dim) -> Tensor`
/// `squeeze(Tensor input, int[] dim) -> Tensor`
unsafe extern "C" fn fn_squeeze(slf: *mut ffi::PyObject, args: *const *mut ffi::PyObject, nargs: ffi::Py_ssize_t, kwnames: *mut ffi::PyObject) -> *mut ffi::PyObject {
    static PARSER: PythonArgParser = PythonArgParser::new("squeeze", &[
        FunctionSignature::new("squeeze", false, &[
            FunctionParameter::new(&KW_INPUT, ParamType::Tensor),
        ]),
        FunctionSignature::new("squeeze", false, &[
            FunctionParameter::new(&KW_INPUT, ParamType::Tensor),
            FunctionParameter::new(&KW_DIM, ParamType::Int),
        ]),
        FunctionSignature::new("squeeze", false, &[
            FunctionParameter::new(&KW_INPUT, ParamType::Tensor),
            FunctionParameter::new(&KW_DIM, ParamType::IntList),
        ]),
    ]);
    fn body(r: &ParsedArgs<'_>) -> PyResult<*mut ffi::PyObject> {
        match r.idx {
            0 => {
                // A view (alias annotation `Tensor(a)`): it keeps the GIL; the core records `_base`.
                entry::ret(vt::squeeze(&*r.tensor(0)?))
            }
            1 => {
                // A view (alias annotation `Tensor(a)`): it keeps the GIL; the core records `_base`.
                entry::ret(vt::squeeze_dim(&*r.tensor(0)?, r.int(1)?))
            }
            2 => {
                // A view (alias annotation `Tensor(a)`): it keeps the GIL; the core records `_base`.
                entry::ret(vt::squeeze_dims(&*r.tensor(0)?, &r.int_list(1)?))
            }
            _ => unreachable!("parser returned an unknown overload"),
        }
    }
    // SAFETY: CPython calls this function with the METH_FASTCALL | METH_KEYWORDS convention, on the module.
    unsafe { entry::function(&PARSER, slf, args, nargs, kwnames, body) }
}

/// `max` (function):
/// `max(Tensor input) -> Tensor`
/// `max(Tensor input, Tensor other) -> Tensor`
/// `max(Tensor input, int dim, bool keepdim=False, *, Tensor[]? out=None) -> (Tensor values, Tensor indices)`
unsafe extern "C" fn fn_max(slf: *mut ffi::PyObject, args: *const *mut ffi::PyObject, nargs: ffi::Py_ssize_t, kwnames: *mut ffi::PyObject) -> *mut ffi::PyObject {
    static PARSER: PythonArgParser = PythonArgParser::new("max", &[
        FunctionSignature::new("max", false, &[
            FunctionParameter::new(&KW_INPUT, ParamType::Tensor),
        ]),
        FunctionSignature::new("max", false, &[
            FunctionParameter::new(&KW_INPUT, ParamType::Tensor),
            FunctionParameter::new(&KW_OTHER, ParamType::Tensor),
        ]),
        FunctionSignature::new("max", false, &[
            FunctionParameter::new(&KW_INPUT, ParamType::Tensor),
            FunctionParameter::new(&KW_DIM, ParamType::Int),
            FunctionParameter::new(&KW_KEEPDIM, ParamType::Bool).default(DefaultValue::Bool(false)),
            FunctionParameter::new(&KW_OUT, ParamType::TensorList).optional().default(DefaultValue::None).keyword_only(),
        ]),
    ]);
    fn body(r: &ParsedArgs<'_>) -> PyResult<*mut ffi::PyObject> {
        match r.idx {
            0 => {
                let mut a0 = r.tensor(0)?;
                // SAFETY: only the core call runs until `unlocked` is dropped (Note [Core calls without the GIL]).
                let unlocked = unsafe { entry::unlock_for_elements(0, [Some(&mut a0)]) };
                let ret = vt::max(&a0);
                drop(unlocked);
                entry::ret(ret)
            }
            1 => {
                let mut a0 = r.tensor(0)?;
                let mut a1 = r.tensor(1)?;
                // SAFETY: only the core call runs until `unlocked` is dropped (Note [Core calls without the GIL]).
                let unlocked = unsafe { entry::unlock_for_elements(0, [Some(&mut a0), Some(&mut a1)]) };
                let ret = vt::max_other(&a0, &a1);
                drop(unlocked);
                entry::ret(ret)
            }
            2 => {
                let mut a0 = r.tensor(0)?;
                let a1 = r.int(1)?;
                let a2 = r.bool(2)?;
                if let Some(o) = r.object(3) { check_out_grad(o, &[&*a0], &[], "max")?; write_out::check_out_tuple(o, 2, "max")?; write_out::check_out_dtype(o, &[write_out::OutDtype::SelfDtype, write_out::OutDtype::Int64], a0.dtype(), "max")?; }
                // SAFETY: only the core call runs until `unlocked` is dropped (Note [Core calls without the GIL]).
                let unlocked = unsafe { entry::unlock_for_elements(0, [Some(&mut a0)]) };
                let ret = vt::max_dim(&a0, a1, a2);
                drop(unlocked);
                let (v0, v1) = ret?;
                match r.object(3) { None => entry::ret_named(1, vec![v0, v1]), Some(o) => write_out::write_out_named(o, 1, vec![v0, v1], "max") }
            }
            _ => unreachable!("parser returned an unknown overload"),
        }
    }
    // SAFETY: CPython calls this function with the METH_FASTCALL | METH_KEYWORDS convention, on the module.
    unsafe { entry::function(&PARSER, slf, args, nargs, kwnames, body) }
}

/// `add_` (method):
/// `add_(Tensor other, *, Scalar alpha=1) -> Tensor`
unsafe extern "C" fn meth_add_(slf: *mut ffi::PyObject, args: *const *mut ffi::PyObject, nargs: ffi::Py_ssize_t, kwnames: *mut ffi::PyObject) -> *mut ffi::PyObject {
    static PARSER: PythonArgParser = PythonArgParser::new("add_", &[
        FunctionSignature::new("add_", true, &[
            FunctionParameter::new(&KW_OTHER, ParamType::Tensor),
            FunctionParameter::new(&KW_ALPHA, ParamType::Scalar).default(DefaultValue::Int(1)).keyword_only(),
        ]),
    ]);
    fn body<'a>(r: &ParsedArgs<'a>, this_obj: Borrowed<'a>, this: TensorRef<'a>) -> PyResult<*mut ffi::PyObject> {
        let mut this = TensorArg::Borrowed(this);
        let mut a0 = r.tensor(0)?;
        let a1 = r.scalar(1)?;
        // SAFETY: only the core call runs until `unlocked` is dropped (Note [Core calls without the GIL]).
        let unlocked = unsafe { entry::unlock_for_elements(0, [Some(&mut this), Some(&mut a0)]) };
        let ret = vt::inplace("add_", &this, &[&*a0], |s| ops::add_plan(s, &a0, a1).and_then(|p| p.run_into(s)), |s| vt::add(s, &a0, a1));
        drop(unlocked);
        ret?;
        Ok(this_obj.to_owned().release())
    }
    // SAFETY: CPython calls this method with the METH_FASTCALL | METH_KEYWORDS convention, on a `_C.Tensor`.
    unsafe { entry::method(&PARSER, slf, args, nargs, kwnames, body) }
}

/// `tensor` (function):
/// `tensor(PyObject* data, *, ScalarType? dtype=None, Device? device=None, bool requires_grad=False, bool pin_memory=False) -> Tensor`
unsafe extern "C" fn fn_tensor(slf: *mut ffi::PyObject, args: *const *mut ffi::PyObject, nargs: ffi::Py_ssize_t, kwnames: *mut ffi::PyObject) -> *mut ffi::PyObject {
    static PARSER: PythonArgParser = PythonArgParser::new("tensor", &[
        FunctionSignature::new("tensor", false, &[
            FunctionParameter::new(&KW_DATA, ParamType::Object),
            FunctionParameter::new(&KW_DTYPE, ParamType::ScalarType).optional().default(DefaultValue::None).keyword_only(),
            FunctionParameter::new(&KW_DEVICE, ParamType::Device).optional().default(DefaultValue::None).keyword_only(),
            FunctionParameter::new(&KW_REQUIRES_GRAD, ParamType::Bool).default(DefaultValue::Bool(false)).keyword_only(),
            FunctionParameter::new(&KW_PIN_MEMORY, ParamType::Bool).default(DefaultValue::Bool(false)).keyword_only(),
        ]),
    ]);
    // SAFETY: CPython calls this function with the METH_FASTCALL | METH_KEYWORDS convention, on the module.
    unsafe { entry::function(&PARSER, slf, args, nargs, kwnames, super::super::tensor_new::tensor) }
}

/// `__add__`, `__radd__` (`nb_add`): `add(Tensor input, Tensor other, *, Scalar alpha=1, Tensor? out=None)`.
unsafe extern "C" fn nb_add(a: *mut ffi::PyObject, b: *mut ffi::PyObject) -> *mut ffi::PyObject {
    // SAFETY: CPython calls a number slot of `_C.Tensor` with live operands, the GIL held.
    unsafe { number::binary(a, b, "add", number::elementwise_worth, |x, y| vt::add(x, y, Scalar::Int(1))) }
}
