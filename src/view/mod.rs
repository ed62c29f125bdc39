//! [`FrozenBitmap`]: a zero-copy, allocation-free view of a bitmap's bytes.

pub(crate) mod dir;
mod iter;
mod mask;
pub(crate) mod open;
mod setops;

pub use iter::Iter;
pub use mask::LiveRanges;
pub(crate) use mask::next_gap;

pub(crate) use dir::Directory;
#[cfg(feature = "alloc")]
pub(crate) use dir::common_keys;

use core::fmt;
use core::ops::{Bound, RangeBounds};

use crate::container::Container;
use crate::error::Error;
use crate::format::{ContainerKind, FLAG_CRC, TRAILER_LEN};

/// Values `to_vec` reserves room for at most before it has read any: 2^24 (64 MiB of
/// `u32`, 128 MiB of `u64`) bounds what a lying stored length can make it ask for, and a
/// real set larger than that grows by doubling, which costs one copy of each value.
#[cfg(feature = "alloc")]
pub(crate) const FIRST_RESERVATION: usize = 1 << 24;

/// A read-only Roaring bitmap over borrowed bytes, queried in place.
///
/// The bytes may be in this crate's frozen format or in the RoaringFormatSpec portable
/// format written by CRoaring, Java, Go and roaring-rs; every constructor tells them apart by
/// the first four bytes and every query works on both (see [`Format`] for the cost
/// differences).
///
/// A `FrozenBitmap` is two words of directory slices over a `&[u8]`: it is `Copy`, never
/// allocates, and works on a slice at any address (no alignment needed). Open one with
///
/// - [`FrozenBitmap::from_bytes`] — checked: verifies the structure (header, directory,
///   offsets, lengths) in O(containers) without reading payloads; the normal choice for
///   bytes from a file, a database or the network;
/// - [`FrozenBitmap::from_bytes_strict`] — also verifies every payload and the checksum in
///   O(size);
/// - [`FrozenBitmap::from_bytes_unchecked`] — O(1), for bytes you wrote yourself.
///
/// # Safety model and corrupt payloads
///
/// Whatever the bytes, a view from any constructor is memory-safe, and every method is free
/// of panics and undefined behaviour and terminates. A view from `from_bytes_strict`, or one
/// on which [`validate`](Self::validate) returned `Ok`, answers every query exactly.
///
/// A view that passed only the checked constructor can hold corrupt payloads (arrays not
/// sorted, bitset popcounts that differ from the stored cardinality, overlapping runs). Then:
/// - [`len`](Self::len), [`rank`](Self::rank), [`select`](Self::select), `range_cardinality` and the
///   `*_len` set counts use stored cardinalities and can disagree with what iteration yields;
/// - [`contains`](Self::contains) and the intersection kernels search arrays and runs by
///   binary search and can miss values that are out of order;
/// - iteration yields the payload as stored (possibly out of order or repeated), clipped to
///   the container's 65536 values; its `size_hint` is the stored count;
/// - set operations (`Writer::union_into`, ...) may give wrong values, but their result is
///   always a bitmap that the checked constructor accepts (runs out of order or
///   overlapping are sorted and merged first).
///
/// A view from `from_bytes_unchecked` over bytes that are not a valid bitmap may in addition
/// see containers as empty.
///
/// # Example
///
/// ```
/// use frozen_roaring::{FrozenBitmap, Writer};
///
/// let mut writer = Writer::new();
/// let mut bytes = Vec::new();
/// let range = writer.write_sorted([1, 2, 3, 100_000, 4_000_000_000], &mut bytes)?;
///
/// let bitmap = FrozenBitmap::from_bytes(&bytes[range])?;
/// assert_eq!(bitmap.len(), 5);
/// assert!(bitmap.contains(100_000));
/// assert_eq!(bitmap.rank(100_000), 4);
/// assert_eq!(bitmap.select(4), Some(4_000_000_000));
/// assert_eq!(bitmap.iter().rev().next(), Some(4_000_000_000));
/// # Ok::<(), frozen_roaring::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct FrozenBitmap<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) dir: Directory<'a>,
    /// Whether a checked constructor verified the structure (not `from_bytes_unchecked`):
    /// re-encoding then trusts the directory instead of parsing the bytes again.
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))] // only writers read it
    pub(crate) checked: bool,
}

