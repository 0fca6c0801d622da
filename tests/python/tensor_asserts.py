"""Assertions shared by the test files: compare a tensor with torch's expected values."""

import pytest

import _C


def _structure(x):
    return [_structure(i) for i in x] if isinstance(x, list) else None


def _flat(x):
    if isinstance(x, list):
        out = []
        for i in x:
            out.extend(_flat(i))
        return out
    return [x]


def same(t, expected, dtype, *, rel=1e-6, abs=1e-6, exact=False):
    """`t` is a tensor of `dtype` whose tolist() equals `expected` — floats within `rel`/`abs`
    unless `exact` — with elements of the Python type torch's tolist() gives (bool, int or
    float) and the same nesting."""
    assert isinstance(t, _C.Tensor), type(t)
    assert t.dtype is dtype, f"dtype {t.dtype!r}, expected {dtype!r}"
    got = t.tolist()
    assert _structure(got) == _structure(expected), f"{got!r} != {expected!r}"
    flat = _flat(got)
    want = bool if dtype is _C.bool else float if dtype.is_floating_point else int
    assert all(type(v) is want for v in flat), f"element types of {got!r}, expected {want}"
    if dtype.is_floating_point and not exact:
        assert flat == pytest.approx(_flat(expected), rel=rel, abs=abs, nan_ok=True)
    else:
        assert flat == _flat(expected)
