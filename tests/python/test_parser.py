"""The argument parser (PythonArgParser): how arguments bind to signatures and the TypeErrors it
raises — wrong type, unknown keyword, too many / missing arguments, keyword-only passed
positionally, multiple values, the overload-combination message, varargs int lists, bool vs int,
0-dim tensors as Scalars, dtype arguments. Messages follow torch's python_arg_parser texts."""

import pytest

import _C


def t3():
    return _C.tensor([1.0, 2.0, 3.0])


# ---------------------------------------------------------------------------------------------
# wrong type


def test_wrong_type_positional_names_position():
    # torch: TypeError: add(): argument 'other' (position 2) must be Tensor, not str
    with pytest.raises(TypeError, match=r"^add\(\): argument 'other' \(position 2\) must be Tensor, not str$"):
        _C.add(t3(), "a")


def test_wrong_type_keyword_has_no_position():
    # torch: TypeError: add(): argument 'alpha' must be Number, not str
    with pytest.raises(TypeError, match=r"^add\(\): argument 'alpha' must be Number, not str$"):
        _C.add(t3(), t3(), alpha="x")


def test_wrong_type_first_argument():
    with pytest.raises(TypeError, match=r"zeros_like\(\): argument 'input' \(position 1\) must be Tensor, not list"):
        _C.zeros_like([1, 2])


def test_wrong_type_method():
    # the method variant counts positions after self
    with pytest.raises(TypeError, match=r"transpose\(\): argument 'dim1' \(position 2\) must be int, not str"):
        t3().transpose(0, "1")


def test_none_for_required_tensor():
    with pytest.raises(TypeError, match=r"must be Tensor, not NoneType"):
        _C.add(t3(), None)


def test_sequence_description_in_message():
    # torch describes sequences element-wise: "tuple of (int, str)"
    with pytest.raises(TypeError, match=r"must be tuple of ints, but found element of type str at pos 1"):
        _C.zeros((2, "a"))


# ---------------------------------------------------------------------------------------------
# keywords


def test_unknown_keyword():
    # torch: TypeError: add() got an unexpected keyword argument 'foo'
    with pytest.raises(TypeError, match=r"^add\(\) got an unexpected keyword argument 'foo'$"):
        _C.add(t3(), t3(), foo=1)
    with pytest.raises(TypeError, match=r"zeros_like\(\) got an unexpected keyword argument 'dtyp'"):
        _C.zeros_like(t3(), dtyp=_C.float64)


def test_keywords_for_positional_parameters():
    a, b = t3(), t3()
    assert _C.add(input=a, other=b).tolist() == [2.0, 4.0, 6.0]
    assert _C.add(a, other=b, alpha=2).tolist() == [3.0, 6.0, 9.0]
    assert a.add(other=b).tolist() == [2.0, 4.0, 6.0]
    assert _C.transpose(input=_C.zeros(2, 3), dim1=0, dim0=1).shape == (3, 2)


def test_keyword_names_need_not_be_interned():
    name = "".join(["oth", "er"])  # a fresh str object, equal but not identical to 'other'
    kwargs = {name: t3()}
    assert _C.add(t3(), **kwargs).tolist() == [2.0, 4.0, 6.0]


def test_multiple_values():
    # torch: TypeError: add() got multiple values for argument 'other'
    with pytest.raises(TypeError, match=r"^add\(\) got multiple values for argument 'other'$"):
        _C.add(t3(), t3(), other=t3())
    with pytest.raises(TypeError, match=r"got multiple values for argument 'input'"):
        _C.zeros_like(t3(), input=t3())


def test_keyword_only_passed_positionally():
    # alpha is keyword-only: torch: TypeError: add() takes 2 positional arguments but 3 were given
    with pytest.raises(TypeError, match=r"^add\(\) takes 2 positional arguments but 3 were given$"):
        _C.add(t3(), t3(), 2)
    # dtype is keyword-only
    with pytest.raises(TypeError, match=r"zeros_like\(\) takes 1 positional argument but 2 were given"):
        _C.zeros_like(t3(), _C.float64)


def test_out_is_keyword_only():
    with pytest.raises(TypeError, match="positional"):
        _C.neg(t3(), _C.zeros(3))


