"""Issue 13, part 3a: scans with an index, searching, counting, binning, statistics compositions
and element ops (cummax ... nextafter).

Every expected value, dtype and error text below was produced by torch 2.15 (run by hand from
/work/torch-venv; torch is not imported here).
"""

import math
import warnings

import pytest

import _C

NAN = float("nan")
INF = float("inf")


def same(t, expected, dtype=None, rel=1e-6, abs_=1e-9):
    """`t` holds `expected` (nested lists; NaN where NaN) and has `dtype` when given."""
    if dtype is not None:
        assert t.dtype == dtype, (t.dtype, dtype)
    got = t.tolist()

    def walk(g, e):
        if isinstance(e, list):
            assert isinstance(g, list) and len(g) == len(e), (got, expected)
            for a, b in zip(g, e):
                walk(a, b)
        elif isinstance(e, float) and math.isnan(e):
            assert math.isnan(g), (got, expected)
        elif isinstance(e, float) and math.isinf(e):
            assert g == e, (got, expected)
        else:
            assert g == pytest.approx(e, rel=rel, abs=abs_), (got, expected)

    walk(got, expected)


def raises(exc, text, f):
    with pytest.raises(exc) as info:
        f()
    assert str(info.value) == text


# ---- cummax, cummin, logcumsumexp ---------------------------------------------------------------


def test_cummax_cummin_values_and_indices():
    y = _C.tensor([[3.0, 1.0, 4.0], [1.0, 5.0, 9.0], [2.0, 6.0, 1.0]])
    r = _C.cummax(y, 0)
    assert type(r).__name__ == "cummax" and r[0] is r.values and r[1] is r.indices
    same(r.values, [[3.0, 1.0, 4.0], [3.0, 5.0, 9.0], [3.0, 6.0, 9.0]], _C.float32)
    same(r.indices, [[0, 0, 0], [0, 1, 1], [0, 2, 1]], _C.int64)
    r = y.cummin(1)
    same(r.values, [[3.0, 1.0, 1.0], [1.0, 1.0, 1.0], [2.0, 2.0, 1.0]])
    same(r.indices, [[0, 1, 1], [0, 0, 0], [0, 0, 2]])
    # NaN propagates and each new NaN moves the index; an equal value moves it too
    r = _C.cummax(_C.tensor([1.0, NAN, 2.0, NAN]), 0)
    same(r.values, [1.0, NAN, NAN, NAN])
    same(r.indices, [0, 1, 1, 3])
    same(_C.cummin(_C.tensor([1.0, 1.0, 0.0, 0.0]), 0).indices, [0, 1, 2, 3])
    r = _C.cummax(_C.tensor([1, 1, 0, 2]), 0)
    same(r.values, [1, 1, 1, 2], _C.int64)
    same(r.indices, [0, 1, 1, 3])
    r = _C.cummax(_C.tensor([True, False, True]), 0)
    same(r.values, [True, True, True], _C.bool)
    same(r.indices, [0, 0, 2])
    r = _C.cummax(_C.tensor(3.0), 0)
    assert r.values.shape == () and r.indices.tolist() == 0
    raises(IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)", lambda: _C.cummax(y, 2))
    # non-contiguous input
    same(_C.cummax(y.t(), 1).values, [[3.0, 3.0, 3.0], [1.0, 5.0, 6.0], [4.0, 9.0, 9.0]])


def test_logcumsumexp():
    same(_C.logcumsumexp(_C.tensor([-1000.0, 0.0, 1.0]), 0), [-1000.0, 0.0, 1.3132616875182228], _C.float32)
    same(_C.tensor([-INF, -INF, 1.0]).logcumsumexp(0), [-INF, -INF, 1.0])
    same(_C.logcumsumexp(_C.tensor([INF, INF, 1.0]), 0), [INF, INF, INF])
    same(_C.logcumsumexp(_C.tensor([NAN, 1.0]), 0), [NAN, NAN])
    x = _C.tensor([[0.0, 1.0], [2.0, 3.0]], dtype=_C.float64)
    same(_C.logcumsumexp(x, 0), [[0.0, 1.0], [2.1269280110429727, 3.1269280110429727]], _C.float64, rel=1e-12)
    raises(NotImplementedError, '"logcumsumexp_out_cpu" not implemented for \'Long\'', lambda: _C.logcumsumexp(_C.tensor([1, 2]), 0))
    out = _C.zeros(2, 2, dtype=_C.float64)
    assert _C.logcumsumexp(x, 1, out=out) is out


