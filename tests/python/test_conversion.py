"""Conversions: Tensor.to(dtype), float/double/long/int/bool, item(), tolist() — values, casting
rules (torch's: float -> int truncates toward zero, nonzero -> True), identity when nothing
changes, and errors."""

import pytest

import _C
from tensor_asserts import same  # noqa: E402

# ---------------------------------------------------------------------------------------------
# helpers


ALL_DTYPES = [_C.bool, _C.uint8, _C.int8, _C.int16, _C.int32, _C.int64, _C.float32, _C.float64]

# ---------------------------------------------------------------------------------------------
# to()


def _values_for(dtype):
    if dtype is _C.bool:
        return [False, True, True]
    if dtype.is_floating_point:
        return [0.0, 1.0, 2.0]
    return [0, 1, 2]


@pytest.mark.parametrize("src", ALL_DTYPES, ids=repr)
def test_to_every_pair(src):
    t = _C.tensor([0, 1, 2], dtype=src)
    for dst in ALL_DTYPES:
        r = t.to(dst)
        expected = _values_for(dst)
        if src is _C.bool:
            # [False, True, True] -> 0, 1, 1
            expected = [False, True, True] if dst is _C.bool else [0.0, 1.0, 1.0] if dst.is_floating_point else [0, 1, 1]
        same(r, expected, dst)
        assert t.dtype is src  # the input is unchanged


def test_to_keyword_and_python_types():
    t = _C.tensor([1, 2])
    same(t.to(dtype=_C.float64), [1.0, 2.0], _C.float64)
    same(t.to(float), [1.0, 2.0], _C.float64)
    same(_C.tensor([1.5]).to(int), [1], _C.int64)
    same(t.to(bool), [True, True], _C.bool)


def test_to_float_to_int_truncates_toward_zero():
    t = _C.tensor([1.7, -1.7, 0.5, -0.5, 2.0])
    same(t.to(_C.int64), [1, -1, 0, 0, 2], _C.int64)
    same(t.to(_C.int32), [1, -1, 0, 0, 2], _C.int32)
    same(t.long(), [1, -1, 0, 0, 2], _C.int64)
    same(t.int(), [1, -1, 0, 0, 2], _C.int32)


def test_to_bool_is_nonzero():
    same(_C.tensor([0.0, -0.0, 0.1, -3.0, float("nan")]).to(_C.bool), [False, False, True, True, True], _C.bool)
    same(_C.tensor([0, -1, 2]).bool(), [False, True, True], _C.bool)


def test_to_integer_wraps():
    same(_C.tensor([255, 256, -1]).to(_C.uint8), [255, 0, 255], _C.uint8)
    same(_C.tensor([127, 128, -129]).to(_C.int8), [127, -128, 127], _C.int8)
    same(_C.tensor([2**31]).to(_C.int32), [-(2**31)], _C.int32)


def test_to_float64_to_float32_rounds():
    t = _C.tensor([0.1], dtype=_C.float64)
    r = t.to(_C.float32)
    assert r.dtype is _C.float32
    assert r.tolist()[0] != 0.1
    assert r.tolist()[0] == pytest.approx(0.1)
    # and back: the float32 value is kept exactly
    assert r.to(_C.float64).tolist() == r.tolist()


def test_to_large_int64_to_float():
    same(_C.tensor([2**24 + 1]).to(_C.float32), [float(2**24)], _C.float32)
    same(_C.tensor([2**53]).to(_C.float64), [float(2**53)], _C.float64)


def test_to_same_dtype_returns_self():
    t = _C.tensor([1.0, 2.0])
    assert t.to(_C.float32) is t  # torch: no copy, the same tensor object
    assert t.float() is t
    i = _C.tensor([1, 2])
    assert i.long() is i
    assert i.to(int) is i


def test_to_copy_true_copies():
    t = _C.tensor([1.0, 2.0])
    c = t.to(_C.float32, copy=True)
    assert c is not t
    c[0] = 100
    assert t.tolist() == [1.0, 2.0]
    c = t.to(_C.float32, False, True)
    assert c is not t
    assert t.to(_C.float32, non_blocking=True) is t


def test_to_different_dtype_copies():
    t = _C.tensor([1, 2])
    f = t.to(_C.float32)
    f[0] = 50
    assert t.tolist() == [1, 2]


def test_to_non_contiguous():
    t = _C.arange(6).reshape(2, 3).transpose(0, 1)
    r = t.to(_C.float64)
    same(r, [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]], _C.float64)
    assert r.is_contiguous()


