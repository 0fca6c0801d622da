"""More reductions: prod, std, var, norm, logsumexp, all, any, count_nonzero, median, and the
ops along one dim: cumsum, cumprod, argsort, softmax, log_softmax — values (torch's, written
out), result dtypes, dim forms, keepdim, out= and errors (torch's behaviour)."""

import math

import pytest

import _C
from tensor_asserts import same as _same  # noqa: E402


def same(t, expected, dtype):
    """As tensor_asserts.same, with this file's tolerance (rel=1e-5, abs=1e-6)."""
    _same(t, expected, dtype, rel=1e-5, abs=1e-6)


# ---------------------------------------------------------------------------------------------
# helpers


nan = float("nan")
inf = float("inf")

X = [[1, 5, 2], [7, 3, 4]]


def fx(dtype=None):
    return _C.tensor(X, dtype=dtype or _C.float32)


def ix(dtype=None):
    return _C.tensor(X, dtype=dtype or _C.int64)


# ---------------------------------------------------------------------------------------------
# prod


@pytest.mark.parametrize(
    "dtype,out_dtype",
    [
        (_C.bool, _C.int64),
        (_C.uint8, _C.int64),
        (_C.int8, _C.int64),
        (_C.int32, _C.int64),
        (_C.int64, _C.int64),
        (_C.float32, _C.float32),
        (_C.float64, _C.float64),
    ],
)
def test_prod_dtypes(dtype, out_dtype):
    x = _C.tensor(X, dtype=dtype)
    if dtype is _C.bool:
        same(_C.prod(x), 1, out_dtype)
        same(x.prod(0), [1, 1, 1], out_dtype)
        return
    v = 840 if out_dtype is _C.int64 else 840.0
    same(_C.prod(x), v, out_dtype)
    same(x.prod(), v, out_dtype)


@pytest.mark.parametrize(
    "dim,expected,kept",
    [
        (0, [7, 15, 8], [[7, 15, 8]]),
        (1, [10, 84], [[10], [84]]),
        (-1, [10, 84], [[10], [84]]),
        (-2, [7, 15, 8], [[7, 15, 8]]),
    ],
)
def test_prod_dim(dim, expected, kept):
    same(_C.prod(ix(), dim), expected, _C.int64)
    same(_C.prod(ix(), dim, keepdim=True), kept, _C.int64)
    same(ix().prod(dim, True), kept, _C.int64)
    same(_C.prod(fx(), dim), [float(v) for v in expected], _C.float32)


def test_prod_dtype_out_and_errors():
    same(_C.prod(ix(), dtype=_C.float64), 840.0, _C.float64)
    same(_C.prod(fx(), 1, dtype=_C.int32), [10, 84], _C.int32)
    same(_C.prod(_C.tensor([2.5, 2.5]), dtype=_C.int64), 4, _C.int64)  # converted first
    out = _C.zeros(2, dtype=_C.int64)
    r = _C.prod(ix(), 1, out=out)
    assert r is out
    same(out, [10, 84], _C.int64)
    same(_C.prod(_C.zeros(0)), 1.0, _C.float32)
    same(_C.prod(_C.tensor(2**40), 0), 2**40, _C.int64)
    same(_C.prod(_C.tensor([2**40, 2**40])), 0, _C.int64)  # wraps
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        _C.prod(ix(), 2)


# ---------------------------------------------------------------------------------------------
# std and var

STD_ALL = 2.1602468994692865
VAR_ALL = 4.666666666666666


def test_std_var_all():
    same(_C.std(fx()), STD_ALL, _C.float32)
    same(_C.var(fx()), VAR_ALL, _C.float32)
    same(fx().std(), STD_ALL, _C.float32)
    same(_C.var(fx(), False), 3.888888888888889, _C.float32)
    same(_C.var(fx(), unbiased=False), 3.888888888888889, _C.float32)
    same(_C.var(fx(_C.float64), correction=0), 3.888888888888889, _C.float64)
    same(_C.std(fx(), correction=2), math.sqrt(23.333333333333333 / 4), _C.float32)
    same(_C.var(fx(), correction=1.5), 23.333333333333333 / 4.5, _C.float32)


