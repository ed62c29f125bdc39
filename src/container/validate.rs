//! Strict checks of one container's payload against the Roaring invariants.

use super::Container;
use crate::format::ARRAY_MAX;

/// Checks the payload against its stored cardinality. Returns the name of the broken
/// invariant and the byte offset within the payload where it was found. Inlined into its
/// caller, which is compiled for each CPU level (a bitset's popcount then runs on the CPU's
/// own instruction, and the order checks are vectorized).
#[inline(always)]
pub(crate) fn check(c: Container<'_>, card: u32) -> Result<(), (&'static str, usize)> {
    match c {
        Container::Array(a) => {
            if a.is_empty() || a.len() > ARRAY_MAX as usize {
                return Err(("array cardinality", 0));
            }
            // One pass with no exit per value (it vectorizes); the place only on failure.
            let increasing = a
                .iter()
                .zip(&a[1..])
                .fold(true, |ok, (p, v)| ok & (p.get() < v.get()));
            if !increasing {
                let i = a.windows(2).position(|w| w[0].get() >= w[1].get());
                return Err((
                    "array values (not strictly increasing)",
                    2 * (i.unwrap_or(0) + 1),
                ));
            }
            Ok(())
        }
        Container::Bitset(b) => {
            let pop: u32 = b.iter().map(|w| w.get().count_ones()).sum();
            if pop != card {
                return Err(("bitset popcount (differs from stored cardinality)", 0));
            }
            if card <= ARRAY_MAX {
                return Err(("bitset cardinality (at most 4096: must be an array)", 0));
            }
            Ok(())
        }
        Container::Run(r) => {
            if r.is_empty() {
                return Err(("run count", 0));
            }
            // One pass with no exit per run over the runs as little-endian words (start in
            // the low half, length - 1 in the high half), so that it vectorizes: each run
            // ends at least 2 below the next one's start (in order, with a gap), the last
            // one ends by 65535, and the lengths add up. The loop below only places a
            // failure.
            let w = crate::cast::run_words(r);
            let (mut bad, mut total) = (0u32, r.len() as u32);
            // `p`'s end + 2 fits in u32: at most 0xFFFF + 0xFFFF + 2.
            let step = |(bad, total): (u32, u32),
                        (p, q): (&crate::cast::U32, &crate::cast::U32)| {
                let (p, q) = (p.get(), q.get());
                (
                    bad | u32::from((q & 0xFFFF) < (p & 0xFFFF) + (p >> 16) + 2),
                    total.wrapping_add(p >> 16),
                )
            };
            // Blocks of 8 (one vector step each, lists are often a few dozen runs long),
            // then the rest one at a time.
            let (ps, qs) = (&w[..w.len() - 1], &w[1..]);
            let mut blocks = ps.chunks_exact(8).zip(qs.chunks_exact(8));
            for (p8, q8) in &mut blocks {
                (bad, total) = p8.iter().zip(q8).fold((bad, total), step);
            }
            let done = ps.len() - ps.len() % 8;
            (bad, total) = ps[done..].iter().zip(&qs[done..]).fold((bad, total), step);
            let l = w[w.len() - 1].get();
            bad |= u32::from((l & 0xFFFF) + (l >> 16) > 0xFFFF);
            // Wrapping: only a corrupt run list can pass 2^32, and the order check then fails.
            total = total.wrapping_add(l >> 16);
            if bad == 0 && total == card {
                return Ok(());
            }
            let mut next_allowed = 0u32; // smallest start allowed for the next run
            let mut total = 0u32;
            for (i, run) in r.iter().enumerate() {
                let s = run.start();
                let e = s + u32::from(run.len_minus_one.get());
                if e > 0xFFFF {
                    return Err(("run (extends past 65535)", 2 + 4 * i));
                }
                if i > 0 && s < next_allowed {
                    return Err(("run (unsorted, overlapping or adjacent)", 2 + 4 * i));
                }
                next_allowed = e + 2;
                total += e - s + 1;
            }
            if total != card {
                return Err(("run lengths (sum differs from stored cardinality)", 2));
            }
            Ok(())
        }
    }
}