# ---- searchsorted, bucketize, isin --------------------------------------------------------------


def test_searchsorted():
    s = _C.tensor([1.0, 3.0, 5.0, 7.0, 9.0])
    v = _C.tensor([3.0, 6.0, 9.0])
    same(_C.searchsorted(s, v), [1, 3, 4], _C.int64)
    same(_C.searchsorted(s, _C.tensor([3, 6, 9])), [1, 3, 4])
    same(_C.searchsorted(s, v, right=True), [2, 3, 5])
    same(_C.searchsorted(s, v, side="right"), [2, 3, 5])
    r = _C.searchsorted(s, 5)
    assert r.shape == () and r.tolist() == 2 and r.dtype == _C.int64
    assert _C.searchsorted(s, 5, out_int32=True).dtype == _C.int32
    same(_C.searchsorted(_C.tensor([[1, 3, 5], [2, 4, 6]]), _C.tensor([[3], [5]])), [[1], [2]])
    same(_C.searchsorted(_C.tensor([5.0, 1.0, 3.0]), _C.tensor([2.0, 4.0]), sorter=_C.tensor([1, 2, 0])), [1, 2])
    same(_C.searchsorted(s, _C.tensor(4.0)), 2)
    same(_C.searchsorted(_C.tensor([1.0, NAN]), _C.tensor([NAN, 2.0])), [2, 2])
    same(_C.searchsorted(s, _C.tensor([True])), [0])
    out = _C.zeros(3, dtype=_C.int64)
    assert _C.searchsorted(s, v, out=out) is out and out.tolist() == [1, 3, 4]


def test_searchsorted_errors():
    s = _C.tensor([1.0, 3.0, 5.0, 7.0, 9.0])
    v = _C.tensor([3.0, 6.0, 9.0])
    raises(RuntimeError, "torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True", lambda: _C.searchsorted(s, v, side="left", right=True))
    raises(RuntimeError, "torch.searchsorted(): side can only be 'left' or 'right' but got foo", lambda: _C.searchsorted(s, v, side="foo"))
    raises(RuntimeError, "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input value tensor must match, but we got boundaries tensor [2, 3] and input value tensor [3, 2]", lambda: _C.searchsorted(_C.tensor([[1, 3, 5], [2, 4, 6]]), _C.tensor([[3, 1], [5, 1], [1, 1]])))
    raises(RuntimeError, "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor [3]and got sorter tensor [2]", lambda: _C.searchsorted(_C.tensor([5.0, 1.0, 3.0]), _C.tensor([2.0, 4.0]), sorter=_C.tensor([1, 2])))
    raises(RuntimeError, "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension", lambda: _C.searchsorted(_C.tensor(5.0), _C.tensor([2.0, 4.0])))
    raises(RuntimeError, "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype Float", lambda: _C.searchsorted(_C.tensor([1.0, 2.0]), _C.tensor([1.0]), sorter=_C.tensor([0.0, 1.0])))
    raises(RuntimeError, "torch.searchsorted(): sorter index out of range", lambda: _C.searchsorted(_C.tensor([1.0, 2.0]), _C.tensor([1.0]), sorter=_C.tensor([0, 5])))


def test_bucketize():
    b = _C.tensor([1, 3, 5, 7, 9])
    x = _C.tensor([[3, 6], [9, 1]])
    same(_C.bucketize(x, b), [[1, 3], [4, 0]], _C.int64)
    same(_C.bucketize(x, b, right=True), [[2, 3], [5, 1]])
    r = _C.bucketize(3, b)
    assert r.shape == () and r.tolist() == 1
    assert _C.bucketize(_C.tensor([3]), _C.tensor([1, 3]), out_int32=True).dtype == _C.int32
    raises(RuntimeError, "boundaries tensor must be 1 dimension, but got dim(2)", lambda: _C.bucketize(_C.tensor([3]), _C.tensor([[1, 3, 5, 7, 9]])))


