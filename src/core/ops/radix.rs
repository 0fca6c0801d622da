//! src/core/ops/radix.rs: the LSD radix sort behind `sort`/`argsort` of long lanes (PyTorch:
//! the radix paths of `native/cpu/SortingKernel.cpp`; numpy: `radixsort.cpp`).
//!
//! Note [Radix argsort]
//! A lane's elements become `(key, position)` items whose unsigned key order is torch's sort
//! order (`sort_key`: -0.0 equal to 0.0, NaN above +inf, all NaNs equal; complemented for
//! descending). A least-significant-digit radix sort over 11-bit digits is stable (each pass
//! distributes the items in their current order), so equal keys keep their positions' order:
//! exactly the stable sort torch's `stable=True` gives, and what `argsort` always returns.
//! Keys of dtypes up to 32 bits (float32, int32 and narrower, bool) take 3 passes over 8-byte
//! items (key in the high half, position in the low); float64 and int64 take up to 6 over
//! 16-byte items. One pre-pass counts every digit; a pass whose digit is the same for every
//! item is skipped (small integers, or floats of one sign and a narrow range, skip the top
//! passes). Lanes shorter than `RADIX_MIN`, or of 2^32 elements or more, use the comparison
//! sort (`stable_order`).

use crate::core::dtype::{DType, Element};

/// Lanes from this length on are radix sorted.
pub(crate) const RADIX_MIN: usize = 512;

const DIGIT_BITS: u32 = 11;
const BUCKETS: usize = 1 << DIGIT_BITS;

/// One item of a radix sort: a key split into `PASSES` digits, least significant first.
trait Item: Copy + Default {
    const PASSES: usize;
    fn digit(self, pass: usize) -> usize;
}

/// A 32-bit key in the high half, the position in the low half.
impl Item for u64 {
    const PASSES: usize = 3;
    #[inline(always)]
    fn digit(self, pass: usize) -> usize {
        ((self >> (32 + pass as u32 * DIGIT_BITS)) as usize) & (BUCKETS - 1)
    }
}

/// A 64-bit key and a position.
#[derive(Clone, Copy, Default)]
struct Wide(u64, u32);

impl Item for Wide {
    const PASSES: usize = 6;
    #[inline(always)]
    fn digit(self, pass: usize) -> usize {
        ((self.0 >> (pass as u32 * DIGIT_BITS)) as usize) & (BUCKETS - 1)
    }
}

/// Sort `a` by its items' digits (stable LSD), with `tmp` as the other buffer.
fn radix_sort<I: Item>(a: &mut Vec<I>, tmp: &mut Vec<I>) {
    let n = a.len();
    let mut counts = vec![[0usize; BUCKETS]; I::PASSES];
    for &x in a.iter() {
        for (p, c) in counts.iter_mut().enumerate() {
            c[x.digit(p)] += 1;
        }
    }
    tmp.clear();
    tmp.resize(n, I::default());
    for (p, c) in counts.iter().enumerate() {
        if c.contains(&n) {
            continue; // every item has the same digit: the pass would not move anything
        }
        let mut offs = [0usize; BUCKETS];
        let mut sum = 0;
        for (o, &k) in offs.iter_mut().zip(c.iter()) {
            *o = sum;
            sum += k;
        }
        for &x in a.iter() {
            let d = x.digit(p);
            tmp[offs[d]] = x;
            offs[d] += 1;
        }
        std::mem::swap(a, tmp);
    }
}

/// The 32-bit sort key of `v` (see Note [Radix argsort]), for dtypes of at most 32 bits.
#[inline(always)]
fn key32<T: Element>(v: T) -> u32 {
    match T::DTYPE {
        DType::Float32 => {
            let x = <f32 as Element>::cast_from(v);
            if x.is_nan() {
                return u32::MAX;
            }
            let b = (x + 0.0).to_bits();
            if b >> 31 == 1 {
                !b
            } else {
                b | 1 << 31
            }
        }
        _ => (v.to_i64() as i32 as u32) ^ 1 << 31,
    }
}

/// Reusable buffers of `argsort_lane`.
#[derive(Default)]
pub(crate) struct RadixBufs {
    narrow: (Vec<u64>, Vec<u64>),
    wide: (Vec<Wide>, Vec<Wide>),
}

