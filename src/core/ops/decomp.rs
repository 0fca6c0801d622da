//! src/core/ops/decomp.rs: the dense matrix decompositions behind `torch.linalg` — LU with
//! partial pivoting, Cholesky, Householder QR, the symmetric eigendecomposition (cyclic Jacobi)
//! and the SVD (one-sided Jacobi) — on one row-major `f64` matrix at a time (PyTorch calls
//! LAPACK's `getrf`, `potrf`, `geqrf`/`orgqr`, `syevd`, `gesdd`; we have no LAPACK).
//!
//! Conventions are LAPACK's where torch exposes them: LU pivots are 1-based row swaps applied in
//! order, `info` is the 1-based index of the first exactly-zero pivot (LU) or of the first
//! leading minor that is not positive-definite (Cholesky); a Householder reflector of a column
//! whose tail is already zero is the identity (`tau = 0`); eigenvalues ascend; singular values
//! descend.
//!
//! Accuracy: every routine is backward stable. LU with partial pivoting and Householder QR
//! have backward errors of O(n·ε·‖A‖) (growth factor aside for LU); cyclic Jacobi (both the
//! symmetric and the one-sided SVD form) runs sweeps until no off-diagonal rotation changes
//! anything at working precision, which gives eigenvalues and singular values with relative
//! accuracy at least as good as LAPACK's QR-based drivers (Demmel–Veselić). The callers compute
//! in `f64` whatever the input dtype and round once at the end, so float32 results are correctly
//! rounded from a far more accurate answer than float32 LAPACK gives.
//!
//! The kernels are the plain (unblocked) algorithms: matrices of ordinary code are small, and
//! the O(n³) inner loops run over contiguous rows. Blocking the trailing updates on `gemm.rs`
//! pays only for n in the hundreds; it is left for when a benchmark asks for it.

/// LU factorisation with partial pivoting of the `m×n` row-major matrix `a`, in place (unit
/// lower L below the diagonal, U on and above it; LAPACK `getrf`). Returns the `min(m, n)`
/// 1-based pivots (`piv[i]`: row `i` was swapped with row `piv[i] - 1`) and `info`: 0, or the
/// 1-based index of the first exactly-zero diagonal element of U (the factorisation still
/// completes, as LAPACK's).
pub fn lu_factor(a: &mut [f64], m: usize, n: usize) -> (Vec<i64>, usize) {
    let k = m.min(n);
    let mut piv = Vec::with_capacity(k);
    let mut info = 0;
    for j in 0..k {
        // The pivot: the largest magnitude in column j at or below the diagonal (the first on
        // a tie, as `idamax`).
        let mut p = j;
        let mut best = a[j * n + j].abs();
        for i in j + 1..m {
            let v = a[i * n + j].abs();
            if v > best {
                best = v;
                p = i;
            }
        }
        piv.push(p as i64 + 1);
        if a[p * n + j] == 0.0 {
            if info == 0 {
                info = j + 1;
            }
            continue;
        }
        if p != j {
            for c in 0..n {
                a.swap(j * n + c, p * n + c);
            }
        }
        let pivot = a[j * n + j];
        for i in j + 1..m {
            let l = a[i * n + j] / pivot;
            a[i * n + j] = l;
            if l != 0.0 {
                let (top, bottom) = a.split_at_mut(i * n);
                let row_j = &top[j * n + j + 1..j * n + n];
                let row_i = &mut bottom[j + 1..n];
                for (x, &u) in row_i.iter_mut().zip(row_j) {
                    *x -= l * u;
                }
            }
        }
    }
    (piv, info)
}

/// The permutation of `lu_factor`'s pivots as `perm` with `(P A)[i] = A[perm[i]]`, `m` rows.
pub fn pivots_to_perm(piv: &[i64], m: usize) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..m).collect();
    for (i, &p) in piv.iter().enumerate() {
        perm.swap(i, (p - 1) as usize);
    }
    perm
}

