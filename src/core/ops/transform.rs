//! src/core/ops/transform.rs: ops that copy elements into a new arrangement (PyTorch:
//! `native/TensorShape.cpp`, `native/TensorTransformations.cpp`, `native/TriangularOps.cpp`) —
//! `contiguous`, `clone`, `cat`, `stack`, `flip`, `roll`, `repeat`, `tile`, `tril`, `triu`,
//! `diag`, `trace`.

use super::plan::{assert_no_overlap, copy_then, Kernel, Plan};
use super::view::wrap_dims_unique;
use crate::core::error::{Error, Result};
use crate::core::ops::{diagonal, narrow, reshape, sum, unsqueeze, view};
use crate::core::promote::result_type;
use crate::core::tensor::{contiguous_strides, maybe_wrap_dim, Tensor};
use std::borrow::Cow;

/// `Tensor.contiguous()`: `input` itself (another handle) when row-major contiguous, else a
/// contiguous copy (torch: `Tensor.contiguous`).
pub fn contiguous(input: &Tensor) -> Result<Tensor> {
    input.contiguous()
}

/// `clone(input)`: a new contiguous tensor with a copy of the values (torch: `torch.clone`;
/// torch preserves a dense input's strides, tensorbind returns row-major).
pub fn clone(input: &Tensor) -> Result<Tensor> {
    input.clone_data()
}

/// torch's legacy rule: 1-D empty tensors (shape `[0]`) are skipped by `cat`.
fn cat_should_skip(t: &Tensor) -> bool {
    t.dim() == 1 && t.sizes()[0] == 0
}

/// `cat(tensors, dim=0)`: the tensors concatenated along `dim`; the result dtype is promoted over
/// all inputs. All non-skipped tensors must have the same number of dims and equal sizes except
/// along `dim`; 1-D tensors of shape `[0]` are skipped (torch's legacy rule), and if every tensor
/// is skipped the result has shape `[0]`. Errors (RuntimeError unless noted): an empty list,
/// a 0-dim input, mismatching dims or sizes, IndexError for an out-of-range `dim`
/// (torch: `torch.cat`).
pub fn cat(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
    cat_plan(tensors, dim)?.run()
}

/// `cat` checked and ready to run (Note [One kernel per op]). Written into `out=`, `out` may
/// share no memory with an input (torch's `assert_no_overlap` in cat's meta step).
pub fn cat_plan(tensors: &[Tensor], dim: i64) -> Result<Plan<'_, impl Kernel + '_>> {
    cat_parts_plan(Cow::Borrowed(tensors), dim)
}

/// `cat` of `tensors` (borrowed, or made by the caller: `stack`'s unsqueezed views).
fn cat_parts_plan(tensors: Cow<'_, [Tensor]>, dim: i64) -> Result<Plan<'_, impl Kernel + '_>> {
    if let Some(pos) = tensors.iter().position(|t| t.dim() == 0) {
        return Err(Error::runtime(format!(
            "zero-dimensional tensor (at position {pos}) cannot be concatenated"
        )));
    }
    if tensors.is_empty() {
        // ValueError, as torch (TORCH_CHECK_VALUE).
        return Err(Error::value(
            "torch.cat(): expected a non-empty list of Tensors",
        ));
    }
    let refs: Vec<&Tensor> = tensors.iter().collect();
    let dtype = result_type(&refs);
    let (d, out_sizes) = match tensors.iter().position(|t| !cat_should_skip(t)) {
        None => (0, vec![0]),
        Some(valid) => {
            let first = &tensors[valid];
            let d = maybe_wrap_dim(dim, first.dim())?;
            let mut size_at_dim = 0usize;
            for (i, t) in tensors.iter().enumerate() {
                if cat_should_skip(t) {
                    continue;
                }
                if t.dim() != first.dim() {
                    return Err(Error::runtime(format!(
                        "Tensors must have same number of dimensions: got {} and {}",
                        first.dim(),
                        t.dim()
                    )));
                }
                for k in 0..first.dim() {
                    if k != d && first.sizes()[k] != t.sizes()[k] {
                        return Err(Error::runtime(format!(
                            "Sizes of tensors must match except in dimension {d}. Expected size {} but got size {} for tensor number {i} in the list.",
                            first.sizes()[k],
                            t.sizes()[k]
                        )));
                    }
                }
                size_at_dim = size_at_dim
                    .checked_add(t.sizes()[d])
                    .ok_or_else(|| Error::runtime("cat(): the result size overflows"))?;
            }
            let mut out_sizes = first.sizes().to_vec();
            out_sizes[d] = size_at_dim;
            (d, out_sizes)
        }
    };
    Ok(Plan::new(
        Cow::Owned(out_sizes),
        dtype,
        [None, None, None],
        move |out: &Tensor, fresh: bool| {
            if !fresh {
                for t in tensors.iter() {
                    assert_no_overlap(out, t)?;
                }
            }
            let mut pos = 0usize;
            for t in tensors.iter() {
                if cat_should_skip(t) {
                    continue;
                }
                let len = t.sizes()[d];
                if len > 0 {
                    narrow(out, d as i64, pos as i64, len as i64)?.copy_from(t)?;
                }
                pos += len;
            }
            Ok(())
        },
    ))
}

