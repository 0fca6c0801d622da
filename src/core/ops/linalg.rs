//! src/core/ops/linalg.rs: matrix products — `mm`, `dot`, `matmul` (with torch's 1-D, 2-D,
//! folded and broadcast-batched rules), `outer` — on the GEMM layer of `gemm.rs` (PyTorch:
//! `native/LinearAlgebra.cpp`, `native/Blas.cpp`).

use super::gemm::batched_matmul_into;
use super::plan::{Kernel, Plan};
use super::view::{expand, reshape, transpose, unsqueeze};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::ops::mul_plan;
use crate::core::scalar::Scalar;
use crate::core::tensor::{broadcast_shapes, contiguous_strides, Tensor};
use std::borrow::Cow;

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

pub(super) fn not_implemented_for_bool(op: &str) -> Error {
    Error::not_implemented(format!("\"{op}\" not implemented for 'Bool'"))
}

// ----- public ops ----------------------------------------------------------------------------

/// `mm(input, mat2)`: the matrix product of an `n×k` and a `k×p` matrix, an `n×p` tensor of the
/// common dtype (float32/float64 accumulate in their own type; integers wrap on overflow).
/// Errors (RuntimeError): "self must be a matrix" / "mat2 must be a matrix" for non-2-D inputs,
/// "expected m1 and m2 to have the same dtype, but got: float != long int", "mat1 and mat2
/// shapes cannot be multiplied (2x3 and 2x3)", and `"addmm_impl_cpu_" not implemented for
/// 'Bool'` (torch: `torch.mm`).
pub fn mm(input: &Tensor, mat2: &Tensor) -> Result<Tensor> {
    mm_plan(input, mat2)?.run()
}

/// `mm` checked and ready to run (Note [One kernel per op]).
pub fn mm_plan<'a>(input: &'a Tensor, mat2: &'a Tensor) -> Result<Plan<'a, impl Kernel + 'a>> {
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
    Ok(Plan::new(
        Cow::Owned(vec![a[0], b[1]]),
        input.dtype(),
        [Some(input), Some(mat2), None],
        move |out: &Tensor, fresh: bool| {
            gemm_into(out, fresh, input, mat2, |o| {
                batched_matmul_into(o, input, mat2, "addmm_impl_cpu_")
            })
        },
    ))
}

/// Run `product` (a GEMM accumulating into a zero-filled contiguous output that aliases no
/// operand) into `out`: directly when `out` is fresh, or contiguous and sharing no memory with
/// `a` or `b`; otherwise into a contiguous temporary copied into `out` (as torch's `addmm`
/// resolves a non-contiguous result).
fn gemm_into(
    out: &Tensor,
    fresh: bool,
    a: &Tensor,
    b: &Tensor,
    product: impl FnOnce(&Tensor) -> Result<()>,
) -> Result<()> {
    if fresh || (out.is_contiguous() && !out.shares_storage(a) && !out.shares_storage(b)) {
        out.fill_cast(crate::core::Scalar::Int(0));
        return product(out);
    }
    let tmp = Tensor::zeros(out.sizes(), out.dtype())?;
    product(&tmp)?;
    out.copy_from(&tmp)
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
    dot_plan(input, other)?.run()
}

/// `dot` checked and ready to run (Note [One kernel per op]).
pub fn dot_plan<'a>(input: &'a Tensor, other: &'a Tensor) -> Result<Plan<'a, impl Kernel + 'a>> {
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
    Ok(Plan::new(
        Cow::Owned(Vec::new()),
        input.dtype(),
        [Some(input), Some(other), None],
        move |out: &Tensor, fresh: bool| {
            gemm_into(out, fresh, input, other, |o| {
                // A 1×n by n×1 product: the kernels' n == 1 path is the dot product.
                let a = unsqueeze(input, 0)?;
                let b = unsqueeze(other, 1)?;
                let o = o.as_strided(vec![1, 1], vec![1, 1], o.storage_offset());
                batched_matmul_into(&o, &a, &b, "dot")
            })
        },
    ))
}

