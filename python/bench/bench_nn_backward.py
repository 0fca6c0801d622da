"""tensorbind nn benchmark: forward, and forward + backward, of the main layers (linear, conv2d,
max_pool2d, batch_norm, layer_norm, cross_entropy, scaled_dot_product_attention, gelu) against
torch in one process (issue 15).

    python python/bench/bench_nn_backward.py [--quick] [--path DIR]

Single thread; per-thread CPU time (`time.thread_time`), the libraries interleaved round after
round; the median of the rounds. torch is optional; never part of `make test`.
"""

import gc
import os
import statistics
import sys
import time

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"
for _i, _a in enumerate(sys.argv):
    if _a == "--path" and _i + 1 < len(sys.argv):
        sys.path.insert(0, os.path.abspath(sys.argv[_i + 1]))

import _C  # noqa: E402
import _C.nn.functional as _CF  # noqa: E402

try:
    import torch
    import torch.nn.functional as _TF

    torch.set_num_threads(1)
except Exception:  # pragma: no cover - optional
    torch = None
if hasattr(_C, "set_num_threads"):
    _C.set_num_threads(1)

QUICK = "--quick" in sys.argv
LIBS = {"_C": (_C, _CF)}
if torch is not None:
    LIBS["torch"] = (torch, _TF)

# (name, setup(L, rg) -> dict (rg: whether the leaves require grad), forward expression, the
# statement run after it for the backward: every layer is timed forward alone (leaves without
# grad) and forward + backward.
LAYERS = [
    ("linear 1024x512 -> 512 (bias)",
     lambda L, rg: dict(x=L.randn(1024, 512, requires_grad=rg), w=L.randn(512, 512, requires_grad=rg),
                        b=L.randn(512, requires_grad=rg)),
     "F.linear(x, w, b)", ".sum().backward()"),
    ("conv2d 32x3x32x32, 16 3x3, pad 1",
     lambda L, rg: dict(x=L.randn(32, 3, 32, 32, requires_grad=rg), w=L.randn(16, 3, 3, 3, requires_grad=rg),
                        b=L.randn(16, requires_grad=rg)),
     "F.conv2d(x, w, b, padding=1)", ".sum().backward()"),
    ("max_pool2d 64x16x32x32 k2",
     lambda L, rg: dict(x=L.randn(64, 16, 32, 32, requires_grad=rg)),
     "F.max_pool2d(x, 2)", ".sum().backward()"),
    ("batch_norm 64x16x32x32 train",
     lambda L, rg: dict(x=L.randn(64, 16, 32, 32, requires_grad=rg), w=L.ones(16, requires_grad=rg),
                        b=L.zeros(16, requires_grad=rg)),
     "F.batch_norm(x, None, None, w, b, training=True)", ".sum().backward()"),
    ("layer_norm 1024x512",
     lambda L, rg: dict(x=L.randn(1024, 512, requires_grad=rg), w=L.randn(512, requires_grad=rg),
                        b=L.randn(512, requires_grad=rg)),
     "F.layer_norm(x, [512], w, b)", ".sum().backward()"),
    ("cross_entropy 1024x512",
     lambda L, rg: dict(x=L.randn(1024, 512, requires_grad=rg), t=L.randint(0, 512, (1024,))),
     "F.cross_entropy(x, t)", ".backward()"),
    ("sdpa 8x8x128x64",
     lambda L, rg: dict(q=L.randn(8, 8, 128, 64, requires_grad=rg), k=L.randn(8, 8, 128, 64, requires_grad=rg),
                        v=L.randn(8, 8, 128, 64, requires_grad=rg)),
     "F.scaled_dot_product_attention(q, k, v)", ".sum().backward()"),
    ("gelu 1024x512",
     lambda L, rg: dict(x=L.randn(1024, 512, requires_grad=rg)),
     "F.gelu(x)", ".sum().backward()"),
]
CASES = []
for _name, _setup, _fwd, _bwd in LAYERS:
    CASES.append((f"{_name}: fwd", (lambda s: lambda L: s(L, False))(_setup), _fwd))
    CASES.append((f"{_name}: fwd+bwd", (lambda s: lambda L: s(L, True))(_setup), _fwd + _bwd))


def timer(stmt, ns):
    g = dict(ns)
    g["_pc"] = time.thread_time
    exec(f"def _f(_n):\n    _t = _pc()\n    for _ in range(_n):\n        {stmt}\n    return _pc() - _t\n", g)
    return g["_f"]


def main():
    rounds = 3 if QUICK else 9
    print(f"{'case':50s} " + " ".join(f"{k:>10s}" for k in LIBS) + "   ratio")
    for name, setup, stmt in CASES:
        fns = {}
        for k, (L, F) in LIBS.items():
            ns = setup(L)
            ns.update(F=F, L=L)
            fns[k] = timer(stmt, ns)
            fns[k](1)
        res = {k: [] for k in fns}
        gc.disable()
        try:
            for r in range(rounds):
                keys = list(fns)
                for k in keys[r % len(keys):] + keys[: r % len(keys)]:
                    res[k].append(fns[k](1) * 1e3)
        finally:
            gc.enable()
        meds = {k: statistics.median(v) for k, v in res.items()}
        ratio = f"{meds['_C'] / meds['torch']:.2f}x" if "torch" in meds else ""
        print(f"{name:50s} " + " ".join(f"{meds[k]:8.2f}ms" for k in LIBS) + f"   {ratio}")


if __name__ == "__main__":
    main()
