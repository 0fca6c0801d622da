"""The variants every elementwise op derives from its one schema entry (issue 10): the functional
form, the in-place method `op_` (into self, returning self) and a direct `out=` (into `out`,
returning `out`) — with torch's checks: the in-place cast error ("result type Float can't be
cast to the desired output type Long"), the output shape, overlap errors, the `out=` resize
warning. Expected values come from Python's math module or are written out from torch's
documented behaviour."""

import math
import warnings

import pytest

import _C
from tensor_asserts import same

X = [0.25, 0.5, 0.75]


def sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


# The float unary ops: (name, reference). Integer and bool inputs give float32.
FLOAT_UNARY = [
    ("exp", math.exp),
    ("log", math.log),
    ("sqrt", math.sqrt),
    ("sin", math.sin),
    ("cos", math.cos),
    ("tan", math.tan),
    ("asin", math.asin),
    ("acos", math.acos),
    ("atan", math.atan),
    ("sinh", math.sinh),
    ("cosh", math.cosh),
    ("tanh", math.tanh),
    ("sigmoid", sigmoid),
    ("exp2", lambda x: 2.0**x),
    ("expm1", math.expm1),
    ("log2", math.log2),
    ("log10", math.log10),
    ("log1p", math.log1p),
    ("rsqrt", lambda x: 1.0 / math.sqrt(x)),
    ("reciprocal", lambda x: 1.0 / x),
]

# Every elementwise op: (name, arguments after self). The in-place method and out= must exist.
ELEMENTWISE = [(n, ()) for n, _ in FLOAT_UNARY] + [
    ("neg", ()),
    ("abs", ()),
    ("square", ()),
    ("floor", ()),
    ("ceil", ()),
    ("trunc", ()),
    ("round", ()),
    ("frac", ()),
    ("sign", ()),
    ("nan_to_num", ()),
    ("logical_not", ()),
    ("add", (1.0,)),
    ("sub", (1.0,)),
    ("mul", (2.0,)),
    ("div", (2.0,)),
    ("remainder", (0.5,)),
    ("floor_divide", (0.5,)),
    ("pow", (2.0,)),
    ("atan2", ("t",)),
    ("hypot", ("t",)),
    ("fmod", (0.5,)),
    ("logical_and", ("t",)),
    ("logical_or", ("t",)),
    ("logical_xor", ("t",)),
    ("sinc", ()),
    ("i0", ()),
    ("heaviside", ("t",)),
    ("nextafter", ("t",)),
    ("eq", (0.5,)),
    ("ne", (0.5,)),
    ("lt", (0.5,)),
    ("le", (0.5,)),
    ("gt", (0.5,)),
    ("ge", (0.5,)),
    ("clamp", (0.3, 0.6)),
    ("clip", (0.3, 0.6)),
    ("lerp", ("t", 0.5)),
]
# Integer-only elementwise ops.
INTEGER_ELEMENTWISE = [
    ("bitwise_not", ()),
    ("bitwise_and", (3,)),
    ("bitwise_or", (3,)),
    ("bitwise_xor", (3,)),
    ("bitwise_left_shift", (1,)),
    ("bitwise_right_shift", (1,)),
    ("gcd", ("t",)),
    ("lcm", ("t",)),
]
# torch has no in-place form of these (maximum_, minimum_ do not exist); out= only.
OUT_ONLY = ["maximum", "minimum"]


def args_for(args, like):
    return [like.clone() if a == "t" else a for a in args]


@pytest.mark.parametrize("name,args", ELEMENTWISE + INTEGER_ELEMENTWISE)
def test_every_elementwise_op_has_inplace_and_out(name, args):
    integer = (name, args) in INTEGER_ELEMENTWISE
    x = _C.tensor([1, 2, 3]) if integer else _C.tensor(X, dtype=_C.float64)
    expected = getattr(_C, name)(x, *args_for(args, x))
    # in place: self is returned and holds the functional result (cast to self's dtype)
    y = x.clone()
    assert getattr(y, name + "_")(*args_for(args, x)) is y
    assert y.tolist() == expected.to(y.dtype).tolist()
    # out=: `out` is returned and holds the result
    out = _C.zeros(3, dtype=expected.dtype)
    assert getattr(_C, name)(x, *args_for(args, x), out=out) is out
    assert out.tolist() == expected.tolist()
    assert getattr(_C.Tensor, name + "_").__doc__.startswith(name + "_(")


