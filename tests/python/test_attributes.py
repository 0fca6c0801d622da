"""Attributes and metadata: shape, dtype, ndim, dim(), numel(), size(), stride(),
is_contiguous(), is_floating_point(); the dtype objects; repr/str like torch's; instance
__dict__, weak references, hashing and subclassing of _C.Tensor."""

import copy
import gc
import pickle
import weakref

import pytest

import _C

ALL_DTYPES = [_C.bool, _C.uint8, _C.int8, _C.int16, _C.int32, _C.int64, _C.float32, _C.float64]

# ---------------------------------------------------------------------------------------------
# shape / ndim / dim / numel / size / stride


def test_shape_is_plain_tuple():
    t = _C.zeros(2, 3, 4)
    # Deliberate difference: torch returns torch.Size (a tuple subclass); we return a plain tuple.
    assert type(t.shape) is tuple
    assert t.shape == (2, 3, 4)
    assert _C.tensor(1).shape == ()
    assert _C.zeros(0).shape == (0,)


def test_ndim_dim_numel():
    t = _C.zeros(2, 3, 4)
    assert t.ndim == 3
    assert t.dim() == 3
    assert t.numel() == 24
    assert _C.numel(t) == 24
    s = _C.tensor(5)
    assert s.ndim == 0
    assert s.dim() == 0
    assert s.numel() == 1
    assert _C.zeros(3, 0).numel() == 0
    assert type(t.numel()) is int
    assert type(t.ndim) is int


def test_size():
    t = _C.zeros(2, 3, 4)
    assert t.size() == (2, 3, 4)
    assert type(t.size()) is tuple
    assert t.size(0) == 2
    assert t.size(-1) == 4
    assert t.size(dim=1) == 3
    assert _C.tensor(1).size() == ()


def test_size_and_stride_dim_none():
    # torch: Tensor.size(dim=None) / stride(dim=None) return the whole tuple
    t = _C.zeros(2, 3)
    assert t.size(None) == (2, 3)
    assert t.size(dim=None) == (2, 3)
    assert t.stride(None) == (3, 1)
    assert t.stride(dim=None) == (3, 1)


def test_size_errors():
    t = _C.zeros(2, 3)
    # torch: IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        t.size(2)
    with pytest.raises(IndexError):
        t.stride(-3)
    with pytest.raises(TypeError):
        t.size("a")


def test_stride():
    t = _C.zeros(2, 3, 4)
    assert t.stride() == (12, 4, 1)
    assert type(t.stride()) is tuple
    assert t.stride(0) == 12
    assert t.stride(-1) == 1
    assert t.stride(dim=1) == 4
    assert _C.tensor(1).stride() == ()
    tt = t.transpose(0, 2)
    assert tt.stride() == (1, 4, 12)
    assert t[:, ::2].stride() == (12, 8, 1)


def test_is_contiguous():
    t = _C.zeros(2, 3)
    assert t.is_contiguous() is True
    assert t.transpose(0, 1).is_contiguous() is False
    assert t[:, 1:].is_contiguous() is False
    assert t[1:].is_contiguous() is True
    assert t[:, 0].is_contiguous() is False
    assert _C.zeros(3, 1).transpose(0, 1).is_contiguous() is True  # size-1 dims do not matter
    assert _C.tensor(1).is_contiguous() is True


def test_storage_offset_element_size_nelement_ndimension():
    # Values from torch 2.15: t = arange(12.).reshape(3, 4).
    t = _C.arange(12.0).reshape(3, 4)
    assert t.storage_offset() == 0
    assert t[1:, 2:].storage_offset() == 6  # in elements, not bytes
    assert t.t()[2].storage_offset() == 2
    assert t[2, 3].storage_offset() == 11
    sizes = {_C.float32: 4, _C.float64: 8, _C.int64: 8, _C.int32: 4, _C.int16: 2,
             _C.int8: 1, _C.uint8: 1, _C.bool: 1}
    for dtype, size in sizes.items():
        assert _C.zeros(1, dtype=dtype).element_size() == size
    assert t.nelement() == 12 and _C.zeros(0, 3).nelement() == 0
    assert t.ndimension() == 2 and _C.tensor(1.0).ndimension() == 0
    with pytest.raises(TypeError):
        t.storage_offset(1)


def test_is_floating_point():
    for dtype in ALL_DTYPES:
        t = _C.zeros(1, dtype=dtype)
        expected = dtype in (_C.float32, _C.float64)
        assert t.is_floating_point() is expected, dtype
        assert _C.is_floating_point(t) is expected, dtype
        assert dtype.is_floating_point is expected, dtype


# ---------------------------------------------------------------------------------------------
# dtype objects


