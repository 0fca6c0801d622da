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
``matrix_rank``, ``cond``, ``lstsq``, ``vander``, ``tensorinv`` and ``tensorsolve``; and
``matrix_exp`` (Padé scaling and squaring) and ``householder_product`` over ``matmul`` and
``solve``, differentiable through the ops they are made of. The top-level functions torch writes
over these — the deprecated ``lu`` and ``lu_solve``, ``lu_unpack``, ``pinverse``, ``matrix_exp``,
``orgqr`` — are defined here and re-exported by ``_C`` (python/_C/__init__.py).

The derivatives of the decompositions (``qr``, ``eigh``, ``svd``, the LU family, ``solve_ex``) are
nodes of the Rust core (src/core/autograd/linalg_formulas.rs), written over recorded ops so that
double backward works.
"""

import math as _math

from . import _C as _ext
from . import _linalg
from .functional import broadcast_shapes as _broadcast_shapes

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
    eps * max(m, n) when neither is given (and 0 when only atol is, and positive). ``atol`` and
    ``rtol`` may be numbers or tensors (broadcast against the batch: torch's ``get_atol_rtol``
    and ``atol.unsqueeze(-1)``)."""
    eps = 1.1920928955078125e-07 if A.dtype == _ext.float32 else 2.220446049250313e-16
    default_rtol = eps * max(A.shape[-2], A.shape[-1])
    if rtol is None:
        if isinstance(atol, _ext.Tensor):
            rtol = _ext.where(atol > 0, 0.0, default_rtol).to(s.dtype)
        else:
            rtol = 0.0 if (atol is not None and atol > 0) else default_rtol
    atol = 0.0 if atol is None else atol
    smax = s.amax(-1, keepdim=True) if s.shape[-1] > 0 else _ext.zeros(s.shape[:-1] + (1,), dtype=s.dtype)
    if isinstance(rtol, _ext.Tensor):
        rtol = rtol.unsqueeze(-1)
    if isinstance(atol, _ext.Tensor):
        return _ext.maximum(smax * rtol, atol.unsqueeze(-1).to(s.dtype))
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
    ``matrix_norm(A, p) * matrix_norm(inv(A), p)`` (square ``A``; ``p`` 1, -1, inf, -inf, 'fro'
    or 'nuc'). Matrices without elements have condition number 0 (torch's convention; a string
    ``p`` still needs square matrices). ValueError for another ``p``; RuntimeError for fewer than
    2 dims or, for ``p`` other than None and ±2, non-square matrices. Mirrors torch.linalg.cond."""
    _check_tensor("linalg_cond", "input", 1, A)
    if isinstance(p, str):
        if p not in ("fro", "nuc"):
            raise ValueError(f"linalg.cond got an invalid norm type: {p}")
        if A.dim() < 2:
            raise RuntimeError(f"linalg.cond(ord={p}): The input tensor A must have at least 2 dimensions.")
        if A.shape[-1] != A.shape[-2]:
            raise RuntimeError(
                f"linalg.cond(ord={p}): A must be batches of square matrices, but they are "
                f"{A.shape[-2]} by {A.shape[-1]} matrices"
            )
    else:
        if p is not None and p not in (1, -1, 2, -2, _math.inf, -_math.inf):
            raise ValueError(f"linalg.cond got an invalid norm type: {p:g}" if isinstance(p, float) else f"linalg.cond got an invalid norm type: {p}")
        if A.dim() < 2:
            raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if A.numel() == 0:
        r = _ext.zeros(tuple(A.shape[:-2]), dtype=A.dtype if A.is_floating_point() else _ext.float32)
    elif p is None or p in (2, -2):
        s = svdvals(A)
        r = s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
    else:
        if A.shape[-1] != A.shape[-2]:
            name = p if isinstance(p, str) else ("inf" if p == _math.inf else "-inf" if p == -_math.inf else int(p))
            raise RuntimeError(
                f"linalg.cond(ord={name}): A must be batches of square matrices, but they are "
                f"{A.shape[-2]} by {A.shape[-1]} matrices"
            )
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


def _named_tuple(name, fields):
    """A tuple type with named fields and torch's ``torch.return_types.<name>`` repr."""

    def __new__(cls, *values):
        return tuple.__new__(cls, values)

    def __repr__(self):
        return f"torch.return_types.{name}(" + ", ".join(
            f"{n}={v!r}" for n, v in zip(fields, self)
        ) + ")"

    ns = {"__slots__": (), "_fields": fields, "__new__": __new__, "__repr__": __repr__}
    for i, f in enumerate(fields):
        ns[f] = property(lambda self, i=i: self[i])
    return type(name, (tuple,), ns)


_LuUnpackResult = _named_tuple("lu_unpack", ("P", "L", "U"))
_LuWithInfoResult = _named_tuple("_lu_with_info", ("LU", "pivots", "info"))


def _write_out(out, values):
    """Copy ``values`` into the tensors of ``out`` (resized as needed), torch's ``out=`` of a
    Python-level multi-output function; returns ``out``'s tensors as the result."""
    if len(out) != len(values):
        raise TypeError(f"expected {len(values)} tensors in out, got {len(out)}")
    for o, v in zip(out, values):
        # `add(v, 0, out=o)`: the op path of out= (resized when empty or of another shape, as
        # torch's out=), for every dtype these functions return (float, int32).
        _ext.add(v, 0, out=o)
    return tuple(out)


def _check_tensor(fname, name, pos, x):
    """torch's parser TypeError for an argument that must be a Tensor."""
    if not isinstance(x, _ext.Tensor):
        raise TypeError(
            f"{fname}(): argument '{name}' (position {pos}) must be Tensor, not {type(x).__name__}"
        )


