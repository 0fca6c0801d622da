"""GEMM, fused softmax / log_softmax / logsumexp, float reductions and the radix sort at every
CPU dispatch level (TENSORBIND_CPU, in a child process; Note [CPU dispatch levels]): values
against references computed here in double precision with Python's math module (never our
own output), edge sizes around the vector widths, non-contiguous inputs, NaN and infinities.
AVX2 and AVX-512 give the same GEMM bits (Note [GEMM results across levels]) and the same
sums at every level (Note [Vectorised reductions])."""

import json
import math
import os
import subprocess
import sys

import pytest

# The Iris step's products (forward with a transposed `b`, backward's `g @ w`, `h.t() @ g`,
# `x.t() @ g`) and widths around the small kernel's vector edge (masked past `n`).
MM_SHAPES = [(1, 1, 1), (3, 5, 2), (13, 17, 35), (25, 70, 33), (40, 1100, 9), (150, 4, 16),
             (150, 16, 3), (150, 3, 16), (16, 150, 3), (4, 150, 16), (9, 7, 20), (7, 5, 40)]

CHILD = r"""
import json
import _C
out = {}
MM_SHAPES = @MM_SHAPES@
def mat(r, c, seed):
    return [[((i * c + j) * seed % 101 - 50) / 16.0 for j in range(c)] for i in range(r)]
for dt in ("float32", "float64"):
    D = getattr(_C, dt)
    for (m, k, n) in MM_SHAPES:
        a, b = mat(m, k, 7), mat(k, n, 13)
        ta, tb = _C.tensor(a, dtype=D), _C.tensor(b, dtype=D)
        out[f"mm {dt} {m} {k} {n}"] = _C.matmul(ta, tb).tolist()
        # Transposed operands (views, not copies) give the same bits.
        tbt = _C.tensor([list(r) for r in zip(*b)], dtype=D).t()
        assert _C.matmul(ta, tbt).tolist() == out[f"mm {dt} {m} {k} {n}"]
        tat = _C.tensor([list(r) for r in zip(*a)], dtype=D).t()
        assert _C.matmul(tat, tb).tolist() == out[f"mm {dt} {m} {k} {n}"]
    # Rows shorter than a vector (the class scores of a small classifier): the same values as
    # one row at a time (the one-row kernel).
    xs = [[(i * 13 + j * 5) % 17 / 2.0 - 4.0 for j in range(3)] for i in range(37)]
    xs[1][2] = float("nan")
    xs[2] = [float("-inf")] * 3
    xs[3][0] = float("inf")
    ts = _C.tensor(xs, dtype=D)
    for f in ("softmax", "log_softmax", "logsumexp"):
        out[f"{f} {dt} s"] = getattr(_C, f)(ts, 1).tolist()
        out[f"{f} {dt} s1"] = [getattr(_C, f)(ts[i : i + 1], 1).tolist()[0] for i in range(37)]
    x = [[(i * 31 + j * 7) % 23 / 3.0 - 3.0 for j in range(37)] for i in range(5)]
    x[1][4] = float("nan")
    x[2] = [float("-inf")] * 37
    x[3][0] = float("inf")
    t = _C.tensor(x, dtype=D)
    for f in ("softmax", "log_softmax", "logsumexp"):
        out[f"{f} {dt} 1"] = getattr(_C, f)(t, 1).tolist()
        out[f"{f} {dt} 0"] = getattr(_C, f)(t, 0).tolist()
        out[f"{f} {dt} t"] = getattr(_C, f)(t.t(), 1).tolist()
    v = [((i * 7919) % 1009 - 504) / 3.0 for i in range(4099)]
    tv = _C.tensor(v, dtype=D)
    out[f"sum {dt}"] = _C.sum(tv).item()
    out[f"max {dt}"] = _C.max(tv).item()
    out[f"argmax {dt}"] = _C.argmax(tv).item()
    out[f"argmin {dt}"] = _C.argmin(tv).item()
    vn = list(v); vn[3000] = float("nan"); vn[4000] = float("nan")
    out[f"argmax nan {dt}"] = _C.argmax(_C.tensor(vn, dtype=D)).item()
    s = [float("nan") if i % 97 == 0 else (-0.0 if i % 5 == 0 else float((i * 37) % 50 - 25)) for i in range(2000)]
    sv, si = _C.sort(_C.tensor(s, dtype=D), stable=True)
    dv, di = _C.sort(_C.tensor(s, dtype=D), descending=True, stable=True)
    out[f"sort {dt}"] = [si.tolist(), di.tolist()]
print(json.dumps({"out": out}))
""".replace("@MM_SHAPES@", repr(MM_SHAPES))


def _run(level):
    env = dict(os.environ)
    if level is None:
        env.pop("TENSORBIND_CPU", None)
    else:
        env["TENSORBIND_CPU"] = level
    p = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.replace("NaN", '"nan"').replace("-Infinity", '"-inf"').replace("Infinity", '"inf"'))["out"]


def _f(v):
    return float(v) if isinstance(v, str) else v


def _mat(r, c, seed):
    return [[((i * c + j) * seed % 101 - 50) / 16.0 for j in range(c)] for i in range(r)]


def _close(got, want, tol):
    got = _f(got)
    if math.isnan(want):
        return math.isnan(got)
    if math.isinf(want):
        return got == want
    return abs(got - want) <= tol * (1.0 + abs(want))


