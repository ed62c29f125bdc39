//! Helpers shared by the x86 array kernels (`arrays`, `merge`): loads, lane masks and
//! the shuffle table that stores a vector without chosen lanes.

use crate::cast::U16;
use core::arch::x86_64::*;

/// Loads `s[k..k + 8]` (unaligned).
///
/// # Safety
///
/// `k + 8 <= s.len()`, and the CPU supports SSE2 (every x86-64 CPU does).
#[inline(always)]
pub(super) unsafe fn load8(s: &[U16], k: usize) -> __m128i {
    debug_assert!(k + 8 <= s.len());
    // SAFETY: the caller guarantees `k + 8 <= s.len()`, so the 16 bytes read lie inside
    // `s`; `_mm_loadu_si128` has no alignment requirement; `U16` is two plain bytes,
    // little-endian like the CPU.
    unsafe { _mm_loadu_si128(s.as_ptr().add(k).cast::<__m128i>()) }
}

/// The mask of the lanes below `count` (at most 32).
#[inline(always)]
pub(super) fn mask_below(count: usize) -> u32 {
    u32::MAX.checked_shr(32 - count as u32).unwrap_or(0)
}

/// Shuffle masks that move the lanes of a vector of 8 `u16` whose bit in the index is
/// clear to the front (in order): `UNIQUE_SHUFFLE[m]` drops the lanes flagged in `m`.
#[cfg(feature = "alloc")]
pub(super) static UNIQUE_SHUFFLE: [[u8; 16]; 256] = {
    let mut t = [[0x80u8; 16]; 256];
    let mut m = 0;
    while m < 256 {
        let (mut lane, mut k) = (0, 0);
        while lane < 8 {
            if (m >> lane) & 1 == 0 {
                t[m][2 * k] = 2 * lane as u8;
                t[m][2 * k + 1] = 2 * lane as u8 + 1;
                k += 1;
            }
            lane += 1;
        }
        m += 1;
    }
    t
};

/// Writes the lanes of `v` whose bit in `drop` is clear, in order, at `out[k..]`, which
/// must have room for 8 (all 8 lanes are stored; those past the kept ones are scratch);
/// returns how many were kept. Without that room nothing is stored and 0 is returned:
/// the callers' bounds hold for sorted arrays, and arrays of a corrupt payload (which
/// checked views allow) then give a wrong result, never a panic.
#[cfg(feature = "alloc")]
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn store_dropping(v: __m128i, drop: usize, out: &mut [u16], k: usize) -> usize {
    let shuffle = &UNIQUE_SHUFFLE[drop & 0xFF];
    // SAFETY: the table row is 16 bytes; unaligned load.
    let key = unsafe { _mm_loadu_si128(shuffle.as_ptr().cast::<__m128i>()) };
    let Some(dst) = out.get_mut(k..k + 8) else {
        return 0;
    };
    // SAFETY: `dst` is 8 `u16`, 16 bytes, exactly what is stored; unaligned store.
    unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast::<__m128i>(), _mm_shuffle_epi8(v, key)) };
    8 - (drop & 0xFF).count_ones() as usize
}

/// The 8-bit mask (bit `l` for lane `l`) of the all-ones lanes of `m`.
#[cfg(feature = "alloc")]
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn lane_mask(m: __m128i) -> usize {
    _mm_movemask_epi8(_mm_packs_epi16(m, _mm_setzero_si128())) as usize & 0xFF
}

/// `a` and `b` without a first value 0, and whether each had one. A value 0, possible
/// only first in a sorted array, is settled by the caller, so that block compares can
/// take 0 for the end of a block ([`match_nonzero_bits`]).
#[inline(always)]
pub(super) fn without_zero<'a, 'b>(
    a: &'a [U16],
    b: &'b [U16],
) -> (&'a [U16], &'b [U16], (bool, bool)) {
    fn strip(s: &[U16]) -> (&[U16], bool) {
        match s.split_first() {
            Some((v, rest)) if v.get() == 0 => (rest, true),
            _ => (s, false),
        }
    }
    let ((a, za), (b, zb)) = (strip(a), strip(b));
    (a, b, (za, zb))
}