def test_isin():
    x = _C.tensor([[1, 2], [3, 4]])
    same(_C.isin(x, _C.tensor([2, 3])), [[False, True], [True, False]], _C.bool)
    same(_C.isin(x, _C.tensor([2.0, 3.5])), [[False, True], [False, False]])
    same(_C.isin(x, 2), [[False, True], [False, False]])
    r = _C.isin(2, x)
    assert r.shape == () and r.tolist() is True
    same(_C.isin(x, _C.tensor([2, 3]), invert=True), [[True, False], [False, True]])
    same(_C.isin(_C.tensor([NAN, 1.0]), _C.tensor([NAN])), [False, False])
    same(_C.isin(_C.tensor([1, 2]), 2.0), [False, True])
    same(_C.isin(_C.tensor([1, 2]), _C.tensor([[1], [5]]), assume_unique=True), [True, False])
    raises(NotImplementedError, "Unsupported input type encountered for isin(): Bool", lambda: _C.isin(x, _C.tensor([True])))
    raises(NotImplementedError, "Unsupported input type encountered for isin(): Bool", lambda: _C.isin(_C.tensor([True]), x))


# ---- bincount, histc, unique_consecutive --------------------------------------------------------


def test_bincount():
    x = _C.tensor([0, 1, 1, 3])
    same(_C.bincount(x), [1, 2, 0, 1], _C.int64)
    same(x.bincount(minlength=6), [1, 2, 0, 1, 0, 0])
    same(_C.bincount(x, weights=_C.tensor([0.5, 1.0, 2.0, 3.0])), [0.5, 3.0, 0.0, 3.0], _C.float32)
    same(_C.bincount(x, weights=_C.tensor([5, 1, 2, 3])), [5.0, 3.0, 0.0, 3.0], _C.float64)
    same(_C.bincount(x, _C.tensor([0.5, 1.0, 2.0, 3.0], dtype=_C.float64)), [0.5, 3.0, 0.0, 3.0], _C.float64)
    same(_C.bincount(_C.tensor([], dtype=_C.int64), weights=_C.tensor([])), [], _C.int64)
    same(_C.bincount(_C.tensor([], dtype=_C.int64), minlength=2), [0, 0])
    same(_C.bincount(_C.tensor([0, 1], dtype=_C.uint8)), [1, 1])
    msg = "bincount only supports 1-d non-negative integral inputs."
    raises(RuntimeError, msg, lambda: _C.bincount(_C.tensor([0, -1])))
    raises(RuntimeError, msg, lambda: _C.bincount(_C.tensor([[0, 1]])))
    raises(RuntimeError, msg, lambda: _C.bincount(_C.tensor(1)))
    raises(NotImplementedError, "\"bincount_cpu\" not implemented for 'Float'", lambda: _C.bincount(_C.tensor([0.0, 1.0])))
    raises(NotImplementedError, "\"bincount_cpu\" not implemented for 'Bool'", lambda: _C.bincount(_C.tensor([True, False])))
    raises(RuntimeError, "minlength should be >= 0", lambda: _C.bincount(_C.tensor([0, 1]), minlength=-1))
    raises(RuntimeError, "weights should be 1-d and have the same length as input", lambda: _C.bincount(_C.tensor([0, 1]), weights=_C.tensor([1.0])))


def test_histc():
    same(_C.histc(_C.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3), [0.0, 2.0, 1.0, 0.0], _C.float32)
    same(_C.tensor([1.0, 2.0, 1.0, 5.0]).histc(bins=4), [2.0, 1.0, 0.0, 1.0])
    same(_C.histc(_C.tensor([1.0, 1.0]), bins=4), [0.0, 0.0, 2.0, 0.0])
    same(_C.histc(_C.tensor([], dtype=_C.float64), bins=3), [0.0, 0.0, 0.0], _C.float64)
    same(_C.histc(_C.tensor([0.0, 0.3, 0.6, 1.0, 2.0, -1.0]), bins=3, min=0, max=1), [2.0, 1.0, 1.0])
    raises(NotImplementedError, "\"histogram_cpu\" not implemented for 'Long'", lambda: _C.histc(_C.tensor([1, 2]), bins=4))
    raises(RuntimeError, "torch.histogram(): bins must be > 0, but got 0 for dimension 0", lambda: _C.histc(_C.tensor([1.0, 2.0]), bins=0))
    raises(RuntimeError, "torch.histc: max must be larger than min", lambda: _C.histc(_C.tensor([1.0, 2.0]), bins=4, min=3, max=1))
    raises(RuntimeError, "torch.histc: range of [-nan, -nan] is not finite", lambda: _C.histc(_C.tensor([1.0, NAN]), bins=4))
    raises(RuntimeError, "torch.histc: range of [1, inf] is not finite", lambda: _C.histc(_C.tensor([1.0, INF]), bins=4))


