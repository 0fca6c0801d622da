"""tensorbind benchmark: `_C` against numpy (and torch when installed), in one process.

    python python/bench/bench.py            # full run (a few minutes)
    python python/bench/bench.py --quick    # < 1 minute
    python python/bench/bench.py --callgrind [--calls N]   # instructions per call (valgrind)
    python python/bench/bench.py --path DIR # import _C from DIR first (a staged build)

Method: every timing of an operation is interleaved with the same operation in the other
libraries, round after round, in one process; each case reports the median over the rounds in
ns per call, the spread (IQR, in % of the median) and the ratio to numpy (lower is better for
per-call cases; for throughput, GB/s or GFLOP/s and higher is better). Per-call timings subtract
an empty-loop baseline measured in the same round. BLAS/OpenMP pools are pinned to one thread
before numpy is imported; the `_C` thread count is chosen with TENSORBIND_NUM_THREADS, so the
"all cores" throughput rows run in a child process without it.
Never part of `make test`; numpy and torch are optional.
"""

import os
import sys

# Must happen before numpy/torch are imported: one BLAS/OpenMP thread for the per-call cases.
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ[_v] = "1"
# OpenMP threads (torch's, in the "cores" rows) otherwise spin for a while after each parallel
# region, on the cores the next library in the interleaved round is about to use: measured here,
# `_C`'s 2-thread matmul fell from 1.9x to 1.17x its 1-thread rate behind a spinning torch.
# Passive waiting puts every library's idle threads to sleep, as `_C`'s own pool does.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import timeit  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def _argv_path():
    """--path DIR, read before importing _C."""
    for i, a in enumerate(sys.argv):
        if a == "--path" and i + 1 < len(sys.argv):
            return sys.argv[i + 1]
        if a.startswith("--path="):
            return a.split("=", 1)[1]
    return None


if _argv_path():
    sys.path.insert(0, os.path.abspath(_argv_path()))

import _C  # noqa: E402

try:
    import numpy as np
except ImportError:  # pragma: no cover - optional
    np = None
try:
    import torch

    torch.set_num_threads(1)
except Exception:  # pragma: no cover - optional (ImportError, or a broken CUDA-only wheel)
    torch = None

NCORES = os.cpu_count() or 1

# Targets of issue 4: per-call ratio to numpy (lower is better).
PERCALL_TARGETS = {
    "_C.add(a, b)": 0.5,
    "a + b": 0.6,
    "_C.add(a, 2.0)": 0.35,
    "_C.add(a, b, alpha=2)": 0.7,
    "_C.zeros((2, 3))": 1.0,
    "t.shape": 1.0,
    "t.dtype": 1.0,
    "t[0] (1-D of 10)": 2.0,
    "_C.sum(t, dim=0) 4x8": 0.2,
    "_C.add(a, 'x') TypeError": 1.0,
}


# ----- per-call cases ---------------------------------------------------------------------------


def percall_cases():
    """(name, {lib: (stmt, setup-namespace)}) for each per-call case."""
    ns_c = {
        "_C": _C,
        "a": _C.ones(1),
        "b": _C.ones(1),
        "t10": _C.ones(10),
        "t48": _C.ones((4, 8)),
    }
    libs = {"_C": ns_c}
    if np is not None:
        libs["numpy"] = {
            "np": np,
            "a": np.ones(1, np.float32),
            "b": np.ones(1, np.float32),
            "t10": np.ones(10, np.float32),
            "t48": np.ones((4, 8), np.float32),
        }
    if torch is not None:
        libs["torch"] = {
            "torch": torch,
            "a": torch.ones(1),
            "b": torch.ones(1),
            "t10": torch.ones(10),
            "t48": torch.ones((4, 8)),
        }
    err_c = "try:\n    _C.add(a, 'x')\nexcept TypeError:\n    pass"
    err_np = "try:\n    np.add(a, 'x')\nexcept TypeError:\n    pass"
    err_t = "try:\n    torch.add(a, 'x')\nexcept TypeError:\n    pass"
    stmts = {
        "_C.add(a, b)": ("_C.add(a, b)", "np.add(a, b)", "torch.add(a, b)"),
        "a + b": ("a + b", "a + b", "a + b"),
        "_C.add(a, 2.0)": ("_C.add(a, 2.0)", "np.add(a, 2.0)", "torch.add(a, 2.0)"),
        # numpy has no alpha: the numpy row is the two ufunc calls it takes.
        "_C.add(a, b, alpha=2)": (
            "_C.add(a, b, alpha=2)",
            "np.add(a, np.multiply(b, 2))",
            "torch.add(a, b, alpha=2)",
        ),
        "_C.zeros((2, 3))": (
            "_C.zeros((2, 3))",
            "np.zeros((2, 3), np.float32)",
            "torch.zeros((2, 3))",
        ),
        "t.shape": ("a.shape", "a.shape", "a.shape"),
        "t.dtype": ("a.dtype", "a.dtype", "a.dtype"),
        "t[0] (1-D of 10)": ("t10[0]", "t10[0]", "t10[0]"),
        "_C.sum(t, dim=0) 4x8": (
            "_C.sum(t48, dim=0)",
            "np.sum(t48, axis=0)",
            "torch.sum(t48, dim=0)",
        ),
        "_C.add(a, 'x') TypeError": (err_c, err_np, err_t),
    }
    out = []
    for name, (sc, sn, st) in stmts.items():
        per = {"_C": (sc, libs["_C"])}
        if "numpy" in libs:
            per["numpy"] = (sn, libs["numpy"])
        if "torch" in libs:
            per["torch"] = (st, libs["torch"])
        out.append((name, per))
    return out


