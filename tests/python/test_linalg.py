"""Linear algebra: matmul (every rank combination torch.matmul defines, batch broadcasting), mm,
dot and the @ operator — values, result dtypes, out= and shape/dtype errors (torch's behaviour)."""

import pytest

import _C
from tensor_asserts import same as _same  # noqa: E402


def same(t, expected, dtype):
    """As tensor_asserts.same, with this file's tolerance (rel=1e-5, abs=1e-5)."""
    _same(t, expected, dtype, rel=1e-5, abs=1e-5)


# ---------------------------------------------------------------------------------------------
# helpers


def py_matmul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


A = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]  # (2, 3)
B = [[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]]  # (3, 2)
AB = [[58.0, 64.0], [139.0, 154.0]]

# ---------------------------------------------------------------------------------------------
# matmul ranks


@pytest.mark.parametrize("dtype", [_C.float32, _C.float64])
def test_matmul_2d(dtype):
    a = _C.tensor(A, dtype=dtype)
    b = _C.tensor(B, dtype=dtype)
    same(_C.matmul(a, b), AB, dtype)
    same(a.matmul(b), AB, dtype)
    same(a @ b, AB, dtype)
    same(_C.mm(a, b), AB, dtype)
    same(a.mm(b), AB, dtype)


@pytest.mark.parametrize("dtype", [_C.int32, _C.int64, _C.uint8, _C.int16])
def test_matmul_integer_dtypes(dtype):
    a = _C.tensor([[1, 2], [3, 4]], dtype=dtype)
    b = _C.tensor([[5, 6], [7, 8]], dtype=dtype)
    same(a @ b, [[19, 22], [43, 50]], dtype)
    same(_C.mm(a, b), [[19, 22], [43, 50]], dtype)
    same(_C.dot(a[0], b[0]), 17, dtype)


def test_matmul_1d_1d_is_dot():
    r = _C.matmul(_C.tensor([1.0, 2.0, 3.0]), _C.tensor([4.0, 5.0, 6.0]))
    assert r.shape == ()
    same(r, 32.0, _C.float32)


def test_matmul_2d_1d():
    r = _C.tensor(A) @ _C.tensor([1.0, 0.0, -1.0])
    assert r.shape == (2,)
    same(r, [-2.0, -2.0], _C.float32)


def test_matmul_1d_2d():
    r = _C.tensor([1.0, -1.0]) @ _C.tensor(A)
    assert r.shape == (3,)
    same(r, [-3.0, -3.0, -3.0], _C.float32)


def test_matmul_batched_3d_3d():
    a = _C.arange(12, dtype=_C.float32).reshape(2, 2, 3)
    b = _C.arange(12, dtype=_C.float32).reshape(2, 3, 2)
    r = a @ b
    assert r.shape == (2, 2, 2)
    al, bl = a.tolist(), b.tolist()
    same(r, [py_matmul(al[i], bl[i]) for i in range(2)], _C.float32)


def test_matmul_batched_3d_2d_and_2d_3d():
    a = _C.arange(12, dtype=_C.float32).reshape(2, 2, 3)
    b = _C.tensor(B)
    r = a @ b
    assert r.shape == (2, 2, 2)
    al = a.tolist()
    same(r, [py_matmul(al[i], B) for i in range(2)], _C.float32)
    c = _C.arange(12, dtype=_C.float32).reshape(2, 3, 2)
    r = _C.matmul(_C.tensor(A), c)
    assert r.shape == (2, 2, 2)
    cl = c.tolist()
    same(r, [py_matmul(A, cl[i]) for i in range(2)], _C.float32)


def test_matmul_batched_with_1d():
    a = _C.arange(12, dtype=_C.float32).reshape(2, 2, 3)
    v = _C.tensor([1.0, 1.0, 1.0])
    r = a @ v
    assert r.shape == (2, 2)
    same(r, [[3.0, 12.0], [21.0, 30.0]], _C.float32)
    w = _C.tensor([1.0, 1.0])
    r = w @ a  # (2,) @ (2, 2, 3) -> (2, 3)
    assert r.shape == (2, 3)
    same(r, [[3.0, 5.0, 7.0], [15.0, 17.0, 19.0]], _C.float32)


def test_matmul_batch_broadcasting():
    a = _C.ones(2, 1, 2, 3)
    b = _C.ones(3, 3, 4)
    r = a @ b
    assert r.shape == (2, 3, 2, 4)
    assert r.tolist()[1][2] == [[3.0] * 4] * 2
    # a batch dim of 1 broadcasts
    r = _C.ones(1, 2, 3) @ _C.ones(5, 3, 1)
    assert r.shape == (5, 2, 1)


def test_matmul_non_contiguous_operands():
    a = _C.tensor(B).transpose(0, 1)  # (2, 3): [[7, 9, 11], [8, 10, 12]]
    b = _C.tensor(A).transpose(0, 1)  # (3, 2): [[1, 4], [2, 5], [3, 6]]
    same(a @ b, [[58.0, 139.0], [64.0, 154.0]], _C.float32)
    same(_C.mm(a, b), [[58.0, 139.0], [64.0, 154.0]], _C.float32)
    v = _C.arange(6, dtype=_C.float32)[::2]  # [0, 2, 4]
    same(_C.dot(v, v), 20.0, _C.float32)
    same(_C.tensor(A) @ v, [16.0, 34.0], _C.float32)


def test_matmul_empty_inner_dim():
    r = _C.ones(2, 0) @ _C.ones(0, 3)
    same(r, [[0.0] * 3] * 2, _C.float32)
    r = _C.ones(0, 3) @ _C.ones(3, 2)
    assert r.shape == (0, 2)


