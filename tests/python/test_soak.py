"""Soak (issue 9): millions of small tensors and views created and dropped through the main paths —
factories, arithmetic, in-place ops, views, basic and advanced indexing, `grad`, subclass instances,
weak references — must leave neither Rust tensors (`_C._live_tensors()`) nor resident memory
(`/proc/self/statm`) behind.

The loop is warmed up first (free lists, caches and allocator arenas reach their steady size),
then the resident set and live-tensor count are read, the loop runs, and both are read again after
`gc.collect()`. The resident set may move by allocator noise only: `RSS_BOUND` (4 MiB; measured
growth on the release build is 0 KiB — a leak of one 64-byte block per tensor would be 64 MB). The figures go to the run's "measurements" block.

4,000,000 tensors (160,000 rounds of `one_round`: about 2 s on the release build, 3 s under the
debug interpreter; each `_C` call on a small tensor takes well under a microsecond).
`SOAK_TENSORS=N` in the environment sets the count (a long soak). The test is not
repeated by the refleak run (`no_refleak`: its live-tensor and RSS checks are the leak check) and is
skipped under valgrind (`TENSORBIND_MEMCHECK`).
"""

import gc
import os
import resource
import time
import weakref

import _C
import pytest

TENSORS = int(os.environ.get("SOAK_TENSORS", 0)) or 4_000_000
RSS_BOUND = 4 * 2**20
PAGE = resource.getpagesize()


def rss_bytes() -> int:
    """The resident set size of this process (second field of /proc/self/statm, in pages)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


class Soaked(_C.Tensor):
    """A subclass with a `__dict__` (attributes set below), as user code writes them."""


class SlotSoaked(_C.Tensor):
    __slots__ = ("tag",)


# Tensors each round creates and drops (at least: counted by hand from `one_round`; advanced
# indexing also makes an index tensor).
PER_ROUND = 25


def one_round(i: int, keep: _C.Tensor) -> None:
    """Create and drop PER_ROUND tensors through the main paths."""
    a = _C.zeros(2, 3)                      # 1 factory
    b = _C.full((3,), float(i))             # 2
    c = _C.tensor([i, i + 1, i + 2])        # 3
    d = a + b                               # 4 arithmetic, broadcast
    e = d * 2 - 1                           # 5, 6
    d += 1                                  # (in place: no new tensor)
    f = a[1:]                               # 7 basic indexing: a view of a
    g = f.transpose(0, 1)                   # 8 a view of a view
    h = c[[0, 2]]                           # 9 advanced indexing: a copy
    j = c[0]                                # 10 select
    k = d.view(3, 2).sum(0)                 # 11, 12 view, reduction
    g.grad = _C.ones(3, 1)                  # 13 grad kept by a view
    s = Soaked([1.0, 2.0])                  # 14 subclass constructor
    s.label = i                             #    with a __dict__
    t = _C.arange(4).as_subclass(SlotSoaked)  # 15, 16 subclass over an alias
    t.tag = s                               #    a slot holding another tensor
    w = weakref.ref(t)                      #    weak reference to a subclass instance
    v = t[1:3]                              # 17 view of a subclass instance (its _base keeps t)
    m = _C.max(e, 1)                        # 18, 19 named tuple of two tensors
    keep[i % 4] = v.sum()                   # 20 write through the mapping protocol (a number
    #                                          tensor dropped after the copy)
    u = e.to(_C.float64).clone()            # 21, 22 conversions
    x = _C.where(c > 1, c, -c)              # 23, 24, 25 comparison, negation, where
    del a, b, c, d, e, f, g, h, j, k, s, t, v, m, u, x
    assert w() is None


@pytest.mark.no_refleak
def test_a_million_tensors_leave_nothing_behind(report):
    if os.environ.get("TENSORBIND_MEMCHECK"):
        pytest.skip("soak: pointless under valgrind (memcheck tracks every block itself)")
    keep = _C.zeros(4)
    rounds = TENSORS // PER_ROUND
    for i in range(2000):  # warm-up: free list, allocator arenas, caches
        one_round(i, keep)
    gc.collect()
    live0, rss0 = _C._live_tensors(), rss_bytes()
    peak = rss0
    t0 = time.monotonic()
    for i in range(rounds):
        one_round(i, keep)
        if i % 4096 == 0:
            peak = max(peak, rss_bytes())
    seconds = time.monotonic() - t0
    gc.collect()
    live1, rss1 = _C._live_tensors(), rss_bytes()
    report(
        f"soak: {rounds * PER_ROUND:,} tensors in {rounds:,} rounds, {seconds:.1f} s; live tensors "
        f"{live0} -> {live1}; RSS {rss0 / 2**20:.1f} -> {rss1 / 2**20:.1f} MiB "
        f"(growth {(rss1 - rss0) / 2**10:+.0f} KiB, peak +{(peak - rss0) / 2**10:.0f} KiB, bound {RSS_BOUND // 2**20} MiB)"
    )
    assert live1 == live0
    assert rss1 - rss0 < RSS_BOUND
    assert peak - rss0 < RSS_BOUND
