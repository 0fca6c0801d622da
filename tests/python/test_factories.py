"""Factories: zeros/ones/empty/full/arange, the *_like family, _C.tensor() and the legacy
_C.Tensor(...) constructor. Expected values are torch's, written out literally."""

import pytest

import _C
from tensor_asserts import same  # noqa: E402

# ---------------------------------------------------------------------------------------------
# helpers


_PY_TYPE = {True: float, False: int}


ALL_DTYPES = [_C.bool, _C.uint8, _C.int8, _C.int16, _C.int32, _C.int64, _C.float32, _C.float64]

# ---------------------------------------------------------------------------------------------
# zeros / ones / empty


@pytest.mark.parametrize("size_args", [((2, 3),), ([2, 3],), (2, 3)])
def test_zeros_size_forms(size_args):
    t = _C.zeros(*size_args)
    same(t, [[0.0] * 3] * 2, _C.float32)
    assert t.shape == (2, 3)


def test_zeros_size_keyword():
    same(_C.zeros(size=(1, 2)), [[0.0, 0.0]], _C.float32)
    same(_C.ones(size=[3]), [1.0, 1.0, 1.0], _C.float32)


def test_zeros_scalar_shape():
    t = _C.zeros(())
    assert t.shape == ()
    assert t.ndim == 0
    assert t.tolist() == 0.0
    assert type(t.tolist()) is float


def test_zeros_zero_size():
    t = _C.zeros(0)
    assert t.shape == (0,)
    assert t.tolist() == []
    t = _C.zeros(2, 0)
    assert t.shape == (2, 0)
    assert t.tolist() == [[], []]
    assert t.numel() == 0


def test_zeros_ones_dtypes():
    for dtype in ALL_DTYPES:
        z = _C.zeros(2, dtype=dtype)
        o = _C.ones(2, dtype=dtype)
        if dtype is _C.bool:
            same(z, [False, False], dtype)
            same(o, [True, True], dtype)
        elif dtype.is_floating_point:
            same(z, [0.0, 0.0], dtype)
            same(o, [1.0, 1.0], dtype)
        else:
            same(z, [0, 0], dtype)
            same(o, [1, 1], dtype)


def test_ones_values_and_shape():
    same(_C.ones(2, 2), [[1.0, 1.0], [1.0, 1.0]], _C.float32)
    same(_C.ones((3,), dtype=_C.int64), [1, 1, 1], _C.int64)


def test_empty_is_zero_filled():
    # Deliberate difference: torch.empty leaves memory uninitialised; tensorbind zero-fills it.
    same(_C.empty(2, 3), [[0.0] * 3] * 2, _C.float32)
    same(_C.empty((4,), dtype=_C.int32), [0, 0, 0, 0], _C.int32)
    assert _C.empty(0).shape == (0,)


def test_factories_python_type_dtypes():
    # torch accepts the Python types float/int/bool as dtypes (float -> float64, int -> int64).
    same(_C.zeros(2, dtype=float), [0.0, 0.0], _C.float64)
    same(_C.ones(2, dtype=int), [1, 1], _C.int64)
    same(_C.ones(2, dtype=bool), [True, True], _C.bool)


def test_factories_dtype_none_is_default():
    same(_C.zeros(2, dtype=None), [0.0, 0.0], _C.float32)


def test_zeros_negative_size():
    # torch: RuntimeError: Trying to create tensor with negative dimension -1: [-1]
    with pytest.raises(RuntimeError, match="negative dimension"):
        _C.zeros(-1)
    with pytest.raises(RuntimeError, match="negative dimension"):
        _C.ones(2, -3)


def test_factories_are_contiguous_and_fresh():
    a = _C.zeros(2, 3)
    b = _C.zeros(2, 3)
    assert a.is_contiguous()
    assert a.stride() == (3, 1)
    a[0, 0] = 5
    assert b.tolist() == [[0.0] * 3] * 2


