//! src/core/ops/indexing.rs: torch indexing — integer, slice, `None` and `...` items applied
//! dimension by dimension as a view (PyTorch: `applySlicing` in `TensorIndexing.h`), then advanced
//! indices (index tensors, masks, booleans) gathered or written as copies (`index`, `index_put_`).

use super::arith::Arith;
use crate::core::error::{Error, Result};
use crate::core::tensor::maybe_wrap_dim;
use crate::core::{DType, Tensor};

/// One item of an index expression, as `t[1, 2:5:2, None, ..., idx, mask, True]` spells them.
#[derive(Clone, Debug)]
pub enum IndexItem {
    /// An integer: selects and removes the dimension (negative counts from the end).
    Int(i64),
    /// `start:stop:step` with Python's `None` as `None`.
    Slice(Option<i64>, Option<i64>, Option<i64>),
    /// `None`: inserts a dimension of size 1.
    NewAxis,
    /// `...`: as many full slices as the other items leave.
    Ellipsis,
    /// Python `True`/`False`: inserts a dimension of size 1 (`True`) or 0 (`False`), as an
    /// advanced index (torch: `boolToIndexingTensor`).
    Bool(bool),
    /// An index tensor (int64/int32: advanced index of one dimension) or a mask (bool/uint8:
    /// covers `mask.dim()` dimensions, replaced by its `nonzero()` coordinates). A 0-dim integer
    /// tensor acts as `Int`, a 0-dim bool/uint8 tensor as `Bool`.
    Tensor(Tensor),
}

/// `slice(input, dim, start, end, step)`: the view of elements `start, start+step, ...` below
/// `end` along `dim`, with Python's clamping of out-of-range bounds. `step` must be positive
/// (torch: `ValueError: step must be greater than zero`).
pub fn slice(
    input: &Tensor,
    dim: i64,
    start: Option<i64>,
    end: Option<i64>,
    step: i64,
) -> Result<Tensor> {
    if step <= 0 {
        return Err(Error::value("step must be greater than zero"));
    }
    let d = maybe_wrap_dim(dim, input.dim())?;
    if input.dim() == 0 {
        return Err(Error::index("slice() cannot be applied to a 0-dim tensor."));
    }
    let size = input.sizes()[d] as i64;
    let clamp = |v: Option<i64>, default: i64| -> i64 {
        match v {
            None => default,
            Some(v) if v < 0 => (v + size).max(0),
            Some(v) => v.min(size),
        }
    };
    let start = clamp(start, 0);
    let end = clamp(end, size).max(start);
    let len = (end - start + step - 1) / step;
    let mut sizes = input.sizes().to_vec();
    let mut strides = input.strides().to_vec();
    let offset = if len > 0 {
        (input.storage_offset() as isize + start as isize * strides[d]) as usize
    } else {
        input.storage_offset()
    };
    sizes[d] = len as usize;
    strides[d] *= step as isize;
    Ok(input.as_strided(sizes, strides, offset))
}

/// torch's IndexError for an integer index applied to a 0-dim tensor.
fn zero_dim_index_error() -> Error {
    Error::index(
        "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number",
    )
}

/// `input[i]` for one integer `i` — the fast path of `index` for the commonest key (torch's
/// `THPVariable_getitem` does the same for an exact int: `applySelect`, no index list): the view
/// of position `i` along dim 0 (negative counts from the end), dim 0 removed, sharing storage.
/// Errors are `index`'s, IndexError: "invalid index of a 0-dim tensor. Use `tensor.item()` in
/// Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"; "index 10 is out
/// of bounds for dimension 0 with size 10".
pub fn index_int(input: &Tensor, i: i64) -> Result<Tensor> {
    let (sizes, strides) = (input.sizes(), input.strides());
    let Some(&size) = sizes.first() else {
        return Err(zero_dim_index_error());
    };
    let size = size as i64;
    if i < -size || i >= size {
        return Err(Error::index(format!(
            "index {i} is out of bounds for dimension 0 with size {size}"
        )));
    }
    let i = if i < 0 { i + size } else { i };
    let offset = input.storage_offset() as isize + i as isize * strides[0];
    // A 1-D input gives empty (unallocated) geometry vectors.
    Ok(input.as_strided(&sizes[1..], &strides[1..], offset as usize))
}

