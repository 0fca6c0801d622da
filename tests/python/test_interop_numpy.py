"""numpy interop (issue 11): `_C.tensor(ndarray)`, `from_numpy`, `as_tensor`, `Tensor.numpy`,
`__array__`, `np.asarray(t)`, numpy scalars as numbers, DLPack with numpy, torch round trips.

Expected values come from numpy itself (the data we put in) and torch's documented behaviour
(messages and dtype rules checked against torch 2.15 by hand). numpy is a test dependency of the
release venv only; this module is skipped where it is missing and left out of the refleak run
(numpy drifts the debug interpreter's refcount total); its leak checks use `_C._live_tensors()`
and `_C._live_external()` instead.
"""

import gc
import warnings

import pytest

import _C

np = pytest.importorskip("numpy")

DTYPES = [
    (np.bool_, _C.bool),
    (np.uint8, _C.uint8),
    (np.int8, _C.int8),
    (np.int16, _C.int16),
    (np.int32, _C.int32),
    (np.int64, _C.int64),
    (np.float32, _C.float32),
    (np.float64, _C.float64),
]


def sample(npdt, shape=(3, 4)):
    n = int(np.prod(shape))
    if npdt is np.bool_:
        return (np.arange(n) % 3 == 0).reshape(shape)
    return (np.arange(n) * 3 - 5).astype(npdt).reshape(shape)


def counters():
    gc.collect()
    return _C._live_tensors(), _C._live_external(), _C._live_dlpack()


@pytest.mark.parametrize("npdt,dt", DTYPES)
def test_round_trip_every_dtype_shares_memory(npdt, dt):
    a = sample(npdt)
    t = _C.from_numpy(a)
    assert t.dtype == dt and t.shape == a.shape and t.tolist() == a.tolist()
    b = t.numpy()
    assert b.dtype == a.dtype and np.shares_memory(a, b)
    one = np.ones(1, dtype=npdt)[0]
    b[1, 2] = one
    assert bool(t[1, 2].item() == one.item())
    assert np.asarray(t).__array_interface__["data"][0] == a.__array_interface__["data"][0]


