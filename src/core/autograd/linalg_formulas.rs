//! src/core/autograd/linalg_formulas.rs: the derivative nodes of the torch.linalg ops with
//! several outputs (issue 12 / 13) — `linalg_solve_ex`, the LU family (`linalg_lu_factor(_ex)`,
//! `linalg_lu`), `linalg_qr`, `linalg_eigh`, `linalg_svd` / `svd` — one `LinalgNode` variant
//! each (held by `NodeKind::Linalg`), their recording wrappers (re-exported by
//! variable_type.rs, so the generated bindings call them as `vt::op` for the ops
//! src/derivatives.yaml marks `manual:`), the composite matrix norms, and the helpers of the
//! single-output formulas of src/derivatives.yaml (`linalg_lu_solve`).
//!
//! Every formula is written over the recording `vt::` ops (torch's FunctionsManual.cpp
//! formulas: `linalg_solve_backward`, `lu_factor_ex_backward`, `linalg_lu_backward`,
//! `linalg_qr_backward`, `linalg_eig_backward` with `is_hermitian`, `svd_backward`,
//! `linalg_lu_solve_LU`), so a backward with `create_graph` records its own graph and double
//! backward works. Real dtypes only (no conjugation: `mH` is `mT`).

use super::formula_helpers::scalar_like;
use super::formulas::NodeKind;
use super::node::{Node, SavedTensor};
use super::variable_type as vt;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::ops;
use crate::core::scalar::Scalar;
use crate::core::tensor::{maybe_wrap_dim, Tensor};
use std::sync::Arc;

/// One linalg node and what it saved (the differentiable outputs weakly, as torch saves
/// outputs; integer outputs and the permutation `P` strongly: they have no history).
pub enum LinalgNode {
    /// `linalg_solve_ex(A, B, left)`: `A` and `result`; two inputs.
    SolveEx {
        left: bool,
        vector: bool,
        a: SavedTensor,
        result: SavedTensor,
    },
    /// `linalg_lu_factor(_ex)(A)`: the packed `LU` and the `pivots`.
    LuFactor {
        name: &'static str,
        lu: SavedTensor,
        pivots: SavedTensor,
    },
    /// `linalg_lu(A)`: `P` (not differentiable), `L` and `U`.
    Lu {
        p: SavedTensor,
        l: SavedTensor,
        u: SavedTensor,
    },
    /// `linalg_qr(A, mode)`: `Q` and `R`; `mode` checked when the gradient is computed, as
    /// torch's `linalg_qr_backward`.
    Qr {
        mode: QrMode,
        q: SavedTensor,
        r: SavedTensor,
    },
    /// `linalg_eigh(A, UPLO)`: the eigenvalues and eigenvectors.
    Eigh {
        eigenvalues: SavedTensor,
        eigenvectors: SavedTensor,
    },
    /// `linalg_svd(A, full_matrices)`: `U`, `S` and `Vh`.
    Svd {
        full_matrices: bool,
        u: SavedTensor,
        s: SavedTensor,
        vh: SavedTensor,
    },
}

/// `linalg_qr`'s `mode`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum QrMode {
    Reduced,
    Complete,
    R,
}

