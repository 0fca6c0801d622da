"""Issue 13, part 2: devices, nonzero, aliases and the most-used missing ops.

Every expected value and error text below was produced by torch 2.15 (run by hand from
/work/torch-venv; torch is not imported here).
"""

import math
import pickle

import pytest

import _C

NAN = float("nan")
INF = float("inf")


def assert_values(t, expected, rel=1e-6, abs_=1e-9):
    got = t.tolist()

    def walk(g, e):
        if isinstance(e, list):
            assert isinstance(g, list) and len(g) == len(e), (got, expected)
            for a, b in zip(g, e):
                walk(a, b)
        elif isinstance(e, float) and math.isnan(e):
            assert math.isnan(g), (got, expected)
        elif isinstance(e, float) and math.isinf(e):
            assert g == e, (got, expected)
        else:
            assert g == pytest.approx(e, rel=rel, abs=abs_), (got, expected)

    walk(got, expected)


# ---- devices ------------------------------------------------------------------------------------


def test_device_objects_as_torch():
    d = _C.device("cpu")
    assert repr(d) == "device(type='cpu')"
    assert str(d) == "cpu"
    assert d.type == "cpu" and d.index is None
    assert repr(_C.device("cpu", 0)) == "device(type='cpu', index=0)"
    assert str(_C.device("cpu:0")) == "cpu:0"
    assert _C.device("cpu:0").index == 0
    assert _C.device("cpu", 0) != _C.device("cpu")
    assert _C.device("cpu:0") == _C.device("cpu", 0)
    assert _C.device(d) == d
    assert _C.device(type="cpu", index=0) == _C.device("cpu:0")
    # torch: an int is a CUDA index; other device types are values too.
    assert repr(_C.device(3)) == "device(type='cuda', index=3)"
    assert repr(_C.device("cuda:1")) == "device(type='cuda', index=1)"
    # torch's hash: the type in the high bits, the index as a byte.
    assert hash(_C.device("cpu")) == 255 and hash(_C.device("cpu", 0)) == 0
    assert {d: 1}[_C.device("cpu")] == 1
    assert (d == "cpu") is False
    assert pickle.loads(pickle.dumps(_C.device("cpu", 0))) == _C.device("cpu", 0)


def test_device_errors_as_torch():
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda, .* device type at start of device string: foo"):
        _C.device("foo")
    for bad in ["cpu:-1", " cpu", "cpu:01"]:
        with pytest.raises(RuntimeError, match=f"Invalid device string: '{bad}'"):
            _C.device(bad)
    with pytest.raises(RuntimeError, match="Device index must not be negative"):
        _C.device("cpu", -1)
    with pytest.raises(RuntimeError, match="type \\(string\\) must not include an index because index was passed explicitly: cpu:0"):
        _C.device("cpu:0", 0)
    with pytest.raises(TypeError, match="device\\(\\) received an invalid combination of arguments - got \\(float\\)"):
        _C.device(1.5)
    with pytest.raises(TypeError):
        _C.device()
    with pytest.raises(TypeError, match="argument 'index' \\(position 2\\) must be int, not str"):
        _C.device("cpu", "0")


def test_layout_strided():
    assert repr(_C.strided) == "_C.strided"
    assert pickle.loads(pickle.dumps(_C.strided)) is _C.strided
    assert _C.zeros(2).layout is _C.strided


FACTORIES = [
    lambda **k: _C.zeros(2, 3, **k),
    lambda **k: _C.ones((2, 3), **k),
    lambda **k: _C.empty(2, **k),
    lambda **k: _C.full((2,), 1.5, **k),
    lambda **k: _C.arange(3, **k),
    lambda **k: _C.arange(1, 3, **k),
    lambda **k: _C.arange(1, 3, 0.5, **k),
    lambda **k: _C.linspace(0, 1, 3, **k),
    lambda **k: _C.logspace(0, 1, 3, **k),
    lambda **k: _C.eye(2, **k),
    lambda **k: _C.eye(2, 3, **k),
    lambda **k: _C.rand(2, **k),
    lambda **k: _C.randn(2, **k),
    lambda **k: _C.randint(5, (2,), **k),
    lambda **k: _C.randint(1, 5, (2,), **k),
    lambda **k: _C.randperm(4, **k),
    lambda **k: _C.normal(0.0, 1.0, (2,), **k),
    lambda **k: _C.zeros_like(_C.ones(2), **k),
    lambda **k: _C.ones_like(_C.ones(2), **k),
    lambda **k: _C.empty_like(_C.ones(2), **k),
    lambda **k: _C.full_like(_C.ones(2), 3, **k),
    lambda **k: _C.rand_like(_C.ones(2), **k),
    lambda **k: _C.randn_like(_C.ones(2), **k),
    lambda **k: _C.ones(2).new_zeros((3,), **k),
    lambda **k: _C.ones(2).new_ones(3, **k),
    lambda **k: _C.ones(2).new_empty((3,), **k),
    lambda **k: _C.ones(2).new_full((3,), 2, **k),
    lambda **k: _C.tensor([1, 2], **{n: v for n, v in k.items() if n != "layout"}),
]


