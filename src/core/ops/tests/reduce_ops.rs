//! src/core/ops/tests/reduce_ops.rs: tests of src/core/ops/reduce_ops.rs.

use super::*;
use crate::core::error::ErrorKind;
use crate::core::ops::{cumsum, softmax};

fn t<T: Element>(v: Vec<T>, s: &[usize]) -> Tensor {
    Tensor::from_vec(v, s).unwrap()
}

fn ar(n: i64, s: &[usize]) -> Tensor {
    t((0..n).collect::<Vec<i64>>(), s)
}

fn arf(n: usize, s: &[usize]) -> Tensor {
    t((0..n).map(|x| x as f32).collect::<Vec<f32>>(), s)
}

/// Transposed view (dims 0 and 1 swapped) of a 2-D tensor.
fn tr(x: &Tensor) -> Tensor {
    let (s, st) = (x.sizes(), x.strides());
    x.as_strided(vec![s[1], s[0]], vec![st[1], st[0]], x.storage_offset())
}

#[test]
fn sum_all_and_dtypes() {
    let x = ar(6, &[2, 3]);
    let s = sum(&x, None, false, None).unwrap();
    assert_eq!(
        (s.sizes(), s.dtype(), s.to_vec::<i64>()),
        (&[][..], DType::Int64, vec![15])
    );
    let b = t(vec![true, false, true, true], &[4]);
    let s = sum(&b, None, false, None).unwrap();
    assert_eq!((s.dtype(), s.to_vec::<i64>()), (DType::Int64, vec![3]));
    let i = t(vec![1i32, 2, 3], &[3]);
    assert_eq!(sum(&i, None, false, None).unwrap().dtype(), DType::Int64);
    let s = sum(&i, None, false, Some(DType::Float64)).unwrap();
    assert_eq!((s.dtype(), s.to_vec::<f64>()), (DType::Float64, vec![6.0]));
    let s = sum(&i, None, false, Some(DType::Int32)).unwrap();
    assert_eq!((s.dtype(), s.to_vec::<i32>()), (DType::Int32, vec![6]));
    let f = t(vec![1.5f32, 2.25], &[2]);
    let s = sum(&f, Some(&[]), false, None).unwrap();
    assert_eq!((s.dtype(), s.to_vec::<f32>()), (DType::Float32, vec![3.75]));
    // Float input summed as int: converted first (1.5 → 1, 2.7 → 2).
    let f = t(vec![1.5f64, 2.7], &[2]);
    assert_eq!(
        sum(&f, None, false, Some(DType::Int64))
            .unwrap()
            .to_vec::<i64>(),
        vec![3]
    );
    // Sum into bool: any non-zero.
    let z = t(vec![1i64, -1], &[2]);
    assert_eq!(
        sum(&z, None, false, Some(DType::Bool))
            .unwrap()
            .to_vec::<bool>(),
        vec![true]
    );
    // uint8 with dtype=uint8 wraps.
    let u = t(vec![200u8, 100], &[2]);
    assert_eq!(
        sum(&u, None, false, Some(DType::UInt8))
            .unwrap()
            .to_vec::<u8>(),
        vec![44]
    );
    assert_eq!(
        sum(&u, None, false, None).unwrap().to_vec::<i64>(),
        vec![300]
    );
    // int64 wraps.
    let w = t(vec![i64::MAX, 1], &[2]);
    assert_eq!(
        sum(&w, None, false, None).unwrap().to_vec::<i64>(),
        vec![i64::MIN]
    );
}

#[test]
fn sum_dims_keepdim_negative() {
    let x = ar(24, &[2, 3, 4]);
    let s = sum(&x, Some(&[1]), false, None).unwrap();
    assert_eq!(s.sizes(), &[2, 4]);
    assert_eq!(s.to_vec::<i64>(), vec![12, 15, 18, 21, 48, 51, 54, 57]);
    let s = sum(&x, Some(&[-1]), true, None).unwrap();
    assert_eq!(s.sizes(), &[2, 3, 1]);
    assert_eq!(s.to_vec::<i64>(), vec![6, 22, 38, 54, 70, 86]);
    let s = sum(&x, Some(&[0, 2]), false, None).unwrap();
    assert_eq!(s.to_vec::<i64>(), vec![60, 92, 124]);
    let s = sum(&x, Some(&[2, 0]), true, None).unwrap();
    assert_eq!(s.sizes(), &[1, 3, 1]);
    let s = sum(&x, Some(&[0]), false, None).unwrap();
    assert_eq!(s.sizes(), &[3, 4]);
    assert_eq!(
        s.to_vec::<i64>(),
        (0..12).map(|k| 2 * k + 12).collect::<Vec<_>>()
    );
}

