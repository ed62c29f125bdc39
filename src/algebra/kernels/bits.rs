//! Kernels into and on bitsets: one container's values set, flipped or cleared in a
//! bitset, in-place intersection and difference, word operations, and run fills.

use super::*;

/// The average distance of an array's values below which [`set_values`] takes them in
/// interleaved streams (a value then shares its word with the next one about half the
/// time).
pub(super) const DENSE_GAP: usize = 32;

/// Applies `op` to the bit of each value of `a` ([`crate::simd::bit_op`], or
/// [`crate::simd::bit_op_bmi2`] where the CPU has BMI2, or [`crate::simd::bit_op_portable`]
/// where [`crate::simd::prefer_bit_op_in_memory`]). Where neighbouring values often
/// share a word (on average less than [`DENSE_GAP`] apart), the array is cut into
/// `STREAMS` parts (2 or 4) taken in turn: each update of a word would wait for the previous
/// update's store, and the other parts' values, in other words, fill the wait. The
/// pairwise kernels take 2 (halves), the many-way union and symmetric difference 4 (many
/// dense arrays into one bitset; one array into a copied bitset gains nothing from 4).
/// Sparser arrays are taken in order, which costs fewer instructions (BENCHMARKS.md,
/// design decisions: `DENSE_GAP`).
#[inline(always)]
pub(super) fn set_values<const STREAMS: usize>(
    bits: &mut [u64; BITSET_WORDS],
    a: &[U16],
    op: BitOp,
) {
    const { assert!(STREAMS == 2 || STREAMS == 4) };
    if crate::simd::prefer_bit_op_in_memory() {
        set_values_by::<STREAMS>(bits, a, |bits, v| crate::simd::bit_op_portable(bits, v, op));
    } else if let Some(bmi2) = crate::simd::Bmi2::detect() {
        set_values_by::<STREAMS>(bits, a, |bits, v| {
            crate::simd::bit_op_bmi2(bmi2, bits, v, op)
        });
    } else {
        set_values_by::<STREAMS>(bits, a, |bits, v| crate::simd::bit_op(bits, v, op));
    }
}

/// [`set_values`] with `f` as the step.
#[inline(always)]
pub(super) fn set_values_by<const STREAMS: usize>(
    bits: &mut [u64; BITSET_WORDS],
    a: &[U16],
    f: impl Fn(&mut [u64; BITSET_WORDS], u16),
) {
    let span = match (a.first(), a.last()) {
        // Sorted in a checked view; an unsorted array only picks the other order.
        (Some(x), Some(y)) => usize::from(y.get().wrapping_sub(x.get())),
        _ => return,
    };
    if span >= a.len() * DENSE_GAP {
        // Four values per loop step, as CRoaring's `bitset_set_list` (fewer loop
        // branches than two per step, which the many-way forms over sparse arrays notice).
        let mut fours = a.chunks_exact(4);
        for c in &mut fours {
            for v in c {
                f(bits, v.get());
            }
        }
        for v in fours.remainder() {
            f(bits, v.get());
        }
        return;
    }
    // The parts written out for each count of streams: a loop over an array of `STREAMS`
    // parts, indexed, made the many-way union of census-income 4 % slower and its
    // symmetric difference 6 %.
    if STREAMS == 4 {
        let q = a.len() / 4;
        let (p0, rest) = a.split_at(q);
        let (p1, rest) = rest.split_at(q);
        let (p2, rest) = rest.split_at(q);
        let (p3, tail) = rest.split_at(q);
        for (((x, y), z), w) in p0.iter().zip(p1).zip(p2).zip(p3) {
            f(bits, x.get());
            f(bits, y.get());
            f(bits, z.get());
            f(bits, w.get());
        }
        for v in tail {
            f(bits, v.get());
        }
        return;
    }
    let (lo, hi) = a.split_at(a.len() / 2);
    for (x, y) in lo.iter().zip(hi) {
        f(bits, x.get());
        f(bits, y.get());
    }
    if let Some(last) = hi.get(lo.len()) {
        f(bits, last.get());
    }
}