@pytest.mark.parametrize("make", FACTORIES)
def test_factories_take_cpu_device_layout_pin_memory(make):
    for dev in ["cpu", "cpu:0", _C.device("cpu"), None]:
        t = make(device=dev)
        assert t.device == _C.device("cpu")
    make(layout=_C.strided, device="cpu", pin_memory=False)
    with pytest.raises(RuntimeError, match="device 'cuda' is not available"):
        make(device="cuda")
    with pytest.raises(RuntimeError, match="device 'cuda:1' is not available"):
        make(device=_C.device("cuda", 1))
    with pytest.raises(RuntimeError, match="pin_memory=True"):
        make(pin_memory=True)
    with pytest.raises(TypeError, match="device"):
        make(device=1.5)
    with pytest.raises(RuntimeError, match="Expected one of cpu"):
        make(device="foo")


def test_layout_keyword_type_error():
    with pytest.raises(TypeError, match="zeros\\(\\): argument 'layout' must be _C.layout, not str"):
        _C.zeros(2, layout="x")


def test_tensor_device_attributes():
    t = _C.zeros(2)
    assert t.device == _C.device("cpu") and t.device.type == "cpu"
    assert t.is_cpu is True and t.is_cuda is False and t.is_meta is False


def test_to_device_dtype_other_and_cpu():
    t = _C.zeros(2)
    assert t.to("cpu") is t
    assert t.to(_C.device("cpu")) is t
    assert t.cpu() is t
    r = t.to("cpu", _C.float64, True, True)
    assert r.dtype is _C.float64
    assert t.to(device="cpu", dtype=_C.float64).dtype is _C.float64
    assert t.to(_C.zeros(1, dtype=_C.int32)).dtype is _C.int32
    assert t.to("cpu", copy=True) is not t
    with pytest.raises(RuntimeError, match="to\\(\\): device 'cuda' is not available"):
        t.to("cuda")
    assert t.byte().dtype is _C.uint8 and t.char().dtype is _C.int8 and t.short().dtype is _C.int16


def test_new_factories_keep_self_dtype():
    t = _C.ones(2, 3, dtype=_C.int32)
    assert t.new_zeros((2,)).dtype is _C.int32
    assert t.new_full((2,), 1.5).tolist() == [1, 1]  # torch: int32, the value truncated
    assert t.new_ones(2, dtype=_C.float64).dtype is _C.float64
    assert t.new_empty((0, 2)).shape == (0, 2)


# ---- nonzero, views, aliases -------------------------------------------------------------------


def test_nonzero_as_tuple():
    t = _C.tensor([[1, 0], [0, 3]])
    assert isinstance(_C.nonzero(t, as_tuple=False), _C.Tensor)
    assert t.nonzero(as_tuple=False).tolist() == [[0, 0], [1, 1]]
    r = _C.nonzero(t, as_tuple=True)
    assert isinstance(r, tuple) and [x.tolist() for x in r] == [[0, 1], [0, 1]]
    r = _C.nonzero(_C.tensor([1, 0, 2]), as_tuple=True)
    assert isinstance(r, tuple) and len(r) == 1 and r[0].tolist() == [0, 2]


def test_matrix_transposes():
    x = _C.arange(24.0).reshape(2, 3, 4)
    assert x.mT.shape == (2, 4, 3) and x.mH.shape == (2, 4, 3)
    assert _C.ones(2, 3).H.shape == (3, 2)
    with pytest.raises(RuntimeError, match="tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."):
        _C.ones(3).mT
    with pytest.raises(RuntimeError, match="tensor.H is only supported on matrices \\(2-D tensors\\). Got 3-D tensor. For batches of matrices, consider using tensor.mH"):
        x.H
    w = _C.ones(2, 3, requires_grad=True)
    (w.mT * _C.arange(6.0).reshape(3, 2)).sum().backward()
    assert w.grad.tolist() == [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]


