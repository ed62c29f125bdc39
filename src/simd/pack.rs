//! Bitsets to positions: the set bits or run boundaries of a bitset packed into a sorted
//! `u16` list (AVX-512 VBMI2 compress), with its statistics, and their x86 kernels.

#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[allow(unused_imports)]
use super::x86;
#[allow(unused_imports)]
use crate::cast::U16;

/// The values of a bitset (its 8,192 little-endian bytes), written into `dst` as
/// [`bitset_positions`] does; `None` without AVX-512.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn bitset_values(bytes: &[u8], dst: &mut [U16]) -> Option<usize> {
    bitset_positions::<false>(bytes, dst)
}

/// The run boundaries of a bitset (its 8,192 little-endian bytes: the set bits of
/// `w ^ (w << 1 | carry)`), written into `dst` as [`bitset_positions`] does; `None`
/// without AVX-512.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn bitset_boundaries(bytes: &[u8], dst: &mut [U16]) -> Option<usize> {
    bitset_positions::<true>(bytes, dst)
}

/// Writes the positions of the set bits of a bitset (its 8,192 little-endian bytes) or,
/// with `BOUNDARIES`, of its run boundaries (the set bits of `w ^ (w << 1 | carry)`,
/// `carry` the previous word's top bit) into `dst`, in increasing order, with AVX-512:
/// the words with a bit are first packed with their indices, 8 words per step, then
/// each one's positions are compressed out of a vector of all 64 and stored at once, with
/// no branch per word or per bit. Returns how many were written, stopping early where
/// `dst` has fewer than 64 slots past them (as the encoder's `flatten` does), or
/// `None` if the CPU lacks the features or `bytes` is not 8,192 long.
#[cfg(feature = "alloc")]
#[inline]
fn bitset_positions<const BOUNDARIES: bool>(bytes: &[u8], dst: &mut [U16]) -> Option<usize> {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v4() {
        let bytes: &[u8; crate::cast::BITSET_BYTES] = bytes.try_into().ok()?;
        // SAFETY: `has_v4` confirmed AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ and POPCNT.
        return Some(unsafe { kernels::bitset_positions::<BOUNDARIES>(bytes, dst) });
    }
    let _ = (bytes, dst);
    None
}

/// Slots of [`Packed`]'s buffers: one per word, and 8 of slack for the last step's
/// stores.
#[cfg(feature = "alloc")]
const PACKED_SLOTS: usize = crate::cast::BITSET_WORDS + 8;

/// A bitset's run boundaries, packed by [`bitset_stats_packed`] for
/// [`packed_positions`]: the words that hold one, each with its first position. Plain
/// integers (always initialized); 12 KiB, kept in a reused scratch.
#[cfg(feature = "alloc")]
// Read only by the AVX-512 kernels, which need `std` (for the feature detection).
#[cfg_attr(not(all(feature = "std", target_arch = "x86_64")), allow(dead_code))]
pub(crate) struct Packed {
    words: [u64; PACKED_SLOTS],
    firsts: [u32; PACKED_SLOTS],
    /// How many words are packed.
    n: usize,
}

#[cfg(feature = "alloc")]
impl Packed {
    /// Nothing packed.
    pub(crate) fn new() -> alloc::boxed::Box<Packed> {
        alloc::boxed::Box::new(Packed {
            words: [0; PACKED_SLOTS],
            firsts: [0; PACKED_SLOTS],
            n: 0,
        })
    }
}

/// The set bits of a bitset (its 8,192 little-endian bytes) and its maximal runs of set
/// bits, counted in one pass with AVX-512, which also packs the words holding run
/// boundaries into `packed`, for [`packed_positions`] to write them out. `None` (and
/// `packed` untouched) if the CPU lacks the features or `bytes` is not 8,192 long.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn bitset_stats_packed(bytes: &[u8], packed: &mut Packed) -> Option<(u32, u32)> {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v4() {
        let bytes: &[u8; crate::cast::BITSET_BYTES] = bytes.try_into().ok()?;
        // SAFETY: `has_v4` confirmed AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ and POPCNT.
        return Some(unsafe { kernels::bitset_stats_packed(bytes, packed) });
    }
    let _ = (bytes, packed);
    None
}