#[inline(always)]
pub(super) fn or_into_bits_impl(c: Container<'_>, bits: &mut [u64; BITSET_WORDS]) {
    match c {
        Container::Array(a) => set_values::<4>(bits, a, BitOp::Set),
        Container::Bitset(b) => {
            for (d, w) in bits.iter_mut().zip(b.iter()) {
                *d |= w.get();
            }
        }
        Container::Run(r) => fill_runs(bits, r),
    }
}

#[inline(always)]
pub(super) fn xor_into_bits_impl(c: Container<'_>, bits: &mut [u64; BITSET_WORDS]) {
    match c {
        Container::Array(a) => set_values::<4>(bits, a, BitOp::Flip),
        Container::Bitset(b) => {
            for (d, w) in bits.iter_mut().zip(b.iter()) {
                *d ^= w.get();
            }
        }
        Container::Run(r) => {
            for x in r {
                let (st, en) = run(x);
                run_words(st, en, |w, m| bits[w] ^= m);
            }
        }
    }
}

/// `s.bits = s.bits − c`, returning how many of the set bits it cleared (so that the
/// cardinality is kept exact without a counting pass over the bitset).
#[inline(always)]
pub(super) fn andnot_into_bits_impl(c: Container<'_>, s: &mut Scratch) -> u32 {
    let mut cleared = 0u32;
    match c {
        Container::Array(a) => {
            for v in a {
                let v = v.get();
                let (w, m) = (&mut s.bits[usize::from(v >> 6)], 1u64 << (v & 63));
                cleared += u32::from(*w & m != 0);
                *w &= !m;
            }
        }
        Container::Bitset(b) => {
            for (d, w) in s.bits.iter_mut().zip(b.iter()) {
                cleared += (*d & w.get()).count_ones();
                *d &= !w.get();
            }
        }
        Container::Run(r) => {
            let bits = &mut *s.bits;
            // Eight runs a vector with AVX-512 where there are enough of them (first minus
            // the rest on wikileaks 3 % faster; below 16 runs, as in most of
            // wikileaks_srt's containers, the call cost as much as it saved).
            let r = if r.len() >= 16 {
                let (done, n) = crate::simd::clear_runs_wide(bits, r);
                cleared += n;
                &r[done..]
            } else {
                r
            };
            for x in r {
                let (st, en) = run(x);
                cleared += crate::bits::clear_bits(bits, st, en);
            }
        }
    }
    cleared
}

/// Keeps the sorted values of `s.lows` that `O` keeps given `c` (those in `c` for an
/// intersection, those not in it for a difference): the array kernels against an array
/// (a vector merge, or galloping when one side is much the shorter), a bit test in a
/// bitset, a walk along runs.
#[inline(always)]
pub(super) fn retain_lows<O: Keep>(c: Container<'_>, s: &mut Scratch) {
    match c {
        // Few values (under 32, or under 1/GALLOP_RATIO of the array's): each found by
        // galloping, in place, cheaper than a pass into the second buffer and back.
        Container::Array(a) if s.lows.len() * GALLOP_RATIO < a.len() || s.lows.len() < 32 => {
            let mut j = 0;
            s.lows.retain(|&v| {
                j = gallop(a, j, v);
                (j < a.len() && a[j].get() == v) == O::BOTH
            });
        }
        Container::Array(a) => {
            // Into the second buffer and copied back (not swapped: see `andnot_in_place`).
            // A gallop per value took 10 ns a value where the lengths are alike (the
            // first minus the rest of 4,096-value arrays: 5.5 times CRoaring's time).
            s.lows2.clear();
            let lows = crate::cast::native_into_le(&mut s.lows);
            if O::BOTH {
                super::arrays::and_aa(lows, a, &mut s.lows2);
            } else {
                super::arrays::andnot_aa(lows, a, &mut s.lows2);
            }
            s.lows.clear();
            s.lows.extend_from_slice(&s.lows2);
        }
        Container::Bitset(b) => s.lows.retain(|&v| bit(b, v) == O::BOTH),
        Container::Run(r) => {
            let mut i = 0;
            s.lows.retain(|&v| {
                while i < r.len() && run(&r[i]).1 < v {
                    i += 1;
                }
                (i < r.len() && run(&r[i]).0 <= v) == O::BOTH
            });
        }
    }
    s.set_lows();
}

