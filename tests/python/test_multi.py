"""Ops returning several tensors: max/min (all, dim, other), sort, topk, kthvalue, median(dim),
mode, aminmax, split/chunk/unbind, nonzero, unique — values (torch's, written out), dtypes
(indices int64), ties, NaN, keepdim, negative dims, errors (torch's texts), and the named-tuple
results (`_C.return_types.<op>` structseqs: fields, indexing, unpacking, pickling)."""

import pickle

import pytest

import _C
from tensor_asserts import same  # noqa: E402

# ---------------------------------------------------------------------------------------------
# helpers


nan = float("nan")
inf = float("inf")

# ---------------------------------------------------------------------------------------------
# max / min


def test_max_min_all():
    x = _C.tensor([[1.0, 5.0, -2.0], [3.0, 0.5, 4.0]])
    same(_C.max(x), 5.0, _C.float32)
    same(_C.min(x), -2.0, _C.float32)
    same(x.max(), 5.0, _C.float32)
    same(x.min(), -2.0, _C.float32)
    same(_C.max(_C.tensor([1, 7, 3])), 7, _C.int64)
    same(_C.max(_C.tensor([False, True])), True, _C.bool)
    same(_C.max(_C.tensor([1.0, nan, 2.0])), nan, _C.float32)
    same(_C.min(_C.tensor([1.0, nan, 2.0])), nan, _C.float32)


def test_max_min_empty_error():
    with pytest.raises(RuntimeError, match=r"max\(\): Expected reduction dim to be specified for input.numel\(\) == 0"):
        _C.max(_C.zeros([0]))
    with pytest.raises(RuntimeError, match=r"min\(\): Expected reduction dim to be specified"):
        _C.min(_C.zeros([2, 0]))


def test_max_min_dim():
    x = _C.tensor([[1.0, 5.0, -2.0], [3.0, 0.5, 4.0]])
    v, i = _C.max(x, 1)
    same(v, [5.0, 4.0], _C.float32)
    same(i, [1, 2], _C.int64)
    v, i = _C.min(x, 0)
    same(v, [1.0, 0.5, -2.0], _C.float32)
    same(i, [0, 1, 0], _C.int64)
    r = x.max(dim=-1, keepdim=True)
    same(r.values, [[5.0], [4.0]], _C.float32)
    same(r.indices, [[1], [2]], _C.int64)
    r = x.min(-2, True)
    same(r.values, [[1.0, 0.5, -2.0]], _C.float32)
    same(r.indices, [[0, 1, 0]], _C.int64)


def test_max_min_dim_ties_first_occurrence():
    x = _C.tensor([[2, 7, 7, 1], [3, 3, 1, 1]])
    v, i = _C.max(x, 1)
    same(v, [7, 3], _C.int64)
    same(i, [1, 0], _C.int64)
    v, i = _C.min(x, 1)
    same(v, [1, 1], _C.int64)
    same(i, [3, 2], _C.int64)


def test_max_min_dim_nan():
    x = _C.tensor([1.0, nan, 3.0, nan])
    v, i = _C.max(x, 0)
    same(v, nan, _C.float32)
    same(i, 1, _C.int64)
    v, i = _C.min(x, 0)
    same(v, nan, _C.float32)
    same(i, 1, _C.int64)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64"])
def test_max_dim_dtypes(dtype):
    dt = getattr(_C, dtype)
    x = _C.tensor([[0, 1], [1, 0]], dtype=dt)
    v, i = _C.max(x, 1)
    same(v, [True, True] if dt is _C.bool else [1.0, 1.0] if dt.is_floating_point else [1, 1], dt)
    same(i, [1, 0], _C.int64)


