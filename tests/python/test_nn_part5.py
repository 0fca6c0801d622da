"""_C.nn.functional, issue 15 part 5: the 3-d family — conv3d, conv_transpose3d, max_pool3d
(with indices), avg_pool3d, adaptive_max_pool3d, lp_pool3d, max_unpool3d. torch 2.15's values,
errors and gradients for the cases of nn_cases.py's "part5" and "part5_grad" families (recorded
in nn_expected.json by gen_nn_expected.py; torch is not imported); float64 gradcheck of each
op; independent checks (a 3-d convolution as a sum of 2-d ones, the transposed convolution as
the adjoint, the pools against a direct loop)."""

import itertools

import pytest
from nn_harness import cases, check

import _C
import _C.nn.functional as F

CASES = cases("part5")
GRAD_CASES = cases("part5_grad")
# As test_nn_grad.py: float32 gradients pass through sums ordered differently from torch's.
TOL32 = {"float32": (2e-4, 2e-5)}


@pytest.mark.parametrize("cid", sorted(CASES))
def test_case(cid):
    check(CASES[cid])


@pytest.mark.parametrize("cid", sorted(GRAD_CASES))
def test_grad_case(cid):
    check(GRAD_CASES[cid], tol=TOL32)


_SEED = [100]


def _x(*shape, low=None):
    """A float64 leaf requiring grad: standard normal, or uniform in [low, low + 1)."""
    _SEED[0] += 1
    _C.manual_seed(_SEED[0])
    t = _C.randn(*shape, dtype=_C.float64)
    if low is not None:
        t = _C.rand(*shape, dtype=_C.float64) + low
    return t.requires_grad_()


_U2 = _C.tensor([[[0.3, 0.7], [0.9, 0.1]]], dtype=_C.float64)
_U3 = _C.tensor([[[0.3, 0.7, 0.5]]], dtype=_C.float64)

# (name, function of the inputs, inputs): each passes float64 gradcheck.
GRADCHECKS = [
    ("conv3d", lambda a, w, b: F.conv3d(a, w, b, stride=(2, 1, 1), padding=(1, 0, 1), dilation=(1, 1, 2)),
     lambda: (_x(1, 2, 4, 3, 5), _x(2, 2, 2, 2, 2), _x(2))),
    ("conv3d_groups_same", lambda a, w: F.conv3d(a, w, padding="same", groups=2),
     lambda: (_x(1, 4, 3, 3, 3), _x(2, 2, 2, 3, 2))),
    ("conv_transpose3d", lambda a, w, b: F.conv_transpose3d(a, w, b, stride=2, padding=(0, 1, 0), output_padding=1),
     lambda: (_x(1, 2, 2, 3, 2), _x(2, 3, 2, 3, 2), _x(3))),
    ("max_pool3d", lambda a: F.max_pool3d(a, 2, 1, 1, ceil_mode=True), lambda: (_x(1, 2, 3, 4, 3),)),
    ("avg_pool3d", lambda a: F.avg_pool3d(a, 3, 2, 1, count_include_pad=False), lambda: (_x(1, 2, 4, 4, 3),)),
    ("avg_pool3d_divisor", lambda a: F.avg_pool3d(a, 2, 1, divisor_override=3), lambda: (_x(2, 3, 3, 3),)),
    ("adaptive_max_pool3d", lambda a: F.adaptive_max_pool3d(a, (2, 3, 2)), lambda: (_x(1, 3, 5, 4),)),
    ("lp_pool3d", lambda a: F.lp_pool3d(a, 2, 2), lambda: (_x(1, 1, 4, 4, 4, low=0.5),)),
    ("affine_grid", lambda t: F.affine_grid(t, [2, 1, 3, 4], align_corners=False), lambda: (_x(2, 2, 3),)),
    ("grid_sample", lambda a, g: F.grid_sample(a, g, align_corners=False), lambda: (_x(1, 2, 3, 4), _x(1, 2, 3, 2))),
    ("grid_sample_reflection", lambda a, g: F.grid_sample(a, g * 2, padding_mode="reflection", align_corners=True),
     lambda: (_x(1, 2, 3, 4), _x(1, 2, 3, 2))),
    ("grid_sample_border_3d", lambda a, g: F.grid_sample(a, g * 1.5, padding_mode="border", align_corners=False),
     lambda: (_x(1, 1, 2, 3, 4), _x(1, 2, 2, 1, 3))),
    ("embedding_bag_mean", lambda w: F.embedding_bag(_C.tensor([1, 2, 4, 2, 0]), w, _C.tensor([0, 2]), padding_idx=0),
     lambda: (_x(5, 3),)),
    ("embedding_bag_max", lambda w: F.embedding_bag(_C.tensor([[1, 2, 4], [3, 2, 0]]), w, mode="max"), lambda: (_x(5, 3),)),
    ("embedding_bag_psw", lambda w, p: F.embedding_bag(_C.tensor([1, 2, 4, 2]), w, _C.tensor([0, 1]), mode="sum",
                                                     per_sample_weights=p), lambda: (_x(5, 3), _x(4))),
    ("interpolate_bicubic", lambda a: F.interpolate(a, (5, 7), mode="bicubic", align_corners=False),
     lambda: (_x(1, 2, 4, 5),)),
    ("interpolate_trilinear", lambda a: F.interpolate(a, (3, 4, 2), mode="trilinear", align_corners=True),
     lambda: (_x(1, 1, 2, 3, 4),)),
    ("fractional_max_pool2d", lambda a: F.fractional_max_pool2d(a, 2, output_size=(3, 2), _random_samples=_U2),
     lambda: (_x(1, 2, 5, 4),)),
    ("fractional_max_pool3d", lambda a: F.fractional_max_pool3d(a, 2, output_size=(2, 3, 2), _random_samples=_U3),
     lambda: (_x(1, 1, 3, 4, 4),)),
    ("multi_head_attention_forward",
     lambda q, w, ow: F.multi_head_attention_forward(q, q, q, 4, 2, w, None, None, None, False, 0.0, ow, None)[0],
     lambda: (_x(3, 2, 4), _x(12, 4), _x(4, 4))),
    ("ctc_loss", lambda x: F.ctc_loss(x.log_softmax(2), _C.tensor([[1, 2, 2], [3, 1, 0]]), [5, 4], [3, 2]),
     lambda: (_x(5, 2, 4),)),
    ("max_unpool3d", lambda a: F.max_unpool3d(a, _C.tensor([[[[[0, 7]]]]]), 2),
     lambda: (_x(1, 1, 1, 1, 2),)),
]