@pytest.mark.parametrize(
    "dim,expected,kept",
    [
        (0, [18.0, 2.0, 2.0], [[18.0, 2.0, 2.0]]),
        (1, [13 / 3, 13 / 3], [[13 / 3], [13 / 3]]),
        (-1, [13 / 3, 13 / 3], [[13 / 3], [13 / 3]]),
        ((0, 1), VAR_ALL, [[VAR_ALL]]),
        ((-1, 0), VAR_ALL, [[VAR_ALL]]),
        ([1], [13 / 3, 13 / 3], [[13 / 3], [13 / 3]]),
    ],
)
def test_var_dims(dim, expected, kept):
    same(_C.var(fx(), dim), expected, _C.float32)
    same(_C.var(fx(), dim, keepdim=True), kept, _C.float32)
    same(_C.var(fx(), dim=dim, correction=1, keepdim=True), kept, _C.float32)
    same(fx().var(dim, True, True), kept, _C.float32)
    sq = [math.sqrt(v) for v in expected] if isinstance(expected, list) else math.sqrt(expected)
    same(_C.std(fx(), dim), sq, _C.float32)


def test_std_var_unbiased_dim_and_out():
    same(_C.std(fx(), 0, False), [3.0, 1.0, 1.0], _C.float32)
    same(_C.std(fx(), 0, unbiased=False, keepdim=True), [[3.0, 1.0, 1.0]], _C.float32)
    out = _C.zeros(3)
    r = _C.var(fx(), 0, out=out)
    assert r is out
    same(out, [18.0, 2.0, 2.0], _C.float32)
    out = _C.zeros(())
    _C.std(fx(), out=out)
    same(out, STD_ALL, _C.float32)


def test_std_var_edge_cases():
    with pytest.warns(UserWarning, match=r"^var\(\): degrees of freedom is <= 0"):  # test_warnings.py
        same(_C.var(_C.tensor([3.0])), nan, _C.float32)  # N - 1 == 0
    same(_C.var(_C.tensor([3.0]), correction=0), 0.0, _C.float32)
    same(_C.var(_C.tensor([1.0, nan])), nan, _C.float32)
    same(_C.var(_C.tensor([1.0, 3.0])[::1]), 2.0, _C.float32)
    same(_C.var(fx().transpose(0, 1), 1), [18.0, 2.0, 2.0], _C.float32)  # non-contiguous


@pytest.mark.parametrize("fn", [_C.std, _C.var])
@pytest.mark.parametrize("dtype", [_C.int64, _C.int32, _C.bool, _C.uint8])
def test_std_var_rejects_non_float(fn, dtype):
    with pytest.raises(NotImplementedError, match="std and var only support floating point and complex dtypes"):
        fn(_C.tensor(X, dtype=dtype))
    with pytest.raises(NotImplementedError, match="std and var only support floating point and complex dtypes"):
        fn(_C.tensor(X, dtype=dtype), 0)


def test_std_var_dim_errors():
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.var(fx(), 2)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        _C.std(fx(), (0, -2))


# ---------------------------------------------------------------------------------------------
# norm


@pytest.mark.parametrize(
    "p,expected",
    [
        (2, 10.198039027185569),
        (None, 10.198039027185569),
        (1, 22.0),
        (inf, 7.0),
        (-inf, 1.0),
        (0, 6.0),
        (3, 8.281635498845706),
        (0.5, 121.61862917901485),
    ],
)
def test_norm_p(p, expected):
    x = fx() * _C.tensor([1.0, -1.0, 1.0])  # signs must not matter
    if p is None:
        same(_C.norm(x), expected, _C.float32)
        same(x.norm(), expected, _C.float32)
    else:
        same(_C.norm(x, p), expected, _C.float32)
        same(_C.norm(x.double(), p=p), expected, _C.float64)


def test_norm_dims_keepdim_out():
    same(_C.norm(fx(), 2, 0), [7.0710678118654755, 5.830951894845301, 4.47213595499958], _C.float32)
    same(_C.norm(fx(), dim=1, p=1), [8.0, 14.0], _C.float32)
    same(_C.norm(fx(), inf, -1, True), [[5.0], [7.0]], _C.float32)
    same(_C.norm(fx(), 2, (0, 1), keepdim=True), [[10.198039027185569]], _C.float32)
    out = _C.zeros(2)
    assert _C.norm(fx(), 1, 1, out=out) is out
    same(out, [8.0, 14.0], _C.float32)
    same(_C.norm(_C.tensor([nan, 1.0]), inf), nan, _C.float32)
    same(_C.norm(_C.zeros(0)), 0.0, _C.float32)