def test_unique_consecutive():
    x = _C.tensor([1, 1, 2, 2, 3, 1, 1, 2])
    same(_C.unique_consecutive(x), [1, 2, 3, 1, 2], _C.int64)
    out, inv, counts = _C.unique_consecutive(x, return_inverse=True, return_counts=True)
    same(out, [1, 2, 3, 1, 2])
    same(inv, [0, 0, 1, 1, 2, 3, 3, 4])
    same(counts, [2, 2, 1, 2, 1])
    m = _C.tensor([[1, 1], [1, 1], [2, 3]])
    out, counts = m.unique_consecutive(return_counts=True, dim=0)
    same(out, [[1, 1], [2, 3]])
    same(counts, [2, 1])
    out, inv = _C.unique_consecutive(m, return_inverse=True, dim=1)
    same(out, [[1, 1], [1, 1], [2, 3]])
    same(inv, [0, 1])
    out, inv = _C.unique_consecutive(m, return_inverse=True)
    same(out, [1, 2, 3])
    same(inv, [[0, 0], [0, 0], [1, 2]])
    same(_C.unique_consecutive(_C.tensor([1.0, NAN, NAN])), [1.0, NAN, NAN])
    out, inv, counts = _C.unique_consecutive(_C.tensor(3), return_inverse=True, return_counts=True)
    assert out.tolist() == [3] and inv.shape == () and inv.tolist() == 0 and counts.tolist() == [1]
    same(_C.unique_consecutive(_C.tensor([True, True, False])), [True, False], _C.bool)
    raises(IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)", lambda: _C.unique_consecutive(_C.tensor([[1, 2]]), dim=2))


# ---- diff, msort, trapezoid, cov, corrcoef ------------------------------------------------------


def test_diff():
    same(_C.diff(_C.tensor([1, 3, 2])), [2, -1], _C.int64)
    same(_C.tensor([[1, 3, 2], [4, 5, 9]]).diff(n=2, dim=1), [[-3], [3]])
    r = _C.diff(_C.tensor([1, 3, 2]), n=5)
    assert r.shape == (0,) and r.dtype == _C.int64
    same(_C.diff(_C.tensor([1, 3, 2]), prepend=_C.tensor([0.5]), append=_C.tensor([7, 8])), [0.5, 2.0, -1.0, 5.0, 1.0], _C.float32)
    same(_C.diff(_C.tensor([True, False, False])), [True, False], _C.bool)
    same(_C.diff(_C.tensor([1.0, 3.0, 2.0]), n=0), [1.0, 3.0, 2.0])
    raises(RuntimeError, "order must be non-negative but got -1", lambda: _C.diff(_C.tensor([1, 3, 2]), n=-1))
    raises(RuntimeError, "diff expects input to be at least one-dimensional", lambda: _C.diff(_C.tensor(1)))
    raises(RuntimeError, "diff expects prepend or append to be the same dimension as input", lambda: _C.diff(_C.tensor([[1, 3, 2]]), prepend=_C.tensor([0])))
    raises(IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 1)", lambda: _C.diff(_C.tensor([1, 3, 2]), dim=1))


def test_diff_gradient():
    x = _C.tensor([1.0, 4.0, 9.0, 16.0], requires_grad=True)
    _C.diff(x, n=2).sum().backward()
    # torch: x.grad == [1, -1, -1, 1]
    same(x.grad, [1.0, -1.0, -1.0, 1.0])


def test_msort():
    same(_C.msort(_C.tensor([[3, 1], [1, 2], [2, 0]])), [[1, 0], [2, 1], [3, 2]], _C.int64)
    same(_C.tensor(3.0).msort(), 3.0)


