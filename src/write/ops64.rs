//! The `Writer`'s 64-bit set operations: each bucket pair combined by the 32-bit algebra,
//! the results laid out as a 64-bit frozen bitmap, into a caller's buffer. Inputs may be in
//! either 64-bit format (deletion vectors are portable); no second copy of container code.

use alloc::vec::Vec;
use core::borrow::Borrow;
use core::ops::Range;

use super::Writer;
use super::wide::emit_frozen64;
use crate::algebra::{Many, Op, recycle};
use crate::error::Error;
use crate::view::{FrozenBitmap, open};
use crate::view64::{Buckets, FrozenBitmap64};

impl Writer {
    /// Writes `a ∩ b` of two 64-bit bitmaps (either format) as a 64-bit frozen bitmap,
    /// appending to `out`; returns its range. Buckets are combined by the 32-bit kernels
    /// (see [`intersection_into`](Self::intersection_into)); with buffers reused, nothing
    /// is allocated.
    ///
    /// # Errors
    ///
    /// None today (the inputs are views).
    ///
    /// ```
    /// use frozen_roaring::{FrozenBitmap64, Writer};
    /// let mut w = Writer::new();
    /// let (mut a, mut b, mut out) = (Vec::new(), Vec::new(), Vec::new());
    /// w.write_portable_sorted64([1, 5, 1 << 40], &mut a)?;
    /// w.write_sorted64([5, 6, 1 << 40], &mut b)?;
    /// let (a, b) = (FrozenBitmap64::from_bytes(&a)?, FrozenBitmap64::from_bytes(&b)?);
    /// let r = w.intersection64_into(&a, &b, &mut out)?;
    /// assert_eq!(FrozenBitmap64::from_bytes(&out[r])?.to_vec(), [5, 1 << 40]);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn intersection64_into(
        &mut self,
        a: &FrozenBitmap64<'_>,
        b: &FrozenBitmap64<'_>,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error> {
        self.binary64_into(Op::And, a, b, out)
    }

    /// Writes `a ∪ b`; see [`intersection64_into`](Self::intersection64_into).
    ///
    /// # Errors
    ///
    /// None today (the inputs are views).
    pub fn union64_into(
        &mut self,
        a: &FrozenBitmap64<'_>,
        b: &FrozenBitmap64<'_>,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error> {
        self.binary64_into(Op::Or, a, b, out)
    }

    /// Writes `a − b`; see [`intersection64_into`](Self::intersection64_into).
    ///
    /// # Errors
    ///
    /// None today (the inputs are views).
    pub fn difference64_into(
        &mut self,
        a: &FrozenBitmap64<'_>,
        b: &FrozenBitmap64<'_>,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error> {
        self.binary64_into(Op::AndNot, a, b, out)
    }

    /// Writes `a ⊕ b`; see [`intersection64_into`](Self::intersection64_into).
    ///
    /// # Errors
    ///
    /// None today (the inputs are views).
    pub fn symmetric_difference64_into(
        &mut self,
        a: &FrozenBitmap64<'_>,
        b: &FrozenBitmap64<'_>,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error> {
        self.binary64_into(Op::Xor, a, b, out)
    }

    /// Writes the union of any number of 64-bit bitmaps (for example the deletion vectors
    /// of several snapshots of one data file) as a 64-bit frozen bitmap: per key, the
    /// buckets that hold it are combined by the 32-bit many-way union. With buffers
    /// reused, nothing is allocated.
    ///
    /// # Errors
    ///
    /// None today (the inputs are views).
    ///
    /// ```
    /// use frozen_roaring::{FrozenBitmap64, Writer};
    /// let mut w = Writer::new();
    /// let mut bufs = vec![Vec::new(); 3];
    /// for (k, buf) in bufs.iter_mut().enumerate() {
    ///     w.write_portable_sorted64([k as u64, 1 << 33], buf)?;
    /// }
    /// let views: Vec<FrozenBitmap64> =
    ///     bufs.iter().map(|b| FrozenBitmap64::from_bytes(b)).collect::<Result<_, _>>()?;
    /// let mut out = Vec::new();
    /// let r = w.union64_many_into(&views, &mut out)?;
    /// assert_eq!(FrozenBitmap64::from_bytes(&out[r])?.to_vec(), [0, 1, 2, 1 << 33]);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn union64_many_into<'a, I>(
        &mut self,
        bitmaps: I,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error>
    where
        I: IntoIterator,
        I::Item: Borrow<FrozenBitmap64<'a>>,
    {
        let mut heads: Vec<(Option<(u32, FrozenBitmap<'a>)>, Buckets<'a>)> =
            recycle(core::mem::take(&mut self.heads64));
        let mut group: Vec<FrozenBitmap<'a>> = recycle(core::mem::take(&mut self.group64));
        for b in bitmaps {
            let mut it = b.borrow().buckets();
            heads.push((it.next(), it));
        }
        let r = self.staged64(out, |w, stage| {
            let Some(key) = heads.iter().filter_map(|h| h.0.map(|(k, _)| k)).min() else {
                return Ok(None);
            };
            group.clear();
            for (head, it) in heads.iter_mut() {
                if let Some((k, b)) = *head
                    && k == key
                {
                    group.push(b);
                    *head = it.next();
                }
            }
            let r = match group.as_slice() {
                [one] => w.write_frozen(one, stage)?,
                _ => w.ops.many_into(group.iter(), Many::Or, stage)?,
            };
            Ok(Some((key, r)))
        });
        self.heads64 = recycle(heads);
        self.group64 = recycle(group);
        r
    }

    fn binary64_into(
        &mut self,
        op: Op,
        a: &FrozenBitmap64<'_>,
        b: &FrozenBitmap64<'_>,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error> {
        let (mut ia, mut ib) = (a.buckets(), b.buckets());
        let (mut ha, mut hb) = (ia.next(), ib.next());
        let keep_a = op != Op::And;
        let keep_b = matches!(op, Op::Or | Op::Xor);
        self.staged64(out, |w, stage| {
            loop {
                let (key, r) = match (ha, hb) {
                    (Some((ka, x)), Some((kb, y))) if ka == kb => {
                        (ha, hb) = (ia.next(), ib.next());
                        (ka, w.ops.binary_into(op, &x, &y, stage)?)
                    }
                    (Some((ka, x)), hb_) if hb_.is_none_or(|(kb, _)| ka < kb) => {
                        ha = ia.next();
                        if !keep_a {
                            if hb_.is_none() {
                                return Ok(None);
                            }
                            continue;
                        }
                        (ka, w.write_frozen(&x, stage)?)
                    }
                    (_, Some((kb, y))) => {
                        hb = ib.next();
                        if !keep_b {
                            if ha.is_none() {
                                return Ok(None);
                            }
                            continue;
                        }
                        (kb, w.write_frozen(&y, stage)?)
                    }
                    _ => return Ok(None),
                };
                return Ok(Some((key, r)));
            }
        })
    }

    /// Writes a 64-bit frozen bitmap whose buckets `next` writes one by one as 32-bit
    /// frozen bitmaps (without checksum) at the end of the staging buffer, returning each
    /// one's key and range (`None` at the end); empty buckets are dropped.
    pub(super) fn staged64(
        &mut self,
        out: &mut Vec<u8>,
        mut next: impl FnMut(&mut Writer, &mut Vec<u8>) -> Result<Option<(u32, Range<usize>)>, Error>,
    ) -> Result<Range<usize>, Error> {
        let checksum = core::mem::replace(&mut self.ops.enc.checksum, false);
        let mut stage = core::mem::take(&mut self.stage64);
        let mut dir = core::mem::take(&mut self.dir64);
        stage.clear();
        dir.clear();
        let (mut len, mut has_bitset) = (0u64, false);
        let result = loop {
            let before = stage.len();
            match next(self, &mut stage) {
                Ok(Some((key, r))) => {
                    let n = open::unchecked(&stage[r.clone()]).len();
                    if n == 0 {
                        stage.truncate(before);
                        continue;
                    }
                    has_bitset |= self.ops.enc.last_bitset;
                    dir.push((key, r.start as u64, len));
                    len += n;
                }
                Ok(None) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        self.ops.enc.checksum = checksum;
        let result = result.map(|()| emit_frozen64(&dir, &stage, has_bitset, checksum, out));
        self.stage64 = stage;
        self.dir64 = dir;
        result
    }
}
