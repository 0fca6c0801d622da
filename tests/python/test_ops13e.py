"""tests/python/test_ops13e.py: issue 13, the last OpInfo names — nonzero_static,
as_strided_scatter, Tensor.resize_ / resize_as_ (and the function resize_as_), geqrf, ormqr,
linalg.polar, linalg.matrix_sqrth and histogramdd.

Expected values and error texts were recorded from torch 2.15 (float64 results printed with 17
digits), never from _C; `make conformance` checks the same ops on OpInfo's samples.
"""

import pytest

import _C
from tensor_asserts import same

F64 = _C.float64


# ---- nonzero_static ------------------------------------------------------------------------------


def test_nonzero_static_pads_and_truncates():
    x = _C.tensor([[0, 1, 0], [2, 0, 3]])
    same(_C.nonzero_static(x, size=5, fill_value=7), [[0, 1], [1, 0], [1, 2], [7, 7], [7, 7]], _C.int64)
    same(x.nonzero_static(size=2), [[0, 1], [1, 0]], _C.int64)
    same(_C.nonzero_static(x, size=4), [[0, 1], [1, 0], [1, 2], [-1, -1]], _C.int64)
    assert _C.nonzero_static(x, size=0).shape == (0, 2)
    # A 0-dim input has no coordinates: [size, 0], as torch.
    assert _C.nonzero_static(_C.tensor(3.0), size=2).shape == (2, 0)


def test_nonzero_static_errors():
    x = _C.tensor([1, 0])
    with pytest.raises(RuntimeError, match=r"^nonzero_static: 'size' must be an non-negative integer$"):
        _C.nonzero_static(x, size=-1)
    with pytest.raises(TypeError):
        _C.nonzero_static(x, 2)  # size is keyword-only
    with pytest.raises(TypeError):
        _C.nonzero_static(x, size=2, fill_value=1.5)


# ---- as_strided_scatter --------------------------------------------------------------------------


def test_as_strided_scatter():
    a = _C.zeros(3, 3)
    r = _C.as_strided_scatter(a, _C.ones(2, 2), (2, 2), (1, 2), 1)
    same(r, [[0.0, 1.0, 1.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.0]], _C.float32)
    assert a.tolist() == [[0.0] * 3] * 3  # input untouched
    same(a.as_strided_scatter(_C.ones(2, 2), (2, 2), (3, 1)), [[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.0]], _C.float32)
    # A strided input keeps its strides and offset (torch's clone_preserve_strides); the default
    # storage offset is the input's own.
    col = _C.arange(9.0).reshape(3, 3)[:, 1]
    r = _C.as_strided_scatter(col, _C.tensor([10.0, 20.0]), (2,), (3,))
    same(r, [10.0, 20.0, 7.0], _C.float32)
    assert r.stride() == (3,)
    out = _C.empty(0)
    assert _C.as_strided_scatter(_C.zeros(2), _C.ones(1), (1,), (1,), out=out) is out
    same(out, [1.0, 0.0], _C.float32)


def test_as_strided_scatter_errors():
    a = _C.zeros(3, 3)
    with pytest.raises(
        RuntimeError,
        match=r"^expected src to have a size equal to the slice of self. src size = \[3\], slice size = \[2, 2\]$",
    ):
        _C.as_strided_scatter(a, _C.ones(3), (2, 2), (1, 2))
    with pytest.raises(RuntimeError, match=r"^setStorage: sizes \[2, 2\], strides \[3, 1\], storage offset 8, and itemsize 4 requiring a storage size of 52 are out of bounds for storage of size 36$"):
        _C.as_strided_scatter(a, _C.ones(2, 2), (2, 2), (3, 1), 8)


def test_as_strided_scatter_gradient():
    x = _C.arange(6.0, dtype=_C.float64).requires_grad_()
    s = _C.ones(2, dtype=_C.float64, requires_grad=True)
    y = _C.as_strided_scatter(x, s, (2,), (2,), 1)
    assert y.grad_fn.name() == "AsStridedScatterBackward0"
    g = _C.arange(6.0, dtype=_C.float64) * 10
    gx, gs = _C.autograd.grad(y, (x, s), g)
    # src: the written positions of grad (torch 2.15: [10., 30.]).
    same(gs, [10.0, 30.0], _C.float64)
    # self: grad with the overwritten positions 1 and 3 zeroed (the op's derivative, computed by
    # hand; torch 2.15 returns the complement, [0, 10, 0, 30, 0, 0]: README, deliberate difference).
    same(gx, [0.0, 0.0, 20.0, 0.0, 40.0, 50.0], _C.float64)
    x2 = _C.arange(6.0, dtype=_C.float64).reshape(2, 3).requires_grad_()
    s2 = _C.ones(2, 2, dtype=_C.float64, requires_grad=True)
    assert _C.autograd.gradcheck(
        lambda a, b: _C.as_strided_scatter(a, b, (2, 2), (1, 3), 0), (x2, s2)
    )
    assert _C.autograd.gradgradcheck(
        lambda a, b: _C.as_strided_scatter(a, b, (2, 2), (1, 3), 0), (x2, s2)
    )