# ---------------------------------------------------------------------------------------------
# counts


def test_too_many_positional():
    with pytest.raises(TypeError, match=r"^zeros_like\(\) takes 1 positional argument but 2 were given$"):
        _C.zeros_like(t3(), t3())
    # a range of arities: torch: "takes from 1 to 3 positional arguments but 4 were given"
    with pytest.raises(TypeError, match=r"takes from 1 to 3 positional arguments but 4 were given"):
        _C.flatten(t3(), 0, 0, 0)
    with pytest.raises(TypeError, match=r"neg\(\) takes 0 positional arguments but 1 was given"):
        t3().neg(1)


def test_missing_argument():
    # torch's text (singular fixed): add() missing 1 required positional argument: "other"
    with pytest.raises(TypeError, match=r'^add\(\) missing 1 required positional argument: "other"$'):
        _C.add(t3())
    with pytest.raises(TypeError, match=r'missing 2 required positional arguments: "dim0", "dim1"'):
        _C.transpose(t3())
    with pytest.raises(TypeError, match=r'missing 1 required positional argument: "input"'):
        _C.neg()


def test_no_arguments_method():
    assert t3().neg().tolist() == [-1.0, -2.0, -3.0]
    with pytest.raises(TypeError, match="unexpected keyword argument 'x'"):
        t3().neg(x=1)


# ---------------------------------------------------------------------------------------------
# overloads


def test_overload_combination_message():
    # torch: TypeError: sum() received an invalid combination of arguments - got (Tensor, str),
    # but expected one of:
    #  * (Tensor input, *, torch.dtype dtype = None)
    #  * (Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)
    with pytest.raises(TypeError) as info:
        _C.sum(t3(), "a")
    msg = str(info.value)
    lines = msg.split("\n")
    assert lines[0] == "sum() received an invalid combination of arguments - got (Tensor, str), but expected one of:"
    assert len(lines) == 3
    assert lines[1].startswith(" * (Tensor input, *, ")
    assert "_C.dtype dtype = None" in lines[1]
    assert lines[2].startswith(" * (Tensor input, tuple of ints dim, bool keepdim = False, *, ")
    assert "Tensor out = None" in lines[2]


def test_overload_combination_describes_keywords_and_sequences():
    with pytest.raises(TypeError) as info:
        _C.arange("a", dtype="b")
    first = str(info.value).split("\n")[0]
    assert first == "arange() received an invalid combination of arguments - got (str, dtype=str), but expected one of:"
    assert str(info.value).count("\n * ") == 3
    with pytest.raises(TypeError) as info:
        _C.sum(t3(), [0, "x"])
    assert "got (Tensor, list of [int, str])" in str(info.value)


def test_overloads_tried_in_order():
    x = _C.tensor([[1, 2], [3, 4]])
    assert _C.sum(x).tolist() == 10  # first overload
    assert _C.sum(x, 0).tolist() == [4, 6]  # second overload
    assert _C.sum(x, dtype=_C.float64).dtype is _C.float64
    assert _C.arange(3).tolist() == [0, 1, 2]
    assert _C.arange(1, 3).tolist() == [1, 2]
    assert _C.arange(1, 7, 2).tolist() == [1, 3, 5]
    assert x.size() == (2, 2)
    assert x.size(1) == 2


# ---------------------------------------------------------------------------------------------
# int lists and varargs


def test_varargs_int_list():
    assert _C.zeros(2, 3).shape == (2, 3)
    assert _C.zeros((2, 3)).shape == (2, 3)
    assert _C.zeros([2, 3]).shape == (2, 3)
    assert _C.zeros(4).shape == (4,)
    # lists held in place (up to 8 values) and on the heap (more)
    for n in (8, 9, 12):
        assert _C.zeros((1,) * n).shape == (1,) * n
        assert _C.zeros(*([1] * n)).shape == (1,) * n
        t = _C.ones((1,) * n)
        assert t.sum(dim=list(range(n))).item() == 1.0
        assert t.permute(*reversed(range(n))).shape == (1,) * n
    assert _C.zeros(2, 3, dtype=_C.int32).dtype is _C.int32
    assert _C.ones(1, 1, 1, 1).shape == (1, 1, 1, 1)
    x = _C.arange(6)
    assert x.view(2, 3).shape == (2, 3)
    assert x.reshape(3, 2).shape == (3, 2)
    assert x.view(2, 3).permute(1, 0).shape == (3, 2)
    assert _C.tensor([1]).expand(2, 3).shape == (2, 3)


