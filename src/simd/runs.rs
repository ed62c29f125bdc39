//! Run containers into bitsets: filling or clearing eight runs a vector, and filtering
//! an array by runs, with their x86 kernels.

#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[allow(unused_imports)]
use super::x86;
#[allow(unused_imports)]
use crate::cast::U16;

/// Sets the bits of the leading short runs of a run container in `bits`, eight runs a
/// vector with AVX-512: a run within one word (most, where runs are short) becomes a
/// word index and a mask in the vector, then one read-modify-write of that word; a run
/// across words is set by [`crate::bits::fill_bits`]. It stops after the first
/// eight runs of which fewer than five are within a word (long runs: the scalar fill is
/// as fast) or before the last `runs.len() % 8`. Returns how many runs it set, from the
/// first: 0 if the CPU lacks the features; the caller sets the rest. A run that ends past
/// 65535 (possible only in an unchecked view) is set as the scalar fill sets it.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn fill_runs_wide(
    bits: &mut [u64; crate::cast::BITSET_WORDS],
    runs: &[crate::cast::RunLE],
) -> usize {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v4() {
        // SAFETY: `has_v4` confirmed AVX-512 F and VL (and AVX2, BMI2, POPCNT).
        return unsafe { kernels::runs_wide::<false>(bits, runs, &mut 0) };
    }
    let _ = (bits, runs);
    0
}

/// The start of the set-algebra kernel `filter_by_runs`' merge, 32 values a step with
/// AVX-512: the values of the sorted array `a` that `O` keeps given the runs `r` (inside
/// them for an intersection, outside for a difference) are
/// written to `dst` from index 0 on. Each step compares the next 32 values with the
/// current run and keeps those inside it (or those before it); it moves on to the next 32
/// values if all are within the run's end, else to the next run. Stops when fewer than 32
/// values or no run are left, and returns how far it got in `a`, in `r` and in `dst`
/// (`(0, 0, 0)` without AVX-512): the caller merges the rest. `dst` needs room for all of
/// `a` and 32 more. Values out of order (a corrupt payload) only give wrong values.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn filter_by_runs_wide<O: crate::keep::Keep>(
    a: &[U16],
    r: &[crate::cast::RunLE],
    dst: &mut [u16],
) -> (usize, usize, usize) {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v4() {
        // SAFETY: `has_v4` confirmed AVX-512 F, BW and VBMI2, and POPCNT on this CPU.
        return unsafe { kernels::filter_by_runs_wide::<O>(a, r, dst) };
    }
    let _ = (a, r, dst);
    (0, 0, 0)
}

/// Slots of [`Deferred`]: flushed once fewer than 8 are free.
#[cfg(feature = "alloc")]
const DEFERRED_SLOTS: usize = 128;

/// The second words of runs across two words, which [`fill_runs_wide_deferred`] leaves
/// to be ORed in later, all at once ([`Deferred::flush`]): a branch per such run, taken
/// about once in twelve runs on wikileaks and so mispredicted, cost the union of all
/// there more than the runs' other words together.
#[cfg(feature = "alloc")]
#[cfg_attr(not(all(feature = "std", target_arch = "x86_64")), allow(dead_code))]
pub(crate) struct Deferred {
    words: [u64; DEFERRED_SLOTS],
    masks: [u64; DEFERRED_SLOTS],
    n: usize,
}

#[cfg(feature = "alloc")]
impl Deferred {
    /// Nothing deferred.
    #[inline(always)]
    pub(crate) fn new() -> Deferred {
        Deferred {
            words: [0; DEFERRED_SLOTS],
            masks: [0; DEFERRED_SLOTS],
            n: 0,
        }
    }

    /// ORs the deferred masks into `bits`.
    #[inline(always)]
    pub(crate) fn flush(&mut self, bits: &mut [u64; crate::cast::BITSET_WORDS]) {
        let n = self.n.min(DEFERRED_SLOTS);
        for (&w, &m) in self.words[..n].iter().zip(&self.masks[..n]) {
            bits[w as usize & (crate::cast::BITSET_WORDS - 1)] |= m;
        }
        self.n = 0;
    }