/// The maximal runs of set bits of a bitset (its 8,192 little-endian bytes), counted with
/// AVX-512 as far as `cap` needs, packing their boundaries into `packed` as
/// [`bitset_stats_packed`] does: `Some(runs)` with `packed` ready for
/// [`packed_positions`] if `runs <= cap`; else `Some` of a count above `cap` (the runs of a
/// prefix), `packed` not to be read. `None` if the CPU lacks the features or `bytes` is
/// not 8,192 long. For a result bitset whose canonical kind is not known yet: a run
/// container's boundaries come packed from the pass that finds it is one.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn bitset_runs_packed_capped(
    bytes: &[u8],
    cap: u32,
    packed: &mut Packed,
) -> Option<u32> {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v4() {
        let bytes: &[u8; crate::cast::BITSET_BYTES] = bytes.try_into().ok()?;
        // SAFETY: `has_v4` confirmed AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ and POPCNT.
        return Some(unsafe { kernels::bitset_runs_packed_capped(bytes, cap, packed) });
    }
    let _ = (bytes, cap, packed);
    None
}

/// [`bitset_runs_packed_capped`] that counts the set bits too, from the same loads:
/// `Some((Some(card), runs))` with `packed` ready if `runs <= cap`; else `Some((None,
/// runs))` with a count above `cap`, the bits not all counted and `packed` not to be read.
/// `None` if the CPU lacks the features or `bytes` is not 8,192 long. For a result whose
/// cardinality is not known yet (the many-way union): one pass where a count and then
/// the capped packing took two.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn bitset_stats_packed_capped(
    bytes: &[u8],
    cap: u32,
    packed: &mut Packed,
) -> Option<(Option<u32>, u32)> {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v4() {
        let bytes: &[u8; crate::cast::BITSET_BYTES] = bytes.try_into().ok()?;
        // SAFETY: `has_v4` confirmed AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ and POPCNT.
        return Some(unsafe { kernels::bitset_stats_packed_capped(bytes, cap, packed) });
    }
    let _ = (bytes, cap, packed);
    None
}

/// Writes the run boundaries that [`bitset_stats_packed`] packed, in increasing order,
/// into `dst` (as [`bitset_positions`] with `BOUNDARIES` would from the bitset); returns
/// how many, or `None` if the CPU lacks the features.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn packed_positions(packed: &Packed, dst: &mut [U16]) -> Option<usize> {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if x86::has_v4() {
        // SAFETY: `has_v4` confirmed AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ and POPCNT.
        return Some(unsafe { kernels::packed_positions(packed, dst) });
    }
    let _ = (packed, dst);
    None
}

#[cfg(all(feature = "std", target_arch = "x86_64"))]
mod kernels {
    #[allow(unused_imports)]
    use super::super::x86_util::*;
    use super::U16;
    use core::arch::x86_64::*;

    /// See [`super::bitset_positions`]: [`pack`] into buffers on the stack, then
    /// [`unpack_grouped`].
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ, and POPCNT.
    // Not inlined: its 12 KiB of packed words and indices would otherwise enlarge (and
    // probe) the stack frame of every call of its callers (`emit`), whichever path they
    // take: census1881 `and`, with small array results, ran 1.7 times slower.
    #[inline(never)]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512vpopcntdq,popcnt")]
    pub(super) unsafe fn bitset_positions<const BOUNDARIES: bool>(
        bytes: &[u8; crate::cast::BITSET_BYTES],
        dst: &mut [U16],
    ) -> usize {
        use core::mem::MaybeUninit;
        let mut words = MaybeUninit::<[u64; super::PACKED_SLOTS]>::uninit();
        let mut firsts = MaybeUninit::<[u32; super::PACKED_SLOTS]>::uninit();
        let (wp, ip) = (
            words.as_mut_ptr().cast::<u64>(),
            firsts.as_mut_ptr().cast::<u32>(),
        );
        // SAFETY: both buffers have `PACKED_SLOTS` slots (uninitialized memory may be
        // written); the CPU has the features (the caller's guarantee).
        let (n, _, _) = unsafe { pack::<BOUNDARIES, false>(bytes, wp, ip) };
        // SAFETY: `pack` wrote slots `..n` of both buffers.
        unsafe { unpack_grouped(wp, ip, n, dst) }
    }

