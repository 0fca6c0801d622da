//! src/core/ops/linalg_ops.rs: the `torch.linalg` functions over the decompositions of
//! `decomp.rs` — `linalg_solve`, `linalg_inv(_ex)`, `linalg_det`, `linalg_slogdet`,
//! `linalg_cholesky(_ex)`, `linalg_solve_triangular`, `linalg_qr`, `linalg_eigh`,
//! `linalg_eigvalsh`, `linalg_svd`, `linalg_svdvals`, the norms — and torch's top-level aliases
//! (`det`, `logdet`, `slogdet`, `inverse`) (PyTorch: `native/BatchLinearAlgebra.cpp`,
//! `native/LinearAlgebra.cpp`).
//!
//! Every function takes float32 or float64 matrices batched over leading dimensions, works on
//! each matrix in `f64` (the float32 results are the float64 ones rounded once; see `decomp.rs`
//! for the accuracy of each algorithm) and returns results of the input's dtype. Errors are
//! torch's, word for word: the shape checks ("linalg.inv: A must be batches of square matrices,
//! but they are 2 by 3 matrices"), the dtype check (NotImplementedError "linalg.inv: Expected a
//! floating point or complex tensor as input. Got Long") and the LAPACK `info` checks
//! ("linalg.inv: (Batch element 1): The diagonal element 2 is zero, ..."), which torch raises as
//! `torch.linalg.LinAlgError`, a RuntimeError subclass, and we as `ErrorKind::LinAlg`
//! (`_C._LinAlgError`, `_C.linalg.LinAlgError`, a RuntimeError subclass too).

use super::decomp;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::scalar::Scalar;
use crate::core::tensor::{broadcast_shapes, maybe_wrap_dim, Tensor};

// ----- helpers -------------------------------------------------------------------------------

/// NotImplementedError "linalg.inv: Expected a floating point or complex tensor as input. Got
/// Long" unless `t` is float32 or float64.
fn check_float(t: &Tensor, f: &str) -> Result<()> {
    match t.dtype() {
        DType::Float32 | DType::Float64 => Ok(()),
        d => Err(Error::not_implemented(format!(
            "{f}: Expected a floating point or complex tensor as input. Got {}",
            d.scalar_type_name()
        ))),
    }
}

/// torch's `checkIsMatrix`: at least two dimensions.
fn check_matrix(t: &Tensor, f: &str, name: &str) -> Result<()> {
    if t.dim() < 2 {
        return Err(Error::runtime(format!(
            "{f}: The input tensor {name} must have at least 2 dimensions."
        )));
    }
    Ok(())
}

/// torch's `squareCheckInputs`.
fn check_square(t: &Tensor, f: &str, name: &str) -> Result<()> {
    check_matrix(t, f, name)?;
    let s = t.sizes();
    let (m, n) = (s[s.len() - 2], s[s.len() - 1]);
    if m != n {
        return Err(Error::runtime(format!(
            "{f}: {name} must be batches of square matrices, but they are {m} by {n} matrices"
        )));
    }
    Ok(())
}

/// A batch of matrices read into `f64`: `data` holds `count` row-major `m×n` matrices.
struct Mats {
    data: Vec<f64>,
    batch: Vec<usize>,
    count: usize,
    m: usize,
    n: usize,
}

impl Mats {
    fn read(t: &Tensor) -> Result<Mats> {
        let s = t.sizes();
        let (m, n) = (s[s.len() - 2], s[s.len() - 1]);
        let batch = s[..s.len() - 2].to_vec();
        let count = batch.iter().product();
        let data = super::conversion::try_to_f64_vec(t)?;
        Ok(Mats {
            data,
            batch,
            count,
            m,
            n,
        })
    }

    fn mat(&self, b: usize) -> &[f64] {
        &self.data[b * self.m * self.n..(b + 1) * self.m * self.n]
    }
}

/// A tensor of `sizes` and dtype `dtype` (float32 or float64) from `f64` values.
fn make(data: Vec<f64>, sizes: &[usize], dtype: DType) -> Result<Tensor> {
    match dtype {
        DType::Float32 => Tensor::from_vec(data.into_iter().map(|v| v as f32).collect(), sizes),
        _ => Tensor::from_vec(data, sizes),
    }
}

fn cat_sizes(batch: &[usize], tail: &[usize]) -> Vec<usize> {
    batch.iter().chain(tail).copied().collect()
}

/// The ": (Batch element i)" part of torch's `_linalg_check_errors` messages: empty for a single
/// matrix, `(Batch element i): ` for a batch.
fn batch_prefix(batched: bool, i: usize) -> String {
    if batched {
        format!("(Batch element {i}): ")
    } else {
        String::new()
    }
}

fn info_tensor(info: Vec<i32>, batch: &[usize]) -> Result<Tensor> {
    Tensor::from_vec(info, batch)
}

// ----- LU-based: inv, det, slogdet, solve ----------------------------------------------------

/// `linalg.inv_ex(A, *, check_errors=False)`: the inverses of the square matrices `A` `(*, n, n)`
/// and `info` (int32, shape `*`: 0, or the 1-based index of the zero pivot of a singular matrix,
/// whose "inverse" then holds infinities or NaNs). With `check_errors`, a singular matrix raises
/// as `linalg.inv`. Mirrors `torch.linalg.inv_ex` (LU with partial pivoting; backward error
/// O(n·ε·‖A‖), forward error that times the condition number).
pub fn linalg_inv_ex(a: &Tensor, check_errors: bool) -> Result<(Tensor, Tensor)> {
    inv_impl(a, check_errors, "linalg.inv_ex")
}

/// `linalg.inv_ex`, its `check_errors` message naming `f`.
fn inv_impl(a: &Tensor, check_errors: bool, f: &str) -> Result<(Tensor, Tensor)> {
    check_square(a, "linalg.inv", "A")?;
    check_float(a, "linalg.inv")?;
    let mats = Mats::read(a)?;
    let n = mats.n;
    let mut out = Vec::with_capacity(mats.data.len());
    let mut infos = Vec::with_capacity(mats.count);
    for b in 0..mats.count {
        let mut lu = mats.mat(b).to_vec();
        let (piv, info) = decomp::lu_factor(&mut lu, n, n);
        let mut x = vec![0.0; n * n];
        for i in 0..n {
            x[i * n + i] = 1.0;
        }
        decomp::lu_solve(&lu, &piv, n, &mut x, n);
        out.extend(x);
        infos.push(info as i32);
    }
    if check_errors {
        check_inv_info(&infos, a.dim() > 2, f)?;
    }
    Ok((
        make(out, a.sizes(), a.dtype())?,
        info_tensor(infos, &mats.batch)?,
    ))
}