def test_varargs_int_list_element_error():
    # torch: TypeError: zeros(): argument 'size' must be tuple of ints, but found element of type str at pos 1
    with pytest.raises(TypeError, match=r"zeros\(\): argument 'size' must be tuple of ints, but found element of type str at pos 1"):
        _C.zeros(2, "a")
    with pytest.raises(TypeError, match=r"found element of type float at pos 0"):
        _C.zeros((2.0, 3))


def test_int_list_accepts_zero_dim_int_tensors():
    assert _C.zeros(_C.tensor(2), 3).shape == (2, 3)
    assert _C.zeros((_C.tensor(2), _C.tensor(1))).shape == (2, 1)
    with pytest.raises(TypeError):
        _C.zeros(_C.tensor(2.0))


def test_int_n_accepts_lone_int():
    # int[1] dim: a lone int, a tuple or a list
    x = _C.ones(2, 3)
    assert x.sum(1).tolist() == [3.0, 3.0]
    assert x.sum((1,)).tolist() == [3.0, 3.0]
    assert x.sum([1]).tolist() == [3.0, 3.0]


def test_int_list_rejects_other_types():
    with pytest.raises(TypeError, match=r"zeros\(\): argument 'size' \(position 1\) must be tuple of ints, not str"):
        _C.zeros("3")
    with pytest.raises(TypeError, match=r"must be tuple of ints, not float"):
        _C.zeros(2.5)


def test_int_overflow():
    with pytest.raises((OverflowError, RuntimeError)):
        _C.zeros(2**70)


# ---------------------------------------------------------------------------------------------
# bool / int / float / Scalar binding


def test_bool_does_not_bind_to_int():
    # torch: TypeError: transpose(): argument 'dim0' (position 1) must be int, not bool
    with pytest.raises(TypeError, match=r"transpose\(\): argument 'dim0' \(position 1\) must be int, not bool"):
        _C.zeros(2, 3).transpose(True, 0)
    # torch: TypeError: zeros(): argument 'size' (position 1) must be tuple of ints, not bool
    with pytest.raises(TypeError, match=r"zeros\(\): argument 'size' \(position 1\) must be tuple of ints, not bool"):
        _C.zeros(True)
    with pytest.raises(TypeError):
        _C.zeros((2, False))
    with pytest.raises(TypeError):
        _C.ones(2, 3).select(0, True)


def test_int_does_not_bind_to_bool():
    # torch: TypeError: sum(): argument 'keepdim' must be bool, not int (no overload matches)
    with pytest.raises(TypeError):
        _C.ones(2).sum(0, keepdim=1)
    with pytest.raises(TypeError):
        _C.ones(2).to(_C.float32, copy=1)
    # a 0-dim bool tensor binds to bool
    assert _C.ones(2, 2).sum(0, keepdim=_C.tensor(True)).shape == (1, 2)


def test_int_binds_to_float_and_scalar():
    # Scalar parameters take bool, int, float or a 0-dim tensor, keeping the Python type
    assert _C.full((1,), 3).dtype is _C.int64
    assert _C.full((1,), 3.0).dtype is _C.float32
    assert _C.full((1,), True).dtype is _C.bool
    # an int where a floating value is used: full_like on a float tensor gives 2.0
    r = _C.full_like(_C.zeros(2), 2)
    assert r.tolist() == [2.0, 2.0]
    # alpha (Scalar) with an int for float tensors
    assert _C.add(_C.tensor([1.0]), _C.tensor([1.0]), alpha=3).tolist() == [4.0]


def test_zero_dim_tensor_binds_to_scalar():
    assert _C.add(_C.tensor([1]), _C.tensor([1]), alpha=_C.tensor(5)).tolist() == [6]
    assert _C.full((2,), _C.tensor(1.5)).tolist() == [1.5, 1.5]
    assert _C.arange(_C.tensor(2), 4).tolist() == [2, 3]
    # but a 1-element 1-D tensor is not a Scalar
    with pytest.raises(TypeError, match=r"argument 'alpha' must be Number, not Tensor"):
        _C.add(_C.tensor([1]), _C.tensor([1]), alpha=_C.tensor([5]))