@pytest.mark.parametrize(
    "method, dtype",
    [("float", _C.float32), ("double", _C.float64), ("long", _C.int64), ("int", _C.int32), ("bool", _C.bool)],
)
def test_conversion_methods(method, dtype):
    t = _C.tensor([[0, 3], [-2, 1]], dtype=_C.int16)
    r = getattr(t, method)()
    if dtype is _C.bool:
        same(r, [[False, True], [True, True]], dtype)
    elif dtype.is_floating_point:
        same(r, [[0.0, 3.0], [-2.0, 1.0]], dtype)
    else:
        same(r, [[0, 3], [-2, 1]], dtype)
    assert r.shape == (2, 2)


def test_to_errors():
    t = _C.tensor([1])
    with pytest.raises(TypeError):
        t.to(_C.float32, copy="yes")
    with pytest.raises(TypeError):
        t.to(dtype=_C.float32, foo=1)
    with pytest.raises(TypeError):
        t.float(1)
    with pytest.raises(TypeError):
        t.bool(dtype=_C.bool)


# ---------------------------------------------------------------------------------------------
# item()


@pytest.mark.parametrize(
    "data, dtype, value, pytype",
    [
        (1.5, _C.float32, 1.5, float),
        (2.25, _C.float64, 2.25, float),
        (7, _C.int64, 7, int),
        (-3, _C.int8, -3, int),
        (200, _C.uint8, 200, int),
        (True, _C.bool, True, bool),
        (False, _C.bool, False, bool),
    ],
)
def test_item(data, dtype, value, pytype):
    t = _C.tensor(data, dtype=dtype)
    v = t.item()
    assert type(v) is pytype
    assert v == value
    v = _C.tensor([[data]], dtype=dtype).item()  # any one-element tensor
    assert type(v) is pytype
    assert v == value


def test_item_float32_value():
    assert _C.tensor(0.1).item() == pytest.approx(0.1)
    assert _C.tensor(0.1, dtype=_C.float64).item() == 0.1
    assert _C.tensor(2**62).item() == 2**62


def test_item_of_view():
    t = _C.arange(6).reshape(2, 3)
    assert t[1, 2].item() == 5
    assert t.transpose(0, 1)[2, 0].item() == 2


def test_item_errors():
    # torch: RuntimeError: a Tensor with 2 elements cannot be converted to Scalar
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        _C.tensor([1, 2]).item()
    with pytest.raises(RuntimeError, match="a Tensor with 0 elements cannot be converted to Scalar"):
        _C.zeros(0).item()
    with pytest.raises(TypeError):
        _C.tensor([1]).item(0)


# ---------------------------------------------------------------------------------------------
# tolist()


def test_tolist_nesting_and_types():
    assert _C.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    r = _C.tensor([[True], [False]]).tolist()
    assert r == [[True], [False]]
    assert type(r[0][0]) is bool
    r = _C.tensor([1.5, -2.0]).tolist()
    assert r == [1.5, -2.0]
    assert all(type(v) is float for v in r)
    r = _C.tensor([1, 2], dtype=_C.uint8).tolist()
    assert all(type(v) is int for v in r)


def test_tolist_scalar_and_empty():
    assert _C.tensor(3).tolist() == 3
    assert type(_C.tensor(3.0).tolist()) is float
    assert _C.tensor(True).tolist() is True
    assert _C.zeros(0).tolist() == []
    assert _C.zeros(2, 0).tolist() == [[], []]
    assert _C.zeros(0, 2).tolist() == []
    assert _C.zeros(1, 1, 1).tolist() == [[[0.0]]]


def test_tolist_non_contiguous_logical_order():
    t = _C.arange(6).reshape(2, 3)
    assert t.transpose(0, 1).tolist() == [[0, 3], [1, 4], [2, 5]]
    assert t[:, ::2].tolist() == [[0, 2], [3, 5]]
    assert _C.tensor([1, 2]).expand(2, 2).tolist() == [[1, 2], [1, 2]]


def test_tolist_returns_fresh_lists():
    t = _C.tensor([1, 2])
    a = t.tolist()
    a.append(3)
    assert t.tolist() == [1, 2]
    assert t.tolist() is not t.tolist()


def test_tolist_special_floats():
    r = _C.tensor([float("inf"), float("-inf"), float("nan")]).tolist()
    assert r[0] == float("inf")
    assert r[1] == float("-inf")
    assert r[2] != r[2]


def test_round_trip_through_tensor():
    data = [[1.5, -2.25], [0.0, 1e10]]
    assert _C.tensor(_C.tensor(data, dtype=_C.float64).tolist(), dtype=_C.float64).tolist() == data
    ints = [[-(2**63), 2**63 - 1]]
    assert _C.tensor(ints).tolist() == ints
