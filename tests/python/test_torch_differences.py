"""tests/python/test_torch_differences.py: the differences from torch that `make conformance`
(tests/conformance/) found, fixed; every expected value and text here was printed by torch 2.15.
"""

import pytest

import _C
from tensor_asserts import same


def f23():
    return _C.arange(6.0).reshape(2, 3)


def test_max_min_with_a_0_dim_integer_tensor_is_elementwise():
    # torch.max(t, tensor(6)): the `other` overload comes before `dim` (torch's order).
    t = _C.arange(6).reshape(2, 3)
    same(_C.max(t, _C.tensor(6)), [[6, 6, 6], [6, 6, 6]], _C.int64)
    same(_C.min(t, _C.tensor(2)), [[0, 1, 2], [2, 2, 2]], _C.int64)
    same(t.max(_C.tensor(4)), [[4, 4, 4], [4, 4, 5]], _C.int64)
    # A Python int is still a dim.
    v, i = _C.max(t, 1)
    same(v, [2, 5], _C.int64)
    same(i, [2, 2], _C.int64)


def test_index_select_of_a_0_dim_input_is_0_dim():
    same(_C.index_select(_C.tensor(5.0), 0, _C.tensor([0])), 5.0, _C.float32)
    same(_C.index_select(_C.tensor(5.0), 0, _C.tensor(0)), 5.0, _C.float32)


def test_gather_scatter_take_int32_indices():
    f = f23()
    idx = _C.tensor([[0, 1, 0]], dtype=_C.int32)
    same(_C.gather(f, 0, idx), [[0.0, 4.0, 2.0]], _C.float32)
    same(_C.scatter(f, 0, idx, 9.0), [[9.0, 1.0, 9.0], [3.0, 9.0, 5.0]], _C.float32)
    same(_C.scatter_add(f, 0, idx, f), [[0.0, 1.0, 4.0], [3.0, 5.0, 5.0]], _C.float32)
    i16 = _C.tensor([[0, 1, 0]], dtype=_C.int16)
    with pytest.raises(RuntimeError, match=r"^gather\(\): Expected dtype int32/int64 for index$"):
        _C.gather(f, 0, i16)
    with pytest.raises(RuntimeError, match=r"^scatter\(\): Expected dtype int32/int64 for index$"):
        _C.scatter(f, 0, i16, f)
    with pytest.raises(RuntimeError, match=r"^scatter\(\): Expected dtype int32/int64 for index$"):
        _C.scatter_add(f, 0, i16, f)


def test_all_any_take_a_tuple_of_dims():
    t = _C.arange(6).reshape(2, 3)
    same(_C.all(t, (0, 1)), False, _C.bool)
    same(_C.any(t, dim=(1,), keepdim=True), [[True], [True]], _C.bool)
    same(t.all(dim=None), False, _C.bool)
    # An empty tuple reduces nothing: each element's truth value (torch 2.15).
    same(_C.all(t, dim=()), [[False, True, True], [True, True, True]], _C.bool)
    same(_C.any(_C.tensor([0, 3], dtype=_C.uint8), (0,)), 1, _C.uint8)
    with pytest.raises(RuntimeError, match="^dim 0 appears multiple times in the list of dims$"):
        _C.all(t, (0, 0))


def test_norm_fro():
    f = f23()
    same(_C.norm(f, "fro"), 7.416198487, _C.float32)
    same(f.norm("fro", dim=1), [2.236068, 7.071068], _C.float32)
    with pytest.raises(RuntimeError, match=r"^linalg.matrix_norm: Order abc not supported.$"):
        _C.norm(f, "abc")
    # The nuclear norm: the sum of the singular values (torch 2.15 gives 8.348468780517578).
    same(_C.norm(f, "nuc"), 8.348468780517578, _C.float32)


def test_einsum_ellipsis_absent_from_the_output_is_summed():
    same(_C.einsum("...ij->ij", _C.ones(2, 3, 4)), [[2.0] * 4] * 3, _C.float32)
    same(_C.einsum("i...->i", _C.ones(2, 3, 4)), [12.0, 12.0], _C.float32)


def test_bernoulli_out():
    out = _C.empty(3)
    assert _C.bernoulli(_C.zeros(3), out=out) is out
    same(out, [0.0, 0.0, 0.0], _C.float32)
    same(_C.bernoulli(_C.ones(3), out=out), [1.0, 1.0, 1.0], _C.float32)


@pytest.mark.parametrize("op", ["eq", "ne", "lt", "le", "gt", "ge", "fmod"])
def test_comparisons_and_fmod_reject_a_number_first(op):
    # torch: "eq() received an invalid combination of arguments - got (int, Tensor) ..."
    t = _C.arange(6).reshape(2, 3)
    with pytest.raises(TypeError, match=rf"^{op}\(\)"):
        getattr(_C, op)(2, t)
    # The number second, and the operators, still work.
    getattr(_C, op)(t, 2)


def test_arithmetic_takes_a_number_first_as_torch():
    t = _C.arange(6).reshape(2, 3)
    same(_C.add(2, t), [[2, 3, 4], [5, 6, 7]], _C.int64)
    same(_C.sub(2, t), [[2, 1, 0], [-1, -2, -3]], _C.int64)
    same(_C.mul(2, t), [[0, 2, 4], [6, 8, 10]], _C.int64)
    same(2 == t, [[False, False, True], [False, False, False]], _C.bool)
    same(2 < t, [[False, False, False], [True, True, True]], _C.bool)


