"""The paths that share one kernel across dtypes or ops (to keep the extension small) give what
the per-dtype kernels gave, as torch does: sorting through totally ordered keys (signed zeros
equal, NaN largest, stable ties in both directions, integer extremes), gt/ge as lt/le with the
operands swapped, float ops on integer inputs through a float32 conversion, isnan/isinf/isfinite
on integers, all/any/count_nonzero through bool, index_put's converted one-element value, the
in-place/aliased elementwise loops, and the strided (non-contiguous) row walks."""

import math

import pytest

import _C
from tensor_asserts import same  # noqa: E402

nan = float("nan")
inf = float("inf")

# ---------------------------------------------------------------------------------------------
# sorting through keys


def test_argsort_signed_zeros_nan_stable_both_directions():
    x = _C.tensor([0.0, -0.0, nan, 1.0, -1.0, nan, 0.0, -inf, inf])
    same(_C.argsort(x, stable=True), [7, 4, 0, 1, 6, 3, 8, 2, 5], _C.int64)
    same(_C.argsort(x, descending=True, stable=True), [2, 5, 8, 3, 0, 1, 6, 4, 7], _C.int64)
    v, i = _C.sort(x.to(_C.float64), stable=True)
    same(i, [7, 4, 0, 1, 6, 3, 8, 2, 5], _C.int64)
    # -0.0 and 0.0 tie, so they keep their input order: 0.0, -0.0, 0.0.
    zeros = v.tolist()[2:5]
    assert [math.copysign(1.0, z) for z in zeros] == [1.0, -1.0, 1.0]


def test_argsort_integer_extremes_and_bool():
    lo, hi = -(2**63), 2**63 - 1
    x = _C.tensor([hi, lo, 0, -1, hi, lo])
    same(_C.argsort(x, stable=True), [1, 5, 3, 2, 0, 4], _C.int64)
    same(_C.argsort(x, descending=True, stable=True), [0, 4, 2, 3, 1, 5], _C.int64)
    same(_C.argsort(_C.tensor([127, -128, 0, -1], dtype=_C.int8), stable=True), [1, 3, 2, 0], _C.int64)
    same(_C.argsort(_C.tensor([255, 0, 128, 1], dtype=_C.uint8), stable=True), [1, 3, 2, 0], _C.int64)
    b = _C.tensor([True, False, True, False])
    same(_C.argsort(b, stable=True), [1, 3, 0, 2], _C.int64)
    same(_C.argsort(b, descending=True, stable=True), [0, 2, 1, 3], _C.int64)


def test_argsort_along_inner_dim_and_topk_descending_ties():
    x = _C.tensor([[2.0, 1.0], [1.0, 1.0], [2.0, 0.0]])
    same(_C.argsort(x, dim=0, stable=True), [[1, 2], [0, 0], [2, 1]], _C.int64)
    v, i = _C.topk(_C.tensor([1, 3, 3, 2, 3]), 3)
    same(v, [3, 3, 3], _C.int64)
    same(i, [1, 2, 4], _C.int64)


def test_unique_kth_median_mode_through_keys():
    u, inv, c = _C.unique(_C.tensor([0.0, -0.0, 1.0, nan, nan]), True, True, True)
    same(u, [0.0, 1.0, nan, nan], _C.float32)
    same(inv, [0, 0, 1, 2, 3], _C.int64)
    same(c, [2, 1, 1, 1], _C.int64)
    same(_C.unique(_C.tensor([-(2**63), 2**63 - 1, -1, -(2**63)])), [-(2**63), -1, 2**63 - 1], _C.int64)
    v, i = _C.kthvalue(_C.tensor([-3, 5, -3, 0], dtype=_C.int16), 2)
    same(v, -3, _C.int16)
    same(i, 2, _C.int64)
    v, i = _C.median(_C.tensor([[3.0, -0.0, 0.0, -1.0]]), 1)
    same(v, [0.0], _C.float32)
    same(i, [1], _C.int64)
    v, i = _C.mode(_C.tensor([2, 1, 2, 1, 3], dtype=_C.uint8))
    same(v, 1, _C.uint8)
    same(i, 3, _C.int64)


