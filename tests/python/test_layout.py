"""Layout ops: narrow, flip, roll, repeat, tile, movedim, swapaxes/swapdims, unflatten,
squeeze with a tuple of dims, tril/triu, diag, diagonal, trace, outer, gather, scatter,
index_select, masked_fill, masked_select, take — values (torch's, written out), dtypes, which
results are views (sharing storage), out= and errors (torch's behaviour)."""

import pytest

import _C
from tensor_asserts import same  # noqa: E402

# ---------------------------------------------------------------------------------------------
# helpers


def shares(a, b):
    """Writing through `a` is visible in `b` (a view of one storage)."""
    before = b.tolist()
    a.fill_(99)
    return b.tolist() != before


def ar(*shape, dtype=None):
    n = 1
    for s in shape:
        n *= s
    return _C.arange(n, dtype=dtype or _C.int64).reshape(shape)


M = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]  # ar(3, 4)


# ---------------------------------------------------------------------------------------------
# narrow


@pytest.mark.parametrize(
    "dim,start,length,expected",
    [
        (0, 0, 2, [[0, 1, 2, 3], [4, 5, 6, 7]]),
        (0, 1, 2, [[4, 5, 6, 7], [8, 9, 10, 11]]),
        (1, 1, 2, [[1, 2], [5, 6], [9, 10]]),
        (-1, -2, 2, [[2, 3], [6, 7], [10, 11]]),
        (-2, -3, 1, [[0, 1, 2, 3]]),
        (1, 4, 0, [[], [], []]),
        (0, 3, 0, []),
    ],
)
def test_narrow(dim, start, length, expected):
    x = ar(3, 4)
    r = _C.narrow(x, dim, start, length)
    same(r, expected, _C.int64)
    same(x.narrow(dim, start, length), expected, _C.int64)


def test_narrow_is_view():
    x = ar(3, 4)
    r = _C.narrow(x, 1, 1, 2)
    assert r.stride() == (4, 1)
    assert shares(r, x)
    assert x.tolist() == [[0, 99, 99, 3], [4, 99, 99, 7], [8, 99, 99, 11]]


def test_narrow_errors():
    x = ar(3, 4)
    with pytest.raises(RuntimeError, match=r"narrow\(\) cannot be applied to a 0-dim tensor\."):
        _C.narrow(_C.tensor(1), 0, 0, 1)
    with pytest.raises(IndexError, match=r"start out of range \(expected to be in range of \[-3, 3\], but got 4\)"):
        _C.narrow(x, 0, 4, 0)
    with pytest.raises(RuntimeError, match=r"start \(1\) \+ length \(3\) exceeds dimension size \(3\)\."):
        _C.narrow(x, 0, 1, 3)
    with pytest.raises(RuntimeError, match=r"narrow\(\): length must be non-negative\."):
        _C.narrow(x, 0, 0, -1)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        _C.narrow(x, 2, 0, 1)


# ---------------------------------------------------------------------------------------------
# flip, roll


@pytest.mark.parametrize(
    "dims,expected",
    [
        ((0,), [[8, 9, 10, 11], [4, 5, 6, 7], [0, 1, 2, 3]]),
        ((1,), [[3, 2, 1, 0], [7, 6, 5, 4], [11, 10, 9, 8]]),
        ((-1,), [[3, 2, 1, 0], [7, 6, 5, 4], [11, 10, 9, 8]]),
        ((0, 1), [[11, 10, 9, 8], [7, 6, 5, 4], [3, 2, 1, 0]]),
        ([-2, -1], [[11, 10, 9, 8], [7, 6, 5, 4], [3, 2, 1, 0]]),
        ((), M),
    ],
)
def test_flip(dims, expected):
    x = ar(3, 4)
    r = _C.flip(x, dims)
    same(r, expected, _C.int64)
    assert r.is_contiguous()
    assert not shares(r, x)  # a copy
    same(ar(3, 4).flip(dims), expected, _C.int64)