/// Solves `A X = B` from `lu_factor`'s output: `b` is `n×k` row-major and is overwritten by X
/// (LAPACK `getrs`). A zero pivot gives infinities or NaNs, as LAPACK's.
pub fn lu_solve(lu: &[f64], piv: &[i64], n: usize, b: &mut [f64], k: usize) {
    for (i, &p) in piv.iter().enumerate() {
        let p = (p - 1) as usize;
        if p != i {
            for j in 0..k {
                b.swap(i * k + j, p * k + j);
            }
        }
    }
    // Forward substitution with the unit lower factor.
    for i in 0..n {
        for m in 0..i {
            let l = lu[i * n + m];
            if l != 0.0 {
                for j in 0..k {
                    b[i * k + j] -= l * b[m * k + j];
                }
            }
        }
    }
    // Back substitution with U.
    for i in (0..n).rev() {
        for m in i + 1..n {
            let u = lu[i * n + m];
            if u != 0.0 {
                for j in 0..k {
                    b[i * k + j] -= u * b[m * k + j];
                }
            }
        }
        let d = lu[i * n + i];
        for j in 0..k {
            b[i * k + j] /= d;
        }
    }
}

/// The determinant's sign (±1, or 0 when a pivot is zero) and the log of its magnitude from
/// `lu_factor`'s output.
pub fn lu_slogdet(lu: &[f64], piv: &[i64], n: usize) -> (f64, f64) {
    let mut sign = 1.0;
    let mut log = 0.0;
    for i in 0..n {
        if piv[i] - 1 != i as i64 {
            sign = -sign;
        }
        let d = lu[i * n + i];
        if d < 0.0 {
            sign = -sign;
        }
        log += d.abs().ln();
    }
    if log == f64::NEG_INFINITY {
        sign *= 0.0;
    }
    (sign, log)
}

/// Cholesky factorisation of the symmetric positive-definite `n×n` row-major `a`, reading its
/// lower triangle, in place: the lower factor L with `A = L Lᵀ` (LAPACK `potrf`, unblocked). The
/// strict upper triangle is zeroed. Returns 0, or the order of the first leading minor that is
/// not positive-definite (the factorisation stops there, as LAPACK's).
pub fn cholesky(a: &mut [f64], n: usize) -> usize {
    for j in 0..n {
        let mut d = a[j * n + j];
        for m in 0..j {
            d -= a[j * n + m] * a[j * n + m];
        }
        if d <= 0.0 || d.is_nan() {
            a[j * n + j] = d;
            for r in 0..n {
                for c in r + 1..n {
                    a[r * n + c] = 0.0;
                }
            }
            return j + 1;
        }
        let d = d.sqrt();
        a[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for m in 0..j {
                s -= a[i * n + m] * a[j * n + m];
            }
            a[i * n + j] = s / d;
        }
    }
    for r in 0..n {
        for c in r + 1..n {
            a[r * n + c] = 0.0;
        }
    }
    0
}

/// Solves the triangular system `T X = B` in place (`b` is `n×k` row-major): `t` is `n×n`
/// row-major, lower or upper as `upper` says, with an implicit unit diagonal when
/// `unitriangular` (LAPACK `trtrs`). A zero diagonal gives infinities or NaNs.
pub fn triangular_solve(
    t: &[f64],
    n: usize,
    upper: bool,
    unitriangular: bool,
    b: &mut [f64],
    k: usize,
) {
    let mut solve_row = |i: usize, range: &mut dyn Iterator<Item = usize>| {
        for m in range {
            let v = t[i * n + m];
            if v != 0.0 {
                for j in 0..k {
                    b[i * k + j] -= v * b[m * k + j];
                }
            }
        }
        if !unitriangular {
            let d = t[i * n + i];
            for j in 0..k {
                b[i * k + j] /= d;
            }
        }
    };
    if upper {
        for i in (0..n).rev() {
            solve_row(i, &mut (i + 1..n));
        }
    } else {
        for i in 0..n {
            solve_row(i, &mut (0..i));
        }
    }
}

