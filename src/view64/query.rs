//! Queries of a 64-bit view over ranges and pairs: range counts, masks for scans, the gaps
//! between values, and the counting forms of the set operations. Each applies the 32-bit
//! query to the buckets concerned.

use core::ops::{Bound, Range, RangeBounds};

use super::{FrozenBitmap64, Iter64, merge};

/// `range` as `lo..hi` with `hi <= 2^64` (as u128 so that the full range is expressible).
fn bounds<R: RangeBounds<u64>>(range: &R) -> (u128, u128) {
    let lo = match range.start_bound() {
        Bound::Included(&s) => u128::from(s),
        Bound::Excluded(&s) => u128::from(s) + 1,
        Bound::Unbounded => 0,
    };
    let hi = match range.end_bound() {
        Bound::Included(&e) => u128::from(e) + 1,
        Bound::Excluded(&e) => u128::from(e),
        Bound::Unbounded => 1 << 64,
    };
    (lo, hi.max(lo))
}

impl<'a> FrozenBitmap64<'a> {
    /// An iterator over the values in `range`, in ascending order, with all of [`Iter64`]
    /// (double-ended, `advance_to`, `next_range`, ...). An empty or reversed range gives an
    /// empty iterator.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap64, Writer};
    /// let mut out = Vec::new();
    /// Writer::new().write_sorted64([1, 5, 1 << 40, u64::MAX], &mut out)?;
    /// let b = FrozenBitmap64::from_bytes(&out)?;
    /// assert_eq!(b.range(2..=1 << 40).collect::<Vec<_>>(), [5, 1 << 40]);
    /// assert_eq!(b.range(6..).next_back(), Some(u64::MAX));
    /// assert_eq!(b.range(7..=6).next(), None);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn range<R: RangeBounds<u64>>(&self, range: R) -> Iter64<'a> {
        let (lo, hi) = bounds(&range);
        let mut it = self.iter();
        if lo < hi {
            // `lo < hi <= 2^64`: both ends fit a u64.
            it.advance_to(lo as u64);
            it.advance_back_to((hi - 1) as u64);
        } else {
            it.clear();
        }
        it
    }

    /// The number of values in `range`.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap64, Writer};
    /// let mut out = Vec::new();
    /// Writer::new().write_sorted64([1, 5, 1 << 40, u64::MAX], &mut out)?;
    /// let b = FrozenBitmap64::from_bytes(&out)?;
    /// assert_eq!(b.range_cardinality(2..), 3);
    /// assert_eq!(b.range_cardinality(..=5), 2);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn range_cardinality<R: RangeBounds<u64>>(&self, range: R) -> u64 {
        let (lo, hi) = bounds(&range);
        let mut n = 0;
        for (k, b) in self.buckets() {
            let base = u128::from(k) << 32;
            if base >= hi {
                break;
            }
            if base + (1 << 32) <= lo {
                continue;
            }
            let from = (lo.max(base) - base) as u32;
            let to = (hi.min(base + (1 << 32)) - base - 1) as u32;
            n += b.range_cardinality(from..=to);
        }
        n
    }

    /// Whether every value of `range` is in the set (true for an empty range).
    pub fn contains_range<R: RangeBounds<u64>>(&self, range: R) -> bool {
        let (lo, hi) = bounds(&range);
        if lo >= hi {
            return true;
        }
        // Each bucket the range meets is present and holds its part (buckets are in
        // ascending key order, so the walk stops at the first gap).
        let mut next = lo;
        for (k, b) in self.buckets() {
            let base = u128::from(k) << 32;
            if base + (1 << 32) <= next {
                continue;
            }
            if base > next {
                return false;
            }
            let from = (next - base) as u32;
            let to = (hi.min(base + (1 << 32)) - base - 1) as u32;
            if !b.contains_range(from..=to) {
                return false;
            }
            next = base + u128::from(to) + 1;
            if next >= hi {
                return true;
            }
        }
        false
    }

    /// Whether the two sets share no value.
    pub fn is_disjoint(&self, other: &FrozenBitmap64<'_>) -> bool {
        let mut disjoint = true;
        merge(self, other, |a, b| {
            if let (Some(a), Some(b)) = (a, b) {
                disjoint = a.is_disjoint(&b);
            }
            disjoint
        });
        disjoint
    }

    /// The number of values of `self` not in `other`.
    pub fn difference_len(&self, other: &FrozenBitmap64<'_>) -> u64 {
        self.len() - self.intersection_len(other)
    }

    /// The number of values in exactly one of the two.
    pub fn symmetric_difference_len(&self, other: &FrozenBitmap64<'_>) -> u64 {
        self.len() + other.len() - 2 * self.intersection_len(other)
    }

    /// Overwrites the first `ceil(range.len() / 64)` words of `out` so that bit `i` (bit
    /// `i % 64` of word `i / 64`) is set exactly when `range.start + i` is in the set (for
    /// a deletion vector: when row `range.start + i` is deleted); bits past the range in
    /// the last word are cleared. Bitsets are copied a word at a time and runs filled a
    /// word at a time. Allocates nothing.
    ///
    /// # Panics
    ///
    /// If `out` has fewer than `ceil(range.len() / 64)` words.
    ///
    /// ```
    /// # use frozen_roaring::{DeletionVector, Writer};
    /// let mut frame = Vec::new();
    /// Writer::new().write_deletion_vector([2, 3, 70], &mut frame)?;
    /// let dv = DeletionVector::from_bytes(&frame)?;
    /// let mut deleted = [0u64; 2];
    /// dv.bitmap().fill_mask(0..128, &mut deleted);
    /// assert_eq!(deleted, [0b1100, 1 << 6]);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn fill_mask(&self, range: Range<u64>, out: &mut [u64]) {
        let (lo, hi) = (range.start, range.end.max(range.start));
        let words = usize::try_from((hi - lo).div_ceil(64)).unwrap_or(usize::MAX);
        assert!(
            out.len() >= words,
            "fill_mask: the range needs {words} words, `out` has {}",
            out.len()
        );
        let out = &mut out[..words];
        out.fill(0);
        for (k, b) in self.buckets() {
            let base = u64::from(k) << 32;
            if base >= hi {
                break;
            }
            // The bucket's part of the range, as low bits (`hi - base`: `hi > base`).
            let (from, to) = (lo.saturating_sub(base), (hi - base).min(1 << 32));
            if from >= 1 << 32 {
                continue;
            }
            b.or_mask(from, to, out, base + from - lo);
        }
    }

    /// The ranges of `range` that hold no value of the set, in order: for a deletion
    /// vector, the rows a scan keeps (what arrow-rs's `RowSelection` takes). Allocates
    /// nothing.
    ///
    /// ```
    /// # use frozen_roaring::{DeletionVector, Writer};
    /// let mut frame = Vec::new();
    /// Writer::new().write_deletion_vector([2, 3, 70], &mut frame)?;
    /// let dv = DeletionVector::from_bytes(&frame)?;
    /// let kept: Vec<_> = dv.bitmap().live_ranges(0..100).collect();
    /// assert_eq!(kept, [0..2, 4..70, 71..100]);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn live_ranges(&self, range: Range<u64>) -> LiveRanges64<'a> {
        let mut runs = self.iter();
        runs.advance_to(range.start);
        LiveRanges64 {
            runs,
            next: range.start,
            end: range.end,
        }
    }
}

/// Iterator over the gaps of a 64-bit bitmap in a range ([`FrozenBitmap64::live_ranges`]).
#[derive(Clone, Debug)]
pub struct LiveRanges64<'a> {
    runs: Iter64<'a>,
    next: u64,
    end: u64,
}

impl Iterator for LiveRanges64<'_> {
    type Item = Range<u64>;

    fn next(&mut self) -> Option<Range<u64>> {
        let runs = &mut self.runs;
        crate::view::next_gap(&mut self.next, self.end, || runs.next_range())
    }
}