/// `input[i] = value` for one integer `i` and a Python number (torch's `THPVariable_setitem`
/// with an int key and `valueToTensor`): `value` must fit `input`'s dtype (RuntimeError "value
/// cannot be converted to type uint8_t without overflow", checked first, as torch converts the
/// value before indexing), then every element of `input[i]` is set to it. Index errors as
/// `index_int`. Same result as `index_put` with `[IndexItem::Int(i)]` and a 0-dim value.
pub fn index_put_int(input: &Tensor, i: i64, value: crate::core::Scalar) -> Result<()> {
    input.check_inference_write()?;
    crate::dispatch!(input.dtype(), T => value.to_checked::<T>().map(|_| ()))?;
    index_int(input, i)?.fill_cast(value);
    input.bump_version();
    Ok(())
}

/// An advanced index recorded by the basic pass, against a dimension of the view.
enum Pending {
    /// int64 indices for view dimension `dim`.
    Index(usize, Tensor),
    /// A bool/uint8 mask over view dimensions `dim..dim + mask.dim()`.
    Mask(usize, Tensor),
}

/// How a tensor index item acts.
enum TensorKind {
    /// A 0-dim integer tensor: as an integer.
    Int(i64),
    /// A 0-dim bool/uint8 tensor: as Python `True`/`False`.
    Bool(bool),
    /// An integer index tensor (one dimension).
    Index,
    /// A mask (`mask.dim()` dimensions).
    Mask,
}

fn tensor_kind(t: &Tensor) -> Result<TensorKind> {
    let mask = matches!(t.dtype(), DType::Bool | DType::UInt8);
    if !mask
        && !matches!(
            t.dtype(),
            DType::Int64 | DType::Int32 | DType::Int16 | DType::Int8
        )
    {
        return Err(Error::index(
            "tensors used as indices must be long, int, byte or bool tensors",
        ));
    }
    Ok(match (t.dim() == 0, mask) {
        (true, false) => TensorKind::Int(t.item()?.to_i64()),
        (true, true) => TensorKind::Bool(t.item()?.to_i64() != 0),
        (false, false) => TensorKind::Index,
        (false, true) => TensorKind::Mask,
    })
}

/// The dimensions of `input` an item consumes.
fn consumed(item: &IndexItem) -> Result<usize> {
    Ok(match item {
        IndexItem::Int(_) | IndexItem::Slice(..) => 1,
        IndexItem::NewAxis | IndexItem::Ellipsis | IndexItem::Bool(_) => 0,
        IndexItem::Tensor(t) => match tensor_kind(t)? {
            TensorKind::Int(_) | TensorKind::Index => 1,
            TensorKind::Bool(_) => 0,
            TensorKind::Mask => t.dim(),
        },
    })
}

/// The int64 index tensor torch uses for a boolean scalar index: `[0]` for `True`, `[]` for
/// `False` (torch: `boolToIndexingTensor`).
fn bool_index(b: bool) -> Result<Tensor> {
    Tensor::zeros(&[usize::from(b)], DType::Int64)
}