/// Householder QR of the `m×n` row-major `a` (LAPACK `geqrf` + `orgqr`, unblocked): returns
/// `(Q, R)` with Q `m×q` having orthonormal columns and R `q×n` upper triangular, where
/// `q = m` when `complete` and `min(m, n)` otherwise. R's diagonal may be negative (LAPACK's
/// reflectors `H = I - τ v vᵀ` with `v₀ = 1`, `β = -sign(α)‖x‖`, and `τ = 0` when the column's
/// tail is zero).
pub fn qr(a: &[f64], m: usize, n: usize, complete: bool) -> (Vec<f64>, Vec<f64>) {
    let mut r = a.to_vec();
    let k = m.min(n);
    let mut vs: Vec<(Vec<f64>, f64)> = Vec::with_capacity(k);
    for j in 0..k {
        let alpha = r[j * n + j];
        let tail: f64 = (j + 1..m).map(|i| r[i * n + j] * r[i * n + j]).sum();
        if tail == 0.0 {
            vs.push((Vec::new(), 0.0));
            continue;
        }
        let norm = (alpha * alpha + tail).sqrt();
        let beta = if alpha >= 0.0 { -norm } else { norm };
        let tau = (beta - alpha) / beta;
        let scale = 1.0 / (alpha - beta);
        let mut v = vec![0.0; m - j];
        v[0] = 1.0;
        for i in j + 1..m {
            v[i - j] = r[i * n + j] * scale;
        }
        // Apply H to the trailing columns: R[j.., c] -= τ v (vᵀ R[j.., c]).
        r[j * n + j] = beta;
        for i in j + 1..m {
            r[i * n + j] = 0.0;
        }
        for c in j + 1..n {
            let mut s = 0.0;
            for i in j..m {
                s += v[i - j] * r[i * n + c];
            }
            s *= tau;
            if s != 0.0 {
                for i in j..m {
                    r[i * n + c] -= s * v[i - j];
                }
            }
        }
        vs.push((v, tau));
    }
    let q_cols = if complete { m } else { k };
    // Q = H₀ H₁ … H_{k-1} applied to the first q_cols columns of the identity, backwards.
    let mut q = vec![0.0; m * q_cols];
    for i in 0..q_cols.min(m) {
        q[i * q_cols + i] = 1.0;
    }
    for j in (0..k).rev() {
        let (v, tau) = &vs[j];
        if *tau == 0.0 {
            continue;
        }
        for c in 0..q_cols {
            let mut s = 0.0;
            for i in j..m {
                s += v[i - j] * q[i * q_cols + c];
            }
            s *= tau;
            if s != 0.0 {
                for i in j..m {
                    q[i * q_cols + c] -= s * v[i - j];
                }
            }
        }
    }
    let r_rows = if complete { m } else { k };
    let mut rr = vec![0.0; r_rows * n];
    for i in 0..r_rows.min(m) {
        for c in i..n {
            rr[i * n + c] = r[i * n + c];
        }
    }
    (q, rr)
}

/// The largest number of Jacobi sweeps before giving up (convergence is quadratic: ordinary
/// matrices need 6–10).
const MAX_SWEEPS: usize = 60;