def test_zero_dim_int_tensor_binds_to_int():
    x = _C.arange(6).reshape(2, 3)
    assert x.select(_C.tensor(1), _C.tensor(2)).tolist() == [2, 5]
    assert x.transpose(_C.tensor(0), 1).shape == (3, 2)
    with pytest.raises(TypeError):
        x.select(0, _C.tensor(1.0))
    with pytest.raises(TypeError):
        x.select(0, _C.tensor([1]))


def test_numbers_as_tensors_only_where_allowed():
    # add allows numbers for Tensor parameters (wrapped numbers); dot does not
    assert _C.add(_C.tensor([1]), 2).tolist() == [3]
    with pytest.raises(TypeError, match=r"dot\(\): argument 'other' \(position 2\) must be Tensor, not int"):
        _C.dot(_C.tensor([1]), 2)
    with pytest.raises(TypeError, match="must be Tensor, not float"):
        _C.exp(1.0)


# ---------------------------------------------------------------------------------------------
# dtype arguments


DTYPE_ARGS = [
    (_C.float64, _C.float64),
    (_C.int32, _C.int32),
    (_C.double, _C.float64),
    (float, _C.float64),
    (int, _C.int64),
    (bool, _C.bool),
    (None, _C.float32),
]


def test_dtype_argument_forms():
    for arg, dtype in DTYPE_ARGS:
        assert _C.zeros(2, dtype=arg).dtype is dtype, arg
        assert _C.ones_like(_C.zeros(2), dtype=arg).dtype is dtype, arg


def test_dtype_argument_errors():
    # torch: TypeError: zeros(): argument 'dtype' must be torch.dtype, not str
    with pytest.raises(TypeError, match=r"zeros\(\): argument 'dtype' must be _C.dtype, not str"):
        _C.zeros(2, dtype="float32")
    with pytest.raises(TypeError, match=r"must be _C.dtype, not type"):
        _C.zeros(2, dtype=complex)
    with pytest.raises(TypeError, match=r"must be _C.dtype, not int"):
        _C.zeros(2, dtype=1)


# ---------------------------------------------------------------------------------------------
# tensor lists and strings


def test_tensor_list_arguments():
    a = _C.tensor([1])
    assert _C.cat([a, a]).tolist() == [1, 1]
    assert _C.cat((a, a)).tolist() == [1, 1]
    with pytest.raises(TypeError, match="cat"):
        _C.cat([a, 1])
    with pytest.raises(TypeError, match="cat"):
        _C.cat(a)
    with pytest.raises(TypeError, match="stack"):
        _C.stack([a, "x"])


def test_str_argument():
    x = _C.tensor([7])
    assert _C.div(x, 2, rounding_mode="floor").tolist() == [3]
    assert _C.div(x, 2, rounding_mode=None).tolist() == [3.5]
    with pytest.raises(TypeError, match=r"argument 'rounding_mode' must be str, not int"):
        _C.div(x, 2, rounding_mode=1)


def test_errors_leave_no_exception_state():
    # after a failed parse the next call works normally
    for _ in range(3):
        with pytest.raises(TypeError):
            _C.add(t3(), "a")
        assert _C.add(t3(), 1).tolist() == [2.0, 3.0, 4.0]


# ---------------------------------------------------------------------------------------------
# the positional fast path (single signature, no keywords): it must bind exactly as the generic
# matcher does, and leave every message to it


def test_fast_path_positional_equals_keyword_binding():
    a, b = _C.tensor([1.0, 2.0]), _C.tensor([10.0, 20.0])
    assert _C.add(a, b).tolist() == _C.add(input=a, other=b).tolist() == [11.0, 22.0]
    assert _C.sub(a, b).tolist() == _C.sub(a, b, alpha=1).tolist() == [-9.0, -18.0]
    # the precomputed default alpha=1, for the function and the method
    assert a.add(b).tolist() == [11.0, 22.0]
    assert a.sub(b).tolist() == [-9.0, -18.0]
    assert _C.add(a, b, alpha=2).tolist() == [21.0, 42.0]
    assert _C.add(a, b, alpha=0.5).tolist() == [6.0, 12.0]


