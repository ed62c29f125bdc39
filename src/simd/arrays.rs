//! Sorted `u16` arrays: intersection (and its count) by 8×8 block compares (16×16 where
//! the CPU has a fast VP2INTERSECT) or a 16-wide scan of the larger array, and counting
//! or listing an array's runs, with their x86 kernels beside the safe wrappers.

#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[allow(unused_imports)]
use super::x86;
#[allow(unused_imports)]
use crate::cast::U16;

/// `|a ∩ b|` for two sorted `u16` arrays with SSE (8×8 all-pairs block compares), or
/// `None` if the CPU lacks the features (the caller then merges in scalar code).
#[inline]
pub(crate) fn intersect_count_u16(a: &[U16], b: &[U16]) -> Option<u64> {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_fast_vp2intersect() {
        // SAFETY: `has_fast_vp2intersect` confirmed AVX-512 F, BW and VL, VP2INTERSECT,
        // AVX2 and POPCNT on this CPU.
        return Some(unsafe { kernels::intersect_count_u16_wide(a, b) });
    }
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v3() {
        // SAFETY: `has_v3` confirmed SSSE3/SSE4 (implied by AVX2) and POPCNT on this CPU.
        return Some(unsafe { kernels::intersect_count_u16(a, b) });
    }
    let _ = (a, b);
    None
}

/// Whether two sorted `u16` arrays share a value, by the block compares of
/// [`intersect_count_u16`] up to the first block that finds one, or `None` if the CPU lacks
/// the features (the caller then merges in scalar code).
#[inline]
pub(crate) fn arrays_meet(a: &[U16], b: &[U16]) -> Option<bool> {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v3() {
        // SAFETY: `has_v3` confirmed SSSE3/SSE4 (implied by AVX2) and POPCNT on this CPU.
        return Some(unsafe { kernels::arrays_meet(a, b) });
    }
    let _ = (a, b);
    None
}

/// `|small ∩ large|` for sorted `u16` arrays where `large` is several times longer: each
/// value of `small` is looked up by scanning `large` 16 values per AVX2 compare from where
/// the previous lookup stopped. `None` if the CPU lacks AVX2 (the caller gallops instead).
#[inline]
pub(crate) fn scan_count_u16(small: &[U16], large: &[U16]) -> Option<u64> {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v3() {
        // SAFETY: `has_v3` confirmed AVX2 and POPCNT on this CPU.
        return Some(unsafe { kernels::scan_count_u16(small, large) });
    }
    let _ = (small, large);
    None
}

/// Appends `small ∩ large` (sorted `u16` arrays, `large` several times longer) to `out`,
/// looking each value of `small` up as [`scan_count_u16`] does; `false` (and nothing
/// appended) if the CPU lacks AVX2 (the caller gallops instead).
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn scan_u16(small: &[U16], large: &[U16], out: &mut alloc::vec::Vec<u16>) -> bool {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v3() {
        // SAFETY: `has_v3` confirmed AVX2 and POPCNT on this CPU.
        unsafe { kernels::scan_u16(small, large, out) };
        return true;
    }
    let _ = (small, large, out);
    false
}

/// Appends `a ∩ b` (sorted `u16` arrays) to `out` with SSE block compares; `false` (and
/// nothing appended) if the CPU lacks the features (the caller then merges in scalar code).
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn intersect_u16(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) -> bool {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_fast_vp2intersect() {
        // SAFETY: `has_fast_vp2intersect` confirmed AVX-512 F, BW, VL and VBMI2,
        // VP2INTERSECT, AVX2 and POPCNT on this CPU.
        unsafe { kernels::intersect_u16_wide(a, b, out) };
        return true;
    }
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v3() {
        // SAFETY: `has_v3` confirmed SSSE3/SSE4 (implied by AVX2) and POPCNT on this CPU.
        unsafe { kernels::intersect_u16(a, b, out) };
        return true;
    }
    let _ = (a, b, out);
    false
}