def _timer(stmt, ns):
    return timeit.Timer(stmt, globals=ns)


def interleave(timers, rounds, number, baseline=None):
    """Run each timer `number` times per round, rotating the order every round; returns
    {lib: [seconds per call, ...]} (baseline-subtracted when a baseline timer is given)."""
    res = {k: [] for k in timers}
    keys = list(timers)
    for r in range(rounds):
        order = keys[r % len(keys):] + keys[: r % len(keys)]
        base = baseline.timeit(number) / number if baseline is not None else 0.0
        for k in order:
            res[k].append(timers[k].timeit(number) / number - base)
    return res


def stats(xs):
    xs = sorted(xs)
    med = statistics.median(xs)
    if len(xs) >= 4:
        q = statistics.quantiles(xs, n=4)
        iqr = q[2] - q[0]
    else:
        iqr = xs[-1] - xs[0]
    return med, iqr


def calibrate(t, target=0.01):
    """Loop count so one timing takes about `target` seconds."""
    n = 1
    while True:
        dt = t.timeit(n)
        if dt >= target / 10 or n >= 1 << 22:
            return max(1, int(n * target / max(dt, 1e-9)))
        n *= 4


def run_percall(quick):
    rounds = 15 if quick else 41
    target = 0.004 if quick else 0.01
    rows = []
    baseline = timeit.Timer("pass")
    for name, per in percall_cases():
        timers = {k: _timer(s, ns) for k, (s, ns) in per.items()}
        for t in timers.values():  # warm up (and fail early on a broken statement)
            t.timeit(100)
        number = calibrate(timers["_C"], target)
        res = interleave(timers, rounds, number, baseline)
        row = {"case": name}
        for k, xs in res.items():
            med, iqr = stats(xs)
            row[k] = (med * 1e9, iqr * 1e9)
        rows.append(row)
        print(".", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return rows


def print_percall(rows):
    libs = [k for k in ("_C", "numpy", "torch") if k in rows[0]]
    hdr = f"{'case':28s}" + "".join(f"{k + ' ns':>12s} {'IQR':>5s}" for k in libs)
    if "numpy" in libs:
        hdr += f"{'_C/np':>8s}{'target':>8s}  met"
        if "torch" in libs:
            hdr += f"{'_C/torch':>9s}"
    print(hdr)
    for r in rows:
        line = f"{r['case']:28s}"
        for k in libs:
            med, iqr = r[k]
            line += f"{med:12.1f} {100 * iqr / med if med > 0 else 0:4.0f}%"
        if "numpy" in libs:
            ratio = r["_C"][0] / r["numpy"][0]
            tgt = PERCALL_TARGETS.get(r["case"])
            line += f"{ratio:8.2f}{tgt:8.2f}  {'yes' if ratio <= tgt else 'NO'}"
            if "torch" in libs:
                line += f"{r['_C'][0] / r['torch'][0]:9.2f}"
        print(line)


# ----- throughput -------------------------------------------------------------------------------


def run_throughput(quick, threads_label):
    """Large-op cases, interleaved; returns rows of {case, unit, lib: (value, iqr)}."""
    rounds = 5 if quick else 15
    rows = []
    n_add = 4 << 20
    n_sum = 16 << 20
    mm = 1024

    def case(name, unit, work, fns):
        # fns: {lib: callable}; value = work / seconds (bytes or flops) in G-units.
        for f in fns.values():
            f()
        res = {k: [] for k in fns}
        keys = list(fns)
        for r in range(rounds):
            for k in keys[r % len(keys):] + keys[: r % len(keys)]:
                t0 = time.perf_counter()
                fns[k]()
                res[k].append(time.perf_counter() - t0)
        row = {"case": f"{name} [{threads_label}]", "unit": unit}
        for k, xs in res.items():
            med, iqr = stats(xs)
            row[k] = (work / med / 1e9, iqr / med)
        rows.append(row)
        print(".", end="", file=sys.stderr, flush=True)

    a, b, c = _C.ones(n_add), _C.ones(n_add), _C.zeros(n_add)
    na = nb = nc = ta = tb = tc = None
    if np is not None:
        na, nb, nc = np.ones(n_add, np.float32), np.ones(n_add, np.float32), np.zeros(
            n_add, np.float32
        )
    if torch is not None:
        ta, tb, tc = torch.ones(n_add), torch.ones(n_add), torch.zeros(n_add)
    # The issue-14 targets name add and mul: the same memory-bound loop, both measured.
    for op in ("add", "mul"):
        fns = {"_C": lambda op=op: getattr(_C, op)(a, b)}
        fns_out = {"_C": lambda op=op: getattr(_C, op)(a, b, out=c)}
        if np is not None:
            npf = {"add": np.add, "mul": np.multiply}[op]
            fns["numpy"] = lambda f=npf: f(na, nb)
            fns_out["numpy"] = lambda f=npf: f(na, nb, out=nc)
        if torch is not None:
            fns["torch"] = lambda op=op: getattr(torch, op)(ta, tb)
            fns_out["torch"] = lambda op=op: getattr(torch, op)(ta, tb, out=tc)
        case(f"{op} 4M f32 (new out)", "GB/s", 3 * 4 * n_add, fns)
        case(f"{op} 4M f32 (out=)", "GB/s", 3 * 4 * n_add, fns_out)

    s = _C.ones(n_sum)
    fns = {"_C": lambda: _C.sum(s)}
    if np is not None:
        ns_ = np.ones(n_sum, np.float32)
        fns["numpy"] = lambda: np.sum(ns_)
    if torch is not None:
        ts = torch.ones(n_sum)
        fns["torch"] = lambda: torch.sum(ts)
    case("sum 16M f32", "GB/s", 4 * n_sum, fns)

    ma, mb = _C.ones((mm, mm)), _C.ones((mm, mm))
    fns = {"_C": lambda: _C.matmul(ma, mb)}
    if np is not None:
        nma, nmb = np.ones((mm, mm), np.float32), np.ones((mm, mm), np.float32)
        fns["numpy"] = lambda: np.matmul(nma, nmb)
    if torch is not None:
        tma, tmb = torch.ones((mm, mm)), torch.ones((mm, mm))
        fns["torch"] = lambda: torch.matmul(tma, tmb)
    case("matmul 1024 f32", "GFLOP/s", 2 * mm**3, fns)

    ma64, mb64 = _C.ones((mm, mm), dtype=_C.float64), _C.ones((mm, mm), dtype=_C.float64)
    fns = {"_C": lambda: _C.matmul(ma64, mb64)}
    if np is not None:
        nma64, nmb64 = np.ones((mm, mm)), np.ones((mm, mm))
        fns["numpy"] = lambda: np.matmul(nma64, nmb64)
    if torch is not None:
        tma64, tmb64 = torch.ones((mm, mm), dtype=torch.float64), torch.ones((mm, mm), dtype=torch.float64)
        fns["torch"] = lambda: torch.matmul(tma64, tmb64)
    case("matmul 1024 f64", "GFLOP/s", 2 * mm**3, fns)

    # max / argmax over 16M float32 (random normal, so argmax's position search runs far).
    rnd = np.random.default_rng(0).standard_normal(n_sum).astype(np.float32) if np is not None else None
    cr = _C.from_numpy(rnd) if rnd is not None else _C.ones(n_sum)
    tr = torch.from_numpy(rnd) if torch is not None and rnd is not None else None
    for name in ("max", "argmax"):
        fns = {"_C": (lambda f: lambda: f(cr))(getattr(_C, name))}
        if np is not None:
            fns["numpy"] = (lambda f: lambda: f(rnd))(getattr(np, name))
        if tr is not None:
            fns["torch"] = (lambda f: lambda: f(tr))(getattr(torch, name))
        case(f"{name} 16M f32", "GB/s", 4 * n_sum, fns)

    # Fused softmax rows of 512 (512x512 float32, dim=1); numpy has no softmax.
    sm = _C.from_numpy(rnd[: 512 * 512].reshape(512, 512)) if rnd is not None else _C.ones((512, 512))
    tsm = torch.from_numpy(rnd[: 512 * 512].reshape(512, 512)) if tr is not None else None
    for name in ("softmax", "log_softmax"):
        fns = {"_C": (lambda f: lambda: f(sm, 1))(getattr(_C, name))}
        if tsm is not None:
            fns["torch"] = (lambda f: lambda: f(tsm, 1))(getattr(torch, name))
        case(f"{name} 512x512 dim=1 f32", "Gel/s", 512 * 512, fns)

    # sort 1M float32: values and indices (numpy: values only, np.sort's default).
    n_sort = 1 << 20
    srt = _C.from_numpy(rnd[:n_sort].copy()) if rnd is not None else _C.ones(n_sort)
    fns = {"_C": lambda: _C.sort(srt)}
    if np is not None:
        nsrt = rnd[:n_sort].copy()
        fns["numpy"] = lambda: np.sort(nsrt)
    if torch is not None and rnd is not None:
        tsrt = torch.from_numpy(rnd[:n_sort].copy())
        fns["torch"] = lambda: torch.sort(tsrt)
    case("sort 1M f32", "Mel/s", n_sort * 1000, fns)

    # Element functions (src/core/vecmath), 4M float32 in [-3, 3] ([0.01, 10] for log); numpy
    # has no sigmoid or erf ufunc: its sigmoid row is the three ufunc calls it takes.
    n_un = 4 << 20
    xs = _C.linspace(-3.0, 3.0, n_un)
    xp = _C.linspace(0.01, 10.0, n_un)
    nxs = np.linspace(-3.0, 3.0, n_un, dtype=np.float32) if np is not None else None
    nxp = np.linspace(0.01, 10.0, n_un, dtype=np.float32) if np is not None else None
    txs = torch.linspace(-3.0, 3.0, n_un) if torch is not None else None
    txp = torch.linspace(0.01, 10.0, n_un) if torch is not None else None
    for name in ("exp", "log", "tanh", "sigmoid", "erf", "sin"):
        pos = name == "log"
        fns = {}
        if hasattr(_C, name):
            x = xp if pos else xs
            fns["_C"] = (lambda f, x: lambda: f(x))(getattr(_C, name), x)
        if np is not None:
            x = nxp if pos else nxs
            if name == "sigmoid":
                fns["numpy"] = (lambda x: lambda: 1.0 / (1.0 + np.exp(-x)))(x)
            elif hasattr(np, name):
                fns["numpy"] = (lambda f, x: lambda: f(x))(getattr(np, name), x)
        if torch is not None:
            x = txp if pos else txs
            fns["torch"] = (lambda f, x: lambda: f(x))(getattr(torch, name), x)
        if "_C" in fns:
            case(f"{name} 4M f32", "Gel/s", n_un, fns)
    print(file=sys.stderr)
    return rows


def two_thread_matmul(quick):
    """Throughput of two Python threads each doing 512x512 matmuls, relative to one thread."""
    n, reps = 512, (6 if quick else 20)
    out = {}
    libs = {"_C": (_C.ones((n, n)), _C.matmul)}
    if np is not None:
        libs["numpy"] = (np.ones((n, n), np.float32), np.matmul)
    if torch is not None:
        libs["torch"] = (torch.ones((n, n)), torch.matmul)
    for k, (m, f) in libs.items():
        def work():
            for _ in range(reps):
                f(m, m)

        work()
        one, two = [], []
        for _ in range(3 if quick else 5):
            t0 = time.perf_counter()
            work()
            one.append(time.perf_counter() - t0)
            ths = [threading.Thread(target=work) for _ in range(2)]
            t0 = time.perf_counter()
            for t in ths:
                t.start()
            for t in ths:
                t.join()
            two.append(time.perf_counter() - t0)
        # two threads do twice the work: speedup = 2 * t_one / t_two.
        out[k] = 2 * statistics.median(one) / statistics.median(two)
    return out


def print_throughput(rows):
    libs = [k for k in ("_C", "numpy", "torch") if any(k in r for r in rows)]
    hdr = f"{'case':40s}{'unit':>8s}" + "".join(f"{k:>10s} {'IQR':>5s}" for k in libs)
    if "numpy" in libs:
        hdr += f"{'_C/np':>8s}"
    if "torch" in libs:
        hdr += f"{'_C/torch':>9s}"
    print(hdr)
    for r in rows:
        line = f"{r['case']:40s}{r['unit']:>8s}"
        for k in libs:
            v, iqr = r.get(k, (float("nan"), float("nan")))
            line += f"{v:10.2f} {100 * iqr:4.0f}%"
        if "numpy" in libs:
            line += f"{r['_C'][0] / r['numpy'][0]:8.2f}" if "numpy" in r else f"{'—':>8s}"
        if "torch" in libs:
            line += f"{r['_C'][0] / r['torch'][0]:9.2f}" if "torch" in r else f"{'—':>9s}"
        print(line)


def child_throughput(quick, threads):
    """Run the throughput rows in a child process with `threads` _C threads (None: default)."""
    env = dict(os.environ)
    if threads is None:
        env.pop("TENSORBIND_NUM_THREADS", None)
    else:
        env["TENSORBIND_NUM_THREADS"] = str(threads)
    cmd = [sys.executable, os.path.abspath(__file__), "--child-throughput"]
    if quick:
        cmd.append("--quick")
    if _argv_path():
        cmd += ["--path", _argv_path()]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


# ----- interop (issue 11) -----------------------------------------------------------------------

# Per-call targets of issue 11, as a ratio to torch's same call (lower is better).
INTEROP_TARGETS = {"_C.from_numpy(a)": 0.5, "t.numpy()": 0.5, "np.asarray(t)": 0.5,
                   "_C.from_dlpack(a)": 0.5}


def run_interop(quick):
    """Memory exchange with numpy (and torch): per call at two sizes (the cost must not grow with
    the data), beside torch's same call; and `_C.tensor(ndarray)` of 4M float32 against
    `ndarray.copy()`. Needs numpy; returns None without it."""
    if np is None:
        return None
    rounds = 15 if quick else 41
    target = 0.004 if quick else 0.01
    baseline = timeit.Timer("pass")
    rows = []
    for n in (1000, 4 << 20):
        ns_c = {"_C": _C, "np": np, "a": np.ones(n, np.float32), "t": _C.ones(n)}
        ns_t = ({"torch": torch, "np": np, "a": np.ones(n, np.float32), "t": torch.ones(n)}
                if torch is not None else None)
        for name, sc, st in (
            ("_C.from_numpy(a)", "_C.from_numpy(a)", "torch.from_numpy(a)"),
            ("t.numpy()", "t.numpy()", "t.numpy()"),
            ("np.asarray(t)", "np.asarray(t)", "np.asarray(t)"),
            ("_C.from_dlpack(a)", "_C.from_dlpack(a)", "torch.from_dlpack(a)"),
        ):
            timers = {"_C": _timer(sc, ns_c)}
            if ns_t is not None:
                timers["torch"] = _timer(st, ns_t)
            for t in timers.values():
                t.timeit(100)
            res = interleave(timers, rounds, calibrate(timers["_C"], target), baseline)
            row = {"case": f"{name} ({n} f32)", "key": name}
            for k, xs in res.items():
                row[k] = tuple(v * 1e9 for v in stats(xs))
            rows.append(row)
            print(".", end="", file=sys.stderr, flush=True)
    n = 4 << 20
    a = np.random.default_rng(0).random(n, dtype=np.float32)
    fns = {"_C.tensor(a)": lambda: _C.tensor(a), "a.copy()": lambda: a.copy()}
    if torch is not None:
        fns["torch.tensor(a)"] = lambda: torch.tensor(a)
    for f in fns.values():
        f()
    res = {k: [] for k in fns}
    keys = list(fns)
    for r in range(5 if quick else 15):
        for k in keys[r % len(keys):] + keys[: r % len(keys)]:
            t0 = time.perf_counter()
            fns[k]()
            res[k].append(time.perf_counter() - t0)
    copy = {k: (2 * 4 * n / stats(xs)[0] / 1e9, stats(xs)[1] / stats(xs)[0]) for k, xs in res.items()}
    print(file=sys.stderr)
    return {"percall": rows, "copy": copy}


def print_interop(res):
    if res is None:
        print("numpy not installed")
        return
    has_torch = "torch" in res["percall"][0]
    print(f"{'case':34s}{'_C ns':>10s} {'IQR':>5s}" + (f"{'torch ns':>10s} {'IQR':>5s}"
          f"{'_C/torch':>9s}{'target':>8s}  met" if has_torch else ""))
    for r in res["percall"]:
        med, iqr = r["_C"]
        line = f"{r['case']:34s}{med:10.1f} {100 * iqr / med if med > 0 else 0:4.0f}%"
        if has_torch:
            tm, ti = r["torch"]
            ratio = med / tm
            tgt = INTEROP_TARGETS[r["key"]]
            line += (f"{tm:10.1f} {100 * ti / tm if tm > 0 else 0:4.0f}%{ratio:9.2f}{tgt:8.2f}"
                     f"  {'yes' if ratio <= tgt else 'NO'}")
        print(line)
    c = res["copy"]
    print(f"copy of a 4M float32 array (GB/s read+write; target _C.tensor(a) >= 0.9x a.copy()):")
    for k, (v, iqr) in c.items():
        print(f"  {k:20s}{v:8.2f} GB/s  IQR {100 * iqr:.0f}%")
    print(f"  _C.tensor(a) / a.copy() = {c['_C.tensor(a)'][0] / c['a.copy()'][0]:.2f}")


# ----- footprint --------------------------------------------------------------------------------


def _rss_child(lib, n):
    code = f"""
import os, sys, gc
sys.path[:0] = {sys.path[:3]!r}
def rss():
    with open('/proc/self/statm') as f:
        return int(f.read().split()[1]) * os.sysconf('SC_PAGE_SIZE')
if {lib!r} == '_C':
    import _C
    mk = lambda: _C.zeros(1)
elif {lib!r} == 'numpy':
    import numpy as np
    mk = lambda: np.zeros(1, np.float32)
else:
    import torch
    mk = lambda: torch.zeros(1)
warm = [mk() for _ in range(1000)]
del warm
gc.collect()
keep = [None] * {n}
r0 = rss()
for i in range({n}):
    keep[i] = mk()
r1 = rss()
print((r1 - r0) / {n})
"""
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if p.returncode != 0:
        return None
    return float(p.stdout.strip())


def _import_ms(module, runs):
    times = []
    for _ in range(runs):
        env = dict(os.environ)
        p = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", f"import {module}"],
            capture_output=True,
            text=True,
            env=env,
            cwd=tempfile.gettempdir(),
        )
        if p.returncode != 0:
            return None
        # "import time: self [us] | cumulative | imported package": the top-level line.
        for line in p.stderr.splitlines():
            m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \| (\S+)$", line.rstrip())
            if m and m.group(3) == module:
                times.append(int(m.group(2)) / 1000)
    return statistics.median(times) if times else None


