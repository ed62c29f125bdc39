//! Relations that stop at the first value that decides them: whether two containers share a
//! value, whether one holds every value of the other, and how a container meets a range of
//! low parts (its count there, and whether it holds all of it).
//!
//! Counting the whole intersection answers the first two as well, but reads every value of
//! both; these read up to the first common value, or the first value missing. Every loop is
//! bounded by the slices it reads, so the corrupt payloads of an unchecked view (unsorted
//! values, overlapping runs) can give a wrong answer, never a panic.

use super::count::{bit, gallop_by};
use super::{Container, array_below, array_rank};
use crate::cast::{BitsetLE, RunLE, U16};

/// Size ratio above which a merge gives way to a search of the larger side for each value
/// of the smaller one (as for the intersection counts: a merge reads the larger side
/// whole).
const GALLOP_RATIO: usize = 16;

/// Bitset words combined before the answer is tested: one test per cache line, so that
/// the loop compiles to wide operations rather than a branch per word.
const WORDS_PER_TEST: usize = 8;

/// Whether `a` and `b` share a value.
#[inline(always)]
pub(crate) fn intersects(a: Container<'_>, b: Container<'_>) -> bool {
    use Container::*;
    match (a, b) {
        (Array(x), Array(y)) => arrays_intersect(x, y),
        (Array(x), Bitset(y)) | (Bitset(y), Array(x)) => x.iter().any(|v| bit(y, v.get())),
        (Array(x), Run(y)) | (Run(y), Array(x)) => array_meets_runs(x, y),
        (Bitset(x), Bitset(y)) => bitsets_meet(x, y),
        (Bitset(x), Run(y)) | (Run(y), Bitset(x)) => {
            y.iter().any(|r| any_bit_in(x, r.start(), r.end()))
        }
        (Run(x), Run(y)) => runs_meet(x, y),
    }
}

/// Whether every value of `a` is in `b`, for an `a` that stores `card_a` values.
#[inline(always)]
pub(crate) fn is_subset(a: Container<'_>, b: Container<'_>, card_a: u32) -> bool {
    use Container::*;
    match (a, b) {
        (Array(x), Array(y)) => array_in_array(x, y),
        (Array(x), Bitset(y)) => x.iter().all(|v| bit(y, v.get())),
        (Array(x), Run(y)) => array_in_runs(x, y),
        (Bitset(x), Bitset(y)) => bitset_in_bitset(x, y),
        (Bitset(x), Run(y)) => bitset_in_runs(x, y),
        (Run(x), Array(y)) => x.iter().all(|r| array_holds(y, r.start(), r.end())),
        (Run(x), Bitset(y)) => x.iter().all(|r| all_bits_in(y, r.start(), r.end())),
        (Run(x), Run(y)) => runs_in_runs(x, y),
        // A bitset of at most an array's values (not a canonical bitset): counted.
        (Bitset(_), Array(_)) => super::count::intersection_len(a, b) == u64::from(card_a),
    }
}

impl Container<'_> {
    /// The number of values in `lo ..= hi` (`lo <= hi`). Inlined by force, as
    /// `contains_range`.
    #[inline(always)]
    pub(crate) fn range_len(&self, lo: u16, hi: u16) -> u32 {
        match self {
            Container::Array(a) => {
                // The values up to `hi` less those below `lo`, each count skipped at the
                // container's ends (ranges from or to a container's edge are the
                // common case: every container a range spans but the first and last).
                let to_hi = if hi == u16::MAX {
                    a.len() as u32
                } else {
                    array_rank(a, hi)
                };
                let below = array_below(a, lo);
                to_hi.saturating_sub(below)
            }
            Container::Bitset(b) => {
                // The words between the first and the last counted by the popcount compiled
                // for the CPU when there are many (a range of most of the container).
                let (ws, we) = (usize::from(lo >> 6), usize::from(hi >> 6));
                let (first, last) = (u64::MAX << (lo & 63), u64::MAX >> (63 - (hi & 63)));
                if ws == we {
                    return (b[ws].get() & first & last).count_ones();
                }
                (b[ws].get() & first).count_ones()
                    + super::count::count_words(&b[ws + 1..we])
                    + (b[we].get() & last).count_ones()
            }
            Container::Run(r) => {
                let (lo, hi) = (u32::from(lo), u32::from(hi));
                let from = r.partition_point(|x| x.end() < lo);
                r[from..]
                    .iter()
                    .take_while(|x| x.start() <= hi)
                    .map(|x| (x.end().min(hi) + 1).saturating_sub(x.start().max(lo)))
                    .sum()
            }
        }
    }

    /// Whether every value of `lo ..= hi` (`lo <= hi`) is in the container. Inlined by
    /// force: out of line, the container came to it through the stack (a store and a
    /// wider load, a fifth of a one-container test).
    #[inline(always)]
    pub(crate) fn contains_range(&self, lo: u16, hi: u16) -> bool {
        match self {
            Container::Array(a) => array_holds(a, u32::from(lo), u32::from(hi)),
            Container::Bitset(b) => all_bits_in(b, u32::from(lo), u32::from(hi)),
            Container::Run(r) => {
                let at = r.partition_point(|x| x.start() <= u32::from(lo));
                at.checked_sub(1)
                    .is_some_and(|at| runs_cover(&r[at..], u32::from(lo), u32::from(hi)))
            }
        }
    }
}

