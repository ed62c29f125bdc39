//! Row masks for scans: the set's values in a range as a bitmask (`fill_mask`), and the
//! gaps between them (`live_ranges`, the rows a deletion vector keeps).

use core::ops::Range;

use super::{FrozenBitmap, Iter};
use crate::container::Container;

impl FrozenBitmap<'_> {
    /// Overwrites the first `ceil(range.len() / 64)` words of `out` so that bit `i` (bit
    /// `i % 64` of word `i / 64`) is set exactly when `range.start + i` is in the set; the
    /// bits past the range's end in the last word are cleared. Bitsets are copied a word
    /// at a time (shifted), runs filled a word at a time; only array values are set one by
    /// one. Allocates nothing.
    ///
    /// # Panics
    ///
    /// If `out` has fewer than `ceil(range.len() / 64)` words.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmapBuf};
    /// let deleted = FrozenBitmapBuf::from_sorted_iter([3, 64, 65, 200])?;
    /// let mut mask = [0u64; 2];
    /// deleted.as_view().fill_mask(60..188, &mut mask);
    /// assert_eq!(mask, [0b11 << 4, 0]);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn fill_mask(&self, range: Range<u32>, out: &mut [u64]) {
        let (lo, hi) = (
            u64::from(range.start),
            u64::from(range.end.max(range.start)),
        );
        let words = (hi - lo).div_ceil(64) as usize;
        assert!(
            out.len() >= words,
            "fill_mask: the range needs {words} words, `out` has {}",
            out.len()
        );
        let out = &mut out[..words];
        out.fill(0);
        self.or_mask(lo, hi, out, 0);
    }

    /// Sets bit `v - lo + at` of `out` for every value `v` of the set in `lo..hi`
    /// (`hi <= 2^32`); `out` must hold bit `hi - lo + at - 1`. The words past the one
    /// that holds bit `at` must be zero (an array's values are stored a word at a time,
    /// not or-ed in): [`fill_mask`](Self::fill_mask) zeroes them and takes the buckets
    /// and containers in order, so that only the first word a container writes may hold
    /// bits of the one before.
    pub(crate) fn or_mask(&self, lo: u64, hi: u64, out: &mut [u64], at: u64) {
        if lo >= hi {
            return;
        }
        let dir = &self.dir;
        let n = dir.n();
        let mut i = dir.lower_bound((lo >> 16) as u16, 0, n);
        while i < n {
            let base = u64::from(dir.key(i)) << 16;
            if base >= hi {
                break;
            }
            // The part of this container in the range, as low bits.
            let (from, to) = (lo.max(base) - base, hi.min(base + 65_536) - base);
            let shift = |v: u64| base + v - lo + at;
            match dir.container(i) {
                Container::Array(a) => {
                    // Sorted values: the ones in range are a slice, set without a compare
                    // each (a corrupt, unsorted array only gives wrong bits: `get_mut`).
                    let start = a.partition_point(|x| u64::from(x.get()) < from);
                    let end = start + a[start..].partition_point(|x| u64::from(x.get()) < to);
                    set_values(&a[start..end], (base + at).wrapping_sub(lo), out);
                }
                Container::Run(runs) => {
                    let start = runs.partition_point(|r| u64::from(r.end()) < from);
                    for r in &runs[start..] {
                        let s = u64::from(r.start()).max(from);
                        // A corrupt run may end before it starts: then it sets nothing.
                        let e = (u64::from(r.end()) + 1).max(s);
                        if s >= to {
                            break;
                        }
                        set_bits(out, shift(s), shift(e.min(to)));
                    }
                }
                Container::Bitset(words) => {
                    let span = (from / 64) as usize..to.div_ceil(64) as usize;
                    for (w, stored) in span.clone().zip(&words[span]) {
                        let first = 64 * w as u64;
                        let mut word = stored.get();
                        if first < from {
                            word &= u64::MAX << (from - first);
                        }
                        if first + 64 > to {
                            word &= u64::MAX >> (first + 64 - to);
                        }
                        if word != 0 {
                            or_word(
                                out,
                                first as i64 + base as i64 - lo as i64 + at as i64,
                                word,
                            );
                        }
                    }
                }
            }
            i += 1;
        }
    }

    /// The ranges of `range` that hold no value of the set, in order: for a deletion
    /// vector, the rows a scan keeps (what arrow-rs's `RowSelection` takes). O(1) per
    /// range for run containers; allocates nothing.
    ///
    /// ```
    /// # use frozen_roaring::FrozenBitmapBuf;
    /// let deleted = FrozenBitmapBuf::from_sorted_iter([3, 4, 5, 9])?;
    /// let kept: Vec<_> = deleted.as_view().live_ranges(0..12).collect();
    /// assert_eq!(kept, [0..3, 6..9, 10..12]);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn live_ranges(&self, range: Range<u32>) -> LiveRanges<'_> {
        let mut runs = self.iter();
        runs.advance_to(range.start);
        LiveRanges {
            runs,
            next: range.start,
            end: range.end,
        }
    }
}