/// `stack(tensors, dim=0)`: the tensors (all of one shape) stacked along a new dim `dim`, which
/// ranges over `[-ndim-1, ndim]`; the dtype is promoted as in `cat`. Errors (RuntimeError):
/// an empty list ("stack expects a non-empty TensorList"), unequal shapes ("stack expects each
/// tensor to be equal size, but got [2] at entry 0 and [3] at entry 1"; torch checks this only
/// for a new dim before the last, the last-dim case reports `cat`'s error) (torch: `torch.stack`).
pub fn stack(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
    stack_plan(tensors, dim)?.run()
}

/// `stack` checked and ready to run (Note [One kernel per op]): `cat` of the unsqueezed
/// tensors.
pub fn stack_plan(tensors: &[Tensor], dim: i64) -> Result<Plan<'static, impl Kernel>> {
    let Some(first) = tensors.first() else {
        return Err(Error::runtime("stack expects a non-empty TensorList"));
    };
    let d = maybe_wrap_dim(dim, first.dim() + 1)?;
    if d < first.dim() {
        for (i, t) in tensors.iter().enumerate().skip(1) {
            if t.sizes() != first.sizes() {
                return Err(Error::runtime(format!(
                    "stack expects each tensor to be equal size, but got {:?} at entry 0 and {:?} at entry {i}",
                    first.sizes(),
                    t.sizes()
                )));
            }
        }
    }
    let parts = tensors
        .iter()
        .map(|t| unsqueeze(t, d as i64))
        .collect::<Result<Vec<_>>>()?;
    cat_parts_plan(Cow::Owned(parts), d as i64)
}

/// `flip(input, dims)`: a copy with the order of elements reversed along each of `dims`.
/// Errors: IndexError for a dim out of range, RuntimeError "dim 0 appears multiple times in the
/// list of dims" (torch: `torch.flip`).
pub fn flip(input: &Tensor, dims: &[i64]) -> Result<Tensor> {
    let ds = wrap_dims_unique(dims, input.dim())?;
    let mut strides = input.strides().to_vec();
    let mut off = input.storage_offset() as isize;
    if input.numel() > 0 {
        for &d in ds.iter().filter(|_| input.dim() > 0) {
            off += (input.sizes()[d] as isize - 1) * strides[d];
            strides[d] = -strides[d];
        }
    }
    input
        .as_strided(input.sizes(), strides, off as usize)
        .clone_data()
}