def test_aliases_are_the_same_ops():
    t = _C.tensor([[1, -2], [0, 3]])
    assert _C.absolute(t).tolist() == [[1, 2], [0, 3]]
    assert _C.multiply(t, 2).tolist() == [[2, -4], [0, 6]]
    assert _C.divide(t, 2, rounding_mode="floor").tolist() == [[0, -1], [0, 1]]
    assert _C.subtract(t, 1, alpha=2).tolist() == [[-1, -4], [-2, 1]]
    assert _C.negative(t).tolist() == [[-1, 2], [0, -3]]
    assert _C.concat([t, t]).shape == (4, 2) and _C.concatenate([t, t], 1).shape == (2, 4)
    assert _C.greater(t, 0).tolist() == [[True, False], [False, True]]
    assert _C.less_equal(t, 0).tolist() == [[False, True], [True, False]]
    assert _C.not_equal(t, 0).tolist() == [[True, True], [False, True]]
    assert _C.fix(_C.tensor([1.5, -1.5])).tolist() == [1.0, -1.0]
    assert _C.moveaxis(_C.zeros(2, 3, 4), 0, 2).shape == (3, 4, 2)
    x = _C.tensor([1.0, -2.0], requires_grad=True)
    _C.multiply(x, x).sum().backward()
    assert x.grad.tolist() == [2.0, -4.0]
    y = _C.zeros(2)
    y.multiply_(3).add_(1)
    assert y.tolist() == [1.0, 1.0]
    assert _C.arcsinh(_C.tensor([0.0])).tolist() == [0.0]


def test_view_composites():
    a = _C.arange(6.0)
    v = a.view_as(_C.zeros(2, 3))
    assert v.shape == (2, 3) and v._base is a
    assert a.reshape_as(_C.zeros(3, 2)).shape == (3, 2)
    e = _C.ones(3).expand_as(_C.zeros(2, 3))
    assert e.shape == (2, 3) and e.stride() == (0, 1)
    assert _C.broadcast_to(_C.ones(3), (2, 3)).shape == (2, 3)
    x, y = _C.broadcast_tensors(_C.ones(3), _C.zeros(2, 1))
    assert x.shape == (2, 3) and y.shape == (2, 3)
    with pytest.raises(RuntimeError, match="The size of tensor a \\(3\\) must match the size of tensor b \\(2\\) at non-singleton dimension 1"):
        _C.broadcast_tensors(_C.zeros(3), _C.zeros(2, 2))
    with pytest.raises(RuntimeError, match="shape '\\[4\\]' is invalid for input of size 6"):
        a.reshape_as(_C.zeros(4))
    w = _C.ones(3, requires_grad=True)
    (w.expand_as(_C.zeros(2, 3)) * 2).sum().backward()
    assert w.grad.tolist() == [4.0, 4.0, 4.0]


# ---- special functions --------------------------------------------------------------------------

X = [-2.5, -0.5, 0.0, 0.3, 1.0, 3.0]

