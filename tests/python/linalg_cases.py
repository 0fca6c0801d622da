"""Cases of the _C.linalg and _C.special tests (test_linalg_ns.py): each is run with
``L = linalg, S = special, T = the top-level namespace`` bound to torch (by
gen_linalg_expected.py, which records torch's answers in linalg_expected.json) and to _C (by the
tests, which compare). A case is ``(id, inputs, code)``: ``inputs`` maps names to
``(shape, dtype, kind)`` (kind "randn", "rand" or a list of values); ``code`` sets ``out``.

Singular and eigenvectors are unique only up to sign: their cases compare what is unique — the
reconstruction, ``Q.mT @ Q``, ``|R|``, the values — as torch's own tests do.
"""

F32, F64 = "float32", "float64"


def _both(cid, inputs, code):
    """The case for float32 and for float64 inputs."""
    out = []
    for dt in (F32, F64):
        ins = {k: (shape, dt if d is None else d, kind) for k, (shape, d, kind) in inputs.items()}
        out.append((f"{cid}_{dt}", ins, code))
    return out


def _expand(cid, inputs, code):
    """Both dtypes when no input names its dtype; else one case (unnamed dtypes float64)."""
    if all(d is None for (_, d, _) in inputs.values()):
        return _both(cid, inputs, code)
    return [(cid, {k: (s, d or F64, kind) for k, (s, d, kind) in inputs.items()}, code)]


M3 = [[4.0, -2.0, 1.0], [3.0, 6.0, -4.0], [2.0, 1.0, 8.0]]
SING = [[1.0, 2.0], [2.0, 4.0]]
SPD_CODE = "X = A @ A.mT + 3 * T.eye(A.shape[-1], dtype=A.dtype)\n"

