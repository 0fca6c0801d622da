"""Basic indexing: t[i], t[i, j], negative indices, slices (with steps and out-of-range bounds),
None, Ellipsis, 0-dim integer tensors as indices — results are views — and __setitem__ with
numbers and broadcasting tensors; IndexError/TypeError/ValueError as torch raises them."""

import pytest

import _C
from tensor_asserts import same  # noqa: E402

# ---------------------------------------------------------------------------------------------
# helpers


def grid():
    # [[ 0,  1,  2,  3],
    #  [ 4,  5,  6,  7],
    #  [ 8,  9, 10, 11]]
    return _C.arange(12).reshape(3, 4)


# the same index expressions applied to a nested Python list, for reference
PY = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]

# ---------------------------------------------------------------------------------------------
# getitem


GETITEM_CASES = [
    (0, [0, 1, 2, 3]),
    (2, [8, 9, 10, 11]),
    (-1, [8, 9, 10, 11]),
    (-3, [0, 1, 2, 3]),
    ((1, 2), 6),
    ((-1, -1), 11),
    ((0, -4), 0),
    (slice(None), PY),
    (slice(1, None), PY[1:]),
    (slice(None, -1), PY[:-1]),
    (slice(None, None, 2), PY[::2]),
    (slice(-2, 100), PY[-2:]),
    (slice(5, 10), []),
    (slice(2, 1), []),
    (slice(-100, 1), PY[:1]),
    ((slice(None), 1), [1, 5, 9]),
    ((slice(None), -1), [3, 7, 11]),
    ((1, slice(1, 3)), [5, 6]),
    ((slice(None), slice(None, None, 3)), [[0, 3], [4, 7], [8, 11]]),
    ((slice(0, 3, 2), slice(1, None, 2)), [[1, 3], [9, 11]]),
    ((Ellipsis, 0), [0, 4, 8]),
    ((0, Ellipsis), [0, 1, 2, 3]),
    ((Ellipsis, 1, 2), 6),
    (Ellipsis, PY),
    ((1, Ellipsis, 2), 6),
]


def test_getitem():
    t = grid()
    for key, expected in GETITEM_CASES:
        try:
            same(t[key], expected, _C.int64)
        except Exception as e:  # name the failing key
            raise AssertionError(f"t[{key!r}]: {e!r}") from e


NEWAXIS_CASES = [
    (None, (1, 3, 4)),
    ((None, 0), (1, 4)),
    ((slice(None), None), (3, 1, 4)),
    ((Ellipsis, None), (3, 4, 1)),
    ((None, Ellipsis, None), (1, 3, 4, 1)),
    ((0, None, slice(1, 3)), (1, 2)),
    ((None, None), (1, 1, 3, 4)),
    ((1, 2, None), (1,)),
    ((), (3, 4)),
]


def test_getitem_newaxis_shapes():
    t = grid()
    for key, shape in NEWAXIS_CASES:
        assert t[key].shape == shape, key


def test_getitem_returns_tensor_views():
    t = grid()
    r = t[1]
    assert isinstance(r, _C.Tensor)
    assert r.stride() == (1,)
    assert t[:, 1].stride() == (4,)
    assert t[::2, ::3].stride() == (8, 3)
    s = t[1, 2]
    assert s.shape == ()
    assert isinstance(s, _C.Tensor)


def test_getitem_zero_dim_tensor_index():
    t = grid()
    same(t[_C.tensor(1)], [4, 5, 6, 7], _C.int64)
    same(t[_C.tensor(2), _C.tensor(-1)], 11, _C.int64)
    same(t[_C.tensor(1, dtype=_C.int32):], PY[1:], _C.int64)
    same(t[: _C.tensor(1)], PY[:1], _C.int64)


def test_getitem_on_non_contiguous_and_3d():
    t = grid().transpose(0, 1)  # (4, 3)
    same(t[1], [1, 5, 9], _C.int64)
    same(t[1:3, ::2], [[1, 9], [2, 10]], _C.int64)
    u = _C.arange(24).reshape(2, 3, 4)
    same(u[1, :, 2], [14, 18, 22], _C.int64)
    same(u[..., 1], [[1, 5, 9], [13, 17, 21]], _C.int64)
    same(u[:, -1, 1:3], [[9, 10], [21, 22]], _C.int64)