@pytest.mark.parametrize("name", OUT_ONLY)
def test_out_only_ops(name):
    a, b = _C.tensor([1.0, 5.0]), _C.tensor([3.0, 2.0])
    out = _C.zeros(2)
    assert getattr(_C, name)(a, b, out=out) is out
    assert not hasattr(_C.Tensor, name + "_")


@pytest.mark.parametrize("name,ref", FLOAT_UNARY)
def test_float_unary_variants(name, ref):
    want = [ref(v) for v in X]
    x = _C.tensor(X, dtype=_C.float64)
    same(getattr(_C, name)(x), want, _C.float64, rel=1e-12)
    # in place on float64 and float32
    y = x.clone()
    assert getattr(y, name + "_")() is y
    same(y, want, _C.float64, rel=1e-12)
    y32 = _C.tensor(X)
    assert getattr(y32, name + "_")() is y32
    same(y32, want, _C.float32, rel=1e-5)
    # in place on a non-contiguous view writes through to the base
    base = _C.tensor([[X[0], 9.0], [X[1], 9.0], [X[2], 9.0]], dtype=_C.float64)
    col = base[:, 0]
    assert getattr(col, name + "_")() is col
    same(base[:, 0], want, _C.float64, rel=1e-12)
    same(base[:, 1], [9.0] * 3, _C.float64)
    # an integer self cannot hold the float result: torch's cast error, self untouched
    i = _C.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        getattr(i, name + "_")()
    assert i.tolist() == [1, 2, 3]
    # out=: float64 out keeps the float64 result; a float32 input writes its float32 result
    out = _C.empty(3, dtype=_C.float64)
    assert getattr(_C, name)(x, out=out) is out
    same(out, want, _C.float64, rel=1e-12)
    # an integer input computes in float32; an int out cannot hold it
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        getattr(_C, name)(_C.tensor([1, 2]), out=_C.zeros(2, dtype=_C.int64))


def test_inplace_keeps_self_and_dtype():
    x = _C.tensor([0.0, 1.0], dtype=_C.float64)
    x.tag = "mine"
    r = x.exp_()
    assert r is x and r.tag == "mine" and x.dtype is _C.float64
    # a float32 self with a float64 operand: computed in float64, cast into float32
    y = _C.tensor([1.0, 2.0])
    assert y.add_(_C.tensor([0.5, 0.25], dtype=_C.float64)) is y
    same(y, [1.5, 2.25], _C.float32)
    # comparisons in place write the bool result in self's dtype (torch's eq_)
    z = _C.tensor([1.0, 2.0, 3.0])
    assert z.eq_(2) is z
    same(z, [0.0, 1.0, 0.0], _C.float32)
    w = _C.tensor([1, 2, 3])
    assert w.lt_(_C.tensor([2, 2, 2])) is w
    same(w, [1, 0, 0], _C.int64)


def test_inplace_cannot_broadcast_self():
    x = _C.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"^output with shape \[2\] doesn't match the broadcast shape \[2, 2\]$"):
        x.atan2_(_C.ones(2, 2))
    with pytest.raises(RuntimeError, match=r"^output with shape \[2\] doesn't match the broadcast shape \[2, 2\]$"):
        x.clamp_(min=_C.zeros(2, 2))
    assert x.tolist() == [1.0, 2.0]


def test_inplace_overlap_errors():
    t = _C.arange(6.0)
    # an expanded self: more than one element refers to one memory location
    e = _C.tensor([1.0]).expand(3)
    with pytest.raises(RuntimeError, match="^unsupported operation: more than one element of the written-to tensor"):
        e.exp_()
    # self partially overlaps an input (a shifted view of it)
    with pytest.raises(RuntimeError, match="^unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location"):
        t[1:].atan2_(t[:-1])
    with pytest.raises(RuntimeError, match="^unsupported operation: some elements of the input tensor"):
        _C.sin(t[:-1], out=t[1:])
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    # the very same tensor is fine: out=input and x.op_(x)
    x = _C.tensor([0.5, 0.25], dtype=_C.float64)
    assert _C.hypot(x, x, out=x) is x
    same(x, [math.hypot(0.5, 0.5), math.hypot(0.25, 0.25)], _C.float64, rel=1e-12)
    y = _C.tensor([3, 5])
    assert y.bitwise_xor_(y) is y
    assert y.tolist() == [0, 0]


