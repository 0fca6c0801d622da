"""`Tensor.index_put_` / `Tensor.index_put`: values, errors and gradients as torch 2.15's
(expected values below were printed by torch 2.15 for the same calls)."""

import pytest

import _C


def _x():
    return _C.zeros(3, 4)


def test_put_and_mask():
    r = _x().index_put_((_C.tensor([0, 2]),), _C.tensor(1.0))
    assert r.tolist() == [[1.0] * 4, [0.0] * 4, [1.0] * 4]
    x = _x()
    assert x.index_put_((x == 0,), _C.tensor(3.0)) is x
    assert x.tolist() == [[3.0] * 4] * 3
    # A list of index tensors is accepted as torch accepts it.
    assert _x().index_put_([_C.tensor([0])], _C.tensor(1.0)).tolist()[0] == [1.0] * 4


def test_accumulate_adds_repeated_indices_for_every_dtype():
    r = _x().index_put_((_C.tensor([0, 0, 2]), _C.tensor([1, 1, 3])), _C.tensor([5.0, 6.0, 7.0]), accumulate=True)
    assert r.tolist() == [[0.0, 11.0, 0.0, 0.0], [0.0] * 4, [0.0, 0.0, 0.0, 7.0]]
    r = _C.zeros(4, dtype=_C.long).index_put_((_C.tensor([1, 1, 3]),), _C.tensor([5, 6, 7]), accumulate=True)
    assert r.tolist() == [0, 11, 0, 7]
    r = _C.zeros(3, dtype=_C.bool).index_put_((_C.tensor([1, 1]),), _C.tensor([True, False]), accumulate=True)
    assert r.tolist() == [False, True, False]


def test_out_of_place_leaves_self():
    x = _x()
    r = x.index_put((_C.tensor([1]),), _C.ones(4))
    assert r.tolist() == [[0.0] * 4, [1.0] * 4, [0.0] * 4]
    assert x.tolist() == [[0.0] * 4] * 3


@pytest.mark.parametrize("accumulate", [False, True])
def test_errors(accumulate):
    with pytest.raises(RuntimeError, match=r"^Index put requires the source and destination dtypes match, got Float for the destination and Long for the source\.$"):
        _x().index_put_((_C.tensor([0]),), _C.tensor([1, 2, 3, 4]), accumulate=accumulate)
    with pytest.raises(IndexError, match=r"^index 5 is out of bounds for dimension 0 with size 3$"):
        _x().index_put_((_C.tensor([5]),), _C.tensor(1.0), accumulate=accumulate)
    with pytest.raises(TypeError, match=r"^index_put_\(\): argument 'indices' \(position 1\) must be tuple of Tensors, not Tensor$"):
        _x().index_put_(_C.tensor([0]), _C.tensor(1.0), accumulate=accumulate)


def test_autograd():
    a = _C.ones(3, requires_grad=True)
    y = a * 2
    y.index_put_((_C.tensor([0]),), _C.tensor(0.0))
    y.sum().backward()
    assert a.grad.tolist() == [0.0, 2.0, 2.0] and y.grad_fn.name() == "IndexPutBackward0"
    a.grad = None
    y = a * 2
    z = y.index_put((_C.tensor([1]),), a[:1] * 5)
    z.sum().backward()
    assert a.grad.tolist() == [7.0, 0.0, 2.0]
    assert (z.grad_fn.name(), y.grad_fn.name()) == ("IndexPutBackward0", "MulBackward0")
    with pytest.raises(RuntimeError, match=r"^a leaf Variable that requires grad is being used in an in-place operation\.$"):
        a.index_put_((_C.tensor([0]),), _C.tensor(0.0))
    # accumulate=True: self's gradient passes through, the values' is g[indices] (torch 2.15).
    b = _C.tensor([1.0, 1.0], requires_grad=True)
    a.grad = None
    y = a * 2
    y.index_put_((_C.tensor([0, 0]),), b, accumulate=True)
    assert y.grad_fn.name() == "IndexPutBackward0" and y.tolist() == [4.0, 2.0, 2.0]
    (y * _C.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert a.grad.tolist() == [2.0, 4.0, 6.0] and b.grad.tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match=r"^a leaf Variable that requires grad is being used in an in-place operation\.$"):
        a.index_put_((_C.tensor([0]),), _C.tensor(0.0), accumulate=True)
