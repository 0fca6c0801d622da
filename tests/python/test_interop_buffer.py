"""The buffer protocol and DLPack without numpy (issue 11): `memoryview(t)`, BufferError while
exported, `_C.frombuffer` with torch's errors, `__dlpack__`/`from_dlpack` between `_C` tensors,
capsule ownership. These run under the refleak harness too (no numpy), which checks
`sys.gettotalrefcount()` and `_C._live_tensors()`; the tests also check `_C._live_external()` and
`_C._live_dlpack()` return to where they started.
"""

import array
import gc
import struct
import warnings

import pytest

import _C

FORMATS = {
    _C.bool: "?",
    _C.uint8: "B",
    _C.int8: "b",
    _C.int16: "h",
    _C.int32: "i",
    _C.int64: "q",
    _C.float32: "f",
    _C.float64: "d",
}


def counters():
    gc.collect()
    return _C._live_tensors(), _C._live_external(), _C._live_dlpack()


@pytest.mark.parametrize("dt", list(FORMATS))
def test_memoryview_describes_and_shares(dt):
    t = _C.arange(6).reshape(2, 3).to(dt)
    m = memoryview(t)
    assert m.format == FORMATS[dt]
    assert m.itemsize == struct.calcsize(FORMATS[dt])
    assert m.shape == (2, 3) and m.strides == (3 * m.itemsize, m.itemsize)
    assert not m.readonly and m.c_contiguous
    assert m.tolist() == t.tolist()
    m[1, 2] = m[0, 1]
    assert t[1, 2].item() == t[0, 1].item()
    m.release()


def test_memoryview_of_strided_zero_dim_and_empty_tensors():
    t = _C.arange(12.0).reshape(3, 4).transpose(0, 1)
    m = memoryview(t)
    assert m.strides == (4, 16) and not m.c_contiguous
    assert m.tolist() == t.tolist()
    with pytest.raises(TypeError, match="C-contiguous"):
        memoryview(t).cast("B")
    z = _C.tensor(2.5)
    mz = memoryview(z)
    assert mz.ndim == 0 and mz.shape == () and mz[()] == 2.5
    e = _C.zeros(0, 3)
    assert memoryview(e).shape == (0, 3) and memoryview(e).tolist() == []
    assert bytes(memoryview(_C.tensor([1, 2], dtype=_C.uint8))) == b"\x01\x02"
    import hashlib  # a PyBUF_SIMPLE consumer: reads the bytes of a C-contiguous tensor

    data = _C.tensor([1, 2, 3], dtype=_C.int16)
    assert hashlib.sha256(data).digest() == hashlib.sha256(struct.pack("=3h", 1, 2, 3)).digest()
    with pytest.raises(BufferError, match="not C-contiguous"):
        hashlib.sha256(_C.zeros(2, 2, dtype=_C.int16).transpose(0, 1))


def test_out_resize_raises_buffer_error_while_exported():
    out = _C.zeros(2)
    m = memoryview(out)
    with pytest.raises(BufferError, match="Existing exports of data: object cannot be re-sized"):
        _C.add(_C.ones(3), _C.ones(3), out=out)
    assert out.shape == (2,)
    _C.add(_C.ones(2), _C.ones(2), out=out)  # no resize: fine, and visible through the view
    assert m.tolist() == [2.0, 2.0]
    m.release()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _C.add(_C.ones(3), _C.ones(3), out=out)
    assert out.shape == (3,)


def test_buffer_outlives_tensor_object():
    t0, e0, _ = counters()
    t = _C.arange(4.0)
    m = memoryview(t)
    del t
    gc.collect()
    assert m.tolist() == [0.0, 1.0, 2.0, 3.0]
    m.release()
    del m
    assert counters()[:2] == (t0, e0)


def test_frombuffer_shares_and_keeps_the_export():
    t0, e0, _ = counters()
    buf = bytearray(struct.pack("<4i", 1, 2, 3, 4))
    t = _C.frombuffer(buf, dtype=_C.int32)
    assert t.tolist() == [1, 2, 3, 4]
    t[0] = 10
    assert struct.unpack_from("<i", buf)[0] == 10
    with pytest.raises(BufferError):
        buf.extend(b"x")  # the tensor holds an export: the bytearray cannot resize
    s = _C.frombuffer(buf, dtype=_C.int32, count=2, offset=8)
    assert s.tolist() == [3, 4]
    a = array.array("d", [1.5, 2.5])
    assert _C.frombuffer(a, dtype=_C.float64).tolist() == [1.5, 2.5]
    del t, s
    buf.extend(b"x")
    assert counters()[:2] == (t0, e0)