def test_getitem_zero_dim_tensor():
    s = _C.tensor(5)
    assert s[...].item() == 5
    assert s[()].item() == 5
    assert s[None].shape == (1,)
    # torch: IndexError: invalid index of a 0-dim tensor. Use `tensor.item()` in Python or
    # `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number
    with pytest.raises(IndexError, match="invalid index of a 0-dim tensor"):
        s[0]
    with pytest.raises(IndexError, match="invalid index of a 0-dim tensor"):
        s[0] = 1


def test_getitem_index_out_of_range():
    t = grid()
    # torch: IndexError: index 3 is out of bounds for dimension 0 with size 3
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        t[3]
    with pytest.raises(IndexError, match="index -4 is out of bounds for dimension 0 with size 3"):
        t[-4]
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 1 with size 4"):
        t[0, 4]
    with pytest.raises(IndexError, match="out of bounds"):
        t[:, -5]
    with pytest.raises(IndexError):
        _C.zeros(0)[0]


def test_getitem_too_many_indices():
    # torch: IndexError: too many indices for tensor of dimension 2
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        grid()[0, 0, 0]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 1"):
        _C.zeros(3)[:, 0]


def test_getitem_two_ellipses():
    with pytest.raises(IndexError, match="an index can only have a single ellipsis"):
        grid()[..., 0, ...]


def test_getitem_invalid_index_types():
    t = grid()
    # torch: IndexError: only integers, slices (`:`), ellipsis (`...`), None and long or byte
    # Variables are valid indices (got float)
    with pytest.raises(IndexError, match=r"only integers, slices \(`:`\), ellipsis \(`...`\), None and long or byte Variables are valid indices \(got float\)"):
        t[0.5]
    with pytest.raises(IndexError, match=r"valid indices \(got str\)"):
        t["a"]
    with pytest.raises(IndexError, match="valid indices"):
        t[0, 1.0]


def test_getitem_slice_step_errors():
    t = grid()
    # torch: ValueError: step must be greater than zero
    with pytest.raises(ValueError, match="step must be greater than zero"):
        t[::0]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        t[::-1]
    with pytest.raises(TypeError):
        t[0.5:]


def test_getitem_advanced_indexing_gives_copies():
    # Advanced indexing (index tensors, lists) is supported; the results are copies (more in
    # test_indexing_advanced.py).
    t = grid()
    r = t[_C.tensor([0, 2])]
    same(r, [PY[0], PY[2]], _C.int64)
    r[0, 0] = 100
    assert t[0, 0].item() == 0
    same(t[[0, 1]], [PY[0], PY[1]], _C.int64)


# ---------------------------------------------------------------------------------------------
# views: writes through indexing results change the base


def test_write_through_chained_getitem():
    t = _C.zeros(2, 3)
    t[0][1] = 5
    same(t, [[0.0, 5.0, 0.0], [0.0, 0.0, 0.0]], _C.float32)
    row = t[1]
    row[2] = 7
    same(t, [[0.0, 5.0, 0.0], [0.0, 0.0, 7.0]], _C.float32)
    col = t[:, 0]
    col[1] = -1
    assert t[1, 0].item() == -1.0


def test_write_through_expanded_view():
    base = _C.tensor([1, 2])
    e = base.expand(2, 2)  # both rows alias base
    e[0] = _C.tensor([5, 6])
    same(base, [5, 6], _C.int64)
    same(e, [[5, 6], [5, 6]], _C.int64)


def test_view_sees_later_writes_to_base():
    t = _C.zeros(3)
    v = t[1:]
    t[2] = 4
    same(v, [0.0, 4.0], _C.float32)


# ---------------------------------------------------------------------------------------------
# setitem


def test_setitem_scalar():
    t = _C.zeros(2, 3)
    t[0, 1] = 5
    same(t, [[0.0, 5.0, 0.0], [0.0, 0.0, 0.0]], _C.float32)
    t[1] = 2.5
    same(t, [[0.0, 5.0, 0.0], [2.5, 2.5, 2.5]], _C.float32)
    t[:, 2] = -1
    same(t, [[0.0, 5.0, -1.0], [2.5, 2.5, -1.0]], _C.float32)
    t[...] = 0
    same(t, [[0.0] * 3] * 2, _C.float32)
    t[-1, -1] = True
    same(t, [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0]], _C.float32)