    /// See [`super::bitset_stats_packed`].
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ, and POPCNT.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512vpopcntdq,popcnt")]
    pub(super) unsafe fn bitset_stats_packed(
        bytes: &[u8; crate::cast::BITSET_BYTES],
        packed: &mut super::Packed,
    ) -> (u32, u32) {
        let (wp, ip) = (packed.words.as_mut_ptr(), packed.firsts.as_mut_ptr());
        // SAFETY: both arrays have `PACKED_SLOTS` slots; the CPU has the features.
        let (n, card, boundaries) = unsafe { pack::<true, true>(bytes, wp, ip) };
        packed.n = n;
        // Two boundaries a run, but one for a run that reaches bit 65535 (its end would
        // be boundary 65536, past the words).
        let boundaries = boundaries + u32::from(bytes[crate::cast::BITSET_BYTES - 1] >> 7);
        (card, boundaries / 2)
    }

    /// See [`super::bitset_runs_packed_capped`].
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ, and POPCNT.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512vpopcntdq,popcnt")]
    pub(super) unsafe fn bitset_runs_packed_capped(
        bytes: &[u8; crate::cast::BITSET_BYTES],
        cap: u32,
        packed: &mut super::Packed,
    ) -> u32 {
        // SAFETY: the caller's guarantee.
        unsafe { packed_capped::<false>(bytes, cap, packed) }.1
    }

    /// See [`super::bitset_stats_packed_capped`].
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ, and POPCNT.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512vpopcntdq,popcnt")]
    pub(super) unsafe fn bitset_stats_packed_capped(
        bytes: &[u8; crate::cast::BITSET_BYTES],
        cap: u32,
        packed: &mut super::Packed,
    ) -> (Option<u32>, u32) {
        // SAFETY: the caller's guarantee.
        unsafe { packed_capped::<true>(bytes, cap, packed) }
    }

    /// The runs of a bitset counted as far as `cap` needs, their boundaries packed into
    /// `packed` if there are at most `cap` (else `packed` is emptied and the count is
    /// `cap + 1`), and with `STATS` its set bits counted in the same pass (`None` when
    /// the pass stopped early; `Some(0)` without `STATS`).
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ, and POPCNT.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512vpopcntdq,popcnt")]
    unsafe fn packed_capped<const STATS: bool>(
        bytes: &[u8; crate::cast::BITSET_BYTES],
        cap: u32,
        packed: &mut super::Packed,
    ) -> (Option<u32>, u32) {
        let (wp, ip) = (packed.words.as_mut_ptr(), packed.firsts.as_mut_ptr());
        // Boundaries above `2 cap` mean more than `cap` runs, whatever follows.
        let limit = cap.saturating_mul(2);
        // SAFETY: both arrays have `PACKED_SLOTS` slots; the CPU has the features.
        let (n, card, boundaries) =
            unsafe { pack_capped::<true, STATS, true>(bytes, wp, ip, limit) };
        if boundaries > limit {
            packed.n = 0;
            return (None, cap.saturating_add(1));
        }
        packed.n = n;
        // As in `bitset_stats_packed`: the end of a run reaching bit 65535 is not packed.
        let boundaries = boundaries + u32::from(bytes[crate::cast::BITSET_BYTES - 1] >> 7);
        (Some(card), boundaries / 2)
    }