impl LinalgNode {
    /// torch's class name of the node.
    pub fn name(&self) -> &'static str {
        match self {
            LinalgNode::SolveEx { .. } => "LinalgSolveExBackward0",
            LinalgNode::LuFactor { name, .. } => name,
            LinalgNode::Lu { .. } => "LinalgLuBackward0",
            LinalgNode::Qr { .. } => "LinalgQrBackward0",
            LinalgNode::Eigh { .. } => "LinalgEighBackward0",
            LinalgNode::Svd { .. } => "LinalgSvdBackward0",
        }
    }

    /// The saved tensors by their torch attribute names (`_saved_Q`, ...).
    pub fn saved_tensors(&self) -> Vec<(&'static str, &SavedTensor)> {
        match self {
            LinalgNode::SolveEx { a, result, .. } => vec![("A", a), ("result", result)],
            LinalgNode::LuFactor { lu, pivots, .. } => vec![("LU", lu), ("pivots", pivots)],
            LinalgNode::Lu { p, l, u } => vec![("P", p), ("L", l), ("U", u)],
            LinalgNode::Qr { q, r, .. } => vec![("Q", q), ("R", r)],
            LinalgNode::Eigh {
                eigenvalues,
                eigenvectors,
            } => vec![("eigenvalues", eigenvalues), ("eigenvectors", eigenvectors)],
            LinalgNode::Svd { u, s, vh, .. } => vec![("U", u), ("S", s), ("Vh", vh)],
        }
    }

    /// Take out everything the node saved (after backward without `retain_graph`).
    pub fn release(&mut self) -> Vec<SavedTensor> {
        let mut out = Vec::new();
        let mut take = |s: &mut SavedTensor| {
            if !matches!(s, SavedTensor::None) {
                out.push(std::mem::replace(s, SavedTensor::Released));
            }
        };
        match self {
            LinalgNode::SolveEx { a, result, .. } => {
                take(a);
                take(result);
            }
            LinalgNode::LuFactor { lu, pivots, .. } => {
                take(lu);
                take(pivots);
            }
            LinalgNode::Lu { p, l, u } => {
                take(p);
                take(l);
                take(u);
            }
            LinalgNode::Qr { q, r, .. } => {
                take(q);
                take(r);
            }
            LinalgNode::Eigh {
                eigenvalues,
                eigenvectors,
            } => {
                take(eigenvalues);
                take(eigenvectors);
            }
            LinalgNode::Svd { u, s, vh, .. } => {
                take(u);
                take(s);
                take(vh);
            }
        }
        out
    }

    /// The gradients of the inputs (one per edge of `node`) from the gradients of the outputs
    /// (`None` for an output that received none).
    pub fn apply(&self, node: &Arc<Node>, grads: &[Option<Tensor>]) -> Result<Vec<Option<Tensor>>> {
        let n = Some(node);
        let needs = |i: usize| node.next_edges().get(i).is_some_and(|e| e.is_some());
        let g = |i: usize| grads.get(i).and_then(|g| g.as_ref());
        Ok(match self {
            LinalgNode::SolveEx {
                left,
                vector,
                a,
                result,
            } => {
                let Some(gx) = g(0) else {
                    return Ok(vec![None, None]);
                };
                let a = a.unpack(n)?;
                let gb = vt::linalg_solve(&mt(&a)?, gx, *left)?;
                let ga = if needs(0) {
                    let x = result.unpack(n)?;
                    Some(vt::neg(&if !*left {
                        vt::matmul(&mt(&x)?, &gb)?
                    } else if *vector {
                        vt::matmul(&vt::unsqueeze(&gb, -1)?, &vt::unsqueeze(&x, -2)?)?
                    } else {
                        vt::matmul(&gb, &mt(&x)?)?
                    })?)
                } else {
                    None
                };
                vec![ga, needs(1).then_some(gb)]
            }
            LinalgNode::LuFactor { lu, pivots, .. } => {
                let Some(grad) = g(0) else {
                    return Ok(vec![None]);
                };
                let lu = lu.unpack(n)?;
                let pivots = pivots.unpack(n)?;
                vec![Some(lu_factor_ex_backward(grad, &lu, &pivots)?)]
            }
            LinalgNode::Lu { p, l, u } => {
                if g(1).is_none() && g(2).is_none() {
                    return Ok(vec![None]);
                }
                let (p, l, u) = (p.unpack(n)?, l.unpack(n)?, u.unpack(n)?);
                vec![Some(linalg_lu_backward(g(1), g(2), &p, &l, &u)?)]
            }
            LinalgNode::Qr { mode, q, r } => {
                if g(0).is_none() && g(1).is_none() {
                    return Ok(vec![None]);
                }
                let (q, r) = (q.unpack(n)?, r.unpack(n)?);
                vec![Some(linalg_qr_backward(g(0), g(1), &q, &r, *mode)?)]
            }
            LinalgNode::Eigh {
                eigenvalues,
                eigenvectors,
            } => {
                if g(0).is_none() && g(1).is_none() {
                    return Ok(vec![None]);
                }
                let (l, v) = (eigenvalues.unpack(n)?, eigenvectors.unpack(n)?);
                vec![Some(eigh_backward(g(0), g(1), &l, &v)?)]
            }
            LinalgNode::Svd {
                full_matrices,
                u,
                s,
                vh,
            } => {
                if g(0).is_none() && g(1).is_none() && g(2).is_none() {
                    return Ok(vec![None]);
                }
                let (u, s, vh) = (u.unpack(n)?, s.unpack(n)?, vh.unpack(n)?);
                // torch: with full_matrices, only the first k columns of U (rows of Vh) enter.
                let k = s.sizes()[s.dim() - 1] as i64;
                let narrow_u = |t: &Tensor| -> Result<Tensor> {
                    if *full_matrices {
                        vt::narrow(t, -1, 0, k)
                    } else {
                        Ok(t.clone())
                    }
                };
                let narrow_vh = |t: &Tensor| -> Result<Tensor> {
                    if *full_matrices {
                        vt::narrow(t, -2, 0, k)
                    } else {
                        Ok(t.clone())
                    }
                };
                let gu = g(0).map(&narrow_u).transpose()?;
                let gvh = g(2).map(&narrow_vh).transpose()?;
                let (u, vh) = (narrow_u(&u)?, narrow_vh(&vh)?);
                vec![Some(svd_backward(
                    gu.as_ref(),
                    g(1),
                    gvh.as_ref(),
                    &u,
                    &s,
                    &vh,
                )?)]
            }
        })
    }
}

// ---- small helpers --------------------------------------------------------------------------

/// `x.mT` (the real `mH`).
fn mt(x: &Tensor) -> Result<Tensor> {
    vt::transpose(x, -2, -1)
}

fn add(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    vt::add(a, b, Scalar::Int(1))
}

fn sub(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    vt::sub(a, b, Scalar::Int(1))
}

fn size(t: &Tensor, d: i64) -> usize {
    t.sizes()[(t.dim() as i64 + d) as usize]
}

/// `linalg.solve_triangular(a, b, upper=, left=, unitriangular=)`, recorded.
fn solve_tri(a: &Tensor, b: &Tensor, upper: bool, left: bool, unit: bool) -> Result<Tensor> {
    vt::linalg_solve_triangular(a, b, upper, left, unit)
}