def test_flip_misc_and_errors():
    same(_C.flip(ar(3, 4).transpose(0, 1), (0,)), [[3, 7, 11], [2, 6, 10], [1, 5, 9], [0, 4, 8]], _C.int64)
    same(_C.flip(_C.tensor([1.5, 2.5]), 0), [2.5, 1.5], _C.float32)
    same(_C.flip(_C.tensor(3), (0,)), 3, _C.int64)
    same(_C.flip(_C.zeros(0), (0,)), [], _C.float32)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        _C.flip(ar(3, 4), (0, -2))
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.flip(ar(3, 4), (2,))


@pytest.mark.parametrize(
    "shifts,dims,expected",
    [
        (1, (), [[11, 0, 1, 2], [3, 4, 5, 6], [7, 8, 9, 10]]),
        (-1, (), [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 0]]),
        (1, 0, [[8, 9, 10, 11], [0, 1, 2, 3], [4, 5, 6, 7]]),
        (5, 1, [[3, 0, 1, 2], [7, 4, 5, 6], [11, 8, 9, 10]]),
        (-1, -1, [[1, 2, 3, 0], [5, 6, 7, 4], [9, 10, 11, 8]]),
        ((1, 2), (0, 1), [[10, 11, 8, 9], [2, 3, 0, 1], [6, 7, 4, 5]]),
        ((1, 1), (1, 1), [[2, 3, 0, 1], [6, 7, 4, 5], [10, 11, 8, 9]]),
        (0, 0, M),
    ],
)
def test_roll(shifts, dims, expected):
    x = ar(3, 4)
    r = _C.roll(x, shifts, dims)
    same(r, expected, _C.int64)
    assert not shares(r, x)
    same(ar(3, 4).roll(shifts, dims), expected, _C.int64)


def test_roll_misc_and_errors():
    same(_C.roll(_C.tensor([1, 2, 3]), 1), [3, 1, 2], _C.int64)
    same(_C.roll(ar(3, 4).transpose(0, 1), 1, 0), [[3, 7, 11], [0, 4, 8], [1, 5, 9], [2, 6, 10]], _C.int64)
    same(_C.roll(_C.zeros(0), 1), [], _C.float32)
    with pytest.raises(RuntimeError, match="shifts and dimensions must align. shifts: 2, dims:1"):
        _C.roll(ar(3, 4), (1, 2), 0)
    with pytest.raises(RuntimeError, match="`shifts` required"):
        _C.roll(ar(3, 4), ())
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.roll(ar(3, 4), 1, 2)


# ---------------------------------------------------------------------------------------------
# repeat, tile


@pytest.mark.parametrize(
    "reps,expected",
    [
        ((2,), [1, 2, 1, 2]),
        ((2, 2), [[1, 2, 1, 2], [1, 2, 1, 2]]),
        ((1, 1), [[1, 2]]),
        ((2, 1, 0), [[[]], [[]]]),
        ((3, 1), [[1, 2], [1, 2], [1, 2]]),
    ],
)
def test_repeat(reps, expected):
    x = _C.tensor([1, 2])
    same(x.repeat(reps), expected, _C.int64)
    same(x.repeat(*reps), expected, _C.int64)
    r = x.repeat(*reps)
    assert r.is_contiguous()


def test_repeat_2d_and_errors():
    x = _C.tensor([[1, 2], [3, 4]])
    same(x.repeat(1, 2), [[1, 2, 1, 2], [3, 4, 3, 4]], _C.int64)
    same(x.repeat(2, 1), [[1, 2], [3, 4], [1, 2], [3, 4]], _C.int64)
    same(x.transpose(0, 1).repeat(1, 2), [[1, 3, 1, 3], [2, 4, 2, 4]], _C.int64)
    same(_C.tensor(5.0).repeat(2), [5.0, 5.0], _C.float32)
    assert not hasattr(_C, "repeat")
    with pytest.raises(RuntimeError, match="Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"):
        x.repeat(2)
    with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -2: \[-2, 2\]"):
        x.repeat(-1, 1)


@pytest.mark.parametrize(
    "dims,expected",
    [
        ((2,), [[1, 2, 1, 2], [3, 4, 3, 4]]),
        ((2, 1), [[1, 2], [3, 4], [1, 2], [3, 4]]),
        ((1, 2, 1), [[[1, 2], [3, 4], [1, 2], [3, 4]]]),
        ((), [[1, 2], [3, 4]]),
    ],
)
def test_tile(dims, expected):
    x = _C.tensor([[1, 2], [3, 4]])
    same(_C.tile(x, dims), expected, _C.int64)
    same(x.tile(dims), expected, _C.int64)