/// The first pass (torch's `applySlicing`): apply the basic items as a view, recording the
/// advanced ones (converted to int64 index tensors, masks through `nonzero`) against the view's
/// dimensions, in order.
fn apply_basic(input: &Tensor, items: &[IndexItem]) -> Result<(Tensor, Vec<(usize, Tensor)>)> {
    let mut consuming = 0;
    let mut any_tensor = false;
    for item in items {
        consuming += consumed(item)?;
        any_tensor |= matches!(item, IndexItem::Tensor(t) if t.dim() > 0);
    }
    if items
        .iter()
        .filter(|i| matches!(i, IndexItem::Ellipsis))
        .count()
        > 1
    {
        return Err(Error::index(
            "an index can only have a single ellipsis ('...')",
        ));
    }
    if input.dim() == 0 && consuming > 0 && !any_tensor {
        return Err(zero_dim_index_error());
    }
    if consuming > input.dim() {
        return Err(Error::index(format!(
            "too many indices for tensor of dimension {}",
            input.dim()
        )));
    }
    let mut result = input.alias();
    let mut pending = Vec::new();
    // `dim` indexes `result`; `input_dim` counts the dims of `input` consumed so far, which is
    // what torch's messages name.
    let mut dim: i64 = 0;
    let mut input_dim: usize = 0;
    for item in items {
        let item = match item {
            IndexItem::Tensor(t) => match tensor_kind(t)? {
                TensorKind::Int(i) => IndexItem::Int(i),
                TensorKind::Bool(b) => IndexItem::Bool(b),
                TensorKind::Index => {
                    pending.push(Pending::Index(dim as usize, t.to_dtype(DType::Int64)?));
                    dim += 1;
                    input_dim += 1;
                    continue;
                }
                TensorKind::Mask => {
                    pending.push(Pending::Mask(dim as usize, t.alias()));
                    dim += t.dim() as i64;
                    input_dim += t.dim();
                    continue;
                }
            },
            other => other.clone(),
        };
        match item {
            IndexItem::Int(i) => {
                let size = result.sizes()[dim as usize] as i64;
                if i < -size || i >= size {
                    return Err(Error::index(format!(
                        "index {i} is out of bounds for dimension {input_dim} with size {size}"
                    )));
                }
                result = super::view::select(&result, dim, i)?;
                input_dim += 1;
            }
            IndexItem::Slice(start, stop, step) => {
                result = slice(&result, dim, start, stop, step.unwrap_or(1))?;
                dim += 1;
                input_dim += 1;
            }
            IndexItem::NewAxis => {
                result = super::view::unsqueeze(&result, dim)?;
                dim += 1;
            }
            IndexItem::Ellipsis => {
                let skipped = input.dim() - consuming;
                dim += skipped as i64;
                input_dim += skipped;
            }
            IndexItem::Bool(b) => {
                result = super::view::unsqueeze(&result, dim)?;
                pending.push(Pending::Index(dim as usize, bool_index(b)?));
                dim += 1;
            }
            IndexItem::Tensor(_) => unreachable!("tensor items were classified above"),
        }
    }
    let mut advanced = Vec::new();
    for p in pending {
        match p {
            Pending::Index(d, t) => advanced.push((d, t)),
            Pending::Mask(d, mask) => {
                if mask.dtype() == DType::UInt8 {
                    // torch's UserWarning, on every use (`expandTensors` in IndexingUtils.h).
                    crate::core::warnings::warn(
                        crate::core::warnings::WarningKind::User,
                        "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.",
                    );
                }
                for (j, &s) in mask.sizes().iter().enumerate() {
                    if s != result.sizes()[d + j] {
                        return Err(Error::index(format!(
                            "The shape of the mask {:?} at index {j} does not match the shape of the indexed tensor {:?} at index {}",
                            mask.sizes(),
                            result.sizes(),
                            d + j
                        )));
                    }
                }
                for (j, t) in nonzero_coords(&mask)?.into_iter().enumerate() {
                    advanced.push((d + j, t));
                }
            }
        }
    }
    Ok((result, advanced))
}

/// The coordinates of the nonzero elements of `mask`, row-major, as one 1-D int64 tensor per
/// dimension (torch: `mask.nonzero().unbind(1)`).
fn nonzero_coords(mask: &Tensor) -> Result<Vec<Tensor>> {
    let flags = mask.to_dtype(DType::Bool)?;
    // SAFETY: `flags` is a fresh tensor made just above; nothing else can write it.
    let flags = unsafe { flags.as_slice::<bool>() }.unwrap_or(&[]);
    let nnz = flags.iter().filter(|&&b| b).count();
    let nd = mask.dim();
    let outs = (0..nd)
        .map(|_| Tensor::zeros(&[nnz], DType::Int64))
        .collect::<Result<Vec<_>>>()?;
    let ptrs: Vec<*mut i64> = outs.iter().map(|t| t.data_ptr::<i64>()).collect();
    let mut coord = vec![0usize; nd];
    let mut k = 0;
    for &b in flags {
        if b {
            for (p, &c) in ptrs.iter().zip(&coord) {
                // SAFETY: `k < nnz`, the length of each fresh contiguous output.
                unsafe { *p.add(k) = c as i64 };
            }
            k += 1;
        }
        // Advance the row-major coordinate like an odometer.
        for d in (0..nd).rev() {
            coord[d] += 1;
            if coord[d] < mask.sizes()[d] {
                break;
            }
            coord[d] = 0;
        }
    }
    Ok(outs)
}