/// Zeros of `t`'s shape with the size `size` at `dim` (for the padding of the rectangular
/// cases; no history).
fn zeros_with(t: &Tensor, dim: i64, size: usize) -> Result<Tensor> {
    let mut shape: Vec<i64> = t.sizes().iter().map(|&v| v as i64).collect();
    let d = (t.dim() as i64 + dim) as usize;
    shape[d] = size as i64;
    ops::zeros(&shape, Some(t.dtype()))
}

/// The `n × n` identity of `t`'s dtype.
fn eye_like(n: usize, t: &Tensor) -> Result<Tensor> {
    ops::eye(n as i64, Some(t.dtype()))
}

// ---- the formulas (torch's FunctionsManual.cpp, real case) ----------------------------------

/// torch's `linalg_eig_backward(gL, gV, L, V, is_hermitian=true)`:
/// `gA = V (skew(V^T gV) / 2 / E + diag(gL)) V^T` with `E_ij = L_j - L_i` off the diagonal
/// (1 on it). Repeated eigenvalues divide by zero with `gV` (as torch).
pub(crate) fn eigh_backward(
    gl: Option<&Tensor>,
    gv: Option<&Tensor>,
    l: &Tensor,
    v: &Tensor,
) -> Result<Tensor> {
    let inner = match gv {
        Some(gv) => {
            let vhgv = vt::matmul(&mt(v)?, gv)?;
            let vhgv = sub(&vhgv, &mt(&vhgv)?)?;
            let vhgv = vt::mul(&vhgv, &scalar_like(0.5, &vhgv)?)?;
            let e = sub(&vt::unsqueeze(l, -2)?, &vt::unsqueeze(l, -1)?)?;
            let e = add(&e, &eye_like(size(l, -1), l)?)?;
            let r = vt::div(&vhgv, &e, None)?;
            match gl {
                Some(gl) => add(&r, &vt::diag_embed(gl, 0, -2, -1)?)?,
                None => r,
            }
        }
        None => vt::diag_embed(gl.expect("a gradient"), 0, -2, -1)?,
    };
    vt::matmul(v, &vt::matmul(&inner, &mt(v)?)?)
}

/// The derivative of `linalg.eigvalsh`: `eigh_backward(gL, None, L, V)` with the
/// eigendecomposition recomputed by the recording `linalg_eigh` (torch saves it from the
/// forward), so that double backward works.
pub(crate) fn eigvalsh_backward(g: &Tensor, a: &Tensor, uplo: &str) -> Result<Tensor> {
    let (l, v) = linalg_eigh(a, uplo)?;
    eigh_backward(Some(g), None, &l, &v)
}

/// The derivative of `linalg.svdvals`: `svd_backward(None, gS, None, U, S, Vh)` with the
/// reduced SVD recomputed by the recording `linalg_svd`.
pub(crate) fn svdvals_backward(g: &Tensor, a: &Tensor) -> Result<Tensor> {
    let (u, s, vh) = linalg_svd(a, false, None)?;
    svd_backward(None, Some(g), None, &u, &s, &vh)
}

/// torch's `svd_backward(gU, gS, gVh, U, S, Vh)` for the reduced factors `U (*, m, k)`,
/// `S (*, k)`, `Vh (*, k, n)`: with `skew(X) = X - X^T` and `E_ij = S_j^2 - S_i^2` (1 on the
/// diagonal), `gA = U [(skew(U^T gU) S + S skew(V^T gV)) / E + diag(gS)] Vh` plus, for tall
/// (wide) `A`, the part of `gU` (`gVh`) outside the span of `U` (`V`). Singular values that
/// repeat (or vanish, for the rectangular terms) divide by zero, as torch's.
pub(crate) fn svd_backward(
    gu: Option<&Tensor>,
    gs: Option<&Tensor>,
    gvh: Option<&Tensor>,
    u: &Tensor,
    s: &Tensor,
    vh: &Tensor,
) -> Result<Tensor> {
    let m = size(u, -2);
    let n = size(vh, -1);
    if gu.is_none() && gvh.is_none() {
        let gs = gs.expect("a gradient");
        return if m >= n {
            vt::matmul(u, &vt::mul(&vt::unsqueeze(gs, -1)?, vh)?)
        } else {
            vt::matmul(&vt::mul(u, &vt::unsqueeze(gs, -2)?)?, vh)
        };
    }
    let v = mt(vh)?;
    let gv = gvh.map(mt).transpose()?;
    let skew = |x: &Tensor| -> Result<Tensor> { sub(x, &mt(x)?) };
    let uhgu = gu.map(|gu| skew(&vt::matmul(&mt(u)?, gu)?)).transpose()?;
    let vhgv = gv
        .as_ref()
        .map(|gv| skew(&vt::matmul(&mt(&v)?, gv)?))
        .transpose()?;
    let s2 = vt::mul(s, s)?;
    let e = sub(&vt::unsqueeze(&s2, -2)?, &vt::unsqueeze(&s2, -1)?)?;
    let e = add(&e, &eye_like(size(s, -1), s)?)?;
    let s_row = vt::unsqueeze(s, -2)?;
    let s_col = vt::unsqueeze(s, -1)?;
    let mut ga = match (&uhgu, &vhgv) {
        (Some(uhgu), Some(vhgv)) => vt::div(
            &add(&vt::mul(uhgu, &s_row)?, &vt::mul(&s_col, vhgv)?)?,
            &e,
            None,
        )?,
        (Some(uhgu), None) => vt::mul(&vt::div(uhgu, &e, None)?, &s_row)?,
        (None, Some(vhgv)) => vt::mul(&s_col, &vt::div(vhgv, &e, None)?)?,
        (None, None) => unreachable!("checked above"),
    };
    if let Some(gs) = gs {
        ga = add(&ga, &vt::diag_embed(gs, 0, -2, -1)?)?;
    }
    match (gu, gvh) {
        (Some(gu), _) if m > n => {
            // gA = [U gA + (I_m - U U^T) gU S^-1] Vh
            let ga = vt::matmul(u, &ga)?;
            let gusinv = vt::div(gu, &s_row, None)?;
            let ga = sub(
                &add(&ga, &gusinv)?,
                &vt::matmul(u, &vt::matmul(&mt(u)?, &gusinv)?)?,
            )?;
            vt::matmul(&ga, vh)
        }
        (_, Some(gvh)) if m < n => {
            // gA = U [gA Vh + S^-1 gVh (I_n - V Vh)]
            let ga = vt::matmul(&ga, vh)?;
            let sinvgvh = vt::div(gvh, &s_col, None)?;
            let ga = sub(
                &add(&ga, &sinvgvh)?,
                &vt::matmul(&vt::matmul(&sinvgvh, &v)?, vh)?,
            )?;
            vt::matmul(u, &ga)
        }
        _ if m >= n => vt::matmul(u, &vt::matmul(&ga, vh)?),
        _ => vt::matmul(&vt::matmul(u, &ga)?, vh),
    }
}

