//! Sorted `u16` arrays merged into one: union, difference and symmetric difference by
//! vectorized merging (Lemire et al., as in CRoaring), with their x86 kernels.

#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[allow(unused_imports)]
use super::x86;
#[allow(unused_imports)]
use crate::cast::U16;

/// Appends `a ∪ b` (sorted `u16` arrays) to `out` with SSE merge networks; `false` (and
/// nothing appended) if the CPU lacks the features.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn union_u16(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) -> bool {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v4() {
        // SAFETY: `has_v4` confirmed AVX-512 F, BW and VBMI2, AVX2 and POPCNT on this CPU.
        unsafe { kernels::union_u16_wide(a, b, out) };
        return true;
    }
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v3() {
        // SAFETY: `has_v3` confirmed SSSE3/SSE4.1 (implied by AVX2) and POPCNT on this CPU.
        unsafe { kernels::union_u16(a, b, out) };
        return true;
    }
    let _ = (a, b, out);
    false
}

/// Appends `a − b` (sorted `u16` arrays) to `out` with SSE block compares (16×16 where the
/// CPU has a fast VP2INTERSECT); `false` (and nothing appended) if the CPU lacks the
/// features.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn difference_u16(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) -> bool {
    // Under 8 values the SSE kernel merges in scalar code at once, and so faster than a
    // masked block would (one value per container: 10 % faster).
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if a.len() >= 8 && x86::has_fast_vp2intersect() {
        // SAFETY: `has_fast_vp2intersect` confirmed AVX-512 F, BW, VL and VBMI2,
        // VP2INTERSECT and POPCNT on this CPU.
        unsafe { kernels::difference_u16_wide(a, b, out) };
        return true;
    }
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v3() {
        // SAFETY: `has_v3` confirmed SSSE3/SSE4.1 (implied by AVX2) and POPCNT on this CPU.
        unsafe { kernels::difference_u16(a, b, out) };
        return true;
    }
    let _ = (a, b, out);
    false
}

/// Appends `a ⊕ b` (sorted `u16` arrays) to `out` with SSE merge networks; `false` (and
/// nothing appended) if the CPU lacks the features.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn xor_u16(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) -> bool {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v3() {
        // SAFETY: `has_v3` confirmed SSSE3/SSE4.1 (implied by AVX2) and POPCNT on this CPU.
        unsafe { kernels::xor_u16(a, b, out) };
        return true;
    }
    let _ = (a, b, out);
    false
}

#[cfg(all(feature = "std", target_arch = "x86_64"))]
mod kernels {
    #[allow(unused_imports)]
    use super::super::x86_util::*;
    use super::U16;
    use core::arch::x86_64::*;

    /// Merges two sorted vectors of 8 `u16` into the 8 smallest (`lo`) and the 8 largest
    /// (`hi`), both sorted: a bitonic merge. `a` reversed against `b` gives, lane by lane,
    /// the 8 smallest (min) and the 8 largest (max) as two bitonic sequences, each sorted
    /// by three half-cleaner steps (lanes 4, 2 and 1 apart). In a merge loop `b` is the
    /// previous `hi`: the path from it to the next `hi` is one min/max and three steps of
    /// shuffle, min/max and blend (about 10 cycles, against 15 for CRoaring's seven
    /// rotate-and-min/max rounds).
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx2")]
    fn merge8(a: __m128i, b: __m128i) -> (__m128i, __m128i) {
        let reverse = _mm_setr_epi8(14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1);
        let ra = _mm_shuffle_epi8(a, reverse);
        (
            bitonic_sort8(_mm_min_epu16(ra, b)),
            bitonic_sort8(_mm_max_epu16(ra, b)),
        )
    }

    /// Sorts a bitonic vector of 8 `u16` (ascending then descending, or the reverse) in
    /// ascending order: at each step, the lanes `d` apart (4, 2, 1) are compared and the
    /// lower lane of each pair keeps the minimum.
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx2")]
    fn bitonic_sort8(v: __m128i) -> __m128i {
        let swap1 = _mm_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
        // Lanes 4 apart: swap the 64-bit halves.
        let s = _mm_shuffle_epi32::<0x4E>(v);
        let v = _mm_blend_epi16::<0xF0>(_mm_min_epu16(v, s), _mm_max_epu16(v, s));
        // Lanes 2 apart: swap the 32-bit pairs.
        let s = _mm_shuffle_epi32::<0xB1>(v);
        let v = _mm_blend_epi16::<0xCC>(_mm_min_epu16(v, s), _mm_max_epu16(v, s));
        // Neighbouring lanes.
        let s = _mm_shuffle_epi8(v, swap1);
        _mm_blend_epi16::<0xAA>(_mm_min_epu16(v, s), _mm_max_epu16(v, s))
    }