def test_trapezoid():
    y = _C.tensor([1.0, 4.0, 9.0, 16.0])
    same(_C.trapezoid(y), 21.5, _C.float32)
    same(_C.trapezoid(y, dx=0.5), 10.75)
    same(_C.trapezoid(y, _C.tensor([0.0, 1.0, 3.0, 6.0])), 53.0)
    same(_C.trapezoid(_C.tensor([[1, 2, 3], [4, 5, 6]]), dim=0), [2.5, 3.5, 4.5], _C.float32)
    same(_C.trapezoid(_C.tensor([[1, 2, 3], [4, 5, 6]])), [4.0, 10.0])
    same(_C.trapezoid(_C.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), _C.tensor([[0.0, 1.0, 3.0], [0.0, 2.0, 3.0]])), [6.5, 14.5])
    same(_C.trapezoid(_C.zeros(2, 0)), [0.0, 0.0])
    same(_C.trapz(y, dx=2), 43.0)
    same(_C.trapz(y, _C.tensor([0.0, 1.0, 3.0, 6.0])), 53.0)
    raises(RuntimeError, "trapezoid: There must be one `x` value for each sample point", lambda: _C.trapezoid(y, _C.tensor([0.0, 1.0])))
    raises(NotImplementedError, "trapezoid: received a bool input for `y`, but bool is not supported", lambda: _C.trapezoid(_C.tensor([True, False])))


def test_cov_corrcoef():
    x = _C.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.5]])
    same(_C.cov(x), [[1.0, -0.75], [-0.75, 0.5833333333]], _C.float32)
    same(x.cov(correction=0), [[0.6666666667, -0.5], [-0.5, 0.3888888889]])
    same(_C.cov(x, fweights=_C.tensor([1, 2, 1]), aweights=_C.tensor([0.5, 1.0, 2.0])), [[0.6428571429, -0.4285714286], [-0.4285714286, 0.3035714286]], rel=1e-5)
    same(_C.cov(_C.tensor([1, 2, 4])), 2.3333333333, _C.float32)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = _C.cov(_C.tensor([1.0]))
    assert math.isnan(r.tolist())
    assert [str(m.message) for m in w] == [
        "cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of observations."
    ]
    raises(RuntimeError, "cov(): expected fweights to have integral dtype but got fweights with Float dtype", lambda: _C.cov(x, fweights=_C.tensor([1.0, 2.0, 1.0])))
    raises(RuntimeError, "cov(): expected aweights to have floating point dtype but got aweights with Long dtype", lambda: _C.cov(x, aweights=_C.tensor([1, 2, 1])))
    raises(RuntimeError, "cov(): fweights cannot be negative", lambda: _C.cov(x, fweights=_C.tensor([1, -2, 1])))
    raises(RuntimeError, "cov(): expected input to have two or fewer dimensions but got an input with 3 dimensions", lambda: _C.cov(_C.zeros(2, 2, 2)))
    same(_C.corrcoef(x), [[1.0, -0.9819805061], [-0.9819805061, 1.0]], _C.float32)
    same(_C.corrcoef(_C.tensor([1.0, 2.0, 4.0])), 1.0)
    same(_C.tensor([[1, 2, 4], [3, 1, 0]]).corrcoef(), [[1.0, -0.9285714286], [-0.9285714286, 1.0]], _C.float32)


# ---- element ops --------------------------------------------------------------------------------