UNARY = {
    "erf": [-0.999593047982555, -0.5204998778130465, 0.0, 0.3286267594591274, 0.8427007929497149, 0.9999779095030014],
    "erfc": [1.999593047982555, 1.5204998778130465, 1.0, 0.6713732405408726, 0.15729920705028513, 2.209049699858544e-05],
    "lgamma": [-0.05624371649767405, 1.2655121234846454, INF, 1.0957979948180756, 0.0, 0.6931471805599453],
    "digamma": [1.1031566406452433, 0.03648997397857639, -INF, -3.502524222200133, -0.5772156649015328, 0.922784335098467],
    "asinh": [-1.6472311463710958, -0.48121182505960347, 0.0, 0.29567304756342244, 0.881373587019543, 1.8184464592320668],
    "atanh": [NAN, -0.5493061443340548, 0.0, 0.30951960420311175, INF, NAN],
    "deg2rad": [-0.04363323129985824, -0.008726646259971648, 0.0, 0.005235987755982988, 0.017453292519943295, 0.05235987755982989],
    "rad2deg": [-143.2394487827058, -28.64788975654116, 0.0, 17.188733853924695, 57.29577951308232, 171.88733853924697],
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_special_unary_float64(name):
    x = _C.tensor(X, dtype=_C.float64)
    assert_values(getattr(_C, name)(x), UNARY[name], rel=1e-12)
    assert_values(getattr(x, name)(), UNARY[name], rel=1e-12)
    y = x.clone()
    getattr(y, name + "_")()
    assert_values(y, UNARY[name], rel=1e-12)
    out = _C.empty(6, dtype=_C.float64)
    getattr(_C, name)(x, out=out)
    assert_values(out, UNARY[name], rel=1e-12)
    f = getattr(_C, name)(_C.tensor(X))
    assert f.dtype is _C.float32
    assert_values(f, UNARY[name], rel=1e-5, abs_=1e-6)
    assert getattr(_C, name)(_C.tensor([1, 2])).dtype is _C.float32


def test_erfinv_acosh_logit():
    assert_values(_C.erfinv(_C.tensor([-0.9, -0.2, 0.0, 0.5, 0.999], dtype=_C.float64)),
                  [-1.1630871536766743, -0.1791434546212917, 0.0, 0.4769362762044699, 2.3267537655135246], rel=1e-12)
    assert_values(_C.erfinv(_C.tensor([1.0, -1.0, 1.5])), [INF, -INF, NAN])
    assert_values(_C.acosh(_C.tensor([1.0, 1.5, 10.0], dtype=_C.float64)), [0.0, 0.9624236501192069, 2.993222846126381], rel=1e-12)
    assert_values(_C.logit(_C.tensor([0.0, 0.25, 0.5, 1.0], dtype=_C.float64), eps=0.1),
                  [-2.197224577336219, -1.0986122886681098, 0.0, 2.1972245773362196], rel=1e-12)
    assert_values(_C.logit(_C.tensor([2.0])), [NAN])
    # eps above 0.5 (lo > hi): torch clamps below first; no panic.
    assert_values(_C.logit(_C.tensor([0.3], dtype=_C.float64), eps=0.6), [0.4054651081081645], rel=1e-12)


def test_binary_float_ops():
    a = _C.tensor([0.0, 1.0, -2.0, 3.0], dtype=_C.float64)
    b = _C.tensor([0.0, 2.0, NAN, 0.5], dtype=_C.float64)
    assert_values(_C.xlogy(a, b), [0.0, 0.6931471805599453, NAN, -2.0794415416798357], rel=1e-12)
    assert_values(_C.xlogy(2, _C.tensor([3.0])), [2.1972245773362196], rel=1e-6)
    assert _C.xlogy(_C.tensor([1, 2]), _C.tensor([1, 2])).dtype is _C.float32
    assert_values(_C.logaddexp(_C.tensor([1.0, -1000.0, INF], dtype=_C.float64), _C.tensor([2.0, -1000.0, INF], dtype=_C.float64)),
                  [2.313261687518223, -999.3068528194401, INF], rel=1e-12)
    assert_values(_C.logaddexp2(_C.tensor([1.0, 3.0], dtype=_C.float64), _C.tensor([2.0, 3.0], dtype=_C.float64)),
                  [2.584962500721156, 4.0], rel=1e-12)
    with pytest.raises(NotImplementedError, match="\"logaddexp_cpu\" not implemented for 'Long'"):
        _C.logaddexp(_C.tensor([1]), _C.tensor([2]))
    assert_values(_C.fmax(_C.tensor([NAN, 1.0, NAN]), _C.tensor([2.0, NAN, NAN])), [2.0, 1.0, NAN])
    assert_values(_C.fmin(_C.tensor([NAN, 1.0, 3.0]), _C.tensor([2.0, NAN, -1.0])), [2.0, 1.0, -1.0])
    assert _C.fmax(_C.tensor([1, 5]), _C.tensor([3, 2])).tolist() == [3, 5]
    r = _C.copysign(_C.tensor([1, -2, 3]), _C.tensor([-1.0, 0.0, -0.0]))
    assert r.dtype is _C.float32 and r.tolist() == [-1.0, 2.0, -3.0]
    assert _C.true_divide(_C.tensor([1, 3]), 2).tolist() == [0.5, 1.5]
    assert _C.rsub(_C.tensor([1.0, 2.0]), _C.tensor([10.0, 20.0]), alpha=2).tolist() == [8.0, 16.0]
    assert _C.rsub(_C.tensor([1, 2]), 5).tolist() == [4, 3]
    assert _C.clamp_min(_C.tensor([1, 5, -3]), 0).tolist() == [1, 5, 0]
    assert _C.clamp_max(_C.tensor([1.0, 5.0, -3.0]), _C.tensor([2.0, 2.0, 2.0])).tolist() == [1.0, 2.0, -3.0]
    t = _C.tensor([1.0, 5.0])
    t.clamp_min_(2.0).clamp_max_(4.0)
    assert t.tolist() == [2.0, 4.0]


def test_addcmul_addcdiv_and_in_place():
    assert _C.addcmul(_C.tensor([1.0, 2.0]), _C.tensor([3.0, 4.0]), _C.tensor([5.0, 6.0]), value=0.5).tolist() == [8.5, 14.0]
    assert_values(_C.addcdiv(_C.tensor([1.0, 2.0]), _C.tensor([3.0, 4.0]), _C.tensor([5.0, 8.0]), value=-2), [-0.2, 1.0], rel=1e-6)
    assert _C.addcmul(_C.tensor([1, 2]), _C.tensor([3, 4]), _C.tensor([5, 6]), value=2).tolist() == [31, 50]
    with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
        _C.addcdiv(_C.tensor([1, 2]), _C.tensor([1, 2]), _C.tensor([1, 2]))
    with pytest.raises(NotImplementedError, match="\"addcmul_cpu_out\" not implemented for 'Bool'"):
        _C.addcmul(_C.tensor([True]), _C.tensor([True]), _C.tensor([True]))
    # The optimizer pattern: exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2).
    v2 = _C.ones(2, 2)
    assert v2.addcmul_(_C.tensor([1.0, 2.0]), _C.tensor([[3.0], [4.0]]), value=0.5) is v2
    assert v2.tolist() == [[2.5, 4.0], [3.0, 5.0]]
    p = _C.tensor([1.0, 2.0])
    p.addcdiv_(_C.tensor([1.0, 1.0]), _C.tensor([2.0, 4.0]), value=-1)
    assert p.tolist() == [0.5, 1.75]
    out = _C.empty(2)
    _C.addcmul(_C.tensor([1.0, 2.0]), _C.tensor([3.0, 4.0]), _C.tensor([5.0, 6.0]), out=out)
    assert out.tolist() == [16.0, 26.0]


# ---- products -----------------------------------------------------------------------------------


def test_matrix_products():
    m1 = _C.arange(6.0).reshape(2, 3)
    m2 = _C.arange(12.0).reshape(3, 4)
    assert _C.addmm(_C.tensor([1.0, 2.0, 3.0, 4.0]), m1, m2, beta=0.5, alpha=2).tolist() == [[40.5, 47.0, 53.5, 60.0], [112.5, 137.0, 161.5, 186.0]]
    assert _C.addmv(_C.tensor([1.0, 2.0]), m1, _C.tensor([1.0, 0.0, -1.0]), beta=2, alpha=3).tolist() == [-4.0, -2.0]
    assert _C.addr(_C.ones(2, 3), _C.tensor([1.0, 2.0]), _C.tensor([1.0, 0.0, -1.0]), alpha=2).tolist() == [[3.0, 1.0, -1.0], [5.0, 1.0, -3.0]]
    b1 = _C.arange(12.0).reshape(2, 2, 3)
    b2 = _C.arange(12.0).reshape(2, 3, 2)
    assert _C.bmm(b1, b2).tolist() == [[[10.0, 13.0], [28.0, 40.0]], [[172.0, 193.0], [244.0, 274.0]]]
    assert b1.bmm(b2).shape == (2, 2, 2)
    assert _C.baddbmm(_C.ones(2, 2), b1, b2, beta=-1, alpha=0.5).tolist() == [[[4.0, 5.5], [13.0, 19.0]], [[85.0, 95.5], [121.0, 136.0]]]
    assert _C.mv(m1, _C.tensor([1.0, 2.0, 3.0])).tolist() == [8.0, 26.0]
    assert _C.vdot(_C.tensor([1.0, 2.0]), _C.tensor([3.0, 4.0])).item() == 11.0
    # beta = 0 ignores NaN in input, as BLAS.
    assert _C.addmm(_C.tensor([[NAN]]), _C.ones(1, 1), _C.ones(1, 1), beta=0).tolist() == [[1.0]]
    out = _C.empty(2)
    _C.mv(m1, _C.tensor([1.0, 2.0, 3.0]), out=out)
    assert out.tolist() == [8.0, 26.0]


@pytest.mark.filterwarnings("ignore:Using torch.cross without specifying the dim arg")
def test_matrix_product_errors():
    z = _C.zeros
    cases = [
        (lambda: _C.bmm(z(3, 4), z(2, 4, 5)), "batch1 must be a 3D tensor"),
        (lambda: _C.bmm(z(2, 3, 4), z(4, 5)), "batch2 must be a 3D tensor"),
        (lambda: _C.bmm(z(2, 3, 4), z(3, 4, 5)), "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [3, 4]."),
        (lambda: _C.bmm(z(2, 3, 4), z(2, 4, 5, dtype=_C.float64)), "expected scalar type Float but found Double"),
        (lambda: _C.mv(z(3, 4), z(5)), "size mismatch, got input (3), mat (3x4), vec (5)"),
        (lambda: _C.mv(z(4), z(4)), "vector + matrix @ vector expected, got 1, 1, 1"),
        (lambda: _C.addr(z(3, 4), z(3, 1), z(4)), "addr: Expected 1-D argument vec1, but got 2-D"),
        (lambda: _C.vdot(z(3, 1), z(3)), "1D tensors expected, but got 2D and 1D tensors"),
        (lambda: _C.cross(z(4, 3), z(4, 4)), "linalg.cross: inputs dimension 1 must have length 3. Got 3 and 4"),
        (lambda: _C.cross(z(4, 2), z(4, 2)), "no dimension of size 3 in input"),
        (lambda: _C.cdist(z(3, 2), z(4, 3)), "X1 and X2 must have the same number of columns. X1: 2 X2: 3"),
        (lambda: _C.cdist(z(3), z(4)), "cdist only supports at least 2D tensors, X1 got: 1D"),
        (lambda: _C.cdist(z(3, 2), z(4, 2), p=-1), "cdist only supports non-negative p values"),
        (lambda: _C.cdist(z(3, 2, dtype=_C.int64), z(4, 2, dtype=_C.int64)), "cdist only supports floating-point dtypes, X1 got: Long"),
        (lambda: _C.inner(z(2, 3), z(4, 2)), "inner() the last dimension must match on both input tensors but got shapes [2, 3] and [4, 2]"),
        (lambda: _C.tensordot(z(2, 3, 4), z(4, 3, 5), ([1], [0])), "contracted dimensions need to match, but first has size 3 in dim 1 and second has size 4 in dim 0"),
    ]
    for f, msg in cases:
        with pytest.raises(RuntimeError) as e:
            f()
        assert str(e.value) == msg


def test_cross_dist_cdist_kron_inner_tensordot():
    assert _C.cross(_C.tensor([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]]), _C.tensor([[4.0, 5.0, 6.0], [0.0, 0.0, 1.0]]), dim=1).tolist() == [[-3.0, 6.0, -3.0], [1.0, 0.0, 0.0]]
    assert _C.dist(_C.tensor([1.0, 2.0, 3.0]), _C.tensor([0.0, 0.0, 1.0]), 3).item() == pytest.approx(2.571281671524048, rel=1e-6)
    assert_values(_C.cdist(_C.tensor([[0.0, 0.0], [1.0, 1.0]]), _C.tensor([[1.0, 0.0], [3.0, 4.0], [0.0, 0.0]])),
                  [[1.0, 5.0, 0.0], [1.0, 3.605551242828369, 1.4142135381698608]], rel=1e-6)
    assert_values(_C.cdist(_C.tensor([[0.0, 0.0], [1.0, 1.0]]), _C.tensor([[1.0, 0.0], [3.0, 4.0], [0.0, 0.0]]), p=1),
                  [[1.0, 7.0, 0.0], [1.0, 5.0, 2.0]])
    assert _C.kron(_C.tensor([[1, 2], [3, 4]]), _C.tensor([[0, 1], [1, 0]])).tolist() == [[0, 1, 0, 2], [1, 0, 2, 0], [0, 3, 0, 4], [3, 0, 4, 0]]
    assert _C.kron(_C.zeros(2, 3), _C.zeros(4)).shape == (2, 12)
    assert _C.inner(_C.arange(6.0).reshape(2, 3), _C.arange(3.0)).tolist() == [5.0, 14.0]
    assert _C.tensordot(_C.arange(24.0).reshape(2, 3, 4), _C.arange(12.0).reshape(4, 3), ([1, 2], [1, 0])).tolist() == [440.0, 1232.0]
    assert _C.tensordot(_C.arange(24.0).reshape(2, 3, 4), _C.arange(24.0).reshape(3, 4, 2), dims=2).tolist() == [[1012.0, 1078.0], [2596.0, 2806.0]]
    # The composites are differentiable through the ops they are made of.
    a = _C.tensor([[1.0, 2.0]], requires_grad=True)
    _C.kron(a, _C.tensor([1.0, 3.0])).sum().backward()
    assert a.grad.tolist() == [[4.0, 4.0]]


