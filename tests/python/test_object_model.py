"""The tensor object model (issue 5): identity without a map, PyObject preservation through
`_base` and `grad`, subclasses, `__dict__`, weak references, cyclic GC, copying and pickling.

See src/bindings/tensor_object.rs, Note [PyObject preservation]. Every test here also runs under
the debug interpreter's refleak mode, which checks that preserved objects are released exactly
once (no refcount growth, no live Rust tensor left behind).
"""

import copy
import gc
import pickle
import time
import weakref

import pytest

import _C


def same(t, expected, dtype):
    assert t.dtype is dtype
    assert t.tolist() == expected


# ---------------------------------------------------------------------------------------------
# identity: the same core tensor is always the same Python object
# ---------------------------------------------------------------------------------------------


def test_methods_returning_their_input_return_the_same_object():
    t = _C.zeros(3)
    assert t.add_(1) is t
    assert t.contiguous() is t
    assert t.to(_C.float32) is t
    assert t.float() is t
    c = _C.zeros(3)
    assert _C.add(t, t, out=c) is c
    t += 1
    assert t.tolist() == [2.0, 2.0, 2.0]


def test_new_views_are_new_objects():
    t = _C.zeros(2, 3)
    assert t.view(2, 3) is not t
    assert t[...] is not t
    assert t.reshape(2, 3) is not t
    assert t.transpose(0, 1).contiguous() is not t


def test_views_of_a_base_return_the_base_object_every_time():
    a = _C.zeros(4)
    v1 = a.view(2, 2)
    v2 = a[1:]
    assert v1._base is a
    assert v2._base is a
    assert v1._base is v2._base


# ---------------------------------------------------------------------------------------------
# _base
# ---------------------------------------------------------------------------------------------


def test_base_of_views_and_non_views():
    a = _C.arange(6)
    assert a._base is None
    v = a.view(2, 3)
    assert v._base is a
    # a view of a view records the root, as torch does
    w = v.transpose(0, 1)
    assert w._base is a
    assert v[0]._base is a
    # results that are not views have no base
    assert a.clone()._base is None
    assert (a + 1)._base is None
    assert v.transpose(0, 1).reshape(6)._base is None  # reshape had to copy
    assert _C.matmul(_C.ones(3), _C.ones(3, 2))._base is None
    assert v.sum(0, keepdim=True)._base is None


def test_base_keeps_data_alive_and_shared():
    a = _C.zeros(4)
    v = a.view(2, 2)
    del a
    gc.collect()
    v[0, 0] = 5
    assert v._base.tolist() == [5.0, 0.0, 0.0, 0.0]


# ---------------------------------------------------------------------------------------------
# grad
# ---------------------------------------------------------------------------------------------


def test_grad_get_set_clear():
    t = _C.zeros(3)
    assert t.grad is None
    g = _C.ones(3)
    t.grad = g
    assert t.grad is g
    t.grad = None
    assert t.grad is None
    t.grad = g
    del t.grad
    assert t.grad is None


def test_grad_errors():
    t = _C.zeros(3)
    # torch 2.15: RuntimeError: attempting to assign a gradient of size '[2]' to a tensor of size '[3]'. ...
    with pytest.raises(RuntimeError, match=r"^attempting to assign a gradient of size '\[2\]' to a tensor of size '\[3\]'\. Please ensure that the gradient and the tensor are the same size$"):
        t.grad = _C.zeros(2)
    # torch 2.15: RuntimeError: attempting to assign a gradient with dtype 'long int' to a tensor with grad_dtype 'Float'. ...
    with pytest.raises(RuntimeError, match="^attempting to assign a gradient with dtype 'long int' to a tensor with grad_dtype 'Float'. The gradient must match"):
        t.grad = _C.zeros(3, dtype=_C.int64)
    # torch: RuntimeError: can't assign Variable as its own grad
    with pytest.raises(RuntimeError, match="can't assign Variable as its own grad"):
        t.grad = t
    # torch: TypeError: assigned grad expected to be a Tensor or None but got grad of type str
    with pytest.raises(TypeError, match="assigned grad expected to be a Tensor or None but got grad of type str"):
        t.grad = "x"
    assert t.grad is None


