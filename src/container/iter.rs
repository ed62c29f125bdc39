//! Double-ended iteration over one container's low parts.

use super::Container;
use crate::cast::{BitsetLE, RunLE, U16};

/// A double-ended cursor over one container. The front and back ends never cross: every
/// value is produced once, whichever end produces it.
#[derive(Clone, Debug)]
pub(crate) enum ContainerIter<'a> {
    /// Remaining values are `a[front..back]`.
    Array {
        a: &'a [U16],
        front: usize,
        back: usize,
    },
    /// Front word `fw` with unread bits `fbits`; back word `bw` with unread bits `bbits`.
    /// When `fw == bw` the two bit sets are kept equal. Exhausted when `fw > bw`.
    Bitset {
        b: &'a BitsetLE,
        fw: usize,
        fbits: u64,
        bw: usize,
        bbits: u64,
    },
    /// Front at value `fv` of run `fi`, back at value `bv` of run `bi` (inclusive).
    Run {
        r: &'a [RunLE],
        fi: usize,
        fv: u32,
        bi: usize,
        bv: u32,
        done: bool,
    },
}

impl<'a> ContainerIter<'a> {
    #[inline]
    pub(crate) fn new(c: Container<'a>) -> ContainerIter<'a> {
        match c {
            Container::Array(a) => ContainerIter::Array {
                a,
                front: 0,
                back: a.len(),
            },
            Container::Bitset(b) => ContainerIter::Bitset {
                b,
                fw: 0,
                fbits: b[0].get(),
                bw: b.len() - 1,
                bbits: b[b.len() - 1].get(),
            },
            Container::Run(r) => match (r.first(), r.last()) {
                (Some(f), Some(l)) => ContainerIter::Run {
                    r,
                    fi: 0,
                    fv: f.start(),
                    bi: r.len() - 1,
                    bv: l.end(),
                    done: false,
                },
                _ => ContainerIter::Run {
                    r,
                    fi: 0,
                    fv: 0,
                    bi: 0,
                    bv: 0,
                    done: true,
                },
            },
        }
    }

    /// The values left, in one tight loop per kind: ascending, or descending if `BACK`
    /// (`fold` and `rfold`).
    #[inline(always)]
    fn fold_in<const BACK: bool, B, F: FnMut(B, u16) -> B>(self, init: B, mut f: F) -> B {
        let mut acc = init;
        match self {
            ContainerIter::Array { a, front, back } => {
                let values = &a[front..back];
                if BACK {
                    values.iter().rev().fold(acc, |acc, v| f(acc, v.get()))
                } else {
                    values.iter().fold(acc, |acc, v| f(acc, v.get()))
                }
            }
            ContainerIter::Bitset {
                b,
                fw,
                fbits,
                bw,
                bbits,
            } => {
                if fw > bw {
                    return acc;
                }
                let (end, end_bits) = if BACK { (fw, fbits) } else { (bw, bbits) };
                let (mut w, mut bits) = if BACK { (bw, bbits) } else { (fw, fbits) };
                loop {
                    while bits != 0 {
                        let t = if BACK {
                            let t = 63 - bits.leading_zeros();
                            bits &= !(1u64 << t);
                            t
                        } else {
                            let t = bits.trailing_zeros();
                            bits &= bits - 1;
                            t
                        };
                        acc = f(acc, (w as u32 * 64 + t) as u16);
                    }
                    if w == end {
                        return acc;
                    }
                    w = if BACK { w - 1 } else { w + 1 };
                    bits = if w == end { end_bits } else { b[w].get() };
                }
            }
            ContainerIter::Run {
                r,
                fi,
                fv,
                bi,
                bv,
                done,
            } => {
                if done {
                    return acc;
                }
                let runs = r.iter().enumerate().take(bi + 1).skip(fi);
                let mut step = |acc, (i, run): (usize, &RunLE)| {
                    let lo = if i == fi { fv } else { run.start() };
                    let hi = if i == bi { bv } else { run.end() };
                    if BACK {
                        (lo..=hi).rev().fold(acc, |acc, v| f(acc, v as u16))
                    } else {
                        (lo..=hi).fold(acc, |acc, v| f(acc, v as u16))
                    }
                };
                if BACK {
                    runs.rev().fold(acc, &mut step)
                } else {
                    runs.fold(acc, &mut step)
                }
            }
        }
    }

    /// The number of values left.
    #[inline(always)]
    pub(crate) fn remaining(&self) -> u64 {
        match self {
            ContainerIter::Array { front, back, .. } => (back - front) as u64,
            ContainerIter::Bitset {
                b,
                fw,
                fbits,
                bw,
                bbits,
            } => {
                if fw > bw {
                    0
                } else if fw == bw {
                    u64::from(fbits.count_ones())
                } else {
                    let mid = super::count::count_words(&b[fw + 1..*bw]);
                    u64::from(fbits.count_ones() + mid + bbits.count_ones())
                }
            }
            ContainerIter::Run {
                r,
                fi,
                fv,
                bi,
                bv,
                done,
            } => {
                if *done {
                    return 0;
                }
                // Saturating: each run is read once per use, and a run whose bytes changed
                // since the iterator was made (a mapped file rewritten in place) must give
                // a wrong count, not an overflow.
                let span = |from: u32, to: u32| u64::from(to.saturating_sub(from)) + 1;
                if fi >= bi {
                    return if bv < fv { 0 } else { span(*fv, *bv) };
                }
                let mid: u64 = r[fi + 1..*bi]
                    .iter()
                    .map(|x| {
                        let start = x.start();
                        span(start, x.end().max(start))
                    })
                    .sum();
                span(*fv, r[*fi].end()) + mid + span(r[*bi].start(), *bv)
            }
        }
    }

    /// Skips the values below `lo` at the front.
    pub(crate) fn advance_to(&mut self, lo: u16) {
        match self {
            ContainerIter::Array { a, front, back } => {
                *front += a[*front..*back].partition_point(|x| x.get() < lo);
            }
            ContainerIter::Bitset {
                b,
                fw,
                fbits,
                bw,
                bbits,
            } => {
                let w = usize::from(lo >> 6);
                if w > *bw {
                    *fw = *bw + 1;
                    *fbits = 0;
                    *bbits = 0;
                    return;
                }
                if w > *fw {
                    *fw = w;
                    *fbits = if w == *bw { *bbits } else { b[w].get() };
                }
                if w == *fw {
                    *fbits &= u64::MAX << (lo & 63);
                    if *fw == *bw {
                        *bbits = *fbits;
                    }
                }
            }
            ContainerIter::Run {
                r,
                fi,
                fv,
                bi,
                bv,
                done,
            } => {
                let lo = u32::from(lo);
                if *done || lo <= *fv {
                    return;
                }
                // First run (from fi, up to bi) that ends at or after lo.
                let skip = r[*fi..=*bi].partition_point(|x| x.end() < lo);
                let i = *fi + skip;
                if i > *bi {
                    *done = true;
                    return;
                }
                let v = if i == *fi {
                    lo.max(*fv)
                } else {
                    lo.max(r[i].start())
                };
                if i == *bi && v > *bv {
                    *done = true;
                    return;
                }
                *fi = i;
                *fv = v;
            }
        }
    }

    /// Skips the values above `hi` at the back.
    pub(crate) fn advance_back_to(&mut self, hi: u16) {
        match self {
            ContainerIter::Array { a, front, back } => {
                *back = *front + a[*front..*back].partition_point(|x| x.get() <= hi);
            }
            ContainerIter::Bitset {
                b,
                fw,
                fbits,
                bw,
                bbits,
            } => {
                let w = usize::from(hi >> 6);
                if w < *fw {
                    *fw = *bw + 1;
                    *fbits = 0;
                    *bbits = 0;
                    return;
                }
                if w < *bw {
                    *bw = w;
                    *bbits = if w == *fw { *fbits } else { b[w].get() };
                }
                if w == *bw {
                    *bbits &= u64::MAX >> (63 - (hi & 63));
                    if *fw == *bw {
                        *fbits = *bbits;
                    }
                }
            }
            ContainerIter::Run {
                r,
                fi,
                fv,
                bi,
                bv,
                done,
            } => {
                let hi = u32::from(hi);
                if *done || hi >= *bv {
                    return;
                }
                // Last run (from bi down to fi) that starts at or before hi.
                let keep = r[*fi..=*bi].partition_point(|x| x.start() <= hi);
                if keep == 0 {
                    *done = true;
                    return;
                }
                let i = *fi + keep - 1;
                let v = if i == *bi {
                    hi.min(*bv)
                } else {
                    hi.min(r[i].end())
                };
                if i == *fi && v < *fv {
                    *done = true;
                    return;
                }
                *bi = i;
                *bv = v;
            }
        }
    }

    /// Appends every value left as `high | low` to `out` and leaves the cursor exhausted:
    /// arrays widened and runs as ascending ranges straight into the vector, bitsets a
    /// byte at a time in vector stores into its spare capacity (no zeroing first).
    #[cfg(feature = "alloc")]
    pub(crate) fn extend_vec(&mut self, high: u32, out: &mut alloc::vec::Vec<u32>) {
        match self {
            ContainerIter::Array { a, front, back } => {
                let values = a.get(*front..*back).unwrap_or(&[]);
                super::extract::extend(Container::Array(values), high, out);
                *front = *back;
            }
            // Run by run (touching runs as one), as `next_stretch` takes them.
            ContainerIter::Run { .. } => {
                while let Some((first, last)) = self.next_stretch() {
                    out.extend((high | u32::from(first))..=(high | u32::from(last)));
                }
            }
            ContainerIter::Bitset { .. } => super::extract::extend_bitset(self, high, out),
        }
    }

    /// The next stretch of consecutive values at the front, taken whole: its first and
    /// last value. A run (or touching runs) at once, a bitset's ones a word at a time.
    pub(crate) fn next_stretch(&mut self) -> Option<(u16, u16)> {
        match self {
            ContainerIter::Array { a, front, back } => {
                let first = a.get(*front..*back)?.first()?.get();
                let mut i = *front;
                while i + 1 < *back && u32::from(a[i + 1].get()) == u32::from(a[i].get()) + 1 {
                    i += 1;
                }
                *front = i + 1;
                Some((first, a[i].get()))
            }
            ContainerIter::Bitset {
                b,
                fw,
                fbits,
                bw,
                bbits,
            } => {
                // The first word with a bit left.
                while *fbits == 0 {
                    if *fw >= *bw {
                        *fw = *bw + 1;
                        return None;
                    }
                    *fw += 1;
                    *fbits = if fw == bw { *bbits } else { b[*fw].get() };
                }
                if *fw > *bw {
                    return None;
                }
                let t = fbits.trailing_zeros();
                let ones = (*fbits >> t).trailing_ones();
                let start = *fw as u32 * 64 + t;
                let mut end = start + ones - 1;
                let mut rest = 0;
                if t + ones < 64 {
                    rest = *fbits & (!0u64 << (t + ones));
                } else {
                    // Up to the top bit: the stretch goes on with the next words' low ones.
                    while *fw < *bw {
                        *fw += 1;
                        let w = if fw == bw { *bbits } else { b[*fw].get() };
                        let more = w.trailing_ones();
                        end += more;
                        if more < 64 {
                            rest = w & (!0u64 << more);
                            break;
                        }
                    }
                }
                *fbits = rest;
                if fw == bw {
                    *bbits = rest;
                }
                Some((start as u16, end as u16))
            }
            ContainerIter::Run {
                r,
                fi,
                fv,
                bi,
                bv,
                done,
            } => {
                if *done {
                    return None;
                }
                let first = *fv as u16;
                loop {
                    // `end < fv` only in bytes changed since the cursor was made: then the
                    // one value `fv`, as `next` gives it.
                    let end = if *fi >= *bi { *bv } else { r[*fi].end() }.max(*fv);
                    if *fi >= *bi {
                        *done = true;
                        return Some((first, end as u16));
                    }
                    *fi += 1;
                    *fv = r[*fi].start();
                    // Runs that touch (not written so, but valid input) continue it.
                    if *fv != end + 1 {
                        return Some((first, end as u16));
                    }
                }
            }
        }
    }

    /// The next stretch of consecutive values at the back, taken whole: its first and
    /// last value.
    #[inline]
    pub(crate) fn next_stretch_back(&mut self) -> Option<(u16, u16)> {
        let v = self.next_back()?;
        let first = match v.checked_sub(1) {
            Some(w) => self.take_run_back(w).unwrap_or(v),
            None => v,
        };
        Some((first, v))
    }

    /// If the front value is 0 (the bottom of the container, where a stretch from the
    /// container below goes on): takes the stretch from it, as
    /// [`next_stretch`](Self::next_stretch), and returns its last value; else takes
    /// nothing and returns `None`.
    pub(crate) fn take_stretch_from_bottom(&mut self) -> Option<u16> {
        let at_bottom = match self {
            ContainerIter::Array { a, front, back } => {
                *front < *back && a.get(*front).is_some_and(|x| x.get() == 0)
            }
            // Word 0 still at the front, its bit 0 not taken.
            ContainerIter::Bitset { fw, fbits, .. } => *fw == 0 && *fbits & 1 != 0,
            ContainerIter::Run { fv, done, .. } => !*done && *fv == 0,
        };
        if !at_bottom {
            return None;
        }
        self.next_stretch().map(|(_, last)| last)
    }

    /// If the back value is `v`: takes it and every value before it that continues it
    /// downwards by one, and returns the first; else takes nothing and returns `None`.
    pub(crate) fn take_run_back(&mut self, v: u16) -> Option<u16> {
        if let ContainerIter::Run {
            r,
            fi,
            fv,
            bi,
            bv,
            done,
        } = self
        {
            if *done || *bv != u32::from(v) {
                return None;
            }
            loop {
                let start = if *bi <= *fi { *fv } else { r[*bi].start() }.min(*bv);
                if *bi <= *fi {
                    *done = true;
                    return Some(start as u16);
                }
                *bi -= 1;
                *bv = r[*bi].end();
                if *bv + 1 != start {
                    return Some(start as u16);
                }
            }
        }
        match self {
            ContainerIter::Array { a, front, back } => {
                if *front >= *back || a[*back - 1].get() != v {
                    return None;
                }
                let mut i = *back - 1;
                while i > *front && u32::from(a[i - 1].get()) + 1 == u32::from(a[i].get()) {
                    i -= 1;
                }
                *back = i;
                Some(a[i].get())
            }
            ContainerIter::Bitset {
                b,
                fw,
                fbits,
                bw,
                bbits,
            } => {
                // A word at a time, downwards: the ones that continue the stretch from the
                // back bit, then the word below if the stretch reached this one's bit 0.
                let (mut want, mut taken) = (u32::from(v), None);
                loop {
                    if *fw > *bw {
                        return taken;
                    }
                    if *bbits == 0 {
                        if *bw <= *fw {
                            *fw = *bw + 1;
                            return taken;
                        }
                        *bw -= 1;
                        *bbits = if fw == bw { *fbits } else { b[*bw].get() };
                        continue;
                    }
                    let t = 63 - bbits.leading_zeros();
                    if *bw as u32 * 64 + t != want {
                        return taken;
                    }
                    // Bits above `t` are already taken: the ones down from `t` are the
                    // leading ones of the word shifted to the top.
                    let first = t + 1 - (!(*bbits << (63 - t))).leading_zeros();
                    *bbits &= (1u64 << first) - 1;
                    if fw == bw {
                        *fbits = *bbits;
                    }
                    let start = *bw as u32 * 64 + first;
                    taken = Some(start as u16);
                    if first > 0 || start == 0 {
                        return taken;
                    }
                    want = start - 1;
                }
            }
            ContainerIter::Run { .. } => None,
        }
    }

    /// Writes up to `buf.len()` values from the front as `high | low` and returns how many
    /// (`next_many`'s step).
    #[inline(always)]
    pub(crate) fn fill(&mut self, high: u32, buf: &mut [u32]) -> usize {
        match self {
            ContainerIter::Array { a, front, back } => {
                let n = (*back - *front).min(buf.len());
                for (o, v) in buf[..n].iter_mut().zip(&a[*front..*front + n]) {
                    *o = high | u32::from(v.get());
                }
                *front += n;
                n
            }
            ContainerIter::Bitset { .. } => fill_bitset(self, high, buf),
            ContainerIter::Run {
                r,
                fi,
                fv,
                bi,
                bv,
                done,
            } => {
                let mut n = 0;
                while !*done && n < buf.len() {
                    // The front run's values up to its end (or the back value, in the back
                    // run) as one ascending fill.
                    let end = if *fi >= *bi { *bv } else { r[*fi].end() };
                    let take = (end.saturating_sub(*fv) as usize + 1).min(buf.len() - n);
                    let first = high | *fv;
                    for (k, o) in buf[n..n + take].iter_mut().enumerate() {
                        *o = first + k as u32;
                    }
                    n += take;
                    let last = *fv + take as u32 - 1;
                    if last < end {
                        *fv = last + 1;
                    } else if *fi >= *bi {
                        *done = true;
                    } else {
                        *fi += 1;
                        *fv = r[*fi].start();
                    }
                }
                n
            }
        }
    }
}

impl ContainerIter<'_> {
    /// [`next`](Iterator::next), always inlined: the per-value step that `Iter::next`
    /// keeps inline wherever it is compiled (a `dyn Iterator`'s `next` included).
    #[inline(always)]
    pub(crate) fn step(&mut self) -> Option<u16> {
        match self {
            ContainerIter::Array { a, front, back } => {
                if front < back {
                    let v = a[*front].get();
                    *front += 1;
                    Some(v)
                } else {
                    None
                }
            }
            ContainerIter::Bitset {
                b,
                fw,
                fbits,
                bw,
                bbits,
            } => loop {
                if *fbits != 0 {
                    let t = fbits.trailing_zeros();
                    *fbits &= *fbits - 1;
                    if fw == bw {
                        *bbits = *fbits;
                    }
                    return Some((*fw as u32 * 64 + t) as u16);
                }
                if *fw >= *bw {
                    *fw = *bw + 1;
                    return None;
                }
                *fw += 1;
                *fbits = if fw == bw { *bbits } else { b[*fw].get() };
            },
            ContainerIter::Run {
                r,
                fi,
                fv,
                bi,
                bv,
                done,
            } => {
                if *done {
                    return None;
                }
                let v = *fv;
                if *fi >= *bi {
                    // In the back run: up to the back value (`>=`, not `==`, so that a run
                    // changed under a mapped file cannot lead past it).
                    if *fv >= *bv {
                        *done = true;
                    } else {
                        *fv += 1;
                    }
                } else if *fv >= r[*fi].end() {
                    *fi += 1;
                    *fv = r[*fi].start();
                } else {
                    *fv += 1;
                }
                Some(v as u16)
            }
        }
    }

