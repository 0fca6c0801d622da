"""Documentation: every function of _C and every method/attribute of _C.Tensor has a docstring;
single-signature callables carry a __text_signature__ so inspect.signature works; multi-overload
ones list their signatures; help() renders readable text; every op in the schema is exposed."""

import inspect
import io
import pathlib
import pydoc
import re
import sys
import types

import pytest

import _C

SCHEMA = pathlib.Path(__file__).resolve().parents[2] / "src" / "native_functions.yaml"


def _schema_ops():
    """{name: (function?, method?, [doc lines])} from src/native_functions.yaml."""
    ops = {}
    current = None
    for line in SCHEMA.read_text().splitlines():
        m = re.match(r"^- func: ([A-Za-z_0-9]+)(\.[A-Za-z_0-9]+)?\((Generator self)?", line)
        if m:
            # Methods of `_C.Generator` (`Generator self`) are keyed "Generator.<name>".
            name = ("Generator." if m.group(3) else "") + m.group(1)
            current = {"name": name, "function": True, "method": False, "doc": None, "nn": False}
            ops.setdefault(current["name"], {"function": False, "method": False, "docs": []})
            continue
        if current is None:
            continue
        m = re.match(r"^  python_module: (nn|linalg|special)$", line)
        if m:
            # A function of `_C._nn` (torch's `torch._C._nn`), keyed "_nn.<name>"; `_C._linalg`
            # and `_C._special` likewise.
            entry = ops.pop(current["name"])
            current["name"] = f"_{m.group(1)}." + current["name"]
            ops.setdefault(current["name"], entry)
            continue
        m = re.match(r"^  variants: (.*)$", line)
        if m:
            current["function"] = "function" in m.group(1)
            current["method"] = "method" in m.group(1)
        m = re.match(r"^  doc: (.*)$", line)
        if m:
            entry = ops[current["name"]]
            entry["function"] |= current["function"]
            entry["method"] |= current["method"]
            entry["docs"].append(m.group(1).strip())
    return ops


def _module_functions():
    # The extension module itself: the package re-exports only public names (and a few private
    # test hooks); private schema entries such as `_rebuild_tensor` live on `_C._C`.
    ext = sys.modules["_C._C"]
    funcs = {n: getattr(ext, n) for n in dir(ext) if isinstance(getattr(ext, n), types.BuiltinFunctionType)}
    # And those of the submodules `_C._nn`, `_C._linalg`, `_C._special`, as "_nn.<name>", ...
    for sub in ("_nn", "_linalg", "_special"):
        mod = getattr(ext, sub)
        funcs.update(
            {f"{sub}.{n}": getattr(mod, n) for n in dir(mod) if isinstance(getattr(mod, n), types.BuiltinFunctionType)}
        )
    return funcs


def _tensor_methods():
    return {
        n: o
        for n, o in vars(_C.Tensor).items()
        if not n.startswith("__") and isinstance(o, (types.MethodDescriptorType, types.GetSetDescriptorType))
    }


# ---------------------------------------------------------------------------------------------
# every callable is documented


def test_module_and_types_have_docstrings():
    assert _C.__doc__ and "tensor" in _C.__doc__.lower()
    assert _C.Tensor.__doc__ and len(_C.Tensor.__doc__) > 40
    assert _C.dtype.__doc__ and "dtype" in _C.dtype.__doc__


def test_every_module_function_has_a_docstring():
    funcs = _module_functions()
    assert len(funcs) > 30
    missing = [n for n, f in funcs.items() if not (f.__doc__ or "").strip()]
    assert not missing, missing
    # more than a bare signature line
    short = [n for n, f in funcs.items() if len(f.__doc__.strip()) < 20]
    assert not short, short


def test_every_tensor_method_and_attribute_has_a_docstring():
    meths = _tensor_methods()
    assert len(meths) > 30
    missing = [n for n, m in meths.items() if not (m.__doc__ or "").strip()]
    assert not missing, missing
    for name in ("shape", "dtype", "ndim", "T"):
        assert isinstance(vars(_C.Tensor)[name], types.GetSetDescriptorType)
        assert vars(_C.Tensor)[name].__doc__


def test_every_schema_op_is_exposed_with_its_doc():
    ops = _schema_ops()
    assert len(ops) > 40
    funcs = _module_functions()
    meths = _tensor_methods()
    for name, info in ops.items():
        if info["function"]:
            assert name in funcs, f"_C.{name} missing"
            for d in info["docs"]:
                assert d in funcs[name].__doc__, f"_C.{name} doc lacks {d!r}"
        if info["method"] and name.startswith("Generator."):
            meth = vars(_C.Generator).get(name.split(".")[1])
            assert meth is not None, f"_C.{name} missing"
            for d in info["docs"]:
                assert d in meth.__doc__, f"_C.{name} doc lacks {d!r}"
        elif info["method"]:
            meth = meths.get(name, vars(_C.Tensor).get(name))  # dunders are not in `meths`
            assert meth is not None, f"_C.Tensor.{name} missing"
            for d in info["docs"]:
                assert d in meth.__doc__, f"_C.Tensor.{name} doc lacks {d!r}"


def test_hand_written_callables_documented():
    assert "nested" in _C.tensor.__doc__ or "sequence" in _C.tensor.__doc__
    assert "tolist" in _C.Tensor.tolist.__doc__ or "list" in _C.Tensor.tolist.__doc__


# ---------------------------------------------------------------------------------------------
# signatures


def _params(sig):
    return [(p.name, p.kind, p.default) for p in sig.parameters.values()]


P, K, E = inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.empty


