//! Writing deletion vectors: one frame (length, magic, 64-bit portable bitmap, CRC-32) as
//! Delta Lake and Iceberg readers expect it.

use alloc::vec::Vec;
use core::ops::Range;

use super::Writer;
use crate::dv::DV_MAGIC;
use crate::error::Error;

/// Positions must stay below this: Iceberg's are non-negative `long`s.
const POSITION_LIMIT: u64 = 1 << 63;

impl Writer {
    /// Appends the deletion vector of strictly ascending row `positions` to `out` as one
    /// frame: `u32` big-endian length of magic and bitmap, the magic `D1 D3 39 64`, the
    /// 64-bit portable bitmap with CRoaring's run optimization (each bucket's containers
    /// in their smallest kind, cookie 12347 when one is a run), and the `u32` big-endian
    /// CRC-32 (zlib's polynomial) of magic and bitmap. The bytes equal what Iceberg Java,
    /// Delta Spark, Databricks and pyroaring write for the same positions. Returns the
    /// frame's range in `out`: for Delta, `offset` is its start and `sizeInBytes` its
    /// length minus 8; for Puffin, it is the blob. With buffers reused, nothing is
    /// allocated.
    ///
    /// # Errors
    ///
    /// `NotAscending` for positions out of order, `Malformed` for a position at or above
    /// 2^63; `out` is then unchanged.
    ///
    /// ```
    /// use frozen_roaring::{DeletionVector, Writer};
    /// let mut out = Vec::new();
    /// let frame = Writer::new().write_deletion_vector([1, 3, 5, 7, 9], &mut out)?;
    /// assert_eq!(&out[frame.start + 4..frame.start + 8], &[0xD1, 0xD3, 0x39, 0x64]);
    /// assert_eq!(DeletionVector::from_bytes_strict(&out[frame])?.len(), 5);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn write_deletion_vector(
        &mut self,
        positions: impl IntoIterator<Item = u64>,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error> {
        let start = out.len();
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&DV_MAGIC);
        let mut high = false;
        let checked = positions
            .into_iter()
            .inspect(|&p| high |= p >= POSITION_LIMIT);
        if let Err(e) = self.write_portable_sorted64(checked, out) {
            out.truncate(start);
            return Err(e);
        }
        if high {
            out.truncate(start);
            return Err(Error::malformed(
                "deletion-vector position (positions must be below 2^63)",
                0,
            ));
        }
        let size = out.len() - start - 4;
        let Ok(size32) = u32::try_from(size) else {
            out.truncate(start);
            return Err(Error::malformed(
                "deletion-vector length (the bitmap passes 4 GiB)",
                0,
            ));
        };
        out[start..start + 4].copy_from_slice(&size32.to_be_bytes());
        let crc = crate::checksum::crc32_zlib(&out[start + 4..]);
        out.extend_from_slice(&crc.to_be_bytes());
        Ok(start..out.len())
    }
}