/// The on-disk format a [`FrozenBitmap`] reads (see [`FrozenBitmap::format`]).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// This crate's frozen format (`format-spec/FORMAT.md`): O(1) `len`, `rank` and
    /// `select` by binary search, 64-byte aligned bitsets.
    Frozen,
    /// The RoaringFormatSpec portable format written by CRoaring, Java, Go and roaring-rs
    /// (cookies 12346 and 12347). It stores no cumulative counts, so `len`, `rank` and
    /// `select` take O(containers) on such views; everything else is as fast as on frozen
    /// views.
    Portable,
}

/// Container counts and sizes of a bitmap, by kind (see [`FrozenBitmap::statistics`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Statistics {
    /// Number of containers.
    pub containers: u32,
    /// Number of array containers.
    pub array_containers: u32,
    /// Number of bitset containers.
    pub bitset_containers: u32,
    /// Number of run containers.
    pub run_containers: u32,
    /// Values in array containers.
    pub array_values: u64,
    /// Values in bitset containers.
    pub bitset_values: u64,
    /// Values in run containers.
    pub run_values: u64,
    /// Payload bytes of array containers.
    pub array_bytes: u64,
    /// Payload bytes of bitset containers.
    pub bitset_bytes: u64,
    /// Payload bytes of run containers.
    pub run_bytes: u64,
    /// Header, directory, padding and trailer bytes.
    pub metadata_bytes: u64,
    /// Total size of the bitmap in bytes.
    pub total_bytes: u64,
}

impl core::ops::AddAssign for Statistics {
    /// Adds another bitmap's figures (for totals over many bitmaps).
    fn add_assign(&mut self, o: Statistics) {
        self.containers += o.containers;
        self.array_containers += o.array_containers;
        self.bitset_containers += o.bitset_containers;
        self.run_containers += o.run_containers;
        self.array_values += o.array_values;
        self.bitset_values += o.bitset_values;
        self.run_values += o.run_values;
        self.array_bytes += o.array_bytes;
        self.bitset_bytes += o.bitset_bytes;
        self.run_bytes += o.run_bytes;
        self.metadata_bytes += o.metadata_bytes;
        self.total_bytes += o.total_bytes;
    }
}

