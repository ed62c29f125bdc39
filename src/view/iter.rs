//! Iteration over a view's values.

use super::dir::Directory;
use crate::container::iter::ContainerIter;

/// An iterator over a bitmap's values in ascending order, from [`FrozenBitmap::iter`].
///
/// Besides [`Iterator`] and [`DoubleEndedIterator`] it offers [`advance_to`](Iter::advance_to)
/// and [`advance_back_to`](Iter::advance_back_to) to skip ahead, and a batch
/// [`next_many`](Iter::next_many) that fills a buffer container by container.
///
/// [`FrozenBitmap::iter`]: crate::FrozenBitmap::iter
#[derive(Clone, Debug)]
pub struct Iter<'a> {
    dir: Directory<'a>,
    /// Next container index to open at the front.
    next_front: usize,
    /// One past the next container index to open at the back.
    next_back: usize,
    front: Option<(u32, ContainerIter<'a>)>,
    back: Option<(u32, ContainerIter<'a>)>,
}

impl<'a> Iter<'a> {
    pub(crate) fn new(dir: Directory<'a>) -> Iter<'a> {
        Iter {
            dir,
            next_front: 0,
            next_back: dir.n(),
            front: None,
            back: None,
        }
    }

    /// The values of `dir` in `lo ..= hi`, none for `None` (from [`FrozenBitmap::range`]).
    /// The iterator is built whole at the end from the containers at the two ends, cut to
    /// the range: advanced in place and then moved (into `fold`, `collect`), it was read
    /// back wider than written, a stall a third of a short range's cost.
    ///
    /// [`FrozenBitmap::range`]: crate::FrozenBitmap::range
    #[inline]
    pub(crate) fn within(dir: Directory<'a>, range: Option<(u32, u32)>) -> Iter<'a> {
        let Some((lo, hi)) = range else {
            return Iter {
                next_back: 0,
                ..Iter::new(dir)
            };
        };
        let (klo, khi) = ((lo >> 16) as u16, (hi >> 16) as u16);
        let n = dir.n();
        // Containers `first..end` hold keys `klo..=khi`.
        let first = dir.lower_bound(klo, 0, n);
        let end = match khi.checked_add(1) {
            Some(k) => dir.lower_bound(k, first, n),
            None => n,
        };
        let (mut next_front, mut next_back) = (first, end);
        let front = (first < end && dir.key(first) == klo).then(|| {
            next_front += 1;
            let to = if klo == khi { hi as u16 } else { u16::MAX };
            Self::cut(&dir, first, lo as u16, to)
        });
        let back = (next_front < next_back && dir.key(next_back - 1) == khi).then(|| {
            next_back -= 1;
            Self::cut(&dir, next_back, 0, hi as u16)
        });
        Iter {
            dir,
            next_front,
            next_back,
            front,
            back,
        }
    }

    /// Container `i` of `dir` opened and cut to `from ..= to`, for [`within`](Self::within).
    #[inline(always)]
    fn cut(dir: &Directory<'a>, i: usize, from: u16, to: u16) -> (u32, ContainerIter<'a>) {
        let (high, mut it) = Self::opened(dir, i);
        if from != 0 {
            it.advance_to(from);
        }
        if to != u16::MAX {
            it.advance_back_to(to);
        }
        (high, it)
    }

    /// Container `i` of `dir` opened whole, with its values' high half.
    #[inline(always)]
    fn opened(dir: &Directory<'a>, i: usize) -> (u32, ContainerIter<'a>) {
        (
            u32::from(dir.key(i)) << 16,
            ContainerIter::new(dir.container(i)),
        )
    }

    /// Container `i` of this iterator's directory opened whole ([`opened`](Self::opened)).
    #[inline(always)]
    fn open(&self, i: usize) -> (u32, ContainerIter<'a>) {
        Self::opened(&self.dir, i)
    }

    /// Moves the front so that the next value is the smallest `>= value`.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// # let mut buf = Vec::new();
    /// # Writer::new().write_sorted([1, 5, 70_000, 80_000], &mut buf)?;
    /// let bitmap = FrozenBitmap::from_bytes(&buf)?;
    /// let mut it = bitmap.iter();
    /// it.advance_to(6);
    /// assert_eq!(it.next(), Some(70_000));
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn advance_to(&mut self, value: u32) {
        let (key, lo) = ((value >> 16) as u16, value as u16);
        if let Some((high, it)) = &mut self.front {
            let k = (*high >> 16) as u16;
            if k > key {
                return;
            }
            if k == key {
                it.advance_to(lo);
                return;
            }
            self.front = None;
        }
        // First unopened container with a key >= key.
        self.next_front = self.dir.lower_bound(key, self.next_front, self.next_back);
        if self.next_front < self.next_back {
            if self.dir.key(self.next_front) == key {
                let mut opened = self.open(self.next_front);
                opened.1.advance_to(lo);
                self.front = Some(opened);
                self.next_front += 1;
            }
            return;
        }
        if let Some((high, it)) = &mut self.back {
            let k = (*high >> 16) as u16;
            if k == key {
                it.advance_to(lo);
            } else if k < key {
                self.back = None;
            }
        }
    }

    /// Moves the back so that the next value from the back is the largest `<= value`.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// # let mut buf = Vec::new();
    /// # Writer::new().write_sorted([1, 5, 70_000, 80_000], &mut buf)?;
    /// let bitmap = FrozenBitmap::from_bytes(&buf)?;
    /// let mut it = bitmap.iter();
    /// it.advance_back_to(75_000);
    /// assert_eq!(it.next_back(), Some(70_000));
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn advance_back_to(&mut self, value: u32) {
        let (key, lo) = ((value >> 16) as u16, value as u16);
        if let Some((high, it)) = &mut self.back {
            let k = (*high >> 16) as u16;
            if k < key {
                return;
            }
            if k == key {
                it.advance_back_to(lo);
                return;
            }
            self.back = None;
        }
        // Drop the unopened containers with a key > key.
        if let Some(next_key) = key.checked_add(1) {
            self.next_back = self
                .dir
                .lower_bound(next_key, self.next_front, self.next_back);
        }
        if self.next_front < self.next_back {
            if self.dir.key(self.next_back - 1) == key {
                let mut opened = self.open(self.next_back - 1);
                opened.1.advance_back_to(lo);
                self.back = Some(opened);
                self.next_back -= 1;
            }
            return;
        }
        if let Some((high, it)) = &mut self.front {
            let k = (*high >> 16) as u16;
            if k == key {
                it.advance_back_to(lo);
            } else if k > key {
                self.front = None;
            }
        }
    }

    /// Fills `buf` with the next values and returns how many it wrote (0 at the end).
    /// Works container by container: a whole array is converted in one loop.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// # let mut buf = Vec::new();
    /// # Writer::new().write_sorted(0..1000, &mut buf)?;
    /// let bitmap = FrozenBitmap::from_bytes(&buf)?;
    /// let mut it = bitmap.iter();
    /// let mut batch = [0u32; 256];
    /// let mut total = 0;
    /// loop {
    ///     let values = it.next_many(&mut batch); // the filled front of `batch`
    ///     if values.is_empty() { break; }
    ///     total += values.len();
    /// }
    /// assert_eq!(total, 1000);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn next_many<'b>(&mut self, buf: &'b mut [u32]) -> &'b mut [u32] {
        let n = self.fill_many(buf);
        &mut buf[..n]
    }

    /// Appends every value left to `out`, container by container, straight into the
    /// vector: runs as ascending fills, bitsets a word at a time, arrays widened in one
    /// loop. What `out` held is kept. Grows `out` by at most one container's values at a
    /// time beyond what it needs.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// # let mut buf = Vec::new();
    /// # Writer::new().write_sorted((0..100).chain(70_000..70_003), &mut buf)?;
    /// let bitmap = FrozenBitmap::from_bytes(&buf)?;
    /// let mut it = bitmap.iter();
    /// it.advance_to(98);
    /// let mut out = vec![7];
    /// it.extend_into(&mut out);
    /// assert_eq!(out, [7, 98, 99, 70_000, 70_001, 70_002]);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    #[cfg(feature = "alloc")]
    pub fn extend_into(&mut self, out: &mut alloc::vec::Vec<u32>) {
        loop {
            if let Some((high, it)) = &mut self.front {
                it.extend_vec(*high, out);
                self.front = None;
            }
            if !self.open_next_front() {
                return;
            }
        }
    }

    /// Puts the next container at the front (the next unopened one, else the back one,
    /// taken over); `false` if none is left. The front must be empty.
    fn open_next_front(&mut self) -> bool {
        if self.next_front < self.next_back {
            self.front = Some(self.open(self.next_front));
            self.next_front += 1;
            return true;
        }
        self.front = self.back.take();
        self.front.is_some()
    }

    /// The next range of consecutive values at the front, as long as it goes (across
    /// containers too): two ranges it returns never touch. O(1) per run of a run
    /// container, a word at a time in bitsets, by index in arrays.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// # let mut buf = Vec::new();
    /// # Writer::new().write_sorted([1, 2, 3, 7].into_iter().chain(65_530..70_000), &mut buf)?;
    /// let bitmap = FrozenBitmap::from_bytes(&buf)?;
    /// let mut it = bitmap.iter();
    /// assert_eq!(it.next_range(), Some(1..=3));
    /// assert_eq!(it.next_range_back(), Some(65_530..=69_999));
    /// assert_eq!(it.next_range(), Some(7..=7));
    /// assert_eq!(it.next_range(), None);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn next_range(&mut self) -> Option<core::ops::RangeInclusive<u32>> {
        // The first stretch: from the front container, opening containers where `next`
        // would, and from the back one once no other is left (nothing lies beyond it).
        let (high, (first, mut last)) = loop {
            if let Some((high, it)) = &mut self.front {
                if let Some(stretch) = it.next_stretch() {
                    break (*high, stretch);
                }
                self.front = None;
            }
            if self.next_front < self.next_back {
                self.front = Some(self.open(self.next_front));
                self.next_front += 1;
                continue;
            }
            let (high, it) = self.back.as_mut()?;
            break (*high, it.next_stretch()?);
        };
        let start = high | u32::from(first);
        let mut end = high | u32::from(last);
        // A stretch that reaches the top of its container (which is then drained) goes on
        // if the next container starts at 0: the next unopened one, or the back one.
        while last == u16::MAX {
            let Some(next) = end.checked_add(1) else {
                break;
            };
            let side = if self.next_front < self.next_back {
                if u32::from(self.dir.key(self.next_front)) != next >> 16 {
                    break;
                }
                self.front = Some(self.open(self.next_front));
                self.next_front += 1;
                &mut self.front
            } else {
                &mut self.back
            };
            match side {
                Some((h, it)) if *h == next => match it.take_stretch_from_bottom() {
                    Some(l) => (last, end) = (l, next | u32::from(l)),
                    None => break,
                },
                _ => break,
            }
        }
        Some(start..=end)
    }

    /// The next range of consecutive values at the back, as long as it goes; see
    /// [`next_range`](Self::next_range).
    pub fn next_range_back(&mut self) -> Option<core::ops::RangeInclusive<u32>> {
        // As in `next_range`, downwards: the back container, then the unopened ones from
        // the top, then the front one.
        let (high, (mut first, last)) = loop {
            if let Some((high, it)) = &mut self.back {
                if let Some(stretch) = it.next_stretch_back() {
                    break (*high, stretch);
                }
                self.back = None;
            }
            if self.next_front < self.next_back {
                self.next_back -= 1;
                self.back = Some(self.open(self.next_back));
                continue;
            }
            let (high, it) = self.front.as_mut()?;
            break (*high, it.next_stretch_back()?);
        };
        let end = high | u32::from(last);
        let mut start = high | u32::from(first);
        while first == 0 {
            let Some(below) = start.checked_sub(1) else {
                break;
            };
            let prev = below & !0xFFFF;
            let side = if self.next_front < self.next_back {
                if u32::from(self.dir.key(self.next_back - 1)) != below >> 16 {
                    break;
                }
                self.next_back -= 1;
                self.back = Some(self.open(self.next_back));
                &mut self.back
            } else {
                &mut self.front
            };
            match side {
                Some((h, it)) if *h == prev => match it.take_run_back(u16::MAX) {
                    Some(f) => (first, start) = (f, prev | u32::from(f)),
                    None => break,
                },
                _ => break,
            }
        }
        Some(start..=end)
    }

    /// [`next_many`](Self::next_many), returning the number of values written.
    fn fill_many(&mut self, buf: &mut [u32]) -> usize {
        let mut n = 0;
        while n < buf.len() {
            if let Some((high, it)) = &mut self.front {
                n += it.fill(*high, &mut buf[n..]);
                if n == buf.len() {
                    break;
                }
                self.front = None;
            }
            if !self.open_next_front() {
                break;
            }
        }
        n
    }

    fn remaining(&self) -> u64 {
        let side =
            |s: &Option<(u32, ContainerIter<'a>)>| s.as_ref().map_or(0, |(_, it)| it.remaining());
        let middle = if self.next_front < self.next_back {
            self.dir.cards_between(self.next_front, self.next_back)
        } else {
            0
        };
        side(&self.front) + middle + side(&self.back)
    }
}

impl Iterator for Iter<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        // The step within the open container comes first and is always inline, also
        // where this `next` is not inlined into its caller (a `dyn Iterator`, a large
        // program): one call per value at most, not one into the container's iterator
        // as well (`iter_dyn` 1.3–2.4 times faster). The container's opening is inline
        // too: returned through memory, its iterator was read back wider than written,
        // which stalled every switch.
        if let Some((high, it)) = &mut self.front
            && let Some(lo) = it.step()
        {
            return Some(*high | u32::from(lo));
        }
        self.next_container()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.remaining()).unwrap_or(usize::MAX);
        (n, Some(n))
    }

    /// Internal iteration (used by `sum`, `for_each`, `count`...): container by container,
    /// each in one tight loop.
    #[inline]
    fn fold<B, F: FnMut(B, u32) -> B>(mut self, init: B, mut f: F) -> B {
        let mut acc = init;
        if let Some((high, it)) = self.front.take() {
            acc = it.fold(acc, |a, lo| f(a, high | u32::from(lo)));
        }
        for i in self.next_front..self.next_back {
            let (high, it) = self.open(i);
            acc = it.fold(acc, |a, lo| f(a, high | u32::from(lo)));
        }
        if let Some((high, it)) = self.back.take() {
            acc = it.fold(acc, |a, lo| f(a, high | u32::from(lo)));
        }
        acc
    }
}