/// torch's `linalg_qr_backward(gQ, gR, Q, R, mode)`: with `M = gR R^T - Q^T gQ`, for `m >= n`
/// `gA = (gQ + Q syminvadj(triu(M))) R^-T`; for `m < n`
/// `gA = [Q tril(M^T - M) R1^-T, 0] + Q gR` (`R1` the leading square block of `R`).
/// RuntimeError (torch's texts) for mode `'r'` and for `'complete'` with `m > n`.
pub(crate) fn linalg_qr_backward(
    gq: Option<&Tensor>,
    gr: Option<&Tensor>,
    q: &Tensor,
    r: &Tensor,
    mode: QrMode,
) -> Result<Tensor> {
    if mode == QrMode::R {
        return Err(Error::runtime(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.",
        ));
    }
    let m = size(q, -2);
    let n = size(r, -1);
    if mode == QrMode::Complete && m > n {
        return Err(Error::runtime(
            "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.",
        ));
    }
    let mh = match (gq, gr) {
        (Some(gq), Some(gr)) => sub(&vt::matmul(gr, &mt(r)?)?, &vt::matmul(&mt(q)?, gq)?)?,
        (Some(gq), None) => vt::neg(&vt::matmul(&mt(q)?, gq)?)?,
        (None, Some(gr)) => vt::matmul(gr, &mt(r)?)?,
        (None, None) => unreachable!("checked by the caller"),
    };
    if m >= n {
        // syminvadj(triu(M)) = triu(M) + triu(M, 1)^T (the real case).
        let sym = add(&vt::triu(&mh, 0)?, &mt(&vt::triu(&mh, 1)?)?)?;
        let mut b = vt::matmul(q, &sym)?;
        if let Some(gq) = gq {
            b = add(&b, gq)?;
        }
        solve_tri(&mt(r)?, &b, false, false, false)
    } else {
        let b = vt::matmul(q, &vt::tril(&sub(&mt(&mh)?, &mh)?, 0)?)?;
        let r1 = vt::narrow(r, -1, 0, m as i64)?;
        let ga = solve_tri(&mt(&r1)?, &b, false, false, false)?;
        let ga = vt::cat(&[ga.clone(), zeros_with(&ga, -1, n - m)?], -1)?;
        match gr {
            Some(gr) => add(&ga, &vt::matmul(q, gr)?),
            None => Ok(ga),
        }
    }
}

