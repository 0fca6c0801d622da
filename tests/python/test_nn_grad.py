"""_C.nn.functional gradients (issue 15 part 2, the nn backward kernels): torch 2.15's gradients
for the cases of nn_cases.py's "grad" family (recorded in nn_expected.json by
gen_nn_expected.py; torch is not imported), a small CNN trained for a few steps whose losses
and weights match torch's, and the behaviour around the nodes (names, dropout's saved mask,
double backward refused, errors)."""

import pytest
from nn_harness import cases, check

import _C
import _C.nn.functional as F

CASES = cases("grad")


# float32 gradients pass through sums of products (conv's matmuls, the norms' row sums) that
# torch and tensorbind order differently, then through `sin`: a looser float32 tolerance.
TOL32 = {"float32": (2e-4, 2e-5)}


@pytest.mark.parametrize("cid", sorted(CASES))
def test_case(cid):
    check(CASES[cid], tol=TOL32)


@pytest.mark.parametrize(
    "make, name",
    [
        (lambda a: F.gelu(a), "GeluBackward0"),
        (lambda a: F.leaky_relu(a), "LeakyReluBackward0"),
        (lambda a: F.selu(a), "EluBackward0"),
        (lambda a: F.relu6(a), "HardtanhBackward0"),
        (lambda a: F.layer_norm(a, [3]), "NativeLayerNormBackward0"),
        (lambda a: F.mse_loss(a, a.detach()), "MseLossBackward0"),
        (lambda a: F.nll_loss(a, _C.tensor([0, 2])), "NllLossBackward0"),
        (lambda a: F.batch_norm(a, None, None, training=True), "NativeBatchNormBackward0"),
        (lambda a: F.conv1d(a.unsqueeze(0), _C.ones(1, 2, 2, dtype=_C.float64)), "ConvolutionBackward0"),
        (lambda a: F.embedding(_C.tensor([1, 0]), a), "EmbeddingBackward0"),
        (lambda a: F.pad(a, (1, 1)), "ConstantPadNdBackward0"),
        (lambda a: F.avg_pool2d(a.reshape(1, 1, 2, 3), 2, 1), "AvgPool2DBackward0"),
        (lambda a: F.adaptive_avg_pool2d(a.reshape(1, 1, 2, 3), (1, 2)), "AdaptiveAvgPool2DBackward0"),
        (lambda a: F.adaptive_avg_pool2d(a.reshape(1, 1, 2, 3), 1), "MeanBackward1"),
        (lambda a: F.max_pool2d(a.reshape(1, 1, 2, 3), 2, 1, return_indices=True)[0], "MaxPool2DWithIndicesBackward0"),
        (lambda a: F.avg_pool1d(a.reshape(1, 2, 3), 2), "SqueezeBackward1"),
        (lambda a: F.cosine_similarity(a, a.detach() + 1), "SumBackward1"),
        (lambda a: F.pairwise_distance(a, a.detach() + 1), "NormBackward1"),
        (lambda a: F.bilinear(a, a, _C.ones(4, 3, 3, dtype=_C.float64), _C.ones(4, dtype=_C.float64)), "AddBackward0"),
        (lambda a: F.binary_cross_entropy(a.detach().sigmoid(), a.sigmoid()), "BinaryCrossEntropyBackward0"),
        (lambda a: F.conv_transpose2d(a.reshape(1, 1, 2, 3), _C.ones(1, 2, 2, 2, dtype=_C.float64)), "ConvolutionBackward0"),
        (lambda a: F.conv_transpose1d(a.reshape(1, 2, 3), _C.ones(2, 1, 2, dtype=_C.float64)), "ConvolutionBackward0"),
        (lambda a: F.interpolate(a.reshape(1, 1, 2, 3), size=4), "UpsampleNearest2DBackward0"),
        (lambda a: F.interpolate(a.reshape(1, 1, 2, 3), size=4, mode="bilinear"), "UpsampleBilinear2DBackward0"),
        (lambda a: F.interpolate(a.reshape(1, 2, 3), size=4), "UpsampleNearest1DBackward0"),
        (lambda a: F.interpolate(a.reshape(1, 2, 3), size=4, mode="linear"), "UpsampleLinear1DBackward0"),
        (lambda a: F.interpolate(a.reshape(1, 2, 3), size=4, mode="nearest-exact"), "UpsampleNearestExact1DBackward0"),
        (lambda a: F.interpolate(a.reshape(1, 1, 2, 3), size=4, mode="nearest-exact"), "UpsampleNearestExact2DBackward0"),
    ],
)
def test_node_names(make, name):
    a = _C.randn(2, 3, dtype=_C.float64, requires_grad=True)
    assert make(a).grad_fn.name() == name


