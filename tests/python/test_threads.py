"""Large ops run without the GIL (src/bindings/gil.rs, Note [Core calls without the GIL]): Python
threads calling them concurrently get the same results as one thread, no reference or tensor
leaks, and a tensor whose handle another thread replaces meanwhile (``out=`` resizing) stays
valid for the op reading it. No timing is asserted here (python/bench/bench.py measures the
two-thread speedup)."""

import sys
import threading
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
    # One thread resizes `z` through `out=` (which swaps the tensor inside the Python object)
    # while another sums `z` without the GIL: the sum works on its own handle, so it sees the
    # old or the new tensor, never freed memory.
    z = _C.ones(BIG)
    small, large = _C.ones(BIG) * 2, _C.ones(BIG + 1) * 3
    expected = {float(BIG), 2.0 * BIG, 3.0 * (BIG + 1)}
    stop = threading.Event()

    def resizer():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            for _ in range(30):
                _C.add(large, 0, out=z)
                _C.add(small, 0, out=z)
        stop.set()

    def reader():
        seen = []
        while not stop.is_set() or not seen:
            seen.append(z.sum().item())
        return seen

    _, seen = run_threads([resizer, reader])
    assert set(seen) <= expected


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