DTYPE_TABLE = [
    (_C.bool, "bool", 1),
    (_C.uint8, "uint8", 1),
    (_C.int8, "int8", 1),
    (_C.int16, "int16", 2),
    (_C.int32, "int32", 4),
    (_C.int64, "int64", 8),
    (_C.float32, "float32", 4),
    (_C.float64, "float64", 8),
]


def test_dtype_objects():
    for dtype, name, itemsize in DTYPE_TABLE:
        # Deliberate difference: torch prints torch.float32; we print _C.float32.
        assert repr(dtype) == f"_C.{name}"
        assert str(dtype) == f"_C.{name}"
        assert isinstance(dtype, _C.dtype)
        assert dtype.itemsize == itemsize, name
        assert _C.zeros(1, dtype=dtype).dtype is dtype
        assert pickle.loads(pickle.dumps(dtype)) is dtype
        assert getattr(_C, name) is dtype


def test_dtype_aliases():
    assert _C.float is _C.float32
    assert _C.double is _C.float64
    assert _C.long is _C.int64
    assert _C.int is _C.int32
    assert _C.short is _C.int16


def test_dtype_identity_and_equality():
    t = _C.ones(2)
    assert t.dtype is _C.float32
    assert t.dtype == _C.float32
    assert t.dtype != _C.float64
    assert (t + 1).dtype is t.dtype
    assert len({_C.float32, _C.float, _C.float64}) == 2
    assert hash(_C.int64) == hash(_C.long)


def test_dtype_cannot_be_created():
    with pytest.raises(TypeError):
        _C.dtype()
    with pytest.raises(AttributeError):
        _C.float32.itemsize = 3


def test_module_attributes():
    assert isinstance(_C.__version__, str)
    assert isinstance(_C._py_debug, bool)
    assert isinstance(_C._live_tensors(), int)


# ---------------------------------------------------------------------------------------------
# repr / str (torch's format, with _C.<dtype> for non-default dtypes)


REPR_CASES = [
    (lambda: _C.tensor([[1.0, 2.0], [3.0, 4.0]]), "tensor([[1., 2.],\n        [3., 4.]])"),
    (lambda: _C.tensor([1, 2, 3], dtype=_C.int32), "tensor([1, 2, 3], dtype=_C.int32)"),
    (lambda: _C.tensor([1, 2, 3]), "tensor([1, 2, 3])"),
    (lambda: _C.tensor([-1, 10]), "tensor([-1, 10])"),
    (lambda: _C.tensor([True, False]), "tensor([ True, False])"),
    (lambda: _C.tensor(True), "tensor(True)"),
    (lambda: _C.tensor(5), "tensor(5)"),
    (lambda: _C.tensor(3.5), "tensor(3.5000)"),
    (lambda: _C.tensor(2.0), "tensor(2.)"),
    (lambda: _C.tensor([1.5, 2.25]), "tensor([1.5000, 2.2500])"),
    (lambda: _C.tensor([1.0, -2.5]), "tensor([ 1.0000, -2.5000])"),
    (lambda: _C.tensor([0.1]), "tensor([0.1000])"),
    (lambda: _C.tensor([1.5, 100.0]), "tensor([  1.5000, 100.0000])"),
    (lambda: _C.tensor([1.0, 2.0], dtype=_C.float64), "tensor([1., 2.], dtype=_C.float64)"),
    (lambda: _C.tensor([1, 2], dtype=_C.uint8), "tensor([1, 2], dtype=_C.uint8)"),
    (lambda: _C.tensor([1, 2], dtype=_C.int8), "tensor([1, 2], dtype=_C.int8)"),
    (lambda: _C.tensor([1, 2], dtype=_C.int16), "tensor([1, 2], dtype=_C.int16)"),
    (lambda: _C.zeros(0), "tensor([])"),
    (lambda: _C.zeros(0, dtype=_C.int64), "tensor([], dtype=_C.int64)"),
    (lambda: _C.zeros(2, 0), "tensor([], size=(2, 0))"),
    (lambda: _C.tensor([float("nan"), float("inf"), 1.0]), "tensor([nan, inf, 1.])"),
    (lambda: _C.tensor([float("-inf"), 0.0]), "tensor([-inf, 0.])"),
    (lambda: _C.tensor([1e10, 1.0]), "tensor([1.0000e+10, 1.0000e+00])"),
    (
        lambda: _C.arange(8).reshape(2, 2, 2),
        "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]])",
    ),
    (lambda: _C.arange(6).reshape(2, 3).transpose(0, 1), "tensor([[0, 3],\n        [1, 4],\n        [2, 5]])"),
    (lambda: _C.arange(2000), "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"),
    (lambda: _C.ones(2, 2, dtype=_C.bool), "tensor([[True, True],\n        [True, True]])"),
    (lambda: _C.tensor([100.0, 2.0]), "tensor([100.,   2.])"),
    (lambda: _C.tensor([0.00001, 1.0]), "tensor([1.0000e-05, 1.0000e+00])"),
    (lambda: _C.tensor([-0.0]), "tensor([-0.])"),
    (lambda: _C.tensor([1e10, 1.0], dtype=_C.float64), "tensor([1.0000e+10, 1.0000e+00], dtype=_C.float64)"),
    (lambda: _C.tensor(-0.5), "tensor(-0.5000)"),
]