@pytest.mark.parametrize("npdt,dt", DTYPES)
def test_tensor_of_ndarray_copies_and_keeps_dtype(npdt, dt):
    a = sample(npdt)
    t = _C.tensor(a)
    assert t.dtype == dt and t.tolist() == a.tolist()
    a[0, 0] = a[1, 1]
    assert t.tolist()[0][0] == sample(npdt)[0, 0]


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.arange(24.0).reshape(2, 3, 4)[:, ::2, 1:],  # sliced
        lambda: np.asfortranarray(np.arange(12, dtype=np.int32).reshape(3, 4)),  # Fortran order
        lambda: np.arange(12.0).reshape(3, 4).T,  # transposed
        lambda: np.zeros((0, 3), dtype=np.float32),  # zero-size
        lambda: np.array(7.5),  # 0-dim
        lambda: np.broadcast_to(np.arange(3.0), (2, 3)),  # stride 0, read-only
    ],
)
def test_layouts_round_trip(make):
    a = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = _C.from_numpy(a)
    assert t.shape == a.shape
    assert t.stride() == tuple(s // a.itemsize for s in a.strides)
    assert t.tolist() == a.tolist()
    assert _C.tensor(a).tolist() == a.tolist()
    back = t.numpy()
    assert back.shape == a.shape and back.strides == a.strides and (back == a).all()


def test_numpy_of_views_and_non_contiguous_tensors():
    t = _C.arange(12.0).reshape(3, 4).transpose(0, 1)[1:]
    a = t.numpy()
    assert a.tolist() == t.tolist() and a.strides == (4, 16)
    a[0, 0] = 100
    assert t[0, 0].item() == 100
    s = _C.tensor(3)
    assert s.numpy().shape == () and s.numpy().item() == 3


def test_from_numpy_errors_are_torchs():
    with pytest.raises(TypeError, match=r"^expected np.ndarray \(got list\)$"):
        _C.from_numpy([1, 2])
    with pytest.raises(ValueError, match="At least one stride in the given numpy array is negative"):
        _C.from_numpy(np.arange(3.0)[::-1])
    with pytest.raises(ValueError, match="byte order different from the native byte order"):
        _C.from_numpy(np.ones(3, dtype=">f4"))
    with pytest.raises(TypeError, match=r"can't convert np.ndarray of type numpy.str_. The only supported types are: float64, float32, int64, int32, int16, int8, uint8, and bool."):
        _C.from_numpy(np.array(["a"]))
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.complex128"):
        _C.tensor(np.ones(2, dtype=complex))
    with pytest.raises(ValueError, match="strides not a multiple of the element byte size"):
        _C.from_numpy(np.zeros(10, dtype=np.uint8)[1:].view(np.int8).reshape(9)[::1].view(np.uint8)[:8].view(np.int16)[:0:1] if False else np.lib.stride_tricks.as_strided(np.zeros(8, np.int16), (3,), (3,)))


def test_tensor_copies_arrays_torch_cannot_share():
    assert _C.tensor(np.arange(4.0)[::-1]).tolist() == [3.0, 2.0, 1.0, 0.0]
    big = np.arange(4, dtype=">i4")
    t = _C.tensor(big)
    assert t.dtype == _C.int32 and t.tolist() == [0, 1, 2, 3]


def test_read_only_array_warns_once_and_shares():
    a = np.arange(3.0)
    a.flags.writeable = False
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        t = _C.from_numpy(a)
        _C.from_numpy(a)
    msgs = [str(x.message) for x in w if "not writable" in str(x.message)]
    assert len(msgs) <= 1  # torch warns once per process (an earlier test may have used it up)
    assert t.tolist() == [0.0, 1.0, 2.0]


def test_lifetimes_producer_first_and_consumer_first():
    t0, e0, _ = counters()
    a = np.arange(6.0)
    t = _C.from_numpy(a)
    v = t[2:]
    del a, t
    gc.collect()
    assert v.tolist() == [2.0, 3.0, 4.0, 5.0]  # the view keeps the array alive
    assert _C._live_external() == e0 + 1
    del v
    assert counters()[:2] == (t0, e0)
    # consumer first: the array outlives the tensor and stays usable
    a = np.arange(3.0)
    t = _C.from_numpy(a)
    del t
    assert counters()[:2] == (t0, e0)
    assert a.tolist() == [0.0, 1.0, 2.0]
    # numpy() of a tensor whose object dies first
    x = _C.arange(5.0)
    arr = x.numpy()
    del x
    gc.collect()
    assert arr.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    del arr
    assert counters()[:2] == (t0, e0)


def test_as_tensor():
    t = _C.ones(3)
    assert _C.as_tensor(t) is t
    assert _C.as_tensor(t, dtype=_C.float32) is t
    d = _C.as_tensor(t, dtype=_C.float64)
    assert d.dtype == _C.float64 and d.tolist() == [1.0, 1.0, 1.0]
    a = np.arange(3, dtype=np.int32)
    s = _C.as_tensor(a)
    s[0] = 9
    assert a[0] == 9 and s.dtype == _C.int32
    c = _C.as_tensor(a, dtype=_C.int64)
    c[1] = 7
    assert a[1] == 1 and c.dtype == _C.int64
    assert _C.as_tensor([1, 2]).tolist() == [1, 2]
    assert _C.as_tensor(bytearray(b"ab")).tolist() == [97, 98]  # torch: a sequence, int64
    assert _C.as_tensor(bytearray(b"ab")).dtype == _C.int64


def test_tensor_accepts_numpy_scalars_lists_and_arrays():
    assert _C.tensor(np.float32(2.5)).dtype == _C.float32
    assert _C.tensor(np.float64(2.5)).dtype == _C.float64
    assert _C.tensor(np.int32(3)).dtype == _C.int32
    assert _C.tensor(np.array(4.0)).dtype == _C.float64
    assert _C.tensor([np.float64(1), 2]).dtype == _C.float64  # torch: promote(float64, int64)
    assert _C.tensor([1.0, np.int64(2)]).dtype == _C.float32  # promote(float32, int64)
    t = _C.tensor([np.ones(2), np.zeros(2)])
    assert t.dtype == _C.float64 and t.tolist() == [[1.0, 1.0], [0.0, 0.0]]
    assert _C.tensor(bytearray(b"ab")).tolist() == [97, 98]
    assert _C.tensor(bytearray(b"ab")).dtype == _C.int64
    assert _C.tensor(memoryview(b"ab")).tolist() == [97, 98]
    with pytest.raises(TypeError, match=r"invalid data type 'bytes'"):
        _C.tensor(b"ab")


def test_numpy_scalars_as_numbers():
    t = _C.ones(2)
    assert (t + np.float64(2)).dtype == _C.float32  # weak, as a Python float in torch
    assert (t + np.float32(2)).tolist() == [3.0, 3.0]
    r = np.float32(2) * t
    assert isinstance(r, _C.Tensor) and r.tolist() == [2.0, 2.0]
    r = np.float64(2) * t
    assert isinstance(r, _C.Tensor) and r.dtype == _C.float32
    assert (_C.ones(2, dtype=_C.int32) + np.int64(2)).dtype == _C.int32
    assert _C.zeros(np.int64(2)).shape == (2,)
    assert _C.ones(2, 3).sum(np.int64(1)).tolist() == [3.0, 3.0]
    assert _C.arange(5)[np.int64(3)].item() == 3
    assert _C.arange(5)[np.array([1, 3])].tolist() == [1, 3]
    assert _C.full((2,), np.float32(1.5)).tolist() == [1.5, 1.5]
    assert _C.Tensor.__array_priority__ == 1000


def test_zero_dim_integer_arrays_as_ints():
    assert _C.zeros(np.array(2)).shape == (2,)
    assert _C.arange(5)[np.array(3)].item() == 3
    assert _C.ones(3).reshape((np.int64(3),)).shape == (3,)


def test_ufuncs_return_tensors_through_array_wrap():
    t = _C.ones(2)
    r = np.sin(t)
    assert isinstance(r, _C.Tensor) and r.dtype == _C.float32
    assert r.tolist() == pytest.approx([0.8414709848] * 2)
    g = np.greater(t, 0)
    assert isinstance(g, _C.Tensor) and g.dtype == _C.uint8 and g.tolist() == [1, 1]  # torch
    assert isinstance(np.add(t, 1), _C.Tensor)
    with pytest.raises(TypeError):
        np.ones(2) + t  # torch: TypeError too (numpy defers to the tensor, which refuses arrays)


def test_array_protocol():
    t = _C.arange(4, dtype=_C.float32)
    a = np.asarray(t)
    a[0] = 5
    assert t[0].item() == 5
    b = t.__array__()
    assert np.shares_memory(a, b)
    c = t.__array__(np.float64)
    assert c.dtype == np.float64 and not np.shares_memory(a, c)
    d = t.__array__(copy=True)
    assert not np.shares_memory(a, d) and d.tolist() == t.tolist()
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        t.__array__(np.float64, copy=False)
    assert np.array(t).tolist() == t.tolist()


def test_dlpack_with_numpy_both_ways():
    t0, e0, d0 = counters()
    a = np.arange(6.0).reshape(2, 3)
    t = _C.from_dlpack(a)
    assert t.tolist() == a.tolist() and t.dtype == _C.float64
    t[0, 0] = 42
    assert a[0, 0] == 42
    del t
    x = _C.arange(6, dtype=_C.int32).reshape(2, 3).transpose(0, 1)
    b = np.from_dlpack(x)
    assert b.tolist() == x.tolist()
    b[0, 1] = -1
    assert x[0, 1].item() == -1
    del x
    gc.collect()
    assert b.tolist() == [[0, -1], [1, 4], [2, 5]]
    del b, a
    assert counters() == (t0, e0, d0)
    c = _C.from_dlpack(np.arange(3.0), copy=True)
    assert c.tolist() == [0.0, 1.0, 2.0]


def test_tensor_copy_of_large_array_matches():
    a = np.random.default_rng(0).random(1 << 20, dtype=np.float32)
    t = _C.tensor(a)
    assert t.numpy().tobytes() == a.tobytes()


torch = None
try:  # torch round trips run where torch imports (not in CI; by hand against PyPI's torch)
    import torch  # noqa: F811
except Exception:  # pragma: no cover
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


@needs_torch
@pytest.mark.parametrize("tdt,dt", [("bool", _C.bool), ("uint8", _C.uint8), ("int8", _C.int8),
                                    ("int16", _C.int16), ("int32", _C.int32), ("int64", _C.int64),
                                    ("float32", _C.float32), ("float64", _C.float64)])
def test_torch_round_trip(tdt, dt):
    src = torch.arange(12).reshape(3, 4).to(getattr(torch, tdt)).t()
    t = _C.from_dlpack(src)
    assert t.dtype == dt and t.tolist() == src.tolist()
    back = torch.from_dlpack(t)
    assert back.tolist() == src.tolist() and back.data_ptr() == src.data_ptr()
    if tdt != "bool":
        t[0, 0] = 1
        assert src[0, 0].item() == 1
    y = _C.arange(6.0).reshape(2, 3)
    z = torch.from_dlpack(y)
    z[1, 1] = 100
    assert y[1, 1].item() == 100
    assert torch.from_numpy(y.numpy()).tolist() == y.tolist()
    assert _C.from_numpy(z.numpy()).tolist() == y.tolist()