def test_norm_errors():
    with pytest.raises(RuntimeError, match="linalg.vector_norm only supports floating point and complex dtypes, but got: Long"):
        _C.norm(ix())
    with pytest.raises(RuntimeError, match="linalg.vector_norm only supports floating point and complex dtypes, but got: Int"):
        _C.norm(ix(_C.int32), 1)
    with pytest.raises(RuntimeError, match="cannot compute the inf norm on an empty tensor"):
        _C.norm(_C.zeros(0), inf)
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.norm(fx(), 2, 3)


# ---------------------------------------------------------------------------------------------
# logsumexp


@pytest.mark.parametrize(
    "dim,expected,kept",
    [
        (0, [7.00247569, 5.12692801, 4.12692801], [[7.00247569, 5.12692801, 4.12692801]]),
        (1, [5.0658839, 7.0658839], [[5.0658839], [7.0658839]]),
        (-1, [5.0658839, 7.0658839], [[5.0658839], [7.0658839]]),
        ((0, 1), 7.1928119148004015, [[7.1928119148004015]]),
        ([-2, 1], 7.1928119148004015, [[7.1928119148004015]]),
    ],
)
def test_logsumexp(dim, expected, kept):
    same(_C.logsumexp(fx(), dim), expected, _C.float32)
    same(_C.logsumexp(fx(), dim, keepdim=True), kept, _C.float32)
    same(fx().logsumexp(dim, True), kept, _C.float32)
    same(_C.logsumexp(ix(), dim), expected, _C.float32)  # ints give float32


def test_logsumexp_stable_inf_out_errors():
    same(_C.logsumexp(_C.tensor([1000.0, 1000.0]), 0), 1000.6931471805599, _C.float32)
    same(_C.logsumexp(_C.tensor([inf, 1.0]), 0), inf, _C.float32)
    same(_C.logsumexp(_C.tensor([-inf, -inf]), 0), -inf, _C.float32)
    same(_C.logsumexp(_C.zeros(0, 2), 0), [-inf, -inf], _C.float32)
    out = _C.zeros(2)
    assert _C.logsumexp(fx(), 1, out=out) is out
    same(out, [5.0658839, 7.0658839], _C.float32)
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.logsumexp(fx(), 2)
    with pytest.raises(TypeError):
        _C.logsumexp(fx())


# ---------------------------------------------------------------------------------------------
# all, any, count_nonzero

B = [[1, 0, 2], [3, 4, 5]]


@pytest.mark.parametrize("dtype", [_C.bool, _C.int8, _C.int32, _C.int64, _C.float32, _C.float64])
def test_all_any_bool_result(dtype):
    x = _C.tensor(B, dtype=dtype)
    same(_C.all(x), False, _C.bool)
    same(_C.any(x), True, _C.bool)
    same(x.all(), False, _C.bool)
    same(_C.all(x, 0), [True, False, True], _C.bool)
    same(_C.all(x, 1), [False, True], _C.bool)
    same(_C.all(x, -1, keepdim=True), [[False], [True]], _C.bool)
    same(_C.any(x, 0), [True, True, True], _C.bool)
    same(x.any(-2, True), [[True, True, True]], _C.bool)


def test_all_any_uint8_and_edges():
    x = _C.tensor(B, dtype=_C.uint8)
    same(_C.all(x), 0, _C.uint8)
    same(_C.any(x), 1, _C.uint8)
    same(_C.all(x, 1), [0, 1], _C.uint8)
    same(_C.all(_C.zeros(0)), True, _C.bool)
    same(_C.any(_C.zeros(0)), False, _C.bool)
    same(_C.any(_C.tensor([nan])), True, _C.bool)
    same(_C.all(_C.tensor(0), 0), False, _C.bool)
    out = _C.zeros(3, dtype=_C.bool)
    assert _C.any(_C.tensor(B), 0, out=out) is out
    same(out, [True, True, True], _C.bool)
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.all(x, 2)