/// Symmetric eigendecomposition of the `n×n` row-major `a` (only the triangle `upper` names is
/// read) by cyclic Jacobi rotations: returns the eigenvalues in ascending order and the
/// eigenvectors as the columns of an `n×n` row-major matrix (LAPACK `syevd`'s ordering), with
/// the signs the rotations give (eigenvectors are unique only up to sign). Returns `None` when
/// the sweeps do not converge (never seen for finite input; NaN or infinite input gives `None`).
pub fn eigh(a: &[f64], n: usize, upper: bool) -> Option<(Vec<f64>, Vec<f64>)> {
    let mut s = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            let (r, c) = if (i <= j) == upper { (i, j) } else { (j, i) };
            s[i * n + j] = a[r * n + c];
        }
    }
    if s.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let mut v = vec![0.0; n * n];
    for i in 0..n {
        v[i * n + i] = 1.0;
    }
    let mut converged = n < 2;
    for _ in 0..MAX_SWEEPS {
        if converged {
            break;
        }
        let mut rotated = false;
        for p in 0..n {
            for q in p + 1..n {
                let apq = s[p * n + q];
                if apq == 0.0 {
                    continue;
                }
                let app = s[p * n + p];
                let aqq = s[q * n + q];
                // Skip rotations that cannot change the diagonal at working precision.
                if apq.abs() <= f64::EPSILON * 0.5 * (app.abs() * aqq.abs()).sqrt() {
                    s[p * n + q] = 0.0;
                    s[q * n + p] = 0.0;
                    continue;
                }
                rotated = true;
                let theta = (aqq - app) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let sn = t * c;
                for k in 0..n {
                    let skp = s[k * n + p];
                    let skq = s[k * n + q];
                    s[k * n + p] = c * skp - sn * skq;
                    s[k * n + q] = sn * skp + c * skq;
                }
                for k in 0..n {
                    let spk = s[p * n + k];
                    let sqk = s[q * n + k];
                    s[p * n + k] = c * spk - sn * sqk;
                    s[q * n + k] = sn * spk + c * sqk;
                }
                s[p * n + q] = 0.0;
                s[q * n + p] = 0.0;
                for k in 0..n {
                    let vkp = v[k * n + p];
                    let vkq = v[k * n + q];
                    v[k * n + p] = c * vkp - sn * vkq;
                    v[k * n + q] = sn * vkp + c * vkq;
                }
            }
        }
        converged = !rotated;
    }
    if !converged {
        return None;
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| s[x * n + x].total_cmp(&s[y * n + y]));
    let w: Vec<f64> = order.iter().map(|&i| s[i * n + i]).collect();
    let mut vecs = vec![0.0; n * n];
    for (new, &old) in order.iter().enumerate() {
        for k in 0..n {
            vecs[k * n + new] = v[k * n + old];
        }
    }
    Some((w, vecs))
}

/// Completes the `c` orthonormal columns already in `u` (`rows×cols` row-major, columns
/// `0..c` filled, the others ignored) to `cols` orthonormal columns by Gram–Schmidt (twice) over
/// the standard basis vectors.
fn complete_basis(u: &mut [f64], rows: usize, cols: usize, c: usize) {
    let mut filled = c;
    let mut e = 0;
    while filled < cols && e < rows {
        let mut x = vec![0.0; rows];
        x[e] = 1.0;
        e += 1;
        for _ in 0..2 {
            for j in 0..filled {
                let d: f64 = (0..rows).map(|i| u[i * cols + j] * x[i]).sum();
                for (i, xi) in x.iter_mut().enumerate() {
                    *xi -= d * u[i * cols + j];
                }
            }
        }
        let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm > 1e-8 {
            for (i, xi) in x.iter().enumerate() {
                u[i * cols + filled] = xi / norm;
            }
            filled += 1;
        }
    }
}

