"""The shape, split and strided ops of issue 13 part 3b against torch 2.15's recorded answers
(shape13b_cases.py, shape13b_expected.py), plus what a recorded answer cannot show: views sharing
storage, the meshgrid warning, in-place use of the pieces, errors for wrong argument types."""

import math
import warnings

import pytest

import _C
from shape13b_cases import cases
from shape13b_expected import EXPECTED

OBSERVED = cases(_C)

def _same(got, want):
    if isinstance(want, float) and got == want:
        return True
    if isinstance(want, float):
        if math.isnan(want):
            return isinstance(got, float) and math.isnan(got)
        return isinstance(got, (int, float)) and abs(got - want) <= 1e-6 * max(1.0, abs(want))
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(_same(g, w) for g, w in zip(got, want))
    return got == want


# torch's block_diag/cartesian_prod are Python functions taking `*tensors`, so they accept no
# argument at all; `_C`'s parser requires the Tensor[] argument (a known difference).
KNOWN_DIFFERENCES = {
    "block_diag_none": 'TypeError: block_diag() missing 1 required positional argument: "tensors"',
    "cartesian_prod_none": 'TypeError: cartesian_prod() missing 1 required positional argument: "tensors"',
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_matches_torch(name):
    assert name in OBSERVED
    if name in KNOWN_DIFFERENCES:
        assert OBSERVED[name] == KNOWN_DIFFERENCES[name]
        return
    assert _same(OBSERVED[name], EXPECTED[name]), (OBSERVED[name], EXPECTED[name])


def test_every_case_recorded():
    assert set(OBSERVED) == set(EXPECTED)


def test_meshgrid_2d_error_names_the_shape():
    # torch: "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: <the tensor>"
    with pytest.raises(RuntimeError, match=r"Expected 0D or 1D tensor in the tensor list but got a tensor of shape \[2, 2\]"):
        _C.meshgrid(_C.arange(2), _C.zeros(2, 2, dtype=_C.int64), indexing="ij")


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.tensor_split(3, 1),
        lambda t: t.tensor_split([1, 3], 1),
        lambda t: _C.tensor_split(t, _C.tensor([2]), dim=1),
        lambda t: _C.hsplit(t, 2),
        lambda t: _C.vsplit(t, [1]),
        lambda t: t.split_with_sizes([1, 1]),
    ],
)
def test_split_pieces_are_views(call):
    t = _C.arange(8.0).reshape(2, 4).clone()
    pieces = call(t)
    assert isinstance(pieces, tuple)
    for p in pieces:
        assert p._base is t
    pieces[0].fill_(-1)
    assert (t == -1).sum().item() == pieces[0].numel()


def test_dsplit_pieces_are_views():
    t = _C.zeros(1, 2, 4)
    for p in _C.dsplit(t, 2):
        assert p._base is t


def test_unfold_and_as_strided_are_views():
    t = _C.arange(7.0)
    u = t.unfold(0, 3, 2)
    assert u._base is t and u.stride() == (2, 1)
    u[1, 0] = 100.0
    assert t[2].item() == 100.0
    s = _C.as_strided(t, (2, 2), (1, 2), 1)
    assert s._base is t and s.tolist() == [[1.0, 3.0], [100.0, 4.0]]
    s[0, 0] = -5.0
    assert t[1].item() == -5.0


def test_empty_strided_geometry():
    e = _C.empty_strided((2, 3), (1, 2), dtype=_C.float64)
    assert e.shape == (2, 3) and e.stride() == (1, 2) and e.dtype == _C.float64
    assert e._base is None
    e.copy_(_C.arange(6.0).reshape(2, 3))
    assert e.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_meshgrid_without_indexing_warns_once_and_returns_views():
    a, b = _C.arange(2), _C.arange(3)
    # The warning is torch's TORCH_WARN_ONCE: once per process, so it may already be spent.
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        g = _C.meshgrid(a, b)
        _C.meshgrid(a, b)
    msgs = [str(x.message) for x in w]
    assert len(msgs) <= 1
    for m in msgs:
        assert "it will be required to pass the indexing argument" in m
    assert [t.shape for t in g] == [(2, 3), (2, 3)]
    assert g[0]._base is a and g[1]._base is b
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _C.meshgrid([a, b], indexing="ij")


def test_wrong_argument_types():
    t = _C.arange(6.0)
    with pytest.raises(TypeError):
        _C.tensor_split(t, 2.5)
    with pytest.raises(TypeError):
        t.unfold(0, "2", 1)
    with pytest.raises(TypeError):
        _C.rot90(t.reshape(2, 3), 1, "ab")
    with pytest.raises(TypeError):
        _C.meshgrid(t, indexing=3)
    with pytest.raises(TypeError):
        _C.block_diag(t, 1)


def test_block_diag_and_diag_embed_out():
    out = _C.empty(0)
    r = _C.block_diag(_C.ones(1, 1), _C.ones(1, 2), out=out)
    assert r is out and out.tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]]
    out = _C.empty(0)
    _C.diag_embed(_C.tensor([1.0, 2.0]), out=out)
    assert out.tolist() == [[1.0, 0.0], [0.0, 2.0]]


def test_as_strided_and_split_with_sizes_grad():
    # torch 2.15: overlapping windows sum their gradients; split_with_sizes pieces as narrows.
    x = _C.arange(4.0).requires_grad_()
    y = x.as_strided((2, 2), (1, 1))
    assert y.grad_fn.name() == "AsStridedBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 2.0, 1.0, 0.0]
    x.grad = None
    a, b = x.split_with_sizes([1, 3])
    (a * 2 + b.sum()).sum().backward()
    assert x.grad.tolist() == [2.0, 1.0, 1.0, 1.0]
    with _C.no_grad():
        assert x.as_strided((2,), (2,)).tolist() == [0.0, 2.0]