/// `outer(input, vec2)`: the outer product of two 1-D tensors, `[n, m]`, with type promotion.
/// RuntimeError "outer: Expected 1-D argument self, but got 2-D" (or `vec2`) (torch:
/// `torch.outer`).
pub fn outer(input: &Tensor, vec2: &Tensor) -> Result<Tensor> {
    outer_plan(input, vec2)?.run()
}

/// `outer` checked and ready to run (Note [One kernel per op]): `mul`'s kernel on `input` as a
/// column and `vec2` as a row.
pub fn outer_plan<'a>(input: &'a Tensor, vec2: &'a Tensor) -> Result<Plan<'a, impl Kernel + 'a>> {
    for (t, name) in [(input, "self"), (vec2, "vec2")] {
        if t.dim() != 1 {
            return Err(Error::runtime(format!(
                "outer: Expected 1-D argument {name}, but got {}-D",
                t.dim()
            )));
        }
    }
    let column = unsqueeze(input, 1)?;
    let (shape, dtype) = {
        let p = mul_plan(&column, vec2)?;
        (p.shape().to_vec(), p.dtype())
    };
    Ok(Plan::new(
        Cow::Owned(shape),
        dtype,
        [Some(input), Some(vec2), None],
        move |out: &Tensor, _| mul_plan(&column, vec2)?.run_into(out),
    ))
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

// ----- products built on mm/matmul (issue 13) --------------------------------------------------

/// torch's `expected scalar type Float but found Double` when `b`'s dtype is not `a`'s.
fn check_same_scalar_type(a: &Tensor, b: &Tensor) -> Result<()> {
    if a.dtype() != b.dtype() {
        return Err(Error::runtime(format!(
            "expected scalar type {} but found {}",
            a.dtype().scalar_type_name(),
            b.dtype().scalar_type_name()
        )));
    }
    Ok(())
}

/// `bmm(input, mat2)`: batched matrix product of `[b, n, k]` and `[b, k, p]`, `[b, n, p]`.
/// Errors (RuntimeError): "batch1 must be a 3D tensor", "batch2 must be a 3D tensor",
/// "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [3, 4].",
/// "expected scalar type Float but found Double". Mirrors `torch.bmm`.
pub fn bmm(input: &Tensor, mat2: &Tensor) -> Result<Tensor> {
    if input.dim() != 3 {
        return Err(Error::runtime("batch1 must be a 3D tensor"));
    }
    if mat2.dim() != 3 {
        return Err(Error::runtime("batch2 must be a 3D tensor"));
    }
    let (a, b) = (input.sizes(), mat2.sizes());
    if a[0] != b[0] || a[2] != b[1] {
        return Err(Error::runtime(format!(
            "Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].",
            a[0], a[2], b[0], b[1]
        )));
    }
    check_same_scalar_type(input, mat2)?;
    matmul(input, mat2)
}

/// `mv(input, vec)`: an `n×k` matrix times a `k` vector, an `n` vector. Errors (RuntimeError):
/// "vector + matrix @ vector expected, got 1, 1, 1", "size mismatch, got input (3), mat (3x4),
/// vec (5)". Mirrors `torch.mv`.
pub fn mv_op(input: &Tensor, vec: &Tensor) -> Result<Tensor> {
    if input.dim() != 2 || vec.dim() != 1 {
        return Err(Error::runtime(format!(
            "vector + matrix @ vector expected, got 1, {}, {}",
            input.dim(),
            vec.dim()
        )));
    }
    mv(input, vec)
}