impl<'a> FrozenBitmap<'a> {
    /// Opens a bitmap, checking its structure in O(containers).
    ///
    /// `bytes` must be exactly one bitmap (use [`from_prefix`](Self::from_prefix) when more
    /// data follows). The slice may be at any address.
    ///
    /// Never panics and never allocates, for any input. After `Ok` every method is
    /// memory-safe and panic-free; payload contents are not read, so answers can be wrong
    /// if they are corrupt (see the type's documentation). Use
    /// [`from_bytes_strict`](Self::from_bytes_strict) to check them too.
    ///
    /// # Errors
    ///
    /// An [`Error`] whose [`kind`](Error::kind) is `BadMagic`, `UnsupportedVersion`,
    /// `Truncated` or `Malformed`, naming the field and its offset.
    ///
    /// ```
    /// use frozen_roaring::{ErrorKind, FrozenBitmap};
    /// let err = FrozenBitmap::from_bytes(b"not a bitmap").unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::BadMagic);
    /// ```
    #[inline]
    pub fn from_bytes(bytes: &'a [u8]) -> Result<FrozenBitmap<'a>, Error> {
        open::parse_exact(bytes)
    }

    /// Opens the bitmap at the start of `bytes` and returns it with the bytes that follow.
    /// Same checks as [`from_bytes`](Self::from_bytes).
    ///
    /// ```
    /// use frozen_roaring::{FrozenBitmap, Writer};
    /// let mut buf = Vec::new();
    /// Writer::new().write_sorted([7], &mut buf)?;
    /// buf.extend_from_slice(b"tail");
    /// let (bitmap, rest) = FrozenBitmap::from_prefix(&buf)?;
    /// assert_eq!((bitmap.len(), rest), (1, &b"tail"[..]));
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn from_prefix(bytes: &'a [u8]) -> Result<(FrozenBitmap<'a>, &'a [u8]), Error> {
        open::parse_prefix(bytes)
    }

    /// Opens a bitmap and checks every Roaring invariant and the checksum, in O(size).
    /// After `Ok`, every answer is exact.
    ///
    /// # Errors
    ///
    /// As [`from_bytes`](Self::from_bytes), plus `Corrupt` for a payload that breaks an
    /// invariant and `ChecksumMismatch`.
    ///
    /// ```
    /// use frozen_roaring::{ErrorKind, FrozenBitmap, Writer};
    /// let mut buf = Vec::new();
    /// Writer::new().with_checksum(true).write_sorted([1, 2, 3], &mut buf)?;
    /// assert!(FrozenBitmap::from_bytes_strict(&buf).is_ok());
    /// let last = buf.len() - 1;
    /// buf[last] ^= 1; // damage the checksum
    /// assert!(FrozenBitmap::from_bytes(&buf).is_ok()); // the structure is still sound
    /// let err = FrozenBitmap::from_bytes_strict(&buf).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ChecksumMismatch);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn from_bytes_strict(bytes: &'a [u8]) -> Result<FrozenBitmap<'a>, Error> {
        let bm = FrozenBitmap::from_bytes(bytes)?;
        bm.validate()?;
        Ok(bm)
    }