/// `roll(input, shifts, dims=[])`: a copy with elements shifted by `shifts[i]` along `dims[i]`
/// (wrapping around); with no `dims` the flattened tensor is rolled and the shape restored.
/// Errors: RuntimeError "`shifts` required", "shifts and dimensions must align. shifts: 2,
/// dims:1"; IndexError for a dim out of range (torch: `torch.roll`).
pub fn roll(input: &Tensor, shifts: &[i64], dims: &[i64]) -> Result<Tensor> {
    if shifts.is_empty() {
        return Err(Error::runtime("`shifts` required"));
    }
    if dims.is_empty() && shifts.len() == 1 {
        let flat = reshape(input, &[-1])?;
        let r = roll(&flat, shifts, &[0])?;
        let shape: Vec<i64> = input.sizes().iter().map(|&s| s as i64).collect();
        return view(&r, &shape);
    }
    if shifts.len() != dims.len() {
        return Err(Error::runtime(format!(
            "shifts and dimensions must align. shifts: {}, dims:{}",
            shifts.len(),
            dims.len()
        )));
    }
    let mut cur = input.clone();
    for (&s, &d) in shifts.iter().zip(dims) {
        if input.dim() == 0 {
            // torch wraps roll's dims without the 0-dim-as-1-dim allowance.
            return Err(Error::index(format!(
                "Dimension specified as {d} but tensor has no dimensions"
            )));
        }
        let w = maybe_wrap_dim(d, input.dim())?;
        if input.dim() == 0 || input.numel() == 0 {
            continue;
        }
        let n = input.sizes()[w] as i64;
        let s = s.rem_euclid(n);
        if s == 0 {
            continue;
        }
        let parts = [
            narrow(&cur, w as i64, n - s, s)?,
            narrow(&cur, w as i64, 0, n - s)?,
        ];
        cur = cat(&parts, w as i64)?;
    }
    if cur.is_same(input) {
        cur = input.clone_data()?;
    }
    Ok(cur)
}

/// `repeat(input, repeats)` (method): a copy tiled `repeats[i]` times along each dim; `repeats`
/// may have more entries than `input` has dims (leading dims of size 1 are added). Errors:
/// RuntimeError "Number of dimensions of repeat dims can not be smaller than number of dimensions
/// of tensor", "Trying to create tensor with negative dimension -1: [-1, 3]" (torch:
/// `Tensor.repeat`).
pub fn repeat(input: &Tensor, repeats: &[i64]) -> Result<Tensor> {
    let nd = input.dim();
    if repeats.len() < nd {
        return Err(Error::runtime(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor",
        ));
    }
    let lead = repeats.len() - nd;
    let mut in_sizes = vec![1usize; lead];
    in_sizes.extend_from_slice(input.sizes());
    let mut in_strides = vec![0isize; lead];
    in_strides.extend_from_slice(input.strides());
    let target: Vec<i64> = repeats
        .iter()
        .zip(&in_sizes)
        .map(|(&r, &s)| r.saturating_mul(s as i64))
        .collect();
    if let Some(&neg) = target.iter().find(|&&v| v < 0) {
        return Err(Error::runtime(format!(
            "Trying to create tensor with negative dimension {neg}: {target:?}"
        )));
    }
    // [r0, s0, r1, s1, ...] with stride 0 on the repeat dims, copied, then merged pairwise.
    let mut sizes = Vec::with_capacity(2 * repeats.len());
    let mut strides = Vec::with_capacity(2 * repeats.len());
    for ((&r, &s), &st) in repeats.iter().zip(&in_sizes).zip(&in_strides) {
        sizes.push(r as usize);
        strides.push(0);
        sizes.push(s);
        strides.push(st);
    }
    let out_sizes: Vec<usize> = target.iter().map(|&v| v as usize).collect();
    crate::core::tensor::checked_numel(&out_sizes)?;
    let expanded = input.as_strided(sizes, strides, input.storage_offset());
    let copy = expanded.clone_data()?;
    let st = contiguous_strides(&out_sizes);
    Ok(copy.as_strided(out_sizes, st, 0))
}

/// `tile(input, dims)`: `repeat` with `dims` padded with leading 1s to `input`'s rank (torch:
/// `torch.tile`).
pub fn tile(input: &Tensor, dims: &[i64]) -> Result<Tensor> {
    let nd = input.dim();
    if dims.len() < nd {
        let mut d = vec![1i64; nd - dims.len()];
        d.extend_from_slice(dims);
        return repeat(input, &d);
    }
    repeat(input, dims)
}

