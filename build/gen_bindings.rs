//! build/gen_bindings.rs: the bindings generator — the static parser tables, the `extern "C"`
//! entry points and the method tables of `$OUT_DIR/generated_bindings.rs` (torchgen:
//! `gen_python_functions.py`).

use crate::gen_autograd::{self, key, Autograd};
use crate::schema::{
    BaseTy, DefaultValue, Entry, Manual, Op, OperatorKind, ReleaseGil, Returns, Type,
};
use crate::signature::{docstring, entries_of, schema_ret, PySignature, Variant};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The static of a keyword name: `KW_ALPHA`.
fn keyword_static(name: &str) -> String {
    // Names with capitals (`N`, `HxW`) get their own prefix so they cannot meet `n`, `hxw`.
    if name.chars().any(|c| c.is_ascii_uppercase()) {
        format!("KW_CASED_{}", name.to_uppercase())
    } else {
        format!("KW_{}", name.to_uppercase())
    }
}

/// The runtime `ParamType` of a schema type.
fn param_type(ty: &Type) -> &'static str {
    match (ty.base, ty.list.is_some()) {
        (BaseTy::Tensor, false) => "Tensor",
        (BaseTy::Tensor, true) => "TensorList",
        (BaseTy::Int, true) => "IntList",
        (BaseTy::Float, true) => "FloatList",
        (BaseTy::Scalar, _) => "Scalar",
        (BaseTy::Int, _) => "Int",
        (BaseTy::Float, _) => "Float",
        (BaseTy::Bool, _) => "Bool",
        (BaseTy::Str, _) => "Str",
        (BaseTy::ScalarType, _) => "ScalarType",
        (BaseTy::Generator, _) => "Generator",
        (BaseTy::Device, _) => "Device",
        (BaseTy::Layout, _) => "Layout",
        (BaseTy::PyObject, _) => "Object",
    }
}

