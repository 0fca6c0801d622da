//! src/core/ops/tests/binary.rs: tests of src/core/ops/binary.rs.

use super::*;
use crate::core::dtype::Element;
use crate::core::error::ErrorKind;
use crate::core::ops::*;

fn t<T: Element>(v: Vec<T>, shape: &[usize]) -> Tensor {
    Tensor::from_vec(v, shape).unwrap()
}

fn w(s: impl Into<Scalar>) -> Tensor {
    Tensor::wrapped_scalar(s.into()).unwrap()
}

// The in-place and `out=` forms, as the bindings run them (Note [One kernel per op]).
fn add_(s: &Tensor, o: &Tensor, alpha: Scalar) -> Result<()> {
    add_plan(s, o, alpha)?.run_into(s)
}
fn sub_(s: &Tensor, o: &Tensor, alpha: Scalar) -> Result<()> {
    sub_plan(s, o, alpha)?.run_into(s)
}
fn mul_(s: &Tensor, o: &Tensor) -> Result<()> {
    mul_plan(s, o)?.run_into(s)
}
fn div_(s: &Tensor, o: &Tensor, mode: Option<&str>) -> Result<()> {
    div_plan(s, o, mode)?.run_into(s)
}
fn add_out(out: &Tensor, a: &Tensor, b: &Tensor, alpha: Scalar) -> Result<()> {
    add_plan(a, b, alpha)?.run_into(out)
}
fn sub_out(out: &Tensor, a: &Tensor, b: &Tensor, alpha: Scalar) -> Result<()> {
    sub_plan(a, b, alpha)?.run_into(out)
}
fn mul_out(out: &Tensor, a: &Tensor, b: &Tensor) -> Result<()> {
    mul_plan(a, b)?.run_into(out)
}
fn div_out(out: &Tensor, a: &Tensor, b: &Tensor, mode: Option<&str>) -> Result<()> {
    div_plan(a, b, mode)?.run_into(out)
}

fn msg(r: Result<impl std::fmt::Debug>) -> (ErrorKind, String) {
    let e = r.unwrap_err();
    (e.kind, e.message)
}

/// Large dense adds take the threaded path (when more than one thread is configured) and
/// must equal a plain serial loop exactly: new output, scalar operand, alpha, in place.
#[test]
fn parallel_add_matches_serial_loop() {
    crate::core::parallel::set_num_threads(3);
    let n = (1 << 19) + 123;
    let xa: Vec<f32> = (0..n).map(|i| (i % 1013) as f32 * 0.37 - 91.0).collect();
    let xb: Vec<f32> = (0..n).map(|i| (i % 777) as f32 * 1.3e-3 + 0.5).collect();
    let (a, b) = (
        Tensor::from_vec(xa.clone(), &[n]).unwrap(),
        Tensor::from_vec(xb.clone(), &[n]).unwrap(),
    );
    let want: Vec<f32> = xa.iter().zip(&xb).map(|(x, y)| x + y).collect();
    assert_eq!(add(&a, &b, Scalar::Int(1)).unwrap().to_vec::<f32>(), want);
    let want2: Vec<f32> = xa.iter().zip(&xb).map(|(x, y)| x + 2.0 * y).collect();
    assert_eq!(add(&a, &b, Scalar::Int(2)).unwrap().to_vec::<f32>(), want2);
    let s = Tensor::wrapped_scalar(Scalar::Float(2.5)).unwrap();
    let want3: Vec<f32> = xa.iter().map(|x| x + 2.5).collect();
    assert_eq!(add(&a, &s, Scalar::Int(1)).unwrap().to_vec::<f32>(), want3);
    let want4: Vec<f32> = xa.iter().zip(&xb).map(|(x, y)| x * y).collect();
    assert_eq!(mul(&a, &b).unwrap().to_vec::<f32>(), want4);
    add_(&a, &b, Scalar::Int(1)).unwrap();
    assert_eq!(a.to_vec::<f32>(), want);
}