/// The maximal runs of consecutive values in `values` (sorted `u16`s): one plus the
/// number of values that are not their predecessor plus one (0 for none). With AVX2,
/// 16 neighbours are compared per step and the breaks counted from the compare mask;
/// else [`crate::bits::count_slice_runs`].
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn count_runs_u16(values: &[U16]) -> u32 {
    // A few values are counted inline: the call to the AVX2 kernel cost 10 % of building
    // uscensus2000, whose arrays hold a few values each.
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if values.len() >= 32 && x86::has_v3() {
        // SAFETY: `has_v3` confirmed AVX2 and POPCNT on this CPU.
        return unsafe { kernels::count_runs_u16_capped(values, u32::MAX) };
    }
    crate::bits::count_slice_runs(values, |v| v.get())
}

/// [`count_runs_u16`] as far as a canonical kind needs: exact when the runs are at most
/// `cap`, else some count above `cap` (the runs of a prefix). With AVX-512, 32 neighbours
/// per compare; with AVX2, 16; both stop at the first step past `cap`. The result of an
/// array union is most often an array with breaks at nearly every value, where half the
/// array already decides.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn count_runs_u16_capped(values: &[U16], cap: u32) -> u32 {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if values.len() >= 64 && x86::has_v4() {
        // SAFETY: `has_v4` confirmed AVX-512 F and BW, and POPCNT on this CPU.
        return unsafe { kernels::count_runs_u16_capped_wide(values, cap) };
    }
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if values.len() >= 32 && x86::has_v3() {
        // SAFETY: `has_v3` confirmed AVX2 and POPCNT on this CPU.
        return unsafe { kernels::count_runs_u16_capped(values, cap) };
    }
    let _ = cap;
    crate::bits::count_slice_runs(values, |v| v.get())
}

/// Writes the boundaries of the maximal runs of `values` into `dst`, 32 values per step
/// with AVX-512 (see `kernels::array_runs_u16_wide`): each run's first value, then one
/// past its last (wrapping to 0 after 65535), as `pack::bitset_positions` writes a
/// bitset's; returns how many it wrote, fewer if `dst` is too short. The encoder's
/// `array_runs_into` turns them into runs. `None` (nothing written)
/// if the CPU lacks the features or `values` is short, where the caller's scalar loop is as
/// fast as the call.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn array_runs_u16(values: &[u16], dst: &mut [U16]) -> Option<usize> {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if values.len() >= 32 && x86::has_v4() {
        // SAFETY: `has_v4` confirmed AVX-512 F, BW and VBMI2, BMI2 and POPCNT on this CPU.
        return Some(unsafe { kernels::array_runs_u16_wide(values, dst) });
    }
    let _ = (values, dst);
    None
}

/// How many of the 16 sorted values of `w` are `<= lo`: with SSE2 (every x86-64 CPU has
/// it) one comparison of the window into a 16-bit mask whose trailing ones are the count
/// (the values `<= lo` of a sorted window come first). LLVM had turned the counting loop
/// into a popcount of that mask, a dozen dependent steps without the instruction in the
/// baseline. In a window out of order (a corrupt payload) the count stops at the first
/// value above `lo`.
#[inline(always)]
pub(crate) fn window_at_or_below(w: &[U16; 16], lo: u16) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::*;
        // SAFETY: SSE2 is part of the x86-64 baseline, so its intrinsics may run on every
        // x86-64 CPU; the two unaligned 16-byte loads read the 32 bytes of `w` (`U16` is
        // two plain bytes).
        let mask = unsafe {
            let p = w.as_ptr().cast::<__m128i>();
            let (a, b) = (_mm_loadu_si128(p), _mm_loadu_si128(p.add(1)));
            let probe = _mm_set1_epi16(lo as i16);
            let zero = _mm_setzero_si128();
            // `x - lo`, saturated at 0, is 0 exactly where `x <= lo`.
            let le_a = _mm_cmpeq_epi16(_mm_subs_epu16(a, probe), zero);
            let le_b = _mm_cmpeq_epi16(_mm_subs_epu16(b, probe), zero);
            _mm_movemask_epi8(_mm_packs_epi16(le_a, le_b)) as u32
        };
        (!mask).trailing_zeros()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // The same mask, a bit per value: the same answer for a window out of order.
        let mask = w
            .iter()
            .enumerate()
            .fold(0u32, |m, (j, x)| m | u32::from(x.get() <= lo) << j);
        (!mask).trailing_zeros()
    }
}