    /// The next block of 8 values for a merge: `a[i..i + 8]` if `a[i] <= b[j]` (then `i`
    /// advances by 8), else `b[j..j + 8]` (then `j` does). Both blocks are loaded and one is
    /// selected by a blend: no branch to mispredict on data that alternates at random.
    ///
    /// # Safety
    ///
    /// `i + 8 <= a.len()` and `j + 8 <= b.len()`, and the CPU supports SSE4.1.
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn next_block(a: &[U16], b: &[U16], i: &mut usize, j: &mut usize) -> __m128i {
        // SAFETY: the caller guarantees both blocks lie inside their slices.
        let (va, vb) = unsafe { (load8(a, *i), load8(b, *j)) };
        let take_a = a[*i].get() <= b[*j].get();
        *i += 8 * usize::from(take_a);
        *j += 8 * usize::from(!take_a);
        _mm_blendv_epi8(vb, va, _mm_set1_epi16(-i16::from(take_a)))
    }

    /// Writes the values of `v` that differ from their predecessor (the last lane of
    /// `prev` for the first) at `out[k..]`, which must have room for 8; returns how many.
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx2")]
    fn store_unique(prev: __m128i, v: __m128i, out: &mut [u16], k: usize) -> usize {
        let shifted = _mm_alignr_epi8::<14>(v, prev);
        store_dropping(v, lane_mask(_mm_cmpeq_epi16(shifted, v)), out, k)
    }

    /// At most 8 values, on the stack.
    #[cfg(feature = "alloc")]
    struct ShortVec {
        buf: [u16; 8],
        len: usize,
    }

    #[cfg(feature = "alloc")]
    impl FromIterator<u16> for ShortVec {
        fn from_iter<I: IntoIterator<Item = u16>>(iter: I) -> ShortVec {
            let mut v = ShortVec {
                buf: [0; 8],
                len: 0,
            };
            for (slot, x) in v.buf.iter_mut().zip(iter) {
                *slot = x;
                v.len += 1;
            }
            v
        }
    }

    #[cfg(feature = "alloc")]
    impl ShortVec {
        fn as_slice(&self) -> &[u16] {
            &self.buf[..self.len]
        }
    }

    /// Union of sorted arrays (Lemire et al.'s vectorized union, as in CRoaring): blocks of
    /// 8 are merged through [`merge8`], the smaller half stored without duplicates; the
    /// block taken next is the one whose first value is smaller. The last half-merged
    /// block and the tails are finished by a scalar merge that also drops duplicates.
    #[cfg(feature = "alloc")]
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn union_u16(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) {
        let start = out.len();
        out.resize(start + a.len() + b.len() + 16, 0);
        let dst = &mut out[start..];
        let mut k = 0usize;
        let (mut i, mut j) = (0usize, 0usize);
        let mut pending = [0u16; 8]; // the high half not yet stored
        let mut have_pending = false;
        if a.len() >= 8 && b.len() >= 8 {
            // SAFETY: both slices hold at least 8 values.
            let (va, vb) = unsafe { (load8(a, 0), load8(b, 0)) };
            i = 8;
            j = 8;
            let (lo, mut hi) = merge8(va, vb);
            k += store_unique(_mm_set1_epi16(-1), lo, dst, k);
            // A previous vector whose last lane is the last value stored.
            let mut last = lo;
            // Stop as soon as either array has no full block left (its tail, and the rest
            // of the other array, go to the scalar finish).
            while i + 8 <= a.len() && j + 8 <= b.len() {
                // SAFETY: the loop condition is `next_block`'s precondition.
                let next = unsafe { next_block(a, b, &mut i, &mut j) };
                let (lo, h) = merge8(next, hi);
                hi = h;
                // A value of `lo` can equal the last stored value only at lane 0.
                k += store_unique(last, lo, dst, k);
                last = lo;
            }
            // SAFETY: `pending` is 16 bytes; unaligned store.
            unsafe { _mm_storeu_si128(pending.as_mut_ptr().cast::<__m128i>(), hi) };
            have_pending = true;
        }
        // Scalar finish. One array has fewer than 8 values left (or both do): merge them with
        // `pending` into a short sorted list, then interleave that list with the other
        // array's rest, copying the stretches between its values in bulk.
        let pend: &[u16] = if have_pending { &pending } else { &[] };
        let (short, long) = if a.len() - i < 8 {
            (&a[i..], &b[j..])
        } else {
            (&b[j..], &a[i..])
        };
        let mut small = [0u16; 24];
        let mut n = 0;
        for &v in pend.iter().chain(
            short
                .iter()
                .map(|v| v.get())
                .collect::<ShortVec>()
                .as_slice(),
        ) {
            small[n] = v;
            n += 1;
        }
        let small = &mut small[..n];
        small.sort_unstable();
        k += merge_short_into(small, long, dst, k);
        out.truncate(start + k);
    }

