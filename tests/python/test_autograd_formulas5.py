"""Formulas written in issue 12, session 5: nanmedian (both overloads), cummax, cummin, frexp,
and median with a NaN. Each case: the gradient of ``(out * w).sum()`` with ``w = 1, 2, ...`` compared
with torch 2.15's float64 gradient (recorded by hand, torch not imported), the node's name, and
gradcheck on inputs without ties or NaNs.
"""

import math

import pytest

import _C
from _C.autograd import gradcheck

nan = math.nan


def weighted_grad(f, values):
    x = _C.tensor(values, dtype=_C.float64, requires_grad=True)
    out = f(x)
    w = _C.arange(1.0, out.numel() + 1, dtype=_C.float64).reshape(out.shape)
    (out * w).sum().backward()
    return out.grad_fn.name(), x.grad.tolist()


CASES = [
    ("nanmedian", lambda x: _C.nanmedian(x), [[1.0, nan, 3.0], [2.0, 5.0, nan]],
     "NanmedianBackward0", [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]),
    ("nanmedian_all_nan", lambda x: _C.nanmedian(x), [nan, nan, nan],
     "NanmedianBackward0", [1 / 3, 1 / 3, 1 / 3]),
    ("nanmedian_tie", lambda x: _C.nanmedian(x), [2.0, 1.0, 2.0, nan, 3.0],
     "NanmedianBackward0", [0.5, 0.0, 0.5, 0.0, 0.0]),
    ("nanmedian_dim1", lambda x: _C.nanmedian(x, 1)[0],
     [[1.0, nan, 3.0, 0.5], [2.0, 5.0, nan, nan]],
     "NanmedianBackward1", [[1.0, 0.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0]]),
    ("nanmedian_dim0_keepdim", lambda x: _C.nanmedian(x, 0, keepdim=True)[0],
     [[1.0, nan, 3.0, 0.5], [2.0, 5.0, nan, nan], [0.0, 1.0, 2.0, nan]],
     "NanmedianBackward1", [[1.0, 0.0, 0.0, 4.0], [0.0, 0.0, 0.0, 0.0], [0.0, 2.0, 3.0, 0.0]]),
    ("median_nan", lambda x: _C.median(x), [1.0, nan, 2.0],
     "MedianBackward0", [0.0, 1.0, 0.0]),
    ("cummax_dim1", lambda x: _C.cummax(x, 1)[0], [[3.0, 1.0, 4.0, 1.0, 5.0], [9.0, 2.0, 6.0, 5.0, 3.0]],
     "CummaxBackward0", [[3.0, 0.0, 7.0, 0.0, 5.0], [40.0, 0.0, 0.0, 0.0, 0.0]]),
    ("cummin_dim0", lambda x: _C.cummin(x, 0)[0], [[3.0, 1.0, 4.0, 1.0, 5.0], [9.0, 2.0, 6.0, 5.0, 3.0]],
     "CumminBackward0", [[7.0, 9.0, 11.0, 13.0, 5.0], [0.0, 0.0, 0.0, 0.0, 10.0]]),
    ("cummax_ties", lambda x: _C.cummax(x, 0)[0], [2.0, 2.0, 1.0, 2.0],
     "CummaxBackward0", [1.0, 5.0, 0.0, 4.0]),
    ("cummax_0dim", lambda x: _C.cummax(x, 0)[0], 2.0, "CummaxBackward0", 1.0),
    ("cummin_nan", lambda x: x.cummin(0)[0], [2.0, nan, 1.0], "CumminBackward0", [1.0, 5.0, 0.0]),
    ("frexp", lambda x: _C.frexp(x)[0], [[3.0, -0.3, 0.0], [1e-310, 1024.5, -7.25]],
     "FrexpBackward0", [[0.25, 4.0, 3.0], [math.inf, 0.00244140625, 0.75]]),
]


@pytest.mark.parametrize("name,f,values,node,expected", CASES, ids=[c[0] for c in CASES])
def test_gradient_as_torch(name, f, values, node, expected):
    got_node, got = weighted_grad(f, values)
    assert got_node == node
    flat = lambda v: [y for x in v for y in flat(x)] if isinstance(v, list) else [v]  # noqa: E731
    assert flat(got) == pytest.approx(flat(expected))


GRADCHECK = [
    ("nanmedian", lambda x: _C.nanmedian(x)),
    ("nanmedian_dim", lambda x: _C.nanmedian(x, 1)[0]),
    ("cummax", lambda x: _C.cummax(x, 1)[0]),
    ("cummin", lambda x: _C.cummin(x, 0)[0]),
    ("frexp", lambda x: _C.frexp(x)[0]),
]


@pytest.mark.parametrize("name,f", GRADCHECK, ids=[c[0] for c in GRADCHECK])
def test_gradcheck(name, f):
    x = _C.tensor(
        [[0.3, -1.2, 2.5, 0.9], [1.7, -0.4, 0.1, 3.3], [-2.2, 0.6, 1.1, -0.8]],
        dtype=_C.float64,
        requires_grad=True,
    )
    assert gradcheck(f, (x,))


def test_indices_are_not_differentiable():
    x = _C.tensor([1.0, 3.0, 2.0], requires_grad=True)
    v, i = _C.cummax(x, 0)
    assert v.requires_grad and not i.requires_grad
    v, i = _C.nanmedian(x.reshape(1, 3), 1)
    assert v.requires_grad and not i.requires_grad
    m, e = x.frexp()
    assert m.requires_grad and not e.requires_grad
