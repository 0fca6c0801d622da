"""Shape and layout: reshape, view, transpose, permute, squeeze, unsqueeze, flatten, expand,
contiguous, clone, cat, stack, select — values, shapes, strides, which results are views
(sharing storage), out= and errors (torch's behaviour)."""

import pytest

import _C
from tensor_asserts import _flat, same  # noqa: E402

# ---------------------------------------------------------------------------------------------
# helpers


# ---------------------------------------------------------------------------------------------
# reshape / view


@pytest.mark.parametrize(
    "shape, expected_shape",
    [
        ((2, 3), (2, 3)),
        ((3, -1), (3, 2)),
        ((-1,), (6,)),
        ((1, 6, 1), (1, 6, 1)),
        ((-1, 1, 2), (3, 1, 2)),
        ((6,), (6,)),
    ],
)
def test_reshape_forms(shape, expected_shape):
    t = _C.arange(6)
    for r in (t.reshape(shape), t.reshape(*shape), _C.reshape(t, shape), t.view(shape), t.view(*shape)):
        assert r.shape == expected_shape
        assert _flat(r.tolist()) == [0, 1, 2, 3, 4, 5]
        assert r.dtype is _C.int64


def test_reshape_keywords_and_scalar():
    t = _C.arange(4)
    assert _C.reshape(t, shape=(2, 2)).shape == (2, 2)
    assert _C.reshape(input=t, shape=[4, 1]).shape == (4, 1)
    s = _C.tensor(7).reshape(1, 1)
    same(s, [[7]], _C.int64)
    back = s.reshape(())
    assert back.shape == ()
    assert back.item() == 7
    assert _C.zeros(0, 3).reshape(-1).shape == (0,)
    assert _C.zeros(0, 3).reshape(3, 0).shape == (3, 0)


def test_reshape_contiguous_is_view_non_contiguous_copies():
    t = _C.arange(6).reshape(2, 3)
    v = t.reshape(3, 2)
    v[0, 0] = 100
    assert t[0, 0].item() == 100
    tt = t.transpose(0, 1)
    c = tt.reshape(6)  # not expressible as a view: a copy
    same(c, [100, 3, 1, 4, 2, 5], _C.int64)
    c[0] = -1
    assert t[0, 0].item() == 100


def test_view_shares_storage():
    t = _C.zeros(2, 2)
    v = t.view(4)
    v[0] = 9
    same(t, [[9.0, 0.0], [0.0, 0.0]], _C.float32)
    t[1, 1] = 5
    same(v, [9.0, 0.0, 0.0, 5.0], _C.float32)


def test_view_of_non_contiguous_is_error():
    # torch: RuntimeError: view size is not compatible with input tensor's size and stride (at
    # least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.
    t = _C.arange(6).reshape(2, 3).transpose(0, 1)
    with pytest.raises(RuntimeError, match=r"view size is not compatible with input tensor's size and stride"):
        t.view(6)


def test_view_of_non_contiguous_compatible_dims():
    # splitting or merging dims that are contiguous among themselves is a view
    t = _C.arange(24).reshape(2, 3, 4).transpose(0, 2)  # (4, 3, 2)
    v = t.view(4, 3, 2, 1)
    assert v.shape == (4, 3, 2, 1)
    s = _C.arange(12).reshape(3, 4)[:, :2]  # (3, 2), strides (4, 1)
    v = s.view(3, 2, 1)
    same(v, [[[0], [1]], [[4], [5]], [[8], [9]]], _C.int64)


def test_reshape_errors():
    # torch: RuntimeError: shape '[4, 4]' is invalid for input of size 6
    with pytest.raises(RuntimeError, match=r"shape '\[4, 4\]' is invalid for input of size 6"):
        _C.arange(6).reshape(4, 4)
    with pytest.raises(RuntimeError, match=r"shape '\[4, -1\]' is invalid for input of size 6"):
        _C.arange(6).view(4, -1)
    # torch: RuntimeError: only one dimension can be inferred
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        _C.arange(6).reshape(-1, -1)
    # torch: RuntimeError: invalid shape dimension -2
    with pytest.raises(RuntimeError, match="invalid shape dimension -2"):
        _C.arange(6).reshape(-2, 3)
    with pytest.raises(TypeError):
        _C.arange(6).reshape(2.0, 3)


