//! Iterators of a 64-bit view: its buckets ([`Buckets`]) and its values ([`Iter64`]), both
//! double-ended. Values are the 32-bit iterators of the buckets with the bucket's key in
//! the high half: no second copy of the container code.

use core::fmt;
use core::ops::RangeInclusive;

use super::{BucketLayout, Repr, frozen_bucket, join};
use crate::cast;
use crate::view::{FrozenBitmap, Iter, open};

/// Iterator over the buckets of a [`FrozenBitmap64`](super::FrozenBitmap64): `(high 32
/// bits, bitmap of the low 32 bits)` in ascending key order. Forward steps are O(1);
/// backward steps are O(1) in the frozen format and walk the buckets before them in the
/// portable one (whose buckets are found only in order).
#[derive(Clone)]
pub struct Buckets<'a> {
    repr: Repr<'a>,
    /// Index of the next bucket from the front.
    i: usize,
    /// Index past the next bucket from the back.
    end: usize,
    /// Position of bucket `i` in a portable stream's bucket bytes.
    pos: usize,
}

impl fmt::Debug for Buckets<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Buckets")
            .field("next", &self.i)
            .field("end", &self.end)
            .finish_non_exhaustive()
    }
}

impl<'a> Buckets<'a> {
    pub(super) fn new(repr: Repr<'a>, n: usize) -> Buckets<'a> {
        Buckets {
            repr,
            i: 0,
            end: n,
            pos: 0,
        }
    }

    /// The portable bucket at byte `pos` of the stream, as `(key, bitmap, bytes taken)`.
    fn portable_at(
        repr: &Repr<'a>,
        index: usize,
        pos: usize,
    ) -> Option<(u32, FrozenBitmap<'a>, usize)> {
        let Repr::Portable {
            buckets, layout, ..
        } = *repr
        else {
            return None;
        };
        let field = cast::read_u32(buckets, pos)?;
        let rest = buckets.get(pos + 4..)?;
        Some(if layout == BucketLayout::Sized {
            let len = (field as usize).min(rest.len());
            (index as u32, open::unchecked(&rest[..len]), 4 + len)
        } else {
            let (b, len) = open::unchecked_prefix(rest);
            (field, b, 4 + len)
        })
    }
}

impl<'a> Iterator for Buckets<'a> {
    type Item = (u32, FrozenBitmap<'a>);

    fn next(&mut self) -> Option<(u32, FrozenBitmap<'a>)> {
        if self.i >= self.end {
            return None;
        }
        let item = match self.repr {
            Repr::Frozen { keys, .. } => {
                (keys.get(self.i)?.get(), frozen_bucket(&self.repr, self.i))
            }
            Repr::Portable { .. } => {
                let (k, b, len) = Buckets::portable_at(&self.repr, self.i, self.pos)?;
                self.pos += len;
                (k, b)
            }
        };
        self.i += 1;
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.end.saturating_sub(self.i)))
    }
}

impl<'a> DoubleEndedIterator for Buckets<'a> {
    fn next_back(&mut self) -> Option<(u32, FrozenBitmap<'a>)> {
        if self.i >= self.end {
            return None;
        }
        let last = self.end - 1;
        let item = match self.repr {
            Repr::Frozen { keys, .. } => (keys.get(last)?.get(), frozen_bucket(&self.repr, last)),
            Repr::Portable { .. } => {
                let mut pos = self.pos;
                for index in self.i..last {
                    pos += Buckets::portable_at(&self.repr, index, pos)?.2;
                }
                let (k, b, _) = Buckets::portable_at(&self.repr, last, pos)?;
                (k, b)
            }
        };
        self.end = last;
        Some(item)
    }
}

/// Iterator over the values of a [`FrozenBitmap64`](super::FrozenBitmap64), in ascending
/// order, from either end, with the roaring-rs iterator API (`advance_to`,
/// `advance_back_to`, `next_many`, `next_range`, `next_range_back`).
#[derive(Clone)]
pub struct Iter64<'a> {
    buckets: Buckets<'a>,
    front: Option<(u32, Iter<'a>)>,
    back: Option<(u32, Iter<'a>)>,
}

impl fmt::Debug for Iter64<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Iter64")
            .field("buckets", &self.buckets)
            .finish_non_exhaustive()
    }
}

