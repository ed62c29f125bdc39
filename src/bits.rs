//! Helpers over the words of a bitset container and over sorted `u16` values: setting and
//! clearing runs of bits, counting bits and maximal runs. They sit below every other
//! module that handles containers (the SIMD kernels, the encoder, the set-algebra
//! kernels), so that none of those has to import another for them.

use crate::cast::BITSET_WORDS;

/// Sets bits `s..=e` of a bitset, a word at a time.
#[inline]
pub(crate) fn fill_bits(bits: &mut [u64; BITSET_WORDS], s: u16, e: u16) {
    run_words(s, e, |w, m| bits[w] |= m);
}

/// Clears bits `s..=e` of a bitset, a word at a time, and returns how many were set. A
/// word is stored only where the run clears a bit: results of a many-way difference are
/// mostly sparse, so most runs find nothing to clear and cost a load and a predicted
/// branch instead of a read-modify-write (first minus the rest on wikileaks: −10 % in the
/// profile harness).
#[inline(always)]
pub(crate) fn clear_bits(bits: &mut [u64; BITSET_WORDS], s: u16, e: u16) -> u32 {
    let mut cleared = 0;
    run_words(s, e, |w, m| cleared += clear_word(&mut bits[w], m));
    cleared
}

/// Clears the bits `m` of `word`, storing only if one of them is set (see
/// [`clear_bits`]); returns how many were set.
#[inline(always)]
pub(crate) fn clear_word(word: &mut u64, m: u64) -> u32 {
    let hit = *word & m;
    if hit == 0 {
        return 0;
    }
    *word ^= hit;
    hit.count_ones()
}

/// Calls `f(word, mask)` for each word of a bitset that run `st..=en` (`st <= en`)
/// touches, with the run's bits in that word; one call for a run within one word (most
/// runs).
#[inline(always)]
pub(crate) fn run_words(st: u16, en: u16, mut f: impl FnMut(usize, u64)) {
    let (ws, we) = (usize::from(st >> 6), usize::from(en >> 6));
    let first = u64::MAX << (st & 63);
    let last = u64::MAX >> (63 - (en & 63));
    if ws == we {
        f(ws, first & last);
    } else {
        f(ws, first);
        for w in ws + 1..we {
            f(w, u64::MAX);
        }
        f(we, last);
    }
}

/// Maximal runs in a strictly increasing slice (`get` reads a value): one, plus each value
/// that is not its predecessor plus one. Each step reads two neighbours and carries no
/// state, so the loop vectorizes.
#[inline(always)]
pub(crate) fn count_slice_runs<T: Copy>(values: &[T], get: impl Fn(T) -> u16) -> u32 {
    if values.is_empty() {
        return 0;
    }
    let breaks: u32 = values
        .iter()
        .zip(&values[1..])
        .map(|(&p, &v)| u32::from(get(v) != get(p).wrapping_add(1)))
        .sum();
    1 + breaks
}

/// The set bits of a bitset.
#[inline(always)]
pub(crate) fn bitset_card<T: Copy>(words: &[T; BITSET_WORDS], get: impl Fn(T) -> u64) -> u32 {
    words.iter().map(|&w| get(w).count_ones()).sum()
}

/// The maximal runs of set bits of a bitset if there are at most `cap`; else some number
/// above `cap` (counting stops at the first block of 64 words that passes it). Deciding a
/// container's canonical kind needs no more: bitsets with many runs, the common case, are
/// read only in part.
#[inline(always)]
pub(crate) fn bitset_runs_capped<T: Copy>(
    words: &[T; BITSET_WORDS],
    get: impl Fn(T) -> u64,
    cap: u32,
) -> u32 {
    let mut runs = 0u32;
    let mut carry = 0u64; // top bit of the word before the block
    for block in words.chunks_exact(64) {
        let first = get(block[0]);
        runs += (first & !((first << 1) | carry)).count_ones();
        // Each word's lower neighbour read again rather than carried: the loop vectorizes.
        for (&p, &w) in block.iter().zip(&block[1..]) {
            let (p, w) = (get(p), get(w));
            runs += (w & !((w << 1) | (p >> 63))).count_ones();
        }
        if runs > cap {
            return runs;
        }
        carry = get(block[63]) >> 63;
    }
    runs
}