def test_heaviside_gcd_lcm_nextafter():
    same(_C.heaviside(_C.tensor([-1.5, 0.0, 2.0, NAN]), _C.tensor([0.5])), [0.0, 0.5, 1.0, 0.0], _C.float32)
    same(_C.tensor([-1, 0, 2]).heaviside(_C.tensor([7])), [0, 7, 1], _C.int64)
    same(_C.heaviside(_C.tensor([True, False]), _C.tensor([True])), [True, True], _C.bool)
    raises(RuntimeError, "heaviside is not yet implemented for tensors with different dtypes.", lambda: _C.heaviside(_C.tensor([-1, 0, 2]), _C.tensor([7.0])))
    with pytest.raises(TypeError):
        _C.heaviside(_C.tensor([-1, 0, 2]), 7)
    same(_C.gcd(_C.tensor([12, -18, 0, 0]), _C.tensor([8, 12, 5, 0])), [4, 6, 5, 0], _C.int64)
    same(_C.lcm(_C.tensor([12, -18, 0, 4]), _C.tensor([8, 12, 5, -6])), [24, 36, 0, 12], _C.int64)
    same(_C.gcd(_C.tensor([12], dtype=_C.uint8), _C.tensor([8], dtype=_C.int8)), [4], _C.int16)
    raises(NotImplementedError, "\"gcd_cpu\" not implemented for 'Float'", lambda: _C.gcd(_C.tensor([12.0]), _C.tensor([8.0])))
    raises(NotImplementedError, "\"gcd_cpu\" not implemented for 'Bool'", lambda: _C.gcd(_C.tensor([True]), _C.tensor([True])))
    r = _C.nextafter(_C.tensor([1.0, 0.0]), _C.tensor([2.0, -1.0]))
    assert r.tolist() == [1.0000001192092896, -1.401298464324817e-45]
    d = _C.tensor([1.0, 0.0], dtype=_C.float64)
    r = _C.nextafter(d, _C.tensor([2.0, -1.0], dtype=_C.float64)) - d
    assert r.tolist() == [2.220446049250313e-16, -5e-324]
    assert _C.nextafter(_C.tensor([1.0]), _C.tensor([2.0], dtype=_C.float64)).dtype == _C.float64
    raises(NotImplementedError, "\"nextafter_cpu\" not implemented for 'Long'", lambda: _C.nextafter(_C.tensor([1, 0]), _C.tensor([2, -1])))


def test_sinc_i0():
    same(_C.sinc(_C.tensor([0.0, 0.5, 1.0, -2.5, INF])), [1.0, 0.6366197723675814, -2.7827534e-08, 0.12732395447351627, NAN], _C.float32, rel=1e-5, abs_=1e-12)
    same(_C.sinc(_C.tensor([0, 1])), [1.0, -2.7827534e-08], _C.float32, rel=1e-5, abs_=1e-12)
    same(_C.i0(_C.tensor([0.0, 1.0, -2.5, 10.0, 100.0], dtype=_C.float64)), [1.0, 1.2660658777520082, 3.2898391440501231, 2815.716628466254, 1.0737517071310738e42], _C.float64, rel=1e-13)
    same(_C.i0(_C.tensor([0.0, 1.0, -2.5, 10.0, 100.0])), [1.0, 1.2660658777520082, 3.2898391440501231, 2815.716628466254, INF], _C.float32, rel=1e-6)
    # torch: NaN at ±inf (its Cephes form computes inf * 0 there)
    same(_C.i0(_C.tensor([INF, -INF, NAN])), [NAN, NAN, NAN])


def test_sinc_gradient():
    x = _C.tensor([0.0, 0.5, 1.25], dtype=_C.float64, requires_grad=True)
    _C.sinc(x).sum().backward()
    # torch 2.15: x.grad
    same(x.grad, [0.0, -1.2732395447351625, -0.4216348143641011], rel=1e-12, abs_=1e-15)


def test_sign_and_inf_predicates():
    same(_C.signbit(_C.tensor([-0.0, 0.0, -1.0, NAN, -NAN])), [True, False, True, False, True], _C.bool)
    same(_C.tensor([-3, 0, 3]).signbit(), [True, False, False])
    same(_C.signbit(_C.tensor([True])), [False])
    same(_C.isposinf(_C.tensor([INF, -INF, 1.0])), [True, False, False], _C.bool)
    same(_C.isneginf(_C.tensor([INF, -INF, 1.0])), [False, True, False])
    same(_C.isneginf(_C.tensor([1, 2])), [False, False])
    same(_C.isreal(_C.tensor([1.0, NAN])), [True, True], _C.bool)
    out = _C.zeros(3, dtype=_C.bool)
    assert _C.isposinf(_C.tensor([INF, -INF, 1.0]), out=out) is out and out.tolist() == [True, False, False]