#[cfg(all(feature = "std", target_arch = "x86_64"))]
mod kernels {
    #[allow(unused_imports)]
    use super::super::x86_util::*;
    use super::U16;
    use core::arch::x86_64::*;

    /// See [`super::scan_count_u16`]: [`scan_matches`], counting.
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn scan_count_u16(small: &[U16], large: &[U16]) -> u64 {
        let mut n = 0u64;
        scan_matches(small, large, |_| {
            n += 1;
            true
        });
        n
    }

    /// See [`super::scan_u16`]: [`scan_matches`], each match stored in room reserved for
    /// all of `small` (each of its values matches at most once, so the room suffices).
    #[cfg(feature = "alloc")]
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn scan_u16(small: &[U16], large: &[U16], out: &mut alloc::vec::Vec<u16>) {
        let start = out.len();
        out.resize(start + small.len(), 0);
        let k = scan_store(small, large, &mut out[start..], 0);
        out.truncate(start + k);
    }

    /// [`scan_matches`] storing the matches in `dst` from index `k` on; returns the index
    /// past the last one stored. Matches beyond `dst`'s end (only repeated values, from a
    /// corrupt payload, can make more than there is room for) end the scan.
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    fn scan_store(small: &[U16], large: &[U16], dst: &mut [u16], mut k: usize) -> usize {
        scan_matches(small, large, |v| match dst.get_mut(k) {
            Some(slot) => {
                *slot = v;
                k += 1;
                true
            }
            None => false,
        });
        k
    }