    /// Opens a bitmap in O(1), reading only the header.
    ///
    /// # Safety
    ///
    /// `bytes` must be exactly one bitmap that [`from_bytes`](Self::from_bytes) accepts, for
    /// example bytes this crate's `Writer` produced. The current implementation stays
    /// memory-safe even when this is violated (containers it cannot find read as empty), but
    /// callers must not rely on that: later releases may skip bounds checks here.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// let mut buf = Vec::new();
    /// Writer::new().write_sorted([5, 6], &mut buf)?;
    /// // SAFETY: the bytes come straight from our writer.
    /// let bitmap = unsafe { FrozenBitmap::from_bytes_unchecked(&buf) };
    /// assert_eq!(bitmap.to_vec(), [5, 6]);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    #[allow(unsafe_code)]
    pub unsafe fn from_bytes_unchecked(bytes: &'a [u8]) -> FrozenBitmap<'a> {
        open::unchecked(bytes)
    }

    /// Checks every Roaring invariant and the checksum (O(size)); see
    /// [`from_bytes_strict`](Self::from_bytes_strict).
    ///
    /// # Errors
    ///
    /// The first violation found, as an [`Error`] naming the field and offset.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// # let mut buf = Vec::new();
    /// # Writer::new().write_sorted([1, 9, 70_000], &mut buf)?;
    /// let bitmap = FrozenBitmap::from_bytes(&buf)?; // O(containers)
    /// bitmap.validate()?; // O(size): every answer is now exact
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn validate(&self) -> Result<(), Error> {
        open::validate(self)
    }

    /// Whether the bitmap carries a CRC32C checksum.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// let mut buf = Vec::new();
    /// Writer::new().with_checksum(true).write_sorted([1], &mut buf)?;
    /// let bitmap = FrozenBitmap::from_bytes(&buf)?;
    /// assert!(bitmap.has_checksum());
    /// bitmap.verify()?;
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn has_checksum(&self) -> bool {
        matches!(self.dir, Directory::Frozen(_))
            && self.bytes.get(5).is_some_and(|f| f & FLAG_CRC != 0)
            && self.bytes.len() >= TRAILER_LEN
    }

    /// Checks the CRC32C checksum, if the bitmap has one (`Ok` if it has none).
    ///
    /// # Errors
    ///
    /// `ChecksumMismatch` if the bytes changed since they were written.
    pub fn verify(&self) -> Result<(), Error> {
        if !self.has_checksum() {
            return Ok(());
        }
        crate::checksum::check_trailer(self.bytes)
    }

    /// The format of the bytes this view reads.
    ///
    /// ```
    /// use frozen_roaring::{Format, FrozenBitmap, Writer};
    /// let mut writer = Writer::new();
    /// let (mut frozen, mut portable) = (Vec::new(), Vec::new());
    /// writer.write_sorted([1, 2, 3], &mut frozen)?;
    /// writer.write_portable_sorted([1, 2, 3], &mut portable)?;
    /// let (a, b) = (FrozenBitmap::from_bytes(&frozen)?, FrozenBitmap::from_bytes(&portable)?);
    /// assert_eq!((a.format(), b.format()), (Format::Frozen, Format::Portable));
    /// assert_eq!(a, b); // same set
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn format(&self) -> Format {
        match self.dir {
            Directory::Frozen(_) => Format::Frozen,
            Directory::Portable(_) => Format::Portable,
        }
    }

    /// The set as a roaring-rs bitmap (feature `roaring`): runs are inserted as ranges,
    /// arrays and bitsets appended in order.
    #[cfg(feature = "roaring")]
    pub fn to_roaring(&self) -> roaring::RoaringBitmap {
        let mut rb = roaring::RoaringBitmap::new();
        for i in 0..self.dir.n() {
            let (key, c) = self.container_at(i);
            let base = u32::from(key) << 16;
            match c {
                Container::Run(runs) => {
                    for r in runs {
                        rb.insert_range(base | r.start()..=base | r.end());
                    }
                }
                _ => {
                    let mut it = crate::container::iter::ContainerIter::new(c);
                    let _ = rb.append(core::iter::from_fn(|| {
                        it.next().map(|lo| base | u32::from(lo))
                    }));
                }
            }
        }
        rb
    }

    /// The bytes of the bitmap (exactly the bitmap, trailer included).
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// let mut buf = Vec::new();
    /// let range = Writer::new().write_sorted([1, 2], &mut buf)?;
    /// let bitmap = FrozenBitmap::from_bytes(&buf[range.clone()])?;
    /// assert_eq!(bitmap.as_bytes(), &buf[range]);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The number of values: a `u64`, since a bitmap of every `u32` holds 2<sup>32</sup>.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// let mut buf = Vec::new();
    /// Writer::new().write_sorted(0..(5 << 16) + 3, &mut buf)?; // 5 full containers and 3 values
    /// let bitmap = FrozenBitmap::from_bytes(&buf)?;
    /// assert_eq!((bitmap.len(), bitmap.is_empty(), bitmap.container_count()), (327683, false, 6));
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    #[inline]
    pub fn len(&self) -> u64 {
        self.dir.cum(self.dir.n())
    }

    /// Whether the bitmap holds no value.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.dir.n() == 0
    }

    /// The number of containers.
    pub fn container_count(&self) -> usize {
        self.dir.n()
    }

    /// Whether `value` is in the bitmap.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// # let mut buf = Vec::new();
    /// # Writer::new().write_sorted([4, 1 << 20, u32::MAX], &mut buf)?;
    /// let bitmap = FrozenBitmap::from_bytes(&buf)?;
    /// assert!(bitmap.contains(1 << 20) && !bitmap.contains(5));
    /// assert_eq!((bitmap.min(), bitmap.max()), (Some(4), Some(u32::MAX)));
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    #[inline]
    pub fn contains(&self, value: u32) -> bool {
        // The key search is inlined into the caller's loop; the container's search is
        // out of line, so that the whole stays small enough to be inlined.
        match self.dir.find((value >> 16) as u16) {
            Ok(i) => self.container_contains(i, value as u16),
            Err(_) => false,
        }
    }