def test_as_strided_scatter_non_contiguous_input_requiring_grad():
    # torch 2.15 refuses it (its derivative assumes a contiguous input).
    x = _C.arange(6.0).reshape(2, 3).t().requires_grad_()
    with pytest.raises(RuntimeError, match="as_strided_scatter is currently only supported for contiguous inputs"):
        _C.as_strided_scatter(x, _C.ones(2), (2,), (2,), 1)
    # Without requires_grad the strided input is accepted.
    assert _C.as_strided_scatter(x.detach(), _C.ones(2), (2,), (2,), 1).shape == (3, 2)


# ---- resize_ / resize_as_ ------------------------------------------------------------------------


def test_resize_shrinks_keeping_elements():
    x = _C.arange(6.0)
    assert x.resize_(2, 2) is x
    same(x, [[0.0, 1.0], [2.0, 3.0]], _C.float32)
    assert x.stride() == (2, 1)
    # The storage is kept: growing back within it shows the old elements again.
    x = _C.arange(6)
    x.resize_(0)
    assert x.shape == (0,) and x.stride() == (1,)
    x.resize_((2, 2))
    same(x, [[0, 1], [2, 3]], _C.int64)


def test_resize_grows_keeping_elements():
    x = _C.arange(6.0)
    x.resize_([3, 3])
    assert x.shape == (3, 3) and x.stride() == (3, 1)
    assert x.flatten()[:6].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    small = _C.tensor([1, 2])  # inline storage grows too
    small.resize_(2, 3)
    assert small.flatten()[:2].tolist() == [1, 2]
    small = _C.arange(4.0)  # and shrinks, keeping its elements
    small.resize_(0)
    small.resize_(3)
    same(small, [0.0, 1.0, 2.0], _C.float32)


def test_resize_same_shape_keeps_strides():
    x = _C.arange(6.0).reshape(2, 3).t()
    assert x.resize_(3, 2).stride() == (1, 3)
    assert x.resize_(2, 3).stride() == (3, 1)
    same(x, [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], _C.float32)


def test_resize_view_within_storage():
    x = _C.arange(6)
    y = x[2:]
    y.resize_(2, 2)  # at its storage offset 2
    same(y, [[2, 3], [4, 5]], _C.int64)
    assert y._base is x
    y[0, 0] = 9  # still a view of x
    assert x[2].item() == 9


def test_resize_as():
    a = _C.zeros(2)
    assert _C.resize_as_(a, _C.zeros(2, 2)) is a
    assert a.shape == (2, 2) and a.dtype is _C.float32
    assert a.resize_as_(_C.ones(3, dtype=_C.int64)) is a
    assert a.shape == (3,) and a.dtype is _C.float32


def test_resize_errors():
    with pytest.raises(RuntimeError, match="^cannot resize variables that require grad$"):
        _C.zeros(2, requires_grad=True).resize_(3)
    with pytest.raises(RuntimeError, match="^numel: integer multiplication overflow$"):
        _C.zeros(2).resize_(-1)
    with pytest.raises(TypeError):
        _C.zeros(2).resize_(2.5)
    with pytest.raises(TypeError):
        _C.zeros(2).resize_()
    with pytest.raises(TypeError, match=r"^resize_as_\(\): argument 'the_template' \(position 2\) must be Tensor, not int$"):
        _C.resize_as_(_C.zeros(2), 3)
    # Memory of another owner cannot grow (torch's text); shrinking it is fine.
    ext = _C.frombuffer(bytearray(16), dtype=_C.float32)
    with pytest.raises(RuntimeError, match="^Trying to resize storage that is not resizable$"):
        ext.resize_(5)
    assert ext.resize_(2).shape == (2,)
    # torch grows a storage shared with a view for both; tensorbind's cannot grow: an error.
    x = _C.arange(100.0)
    v = x[:10]
    with pytest.raises(RuntimeError, match="^resize_: cannot grow the storage"):
        v.resize_(200)
    with pytest.raises(RuntimeError, match="^resize_: cannot grow the storage"):
        x.resize_(200)
    del v
    x.resize_(200)
    # A tensor that keeps its (<= 16) bytes inside itself cannot share them after a resize.
    s = _C.arange(4.0)
    w = s[:2]
    with pytest.raises(RuntimeError, match="^resize_: cannot resize a tensor of at most 16 bytes"):
        s.resize_(2)
    assert s.resize_(4).shape == (4,) and w.tolist() == [0.0, 1.0]
    assert x.shape == (200,) and x[:100].tolist() == [float(i) for i in range(100)]