fn check_inv_info(infos: &[i32], batched: bool, f: &str) -> Result<()> {
    if let Some((i, &info)) = infos.iter().enumerate().find(|(_, &v)| v > 0) {
        return Err(Error::linalg(format!(
            "{f}: {}The diagonal element {info} is zero, the inversion could not be completed because the input matrix is singular.",
            batch_prefix(batched, i)
        )));
    }
    Ok(())
}

/// `linalg.inv(A)`: the inverses of the square matrices `A` `(*, n, n)`, float32/float64.
/// RuntimeError (torch: LinAlgError) "linalg.inv: The diagonal element 2 is zero, the inversion
/// could not be completed because the input matrix is singular." for a singular matrix. Mirrors
/// `torch.linalg.inv` (and `torch.inverse`).
pub fn linalg_inv(a: &Tensor) -> Result<Tensor> {
    Ok(inv_impl(a, true, "linalg.inv")?.0)
}

/// `inverse(input)`: `linalg.inv`. Mirrors `torch.inverse`.
pub fn inverse(a: &Tensor) -> Result<Tensor> {
    linalg_inv(a)
}

/// Signs and log-magnitudes of the determinants of `A` `(*, n, n)` (checked under `f`'s name).
fn slogdet_parts(a: &Tensor, f: &str) -> Result<(Vec<f64>, Vec<f64>, Vec<usize>)> {
    check_square(a, f, "A")?;
    check_float(a, f)?;
    let mats = Mats::read(a)?;
    let n = mats.n;
    let (mut signs, mut logs) = (Vec::new(), Vec::new());
    for b in 0..mats.count {
        let mut lu = mats.mat(b).to_vec();
        let (piv, _) = decomp::lu_factor(&mut lu, n, n);
        let (s, l) = decomp::lu_slogdet(&lu, &piv, n);
        signs.push(s);
        logs.push(l);
    }
    Ok((signs, logs, mats.batch))
}

/// `linalg.det(A)`: the determinants of the square matrices `A` `(*, n, n)` (shape `*`),
/// float32/float64, from an LU factorisation (the product of U's diagonal and the pivots'
/// sign; relative error O(n·ε·κ(A))). Mirrors `torch.linalg.det` (and `torch.det`).
pub fn linalg_det(a: &Tensor) -> Result<Tensor> {
    check_square(a, "linalg.det", "A")?;
    check_float(a, "linalg.det")?;
    let mats = Mats::read(a)?;
    let n = mats.n;
    let mut dets = Vec::with_capacity(mats.count);
    for b in 0..mats.count {
        let mut lu = mats.mat(b).to_vec();
        let (piv, _) = decomp::lu_factor(&mut lu, n, n);
        let mut d = 1.0;
        for i in 0..n {
            d *= lu[i * n + i];
            if piv[i] - 1 != i as i64 {
                d = -d;
            }
        }
        dets.push(d);
    }
    make(dets, &mats.batch, a.dtype())
}

/// `det(input)`: `linalg.det`. Mirrors `torch.det`.
pub fn det(a: &Tensor) -> Result<Tensor> {
    linalg_det(a)
}

/// `linalg.slogdet(A)`: `(sign, logabsdet)` of the determinants of `A` `(*, n, n)`, both of
/// shape `*` and `A`'s dtype; a singular matrix gives `(0, -inf)`. Mirrors
/// `torch.linalg.slogdet` (and `torch.slogdet`).
pub fn linalg_slogdet(a: &Tensor) -> Result<(Tensor, Tensor)> {
    let (s, l, batch) = slogdet_parts(a, "linalg.slogdet")?;
    Ok((make(s, &batch, a.dtype())?, make(l, &batch, a.dtype())?))
}

/// `slogdet(input)`: `linalg.slogdet`. Mirrors `torch.slogdet`.
pub fn slogdet(a: &Tensor) -> Result<(Tensor, Tensor)> {
    linalg_slogdet(a)
}

/// `logdet(input)`: the log of the determinant — NaN for a negative determinant, `-inf` for a
/// singular matrix. Mirrors `torch.logdet`.
pub fn logdet(a: &Tensor) -> Result<Tensor> {
    let (s, l, batch) = slogdet_parts(a, "linalg.slogdet")?;
    let v = s
        .iter()
        .zip(l)
        .map(|(&s, l)| if s < 0.0 { f64::NAN } else { l })
        .collect();
    make(v, &batch, a.dtype())
}

/// torch's `linalg_solve_is_vector_rhs`: `B` is a (batch of) vector(s) for `A X = B` (also
/// read by `linalg_solve`'s derivative).
pub fn solve_is_vector_rhs(a: &Tensor, b: &Tensor) -> bool {
    let (sa, sb) = (a.sizes(), b.sizes());
    b.dim() == 1 || (a.dim() - 1 == b.dim() && sb == &sa[..sa.len() - 1])
}

