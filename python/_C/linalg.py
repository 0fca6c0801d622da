"""_C.linalg: torch.linalg for tensorbind (real dtypes).

The functions are those of the extension's submodule ``_C._linalg`` (torch's
``torch._C._linalg``, whose functions are named ``linalg_solve`` and so on), under torch's
public names: ``_C.linalg.solve`` is ``_C._linalg.linalg_solve``. The decompositions are
written in the Rust core (``src/core/ops/decomp.rs``: LU with partial pivoting, Cholesky,
Householder QR, Jacobi eigh and SVD; no LAPACK) and computed in float64 whatever the input's
dtype. Errors are torch's texts and classes: a singular or non-positive-definite matrix raises
``LinAlgError`` (``_C._LinAlgError``, a RuntimeError subclass, as torch's).

A few functions are thin compositions of those (as torch's CompositeImplicitAutograd ops are):
``matmul``, ``diagonal``, ``cross``, ``vecdot``, ``multi_dot``, ``matrix_power``, ``pinv``,
``matrix_rank``, ``cond``, ``lstsq``, ``vander``, ``tensorinv`` and ``tensorsolve``.
"""

from . import _C as _ext
from . import _linalg

LinAlgError = _ext._LinAlgError

solve = _linalg.linalg_solve
solve_ex = _linalg.linalg_solve_ex
inv = _linalg.linalg_inv
inv_ex = _linalg.linalg_inv_ex
det = _linalg.linalg_det
slogdet = _linalg.linalg_slogdet
cholesky = _linalg.linalg_cholesky
cholesky_ex = _linalg.linalg_cholesky_ex
solve_triangular = _linalg.linalg_solve_triangular
qr = _linalg.linalg_qr
eigh = _linalg.linalg_eigh
eigvalsh = _linalg.linalg_eigvalsh
svd = _linalg.linalg_svd
svdvals = _linalg.linalg_svdvals
vector_norm = _linalg.linalg_vector_norm
matrix_norm = _linalg.linalg_matrix_norm
norm = _linalg.linalg_norm
lu_factor = _linalg.linalg_lu_factor
lu_factor_ex = _linalg.linalg_lu_factor_ex
lu = _linalg.linalg_lu
lu_solve = _linalg.linalg_lu_solve


def matmul(input, other, *, out=None):
    """``linalg.matmul(input, other, *, out=None)``: ``_C.matmul``. Mirrors torch.linalg.matmul."""
    return _ext.matmul(input, other, out=out)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """``linalg.diagonal(A, *, offset=0, dim1=-2, dim2=-1)``: ``_C.diagonal`` with the last two
    dimensions by default (a view). Mirrors torch.linalg.diagonal."""
    return _ext.diagonal(A, offset=offset, dim1=dim1, dim2=dim2)


def cross(input, other, *, dim=-1, out=None):
    """``linalg.cross(input, other, *, dim=-1, out=None)``: the cross product of 3-vectors along
    ``dim`` (default the last). Mirrors torch.linalg.cross."""
    return _ext.cross(input, other, dim=dim, out=out)


def vecdot(x, y, *, dim=-1, out=None):
    """``linalg.vecdot(x, y, *, dim=-1, out=None)``: the dot product of the vectors of ``x`` and
    ``y`` (broadcast) along ``dim``. Mirrors torch.linalg.vecdot."""
    if out is not None:
        return _ext.sum(_ext.mul(x, y), dim, out=out)
    return _ext.sum(_ext.mul(x, y), dim)


def multi_dot(tensors, *, out=None):
    """``linalg.multi_dot(tensors, *, out=None)``: the chained product of the matrices (the first
    may be 1-D, a row vector; the last 1-D, a column vector), multiplied left to right.
    RuntimeError "multi_dot(): expected at least 2 tensors but got 1". Mirrors
    torch.linalg.multi_dot."""
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    r = tensors[0]
    for t in tensors[1:]:
        r = _ext.matmul(r, t)
    if out is not None:
        out.copy_(r)
        return out
    return r


def matrix_power(A, n, *, out=None):
    """``linalg.matrix_power(A, n, *, out=None)``: ``A`` raised to the integer power ``n`` by
    repeated squaring (``n = 0``: the identity; ``n < 0``: powers of ``linalg.inv(A)``). Mirrors
    torch.linalg.matrix_power."""
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            "linalg.matrix_power: A must be batches of square matrices, "
            f"but they are {A.shape[-2] if A.dim() >= 2 else 0} by {A.shape[-1] if A.dim() >= 1 else 0} matrices"
        )
    if n == 0:
        r = _ext.eye(A.shape[-1], dtype=A.dtype).expand(A.shape).clone()
    else:
        base = inv(A) if n < 0 else A
        k = abs(n)
        r = None
        while k:
            if k & 1:
                r = base.clone() if r is None else _ext.matmul(r, base)
            k >>= 1
            if k:
                base = _ext.matmul(base, base)
    if out is not None:
        out.copy_(r)
        return out
    return r