#[test]
fn sum_row_strategy_and_strided() {
    // dim 0 of a [3, 20] matrix: the innermost kept dim is contiguous (strategy B).
    let x = arf(60, &[3, 20]);
    let s = sum(&x, Some(&[0]), false, None).unwrap();
    assert_eq!(
        s.to_vec::<f32>(),
        (0..20).map(|k| (3 * k + 60) as f32).collect::<Vec<_>>()
    );
    // Transposed: [20, 3] view, reduce dim 1 (strategy B again), dim 0 (strategy A).
    let xt = tr(&x);
    let s = sum(&xt, Some(&[1]), false, None).unwrap();
    assert_eq!(
        s.to_vec::<f32>(),
        (0..20).map(|k| (3 * k + 60) as f32).collect::<Vec<_>>()
    );
    let s = sum(&xt, Some(&[0]), false, None).unwrap();
    assert_eq!(s.to_vec::<f32>(), vec![190.0, 590.0, 990.0]);
    assert_eq!(
        sum(&xt, None, false, None).unwrap().to_vec::<f32>(),
        vec![1770.0]
    );
    // Small transposed int matrix (strategy C).
    let y = tr(&ar(6, &[2, 3]));
    assert_eq!(
        sum(&y, Some(&[1]), false, None).unwrap().to_vec::<i64>(),
        vec![3, 5, 7]
    );
    assert_eq!(
        sum(&y, Some(&[0]), false, None).unwrap().to_vec::<i64>(),
        vec![3, 12]
    );
    // Broadcast (stride-0) input: [1,2,3] expanded to [4, 3].
    let b = t(vec![1i64, 2, 3], &[3]).as_strided(vec![4, 3], vec![0, 1], 0);
    assert_eq!(
        sum(&b, Some(&[0]), false, None).unwrap().to_vec::<i64>(),
        vec![4, 8, 12]
    );
    assert_eq!(
        sum(&b, None, false, None).unwrap().to_vec::<i64>(),
        vec![24]
    );
    // Multi-dim strided reduction (strategy C, several reduced dims).
    let z = ar(24, &[2, 3, 4]);
    let zp = z.as_strided(vec![4, 3, 2], vec![1, 4, 12], 0); // permute(2, 1, 0)
    assert_eq!(
        sum(&zp, Some(&[1, 2]), false, None)
            .unwrap()
            .to_vec::<i64>(),
        vec![60, 66, 72, 78]
    );
    // Reduced dims that do not coalesce: v[a, b, c] = a + 24b + 4c.
    let v = ar(48, &[48]).as_strided(vec![2, 2, 3], vec![1, 24, 4], 0);
    assert_eq!(
        sum(&v, Some(&[1, 2]), false, None).unwrap().to_vec::<i64>(),
        vec![96, 102]
    );
    assert_eq!(
        amax(&v, &[1, 2], false).unwrap().to_vec::<i64>(),
        vec![32, 33]
    );
}

#[test]
fn float32_sum_is_accurate() {
    let x = Tensor::full(
        &[20_000_000],
        crate::core::Scalar::Float(1.0),
        DType::Float32,
    )
    .unwrap();
    assert_eq!(
        sum(&x, None, false, None).unwrap().to_vec::<f32>(),
        vec![20_000_000.0]
    );
    let x = Tensor::full(
        &[3_000_000],
        crate::core::Scalar::Float(0.1),
        DType::Float32,
    )
    .unwrap();
    let m = mean(&x, None, false, None).unwrap().to_vec::<f32>()[0];
    assert!((m - 0.1).abs() < 1e-7, "{m}");
}