/// Iterator over the gaps of a bitmap in a range ([`FrozenBitmap::live_ranges`]).
#[derive(Clone, Debug)]
pub struct LiveRanges<'a> {
    runs: Iter<'a>,
    /// Start of the next gap.
    next: u32,
    end: u32,
}

impl Iterator for LiveRanges<'_> {
    type Item = Range<u32>;

    fn next(&mut self) -> Option<Range<u32>> {
        let runs = &mut self.runs;
        next_gap(&mut self.next, self.end, || runs.next_range())
    }
}

/// The next gap before `end` from `*next` on, between the maximal runs `runs` gives in
/// ascending order (from `*next` on): the work of both widths' `live_ranges`.
pub(crate) fn next_gap<T: Copy + Ord + Successor>(
    next: &mut T,
    end: T,
    mut runs: impl FnMut() -> Option<core::ops::RangeInclusive<T>>,
) -> Option<Range<T>> {
    while *next < end {
        let Some(run) = runs() else {
            let gap = *next..end;
            *next = end;
            return Some(gap);
        };
        let (s, e) = (*run.start(), *run.end());
        let gap = *next..s.min(end);
        if e >= *next {
            *next = e.successor().map_or(end, |n| n.min(end));
        }
        if gap.start < gap.end {
            return Some(gap);
        }
    }
    None
}

/// The next value, if there is one.
pub(crate) trait Successor: Sized {
    /// `self + 1`, `None` at the maximum.
    fn successor(self) -> Option<Self>;
}

impl Successor for u32 {
    fn successor(self) -> Option<u32> {
        self.checked_add(1)
    }
}

impl Successor for u64 {
    fn successor(self) -> Option<u64> {
        self.checked_add(1)
    }
}

crate::simd::dispatch! {
    /// Sets bit `off + v` of `out` for each value `v` of `values` (sorted), compiled for
    /// each CPU level (one-instruction variable shifts where the CPU has BMI2). Of the
    /// words it writes, only the first may hold bits already (see
    /// [`FrozenBitmap::or_mask`]).
    fn set_values(values: &[crate::cast::U16], off: u64, out: &mut [u64]) -> () => set_values_impl;
}

/// See [`set_values`]. The bits of the current word are gathered in a register and the
/// word stored whole after each value, with no load: an `|=` into memory per value waited,
/// whenever two values shared a word (about one in two in a sparse DV), for the store
/// before it to be forwarded.
#[inline(always)]
fn set_values_impl(values: &[crate::cast::U16], off: u64, out: &mut [u64]) {
    let Some(first) = values.first() else {
        return;
    };
    // Where every 16-bit value lands inside `out` (a container wholly in the mask's
    // range), the values are set in a window of fixed length that no index can leave:
    // no bounds check per value, a fifth of the loop's instructions.
    let (w0, r) = ((off / 64) as usize, (off % 64) as u32);
    if off <= u64::MAX - 0xFFFF
        && let Some(rest) = out.get_mut(w0..)
    {
        if r == 0 {
            if let Some(window) = rest.first_chunk_mut::<WINDOW>() {
                return set_in_window(values, 0, window);
            }
        } else if let Some(window) = rest.first_chunk_mut::<{ WINDOW + 1 }>() {
            return set_in_window(values, r, window);
        }
    }
    let mut cur = (off.wrapping_add(u64::from(first.get())) / 64) as usize;
    // The first word may hold an earlier container's bits; the others are still zero.
    let mut acc = out.get(cur).copied().unwrap_or(0);
    for x in values {
        let b = off.wrapping_add(u64::from(x.get()));
        let w = (b / 64) as usize;
        // Kept while the word is the same, dropped at the next (sorted values only move
        // on; a corrupt, unsorted array only gives wrong bits).
        acc = (acc & u64::from(w == cur).wrapping_neg()) | 1 << (b % 64);
        cur = w;
        if let Some(word) = out.get_mut(w) {
            *word = acc;
        }
    }
}