/// A bit (bits 0–7) for each lane of `va` equal to some lane of `vb` (all 8×8 pairs of
/// 16-bit lanes), for blocks whose lanes are all non-zero (sorted arrays past a first
/// value 0, see [`without_zero`]): one SSE4.2 implicit-length string compare, which takes
/// a 0 lane for the end of the block, as CRoaring's `difference_vector16` does. The
/// explicit-length compare, which allows 0, has three times the micro-operations
/// (census-income `andnot`: 10 % slower with it). A 0 lane after the first, only in a
/// corrupt array, hides the lanes after it: a wrong answer, nothing worse. As bits
/// straight from the compare, not a lane mask packed into bits.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn match_nonzero_bits(va: __m128i, vb: __m128i) -> u32 {
    let m = _mm_cmpistrm::<{ _SIDD_UWORD_OPS | _SIDD_CMP_EQUAL_ANY | _SIDD_BIT_MASK }>(vb, va);
    _mm_cvtsi128_si32(m) as u32
}

/// Block intersection (Schlegel, Willhalm, Lehner; Lemire et al.): compares 8 values of
/// `a` with 8 values of `b`, calls `on_block(va, found)` with the block of `a` and the
/// all-ones lanes of it found in the block of `b`, and advances the block with the
/// smaller maximum (both if equal), until `on_block` returns `false`. Returns where a
/// scalar merge must take over (both ends, when `on_block` stopped it). A value
/// of `a` matches at most one value of `b`, and later blocks of `b` hold larger values,
/// so the blocks of `a` come in ascending order and each match is reported once.
#[inline]
#[target_feature(enable = "avx2,popcnt")]
pub(super) fn blocks(
    a: &[U16],
    b: &[U16],
    mut on_block: impl FnMut(__m128i, u32) -> bool,
) -> (usize, usize) {
    let (mut i, mut j) = (0usize, 0usize);
    if a.len() < 8 || b.len() < 8 {
        return (i, j);
    }
    // SAFETY: `i + 8 <= a.len()` and `j + 8 <= b.len()`: checked above, and before
    // each later load.
    let (mut va, mut vb) = unsafe { (load8(a, i), load8(b, j)) };
    loop {
        if !on_block(va, match_nonzero_bits(va, vb)) {
            return (a.len(), b.len());
        }
        // Advance by branches (as CRoaring does): predicted, they let the next loads
        // start before this turn's comparison is known; the branch-free form made
        // every turn wait for the last turn's loads (~3× slower on small arrays).
        // SAFETY: `i + 8 <= a.len()` and `j + 8 <= b.len()` (see the loads). Unchecked
        // as in `difference_u16`.
        let (amax, bmax) = unsafe { (a.get_unchecked(i + 7), b.get_unchecked(j + 7)) };
        let (amax, bmax) = (amax.get(), bmax.get());
        if amax <= bmax {
            i += 8;
            if i + 8 > a.len() {
                return (i, j + 8 * usize::from(bmax == amax));
            }
            // SAFETY: `i + 8 <= a.len()` just checked.
            va = unsafe { load8(a, i) };
        }
        if bmax <= amax {
            j += 8;
            if j + 8 > b.len() {
                return (i, j);
            }
            // SAFETY: `j + 8 <= b.len()` just checked.
            vb = unsafe { load8(b, j) };
        }
    }
}

