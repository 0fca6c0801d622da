"""Advanced indexing (torch semantics): index tensors (int64/int32), bool/uint8 masks, lists and
nested lists, Python True/False, mixed with ints, slices, None and Ellipsis. Basic indices give
views, advanced ones copies; adjacent advanced indices replace their dims in place, separated
ones go first; __setitem__ through every path; IndexError/RuntimeError texts as torch's. The
expected values are torch's results, written out."""

import pytest

import _C
from tensor_asserts import _flat, same  # noqa: E402

# ---------------------------------------------------------------------------------------------
# helpers


def cube():
    # [[[ 0,  1,  2,  3], [ 4,  5,  6,  7], [ 8,  9, 10, 11]],
    #  [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]
    return _C.arange(24).reshape(2, 3, 4)


# cube() % 3 == 0
M_FULL_LIST = [
    [[True, False, False, True], [False, False, True, False], [False, True, False, False]],
    [[True, False, False, True], [False, False, True, False], [False, True, False, False]],
]
M_LEAD_LIST = [[True, False, True], [False, True, False]]


def m_full():
    return _C.tensor(M_FULL_LIST)


def m_lead():
    return _C.tensor(M_LEAD_LIST)


def idx():
    return _C.tensor([1, 0, 1])


# (index factory, torch's result shape, torch's result values); a factory so that every case
# gets fresh index tensors.
CASES = [
    (lambda: 1, [3, 4], [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]),
    (lambda: -1, [3, 4], [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]),
    (lambda: (slice(None), slice(None, None, 2)), [2, 2, 4], [[[0, 1, 2, 3], [8, 9, 10, 11]], [[12, 13, 14, 15], [20, 21, 22, 23]]]),
    (lambda: (None, 0), [1, 3, 4], [[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]]),
    (lambda: (Ellipsis, 1), [2, 3], [[1, 5, 9], [13, 17, 21]]),
    (lambda: _C.tensor(1), [3, 4], [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]),
    (lambda: (0, _C.tensor(-1), _C.tensor(2)), [], 10),
    (m_full, [8], [0, 3, 6, 9, 12, 15, 18, 21]),
    (lambda: m_full().to(_C.uint8), [8], [0, 3, 6, 9, 12, 15, 18, 21]),
    (m_lead, [3, 4], [[0, 1, 2, 3], [8, 9, 10, 11], [16, 17, 18, 19]]),
    (lambda: (m_lead(), slice(1, 3)), [3, 2], [[1, 2], [9, 10], [17, 18]]),
    (lambda: (slice(None), [True, False, True]), [2, 2, 4], [[[0, 1, 2, 3], [8, 9, 10, 11]], [[12, 13, 14, 15], [20, 21, 22, 23]]]),
    (lambda: (Ellipsis, _C.tensor([False, True, True, False])), [2, 3, 2], [[[1, 2], [5, 6], [9, 10]], [[13, 14], [17, 18], [21, 22]]]),
    (idx, [3, 3, 4], [[[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]], [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]),
    (lambda: idx().to(_C.int32), [3, 3, 4], [[[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]], [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]),
    (lambda: [1, 0], [2, 3, 4], [[[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]], [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]]),
    (lambda: [-1], [1, 3, 4], [[[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]),
    (lambda: (slice(None), [[0, 2], [1, 1]]), [2, 2, 2, 4], [[[[0, 1, 2, 3], [8, 9, 10, 11]], [[4, 5, 6, 7], [4, 5, 6, 7]]], [[[12, 13, 14, 15], [20, 21, 22, 23]], [[16, 17, 18, 19], [16, 17, 18, 19]]]]),
    # a nested list key is read as a tuple (torch's treatSequenceAsTuple): t[[0, 1], [1, 2]]
    (lambda: [[0, 1], [1, 2]], [2, 4], [[4, 5, 6, 7], [20, 21, 22, 23]]),
    (lambda: ([0, 1], [2, 0]), [2, 4], [[8, 9, 10, 11], [12, 13, 14, 15]]),
    # two adjacent advanced indices: their broadcast dims stay in place
    (lambda: (slice(None), [0, 2], [1, 3]), [2, 2], [[1, 11], [13, 23]]),
    (lambda: (slice(None), _C.tensor([[0], [2]]), _C.tensor([1, 3])), [2, 2, 2], [[[1, 3], [9, 11]], [[13, 15], [21, 23]]]),
    # separated by a slice: the broadcast dims go first
    (lambda: ([0, 1], slice(None), [1, 3]), [2, 3], [[1, 5, 9], [15, 19, 23]]),
    (lambda: ([1, 0], slice(1, 3), [[3], [0]]), [2, 2, 2], [[[19, 23], [7, 11]], [[16, 20], [4, 8]]]),
    (lambda: (Ellipsis, [3, 0]), [2, 3, 2], [[[3, 0], [7, 4], [11, 8]], [[15, 12], [19, 16], [23, 20]]]),
    (lambda: (None, [1], None), [1, 1, 1, 3, 4], [[[[[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]]]),
    (lambda: ([0, 1], 2), [2, 4], [[8, 9, 10, 11], [20, 21, 22, 23]]),
    # torch (unlike numpy) applies the int first, so the list stays in place: [3, 2], not [2, 3]
    (lambda: (0, slice(None), [1, 2]), [3, 2], [[1, 2], [5, 6], [9, 10]]),
    (lambda: (1, [0, 2], slice(1, 3)), [2, 2], [[13, 14], [21, 22]]),
    # Python bools: a new dim of size 1 (True) or 0 (False)
    (lambda: (0, True), [1, 3, 4], [[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]]),
    (lambda: (False, 0), [0, 3, 4], []),
    (lambda: (True, [1, 0], 2), [2, 4], [[20, 21, 22, 23], [8, 9, 10, 11]]),
    (lambda: _C.tensor(False), [0, 2, 3, 4], []),
    (lambda: [], [0, 3, 4], []),
    (lambda: (slice(None), _C.zeros(0, dtype=_C.int64), 0), [2, 0], [[], []]),
]


@pytest.mark.parametrize("make, shape, expected", CASES)
@pytest.mark.filterwarnings("ignore:indexing with dtype torch.uint8")  # torch's; test_warnings.py
def test_getitem_grid(make, shape, expected):
    r = cube()[make()]
    assert list(r.shape) == shape
    if 0 not in shape:
        same(r, expected, _C.int64)


def test_bool_true_alone():
    t = cube()
    r = t[True]
    assert list(r.shape) == [1, 2, 3, 4]
    same(r[0], t.tolist(), _C.int64)
    assert list(t[False].shape) == [0, 2, 3, 4]
    z = _C.tensor(5)
    same(z[True], [5], _C.int64)
    assert list(z[False].shape) == [0]
    same(z[None], [5], _C.int64)


def test_getitem_on_non_contiguous_and_other_dtypes():
    t = cube().transpose(0, 2)  # [4, 3, 2]
    same(t[[3, 0], 1], [[7, 19], [4, 16]], _C.int64)
    same(t[:, [2, 0], [1, 0]], [[20, 0], [21, 1], [22, 2], [23, 3]], _C.int64)
    f = _C.tensor([1.5, -2.0, 3.25])
    same(f[[2, 2, 0]], [3.25, 3.25, 1.5], _C.float32)
    same(f[f > 0], [1.5, 3.25], _C.float32)
    b = _C.tensor([True, False])
    same(b[[1, 0, 1]], [False, True, False], _C.bool)
    # floats in a list are truncated to int64 indices, as torch's indexing_tensor_from_data does
    same(f[[0.9, 2.1]], [1.5, 3.25], _C.float32)


# ---------------------------------------------------------------------------------------------
# views vs copies


@pytest.mark.parametrize("key", [1, (slice(None), 2), (None, Ellipsis, 0), _C.tensor(1), (0, slice(1, None, 2))])
def test_basic_index_is_a_view(key):
    t = cube()
    r = t[key]
    r.fill_(-1)
    assert -1 in _flat(t.tolist())


@pytest.mark.parametrize("key", [[1], _C.tensor([0, 1]), (M_LEAD_LIST,), (slice(None), [0, 2]), True, (0, True)])
def test_advanced_index_is_a_copy(key):
    t = cube()
    r = t[key]
    r.fill_(-1)
    assert t.tolist() == cube().tolist()


# ---------------------------------------------------------------------------------------------
# setitem


def test_setitem_index_tensor_and_list():
    t = _C.zeros(5, dtype=_C.int64)
    t[_C.tensor([0, 3])] = 7
    same(t, [7, 0, 0, 7, 0], _C.int64)
    t[[1, -1]] = _C.tensor([4, 5])
    same(t, [7, 4, 0, 7, 5], _C.int64)
    t[[2, 2]] = _C.tensor([8, 9])  # repeated index: the last write wins (CPU)
    same(t, [7, 4, 9, 7, 5], _C.int64)
    t[[]] = 1
    same(t, [7, 4, 9, 7, 5], _C.int64)
    t[_C.tensor([1]).to(_C.int32)] = 2.9  # a number is converted to the dtype
    same(t, [7, 2, 9, 7, 5], _C.int64)


def test_setitem_mask():
    t = _C.arange(6).reshape(2, 3)
    t[t > 3] = 0
    same(t, [[0, 1, 2], [3, 0, 0]], _C.int64)
    t[_C.tensor([True, False])] = _C.tensor([7, 8, 9])  # broadcast over the selected rows
    same(t, [[7, 8, 9], [3, 0, 0]], _C.int64)
    t[:, [True, False, True]] = _C.tensor([[1], [2]])
    same(t, [[1, 8, 1], [2, 0, 2]], _C.int64)
    t[t == 2] = _C.tensor(5.5)  # one value with a single mask: torch's masked_fill_ converts
    same(t, [[1, 8, 1], [5, 0, 5]], _C.int64)
    f = _C.zeros(2, 2)
    f[_C.tensor([[True, False], [False, True]])] = _C.tensor([1.5, 2.5])
    same(f, [[1.5, 0.0], [0.0, 2.5]], _C.float32)


def test_setitem_two_indices_and_slices():
    t = _C.zeros(2, 3, 4, dtype=_C.int64)
    t[:, [0, 2], [1, 3]] = _C.tensor([1, 2])  # broadcast over dim 0
    same(t[:, [0, 2], [1, 3]], [[1, 2], [1, 2]], _C.int64)
    assert sum(_flat(t.tolist())) == 6
    t = _C.zeros(2, 3, 4, dtype=_C.int64)
    t[[0, 1], :, [1, 3]] = _C.tensor([[1, 2, 3], [4, 5, 6]])  # shape [2, 3]: indexed dims first
    same(t[0, :, 1], [1, 2, 3], _C.int64)
    same(t[1, :, 3], [4, 5, 6], _C.int64)
    assert sum(_flat(t.tolist())) == 21
    t = _C.zeros(2, 3, 4, dtype=_C.int64)
    t[0, :, [1, 2]] = _C.tensor([[1, 2], [3, 4], [5, 6]])  # torch's [3, 2] result shape
    same(t[0], [[0, 1, 2, 0], [0, 3, 4, 0], [0, 5, 6, 0]], _C.int64)
    t[..., [0]] = _C.tensor([[[9]]])  # leading size-1 dims of the value are ignored
    same(t[:, :, 0], [[9, 9, 9], [9, 9, 9]], _C.int64)


def test_setitem_bools_and_nested_lists():
    t = _C.zeros(2, 3, dtype=_C.int64)
    t[True] = 1
    same(t, [[1, 1, 1], [1, 1, 1]], _C.int64)
    t[False] = 5
    same(t, [[1, 1, 1], [1, 1, 1]], _C.int64)
    t[[[0, 1], [2, 0]]] = _C.tensor([3, 4])  # read as t[[0, 1], [2, 0]]
    same(t, [[1, 1, 3], [4, 1, 1]], _C.int64)
    t[(slice(None), [[0], [1]])] = _C.tensor([[[7], [8]]])  # result shape [2, 2, 1]
    same(t, [[7, 8, 3], [7, 8, 1]], _C.int64)
    t[0, True] = _C.tensor([0, 0, 0])
    same(t, [[0, 0, 0], [7, 8, 1]], _C.int64)


def test_setitem_from_aliasing_source():
    t = _C.arange(5)
    t[[1, 2, 3, 4]] = t[:4]  # reads the values from before the assignment
    same(t, [0, 0, 1, 2, 3], _C.int64)


def test_setitem_basic_paths_unchanged():
    t = _C.zeros(2, 3)
    t[_C.tensor(1)] = 2  # 0-dim int tensor: as an int
    t[0, 1:] = _C.tensor([[[4.0, 5.0]]])
    same(t, [[0.0, 4.0, 5.0], [2.0, 2.0, 2.0]], _C.float32)


# ---------------------------------------------------------------------------------------------
# errors


def test_index_out_of_bounds():
    # torch: IndexError: index 5 is out of bounds for dimension 0 with size 3
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        _C.arange(3)[[5]]
    with pytest.raises(IndexError, match="index -4 is out of bounds for dimension 0 with size 3"):
        _C.arange(3)[_C.tensor([0, -4])]
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        _C.arange(3)[[5]] = 1
    # torch numbers the dimension among the index tensors, not of the tensor
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 0 with size 4"):
        cube()[:, :, [4]]
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 1 with size 3"):
        cube()[[0], [3]]


def test_mask_shape_mismatch():
    # torch: IndexError: The shape of the mask [2] at index 0 does not match the shape of the
    # indexed tensor [3] at index 0
    with pytest.raises(IndexError, match=r"The shape of the mask \[2\] at index 0 does not match the shape of the indexed tensor \[3\] at index 0"):
        _C.arange(3)[_C.tensor([True, False])]
    with pytest.raises(IndexError, match=r"The shape of the mask \[2, 2\] at index 1 does not match the shape of the indexed tensor \[2, 3, 4\] at index 1"):
        cube()[_C.tensor([[True, False], [False, True]])]
    with pytest.raises(IndexError, match=r"The shape of the mask \[2\] at index 0 does not match"):
        _C.arange(3)[[True, False]] = 0


def test_index_errors():
    t = cube()
    with pytest.raises(IndexError, match=r"shape mismatch: indexing tensors could not be broadcast together with shapes \[2\], \[3\]"):
        t[[0, 1], [0, 1, 2]]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        t[_C.tensor([0.0])]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 3"):
        t[[0], [0], [0], [0]]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 3"):
        t[m_full(), 0]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        t[[0], ::-1]
    with pytest.raises(IndexError, match=r"valid indices \(got str\)"):
        t[[0], "a"]


def test_setitem_errors():
    t = _C.zeros(3, dtype=_C.int64)
    # torch: RuntimeError: Index put requires the source and destination dtypes match, got Long
    # for the destination and Float for the source.
    with pytest.raises(RuntimeError, match="Index put requires the source and destination dtypes match, got Long for the destination and Float for the source."):
        t[[0, 1]] = _C.tensor([1.0, 2.0])
    # torch: RuntimeError: shape mismatch: value tensor of shape [3] cannot be broadcast to
    # indexing result of shape [2]
    with pytest.raises(RuntimeError, match=r"shape mismatch: value tensor of shape \[3\] cannot be broadcast to indexing result of shape \[2\]"):
        t[[0, 1]] = _C.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="without overflow"):
        _C.zeros(2, dtype=_C.uint8)[[0]] = 300
    with pytest.raises(TypeError):
        t[[0]] = "a"
    assert t.tolist() == [0, 0, 0]