@pytest.mark.parametrize("name, f, make", GRADCHECKS, ids=[g[0] for g in GRADCHECKS])
def test_gradcheck(name, f, make):
    assert _C.autograd.gradcheck(f, make())


# Every one also passes gradgradcheck: the compositions of generic ops, and those over the conv
# and pool kernels through their nodes' double backward (Note [nn double backward]).
GRADGRADCHECKS = GRADCHECKS


@pytest.mark.parametrize("name, f, make", GRADGRADCHECKS, ids=[g[0] for g in GRADGRADCHECKS])
def test_gradgradcheck(name, f, make):
    assert _C.autograd.gradgradcheck(f, make())


def test_conv3d_is_a_sum_of_conv2d():
    # y[:, :, z] = sum over kernel depth dz of conv2d(x[:, :, z + dz], w[:, :, dz]).
    x, w, b = _x(2, 3, 5, 4, 6).detach(), _x(4, 3, 2, 3, 2).detach(), _x(4).detach()
    y = F.conv3d(x, w, b, padding=(0, 1, 0))
    for z in range(4):
        want = b.reshape(1, 4, 1, 1) + sum(F.conv2d(x[:, :, z + dz], w[:, :, dz], padding=(1, 0)) for dz in range(2))
        assert float((y[:, :, z] - want).abs().max()) < 1e-12


def test_conv_transpose3d_is_conv3ds_adjoint():
    # <conv3d(x, w), c> == <x, conv_transpose3d(c, w)> for matching geometry.
    args = dict(stride=(2, 1, 2), padding=(1, 0, 1), dilation=(1, 2, 1))
    x, w = _x(2, 3, 6, 7, 5).detach(), _x(4, 3, 3, 2, 3).detach()
    y = F.conv3d(x, w, **args)
    c = _x(*y.shape).detach()
    z = F.conv_transpose3d(c, w, output_padding=(1, 0, 0), **args)
    assert list(z.shape) == list(x.shape)
    assert float((y * c).sum()) == pytest.approx(float((x * z).sum()), rel=1e-12)