def test_normal_of_tensors_records_a_zero_gradient():
    x = _C.ones(2, 2, requires_grad=True)
    # torch 2.15: NormalBackward3, zero gradients for mean and std.
    y = _C.normal(x, x)
    assert y.grad_fn.name() == "NormalBackward3"
    y.sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    with _C.no_grad():
        assert _C.normal(x, x).shape == (2, 2)


# ---- reductions, stacking, indices ---------------------------------------------------------------


def test_std_mean_var_mean():
    a = _C.tensor([[1.0, 2.0], [3.0, 5.0]])
    s, m = _C.std_mean(a, dim=1)
    assert_values(s, [0.7071067690849304, 1.4142135381698608], rel=1e-6)
    assert m.tolist() == [1.5, 4.0]
    v, m = _C.var_mean(a, 0, unbiased=False)
    assert v.tolist() == [1.0, 2.25] and m.tolist() == [2.0, 3.5]
    r = _C.var_mean(a, correction=0, keepdim=True, dim=0)
    assert isinstance(r, tuple) and [x.tolist() for x in r] == [[[1.0, 2.25]], [[2.0, 3.5]]]


def test_nansum_nanmean():
    n = _C.tensor([[1.0, NAN], [NAN, NAN]])
    assert _C.nansum(n).item() == 1.0
    assert _C.nansum(n, 1).tolist() == [1.0, 0.0]
    assert_values(_C.nanmean(n, 1), [1.0, NAN])
    assert _C.nanmean(n).item() == 1.0
    assert _C.nansum(_C.tensor([1, 2])).dtype is _C.int64
    with pytest.raises(NotImplementedError, match="nanmean\\(\\): expected input to have floating point or complex dtype but got Long"):
        _C.nanmean(_C.tensor([1, 2]))
    x = _C.tensor([1.0, NAN, 2.0], requires_grad=True)
    _C.nansum(x).backward()
    assert x.grad.tolist() == [1.0, 0.0, 1.0]