#[inline(always)]
pub(super) fn andnot_in_place_impl(c: Container<'_>, s: &mut Scratch) {
    use crate::algebra::scratch::Repr;
    match (s.repr, c) {
        (Repr::Empty, _) => {}
        (Repr::Lows, _) => retain_lows::<Difference>(c, s),
        // Few runs taken from many: a walk over both lists. Otherwise (and for values or
        // bitsets) the runs become a bitset, from which each later container is taken in
        // time proportional to its own size, not to the result's.
        (Repr::Runs, Container::Run(r)) if s.runs.len() <= 2 * r.len() + 8 => {
            s.runs2.clear();
            andnot_runs(&s.runs[..], r, &mut s.runs2);
            // Copied back, not swapped: a swap hands each buffer the other's capacity, and
            // a call could then still allocate after any number of warm-up calls.
            s.runs.clear();
            s.runs.extend_from_slice(&s.runs2);
            s.set_runs();
        }
        (Repr::Runs, _) => {
            let card = s.card;
            s.zero_bits();
            for &(st, en) in &s.runs {
                fill_bits(&mut s.bits, st, en);
            }
            let cleared = andnot_into_bits_impl(c, s);
            s.set_bits_counted(card.saturating_sub(cleared));
        }
        (Repr::Bits, _) => {
            let card = s.card;
            let cleared = andnot_into_bits_impl(c, s);
            s.set_bits_counted(card.saturating_sub(cleared));
        }
    }
}

#[inline(always)]
pub(super) fn and_in_place_impl(c: Container<'_>, s: &mut Scratch) {
    use crate::algebra::scratch::Repr;
    match (s.repr, c) {
        (Repr::Empty, _) => {}
        (Repr::Lows, _) => retain_lows::<Intersection>(c, s),
        (Repr::Bits, Container::Array(a)) => {
            s.lows.clear();
            s.lows
                .extend(a.iter().map(|v| v.get()).filter(|&v| bit_u64(&s.bits, v)));
            s.set_lows();
        }
        (Repr::Bits, Container::Bitset(b)) => {
            for (d, w) in s.bits.iter_mut().zip(b.iter()) {
                *d &= w.get();
            }
            s.set_bits();
        }
        (Repr::Bits, Container::Run(r)) => {
            fill_runs(&mut s.bits2, r);
            for (d, m) in s.bits.iter_mut().zip(s.bits2.iter_mut()) {
                *d &= *m;
                *m = 0;
            }
            s.set_bits();
        }
        (Repr::Runs, Container::Array(a)) => {
            s.lows.clear();
            let runs = &s.runs;
            let mut i = 0;
            s.lows.extend(a.iter().map(|v| v.get()).filter(|&v| {
                while i < runs.len() && runs[i].1 < v {
                    i += 1;
                }
                i < runs.len() && runs[i].0 <= v
            }));
            s.set_lows();
        }
        (Repr::Runs, Container::Bitset(b)) => {
            s.zero_bits();
            for &(st, en) in &s.runs {
                copy_range(&mut s.bits, b, st, en);
            }
            s.set_bits();
        }
        (Repr::Runs, Container::Run(r)) => {
            s.runs2.clear();
            and_runs(&s.runs[..], r, &mut s.runs2);
            // Copied back, not swapped (see `andnot_in_place_impl`).
            s.runs.clear();
            s.runs.extend_from_slice(&s.runs2);
            s.set_runs();
        }
    }
}