/// Whether two bitsets share a set bit, tested a cache line at a time.
fn bitsets_meet(x: &BitsetLE, y: &BitsetLE) -> bool {
    x.chunks(WORDS_PER_TEST)
        .zip(y.chunks(WORDS_PER_TEST))
        .any(|(p, q)| p.iter().zip(q).fold(0, |m, (p, q)| m | (p.get() & q.get())) != 0)
}

/// Whether every set bit of `x` is set in `y`, tested a cache line at a time.
fn bitset_in_bitset(x: &BitsetLE, y: &BitsetLE) -> bool {
    x.chunks(WORDS_PER_TEST)
        .zip(y.chunks(WORDS_PER_TEST))
        .all(|(p, q)| {
            p.iter()
                .zip(q)
                .fold(0, |m, (p, q)| m | (p.get() & !q.get()))
                == 0
        })
}

/// The first and last words of `start ..= end` (both `<= 65535`, `start <= end`) and the
/// masks of its bits in them.
#[inline(always)]
fn range_words(start: u32, end: u32) -> (usize, u64, usize, u64) {
    let (ws, we) = ((start >> 6) as usize, (end >> 6) as usize);
    (
        ws,
        u64::MAX << (start & 63),
        we,
        u64::MAX >> (63 - (end & 63)),
    )
}

/// Whether a bit of `start ..= end` is set.
#[inline(always)]
fn any_bit_in(b: &BitsetLE, start: u32, end: u32) -> bool {
    if start > end {
        return false;
    }
    let (ws, first, we, last) = range_words(start, end);
    if ws == we {
        return b[ws].get() & first & last != 0;
    }
    b[ws].get() & first != 0
        || b[ws + 1..we].iter().any(|w| w.get() != 0)
        || b[we].get() & last != 0
}

/// Whether every bit of `start ..= end` is set.
#[inline(always)]
fn all_bits_in(b: &BitsetLE, start: u32, end: u32) -> bool {
    if start > end {
        return true;
    }
    let (ws, first, we, last) = range_words(start, end);
    if ws == we {
        let m = first & last;
        return b[ws].get() & m == m;
    }
    b[ws].get() & first == first
        && b[ws + 1..we].iter().all(|w| w.get() == u64::MAX)
        && b[we].get() & last == last
}

/// Whether the sorted array holds every value of `start ..= end` (`start <= end <=
/// 65535`): the values from the first at or above `start` increase by at least one a
/// step, so the one `end - start` places on is `end` exactly when they are `start,
/// start + 1, ..., end`.
#[inline(always)]
fn array_holds(a: &[U16], start: u32, end: u32) -> bool {
    // The values below `start`, by `rank`'s search (a window counted at once at its end).
    let at = array_below(a, start as u16) as usize;
    a.get(at + (end - start) as usize)
        .is_some_and(|x| u32::from(x.get()) == end)
}

