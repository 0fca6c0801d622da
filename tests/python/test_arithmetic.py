"""Elementwise arithmetic: add/sub/mul/div/remainder/floor_divide/pow/neg/abs/exp/log/sqrt/
maximum/minimum/where — values, result dtypes (torch's type promotion, Python numbers as weak
operands), broadcasting, out= and errors. Expected values are torch's, written out literally."""

import math

import pytest

import _C
from tensor_asserts import same  # noqa: E402

# ---------------------------------------------------------------------------------------------
# helpers


nan = float("nan")
inf = float("inf")

# ---------------------------------------------------------------------------------------------
# values per op and dtype

BINARY = {
    "add": _C.add,
    "sub": _C.sub,
    "mul": _C.mul,
    "div": _C.div,
    "remainder": _C.remainder,
    "floor_divide": _C.floor_divide,
    "pow": _C.pow,
}

# a = [6, -7, 3], b = [4, 2, 3]
INT_RESULTS = {
    "add": [10, -5, 6],
    "sub": [2, -9, 0],
    "mul": [24, -14, 9],
    "div": [1.5, -3.5, 1.0],
    "remainder": [2, 1, 0],
    "floor_divide": [1, -4, 1],
    "pow": [1296, 49, 27],
}


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_int_dtypes(op):
    for dtype in [_C.int8, _C.int16, _C.int32, _C.int64]:
        if op == "pow" and dtype is _C.int8:
            continue  # 6 ** 4 = 1296 overflows int8
        a = _C.tensor([6, -7, 3], dtype=dtype)
        b = _C.tensor([4, 2, 3], dtype=dtype)
        r = BINARY[op](a, b)
        if op == "div":
            same(r, INT_RESULTS[op], _C.float32)  # true division of integers gives float32
        else:
            same(r, INT_RESULTS[op], dtype)


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_float_dtypes(op):
    expected = {
        "add": [10.0, -5.0, 4.5],
        "sub": [2.0, -9.0, 0.5],
        "mul": [24.0, -14.0, 5.0],
        "div": [1.5, -3.5, 1.25],
        "remainder": [2.0, 1.0, 0.5],
        "floor_divide": [1.0, -4.0, 1.0],
        "pow": [1296.0, 49.0, 6.25],
    }[op]
    for dtype in [_C.float32, _C.float64]:
        a = _C.tensor([6.0, -7.0, 2.5], dtype=dtype)
        b = _C.tensor([4.0, 2.0, 2.0], dtype=dtype)
        same(BINARY[op](a, b), expected, dtype)


def test_uint8_arithmetic_wraps():
    a = _C.tensor([250, 3], dtype=_C.uint8)
    b = _C.tensor([10, 5], dtype=_C.uint8)
    same(a + b, [4, 8], _C.uint8)
    same(a - b, [240, 254], _C.uint8)
    same(a * b, [196, 15], _C.uint8)


def test_bool_arithmetic():
    t = _C.tensor([True, False, True])
    f = _C.tensor([True, True, False])
    same(t + f, [True, True, True], _C.bool)  # bool + bool stays bool (logical or)
    same(t * f, [True, False, False], _C.bool)
    same(t + 1, [2, 1, 2], _C.int64)
    same(t * 2.5, [2.5, 0.0, 2.5], _C.float32)
    same(t / f, [1.0, 0.0, inf], _C.float32)


def test_bool_subtraction_is_error():
    # torch 2.15: NotImplementedError: Subtraction, the `-` operator, with two bool tensors is not
    # supported. Use the `^` or `logical_xor()` operator instead.
    with pytest.raises(NotImplementedError, match="Subtraction, the `-` operator, with two bool tensors"):
        _C.tensor([True]) - _C.tensor([False])
    with pytest.raises(NotImplementedError, match="bool"):
        _C.sub(_C.tensor([True]), True)
    # torch 2.15: NotImplementedError: Subtraction, the `-` operator, with a bool tensor is not
    # supported. ...
    with pytest.raises(NotImplementedError, match="with a bool tensor is not supported"):
        _C.tensor([True]) - 1


# ---------------------------------------------------------------------------------------------
# type promotion


PROMOTE_TENSORS = [
    (_C.int32, _C.int64, _C.int64),
    (_C.int8, _C.uint8, _C.int16),
    (_C.uint8, _C.int32, _C.int32),
    (_C.bool, _C.uint8, _C.uint8),
    (_C.int64, _C.float32, _C.float32),
    (_C.int32, _C.float64, _C.float64),
    (_C.float32, _C.float64, _C.float64),
    (_C.bool, _C.float32, _C.float32),
    (_C.int16, _C.int8, _C.int16),
]