    /// [`next_back`](DoubleEndedIterator::next_back), always inlined (see
    /// [`step`](Self::step)).
    #[inline(always)]
    pub(crate) fn step_back(&mut self) -> Option<u16> {
        match self {
            ContainerIter::Array { a, front, back } => {
                if front < back {
                    *back -= 1;
                    Some(a[*back].get())
                } else {
                    None
                }
            }
            ContainerIter::Bitset {
                b,
                fw,
                fbits,
                bw,
                bbits,
            } => loop {
                if *fw > *bw {
                    return None;
                }
                if *bbits != 0 {
                    let t = 63 - bbits.leading_zeros();
                    *bbits &= !(1u64 << t);
                    if fw == bw {
                        *fbits = *bbits;
                    }
                    return Some((*bw as u32 * 64 + t) as u16);
                }
                if *bw <= *fw {
                    *fw = *bw + 1;
                    return None;
                }
                *bw -= 1;
                *bbits = if fw == bw { *fbits } else { b[*bw].get() };
            },
            ContainerIter::Run {
                r,
                fi,
                fv,
                bi,
                bv,
                done,
            } => {
                if *done {
                    return None;
                }
                let v = *bv;
                if *bi <= *fi {
                    // In the front run: down to the front value (see `next`).
                    if *bv <= *fv {
                        *done = true;
                    } else {
                        *bv -= 1;
                    }
                } else if *bv <= r[*bi].start() {
                    *bi -= 1;
                    *bv = r[*bi].end();
                } else {
                    *bv -= 1;
                }
                Some(v as u16)
            }
        }
    }
}