@pytest.mark.parametrize(
    "dim,expected",
    [
        (None, 5),
        (0, [2, 1, 2]),
        (1, [2, 3]),
        (-1, [2, 3]),
        ((0, 1), 5),
        ([1, 0], 5),
        ((), 5),
    ],
)
def test_count_nonzero(dim, expected):
    for dtype in (_C.bool, _C.int32, _C.float32):
        x = _C.tensor(B, dtype=dtype)
        r = _C.count_nonzero(x) if dim is None else _C.count_nonzero(x, dim)
        same(r, expected, _C.int64)
    same(_C.tensor(B).count_nonzero(dim=dim), expected, _C.int64)


def test_count_nonzero_errors():
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.count_nonzero(ix(), 2)
    with pytest.raises(RuntimeError, match="dim 1 appears multiple times in the list of dims"):
        _C.count_nonzero(ix(), (1, -1))


# ---------------------------------------------------------------------------------------------
# median (no dim)


def test_median():
    same(_C.median(_C.tensor([4.0, 1.0, 3.0, 2.0])), 2.0, _C.float32)  # lower median
    same(_C.median(_C.tensor([[5, 1, 9], [3, 7, 2]])), 3, _C.int64)
    same(_C.tensor([3, 1, 2], dtype=_C.int8).median(), 2, _C.int8)
    same(_C.median(_C.tensor([1.0, nan, 3.0])), nan, _C.float32)
    same(_C.median(_C.tensor(7.5)), 7.5, _C.float32)
    same(_C.median(fx().transpose(0, 1)), 3.0, _C.float32)
    assert _C.median(fx()).shape == ()


# ---------------------------------------------------------------------------------------------
# cumsum, cumprod


@pytest.mark.parametrize(
    "dim,csum,cprod",
    [
        (0, [[1, 5, 2], [8, 8, 6]], [[1, 5, 2], [7, 15, 8]]),
        (1, [[1, 6, 8], [7, 10, 14]], [[1, 5, 10], [7, 21, 84]]),
        (-1, [[1, 6, 8], [7, 10, 14]], [[1, 5, 10], [7, 21, 84]]),
        (-2, [[1, 5, 2], [8, 8, 6]], [[1, 5, 2], [7, 15, 8]]),
    ],
)
def test_cumsum_cumprod(dim, csum, cprod):
    for dtype in (_C.uint8, _C.int8, _C.int32, _C.int64):
        same(_C.cumsum(_C.tensor(X, dtype=dtype), dim), csum, _C.int64)
        same(_C.cumprod(_C.tensor(X, dtype=dtype), dim), cprod, _C.int64)
    fl = lambda v: [[float(a) for a in r] for r in v]  # noqa: E731
    same(_C.cumsum(fx(), dim), fl(csum), _C.float32)
    same(fx(_C.float64).cumprod(dim), fl(cprod), _C.float64)
    same(_C.cumsum(fx().transpose(0, 1).transpose(0, 1), dim), fl(csum), _C.float32)
    same(_C.cumsum(ix(), dim, dtype=_C.float64), fl(csum), _C.float64)


def test_cumsum_misc():
    same(_C.cumsum(_C.tensor([True, True, False]), 0), [1, 2, 2], _C.int64)
    same(_C.cumsum(fx().transpose(0, 1), 0), [[1.0, 7.0], [6.0, 10.0], [8.0, 14.0]], _C.float32)
    same(_C.cumsum(_C.tensor(5), 0), 5, _C.int64)
    same(_C.cumsum(_C.tensor(5), -1), 5, _C.int64)
    same(_C.cumsum(_C.zeros(0), 0), [], _C.float32)
    same(_C.cumsum(_C.tensor([1.5, 2.5]), 0, dtype=_C.int32), [1, 3], _C.int32)
    same(_C.cumprod(_C.tensor([nan, 1.0]), 0), [nan, nan], _C.float32)
    out = _C.zeros(2, 3, dtype=_C.int64)
    assert _C.cumsum(ix(), 1, out=out) is out
    same(out, [[1, 6, 8], [7, 10, 14]], _C.int64)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        _C.cumsum(ix(), 2)
    with pytest.raises(TypeError):
        _C.cumsum(ix())


