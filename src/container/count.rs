//! Counting kernels: the size of the intersection of two containers, for every pair of
//! kinds, without materializing anything.

use super::Container;
use crate::cast::{BitsetLE, RunLE, U16, U64};
use crate::container::Located;

/// Size ratio above which array ∩ array gallops through the larger array.
const GALLOP_RATIO: usize = 16;
/// Up to this size ratio, a 16-wide SIMD scan of the larger array beats galloping.
const SCAN_RATIO: usize = 256;

crate::simd::dispatch! {
    /// `|a ∩ b|`.
    pub(crate) fn intersection_len(a: Container<'_>, b: Container<'_>) -> u64 => intersection_len_impl,
        wide if crate::container::has_bitset(a, b);
}

/// Below this many words a count runs in place: the call of the kernel compiled for the
/// CPU (a vector popcount, four words a step with AVX2) costs more than it saves.
const WIDE_COUNT: usize = 16;

crate::simd::dispatch! {
    /// The set bits of `words`, compiled for each CPU level.
    fn count_words_wide(words: &[U64]) -> u32 => count_words_impl;
}

#[inline(always)]
fn count_words_impl(words: &[U64]) -> u32 {
    words.iter().map(|w| w.get().count_ones()).sum()
}

/// The set bits of `words` (bitset words): in place when there are few, else by the
/// kernel compiled for the CPU.
#[inline]
pub(crate) fn count_words(words: &[U64]) -> u32 {
    if words.len() < WIDE_COUNT {
        count_words_impl(words)
    } else {
        count_words_wide(words)
    }
}

#[inline(always)]
pub(crate) fn intersection_len_impl(a: Container<'_>, b: Container<'_>) -> u64 {
    use Container::*;
    match (a, b) {
        (Array(x), Array(y)) => array_array(x, y),
        (Array(x), Bitset(y)) | (Bitset(y), Array(x)) => array_bitset(x, y),
        (Array(x), Run(y)) | (Run(y), Array(x)) => array_run(x, y),
        (Bitset(x), Bitset(y)) => bitset_bitset(x, y),
        (Bitset(x), Run(y)) | (Run(y), Bitset(x)) => bitset_run(x, y),
        (Run(x), Run(y)) => run_run(x, y),
    }
}

/// `|a ∩ b|` of two containers where they lie: one match on the pair of kinds (see
/// [`Located`]). A payload the bytes do not hold counts as empty, as
/// [`Located::container`] makes it.
#[inline(always)]
pub(crate) fn intersection_len_located(a: Located<'_>, b: Located<'_>) -> u64 {
    match ((a.code & 3) << 2) | (b.code & 3) {
        0b00_00 => array_array(a.array(), b.array()),
        0b00_01 => b.bitset().map_or(0, |y| array_bitset(a.array(), y)),
        0b00_10 => array_run(a.array(), b.runs()),
        0b01_00 => a.bitset().map_or(0, |x| array_bitset(b.array(), x)),
        0b01_01 => match (a.bitset(), b.bitset()) {
            (Some(x), Some(y)) => bitset_bitset(x, y),
            _ => 0,
        },
        0b01_10 => a.bitset().map_or(0, |x| bitset_run(x, b.runs())),
        0b10_00 => array_run(b.array(), a.runs()),
        0b10_01 => b.bitset().map_or(0, |y| bitset_run(y, a.runs())),
        0b10_10 => run_run(a.runs(), b.runs()),
        _ => 0, // code 3: no container
    }
}

/// Whether bit `v` of the bitset is set.
#[inline]
pub(crate) fn bit(b: &BitsetLE, v: u16) -> bool {
    (b[usize::from(v >> 6)].get() >> (v & 63)) & 1 != 0
}

