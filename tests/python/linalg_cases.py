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