def test_reductions_over_dims_of_more_than_64_dim_tensors():
    x = _C.zeros([1] * 65)
    same(x.sum(), 0.0, _C.float32)
    with pytest.raises(RuntimeError, match="^only tensors with up to 64 dims are supported$"):
        x.sum(0)
    with pytest.raises(RuntimeError, match="^only tensors with up to 64 dims are supported$"):
        x.amax(0)


def test_exception_classes_as_torch():
    with pytest.raises(NotImplementedError, match=r"^mean\(\): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Long$"):
        _C.mean(_C.arange(3))
    with pytest.raises(NotImplementedError, match=r"^mean\(\): could not infer output dtype"):
        _C.mean(_C.arange(3), 0)
    with pytest.raises(NotImplementedError, match="^Negation, the `-` operator, on a bool tensor is not supported."):
        _C.neg(_C.tensor([True]))
    with pytest.raises(NotImplementedError, match="^Negation, the `-` operator"):
        -_C.tensor([True])
    with pytest.raises(ValueError, match=r"^torch.cat\(\): expected a non-empty list of Tensors$"):
        _C.cat([])
    with pytest.raises(RuntimeError, match="^stack expects a non-empty TensorList$"):
        _C.stack([])


def test_narrow_with_a_tensor_start():
    f = f23()
    same(_C.narrow(f, 0, _C.tensor(1), 1), [[3.0, 4.0, 5.0]], _C.float32)
    same(f.narrow(0, _C.tensor(1, dtype=_C.int8), 1), [[3.0, 4.0, 5.0]], _C.float32)
    for start in (_C.tensor(1.0), _C.tensor(True), _C.tensor([1])):
        with pytest.raises(RuntimeError, match="^start must be an 0-dim integral Tensor.$"):
            _C.narrow(f, 0, start, 1)


def test_two_python_numbers_give_the_default_dtype():
    # torch.add(-8.5, -1.75).dtype is float32; torch.mul(2, 3) is int64.
    same(_C.add(-8.5, -1.75), -10.25, _C.float32)
    same(_C.mul(2.5, 2.0), 5.0, _C.float32)
    same(_C.mul(2, 3), 6, _C.int64)


def test_roll_of_a_0_dim_tensor_with_a_dim():
    with pytest.raises(IndexError, match="^Dimension specified as 0 but tensor has no dimensions$"):
        _C.roll(_C.tensor(1.0), 0, 0)
    same(_C.roll(_C.tensor(1.0), 1), 1.0, _C.float32)



def test_isclose_of_integers_does_not_wrap():
    # torch 2.15: isclose(int8 [-128, 127, 5, -100], [127, -128, 6, 100], rtol=0.5, atol=3)
    a = _C.tensor([-128, 127, 5, -100], dtype=_C.int8)
    b = _C.tensor([127, -128, 6, 100], dtype=_C.int8)
    same(_C.isclose(a, b, rtol=0.5, atol=3), [False, False, True, False], _C.bool)


def test_gather_scatter_take_an_empty_index_of_any_dtype():
    x = _C.arange(5.0)
    same(_C.gather(x, 0, _C.tensor([], dtype=_C.uint8)), [], _C.float32)
    same(_C.scatter(x, 0, _C.tensor([], dtype=_C.uint8), 1.0), [0.0, 1.0, 2.0, 3.0, 4.0], _C.float32)


def test_dispatch_errors_are_not_implemented_error():
    # torch 2.15 raises NotImplementedError (a RuntimeError subclass) for a dtype a kernel lacks.
    b = _C.tensor([True, False])
    with pytest.raises(NotImplementedError, match=r"^argmax\(\): does not support bool input$"):
        _C.argmax(b)
    with pytest.raises(NotImplementedError, match=r"^argmin\(\): does not support bool input$"):
        _C.argmin(_C.tensor([], dtype=_C.bool), 0)
    with pytest.raises(NotImplementedError, match="^std and var only support floating point and complex dtypes$"):
        _C.std(_C.tensor([1, 2]))
    with pytest.raises(NotImplementedError, match="^\"dot\" not implemented for 'Bool'$"):
        _C.dot(b, b)
    with pytest.raises(NotImplementedError, match="^\"arange_cpu\" not implemented for 'Bool'$"):
        _C.arange(3, dtype=_C.bool)
    with pytest.raises(NotImplementedError, match="^\"softmax_lastdim_kernel_impl\" not implemented for 'Long'$"):
        _C.softmax(_C.tensor([1, 2]), 0)
    with pytest.raises(NotImplementedError, match="^Subtraction, the `-` operator, with two bool tensors"):
        _C.sub(b, b)


def test_softmax_of_an_empty_tensor_keeps_its_dtype():
    # torch: softmax(tensor([], dtype=int64), 0) is an empty int64 tensor (no kernel runs).
    r = _C.softmax(_C.tensor([], dtype=_C.int64), 0)
    assert r.dtype is _C.int64 and r.shape == (0,)
    r = _C.log_softmax(_C.zeros(2, 0, dtype=_C.int32), 1)
    assert r.dtype is _C.int32 and r.shape == (2, 0)
