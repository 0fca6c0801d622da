"""Reductions: sum, mean, amax, amin, argmax, argmin — every dim form (none, int, negative,
tuple, list), keepdim, result dtypes, out=, NaN, empty inputs and errors (torch's behaviour)."""

import pytest

import _C
from tensor_asserts import same  # noqa: E402

# ---------------------------------------------------------------------------------------------
# helpers


nan = float("nan")

X = [[1, 5, 2], [7, 3, 4]]

# expected results per op and dim form: (no keepdim, keepdim)
SUM = {
    "all": (22, [[22]]),
    0: ([8, 8, 6], [[8, 8, 6]]),
    1: ([8, 14], [[8], [14]]),
    -1: ([8, 14], [[8], [14]]),
    -2: ([8, 8, 6], [[8, 8, 6]]),
    (0, 1): (22, [[22]]),
    (1, 0): (22, [[22]]),
    (-1, 0): (22, [[22]]),
    (1,): ([8, 14], [[8], [14]]),
    "list0": ([8, 8, 6], [[8, 8, 6]]),
}
MEAN = {
    "all": (22 / 6, [[22 / 6]]),
    0: ([4.0, 4.0, 3.0], [[4.0, 4.0, 3.0]]),
    1: ([8 / 3, 14 / 3], [[8 / 3], [14 / 3]]),
    -1: ([8 / 3, 14 / 3], [[8 / 3], [14 / 3]]),
    -2: ([4.0, 4.0, 3.0], [[4.0, 4.0, 3.0]]),
    (0, 1): (22 / 6, [[22 / 6]]),
    (1, 0): (22 / 6, [[22 / 6]]),
    (-1, 0): (22 / 6, [[22 / 6]]),
    (1,): ([8 / 3, 14 / 3], [[8 / 3], [14 / 3]]),
    "list0": ([4.0, 4.0, 3.0], [[4.0, 4.0, 3.0]]),
}
AMAX = {
    "all": (7, [[7]]),
    0: ([7, 5, 4], [[7, 5, 4]]),
    1: ([5, 7], [[5], [7]]),
    -1: ([5, 7], [[5], [7]]),
    -2: ([7, 5, 4], [[7, 5, 4]]),
    (0, 1): (7, [[7]]),
    (1, 0): (7, [[7]]),
    (-1, 0): (7, [[7]]),
    (1,): ([5, 7], [[5], [7]]),
    "list0": ([7, 5, 4], [[7, 5, 4]]),
}
AMIN = {
    "all": (1, [[1]]),
    0: ([1, 3, 2], [[1, 3, 2]]),
    1: ([1, 3], [[1], [3]]),
    -1: ([1, 3], [[1], [3]]),
    -2: ([1, 3, 2], [[1, 3, 2]]),
    (0, 1): (1, [[1]]),
    (1, 0): (1, [[1]]),
    (-1, 0): (1, [[1]]),
    (1,): ([1, 3], [[1], [3]]),
    "list0": ([1, 3, 2], [[1, 3, 2]]),
}
DIM_FORMS = list(SUM)


def _dim_arg(form, all_form):
    if form == "all":
        return all_form
    if form == "list0":
        return [0]
    return form


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("form", DIM_FORMS, ids=str)
def test_dim_forms(form, keepdim):
    """sum, mean, amax and amin over every dim form, as functions (positional and keyword) and
    methods."""
    # sum: int64 input; dim=None means all dims
    x = _C.tensor(X)
    dim = _dim_arg(form, None)
    expected = SUM[form][keepdim]
    same(_C.sum(x, dim, keepdim), expected, _C.int64)
    same(_C.sum(x, dim=dim, keepdim=keepdim), expected, _C.int64)
    same(x.sum(dim, keepdim=keepdim), expected, _C.int64)
    # mean: needs a floating input
    xf = _C.tensor(X, dtype=_C.float32)
    expected = MEAN[form][keepdim]
    same(_C.mean(xf, dim, keepdim), expected, _C.float32)
    same(xf.mean(dim=dim, keepdim=keepdim), expected, _C.float32)
    # amax / amin keep the dtype; "all dims" is dim=()
    xi = _C.tensor(X, dtype=_C.int32)
    dim = _dim_arg(form, ())
    for name, table in (("amax", AMAX), ("amin", AMIN)):
        expected = table[form][keepdim]
        same(getattr(_C, name)(xi, dim, keepdim), expected, _C.int32)
        same(getattr(xi, name)(dim=dim, keepdim=keepdim), expected, _C.int32)


