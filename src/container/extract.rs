//! Bulk extraction: a whole container's values appended to a vector, each kind in its own
//! way (arrays widened in one loop, runs as ascending fills, bitsets a word at a time in
//! vector stores), and the rest of a bitset cursor's values the same way.

use alloc::vec::Vec;

use super::Container;
use super::iter::ContainerIter;
use crate::cast::{RunLE, U16};

/// Appends `high | low` for every value of `c` to `out`, in stored order.
#[inline]
pub(crate) fn extend(c: Container<'_>, high: u32, out: &mut Vec<u32>) {
    match c {
        // A few values at a time: a masked vector step costs more.
        Container::Array(a) if a.len() < NARROW_ARRAY => extend_array_impl(a, high, out),
        // With AVX-512, any length (a masked last step); else short arrays are not worth
        // the call of a CPU-level copy.
        Container::Array(a) if crate::simd::extend_widened(a, high, out) => {}
        Container::Array(a) if a.len() < WIDE_ARRAY => extend_array_impl(a, high, out),
        Container::Array(a) => extend_array(a, high, out),
        Container::Run(r) => extend_runs(r, high, out),
        // The cursor's extraction over the whole bitset (its words from first to last).
        Container::Bitset(_) => super::iter::ContainerIter::new(c).extend_vec(high, out),
    }
}

/// Arrays below this many values are widened a value at a time (one value per container
/// ran 1.7 times slower through the AVX-512 step and its masks).
const NARROW_ARRAY: usize = 8;

/// Arrays from this many values on are widened by the copy compiled for the CPU (16
/// values per AVX2 step instead of 8): below it, the call costs more than it saves.
const WIDE_ARRAY: usize = 64;

crate::simd::dispatch! {
    /// The values of an array, widened, compiled for each CPU level.
    fn extend_array(a: &[U16], high: u32, out: &mut Vec<u32>) -> () => extend_array_impl;
}

#[inline(always)]
fn extend_array_impl(a: &[U16], high: u32, out: &mut Vec<u32>) {
    out.extend(a.iter().map(|v| high | u32::from(v.get())));
}

crate::simd::dispatch! {
    /// The values of the runs, in blocks of 16 consecutive values (one vector store each
    /// where the CPU has them), compiled for each CPU level.
    fn extend_runs(r: &[RunLE], high: u32, out: &mut Vec<u32>) -> () => extend_runs_impl;
}

#[inline(always)]
fn extend_runs_impl(r: &[RunLE], high: u32, out: &mut Vec<u32>) {
    // `end` is clamped to the container and at least `start`.
    let length = |run: &RunLE| (run.end() - run.start()) as usize + 1;
    let mut blocks = crate::simd::Blocks::new(out, r.iter().map(length).sum());
    for run in r {
        blocks.put_run(high | run.start(), length(run));
    }
    blocks.finish();
}

crate::simd::dispatch! {
    /// [`ContainerIter::extend_vec`] for a bitset, compiled for each CPU level: the
    /// popcounts run on the CPU's instruction, and the values go straight into the output
    /// in vector stores (a word's positions compressed with AVX-512, else each byte's 8
    /// from a table).
    pub(crate) fn extend_bitset(it: &mut ContainerIter<'_>, high: u32, out: &mut Vec<u32>) -> () => extend_bitset_impl;
}

#[inline(always)]
fn extend_bitset_impl(it: &mut ContainerIter<'_>, high: u32, out: &mut Vec<u32>) {
    // Room for what the bitset holds (popcounts of its words, at most 65,536, whatever its
    // stored count claims).
    let count = it.remaining().min(1 << 16) as usize;
    let ContainerIter::Bitset {
        b,
        fw,
        fbits,
        bw,
        bbits,
    } = it
    else {
        return;
    };
    if *fw > *bw {
        return;
    }
    let (first, last) = (*fw, *bw);
    let (front, back) = (*fbits, *bbits);
    let mut blocks = crate::simd::Blocks::new(out, count);
    // The cursors' partial words at the ends (the front one when both are in the same
    // word, as `remaining` counts it), the whole words between them.
    if front != 0 {
        blocks.put_word(front, high | (first as u32 * 64));
    }
    if last > first {
        let middle = b.get(first + 1..last).unwrap_or(&[]);
        blocks.put_words(middle, high | ((first as u32 + 1) * 64));
        if back != 0 {
            blocks.put_word(back, high | (last as u32 * 64));
        }
    }
    blocks.finish();
    // Exhausted, as `next` leaves it.
    *fw = last + 1;
    *fbits = 0;
    *bbits = 0;
}
