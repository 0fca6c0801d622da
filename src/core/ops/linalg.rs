//! src/core/ops/linalg.rs: matrix products — `mm`, `dot`, `matmul` (with torch's 1-D, 2-D,
//! folded and broadcast-batched rules) and the cache-blocked GEMM kernels behind them
//! (PyTorch: `LinearAlgebra.cpp`, `Blas.cpp`, `CPUBlas.cpp`).

use super::view::{expand, reshape, transpose, unsqueeze};
use crate::core::dtype::{DType, Element};
use crate::core::error::{Error, Result};
use crate::core::interrupt::{self, Ticker};
use crate::core::iter::strided_for_each;
use crate::core::ops::mul;
use crate::core::parallel::{self, SendPtr};
use crate::core::tensor::{broadcast_shapes, contiguous_strides, Tensor};
use std::ops::{Add, Mul};

// ----- error texts ---------------------------------------------------------------------------

fn check_same_dtype_mm(a: &Tensor, b: &Tensor) -> Result<()> {
    if a.dtype() != b.dtype() {
        return Err(Error::runtime(format!(
            "expected m1 and m2 to have the same dtype, but got: {} != {}",
            a.dtype().type_meta_name(),
            b.dtype().type_meta_name()
        )));
    }
    Ok(())
}

fn not_implemented_for_bool(op: &str) -> Error {
    Error::runtime(format!("\"{op}\" not implemented for 'Bool'"))
}

// ----- public ops ----------------------------------------------------------------------------

/// `mm(input, mat2)`: the matrix product of an `n×k` and a `k×p` matrix, an `n×p` tensor of the
/// common dtype (float32/float64 accumulate in their own type; integers wrap on overflow).
/// Errors (RuntimeError): "self must be a matrix" / "mat2 must be a matrix" for non-2-D inputs,
/// "expected m1 and m2 to have the same dtype, but got: float != long int", "mat1 and mat2
/// shapes cannot be multiplied (2x3 and 2x3)", and `"addmm_impl_cpu_" not implemented for
/// 'Bool'` (torch: `torch.mm`).
pub fn mm(input: &Tensor, mat2: &Tensor) -> Result<Tensor> {
    if input.dim() != 2 {
        return Err(Error::runtime("self must be a matrix"));
    }
    if mat2.dim() != 2 {
        return Err(Error::runtime("mat2 must be a matrix"));
    }
    check_same_dtype_mm(input, mat2)?;
    let (a, b) = (input.sizes(), mat2.sizes());
    if a[1] != b[0] {
        return Err(Error::runtime(format!(
            "mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})",
            a[0], a[1], b[0], b[1]
        )));
    }
    let out = Tensor::zeros(&[a[0], b[1]], input.dtype())?;
    batched_matmul_into(&out, input, mat2, "addmm_impl_cpu_")?;
    Ok(out)
}

/// `mv`: an `n×k` matrix times a `k` vector, an `n` vector (torch's `addmv` checks and texts:
/// "size mismatch, got input (2), mat (2x3), vec (4)").
fn mv(mat: &Tensor, vec: &Tensor) -> Result<Tensor> {
    let (n, k) = (mat.sizes()[0], mat.sizes()[1]);
    if k != vec.sizes()[0] {
        return Err(Error::runtime(format!(
            "size mismatch, got input ({n}), mat ({n}x{k}), vec ({})",
            vec.sizes()[0]
        )));
    }
    check_same_dtype_mm(mat, vec)?;
    let out = Tensor::zeros(&[n], mat.dtype())?;
    let out2 = unsqueeze(&out, 1)?;
    batched_matmul_into(&out2, mat, &unsqueeze(vec, 1)?, "addmv_impl_cpu")?;
    Ok(out)
}

