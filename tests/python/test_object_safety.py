"""Memory safety of the tensor object model (issue 9, bugs 1-6): each test is a reproduction that
used to read freed memory, crash, or lose state, written down as the behaviour we now promise.

- A preserved object reached without `wrap` (a weak reference, `gc.get_objects()`) keeps a valid
  tensor of its own when its tensor dies (re-homing; Note [PyObject preservation] in
  src/bindings/tensor_object.rs).
- No Python code ever runs on a dying tensor: a subclass `__del__` run while a tensor releases
  its object sees a valid tensor, and a view it keeps keeps that data.
- The override protocol owns the arguments it dispatches on, even when a handler empties the
  list they came in.
- Freeing chains a million links long (`__slots__`, `.grad`) does not overflow the stack.
- The GC never clears `__slots__` or `__dict__` of an object whose tensor Rust still holds.
- `out=` resizing keeps the object's `grad` and its views' `_base`, and a borrowed tensor read
  further up the stack stays valid while it happens.

Expected values come from the programs themselves (what was stored is what must be read back)
and from torch's documented behaviour (`out=` resize keeps the tensor's identity and `.grad`).
Crash-prone reproductions run in a subprocess, so a crash fails the test instead of the run.
"""

import gc
import os
import subprocess
import sys
import textwrap
import warnings
import weakref

import pytest

import _C