/// A bit for each lane of `a` equal to some lane of `b` (all 16×16 pairs of 32-bit
/// lanes): one VP2INTERSECT, through inline assembly (its intrinsic is not stable).
/// The instruction writes a pair of mask registers, `k6` for `a` and `k7` for `b`.
#[inline]
#[target_feature(enable = "avx512f,avx512vp2intersect")]
pub(super) fn lanes_found(a: __m512i, b: __m512i) -> u16 {
    let found: u16;
    // SAFETY: this function runs only where its target features, VP2INTERSECT and
    // AVX-512 F, are present: it is called from code compiled with them, reached through
    // an `unsafe` call after `has_fast_vp2intersect` found them on this CPU. The
    // instruction reads only its two vector registers, writes only `k6` and `k7` (both
    // declared), touches no memory and no stack, and leaves the flags alone.
    unsafe {
        core::arch::asm!(
            "vp2intersectd k6, {a}, {b}",
            a = in(zmm_reg) a,
            b = in(zmm_reg) b,
            out("k6") found,
            out("k7") _,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    found
}

/// Lanes of a widened block past the end of the array: above any `u16`, and different
/// for the two arrays, so that they match nothing.
const PAD_A: i32 = 0x1_0000;
const PAD_B: i32 = 0x1_0001;

/// The block of `s` from index `k`: its up to 16 values, the mask of the lanes that hold
/// one, and the same widened to 32-bit lanes (the others set to `pad`, above any `u16`).
///
/// # Safety
///
/// `k < s.len()`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn load_block(s: &[U16], k: usize, pad: i32) -> (__m256i, u16, __m512i) {
    debug_assert!(k < s.len());
    let valid = mask_below((s.len() - k).min(16)) as u16;
    // SAFETY: the caller guarantees `k < s.len()`: the lanes under `valid` lie inside
    // `s`, and a masked load does not touch the others; unaligned; `U16` is two plain
    // little-endian bytes.
    let v = unsafe { _mm256_maskz_loadu_epi16(valid, s.as_ptr().add(k).cast()) };
    (
        v,
        valid,
        _mm512_mask_cvtepu16_epi32(_mm512_set1_epi32(pad), valid, v),
    )
}

/// Block compares of two sorted arrays 16×16 values at a time, one VP2INTERSECT a pair
/// ([`lanes_found`]): calls `on_pair(va, valid, found, done)` with the block of `a`, the
/// mask of its lanes that hold a value (all 16 but at the end), those found in the block
/// of `b`, and whether this is the block's last compare (no later block of `b` can
/// match it); advances the block with the smaller maximum (both if equal). Blocks at the
/// ends are partial, padded with values that match nothing, so no scalar tail is left.
/// A value of `a` matches at most one of `b`, and later blocks of `b` hold larger values,
/// so each match is reported once. Returns the index of the block of `a` that `b` ran out
/// under (its lanes found so far were reported), or `a.len()` or more if every block of
/// `a` is done.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vp2intersect")]
pub(super) fn blocks16(
    a: &[U16],
    b: &[U16],
    mut on_pair: impl FnMut(__m256i, u16, u16, bool),
) -> usize {
    let (mut i, mut j) = (0usize, 0usize);
    if a.is_empty() || b.is_empty() {
        return i;
    }
    // SAFETY: `i < a.len()` and `j < b.len()`: checked above, and before each later load.
    let ((mut na, mut valid, mut wa), mut wb) =
        unsafe { (load_block(a, i, PAD_A), load_block(b, j, PAD_B).2) };
    loop {
        let found = lanes_found(wa, wb);
        let amax = a[(i + 15).min(a.len() - 1)].get();
        let bmax = b[(j + 15).min(b.len() - 1)].get();
        on_pair(na, valid, found, amax <= bmax);
        // Advance by branches, as in `blocks`: predicted, the next loads start before
        // this turn's comparison is known.
        if amax <= bmax {
            i += 16;
            if i >= a.len() {
                return i;
            }
            // SAFETY: `i < a.len()` just checked.
            (na, valid, wa) = unsafe { load_block(a, i, PAD_A) };
        }
        if bmax <= amax {
            j += 16;
            if j >= b.len() {
                return i;
            }
            // SAFETY: `j < b.len()` just checked.
            wb = unsafe { load_block(b, j, PAD_B).2 };
        }
    }
}