def test_dropout_gradient_is_the_saved_mask():
    _C.manual_seed(3)
    a = (_C.rand(200, dtype=_C.float64) + 0.5).requires_grad_()
    y = F.dropout(a, 0.3, training=True)
    assert y.grad_fn.name() == "NativeDropoutBackward0"
    y.backward(_C.ones_like(y) * 2.0)
    # Where kept: y = a / 0.7 and the gradient 2 / 0.7; where dropped both are 0.
    kept = y != 0
    assert bool((a.grad[kept] == 2.0 / 0.7).all())
    assert bool((a.grad[~kept] == 0).all())
    assert 0 < int(kept.sum()) < 200


def test_dropout_p1_and_eval():
    a = _C.randn(5, dtype=_C.float64, requires_grad=True)
    F.dropout(a, 1.0, training=True).sum().backward()
    assert a.grad.tolist() == [0.0] * 5
    y = F.dropout(a, 0.5, training=False)
    assert y is a


def test_create_graph_raises_at_the_third_order_through_conv():
    # The convolution's double backward is computed by the kernels: its own derivative (a third
    # order) is refused rather than computed without history (second orders: test_nn_e.py).
    a = _C.randn(1, 1, 4, 4, dtype=_C.float64, requires_grad=True)
    w = _C.randn(1, 1, 3, 3, dtype=_C.float64, requires_grad=True)
    (ga,) = _C.autograd.grad(F.conv2d(a, w).sum(), a, create_graph=True)
    assert ga.grad_fn.name() == "ConvolutionBackwardBackward0"
    with pytest.raises(NotImplementedError, match="the derivative for '_convolution_double_backward' is not implemented."):
        _C.autograd.grad(ga.sum(), w, create_graph=True)


def test_nll_weight_requiring_grad_is_refused():
    a = _C.randn(2, 3, dtype=_C.float64, requires_grad=True)
    w = _C.rand(3, dtype=_C.float64, requires_grad=True)
    msg = (
        "The function 'nll_loss_forward' is not differentiable with respect to argument 'weight'. "
        "This input cannot have requires_grad True."
    )
    for f in (F.nll_loss, F.cross_entropy):
        with pytest.raises(RuntimeError) as info:
            f(a, _C.tensor([0, 1]), weight=w)
        assert str(info.value) == msg


def test_retain_graph_and_release():
    a = _C.randn(2, 3, 4, 4, dtype=_C.float64, requires_grad=True)
    w = _C.randn(2, 3, 3, 3, dtype=_C.float64, requires_grad=True)
    y = F.conv2d(a, w, padding=1).sum()
    y.backward(retain_graph=True)
    g1 = a.grad.clone()
    y.backward()
    assert _C.allclose(a.grad, 2 * g1)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_saved_input_modified_in_place():
    a = _C.randn(3, dtype=_C.float64, requires_grad=True)
    b = a * 1
    y = F.silu(b)
    b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_create_graph_through_the_pool_and_upsample_nodes():
    # Their backward kernels are linear in the gradient: with a constant incoming gradient the
    # input gradient is a constant (no history needed); with an incoming gradient that requires
    # grad, it is the history of a node whose backward is the forward op (double backward:
    # the values against torch's are in test_nn_e.py).
    a = _C.randn(1, 1, 4, 4, dtype=_C.float64, requires_grad=True)
    for y, node in [
        (F.avg_pool2d(a, 2), "AvgPool2DBackwardBackward0"),
        (F.adaptive_avg_pool2d(a, 3), "AdaptiveAvgPool2DBackwardBackward0"),
        (F.interpolate(a, size=5, mode="bilinear"), "UpsampleBackwardBackward0"),
    ]:
        (g,) = _C.autograd.grad(y.sum(), a, create_graph=True, retain_graph=True)
        assert g.grad_fn is None
        v = _C.ones_like(y).requires_grad_()
        (g,) = _C.autograd.grad(y, a, grad_outputs=v, create_graph=True)
        assert g.grad_fn.name() == node


def test_target_gradient_of_bce_composes_with_create_graph():
    # The target's gradient is composed of recorded ops: a second derivative exists
    # (d2/dt dx of bce(x, t) summed = -1 / (x (1 - x)), torch 2.15's value for x = 0.25: -16/3).
    x = _C.tensor([0.25], dtype=_C.float64, requires_grad=True)
    t = _C.tensor([0.5], dtype=_C.float64, requires_grad=True)
    (gt,) = _C.autograd.grad(F.binary_cross_entropy(x, t, reduction="sum"), t, create_graph=True)
    (gxt,) = _C.autograd.grad(gt.sum(), x)
    assert abs(gxt.item() - (-16.0 / 3.0)) < 1e-12