def _check_float(name, A, what="A"):
    if not A.is_floating_point():
        raise NotImplementedError(
            f"{name}: Expected a floating point or complex tensor as input. Got {_dtype_name(A.dtype)}"
        )


def _dtype_name(dt):
    return {
        "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
        "bool": "Bool", "float32": "Float", "float64": "Double",
    }.get(str(dt).rsplit(".", 1)[-1], str(dt))


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """``lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None)``: the
    named tuple ``(P, L, U)`` of the packed LU factorization ``(LU [*, m, n], pivots [*, k] int32)``
    of ``linalg.lu_factor``: ``P [*, m, m]`` the permutation of the 1-based row swaps,
    ``L [*, m, k]`` unit lower and ``U [*, k, n]`` upper triangular, ``k = min(m, n)``;
    ``A = P L U``. ``P`` is empty when not ``unpack_pivots``, ``L`` and ``U`` when not
    ``unpack_data``. RuntimeError for an input of fewer than 2 dims, non-int32 pivots, or pivots
    outside ``[1, m]``; ValueError for pivots of the wrong shape; TypeError for non-tensors.
    Mirrors torch.lu_unpack."""
    _check_tensor("lu_unpack", "LU_data", 1, LU_data)
    _check_tensor("lu_unpack", "LU_pivots", 2, LU_pivots)
    if LU_data.dim() < 2:
        raise RuntimeError(
            f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: {list(LU_data.shape)} instead"
        )
    if LU_pivots.dtype != _ext.int32:
        raise RuntimeError(
            "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
            "Note: this function is intended to be used with the output produced by torch.linalg.lu_factor"
        )
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    batch = tuple(LU_data.shape[:-2])
    if tuple(LU_pivots.shape) != batch + (k,):
        raise ValueError(
            f"Expected LU_pivots to have shape {list(batch + (k,))} but got {list(LU_pivots.shape)} instead."
        )
    empty = _ext.empty(0, dtype=LU_data.dtype)
    if unpack_data:
        eye = _ext.eye(m, k, dtype=LU_data.dtype)
        L = _ext.tril(LU_data[..., :, :k], -1) + eye
        U = _ext.triu(LU_data[..., :k, :])
    else:
        L, U = empty, _ext.empty(0, dtype=LU_data.dtype)
    if unpack_pivots:
        piv = LU_pivots.reshape(_prod(batch), k).tolist()
        if any(p < 1 or p > m for row in piv for p in row):
            raise RuntimeError(
                "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive."
                "Did you properly pass the result of lu_factor?"
            )
        # The row swaps applied in order give perm (row i of P^T A is row perm[i] of A); then
        # P[perm[i], i] = 1.
        idx = []
        for row in piv:
            perm = list(range(m))
            for i, p in enumerate(row):
                perm[i], perm[p - 1] = perm[p - 1], perm[i]
            idx.append(perm)
        nb = len(idx)
        P = _ext.zeros(nb, m, m, dtype=LU_data.dtype)
        if m > 0 and nb > 0:
            cols = _ext.tensor(idx, dtype=_ext.int64).reshape(nb, 1, m)
            P = P.scatter(1, cols, 1.0)
        P = P.reshape(batch + (m, m))
    else:
        P = _ext.empty(0, dtype=LU_data.dtype)
    if out is not None:
        return _LuUnpackResult(*_write_out(out, (P, L, U)))
    return _LuUnpackResult(P, L, U)


def _lu_top(A, pivot=True, get_infos=False, out=None):
    """``lu(A, pivot=True, get_infos=False, out=None)`` (deprecated in torch): the packed LU
    factorization ``(LU, pivots)`` of ``linalg.lu_factor`` (a plain tuple), or the named tuple
    ``(LU, pivots, infos)`` of ``linalg.lu_factor_ex`` when ``get_infos`` (then a singular
    matrix does not raise). Unlike torch it does not warn. Mirrors torch.lu."""
    LU, pivots, infos = lu_factor_ex(A, pivot=pivot, check_errors=not get_infos)
    if get_infos:
        r = (LU, pivots, infos)
        if out is not None:
            r = _write_out(out, r)
        return _LuWithInfoResult(*r)
    r = (LU, pivots)
    if out is not None:
        r = _write_out(out, r)
    return r


def _lu_solve_top(b, LU_data, LU_pivots, *, out=None):
    """``lu_solve(b, LU_data, LU_pivots, *, out=None)`` (deprecated in torch): the solution of
    ``A X = b`` from ``linalg.lu_factor``'s ``(LU, pivots)`` of ``A``; ``linalg.lu_solve`` with
    the arguments reordered. Mirrors torch.lu_solve."""
    return lu_solve(LU_data, LU_pivots, b, out=out)


def _pinverse(input, rcond=1e-15):
    """``pinverse(input, rcond=1e-15)``: ``linalg.pinv(input, rtol=rcond)``, the Moore-Penrose
    pseudoinverse ``(*, n, m)`` of ``input`` ``(*, m, n)``. Mirrors torch.pinverse."""
    return pinv(input, rtol=rcond)


# Higham (2005), "The scaling and squaring method for the matrix exponential revisited",
# SIAM J. Matrix Anal. Appl. 26(4), 1179-1193: the [13/13] Padé coefficients b_0..b_13 and the
# largest 1-norm theta_13 for which r_13(A) is exp(A) to double precision.
_PADE13 = (
    64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
    129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
    40840800.0, 960960.0, 16380.0, 182.0, 1.0,
)
_THETA13 = 5.371920351148152