/// `dot(input, other)`: the inner product of two 1-D tensors of one dtype and length, a 0-dim
/// tensor of that dtype. Errors (RuntimeError): "1D tensors expected, but got 2D and 2D
/// tensors", "dot : expected both vectors to have same dtype, but found Float and Long",
/// "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of
/// elements, but got 3 and 4 elements respectively", `"dot" not implemented for 'Bool'`
/// (torch: `torch.dot`).
pub fn dot(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    if input.dim() != 1 || other.dim() != 1 {
        return Err(Error::runtime(format!(
            "1D tensors expected, but got {}D and {}D tensors",
            input.dim(),
            other.dim()
        )));
    }
    if input.dtype() != other.dtype() {
        return Err(Error::runtime(format!(
            "dot : expected both vectors to have same dtype, but found {} and {}",
            input.dtype().scalar_type_name(),
            other.dtype().scalar_type_name()
        )));
    }
    let (n1, n2) = (input.numel(), other.numel());
    if n1 != n2 {
        return Err(Error::runtime(format!(
            "inconsistent tensor size, expected tensor [{n1}] and src [{n2}] to have the same number of elements, but got {n1} and {n2} elements respectively"
        )));
    }
    if input.dtype() == DType::Bool {
        return Err(not_implemented_for_bool("dot"));
    }
    let out = Tensor::zeros(&[], input.dtype())?;
    // A 1×n by n×1 product: the kernels' n == 1 path is the dot product.
    let a = unsqueeze(input, 0)?;
    let b = unsqueeze(other, 1)?;
    let o = out.as_strided(vec![1, 1], vec![1, 1], 0);
    batched_matmul_into(&o, &a, &b, "dot")?;
    Ok(out)
}