    /// [`flush`](Self::flush) out of line, for the fill's rare flush when full (which
    /// keeps the fill small enough to be inlined into its caller).
    #[cold]
    #[inline(never)]
    #[cfg_attr(not(all(feature = "std", target_arch = "x86_64")), allow(dead_code))]
    fn flush_cold(&mut self, bits: &mut [u64; crate::cast::BITSET_WORDS]) {
        self.flush(bits);
    }
}

/// [`fill_runs_wide`] that sets a run across two words with a mask for each, the second
/// left in `defer` (flushed here when it fills up; the caller flushes the rest before
/// reading `bits`). Stops as [`fill_runs_wide`] does, counting runs across two words as
/// short ones.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn fill_runs_wide_deferred(
    bits: &mut [u64; crate::cast::BITSET_WORDS],
    runs: &[crate::cast::RunLE],
    defer: &mut Deferred,
) -> usize {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v4() {
        // SAFETY: `has_v4` confirmed AVX-512 F and VL (and AVX2, BMI2, POPCNT).
        return unsafe { kernels::runs_wide_deferred(bits, runs, defer) };
    }
    let _ = (bits, runs, defer);
    0
}

/// [`fill_runs_wide`] clearing the runs' bits instead of setting them: returns how many
/// runs it cleared and how many of their bits were set.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn clear_runs_wide(
    bits: &mut [u64; crate::cast::BITSET_WORDS],
    runs: &[crate::cast::RunLE],
) -> (usize, u32) {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v4() {
        let mut cleared = 0;
        // SAFETY: `has_v4` confirmed AVX-512 F and VL (and AVX2, BMI2, POPCNT).
        let done = unsafe { kernels::runs_wide::<true>(bits, runs, &mut cleared) };
        return (done, cleared);
    }
    let _ = (bits, runs);
    (0, 0)
}

/// Whether [`fill_runs_wide`] sets runs on this CPU.
#[cfg(all(test, feature = "alloc"))]
#[inline(always)]
pub(crate) fn has_fill_runs_wide() -> bool {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    return x86::has_v4();
    #[cfg(not(all(feature = "std", target_arch = "x86_64")))]
    return false;
}

/// Whether the union's run fills should use [`fill_runs_wide`]: where it has AVX-512, but
/// not on AMD, where it is slower than the scalar fill of two containers interleaved;
/// clearing runs (`clear_runs_wide`, the many-way difference) stays wide on both
/// (BENCHMARKS.md, design decisions).
#[cfg(feature = "alloc")]
#[inline(always)]
pub(crate) fn prefer_fill_runs_wide() -> bool {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    return x86::has_v4() && !x86::is_amd();
    #[cfg(not(all(feature = "std", target_arch = "x86_64")))]
    return false;
}

#[cfg(all(feature = "std", target_arch = "x86_64"))]
mod kernels {
    #[allow(unused_imports)]
    use super::super::x86_util::*;
    use super::U16;
    use core::arch::x86_64::*;

    /// Eight runs of a run container in 64-bit lanes (from [`run_lanes`]).
    struct RunLanes {
        /// Each run's last value, up to 131070 (past 65535 only in a corrupt payload).
        e: __m512i,
        /// The words of its first and last values (`we` up to 2047, likewise).
        ws: __m512i,
        we: __m512i,
        /// Its bits in its first word, and in its last word.
        first: __m512i,
        last: __m512i,
    }