/// The geometry of an advanced-indexing result over a view: the indices broadcast to `bshape`
/// (one view offset per broadcast position, row-major), and the view's other dims (`rest`),
/// of which the first `before` precede the broadcast dims in the result.
struct Plan {
    rest_sizes: Vec<usize>,
    rest_strides: Vec<isize>,
    before: usize,
    bshape: Vec<usize>,
    offsets: Vec<isize>,
}

impl Plan {
    /// Broadcast and bounds-check the indices (`(view dim, int64 tensor)`, dims ascending).
    fn new(view: &Tensor, advanced: &[(usize, Tensor)]) -> Result<Plan> {
        let mut bshape: Vec<usize> = Vec::new();
        for (_, t) in advanced {
            bshape = crate::core::tensor::broadcast_shapes(&bshape, t.sizes()).map_err(|_| {
                let shapes: Vec<String> = advanced
                    .iter()
                    .map(|(_, t)| format!("{:?}", t.sizes()))
                    .collect();
                Error::index(format!(
                    "shape mismatch: indexing tensors could not be broadcast together with shapes {}",
                    shapes.join(", ")
                ))
            })?;
        }
        let n = crate::core::tensor::checked_numel(&bshape)?;
        let mut offsets: Vec<isize> = Vec::new();
        offsets
            .try_reserve_exact(n)
            .map_err(|_| Error::runtime("index: out of memory"))?;
        offsets.resize(n, 0);
        for (j, (d, t)) in advanced.iter().enumerate() {
            let size = view.sizes()[*d] as i64;
            let stride = view.strides()[*d];
            let bstrides = t.broadcast_strides(&bshape)?;
            let p = t.data_ptr::<i64>();
            let mut bad = None;
            let mut k = 0;
            crate::core::iter::strided_for_each(&bshape, [&bstrides], |[o]| {
                // SAFETY: `o` addresses an element of the int64 index tensor `t`.
                let v = unsafe { *p.offset(o) };
                if v < -size || v >= size {
                    bad.get_or_insert(v);
                } else {
                    let v = if v < 0 { v + size } else { v };
                    offsets[k] += v as isize * stride;
                }
                k += 1;
            });
            if let Some(v) = bad {
                return Err(Error::index(format!(
                    "index {v} is out of bounds for dimension {j} with size {size}"
                )));
            }
        }
        let dims: Vec<usize> = advanced.iter().map(|(d, _)| *d).collect();
        let adjacent = dims.windows(2).all(|w| w[1] == w[0] + 1);
        let (mut rest_sizes, mut rest_strides) = (Vec::new(), Vec::new());
        for d in 0..view.dim() {
            if !dims.contains(&d) {
                rest_sizes.push(view.sizes()[d]);
                rest_strides.push(view.strides()[d]);
            }
        }
        Ok(Plan {
            rest_sizes,
            rest_strides,
            before: if adjacent { dims[0] } else { 0 },
            bshape,
            offsets,
        })
    }

    fn result_shape(&self) -> Vec<usize> {
        let mut s = self.rest_sizes[..self.before].to_vec();
        s.extend_from_slice(&self.bshape);
        s.extend_from_slice(&self.rest_sizes[self.before..]);
        s
    }

    /// Call `f(view offset, result offset)` for every result element, where result offsets
    /// follow `res_strides` (strides over `result_shape()`).
    fn walk(&self, res_strides: &[isize], mut f: impl FnMut(isize, isize)) {
        let nb = self.bshape.len();
        let rs_b = &res_strides[self.before..self.before + nb];
        let mut rs_rest = res_strides[..self.before].to_vec();
        rs_rest.extend_from_slice(&res_strides[self.before + nb..]);
        let mut k = 0;
        crate::core::iter::strided_for_each(&self.bshape, [rs_b], |[rb]| {
            let vb = self.offsets[k];
            k += 1;
            crate::core::iter::strided_for_each(
                &self.rest_sizes,
                [&self.rest_strides, &rs_rest],
                |[v, r]| f(vb + v, rb + r),
            );
        });
    }
}