/// `linalg.solve_ex(A, B, *, left=True, check_errors=False)`: `(result, info)` — the solution
/// `X` of `A X = B` (`X A = B` when `left` is false) and the LU `info` of each matrix (int32,
/// shape of A's batch broadcast with B's). `A` `(*, n, n)`; `B` `(*, n)` / `(n,)` (vectors) or
/// `(*, n, k)` / `(n, k)`, batch dimensions broadcast. Mirrors `torch.linalg.solve_ex` (LU with
/// partial pivoting).
pub fn linalg_solve_ex(
    a: &Tensor,
    b: &Tensor,
    left: bool,
    check_errors: bool,
) -> Result<(Tensor, Tensor)> {
    check_square(a, "linalg.solve", "A")?;
    check_float(a, "linalg.solve")?;
    if a.dtype() != b.dtype() {
        return Err(Error::runtime(format!(
            "linalg.solve: Expected A and B to have the same dtype, but found A of type {} and B of type {} instead",
            a.dtype().scalar_type_name(),
            b.dtype().scalar_type_name()
        )));
    }
    let vector = left && solve_is_vector_rhs(a, b);
    let b2 = if vector {
        super::view::unsqueeze(b, -1)?
    } else {
        b.clone()
    };
    if b2.dim() < 2 {
        return Err(Error::runtime(
            "linalg.solve: The input tensor B must have at least 2 dimensions.",
        ));
    }
    let n = a.sizes()[a.dim() - 1];
    let bs = b2.sizes();
    let (br, bc) = (bs[bs.len() - 2], bs[bs.len() - 1]);
    let fits = if left { br == n } else { bc == n };
    if !fits {
        let eq = if left { "AX = B" } else { "XA = B" };
        return Err(Error::runtime(format!(
            "linalg.solve: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and {br}x{bc})"
        )));
    }
    let batch = broadcast_shapes(&a.sizes()[..a.dim() - 2], &bs[..bs.len() - 2])?;
    let to_i64 = |v: &[usize]| v.iter().map(|&x| x as i64).collect::<Vec<_>>();
    let a_e = super::view::expand(a, &to_i64(&cat_sizes(&batch, &[n, n])))?;
    let b_e = super::view::expand(&b2, &to_i64(&cat_sizes(&batch, &[br, bc])))?;
    let am = Mats::read(&a_e)?;
    let bm = Mats::read(&b_e)?;
    let mut out = Vec::with_capacity(bm.data.len());
    let mut infos = Vec::with_capacity(am.count);
    for i in 0..am.count {
        let mut lu = am.mat(i).to_vec();
        let rhs = bm.mat(i);
        if !left {
            // X A = B  ⇔  Aᵀ Xᵀ = Bᵀ.
            let mut t = vec![0.0; n * n];
            for r in 0..n {
                for c in 0..n {
                    t[c * n + r] = lu[r * n + c];
                }
            }
            lu = t;
        }
        let (piv, info) = decomp::lu_factor(&mut lu, n, n);
        infos.push(info as i32);
        if left {
            let mut x = rhs.to_vec();
            decomp::lu_solve(&lu, &piv, n, &mut x, bc);
            out.extend(x);
        } else {
            // Bᵀ is n×br.
            let mut x = vec![0.0; n * br];
            for r in 0..br {
                for c in 0..n {
                    x[c * br + r] = rhs[r * n + c];
                }
            }
            decomp::lu_solve(&lu, &piv, n, &mut x, br);
            let mut xt = vec![0.0; br * n];
            for r in 0..n {
                for c in 0..br {
                    xt[c * n + r] = x[r * br + c];
                }
            }
            out.extend(xt);
        }
    }
    if check_errors {
        if let Some((i, _)) = infos.iter().enumerate().find(|(_, &v)| v > 0) {
            return Err(Error::linalg(format!(
                "torch.linalg.solve: {}The solver failed because the input matrix is singular.",
                batch_prefix(!batch.is_empty(), i)
            )));
        }
    }
    let mut x = make(out, &cat_sizes(&batch, &[br, bc]), a.dtype())?;
    if vector {
        x = super::view::squeeze_dim(&x, -1)?;
    }
    Ok((x, info_tensor(infos, &batch)?))
}

/// `linalg.solve(A, B, *, left=True)`: the solution of `A X = B` (or `X A = B`), see
/// `linalg_solve_ex`. RuntimeError (torch: LinAlgError) "torch.linalg.solve: The solver failed
/// because the input matrix is singular." Mirrors `torch.linalg.solve`.
pub fn linalg_solve(a: &Tensor, b: &Tensor, left: bool) -> Result<Tensor> {
    Ok(linalg_solve_ex(a, b, left, true)?.0)
}

/// `linalg.lu_factor_ex(A, *, pivot=True, check_errors=False)`: `(LU, pivots, info)` — the LU
/// factorisation with partial pivoting of `A` `(*, m, n)` packed in one `(*, m, n)` tensor (unit
/// lower L below the diagonal, U on and above), the 1-based row swaps `(*, min(m, n))` and the
/// `info` codes `(*)` (int32; positive: the first zero diagonal element of U). `pivot=False`
/// is torch's CPU error. Mirrors `torch.linalg.lu_factor_ex` (LAPACK `getrf`'s conventions).
pub fn linalg_lu_factor_ex(
    a: &Tensor,
    pivot: bool,
    check_errors: bool,
) -> Result<(Tensor, Tensor, Tensor)> {
    lu_factor_impl(a, pivot, check_errors, "torch.linalg.lu_factor_ex")
}

fn lu_factor_impl(
    a: &Tensor,
    pivot: bool,
    check_errors: bool,
    f: &str,
) -> Result<(Tensor, Tensor, Tensor)> {
    check_matrix(a, "torch.linalg.lu_factor", "A")?;
    check_float(a, "linalg.lu_factor")?;
    if !pivot {
        return Err(Error::runtime(
            "linalg.lu_factor: LU without pivoting is not implemented on the CPU",
        ));
    }
    let mats = Mats::read(a)?;
    let (m, n) = (mats.m, mats.n);
    let k = m.min(n);
    let (mut out, mut pivs, mut infos) = (Vec::new(), Vec::new(), Vec::new());
    for b in 0..mats.count {
        let mut lu = mats.mat(b).to_vec();
        let (piv, info) = decomp::lu_factor(&mut lu, m, n);
        out.extend(lu);
        pivs.extend(piv.iter().map(|&p| p as i32));
        infos.push(info as i32);
    }
    if check_errors {
        if let Some((i, &info)) = infos.iter().enumerate().find(|(_, &v)| v > 0) {
            return Err(Error::runtime(format!(
                "{f}: {}U[{info},{info}] is zero and using it on lu_solve would result in a division by zero. If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)",
                batch_prefix(a.dim() > 2, i)
            )));
        }
    }
    Ok((
        make(out, a.sizes(), a.dtype())?,
        Tensor::from_vec(pivs, &cat_sizes(&mats.batch, &[k]))?,
        info_tensor(infos, &mats.batch)?,
    ))
}

