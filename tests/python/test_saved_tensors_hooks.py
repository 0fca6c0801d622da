"""Saved-tensor hooks: ``_C.autograd.graph.saved_tensors_hooks`` and
``disable_saved_tensors_hooks`` (issue 12, session 5).

Expected values, call orders and error texts are torch 2.15's (run by hand with torch 2.15 and
written here; torch is not imported). The leak tests build the cycle torch never frees (a pack
hook returning its input, research §2.1) and check it is freed.
"""

import gc
import threading
import weakref

import pytest

import _C
from _C.autograd.graph import disable_saved_tensors_hooks, saved_tensors_hooks

ERR_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed)."
)


def leaf(values):
    return _C.tensor(values, dtype=_C.float64, requires_grad=True)


def test_module_paths_as_torch():
    import _C.autograd.graph as g

    assert g.saved_tensors_hooks is saved_tensors_hooks
    assert _C.autograd.graph.disable_saved_tensors_hooks is disable_saved_tensors_hooks


def test_pack_on_save_unpack_on_backward_and_saved_access():
    log = []

    def pack(x):
        log.append(("pack", tuple(x.shape), _C.is_grad_enabled()))
        return ("P", x)

    def unpack(p):
        log.append(("unpack",))
        assert p[0] == "P"
        return p[1]

    a = leaf([1.0, 2.0])
    with saved_tensors_hooks(pack, unpack):
        y = a * a  # saves self and other
        z = y.exp()  # saves result
    # torch 2.15: three packs, each under no_grad; none outside the context.
    assert log == [("pack", (2,), False)] * 3
    assert _C.is_grad_enabled()
    log.clear()
    s = y.grad_fn._saved_self
    assert log == [("unpack",)]
    assert s.requires_grad and s.tolist() == [1.0, 2.0]
    log.clear()
    r = z.grad_fn._saved_result
    assert log == [("unpack",)]
    assert r.grad_fn is z.grad_fn and r.requires_grad
    log.clear()
    z.sum().backward()
    assert log == [("unpack",)] * 3
    # d/da exp(a^2) = 2a exp(a^2): torch gives [5.4366, 218.3926].
    assert a.grad.tolist() == pytest.approx([5.43656365691809, 218.39260013257694])


def test_pack_receives_the_saved_input_itself():
    a = leaf([1.0, 2.0])
    seen = []
    with saved_tensors_hooks(lambda x: seen.append(x is a) or x, lambda x: x):
        a * a
    assert seen == [True, True]


def test_no_pack_without_recording_or_for_python_numbers():
    log = []
    a = leaf([1.0, 2.0])
    with saved_tensors_hooks(lambda x: log.append(x) or x, lambda x: x):
        with _C.no_grad():
            a * a
        _C.tensor([1.0]) * _C.tensor([2.0])
        a * 2.0  # saves only the Python number, which torch never shows to the hooks
    assert log == []


def test_nesting_innermost_wins():
    log = []
    a = leaf([1.0])
    with saved_tensors_hooks(lambda x: log.append("outer") or x, lambda x: x):
        with saved_tensors_hooks(lambda x: log.append("inner") or x, lambda x: x):
            a * a
        a * a
    a * a
    assert log == ["inner", "inner", "outer", "outer"]


def test_packed_value_may_be_any_object_and_gradient_is_right():
    store = {}

    def pack(x):
        k = len(store)
        store[k] = x.tolist()
        return k

    def unpack(k):
        return _C.tensor(store[k], dtype=_C.float64)

    a = leaf([0.5, -1.5, 2.0])
    with saved_tensors_hooks(pack, unpack):
        y = (a * a).sin()
    y.sum().backward()
    # d/da sin(a^2) = 2a cos(a^2) (independent computation).
    import math

    expected = [2 * v * math.cos(v * v) for v in (0.5, -1.5, 2.0)]
    assert a.grad.tolist() == pytest.approx(expected)


def test_double_backward_through_unpacked_tensors():
    # The unpacked tensors carry the saved tensors' history: d2/da2 of a^3 = 6a.
    a = leaf([1.0, 2.0])
    with saved_tensors_hooks(lambda x: x.clone(), lambda x: x):
        y = a * a * a
    (g,) = _C.autograd.grad(y.sum(), a, create_graph=True)
    assert g.tolist() == [3.0, 12.0]
    g.sum().backward()
    assert a.grad.tolist() == [6.0, 12.0]


def test_unpack_must_return_a_tensor():
    a = leaf([1.0, 2.0])
    with saved_tensors_hooks(lambda x: x, lambda x: 3):
        y = a * a
    with pytest.raises(TypeError) as e:
        y.sum().backward()
    assert str(e.value) == (
        "Output of saved tensor unpack_hook expected to be a Tensor but got result of type int"
    )


def test_pack_modifying_its_input_in_place():
    b = leaf([1.0, 2.0])
    c = b * 1

    def pack(x):
        x.add_(1)
        return x

    with pytest.raises(RuntimeError) as e:
        with saved_tensors_hooks(pack, lambda x: x):
            c * c
    assert str(e.value) == (
        "A saved tensor pack hook is modifying its input in place. Tensors provided as input to "
        "pack hook cannot be modified by in-place operations as this can lead to unexpected "
        "side-effects. Please open an issue if you need to perform in-place operations on the "
        "input to a pack hook."
    )