#[test]
fn out_entry_points_write_in_place_and_check() {
    let a = t(vec![1.0f32, 2.0, 3.0], &[3]);
    let out = Tensor::zeros(&[3], DType::Float64).unwrap();
    add_out(&out, &a, &w(0.5), Scalar::Int(2)).unwrap();
    assert_eq!(out.to_vec::<f64>(), vec![2.0, 3.0, 4.0]);
    // out is the first input; out is a shifted view of the input (torch's partial overlap
    // error, out untouched)
    mul_out(&a, &a, &w(2i64)).unwrap();
    assert_eq!(a.to_vec::<f32>(), vec![2.0, 4.0, 6.0]);
    let x = t(vec![1i64, 2, 3, 4], &[4]);
    let (head, tail) = (
        x.as_strided(vec![3], vec![1], 0),
        x.as_strided(vec![3], vec![1], 1),
    );
    assert!(sub_out(&tail, &head, &w(1i64), Scalar::Int(1)).is_err());
    assert_eq!(x.to_vec::<i64>(), vec![1, 2, 3, 4]);
    let i = Tensor::zeros(&[3], DType::Int64).unwrap();
    assert_eq!(
        msg(div_out(
            &i,
            &x.as_strided(vec![3], vec![1], 0),
            &w(2i64),
            None
        )),
        (
            ErrorKind::Runtime,
            "result type Float can't be cast to the desired output type Long".into()
        )
    );
    assert_eq!(
        msg(add_out(&i, &x, &w(1i64), Scalar::Int(1))),
        (
            ErrorKind::Runtime,
            "output with shape [3] doesn't match the broadcast shape [4]".into()
        )
    );
    let one = t(vec![1.0f64], &[1]);
    let p = add_plan(&x, &one, Scalar::Int(1)).unwrap();
    assert_eq!((p.shape(), p.dtype()), (&[4usize][..], DType::Float64));
}

#[test]
fn promotion_with_python_scalars() {
    let a = t(vec![1i32, 2, 3], &[3]);
    let r = add(&a, &w(2.5), Scalar::Int(1)).unwrap();
    assert_eq!(r.dtype(), DType::Float32);
    assert_eq!(r.to_vec::<f32>(), vec![3.5, 4.5, 5.5]);
    let r = add(&a, &t(vec![10i64, 20, 30], &[3]), Scalar::Int(1)).unwrap();
    assert_eq!(r.dtype(), DType::Int64);
    assert_eq!(r.to_vec::<i64>(), vec![11, 22, 33]);
    // A 0-dim int64 tensor does not widen an int32 tensor.
    let z = Tensor::scalar_tensor(Scalar::Int(5), DType::Int64).unwrap();
    assert_eq!(add(&a, &z, Scalar::Int(1)).unwrap().dtype(), DType::Int32);
    let u = t(vec![250u8], &[1]);
    let r = add(&u, &w(10i64), Scalar::Int(1)).unwrap();
    assert_eq!(r.dtype(), DType::UInt8);
    assert_eq!(r.to_vec::<u8>(), vec![4]);
    // bool tensor + int → int64; bool + bool → logical or.
    let b = t(vec![true, false, false], &[3]);
    assert_eq!(
        add(&b, &w(1i64), Scalar::Int(1)).unwrap().to_vec::<i64>(),
        vec![2, 1, 1]
    );
    let r = add(&b, &t(vec![true, true, false], &[3]), Scalar::Int(1)).unwrap();
    assert_eq!(r.dtype(), DType::Bool);
    assert_eq!(r.to_vec::<bool>(), vec![true, true, false]);
}

#[test]
fn broadcasting_and_strides() {
    let a = t(vec![0i64, 10, 20], &[3, 1]);
    let b = t(vec![1i64, 2, 3, 4], &[4]);
    let r = add(&a, &b, Scalar::Int(1)).unwrap();
    assert_eq!(r.sizes(), &[3, 4]);
    assert_eq!(
        r.to_vec::<i64>(),
        vec![1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24]
    );
    // Transposed (non-contiguous) operand.
    let m = t((0..6i64).collect(), &[2, 3]);
    let mt = m.as_strided(vec![3, 2], vec![1, 3], 0);
    let r = mul(&mt, &t(vec![1i64, 100], &[2])).unwrap();
    assert_eq!(r.to_vec::<i64>(), vec![0, 300, 1, 400, 2, 500]);
    let r = sub(&mt, &mt.contiguous().unwrap(), Scalar::Int(1)).unwrap();
    assert_eq!(r.to_vec::<i64>(), vec![0; 6]);
    let e = msg(add(&t(vec![1i64, 2, 3], &[3]), &b, Scalar::Int(1)));
    assert_eq!(e.0, ErrorKind::Runtime);
    assert_eq!(
        e.1,
        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0"
    );
    // Empty shapes.
    let r = add(
        &Tensor::zeros(&[0, 3], DType::Float32).unwrap(),
        &w(1.0),
        Scalar::Int(1),
    )
    .unwrap();
    assert_eq!(r.sizes(), &[0, 3]);
    // Scalar on the left, 0-dim result.
    let r = sub(
        &w(10i64),
        &Tensor::scalar_tensor(Scalar::Int(3), DType::Int32).unwrap(),
        Scalar::Int(1),
    )
    .unwrap();
    assert_eq!(
        (r.dim(), r.dtype(), r.to_vec::<i32>()),
        (0, DType::Int32, vec![7])
    );
}