    /// Loads `s[k..k + 32]` (unaligned).
    ///
    /// # Safety
    ///
    /// `k + 32 <= s.len()`, and the CPU supports AVX-512 F.
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn load32(s: &[U16], k: usize) -> __m512i {
        debug_assert!(k + 32 <= s.len());
        // SAFETY: the caller guarantees `k + 32 <= s.len()`, so the 64 bytes read lie
        // inside `s`; the load is unaligned; `U16` is two plain bytes, little-endian like
        // the CPU.
        unsafe { _mm512_loadu_si512(s.as_ptr().add(k).cast()) }
    }

    /// Sorts a bitonic vector of 32 `u16` in ascending order: lanes `d` apart (for `d` of
    /// 16, 8, 4, 2 and 1) are compared and the lower lane of each pair keeps the minimum.
    /// The pairs 2 and 1 apart are swapped by rotations (no shuffle-port permute).
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn bitonic_sort32(v: __m512i) -> __m512i {
        // Lanes whose bit `d` is set take the maximum.
        let step = |v: __m512i, s: __m512i, upper: __mmask32| {
            _mm512_mask_max_epu16(_mm512_min_epu16(v, s), upper, v, s)
        };
        let v = step(v, _mm512_shuffle_i64x2::<0x4E>(v, v), 0xFFFF_0000);
        let v = step(v, _mm512_shuffle_i64x2::<0xB1>(v, v), 0xFF00_FF00);
        let v = step(v, _mm512_shuffle_epi32::<0x4E>(v), 0xF0F0_F0F0);
        let v = step(v, _mm512_rol_epi64::<32>(v), 0xCCCC_CCCC);
        step(v, _mm512_rol_epi32::<16>(v), 0xAAAA_AAAA)
    }

    /// Merges two sorted vectors of 32 `u16`: the lowest 32 values in order, then the
    /// highest 32 (one reversed against the other makes two bitonic halves).
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn merge32(a: __m512i, b: __m512i) -> (__m512i, __m512i) {
        let reverse = _mm512_set_epi16(
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
            24, 25, 26, 27, 28, 29, 30, 31,
        );
        let ra = _mm512_permutexvar_epi16(reverse, a);
        (
            bitonic_sort32(_mm512_min_epu16(ra, b)),
            bitonic_sort32(_mm512_max_epu16(ra, b)),
        )
    }

    /// Writes the values of `v` that differ from their predecessor (the last lane of `prev`
    /// for the first) at `out[k..]`, which must have room for 32 (all 32 lanes are stored);
    /// returns how many. Without that room nothing is stored and 0 is returned (reachable
    /// only with the unsorted arrays of a corrupt payload: a wrong result, never a panic).
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,popcnt")]
    fn store_unique32(prev: __m512i, v: __m512i, out: &mut [u16], k: usize) -> usize {
        // Lane 0 takes `prev[31]` (index 63: the second operand's lane 31), lane l `v[l − 1]`.
        let by_one = _mm512_set_epi16(
            30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9,
            8, 7, 6, 5, 4, 3, 2, 1, 0, 63,
        );
        let shifted = _mm512_permutex2var_epi16(v, by_one, prev);
        let keep = !_mm512_cmpeq_epi16_mask(shifted, v);
        let Some(dst) = out.get_mut(k..k + 32) else {
            return 0;
        };
        let kept = _mm512_maskz_compress_epi16(keep, v);
        // SAFETY: `dst` is 32 `u16`, 64 bytes, exactly what is stored; unaligned store.
        unsafe { _mm512_storeu_si512(dst.as_mut_ptr().cast(), kept) };
        keep.count_ones() as usize
    }

