"""tensorbind autograd benchmark: `_C` against torch in one process (issue 12's overhead table).

    python python/bench/bench_autograd.py            # full run (a few minutes)
    python python/bench/bench_autograd.py --quick    # < 1 minute
    python python/bench/bench_autograd.py --path DIR # import _C from DIR first (a staged build)
    python python/bench/bench_autograd.py --callgrind [--calls N] [--cg-repeat R] [--only a,b]
                                                     # instructions per call (valgrind), _C only

Ported from the research scripts (../shared/research/autograd-scripts: fwd2.py, bwd.py, step.py,
mem.py). Method: every case is the same Python statement run against each library, the libraries
interleaved round after round in one process; times are per-thread CPU time
(`time.thread_time`), so time spent descheduled on a loaded machine is not counted.

- per call: the median ns of one statement (recording cost = with `requires_grad` minus without);
- chains: forward and backward of chains of N = 10 and N = 1000 one-element ops; the per-op and
  per-node figures are the slopes between the two lengths (fixed costs cancel);
- `backward()` fixed cost on `(x * 2).sum()`;
- the Iris-sized training step (150x4 -> 16 -> 3, cross-entropy, SGD under no_grad), written
  with plain ops (matmul, relu, log_softmax, gather) so that both libraries run the same code;
- heap bytes per recorded node (glibc `mallinfo2`; the PyObjects live in pymalloc arenas and are
  not counted), chains of 100,000 one-element ops kept alive by their output.

Targets (issue 12): recording <= 100 ns per op; backward <= 800 ns per node of a chain;
`backward()` fixed cost <= 3 us; `with no_grad(): pass` <= 100 ns; Iris step <= 50 us;
<= 128 B of heap per node beyond the tensors it saves. torch is optional (then only `_C` runs);
never part of `make test`.
"""

import ctypes
import gc
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"


def _argv_path():
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
    import torch

    torch.set_num_threads(1)
except Exception:  # pragma: no cover - optional
    torch = None

if hasattr(_C, "set_num_threads"):
    _C.set_num_threads(1)

QUICK = "--quick" in sys.argv
LIBS = {"_C": _C}
if torch is not None:
    LIBS["torch"] = torch


# ----- harness ----------------------------------------------------------------------------------


def compile_loop(stmt, ns, ctx=None):
    """A function f(n) running `stmt` n times (inside `with ctx:` once when given); returns the
    per-thread CPU seconds it took."""
    body = f"for _ in range(_n):\n            {stmt}"
    if ctx:
        src = f"def _f(_n):\n    with {ctx}:\n        _t = _pc()\n        {body}\n        return _pc() - _t\n"
    else:
        src = f"def _f(_n):\n    if 1:\n        _t = _pc()\n        {body}\n        return _pc() - _t\n"
    g = dict(ns)
    g["_pc"] = time.thread_time
    exec(src, g)
    return g["_f"]


def interleaved(fns, rounds, target=0.01):
    """{key: f(n)} -> {key: [ns per call per round]} with the order rotated every round."""
    counts = {}
    for k, f in fns.items():
        f(10)  # warm up; fails early on a broken statement
        n = 1
        while f(n) < target / 4 and n < 1 << 22:
            n *= 2
        counts[k] = n
    res = {k: [] for k in fns}
    keys = list(fns)
    gc.disable()
    try:
        for r in range(rounds):
            for k in keys[r % len(keys):] + keys[: r % len(keys)]:
                res[k].append(fns[k](counts[k]) / counts[k] * 1e9)
    finally:
        gc.enable()
    return res


def med(xs):
    return statistics.median(xs)


# ----- per call ---------------------------------------------------------------------------------


def namespace(lib):
    ns = {"L": lib}
    ns.update(
        a0=lib.ones(1),
        b0=lib.ones(1),
        a2=lib.ones(1, requires_grad=True),
        b2=lib.ones(1, requires_grad=True),
        A0=lib.ones(64, 64),
        B0=lib.ones(64, 64),
        A2=lib.ones(64, 64, requires_grad=True),
        B2=lib.ones(64, 64, requires_grad=True),
    )
    ns["y"] = lib.mul(ns["a2"], ns["b2"])
    return ns