def test_signature_of_single_signature_function():
    sig = inspect.signature(_C.zeros_like)
    assert _params(sig) == [
        ("input", P, E),
        ("dtype", K, None),
        ("layout", K, None),
        ("device", K, None),
        ("pin_memory", K, False),
        ("requires_grad", K, False),
    ]
    assert str(sig) == "(input, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False)"


FUNCTION_SIGNATURES = [
    (_C.add, "(input, other, *, alpha=1, out=None)"),
    (_C.div, "(input, other, *, rounding_mode=None, out=None)"),
    (_C.neg, "(input, *, out=None)"),
    (_C.full, "(size, fill_value, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False)"),
    (_C.amax, "(input, dim=(), keepdim=False, *, out=None)"),
    (_C.argmax, "(input, dim=None, keepdim=False, *, out=None)"),
    (_C.transpose, "(input, dim0, dim1)"),
    (_C.flatten, "(input, start_dim=0, end_dim=-1)"),
    (_C.cat, "(tensors, dim=0, *, out=None)"),
    (_C.where, "(condition, input, other)"),
    (_C.tensor, "(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False)"),
    (_C.numel, "(input)"),
]


def test_function_signatures():
    for fn, text in FUNCTION_SIGNATURES:
        assert str(inspect.signature(fn)) == text, fn.__name__


METHOD_SIGNATURES = [
    # CPython makes a `$self` text-signature parameter positional-only: "(self, /, ...)"
    ("add", "(self, /, other, *, alpha=1)"),
    ("add_", "(self, /, other, *, alpha=1)"),
    ("transpose", "(self, /, dim0, dim1)"),
    ("cpu", "(self, /)"),
    ("new_zeros", "(self, /, size, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False)"),
    ("item", "(self, /)"),
    ("view", "(self, /, size)"),
    ("fill_", "(self, /, value)"),
    ("tolist", "(self, /)"),
    ("where", "(self, /, condition, other)"),
]


def test_method_signatures():
    for name, text in METHOD_SIGNATURES:
        assert str(inspect.signature(getattr(_C.Tensor, name))) == text, name


def test_bound_method_signature_drops_self():
    t = _C.zeros(1)
    assert str(inspect.signature(t.add)) == "(other, *, alpha=1)"
    assert str(inspect.signature(t.zero_)) == "()"


def test_multi_overload_callables_give_the_documented_fallback():
    # Several signatures cannot be one signature: inspect.signature reports (*args, **kwargs)
    # and the docstring lists every overload.
    for fn in (_C.sum, _C.arange, _C.mean, _C.squeeze, _C.Tensor.size, _C.Tensor.stride, _C.Tensor.sum):
        assert fn.__text_signature__ in ("($module, *args, **kwargs)", "($self, *args, **kwargs)")
        params = list(inspect.signature(fn).parameters.values())
        assert [p.kind for p in params][-2:] == [inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD]
    # Each overload with its types, in the order the parser tries them.
    doc = _C.sum.__doc__
    assert "sum(input: Tensor, *, dtype: dtype | None = None) -> Tensor" in doc
    assert (
        "sum(input: Tensor, dim: int | Sequence[int] | None, keepdim: bool = False, *, "
        "dtype: dtype | None = None, out: Tensor | None = None) -> Tensor"
    ) in doc
    assert "tried in the order listed" in doc
    assert _C.arange.__doc__.count("arange(") >= 3


def test_overloads_differ_in_their_types():
    # Names and defaults alone would list squeeze(input, dim) twice.
    lines = [ln for ln in _C.squeeze.__doc__.splitlines() if ln.startswith("squeeze(")]
    assert lines == [
        "squeeze(input: Tensor) -> Tensor",
        "squeeze(input: Tensor, dim: int) -> Tensor",
        "squeeze(input: Tensor, dim: Sequence[int]) -> Tensor",
    ]
    for fn in (_C.clamp, _C.lerp, _C.movedim, _C.split, _C.Tensor.split, _C.max):
        lines = [ln for ln in fn.__doc__.splitlines() if ln.startswith(fn.__name__ + "(")]
        assert len(lines) > 1 and len(set(lines)) == len(lines), fn.__name__


def test_docstring_layout():
    doc = _C.add.__doc__
    # the __text_signature__ header is stripped from __doc__ by CPython
    assert not doc.startswith("add($module")
    assert (
        "add(input: Tensor | Number, other: Tensor | Number, *, alpha: Number = 1, "
        "out: Tensor | None = None) -> Tensor"
    ) in doc
    assert "Computes input + alpha * other elementwise" in doc
    assert "Mirrors torch.add" in doc
    assert "Mirrors torch.Tensor.add" in _C.Tensor.add.__doc__


# ---------------------------------------------------------------------------------------------
# help()


def _help_text(obj):
    buf = io.StringIO()
    pydoc.Helper(output=buf).help(obj)
    return buf.getvalue()


def test_help_on_function_is_readable():
    text = _help_text(_C.add)
    assert "add(input, other, *, alpha=1, out=None)" in text
    assert "Computes input + alpha * other elementwise" in text
    assert "\x08" not in text  # plain text, no overstrike bold


def test_help_on_tensor_type():
    text = pydoc.render_doc(_C.Tensor, renderer=pydoc.plaintext)
    assert "class Tensor" in text
    assert "add(self, /, other, *, alpha=1)" in text
    assert "shape" in text
    assert "Returns a view with dims dim0 and dim1 swapped." in text


def test_help_on_module():
    text = pydoc.render_doc(_C, renderer=pydoc.plaintext)
    assert "zeros_like(input, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False)" in text
    assert "FUNCTIONS" in text


def test_help_on_multi_overload_function():
    text = _help_text(_C.sum)
    assert "sum(input: Tensor, dim: int | Sequence[int] | None, keepdim: bool = False" in text