    /// See [`super::union_u16`]: [`union_u16`] with blocks of 32 (AVX-512: 16-bit permutes
    /// and compress); once an array has fewer than 32 values left, the values set aside
    /// (up to 63) and the rest of the other go to [`union_u16`].
    #[cfg(feature = "alloc")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,avx2,popcnt")]
    pub(super) unsafe fn union_u16_wide(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) {
        let start = out.len();
        out.resize(start + a.len() + b.len() + 64, 0);
        let dst = &mut out[start..];
        let (mut i, mut j, mut k) = (0usize, 0usize, 0usize);
        // The values set aside for the finish: the high half not yet stored, then the
        // tail (fewer than 32) of the array that ran out of blocks.
        let mut small = [0u16; 64];
        let mut n = 0;
        if a.len() >= 32 && b.len() >= 32 {
            // SAFETY: both slices hold at least 32 values.
            let (lo, mut hi) = unsafe { merge32(load32(a, 0), load32(b, 0)) };
            (i, j) = (32, 32);
            k += store_unique32(_mm512_set1_epi16(-1), lo, dst, k);
            let mut last = lo;
            while i + 32 <= a.len() && j + 32 <= b.len() {
                // SAFETY: the loop condition; both blocks lie inside their slices.
                let (va, vb) = unsafe { (load32(a, i), load32(b, j)) };
                // The block whose first value is smaller; chosen by a blend, no branch.
                let take_a = a[i].get() <= b[j].get();
                i += 32 * usize::from(take_a);
                j += 32 * usize::from(!take_a);
                let next = _mm512_mask_blend_epi16(0u32.wrapping_sub(u32::from(take_a)), vb, va);
                let (lo, h) = merge32(next, hi);
                hi = h;
                // A value of `lo` can equal the last stored value only at lane 0.
                k += store_unique32(last, lo, dst, k);
                last = lo;
            }
            // SAFETY: `small` holds 64 `u16`; the 64 bytes stored fill its first 32 slots.
            unsafe { _mm512_storeu_si512(small.as_mut_ptr().cast(), hi) };
            n = 32;
        }
        let (short, long) = if a.len() - i < 32 {
            (&a[i..], &b[j..])
        } else {
            (&b[j..], &a[i..])
        };
        for (slot, v) in small[n..].iter_mut().zip(short) {
            *slot = v.get();
            n += 1;
        }
        small[..n].sort_unstable();
        // The rest is the union of the values set aside and the other array's rest, by the
        // 8-wide kernel (whose own finish then has at most 15 values set aside), which
        // takes arrays without repeated values: the values set aside are made unique, and
        // those equal to the last value stored are dropped from both.
        let last = k.checked_sub(1).map(|l| dst[l]);
        let mut m = 0;
        for x in 0..n {
            let v = small[x];
            if Some(v) != last && (m == 0 || v != small[m - 1]) {
                small[m] = v;
                m += 1;
            }
        }
        let long = match long.split_first() {
            Some((first, rest)) if Some(first.get()) == last => rest,
            _ => long,
        };
        out.truncate(start + k);
        // SAFETY: this function's features include the 8-wide kernel's (AVX2, POPCNT).
        unsafe { union_u16(crate::cast::native_as_le(&small[..m]), long, out) };
    }

