//! Materializing kernels: one binary operation on two containers of any kinds, written into
//! a [`Scratch`] in the representation that suits the pair — sorted values for results
//! bounded by an array, word-wise bitset operations (popcount for the cardinality), and
//! interval arithmetic on runs, which are never expanded to values. Compiled twice (baseline
//! and x86-64-v3, see `simd.rs`), so the word loops run on AVX2 and `popcnt` where present.

use super::Op;
use super::scratch::{Scratch, joins, push_run};
use crate::cast::{BITSET_WORDS, BitsetLE, RunLE, U16};
use crate::container::Container;
use crate::format::{ARRAY_MAX, ContainerKind};
use crate::simd::BitOp;
use crate::write::encode::{Encoder, bitset_runs_into, fill_bits, run_words};

/// Size ratio above which sorted-array kernels gallop through the larger array.
const GALLOP_RATIO: usize = 32;
/// Up to this size ratio, a 16-wide SIMD scan of the larger array beats galloping.
const SCAN_RATIO: usize = 256;

/// Values plus runs up to which an array and a run container are combined (∪, ⊕, −) as
/// run lists; larger pairs go through a bitset (word fills for the runs, one bit per
/// value, then one counting pass), whose fixed cost is lower than a long interval merge,
/// with its branch per item. 512 is where the bitset path's wide run fill and one-pass run
/// count win (BENCHMARKS.md, design decisions).
const RUN_MERGE_MAX: usize = 512;

/// Runs per value above which [`filter_by_runs`] finds each value's run by galloping
/// instead of passing every run.
const RUNS_GALLOP_RATIO: usize = 8;

/// Runs a [`RunBatch`] gathers before it fills them in; a container of more than a
/// quarter of that many is filled in at once.
pub(crate) const RUN_BATCH: usize = 1024;

crate::simd::dispatch! {
    /// `s = a op b`.
    pub(crate) fn binary(op: Op, a: Container<'_>, b: Container<'_>, s: &mut Scratch) -> () => binary_impl,
        wide if crate::container::has_bitset(a, b);
}

