"""_C.linalg and _C.special against torch 2.15: every case of linalg_cases.py run on _C and
compared with torch's answer recorded in linalg_expected.json (gen_linalg_expected.py) — values
within a per-dtype tolerance, or the exception's type and first line. Singular and eigenvector
cases compare sign-invariant quantities (see linalg_cases.py). Plus the namespace's shape:
submodules, named tuples, keywords, gradients refused until the formulas are written."""

import json
import math
import os

import pytest

import _C
import _C.linalg as L
import _C.special as S
from nn_harness import _compare, _tensor

_PATH = os.path.join(os.path.dirname(__file__), "linalg_expected.json")
with open(_PATH) as _f:
    _DATA = json.load(_f)

# The decompositions run in float64 and round once: float32 answers differ from torch's float32
# LAPACK by torch's own rounding error (times the condition number for inverses and solves).
TOL = {"float32": (2e-4, 2e-5), "float64": (1e-9, 1e-11)}


def _run(case):
    env = {"L": L, "S": S, "T": _C}
    for k, enc in case["inputs"].items():
        env[k] = _tensor(enc)
    expect = case["expect"]
    if "error" in expect:
        etype, msg = expect["error"]
        with pytest.raises(Exception) as info:
            exec(case["code"], env)
        assert type(info.value).__name__ == etype, f"{info.value!r}: torch raises {etype}: {msg}"
        assert str(info.value).split("\n")[0] == msg
    else:
        exec(case["code"], env)
        _compare(env["out"], expect["value"], "out", TOL)


@pytest.mark.parametrize("cid", sorted(_DATA["linalg"]))
def test_linalg_case(cid):
    _run(_DATA["linalg"][cid])


@pytest.mark.parametrize("cid", sorted(_DATA["special"]))
def test_special_case(cid):
    _run(_DATA["special"][cid])


def test_namespaces():
    import sys

    assert _C.linalg is L and _C.special is S
    assert sys.modules["_C._linalg"] is _C._linalg
    assert sys.modules["_C._special"] is _C._special
    assert L.solve is _C._linalg.linalg_solve
    assert S.ndtr is _C._special.special_ndtr
    assert S.expit is _C.sigmoid and S.gammaln is _C.lgamma and S.psi is _C.digamma
    assert "Mirrors torch.linalg.solve." in L.solve.__doc__
    assert "Mirrors torch.special.ndtr." in S.ndtr.__doc__


def _fields(r):
    return tuple(n for n in ("sign", "logabsdet", "eigenvalues", "eigenvectors", "U", "S", "Vh", "Q", "R",
                             "inverse", "info", "L", "result") if hasattr(r, n))


def test_named_tuples():
    a = _C.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=_C.float64)
    r = L.slogdet(a)
    assert type(r).__name__ == "linalg_slogdet" and _fields(r) == ("sign", "logabsdet")
    assert r.sign is r[0] and r.logabsdet is r[1] and len(r) == 2
    assert _fields(L.eigh(a)) == ("eigenvalues", "eigenvectors")
    assert _fields(L.svd(a)) == ("U", "S", "Vh")
    assert _fields(L.qr(a)) == ("Q", "R")
    assert _fields(L.inv_ex(a)) == ("inverse", "info")
    assert _fields(L.cholesky_ex(a)) == ("info", "L")
    assert _fields(L.solve_ex(a, a)) == ("info", "result")
    assert type(_C.slogdet(a)).__name__ == "slogdet"
    info = L.inv_ex(a).info
    assert info.dtype == _C.int32 and info.shape == ()


def test_keywords_and_out():
    a = _C.tensor([[4.0, 1.0], [1.0, 3.0]], dtype=_C.float64)
    b = _C.tensor([1.0, 2.0], dtype=_C.float64)
    x = L.solve(A=a, B=b, left=True)
    # torch: [1/11, 7/11]
    assert x.tolist() == pytest.approx([1 / 11, 7 / 11], rel=1e-14)
    out = _C.empty(2, dtype=_C.float64)
    assert L.solve(a, b, out=out) is out
    assert out.tolist() == pytest.approx([1 / 11, 7 / 11], rel=1e-14)
    u = L.svd(a, full_matrices=False, driver=None)
    assert u.S.tolist() == pytest.approx(L.svdvals(a).tolist(), rel=1e-14)
    assert L.vector_norm(b, ord=1, dim=0, keepdim=True).tolist() == [3.0]
    assert L.eigvalsh(a, UPLO="U").tolist() == pytest.approx(
        [(7 - math.sqrt(5)) / 2, (7 + math.sqrt(5)) / 2], rel=1e-14
    )