    /// Copies the values of `long` from `*li` on that are below `v` to `dst` from `*k` on,
    /// advancing both: 8 at a time (a compare counts how many of the 8 are below `v`, a
    /// prefix as `long` is sorted; all 8 are stored, the extra ones overwritten later),
    /// one by one near the end of `long`. `dst[*k..]` must have room for them plus 8.
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    fn copy_below(v: u16, long: &[U16], li: &mut usize, dst: &mut [u16], k: &mut usize) {
        let flip = _mm_set1_epi16(i16::MIN);
        let needle = _mm_set1_epi16((v ^ 0x8000) as i16);
        while *li + 8 <= long.len() {
            // SAFETY: `*li + 8 <= long.len()`.
            let x = unsafe { load8(long, *li) };
            let below = lane_mask(_mm_cmpgt_epi16(needle, _mm_xor_si128(x, flip)));
            let slots = &mut dst[*k..*k + 8];
            // SAFETY: `slots` is 8 `u16`, 16 bytes, exactly what is stored; unaligned store.
            unsafe { _mm_storeu_si128(slots.as_mut_ptr().cast::<__m128i>(), x) };
            let n = below.count_ones() as usize;
            *k += n;
            *li += n;
            if n < 8 {
                return;
            }
        }
        while *li < long.len() && long[*li].get() < v {
            dst[*k] = long[*li].get();
            *k += 1;
            *li += 1;
        }
    }

    /// Writes the union of `small` (sorted, a few values, duplicates allowed) and `long`
    /// (sorted, no duplicates) at `dst[k..]`, skipping a duplicate of `dst[k − 1]` (the last
    /// value already stored, if `k > 0`; nothing stored before is above a value of either);
    /// returns how many were written. The values of `long` between small values go by
    /// [`copy_below`], the rest of `long` in one copy: no search and no `memcpy` call per
    /// small value. `dst[k..]` must have room for the union plus 8.
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    fn merge_short_into(small: &[u16], long: &[U16], dst: &mut [u16], k: usize) -> usize {
        let first = k;
        let mut k = k;
        let mut li = 0usize;
        // The first value of `long` may equal the last value stored.
        if k > 0 && long.first().is_some_and(|x| x.get() == dst[k - 1]) {
            li = 1;
        }
        for &v in small {
            copy_below(v, long, &mut li, dst, &mut k);
            if k == 0 || v > dst[k - 1] {
                dst[k] = v;
                k += 1;
            }
            if long.get(li).is_some_and(|x| x.get() == v) {
                li += 1;
            }
        }
        let rest = &long[li..];
        crate::cast::copy_u16s(&mut dst[k..k + rest.len()], rest);
        k + rest.len() - first
    }

    /// See [`super::difference_u16`] (Lemire et al., as in CRoaring): each block of 8 values
    /// of `a` is compared with the blocks of `b` that overlap it, the lanes found are
    /// accumulated, and when the block is done its other lanes are stored through the
    /// shuffle table. What is left (fewer than 8 values in one array) is merged in scalar.
    #[cfg(feature = "alloc")]
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn difference_u16(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) {
        let (a, b, zero) = without_zero(a, b);
        if zero == (true, false) {
            out.push(0);
        }
        let start = out.len();
        out.resize(start + a.len() + 8, 0);
        let dst = &mut out[start..];
        let (mut i, mut j, mut k) = (0usize, 0usize, 0usize);
        // The lanes of a block of `a` left unmatched when `b` ran out of blocks mid-way.
        let mut head = [0u16; 8];
        let mut head_len = 0;
        // The blocks of 8 each array has in full.
        let (sa, sb) = (a.len() & !7, b.len() & !7);
        if sa > 0 && sb > 0 {
            // The lanes of block `i` of `a` found so far, a bit each.
            let mut found = 0u32;
            // SAFETY: `sa` and `sb` are at least 8: both blocks lie inside their arrays.
            let (mut va, mut vb) = unsafe { (load8(a, 0), load8(b, 0)) };
            let out = dst.as_mut_ptr();
            loop {
                found |= match_nonzero_bits(va, vb);
                // SAFETY: `i < sa` and `j < sb`, multiples of 8 (the loop's invariants:
                // each advance by 8 is followed by its check against `sa` or `sb`), so
                // `i + 7 < a.len()` and `j + 7 < b.len()`. Unchecked: the bounds checks
                // and their branches made this loop 20 % slower (census-income's pairs
                // of arrays, `andnot`, `examples/kind_pairs`).
                let (amax, bmax) = unsafe { (a.get_unchecked(i + 7), b.get_unchecked(j + 7)) };
                let (amax, bmax) = (amax.get(), bmax.get());
                // When no later block of `b` can match this block of `a` (`amax <= bmax`),
                // what it keeps is final: stored, counted, and `found` starts over. The
                // blocks advance by branches (as in CRoaring): predicted, the next loads
                // start before this turn's comparison is known.
                if amax <= bmax {
                    let drop = (found & 0xFF) as usize;
                    // SAFETY: the table row is 16 bytes; unaligned load.
                    let key = unsafe { _mm_loadu_si128(UNIQUE_SHUFFLE[drop].as_ptr().cast()) };
                    // SAFETY: `k <= i` (each block of 8 read keeps at most 8) and
                    // `i + 8 <= a.len()`, while `dst` holds `a.len() + 8` slots: the 16
                    // bytes stored from `k` lie inside it; unaligned store.
                    unsafe { _mm_storeu_si128(out.add(k).cast(), _mm_shuffle_epi8(va, key)) };
                    k += 8 - drop.count_ones() as usize;
                    i += 8;
                    if i == sa {
                        break;
                    }
                    found = 0;
                    // SAFETY: `i < sa`, a multiple of 8: the block lies inside `a`.
                    va = unsafe { load8(a, i) };
                }
                if bmax <= amax {
                    j += 8;
                    if j == sb {
                        // Block `i` is under way: its unmatched lanes go to the finish.
                        // (`i < sa` always holds here, the loop having broken at
                        // `i == sa`; with the check written out this build's loop ran
                        // 7 % faster, in `examples/kind_pairs`: kept for that.)
                        if i < sa {
                            head_len = store_dropping(va, found as usize, &mut head, 0);
                            i += 8;
                        }
                        break;
                    }
                    // SAFETY: `j < sb`, a multiple of 8: the block lies inside `b`.
                    vb = unsafe { load8(b, j) };
                }
            }
        }
        for &v in &head[..head_len] {
            while j < b.len() && b[j].get() < v {
                j += 1;
            }
            if j == b.len() || b[j].get() != v {
                dst[k] = v;
                k += 1;
            }
        }
        while i < a.len() && j < b.len() {
            let (x, y) = (a[i].get(), b[j].get());
            dst[k] = x;
            k += usize::from(x < y);
            i += usize::from(x <= y);
            j += usize::from(y <= x);
        }
        for (d, v) in dst[k..].iter_mut().zip(&a[i..]) {
            *d = v.get();
        }
        k += a.len() - i;
        out.truncate(start + k);
    }

