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
            // One pass with no exit per run (it vectorizes): in bounds, in order with a gap,
            // and the lengths' sum; the loop below only places a failure.
            let last = |run: &crate::cast::RunLE| run.start() + u32::from(run.len_minus_one.get());
            let in_bounds = r.iter().fold(true, |ok, run| ok & (last(run) <= 0xFFFF));
            let ordered = r
                .iter()
                .zip(&r[1..])
                .fold(true, |ok, (p, q)| ok & (q.start() >= last(p) + 2));
            // Wrapping: only a corrupt run list can pass 2^32, and `ordered` then fails.
            let total = r.iter().fold(0u32, |t, run| {
                t.wrapping_add(u32::from(run.len_minus_one.get()) + 1)
            });
            if in_bounds && ordered && total == card {
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
