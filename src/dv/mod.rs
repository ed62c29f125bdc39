//! Deletion vectors: the 64-bit Roaring bitmaps of deleted row positions that Delta Lake and
//! Apache Iceberg (v3) keep beside each data file, opened where they lie.
//!
//! A Delta DV frame and an Iceberg `deletion-vector-v1` blob are the same bytes: a `u32`
//! big-endian length of what follows up to the checksum, the magic `D1 D3 39 64`, a 64-bit
//! portable Roaring bitmap, and a `u32` big-endian CRC-32 (zlib's polynomial) of magic and
//! bitmap. Frames start at any offset (Delta packs them back to back after a version
//! byte), so nothing here assumes alignment.

#[cfg(feature = "alloc")]
mod delta;
#[cfg(feature = "std")]
mod puffin;

#[cfg(feature = "alloc")]
pub use delta::{DeletionVectorDescriptor, StorageType};
#[cfg(feature = "std")]
pub use puffin::{BlobMetadata, PuffinFile, PuffinWriter};
#[cfg(feature = "std")]
pub(crate) use puffin::{
    FOOTER_TAIL, PUFFIN_MAGIC, footer_start, open_dv_blob, parse_footer_bytes,
};

use core::fmt;

use crate::cast;
use crate::error::{Error, ErrorKind};
use crate::view64::{self, FrozenBitmap64};

/// The magic of a deletion vector in the portable 64-bit layout: 1681511377 as
/// little-endian bytes, which Delta's protocol and Puffin's `deletion-vector-v1` both name.
pub const DV_MAGIC: [u8; 4] = crate::format::DV_MAGIC;

/// The magic of Delta Lake's native layout (`RoaringBitmapArray`, 1681511376), which Delta
/// Spark and Delta Kernel read but do not write for DVs.
pub const DV_NATIVE_MAGIC: [u8; 4] = 1_681_511_376u32.to_le_bytes();

pub(crate) use crate::error::DV_CRC;

/// Positions at or above this are refused: Iceberg positions are non-negative `long`s, and
/// Delta row indexes are below it too.
const POSITION_LIMIT: u64 = 1 << 63;

/// A deletion vector opened in place: the bitmap of deleted row positions of one data
/// file, read from the bytes of its frame with no copy and no allocation.
///
/// ```
/// use frozen_roaring::{DeletionVector, Writer};
/// let mut frame = Vec::new();
/// Writer::new().write_deletion_vector([3, 7, 1 << 40], &mut frame)?;
/// let dv = DeletionVector::from_bytes_strict(&frame)?;
/// assert_eq!(dv.len(), 3);
/// assert!(dv.bitmap().contains(1 << 40));
/// # Ok::<(), frozen_roaring::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct DeletionVector<'a> {
    /// The frame (length field to checksum), or for an inline DV magic and bitmap only.
    frame: &'a [u8],
    bitmap: FrozenBitmap64<'a>,
    /// Where the magic starts in `frame`: 4 after the length field, 0 for an inline DV
    /// (from [`from_inline`](DeletionVector::from_inline): no length field, no checksum).
    /// A word, not a flag: callers copy the view in words, and a byte flag among them,
    /// stored as a byte, stalled the copy.
    magic_at: usize,
}