    /// [`difference_u16`] by [`blocks16`]: the lanes of a block of `a` found in the
    /// blocks of `b` that overlap it are gathered, and when the block is done its other
    /// lanes are compressed to the front and stored whole; where `b` runs out, the rest of
    /// `a` is copied.
    #[cfg(feature = "alloc")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512vp2intersect,popcnt")]
    pub(super) unsafe fn difference_u16_wide(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) {
        let start = out.len();
        out.resize(start + a.len() + 16, 0);
        let dst = &mut out[start..];
        let mut k = 0;
        // The lanes of the current block of `a` found so far, a bit each.
        let mut found_so_far = 0u16;
        // Each block of 16 keeps at most 16, so `k` is at most the values of `a` before
        // the block stored, and the 16 slots from `k` lie inside `dst`.
        let mut keep = |va: __m256i, kept: u16, dst: &mut [u16]| {
            if let Some(slot) = dst.get_mut(k..k + 16) {
                let v = _mm256_maskz_compress_epi16(kept, va);
                // SAFETY: `slot` is 16 `u16`, 32 bytes, exactly what is stored; unaligned.
                unsafe { _mm256_storeu_si256(slot.as_mut_ptr().cast::<__m256i>(), v) };
                k += kept.count_ones() as usize;
            }
        };
        let i = blocks16(a, b, |va, valid, found, done| {
            found_so_far |= found;
            if done {
                keep(va, valid & !found_so_far, dst);
                found_so_far = 0;
            }
        });
        if let Some(rest) = a.get(i..).filter(|r| !r.is_empty()) {
            // `b` ran out under block `i`: its lanes not found yet, then the rest of `a`.
            let (head, tail) = rest.split_at(rest.len().min(16));
            let valid = mask_below(head.len()) as u16;
            // SAFETY: `head` holds `head.len()` values, the lanes under `valid`; a masked
            // load does not touch the others; unaligned; `U16` is two plain bytes.
            let va = unsafe { _mm256_maskz_loadu_epi16(valid, head.as_ptr().cast()) };
            keep(va, valid & !found_so_far, dst);
            if let Some(slots) = dst.get_mut(k..k + tail.len()) {
                crate::cast::copy_u16s(slots, tail);
                k += tail.len();
            }
        }
        out.truncate(start + k);
    }