#[test]
fn alpha() {
    let a = t(vec![1i64, 2], &[2]);
    let b = t(vec![3i64, 4], &[2]);
    assert_eq!(
        add(&a, &b, Scalar::Int(2)).unwrap().to_vec::<i64>(),
        vec![7, 10]
    );
    assert_eq!(
        sub(&a, &b, Scalar::Int(2)).unwrap().to_vec::<i64>(),
        vec![-5, -6]
    );
    let f = t(vec![1.0f32, 2.0], &[2]);
    assert_eq!(
        add(&f, &b, Scalar::Float(0.5)).unwrap().to_vec::<f32>(),
        vec![2.5, 4.0]
    );
    assert_eq!(
        msg(add(&a, &b, Scalar::Float(2.0))).1,
        "For integral input tensors, argument alpha must not be a floating point number."
    );
    assert_eq!(
        msg(add(&a, &b, Scalar::Bool(true))).1,
        "Boolean alpha only supported for Boolean results."
    );
    let u = t(vec![1u8], &[1]);
    assert_eq!(
        msg(add(&u, &u, Scalar::Int(300))).1,
        "value cannot be converted to type uint8_t without overflow"
    );
    // uint8 subtraction with alpha wraps.
    assert_eq!(
        sub(&u, &t(vec![2u8], &[1]), Scalar::Int(1))
            .unwrap()
            .to_vec::<u8>(),
        vec![255]
    );
}

#[test]
fn sub_rejects_bools() {
    let b = t(vec![true, false], &[2]);
    assert_eq!(
        msg(sub(&b, &b, Scalar::Int(1))).1,
        "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead."
    );
    assert_eq!(
        msg(sub(&b, &w(true), Scalar::Int(1))).1,
        "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead."
    );
    assert!(msg(sub(&b, &w(1i64), Scalar::Int(1)))
        .1
        .starts_with("Subtraction, the `-` operator, with a bool tensor"));
}

#[test]
fn integer_overflow_wraps() {
    let a = t(vec![i32::MAX, i32::MIN], &[2]);
    assert_eq!(
        add(&a, &w(1i64), Scalar::Int(1)).unwrap().to_vec::<i32>(),
        vec![i32::MIN, i32::MIN + 1]
    );
    assert_eq!(mul(&a, &w(2i64)).unwrap().to_vec::<i32>(), vec![-2, 0]);
    assert_eq!(neg(&a).unwrap().to_vec::<i32>(), vec![-i32::MAX, i32::MIN]);
    let m = t(vec![i64::MIN], &[1]);
    assert_eq!(
        div(&m, &w(-1i64), Some("trunc")).unwrap().to_vec::<i64>(),
        vec![i64::MIN]
    );
    assert_eq!(remainder(&m, &w(-1i64)).unwrap().to_vec::<i64>(), vec![0]);
    assert_eq!(
        floor_divide(&m, &w(-1i64)).unwrap().to_vec::<i64>(),
        vec![i64::MIN]
    );
}

