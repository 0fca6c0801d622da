//! src/core/ops/layout.rs: shape and layout ops — views (`narrow`, `movedim`, `swapaxes`,
//! `swapdims`, `unflatten`, `squeeze.dims`, `diagonal`) and copies (`flip`, `roll`, `repeat`,
//! `tile`, `tril`, `triu`, `diag`, `trace`, `outer`), and the index-driven ops `gather`,
//! `scatter`, `index_select`, `masked_fill`, `masked_select`, `take` (PyTorch:
//! `TensorShape.cpp`, `TensorTransformations.cpp`, `TensorAdvancedIndexing.cpp`).

use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::ops::{cat, infer_size, mul, permute, reshape, sum, transpose, unsqueeze, view};
use crate::core::scalar::Scalar;
use crate::core::tensor::{broadcast_shapes, contiguous_strides, maybe_wrap_dim, Tensor};

/// Wrap every dim of `dims` for `ndim` dims, with torch's duplicate error.
fn wrap_dims_unique(dims: &[i64], ndim: usize) -> Result<Vec<usize>> {
    let mut seen = vec![false; ndim.max(1)];
    let mut out = Vec::with_capacity(dims.len());
    for &d in dims {
        let w = maybe_wrap_dim(d, ndim)?;
        if seen[w] {
            return Err(Error::runtime(format!(
                "dim {w} appears multiple times in the list of dims"
            )));
        }
        seen[w] = true;
        out.push(w);
    }
    Ok(out)
}

// ----- views ----------------------------------------------------------------------------------

/// `narrow(input, dim, start, length)`: the view of `length` elements of `dim` from `start`
/// (negative counts from the end). Errors: RuntimeError "narrow() cannot be applied to a 0-dim
/// tensor.", IndexError for `dim` or "start out of range (expected to be in range of [-3, 3],
/// but got 4)", RuntimeError "narrow(): length must be non-negative." and "start (1) + length
/// (3) exceeds dimension size (3)." (torch: `torch.narrow`).
pub fn narrow(input: &Tensor, dim: i64, start: i64, length: i64) -> Result<Tensor> {
    if input.dim() == 0 {
        return Err(Error::runtime(
            "narrow() cannot be applied to a 0-dim tensor.",
        ));
    }
    if length < 0 {
        return Err(Error::runtime("narrow(): length must be non-negative."));
    }
    let d = maybe_wrap_dim(dim, input.dim())?;
    let cur = input.sizes()[d] as i64;
    if start < -cur || start > cur {
        return Err(Error::index(format!(
            "start out of range (expected to be in range of [{}, {cur}], but got {start})",
            -cur
        )));
    }
    let start = if start < 0 { start + cur } else { start };
    if start > cur - length {
        return Err(Error::runtime(format!(
            "start ({start}) + length ({length}) exceeds dimension size ({cur})."
        )));
    }
    let mut sizes = input.sizes().to_vec();
    sizes[d] = length as usize;
    let offset = if length == 0 {
        input.storage_offset()
    } else {
        (input.storage_offset() as isize + start as isize * input.strides()[d]) as usize
    };
    Ok(input.as_strided(sizes, input.strides(), offset))
}

/// `movedim(input, source, destination)`: a view with dim `source` moved to `destination`
/// (torch: `torch.movedim`). IndexError for a dim out of range.
pub fn movedim(input: &Tensor, source: i64, destination: i64) -> Result<Tensor> {
    movedim_intlist(input, &[source], &[destination])
}