/// torch's `linalg_lu_backward(gL, gU, P, L, U, pivot=true)` for `A = P L U`, `L (*, m, k)`,
/// `U (*, k, n)`: square `gA = P L^-T [tril(L^T gL, -1) + triu(gU U^T)] U^-T`, and torch's
/// formulas for the wide and tall cases.
pub(crate) fn linalg_lu_backward(
    gl: Option<&Tensor>,
    gu: Option<&Tensor>,
    p: &Tensor,
    l: &Tensor,
    u: &Tensor,
) -> Result<Tensor> {
    let m = size(l, -2);
    let n = size(u, -1);
    let k = m.min(n);
    let ga = if m == n {
        let lhgl = gl
            .map(|gl| vt::tril(&vt::matmul(&mt(l)?, gl)?, -1))
            .transpose()?;
        let guuh = gu
            .map(|gu| vt::triu(&vt::matmul(gu, &mt(u)?)?, 0))
            .transpose()?;
        let ga = match (lhgl, guuh) {
            (Some(a), Some(b)) => add(&a, &b)?,
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => unreachable!("checked by the caller"),
        };
        let ga = solve_tri(&mt(u)?, &ga, false, false, false)?;
        solve_tri(&mt(l)?, &ga, true, true, true)?
    } else if m < n {
        // Wide: A1_grad = P L^-H [U1_grad + (L^H L_grad o 1_L - U_grad U^H o 1_U) U1^-H],
        // A2_grad = P L^-H U2_grad.
        let u1 = vt::narrow(u, -1, 0, k as i64)?;
        let lhgl = gl.map(|gl| vt::matmul(&mt(l)?, gl)).transpose()?;
        let guuh = gu
            .map(|gu| vt::matmul(&vt::triu(gu, 0)?, &mt(u)?))
            .transpose()?;
        let ga = match (lhgl, guuh) {
            (Some(a), Some(b)) => sub(&a, &b)?,
            (Some(a), None) => a,
            (None, Some(b)) => vt::neg(&b)?,
            (None, None) => unreachable!("checked by the caller"),
        };
        let ga = solve_tri(&mt(&u1)?, &vt::tril(&ga, -1)?, false, false, false)?;
        let ga = match gu {
            Some(gu) => {
                let gu1 = vt::narrow(gu, -1, 0, k as i64)?;
                let gu2 = vt::narrow(gu, -1, k as i64, (n - k) as i64)?;
                vt::cat(&[add(&ga, &vt::triu(&gu1, 0)?)?, gu2], -1)?
            }
            None => ga,
        };
        let ga = solve_tri(&mt(l)?, &ga, true, true, true)?;
        if gu.is_none() {
            vt::cat(&[ga.clone(), zeros_with(&ga, -1, n - k)?], -1)?
        } else {
            ga
        }
    } else {
        // Tall: A1_grad = P [L1_grad + L1^-H (U_grad U^H o 1_U - L^H L_grad o 1_L)] U^-H,
        // A2_grad = P L2_grad U^-H.
        let l1 = vt::narrow(l, -2, 0, k as i64)?;
        let guuh = gu.map(|gu| vt::matmul(gu, &mt(u)?)).transpose()?;
        let lhgl = gl
            .map(|gl| vt::matmul(&mt(l)?, &vt::tril(gl, -1)?))
            .transpose()?;
        let ga = match (guuh, lhgl) {
            (Some(a), Some(b)) => sub(&a, &b)?,
            (Some(a), None) => a,
            (None, Some(b)) => vt::neg(&b)?,
            (None, None) => unreachable!("checked by the caller"),
        };
        let ga = solve_tri(&mt(&l1)?, &vt::triu(&ga, 0)?, true, true, true)?;
        let ga = match gl {
            Some(gl) => {
                let gl1 = vt::narrow(gl, -2, 0, k as i64)?;
                let gl2 = vt::narrow(gl, -2, k as i64, (m - k) as i64)?;
                vt::cat(&[add(&ga, &vt::tril(&gl1, -1)?)?, gl2], -2)?
            }
            None => ga,
        };
        let ga = solve_tri(&mt(u)?, &ga, false, false, false)?;
        if gl.is_none() {
            vt::cat(&[ga.clone(), zeros_with(&ga, -2, m - k)?], -2)?
        } else {
            ga
        }
    };
    vt::matmul(p, &ga)
}

/// `L (*, m, k)`, `U (*, k, n)` of a packed `LU (*, m, n)` (recorded: the gradient flows to
/// `LU`) and `P` of its pivots (torch's `lu_unpack`).
fn lu_unpack(lu: &Tensor, pivots: &Tensor) -> Result<(Tensor, Tensor, Tensor)> {
    let m = size(lu, -2);
    let n = size(lu, -1);
    let k = m.min(n) as i64;
    let eye = ops::eye_m(m as i64, k, Some(lu.dtype()))?;
    let l = add(&vt::tril(&vt::narrow(lu, -1, 0, k)?, -1)?, &eye)?;
    let u = vt::triu(&vt::narrow(lu, -2, 0, k)?, 0)?;
    let p = ops::linalg_ops::lu_pivots_to_permutation(pivots, m, lu.dtype())?;
    Ok((p, l, u))
}

/// torch's `lu_factor_ex_backward(grad, LU, pivots, pivot)`: `linalg_lu_backward` with
/// `gL = tril(grad[..., :k], -1)` and `gU = triu(grad[..., :k, :])`.
pub(crate) fn lu_factor_ex_backward(grad: &Tensor, lu: &Tensor, pivots: &Tensor) -> Result<Tensor> {
    let (p, l, u) = lu_unpack(lu, pivots)?;
    let k = size(lu, -2).min(size(lu, -1)) as i64;
    let gl = vt::tril(&vt::narrow(grad, -1, 0, k)?, -1)?;
    let gu = vt::triu(&vt::narrow(grad, -2, 0, k)?, 0)?;
    linalg_lu_backward(Some(&gl), Some(&gu), &p, &l, &u)
}