# ---------------------------------------------------------------------------------------------
# movedim, swapaxes, swapdims, unflatten, squeeze(dims)


@pytest.mark.parametrize(
    "src,dst,shape",
    [
        (0, 2, (3, 4, 2)),
        (-1, 0, (4, 2, 3)),
        (1, 1, (2, 3, 4)),
        ((0, 1), (2, 0), (3, 4, 2)),
        ((0, 2), (-1, 0), (4, 3, 2)),
        ([2], [0], (4, 2, 3)),
        ((), (), (2, 3, 4)),
    ],
)
def test_movedim(src, dst, shape):
    x = ar(2, 3, 4)
    r = _C.movedim(x, src, dst)
    assert r.shape == shape
    assert x.movedim(src, dst).shape == shape
    assert shares(r, x)


def test_movedim_values_and_errors():
    same(_C.movedim(ar(2, 3), 0, 1), [[0, 3], [1, 4], [2, 5]], _C.int64)
    with pytest.raises(RuntimeError, match=r"movedim: Invalid source or destination dims: source \(2 dims\) should contain the same number of dims as destination \(1 dims\)"):
        _C.movedim(ar(2, 3, 4), (0, 1), (2,))
    with pytest.raises(RuntimeError, match=r"movedim: repeated dim in `source` \(\[0, 0\]\)"):
        _C.movedim(ar(2, 3, 4), (0, 0), (1, 2))
    with pytest.raises(RuntimeError, match=r"movedim: repeated dim in `destination` \(\[1, -2\]\)"):
        _C.movedim(ar(2, 3, 4), (0, 2), (1, -2))
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.movedim(ar(2, 3, 4), 3, 0)


@pytest.mark.parametrize("fn", ["swapaxes", "swapdims"])
def test_swapaxes_swapdims(fn):
    x = ar(2, 3)
    r = getattr(_C, fn)(x, 0, 1)
    same(r, [[0, 3], [1, 4], [2, 5]], _C.int64)
    assert r.stride() == (1, 3)
    assert shares(r, x)
    same(getattr(ar(2, 3), fn)(-1, -2), [[0, 3], [1, 4], [2, 5]], _C.int64)
    with pytest.raises(IndexError, match="Dimension out of range"):
        getattr(_C, fn)(x, 0, 2)


@pytest.mark.parametrize(
    "dim,sizes,shape",
    [
        (1, (2, 2), (3, 2, 2)),
        (-1, (4, 1), (3, 4, 1)),
        (0, (1, 3), (1, 3, 4)),
        (1, (-1, 2), (3, 2, 2)),
        (1, [2, -1], (3, 2, 2)),
        (0, (3,), (3, 4)),
    ],
)
def test_unflatten(dim, sizes, shape):
    x = ar(3, 4)
    r = _C.unflatten(x, dim, sizes)
    assert r.shape == shape
    assert r.tolist() == _C.reshape(ar(3, 4), shape).tolist()
    assert x.unflatten(dim, sizes).shape == shape
    assert shares(r, x)


def test_unflatten_errors():
    with pytest.raises(RuntimeError, match=r"unflatten: Provided sizes \[2, 3\] don't multiply up to the size of dim 1 \(4\) in the input tensor"):
        _C.unflatten(ar(3, 4), 1, (2, 3))
    with pytest.raises(RuntimeError, match="unflatten: sizes must be non-empty"):
        _C.unflatten(ar(3, 4), 1, ())
    with pytest.raises(RuntimeError, match=r"shape '\[-1, 3\]' is invalid for input of size 4"):
        _C.unflatten(ar(3, 4), 1, (-1, 3))
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.unflatten(ar(3, 4), 2, (2, 2))
    with pytest.raises(RuntimeError, match=r"unflatten: Provided sizes \[5\] don't multiply up to the size of dim 1 \(4\) in the input tensor"):
        _C.unflatten(ar(3, 4), -1, (5,))
    with pytest.raises(IndexError, match="dimension specified as 0 but tensor has no dimensions"):
        _C.unflatten(_C.tensor(1), 0, (1,))