crate::simd::dispatch! {
    /// `bits ∪= ` each of `cs`' containers: the whole loop at one CPU level, so that
    /// containers of a few runs or values each (about 25 on average in the union of all
    /// of wikileaks) cost no call and no dispatch apiece.
    pub(crate) fn or_many_into_bits(cs: &[(Container<'_>, u32)], bits: &mut [u64; BITSET_WORDS]) -> () => or_many_into_bits_impl;
}

#[inline(always)]
fn or_many_into_bits_impl(cs: &[(Container<'_>, u32)], bits: &mut [u64; BITSET_WORDS]) {
    if crate::simd::prefer_fill_runs_wide() {
        // Eight runs a vector, where the wait for a word's previous store is not what
        // bounds the speed (see `prefer_fill_runs_wide`); the second words of runs across
        // two words deferred to one pass for the whole key (`fill_runs_wide_deferred`).
        let mut batch = RunBatch::new();
        // The closures inlined by force, so that they are compiled at the caller's CPU
        // level (out of line, they would be compiled for the baseline CPU).
        until_full(
            cs,
            bits,
            #[inline(always)]
            |c, bits| match c {
                Some(Container::Run(r)) => batch.or(r, bits),
                Some(c) => or_into_bits_impl(c, bits),
                None => batch.settle(bits),
            },
        );
        batch.finish(bits);
        return;
    }
    // Run containers two at a time (see `or_two_runs_into_bits_impl`).
    let mut pending = None;
    until_full(
        cs,
        bits,
        #[inline(always)]
        |c, bits| match (c, pending) {
            (Some(Container::Run(r)), None) => pending = Some(r),
            (Some(Container::Run(r)), Some(p)) => {
                or_two_runs_into_bits_impl(p, r, bits);
                pending = None;
            }
            (Some(c), _) => or_into_bits_impl(c, bits),
            (None, _) => {}
        },
    );
    if let Some(r) = pending {
        fill_runs(bits, r);
    }
}

/// `or(Some(c), bits)` for each of `cs`' containers in turn, until the accumulated bits
/// are all set (checked every 8 containers, after `or(None, bits)` has brought them up
/// to date): the rest cannot add any.
#[inline(always)]
fn until_full<'a>(
    cs: &[(Container<'a>, u32)],
    bits: &mut [u64; BITSET_WORDS],
    mut or: impl FnMut(Option<Container<'a>>, &mut [u64; BITSET_WORDS]),
) {
    // Words before `open` are all set (and stay so): each check resumes there.
    let (mut seen, mut open) = (0u64, 0);
    for (n, &(c, card)) in cs.iter().enumerate() {
        or(Some(c), bits);
        seen += u64::from(card);
        if n % 8 == 7 && seen >= 1 << 16 {
            or(None, bits);
            match bits[open..].iter().position(|&w| w != u64::MAX) {
                Some(i) => open += i,
                None => break,
            }
        }
    }
}

/// Runs of one key's small run containers, gathered so that the wide fill
/// ([`crate::simd::fill_runs_wide_deferred`]) takes eight runs a vector across them: a
/// call apiece, each with its last few runs left to the scalar fill, cost the union of
/// all of wikileaks (about 25 runs a container) 12–15 %.
struct RunBatch {
    runs: [RunLE; RUN_BATCH + 8],
    n: usize,
    defer: crate::simd::Deferred,
}

impl RunBatch {
    /// Empty.
    #[inline(always)]
    fn new() -> RunBatch {
        RunBatch {
            runs: [RunLE {
                start: U16::new(0),
                len_minus_one: U16::new(0),
            }; RUN_BATCH + 8],
            n: 0,
            defer: crate::simd::Deferred::new(),
        }
    }

    /// `bits ∪= r`, now (a container of more than `RUN_BATCH / 4` runs) or at the next
    /// [`settle`](Self::settle).
    #[inline(always)]
    fn or(&mut self, r: &[RunLE], bits: &mut [u64; BITSET_WORDS]) {
        if r.len() > RUN_BATCH / 4 {
            return fill_runs_deferred(bits, r, &mut self.defer);
        }
        if self.n + r.len() > RUN_BATCH {
            self.settle(bits);
        }
        self.runs[self.n..self.n + r.len()].copy_from_slice(r);
        self.n += r.len();
    }

    /// ORs the runs gathered so far into `bits`, but for the second words deferred (the
    /// check for a full bitset may miss those, and then stops later).
    #[inline(always)]
    fn settle(&mut self, bits: &mut [u64; BITSET_WORDS]) {
        let Some(&last) = self.n.checked_sub(1).and_then(|i| self.runs.get(i)) else {
            return;
        };
        // Padded to whole vectors with copies of the last run (ORed in again, no change),
        // so that none is left to the scalar fill, a mispredicted branch or two a run.
        let padded = self.n.next_multiple_of(8);
        self.runs[self.n..padded].fill(last);
        fill_runs_deferred(bits, &self.runs[..padded], &mut self.defer);
        self.n = 0;
    }

    /// ORs every run gathered or deferred into `bits`.
    #[inline(always)]
    fn finish(&mut self, bits: &mut [u64; BITSET_WORDS]) {
        self.settle(bits);
        self.defer.flush(bits);
    }
}

/// `bits ∪= r`, eight runs a vector while they are short, the second words of runs
/// across two words left in `defer`.
#[inline(always)]
fn fill_runs_deferred(
    bits: &mut [u64; BITSET_WORDS],
    r: &[RunLE],
    defer: &mut crate::simd::Deferred,
) {
    let wide = crate::simd::fill_runs_wide_deferred(bits, r, defer);
    fill_runs_scalar(bits, &r[wide..]);
}

crate::simd::dispatch! {
    /// `bits ⊕= ` each of `cs`' containers, the whole loop at one CPU level.
    pub(crate) fn xor_many_into_bits(cs: &[(Container<'_>, u32)], bits: &mut [u64; BITSET_WORDS]) -> () => xor_many_into_bits_impl;
}

#[inline(always)]
fn xor_many_into_bits_impl(cs: &[(Container<'_>, u32)], bits: &mut [u64; BITSET_WORDS]) {
    for &(c, _) in cs {
        xor_into_bits_impl(c, bits);
    }
}

crate::simd::dispatch! {
    /// `s = s − c` for each of `cs`' containers in turn ([`andnot_in_place`]), the whole
    /// loop at one CPU level; stops once `s` is empty.
    pub(crate) fn andnot_many_in_place(cs: &[(Container<'_>, u32)], s: &mut Scratch) -> () => andnot_many_in_place_impl;
}

#[inline(always)]
fn andnot_many_in_place_impl(cs: &[(Container<'_>, u32)], s: &mut Scratch) {
    for &(c, _) in cs {
        if s.len() == 0 {
            break;
        }
        andnot_in_place_impl(c, s);
    }
}

crate::simd::dispatch! {
    /// `s = s − c`, in place (many-way difference), with its exact cardinality: values
    /// stay values, runs stay runs when `c` has runs about as many, anything else is a
    /// bitset.
    pub(crate) fn andnot_in_place(c: Container<'_>, s: &mut Scratch) -> () => andnot_in_place_impl;
}

/// `bits = bits ∪ a ∪ b`, for two run containers, where the wide fill is not preferred:
/// their runs set in turn. Consecutive runs of one container often share a word, and each
/// would wait for the previous one's store to that word; the other container's run, most
/// often in another word, fills the wait (−7 % for the union of all of wikileaks; four
/// containers at a time gain nothing more).
#[inline(always)]
fn or_two_runs_into_bits_impl(a: &[RunLE], b: &[RunLE], bits: &mut [u64; BITSET_WORDS]) {
    let n = a.len().min(b.len());
    for (x, y) in a.iter().zip(b) {
        let (s1, e1) = run(x);
        fill_bits(bits, s1, e1);
        let (s2, e2) = run(y);
        fill_bits(bits, s2, e2);
    }
    fill_runs_scalar(bits, &a[n..]);
    fill_runs_scalar(bits, &b[n..]);
}

crate::simd::dispatch! {
    /// `s = s ∩ c`, in place (many-way intersection).
    pub(crate) fn and_in_place(c: Container<'_>, s: &mut Scratch) -> () => and_in_place_impl;
}

crate::simd::dispatch! {
    /// The runs of a result bitset, counted as far as its canonical kind needs (out of
    /// line: kept out of `emit`, whose other paths are short).
    pub(crate) fn bits_runs_capped(bits: &[u64; BITSET_WORDS], cap: u32) -> u32 => bits_runs_capped_impl;
}

#[inline(always)]
fn bits_runs_capped_impl(bits: &[u64; BITSET_WORDS], cap: u32) -> u32 {
    crate::write::encode::bitset_runs_capped(bits, |w| w, cap)
}

crate::simd::dispatch! {
    /// Appends the scratch container, canonically encoded, to the encoder.
    pub(crate) fn emit(s: &mut Scratch, key: u16, enc: &mut Encoder) -> () => emit_impl,
        wide if false; // its bitset work is in kernels dispatched on their own
}

#[inline(always)]
fn emit_impl(s: &mut Scratch, key: u16, enc: &mut Encoder) {
    s.emit_impl(key, enc);
}

crate::simd::dispatch! {
    /// Appends a container of one operand that goes to the result unchanged: its payload is
    /// copied in bulk when it is already canonical (runs counted on the source), else it is
    /// re-encoded through the scratch.
    pub(crate) fn pass_through(c: Container<'_>, key: u16, enc: &mut Encoder, s: &mut Scratch) -> () => pass_through_impl;
}

#[inline(always)]
fn pass_through_impl(c: Container<'_>, key: u16, enc: &mut Encoder, s: &mut Scratch) {
    use crate::format::{canonical_kind, plain_kind};
    let (kind, card, runs) = match c {
        // Without canonical kinds, values and bitsets are copied as they are (a bitset of
        // at most 4096 values, possible only in a corrupt or foreign input, becomes values).
        Container::Array(a) if !s.canonical => (plain_kind(a.len() as u32), a.len() as u32, 0),
        Container::Bitset(b) if !s.canonical => {
            let card = crate::write::encode::bitset_card(b, |w| w.get());
            (plain_kind(card), card, 0)
        }
        Container::Array(a) => {
            let card = a.len() as u32;
            let runs =
                crate::simd::count_runs_u16_capped(a, crate::format::max_canonical_runs(card));
            (canonical_kind(card, runs), card, runs)
        }
        Container::Bitset(b) => {
            let card = crate::write::encode::bitset_card(b, |w| w.get());
            let cap = crate::format::max_canonical_runs(card);
            let runs = crate::write::encode::bitset_runs_capped(b, |w| w.get(), cap);
            let kind = canonical_kind(card, runs);
            // A bitset that is better as runs or values is converted from its own words.
            if card != 0 && kind != ContainerKind::Bitset {
                let start = enc.begin(kind, runs as usize);
                if kind == ContainerKind::Run {
                    bitset_runs_into(b, |w| w.get(), runs as usize, &mut enc.payload);
                } else {
                    super::scratch::extract(b, |w| w.get(), card as usize, &mut enc.payload);
                }
                enc.record(key, kind, card, start);
                return;
            }
            (kind, card, runs)
        }
        Container::Run(r) => {
            // Summed while checking that the runs are sorted, disjoint and non-adjacent:
            // runs of a corrupt payload (which checked views allow) that are not go
            // through the scratch, which sorts and merges them, rather than being copied
            // with a cardinality the format cannot hold.
            let (card, ordered) =
                super::scratch::runs_card_ordered(r.iter().map(|x| (x.start(), x.end())));
            if !ordered {
                s.load(c);
                s.emit_impl(key, enc);
                return;
            }
            (canonical_kind(card, r.len() as u32), card, r.len() as u32)
        }
    };
    if card == 0 || kind != c.kind() {
        s.load(c);
        s.emit_impl(key, enc);
        return;
    }
    let start = enc.begin(kind, runs as usize);
    crate::cast::extend_bytes(&mut enc.payload, crate::container::payload_bytes(&c));
    enc.record(key, kind, card, start);
}

crate::simd::dispatch! {
    /// Counts the bits of `s.bits` into `s.card` and marks the scratch as a bitset.
    pub(crate) fn finish_bits(s: &mut Scratch) -> () => finish_bits_impl;
}

#[inline(always)]
fn finish_bits_impl(s: &mut Scratch) {
    s.set_bits();
}

crate::simd::dispatch! {
    /// As [`finish_bits`], and counts the runs of `s.bits` too, in the same pass
    /// ([`Scratch::set_bits_with_runs`]).
    pub(crate) fn finish_bits_runs(s: &mut Scratch) -> () => finish_bits_runs_impl;
}

#[inline(always)]
fn finish_bits_runs_impl(s: &mut Scratch) {
    s.set_bits_with_runs();
}

crate::simd::dispatch! {
    /// `bits = x ∪ c` (every word overwritten), with its cardinality.
    pub(crate) fn or_bitset_into(x: &BitsetLE, c: Container<'_>, bits: &mut [u64; BITSET_WORDS]) -> u32 => or_bitset_into_impl;
}

#[inline(always)]
fn or_bitset_into_impl(x: &BitsetLE, c: Container<'_>, bits: &mut [u64; BITSET_WORDS]) -> u32 {
    match c {
        Container::Bitset(y) => words_into(bits, x, y, |p, q| p | q),
        Container::Array(a) => {
            copy_bits(bits, x);
            set_values::<2>(bits, a, BitOp::Set);
            bits_card_impl(bits)
        }
        Container::Run(r) => {
            copy_bits(bits, x);
            fill_runs(bits, r);
            bits_card_impl(bits)
        }
    }
}

crate::simd::dispatch! {
    /// `bits = x − c` (every word overwritten), with its cardinality: `x` copied and
    /// counted in one pass, then `c`'s bits cleared and the cleared ones counted (exact
    /// whatever `c` holds, repeated or unsorted values too).
    pub(crate) fn andnot_bitset_into(x: &BitsetLE, c: Container<'_>, bits: &mut [u64; BITSET_WORDS]) -> u32 => andnot_bitset_into_impl;
}

#[inline(always)]
fn andnot_bitset_into_impl(x: &BitsetLE, c: Container<'_>, bits: &mut [u64; BITSET_WORDS]) -> u32 {
    match c {
        Container::Bitset(y) => words_into(bits, x, y, |p, q| p & !q),
        Container::Array(a) => {
            let card = copy_bits_counted(bits, x);
            // Branch-free: whether a value is in `x` is as good as random.
            let mut cleared = 0;
            for v in a {
                let v = v.get();
                let w = &mut bits[usize::from(v >> 6)];
                let m = 1 << (v & 63);
                cleared += u32::from(*w & m != 0);
                *w &= !m;
            }
            card - cleared
        }
        Container::Run(r) => {
            let card = copy_bits_counted(bits, x);
            let cleared: u32 = r
                .iter()
                .map(|x| {
                    let (st, en) = run(x);
                    crate::write::encode::clear_bits(bits, st, en)
                })
                .sum();
            card - cleared
        }
    }
}

crate::simd::dispatch! {
    /// `bits = x ∪ y` for two arrays, into zeroed `bits`, with the result's cardinality.
    pub(crate) fn or_arrays_into_bits(x: &[U16], y: &[U16], bits: &mut [u64; BITSET_WORDS]) -> u32 => or_arrays_into_bits_impl;
}

#[inline(always)]
fn or_arrays_into_bits_impl(x: &[U16], y: &[U16], bits: &mut [u64; BITSET_WORDS]) -> u32 {
    arrays_into_bits(x, y, false, bits)
}

/// `bits = x ∪ y`, or `x ⊕ y` with `xor`, for two arrays, into zeroed `bits`, with the
/// result's cardinality.
#[inline(always)]
fn arrays_into_bits(x: &[U16], y: &[U16], xor: bool, bits: &mut [u64; BITSET_WORDS]) -> u32 {
    set_values::<2>(bits, x, BitOp::Set);
    if xor {
        set_values::<2>(bits, y, BitOp::Flip);
    } else {
        set_values::<2>(bits, y, BitOp::Set);
    }
    bits_card_impl(bits)
}

crate::simd::dispatch! {
    /// The number of set bits.
    pub(crate) fn bits_card(bits: &[u64; BITSET_WORDS]) -> u32 => bits_card_impl;
}

#[inline(always)]
fn bits_card_impl(bits: &[u64; BITSET_WORDS]) -> u32 {
    crate::write::encode::bitset_card(bits, |w| w)
}

#[inline(always)]
fn binary_impl(op: Op, a: Container<'_>, b: Container<'_>, s: &mut Scratch) {
    use Container::*;
    s.clear();
    match (op, a, b) {
        // --- array ∘ array: merges (or galloping) into sorted values
        (Op::Or | Op::Xor, Array(x), Array(y)) if x.len() + y.len() > ARRAY_MAX as usize => {
            // The result is likely a bitset: built as one directly (as CRoaring does),
            // instead of merged values converted at the end.
            s.zero_bits();
            let card = arrays_into_bits(x, y, op == Op::Xor, &mut s.bits);
            s.set_bits_counted(card);
        }
        (_, Array(x), Array(y)) => {
            s.lows.clear();
            match op {
                Op::And => and_aa(x, y, &mut s.lows),
                Op::Or | Op::Xor if lopsided(x, y) || lopsided(y, x) => {
                    let (large, small) = if x.len() >= y.len() { (x, y) } else { (y, x) };
                    if op == Op::Or {
                        sparse_merge::<true, true>(large, small, &mut s.lows);
                    } else {
                        sparse_merge::<true, false>(large, small, &mut s.lows);
                    }
                }
                Op::Or => {
                    if !crate::simd::union_u16(x, y, &mut s.lows) {
                        merge_aa::<true, true, true>(x, y, &mut s.lows);
                    }
                }
                Op::AndNot => andnot_aa(x, y, &mut s.lows),
                Op::Xor => {
                    if !crate::simd::xor_u16(x, y, &mut s.lows) {
                        merge_aa::<true, false, true>(x, y, &mut s.lows);
                    }
                }
            }
            s.set_lows();
        }
        // --- array ∘ bitset
        (Op::And, Array(x), Bitset(y)) | (Op::And, Bitset(y), Array(x)) => {
            s.lows.clear();
            filter_by_bits::<true>(x, y, &mut s.lows);
            s.set_lows();
        }
        (Op::AndNot, Array(x), Bitset(y)) => {
            s.lows.clear();
            filter_by_bits::<false>(x, y, &mut s.lows);
            s.set_lows();
        }
        (_, Array(x), Bitset(y)) | (_, Bitset(y), Array(x)) => {
            // Or, Xor (commutative), and bitset − array.
            copy_bits(&mut s.bits, y);
            // One loop per operation (the match hoisted out of the per-value loop).
            match op {
                Op::Or => set_values::<2>(&mut s.bits, x, BitOp::Set),
                Op::Xor => set_values::<2>(&mut s.bits, x, BitOp::Flip),
                _ => set_values::<2>(&mut s.bits, x, BitOp::Clear),
            }
            s.set_bits();
        }
        // --- array ∘ run
        (Op::And, Array(x), Run(y)) | (Op::And, Run(y), Array(x)) => {
            s.lows.clear();
            filter_by_runs::<true>(x, y, &mut s.lows);
            s.set_lows();
        }
        (Op::AndNot, Array(x), Run(y)) => {
            s.lows.clear();
            filter_by_runs::<false>(x, y, &mut s.lows);
            s.set_lows();
        }
        (Op::Or | Op::Xor, Array(x), Run(y)) | (Op::Or | Op::Xor, Run(y), Array(x))
            if result_likely_array(x, y) =>
        {
            // The result is likely an array (few values, most of them apart): the runs'
            // values merged with the array's, as CRoaring does, rather than the array's
            // values merged into runs and these expanded back to values at the end.
            runs_to_values(y, &mut s.lows2);
            s.lows.clear();
            let z = crate::cast::native_into_le(&mut s.lows2);
            if op == Op::Or {
                if !crate::simd::union_u16(x, z, &mut s.lows) {
                    merge_aa::<true, true, true>(x, z, &mut s.lows);
                }
            } else if !crate::simd::xor_u16(x, z, &mut s.lows) {
                merge_aa::<true, false, true>(x, z, &mut s.lows);
            }
            s.set_lows();
        }
        (Op::Or | Op::Xor, Array(x), Run(y)) | (Op::Or | Op::Xor, Run(y), Array(x))
            if x.len() + y.len() > RUN_MERGE_MAX =>
        {
            // Large: the runs as word fills, then the values set or flipped.
            s.zero_bits();
            fill_runs(&mut s.bits, y);
            if op == Op::Or {
                set_values::<2>(&mut s.bits, x, BitOp::Set);
            } else {
                set_values::<2>(&mut s.bits, x, BitOp::Flip);
            }
            s.set_bits();
        }
        (Op::AndNot, Run(x), Array(y)) if x.len() + y.len() > RUN_MERGE_MAX => {
            s.zero_bits();
            fill_runs(&mut s.bits, x);
            set_values::<2>(&mut s.bits, y, BitOp::Clear);
            s.set_bits();
        }
        (Op::Or, Array(x), Run(y)) | (Op::Or, Run(y), Array(x)) => {
            s.runs.clear();
            union_array_runs(x, y, &mut s.runs);
            s.set_runs();
        }
        (Op::AndNot, Run(x), Array(y)) => {
            s.runs.clear();
            andnot_runs(x, y, &mut s.runs);
            s.set_runs();
        }
        (_, Array(x), Run(y)) | (_, Run(y), Array(x)) => {
            // Xor (commutative).
            s.runs.clear();
            xor_runs(x, y, &mut s.runs);
            s.set_runs();
        }
        // --- bitset ∘ bitset: word-wise
        (_, Bitset(x), Bitset(y)) => match op {
            Op::And => words_op(s, x, y, |p, q| p & q),
            Op::Or => words_op(s, x, y, |p, q| p | q),
            Op::AndNot => words_op(s, x, y, |p, q| p & !q),
            Op::Xor => words_op(s, x, y, |p, q| p ^ q),
        },
        // --- bitset ∘ run: word-wise over the runs' spans
        (Op::And, Bitset(x), Run(y)) | (Op::And, Run(y), Bitset(x)) if run_len(y) <= 4096 => {
            s.lows.clear();
            for r in y {
                let (st, en) = run(r);
                s.lows.extend((st..=en).filter(|&v| bit(x, v)));
            }
            s.set_lows();
        }
        (Op::And, Bitset(x), Run(y)) | (Op::And, Run(y), Bitset(x)) => {
            s.zero_bits();
            for r in y {
                let (st, en) = run(r);
                copy_range(&mut s.bits, x, st, en);
            }
            s.set_bits();
        }
        (Op::AndNot, Run(x), Bitset(y)) if run_len(x) <= 4096 => {
            s.lows.clear();
            for r in x {
                let (st, en) = run(r);
                s.lows.extend((st..=en).filter(|&v| !bit(y, v)));
            }
            s.set_lows();
        }
        (Op::AndNot, Run(x), Bitset(y)) => {
            s.zero_bits();
            fill_runs(&mut s.bits, x);
            for (d, q) in s.bits.iter_mut().zip(y.iter()) {
                *d &= !q.get();
            }
            s.set_bits();
        }
        (_, Bitset(x), Run(y)) | (_, Run(y), Bitset(x)) => {
            // Or, Xor, and bitset − run.
            copy_bits(&mut s.bits, x);
            for r in y {
                let (st, en) = run(r);
                let (ws, we) = (usize::from(st >> 6), usize::from(en >> 6));
                for w in ws..=we {
                    let m = range_mask(st, en, w);
                    match op {
                        Op::Or => s.bits[w] |= m,
                        Op::Xor => s.bits[w] ^= m,
                        _ => s.bits[w] &= !m,
                    }
                }
            }
            s.set_bits();
        }
        // --- run ∘ run: interval arithmetic
        (_, Run(x), Run(y)) => {
            s.runs.clear();
            match op {
                Op::And => and_stored_runs(x, y, &mut s.runs),
                Op::Or => merge_runs(x, y, &mut s.runs),
                Op::AndNot => andnot_runs(x, y, &mut s.runs),
                Op::Xor => xor_runs(x, y, &mut s.runs),
            }
            s.set_runs();
        }
    }
}

/// The values of runs `y`, in `out`.
#[inline(always)]
fn runs_to_values(y: &[RunLE], out: &mut alloc::vec::Vec<u16>) {
    out.clear();
    for r in y {
        let (st, en) = run(r);
        out.extend(st..=en);
    }
}

/// Whether `x ∪ y` (or `x ⊕ y`) of an array and runs is likely canonical as an array: at
/// most [`ARRAY_MAX`] values and at least half as many runs as values, counting every
/// value and run of the two inputs (the array's runs counted only as far as the answer
/// needs). This ignores runs that join across the two inputs. On the consecutive pairs of
/// the real-data sets (unions and symmetric differences of an array and runs), the plain
/// rule names 290 of the 307 array results, and 12 of the 1,541 run results, which then
/// cost a run count and a conversion at the end: a gain for `xor` on every dataset, a
/// small loss for `or` on census-income, where such misses lie.
#[inline(always)]
fn result_likely_array(x: &[U16], y: &[RunLE]) -> bool {
    let yl = run_len(y) as usize;
    let card = x.len() + yl;
    if card > ARRAY_MAX as usize {
        return false;
    }
    // A few values against many runs: the values often join the runs (census-income's
    // misses, a result of 700 runs of about two values), so 1.8 values a run at most.
    let need = if x.len() * 4 < yl {
        (card * 5).div_ceil(9)
    } else {
        card.div_ceil(2)
    };
    if need <= y.len() {
        return true;
    }
    // The array's runs are at most its values.
    if need > x.len() + y.len() {
        return false;
    }
    let xr = crate::simd::count_runs_u16_capped(x, (need - y.len()) as u32) as usize;
    xr + y.len() >= need
}

/// The average distance of an array's values below which [`set_values`] takes them in
/// interleaved streams (a value then shares its word with the next one about half the
/// time).
const DENSE_GAP: usize = 32;

/// Applies `op` to the bit of each value of `a` ([`crate::simd::bit_op`], or
/// [`crate::simd::bit_op_bmi2`] where the CPU has BMI2). Where neighbouring values often
/// share a word (on average less than [`DENSE_GAP`] apart), the array is cut into
/// `STREAMS` parts (2 or 4) taken in turn: each update of a word would wait for the previous
/// update's store, and the other parts' values, in other words, fill the wait. The
/// pairwise kernels take 2 (halves), the many-way union and symmetric difference 4 (many
/// dense arrays into one bitset; one array into a copied bitset gains nothing from 4).
/// Sparser arrays are taken in order, which costs fewer instructions (BENCHMARKS.md,
/// design decisions: `DENSE_GAP`).
#[inline(always)]
fn set_values<const STREAMS: usize>(bits: &mut [u64; BITSET_WORDS], a: &[U16], op: BitOp) {
    const { assert!(STREAMS == 2 || STREAMS == 4) };
    if let Some(bmi2) = crate::simd::Bmi2::detect() {
        set_values_by::<STREAMS>(bits, a, |bits, v| {
            crate::simd::bit_op_bmi2(bmi2, bits, v, op)
        });
    } else {
        set_values_by::<STREAMS>(bits, a, |bits, v| crate::simd::bit_op(bits, v, op));
    }
}

/// [`set_values`] with `f` as the step.
#[inline(always)]
fn set_values_by<const STREAMS: usize>(
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
fn or_into_bits_impl(c: Container<'_>, bits: &mut [u64; BITSET_WORDS]) {
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
fn xor_into_bits_impl(c: Container<'_>, bits: &mut [u64; BITSET_WORDS]) {
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
fn andnot_into_bits_impl(c: Container<'_>, s: &mut Scratch) -> u32 {
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
                cleared += crate::write::encode::clear_bits(bits, st, en);
            }
        }
    }
    cleared
}

/// Keeps the sorted values of `s.lows` that are in `c` (`IN`) or that are not (`!IN`): a
/// gallop through an array, a bit test in a bitset, a walk along runs.
#[inline(always)]
fn retain_lows<const IN: bool>(c: Container<'_>, s: &mut Scratch) {
    match c {
        Container::Array(a) => {
            let mut j = 0;
            s.lows.retain(|&v| {
                j = gallop(a, j, v);
                (j < a.len() && a[j].get() == v) == IN
            });
        }
        Container::Bitset(b) => s.lows.retain(|&v| bit(b, v) == IN),
        Container::Run(r) => {
            let mut i = 0;
            s.lows.retain(|&v| {
                while i < r.len() && run(&r[i]).1 < v {
                    i += 1;
                }
                (i < r.len() && run(&r[i]).0 <= v) == IN
            });
        }
    }
    s.set_lows();
}

#[inline(always)]
fn andnot_in_place_impl(c: Container<'_>, s: &mut Scratch) {
    use super::scratch::Repr;
    match (s.repr, c) {
        (Repr::Empty, _) => {}
        (Repr::Lows, _) => retain_lows::<false>(c, s),
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
fn and_in_place_impl(c: Container<'_>, s: &mut Scratch) {
    use super::scratch::Repr;
    match (s.repr, c) {
        (Repr::Empty, _) => {}
        (Repr::Lows, _) => retain_lows::<true>(c, s),
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
fn run_len(r: &[RunLE]) -> u32 {
    r.iter().map(|r| r.end() - r.start() + 1).sum()
}

#[inline(always)]
fn run(r: &RunLE) -> (u16, u16) {
    (r.start() as u16, r.end() as u16)
}

#[inline(always)]
fn bit(b: &BitsetLE, v: u16) -> bool {
    (b[usize::from(v >> 6)].get() >> (v & 63)) & 1 != 0
}

#[inline(always)]
fn bit_u64(b: &[u64; BITSET_WORDS], v: u16) -> bool {
    (b[usize::from(v >> 6)] >> (v & 63)) & 1 != 0
}

/// `s.bits = f(x, y)` word by word, counting the result's bits in the same pass.
#[inline(always)]
fn words_op(s: &mut Scratch, x: &BitsetLE, y: &BitsetLE, f: impl Fn(u64, u64) -> u64) {
    let card = words_into(&mut s.bits, x, y, f);
    s.set_bits_counted(card);
}

/// `bits = f(x, y)` word by word (every word overwritten), with its cardinality.
#[inline(always)]
fn words_into(
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
fn copy_bits(d: &mut [u64; BITSET_WORDS], x: &BitsetLE) {
    for (d, w) in d.iter_mut().zip(x.iter()) {
        *d = w.get();
    }
}

/// [`copy_bits`], returning the number of bits copied (counted in the same pass).
#[inline(always)]
fn copy_bits_counted(d: &mut [u64; BITSET_WORDS], x: &BitsetLE) -> u32 {
    let mut card = 0;
    for (d, w) in d.iter_mut().zip(x.iter()) {
        *d = w.get();
        card += d.count_ones();
    }
    card
}

/// The bits of word `w` that lie in `st..=en`.
#[inline(always)]
fn range_mask(st: u16, en: u16, w: usize) -> u64 {
    let lo = (w * 64) as u32;
    let s = u32::from(st).max(lo) - lo;
    let e = u32::from(en).min(lo + 63) - lo;
    (u64::MAX << s) & (u64::MAX >> (63 - e))
}

/// Sets in `d` the bits of `x` that lie in `st..=en` (`d` is zero there).
#[inline(always)]
#[allow(clippy::needless_range_loop)] // the mask depends on the word index
fn copy_range(d: &mut [u64; BITSET_WORDS], x: &BitsetLE, st: u16, en: u16) {
    for w in usize::from(st >> 6)..=usize::from(en >> 6) {
        d[w] |= x[w].get() & range_mask(st, en, w);
    }
}

#[inline(always)]
fn fill_runs(bits: &mut [u64; BITSET_WORDS], r: &[RunLE]) {
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
fn fill_runs_scalar(bits: &mut [u64; BITSET_WORDS], r: &[RunLE]) {
    for x in r {
        let (s, e) = run(x);
        fill_bits(bits, s, e);
    }
}

/// First index `>= lo` whose value is `>= v`, by exponential then binary search.
#[inline(always)]
fn gallop(large: &[U16], lo: usize, v: u16) -> usize {
    crate::container::count::gallop_by(large.len(), lo, |k| large[k].get() < v)
}

#[inline(always)]
fn and_aa(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if small.len() * GALLOP_RATIO < large.len() {
        // Up to `SCAN_RATIO`, scanned 16 values at a time (on census1881 `and`, the scan
        // makes the difference between slower and faster than CRoaring); galloping above.
        if small.len() * SCAN_RATIO >= large.len() && crate::simd::scan_u16(small, large, out) {
            return;
        }
        let mut j = 0;
        for v in small {
            let v = v.get();
            j = gallop(large, j, v);
            if j == large.len() {
                break;
            }
            if large[j].get() == v {
                out.push(v);
            }
        }
        return;
    }
    // Shorter than one block of the SIMD kernel: merged here (see `count::array_array`).
    if small.len() >= 8 && crate::simd::intersect_u16(small, large, out) {
        return;
    }
    let (mut i, mut j) = (0, 0);
    while i < small.len() && j < large.len() {
        let (x, y) = (small[i].get(), large[j].get());
        if x == y {
            out.push(x);
        }
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
}

/// Appends the values of `a` whose bit in `b` is `KEEP`, without a branch per value.
#[inline(always)]
fn filter_by_bits<const KEEP: bool>(a: &[U16], b: &BitsetLE, out: &mut alloc::vec::Vec<u16>) {
    let start = out.len();
    out.resize(start + a.len(), 0);
    let dst = &mut out[start..];
    let mut k = 0;
    for v in a {
        let v = v.get();
        dst[k] = v;
        k += usize::from(bit(b, v) == KEEP);
    }
    out.truncate(start + k);
}

#[inline(always)]
fn andnot_aa(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) {
    if a.len() * GALLOP_RATIO < b.len() {
        let mut j = 0;
        for v in a {
            let v = v.get();
            j = gallop(b, j, v);
            if j == b.len() || b[j].get() != v {
                out.push(v);
            }
        }
        return;
    }
    if lopsided(a, b) {
        sparse_merge::<false, false>(a, b, out);
        return;
    }
    if !crate::simd::difference_u16(a, b, out) {
        merge_aa::<true, false, false>(a, b, out);
    }
}

/// Whether `small` is so much shorter than `large` that finding each of its values in
/// `large` beats a merge that reads both.
#[inline(always)]
fn lopsided(large: &[U16], small: &[U16]) -> bool {
    small.len() * GALLOP_RATIO < large.len()
}

/// `large` combined with a much shorter `small`: each value of `small` is found in `large`
/// by galloping, and the stretches of `large` between are copied in bulk. Values of
/// `large` alone are kept; values of `small` alone if `KEEP_SMALL` (union, symmetric
/// difference); values in both if `KEEP_BOTH` (union). With neither, `large − small`.
#[inline(always)]
fn sparse_merge<const KEEP_SMALL: bool, const KEEP_BOTH: bool>(
    large: &[U16],
    small: &[U16],
    out: &mut alloc::vec::Vec<u16>,
) {
    let copy = crate::cast::extend_native;
    let mut pos = 0;
    for v in small {
        let v = v.get();
        let at = gallop(large, pos, v);
        copy(out, &large[pos..at]);
        if large.get(at).is_some_and(|x| x.get() == v) {
            if KEEP_BOTH {
                out.push(v);
            }
            pos = at + 1;
        } else {
            if KEEP_SMALL {
                out.push(v);
            }
            pos = at;
        }
    }
    copy(out, &large[pos..]);
}

/// Merge of two sorted arrays keeping values only in `a` (`A`), in both (`BOTH`) and only
/// in `b` (`B`): union, symmetric difference and difference are instances. Not inlined:
/// scalar code gains nothing from the wider target, and a function of its own keeps the
/// loop's state in registers.
#[inline(never)]
fn merge_aa<const A: bool, const BOTH: bool, const B: bool>(
    a: &[U16],
    b: &[U16],
    out: &mut alloc::vec::Vec<u16>,
) {
    // Branch-free: every step writes the smaller value and keeps it (advances the write
    // index) according to the const parameters; both sides advance on equality.
    let start = out.len();
    out.resize(start + a.len() + b.len(), 0);
    let dst = &mut out[start..];
    let (mut i, mut j, mut k) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i].get(), b[j].get());
        dst[k] = x.min(y);
        let keep = (A && x < y) | (B && y < x) | (BOTH && x == y);
        k += usize::from(keep);
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    if A {
        for v in &a[i..] {
            dst[k] = v.get();
            k += 1;
        }
    }
    if B {
        for v in &b[j..] {
            dst[k] = v.get();
            k += 1;
        }
    }
    out.truncate(start + k);
}

/// Values of `a` inside (`IN`) or outside the runs `r`: each run's bounds are found in `a`
/// by galloping from the previous one, and the stretches kept are copied in bulk.
#[inline(always)]
fn filter_by_runs<const IN: bool>(a: &[U16], r: &[RunLE], out: &mut alloc::vec::Vec<u16>) {
    let copy = crate::cast::extend_native;
    if r.len() > RUNS_GALLOP_RATIO * a.len() {
        // Many more runs than values (census-income_srt: 4 values against 1055 runs):
        // each value's run found by galloping, rather than every run passed.
        let mut j = 0;
        for (i, v) in a.iter().enumerate() {
            let v32 = u32::from(v.get());
            j = crate::container::count::gallop_by(r.len(), j, |k| r[k].end() < v32);
            let Some(x) = r.get(j) else {
                // No run reaches this value: it and the rest are outside every run.
                if !IN {
                    copy(out, &a[i..]);
                }
                return;
            };
            if (x.start() <= v32) == IN {
                out.push(v.get());
            }
        }
        return;
    }
    if a.len() < GALLOP_RATIO * r.len() {
        // Not many more values than runs: one merge pass, begun 32 values a step with
        // AVX-512 where the CPU has it; each value is then stored without a branch and kept
        // by advancing the end of the output.
        let start = out.len();
        out.resize(start + a.len() + 32, 0);
        let dst = &mut out[start..];
        let (mut i, mut j, mut k) = if a.len() >= 32 {
            crate::simd::filter_by_runs_wide::<IN>(a, r, dst)
        } else {
            (0, 0, 0)
        };
        while let (Some(v), Some(x)) = (a.get(i), r.get(j)) {
            let v = v.get();
            if x.end() < u32::from(v) {
                j += 1;
                continue;
            }
            dst[k] = v;
            k += usize::from((x.start() <= u32::from(v)) == IN);
            i += 1;
        }
        if !IN {
            for v in &a[i..] {
                dst[k] = v.get();
                k += 1;
            }
        }
        out.truncate(start + k);
        return;
    }
    let mut pos = 0;
    for x in r {
        let (st, en) = run(x);
        let lo = gallop(a, pos, st);
        let hi = if en == u16::MAX {
            a.len()
        } else {
            gallop(a, lo, en + 1)
        };
        copy(out, if IN { &a[lo..hi] } else { &a[pos..lo] });
        pos = hi;
        if pos == a.len() {
            break;
        }
    }
    if !IN {
        copy(out, &a[pos..]);
    }
}

/// A list of ascending, disjoint runs read in place: sorted values (runs of one value),
/// stored runs, or the scratch's runs. The run kernels take any two.
trait RunList: Copy {
    fn n(self) -> usize;
    fn at(self, i: usize) -> (u16, u16);
    /// Run `i` (or `None` past the end) as `(start, end)` in `u32`, its end not clamped
    /// to 65535 (a corrupt stored run may end up to 131070): one operation fewer than
    /// [`at`](Self::at) for walks that only compare ends with starts and with each other,
    /// and one bounds check for both the end of the walk and the read.
    #[inline(always)]
    fn span(self, i: usize) -> Option<(u32, u32)> {
        (i < self.n()).then(|| {
            let (s, e) = self.at(i);
            (u32::from(s), u32::from(e))
        })
    }
}

impl RunList for &[U16] {
    #[inline(always)]
    fn n(self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn at(self, i: usize) -> (u16, u16) {
        (self[i].get(), self[i].get())
    }
}

impl RunList for &[RunLE] {
    #[inline(always)]
    fn n(self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn at(self, i: usize) -> (u16, u16) {
        run(&self[i])
    }
    #[inline(always)]
    fn span(self, i: usize) -> Option<(u32, u32)> {
        let r = self.get(i)?;
        Some((r.start(), r.start() + u32::from(r.len_minus_one.get())))
    }
}

impl RunList for &[(u16, u16)] {
    #[inline(always)]
    fn n(self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn at(self, i: usize) -> (u16, u16) {
        self[i]
    }
}

/// `a ∪ b`: runs taken in order of start, merged where they overlap or touch.
#[inline(always)]
fn merge_runs(a: impl RunList, b: impl RunList, out: &mut alloc::vec::Vec<(u16, u16)>) {
    // Inlined by force (as in `union_array_runs`): the accumulator's last run stays in
    // registers, and the walk is compiled at its caller's CPU level.
    with_runs(
        out,
        a.n() + b.n(),
        #[inline(always)]
        |acc| by_start(a, b, |(s, e)| acc.merge(s, e)),
    );
}

/// `a ∪ r` for sorted values and runs, run by run: a run that ends before the next value
/// is put out as it is (one compare); else the values before it are put out (each a run
/// of one, joined to the last where they touch), then the run, and the values inside it
/// are passed, 8 at a time without a branch. [`merge_runs`] instead decides between the
/// two lists at each element; this costs about that per run that meets no value, and
/// less where values lie inside runs. Values out of order (a corrupt payload) give wrong
/// runs, still ascending and disjoint; never a panic.
#[inline(always)]
fn union_array_runs(a: &[U16], r: &[RunLE], out: &mut alloc::vec::Vec<(u16, u16)>) {
    // Inlined into `with_runs`: the accumulator's last run stays in registers.
    with_runs(
        out,
        a.len() + r.len(),
        #[inline(always)]
        |acc| {
            // The value at `i`, or above every value once past the end.
            let at = |i: usize| a.get(i).map_or(u32::MAX, |v| u32::from(v.get()));
            let mut i = 0;
            let mut v = at(0);
            for x in r {
                let (s, e) = run(x);
                if v > u32::from(e) {
                    acc.merge(s, e);
                    continue;
                }
                while v < u32::from(s) {
                    acc.merge(v as u16, v as u16);
                    i += 1;
                    v = at(i);
                }
                acc.merge(s, e);
                // The values inside the run: those of the next 8 that are at most `e` (a
                // prefix, the values being sorted) counted without a branch.
                while let Some(next) = a.get(i..i + 8) {
                    let inside: usize = next.iter().map(|v| usize::from(v.get() <= e)).sum();
                    i += inside;
                    if inside < 8 {
                        break;
                    }
                }
                v = at(i);
                while v <= u32::from(e) {
                    i += 1;
                    v = at(i);
                }
            }
            for v in a.get(i..).unwrap_or(&[]) {
                acc.merge(v.get(), v.get());
            }
        },
    );
}

/// Calls `f` with the runs of `a` and `b` in ascending order of start. Branchy, as
/// `and_runs` (and for the same reason).
#[inline(always)]
fn by_start(a: impl RunList, b: impl RunList, mut f: impl FnMut((u16, u16))) {
    let (mut i, mut j) = (0, 0);
    if a.n() > 0 && b.n() > 0 {
        let (mut x, mut y) = (a.at(0), b.at(0));
        loop {
            if x.0 <= y.0 {
                f(x);
                i += 1;
                if i == a.n() {
                    break;
                }
                x = a.at(i);
            } else {
                f(y);
                j += 1;
                if j == b.n() {
                    break;
                }
                y = b.at(j);
            }
        }
    }
    for k in i..a.n() {
        f(a.at(k));
    }
    for k in j..b.n() {
        f(b.at(k));
    }
}

/// `a ∩ b`: the overlap of each pair of runs that meet, put out as it is, not merged
/// into the last run by a [`RunAcc`] (census-income_srt's `and` 3 % faster): the overlaps
/// of well-formed inputs are ascending and apart, and any that touch or overlap (from
/// touching or disordered runs in an input) are merged by `Scratch::set_runs`'s cold path.
#[inline(always)]
fn and_runs(a: impl RunList, b: impl RunList, out: &mut alloc::vec::Vec<(u16, u16)>) {
    with_room(
        out,
        a.n() + b.n(),
        #[inline(always)]
        |slots| and_runs_in(a, b, slots),
    );
}

/// [`and_runs`] for two stored run lists, the pair the run ∘ run kernel meets most, out
/// of line so that the walk keeps its cursors, runs and output in registers (inlined into
/// the many-kernel dispatch it kept some on the stack: census-income_srt's `and` 4 %
/// slower).
#[inline(never)]
fn and_stored_runs(a: &[RunLE], b: &[RunLE], out: &mut alloc::vec::Vec<(u16, u16)>) {
    and_runs(a, b, out);
}

/// The overlaps of `a` and `b` in `out` (room for one per input run, more than the
/// overlaps can be), and how many.
#[inline(always)]
fn and_runs_in(a: impl RunList, b: impl RunList, out: &mut [(u16, u16)]) -> usize {
    // Branches on which run ends first, rather than cursors advanced by comparisons: the
    // branch-free form makes each step wait for the previous step's loads, and is slower
    // (the advances often repeat on one side, which predicts well). Ends unclamped
    // (`RunList::span`): the walk compares them with starts (at most 65535) and with each
    // other, which the clamp would not change, and an overlap's end is clamped as it is
    // put out.
    let (Some((mut s1, mut e1)), Some((mut s2, mut e2))) = (a.span(0), b.span(0)) else {
        return 0;
    };
    let (mut i, mut j, mut k) = (0, 0, 0);
    loop {
        // Runs that end before the other's run starts are passed in tight loops.
        if e1 < s2 {
            i += 1;
            let Some(x) = a.span(i) else { break };
            (s1, e1) = x;
            continue;
        }
        if e2 < s1 {
            j += 1;
            let Some(y) = b.span(j) else { break };
            (s2, e2) = y;
            continue;
        }
        if let Some(slot) = out.get_mut(k) {
            *slot = (s1.max(s2) as u16, e1.min(e2).min(0xFFFF) as u16);
            k += 1;
        }
        let (adv_a, adv_b) = (e1 <= e2, e2 <= e1);
        if adv_a {
            i += 1;
            let Some(x) = a.span(i) else { break };
            (s1, e1) = x;
        }
        if adv_b {
            j += 1;
            let Some(y) = b.span(j) else { break };
            (s2, e2) = y;
        }
    }
    k
}

/// `a − b`: each run of `a` cut by the runs of `b` that overlap it.
#[inline(always)]
fn andnot_runs(a: impl RunList, b: impl RunList, out: &mut alloc::vec::Vec<(u16, u16)>) {
    let mut j = 0;
    for i in 0..a.n() {
        let (st, en) = a.at(i);
        let (mut cur, en) = (u32::from(st), u32::from(en));
        // Skip the runs of `b` that end before this run.
        while j < b.n() && u32::from(b.at(j).1) < cur {
            j += 1;
        }
        while j < b.n() && u32::from(b.at(j).0) <= en {
            let (bs, be) = b.at(j);
            if u32::from(bs) > cur {
                push_run(out, cur as u16, (u32::from(bs) - 1) as u16);
            }
            cur = cur.max(u32::from(be) + 1);
            if u32::from(be) >= en {
                break; // this run of `b` may also cut the next run of `a`
            }
            j += 1;
        }
        if cur <= en {
            push_run(out, cur as u16, en as u16);
        }
    }
}

/// `a ⊕ b`: the runs of both, taken in order of start (one branch per run), each combined
/// with the last run of the result (as CRoaring's `run_container_smart_append_exclusive`):
/// every earlier run of the result ends before it, so only the last one can overlap or
/// touch it. The last run is kept in registers and written out once final.
#[inline(always)]
fn xor_runs(a: impl RunList, b: impl RunList, out: &mut alloc::vec::Vec<(u16, u16)>) {
    // Inlined by force, as in `merge_runs`.
    with_runs(
        out,
        a.n() + b.n(),
        #[inline(always)]
        |acc| by_start(a, b, |r| acc.xor(r)),
    );
}

/// A run list under construction, written by index into room made for it in advance (no
/// capacity check and length update per run, as `Vec::push` would do), its last run kept
/// in registers until it is final. See [`with_runs`].
struct RunAcc<'o> {
    last: Option<(u16, u16)>,
    /// Where the final runs go, and how many there are.
    out: &'o mut [(u16, u16)],
    k: usize,
}

impl RunAcc<'_> {
    /// Appends a final run.
    #[inline(always)]
    fn put(&mut self, r: (u16, u16)) {
        if let Some(slot) = self.out.get_mut(self.k) {
            *slot = r;
            self.k += 1;
        }
    }

    /// Adds run `s..=e`, which starts at or after the last run's start: merged into the
    /// last run if they overlap or touch (so even a corrupt input gives well-formed runs).
    #[inline(always)]
    fn merge(&mut self, s: u16, e: u16) {
        match self.last {
            Some((ls, le)) if joins(le, s) => {
                self.last = Some((ls, le.max(e)));
            }
            Some(l) => {
                self.put(l);
                self.last = Some((s, e));
            }
            None => self.last = Some((s, e)),
        }
    }

    /// Replaces the last run `l` by `l ⊕ r`, for a run `r` starting at or after `l` (and
    /// after every earlier run): `l` is final and written out if they are apart, they join
    /// if touching; if they overlap, the part of `l` before `r` is final and the part of
    /// the longer one after the shorter becomes the last run. A corrupt payload (runs out
    /// of order) gives wrong runs, never a panic.
    #[inline(always)]
    fn xor(&mut self, (s, e): (u16, u16)) {
        let Some((ls, le)) = self.last else {
            self.last = Some((s, e));
            return;
        };
        if u32::from(s) > u32::from(le) + 1 {
            self.put((ls, le));
            self.last = Some((s, e));
        } else if u32::from(s) == u32::from(le) + 1 {
            self.last = Some((ls, e));
        } else {
            if ls < s {
                self.put((ls, s - 1));
            }
            self.last = if le < e {
                Some((le + 1, e))
            } else if e < le {
                Some((e + 1, le))
            } else {
                None
            };
        }
    }
}

/// Clears `out` and fills it with the runs that `f` adds to a [`RunAcc`] with room for
/// `max` runs, the most the operation can give from well-formed inputs (one per input
/// run); any beyond, possible only from a corrupt payload, are dropped.
#[inline(always)]
fn with_runs(out: &mut alloc::vec::Vec<(u16, u16)>, max: usize, f: impl FnOnce(&mut RunAcc<'_>)) {
    with_room(
        out,
        max,
        #[inline(always)]
        |slots| {
            let mut acc = RunAcc {
                last: None,
                out: slots,
                k: 0,
            };
            f(&mut acc);
            if let Some(last) = acc.last {
                acc.put(last);
            }
            acc.k
        },
    );
}

/// Clears `out`, gives `f` room for `max` runs, and keeps the first ones, as many as `f`
/// says it wrote.
#[inline(always)]
fn with_room(
    out: &mut alloc::vec::Vec<(u16, u16)>,
    max: usize,
    f: impl FnOnce(&mut [(u16, u16)]) -> usize,
) {
    out.clear();
    out.resize(max, (0, 0));
    let k = f(out);
    out.truncate(k);
}