def test_resize_refused_under_buffer_export():
    x = _C.arange(4.0)
    m = memoryview(x)
    with pytest.raises(BufferError):
        x.resize_(2)
    m.release()
    assert x.resize_(2).shape == (2,)


# ---- geqrf, ormqr --------------------------------------------------------------------------------

A = [[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]]
GEQRF_A = [
    [-5.916079783099615, -8.282511696339462],
    [0.4337717455676132, 0.632455532033676],
    [0.7229529092793553, 0.39696565406256445],
]
GEQRF_TAU = [1.1690308509457032, 1.72773977620305]


def test_geqrf():
    r = _C.geqrf(_C.tensor(A, dtype=F64))
    # torch.return_types.geqrf, a structseq (no `_fields`, as torch's)
    assert type(r) is _C.return_types.geqrf and r.a is r[0] and r.tau is r[1]
    same(r.a, GEQRF_A, F64, rel=1e-12, abs=1e-12)
    same(r.tau, GEQRF_TAU, F64, rel=1e-12, abs=1e-12)
    # A column already zero below the diagonal gives tau 0 and keeps its sign (LAPACK's dlarfg).
    r = _C.geqrf(_C.tensor([[-2.0, 1.0], [0.0, 1.0]]))
    same(r.a, [[-2.0, 1.0], [0.0, 1.0]], _C.float32)
    same(r.tau, [0.0, 0.0], _C.float32)
    assert _C.geqrf(_C.zeros(2, 0, 3)).tau.shape == (2, 0)


def test_ormqr():
    a, tau = _C.tensor(GEQRF_A, dtype=F64), _C.tensor(GEQRF_TAU, dtype=F64)
    C = _C.tensor([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], dtype=F64)
    same(_C.ormqr(a, tau, C), [
        [0.8283216284513294, 1.340712833643714],
        [-3.839590434982769, -5.46469447957399],
        [2.1380899352993956, 1.827458164395728],
    ], F64, rel=1e-12, abs=1e-12)
    same(_C.ormqr(a, tau, C, transpose=True), [
        [-4.394802124588287, -5.916079783099616],
        [-0.6324555320336751, 0.0],
        [0.5345224838248488, 0.0],
    ], F64, rel=1e-12, abs=1e-12)
    same(_C.ormqr(a, tau, C.t(), left=False), [
        [-4.394802124588287, -0.6324555320336755, 0.534522483824849],
        [-5.916079783099616, 0.0, 0.0],
    ], F64, rel=1e-12, abs=1e-12)


def test_geqrf_ormqr_errors():
    with pytest.raises(RuntimeError, match=r"^torch.geqrf: input must have at least 2 dimensions.$"):
        _C.geqrf(_C.ones(3))
    with pytest.raises(NotImplementedError, match="^\"geqrf_cpu\" not implemented for 'Long'$"):
        _C.geqrf(_C.ones(2, 2, dtype=_C.int64))
    a, tau, C = _C.ones(3, 2), _C.ones(2), _C.ones(3, 2)
    cases = [
        ((_C.ones(3), tau, C), {}, r"input must have at least 2 dimensions."),
        ((a, tau, _C.ones(3)), {}, r"other must have at least 2 dimensions."),
        ((a, _C.ones(4), C), {}, r"tau.shape\[-1\] must be equal to min\(other.shape\[-2\], input.shape\[-1\]\)"),
        ((a, tau, _C.ones(2, 2)), {}, r"other.shape\[-2\] must be equal to input.shape\[-2\]"),
        ((a, tau, _C.ones(2, 2)), {"left": False}, r"other.shape\[-1\] must be equal to input.shape\[-2\]"),
        ((a.expand(2, 3, 2), tau, C.expand(2, 3, 2)), {}, r"Expected tau to have one dimension less than input, but got tau.ndim equal to 1 and input.ndim is equal to 3"),
        ((a, tau, C.expand(2, 3, 2)), {}, r"Expected other to have the same number of dimensions as input, but got other.ndim equal to 3 and input.ndim is equal to 2"),
        ((a.expand(2, 3, 2), _C.ones(3, 2), C.expand(2, 3, 2)), {}, r"Expected batch dimensions of tau to be equal to input.shape\[:-2\], but got \[3\]"),
        ((a, tau.double(), C), {}, r"Expected input and tau to have the same dtype, but input has dtypeFloat and tau has dtype Double"),
    ]
    for args, kw, msg in cases:
        with pytest.raises(RuntimeError, match="^torch.ormqr: " + msg + "$"):
            _C.ormqr(*args, **kw)
    with pytest.raises(NotImplementedError, match="^\"ormqr_cpu\" not implemented for 'Long'$"):
        _C.ormqr(a.long(), tau.long(), C.long())