/// `linalg.lu_factor(A, *, pivot=True)`: `(LU, pivots)` of `linalg.lu_factor_ex`; a zero pivot
/// raises RuntimeError (as torch: not LinAlgError) "torch.linalg.lu_factor: U[2,2] is zero and using it on lu_solve
/// would result in a division by zero. ...". Mirrors `torch.linalg.lu_factor`.
pub fn linalg_lu_factor(a: &Tensor, pivot: bool) -> Result<(Tensor, Tensor)> {
    let (lu, piv, _) = lu_factor_impl(a, pivot, true, "torch.linalg.lu_factor")?;
    Ok((lu, piv))
}

/// `linalg.lu(A, *, pivot=True)`: `(P, L, U)` with `A = P L U` for `A` `(*, m, n)`, `k =
/// min(m, n)`: P `(*, m, m)` a permutation matrix, L `(*, m, k)` unit lower triangular, U
/// `(*, k, n)` upper triangular. Singular matrices are factorised without error. Mirrors
/// `torch.linalg.lu`.
pub fn linalg_lu(a: &Tensor, pivot: bool) -> Result<(Tensor, Tensor, Tensor)> {
    check_matrix(a, "linalg.lu", "A")?;
    check_float(a, "linalg.lu")?;
    if !pivot {
        return Err(Error::runtime(
            "linalg.lu_factor: LU without pivoting is not implemented on the CPU",
        ));
    }
    let mats = Mats::read(a)?;
    let (m, n) = (mats.m, mats.n);
    let k = m.min(n);
    let (mut ps, mut ls, mut us) = (Vec::new(), Vec::new(), Vec::new());
    for b in 0..mats.count {
        let mut lu = mats.mat(b).to_vec();
        let (piv, _) = decomp::lu_factor(&mut lu, m, n);
        let perm = decomp::pivots_to_perm(&piv, m);
        let mut p = vec![0.0; m * m];
        for (i, &r) in perm.iter().enumerate() {
            p[r * m + i] = 1.0;
        }
        let mut l = vec![0.0; m * k];
        for i in 0..m {
            for j in 0..k.min(i + 1) {
                l[i * k + j] = if i == j { 1.0 } else { lu[i * n + j] };
            }
        }
        let mut u = vec![0.0; k * n];
        for i in 0..k {
            for j in i..n {
                u[i * n + j] = lu[i * n + j];
            }
        }
        ps.extend(p);
        ls.extend(l);
        us.extend(u);
    }
    Ok((
        make(ps, &cat_sizes(&mats.batch, &[m, m]), a.dtype())?,
        make(ls, &cat_sizes(&mats.batch, &[m, k]), a.dtype())?,
        make(us, &cat_sizes(&mats.batch, &[k, n]), a.dtype())?,
    ))
}

/// The permutation matrices `P` `(*, m, m)` (of `dtype`) of LAPACK's 1-based row swaps
/// `pivots` `(*, k)` (int32, as `linalg.lu_factor` returns them), with `A = P L U`: torch's
/// `lu_unpack(LU, pivots)[0]`. Used by the LU family's derivatives. RuntimeError for pivots
/// outside `[1, m]`.
pub fn lu_pivots_to_permutation(pivots: &Tensor, m: usize, dtype: DType) -> Result<Tensor> {
    let k = pivots.sizes().last().copied().unwrap_or(0);
    let batch = &pivots.sizes()[..pivots.dim().saturating_sub(1)];
    let pv = super::conversion::try_to_f64_vec(pivots)?;
    let count: usize = batch.iter().product();
    let mut out = vec![0.0; count * m * m];
    for b in 0..count {
        let piv: Vec<i64> = pv[b * k..(b + 1) * k].iter().map(|&v| v as i64).collect();
        if piv.iter().any(|&p| p < 1 || p as usize > m) {
            return Err(Error::runtime(
                "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you properly pass the result of lu_factor?",
            ));
        }
        let perm = decomp::pivots_to_perm(&piv, m);
        for (i, &r) in perm.iter().enumerate() {
            out[b * m * m + r * m + i] = 1.0;
        }
    }
    make(out, &cat_sizes(batch, &[m, m]), dtype)
}

/// `linalg.lu_solve(LU, pivots, B, *, left=True, adjoint=False)`: the solution of `A X = B`
/// (`X A = B` when not `left`; `Aᵀ` for `A` when `adjoint`) from `linalg.lu_factor`'s output for
/// square `A` `(*, n, n)`, batches broadcast. Mirrors `torch.linalg.lu_solve` (rebuilds `A = P L
/// U` and solves by the same LU: backward stable).
pub fn linalg_lu_solve(
    lu: &Tensor,
    pivots: &Tensor,
    b: &Tensor,
    left: bool,
    adjoint: bool,
) -> Result<Tensor> {
    check_square(lu, "linalg.lu_solve", "LU")?;
    check_float(lu, "linalg.lu_solve")?;
    if pivots.dtype() != DType::Int32 {
        return Err(Error::runtime(
            "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32",
        ));
    }
    let n = lu.sizes()[lu.dim() - 1];
    if pivots.sizes() != &lu.sizes()[..lu.dim() - 1] {
        return Err(Error::runtime(format!(
            "linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots with shape {:?} instead",
            pivots.sizes()
        )));
    }
    let mats = Mats::read(lu)?;
    let pv = super::conversion::try_to_f64_vec(pivots)?;
    let mut a = Vec::with_capacity(mats.data.len());
    for bi in 0..mats.count {
        let packed = mats.mat(bi);
        let piv: Vec<i64> = pv[bi * n..(bi + 1) * n].iter().map(|&p| p as i64).collect();
        if piv.iter().any(|&p| p < 1 || p as usize > n) {
            return Err(Error::runtime(format!(
                "linalg.lu_solve: pivots must be in [1, {n}]"
            )));
        }
        let perm = decomp::pivots_to_perm(&piv, n);
        // A[perm[i]] = (L U)[i].
        let mut m = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                let mut s = 0.0;
                for t in 0..=i.min(j) {
                    let l = if t == i { 1.0 } else { packed[i * n + t] };
                    s += l * packed[t * n + j];
                }
                let (r, c) = if adjoint { (j, perm[i]) } else { (perm[i], j) };
                m[r * n + c] = s;
            }
        }
        a.extend(m);
    }
    let a = make(a, lu.sizes(), lu.dtype())?;
    linalg_solve(&a, b, left)
}