/// `movedim(input, source, destination)` with lists of dims: a view with each `source[i]` moved
/// to `destination[i]`, the other dims keeping their order. Errors: RuntimeError "movedim:
/// Invalid source or destination dims: source (2 dims) should contain the same number of dims as
/// destination (1 dims)", "movedim: repeated dim in `source` ([0, 0])" (likewise
/// `destination`); IndexError for a dim out of range.
pub fn movedim_intlist(input: &Tensor, source: &[i64], destination: &[i64]) -> Result<Tensor> {
    let nd = input.dim();
    if source.len() != destination.len() {
        return Err(Error::runtime(format!(
            "movedim: Invalid source or destination dims: source ({} dims) should contain the same number of dims as destination ({} dims)",
            source.len(),
            destination.len()
        )));
    }
    let wrap_all = |ds: &[i64], name: &str| -> Result<Vec<usize>> {
        let w = ds
            .iter()
            .map(|&d| maybe_wrap_dim(d, nd))
            .collect::<Result<Vec<_>>>()?;
        for i in 0..w.len() {
            if w[..i].contains(&w[i]) {
                return Err(Error::runtime(format!(
                    "movedim: repeated dim in `{name}` ({ds:?})"
                )));
            }
        }
        Ok(w)
    };
    let src = wrap_all(source, "source")?;
    let dst = wrap_all(destination, "destination")?;
    if nd == 0 {
        return Ok(input.as_strided(vec![], vec![], input.storage_offset()));
    }
    let mut order: Vec<Option<usize>> = vec![None; nd];
    for (&s, &d) in src.iter().zip(&dst) {
        order[d] = Some(s);
    }
    let mut rest = (0..nd).filter(|k| !src.contains(k));
    let perm: Vec<i64> = order
        .into_iter()
        .map(|o| o.or_else(|| rest.next()).unwrap_or(0) as i64)
        .collect();
    permute(input, &perm)
}

/// `swapaxes(input, axis0, axis1)`: alias of `transpose` (a view).
pub fn swapaxes(input: &Tensor, axis0: i64, axis1: i64) -> Result<Tensor> {
    transpose(input, axis0, axis1)
}

/// `swapdims(input, dim0, dim1)`: alias of `transpose` (a view).
pub fn swapdims(input: &Tensor, dim0: i64, dim1: i64) -> Result<Tensor> {
    transpose(input, dim0, dim1)
}

/// `unflatten(input, dim, sizes)`: a view with dim `dim` split into `sizes` (one may be -1).
/// Errors: RuntimeError "unflatten: sizes must be non-empty", "unflatten: Provided sizes [2, 2]
/// don't multiply up to the size of dim 1 (3) in the input tensor", or the `view` error for a
/// bad -1 inference; IndexError for `dim` out of range (torch: `torch.unflatten`).
pub fn unflatten(input: &Tensor, dim: i64, sizes: &[i64]) -> Result<Tensor> {
    let d = maybe_wrap_dim(dim, input.dim())?;
    if sizes.is_empty() {
        return Err(Error::runtime("unflatten: sizes must be non-empty"));
    }
    if input.dim() == 0 {
        return Err(Error::index(
            "dimension specified as 0 but tensor has no dimensions",
        ));
    }
    let cur = input.sizes()[d];
    let inferred = if sizes.contains(&-1) {
        infer_size(sizes, cur)?
    } else {
        let prod = sizes.iter().try_fold(1i64, |a, &s| a.checked_mul(s));
        if sizes.iter().any(|&s| s < 0) || prod != Some(cur as i64) {
            return Err(Error::runtime(format!(
                "unflatten: Provided sizes {sizes:?} don't multiply up to the size of dim {d} ({cur}) in the input tensor"
            )));
        }
        sizes.iter().map(|&s| s as usize).collect()
    };
    let mut shape: Vec<i64> = input.sizes()[..d].iter().map(|&s| s as i64).collect();
    shape.extend(inferred.iter().map(|&s| s as i64));
    shape.extend(input.sizes()[d + 1..].iter().map(|&s| s as i64));
    view(input, &shape)
}

