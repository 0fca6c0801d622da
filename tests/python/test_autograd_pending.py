"""The formerly pending derivatives of issue 12 (session 5): node names, what torch 2.15 records
(its class names and next_functions), zero gradients of samples, torch's NotImplemented node and
the errors at backward. The gradient values are compared with torch's in test_autograd.py
(autograd_cases.py); the values here were read from torch 2.15 by hand (torch not imported).
"""

import pytest

import _C


def nonleaf(n=3):
    x = _C.ones(n, dtype=_C.float64, requires_grad=True)
    return x, x * 2


# torch 2.15: (call, grad_fn name).
RANDOM_FILLS = [
    ("uniform_", lambda t: t.uniform_(), "UniformBackward0"),
    ("normal_", lambda t: t.normal_(1.0, 2.0), "NormalBackward0"),
    ("bernoulli_float", lambda t: t.bernoulli_(0.3), "BernoulliBackward2"),
    ("bernoulli_tensor", lambda t: t.bernoulli_(_C.full((3,), 0.3, dtype=_C.float64)), "BernoulliBackward1"),
    ("exponential_", lambda t: t.exponential_(), "ExponentialBackward0"),
    ("random_from_to", lambda t: t.random_(0, 5), "RandomBackward0"),
    ("random_to", lambda t: t.random_(5), "RandomBackward1"),
    ("random_", lambda t: t.random_(), "RandomBackward2"),
    ("geometric_", lambda t: t.geometric_(0.5), "GeometricBackward0"),
    ("cauchy_", lambda t: t.cauchy_(), "CauchyBackward0"),
    ("log_normal_", lambda t: t.log_normal_(), "LogNormalBackward0"),
]


@pytest.mark.parametrize("name,fill,node", RANDOM_FILLS, ids=[c[0] for c in RANDOM_FILLS])
def test_random_fill_records_a_zero_gradient(name, fill, node):
    x, z = nonleaf()
    r = fill(z)
    assert r is z and r.grad_fn.name() == node and r.requires_grad
    # The old history is the node's input; the sample's gradient with respect to it is zero.
    assert r.grad_fn.next_functions[0][0].name() == "MulBackward0"
    (r * x).sum().backward()
    assert x.grad.tolist() == r.tolist()