    /// Whether container `i` holds `lo` (the out-of-line half of [`contains`](Self::contains)).
    #[inline(never)]
    fn container_contains(&self, i: usize, lo: u16) -> bool {
        self.dir.container(i).contains(lo)
    }

    /// The smallest value.
    pub fn min(&self) -> Option<u32> {
        (0..self.dir.n()).find_map(|i| {
            self.dir
                .container(i)
                .min()
                .map(|lo| join(self.dir.key(i), lo))
        })
    }

    /// The largest value.
    pub fn max(&self) -> Option<u32> {
        (0..self.dir.n()).rev().find_map(|i| {
            self.dir
                .container(i)
                .max()
                .map(|lo| join(self.dir.key(i), lo))
        })
    }

    /// The number of values `<= value`.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// # let mut buf = Vec::new();
    /// # Writer::new().write_sorted([10, 20, 30], &mut buf)?;
    /// let bitmap = FrozenBitmap::from_bytes(&buf)?;
    /// assert_eq!((bitmap.rank(9), bitmap.rank(10), bitmap.rank(25)), (0, 1, 2));
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    #[inline]
    pub fn rank(&self, value: u32) -> u64 {
        // As in `contains`: the key search inline, the container's count out of line.
        match self.dir.find((value >> 16) as u16) {
            Ok(i) => self.container_rank(i, value as u16),
            Err(i) => self.dir.cum(i),
        }
    }

    /// The number of values `<= join(key(i), lo)` (the out-of-line half of
    /// [`rank`](Self::rank)).
    #[inline(never)]
    fn container_rank(&self, i: usize, lo: u16) -> u64 {
        self.dir.cum(i) + u64::from(self.dir.container(i).rank(lo))
    }

    /// The `n`-th smallest value (0-based), or `None` if there are `n` values or fewer.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// # let mut buf = Vec::new();
    /// # Writer::new().write_sorted([10, 20, 30], &mut buf)?;
    /// let bitmap = FrozenBitmap::from_bytes(&buf)?;
    /// assert_eq!((bitmap.select(0), bitmap.select(2), bitmap.select(3)), (Some(10), Some(30), None));
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    #[inline]
    pub fn select(&self, n: u32) -> Option<u32> {
        // The first container's values (all of a one-container bitmap's, the common case
        // of short posting lists) without the search of the cumulative counts; as in
        // `contains`, the container's part out of line.
        if n < self.dir.card(0) {
            return self.container_select(0, n);
        }
        self.select_past_first(n)
    }

    /// The `within`-th value of container `i` (the out-of-line half of
    /// [`select`](Self::select)).
    #[inline(never)]
    fn container_select(&self, i: usize, within: u32) -> Option<u32> {
        self.dir
            .container(i)
            .select(within)
            .map(|lo| join(self.dir.key(i), lo))
    }

    /// [`select`](Self::select) past the first container's values.
    #[inline(never)]
    fn select_past_first(&self, n: u32) -> Option<u32> {
        // The last container with at most `n` values before it; a rank past the end lands
        // past that container's values, where its own `select` finds none.
        let n = u64::from(n);
        let (i, before) = self.dir.container_of_rank(n)?;
        // `before <= n` from the search; checked all the same, as the stored counts of a
        // view from `from_bytes_unchecked` need not be in order.
        let within = u32::try_from(n.checked_sub(before)?).ok()?;
        // `container_select`'s body inline: a second out-of-line call here cost the
        // many-container sets 5–11 %.
        self.dir
            .container(i)
            .select(within)
            .map(|lo| join(self.dir.key(i), lo))
    }