/// `beta * input + alpha * product`, `input` broadcast to the product's shape (torch's
/// "The expanded size of the tensor ..." otherwise); `beta == 0` ignores `input` (NaN and inf
/// in it do not propagate), as BLAS does; bool tensors combine with or/and.
fn add_scaled(input: &Tensor, product: &Tensor, beta: Scalar, alpha: Scalar) -> Result<Tensor> {
    let inp = expand(
        input,
        &product
            .sizes()
            .iter()
            .map(|&s| s as i64)
            .collect::<Vec<_>>(),
    )?;
    let dtype = crate::core::promote::result_type(&[input, product]);
    let scale = |t: &Tensor, s: Scalar| -> Result<Tensor> {
        let t = if t.dtype() == dtype {
            t.clone()
        } else {
            t.to_dtype(dtype)?
        };
        let one = match s {
            Scalar::Bool(b) => b,
            Scalar::Int(i) => i == 1,
            Scalar::Float(f) => f == 1.0,
        };
        if one {
            return Ok(t);
        }
        let s = if dtype.is_floating_point() {
            s
        } else if dtype == DType::Bool {
            Scalar::Bool(s.to_f64() != 0.0)
        } else {
            Scalar::Int(s.to_i64())
        };
        super::mul(&t, &Tensor::scalar_tensor(s, dtype)?)
    };
    let is_zero = match beta {
        Scalar::Bool(b) => !b,
        Scalar::Int(i) => i == 0,
        Scalar::Float(f) => f == 0.0,
    };
    let prod = scale(product, alpha)?;
    if is_zero {
        return Ok(prod);
    }
    let base = scale(&inp, beta)?;
    super::add(&base, &prod, Scalar::Int(1))
}

/// `addmm(input, mat1, mat2, *, beta=1, alpha=1)`: `beta * input + alpha * (mat1 @ mat2)`,
/// `input` broadcast to `[n, p]`; `beta = 0` ignores `input`. The `mm` errors. Mirrors
/// `torch.addmm`.
pub fn addmm(
    input: &Tensor,
    mat1: &Tensor,
    mat2: &Tensor,
    beta: Scalar,
    alpha: Scalar,
) -> Result<Tensor> {
    add_scaled(input, &mm(mat1, mat2)?, beta, alpha)
}

/// `addmv(input, mat, vec, *, beta=1, alpha=1)`: `beta * input + alpha * (mat @ vec)`. The `mv`
/// errors. Mirrors `torch.addmv`.
pub fn addmv(
    input: &Tensor,
    mat: &Tensor,
    vec: &Tensor,
    beta: Scalar,
    alpha: Scalar,
) -> Result<Tensor> {
    if mat.dim() != 2 || vec.dim() != 1 {
        return Err(Error::runtime(format!(
            "vector + matrix @ vector expected, got {}, {}, {}",
            input.dim(),
            mat.dim(),
            vec.dim()
        )));
    }
    add_scaled(input, &mv(mat, vec)?, beta, alpha)
}

/// `addr(input, vec1, vec2, *, beta=1, alpha=1)`: `beta * input + alpha * outer(vec1, vec2)`.
/// Errors (RuntimeError): "addr: Expected 1-D argument vec1, but got 2-D". Mirrors `torch.addr`.
pub fn addr(
    input: &Tensor,
    vec1: &Tensor,
    vec2: &Tensor,
    beta: Scalar,
    alpha: Scalar,
) -> Result<Tensor> {
    for (name, v) in [("vec1", vec1), ("vec2", vec2)] {
        if v.dim() != 1 {
            return Err(Error::runtime(format!(
                "addr: Expected 1-D argument {name}, but got {}-D",
                v.dim()
            )));
        }
    }
    add_scaled(input, &outer(vec1, vec2)?, beta, alpha)
}

/// `baddbmm(input, batch1, batch2, *, beta=1, alpha=1)`: `beta * input + alpha * bmm(batch1,
/// batch2)`. The `bmm` errors. Mirrors `torch.baddbmm`.
pub fn baddbmm(
    input: &Tensor,
    batch1: &Tensor,
    batch2: &Tensor,
    beta: Scalar,
    alpha: Scalar,
) -> Result<Tensor> {
    add_scaled(input, &bmm(batch1, batch2)?, beta, alpha)
}