def _tolerance(s, A, atol, rtol):
    """torch's pinv/matrix_rank threshold: max(atol, rtol * largest singular value), with rtol
    eps * max(m, n) when neither is given (and 0 when only atol is)."""
    eps = 1.1920928955078125e-07 if A.dtype == _ext.float32 else 2.220446049250313e-16
    if rtol is None:
        rtol = 0.0 if (atol is not None and atol > 0) else eps * max(A.shape[-2], A.shape[-1])
    atol = 0.0 if atol is None else atol
    smax = s.amax(-1, keepdim=True) if s.shape[-1] > 0 else _ext.zeros(s.shape[:-1] + (1,), dtype=s.dtype)
    return _ext.clamp(smax * rtol, min=atol)


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """``linalg.pinv(A, *, atol=None, rtol=None, hermitian=False, out=None)``: the Moore-Penrose
    pseudoinverse of ``A`` ``(*, m, n)`` -> ``(*, n, m)``, from the SVD (``eigh`` when
    ``hermitian``): singular values at or below ``max(atol, rtol * largest)`` count as zero
    (default ``rtol``: eps * max(m, n)). Mirrors torch.linalg.pinv."""
    if hermitian:
        w, V = eigh(A)
        tol = _tolerance(w.abs(), A, atol, rtol)
        inv_w = _ext.where(w.abs() > tol, 1.0 / w, _ext.zeros_like(w))
        r = _ext.matmul(V * inv_w.unsqueeze(-2), V.mT)
    else:
        U, S, Vh = svd(A, full_matrices=False)
        tol = _tolerance(S, A, atol, rtol)
        inv_s = _ext.where(S > tol, 1.0 / S, _ext.zeros_like(S))
        r = _ext.matmul(Vh.mT * inv_s.unsqueeze(-2), U.mT)
    if out is not None:
        out.copy_(r)
        return out
    return r


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """``linalg.matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None)``: the number
    of singular values (eigenvalue magnitudes when ``hermitian``) above ``max(atol, rtol *
    largest)``, int64 of shape ``*``. Mirrors torch.linalg.matrix_rank."""
    s = eigvalsh(A).abs() if hermitian else svdvals(A)
    tol = _tolerance(s, A, atol, rtol)
    r = (s > tol).sum(-1)
    if out is not None:
        out.copy_(r)
        return out
    return r


def cond(A, p=None, *, out=None):
    """``linalg.cond(A, p=None, *, out=None)``: the condition number of ``A`` in the norm ``p``:
    the ratio of the extreme singular values for ``p`` None, 2 or -2, else
    ``matrix_norm(A, p) * matrix_norm(inv(A), p)`` (square ``A``). Mirrors torch.linalg.cond."""
    if p is None or p in (2, -2):
        s = svdvals(A)
        r = s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
    else:
        r = matrix_norm(A, p) * matrix_norm(inv(A), p)
    if out is not None:
        out.copy_(r)
        return out
    return r


def lstsq(A, B, rcond=None, *, driver=None):
    """``linalg.lstsq(A, B, rcond=None, *, driver=None)``: the least-squares solution of
    ``A X = B`` for ``A`` ``(*, m, n)``, ``B`` ``(*, m, k)``, as the named tuple ``(solution,
    residuals, rank, singular_values)``; computed through the pseudoinverse (torch's CPU default
    driver ``gelsy`` returns the same minimum-norm solution for full-rank ``A``). As LAPACK's
    drivers: ``residuals`` are the squared residuals of each column for ``gels`` / ``gelsd`` /
    ``gelss`` when ``m > n`` and ``A`` has full column rank, else empty; ``rank`` is the numerical rank (empty for ``gels``);
    ``singular_values`` are ``A``'s for ``gelsd`` / ``gelss``, else empty. Mirrors
    torch.linalg.lstsq."""
    if driver is not None and driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(
            f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"
        )
    vector = B.dim() == A.dim() - 1
    Bm = B.unsqueeze(-1) if vector else B
    P = pinv(A, rtol=rcond)
    Xm = _ext.matmul(P, Bm)
    X = Xm.squeeze(-1) if vector else Xm
    empty = _ext.empty(0, dtype=A.dtype)
    residuals = empty
    m, n = A.shape[-2], A.shape[-1]
    if driver in ("gels", "gelsd", "gelss") and m > n:
        # LAPACK's drivers return the squared residual of each column when every matrix of A
        # has full column rank (else nothing).
        if bool((matrix_rank(A) == n).all()):
            residuals = ((_ext.matmul(A, Xm) - Bm) ** 2).sum(-2)
    # As LAPACK's drivers: `gels` computes no rank (an empty int64 tensor), `gelsd` and `gelss`
    # also return the singular values.
    if driver == "gels":
        rank = _ext.empty(0, dtype=_ext.int64)
    else:
        rank = matrix_rank(A, rtol=rcond)
    sv = svdvals(A) if driver in ("gelsd", "gelss") else empty
    return _LstsqResult(X, residuals, rank, sv)