def test_reductions_without_dim():
    x = _C.tensor(X)
    same(_C.sum(x), 22, _C.int64)
    same(x.sum(), 22, _C.int64)
    xf = x.float()
    same(_C.mean(xf), 22 / 6, _C.float32)
    same(xf.mean(), 22 / 6, _C.float32)
    for name, value in (("amax", 7), ("amin", 1)):
        same(getattr(_C, name)(x), value, _C.int64)
        same(getattr(x, name)(), value, _C.int64)


ARG = {
    "argmax": {None: 3, 0: [1, 0, 1], 1: [1, 0], -1: [1, 0], -2: [1, 0, 1]},
    "argmin": {None: 0, 0: [0, 1, 0], 1: [0, 1], -1: [0, 1], -2: [0, 1, 0]},
}


@pytest.mark.parametrize("dim", [None, 0, 1, -1, -2])
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_argmin(name, dim):
    x = _C.tensor(X, dtype=_C.float32)
    expected = ARG[name][dim]
    same(getattr(_C, name)(x, dim), expected, _C.int64)
    same(getattr(x, name)(dim=dim), expected, _C.int64)
    if dim is None:
        same(getattr(_C, name)(x), expected, _C.int64)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_argmin_keepdim(name):
    x = _C.tensor(X)
    r = getattr(_C, name)(x, 1, True)
    same(r, [[v] for v in ARG[name][1]], _C.int64)
    r = getattr(x, name)(0, keepdim=True)
    same(r, [ARG[name][0]], _C.int64)


def test_empty_dim_tuple_reduces_all():
    x = _C.tensor(X)
    same(x.sum(()), 22, _C.int64)
    same(_C.sum(x, [], keepdim=True), [[22]], _C.int64)
    same(x.float().mean(()), 22 / 6, _C.float32)


def test_argmax_keepdim_without_dim():
    # dim=None reduces the flattened input; keepdim keeps every dim with size 1
    r = _C.argmax(_C.tensor(X), keepdim=True)
    assert r.shape == (1, 1)
    same(r, [[3]], _C.int64)


def test_argmax_first_occurrence_and_nan():
    same(_C.argmax(_C.tensor([3, 7, 7, 1])), 1, _C.int64)
    same(_C.argmin(_C.tensor([3, 1, 1, 5])), 1, _C.int64)
    # NaN counts as the maximum and as the minimum (it propagates)
    same(_C.argmax(_C.tensor([1.0, nan, 3.0])), 1, _C.int64)
    same(_C.argmin(_C.tensor([1.0, nan, -3.0])), 1, _C.int64)


# ---------------------------------------------------------------------------------------------
# result dtypes


@pytest.mark.parametrize(
    "dtype, rdtype",
    [
        (_C.bool, _C.int64),
        (_C.uint8, _C.int64),
        (_C.int8, _C.int64),
        (_C.int16, _C.int64),
        (_C.int32, _C.int64),
        (_C.int64, _C.int64),
        (_C.float32, _C.float32),
        (_C.float64, _C.float64),
    ],
)
def test_sum_result_dtype(dtype, rdtype):
    x = _C.ones(2, 3, dtype=dtype)
    one = 1.0 if rdtype.is_floating_point else 1
    same(_C.sum(x), 6 * one, rdtype)
    same(x.sum(0), [2 * one] * 3, rdtype)
    same(x.sum((0, 1), keepdim=True), [[6 * one]], rdtype)