# ---------------------------------------------------------------------------------------------
# transpose / permute / T


def test_transpose_values_strides_view():
    t = _C.arange(6).reshape(2, 3)
    tt = t.transpose(0, 1)
    same(tt, [[0, 3], [1, 4], [2, 5]], _C.int64)
    assert tt.shape == (3, 2)
    assert tt.stride() == (1, 3)
    assert not tt.is_contiguous()
    assert _C.transpose(t, -1, -2).tolist() == tt.tolist()
    assert _C.transpose(t, dim0=1, dim1=0).tolist() == tt.tolist()
    tt[0, 1] = 42
    assert t[1, 0].item() == 42
    same(t.transpose(0, 0), t.tolist(), _C.int64)


def test_transpose_3d():
    t = _C.arange(24).reshape(2, 3, 4)
    r = t.transpose(0, 2)
    assert r.shape == (4, 3, 2)
    assert r.stride() == (1, 4, 12)
    assert r[3, 2, 1].item() == t[1, 2, 3].item() == 23


def test_transpose_errors():
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.ones(2, 3).transpose(0, 2)
    with pytest.raises(TypeError):
        _C.ones(2, 3).transpose(0)


# torch warns once per process for these two (test_warnings.py checks it in a fresh interpreter)
@pytest.mark.filterwarnings("ignore:The use of `x.T`", "ignore:Tensor.T is deprecated")
def test_T():
    t = _C.arange(6).reshape(2, 3)
    same(t.T, [[0, 3], [1, 4], [2, 5]], _C.int64)
    v = _C.tensor([1, 2, 3])
    same(v.T, [1, 2, 3], _C.int64)
    assert _C.tensor(5).T.shape == ()
    t.T[2, 1] = -5
    assert t[1, 2].item() == -5


def test_permute():
    t = _C.arange(24).reshape(2, 3, 4)
    for p in (t.permute(2, 0, 1), t.permute((2, 0, 1)), _C.permute(t, (2, 0, 1)), t.permute(-1, 0, -2)):
        assert p.shape == (4, 2, 3)
        assert p.stride() == (1, 12, 4)
        assert p[3, 1, 2].item() == t[1, 2, 3].item()
    p = t.permute(0, 1, 2)
    assert p.tolist() == t.tolist()
    p = t.permute(1, 0, 2)
    p[0, 1, 0] = 1000
    assert t[1, 0, 0].item() == 1000