def matrix_exp(A):
    """``linalg.matrix_exp(A)``: the matrix exponential of the square matrices ``A`` ``(*, n, n)``
    (float32/float64), by scaling and squaring with the [13/13] Padé approximant (Higham 2005,
    "The scaling and squaring method for the matrix exponential revisited", SIAM J. Matrix Anal.
    Appl. 26(4); Algorithm 2.3, the one scipy.linalg.expm refines; torch uses Bader, Blanes and
    Casas's Taylor variant of the same scheme): each matrix is scaled by ``2**-s`` so that its
    1-norm is at most theta_13 = 5.37, ``exp`` of it is ``(V - U)^-1 (V + U)``, then squared
    ``s`` times; float32 inputs are computed in float64 and rounded once. Composed of matmul,
    solve and where, so it is differentiable (twice too).
    RuntimeError for fewer than 2 dims or non-square matrices; NotImplementedError for
    integer inputs; TypeError for a non-tensor. Mirrors torch.linalg.matrix_exp (also
    ``_C.matrix_exp``)."""
    _check_tensor("linalg_matrix_exp", "input", 1, A)
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_exp: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            "linalg.matrix_exp: A must be batches of square matrices, "
            f"but they are {A.shape[-2]} by {A.shape[-1]} matrices"
        )
    _check_float("linalg.matrix_exp", A)
    n = A.shape[-1]
    if A.dtype == _ext.float32:
        # As the decompositions here: computed in float64 (a recorded cast), rounded once.
        return matrix_exp(A.to(_ext.float64)).to(_ext.float32)
    if A.numel() == 0:
        r = A.clone()
    else:
        batch = tuple(A.shape[:-2])
        # The squarings per matrix (not differentiated: a piecewise-constant choice).
        norms = A.detach().abs().sum(-2).amax(-1).reshape(-1).tolist()
        steps = []
        for v in norms:
            s = 0
            if v != v or v in (float("inf"), float("-inf")):
                s = 0
            elif v > _THETA13:
                s = max(0, int(_math.ceil(_math.log2(v / _THETA13))))
            steps.append(s)
        s_t = _ext.tensor(steps, dtype=A.dtype).reshape(batch + (1, 1))
        X = A * _ext.pow(2.0, -s_t)
        b = _PADE13
        ident = _ext.eye(n, dtype=A.dtype)
        X2 = _ext.matmul(X, X)
        X4 = _ext.matmul(X2, X2)
        X6 = _ext.matmul(X4, X2)
        U = _ext.matmul(
            X,
            _ext.matmul(X6, b[13] * X6 + b[11] * X4 + b[9] * X2)
            + b[7] * X6 + b[5] * X4 + b[3] * X2 + b[1] * ident,
        )
        V = (
            _ext.matmul(X6, b[12] * X6 + b[10] * X4 + b[8] * X2)
            + b[6] * X6 + b[4] * X4 + b[2] * X2 + b[0] * ident
        )
        r = solve(V - U, V + U)
        for k in range(max(steps)):
            r = _ext.where(s_t > k, _ext.matmul(r, r), r)
    return r


def householder_product(A, tau, *, out=None):
    """``linalg.householder_product(A, tau, *, out=None)``: the first ``n`` columns of the
    product ``H_1 H_2 ... H_k`` of Householder reflectors ``H_i = I - tau_i v_i v_i^T`` for
    ``A`` ``(*, m, n)`` (``m >= n``) and ``tau`` ``(*, k)`` (``k <= n``), ``v_i`` the column ``i``
    of ``A`` below the diagonal with a 1 on it (LAPACK's orgqr), shape ``(*, m, n)``; composed
    of differentiable ops. RuntimeError for fewer than 2 dims, ``m < n``, ``k > n``, batch
    dims of ``tau`` that are not ``A``'s, or dtypes that differ; NotImplementedError for
    integer inputs; TypeError for non-tensors. Mirrors torch.linalg.householder_product (also
    ``_C.orgqr``)."""
    _check_tensor("linalg_householder_product", "input", 1, A)
    _check_tensor("linalg_householder_product", "tau", 2, tau)
    f = "torch.linalg.householder_product"
    if A.dim() < 2:
        raise RuntimeError(f"{f}: input must have at least 2 dimensions.")
    m, n = A.shape[-2], A.shape[-1]
    if m < n:
        raise RuntimeError(f"{f}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if tau.dim() > 0 and tau.shape[-1] > n:
        raise RuntimeError(f"{f}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if tau.dim() != A.dim() - 1 or tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(
            f"{f}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got {list(tau.shape[:-1])}"
        )
    if tau.dtype != A.dtype:
        raise RuntimeError(
            f"{f}: tau dtype {_dtype_name(tau.dtype)} does not match input dtype {_dtype_name(A.dtype)}"
        )
    if not A.is_floating_point():
        raise NotImplementedError(f"\"orgqr_cpu\" not implemented for '{_dtype_name(A.dtype)}'")
    k = tau.shape[-1]
    batch = tuple(A.shape[:-2])
    # Q = H_1 ... H_k applied to the first n columns of the identity, right to left.
    Q = _ext.eye(m, n, dtype=A.dtype).expand(batch + (m, n))
    below = _ext.tril(A, -1) + _ext.eye(m, n, dtype=A.dtype)
    for i in range(k - 1, -1, -1):
        v = below[..., :, i : i + 1]
        v = _ext.where(_ext.arange(m).reshape(m, 1) < i, _ext.zeros((), dtype=A.dtype), v)
        t = tau[..., i : i + 1].unsqueeze(-1)
        Q = Q - _ext.matmul(v * t, _ext.matmul(v.mT, Q))
    if out is not None:
        out.copy_(Q)
        return out
    return Q


def _orgqr(input, tau, *, out=None):
    """``orgqr(input, tau, *, out=None)``: ``linalg.householder_product(input, tau)``.
    Mirrors torch.orgqr."""
    return householder_product(input, tau, out=out)




_TriangularSolveResult = _named_tuple("triangular_solve", ("solution", "cloned_coefficient"))


def _triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """``triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None)``
    (deprecated in torch): the named tuple ``(solution, cloned_coefficient)``: the solution of
    ``op(A) X = b`` for the triangular ``A`` ``(*, n, n)`` (the triangle ``upper`` names, ``op``
    the transpose when ``transpose``, a unit diagonal when ``unitriangular``) and ``b``
    ``(*, n, k)``, batches broadcast, and a copy of ``A`` (with the broadcast batch shape); ``linalg.solve_triangular`` with the
    arguments reordered. RuntimeError for a 1-D ``b``, non-square ``A`` or dtypes that differ.
    Mirrors torch.triangular_solve."""
    _check_tensor("triangular_solve", "input", 1, b)
    _check_tensor("triangular_solve", "A", 2, A)
    if b.dim() < 2:
        raise RuntimeError(
            f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has {b.dim()} dimensions instead"
        )
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"A must be batches of square matrices, but they are {A.shape[-2] if A.dim() >= 2 else 1} by {A.shape[-1]} matrices"
        )
    if b.dtype != A.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {_dtype_name(b.dtype)} "
            f"and A of type {_dtype_name(A.dtype)} instead."
        )
    M = A.mT if transpose else A
    x = solve_triangular(M, b, upper=upper != transpose, unitriangular=unitriangular)
    # torch's cloned coefficient has the batch shape broadcast with b's.
    batch = tuple(x.shape[:-2])
    r = (x, A.expand(batch + tuple(A.shape[-2:])).clone())
    if out is not None:
        r = _write_out(out, r)
    return _TriangularSolveResult(*r)


