"""_C.nn.functional, issue 15 part 4: unfold/fold, max_unpool1d/2d, adaptive_max_pool1d/2d,
local_response_norm, the alpha dropouts, gumbel_softmax, multi_margin_loss,
multilabel_margin_loss, triplet_margin_with_distance_loss. torch 2.15's values, errors and
gradients for the cases of nn_cases.py's "part4" and "part4_grad" families (recorded in
nn_expected.json by gen_nn_expected.py; torch is not imported); float64 gradcheck and
gradgradcheck of each composition; the random functions' properties (torch's draws differ)."""

import math

import pytest
from nn_harness import cases, check

import _C
import _C.nn.functional as F

CASES = cases("part4")
GRAD_CASES = cases("part4_grad")
# As test_nn_grad.py: float32 gradients pass through sums ordered differently from torch's.
TOL32 = {"float32": (2e-4, 2e-5)}


@pytest.mark.parametrize("cid", sorted(CASES))
def test_case(cid):
    check(CASES[cid])


@pytest.mark.parametrize("cid", sorted(GRAD_CASES))
def test_grad_case(cid):
    check(GRAD_CASES[cid], tol=TOL32)


_SEED = [0]


def _x(*shape, low=None):
    """A float64 leaf requiring grad: standard normal, or uniform in [low, low + 1)."""
    _SEED[0] += 1
    _C.manual_seed(_SEED[0])
    t = _C.randn(*shape, dtype=_C.float64)
    if low is not None:
        t = _C.rand(*shape, dtype=_C.float64) + low
    return t.requires_grad_()


_Y = _C.tensor([0, 3, 1, 1, 2])
_ML = _C.tensor([[3, 0, -1, 1], [0, 1, 2, 3], [1, 1, -1, 0]])
# multi_margin_loss's weight is not differentiable (torch raises when it requires grad).
_MW = _C.tensor([0.7, 1.3, 0.5, 1.1], dtype=_C.float64)

# (name, function of the inputs, inputs): each passes float64 gradcheck and gradgradcheck.
GRADCHECKS = [
    ("unfold", lambda a: F.unfold(a, (2, 3), dilation=(2, 1), padding=(1, 2), stride=(2, 3)), lambda: (_x(1, 2, 5, 6),)),
    ("fold", lambda c: F.fold(c, (4, 5), 2, padding=1), lambda: (_x(1, 8, 30),)),
    ("max_unpool2d", lambda a: F.max_unpool2d(a, _C.tensor([[[[0, 3], [9, 14]]]]), 2), lambda: (_x(1, 1, 2, 2),)),
    ("max_unpool1d", lambda a: F.max_unpool1d(a, _C.tensor([[1, 2, 5]]), 2), lambda: (_x(1, 3),)),
    ("adaptive_max_pool2d", lambda a: F.adaptive_max_pool2d(a, (2, 3)), lambda: (_x(1, 2, 5, 4),)),
    ("adaptive_max_pool1d", lambda a: F.adaptive_max_pool1d(a, 3), lambda: (_x(2, 7),)),
    ("local_response_norm", lambda a: F.local_response_norm(a, 3, alpha=0.5), lambda: (_x(2, 4, 3),)),
    ("local_response_norm_4d", lambda a: F.local_response_norm(a, 2, alpha=0.5), lambda: (_x(1, 3, 2, 2),)),
    ("multi_margin_loss", lambda a: F.multi_margin_loss(a, _Y, p=2, margin=2.0, weight=_MW),
     lambda: (_x(5, 4),)),
    ("multilabel_margin_loss", lambda a: F.multilabel_margin_loss(a * 0.3, _ML, reduction="sum"), lambda: (_x(3, 4),)),
    ("triplet_margin_with_distance_loss",
     lambda a, p, n: F.triplet_margin_with_distance_loss(a, p, n, margin=3.0, swap=True), lambda: (_x(3, 4), _x(3, 4), _x(3, 4))),
    ("adaptive_avg_pool3d", lambda a: F.adaptive_avg_pool3d(a, (2, 3, 2)), lambda: (_x(1, 3, 4, 3),)),
    ("pixel_shuffle", lambda a: F.pixel_shuffle(a, 2), lambda: (_x(1, 4, 2, 3),)),
    ("pixel_unshuffle", lambda a: F.pixel_unshuffle(a, 2), lambda: (_x(1, 1, 4, 2),)),
    ("channel_shuffle", lambda a: F.channel_shuffle(a, 2), lambda: (_x(1, 4, 3),)),
    ("pdist", lambda a: F.pdist(a), lambda: (_x(4, 3),)),
    ("lp_pool2d", lambda a: F.lp_pool2d(a, 2, 2), lambda: (_x(1, 1, 4, 4, low=0.5),)),
    ("poisson_nll_loss", lambda a, b: F.poisson_nll_loss(a, b), lambda: (_x(3, 4), _x(3, 4, low=0.5))),
    ("gaussian_nll_loss", lambda a, b, v: F.gaussian_nll_loss(a, b, v), lambda: (_x(3, 4), _x(4, 3).t(), _x(3, 4, low=0.5))),
    ("soft_margin_loss", lambda a: F.soft_margin_loss(a, _C.tensor([1.0, -1.0, 1.0], dtype=_C.float64)), lambda: (_x(3),)),
]


@pytest.mark.parametrize("name, f, make", GRADCHECKS, ids=[g[0] for g in GRADCHECKS])
def test_gradcheck(name, f, make):
    assert _C.autograd.gradcheck(f, make())


