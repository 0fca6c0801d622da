"""einsum: the common equation forms, both calling conventions (varargs operands and one list),
and the errors. Expected values are torch's (torch.einsum), written out."""

import pytest

import _C
from tensor_asserts import same


def ar(n, *shape):
    return _C.arange(float(n)).reshape(*shape)


def test_matrix_product_both_calling_forms():
    a, b = ar(6, 2, 3), ar(12, 3, 4)
    expected = [[20.0, 23.0, 26.0, 29.0], [56.0, 68.0, 80.0, 92.0]]
    same(_C.einsum("ij,jk->ik", a, b), expected, _C.float32)
    same(_C.einsum("ij,jk->ik", [a, b]), expected, _C.float32)
    same(_C.einsum("ij,jk", (a, b)), expected, _C.float32)  # implicit output: i, k
    same(_C.einsum(" i j , j k -> i k ", a, b), expected, _C.float32)  # spaces are ignored


@pytest.mark.parametrize(
    "eq, operands, expected",
    [
        ("ij->ji", [ar(6, 2, 3)], [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]),
        ("ij->", [ar(6, 2, 3)], 15.0),
        ("ij->j", [ar(6, 2, 3)], [3.0, 5.0, 7.0]),
        ("ii", [ar(9, 3, 3)], 12.0),
        ("ii->i", [ar(9, 3, 3)], [0.0, 4.0, 8.0]),
        ("i,i->", [ar(3, 3), ar(3, 3)], 5.0),
        ("i,j->ij", [ar(3, 3), ar(2, 2)], [[0.0, 0.0], [0.0, 1.0], [0.0, 2.0]]),
        ("bij,bjk->bik", [ar(12, 2, 2, 3), ar(6, 1, 3, 2)], [[[10.0, 13.0], [28.0, 40.0]], [[46.0, 67.0], [64.0, 94.0]]]),
        ("...ij,jk->...ik", [ar(12, 2, 2, 3), ar(6, 3, 2)], [[[10.0, 13.0], [28.0, 40.0]], [[46.0, 67.0], [64.0, 94.0]]]),
        ("ij,ij->ij", [ar(4, 2, 2), ar(4, 2, 2)], [[0.0, 1.0], [4.0, 9.0]]),
        ("ij,jk,kl->il", [ar(4, 2, 2), ar(4, 2, 2), ar(4, 2, 2)], [[6.0, 11.0], [22.0, 39.0]]),
    ],
)
def test_forms(eq, operands, expected):
    same(_C.einsum(eq, *operands), expected, _C.float32)


def test_integer_operands_keep_their_dtype():
    a = _C.arange(6).reshape(2, 3)
    same(_C.einsum("ij->j", a), [3, 5, 7], _C.int64)


def test_errors():
    a = ar(6, 2, 3)
    # torch: RuntimeError: einsum(): fewer operands were provided than specified in the equation
    with pytest.raises(RuntimeError, match="fewer operands were provided than specified in the equation"):
        _C.einsum("ij,jk", a)
    with pytest.raises(RuntimeError, match="more operands were provided than specified in the equation"):
        _C.einsum("ij", a, a)
    with pytest.raises(RuntimeError, match="does not match the number of dimensions"):
        _C.einsum("i", a)
    with pytest.raises(RuntimeError, match="invalid subscript given at index 1"):
        _C.einsum("i1", a)
    with pytest.raises(RuntimeError, match="output subscript k does not appear in the equation for any input operand"):
        _C.einsum("ij->k", a)
    with pytest.raises(RuntimeError, match="output subscript i appears more than once in the output"):
        _C.einsum("ij->ii", a)
    with pytest.raises(RuntimeError, match="broadcast"):
        _C.einsum("ij,jk", a, ar(8, 4, 2))
    with pytest.raises(RuntimeError, match="at least one operand"):
        _C.einsum("ij", [])
    # einsum(): argument 'tensors' must be tuple of Tensors, but found element of type str at pos 1
    with pytest.raises(TypeError, match="argument 'tensors' must be tuple of Tensors, but found element of type str at pos 1"):
        _C.einsum("ij,jk", a, "x")