def test_ldexp_float_power():
    same(_C.ldexp(_C.tensor([1.0, 3.0]), _C.tensor([2, -1])), [4.0, 1.5], _C.float32)
    same(_C.ldexp(_C.tensor([1, 3]), _C.tensor([2, -1])), [4.0, 1.5], _C.float32)
    same(_C.tensor([1.0, 3.0], dtype=_C.float64).ldexp(_C.tensor([2, 10])), [4.0, 3072.0], _C.float64)
    same(_C.float_power(_C.tensor([2, 3]), 2), [4.0, 9.0], _C.float64)
    same(_C.float_power(_C.tensor([2.0, 3.0]), _C.tensor([0.5, -1])), [1.4142135623730951, 0.3333333333333333], _C.float64, rel=1e-12)
    same(_C.float_power(2, _C.tensor([0.5, -1])), [1.4142135623730951, 0.5], _C.float64, rel=1e-12)
    t = _C.tensor([2.0, 3.0], dtype=_C.float64)
    assert t.float_power_(2) is t and t.tolist() == [4.0, 9.0]
    t = _C.tensor([2.0, 3.0], dtype=_C.float64)
    assert t.float_power_(_C.tensor([0.5, 2.0])) is t
    same(t, [1.4142135623730951, 9.0], rel=1e-12)
    raises(RuntimeError, "the base given to float_power_ has dtype Float but the operation's result requires dtype Double", lambda: _C.tensor([2.0, 3.0]).float_power_(2))


# ---- nanmedian, frexp, scalar_tensor, addbmm ----------------------------------------------------


def test_nanmedian():
    same(_C.nanmedian(_C.tensor([1.0, NAN, 3.0, 2.0])), 2.0, _C.float32)
    same(_C.nanmedian(_C.tensor([NAN, NAN])), NAN)
    same(_C.tensor([], dtype=_C.float32).nanmedian(), NAN)
    same(_C.nanmedian(_C.tensor([3, 1, 2, 4])), 2, _C.int64)
    x = _C.tensor([[2.0, NAN, 1.0], [NAN, NAN, NAN], [5.0, 5.0, 1.0]])
    r = _C.nanmedian(x, 1)
    assert type(r).__name__ == "nanmedian"
    same(r.values, [1.0, NAN, 5.0])
    same(r.indices, [2, 0, 0], _C.int64)
    r = x.nanmedian(0, keepdim=True)
    same(r.values, [[2.0, 5.0, 1.0]])
    same(r.indices, [[0, 2, 0]])
    same(_C.tensor([[2.0, 2.0, 2.0]]).nanmedian(1).indices, [1])
    r = _C.nanmedian(_C.zeros(2, 0), 0)
    assert r.values.shape == (0,) and r.indices.dtype == _C.int64
    r = _C.nanmedian(_C.tensor(5.0), 0)
    assert r.values.tolist() == 5.0 and r.indices.tolist() == 0
    raises(IndexError, "median(): Expected reduction dim 1 to have non-zero size.", lambda: _C.nanmedian(_C.zeros(2, 0), 1))
    raises(NotImplementedError, "\"median_cpu\" not implemented for 'Bool'", lambda: _C.nanmedian(_C.tensor([True, False])))


def test_frexp():
    r = _C.frexp(_C.tensor([8.0, 0.3, 0.0, -5.0, INF, NAN, -0.0, 1e-40]))
    assert type(r).__name__ == "frexp"
    same(r.mantissa, [0.5, 0.6000000238418579, 0.0, -0.625, INF, NAN, -0.0, 0.5444488525390625], _C.float32, rel=1e-6)
    same(r.exponent, [4, -1, 0, 3, 0, 0, 0, -132], _C.int32)
    r = _C.tensor([8.0], dtype=_C.float64).frexp()
    same(r.mantissa, [0.5], _C.float64)
    raises(RuntimeError, "torch.frexp() only supports floating-point dtypes", lambda: _C.frexp(_C.tensor([8, 1])))


def test_scalar_tensor():
    t = _C.scalar_tensor(3)
    assert t.shape == () and t.dtype == _C.float32 and t.tolist() == 3.0
    assert _C.scalar_tensor(3.5, dtype=_C.float64).dtype == _C.float64
    assert _C.scalar_tensor(True).tolist() == 1.0