def _cholesky_inverse(L, upper=False, *, out=None):
    """``cholesky_inverse(L, upper=False, *, out=None)``: the inverse of ``A = L L^T`` (``U^T U``
    when ``upper``) from its Cholesky factor ``(*, n, n)``: ``cholesky_solve(I, L, upper)``.
    RuntimeError for fewer than 2 dims or non-square matrices; NotImplementedError for integer
    inputs. Mirrors torch.cholesky_inverse."""
    _check_tensor("cholesky_inverse", "input", 1, L)
    if L.dim() < 2:
        raise RuntimeError("cholesky_inverse: The input tensor A must have at least 2 dimensions.")
    if L.shape[-1] != L.shape[-2]:
        raise RuntimeError(
            f"cholesky_inverse: A must be batches of square matrices, but they are {L.shape[-2]} by {L.shape[-1]} matrices"
        )
    if not L.is_floating_point():
        raise NotImplementedError(f"\"cholesky_inverse_out_cpu\" not implemented for '{_dtype_name(L.dtype)}'")
    eye = _ext.eye(L.shape[-1], dtype=L.dtype).expand(L.shape)
    r = _ext.cholesky_solve(eye, L, upper)
    if out is not None:
        out.copy_(r)
        return out
    return r


_PolarResult = _named_tuple("linalg_polar", ("U", "H"))


def polar(A, *, out=None):
    """``linalg.polar(A, *, out=None)``: the polar decomposition ``A = U H`` of ``A`` ``(*, m, n)``
    (``m >= n``) as the named tuple ``(U, H)``: ``U`` ``(*, m, n)`` with orthonormal columns (the
    nearest such matrix to ``A``) and ``H`` ``(*, n, n)`` symmetric positive semi-definite, from the
    reduced SVD ``A = W S V^T``: ``U = W V^T``, ``H = V S V^T`` (torch's CPU path). RuntimeError
    for fewer than 2 dims or ``m < n``; NotImplementedError for integer inputs; TypeError for a
    non-tensor. Mirrors torch.linalg.polar."""
    _check_tensor("linalg_polar", "A", 1, A)
    if A.dim() < 2:
        raise RuntimeError("linalg.polar: The input tensor A must have at least 2 dimensions.")
    m, n = A.shape[-2], A.shape[-1]
    if m < n:
        raise RuntimeError(
            f"linalg.polar: input must have at least as many rows as columns, but got {m} by {n} matrices"
        )
    _check_float("linalg.polar", A)
    W, S, Vh = svd(A, full_matrices=False)
    U = _ext.matmul(W, Vh)
    H = _ext.matmul(Vh.mT * S.unsqueeze(-2), Vh)
    r = (U, H)
    if out is not None:
        r = _write_out(out, r)
    return _PolarResult(*r)


def matrix_sqrth(A):
    """``linalg.matrix_sqrth(A)``: the principal square root ``X`` (``X X = A``, ``X`` symmetric
    positive semi-definite) of the symmetric positive-definite ``A`` ``(*, n, n)``, of which only
    the lower triangle is read: ``V diag(sqrt(max(L, 0))) V^T`` from ``eigh(A)`` (negative
    eigenvalues, which a positive-definite matrix does not have, count as 0, as torch).
    RuntimeError for fewer than 2 dims or non-square matrices; NotImplementedError for integer
    inputs; TypeError for a non-tensor. Mirrors torch.linalg.matrix_sqrth."""
    _check_tensor("linalg_matrix_sqrth", "A", 1, A)
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_sqrth: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            "linalg.matrix_sqrth: A must be batches of square matrices, but they are "
            f"{A.shape[-2]} by {A.shape[-1]} matrices"
        )
    _check_float("linalg.matrix_sqrth", A)
    L, V = eigh(A)
    root = _ext.sqrt(_ext.clamp_min(L, 0))
    return _ext.matmul(V * root.unsqueeze(-2), V.mT)


# `_C.return_types.geqrf`, the structseq of the `Tensor.geqrf` schema entry (torch.return_types.geqrf).
_GeqrfResult = _ext.return_types.geqrf