# ---------------------------------------------------------------------------------------------
# full


@pytest.mark.parametrize(
    "value, dtype, expected",
    [
        (7, _C.int64, [7, 7]),
        (1.5, _C.float32, [1.5, 1.5]),
        (True, _C.bool, [True, True]),
        (-2, _C.int64, [-2, -2]),
    ],
)
def test_full_infers_dtype_from_value(value, dtype, expected):
    same(_C.full((2,), value), expected, dtype)


def test_full_with_dtype():
    same(_C.full((2, 2), 3, dtype=_C.float64), [[3.0, 3.0], [3.0, 3.0]], _C.float64)
    # float -> int conversion truncates toward zero, as a C cast
    same(_C.full((2,), 2.7, dtype=_C.int32), [2, 2], _C.int32)
    same(_C.full((2,), -2.7, dtype=_C.int64), [-2, -2], _C.int64)
    same(_C.full((1,), 0.5, dtype=_C.bool), [True], _C.bool)
    same(_C.full((1,), 0, dtype=_C.bool), [False], _C.bool)


def test_full_value_out_of_range_for_dtype():
    # torch: RuntimeError: value cannot be converted to type uint8_t without overflow
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
        _C.full((2,), 256, dtype=_C.uint8)
    with pytest.raises(RuntimeError, match="without overflow"):
        _C.full((2,), 2**40, dtype=_C.int32)
    # NaN has no integer value: torch: value cannot be converted to type int64_t without overflow
    with pytest.raises(RuntimeError, match="without overflow"):
        _C.full((2,), float("nan"), dtype=_C.int64)
    same(_C.full((1,), 255, dtype=_C.uint8), [255], _C.uint8)
    same(_C.full((1,), -128, dtype=_C.int8), [-128], _C.int8)


def test_full_keywords_and_scalar_shape():
    same(_C.full(size=(1, 2), fill_value=4), [[4, 4]], _C.int64)
    t = _C.full((), 2.5)
    assert t.shape == ()
    assert t.item() == 2.5


def test_full_zero_dim_tensor_as_value():
    # A 0-dim tensor binds to a Scalar parameter.
    same(_C.full((2,), _C.tensor(3.5)), [3.5, 3.5], _C.float32)
    same(_C.full((2,), _C.tensor(4)), [4, 4], _C.int64)


def test_full_errors():
    with pytest.raises(TypeError):
        _C.full((2,), "a")
    with pytest.raises(TypeError):
        _C.full((2,))  # missing fill_value
    with pytest.raises(TypeError, match="Number"):
        _C.full((2,), _C.tensor([1, 2]))  # a 1-D tensor is not a Scalar


# ---------------------------------------------------------------------------------------------
# arange


ARANGE_CASES = [
    ((5,), {}, [0, 1, 2, 3, 4], _C.int64),
    ((1, 4), {}, [1, 2, 3], _C.int64),
    ((0, 10, 3), {}, [0, 3, 6, 9], _C.int64),
    ((10, 0, -3), {}, [10, 7, 4, 1], _C.int64),
    ((0, 1, 0.25), {}, [0.0, 0.25, 0.5, 0.75], _C.float32),
    ((3.0,), {}, [0.0, 1.0, 2.0], _C.float32),
    ((0.5, 3), {}, [0.5, 1.5, 2.5], _C.float32),
    ((4,), {"dtype": _C.float64}, [0.0, 1.0, 2.0, 3.0], _C.float64),
    ((1, 3), {"dtype": _C.int32}, [1, 2], _C.int32),
    ((0,), {}, [], _C.int64),
    ((), {"end": 3}, [0, 1, 2], _C.int64),
    ((), {"start": 2, "end": 4}, [2, 3], _C.int64),
    ((0, 6), {"step": 2}, [0, 2, 4], _C.int64),
    ((-3, 0), {}, [-3, -2, -1], _C.int64),
]