def test_bad_arguments_are_type_errors():
    a = _C.eye(2)
    with pytest.raises(TypeError):
        L.inv("x")
    with pytest.raises(TypeError):
        L.qr(a, mode=3)
    with pytest.raises(TypeError):
        S.multigammaln(a, 1.5)


def test_linalg_gradients_recorded():
    # Every differentiable linalg op records a node, named as torch's (torch 2.15's grad_fn names).
    a = _C.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], dtype=_C.float64).requires_grad_()
    b = _C.ones(3, 2, dtype=_C.float64)
    assert L.qr(a).Q.grad_fn.name() == "LinalgQrBackward0"
    assert L.eigh(a).eigenvalues.grad_fn.name() == "LinalgEighBackward0"
    assert L.svd(a).S.grad_fn.name() == "LinalgSvdBackward0"
    assert L.solve_ex(a, b).result.grad_fn.name() == "LinalgSolveExBackward0"
    assert L.solve_ex(a, b).info.grad_fn is None
    assert L.lu_factor(a).LU.grad_fn.name() == "LinalgLuFactorExBackward0"
    assert L.lu_factor_ex(a).LU.grad_fn.name() == "LinalgLuFactorExBackward0"
    p, lo, up = L.lu(a)
    assert up.grad_fn.name() == "LinalgLuBackward0" and lo.grad_fn is up.grad_fn
    assert p.grad_fn is None and not p.requires_grad
    lu, piv = L.lu_factor(a.detach())
    assert L.lu_solve(lu.requires_grad_(), piv, b).grad_fn.name() == "LinalgLuSolveBackward0"
    assert _C.cholesky_solve(b.requires_grad_(), a).grad_fn.name() == "CholeskySolveBackward0"
    assert L.matrix_norm(a, 2).requires_grad and L.norm(a, "nuc").requires_grad
    with _C.no_grad():
        assert L.qr(a)[1].grad_fn is None


def test_linalg_backward_mode_errors():
    # torch raises these from the backward, not from the forward (texts of torch 2.15).
    a = _C.eye(2, dtype=_C.float64).requires_grad_()
    q, r = L.qr(a, mode="r")
    with pytest.raises(RuntimeError, match="not computed when mode='r'"):
        r.sum().backward()
    q, r = L.qr(_C.ones(3, 2, dtype=_C.float64).requires_grad_(), mode="complete")
    with pytest.raises(RuntimeError, match="not differentiable when mode='complete' and nrows > ncols"):
        q.sum().backward()