    /// Stores the lanes of `[old[7], new[0..7]]` that differ from both neighbours in the
    /// merged stream (`old[6]` on the left of the first, `new[7]` on the right of the last)
    /// at `out[k..]`, which must have room for 8; returns how many. In a merge of two
    /// duplicate-free arrays equal values are neighbours, so this drops both of each pair.
    #[cfg(feature = "alloc")]
    #[inline]
    #[target_feature(enable = "avx2")]
    fn store_unique_xor(old: __m128i, new: __m128i, out: &mut [u16], k: usize) -> usize {
        let left = _mm_alignr_epi8::<12>(new, old);
        let v = _mm_alignr_epi8::<14>(new, old);
        let pair = _mm_or_si128(_mm_cmpeq_epi16(v, left), _mm_cmpeq_epi16(v, new));
        store_dropping(v, lane_mask(pair), out, k)
    }

    /// See [`super::xor_u16`] (as CRoaring's `xor_vector16`): the merge network of
    /// [`union_u16`], storing each value one lane late so that it can be compared with
    /// both neighbours ([`store_unique_xor`]). The values not yet stored, with the tail of
    /// the array that ran out of blocks, are sorted in a small buffer, pairs removed, and
    /// interleaved with the other array's rest.
    #[cfg(feature = "alloc")]
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn xor_u16(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) {
        let start = out.len();
        out.resize(start + a.len() + b.len() + 16, 0);
        let dst = &mut out[start..];
        let (mut i, mut j, mut k) = (0usize, 0usize, 0usize);
        // Values not stored yet: at most 9 from the network, then fewer than 8 of a tail.
        let mut small = [0u16; 24];
        let mut n = 0;
        if a.len() >= 8 && b.len() >= 8 {
            // SAFETY: both slices hold at least 8 values.
            let (lo, mut hi) = unsafe { merge8(load8(a, 0), load8(b, 0)) };
            (i, j) = (8, 8);
            // The first lane stored is `old[7]` = 0xFFFF, dropped as equal to `old[6]`.
            k += store_unique_xor(_mm_set1_epi16(-1), lo, dst, k);
            let mut last = lo;
            while i + 8 <= a.len() && j + 8 <= b.len() {
                // SAFETY: the loop condition is `next_block`'s precondition.
                let next = unsafe { next_block(a, b, &mut i, &mut j) };
                let (lo, h) = merge8(next, hi);
                hi = h;
                k += store_unique_xor(last, lo, dst, k);
                last = lo;
            }
            // `last[7]` and `hi[0..7]`, then `hi[7]` unless it pairs with `hi[6]` (a value
            // of a tail may still pair with any of them: the buffer is sorted below).
            n = store_unique_xor(last, hi, &mut small, 0);
            let (h6, h7) = (
                _mm_extract_epi16::<6>(hi) as u16,
                _mm_extract_epi16::<7>(hi) as u16,
            );
            if h6 != h7 {
                small[n] = h7;
                n += 1;
            }
        }
        let (short, long) = if a.len() - i < 8 {
            (&a[i..], &b[j..])
        } else {
            (&b[j..], &a[i..])
        };
        for v in short {
            small[n] = v.get();
            n += 1;
        }
        small[..n].sort_unstable();
        // Drop the pairs (a value of the network equal to one of the tail).
        let (mut p, mut m) = (0, 0);
        while p < n {
            if p + 1 < n && small[p] == small[p + 1] {
                p += 2;
            } else {
                small[m] = small[p];
                m += 1;
                p += 1;
            }
        }
        // Each remaining value of the network or the tail either cancels the equal value
        // of `long` or goes between its values (see `copy_below`).
        let mut li = 0usize;
        for &v in &small[..m] {
            copy_below(v, long, &mut li, dst, &mut k);
            if long.get(li).is_some_and(|x| x.get() == v) {
                li += 1;
            } else {
                dst[k] = v;
                k += 1;
            }
        }
        let rest = &long[li..];
        crate::cast::copy_u16s(&mut dst[k..k + rest.len()], rest);
        k += rest.len();
        out.truncate(start + k);
    }
}