def run_footprint(quick):
    n = 200_000
    res = {"rss": {}, "import_ms": {}}
    for lib in ["_C"] + (["numpy"] if np is not None else []) + (["torch"] if torch else []):
        res["rss"][lib] = _rss_child(lib, n)
        res["import_ms"][lib] = _import_ms(lib, 3 if quick else 9)
    wheels = sorted(
        (os.path.join(REPO, "dist", f) for f in os.listdir(os.path.join(REPO, "dist")))
        if os.path.isdir(os.path.join(REPO, "dist"))
        else []
    )
    wheels = [w for w in wheels if w.endswith(".whl")]
    res["wheel"] = {os.path.basename(w): os.path.getsize(w) for w in wheels}
    so = getattr(_C, "_C", None)
    so_file = getattr(so, "__file__", None)
    res["so_bytes"] = os.path.getsize(so_file) if so_file else None
    return res


def print_footprint(fp):
    print(f"{'footprint':40s}{'_C':>12s}{'numpy':>12s}{'torch':>12s}   target")
    def cell(d, k, fmt):
        v = d.get(k)
        return f"{fmt.format(v):>12s}" if v is not None else f"{'-':>12s}"
    print(f"{'RSS bytes per live 1-elem tensor':40s}"
          + "".join(cell(fp["rss"], k, "{:.0f}") for k in ("_C", "numpy", "torch"))
          + "   <= 168 (incl. 8 B list slot)")
    print(f"{'import ms (-X importtime, cumulative)':40s}"
          + "".join(cell(fp["import_ms"], k, "{:.1f}") for k in ("_C", "numpy", "torch"))
          + "   <= 10 ms")
    for w, size in fp["wheel"].items():
        print(f"{'wheel ' + w[:50]:40s}{size / 1e6:11.2f}M{'':24s}   <= 2 MB")
    if fp["so_bytes"]:
        print(f"{'extension .so (unpacked)':40s}{fp['so_bytes'] / 1e6:11.2f}M")