/// Values covered by runs (for choosing a sorted-values result when it must be small).
#[inline(always)]
pub(super) fn run_len(r: &[RunLE]) -> u32 {
    r.iter().map(|r| r.end() - r.start() + 1).sum()
}

#[inline(always)]
pub(super) fn run(r: &RunLE) -> (u16, u16) {
    (r.start() as u16, r.end() as u16)
}

#[inline(always)]
pub(super) fn bit(b: &BitsetLE, v: u16) -> bool {
    (b[usize::from(v >> 6)].get() >> (v & 63)) & 1 != 0
}

#[inline(always)]
pub(super) fn bit_u64(b: &[u64; BITSET_WORDS], v: u16) -> bool {
    (b[usize::from(v >> 6)] >> (v & 63)) & 1 != 0
}

/// `s.bits = f(x, y)` word by word, counting the result's bits in the same pass.
#[inline(always)]
pub(super) fn words_op(s: &mut Scratch, x: &BitsetLE, y: &BitsetLE, f: impl Fn(u64, u64) -> u64) {
    let card = words_into(&mut s.bits, x, y, f);
    s.set_bits_counted(card);
}

/// `bits = f(x, y)` word by word (every word overwritten), with its cardinality.
#[inline(always)]
pub(super) fn words_into(
    bits: &mut [u64; BITSET_WORDS],
    x: &BitsetLE,
    y: &BitsetLE,
    f: impl Fn(u64, u64) -> u64,
) -> u32 {
    let mut card = 0;
    for ((d, p), q) in bits.iter_mut().zip(x.iter()).zip(y.iter()) {
        *d = f(p.get(), q.get());
        card += d.count_ones();
    }
    card
}

#[inline(always)]
pub(super) fn copy_bits(d: &mut [u64; BITSET_WORDS], x: &BitsetLE) {
    for (d, w) in d.iter_mut().zip(x.iter()) {
        *d = w.get();
    }
}

/// [`copy_bits`], returning the number of bits copied (counted in the same pass).
#[inline(always)]
pub(super) fn copy_bits_counted(d: &mut [u64; BITSET_WORDS], x: &BitsetLE) -> u32 {
    let mut card = 0;
    for (d, w) in d.iter_mut().zip(x.iter()) {
        *d = w.get();
        card += d.count_ones();
    }
    card
}

/// The bits of word `w` that lie in `st..=en`.
#[inline(always)]
pub(super) fn range_mask(st: u16, en: u16, w: usize) -> u64 {
    let lo = (w * 64) as u32;
    let s = u32::from(st).max(lo) - lo;
    let e = u32::from(en).min(lo + 63) - lo;
    (u64::MAX << s) & (u64::MAX >> (63 - e))
}

/// Sets in `d` the bits of `x` that lie in `st..=en` (`d` is zero there).
#[inline(always)]
#[allow(clippy::needless_range_loop)] // the mask depends on the word index
pub(super) fn copy_range(d: &mut [u64; BITSET_WORDS], x: &BitsetLE, st: u16, en: u16) {
    for w in usize::from(st >> 6)..=usize::from(en >> 6) {
        d[w] |= x[w].get() & range_mask(st, en, w);
    }
}

#[inline(always)]
pub(super) fn fill_runs(bits: &mut [u64; BITSET_WORDS], r: &[RunLE]) {
    // Eight runs a vector with AVX-512 (where preferred), as far as the runs are short;
    // the rest here.
    let wide = if crate::simd::prefer_fill_runs_wide() {
        crate::simd::fill_runs_wide(bits, r)
    } else {
        0
    };
    fill_runs_scalar(bits, &r[wide..]);
}

/// Sets the bits of runs `r`, one run at a time.
#[inline(always)]
pub(super) fn fill_runs_scalar(bits: &mut [u64; BITSET_WORDS], r: &[RunLE]) {
    for x in r {
        let (s, e) = run(x);
        fill_bits(bits, s, e);
    }
}