/// torch's `linalg_lu_solve_LU(gX, LU, pivots, X, left, adjoint)`: the gradient of
/// `linalg.lu_solve` with respect to the packed `LU` (see torch's FunctionsManual.cpp for the
/// derivation): with `left != adjoint`, `gR = U^-T (-op(gX) op(X)^T)`,
/// `gLU = tril(L^-T gR U^T, -1) + triu(gR)`; else `gR = -P^T op(X) op(gX)^T P L^-T`,
/// `gLU = tril(gR, -1) + triu(L^T gR U^-T)`.
pub(crate) fn linalg_lu_solve_lu(
    gx: &Tensor,
    lu: &Tensor,
    pivots: &Tensor,
    x: &Tensor,
    left: bool,
    adjoint: bool,
) -> Result<Tensor> {
    let (p, l, u) = lu_unpack(lu, pivots)?;
    if left != adjoint {
        let (a, b) = if left {
            (gx.clone(), mt(x)?)
        } else {
            (mt(gx)?, x.clone())
        };
        let gr = solve_tri(
            &mt(&u)?,
            &vt::neg(&vt::matmul(&a, &b)?)?,
            false,
            true,
            false,
        )?;
        let gl = solve_tri(&mt(&l)?, &vt::matmul(&gr, &mt(&u)?)?, true, true, true)?;
        add(&vt::tril(&gl, -1)?, &vt::triu(&gr, 0)?)
    } else {
        let (a, b) = if left {
            (x.clone(), mt(gx)?)
        } else {
            (mt(x)?, gx.clone())
        };
        let gr = vt::neg(&vt::matmul(
            &vt::matmul(&mt(&p)?, &vt::matmul(&a, &b)?)?,
            &p,
        )?)?;
        let gr = solve_tri(&mt(&l)?, &gr, true, false, true)?;
        let gu = solve_tri(&mt(&u)?, &vt::matmul(&mt(&l)?, &gr)?, false, false, false)?;
        add(&vt::tril(&gr, -1)?, &vt::triu(&gu, 0)?)
    }
}

/// torch's `cholesky_solve_backward` for `input2` (the factor): with `gB =
/// cholesky_solve(gX, input2, upper)` and `C = gB X^T + X gB^T`, `-input2 C` (`upper`) or
/// `-C input2`.
pub(crate) fn cholesky_solve_input2_backward(
    grad: &Tensor,
    input2: &Tensor,
    result: &Tensor,
    upper: bool,
) -> Result<Tensor> {
    let gb = vt::cholesky_solve(grad, input2, upper)?;
    let c = vt::matmul(&gb, &mt(result)?)?;
    let c = add(&c, &mt(&c)?)?;
    vt::neg(&if upper {
        vt::matmul(input2, &c)?
    } else {
        vt::matmul(&c, input2)?
    })
}

// ---- recording ----------------------------------------------------------------------------

/// Make the node `kind` over `inputs` with the outputs `outs`, and set it as the history of
/// those marked differentiable in `diff` (float outputs only).
fn record_multi(outs: &[&Tensor], diff: &[bool], inputs: &[&Tensor], kind: LinalgNode) {
    let node = Node::new(
        NodeKind::Linalg(Box::new(kind)),
        vt::collect_edges(inputs),
        outs,
    );
    for (i, (o, d)) in outs.iter().zip(diff).enumerate() {
        if *d && o.dtype().is_floating_point() {
            o.set_grad_fn(node.clone(), i as u32);
        }
    }
}

/// `linalg.solve_ex(A, B, *, left=True, check_errors=False)` recorded as torch's
/// `LinalgSolveExBackward0` (on `result`; `info` is an integer tensor).
pub fn linalg_solve_ex(
    a: &Tensor,
    b: &Tensor,
    left: bool,
    check_errors: bool,
) -> Result<(Tensor, Tensor)> {
    let (x, info) = ops::linalg_solve_ex(a, b, left, check_errors)?;
    if vt::should_record(&[a, b]) {
        let kind = LinalgNode::SolveEx {
            left,
            vector: left && ops::linalg_ops::solve_is_vector_rhs(a, b),
            a: SavedTensor::input(a)?,
            result: SavedTensor::output(&x, 0)?,
        };
        record_multi(&[&x, &info], &[true, false], &[a, b], kind);
    }
    Ok((x, info))
}

/// `linalg.lu_factor_ex(A, *, pivot=True, check_errors=False)` recorded as torch's
/// `LinalgLuFactorExBackward0` (on `LU`).
pub fn linalg_lu_factor_ex(
    a: &Tensor,
    pivot: bool,
    check_errors: bool,
) -> Result<(Tensor, Tensor, Tensor)> {
    let (lu, piv, info) = ops::linalg_lu_factor_ex(a, pivot, check_errors)?;
    if vt::should_record(&[a]) {
        let kind = LinalgNode::LuFactor {
            name: "LinalgLuFactorExBackward0",
            lu: SavedTensor::output(&lu, 0)?,
            pivots: SavedTensor::input(&piv)?,
        };
        record_multi(&[&lu, &piv, &info], &[true, false, false], &[a], kind);
    }
    Ok((lu, piv, info))
}