def test_sum_dtype_argument():
    x = _C.tensor([[True, False], [True, True]])
    same(x.sum(), 3, _C.int64)
    same(x.sum(0), [2, 1], _C.int64)
    same(x.sum(dtype=_C.int32), 3, _C.int32)
    same(_C.sum(x, 1, dtype=_C.float64), [1.0, 2.0], _C.float64)
    same(_C.sum(_C.tensor([1.5, 2.5]), dtype=_C.float64), 4.0, _C.float64)
    same(_C.sum(_C.tensor([1.5, 2.5]), 0, dtype=_C.int64), 3, _C.int64)  # cast first, then sum


def test_sum_int8_does_not_overflow():
    # accumulates in int64: 100 * 3 does not wrap in int8
    same(_C.full((3,), 100, dtype=_C.int8).sum(), 300, _C.int64)


@pytest.mark.parametrize("dtype", [_C.bool, _C.uint8, _C.int32, _C.int64])
def test_mean_rejects_integral_input(dtype):
    # torch: RuntimeError: mean(): could not infer output dtype. Input dtype must be either a
    # floating point or complex dtype. Got: Long
    x = _C.ones(3, dtype=dtype)
    with pytest.raises(NotImplementedError, match=r"mean\(\): could not infer output dtype"):
        _C.mean(x)
    with pytest.raises(NotImplementedError, match="could not infer output dtype"):
        x.mean(0)


def test_mean_dtype_argument():
    same(_C.tensor([1, 2]).mean(dtype=_C.float64), 1.5, _C.float64)
    same(_C.mean(_C.tensor([[1, 2], [3, 5]]), 1, dtype=_C.float32), [1.5, 4.0], _C.float32)
    same(_C.tensor([1.0, 2.0]).mean(dtype=_C.float64), 1.5, _C.float64)
    same(_C.tensor([1.0, 2.0], dtype=_C.float64).mean(), 1.5, _C.float64)


@pytest.mark.parametrize("dtype", [_C.uint8, _C.int8, _C.int64, _C.float64, _C.bool])
def test_amax_amin_keep_dtype(dtype):
    x = _C.tensor([[0, 1], [1, 1]], dtype=dtype)
    one = True if dtype is _C.bool else 1.0 if dtype.is_floating_point else 1
    zero = False if dtype is _C.bool else 0.0 if dtype.is_floating_point else 0
    same(_C.amax(x), one, dtype)
    same(_C.amin(x, 1), [zero, one], dtype)


def test_argmax_dtype_is_int64_for_every_input():
    for dtype in [_C.uint8, _C.int32, _C.float64]:
        assert _C.argmax(_C.tensor([1, 3, 2], dtype=dtype)).dtype is _C.int64


# ---------------------------------------------------------------------------------------------
# NaN, zero-dim, empty, non-contiguous, larger inputs


def test_nan_propagates():
    x = _C.tensor([[1.0, nan], [3.0, 4.0]])
    same(_C.amax(x), nan, _C.float32)
    same(_C.amin(x, 1), [nan, 3.0], _C.float32)
    same(_C.amax(x, 0), [3.0, nan], _C.float32)
    same(_C.sum(x, 0), [4.0, nan], _C.float32)
    same(_C.mean(x, 1), [nan, 3.5], _C.float32)


def test_zero_dim_reductions():
    t = _C.tensor(5)
    same(t.sum(), 5, _C.int64)
    same(t.sum(0), 5, _C.int64)
    same(t.sum(-1, keepdim=True), 5, _C.int64)
    same(_C.amax(t), 5, _C.int64)
    same(t.argmax(), 0, _C.int64)
    same(t.argmax(0), 0, _C.int64)
    same(_C.tensor(2.5).mean(), 2.5, _C.float32)