def test_arange():
    for args, kwargs, expected, dtype in ARANGE_CASES:
        t = _C.arange(*args, **kwargs)
        assert t.ndim == 1, (args, kwargs)
        try:
            same(t, expected, dtype)
        except AssertionError as e:
            raise AssertionError(f"arange(*{args}, **{kwargs}): {e}") from None


def test_arange_float_step_length():
    # torch: ceil((end - start) / step) elements
    t = _C.arange(0, 1, 0.1)
    assert t.shape == (10,)
    assert t.tolist()[-1] == pytest.approx(0.9, rel=1e-6)


def test_arange_zero_dim_tensor_bounds():
    same(_C.arange(_C.tensor(3)), [0, 1, 2], _C.int64)


def test_arange_errors():
    # torch: RuntimeError: step must be nonzero
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        _C.arange(0, 5, 0)
    # torch: RuntimeError: upper bound and larger bound inconsistent with step sign
    with pytest.raises(RuntimeError, match="inconsistent with step sign"):
        _C.arange(5, 0, 1)
    with pytest.raises(RuntimeError, match="inconsistent with step sign"):
        _C.arange(0, 5, -1)
    with pytest.raises(TypeError):
        _C.arange("5")
    with pytest.raises(TypeError):
        _C.arange(1, 2, 3, 4)


# ---------------------------------------------------------------------------------------------
# *_like


@pytest.mark.parametrize("dtype", [_C.int32, _C.float64, _C.bool, _C.uint8])
def test_like_factories_keep_shape_and_dtype(dtype):
    src = _C.ones(2, 3, dtype=dtype)
    for f in (_C.zeros_like, _C.ones_like, _C.empty_like):
        r = f(src)
        assert r.shape == (2, 3)
        assert r.dtype is dtype
        assert r is not src
    zero = False if dtype is _C.bool else 0.0 if dtype.is_floating_point else 0
    one = True if dtype is _C.bool else 1.0 if dtype.is_floating_point else 1
    same(_C.zeros_like(src), [[zero] * 3] * 2, dtype)
    same(_C.ones_like(src), [[one] * 3] * 2, dtype)
    same(_C.empty_like(src), [[zero] * 3] * 2, dtype)  # zero-filled (deliberate)


def test_like_factories_dtype_override():
    src = _C.tensor([1, 2, 3])
    same(_C.zeros_like(src, dtype=_C.float64), [0.0, 0.0, 0.0], _C.float64)
    same(_C.ones_like(src, dtype=_C.bool), [True, True, True], _C.bool)
    same(_C.full_like(src, 2, dtype=_C.float32), [2.0, 2.0, 2.0], _C.float32)
    same(_C.ones_like(src, dtype=float), [1.0, 1.0, 1.0], _C.float64)


def test_full_like():
    same(_C.full_like(_C.zeros(2, 2), 7), [[7.0, 7.0], [7.0, 7.0]], _C.float32)
    # the value is converted to the input's dtype: 2.7 -> 2 for an int64 tensor
    same(_C.full_like(_C.tensor([1, 2]), 2.7), [2, 2], _C.int64)
    same(_C.full_like(_C.tensor([1.0]), True), [1.0], _C.float32)


def test_like_factories_of_non_contiguous_input():
    src = _C.arange(6).reshape(2, 3).transpose(0, 1)
    r = _C.zeros_like(src)
    assert r.shape == (3, 2)
    same(r, [[0, 0], [0, 0], [0, 0]], _C.int64)


def test_like_factories_of_scalar():
    r = _C.ones_like(_C.tensor(5.0))
    assert r.shape == ()
    assert r.item() == 1.0


def test_like_factories_errors():
    with pytest.raises(TypeError):
        _C.zeros_like([1, 2])
    with pytest.raises(TypeError):
        _C.zeros_like(3)


# ---------------------------------------------------------------------------------------------
# _C.tensor