@pytest.mark.parametrize("name,fill,node", RANDOM_FILLS, ids=[c[0] for c in RANDOM_FILLS])
def test_random_fill_of_a_leaf_is_refused(name, fill, node):
    x = _C.ones(3, dtype=_C.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place operation.$"):
        fill(x)
    assert x.tolist() == [1.0, 1.0, 1.0] and x._version == 0


def test_random_fill_under_no_grad_records_nothing():
    _, z = nonleaf()
    node = z.grad_fn
    with _C.no_grad():
        z.uniform_()
    assert z.grad_fn is node


def test_bernoulli_tensor_p_gets_a_zero_gradient():
    p = _C.full((3,), 0.3, dtype=_C.float64, requires_grad=True)
    r = _C.ones(3, dtype=_C.float64).bernoulli_(p)
    assert r.grad_fn.name() == "BernoulliBackward1" and r.requires_grad
    r.sum().backward()
    assert p.grad.tolist() == [0.0, 0.0, 0.0]


def test_normal_tensor_tensor_zero_gradients():
    m = _C.tensor([1.0, 2.0], requires_grad=True)
    s = _C.tensor([0.5, 1.0], requires_grad=True)
    r = _C.normal(m, s)
    assert r.grad_fn.name() == "NormalBackward3"
    r.sum().backward()
    assert m.grad.tolist() == [0.0, 0.0] and s.grad.tolist() == [0.0, 0.0]


def test_fill_with_a_tensor_value_that_requires_grad():
    v = _C.tensor(2.0, dtype=_C.float64, requires_grad=True)
    r = _C.zeros(3, dtype=_C.float64).fill_(v)
    assert r.grad_fn.name() == "FillBackward3"
    assert r.grad_fn.next_functions[0][0] is None
    (r * _C.tensor([1.0, 2.0, 3.0], dtype=_C.float64)).sum().backward()
    assert v.grad.item() == 6.0  # torch: grad.sum()


# ---- torch's NotImplemented node: the call succeeds, backward raises ------------------------

def test_histogram_records_not_implemented():
    x = _C.tensor([0.1, 0.5, 0.7, 0.2], requires_grad=True)
    for h in (_C.histogram(x, 3), _C.histogram(x, _C.tensor([0.0, 0.5, 1.0])), x.histogram(2)):
        assert h.hist.requires_grad and h.bin_edges.requires_grad
        assert h.hist.grad_fn.name() == "torch::autograd::NotImplemented"
        assert h.bin_edges.grad_fn is h.hist.grad_fn
        with pytest.raises(RuntimeError, match="^derivative for aten::histogram is not implemented$"):
            h.hist.sum().backward()
    with _C.no_grad():
        assert not _C.histogram(x, 3).hist.requires_grad
    assert not _C.histogram(x.detach(), 3).hist.requires_grad


def test_scatter_with_reduce_records_not_implemented():
    x = _C.tensor([1.0, 2.0, 3.0], requires_grad=True)
    idx = _C.tensor([0, 1])
    a = _C.scatter(x * 1, 0, idx, _C.tensor([5.0, 6.0]), reduce="add")
    b = _C.scatter(x * 1, 0, idx, 2.0, reduce="multiply")
    for r in (a, b):
        assert r.grad_fn.name() == "torch::autograd::NotImplemented"
        assert r.grad_fn.next_functions[0][0].name() == "MulBackward0"
        with pytest.raises(RuntimeError, match="^derivative for aten::scatter is not implemented$"):
            _C.autograd.grad(r.sum(), x)


# ---- formulas torch leaves unimplemented for one input --------------------------------------

@pytest.mark.parametrize("f", [_C.igamma, _C.igammac, _C.special.gammainc, _C.special.gammaincc])
def test_igamma_input_gradient_is_not_implemented(f):
    a = _C.tensor([0.5, 2.0], dtype=_C.float64, requires_grad=True)
    x = _C.tensor([1.0, 2.5], dtype=_C.float64)
    y = f(a, x)
    assert y.grad_fn.name() in ("IgammaBackward0", "IgammacBackward0")
    name = "igammac" if y.grad_fn.name() == "IgammacBackward0" else "igamma"
    with pytest.raises(NotImplementedError, match=f"^the derivative for '{name}: input' is not implemented.$"):
        y.sum().backward()


def test_node_names():
    x = _C.tensor([0.5, 1.5], dtype=_C.float64, requires_grad=True)
    names = {
        "PolygammaBackward0": _C.polygamma(1, x),
        "MvlgammaBackward0": _C.mvlgamma(x + 2, 2),
        "SpecialBesselJ0Backward0": _C.special.bessel_j0(x),
        "SpecialBesselJ1Backward0": _C.special.bessel_j1(x),
        "SpecialBesselY0Backward0": _C.special.bessel_y0(x),
        "SpecialBesselY1Backward0": _C.special.bessel_y1(x),
        "SpecialModifiedBesselI0Backward0": _C.special.modified_bessel_i0(x),
        "SpecialModifiedBesselI1Backward0": _C.special.modified_bessel_i1(x),
        "SpecialModifiedBesselK0Backward0": _C.special.modified_bessel_k0(x),
        "SpecialModifiedBesselK1Backward0": _C.special.modified_bessel_k1(x),
        "NextafterBackward0": _C.nextafter(x, x * 2),
        "IndexReduceBackward0": x.index_reduce(0, _C.tensor([1, 0]), x, "prod"),
    }
    for name, y in names.items():
        assert y.grad_fn.name() == name


def test_bessel_derivatives_at_zero():
    # torch 2.15 at x = 0: J1' = I1' = 0.5, Y0' = Y1' = inf, K0' = K1' = -inf.
    def d(f):
        x = _C.zeros(1, dtype=_C.float64, requires_grad=True)
        f(x).sum().backward()
        return x.grad.item()

    s = _C.special
    assert d(s.bessel_j0) == 0.0 and d(s.bessel_j1) == 0.5
    assert d(s.modified_bessel_i0) == 0.0 and d(s.modified_bessel_i1) == 0.5
    assert d(s.bessel_y0) == float("inf") and d(s.bessel_y1) == float("inf")
    assert d(s.modified_bessel_k0) == float("-inf") and d(s.modified_bessel_k1) == float("-inf")


def test_nll_loss_forward_gradient_as_nll_loss():
    lp = _C.log_softmax(_C.tensor([[0.1, 0.5, -0.2], [1.0, 0.3, 0.2]], dtype=_C.float64), 1)
    a = lp.detach().requires_grad_()
    out, total = _C._nn.nll_loss_forward(a, _C.tensor([2, 0]), None, 1, -100)
    assert out.grad_fn.name() == "NllLossBackward0" and not total.requires_grad
    out.backward()
    # mean reduction: -1/2 at each target.
    assert a.grad.tolist() == [[0.0, 0.0, -0.5], [-0.5, 0.0, 0.0]]


def test_native_norm_statistics_have_no_history():
    x = _C.rand(2, 3, 4, dtype=_C.float64, requires_grad=True)
    out, mean, rstd = _C.native_layer_norm(x, [4], None, None, 1e-5)
    assert out.grad_fn.name() == "NativeLayerNormBackward0"
    assert not mean.requires_grad and not rstd.requires_grad
    rm, rv = _C.zeros(3, dtype=_C.float64), _C.ones(3, dtype=_C.float64)
    out, m, s = _C.native_batch_norm(x, None, None, rm, rv, True, 0.1, 1e-5)
    assert out.grad_fn.name() == "NativeBatchNormBackward0" and not m.requires_grad
    # The running statistics are updated once (momentum 0.1 of the batch mean).
    expected = (x.detach().mean((0, 2)) * 0.1).tolist()
    assert all(abs(p - q) < 1e-12 for p, q in zip(rm.tolist(), expected))
    out, m, s = _C.native_batch_norm(x, None, None, rm, rv, False, 0.1, 1e-5)
    assert list(m.shape) == [0] and list(s.shape) == [0]
    out, mean, rstd = _C.native_group_norm(x, None, None, 2, 3, 4, 3, 1e-5)
    assert out.grad_fn.name() == "NativeGroupNormBackward0"


# ---- saved-tensor hooks: an unpack hook may read the node's saved values ---------------------

def _reading_unpack(holder, seen):
    def unpack(t):
        node = holder.get("node")
        if node is not None and not holder.get("busy"):
            holder["busy"] = True
            # Reads `_saved_self` of the node being unpacked (which unpacks through this hook).
            seen.append(node._saved_self.tolist())
        return t

    return unpack


def test_unpack_hook_reading_the_same_nodes_saved_attribute_in_backward():
    x = _C.tensor([1.0, 2.0], dtype=_C.float64, requires_grad=True)
    holder, seen = {}, []
    with _C.autograd.graph.saved_tensors_hooks(lambda t: t, _reading_unpack(holder, seen)):
        z = x * x
    holder["node"] = z.grad_fn
    z.sum().backward()
    assert seen == [[1.0, 2.0]]
    assert x.grad.tolist() == [2.0, 4.0]


def test_unpack_hook_reading_the_same_nodes_saved_attribute_from_the_getter():
    x = _C.tensor([1.0, 2.0], dtype=_C.float64, requires_grad=True)
    holder, seen = {}, []
    with _C.autograd.graph.saved_tensors_hooks(lambda t: t, _reading_unpack(holder, seen)):
        z = x * x
    holder["node"] = z.grad_fn
    assert z.grad_fn._saved_other.tolist() == [1.0, 2.0]
    assert seen == [[1.0, 2.0]]