def test_out_resize_warning_and_identity():
    x = _C.tensor([0.0, 1.0])
    out = _C.zeros(3)
    with pytest.warns(UserWarning, match=r"^An output with one or more elements was resized since it had shape \[3\], which does not match the required output shape \[2\]"):
        r = _C.exp(x, out=out)
    assert r is out and out.shape == (2,)
    same(out, [1.0, math.e], _C.float32)
    # an empty out is resized silently
    empty = _C.zeros(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _C.sigmoid(x, out=empty) is empty
    same(empty, [0.5, sigmoid(1.0)], _C.float32)
    # the cast check comes before the resize (no warning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
            _C.exp(x, out=_C.zeros(5, dtype=_C.int64))
    # comparisons: a bool result casts to any out
    o = _C.zeros(2, dtype=_C.int32)
    assert _C.gt(x, 0.5, out=o) is o
    same(o, [0, 1], _C.int32)
    # a non-tensor out is torch's TypeError
    with pytest.raises(TypeError, match="^exp\\(\\): argument 'out' must be Tensor, not list"):
        _C.exp(x, out=[0.0])


def test_out_on_an_input_that_must_be_resized():
    # out is the input and must grow: computed before out is replaced
    a = _C.tensor([1.0, 2.0])
    with pytest.warns(UserWarning, match="was resized"):
        r = _C.atan2(a, _C.ones(2, 2), out=a)
    assert r is a
    same(a, [[math.atan2(1.0, 1.0), math.atan2(2.0, 1.0)]] * 2, _C.float32)


def test_dtype_keeping_unary_inplace():
    x = _C.tensor([-1.5, 0.5, 2.5])
    assert x.neg_() is x
    same(x, [1.5, -0.5, -2.5], _C.float32)
    same(_C.tensor([-3, 4]).abs_(), [3, 4], _C.int64)
    same(_C.tensor([-1.5, 0.5, 2.5]).floor_(), [-2.0, 0.0, 2.0], _C.float32)
    same(_C.tensor([-1.5, 0.5, 2.5]).ceil_(), [-1.0, 1.0, 3.0], _C.float32)
    same(_C.tensor([-1.5, 0.5, 2.5]).trunc_(), [-1.0, 0.0, 2.0], _C.float32)
    same(_C.tensor([-1.5, 0.5, 2.5]).round_(), [-2.0, 0.0, 2.0], _C.float32)
    same(_C.tensor([1.234, 5.678], dtype=_C.float64).round_(decimals=1), [1.2, 5.7], _C.float64)
    same(_C.tensor([-1.5, 2.25]).frac_(), [-0.5, 0.25], _C.float32)
    same(_C.tensor([-2, 0, 7]).sign_(), [-1, 0, 1], _C.int64)
    same(_C.tensor([-2, 3]).square_(), [4, 9], _C.int64)
    same(_C.tensor([-2, 3]).relu_(), [0, 3], _C.int64)
    same(_C.tensor([float("nan"), float("inf"), 1.0], dtype=_C.float64).nan_to_num_(nan=7.0, posinf=8.0), [7.0, 8.0, 1.0], _C.float64)
    same(_C.tensor([0.0, 2.0]).logical_not_(), [1.0, 0.0], _C.float32)
    same(_C.tensor([0, 5], dtype=_C.uint8).bitwise_not_(), [255, 250], _C.uint8)
    # integers stay integers: floor_ of an int tensor is a no-op
    i = _C.tensor([3, -4])
    assert i.floor_() is i and i.tolist() == [3, -4]
    # bool square gives int64, which cannot be written into a bool self
    with pytest.raises(RuntimeError, match="^result type Long can't be cast to the desired output type Bool$"):
        _C.tensor([True]).square_()
    with pytest.raises(NotImplementedError, match="^Negation, the `-` operator, on a bool tensor is not supported"):
        _C.tensor([True]).neg_()
    with pytest.raises(NotImplementedError, match="^\"abs_cpu\" not implemented for 'Bool'$"):
        _C.tensor([True]).abs_()


def test_binary_inplace_values_and_errors():
    same(_C.tensor([7, -7]).remainder_(3), [1, 2], _C.int64)
    same(_C.tensor([7, -7]).floor_divide_(2), [3, -4], _C.int64)
    same(_C.tensor([7.0, -7.0]).fmod_(3), [1.0, -1.0], _C.float32)
    same(_C.tensor([2, 3]).pow_(3), [8, 27], _C.int64)
    same(_C.tensor([2.0, 4.0]).pow_(0.5), [math.sqrt(2.0), 2.0], _C.float32)
    same(_C.tensor([2.0, 4.0]).pow_(_C.tensor([2.0, 0.5])), [4.0, 2.0], _C.float32)
    same(_C.tensor([3.0]).hypot_(_C.tensor([4.0])), [5.0], _C.float32)
    same(_C.tensor([1.0, 0.0]).logical_and_(_C.tensor([2.0, 3.0])), [1.0, 0.0], _C.float32)
    same(_C.tensor([12, 10]).bitwise_and_(6), [4, 2], _C.int64)
    same(_C.tensor([1, 2]).bitwise_left_shift_(2), [4, 8], _C.int64)
    same(_C.tensor([8, -8]).bitwise_right_shift_(1), [4, -4], _C.int64)
    same(_C.tensor([0.0, 10.0]).lerp_(_C.tensor([10.0, 20.0]), 0.25), [2.5, 12.5], _C.float32)
    same(_C.tensor([-1.0, 0.5, 3.0]).clamp_(0.0, 1.0), [0.0, 0.5, 1.0], _C.float32)
    same(_C.tensor([-1.0, 0.5, 3.0]).clip_(max=1.0), [-1.0, 0.5, 1.0], _C.float32)
    same(_C.tensor([-1, 5, 3]).clamp_(_C.tensor([0, 0, 4]), _C.tensor([2, 2, 9])), [0, 2, 4], _C.int64)
    # integer division by zero, integers to negative powers, float into int self
    with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
        _C.tensor([1, 2]).fmod_(0)
    with pytest.raises(RuntimeError, match="^Integers to negative integer powers are not allowed.$"):
        _C.tensor([2]).pow_(-1)
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        _C.tensor([2]).pow_(0.5)
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        _C.tensor([2]).clamp_(0.5)
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        _C.tensor([2]).atan2_(_C.tensor([1]))
    with pytest.raises(RuntimeError, match="^torch.clamp: At least one of 'min' or 'max' must not be None$"):
        _C.tensor([2.0]).clamp_()


def test_operators_inplace_still_work():
    x = _C.tensor([1.0, 2.0])
    y = x
    x += 1
    x *= 2
    x -= 1
    x /= 2
    assert x is y
    same(x, [1.5, 2.5], _C.float32)
    i = _C.tensor([1, 2])
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        i /= 2


# ---- the named in-place ops and their functional forms ----------------------------------------


def test_t():
    m = _C.tensor([[1, 2], [3, 4]])
    r = m.t()
    assert r.tolist() == [[1, 3], [2, 4]] and r._base is m
    assert _C.t(m).tolist() == [[1, 3], [2, 4]]
    v = _C.tensor([1, 2, 3])
    assert v.t().tolist() == [1, 2, 3] and v.t()._base is v
    assert _C.tensor(5).t().tolist() == 5
    with pytest.raises(RuntimeError, match=r"^t\(\) expects a tensor with <= 2 dimensions, but self is 3D$"):
        _C.zeros(1, 2, 3).t()


def test_copy_():
    x = _C.zeros(2, 3, dtype=_C.int32)
    assert x.copy_(_C.tensor([1.7, -2.7, 3.0])) is x  # broadcast, float to int truncates
    same(x, [[1, -2, 3], [1, -2, 3]], _C.int32)
    assert x.copy_(_C.tensor(True), non_blocking=True) is x
    same(x, [[1, 1, 1], [1, 1, 1]], _C.int32)
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(3\) must match the size of tensor b \(4\) at non-singleton dimension 1$"):
        x.copy_(_C.zeros(4))
    with pytest.raises(RuntimeError, match=r"^output with shape \[2, 3\] doesn't match the broadcast shape \[2, 2, 3\]$"):
        x.copy_(_C.zeros(2, 2, 3))
    same(x, [[1, 1, 1], [1, 1, 1]], _C.int32)  # nothing written
    t = _C.arange(4)
    with pytest.raises(RuntimeError, match="^unsupported operation: some elements of the input tensor"):
        t[1:].copy_(t[:-1])
    with pytest.raises(TypeError):
        x.copy_(1)


def test_fill_():
    x = _C.zeros(2, dtype=_C.uint8)
    assert x.fill_(7) is x
    same(x, [7, 7], _C.uint8)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type uint8_t without overflow$"):
        x.fill_(300)
    assert x.fill_(-1) is x  # a negative int wraps into uint8 (torch's checked_convert)
    same(x, [255, 255], _C.uint8)
    assert x.fill_(_C.tensor(-1)) is x  # a 0-dim tensor is cast like copy_
    same(x, [255, 255], _C.uint8)
    with pytest.raises(RuntimeError, match="^fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions.$"):
        x.fill_(_C.tensor([1]))


def test_masked_fill_():
    x = _C.tensor([[1.0, 2.0], [3.0, 4.0]])
    mask = _C.tensor([True, False])
    assert x.masked_fill_(mask, -1) is x
    same(x, [[-1.0, 2.0], [-1.0, 4.0]], _C.float32)
    assert x.masked_fill_(_C.tensor([[False, True], [False, False]]), _C.tensor(9.0)) is x
    same(x, [[-1.0, 9.0], [-1.0, 4.0]], _C.float32)
    # in place, the mask broadcasts to self but self cannot grow
    v = _C.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"^output with shape \[2\] doesn't match the broadcast shape \[2, 2\]$"):
        v.masked_fill_(_C.tensor([[True, False], [False, True]]), 0)
    with pytest.raises(RuntimeError, match="^masked_fill_ only supports boolean masks, but got mask with dtype long int$"):
        v.masked_fill_(_C.tensor([1, 0]), 0)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type uint8_t without overflow$"):
        _C.zeros(2, dtype=_C.uint8).masked_fill_(_C.tensor([True, True]), 300)


