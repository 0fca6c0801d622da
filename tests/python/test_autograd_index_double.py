"""Double backward through indexing (issue 12): the backward of `t[items]` (basic, integer and
advanced indexing), of `t[items] = value` on a non-leaf (CopySlices, IndexPutBackward0) and of
a view of a base written in place is itself differentiable under `create_graph=True`, as in
torch. Gradients are checked by float64 gradgradcheck (finite differences, independent of our
formulas) and against values recorded from torch 2.15."""

import math

import pytest

import _C


def _x():
    return _C.tensor(
        [[0.5, -1.0, 2.0, 1.5], [3.0, 0.25, -0.5, 1.0], [2.0, 1.0, -2.0, 0.75]],
        dtype=_C.float64,
        requires_grad=True,
    )


def _setitem_basic(x, v):
    y = x * 1.5
    y[:, 1:3] = v * v
    return (y * y).sum()


def _setitem_advanced(x, v):
    y = x.sin()
    y[_C.tensor([2, 0])] = v.sin()
    return y * x


def _view_after_write(x, v):
    y = x * x
    row = y[1]
    y[1, 2:] = v
    return row * 2.0


def _setitem_step(x, v):
    y = x * x
    y[:, ::2] = v * x[:, 1:2]
    return y**2


def _inplace_on_transposed_view(x, v):
    y = x * 1.0
    y.t()[1].mul_(v)
    return y * x


CASES = {
    "slice": (lambda x: x[:, :3] ** 3, lambda: (_x(),)),
    "int_int": (lambda x: x[0, 0] * x[1, 2] * x, lambda: (_x(),)),
    "step_ellipsis": (lambda x: (x[..., ::2] * x[1:, 1::2].sum()) ** 2, lambda: (_x(),)),
    "newaxis_select": (lambda x: x[None, :, 2] * x[:, None, 1], lambda: (_x(),)),
    "advanced_repeats": (lambda x: x[_C.tensor([2, 0, 2])] ** 2, lambda: (_x(),)),
    "mix_advanced": (
        lambda x: x[1:, _C.tensor([3, 0])] * x[_C.tensor([0, 0]), 1:3],
        lambda: (_x(),),
    ),
    "mask": (lambda x: x[x.detach() > 0.6] ** 3, lambda: (_x(),)),
    "masked_select": (lambda x: x.masked_select(x.detach() < 1.2) ** 2, lambda: (_x(),)),
    "setitem_basic": (
        _setitem_basic,
        lambda: (_x(), _C.tensor([[0.3], [-0.7], [1.1]], dtype=_C.float64, requires_grad=True)),
    ),
    "setitem_advanced": (
        _setitem_advanced,
        lambda: (_x(), _C.tensor([0.2, -0.4, 0.9, 1.3], dtype=_C.float64, requires_grad=True)),
    ),
    "setitem_step": (
        _setitem_step,
        lambda: (_x(), _C.tensor([[0.3, 0.2]], dtype=_C.float64, requires_grad=True)),
    ),
    "inplace_transposed_view": (
        _inplace_on_transposed_view,
        lambda: (_x(), _C.tensor([0.3, -0.2, 1.4], dtype=_C.float64, requires_grad=True)),
    ),
    "view_after_write": (
        _view_after_write,
        lambda: (_x(), _C.tensor([0.6, -1.2], dtype=_C.float64, requires_grad=True)),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_indexing_gradgradcheck(name):
    f, make = CASES[name]
    inputs = make()
    assert _C.autograd.gradcheck(f, inputs)
    assert _C.autograd.gradgradcheck(f, inputs)


def test_first_order_backward_records_nothing():
    # Without create_graph the gradient of an indexing has no history (the fast path).
    x = _x()
    (g,) = _C.autograd.grad((x[1:, 1:] * x[_C.tensor([1, 1])][:, :3]).sum(), x)
    assert not g.requires_grad
    (g,) = _C.autograd.grad((x[0, 1:] ** 2).sum(), x, create_graph=True)
    assert g.requires_grad
    assert g.grad_fn is not None


def test_slice_and_select_match_torch():
    # torch 2.15:
    #   y = (x[:, :3] ** 3).sum() + (x[0, 1] * x[2, 3]) ** 2
    #   g = grad(y, x, create_graph=True); gg = grad((g * g).sum(), x)
    x = _x()
    y = (x[:, :3] ** 3).sum() + (x[0, 1] * x[2, 3]) ** 2
    (g,) = _C.autograd.grad(y, x, create_graph=True)
    (gg,) = _C.autograd.grad((g * g).sum(), x)
    assert g.tolist() == [[0.75, 1.875, 12.0, 0.0], [27.0, 0.1875, 0.75, 0.0], [12.0, 3.0, 12.0, 1.5]]
    assert gg.tolist() == [
        [4.5, -27.28125, 288.0, 0.0],
        [972.0, 0.5625, -4.5, 0.0],
        [288.0, 36.0, -288.0, -5.25],
    ]


def test_advanced_index_with_repeats_matches_torch():
    # torch 2.15:
    #   idx = tensor([2, 0, 2]); y = (x[idx, 1:] ** 2 * x[idx, :3]).sum()
    #   g = grad(y, x, create_graph=True); gg = grad(g.sin().sum(), x)
    x = _x()
    idx = _C.tensor([2, 0, 2])
    y = (x[idx, 1:] ** 2 * x[idx, :3]).sum()
    (g,) = _C.autograd.grad(y, x, create_graph=True)
    (gg,) = _C.autograd.grad(g.sin().sum(), x)
    assert g.tolist() == [[1.0, 3.0, -1.75, 6.0], [0.0, 0.0, 0.0, 0.0], [2.0, 16.0, -6.875, -6.0]]
    expected = [
        [1.9799849932008908, -2.783581330934693, -0.7229670151516996, 3.3059429796529876],
        [0.0, 0.0, 0.0, 0.0],
        [-3.8306379212935386, -15.965300685665982, 13.861505450983342, -5.191573231869052],
    ]
    for row, exp_row in zip(gg.tolist(), expected):
        for a, b in zip(row, exp_row):
            assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


def test_third_order_through_indexing():
    # d^3/dx^3 of sum(x[1:, ::2] ** 4) is 24 x at the indexed elements, 0 elsewhere.
    x = _x()
    (g,) = _C.autograd.grad((x[1:, ::2] ** 4).sum(), x, create_graph=True)
    (gg,) = _C.autograd.grad(g.sum(), x, create_graph=True)
    (ggg,) = _C.autograd.grad(gg.sum(), x)
    xs = x.tolist()
    expected = [[24.0 * v if (i >= 1 and j % 2 == 0) else 0.0 for j, v in enumerate(r)] for i, r in enumerate(xs)]
    assert ggg.tolist() == expected