    /// Calls `on_match(v)` for each value `v` of `small` found in `large` (both sorted), in
    /// order, until it returns `false`. For each `v`: skip the blocks of 64 values of
    /// `large` whose last is below `v` (a predictable scalar step for four vector ones:
    /// `small`'s values lie 16 to 256 positions apart in `large` where this is used), then
    /// compare `v` with the next 16 values of `large` (unsigned, via the sign-flip trick);
    /// if all are smaller, move on by 16, else move past the smaller ones (a prefix, as
    /// `large` is sorted) and test equality. Near the end of `large`, a scalar scan
    /// finishes.
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    fn scan_matches(small: &[U16], large: &[U16], mut on_match: impl FnMut(u16) -> bool) {
        let flip = _mm256_set1_epi16(i16::MIN);
        let mut base = 0usize;
        'values: for v in small {
            let v = v.get();
            let needle = _mm256_set1_epi16((v ^ 0x8000) as i16);
            while base + 64 <= large.len() && large[base + 63].get() < v {
                base += 64;
            }
            while base + 16 <= large.len() {
                // SAFETY: `base + 16 <= large.len()`, so the 32 bytes read lie inside
                // `large`; the load is unaligned; `U16` is two plain little-endian bytes.
                let block =
                    unsafe { _mm256_loadu_si256(large.as_ptr().add(base).cast::<__m256i>()) };
                let below = _mm256_cmpgt_epi16(needle, _mm256_xor_si256(block, flip));
                let mask = _mm256_movemask_epi8(below) as u32;
                if mask == u32::MAX {
                    base += 16;
                    continue;
                }
                // Fewer than 16 values are below `v`, so `base` stays inside `large`.
                base += (mask.count_ones() / 2) as usize;
                if large[base].get() == v {
                    base += 1;
                    if !on_match(v) {
                        return;
                    }
                }
                continue 'values;
            }
            while base < large.len() && large[base].get() < v {
                base += 1;
            }
            if base == large.len() {
                return;
            }
            if large[base].get() == v {
                base += 1;
                if !on_match(v) {
                    return;
                }
            }
        }
    }

    /// See [`super::count_runs_u16_capped`] (and [`super::count_runs_u16`], the same with no
    /// cap): `values[i]` is compared with `values[i − 1] + 1` for 16 `i` at a time (two
    /// overlapping loads); the lanes that differ are breaks. Returns once the runs so far
    /// pass `cap`.
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn count_runs_u16_capped(values: &[U16], cap: u32) -> u32 {
        let n = values.len();
        if n == 0 {
            return 0;
        }
        let one = _mm256_set1_epi16(1);
        let mut breaks = 0u32;
        let mut i = 1usize;
        while i + 16 <= n {
            // SAFETY: `i − 1 + 16 < i + 16 <= n`: both 32-byte loads lie inside `values`;
            // unaligned loads; `U16` is two plain little-endian bytes.
            let (v, p) = unsafe {
                (
                    _mm256_loadu_si256(values.as_ptr().add(i).cast::<__m256i>()),
                    _mm256_loadu_si256(values.as_ptr().add(i - 1).cast::<__m256i>()),
                )
            };
            let follows = _mm256_cmpeq_epi16(v, _mm256_add_epi16(p, one));
            // Two mask bits per lane.
            breaks += 16 - (_mm256_movemask_epi8(follows) as u32).count_ones() / 2;
            i += 16;
            if breaks >= cap {
                return 1 + breaks; // more than `cap` runs, whatever follows
            }
        }
        for k in i..n {
            breaks += u32::from(values[k].get() != values[k - 1].get().wrapping_add(1));
        }
        1 + breaks
    }

    /// [`count_runs_u16_capped`] 32 neighbours at a time (one 64-byte compare).
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,popcnt")]
    pub(super) unsafe fn count_runs_u16_capped_wide(values: &[U16], cap: u32) -> u32 {
        let n = values.len();
        if n == 0 {
            return 0;
        }
        let one = _mm512_set1_epi16(1);
        let mut breaks = 0u32;
        let mut i = 1usize;
        while i + 32 <= n {
            // SAFETY: `i − 1 + 32 < i + 32 <= n`: both 64-byte loads lie inside `values`;
            // unaligned loads; `U16` is two plain little-endian bytes.
            let (v, p) = unsafe {
                (
                    _mm512_loadu_si512(values.as_ptr().add(i).cast()),
                    _mm512_loadu_si512(values.as_ptr().add(i - 1).cast()),
                )
            };
            let follows = _mm512_cmpeq_epi16_mask(v, _mm512_add_epi16(p, one));
            breaks += 32 - follows.count_ones();
            i += 32;
            if breaks >= cap {
                return 1 + breaks; // more than `cap` runs, whatever follows
            }
        }
        for k in i..n {
            breaks += u32::from(values[k].get() != values[k - 1].get().wrapping_add(1));
        }
        1 + breaks
    }

    /// See [`super::array_runs_u16`]. The boundaries of the runs, in order, are each run's
    /// first value then one past its last: for 32 values at a time, a value starts a run if
    /// it is not its predecessor plus one, and ends one if its successor is not it plus one
    /// (two compares of overlapping loads). Each value, twice over (as itself for a start,
    /// plus one for an end), is kept where its flag is set, by one compress per 16 values,
    /// and the kept values go straight on in `dst`. On unsorted (corrupt) values this
    /// splits where the scalar loop does, with the same wrapping arithmetic.
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F, BW and VBMI2, BMI2 and POPCNT.
    #[cfg(feature = "alloc")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,bmi2,popcnt")]
    pub(super) unsafe fn array_runs_u16_wide(values: &[u16], dst: &mut [U16]) -> usize {
        let n = values.len();
        let (Some(&first), Some(slots)) = (values.first(), dst.get_mut(..2)) else {
            return 0;
        };
        // The first value starts the first run (it has no predecessor); the loop's
        // blocks begin at 1, so that each one's predecessors lie inside `values`.
        slots[0].set(first);
        let mut k = 1usize;
        if n == 1 || values[1] != first.wrapping_add(1) {
            slots[1].set(first.wrapping_add(1));
            k = 2;
        }
        let one = _mm512_set1_epi16(1);
        // 1 in the odd lanes: a value taken twice becomes itself, then one past itself.
        let odd_ones = _mm512_set1_epi32(1 << 16);
        // SAFETY: `TWICE`'s halves are 64 bytes each; unaligned loads.
        let twice = unsafe {
            [
                _mm512_loadu_si512(TWICE[0].as_ptr().cast()),
                _mm512_loadu_si512(TWICE[1].as_ptr().cast()),
            ]
        };
        let (p, out) = (values.as_ptr(), dst.as_mut_ptr());
        let mut i = 1usize;
        while i < n {
            let len = (n - i).min(32);
            let valid = mask_below(len);
            // The lanes with a successor: all but the array's last value.
            let with_next = mask_below(len.min(n - i - 1));
            // SAFETY: lanes `i..i + len`, `i − 1..i − 1 + len` (`i >= 1`) and, under
            // `with_next`, `i + 1..n` lie inside `values`; masked-out lanes are not read
            // (a masked load does not touch them) and `p.add(i + 1)` is at most one past
            // the end; unaligned loads of plain `u16`s.
            let (v, prev, next) = unsafe {
                (
                    _mm512_maskz_loadu_epi16(valid, p.add(i).cast()),
                    _mm512_maskz_loadu_epi16(valid, p.add(i - 1).cast()),
                    _mm512_maskz_loadu_epi16(with_next, p.add(i + 1).cast()),
                )
            };
            let plus_one = _mm512_add_epi16(v, one);
            let starts = _mm512_mask_cmpneq_epi16_mask(valid, v, _mm512_add_epi16(prev, one));
            let mut ends = _mm512_mask_cmpneq_epi16_mask(with_next, next, plus_one);
            if i + len == n {
                ends |= 1 << (len - 1); // the last value ends the last run
            }
            for (half, idx) in twice.iter().enumerate() {
                let (s, e) = (starts >> (16 * half) & 0xffff, ends >> (16 * half) & 0xffff);
                let keep = _pdep_u32(s, 0x5555_5555) | _pdep_u32(e, 0xaaaa_aaaa);
                let pairs = _mm512_add_epi16(_mm512_permutexvar_epi16(*idx, v), odd_ones);
                let kept = _mm512_maskz_compress_epi16(keep, pairs);
                let count = keep.count_ones() as usize;
                if k + count > dst.len() {
                    return k; // more runs than room
                }
                // SAFETY: `k + count <= dst.len()`: the masked store writes lanes
                // `k..k + count` of `dst`; unaligned; `U16` is two plain bytes, and the
                // CPU is little-endian like the format.
                unsafe { _mm512_mask_storeu_epi16(out.add(k).cast(), mask_below(count), kept) };
                k += count;
            }
            i += len;
        }
        k
    }

    /// The lanes of 16 values each taken twice, for [`array_runs_u16_wide`]: values 0–15 of
    /// a vector of 32, then values 16–31.
    #[cfg(feature = "alloc")]
    static TWICE: [[u16; 32]; 2] = {
        let mut t = [[0u16; 32]; 2];
        let mut lane = 0;
        while lane < 32 {
            t[0][lane] = lane as u16 / 2;
            t[1][lane] = 16 + lane as u16 / 2;
            lane += 1;
        }
        t
    };

    /// See [`super::intersect_u16`]: [`blocks`], storing the matching lanes of each block
    /// through the shuffle table (no branch per match), then the fewer than 8 values left on
    /// one side searched for in the other's rest ([`scan_matches`]).
    #[cfg(feature = "alloc")]
    #[target_feature(enable = "avx2,popcnt,bmi1")]
    pub(super) unsafe fn intersect_u16(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) {
        let (a, b, zero) = without_zero(a, b);
        if zero == (true, true) {
            out.push(0);
        }
        let start = out.len();
        out.resize(start + a.len().min(b.len()) + 8, 0);
        let dst = &mut out[start..];
        let mut k = 0;
        // Before a store, `k` (matches so far) is at most the values of `b` before the
        // current block (each matches once), which has 8 more, and at most the values of
        // `a` up to the end of the current block: `k + 8 <= min(a, b) + 8 = dst.len()`.
        // Unsorted or repeated values (a corrupt payload) can match more than once: the
        // matches beyond the room are dropped (`store_dropping`, and the check below).
        let (i, j) = blocks(a, b, |va, found| {
            k += store_dropping(va, !found as usize, dst, k);
            true
        });
        // The side with fewer than 8 values left is searched for in the other's rest,
        // which can be long (a merge would step through it value by value).
        let (a, b) = (&a[i..], &b[j..]);
        let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
        k = scan_store(small, large, dst, k);
        out.truncate(start + k);
    }

    /// See [`super::intersect_count_u16`]: [`blocks`], counting the matches, then the fewer
    /// than 8 values left on one side searched for in the other's rest ([`scan_matches`]).
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn intersect_count_u16(a: &[U16], b: &[U16]) -> u64 {
        let (a, b, zero) = without_zero(a, b);
        let mut n = u64::from(zero == (true, true));
        let (i, j) = blocks(a, b, |_, found| {
            n += u64::from(found.count_ones());
            true
        });
        // The side with fewer than 8 values left is searched for in the other's rest,
        // which can be long (a merge would step through it value by value).
        let (a, b) = (&a[i..], &b[j..]);
        let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
        // SAFETY: this function's own requirements (AVX2 and POPCNT) are the callee's.
        n + unsafe { scan_count_u16(small, large) }
    }

    /// See [`super::arrays_meet`]: [`blocks`] until a block finds a match, then the fewer
    /// than 8 values left on one side searched for in the other's rest ([`scan_matches`]).
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn arrays_meet(a: &[U16], b: &[U16]) -> bool {
        let (a, b, zero) = without_zero(a, b);
        let mut met = zero == (true, true);
        let (i, j) = blocks(a, b, |_, found| {
            met |= found != 0;
            !met
        });
        if met {
            return true;
        }
        let (a, b) = (&a[i..], &b[j..]);
        let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
        scan_matches(small, large, |_| {
            met = true;
            false
        });
        met
    }

    /// See [`super::intersect_u16`]: [`blocks16`], each pair's matching lanes compressed
    /// to the front and stored whole (the room is reserved).
    #[cfg(feature = "alloc")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512vp2intersect,popcnt")]
    pub(super) unsafe fn intersect_u16_wide(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) {
        let start = out.len();
        out.resize(start + a.len().min(b.len()) + 16, 0);
        let dst = &mut out[start..];
        let mut k = 0;
        // Each value of either array matches at most once, so `k <= min(a, b)` and the
        // 16 slots stored from `k` lie inside `dst`. Unsorted or repeated values (a
        // corrupt payload) can match more than once: a pair with no room left is dropped.
        blocks16(a, b, |va, _, found, _| {
            if let Some(slot) = dst.get_mut(k..k + 16) {
                let kept = _mm256_maskz_compress_epi16(found, va);
                // SAFETY: `slot` is 16 `u16`, 32 bytes, exactly what is stored; unaligned.
                unsafe { _mm256_storeu_si256(slot.as_mut_ptr().cast::<__m256i>(), kept) };
                k += found.count_ones() as usize;
            }
        });
        out.truncate(start + k);
    }

    /// See [`super::intersect_count_u16`]: [`blocks16`], counting the matches.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vp2intersect,popcnt")]
    pub(super) unsafe fn intersect_count_u16_wide(a: &[U16], b: &[U16]) -> u64 {
        let mut n = 0u64;
        blocks16(a, b, |_, _, found, _| n += u64::from(found.count_ones()));
        n
    }
}
