//! Every reinterpretation of bytes as integers in the crate happens here.
//!
//! No cast uses `unsafe`: all go through zerocopy's checked, safe conversions to its
//! alignment-1 little-endian integer types (`U16`, `U32`, `U64`). These
//! types have alignment 1, so a view works on a slice at any address (LMDB values,
//! network buffers) and never forms a misaligned `&[u16]`/`&[u64]`. On little-endian hosts
//! `get()` compiles to a plain (possibly unaligned) load; see the design notes in
//! `format-spec/FORMAT.md` for the measured cost.

pub(crate) use zerocopy::little_endian::{U16, U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// Words in a bitset container.
pub(crate) const BITSET_WORDS: usize = 1024;
/// Bytes in a bitset container.
pub(crate) const BITSET_BYTES: usize = BITSET_WORDS * 8;

/// A bitset container's payload as it lies in the bytes.
pub(crate) type BitsetLE = [U64; BITSET_WORDS];

/// The words of a bitset payload being written in place (`bytes` holds exactly one),
/// in native order, which is the stored order only on little-endian targets; `None` if
/// `bytes` is not 8-aligned (or on a big-endian target).
#[cfg(feature = "alloc")]
pub(crate) fn bitset_words_mut(bytes: &mut [u8]) -> Option<&mut [u64; BITSET_WORDS]> {
    if cfg!(target_endian = "little") {
        <[u64; BITSET_WORDS]>::mut_from_bytes(bytes).ok()
    } else {
        None
    }
}

/// One run of a run container, `start ..= start + len_minus_one`, as stored.
#[derive(FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned, Clone, Copy, Debug)]
#[repr(C)]
pub(crate) struct RunLE {
    /// First value of the run.
    pub start: U16,
    /// Length of the run minus one.
    pub len_minus_one: U16,
}

impl RunLE {
    /// First value.
    #[inline]
    pub(crate) fn start(&self) -> u32 {
        u32::from(self.start.get())
    }
    /// Last value, clamped to 65535 so that a corrupt run can never name a value outside
    /// its container.
    #[inline]
    pub(crate) fn end(&self) -> u32 {
        (self.start() + u32::from(self.len_minus_one.get())).min(0xFFFF)
    }
}

/// One `(key, cardinality - 1)` descriptor of the portable format, as stored.
#[derive(FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned, Clone, Copy, Debug)]
#[repr(C)]
pub(crate) struct KeyCardLE {
    /// High 16 bits of the container's values.
    pub key: U16,
    /// Cardinality minus one.
    pub card_minus_one: U16,
}

/// One directory entry of a bitmap file, as stored.
#[cfg(feature = "std")]
#[derive(FromBytes, IntoBytes, Immutable, KnownLayout, Unaligned, Clone, Copy, Debug)]
#[repr(C)]
pub(crate) struct FileEntryLE {
    /// The bitmap's key.
    pub key: U64,
    /// Offset of the bitmap from the start of the file.
    pub offset: U64,
    /// Length of the bitmap in bytes.
    pub len: U64,
}

/// `bytes` as bitmap-file directory entries; `None` unless the length is a multiple of 24.
#[cfg(feature = "std")]
#[inline]
pub(crate) fn file_entries(bytes: &[u8]) -> Option<&[FileEntryLE]> {
    <[FileEntryLE]>::ref_from_bytes(bytes).ok()
}

/// `bytes` as portable descriptors; `None` unless the length is a multiple of 4.
#[inline]
pub(crate) fn key_cards(bytes: &[u8]) -> Option<&[KeyCardLE]> {
    <[KeyCardLE]>::ref_from_bytes(bytes).ok()
}

/// `bytes` as `u64`s; `None` unless the length is a multiple of 8.
#[inline]
pub(crate) fn u64s(bytes: &[u8]) -> Option<&[U64]> {
    <[U64]>::ref_from_bytes(bytes).ok()
}

/// The little-endian `u64` at `offset`, if in bounds.
#[inline]
pub(crate) fn read_u64(bytes: &[u8], offset: usize) -> Option<u64> {
    let b = bytes.get(offset..offset.checked_add(8)?)?;
    Some(u64::from_le_bytes(b.try_into().ok()?))
}

/// `bytes` as `u16`s; `None` unless the length is even.
#[inline]
pub(crate) fn u16s(bytes: &[u8]) -> Option<&[U16]> {
    <[U16]>::ref_from_bytes(bytes).ok()
}

/// `bytes` as `u32`s; `None` unless the length is a multiple of 4.
#[inline]
pub(crate) fn u32s(bytes: &[u8]) -> Option<&[U32]> {
    <[U32]>::ref_from_bytes(bytes).ok()
}

/// `bytes` as runs; `None` unless the length is a multiple of 4.
#[inline]
pub(crate) fn runs(bytes: &[u8]) -> Option<&[RunLE]> {
    <[RunLE]>::ref_from_bytes(bytes).ok()
}

/// A run list as little-endian words: the start in the low 16 bits, the length minus one
/// in the high 16 (what vectorized checks read).
#[inline]
pub(crate) fn run_words(runs: &[RunLE]) -> &[U32] {
    // `RunLE` is 4 unaligned bytes, so its bytes are always a whole number of words.
    <[U32]>::ref_from_bytes(runs.as_bytes()).unwrap_or(&[])
}

/// `bytes` as a bitset; `None` unless exactly 8192 bytes long.
#[inline]
pub(crate) fn bitset(bytes: &[u8]) -> Option<&BitsetLE> {
    BitsetLE::ref_from_bytes(bytes).ok()
}

/// The little-endian `u16` at `offset`, if in bounds.
#[inline]
pub(crate) fn read_u16(bytes: &[u8], offset: usize) -> Option<u16> {
    let b = bytes.get(offset..offset.checked_add(2)?)?;
    Some(u16::from_le_bytes([b[0], b[1]]))
}

/// The little-endian `u32` at `offset`, if in bounds.
#[inline]
pub(crate) fn read_u32(bytes: &[u8], offset: usize) -> Option<u32> {
    let b = bytes.get(offset..offset.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// The big-endian `u32` at `offset`, if in bounds (deletion-vector frames).
#[inline]
pub(crate) fn read_u32_be(bytes: &[u8], offset: usize) -> Option<u32> {
    let b = bytes.get(offset..offset.checked_add(4)?)?;
    Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// Bulk copies longer than this are made in pieces of this size. glibc's `memcpy` turns to
/// `rep movsb` above about 2 KiB (2,112 bytes on CPUs with fast short `rep movsb`), and on
/// AMD Zen CPUs `rep movsb` runs up to 25 times slower when the destination lies less than
/// 64 bytes after the source modulo 4 KiB (915 ns instead of 37 ns for
/// 2,400 bytes). Result buffers and scratch vectors meet such offsets often enough to cost
/// a third of an array ∪ array union; pieces of 2 KiB take glibc's vector loop instead.
#[cfg(feature = "alloc")]
pub(crate) const COPY_PIECE: usize = 2048;

/// Re-encoding's stretches of at least this many bytes go in one `memcpy` when their
/// addresses avoid the slow case of [`COPY_PIECE`]: from half a bitset on, they copy
/// faster by `rep movsb` than in 2 KiB pieces (the set operations, whose bitset-sized
/// copies measured faster in pieces, use [`extend_bytes`]).
#[cfg(feature = "alloc")]
pub(crate) const BULK_COPY: usize = 4 << 10;

/// Whether a copy of `len` bytes to `dst` from `src` goes in one `memcpy`: long enough
/// (see [`BULK_COPY`]), and the destination not less than 64 bytes after the source
/// modulo 4 KiB (the slow case of [`COPY_PIECE`]).
#[cfg(feature = "alloc")]
#[inline]
fn one_piece(len: usize, dst: usize, src: usize) -> bool {
    len >= BULK_COPY && dst.wrapping_sub(src) % 4096 >= 64
}

/// `out.extend_from_slice(bytes)`, in pieces of at most [`COPY_PIECE`] bytes (see there).
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn extend_bytes(out: &mut alloc::vec::Vec<u8>, bytes: &[u8]) {
    if bytes.len() <= COPY_PIECE {
        out.extend_from_slice(bytes);
        return;
    }
    out.reserve(bytes.len());
    for piece in bytes.chunks(COPY_PIECE) {
        out.extend_from_slice(piece);
    }
}

/// [`extend_bytes`] for stretches that are often long (re-encoding copies whole runs of
/// payloads): one `memcpy` for a [`BULK_COPY`] whose addresses avoid the slow case.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn extend_stretch(out: &mut alloc::vec::Vec<u8>, bytes: &[u8]) {
    out.reserve(bytes.len());
    let dst = out.as_ptr() as usize + out.len();
    if one_piece(bytes.len(), dst, bytes.as_ptr() as usize) {
        out.extend_from_slice(bytes);
    } else {
        extend_bytes(out, bytes);
    }
}

/// `dst.copy_from_slice(src)`, in pieces of at most [`COPY_PIECE`] bytes (see there).
/// Panics if the lengths differ.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn copy_bytes(dst: &mut [u8], src: &[u8]) {
    assert_eq!(
        dst.len(),
        src.len(),
        "copy between slices of different lengths"
    );
    for (d, s) in dst.chunks_mut(COPY_PIECE).zip(src.chunks(COPY_PIECE)) {
        d.copy_from_slice(s);
    }
}

/// Native `u16`s seen as stored little-endian ones (the same bytes on little-endian
/// hosts; `U16` has no alignment requirement, so the cast always succeeds).
#[cfg(feature = "alloc")]
#[cfg(target_endian = "little")]
#[inline]
pub(crate) fn native_as_le(values: &[u16]) -> &[U16] {
    <[U16]>::ref_from_bytes(values.as_bytes()).expect("U16 is unaligned and 2 bytes")
}

/// Native `u16`s of a scratch buffer turned into little-endian ones in place and seen as
/// such: no work on little-endian hosts, a byte swap of each value on big-endian ones
/// (the buffer then holds little-endian values until it is refilled).
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn native_into_le(values: &mut [u16]) -> &[U16] {
    #[cfg(not(target_endian = "little"))]
    for v in values.iter_mut() {
        *v = v.to_le();
    }
    <[U16]>::ref_from_bytes(values.as_bytes()).expect("U16 is unaligned and 2 bytes")
}

/// Stored little-endian values seen as native ones, when they lie 2-aligned (the same
/// bytes on little-endian hosts); `None` if they do not, or on big-endian hosts.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn le_as_native(values: &[U16]) -> Option<&[u16]> {
    if cfg!(target_endian = "little") {
        <[u16]>::ref_from_bytes(values.as_bytes()).ok()
    } else {
        None
    }
}

/// Appends stored little-endian values to native ones: one bulk copy where they lie
/// 2-aligned on a little-endian host (array payloads do, in buffers that start 2-aligned),
/// else value by value.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn extend_native(out: &mut alloc::vec::Vec<u16>, values: &[U16]) {
    match le_as_native(values) {
        Some(native) => out.extend_from_slice(native),
        None => out.extend(values.iter().map(|v| v.get())),
    }
}