INFER_CASES = [
    ([1, 2, 3], [1, 2, 3], _C.int64),
    ([1.0, 2.5], [1.0, 2.5], _C.float32),
    ([True, False], [True, False], _C.bool),
    ([1, 2.5], [1.0, 2.5], _C.float32),
    ([True, 2], [1, 2], _C.int64),
    ([True, 2.5], [1.0, 2.5], _C.float32),
    ([[1, 2], [3, 4]], [[1, 2], [3, 4]], _C.int64),
    (((1, 2), (3, 4)), [[1, 2], [3, 4]], _C.int64),
    ([(1, 2), [3, 4]], [[1, 2], [3, 4]], _C.int64),
    ([[[1.0]], [[2.0]]], [[[1.0]], [[2.0]]], _C.float32),
    ([-(2**62), 2**62], [-(2**62), 2**62], _C.int64),
]


def test_tensor_infers_dtype():
    for data, expected, dtype in INFER_CASES:
        try:
            same(_C.tensor(data), expected, dtype)
        except AssertionError as e:
            raise AssertionError(f"tensor({data!r}): {e}") from None


@pytest.mark.parametrize(
    "value, dtype",
    [(3, _C.int64), (2.5, _C.float32), (True, _C.bool), (False, _C.bool)],
)
def test_tensor_from_number_is_zero_dim(value, dtype):
    t = _C.tensor(value)
    assert t.shape == ()
    assert t.dtype is dtype
    assert t.item() == value
    assert type(t.item()) is type(value)


def test_tensor_empty_lists():
    t = _C.tensor([])
    assert t.shape == (0,)
    assert t.dtype is _C.float32
    t = _C.tensor([[]])
    assert t.shape == (1, 0)
    t = _C.tensor([[], []])
    assert t.shape == (2, 0)
    assert t.tolist() == [[], []]


def test_tensor_with_dtype():
    for dtype in ALL_DTYPES:
        t = _C.tensor([0, 1, 2], dtype=dtype)
        if dtype is _C.bool:
            same(t, [False, True, True], dtype)
        elif dtype.is_floating_point:
            same(t, [0.0, 1.0, 2.0], dtype)
        else:
            same(t, [0, 1, 2], dtype)


def test_tensor_with_dtype_converts():
    same(_C.tensor([1.7, -1.7], dtype=_C.int32), [1, -1], _C.int32)
    same(_C.tensor(1.5, dtype=_C.int64), 1, _C.int64)
    same(_C.tensor([0.0, 0.5], dtype=_C.bool), [False, True], _C.bool)
    same(_C.tensor([1, 2], dtype=float), [1.0, 2.0], _C.float64)
    same(_C.tensor([0.1], dtype=_C.float64), [0.1], _C.float64)
    assert _C.tensor([0.1], dtype=_C.float64).tolist() == [0.1]  # exact in float64


def test_tensor_with_dtype_value_out_of_range():
    # torch: RuntimeError: value cannot be converted to type uint8 without overflow
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8 without overflow"):
        _C.tensor([300], dtype=_C.uint8)
    with pytest.raises(RuntimeError, match="without overflow"):
        _C.tensor([1, -129], dtype=_C.int8)
    same(_C.tensor([255, 0], dtype=_C.uint8), [255, 0], _C.uint8)


def test_tensor_float32_rounds():
    # 0.1 is stored as float32: tolist returns the float32 value widened to double
    v = _C.tensor([0.1]).tolist()[0]
    assert v != 0.1
    assert v == pytest.approx(0.1, rel=1e-7)


def test_tensor_from_tensor_copies():
    src = _C.tensor([1, 2, 3])
    with pytest.warns(UserWarning, match="^To copy construct from a tensor"):  # torch's; test_warnings.py
        t = _C.tensor(src)
    same(t, [1, 2, 3], _C.int64)
    assert t is not src
    t[0] = 10
    assert src.tolist() == [1, 2, 3]
    with pytest.warns(UserWarning, match="^To copy construct from a tensor"):
        same(_C.tensor(src, dtype=_C.float64), [1.0, 2.0, 3.0], _C.float64)


