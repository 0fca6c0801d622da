//! src/core/ops/tests/linalg.rs: tests of src/core/ops/linalg.rs.

use super::*;

/// A GEMM split by rows across threads equals the single-call kernel bit for bit, for
/// contiguous and transposed (strided) operands.
#[test]
fn parallel_gemm_matches_single_call() {
    crate::core::parallel::set_num_threads(3);
    let (m, k, n) = (301, 70, 203);
    let av: Vec<f32> = (0..m * k)
        .map(|i| ((i * 37) % 101) as f32 * 0.01 - 0.5)
        .collect();
    let bv: Vec<f32> = (0..k * n)
        .map(|i| ((i * 53) % 97) as f32 * 0.02 - 1.0)
        .collect();
    assert!(
        gemm_par_rows(m, n, k) < m,
        "the test must take the threaded path"
    );
    let a = t_f32(av.clone(), &[m, k]);
    let b = t_f32(bv.clone(), &[k, n]);
    let mut want = vec![0.0f32; m * n];
    let (am, bm) = (
        MatRef {
            ptr: av.as_ptr(),
            rs: k as isize,
            cs: 1,
        },
        MatRef {
            ptr: bv.as_ptr(),
            rs: n as isize,
            cs: 1,
        },
    );
    // SAFETY: `am`/`bm` address the m×k and k×n row-major buffers; `want` has m·n elements.
    unsafe { gemm_blocked_dispatch(m, n, k, am, bm, &mut want) };
    assert_eq!(mm(&a, &b).unwrap().to_vec::<f32>(), want);
    // b transposed: a k×n view of an n×k buffer.
    let bt = t_f32(
        (0..n * k).map(|i| bv[(i % k) * n + i / k]).collect(),
        &[n, k],
    );
    let btv = transpose(&bt, 0, 1).unwrap();
    assert_eq!(mm(&a, &btv).unwrap().to_vec::<f32>(), want);
}

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

fn close(x: &[f64], y: &[f64], tol: f64) {
    assert_eq!(x.len(), y.len());
    for (a, b) in x.iter().zip(y) {
        assert!((a - b).abs() <= tol * (1.0 + b.abs()), "{a} vs {b}");
    }
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
fn gemm_matches_reference_on_odd_sizes() {
    for &(m, k, n) in &[
        (7, 5, 3),
        (13, 300, 33),
        (1, 9, 17),
        (17, 9, 1),
        (100, 70, 1100),
        (6, 16, 16),
    ] {
        let av: Vec<f64> = (0..m * k)
            .map(|i| ((i * 7 % 13) as f64 - 6.0) / 4.0)
            .collect();
        let bv: Vec<f64> = (0..k * n)
            .map(|i| ((i * 5 % 11) as f64 - 5.0) / 8.0)
            .collect();
        let expect = naive(&av, &bv, m, k, n);
        let a64 = Tensor::from_vec(av.clone(), &[m, k]).unwrap();
        let b64 = Tensor::from_vec(bv.clone(), &[k, n]).unwrap();
        close(&mm(&a64, &b64).unwrap().to_vec::<f64>(), &expect, 1e-12);
        let a32 = a64.to_dtype(DType::Float32).unwrap();
        let b32 = b64.to_dtype(DType::Float32).unwrap();
        close(&mm(&a32, &b32).unwrap().to_f64_vec(), &expect, 1e-4);
        // Column-major operands through transposed views.
        let a_cm = transpose(&a64, 0, 1).unwrap().contiguous().unwrap();
        let a_cm = transpose(&a_cm, 0, 1).unwrap();
        assert!(!a_cm.is_contiguous() || m == 1 || k == 1);
        close(&mm(&a_cm, &b64).unwrap().to_vec::<f64>(), &expect, 1e-12);
        let ai = a64.to_dtype(DType::Int32).unwrap();
        let bi = b64.to_dtype(DType::Int32).unwrap();
        let ei = naive(&ai.to_f64_vec(), &bi.to_f64_vec(), m, k, n);
        assert_eq!(mm(&ai, &bi).unwrap().to_f64_vec(), ei);
    }
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
        vec![20., 23., 26., 29., 56., 68., 80., 92., 56., 59., 62., 65., 200., 212., 224., 236.]
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