/// Copies stored little-endian values into native ones (`dst` and `src` of one length):
/// a bulk copy in pieces (see [`COPY_PIECE`]) on little-endian hosts.
#[cfg(all(feature = "alloc", feature = "std", target_arch = "x86_64"))] // the x86 kernels'
#[inline]
pub(crate) fn copy_u16s(dst: &mut [u16], src: &[U16]) {
    #[cfg(target_endian = "little")]
    copy_bytes(dst.as_mut_bytes(), src.as_bytes());
    #[cfg(not(target_endian = "little"))]
    for (d, s) in dst.iter_mut().zip(src) {
        *d = s.get();
    }
}

/// Appends `values` as little-endian bytes: one bulk copy on little-endian hosts.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn extend_u16s(out: &mut alloc::vec::Vec<u8>, values: &[u16]) {
    #[cfg(target_endian = "little")]
    extend_bytes(out, values.as_bytes());
    #[cfg(not(target_endian = "little"))]
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

/// Grows `out` by `n` zeroed little-endian `u16`s and returns them, to be written in place
/// (no capacity check per value).
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn grow_u16s(out: &mut alloc::vec::Vec<u8>, n: usize) -> &mut [U16] {
    let start = out.len();
    out.resize(start + 2 * n, 0);
    <[U16]>::mut_from_bytes(&mut out[start..]).expect("an even number of bytes")
}

/// `values` (of even length; a last odd value is left out) as pairs: each `U32` holds
/// `values[2i]` in its low half and `values[2i + 1]` in its high half.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn u16_pairs_mut(values: &mut [U16]) -> &mut [U32] {
    let even = values.len() & !1;
    <[U32]>::mut_from_bytes(values[..even].as_mut_bytes()).expect("an even number of u16s")
}

/// Appends `words` as little-endian bytes: one bulk copy on little-endian hosts.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn extend_u64s(out: &mut alloc::vec::Vec<u8>, words: &[u64]) {
    #[cfg(target_endian = "little")]
    extend_bytes(out, words.as_bytes());
    #[cfg(not(target_endian = "little"))]
    for w in words {
        out.extend_from_slice(&w.to_le_bytes());
    }
}

/// The bytes of stored little-endian values (one bulk copy when re-encoding).
#[inline]
pub(crate) fn bytes_of<T: IntoBytes + Immutable>(values: &[T]) -> &[u8] {
    values.as_bytes()
}