def test_setitem_converts_to_dtype():
    t = _C.zeros(3, dtype=_C.int64)
    t[0] = 5.7
    t[1] = -5.7
    t[2] = True
    same(t, [5, -5, 1], _C.int64)
    b = _C.zeros(2, dtype=_C.bool)
    b[0] = 3
    same(b, [True, False], _C.bool)
    u = _C.zeros(1, dtype=_C.uint8)
    u[0] = 255
    same(u, [255], _C.uint8)
    # torch: RuntimeError: value cannot be converted to type uint8_t without overflow
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
        u[0] = 300
    with pytest.raises(RuntimeError, match="without overflow"):
        _C.zeros(1, dtype=_C.int8)[0] = -129


def test_setitem_tensor_broadcasting():
    t = _C.zeros(2, 3, dtype=_C.int64)
    t[0] = _C.tensor([1, 2, 3])
    same(t, [[1, 2, 3], [0, 0, 0]], _C.int64)
    t[:, 1] = _C.tensor([7, 8])
    same(t, [[1, 7, 3], [0, 8, 0]], _C.int64)
    t[:] = _C.tensor([9, 9, 9])  # broadcast over rows
    same(t, [[9, 9, 9], [9, 9, 9]], _C.int64)
    t[...] = _C.tensor([[1], [2]])  # broadcast over columns
    same(t, [[1, 1, 1], [2, 2, 2]], _C.int64)
    t[1, 1:] = _C.tensor(5)
    same(t, [[1, 1, 1], [2, 5, 5]], _C.int64)
    t[0] = _C.tensor([1.9, 2.9, 3.9])  # converted to the destination dtype
    same(t, [[1, 2, 3], [2, 5, 5]], _C.int64)


def test_setitem_from_non_contiguous_source():
    t = _C.zeros(3, 2, dtype=_C.int64)
    src = _C.arange(6).reshape(2, 3)
    t[...] = src.transpose(0, 1)
    same(t, [[0, 3], [1, 4], [2, 5]], _C.int64)


def test_setitem_with_zero_dim_tensor_index():
    t = _C.zeros(3, dtype=_C.int32)
    t[_C.tensor(1)] = 4
    same(t, [0, 4, 0], _C.int32)


def test_setitem_overlapping_self():
    t = _C.arange(4)
    t[...] = t
    same(t, [0, 1, 2, 3], _C.int64)


def test_setitem_from_partially_overlapping_view_is_error():
    # torch (copy_ checks memory overlap): RuntimeError: unsupported operation: some elements of
    # the input tensor and the written-to tensor refer to a single memory location. Please
    # clone() the tensor before performing the operation.
    t = _C.arange(5)
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor refer to a single memory location"):
        t[1:] = t[:-1]
    assert t.tolist() == [0, 1, 2, 3, 4]  # nothing was written
    # Non-dense overlapping views: torch does not detect these (its overlap check gives up on
    # non-dense layouts) and the result depends on its loop order. tensorbind copies through a
    # temporary, so the assignment reads the values from before the write.
    m = _C.arange(6).reshape(2, 3)
    m[:, 1:] = m[:, :2]
    assert m.tolist() == [[0, 0, 1], [3, 3, 4]]
    t[1:] = t[:-1].clone()  # the documented way out
    assert t.tolist() == [0, 0, 1, 2, 3]


def test_setitem_into_expanded_tensor_is_error():
    # torch: RuntimeError: unsupported operation: more than one element of the written-to tensor
    # refers to a single memory location. Please clone() the tensor before performing the operation.
    base = _C.tensor([1, 2])
    e = base.expand(2, 2)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers to a single memory location"):
        e[...] = _C.tensor([[1, 2], [3, 4]])
    assert base.tolist() == [1, 2]
    e[...] = 7  # a scalar fills (fill_ is exempt from the check, as in torch)
    assert base.tolist() == [7, 7]