/// The plan of `tril` (`lower`) or `triu`: a copy of `input` with one triangle of each matrix
/// (the last two dims) zeroed.
fn tri_plan(input: &Tensor, diagonal: i64, lower: bool) -> Result<Plan<'_, impl Kernel + '_>> {
    let name = if lower { "tril" } else { "triu" };
    if input.dim() < 2 {
        return Err(Error::runtime(format!(
            "{name}: input tensor must have at least 2 dimensions"
        )));
    }
    Ok(copy_then(
        input,
        Cow::Borrowed(input.sizes()),
        [None, None],
        move |out| {
            zero_triangle(out, diagonal, lower);
            Ok(())
        },
    ))
}

/// Zero the elements of each matrix of `out` (its last two dims, any strides) above (`lower`)
/// or below the `diagonal`-th diagonal.
fn zero_triangle(out: &Tensor, diagonal: i64, lower: bool) {
    let nd = out.dim();
    let (rows, cols) = (out.sizes()[nd - 2], out.sizes()[nd - 1]);
    let (rs, cs) = (out.strides()[nd - 2], out.strides()[nd - 1]);
    let batch = &out.sizes()[..nd - 2];
    if out.numel() == 0 {
        return;
    }
    crate::dispatch!(out.dtype(), T => {
        let p = out.data_ptr::<T>();
        // The batch dims as an odometer over their offsets.
        let mut index = vec![0usize; batch.len()];
        loop {
            let base: isize = index.iter().zip(out.strides()).map(|(&i, &s)| i as isize * s).sum();
            for i in 0..rows {
                for j in 0..cols {
                    let k = j as i64 - i as i64;
                    if (lower && k > diagonal) || (!lower && k < diagonal) {
                        // SAFETY: `i < rows`, `j < cols` and the batch index is within `out`'s
                        // sizes, so the offset addresses an element of `out`.
                        unsafe { *p.offset(base + i as isize * rs + j as isize * cs) = T::default() };
                    }
                }
            }
            let mut d = batch.len();
            loop {
                if d == 0 {
                    return;
                }
                d -= 1;
                index[d] += 1;
                if index[d] < batch[d] {
                    break;
                }
                index[d] = 0;
            }
        }
    })
}

/// `tril(input, diagonal=0)`: a copy with the elements above the `diagonal`-th diagonal of the
/// last two dims zeroed. RuntimeError "tril: input tensor must have at least 2 dimensions"
/// (torch: `torch.tril`).
pub fn tril(input: &Tensor, diagonal: i64) -> Result<Tensor> {
    tril_plan(input, diagonal)?.run()
}

/// `tril` checked and ready to run (Note [One kernel per op]).
pub fn tril_plan(input: &Tensor, diagonal: i64) -> Result<Plan<'_, impl Kernel + '_>> {
    tri_plan(input, diagonal, true)
}

/// `triu(input, diagonal=0)`: a copy with the elements below the `diagonal`-th diagonal zeroed;
/// otherwise as `tril`.
pub fn triu(input: &Tensor, diagonal: i64) -> Result<Tensor> {
    triu_plan(input, diagonal)?.run()
}

/// `triu` checked and ready to run (Note [One kernel per op]).
pub fn triu_plan(input: &Tensor, diagonal: i64) -> Result<Plan<'_, impl Kernel + '_>> {
    tri_plan(input, diagonal, false)
}

/// `diag(input, diagonal=0)`: for a 1-D input, the square matrix with it on the `diagonal`-th
/// diagonal; for a 2-D input, a copy of that diagonal (1-D). RuntimeError "diag(): Supports 1D or
/// 2D tensors. Got 3D" (torch: `torch.diag`).
pub fn diag(input: &Tensor, diagonal: i64) -> Result<Tensor> {
    diag_plan(input, diagonal)?.run()
}