/// Whether `start ..= end` lies in the runs from the first of `runs` on, which starts at or
/// before `start` (runs that touch count as one, as other writers may leave them).
#[inline(always)]
fn runs_cover(runs: &[RunLE], start: u32, end: u32) -> bool {
    let Some((first, rest)) = runs.split_first() else {
        return false;
    };
    let mut covered = first.end();
    if covered < start {
        return false;
    }
    for r in rest {
        if covered >= end {
            break;
        }
        if r.start() != covered + 1 {
            return false;
        }
        covered = r.end();
    }
    covered >= end
}

/// Whether two sorted arrays share a value: each value of the smaller searched in the
/// larger (galloping) when their sizes are far apart, else one merge that stops at the
/// first common value.
fn arrays_intersect(a: &[U16], b: &[U16]) -> bool {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let (Some(s_last), Some(l_last)) = (small.last(), large.last()) else {
        return false;
    };
    // Value ranges apart: no search at all.
    if s_last.get() < large[0].get() || l_last.get() < small[0].get() {
        return false;
    }
    if small.len() * GALLOP_RATIO < large.len() {
        let mut base = 0;
        for v in small {
            let v = v.get();
            base = gallop_by(large.len(), base, |k| large[k].get() < v);
            match large.get(base) {
                None => return false,
                Some(x) if x.get() == v => return true,
                Some(_) => {}
            }
        }
        return false;
    }
    // The vector compare takes blocks of 8: a shorter array is merged here, without a call.
    if small.len() >= 8
        && let Some(met) = crate::simd::arrays_meet(small, large)
    {
        return met;
    }
    let (mut i, mut j) = (0, 0);
    while let (Some(x), Some(y)) = (small.get(i), large.get(j)) {
        let (x, y) = (x.get(), y.get());
        if x == y {
            return true;
        }
        i += usize::from(x < y);
        j += usize::from(y < x);
    }
    false
}

/// The first chunk of `a` whose values [`all_in`] counts at once: large enough for the
/// vector count's blocks of 8 to pay for the call, small enough that a value missing early
/// (most pairs that are not subsets) is found after a few dozen values. Each next chunk
/// is twice as long.
const FIRST_CHUNK: usize = 32;

/// Whether every value of `a` is in `b` (both sorted), counted by the vector kernel for
/// chunks of `a` that double in length from [`FIRST_CHUNK`], each against the values of
/// `b` up to its last one (found by galloping from the last chunk's end); `None` if the
/// CPU has no vector count (nothing done).
fn all_in(a: &[U16], b: &[U16]) -> Option<bool> {
    let (mut rest, mut from, mut len) = (a, 0, FIRST_CHUNK);
    while let Some(last) = rest.get(len.min(rest.len()).wrapping_sub(1)) {
        let (chunk, next) = rest.split_at(len.min(rest.len()));
        let top = last.get();
        let end = gallop_by(b.len(), from, |k| b[k].get() <= top);
        let window = b.get(from..end).unwrap_or(&[]);
        if crate::simd::intersect_count_u16(chunk, window)? != chunk.len() as u64 {
            return Some(false);
        }
        (rest, from, len) = (next, end, len * 2);
    }
    Some(true)
}

/// Whether a value of the sorted array lies in one of the sorted runs: a merge in which
/// each side skips ahead by galloping (to the first run that ends at or after the value,
/// to the first value at or after the run's start), so a few runs among many values, or
/// a few values among many runs, are passed over in a few steps.
fn array_meets_runs(a: &[U16], r: &[RunLE]) -> bool {
    let (mut i, mut j) = (0, 0);
    while let Some(v) = a.get(i) {
        let v = u32::from(v.get());
        j = gallop_by(r.len(), j, |k| r[k].end() < v);
        let Some(x) = r.get(j) else { return false };
        if x.start() <= v {
            return true;
        }
        let start = x.start();
        i = gallop_by(a.len(), i + 1, |k| u32::from(a[k].get()) < start);
    }
    false
}

/// Whether two sorted run lists overlap: for each run of `a` the first run of `b` that
/// ends at or after its start, found by galloping, and the same the other way, so that
/// a side with few runs passes over the other's many in a few steps.
fn runs_meet(a: &[RunLE], b: &[RunLE]) -> bool {
    let (mut i, mut j) = (0, 0);
    while let Some(x) = a.get(i) {
        let start = x.start();
        j = gallop_by(b.len(), j, |k| b[k].end() < start);
        let Some(y) = b.get(j) else { return false };
        if y.start() <= x.end() {
            return true;
        }
        let next = y.start();
        i = gallop_by(a.len(), i + 1, |k| a[k].end() < next);
    }
    false
}