#[test]
fn division() {
    let a = t(vec![1i64, 2, 3], &[3]);
    let r = div(&a, &w(2i64), None).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<f32>()),
        (DType::Float32, vec![0.5, 1.0, 1.5])
    );
    let d = t(vec![1.0f64, -1.0, 0.0], &[3]);
    let r = div(&d, &w(0i64), None).unwrap().to_vec::<f64>();
    assert_eq!((r[0], r[1]), (f64::INFINITY, f64::NEG_INFINITY));
    assert!(r[2].is_nan());
    let s = t(vec![-7i64, 7], &[2]);
    let r = div(&s, &w(2i64), Some("trunc")).unwrap();
    assert_eq!((r.dtype(), r.to_vec::<i64>()), (DType::Int64, vec![-3, 3]));
    assert_eq!(
        floor_divide(&s, &w(2i64)).unwrap().to_vec::<i64>(),
        vec![-4, 3]
    );
    assert_eq!(
        floor_divide(&s, &w(-2i64)).unwrap().to_vec::<i64>(),
        vec![3, -4]
    );
    assert_eq!(
        div(&s, &w(2.0), Some("floor")).unwrap().to_vec::<f32>(),
        vec![-4.0, 3.0]
    );
    let f = t(vec![-7.5f32, 7.5, 0.0, 1.0], &[4]);
    assert_eq!(
        floor_divide(&f, &w(2i64)).unwrap().to_vec::<f32>(),
        vec![-4.0, 3.0, 0.0, 0.0]
    );
    let r = floor_divide(&f, &w(-1.0)).unwrap().to_vec::<f32>();
    assert_eq!(r, vec![7.0, -8.0, -0.0, -1.0]);
    assert!(r[2].is_sign_negative());
    assert_eq!(
        floor_divide(&t(vec![-1.0f32], &[1]), &w(0.0))
            .unwrap()
            .to_vec::<f32>(),
        vec![f32::NEG_INFINITY]
    );
    assert_eq!(
        div(&f, &w(2i64), Some("trunc")).unwrap().to_vec::<f32>(),
        vec![-3.0, 3.0, 0.0, 0.0]
    );
    // uint8 division.
    let u = t(vec![200u8, 7], &[2]);
    assert_eq!(
        floor_divide(&u, &t(vec![3u8, 2], &[2]))
            .unwrap()
            .to_vec::<u8>(),
        vec![66, 3]
    );
}

#[test]
fn division_errors() {
    let s = t(vec![-7i64, 7], &[2]);
    assert_eq!(
        msg(div(&s, &w(2i64), Some("xyz"))).1,
        "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'xyz'"
    );
    let zero = t(vec![1i64, 0], &[2]);
    assert_eq!(
        msg(div(&s, &zero, Some("floor"))),
        (ErrorKind::Runtime, "ZeroDivisionError".into())
    );
    assert_eq!(msg(div(&s, &w(0i64), Some("trunc"))).1, "ZeroDivisionError");
    assert_eq!(msg(remainder(&s, &w(0i64))).1, "ZeroDivisionError");
    // uint8 scalar 256 wraps to 0 in the compute dtype.
    assert_eq!(
        msg(floor_divide(&t(vec![1u8], &[1]), &w(256i64))).1,
        "ZeroDivisionError"
    );
    // Integer true division by zero is fine (float).
    assert_eq!(
        div(&s, &w(0i64), None).unwrap().to_vec::<f32>(),
        vec![f32::NEG_INFINITY, f32::INFINITY]
    );
    let b = t(vec![true], &[1]);
    assert_eq!(
        msg(floor_divide(&b, &b)),
        (
            ErrorKind::NotImplemented,
            "\"div_floor_cpu\" not implemented for 'Bool'".into()
        )
    );
    assert_eq!(
        msg(remainder(&b, &b)).1,
        "\"remainder_cpu\" not implemented for 'Bool'"
    );
    assert_eq!(div(&b, &b, None).unwrap().to_vec::<f32>(), vec![1.0]);
}

#[test]
fn remainder_python_style() {
    let f = t(vec![-7.0f32, 7.0], &[2]);
    assert_eq!(
        remainder(&f, &w(3i64)).unwrap().to_vec::<f32>(),
        vec![2.0, 1.0]
    );
    assert_eq!(
        remainder(&f, &w(-3i64)).unwrap().to_vec::<f32>(),
        vec![-1.0, -2.0]
    );
    let i = t(vec![-7i32, 7, 6], &[3]);
    assert_eq!(
        remainder(&i, &w(3i64)).unwrap().to_vec::<i32>(),
        vec![2, 1, 0]
    );
    assert_eq!(
        remainder(&i, &w(-3i64)).unwrap().to_vec::<i32>(),
        vec![-1, -2, 0]
    );
    let r = remainder(&i, &w(2.5)).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<f32>()),
        (DType::Float32, vec![0.5, 2.0, 1.0])
    );
    let r = remainder(&t(vec![-5.0f64, 5.0], &[2]), &w(f64::INFINITY))
        .unwrap()
        .to_vec::<f64>();
    assert_eq!(r, vec![f64::INFINITY, 5.0]);
}