@pytest.mark.parametrize(
    "dims,shape",
    [
        ((0,), (3, 1, 2)),
        ((0, 2), (3, 2)),
        ((2, 0), (3, 2)),
        ((-2, -4), (3, 2)),
        ((-1, -3), (1, 3, 1, 2)),
        ((1,), (1, 3, 1, 2)),
        ((), (1, 3, 1, 2)),
        ((0, 1, 2, 3), (3, 2)),
    ],
)
def test_squeeze_dims(dims, shape):
    x = _C.zeros(1, 3, 1, 2)
    r = _C.squeeze(x, dims)
    assert r.shape == shape
    assert x.squeeze(dims).shape == shape
    assert shares(r, x)


def test_squeeze_dims_errors_and_old_forms():
    x = _C.zeros(1, 3, 1)
    assert _C.squeeze(x).shape == (3,)
    assert _C.squeeze(x, 0).shape == (3, 1)
    assert _C.squeeze(_C.tensor(1.0), (0,)).shape == ()
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        _C.squeeze(x, (0, -3))
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.squeeze(x, (3,))


# ---------------------------------------------------------------------------------------------
# tril, triu, diag, diagonal, trace, outer


@pytest.mark.parametrize(
    "k,lower,upper",
    [
        (0, [[0, 0, 0, 0], [4, 5, 0, 0], [8, 9, 10, 0]], [[0, 1, 2, 3], [0, 5, 6, 7], [0, 0, 10, 11]]),
        (1, [[0, 1, 0, 0], [4, 5, 6, 0], [8, 9, 10, 11]], [[0, 1, 2, 3], [0, 0, 6, 7], [0, 0, 0, 11]]),
        (-1, [[0, 0, 0, 0], [4, 0, 0, 0], [8, 9, 0, 0]], [[0, 1, 2, 3], [4, 5, 6, 7], [0, 9, 10, 11]]),
        (-5, [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], M),
    ],
)
def test_tril_triu(k, lower, upper):
    x = ar(3, 4)
    same(_C.tril(x, k), lower, _C.int64)
    same(_C.triu(x, diagonal=k), upper, _C.int64)
    same(x.tril(k), lower, _C.int64)
    same(x.triu(k), upper, _C.int64)
    assert x.tolist() == M


def test_tril_triu_batched_out_errors():
    x = _C.ones(2, 2, 2, dtype=_C.bool)
    same(_C.tril(x), [[[True, False], [True, True]]] * 2, _C.bool)
    same(_C.triu(ar(2, 3).transpose(0, 1)), [[0, 3], [0, 4], [0, 0]], _C.int64)
    out = _C.zeros(3, 4, dtype=_C.int64)
    assert _C.triu(ar(3, 4), out=out) is out
    same(out, [[0, 1, 2, 3], [0, 5, 6, 7], [0, 0, 10, 11]], _C.int64)
    with pytest.raises(RuntimeError, match="tril: input tensor must have at least 2 dimensions"):
        _C.tril(_C.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="triu: input tensor must have at least 2 dimensions"):
        _C.triu(_C.tensor(1))


@pytest.mark.parametrize(
    "k,expected",
    [
        (0, [[1, 0, 0], [0, 2, 0], [0, 0, 3]]),
        (1, [[0, 1, 0, 0], [0, 0, 2, 0], [0, 0, 0, 3], [0, 0, 0, 0]]),
        (-1, [[0, 0, 0, 0], [1, 0, 0, 0], [0, 2, 0, 0], [0, 0, 3, 0]]),
    ],
)
def test_diag_1d(k, expected):
    same(_C.diag(_C.tensor([1, 2, 3]), k), expected, _C.int64)
    same(_C.tensor([1, 2, 3]).diag(diagonal=k), expected, _C.int64)