/// `squeeze(input, dim)` with a tuple of dims: a view without those of the listed dims that have
/// size 1. Errors: IndexError for a dim out of range, RuntimeError "dim 0 appears multiple times
/// in the list of dims" (torch: `torch.squeeze(input, (0, 1))`).
pub fn squeeze_dims(input: &Tensor, dim: &[i64]) -> Result<Tensor> {
    let ds = wrap_dims_unique(dim, input.dim())?;
    let (sizes, strides): (Vec<usize>, Vec<isize>) = (0..input.dim())
        .filter(|k| !(ds.contains(k) && input.sizes()[*k] == 1))
        .map(|k| (input.sizes()[k], input.strides()[k]))
        .unzip();
    Ok(input.as_strided(sizes, strides, input.storage_offset()))
}

/// `diagonal(input, offset=0, dim1=0, dim2=1)`: a view of the diagonal of the `dim1`×`dim2`
/// planes (above the main one for `offset > 0`), appended as the last dim. Errors: RuntimeError
/// "diagonal dimensions cannot be identical 0, 0"; IndexError for a dim out of range (torch:
/// `torch.diagonal`).
pub fn diagonal(input: &Tensor, offset: i64, dim1: i64, dim2: i64) -> Result<Tensor> {
    let nd = input.dim();
    let d1 = maybe_wrap_dim(dim1, nd)?;
    let d2 = maybe_wrap_dim(dim2, nd)?;
    if d1 == d2 {
        return Err(Error::runtime(format!(
            "diagonal dimensions cannot be identical {dim1}, {dim2}"
        )));
    }
    let (s1, s2) = (input.sizes()[d1] as i64, input.sizes()[d2] as i64);
    let (st1, st2) = (input.strides()[d1], input.strides()[d2]);
    let mut off = input.storage_offset() as isize;
    let size = if offset >= 0 {
        (s1.min(s2 - offset)).max(0)
    } else {
        ((s1 + offset).min(s2)).max(0)
    };
    if size > 0 {
        off += if offset >= 0 {
            offset as isize * st2
        } else {
            -offset as isize * st1
        };
    }
    let mut sizes = Vec::with_capacity(nd - 1);
    let mut strides = Vec::with_capacity(nd - 1);
    for k in (0..nd).filter(|&k| k != d1 && k != d2) {
        sizes.push(input.sizes()[k]);
        strides.push(input.strides()[k]);
    }
    sizes.push(size as usize);
    strides.push(st1 + st2);
    Ok(input.as_strided(sizes, strides, off as usize))
}

// ----- copies ---------------------------------------------------------------------------------

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

fn tri(input: &Tensor, diagonal: i64, lower: bool) -> Result<Tensor> {
    let name = if lower { "tril" } else { "triu" };
    if input.dim() < 2 {
        return Err(Error::runtime(format!(
            "{name}: input tensor must have at least 2 dimensions"
        )));
    }
    let out = input.clone_data()?;
    let nd = out.dim();
    let (rows, cols) = (out.sizes()[nd - 2], out.sizes()[nd - 1]);
    let mats = out.numel().checked_div(rows * cols).unwrap_or(0);
    crate::dispatch!(out.dtype(), T => {
        // SAFETY: `out` is a fresh contiguous tensor owned here.
        let s = unsafe { std::slice::from_raw_parts_mut(out.data_ptr::<T>(), out.numel()) };
        for m in 0..mats {
            for i in 0..rows {
                for j in 0..cols {
                    let k = j as i64 - i as i64;
                    let zero = if lower { k > diagonal } else { k < diagonal };
                    if zero {
                        s[m * rows * cols + i * cols + j] = T::default();
                    }
                }
            }
        }
    });
    Ok(out)
}

/// `tril(input, diagonal=0)`: a copy with the elements above the `diagonal`-th diagonal of the
/// last two dims zeroed. RuntimeError "tril: input tensor must have at least 2 dimensions"
/// (torch: `torch.tril`).
pub fn tril(input: &Tensor, diagonal: i64) -> Result<Tensor> {
    tri(input, diagonal, true)
}

/// `triu(input, diagonal=0)`: a copy with the elements below the `diagonal`-th diagonal zeroed;
/// otherwise as `tril`.
pub fn triu(input: &Tensor, diagonal: i64) -> Result<Tensor> {
    tri(input, diagonal, false)
}