def test_promotion_between_tensors():
    for a, b, dtype in PROMOTE_TENSORS:
        x = _C.ones(2, dtype=a)
        y = _C.ones(2, dtype=b)
        assert _C.add(x, y).dtype is dtype, (a, b)
        assert _C.add(y, x).dtype is dtype, (b, a)
        assert (x * y).dtype is dtype, (a, b)


PROMOTE_SCALARS = [
    (_C.int32, 2, _C.int32),  # int scalar does not widen an int tensor
    (_C.int32, 2.5, _C.float32),  # float scalar: default float dtype
    (_C.int64, 2.5, _C.float32),
    (_C.float64, 2.5, _C.float64),  # float scalar does not narrow float64
    (_C.float32, 2, _C.float32),
    (_C.uint8, 3, _C.uint8),
    (_C.int8, 3, _C.int8),
    (_C.bool, 2, _C.int64),  # bool tensor + int scalar: int64
    (_C.bool, True, _C.bool),
    (_C.bool, 1.5, _C.float32),
    (_C.int16, True, _C.int16),
]


def test_promotion_with_python_scalars_is_weak():
    for tdtype, scalar, dtype in PROMOTE_SCALARS:
        t = _C.ones(3, dtype=tdtype)
        case = (tdtype, scalar)
        assert (t + scalar).dtype is dtype, case
        assert (scalar + t).dtype is dtype, case
        assert _C.add(t, scalar).dtype is dtype, case
        assert _C.mul(scalar, t).dtype is dtype, case


def test_promotion_zero_dim_tensor_is_weaker_than_dimensioned():
    # a 0-dim tensor of the same category does not widen a dimensioned tensor
    same(_C.tensor([1, 2], dtype=_C.int32) + _C.tensor(5), [6, 7], _C.int32)
    same(_C.tensor([1.0], dtype=_C.float32) + _C.tensor(1.0, dtype=_C.float64), [2.0], _C.float32)
    # ... but a higher category wins, with the 0-dim tensor's own dtype
    same(_C.tensor([1], dtype=_C.int32) + _C.tensor(1.5, dtype=_C.float64), [2.5], _C.float64)
    # two 0-dim tensors promote normally
    r = _C.tensor(1, dtype=_C.int32) + _C.tensor(2, dtype=_C.int64)
    assert r.dtype is _C.int64
    assert r.shape == ()
    # a 0-dim tensor with a Python scalar
    assert (_C.tensor(1, dtype=_C.int32) + 2.5).dtype is _C.float32
    assert (_C.tensor(1, dtype=_C.int16) + 2).dtype is _C.int16


def test_scalar_operand_values():
    t = _C.tensor([1, 2, 3], dtype=_C.int32)
    same(t + 2.5, [3.5, 4.5, 5.5], _C.float32)
    same(t * 2, [2, 4, 6], _C.int32)
    same(_C.tensor([1, 2], dtype=_C.uint8) + 255, [0, 1], _C.uint8)
    same(_C.tensor([1.5], dtype=_C.float64) + 0.1, [1.6], _C.float64)
    # the float scalar keeps double precision until the op runs in float64
    assert (_C.tensor([0.0], dtype=_C.float64) + 0.1).tolist() == [0.1]


def test_python_float_scalar_into_int_tensor_div():
    same(_C.tensor([3, 4]) / 2, [1.5, 2.0], _C.float32)
    same(_C.tensor([3, 4], dtype=_C.float64) / 2, [1.5, 2.0], _C.float64)


# ---------------------------------------------------------------------------------------------
# alpha


def test_add_sub_alpha():
    a = _C.tensor([1, 2, 3])
    b = _C.tensor([10, 20, 30])
    same(_C.add(a, b, alpha=2), [21, 42, 63], _C.int64)
    same(_C.sub(a, b, alpha=2), [-19, -38, -57], _C.int64)
    same(a.add(b, alpha=-1), [-9, -18, -27], _C.int64)
    same(_C.add(_C.tensor([1.0]), _C.tensor([2.0]), alpha=0.5), [2.0], _C.float32)
    same(_C.add(a, 1, alpha=3), [4, 5, 6], _C.int64)
    same(_C.add(a, b, alpha=_C.tensor(2)), [21, 42, 63], _C.int64)


def test_alpha_float_with_int_tensors_is_error():
    # torch: RuntimeError: For integral input tensors, argument alpha must not be a floating point number.
    with pytest.raises(RuntimeError, match="alpha must not be a floating point number"):
        _C.add(_C.tensor([1]), _C.tensor([2]), alpha=2.5)


# ---------------------------------------------------------------------------------------------
# division