/// `t[items]` (torch's `Tensor.__getitem__`): basic items (`Int`, `Slice`, `NewAxis`,
/// `Ellipsis`) give a view of `input`. With advanced items (`Tensor` index tensors and masks,
/// `Bool`), these are broadcast together and the result is a copy: the broadcast dims replace
/// the indexed dims in place when those are adjacent, else they come first (torch: `index`).
/// Errors (IndexError): too many indices ("too many indices for tensor of dimension 1"), two
/// ellipses, "index 5 is out of bounds for dimension 0 with size 3", "The shape of the mask [2]
/// at index 0 does not match the shape of the indexed tensor [3] at index 0", "shape mismatch:
/// indexing tensors could not be broadcast together with shapes [2], [3]", "tensors used as
/// indices must be long, int, byte or bool tensors".
pub fn index(input: &Tensor, items: &[IndexItem]) -> Result<Tensor> {
    let (view, advanced) = apply_basic(input, items)?;
    if advanced.is_empty() {
        return Ok(view);
    }
    let plan = Plan::new(&view, &advanced)?;
    let out = Tensor::zeros(&plan.result_shape(), view.dtype())?;
    crate::dispatch!(view.dtype(), T => {
        let (src, dst) = (view.data_ptr::<T>(), out.data_ptr::<T>());
        plan.walk(out.strides(), |v, r| {
            // SAFETY: `v` is a bounds-checked element offset of `view`, `r` of the fresh `out`.
            unsafe { *dst.offset(r) = *src.offset(v) }
        });
    });
    Ok(out)
}

/// `t[items] = values` (torch's `Tensor.__setitem__`): with basic items only, `values` is
/// copied into the view (broadcast, dtype converted, leading size-1 dims of `values` ignored).
/// With advanced items, the elements `index(input, items)` would read are written (torch:
/// `index_put_`): `values` must broadcast to that shape (RuntimeError "shape mismatch: value
/// tensor of shape [2] cannot be broadcast to indexing result of shape [3]") and have
/// `input`'s dtype (RuntimeError "Index put requires the source and destination dtypes match,
/// got Float for the destination and Long for the source.") — except a one-element `values`
/// with a single mask, which torch routes to `masked_fill_` and converts. Repeated indices
/// write in order (the last one wins). Errors of `index` apply.
pub fn index_put(input: &Tensor, items: &[IndexItem], values: &Tensor) -> Result<()> {
    input.check_inference_write()?;
    index_put_unversioned(input, items, values)?;
    input.bump_version();
    Ok(())
}

/// True when `items` hold exactly one advanced index and it is a mask (bool/uint8, not 0-dim):
/// torch routes such an assignment of a one-element value to `masked_fill_` (converting the
/// value; autograd names the node `MaskedFillBackward*`).
pub(crate) fn is_single_mask(items: &[IndexItem]) -> bool {
    items
        .iter()
        .filter(|i| match i {
            IndexItem::Tensor(t) => t.dim() > 0 || matches!(t.dtype(), DType::Bool | DType::UInt8),
            IndexItem::Bool(_) => true,
            _ => false,
        })
        .count()
        == 1
        && items.iter().any(|i| {
            matches!(i, IndexItem::Tensor(t) if t.dim() > 0 && matches!(t.dtype(), DType::Bool | DType::UInt8))
        })
}