/// Whether every value of the sorted array `a` is in the sorted array `b`: searched for
/// (galloping) when `b` is far larger, else one merge that stops at the first value
/// missing.
fn array_in_array(a: &[U16], b: &[U16]) -> bool {
    if a.len() > b.len() {
        return false;
    }
    if a.len() * GALLOP_RATIO < b.len() {
        let mut base = 0;
        for v in a {
            let v = v.get();
            base = gallop_by(b.len(), base, |k| b[k].get() < v);
            if b.get(base).is_none_or(|x| x.get() != v) {
                return false;
            }
            base += 1;
        }
        return true;
    }
    if a.len() >= 8
        && let Some(all) = all_in(a, b)
    {
        return all;
    }
    // Every step takes the next value of `b`, and the next of `a` too when they are equal;
    // a value of `b` past the one sought means that one is missing.
    let mut i = 0;
    for y in b {
        let Some(x) = a.get(i) else { return true };
        if y.get() > x.get() {
            return false;
        }
        i += usize::from(y.get() == x.get());
    }
    i == a.len()
}

/// Whether every value of the sorted array lies in one of the sorted runs: for each value
/// the first run that ends at or after it, found by galloping.
fn array_in_runs(a: &[U16], r: &[RunLE]) -> bool {
    let mut j = 0;
    for v in a {
        let v = u32::from(v.get());
        j = gallop_by(r.len(), j, |k| r[k].end() < v);
        if r.get(j).is_none_or(|x| x.start() > v) {
            return false;
        }
    }
    true
}

/// Whether every set bit of the bitset lies in one of the sorted runs: no bit set in the
/// gaps before, between and after them.
fn bitset_in_runs(b: &BitsetLE, r: &[RunLE]) -> bool {
    let mut from = 0u32;
    for x in r {
        if x.start() > from && any_bit_in(b, from, x.start() - 1) {
            return false;
        }
        from = from.max(x.end() + 1);
    }
    from > 0xFFFF || !any_bit_in(b, from, 0xFFFF)
}