/// `vdot(input, other)`: the dot product of two 1-D tensors (the first conjugated: the same for
/// real dtypes). The `dot` errors. Mirrors `torch.vdot`.
pub fn vdot(input: &Tensor, other: &Tensor) -> Result<Tensor> {
    dot(input, other)
}

/// `cross(input, other, dim=None)`: the 3-vector cross product along `dim` of the broadcast
/// operands; without `dim`, the first dim of size 3 (torch's deprecated default, with its
/// UserWarning once per process). Errors (RuntimeError): "linalg.cross: inputs dimension 1 must
/// have length 3. Got 3 and 4", "no dimension of size 3 in input", "linalg.cross: inputs must
/// have the same number of dimensions." (the sizes broadcast, the ranks do not). Mirrors
/// `torch.cross`.
pub fn cross(input: &Tensor, other: &Tensor, dim: Option<i64>) -> Result<Tensor> {
    static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    // torch broadcasts the batch sizes but not the ranks.
    if input.dim() != other.dim() {
        return Err(Error::runtime(
            "linalg.cross: inputs must have the same number of dimensions.",
        ));
    }
    let nd = input.dim().max(other.dim());
    let dim = match dim {
        Some(d) => d,
        None => {
            crate::core::warnings::warn_once(
                &WARNED,
                crate::core::warnings::WarningKind::User,
                || {
                    "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree with that of linalg.cross in a future release.".into()
                },
            );
            // torch looks in input's sizes (here aligned to the broadcast rank).
            match input.sizes().iter().position(|&s| s == 3) {
                Some(d) => (d + nd - input.dim()) as i64,
                None => return Err(Error::runtime("no dimension of size 3 in input")),
            }
        }
    };
    let d = crate::core::tensor::maybe_wrap_dim(dim, nd)?;
    let size_at = |t: &Tensor| {
        let off = nd - t.dim();
        if d < off {
            1
        } else {
            t.sizes()[d - off]
        }
    };
    if size_at(input) != 3 || size_at(other) != 3 {
        return Err(Error::runtime(format!(
            "linalg.cross: inputs dimension {dim} must have length 3. Got {} and {}",
            size_at(input),
            size_at(other)
        )));
    }
    let shape = broadcast_shapes(input.sizes(), other.sizes())?;
    let target: Vec<i64> = shape.iter().map(|&s| s as i64).collect();
    let a = expand(input, &target)?;
    let b = expand(other, &target)?;
    let di = d as i64;
    let comp = |t: &Tensor, i: i64| super::select(t, di, i);
    let term = |i: i64, j: i64| -> Result<Tensor> {
        super::sub(
            &super::mul(&comp(&a, i)?, &comp(&b, j)?)?,
            &super::mul(&comp(&a, j)?, &comp(&b, i)?)?,
            Scalar::Int(1),
        )
    };
    super::stack(&[term(1, 2)?, term(2, 0)?, term(0, 1)?], di)
}

/// `dist(input, other, p=2)`: the p-norm of `input - other` (broadcast), a 0-dim tensor.
/// Mirrors `torch.dist`.
pub fn dist(input: &Tensor, other: &Tensor, p: Scalar) -> Result<Tensor> {
    super::norm(
        &super::sub(input, other, Scalar::Int(1))?,
        Some(p),
        None,
        false,
    )
}