def test_stacking_and_atleast():
    assert _C.hstack([_C.tensor([1, 2]), _C.tensor(3)]).tolist() == [1, 2, 3]
    assert _C.vstack([_C.tensor([1, 2]), _C.tensor([[3, 4]])]).tolist() == [[1, 2], [3, 4]]
    assert _C.row_stack([_C.tensor([1, 2]), _C.tensor([3, 4])]).tolist() == [[1, 2], [3, 4]]
    assert _C.dstack([_C.tensor([1, 2]), _C.tensor([3, 4])]).tolist() == [[[1, 3], [2, 4]]]
    assert _C.column_stack([_C.tensor([1, 2]), _C.tensor([[3, 4], [5, 6]])]).tolist() == [[1, 3, 4], [2, 5, 6]]
    with pytest.raises(RuntimeError, match="hstack expects a non-empty TensorList"):
        _C.hstack([])
    assert _C.atleast_3d(_C.tensor([1, 2])).shape == (1, 2, 1)
    assert _C.atleast_2d(_C.tensor(1.0)).shape == (1, 1)
    assert [t.shape for t in _C.atleast_1d((_C.tensor(1), _C.tensor([2, 3])))] == [(1,), (2,)]
    t = _C.ones(2, 2)
    assert _C.atleast_2d(t) is t
    assert _C.fliplr(_C.tensor([[1, 2], [3, 4]])).tolist() == [[2, 1], [4, 3]]
    assert _C.flipud(_C.tensor([1, 2, 3])).tolist() == [3, 2, 1]
    with pytest.raises(RuntimeError, match="Input must be >= 2-d."):
        _C.fliplr(_C.zeros(3))
    assert _C.ravel(_C.zeros(2, 3)).shape == (6,)