/// Writes the stable ascending (descending when `descending`) order of the `n` elements
/// `lane(j)`, `j < n`, as positions through `out(k, position)`. Returns false (writing
/// nothing) when the lane is not for the radix sort: shorter than `RADIX_MIN` or 2^32 long.
pub(crate) fn argsort_lane<T: Element>(
    bufs: &mut RadixBufs,
    n: usize,
    descending: bool,
    lane: impl Fn(usize) -> T,
    mut out: impl FnMut(usize, usize),
) -> bool {
    if n < RADIX_MIN || n > u32::MAX as usize {
        return false;
    }
    if T::DTYPE.itemsize() <= 4 {
        let flip = if descending { u32::MAX } else { 0 };
        let (a, tmp) = &mut bufs.narrow;
        a.clear();
        a.extend((0..n).map(|j| (((key32(lane(j)) ^ flip) as u64) << 32) | j as u64));
        radix_sort(a, tmp);
        for (k, &x) in a.iter().enumerate() {
            out(k, (x & u32::MAX as u64) as usize);
        }
    } else {
        let flip = if descending { u64::MAX } else { 0 };
        let (a, tmp) = &mut bufs.wide;
        a.clear();
        a.extend((0..n).map(|j| Wide(super::sort::sort_key(lane(j)) ^ flip, j as u32)));
        radix_sort(a, tmp);
        for (k, &x) in a.iter().enumerate() {
            out(k, x.1 as usize);
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The radix order equals a reference stable sort by torch's order (NaN last, -0.0 ==
    /// 0.0, ties by position; descending complements the keys, so ties still by position), for
    /// float32, float64, int32 and int64 lanes with many duplicates.
    #[test]
    fn radix_matches_stable_reference() {
        fn check<T: Element>(vals: Vec<T>, cmp: impl Fn(&T, &T) -> std::cmp::Ordering) {
            for desc in [false, true] {
                let mut want: Vec<usize> = (0..vals.len()).collect();
                want.sort_by(|&i, &j| {
                    let o = cmp(&vals[i], &vals[j]);
                    if desc {
                        o.reverse()
                    } else {
                        o
                    }
                });
                let mut got = vec![usize::MAX; vals.len()];
                let mut bufs = RadixBufs::default();
                assert!(argsort_lane(
                    &mut bufs,
                    vals.len(),
                    desc,
                    |j| vals[j],
                    |k, p| got[k] = p
                ));
                assert_eq!(got, want, "{:?} desc={desc}", T::DTYPE);
            }
        }
        let n: usize = 3000;
        let fcmp = |a: &f64, b: &f64| match (a.is_nan(), b.is_nan()) {
            (true, true) => std::cmp::Ordering::Equal,
            (true, false) => std::cmp::Ordering::Greater,
            (false, true) => std::cmp::Ordering::Less,
            _ => a.partial_cmp(b).unwrap(),
        };
        let f: Vec<f64> = (0..n)
            .map(|i| match i % 11 {
                0 => f64::NAN,
                1 => -0.0,
                2 => 0.0,
                3 => f64::INFINITY,
                4 => f64::NEG_INFINITY,
                _ => ((i * 7919 % 613) as f64 - 300.0) / 8.0,
            })
            .collect();
        check(f.clone(), fcmp);
        check(f.iter().map(|&x| x as f32).collect::<Vec<f32>>(), |a, b| {
            fcmp(&(*a as f64), &(*b as f64))
        });
        check(
            (0..n)
                .map(|i| (i * 7919 % 613) as i32 - 300)
                .collect::<Vec<i32>>(),
            Ord::cmp,
        );
        check(
            (0..n)
                .map(|i| ((i * 7919 % 613) as i64 - 300) << 40)
                .collect::<Vec<i64>>(),
            Ord::cmp,
        );
        check(
            (0..n).map(|i| (i * 31 % 256) as u8).collect::<Vec<u8>>(),
            Ord::cmp,
        );
        let mut bufs = RadixBufs::default();
        assert!(!argsort_lane(&mut bufs, 10, false, |j| j as i32, |_, _| ()));
    }
}