def test_scatter_family():
    src = _C.arange(1, 11).reshape((2, 5))
    index = _C.tensor([[0, 1, 2, 0]])
    x = _C.zeros(3, 5, dtype=src.dtype)
    assert x.scatter_(0, index, src) is x  # torch's documented example
    assert x.tolist() == [[1, 0, 0, 4, 0], [0, 2, 0, 0, 0], [0, 0, 3, 0, 0]]
    y = _C.zeros(2, 4)
    assert y.scatter_(1, _C.tensor([[2], [3]]), 1.23) is y
    same(y, [[0, 0, 1.23, 0], [0, 0, 0, 1.23]], _C.float32)
    # scatter_add_: repeated positions accumulate (torch's documented example)
    z = _C.zeros(3, 5)
    assert z.scatter_add_(0, _C.tensor([[0, 1, 2, 0, 0]]), _C.ones(2, 5)) is z
    same(z, [[1, 0, 0, 1, 1], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0]], _C.float32)
    z2 = _C.zeros(3)
    z2.scatter_add_(0, _C.tensor([0, 0, 2]), _C.tensor([1.0, 2.0, 3.0]))
    same(z2, [3.0, 0.0, 3.0], _C.float32)
    # the functional forms leave input alone; out= is written directly
    base = _C.zeros(3)
    r = _C.scatter_add(base, 0, _C.tensor([1, 1]), _C.tensor([2.0, 5.0]))
    same(r, [0.0, 7.0, 0.0], _C.float32)
    same(base, [0.0, 0.0, 0.0], _C.float32)
    out = _C.empty(3)
    assert _C.scatter(base, 0, _C.tensor([2]), 4.0, out=out) is out
    same(out, [0.0, 0.0, 4.0], _C.float32)
    assert _C.scatter_add(base, 0, _C.tensor([0]), _C.tensor([1.0]), out=out) is out
    same(out, [1.0, 0.0, 0.0], _C.float32)
    # errors: src aliasing self in place, dtypes, out-of-range index (self untouched)
    a = _C.arange(3.0)
    with pytest.raises(RuntimeError, match="^unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location"):
        a.scatter_(0, _C.tensor([0, 1, 2]), a)
    with pytest.raises(RuntimeError, match=r"^scatter\(\): Expected self.dtype to be equal to src.dtype$"):
        a.scatter_add_(0, _C.tensor([0]), _C.tensor([1]))
    with pytest.raises(RuntimeError, match=r"^scatter\(\): Expected dtype int32/int64 for index$"):
        a.scatter_add_(0, _C.tensor([0], dtype=_C.int16), _C.tensor([1.0]))
    with pytest.raises(RuntimeError, match="^index 5 is out of bounds for dimension 0 with size 3$"):
        a.scatter_(0, _C.tensor([0, 5]), 9.0)
    same(a, [0.0, 1.0, 2.0], _C.float32)


