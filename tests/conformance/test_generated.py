"""tests/conformance/test_generated.py: hypothesis-generated shapes, strides, dtypes and
broadcasting for the elementwise and reduction families, through torch 2.15 and `_C`.

Run by `make conformance` (pytest in `.venv-conform`) after conformance.py. Each example builds a
torch tensor of a drawn shape and dtype, makes it non-contiguous in a drawn way (a transpose, a
slice with a step, an expanded dim) and copies it to `_C` with the same strides
(`conformance.tensor_to_c`); both libraries run the op and `conformance.compare` compares the
results (or the exception classes). Derandomized: CI sees the same examples on every run.
"""

import math
import os
import sys
import warnings

import pytest

torch = pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _C  # noqa: E402
from conformance import DTYPES, Mismatch, compare, exception_class, tensor_to_c  # noqa: E402

EXAMPLES = int(os.environ.get("CONFORM_EXAMPLES", "60"))
SETTINGS = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

UNARY = [
    "abs", "neg", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "floor", "ceil",
    "trunc", "round", "sign", "reciprocal", "square", "isnan", "isfinite", "logical_not",
    "bitwise_not", "expm1", "log1p", "rsqrt", "frac", "asin", "atan",
]
BINARY = [
    "add", "sub", "mul", "div", "maximum", "minimum", "eq", "ne", "lt", "ge", "atan2",
    "fmod", "remainder", "floor_divide", "pow", "hypot", "logical_and", "logical_xor",
    "bitwise_and", "bitwise_or", "bitwise_xor",
]
REDUCTIONS = ["sum", "prod", "mean", "amax", "amin", "all", "any", "std", "var", "logsumexp", "count_nonzero"]
# Reductions that take one int dim (not a tuple).
ONE_DIM = ["argmax", "argmin", "cumsum", "cumprod", "softmax", "log_softmax"]


@st.composite
def shapes(draw, max_dims=4):
    return tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=max_dims)))