# ---------------------------------------------------------------------------------------------
# gt / ge as lt / le swapped


def test_gt_ge_values_nan_and_broadcast_errors():
    a = _C.tensor([nan, 1.0, 2.0, 3.0])
    b = _C.tensor([1.0, nan, 2.0, 1.0])
    same(_C.gt(a, b), [False, False, False, True], _C.bool)
    same(_C.ge(a, b), [False, False, True, True], _C.bool)
    same(a > 2, [False, False, False, True], _C.bool)
    same(2 >= a, [False, True, True, False], _C.bool)
    same(_C.gt(_C.tensor([[1], [3]]), _C.tensor([2.5, 0.5])), [[False, True], [True, True]], _C.bool)
    for op in (_C.gt, _C.ge):
        with pytest.raises(
            RuntimeError,
            match=r"The size of tensor a \(3\) must match the size of tensor b \(2\) at non-singleton dimension 0",
        ):
            op(_C.zeros([3]), _C.zeros([2]))


# ---------------------------------------------------------------------------------------------
# float ops on integer inputs, isnan/isinf/isfinite on integers


@pytest.mark.parametrize("dtype", [_C.bool, _C.uint8, _C.int8, _C.int16, _C.int32, _C.int64])
def test_float_unary_of_integers_is_the_float32_op(dtype):
    x = _C.tensor([[0, 1], [1, 0]], dtype=dtype)
    for op in (_C.exp, _C.sqrt, _C.sin, _C.tanh, _C.log2):
        got = op(x)
        assert got.dtype is _C.float32 and got.shape == (2, 2)
        assert got.tolist() == op(x.to(_C.float32)).tolist()
    t = _C.tensor([[1, 4], [9, 16]], dtype=_C.int64).T
    same(_C.sqrt(t), [[1.0, 3.0], [2.0, 4.0]], _C.float32)


@pytest.mark.parametrize("dtype", [_C.bool, _C.uint8, _C.int32, _C.int64])
def test_isnan_isinf_isfinite_integers(dtype):
    x = _C.zeros([2, 3], dtype=dtype)
    same(_C.isnan(x), [[False] * 3] * 2, _C.bool)
    same(_C.isinf(x), [[False] * 3] * 2, _C.bool)
    same(_C.isfinite(x), [[True] * 3] * 2, _C.bool)
    assert _C.isfinite(_C.zeros([0, 2], dtype=dtype)).shape == (0, 2)
    same(_C.isfinite(_C.tensor(5, dtype=dtype) if dtype is not _C.bool else _C.tensor(True)), True, _C.bool)


def test_isnan_isinf_isfinite_floats():
    x = _C.tensor([nan, inf, -inf, 1.0])
    same(_C.isnan(x), [True, False, False, False], _C.bool)
    same(_C.isinf(x.to(_C.float64)), [False, True, True, False], _C.bool)
    same(_C.isfinite(x), [False, False, False, True], _C.bool)


# ---------------------------------------------------------------------------------------------
# all / any / count_nonzero through bool


def test_all_any_count_nonzero_truth_values():
    x = _C.tensor([[0.0, nan], [-0.0, 2.0]])
    same(_C.any(x), True, _C.bool)
    same(_C.all(x), False, _C.bool)
    same(_C.all(x, 0), [False, True], _C.bool)
    same(_C.any(x, 1, keepdim=True), [[True], [True]], _C.bool)
    same(_C.count_nonzero(x), 2, _C.int64)
    same(_C.count_nonzero(x, 0), [0, 2], _C.int64)
    same(_C.count_nonzero(x.T, [1]), [0, 2], _C.int64)
    same(_C.all(_C.tensor([nan])), True, _C.bool)
    u = _C.tensor([[0, 7], [3, 0]], dtype=_C.uint8)
    same(_C.all(u), 0, _C.uint8)
    same(_C.any(u, 1), [1, 1], _C.uint8)
    same(_C.count_nonzero(_C.tensor([-128, 0, 1], dtype=_C.int8)), 2, _C.int64)
    same(_C.all(_C.zeros([0])), True, _C.bool)
    same(_C.any(_C.zeros([0], dtype=_C.int32)), False, _C.bool)