LINALG = []
for cid, ins, code in [
    # inv / inv_ex
    ("inv", {"A": ([3, 3], None, "randn")}, "out = L.inv(A)"),
    ("inv_batch", {"A": ([2, 3, 3], None, "randn")}, "out = L.inv(A)"),
    ("inv_fixed", {"A": ([3, 3], None, M3)}, "out = L.inv(A)"),
    ("inverse", {"A": ([4, 4], None, "randn")}, "out = T.inverse(A)"),
    ("inverse_method", {"A": ([4, 4], None, "randn")}, "out = A.inverse()"),
    ("inv_singular", {"A": ([2, 2], None, SING)}, "out = L.inv(A)"),
    ("inv_singular_batch", {"A": ([2, 2], None, SING)}, "out = L.inv(T.stack([T.eye(2, dtype=A.dtype), A]))"),
    ("inv_ex_singular", {"A": ([2, 2], None, SING)}, "out = L.inv_ex(A).info"),
    ("inv_ex_ok", {"A": ([3, 3], None, M3)}, "r = L.inv_ex(A)\nout = (r.inverse, r.info)"),
    ("inv_ex_check", {"A": ([2, 2], None, SING)}, "out = L.inv_ex(A, check_errors=True)"),
    ("inv_nonsquare", {"A": ([2, 3], None, "randn")}, "out = L.inv(A)"),
    ("inv_1d", {"A": ([3], None, "randn")}, "out = L.inv(A)"),
    ("inv_empty", {"A": ([0, 0], None, "randn")}, "out = L.inv(A)"),
    # det / slogdet / logdet
    ("det", {"A": ([4, 4], None, "randn")}, "out = L.det(A)"),
    ("det_fixed", {"A": ([3, 3], None, M3)}, "out = L.det(A)"),
    ("det_batch", {"A": ([2, 3, 3, 3], None, "randn")}, "out = L.det(A)"),
    ("det_top", {"A": ([3, 3], None, "randn")}, "out = (T.det(A), A.det())"),
    ("det_singular", {"A": ([2, 2], None, SING)}, "out = L.det(A)"),
    ("det_empty", {"A": ([0, 0], None, "randn")}, "out = L.det(A)"),
    ("slogdet", {"A": ([2, 4, 4], None, "randn")}, "r = L.slogdet(A)\nout = (r.sign, r.logabsdet)"),
    ("slogdet_swap", {"A": ([2, 2], None, [[0.0, 1.0], [1.0, 0.0]])}, "out = tuple(L.slogdet(A))"),
    ("slogdet_top", {"A": ([3, 3], None, M3)}, "out = tuple(T.slogdet(A))"),
    ("logdet", {"A": ([3, 3], None, M3)}, "out = (T.logdet(A), A.logdet(), T.logdet(-A))"),
    # solve
    ("solve_vec", {"A": ([3, 3], None, "randn"), "b": ([3], None, "randn")}, "out = L.solve(A, b)"),
    ("solve_mat", {"A": ([3, 3], None, "randn"), "B": ([3, 2], None, "randn")}, "out = L.solve(A, B)"),
    ("solve_batch_vec", {"A": ([2, 3, 3], None, "randn"), "b": ([2, 3], None, "randn")}, "out = L.solve(A, b)"),
    ("solve_bcast", {"A": ([2, 3, 3], None, "randn"), "B": ([3, 1], None, "randn")}, "out = L.solve(A, B)"),
    ("solve_right", {"A": ([3, 3], None, "randn"), "B": ([2, 3], None, "randn")}, "out = L.solve(A, B, left=False)"),
    ("solve_singular", {"A": ([2, 2], None, SING), "b": ([2], None, "randn")}, "out = L.solve(A, b)"),
    ("solve_shape", {"A": ([2, 2], None, "randn"), "b": ([3], None, "randn")}, "out = L.solve(A, b)"),
    ("solve_ex", {"A": ([2, 2], None, SING), "b": ([2], None, "randn")}, "out = L.solve_ex(A, b).info"),
    # cholesky
    ("cholesky", {"A": ([4, 4], None, "randn")}, SPD_CODE + "out = L.cholesky(X)"),
    ("cholesky_upper", {"A": ([2, 3, 3], None, "randn")}, SPD_CODE + "out = L.cholesky(X, upper=True)"),
    ("cholesky_notpd", {"A": ([2, 2], None, SING)}, "out = L.cholesky(A)"),
    ("cholesky_notpd_batch", {"A": ([2, 2], None, SING)}, "out = L.cholesky(T.stack([T.eye(2, dtype=A.dtype), A]))"),
    ("cholesky_ex", {"A": ([2, 2], None, SING)}, "out = L.cholesky_ex(A).info"),
    ("cholesky_ex_ok", {"A": ([3, 3], None, "randn")}, SPD_CODE + "r = L.cholesky_ex(X)\nout = (r.L, r.info)"),
    ("cholesky_solve", {"A": ([3, 3], None, "randn"), "B": ([3, 2], None, "randn")},
     SPD_CODE + "out = T.cholesky_solve(B, L.cholesky(X))"),
    ("cholesky_solve_upper", {"A": ([3, 3], None, "randn"), "B": ([3, 2], None, "randn")},
     SPD_CODE + "out = T.cholesky_solve(B, L.cholesky(X, upper=True), upper=True)"),
    # solve_triangular
    ("solve_triangular_upper", {"A": ([3, 3], None, M3), "B": ([3, 2], None, "randn")},
     "out = L.solve_triangular(A, B, upper=True)"),
    ("solve_triangular_lower_right", {"A": ([3, 3], None, M3), "B": ([2, 3], None, "randn")},
     "out = L.solve_triangular(A, B, upper=False, left=False)"),
    ("solve_triangular_unit", {"A": ([3, 3], None, M3), "B": ([3, 1], None, "randn")},
     "out = L.solve_triangular(A, B, upper=False, unitriangular=True)"),
    # qr (sign-invariant checks)
    ("qr_reduced", {"A": ([4, 3], None, "randn")},
     "Q, R = L.qr(A)\nout = (Q @ R, Q.mT @ Q, R.abs(), tuple(Q.shape), tuple(R.shape))"),
    ("qr_wide", {"A": ([2, 4], None, "randn")}, "Q, R = L.qr(A)\nout = (Q @ R, R.abs())"),
    ("qr_complete", {"A": ([2, 4, 3], None, "randn")},
     "Q, R = L.qr(A, mode='complete')\nout = (Q @ R, Q.mT @ Q, tuple(Q.shape), tuple(R.shape))"),
    ("qr_r", {"A": ([4, 3], None, "randn")}, "Q, R = L.qr(A, mode='r')\nout = (tuple(Q.shape), R.abs())"),
    ("qr_eye", {"A": ([3, 3], None, [[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]])}, "out = tuple(L.qr(A))"),
    ("qr_badmode", {"A": ([3, 3], None, "randn")}, "out = L.qr(A, mode='bad')"),
    # eigh
    ("eigh", {"A": ([4, 4], None, "randn")},
     "X = A + A.mT\nw, V = L.eigh(X)\nout = (w, (V * w.unsqueeze(-2)) @ V.mT, V.mT @ V)"),
    ("eigh_upper_batch", {"A": ([2, 3, 3], None, "randn")},
     "w, V = L.eigh(A, UPLO='U')\nX = A.triu() + A.triu(1).mT\nout = (w, (V * w.unsqueeze(-2)) @ V.mT)"),
    ("eigvalsh", {"A": ([5, 5], None, "randn")}, "out = L.eigvalsh(A)"),
    ("eigvalsh_U", {"A": ([5, 5], None, "randn")}, "out = L.eigvalsh(A, UPLO='U')"),
    ("eigh_baduplo", {"A": ([2, 2], None, "randn")}, "out = L.eigh(A, UPLO='X')"),
    ("eigh_eye", {"A": ([2, 2], None, [[1.0, 0.0], [0.0, 1.0]])}, "out = tuple(L.eigh(A))"),
    # svd
    ("svd_tall", {"A": ([5, 3], None, "randn")},
     "U, S, Vh = L.svd(A, full_matrices=False)\nout = (S, (U * S.unsqueeze(-2)) @ Vh, U.mT @ U, Vh @ Vh.mT)"),
    ("svd_wide_full", {"A": ([3, 5], None, "randn")},
     "U, S, Vh = L.svd(A)\nout = (S, tuple(U.shape), tuple(Vh.shape), U.mT @ U, Vh @ Vh.mT, (U * S.unsqueeze(-2)) @ Vh[:3])"),
    ("svd_batch", {"A": ([2, 4, 4], None, "randn")},
     "U, S, Vh = L.svd(A)\nout = (S, (U * S.unsqueeze(-2)) @ Vh)"),
    ("svd_rank1", {"A": ([3, 3], None, [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [3.0, 6.0, 9.0]])},
     "U, S, Vh = L.svd(A)\nout = (S, U.mT @ U, Vh @ Vh.mT)"),
    ("svdvals", {"A": ([2, 3, 6], None, "randn")}, "out = L.svdvals(A)"),
    ("svd_1d", {"A": ([3], None, "randn")}, "out = L.svd(A)"),
    # norms
    ("vector_norm", {"x": ([3, 4], None, "randn")},
     "out = (L.vector_norm(x), L.vector_norm(x, 1), L.vector_norm(x, float('inf')), L.vector_norm(x, -float('inf')), L.vector_norm(x, 0), L.vector_norm(x, 3.5, dim=1), L.vector_norm(x, dim=(0, 1), keepdim=True))"),
    ("vector_norm_dtype", {"x": ([4], F32, "randn")}, "out = L.vector_norm(x, dtype=T.float64)"),
    ("vector_norm_long", {"x": ([4], "int64", [1, 2, 3, 4])}, "out = L.vector_norm(x)"),
    ("matrix_norm", {"A": ([2, 3, 4], None, "randn")},
     "out = tuple(L.matrix_norm(A, o) for o in ('fro', 'nuc', 1, -1, 2, -2, float('inf'), -float('inf')))"),
    ("matrix_norm_dim", {"A": ([2, 3, 4], None, "randn")},
     "out = (L.matrix_norm(A, dim=(0, 2)), L.matrix_norm(A, 1, dim=(2, 0), keepdim=True), L.matrix_norm(A, 'nuc', dim=(0, 1), keepdim=True))"),
    ("matrix_norm_bad", {"A": ([2, 2], None, "randn")}, "out = L.matrix_norm(A, 3)"),
    ("matrix_norm_badstr", {"A": ([2, 2], None, "randn")}, "out = L.matrix_norm(A, 'abc')"),
    ("matrix_norm_1d", {"A": ([2], None, "randn")}, "out = L.matrix_norm(A)"),
    ("norm", {"A": ([3, 3], None, "randn")},
     "out = (L.norm(A), L.norm(A, 'fro'), L.norm(A, 'nuc'), L.norm(A, 2), L.norm(A, -1), L.norm(A, float('inf')), L.norm(A, dim=1), L.norm(A, 3, dim=0), L.norm(A.reshape(-1), 1))"),
    ("norm_3d", {"A": ([2, 2, 2], None, "randn")}, "out = (L.norm(A), L.norm(A, dim=(1, 2)))"),
    ("norm_3d_ord", {"A": ([2, 2, 2], None, "randn")}, "out = L.norm(A, 2)"),
    # dtype errors
    ("inv_long", {"A": ([2, 2], "int64", [1, 0, 0, 1])}, "out = L.inv(A)"),
    ("det_long", {"A": ([2, 2], "int64", [1, 0, 0, 1])}, "out = L.det(A)"),
    ("svd_long", {"A": ([2, 2], "int64", [1, 0, 0, 1])}, "out = L.svd(A)"),
    ("eigh_long", {"A": ([2, 2], "int64", [1, 0, 0, 1])}, "out = L.eigh(A)"),
    ("solve_dtypes", {"A": ([2, 2], F32, "randn"), "b": ([2], F64, "randn")}, "out = L.solve(A, b)"),
    # LU
    ("lu_factor", {"A": ([3, 3], None, M3)}, "out = tuple(L.lu_factor(A))"),
    ("lu_factor_rect", {"A": ([2, 3, 4], None, "randn")}, "out = tuple(L.lu_factor(A))"),
    ("lu_factor_tall", {"A": ([4, 2], None, "randn")}, "out = tuple(L.lu_factor(A))"),
    ("lu_factor_singular", {"A": ([2, 2], None, SING)}, "out = L.lu_factor(A)"),
    ("lu_factor_ex", {"A": ([2, 2], None, SING)}, "out = tuple(L.lu_factor_ex(A))"),
    ("lu_factor_nopivot", {"A": ([2, 2], None, SING)}, "out = L.lu_factor(A, pivot=False)"),
    ("lu", {"A": ([3, 4], None, "randn")}, "out = tuple(L.lu(A))"),
    ("lu_tall_batch", {"A": ([2, 4, 3], None, "randn")}, "out = tuple(L.lu(A))"),
    ("lu_solve", {"A": ([3, 3], None, "randn"), "B": ([3, 2], None, "randn")},
     "LU, piv = L.lu_factor(A)\nout = (L.lu_solve(LU, piv, B), L.lu_solve(LU, piv, B, adjoint=True), L.lu_solve(LU, piv, B.mT, left=False))"),
    ("lu_solve_bad_pivots", {"A": ([2, 3, 3], None, "randn"), "B": ([2, 3, 1], None, "randn")},
     "LU, piv = L.lu_factor(A)\nout = L.lu_solve(LU, piv[:1], B)"),
    ("lu_solve_long_pivots", {"A": ([3, 3], None, "randn"), "B": ([3, 1], None, "randn")},
     "LU, piv = L.lu_factor(A)\nout = L.lu_solve(LU, piv.long(), B)"),
    ("svd_top", {"A": ([4, 3], None, "randn")},
     "U, S, V = T.svd(A)\nout = (S, (U * S.unsqueeze(-2)) @ V.mT, tuple(U.shape), tuple(V.shape))"),
    ("svd_top_full", {"A": ([4, 3], None, "randn")},
     "U, S, V = T.svd(A, some=False)\nout = (S, tuple(U.shape), tuple(V.shape), U.mT @ U)"),
    ("svd_top_nouv", {"A": ([4, 3], None, "randn")}, "out = tuple(T.svd(A, compute_uv=False))"),
    ("svd_method", {"A": ([3, 3], None, M3)}, "out = A.svd().S"),
    # compositions: pinv, matrix_rank, cond, lstsq, vander
    ("pinv", {"A": ([4, 3], None, "randn")}, "out = L.pinv(A)"),
    ("pinv_rank1", {"A": ([3, 3], None, [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [3.0, 6.0, 9.0]])},
     "out = (L.pinv(A), L.pinv(A, hermitian=True), L.matrix_rank(A), L.matrix_rank(A, hermitian=True))"),
    ("pinv_tol", {"A": ([3, 3], None, M3)}, "out = (L.pinv(A, atol=5.0), L.matrix_rank(A, atol=5.0), L.matrix_rank(A, rtol=0.5))"),
    ("cond", {"A": ([3, 3], None, M3)},
     "out = (L.cond(A), L.cond(A, -2), L.cond(A, 'fro'), L.cond(A, 1), L.cond(A, float('inf')))"),
    ("lstsq", {"A": ([5, 3], None, "randn"), "B": ([5, 2], None, "randn")},
     "r = L.lstsq(A, B)\nout = (r.solution, r.rank)"),
    ("vander", {"x": ([2, 3], None, "randn")}, "out = (L.vander(x), L.vander(x, N=5))"),
    # thin compositions
    ("multi_dot", {"A": ([2, 3], None, "randn"), "B": ([3, 4], None, "randn"), "C": ([4], None, "randn")},
     "out = L.multi_dot([A, B, C])"),
    ("matrix_power", {"A": ([3, 3], None, M3)},
     "out = (L.matrix_power(A, 0), L.matrix_power(A, 3), L.matrix_power(A, -2))"),
    ("vecdot_cross_diag", {"A": ([2, 3], None, "randn"), "B": ([2, 3], None, "randn")},
     "out = (L.vecdot(A, B), L.cross(A, B), L.diagonal(A), L.matmul(A, B.mT))"),
]:
    LINALG.extend(_expand(cid, ins, code))