/// `diag` checked and ready to run (Note [One kernel per op]).
pub fn diag_plan(input: &Tensor, diagonal: i64) -> Result<Plan<'_, impl Kernel + '_>> {
    let shape = match input.dim() {
        1 => {
            let n = input.sizes()[0] + diagonal.unsigned_abs() as usize;
            vec![n, n]
        }
        2 => self::diagonal(input, diagonal, 0, 1)?.sizes().to_vec(),
        k => {
            return Err(Error::runtime(format!(
                "diag(): Supports 1D or 2D tensors. Got {k}D"
            )))
        }
    };
    Ok(Plan::new(
        Cow::Owned(shape),
        input.dtype(),
        [Some(input), None, None],
        move |out: &Tensor, fresh: bool| {
            if !fresh {
                assert_no_overlap(out, input)?;
            }
            if input.dim() == 1 {
                out.fill_cast(crate::core::Scalar::Int(0));
                self::diagonal(out, diagonal, 0, 1)?.copy_from(input)
            } else {
                out.copy_from(&self::diagonal(input, diagonal, 0, 1)?)
            }
        },
    ))
}

/// `trace(input)`: the sum of the main diagonal of a matrix, a 0-dim tensor (int64 for bool and
/// integer inputs). RuntimeError "trace: expected a matrix, but got tensor with dim 3" (torch:
/// `torch.trace`).
pub fn trace(input: &Tensor) -> Result<Tensor> {
    if input.dim() != 2 {
        return Err(Error::runtime(format!(
            "trace: expected a matrix, but got tensor with dim {}",
            input.dim()
        )));
    }
    sum(&diagonal(input, 0, 0, 1)?, None, false, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::dtype::{DType, Element};
    use crate::core::error::ErrorKind;
    use crate::core::ops::*;

    fn arange_t(n: i64, shape: &[usize]) -> Tensor {
        Tensor::from_vec((0..n).collect::<Vec<i64>>(), shape).unwrap()
    }

    fn t<T: Element>(v: Vec<T>, s: &[usize]) -> Tensor {
        Tensor::from_vec(v, s).unwrap()
    }

    #[test]
    fn cat_promotes_and_skips_legacy_empty() {
        let a = arange_t(4, &[2, 2]);
        let b = Tensor::from_vec(vec![0.5f32, 1.5], &[1, 2]).unwrap();
        let c = cat(&[a.clone(), b.clone()], 0).unwrap();
        assert_eq!(c.dtype(), DType::Float32);
        assert_eq!(c.sizes(), &[3, 2]);
        assert_eq!(c.to_vec::<f32>(), vec![0.0, 1.0, 2.0, 3.0, 0.5, 1.5]);
        let c = cat(&[a.clone(), a.clone()], -1).unwrap();
        assert_eq!(c.sizes(), &[2, 4]);
        assert_eq!(c.to_vec::<i64>(), vec![0, 1, 0, 1, 2, 3, 2, 3]);
        // Non-contiguous input.
        let at = transpose(&a, 0, 1).unwrap();
        assert_eq!(
            cat(&[at, a.clone()], 1).unwrap().to_vec::<i64>(),
            vec![0, 2, 0, 1, 1, 3, 2, 3]
        );
        // Legacy skip of shape-[0] tensors, which still take part in promotion.
        let empty = Tensor::zeros(&[0], DType::Float64).unwrap();
        let c = cat(&[empty.clone(), a.clone()], 1).unwrap();
        assert_eq!((c.sizes(), c.dtype()), (&[2usize, 2][..], DType::Float64));
        let c = cat(&[empty.clone(), empty.clone()], 3).unwrap();
        assert_eq!(c.sizes(), &[0]);
        // Bool + uint8 -> uint8.
        let bb = Tensor::from_vec(vec![true, false], &[2]).unwrap();
        let u = Tensor::from_vec(vec![7u8], &[1]).unwrap();
        let c = cat(&[bb, u], 0).unwrap();
        assert_eq!(c.to_vec::<u8>(), vec![1, 0, 7]);
    }

    #[test]
    fn cat_errors() {
        let e = cat(&[], 0).unwrap_err();
        assert_eq!(
            e.message,
            "torch.cat(): expected a non-empty list of Tensors"
        );
        let a = arange_t(4, &[2, 2]);
        let b = arange_t(6, &[2, 3]);
        let e = cat(&[a.clone(), b.clone()], 0).unwrap_err();
        assert_eq!(e.message, "Sizes of tensors must match except in dimension 0. Expected size 2 but got size 3 for tensor number 1 in the list.");
        let c = arange_t(6, &[3, 2]);
        let e = cat(&[a.clone(), c], 1).unwrap_err();
        assert_eq!(e.message, "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for tensor number 1 in the list.");
        let e = cat(&[a.clone(), arange_t(2, &[2])], 0).unwrap_err();
        assert_eq!(
            e.message,
            "Tensors must have same number of dimensions: got 2 and 1"
        );
        let z = Tensor::zeros(&[], DType::Float32).unwrap();
        let e = cat(&[a.clone(), z], 0).unwrap_err();
        assert_eq!(
            e.message,
            "zero-dimensional tensor (at position 1) cannot be concatenated"
        );
        let e = cat(&[a], 2).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Index);
    }

    #[test]
    fn stack_cases() {
        let a = arange_t(3, &[3]);
        let b = Tensor::from_vec(vec![10i32, 11, 12], &[3]).unwrap();
        let s = stack(&[a.clone(), b.clone()], 0).unwrap();
        assert_eq!((s.sizes(), s.dtype()), (&[2usize, 3][..], DType::Int64));
        assert_eq!(s.to_vec::<i64>(), vec![0, 1, 2, 10, 11, 12]);
        let s = stack(&[a.clone(), b.clone()], -1).unwrap();
        assert_eq!(s.sizes(), &[3, 2]);
        assert_eq!(s.to_vec::<i64>(), vec![0, 10, 1, 11, 2, 12]);
        let z = Tensor::from_vec(vec![5i64], &[]).unwrap();
        assert_eq!(
            stack(&[z.clone(), z], 0).unwrap().to_vec::<i64>(),
            vec![5, 5]
        );
        let e = stack(&[], 0).unwrap_err();
        assert_eq!(e.message, "stack expects a non-empty TensorList");
        let e = stack(&[arange_t(2, &[2]), a.clone()], 0).unwrap_err();
        assert_eq!(
            e.message,
            "stack expects each tensor to be equal size, but got [2] at entry 0 and [3] at entry 1"
        );
        let e = stack(&[a.clone(), a], 3).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Index);
    }

    #[test]
    fn contiguous_and_clone() {
        let t = arange_t(6, &[2, 3]);
        let c = contiguous(&t).unwrap();
        assert!(c.shares_storage(&t));
        let tt = transpose(&t, 0, 1).unwrap();
        let c = contiguous(&tt).unwrap();
        assert!(!c.shares_storage(&t) && c.is_contiguous());
        let k = clone(&t).unwrap();
        assert!(!k.shares_storage(&t));
        assert_eq!(k.to_vec::<i64>(), t.to_vec::<i64>());
    }

    #[test]
    fn copies() {
        let x = t((0..6i64).collect(), &[2, 3]);
        assert_eq!(
            flip(&x, &[1]).unwrap().to_vec::<i64>(),
            vec![2, 1, 0, 5, 4, 3]
        );
        assert_eq!(
            roll(&x, &[1], &[]).unwrap().to_vec::<i64>(),
            vec![5, 0, 1, 2, 3, 4]
        );
        let r = repeat(&t(vec![1i64, 2], &[2]), &[2, 2]).unwrap();
        assert_eq!(
            (r.sizes(), r.to_vec::<i64>()),
            (&[2, 4][..], vec![1, 2, 1, 2, 1, 2, 1, 2])
        );
        assert_eq!(tril(&x, 0).unwrap().to_vec::<i64>(), vec![0, 0, 0, 3, 4, 0]);
        assert_eq!(trace(&x).unwrap().to_vec::<i64>(), vec![4]);
        let i = t(vec![2i64, 0], &[2]);
        assert_eq!(
            index_select(&x, 1, &i).unwrap().to_vec::<i64>(),
            vec![2, 0, 5, 3]
        );
        assert_eq!(
            take(&x, &t(vec![-1i64], &[1])).unwrap().to_vec::<i64>(),
            vec![5]
        );
    }
}
