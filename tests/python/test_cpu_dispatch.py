"""The vectorised element functions at every CPU dispatch level (src/core/vecmath): each
TENSORBIND_CPU value, in a child process, gives values within the documented ULP bounds of
Python's math module (an independent libm result in double precision), with libm's special
values, for contiguous and strided inputs. Unknown values and levels the CPU lacks fall back
(Note [CPU dispatch levels])."""

import json
import math
import os
import struct
import subprocess
import sys

import pytest

CHILD = r"""
import json, sys
import _C
xs = [i / 37.0 - 6.0 for i in range(445)] + [0.0, -0.0, 1e-30, -1e-30, 88.0, -100.0, 700.0]
out = {}
for dt in ("float32", "float64"):
    t = _C.tensor(xs, dtype=getattr(_C, dt))
    for op in ("exp", "expm1", "tanh", "sigmoid", "sin", "cos"):
        out[f"{op} {dt}"] = getattr(_C, op)(t).tolist()
        # A strided view of the same values gives the same bits.
        st = _C.stack([t, t], 1)[:, 0]
        assert getattr(_C, op)(st).tolist() == out[f"{op} {dt}"], op
    p = _C.tensor([abs(x) for x in xs], dtype=getattr(_C, dt))
    for op in ("log", "log1p", "log2", "sqrt", "rsqrt"):
        out[f"{op} {dt}"] = getattr(_C, op)(p).tolist()
print(json.dumps({"xs": xs, "out": out, "level": _C._cpu_level()}))
"""


def _ref(op, x):
    try:
        if op == "exp":
            return math.exp(x)
        if op == "expm1":
            return math.expm1(x)
        if op == "tanh":
            return math.tanh(x)
        if op == "sigmoid":
            return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))
        if op == "sin":
            return math.sin(x)
        if op == "cos":
            return math.cos(x)
        if op == "log":
            return math.log(x) if x > 0 else -math.inf
        if op == "log1p":
            return math.log1p(x)
        if op == "log2":
            return math.log2(x) if x > 0 else -math.inf
        if op == "sqrt":
            return math.sqrt(x)
        if op == "rsqrt":
            return 1.0 / math.sqrt(x) if x != 0 else math.copysign(math.inf, x)
    except OverflowError:
        return math.inf
    raise AssertionError(op)


def _run(level):
    env = dict(os.environ)
    if level is None:
        env.pop("TENSORBIND_CPU", None)
    else:
        env["TENSORBIND_CPU"] = level
    p = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


_ORDER = ["baseline", "avx2", "avx512"]


def _cpu_best():
    """The best level this CPU supports, read from /proc/cpuinfo's flags (independently of _C)."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        pytest.skip("no /proc/cpuinfo")
    if "avx512f" in flags:
        return "avx512"
    if "avx2" in flags and "fma" in flags:
        return "avx2"
    return "baseline"


@pytest.mark.parametrize("level", ["baseline", "avx2", "avx512", "bogus", None])
def test_levels_within_bounds(level):
    r = _run(level)
    # _C._cpu_level(): the level asked for, capped at the CPU's best; unknown or unset → the best.
    best = _cpu_best()
    want = best if level not in _ORDER else _ORDER[min(_ORDER.index(level), _ORDER.index(best))]
    assert r["level"] == want, (level, r["level"], best)
    xs = r["xs"]
    for key, got in r["out"].items():
        op, dt = key.split()
        # float32: 2.5 ULP (the documented bounds are at most 2.2); float64: 6 ULP (bounds of
        # at most 3, against references that are not all correctly rounded here).
        eps = 2.0**-23 * 2.5 if dt == "float32" else 2.0**-52 * 6
        tiny = 2.0**-149 if dt == "float32" else 2.0**-1074
        for x, y in zip(xs, got):
            if op in ("log", "log1p", "log2", "sqrt", "rsqrt"):
                x = abs(x)
            if dt == "float32":
                x = struct.unpack("f", struct.pack("f", x))[0]
            want = _ref(op, x)
            if dt == "float32" and abs(want) > 3.4028234663852886e38:
                want = math.copysign(math.inf, want)
            if math.isinf(want):
                assert y == want, (key, x, y, want)
            elif want == 0.0:
                assert y == 0.0 and math.copysign(1, y) == math.copysign(1, want), (key, x, y)
            else:
                assert abs(y - want) <= eps * abs(want) + tiny, (key, x, y, want)
