//! Appending `u32`s to a vector in blocks written straight into its spare capacity: the
//! values of a bitset go out in whole vector stores (8 lanes from a byte's table entry, or
//! with AVX-512 16 from a word's compressed positions), each keeping as many lanes as are
//! values (the next store overwrites the rest), with no zero-filling of the room first
//! and no staging buffer.

#[cfg(feature = "alloc")]
use alloc::vec::Vec;

#[cfg(feature = "alloc")]
use crate::cast::U64;

/// Runs whose whole blocks reach this many slots are filled from a 64-byte boundary: the
/// realignment (up to 15 slots written twice) pays only where the loop's stores are many.
#[cfg(feature = "alloc")]
const ALIGNED_RUN: usize = 256;

/// Arrays of at least this many values are widened from a 64-byte boundary of the output
/// (see [`ALIGNED_RUN`]).
#[cfg(all(feature = "alloc", feature = "std", target_arch = "x86_64"))]
const ALIGNED_ARRAY: usize = 256;

#[cfg(feature = "alloc")]
/// A vector whose spare capacity is written from its start in blocks of 8; the slots
/// written join the vector at [`finish`](Blocks::finish).
pub(crate) struct Blocks<'a> {
    out: &'a mut Vec<u32>,
    /// Slots kept so far past the vector's length: each one written by a store.
    len: usize,
}