# ---------------------------------------------------------------------------------------------
# preservation
# ---------------------------------------------------------------------------------------------


def test_preserved_through_base():
    a = _C.zeros(4)
    a.tag = "x"
    v = a.view(2, 2)
    del a
    gc.collect()
    assert v._base.tag == "x"
    assert v._base is v._base


def test_preserved_through_grad():
    t = _C.zeros(3)
    g = _C.ones(3)
    g.tag = "g"
    t.grad = g
    del g
    gc.collect()
    assert t.grad.tag == "g"
    assert t.grad.tolist() == [1.0, 1.0, 1.0]


def test_preserved_object_freed_exactly_once_when_the_tensor_dies():
    fired = []
    a = _C.zeros(4)
    a.tag = "x"
    r = weakref.ref(a, lambda _: fired.append(1))
    v = a.view(2, 2)
    del a
    gc.collect()
    assert fired == []  # preserved: Rust (the view) still holds the tensor
    assert r() is not None and r().tag == "x"
    del v  # the view dies, and with it the last handle to the base
    gc.collect()
    assert fired == [1]
    assert r() is None


def test_preservation_round_trips_more_than_once():
    a = _C.zeros(2)
    a.tag = 1
    v = a.view(2)
    for i in range(3):
        b = v._base  # back to Python
        b.tag += 1
        del b  # preserved again
        gc.collect()
    assert v._base.tag == 4


def test_preserved_object_is_not_collected_even_in_a_cycle():
    a = _C.zeros(2)
    a.me = a  # a reference cycle through __dict__
    v = a.view(2)
    del a
    gc.collect()
    b = v._base
    assert b.me is b
    del b
    b = None
    del v
    gc.collect()


def test_subclass_and_slots_survive_preservation():
    class MyTensor(_C.Tensor):
        __slots__ = ("s",)

    m = MyTensor([1.0, 2.0])
    m.s = [1, 2]
    v = m.view(2)
    del m
    gc.collect()
    b = v._base
    assert type(b) is MyTensor
    assert b.s == [1, 2]


def test_subclass_finalizer_runs_once():
    calls = []

    class WithDel(_C.Tensor):
        def __del__(self):
            calls.append(1)

    w = WithDel([1.0])
    holder = _C.zeros(1)
    holder.grad = w  # Rust (the grad slot) holds w's tensor
    del w
    gc.collect()
    assert calls == []  # preserved, not finalized
    assert type(holder.grad) is WithDel
    del holder  # the last handle to w's tensor goes: w is finalized, once
    gc.collect()
    assert calls == [1]


def test_release_from_a_thread_without_the_gil():
    fired = []
    a = _C.zeros(4)
    a.tag = "y"
    r = weakref.ref(a, lambda _: fired.append(1))
    v = a.view(2, 2)
    del a
    # A Rust thread holds the view for 0.5 s, then drops it without the GIL. (Long enough for
    # the next two lines even under the debug interpreter.)
    _C._hold_in_thread(v, 0.5)
    del v
    assert fired == [] and r().tag == "y"  # preserved while the thread holds the view
    deadline = time.monotonic() + 10
    while not fired and time.monotonic() < deadline:
        time.sleep(0.01)  # releases the GIL, which the Rust thread takes to free the object
    assert fired == [1]
    assert r() is None


# ---------------------------------------------------------------------------------------------
# the free list of dead _C.Tensor objects (Note [PyTensor free list] in tensor_object.rs)
# ---------------------------------------------------------------------------------------------

FREE_LIST_MAX = 128