def test_tensor_from_list_of_scalar_tensors():
    same(_C.tensor([_C.tensor(1), _C.tensor(2)]), [1, 2], _C.int64)
    same(_C.tensor([[_C.tensor(1.5)], [2.0]]), [[1.5], [2.0]], _C.float32)


def test_tensor_ragged_is_value_error():
    # torch: ValueError: expected sequence of length 2 at dim 1 (got 1)
    with pytest.raises(ValueError, match=r"expected sequence of length 2 at dim 1 \(got 1\)"):
        _C.tensor([[1, 2], [3]])
    with pytest.raises(ValueError):
        _C.tensor([[1, 2], 3])
    with pytest.raises(ValueError):
        _C.tensor([1, [2, 3]])
    with pytest.raises(ValueError):
        _C.tensor([[[1], [2]], [[3], [4, 5]]])


def test_tensor_invalid_element_is_type_error():
    # torch: TypeError: new(): invalid data type 'str'
    with pytest.raises(TypeError, match="invalid data type 'str'"):
        _C.tensor([1, "a"])
    with pytest.raises(TypeError):
        _C.tensor("abc")
    with pytest.raises(TypeError):
        _C.tensor([object()])


def test_tensor_none_data():
    # torch: RuntimeError: Could not infer dtype of NoneType
    with pytest.raises(RuntimeError, match="NoneType"):
        _C.tensor(None)


def test_tensor_multi_element_tensor_inside_list():
    with pytest.raises((ValueError, TypeError)):
        _C.tensor([_C.tensor([1, 2]), 3])


def test_tensor_keyword_data_and_errors():
    same(_C.tensor(data=[1, 2]), [1, 2], _C.int64)
    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        _C.tensor([1], foo=1)
    with pytest.raises(TypeError):
        _C.tensor()
    with pytest.raises(TypeError):
        _C.tensor([1], _C.float32)  # dtype is keyword-only
    with pytest.raises(TypeError, match="dtype"):
        _C.tensor([1], dtype="float32")


def test_tensor_sequence_mutated_is_safe():
    data = [[1, 2], [3, 4]]
    t = _C.tensor(data)
    data[0][0] = 100
    assert t.tolist() == [[1, 2], [3, 4]]


# ---------------------------------------------------------------------------------------------
# the legacy constructor _C.Tensor(...)


def test_legacy_tensor_constructor_from_data():
    same(_C.Tensor([1, 2]), [1.0, 2.0], _C.float32)
    same(_C.Tensor([[1, 2], [3, 4]]), [[1.0, 2.0], [3.0, 4.0]], _C.float32)
    same(_C.Tensor([True, False]), [1.0, 0.0], _C.float32)


def test_legacy_tensor_constructor_sizes():
    t = _C.Tensor(2, 3)
    assert t.shape == (2, 3)
    assert t.dtype is _C.float32
    assert t.tolist() == [[0.0] * 3] * 2  # zero-filled (torch: uninitialised)
    t = _C.Tensor()
    assert t.shape == (0,)
    assert t.dtype is _C.float32
    assert _C.Tensor(4).shape == (4,)


def test_legacy_tensor_constructor_errors():
    # torch: TypeError: new(): data must be a sequence (got float)
    with pytest.raises(TypeError, match=r"must be a sequence \(got float\)"):
        _C.Tensor(3.5)
    with pytest.raises(TypeError, match=r"must be a sequence \(got bool\)"):
        _C.Tensor(True)
    with pytest.raises(TypeError):
        _C.Tensor(2, "a")
    with pytest.raises(TypeError):
        _C.Tensor(data=[1])
    with pytest.raises(ValueError):
        _C.Tensor([[1], [2, 3]])