/// `cdist(x1, x2, p=2, compute_mode=None)`: the p-norm distance between each row of `x1`
/// (`[..., P, M]`) and each row of `x2` (`[..., R, M]`), `[..., P, R]`, batch dims broadcast;
/// computed directly (torch may use a matrix product for p = 2: equal within rounding).
/// Errors (RuntimeError): "cdist only supports at least 2D tensors, X1 got: 1D", "X1 and X2 must
/// have the same number of columns. X1: 2 X2: 3", "cdist only supports non-negative p values",
/// "cdist only supports floating-point dtypes, X1 got: Long"; ValueError "foo is not a valid
/// value for compute_mode". Mirrors `torch.cdist`.
pub fn cdist(x1: &Tensor, x2: &Tensor, p: f64, compute_mode: Option<&str>) -> Result<Tensor> {
    // The modes choose torch's algorithm for p = 2; the result is the same within rounding.
    match compute_mode {
        None
        | Some("use_mm_for_euclid_dist_if_necessary")
        | Some("use_mm_for_euclid_dist")
        | Some("donot_use_mm_for_euclid_dist") => {}
        Some(m) => {
            return Err(Error::value(format!(
                "{m} is not a valid value for compute_mode"
            )))
        }
    }
    for (name, t) in [("X1", x1), ("X2", x2)] {
        if t.dim() < 2 {
            return Err(Error::runtime(format!(
                "cdist only supports at least 2D tensors, {name} got: {}D",
                t.dim()
            )));
        }
    }
    for (name, t) in [("X1", x1), ("X2", x2)] {
        if !t.dtype().is_floating_point() {
            return Err(Error::runtime(format!(
                "cdist only supports floating-point dtypes, {name} got: {}",
                t.dtype().scalar_type_name()
            )));
        }
    }
    let (c1, c2) = (x1.sizes()[x1.dim() - 1], x2.sizes()[x2.dim() - 1]);
    if c1 != c2 {
        return Err(Error::runtime(format!(
            "X1 and X2 must have the same number of columns. X1: {c1} X2: {c2}"
        )));
    }
    if p.is_nan() || p < 0.0 {
        return Err(Error::runtime("cdist only supports non-negative p values"));
    }
    let diff = super::sub(&unsqueeze(x1, -2)?, &unsqueeze(x2, -3)?, Scalar::Int(1))?;
    super::norm(&diff, Some(Scalar::Float(p)), Some(&[-1]), false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::error::ErrorKind;

    fn t_f32(v: Vec<f32>, s: &[usize]) -> Tensor {
        Tensor::from_vec(v, s).unwrap()
    }

    fn t_i64(v: Vec<i64>, s: &[usize]) -> Tensor {
        Tensor::from_vec(v, s).unwrap()
    }

    fn ar_f32(n: usize, s: &[usize]) -> Tensor {
        t_f32((0..n).map(|x| x as f32).collect(), s)
    }

    /// Reference product in f64 of two row-major matrices.
    fn naive(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
        let mut c = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                c[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
            }
        }
        c
    }

    #[test]
    fn mm_values_and_strides() {
        // torch.arange(6.).reshape(2, 3) @ torch.arange(12.).reshape(3, 4)
        let a = ar_f32(6, &[2, 3]);
        let b = ar_f32(12, &[3, 4]);
        let c = mm(&a, &b).unwrap();
        assert_eq!(c.sizes(), &[2, 4]);
        assert_eq!(
            c.to_vec::<f32>(),
            vec![20., 23., 26., 29., 56., 68., 80., 92.]
        );
        // Transposed operands (non-contiguous): a.T @ a = [[9,12,15],[12,17,22],[15,22,29]].
        let at = transpose(&a, 0, 1).unwrap();
        let c = mm(&at, &a).unwrap();
        assert_eq!(
            c.to_vec::<f32>(),
            vec![9., 12., 15., 12., 17., 22., 15., 22., 29.]
        );
        // Integers.
        let ai = t_i64((0..6).collect(), &[2, 3]);
        let bi = t_i64((0..12).collect(), &[3, 4]);
        assert_eq!(
            mm(&ai, &bi).unwrap().to_vec::<i64>(),
            vec![20, 23, 26, 29, 56, 68, 80, 92]
        );
        // uint8 wraps: [[200]] @ [[2]] = 400 mod 256 = 144.
        let u = Tensor::from_vec(vec![200u8], &[1, 1]).unwrap();
        let v = Tensor::from_vec(vec![2u8], &[1, 1]).unwrap();
        assert_eq!(mm(&u, &v).unwrap().to_vec::<u8>(), vec![144]);
        // Empty inner dim gives zeros.
        let e1 = Tensor::zeros(&[2, 0], DType::Float32).unwrap();
        let e2 = Tensor::zeros(&[0, 3], DType::Float32).unwrap();
        assert_eq!(mm(&e1, &e2).unwrap().to_vec::<f32>(), vec![0.0; 6]);
    }

    #[test]
    fn mm_errors() {
        let a = ar_f32(6, &[2, 3]);
        let e = mm(&a, &a).unwrap_err();
        assert_eq!(
            (e.kind, e.message.as_str()),
            (
                ErrorKind::Runtime,
                "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"
            )
        );
        let v = ar_f32(3, &[3]);
        assert_eq!(mm(&v, &a).unwrap_err().message, "self must be a matrix");
        assert_eq!(mm(&a, &v).unwrap_err().message, "mat2 must be a matrix");
        let l = t_i64((0..12).collect(), &[3, 4]);
        assert_eq!(
            mm(&a, &l).unwrap_err().message,
            "expected m1 and m2 to have the same dtype, but got: float != long int"
        );
        let b = Tensor::zeros(&[2, 2], DType::Bool).unwrap();
        assert_eq!(
            mm(&b, &b).unwrap_err().message,
            "\"addmm_impl_cpu_\" not implemented for 'Bool'"
        );
    }

    #[test]
    fn dot_values_and_errors() {
        let a = t_f32(vec![1., 2., 3.], &[3]);
        let b = t_f32(vec![4., 5., 6.], &[3]);
        let d = dot(&a, &b).unwrap();
        assert_eq!((d.dim(), d.dtype()), (0, DType::Float32));
        assert_eq!(d.to_vec::<f32>(), vec![32.0]);
        // Strided (every other element) and long enough for the 8-lane path.
        let x = ar_f32(40, &[40]);
        let xs = crate::core::ops::indexing::slice(&x, 0, None, None, 2).unwrap();
        let ys = crate::core::ops::indexing::slice(&x, 0, Some(1), None, 2).unwrap();
        let expect: f32 = (0..20).map(|i| (2 * i) as f32 * (2 * i + 1) as f32).sum();
        assert_eq!(dot(&xs, &ys).unwrap().to_vec::<f32>(), vec![expect]);
        let xc = ar_f32(20, &[20]);
        let expect: f32 = (0..20).map(|i| (i * i) as f32).sum();
        assert_eq!(dot(&xc, &xc).unwrap().to_vec::<f32>(), vec![expect]);
        let i = t_i64(vec![1, 2, 3], &[3]);
        assert_eq!(dot(&i, &i).unwrap().to_vec::<i64>(), vec![14]);
        let e = Tensor::zeros(&[0], DType::Float64).unwrap();
        assert_eq!(dot(&e, &e).unwrap().to_vec::<f64>(), vec![0.0]);

        let m = ar_f32(4, &[2, 2]);
        assert_eq!(
            dot(&m, &m).unwrap_err().message,
            "1D tensors expected, but got 2D and 2D tensors"
        );
        assert_eq!(
            dot(&a, &i).unwrap_err().message,
            "dot : expected both vectors to have same dtype, but found Float and Long"
        );
        let c = ar_f32(4, &[4]);
        assert_eq!(dot(&a, &c).unwrap_err().message, "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 and 4 elements respectively");
        let bb = Tensor::zeros(&[2], DType::Bool).unwrap();
        assert_eq!(
            dot(&bb, &bb).unwrap_err().message,
            "\"dot\" not implemented for 'Bool'"
        );
    }

    #[test]
    fn matmul_shapes_and_values() {
        // 1-D @ 1-D -> 0-dim.
        let v = ar_f32(3, &[3]);
        let r = matmul(&v, &v).unwrap();
        assert_eq!((r.dim(), r.to_vec::<f32>()), (0, vec![5.0]));
        // 1-D @ 2-D: arange(3) @ arange(12).reshape(3, 4) = [20, 23, 26, 29].
        let b = ar_f32(12, &[3, 4]);
        let r = matmul(&v, &b).unwrap();
        assert_eq!(r.sizes(), &[4]);
        assert_eq!(r.to_vec::<f32>(), vec![20., 23., 26., 29.]);
        // 2-D @ 1-D: arange(12).reshape(4, 3) @ arange(3) = [5, 14, 23, 32].
        let a = ar_f32(12, &[4, 3]);
        let r = matmul(&a, &v).unwrap();
        assert_eq!(r.to_vec::<f32>(), vec![5., 14., 23., 32.]);
        // Batched with broadcasting: [2,1,3,4] @ [5,4,2] -> [2,5,3,2].
        let x = ar_f32(24, &[2, 1, 3, 4]);
        let y = ar_f32(40, &[5, 4, 2]);
        let r = matmul(&x, &y).unwrap();
        assert_eq!(r.sizes(), &[2, 5, 3, 2]);
        let xv = x.to_f64_vec();
        let yv = y.to_f64_vec();
        let rv = r.to_f64_vec();
        for i in 0..2 {
            for j in 0..5 {
                let expect = naive(&xv[i * 12..(i + 1) * 12], &yv[j * 8..(j + 1) * 8], 3, 4, 2);
                assert_eq!(&rv[(i * 5 + j) * 6..(i * 5 + j + 1) * 6], &expect[..]);
            }
        }
        // torch: (arange(24.).reshape(2,3,4) @ arange(8.).reshape(4,2))[1] == [[172,226],[220,290],[268,354]]
        let x3 = ar_f32(24, &[2, 3, 4]);
        let r = matmul(&x3, &ar_f32(8, &[4, 2])).unwrap();
        assert_eq!(r.sizes(), &[2, 3, 2]);
        assert_eq!(
            &r.to_vec::<f32>()[6..],
            &[172., 226., 220., 290., 268., 354.]
        );
        // N-D @ 1-D and 1-D @ N-D.
        let r = matmul(&x3, &ar_f32(4, &[4])).unwrap();
        assert_eq!(r.sizes(), &[2, 3]);
        assert_eq!(r.to_vec::<f32>(), vec![14., 38., 62., 86., 110., 134.]);
        let r = matmul(&ar_f32(3, &[3]), &x3).unwrap();
        assert_eq!(r.sizes(), &[2, 4]);
        assert_eq!(
            r.to_vec::<f32>(),
            vec![20., 23., 26., 29., 56., 59., 62., 65.]
        );
        // 2-D @ 3-D broadcasts the matrix.
        let r = matmul(&ar_f32(6, &[2, 3]), &x3).unwrap();
        assert_eq!(r.sizes(), &[2, 2, 4]);
        assert_eq!(
            r.to_vec::<f32>(),
            vec![
                20., 23., 26., 29., 56., 68., 80., 92., 56., 59., 62., 65., 200., 212., 224., 236.
            ]
        );
        // Non-contiguous batched operand (the folded path is not taken).
        let xt = transpose(&ar_f32(24, &[3, 2, 4]), 0, 1).unwrap(); // [2, 3, 4]
        let r = matmul(&xt, &ar_f32(8, &[4, 2])).unwrap();
        let xtv = xt.contiguous().unwrap();
        let r2 = matmul(&xtv, &ar_f32(8, &[4, 2])).unwrap();
        assert_eq!(r.to_vec::<f32>(), r2.to_vec::<f32>());
        // 1-D @ a batch whose mT is contiguous: torch's folded (mv) path.
        let y = ar_f32(24, &[2, 4, 3]);
        let ymt = transpose(&y, 1, 2).unwrap(); // [2, 3, 4]
        assert!(should_fold(&ar_f32(3, &[3]), &ymt).unwrap());
        let r = matmul(&ar_f32(3, &[3]), &ymt).unwrap();
        let r2 = matmul(&ar_f32(3, &[3]), &ymt.contiguous().unwrap()).unwrap();
        assert_eq!(r.sizes(), &[2, 4]);
        assert_eq!(r.to_vec::<f32>(), r2.to_vec::<f32>());
        assert_eq!(
            r.to_vec::<f32>(),
            vec![5., 14., 23., 32., 41., 50., 59., 68.]
        );
        // Broadcast (stride-0) operands.
        let row = expand(&ar_f32(3, &[1, 3]), &[4, 3]).unwrap();
        let r = mm(&row, &ar_f32(6, &[3, 2])).unwrap();
        assert_eq!(
            r.to_vec::<f32>(),
            vec![10., 13., 10., 13., 10., 13., 10., 13.]
        );
        let big = expand(&ar_f32(20, &[1, 20]), &[9, 20]).unwrap();
        let bt = transpose(&expand(&ar_f32(20, &[1, 20]), &[7, 20]).unwrap(), 0, 1).unwrap();
        assert_eq!(mm(&big, &bt).unwrap().to_vec::<f32>(), vec![2470.0; 63]);
        // Integer batched.
        let xi = t_i64((0..8).collect(), &[2, 2, 2]);
        assert_eq!(
            matmul(&xi, &xi).unwrap().to_vec::<i64>(),
            vec![2, 3, 6, 11, 46, 55, 66, 79]
        );
    }

    #[test]
    fn matmul_errors() {
        let s = Tensor::zeros(&[], DType::Float32).unwrap();
        let m = ar_f32(6, &[2, 3]);
        assert_eq!(
            matmul(&s, &m).unwrap_err().message,
            "both arguments to matmul need to be at least 1D, but they are 0D and 2D"
        );
        let m2 = ar_f32(20, &[4, 5]);
        assert_eq!(
            matmul(&m, &m2).unwrap_err().message,
            "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"
        );
        assert_eq!(
            matmul(&ar_f32(2, &[2]), &m2).unwrap_err().message,
            "mat1 and mat2 shapes cannot be multiplied (1x2 and 4x5)"
        );
        assert_eq!(
            matmul(&m, &ar_f32(4, &[4])).unwrap_err().message,
            "size mismatch, got input (2), mat (2x3), vec (4)"
        );
        // Folded (contiguous 3-D @ 2-D): torch reports the folded mm.
        let x3 = ar_f32(24, &[2, 3, 4]);
        assert_eq!(
            matmul(&x3, &ar_f32(10, &[5, 2])).unwrap_err().message,
            "mat1 and mat2 shapes cannot be multiplied (6x4 and 5x2)"
        );
        // Batched.
        let y3 = ar_f32(40, &[2, 4, 5]);
        assert_eq!(
            matmul(&transpose(&x3, 1, 2).unwrap(), &y3)
                .unwrap_err()
                .message,
            "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4]."
        );
        let e = matmul(&ar_f32(24, &[2, 3, 4]), &ar_f32(48, &[3, 4, 4])).unwrap_err();
        assert_eq!(
            e.message,
            "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"
        );
        let l = t_i64((0..6).collect(), &[3, 2]);
        assert_eq!(
            matmul(&m, &l).unwrap_err().message,
            "expected m1 and m2 to have the same dtype, but got: float != long int"
        );
        let li = t_i64((0..3).collect(), &[3]);
        assert_eq!(
            matmul(&ar_f32(3, &[3]), &li).unwrap_err().message,
            "dot : expected both vectors to have same dtype, but found Float and Long"
        );
        let bb = Tensor::zeros(&[2, 2, 2], DType::Bool).unwrap();
        assert_eq!(
            matmul(&bb, &bb).unwrap_err().message,
            "\"bmm\" not implemented for 'Bool'"
        );
    }
}