def _geqrf(input, *, out=None):
    """``geqrf(input, *, out=None)``: LAPACK's ``geqrf`` QR factorisation of ``input`` ``(*, m, n)``
    as the named tuple ``(a, tau)``: ``R`` on and above the diagonal of ``a``, below it the
    Householder vectors ``v_i`` (their leading 1 implied) of ``Q = H_1 ... H_k``,
    ``H_i = I - tau_i v_i v_i^T``, ``k = min(m, n)``, with LAPACK's conventions (``dlarfg``: the
    diagonal of ``R`` is ``-sign(alpha) * norm``; ``tau_i = 0`` when the column below the
    diagonal is already 0). Unblocked Householder in float64, rounded once; not
    differentiable (torch's is not either). RuntimeError for fewer than 2 dims;
    NotImplementedError for integer inputs; TypeError for a non-tensor. Mirrors torch.geqrf."""
    _check_tensor("geqrf", "input", 1, input)
    if input.dim() < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"geqrf_cpu\" not implemented for '{_dtype_name(input.dtype)}'")
    m, n = input.shape[-2], input.shape[-1]
    k = min(m, n)
    batch = tuple(input.shape[:-2])
    R = input.detach().to(_ext.float64).clone()
    tau = _ext.zeros(batch + (k,), dtype=_ext.float64)
    zero = _ext.zeros((), dtype=_ext.float64)
    for j in range(k):
        alpha = R[..., j, j]
        x = R[..., j + 1 :, j]
        xnorm = vector_norm(x, dim=-1)
        nrm = _ext.sqrt(alpha * alpha + xnorm * xnorm)
        beta = _ext.where(alpha >= 0, -nrm, nrm)
        active = xnorm != 0
        safe_beta = _ext.where(active, beta, _ext.ones((), dtype=_ext.float64))
        t = _ext.where(active, (beta - alpha) / safe_beta, zero)
        denom = _ext.where(active, alpha - beta, _ext.ones((), dtype=_ext.float64))
        v = _ext.where(active.unsqueeze(-1), x / denom.unsqueeze(-1), x)
        # Apply H = I - t [1; v] [1; v]^T to the columns right of j.
        if j + 1 < n:
            rest = R[..., j:, j + 1 :]
            full_v = _ext.cat([_ext.ones(batch + (1,), dtype=_ext.float64), v], -1)
            w = _ext.matmul(full_v.unsqueeze(-2), rest)
            rest.sub_(t.unsqueeze(-1).unsqueeze(-1) * full_v.unsqueeze(-1) * w)
        R[..., j, j] = _ext.where(active, beta, alpha)
        R[..., j + 1 :, j] = v
        tau[..., j] = t
    r = (R.to(input.dtype), tau.to(input.dtype))
    if out is not None:
        r = _write_out(out, r)
    return _GeqrfResult(r)


def _ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """``ormqr(input, tau, other, left=True, transpose=False, *, out=None)``: ``other`` ``C``
    multiplied by ``Q`` (``Q C``, or ``Q^T C`` when ``transpose``; ``C Q`` / ``C Q^T`` when not
    ``left``), ``Q = H_1 ... H_k`` the ``m x m`` product of the Householder reflectors that
    ``geqrf`` leaves in ``input`` ``(*, m, n)`` and ``tau`` ``(*, k)``; the reflectors are applied
    one at a time (LAPACK's ``ormqr`` without forming ``Q``), composed of differentiable ops.
    RuntimeError (torch's texts) for fewer than 2 dims, mismatched shapes, batch dims or dtypes;
    NotImplementedError for integer inputs; TypeError for non-tensors. Mirrors torch.ormqr."""
    _check_tensor("ormqr", "input", 1, input)
    _check_tensor("ormqr", "input2", 2, tau)
    _check_tensor("ormqr", "input3", 3, other)
    f = "torch.ormqr"
    if input.dim() < 2:
        raise RuntimeError(f"{f}: input must have at least 2 dimensions.")
    if other.dim() < 2:
        raise RuntimeError(f"{f}: other must have at least 2 dimensions.")
    side = -2 if left else -1
    k = tau.shape[-1] if tau.dim() > 0 else 1
    if k != min(other.shape[side], input.shape[-1]):
        raise RuntimeError(
            f"{f}: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])"
        )
    if other.shape[side] != input.shape[-2]:
        raise RuntimeError(f"{f}: other.shape[{side}] must be equal to input.shape[-2]")
    if input.dim() - tau.dim() != 1:
        raise RuntimeError(
            f"{f}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
            f"{tau.dim()} and input.ndim is equal to {input.dim()}"
        )
    if input.dim() != other.dim():
        raise RuntimeError(
            f"{f}: Expected other to have the same number of dimensions as input, but got "
            f"other.ndim equal to {other.dim()} and input.ndim is equal to {input.dim()}"
        )
    batch = list(input.shape[:-2])
    if input.dim() > 2:
        if list(tau.shape[:-1]) != batch:
            raise RuntimeError(
                f"{f}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got {list(tau.shape[:-1])}"
            )
        if list(other.shape[:-2]) != batch:
            raise RuntimeError(
                f"{f}: Expected batch dimensions of other to be equal to input.shape[:-2], but got {list(other.shape[:-2])}"
            )
    for name, t in (("tau", tau), ("other", other)):
        if t.dtype != input.dtype:
            raise RuntimeError(
                f"{f}: Expected input and {name} to have the same dtype, but input has dtype"
                f"{_dtype_name(input.dtype)} and {name} has dtype {_dtype_name(t.dtype)}"
            )
    if not input.is_floating_point():
        raise NotImplementedError(f"\"ormqr_cpu\" not implemented for '{_dtype_name(input.dtype)}'")
    m = input.shape[-2]
    below = _ext.tril(input, -1)[..., :, :k] + _ext.eye(m, k, dtype=input.dtype)
    # Q C = H_1 (H_2 (... H_k C)); Q^T C = H_k (... H_1 C); C Q = ((C H_1) H_2) ...; C Q^T the
    # reverse. Each H_i = I - tau_i v_i v_i^T is symmetric.
    forward = left == transpose
    order = range(k) if forward else range(k - 1, -1, -1)
    C = other
    for i in order:
        v = below[..., :, i : i + 1]
        if i > 0:
            v = _ext.cat([_ext.zeros(tuple(batch) + (i, 1), dtype=input.dtype), v[..., i:, :]], -2)
        t = tau[..., i : i + 1].unsqueeze(-1)
        if left:
            C = C - _ext.matmul(v * t, _ext.matmul(v.mT, C))
        else:
            C = C - _ext.matmul(_ext.matmul(C, v), v.mT * t)
    if out is not None:
        out.copy_(C)
        return out
    return C if C is not other else other.clone()