# ---- linalg.polar, linalg.matrix_sqrth -----------------------------------------------------------


def test_polar():
    r = _C.linalg.polar(_C.tensor(A, dtype=F64))
    assert r._fields == ("U", "H")
    same(r.U, [
        [-0.6393459160909478, 0.7209772729769334],
        [0.5625644328102615, 0.20165345541231475],
        [0.5241736911699175, 0.6629688196069392],
    ], F64, rel=1e-10, abs=1e-10)
    same(r.H, [[3.669215838189422, 4.640781737248572], [4.640781737248572, 6.8893501048517]], F64, rel=1e-10, abs=1e-10)
    r = _C.linalg.polar(_C.zeros(3, 0))
    assert r.U.shape == (3, 0) and r.H.shape == (0, 0)


def test_matrix_sqrth():
    X = _C.linalg.matrix_sqrth(_C.tensor([[4.0, 1.0], [1.0, 3.0]], dtype=F64))
    same(X, [[1.9815776331353152, 0.27083220609417935], [0.27083220609417935, 1.710745427041136]], F64, rel=1e-12, abs=1e-12)
    # Only the lower triangle is read; a negative eigenvalue counts as 0 (torch's values).
    same(_C.linalg.matrix_sqrth(_C.tensor([[1.0, 5.0], [0.0, 4.0]])), [[1.0, 0.0], [0.0, 2.0]], _C.float32)
    same(_C.linalg.matrix_sqrth(_C.tensor([[1.0, 0.0], [0.0, -1.0]])), [[1.0, 0.0], [0.0, 0.0]], _C.float32)
    assert _C.linalg.matrix_sqrth(_C.zeros(2, 0, 0)).shape == (2, 0, 0)


def test_polar_matrix_sqrth_errors():
    with pytest.raises(RuntimeError, match="^linalg.polar: The input tensor A must have at least 2 dimensions.$"):
        _C.linalg.polar(_C.ones(3))
    with pytest.raises(RuntimeError, match="^linalg.polar: input must have at least as many rows as columns, but got 2 by 3 matrices$"):
        _C.linalg.polar(_C.ones(2, 3))
    with pytest.raises(NotImplementedError, match="^linalg.polar: Expected a floating point or complex tensor as input. Got Long$"):
        _C.linalg.polar(_C.ones(3, 2, dtype=_C.int64))
    with pytest.raises(RuntimeError, match="^linalg.matrix_sqrth: A must be batches of square matrices, but they are 2 by 3 matrices$"):
        _C.linalg.matrix_sqrth(_C.ones(2, 3))
    with pytest.raises(NotImplementedError, match="^linalg.matrix_sqrth: Expected a floating point or complex tensor as input. Got Long$"):
        _C.linalg.matrix_sqrth(_C.ones(2, 2, dtype=_C.int64))


# ---- histogramdd ---------------------------------------------------------------------------------

POINTS = [[0.0, 1.0], [1.0, 1.0], [2.0, 0.5], [3.0, 5.0]]