def test_free_list_objects_come_back_clean():
    import sys

    ts = [_C.ones(1) for _ in range(10)]
    for i, t in enumerate(ts):
        t.note = i  # a __dict__ to clear
    refs = [weakref.ref(t) for t in ts]
    called = []
    cb = weakref.ref(ts[0], lambda _: called.append(1))
    del t
    ts.clear()
    assert all(r() is None for r in refs) and called == [1] and cb() is None
    assert _C._tensor_free_list_len() >= 10
    fresh = [_C.zeros(2) for _ in range(10)]  # revived from the list
    for f in fresh:
        assert type(f) is _C.Tensor and f.dtype == _C.float32 and f.tolist() == [0.0, 0.0]
        assert f.__dict__ == {} and not hasattr(f, "note")
        assert weakref.getweakrefcount(f) == 0
        assert gc.is_tracked(f)
        assert sys.getrefcount(f) == 3  # the list slot, the loop variable and the argument
        assert f.grad is None
    # identity and __dict__ still work on revived objects
    f = fresh[0]
    f.x = 1
    assert f.view(2)._base is f and f.x == 1
    w = weakref.ref(f)
    del fresh, f
    assert w() is None


def test_free_list_is_bounded_and_skips_subclasses():
    class Sub(_C.Tensor):
        pass

    junk = [_C.zeros(1) for _ in range(3 * FREE_LIST_MAX)]
    del junk
    assert _C._tensor_free_list_len() == FREE_LIST_MAX
    subs = [Sub([1.0]) for _ in range(10)]
    n = _C._tensor_free_list_len()
    del subs
    assert _C._tensor_free_list_len() == n  # subclass instances never enter it
    s = Sub([2.0])
    assert type(s) is Sub and s.tolist() == [2.0] and s.__dict__ == {}
    assert _C._tensor_free_list_len() == n  # nor come from it


def test_free_list_and_cycles_and_preservation():
    a = _C.zeros(1)
    a.me = a  # a reference cycle through __dict__
    r = weakref.ref(a)
    del a
    gc.collect()
    assert r() is None
    b = _C.zeros(3)
    b.tag = "kept"
    v = b.view(3)
    del b  # preserved (the view's _base holds the tensor): not freed, not on the list
    gc.collect()
    assert v._base.tag == "kept"
    fresh = [_C.ones(1) for _ in range(2 * FREE_LIST_MAX)]  # drain the list
    assert all(not hasattr(t, "tag") for t in fresh)
    assert v._base.tag == "kept"


# ---------------------------------------------------------------------------------------------
# a first-class Python object
# ---------------------------------------------------------------------------------------------


def test_subclass_construction_isinstance_super():
    class MyTensor(_C.Tensor):
        def double_sum(self):
            return super().sum().item() * 2

    m = MyTensor([1.0, 2.0])
    assert isinstance(m, _C.Tensor) and isinstance(m, MyTensor)
    assert m.double_sum() == 6.0
    m.extra = "e"
    assert m.__dict__ == {"extra": "e"}


def test_dict_is_lazy_and_weakrefs_work():
    t = _C.zeros(1)
    assert t.__dict__ == {}
    t.a = 1
    assert t.__dict__ == {"a": 1}
    r = weakref.ref(t)
    assert r() is t
    del t
    assert r() is None


def test_cycle_is_collected():
    t = _C.zeros(3)
    t.me = t
    r = weakref.ref(t)
    del t
    gc.collect()
    assert r() is None


class PicklableTensor(_C.Tensor):
    """A module-level subclass (pickle finds classes by qualified name)."""