# lp_pool2d is avg_pool2d of x^p, adaptive_avg_pool3d two adaptive_avg_pool2d: those backward
# kernels have no derivative yet (their double backward raises torch's NotImplementedError).
GRADGRADCHECKS = GRADCHECKS  # lp_pool2d and adaptive_avg_pool3d too since the pools' double backward


@pytest.mark.parametrize("name, f, make", GRADGRADCHECKS, ids=[g[0] for g in GRADGRADCHECKS])
def test_gradgradcheck(name, f, make):
    assert _C.autograd.gradgradcheck(f, make())


def test_fold_is_unfolds_adjoint():
    # <unfold(x), c> == <x, fold(c)>: col2im is the transpose of im2col.
    x = _x(2, 3, 6, 7).detach()
    args = dict(kernel_size=(3, 2), dilation=(1, 2), padding=(2, 1), stride=(2, 1))
    u = F.unfold(x, **args)
    c = _x(*u.shape).detach()
    assert float((u * c).sum()) == pytest.approx(float((x * F.fold(c, (6, 7), **args)).sum()), rel=1e-12)


def test_max_unpool_inverts_max_pool_on_the_maxima():
    x = _x(2, 3, 6, 6).detach().abs() + 1.0
    y, i = F.max_pool2d(x, 2, return_indices=True)
    u = F.max_unpool2d(y, i, 2)
    assert bool((F.max_pool2d(u, 2) == y).all())
    assert int((u != 0).sum()) == y.numel()


def test_alpha_dropout_training_keeps_mean_and_variance():
    _C.manual_seed(0)
    x = _C.randn(200000, dtype=_C.float64)
    y = F.alpha_dropout(x, 0.2, training=True)
    assert abs(float(y.mean())) < 0.02
    assert abs(float(y.var()) - 1.0) < 0.03
    # The dropped elements share one value: selu's saturation -alpha' affinely mapped, a * -alpha' + b.
    alpha = 1.7580993408473766
    a = 1.0 / math.sqrt((alpha * alpha * 0.2 + 1) * 0.8)
    dropped = -alpha * a + alpha * a * 0.2
    frac = float((y == dropped).to(_C.float64).mean())
    assert abs(frac - 0.2) < 0.01


def test_alpha_dropout_gradient_is_the_kept_scale():
    _C.manual_seed(1)
    x = _C.randn(1000, dtype=_C.float64, requires_grad=True)
    y = F.alpha_dropout(x, 0.5, training=True)
    y.sum().backward()
    a = 1.0 / math.sqrt((1.7580993408473766**2 * 0.5 + 1) * 0.5)
    grads = x.grad.tolist()
    assert all(g == 0.0 or g == pytest.approx(a, rel=1e-12) for g in grads)
    assert 300 < sum(g == 0.0 for g in grads) < 700


def test_feature_alpha_dropout_drops_whole_channels():
    _C.manual_seed(2)
    x = _C.randn(8, 16, 5, dtype=_C.float64)
    y = F.feature_alpha_dropout(x, 0.5, training=True)
    d = y - x
    # Per (n, c) the map x -> y is affine with one of two slopes: 0 (dropped) or a (kept).
    for n in range(8):
        for c in range(16):
            row = y[n, c].tolist()
            assert len(set(row)) == 1 or len(set(row)) == 5
    assert d.shape == x.shape


def test_alpha_dropout_inplace():
    _C.manual_seed(3)
    x = _C.randn(10, dtype=_C.float64)
    r = F.alpha_dropout(x, 0.3, training=True, inplace=True)
    assert r is x
    r = F.feature_alpha_dropout(x.reshape(2, 5), 1.0, training=True, inplace=True)
    assert r.tolist() == [[0.0] * 5] * 2


def test_gumbel_softmax_soft_and_hard():
    _C.manual_seed(4)
    logits = _C.randn(6, 5, dtype=_C.float64, requires_grad=True)
    y = F.gumbel_softmax(logits, tau=0.5)
    assert _C.allclose(y.sum(-1), _C.ones(6, dtype=_C.float64))
    assert bool((y > 0).all())
    h = F.gumbel_softmax(logits, hard=True, dim=0)
    assert h.sum(0).tolist() == [1.0] * 5
    assert set(h.detach().reshape(-1).tolist()) <= {0.0, 1.0}
    # Straight through: the hard sample's gradient is the soft sample's (nonzero).
    (h * _C.arange(30, dtype=_C.float64).reshape(6, 5)).sum().backward()
    assert float(logits.grad.abs().sum()) > 0


def test_gumbel_softmax_follows_the_distribution():
    # P(argmax = i) = softmax(logits)_i.
    _C.manual_seed(5)
    logits = _C.tensor([0.0, 1.0, 2.0], dtype=_C.float64).expand(20000, 3)
    h = F.gumbel_softmax(logits, hard=True)
    freq = h.mean(0).tolist()
    want = _C.softmax(_C.tensor([0.0, 1.0, 2.0], dtype=_C.float64), 0).tolist()
    for f, w in zip(freq, want):
        assert abs(f - w) < 0.015


def test_public_names():
    for name in ["unfold", "fold", "max_unpool1d", "max_unpool2d", "adaptive_max_pool1d", "adaptive_max_pool2d",
                 "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices", "max_pool1d_with_indices",
                 "local_response_norm", "gumbel_softmax", "alpha_dropout", "feature_alpha_dropout", "celu_",
                 "selu_", "rrelu_", "multi_margin_loss", "multilabel_margin_loss",
                 "triplet_margin_with_distance_loss", "adaptive_avg_pool3d"]:
        assert name in F.__all__
        assert getattr(F, name).__doc__