#[test]
fn zero_dim_and_empty() {
    let s = t(vec![5i64], &[]);
    assert_eq!(sum(&s, None, false, None).unwrap().to_vec::<i64>(), vec![5]);
    let r = sum(&s, Some(&[-1]), true, None).unwrap();
    assert_eq!((r.sizes(), r.to_vec::<i64>()), (&[][..], vec![5]));
    assert_eq!(
        sum(&s, Some(&[0, -1]), false, None).unwrap_err().message,
        "dim 0 appears multiple times in the list of dims"
    );
    let e = Tensor::zeros(&[0, 3], DType::Float32).unwrap();
    let r = sum(&e, Some(&[0]), false, None).unwrap();
    assert_eq!(r.to_vec::<f32>(), vec![0.0; 3]);
    assert_eq!(sum(&e, Some(&[1]), false, None).unwrap().sizes(), &[0]);
    let m = mean(&e, None, false, None).unwrap();
    assert!(m.to_vec::<f32>()[0].is_nan());
    let m = mean(&e, Some(&[0]), false, None).unwrap();
    assert!(m.to_vec::<f32>().iter().all(|v| v.is_nan()));
}

#[test]
fn dim_errors() {
    let x = ar(6, &[2, 3]);
    let e = sum(&x, Some(&[2]), false, None).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Index);
    assert_eq!(
        e.message,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    );
    let e = sum(&x, Some(&[1, -1]), false, None).unwrap_err();
    assert_eq!(
        (e.kind, e.message.as_str()),
        (
            ErrorKind::Runtime,
            "dim 1 appears multiple times in the list of dims"
        )
    );
    assert_eq!(
        amax(&x, &[0, 0], false).unwrap_err().kind,
        ErrorKind::Runtime
    );
    assert_eq!(
        argmax(&x, Some(-3), false).unwrap_err().kind,
        ErrorKind::Index
    );
}

#[test]
fn mean_values_and_errors() {
    let x = arf(6, &[2, 3]);
    assert_eq!(
        mean(&x, None, false, None).unwrap().to_vec::<f32>(),
        vec![2.5]
    );
    let m = mean(&x, Some(&[1]), true, None).unwrap();
    assert_eq!(
        (m.sizes(), m.to_vec::<f32>()),
        (&[2, 1][..], vec![1.0, 4.0])
    );
    let m = mean(&tr(&x), Some(&[1]), false, None).unwrap();
    assert_eq!(m.to_vec::<f32>(), vec![1.5, 2.5, 3.5]);
    let i = ar(6, &[2, 3]);
    let e = mean(&i, None, false, None).unwrap_err();
    assert_eq!(e.kind, ErrorKind::NotImplemented);
    assert_eq!(e.message, "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Long");
    let e = mean(&t(vec![1i32], &[1]), None, false, None).unwrap_err();
    assert!(e
        .message
        .ends_with("Input dtype must be either a floating point or complex dtype. Got: Int"));
    let e = mean(&x, None, false, Some(DType::Int32)).unwrap_err();
    assert!(e
        .message
        .ends_with("Optional dtype must be either a floating point or complex dtype. Got: Int"));
    let m = mean(&i, Some(&[0]), false, Some(DType::Float64)).unwrap();
    assert_eq!(
        (m.dtype(), m.to_vec::<f64>()),
        (DType::Float64, vec![1.5, 2.5, 3.5])
    );
    let b = t(vec![true, false, false, true], &[4]);
    assert_eq!(
        mean(&b, None, false, Some(DType::Float32))
            .unwrap()
            .to_vec::<f32>(),
        vec![0.5]
    );
}