def test_histogramdd_bin_counts():
    r = _C.histogramdd(_C.tensor(POINTS), bins=2)
    assert r._fields == ("hist", "bin_edges") and isinstance(r.bin_edges, tuple)
    same(r.hist, [[2.0, 0.0], [1.0, 1.0]], _C.float32)
    same(r.bin_edges[0], [0.0, 1.5, 3.0], _C.float32)
    same(r.bin_edges[1], [0.5, 2.75, 5.0], _C.float32)
    r = _C.histogramdd(_C.tensor(POINTS, dtype=F64), [2, 3], range=[0, 4, 0, 2], density=True)
    same(r.hist, [[0.0, 0.49999999999999983, 0.0], [0.25, 0.0, 0.0]], F64, rel=1e-12, abs=1e-12)
    same(r.bin_edges[1], [0.0, 0.66666666666666663, 1.33333333333333348, 2.0], F64, rel=1e-15, abs=0)
    # Equal min and max widen by 0.5; no points: [0, 1].
    same(_C.histogramdd(_C.tensor([[1.0, 1.0]]), 2).bin_edges[0], [0.5, 1.0, 1.5], _C.float32)
    same(_C.histogramdd(_C.zeros(0, 2), 2).bin_edges[1], [0.0, 0.5, 1.0], _C.float32)
    assert _C.histogramdd(_C.zeros(2, 2, 2), 2).hist.shape == (2, 2)


def test_histogramdd_edges_and_weights():
    edges = [_C.tensor([0.0, 1.0, 5.0], dtype=F64), _C.tensor([0.0, 2.0], dtype=F64)]
    r = _C.histogramdd(_C.tensor(POINTS, dtype=F64), edges, weight=_C.tensor([1.0, 2.0, 3.0, 4.0], dtype=F64))
    same(r.hist, [[1.0], [5.0]], F64)
    # Decreasing edges hold nothing (torch does not sort them).
    r = _C.histogramdd(_C.tensor(POINTS), [_C.tensor([1.0, 0.0]), _C.tensor([0.0, 2.0])])
    same(r.hist, [[0.0]], _C.float32)


def test_histogramdd_errors():
    x = _C.tensor(POINTS)
    f = "torch.histogramdd: "
    cases = [
        (lambda: _C.histogramdd(_C.arange(3.0), 2), f + "input tensor should have at least 2 dimensions"),
        (lambda: _C.histogramdd(x, [2]), "histogramdd: The size of bins must be equal to the innermost dimension of the input."),
        (lambda: _C.histogramdd(x, 2, range=[0, 1]), f + "for a 2-dimensional histogram range should have 4 elements, but got 2"),
        (lambda: _C.histogramdd(x, 2, range=[1, 0, 0, 1]), f + "min should not exceed max, but got min 1 max 0 for dimension 0"),
        (lambda: _C.histogramdd(x, 2, range=[0, 1, float("nan"), 2]), f + "dimension 1's range [nan, 2] is not finite"),
        (lambda: _C.histogramdd(_C.tensor([[float("inf"), 1.0]]), 2), f + "dimension 0's range [inf, inf] is not finite"),
        (lambda: _C.histogramdd(x, 2, weight=_C.ones(3)), f + "if weight tensor is provided it should have the same shape as the input tensor excluding its innermost dimension, but got input with shape [4, 2] and weight with shape [3]"),
        (lambda: _C.histogramdd(x, 2, weight=_C.ones(4, dtype=F64)), f + "if weight tensor is provided, input tensor and weight tensor should have the same dtype, but got input(float), and weight(double)"),
        (lambda: _C.histogramdd(x, [_C.tensor([0.0, 1.0])]), f + "expected 2 sequences of bin edges for a 2-dimensional histogram but got 1"),
        (lambda: _C.histogramdd(x, [_C.tensor([[0.0, 1.0]]), _C.tensor([0.0, 2.0])]), f + "bins tensor should have one dimension, but got 2 dimensions in the bins tensor for dimension 0"),
        (lambda: _C.histogramdd(x, [_C.tensor([0.0, 1.0]), _C.tensor([0.0, 2.0], dtype=F64)]), f + "input tensor and bins tensors should have the same dtype, but got input with dtype float and bins for dimension 1 with dtype double"),
        (lambda: _C.histogramdd(x, 0), "torch.histogram(): bins must be > 0, but got 0 for dimension 0"),
    ]
    for call, msg in cases:
        with pytest.raises(RuntimeError) as e:
            call()
        assert str(e.value) == msg
    with pytest.raises(NotImplementedError, match="^\"histogramdd\" not implemented for 'Long'$"):
        _C.histogramdd(x.long(), 2)
    with pytest.raises(TypeError):
        _C.histogramdd(x, 2.5)


# ---- linalg.ldl_factor / ldl_factor_ex / ldl_solve -----------------------------------------------

SYM = [[1.0, 2.0, 3.0], [2.0, 1.0, 4.0], [3.0, 4.0, 1.0]]