def test_scatter_reduce_overloads():
    x = _C.ones(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's once-per-process deprecation warning
        assert x.scatter_(0, _C.tensor([[0, 1, 0]]), _C.full((1, 3), 2.0), reduce="multiply") is x
    same(x, [[2.0, 1.0, 2.0], [1.0, 2.0, 1.0]], _C.float32)
    assert x.scatter_(1, _C.tensor([[0, 0]]), 3.0, reduce="add") is x
    same(x, [[8.0, 1.0, 2.0], [1.0, 2.0, 1.0]], _C.float32)
    r = _C.scatter(_C.zeros(3), 0, _C.tensor([1, 1]), 5.0, reduce="add")
    same(r, [0.0, 10.0, 0.0], _C.float32)
    with pytest.raises(RuntimeError, match="^reduce argument must be either add or multiply.$"):
        x.scatter_(0, _C.tensor([[0]]), 1.0, reduce="max")


def test_index_add_copy_fill():
    t = _C.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]], dtype=_C.float32)
    index = _C.tensor([0, 4, 2])
    # torch's documented examples
    x = _C.ones(5, 3)
    assert x.index_add_(0, index, t) is x
    same(x, [[2, 3, 4], [1, 1, 1], [8, 9, 10], [1, 1, 1], [5, 6, 7]], _C.float32)
    x = _C.zeros(5, 3)
    assert x.index_copy_(0, index, t) is x
    same(x, [[1, 2, 3], [0, 0, 0], [7, 8, 9], [0, 0, 0], [4, 5, 6]], _C.float32)
    x = _C.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]], dtype=_C.float32)
    assert x.index_fill_(1, _C.tensor([0, 2]), -1) is x
    same(x, [[-1, 2, -1], [-1, 5, -1], [-1, 8, -1]], _C.float32)
    x.index_fill_(0, _C.tensor([-1]), _C.tensor(0.5))  # negative indices count from the end
    same(x[2], [0.5, 0.5, 0.5], _C.float32)
    # alpha, repeated indices accumulate, int32 index
    y = _C.zeros(3)
    y.index_add_(0, _C.tensor([1, 1], dtype=_C.int32), _C.tensor([1.0, 2.0]), alpha=2)
    same(y, [0.0, 6.0, 0.0], _C.float32)
    # functional forms and out=
    base = _C.zeros(3)
    same(_C.index_add(base, 0, _C.tensor([2]), _C.tensor([4.0])), [0.0, 0.0, 4.0], _C.float32)
    same(base.index_copy(0, _C.tensor([0]), _C.tensor([7.0])), [7.0, 0.0, 0.0], _C.float32)
    same(_C.index_fill(base, 0, _C.tensor([1]), 3), [0.0, 3.0, 0.0], _C.float32)
    same(base, [0.0, 0.0, 0.0], _C.float32)
    out = _C.zeros(3, dtype=_C.float64)
    assert _C.index_add(base, 0, _C.tensor([0]), _C.tensor([1.5]), out=out) is out
    same(out, [1.5, 0.0, 0.0], _C.float64)
    # errors
    with pytest.raises(RuntimeError, match=r"^index_add_\(\): self \(Float\) and source \(Double\) must have the same scalar type$"):
        base.index_add_(0, _C.tensor([0]), _C.tensor([1.0], dtype=_C.float64))
    with pytest.raises(RuntimeError, match=r"^index_add_\(\): Number of indices \(2\) should be equal to source.size\(dim\): \(1\), for dim: 0$"):
        base.index_add_(0, _C.tensor([0, 1]), _C.tensor([1.0]))
    with pytest.raises(IndexError, match="^index out of range in self$"):
        base.index_add_(0, _C.tensor([3]), _C.tensor([1.0]))
    with pytest.raises(RuntimeError, match="^index 5 is out of bounds for dimension 0 with size 3$"):
        _C.zeros(3, 4).index_add_(0, _C.tensor([0, 5]), _C.ones(2, 4))
    with pytest.raises(RuntimeError, match=r"^source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = \[3, 4\] source.shape = \[2, 3\]$"):
        _C.zeros(3, 4).index_add_(0, _C.tensor([0, 1]), _C.ones(2, 3))
    with pytest.raises(RuntimeError, match=r"^index_add_\(\): Expected dtype int32/int64 for index but got: Float$"):
        _C.ones(2, 2).index_add_(0, _C.tensor([0, 1.0]), _C.ones(2, 2))
    with pytest.raises(IndexError, match=r"^index_add_\(\): Index is supposed to be a vector, but got dim: 2 with type: Long and size: \[1, 2\]$"):
        _C.ones(2, 2).index_add_(0, _C.tensor([[0, 1]]), _C.ones(2, 2))
    # alpha is converted to the tensor's dtype (torch: alpha.to<scalar_t>())
    same(_C.ones(2, dtype=_C.int64).index_add_(0, _C.tensor([0, 1]), _C.ones(2, dtype=_C.int64), alpha=1.5), [2, 2], _C.int64)
    with pytest.raises(IndexError, match=r"^index_copy_\(\): index 3 is out of bounds for dimension 0 with size 3$"):
        base.index_copy_(0, _C.tensor([3]), _C.tensor([1.0]))
    with pytest.raises(RuntimeError, match=r"^index_copy_\(\): Expected a long tensor for index, but got Int$"):
        base.index_copy_(0, _C.tensor([0], dtype=_C.int32), _C.tensor([1.0]))
    with pytest.raises(IndexError, match="^index 3 is out of bounds for dimension 0 with size 3$"):
        base.index_fill_(0, _C.tensor([3]), 1)
    with pytest.raises(IndexError, match=r"^index_fill_\(\): Expected dtype int64 for index.$"):
        base.index_fill_(0, _C.tensor([0], dtype=_C.int32), 1)
    with pytest.raises(RuntimeError, match="^Index has to be a vector/scalar$"):
        base.index_fill_(0, _C.tensor([[0]]), 1)
    # torch's index_copy_ texts (IndexError for the index's shape and count)
    with pytest.raises(IndexError, match=r"^index_copy_\(\): Number of indices \(1\) should be equal to source.size\(dim\) \(2\)$"):
        _C.ones(2, 2).index_copy_(0, _C.tensor([0]), _C.ones(2, 2))
    with pytest.raises(IndexError, match=r"^index_copy_\(\): When source and destination are not scalars, their dimensionality must match. Source dimensionality \(1\), destination dimensionality \(2\)$"):
        _C.ones(2, 2).index_copy_(0, _C.tensor([0]), _C.ones(2))
    with pytest.raises(RuntimeError, match=r"^index_copy_\(\): Source/destination tensor must have same slice shapes. Destination slice shape: 2 at dimension 0 and source slice shape: 3 at dimension 0.$"):
        _C.ones(2, 2).index_copy_(0, _C.tensor([0]), _C.ones(1, 3))
    with pytest.raises(IndexError, match=r"^index_copy_\(\): Index should have dimension 1 or 0 \(got 2\)$"):
        _C.ones(2, 2).index_copy_(0, _C.tensor([[0]]), _C.ones(1, 2))
    with pytest.raises(RuntimeError, match=r"^index_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension\(s\).$"):
        base.index_fill_(0, _C.tensor([0]), _C.tensor([1.0]))
    with pytest.raises(RuntimeError, match="^unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location"):
        base.index_add_(0, _C.tensor([0, 1, 2]), base)
    same(base, [0.0, 0.0, 0.0], _C.float32)
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        _C.index_add(base, 0, _C.tensor([0]), _C.tensor([1.0]), out=_C.zeros(3, dtype=_C.int64))


