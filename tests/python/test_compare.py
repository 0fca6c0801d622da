"""Comparisons: eq/ne/lt/le/gt/ge as functions, methods and operators — bool results, type
promotion of the compared values, broadcasting, NaN, out= and errors (torch's behaviour)."""

import operator

import pytest

import _C
from tensor_asserts import same  # noqa: E402

# ---------------------------------------------------------------------------------------------
# helpers


nan = float("nan")

OPS = {
    "eq": (_C.eq, operator.eq),
    "ne": (_C.ne, operator.ne),
    "lt": (_C.lt, operator.lt),
    "le": (_C.le, operator.le),
    "gt": (_C.gt, operator.gt),
    "ge": (_C.ge, operator.ge),
}

A = [1, 2, 3]
B = [3, 2, 1]
EXPECTED = {
    "eq": [False, True, False],
    "ne": [True, False, True],
    "lt": [True, False, False],
    "le": [True, True, False],
    "gt": [False, False, True],
    "ge": [False, True, True],
}

DTYPES = [_C.uint8, _C.int8, _C.int16, _C.int32, _C.int64, _C.float32, _C.float64]


@pytest.mark.parametrize("name", sorted(OPS))
def test_compare_values_all_forms(name):
    fn, op = OPS[name]
    for dtype in DTYPES:
        a = _C.tensor(A, dtype=dtype)
        b = _C.tensor(B, dtype=dtype)
        same(fn(a, b), EXPECTED[name], _C.bool)
        same(getattr(a, name)(b), EXPECTED[name], _C.bool)
        same(op(a, b), EXPECTED[name], _C.bool)


@pytest.mark.parametrize("name", sorted(OPS))
def test_compare_bool_tensors(name):
    fn, op = OPS[name]
    a = _C.tensor([False, True, True, False])
    b = _C.tensor([False, False, True, True])
    py = [op(x, y) for x, y in zip([False, True, True, False], [False, False, True, True])]
    same(fn(a, b), py, _C.bool)


@pytest.mark.parametrize("name", sorted(OPS))
def test_compare_with_python_scalar(name):
    fn, op = OPS[name]
    t = _C.tensor([1, 2, 3])
    # an int tensor against a float: compared in floating point, not truncated
    same(fn(t, 1.5), [op(x, 1.5) for x in [1, 2, 3]], _C.bool)
    same(op(t, 2), [op(x, 2) for x in [1, 2, 3]], _C.bool)
    same(getattr(t, name)(2.0), [op(x, 2.0) for x in [1, 2, 3]], _C.bool)


def test_reflected_comparisons():
    t = _C.tensor([1, 2, 3])
    same(2 < t, [False, False, True], _C.bool)  # becomes t > 2
    same(2 >= t, [True, True, False], _C.bool)
    same(2 == t, [False, True, False], _C.bool)
    same(1.5 != t, [True, True, True], _C.bool)


def test_compare_mixed_dtypes():
    same(_C.tensor([1, 2], dtype=_C.int32) == _C.tensor([1.0, 2.5]), [True, False], _C.bool)
    same(_C.tensor([1, 2], dtype=_C.uint8) < _C.tensor([2, 2], dtype=_C.int64), [True, False], _C.bool)
    same(_C.tensor([True, False]) == 1, [True, False], _C.bool)
    same(_C.tensor([0.1], dtype=_C.float64) == 0.1, [True], _C.bool)


def test_compare_broadcasting():
    a = _C.tensor([[1], [2], [3]])
    b = _C.tensor([1, 2, 3])
    r = a == b
    same(r, [[True, False, False], [False, True, False], [False, False, True]], _C.bool)
    same(_C.lt(a, b), [[False, True, True], [False, False, True], [False, False, False]], _C.bool)
    r = _C.tensor(2) > _C.tensor([1, 2, 3])
    same(r, [True, False, False], _C.bool)


def test_compare_zero_dim():
    r = _C.tensor(2) == _C.tensor(2.0)
    assert r.shape == ()
    assert r.dtype is _C.bool
    assert r.item() is True
    assert bool(_C.tensor(1) < 0) is False


def test_compare_nan():
    t = _C.tensor([nan, 1.0])
    same(t == t, [False, True], _C.bool)
    same(t != t, [True, False], _C.bool)
    same(t < nan, [False, False], _C.bool)
    same(t >= 0, [False, True], _C.bool)


def test_compare_non_contiguous():
    t = _C.arange(6).reshape(2, 3).transpose(0, 1)  # [[0, 3], [1, 4], [2, 5]]
    same(t > 2, [[False, True], [False, True], [False, True]], _C.bool)
    same(t[::2] == _C.tensor([2, 5]), [[False, False], [True, True]], _C.bool)


def test_compare_broadcast_mismatch():
    with pytest.raises(RuntimeError, match="must match the size"):
        _C.tensor([1, 2]) == _C.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="must match the size"):
        _C.lt(_C.ones(2, 3), _C.ones(3, 2))


@pytest.mark.parametrize("name", sorted(OPS))
def test_compare_out(name):
    fn, _ = OPS[name]
    out = _C.zeros(3, dtype=_C.bool)
    r = fn(_C.tensor(A), _C.tensor(B), out=out)
    assert r is out
    same(out, EXPECTED[name], _C.bool)


def test_compare_out_wider_dtype():
    # torch allows a non-bool out for comparisons: True/False become 1/0
    out = _C.zeros(3)
    assert _C.eq(_C.tensor(A), _C.tensor(B), out=out) is out
    same(out, [0.0, 1.0, 0.0], _C.float32)


def test_compare_with_unsupported_operands():
    t = _C.tensor([1, 2])
    # == and != fall back to identity (NotImplemented from both sides), as torch
    assert (t == None) is False  # noqa: E711
    assert (t != None) is True  # noqa: E711
    assert (t == "a") is False
    assert (t == [1, 2]) is False
    with pytest.raises(TypeError):
        t < "a"
    with pytest.raises(TypeError):
        t >= None
    with pytest.raises(TypeError):
        _C.eq(t, "a")


def test_comparison_result_is_usable_as_condition():
    t = _C.tensor([1, 5, 3])
    same(_C.where(t > 2, t, 0), [0, 5, 3], _C.int64)
    same((t == t).sum(), 3, _C.int64)  # summing a bool tensor counts the Trues


def test_tensor_is_hashable_despite_eq():
    # __eq__ is elementwise, yet tensors hash by identity (torch)
    a = _C.tensor([1])
    b = _C.tensor([1])
    d = {a: "a", b: "b"}
    assert d[a] == "a"
    assert d[b] == "b"
    assert len({a, b}) == 2