/// The words of a container's 65,536 bits.
const WINDOW: usize = 1024;

/// [`set_values_impl`] in the `N` words from the one that holds the container's bit 0,
/// which is bit `r` (below 64) of `window[0]`: `N` is [`WINDOW`] when `r` is 0, one more
/// otherwise, so that `(r + v) / 64` is always an index of `window`.
///
/// The values are split in two halves that share no word, each with its own word in a
/// register: one chain alone waits two cycles a value (select, then set the bit), two
/// chains interleaved keep the integer units busy instead.
#[inline(always)]
fn set_in_window<const N: usize>(values: &[crate::cast::U16], r: u32, window: &mut [u64; N]) {
    let r = r % 64;
    let word_of = |x: &crate::cast::U16| (r + u32::from(x.get())) / 64;
    // The second half starts at the first value of a word (sorted values: the words
    // before it are all the first half's; a corrupt, unsorted array only gives wrong
    // bits).
    let mut mid = values.len() / 2;
    while mid > 0 && mid < values.len() && word_of(&values[mid]) == word_of(&values[mid - 1]) {
        mid += 1;
    }
    let (low, high) = values.split_at(mid);
    // The first word may hold an earlier container's bits; the others are still zero.
    let mut a = Chain::start(low, r, window);
    let mut b = Chain::start(high, r, window);
    let pairs = low.len().min(high.len());
    for (x, y) in low[..pairs].iter().zip(&high[..pairs]) {
        a.set(r + u32::from(x.get()), window);
        b.set(r + u32::from(y.get()), window);
    }
    for x in &low[pairs..] {
        a.set(r + u32::from(x.get()), window);
    }
    for y in &high[pairs..] {
        b.set(r + u32::from(y.get()), window);
    }
}

/// One run of stores in [`set_in_window`]: the word being filled and its bits so far.
struct Chain {
    cur: u32,
    acc: u64,
}

impl Chain {
    /// Before the first of `values` (none: a chain that is never used).
    #[inline(always)]
    fn start<const N: usize>(values: &[crate::cast::U16], r: u32, window: &[u64; N]) -> Chain {
        let cur = values.first().map_or(0, |x| (r + u32::from(x.get())) / 64);
        let acc = window.get(cur as usize).copied().unwrap_or(0);
        Chain { cur, acc }
    }

    /// Sets bit `b` (below `64 * N`): the bits gathered are kept while the word is the
    /// same, dropped at the next, and the word stored whole.
    #[inline(always)]
    fn set<const N: usize>(&mut self, b: u32, window: &mut [u64; N]) {
        let w = b / 64;
        self.acc = (self.acc & u64::from(w == self.cur).wrapping_neg()) | 1 << (b % 64);
        self.cur = w;
        if let Some(word) = window.get_mut(w as usize) {
            *word = self.acc;
        }
    }
}

#[inline]
pub(crate) fn set_bits(out: &mut [u64], from: u64, to: u64) {
    if from >= to {
        return;
    }
    let (fw, lw) = ((from / 64) as usize, ((to - 1) / 64) as usize);
    let first = u64::MAX << (from % 64);
    let last = u64::MAX >> (63 - (to - 1) % 64);
    if fw == lw {
        out[fw] |= first & last;
    } else {
        out[fw] |= first;
        out[fw + 1..lw].fill(u64::MAX);
        out[lw] |= last;
    }
}

/// ORs `word` into `out` starting at bit `at` (which may be negative: the low bits that
/// fall before bit 0 are dropped; `word`'s set bits must land inside `out`).
#[inline]
pub(crate) fn or_word(out: &mut [u64], at: i64, word: u64) {
    let (at, word) = if at < 0 {
        (0u64, word >> ((-at) as u64).min(63))
    } else {
        (at as u64, word)
    };
    let (w, s) = ((at / 64) as usize, at % 64);
    out[w] |= word << s;
    if s != 0 {
        let spill = word >> (64 - s);
        if spill != 0 {
            out[w + 1] |= spill;
        }
    }
}