# ----- callgrind --------------------------------------------------------------------------------

CG_DRIVER = r"""
import os, sys
sys.path[:0] = {path!r}
lib = {lib!r}
if lib == "_C":
    import _C
    ns = dict(_C=_C, a=_C.ones(1), b=_C.ones(1), t10=_C.ones(10), t48=_C.ones((4, 8)))
else:
    import numpy as np
    ns = dict(np=np, a=np.ones(1, np.float32), b=np.ones(1, np.float32),
              t10=np.ones(10, np.float32), t48=np.ones((4, 8), np.float32))
stmt = {stmt!r}
n = {n}
# Heap state: glibc malloc serves a freed block of a per-call size from its tcache or through
# the slow path (_int_malloc / _int_free / unlink_chunk, ~200 instructions more per call)
# depending on what lies around the block, which moves with anything allocated before the loop
# (a larger extension image, one more tensor). `pre` small blocks allocated first make each
# repeat of a pair sample another layout (bench.py, run_callgrind).
_pre = [bytearray(16 + 16 * i) for i in range({pre})] + [ns["b"] * 1 for _ in range({pre})]
src = "def _loop(n):\n    for _ in range(n):\n" + "".join("        " + l + "\n" for l in stmt.split("\n"))
exec(src, ns)
ns["_loop"](50)   # warm up: specialisation, first-call caches
# A cyclic collection during one of the two runs (n1, n2 calls) but not the other scans the
# whole heap (~1M instructions) and shifted rows by hundreds of instructions per call; the
# collector's amortised share is not part of a call's cost.
import gc
gc.collect()
gc.disable()
ns["_loop"](n)
"""