#[cfg(feature = "alloc")]
impl<'a> Blocks<'a> {
    /// Reserves `room` slots past `out`'s values (room for the values to come: exactly, so
    /// that a vector sized for them does not grow).
    #[inline(always)]
    pub(crate) fn new(out: &'a mut Vec<u32>, room: usize) -> Blocks<'a> {
        out.reserve(room);
        Blocks { out, len: 0 }
    }

    /// Appends `base + i` for each set bit `i` of `bits`: a byte at a time, the positions of
    /// its set bits from a table, widened, offset and stored as one block of 8 that keeps
    /// as many lanes as the byte has bits (no branch per value). Within 72 slots of the
    /// end of the room, a value at a time; values past the room are dropped (the caller
    /// reserves room for all of them).
    #[inline(always)]
    pub(crate) fn put_word(&mut self, bits: u64, base: u32) {
        let spare = self.out.spare_capacity_mut();
        let Some(window) = spare.get_mut(self.len..self.len + 72) else {
            // Near the end of the room: a value at a time, into the slots that are left.
            let mut w = bits;
            while w != 0 {
                if let Some(slot) = spare.get_mut(self.len) {
                    slot.write(base + w.trailing_zeros());
                    self.len += 1;
                }
                w &= w - 1;
            }
            return;
        };
        let mut at = 0usize;
        for (k, table) in WORD_POSITIONS.iter().enumerate() {
            let byte = ((bits >> (8 * k)) & 0xFF) as usize;
            let pos = &table[byte];
            // `at` is at most 56 here (7 bytes of at most 8 bits): the mask changes
            // nothing and shows that the block fits the window.
            let o = at & 63;
            let mut block = [0u32; 8];
            for (b, &p) in block.iter_mut().zip(pos) {
                *b = base + u32::from(p);
            }
            for (d, b) in window[o..o + 8].iter_mut().zip(block) {
                d.write(b);
            }
            at = o + byte.count_ones() as usize;
        }
        self.len += at;
    }

    /// Appends `first, first + 1, ..` (`count` values) up to a whole number of blocks of
    /// 16 slots where the room holds them (the next run's values overwrite the spare
    /// lanes): the first block as one vector store, a longer run's rest in one loop; near
    /// the end of the room the last few a value at a time. Values past the room are
    /// dropped (the caller reserves room for all of them).
    #[inline(always)]
    pub(crate) fn put_run(&mut self, first: u32, count: usize) {
        let spare = self.out.spare_capacity_mut();
        let room = spare.get_mut(self.len..).unwrap_or(&mut []);
        let n = count.min(room.len());
        // Whole blocks: all of them when the room holds the last one whole.
        let rounded = n.div_ceil(16) * 16;
        let whole = if rounded <= room.len() {
            rounded
        } else {
            n / 16 * 16
        };
        let (blocks, rest) = room.split_at_mut(whole);
        // `whole` is a multiple of 16: the head is the first block or empty. (A loop over
        // blocks is vectorized across them, into scatters.)
        let head = &mut blocks[..whole.min(16)];
        if let Ok(head) = <&mut [_; 16]>::try_from(head) {
            *head =
                core::array::from_fn(|j| core::mem::MaybeUninit::new(first.wrapping_add(j as u32)));
        }
        if whole >= ALIGNED_RUN {
            // A long run's rest from the first 64-byte boundary in the room (the head
            // covers the slots before it, at most 15): from a `malloc`ed vector's 16-byte
            // alignment, half of the loop's vector stores would cross a cache line.
            let from = 16 - (blocks.as_ptr() as usize / 4) % 16;
            let base = first.wrapping_add(from as u32);
            for (j, d) in blocks[from..].iter_mut().enumerate() {
                d.write(base.wrapping_add(j as u32));
            }
        } else {
            // Its own loop: one loop from a computed start for both lengths cost the sets
            // of short runs 5–12 %.
            for (j, d) in blocks
                .get_mut(16..)
                .unwrap_or(&mut [])
                .iter_mut()
                .enumerate()
            {
                d.write(first.wrapping_add(16 + j as u32));
            }
        }
        let tail = n.saturating_sub(whole);
        for (j, d) in rest.iter_mut().take(tail).enumerate() {
            d.write(first.wrapping_add((whole + j) as u32));
        }
        self.len += n;
    }

    /// Appends `base + 64 i + j` for each set bit `j` of each word `words[i]`: with
    /// AVX-512 VBMI2 a word at a time (its bits' positions compressed out of a vector of
    /// all 64, widened and stored in blocks of 16), else (and within 64 slots of the end of
    /// the room) [`put_word`](Self::put_word) by word.
    #[inline(always)]
    pub(crate) fn put_words(&mut self, words: &[U64], base: u32) {
        let spare = self.out.spare_capacity_mut();
        let dst = spare.get_mut(self.len..).unwrap_or(&mut []);
        let (done, written) = words_uninit(words, base, dst);
        self.len += written;
        for (i, w) in words.iter().enumerate().skip(done) {
            let bits = w.get();
            if bits != 0 {
                self.put_word(bits, base.wrapping_add(64 * i as u32));
            }
        }
    }

    /// Appends the values written to the vector.
    #[inline(always)]
    pub(crate) fn finish(self) {
        let (len, added) = (self.out.len(), self.len);
        // SAFETY: `Blocks::len` starts at 0 and grows only in `put_word`, `put_words` and
        // `put_run`: by one right after writing the spare slot at the old `len`; by `at`
        // after writing the spare slots `len + o .. len + o + 8` for each `o` it took,
        // where each `o` is the number of values kept so far, at most the slots written
        // before it; by the `written` of `extract_words`, which initialized the slots
        // `..written` of the spare capacity past the old `len`; or by `n` after writing
        // the spare slots `len .. len + whole` and then `len + whole .. len + n` (when
        // `whole < n`: `whole` is `n` rounded up to 16 or down to 16). So the spare slots
        // `0 .. added` are all written (the vector's length did not change meanwhile:
        // `Blocks` holds it borrowed), and each lies inside the spare capacity, so
        // `len + added` is within the capacity.
        unsafe { self.out.set_len(len + added) };
    }
}

/// Appends `high | v` for each value `v` of an array container to `out` with AVX-512 (32
/// values per step, the last step under a mask, so that short arrays take no scalar
/// loop); `false`, with `out` untouched, where the CPU lacks it.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn extend_widened(a: &[crate::cast::U16], high: u32, out: &mut Vec<u32>) -> bool {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if super::x86::has_v4() {
        out.reserve(a.len());
        let len = out.len();
        let dst = out.spare_capacity_mut();
        // SAFETY: `has_v4` confirmed AVX-512 F and BW.
        let written = unsafe { kernels::widen(a, high, dst) };
        // SAFETY: `widen` initialized the spare slots `..written` (all of `a`, for which
        // `reserve` made room: `written == a.len()`), so the first `len + written` slots
        // are initialized and within the capacity.
        unsafe { out.set_len(len + written) };
        return true;
    }
    let _ = (a, high, out);
    false
}

/// Writes `base + 64 i + j` for each set bit `j` of each word `words[i]` into `dst` from
/// its start with AVX-512 VBMI2, a word at a time while `dst` has room for 64 values.
/// Returns how many words were done and how many values written; `(0, 0)` where the CPU
/// lacks it.
#[inline]
pub(crate) fn words_into(words: &[crate::cast::U64], base: u32, dst: &mut [u32]) -> (usize, usize) {
    // SAFETY: `MaybeUninit<u32>` has the size, alignment and layout of `u32`, so the cast
    // keeps the slice's length and bounds; `words_uninit` only stores `u32` values into it
    // (never an uninitialized one), so every slot of `dst` stays initialized.
    let dst = unsafe { &mut *(core::ptr::from_mut(dst) as *mut [core::mem::MaybeUninit<u32>]) };
    words_uninit(words, base, dst)
}