#[inline(always)]
fn array_array(a: &[U16], b: &[U16]) -> u64 {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if small.is_empty() {
        return 0;
    }
    if small.len() * GALLOP_RATIO < large.len() {
        if small.len() * SCAN_RATIO >= large.len()
            && let Some(n) = crate::simd::scan_count_u16(small, large)
        {
            return n;
        }
        return gallop(small, large);
    }
    // Shorter than one block of the SIMD kernel, which would only merge in scalar code
    // after a call: merged here (pairs of small bitmaps are mostly such arrays).
    if small.len() >= 8
        && let Some(n) = crate::simd::intersect_count_u16(small, large)
    {
        return n;
    }
    // Branch-free merge: both cursors advance on equality.
    let (mut i, mut j, mut n) = (0usize, 0usize, 0u64);
    while i < small.len() && j < large.len() {
        let (x, y) = (small[i].get(), large[j].get());
        n += u64::from(x == y);
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    n
}

/// For each value of `small`, an exponential then binary search in the rest of `large`.
#[inline(always)]
fn gallop(small: &[U16], large: &[U16]) -> u64 {
    let mut n = 0;
    let mut base = 0usize;
    for v in small {
        let v = v.get();
        base = gallop_by(large.len(), base, |k| large[k].get() < v);
        if base >= large.len() {
            break;
        }
        if large[base].get() == v {
            n += 1;
            base += 1;
        }
    }
    n
}

#[inline(always)]
fn array_bitset(a: &[U16], b: &BitsetLE) -> u64 {
    a.iter().map(|v| u64::from(bit(b, v.get()))).sum()
}

/// Similar sizes are merged; otherwise counted from the smaller side, by galloping in the
/// other: for few values, each value's run is found among the runs; for few runs, each
/// run's bounds are found in the array and the values between them counted at once.
#[inline(always)]
fn array_run(a: &[U16], r: &[RunLE]) -> u64 {
    let mut n = 0usize;
    if a.len() < GALLOP_RATIO * r.len() && r.len() < GALLOP_RATIO * a.len() {
        // Similar sizes: one merge pass.
        let (mut i, mut j) = (0, 0);
        while let (Some(v), Some(x)) = (a.get(i), r.get(j)) {
            let v = u32::from(v.get());
            if x.end() < v {
                j += 1;
                continue;
            }
            n += usize::from(x.start() <= v);
            i += 1;
        }
    } else if a.len() <= r.len() {
        let mut j = 0;
        for v in a {
            let v = u32::from(v.get());
            j = gallop_by(r.len(), j, |k| r[k].end() < v);
            let Some(run) = r.get(j) else { break };
            n += usize::from(run.start() <= v);
        }
    } else {
        let mut pos = 0;
        for run in r {
            let (st, en) = (run.start(), run.end());
            pos = gallop_by(a.len(), pos, |k| u32::from(a[k].get()) < st);
            if pos == a.len() {
                break;
            }
            let hi = gallop_by(a.len(), pos, |k| u32::from(a[k].get()) <= en);
            n += hi - pos;
            pos = hi;
        }
    }
    n as u64
}

/// The first index `>= lo` (and `<= len`) where `before` is false, for a `before` that
/// holds on a prefix of `0..len`: the next index is tried first, then steps of 1, 2, 4,
/// ... and a binary search inside the last step.
#[inline(always)]
pub(crate) fn gallop_by(len: usize, mut lo: usize, before: impl Fn(usize) -> bool) -> usize {
    if lo >= len || !before(lo) {
        return lo;
    }
    // Invariant: before(lo).
    let mut step = 1;
    while lo + step < len && before(lo + step) {
        lo += step;
        step *= 2;
    }
    let (mut lo, mut hi) = (lo + 1, (lo + step).min(len));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

#[inline(always)]
fn bitset_bitset(a: &BitsetLE, b: &BitsetLE) -> u64 {
    let n: u32 = a
        .iter()
        .zip(b.iter())
        .map(|(x, y)| (x.get() & y.get()).count_ones())
        .sum();
    u64::from(n)
}

/// Number of set bits of `b` in `start ..= end` (both `<= 65535`).
#[inline(always)]
pub(crate) fn bitset_range_count(b: &BitsetLE, start: u32, end: u32) -> u32 {
    let (ws, we) = ((start >> 6) as usize, (end >> 6) as usize);
    let first_mask = u64::MAX << (start & 63);
    let last_mask = u64::MAX >> (63 - (end & 63));
    if ws == we {
        return (b[ws].get() & first_mask & last_mask).count_ones();
    }
    // In place: this runs inside kernels already compiled for the CPU.
    let n = (b[ws].get() & first_mask).count_ones() + count_words_impl(&b[ws + 1..we]);
    n + (b[we].get() & last_mask).count_ones()
}

#[inline(always)]
fn bitset_run(b: &BitsetLE, r: &[RunLE]) -> u64 {
    r.iter()
        .map(|run| u64::from(bitset_range_count(b, run.start(), run.end())))
        .sum()
}

/// Overlap of two sorted run lists, merging: the run that ends first is replaced. Counts use
/// unclamped ends (a corrupt run past 65535 can only make the count wrong, never panic).
#[inline(always)]
fn run_run(a: &[RunLE], b: &[RunLE]) -> u64 {
    let bounds = |r: &RunLE| (r.start(), r.start() + u32::from(r.len_minus_one.get()));
    let (Some(first_a), Some(first_b)) = (a.first(), b.first()) else {
        return 0;
    };
    let ((mut s1, mut e1), (mut s2, mut e2)) = (bounds(first_a), bounds(first_b));
    let (mut i, mut j, mut n) = (0usize, 0usize, 0u64);
    loop {
        if e1 < s2 {
            i += 1;
            match a.get(i) {
                Some(r) => (s1, e1) = bounds(r),
                None => return n,
            }
            continue;
        }
        if e2 < s1 {
            j += 1;
            match b.get(j) {
                Some(r) => (s2, e2) = bounds(r),
                None => return n,
            }
            continue;
        }
        n += u64::from(e1.min(e2) + 1 - s1.max(s2));
        let (adv_a, adv_b) = (e1 <= e2, e2 <= e1);
        if adv_a {
            i += 1;
            match a.get(i) {
                Some(r) => (s1, e1) = bounds(r),
                None => return n,
            }
        }
        if adv_b {
            j += 1;
            match b.get(j) {
                Some(r) => (s2, e2) = bounds(r),
                None => return n,
            }
        }
    }
}