def test_repr():
    bad = []
    for make, text in REPR_CASES:
        t = make()
        if repr(t) != text or str(t) != text:
            bad.append(f"expected {text!r}\n     got {repr(t)!r} (str {str(t)!r})")
    assert not bad, "\n".join(bad)


def test_repr_of_subclass_and_large_2d():
    class My(_C.Tensor):
        pass

    assert repr(My([1, 2])) == "tensor([1., 2.])"
    r = repr(_C.zeros(1001, 2))
    assert r.startswith("tensor([[0., 0.],\n        [0., 0.],\n        [0., 0.],\n        ...,")
    assert r.endswith("[0., 0.]])")


# ---------------------------------------------------------------------------------------------
# object protocol: __dict__, weakref, hash, subclassing


def test_instance_dict():
    t = _C.zeros(1)
    t.name = "weights"
    assert t.name == "weights"
    assert t.__dict__ == {"name": "weights"}
    with pytest.raises(AttributeError):
        t.missing_attribute


def test_dict_survives_python_round_trip():
    t = _C.zeros(2)
    t.tag = 1
    holder = [t]
    del t
    assert holder[0].tag == 1


def test_weakref():
    t = _C.zeros(1)
    r = weakref.ref(t)
    assert r() is t
    del t
    gc.collect()
    assert r() is None


def test_hash_is_identity():
    a = _C.zeros(1)
    b = _C.zeros(1)
    assert hash(a) == hash(a)
    assert hash(a) != hash(b) or a is b
    assert {a: 1}[a] == 1


def test_reference_cycle_through_dict_is_collected():
    t = _C.zeros(1)
    t.self_ref = t
    r = weakref.ref(t)
    del t
    gc.collect()
    assert r() is None


def test_pickle_round_trip():
    t = _C.tensor([[1, 2], [3, 4]], dtype=_C.int32).transpose(0, 1)
    r = pickle.loads(pickle.dumps(t))
    assert type(r) is _C.Tensor
    assert r.dtype is _C.int32
    assert r.tolist() == [[1, 3], [2, 4]]
    r[0, 0] = 9
    assert t[0, 0].item() == 1


def test_deepcopy():
    t = _C.tensor([1.5, 2.5])
    t.tag = "x"
    c = copy.deepcopy(t)
    assert c is not t
    assert c.tolist() == [1.5, 2.5]
    assert c.dtype is _C.float32
    assert c.tag == "x"
    c[0] = 0
    assert t.tolist() == [1.5, 2.5]


class MyTensor(_C.Tensor):
    def double_it(self):
        return self * 2


def test_subclass_construction():
    m = MyTensor([1, 2])
    assert type(m) is MyTensor
    assert isinstance(m, _C.Tensor)
    assert m.dtype is _C.float32
    assert m.tolist() == [1.0, 2.0]
    assert m.shape == (2,)
    m2 = MyTensor(2, 3)
    assert type(m2) is MyTensor
    assert m2.shape == (2, 3)
    assert MyTensor().shape == (0,)


def test_subclass_works_with_ops():
    m = MyTensor([1, 2])
    r = m.double_it()
    assert isinstance(r, _C.Tensor)
    assert r.tolist() == [2.0, 4.0]
    assert _C.add(m, 1).tolist() == [2.0, 3.0]
    assert (m + m).tolist() == [2.0, 4.0]
    assert m.sum().item() == 3.0
    m.extra = "x"
    assert m.extra == "x"
    m[0] = 10
    assert m.tolist() == [10.0, 2.0]


def test_subclass_with_slots_and_init():
    class WithInit(_C.Tensor):
        def __init__(self, data, label="none"):
            self.label = label

    w = WithInit([1, 2, 3])
    assert w.label == "none"
    assert w.tolist() == [1.0, 2.0, 3.0]
    r = weakref.ref(w)
    del w
    gc.collect()
    assert r() is None


def test_isinstance_checks():
    t = _C.tensor([1])
    assert isinstance(t, _C.Tensor)
    assert type(t) is _C.Tensor
    assert not isinstance(_C.float32, _C.Tensor)
    assert not isinstance([1], _C.Tensor)