def test_take_along_dim_argwhere_tri_indices_positive():
    x = _C.tensor([[10, 30, 20], [60, 40, 50]])
    assert _C.take_along_dim(x, _C.tensor([[0], [2]]), dim=1).tolist() == [[10], [50]]
    assert _C.take_along_dim(x, _C.tensor([0, 5])).tolist() == [10, 50]
    with pytest.raises(RuntimeError, match="input and indices should have the same number of dimensions"):
        _C.take_along_dim(x, _C.tensor([0]), dim=1)
    assert _C.argwhere(_C.tensor([[0, 1], [2, 0]])).tolist() == [[0, 1], [1, 0]]
    assert _C.argwhere(_C.tensor(3)).shape == (1, 0)
    assert _C.tril_indices(3, 3).tolist() == [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]
    assert _C.triu_indices(3, 4, 1).tolist() == [[0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3]]
    assert _C.tril_indices(3, 2, -1).tolist() == [[1, 2, 2], [0, 0, 1]]
    assert _C.tril_indices(0, 3).shape == (2, 0)
    assert _C.tril_indices(2, 2, dtype=_C.int32).dtype is _C.int32
    with pytest.raises(RuntimeError, match="row must be non-negative, got-1"):
        _C.tril_indices(-1, 3)
    with pytest.raises(NotImplementedError, match="\"tril_indices\" not implemented for 'Float'"):
        _C.tril_indices(2, 2, dtype=_C.float32)
    t = _C.ones(2)
    assert _C.positive(t) is t
    with pytest.raises(NotImplementedError, match="The `\\+` operator, on a bool tensor is not supported."):
        _C.positive(_C.tensor([True]))