def test_copy_and_pickle_keep_values_dtype_shape_subclass_and_dict():
    MyTensor = PicklableTensor
    m = MyTensor([[1.0, 2.0], [3.0, 4.0]])
    m.note = "n"
    for clone in (copy.copy(m), copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert type(clone) is MyTensor
        assert clone is not m
        same(clone, [[1.0, 2.0], [3.0, 4.0]], _C.float32)
        assert clone.note == "n"
    i = _C.tensor([1, 2, 3], dtype=_C.int16)
    same(pickle.loads(pickle.dumps(i)), [1, 2, 3], _C.int16)
    b = _C.tensor([True, False])
    same(copy.deepcopy(b), [True, False], _C.bool)


def test_deepcopy_keeps_views_sharing_inside_one_copy():
    a = _C.arange(6)
    v = a.view(2, 3)
    a2, v2 = copy.deepcopy([a, v])
    v2[0, 0] = 100
    assert a2.tolist()[0] == 100  # the copies share storage with each other ...
    assert a.tolist()[0] == 0  # ... but not with the originals
    assert v2.tolist() == [[100, 1, 2], [3, 4, 5]]
    # a copy of a transposed view keeps its strides
    t = _C.arange(6).view(2, 3).transpose(0, 1)
    t2 = copy.deepcopy(t)
    assert t2.shape == (3, 2) and t2.stride() == t.stride()
    assert t2.tolist() == t.tolist()


def test_deepcopy_copies_grad():
    t = _C.zeros(2)
    t.grad = _C.ones(2)
    t2 = copy.deepcopy(t)
    assert t2.grad is not None and t2.grad is not t.grad
    assert t2.grad.tolist() == [1.0, 1.0]


# ---------------------------------------------------------------------------------------------
# the override protocol: __tensorbind_function__ (torch: __torch_function__)
# ---------------------------------------------------------------------------------------------


class ProtoBase(_C.Tensor):
    pass


class ProtoLogged(ProtoBase):
    log = []

    @classmethod
    def __tensorbind_function__(cls, func, types, args=(), kwargs=None):
        cls.log.append((func.__name__, [t.__name__ for t in types], len(args), dict(kwargs or {})))
        return super().__tensorbind_function__(func, types, args, kwargs)


def test_default_protocol_returns_the_subclass():
    m = ProtoBase([1.0, 2.0])
    for r in (m + 1, 2 - m, -m, m * m, _C.add(m, 1), m.sum(), m.view(2), m == 1, abs(m)):
        assert type(r) is ProtoBase
    assert (m + 1).tolist() == [2.0, 3.0]
    assert m.add_(1) is m  # in place: the same object
    assert type(_C.zeros(2)) is _C.Tensor  # plain tensors are untouched


def test_protocol_sees_func_types_args_kwargs_in_torch_order():
    ProtoLogged.log.clear()
    l = ProtoLogged([1.0, 2.0])
    m = ProtoBase([1.0, 1.0])
    r = _C.add(m, l, alpha=2)
    assert type(r) is ProtoLogged
    assert r.tolist() == [3.0, 5.0]
    # the subclass comes before its superclass, whatever the argument order
    assert ProtoLogged.log == [("add", ["ProtoLogged", "ProtoBase"], 2, {"alpha": 2})]
    ProtoLogged.log.clear()
    l.mul(3)  # a method: self is the first argument
    assert ProtoLogged.log == [("mul", ["ProtoLogged"], 2, {})]


def test_non_tensor_objects_can_implement_the_protocol():
    class Intercept:
        @classmethod
        def __tensorbind_function__(cls, func, types, args=(), kwargs=None):
            return ("intercepted", func.__name__, len(args), types == (cls,))

    assert _C.add(_C.zeros(2), Intercept()) == ("intercepted", "add", 2, True)
    assert _C.zeros(2).sub(Intercept()) == ("intercepted", "sub", 2, True)


def test_protocol_not_implemented_everywhere_is_a_type_error():
    class Refuse:
        @classmethod
        def __tensorbind_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    # torch: TypeError: no implementation found for 'torch.add' on types that implement __torch_function__: [...]
    with pytest.raises(TypeError, match=r"no implementation found for '_C.add' on types that implement __tensorbind_function__: \[<class '.*Refuse'>\]"):
        _C.add(_C.zeros(2), Refuse())


def test_unrelated_subclasses_decline_each_other():
    class A(_C.Tensor):
        pass

    class B(_C.Tensor):
        pass

    with pytest.raises(TypeError, match="no implementation found"):
        A([1.0]) + B([1.0])


def test_as_subclass():
    t = _C.tensor([1.0, 2.0])
    s = t.as_subclass(ProtoBase)
    assert type(s) is ProtoBase and s.tolist() == [1.0, 2.0]
    s[0] = 9
    assert t.tolist() == [9.0, 2.0]  # same data
    with pytest.raises(TypeError, match="as_subclass"):
        t.as_subclass(int)
