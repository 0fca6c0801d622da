"""More factories: linspace, logspace, eye — values (torch's, written out), dtypes, out= and
errors (torch's behaviour)."""

import pytest

import _C
from tensor_asserts import same  # noqa: E402  (takes exact=True here)

# ---------------------------------------------------------------------------------------------
# helpers


# ---------------------------------------------------------------------------------------------
# linspace


@pytest.mark.parametrize(
    "start,end,steps,expected",
    [
        (0, 1, 5, [0.0, 0.25, 0.5, 0.75, 1.0]),
        (1, 0, 5, [1.0, 0.75, 0.5, 0.25, 0.0]),
        (-1, 1, 3, [-1.0, 0.0, 1.0]),
        (2.5, 2.5, 3, [2.5, 2.5, 2.5]),
        (3, 10, 1, [3.0]),
        (3, 10, 0, []),
    ],
)
def test_linspace_default_float32(start, end, steps, expected):
    same(_C.linspace(start, end, steps), expected, _C.float32)
    same(_C.linspace(start, end, steps=steps), expected, _C.float32)
    same(_C.linspace(start, end, steps, dtype=_C.float64), expected, _C.float64)


def test_linspace_float32_bits_match_torch():
    # torch's kernel: start + step*i for the first half, end - step*(steps-i-1) for the rest,
    # in float32.
    same(
        _C.linspace(0, 1, 7),
        [0.0, 0.1666666716337204, 0.3333333432674408, 0.5, 0.6666666269302368, 0.8333333134651184, 1.0],
        _C.float32,
        exact=True,
    )
    same(_C.linspace(-1, 1, 4), [-1.0, -0.3333333134651184, 0.3333333134651184, 1.0], _C.float32, exact=True)


@pytest.mark.parametrize(
    "dtype,start,end,steps,expected",
    [
        (_C.int64, 0, 10, 4, [0, 3, 6, 10]),
        (_C.int64, 0, 10, 5, [0, 2, 5, 7, 10]),
        (_C.int32, 10, 0, 4, [10, 6, 3, 0]),
        (_C.int8, -5, 5, 3, [-5, 0, 5]),
        (_C.uint8, 0, 255, 2, [0, 255]),
        (_C.int64, 0.0, 1.0, 3, [0, 0, 1]),
    ],
)
def test_linspace_integer_dtypes(dtype, start, end, steps, expected):
    same(_C.linspace(start, end, steps, dtype=dtype), expected, dtype)


def test_linspace_out_and_errors():
    out = _C.zeros(3)
    assert _C.linspace(0, 2, 3, out=out) is out
    same(out, [0.0, 1.0, 2.0], _C.float32)
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        _C.linspace(0, 1, -1)
    with pytest.raises(TypeError):
        _C.linspace(0, 1)
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
        _C.linspace(0, 300, 3, dtype=_C.uint8)


# ---------------------------------------------------------------------------------------------
# logspace


@pytest.mark.parametrize(
    "args,kwargs,expected,dtype",
    [
        ((0, 2, 3), {}, [1.0, 10.0, 100.0], _C.float32),
        ((0, 3, 4), {"base": 2}, [1.0, 2.0, 4.0, 8.0], _C.float32),
        ((0, 3, 4, 2.0), {}, [1.0, 2.0, 4.0, 8.0], _C.float32),
        ((0, 1, 3), {"dtype": _C.float64}, [1.0, 3.1622776601683795, 10.0], _C.float64),
        ((2, 0, 3), {}, [100.0, 10.0, 1.0], _C.float32),
        ((-1, 1, 3), {"base": 10.0}, [0.1, 1.0, 10.0], _C.float32),
        ((1, 5, 1), {}, [10.0], _C.float32),
        ((0, 1, 0), {}, [], _C.float32),
        ((0, 3, 4), {"base": 2, "dtype": _C.int64}, [1, 2, 4, 8], _C.int64),
        ((0, 1, 3), {"dtype": _C.int32}, [1, 3, 10], _C.int32),
    ],
)
def test_logspace(args, kwargs, expected, dtype):
    same(_C.logspace(*args, **kwargs), expected, dtype)


def test_logspace_out_and_errors():
    out = _C.zeros(2, dtype=_C.float64)
    assert _C.logspace(0, 1, 2, out=out) is out
    same(out, [1.0, 10.0], _C.float64)
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        _C.logspace(0, 1, -2)


# ---------------------------------------------------------------------------------------------
# eye


@pytest.mark.parametrize(
    "args,expected",
    [
        ((2,), [[1.0, 0.0], [0.0, 1.0]]),
        ((1,), [[1.0]]),
        ((0,), []),
        ((2, 3), [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),
        ((3, 2), [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]),
        ((2, 0), [[], []]),
    ],
)
def test_eye(args, expected):
    same(_C.eye(*args), expected, _C.float32)
    as_int = [[int(v) for v in r] for r in expected]
    same(_C.eye(*args, dtype=_C.int64), as_int, _C.int64)
    same(_C.eye(*args, dtype=_C.bool), [[bool(v) for v in r] for r in expected], _C.bool)


def test_eye_shapes_out_and_errors():
    assert _C.eye(0).shape == (0, 0)
    assert _C.eye(0, 3).shape == (0, 3)
    assert _C.eye(3, m=1).shape == (3, 1)
    out = _C.zeros(2, 2, dtype=_C.float64)
    assert _C.eye(2, out=out) is out
    same(out, [[1.0, 0.0], [0.0, 1.0]], _C.float64)
    out = _C.zeros(2, 3, dtype=_C.int32)
    assert _C.eye(2, 3, dtype=_C.int32, out=out) is out
    same(out, [[1, 0, 0], [0, 1, 0]], _C.int32)
    with pytest.raises(RuntimeError, match="n must be greater or equal to 0, got -1"):
        _C.eye(-1)
    with pytest.raises(RuntimeError, match="m must be greater or equal to 0, got -2"):
        _C.eye(2, -2)
    with pytest.raises(TypeError):
        _C.eye(2.5)