# ---------------------------------------------------------------------------------------------
# argsort


@pytest.mark.parametrize(
    "kwargs,expected",
    [
        ({}, [[0, 2, 1], [1, 2, 0]]),
        ({"dim": 1}, [[0, 2, 1], [1, 2, 0]]),
        ({"dim": -1, "descending": True}, [[1, 2, 0], [0, 2, 1]]),
        ({"dim": 0}, [[0, 1, 0], [1, 0, 1]]),
        ({"dim": -2, "descending": True}, [[1, 0, 1], [0, 1, 0]]),
        ({"stable": True}, [[0, 2, 1], [1, 2, 0]]),
    ],
)
def test_argsort(kwargs, expected):
    same(_C.argsort(fx(), **kwargs), expected, _C.int64)
    same(ix(_C.int32).argsort(**kwargs), expected, _C.int64)


def test_argsort_stable_nan_and_errors():
    same(_C.argsort(_C.tensor([2, 1, 2, 1, 0])), [4, 1, 3, 0, 2], _C.int64)
    same(_C.argsort(_C.tensor([2, 1, 2, 1, 0]), descending=True, stable=True), [0, 2, 1, 3, 4], _C.int64)
    same(_C.argsort(_C.tensor([nan, 1.0, -inf, 3.0])), [2, 1, 3, 0], _C.int64)
    same(_C.argsort(_C.tensor([nan, 1.0, -inf, 3.0]), descending=True), [0, 3, 1, 2], _C.int64)
    same(_C.argsort(_C.tensor([True, False, True])), [1, 0, 2], _C.int64)
    same(_C.argsort(fx().transpose(0, 1), 0), [[0, 1], [2, 2], [1, 0]], _C.int64)
    same(_C.argsort(_C.tensor(3.0)), 0, _C.int64)
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.argsort(fx(), 2)


# ---------------------------------------------------------------------------------------------
# softmax, log_softmax

SM1 = [[0.01714782554552039, 0.9362395518765058, 0.0466126225779739], [0.9362395518765058, 0.01714782554552039, 0.0466126225779739]]
SM0 = [[0.0024726231566347748, 0.8807970779778823, 0.11920292202211755], [0.9975273768433653, 0.11920292202211755, 0.8807970779778823]]


@pytest.mark.parametrize("dim,expected", [(1, SM1), (-1, SM1), (0, SM0), (-2, SM0)])
def test_softmax(dim, expected):
    same(_C.softmax(fx(), dim), expected, _C.float32)
    same(fx(_C.float64).softmax(dim), expected, _C.float64)
    same(_C.softmax(ix(), dim, _C.float64), expected, _C.float64)
    same(_C.softmax(fx(), dim, dtype=_C.float64), expected, _C.float64)
    logs = [[math.log(v) for v in r] for r in expected]
    same(_C.log_softmax(fx(), dim), logs, _C.float32)
    same(fx().log_softmax(dim, _C.float64), logs, _C.float64)


def test_softmax_edges_and_errors():
    same(_C.softmax(_C.tensor([1000.0, 1000.0]), 0), [0.5, 0.5], _C.float32)
    same(_C.log_softmax(_C.tensor([1000.0, 0.0]), 0), [0.0, -1000.0], _C.float32)
    same(_C.softmax(_C.tensor(3.0), 0), 1.0, _C.float32)
    same(_C.softmax(_C.zeros(0, 3), 1), [], _C.float32)
    same(_C.softmax(fx().transpose(0, 1), 0), [list(r) for r in zip(*SM1)], _C.float32)
    with pytest.raises(NotImplementedError, match="\"softmax_lastdim_kernel_impl\" not implemented for 'Long'"):
        _C.softmax(ix(), 1)
    with pytest.raises(NotImplementedError, match="\"softmax_kernel_impl\" not implemented for 'Long'"):
        _C.softmax(ix(), 0)
    with pytest.raises(NotImplementedError, match="\"log_softmax_lastdim_kernel_impl\" not implemented for 'Int'"):
        _C.log_softmax(ix(_C.int32), -1)
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.softmax(fx(), 2)
    with pytest.raises(TypeError):
        _C.softmax(fx())
