"""_C.nn.functional as a module, `_C._nn` (torch's `torch._C._nn`) and what the recorded torch
cases cannot check (random draws of `dropout`)."""

import inspect
import sys

import pytest

import _C
import _C.nn
import _C.nn.functional as F


def test_nn_namespace_is_a_module():
    import _C._nn as nn_ext

    assert nn_ext is _C._nn is sys.modules["_C._nn"]
    assert nn_ext.__name__ == "_C._nn"
    assert _C.nn.functional is F
    # `_nn` is private: not in `_C.__all__`, and not a `_C` function.
    assert "_nn" not in _C.__all__
    assert not hasattr(_C, "gelu") and not hasattr(_C, "mse_loss")
    assert callable(_C._nn.gelu) and callable(_C._nn.leaky_relu_)


def test_nn_docstrings_and_signatures():
    doc = _C._nn.linear.__doc__
    assert "Mirrors torch._C._nn.linear." in doc
    assert str(inspect.signature(_C._nn.linear)) == "(input, weight, bias=None)"
    assert str(inspect.signature(_C._nn.mse_loss)) == "(input, target, reduction=1)"
    for name in F.__all__:
        f = getattr(F, name)
        assert callable(f) and f.__doc__, name


def test_nn_bad_arguments_are_type_errors():
    x = _C.ones(2, 3)
    with pytest.raises(TypeError, match=r"linear\(\): argument 'weight' \(position 2\) must be Tensor, not str"):
        _C._nn.linear(x, "w")
    with pytest.raises(TypeError):
        _C._nn.pad(x, [1, 1], 3)
    with pytest.raises(TypeError):
        F.conv2d(x, x, stride="a")


def test_inplace_nn_function_returns_its_input():
    x = _C.tensor([-1.0, 2.0])
    assert _C._nn.leaky_relu_(x, 0.5) is x
    assert x.tolist() == [-0.5, 2.0]
    with pytest.raises(NotImplementedError, match="\"leaky_relu_cpu\" not implemented for 'Long'"):
        _C._nn.leaky_relu_(_C.tensor([1, 2]))


def test_reduction_enum():
    assert F._Reduction.get_enum("none") == 0
    assert F._Reduction.get_enum("mean") == 1
    assert F._Reduction.get_enum("sum") == 2
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F._Reduction.get_enum("foo")
    with pytest.warns(UserWarning, match="reduction='elementwise_mean' is deprecated"):
        assert F._Reduction.get_enum("elementwise_mean") == 1
    assert F._pair(3) == (3, 3) and F._pair((1, 2)) == (1, 2) and F._single(4) == (4,)


def test_dropout_training_draws_from_the_generator():
    x = _C.ones(200, 50)
    _C.manual_seed(7)
    a = F.dropout(x, 0.25)
    _C.manual_seed(7)
    b = F.dropout(x, 0.25)
    assert a.tolist() == b.tolist()
    vals = a.reshape(-1).tolist()
    kept = [v for v in vals if v != 0.0]
    assert all(v == pytest.approx(1 / 0.75) for v in kept)
    # 10000 Bernoulli(0.75) draws: the kept fraction within 5 standard deviations.
    assert abs(len(kept) / len(vals) - 0.75) < 5 * (0.75 * 0.25 / len(vals)) ** 0.5


def test_dropout_inplace_and_eval():
    x = _C.ones(4, 5)
    r = F.dropout(x, 0.5, training=True, inplace=True)
    assert r is x
    assert set(x.reshape(-1).tolist()) <= {0.0, 2.0}
    # As torch: eval mode and p == 0 give the input itself.
    y = _C.ones(3)
    assert F.dropout(y, 0.5, training=False) is y
    assert F.dropout(y, 0.0) is y
    assert F.dropout(y, 0.5, training=False, inplace=True) is y
    assert y.tolist() == [1.0, 1.0, 1.0]


def test_batch_norm_updates_running_stats_in_place():
    x = _C.tensor([[1.0, 2.0], [3.0, 6.0]])
    m = _C.zeros(2)
    v = _C.ones(2)
    F.batch_norm(x, m, v, training=True, momentum=0.5)
    # mean (2, 4), unbiased var (2, 8): r = 0.5 r + 0.5 stat
    assert m.tolist() == pytest.approx([1.0, 2.0])
    assert v.tolist() == pytest.approx([1.5, 4.5])


def test_linear_cross_entropy_mse_are_differentiable():
    # Expected values from torch 2.15 (same script run against torch): F.linear, F.cross_entropy
    # (class indices) and F.mse_loss take their differentiable composites when an input
    # requires grad (as torch's linear is a composite for autograd).
    x = _C.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=_C.float64, requires_grad=True)
    W = _C.tensor([[0.1, 0.2, -0.3], [0.4, -0.5, 0.6]], dtype=_C.float64, requires_grad=True)
    b = _C.tensor([0.01, -0.02], dtype=_C.float64, requires_grad=True)
    y = F.linear(x, W, b)
    target = _C.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=_C.float64)
    loss = F.cross_entropy(y, _C.tensor([1, 0])) + F.mse_loss(y, target, reduction="sum")
    loss.backward()
    assert loss.item() == pytest.approx(25.86692925205898, rel=1e-12)
    want_x = [[-0.4541793440365493, -0.5522481972480519, 0.8694619678903523],
              [-3.649881050264764, 2.8310557839511157, -3.077643150794292]]
    want_W = [[-9.71362917528193, 2.114303061765473, -2.8968403320849156],
              [-11.826370824718069, -1.6743030617654724, 5.296840332084915]]
    want_b = [-8.773132018995621, -8.066867981004377]
    for got, want in ((x.grad, want_x), (W.grad, want_W), (b.grad, want_b)):
        assert _C.allclose(got, _C.tensor(want, dtype=_C.float64), rtol=1e-12, atol=1e-12)
    # Without grad the kernels run and agree with the composites.
    with _C.no_grad():
        y2 = F.linear(x, W, b)
        assert _C.allclose(y2, y.detach(), rtol=1e-12, atol=1e-12)
        assert F.cross_entropy(y2, _C.tensor([1, 0])).item() == pytest.approx(
            F.cross_entropy(y, _C.tensor([1, 0])).item(), rel=1e-12)