def test_ldl_factor_bunch_kaufman():
    r = _C.linalg.ldl_factor_ex(_C.tensor(SYM, dtype=F64))
    assert r._fields == ("LD", "pivots", "info")
    # A 2x2 pivot block with rows 2 and 3 interchanged (LAPACK's negative pivots), torch's values.
    same(r.LD, [[1.0, 0.0, 0.0], [3.0, 1.0, 0.0], [1.25, 0.25, -2.5]], F64, rel=1e-14, abs=1e-14)
    same(r.pivots, [-3, -3, 3], _C.int32)
    same(r.info, 0, _C.int32)
    # Only the lower triangle is read.
    upper_junk = _C.tensor([[1.0, 9.0, 9.0], [2.0, 1.0, 9.0], [3.0, 4.0, 1.0]], dtype=F64)
    r2 = _C.linalg.ldl_factor(upper_junk)
    assert r2._fields == ("LD", "pivots")
    assert r2.LD.tolist() == r.LD.tolist()
    # An exactly zero pivot: info says where (1-based); ldl_factor raises (torch's text).
    z = _C.linalg.ldl_factor_ex(_C.zeros(3, 3, dtype=F64))
    same(z.pivots, [1, 2, 3], _C.int32)
    same(z.info, 1, _C.int32)
    with pytest.raises(RuntimeError, match=r"^torch.linalg.ldl_factor: Unknown error code: 1.$"):
        _C.linalg.ldl_factor(_C.zeros(3, 3))
    assert _C.linalg.ldl_factor_ex(_C.zeros(0, 2, 2)).pivots.shape == (0, 2)


def test_ldl_solve():
    r = _C.linalg.ldl_factor(_C.tensor(SYM, dtype=F64))
    B = _C.arange(6.0, dtype=F64).reshape(3, 2)
    same(_C.linalg.ldl_solve(r.LD, r.pivots, B), [[2.0, 2.0], [-0.4, -0.2], [-0.4, -0.2]], F64, rel=1e-12, abs=1e-12)
    # B's batch broadcasts against LD's.
    X = _C.linalg.ldl_solve(r.LD.expand(2, 3, 3), r.pivots.expand(2, 3), B)
    assert X.shape == (2, 3, 2)
    same(X[1], [[2.0, 2.0], [-0.4, -0.2], [-0.4, -0.2]], F64, rel=1e-12, abs=1e-12)


def test_ldl_errors():
    f = "torch.linalg."
    with pytest.raises(RuntimeError, match="^" + f + "ldl_factor_ex: The input tensor A must have at least 2 dimensions.$"):
        _C.linalg.ldl_factor(_C.ones(3))
    with pytest.raises(RuntimeError, match="^" + f + "ldl_factor_ex: A must be batches of square matrices, but they are 2 by 3 matrices$"):
        _C.linalg.ldl_factor_ex(_C.ones(2, 3))
    with pytest.raises(NotImplementedError, match="^" + f + "ldl_factor_ex: Expected a floating point or complex tensor as input. Got Long$"):
        _C.linalg.ldl_factor_ex(_C.ones(2, 2, dtype=_C.int64))
    r = _C.linalg.ldl_factor(_C.tensor(SYM, dtype=F64))
    B = _C.ones(3, 2, dtype=F64)
    with pytest.raises(RuntimeError, match=r"^torch.linalg.ldl_solve: Expected LD.shape\[:-1\] and pivots.shape to be the same, but got pivots with shape \[2\] instead$"):
        _C.linalg.ldl_solve(r.LD, r.pivots[:2], B)
    with pytest.raises(RuntimeError, match="^torch.linalg.ldl_solve: Expected pivots to be integers. Got Float$"):
        _C.linalg.ldl_solve(r.LD, r.pivots.float(), B)
    with pytest.raises(RuntimeError, match="^Expected b and A to have the same dtype, but found b of type Float and A of type Double instead.$"):
        _C.linalg.ldl_solve(r.LD, r.pivots, B.float())
    with pytest.raises(RuntimeError, match="^Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix is 3 by 3 but each b matrix is 2 by 2$"):
        _C.linalg.ldl_solve(r.LD, r.pivots, _C.ones(2, 2, dtype=F64))
    with pytest.raises(IndexError):
        _C.linalg.ldl_solve(r.LD, r.pivots, _C.ones(3, dtype=F64))


# ---- svd_lowrank, pca_lowrank (random: checked by what they must reconstruct) ---------------------


def _max_abs(t):
    return t.abs().max().item()


