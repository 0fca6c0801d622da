"""Elementwise math: trigonometric/hyperbolic/exponential unary ops, rounding, sign, NaN/inf
tests, nan_to_num, logical and bitwise ops (and their operators), shifts, atan2, fmod, hypot,
clamp/clip, lerp, isclose/allclose/equal — values, result dtypes, broadcasting, out= and errors.
Expected values are torch's, written out literally."""

import pytest

import _C
from tensor_asserts import same  # noqa: E402

# ---------------------------------------------------------------------------------------------
# helpers


nan = float("nan")
inf = float("inf")
F32_MAX = 3.4028234663852886e38
F64_MAX = 1.7976931348623157e308

# ---------------------------------------------------------------------------------------------
# float unary ops: x = [0.5, -0.25, 1.0]

FLOAT_UNARY = {
    "sin": [0.4794255, -0.247404, 0.841471],
    "cos": [0.8775826, 0.9689124, 0.5403023],
    "tan": [0.5463025, -0.2553419, 1.5574077],
    "asin": [0.5235988, -0.2526803, 1.5707963],
    "acos": [1.0471976, 1.8234766, 0.0],
    "atan": [0.4636476, -0.2449787, 0.7853982],
    "sinh": [0.5210953, -0.2526123, 1.1752012],
    "cosh": [1.127626, 1.0314131, 1.5430806],
    "tanh": [0.4621172, -0.2449187, 0.7615942],
    "sigmoid": [0.6224593, 0.4378235, 0.7310586],
    "exp2": [1.4142136, 0.8408964, 2.0],
    "expm1": [0.6487213, -0.2211992, 1.7182818],
    "log1p": [0.4054651, -0.2876821, 0.6931472],
    "reciprocal": [2.0, -4.0, 1.0],
}


@pytest.mark.parametrize("op", sorted(FLOAT_UNARY))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_unary_values(op, dtype):
    dt = getattr(_C, dtype)
    x = _C.tensor([0.5, -0.25, 1.0], dtype=dt)
    same(getattr(_C, op)(x), FLOAT_UNARY[op], dt)
    same(getattr(x, op)(), FLOAT_UNARY[op], dt)


# x = [1, 2, 4] (ints promote to float32)
INT_UNARY = {
    "sin": [0.841471, 0.9092974, -0.7568025],
    "exp2": [2.0, 4.0, 16.0],
    "log2": [0.0, 1.0, 2.0],
    "log10": [0.0, 0.30103, 0.60206],
    "rsqrt": [1.0, 0.7071068, 0.5],
    "reciprocal": [1.0, 0.5, 0.25],
    "sigmoid": [0.7310586, 0.8807971, 0.9820138],
    "tanh": [0.7615942, 0.9640276, 0.9993293],
}


@pytest.mark.parametrize("op", sorted(INT_UNARY))
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_float_unary_ints_give_float32(op, dtype):
    x = _C.tensor([1, 2, 4], dtype=getattr(_C, dtype))
    same(getattr(_C, op)(x), INT_UNARY[op], _C.float32)


def test_float_unary_bool_and_special_values():
    same(_C.exp2(_C.tensor([True, False])), [2.0, 1.0], _C.float32)
    same(_C.log2(_C.tensor([0.0, -1.0, inf])), [-inf, nan, inf], _C.float32)
    same(_C.log10(_C.tensor([0.0, 100.0])), [-inf, 2.0], _C.float32)
    same(_C.log1p(_C.tensor([-1.0, -2.0])), [-inf, nan], _C.float32)
    same(_C.rsqrt(_C.tensor([0.0, -1.0, inf])), [inf, nan, 0.0], _C.float32)
    same(_C.reciprocal(_C.tensor([0.0, -0.0])), [inf, -inf], _C.float32)
    same(_C.reciprocal(_C.tensor([0, 2])), [inf, 0.5], _C.float32)
    same(_C.asin(_C.tensor([2.0])), [nan], _C.float32)
    same(_C.sigmoid(_C.tensor([-inf, inf, 0.0])), [0.0, 1.0, 0.5], _C.float32)
    same(_C.tanh(_C.tensor([inf, -inf], dtype=_C.float64)), [1.0, -1.0], _C.float64)
    same(_C.expm1(_C.tensor([1e-10], dtype=_C.float64)), [1e-10], _C.float64)
    same(_C.cosh(_C.tensor([100.0])), [inf], _C.float32)  # overflows float32