def test_setitem_errors():
    t = _C.zeros(2, 3)
    # torch: RuntimeError: The expanded size of the tensor (3) must match the existing size (2) at
    # non-singleton dimension 0.  Target sizes: [3].  Tensor sizes: [2]
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(3\) must match the existing size \(2\) at non-singleton dimension 0"):
        t[0] = _C.tensor([1.0, 2.0])
    with pytest.raises(IndexError, match="out of bounds"):
        t[2] = 1
    with pytest.raises(TypeError):
        t[0] = "a"
    with pytest.raises(TypeError):
        t[0] = None
    with pytest.raises(TypeError):
        del t[0]
    with pytest.raises(IndexError, match="valid indices"):
        t["x"] = 1
    assert t.tolist() == [[0.0] * 3] * 2


def test_setitem_slice_with_step():
    t = _C.zeros(6, dtype=_C.int64)
    t[::2] = 1
    t[1::2] = _C.tensor([7, 8, 9])
    same(t, [1, 7, 1, 8, 1, 9], _C.int64)
    t[4:100] = 0
    same(t, [1, 7, 1, 8, 0, 0], _C.int64)
    t[10:] = 3  # empty selection: nothing written
    same(t, [1, 7, 1, 8, 0, 0], _C.int64)


# ---------------------------------------------------------------------------------------------
# the integer fast paths (an exact int key: one select, no index list)


def test_int_index_fast_path_views():
    t = _C.arange(10)
    for i in (0, 3, 9, -1, -10):
        v = t[i]
        assert v.shape == () and v.dtype == _C.int64 and v.item() == list(range(10))[i]
    v = t[4]
    v.fill_(-1)
    assert t[4].item() == -1  # a view: writes go through
    g = grid()
    same(g[1], [4, 5, 6, 7], _C.int64)
    same(g[-1], [8, 9, 10, 11], _C.int64)
    # on an offset view and on a transposed (non-contiguous) tensor
    same(g[1:][1], [8, 9, 10, 11], _C.int64)
    same(g.transpose(0, 1)[2], [2, 6, 10], _C.int64)
    same(g.transpose(0, 1)[-1][1:], [7, 11], _C.int64)
    # 3-D: dim 0 removed, strides kept
    u = _C.arange(24).reshape(2, 3, 4)
    same(u[1], [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]], _C.int64)
    same(u[1][2], [20, 21, 22, 23], _C.int64)


def test_int_index_fast_path_errors():
    t = _C.arange(10)
    # torch: IndexError: index 10 is out of bounds for dimension 0 with size 10
    with pytest.raises(IndexError, match=r"^index 10 is out of bounds for dimension 0 with size 10$"):
        t[10]
    with pytest.raises(IndexError, match=r"^index -11 is out of bounds for dimension 0 with size 10$"):
        t[-11]
    with pytest.raises(IndexError, match=r"^index 0 is out of bounds for dimension 0 with size 0$"):
        _C.zeros(0, 3)[0]
    with pytest.raises(IndexError, match="invalid index of a 0-dim tensor"):
        _C.tensor(1.5)[0]
    with pytest.raises(OverflowError):
        t[2**70]


def test_index_keys_that_are_not_exact_ints():
    t = _C.arange(4)

    class MyInt(int):
        pass

    # an int subclass and bool keep the general path's meaning
    assert t[MyInt(2)].item() == 2
    assert t[True].shape == (1, 4)
    assert t[False].shape == (0, 4)
    same(t[_C.tensor(3)], 3, _C.int64)


def test_setitem_int_with_number_fast_path():
    t = _C.zeros(4, dtype=_C.int32)
    t[1] = 7
    t[-1] = 2.9
    t[0] = True
    same(t, [1, 7, 0, 2], _C.int32)
    g = _C.zeros(2, 3)
    g[1] = 1.5
    g[-2] = -1
    same(g, [[-1.0] * 3, [1.5] * 3], _C.float32)
    # a non-contiguous row
    g.transpose(0, 1)[2] = 9
    same(g, [[-1.0, -1.0, 9.0], [1.5, 1.5, 9.0]], _C.float32)
    b = _C.zeros(2, dtype=_C.bool)
    b[1] = 0.5
    same(b, [False, True], _C.bool)
    u = _C.zeros(2, dtype=_C.uint8)
    # the value is checked before the index (torch converts it first)
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
        u[5] = 256
    with pytest.raises(IndexError, match=r"^index 5 is out of bounds for dimension 0 with size 2$"):
        u[5] = 1
    with pytest.raises(IndexError, match="invalid index of a 0-dim tensor"):
        _C.tensor(1)[0] = 2
    same(u, [0, 0], _C.uint8)