/// torch's `should_fold`: whether `matmul` folds the batch dims of the larger operand into the
/// rows of one `mm`/`mv` call (no copy needed), rather than running a batched product. Only the
/// error texts depend on it; the values are the same either way.
fn should_fold(tensor1: &Tensor, tensor2: &Tensor) -> Result<bool> {
    let tensor1_larger = tensor1.dim() >= tensor2.dim();
    let t1 = if tensor1_larger {
        tensor1.clone()
    } else {
        transpose(tensor2, -2, -1)?
    };
    let dim_t1 = t1.dim();
    let dim_t2 = if tensor1_larger {
        tensor2.dim()
    } else {
        tensor1.dim()
    };
    if !(dim_t1 >= 3 && dim_t2 <= 2) {
        return Ok(false);
    }
    if tensor1.dim() == 2 {
        return Ok(false);
    }
    if t1.numel() == 0 {
        return Ok(true);
    }
    let (shape, strides) = (t1.sizes(), t1.strides());
    for i in 0..dim_t1 - 2 {
        if strides[i] != strides[i + 1].wrapping_mul(shape[i + 1] as isize) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// `matmul(input, other)`: torch's matrix product rules (torch: `torch.matmul`):
///
/// * 1-D · 1-D → `dot` (0-dim); 2-D · 2-D → `mm`; 2-D · 1-D → matrix-vector (`[n]`);
///   1-D · 2-D → the vector as a `1×k` row, then that dim removed (`[p]`).
/// * otherwise (a side ≥ 3-D): a batched product; the batch dims (all but the last two; none
///   for a 1-D side) broadcast, a 1-D left operand gets a dim prepended and a 1-D right
///   operand a dim appended, both removed from the result. `[2,1,3,4] @ [5,4,2]` → `[2,5,3,2]`.
///
/// Both operands must share a dtype (bool is not supported). Errors (RuntimeError): "both
/// arguments to matmul need to be at least 1D, but they are 0D and 2D", the `dot`/`mm` texts,
/// "size mismatch, got input (2), mat (2x3), vec (4)" for matrix-vector, and for the batched
/// case "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4]."
/// (or the `mm`/`mv` text when torch folds the batch into one matrix product).
pub fn matmul(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    let (d1, d2) = (input.dim(), other.dim());
    if d1 == 0 || d2 == 0 {
        return Err(Error::runtime(format!(
            "both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D"
        )));
    }
    match (d1, d2) {
        (1, 1) => return dot(input, other),
        (2, 1) => return mv(input, other),
        (1, 2) => {
            // [1, p] → [p] in place of the fresh product (torch's `squeeze_(0)`): not a view.
            let r = mm(&unsqueeze(input, 0)?, other)?;
            return Ok(r.restride_owned(
                vec![r.sizes()[1]],
                vec![r.strides()[1]],
                r.storage_offset(),
            ));
        }
        (2, 2) => return mm(input, other),
        _ => {}
    }
    if should_fold(input, other)? {
        return matmul_folded(input, other);
    }
    matmul_batched(input, other)
}

/// The folded path of `matmul`: the larger operand (≥ 3-D) viewed as one matrix of all its
/// leading dims' rows, times the other (1-D or 2-D) operand.
fn matmul_folded(tensor1: &Tensor, tensor2: &Tensor) -> Result<Tensor> {
    let (d1, d2) = (tensor1.dim(), tensor2.dim());
    let transposed = d2 > d1;
    let t1 = if transposed {
        transpose(tensor2, -2, -1)?
    } else {
        tensor1.clone()
    };
    let t2 = if !transposed {
        tensor2.clone()
    } else if d1 == 2 {
        transpose(tensor1, 0, 1)?
    } else {
        tensor1.clone()
    };
    let sizes1 = t1.sizes();
    let last = sizes1[sizes1.len() - 1];
    let mut output_shape: Vec<usize> = sizes1[..sizes1.len() - 1].to_vec();
    let folded: usize = output_shape.iter().product();
    let t2_is_matrix = t2.dim() == 2;
    if t2_is_matrix {
        output_shape.push(t2.sizes()[1]);
    }
    let t1_folded = reshape(&t1, &[folded as i64, last as i64])?;
    let output = if t2_is_matrix {
        mm(&t1_folded, &t2)?
    } else {
        mv(&t1_folded, &t2)?
    };
    let strides = contiguous_strides(&output_shape);
    let output = output.restride_owned(output_shape, strides, 0);
    if transposed && t2_is_matrix {
        return transpose(&output, -2, -1)?.contiguous();
    }
    Ok(output)
}

/// The broadcast-batched path of `matmul` (torch's `bmm` over the expanded batch dims). The
/// broadcast operands are iterated in place (stride 0 along broadcast dims), never copied.
fn matmul_batched(tensor1: &Tensor, tensor2: &Tensor) -> Result<Tensor> {
    let (d1, d2) = (tensor1.dim(), tensor2.dim());
    let (s1, s2) = (tensor1.sizes(), tensor2.sizes());
    let n = if d1 > 1 { s1[d1 - 2] } else { 1 };
    let m1 = s1[d1 - 1];
    let m2 = if d2 > 1 { s2[d2 - 2] } else { s2[0] };
    let p = if d2 > 1 { s2[d2 - 1] } else { 1 };
    let batch1 = &s1[..d1.saturating_sub(2)];
    let batch2 = &s2[..d2.saturating_sub(2)];
    let batch = broadcast_shapes(batch1, batch2)?;
    let batch_product: usize = crate::core::tensor::checked_numel(&batch)?;
    if m1 != m2 {
        return Err(Error::runtime(format!(
            "Expected size for first two dimensions of batch2 tensor to be: [{batch_product}, {m1}] but got: [{batch_product}, {m2}]."
        )));
    }
    check_same_dtype_mm(tensor1, tensor2)?;
    let to_i64 = |v: &[usize]| v.iter().map(|&x| x as i64).collect::<Vec<i64>>();
    let mut size1 = batch.clone();
    size1.extend([n, m1]);
    let mut size2 = batch.clone();
    size2.extend([m2, p]);
    let a = if d1 == 1 {
        unsqueeze(tensor1, 0)?
    } else {
        tensor1.clone()
    };
    let b = if d2 == 1 {
        unsqueeze(tensor2, 1)?
    } else {
        tensor2.clone()
    };
    let a = expand(&a, &to_i64(&size1))?;
    let b = expand(&b, &to_i64(&size2))?;

    let mut output_shape = batch.clone();
    if d1 > 1 {
        output_shape.push(n);
    }
    if d2 > 1 {
        output_shape.push(p);
    }
    let out = Tensor::zeros(&output_shape, tensor1.dtype())?;
    let mut out_sizes = batch;
    out_sizes.extend([n, p]);
    let out_strides = contiguous_strides(&out_sizes);
    let out_view = out.restride_owned(out_sizes, out_strides, 0);
    batched_matmul_into(&out_view, &a, &b, "bmm")?;
    Ok(out)
}

// ----- batched driver ------------------------------------------------------------------------

/// `out[..., :, :] = a[..., :, :] @ b[..., :, :]` for `a: [*batch, n, k]`, `b: [*batch, k, p]`
/// (any strides, 0 along broadcast dims) and `out: [*batch, n, p]`, a fresh zero-filled
/// contiguous tensor that nothing else aliases. Shapes and dtypes are checked by the callers.
/// Bool raises torch's "not implemented" error for `op`, except for empty products (torch
/// returns before dispatching).
fn batched_matmul_into(out: &Tensor, a: &Tensor, b: &Tensor, op: &str) -> Result<()> {
    let nd = a.dim();
    debug_assert!(nd >= 2 && b.dim() == nd && out.dim() == nd && out.is_contiguous());
    let (n, k, p) = (a.sizes()[nd - 2], a.sizes()[nd - 1], b.sizes()[nd - 1]);
    if out.numel() == 0 || k == 0 {
        return Ok(());
    }
    match a.dtype() {
        DType::Bool => Err(not_implemented_for_bool(op)),
        DType::Float32 => {
            run_batches::<f32>(out, a, b, n, k, p, gemm_float::<f32>);
            Ok(())
        }
        DType::Float64 => {
            run_batches::<f64>(out, a, b, n, k, p, gemm_float::<f64>);
            Ok(())
        }
        DType::UInt8 => {
            run_batches::<u8>(out, a, b, n, k, p, gemm_int::<u8>);
            Ok(())
        }
        DType::Int8 => {
            run_batches::<i8>(out, a, b, n, k, p, gemm_int::<i8>);
            Ok(())
        }
        DType::Int16 => {
            run_batches::<i16>(out, a, b, n, k, p, gemm_int::<i16>);
            Ok(())
        }
        DType::Int32 => {
            run_batches::<i32>(out, a, b, n, k, p, gemm_int::<i32>);
            Ok(())
        }
        DType::Int64 => {
            run_batches::<i64>(out, a, b, n, k, p, gemm_int::<i64>);
            Ok(())
        }
    }
}

/// A GEMM kernel: `c (m×n, row-major, contiguous) += a (m×k) · b (k×n)`.
type Kernel<T> = unsafe fn(usize, usize, usize, MatRef<T>, MatRef<T>, &mut [T]);

/// Run `kernel` once per batch index (see `batched_matmul_into`).
#[allow(clippy::too_many_arguments)]
fn run_batches<T: Element>(
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    n: usize,
    k: usize,
    p: usize,
    kernel: Kernel<T>,
) {
    let nd = a.dim();
    let batch = &a.sizes()[..nd - 2];
    let (sa, sb) = (a.strides(), b.strides());
    let (a_ptr, b_ptr) = (a.data_ptr::<T>() as *const T, b.data_ptr::<T>() as *const T);
    let total = out.numel();
    // SAFETY: `out` is a fresh contiguous tensor of `total` elements that no other tensor or
    // reference aliases (the callers allocate it), so a unique mutable slice over it is sound.
    let c_all = unsafe { std::slice::from_raw_parts_mut(out.data_ptr::<T>(), total) };
    let mut chunks = c_all.chunks_exact_mut(n * p);
    strided_for_each(batch, [&sa[..nd - 2], &sb[..nd - 2]], |[oa, ob]| {
        let c = chunks.next().expect("one output matrix per batch index");
        let am = MatRef {
            ptr: a_ptr.wrapping_offset(oa),
            rs: sa[nd - 2],
            cs: sa[nd - 1],
        };
        let bm = MatRef {
            ptr: b_ptr.wrapping_offset(ob),
            rs: sb[nd - 2],
            cs: sb[nd - 1],
        };
        // SAFETY: `oa`/`ob` are offsets of batch matrices inside `a`/`b` (from their own
        // geometry), so `am` addresses a valid n×k matrix and `bm` a valid k×p matrix of `T`;
        // `c` holds exactly n·p elements.
        unsafe { kernel(n, p, k, am, bm, c) };
    });
}

// ----- kernels -------------------------------------------------------------------------------

/// A strided matrix operand: its first element and row/column strides, in elements.
#[derive(Clone, Copy)]
struct MatRef<T> {
    ptr: *const T,
    rs: isize,
    cs: isize,
}

impl<T: Copy> MatRef<T> {
    /// The element at row `i`, column `j`.
    ///
    /// # Safety
    /// `(i, j)` lies inside the matrix this `MatRef` was made for.
    #[inline(always)]
    unsafe fn at(&self, i: usize, j: usize) -> T {
        // SAFETY: in bounds by the caller's contract.
        unsafe { *self.ptr.offset(i as isize * self.rs + j as isize * self.cs) }
    }

    /// Row `i`, columns `j0..j0 + len`, as a slice when the columns are contiguous.
    ///
    /// # Safety
    /// The row range lies inside the matrix this `MatRef` was made for.
    #[inline(always)]
    unsafe fn row_slice(&self, i: usize, j0: usize, len: usize) -> Option<&[T]> {
        if self.cs != 1 {
            return None;
        }
        // SAFETY: contiguous columns; the range is inside the matrix by the caller's contract,
        // and the data is not written while the kernel runs.
        Some(unsafe {
            std::slice::from_raw_parts(self.ptr.offset(i as isize * self.rs + j0 as isize), len)
        })
    }
}

/// The floating element types of the GEMM kernel (f32, f64).
trait FloatElem: Element + Add<Output = Self> + Mul<Output = Self> {
    const ZERO: Self;
    /// `a * b + c`, fused when `FMA` (only instantiated where the CPU has FMA).
    fn madd<const FMA: bool>(a: Self, b: Self, c: Self) -> Self;
    /// The blocked kernel compiled for AVX2 + FMA.
    ///
    /// # Safety
    /// The CPU supports AVX2 and FMA; the operands satisfy `gemm_float`'s contract.
    #[cfg(target_arch = "x86_64")]
    unsafe fn gemm_avx2(
        m: usize,
        n: usize,
        k: usize,
        a: MatRef<Self>,
        b: MatRef<Self>,
        c: &mut [Self],
    );
}

/// `FloatElem` for one float type, with its AVX2 + FMA instance of the blocked kernel
/// (`$mr` x `$nr` micro-tile). `#[target_feature]` needs a named function per instantiation,
/// so each type gets its own wrapper, `$avx2`.
macro_rules! impl_float_elem {
    ($t:ty, $avx2:ident, $mr:literal, $nr:literal) => {
        impl FloatElem for $t {
            const ZERO: Self = 0.0;
            #[inline(always)]
            fn madd<const FMA: bool>(a: Self, b: Self, c: Self) -> Self {
                if FMA {
                    a.mul_add(b, c)
                } else {
                    a * b + c
                }
            }
            #[cfg(target_arch = "x86_64")]
            unsafe fn gemm_avx2(
                m: usize,
                n: usize,
                k: usize,
                a: MatRef<$t>,
                b: MatRef<$t>,
                c: &mut [$t],
            ) {
                // SAFETY: forwarded contract (CPU features and operand bounds).
                unsafe { $avx2(m, n, k, a, b, c) }
            }
        }

        /// # Safety
        /// The CPU supports AVX2 and FMA; the operands satisfy `gemm_float`'s contract.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,fma")]
        unsafe fn $avx2(m: usize, n: usize, k: usize, a: MatRef<$t>, b: MatRef<$t>, c: &mut [$t]) {
            // SAFETY: forwarded operand contract.
            unsafe { gemm_blocked::<$t, $mr, $nr, true>(m, n, k, a, b, c) }
        }
    };
}

impl_float_elem!(f32, gemm_f32_avx2, 6, 16);

impl_float_elem!(f64, gemm_f64_avx2, 6, 8);

/// Rows of `a` per packed block (a multiple of every MR used).
const MC: usize = 96;

/// Depth of a packed block.
const KC: usize = 256;

/// Columns of `b` per packed block.
const NC: usize = 512;

/// The floating-point GEMM: `c (m×n, row-major) += a (m×k) · b (k×n)`, accumulating in `T`
/// (f32 in f32, as torch's BLAS does). Matrix-vector shapes (`n == 1`, `m == 1`) take direct
/// loops; the rest goes through the packed, cache-blocked kernel (AVX2+FMA when available).
///
/// # Safety
/// `a` addresses a valid m×k matrix and `b` a valid k×n matrix of `T`, neither overlapping `c`;
/// `c.len() == m * n`.
unsafe fn gemm_float<T: FloatElem>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: &mut [T],
) {
    debug_assert_eq!(c.len(), m * n);
    if m == 0 || n == 0 || k == 0 {
        return;
    }
    if n == 1 {
        // Matrix-vector: one dot product per row; 8 independent partial sums when both the
        // row and the vector are contiguous, so the loop vectorises.
        let mut ticker = Ticker::new();
        for (i, ci) in c.iter_mut().enumerate() {
            ticker.tick(k);
            let mut acc = T::ZERO;
            if a.cs == 1 && b.rs == 1 {
                // SAFETY: row i of `a` and column 0 of `b` have k elements (contract).
                let (x, y) = unsafe {
                    (
                        std::slice::from_raw_parts(a.ptr.offset(i as isize * a.rs), k),
                        std::slice::from_raw_parts(b.ptr, k),
                    )
                };
                let mut lanes = [T::ZERO; 8];
                let (xc, yc) = (x.chunks_exact(8), y.chunks_exact(8));
                let (xr, yr) = (xc.remainder(), yc.remainder());
                for (xs, ys) in xc.zip(yc) {
                    for l in 0..8 {
                        lanes[l] = T::madd::<false>(xs[l], ys[l], lanes[l]);
                    }
                }
                for &l in &lanes {
                    acc = acc + l;
                }
                for (&xv, &yv) in xr.iter().zip(yr) {
                    acc = T::madd::<false>(xv, yv, acc);
                }
            } else {
                for p in 0..k {
                    // SAFETY: (i, p) and (p, 0) are inside `a` and `b` (contract).
                    acc = unsafe { T::madd::<false>(a.at(i, p), b.at(p, 0), acc) };
                }
            }
            *ci = *ci + acc;
        }
        return;
    }
    if m == 1 {
        // Vector-matrix: c += a[0, p] * b[p, :], row by row of `b`.
        let mut ticker = Ticker::new();
        for p in 0..k {
            ticker.tick(n);
            // SAFETY: (0, p) is inside `a`; row p of `b` has n elements (contract).
            let (av, row) = unsafe { (a.at(0, p), b.row_slice(p, 0, n)) };
            match row {
                Some(row) => {
                    for (cv, &bv) in c.iter_mut().zip(row) {
                        *cv = T::madd::<false>(av, bv, *cv);
                    }
                }
                None => {
                    for (j, cv) in c.iter_mut().enumerate() {
                        // SAFETY: (p, j) is inside `b` (contract).
                        *cv = T::madd::<false>(av, unsafe { b.at(p, j) }, *cv);
                    }
                }
            }
        }
        return;
    }
    let rows = gemm_par_rows(m, n, k);
    if rows < m {
        // Row blocks of `a` and `c` on several threads; each element of `c` is computed by the
        // same sequence of operations as in one call, so the result does not depend on it.
        let (ap, cp) = (SendPtr(a.ptr as *mut T), SendPtr(c.as_mut_ptr()));
        let (ars, acs) = (a.rs, a.cs);
        let (bp, brs, bcs) = (SendPtr(b.ptr as *mut T), b.rs, b.cs);
        parallel::parallel_for(m, rows, |r0, r1| {
            let a_blk = MatRef {
                ptr: ap.get().wrapping_offset(r0 as isize * ars) as *const T,
                rs: ars,
                cs: acs,
            };
            let b_all = MatRef {
                ptr: bp.get() as *const T,
                rs: brs,
                cs: bcs,
            };
            // SAFETY: rows r0..r1 of `c` (row-major, n per row) are this chunk's alone
            // (chunks are disjoint) and lie inside `c`'s m·n elements.
            let c_blk =
                unsafe { std::slice::from_raw_parts_mut(cp.get().add(r0 * n), (r1 - r0) * n) };
            // SAFETY: `a_blk` addresses rows r0..r1 of the valid m×k matrix `a`, `b_all` is
            // `b`; the caller's contract covers the rest.
            unsafe { gemm_blocked_dispatch(r1 - r0, n, k, a_blk, b_all, c_blk) };
        });
        return;
    }
    // SAFETY: the caller's operand contract.
    unsafe { gemm_blocked_dispatch(m, n, k, a, b, c) }
}

/// Multiply-adds from which a GEMM is split across threads.
const PAR_GEMM_MIN_FLOPS: usize = 1 << 21;

/// Rows of `c` per parallel task for an m×n×k GEMM: `m` itself (one task, no threads) for small
/// products or one configured thread; else one task per thread, in whole micro-tiles (12 is a
/// multiple of every `MR`) so only the last task has a ragged edge.
fn gemm_par_rows(m: usize, n: usize, k: usize) -> usize {
    let threads = parallel::get_num_threads();
    if threads <= 1 || m.saturating_mul(n).saturating_mul(k) < PAR_GEMM_MIN_FLOPS || m < 24 {
        return m;
    }
    m.div_ceil(threads).next_multiple_of(12)
}

/// The blocked kernel for the CPU: AVX2 + FMA when detected, else the portable one.
///
/// # Safety
/// As `gemm_float`.
unsafe fn gemm_blocked_dispatch<T: FloatElem>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: &mut [T],
) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
        // SAFETY: AVX2 and FMA were just detected; the operand contract is the caller's.
        unsafe { T::gemm_avx2(m, n, k, a, b, c) };
        return;
    }
    // SAFETY: the caller's operand contract.
    unsafe { gemm_blocked::<T, 4, 8, false>(m, n, k, a, b, c) }
}

