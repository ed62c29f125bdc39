//! Container kernels: queries on one container, independent of the format its directory
//! came from. A [`Container`] is a typed, zero-copy view of one payload.

pub(crate) mod count;
#[cfg(feature = "alloc")]
pub(crate) mod extract;
pub(crate) mod iter;
mod located;
pub(crate) mod relate;
pub(crate) mod validate;

pub(crate) use located::Located;

use crate::cast::{BitsetLE, RunLE, U16};
use crate::format::ContainerKind;

/// One container's payload, borrowed from the bitmap's bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Container<'a> {
    /// Sorted low parts.
    Array(&'a [U16]),
    /// 1024 words of bits.
    Bitset(&'a BitsetLE),
    /// Sorted runs.
    Run(&'a [RunLE]),
}

/// The empty container, returned where an unchecked view's bytes do not hold a payload.
pub(crate) const EMPTY: Container<'static> = Container::Array(&[]);

impl<'a> Container<'a> {
    /// The kind of this container.
    pub(crate) fn kind(&self) -> ContainerKind {
        match self {
            Container::Array(_) => ContainerKind::Array,
            Container::Bitset(_) => ContainerKind::Bitset,
            Container::Run(_) => ContainerKind::Run,
        }
    }

    /// Whether `lo` is in the container.
    #[inline]
    pub(crate) fn contains(&self, lo: u16) -> bool {
        match self {
            Container::Array(a) => array_contains(a, lo),
            Container::Bitset(b) => (b[usize::from(lo >> 6)].get() >> (lo & 63)) & 1 != 0,
            Container::Run(r) => runs_contain(r, lo),
        }
    }

    /// The number of values `<= lo`.
    pub(crate) fn rank(&self, lo: u16) -> u32 {
        match self {
            Container::Array(a) => array_rank(a, lo),
            Container::Bitset(b) => {
                let w = usize::from(lo >> 6);
                let full = count::count_words(&b[..w]);
                let mask = u64::MAX >> (63 - (lo & 63));
                full + (b[w].get() & mask).count_ones()
            }
            Container::Run(r) => {
                let lo = u32::from(lo);
                let mut n = 0;
                for run in *r {
                    let s = run.start();
                    if s > lo {
                        break;
                    }
                    n += run.end().min(lo) - s + 1;
                }
                n
            }
        }
    }

    /// The `n`-th smallest value (0-based), if there are more than `n`.
    pub(crate) fn select(&self, n: u32) -> Option<u16> {
        match self {
            Container::Array(a) => a.get(n as usize).map(|x| x.get()),
            Container::Bitset(b) => select_in_bitset(b, n),
            Container::Run(r) => {
                let mut left = n;
                for run in *r {
                    let len = run.end() - run.start() + 1;
                    if left < len {
                        return Some((run.start() + left) as u16);
                    }
                    left -= len;
                }
                None
            }
        }
    }

    /// The smallest value.
    pub(crate) fn min(&self) -> Option<u16> {
        match self {
            Container::Array(a) => a.first().map(|x| x.get()),
            Container::Bitset(b) => b
                .iter()
                .position(|w| w.get() != 0)
                .map(|i| (i * 64) as u16 + b[i].get().trailing_zeros() as u16),
            Container::Run(r) => r.first().map(|x| x.start.get()),
        }
    }

    /// The largest value.
    pub(crate) fn max(&self) -> Option<u16> {
        match self {
            Container::Array(a) => a.last().map(|x| x.get()),
            Container::Bitset(b) => b
                .iter()
                .rposition(|w| w.get() != 0)
                .map(|i| (i * 64) as u16 + 63 - b[i].get().leading_zeros() as u16),
            Container::Run(r) => r.last().map(|x| x.end() as u16),
        }
    }

    /// Bytes the payload takes in the frozen format (a run container's count included).
    pub(crate) fn stored_len(&self) -> usize {
        match self {
            Container::Array(a) => 2 * a.len(),
            Container::Bitset(_) => crate::cast::BITSET_BYTES,
            Container::Run(r) => 2 + 4 * r.len(),
        }
    }
}

/// The `n`-th set bit of a bitset: whole blocks of words counted by the CPU's popcount,
/// then word by word in the block that holds it (out of line: arrays and runs, the common
/// case, keep `select` small).
#[inline(never)]
fn select_in_bitset(b: &crate::cast::BitsetLE, n: u32) -> Option<u16> {
    let mut left = n;
    for (k, block) in b.chunks(SELECT_BLOCK).enumerate() {
        let c = count::count_words(block);
        if left >= c {
            left -= c;
            continue;
        }
        for (i, w) in block.iter().enumerate() {
            let w = w.get();
            let c = w.count_ones();
            if left < c {
                let word = (k * SELECT_BLOCK + i) as u32;
                return Some((word * 64 + select_in_word(w, left)) as u16);
            }
            left -= c;
        }
    }
    None
}

/// Words of a bitset that `select` counts at once before it looks at single words: long
/// enough for the vector popcount to pay for its call, short enough that the word-by-word
/// pass in the block that holds the value stays short.
const SELECT_BLOCK: usize = 32;

/// Position of the `n`-th set bit of `w` (requires `n < w.count_ones()`).
#[inline]
pub(crate) fn select_in_word(mut w: u64, n: u32) -> u32 {
    for _ in 0..n {
        w &= w.wrapping_sub(1);
    }
    w.trailing_zeros()
}

/// Whether two containers that both store `card` values hold the same values.
pub(crate) fn equal(a: Container<'_>, b: Container<'_>, card: u32) -> bool {
    use crate::cast::bytes_of;
    match (a, b) {
        (Container::Array(x), Container::Array(y)) => bytes_of(x) == bytes_of(y),
        (Container::Bitset(x), Container::Bitset(y)) => bytes_of(&x[..]) == bytes_of(&y[..]),
        (Container::Run(x), Container::Run(y)) => bytes_of(x) == bytes_of(y),
        _ => count::intersection_len(a, b) == u64::from(card),
    }
}

#[cfg(feature = "alloc")]
/// The payload's bytes as stored (for runs: the runs, without the run count before them).
pub(crate) fn payload_bytes<'a>(c: &Container<'a>) -> &'a [u8] {
    use crate::cast::bytes_of;
    match *c {
        Container::Array(a) => bytes_of(a),
        Container::Bitset(b) => bytes_of(&b[..]),
        Container::Run(r) => bytes_of(r),
    }
}

