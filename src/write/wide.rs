//! 64-bit writers: strictly ascending `u64` values grouped by their high 32 bits, each group
//! encoded as a 32-bit bitmap with the writer's reusable encoder.

use alloc::vec::Vec;
use core::ops::Range;

use super::{Writer, portable};
use crate::checksum::crc32c;
use crate::encode::Encoder;
use crate::encode::layout::{Encoded, pad};
use crate::error::Error;
use crate::format::*;
use crate::view64::{MAGIC64, buckets64_at, offsets64_at};

/// Splits ascending `u64` values into groups of equal high 32 bits, checking the order.
pub(super) struct Groups<I> {
    it: I,
    pending: Option<u64>,
    prev: Option<u64>,
    count: u64,
    pub(super) err: Option<Error>,
}

impl<I: Iterator<Item = u64>> Groups<I> {
    pub(super) fn new(it: I) -> Groups<I> {
        Groups {
            it,
            pending: None,
            prev: None,
            count: 0,
            err: None,
        }
    }

    /// The high bits of the next group, if any value is left and no error occurred.
    pub(super) fn next_group(&mut self) -> Option<u32> {
        if self.err.is_some() {
            return None;
        }
        let v = self.pending.take().or_else(|| self.it.next())?;
        self.pending = Some(v);
        Some((v >> 32) as u32)
    }

    /// The low bits of the values of group `hi`, stopping before the next group or at the
    /// first value out of order (recorded in `err`).
    pub(super) fn lows(&mut self, hi: u32) -> impl Iterator<Item = u32> + '_ {
        core::iter::from_fn(move || {
            let v = self.pending.take().or_else(|| self.it.next())?;
            if let Some(p) = self.prev
                && v <= p
            {
                self.err = Some(Error::not_ascending64(self.count, p, v));
                return None;
            }
            if (v >> 32) as u32 != hi {
                self.pending = Some(v);
                return None;
            }
            self.prev = Some(v);
            self.count += 1;
            Some(v as u32)
        })
    }
}

impl<I: Iterator<Item = u64>> Groups<I> {
    /// Encodes the next group into `enc` (closed) and returns its key.
    fn encode_next(&mut self, enc: &mut Encoder) -> Result<Option<u32>, Error> {
        let Some(hi) = self.next_group() else {
            return self.err.take().map_or(Ok(None), Err);
        };
        enc.reset();
        // Values within a group are ascending (checked by `lows`), so this cannot fail.
        let _ = enc.extend(self.lows(hi));
        if let Some(e) = self.err.take() {
            return Err(e);
        }
        enc.close();
        Ok(Some(hi))
    }
}

/// Appends a 64-bit frozen bitmap: header, directory of `dir` (key, offset in `stage`,
/// cumulative count), then the buckets staged in `stage`.
pub(super) fn emit_frozen64(
    dir: &[(u32, u64, u64)],
    stage: &[u8],
    has_bitset: bool,
    checksum: bool,
    out: &mut Vec<u8>,
) -> Range<usize> {
    let n = dir.len();
    // Buckets start 64-aligned so that their own alignment carries over.
    let base = if n == 0 {
        buckets64_at(0)
    } else {
        align_up(buckets64_at(n), BITSET_ALIGN)
    };
    let total = base + stage.len() + if checksum { TRAILER_LEN } else { 0 };
    let start = pad(out, has_bitset);
    out.reserve(total);
    out.extend_from_slice(&MAGIC64);
    out.extend_from_slice(&[VERSION, if checksum { FLAG_CRC } else { 0 }, 0, 0]);
    out.extend_from_slice(&(n as u32).to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(total as u64).to_le_bytes());
    for &(key, _, _) in dir {
        out.extend_from_slice(&key.to_le_bytes());
    }
    out.resize(start + offsets64_at(n), 0);
    for &(_, off, _) in dir {
        out.extend_from_slice(&(base as u64 + off).to_le_bytes());
    }
    for &(_, _, cum) in dir {
        out.extend_from_slice(&cum.to_le_bytes());
    }
    out.resize(start + base, 0);
    crate::cast::extend_bytes(out, stage);
    if checksum {
        let crc = crc32c(&out[start..]);
        out.extend_from_slice(&crc.to_le_bytes());
    }
    debug_assert_eq!(out.len(), start + total);
    start..out.len()
}