def test_float_unary_non_contiguous_and_shapes():
    m = _C.tensor([[1.0, 4.0], [16.0, 64.0]])
    same(_C.log2(m.transpose(0, 1)), [[0.0, 4.0], [2.0, 6.0]], _C.float32)
    same(_C.sin(_C.zeros([0, 3])), [], _C.float32)
    assert _C.sin(_C.zeros([0, 3])).size() == (0, 3)
    same(_C.exp2(_C.tensor(3.0)), 8.0, _C.float32)


def test_float_unary_out():
    x = _C.tensor([1.0, 2.0, 4.0])
    o = _C.zeros(3, dtype=_C.float64)
    r = _C.log2(x, out=o)
    assert r is o
    same(o, [0.0, 1.0, 2.0], _C.float64)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        _C.sin(x, out=_C.zeros(3, dtype=_C.int64))


# ---------------------------------------------------------------------------------------------
# dtype-keeping unary ops


def test_relu():
    same(_C.relu(_C.tensor([-1.5, 0.0, 2.0, nan])), [0.0, 0.0, 2.0, nan], _C.float32)
    same(_C.tensor([-3, 4], dtype=_C.int8).relu(), [0, 4], _C.int8)
    same(_C.relu(_C.tensor([-3, 4])), [0, 4], _C.int64)
    same(_C.relu(_C.tensor([0, 200], dtype=_C.uint8)), [0, 200], _C.uint8)
    with pytest.raises(RuntimeError, match="Boolean inputs not supported for relu"):
        _C.relu(_C.tensor([True]))


def test_square():
    same(_C.square(_C.tensor([-3, 4], dtype=_C.int32)), [9, 16], _C.int32)
    same(_C.square(_C.tensor([20], dtype=_C.int8)), [-112], _C.int8)  # wraps
    same(_C.square(_C.tensor([True, False])), [1, 0], _C.int64)
    same(_C.tensor([1.5, -2.0]).square(), [2.25, 4.0], _C.float32)
    same(_C.square(_C.tensor([nan, -inf])), [nan, inf], _C.float32)
    o = _C.zeros(2)
    assert _C.square(_C.tensor([2, 3]), out=o) is o
    same(o, [4.0, 9.0], _C.float32)