def test_matmul_larger_square():
    n = 64
    a = _C.ones(n, n)
    b = _C.full((n, n), 2.0)
    r = a @ b
    assert r.shape == (n, n)
    assert r.sum().item() == pytest.approx(n * n * 2.0 * n)
    same(r[3, :4], [128.0] * 4, _C.float32)
    # identity-like check against a permutation
    eye = _C.zeros(3, 3)
    eye[0, 0] = 1
    eye[1, 1] = 1
    eye[2, 2] = 1
    m = _C.arange(9, dtype=_C.float32).reshape(3, 3)
    same(m @ eye, m.tolist(), _C.float32)
    same(eye @ m, m.tolist(), _C.float32)


# ---------------------------------------------------------------------------------------------
# dot


@pytest.mark.parametrize("dtype", [_C.float32, _C.float64, _C.int64, _C.int32])
def test_dot(dtype):
    a = _C.tensor([1, 2, 3], dtype=dtype)
    b = _C.tensor([4, -5, 6], dtype=dtype)
    r = _C.dot(a, b)
    assert r.shape == ()
    same(r, 12.0 if dtype.is_floating_point else 12, dtype)
    same(a.dot(b), 12.0 if dtype.is_floating_point else 12, dtype)


def test_dot_errors():
    # torch: RuntimeError: 1D tensors expected, but got 2D and 2D tensors
    with pytest.raises(RuntimeError, match="1D tensors expected"):
        _C.dot(_C.ones(2, 2), _C.ones(2, 2))
    # torch: RuntimeError: inconsistent tensor size, expected tensor [3] and src [2] to have the
    # same number of elements, but got 3 and 2 elements respectively
    with pytest.raises(RuntimeError, match="inconsistent tensor size"):
        _C.dot(_C.ones(3), _C.ones(2))
    # torch: RuntimeError: dot : expected both vectors to have same dtype, but found Float and Long
    with pytest.raises(RuntimeError, match="expected both vectors to have same dtype, but found Float and Long"):
        _C.dot(_C.ones(2), _C.ones(2, dtype=_C.int64))


# ---------------------------------------------------------------------------------------------
# errors


def test_matmul_shape_mismatch():
    # torch: RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x3\)"):
        _C.matmul(_C.ones(2, 3), _C.ones(2, 3))
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        _C.mm(_C.ones(2, 3), _C.ones(4, 5))
    with pytest.raises(RuntimeError):
        _C.ones(2, 3) @ _C.ones(2)
    with pytest.raises(RuntimeError):
        _C.ones(3) @ _C.ones(2, 3)
    with pytest.raises(RuntimeError, match="inconsistent tensor size"):
        _C.ones(3) @ _C.ones(4)


def test_matmul_batch_mismatch():
    with pytest.raises(RuntimeError, match="must match"):
        _C.ones(2, 2, 3) @ _C.ones(3, 3, 2)


def test_matmul_zero_dim():
    # torch: RuntimeError: both arguments to matmul need to be at least 1D, but they are 0D and 1D
    with pytest.raises(RuntimeError, match="both arguments to matmul need to be at least 1D, but they are 0D and 1D"):
        _C.matmul(_C.tensor(2.0), _C.ones(2))


def test_mm_requires_matrices():
    # torch: RuntimeError: self must be a matrix
    with pytest.raises(RuntimeError, match="must be a matrix"):
        _C.mm(_C.ones(3), _C.ones(3, 2))
    with pytest.raises(RuntimeError, match="must be a matrix"):
        _C.mm(_C.ones(2, 3), _C.ones(3))
    with pytest.raises(RuntimeError, match="must be a matrix"):
        _C.mm(_C.ones(1, 2, 3), _C.ones(3, 2))


def test_matmul_requires_same_dtype():
    # torch.matmul does not promote: RuntimeError: expected m1 and m2 to have the same dtype,
    # but got: float != long
    with pytest.raises(RuntimeError, match="same dtype"):
        _C.matmul(_C.ones(2, 2), _C.ones(2, 2, dtype=_C.int64))
    with pytest.raises(RuntimeError, match="same dtype"):
        _C.mm(_C.ones(2, 2, dtype=_C.float64), _C.ones(2, 2))


def test_matmul_with_number_is_type_error():
    # torch: TypeError (a number is not a Tensor for matmul)
    with pytest.raises(TypeError):
        _C.ones(2, 2) @ 2
    with pytest.raises(TypeError):
        2 @ _C.ones(2, 2)
    with pytest.raises(TypeError):
        _C.matmul(_C.ones(2, 2), 2)
    with pytest.raises(TypeError):
        _C.ones(2) @ [1.0, 2.0]


# ---------------------------------------------------------------------------------------------
# out=


@pytest.mark.parametrize("name", ["matmul", "mm"])
def test_matmul_out(name):
    out = _C.zeros(2, 2)
    r = getattr(_C, name)(_C.tensor(A), _C.tensor(B), out=out)
    assert r is out
    same(out, AB, _C.float32)


def test_dot_out():
    out = _C.zeros(())
    r = _C.dot(_C.tensor([1.0, 2.0]), _C.tensor([3.0, 4.0]), out=out)
    assert r is out
    same(out, 11.0, _C.float32)


def test_matmul_out_wider_dtype():
    out = _C.zeros(2, 2, dtype=_C.float64)
    _C.matmul(_C.tensor([[1, 2], [3, 4]]), _C.tensor([[1, 0], [0, 1]]), out=out)
    same(out, [[1.0, 2.0], [3.0, 4.0]], _C.float64)


def test_inputs_untouched():
    a = _C.tensor(A)
    b = _C.tensor(B)
    _C.matmul(a, b)
    assert a.tolist() == A
    assert b.tolist() == B