    /// The number of values in `range`.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// # let mut buf = Vec::new();
    /// # Writer::new().write_sorted((0..100).chain(200..300), &mut buf)?;
    /// let bitmap = FrozenBitmap::from_bytes(&buf)?;
    /// assert_eq!(bitmap.range_cardinality(50..250), 100);
    /// assert!(bitmap.contains_range(200..300) && !bitmap.contains_range(99..=200));
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn range_cardinality<R: RangeBounds<u32>>(&self, range: R) -> u64 {
        let Some((lo, hi)) = inclusive(range) else {
            return 0;
        };
        let (klo, khi) = ((lo >> 16) as u16, (hi >> 16) as u16);
        if klo == khi {
            return match self.dir.find(klo) {
                // A full container (known from its stored count) holds the whole range.
                Ok(i) if self.dir.card(i) == 1 << 16 => u64::from(hi - lo) + 1,
                Ok(i) => u64::from(self.dir.container(i).range_len(lo as u16, hi as u16)),
                Err(_) => 0,
            };
        }
        // The first and last keys' containers counted in part, those between whole from
        // the directory's counts.
        let (first, from) = match self.dir.find(klo) {
            Ok(i) => (self.dir.container(i).range_len(lo as u16, u16::MAX), i + 1),
            Err(i) => (0, i),
        };
        let (last, to) = match self.dir.find(khi) {
            Ok(j) => (self.dir.container(j).range_len(0, hi as u16), j),
            Err(j) => (0, j),
        };
        u64::from(first) + u64::from(last) + self.dir.cards_between(from, to.max(from))
    }

    /// Whether every value of `range` is in the bitmap (`true` for an empty range). Stops
    /// at the first value missing; the containers wholly inside the range are judged by
    /// their stored cardinality.
    #[inline]
    pub fn contains_range<R: RangeBounds<u32>>(&self, range: R) -> bool {
        let Some((lo, hi)) = inclusive(range) else {
            return true;
        };
        // As in `contains`: the key search inline, the rest out of line.
        match self.dir.find((lo >> 16) as u16) {
            Ok(i) => self.holds_from(i, lo, hi),
            Err(_) => false,
        }
    }

    /// Whether `lo ..= hi` is in the bitmap, where container `i` has `lo`'s key (the
    /// out-of-line half of [`contains_range`](Self::contains_range)).
    #[inline(never)]
    fn holds_from(&self, i: usize, lo: u32, hi: u32) -> bool {
        let (klo, khi) = ((lo >> 16) as u16, (hi >> 16) as u16);
        if klo == khi {
            // A container with fewer values than the range cannot hold it (known from the
            // directory, without reading the payload); a full one holds it all.
            let card = self.dir.card(i);
            return card == 1 << 16
                || (hi - lo < card && self.dir.container(i).contains_range(lo as u16, hi as u16));
        }
        // Every key from `klo` to `khi` present: as keys increase, the last one is then
        // `khi - klo` places after the first.
        let j = i + usize::from(khi - klo);
        j < self.dir.n()
            && self.dir.key(j) == khi
            && (i + 1..j).all(|m| self.dir.card(m) == 1 << 16)
            && self.dir.container(i).contains_range(lo as u16, u16::MAX)
            && self.dir.container(j).contains_range(0, hi as u16)
    }