def test_svd_lowrank_reconstructs_low_rank():
    _C.manual_seed(0)
    A = _C.matmul(_C.randn(2, 8, 3, dtype=F64), _C.randn(2, 3, 5, dtype=F64))  # rank 3
    U, S, V = _C.svd_lowrank(A, q=4)
    assert (U.shape, S.shape, V.shape) == ((2, 8, 4), (2, 4), (2, 5, 4))
    assert _max_abs(U @ _C.diag_embed(S) @ V.mT - A) < 1e-12
    assert _max_abs(S[..., :3] - _C.linalg.svdvals(A)[..., :3]) < 1e-12
    assert _max_abs(U.mT @ U - _C.eye(4, dtype=F64)) < 1e-12
    # A wide input is handled through its transpose; M is subtracted.
    U, S, V = _C.svd_lowrank(A.mT, q=4)
    assert (U.shape, V.shape) == ((2, 5, 4), (2, 8, 4))
    assert _max_abs(U @ _C.diag_embed(S) @ V.mT - A.mT) < 1e-12
    M = A.mean(-2, keepdim=True)
    U, S, V = _C.svd_lowrank(A, q=4, M=M)
    assert _max_abs(U @ _C.diag_embed(S) @ V.mT - (A - M)) < 1e-12


def test_pca_lowrank():
    _C.manual_seed(1)
    A = _C.matmul(_C.randn(8, 2, dtype=F64), _C.randn(2, 5, dtype=F64))
    U, S, V = _C.pca_lowrank(A)
    assert (U.shape, S.shape, V.shape) == ((8, 5), (5,), (5, 5))  # q = min(6, m, n)
    C = A - A.mean(0, keepdim=True)
    assert _max_abs(U @ _C.diag(S) @ V.mT - C) < 1e-12
    U, S, V = _C.pca_lowrank(A, q=2, center=False)
    assert _max_abs(U @ _C.diag(S) @ V.mT - A) < 1e-12
    with pytest.raises(ValueError, match=r"^q\(=6\) must be non-negative integer and not greater than min\(m, n\)=5$"):
        _C.pca_lowrank(A, q=6)
    with pytest.raises(ValueError, match=r"^niter\(=-1\) must be non-negative integer$"):
        _C.pca_lowrank(A, niter=-1)


# ---- known bugs of expected_differences.txt, fixed ----------------------------------------------


def test_norm_nuc():
    x = _C.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=F64)
    same(_C.norm(x, p="nuc"), 5.8309518948453, F64, rel=1e-12)
    same(x.norm(p="nuc", keepdim=True), [[5.8309518948453]], F64, rel=1e-12)
    same(_C.norm(x.expand(2, 2, 2), p="nuc", dim=(1, 2)), [5.8309518948453, 5.8309518948453], F64, rel=1e-12)
    with pytest.raises(RuntimeError, match="^linalg.matrix_norm: dim must be a 2-tuple. Got 0 1 2$"):
        _C.norm(_C.ones(2, 2, 2), p="nuc")
    with pytest.raises(RuntimeError, match="^linalg.matrix_norm: Order abc not supported.$"):
        _C.norm(x, p="abc")


def test_erfc_far_left_is_two():
    same(_C.erfc(_C.tensor([-float("inf"), -30.0, -27.0])), [2.0, 2.0, 2.0], _C.float32, exact=True)


def test_atanh_float32_near_one():
    # torch's float32 values (libm's atanhf); Rust's f32 atanh was 2e-5 relative off here.
    got = _C.atanh(_C.tensor([0.99999, -0.9999, 0.5, 0.999999]))
    same(got, [6.102355480194092, -4.951635837554932, 0.5493061542510986, 7.247732639312744], _C.float32, rel=2e-7, abs=0)


def test_tensordot_int32_folded_pair_keeps_dtype():
    a = _C.ones(2, 1, dtype=_C.int32)
    b = _C.arange(12, dtype=_C.int32).reshape(3, 4)
    same(_C.tensordot(a, b, ([1], [0])), [[12, 15, 18, 21], [12, 15, 18, 21]], _C.int32)


def test_igamma_special_cases_before_nan():
    inf, nan = float("inf"), float("nan")
    a, x = _C.tensor([inf, nan, nan]), _C.tensor([nan, inf, 0.0])
    same(_C.igamma(a, x), [0.0, 1.0, 0.0], _C.float32, exact=True)
    same(_C.igammac(a, x), [1.0, 0.0, 1.0], _C.float32, exact=True)