    /// Eight runs as [`RunLanes`]: a run is `(start, length − 1)` as little-endian
    /// `u16`s, one `u32` lane widened to 64 bits.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx2,bmi2,popcnt")]
    fn run_lanes(chunk: &[crate::cast::RunLE; 8]) -> RunLanes {
        let (all, m63) = (_mm512_set1_epi64(-1), _mm512_set1_epi64(63));
        // SAFETY: the chunk is 8 runs of 4 bytes, 32 bytes, read unaligned.
        let x = _mm512_cvtepu32_epi64(unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) });
        let s = _mm512_and_si512(x, _mm512_set1_epi64(0xFFFF));
        let e = _mm512_add_epi64(s, _mm512_srli_epi64::<16>(x));
        RunLanes {
            e,
            ws: _mm512_srli_epi64::<6>(s),
            we: _mm512_srli_epi64::<6>(e),
            first: _mm512_sllv_epi64(all, _mm512_and_si512(s, m63)),
            last: _mm512_srlv_epi64(all, _mm512_sub_epi64(m63, _mm512_and_si512(e, m63))),
        }
    }

    /// See [`super::fill_runs_wide`] and [`super::clear_runs_wide`]: sets the runs' bits,
    /// or with `CLEAR` clears them, adding to `cleared` how many were set.
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F and VL, AVX2, BMI2 and POPCNT.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx2,bmi2,popcnt")]
    pub(super) unsafe fn runs_wide<const CLEAR: bool>(
        bits: &mut [u64; crate::cast::BITSET_WORDS],
        runs: &[crate::cast::RunLE],
        cleared: &mut u32,
    ) -> usize {
        let mut words = [0u64; 8];
        let mut masks = [0u64; 8];
        let mut done = 0;
        for chunk in runs.as_chunks::<8>().0 {
            let RunLanes {
                ws,
                we,
                first,
                last,
                ..
            } = run_lanes(chunk);
            let within = _mm512_cmpeq_epu64_mask(ws, we);
            // SAFETY: both arrays are 8 u64s, 64 bytes, stored unaligned.
            unsafe {
                _mm512_storeu_si512(words.as_mut_ptr().cast(), ws);
                let m = _mm512_maskz_and_epi64(within, first, last);
                _mm512_storeu_si512(masks.as_mut_ptr().cast(), m);
            }
            // A run across words has mask 0 here and is done below. `ws` is a start's
            // word, at most 65535 >> 6 (the mask only drops the bounds check).
            for (&w, &m) in words.iter().zip(&masks) {
                let word = &mut bits[w as usize & (crate::cast::BITSET_WORDS - 1)];
                if CLEAR {
                    *cleared += crate::bits::clear_word(word, m);
                } else {
                    *word |= m;
                }
            }
            let mut across = !within;
            while across != 0 {
                let r = &chunk[across.trailing_zeros() as usize];
                let (st, en) = (r.start() as u16, r.end() as u16);
                if CLEAR {
                    *cleared += crate::bits::clear_bits(bits, st, en);
                } else {
                    crate::bits::fill_bits(bits, st, en);
                }
                across &= across - 1;
            }
            done += 8;
            if within.count_ones() < 5 {
                break;
            }
        }
        done
    }

    /// See [`super::fill_runs_wide_deferred`].
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F and VL, AVX2, BMI2 and POPCNT.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx2,bmi2,popcnt")]
    pub(super) unsafe fn runs_wide_deferred(
        bits: &mut [u64; crate::cast::BITSET_WORDS],
        runs: &[crate::cast::RunLE],
        defer: &mut super::Deferred,
    ) -> usize {
        let one = _mm512_set1_epi64(1);
        let end = _mm512_set1_epi64(1 << 16);
        let mut words = [0u64; 8];
        let mut masks = [0u64; 8];
        let mut done = 0;
        // The deferred count in a register (`defer` is written back at the end).
        let mut at = defer.n;
        for chunk in runs.as_chunks::<8>().0 {
            let RunLanes {
                e,
                ws,
                we,
                first,
                last,
            } = run_lanes(chunk);
            let within = _mm512_cmpeq_epu64_mask(ws, we);
            // Across two words: the end's word is the next one, and inside the bitset.
            let two = _mm512_mask_cmpeq_epu64_mask(
                _mm512_cmplt_epu64_mask(e, end),
                _mm512_sub_epi64(we, ws),
                one,
            );
            if at > super::DEFERRED_SLOTS - 8 {
                defer.n = at;
                defer.flush_cold(bits);
                at = 0;
            }
            // SAFETY: both arrays are 8 u64s, 64 bytes, stored unaligned. `at <=
            // DEFERRED_SLOTS - 8` (flushed above otherwise), so the 8 lanes stored from
            // it lie inside both of its buffers; of them the first `popcount(two)` count.
            unsafe {
                _mm512_storeu_si512(words.as_mut_ptr().cast(), ws);
                let m = _mm512_maskz_and_epi64(within, first, last);
                let m = _mm512_mask_mov_epi64(m, two, first);
                _mm512_storeu_si512(masks.as_mut_ptr().cast(), m);
                _mm512_storeu_si512(
                    defer.words.as_mut_ptr().add(at).cast(),
                    _mm512_maskz_compress_epi64(two, we),
                );
                _mm512_storeu_si512(
                    defer.masks.as_mut_ptr().add(at).cast(),
                    _mm512_maskz_compress_epi64(two, last),
                );
            }
            at += two.count_ones() as usize;
            // A longer run has mask 0 here and is done below. `ws` is a start's word, at
            // most 65535 >> 6 (the mask only drops the bounds check).
            for (&w, &m) in words.iter().zip(&masks) {
                bits[w as usize & (crate::cast::BITSET_WORDS - 1)] |= m;
            }
            let short = within | two;
            let mut across = !short;
            while across != 0 {
                let r = &chunk[across.trailing_zeros() as usize];
                crate::bits::fill_bits(bits, r.start() as u16, r.end() as u16);
                across &= across - 1;
            }
            done += 8;
            if short.count_ones() < 5 {
                break;
            }
        }
        defer.n = at;
        done
    }

    /// See [`super::filter_by_runs_wide`].
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F, BW and VBMI2, and POPCNT.
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,popcnt")]
    pub(super) unsafe fn filter_by_runs_wide<O: crate::keep::Keep>(
        a: &[U16],
        r: &[crate::cast::RunLE],
        dst: &mut [u16],
    ) -> (usize, usize, usize) {
        let (mut i, mut j, mut k) = (0, 0, 0);
        // Each step keeps at most the values it moves past (`keep` ⊆ `le`), so `k <= i`.
        while i + 32 <= a.len() && k + 32 <= dst.len() {
            let Some(run) = r.get(j) else { break };
            // Runs that end before the next value are skipped in scalar code (many runs
            // between values: census-income_srt's `and` 11 % faster so than a vector step
            // per run).
            if run.end() < u32::from(a[i].get()) {
                j += 1;
                continue;
            }
            // `end` is at most 65535 (`RunLE::end` cuts a corrupt run there).
            let (st, en) = (run.start() as u16, run.end() as u16);
            // SAFETY: `i + 32 <= a.len()`: the 64 bytes read lie inside `a`; unaligned.
            let v = unsafe { _mm512_loadu_si512(a.as_ptr().add(i).cast()) };
            let le = _mm512_cmple_epu16_mask(v, _mm512_set1_epi16(en as i16));
            let ge = _mm512_cmpge_epu16_mask(v, _mm512_set1_epi16(st as i16));
            // Outside the runs: the values before this one (after the previous run).
            let keep = if O::BOTH { le & ge } else { le & !ge };
            let kept = _mm512_maskz_compress_epi16(keep, v);
            // SAFETY: `k + 32 <= dst.len()`: the 64 bytes written lie inside `dst`;
            // unaligned.
            unsafe { _mm512_storeu_si512(dst.as_mut_ptr().add(k).cast(), kept) };
            k += keep.count_ones() as usize;
            // Sorted values: those up to the run's end are a prefix of the 32.
            let past = le.count_ones() as usize;
            i += past;
            j += usize::from(past < 32);
        }
        (i, j, k)
    }
}