fn index_put_unversioned(input: &Tensor, items: &[IndexItem], values: &Tensor) -> Result<()> {
    let (view, advanced) = apply_basic(input, items)?;
    if advanced.is_empty() && values.dim() == 0 && view.sizes() != values.sizes() {
        // torch's `copy_to`: a 0-dim value fills (no check for an expanded destination).
        view.fill_cast(values.item()?);
        return Ok(());
    }
    // torch's `slicePrefix1sSize`: leading size-1 dims of the value are dropped.
    let lead = values.sizes().iter().take_while(|&&s| s == 1).count();
    let values = values.as_strided(
        &values.sizes()[lead..],
        &values.strides()[lead..],
        values.storage_offset(),
    );
    if advanced.is_empty() {
        return view.copy_from(&values);
    }
    let single_mask = is_single_mask(items);
    if values.dtype() != view.dtype() && !(single_mask && values.numel() == 1) {
        return Err(Error::runtime(format!(
            "Index put requires the source and destination dtypes match, got {} for the destination and {} for the source.",
            view.dtype().scalar_type_name(),
            values.dtype().scalar_type_name()
        )));
    }
    // The one-element value of a single-mask assignment is converted up front (the same
    // per-element cast), so the copy below is instantiated per dtype, not per dtype pair.
    let values = if values.dtype() != view.dtype() {
        values.to_dtype(view.dtype())?
    } else {
        values
    };
    let plan = Plan::new(&view, &advanced)?;
    let shape = plan.result_shape();
    let vstrides = values.broadcast_strides(&shape).map_err(|_| {
        Error::runtime(format!(
            "shape mismatch: value tensor of shape {:?} cannot be broadcast to indexing result of shape {:?}",
            values.sizes(),
            shape
        ))
    })?;
    // A source sharing memory with the destination is read from a copy, so that every value
    // written is the one before the assignment.
    let values = if values.shares_storage(input) {
        values.clone_data()?
    } else {
        values
    };
    crate::dispatch!(view.dtype(), T => {
        let (dst, src) = (view.data_ptr::<T>(), values.data_ptr::<T>());
        plan.walk(&vstrides, |v, r| {
            // SAFETY: `v` is a bounds-checked element offset of `view`; `r` follows `values`'
            // own broadcast strides; `values` (of `view`'s dtype, converted above) does not
            // share memory with `view`.
            unsafe { *dst.offset(v) = *src.offset(r) }
        });
    });
    Ok(())
}

/// `input[items] += values` with repeated indices accumulating (torch's `index_put_(...,
/// accumulate=True)`; integers wrap, bools or), `values` converted to `input`'s dtype: the
/// backward of `t[items]` (core autograd, formulas.rs) and `index_put_tensors_`. Errors of
/// `index`.
pub fn index_put_accumulate(input: &Tensor, items: &[IndexItem], values: &Tensor) -> Result<()> {
    input.check_inference_write()?;
    let (view, advanced) = apply_basic(input, items)?;
    let values = if values.dtype() != view.dtype() {
        values.to_dtype(view.dtype())?
    } else {
        values.clone()
    };
    if advanced.is_empty() {
        return crate::core::ops::add_plan(&view, &values, crate::core::Scalar::Int(1))?
            .run_into(&view);
    }
    let plan = Plan::new(&view, &advanced)?;
    let shape = plan.result_shape();
    let vstrides = values.broadcast_strides(&shape).map_err(|_| {
        Error::runtime(format!(
            "shape mismatch: value tensor of shape {:?} cannot be broadcast to indexing result of shape {:?}",
            values.sizes(),
            shape
        ))
    })?;
    let values = if values.shares_storage(input) {
        values.clone_data()?
    } else {
        values
    };
    crate::dispatch!(view.dtype(), T => {
        let (dst, src) = (view.data_ptr::<T>(), values.data_ptr::<T>());
        plan.walk(&vstrides, |v, r| {
            // SAFETY: as in `index_put`: `v` is a bounds-checked offset of `view`, `r` one of
            // `values` (its own broadcast strides), which shares no memory with `view`.
            unsafe { *dst.offset(v) = (*dst.offset(v)).wadd(*src.offset(r)) }
        });
    });
    input.bump_version();
    Ok(())
}