impl Writer {
    /// Writes strictly ascending `u64` values in the 64-bit frozen format
    /// (`format-spec/FORMAT64.md`), appending to `out` (padded like
    /// [`write_sorted`](Self::write_sorted)); returns the range of `out` that holds it. Read
    /// it with [`FrozenBitmap64`](crate::FrozenBitmap64). With buffers reused, this
    /// allocates nothing.
    ///
    /// # Errors
    ///
    /// `NotAscending` with the position of the first value out of order; `out` is then
    /// unchanged.
    ///
    /// ```
    /// use frozen_roaring::{Format, FrozenBitmap64, Writer};
    /// let mut out = Vec::new();
    /// let range = Writer::new().write_sorted64([3, 1 << 33, u64::MAX], &mut out)?;
    /// let bitmap = FrozenBitmap64::from_bytes(&out[range])?;
    /// assert_eq!((bitmap.format(), bitmap.bucket_count()), (Format::Frozen, 3));
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn write_sorted64<I: IntoIterator<Item = u64>>(
        &mut self,
        values: I,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error> {
        let mut groups = Groups::new(values.into_iter());
        self.frozen64_from(out, |enc| groups.encode_next(enc))
    }

    /// Writes strictly ascending `u64` values in the 64-bit portable format (what CRoaring
    /// `roaring64_bitmap_portable_serialize`, roaring-rs `RoaringTreemap::serialize_into`,
    /// Go and Java write; the format of Iceberg and Delta Lake deletion vectors), appending
    /// to `out`. Each bucket is byte-identical to CRoaring's 32-bit portable output after
    /// `run_optimize`. With buffers reused, this allocates nothing.
    ///
    /// # Errors
    ///
    /// `NotAscending` with the position of the first value out of order; `out` is then
    /// unchanged.
    ///
    /// ```
    /// use frozen_roaring::{Format, FrozenBitmap64, Writer};
    /// let mut out = Vec::new();
    /// Writer::new().write_portable_sorted64([3, 1 << 33], &mut out)?;
    /// assert_eq!(&out[..8], &2u64.to_le_bytes()); // two buckets
    /// assert_eq!(FrozenBitmap64::from_bytes(&out)?.format(), Format::Portable);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn write_portable_sorted64<I: IntoIterator<Item = u64>>(
        &mut self,
        values: I,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error> {
        let mut groups = Groups::new(values.into_iter());
        self.portable64_from(out, |enc| groups.encode_next(enc))
    }

    /// Writes a 64-bit frozen bitmap whose buckets `next` encodes one by one into the
    /// encoder (closed), returning each bucket's key, `None` at the end.
    pub(super) fn frozen64_from(
        &mut self,
        out: &mut Vec<u8>,
        mut next: impl FnMut(&mut Encoder) -> Result<Option<u32>, Error>,
    ) -> Result<Range<usize>, Error> {
        self.staged64(out, |w, stage| {
            Ok(match next(&mut w.ops.enc)? {
                Some(key) => Some((key, w.ops.enc.finish_vec(stage))),
                None => None,
            })
        })
    }

    /// Writes a 64-bit portable bitmap whose buckets `next` encodes one by one.
    pub(super) fn portable64_from(
        &mut self,
        out: &mut Vec<u8>,
        mut next: impl FnMut(&mut Encoder) -> Result<Option<u32>, Error>,
    ) -> Result<Range<usize>, Error> {
        let start = out.len();
        out.extend_from_slice(&[0; 8]);
        let mut n = 0u64;
        loop {
            match next(&mut self.ops.enc) {
                Ok(Some(key)) => {
                    out.extend_from_slice(&key.to_le_bytes());
                    let src = Encoded(&self.ops.enc);
                    out.reserve(portable::size(&src));
                    portable::emit(&src, out);
                    n += 1;
                }
                Ok(None) => break,
                Err(e) => {
                    out.truncate(start);
                    return Err(e);
                }
            }
        }
        out[start..start + 8].copy_from_slice(&n.to_le_bytes());
        Ok(start..out.len())
    }
}
