"""The runner of the _C.nn.functional tests (tests/python/test_nn_*.py): each case of
nn_cases.py is run with ``F = _C.nn.functional, T = _C`` on the inputs stored in
nn_expected.json, and its answer compared with torch's answer recorded there (values within a
tolerance per dtype, or the exception's type and text, and torch's warnings)."""

import json
import math
import os
import warnings

import pytest

import _C
import _C.nn.functional as F

_PATH = os.path.join(os.path.dirname(__file__), "nn_expected.json")
_DATA = None

# float32 kernels may round differently from torch's (another summation order, f64
# accumulation); float64 agrees to near the last bits.
TOL = {"float32": (2e-5, 2e-6), "float64": (1e-10, 1e-12)}


def cases(family):
    """The recorded cases of `family`: {id: {"code", "inputs", "expect"}}."""
    global _DATA
    if _DATA is None:
        with open(_PATH) as f:
            _DATA = json.load(f)
    return _DATA[family]


def _tensor(enc):
    dtype = getattr(_C, enc["t"])
    return _C.tensor(enc["values"], dtype=dtype).reshape(enc["shape"])


def _compare(got, want, where, tol=None):
    if "tuple" in want:
        assert isinstance(got, tuple), f"{where}: {type(got)} is not a tuple"
        assert len(got) == len(want["tuple"]), where
        for i, (g, w) in enumerate(zip(got, want["tuple"])):
            _compare(g, w, f"{where}[{i}]", tol)
        return
    if "py" in want:
        assert got == want["py"], f"{where}: {got!r} != {want['py']!r}"
        return
    assert isinstance(got, _C.Tensor), f"{where}: {type(got)} is not a tensor"
    assert str(got.dtype).replace("_C.", "").replace("torch.", "") == want["t"], (
        f"{where}: dtype {got.dtype}, torch gives {want['t']}"
    )
    assert list(got.shape) == want["shape"], f"{where}: shape {list(got.shape)} != {want['shape']}"
    vals = got.reshape(-1).tolist()
    tols = {**TOL, **(tol or {})}
    if want["t"] in tols:
        rel, abs_ = tols[want["t"]]
        for i, (g, w) in enumerate(zip(vals, want["values"])):
            if isinstance(w, float) and math.isnan(w):
                assert math.isnan(g), f"{where}[{i}]: {g} is not NaN"
            else:
                assert g == pytest.approx(w, rel=rel, abs=abs_), f"{where}[{i}]: {g} != {w}"
    else:
        assert vals == want["values"], where


def check(case, tol=None):
    """Run `case` and compare with torch's answer; `tol` overrides TOL per dtype."""
    env = {"F": F, "T": _C}
    for k, enc in case["inputs"].items():
        env[k] = _tensor(enc)
    expect = case["expect"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if "error" in expect:
            etype, msg = expect["error"]
            with pytest.raises(Exception) as info:
                exec(case["code"], env)
            assert type(info.value).__name__ == etype, f"{info.value!r}: torch raises {etype}: {msg}"
            assert str(info.value).split("\n")[0] == msg
        else:
            exec(case["code"], env)
            _compare(env["out"], expect["value"], "out", tol)
    got = {str(w.message) for w in caught if issubclass(w.category, UserWarning)}
    for w in expect["warnings"]:
        if "Triggered internally" in w:  # torch's C++ performance hints (TORCH_WARN_ONCE)
            continue
        assert w in got, f"missing warning {w!r} (got {sorted(got)})"