# issue 13 (linalg2): lu_unpack, torch.lu, lu_solve, pinverse, matrix_exp, householder_product,
# and the fixed differences (cross ranks, norms of empty matrices, matrix_rank's tensor rtol).
for cid, ins, code in [
    ("lu_unpack", {"A": ([3, 3], None, "randn")},
     "LU, piv = L.lu_factor(A)\nr = T.lu_unpack(LU, piv)\nout = (r.P, r.L, r.U, r.P @ r.L @ r.U)"),
    ("lu_unpack_batch_tall", {"A": ([2, 4, 3], None, "randn")},
     "LU, piv = L.lu_factor(A)\nr = T.lu_unpack(LU, piv)\nout = (r.P, r.L, r.U)"),
    ("lu_unpack_wide", {"A": ([3, 5], None, "randn")},
     "LU, piv = L.lu_factor(A)\nr = T.lu_unpack(LU, piv)\nout = (r.P, r.L, r.U)"),
    ("lu_unpack_flags", {"A": ([3, 3], None, M3)},
     "LU, piv = L.lu_factor(A)\nout = (T.lu_unpack(LU, piv, unpack_data=False).P, T.lu_unpack(LU, piv, unpack_pivots=False)[1:], T.lu_unpack(LU, piv, False, False).U)"),
    ("lu_unpack_int64", {"A": ([3, 3], None, M3)}, "out = T.lu_unpack(A, T.tensor([1, 2, 3]))"),
    ("lu_unpack_range", {"A": ([3, 3], None, M3)},
     "out = T.lu_unpack(A, T.tensor([1, 2, 4], dtype=T.int32))"),
    ("lu_unpack_shape", {"A": ([3, 3], None, M3)},
     "out = T.lu_unpack(A, T.tensor([1, 2], dtype=T.int32))"),
    ("lu_unpack_1d", {"A": ([3], None, "randn")}, "out = T.lu_unpack(A, T.tensor([1], dtype=T.int32))"),
    ("lu_top", {"A": ([2, 3, 3], None, "randn")},
     "r = T.lu(A)\ns = T.lu(A, get_infos=True)\nout = (r[0], r[1], s.LU, s.pivots, s.info)"),
    ("lu_top_singular", {"A": ([2, 2], None, SING)}, "out = T.lu(A, get_infos=True).info"),
    ("lu_solve_top", {"A": ([3, 3], None, M3), "B": ([3, 2], None, "randn")},
     "LU, piv = L.lu_factor(A)\nout = T.lu_solve(B, LU, piv)"),
    ("pinverse", {"A": ([4, 3], None, "randn")},
     "out = (T.pinverse(A), T.pinverse(A, rcond=0.9), T.pinverse(A.mT))"),
    ("matrix_exp", {"A": ([3, 3], None, "randn")}, "out = (L.matrix_exp(A), T.matrix_exp(A))"),
    ("matrix_exp_scaled", {"A": ([2, 4, 4], None, "randn")},
     "out = L.matrix_exp(A * T.tensor([1.0, 8.0], dtype=A.dtype).reshape(2, 1, 1))"),
    ("matrix_exp_fixed", {"A": ([3, 3], None, M3)}, "out = (L.matrix_exp(A), L.matrix_exp(-A / 4), L.matrix_exp(A * 0))"),
    ("matrix_exp_empty", {"A": ([2, 0, 0], None, "randn")}, "out = L.matrix_exp(A)"),
    ("matrix_exp_1d", {"A": ([3], None, "randn")}, "out = L.matrix_exp(A)"),
    ("matrix_exp_nonsquare", {"A": ([2, 3], None, "randn")}, "out = L.matrix_exp(A)"),
    ("matrix_exp_long", {"A": ([2, 2], "int64", [[1, 2], [3, 4]])}, "out = L.matrix_exp(A)"),
    ("householder_product", {"A": ([4, 3], None, "randn"), "t": ([2], None, "rand")},
     "out = (L.householder_product(A, t), T.orgqr(A, t))"),
    ("householder_product_batch", {"A": ([2, 5, 3], None, "randn"), "t": ([2, 3], None, "rand")},
     "out = L.householder_product(A, t)"),
    ("householder_product_qr", {"A": ([4, 4], None, [[1.0, 2, 0, 1], [0, 1, 3, 2], [4, 0, 1, 1], [1, 1, 1, 5]]), "t": ([3], None, [1.2, 0.7, 1.9])},
     "out = L.householder_product(A, t)"),
    ("householder_product_1d", {"A": ([3], None, "randn"), "t": ([2], None, "rand")},
     "out = L.householder_product(A, t)"),
    ("householder_product_wide", {"A": ([2, 3], None, "randn"), "t": ([2], None, "rand")},
     "out = L.householder_product(A, t)"),
    ("householder_product_tau", {"A": ([3, 2], None, "randn"), "t": ([3], None, "rand")},
     "out = L.householder_product(A, t)"),
    ("householder_product_batch_err", {"A": ([2, 3, 2], None, "randn"), "t": ([3, 2], None, "rand")},
     "out = L.householder_product(A, t)"),
    ("householder_product_dtype", {"A": ([3, 2], F32, "randn"), "t": ([2], F64, "rand")},
     "out = L.householder_product(A, t)"),
    ("triangular_solve", {"A": ([3, 3], None, M3), "B": ([2, 3, 2], None, "randn")},
     "r = T.triangular_solve(B, A)\ns = T.triangular_solve(B, A, upper=False, transpose=True, unitriangular=True)\nout = (r.solution, r.cloned_coefficient, s.solution, T.triangular_solve(B, A, transpose=True)[0])"),
    ("triangular_solve_1d", {"A": ([3, 3], None, M3), "B": ([3], None, "randn")}, "out = T.triangular_solve(B, A)"),
    ("triangular_solve_nonsquare", {"A": ([3, 2], None, "randn"), "B": ([3, 1], None, "randn")}, "out = T.triangular_solve(B, A)"),
    ("triangular_solve_dtype", {"A": ([2, 2], F32, "randn"), "B": ([2, 1], F64, "randn")}, "out = T.triangular_solve(B, A)"),
    ("cholesky_inverse", {"A": ([2, 3, 3], None, "randn")},
     SPD_CODE + "F = L.cholesky(X)\nout = (T.cholesky_inverse(F), T.cholesky_inverse(F.mT, upper=True), T.cholesky_inverse(F) @ X)"),
    ("cholesky_inverse_1d", {"A": ([3], None, "randn")}, "out = T.cholesky_inverse(A)"),
    ("cholesky_inverse_nonsquare", {"A": ([2, 3], None, "randn")}, "out = T.cholesky_inverse(A)"),
    ("cholesky_inverse_long", {"A": ([2, 2], "int64", [[1, 0], [0, 1]])}, "out = T.cholesky_inverse(A)"),
    ("cross_ranks", {"A": ([2, 3], None, "randn"), "B": ([3], None, "randn")}, "out = L.cross(A, B)"),
    ("cross_ranks_top", {"A": ([2, 3], None, "randn"), "B": ([3], None, "randn")}, "out = T.cross(A, B, dim=-1)"),
    ("matrix_norm_empty", {"A": ([0, 0], None, "randn"), "B": ([2, 3, 0], None, "randn")},
     "out = tuple(L.matrix_norm(X, o) for X in (A, B) for o in (float('inf'), 1, 2, 'fro', 'nuc')) + (L.norm(A, float('inf')), L.matrix_norm(B, -float('inf')))"),
    ("matrix_norm_empty_min", {"A": ([0, 0], None, "randn")}, "out = L.matrix_norm(A, -1)"),
    ("matrix_rank_empty_tensor_tol", {"A": ([0, 3, 3], None, "randn")},
     "out = (L.matrix_rank(A, rtol=T.zeros(0, dtype=A.dtype)), L.matrix_rank(A, atol=T.zeros(0, dtype=A.dtype)))"),
    ("matrix_rank_tensor_tol", {"A": ([2, 3, 3], None, "randn")},
     "out = (L.matrix_rank(A, rtol=T.tensor([0.1, 0.9], dtype=A.dtype)), L.matrix_rank(A, atol=T.tensor([0.0, 2.0], dtype=A.dtype)), L.pinv(A, atol=T.tensor([0.0, 2.0], dtype=A.dtype)))"),
]:
    LINALG.extend(_expand(cid, ins, code))

