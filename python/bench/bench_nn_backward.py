"""tensorbind nn backward benchmark: forward + backward of F.conv2d, F.layer_norm,
F.cross_entropy (and a few more) against torch in one process (issue 15 part 2).

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

CASES = [
    # (name, setup(L) -> dict, statement)
    ("conv2d 32x3x32x32, 16 3x3, pad 1: fwd+bwd",
     lambda L: dict(x=L.randn(32, 3, 32, 32, requires_grad=True), w=L.randn(16, 3, 3, 3, requires_grad=True),
                    b=L.randn(16, requires_grad=True)),
     "F.conv2d(x, w, b, padding=1).sum().backward()"),
    ("layer_norm 1024x512: fwd+bwd",
     lambda L: dict(x=L.randn(1024, 512, requires_grad=True), w=L.randn(512, requires_grad=True),
                    b=L.randn(512, requires_grad=True)),
     "F.layer_norm(x, [512], w, b).sum().backward()"),
    ("cross_entropy 1024x512: fwd+bwd",
     lambda L: dict(x=L.randn(1024, 512, requires_grad=True), t=L.randint(0, 512, (1024,))),
     "F.cross_entropy(x, t).backward()"),
    ("gelu 1024x512: fwd+bwd",
     lambda L: dict(x=L.randn(1024, 512, requires_grad=True)),
     "F.gelu(x).sum().backward()"),
    ("max_pool2d 64x16x32x32 k2: fwd+bwd",
     lambda L: dict(x=L.randn(64, 16, 32, 32, requires_grad=True)),
     "F.max_pool2d(x, 2).sum().backward()"),
    ("batch_norm 64x16x32x32 train: fwd+bwd",
     lambda L: dict(x=L.randn(64, 16, 32, 32, requires_grad=True), w=L.ones(16, requires_grad=True),
                    b=L.zeros(16, requires_grad=True)),
     "F.batch_norm(x, None, None, w, b, training=True).sum().backward()"),
]


def timer(stmt, ns):
    g = dict(ns)
    g["_pc"] = time.thread_time
    exec(f"def _f(_n):\n    _t = _pc()\n    for _ in range(_n):\n        {stmt}\n    return _pc() - _t\n", g)
    return g["_f"]


def main():
    rounds = 3 if QUICK else 9
    print(f"{'case':45s} " + " ".join(f"{k:>10s}" for k in LIBS) + "   ratio")
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
        print(f"{name:45s} " + " ".join(f"{meds[k]:8.2f}ms" for k in LIBS) + f"   {ratio}")


if __name__ == "__main__":
    main()