    /// An iterator over the values in ascending order (double-ended; see [`Iter`]).
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// # let mut buf = Vec::new();
    /// # Writer::new().write_sorted([1, 2, 3, 100_000], &mut buf)?;
    /// let bitmap = FrozenBitmap::from_bytes(&buf)?;
    /// let mut it = bitmap.iter();
    /// assert_eq!((it.next(), it.next_back()), (Some(1), Some(100_000)));
    /// assert_eq!(it.collect::<Vec<_>>(), [2, 3]);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn iter(&self) -> Iter<'a> {
        Iter::new(self.dir)
    }

    /// An iterator over the values in `range`, in ascending order, with all of [`Iter`]
    /// (double-ended, `advance_to`, `next_range`, ...): roaring-rs's `range`. Both ends are
    /// found by a search of the directory and of one container, so the values outside the
    /// range cost nothing. An empty or reversed range gives an empty iterator (where
    /// roaring-rs panics on a reversed one).
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// # let mut buf = Vec::new();
    /// # Writer::new().write_sorted([1, 5, 70_000, 80_000], &mut buf)?;
    /// let bitmap = FrozenBitmap::from_bytes(&buf)?;
    /// assert_eq!(bitmap.range(2..=70_000).collect::<Vec<_>>(), [5, 70_000]);
    /// assert_eq!(bitmap.range(6..).next_back(), Some(80_000));
    /// assert_eq!(bitmap.range(6..5).next(), None);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn range<R: RangeBounds<u32>>(&self, range: R) -> Iter<'a> {
        Iter::within(self.dir, inclusive(range))
    }

    /// Each container's key (the high 16 bits of its values), kind and stored
    /// cardinality, in key order: how the bitmap is laid out, container by container.
    ///
    /// ```
    /// use frozen_roaring::{ContainerKind, FrozenBitmap, Writer};
    /// let mut buf = Vec::new();
    /// Writer::new().write_sorted([1, 5].into_iter().chain(65_536..70_000), &mut buf)?;
    /// let kinds: Vec<_> = FrozenBitmap::from_bytes(&buf)?.containers().collect();
    /// assert_eq!(kinds, [(0, ContainerKind::Array, 2), (1, ContainerKind::Run, 4464)]);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn containers(&self) -> impl ExactSizeIterator<Item = (u16, ContainerKind, u32)> + 'a {
        let bm = *self;
        (0..self.dir.n()).map(move |i| (bm.dir.key(i), bm.dir.container(i).kind(), bm.dir.card(i)))
    }

    /// Container statistics by kind.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// let mut buf = Vec::new();
    /// Writer::new().write_sorted([1, 5].into_iter().chain(65_536..70_000).chain((131_072..200_000).step_by(2)), &mut buf)?;
    /// let s = FrozenBitmap::from_bytes(&buf)?.statistics();
    /// // key 0: [1, 5] array; key 1: one run; key 2: every other value, a bitset; key 3: array
    /// assert_eq!((s.array_containers, s.run_containers, s.bitset_containers), (2, 1, 1));
    /// assert_eq!((s.array_values, s.run_values, s.bitset_values), (2 + 1696, 4464, 32768));
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn statistics(&self) -> Statistics {
        let mut s = Statistics {
            containers: self.dir.n() as u32,
            total_bytes: self.bytes.len() as u64,
            ..Default::default()
        };
        let mut payload = 0u64;
        for i in 0..self.dir.n() {
            let c = self.dir.container(i);
            let card = u64::from(self.dir.card(i));
            let bytes = c.stored_len() as u64;
            payload += bytes;
            let (count, values, size) = match c.kind() {
                ContainerKind::Array => (
                    &mut s.array_containers,
                    &mut s.array_values,
                    &mut s.array_bytes,
                ),
                ContainerKind::Bitset => (
                    &mut s.bitset_containers,
                    &mut s.bitset_values,
                    &mut s.bitset_bytes,
                ),
                ContainerKind::Run => (&mut s.run_containers, &mut s.run_values, &mut s.run_bytes),
            };
            *count += 1;
            *values += card;
            *size += bytes;
        }
        s.metadata_bytes = s.total_bytes.saturating_sub(payload);
        s
    }

    /// All values in ascending order.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// # let mut buf = Vec::new();
    /// # Writer::new().write_sorted([3, 1 << 31], &mut buf)?;
    /// assert_eq!(FrozenBitmap::from_bytes(&buf)?.to_vec(), [3, 1 << 31]);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    #[cfg(feature = "alloc")]
    pub fn to_vec(&self) -> alloc::vec::Vec<u32> {
        // The stored length is a claim of the bytes (exact only after `validate`): it bounds
        // the first reservation, and growth beyond the bound is amortized.
        let claimed = usize::try_from(self.len()).unwrap_or(usize::MAX);
        let mut out = alloc::vec::Vec::with_capacity(claimed.min(FIRST_RESERVATION));
        self.extend_into(&mut out);
        out
    }

    /// Appends the values to `out` in ascending order (keeping what it held), container by
    /// container straight into the vector: the allocation-free form of
    /// [`to_vec`](Self::to_vec) when `out` has room.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// # let mut buf = Vec::new();
    /// # Writer::new().write_sorted([3, 1 << 31], &mut buf)?;
    /// let mut out = Vec::with_capacity(16);
    /// FrozenBitmap::from_bytes(&buf)?.extend_into(&mut out);
    /// assert_eq!(out, [3, 1 << 31]);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    #[cfg(feature = "alloc")]
    pub fn extend_into(&self, out: &mut alloc::vec::Vec<u32>) {
        // One walk over the directory, each container appended whole.
        for i in 0..self.dir.n() {
            let (key, c) = self.container_at(i);
            crate::container::extract::extend(c, u32::from(key) << 16, out);
        }
    }

    /// Container `i` with its key (crate-internal access for writers and set operations).
    #[inline]
    pub(crate) fn container_at(&self, i: usize) -> (u16, Container<'a>) {
        (self.dir.key(i), self.dir.container(i))
    }
}