impl Iterator for ContainerIter<'_> {
    type Item = u16;

    #[inline]
    fn next(&mut self) -> Option<u16> {
        self.step()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.remaining() as usize;
        (n, Some(n))
    }

    /// Internal iteration: one tight loop per kind instead of a `next` call per value.
    #[inline]
    fn fold<B, F: FnMut(B, u16) -> B>(self, init: B, f: F) -> B {
        self.fold_in::<false, B, F>(init, f)
    }
}

impl DoubleEndedIterator for ContainerIter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<u16> {
        self.step_back()
    }

    /// Internal iteration from the back: one tight descending loop per kind.
    #[inline]
    fn rfold<B, F: FnMut(B, u16) -> B>(self, init: B, f: F) -> B {
        self.fold_in::<true, B, F>(init, f)
    }
}

crate::simd::dispatch! {
    /// [`ContainerIter::fill`] for a bitset, compiled for each CPU level (the popcounts on
    /// the CPU's instruction, the byte-table stores as wide as it has).
    fn fill_bitset(it: &mut ContainerIter<'_>, high: u32, buf: &mut [u32]) -> usize => fill_bitset_impl;
}

#[inline(always)]
fn fill_bitset_impl(it: &mut ContainerIter<'_>, high: u32, buf: &mut [u32]) -> usize {
    let ContainerIter::Bitset {
        b,
        fw,
        fbits,
        bw,
        bbits,
    } = it
    else {
        return 0;
    };
    let mut n = 0;
    // Whether to try the AVX-512 word kernel (cleared once it declines with room left:
    // the CPU lacks it).
    let mut wide = true;
    loop {
        let base = high | (*fw as u32 * 64);
        if buf.len() - n >= 64 + 8 {
            // Room for every bit of the word and a byte's slack: a byte at a
            // time, its set bits' positions from a table, 8 values stored at
            // once whatever the byte holds (those past its count overwritten
            // by the next byte's): no branch per value.
            let mut w = *fbits;
            for byte in 0..8u32 {
                let b = (w & 0xFF) as usize;
                let dst = &mut buf[n..n + 8];
                let pos = &crate::simd::BYTE_POSITIONS[b];
                let at = base + byte * 8;
                for (d, &p) in dst.iter_mut().zip(pos) {
                    *d = at + u32::from(p);
                }
                n += b.count_ones() as usize;
                w >>= 8;
            }
            *fbits = 0;
        } else if fbits.count_ones() as usize <= buf.len() - n {
            // The whole word: the buffer has room for every bit of it, so no
            // check per value.
            let mut w = *fbits;
            let count = w.count_ones() as usize;
            for d in &mut buf[n..n + count] {
                *d = base | w.trailing_zeros();
                w &= w - 1;
            }
            n += count;
            *fbits = 0;
        } else {
            while n < buf.len() {
                buf[n] = base | fbits.trailing_zeros();
                n += 1;
                *fbits &= *fbits - 1;
            }
        }
        if fw == bw {
            *bbits = *fbits;
        }
        if *fbits != 0 {
            return n; // the buffer is full inside this word
        }
        if *fw >= *bw {
            *fw = *bw + 1;
            return n;
        }
        // The whole words before the back one: with AVX-512 a word per step while the
        // buffer has room for 64 values.
        if wide && *fw + 1 < *bw && buf.len() - n >= 64 {
            let middle = b.get(*fw + 1..*bw).unwrap_or(&[]);
            let base = high | ((*fw as u32 + 1) * 64);
            let (words, written) = crate::simd::words_into(middle, base, &mut buf[n..]);
            wide = words != 0;
            *fw += words;
            n += written;
        }
        *fw += 1;
        *fbits = if fw == bw { *bbits } else { b[*fw].get() };
        if n == buf.len() {
            return n;
        }
    }
}