/// [`words_into`] over slots that may be uninitialized: the slots `..written` of `dst` are
/// initialized on return.
#[inline]
fn words_uninit(
    words: &[crate::cast::U64],
    base: u32,
    dst: &mut [core::mem::MaybeUninit<u32>],
) -> (usize, usize) {
    #[cfg(all(feature = "alloc", feature = "std", target_arch = "x86_64"))]
    if super::x86::has_v4() {
        // SAFETY: `has_v4` confirmed AVX-512 F, BW, VL and VBMI2 and POPCNT.
        return unsafe { kernels::extract_words(words, base, dst) };
    }
    let _ = (words, base, dst);
    (0, 0)
}

/// For each byte value, the positions of its set bits in ascending order (the rest 0).
pub(crate) static BYTE_POSITIONS: [[u8; 8]; 256] = {
    let mut t = [[0u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let (mut k, mut bit) = (0, 0);
        while bit < 8 {
            if b & (1 << bit) != 0 {
                t[b][k] = bit as u8;
                k += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    t
};

#[cfg(feature = "alloc")]
/// [`BYTE_POSITIONS`] for byte `k` of a word: the positions in the word (`8 k` added), so
/// that a word's bytes need only the word's base added (16 KiB, used only while a bitset
/// is extracted).
static WORD_POSITIONS: [[[u8; 8]; 256]; 8] = {
    let mut t = [[[0u8; 8]; 256]; 8];
    let mut k = 0;
    while k < 8 {
        let mut b = 0;
        while b < 256 {
            let mut j = 0;
            while j < 8 {
                t[k][b][j] = BYTE_POSITIONS[b][j] + 8 * k as u8;
                j += 1;
            }
            b += 1;
        }
        k += 1;
    }
    t
};

#[cfg(all(feature = "alloc", feature = "std", target_arch = "x86_64"))]
mod kernels {
    use crate::cast::U64;
    use core::arch::x86_64::*;
    use core::mem::MaybeUninit;

    /// Bit positions 0 to 63, one per byte lane: what a word's mask compresses.
    static POSITIONS: [u8; 64] = {
        let mut t = [0u8; 64];
        let mut i = 0;
        while i < 64 {
            t[i] = i as u8;
            i += 1;
        }
        t
    };

    /// Writes `base + 64 i + j` for each set bit `j` of each word `words[i]` into `dst`
    /// from its start, in order, a word at a time while `dst` has 64 slots past the values
    /// written: the word's bit positions compressed out of a vector of all 64, widened and
    /// stored in blocks of 16 lanes, of which the first `popcount` count (the next word's
    /// stores overwrite the rest). The first block is always stored, the second and third
    /// together past 16 values, the fourth past 48: at about half density the count
    /// straddles 32, and a branch there would be mispredicted every other word (twice
    /// slower on random half-full bitsets than these spare stores). Exact masked stores
    /// ran slower (1.15 times with these branches, 1.8 without). Returns how many words
    /// were done and how many values written: the slots `..written` of `dst` are
    /// initialized.
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F, BW, VL and VBMI2, and POPCNT.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,popcnt")]
    pub(super) unsafe fn extract_words(
        words: &[U64],
        base: u32,
        dst: &mut [MaybeUninit<u32>],
    ) -> (usize, usize) {
        // SAFETY: `POSITIONS` is 64 bytes; unaligned loads are allowed.
        let positions = unsafe { _mm512_loadu_si512(POSITIONS.as_ptr().cast()) };
        let (mut at, mut i) = (0usize, 0usize);
        let out = dst.as_mut_ptr().cast::<u32>();
        while let Some(w) = words.get(i) {
            if dst.len() - at < 64 {
                break;
            }
            let w = w.get();
            let n = w.count_ones() as usize;
            if n != 0 {
                let packed = _mm512_maskz_compress_epi8(w, positions);
                let b = _mm512_set1_epi32(base.wrapping_add(64 * i as u32) as i32);
                // SAFETY: `dst.len() - at >= 64` (checked above): the stores write slots
                // `at + 16 k .. at + 16 k + 16` for `k < 4`, all inside `dst`
                // (uninitialized memory may be written; unaligned stores are allowed).
                // The slots `at .. at + n` hold this word's values: `n` lanes of the
                // compressed vector, stored by the blocks taken for `n`.
                unsafe {
                    let r = _mm512_cvtepu8_epi32(_mm512_castsi512_si128(packed));
                    _mm512_storeu_si512(out.add(at).cast(), _mm512_add_epi32(r, b));
                    if n > 16 {
                        let r = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<1>(packed));
                        _mm512_storeu_si512(out.add(at + 16).cast(), _mm512_add_epi32(r, b));
                        let r = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<2>(packed));
                        _mm512_storeu_si512(out.add(at + 32).cast(), _mm512_add_epi32(r, b));
                        if n > 48 {
                            let r = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<3>(packed));
                            _mm512_storeu_si512(out.add(at + 48).cast(), _mm512_add_epi32(r, b));
                        }
                    }
                }
                at += n;
            }
            i += 1;
        }
        (i, at)
    }

    /// Writes `high | v` for each value `v` of `a` into `dst` from its start, 32 at a time
    /// (loaded, widened in two halves and stored, the last part under a mask of the values
    /// left), as far as `dst` has room. Returns how many were written: the slots
    /// `..written` of `dst` are initialized.
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F and BW.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn widen(
        a: &[crate::cast::U16],
        high: u32,
        dst: &mut [MaybeUninit<u32>],
    ) -> usize {
        let n = a.len().min(dst.len());
        let (src, out) = (a.as_ptr().cast::<u16>(), dst.as_mut_ptr().cast::<u32>());
        let h = _mm512_set1_epi32(high as i32);
        // The two halves of 32 values, widened to 32 bits and or-ed with `high`.
        let widened = |v: __m512i| {
            let lo = _mm512_cvtepu16_epi32(_mm512_castsi512_si256(v));
            let hi = _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64::<1>(v));
            (_mm512_or_si512(lo, h), _mm512_or_si512(hi, h))
        };
        let mut i = 0;
        if n >= super::ALIGNED_ARRAY {
            // A long array: its first block, then the rest from the first 64-byte boundary
            // of `dst` (rewriting up to 15 slots of the first block with the same values),
            // so that no store of the loop crosses a cache line.
            // SAFETY: as in the loop below, for the slots `0 .. 32`, below `n`.
            unsafe {
                let (lo, hi) = widened(_mm512_loadu_si512(src.cast()));
                _mm512_storeu_si512(out.cast(), lo);
                _mm512_storeu_si512(out.add(16).cast(), hi);
            }
            let lead = (16 - (out as usize / 4) % 16) % 16;
            i = if lead == 0 { 32 } else { lead };
        }
        // Whole blocks of 32 with plain loads and stores (no mask to compute, and plain
        // stores retire faster than masked ones), then the last part under a mask.
        while i + 32 <= n {
            // SAFETY: the load reads the slots `i .. i + 32` of `a` and the stores write
            // the slots `i .. i + 32` of `dst`, all below `n`, which is at most the length
            // of both (`U16` is two plain bytes, little-endian like the CPU; unaligned
            // loads and stores have no alignment requirement; uninitialized memory may be
            // written).
            unsafe {
                let (lo, hi) = widened(_mm512_loadu_si512(src.add(i).cast()));
                _mm512_storeu_si512(out.add(i).cast(), lo);
                _mm512_storeu_si512(out.add(i + 16).cast(), hi);
            }
            i += 32;
        }
        if i < n {
            // The lanes `i .. n`: a mask of the first `n - i` (1 to 31).
            let mask = u32::MAX >> (32 - (n - i));
            // SAFETY: the load reads and the stores write only their masks' lanes, the
            // slots `i + j` for `j < n - i`, all below `n`, which is at most the length of
            // `a` and of `dst` (`U16` is two plain bytes, little-endian like the CPU;
            // masked loads and stores have no alignment requirement and do not touch
            // masked-off lanes; uninitialized memory may be written).
            unsafe {
                let (lo, hi) = widened(_mm512_maskz_loadu_epi16(mask, src.add(i).cast()));
                _mm512_mask_storeu_epi32(out.add(i).cast(), mask as u16, lo);
                _mm512_mask_storeu_epi32(out.add(i + 16).cast(), (mask >> 16) as u16, hi);
            }
        }
        n
    }
}