def test_permute_errors():
    t = _C.ones(2, 3)
    # torch: RuntimeError: permute(sparse_coo): number of dimensions in the tensor input does not
    # match the length of the desired ordering of dimensions i.e. input.dim() = 2 is not equal to len(dims) = 1
    with pytest.raises(RuntimeError, match="does not match the length of the desired ordering of dimensions"):
        t.permute(0)
    # torch: RuntimeError: permute(): duplicate dims are not allowed.
    with pytest.raises(RuntimeError, match="duplicate dims are not allowed"):
        t.permute(0, 0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.permute(0, 2)


# ---------------------------------------------------------------------------------------------
# squeeze / unsqueeze / flatten


def test_squeeze():
    t = _C.zeros(1, 2, 1, 3)
    assert t.squeeze().shape == (2, 3)
    assert _C.squeeze(t).shape == (2, 3)
    assert t.squeeze(0).shape == (2, 1, 3)
    assert t.squeeze(2).shape == (1, 2, 3)
    assert t.squeeze(-2).shape == (1, 2, 3)
    assert t.squeeze(1).shape == (1, 2, 1, 3)  # not size 1: unchanged
    assert _C.squeeze(t, dim=0).shape == (2, 1, 3)
    assert _C.zeros(1, 1).squeeze().shape == ()
    assert _C.tensor(3).squeeze().shape == ()
    assert _C.tensor(3).squeeze(0).shape == ()


def test_squeeze_is_view():
    t = _C.zeros(1, 3)
    s = t.squeeze(0)
    s[1] = 7
    same(t, [[0.0, 7.0, 0.0]], _C.float32)


def test_squeeze_dim_out_of_range():
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.zeros(1, 2).squeeze(2)


def test_unsqueeze():
    t = _C.tensor([1, 2, 3])
    same(t.unsqueeze(0), [[1, 2, 3]], _C.int64)
    same(t.unsqueeze(1), [[1], [2], [3]], _C.int64)
    same(_C.unsqueeze(t, -1), [[1], [2], [3]], _C.int64)
    same(t.unsqueeze(-2), [[1, 2, 3]], _C.int64)
    assert _C.zeros(2, 3).unsqueeze(1).shape == (2, 1, 3)
    assert _C.zeros(2, 3).unsqueeze(-1).shape == (2, 3, 1)
    assert _C.tensor(5).unsqueeze(0).shape == (1,)
    u = t.unsqueeze(0)
    u[0, 2] = 30
    assert t.tolist() == [1, 2, 30]


def test_unsqueeze_out_of_range():
    # torch: IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        _C.tensor([1, 2, 3]).unsqueeze(2)
    with pytest.raises(IndexError, match=r"but got -3"):
        _C.tensor([1, 2, 3]).unsqueeze(-3)


@pytest.mark.parametrize(
    "args, shape",
    [
        ((), (24,)),
        ((1,), (2, 12)),
        ((0, 1), (6, 4)),
        ((-2, -1), (2, 12)),
        ((1, 1), (2, 3, 4)),
        ((2,), (2, 3, 4)),
    ],
)
def test_flatten(args, shape):
    t = _C.arange(24).reshape(2, 3, 4)
    r = t.flatten(*args)
    assert r.shape == shape
    assert _flat(r.tolist()) == list(range(24))
    assert _C.flatten(t, *args).shape == shape


def test_flatten_keywords_scalar_and_view():
    t = _C.arange(6).reshape(2, 3)
    assert _C.flatten(t, start_dim=0, end_dim=1).shape == (6,)
    assert _C.tensor(3).flatten().shape == (1,)
    f = t.flatten()
    f[4] = 99
    assert t[1, 1].item() == 99
    c = t.transpose(0, 1).flatten()  # needs a copy
    same(c, [0, 3, 1, 99, 2, 5], _C.int64)


def test_flatten_errors():
    # torch: RuntimeError: flatten() has invalid args: start_dim cannot come after end_dim
    with pytest.raises(RuntimeError, match="start_dim cannot come after end_dim"):
        _C.zeros(2, 3, 4).flatten(2, 1)
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.zeros(2, 3).flatten(0, 2)


# ---------------------------------------------------------------------------------------------
# expand


def test_expand():
    t = _C.tensor([1, 2, 3])
    e = t.expand(2, 3)
    same(e, [[1, 2, 3], [1, 2, 3]], _C.int64)
    assert e.stride() == (0, 1)
    assert not e.is_contiguous()
    e2 = t.expand((2, 3))
    assert e2.shape == (2, 3)
    col = _C.tensor([[1], [2]])
    same(col.expand(-1, 3), [[1, 1, 1], [2, 2, 2]], _C.int64)
    assert col.expand(2, 3).stride() == (1, 0)
    assert t.expand(4, 2, 3).shape == (4, 2, 3)
    assert t.expand(3).shape == (3,)
    assert _C.tensor(5).expand(2, 2).tolist() == [[5, 5], [5, 5]]


def test_expand_is_view():
    t = _C.tensor([[1], [2]])
    e = t.expand(2, 3)
    t[0, 0] = 10
    assert e.tolist() == [[10, 10, 10], [2, 2, 2]]


def test_expand_then_contiguous_copies():
    e = _C.tensor([1, 2]).expand(3, 2)
    c = e.contiguous()
    assert c.is_contiguous()
    assert c.stride() == (2, 1)
    same(c, [[1, 2], [1, 2], [1, 2]], _C.int64)
    same(e.sum(0), [3, 6], _C.int64)


def test_expand_errors():
    # torch: RuntimeError: The expanded size of the tensor (4) must match the existing size (3) at
    # non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [3]
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(4\) must match the existing size \(3\) at non-singleton dimension 1"):
        _C.tensor([1, 2, 3]).expand(2, 4)
    # torch: RuntimeError: expand(torch.LongTensor{[2, 3]}, size=[3]): the number of sizes provided
    # (1) must be greater or equal to the number of dimensions in the tensor (2)
    with pytest.raises(RuntimeError, match=r"the number of sizes provided \(1\) must be greater or equal to the number of dimensions in the tensor \(2\)"):
        _C.ones(2, 3).expand(3)


# ---------------------------------------------------------------------------------------------
# contiguous / clone


def test_contiguous():
    t = _C.arange(6).reshape(2, 3)
    assert t.is_contiguous()
    assert t.contiguous() is t  # torch returns self when already contiguous
    tt = t.transpose(0, 1)
    assert tt.transpose(0, 1).is_contiguous()
    c = tt.contiguous()
    assert c is not tt
    assert c.is_contiguous()
    assert c.stride() == (2, 1)
    same(c, [[0, 3], [1, 4], [2, 5]], _C.int64)
    c[0, 0] = 77
    assert t[0, 0].item() == 0


def test_clone():
    t = _C.arange(6, dtype=_C.float64).reshape(2, 3)
    c = t.clone()
    assert c is not t
    same(c, t.tolist(), _C.float64)
    c[0, 0] = 5
    assert t[0, 0].item() == 0.0
    c2 = _C.clone(t.transpose(0, 1))
    assert c2.is_contiguous()
    same(c2, [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]], _C.float64)