#[inline]
pub(crate) fn join(key: u16, lo: u16) -> u32 {
    (u32::from(key) << 16) | u32::from(lo)
}

/// `range` as an inclusive `(lo, hi)`, `None` if empty.
fn inclusive<R: RangeBounds<u32>>(range: R) -> Option<(u32, u32)> {
    let lo = match range.start_bound() {
        Bound::Included(&x) => x,
        Bound::Excluded(&x) => x.checked_add(1)?,
        Bound::Unbounded => 0,
    };
    let hi = match range.end_bound() {
        Bound::Included(&x) => x,
        Bound::Excluded(&x) => x.checked_sub(1)?,
        Bound::Unbounded => u32::MAX,
    };
    (lo <= hi).then_some((lo, hi))
}

impl PartialEq for FrozenBitmap<'_> {
    /// Set equality (whatever the container kinds or formats of the two bitmaps).
    fn eq(&self, other: &FrozenBitmap<'_>) -> bool {
        let n = self.dir.n();
        if n != other.dir.n() || self.len() != other.len() {
            return false;
        }
        (0..n).all(|i| {
            let (ka, a) = self.container_at(i);
            let (kb, b) = other.container_at(i);
            let card = self.dir.card(i);
            ka == kb && card == other.dir.card(i) && crate::container::equal(a, b, card)
        })
    }
}

impl Eq for FrozenBitmap<'_> {}

/// Hashes the length and each container's key and cardinality: O(containers), consistent
/// with `==` (equal sets have the same containers, whatever their kinds).
impl core::hash::Hash for FrozenBitmap<'_> {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.len().hash(state);
        for i in 0..self.dir.n() {
            (self.dir.key(i), self.dir.card(i)).hash(state);
        }
    }
}

impl fmt::Debug for FrozenBitmap<'_> {
    /// A short summary: size, container count and the first values.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct First<'a>(FrozenBitmap<'a>);
        impl fmt::Debug for First<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let mut l = f.debug_list();
                l.entries(self.0.iter().take(8));
                if self.0.len() > 8 {
                    l.entry(&format_args!(".."));
                }
                l.finish()
            }
        }
        f.debug_struct("FrozenBitmap")
            .field("len", &self.len())
            .field("containers", &self.dir.n())
            .field("bytes", &self.bytes.len())
            .field("values", &First(*self))
            .finish()
    }
}

impl<'a> IntoIterator for FrozenBitmap<'a> {
    type Item = u32;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &FrozenBitmap<'a> {
    type Item = u32;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}