#[test]
fn powers() {
    let a = t(vec![2i64, 3, -2], &[3]);
    assert_eq!(pow(&a, &w(2i64)).unwrap().to_vec::<i64>(), vec![4, 9, 4]);
    assert_eq!(pow(&a, &w(3i64)).unwrap().to_vec::<i64>(), vec![8, 27, -8]);
    assert_eq!(
        msg(pow(&a, &w(-1i64))).1,
        "Integers to negative integer powers are not allowed."
    );
    let r = pow(&a, &w(-1.0)).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<f32>()),
        (DType::Float32, vec![0.5, 1.0 / 3.0, -0.5])
    );
    // Negative exponent tensors follow powi.
    let base = t(vec![2i64, 1, -1, -1, 0], &[5]);
    let e = t(vec![-1i64, -5, -3, -2, 0], &[5]);
    assert_eq!(
        pow(&base, &e).unwrap().to_vec::<i64>(),
        vec![0, 1, -1, 1, 1]
    );
    // Overflow wraps.
    assert_eq!(
        pow(&t(vec![2i32], &[1]), &w(40i64))
            .unwrap()
            .to_vec::<i32>(),
        vec![0]
    );
    assert_eq!(
        pow(&t(vec![3u8], &[1]), &w(5i64)).unwrap().to_vec::<u8>(),
        vec![243]
    );
    let f = t(vec![4.0f32, 9.0], &[2]);
    assert_eq!(pow(&f, &w(0.5)).unwrap().to_vec::<f32>(), vec![2.0, 3.0]);
    // torch's float shortcuts and the double-precision general case.
    let g = t(vec![4.0f32, -2.0], &[2]);
    assert_eq!(pow(&g, &w(2i64)).unwrap().to_vec::<f32>(), vec![16.0, 4.0]);
    assert_eq!(pow(&g, &w(3.0)).unwrap().to_vec::<f32>(), vec![64.0, -8.0]);
    assert_eq!(
        pow(&g, &w(-2i64)).unwrap().to_vec::<f32>(),
        vec![0.0625, 0.25]
    );
    assert_eq!(pow(&g, &w(-1.0)).unwrap().to_vec::<f32>(), vec![0.25, -0.5]);
    assert_eq!(pow(&g, &w(-0.5)).unwrap().to_vec::<f32>()[0], 0.5);
    assert_eq!(pow(&g, &w(2.5)).unwrap().to_vec::<f32>()[0], 32.0);
    assert!(pow(&g, &w(2.5)).unwrap().to_vec::<f32>()[1].is_nan());
    let r = pow(&t(vec![4i32], &[1]), &w(0.5)).unwrap();
    assert_eq!((r.dtype(), r.to_vec::<f32>()), (DType::Float32, vec![2.0]));
    // Integer exponents are range-checked into the dtype, as torch's Scalar::to.
    assert_eq!(
        msg(pow(&t(vec![3u8], &[1]), &w(300i64))).1,
        "value cannot be converted to type uint8_t without overflow"
    );
    // A 0-dim tensor exponent is not a Python number: powi, no error.
    let z = Tensor::scalar_tensor(Scalar::Int(-1), DType::Int64).unwrap();
    assert_eq!(
        pow(&t(vec![2i64, 1], &[2]), &z).unwrap().to_vec::<i64>(),
        vec![0, 1]
    );
    // Non-contiguous float base.
    let m = t(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2]);
    let mt = m.as_strided(vec![2, 2], vec![1, 2], 0);
    assert_eq!(
        pow(&mt, &w(2i64)).unwrap().to_vec::<f64>(),
        vec![1.0, 9.0, 4.0, 16.0]
    );
    // Scalar base.
    let r = pow(&w(2i64), &t(vec![0i32, 3], &[2])).unwrap();
    assert_eq!((r.dtype(), r.to_vec::<i32>()), (DType::Int32, vec![1, 8]));
    // Bool: copy / fill shortcuts, else not implemented.
    let b = t(vec![true, false], &[2]);
    assert_eq!(
        pow(&b, &w(true)).unwrap().to_vec::<bool>(),
        vec![true, false]
    );
    assert_eq!(
        pow(&b, &w(false)).unwrap().to_vec::<bool>(),
        vec![true, true]
    );
    assert_eq!(pow(&b, &w(2i64)).unwrap().to_vec::<i64>(), vec![1, 0]);
    assert_eq!(
        msg(pow(&b, &b)),
        (
            ErrorKind::NotImplemented,
            "\"pow\" not implemented for 'Bool'".into()
        )
    );
}