/// A default as a `DefaultValue` expression.
fn default_value(d: &DefaultValue) -> String {
    match d {
        DefaultValue::None => "DefaultValue::None".into(),
        DefaultValue::Bool(b) => format!("DefaultValue::Bool({b})"),
        DefaultValue::Int(i) => format!("DefaultValue::Int({i})"),
        DefaultValue::Float(f) => format!("DefaultValue::Float({f:?})"),
        DefaultValue::Str(s) => format!("DefaultValue::Str({s:?})"),
        DefaultValue::IntList(v) => format!(
            "DefaultValue::IntList(&[{}])",
            v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// The static table of one signature: `FunctionSignature::new("add", true, &[...])`.
fn signature_table(sig: &PySignature<'_>, numbers: bool, indent: &str) -> String {
    let mut s = format!("FunctionSignature::new({:?}, {numbers}, &[\n", sig.name());
    for p in &sig.params {
        let mut e = format!(
            "FunctionParameter::new(&{}, ParamType::{})",
            keyword_static(&p.name),
            param_type(&p.ty)
        );
        if let Some(Some(n)) = p.ty.list {
            let _ = write!(e, ".size({n})");
        }
        if p.ty.optional {
            e.push_str(".optional()");
        }
        if let Some(d) = &p.default {
            let _ = write!(e, ".default({})", default_value(&d.value));
        }
        if p.kwarg_only {
            e.push_str(".keyword_only()");
        }
        if p.positional_only {
            e.push_str(".positional_only()");
        }
        if sig.entry.numbers_not_self && p.name == "input" {
            e.push_str(".no_numbers()");
        }
        let _ = writeln!(s, "{indent}    {e},");
    }
    let _ = write!(s, "{indent}])");
    if sig.entry.numbers_one {
        // `numbers_as_tensors: one`: `xlogy(2, 3)` is torch's TypeError.
        s.push_str(".one_number()");
    }
    s
}

/// The parser of `op` in variant `v`: `PythonArgParser::new("add", &[...])`.
fn parser_table(op: &Op, v: Variant) -> String {
    let entries = entries_of(op, v);
    let numbers = entries.iter().any(|e| e.numbers_as_tensors);
    let mut s = format!("PythonArgParser::new({:?}, &[\n", op.name);
    for e in &entries {
        let sig = PySignature::new(e, v);
        let _ = writeln!(s, "        {},", signature_table(&sig, numbers, "        "));
    }
    s.push_str("    ])");
    s
}

fn c_str_lit(s: &str) -> String {
    format!("c{:?}", s)
}

/// The Rust name of the entry point of `op` in variant `v`: `fn_add`, `meth_add`,
/// `generator_meth_seed`.
fn entry_point_name(op: &Op, v: Variant) -> String {
    match (v, op.entries[0].owner()) {
        (Variant::Function, _) if op.entries[0].python_module.is_some() => {
            let m = op.entries[0].python_module.as_deref().unwrap_or("nn");
            format!("{m}_fn_{}", op.name)
        }
        (Variant::Function, _) => format!("fn_{}", op.name),
        (Variant::Method, "Tensor") => format!("meth_{}", op.name),
        (Variant::Method, owner) => format!("{}_meth_{}", owner.to_lowercase(), op.name),
    }
}

/// How the body reads one argument of the core call.
struct ArgCode {
    /// The extraction (`r.tensor(0)?`), or `this` for a method's bound tensor.
    extract: String,
    /// The expression passed to the core function, given the argument's local name.
    pass: fn(&str) -> String,
    /// A tensor the core call reads: `Some(optional)`.
    tensor: Option<bool>,
    /// A `Tensor[]` (its elements count towards releasing the GIL).
    list: bool,
}

/// The extraction of Python parameter `i` of type `ty`.
fn arg_code(i: usize, ty: &Type) -> ArgCode {
    let by_ref: fn(&str) -> String = |x| format!("&{x}");
    // `&a0` coerces to the core's `&Tensor`; an inline `r.tensor(0)?` needs `&*`.
    let tensor_ref: fn(&str) -> String = |x| {
        if x.ends_with('?') {
            format!("&*{x}")
        } else {
            format!("&{x}")
        }
    };
    let by_value: fn(&str) -> String = |x| x.to_string();
    let deref: fn(&str) -> String = |x| format!("{x}.as_deref()");
    let (call, pass, tensor, list) = match (ty.base, ty.list.is_some(), ty.optional) {
        (BaseTy::Tensor, false, false) => ("tensor", tensor_ref, Some(false), false),
        (BaseTy::Tensor, false, true) => ("optional_tensor", deref, Some(true), false),
        (BaseTy::Tensor, true, false) => ("tensor_list", by_ref, None, true),
        (BaseTy::Int, true, false) => ("int_list", by_ref, None, false),
        (BaseTy::Int, true, true) => ("optional_int_list", deref, None, false),
        (BaseTy::Float, true, false) => ("float_list", by_ref, None, false),
        (BaseTy::Float, true, true) => ("optional_float_list", deref, None, false),
        (BaseTy::Scalar, _, false) => ("scalar", by_value, None, false),
        (BaseTy::Scalar, _, true) => ("optional_scalar", by_value, None, false),
        (BaseTy::Int, _, false) => ("int", by_value, None, false),
        (BaseTy::Int, _, true) => ("optional_int", by_value, None, false),
        (BaseTy::Float, _, false) => ("float", by_value, None, false),
        (BaseTy::Float, _, true) => ("optional_float", by_value, None, false),
        (BaseTy::Bool, _, false) => ("bool", by_value, None, false),
        (BaseTy::Str, _, false) => ("string", by_value, None, false),
        (BaseTy::Str, _, true) => ("optional_string", by_value, None, false),
        (BaseTy::ScalarType, _, false) => ("scalar_type", by_value, None, false),
        (BaseTy::ScalarType, _, true) => ("optional_scalar_type", by_value, None, false),
        (BaseTy::Device, _, _) => {
            return ArgCode {
                extract: format!("r.check_device({i})?"),
                pass: by_value,
                tensor: None,
                list: false,
            }
        }
        (BaseTy::Layout, _, _) => {
            return ArgCode {
                extract: "()".into(),
                pass: by_value,
                tensor: None,
                list: false,
            }
        }
        (BaseTy::Generator, _, true) => {
            return ArgCode {
                extract: format!("r.object({i}).and_then(unpack_generator)"),
                pass: by_value,
                tensor: None,
                list: false,
            }
        }
        other => panic!("no extractor for schema type {ty} {other:?}"),
    };
    ArgCode {
        extract: format!("r.{call}({i})?"),
        pass,
        tensor,
        list,
    }
}

/// The body of one overload: extract the arguments, call the core (without the GIL when it is
/// worth it), convert the result. `ind` is the indentation.
fn overload_body(sig: &PySignature<'_>, structseqs: &[(String, Vec<String>)], ind: &str) -> String {
    let e = sig.entry;
    let mut out = String::new();
    // See Note [Core calls without the GIL] (src/bindings/gil.rs): ops with tensor arguments
    // and no Python-object arguments release the GIL around the core call above a threshold.
    let python_object_arg = e
        .func
        .args
        .iter()
        .any(|a| matches!(a.ty.base, BaseTy::Generator | BaseTy::PyObject));
    let unlock = e.release_gil != ReleaseGil::Never
        && !python_object_arg
        && e.func.args.iter().any(|a| a.ty.base == BaseTy::Tensor);
    let codes: Vec<(String, ArgCode)> = e
        .func
        .args
        .iter()
        .zip(&sig.arg_params)
        .map(|(a, pi)| match *pi {
            Some(i) => (format!("a{i}"), arg_code(i, &a.ty)),
            None => (
                "this".to_string(),
                ArgCode {
                    extract: "this".into(),
                    // `this` is a borrowed handle (`TensorRef`); the core takes `&Tensor`.
                    pass: |x| format!("&{x}"),
                    tensor: Some(false),
                    list: false,
                },
            ),
        })
        .collect();
    if e.func.is_view() {
        let _ = writeln!(
            out,
            "{ind}// A view (alias annotation `Tensor(a)`): it keeps the GIL; the core records `_base`."
        );
    }
    // `out=` runs the op's plan straight into `out` (Note [One kernel per op]), unless the
    // entry says `out: copy`.
    let plan_out = !e.out_copy && sig.out.is_some();
    // Locals are needed to release the GIL (the handles become our own first) and for a
    // plan's `out=` (the plan and the plain call share the arguments).
    // A derived in-place function (`_C._nn.leaky_relu_`) names its self tensor twice.
    let inplace_fn = e.plan_inplace && sig.variant == Variant::Function;
    // Autograd (src/derivatives.yaml): a recording wrapper, the bare op, or the bare op after
    // the pending check; in-place forms go through `vt::inplace` (core Note [In-place ops and
    // history]). Both need the arguments in locals (used twice).
    let ag = gen_autograd::kind_of(e);
    // out= of a differentiable op checks its tensors for torch's autograd error first.
    let out_check = sig.out.is_some() && ag != Autograd::NotDifferentiable;
    // torch's dtype and overlap checks on `out=` (`out_dtype:`, `out_overlap:`) read the inputs.
    let out_rules =
        sig.out.is_some() && (!e.out_dtype.is_empty() || e.out_overlap || e.out_overlap_outputs);
    let locals =
        unlock || plan_out || out_check || out_rules || e.plan_inplace || ag == Autograd::Pending;
    let mut call_args = Vec::new();
    // `requires_grad=` of the factories is applied to the result, not passed to the core.
    let rg_pos = e.func.args.iter().position(|a| a.name == "requires_grad");
    for (n, (local, c)) in codes.iter().enumerate() {
        if Some(n) == rg_pos {
            let _ = writeln!(out, "{ind}let requires_grad = {};", c.extract);
            continue;
        }
        // torch's TensorOptions (`device=`, `layout=`, `pin_memory=`) are checked here and not
        // passed to the core (src/bindings/device_object.rs, Note [Devices]).
        let a = &e.func.args[n];
        if a.ty.base == BaseTy::Device {
            let _ = writeln!(out, "{ind}{};", c.extract);
            continue;
        }
        if a.ty.base == BaseTy::Layout {
            // The parser's type check admits `_C.strided` only: nothing left to check.
            continue;
        }
        if a.name == "pin_memory" && a.ty.base == BaseTy::Bool {
            let Some(pi) = sig.arg_params[n] else {
                panic!("{}: pin_memory is a bound self", e.name)
            };
            let _ = writeln!(out, "{ind}r.check_pin_memory({pi})?;");
            continue;
        }
        if locals {
            if local == "this" {
                if unlock {
                    let _ = writeln!(out, "{ind}let mut this = TensorArg::Borrowed(this);");
                    call_args.push("&this".to_string());
                } else {
                    call_args.push("&this".to_string());
                }
                continue;
            }
            let m = if unlock && c.tensor.is_some() {
                "mut "
            } else {
                ""
            };
            let _ = writeln!(out, "{ind}let {m}{local} = {};", c.extract);
            call_args.push((c.pass)(local));
        } else {
            call_args.push((c.pass)(&c.extract));
        }
    }
    // The tensor arguments, as `&Tensor`s (for the autograd checks).
    let tensor_refs: Vec<String> = codes
        .iter()
        .filter(|(_, c)| c.tensor == Some(false))
        .map(|(l, _)| format!("&*{l}"))
        .collect();
    // `check_out_grad(o, ...)?;` for out_check entries (`o`: the out= object).
    let out_check_stmt = if out_check {
        let lists: Vec<String> = e
            .func
            .args
            .iter()
            .enumerate()
            .filter(|(_, a)| a.ty.base == BaseTy::Tensor && a.ty.list.is_some())
            .map(|(i, _)| format!("&a{i}[..]"))
            .collect();
        format!(
            "check_out_grad(o, &[{}], &[{}], {:?})?;",
            tensor_refs.join(", "),
            lists.join(", "),
            e.name
        )
    } else {
        String::new()
    };
    // torch's checks of the out tensors themselves, before anything is computed or resized:
    // the tuple's length (a named-tuple result), `out_dtype:` (against self's dtype), and
    // `out_overlap:` (no memory shared with an input).
    let mut out_check_stmt = out_check_stmt;
    if sig.out.is_some() {
        if let Returns::Named(fields) = &e.func.returns {
            let _ = write!(
                out_check_stmt,
                " write_out::check_out_tuple(o, {}, {:?})?;",
                fields.len(),
                e.name
            );
        }
        if let (true, Returns::Named(fields)) = (e.out_overlap_outputs, &e.func.returns) {
            let names: Vec<String> = fields.iter().map(|f| format!("{f:?}")).collect();
            let _ = write!(
                out_check_stmt,
                " write_out::check_outs_disjoint(o, &[{}], {:?})?;",
                names.join(", "),
                e.name
            );
        }
        if !e.out_dtype.is_empty() && !e.out_dtype_after {
            let rules: Vec<&str> = e.out_dtype.iter().map(|r| r.rust()).collect();
            let _ = write!(
                out_check_stmt,
                " write_out::check_out_dtype(o, &[{}], a0.dtype(), {:?})?;",
                rules.join(", "),
                e.name
            );
        }
        if e.out_overlap {
            let lists: Vec<String> = e
                .func
                .args
                .iter()
                .enumerate()
                .filter(|(_, a)| a.ty.base == BaseTy::Tensor && a.ty.list.is_some())
                .map(|(i, _)| format!("&a{i}[..]"))
                .collect();
            let _ = write!(
                out_check_stmt,
                " write_out::check_out_overlap(o, &[{}], &[{}])?;",
                tensor_refs.join(", "),
                lists.join(", ")
            );
        }
    }
    let out_check = out_check || out_rules;
    let core = if e.plan_inplace {
        // A derived in-place method (or `_C._nn` function): the op's plan run into self (Note
        // [One kernel per op]), through `vt::inplace` for autograd. Self is `&this` for a method,
        // the first argument's local for a function.
        let slf = if inplace_fn {
            call_args[0].clone()
        } else {
            "&this".to_string()
        };
        let rest = call_args[1..].join(", ");
        let sep = if rest.is_empty() { "" } else { ", " };
        let functional =
            functional_call(e, &ag, &format!("s{sep}{rest}"), &["s"], &tensor_refs[1..]);
        format!(
            "vt::inplace({:?}, {slf}, &[{}], |s| ops::{}_plan(s{sep}{rest}).and_then(|p| p.run_into(s)), |s| {functional})",
            e.name,
            tensor_refs[1..].join(", "),
            e.impl_fn,
        )
    } else {
        functional_call(e, &ag, &call_args.join(", "), &[], &tensor_refs)
    };
    let core = if rg_pos.is_some() {
        format!("{core}.and_then(|t| vt::with_requires_grad(t, requires_grad))")
    } else {
        core
    };
    // The core call, without the GIL when large enough, as statements leaving `ret`, or as an
    // expression.
    let (pre, call) = if unlock {
        let tensors: Vec<String> = codes
            .iter()
            .filter_map(|(l, c)| {
                c.tensor.map(|opt| {
                    if opt {
                        format!("{l}.as_mut()")
                    } else {
                        format!("Some(&mut {l})")
                    }
                })
            })
            .collect();
        let lists: Vec<String> = codes
            .iter()
            .filter(|(_, c)| c.list)
            .map(|(l, _)| format!("entry::list_elements(&{l})"))
            .collect();
        let unlock_call = if e.release_gil == ReleaseGil::Matmul {
            let operands: Vec<&str> = codes
                .iter()
                .filter(|(_, c)| c.tensor == Some(false))
                .map(|(l, _)| l.as_str())
                .take(2)
                .collect();
            format!(
                "entry::unlock_if(gil::matmul_worth(&{}, &{}), [{}])",
                operands[0],
                operands[1],
                tensors.join(", ")
            )
        } else {
            format!(
                "entry::unlock_for_elements({}, [{}])",
                if lists.is_empty() {
                    "0".to_string()
                } else {
                    lists.join(" + ")
                },
                tensors.join(", ")
            )
        };
        let mut pre = String::new();
        let _ = writeln!(pre, "{ind}// SAFETY: only the core call runs until `unlocked` is dropped (Note [Core calls without the GIL]).");
        let _ = writeln!(pre, "{ind}let unlocked = unsafe {{ {unlock_call} }};");
        let _ = writeln!(pre, "{ind}let ret = {core};");
        let _ = writeln!(pre, "{ind}drop(unlocked);");
        (pre, "ret".to_string())
    } else {
        (String::new(), core)
    };
    match &e.func.returns {
        Returns::One(t) if t.is_tensor() && e.func.is_inplace() => {
            out.push_str(&pre);
            let self_expr = if sig.variant == Variant::Method {
                "this_obj".to_string()
            } else {
                let pos = sig.arg_params[0].expect("self is the first argument");
                format!("r.object({pos}).expect(\"self is required\")")
            };
            let _ = writeln!(out, "{ind}{call}?;");
            let _ = writeln!(out, "{ind}Ok({self_expr}.to_owned().release())");
        }
        Returns::One(_) if plan_out => {
            // out= writes straight into `out` through the op's plan (no result copy).
            let oi = sig.out.expect("out");
            let plan = format!("ops::{}_plan({})", e.impl_fn, call_args.join(", "));
            let _ = writeln!(out, "{ind}match r.object({oi}) {{");
            let _ = writeln!(out, "{ind}    None => {{");
            for l in pre.lines() {
                let _ = writeln!(out, "        {l}");
            }
            let _ = writeln!(out, "{ind}        entry::ret({call})");
            let _ = writeln!(out, "{ind}    }}");
            let _ = writeln!(
                out,
                "{ind}    Some(o) => {{ {out_check_stmt} write_out_plan(o, {plan}?, {:?}) }}",
                e.name
            );
            let _ = writeln!(out, "{ind}}}");
        }
        Returns::One(_) if sig.out.is_some() => {
            let oi = sig.out.expect("out");
            if out_check {
                let _ = writeln!(
                    out,
                    "{ind}if let Some(o) = r.object({oi}) {{ {out_check_stmt} }}"
                );
            }
            out.push_str(&pre);
            let _ = writeln!(
                out,
                "{ind}entry::ret_out({call}, r.object({oi}), {:?})",
                e.name
            );
        }
        Returns::One(_) if e.tuple_if.is_some() => {
            out.push_str(&pre);
            let arg = e.tuple_if.as_deref().expect("tuple_if");
            let n = e
                .func
                .args
                .iter()
                .position(|a| a.name == arg)
                .expect("checked");
            let pi = sig.arg_params[n].expect("a bool argument is a parameter");
            let _ = writeln!(out, "{ind}entry::ret_tuple_if(r.bool({pi})?, {call})");
        }
        Returns::One(_) if e.unwrap_single => {
            out.push_str(&pre);
            let _ = writeln!(out, "{ind}entry::ret_unwrap_single({call})");
        }
        Returns::One(_) => {
            out.push_str(&pre);
            let _ = writeln!(out, "{ind}entry::ret({call})");
        }
        Returns::Named(fields) if sig.out.is_some() => {
            // `out=(values, indices)`: checked first, then the results are copied into the out
            // tensors (`out: copy`), which are returned as the named tuple.
            let oi = sig.out.expect("out");
            let idx = structseq_index(structseqs, &e.name, fields);
            let _ = writeln!(
                out,
                "{ind}if let Some(o) = r.object({oi}) {{ {out_check_stmt} }}"
            );
            out.push_str(&pre);
            let names: Vec<String> = (0..fields.len()).map(|k| format!("v{k}")).collect();
            let _ = writeln!(out, "{ind}let ({}) = {call}?;", names.join(", "));
            if e.out_dtype_after {
                // `out_dtype: ..., after`: the op's own errors come first.
                let rules: Vec<&str> = e.out_dtype.iter().map(|r| r.rust()).collect();
                let _ = writeln!(
                    out,
                    "{ind}if let Some(o) = r.object({oi}) {{ write_out::check_out_dtype(o, &[{}], a0.dtype(), {:?})?; }}",
                    rules.join(", "),
                    e.name
                );
            }
            let _ = writeln!(
                out,
                "{ind}match r.object({oi}) {{ None => entry::ret_named({idx}, vec![{n}]), Some(o) => write_out::write_out_named(o, {idx}, vec![{n}], {:?}) }}",
                e.name,
                n = names.join(", ")
            );
        }
        Returns::Named(fields) => {
            out.push_str(&pre);
            let idx = structseq_index(structseqs, &e.name, fields);
            let names: Vec<String> = (0..fields.len()).map(|k| format!("v{k}")).collect();
            let _ = writeln!(out, "{ind}let ({}) = {call}?;", names.join(", "));
            let _ = writeln!(
                out,
                "{ind}entry::ret_named({idx}, vec![{}])",
                names.join(", ")
            );
        }
        Returns::Nothing => panic!("{}: unsupported return ()", e.name),
    }
    out
}

/// One entry point: `fn_add` / `meth_add`, with its static parser, its `body` and the call into
/// `entry::function` or `entry::method`.
pub(crate) fn gen_entry_point(
    op: &Op,
    v: Variant,
    structseqs: &[(String, Vec<String>)],
    out: &mut String,
) {
    let entries = entries_of(op, v);
    let sigs: Vec<PySignature<'_>> = entries.iter().map(|e| PySignature::new(e, v)).collect();
    let fname = entry_point_name(op, v);
    let what = match v {
        Variant::Function => "function",
        Variant::Method => "method",
    };
    let _ = writeln!(out, "/// `{}` ({what}):", op.name);
    for (sig, e) in sigs.iter().zip(&entries) {
        let _ = writeln!(out, "/// `{} -> {}`", sig.spec(), schema_ret(e));
    }
    let _ = writeln!(
        out,
        "unsafe extern \"C\" fn {fname}(slf: *mut ffi::PyObject, args: *const *mut ffi::PyObject, nargs: ffi::Py_ssize_t, kwnames: *mut ffi::PyObject) -> *mut ffi::PyObject {{"
    );
    let _ = writeln!(
        out,
        "    static PARSER: PythonArgParser = {};",
        parser_table(op, v)
    );
    let helper = match v {
        Variant::Function => "function",
        Variant::Method => "method",
    };
    let body = if let Some(Manual::Fastcall(path)) = op.manual() {
        format!("super::super::{path}")
    } else {
        let code: Vec<String> = if sigs.len() == 1 {
            vec![overload_body(&sigs[0], structseqs, "        ")]
        } else {
            sigs.iter()
                .map(|s| overload_body(s, structseqs, "                "))
                .collect()
        };
        let all = code.concat();
        let uses = |x: &str| all.contains(x);
        let r = if uses("r.") { "r" } else { "_" };
        let params = match v {
            Variant::Function => format!("{r}: &ParsedArgs<'_>"),
            Variant::Method => format!(
                "{r}: &ParsedArgs<'a>, {}: Borrowed<'a>, {}: TensorRef<'a>",
                if uses("this_obj") { "this_obj" } else { "_" },
                if uses("this") { "this" } else { "_" },
            ),
        };
        let lifetime = if v == Variant::Method { "<'a>" } else { "" };
        let _ = writeln!(
            out,
            "    fn body{lifetime}({params}) -> PyResult<*mut ffi::PyObject> {{"
        );
        if sigs.len() == 1 {
            out.push_str(&code[0]);
        } else {
            let _ = writeln!(out, "        match r.idx {{");
            for (i, c) in code.iter().enumerate() {
                let _ = writeln!(out, "            {i} => {{");
                out.push_str(c);
                let _ = writeln!(out, "            }}");
            }
            let _ = writeln!(
                out,
                "            _ => unreachable!(\"parser returned an unknown overload\"),"
            );
            let _ = writeln!(out, "        }}");
        }
        let _ = writeln!(out, "    }}");
        "body".to_string()
    };
    let _ = writeln!(
        out,
        "    // SAFETY: CPython calls this {what} with the METH_FASTCALL | METH_KEYWORDS convention{}.",
        if v == Variant::Method {
            ", on a `_C.Tensor`"
        } else {
            ", on the module"
        }
    );
    let _ = writeln!(
        out,
        "    unsafe {{ entry::{helper}(&PARSER, slf, args, nargs, kwnames, {body}) }}"
    );
    let _ = writeln!(out, "}}\n");
}

/// The named-tuple return types, one per op name (torch: `torch.return_types.<op>`), in schema
/// order: `(op name, field names)`.
pub(crate) fn collect_structseqs(ops: &[Op]) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for op in ops {
        for e in &op.entries {
            if let Returns::Named(fields) = &e.func.returns {
                match out.iter().find(|(n, _)| *n == op.name) {
                    Some((_, f)) => assert_eq!(
                        f, fields,
                        "{}: overloads return different named tuples",
                        op.name
                    ),
                    None => out.push((op.name.clone(), fields.clone())),
                }
            }
        }
    }
    out
}

fn structseq_index(structseqs: &[(String, Vec<String>)], name: &str, fields: &[String]) -> usize {
    structseqs
        .iter()
        .position(|(n, f)| n == name && f == fields)
        .expect("collected")
}

/// The distinct parameter names of every parser, sorted.
fn keyword_names(ops: &[Op]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for op in ops {
        if op
            .manual()
            .is_some_and(|m| !matches!(m, Manual::Fastcall(_)))
        {
            continue;
        }
        for v in [Variant::Function, Variant::Method] {
            for e in entries_of(op, v) {
                for p in PySignature::new(e, v).params {
                    names.insert(p.name);
                }
            }
        }
    }
    names
}

/// A `PyMethodDef` row: `name`, calling `fname` with `convention`.
fn method_def(name: &str, fname: &str, convention: &Manual, doc: &str) -> String {
    let (member, flags) = match convention {
        Manual::Fastcall(_) => (
            "PyCFunctionFastWithKeywords",
            "ffi::METH_FASTCALL | ffi::METH_KEYWORDS",
        ),
        Manual::O(_) => ("PyCFunction", "ffi::METH_O"),
        Manual::NoArgs(_) => ("PyCFunction", "ffi::METH_NOARGS"),
    };
    format!(
        "    ffi::PyMethodDef {{ ml_name: {}.as_ptr(), ml_meth: ffi::PyMethodDefPointer {{ {member}: {fname} }}, ml_flags: {flags}, ml_doc: {}.as_ptr() }},",
        c_str_lit(name),
        c_str_lit(doc)
    )
}

/// The value a slot passes for a defaulted argument: the core's type for the schema type.
fn default_arg(ty: &Type, d: &DefaultValue) -> String {
    match (d, ty.base) {
        (DefaultValue::None, _) => "None".into(),
        (DefaultValue::Bool(b), BaseTy::Scalar) => format!("Scalar::Bool({b})"),
        (DefaultValue::Int(i), BaseTy::Scalar) => format!("Scalar::Int({i})"),
        (DefaultValue::Float(f), BaseTy::Scalar) => format!("Scalar::Float({f:?})"),
        (DefaultValue::Int(i), BaseTy::Float) => format!("{:?}", *i as f64),
        (DefaultValue::Float(f), _) => format!("{f:?}"),
        (DefaultValue::Bool(b), _) => b.to_string(),
        (DefaultValue::Int(i), _) if ty.list.is_some() => format!("&[{i}]"),
        (DefaultValue::Int(i), _) => i.to_string(),
        (DefaultValue::Str(s), _) => format!("{s:?}"),
        (DefaultValue::IntList(v), _) => format!(
            "&[{}]",
            v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// The call of the core op of `e` on `args` for its autograd kind `ag`: the recording wrapper
/// (`vt::op`), the bare op (`ops::op`), or the bare op after the pending check over the tensors
/// `extra` (already `&Tensor`s) and `tensors` (written `&*local`).
fn functional_call(
    e: &Entry,
    ag: &Autograd,
    args: &str,
    extra: &[&str],
    tensors: &[String],
) -> String {
    match ag {
        Autograd::Node(_) => format!("vt::{}({args})", e.impl_fn),
        Autograd::NotDifferentiable => format!("ops::{}({args})", e.impl_fn),
        Autograd::Pending => {
            let mut checks: Vec<String> = extra.iter().map(|x| x.to_string()).collect();
            checks.extend(tensors.iter().cloned());
            let lists: Vec<String> = e
                .func
                .args
                .iter()
                .enumerate()
                .filter(|(_, a)| a.ty.base == BaseTy::Tensor && a.ty.list.is_some())
                .map(|(i, _)| format!("a{i}"))
                .collect();
            let mut pre = format!("vt::check_pending({:?}, &[{}])", key(e), checks.join(", "));
            for l in lists {
                pre = format!(
                    "{pre}.and_then(|()| vt::check_pending_list({:?}, &{l}))",
                    key(e)
                );
            }
            format!("{pre}.and_then(|()| ops::{}({args}))", e.impl_fn)
        }
    }
}

/// The core call of an operator's entry on the operands `x` (and `y`): the schema's defaults
/// for the other arguments, and for an entry without `numbers_as_tensors` torch's TypeError for
/// a number operand (`t @ 2`).
fn operator_closure(e: &Entry, kind: OperatorKind) -> String {
    let operands: &[&str] = if kind == OperatorKind::Unary {
        &["x"]
    } else {
        &["x", "y"]
    };
    let mut args: Vec<String> = operands.iter().map(|x| x.to_string()).collect();
    for a in &e.func.args[operands.len()..] {
        let d = a.default.as_ref().expect("checked by the schema reader");
        args.push(default_arg(&a.ty, &d.value));
    }
    let ag = gen_autograd::kind_of(e);
    if e.plan_inplace {
        // The derived in-place method: the op's plan run into the left operand, through
        // `vt::inplace` for autograd.
        let rest = args[1..].join(", ");
        let functional = functional_call(e, &ag, &format!("s, {rest}"), &["s", "y"], &[]);
        return format!(
            "|x, y| vt::inplace({:?}, x, &[y], |s| ops::{}_plan(s, {rest}).and_then(|p| p.run_into(s)), |s| {functional})",
            e.name,
            e.impl_fn,
        );
    }
    let path = if matches!(ag, Autograd::Node(_)) {
        "vt"
    } else {
        "ops"
    };
    if ag != Autograd::Pending
        && args.len() == operands.len()
        && (kind == OperatorKind::Unary || e.numbers_as_tensors)
    {
        return format!("{path}::{}", e.impl_fn);
    }
    let call = functional_call(e, &ag, &args.join(", "), operands, &[]);
    let params = operands.join(", ");
    if kind != OperatorKind::Unary && !e.numbers_as_tensors {
        format!(
            "|{params}| {{ number::tensors_only({:?}, x, y)?; {call} }}",
            e.name
        )
    } else {
        format!("|{params}| {call}")
    }
}

/// The operators the schema declares (`python_operator`): the number-protocol slots (each
/// takes its operands in either order, which gives the reflected forms), `fill_number_slots`,
/// and `compare_op` for `tp_richcompare` (src/bindings/number.rs holds the shared bodies).
fn gen_operators(ops: &[Op], out: &mut String) {
    let mut slots: Vec<(&str, String)> = Vec::new();
    let mut compares: Vec<(&str, String)> = Vec::new();
    for e in ops.iter().flat_map(|op| &op.entries) {
        let mut seen: Vec<&str> = Vec::new();
        for o in &e.operators {
            if seen.contains(&o.slot) {
                continue;
            }
            seen.push(o.slot);
            let dunders: Vec<String> = e
                .operators
                .iter()
                .filter(|x| x.slot == o.slot)
                .map(|x| format!("`{}`", x.dunder))
                .collect();
            let closure = operator_closure(e, o.kind);
            if o.kind == OperatorKind::Compare {
                compares.push((o.slot, format!("({:?}, {closure})", e.name)));
                continue;
            }
            let worth = if e.release_gil == ReleaseGil::Matmul {
                "gil::matmul_worth"
            } else {
                "number::elementwise_worth"
            };
            let (params, body) = match (o.kind, o.slot) {
                (OperatorKind::Binary, "nb_power") => (
                    "a: *mut ffi::PyObject, b: *mut ffi::PyObject, m: *mut ffi::PyObject",
                    format!("number::power(a, b, m, {:?}, {worth}, {closure})", e.name),
                ),
                (OperatorKind::Binary, _) => (
                    "a: *mut ffi::PyObject, b: *mut ffi::PyObject",
                    format!("number::binary(a, b, {:?}, {worth}, {closure})", e.name),
                ),
                (OperatorKind::InPlace, _) => (
                    "a: *mut ffi::PyObject, b: *mut ffi::PyObject",
                    format!("number::inplace(a, b, {:?}, {closure})", e.name),
                ),
                (OperatorKind::Unary, _) => (
                    "a: *mut ffi::PyObject",
                    format!("number::unary(a, {:?}, {closure})", e.name),
                ),
                (OperatorKind::Compare, _) => unreachable!(),
            };
            let _ = writeln!(
                out,
                "/// {} (`{}`): `{}`.",
                dunders.join(", "),
                o.slot,
                PySignature::new(
                    e,
                    if e.function {
                        Variant::Function
                    } else {
                        Variant::Method
                    }
                )
                .spec()
            );
            let _ = writeln!(
                out,
                "unsafe extern \"C\" fn {}({params}) -> *mut ffi::PyObject {{",
                o.slot
            );
            let _ = writeln!(out, "    // SAFETY: CPython calls a number slot of `_C.Tensor` with live operands, the GIL held.");
            let _ = writeln!(out, "    unsafe {{ {body} }}");
            let _ = writeln!(out, "}}\n");
            slots.push((o.slot, String::new()));
        }
    }
    let _ = writeln!(
        out,
        "/// Fill the number-protocol slots the schema declares (`python_operator`)."
    );
    let _ = writeln!(
        out,
        "pub(super) fn fill_number_slots(t: &mut ffi::PyNumberMethods) {{"
    );
    for (slot, _) in &slots {
        let _ = writeln!(out, "    t.{slot} = Some({slot});");
    }
    let _ = writeln!(out, "}}\n");
    let _ = writeln!(
        out,
        "/// The rich comparison `op` (`Py_EQ`, ...) the schema declares: the `_C` function it mirrors\n/// and the core op."
    );
    let _ = writeln!(
        out,
        "pub(super) fn compare_op(op: std::ffi::c_int) -> Option<(&'static str, number::BinaryOp)> {{"
    );
    let _ = writeln!(out, "    match op {{");
    for (slot, arm) in &compares {
        let _ = writeln!(out, "        ffi::{slot} => Some({arm}),");
    }
    let _ = writeln!(out, "        _ => None,");
    let _ = writeln!(out, "    }}");
    let _ = writeln!(out, "}}\n");
}

/// The entry points of `generated_sample.rs`: one of each kind the generator writes (a function
/// with a direct `out=`, a method, a view, overloads, a named tuple, an in-place method, a
/// hand-written body); the sample ends with the operator slot `nb_add`.
const SAMPLES: &[(&str, Variant)] = &[
    ("add", Variant::Function),
    ("add", Variant::Method),
    ("transpose", Variant::Method),
    ("squeeze", Variant::Function),
    ("max", Variant::Function),
    ("add_", Variant::Method),
    ("tensor", Variant::Function),
];

/// `src/bindings/generated_sample.rs`: the entry points of `SAMPLES` and the slot `nb_add`,
/// exactly as `gen_bindings` writes them.
pub(crate) fn gen_sample(ops: &[Op]) -> String {
    let structseqs = collect_structseqs(ops);
    let mut out = String::new();
    out.push_str("// @generated from src/native_functions.yaml by build.rs — do not edit.\n");
    out.push_str("//\n// A sample of `$OUT_DIR/generated_bindings.rs`: the entry points of a few representative\n// ops, checked in so that reviewers see what the generator writes (as CPython checks in its\n// Argument Clinic output). Not compiled: the real file is included by src/bindings/generated.rs.\n// `cargo test` fails when this copy is stale; `make stubs` rewrites it.\n\n");
    for (name, v) in SAMPLES {
        let op = ops
            .iter()
            .find(|o| o.name == *name && o.entries[0].owner() == "Tensor")
            .unwrap_or_else(|| panic!("sample op {name} is not in the schema"));
        gen_entry_point(op, *v, &structseqs, &mut out);
    }
    // The number slot of `a + b` (`python_operator: __add__, __radd__` on `add`).
    let mut slots = String::new();
    gen_operators(ops, &mut slots);
    let start = slots.find("/// `__add__`").expect("add declares __add__");
    let len = slots[start..].find("\n}\n").expect("the end of nb_add") + 3;
    out.push_str(&slots[start..start + len]);
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

pub(crate) fn gen_bindings(ops: &[Op]) -> String {
    let mut out = String::new();
    let structseqs = collect_structseqs(ops);
    out.push_str("// @generated from src/native_functions.yaml by build.rs — do not edit.\n");
    out.push_str("// Included once, by src/bindings/generated.rs.\n\n");
    let _ = writeln!(out, "/// The named-tuple return types: (name, field names), indexed by `structseq::new_return`.");
    let _ = writeln!(
        out,
        "pub(super) static RETURN_TYPES: &[(&str, &[&str])] = &["
    );
    for (name, fields) in &structseqs {
        let fs: Vec<String> = fields.iter().map(|f| format!("{f:?}")).collect();
        let _ = writeln!(out, "    ({name:?}, &[{}]),", fs.join(", "));
    }
    let _ = writeln!(out, "];\n");
    let names = keyword_names(ops);
    let _ = writeln!(
        out,
        "// The parameter names of every parser, interned at init."
    );
    for n in &names {
        let _ = writeln!(
            out,
            "static {}: Keyword = Keyword::new({n:?}, {});",
            keyword_static(n),
            c_str_lit(n)
        );
    }
    let _ = writeln!(
        out,
        "/// Every keyword static above, for `arg_parser::intern_keywords`."
    );
    let _ = writeln!(
        out,
        "pub(super) static KEYWORDS: [&Keyword; {}] = [{}];\n",
        names.len(),
        names
            .iter()
            .map(|n| format!("&{}", keyword_static(n)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    // (table, rows): the module's functions and each class's methods.
    let mut tables: Vec<(&str, Vec<String>)> = vec![
        ("FUNCTIONS", Vec::new()),
        ("TENSOR_METHODS", Vec::new()),
        ("GENERATOR_METHODS", Vec::new()),
        ("NN_FUNCTIONS", Vec::new()),
        ("LINALG_FUNCTIONS", Vec::new()),
        ("SPECIAL_FUNCTIONS", Vec::new()),
    ];
    for op in ops {
        for v in [Variant::Function, Variant::Method] {
            if entries_of(op, v).is_empty() {
                continue;
            }
            let (fname, convention) = match op.manual() {
                Some(m @ (Manual::O(path) | Manual::NoArgs(path))) => {
                    (format!("super::super::{path}"), m.clone())
                }
                _ => {
                    gen_entry_point(op, v, &structseqs, &mut out);
                    (entry_point_name(op, v), Manual::Fastcall(String::new()))
                }
            };
            let table = match (v, op.entries[0].owner()) {
                (Variant::Function, _) => match op.entries[0].python_module.as_deref() {
                    Some("nn") => 3,
                    Some("linalg") => 4,
                    Some(_) => 5,
                    None => 0,
                },
                (Variant::Method, "Tensor") => 1,
                (Variant::Method, _) => 2,
            };
            tables[table]
                .1
                .push(method_def(&op.name, &fname, &convention, &docstring(op, v)));
        }
    }
    gen_operators(ops, &mut out);
    for (name, rows) in &tables {
        let what = match *name {
            "FUNCTIONS" => "module functions",
            "TENSOR_METHODS" => "`_C.Tensor` methods",
            "NN_FUNCTIONS" => "`_C._nn` functions",
            "LINALG_FUNCTIONS" => "`_C._linalg` functions",
            "SPECIAL_FUNCTIONS" => "`_C._special` functions",
            _ => "`_C.Generator` methods",
        };
        let _ = writeln!(out, "/// The {what} the schema declares (no sentinel).");
        let _ = writeln!(
            out,
            "pub(super) static {name}: MethodTable<{}> = MethodTable([\n{}\n]);\n",
            rows.len(),
            rows.join("\n")
        );
    }
    out
}