@pytest.mark.parametrize(
    "op, expected",
    [
        ("floor", [-3.0, -1.0, 0.0, 1.0, 2.0, -0.0]),
        ("ceil", [-2.0, -0.0, 1.0, 2.0, 3.0, -0.0]),
        ("trunc", [-2.0, -0.0, 0.0, 1.0, 2.0, -0.0]),
        ("round", [-2.0, -0.0, 0.0, 2.0, 3.0, -0.0]),
        ("frac", [-0.5, -0.5, 0.5, 0.5, 0.7, -0.0]),
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rounding_floats(op, expected, dtype):
    dt = getattr(_C, dtype)
    x = _C.tensor([-2.5, -0.5, 0.5, 1.5, 2.7, -0.0], dtype=dt)
    same(getattr(_C, op)(x), expected, dt)
    same(getattr(x, op)(), expected, dt)


@pytest.mark.parametrize("op", ["floor", "ceil", "trunc", "round"])
def test_rounding_special_values(op):
    same(getattr(_C, op)(_C.tensor([nan, inf, -inf])), [nan, inf, -inf], _C.float32)


def test_round_half_to_even():
    same(_C.round(_C.tensor([0.5, 1.5, 2.5, -1.5, -2.5, 3.5])), [0.0, 2.0, 2.0, -2.0, -2.0, 4.0], _C.float32)


@pytest.mark.parametrize("op", ["floor", "ceil", "trunc", "round"])
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_rounding_ints_unchanged(op, dtype):
    dt = getattr(_C, dtype)
    x = _C.tensor([1, 7, 100], dtype=dt)
    r = getattr(_C, op)(x)
    same(r, [1, 7, 100], dt)
    r[0] = 5  # a copy, not a view
    same(x, [1, 7, 100], dt)


def test_rounding_errors():
    with pytest.raises(NotImplementedError, match="\"frac_cpu\" not implemented for 'Long'"):
        _C.frac(_C.tensor([1, 2]))
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        _C.floor(_C.tensor([True]))
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        _C.frac(_C.tensor([True]))


def test_round_decimals():
    x = _C.tensor([1.2345, -0.125, 2.675], dtype=_C.float64)
    same(_C.round(x, decimals=2), [1.23, -0.12, 2.68], _C.float64)  # 2.675 * 100 rounds up to 267.5
    same(x.round(decimals=0), [1.0, -0.0, 3.0], _C.float64)
    same(_C.round(_C.tensor([1250.0, 1351.0, -49.0]), decimals=-2), [1200.0, 1400.0, -0.0], _C.float32)
    same(_C.round(_C.tensor([0.05, 0.15, 0.25]), decimals=1), [0.0, 0.2, 0.2], _C.float32)
    o = _C.zeros(3, dtype=_C.float64)
    assert _C.round(x, decimals=1, out=o) is o
    same(o, [1.2, -0.1, 2.7], _C.float64)
    with pytest.raises(TypeError):
        _C.round(x, 2)  # decimals is keyword-only


def test_sign():
    same(_C.sign(_C.tensor([-2.5, 0.0, -0.0, 3.0, nan, -inf])), [-1.0, 0.0, 0.0, 1.0, 0.0, -1.0], _C.float32)
    same(_C.tensor([-7, 0, 9], dtype=_C.int16).sign(), [-1, 0, 1], _C.int16)
    same(_C.sign(_C.tensor([0, 200], dtype=_C.uint8)), [0, 1], _C.uint8)
    same(_C.sign(_C.tensor([True, False])), [True, False], _C.bool)
    o = _C.zeros(2, dtype=_C.float64)
    _C.sign(_C.tensor([-3, 3]), out=o)
    same(o, [-1.0, 1.0], _C.float64)


def test_nan_inf_predicates():
    x = _C.tensor([1.0, nan, inf, -inf, -0.0])
    same(_C.isnan(x), [False, True, False, False, False], _C.bool)
    same(x.isinf(), [False, False, True, True, False], _C.bool)
    same(_C.isfinite(x), [True, False, False, False, True], _C.bool)
    y = _C.tensor([[nan], [2.0]], dtype=_C.float64)
    same(y.isnan(), [[True], [False]], _C.bool)
    for dt in [_C.bool, _C.uint8, _C.int32, _C.int64]:
        i = _C.tensor([0, 1], dtype=dt)
        same(_C.isnan(i), [False, False], _C.bool)
        same(_C.isinf(i), [False, False], _C.bool)
        same(_C.isfinite(i), [True, True], _C.bool)


def test_nan_to_num():
    x = _C.tensor([nan, inf, -inf, 1.5])
    same(_C.nan_to_num(x), [0.0, F32_MAX, -F32_MAX, 1.5], _C.float32)
    same(x.nan_to_num(nan=2.0, posinf=10, neginf=-10.0), [2.0, 10.0, -10.0, 1.5], _C.float32)
    same(_C.nan_to_num(x, posinf=1.0), [0.0, 1.0, -F32_MAX, 1.5], _C.float32)
    d = _C.tensor([nan, inf, -inf], dtype=_C.float64)
    same(_C.nan_to_num(d), [0.0, F64_MAX, -F64_MAX], _C.float64)
    same(_C.nan_to_num(d, 7), [7.0, F64_MAX, -F64_MAX], _C.float64)
    same(_C.nan_to_num(_C.tensor([1, 2])), [1, 2], _C.int64)
    same(_C.nan_to_num(_C.tensor([True])), [True], _C.bool)
    o = _C.zeros(4)
    assert _C.nan_to_num(x, out=o) is o
    same(o, [0.0, F32_MAX, -F32_MAX, 1.5], _C.float32)


# ---------------------------------------------------------------------------------------------
# logical ops


@pytest.mark.parametrize(
    "op, expected",
    [
        ("logical_and", [False, False, False, True]),
        ("logical_or", [False, True, True, True]),
        ("logical_xor", [False, True, True, False]),
    ],
)
def test_logical_binary(op, expected):
    a = _C.tensor([0, 0, 3, -1])
    b = _C.tensor([0.0, 2.5, 0.0, nan])
    same(getattr(_C, op)(a, b), expected, _C.bool)
    same(getattr(a, op)(b), expected, _C.bool)
    ab = _C.tensor([False, False, True, True])
    bb = _C.tensor([False, True, False, True])
    same(getattr(_C, op)(ab, bb), expected, _C.bool)


def test_logical_broadcast_out_and_not():
    r = _C.logical_and(_C.tensor([[1], [0]]), _C.tensor([1, 0, 2], dtype=_C.uint8))
    same(r, [[True, False, True], [False, False, False]], _C.bool)
    o = _C.zeros(2)
    assert _C.logical_or(_C.tensor([0, 1]), _C.tensor([0, 0]), out=o) is o
    same(o, [0.0, 1.0], _C.float32)
    same(_C.logical_not(_C.tensor([0.0, nan, -2.0])), [True, False, False], _C.bool)
    same(_C.tensor([True, False]).logical_not(), [False, True], _C.bool)
    same(_C.logical_not(_C.tensor([0, 5], dtype=_C.int8)), [True, False], _C.bool)
    with pytest.raises(TypeError):
        _C.logical_and(_C.tensor([1]), 1)  # torch takes no number here
    with pytest.raises(RuntimeError):
        _C.logical_xor(_C.zeros(2), _C.zeros(3))


# ---------------------------------------------------------------------------------------------
# bitwise ops and shifts


def test_bitwise_values():
    a = _C.tensor([12, -1, 5], dtype=_C.int32)
    b = _C.tensor([10, 3, 1], dtype=_C.int32)
    same(_C.bitwise_and(a, b), [8, 3, 1], _C.int32)
    same(_C.bitwise_or(a, b), [14, -1, 5], _C.int32)
    same(_C.bitwise_xor(a, b), [6, -4, 4], _C.int32)
    same(a.bitwise_and(b), [8, 3, 1], _C.int32)
    same(_C.bitwise_not(a), [-13, 0, -6], _C.int32)
    same(_C.bitwise_not(_C.tensor([0, 255], dtype=_C.uint8)), [255, 0], _C.uint8)
    t_, f_ = True, False
    x = _C.tensor([t_, t_, f_, f_])
    y = _C.tensor([t_, f_, t_, f_])
    same(_C.bitwise_and(x, y), [t_, f_, f_, f_], _C.bool)
    same(_C.bitwise_or(x, y), [t_, t_, t_, f_], _C.bool)
    same(_C.bitwise_xor(x, y), [f_, t_, t_, f_], _C.bool)
    same(x.bitwise_not(), [f_, f_, t_, t_], _C.bool)


def test_bitwise_promotion_scalars_broadcast():
    a = _C.tensor([6, 3], dtype=_C.uint8)
    same(_C.bitwise_and(a, 2), [2, 2], _C.uint8)
    same(_C.bitwise_or(1, a), [7, 3], _C.uint8)
    same(_C.bitwise_xor(a, _C.tensor([1], dtype=_C.int16)), [7, 2], _C.int16)
    same(_C.bitwise_and(_C.tensor([True, False]), 3), [1, 0], _C.int64)
    same(_C.bitwise_or(_C.tensor([[1], [2]]), _C.tensor([4, 8])), [[5, 9], [6, 10]], _C.int64)
    o = _C.zeros(2, dtype=_C.int64)
    assert _C.bitwise_and(a, 7, out=o) is o
    same(o, [6, 3], _C.int64)


def test_bitwise_errors():
    f = _C.tensor([1.0])
    with pytest.raises(NotImplementedError, match="\"bitwise_and_cpu\" not implemented for 'Float'"):
        _C.bitwise_and(f, f)
    with pytest.raises(NotImplementedError, match="\"bitwise_or_cpu\" not implemented for 'Double'"):
        _C.bitwise_or(_C.tensor([1], dtype=_C.float64), 1)
    with pytest.raises(NotImplementedError, match="\"bitwise_xor_cpu\" not implemented for 'Float'"):
        _C.bitwise_xor(_C.tensor([1]), 1.5)
    with pytest.raises(NotImplementedError, match="\"bitwise_not_cpu\" not implemented for 'Float'"):
        _C.bitwise_not(f)


def test_shifts():
    a = _C.tensor([1, -8, 3])
    same(_C.bitwise_left_shift(a, _C.tensor([3, 1, 0])), [8, -16, 3], _C.int64)
    same(_C.bitwise_right_shift(a, 1), [0, -4, 1], _C.int64)
    same(a.bitwise_left_shift(2), [4, -32, 12], _C.int64)
    # shifts past the width: left gives 0, right fills with the sign
    same(_C.bitwise_left_shift(a, 64), [0, 0, 0], _C.int64)
    same(_C.bitwise_left_shift(a, -1), [0, 0, 0], _C.int64)
    same(_C.bitwise_right_shift(a, 64), [0, -1, 0], _C.int64)
    u = _C.tensor([255, 16], dtype=_C.uint8)
    same(_C.bitwise_left_shift(u, 1), [254, 32], _C.uint8)
    same(_C.bitwise_right_shift(u, 4), [15, 1], _C.uint8)
    same(_C.bitwise_right_shift(u, 8), [0, 0], _C.uint8)
    same(_C.bitwise_left_shift(_C.tensor([1], dtype=_C.int8), 7), [-128], _C.int8)
    with pytest.raises(NotImplementedError, match="\"lshift_cpu\" not implemented for 'Float'"):
        _C.bitwise_left_shift(_C.tensor([1.0]), 1)
    with pytest.raises(NotImplementedError, match="\"rshift_cpu\" not implemented for 'Bool'"):
        _C.bitwise_right_shift(_C.tensor([True]), _C.tensor([True]))


def test_bitwise_operators():
    a = _C.tensor([12, 5])
    b = _C.tensor([10, 1])
    same(a & b, [8, 1], _C.int64)
    same(a | b, [14, 5], _C.int64)
    same(a ^ b, [6, 4], _C.int64)
    same(a << 1, [24, 10], _C.int64)
    same(a >> 2, [3, 1], _C.int64)
    same(~a, [-13, -6], _C.int64)
    same(3 & a, [0, 1], _C.int64)
    same(1 | a, [13, 5], _C.int64)
    same(1 << _C.tensor([0, 3]), [1, 8], _C.int64)
    m = _C.tensor([True, False])
    same(~m, [False, True], _C.bool)
    same(m & _C.tensor([True, True]), [True, False], _C.bool)
    same(m | False, [True, False], _C.bool)
    same(m ^ True, [False, True], _C.bool)
    with pytest.raises(NotImplementedError, match="not implemented for 'Float'"):
        ~_C.tensor([1.0])
    with pytest.raises(NotImplementedError, match="\"bitwise_and_cpu\" not implemented for 'Float'"):
        _C.tensor([1.0]) & 1
    with pytest.raises(TypeError):
        a & "x"


# ---------------------------------------------------------------------------------------------
# atan2, fmod, hypot


def test_atan2():
    y = _C.tensor([1.0, -1.0, 0.0, 1.0])
    x = _C.tensor([2.0, -1.0, -1.0, 0.0])
    same(_C.atan2(y, x), [0.4636476, -2.3561945, 3.1415927, 1.5707964], _C.float32)
    same(y.atan2(x), [0.4636476, -2.3561945, 3.1415927, 1.5707964], _C.float32)
    same(_C.atan2(_C.tensor([1, 1]), _C.tensor([1, -1])), [0.7853982, 2.3561945], _C.float32)
    r = _C.atan2(_C.tensor([[1.0], [-1.0]], dtype=_C.float64), _C.tensor([1.0, 0.0]))
    same(r, [[0.7853981633974483, 1.5707963267948966], [-0.7853981633974483, -1.5707963267948966]], _C.float64)
    same(_C.atan2(_C.tensor([nan]), _C.tensor([1.0])), [nan], _C.float32)
    o = _C.zeros(1, dtype=_C.float64)
    assert _C.atan2(_C.tensor([1.0]), _C.tensor([1.0]), out=o) is o
    same(o, [0.7853982], _C.float64)
    with pytest.raises(TypeError):
        _C.atan2(_C.tensor([1.0]), 2)


def test_fmod():
    a = _C.tensor([-7, 7, -6])
    same(_C.fmod(a, 3), [-1, 1, 0], _C.int64)
    same(_C.fmod(a, -3), [-1, 1, 0], _C.int64)
    same(a.fmod(_C.tensor([2, -4, 5])), [-1, 3, -1], _C.int64)
    same(_C.fmod(a, 2.5), [-2.0, 2.0, -1.0], _C.float32)
    f = _C.tensor([-7.5, 7.5, 1.0, inf, 2.0])
    same(_C.fmod(f, 2), [-1.5, 1.5, 1.0, nan, 0.0], _C.float32)
    same(_C.fmod(f, 0.0), [nan, nan, nan, nan, nan], _C.float32)
    same(_C.fmod(f, inf), [-7.5, 7.5, 1.0, nan, 2.0], _C.float32)
    same(_C.fmod(_C.tensor([5], dtype=_C.int8), _C.tensor([3], dtype=_C.int32)), [2], _C.int32)
    same(_C.fmod(_C.tensor([[5], [-5]]), _C.tensor([3, 4])), [[2, 1], [-2, -1]], _C.int64)
    o = _C.zeros(3)
    assert _C.fmod(a, 4, out=o) is o
    same(o, [-3.0, 3.0, -2.0], _C.float32)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        _C.fmod(a, 0)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        _C.fmod(a, _C.tensor([1, 0, 1]))
    same(_C.fmod(_C.zeros([0], dtype=_C.int64), _C.tensor([0])), [], _C.int64)  # no work, no check
    with pytest.raises(NotImplementedError, match="\"fmod_cpu\" not implemented for 'Bool'"):
        _C.fmod(_C.tensor([True]), _C.tensor([True]))


def test_hypot():
    same(_C.hypot(_C.tensor([3.0, 5.0]), _C.tensor([4.0, 12.0])), [5.0, 13.0], _C.float32)
    same(_C.tensor([3.0], dtype=_C.float64).hypot(_C.tensor([4.0], dtype=_C.float64)), [5.0], _C.float64)
    same(_C.hypot(_C.tensor([3.0]), _C.tensor([4.0], dtype=_C.float64)), [5.0], _C.float64)
    same(_C.hypot(_C.tensor([[3.0], [0.0]]), _C.tensor([4.0, 1.0])), [[5.0, 3.1622777], [4.0, 1.0]], _C.float32)
    same(_C.hypot(_C.tensor([inf, nan]), _C.tensor([nan, inf])), [inf, inf], _C.float32)
    same(_C.hypot(_C.tensor([3e30]), _C.tensor([4e30])), [5e30], _C.float32)  # no overflow
    o = _C.zeros(1)
    assert _C.hypot(_C.tensor([3.0]), _C.tensor([4.0]), out=o) is o
    with pytest.raises(NotImplementedError, match="\"hypot_cpu\" not implemented for 'Long'"):
        _C.hypot(_C.tensor([3]), _C.tensor([4]))


# ---------------------------------------------------------------------------------------------
# clamp / clip


@pytest.mark.parametrize("name", ["clamp", "clip"])
def test_clamp_scalar(name):
    fn = getattr(_C, name)
    x = _C.tensor([-2.0, 0.5, 3.0, nan])
    same(fn(x, -1, 1), [-1.0, 0.5, 1.0, nan], _C.float32)
    same(fn(x, min=0), [0.0, 0.5, 3.0, nan], _C.float32)
    same(fn(x, max=0.25), [-2.0, 0.25, 0.25, nan], _C.float32)
    same(getattr(x, name)(0, 1), [0.0, 0.5, 1.0, nan], _C.float32)
    same(fn(x, 2, 1), [1.0, 1.0, 1.0, nan], _C.float32)  # min > max: max wins
    i = _C.tensor([-5, 0, 5], dtype=_C.int32)
    same(fn(i, -1, 2), [-1, 0, 2], _C.int32)
    same(fn(i, min=0.5), [0.5, 0.5, 5.0], _C.float32)  # a float bound promotes
    same(fn(_C.tensor([True, False]), 0, 1), [1, 0], _C.int64)
    with pytest.raises(RuntimeError, match="torch.clamp: At least one of 'min' or 'max' must not be None"):
        fn(x)
    with pytest.raises(RuntimeError, match="torch.clamp: At least one of 'min' or 'max' must not be None"):
        fn(x, None, None)


@pytest.mark.parametrize("name", ["clamp", "clip"])
def test_clamp_tensor(name):
    fn = getattr(_C, name)
    x = _C.tensor([[-2.0, 0.5, 3.0]])
    lo = _C.tensor([[0.0], [1.0]])
    hi = _C.tensor([1.0, 2.0, 2.5])
    same(fn(x, lo, hi), [[0.0, 0.5, 2.5], [1.0, 1.0, 2.5]], _C.float32)
    same(fn(x, min=lo), [[0.0, 0.5, 3.0], [1.0, 1.0, 3.0]], _C.float32)
    same(fn(x, max=hi), [[-2.0, 0.5, 2.5]], _C.float32)
    same(getattr(x, name)(_C.tensor(0.0), _C.tensor(1.0)), [[0.0, 0.5, 1.0]], _C.float32)
    same(fn(_C.tensor([1.0, 5.0]), _C.tensor([nan, 0.0]), _C.tensor([2.0, nan])), [nan, nan], _C.float32)
    i = _C.tensor([-5, 0, 5], dtype=_C.int32)
    same(fn(i, _C.tensor([0], dtype=_C.int64), _C.tensor([3], dtype=_C.int64)), [0, 0, 3], _C.int64)
    same(fn(i, min=_C.tensor([1.5, 1.5, 1.5])), [1.5, 1.5, 5.0], _C.float32)
    same(fn(_C.tensor([True, False]), min=_C.tensor([False, True])), [True, True], _C.bool)
    with pytest.raises(NotImplementedError, match="\"clamp_cpu\" not implemented for 'Bool'"):
        fn(_C.tensor([True]), _C.tensor([False]), _C.tensor([True]))
    with pytest.raises(RuntimeError):
        fn(x, _C.zeros(2), _C.zeros(2))


def test_clamp_out_and_mixed_bounds():
    x = _C.tensor([-2.0, 0.5, 3.0])
    o = _C.zeros(3, dtype=_C.float64)
    assert _C.clamp(x, 0, 1, out=o) is o
    same(o, [0.0, 0.5, 1.0], _C.float64)
    o2 = _C.zeros(3)
    assert _C.clip(x, _C.tensor([0.0]), _C.tensor([2.0]), out=o2) is o2
    same(o2, [0.0, 0.5, 2.0], _C.float32)
    with pytest.raises(TypeError):
        _C.clamp(x, 0, _C.tensor([1.0]))  # one number and one non-0-dim tensor: no overload


# ---------------------------------------------------------------------------------------------
# lerp


def test_lerp():
    a = _C.tensor([0.0, 10.0, -4.0])
    b = _C.tensor([10.0, 20.0, 4.0])
    same(_C.lerp(a, b, 0.25), [2.5, 12.5, -2.0], _C.float32)
    same(a.lerp(b, 0.75), [7.5, 17.5, 2.0], _C.float32)
    same(_C.lerp(a, b, 1), [10.0, 20.0, 4.0], _C.float32)
    same(_C.lerp(a, b, 2.0), [20.0, 30.0, 12.0], _C.float32)
    same(_C.lerp(a, b, _C.tensor([0.0, 0.5, 1.0])), [0.0, 15.0, 4.0], _C.float32)
    same(_C.lerp(a, b, _C.tensor(0.5)), [5.0, 15.0, 0.0], _C.float32)
    r = _C.lerp(_C.tensor([[0.0], [1.0]], dtype=_C.float64), _C.tensor([2.0, 4.0], dtype=_C.float64), 0.5)
    same(r, [[1.0, 2.0], [1.5, 2.5]], _C.float64)
    r = _C.lerp(_C.tensor([0.0]), _C.tensor([10.0]), _C.tensor([[0.1], [0.9]]))
    same(r, [[1.0], [9.0]], _C.float32)
    same(_C.lerp(_C.tensor([0.0]), _C.tensor([inf]), 0.25), [inf], _C.float32)
    same(_C.lerp(_C.tensor([0.0]), _C.tensor([inf]), 0.5), [nan], _C.float32)  # inf - inf * 0.5
    o = _C.zeros(3, dtype=_C.float64)
    assert _C.lerp(a, b, 0.5, out=o) is o
    same(o, [5.0, 15.0, 0.0], _C.float64)


def test_lerp_errors():
    a = _C.tensor([0.0])
    with pytest.raises(RuntimeError, match="expected dtype float for `end` but got dtype double"):
        _C.lerp(a, _C.tensor([1.0], dtype=_C.float64), 0.5)
    with pytest.raises(RuntimeError, match="expected dtype float for `weight` but got dtype double"):
        _C.lerp(a, a, _C.tensor([0.5], dtype=_C.float64))
    with pytest.raises(NotImplementedError, match="\"lerp_kernel_scalar\" not implemented for 'Long'"):
        _C.lerp(_C.tensor([1]), _C.tensor([2]), 0.5)
    with pytest.raises(NotImplementedError, match="\"lerp_kernel_tensor\" not implemented for 'Long'"):
        _C.lerp(_C.tensor([1]), _C.tensor([2]), _C.tensor([1]))
    with pytest.raises(TypeError):
        _C.lerp(a, 1.0, 0.5)


# ---------------------------------------------------------------------------------------------
# isclose / allclose / equal


def test_isclose():
    a = _C.tensor([1.0, nan, inf, 1.0, -inf, 1e-9, 1e-7])
    b = _C.tensor([1.000001, nan, inf, 1.1, inf, 0.0, 0.0])
    same(_C.isclose(a, b), [True, False, True, False, False, True, False], _C.bool)
    same(a.isclose(b, equal_nan=True), [True, True, True, False, False, True, False], _C.bool)
    same(_C.isclose(a, b, rtol=0.2), [True, False, True, True, False, True, False], _C.bool)
    same(_C.isclose(a, b, 0.0, 0.0), [False, False, True, False, False, False, False], _C.bool)
    same(_C.isclose(a, b, atol=1e-6), [True, False, True, False, False, True, True], _C.bool)
    i = _C.tensor([100, 101, 200])
    same(_C.isclose(i, _C.tensor([100, 100, 100])), [True, False, False], _C.bool)
    same(_C.isclose(i, _C.tensor([100, 100, 100]), rtol=0.01), [True, True, False], _C.bool)
    same(_C.isclose(_C.tensor([True, False]), _C.tensor([True, True])), [True, False], _C.bool)
    same(_C.isclose(_C.tensor([[1.0], [2.0]]), _C.tensor([1.0, 2.0])), [[True, False], [False, True]], _C.bool)


def test_isclose_errors():
    with pytest.raises(RuntimeError, match="Float did not match Double"):
        _C.isclose(_C.tensor([1.0]), _C.tensor([1.0], dtype=_C.float64))
    with pytest.raises(RuntimeError, match="Long did not match Float"):
        _C.allclose(_C.tensor([1]), _C.tensor([1.0]))
    with pytest.raises(RuntimeError, match="rtol must be greater than or equal to zero"):
        _C.isclose(_C.tensor([1.0]), _C.tensor([1.0]), rtol=-1.0)
    with pytest.raises(RuntimeError, match="atol must be greater than or equal to zero"):
        _C.isclose(_C.tensor([1.0]), _C.tensor([1.0]), atol=-1.0)


def test_allclose():
    a = _C.tensor([1.0, 2.0, nan])
    assert _C.allclose(a, a) is False
    assert _C.allclose(a, a, equal_nan=True) is True
    assert a.allclose(_C.tensor([1.000001, 2.0, nan]), equal_nan=True) is True
    assert _C.allclose(_C.tensor([1.0, 2.0]), _C.tensor([1.0, 2.1])) is False
    assert _C.allclose(_C.tensor([1.0, 2.0]), _C.tensor([1.0, 2.1]), atol=0.2) is True
    assert _C.allclose(_C.tensor([[1.0], [1.0]]), _C.tensor([1.0])) is True  # broadcasts
    assert _C.allclose(_C.tensor([1, 2]), _C.tensor([1, 2])) is True


def test_equal():
    a = _C.tensor([1, 2, 3])
    assert _C.equal(a, _C.tensor([1, 2, 3])) is True
    assert a.equal(_C.tensor([1, 2, 4])) is False
    assert _C.equal(a, _C.tensor([[1, 2, 3]])) is False  # shapes must match, no broadcasting
    assert _C.equal(a, _C.tensor([1.0, 2.0, 3.0])) is True  # compared after promotion
    assert _C.equal(_C.tensor([nan]), _C.tensor([nan])) is False
    assert _C.equal(_C.zeros([0, 2]), _C.zeros([0, 2])) is True
    m = _C.tensor([[1, 2], [3, 4]])
    assert _C.equal(m.transpose(0, 1), _C.tensor([[1, 3], [2, 4]])) is True