def test_gradcheck_decompositions():
    from _C.autograd import gradcheck, gradgradcheck

    _C.manual_seed(11)
    tall = _C.randn(4, 3, dtype=_C.float64).requires_grad_()
    wide = _C.randn(3, 4, dtype=_C.float64).requires_grad_()
    sq = _well_conditioned(3)
    w1 = _C.randn(4, 4, dtype=_C.float64)
    w2 = _C.randn(4, 4, dtype=_C.float64)

    def qr_loss(x):
        q, r = L.qr(x)
        return (q * q * w1[: q.shape[0], : q.shape[1]]).sum() + (r * r).sum()

    def svd_loss(x):
        u, s, vh = L.svd(x, full_matrices=False)
        return (u * u).sum(-1) @ w2[0, : u.shape[0]] + s.sum() + (vh * vh * w2[: vh.shape[0], : vh.shape[1]]).sum()

    def eigh_loss(x):
        w, v = L.eigh(x + x.mT)
        return (w * w2[0, :3]).sum() + (v * v * w1[:3, :3]).sum()

    def lu_loss(x):
        p, lo, up = L.lu(x)
        return (lo * lo).sum() + (up * w1[: up.shape[0], : up.shape[1]]).sum()

    for x in (tall, wide):
        assert gradcheck(qr_loss, (x,))
        assert gradcheck(svd_loss, (x,))
        assert gradcheck(lu_loss, (x,))
        assert gradcheck(lambda t: L.lu_factor(t).LU, (x,))
    assert gradcheck(eigh_loss, (sq,))
    assert gradgradcheck(qr_loss, (tall,))
    assert gradgradcheck(eigh_loss, (sq,))
    assert gradgradcheck(lu_loss, (sq,))
    assert gradgradcheck(lambda t: L.solve_ex(t, w1[:3, :2]).result, (sq,))
    lu, piv = L.lu_factor(sq.detach())
    lu.requires_grad_()
    b = w1[:3, :2].clone().requires_grad_()
    for left, adjoint in [(True, False), (True, True), (False, False), (False, True)]:
        rhs = b if left else b.mT.detach().requires_grad_()
        assert gradcheck(lambda LU, B: L.lu_solve(LU, piv, B, left=left, adjoint=adjoint), (lu, rhs))
    c = L.cholesky(sq.detach() @ sq.detach().mT).requires_grad_()
    # cholesky_solve reads only the factor's triangle (torch's gradient is the full matrix, as
    # its formula): check through tril.
    assert gradcheck(lambda F, B: _C.cholesky_solve(B, F.tril()), (c, b))
    assert gradgradcheck(lambda F, B: _C.cholesky_solve(B, F.tril()), (c, b))
    for o in (1, -1, float("inf"), -float("inf"), 2, -2, "fro", "nuc"):
        assert gradcheck(lambda t: L.matrix_norm(t, o), (tall,))
    assert gradcheck(lambda t: L.norm(t, dim=(0, 1)), (tall,))
    assert gradcheck(lambda t: L.matrix_exp(t), (sq,))
    assert gradgradcheck(lambda t: L.matrix_exp(t), (sq,))
    t = _C.tensor([1.3, 0.6], dtype=_C.float64).requires_grad_()
    assert gradcheck(L.householder_product, (tall, t))
    # eigvalsh / svdvals: their derivatives recompute the factors with the recording ops.
    assert gradgradcheck(lambda x: L.eigvalsh(x + x.mT), (sq,))
    assert gradgradcheck(L.svdvals, (tall,))
    assert gradgradcheck(lambda x: L.matrix_norm(x, "nuc"), (wide,))


