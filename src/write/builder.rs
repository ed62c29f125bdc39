//! [`Builder`]: a push-style writer of one bitmap.

use alloc::vec::Vec;
use core::ops::Range;

use super::Writer;
use crate::error::Error;

/// A push-style bitmap builder from [`Writer::builder`].
pub struct Builder<'w> {
    pub(super) writer: &'w mut Writer,
}

impl core::fmt::Debug for Builder<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Builder")
            .field("len", &self.len())
            .finish_non_exhaustive()
    }
}

impl Builder<'_> {
    /// Adds the next value.
    ///
    /// # Errors
    ///
    /// `NotAscending` if `value` is not greater than the previous value; the value is then
    /// ignored and the builder stays usable.
    #[inline]
    pub fn push(&mut self, value: u32) -> Result<(), Error> {
        self.writer.ops.enc.push(value)
    }

    /// Adds every value of `values`, stopping at the first that is out of order.
    ///
    /// # Errors
    ///
    /// As [`push`](Self::push).
    pub fn extend<I: IntoIterator<Item = u32>>(&mut self, values: I) -> Result<(), Error> {
        self.writer.ops.enc.extend(values)
    }

    /// Adds every value of `range` (all greater than the previous value): whole words of
    /// bits at a time, so a long run costs no work per value.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// let mut writer = Writer::new();
    /// let mut b = writer.builder();
    /// b.push(3)?;
    /// b.push_range(10..=u32::MAX)?;
    /// let mut out = Vec::new();
    /// let r = b.finish(&mut out);
    /// assert_eq!(FrozenBitmap::from_bytes(&out[r])?.len(), 1 + u64::from(u32::MAX - 9));
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// `NotAscending` if the range is empty or does not start above the previous value; the
    /// builder then stays as it was.
    pub fn push_range(&mut self, range: core::ops::RangeInclusive<u32>) -> Result<(), Error> {
        self.writer
            .ops
            .enc
            .extend_range(*range.start(), *range.end())
    }

    /// The number of values pushed so far.
    pub fn len(&self) -> u64 {
        self.writer.ops.enc.count()
    }

    /// Whether no value was pushed yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends the bitmap to `out` (padded as in [`Writer::write_sorted`]) and returns its
    /// byte range.
    pub fn finish(self, out: &mut Vec<u8>) -> Range<usize> {
        self.writer.ops.enc.close();
        self.writer.ops.enc.finish_vec(out)
    }

    /// Writes the bitmap into the start of `buf` and returns its length.
    ///
    /// # Errors
    ///
    /// `BufferTooSmall` if `buf` is too short; nothing is written then.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// let mut writer = Writer::new();
    /// let mut builder = writer.builder();
    /// builder.extend([2, 4, 8])?;
    /// assert_eq!((builder.len(), builder.is_empty()), (3, false));
    /// let mut buf = [0u8; 64];
    /// let n = builder.finish_to_slice(&mut buf)?;
    /// assert_eq!(FrozenBitmap::from_bytes(&buf[..n])?.to_vec(), [2, 4, 8]);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn finish_to_slice(self, buf: &mut [u8]) -> Result<usize, Error> {
        self.writer.ops.enc.close();
        self.writer.ops.enc.finish_slice(buf)
    }
}