# issue 12 (linalg2): gradients of the linalg ops, float64, with losses that do not depend on
# the signs of singular / eigen / QR vectors (weights C, D on squares, or products).
WELL = "A = (A + 4 * T.eye(A.shape[-2], A.shape[-1], dtype=A.dtype)).requires_grad_()\n"
for cid, ins, code in [
    ("grad_solve_ex", {"A": ([3, 3], F64, "randn"), "B": ([3, 2], F64, "randn"), "C": ([3, 2], F64, "randn")},
     WELL + "B.requires_grad_()\nX, info = L.solve_ex(A, B)\n(X * C).sum().backward()\nout = (A.grad, B.grad)"),
    ("grad_solve_ex_vec_right", {"A": ([2, 3, 3], F64, "randn"), "B": ([2, 3], F64, "randn"), "C": ([2, 3], F64, "randn"), "D": ([4, 3], F64, "randn")},
     WELL + "B.requires_grad_()\nD.requires_grad_()\n(L.solve_ex(A, B).result * C).sum().backward()\n(L.solve_ex(A[0], D, left=False)[0] ** 2).sum().backward()\nout = (A.grad, B.grad, D.grad)"),
    ("grad_lu_factor_square", {"A": ([3, 3], F64, "randn"), "C": ([3, 3], F64, "randn")},
     "A.requires_grad_()\nLU, piv = L.lu_factor(A)\n(LU * C).sum().backward()\nout = A.grad"),
    ("grad_lu_factor_ex_batch", {"A": ([2, 3, 3], F64, "randn"), "C": ([2, 3, 3], F64, "randn")},
     "A.requires_grad_()\nLU, piv, info = L.lu_factor_ex(A)\n(LU * C).sum().backward()\nout = A.grad"),
    ("grad_lu_factor_wide", {"A": ([3, 5], F64, "randn"), "C": ([3, 5], F64, "randn")},
     "A.requires_grad_()\nLU, piv = L.lu_factor(A)\n(LU * C).sum().backward()\nout = A.grad"),
    ("grad_lu_factor_tall", {"A": ([5, 3], F64, "randn"), "C": ([5, 3], F64, "randn")},
     "A.requires_grad_()\nLU, piv, info = L.lu_factor_ex(A)\n(LU * C).sum().backward()\nout = A.grad"),
    ("grad_lu_square", {"A": ([3, 3], F64, "randn"), "C": ([3, 3], F64, "randn"), "D": ([3, 3], F64, "randn")},
     "A.requires_grad_()\nP, Lm, U = L.lu(A)\n((Lm * C).sum() + (U * D).sum()).backward()\nout = A.grad"),
    ("grad_lu_wide", {"A": ([3, 5], F64, "randn"), "C": ([3, 3], F64, "randn"), "D": ([3, 5], F64, "randn")},
     "A.requires_grad_()\nP, Lm, U = L.lu(A)\n((Lm * C).sum() + (U * D).sum()).backward()\nout = A.grad"),
    ("grad_lu_tall", {"A": ([5, 3], F64, "randn"), "C": ([5, 3], F64, "randn"), "D": ([3, 3], F64, "randn")},
     "A.requires_grad_()\nP, Lm, U = L.lu(A)\n((Lm * C).sum() + (U * D).sum()).backward()\nout = A.grad"),
    ("grad_lu_only_u", {"A": ([5, 3], F64, "randn"), "D": ([3, 3], F64, "randn"), "B": ([3, 5], F64, "randn"), "C": ([3, 3], F64, "randn")},
     "A.requires_grad_()\nB.requires_grad_()\n(L.lu(A).U * D).sum().backward()\n(L.lu(B).L * C).sum().backward()\nout = (A.grad, B.grad)"),
    ("grad_lu_solve", {"A": ([3, 3], F64, "randn"), "B": ([3, 2], F64, "randn"), "C": ([3, 2], F64, "randn")},
     WELL + "LU, piv = L.lu_factor(A.detach())\nLU.requires_grad_()\nB.requires_grad_()\nr = []\n"
     "for adj in (False, True):\n    LU.grad = None\n    B.grad = None\n    (L.lu_solve(LU, piv, B, adjoint=adj) * C).sum().backward()\n    r += [LU.grad, B.grad]\n"
     "    LU.grad = None\n    B.grad = None\n    (L.lu_solve(LU, piv, B.mT, left=False, adjoint=adj) * C.mT).sum().backward()\n    r += [LU.grad, B.grad]\nout = tuple(r)"),
    ("grad_cholesky_solve", {"A": ([3, 3], F64, "randn"), "B": ([3, 2], F64, "randn"), "C": ([3, 2], F64, "randn")},
     SPD_CODE + "F = L.cholesky(X).requires_grad_()\nU = L.cholesky(X, upper=True).requires_grad_()\nB.requires_grad_()\n"
     "(T.cholesky_solve(B, F) * C).sum().backward()\n(B.cholesky_solve(U, upper=True) ** 2).sum().backward()\nout = (F.grad, U.grad, B.grad)"),
    ("grad_qr_tall", {"A": ([4, 3], F64, "randn"), "C": ([4, 3], F64, "randn"), "D": ([3, 3], F64, "randn")},
     "A.requires_grad_()\nQ, R = L.qr(A)\n((Q ** 2 * C).sum() + (R ** 2 * D).sum()).backward()\nout = A.grad"),
    ("grad_qr_square_batch", {"A": ([2, 3, 3], F64, "randn"), "C": ([2, 3, 3], F64, "randn")},
     "A.requires_grad_()\nQ, R = L.qr(A)\n((Q ** 2 * C).sum() + (R ** 2).sum() + (Q @ R * C).sum()).backward()\nout = A.grad"),
    ("grad_qr_wide", {"A": ([3, 5], F64, "randn"), "C": ([3, 3], F64, "randn"), "D": ([3, 5], F64, "randn")},
     "A.requires_grad_()\nQ, R = L.qr(A)\n((Q ** 2 * C).sum() + (R ** 2 * D).sum()).backward()\nout = A.grad"),
    ("grad_qr_only_r", {"A": ([4, 3], F64, "randn"), "D": ([3, 3], F64, "randn"), "B": ([3, 4], F64, "randn"), "C": ([3, 3], F64, "randn")},
     "A.requires_grad_()\nB.requires_grad_()\n(L.qr(A).R ** 2 * D).sum().backward()\n(L.qr(B, mode='complete').Q ** 2 * C).sum().backward()\nout = (A.grad, B.grad)"),
    ("grad_qr_complete_tall", {"A": ([4, 3], F64, "randn")},
     "A.requires_grad_()\nQ, R = L.qr(A, mode='complete')\n(Q ** 2).sum().backward()\nout = A.grad"),
    ("grad_qr_mode_r", {"A": ([4, 3], F64, "randn")},
     "A.requires_grad_()\nQ, R = L.qr(A, mode='r')\n(R ** 2).sum().backward()\nout = A.grad"),
    ("grad_eigh", {"A": ([3, 3], F64, "randn"), "c": ([3], F64, "randn"), "C": ([3, 3], F64, "randn")},
     "A.requires_grad_()\nw, V = L.eigh(A + A.mT)\n((w * c).sum() + (V ** 2 * C).sum()).backward()\nout = A.grad"),
    ("grad_eigh_vectors_upper", {"A": ([2, 4, 4], F64, "randn"), "C": ([2, 4, 4], F64, "randn")},
     "A.requires_grad_()\nw, V = L.eigh(A @ A.mT, UPLO='U')\n(V ** 2 * C).sum().backward()\nout = A.grad"),
    ("grad_eigh_values", {"A": ([3, 3], F64, "randn"), "c": ([3], F64, "randn")},
     "A.requires_grad_()\n(L.eigh(A)[0] * c).sum().backward()\nout = A.grad"),
    ("grad_svd_tall", {"A": ([4, 3], F64, "randn"), "C": ([4, 3], F64, "randn"), "c": ([3], F64, "randn"), "D": ([3, 3], F64, "randn")},
     "A.requires_grad_()\nU, S, Vh = L.svd(A, full_matrices=False)\n((U ** 2 * C).sum() + (S * c).sum() + (Vh ** 2 * D).sum()).backward()\nout = A.grad"),
    ("grad_svd_wide_batch", {"A": ([2, 3, 5], F64, "randn"), "C": ([2, 3, 3], F64, "randn"), "D": ([2, 3, 5], F64, "randn")},
     "A.requires_grad_()\nU, S, Vh = L.svd(A, full_matrices=False)\n((U ** 2 * C).sum() + (Vh ** 2 * D).sum() + S.sum()).backward()\nout = A.grad"),
    ("grad_svd_parts", {"A": ([4, 3], F64, "randn"), "C": ([4, 3], F64, "randn"), "D": ([3, 3], F64, "randn"), "B": ([3, 4], F64, "randn")},
     "A.requires_grad_()\nB.requires_grad_()\n(L.svd(A, full_matrices=False).U ** 2 * C).sum().backward()\n(L.svd(A, full_matrices=False).Vh ** 2 * D).sum().backward()\n(L.svd(B, full_matrices=False).S ** 3).sum().backward()\n(L.svd(B, full_matrices=False).U ** 2 * D).sum().backward()\nout = (A.grad, B.grad)"),
    ("grad_svd_full", {"A": ([3, 3], F64, "randn"), "C": ([3, 3], F64, "randn")},
     "A.requires_grad_()\nU, S, Vh = L.svd(A)\n((U ** 2 * C).sum() + S.sum() + (Vh ** 2 * C.mT).sum()).backward()\nout = A.grad"),
    ("grad_svd_top", {"A": ([4, 3], F64, "randn"), "C": ([4, 3], F64, "randn"), "D": ([3, 3], F64, "randn")},
     "A.requires_grad_()\nU, S, V = T.svd(A)\n((U ** 2 * C).sum() + (V ** 2 * D).sum() + S.sum()).backward()\ng1 = A.grad\nA.grad = None\n(T.svd(A, compute_uv=False)[1] ** 2).sum().backward()\nout = (g1, A.grad)"),
    ("grad_matrix_norm", {"A": ([2, 3, 4], F64, "randn")},
     "A.requires_grad_()\nr = []\nfor o in (1, -1, 2, -2, float('inf'), -float('inf'), 'fro', 'nuc'):\n    A.grad = None\n"
     "    (L.matrix_norm(A, o) * T.tensor([1.0, 2.0], dtype=A.dtype)).sum().backward()\n    r.append(A.grad)\nout = tuple(r)"),
    ("grad_matrix_norm_dims", {"A": ([3, 2, 4], F64, "randn")},
     "A.requires_grad_()\nr = []\nfor o in (1, 2, 'nuc', float('inf')):\n    A.grad = None\n"
     "    (L.matrix_norm(A, o, dim=(2, 0), keepdim=True) ** 2).sum().backward()\n    r.append(A.grad)\nout = tuple(r)"),
    ("grad_norm", {"A": ([3, 4], F64, "randn")},
     "A.requires_grad_()\nr = []\nfor args in ((), (2,), ('nuc',), (float('inf'),), (None, (0, 1)), (3, 1)):\n    A.grad = None\n"
     "    L.norm(A, *args).sum().backward()\n    r.append(A.grad)\nout = tuple(r)"),
    ("grad_matrix_exp", {"A": ([3, 3], F64, "randn"), "C": ([3, 3], F64, "randn")},
     "A.requires_grad_()\n(L.matrix_exp(A) * C).sum().backward()\ng = A.grad\nA.grad = None\n(L.matrix_exp(6 * A) * C).sum().backward()\nout = (g, A.grad)"),
    ("grad_triangular_solve_cholesky_inverse", {"A": ([3, 3], F64, "randn"), "B": ([3, 2], F64, "randn"), "C": ([3, 3], F64, "randn")},
     WELL + "B.requires_grad_()\n(T.triangular_solve(B, A.triu()).solution ** 2).sum().backward()\n(T.cholesky_inverse(A.tril()) * C).sum().backward()\nout = (A.grad, B.grad)"),
    ("grad_householder_product", {"A": ([4, 3], F64, "randn"), "t": ([2], F64, "rand"), "C": ([4, 3], F64, "randn")},
     "A.requires_grad_()\nt.requires_grad_()\n(L.householder_product(A, t) * C).sum().backward()\nout = (A.grad, t.grad)"),
]:
    LINALG.extend(_expand(cid, ins, code))