def test_tensordot_dims_forms_and_cdist_mode():
    a = _C.arange(24.0).reshape(2, 3, 4)
    assert _C.tensordot(a, _C.arange(12.0).reshape(4, 3), dims=([1, 2], [1, 0])).tolist() == [440.0, 1232.0]
    assert _C.tensordot(a, _C.arange(12.0).reshape(4, 3), [[2], [0]]).shape == (2, 3, 3)
    assert _C.tensordot(a, _C.arange(24.0).reshape(3, 4, 2)).tolist() == [[1012.0, 1078.0], [2596.0, 2806.0]]
    with pytest.raises(RuntimeError, match="tensordot expects dims to be int or"):
        _C.tensordot(a, a, dims=1.5)
    x = _C.zeros(2, 2)
    assert _C.cdist(x, x, compute_mode="use_mm_for_euclid_dist").shape == (2, 2)
    with pytest.raises(ValueError, match="foo is not a valid value for compute_mode"):
        _C.cdist(x, x, compute_mode="foo")


# ---- in-place samplers ----------------------------------------------------------------------------


def test_in_place_samplers_ranges_and_errors():
    t = _C.zeros(1000, dtype=_C.float64)
    assert t.uniform_(2.0, 3.0) is t
    v = t.tolist()
    assert min(v) >= 2.0 and max(v) < 3.0
    t.normal_(5.0, 0.1)
    assert 4.9 < sum(t.tolist()) / 1000 < 5.1
    t.exponential_(2.0)
    assert min(t.tolist()) >= 0.0 and 0.4 < sum(t.tolist()) / 1000 < 0.6
    b = _C.zeros(1000, dtype=_C.int64).bernoulli_(0.25)
    assert set(b.tolist()) <= {0, 1} and 150 < sum(b.tolist()) < 350
    r = _C.zeros(1000, dtype=_C.int32).random_(3, 7)
    assert set(r.tolist()) == {3, 4, 5, 6} and r.dtype is _C.int32
    assert set(_C.zeros(200).random_(2).tolist()) == {0.0, 1.0}
    with pytest.raises(NotImplementedError, match="\"check_uniform_bounds\" not implemented for 'Long'"):
        _C.zeros(2, dtype=_C.int64).uniform_()
    with pytest.raises(RuntimeError, match="uniform_ expects to return a \\[from, to\\) range, but found from=2 > to=1"):
        _C.zeros(2).uniform_(2, 1)
    with pytest.raises(RuntimeError, match="exponential_ expects lambda > 0.0, but found lambda=0"):
        _C.zeros(2).exponential_(0)
    with pytest.raises(RuntimeError, match="Exponential distribution is a continuous probability distribution. dtype must be a floating point but you specified Long"):
        _C.zeros(2, dtype=_C.int64).exponential_()
    with pytest.raises(NotImplementedError, match="\"normal_kernel_cpu\" not implemented for 'Long'"):
        _C.zeros(2, dtype=_C.int64).normal_()
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to', but got from=5 >= to=3"):
        _C.zeros(2).random_(5, 3)
    with pytest.raises(RuntimeError, match="bernoulli_ expects p to be in \\[0, 1\\], but got p=1.5"):
        _C.zeros(2).bernoulli_(1.5)
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0, but found std -1"):
        _C.zeros(2).normal_(0, -1)


def test_in_place_samplers_use_the_generator_and_bump_the_version():
    g = _C.Generator().manual_seed(7)
    a = _C.zeros(5).uniform_(generator=g).tolist()
    g.manual_seed(7)
    assert _C.zeros(5).uniform_(generator=g).tolist() == a
    _C.manual_seed(3)
    x = _C.zeros(4).normal_().tolist()
    _C.manual_seed(3)
    assert _C.zeros(4).normal_().tolist() == x
    t = _C.zeros(3)
    v = t._version
    t.exponential_()
    assert t._version == v + 1
    w = _C.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation."):
        w.uniform_()


def test_take_along_dim_negative_indices_and_tensordot_size_one_pairs():
    x = _C.arange(6.0).reshape(2, 3)
    # torch: negative indices count from the end (Python's modulo).
    assert _C.take_along_dim(x, _C.tensor([[-1], [0]]), 1).tolist() == [[2.0], [3.0]]
    assert _C.take_along_dim(x, _C.tensor([[-4], [0]]), 1).tolist() == [[2.0], [3.0]]
    # A contracted pair of sizes 1 and 2: torch sums the size-2 side first.
    r = _C.tensordot(_C.ones(1, 1, 1), _C.arange(4.0).reshape(2, 1, 2), dims=([0, 1], [2, 0]))
    assert r.tolist() == [[6.0]]
