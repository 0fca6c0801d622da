"""Python operators on tensors: + - * / // % ** @ (and reflected), unary - + abs(), in-place
+= -= *= /= (same object), in-place methods fill_/zero_/add_/sub_/mul_/div_ returning self,
bool()/int()/float()/operator.index(), len() and iteration (torch's behaviour)."""

import operator

import pytest

import _C
from tensor_asserts import same  # noqa: E402

# ---------------------------------------------------------------------------------------------
# helpers


# ---------------------------------------------------------------------------------------------
# binary operators

OPS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
}


@pytest.mark.parametrize("sym", sorted(OPS))
def test_operator_tensor_tensor(sym):
    op = OPS[sym]
    a = _C.tensor([7.0, -7.0, 2.0])
    b = _C.tensor([2.0, 2.0, 3.0])
    same(op(a, b), [op(x, y) for x, y in zip([7.0, -7.0, 2.0], [2.0, 2.0, 3.0])], _C.float32)


@pytest.mark.parametrize("sym", sorted(OPS))
def test_operator_with_scalar_both_sides(sym):
    op = OPS[sym]
    t = _C.tensor([1, 2, 4])
    vals = [1, 2, 4]
    r = op(t, 2)
    rr = op(2, t)
    if sym == "/":
        same(r, [v / 2 for v in vals], _C.float32)
        same(rr, [2 / v for v in vals], _C.float32)
    else:
        same(r, [op(v, 2) for v in vals], _C.int64)
        same(rr, [op(2, v) for v in vals], _C.int64)


@pytest.mark.parametrize("sym", sorted(OPS))
def test_operator_float_scalar_promotes_int_tensor(sym):
    op = OPS[sym]
    t = _C.tensor([1, 2, 4], dtype=_C.int32)
    same(op(t, 2.0), [op(float(v), 2.0) for v in [1, 2, 4]], _C.float32)
    same(op(2.0, t), [op(2.0, float(v)) for v in [1, 2, 4]], _C.float32)