# ---- direct out= of the other ops with a plan ---------------------------------------------------


def _out_like(r):
    return _C.full(r.shape, 7, dtype=r.dtype)


OUT_CASES = {
    "cat": (lambda: ([_C.tensor([1, 2]), _C.tensor([3])],), {}, [1, 2, 3]),
    "stack": (lambda: ([_C.tensor([1, 2]), _C.tensor([3, 4])],), {"dim": 1}, [[1, 3], [2, 4]]),
    "gather": (lambda: (_C.tensor([[1, 2], [3, 4]]), 1, _C.tensor([[0, 0], [1, 0]])), {}, [[1, 1], [4, 3]]),
    "index_select": (lambda: (_C.tensor([[1, 2], [3, 4]]), 0, _C.tensor([1, 1])), {}, [[3, 4], [3, 4]]),
    "take": (lambda: (_C.tensor([[1, 2], [3, 4]]), _C.tensor([-1, 0])), {}, [4, 1]),
    "diag": (lambda: (_C.tensor([1, 2]),), {"diagonal": 1}, [[0, 1, 0], [0, 0, 2], [0, 0, 0]]),
    "outer": (lambda: (_C.tensor([1, 2]), _C.tensor([3, 4, 5])), {}, [[3, 4, 5], [6, 8, 10]]),
    "mm": (lambda: (_C.tensor([[1, 2], [3, 4]]), _C.tensor([[5], [6]])), {}, [[17], [39]]),
    "dot": (lambda: (_C.tensor([1, 2, 3]), _C.tensor([4, 5, 6])), {}, 32),
    "tril": (lambda: (_C.tensor([[1, 2], [3, 4]]),), {}, [[1, 0], [3, 4]]),
    "triu": (lambda: (_C.tensor([[1, 2], [3, 4]]),), {"diagonal": 1}, [[0, 2], [0, 0]]),
    "cumsum": (lambda: (_C.tensor([[1, 2], [3, 4]]), 1), {}, [[1, 3], [3, 7]]),
    "cumprod": (lambda: (_C.tensor([[1, 2], [3, 4]]), 0), {}, [[1, 2], [3, 8]]),
    "masked_select": (lambda: (_C.tensor([[1, 2], [3, 4]]), _C.tensor([True, False])), {}, [1, 3]),
    "lerp": (lambda: (_C.tensor([0.0, 10.0]), _C.tensor([10.0, 20.0]), _C.tensor([0.25, 0.75])), {}, [2.5, 17.5]),
}