def test_fast_path_numbers_for_tensor_parameters():
    a = _C.tensor([1, 2])
    r = _C.add(a, 2)
    assert r.dtype == _C.int64 and r.tolist() == [3, 4]
    r = _C.add(a, 2.5)
    assert r.dtype == _C.float32 and r.tolist() == [3.5, 4.5]
    r = _C.add(a, True)
    assert r.dtype == _C.int64 and r.tolist() == [2, 3]
    # zero-dim tensors and numbers both bind to a Scalar parameter positionally
    assert _C.full((2,), _C.tensor(3)).tolist() == [3, 3]
    assert _C.full((2,), 1.5).tolist() == [1.5, 1.5]


def test_fast_path_int_list_forms():
    for args in [((2, 3),), ([2, 3],), (2, 3), (_C.tensor(2), 3)]:
        z = _C.zeros(*args)
        assert z.shape == (2, 3) and z.dtype == _C.float32 and z.tolist() == [[0.0] * 3] * 2
    assert _C.zeros(()).shape == ()
    assert _C.zeros([]).shape == ()
    assert _C.zeros(4).shape == (4,)
    with pytest.raises(TypeError, match=r"^zeros\(\): argument 'size' \(position 1\) must be tuple of ints, but found element of type str at pos 1$"):
        _C.zeros((2, "a"))
    with pytest.raises(TypeError, match=r"^zeros\(\): argument 'size' must be tuple of ints, but found element of type str at pos 1$"):
        _C.zeros(2, "a")


def test_fast_path_leaves_messages_to_the_generic_matcher():
    a = t3()
    with pytest.raises(TypeError, match=r"^add\(\) takes 2 positional arguments but 3 were given$"):
        _C.add(a, a, 1)
    with pytest.raises(TypeError, match=r'^add\(\) missing 1 required positional argument: "other"$'):
        _C.add(a)
    with pytest.raises(TypeError, match=r"^add\(\): argument 'input' \(position 1\) must be Tensor, not list of \[float\]$"):
        _C.add([1.0], a)
    with pytest.raises(TypeError, match=r"^add\(\): argument 'other' \(position 2\) must be Tensor, not NoneType$"):
        _C.add(a, None)
    with pytest.raises(TypeError, match=r"^add\(\): argument 'other' \(position 1\) must be Tensor, not str$"):
        a.add("x")


def test_fast_path_subclass_arguments_still_dispatch_in_torch_order():
    log = []

    class Base(_C.Tensor):
        pass

    class Derived(Base):
        @classmethod
        def __tensorbind_function__(cls, func, types, args=(), kwargs=None):
            log.append([t.__name__ for t in types])
            return super().__tensorbind_function__(func, types, args, kwargs)

    b, d = Base([1.0]), Derived([2.0])
    # positional, no keywords: the fast path's candidates, sent to the protocol
    r = _C.add(b, d)
    assert type(r) is Derived and r.tolist() == [3.0]
    assert log == [["Derived", "Base"]]
    log.clear()
    assert type(b.add(d)) is Derived  # method: self first, then the subclass ordering
    assert log == [["Derived", "Base"]]
    log.clear()
    # a plain tensor argument never overrides; tensor lists are scanned item by item
    assert type(_C.cat([_C.tensor([0.0]), d])) is Derived
    assert log == [["Derived"]]
    log.clear()
    assert type(_C.einsum("i,i->", _C.tensor([1.0]), d)) is Derived
    assert log == [["Derived"]]


def test_fast_path_borrows_arguments():
    import sys

    if not hasattr(sys, "getrefcount"):
        pytest.skip("no refcounts")
    a, b = _C.tensor([1.0]), _C.tensor([2.0])
    ra, rb = sys.getrefcount(a), sys.getrefcount(b)
    for _ in range(100):
        _C.add(a, b)
        a.add(b)
        _C.zeros((2, 3))
    assert (sys.getrefcount(a), sys.getrefcount(b)) == (ra, rb)