/// The SVD of the `m×n` row-major `a` by one-sided Jacobi (Hestenes) rotations: returns
/// `(U, S, Vᵀ)` with S descending (length `k = min(m, n)`), U `m×k` (or `m×m` when `full`) and
/// Vᵀ `k×n` (or `n×n` when `full`), both with orthonormal columns / rows. Singular vectors are
/// unique only up to sign (and within repeated values); those of zero singular values are
/// completed to an orthonormal basis. Returns `None` when the sweeps do not converge (NaN or
/// infinite input).
pub fn svd(a: &[f64], m: usize, n: usize, full: bool) -> Option<(Vec<f64>, Vec<f64>, Vec<f64>)> {
    if a.iter().any(|v| !v.is_finite()) {
        return None;
    }
    if m == 0 || n == 0 {
        // No singular values; the full bases are identities, the reduced ones empty.
        let eye = |d: usize| {
            let mut e = vec![0.0; d * d];
            for i in 0..d {
                e[i * d + i] = 1.0;
            }
            e
        };
        return Some(if full {
            (eye(m), Vec::new(), eye(n))
        } else {
            (Vec::new(), Vec::new(), Vec::new())
        });
    }
    if m < n {
        // Aᵀ = V S Uᵀ: decompose the transpose and swap the factors.
        let mut at = vec![0.0; n * m];
        for i in 0..m {
            for j in 0..n {
                at[j * m + i] = a[i * n + j];
            }
        }
        let (u2, s, vt2) = svd(&at, n, m, full)?;
        // A = (Vt2)ᵀ S (U2)ᵀ: U = Vt2ᵀ (m×k or m×m), Vᵀ = U2ᵀ.
        let (ur, uc) = (vt2.len() / m, m); // vt2 is ur×m
        let mut u = vec![0.0; m * ur];
        for i in 0..ur {
            for j in 0..uc {
                u[j * ur + i] = vt2[i * m + j];
            }
        }
        let u2c = u2.len() / n; // u2 is n×u2c
        let mut vt = vec![0.0; u2c * n];
        for i in 0..n {
            for j in 0..u2c {
                vt[j * n + i] = u2[i * u2c + j];
            }
        }
        return Some((u, s, vt));
    }
    // m ≥ n: orthogonalise the columns of W = A, accumulating V.
    let k = n;
    let mut w = a.to_vec();
    let mut v = vec![0.0; n * n];
    for i in 0..n {
        v[i * n + i] = 1.0;
    }
    let mut converged = n < 2;
    for _ in 0..MAX_SWEEPS {
        if converged {
            break;
        }
        let mut rotated = false;
        for p in 0..n {
            for q in p + 1..n {
                let (mut alpha, mut beta, mut gamma) = (0.0, 0.0, 0.0);
                for i in 0..m {
                    let x = w[i * n + p];
                    let y = w[i * n + q];
                    alpha += x * x;
                    beta += y * y;
                    gamma += x * y;
                }
                if gamma == 0.0 || gamma.abs() <= f64::EPSILON * (alpha * beta).sqrt() {
                    continue;
                }
                rotated = true;
                let zeta = (beta - alpha) / (2.0 * gamma);
                let t = zeta.signum() / (zeta.abs() + (1.0 + zeta * zeta).sqrt());
                let t = if zeta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (1.0 + t * t).sqrt();
                let s = c * t;
                for i in 0..m {
                    let x = w[i * n + p];
                    let y = w[i * n + q];
                    w[i * n + p] = c * x - s * y;
                    w[i * n + q] = s * x + c * y;
                }
                for i in 0..n {
                    let x = v[i * n + p];
                    let y = v[i * n + q];
                    v[i * n + p] = c * x - s * y;
                    v[i * n + q] = s * x + c * y;
                }
            }
        }
        converged = !rotated;
    }
    if !converged {
        return None;
    }
    let norms: Vec<f64> = (0..n)
        .map(|j| {
            (0..m)
                .map(|i| w[i * n + j] * w[i * n + j])
                .sum::<f64>()
                .sqrt()
        })
        .collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| norms[y].total_cmp(&norms[x]));
    let s: Vec<f64> = order.iter().map(|&j| norms[j]).collect();
    let smax = s.first().copied().unwrap_or(0.0);
    let ucols = if full { m } else { k };
    let mut u = vec![0.0; m * ucols];
    let mut good = 0;
    for (new, &old) in order.iter().enumerate() {
        let sv = norms[old];
        if sv > smax * f64::EPSILON * (m as f64) && sv > 0.0 {
            for i in 0..m {
                u[i * ucols + new] = w[i * n + old] / sv;
            }
            good = new + 1;
        }
    }
    // Columns of U for (numerically) zero singular values, and the full basis's extra columns.
    complete_basis(&mut u, m, ucols, good);
    let mut vt = vec![0.0; n * n];
    for (new, &old) in order.iter().enumerate() {
        for i in 0..n {
            vt[new * n + i] = v[i * n + old];
        }
    }
    Some((u, s, vt))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matmul(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
        let mut c = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                c[i * n + j] = (0..k).map(|l| a[i * k + l] * b[l * n + j]).sum();
            }
        }
        c
    }

    fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
    }

    const A: [f64; 9] = [4.0, -2.0, 1.0, 3.0, 6.0, -4.0, 2.0, 1.0, 8.0];

    #[test]
    fn lu_solves_and_counts_the_determinant() {
        let mut lu = A.to_vec();
        let (piv, info) = lu_factor(&mut lu, 3, 3);
        assert_eq!(info, 0);
        let mut b = vec![1.0, 2.0, 3.0];
        lu_solve(&lu, &piv, 3, &mut b, 1);
        assert!(close(&matmul(&A, &b, 3, 3, 1), &[1.0, 2.0, 3.0], 1e-12));
        let (sign, log) = lu_slogdet(&lu, &piv, 3);
        // det by cofactors: 4(48+4) + 2(24+8) + 1(3-12) = 208 + 64 - 9 = 263.
        assert_eq!(sign, 1.0);
        assert!((log.exp() - 263.0).abs() < 1e-9);
    }

    #[test]
    fn lu_reports_the_first_zero_pivot() {
        let mut a = vec![1.0, 2.0, 2.0, 4.0];
        let (_, info) = lu_factor(&mut a, 2, 2);
        assert_eq!(info, 2);
    }

    #[test]
    fn cholesky_reconstructs_and_reports() {
        let spd = [4.0, 2.0, 2.0, 3.0];
        let mut l = spd.to_vec();
        assert_eq!(cholesky(&mut l, 2), 0);
        let lt = [l[0], l[2], l[1], l[3]];
        assert!(close(&matmul(&l, &lt, 2, 2, 2), &spd, 1e-12));
        let mut bad = vec![1.0, 2.0, 2.0, 4.0];
        assert_eq!(cholesky(&mut bad, 2), 2);
    }

    #[test]
    fn qr_reconstructs() {
        let (q, r) = qr(&A, 3, 3, false);
        assert!(close(&matmul(&q, &r, 3, 3, 3), &A, 1e-12));
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let (q, r) = qr(&a, 3, 2, true);
        assert_eq!((q.len(), r.len()), (9, 6));
        assert!(close(&matmul(&q, &r, 3, 3, 2), &a, 1e-12));
        let (q, r) = qr(&a, 2, 3, false);
        assert!(close(&matmul(&q, &r, 2, 2, 3), &a, 1e-12));
    }

    #[test]
    fn eigh_of_a_known_matrix() {
        // [[2, 1], [1, 2]] has eigenvalues 1 and 3.
        let (w, v) = eigh(&[2.0, 1.0, 1.0, 2.0], 2, false).unwrap();
        assert!(close(&w, &[1.0, 3.0], 1e-14));
        let s = std::f64::consts::FRAC_1_SQRT_2;
        assert!((v[0].abs() - s).abs() < 1e-14 && (v[1].abs() - s).abs() < 1e-14);
    }

    #[test]
    fn svd_reconstructs_wide_and_tall() {
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        for (m, n) in [(3, 2), (2, 3)] {
            let (u, s, vt) = svd(&a, m, n, false).unwrap();
            let k = m.min(n);
            let mut us = u.clone();
            for i in 0..m {
                for j in 0..k {
                    us[i * k + j] *= s[j];
                }
            }
            assert!(close(&matmul(&us, &vt, m, k, n), &a, 1e-12), "{m}x{n}");
            assert!(s[0] >= s[1]);
        }
        let (u, _, vt) = svd(&a, 3, 2, true).unwrap();
        assert_eq!((u.len(), vt.len()), (9, 4));
        let ut: Vec<f64> = (0..9).map(|i| u[(i % 3) * 3 + i / 3]).collect();
        let id = matmul(&ut, &u, 3, 3, 3);
        assert!(close(
            &id,
            &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
            1e-12
        ));
    }
}