def test_exceptions_from_hooks_propagate_unchanged():
    a = leaf([1.0])
    with pytest.raises(ZeroDivisionError):
        with saved_tensors_hooks(lambda x: 1 / 0, lambda x: x):
            a * a
    with saved_tensors_hooks(lambda x: x, lambda x: 1 / 0):
        y = a * a
    with pytest.raises(ZeroDivisionError):
        y.sum().backward()


def test_hooks_must_be_callable():
    with pytest.raises(TypeError):
        with saved_tensors_hooks(1, 2):
            pass


def test_backward_twice_and_access_after_release():
    a = leaf([1.0, 2.0])
    with saved_tensors_hooks(lambda x: x, lambda x: x):
        y = a * a
    y.sum().backward()
    with pytest.raises(RuntimeError, match=r"^Trying to backward through the graph a second"):
        y.sum().backward()
    with pytest.raises(RuntimeError) as e:
        y.grad_fn._saved_self
    assert str(e.value).startswith(ERR_TWICE)


def test_retain_graph_unpacks_again():
    n = []
    a = leaf([3.0])
    with saved_tensors_hooks(lambda x: x, lambda x: n.append(1) or x):
        y = a * a
    y.backward(retain_graph=True)
    y.backward()
    assert len(n) == 4 and a.grad.tolist() == [12.0]


def test_no_version_check_with_hooks():
    # torch: tensors saved through hooks are not version-checked; a.grad = 2w * 1 after w += 1.
    a = leaf([1.0, 2.0])
    with saved_tensors_hooks(lambda x: x, lambda x: x):
        w = a * 1
        y = w * w
    w.add_(1)
    y.sum().backward()
    assert a.grad.tolist() == [4.0, 6.0]


def test_custom_function_save_for_backward_goes_through_hooks():
    log = []

    class Sq(_C.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    a = leaf([1.5])
    with saved_tensors_hooks(lambda x: log.append("p") or x, lambda x: log.append("u") or x):
        y = Sq.apply(a)
    y.backward()
    assert log == ["p", "u"] and a.grad.tolist() == [3.0]


def test_disable_saved_tensors_hooks():
    with disable_saved_tensors_hooks("no hooks here"):
        assert not _C._C._saved_tensors_hooks_is_enabled()
        with pytest.raises(RuntimeError, match="^no hooks here$"):
            with saved_tensors_hooks(lambda x: x, lambda x: x):
                pass
        with disable_saved_tensors_hooks("inner"):
            with pytest.raises(RuntimeError, match="^inner$"):
                with saved_tensors_hooks(lambda x: x, lambda x: x):
                    pass
        with pytest.raises(RuntimeError, match="^no hooks here$"):
            with saved_tensors_hooks(lambda x: x, lambda x: x):
                pass
    assert _C._C._saved_tensors_hooks_is_enabled()
    # torch: disabling while a pair is active raises the message at once.
    with saved_tensors_hooks(lambda x: x, lambda x: x):
        with pytest.raises(RuntimeError, match="^dis$"):
            with disable_saved_tensors_hooks("dis"):
                pass
    assert _C._C._saved_tensors_hooks_is_enabled()


def test_hooks_are_per_thread():
    log = []
    a = leaf([1.0])
    with saved_tensors_hooks(lambda x: log.append("main") or x, lambda x: x):
        th = threading.Thread(target=lambda: a * a)
        th.start()
        th.join()
    assert log == []


def test_leak_pack_hook_returning_its_input_is_freed():
    # torch never frees this graph (research §2.1): the saved output holds its own tensor.
    def make():
        a = leaf([1.0, 2.0])
        with saved_tensors_hooks(lambda x: x, lambda x: x):
            z = a.exp()  # saves its result: the pack hook returns it
        return z

    gc.collect()
    before = _C._live_tensors()
    refs = [weakref.ref(make()) for _ in range(3)]
    gc.collect()
    assert all(r() is None for r in refs)
    assert _C._live_tensors() == before


def test_leak_hooks_capturing_the_saved_tensor_are_freed():
    class Box:
        pass

    def make():
        a = leaf([1.0, 2.0])
        box = Box()
        with saved_tensors_hooks(lambda x: box, lambda b: b.t):
            box.t = a.exp()
        box.keep = box.t
        return box

    gc.collect()
    before = _C._live_tensors()
    refs = [weakref.ref(make()) for _ in range(3)]
    gc.collect()
    assert all(r() is None for r in refs)
    assert _C._live_tensors() == before


def test_leak_hooks_pair_shared_by_two_saved_tensors_is_freed():
    # `a * a` packs two tensors with one pair; the unpack hook's closure holds the result: a
    # cycle through the pair, held by both saved tensors.
    class Box:
        pass

    def make():
        a = leaf([1.0, 2.0])
        box = Box()

        def unpack(x):
            assert box is not None
            return x

        with saved_tensors_hooks(lambda x: x, unpack):
            box.t = a * a
        return box

    gc.collect()
    before = _C._live_tensors()
    refs = [weakref.ref(make()) for _ in range(3)]
    gc.collect()
    assert all(r() is None for r in refs)
    assert _C._live_tensors() == before