PERCALL = [
    # (case, statement, context manager or None, target in ns or None)
    ("add 1-elt, no grad", "L.add(a0, b0)", None, None),
    ("add 1-elt, requires_grad", "L.add(a2, b2)", None, None),
    ("add 1-elt req, inside no_grad", "L.add(a2, b2)", "L.no_grad()", None),
    ("mul 1-elt, no grad", "L.mul(a0, b0)", None, None),
    ("mul 1-elt, req (saves 2)", "L.mul(a2, b2)", None, None),
    ("sin 1-elt, no grad", "L.sin(a0)", None, None),
    ("sin 1-elt, req (saves self)", "L.sin(a2)", None, None),
    ("exp 1-elt, no grad", "L.exp(a0)", None, None),
    ("exp 1-elt, req (saves result)", "L.exp(a2)", None, None),
    ("a*2.0 1-elt, no grad", "a0 * 2.0", None, None),
    ("a*2.0 1-elt, req", "a2 * 2.0", None, None),
    ("matmul 64x64, no grad", "L.matmul(A0, B0)", None, None),
    ("matmul 64x64, req", "L.matmul(A2, B2)", None, None),
    ("with no_grad(): pass", "with L.no_grad(): pass", None, 100),
    ("with enable_grad(): pass", "with L.enable_grad(): pass", None, 100),
    ("with inference_mode(): pass", "with L.inference_mode(): pass", None, None),
    ("y.grad_fn", "y.grad_fn", None, None),
    ("y.requires_grad", "y.requires_grad", None, None),
]

# recording cost rows: (case, with-grad row, no-grad row)
RECORDING = [
    ("add", "add 1-elt, requires_grad", "add 1-elt, no grad"),
    ("mul (saves 2)", "mul 1-elt, req (saves 2)", "mul 1-elt, no grad"),
    ("sin (saves self)", "sin 1-elt, req (saves self)", "sin 1-elt, no grad"),
    ("exp (saves result)", "exp 1-elt, req (saves result)", "exp 1-elt, no grad"),
    ("a * 2.0 (saves a number)", "a*2.0 1-elt, req", "a*2.0 1-elt, no grad"),
    ("matmul 64x64", "matmul 64x64, req", "matmul 64x64, no grad"),
]