def test_python_level_linalg_functions():
    # The functions written in python/_C/linalg.py: docstrings, named tuples, out=.
    for f in (_C.lu, _C.lu_unpack, _C.lu_solve, _C.pinverse, _C.matrix_exp, _C.orgqr, _C.triangular_solve, _C.cholesky_inverse,
              L.matrix_exp, L.householder_product):
        assert "Mirrors torch." in f.__doc__
    a = _C.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=_C.float64)
    lu, piv = L.lu_factor(a)
    r = _C.lu_unpack(lu, piv)
    assert type(r).__name__ == "lu_unpack" and r._fields == ("P", "L", "U")
    assert r.P.tolist() == [[0.0, 1.0], [1.0, 0.0]]
    assert r.L.tolist() == [[1.0, 0.0], [1.0 / 3.0, 1.0]]
    assert r.U.flatten().tolist() == pytest.approx([3.0, 4.0, 0.0, 2.0 - 4.0 / 3.0], rel=1e-15)
    outs = (_C.empty(0, dtype=_C.float64), _C.empty(0, dtype=_C.float64), _C.empty(0, dtype=_C.float64))
    r2 = _C.lu_unpack(lu, piv, out=outs)
    assert r2.P is outs[0] and outs[2].tolist() == r.U.tolist()
    t = _C.lu(a)
    assert type(t) is tuple and len(t) == 2
    t = _C.lu(a, get_infos=True)
    assert type(t).__name__ == "_lu_with_info" and t.info.item() == 0
    # exp([[0, 1], [-1, 0]]) is the rotation [[cos 1, sin 1], [-sin 1, cos 1]].
    e = L.matrix_exp(_C.tensor([[0.0, 1.0], [-1.0, 0.0]], dtype=_C.float64))
    assert e.flatten().tolist() == pytest.approx([math.cos(1), math.sin(1), -math.sin(1), math.cos(1)], rel=1e-14)
    # exp(diag(30, -2)) needs scaling and squaring.
    e = L.matrix_exp(_C.tensor([[30.0, 0.0], [0.0, -2.0]], dtype=_C.float64))
    assert e.flatten().tolist() == pytest.approx([math.exp(30), 0.0, 0.0, math.exp(-2)], rel=1e-13)
    out = _C.empty(2, 2, dtype=_C.float64)
    assert L.householder_product(a, _C.zeros(1, dtype=_C.float64), out=out) is out
    assert out.tolist() == [[1.0, 0.0], [0.0, 1.0]]
    with pytest.raises(TypeError):
        L.matrix_exp(a, out=out)  # torch's matrix_exp has no out=
    # Wrong types are TypeErrors with torch's parser texts.
    with pytest.raises(TypeError, match=r"^linalg_matrix_exp\(\): argument 'input' \(position 1\) must be Tensor, not str$"):
        L.matrix_exp("x")
    with pytest.raises(TypeError, match="argument 'LU_pivots' .position 2. must be Tensor, not list"):
        _C.lu_unpack(a, [1, 2])
    with pytest.raises(TypeError, match="argument 'tau' .position 2. must be Tensor, not float"):
        L.householder_product(a, 0.5)
    for f, args in ((_C.lu, ("x",)), (_C.pinverse, (None,)), (_C.lu_solve, (a, "x", piv)), (_C.orgqr, (a, 1))):
        with pytest.raises(TypeError):
            f(*args)


def _well_conditioned(n, batch=()):
    _C.manual_seed(3)
    return (_C.randn(*batch, n, n, dtype=_C.float64) + 4 * _C.eye(n, dtype=_C.float64)).requires_grad_()


def test_gradcheck_inv_det_norm():
    from _C.autograd import gradcheck, gradgradcheck

    a = _well_conditioned(3)
    assert gradcheck(L.inv, (a,))
    assert gradcheck(_C.inverse, (a,))
    assert gradcheck(L.det, (a,))
    assert gradcheck(_C.det, (_well_conditioned(3, (2,)),))
    assert gradgradcheck(L.inv, (a,))
    x = _C.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], dtype=_C.float64).requires_grad_()
    assert gradcheck(lambda t: L.vector_norm(t), (x,))
    assert gradcheck(lambda t: L.vector_norm(t, 3.0, dim=1), (x,))
    assert L.inv(a).grad_fn.name() == "LinalgInvExBackward0"
    assert L.det(a).grad_fn.name() == "LinalgDetBackward0"


def test_gradcheck_solves():
    from _C.autograd import gradcheck, gradgradcheck

    a = _well_conditioned(3)
    _C.manual_seed(5)
    b = _C.randn(3, 2, dtype=_C.float64).requires_grad_()
    v = _C.randn(3, dtype=_C.float64).requires_grad_()
    bb = _C.randn(2, 3, 2, dtype=_C.float64).requires_grad_()
    assert gradcheck(L.solve, (a, b))
    assert gradcheck(L.solve, (a, v))
    assert gradcheck(L.solve, (a, bb))  # B's batch broadcasts A
    assert gradcheck(lambda A, B: L.solve(A, B, left=False), (a, b.mT.detach().requires_grad_()))
    assert gradgradcheck(L.solve, (a, b))
    t = a.detach().triu().requires_grad_()
    for upper, left, unit in [(True, True, False), (True, False, True), (False, True, False)]:
        tt = t if upper else t.detach().mT.contiguous().requires_grad_()
        rhs = b if left else b.mT.detach().requires_grad_()
        assert gradcheck(
            lambda A, B: L.solve_triangular(A, B, upper=upper, left=left, unitriangular=unit), (tt, rhs)
        )
    assert L.solve(a, b).grad_fn.name() == "LinalgSolveExBackward0"