@pytest.mark.parametrize(
    "k,expected",
    [(0, [0, 5, 10]), (1, [1, 6, 11]), (3, [3]), (4, []), (-1, [4, 9]), (-3, [])],
)
def test_diag_2d_and_diagonal(k, expected):
    x = ar(3, 4)
    r = _C.diag(x, k)
    same(r, expected, _C.int64)
    assert not shares(r, x)
    v = _C.diagonal(x, k)
    same(v, expected, _C.int64)
    same(x.diagonal(offset=k), expected, _C.int64)
    if expected:
        assert shares(v, x)


def test_diag_out_and_errors():
    out = _C.zeros(3, dtype=_C.int64)
    assert _C.diag(ar(3, 4), out=out) is out
    same(out, [0, 5, 10], _C.int64)
    same(_C.diag(_C.tensor([1.5])), [[1.5]], _C.float32)
    with pytest.raises(RuntimeError, match=r"diag\(\): Supports 1D or 2D tensors. Got 3D"):
        _C.diag(ar(2, 2, 2))
    with pytest.raises(RuntimeError, match=r"diag\(\): Supports 1D or 2D tensors. Got 0D"):
        _C.diag(_C.tensor(1))


def test_diagonal_dims():
    x = ar(2, 3, 4)
    r = _C.diagonal(x, 0, 1, 2)
    same(r, [[0, 5, 10], [12, 17, 22]], _C.int64)
    assert r.stride() == (12, 5)
    same(_C.diagonal(x, dim1=0, dim2=2), [[0, 13], [4, 17], [8, 21]], _C.int64)
    same(_C.diagonal(x, 1, -1, 0), [[12], [16], [20]], _C.int64)
    same(_C.diagonal(x, -1, 2, 1), [[1, 6, 11], [13, 18, 23]], _C.int64)
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical 1, -2"):
        _C.diagonal(x, 0, 1, -2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.diagonal(x, 0, 0, 3)


def test_trace():
    same(_C.trace(ar(3, 4)), 15, _C.int64)
    same(ar(3, 4, dtype=_C.int32).trace(), 15, _C.int64)
    same(_C.trace(_C.tensor([[1.5, 2.0], [3.0, 4.0]])), 5.5, _C.float32)
    same(_C.trace(ar(3, 4).transpose(0, 1)), 15, _C.int64)
    with pytest.raises(RuntimeError, match="trace: expected a matrix, but got tensor with dim 1"):
        _C.trace(_C.tensor([1, 2]))


def test_outer():
    a, b = _C.tensor([1, 2]), _C.tensor([1.5, 0.0, -1.0])
    same(_C.outer(a, b), [[1.5, 0.0, -1.0], [3.0, 0.0, -2.0]], _C.float32)
    same(a.outer(a), [[1, 2], [2, 4]], _C.int64)
    same(_C.outer(_C.tensor([1, 2], dtype=_C.int8), _C.tensor([3], dtype=_C.int32)), [[3], [6]], _C.int32)
    out = _C.zeros(2, 2, dtype=_C.int64)
    assert _C.outer(a, a, out=out) is out
    same(out, [[1, 2], [2, 4]], _C.int64)
    with pytest.raises(RuntimeError, match="outer: Expected 1-D argument self, but got 2-D"):
        _C.outer(ar(2, 2), a)
    with pytest.raises(RuntimeError, match="outer: Expected 1-D argument vec2, but got 0-D"):
        _C.outer(a, _C.tensor(1))


# ---------------------------------------------------------------------------------------------
# gather, scatter


@pytest.mark.parametrize(
    "dim,index,expected",
    [
        (0, [[0, 1, 2, 0]], [[0, 5, 10, 3]]),
        (0, [[2, 2], [0, 1]], [[8, 9], [0, 5]]),
        (1, [[3, 0], [1, 1], [2, 0]], [[3, 0], [5, 5], [10, 8]]),
        (-1, [[0], [3], [1]], [[0], [7], [9]]),
        (-2, [[1, 1, 1, 1]], [[4, 5, 6, 7]]),
    ],
)
def test_gather(dim, index, expected):
    x = ar(3, 4)
    same(_C.gather(x, dim, _C.tensor(index)), expected, _C.int64)
    same(x.gather(dim, _C.tensor(index)), expected, _C.int64)
    same(_C.gather(x.double(), dim, _C.tensor(index)), [[float(v) for v in r] for r in expected], _C.float64)


def test_gather_out_and_errors():
    x = ar(3, 4)
    out = _C.zeros(1, 2, dtype=_C.int64)
    assert _C.gather(x, 1, _C.tensor([[1, 2]]), out=out) is out
    same(out, [[1, 2]], _C.int64)
    same(_C.gather(x.transpose(0, 1), 0, _C.tensor([[2, 0, 1]])), [[2, 4, 9]], _C.int64)
    # torch 2.15 takes int32 indices: torch.gather(x, 1, tensor([[1, 2]], dtype=int32)) == [[1, 2]].
    same(_C.gather(x, 1, _C.tensor([[1, 2]], dtype=_C.int32)), [[1, 2]], _C.int64)
    with pytest.raises(RuntimeError, match=r"^gather\(\): Expected dtype int32/int64 for index$"):
        _C.gather(x, 0, _C.tensor([[0]], dtype=_C.int16))
    with pytest.raises(RuntimeError, match="Index tensor must have the same number of dimensions as input tensor"):
        _C.gather(x, 0, _C.tensor([0]))
    with pytest.raises(RuntimeError, match=r"Size does not match at dimension 1 expected index \[1, 5\] to be smaller than self \[3, 4\] apart from dimension 0"):
        _C.gather(x, 0, _C.zeros(1, 5, dtype=_C.int64))
    with pytest.raises(RuntimeError, match="index 3 is out of bounds for dimension 0 with size 3"):
        _C.gather(x, 0, _C.tensor([[3]]))
    with pytest.raises(RuntimeError, match="index -1 is out of bounds for dimension 1 with size 4"):
        _C.gather(x, 1, _C.tensor([[-1]]))
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.gather(x, 2, _C.tensor([[0]]))


def test_scatter_src():
    x = _C.zeros(3, 4, dtype=_C.int64)
    src = ar(2, 4) + 1
    r = _C.scatter(x, 0, _C.tensor([[0, 1, 2, 0]]), src)
    same(r, [[1, 0, 0, 4], [0, 2, 0, 0], [0, 0, 3, 0]], _C.int64)
    assert x.tolist() == [[0] * 4] * 3  # out of place
    same(x.scatter(1, _C.tensor([[3, 0], [1, 1]]), src), [[2, 0, 0, 1], [0, 6, 0, 0], [0, 0, 0, 0]], _C.int64)
    same(_C.scatter(x, -1, _C.tensor([[2]]), src), [[0, 0, 1, 0], [0, 0, 0, 0], [0, 0, 0, 0]], _C.int64)
    out = _C.zeros(3, 4, dtype=_C.int64)
    assert _C.scatter(x, 0, _C.tensor([[2]]), src, out=out) is out
    same(out, [[0, 0, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0]], _C.int64)


def test_scatter_value():
    x = _C.zeros(2, 3)
    same(_C.scatter(x, 1, _C.tensor([[0, 2], [1, 1]]), 7.5), [[7.5, 0.0, 7.5], [0.0, 7.5, 0.0]], _C.float32)
    same(x.scatter(0, _C.tensor([[1, 0, 1]]), 2), [[0.0, 2.0, 0.0], [2.0, 0.0, 2.0]], _C.float32)
    same(_C.scatter(_C.zeros(3, dtype=_C.int64), 0, _C.tensor([2]), 9), [0, 0, 9], _C.int64)


def test_scatter_errors():
    x = _C.zeros(3, 4)
    # torch 2.15: int32 indices are accepted, int16 ones are not.
    same(_C.scatter(_C.zeros(3), 0, _C.tensor([2], dtype=_C.int32), 9.0), [0, 0, 9], _C.float32)
    same(_C.scatter_add(_C.zeros(3), 0, _C.tensor([2, 2], dtype=_C.int32), _C.ones(2)), [0, 0, 2], _C.float32)
    with pytest.raises(RuntimeError, match=r"^scatter\(\): Expected dtype int32/int64 for index$"):
        _C.scatter(x, 0, _C.tensor([[0]], dtype=_C.int16), 1.0)
    with pytest.raises(RuntimeError, match=r"scatter\(\): Expected self.dtype to be equal to src.dtype"):
        _C.scatter(x, 0, _C.tensor([[0]]), _C.ones(1, 1, dtype=_C.float64))
    with pytest.raises(RuntimeError, match="Index tensor must have the same number of dimensions as self tensor"):
        _C.scatter(x, 0, _C.tensor([0]), 1.0)
    with pytest.raises(RuntimeError, match="index 3 is out of bounds for dimension 0 with size 3"):
        _C.scatter(x, 0, _C.tensor([[3]]), 1.0)
    with pytest.raises(RuntimeError, match=r"Expected index \[1, 2\] to be no larger than self \[3, 4\] apart from dimension 0 and to be no larger size than src \[1, 1\]"):
        _C.scatter(x, 0, _C.tensor([[0, 1]]), _C.ones(1, 1))
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.scatter(x, 2, _C.tensor([[0]]), 1.0)


# ---------------------------------------------------------------------------------------------
# index_select, masked_fill, masked_select, take


@pytest.mark.parametrize(
    "dim,index,expected",
    [
        (0, [2, 0], [[8, 9, 10, 11], [0, 1, 2, 3]]),
        (1, [1, 1, 3], [[1, 1, 3], [5, 5, 7], [9, 9, 11]]),
        (-1, [0], [[0], [4], [8]]),
        (0, [], []),
    ],
)
def test_index_select(dim, index, expected):
    x = ar(3, 4)
    idx = _C.tensor(index, dtype=_C.int64)
    r = _C.index_select(x, dim, idx)
    same(r, expected, _C.int64)
    if index:
        same(x.index_select(dim, _C.tensor(index, dtype=_C.int32)), expected, _C.int64)
        assert not shares(r, x)


def test_index_select_misc_and_errors():
    x = ar(3, 4)
    same(_C.index_select(x, 0, _C.tensor(1)), [[4, 5, 6, 7]], _C.int64)
    same(_C.index_select(x.transpose(0, 1), 0, _C.tensor([3])), [[3, 7, 11]], _C.int64)
    out = _C.zeros(1, 4, dtype=_C.int64)
    assert _C.index_select(x, 0, _C.tensor([2]), out=out) is out
    same(out, [[8, 9, 10, 11]], _C.int64)
    with pytest.raises(IndexError, match="index out of range in self"):
        _C.index_select(x, 0, _C.tensor([3]))
    with pytest.raises(IndexError, match="index out of range in self"):
        _C.index_select(x, 0, _C.tensor([-1]))
    with pytest.raises(IndexError, match=r"index_select\(\): Index is supposed to be a vector"):
        _C.index_select(x, 0, _C.tensor([[0]]))
    with pytest.raises(RuntimeError, match=r"index_select\(\): Expected dtype int32 or int64 for index"):
        _C.index_select(x, 0, _C.tensor([0.0]))
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.index_select(x, 2, _C.tensor([0]))
    with pytest.raises(RuntimeError, match=r"index_select\(\): Index to scalar can have only 1 value, got 2 value\(s\)"):
        _C.index_select(_C.tensor(5), 0, _C.tensor([0, 0]))
    # torch: a 0-dim input gives a 0-dim result (torch.index_select(tensor(5), 0, tensor([0]))
    # has shape []), with a 1-dim or a 0-dim index.
    same(_C.index_select(_C.tensor(5), 0, _C.tensor([0])), 5, _C.int64)
    same(_C.index_select(_C.tensor(5), 0, _C.tensor(0)), 5, _C.int64)


def test_masked_fill():
    x = ar(2, 3)
    m = _C.tensor([[True, False, True], [False, False, True]])
    same(_C.masked_fill(x, m, -1), [[-1, 1, -1], [3, 4, -1]], _C.int64)
    same(x.masked_fill(m, 2.7), [[2, 1, 2], [3, 4, 2]], _C.int64)  # cast like torch
    same(_C.masked_fill(x.double(), m, 0.5), [[0.5, 1.0, 0.5], [3.0, 4.0, 0.5]], _C.float64)
    same(_C.masked_fill(x, m, _C.tensor(9)), [[9, 1, 9], [3, 4, 9]], _C.int64)
    same(_C.masked_fill(x, m, _C.tensor(9.9)), [[9, 1, 9], [3, 4, 9]], _C.int64)
    same(_C.masked_fill(x, _C.tensor([False, True, False]), 0), [[0, 0, 2], [3, 0, 5]], _C.int64)
    same(_C.masked_fill(_C.tensor([1, 2]), _C.tensor([[True], [False]]), 0), [[0, 0], [1, 2]], _C.int64)
    same(_C.masked_fill(x.transpose(0, 1), _C.tensor(True), 7), [[7, 7], [7, 7], [7, 7]], _C.int64)
    assert x.tolist() == [[0, 1, 2], [3, 4, 5]]


def test_masked_fill_errors():
    x = ar(2, 3)
    with pytest.raises(RuntimeError, match="masked_fill_ only supports boolean masks, but got mask with dtype long int"):
        _C.masked_fill(x, _C.tensor([1, 0, 1]), 0)
    with pytest.raises(RuntimeError, match="masked_fill_ only supports boolean masks, but got mask with dtype unsigned char"):
        _C.masked_fill(x, _C.tensor([1, 0, 1], dtype=_C.uint8), 0)
    with pytest.raises(RuntimeError, match="masked_fill_ only supports boolean masks, but got mask with dtype float"):
        _C.masked_fill(x, _C.tensor([1.0, 0.0, 1.0]), 0)
    with pytest.raises(RuntimeError, match=r"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension\(s\)\."):
        _C.masked_fill(x, _C.tensor([True, False, True]), _C.tensor([1]))
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
        _C.masked_fill(_C.tensor([1], dtype=_C.uint8), _C.tensor([True]), 300)
    with pytest.raises(RuntimeError, match="The size of tensor a"):
        _C.masked_fill(x, _C.tensor([True, False]), 0)


def test_masked_select():
    x = ar(2, 3)
    m = _C.tensor([[True, False, True], [False, False, True]])
    same(_C.masked_select(x, m), [0, 2, 5], _C.int64)
    same(x.masked_select(_C.tensor([False, True, True])), [1, 2, 4, 5], _C.int64)
    same(_C.masked_select(x.transpose(0, 1), _C.tensor([[True, True], [False, False], [True, False]])), [0, 3, 2], _C.int64)
    same(_C.masked_select(_C.tensor([1.5, 2.5]), _C.tensor([[True], [False], [True]])), [1.5, 2.5, 1.5, 2.5], _C.float32)
    same(_C.masked_select(x, _C.tensor(False)), [], _C.int64)
    out = _C.zeros(3, dtype=_C.int64)
    assert _C.masked_select(x, m, out=out) is out
    same(out, [0, 2, 5], _C.int64)
    with pytest.raises(RuntimeError, match="masked_select: expected BoolTensor for mask"):
        _C.masked_select(x, _C.tensor([1, 0, 1]))
    with pytest.raises(RuntimeError, match="The size of tensor a"):
        _C.masked_select(x, _C.tensor([True, False]))


def test_take():
    x = ar(2, 3)
    same(_C.take(x, _C.tensor([0, 5, -1, -6])), [0, 5, 5, 0], _C.int64)
    same(x.take(_C.tensor([[1, 2], [3, 4]])), [[1, 2], [3, 4]], _C.int64)
    same(_C.take(x.transpose(0, 1), _C.tensor([1, 2])), [3, 1], _C.int64)
    same(_C.take(x.double(), _C.tensor(4)), 4.0, _C.float64)
    out = _C.zeros(2, dtype=_C.int64)
    assert _C.take(x, _C.tensor([1, 1]), out=out) is out
    same(out, [1, 1], _C.int64)
    with pytest.raises(IndexError, match=r"out of range: tried to access index 6 on a tensor of 6 elements\."):
        _C.take(x, _C.tensor([6]))
    with pytest.raises(IndexError, match=r"out of range: tried to access index -7 on a tensor of 6 elements\."):
        _C.take(x, _C.tensor([-7]))
    with pytest.raises(RuntimeError, match=r"take\(\): Expected a long tensor for index, but got Int"):
        _C.take(x, _C.tensor([0], dtype=_C.int32))