def test_max_dim_zero_dim_and_empty():
    v, i = _C.max(_C.tensor(3.5), 0)
    same(v, 3.5, _C.float32)
    same(i, 0, _C.int64)
    v, i = _C.max(_C.zeros([0, 3]), 1)
    assert v.shape == (0,) and i.shape == (0,)
    with pytest.raises(IndexError, match=r"max\(\): Expected reduction dim 0 to have non-zero size."):
        _C.max(_C.zeros([0, 3]), 0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.max(_C.zeros([2, 3]), 2)


def test_max_min_non_contiguous():
    x = _C.tensor([[1.0, 5.0], [3.0, 0.5], [4.0, 4.0]]).transpose(0, 1)  # [[1, 3, 4], [5, 0.5, 4]]
    v, i = x.max(1)
    same(v, [4.0, 5.0], _C.float32)
    same(i, [2, 0], _C.int64)


def test_max_min_other():
    a = _C.tensor([1.0, 5.0, nan])
    b = _C.tensor([2.0, 3.0, 1.0])
    same(_C.max(a, b), [2.0, 5.0, nan], _C.float32)
    same(_C.min(a, b), [1.0, 3.0, nan], _C.float32)
    same(a.max(b), [2.0, 5.0, nan], _C.float32)
    same(_C.max(_C.tensor([1, 4]), _C.tensor([[3.0], [2.0]])), [[3.0, 4.0], [2.0, 4.0]], _C.float32)


# ---------------------------------------------------------------------------------------------
# named-tuple results


def test_named_tuple_protocol():
    x = _C.tensor([[1.0, 5.0, -2.0], [3.0, 0.5, 4.0]])
    r = _C.max(x, 1)
    assert type(r).__name__ == "max"
    assert type(r).__module__ == "_C.return_types"
    assert isinstance(r, tuple) and len(r) == 2
    assert r[0] is r.values and r[1] is r.indices
    v, i = r
    same(v, [5.0, 4.0], _C.float32)
    same(i, [1, 2], _C.int64)
    assert type(_C.min(x, 0)).__name__ == "min"
    assert type(x.sort()).__name__ == "sort"
    assert type(_C.topk(x, 1)).__name__ == "topk"
    assert type(_C.kthvalue(x, 1)).__name__ == "kthvalue"
    assert type(_C.median(x, 1)).__name__ == "median"
    assert type(_C.mode(x)).__name__ == "mode"
    r = _C.aminmax(x)
    assert type(r).__name__ == "aminmax"
    same(r.min, -2.0, _C.float32)
    same(r.max, 5.0, _C.float32)


def test_named_tuple_pickle():
    r = _C.max(_C.tensor([[1.0, 5.0], [3.0, 0.5]]), 1)
    r2 = pickle.loads(pickle.dumps(r))
    assert type(r2) is type(r)
    same(r2.values, [5.0, 3.0], _C.float32)
    same(r2.indices, [1, 0], _C.int64)


# ---------------------------------------------------------------------------------------------
# sort / topk


def test_sort_values():
    x = _C.tensor([[3.0, 1.0, 2.0], [0.0, -1.0, 5.0]])
    v, i = _C.sort(x)
    same(v, [[1.0, 2.0, 3.0], [-1.0, 0.0, 5.0]], _C.float32)
    same(i, [[1, 2, 0], [1, 0, 2]], _C.int64)
    r = x.sort(0, descending=True)
    same(r.values, [[3.0, 1.0, 5.0], [0.0, -1.0, 2.0]], _C.float32)
    same(r.indices, [[0, 0, 1], [1, 1, 0]], _C.int64)
    r = _C.sort(x, dim=-1, descending=True)
    same(r.values, [[3.0, 2.0, 1.0], [5.0, 0.0, -1.0]], _C.float32)
    same(r.indices, [[0, 2, 1], [2, 0, 1]], _C.int64)


def test_sort_stable_ties():
    x = _C.tensor([2, 1, 2, 1, 0])
    v, i = _C.sort(x, stable=True)
    same(v, [0, 1, 1, 2, 2], _C.int64)
    same(i, [4, 1, 3, 0, 2], _C.int64)
    v, i = _C.sort(x, descending=True, stable=True)
    same(v, [2, 2, 1, 1, 0], _C.int64)
    same(i, [0, 2, 1, 3, 4], _C.int64)


def test_sort_nan():
    x = _C.tensor([nan, 1.0, -inf, 3.0])
    v, i = _C.sort(x)
    same(v, [-inf, 1.0, 3.0, nan], _C.float32)
    same(i, [2, 1, 3, 0], _C.int64)
    v, i = _C.sort(x, descending=True)
    same(v, [nan, 3.0, 1.0, -inf], _C.float32)
    same(i, [0, 3, 1, 2], _C.int64)


def test_sort_dtypes_and_zero_dim():
    v, i = _C.sort(_C.tensor([True, False, True]))
    same(v, [False, True, True], _C.bool)
    same(i, [1, 0, 2], _C.int64)
    v, i = _C.sort(_C.tensor([3, -1], dtype=_C.int8))
    same(v, [-1, 3], _C.int8)
    z = _C.tensor(2.5)
    v, i = _C.sort(z)
    same(v, 2.5, _C.float32)
    same(i, 0, _C.int64)
    assert v is not z
    v, i = _C.topk(z, 1)
    same(v, 2.5, _C.float32)
    same(i, 0, _C.int64)
    mn, mx = _C.aminmax(z, dim=0)
    same(mn, 2.5, _C.float32)
    assert mn is not z and mx is not z
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.sort(_C.zeros([2]), 1)


def test_topk():
    x = _C.tensor([[1.0, 7.0, 3.0, 5.0], [9.0, -2.0, 4.0, 0.0]])
    v, i = _C.topk(x, 2)
    same(v, [[7.0, 5.0], [9.0, 4.0]], _C.float32)
    same(i, [[1, 3], [0, 2]], _C.int64)
    r = x.topk(2, largest=False)
    same(r.values, [[1.0, 3.0], [-2.0, 0.0]], _C.float32)
    same(r.indices, [[0, 2], [1, 3]], _C.int64)
    r = _C.topk(x, 1, dim=0)
    same(r.values, [[9.0, 7.0, 4.0, 5.0]], _C.float32)
    same(r.indices, [[1, 0, 1, 0]], _C.int64)
    r = _C.topk(x, 0)
    assert r.values.shape == (2, 0) and r.indices.dtype is _C.int64
    r = _C.topk(_C.tensor([1, 5, 3]), 3)
    same(r.values, [5, 3, 1], _C.int64)
    same(r.indices, [1, 2, 0], _C.int64)


def test_topk_nan_counts_as_largest():
    v, i = _C.topk(_C.tensor([1.0, nan, 3.0]), 2)
    same(v, [nan, 3.0], _C.float32)
    same(i, [1, 2], _C.int64)
    v, i = _C.topk(_C.tensor([1.0, nan, 3.0]), 2, largest=False)
    same(v, [1.0, 3.0], _C.float32)
    same(i, [0, 2], _C.int64)


def test_topk_errors():
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        _C.topk(_C.tensor([1.0, 2.0]), 3)
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        _C.topk(_C.tensor([1.0, 2.0]), -1)
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.topk(_C.tensor([1.0, 2.0]), 1, 1)


# ---------------------------------------------------------------------------------------------
# kthvalue / median / mode


def test_kthvalue():
    x = _C.tensor([[4.0, 1.0, 3.0], [0.0, 9.0, -5.0]])
    v, i = _C.kthvalue(x, 2)
    same(v, [3.0, 0.0], _C.float32)
    same(i, [2, 0], _C.int64)
    r = x.kthvalue(1, 0, True)
    same(r.values, [[0.0, 1.0, -5.0]], _C.float32)
    same(r.indices, [[1, 0, 1]], _C.int64)
    v, i = _C.kthvalue(_C.tensor([5, 2, 8]), 3)
    same(v, 8, _C.int64)
    same(i, 2, _C.int64)
    v, i = _C.kthvalue(_C.tensor([1.0, nan, 0.0]), 3)
    same(v, nan, _C.float32)
    same(i, 1, _C.int64)


def test_kthvalue_errors():
    with pytest.raises(RuntimeError, match=r"kthvalue\(\): selected number k out of range for dimension 0"):
        _C.kthvalue(_C.tensor([1.0, 2.0]), 3)
    with pytest.raises(RuntimeError, match=r"kthvalue\(\): selected number k out of range for dimension 1"):
        _C.kthvalue(_C.zeros([2, 2]), 0, -1)


def test_median_dim():
    x = _C.tensor([[4.0, 1.0, 3.0, 2.0], [0.0, 9.0, -5.0, 7.0]])
    v, i = _C.median(x, 1)
    same(v, [2.0, 0.0], _C.float32)
    same(i, [3, 0], _C.int64)
    r = x.median(0, keepdim=True)
    same(r.values, [[0.0, 1.0, -5.0, 2.0]], _C.float32)
    same(r.indices, [[1, 0, 1, 0]], _C.int64)
    v, i = _C.median(_C.tensor([[1.0, nan, 2.0, nan]]), -1)
    same(v, [nan], _C.float32)
    same(i, [1], _C.int64)
    v, i = _C.median(_C.tensor([7, 1, 4]), 0)
    same(v, 4, _C.int64)
    same(i, 2, _C.int64)
    # the all-elements form still works
    same(_C.median(x), 2.0, _C.float32)
    with pytest.raises(IndexError, match=r"median\(\): Expected reduction dim 1 to have non-zero size."):
        _C.median(_C.zeros([2, 0]), 1)


def test_mode():
    x = _C.tensor([[1, 2, 2, 3], [5, 5, 4, 4]])
    v, i = _C.mode(x)
    same(v, [2, 4], _C.int64)
    same(i, [2, 3], _C.int64)
    r = x.mode(0)
    same(r.values, [1, 2, 2, 3], _C.int64)
    same(r.indices, [0, 0, 0, 0], _C.int64)
    v, i = _C.mode(_C.tensor([3.0, 1.0, 3.0]), keepdim=True)
    same(v, [3.0], _C.float32)
    same(i, [2], _C.int64)


# ---------------------------------------------------------------------------------------------
# aminmax


def test_aminmax():
    x = _C.tensor([[1.0, 5.0, -2.0], [3.0, 0.5, 4.0]])
    mn, mx = _C.aminmax(x)
    same(mn, -2.0, _C.float32)
    same(mx, 5.0, _C.float32)
    r = x.aminmax(dim=1)
    same(r.min, [-2.0, 0.5], _C.float32)
    same(r.max, [5.0, 4.0], _C.float32)
    r = _C.aminmax(x, dim=0, keepdim=True)
    same(r.min, [[1.0, 0.5, -2.0]], _C.float32)
    same(r.max, [[3.0, 5.0, 4.0]], _C.float32)
    r = _C.aminmax(x, keepdim=True)
    same(r.min, [[-2.0]], _C.float32)
    r = _C.aminmax(_C.tensor([3, 9, -1]))
    same(r.min, -1, _C.int64)
    same(r.max, 9, _C.int64)
    r = _C.aminmax(_C.tensor([1.0, nan]))
    same(r.min, nan, _C.float32)
    same(r.max, nan, _C.float32)
    with pytest.raises(RuntimeError, match=r"aminmax\(\): cannot compute aminmax over an empty dimension"):
        _C.aminmax(_C.zeros([0]))
    with pytest.raises(TypeError):
        _C.aminmax(x, 1)  # dim is keyword-only


# ---------------------------------------------------------------------------------------------
# split / chunk / unbind


def test_split():
    x = _C.arange(10).reshape([5, 2])
    parts = _C.split(x, 2)
    assert type(parts) is tuple and len(parts) == 3
    same(parts[0], [[0, 1], [2, 3]], _C.int64)
    same(parts[2], [[8, 9]], _C.int64)
    parts = x.split(1, dim=1)
    assert len(parts) == 2
    same(parts[1], [[1], [3], [5], [7], [9]], _C.int64)
    parts = x.split([1, 4])
    assert [p.shape for p in parts] == [(1, 2), (4, 2)]
    same(parts[0], [[0, 1]], _C.int64)
    parts = _C.split(x, [1, 1], -1)
    same(parts[0], [[0], [2], [4], [6], [8]], _C.int64)
    # views
    parts[0][0, 0] = 100
    assert x[0, 0].item() == 100
    assert _C.split(x, 7)[0].shape == (5, 2)
    assert len(_C.split(_C.zeros([0]), 0)) == 1


def test_split_errors():
    x = _C.zeros([3])
    with pytest.raises(RuntimeError, match="split expects split_size be non-negative, but got split_size=-1"):
        _C.split(x, -1)
    with pytest.raises(RuntimeError, match="split_size can only be 0 if dimension size is 0, but got dimension size of 3"):
        _C.split(x, 0)
    with pytest.raises(RuntimeError, match=r"split_with_sizes expects split_sizes to sum exactly to 3 \(input tensor's size at dimension 0\), but got split_sizes=\[1, 1\]"):
        _C.split(x, [1, 1])
    with pytest.raises(RuntimeError, match="split expects at least a 1-dimensional tensor"):
        _C.split(_C.tensor(1.0), 1)


def test_chunk():
    x = _C.arange(5)
    parts = _C.chunk(x, 2)
    assert type(parts) is tuple
    same(parts[0], [0, 1, 2], _C.int64)
    same(parts[1], [3, 4], _C.int64)
    assert [p.tolist() for p in x.chunk(4)] == [[0, 1], [2, 3], [4]]
    assert len(_C.chunk(_C.arange(6), 4)) == 3
    assert [p.shape for p in _C.chunk(_C.zeros([2, 3]), 3, dim=1)] == [(2, 1)] * 3
    assert len(_C.chunk(_C.zeros([0]), 3)) == 3
    with pytest.raises(RuntimeError, match="chunk expects `chunks` to be greater than 0, got: 0"):
        _C.chunk(x, 0)


def test_unbind():
    x = _C.tensor([[1, 2, 3], [4, 5, 6]])
    a, b = _C.unbind(x)
    same(a, [1, 2, 3], _C.int64)
    same(b, [4, 5, 6], _C.int64)
    cols = x.unbind(-1)
    assert len(cols) == 3
    same(cols[2], [3, 6], _C.int64)
    cols[0][1] = 40
    assert x[1, 0].item() == 40
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        _C.unbind(_C.tensor(1))


# ---------------------------------------------------------------------------------------------
# nonzero / unique


def test_nonzero():
    x = _C.tensor([[0.0, 1.5, 0.0], [nan, 0.0, -2.0]])
    same(_C.nonzero(x), [[0, 1], [1, 0], [1, 2]], _C.int64)
    same(x.nonzero(), [[0, 1], [1, 0], [1, 2]], _C.int64)
    assert _C.nonzero(_C.zeros([2, 2])).shape == (0, 2)
    assert _C.nonzero(_C.tensor(3)).shape == (1, 0)
    same(_C.nonzero(_C.tensor([True, False, True])), [[0], [2]], _C.int64)


def test_nonzero_as_tuple():
    x = _C.tensor([[0, 3, 0], [7, 0, 1]])
    rows, cols = _C.nonzero(x, as_tuple=True)
    same(rows, [0, 1, 1], _C.int64)
    same(cols, [1, 0, 2], _C.int64)
    (i,) = x.nonzero(as_tuple=True)[:1]
    same(i, [0, 1, 1], _C.int64)
    r = _C.nonzero(_C.tensor(5), as_tuple=True)
    assert len(r) == 1
    same(r[0], [0], _C.int64)
    # as_tuple=False spelled out: the tensor itself, as torch
    n = _C.nonzero(x, as_tuple=False)
    same(n, [[0, 1], [1, 0], [1, 2]], _C.int64)


def test_unique():
    x = _C.tensor([[3, 1, 3], [2, 1, 1]])
    u = _C.unique(x)
    same(u, [1, 2, 3], _C.int64)
    same(x.unique(), [1, 2, 3], _C.int64)
    u, inv = _C.unique(x, return_inverse=True)
    same(u, [1, 2, 3], _C.int64)
    same(inv, [[2, 0, 2], [1, 0, 0]], _C.int64)
    u, c = _C.unique(x, return_counts=True)
    same(c, [3, 1, 2], _C.int64)
    u, inv, c = x.unique(True, True, True)
    same(inv, [[2, 0, 2], [1, 0, 0]], _C.int64)
    same(c, [3, 1, 2], _C.int64)
    same(_C.unique(_C.tensor([2.5, -1.0, 2.5])), [-1.0, 2.5], _C.float32)
    same(_C.unique(_C.tensor([True, True])), [True], _C.bool)
    assert _C.unique(_C.zeros([0])).shape == (0,)
    # unique(dim=): whole slices, sorted lexicographically (torch 2.15's values).
    same(_C.unique(x, dim=0), [[2, 1, 1], [3, 1, 3]], _C.int64)
    same(_C.unique(x, dim=1), [[1, 3, 3], [1, 1, 2]], _C.int64)