def test_frombuffer_errors_are_torchs():
    with pytest.raises(ValueError, match=r"^object does not implement Python buffer protocol.$"):
        _C.frombuffer([1, 2], dtype=_C.int16)
    with pytest.raises(ValueError, match=r"both buffer length \(0\) and count \(-1\) must not be 0"):
        _C.frombuffer(bytearray(), dtype=_C.uint8)
    with pytest.raises(ValueError, match=r"buffer length \(3 bytes\) after offset \(0 bytes\) must be a multiple of element size \(2\)"):
        _C.frombuffer(bytearray(3), dtype=_C.int16)
    with pytest.raises(ValueError, match=r"offset \(5 bytes\) must be non-negative and no greater than buffer length \(4 bytes\) minus 1"):
        _C.frombuffer(bytearray(4), dtype=_C.int16, offset=5)
    with pytest.raises(ValueError, match=r"requested buffer length \(3 \* 2 bytes\) after offset \(0 bytes\) must not be greater than actual buffer length \(4 bytes\)"):
        _C.frombuffer(bytearray(4), dtype=_C.int16, count=3)
    with pytest.raises(TypeError):
        _C.frombuffer(bytearray(4))  # dtype is required


def test_frombuffer_read_only_buffer_warns_and_shares():
    data = b"\x01\x02\x03\x04"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = _C.frombuffer(data, dtype=_C.uint8)
    assert t.tolist() == [1, 2, 3, 4]


@pytest.mark.parametrize("versioned", [False, True])
def test_dlpack_round_trip_between_tensors(versioned):
    t0, e0, d0 = counters()
    x = _C.arange(12, dtype=_C.int16).reshape(3, 4).transpose(0, 1)
    cap = x.__dlpack__(max_version=(1, 0)) if versioned else x.__dlpack__()
    assert repr(cap).startswith('<capsule object "dltensor_versioned"' if versioned else '<capsule object "dltensor"')
    y = _C.from_dlpack(cap)
    assert "used_dltensor" in repr(cap)
    assert y.tolist() == x.tolist() and y.stride() == x.stride() and y.dtype == _C.int16
    y[0, 0] = 99
    assert x[0, 0].item() == 99
    with pytest.raises(RuntimeError, match="DLTensor capsules can be consumed only once"):
        _C.from_dlpack(cap)
    del x, cap
    gc.collect()
    assert y.tolist()[0][0] == 99  # the producer's tensor lives while the consumer does
    del y
    assert counters() == (t0, e0, d0)


def test_dlpack_unconsumed_capsule_is_deleted_once():
    t0, e0, d0 = counters()
    cap = _C.ones(3).__dlpack__(max_version=(1, 0))
    assert _C._live_dlpack() == d0 + 1
    del cap
    assert counters() == (t0, e0, d0)
    cap = _C.ones(3).__dlpack__()
    del cap
    assert counters() == (t0, e0, d0)


def test_dlpack_protocol_arguments():
    t = _C.arange(3.0)
    assert t.__dlpack_device__() == (1, 0)
    assert type(t.__dlpack_device__()[0]).__name__ == "DLDeviceType"
    assert t.__dlpack_device__()[0].name == "kDLCPU"
    assert _C.from_dlpack(t).tolist() == [0.0, 1.0, 2.0]
    c = _C.from_dlpack(t, copy=True)
    c[0] = 5
    assert t[0].item() == 0.0
    s = _C.from_dlpack(t, copy=False)
    s[0] = 7
    assert t[0].item() == 7.0
    with pytest.raises(BufferError, match="stream should be None on cpu"):
        t.__dlpack__(stream=1)
    with pytest.raises(BufferError):
        t.__dlpack__(dl_device=(2, 0))
    assert _C.from_dlpack(t.__dlpack__(dl_device=(1, 0))).tolist() == t.tolist()
    copy = _C.from_dlpack(t.__dlpack__(copy=True))
    copy[1] = -1
    assert t[1].item() == 1.0
    with pytest.raises(TypeError):
        _C.from_dlpack(object())
    with pytest.raises(ValueError):
        _C.from_dlpack(t, device="cuda")


def test_dlpack_consumer_on_another_thread_releases_once():
    t0, e0, d0 = counters()
    y = _C.from_dlpack(_C.arange(1000.0).__dlpack__(max_version=(1, 0)))
    _C._hold_in_thread(y, 0.01)
    del y
    import time

    deadline = time.time() + 5
    while counters() != (t0, e0, d0) and time.time() < deadline:
        time.sleep(0.01)
    assert counters() == (t0, e0, d0)