_LdlFactorExResult = _named_tuple("linalg_ldl_factor_ex", ("LD", "pivots", "info"))
_LdlFactorResult = _named_tuple("linalg_ldl_factor", ("LD", "pivots"))
_BK_ALPHA = (1.0 + _math.sqrt(17.0)) / 8.0


def _sytf2_lower(M):
    """LAPACK's unblocked ``dsytf2`` with ``uplo='L'`` (Bunch-Kaufman diagonal pivoting) on the
    float64 ``n x n`` tensor ``M``, in place: returns ``(pivots, info)`` with LAPACK's 1-based
    pivots (negative for a 2x2 block) and ``info`` (the first zero pivot, 1-based, or 0). Only the
    lower triangle is read and written; the decisions need scalars (``item``), the updates are
    tensor ops, rounded as LAPACK's ``dsyr`` and the 2x2 update loop round."""
    n = M.shape[0]
    piv = [0] * n
    info = 0
    k = 0
    while k < n:
        kstep = 1
        absakk = abs(M[k, k].item())
        if k < n - 1:
            col = M[k + 1 :, k].abs()
            imax = k + 1 + int(col.argmax().item())
            colmax = abs(M[imax, k].item())
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0.0 or absakk != absakk:
            if info == 0:
                info = k + 1
            kp = k
        else:
            if absakk >= _BK_ALPHA * colmax:
                kp = k
            else:
                row = M[imax, k:imax].abs()
                rowmax = abs(M[imax, k + int(row.argmax().item())].item())
                if imax < n - 1:
                    rest = M[imax + 1 :, imax].abs()
                    rowmax = max(rowmax, abs(M[imax + 1 + int(rest.argmax().item()), imax].item()))
                if absakk >= _BK_ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif abs(M[imax, imax].item()) >= _BK_ALPHA * rowmax:
                    kp = imax
                else:
                    kp = imax
                    kstep = 2
            kk = k + kstep - 1
            if kp != kk:
                if kp < n - 1:
                    a, b = M[kp + 1 :, kk].clone(), M[kp + 1 :, kp].clone()
                    M[kp + 1 :, kk] = b
                    M[kp + 1 :, kp] = a
                a, b = M[kk + 1 : kp, kk].clone(), M[kp, kk + 1 : kp].clone()
                M[kk + 1 : kp, kk] = b
                M[kp, kk + 1 : kp] = a
                t = M[kk, kk].item()
                M[kk, kk] = M[kp, kp].item()
                M[kp, kp] = t
                if kstep == 2:
                    t = M[k + 1, k].item()
                    M[k + 1, k] = M[kp, k].item()
                    M[kp, k] = t
            if kstep == 1:
                if k < n - 1:
                    d11 = 1.0 / M[k, k].item()
                    x = M[k + 1 :, k].clone()
                    # dsyr: A(i, j) += x(i) * (-d11 * x(j)), the lower triangle (the upper is
                    # never read and is zeroed at the end).
                    M[k + 1 :, k + 1 :].add_(x.unsqueeze(1) * (-d11 * x).unsqueeze(0))
                    M[k + 1 :, k] = x * d11
            elif k < n - 2:
                d21 = M[k + 1, k].item()
                d11 = M[k + 1, k + 1].item() / d21
                d22 = M[k, k].item() / d21
                t = 1.0 / (d11 * d22 - 1.0)
                d21 = t / d21
                c0, c1 = M[k + 2 :, k].clone(), M[k + 2 :, k + 1].clone()
                wk = d21 * (d11 * c0 - c1)
                wkp1 = d21 * (d22 * c1 - c0)
                M[k + 2 :, k + 2 :].sub_(c0.unsqueeze(1) * wk.unsqueeze(0) + c1.unsqueeze(1) * wkp1.unsqueeze(0))
                M[k + 2 :, k] = wk
                M[k + 2 :, k + 1] = wkp1
        if kstep == 1:
            piv[k] = kp + 1
        else:
            piv[k] = piv[k + 1] = -(kp + 1)
        k += kstep
    return piv, info