#[test]
fn amax_amin() {
    let x = t(vec![3.0f32, -1.0, 7.0, 2.0, 9.0, -4.0], &[2, 3]);
    assert_eq!(amax(&x, &[], false).unwrap().to_vec::<f32>(), vec![9.0]);
    assert_eq!(amin(&x, &[], false).unwrap().to_vec::<f32>(), vec![-4.0]);
    assert_eq!(
        amax(&x, &[0], false).unwrap().to_vec::<f32>(),
        vec![3.0, 9.0, 7.0]
    );
    let r = amin(&x, &[-1], true).unwrap();
    assert_eq!(
        (r.sizes(), r.to_vec::<f32>()),
        (&[2, 1][..], vec![-1.0, -4.0])
    );
    assert_eq!(
        amax(&tr(&x), &[1], false).unwrap().to_vec::<f32>(),
        vec![3.0, 9.0, 7.0]
    );
    // NaN propagates, wherever it is.
    let n = t(
        vec![1.0f64, f64::NAN, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0],
        &[10],
    );
    assert!(amax(&n, &[], false).unwrap().to_vec::<f64>()[0].is_nan());
    assert!(amin(&n, &[0], false).unwrap().to_vec::<f64>()[0].is_nan());
    let n2 = t(vec![1.0f32, 2.0, f32::NAN, 0.0], &[2, 2]);
    let r = amax(&n2, &[0], false).unwrap().to_vec::<f32>();
    assert!(r[0].is_nan() && r[1] == 2.0);
    // Ints keep their dtype; bool works.
    let i = t(vec![-5i8, 7, 3], &[3]);
    let r = amax(&i, &[], false).unwrap();
    assert_eq!((r.dtype(), r.to_vec::<i8>()), (DType::Int8, vec![7]));
    let b = t(vec![false, true, false], &[3]);
    assert_eq!(amax(&b, &[], false).unwrap().to_vec::<bool>(), vec![true]);
    assert_eq!(amin(&b, &[], false).unwrap().to_vec::<bool>(), vec![false]);
    // Row strategy: [2, 20] reduced over dim 0.
    let w = arf(40, &[2, 20]);
    assert_eq!(
        amax(&w, &[0], false).unwrap().to_vec::<f32>(),
        (20..40).map(|v| v as f32).collect::<Vec<_>>()
    );
    assert_eq!(
        amin(&w, &[0], false).unwrap().to_vec::<f32>(),
        (0..20).map(|v| v as f32).collect::<Vec<_>>()
    );
}

#[test]
fn amax_empty_errors() {
    let e = Tensor::zeros(&[0, 3], DType::Float32).unwrap();
    let err = amax(&e, &[0], false).unwrap_err();
    assert_eq!(
        (err.kind, err.message.as_str()),
        (
            ErrorKind::Index,
            "amax(): Expected reduction dim 0 to have non-zero size."
        )
    );
    let err = amin(&e, &[-2], false).unwrap_err();
    assert_eq!(
        err.message,
        "amin(): Expected reduction dim -2 to have non-zero size."
    );
    let err = amax(&e, &[], false).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Runtime);
    assert!(err
        .message
        .starts_with("amax(): Expected reduction dim to be specified for input.numel() == 0."));
    let r = amax(&e, &[1], false).unwrap();
    assert_eq!(r.sizes(), &[0]);
}

#[test]
fn argmax_argmin() {
    let x = t(vec![1.0f32, 5.0, 5.0, 0.0, -2.0, 0.0], &[2, 3]);
    let r = argmax(&x, None, false).unwrap();
    assert_eq!(
        (r.dtype(), r.sizes(), r.to_vec::<i64>()),
        (DType::Int64, &[][..], vec![1])
    );
    assert_eq!(argmin(&x, None, false).unwrap().to_vec::<i64>(), vec![4]);
    let r = argmax(&x, None, true).unwrap();
    assert_eq!(r.sizes(), &[1, 1]);
    assert_eq!(
        argmax(&x, Some(1), false).unwrap().to_vec::<i64>(),
        vec![1, 0]
    );
    assert_eq!(
        argmin(&x, Some(1), false).unwrap().to_vec::<i64>(),
        vec![0, 1]
    );
    let r = argmax(&x, Some(0), true).unwrap();
    assert_eq!((r.sizes(), r.to_vec::<i64>()), (&[1, 3][..], vec![0, 0, 0]));
    assert_eq!(
        argmin(&x, Some(-2), false).unwrap().to_vec::<i64>(),
        vec![1, 1, 1]
    );
    // Transposed view: flattened index follows the view's logical order.
    let xt = tr(&x); // [[1, 0], [5, -2], [5, 0]]
    assert_eq!(argmax(&xt, None, false).unwrap().to_vec::<i64>(), vec![2]);
    assert_eq!(argmin(&xt, None, false).unwrap().to_vec::<i64>(), vec![3]);
    assert_eq!(
        argmax(&xt, Some(0), false).unwrap().to_vec::<i64>(),
        vec![1, 0]
    );
    // NaN counts as the max and the min; the first NaN wins.
    let n = t(vec![1.0f64, f64::NAN, 9.0, f64::NAN], &[4]);
    assert_eq!(argmax(&n, None, false).unwrap().to_vec::<i64>(), vec![1]);
    assert_eq!(argmin(&n, Some(0), false).unwrap().to_vec::<i64>(), vec![1]);
    // Ints, 0-dim.
    let i = t(vec![3u8, 9, 9, 1], &[4]);
    assert_eq!(argmax(&i, Some(0), false).unwrap().to_vec::<i64>(), vec![1]);
    let s = t(vec![4i32], &[]);
    let r = argmax(&s, Some(0), true).unwrap();
    assert_eq!((r.sizes(), r.to_vec::<i64>()), (&[][..], vec![0]));
    assert_eq!(argmin(&s, None, false).unwrap().to_vec::<i64>(), vec![0]);
}

