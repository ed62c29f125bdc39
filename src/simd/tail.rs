//! Appending `u32`s to a vector in blocks of 8 written straight into its spare capacity:
//! the values of a bitset go out in whole vector stores, each keeping as many of its 8
//! lanes as are values (the next store overwrites the rest), with no zero-filling of the
//! room first and no staging buffer.

#[cfg(feature = "alloc")]
use alloc::vec::Vec;

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

    /// Appends the values written to the vector.
    #[inline(always)]
    pub(crate) fn finish(self) {
        let (len, added) = (self.out.len(), self.len);
        // SAFETY: `Blocks::len` starts at 0 and grows only in `put_word`: by one right
        // after writing the spare slot at the old `len`, or by `at` after writing the spare
        // slots `len + o .. len + o + 8` for each `o` it took, where each `o` is the number
        // of values kept so far, at most the slots written before it: the spare slots
        // `0 .. added` are all written (the vector's length did not
        // change meanwhile: `Blocks` holds it borrowed). Each window was inside the spare
        // capacity, so `len + added` is within the capacity.
        unsafe { self.out.set_len(len + added) };
    }
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