def _ldl_check(f, A, name="A"):
    if A.dim() < 2:
        raise RuntimeError(f"torch.linalg.{f}: The input tensor {name} must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"torch.linalg.{f}: {name} must be batches of square matrices, but they are "
            f"{A.shape[-2]} by {A.shape[-1]} matrices"
        )


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """``linalg.ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None)``: the LDL
    factorisation ``P A P^T = L D L^T`` of the symmetric ``A`` ``(*, n, n)`` (only its lower
    triangle is read) by Bunch-Kaufman diagonal pivoting (LAPACK's ``sytrf``, lower), as the
    named tuple ``(LD, pivots, info)``: ``L`` (unit lower) and the 1x1 and 2x2 blocks of ``D`` in
    ``LD`` (its upper triangle zero), LAPACK's int32 1-based ``pivots`` (a 2x2 block's are negative)
    and int32 ``info`` (``k`` when ``D[k-1, k-1]`` is exactly 0, else 0). ``hermitian`` is the same
    for real inputs. Computed in float64 and rounded once; not differentiable (torch's is not
    either). RuntimeError for fewer than 2 dims or non-square matrices, or with ``check_errors``
    a non-zero ``info``; NotImplementedError for integer inputs. Mirrors
    torch.linalg.ldl_factor_ex."""
    _check_tensor("linalg_ldl_factor_ex", "self", 1, A)
    _ldl_check("ldl_factor_ex", A)
    _check_float("torch.linalg.ldl_factor_ex", A)
    n = A.shape[-1]
    batch = tuple(A.shape[:-2])
    nb = _math.prod(batch)
    flat = A.detach().to(_ext.float64).reshape(nb, n, n)
    LD = _ext.zeros(flat.shape, dtype=_ext.float64)
    pivots, infos = [], []
    for i in range(flat.shape[0]):
        M = flat[i].clone()
        piv, info = _sytf2_lower(M)
        LD[i] = _ext.tril(M)
        pivots.append(piv)
        infos.append(info)
    if check_errors:
        for info in infos:
            if info > 0:
                raise RuntimeError(f"torch.linalg.ldl_factor_ex: Unknown error code: {info}.")
    r = (
        LD.reshape(A.shape).to(A.dtype),
        _ext.tensor(pivots, dtype=_ext.int32).reshape(batch + (n,)),
        _ext.tensor(infos, dtype=_ext.int32).reshape(batch),
    )
    if out is not None:
        r = _write_out(out, r)
    return _LdlFactorExResult(*r)


def ldl_factor(A, *, hermitian=False, out=None):
    """``linalg.ldl_factor(A, *, hermitian=False, out=None)``: ``ldl_factor_ex`` without ``info``
    (the named tuple ``(LD, pivots)``); a zero pivot is torch's RuntimeError "Unknown error code:
    k." (torch reports it so, as an internal error). Mirrors torch.linalg.ldl_factor."""
    _check_tensor("linalg_ldl_factor", "self", 1, A)
    _ldl_check("ldl_factor_ex", A)
    LD, pivots, info = ldl_factor_ex(A, hermitian=hermitian)
    bad = [v for v in info.flatten().tolist() if v > 0]
    if bad:
        raise RuntimeError(f"torch.linalg.ldl_factor: Unknown error code: {bad[0]}.")
    r = (LD, pivots)
    if out is not None:
        r = _write_out(out, r)
    return _LdlFactorResult(*r)


def _sytrs_lower(LD, piv, B):
    """LAPACK's ``dsytrs`` (lower): overwrites the float64 ``n x k`` tensor ``B`` with the solution
    of ``A X = B`` from ``sytrf``'s ``LD`` (float64 ``n x n``) and 1-based ``piv`` (a list)."""
    n = LD.shape[0]
    k = 0
    while k < n:
        if piv[k] > 0:
            kp = piv[k] - 1
            if kp != k:
                B[[k, kp]] = B[[kp, k]]
            if k < n - 1:
                B[k + 1 :].sub_(LD[k + 1 :, k].unsqueeze(1) * B[k].unsqueeze(0))
            B[k] = B[k] / LD[k, k]
            k += 1
        else:
            kp = -piv[k] - 1
            if kp != k + 1:
                B[[k + 1, kp]] = B[[kp, k + 1]]
            if k < n - 2:
                B[k + 2 :].sub_(LD[k + 2 :, k].unsqueeze(1) * B[k].unsqueeze(0))
                B[k + 2 :].sub_(LD[k + 2 :, k + 1].unsqueeze(1) * B[k + 1].unsqueeze(0))
            akm1k = LD[k + 1, k].item()
            akm1 = LD[k, k].item() / akm1k
            ak = LD[k + 1, k + 1].item() / akm1k
            denom = akm1 * ak - 1.0
            bkm1 = B[k] / akm1k
            bk = B[k + 1] / akm1k
            B[k] = (ak * bkm1 - bk) / denom
            B[k + 1] = (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:
        if piv[k] > 0:
            if k < n - 1:
                B[k].sub_(_ext.matmul(LD[k + 1 :, k], B[k + 1 :]))
            kp = piv[k] - 1
            if kp != k:
                B[[k, kp]] = B[[kp, k]]
            k -= 1
        else:
            if k < n - 1:
                B[k].sub_(_ext.matmul(LD[k + 1 :, k], B[k + 1 :]))
                B[k - 1].sub_(_ext.matmul(LD[k + 1 :, k - 1], B[k + 1 :]))
            kp = -piv[k] - 1
            if kp != k:
                B[[k, kp]] = B[[kp, k]]
            k -= 2


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """``linalg.ldl_solve(LD, pivots, B, *, hermitian=False, out=None)``: the solution ``X``
    ``(*, n, k)`` of ``A X = B`` from ``A``'s factorisation by ``ldl_factor`` (``LD`` ``(*, n, n)``,
    ``pivots`` ``(*, n)`` with ``LD``'s batch shape; ``B`` ``(*, n, k)`` broadcast over the batch),
    LAPACK's ``sytrs``. Computed in float64 and rounded once; not differentiable (torch's is not
    either). RuntimeError (torch's texts) for fewer than 2 dims, non-square ``LD``, pivots of
    another shape, dtypes that differ, or sizes that do not match; NotImplementedError for
    integer inputs. Mirrors torch.linalg.ldl_solve."""
    _check_tensor("linalg_ldl_solve", "LD", 1, LD)
    _check_tensor("linalg_ldl_solve", "pivots", 2, pivots)
    _check_tensor("linalg_ldl_solve", "B", 3, B)
    _ldl_check("ldl_solve", LD, "A")
    if tuple(pivots.shape) != tuple(LD.shape[:-1]):
        raise RuntimeError(
            "torch.linalg.ldl_solve: Expected LD.shape[:-1] and pivots.shape to be the same, "
            f"but got pivots with shape {list(pivots.shape)} instead"
        )
    _check_float("torch.linalg.ldl_solve", LD)
    if pivots.is_floating_point() or pivots.dtype == _ext.bool:
        raise RuntimeError(
            f"torch.linalg.ldl_solve: Expected pivots to be integers. Got {_dtype_name(pivots.dtype)}"
        )
    if B.dtype != LD.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {_dtype_name(B.dtype)} "
            f"and A of type {_dtype_name(LD.dtype)} instead."
        )
    if B.dim() < 2:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-max(B.dim(), 1)}, {max(B.dim(), 1) - 1}], but got -2)"
        )
    n = LD.shape[-1]
    if B.shape[-2] != n:
        raise RuntimeError(
            f"Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix is {n} by {n} "
            f"but each b matrix is {B.shape[-2]} by {B.shape[-1]}"
        )
    batch = tuple(_broadcast_shapes(tuple(LD.shape[:-2]), tuple(B.shape[:-2])))
    nrhs = B.shape[-1]
    nb = _math.prod(batch)
    LDb = LD.detach().to(_ext.float64).expand(batch + (n, n)).reshape(nb, n, n)
    pv = pivots.to(_ext.int64).expand(tuple(LD.shape[:-2]) + (n,))
    pv = pv.reshape(pv.shape[:-1] + (1, n)).expand(batch + (1, n)).reshape(nb, n)
    X = B.detach().to(_ext.float64).expand(batch + (n, nrhs)).reshape(nb, n, nrhs).clone()
    for i in range(X.shape[0]):
        Xi = X[i]
        _sytrs_lower(LDb[i], pv[i].tolist(), Xi)
    r = X.reshape(batch + (n, nrhs)).to(B.dtype)
    if out is not None:
        out.copy_(r)
        return out
    return r