def _direct_pool(x, k, s, p, reduce):
    """A direct loop over every window of a (T, H, W) list volume (padding skipped)."""
    t, h, w = len(x), len(x[0]), len(x[0][0])
    outs = [(n + 2 * pp - kk) // ss + 1 for n, kk, ss, pp in zip((t, h, w), k, s, p)]
    res = []
    for oz, oy, ox in itertools.product(*(range(o) for o in outs)):
        vals = []
        for a, b, c in itertools.product(*(range(kk) for kk in k)):
            z, y, xx = oz * s[0] - p[0] + a, oy * s[1] - p[1] + b, ox * s[2] - p[2] + c
            if 0 <= z < t and 0 <= y < h and 0 <= xx < w:
                vals.append((x[z][y][xx], (z * h + y) * w + xx))
        res.append(reduce(vals))
    return res


def test_pools_match_a_direct_loop():
    x = _x(1, 1, 5, 6, 4).detach()
    xl = x[0, 0].tolist()
    k, s, p = (3, 2, 3), (2, 2, 1), (1, 0, 1)
    y, i = F.max_pool3d(x, k, s, p, return_indices=True)
    want = _direct_pool(xl, k, s, p, lambda v: max(v, key=lambda e: e[0]))
    assert y.reshape(-1).tolist() == [v for v, _ in want]
    assert i.reshape(-1).tolist() == [j for _, j in want]
    a = F.avg_pool3d(x, k, s, p, count_include_pad=False)
    want = _direct_pool(xl, k, s, p, lambda v: sum(e[0] for e in v) / len(v))
    assert a.reshape(-1).tolist() == pytest.approx(want, rel=1e-12)


def test_max_unpool3d_inverts_max_pool3d_on_the_maxima():
    x = _x(2, 3, 4, 6, 4).detach().abs() + 1.0
    y, i = F.max_pool3d(x, 2, return_indices=True)
    u = F.max_unpool3d(y, i, 2)
    assert bool((F.max_pool3d(u, 2) == y).all())
    assert int((u != 0).sum()) == y.numel()


def test_bad_argument_types():
    x = _x(1, 2, 3, 3, 3).detach()
    with pytest.raises(TypeError):
        F.conv3d(x, "w")
    with pytest.raises(TypeError):
        F.conv3d(x, x, stride="a")
    with pytest.raises(TypeError):
        F.conv_transpose3d(x, None)


def test_public_names():
    for name in ["conv3d", "conv_transpose3d", "max_pool3d", "max_pool3d_with_indices", "avg_pool3d",
                 "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "lp_pool3d", "max_unpool3d", "affine_grid",
                 "grid_sample", "embedding_bag", "fractional_max_pool2d", "fractional_max_pool3d",
                 "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices",
                 "multi_head_attention_forward", "ctc_loss"]:
        assert name in F.__all__
        assert getattr(F, name).__doc__


def test_bicubic_reproduces_a_linear_function_inside():
    # Cubic convolution (any A, here -0.75) sums to 1 and is symmetric, so it reproduces
    # linear functions away from the borders: x -> 3x + 1 along W, at align_corners=True positions.
    w = 12
    x = _C.tensor([3.0 * i + 1 for i in range(w)], dtype=_C.float64).reshape(1, 1, 1, w).expand(1, 1, 3, w)
    y = F.interpolate(x, (3, 23), mode="bicubic", align_corners=True)
    s = (w - 1) / 22
    for o in range(4, 19):
        assert float(y[0, 0, 1, o]) == pytest.approx(3.0 * s * o + 1, rel=1e-12)


def test_grid_sample_bicubic_of_a_constant_is_the_constant():
    # Keys' cubic weights sum to 1 (the values against torch's: test_nn_e.py).
    y = F.grid_sample(_C.full((1, 1, 3, 3), 2.5), _C.zeros(1, 2, 2, 2), mode="bicubic", padding_mode="border",
                      align_corners=False)
    assert y.tolist() == [[[[2.5, 2.5], [2.5, 2.5]]]]


def test_grid_sample_identity_grid_returns_the_input():
    # The affine_grid of the identity samples every pixel centre (align_corners=False) or
    # corner (True) exactly.
    x = _x(2, 3, 4, 5).detach()
    for ac in (False, True):
        g = F.affine_grid(_C.tensor([[[1.0, 0, 0], [0, 1.0, 0]]] * 2, dtype=_C.float64), [2, 3, 4, 5], align_corners=ac)
        for mode in ("bilinear", "nearest"):
            y = F.grid_sample(x, g, mode=mode, align_corners=ac)
            assert float((y - x).abs().max()) < 1e-12


def test_embedding_bag_matches_a_direct_loop():
    w = _x(10, 4).detach()
    idx = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3]
    offs = [0, 3, 3, 7]
    ends = offs[1:] + [len(idx)]
    for mode in ("sum", "mean", "max"):
        y = F.embedding_bag(_C.tensor(idx), w, _C.tensor(offs), mode=mode, padding_idx=5)
        for b, (s, e) in enumerate(zip(offs, ends)):
            rows = [w[i].tolist() for i in idx[s:e] if i != 5]
            for k in range(4):
                col = [r[k] for r in rows]
                want = 0.0 if not col else sum(col) if mode == "sum" else sum(col) / len(col) if mode == "mean" else max(col)
                assert float(y[b, k]) == pytest.approx(want, rel=1e-12, abs=1e-15)


def test_embedding_bag_sparse_gradients_are_not_supported():
    w = _x(10, 3)
    with pytest.raises(NotImplementedError):
        F.embedding_bag(_C.tensor([[1, 2]]), w, sparse=True)


def test_fractional_max_pool_draws_its_samples():
    # Without _random_samples the windows come from _C's generator: a fixed seed repeats them,
    # and each output is the maximum of some kernel-sized window of its plane.
    x = _x(2, 3, 9, 10).detach()
    _C.manual_seed(7)
    a, ia = F.fractional_max_pool2d(x, 3, output_size=(4, 5), return_indices=True)
    _C.manual_seed(7)
    b = F.fractional_max_pool2d(x, 3, output_size=(4, 5))
    assert bool((a == b).all())
    assert bool((x.reshape(2, 3, -1).gather(2, ia.reshape(2, 3, -1)) == a.reshape(2, 3, -1)).all())


def test_multi_head_attention_without_weights_returns_none():
    q = _x(3, 2, 4).detach()
    out, weights = F.multi_head_attention_forward(q, q, q, 4, 2, _x(12, 4).detach(), None, None, None, False, 0.0,
                                                  _x(4, 4).detach(), None, need_weights=False)
    assert weights is None
    assert list(out.shape) == [3, 2, 4]