def test_empty_reductions():
    same(_C.zeros(0).sum(), 0.0, _C.float32)
    same(_C.zeros(0, dtype=_C.int32).sum(), 0, _C.int64)
    same(_C.zeros(0, 3).sum(0), [0.0, 0.0, 0.0], _C.float32)
    same(_C.zeros(0, 3).sum(1), [], _C.float32)
    same(_C.zeros(0).mean(), nan, _C.float32)
    same(_C.zeros(2, 0).amax(0), [], _C.float32)


def test_empty_max_and_argmax_are_errors():
    # torch: IndexError: amax(): Expected reduction dim 0 to have non-zero size.
    with pytest.raises((IndexError, RuntimeError)):
        _C.amax(_C.zeros(0))
    with pytest.raises((IndexError, RuntimeError)):
        _C.amin(_C.zeros(0, 3), 0)
    # torch: RuntimeError: argmax(): Expected reduction dim to be specified for input.numel() == 0.
    with pytest.raises((IndexError, RuntimeError)):
        _C.argmax(_C.zeros(0))
    with pytest.raises((IndexError, RuntimeError)):
        _C.argmin(_C.zeros(0, 2), 0)


def test_non_contiguous_input():
    x = _C.tensor(X).transpose(0, 1)  # [[1, 7], [5, 3], [2, 4]]
    same(x.sum(0), [8, 14], _C.int64)
    same(x.sum(1), [8, 8, 6], _C.int64)
    same(x.amax(1), [7, 5, 4], _C.int64)
    same(x.argmax(0), [1, 0], _C.int64)
    same(x.argmax(), 1, _C.int64)  # over the logical (row-major) order: [1, 7, 5, 3, 2, 4]
    y = _C.arange(12).reshape(3, 4)[:, ::2]  # [[0, 2], [4, 6], [8, 10]]
    same(y.sum(1), [2, 10, 18], _C.int64)
    same(y.float().mean(0), [4.0, 6.0], _C.float32)


def test_three_dim_reduction():
    x = _C.arange(24).reshape(2, 3, 4)
    same(x.sum((0, 2)), [60, 92, 124], _C.int64)
    same(x.sum(1), [[12, 15, 18, 21], [48, 51, 54, 57]], _C.int64)
    same(x.amax((0, 1)), [20, 21, 22, 23], _C.int64)
    same(x.amin(-1, keepdim=True), [[[0], [4], [8]], [[12], [16], [20]]], _C.int64)
    same(x.argmax(1), [[2, 2, 2, 2], [2, 2, 2, 2]], _C.int64)
    assert x.sum((0, 2), keepdim=True).shape == (1, 3, 1)


def test_larger_sum_is_exact():
    same(_C.ones(100000).sum(), 100000.0, _C.float32)
    same(_C.arange(1000).sum(), 499500, _C.int64)
    same(_C.arange(1000, dtype=_C.float64).mean(), 499.5, _C.float64)


# ---------------------------------------------------------------------------------------------
# out=


@pytest.mark.parametrize(
    "name, args, expected, dtype",
    [
        ("sum", (0,), [8, 8, 6], _C.int64),
        ("mean", (1,), None, None),
        ("amax", (1,), [5, 7], _C.int64),
        ("amin", (0,), [1, 3, 2], _C.int64),
        ("argmax", (1,), [1, 0], _C.int64),
        ("argmin", (0,), [0, 1, 0], _C.int64),
    ],
)
def test_reduction_out(name, args, expected, dtype):
    if name == "mean":
        x = _C.tensor(X, dtype=_C.float32)
        expected, dtype = [8 / 3, 14 / 3], _C.float32
    else:
        x = _C.tensor(X)
    out = _C.zeros(len(expected), dtype=dtype)
    r = getattr(_C, name)(x, *args, out=out)
    assert r is out
    same(out, expected, dtype)


def test_sum_out_keepdim_and_cast():
    out = _C.zeros(1, 3, dtype=_C.float64)
    r = _C.sum(_C.tensor(X), 0, True, out=out)
    assert r is out
    same(out, [[8.0, 8.0, 6.0]], _C.float64)