def _approximate_basis(A, q, niter, M):
    """``q`` orthonormal columns ``Q`` with ``Q Q^T (A - M)`` close to ``A - M`` (Halko, Martinsson
    and Tropp 2009, algorithm 4.4: a Gaussian sketch, then ``niter`` subspace iterations, each
    re-orthonormalised by QR)."""
    dtype = A.dtype if A.is_floating_point() else _ext.float32

    def times(X, R):
        P = _ext.matmul(X, R)
        return P if M is None else P - _ext.matmul(M if X is A else M.mT, R)

    Q = qr(times(A, _ext.randn(A.shape[-1], q, dtype=dtype))).Q
    for _ in range(2 if niter is None else niter):
        Q = qr(times(A.mT, Q)).Q
        Q = qr(times(A, Q)).Q
    return Q


def _svd_lowrank(A, q, niter, M):
    q = 6 if q is None else q
    m, n = A.shape[-2], A.shape[-1]
    if M is not None:
        M = M.broadcast_to(A.shape)
    if m < n:
        A = A.mT
        M = None if M is None else M.mT
    Q = _approximate_basis(A, q, niter, M)
    B = _ext.matmul(Q.mT, A)
    if M is not None:
        B = B - _ext.matmul(Q.mT, M)
    U, S, Vh = svd(B, full_matrices=False)
    U, V = _ext.matmul(Q, U), Vh.mT
    return (V, S, U) if m < n else (U, S, V)


def _svd_lowrank_top(A, q=6, niter=2, M=None):
    """``svd_lowrank(A, q=6, niter=2, M=None)``: a randomized approximate SVD ``(U, S, V)`` of ``A``
    ``(*, m, n)`` (of ``A - M`` when ``M``, broadcast to ``A``'s shape, is given), ``A ~ U diag(S)
    V^T`` with ``q`` singular triplets (``q`` at least the rank for an exact result): Halko et al.
    2009, algorithm 5.1 (a Gaussian sketch of ``A``, ``niter`` subspace iterations, then the SVD of
    the ``q x n`` projection). Random: set the seed (``_C.manual_seed``) for repeatable results;
    differentiable through the ops it is made of. Mirrors torch.svd_lowrank (torch's
    ``torch._lowrank``)."""
    _check_tensor("svd_lowrank", "A", 1, A)
    if M is not None:
        _check_tensor("svd_lowrank", "M", 4, M)
    return _svd_lowrank(A, q, niter, M)


def _pca_lowrank_top(A, q=None, center=True, niter=2):
    """``pca_lowrank(A, q=None, center=True, niter=2)``: ``svd_lowrank`` of ``A`` ``(*, m, n)``
    centred on its column means (``center=True``; the rows are samples): ``(U, S, V)`` with the
    principal directions in ``V``'s columns and ``S**2 / (m - 1)`` the variances; ``q`` defaults to
    ``min(6, m, n)``. ValueError for a ``q`` outside ``[0, min(m, n)]`` or a negative ``niter``.
    Random, as svd_lowrank. Mirrors torch.pca_lowrank (dense tensors)."""
    _check_tensor("pca_lowrank", "A", 1, A)
    m, n = A.shape[-2], A.shape[-1]
    if q is None:
        q = min(6, m, n)
    elif not (0 <= q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter, None)
    return _svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter, None)


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
    "tensorinv", "tensorsolve", "matrix_exp", "householder_product", "polar", "matrix_sqrth",
    "ldl_factor", "ldl_factor_ex", "ldl_solve",
]
