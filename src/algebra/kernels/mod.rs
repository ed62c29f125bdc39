//! Materializing kernels: one binary operation on two containers of any kinds, written into
//! a [`Scratch`] in the representation that suits the pair — sorted values for results
//! bounded by an array, word-wise bitset operations (popcount for the cardinality), and
//! interval arithmetic on runs, which are never expanded to values. Compiled twice (baseline
//! and x86-64-v3, see `simd.rs`), so the word loops run on AVX2 and `popcnt` where present.

use super::Op;
use super::scratch::{Scratch, joins, push_run};
use crate::bits::{fill_bits, run_words};
use crate::cast::{BITSET_WORDS, BitsetLE, RunLE, U16};
use crate::container::Container;
use crate::encode::{Encoder, bitset_runs_into};
use crate::format::{ARRAY_MAX, ContainerKind};
use crate::keep::{Difference, Intersection, Keep, SymmetricDifference, Union};
use crate::simd::BitOp;

mod arrays;
mod bits;
mod runs;

use arrays::*;
use bits::*;
use runs::*;

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
/// are all set (checked after each bitset and every 8 containers, after `or(None, bits)`
/// has brought them up to date): the rest cannot add any. Each check resumes where the
/// last found a word not yet full, so all of them together read the bits about once;
/// after each bitset (8 KiB read), it stops the union of dense bitsets as soon as it is
/// full, where every 8 containers read up to 7 bitsets too many.
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
        if seen >= 1 << 16 && (n % 8 == 7 || matches!(c, Container::Bitset(_))) {
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

/// `s` = the symmetric difference of the run containers among `cs`, folded run list into
/// run list: for a few runs in all, where a bitset would be cleared, filled and scanned
/// for them (the symmetric difference of four one-run containers took 3 times CRoaring's
/// time through the bitset, and 0.43 of it folded).
pub(crate) fn xor_runs_folded(cs: &[(Container<'_>, u32)], s: &mut Scratch) {
    s.clear();
    s.runs.clear();
    for &(c, _) in cs {
        if let Container::Run(r) = c {
            s.runs2.clear();
            xor_runs(&s.runs[..], r, &mut s.runs2);
            // Copied back, not swapped (see `andnot_in_place_impl`).
            s.runs.clear();
            s.runs.extend_from_slice(&s.runs2);
        }
    }
    s.set_runs();
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
    crate::bits::bitset_runs_capped(bits, |w| w, cap)
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
            let card = crate::bits::bitset_card(b, |w| w.get());
            (plain_kind(card), card, 0)
        }
        Container::Array(a) => {
            let card = a.len() as u32;
            let runs =
                crate::simd::count_runs_u16_capped(a, crate::format::max_canonical_runs(card));
            (canonical_kind(card, runs), card, runs)
        }
        Container::Bitset(b) => {
            let card = crate::bits::bitset_card(b, |w| w.get());
            let cap = crate::format::max_canonical_runs(card);
            let runs = crate::bits::bitset_runs_capped(b, |w| w.get(), cap);
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
                    crate::bits::clear_bits(bits, st, en)
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
    crate::bits::bitset_card(bits, |w| w)
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
                        sparse_merge::<Union>(large, small, &mut s.lows);
                    } else {
                        sparse_merge::<SymmetricDifference>(large, small, &mut s.lows);
                    }
                }
                Op::Or => {
                    if !crate::simd::union_u16(x, y, &mut s.lows) {
                        merge_aa::<Union>(x, y, &mut s.lows);
                    }
                }
                Op::AndNot => andnot_aa(x, y, &mut s.lows),
                Op::Xor => {
                    if !crate::simd::xor_u16(x, y, &mut s.lows) {
                        merge_aa::<SymmetricDifference>(x, y, &mut s.lows);
                    }
                }
            }
            s.set_lows();
        }
        // --- array ∘ bitset
        (Op::And, Array(x), Bitset(y)) | (Op::And, Bitset(y), Array(x)) => {
            s.lows.clear();
            filter_by_bits::<Intersection>(x, y, &mut s.lows);
            s.set_lows();
        }
        (Op::AndNot, Array(x), Bitset(y)) => {
            s.lows.clear();
            filter_by_bits::<Difference>(x, y, &mut s.lows);
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
            filter_by_runs::<Intersection>(x, y, &mut s.lows);
            s.set_lows();
        }
        (Op::AndNot, Array(x), Run(y)) => {
            s.lows.clear();
            filter_by_runs::<Difference>(x, y, &mut s.lows);
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
                    merge_aa::<Union>(x, z, &mut s.lows);
                }
            } else if !crate::simd::xor_u16(x, z, &mut s.lows) {
                merge_aa::<SymmetricDifference>(x, z, &mut s.lows);
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