def test_reflected_subtraction_and_division():
    t = _C.tensor([1, 2, 3])
    same(2 - t, [1, 0, -1], _C.int64)
    same(10 // t, [10, 5, 3], _C.int64)
    same(10 % t, [0, 0, 1], _C.int64)
    same(1 / t, [1.0, 0.5, 1 / 3], _C.float32)
    same(2**t, [2, 4, 8], _C.int64)
    same(True + t, [2, 3, 4], _C.int64)


def test_operator_with_bool_scalar():
    t = _C.tensor([1.5, 2.5])
    same(t * True, [1.5, 2.5], _C.float32)
    same(t + False, [1.5, 2.5], _C.float32)


def test_operators_broadcast():
    a = _C.tensor([[1], [2]])
    b = _C.tensor([10, 20, 30])
    same(a + b, [[11, 21, 31], [12, 22, 32]], _C.int64)
    same(b - a, [[9, 19, 29], [8, 18, 28]], _C.int64)
    same(a * b, [[10, 20, 30], [20, 40, 60]], _C.int64)


def test_matmul_operator():
    a = _C.tensor([[1.0, 2.0], [3.0, 4.0]])
    same(a @ a, [[7.0, 10.0], [15.0, 22.0]], _C.float32)
    same(a @ _C.tensor([1.0, 1.0]), [3.0, 7.0], _C.float32)
    x = a
    x @= a  # no in-place slot: falls back to x = x @ a
    same(x, [[7.0, 10.0], [15.0, 22.0]], _C.float32)
    same(a, [[1.0, 2.0], [3.0, 4.0]], _C.float32)


def test_pow_three_argument_form_is_type_error():
    with pytest.raises(TypeError):
        pow(_C.tensor([2]), 2, 3)


@pytest.mark.parametrize("sym", sorted(OPS))
def test_operator_with_unsupported_operand(sym):
    op = OPS[sym]
    t = _C.tensor([1, 2])
    for bad in ("a", None, object(), [1, 2]):
        with pytest.raises(TypeError):
            op(t, bad)
        if sym == "%" and bad == "a":
            # str % x is string formatting; a tensor has __getitem__, so Python treats it as a
            # mapping and "a" % t == "a" (torch behaves the same)
            assert op(bad, t) == "a"
            continue
        with pytest.raises(TypeError):
            op(bad, t)


def test_unsupported_operand_message_names_types():
    with pytest.raises(TypeError, match="unsupported operand type"):
        _C.tensor([1]) + "a"


def test_operators_do_not_modify_operands():
    a = _C.tensor([1, 2])
    b = _C.tensor([3, 4])
    for op in OPS.values():
        op(a, b)
    assert a.tolist() == [1, 2]
    assert b.tolist() == [3, 4]


# ---------------------------------------------------------------------------------------------
# unary


def test_unary_operators():
    t = _C.tensor([-1.5, 0.0, 2.0])
    same(-t, [1.5, 0.0, -2.0], _C.float32)
    same(abs(t), [1.5, 0.0, 2.0], _C.float32)
    i = _C.tensor([-3, 4], dtype=_C.int16)
    same(-i, [3, -4], _C.int16)
    same(abs(i), [3, 4], _C.int16)
    assert +t is t  # torch: positive() of a non-bool tensor returns self


def test_unary_plus_on_bool_is_error():
    # torch: RuntimeError: The `+` operator, on a bool tensor is not supported.
    with pytest.raises(RuntimeError, match="The `\\+` operator, on a bool tensor is not supported"):
        +_C.tensor([True])


def test_unary_minus_on_bool_is_error():
    with pytest.raises(NotImplementedError, match="Negation, the `-` operator, on a bool tensor is not supported"):
        -_C.tensor([True])


# ---------------------------------------------------------------------------------------------
# in-place operators


@pytest.mark.parametrize(
    "stmt, expected, dtype",
    [
        ("t += 1", [2.0, 3.0, 4.0], _C.float32),
        ("t -= 1", [0.0, 1.0, 2.0], _C.float32),
        ("t *= 2", [2.0, 4.0, 6.0], _C.float32),
        ("t /= 2", [0.5, 1.0, 1.5], _C.float32),
        ("t += t", [2.0, 4.0, 6.0], _C.float32),
        ("t *= _C.tensor([1, 0, -1])", [1.0, 0.0, -3.0], _C.float32),
        ("t -= 0.5", [0.5, 1.5, 2.5], _C.float32),
    ],
)
def test_inplace_operators_keep_identity(stmt, expected, dtype):
    t = _C.tensor([1.0, 2.0, 3.0])
    before = id(t)
    ns = {"t": t, "_C": _C}
    exec(stmt, ns)
    assert ns["t"] is t
    assert id(ns["t"]) == before
    same(t, expected, dtype)


def test_inplace_int_tensor():
    t = _C.tensor([1, 2, 3])
    t += 2
    same(t, [3, 4, 5], _C.int64)
    t *= _C.tensor([2, 2, 2], dtype=_C.int8)
    same(t, [6, 8, 10], _C.int64)
    t -= 1
    same(t, [5, 7, 9], _C.int64)
    # torch 2.15: NotImplementedError: Subtraction, the `-` operator, with a bool tensor is not supported. ...
    with pytest.raises(NotImplementedError, match="with a bool tensor is not supported"):
        t -= True
    same(t, [5, 7, 9], _C.int64)


def test_inplace_result_dtype_cannot_be_cast():
    # torch: RuntimeError: result type Float can't be cast to the desired output type Long
    t = _C.tensor([1, 2])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        t /= 2
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        t += 1.5
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Int"):
        u = _C.tensor([1], dtype=_C.int32)
        u *= _C.tensor([1.0])
    assert t.tolist() == [1, 2]


def test_inplace_broadcasts_other_only():
    t = _C.zeros(2, 3)
    t += _C.tensor([1.0, 2.0, 3.0])
    same(t, [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], _C.float32)
    # torch: RuntimeError: output with shape [3] doesn't match the broadcast shape [2, 3]
    v = _C.zeros(3)
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        v += _C.ones(2, 3)


def test_inplace_on_view_writes_base():
    t = _C.zeros(2, 3)
    row = t[1]
    row += 5
    same(t, [[0.0, 0.0, 0.0], [5.0, 5.0, 5.0]], _C.float32)
    col = t[:, 0]
    col *= 2
    same(t, [[0.0, 0.0, 0.0], [10.0, 5.0, 5.0]], _C.float32)
    tt = t.transpose(0, 1)
    tt -= 1
    same(t, [[-1.0, -1.0, -1.0], [9.0, 4.0, 4.0]], _C.float32)


def test_inplace_on_indexed_element():
    t = _C.tensor([[1, 2], [3, 4]])
    t[0] += 10  # __getitem__, __iadd__ on the view, then __setitem__ of the same values
    same(t, [[11, 12], [3, 4]], _C.int64)
    t[1, 1] *= 3
    same(t, [[11, 12], [3, 12]], _C.int64)


def test_inplace_on_expanded_tensor_is_error():
    # torch: RuntimeError: unsupported operation: more than one element of the written-to tensor
    # refers to a single memory location. Please clone() the tensor before performing the operation.
    e = _C.tensor([1, 2]).expand(2, 2)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers to a single memory location"):
        e += 1
    with pytest.raises(RuntimeError, match="single memory location"):
        e.mul_(2)
    # fill_ is exempt from the overlap check in torch
    assert e.fill_(3).tolist() == [[3, 3], [3, 3]]


def test_inplace_with_unsupported_operand():
    t = _C.tensor([1.0])
    with pytest.raises(TypeError):
        t += "a"
    with pytest.raises(TypeError):
        t *= None


def test_inplace_self_aliasing():
    t = _C.tensor([1.0, 2.0, 3.0])
    t *= t
    same(t, [1.0, 4.0, 9.0], _C.float32)
    t -= t
    same(t, [0.0, 0.0, 0.0], _C.float32)


# ---------------------------------------------------------------------------------------------
# in-place methods return self


def test_inplace_methods_return_self():
    t = _C.tensor([1.0, 2.0])
    assert t.add_(1) is t
    same(t, [2.0, 3.0], _C.float32)
    assert t.sub_(_C.tensor([1.0, 1.0]), alpha=2) is t
    same(t, [0.0, 1.0], _C.float32)
    assert t.mul_(4) is t
    same(t, [0.0, 4.0], _C.float32)
    assert t.div_(8) is t
    same(t, [0.0, 0.5], _C.float32)
    assert t.add_(_C.tensor([1.0, 1.0]), alpha=3) is t
    same(t, [3.0, 3.5], _C.float32)
    assert t.zero_() is t
    same(t, [0.0, 0.0], _C.float32)
    assert t.fill_(7) is t
    same(t, [7.0, 7.0], _C.float32)
    assert t.fill_(_C.tensor(2.5)) is t
    same(t, [2.5, 2.5], _C.float32)


def test_div_inplace_rounding_mode():
    t = _C.tensor([7, -7])
    assert t.div_(2, rounding_mode="floor") is t
    same(t, [3, -4], _C.int64)
    t = _C.tensor([7, -7])
    t.div_(2, rounding_mode="trunc")
    same(t, [3, -3], _C.int64)
    with pytest.raises(RuntimeError, match="can't be cast"):
        _C.tensor([7]).div_(2)


def test_fill_converts_to_dtype():
    t = _C.zeros(3, dtype=_C.int32)
    t.fill_(2.9)
    same(t, [2, 2, 2], _C.int32)
    b = _C.zeros(2, dtype=_C.bool)
    b.fill_(5)
    same(b, [True, True], _C.bool)


def test_fill_errors():
    t = _C.zeros(3)
    # torch: RuntimeError: fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions.
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor"):
        t.fill_(_C.tensor([1.0, 2.0, 3.0]))
    with pytest.raises(TypeError):
        t.fill_("a")


def test_inplace_methods_on_views():
    t = _C.zeros(2, 2)
    t[0].fill_(1)
    t[:, 1].add_(5)
    same(t, [[1.0, 6.0], [0.0, 5.0]], _C.float32)
    t.T.mul_(_C.tensor([1.0, 10.0]))  # column scale of t.T == row scale of t
    same(t, [[1.0, 6.0], [0.0, 50.0]], _C.float32)
    t[1].zero_()
    same(t, [[1.0, 6.0], [0.0, 0.0]], _C.float32)


def test_inplace_methods_broadcast_errors():
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        _C.zeros(2).add_(_C.ones(3, 2))
    with pytest.raises(RuntimeError, match="must match"):
        _C.zeros(2).mul_(_C.ones(3))


# ---------------------------------------------------------------------------------------------
# bool() / int() / float() / operator.index()


def test_bool_of_one_element():
    assert bool(_C.tensor([1])) is True
    assert bool(_C.tensor([0.0])) is False
    assert bool(_C.tensor(True)) is True
    assert bool(_C.tensor([[0]])) is False
    assert bool(_C.tensor(float("nan"))) is True
    assert (1 if _C.tensor(2) else 0) == 1


def test_bool_errors():
    # torch: RuntimeError: Boolean value of Tensor with more than one value is ambiguous
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        bool(_C.tensor([1, 2]))
    # torch: RuntimeError: Boolean value of Tensor with no values is ambiguous
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with no values is ambiguous"):
        bool(_C.zeros(0))
    with pytest.raises(RuntimeError, match="ambiguous"):
        if _C.tensor([1, 2]) == _C.tensor([1, 2]):
            pass


def test_int_float_of_one_element():
    assert int(_C.tensor(2.7)) == 2
    assert int(_C.tensor([-2.7])) == -2
    assert type(int(_C.tensor(3.0))) is int
    assert int(_C.tensor([[5]])) == 5
    assert int(_C.tensor(True)) == 1
    assert float(_C.tensor(3)) == 3.0
    assert type(float(_C.tensor(3))) is float
    assert float(_C.tensor([0.5])) == 0.5
    assert float(_C.tensor(True)) == 1.0
    assert int(_C.tensor(2**62)) == 2**62


def test_int_float_errors():
    # torch: ValueError: only one element tensors can be converted to Python scalars
    with pytest.raises(ValueError, match="only one element tensors can be converted to Python scalars"):
        int(_C.tensor([1, 2]))
    with pytest.raises(ValueError, match="only one element tensors can be converted to Python scalars"):
        float(_C.zeros(0))
    with pytest.raises(ValueError):
        int(_C.tensor(float("nan")))
    with pytest.raises(OverflowError):
        int(_C.tensor(float("inf")))


def test_operator_index():
    assert operator.index(_C.tensor(3)) == 3
    assert operator.index(_C.tensor([4], dtype=_C.int8)) == 4
    assert [10, 20, 30][_C.tensor(1)] == 20
    assert list(range(_C.tensor(3))) == [0, 1, 2]
    assert hex(_C.tensor(255)) == "0xff"
    assert "abcd"[_C.tensor(1) : _C.tensor(3)] == "bc"


def test_operator_index_errors():
    # torch: TypeError: only integer tensors of a single element can be converted to an index
    with pytest.raises(TypeError, match="only integer tensors of a single element can be converted to an index"):
        operator.index(_C.tensor(1.0))
    with pytest.raises(TypeError, match="only integer tensors of a single element can be converted to an index"):
        operator.index(_C.tensor([1, 2]))
    with pytest.raises(TypeError):
        [1, 2][_C.tensor(0.0)]


# ---------------------------------------------------------------------------------------------
# len() and iteration


def test_len():
    assert len(_C.zeros(4, 2)) == 4
    assert len(_C.zeros(0)) == 0
    assert len(_C.tensor([1])) == 1
    # torch: TypeError: len() of a 0-d tensor
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(_C.tensor(1))


def test_iteration_yields_views_along_dim0():
    t = _C.arange(6).reshape(3, 2)
    rows = list(t)
    assert len(rows) == 3
    assert [r.tolist() for r in rows] == [[0, 1], [2, 3], [4, 5]]
    rows[1][0] = 20
    assert t[1, 0].item() == 20
    assert [x.item() for x in _C.tensor([7, 8])] == [7, 8]
    assert list(_C.zeros(0)) == []
    a, b = _C.tensor([1.5, 2.5])
    assert a.item() == 1.5 and b.item() == 2.5


def test_iteration_over_zero_dim_is_error():
    # torch: TypeError: iteration over a 0-d tensor
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(_C.tensor(1))


def test_sum_builtin_and_in():
    assert sum(_C.tensor([1, 2, 3])).item() == 6
    t = _C.tensor([1, 2, 3])
    assert (2 in t) is True
    assert (5 in t) is False