#[test]
fn max_min() {
    let a = t(vec![1.0f32, f32::NAN, 3.0], &[3]);
    let b = t(vec![2.0f64, 0.0, f64::NAN], &[3]);
    let r = maximum(&a, &b).unwrap();
    assert_eq!(r.dtype(), DType::Float64);
    let v = r.to_vec::<f64>();
    assert_eq!(v[0], 2.0);
    assert!(v[1].is_nan() && v[2].is_nan());
    assert_eq!(minimum(&a, &b).unwrap().to_vec::<f64>()[0], 1.0);
    let i = t(vec![1i32, 5], &[2]);
    let r = maximum(&i, &t(vec![3i64], &[1])).unwrap();
    assert_eq!((r.dtype(), r.to_vec::<i64>()), (DType::Int64, vec![3, 5]));
    assert_eq!(
        minimum(&i, &t(vec![3i64], &[1])).unwrap().to_vec::<i64>(),
        vec![1, 3]
    );
    let bb = t(vec![true, false], &[2]);
    assert_eq!(
        maximum(&bb, &t(vec![false, false], &[2]))
            .unwrap()
            .to_vec::<bool>(),
        vec![true, false]
    );
}

#[test]
fn in_place() {
    let a = t(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    add_(&a, &t(vec![10.0f32, 20.0, 30.0], &[3]), Scalar::Int(1)).unwrap();
    assert_eq!(a.to_vec::<f32>(), vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
    mul_(&a, &w(2i64)).unwrap();
    assert_eq!(a.to_vec::<f32>()[0], 22.0);
    div_(&a, &w(2i64), None).unwrap();
    sub_(&a, &a.clone(), Scalar::Int(1)).unwrap();
    assert_eq!(a.to_vec::<f32>(), vec![0.0; 6]);
    // Aliasing self: a += a.
    let x = t(vec![1i64, 2, 3], &[3]);
    add_(&x, &x.clone(), Scalar::Int(1)).unwrap();
    assert_eq!(x.to_vec::<i64>(), vec![2, 4, 6]);
    // Result must not grow self.
    let small = t(vec![1.0f32, 2.0, 3.0], &[3]);
    assert_eq!(
        msg(add_(
            &small,
            &Tensor::zeros(&[2, 3], DType::Float32).unwrap(),
            Scalar::Int(1)
        ))
        .1,
        "output with shape [3] doesn't match the broadcast shape [2, 3]"
    );
    // Casts.
    assert_eq!(
        msg(add_(&x, &w(2.5), Scalar::Int(1))).1,
        "result type Float can't be cast to the desired output type Long"
    );
    assert_eq!(
        msg(div_(&x, &w(2i64), None)).1,
        "result type Float can't be cast to the desired output type Long"
    );
    div_(&x, &w(4i64), Some("floor")).unwrap();
    assert_eq!(x.to_vec::<i64>(), vec![0, 1, 1]);
    let u = t(vec![250u8, 1], &[2]);
    add_(&u, &t(vec![10i64, 1], &[2]), Scalar::Int(1)).unwrap();
    assert_eq!((u.dtype(), u.to_vec::<u8>()), (DType::UInt8, vec![4, 2]));
    let fl = t(vec![1.5f32], &[1]);
    mul_(&fl, &t(vec![2.0f64], &[1])).unwrap();
    assert_eq!(
        (fl.dtype(), fl.to_vec::<f32>()),
        (DType::Float32, vec![3.0])
    );
    // Non-contiguous self.
    let m = t((0..6i64).collect(), &[2, 3]);
    let mt = m.as_strided(vec![3, 2], vec![1, 3], 0);
    add_(&mt, &t(vec![100i64, 200], &[2]), Scalar::Int(1)).unwrap();
    assert_eq!(m.to_vec::<i64>(), vec![100, 101, 102, 203, 204, 205]);
    // a.add_(a.t()): the same bytes in another order is torch's partial overlap error.
    let sq = t(vec![1i64, 2, 3, 4], &[2, 2]);
    assert!(add_(
        &sq,
        &sq.as_strided(vec![2, 2], vec![1, 2], 0),
        Scalar::Int(1),
    )
    .is_err());
    assert_eq!(sq.to_vec::<i64>(), vec![1, 2, 3, 4]);
}

#[test]
fn in_place_overlap_errors() {
    let x = t(vec![1.0f32, 2.0, 3.0], &[3]);
    let part = x.as_strided(vec![2], vec![1], 1);
    let head = x.as_strided(vec![2], vec![1], 0);
    assert!(msg(add_(&part, &head, Scalar::Int(1))).1.starts_with(
        "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location."
    ));
    let expanded = x.as_strided(vec![2, 3], vec![0, 1], 0);
    assert!(msg(mul_(&expanded, &w(2i64))).1.starts_with(
        "unsupported operation: more than one element of the written-to tensor refers to a single memory location."
    ));
    assert!(msg(sub_(&t(vec![true], &[1]), &w(true), Scalar::Int(1)))
        .1
        .starts_with("Subtraction"));
    assert_eq!(
        msg(div_(&x, &w(1i64), Some("round"))).1,
        "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'"
    );
}

#[test]
fn bits_and_logic() {
    let a = t(vec![12i32, -1, 5], &[3]);
    let b = t(vec![10i32, 3, 1], &[3]);
    assert_eq!(bitwise_and(&a, &b).unwrap().to_vec::<i32>(), vec![8, 3, 1]);
    assert_eq!(bitwise_xor(&a, &b).unwrap().to_vec::<i32>(), vec![6, -4, 4]);
    assert_eq!(bitwise_not(&a).unwrap().to_vec::<i32>(), vec![-13, 0, -6]);
    assert_eq!(
        msg(bitwise_and(&t(vec![1.0f32], &[1]), &w(1i64))),
        (
            ErrorKind::NotImplemented,
            "\"bitwise_and_cpu\" not implemented for 'Float'".into()
        )
    );
    let s = t(vec![1i64, -8, 1], &[3]);
    assert_eq!(
        bitwise_left_shift(&s, &t(vec![3i64, 1, 64], &[3]))
            .unwrap()
            .to_vec::<i64>(),
        vec![8, -16, 0]
    );
    assert_eq!(
        bitwise_right_shift(&s, &t(vec![1i64, 1, 70], &[3]))
            .unwrap()
            .to_vec::<i64>(),
        vec![0, -4, 0]
    );
    assert_eq!(
        bitwise_right_shift(&t(vec![-8i64], &[1]), &w(100i64))
            .unwrap()
            .to_vec::<i64>(),
        vec![-1]
    );
    let r = logical_xor(&t(vec![0.0f32, f32::NAN, 2.0], &[3]), &w(1i64)).unwrap();
    assert_eq!(r.to_vec::<bool>(), vec![true, false, false]);
    assert_eq!(
        logical_not(&t(vec![0i64, 3], &[2]))
            .unwrap()
            .to_vec::<bool>(),
        vec![true, false]
    );
}

#[test]
fn binary_float_ops() {
    let r = atan2(&t(vec![1i64], &[1]), &t(vec![1i64], &[1])).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<f32>()),
        (DType::Float32, vec![std::f32::consts::FRAC_PI_4])
    );
    assert_eq!(
        hypot(&t(vec![3.0f64], &[1]), &w(4i64))
            .unwrap()
            .to_vec::<f64>(),
        vec![5.0]
    );
    assert_eq!(
        msg(hypot(&t(vec![3i64], &[1]), &w(4i64))).1,
        "\"hypot_cpu\" not implemented for 'Long'"
    );
    assert_eq!(
        fmod(&t(vec![-7i64, 7], &[2]), &w(3i64))
            .unwrap()
            .to_vec::<i64>(),
        vec![-1, 1]
    );
    assert_eq!(
        fmod(&t(vec![-7.5f32, 7.5], &[2]), &w(-2i64))
            .unwrap()
            .to_vec::<f32>(),
        vec![-1.5, 1.5]
    );
    assert_eq!(
        msg(fmod(&t(vec![1i32], &[1]), &w(0i64))).1,
        "ZeroDivisionError"
    );
}