#[test]
fn long_rows_and_columns() {
    // Contiguous scans longer than the lane count: ties keep the first, NaN wins.
    let mut v: Vec<f32> = (0..20).map(|k| (k % 7) as f32).collect();
    assert_eq!(
        argmax(&t(v.clone(), &[20]), None, false)
            .unwrap()
            .to_vec::<i64>(),
        vec![6]
    );
    assert_eq!(
        argmin(&t(v.clone(), &[20]), Some(0), false)
            .unwrap()
            .to_vec::<i64>(),
        vec![0]
    );
    v[2] = 9.0; // a NaN later in the same lane as a larger value must still win
    v[10] = f32::NAN;
    v[17] = f32::NAN;
    let x = t(v.clone(), &[20]);
    assert_eq!(argmax(&x, None, false).unwrap().to_vec::<i64>(), vec![10]);
    assert_eq!(argmin(&x, None, false).unwrap().to_vec::<i64>(), vec![10]);
    assert!(amax(&x, &[], false).unwrap().to_vec::<f32>()[0].is_nan());
    assert!(amin(&x, &[], false).unwrap().to_vec::<f32>()[0].is_nan());
    // Columns of a [3, 20] matrix (rows scanned in memory order).
    let mut m: Vec<f32> = (0..60).map(|k| ((k * 7) % 11) as f32).collect();
    m[20 + 4] = f32::NAN;
    let x = t(m.clone(), &[3, 20]);
    let want_max: Vec<i64> = (0..20)
        .map(|j| {
            if j == 4 {
                return 1;
            }
            let col = [m[j], m[20 + j], m[40 + j]];
            let best = col.iter().cloned().fold(f32::MIN, f32::max);
            col.iter().position(|&c| c == best).unwrap() as i64
        })
        .collect();
    assert_eq!(
        argmax(&x, Some(0), false).unwrap().to_vec::<i64>(),
        want_max
    );
    let r = argmin(&x, Some(0), true).unwrap();
    assert_eq!(r.sizes(), &[1, 20]);
    assert_eq!(r.to_vec::<i64>()[4], 1);
    let am = amax(&x, &[0], false).unwrap().to_vec::<f32>();
    assert!(am[4].is_nan() && am[0] == 8.0 && am[3] == 10.0);
    let ints = t((0..60).map(|k| ((k * 7) % 11) as i64).collect(), &[3, 20]);
    assert_eq!(
        argmax(&ints, Some(0), false).unwrap().to_vec::<i64>()[..4],
        [1, 0, 2, 0]
    );
}

#[test]
fn argmax_errors() {
    let e = Tensor::zeros(&[0], DType::Float32).unwrap();
    let err = argmax(&e, None, false).unwrap_err();
    assert_eq!(
        (err.kind, err.message.as_str()),
        (
            ErrorKind::Index,
            "argmax(): Expected reduction dim to be specified for input.numel() == 0."
        )
    );
    let err = argmin(&e, Some(-1), false).unwrap_err();
    assert_eq!(
        (err.kind, err.message.as_str()),
        (
            ErrorKind::Index,
            "argmin(): Expected reduction dim 0 to have non-zero size."
        )
    );
    let e2 = Tensor::zeros(&[0, 2], DType::Int64).unwrap();
    assert_eq!(argmax(&e2, Some(1), false).unwrap().sizes(), &[0]);
    let b = t(vec![true, false], &[2]);
    let err = argmax(&b, None, false).unwrap_err();
    assert_eq!(
        (err.kind, err.message.as_str()),
        (
            ErrorKind::NotImplemented,
            "argmax(): does not support bool input"
        )
    );
}

