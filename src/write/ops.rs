//! The `Writer`'s set operations: results of ∩ ∪ − ⊕ between views, pairwise and many-way,
//! written in the frozen format into a caller's buffer. The algebra itself lives in
//! [`crate::algebra`]; these methods are its public surface, on the writer that owns the
//! reusable scratch.

use alloc::vec::Vec;
use core::borrow::Borrow;
use core::ops::Range;

use super::Writer;
use crate::algebra::{Many, Op};
use crate::error::Error;
use crate::view::FrozenBitmap;

impl Writer {
    /// Writes `a ∩ b` (either may be frozen or portable) in the frozen format, appending to
    /// `out` as [`write_sorted`](Self::write_sorted) does; returns the range of `out` that
    /// holds it. Containers are combined straight from the bytes by kernels for every pair
    /// of kinds; the result's containers are canonical, so the bytes equal those of
    /// `write_sorted` over the result's values (unless this writer was made
    /// [`with_canonical(false)`](Self::with_canonical), which keeps each container as its
    /// kernel computed it). No allocation per call in steady state.
    /// When `out`'s length is a multiple of 64 (an empty or cleared buffer), the union,
    /// difference and symmetric difference are laid out in place in `out`, with no copy
    /// at the end; otherwise, and for intersections (small results), the result is
    /// encoded in the writer's scratch and copied once.
    ///
    /// # Errors
    ///
    /// None today (the inputs are views); the `Result` leaves room for output limits.
    ///
    /// ```
    /// use frozen_roaring::{FrozenBitmap, Writer};
    /// let mut w = Writer::new();
    /// let (mut a, mut b, mut out) = (Vec::new(), Vec::new(), Vec::new());
    /// w.write_sorted((0..1_000_000).step_by(3), &mut a)?;
    /// w.write_sorted((0..1_000_000).step_by(5), &mut b)?;
    /// let (a, b) = (FrozenBitmap::from_bytes(&a)?, FrozenBitmap::from_bytes(&b)?);
    /// let r = w.intersection_into(&a, &b, &mut out)?;
    /// let both = FrozenBitmap::from_bytes(&out[r])?;
    /// assert_eq!(both.len(), a.intersection_len(&b));
    /// assert!(both.iter().all(|v| v % 15 == 0));
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn intersection_into(
        &mut self,
        a: &FrozenBitmap<'_>,
        b: &FrozenBitmap<'_>,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error> {
        self.ops.binary_into(Op::And, a, b, out)
    }

    /// Writes `a ∪ b`; see [`intersection_into`](Self::intersection_into).
    ///
    /// # Errors
    ///
    /// None today (the inputs are views).
    pub fn union_into(
        &mut self,
        a: &FrozenBitmap<'_>,
        b: &FrozenBitmap<'_>,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error> {
        self.ops.binary_into(Op::Or, a, b, out)
    }

    /// Writes `a − b` (the values of `a` not in `b`); see
    /// [`intersection_into`](Self::intersection_into).
    ///
    /// # Errors
    ///
    /// None today (the inputs are views).
    pub fn difference_into(
        &mut self,
        a: &FrozenBitmap<'_>,
        b: &FrozenBitmap<'_>,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error> {
        self.ops.binary_into(Op::AndNot, a, b, out)
    }

    /// Writes `a ⊕ b` (the values in exactly one); see
    /// [`intersection_into`](Self::intersection_into).
    ///
    /// # Errors
    ///
    /// None today (the inputs are views).
    pub fn symmetric_difference_into(
        &mut self,
        a: &FrozenBitmap<'_>,
        b: &FrozenBitmap<'_>,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error> {
        self.ops.binary_into(Op::Xor, a, b, out)
    }

    /// Writes the union of any number of bitmaps (a slice of views, or any iterator of
    /// views or references to views), appending to `out` in the frozen format. Containers
    /// present in one input are re-encoded as they are; in two, combined by the pairwise
    /// kernels; in more, accumulated in a bitset and counted once at the end. When the
    /// inputs' keys are close together, their containers are first grouped by key with a
    /// counting sort, reading each input's directory once, in order (at most 65,536
    /// containers at a time, or one key's if more inputs hold it: 32 bytes each, plus 4
    /// bytes per key of the span, in the writer's scratch); when they
    /// are spread out, the next key comes from a heap of the inputs' next keys. No
    /// allocation per call in steady state.
    ///
    /// # Errors
    ///
    /// None today (the inputs are views).
    ///
    /// ```
    /// use frozen_roaring::{FrozenBitmap, Writer};
    /// let mut w = Writer::new();
    /// let mut bufs = vec![Vec::new(); 3];
    /// for (k, buf) in bufs.iter_mut().enumerate() {
    ///     w.write_sorted((k as u32..300).step_by(3), buf)?;
    /// }
    /// let views: Vec<FrozenBitmap> =
    ///     bufs.iter().map(|b| FrozenBitmap::from_bytes(b)).collect::<Result<_, _>>()?;
    /// let mut out = Vec::new();
    /// let r = w.union_many_into(&views, &mut out)?;
    /// assert_eq!(FrozenBitmap::from_bytes(&out[r])?.len(), 300);
    /// assert_eq!(w.union_many_len(views.iter()), 300);
    /// assert_eq!(w.intersection_many_len(&views), 0);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn union_many_into<'a, I>(
        &mut self,
        bitmaps: I,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error>
    where
        I: IntoIterator,
        I::Item: Borrow<FrozenBitmap<'a>>,
    {
        self.ops.many_into(bitmaps, Many::Or, out)
    }