def run_python(code, *, env=None, timeout=120):
    """Run `code` in a fresh interpreter (this one, same _C); returns stdout. A crash or a
    non-zero exit fails with the output."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    p = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
    )
    assert p.returncode == 0, f"exit {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}"
    return p.stdout


# ---------------------------------------------------------------------------------------------
# 1. a weak reference brings back a preserved object whose tensor then dies
# ---------------------------------------------------------------------------------------------


def test_weakref_resurrected_preserved_object_keeps_its_own_tensor(live_tensors):
    a = _C.zeros(1000)
    v = a[1:]
    w = weakref.ref(a)
    del a  # preserved: v._base holds the tensor, which owns the object
    o = w()
    assert o is not None
    del v  # the tensor's last Rust handle: the object must not be left dangling
    b1 = _C.zeros(3, 5, dtype=_C.int64)
    b2 = _C.zeros(7, 9, dtype=_C.int64)
    assert o.shape == (1000,) and o.dtype is _C.float32
    assert o.sum().item() == 0.0
    o.fill_(7)
    assert o.sum().item() == 7000.0
    assert b1.sum().item() == 0 and b2.sum().item() == 0  # nothing else was written
    assert w() is o
    del o, b1, b2


def test_weakref_resurrected_object_keeps_its_grad_and_dict():
    a = _C.zeros(4)
    a.grad = _C.ones(4)
    a.note = "kept"
    v = a[1:]
    w = weakref.ref(a)
    del a
    o = w()
    del v
    assert o.grad.tolist() == [1.0, 1.0, 1.0, 1.0]
    assert o.note == "kept"
    assert o.tolist() == [0.0, 0.0, 0.0, 0.0]


def test_object_found_through_gc_is_usable_after_its_tensor_dies():
    class Marked(_C.Tensor):
        pass

    a = Marked([0.0, 1, 2, 3, 4])
    v = a[2:]
    del a
    found = [o for o in gc.get_objects() if type(o) is Marked]
    assert len(found) == 1
    o = found[0]
    del found
    del v
    assert o.tolist() == [0.0, 1, 2, 3, 4]
    assert (o + 1).tolist() == [1.0, 2, 3, 4, 5]


def test_entry_point_on_a_preserved_object_keeps_its_tensor_alive_for_the_call():
    # The object is preserved (owned by its tensor, which only `v` holds). Indexing it runs
    # Python code (a slice bound's __index__) that drops `v`: the call must keep working on a
    # live tensor.
    a = _C.arange(10)
    v = a[1:]
    w = weakref.ref(a)
    del a
    o = w()
    state = {"v": v}
    del v

    class DropsTheView:
        def __index__(self):
            state.clear()
            gc.collect()
            return 3

    assert o[DropsTheView() : 5].tolist() == [3, 4]
    assert o.tolist() == list(range(10))


# ---------------------------------------------------------------------------------------------
# 2. Python code (a subclass __del__) running while a tensor releases its object
# ---------------------------------------------------------------------------------------------


def test_del_during_release_sees_a_valid_tensor():
    keep = []

    class D(_C.Tensor):
        def __del__(self):
            keep.append(self[0:1])

    gc.collect()
    n0 = _C._live_tensors()
    w = D([1.0, 2, 3, 4, 5, 6])
    h = _C.zeros(6)
    h.grad = w
    del w  # preserved through h.grad
    del h  # the tensor dies and releases its object: __del__ runs
    junk = [_C.arange(6, dtype=_C.int64) * 0 + 99 for _ in range(20)]
    assert len(keep) == 1
    base = keep[0]._base
    assert base.tolist() == [1.0, 2, 3, 4, 5, 6]
    assert keep[0].tolist() == [1.0]
    # the view __del__ made keeps the object alive, as any view keeps its base object
    assert type(base) is D
    del junk, base
    keep.clear()
    gc.collect()
    assert _C._live_tensors() == n0


def test_del_that_keeps_a_view_preserves_the_subclass_object():
    keep = []

    class D(_C.Tensor):
        def __del__(self):
            keep.append(self[1:])

    d = D([1.0, 2.0, 3.0])
    d.tag = "mine"
    did = id(d)
    del d  # __del__ runs and makes a view: the object is preserved after all
    assert len(keep) == 1
    base = keep[0]._base
    assert id(base) == did and type(base) is D and base.tag == "mine"
    del base
    keep.clear()


# ---------------------------------------------------------------------------------------------
# 3. the override protocol and handlers that mutate their arguments
# ---------------------------------------------------------------------------------------------


def test_protocol_handler_that_empties_the_argument_list():
    out = run_python(
        """
        import _C
        class A(_C.Tensor):
            @classmethod
            def __tensorbind_function__(c, f, t, a=(), k=None):
                lst.clear(); [(i, i, i, i) for i in range(1000)]; return NotImplemented
        class B(_C.Tensor):
            @classmethod
            def __tensorbind_function__(c, f, t, a=(), k=None): return "B"
        lst = [_C.ones(2).as_subclass(A), _C.ones(2).as_subclass(B)]
        print(_C.cat(lst))
        """,
        env={"PYTHONMALLOC": "debug"},
    )
    assert out.strip() == "B"


def test_protocol_with_more_overriding_types_than_it_records_raises():
    types = [type(f"T{i}", (_C.Tensor,), {}) for i in range(9)]
    parts = [_C.ones(1).as_subclass(t) for t in types]
    with pytest.raises(TypeError, match=r"cat\(\): too many distinct types implement"):
        _C.cat(parts)
    # eight are fine: the default implementation declines unrelated subclasses, as torch's
    with pytest.raises(TypeError, match="no implementation found"):
        _C.cat(parts[:8])


# ---------------------------------------------------------------------------------------------
# 4. long chains
# ---------------------------------------------------------------------------------------------


@pytest.mark.no_refleak
def test_million_link_chains_are_freed_without_overflowing_the_stack():
    out = run_python(
        """
        import _C
        n = 1_000_000
        class S(_C.Tensor):
            __slots__ = ('next',)
        x = None
        for i in range(n):
            s = S(0); s.next = x; x = s
        del x, s
        print("slots", _C._live_tensors())
        x = _C.zeros(1)
        for i in range(n):
            y = _C.zeros(1); y.grad = x; x = y
        del x, y
        print("grad", _C._live_tensors())
        """
    )
    assert out.split() == ["slots", "0", "grad", "0"]


def test_grad_chain_through_subclass_objects_is_freed():
    class G(_C.Tensor):
        pass

    gc.collect()
    n0 = _C._live_tensors()
    x = _C.zeros(2).as_subclass(G)
    for _ in range(5000):
        y = _C.zeros(2).as_subclass(G)
        y.grad = x
        x = y
    assert x.grad.grad.shape == (2,)
    del x, y
    gc.collect()
    assert _C._live_tensors() == n0


# ---------------------------------------------------------------------------------------------
# 5. the GC and objects whose tensor Rust still holds
# ---------------------------------------------------------------------------------------------


def test_gc_does_not_clear_slots_of_an_object_rust_holds():
    class S(_C.Tensor):
        __slots__ = ("me", "payload")

    s = S(3)
    s.payload = "keep"
    s.me = s  # a cycle through a slot
    v = s[1:]
    del s
    gc.collect()
    assert v._base.payload == "keep"
    assert v._base.me is v._base
    # once nothing in Rust holds it, the cycle is garbage and is collected
    w = weakref.ref(v._base)
    del v
    gc.collect()
    assert w() is None


def test_gc_does_not_clear_the_dict_of_an_object_rust_holds():
    a = _C.zeros(3)
    a.me = a
    a.payload = [1, 2]
    holder = [a]
    holder.append(holder)  # a garbage cycle that references `a`
    v = a[1:]
    del a, holder
    gc.collect()
    assert v._base.payload == [1, 2]
    del v
    gc.collect()


def test_subclass_cycles_through_slots_are_collected():
    class S(_C.Tensor):
        __slots__ = ("other",)

    gc.collect()
    n0 = _C._live_tensors()
    a, b = S(2), S(2)
    a.other, b.other = b, a
    wa = weakref.ref(a)
    del a, b
    gc.collect()
    assert wa() is None
    assert _C._live_tensors() == n0


def test_grad_that_is_a_view_of_its_own_tensor_is_not_a_leak():
    gc.collect()
    n0 = _C._live_tensors()
    big = _C.zeros(64)
    big.grad = big.view(8, 8).view(64)
    small = _C.zeros(2)  # inline data: the view holds the tensor twice (_base and storage)
    small.grad = small[:]
    wb, ws = weakref.ref(big), weakref.ref(small)
    del big, small
    gc.collect()
    assert wb() is None and ws() is None
    assert _C._live_tensors() == n0


def test_grad_that_is_a_view_held_elsewhere_keeps_the_tensor_preserved():
    gc.collect()
    n0 = _C._live_tensors()
    a = _C.arange(4.0)
    a.grad = a.view(4)
    a.tag = "a"
    g = a.grad
    wa, wg = weakref.ref(a), weakref.ref(g)
    del a
    assert g._base.tag == "a"
    assert g._base.grad is g
    del g  # now nothing outside holds either: the cycle through Rust is broken, both freed
    gc.collect()
    assert wa() is None and wg() is None
    assert _C._live_tensors() == n0


def test_grad_view_cycle_freed_in_either_order():
    gc.collect()
    n0 = _C._live_tensors()
    for small in (False, True):
        a = _C.zeros(2 if small else 64)
        g = a[:]
        a.grad = g
        wa, wg = weakref.ref(a), weakref.ref(g)
        del g, a  # the view's object goes first, then the base's
        gc.collect()
        assert wa() is None and wg() is None
    assert _C._live_tensors() == n0


# ---------------------------------------------------------------------------------------------
# 6. out= resizing
# ---------------------------------------------------------------------------------------------


def test_out_resize_keeps_grad_and_view_base_identity():
    x, y = _C.ones(2, 3), _C.full((2, 3), 2.0)
    a = _C.zeros(4)
    a.grad = _C.ones(4)
    a.tag = "out"
    v = a[1:]
    with pytest.warns(UserWarning, match="was resized since it had shape"):
        r = _C.add(x, y, out=a)
    assert r is a
    assert a.shape == (2, 3) and a.tolist() == [[3.0] * 3] * 2
    assert a.grad.tolist() == [1.0, 1.0, 1.0, 1.0]  # torch keeps .grad through a resize
    assert a.tag == "out"
    assert v._base is a  # torch: the view's base is still the resized tensor
    assert v.tolist() == [0.0, 0.0, 0.0]  # the view keeps the old memory


def test_out_resize_of_an_empty_tensor_does_not_warn():
    a = _C.zeros(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _C.mul(_C.ones(3), 2.0, out=a)
    assert a.tolist() == [2.0, 2.0, 2.0]


def test_out_resize_while_an_outer_frame_reads_the_tensor():
    t = _C.arange(10)

    class ResizesT:
        def __index__(self):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _C.add(_C.ones(50, dtype=_C.int64), 1, out=t)
            return 3

    # t[a:b] reads t's tensor, then converts the slice bounds, which resizes t meanwhile: the
    # read must stay on one consistent tensor (the one before the resize).
    assert t[ResizesT() : 5].tolist() == [3, 4]
    assert t.shape == (50,) and t.tolist() == [2] * 50
    t2 = _C.arange(10)

    class ResizesT2:
        def __index__(self):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _C.add(_C.ones(3, dtype=_C.int64), 1, out=t2)
            return 8

    # the old tensor had 10 elements: the view [8:10] of it is in bounds, and reads old data
    assert t2[ResizesT2() :].tolist() == [8, 9]
    assert t2.tolist() == [2, 2, 2]


def test_warning_hook_that_resizes_out_again():
    a = _C.zeros(2)
    calls = []

    def hook(message, category, filename, lineno, file=None, line=None):
        calls.append(str(message))
        if len(calls) == 1:
            _C.add(_C.ones(5), 0, out=a)  # a second resize from inside the first

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = hook
        _C.add(_C.ones(3), 1, out=a)
    assert len(calls) == 2
    assert a.tolist() == [2.0, 2.0, 2.0]


def test_out_resize_with_views_then_dropping_everything_frees_everything(live_tensors):
    a = _C.zeros(4)
    v = a[1:]
    wa = weakref.ref(a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _C.add(_C.ones(6), 1, out=a)
    assert v._base is a
    del a
    assert wa() is not None  # `v` still names the object as its base
    assert v._base.tolist() == [2.0] * 6
    del v
    gc.collect()
    assert wa() is None


def test_resize_by_another_thread_while_this_one_reads_the_tensor():
    # Thread A indexes `t`; the slice bound's __index__ lets thread B run (it waits on an
    # Event, releasing the GIL), and B resizes `t` with out= and returns. The tensor A borrowed
    # before must stay alive until A's call is over (src/bindings/call_scope.rs).
    assert _C._parked_tensors() == 0
    import threading

    t = _C.arange(10)
    b_may_run, b_done = threading.Event(), threading.Event()

    def resize_t():
        b_may_run.wait()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _C.add(_C.ones(40, dtype=_C.int64), 1, out=t)
        junk = [_C.arange(10) * 7 for _ in range(50)]  # reuse freed memory, if any
        del junk
        b_done.set()

    class LetBResize:
        def __index__(self):
            b_may_run.set()
            assert b_done.wait(10)
            return 3

    th = threading.Thread(target=resize_t)
    th.start()
    got = t[LetBResize() : 6]
    th.join()
    assert _C._parked_tensors() == 0  # released once no call was running
    assert got.tolist() == [3, 4, 5]  # read from the tensor before the resize
    assert got._base is t  # the old tensor forwards to t's object
    assert t.tolist() == [2] * 40
    del got
    assert _C._parked_tensors() == 0