# One thread for every runtime in the profiled process: OpenBLAS's (numpy's) worker threads
# spin after start-up, and callgrind counts their instructions too, by how long they spin: on a
# loaded machine that made numpy's empty-loop baseline 2573 instructions per iteration and its
# per-call rows negative.
CG_ENV = dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
              MKL_NUM_THREADS="1", TENSORBIND_NUM_THREADS="1")


def _callgrind_instr(lib, stmt, n, pre=0):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        code = CG_DRIVER.format(path=sys.path[:3], lib=lib, stmt=stmt, n=n, pre=pre)
        env = CG_ENV
        p = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
             sys.executable, "-c", code],
            capture_output=True, text=True, env=env,
        )
        if p.returncode != 0:
            raise RuntimeError(p.stderr[-2000:])
        m = re.search(r"Collected : (\d+)", p.stderr)
        if m:
            return int(m.group(1))
        with open(out) as f:
            for line in f:
                if line.startswith("summary:") or line.startswith("totals:"):
                    return int(line.split()[1])
    raise RuntimeError("no callgrind total")


def run_callgrind(calls, profile_out, repeat=3):
    """Instructions per call: (I(n2) - I(n1)) / (n2 - n1) minus the same for `pass`.

    Each figure is the median of `repeat` pairs of runs, pair `k` with `k` blocks allocated
    before the loop. A one-off event in one run of a pair (a dict or free-list resize, an
    allocator arena being mapped) moves that pair's difference by hundreds of instructions per
    call, in either direction depending on which run it fell in; and glibc's malloc takes its
    ~200-instruction slow path on every call or on none depending on the heap's layout around
    the result's block (CG_DRIVER), which any change to the extension can flip. Identical runs
    would repeat the same layout; shifted ones sample several, and the median discards the
    outlier."""
    if shutil.which("valgrind") is None:
        print("valgrind not found")
        return
    n1, n2 = calls // 5, calls
    libs = ["_C"] + (["numpy"] if np is not None else [])
    cases = percall_cases()

    def per_call(lib, stmt):
        pairs = []
        for k in range(repeat):
            i1 = _callgrind_instr(lib, stmt, n1, pre=k)
            i2 = _callgrind_instr(lib, stmt, n2, pre=k)
            pairs.append((i2 - i1) / (n2 - n1))
        return statistics.median(pairs)

    base = {lib: per_call(lib, "pass") for lib in libs}
    print(f"instructions per call (callgrind, n={n2}, median of {repeat} pairs of runs, "
          "empty-loop baseline subtracted: "
          + ", ".join(f"{k} {v:.0f}" for k, v in base.items()) + ")")
    print(f"{'case':28s}" + "".join(f"{k:>10s}" for k in libs) + ("   _C/np" if len(libs) > 1 else ""))
    for name, per in cases:
        vals = {lib: per_call(lib, per[lib][0]) - base[lib] for lib in libs}
        line = f"{name:28s}" + "".join(f"{vals[k]:10.0f}" for k in libs)
        if len(libs) > 1:
            line += f"{vals['_C'] / vals['numpy']:8.2f}"
        print(line, flush=True)
    if profile_out:
        profile_per_call("_C.add(a, b)", n1, n2, profile_out)