/// `input.index_put_(indices, values, accumulate=False)` (torch's `index_put_`): `input[indices]
/// = values` for a tuple of index tensors (or masks), or `+=` with repeated indices adding up
/// when `accumulate` (integers wrap, bools or). `values` must have `input`'s dtype (torch's
/// RuntimeError "Index put requires the source and destination dtypes match, ..."; without
/// `accumulate`, a one-element value with a single mask is converted, as `index_put`) and
/// broadcast to the indexed shape. Errors of `index`.
pub fn index_put_tensors_(
    input: &Tensor,
    indices: &[Tensor],
    values: &Tensor,
    accumulate: bool,
) -> Result<()> {
    let items: Vec<IndexItem> = indices.iter().cloned().map(IndexItem::Tensor).collect();
    if !accumulate {
        return index_put(input, &items, values);
    }
    if values.dtype() != input.dtype() {
        return Err(Error::runtime(format!(
            "Index put requires the source and destination dtypes match, got {} for the destination and {} for the source.",
            input.dtype().scalar_type_name(),
            values.dtype().scalar_type_name()
        )));
    }
    index_put_accumulate(input, &items, values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_are_views_with_python_clamping() {
        let t = Tensor::from_vec((0..10i64).collect(), &[10]).unwrap();
        let s = slice(&t, 0, Some(1), Some(100), 3).unwrap();
        assert_eq!(s.to_vec::<i64>(), vec![1, 4, 7]);
        assert!(s.shares_storage(&t));
        let s = slice(&t, 0, Some(-3), None, 1).unwrap();
        assert_eq!(s.to_vec::<i64>(), vec![7, 8, 9]);
        assert_eq!(slice(&t, 0, Some(5), Some(2), 1).unwrap().numel(), 0);
        assert!(slice(&t, 0, None, None, 0).is_err());
    }

    fn cube() -> Tensor {
        Tensor::from_vec((0..24i64).collect(), &[2, 3, 4]).unwrap()
    }

    fn ix(v: &[i64]) -> IndexItem {
        IndexItem::Tensor(Tensor::from_vec(v.to_vec(), &[v.len()]).unwrap())
    }

    #[test]
    fn advanced_indices_in_place_or_first() {
        let full = IndexItem::Slice(None, None, None);
        // adjacent: in place
        let r = index(&cube(), &[full.clone(), ix(&[0, 2]), ix(&[1, 3])]).unwrap();
        assert_eq!(r.sizes(), &[2, 2]);
        assert_eq!(r.to_vec::<i64>(), vec![1, 11, 13, 23]);
        assert!(!r.shares_storage(&cube()));
        // separated by a slice: first
        let r = index(&cube(), &[ix(&[0, 1]), full.clone(), ix(&[1, 3])]).unwrap();
        assert_eq!(r.sizes(), &[2, 3]);
        assert_eq!(r.to_vec::<i64>(), vec![1, 5, 9, 15, 19, 23]);
        // int applied first (torch): the index stays in place
        let r = index(&cube(), &[IndexItem::Int(0), full, ix(&[1, 2])]).unwrap();
        assert_eq!(r.sizes(), &[3, 2]);
        assert_eq!(r.to_vec::<i64>(), vec![1, 2, 5, 6, 9, 10]);
    }

    #[test]
    fn masks_bools_and_errors() {
        let m = Tensor::from_vec(vec![true, false, true, false, true, false], &[2, 3]).unwrap();
        let r = index(&cube(), &[IndexItem::Tensor(m)]).unwrap();
        assert_eq!(r.sizes(), &[3, 4]);
        assert_eq!(r.to_vec::<i64>()[..5], [0, 1, 2, 3, 8]);
        assert_eq!(
            index(&cube(), &[IndexItem::Bool(false)]).unwrap().sizes(),
            &[0, 2, 3, 4]
        );
        let e = index(&cube(), &[ix(&[5])]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "index 5 is out of bounds for dimension 0 with size 2"
        );
        let m = Tensor::from_vec(vec![true, false], &[2]).unwrap();
        let e = index(&cube(), &[IndexItem::Ellipsis, IndexItem::Tensor(m)]).unwrap_err();
        assert!(e
            .to_string()
            .starts_with("The shape of the mask [2] at index 0"));
        assert!(index(&cube(), &[ix(&[0, 1]), ix(&[0, 1, 2])]).is_err());
    }

    #[test]
    fn index_put_broadcasts_and_checks_dtype() {
        let t = cube();
        let v = Tensor::from_vec(vec![-1i64, -2], &[2]).unwrap();
        index_put(&t, &[IndexItem::Int(0), ix(&[0, 2]), ix(&[1, 3])], &v).unwrap();
        assert_eq!(
            t.to_vec::<i64>()[..12],
            [0, -1, 2, 3, 4, 5, 6, 7, 8, 9, 10, -2]
        );
        let f = Tensor::from_vec(vec![1.0f32], &[1]).unwrap();
        assert!(index_put(&t, &[ix(&[0])], &f).is_err());
        let bad = Tensor::from_vec(vec![1i64, 2, 3], &[3]).unwrap();
        assert!(index_put(&t, &[ix(&[0, 1]), ix(&[0, 1])], &bad).is_err());
    }
}
