"""Large ops run without the GIL (src/bindings/gil.rs, Note [Core calls without the GIL]): Python
threads calling them concurrently get the same results as one thread, no reference or tensor
leaks, and a tensor whose handle another thread replaces meanwhile (``out=`` resizing) stays
valid for the op reading it; a few seconds of mixed ops from several threads on shared and
private tensors give the right results. No timing is asserted here (python/bench/bench.py
measures the two-thread speedup). `warnings.catch_warnings` is used only on the main thread
(it changes process-wide state)."""

import os
import random
import sys
import threading
import time
import warnings

import _C

N = 512  # 512x512 matmuls: 134M multiply-adds, far above the 1M threshold
BIG = 1 << 17  # elementwise: above the 64K-element threshold


def matrix(seed):
    # distinct, exactly representable values; the products are exact in float32 too
    return ((_C.arange(N * N) * seed) % 7 - 3).to(_C.float32).view(N, N)


def run_threads(fns):
    out = [None] * len(fns)
    errors = []

    def runner(i, f):
        try:
            out[i] = f()
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    ths = [threading.Thread(target=runner, args=(i, f)) for i, f in enumerate(fns)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    assert errors == []
    return out


def test_two_threads_matmul_same_results_as_one(live_tensors):
    a, b, c = matrix(1), matrix(2), matrix(5)
    want_ab = _C.matmul(a, b)
    want_ca = c @ a
    want_mm = _C.mm(b, c)

    def work_ab():
        return [_C.matmul(a, b) for _ in range(3)]

    def work_other():
        return [c @ a for _ in range(2)] + [b.mm(c)]

    got_ab, got_other = run_threads([work_ab, work_other])
    for r in got_ab:
        assert _C.equal(r, want_ab)
    assert _C.equal(got_other[0], want_ca) and _C.equal(got_other[1], want_ca)
    assert _C.equal(got_other[2], want_mm)
    # and the products are right (exact small integers): a few entries against Python sums
    al, bl = a.tolist(), b.tolist()
    for i, j in [(0, 0), (17, 300), (N - 1, N - 1)]:
        assert want_ab[i, j].item() == sum(al[i][k] * bl[k][j] for k in range(N))


def test_threads_elementwise_reductions_and_in_place(live_tensors):
    x = _C.arange(BIG, dtype=_C.float32)
    y = _C.ones(BIG)
    want_add = (x + y).tolist()
    want_sum = _C.sum(x).item()

    def functional():
        return [_C.add(x, y, alpha=1).tolist(), (x + y).tolist(), x.sum().item()]

    def in_place():
        z = _C.zeros(BIG)
        for _ in range(4):
            z += y  # the in-place slot
            z.add_(y)  # the in-place method
        return z.tolist()

    r1, r2, r3 = run_threads([functional, functional, in_place])
    for r in (r1, r2):
        assert r[0] == want_add and r[1] == want_add and r[2] == want_sum
    assert r3 == [8.0] * BIG


def test_arguments_keep_their_refcounts(live_tensors):
    a, b = matrix(1), matrix(3)
    ra, rb = sys.getrefcount(a), sys.getrefcount(b)
    run_threads([lambda: _C.matmul(a, b), lambda: _C.add(a, b), lambda: a.sum()])
    assert (sys.getrefcount(a), sys.getrefcount(b)) == (ra, rb)


def test_input_replaced_by_another_thread_stays_valid(live_tensors):
    # A thread sums `z` without the GIL while this thread resizes `z` through `out=` (which swaps
    # the tensor inside the Python object and frees the old one's last Python-side handle): the
    # sum works on its own handle, so it reads the old tensor, never freed memory. The test hook
    # stops the reader right after it released the GIL, its handle taken, so the replacement
    # happens inside that window every time (src/bindings/testing.rs, `pause_point`).
    z = _C.ones(BIG)
    large = _C.ones(BIG + 1) * 3
    seen = []
    _C._testing_pause_next_unlocked()
    reader = threading.Thread(target=lambda: seen.append(z.sum().item()))
    reader.start()
    deadline = time.monotonic() + 30
    while not _C._testing_paused():
        assert reader.is_alive() and time.monotonic() < deadline, "the reader never paused"
        time.sleep(0.001)
    try:
        # This thread holds the GIL while the reader is inside its released call.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # out= resize warning
            _C.add(large, 0, out=z)
        assert z.shape == (BIG + 1,)
        junk = [_C.full((BIG,), 7.0) for _ in range(4)]  # would reuse freed memory
        del junk
    finally:
        _C._testing_resume()
        reader.join()
    assert seen == [float(BIG)]  # the old tensor's sum
    assert z.sum().item() == 3.0 * (BIG + 1)


def test_small_ops_and_errors_unchanged_in_threads():
    # below the thresholds the GIL is kept; errors raised by a core call made without the GIL
    # become the usual Python exceptions
    a = matrix(1)

    def bad():
        try:
            _C.matmul(a, _C.ones(N + 1, 2))
        except RuntimeError as e:
            return str(e)
        return None

    msgs = run_threads([bad, bad])
    assert all(m is not None and "cannot be multiplied" in m for m in msgs), msgs
    assert _C.add(_C.ones(3), 1).tolist() == [2.0, 2.0, 2.0]


# Seconds of the stress test (shorter under the refleak run, which repeats every test 8 times).
STRESS_SECONDS = float(
    os.environ.get("TENSORBIND_STRESS_SECONDS", "0.5" if os.environ.get("TENSORBIND_REFLEAK") else "2")
)


def test_stress_mixed_ops_from_several_threads(live_tensors):
    # Four threads for STRESS_SECONDS: each reads shared tensors (never written) and writes its
    # own, with ops above and below the GIL-release thresholds, checking every result against
    # values computed up front. Afterwards the shared tensors are unchanged.
    n = 256  # 256x256 matmul: 16M multiply-adds, released
    a, b = matrix(1)[:n, :n].contiguous(), matrix(2)[:n, :n].contiguous()
    x = _C.arange(BIG, dtype=_C.float32) % 11
    y = _C.ones(BIG) * 2
    shared = [a, b, x, y]
    snapshot = [t.clone() for t in shared]
    want_ab = (a @ b).tolist()
    want_xy_sum = (x * y).sum().item()
    want_x_sum = x.sum().item()
    want_rows = x.view(-1, 1024).sum(1).tolist()
    small = _C.arange(10.0)
    deadline = time.monotonic() + STRESS_SECONDS
    counts = [0] * 4
    errors = []

    def worker(k):
        rng = random.Random(k)
        mine = _C.zeros(BIG)  # private: written in place
        expected_mine = 0.0
        try:
            while time.monotonic() < deadline:
                op = rng.randrange(8)
                if op == 0:
                    assert (a @ b).tolist() == want_ab
                elif op == 1:
                    assert (x * y).sum().item() == want_xy_sum
                elif op == 2:
                    assert x.view(-1, 1024).sum(1).tolist() == want_rows
                elif op == 3:
                    mine.add_(y)  # released in-place op on a private tensor
                    expected_mine += 2.0
                    assert mine[rng.randrange(BIG)].item() == expected_mine
                elif op == 4:
                    mine += 1  # the in-place slot
                    expected_mine += 1.0
                    assert mine.sum().item() == expected_mine * BIG
                elif op == 5:
                    # small ops keep the GIL: views, indexing, cat, reshape
                    v = small[2:8].reshape(2, 3).transpose(0, 1)
                    assert v.tolist() == [[2.0, 5.0], [3.0, 6.0], [4.0, 7.0]]
                    assert _C.cat([small[:2], small[-2:]]).tolist() == [0.0, 1.0, 8.0, 9.0]
                elif op == 6:
                    c = x.clone()
                    c.mul_(0)
                    assert c.sum().item() == 0.0 and x.sum().item() == want_x_sum
                else:
                    out = _C.empty(BIG)
                    _C.add(x, y, out=out)
                    assert out[7].item() == 7.0 + 2.0
                counts[k] += 1
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    ths = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    assert errors == []
    assert all(c > 0 for c in counts), counts
    for t, s in zip(shared, snapshot):
        assert _C.equal(t, s)