def test_inv_grad_value():
    # d/dA sum(inv(A)) = -(A^-T 1 A^-T); A = diag(2, 4): -[[1/4, 1/8], [1/8, 1/16]].
    a = _C.tensor([[2.0, 0.0], [0.0, 4.0]], dtype=_C.float64).requires_grad_()
    L.inv(a).sum().backward()
    assert a.grad.tolist() == [[-0.25, -0.125], [-0.125, -0.0625]]


def test_larger_decompositions_are_accurate():
    # Independent checks on a 40x40 well-conditioned matrix: reconstructions and orthogonality.
    _C.manual_seed(0)
    a = _C.randn(40, 40, dtype=_C.float64) + 8 * _C.eye(40, dtype=_C.float64)
    eye = _C.eye(40, dtype=_C.float64)
    assert (a @ L.inv(a) - eye).abs().max().item() < 1e-12
    q, r = L.qr(a)
    assert (q @ r - a).abs().max().item() < 1e-12
    assert (q.mT @ q - eye).abs().max().item() < 1e-13
    s = a + a.mT
    w, v = L.eigh(s)
    assert ((v * w.unsqueeze(-2)) @ v.mT - s).abs().max().item() < 1e-11
    u, sv, vh = L.svd(a)
    assert ((u * sv.unsqueeze(-2)) @ vh - a).abs().max().item() < 1e-11
    assert sv.tolist() == sorted(sv.tolist(), reverse=True)
    spd = a @ a.mT + eye
    c = L.cholesky(spd)
    assert (c @ c.mT - spd).abs().max().item() < 1e-10


def test_conformance_fixes_of_2026_11_24():
    """Differences the full conformance run found after the merges; values from torch 2.15."""
    inf = math.inf
    # i1 at ±inf is NaN in torch (its Cephes form is inf * 0 there); ndtr's limits are exact.
    assert all(math.isnan(v) for v in S.i1(_C.tensor([inf, -inf], dtype=_C.float64)).tolist())
    assert S.ndtr(_C.tensor([inf, -inf], dtype=_C.float64)).tolist() == [1.0, 0.0]
    # vander: integer input gives int64; a 0-dim x is one element; N <= 1 is an error.
    v = L.vander(_C.tensor([2, 3], dtype=_C.int32))
    assert v.dtype == _C.int64 and v.tolist() == [[1, 2], [1, 3]]
    assert L.vander(_C.tensor([2, 3], dtype=_C.uint8), N=3).tolist() == [[1, 2, 4], [1, 3, 9]]
    for x, kw in ((_C.tensor(2.0), {}), (_C.tensor([2.0]), {"N": 1}), (_C.ones(0), {})):
        with pytest.raises(RuntimeError, match=r"N must be greater than 1\."):
            L.vander(x, **kw)
    with pytest.raises(NotImplementedError, match="but got Bool"):
        L.vander(_C.tensor([True, False]))
    # lstsq: the drivers' residuals, rank and singular values.
    A = _C.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], dtype=_C.float64)
    B = _C.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=_C.float64)
    r = L.lstsq(A, B, driver="gels")
    assert r.rank.dtype == _C.int64 and tuple(r.rank.shape) == (0,)
    assert tuple(r.singular_values.shape) == (0,)
    for got, want in zip(r.residuals.tolist(), [0.3333333333333333, 0.0]):
        assert abs(got - want) < 1e-12
    for got, want in zip(r.solution.flatten().tolist(), [4 / 3, 2.0, 10 / 3, 4.0]):
        assert abs(got - want) < 1e-12
    r = L.lstsq(A, B, driver="gelsd")
    assert int(r.rank) == 2
    for got, want in zip(r.singular_values.tolist(), [1.7320508075688772, 1.0]):
        assert abs(got - want) < 1e-12
    r = L.lstsq(A, B)  # gelsy: no residuals, no singular values
    assert int(r.rank) == 2 and tuple(r.residuals.shape) == (0,)
    assert tuple(r.singular_values.shape) == (0,)