/// `linalg.lu_factor(A, *, pivot=True)` recorded as torch's `LinalgLuFactorExBackward0` (torch
/// composes it over `lu_factor_ex`).
pub fn linalg_lu_factor(a: &Tensor, pivot: bool) -> Result<(Tensor, Tensor)> {
    let (lu, piv) = ops::linalg_lu_factor(a, pivot)?;
    if vt::should_record(&[a]) {
        let kind = LinalgNode::LuFactor {
            name: "LinalgLuFactorExBackward0",
            lu: SavedTensor::output(&lu, 0)?,
            pivots: SavedTensor::input(&piv)?,
        };
        record_multi(&[&lu, &piv], &[true, false], &[a], kind);
    }
    Ok((lu, piv))
}

/// `linalg.lu(A, *, pivot=True)` recorded as torch's `LinalgLuBackward0` (on `L` and `U`; `P`
/// is not differentiable).
pub fn linalg_lu(a: &Tensor, pivot: bool) -> Result<(Tensor, Tensor, Tensor)> {
    let (p, l, u) = ops::linalg_lu(a, pivot)?;
    if vt::should_record(&[a]) {
        let kind = LinalgNode::Lu {
            p: SavedTensor::input(&p)?,
            l: SavedTensor::output(&l, 1)?,
            u: SavedTensor::output(&u, 2)?,
        };
        record_multi(&[&p, &l, &u], &[false, true, true], &[a], kind);
    }
    Ok((p, l, u))
}

/// `linalg.qr(A, mode='reduced')` recorded as torch's `LinalgQrBackward0` (the mode errors are
/// raised by the backward, as torch's).
pub fn linalg_qr(a: &Tensor, mode: &str) -> Result<(Tensor, Tensor)> {
    let (q, r) = ops::linalg_qr(a, mode)?;
    if vt::should_record(&[a]) {
        let mode = match mode {
            "complete" => QrMode::Complete,
            "r" => QrMode::R,
            _ => QrMode::Reduced,
        };
        let kind = LinalgNode::Qr {
            mode,
            q: SavedTensor::output(&q, 0)?,
            r: SavedTensor::output(&r, 1)?,
        };
        record_multi(&[&q, &r], &[true, true], &[a], kind);
    }
    Ok((q, r))
}

/// `linalg.eigh(A, UPLO='L')` recorded as torch's `LinalgEighBackward0`.
pub fn linalg_eigh(a: &Tensor, uplo: &str) -> Result<(Tensor, Tensor)> {
    let (l, v) = ops::linalg_eigh(a, uplo)?;
    if vt::should_record(&[a]) {
        let kind = LinalgNode::Eigh {
            eigenvalues: SavedTensor::output(&l, 0)?,
            eigenvectors: SavedTensor::output(&v, 1)?,
        };
        record_multi(&[&l, &v], &[true, true], &[a], kind);
    }
    Ok((l, v))
}

/// `linalg.svd(A, full_matrices=True, *, driver=None)` recorded as torch's
/// `LinalgSvdBackward0`.
pub fn linalg_svd(
    a: &Tensor,
    full_matrices: bool,
    driver: Option<&str>,
) -> Result<(Tensor, Tensor, Tensor)> {
    let (u, s, vh) = ops::linalg_svd(a, full_matrices, driver)?;
    if vt::should_record(&[a]) {
        let kind = LinalgNode::Svd {
            full_matrices,
            u: SavedTensor::output(&u, 0)?,
            s: SavedTensor::output(&s, 1)?,
            vh: SavedTensor::output(&vh, 2)?,
        };
        record_multi(&[&u, &s, &vh], &[true, true, true], &[a], kind);
    }
    Ok((u, s, vh))
}

/// `svd(input, some=True, compute_uv=True)`: torch's composite over `linalg.svd` (`V` is
/// `Vh.mT`, recorded); without `compute_uv`, `S` is `linalg.svdvals(input)` and `U`, `V` the
/// zero-filled matrices without history.
pub fn svd(a: &Tensor, some: bool, compute_uv: bool) -> Result<(Tensor, Tensor, Tensor)> {
    if !vt::should_record(&[a]) {
        return ops::svd(a, some, compute_uv);
    }
    if compute_uv {
        let (u, s, vh) = linalg_svd(a, !some, None)?;
        return Ok((u, s, mt(&vh)?));
    }
    let (u, _, v) = ops::svd(a, some, false)?;
    Ok((u, vt::linalg_svdvals(a, None)?, v))
}

// ---- matrix norms: composites, as torch's CompositeImplicitAutograd ------------------------

/// The two matrix dims of `dim` (wrapped), validated by the core op first.
fn two_dims(a: &Tensor, dim: &[i64]) -> Result<(usize, usize)> {
    Ok((
        maybe_wrap_dim(dim[0], a.dim())?,
        maybe_wrap_dim(dim[1], a.dim())?,
    ))
}

/// `a` with the dims `d0`, `d1` moved to the end in that order (a recorded permute).
fn matrices_last(a: &Tensor, d0: usize, d1: usize) -> Result<Tensor> {
    let mut perm: Vec<i64> = (0..a.dim())
        .filter(|&d| d != d0 && d != d1)
        .map(|d| d as i64)
        .collect();
    perm.push(d0 as i64);
    perm.push(d1 as i64);
    vt::permute(a, &perm)
}