def test_linspace_logspace_tensor_overloads():
    same(_C.linspace(_C.tensor(1), _C.tensor(2.0), 3), [1.0, 1.5, 2.0], _C.float32)
    msg = r"^linspace only supports 0-dimensional start and end tensors, but got start with 1 dimension\(s\).$"
    with pytest.raises(RuntimeError, match=msg):
        _C.linspace(_C.ones(1), 2, 3)
    with pytest.raises(RuntimeError, match=r"^linspace only supports 0-dimensional start and end tensors, but got end with 1 dimension\(s\).$"):
        _C.linspace(1, _C.ones(2), 3)
    with pytest.raises(
        RuntimeError,
        match=r"^logspace only supports 0-dimensional start and end tensors, but got start with 1 dimension\(s\) and end with 1 dimension\(s\).$",
    ):
        _C.logspace(_C.ones(1), _C.ones(1), 3)
    out = _C.empty(0)
    with pytest.raises(RuntimeError):
        _C.logspace(_C.ones(1), 2, 3, out=out)


def test_inplace_op_on_a_one_element_slice():
    # `x[3:, 3:] -= 1` writes the 1x1 result back onto itself (torch allows it).
    x = _C.zeros(4, 4)
    x[3:, 3:] -= 1
    same(x[3], [0.0, 0.0, 0.0, -1.0], _C.float32)


def test_cond_of_empty_matrices_is_zero():
    # torch's convention: 0 for matrices without elements (a string norm still needs squares).
    same(_C.linalg.cond(_C.zeros(0, 0)), 0.0, _C.float32)
    same(_C.linalg.cond(_C.zeros(2, 0, 0), 1), [0.0, 0.0], _C.float32)
    same(_C.linalg.cond(_C.zeros(0, 3), float("inf")), 0.0, _C.float32)
    assert _C.linalg.cond(_C.zeros(0, 2, 3)).shape == (0,)
    with pytest.raises(RuntimeError, match="^linalg.cond\\(ord=fro\\): A must be batches of square matrices, but they are 0 by 3 matrices$"):
        _C.linalg.cond(_C.zeros(0, 3), "fro")
    with pytest.raises(RuntimeError, match="^linalg.cond\\(ord=1\\): A must be batches of square matrices, but they are 2 by 3 matrices$"):
        _C.linalg.cond(_C.ones(2, 3), 1)
    with pytest.raises(ValueError, match="^linalg.cond got an invalid norm type: 3$"):
        _C.linalg.cond(_C.eye(2), 3)
    with pytest.raises(RuntimeError, match="^linalg.cond: The input tensor must have at least 2 dimensions.$"):
        _C.linalg.cond(_C.ones(3))
    same(_C.linalg.cond(_C.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=F64), 1), 21.0, F64, rel=1e-12)


def test_unique_dim():
    x = _C.tensor([[1, 2], [3, 4], [1, 2], [0, 9]])
    out, inv, counts = _C.unique(x, dim=0, return_inverse=True, return_counts=True)
    same(out, [[0, 9], [1, 2], [3, 4]], _C.int64)
    same(inv, [1, 2, 1, 0], _C.int64)
    same(counts, [1, 2, 1], _C.int64)
    out, inv, counts = x.unique(dim=1, return_inverse=True, return_counts=True)
    same(out, [[1, 2], [3, 4], [1, 2], [0, 9]], _C.int64)
    same(inv, [0, 1], _C.int64)
    same(counts, [1, 1], _C.int64)
    same(_C.unique(_C.tensor([3, 1, 3]), dim=0, sorted=False), [1, 3], _C.int64)
    out, counts = _C.unique(_C.tensor([True, False, True]), dim=0, return_counts=True)
    same(out, [False, True], _C.bool)
    same(counts, [1, 2], _C.int64)
    # NaN slices are never equal (torch's values).
    out = _C.unique(_C.tensor([[1.0, float("nan")], [1.0, float("nan")]]), dim=0)
    assert out.shape == (2, 2)
    out, inv, counts = _C.unique(_C.zeros(2, 0, 3), dim=1, return_inverse=True, return_counts=True)
    assert out.shape == (2, 0, 3) and inv.shape == (0,) and counts.shape == (0,)
    with pytest.raises(RuntimeError, match="^Number of zero sized dimensions is more than one, so unique cannot be applied $"):
        _C.unique(_C.zeros(0, 0), dim=0)
    with pytest.raises(RuntimeError, match="^There are 0 sized dimensions, and they aren't selected, so unique cannot be applied$"):
        _C.unique(_C.zeros(3, 0), dim=0)
    with pytest.raises(IndexError):
        _C.unique(x, dim=2)