def test_addbmm():
    b1, b2 = _C.ones(3, 2, 4), _C.ones(3, 4, 2)
    same(_C.addbmm(_C.ones(2, 2), b1, b2), [[13.0, 13.0], [13.0, 13.0]], _C.float32)
    same(_C.ones(2).addbmm(b1, b2, beta=0.5, alpha=2), [[24.5, 24.5], [24.5, 24.5]])
    same(_C.addbmm(_C.full((2, 2), NAN), b1, b2, beta=0), [[12.0, 12.0], [12.0, 12.0]])
    one = _C.ones(3, 2, 4, dtype=_C.int64)
    same(_C.addbmm(_C.ones(2, 2, dtype=_C.int64), one, _C.ones(3, 4, 2, dtype=_C.int64)), [[13, 13], [13, 13]], _C.int64)
    t = _C.ones(2, 2)
    assert t.addbmm_(b1, b2) is t and t.tolist() == [[13.0, 13.0], [13.0, 13.0]]
    out = _C.zeros(2, 2)
    assert _C.addbmm(_C.ones(2, 2), b1, b2, out=out) is out and out.tolist() == [[13.0, 13.0], [13.0, 13.0]]
    raises(RuntimeError, "batch1 and batch2 must have same number of batches, got 3 and 2", lambda: _C.addbmm(_C.ones(2, 2), b1, _C.ones(2, 4, 2)))
    raises(RuntimeError, "The expanded size of the tensor (4) must match the existing size (2) at non-singleton dimension 0.  Target sizes: [4, 2].  Tensor sizes: [2, 2]", lambda: _C.addbmm(_C.ones(2, 2), _C.ones(2, 4), _C.ones(2, 4, 2)))
    raises(RuntimeError, "Incompatible matrix sizes for bmm (2x4 and 5x2)", lambda: _C.addbmm(_C.ones(2, 2), b1, _C.ones(3, 5, 2)))
    raises(RuntimeError, "self and mat2 must have the same dtype, but got Float and Double", lambda: _C.addbmm(_C.ones(2, 2), b1, _C.ones(3, 4, 2, dtype=_C.float64)))


def test_addbmm_gradient():
    x = _C.ones(2, 2, dtype=_C.float64, requires_grad=True)
    b1 = _C.arange(12, dtype=_C.float64).reshape(3, 2, 2).requires_grad_()
    b2 = _C.ones(3, 2, 2, dtype=_C.float64, requires_grad=True)
    _C.addbmm(x, b1, b2, beta=0.5, alpha=2).sum().backward()
    # torch 2.15
    same(x.grad, [[0.5, 0.5], [0.5, 0.5]])
    same(b1.grad, [[[4.0, 4.0], [4.0, 4.0]]] * 3)
    same(b2.grad, [[[4.0, 4.0], [8.0, 8.0]], [[20.0, 20.0], [24.0, 24.0]], [[36.0, 36.0], [40.0, 40.0]]])


def test_gcd_lcm_wrap_in_the_dtype():
    # torch 2.15: abs(-128) wraps in int8, and lcm's product wraps in int16
    same(_C.gcd(_C.tensor([-128, -128, 100], dtype=_C.int8), _C.tensor([0, -128, -128], dtype=_C.int8)), [-128, -128, 4], _C.int8)
    same(_C.addbmm(_C.ones(2, 2, dtype=_C.int64), _C.ones(1, 2, 2, dtype=_C.int64), _C.ones(1, 2, 2, dtype=_C.int64), beta=0.6, alpha=2.7), [[4, 4], [4, 4]], _C.int64)


def test_logcumsumexp_gradient():
    x = _C.tensor([[0.5, -1.0, 2.0], [1.0, 3.0, -2.0]], dtype=_C.float64, requires_grad=True)
    w = _C.tensor([[1.0, -2.0, 0.5], [0.0, 1.0, 3.0]], dtype=_C.float64)
    (_C.logcumsumexp(x, 1) * w).sum().backward()
    # torch 2.15
    same(x.grad, [[-0.5475037563172689, -0.345294760977369, 0.3927985172946379], [0.4747018856271464, 3.507598863167146, 0.017699251205708345]], rel=1e-12)
    assert _C.logcumsumexp(x, 1).grad_fn.name() == "LogcumsumexpBackward0"


def test_trapezoid_of_a_0_dim_input():
    # found by the fuzz suite (an index panic before); torch 2.15's errors and values
    raises(IndexError, "Dimension specified as -1 but tensor has no dimensions", lambda: _C.trapezoid(_C.tensor(1.0), dx=0))
    raises(IndexError, "Dimension specified as 0 but tensor has no dimensions", lambda: _C.trapezoid(_C.tensor(1.0), _C.tensor(2.0)))
    same(_C.trapezoid(_C.tensor([1.0, 2.0]), _C.tensor(2.0)), 0.0)