/// Unsqueeze the reduced matrix dims `(d0, d1)` back in when `keepdim` (as the core op).
fn keep_dims(r: Tensor, d0: usize, d1: usize, keepdim: bool) -> Result<Tensor> {
    if !keepdim {
        return Ok(r);
    }
    let (lo, hi) = if d0 < d1 { (d0, d1) } else { (d1, d0) };
    vt::unsqueeze(&vt::unsqueeze(&r, lo as i64)?, hi as i64)
}

/// `linalg.matrix_norm(A, ord, dim, keepdim, *, dtype)` (numeric `ord`), recorded as the ops
/// torch composes it of: `amax`/`amin` of `sum(abs(A))` for ±1 / ±inf, of `svdvals` for ±2.
/// A `dtype` other than `A`'s, or an empty `A`, gives the core op's result without history
/// when `A` requires grad — an error instead (torch's NotImplementedError text) for `dtype`.
pub fn linalg_matrix_norm(
    a: &Tensor,
    ord: Scalar,
    dim: &[i64],
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let out = ops::linalg_matrix_norm(a, ord, dim, keepdim, dtype)?;
    if !vt::should_record(&[a]) || a.numel() == 0 {
        return Ok(out);
    }
    if dtype.is_some_and(|d| d != a.dtype()) {
        return Err(vt::not_implemented("linalg_matrix_norm"));
    }
    let (d0, d1) = two_dims(a, dim)?;
    let o = ord.to_f64();
    if o.abs() == 2.0 {
        let s = vt::linalg_svdvals(&matrices_last(a, d0, d1)?, None)?;
        let r = if o > 0.0 {
            vt::amax(&s, &[-1], false)?
        } else {
            vt::amin(&s, &[-1], false)?
        };
        return keep_dims(r, d0, d1, keepdim);
    }
    let (sum_dim, red_dim) = if o.abs() == 1.0 { (d0, d1) } else { (d1, d0) };
    let summed = vt::sum(&vt::abs(a)?, Some(&[sum_dim as i64]), true, None)?;
    let r = if o > 0.0 {
        vt::amax(&summed, &[red_dim as i64], true)?
    } else {
        vt::amin(&summed, &[red_dim as i64], true)?
    };
    if keepdim {
        Ok(r)
    } else {
        let (lo, hi) = if d0 < d1 { (d0, d1) } else { (d1, d0) };
        vt::squeeze_dim(&vt::squeeze_dim(&r, hi as i64)?, lo as i64)
    }
}

/// `linalg.matrix_norm(A, ord='fro' | 'nuc', ...)`, recorded as `vector_norm` over the two dims
/// (`'fro'`) or the sum of `svdvals` (`'nuc'`).
pub fn linalg_matrix_norm_str_ord(
    a: &Tensor,
    ord: &str,
    dim: &[i64],
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let out = ops::linalg_matrix_norm_str_ord(a, ord, dim, keepdim, dtype)?;
    if !vt::should_record(&[a]) || a.numel() == 0 {
        return Ok(out);
    }
    let (d0, d1) = two_dims(a, dim)?;
    if ord == "fro" {
        return vt::linalg_vector_norm(
            a,
            Scalar::Float(2.0),
            Some(&[d0 as i64, d1 as i64]),
            keepdim,
            dtype,
        );
    }
    if dtype.is_some_and(|d| d != a.dtype()) {
        return Err(vt::not_implemented("linalg_matrix_norm"));
    }
    let s = vt::linalg_svdvals(&matrices_last(a, d0, d1)?, None)?;
    keep_dims(vt::sum(&s, Some(&[-1]), false, None)?, d0, d1, keepdim)
}

/// `linalg.norm(A, ord=None, dim=None, keepdim=False, *, dtype=None)`: the core op's dispatch
/// (validated by it) over the recorded vector and matrix norms.
pub fn linalg_norm(
    a: &Tensor,
    ord: Option<Scalar>,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let out = ops::linalg_norm(a, ord, dim, keepdim, dtype)?;
    if !vt::should_record(&[a]) {
        return Ok(out);
    }
    let matrix = match dim {
        Some(d) => d.len() == 2,
        None => ord.is_some() && a.dim() == 2,
    };
    match (ord, matrix) {
        (Some(o), true) => linalg_matrix_norm(a, o, dim.unwrap_or(&[-2, -1]), keepdim, dtype),
        (None, true) => {
            linalg_matrix_norm_str_ord(a, "fro", dim.unwrap_or(&[-2, -1]), keepdim, dtype)
        }
        (o, false) => {
            vt::linalg_vector_norm(a, o.unwrap_or(Scalar::Float(2.0)), dim, keepdim, dtype)
        }
    }
}

/// `linalg.norm(A, ord: str, dim=None, keepdim=False, *, dtype=None)`, recorded.
pub fn linalg_norm_ord_str(
    a: &Tensor,
    ord: &str,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let out = ops::linalg_norm_ord_str(a, ord, dim, keepdim, dtype)?;
    if !vt::should_record(&[a]) {
        return Ok(out);
    }
    linalg_matrix_norm_str_ord(a, ord, dim.unwrap_or(&[-2, -1]), keepdim, dtype)
}