// ----- Cholesky, triangular solve -------------------------------------------------------------

/// `linalg.cholesky_ex(A, *, upper=False, check_errors=False)`: `(L, info)` — the Cholesky
/// factors of the symmetric positive-definite `A` `(*, n, n)` (lower; `upper=True` gives
/// `Lᵀ`), reading A's lower triangle, and `info` (int32, shape `*`: 0, or the order of the
/// first leading minor that is not positive-definite). Mirrors `torch.linalg.cholesky_ex`
/// (unblocked `potrf`; backward error O(n·ε·‖A‖)).
pub fn linalg_cholesky_ex(a: &Tensor, upper: bool, check_errors: bool) -> Result<(Tensor, Tensor)> {
    check_square(a, "linalg.cholesky", "A")?;
    check_float(a, "linalg.cholesky")?;
    let mats = Mats::read(a)?;
    let n = mats.n;
    let mut out = Vec::with_capacity(mats.data.len());
    let mut infos = Vec::with_capacity(mats.count);
    for b in 0..mats.count {
        let mut l = mats.mat(b).to_vec();
        infos.push(decomp::cholesky(&mut l, n) as i32);
        if upper {
            let mut u = vec![0.0; n * n];
            for r in 0..n {
                for c in 0..n {
                    u[c * n + r] = l[r * n + c];
                }
            }
            l = u;
        }
        out.extend(l);
    }
    if check_errors {
        if let Some((i, &info)) = infos.iter().enumerate().find(|(_, &v)| v > 0) {
            return Err(Error::linalg(format!(
                "linalg.cholesky: {}The factorization could not be completed because the input is not positive-definite (the leading minor of order {info} is not positive-definite).",
                batch_prefix(a.dim() > 2, i)
            )));
        }
    }
    Ok((
        make(out, a.sizes(), a.dtype())?,
        info_tensor(infos, &mats.batch)?,
    ))
}

/// `linalg.cholesky(A, *, upper=False)`: see `linalg_cholesky_ex`; RuntimeError (torch:
/// LinAlgError) "linalg.cholesky: The factorization could not be completed because the input is
/// not positive-definite (the leading minor of order 2 is not positive-definite)." Mirrors
/// `torch.linalg.cholesky`.
pub fn linalg_cholesky(a: &Tensor, upper: bool) -> Result<Tensor> {
    Ok(linalg_cholesky_ex(a, upper, true)?.0)
}

/// `linalg.solve_triangular(A, B, *, upper, left=True, unitriangular=False)`: the solution of
/// `A X = B` (`X A = B` when not `left`) for triangular `A` `(*, n, n)` (only the triangle
/// `upper` names is read; `unitriangular` assumes a unit diagonal) and `B` `(*, n, k)`
/// (`(*, k, n)` when not left), batches broadcast. No singularity check (a zero diagonal gives
/// infinities or NaNs, as torch's). Mirrors `torch.linalg.solve_triangular` (substitution;
/// backward stable).
pub fn linalg_solve_triangular(
    a: &Tensor,
    b: &Tensor,
    upper: bool,
    left: bool,
    unitriangular: bool,
) -> Result<Tensor> {
    check_square(a, "linalg.solve_triangular", "A")?;
    check_matrix(b, "linalg.solve_triangular", "B")?;
    check_float(a, "linalg.solve_triangular")?;
    if a.dtype() != b.dtype() {
        return Err(Error::runtime(format!(
            "linalg.solve_triangular: Expected A and B to have the same dtype, but found A of type {} and B of type {} instead",
            a.dtype().scalar_type_name(),
            b.dtype().scalar_type_name()
        )));
    }
    let n = a.sizes()[a.dim() - 1];
    let bs = b.sizes();
    let (br, bc) = (bs[bs.len() - 2], bs[bs.len() - 1]);
    if (left && br != n) || (!left && bc != n) {
        let eq = if left { "AX = B" } else { "XA = B" };
        return Err(Error::runtime(format!(
            "linalg.solve_triangular: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and {br}x{bc})"
        )));
    }
    let batch = broadcast_shapes(&a.sizes()[..a.dim() - 2], &bs[..bs.len() - 2])?;
    let to_i64 = |v: &[usize]| v.iter().map(|&x| x as i64).collect::<Vec<_>>();
    let am = Mats::read(&super::view::expand(
        a,
        &to_i64(&cat_sizes(&batch, &[n, n])),
    )?)?;
    let bm = Mats::read(&super::view::expand(
        b,
        &to_i64(&cat_sizes(&batch, &[br, bc])),
    )?)?;
    let mut out = Vec::with_capacity(bm.data.len());
    for i in 0..am.count {
        let t = am.mat(i);
        if left {
            let mut x = bm.mat(i).to_vec();
            decomp::triangular_solve(t, n, upper, unitriangular, &mut x, bc);
            out.extend(x);
        } else {
            // X A = B ⇔ Aᵀ Xᵀ = Bᵀ, and Aᵀ has the other triangle.
            let mut tt = vec![0.0; n * n];
            for r in 0..n {
                for c in 0..n {
                    tt[c * n + r] = t[r * n + c];
                }
            }
            let rhs = bm.mat(i);
            let mut x = vec![0.0; n * br];
            for r in 0..br {
                for c in 0..n {
                    x[c * br + r] = rhs[r * n + c];
                }
            }
            decomp::triangular_solve(&tt, n, !upper, unitriangular, &mut x, br);
            for r in 0..br {
                for c in 0..n {
                    out.push(x[c * br + r]);
                }
            }
        }
    }
    make(out, &cat_sizes(&batch, &[br, bc]), a.dtype())
}

