//! src/core/sizes_strides.rs: `SizesAndStrides`, a tensor's shape and strides kept inside the
//! tensor for small ranks (PyTorch: `c10::impl::SizesAndStrides`).
//!
//! Up to `INLINE_DIMS` dimensions the sizes and strides live in the struct itself, so creating a
//! 0-, 1- or 2-dim tensor allocates nothing for its geometry (two `Vec`s cost two `malloc`/`free`
//! pairs per tensor, the largest item in the per-call profile). Higher ranks use one heap block
//! holding the sizes followed by the strides. torch keeps 5 dimensions inline; we keep 2 because
//! every inline dimension costs 16 bytes in *every* tensor, and most small tensors — the ones
//! whose per-call cost matters — are 0-, 1- or 2-dim.

use std::ptr::NonNull;

/// Dimensions stored without a heap allocation.
pub const INLINE_DIMS: usize = 2;

/// The sizes and strides (in elements) of a tensor of `ndim` dimensions. Immutable once built.
pub struct SizesAndStrides {
    ndim: usize,
    repr: Repr,
}

/// `inline` when `ndim <= INLINE_DIMS`: sizes in `[0, ndim)`, strides (as `isize` bit patterns)
/// in `[INLINE_DIMS, INLINE_DIMS + ndim)`. Otherwise `heap`: a `Box<[usize]>` of `2 * ndim`
/// words, sizes then strides, owned by this struct.
union Repr {
    inline: [usize; 2 * INLINE_DIMS],
    heap: NonNull<usize>,
}

// SAFETY: the heap block is owned exclusively by this struct and never mutated after
// construction, so sharing or sending it is as safe as for a `Box<[usize]>`.
unsafe impl Send for SizesAndStrides {}
// SAFETY: as above: all access after construction is read-only.
unsafe impl Sync for SizesAndStrides {}

impl SizesAndStrides {
    /// Geometry with the given sizes and strides. Panics if the lengths differ (a core
    /// programming error).
    pub fn new(sizes: &[usize], strides: &[isize]) -> SizesAndStrides {
        assert_eq!(
            sizes.len(),
            strides.len(),
            "sizes and strides differ in rank"
        );
        let ndim = sizes.len();
        if ndim <= INLINE_DIMS {
            let mut inline = [0usize; 2 * INLINE_DIMS];
            inline[..ndim].copy_from_slice(sizes);
            for (dst, &s) in inline[INLINE_DIMS..INLINE_DIMS + ndim]
                .iter_mut()
                .zip(strides)
            {
                *dst = s as usize;
            }
            return SizesAndStrides {
                ndim,
                repr: Repr { inline },
            };
        }
        let block: Box<[usize]> = sizes
            .iter()
            .copied()
            .chain(strides.iter().map(|&s| s as usize))
            .collect();
        let heap = NonNull::from(Box::leak(block)).cast::<usize>();
        SizesAndStrides {
            ndim,
            repr: Repr { heap },
        }
    }

    /// Row-major (C-contiguous) geometry for `sizes`, computed in place.
    pub fn contiguous(sizes: &[usize]) -> SizesAndStrides {
        let ndim = sizes.len();
        if ndim <= INLINE_DIMS {
            let mut inline = [0usize; 2 * INLINE_DIMS];
            inline[..ndim].copy_from_slice(sizes);
            let mut acc: usize = 1;
            for i in (0..ndim).rev() {
                inline[INLINE_DIMS + i] = acc;
                acc = acc.wrapping_mul(sizes[i].max(1));
            }
            return SizesAndStrides {
                ndim,
                repr: Repr { inline },
            };
        }
        SizesAndStrides::new(sizes, &super::tensor::contiguous_strides(sizes))
    }

    /// Number of dimensions.
    #[inline(always)]
    pub fn ndim(&self) -> usize {
        self.ndim
    }

    #[inline(always)]
    fn words(&self) -> (*const usize, usize) {
        if self.ndim <= INLINE_DIMS {
            // SAFETY: `ndim <= INLINE_DIMS` means `inline` is the active field (see `Repr`).
            (unsafe { self.repr.inline.as_ptr() }, INLINE_DIMS)
        } else {
            // SAFETY: `ndim > INLINE_DIMS` means `heap` is the active field.
            (unsafe { self.repr.heap.as_ptr() }, self.ndim)
        }
    }

    /// The sizes, one per dimension.
    #[inline(always)]
    pub fn sizes(&self) -> &[usize] {
        let (p, _) = self.words();
        // SAFETY: both layouts hold `ndim` initialised sizes from `p`, alive as long as `self`.
        unsafe { std::slice::from_raw_parts(p, self.ndim) }
    }

    /// The strides in elements, one per dimension.
    #[inline(always)]
    pub fn strides(&self) -> &[isize] {
        let (p, stride_at) = self.words();
        // SAFETY: both layouts hold `ndim` initialised strides from `p + stride_at`, alive as
        // long as `self`; `usize` and `isize` have the same size and alignment.
        unsafe { std::slice::from_raw_parts(p.add(stride_at).cast::<isize>(), self.ndim) }
    }
}

impl Drop for SizesAndStrides {
    fn drop(&mut self) {
        if self.ndim > INLINE_DIMS {
            // SAFETY: `heap` is active and came from `Box::leak` of a `Box<[usize]>` of exactly
            // `2 * ndim` words; it is rebuilt and freed once, here.
            unsafe {
                let p = self.repr.heap.as_ptr();
                drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                    p,
                    2 * self.ndim,
                )));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_and_heap_round_trip() {
        for nd in 0..6 {
            let sizes: Vec<usize> = (1..=nd).collect();
            let strides: Vec<isize> = (0..nd as isize).map(|i| -3 * i + 1).collect();
            let g = SizesAndStrides::new(&sizes, &strides);
            assert_eq!(g.ndim(), nd);
            assert_eq!(g.sizes(), &sizes[..]);
            assert_eq!(g.strides(), &strides[..]);
        }
    }

    #[test]
    fn contiguous_matches_the_general_rule() {
        for sizes in [vec![], vec![5], vec![2, 3], vec![2, 0, 4], vec![2, 3, 4, 5]] {
            let g = SizesAndStrides::contiguous(&sizes);
            assert_eq!(g.sizes(), &sizes[..]);
            assert_eq!(
                g.strides(),
                &super::super::tensor::contiguous_strides(&sizes)[..]
            );
        }
    }
}