impl DoubleEndedIterator for Iter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<u32> {
        // As `next`: the step within the open container first, always inline.
        if let Some((high, it)) = &mut self.back
            && let Some(lo) = it.step_back()
        {
            return Some(*high | u32::from(lo));
        }
        self.next_back_container()
    }

    /// Internal iteration from the back (`rev()` with `sum`, `for_each`, `fold`...):
    /// container by container, each in one tight loop.
    #[inline]
    fn rfold<B, F: FnMut(B, u32) -> B>(self, init: B, f: F) -> B {
        self.rfold_values(init, f)
    }
}

impl Iter<'_> {
    /// [`next`](Iterator::next) once the front container has no value left (or none is
    /// open): opens the next one and takes its first value, or takes the back container's.
    #[inline(always)]
    fn next_container(&mut self) -> Option<u32> {
        // `next` found the front container exhausted (or none open): not asked again.
        while self.next_front < self.next_back {
            self.front = Some(self.open(self.next_front));
            self.next_front += 1;
            // A container with no value (only in unchecked views) is passed over.
            if let Some((high, it)) = &mut self.front
                && let Some(lo) = it.next()
            {
                return Some(*high | u32::from(lo));
            }
        }
        self.front = None;
        let (high, it) = self.back.as_mut()?;
        it.next().map(|lo| *high | u32::from(lo))
    }

    /// [`next_back`](DoubleEndedIterator::next_back) once the back container has no value
    /// left (or none is open).
    #[inline(always)]
    fn next_back_container(&mut self) -> Option<u32> {
        while self.next_front < self.next_back {
            self.next_back -= 1;
            self.back = Some(self.open(self.next_back));
            if let Some((high, it)) = &mut self.back
                && let Some(lo) = it.next_back()
            {
                return Some(*high | u32::from(lo));
            }
        }
        self.back = None;
        let (high, it) = self.front.as_mut()?;
        it.next_back().map(|lo| *high | u32::from(lo))
    }

    /// The back container's values, then the unopened ones' and the front one's, each in
    /// one tight descending loop (the internal iteration of `rev()`).
    #[inline]
    fn rfold_values<B, F: FnMut(B, u32) -> B>(mut self, init: B, mut f: F) -> B {
        let mut acc = init;
        if let Some((high, it)) = self.back.take() {
            acc = it.rfold(acc, |a, lo| f(a, high | u32::from(lo)));
        }
        for i in (self.next_front..self.next_back).rev() {
            let (high, it) = self.open(i);
            acc = it.rfold(acc, |a, lo| f(a, high | u32::from(lo)));
        }
        if let Some((high, it)) = self.front.take() {
            acc = it.rfold(acc, |a, lo| f(a, high | u32::from(lo)));
        }
        acc
    }
}

impl core::iter::FusedIterator for Iter<'_> {}