impl<'a> DeletionVector<'a> {
    /// Opens one frame (length, magic, bitmap, CRC-32; exactly `frame.len()` bytes, at any
    /// alignment), checking the length field, the magic, the bitmap's structure (as
    /// [`FrozenBitmap64::from_bytes`] does, in O(containers)) and that no position reaches
    /// 2^63. The checksum is not computed: [`from_bytes_strict`](Self::from_bytes_strict)
    /// or [`verify`](Self::verify) do that. Accepts Delta's native layout (magic
    /// 1681511376) as well. Never panics and never allocates, for any input.
    ///
    /// # Errors
    ///
    /// `Truncated` or `Malformed` for a length field that disagrees with the bytes,
    /// `BadMagic` for a frame that is not a deletion vector, and the bitmap's errors with
    /// offsets from the start of the frame.
    #[inline]
    pub fn from_bytes(frame: &'a [u8]) -> Result<DeletionVector<'a>, Error> {
        match DeletionVector::checked(frame) {
            Some(dv) => Ok(dv),
            None => Err(DeletionVector::open_error(frame)),
        }
    }

    /// [`from_bytes`](Self::from_bytes) without the error: the checks' answer built once,
    /// where a `Result` merging every error with the view was moved through memory in
    /// pieces and read back wider than written.
    #[inline(never)]
    fn checked(frame: &'a [u8]) -> Option<DeletionVector<'a>> {
        let size = cast::read_u32_be(frame, 0)? as usize;
        if frame.len() as u64 != size as u64 + 8 {
            return None;
        }
        let body = &frame[4..4 + size];
        let bitmap = match open_body_fast(body) {
            Some(bitmap) => bitmap,
            None => open_body_cold(body)?,
        };
        Some(DeletionVector {
            frame,
            bitmap,
            magic_at: 4,
        })
    }

    /// Why [`from_bytes`](Self::from_bytes) rejects `frame` (which it does): the checks of
    /// [`checked`](Self::checked) in the same order, each naming its fault.
    #[cold]
    #[inline(never)]
    fn open_error(frame: &[u8]) -> Error {
        let Some(size) = cast::read_u32_be(frame, 0) else {
            return Error::truncated("deletion-vector length", 0, 4, frame.len() as u64);
        };
        let size = size as usize;
        let want = size as u64 + 8;
        if (frame.len() as u64) < want {
            return Error::truncated(
                "deletion vector (its length field counts more bytes)",
                0,
                want,
                frame.len() as u64,
            );
        }
        if frame.len() as u64 > want {
            return Error::malformed("deletion-vector length (bytes follow the checksum)", 0)
                .values(want, frame.len() as u64);
        }
        match open_body(&frame[4..4 + size]) {
            Err(e) => e.shifted(4),
            Ok(_) => Error::malformed("deletion vector", 0),
        }
    }

    /// [`from_bytes`](Self::from_bytes), then the CRC-32 and every payload invariant
    /// (O(size)): what to use on bytes from storage that may be damaged.
    ///
    /// # Errors
    ///
    /// As [`from_bytes`](Self::from_bytes), plus `ChecksumMismatch` and `Corrupt`.
    pub fn from_bytes_strict(frame: &'a [u8]) -> Result<DeletionVector<'a>, Error> {
        let dv = DeletionVector::from_bytes(frame)?;
        dv.verify()?;
        dv.validate_payloads()?;
        Ok(dv)
    }

    /// Opens the frame that a Delta descriptor places in a DV file: `offset` points at the
    /// frame's length field (1 for the first frame, after the file's version byte) and
    /// `size_in_bytes` is the descriptor's `sizeInBytes` (magic and bitmap, without the
    /// length field and the checksum), which must equal the length field. Checks as
    /// [`from_bytes`](Self::from_bytes); errors give offsets from the start of the file.
    ///
    /// # Errors
    ///
    /// `Truncated` if the file ends before the frame does, `Malformed` if the length field
    /// disagrees with `size_in_bytes`, and the errors of [`from_bytes`](Self::from_bytes).
    pub fn from_delta_file(
        file: &'a [u8],
        offset: u64,
        size_in_bytes: u32,
    ) -> Result<DeletionVector<'a>, Error> {
        let end = offset.saturating_add(u64::from(size_in_bytes) + 8);
        let at = usize::try_from(offset).unwrap_or(usize::MAX);
        let Some(frame) = usize::try_from(end).ok().and_then(|end| file.get(at..end)) else {
            return Err(Error::truncated(
                "deletion vector (the descriptor's offset and sizeInBytes pass the end of the file)",
                at,
                end,
                file.len() as u64,
            ));
        };
        let stored = cast::read_u32_be(frame, 0).unwrap_or(0);
        if stored != size_in_bytes {
            return Err(Error::malformed(
                "deletion-vector length (the descriptor's sizeInBytes differs; is the offset right?)",
                at,
            )
            .values(u64::from(size_in_bytes), u64::from(stored)));
        }
        DeletionVector::from_bytes(frame).map_err(|e| e.shifted(at))
    }

    /// Opens the magic and bitmap of an inline DV (Delta `storageType` `i`, as
    /// [`DeletionVectorDescriptor::decode_inline`] returns them): no length field and no
    /// checksum, otherwise checked as [`from_bytes`](Self::from_bytes).
    ///
    /// # Errors
    ///
    /// As [`from_bytes`](Self::from_bytes).
    pub fn from_inline(magic_and_bitmap: &'a [u8]) -> Result<DeletionVector<'a>, Error> {
        let bitmap = open_body(magic_and_bitmap)?;
        Ok(DeletionVector {
            frame: magic_and_bitmap,
            bitmap,
            magic_at: 0,
        })
    }

    /// Checks the frame's CRC-32 (zlib polynomial) over magic and bitmap (an inline DV has
    /// none: `Ok`).
    ///
    /// # Errors
    ///
    /// `ChecksumMismatch` with the stored and computed values.
    pub fn verify(&self) -> Result<(), Error> {
        if self.is_inline() {
            return Ok(());
        }
        let body_end = self.frame.len() - 4;
        let stored = cast::read_u32_be(self.frame, body_end).unwrap_or(0);
        let computed = crate::checksum::crc32_zlib(&self.frame[4..body_end]);
        if stored != computed {
            return Err(Error::new(ErrorKind::ChecksumMismatch, DV_CRC, body_end)
                .values(u64::from(computed), u64::from(stored)));
        }
        Ok(())
    }

    /// Checks that the bitmap holds `cardinality` positions, as a Delta descriptor's
    /// `cardinality` or a Puffin blob's `cardinality` property states.
    ///
    /// # Errors
    ///
    /// `Malformed` with both counts.
    pub fn check_cardinality(&self, cardinality: u64) -> Result<(), Error> {
        if self.len() != cardinality {
            return Err(Error::malformed(
                "deletion-vector cardinality (the descriptor's count differs from the bitmap's)",
                8,
            )
            .values(cardinality, self.len()));
        }
        Ok(())
    }

    /// The deleted positions.
    #[inline]
    pub fn bitmap(&self) -> FrozenBitmap64<'a> {
        self.bitmap
    }

    /// The number of deleted positions.
    #[inline]
    pub fn len(&self) -> u64 {
        self.bitmap.len()
    }

    /// Whether no position is deleted.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.bitmap.is_empty()
    }

    /// Whether row `position` is deleted.
    #[inline]
    pub fn contains(&self, position: u64) -> bool {
        self.bitmap.contains(position)
    }

    /// The frame's bytes (length field to checksum).
    #[inline]
    pub fn as_bytes(&self) -> &'a [u8] {
        self.frame
    }