def _annotate(path):
    """{function: exclusive Ir} from callgrind_annotate."""
    p = subprocess.run(
        ["callgrind_annotate", "--inclusive=no", "--threshold=100", path],
        capture_output=True, text=True,
    )
    out = {}
    for line in p.stdout.splitlines():
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$", line)
        if m and "PROGRAM TOTALS" not in line:
            fn = re.sub(r"^\S*?:", "", m.group(2).split(" [")[0], count=1) or m.group(2)
            lib = m.group(2).split(" [")[-1].rstrip("]") if " [" in m.group(2) else ""
            key = f"{fn}  [{os.path.basename(lib)}]"
            out[key] = out.get(key, 0) + int(m.group(1).replace(",", ""))
    return out


def profile_per_call(stmt, n1, n2, prefix):
    """Exclusive instructions per call by function: the difference of two callgrind profiles
    (n1 and n2 calls), so start-up and import costs cancel."""
    profs = []
    for n in (n1, n2):
        out = f"{prefix}.{n}"
        code = CG_DRIVER.format(path=sys.path[:3], lib="_C", stmt=stmt, n=n, pre=0)
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
             sys.executable, "-c", code],
            capture_output=True, env=CG_ENV,
        )
        profs.append(_annotate(out))
    diff = {k: (profs[1].get(k, 0) - profs[0].get(k, 0)) / (n2 - n1) for k in profs[1]}
    rows = sorted(((v, k) for k, v in diff.items() if v >= 2), reverse=True)
    print(f"\nexclusive instructions per call of {stmt} by function "
          f"(profiles {prefix}.{n1}, {prefix}.{n2}; loop overhead included):")
    for v, k in rows[:40]:
        print(f"{v:8.0f}  {k[:150]}")
    print(f"{sum(v for v, _ in rows):8.0f}  total")


