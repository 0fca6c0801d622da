//! src/core/ops/indexing.rs: basic indexing as views — integer, slice, `None` and `...` index
//! items applied dimension by dimension (PyTorch: `applySlicing` in `TensorIndexing.h`).

use crate::core::error::{Error, Result};
use crate::core::tensor::maybe_wrap_dim;
use crate::core::Tensor;

/// One item of a basic index expression, as `t[1, 2:5:2, None, ...]` spells them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IndexItem {
    /// An integer: selects and removes the dimension (negative counts from the end).
    Int(i64),
    /// `start:stop:step` with Python's `None` as `None`.
    Slice(Option<i64>, Option<i64>, Option<i64>),
    /// `None`: inserts a dimension of size 1.
    NewAxis,
    /// `...`: as many full slices as the other items leave.
    Ellipsis,
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

/// Apply a basic index expression; the result is always a view of `input`. Too many indices →
/// IndexError ("too many indices for tensor of dimension 1"); two ellipses → IndexError.
pub fn index(input: &Tensor, items: &[IndexItem]) -> Result<Tensor> {
    let consuming = items
        .iter()
        .filter(|i| matches!(i, IndexItem::Int(_) | IndexItem::Slice(..)))
        .count();
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
    if input.dim() == 0 && consuming > 0 {
        return Err(Error::index(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number",
        ));
    }
    if consuming > input.dim() {
        return Err(Error::index(format!(
            "too many indices for tensor of dimension {}",
            input.dim()
        )));
    }
    let mut result = input.alias();
    // `dim` indexes `result`; `input_dim` counts the dims of `input` consumed so far, which is
    // what torch's messages name.
    let mut dim: i64 = 0;
    let mut input_dim: usize = 0;
    for item in items {
        match *item {
            IndexItem::Int(i) => {
                let size = result.sizes()[dim as usize] as i64;
                if i < -size || i >= size {
                    return Err(Error::index(format!(
                        "index {i} is out of bounds for dimension {input_dim} with size {size}"
                    )));
                }
                result = super::shape::select(&result, dim, i)?;
                input_dim += 1;
            }
            IndexItem::Slice(start, stop, step) => {
                result = slice(&result, dim, start, stop, step.unwrap_or(1))?;
                dim += 1;
                input_dim += 1;
            }
            IndexItem::NewAxis => {
                result = super::shape::unsqueeze(&result, dim)?;
                dim += 1;
            }
            IndexItem::Ellipsis => {
                let skipped = input.dim() - consuming;
                dim += skipped as i64;
                input_dim += skipped;
            }
        }
    }
    Ok(result)
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
}