/// `cholesky_solve(B, L, upper=False)`: the solution of `A X = B` given the Cholesky factor of
/// `A` (`L` lower, or `U = Lᵀ` when `upper`), batches broadcast. Mirrors `torch.cholesky_solve`.
pub fn cholesky_solve(b: &Tensor, l: &Tensor, upper: bool) -> Result<Tensor> {
    check_matrix(b, "cholesky_solve", "B")?;
    if b.dtype() != l.dtype() {
        return Err(Error::runtime(format!(
            "Expected b and A to have the same dtype, but found b of type {} and A of type {} instead.",
            b.dtype().scalar_type_name(),
            l.dtype().scalar_type_name()
        )));
    }
    // A = L Lᵀ: solve L Y = B, then Lᵀ X = Y (with U: Uᵀ Y = B, then U X = Y).
    let lt = super::view::transpose(l, -2, -1)?;
    if upper {
        let y = linalg_solve_triangular(&lt, b, false, true, false)?;
        linalg_solve_triangular(l, &y, true, true, false)
    } else {
        let y = linalg_solve_triangular(l, b, false, true, false)?;
        linalg_solve_triangular(&lt, &y, true, true, false)
    }
}

// ----- QR, eigh, SVD ---------------------------------------------------------------------------

/// `linalg.qr(A, mode='reduced')`: `(Q, R)` with `A = Q R` for `A` `(*, m, n)`, `k = min(m, n)`:
/// `'reduced'` gives Q `(*, m, k)` and R `(*, k, n)`, `'complete'` Q `(*, m, m)` and R
/// `(*, m, n)`, `'r'` an empty Q and the reduced R. R's diagonal may be negative (LAPACK's
/// convention). RuntimeError "qr received unrecognized mode 'x' but expected one of 'reduced'
/// (default), 'r', or 'complete'". Mirrors `torch.linalg.qr` (Householder; backward error
/// O(m·n·ε·‖A‖), Q orthonormal to O(m·n·ε)).
pub fn linalg_qr(a: &Tensor, mode: &str) -> Result<(Tensor, Tensor)> {
    let (complete, want_q) = match mode {
        "reduced" => (false, true),
        "complete" => (true, true),
        "r" => (false, false),
        other => {
            return Err(Error::runtime(format!(
                "qr received unrecognized mode '{other}' but expected one of 'reduced' (default), 'r', or 'complete'"
            )))
        }
    };
    check_matrix(a, "linalg.qr", "A")?;
    check_float(a, "linalg.qr")?;
    let mats = Mats::read(a)?;
    let (m, n) = (mats.m, mats.n);
    let k = m.min(n);
    let (qc, rr) = if complete { (m, m) } else { (k, k) };
    let (mut qs, mut rs) = (Vec::new(), Vec::new());
    for b in 0..mats.count {
        let (q, r) = decomp::qr(mats.mat(b), m, n, complete);
        qs.extend(q);
        rs.extend(r);
    }
    let q = if want_q {
        make(qs, &cat_sizes(&mats.batch, &[m, qc]), a.dtype())?
    } else {
        make(Vec::new(), &[0], a.dtype())?
    };
    Ok((q, make(rs, &cat_sizes(&mats.batch, &[rr, n]), a.dtype())?))
}

fn uplo_upper(uplo: &str) -> Result<bool> {
    match uplo {
        "L" | "l" => Ok(false),
        "U" | "u" => Ok(true),
        other => Err(Error::runtime(format!(
            "Expected UPLO argument to be 'L' or 'U', but got {other}"
        ))),
    }
}

/// Eigenvalues (and vectors when `vectors`) of the symmetric `A` `(*, n, n)`.
fn eigh_impl(a: &Tensor, uplo: &str, f: &str, vectors: bool) -> Result<(Tensor, Tensor)> {
    let upper = uplo_upper(uplo)?;
    check_square(a, f, "A")?;
    if !matches!(a.dtype(), DType::Float32 | DType::Float64) {
        return Err(Error::not_implemented(format!(
            "\"linalg_eigh_cpu\" not implemented for '{}'",
            a.dtype().scalar_type_name()
        )));
    }
    let mats = Mats::read(a)?;
    let n = mats.n;
    let (mut ws, mut vs) = (Vec::new(), Vec::new());
    for b in 0..mats.count {
        match decomp::eigh(mats.mat(b), n, upper) {
            Some((w, v)) => {
                ws.extend(w);
                vs.extend(v);
            }
            None => {
                return Err(Error::linalg(format!(
                    "{f}: {}The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated eigenvalues (error code: {n}).",
                    batch_prefix(a.dim() > 2, b)
                )))
            }
        }
    }
    let w = make(ws, &cat_sizes(&mats.batch, &[n]), a.dtype())?;
    let v = if vectors {
        make(vs, a.sizes(), a.dtype())?
    } else {
        make(Vec::new(), &[0], a.dtype())?
    };
    Ok((w, v))
}

/// `linalg.eigh(A, UPLO='L')`: `(eigenvalues, eigenvectors)` of the symmetric `A` `(*, n, n)`
/// (only the triangle UPLO names is read): eigenvalues `(*, n)` ascending, eigenvectors the
/// columns of `(*, n, n)` (unique up to sign). RuntimeError "Expected UPLO argument to be 'L' or
/// 'U', but got X". Mirrors `torch.linalg.eigh` (cyclic Jacobi: eigenvalues to a few ulps of
/// ‖A‖, vectors orthonormal to O(n·ε)).
pub fn linalg_eigh(a: &Tensor, uplo: &str) -> Result<(Tensor, Tensor)> {
    eigh_impl(a, uplo, "linalg.eigh", true)
}

/// `linalg.eigvalsh(A, UPLO='L')`: the eigenvalues of `linalg.eigh`. Mirrors
/// `torch.linalg.eigvalsh`.
pub fn linalg_eigvalsh(a: &Tensor, uplo: &str) -> Result<Tensor> {
    Ok(eigh_impl(a, uplo, "linalg.eigvalsh", false)?.0)
}