def run_percall():
    rounds = 9 if QUICK else 25
    out = {}
    nss = {k: namespace(lib) for k, lib in LIBS.items()}
    for case, stmt, ctx, _ in PERCALL:
        fns = {}
        for k, ns in nss.items():
            try:
                fns[k] = compile_loop(stmt, ns, ctx)
                fns[k](1)
            except Exception as e:  # a missing feature in one library: report, go on
                print(f"  {k}: {case}: {type(e).__name__}: {e}", file=sys.stderr)
                fns.pop(k, None)
        res = interleaved(fns, rounds)
        out[case] = {k: med(v) for k, v in res.items()}
        print(".", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return out


# ----- chains -----------------------------------------------------------------------------------

CHAIN_OPS = {
    "y + y (saves nothing)": lambda y: y + y,
    "y.exp() (saves result)": lambda y: y.exp(),
    "y.sin() (saves self)": lambda y: y.sin(),
    "y * y (saves 2)": lambda y: y * y,
    "y * 1.0001 (saves a number)": lambda y: y * 1.0001,
}
NS = (10, 1000)


def run_chains():
    rounds = 7 if QUICK else 21
    res = {}
    xs = {k: lib.ones(1, requires_grad=True) for k, lib in LIBS.items()}
    gc.disable()
    try:
        for _ in range(rounds):
            for name, op in CHAIN_OPS.items():
                for k, lib in LIBS.items():
                    x = xs[k]
                    for n in NS:
                        t0 = time.thread_time()
                        with lib.no_grad():
                            y = x
                            for _ in range(n):
                                y = op(y)
                        t1 = time.thread_time()
                        y = x
                        for _ in range(n):
                            y = op(y)
                        t2 = time.thread_time()
                        y.backward()
                        t3 = time.thread_time()
                        x.grad = None
                        del y
                        for kind, dt in (("nograd", t1 - t0), ("grad", t2 - t1), ("bwd", t3 - t2)):
                            res.setdefault((name, k, n, kind), []).append(dt)
    finally:
        gc.enable()
    out = {}
    for name in CHAIN_OPS:
        for k in LIBS:

            def slope(kind):
                a = min(res[(name, k, NS[0], kind)])
                b = min(res[(name, k, NS[1], kind)])
                return (b - a) / (NS[1] - NS[0]) * 1e9

            out[(name, k)] = (slope("grad") - slope("nograd"), slope("bwd"))
    return out


def run_fixed():
    n = 300 if QUICK else 2000
    out = {}
    for k, lib in LIBS.items():
        x = lib.ones(1, requires_grad=True)
        for fn_name, call in (
            ("backward()", lambda y, x: y.backward()),
            ("autograd.grad()", lambda y, x, lib=lib: lib.autograd.grad(y, x)),
        ):
            s = []
            for _ in range(n):
                y = (x * 2).sum()
                t = time.thread_time()
                call(y, x)
                s.append(time.thread_time() - t)
            x.grad = None
            s.sort()
            out[(fn_name, k)] = (s[len(s) // 10] * 1e9, med(s) * 1e9)
    return out


# ----- the Iris-sized step ----------------------------------------------------------------------


def iris_namespace(lib):
    g = lib.Generator().manual_seed(0) if hasattr(lib, "Generator") else None
    X = lib.randn(150, 4, generator=g)
    Y = lib.randint(0, 3, (150, 1), generator=g)
    W1 = (lib.randn(16, 4, generator=g) * 0.5).requires_grad_()
    b1 = lib.zeros(16, requires_grad=True)
    W2 = (lib.randn(3, 16, generator=g) * 0.5).requires_grad_()
    b2 = lib.zeros(3, requires_grad=True)
    P = [W1, b1, W2, b2]

    def fwd():
        h = (X @ W1.t() + b1).relu()
        z = h @ W2.t() + b2
        return -(z.log_softmax(1).gather(1, Y)).mean()

    def step():
        loss = fwd()
        loss.backward()
        with lib.no_grad():
            for p in P:
                p -= 0.1 * p.grad
                p.grad = None

    def fwd_only():
        with lib.no_grad():
            fwd()

    return {"step": step, "fwd_only": fwd_only, "fwd": fwd}


def run_iris():
    rounds = 9 if QUICK else 25
    out = {}
    nss = {k: iris_namespace(lib) for k, lib in LIBS.items()}
    for case, stmt in (
        ("forward only (no_grad)", "fwd_only()"),
        ("forward recording the graph", "fwd()"),
        ("full step: fwd + backward + SGD", "step()"),
    ):
        fns = {k: compile_loop(stmt, ns) for k, ns in nss.items()}
        res = interleaved(fns, rounds)
        out[case] = {k: med(v) for k, v in res.items()}
    return out


# ----- memory per node --------------------------------------------------------------------------


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (n, ctypes.c_size_t)
        for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
                  "uordblks", "fordblks", "keepcost")
    ]


def run_memory():
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallinfo2.restype = _MallInfo2
    except (OSError, AttributeError):
        return None

    def heap():
        m = libc.mallinfo2()
        return m.uordblks + m.hblkhd

    n = 20_000 if QUICK else 100_000
    out = {}
    for name, op in CHAIN_OPS.items():
        for k, lib in LIBS.items():
            x = lib.ones(1, requires_grad=True)
            y = x
            for _ in range(1000):
                y = op(y)
            del y
            gc.collect()
            h0 = heap()
            y = x
            for _ in range(n):
                y = op(y)
            h1 = heap()
            del y
            gc.collect()
            # the same ops without a graph, every intermediate kept alive by a list
            h2 = heap()
            keep = []
            t = x.detach()
            with lib.no_grad():
                for _ in range(n):
                    t = op(t)
                    keep.append(t)
            h3 = heap()
            del keep, t
            gc.collect()
            out[(name, k)] = ((h1 - h0) / n, (h3 - h2) / n)
    return out


# ----- report -----------------------------------------------------------------------------------


# ----- callgrind ----------------------------------------------------------------------------------
# Instruction counts per call (valgrind's callgrind), `_C` only: the figures to compare builds
# by on a shared machine, where wall times are noise. Per case: (I(n2) - I(n1)) / (n2 - n1)
# minus the same for `pass` (start-up and import cancel), the median of --cg-repeat pairs.

CG_SETUP = r"""
import sys, gc
sys.path[:0] = {path!r}
import _C as L
a0, b0, a2, b2 = L.ones(1), L.ones(1), L.ones(1, requires_grad=True), L.ones(1, requires_grad=True)
a, b, t48 = L.ones(1), L.ones(1), L.ones((4, 8))
y = L.mul(a2, b2)
_g = L.Generator().manual_seed(0)
X = L.randn(150, 4, generator=_g)
Y = L.randint(0, 3, (150, 1), generator=_g)
W1 = (L.randn(16, 4, generator=_g) * 0.5).requires_grad_()
b1 = L.zeros(16, requires_grad=True)
W2 = (L.randn(3, 16, generator=_g) * 0.5).requires_grad_()
bb2 = L.zeros(3, requires_grad=True)
P = [W1, b1, W2, bb2]
def fwd():
    h = (X @ W1.t() + b1).relu()
    z = h @ W2.t() + bb2
    return -(z.log_softmax(1).gather(1, Y)).mean()
def step():
    loss = fwd()
    loss.backward()
    with L.no_grad():
        for p in P:
            p -= 0.1 * p.grad
            p.grad = None
def chain_add(n=100):
    y = a2
    for _ in range(n):
        y = y + y
    return y
def chain_mul(n=100):
    y = a2
    for _ in range(n):
        y = y * y
    return y
def chain_exp(n=100):
    y = a2
    for _ in range(n):
        y = y.exp()
    return y
stmt = {stmt!r}
src = "def _loop(n):\n    for _ in range(n):\n" + "".join("        " + l + "\n" for l in stmt.split("\n"))
exec(src)
_loop(50)
gc.collect()
gc.disable()
_loop({n})
"""

# (case, statement, calls per run relative to --calls)
CG_CASES = [
    ("_C.add(a, b)", "L.add(a, b)", 1),
    ("a + b", "a + b", 1),
    ("_C.zeros((2, 3))", "L.zeros((2, 3))", 1),
    ("t.shape", "a.shape", 1),
    ("_C.sum(t, dim=0) 4x8", "L.sum(t48, dim=0)", 1),
    ("add 1-elt, requires_grad", "L.add(a2, b2)", 1),
    ("mul 1-elt, no grad", "L.mul(a0, b0)", 1),
    ("mul 1-elt, req (saves 2)", "L.mul(a2, b2)", 1),
    ("sin 1-elt, no grad", "L.sin(a0)", 1),
    ("sin 1-elt, req (saves self)", "L.sin(a2)", 1),
    ("exp 1-elt, no grad", "L.exp(a0)", 1),
    ("exp 1-elt, req (saves result)", "L.exp(a2)", 1),
    ("with no_grad(): pass", "with L.no_grad(): pass", 1),
    ("y.grad_fn", "y.grad_fn", 1),
    ("chain of 100 y + y (fwd+drop)", "chain_add()", 0.02),
    ("chain of 100 y * y (fwd+drop)", "chain_mul()", 0.02),
    ("chain of 100 exp (fwd+drop)", "chain_exp()", 0.02),
    ("chain of 100 y + y, backward", "chain_add().backward()", 0.02),
    ("Iris step", "step()", 0.02),
    ("Iris forward, recording", "fwd()", 0.02),
]


def _cg_instr(stmt, n):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        code = CG_SETUP.format(path=sys.path[:3], stmt=stmt, n=n)
        env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", TENSORBIND_NUM_THREADS="1")
        p = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c", code],
            capture_output=True, text=True, env=env,
        )
        if p.returncode != 0:
            raise RuntimeError(p.stderr[-2000:])
        m = re.search(r"Collected : (\d+)", p.stderr)
        if m:
            return int(m.group(1))
    raise RuntimeError("no callgrind total")