def test_norm_and_var_float_only():
    same(_C.norm(_C.tensor([3.0, -4.0], dtype=_C.float64)), 5.0, _C.float64)
    same(_C.var(_C.tensor([1.0, 2.0, 3.0])), 1.0, _C.float32)
    with pytest.raises(RuntimeError, match="linalg.vector_norm only supports floating point"):
        _C.norm(_C.tensor([3, 4]))
    with pytest.raises(NotImplementedError, match="std and var only support floating point"):
        _C.var(_C.tensor([3, 4]))


# ---------------------------------------------------------------------------------------------
# index_put: one-element value of another dtype


def test_index_put_single_mask_converts_one_element_value():
    x = _C.zeros([4], dtype=_C.int32)
    x[_C.tensor([True, False, True, False])] = _C.tensor(2.7)
    same(x, [2, 0, 2, 0], _C.int32)
    y = _C.zeros([2, 2])
    y[_C.tensor([[False, True], [True, False]])] = _C.tensor(3)
    same(y, [[0.0, 3.0], [3.0, 0.0]], _C.float32)
    z = _C.zeros([3], dtype=_C.int64)
    z[_C.tensor([0, 2])] = _C.tensor([5, 6])
    same(z, [5, 0, 6], _C.int64)
    with pytest.raises(RuntimeError, match="Index put requires the source and destination dtypes match"):
        z[_C.tensor([0, 2])] = _C.tensor([5.0, 6.0])


# ---------------------------------------------------------------------------------------------
# aliased elementwise loops and strided rows


def test_in_place_and_out_aliasing_the_second_operand():
    x = _C.tensor([1.0, -2.0, 3.0])
    x.mul_(x)
    same(x, [1.0, 4.0, 9.0], _C.float32)
    i = _C.tensor([3, -4, 5])
    i.add_(i)
    same(i, [6, -8, 10], _C.int64)
    a = _C.tensor([1.0, 2.0, 3.0])
    b = _C.tensor([10.0, 20.0, 30.0])
    r = _C.sub(b, a, out=a)
    assert r is a
    same(a, [9.0, 18.0, 27.0], _C.float32)
    c = _C.tensor([2, 3, 4])
    _C.mul(_C.tensor(5), c, out=c)
    same(c, [10, 15, 20], _C.int64)


def test_strided_rows_elementwise_copy_and_reduce():
    m = _C.arange(12.0).reshape([3, 4])
    t = m.T
    same(_C.add(t, t), [[2.0 * (4 * r + c) for r in range(3)] for c in range(4)], _C.float32)
    same(_C.add(t, _C.tensor([1.0, 2.0, 3.0])), [[4 * r + c + r + 1.0 for r in range(3)] for c in range(4)], _C.float32)
    same(_C.neg(t), [[-(4.0 * r + c) for r in range(3)] for c in range(4)], _C.float32)
    same(t.contiguous(), [[4.0 * r + c for r in range(3)] for c in range(4)], _C.float32)
    same(t.to(_C.int16), [[4 * r + c for r in range(3)] for c in range(4)], _C.int16)
    s = m[:, ::2]
    same(_C.mul(s, s), [[(4.0 * r + c) ** 2 for c in (0, 2)] for r in range(3)], _C.float32)
    same(_C.sum(t, 0), [6.0, 22.0, 38.0], _C.float32)
    same(_C.amax(t, 1), [8.0, 9.0, 10.0, 11.0], _C.float32)
    same(_C.eq(t, t.contiguous()), [[True] * 3] * 4, _C.bool)
    e = _C.zeros([3, 0]).T
    assert _C.add(e, e).shape == (0, 3)
    z = _C.tensor(2.0)
    same(_C.mul(z, z), 4.0, _C.float32)