/// `(U, S, Vh)` of `A` `(*, m, n)` (U and Vh only when `vectors`).
fn svd_impl(a: &Tensor, full: bool, vectors: bool, f: &str) -> Result<(Tensor, Tensor, Tensor)> {
    check_matrix(a, f, "A")?;
    check_float(a, f)?;
    let mats = Mats::read(a)?;
    let (m, n) = (mats.m, mats.n);
    let k = m.min(n);
    let (mut us, mut ss, mut vts) = (Vec::new(), Vec::new(), Vec::new());
    for b in 0..mats.count {
        let Some((u, s, vt)) = decomp::svd(mats.mat(b), m, n, full) else {
            return Err(Error::linalg(format!(
                "{f}: {}The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated singular values (error code: {k}).",
                batch_prefix(a.dim() > 2, b)
            )));
        };
        us.extend(u);
        ss.extend(s);
        if full {
            vts.extend(vt);
        } else {
            // decomp::svd returns Vᵀ with min(m,n) or n rows: keep the first k.
            vts.extend_from_slice(&vt[..k * n]);
        }
    }
    let (uc, vr) = if full { (m, n) } else { (k, k) };
    let s = make(ss, &cat_sizes(&mats.batch, &[k]), a.dtype())?;
    if !vectors {
        let e = make(Vec::new(), &[0], a.dtype())?;
        return Ok((e.clone(), s, e));
    }
    Ok((
        make(us, &cat_sizes(&mats.batch, &[m, uc]), a.dtype())?,
        s,
        make(vts, &cat_sizes(&mats.batch, &[vr, n]), a.dtype())?,
    ))
}

/// `linalg.svd(A, full_matrices=True, *, driver=None)`: `(U, S, Vh)` with `A = U diag(S) Vh`
/// for `A` `(*, m, n)`, `k = min(m, n)`: S `(*, k)` descending; U `(*, m, m)` and Vh `(*, n, n)`
/// when `full_matrices`, else `(*, m, k)` and `(*, k, n)`. Singular vectors are unique up to
/// sign. `driver` is accepted and ignored (torch's is CUDA-only). Mirrors `torch.linalg.svd`
/// (one-sided Jacobi: singular values to a few ulps of ‖A‖).
pub fn linalg_svd(
    a: &Tensor,
    full_matrices: bool,
    driver: Option<&str>,
) -> Result<(Tensor, Tensor, Tensor)> {
    let _ = driver;
    svd_impl(a, full_matrices, true, "linalg.svd")
}

/// `svd(input, some=True, compute_uv=True)`: `(U, S, V)` with `input = U diag(S) Vᵀ` (V, not
/// Vh); `some` gives the reduced factors; without `compute_uv`, U and V are zero-filled
/// `(*, m, m)` and `(*, n, n)` whatever `some` says, as torch's. Mirrors `torch.svd` (deprecated in torch for
/// `linalg.svd`).
pub fn svd(a: &Tensor, some: bool, compute_uv: bool) -> Result<(Tensor, Tensor, Tensor)> {
    let (u, s, vh) = svd_impl(a, !some, compute_uv, "linalg.svd")?;
    if compute_uv {
        let v = super::view::transpose(&vh, -2, -1)?.contiguous()?;
        return Ok((u, s, v));
    }
    let sz = a.sizes();
    let (m, n) = (sz[sz.len() - 2], sz[sz.len() - 1]);
    let batch = &sz[..sz.len() - 2];
    Ok((
        Tensor::zeros(&cat_sizes(batch, &[m, m]), a.dtype())?,
        s,
        Tensor::zeros(&cat_sizes(batch, &[n, n]), a.dtype())?,
    ))
}

/// `linalg.svdvals(A, *, driver=None)`: the singular values of `A` `(*, m, n)`, `(*, min(m, n))`
/// descending. Mirrors `torch.linalg.svdvals`.
pub fn linalg_svdvals(a: &Tensor, driver: Option<&str>) -> Result<Tensor> {
    let _ = driver;
    Ok(svd_impl(a, false, false, "linalg.svd")?.1)
}

// ----- norms -----------------------------------------------------------------------------------

/// `linalg.vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None)`: the `ord`-norm of `x`
/// flattened or over `dim` (inf: max |x|, -inf: min |x|, 0: the count of non-zeros, else
/// `sum(|x|^ord)^(1/ord)`), accumulated in `f64`. float32/float64 (or `dtype`); NotImplementedError
/// "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long". Mirrors
/// `torch.linalg.vector_norm`.
pub fn linalg_vector_norm(
    x: &Tensor,
    ord: Scalar,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    check_float(x, "linalg.vector_norm")?;
    let x = match dtype {
        Some(d) => {
            if !matches!(d, DType::Float32 | DType::Float64) {
                return Err(Error::runtime(format!(
                    "linalg.vector_norm: dtype should be floating point or complex, but got {}",
                    d.scalar_type_name()
                )));
            }
            x.to_dtype(d)?
        }
        None => x.clone(),
    };
    let dim = match dim {
        Some([]) => None,
        d => d,
    };
    super::reduce_ops::norm(&x, Some(ord), dim, keepdim)
}

/// Checks `dim` names two distinct dimensions of `a` and returns them wrapped.
fn matrix_dims(a: &Tensor, dim: &[i64], f: &str) -> Result<(usize, usize)> {
    check_matrix(a, f, "A")?;
    if dim.len() != 2 {
        return Err(Error::runtime(format!(
            "{f}: dim must be a 2-tuple. Got {}",
            dim.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        )));
    }
    let d0 = maybe_wrap_dim(dim[0], a.dim())?;
    let d1 = maybe_wrap_dim(dim[1], a.dim())?;
    if d0 == d1 {
        return Err(Error::runtime(format!(
            "{f}: dims must be different. Got ({}, {})",
            dim[0], dim[1]
        )));
    }
    Ok((d0, d1))
}

/// `amax` over `dim`, 0 when `dim` is empty: torch's matrix norms of order 1, 2 and inf are 0
/// for an empty matrix (the maximum of nonnegative values over nothing), while the orders -1,
/// -2 and -inf raise `amin`'s IndexError.
fn amax_or_zero(t: &Tensor, dim: i64, keepdim: bool) -> Result<Tensor> {
    let d = maybe_wrap_dim(dim, t.dim())?;
    if t.sizes()[d] == 0 {
        let mut shape: Vec<i64> = t.sizes().iter().map(|&v| v as i64).collect();
        if keepdim {
            shape[d] = 1;
        } else {
            shape.remove(d);
        }
        return super::factory::zeros(&shape, Some(t.dtype()));
    }
    super::reduce_ops::amax(t, &[dim], keepdim)
}