def _softmax_ref(row, op):
    m = max(row) if not any(math.isnan(v) for v in row) else math.nan
    sh = 0.0 if op == "logsumexp" and math.isinf(m) else m
    try:
        s = math.fsum(math.exp(v - sh) for v in row)
    except ValueError:
        s = math.nan
    if math.isnan(s) or math.isnan(sh):
        s = math.nan
    if op == "logsumexp":
        return (math.log(s) if s > 0 else -math.inf) + sh if not math.isnan(s) else math.nan
    out = []
    for v in row:
        d = v - m if not (math.isinf(v) and math.isinf(m) and v == m) else math.nan
        if op == "softmax":
            out.append(math.exp(d) / s if s not in (0.0,) and not math.isnan(d) else math.nan)
        else:
            out.append(d - math.log(s) if s > 0 and not math.isnan(d) else math.nan)
    return out


@pytest.fixture(scope="module")
def levels():
    return {lv: _run(lv) for lv in ("baseline", "avx2", "avx512", None)}


@pytest.mark.parametrize("level", ["baseline", "avx2", "avx512", None])
def test_gemm_levels(levels, level):
    r = levels[level]
    for dt, eps in (("float32", 2.0**-24), ("float64", 2.0**-53)):
        for (m, k, n) in MM_SHAPES:
            a, b = _mat(m, k, 7), _mat(k, n, 13)
            got = r[f"mm {dt} {m} {k} {n}"]
            for i in range(m):
                for j in range(n):
                    want = math.fsum(a[i][p] * b[p][j] for p in range(k))
                    bound = math.fsum(abs(a[i][p] * b[p][j]) for p in range(k))
                    assert abs(got[i][j] - want) <= 2 * k * eps * bound, (dt, m, k, n, i, j)
    # The fused levels: the same bits.
    assert levels["avx2"]["mm float32 40 1100 9"] == levels["avx512"]["mm float32 40 1100 9"]
    assert levels["avx2"]["mm float64 25 70 33"] == levels["avx512"]["mm float64 25 70 33"]


@pytest.mark.parametrize("level", ["baseline", "avx2", "avx512", None])
def test_softmax_levels(levels, level):
    r = levels[level]
    x = [[(i * 31 + j * 7) % 23 / 3.0 - 3.0 for j in range(37)] for i in range(5)]
    x[1][4] = math.nan
    x[2] = [-math.inf] * 37
    x[3][0] = math.inf
    cols = [list(c) for c in zip(*x)]
    for dt, tol in (("float32", 1e-5), ("float64", 1e-13)):
        for op in ("softmax", "log_softmax", "logsumexp"):
            for key, lines in (("1", x), ("t", cols)):
                got = r[f"{op} {dt} {key}"]
                for li, line in enumerate(lines):
                    want = _softmax_ref(line, op)
                    if op == "logsumexp":
                        assert _close(got[li], want, tol), (op, dt, key, li, got[li], want)
                    else:
                        for g, w in zip(got[li], want):
                            assert _close(g, w, tol), (op, dt, key, li, g, w)
            xs = [[(i * 13 + j * 5) % 17 / 2.0 - 4.0 for j in range(3)] for i in range(37)]
            xs[1][2] = math.nan
            xs[2] = [-math.inf] * 3
            xs[3][0] = math.inf
            got_s = r[f"{op} {dt} s"]
            assert got_s == r[f"{op} {dt} s1"], (op, dt)
            for li, line in enumerate(xs):
                want = _softmax_ref(line, op)
                if op == "logsumexp":
                    assert _close(got_s[li], want, tol), (op, dt, "s", li, got_s[li], want)
                else:
                    for g, w in zip(got_s[li], want):
                        assert _close(g, w, tol), (op, dt, "s", li, g, w)
            got0 = r[f"{op} {dt} 0"]
            for j, col in enumerate(cols):
                want = _softmax_ref(col, op)
                if op == "logsumexp":
                    assert _close(got0[j], want, tol), (op, dt, j)
                else:
                    for i in range(5):
                        assert _close(got0[i][j], want[i], tol), (op, dt, i, j)


@pytest.mark.parametrize("level", ["baseline", "avx2", "avx512", None])
def test_reductions_and_sort_levels(levels, level):
    r = levels[level]
    v = [((i * 7919) % 1009 - 504) / 3.0 for i in range(4099)]
    s = [math.nan if i % 97 == 0 else (-0.0 if i % 5 == 0 else float((i * 37) % 50 - 25)) for i in range(2000)]
    for dt in ("float32", "float64"):
        vv = v if dt == "float64" else [float(__import__("struct").unpack("f", __import__("struct").pack("f", x))[0]) for x in v]
        want = math.fsum(vv)
        tol = 2.0**-24 if dt == "float32" else 1e-15
        assert abs(r[f"sum {dt}"] - want) <= tol * abs(want) + 1e-9
        assert r[f"sum {dt}"] == levels["baseline"][f"sum {dt}"]  # same bits at every level
        assert r[f"max {dt}"] == max(vv)
        assert r[f"argmax {dt}"] == vv.index(max(vv))
        assert r[f"argmin {dt}"] == vv.index(min(vv))
        assert r[f"argmax nan {dt}"] == 3000
        # torch's stable order: numbers ascending (-0.0 == 0.0, ties by position), NaN last;
        # descending: NaN first, ties still by position.
        def key(i):
            return (1, 0.0) if math.isnan(s[i]) else (0, s[i] + 0.0)
        asc = sorted(range(len(s)), key=key)
        desc = sorted(range(len(s)), key=lambda i: (-key(i)[0], -key(i)[1]))
        assert r[f"sort {dt}"] == [asc, desc]
