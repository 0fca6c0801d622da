"""_C.nn.functional, issue 15 (session nn15f): antialiased ``interpolate`` (bilinear / bicubic,
float32 / float64 / uint8) and uint8 bilinear / bicubic, their gradients; multi_margin_loss's
non-differentiable ``weight``; hardsigmoid's missing double backward. Expected values are torch
2.15's (nn_15f_expected.json, written by gen_nn_15f_expected.py; torch is not imported)."""

import json
import os

import pytest
from nn_15f_cases import CASES, image

import _C
import _C.nn.functional as F

with open(os.path.join(os.path.dirname(__file__), "nn_15f_expected.json")) as _f:
    EXPECTED = json.load(_f)


def close(a, b, rel, abs_=0.0):
    assert len(a) == len(b)
    for u, v in zip(a, b):
        assert abs(u - v) <= abs_ + rel * abs(v), (u, v)


@pytest.mark.parametrize("name", sorted(CASES))
def test_resampling_matches_torch(name):
    got, want = CASES[name](_C, F), EXPECTED[name]
    if name.endswith("_grad"):
        # The gradient is the transposed resampling: sums ordered differently from torch's.
        close(got, want, 1e-12, 1e-12)
        return
    assert got["shape"] == want["shape"]
    if name.endswith("_uint8"):
        # torch's integer arithmetic (int16 weights, rounding per pass): exact.
        assert got["values"] == want["values"]
    elif name.endswith("_float32"):
        # The taps are computed in float32 as torch's; the sums' order differs (a few ulps).
        close(got["values"], want["values"], 2e-6, 2e-6)
    else:
        close(got["values"], want["values"], 1e-12, 1e-12)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("kw", [dict(size=(3, 4)), dict(size=(9, 2)), dict(scale_factor=(0.6, 1.4), align_corners=True)])
def test_antialias_gradcheck(mode, kw):
    x = image(_C, [1, 2, 5, 6], "float64").requires_grad_()
    f = lambda t: F.interpolate(t, mode=mode, antialias=True, **kw)
    assert _C.autograd.gradcheck(f, (x,))
    assert _C.autograd.gradgradcheck(f, (x,))


def test_antialias_is_plain_interpolation_when_upsampling_bilinear():
    # With a scale below 1 the triangle filter is not widened: the same taps as plain bilinear.
    x = image(_C, [1, 2, 4, 5], "float64")
    a = F.interpolate(x, size=(9, 11), mode="bilinear", antialias=True)
    b = F.interpolate(x, size=(9, 11), mode="bilinear")
    assert float((a - b).abs().max()) < 1e-12


def test_antialias_and_uint8_errors_as_torch():
    with pytest.raises(NotImplementedError, match="\"compute_index_ranges_weights\" not implemented for 'Long'"):
        F.interpolate(_C.ones(1, 1, 4, 4, dtype=_C.int64), size=(3, 3), mode="bilinear", antialias=True)
    with pytest.raises(RuntimeError, match=r"Input and output sizes should be greater than 0, but got input \(H: 4, W: 4\) output \(H: 0, W: 3\)"):
        F.interpolate(_C.ones(1, 1, 4, 4), size=(0, 3), mode="bilinear", antialias=True)
    with pytest.raises(RuntimeError, match=r"but got input \(H: 0, W: 4\) output \(H: 2, W: 2\)"):
        F.interpolate(_C.ones(1, 1, 0, 4, dtype=_C.uint8), size=(2, 2), mode="bicubic")
    with pytest.raises(ValueError, match="Anti-alias option is restricted to bilinear, bicubic"):
        F.interpolate(_C.ones(1, 1, 4), size=3, mode="linear", antialias=True)
    assert F.interpolate(_C.ones(0, 3, 3, 4, dtype=_C.uint8), size=(5, 2), mode="bilinear", antialias=True).shape == (0, 3, 5, 2)
    y = F.interpolate(_C.full((1, 1, 3, 3), 200, dtype=_C.uint8), size=(5, 4), mode="bicubic")
    assert y.dtype == _C.uint8 and bool((y == 200).all())


def test_multi_margin_loss_weight_is_not_differentiable():
    x = _C.tensor([[0.1, 0.8, -0.3, 0.4]], requires_grad=True)
    y = _C.tensor([1])
    w = _C.tensor([1.0, 2.0, 0.5, 1.5], requires_grad=True)
    text = ("The function 'multi_margin_loss' is not differentiable with respect to argument 'weight'. "
            "This input cannot have requires_grad True.")
    with pytest.raises(RuntimeError) as e:
        F.multi_margin_loss(x, y, weight=w)
    assert str(e.value) == text
    with pytest.raises(RuntimeError):
        F.multi_margin_loss(x.detach(), y, weight=w)
    with _C.no_grad():
        # torch 2.15: tensor(0.4000)
        assert float(F.multi_margin_loss(x, y, weight=w)) == pytest.approx(0.45, abs=1e-6)
    loss = F.multi_margin_loss(x, y, weight=w.detach())
    loss.backward()
    # torch 2.15: [0.5, -1.0, 0.0, 0.5]
    assert x.grad.tolist()[0] == pytest.approx([0.5, -1.0, 0.0, 0.5])


def test_hardsigmoid_double_backward_raises_as_torch():
    x = _C.tensor([-4.0, -1.0, 0.5, 2.0, 3.5], dtype=_C.float64, requires_grad=True)
    (g,) = _C.autograd.grad(F.hardsigmoid(x).sum(), x, create_graph=True)
    # torch 2.15: [0, 1/6, 1/6, 1/6, 0] with grad_fn <NotImplemented>.
    assert g.tolist() == pytest.approx([0.0, 1 / 6, 1 / 6, 1 / 6, 0.0])
    assert g.requires_grad and g.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="^derivative for aten::hardsigmoid_backward is not implemented$"):
        _C.autograd.grad(g.sum(), x)
    # The first derivative alone is unaffected.
    (g1,) = _C.autograd.grad(F.hardsigmoid(x).sum(), x)
    assert g1.tolist() == pytest.approx([0.0, 1 / 6, 1 / 6, 1 / 6, 0.0])


def test_antialias_reads_only_each_outputs_taps():
    # torch 2.15: [inf, inf, 5.894736842105262] and [inf, inf, -inf] (an inf reaches only the
    # outputs whose taps cover it, with its weight's sign).
    x = _C.tensor([[[[1.0, float("inf"), 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]]]], dtype=_C.float64)
    a = F.interpolate(x, size=(1, 3), mode="bilinear", antialias=True).flatten().tolist()
    assert a[:2] == [float("inf")] * 2 and a[2] == pytest.approx(5.894736842105262, rel=1e-12)
    b = F.interpolate(x, size=(1, 3), mode="bicubic", antialias=True).flatten().tolist()
    assert b == [float("inf"), float("inf"), float("-inf")]