def vander(x, *, N=None):
    """``linalg.vander(x, *, N=None)``: the Vandermonde matrix of ``x`` ``(*, n)``: columns
    ``x**0, x**1, ..., x**(N-1)`` (``N`` defaults to ``n``), shape ``(*, n, N)``; a 0-dim ``x``
    counts as one element (shape ``(1, N)``). Integer inputs give int64 (as NumPy and torch).
    RuntimeError "N must be greater than 1." when ``N <= 1``; NotImplementedError for bool.
    Mirrors torch.linalg.vander."""
    if x.dtype == _ext.bool:
        raise NotImplementedError(
            "linalg.vander supports floating point, complex, and integer tensors, but got Bool")
    if x.dim() == 0:
        x = x.reshape(1)
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    if not x.is_floating_point():
        x = x.to(_ext.int64)
    # torch: cumprod of x repeated N - 1 times, after a column of ones.
    powers = _ext.cumprod(x.unsqueeze(-1).expand(tuple(x.shape) + (n - 1,)), -1)
    return _ext.cat([_ext.ones(tuple(x.shape) + (1,), dtype=x.dtype), powers], -1)


def _prod(sizes):
    r = 1
    for v in sizes:
        r *= v
    return r


def tensorinv(A, ind=2, *, out=None):
    """``linalg.tensorinv(A, ind=2, *, out=None)``: the inverse of ``A`` for ``tensordot`` over
    ``ind`` dims: ``A`` reshaped to the square matrix ``(prod(A.shape[:ind]), prod(A.shape[ind:]))``,
    inverted, shape ``A.shape[ind:] + A.shape[:ind]``. RuntimeError when ``ind <= 0`` or the two
    products differ; LinAlgError "inv: ..." for a singular matrix. Mirrors torch.linalg.tensorinv."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = tuple(A.shape)
    if ind > len(shape):
        raise RuntimeError(f"ArrayRef: invalid slice, N = {ind}; size = {len(shape)}")
    end, start = shape[ind:], shape[:ind]
    p_end, p_start = _prod(end), _prod(start)
    if p_end != p_start:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            f"prod(self.shape[:ind]), but got {p_end} != {p_start}"
        )
    r, info = inv_ex(A.reshape(p_end, p_end))
    if info.item() > 0:
        # torch's _linalg_check_errors(info, "inv", is_matrix=True).
        raise LinAlgError(
            f"inv: The diagonal element {info.item()} is zero, the inversion could not be "
            "completed because the input matrix is singular."
        )
    r = r.reshape(end + start)
    if out is not None:
        out.copy_(r)
        return out
    return r


def tensorsolve(A, B, dims=None, *, out=None):
    """``linalg.tensorsolve(A, B, dims=None, *, out=None)``: the ``X`` with
    ``tensordot(A, X, X.ndim) == B``: the dims ``dims`` of ``A`` moved to the end, ``A`` reshaped
    to a square matrix of side ``prod(B.shape)``, solved against ``B`` flattened; shape
    ``A.shape[B.ndim:]``. RuntimeError when the sizes do not make a square matrix. Mirrors
    torch.linalg.tensorsolve."""
    ndim = A.dim()
    if dims is not None:
        dims = list(dims) if isinstance(dims, (list, tuple)) else [dims]
        A = _ext.movedim(A, dims, list(range(ndim - len(dims), ndim)))
    result_shape = tuple(A.shape)[B.dim():]
    r_prod, b_prod = _prod(result_shape), B.numel()
    if r_prod != b_prod:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {r_prod} != {b_prod}"
        )
    r = solve(A.reshape(r_prod, r_prod), B.flatten()).reshape(result_shape)
    if out is not None:
        out.copy_(r)
        return out
    return r


class _LstsqResult(tuple):
    """The named tuple ``(solution, residuals, rank, singular_values)`` of ``lstsq`` (torch's
    ``torch.return_types.linalg_lstsq``)."""

    __slots__ = ()
    _fields = ("solution", "residuals", "rank", "singular_values")

    def __new__(cls, solution, residuals, rank, singular_values):
        return tuple.__new__(cls, (solution, residuals, rank, singular_values))

    solution = property(lambda self: self[0])
    residuals = property(lambda self: self[1])
    rank = property(lambda self: self[2])
    singular_values = property(lambda self: self[3])

    def __repr__(self):
        return "torch.return_types.linalg_lstsq(" + ", ".join(
            f"{n}={v!r}" for n, v in zip(self._fields, self)
        ) + ")"


_LstsqResult.__name__ = "linalg_lstsq"


__all__ = [
    "LinAlgError", "solve", "solve_ex", "inv", "inv_ex", "det", "slogdet", "cholesky", "cholesky_ex",
    "solve_triangular", "qr", "eigh", "eigvalsh", "svd", "svdvals", "vector_norm",
    "matrix_norm", "norm", "matmul", "diagonal", "cross", "vecdot", "multi_dot", "matrix_power",
    "lu_factor", "lu_factor_ex", "lu", "lu_solve", "pinv", "matrix_rank", "cond", "lstsq", "vander",
    "tensorinv", "tensorsolve",
]