/// The packed, cache-blocked GEMM (BLIS loop order): for each `NC`-column block of `b` and
/// `KC`-deep slice, pack `b` into `NR`-wide panels; for each `MC`-row block of `a`, pack it into
/// `MR`-tall panels; then an `MR×NR` register-tile micro-kernel sweeps the panels and adds its
/// tile into `c`. Edges are zero-padded in the packs.
///
/// # Safety
/// As `gemm_float`.
#[inline(always)]
unsafe fn gemm_blocked<T: FloatElem, const MR: usize, const NR: usize, const FMA: bool>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: &mut [T],
) {
    let nc_max = NC.min(n.div_ceil(NR) * NR);
    let kc_max = KC.min(k);
    let mc_max = MC.min(m.div_ceil(MR) * MR);
    // Bounded by the block constants, not by the user's sizes.
    let mut bpack = vec![T::ZERO; kc_max * nc_max];
    let mut apack = vec![T::ZERO; kc_max * mc_max];
    for jc in (0..n).step_by(NC) {
        let nc = NC.min(n - jc);
        for pc in (0..k).step_by(KC) {
            let kc = KC.min(k - pc);
            // Pack b[pc..pc+kc, jc..jc+nc] as NR-wide panels, row p of a panel contiguous.
            for (panel, jr) in (0..nc).step_by(NR).enumerate() {
                let w = NR.min(nc - jr);
                let dst = &mut bpack[panel * kc * NR..(panel + 1) * kc * NR];
                for p in 0..kc {
                    let row = &mut dst[p * NR..(p + 1) * NR];
                    // SAFETY: rows pc..pc+kc and columns jc..jc+nc are inside `b` (contract).
                    match unsafe { b.row_slice(pc + p, jc + jr, w) } {
                        Some(src) => row[..w].copy_from_slice(src),
                        None => {
                            for (j, v) in row[..w].iter_mut().enumerate() {
                                // SAFETY: as above.
                                *v = unsafe { b.at(pc + p, jc + jr + j) };
                            }
                        }
                    }
                    row[w..].fill(T::ZERO);
                }
            }
            for ic in (0..m).step_by(MC) {
                // At most MC·KC·NC multiply-adds between two checkpoints (Note [Interrupting
                // kernels]).
                interrupt::checkpoint();
                let mc = MC.min(m - ic);
                // Pack a[ic..ic+mc, pc..pc+kc] as MR-tall panels, column p of a panel contiguous.
                for (panel, ir) in (0..mc).step_by(MR).enumerate() {
                    let h = MR.min(mc - ir);
                    let dst = &mut apack[panel * kc * MR..(panel + 1) * kc * MR];
                    for p in 0..kc {
                        let col = &mut dst[p * MR..(p + 1) * MR];
                        for (i, v) in col[..h].iter_mut().enumerate() {
                            // SAFETY: rows ic..ic+mc and columns pc..pc+kc are inside `a`.
                            *v = unsafe { a.at(ic + ir + i, pc + p) };
                        }
                        col[h..].fill(T::ZERO);
                    }
                }
                // Sweep the tiles.
                for (bpanel, jr) in (0..nc).step_by(NR).enumerate() {
                    let w = NR.min(nc - jr);
                    let bp = &bpack[bpanel * kc * NR..(bpanel + 1) * kc * NR];
                    for (apanel, ir) in (0..mc).step_by(MR).enumerate() {
                        let h = MR.min(mc - ir);
                        let ap = &apack[apanel * kc * MR..(apanel + 1) * kc * MR];
                        let tile = micro_kernel::<T, MR, NR, FMA>(ap, bp);
                        for (i, trow) in tile.iter().enumerate().take(h) {
                            let start = (ic + ir + i) * n + jc + jr;
                            for (cv, &tv) in c[start..start + w].iter_mut().zip(&trow[..w]) {
                                *cv = *cv + tv;
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The `MR×NR` register tile of `ap (kc×MR packed) · bp (kc×NR packed)`.
#[inline(always)]
fn micro_kernel<T: FloatElem, const MR: usize, const NR: usize, const FMA: bool>(
    ap: &[T],
    bp: &[T],
) -> [[T; NR]; MR] {
    let mut acc = [[T::ZERO; NR]; MR];
    for (av, bv) in ap.chunks_exact(MR).zip(bp.chunks_exact(NR)) {
        for i in 0..MR {
            let ai = av[i];
            for j in 0..NR {
                acc[i][j] = T::madd::<FMA>(ai, bv[j], acc[i][j]);
            }
        }
    }
    acc
}

/// The integer element types of the GEMM kernel, with wrapping arithmetic (C++'s behaviour on
/// overflow in practice).
trait IntElem: Element {
    fn wrapping_mul_add(a: Self, b: Self, c: Self) -> Self;
}

macro_rules! impl_int_elem {
    ($($t:ty),*) => {$(
        impl IntElem for $t {
            #[inline(always)]
            fn wrapping_mul_add(a: Self, b: Self, c: Self) -> Self {
                c.wrapping_add(a.wrapping_mul(b))
            }
        }
    )*};
}

impl_int_elem!(u8, i8, i16, i32, i64);

/// The integer GEMM: `c (m×n, row-major) += a (m×k) · b (k×n)` with wrapping arithmetic, in
/// i-k-j order so the inner loop runs along contiguous rows of `b` and `c`.
///
/// # Safety
/// As `gemm_float`.
unsafe fn gemm_int<T: IntElem>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: &mut [T],
) {
    debug_assert_eq!(c.len(), m * n);
    if n == 0 {
        return;
    }
    let mut ticker = Ticker::new();
    for (i, crow) in c.chunks_exact_mut(n).enumerate().take(m) {
        ticker.tick(n * k);
        for p in 0..k {
            // SAFETY: (i, p) is inside `a`; row p of `b` has n elements (contract).
            let (av, row) = unsafe { (a.at(i, p), b.row_slice(p, 0, n)) };
            match row {
                Some(row) => {
                    for (cv, &bv) in crow.iter_mut().zip(row) {
                        *cv = T::wrapping_mul_add(av, bv, *cv);
                    }
                }
                None => {
                    for (j, cv) in crow.iter_mut().enumerate() {
                        // SAFETY: (p, j) is inside `b` (contract).
                        *cv = T::wrapping_mul_add(av, unsafe { b.at(p, j) }, *cv);
                    }
                }
            }
        }
    }
}

/// `outer(input, vec2)`: the outer product of two 1-D tensors, `[n, m]`, with type promotion.
/// RuntimeError "outer: Expected 1-D argument self, but got 2-D" (or `vec2`) (torch:
/// `torch.outer`).
pub fn outer(input: &Tensor, vec2: &Tensor) -> Result<Tensor> {
    for (t, name) in [(input, "self"), (vec2, "vec2")] {
        if t.dim() != 1 {
            return Err(Error::runtime(format!(
                "outer: Expected 1-D argument {name}, but got {}-D",
                t.dim()
            )));
        }
    }
    mul(&unsqueeze(input, 1)?, vec2)
}

#[cfg(test)]
#[path = "tests/linalg.rs"]
mod tests;