    /// The stored CRC-32 (`None` for an inline DV).
    pub fn stored_crc(&self) -> Option<u32> {
        if self.is_inline() {
            return None;
        }
        cast::read_u32_be(self.frame, self.frame.len() - 4)
    }

    /// Whether the frame uses Delta's native layout rather than the portable one.
    pub fn is_native(&self) -> bool {
        self.magic() == DV_NATIVE_MAGIC
    }

    /// Checks every payload invariant of the bitmap (O(size)).
    ///
    /// # Errors
    ///
    /// `Corrupt` with the offset from the start of the frame.
    pub fn validate_payloads(&self) -> Result<(), Error> {
        let at = self.magic_at + 4;
        self.bitmap.validate().map_err(|e| e.shifted(at))
    }

    /// Opened by [`from_inline`](DeletionVector::from_inline).
    fn is_inline(&self) -> bool {
        self.magic_at == 0
    }

    fn magic(&self) -> [u8; 4] {
        let at = self.magic_at;
        let m = &self.frame[at..at + 4];
        [m[0], m[1], m[2], m[3]]
    }
}

/// [`open_body`] for a valid bitmap in the portable 64-bit layout (every DV Delta and
/// Iceberg write), answered in registers; `None` for anything else, which
/// [`open_body_cold`] then decides.
#[inline(always)]
fn open_body_fast(body: &[u8]) -> Option<FrozenBitmap64<'_>> {
    let (magic, bitmap) = body.split_at_checked(4)?;
    if magic != DV_MAGIC {
        return None;
    }
    let (n, len, top) = view64::portable_facts(bitmap)?;
    if top.is_some_and(|key| u64::from(key) >= POSITION_LIMIT >> 32) {
        return None;
    }
    Some(view64::portable_view(bitmap, n, len))
}

/// [`open_body`] where [`open_body_fast`] did not answer: Delta's native layout, or bytes
/// it rejects (the full parse decides, so the fast path never rejects what it accepts).
#[cold]
#[inline(never)]
fn open_body_cold(body: &[u8]) -> Option<FrozenBitmap64<'_>> {
    open_body(body).ok()
}

/// Opens magic + bitmap (the part the length field counts): the portable layout after
/// [`DV_MAGIC`], Delta's native one after [`DV_NATIVE_MAGIC`]; no position may reach 2^63.
/// Offsets in errors count from the magic. Always inline, with the 64-bit parse: the
/// view is then built in the caller's frame, where a copy of it out of a call was read
/// back wider than written (a store-forwarding stall on every open).
#[inline(always)]
pub(crate) fn open_body(body: &[u8]) -> Result<FrozenBitmap64<'_>, Error> {
    if body.len() < 4 {
        return Err(Error::truncated(
            "deletion-vector magic",
            0,
            4,
            body.len() as u64,
        ));
    }
    let (magic, bitmap) = body.split_at(4);
    let bitmap = if magic == DV_MAGIC {
        view64::parse_portable(bitmap)
    } else if magic == DV_NATIVE_MAGIC {
        view64::parse_delta_native(bitmap)
    } else {
        return Err(Error::bad_magic(crate::error::expect::DV, body, 0));
    }
    .map_err(|e| e.shifted(4))?;
    let (bitmap, top) = bitmap;
    if top.is_some_and(|key| u64::from(key) >= POSITION_LIMIT >> 32) {
        return Err(
            Error::malformed("deletion-vector position (positions must be below 2^63)", 4)
                .values(POSITION_LIMIT - 1, bitmap.max().unwrap_or(0)),
        );
    }
    Ok(bitmap)
}

impl fmt::Debug for DeletionVector<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeletionVector")
            .field("len", &self.len())
            .field("bytes", &self.frame.len())
            .finish()
    }
}