def test_div_rounding_modes():
    a = _C.tensor([7, -7, 7, -7])
    b = _C.tensor([2, 2, -2, -2])
    same(_C.div(a, b), [3.5, -3.5, -3.5, 3.5], _C.float32)
    same(_C.div(a, b, rounding_mode=None), [3.5, -3.5, -3.5, 3.5], _C.float32)
    same(_C.div(a, b, rounding_mode="trunc"), [3, -3, -3, 3], _C.int64)
    same(_C.div(a, b, rounding_mode="floor"), [3, -4, -4, 3], _C.int64)
    f = _C.tensor([7.5, -7.5])
    same(f.div(2, rounding_mode="trunc"), [3.0, -3.0], _C.float32)
    same(f.div(2, rounding_mode="floor"), [3.0, -4.0], _C.float32)


def test_div_invalid_rounding_mode():
    # torch: RuntimeError: div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'foo'
    with pytest.raises((RuntimeError, ValueError), match="rounding_mode"):
        _C.div(_C.tensor([1.0]), 2, rounding_mode="foo")


def test_float_division_by_zero():
    same(_C.tensor([1.0, -1.0, 0.0]) / 0, [inf, -inf, nan], _C.float32)
    same(_C.tensor([1, -1, 0]) / 0, [inf, -inf, nan], _C.float32)
    same(_C.tensor([1.0, -1.0]) // 0.0, [inf, -inf], _C.float32)


def test_integer_division_by_zero_is_error():
    # torch: RuntimeError: ZeroDivisionError
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        _C.tensor([1, 2]) // 0
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        _C.remainder(_C.tensor([1, 2]), _C.tensor([1, 0]))
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        _C.div(_C.tensor([1]), 0, rounding_mode="trunc")


def test_remainder_sign_follows_divisor():
    same(_C.remainder(_C.tensor([5, -5, 5, -5]), _C.tensor([3, 3, -3, -3])), [2, 1, -1, -2], _C.int64)
    same(_C.tensor([5.5, -5.5]) % 2, [1.5, 0.5], _C.float32)
    same(_C.tensor([5.5, -5.5]) % -2, [-0.5, -1.5], _C.float32)


def test_floor_divide_values():
    same(_C.floor_divide(_C.tensor([5, -5]), 2), [2, -3], _C.int64)
    same(_C.tensor([5.0, -5.0]) // 2, [2.0, -3.0], _C.float32)
    same(_C.floor_divide(_C.tensor([7], dtype=_C.int32), 2.0), [3.0], _C.float32)


# ---------------------------------------------------------------------------------------------
# pow


def test_pow_values_and_dtypes():
    same(_C.pow(_C.tensor([2, 3]), 2), [4, 9], _C.int64)
    same(_C.tensor([2, 3]) ** 2.0, [4.0, 9.0], _C.float32)
    same(_C.tensor([4.0, 9.0]) ** 0.5, [2.0, 3.0], _C.float32)
    same(_C.tensor([0, 5]) ** 0, [1, 1], _C.int64)
    same(_C.pow(_C.tensor([2, 3]), _C.tensor([3.0, 1.0])), [8.0, 3.0], _C.float32)
    same(_C.pow(2, _C.tensor([1, 2, 3])), [2, 4, 8], _C.int64)
    same(2.0 ** _C.tensor([1, 2]), [2.0, 4.0], _C.float32)
    same(_C.tensor([2.0]) ** -1, [0.5], _C.float32)
    same(_C.tensor([-8.0]) ** 0.5, [nan], _C.float32)
    same(_C.tensor([1, 2], dtype=_C.int32).pow(3), [1, 8], _C.int32)


def test_pow_int_negative_scalar_exponent_is_error():
    # torch: RuntimeError: Integers to negative integer powers are not allowed.
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        _C.tensor([2, 3]) ** -1


# ---------------------------------------------------------------------------------------------
# unary


@pytest.mark.parametrize("dtype", [_C.int8, _C.int32, _C.int64, _C.float32, _C.float64])
def test_neg_abs_keep_dtype(dtype):
    t = _C.tensor([-2, 0, 3], dtype=dtype)
    if dtype.is_floating_point:
        same(_C.neg(t), [2.0, 0.0, -3.0], dtype)
        same(_C.abs(t), [2.0, 0.0, 3.0], dtype)
    else:
        same(_C.neg(t), [2, 0, -3], dtype)
        same(t.abs(), [2, 0, 3], dtype)
        same(-t, [2, 0, -3], dtype)


def test_neg_bool_is_error():
    # torch: RuntimeError: Negation, the `-` operator, on a bool tensor is not supported. ...
    with pytest.raises(NotImplementedError, match="Negation, the `-` operator, on a bool tensor is not supported"):
        _C.neg(_C.tensor([True]))
    with pytest.raises(RuntimeError, match="bool tensor"):
        -_C.tensor([True, False])


FLOAT_UNARY = [
    ("exp", [0, 1], _C.int64, [1.0, math.e], _C.float32),
    ("exp", [0.0, 1.0], _C.float64, [1.0, math.e], _C.float64),
    ("exp", [False, True], _C.bool, [1.0, math.e], _C.float32),
    ("exp", [-inf, 0.0], _C.float32, [0.0, 1.0], _C.float32),
    ("log", [1, 4], _C.int32, [0.0, math.log(4)], _C.float32),
    ("log", [1.0, math.e], _C.float64, [0.0, 1.0], _C.float64),
    ("log", [0.0, -1.0], _C.float32, [-inf, nan], _C.float32),
    ("sqrt", [4, 9], _C.uint8, [2.0, 3.0], _C.float32),
    ("sqrt", [2.0, 16.0], _C.float64, [math.sqrt(2), 4.0], _C.float64),
    ("sqrt", [-1.0, 0.0], _C.float32, [nan, 0.0], _C.float32),
    ("sqrt", [True, False], _C.bool, [1.0, 0.0], _C.float32),
]


@pytest.mark.parametrize("op", ["exp", "log", "sqrt"])
def test_float_unary(op):
    for name, data, dtype, expected, rdtype in FLOAT_UNARY:
        if name != op:
            continue
        t = _C.tensor(data, dtype=dtype)
        same(getattr(_C, op)(t), expected, rdtype)
        same(getattr(t, op)(), expected, rdtype)


def test_unary_on_non_contiguous_and_scalar():
    t = _C.tensor([[1.0, 4.0], [9.0, 16.0]]).transpose(0, 1)
    same(_C.sqrt(t), [[1.0, 3.0], [2.0, 4.0]], _C.float32)
    r = _C.abs(_C.tensor(-3))
    assert r.shape == ()
    assert r.item() == 3


@pytest.mark.parametrize("op", ["neg", "abs", "exp", "log", "sqrt"])
def test_unary_out(op):
    t = _C.tensor([1.0, 4.0])
    out = _C.zeros(2)
    r = getattr(_C, op)(t, out=out)
    assert r is out
    expected = {"neg": [-1.0, -4.0], "abs": [1.0, 4.0], "exp": [math.e, math.exp(4)],
                "log": [0.0, math.log(4)], "sqrt": [1.0, 2.0]}[op]
    same(out, expected, _C.float32)


# ---------------------------------------------------------------------------------------------
# maximum / minimum


def test_maximum_minimum_values():
    a = _C.tensor([1, 5, 3])
    b = _C.tensor([4, 2, 3])
    same(_C.maximum(a, b), [4, 5, 3], _C.int64)
    same(_C.minimum(a, b), [1, 2, 3], _C.int64)
    same(a.maximum(b), [4, 5, 3], _C.int64)
    same(b.minimum(a), [1, 2, 3], _C.int64)


def test_maximum_promotes_and_broadcasts():
    same(_C.maximum(_C.tensor([1, 5]), _C.tensor([3.0, 2.0])), [3.0, 5.0], _C.float32)
    same(_C.minimum(_C.tensor([[1], [5]]), _C.tensor([2, 3, 4])), [[1, 1, 1], [2, 3, 4]], _C.int64)
    same(_C.maximum(_C.tensor([True, False]), _C.tensor([False, False])), [True, False], _C.bool)


def test_maximum_nan_propagates():
    a = _C.tensor([nan, 1.0, 2.0])
    b = _C.tensor([0.0, nan, 1.0])
    same(_C.maximum(a, b), [nan, nan, 2.0], _C.float32)
    same(_C.minimum(a, b), [nan, nan, 1.0], _C.float32)


def test_maximum_rejects_python_number():
    # torch.maximum has no Scalar overload: TypeError
    with pytest.raises(TypeError, match="must be Tensor, not int"):
        _C.maximum(_C.tensor([1]), 2)


def test_maximum_out():
    out = _C.zeros(2, dtype=_C.int64)
    assert _C.maximum(_C.tensor([1, 5]), _C.tensor([3, 2]), out=out) is out
    same(out, [3, 5], _C.int64)


# ---------------------------------------------------------------------------------------------
# where


def test_where_values_and_broadcasting():
    cond = _C.tensor([[True], [False]])
    x = _C.tensor([1, 2, 3])
    y = _C.tensor([10, 20, 30])
    same(_C.where(cond, x, y), [[1, 2, 3], [10, 20, 30]], _C.int64)
    same(x.where(cond, y), [[1, 2, 3], [10, 20, 30]], _C.int64)


def test_where_with_scalars_and_promotion():
    cond = _C.tensor([True, False, True])
    same(_C.where(cond, 1.0, 0.0), [1.0, 0.0, 1.0], _C.float32)
    same(_C.where(cond, 1, 0), [1, 0, 1], _C.int64)
    same(_C.where(cond, _C.tensor([1, 2, 3], dtype=_C.int32), 0), [1, 0, 3], _C.int32)
    same(_C.where(cond, _C.tensor([1, 2, 3], dtype=_C.int32), 2.5), [1.0, 2.5, 3.0], _C.float32)
    same(_C.where(cond, _C.tensor([1.0, 2.0, 3.0]), _C.tensor([7], dtype=_C.int64)), [1.0, 7.0, 3.0], _C.float32)


def test_where_condition_must_be_bool():
    # torch: RuntimeError: where expected condition to be a boolean tensor, but got a tensor with dtype Float
    with pytest.raises(RuntimeError, match="boolean"):
        _C.where(_C.tensor([1.0, 0.0]), _C.tensor([1, 2]), _C.tensor([3, 4]))


def test_where_shape_mismatch():
    with pytest.raises(RuntimeError, match="must match"):
        _C.where(_C.tensor([True, False]), _C.tensor([1, 2, 3]), 0)


# ---------------------------------------------------------------------------------------------
# broadcasting


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_broadcasting(op):
    a = _C.tensor([[1.0], [2.0]])  # (2, 1)
    b = _C.tensor([1.0, 2.0, 4.0])  # (3,)
    r = BINARY[op](a, b)
    assert r.shape == (2, 3)
    py = {
        "add": lambda x, y: x + y,
        "sub": lambda x, y: x - y,
        "mul": lambda x, y: x * y,
        "div": lambda x, y: x / y,
        "remainder": lambda x, y: x % y,
        "floor_divide": lambda x, y: x // y,
        "pow": lambda x, y: x**y,
    }[op]
    same(r, [[py(x, y) for y in (1.0, 2.0, 4.0)] for x in (1.0, 2.0)], _C.float32)


def test_broadcasting_shapes():
    assert (_C.ones(2, 1, 3) + _C.ones(4, 1)).shape == (2, 4, 3)
    assert (_C.ones(()) + _C.ones(5)).shape == (5,)
    assert (_C.ones(0, 3) + _C.ones(3)).shape == (0, 3)
    assert (_C.ones(1) * _C.ones(0)).shape == (0,)
    r = _C.ones(3) + _C.ones(())
    assert r.shape == (3,)


def test_broadcasting_non_contiguous_operands():
    a = _C.arange(6).reshape(2, 3).transpose(0, 1)  # (3, 2), non-contiguous
    b = _C.tensor([100, 200])
    same(a + b, [[100, 203], [101, 204], [102, 205]], _C.int64)
    same(a[::2] * 2, [[0, 6], [4, 10]], _C.int64)


def test_broadcasting_mismatch():
    # torch: RuntimeError: The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(2\) at non-singleton dimension 0"):
        _C.add(_C.ones(3), _C.ones(2))
    with pytest.raises(RuntimeError, match=r"non-singleton dimension 1"):
        _C.ones(2, 3) * _C.ones(2, 2)


# ---------------------------------------------------------------------------------------------
# out=


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_out_returns_out(op):
    a = _C.tensor([6.0, 8.0])
    b = _C.tensor([4.0, 2.0])
    out = _C.zeros(2)
    r = BINARY[op](a, b, out=out)
    assert r is out
    same(out, BINARY[op](a, b).tolist(), _C.float32)


def test_out_aliases_input():
    a = _C.tensor([1.0, 2.0])
    r = _C.add(a, a, out=a)
    assert r is a
    same(a, [2.0, 4.0], _C.float32)


def test_out_with_internal_overlap_is_error():
    # torch: RuntimeError: unsupported operation: more than one element of the written-to tensor
    # refers to a single memory location. Please clone() the tensor before performing the operation.
    base = _C.tensor([1, 2])
    e = base.expand(2, 2)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers to a single memory location"):
        _C.add(e, 1, out=e)
    assert base.tolist() == [1, 2]


def test_out_with_wider_dtype_casts():
    out = _C.zeros(2, dtype=_C.float64)
    _C.add(_C.tensor([1, 2]), 1, out=out)
    same(out, [2.0, 3.0], _C.float64)
    out = _C.zeros(2, dtype=_C.int64)
    _C.add(_C.tensor([1, 2], dtype=_C.int8), 1, out=out)
    same(out, [2, 3], _C.int64)


def test_out_dtype_cannot_cast():
    # torch: RuntimeError: result type Float can't be cast to the desired output type Long
    out = _C.zeros(2, dtype=_C.int64)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        _C.div(_C.tensor([1, 2]), 2, out=out)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Bool"):
        _C.add(_C.tensor([1]), 1, out=_C.zeros(1, dtype=_C.bool))
    assert out.tolist() == [0, 0]


def test_out_resized_with_warning():
    out = _C.zeros(5)
    with pytest.warns(UserWarning, match="was resized"):
        r = _C.add(_C.tensor([1.0, 2.0]), 1, out=out)
    assert r is out
    assert out.shape == (2,)
    same(out, [2.0, 3.0], _C.float32)


def test_out_empty_resized_without_warning():
    import warnings

    out = _C.zeros(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _C.mul(_C.tensor([[1.0], [2.0]]), 3, out=out)
    same(out, [[3.0], [6.0]], _C.float32)


def test_out_must_be_tensor():
    with pytest.raises(TypeError, match="out"):
        _C.add(_C.ones(1), 1, out=[0.0])
    with pytest.raises(TypeError, match="out"):
        _C.add(_C.ones(1), 1, out=5)


def test_out_none_is_ignored():
    same(_C.add(_C.tensor([1]), 1, out=None), [2], _C.int64)


# ---------------------------------------------------------------------------------------------
# methods mirror functions; inputs untouched


@pytest.mark.parametrize("op", sorted(BINARY))
def test_method_variant_and_inputs_untouched(op):
    a = _C.tensor([6, 7])
    b = _C.tensor([4, 2])
    r1 = BINARY[op](a, b)
    r2 = getattr(a, op)(b)
    assert r1.tolist() == r2.tolist()
    assert r1.dtype is r2.dtype
    assert a.tolist() == [6, 7]
    assert b.tolist() == [4, 2]


def test_number_first_argument_to_function():
    same(_C.sub(10, _C.tensor([1, 2])), [9, 8], _C.int64)
    same(_C.div(1, _C.tensor([2, 4])), [0.5, 0.25], _C.float32)
    same(_C.mul(2.5, _C.tensor([2], dtype=_C.int32)), [5.0], _C.float32)


def test_two_numbers_give_zero_dim_tensor():
    # both operands are wrapped numbers: a 0-dim result with the numbers' default dtype
    r = _C.add(2, 3)
    assert isinstance(r, _C.Tensor)
    assert r.shape == ()
    same(r, 5, _C.int64)
    same(_C.mul(2, 1.5), 3.0, _C.float32)


def test_large_values_exact_in_int64():
    big = 2**53 + 1
    same(_C.tensor([big]) + 2, [big + 2], _C.int64)
    same(_C.tensor([big]) * 1, [big], _C.int64)


# ---------------------------------------------------------------------------------------------
# Python numbers and 0-dim operands are read as values (no converted 0-dim tensor): the
# promotion rules and conversions must be those of the general path.


@pytest.mark.parametrize(
    "t, number, expected, dtype",
    [
        # weak float against float32 stays float32; the number is rounded to float32 first
        (_C.tensor([1.0, 2.0]), 0.1, [1.1, 2.1], _C.float32),
        # weak float against int64 gives the default float dtype
        (_C.tensor([1, 2]), 2.5, [3.5, 4.5], _C.float32),
        # weak int against int32 stays int32; out-of-range ints wrap into it (2**40 → 0)
        (_C.tensor([1, 2], dtype=_C.int32), 2**40 + 3, [4, 5], _C.int32),
        # weak int against uint8: 300 wraps to 44
        (_C.tensor([1], dtype=_C.uint8), 300, [45], _C.uint8),
        # bool tensor + int → int64; bool + bool → logical or
        (_C.tensor([True, False]), 2, [3, 2], _C.int64),
        (_C.tensor([True, False]), False, [True, False], _C.bool),
        # float64 keeps float64 and the number's full precision
        (_C.tensor([1.0], dtype=_C.float64), 1e-12, [1.0 + 1e-12], _C.float64),
    ],
)
def test_add_python_number_promotion_and_conversion(t, number, expected, dtype):
    same(_C.add(t, number), expected, dtype, exact=dtype != _C.float32)
    same(t + number, expected, dtype, exact=dtype != _C.float32)
    same(number + t, expected, dtype, exact=dtype != _C.float32)


def test_python_number_is_rounded_to_float32_before_adding():
    # torch converts the scalar to the compute dtype: 16777216 + 1.0 in float32 stays 16777216,
    # and 0.1 (a double) becomes float32(0.1) before the sum.
    same(_C.add(_C.tensor([16777216.0]), 1.0), [16777216.0], _C.float32, exact=True)
    r = _C.add(_C.zeros(1), 0.1)
    assert r.item() == _C.tensor([0.1]).item()


def test_scalar_operands_of_other_ops():
    a = _C.tensor([7, -7], dtype=_C.int16)
    same(_C.sub(a, 2), [5, -9], _C.int16)
    same(_C.sub(10, a), [3, 17], _C.int16)
    same(_C.mul(a, 2.5), [17.5, -17.5], _C.float32)
    same(_C.div(a, 2), [3.5, -3.5], _C.float32)
    same(_C.div(a, 2, rounding_mode="floor"), [3, -4], _C.int16)
    same(_C.div(a, 2, rounding_mode="trunc"), [3, -3], _C.int16)
    same(_C.remainder(a, 3), [1, 2], _C.int16)
    same(_C.remainder(-7, _C.tensor([3, -3])), [2, -1], _C.int64)
    same(_C.floor_divide(a, -2), [-4, 3], _C.int16)
    same(_C.add(a, 3, alpha=2), [13, -1], _C.int16)
    same(_C.sub(a, 3, alpha=2), [1, -13], _C.int16)
    same(_C.maximum(a, _C.tensor(0, dtype=_C.int64)), [7, 0], _C.int16)
    same(_C.minimum(_C.tensor(0.5), a), [0.5, -7.0], _C.float32)
    # integer division by a zero scalar is still caught
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        _C.div(a, 0, rounding_mode="floor")
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        _C.remainder(a, 0)
    # alpha rules are unchanged
    with pytest.raises(RuntimeError, match="argument alpha must not be a floating point number"):
        _C.add(a, 1, alpha=1.5)
    with pytest.raises(RuntimeError, match="Boolean alpha only supported for Boolean results"):
        _C.add(a, 1, alpha=True)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8_t without overflow"):
        _C.add(_C.tensor([1], dtype=_C.int8), 1, alpha=300)


def test_zero_dim_tensor_operands_are_values():
    # a 0-dim float64 tensor against int32 promotes to float64 (category rule) and keeps its
    # precision; one on the left too
    z = _C.tensor(0.5, dtype=_C.float64)
    same(_C.add(_C.tensor([1, 2], dtype=_C.int32), z), [1.5, 2.5], _C.float64, exact=True)
    same(_C.sub(z, _C.tensor([1, 2], dtype=_C.int32)), [-0.5, -1.5], _C.float64, exact=True)
    # a 0-dim int64 tensor does not widen int32, and wraps into it
    same(_C.add(_C.tensor([1], dtype=_C.int32), _C.tensor(2**32 + 1)), [2], _C.int32)
    # two 0-dim operands give a 0-dim result
    r = _C.mul(_C.tensor(3, dtype=_C.int8), 2.5)
    assert r.shape == () and r.dtype == _C.float32 and r.item() == 7.5
    # strided (transposed) tensor with a number, and broadcasting with a 1-element tensor
    m = _C.arange(6).reshape(2, 3).transpose(0, 1)
    same(_C.mul(m, 10), [[0, 30], [10, 40], [20, 50]], _C.int64)
    same(_C.add(m, _C.tensor([1.5])), [[1.5, 4.5], [2.5, 5.5], [3.5, 6.5]], _C.float32)


def test_in_place_with_a_number_and_an_aliasing_zero_dim_view():
    t = _C.tensor([1.0, 2.0, 3.0])
    t.add_(1)
    same(t, [2.0, 3.0, 4.0], _C.float32)
    t.mul_(0.5)
    same(t, [1.0, 1.5, 2.0], _C.float32)
    # a 0-dim view of one element of the destination partially overlaps it: torch's
    # TensorIterator refuses it for out= as for the in-place form (clone() it first)
    t = _C.tensor([1.0, 2.0, 3.0])
    for call in (lambda: _C.mul(t, t[2], out=t), lambda: t.mul_(t[2])):
        with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor refer to a single memory location"):
            call()
        same(t, [1.0, 2.0, 3.0], _C.float32)
    assert _C.mul(t, t[2].clone(), out=t) is t
    same(t, [3.0, 6.0, 9.0], _C.float32)
    i = _C.tensor([1, 2], dtype=_C.int64)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        i.add_(0.5)
    same(i, [1, 2], _C.int64)


# ---------------------------------------------------------------------------------------------
# out= written directly into `out` (no intermediate result) and its aliasing cases

STRUCTURED = {
    "add": _C.add,
    "sub": _C.sub,
    "mul": _C.mul,
    "div": _C.div,
    "remainder": _C.remainder,
    "floor_divide": _C.floor_divide,
    "maximum": _C.maximum,
    "minimum": _C.minimum,
}


@pytest.mark.parametrize("op", sorted(STRUCTURED))
def test_out_written_in_place_equals_new_result(op):
    f = STRUCTURED[op]
    a = _C.tensor([[6.0, -8.0, 7.5], [1.0, 2.0, -3.0]])
    b = _C.tensor([4.0, 2.0, -1.5])
    out = _C.zeros(2, 3)
    before = id(out)
    assert f(a, b, out=out) is out
    assert id(out) == before
    same(out, f(a, b).tolist(), _C.float32, exact=True)
    # into a non-contiguous view: the other elements of its base stay untouched
    base = _C.full((2, 6), 99.0)
    view = base[:, ::2]
    assert f(a, b, out=view) is view
    same(view, f(a, b).tolist(), _C.float32, exact=True)
    same(base[:, 1::2], [[99.0] * 3] * 2, _C.float32)


def test_out_is_returned_without_a_new_reference():
    import sys

    a, b, out = _C.ones(3), _C.ones(3), _C.zeros(3)
    n = sys.getrefcount(out)
    for _ in range(10):
        _C.add(a, b, out=out)
    assert sys.getrefcount(out) == n


def test_out_is_first_or_second_input():
    a = _C.tensor([10.0, 20.0])
    b = _C.tensor([1.0, 2.0])
    assert _C.sub(a, b, out=a) is a
    same(a, [9.0, 18.0], _C.float32)
    assert _C.sub(a, b, out=b) is b
    same(b, [8.0, 16.0], _C.float32)
    assert _C.div(b, b, out=b) is b
    same(b, [1.0, 1.0], _C.float32)
    # out is the input as a Python number's partner on the left
    assert _C.sub(1.0, b, out=b) is b
    same(b, [0.0, 0.0], _C.float32)


def test_out_partially_overlapping_an_input_is_torchs_error():
    # torch's TensorIterator checks: a dense input covering some of out's bytes (a shifted view),
    # or the same bytes in another order (a transpose), is refused; out untouched.
    msg = "some elements of the input tensor and the written-to tensor refer to a single memory location"
    x = _C.arange(6, dtype=_C.float32)
    with pytest.raises(RuntimeError, match=msg):
        _C.mul(x[:5], 10.0, out=x[1:])
    with pytest.raises(RuntimeError, match=msg):
        _C.add(x[1:], x[:5], out=x[:5])
    same(x, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0], _C.float32)
    m = _C.tensor([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(RuntimeError, match=msg):
        _C.add(m, m.transpose(0, 1), out=m)
    same(m, [[1.0, 2.0], [3.0, 4.0]], _C.float32)
    # exactly the same elements (out is an input), or another tensor broadcast: allowed
    assert _C.add(m, m, out=m) is m
    same(m, [[2.0, 4.0], [6.0, 8.0]], _C.float32)
    row = _C.tensor([[1.0, 2.0]])
    m = _C.zeros(2, 2)
    _C.add(row, m, out=m)
    same(m, [[1.0, 2.0], [1.0, 2.0]], _C.float32)
    # a non-dense input overlapping out (torch does not check these): computed first
    y = _C.arange(8, dtype=_C.float32)
    _C.add(y[::2], 0.0, out=y[:4])
    same(y, [0.0, 2.0, 4.0, 6.0, 4.0, 5.0, 6.0, 7.0], _C.float32)


def test_out_of_another_dtype_casts_and_errors():
    out = _C.zeros(2, dtype=_C.float64)
    assert _C.mul(_C.tensor([1.5, 2.5]), 3, out=out) is out
    same(out, [4.5, 7.5], _C.float64, exact=True)
    # out of another dtype that is also an input
    a = _C.tensor([1, 2], dtype=_C.int32)
    assert _C.add(a, _C.tensor([1, 1], dtype=_C.int64), out=a) is a
    same(a, [2, 3], _C.int32)
    out = _C.zeros(2, dtype=_C.int64)
    for f in (_C.add, _C.sub, _C.mul):
        with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
            f(_C.ones(2), 2, out=out)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        _C.div(_C.tensor([1, 2]), _C.tensor([1, 2]), out=out)
    with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired output type Bool"):
        _C.mul(_C.tensor([1]), 1, out=_C.zeros(1, dtype=_C.bool))
    assert out.tolist() == [0, 0]
    # the kernel's errors leave out untouched; TensorIterator's cast check (torch's meta step)
    # comes before the kernel's division-by-zero check
    out = _C.full((2,), 5, dtype=_C.int64)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        _C.div(_C.tensor([1, 2]), 0, rounding_mode="floor", out=out)
    with pytest.raises(RuntimeError, match="^result type Long can't be cast to the desired output type Bool$"):
        _C.remainder(_C.tensor([1, 2]), 0, out=_C.zeros(2, dtype=_C.bool))
    same(out, [5, 5], _C.int64)


def test_out_input_resized_to_the_broadcast_shape():
    # out is an input whose shape is not the result's: torch resizes it (with the warning);
    # the values are computed from the input before it is replaced
    a = _C.tensor([1.0, 2.0])
    with pytest.warns(UserWarning, match="was resized"):
        r = _C.add(a, _C.ones(2, 2), out=a)
    assert r is a
    same(a, [[2.0, 3.0], [2.0, 3.0]], _C.float32)


def test_out_large_parallel_path():
    n = 300_000
    a = _C.arange(n, dtype=_C.float32)
    b = _C.full((n,), 0.5)
    out = _C.zeros(n)
    assert _C.add(a, b, out=out, alpha=2) is out
    assert _C.eq(out, _C.add(a, b, alpha=2)).all().item()
    assert _C.mul(a, 3.0, out=out) is out
    assert _C.eq(out, _C.mul(a, 3.0)).all().item()
    assert _C.sub(a, b, out=a) is a
    assert _C.eq(a, _C.sub(_C.arange(n, dtype=_C.float32), b)).all().item()