/// The singular values of the matrices `a` holds in dims `(d0, d1)`, moved to the end, reduced
/// by `pick` (max/min/sum), with `keepdim`'s shape.
fn svd_reduce(a: &Tensor, d0: usize, d1: usize, keepdim: bool, pick: &str) -> Result<Tensor> {
    let moved = super::view::movedim_intlist(a, &[d0 as i64, d1 as i64], &[-2, -1])?;
    let s = linalg_svdvals(&moved, None)?;
    let r = match pick {
        "max" => amax_or_zero(&s, -1, false)?,
        "min" => super::reduce_ops::amin(&s, &[-1], false)?,
        _ => super::reduce_ops::sum(&s, Some(&[-1]), false, None)?,
    };
    if keepdim {
        let (lo, hi) = if d0 < d1 { (d0, d1) } else { (d1, d0) };
        let r = super::view::unsqueeze(&r, lo as i64)?;
        super::view::unsqueeze(&r, hi as i64)
    } else {
        Ok(r)
    }
}

/// `linalg.matrix_norm(A, ord, dim=(-2, -1), keepdim=False, *, dtype=None)` with a numeric
/// `ord`: ±1 (max/min column sum of |A|), ±inf (max/min row sum), ±2 (largest/smallest singular
/// value). RuntimeError "linalg.matrix_norm: Order 3 not supported.". Mirrors
/// `torch.linalg.matrix_norm`.
pub fn linalg_matrix_norm(
    a: &Tensor,
    ord: Scalar,
    dim: &[i64],
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let f = "linalg.matrix_norm";
    check_float(a, f)?;
    let (d0, d1) = matrix_dims(a, dim, f)?;
    let o = ord.to_f64();
    let a = match dtype {
        Some(d) => a.to_dtype(d)?,
        None => a.clone(),
    };
    if o.abs() == 2.0 {
        return svd_reduce(&a, d0, d1, keepdim, if o > 0.0 { "max" } else { "min" });
    }
    let (sum_dim, red_dim) = if o.abs() == 1.0 {
        (d0, d1)
    } else if o.is_infinite() {
        (d1, d0)
    } else {
        return Err(Error::runtime(format!(
            "{f}: Order {} not supported.",
            ord_text(o)
        )));
    };
    let abs = super::unary::abs(&a)?;
    let summed = super::reduce_ops::sum(&abs, Some(&[sum_dim as i64]), true, None)?;
    let r = if o > 0.0 {
        amax_or_zero(&summed, red_dim as i64, true)?
    } else if summed.sizes()[red_dim] == 0 {
        // torch reduces the sum without keepdim, so its error names the dim after the sum
        // removed `sum_dim`.
        let d = if !keepdim && sum_dim < red_dim {
            red_dim - 1
        } else {
            red_dim
        };
        return Err(Error::index(format!(
            "amin(): Expected reduction dim {d} to have non-zero size."
        )));
    } else {
        super::reduce_ops::amin(&summed, &[red_dim as i64], true)?
    };
    if keepdim {
        Ok(r)
    } else {
        let (lo, hi) = if d0 < d1 { (d0, d1) } else { (d1, d0) };
        let r = super::view::squeeze_dim(&r, hi as i64)?;
        super::view::squeeze_dim(&r, lo as i64)
    }
}

fn ord_text(o: f64) -> String {
    if o.fract() == 0.0 && o.is_finite() {
        format!("{}", o as i64)
    } else {
        format!("{o}")
    }
}

/// `linalg.matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False, *, dtype=None)` with a string
/// `ord`: `'fro'` (the Frobenius norm) or `'nuc'` (the sum of the singular values).
/// RuntimeError "linalg.matrix_norm: Order abc not supported.". Mirrors
/// `torch.linalg.matrix_norm`.
pub fn linalg_matrix_norm_str_ord(
    a: &Tensor,
    ord: &str,
    dim: &[i64],
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    let f = "linalg.matrix_norm";
    if ord != "fro" && ord != "nuc" {
        return Err(Error::runtime(format!("{f}: Order {ord} not supported.")));
    }
    check_float(a, f)?;
    let (d0, d1) = matrix_dims(a, dim, f)?;
    if ord == "fro" {
        return linalg_vector_norm(
            a,
            Scalar::Float(2.0),
            Some(&[d0 as i64, d1 as i64]),
            keepdim,
            dtype,
        );
    }
    let a = match dtype {
        Some(d) => a.to_dtype(d)?,
        None => a.clone(),
    };
    svd_reduce(&a, d0, d1, keepdim, "sum")
}

/// `linalg.norm(A, ord=None, dim=None, keepdim=False, *, dtype=None)`: a vector norm when `dim`
/// is one dimension (or `ord` is None and `dim` is None: the 2-norm of the flattened input), a
/// matrix norm when `dim` has two (or the input is 2-D and `dim` None). RuntimeError
/// "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got 3D.".
/// Mirrors `torch.linalg.norm`.
pub fn linalg_norm(
    a: &Tensor,
    ord: Option<Scalar>,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    if let Some(d) = dim {
        if d.len() != 1 && d.len() != 2 {
            return Err(Error::runtime(format!(
                "linalg.norm: If dim is specified, it must be of length 1 or 2. Got [{}]",
                d.iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    } else if ord.is_some() && a.dim() != 1 && a.dim() != 2 {
        return Err(Error::runtime(format!(
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {}D.",
            a.dim()
        )));
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
        (o, false) => linalg_vector_norm(a, o.unwrap_or(Scalar::Float(2.0)), dim, keepdim, dtype),
    }
}

/// `linalg.norm(A, ord: str, dim=None, keepdim=False, *, dtype=None)`: `'fro'` or `'nuc'` over a
/// 2-D input or the two dimensions of `dim`. RuntimeError "linalg.norm: If dim is not specified
/// but ord is, the input must be 1D or 2D. Got 3D.". Mirrors `torch.linalg.norm`.
pub fn linalg_norm_ord_str(
    a: &Tensor,
    ord: &str,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor> {
    if dim.is_none() && a.dim() != 2 {
        return Err(Error::runtime(format!(
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {}D.",
            a.dim()
        )));
    }
    linalg_matrix_norm_str_ord(a, ord, dim.unwrap_or(&[-2, -1]), keepdim, dtype)
}