impl<'a> Iter64<'a> {
    pub(super) fn new(buckets: Buckets<'a>) -> Iter64<'a> {
        Iter64 {
            buckets,
            front: None,
            back: None,
        }
    }

    /// Leaves nothing to iterate.
    pub(super) fn clear(&mut self) {
        self.buckets.end = self.buckets.i;
        (self.front, self.back) = (None, None);
    }

    /// Puts the next bucket at the front (the next unopened one, else the back one, taken
    /// over); `false` when none is left.
    fn open_next_front(&mut self) -> bool {
        match self.buckets.next() {
            Some((k, b)) => self.front = Some((k, b.iter())),
            None => self.front = self.back.take(),
        }
        self.front.is_some()
    }

    /// Puts the next bucket from the top at the back (the next unopened one, else the
    /// front one, taken over); `false` when none is left.
    fn open_next_back(&mut self) -> bool {
        match self.buckets.next_back() {
            Some((k, b)) => self.back = Some((k, b.iter())),
            None => self.back = self.front.take(),
        }
        self.back.is_some()
    }

    /// Moves forward to the first value `>= value` (no move if already there).
    pub fn advance_to(&mut self, value: u64) {
        let (hi, lo) = ((value >> 32) as u32, value as u32);
        loop {
            match &mut self.front {
                Some((k, it)) if *k == hi => {
                    it.advance_to(lo);
                    return;
                }
                Some((k, _)) if *k > hi => return,
                _ => {}
            }
            match self.buckets.next() {
                Some((k, b)) => self.front = Some((k, b.iter())),
                None => {
                    self.front = None;
                    match &mut self.back {
                        Some((k, it)) if *k == hi => it.advance_to(lo),
                        Some((k, _)) if *k < hi => self.back = None,
                        _ => {}
                    }
                    return;
                }
            }
        }
    }

    /// Moves backward to the last value `<= value` (no move if already there).
    pub fn advance_back_to(&mut self, value: u64) {
        let (hi, lo) = ((value >> 32) as u32, value as u32);
        loop {
            match &mut self.back {
                Some((k, it)) if *k == hi => {
                    it.advance_back_to(lo);
                    return;
                }
                Some((k, _)) if *k < hi => return,
                _ => {}
            }
            match self.buckets.next_back() {
                Some((k, b)) => self.back = Some((k, b.iter())),
                None => {
                    self.back = None;
                    match &mut self.front {
                        Some((k, it)) if *k == hi => it.advance_back_to(lo),
                        Some((k, _)) if *k > hi => self.front = None,
                        _ => {}
                    }
                    return;
                }
            }
        }
    }

    /// Fills `buf` with the next values and returns the filled part (empty at the end).
    pub fn next_many<'b>(&mut self, buf: &'b mut [u64]) -> &'b mut [u64] {
        let mut n = 0;
        let mut chunk = [0u32; 256];
        while n < buf.len() {
            if let Some((k, it)) = &mut self.front {
                let hi = u64::from(*k) << 32;
                let want = (buf.len() - n).min(chunk.len());
                let got = it.next_many(&mut chunk[..want]);
                if !got.is_empty() {
                    for (d, &lo) in buf[n..].iter_mut().zip(got.iter()) {
                        *d = hi | u64::from(lo);
                    }
                    n += got.len();
                    continue;
                }
            }
            if !self.open_next_front() {
                break;
            }
        }
        &mut buf[..n]
    }

    /// The next maximal run of consecutive values (runs that cross from one bucket into
    /// the next are joined).
    pub fn next_range(&mut self) -> Option<RangeInclusive<u64>> {
        let (start, mut end) = loop {
            if let Some((k, it)) = &mut self.front
                && let Some(r) = it.next_range()
            {
                break (join(*k, *r.start()), join(*k, *r.end()));
            }
            if !self.open_next_front() {
                return None;
            }
        };
        // A run that ends its bucket (whose values are then all taken) may go on at the
        // start of the next key's bucket.
        while end & 0xFFFF_FFFF == 0xFFFF_FFFF && end != u64::MAX && self.open_next_front() {
            let Some((k, it)) = &mut self.front else {
                break;
            };
            if u64::from(*k) != (end >> 32) + 1 || it.clone().next() != Some(0) {
                break;
            }
            let Some(r) = it.next_range() else {
                break;
            };
            end = join(*k, *r.end());
        }
        Some(start..=end)
    }

    /// The last maximal run of consecutive values not yet taken (as
    /// [`next_range`](Self::next_range), from the top down).
    pub fn next_range_back(&mut self) -> Option<RangeInclusive<u64>> {
        let (mut start, end) = loop {
            if let Some((k, it)) = &mut self.back
                && let Some(r) = it.next_range_back()
            {
                break (join(*k, *r.start()), join(*k, *r.end()));
            }
            if !self.open_next_back() {
                return None;
            }
        };
        // A run that starts its bucket (whose values are then all taken) may go on at the
        // top of the previous key's bucket.
        while start & 0xFFFF_FFFF == 0 && start != 0 && self.open_next_back() {
            let Some((k, it)) = &mut self.back else {
                break;
            };
            if u64::from(*k) + 1 != start >> 32 || it.clone().next_back() != Some(u32::MAX) {
                break;
            }
            let Some(r) = it.next_range_back() else {
                break;
            };
            start = join(*k, *r.start());
        }
        Some(start..=end)
    }
}

impl Iterator for Iter64<'_> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        loop {
            if let Some((hi, it)) = &mut self.front
                && let Some(lo) = it.next()
            {
                return Some(join(*hi, lo));
            }
            match self.buckets.next() {
                Some((k, b)) => self.front = Some((k, b.iter())),
                None => {
                    let (hi, it) = self.back.as_mut()?;
                    return it.next().map(|lo| join(*hi, lo));
                }
            }
        }
    }

    fn fold<B, F: FnMut(B, u64) -> B>(mut self, init: B, mut f: F) -> B {
        let mut acc = init;
        if let Some((hi, it)) = self.front.take() {
            acc = it.fold(acc, |acc, lo| f(acc, join(hi, lo)));
        }
        for (k, b) in self.buckets {
            acc = b.iter().fold(acc, |acc, lo| f(acc, join(k, lo)));
        }
        if let Some((hi, it)) = self.back.take() {
            acc = it.fold(acc, |acc, lo| f(acc, join(hi, lo)));
        }
        acc
    }
}

impl DoubleEndedIterator for Iter64<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<u64> {
        loop {
            if let Some((hi, it)) = &mut self.back
                && let Some(lo) = it.next_back()
            {
                return Some(join(*hi, lo));
            }
            match self.buckets.next_back() {
                Some((k, b)) => self.back = Some((k, b.iter())),
                None => {
                    let (hi, it) = self.front.as_mut()?;
                    return it.next_back().map(|lo| join(*hi, lo));
                }
            }
        }
    }
}