    /// See [`super::packed_positions`].
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F, BW, VL and VBMI2, and POPCNT.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512vpopcntdq,popcnt")]
    pub(super) unsafe fn packed_positions(packed: &super::Packed, dst: &mut [U16]) -> usize {
        let n = packed.n.min(crate::cast::BITSET_WORDS);
        // SAFETY: every slot of both arrays is initialized (they are plain integers), and
        // `n` is at most the number of words; the CPU has the features.
        unsafe { unpack_grouped(packed.words.as_ptr(), packed.firsts.as_ptr(), n, dst) }
    }

    /// Packs the words of a bitset that hold a set bit (or, with `BOUNDARIES`, a run
    /// boundary: a set bit of `w ^ (w << 1 | carry)`, `carry` the previous word's top bit)
    /// into `wp`, with each one's first position (64 times its index, twice: in both
    /// halves of a 32-bit slot) into `ip`, 8 words per step. With `STATS`, also counts the
    /// set bits and the set bits of the packed words, from the same loads. Returns how
    /// many words were packed and the two counts (0 without `STATS`).
    ///
    /// # Safety
    ///
    /// `wp` and `ip` are valid for writes of `PACKED_SLOTS` slots (each step stores 8
    /// lanes, of which the first `popcount(mask)` count: 8 slots of slack); the CPU
    /// supports AVX-512 F, BW, VL, VBMI2 and VPOPCNTDQ.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512vpopcntdq,popcnt")]
    unsafe fn pack<const BOUNDARIES: bool, const STATS: bool>(
        bytes: &[u8; crate::cast::BITSET_BYTES],
        wp: *mut u64,
        ip: *mut u32,
    ) -> (usize, u32, u32) {
        // SAFETY: the caller's guarantees.
        unsafe { pack_capped::<BOUNDARIES, STATS, false>(bytes, wp, ip, u32::MAX) }
    }