#[test]
fn prod_and_var() {
    let x = t(vec![1i64, 2, 3, 4, 5, 6], &[2, 3]);
    assert_eq!(prod(&x, None).unwrap().to_vec::<i64>(), vec![720]);
    assert_eq!(
        prod_dim_int(&x, 1, false, None).unwrap().to_vec::<i64>(),
        vec![6, 120]
    );
    let f = t(vec![1.0f64, 2.0, 3.0, 4.0], &[4]);
    assert_eq!(var(&f, true).unwrap().to_vec::<f64>(), vec![5.0 / 3.0]);
    assert_eq!(
        std(&f, false).unwrap().to_vec::<f64>(),
        vec![1.25f64.sqrt()]
    );
    assert!(var(&x, true).is_err());
}

#[test]
fn strided_inputs_and_errors() {
    use crate::core::error::ErrorKind;
    // [[1, 5, 2], [7, 3, 4]] transposed: var over dim 1 is the column variance.
    let x = t(vec![1.0f32, 5.0, 2.0, 7.0, 3.0, 4.0], &[2, 3]);
    let xt = x.as_strided(vec![3, 2], vec![1, 3], 0);
    assert_eq!(
        var_dim(&xt, Some(&[1]), true, false)
            .unwrap()
            .to_vec::<f32>(),
        vec![18.0, 2.0, 2.0]
    );
    assert_eq!(
        norm(&xt, Some(Scalar::Float(f64::INFINITY)), None, false)
            .unwrap()
            .to_vec::<f32>(),
        vec![7.0]
    );
    assert_eq!(
        cumsum(&xt, 0, None).unwrap().to_vec::<f32>(),
        vec![1.0, 7.0, 6.0, 10.0, 8.0, 14.0]
    );
    let i = t(vec![1i64, 2], &[2]);
    let e = norm(&i, None, None, false).unwrap_err();
    assert_eq!(
        (e.kind, e.message.as_str()),
        (
            ErrorKind::Runtime,
            "linalg.vector_norm only supports floating point and complex dtypes, but got: Long"
        )
    );
    let e = softmax(&i, 0, None).unwrap_err();
    assert_eq!(
        e.message,
        "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'"
    );
    assert_eq!(cumsum(&i, 1, None).unwrap_err().kind, ErrorKind::Index);
    let big = t(vec![1000.0f64, 1000.0], &[2]);
    let l = logsumexp(&big, &[0], false).unwrap().to_vec::<f64>()[0];
    assert!((l - (1000.0 + 2f64.ln())).abs() < 1e-9);
    let u = t(vec![0u8, 3], &[2]);
    let a = all(&u).unwrap();
    assert_eq!((a.dtype(), a.to_vec::<u8>()), (DType::UInt8, vec![0]));
    assert_eq!(count_nonzero(&u, None).unwrap().to_vec::<i64>(), vec![1]);
}

/// The threaded full sum mirrors the serial pairwise tree: bit-identical for any thread
/// count (set to 2 and 3 here; 1 takes the serial kernel itself).
#[test]
fn parallel_sum_is_bitwise_serial() {
    let n = 3_000_017;
    let v: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 10007) as f32 * 1.0e-3 + if i % 97 == 0 { 1.0e4 } else { 0.0 })
        .collect();
    let serial = pairwise_reduce(SumFloat::<true>, &v);
    for threads in [2, 3] {
        crate::core::parallel::set_num_threads(threads);
        let par = par_pairwise_reduce(SumFloat::<true>, &v);
        assert_eq!(par.map(f64::to_bits), Some(serial.to_bits()));
    }
    let x = t(v, &[n]);
    let s = sum(&x, None, false, None).unwrap().to_vec::<f32>();
    assert_eq!(s[0].to_bits(), (serial as f32).to_bits());
    // Integer sums (wrapping, exact): threaded equals the closed form.
    let xi = ar(1 << 19, &[1 << 19]);
    let n = 1i64 << 19;
    let want = n * (n - 1) / 2;
    assert_eq!(
        sum(&xi, None, false, None).unwrap().to_vec::<i64>(),
        vec![want]
    );
}