# ---------------------------------------------------------------------------------------------
# cat / stack


def test_cat_dims():
    a = _C.tensor([[1, 2], [3, 4]])
    b = _C.tensor([[5, 6]])
    same(_C.cat([a, b]), [[1, 2], [3, 4], [5, 6]], _C.int64)
    same(_C.cat((a, b), 0), [[1, 2], [3, 4], [5, 6]], _C.int64)
    same(_C.cat([a, b.transpose(0, 1)], dim=1), [[1, 2, 5], [3, 4, 6]], _C.int64)
    same(_C.cat([a, a], -1), [[1, 2, 1, 2], [3, 4, 3, 4]], _C.int64)
    same(_C.cat(tensors=[a]), [[1, 2], [3, 4]], _C.int64)


def test_cat_promotes_and_copies():
    a = _C.tensor([1, 2], dtype=_C.int32)
    b = _C.tensor([0.5])
    same(_C.cat([a, b]), [1.0, 2.0, 0.5], _C.float32)
    same(_C.cat([a, _C.tensor([3], dtype=_C.int64)]), [1, 2, 3], _C.int64)
    same(_C.cat([_C.tensor([True]), _C.tensor([2], dtype=_C.uint8)]), [1, 2], _C.uint8)
    r = _C.cat([a])
    r[0] = 100
    assert a.tolist() == [1, 2]


def test_cat_skips_legacy_empty_1d():
    # torch skips 1-D empty tensors of shape (0,) in cat (legacy behaviour)
    same(_C.cat([_C.zeros(0), _C.ones(2, 2)]), [[1.0, 1.0], [1.0, 1.0]], _C.float32)


def test_cat_errors():
    # torch: RuntimeError: Sizes of tensors must match except in dimension 0. Expected size 2 but
    # got size 3 for tensor number 1 in the list.
    with pytest.raises(RuntimeError, match="Sizes of tensors must match except in dimension 0. Expected size 2 but got size 3 for tensor number 1 in the list."):
        _C.cat([_C.ones(2, 2), _C.ones(2, 3)])
    # torch: RuntimeError: torch.cat(): expected a non-empty list of Tensors
    with pytest.raises(ValueError, match="expected a non-empty list of Tensors"):
        _C.cat([])
    # torch: RuntimeError: Tensors must have same number of dimensions: got 2 and 1
    with pytest.raises(RuntimeError, match="Tensors must have same number of dimensions: got 2 and 1"):
        _C.cat([_C.ones(2, 2), _C.ones(2)])
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.cat([_C.ones(2), _C.ones(2)], 1)
    with pytest.raises(TypeError):
        _C.cat([_C.ones(2), 1])
    with pytest.raises(TypeError):
        _C.cat(_C.ones(2))
    with pytest.raises(RuntimeError, match="zero-dimensional tensor .* cannot be concatenated"):
        _C.cat([_C.tensor(1), _C.tensor(2)])