/// Whether every run of `a` lies in the runs of `b` (both sorted).
fn runs_in_runs(a: &[RunLE], b: &[RunLE]) -> bool {
    let mut j = 0;
    for x in a {
        // The last run of `b` that starts at or before `x`.
        while b.get(j + 1).is_some_and(|y| y.start() <= x.start()) {
            j += 1;
        }
        if b.get(j).is_none_or(|y| y.start() > x.start())
            || !runs_cover(&b[j..], x.start(), x.end())
        {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cast::U64;
    use alloc::{boxed::Box, collections::BTreeSet, vec::Vec};

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: u32) -> u32 {
            (self.next() % u64::from(n.max(1))) as u32
        }
    }

    /// One set in every payload form, whatever its size: an array, a bitset, its maximal
    /// runs, and its runs cut in two where they are long enough (runs that touch, which
    /// other writers may leave).
    struct Forms {
        array: Vec<U16>,
        bitset: Box<BitsetLE>,
        runs: Vec<RunLE>,
        touching: Vec<RunLE>,
    }

    fn run(start: u32, end: u32) -> RunLE {
        RunLE {
            start: U16::new(start as u16),
            len_minus_one: U16::new((end - start) as u16),
        }
    }

    fn forms(s: &BTreeSet<u16>, rng: &mut Rng) -> Forms {
        let mut bitset = Box::new([U64::new(0); crate::cast::BITSET_WORDS]);
        for &v in s {
            let w = &mut bitset[usize::from(v >> 6)];
            *w = U64::new(w.get() | 1 << (v & 63));
        }
        let mut spans: Vec<(u32, u32)> = Vec::new();
        for &v in s {
            let v = u32::from(v);
            match spans.last_mut() {
                Some((_, e)) if *e + 1 == v => *e = v,
                _ => spans.push((v, v)),
            }
        }
        let runs = spans.iter().map(|&(a, b)| run(a, b)).collect();
        let mut touching = Vec::new();
        for &(a, b) in &spans {
            if b > a {
                let cut = a + rng.below(b - a);
                touching.extend([run(a, cut), run(cut + 1, b)]);
            } else {
                touching.push(run(a, b));
            }
        }
        Forms {
            array: s.iter().map(|&v| U16::new(v)).collect(),
            bitset,
            runs,
            touching,
        }
    }

    impl Forms {
        fn all(&self) -> [Container<'_>; 4] {
            [
                Container::Array(&self.array),
                Container::Bitset(&self.bitset),
                Container::Run(&self.runs),
                Container::Run(&self.touching),
            ]
        }
    }

    /// A set in a window of the 65,536 low parts, so that two sets meet often: empty,
    /// sparse, dense, runs, or full.
    fn random_set(rng: &mut Rng) -> BTreeSet<u16> {
        let base = [0, 0xFFFF - 300, rng.below(0xFF00)][rng.below(3) as usize];
        let width = 1 + rng.below(300);
        let top = (base + width).min(0xFFFF);
        match rng.below(5) {
            0 => BTreeSet::new(),
            1 => (0..rng.below(40))
                .map(|_| (base + rng.below(width)).min(top) as u16)
                .collect(),
            2 => (base..=top)
                .filter(|_| rng.below(3) != 0)
                .map(|v| v as u16)
                .collect(),
            3 => {
                let mut s = BTreeSet::new();
                let mut at = base;
                while at <= top {
                    let len = rng.below(20);
                    s.extend((at..=(at + len).min(top)).map(|v| v as u16));
                    at += len + 2 + rng.below(10);
                }
                s
            }
            _ => (base..=top).map(|v| v as u16).collect(),
        }
    }

    /// `s` less some values, or with one value added, or unchanged.
    fn relative(s: &BTreeSet<u16>, rng: &mut Rng) -> BTreeSet<u16> {
        let mut t: BTreeSet<u16> = match rng.below(3) {
            0 => s.clone(),
            _ => {
                let step = 2 + rng.below(7);
                s.iter()
                    .copied()
                    .filter(|&v| u32::from(v) % step != 0)
                    .collect()
            }
        };
        if rng.below(2) == 0 {
            let near = s.iter().next().map_or(0, |&v| u32::from(v));
            t.insert((near + rng.below(400)).min(0xFFFF) as u16);
        }
        t
    }

    #[test]
    fn relations_match_the_model_for_every_form() {
        let mut rng = Rng(7);
        // Under Miri, which interprets each of the bitsets' 1,024 words (ten seconds a
        // pair), one pair.
        let pairs = if cfg!(miri) { 1 } else { 600 };
        for _ in 0..pairs {
            let a = random_set(&mut rng);
            let b = if rng.below(2) == 0 {
                relative(&a, &mut rng)
            } else {
                random_set(&mut rng)
            };
            let (fa, fb) = (forms(&a, &mut rng), forms(&b, &mut rng));
            for x in fa.all() {
                for y in fb.all() {
                    for (p, q, sp, sq) in [(x, y, &a, &b), (y, x, &b, &a)] {
                        let kinds = (p.kind(), q.kind());
                        assert_eq!(intersects(p, q), !sp.is_disjoint(sq), "{kinds:?} meet");
                        let card = sp.len() as u32;
                        assert_eq!(is_subset(p, q, card), sp.is_subset(sq), "{kinds:?} subset");
                    }
                }
            }
            for _ in 0..8 {
                let lo = a
                    .iter()
                    .nth(rng.below(a.len() as u32) as usize)
                    .copied()
                    .unwrap_or(0);
                let lo = if rng.below(4) == 0 {
                    rng.below(0x10000) as u16
                } else {
                    lo
                };
                let hi = (u32::from(lo) + (rng.next() as u32 >> (16 + rng.below(16)))).min(0xFFFF)
                    as u16;
                let expect = a.range(lo..=hi).count() as u32;
                for x in fa.all() {
                    assert_eq!(x.range_len(lo, hi), expect, "{:?} in {lo}..={hi}", x.kind());
                    assert_eq!(
                        x.contains_range(lo, hi),
                        expect == u32::from(hi - lo) + 1,
                        "{:?} holds {lo}..={hi}",
                        x.kind()
                    );
                }
            }
        }
    }
}