@pytest.mark.parametrize("name", sorted(OUT_CASES))
def test_direct_out(name):
    make, kwargs, want = OUT_CASES[name]
    r = getattr(_C, name)(*make(), **kwargs)
    assert r.tolist() == want
    out = _out_like(r)
    assert getattr(_C, name)(*make(), **kwargs, out=out) is out
    assert out.tolist() == want
    # a non-contiguous out (a transposed view) is written through
    if r.dim() == 2:
        base = _C.zeros(r.shape[1], r.shape[0], dtype=r.dtype)
        view = base.t()
        assert getattr(_C, name)(*make(), **kwargs, out=view) is view
        assert view.tolist() == want and base.t().tolist() == want
    # a wrong-shaped out is resized with torch's warning
    big = _C.zeros(9, dtype=r.dtype)
    with pytest.warns(UserWarning, match="was resized"):
        assert getattr(_C, name)(*make(), **kwargs, out=big) is big
    assert big.tolist() == want


def test_tri_inplace_and_lerp_tensor_inplace():
    m = _C.tensor([[1, 2, 3], [4, 5, 6]])
    assert m.tril_() is m
    assert m.tolist() == [[1, 0, 0], [4, 5, 0]]
    m = _C.tensor([[1, 2, 3], [4, 5, 6]])
    assert m.triu_(-1) is m and m.tolist() == [[1, 2, 3], [4, 5, 6]]
    assert m.triu_(1) is m and m.tolist() == [[0, 2, 3], [0, 0, 6]]
    b = _C.arange(8).reshape((2, 2, 2))
    b.tril_()
    assert b.tolist() == [[[0, 0], [2, 3]], [[4, 0], [6, 7]]]
    x = _C.tensor([0.0, 10.0])
    assert x.lerp_(_C.tensor([10.0, 20.0]), _C.tensor([0.5, 1.0])) is x
    same(x, [5.0, 20.0], _C.float32)
    with pytest.raises(RuntimeError, match="^expected dtype float for `end` but got dtype double$"):
        x.lerp_(_C.tensor([1.0], dtype=_C.float64), _C.tensor([1.0]))