    /// [`pack`], which with `CAPPED` counts the packed words' set bits (as with `STATS`)
    /// and stops, returning their count so far and the packing unfinished, once they
    /// exceed `limit` (checked every 64 words).
    ///
    /// # Safety
    ///
    /// As for [`pack`].
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512vpopcntdq,popcnt")]
    unsafe fn pack_capped<const BOUNDARIES: bool, const STATS: bool, const CAPPED: bool>(
        bytes: &[u8; crate::cast::BITSET_BYTES],
        wp: *mut u64,
        ip: *mut u32,
        limit: u32,
    ) -> (usize, u32, u32) {
        const WORDS: usize = crate::cast::BITSET_WORDS;
        // Each word's first position is kept twice in a 32-bit slot, so that `unpack`
        // broadcasts it straight from memory (a load, where a 16-bit broadcast would take
        // the shuffle port that the compress also needs).
        let lanes = _mm256_mullo_epi32(
            _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0),
            _mm256_set1_epi32(64 * 0x1_0001),
        );
        let mut last = _mm512_setzero_si512();
        let (mut ones, mut marks) = (_mm512_setzero_si512(), _mm512_setzero_si512());
        let mut n = 0;
        for c in 0..WORDS / 8 {
            // SAFETY: bytes `64 c .. 64 c + 64` lie inside the 8,192; unaligned load.
            let w = unsafe { _mm512_loadu_si512(bytes.as_ptr().add(64 * c).cast()) };
            let t = if BOUNDARIES {
                // Lane j's previous word: lane j − 1, or the last step's lane 7.
                let prev = _mm512_alignr_epi64::<7>(w, last);
                last = w;
                let shifted =
                    _mm512_or_si512(_mm512_slli_epi64::<1>(w), _mm512_srli_epi64::<63>(prev));
                _mm512_xor_si512(w, shifted)
            } else {
                w
            };
            if STATS {
                ones = _mm512_add_epi64(ones, _mm512_popcnt_epi64(w));
            }
            if STATS || CAPPED {
                marks = _mm512_add_epi64(marks, _mm512_popcnt_epi64(t));
            }
            let m = _mm512_test_epi64_mask(t, t);
            let ids = _mm256_add_epi32(lanes, _mm256_set1_epi32((512 * c * 0x1_0001) as i32));
            // SAFETY: `n <= 8 c`, so the 8 lanes stored from `n` end within
            // `PACKED_SLOTS = WORDS + 8` slots of each buffer (the caller's guarantee);
            // unaligned stores.
            unsafe {
                _mm512_storeu_si512(wp.add(n).cast(), _mm512_maskz_compress_epi64(m, t));
                _mm256_storeu_si256(ip.add(n).cast(), _mm256_maskz_compress_epi32(m, ids));
            }
            n += m.count_ones() as usize;
            if CAPPED && c % 8 == 7 {
                let so_far = _mm512_reduce_add_epi64(marks) as u32; // at most 65,536
                if so_far > limit {
                    return (n, 0, so_far);
                }
            }
        }
        // At most 65,536 each: they fit.
        let count = |v: __m512i| _mm512_reduce_add_epi64(v) as u32;
        (n, count(ones), count(marks))
    }

    /// Writes the positions of the set bits of the `n` packed words `wp` (first positions
    /// in `ip`, as [`pack`] leaves them) into `dst`: each word's positions are compressed
    /// out of a vector of all 64 and stored at once, with no branch per bit. Returns how
    /// many were written, stopping early where `dst` has fewer than 64 slots past them.
    ///
    /// # Safety
    ///
    /// Slots `..n` of `wp` and `ip` are readable and initialized; the CPU supports
    /// AVX-512 F, BW, VL and VBMI2, and POPCNT.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512vpopcntdq,popcnt")]
    unsafe fn unpack(wp: *const u64, ip: *const u32, n: usize, dst: &mut [U16]) -> usize {
        // Byte lane j holds j, the position of bit j within a word.
        let iota = _mm512_set_epi8(
            63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42,
            41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20,
            19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
        );
        let mut k = 0;
        for j in 0..n {
            // SAFETY: slots `..n` of both buffers are initialized (the caller's guarantee).
            let (t, i) = unsafe { (_load_mask64(wp.add(j)), ip.add(j).read()) };
            if dst.len() < k + 64 {
                break; // more bits than room: the caller's count was wrong
            }
            // Counted from a load of its own (volatile, so that it is not merged with the
            // mask's): the mask then goes from memory straight into a mask register, and
            // neither takes the shuffle port, which the compress and the widening need.
            // SAFETY: as above.
            let count = unsafe { wp.add(j).read_volatile() }.count_ones() as usize;
            // The positions as bytes first; then widened to 16 bits and offset by the
            // word's first position (in both halves of `i`; it fits in 16 bits as the
            // word's index is below 1024).
            let positions = _mm512_maskz_compress_epi8(t, iota);
            let base = _mm512_set1_epi32(i as i32);
            let low = _mm512_castsi512_si256(positions);
            let first = _mm512_add_epi16(_mm512_cvtepu8_epi16(low), base);
            let p = dst.as_mut_ptr();
            // SAFETY: `k + 64 <= dst.len()`; the first store writes 32 lanes from `k`, the
            // second 32 from `k + 32`: both inside `dst`. `U16` is two plain bytes,
            // little-endian like the CPU; the stores are unaligned ones.
            unsafe {
                _mm512_storeu_si512(p.add(k).cast(), first);
                if count > 32 {
                    let high = _mm512_extracti64x4_epi64::<1>(positions);
                    let second = _mm512_add_epi16(_mm512_cvtepu8_epi16(high), base);
                    _mm512_storeu_si512(p.add(k + 32).cast(), second);
                }
            }
            k += count;
        }
        k
    }

    /// [`unpack`] for sparse words, 8 at a time: the positions of up to 8 set bits of each
    /// word are found in vectors over the 8 words (one count of trailing zeros per bit
    /// rank) and compressed out in two steps, where [`unpack`] takes one compress per word.
    /// A group with a word of more than 8 set bits, and the last `n % 8` words, go through
    /// [`unpack`]. Same contract as [`unpack`].
    ///
    /// # Safety
    ///
    /// As for [`unpack`].
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512vpopcntdq,popcnt")]
    unsafe fn unpack_grouped(wp: *const u64, ip: *const u32, n: usize, dst: &mut [U16]) -> usize {
        let eight = _mm512_set1_epi64(8);
        let ones = _mm512_set1_epi64(1);
        // Words 0–3's lanes (their low and high four ranks), then words 4–7's.
        let first_half = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
        let second_half = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
        let limit = _mm512_set1_epi16(64);
        let mut k = 0;
        let mut j = 0;
        while j + 8 <= n {
            if dst.len() < k + 64 {
                return k; // more bits than room: the caller's count was wrong
            }
            // SAFETY: slots `j..j + 8 <= n` of both buffers are initialized (the caller's
            // guarantee); unaligned loads.
            let (words, firsts) = unsafe {
                (
                    _mm512_loadu_si512(wp.add(j).cast()),
                    _mm256_loadu_si256(ip.add(j).cast()),
                )
            };
            if _mm512_cmpgt_epu64_mask(_mm512_popcnt_epi64(words), eight) != 0 {
                // SAFETY: as above; `k <= dst.len()`.
                k += unsafe { unpack(wp.add(j), ip.add(j), 8, &mut dst[k..]) };
                j += 8;
                continue;
            }
            // Rank r's position in each word: the trailing zeros of what is left after
            // clearing the lower r set bits (64 once none is left), packed as 16-bit lanes:
            // ranks 0–3 in `low`, 4–7 in `high`, rank r in lane r % 4 of the word's u64.
            let mut w = words;
            let (mut low, mut high) = (_mm512_setzero_si512(), _mm512_setzero_si512());
            for r in 0..8 {
                let below = _mm512_sub_epi64(w, ones);
                let tz = _mm512_popcnt_epi64(_mm512_andnot_si512(w, below));
                w = _mm512_and_si512(w, below);
                let shifted = _mm512_sllv_epi64(tz, _mm512_set1_epi64(16 * (r % 4)));
                if r < 4 {
                    low = _mm512_or_si512(low, shifted);
                } else {
                    high = _mm512_or_si512(high, shifted);
                }
            }
            // Each word's first position, in all four 16-bit lanes of its u64.
            let base = _mm512_cvtepu32_epi64(firsts);
            let base = _mm512_or_si512(base, _mm512_slli_epi64::<32>(base));
            let p = dst.as_mut_ptr();
            for idx in [first_half, second_half] {
                let v = _mm512_permutex2var_epi64(low, idx, high);
                let keep = _mm512_cmplt_epu16_mask(v, limit);
                // Lane m holds word `idx[m] % 8` (the permute reads the low 3 bits).
                let b = _mm512_permutexvar_epi64(idx, base);
                let out = _mm512_maskz_compress_epi16(keep, _mm512_add_epi16(v, b));
                // SAFETY: `k + 64 <= dst.len()` before the first half, which adds at most
                // 32: each store of 32 lanes from `k` stays inside `dst`; unaligned.
                unsafe { _mm512_storeu_si512(p.add(k).cast(), out) };
                k += keep.count_ones() as usize;
            }
            j += 8;
        }
        if j < n {
            // SAFETY: slots `j..n` are initialized; `k <= dst.len()`.
            k += unsafe { unpack(wp.add(j), ip.add(j), n - j, &mut dst[k..]) };
        }
        k
    }
}