def values(draw_float, dtype, shape):
    n = math.prod(shape)
    if dtype == torch.bool:
        return torch.tensor(draw_float(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=dtype).reshape(shape)
    if dtype.is_floating_point:
        elems = st.one_of(
            st.floats(-100, 100, width=32),
            st.sampled_from([0.0, -0.0, float("inf"), float("-inf"), float("nan"), 0.5, -1.5, 2.5]),
        )
    else:
        info = torch.iinfo(dtype)
        elems = st.integers(max(info.min, -100), min(info.max, 100))
    return torch.tensor(draw_float(st.lists(elems, min_size=n, max_size=n)), dtype=dtype).reshape(shape)


@st.composite
def tensors(draw, dtype=None, shape=None):
    """A torch tensor, possibly non-contiguous: transposed, stepped or expanded."""
    dtype = dtype if dtype is not None else draw(st.sampled_from(DTYPES))
    shape = shape if shape is not None else draw(shapes())
    layout = draw(st.sampled_from(["contiguous", "transposed", "stepped", "expanded"]))
    if layout == "stepped" and shape:
        big = list(shape)
        big[-1] = big[-1] * 2
        t = values(draw, dtype, tuple(big))[..., ::2]
    elif layout == "transposed" and len(shape) >= 2:
        t = values(draw, dtype, shape[:-2] + (shape[-1], shape[-2])).transpose(-1, -2)
    elif layout == "expanded" and shape and shape[0] > 0:
        t = values(draw, dtype, (1,) + shape[1:]).expand(shape)
    else:
        t = values(draw, dtype, shape)
    assert tuple(t.shape) == tuple(shape)
    return t


@st.composite
def broadcastable(draw):
    """Two shapes that broadcast: some dims of the second set to 1 or dropped in front."""
    a = draw(shapes())
    b = [1 if draw(st.booleans()) else s for s in a]
    drop = draw(st.integers(0, len(b)))
    b = tuple(b[drop:])
    return (a, b) if draw(st.booleans()) else (b, a)


def run_both(tfn, cfn):
    t_exc = c_exc = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            t_res = tfn()
        except Exception as e:  # noqa: BLE001
            t_exc = e
        try:
            c_res = cfn()
        except Exception as e:  # noqa: BLE001
            c_exc = e
    if t_exc is not None or c_exc is not None:
        assert t_exc is not None, f"_C raises {type(c_exc).__name__}: {c_exc}; torch returns"
        assert c_exc is not None, f"torch raises {type(t_exc).__name__}: {t_exc}; _C returns"
        assert exception_class(t_exc) == exception_class(c_exc), f"torch {t_exc!r} | _C {c_exc!r}"
        return
    try:
        compare(t_res, c_res, True)
    except Mismatch as m:
        raise AssertionError(f"{m.kind}: {m.detail}") from None


@pytest.mark.parametrize("op", UNARY)
@SETTINGS
@given(data=st.data())
def test_unary(op, data):
    t = data.draw(tensors())
    c = tensor_to_c(t)
    run_both(lambda: getattr(torch, op)(t), lambda: getattr(_C, op)(c))


@pytest.mark.parametrize("op", BINARY)
@SETTINGS
@given(data=st.data())
def test_binary_broadcast(op, data):
    sa, sb = data.draw(broadcastable())
    da = data.draw(st.sampled_from(DTYPES))
    db = data.draw(st.sampled_from([da] + DTYPES))
    a, b = data.draw(tensors(da, sa)), data.draw(tensors(db, sb))
    ca, cb = tensor_to_c(a), tensor_to_c(b)
    run_both(lambda: getattr(torch, op)(a, b), lambda: getattr(_C, op)(ca, cb))


@pytest.mark.parametrize("op", ["add", "mul", "sub", "div", "lt", "eq"])
@SETTINGS
@given(data=st.data())
def test_binary_with_a_python_number(op, data):
    a = data.draw(tensors())
    n = data.draw(st.one_of(st.integers(-5, 5), st.floats(-5, 5, width=32), st.booleans()))
    ca = tensor_to_c(a)
    run_both(lambda: getattr(torch, op)(a, n), lambda: getattr(_C, op)(ca, n))


@pytest.mark.parametrize("op", REDUCTIONS)
@SETTINGS
@given(data=st.data())
def test_reduction_over_dims(op, data):
    t = data.draw(tensors())
    c = tensor_to_c(t)
    nd = t.dim()
    if op == "count_nonzero":
        dims = data.draw(st.one_of(st.none(), st.lists(st.integers(-max(nd, 1), max(nd, 1) - 1), max_size=2, unique=True).map(tuple)))
        run_both(lambda: torch.count_nonzero(t, dims), lambda: _C.count_nonzero(c, dims))
        return
    keepdim = data.draw(st.booleans())
    if op != "logsumexp" and data.draw(st.booleans()):  # logsumexp needs a dim
        run_both(lambda: getattr(torch, op)(t), lambda: getattr(_C, op)(c))
        return
    dims = tuple(data.draw(st.lists(st.integers(-max(nd, 1), max(nd, 1) - 1), min_size=1, max_size=2, unique=True)))
    run_both(lambda: getattr(torch, op)(t, dims, keepdim=keepdim), lambda: getattr(_C, op)(c, dims, keepdim=keepdim))


@pytest.mark.parametrize("op", ONE_DIM)
@SETTINGS
@given(data=st.data())
def test_reduction_over_one_dim(op, data):
    t = data.draw(tensors())
    c = tensor_to_c(t)
    nd = t.dim()
    dim = data.draw(st.integers(-max(nd, 1), max(nd, 1) - 1))
    if op in ("argmax", "argmin"):
        keepdim = data.draw(st.booleans())
        run_both(lambda: getattr(torch, op)(t, dim, keepdim), lambda: getattr(_C, op)(c, dim, keepdim))
    else:
        run_both(lambda: getattr(torch, op)(t, dim), lambda: getattr(_C, op)(c, dim))