def test_scan_inplace():
    x = _C.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x.cumsum_(0) is x
    same(x, [[1.0, 2.0], [4.0, 6.0]], _C.float32)
    assert x.cumprod_(1) is x
    same(x, [[1.0, 2.0], [4.0, 24.0]], _C.float32)
    # an int32 self: the int64 result is written back into int32
    i = _C.tensor([1, 2, 3], dtype=_C.int32)
    assert i.cumsum_(0) is i
    same(i, [1, 3, 6], _C.int32)
    # a non-contiguous self
    m = _C.tensor([[1, 2], [3, 4]])
    col = m.t()
    assert col.cumsum_(1) is col
    assert m.tolist() == [[1, 2], [4, 6]]


def test_out_overlap_with_inputs_is_torch_error():
    # cat, gather, index_select: out may share no memory with an input (torch's assert_no_overlap)
    x = _C.zeros(4)
    msg = "^unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location"
    with pytest.raises(RuntimeError, match=msg):
        _C.cat([x[:2], x[2:]], out=x)
    t = _C.tensor([[1, 2], [3, 4]])
    with pytest.raises(RuntimeError, match=msg):
        _C.gather(t, 1, _C.tensor([[1, 0], [0, 1]]), out=t)
    with pytest.raises(RuntimeError, match=msg):
        _C.index_select(t, 0, _C.tensor([1, 0]), out=t)
    assert t.tolist() == [[1, 2], [3, 4]]
    # mm into one of its operands: the product is computed before m is written
    m = _C.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert _C.mm(m, m, out=m) is m
    same(m, [[7.0, 10.0], [15.0, 22.0]], _C.float32)