def _opt(name, default):
    for i, a in enumerate(sys.argv):
        if a == name and i + 1 < len(sys.argv):
            return sys.argv[i + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return default


def run_callgrind():
    if shutil.which("valgrind") is None:
        print("valgrind not found")
        return
    calls = int(_opt("--calls", "5000"))
    repeat = int(_opt("--cg-repeat", "3"))
    only = _opt("--only", None)

    def per_call(stmt, scale):
        n2 = max(10, int(calls * scale))
        n1 = n2 // 5
        pairs = [(_cg_instr(stmt, n2) - _cg_instr(stmt, n1)) / (n2 - n1) for _ in range(repeat)]
        return statistics.median(pairs)

    base = per_call("pass", 1)
    print(f"# instructions per call (callgrind, --calls {calls}, median of {repeat} pairs, "
          f"empty loop {base:.0f} subtracted)")
    for case, stmt, scale in CG_CASES:
        if only and not any(o in case for o in only.split(",")):
            continue
        print(f"{case:36s} {per_call(stmt, scale) - base:10.0f}", flush=True)


def machine():
    model = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            model = next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}"


def cell(d, k, fmt="{:9.0f}"):
    return fmt.format(d[k]) if k in d else f"{'-':>9s}"


def main():
    libs = list(LIBS)
    print(f"# autograd overhead, {machine()}")
    print(f"# torch {torch.__version__ if torch else 'not installed'}; one thread; CPU time; "
          f"{'--quick' if QUICK else 'full'} run")
    pc = run_percall()
    print("\n## per call (ns, median)")
    print(f"{'case':36s}" + "".join(f"{k:>10s}" for k in libs) + ("   _C/torch" if torch else "") + "  target")
    for case, _, _, tgt in PERCALL:
        r = pc[case]
        line = f"{case:36s}" + "".join(f" {cell(r, k)}" for k in libs)
        if torch and "_C" in r and "torch" in r:
            line += f"   {r['_C'] / r['torch']:8.2f}"
        if tgt is not None and "_C" in r:
            line += f"  <= {tgt} ns: {'yes' if r['_C'] <= tgt else 'NO'}"
        print(line)
    print("\n## recording cost per op (ns: with requires_grad minus without; target <= 100 for _C)")
    for name, w, wo in RECORDING:
        line = f"{name:36s}"
        for k in libs:
            if k in pc[w] and k in pc[wo]:
                line += f" {pc[w][k] - pc[wo][k]:9.0f}"
            else:
                line += f" {'-':>9s}"
        print(line)
    ch = run_chains()
    print("\n## chains of 1-element ops (ns; slopes N=10..1000, min over rounds)")
    print(f"{'op':32s}" + "".join(f"{k + ' rec/op':>14s}{k + ' bwd/node':>15s}" for k in libs)
          + "   target bwd <= 800")
    for name in CHAIN_OPS:
        line = f"{name:32s}"
        for k in libs:
            rec, bwd = ch[(name, k)]
            line += f"{rec:14.0f}{bwd:15.0f}"
        print(line)
    fx = run_fixed()
    print("\n## fixed cost on (x * 2).sum() (ns: p10 / median; target backward() <= 3000 for _C)")
    for fn_name in ("backward()", "autograd.grad()"):
        line = f"{fn_name:36s}"
        for k in libs:
            p10, m = fx[(fn_name, k)]
            line += f"  {k}: {p10:7.0f} / {m:7.0f}"
        print(line)
    ir = run_iris()
    print("\n## Iris-sized step, 150x4 -> 16 -> 3 (us, median; target full step <= 50 us for _C)")
    for case, r in ir.items():
        line = f"{case:36s}" + "".join(f" {k}: {r[k] / 1000:7.1f}" for k in libs if k in r)
        if torch and "torch" in r:
            line += f"   _C/torch {r['_C'] / r['torch']:5.2f}"
        print(line)
    mem = run_memory()
    if mem:
        print("\n## heap bytes per node (chain kept alive by its output; beside it, the same ops "
              "with each result kept by a list)")
        for name in CHAIN_OPS:
            line = f"{name:32s}"
            for k in libs:
                g, ng = mem[(name, k)]
                line += f"  {k}: {g:6.0f} B/node ({g - ng:+5.0f} vs no graph)"
            print(line)


if __name__ == "__main__":
    if "--callgrind" in sys.argv:
        run_callgrind()
    else:
        main()