/// Whether either operand is a bitset: the pairwise kernels' AVX-512 copies pay there
/// (see `crate::simd::dispatch`).
#[inline(always)]
#[allow(dead_code)] // used only where the x86-64 kernels are compiled
pub(crate) fn has_bitset(a: Container<'_>, b: Container<'_>) -> bool {
    matches!(a, Container::Bitset(_)) || matches!(b, Container::Bitset(_))
}

/// Runs compared at once at the end of [`runs_contain`]'s search (32 bytes).
const RUN_WINDOW: usize = 8;

/// Whether one of the sorted runs holds `lo`: a branch-free search down to [`RUN_WINDOW`]
/// runs, then one vector comparison of a window that holds them.
#[inline]
fn runs_contain(runs: &[RunLE], lo: u16) -> bool {
    let holds = |found: bool, r: &RunLE| {
        found | (u32::from(lo).wrapping_sub(r.start()) <= u32::from(r.len_minus_one.get()))
    };
    if runs.len() < RUN_WINDOW {
        // A short list: every run compared, the last one standing in for the missing
        // ones, so that nothing branches on their number.
        return match runs {
            [] => false,
            [run] => holds(false, run),
            [.., _] => {
                let last = runs.len() - 1;
                (0..RUN_WINDOW).fold(false, |found, k| holds(found, &runs[k.min(last)]))
            }
        };
    }
    let at = narrow(runs, RUN_WINDOW, |r| r.start.get() <= lo);
    runs[at..at + RUN_WINDOW].iter().fold(false, holds)
}

/// The start of a `window` of `items` (`1 <= window <= items.len()`; 0 when there are no
/// items) that holds the last item for which `at_or_before` holds, if any: a branch-free
/// binary search that stops when `window` items remain.
#[inline(always)]
fn narrow<T>(items: &[T], window: usize, at_or_before: impl Fn(&T) -> bool) -> usize {
    let mut base = 0;
    let mut size = items.len();
    while size > window {
        let half = size / 2;
        let mid = base + half;
        base = core::hint::select_unpredictable(at_or_before(&items[mid]), mid, base);
        size -= half;
    }
    base.min(items.len().saturating_sub(window))
}

/// Values compared at once at the end of [`array_contains`]'s search: one 32-byte vector
/// (two SSE2 compares); below it the comparison replaces the search's last four steps.
const WINDOW: usize = 16;

/// Whether the sorted array holds `lo`: a branch-free search down to [`WINDOW`] values,
/// then one vector comparison of a window that holds them, which replaces the search's
/// last, serially dependent steps.
#[inline]
fn array_contains(a: &[U16], lo: u16) -> bool {
    if a.len() < WINDOW {
        return a.binary_search_by(|x| x.get().cmp(&lo)).is_ok();
    }
    let at = narrow(a, WINDOW, |x| x.get() <= lo);
    a[at..at + WINDOW]
        .iter()
        .fold(false, |found, x| found | (x.get() == lo))
}

/// The number of values `< lo` in the sorted array ([`array_rank`] of `lo - 1`; none below
/// 0).
#[inline(always)]
pub(crate) fn array_below(a: &[U16], lo: u16) -> u32 {
    match lo.checked_sub(1) {
        Some(below) => array_rank(a, below),
        None => 0,
    }
}

/// The number of values `<= lo` in the sorted array: the search of [`array_contains`], then
/// the window's values counted at once.
#[inline]
pub(crate) fn array_rank(a: &[U16], lo: u16) -> u32 {
    if a.len() < WINDOW {
        return a.partition_point(|x| x.get() <= lo) as u32;
    }
    // Every value before the window is `<= lo` and every value after it `> lo`.
    let at = narrow(a, WINDOW, |x| x.get() <= lo);
    let window = a[at..at + WINDOW]
        .try_into()
        .unwrap_or(&[U16::ZERO; WINDOW]);
    at as u32 + crate::simd::window_at_or_below(window, lo)
}