def test_cat_out():
    out = _C.zeros(3, dtype=_C.int64)
    r = _C.cat([_C.tensor([1]), _C.tensor([2, 3])], out=out)
    assert r is out
    same(out, [1, 2, 3], _C.int64)


def test_stack():
    a = _C.tensor([1, 2, 3])
    b = _C.tensor([4, 5, 6])
    same(_C.stack([a, b]), [[1, 2, 3], [4, 5, 6]], _C.int64)
    same(_C.stack((a, b), 1), [[1, 4], [2, 5], [3, 6]], _C.int64)
    same(_C.stack([a, b], dim=-1), [[1, 4], [2, 5], [3, 6]], _C.int64)
    r = _C.stack([_C.tensor(1.0), _C.tensor(2.0)])
    same(r, [1.0, 2.0], _C.float32)
    m = _C.ones(2, 2)
    assert _C.stack([m, m, m], 2).shape == (2, 2, 3)
    same(_C.stack([a, _C.tensor([0.5, 0.5, 0.5])]), [[1.0, 2.0, 3.0], [0.5, 0.5, 0.5]], _C.float32)


def test_stack_errors_and_out():
    # torch: RuntimeError: stack expects each tensor to be equal size, but got [2] at entry 0 and [3] at entry 1
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but got \[2\] at entry 0 and \[3\] at entry 1"):
        _C.stack([_C.ones(2), _C.ones(3)])
    with pytest.raises(RuntimeError, match="non-empty"):
        _C.stack([])
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.stack([_C.ones(2), _C.ones(2)], 3)
    out = _C.zeros(2, 2)
    assert _C.stack([_C.ones(2), _C.zeros(2)], out=out) is out
    same(out, [[1.0, 1.0], [0.0, 0.0]], _C.float32)


# ---------------------------------------------------------------------------------------------
# select


def test_select():
    t = _C.arange(6).reshape(2, 3)
    same(t.select(0, 1), [3, 4, 5], _C.int64)
    same(_C.select(t, 1, -1), [2, 5], _C.int64)
    same(_C.select(t, dim=1, index=0), [0, 3], _C.int64)
    s = t.select(1, 1)
    assert s.stride() == (3,)
    s[0] = 50
    assert t[0, 1].item() == 50
    r = _C.tensor([4, 5]).select(0, 0)
    assert r.shape == ()
    assert r.item() == 4


def test_select_errors():
    # torch: IndexError: select(): index 5 out of range for tensor of size [2, 3] at dimension 1
    with pytest.raises(IndexError, match=r"select\(\): index 5 out of range for tensor of size \[2, 3\] at dimension 1"):
        _C.ones(2, 3).select(1, 5)
    with pytest.raises(IndexError, match="out of range"):
        _C.ones(2, 3).select(0, -3)
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C.ones(2, 3).select(2, 0)
    # torch: IndexError: select() cannot be applied to a 0-dim tensor.
    with pytest.raises(IndexError, match="select"):
        _C.tensor(1).select(0, 0)


# ---------------------------------------------------------------------------------------------
# chains of views


def test_chained_views_write_through():
    t = _C.zeros(2, 3, 4)
    v = t.permute(2, 0, 1)[1:3].transpose(0, 2).unsqueeze(0).squeeze(0)
    # v[i, j, k] = t[j, i, k + 1]
    v[2, 1, 0] = 1.0
    assert t[1, 2, 1].item() == 1.0
    assert t.sum().item() == 1.0


def test_views_keep_base_alive():
    v = _C.arange(10).reshape(2, 5)[1]
    # the base has no Python reference any more; the view still reads valid data
    same(v, [5, 6, 7, 8, 9], _C.int64)