SPECIAL = []
for cid, ins, code in [
    ("ndtr", {"x": ([7], None, [-10.0, -3.0, -1.0, 0.0, 0.5, 2.0, 8.0])}, "out = S.ndtr(x)"),
    ("ndtri", {"x": ([7], None, [0.0, 1e-10, 0.025, 0.5, 0.9, 1.0, 1.5])}, "out = S.ndtri(x)"),
    ("log_ndtr", {"x": ([6], None, [-30.0, -5.0, -1.0, 0.0, 3.0, 10.0])}, "out = S.log_ndtr(x)"),
    ("erfcx", {"x": ([6], None, [-2.0, -0.5, 0.0, 1.0, 3.0, 30.0])}, "out = S.erfcx(x)"),
    ("bessel", {"x": ([7], None, [-40.0, -2.0, -0.5, 0.0, 1.0, 10.0, 50.0])},
     "out = (S.i0e(x), S.i1(x), S.i1e(x))"),
    ("sinc_entr", {"x": ([6], None, [-1.5, -0.5, 0.0, 0.25, 1.0, 3.0])}, "out = (S.sinc(x), S.entr(x))"),
    ("xlog1py", {"x": ([4], None, [0.0, 1.0, 2.0, -1.0]), "y": ([4], None, [-1.0, 0.5, 3.0, 0.0])},
     "out = (S.xlog1py(x, y), S.xlog1py(x, 2.0))"),
    ("zeta", {"x": ([4], None, [2.0, 3.5, 1.0, 0.5]), "q": ([4], None, [1.0, 2.5, 1.0, 1.0])},
     "out = (S.zeta(x, q), S.zeta(x, 2.0))"),
    ("multigammaln", {"x": ([4], None, [1.5, 2.0, 3.25, 10.0])},
     "out = (S.multigammaln(x, 1), S.multigammaln(x, 3))"),
    ("multigammaln_p0", {"x": ([2], None, [3.0, 4.0])}, "out = S.multigammaln(x, 0)"),
    ("ndtr_long", {"x": ([3], "int64", [0, 1, 2])}, "out = S.ndtr(x)"),
    ("aliases", {"x": ([4], None, [0.1, 0.4, 0.6, 0.9])},
     "out = (S.expit(x), S.erf(x), S.erfc(x), S.erfinv(x), S.gammaln(x), S.digamma(x), S.psi(x), S.logit(x), S.xlogy(x, x), S.expm1(x), S.exp2(x), S.log1p(x), S.round(x), S.logsumexp(x, 0), S.softmax(x, 0), S.log_softmax(x, 0))"),
]:
    SPECIAL.extend(_expand(cid, ins, code))

FAMILIES = {"linalg": LINALG, "special": SPECIAL}
