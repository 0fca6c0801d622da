//! src/core/tensor/overlap.rs: memory-overlap checks for a tensor about to be written (PyTorch:
//! `aten/src/ATen/MemoryOverlap.cpp`): internal overlap, partial overlap with an input, and the
//! dense-layout test and storage footprint they rest on. Methods of `Tensor`.

use super::Tensor;
use crate::core::error::{Error, Result};

impl Tensor {
    /// True when the elements occupy a gap-free block with no element visited twice, in some
    /// dimension order (torch's `is_non_overlapping_and_dense`).
    pub fn is_non_overlapping_and_dense(&self) -> bool {
        if self.is_contiguous() {
            return true;
        }
        let mut dims: Vec<(usize, isize)> = self
            .sizes()
            .iter()
            .copied()
            .zip(self.strides().iter().copied())
            .filter(|&(s, _)| s != 1)
            .collect();
        dims.sort_by_key(|&(s, st)| (st, s));
        let mut expected: isize = 1;
        for (s, st) in dims {
            if st != expected {
                return false;
            }
            expected = expected.saturating_mul(s as isize);
        }
        true
    }

    /// torch's `assert_no_internal_overlap` for a tensor about to be written: a stride-0
    /// dimension of size > 1 (an expanded tensor) is a `Runtime` error.
    pub fn assert_no_internal_overlap(&self) -> Result<()> {
        if !self.is_non_overlapping_and_dense()
            && self
                .sizes()
                .iter()
                .zip(self.strides())
                .any(|(&s, &st)| st == 0 && s > 1)
        {
            return Err(Error::runtime(
                "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.",
            ));
        }
        Ok(())
    }

    /// The byte range `[start, end)` of the storage that the elements can touch.
    pub(super) fn footprint(&self) -> (isize, isize) {
        let item = self.dtype.itemsize() as isize;
        let (mut lo, mut hi) = (self.offset as isize, self.offset as isize);
        for (&s, &st) in self.sizes().iter().zip(self.strides()) {
            let reach = (s as isize - 1) * st;
            if reach < 0 {
                lo += reach;
            } else {
                hi += reach;
            }
        }
        (lo * item, (hi + 1) * item)
    }

    /// True when `self` (to be written) and `input` may touch common memory while not being the
    /// very same view.
    pub(super) fn may_partially_overlap(&self, input: &Tensor) -> bool {
        if self.numel() == 0
            || input.numel() == 0
            || !self.shares_storage(input)
            || self.is_same(input)
        {
            return false;
        }
        let ((a0, a1), (b0, b1)) = (self.footprint(), input.footprint());
        a0 < b1 && b0 < a1
    }

    /// torch's `assert_no_partial_overlap(output, input)`: two dense tensors of one storage must
    /// cover exactly the same bytes with the same strides, or none of the same bytes (torch does
    /// not check other layouts; see `copy_from`).
    pub fn assert_no_partial_overlap(&self, input: &Tensor) -> Result<()> {
        if self.is_non_overlapping_and_dense()
            && input.is_non_overlapping_and_dense()
            && self.may_partially_overlap(input)
        {
            // torch's `get_overlap_status`: the same bytes in the same order is a full overlap
            // (allowed); the same bytes in another order (a transpose) or a shifted range is
            // partial.
            // The strides of size-1 dims address nothing: `x[3:, 3:] -= 1` writes a 1x1 view
            // back onto a 1x1 view of the same element whatever strides each carries.
            let ((a0, a1), (b0, b1)) = (self.footprint(), input.footprint());
            let steps = |t: &Tensor| -> Vec<(usize, isize)> {
                t.sizes()
                    .iter()
                    .zip(t.strides())
                    .filter(|&(&n, _)| n != 1)
                    .map(|(&n, &st)| (n, st))
                    .collect()
            };
            if (a0, a1) != (b0, b1) || steps(self) != steps(input) {
                return Err(Error::runtime(
                    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.",
                ));
            }
        }
        Ok(())
    }

    /// torch's `assert_no_overlap(output, input)` (the `out=` check of `cat`, `index_select`,
    /// `masked_select`, `take`): `self` (to be written) may not be `input`, nor share any byte
    /// with it. Like torch, layouts that are not dense and non-overlapping are not checked.
    pub fn assert_no_overlap(&self, input: &Tensor) -> Result<()> {
        let overlaps = self.is_same(input)
            || (self.numel() != 0
                && input.numel() != 0
                && self.is_non_overlapping_and_dense()
                && input.is_non_overlapping_and_dense()
                && self.shares_storage(input)
                && {
                    let ((a0, a1), (b0, b1)) = (self.footprint(), input.footprint());
                    a0 < b1 && b0 < a1
                });
        if overlaps {
            return Err(Error::runtime(
                "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.",
            ));
        }
        Ok(())
    }
}