/// `diag(input, diagonal=0)`: for a 1-D input, the square matrix with it on the `diagonal`-th
/// diagonal; for a 2-D input, a copy of that diagonal (1-D). RuntimeError "diag(): Supports 1D or
/// 2D tensors. Got 3D" (torch: `torch.diag`).
pub fn diag(input: &Tensor, diagonal: i64) -> Result<Tensor> {
    match input.dim() {
        1 => {
            let n = input.sizes()[0] + diagonal.unsigned_abs() as usize;
            let out = Tensor::zeros(&[n, n], input.dtype())?;
            let d = self::diagonal(&out, diagonal, 0, 1)?;
            d.copy_from(input)?;
            Ok(out)
        }
        2 => self::diagonal(input, diagonal, 0, 1)?.clone_data(),
        k => Err(Error::runtime(format!(
            "diag(): Supports 1D or 2D tensors. Got {k}D"
        ))),
    }
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

// ----- index-driven ---------------------------------------------------------------------------

/// Visit every position of `shape` in row-major order with its multi-index.
fn for_each_index(shape: &[usize], mut f: impl FnMut(&[usize]) -> Result<()>) -> Result<()> {
    if shape.contains(&0) {
        return Ok(());
    }
    let mut idx = vec![0usize; shape.len()];
    loop {
        f(&idx)?;
        let mut d = shape.len();
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// Element offset of multi-index `idx` in `t` (relative to its data pointer).
fn offset_of(t: &Tensor, idx: &[usize]) -> isize {
    idx.iter()
        .zip(t.strides())
        .map(|(&i, &s)| i as isize * s)
        .sum()
}

/// Index values of an int64 index tensor in logical order (MemoryError, not an abort, when an
/// expanded index is too large to copy).
fn index_values(index: &Tensor) -> Result<Vec<i64>> {
    super::conversion::try_to_vec::<i64>(index)
}

/// `gather(input, dim, index)`: `out[i][j][k] = input[index[i][j][k]][j][k]` (for dim 0), shape
/// of `index`, dtype of `input`. Errors (RuntimeError): "gather(): Expected dtype int64 for
/// index", "Index tensor must have the same number of dimensions as input tensor", "Size does not
/// match at dimension 1 expected index [2, 3] to be smaller than self [2, 2] apart from
/// dimension 0", "index 5 is out of bounds for dimension 0 with size 3"; IndexError for `dim`
/// (torch: `torch.gather`).
pub fn gather(input: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
    let d = maybe_wrap_dim(dim, input.dim())?;
    if index.dtype() != DType::Int64 {
        return Err(Error::runtime("gather(): Expected dtype int64 for index"));
    }
    let (ind, ixd) = (input.dim().max(1), index.dim().max(1));
    if index.numel() != 0 && ind != ixd {
        return Err(Error::runtime(
            "Index tensor must have the same number of dimensions as input tensor",
        ));
    }
    let in_sizes: Vec<usize> = if input.dim() == 0 {
        vec![1]
    } else {
        input.sizes().to_vec()
    };
    let ix_sizes: Vec<usize> = if index.dim() == 0 {
        vec![1]
    } else {
        index.sizes().to_vec()
    };
    if index.numel() != 0 {
        for k in (0..ixd).filter(|&k| k != d) {
            if ix_sizes[k] > in_sizes[k] {
                return Err(Error::runtime(format!(
                    "Size does not match at dimension {k} expected index {:?} to be smaller than self {:?} apart from dimension {d}",
                    index.sizes(),
                    input.sizes()
                )));
            }
        }
    }
    let out = Tensor::zeros(index.sizes(), input.dtype())?;
    let iv = index_values(index)?;
    let in_strides: Vec<isize> = if input.dim() == 0 {
        vec![0]
    } else {
        input.strides().to_vec()
    };
    let n = in_sizes[d] as i64;
    crate::dispatch!(input.dtype(), T => {
        let (pi, po) = (input.data_ptr::<T>() as *const T, out.data_ptr::<T>());
        let mut p = 0usize;
        for_each_index(&ix_sizes, |idx| {
            let v = iv[p];
            if v < 0 || v >= n {
                return Err(Error::runtime(format!(
                    "index {v} is out of bounds for dimension {d} with size {n}"
                )));
            }
            let mut off = 0isize;
            for (k, &i) in idx.iter().enumerate() {
                let i = if k == d { v as usize } else { i };
                off += i as isize * in_strides[k];
            }
            // SAFETY: every coordinate is within `input`'s sizes (checked above), and `p` is
            // below `out`'s element count (one visit per index element, `out` contiguous).
            unsafe { *po.add(p) = *pi.offset(off) };
            p += 1;
            Ok(())
        })
    })?;
    Ok(out)
}

fn scatter_impl(
    input: &Tensor,
    dim: i64,
    index: &Tensor,
    src: Option<&Tensor>,
    value: Scalar,
) -> Result<Tensor> {
    let d = maybe_wrap_dim(dim, input.dim())?;
    if index.dtype() != DType::Int64 {
        return Err(Error::runtime("scatter(): Expected dtype int64 for index"));
    }
    if let Some(s) = src {
        if s.dtype() != input.dtype() {
            return Err(Error::runtime(
                "scatter(): Expected self.dtype to be equal to src.dtype",
            ));
        }
    }
    let out = input.clone_data()?;
    if index.numel() == 0 {
        return Ok(out);
    }
    let (ind, ixd) = (input.dim().max(1), index.dim().max(1));
    if ind != ixd {
        return Err(Error::runtime(
            "Index tensor must have the same number of dimensions as self tensor",
        ));
    }
    let one = |t: &Tensor| -> Vec<usize> {
        if t.dim() == 0 {
            vec![1]
        } else {
            t.sizes().to_vec()
        }
    };
    let (in_sizes, ix_sizes) = (one(input), one(index));
    if let Some(s) = src {
        if s.dim().max(1) != ixd {
            return Err(Error::runtime(
                "Index tensor must have the same number of dimensions as src tensor",
            ));
        }
        let src_sizes = one(s);
        let bad =
            (0..ixd).any(|k| ix_sizes[k] > src_sizes[k] || (k != d && ix_sizes[k] > in_sizes[k]));
        if bad {
            return Err(Error::runtime(format!(
                "Expected index {:?} to be smaller than self {:?} apart from dimension {d} and to be smaller size than src {:?}",
                index.sizes(),
                input.sizes(),
                s.sizes()
            )));
        }
    } else if (0..ixd).any(|k| k != d && ix_sizes[k] > in_sizes[k]) {
        return Err(Error::runtime(format!(
            "Expected index {:?} to be smaller than self {:?} apart from dimension {d}",
            index.sizes(),
            input.sizes()
        )));
    }
    let iv = index_values(index)?;
    let out_strides: Vec<isize> = if out.dim() == 0 {
        vec![0]
    } else {
        out.strides().to_vec()
    };
    let n = in_sizes[d] as i64;
    crate::dispatch!(input.dtype(), T => {
        let po = out.data_ptr::<T>();
        let fill: T = value.to::<T>();
        let mut p = 0usize;
        for_each_index(&ix_sizes, |idx| {
            let v = iv[p];
            p += 1;
            if v < 0 || v >= n {
                return Err(Error::runtime(format!(
                    "index {v} is out of bounds for dimension {d} with size {n}"
                )));
            }
            let x = match src {
                Some(s) => {
                    let so = if s.dim() == 0 { 0 } else { offset_of(s, idx) };
                    // SAFETY: `idx` is within `src`'s sizes (checked above).
                    unsafe { *s.data_ptr::<T>().offset(so) }
                }
                None => fill,
            };
            let mut off = 0isize;
            for (k, &i) in idx.iter().enumerate() {
                let i = if k == d { v as usize } else { i };
                off += i as isize * out_strides[k];
            }
            // SAFETY: every coordinate is within `out`'s sizes (checked above); `out` is a fresh
            // tensor owned here.
            unsafe { *po.offset(off) = x };
            Ok(())
        })
    })?;
    Ok(out)
}

/// `scatter(input, dim, index, src)`: a copy of `input` with `out[index[i][j]][j] = src[i][j]`
/// (for dim 0). Errors (RuntimeError): "scatter(): Expected dtype int64 for index",
/// "scatter(): Expected self.dtype to be equal to src.dtype", "Index tensor must have the same
/// number of dimensions as self tensor", "Expected index [..] to be smaller than self [..] apart
/// from dimension 0 and to be smaller size than src [..]", "index 5 is out of bounds for
/// dimension 0 with size 3" (torch: `torch.scatter`).
pub fn scatter_src(input: &Tensor, dim: i64, index: &Tensor, src: &Tensor) -> Result<Tensor> {
    scatter_impl(input, dim, index, Some(src), Scalar::Int(0))
}

/// `scatter(input, dim, index, value)`: as `scatter_src` with every written element `value`
/// (cast to `input`'s dtype).
pub fn scatter_value(input: &Tensor, dim: i64, index: &Tensor, value: Scalar) -> Result<Tensor> {
    scatter_impl(input, dim, index, None, value)
}

/// `index_select(input, dim, index)`: the entries of `input` at positions `index` (1-D or 0-dim,
/// int64 or int32) along `dim`, a copy. Errors: IndexError "index out of range in self" (also
/// for negative indices) and for `dim`; RuntimeError "index_select(): Index is supposed to be a
/// vector", "index_select(): Expected dtype int32 or int64 for index" (torch:
/// `torch.index_select`).
pub fn index_select(input: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
    let d = maybe_wrap_dim(dim, input.dim())?;
    if index.dim() > 1 {
        return Err(Error::index(
            "index_select(): Index is supposed to be a vector",
        ));
    }
    if input.dim() == 0 && index.numel() != 1 {
        return Err(Error::runtime(format!(
            "index_select(): Index to scalar can have only 1 value, got {} value(s)",
            index.numel()
        )));
    }
    if !matches!(index.dtype(), DType::Int64 | DType::Int32) {
        return Err(Error::runtime(
            "index_select(): Expected dtype int32 or int64 for index",
        ));
    }
    let iv: Vec<i64> = crate::dispatch!(index.dtype(), T => super::conversion::try_map_to_vec(index, |v: T| crate::core::dtype::Element::to_i64(v)))?;
    let n = if input.dim() == 0 {
        1
    } else {
        input.sizes()[d] as i64
    };
    if iv.iter().any(|&v| v < 0 || v >= n) {
        return Err(Error::index("index out of range in self"));
    }
    if input.dim() == 0 {
        let out = input.clone_data()?;
        return if index.dim() == 0 {
            Ok(out)
        } else {
            reshape(&out, &[iv.len() as i64])
        };
    }
    let parts = iv
        .iter()
        .map(|&v| narrow(input, d as i64, v, 1))
        .collect::<Result<Vec<_>>>()?;
    if parts.is_empty() {
        let mut sizes = input.sizes().to_vec();
        sizes[d] = 0;
        return Tensor::zeros(&sizes, input.dtype());
    }
    cat(&parts, d as i64)
}

fn check_bool_mask(mask: &Tensor, what: &str) -> Result<()> {
    if mask.dtype() != DType::Bool {
        return Err(Error::runtime(format!(
            "{what} only supports boolean masks, but got mask with dtype {}",
            mask.dtype().type_meta_name()
        )));
    }
    Ok(())
}

fn masked_fill_impl(input: &Tensor, mask: &Tensor, value: Scalar, checked: bool) -> Result<Tensor> {
    check_bool_mask(mask, "masked_fill_")?;
    let shape = broadcast_shapes(input.sizes(), mask.sizes())?;
    let out = Tensor::zeros(&shape, input.dtype())?;
    out.copy_from(input)?;
    let ms = mask.broadcast_strides(&shape)?;
    let pm = mask.data_ptr::<bool>() as *const bool;
    crate::dispatch!(input.dtype(), T => {
        let v: T = if checked { value.to_checked::<T>()? } else { value.to::<T>() };
        let po = out.data_ptr::<T>();
        crate::core::iter::strided_for_each(&shape, [out.strides(), &ms], |[o, m]| {
            // SAFETY: offsets come from each tensor's own (broadcast) geometry over `shape`;
            // `out` is a fresh tensor owned here.
            unsafe {
                if *pm.offset(m) {
                    *po.offset(o) = v;
                }
            }
        });
    });
    Ok(out)
}

/// `masked_fill(input, mask, value)`: a copy of `input` with `value` where the bool `mask`
/// (broadcast with `input`) is true. Errors: RuntimeError "masked_fill_ only supports boolean
/// masks, but got mask with dtype long int", "value cannot be converted to type uint8_t without
/// overflow", broadcast errors (torch: `torch.masked_fill`).
pub fn masked_fill(input: &Tensor, mask: &Tensor, value: Scalar) -> Result<Tensor> {
    masked_fill_impl(input, mask, value, true)
}

/// `masked_fill(input, mask, value)` with a 0-dim tensor `value` (cast to `input`'s dtype).
/// RuntimeError "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1
/// dimension(s)."; otherwise as `masked_fill`.
pub fn masked_fill_tensor(input: &Tensor, mask: &Tensor, value: &Tensor) -> Result<Tensor> {
    if value.dim() != 0 {
        return Err(Error::runtime(format!(
            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
            value.dim()
        )));
    }
    masked_fill_impl(input, mask, value.item()?, false)
}

/// `masked_select(input, mask)`: the 1-D tensor of the elements of `input` where the bool `mask`
/// is true, after broadcasting both. RuntimeError "masked_select: expected BoolTensor for mask"
/// (torch: `torch.masked_select`).
pub fn masked_select(input: &Tensor, mask: &Tensor) -> Result<Tensor> {
    if mask.dtype() != DType::Bool {
        return Err(Error::runtime(
            "masked_select: expected BoolTensor for mask",
        ));
    }
    let shape = broadcast_shapes(input.sizes(), mask.sizes())?;
    let xs = input.broadcast_strides(&shape)?;
    let ms = mask.broadcast_strides(&shape)?;
    let pm = mask.data_ptr::<bool>() as *const bool;
    let mut count = 0usize;
    crate::core::iter::strided_for_each(&shape, [&ms], |[m]| {
        // SAFETY: `m` comes from `mask`'s broadcast geometry over `shape`.
        count += unsafe { *pm.offset(m) } as usize;
    });
    let out = Tensor::zeros(&[count], input.dtype())?;
    crate::dispatch!(input.dtype(), T => {
        let (px, po) = (input.data_ptr::<T>() as *const T, out.data_ptr::<T>());
        let mut k = 0usize;
        crate::core::iter::strided_for_each(&shape, [&xs, &ms], |[x, m]| {
            // SAFETY: offsets from each tensor's broadcast geometry; `k < count` because the mask
            // is read-only and was counted above.
            unsafe {
                if *pm.offset(m) {
                    *po.add(k) = *px.offset(x);
                    k += 1;
                }
            }
        });
    });
    Ok(out)
}

/// `take(input, index)`: the elements of the flattened `input` at the int64 positions `index`
/// (negative counts from the end), shape of `index`. Errors: RuntimeError "take(): Expected a
/// long tensor for index, but got Int"; IndexError "out of range: tried to access index 10 on a
/// tensor of 6 elements." (torch: `torch.take`).
pub fn take(input: &Tensor, index: &Tensor) -> Result<Tensor> {
    if index.dtype() != DType::Int64 {
        return Err(Error::runtime(format!(
            "take(): Expected a long tensor for index, but got {}",
            index.dtype().scalar_type_name()
        )));
    }
    let n = input.numel() as i64;
    let iv = index_values(index)?;
    let flat = reshape(input, &[-1])?;
    let out = Tensor::zeros(index.sizes(), input.dtype())?;
    crate::dispatch!(input.dtype(), T => {
        let vals = super::conversion::try_to_vec::<T>(&flat)?;
        let po = out.data_ptr::<T>();
        for (k, &v) in iv.iter().enumerate() {
            if v < -n || v >= n {
                return Err(Error::index(format!(
                    "out of range: tried to access index {v} on a tensor of {n} elements."
                )));
            }
            let i = if v < 0 { v + n } else { v } as usize;
            // SAFETY: `out` is a fresh contiguous tensor of `iv.len()` elements.
            unsafe { *po.add(k) = vals[i] };
        }
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::dtype::Element;

    fn t<T: Element>(v: Vec<T>, s: &[usize]) -> Tensor {
        Tensor::from_vec(v, s).unwrap()
    }

    #[test]
    fn views_share_storage() {
        let x = t((0..12i64).collect(), &[3, 4]);
        let n = narrow(&x, 1, 1, 2).unwrap();
        assert!(n.shares_storage(&x));
        assert_eq!(n.to_vec::<i64>(), vec![1, 2, 5, 6, 9, 10]);
        let d = diagonal(&x, 1, 0, 1).unwrap();
        assert_eq!(d.to_vec::<i64>(), vec![1, 6, 11]);
        let m = movedim(&t((0..6i64).collect(), &[1, 2, 3]), 0, -1).unwrap();
        assert_eq!(m.sizes(), &[2, 3, 1]);
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

    #[test]
    fn index_ops_and_errors() {
        use crate::core::error::ErrorKind;
        let x = t((0..12i64).collect(), &[3, 4]);
        let e = narrow(&x, 0, 1, 3).unwrap_err();
        assert_eq!(
            (e.kind, e.message.as_str()),
            (
                ErrorKind::Runtime,
                "start (1) + length (3) exceeds dimension size (3)."
            )
        );
        assert_eq!(narrow(&x, 0, 4, 0).unwrap_err().kind, ErrorKind::Index);
        let idx = t(vec![2i64, 0, 1, 0], &[1, 4]);
        assert_eq!(
            gather(&x, 0, &idx).unwrap().to_vec::<i64>(),
            vec![8, 1, 6, 3]
        );
        let bad = t(vec![3i64], &[1, 1]);
        assert_eq!(
            gather(&x, 0, &bad).unwrap_err().message,
            "index 3 is out of bounds for dimension 0 with size 3"
        );
        let s = scatter_value(&x, 1, &t(vec![0i64], &[1, 1]), Scalar::Int(-1)).unwrap();
        assert_eq!(s.to_vec::<i64>()[..4], [-1, 1, 2, 3]);
        let m = t(vec![1i64, 0, 0, 1], &[4]);
        assert_eq!(
            masked_fill(&x, &m, Scalar::Int(0)).unwrap_err().message,
            "masked_fill_ only supports boolean masks, but got mask with dtype long int"
        );
        let mb = t(vec![true, false, false, true], &[4]);
        assert_eq!(
            masked_select(&x, &mb).unwrap().to_vec::<i64>(),
            vec![0, 3, 4, 7, 8, 11]
        );
        let xt = x.as_strided(vec![4, 3], vec![1, 4], 0);
        assert_eq!(flip(&xt, &[0, 1]).unwrap().to_vec::<i64>()[..3], [11, 7, 3]);
        assert_eq!(
            flip(&x, &[0, -2]).unwrap_err().message,
            "dim 0 appears multiple times in the list of dims"
        );
    }
}
