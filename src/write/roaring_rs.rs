//! Writing from roaring-rs bitmaps (feature `roaring`): straight from the bitmap's
//! containers, range by range, with no portable round trip. A run or a full container costs
//! one range (a word fill), not one step per value.

use alloc::vec::Vec;
use core::ops::Range;

use roaring::{RoaringBitmap, RoaringTreemap};

use super::{Writer, portable};
use crate::encode::Encoder;
use crate::encode::layout::Encoded;

/// Encodes `bitmap` into `enc` (closed) from its ranges of consecutive values.
fn encode(enc: &mut Encoder, bitmap: &RoaringBitmap) {
    enc.reset();
    let mut it = bitmap.iter();
    while let Some(r) = it.next_range() {
        // Ranges come out ascending and disjoint, so this cannot fail.
        let _ = enc.extend_range(*r.start(), *r.end());
    }
    enc.close();
}

impl Writer {
    /// Writes a roaring-rs bitmap in the frozen format (as
    /// [`write_sorted`](Self::write_sorted) would for its values), appending to `out`.
    /// Containers are read range by range: no per-value work for runs and full containers.
    ///
    /// ```
    /// use frozen_roaring::{FrozenBitmap, Writer};
    /// use roaring::RoaringBitmap;
    /// let rb: RoaringBitmap = (0..100_000).chain([1 << 30]).collect();
    /// let mut out = Vec::new();
    /// let range = Writer::new().write_roaring(&rb, &mut out);
    /// let view = FrozenBitmap::from_bytes(&out[range])?;
    /// assert_eq!(view.to_roaring(), rb);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn write_roaring(&mut self, bitmap: &RoaringBitmap, out: &mut Vec<u8>) -> Range<usize> {
        encode(&mut self.ops.enc, bitmap);
        self.ops.enc.finish_vec(out)
    }

    /// Writes a roaring-rs bitmap in the portable format, byte-identical to
    /// [`write_portable_sorted`](Self::write_portable_sorted) for its values (and so to
    /// CRoaring after `run_optimize`; roaring-rs's own `serialize_into` does not pick run
    /// containers unless `optimize` was called).
    pub fn write_portable_roaring(
        &mut self,
        bitmap: &RoaringBitmap,
        out: &mut Vec<u8>,
    ) -> Range<usize> {
        encode(&mut self.ops.enc, bitmap);
        let src = Encoded(&self.ops.enc);
        let start = out.len();
        out.reserve(portable::size(&src));
        portable::emit(&src, out);
        start..out.len()
    }

    /// Writes a roaring-rs treemap in the 64-bit frozen format (as
    /// [`write_sorted64`](Self::write_sorted64) would), appending to `out`.
    ///
    /// ```
    /// use frozen_roaring::{FrozenBitmap64, Writer};
    /// use roaring::RoaringTreemap;
    /// let tm: RoaringTreemap = [1u64, 2, 1 << 40].into_iter().collect();
    /// let mut out = Vec::new();
    /// let range = Writer::new().write_treemap(&tm, &mut out);
    /// assert_eq!(FrozenBitmap64::from_bytes(&out[range])?.to_treemap(), tm);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn write_treemap(&mut self, treemap: &RoaringTreemap, out: &mut Vec<u8>) -> Range<usize> {
        let mut buckets = treemap.bitmaps().filter(|(_, b)| !b.is_empty());
        let result = self.frozen64_from(out, |enc| {
            Ok(buckets.next().map(|(key, b)| {
                encode(enc, b);
                key
            }))
        });
        // The bucket source never fails.
        let end = out.len();
        result.unwrap_or(end..end)
    }

    /// Writes a roaring-rs treemap in the 64-bit portable format (as
    /// [`write_portable_sorted64`](Self::write_portable_sorted64) would).
    pub fn write_portable_treemap(
        &mut self,
        treemap: &RoaringTreemap,
        out: &mut Vec<u8>,
    ) -> Range<usize> {
        let mut buckets = treemap.bitmaps().filter(|(_, b)| !b.is_empty());
        let result = self.portable64_from(out, |enc| {
            Ok(buckets.next().map(|(key, b)| {
                encode(enc, b);
                key
            }))
        });
        // The bucket source never fails.
        let end = out.len();
        result.unwrap_or(end..end)
    }
}