def test_sum_out_requires_dim_overload():
    # torch: sum(input, *, dtype) has no out=; only the dim overload does
    with pytest.raises(TypeError):
        _C.sum(_C.tensor(X), out=_C.zeros(()))


def test_mean_out_cannot_cast_to_int():
    with pytest.raises(RuntimeError, match="can't be cast"):
        _C.mean(_C.tensor([1.0, 2.0]), 0, out=_C.zeros((), dtype=_C.int64))


# ---------------------------------------------------------------------------------------------
# errors


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "amin", "argmax", "argmin"])
def test_dim_out_of_range(name):
    x = _C.ones(2, 3)
    # torch: IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        getattr(_C, name)(x, 2)
    with pytest.raises(IndexError, match=r"but got -3"):
        getattr(x, name)(-3)


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "amin"])
def test_repeated_dim(name):
    # torch: RuntimeError: dim 0 appears multiple times in the list of dims
    x = _C.ones(2, 3)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        getattr(_C, name)(x, (0, 0))
    with pytest.raises(RuntimeError, match="appears multiple times"):
        getattr(_C, name)(x, (1, -1))


def test_argmax_dim_must_be_int():
    with pytest.raises(TypeError):
        _C.argmax(_C.ones(2, 3), (0, 1))
    with pytest.raises(TypeError):
        _C.argmax(_C.ones(2, 3), 0.5)


def test_keepdim_must_be_bool():
    with pytest.raises(TypeError):
        _C.amax(_C.ones(2), 0, "yes")
    with pytest.raises(TypeError):
        _C.argmax(_C.ones(2), 0, 1)


# ---------------------------------------------------------------------------------------------
# small reductions (the allocation-free driver) give the same values and summation order


def _f32(x):
    import struct

    return struct.unpack("f", struct.pack("f", x))[0]


def test_small_sum_dim0_is_sequential_in_double_then_rounded():
    # 4x8 float32: each output sums its column top to bottom in double, then rounds to float32
    vals = [[1e8, 1.0, -1e8, 0.5, 3.25, -7.0, 1e-3, 16777216.0],
            [1.0, 1e8, 0.25, -0.5, 1e-8, 7.0, 2e-3, 1.0],
            [-1e8, -1e8, 1e8, 0.125, -3.25, 0.1, 3e-3, 1.0],
            [0.75, 0.5, 0.125, 1e-7, 1.0, -0.1, 4e-3, 1.0]]
    t = _C.tensor(vals)
    cols = []
    for j in range(8):
        acc = 0.0
        for i in range(4):
            acc += _f32(vals[i][j])
        cols.append(_f32(acc))
    assert _C.sum(t, dim=0).tolist() == cols
    assert _C.sum(t, dim=0, keepdim=True).tolist() == [cols]
    assert _C.sum(t, dim=-2).tolist() == cols


def test_small_sums_over_many_dims():
    # nine dims (more than the inline bookkeeping holds) and every reduced subset form
    t = _C.arange(2 * 3 * 1 * 2 * 1 * 2 * 1 * 2 * 2).reshape(2, 3, 1, 2, 1, 2, 1, 2, 2)
    flat = list(range(2 * 3 * 2 * 2 * 2 * 2))
    assert _C.sum(t).item() == sum(flat)
    r = _C.sum(t, dim=(0, 8))
    assert r.shape == (3, 1, 2, 1, 2, 1, 2)
    assert _C.sum(r).item() == sum(flat)
    r = _C.sum(t, dim=(1, 3, 5, 7), keepdim=True)
    assert r.shape == (2, 1, 1, 1, 1, 1, 1, 1, 2)
    assert r.reshape(-1).tolist() == [
        sum(v for k, v in enumerate(flat) if k // 48 == a and k % 2 == c) for a in range(2) for c in range(2)
    ]
    with pytest.raises(RuntimeError, match="dim 8 appears multiple times in the list of dims"):
        _C.sum(t, dim=(8, -1))
    with pytest.raises(IndexError):
        _C.sum(t, dim=9)