    /// The number of values in the union of the bitmaps, without writing it.
    pub fn union_many_len<'a, I>(&mut self, bitmaps: I) -> u64
    where
        I: IntoIterator,
        I::Item: Borrow<FrozenBitmap<'a>>,
    {
        self.ops.many_of(bitmaps, false, Many::Or)
    }

    /// Writes the intersection of any number of bitmaps, appending to `out` in the frozen
    /// format: the inputs are taken smallest first, each key of the smallest is looked up
    /// in the others, and the work stops as soon as the result is empty. The intersection
    /// of no bitmap is empty. No allocation per call in steady state.
    ///
    /// # Errors
    ///
    /// None today (the inputs are views).
    pub fn intersection_many_into<'a, I>(
        &mut self,
        bitmaps: I,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error>
    where
        I: IntoIterator,
        I::Item: Borrow<FrozenBitmap<'a>>,
    {
        self.ops.many_into(bitmaps, Many::And, out)
    }

    /// The number of values in the intersection of the bitmaps, without writing it.
    pub fn intersection_many_len<'a, I>(&mut self, bitmaps: I) -> u64
    where
        I: IntoIterator,
        I::Item: Borrow<FrozenBitmap<'a>>,
    {
        self.ops.many_of(bitmaps, false, Many::And)
    }

    /// Writes the symmetric difference of any number of bitmaps — the values in an odd
    /// number of them (CRoaring's `fast_xor`, roaring-rs's `MultiOps::symmetric_difference`)
    /// — appending to `out` in the frozen format. Each key's containers are combined at
    /// once (into a bitset when there are more than two), not bitmap after bitmap. The
    /// symmetric difference of no bitmap is empty. No allocation per call in steady state.
    ///
    /// # Errors
    ///
    /// None today (the inputs are views).
    ///
    /// ```
    /// use frozen_roaring::{FrozenBitmap, Writer};
    /// let mut w = Writer::new();
    /// let (mut a, mut b, mut c, mut out) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    /// w.write_sorted([1, 2, 3], &mut a)?;
    /// w.write_sorted([2, 3, 4], &mut b)?;
    /// w.write_sorted([3, 4, 5], &mut c)?;
    /// let views = [&a, &b, &c].map(|x| FrozenBitmap::from_bytes(x).unwrap());
    /// let r = w.symmetric_difference_many_into(&views, &mut out)?;
    /// assert_eq!(FrozenBitmap::from_bytes(&out[r])?.to_vec(), [1, 3, 5]);
    /// assert_eq!(w.symmetric_difference_many_len(views.iter()), 3);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn symmetric_difference_many_into<'a, I>(
        &mut self,
        bitmaps: I,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error>
    where
        I: IntoIterator,
        I::Item: Borrow<FrozenBitmap<'a>>,
    {
        self.ops.many_into(bitmaps, Many::Xor, out)
    }

    /// The number of values in an odd number of the bitmaps (their symmetric difference),
    /// without writing it.
    pub fn symmetric_difference_many_len<'a, I>(&mut self, bitmaps: I) -> u64
    where
        I: IntoIterator,
        I::Item: Borrow<FrozenBitmap<'a>>,
    {
        self.ops.many_of(bitmaps, false, Many::Xor)
    }

    /// Writes the values of the first bitmap that are in none of the others (roaring-rs's
    /// `MultiOps::difference`: the first minus the rest), appending to `out` in the frozen
    /// format. For each key of the first bitmap, the others' containers of that key are
    /// looked up and, when there are several, taken away in turn from the first one's
    /// container as a bitset, stopping once nothing is left. Empty for no bitmap; the
    /// first bitmap itself for one. No allocation per call in steady state.
    ///
    /// When the first bitmap has at most one container (a small candidate set minus many
    /// exclusion lists), the others are read as the iterator yields them, none after the
    /// first one's container is emptied (none at all for an empty first bitmap), and
    /// they are not collected: an iterator that opens views lazily opens no more than
    /// it must.
    ///
    /// # Errors
    ///
    /// None today (the inputs are views).
    ///
    /// ```
    /// use frozen_roaring::{FrozenBitmap, Writer};
    /// let mut w = Writer::new();
    /// let (mut a, mut b, mut c, mut out) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    /// w.write_sorted([1, 2, 3, 4, 70_000], &mut a)?;
    /// w.write_sorted([2, 70_000], &mut b)?;
    /// w.write_sorted([4, 5], &mut c)?;
    /// let views = [&a, &b, &c].map(|x| FrozenBitmap::from_bytes(x).unwrap());
    /// let r = w.difference_many_into(&views, &mut out)?;
    /// assert_eq!(FrozenBitmap::from_bytes(&out[r])?.to_vec(), [1, 3]);
    /// assert_eq!(w.difference_many_len(views.iter()), 2);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn difference_many_into<'a, I>(
        &mut self,
        bitmaps: I,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error>
    where
        I: IntoIterator,
        I::Item: Borrow<FrozenBitmap<'a>>,
    {
        self.ops.many_into(bitmaps, Many::AndNot, out)
    }

    /// The number of values of the first bitmap that are in none of the others, without
    /// writing them.
    pub fn difference_many_len<'a, I>(&mut self, bitmaps: I) -> u64
    where
        I: IntoIterator,
        I::Item: Borrow<FrozenBitmap<'a>>,
    {
        self.ops.many_of(bitmaps, false, Many::AndNot)
    }

    /// `a op b` written as [`intersection_into`](Self::intersection_into) does, for an
    /// operation chosen at run time.
    pub(crate) fn binary_into(
        &mut self,
        op: Op,
        a: &FrozenBitmap<'_>,
        b: &FrozenBitmap<'_>,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error> {
        self.ops.binary_into(op, a, b, out)
    }
}