# ----- main -------------------------------------------------------------------------------------


def machine():
    model = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {NCORES} cores, Python {platform.python_version()}"


def cpu_level():
    """The dispatch level of `_C`'s vectorised kernels (src/core/vecmath/dispatch.rs).

    `_C._cpu_level()` when the extension has it; otherwise the same rule applied to
    /proc/cpuinfo's flags and TENSORBIND_CPU (Note [CPU dispatch levels]), marked as derived.
    """
    if hasattr(_C, "_cpu_level"):
        return _C._cpu_level()
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((ln.split(":", 1)[1].split() for ln in f if ln.startswith("flags")), [])
    except OSError:
        flags = []
    levels = ["baseline"]
    if "avx2" in flags and "fma" in flags:
        levels.append("avx2")
        if "avx512f" in flags:
            levels.append("avx512")
    asked = os.environ.get("TENSORBIND_CPU", "").strip().lower()
    best = levels[-1]
    if asked in ("baseline", "avx2", "avx512"):
        best = asked if asked in levels else best
    return f"{best} (derived from cpuinfo and TENSORBIND_CPU)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds (< 1 minute)")
    ap.add_argument("--callgrind", action="store_true", help="instructions per call (valgrind)")
    ap.add_argument("--calls", type=int, default=10000, help="calls per callgrind run")
    ap.add_argument("--cg-repeat", type=int, default=3,
                    help="callgrind: pairs of runs per figure (the median is printed)")
    ap.add_argument("--profile", default=None,
                    help="callgrind: also profile _C.add(a, b) by function (file prefix)")
    ap.add_argument("--path", default=None, help="import _C from this directory first")
    ap.add_argument("--only", default=None,
                    help="percall,throughput,interop,footprint (comma list)")
    ap.add_argument("--child-throughput", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.child_throughput:
        th = os.environ.get("TENSORBIND_NUM_THREADS")
        label = f"{th} thread" if th else f"{NCORES} cores"
        if torch is not None:
            torch.set_num_threads(int(th) if th else NCORES)
        rows = run_throughput(args.quick, label)
        two = two_thread_matmul(args.quick) if th == "1" else None
        print(json.dumps({"rows": rows, "two": two}))
        return

    print(f"machine: {machine()}; dispatch level: {cpu_level()}")
    print(f"_C: {_C.__file__}")
    print(f"numpy: {np.__version__ if np is not None else 'not installed'}; "
          f"torch: {torch.__version__ if torch is not None else 'not installed'}")
    if args.callgrind:
        run_callgrind(args.calls, args.profile, args.cg_repeat)
        return
    only = set((args.only or "percall,throughput,interop,footprint").split(","))
    if "percall" in only:
        print("\n== per-call (1-element float32 unless said; ns/call, median of interleaved "
              "rounds; lower is better) ==")
        print_percall(run_percall(args.quick))
    if "throughput" in only:
        print("\n== throughput (higher is better; numpy single-threaded BLAS) ==")
        one = child_throughput(args.quick, 1)
        rows, tt = one["rows"], one["two"]
        if NCORES > 1:
            rows += child_throughput(args.quick, None)["rows"]
        print_throughput(rows)
        if "numpy" in rows[0]:
            mm1 = [r for r in rows if r["case"].startswith("matmul") and "1 thread" in r["case"]]
            mmn = [r for r in rows if r["case"].startswith("matmul") and "cores" in r["case"]]
            if mm1 and mmn:
                print(f"_C matmul all cores / one thread: {mmn[0]['_C'][0] / mm1[0]['_C'][0]:.2f}x")
        print("two Python threads x 512x512 matmuls, speedup over one thread "
              "(_C at 1 core thread; matmuls of >= 1M multiply-adds run without the GIL; "
              "ideal 2.0 on two idle cores): "
              + ", ".join(f"{k} {v:.2f}x" for k, v in tt.items()))
    if "interop" in only:
        print("\n== interop: memory exchange with numpy and torch (ns/call; lower is better) ==")
        print_interop(run_interop(args.quick))
    if "footprint" in only:
        print("\n== footprint ==")
        print_footprint(run_footprint(args.quick))


if __name__ == "__main__":
    gc.collect()
    main()
