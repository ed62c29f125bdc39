//! [`FrozenBitmap64`]: zero-copy views of 64-bit Roaring bitmaps, in the 64-bit portable
//! format (Iceberg / Delta Lake deletion vectors, CRoaring `roaring64`, roaring-rs
//! `RoaringTreemap`, Go `roaring64`, Java `Roaring64NavigableMap`) and in this crate's
//! 64-bit frozen format (`format-spec/FORMAT64.md`).

use core::fmt;

mod iter;
mod query;

pub use iter::{Buckets, Iter64};
pub use query::LiveRanges64;

use crate::cast::{self, U32, U64};
use crate::error::{Error, ErrorKind, expect};
use crate::format::*;
use crate::view::{Format, FrozenBitmap, open};

/// A read-only 64-bit Roaring bitmap over borrowed bytes: a sorted list of buckets, each a
/// 32-bit bitmap holding the values that share their high 32 bits.
///
/// Two formats are read, told apart by their first bytes (see [`Format`]):
/// - the 64-bit **portable** format: `u64` bucket count, then per bucket a `u32` high key
///   and a 32-bit portable bitmap. It has no index, so finding a bucket walks the bucket
///   list (each step O(1)); fine for the usual handful of buckets.
/// - this crate's 64-bit **frozen** format (`format-spec/FORMAT64.md`): a directory of
///   high keys, offsets and cumulative counts, so `contains`, `rank` and `select` find
///   their bucket by binary search, and `len` is O(1).
///
/// `Copy`, never allocates, any alignment. The guarantees about corrupt payloads are those
/// of [`FrozenBitmap`].
///
/// ```
/// use frozen_roaring::{FrozenBitmap64, Writer};
/// let values = [1u64, 2, 1 << 40, u64::MAX];
/// let mut writer = Writer::new();
/// let (mut frozen, mut portable) = (Vec::new(), Vec::new());
/// writer.write_sorted64(values, &mut frozen)?;
/// writer.write_portable_sorted64(values, &mut portable)?;
/// for bytes in [&frozen, &portable] {
///     let bitmap = FrozenBitmap64::from_bytes(bytes)?;
///     assert_eq!(bitmap.len(), 4);
///     assert!(bitmap.contains(1 << 40));
///     assert_eq!(bitmap.rank(1 << 40), 3);
///     assert_eq!(bitmap.select(3), Some(u64::MAX));
///     assert!(bitmap.iter().eq(values));
/// }
/// # Ok::<(), frozen_roaring::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct FrozenBitmap64<'a> {
    bytes: &'a [u8],
    repr: Repr<'a>,
    len: u64,
}

#[derive(Clone, Copy)]
pub(crate) enum Repr<'a> {
    Frozen {
        keys: &'a [U32],
        offsets: &'a [U64],
        cums: &'a [U64],
        /// The bitmap's bytes without the trailer.
        body: &'a [u8],
    },
    Portable {
        /// Number of buckets.
        n: usize,
        /// The bytes after the bucket count.
        buckets: &'a [u8],
        /// How each bucket starts.
        layout: BucketLayout,
    },
}

/// How a bucket of a 64-bit portable bitmap starts. A word rather than a `bool`: the view
/// is built in registers and moved in words, and a byte flag among them was stored as a
/// byte and read back as part of a word, a store-forwarding stall on every open.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub(crate) enum BucketLayout {
    /// The portable layout: each bucket a `u32` key and the bitmap.
    Keyed = 0,
    /// Delta Lake's native layout (`RoaringBitmapArray`): each bucket a `u32` byte length
    /// and a 32-bit portable bitmap, its key the bucket's index.
    Sized = 1,
}

/// First bytes of a 64-bit frozen bitmap.
pub(crate) const MAGIC64: [u8; 4] = *b"FR64";
/// Bytes in the 64-bit frozen header.
pub(crate) const HEADER64_LEN: usize = 24;
/// Fewest bytes a bucket takes in the 64-bit frozen format (directory + bitmap header).
const MIN_FROZEN_BUCKET: usize = 4 + 8 + 8 + HEADER_LEN;
/// Fewest bytes a bucket takes in the 64-bit portable format (key + empty bitmap).
const MIN_PORTABLE_BUCKET: usize = 4 + 8;

/// Offset of the offsets array for `n` buckets (keys padded to 8 bytes).
#[inline]
pub(crate) const fn offsets64_at(n: usize) -> usize {
    align_up(HEADER64_LEN + 4 * n, 8)
}

/// Offset of the first possible bucket byte for `n` buckets.
#[inline]
pub(crate) const fn buckets64_at(n: usize) -> usize {
    offsets64_at(n) + 16 * n
}

impl<'a> FrozenBitmap64<'a> {
    /// Opens a 64-bit bitmap in either format, checking its structure: every bucket's
    /// header and directory, key order, offsets and counts, in O(buckets + containers).
    ///
    /// `bytes` must be exactly one bitmap. Never panics and never allocates, for any input;
    /// counts are bounded by the bytes present before they are used.
    ///
    /// # Errors
    ///
    /// `Truncated`, `Malformed`, `UnsupportedVersion` (and `BadMagic` for a bucket that is
    /// not a 32-bit bitmap), naming the field and its offset from the start of `bytes`.
    ///
    /// ```
    /// use frozen_roaring::{ErrorKind, FrozenBitmap64};
    /// let empty = 0u64.to_le_bytes(); // the empty 64-bit portable bitmap
    /// assert!(FrozenBitmap64::from_bytes(&empty)?.is_empty());
    /// let err = FrozenBitmap64::from_bytes(&5u64.to_le_bytes()).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Malformed); // 5 buckets cannot fit in 0 bytes
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn from_bytes(bytes: &'a [u8]) -> Result<FrozenBitmap64<'a>, Error> {
        if bytes.starts_with(&MAGIC64) {
            parse_frozen(bytes)
        } else if let Some((n, len, _)) = portable_facts(bytes) {
            Ok(portable_view(bytes, n, len))
        } else {
            parse_portable_cold(bytes)
        }
    }

    /// Opens a 64-bit bitmap and checks every Roaring invariant of every bucket (and the
    /// checksum, if any), in O(size). After `Ok`, every answer is exact.
    ///
    /// # Errors
    ///
    /// As [`from_bytes`](Self::from_bytes), plus `Corrupt` and `ChecksumMismatch`.
    pub fn from_bytes_strict(bytes: &'a [u8]) -> Result<FrozenBitmap64<'a>, Error> {
        let bm = FrozenBitmap64::from_bytes(bytes)?;
        bm.validate()?;
        Ok(bm)
    }

    /// Checks every bucket's payloads and the checksum (O(size)).
    ///
    /// # Errors
    ///
    /// The first violation found, with its offset from the start of the bitmap.
    pub fn validate(&self) -> Result<(), Error> {
        let base = self.bytes.as_ptr() as usize;
        // The buckets' structure was checked with the view's (every constructor of a
        // 64-bit view checks it): only their payloads are left.
        for (_, bucket) in self.buckets() {
            let at = (bucket.as_bytes().as_ptr() as usize).wrapping_sub(base);
            open::validate_checked(&bucket).map_err(|e| e.shifted(at))?;
        }
        if let Repr::Frozen { body, .. } = self.repr {
            let mut pos = buckets64_at(self.bucket_count());
            for (_, bucket) in self.buckets() {
                let at = (bucket.as_bytes().as_ptr() as usize).wrapping_sub(base);
                if body.get(pos..at).is_some_and(|p| p.iter().any(|&b| b != 0)) {
                    return Err(Error::corrupt("padding (must be zero)", pos));
                }
                pos = at + bucket.as_bytes().len();
            }
            if self.has_checksum() {
                crate::checksum::check_trailer(self.bytes)?;
            }
        }
        Ok(())
    }

    /// Whether the bitmap carries a CRC32C trailer (64-bit frozen format only).
    pub fn has_checksum(&self) -> bool {
        matches!(self.repr, Repr::Frozen { .. }) && self.bytes[5] & FLAG_CRC != 0
    }

    /// The format of the bytes this view reads.
    pub fn format(&self) -> Format {
        match self.repr {
            Repr::Frozen { .. } => Format::Frozen,
            Repr::Portable { .. } => Format::Portable,
        }
    }

    /// The bytes of the bitmap.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The number of values (O(1)).
    #[inline]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the bitmap holds no value.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of buckets (distinct high 32 bits).
    pub fn bucket_count(&self) -> usize {
        match self.repr {
            Repr::Frozen { keys, .. } => keys.len(),
            Repr::Portable { n, .. } => n,
        }
    }

    /// The buckets in ascending key order: `(high 32 bits, 32-bit bitmap of the low bits)`.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap64, Writer};
    /// let mut buf = Vec::new();
    /// Writer::new().write_sorted64([5, 6, 7 << 32], &mut buf)?;
    /// let buckets: Vec<(u32, u64)> =
    ///     FrozenBitmap64::from_bytes(&buf)?.buckets().map(|(k, b)| (k, b.len())).collect();
    /// assert_eq!(buckets, [(0, 2), (7, 1)]);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn buckets(&self) -> Buckets<'a> {
        Buckets::new(self.repr, self.bucket_count())
    }

    /// The bucket with high bits `key`, found by binary search in the frozen format and by
    /// walking the buckets in the portable one.
    pub fn bucket(&self, key: u32) -> Option<FrozenBitmap<'a>> {
        match self.repr {
            Repr::Frozen { keys, .. } => {
                let i = keys.binary_search_by(|k| k.get().cmp(&key)).ok()?;
                Some(frozen_bucket(&self.repr, i))
            }
            Repr::Portable { .. } => self
                .buckets()
                .take_while(|(k, _)| *k <= key)
                .find(|(k, _)| *k == key)
                .map(|(_, b)| b),
        }
    }

    /// Whether `value` is in the bitmap.
    #[inline]
    pub fn contains(&self, value: u64) -> bool {
        self.bucket((value >> 32) as u32)
            .is_some_and(|b| b.contains(value as u32))
    }

    /// The smallest value.
    pub fn min(&self) -> Option<u64> {
        self.buckets()
            .find_map(|(k, b)| b.min().map(|lo| join(k, lo)))
    }

    /// The largest value.
    pub fn max(&self) -> Option<u64> {
        match self.repr {
            Repr::Frozen { keys, .. } => (0..keys.len()).rev().find_map(|i| {
                frozen_bucket(&self.repr, i)
                    .max()
                    .map(|lo| join(keys[i].get(), lo))
            }),
            // Buckets of the portable format are found front to back: one pass.
            Repr::Portable { .. } => {
                let mut max = None;
                for (k, b) in self.buckets() {
                    max = b.max().map(|lo| join(k, lo)).or(max);
                }
                max
            }
        }
    }

    /// The number of values `<= value`.
    pub fn rank(&self, value: u64) -> u64 {
        let (hi, lo) = ((value >> 32) as u32, value as u32);
        match self.repr {
            Repr::Frozen { keys, cums, .. } => {
                let i = keys.partition_point(|k| k.get() < hi);
                let before = cums.get(i).map_or(self.len, |c| c.get());
                match keys.get(i) {
                    Some(k) if k.get() == hi => before + frozen_bucket(&self.repr, i).rank(lo),
                    _ => before,
                }
            }
            Repr::Portable { .. } => {
                let mut n = 0;
                for (k, b) in self.buckets() {
                    if k < hi {
                        n += b.len();
                    } else {
                        if k == hi {
                            n += b.rank(lo);
                        }
                        break;
                    }
                }
                n
            }
        }
    }

    /// The `n`-th smallest value (0-based), if there are more than `n` values.
    pub fn select(&self, n: u64) -> Option<u64> {
        if n >= self.len {
            return None;
        }
        match self.repr {
            Repr::Frozen { keys, cums, .. } => {
                let i = cums.partition_point(|c| c.get() <= n).checked_sub(1)?;
                let within = u32::try_from(n - cums[i].get()).ok()?;
                frozen_bucket(&self.repr, i)
                    .select(within)
                    .map(|lo| join(keys[i].get(), lo))
            }
            Repr::Portable { .. } => {
                let mut left = n;
                for (k, b) in self.buckets() {
                    let len = b.len();
                    if left < len {
                        return b.select(left as u32).map(|lo| join(k, lo));
                    }
                    left -= len;
                }
                None
            }
        }
    }

    /// The values in ascending order.
    pub fn iter(&self) -> Iter64<'a> {
        Iter64::new(self.buckets())
    }

    /// The number of values in both bitmaps, computed bucket by bucket from the bytes.
    pub fn intersection_len(&self, other: &FrozenBitmap64<'_>) -> u64 {
        let mut n = 0;
        merge(self, other, |a, b| {
            if let (Some(a), Some(b)) = (a, b) {
                n += a.intersection_len(&b);
            }
            true
        });
        n
    }

    /// The number of values in either bitmap.
    pub fn union_len(&self, other: &FrozenBitmap64<'_>) -> u64 {
        self.len + other.len - self.intersection_len(other)
    }

    /// Whether every value of `self` is in `other`.
    pub fn is_subset(&self, other: &FrozenBitmap64<'_>) -> bool {
        if self.len > other.len {
            return false;
        }
        let mut subset = true;
        merge(self, other, |a, b| {
            subset = match (a, b) {
                (Some(a), Some(b)) => a.is_subset(&b),
                (Some(a), None) => a.is_empty(),
                _ => true,
            };
            subset
        });
        subset
    }

    /// Whether every value of `other` is in `self`.
    pub fn is_superset(&self, other: &FrozenBitmap64<'_>) -> bool {
        other.is_subset(self)
    }

    /// The set as a roaring-rs treemap (feature `roaring`).
    #[cfg(feature = "roaring")]
    pub fn to_treemap(&self) -> roaring::RoaringTreemap {
        roaring::RoaringTreemap::from_bitmaps(
            self.buckets()
                .filter(|(_, b)| !b.is_empty())
                .map(|(k, b)| (k, b.to_roaring())),
        )
    }

    /// The values in a `Vec`.
    #[cfg(feature = "alloc")]
    pub fn to_vec(&self) -> alloc::vec::Vec<u64> {
        // The stored length is a claim of the bytes (exact only after `validate`): it bounds
        // the first reservation, and growth beyond the bound is amortized, so a corrupt
        // count cannot ask for more memory than the values actually present need.
        let claimed = usize::try_from(self.len).unwrap_or(usize::MAX);
        let mut v = alloc::vec::Vec::with_capacity(claimed.min(crate::view::FIRST_RESERVATION));
        self.extend_into(&mut v);
        v
    }

    /// Appends the values to `out` in ascending order (keeping what it held): each bucket's
    /// values taken in batches of 32-bit values (as [`Iter::next_many`] fills them,
    /// container by container) and widened in one loop; no allocation when `out` has room.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap64, Writer};
    /// let mut buf = Vec::new();
    /// Writer::new().write_sorted64([5, 6, 7 << 32], &mut buf)?;
    /// let mut out = vec![1];
    /// FrozenBitmap64::from_bytes(&buf)?.extend_into(&mut out);
    /// assert_eq!(out, [1, 5, 6, 7 << 32]);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    ///
    /// [`Iter::next_many`]: crate::Iter::next_many
    #[cfg(feature = "alloc")]
    pub fn extend_into(&self, out: &mut alloc::vec::Vec<u64>) {
        // A batch fits a few kilobytes of stack and is long enough that the loop per batch
        // costs little beside the values.
        let mut batch = [0u32; 1024];
        for (key, bucket) in self.buckets() {
            let high = u64::from(key) << 32;
            let mut it = bucket.iter();
            loop {
                let values = it.next_many(&mut batch);
                if values.is_empty() {
                    break;
                }
                out.extend(values.iter().map(|&v| high | u64::from(v)));
            }
        }
    }
}

/// Calls `f` with the buckets of `a` and `b` paired by key, in key order, until it returns
/// `false`.
pub(crate) fn merge<'x, 'y>(
    a: &FrozenBitmap64<'x>,
    b: &FrozenBitmap64<'y>,
    mut f: impl FnMut(Option<FrozenBitmap<'x>>, Option<FrozenBitmap<'y>>) -> bool,
) {
    let (mut ia, mut ib) = (a.buckets().peekable(), b.buckets().peekable());
    loop {
        let go = match (ia.peek(), ib.peek()) {
            (Some(&(ka, _)), Some(&(kb, _))) if ka == kb => {
                let (x, y) = (ia.next().map(|p| p.1), ib.next().map(|p| p.1));
                f(x, y)
            }
            (Some(&(ka, _)), Some(&(kb, _))) if ka < kb => f(ia.next().map(|p| p.1), None),
            (Some(_), Some(_)) => f(None, ib.next().map(|p| p.1)),
            (Some(_), None) => f(ia.next().map(|p| p.1), None),
            (None, Some(_)) => f(None, ib.next().map(|p| p.1)),
            (None, None) => return,
        };
        if !go {
            return;
        }
    }
}

#[inline]
pub(crate) fn join(key: u32, lo: u32) -> u64 {
    (u64::from(key) << 32) | u64::from(lo)
}

/// Bucket `i` of a frozen 64-bit bitmap (checked at construction, so opened unchecked).
pub(crate) fn frozen_bucket<'a>(repr: &Repr<'a>, i: usize) -> FrozenBitmap<'a> {
    let Repr::Frozen { offsets, body, .. } = *repr else {
        return open::unchecked(&[]);
    };
    let start = offsets.get(i).map_or(0, |o| o.get() as usize);
    open::unchecked(body.get(start..).unwrap_or(&[]))
}

impl PartialEq for FrozenBitmap64<'_> {
    /// Set equality, whatever the formats.
    fn eq(&self, other: &FrozenBitmap64<'_>) -> bool {
        self.len == other.len && self.is_subset(other)
    }
}

impl fmt::Debug for FrozenBitmap64<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FrozenBitmap64")
            .field("format", &self.format())
            .field("len", &self.len)
            .field("buckets", &self.bucket_count())
            .finish_non_exhaustive()
    }
}

impl<'a> IntoIterator for &FrozenBitmap64<'a> {
    type Item = u64;
    type IntoIter = Iter64<'a>;
    fn into_iter(self) -> Iter64<'a> {
        self.iter()
    }
}

/// Checked parse of Delta Lake's native 64-bit layout (`RoaringBitmapArray`, the bytes after
/// its magic): a `u32` LE bucket count, then per bucket a `u32` LE byte length and a
/// 32-bit portable bitmap of exactly that many bytes, the bucket's key its index.
///
/// Also returns the key of the last bucket that holds a value.
pub(crate) fn parse_delta_native(bytes: &[u8]) -> Result<(FrozenBitmap64<'_>, Option<u32>), Error> {
    let n = cast::read_u32(bytes, 0)
        .ok_or_else(|| Error::truncated("bucket count", 0, 4, bytes.len() as u64))?;
    // A bucket takes at least its length field and an empty bitmap's 8 bytes.
    let most = (bytes.len() - 4) / 12;
    if n as usize > most {
        return Err(
            Error::malformed("bucket count (more buckets than the bytes can hold)", 0)
                .values(most as u64, u64::from(n)),
        );
    }
    let buckets = &bytes[4..];
    let (mut pos, mut len, mut top) = (0usize, 0u64, None);
    for key in 0..n {
        let at = 4 + pos;
        let size = cast::read_u32(buckets, pos).ok_or_else(|| {
            Error::truncated("bucket length", at, at as u64 + 4, bytes.len() as u64)
        })? as usize;
        let Some(body) = buckets.get(pos + 4..).and_then(|r| r.get(..size)) else {
            return Err(Error::truncated(
                "bucket",
                at + 4,
                (at + 4 + size) as u64,
                bytes.len() as u64,
            ));
        };
        if body.starts_with(&MAGIC) {
            return Err(Error::bad_magic(expect::BUCKET, body, at + 4));
        }
        let (card, bytes_len) = open::parse_len(body).map_err(|e| e.shifted(at + 4))?;
        if bytes_len != size {
            return Err(
                Error::malformed("bucket length (the bitmap ends before it)", at)
                    .values(bytes_len as u64, size as u64),
            );
        }
        if card != 0 {
            top = Some(key);
        }
        len += card;
        pos += 4 + size;
    }
    if pos != buckets.len() {
        return Err(
            Error::malformed("end of the last bucket (bytes follow the bitmap)", 4 + pos)
                .values((4 + pos) as u64, bytes.len() as u64),
        );
    }
    let bm = FrozenBitmap64 {
        bytes,
        repr: Repr::Portable {
            n: n as usize,
            buckets,
            layout: BucketLayout::Sized,
        },
        len,
    };
    Ok((bm, top))
}

/// Checked parse of the 64-bit portable format.
///
/// Also returns the key of the last bucket that holds a value. Always inline, so that the
/// view is built in the caller's frame (see [`open_body`](crate::dv::open_body)).
#[inline(always)]
pub(crate) fn parse_portable(bytes: &[u8]) -> Result<(FrozenBitmap64<'_>, Option<u32>), Error> {
    let n = cast::read_u64(bytes, 0)
        .ok_or_else(|| Error::truncated("bucket count", 0, 8, bytes.len() as u64))?;
    let most = (bytes.len() - 8) / MIN_PORTABLE_BUCKET;
    if n > most as u64 {
        return Err(
            Error::malformed("bucket count (more buckets than the bytes can hold)", 0)
                .values(most as u64, n),
        );
    }
    let n = n as usize;
    let buckets = &bytes[8..];
    let (mut pos, mut len, mut prev, mut top) = (0usize, 0u64, None::<u32>, None);
    for _ in 0..n {
        let at = 8 + pos;
        let key = cast::read_u32(buckets, pos)
            .ok_or_else(|| Error::truncated("bucket key", at, at as u64 + 4, bytes.len() as u64))?;
        if prev.is_some_and(|p| key <= p) {
            return Err(
                Error::malformed("bucket key (keys must be strictly increasing)", at)
                    .values(u64::from(prev.unwrap_or(0)) + 1, u64::from(key)),
            );
        }
        prev = Some(key);
        let rest = &buckets[pos + 4..];
        if rest.starts_with(&MAGIC) {
            return Err(Error::bad_magic(expect::BUCKET, rest, at + 4));
        }
        let (card, bytes_len) = open::parse_len(rest).map_err(|e| e.shifted(at + 4))?;
        if card != 0 {
            top = Some(key);
        }
        len += card;
        pos += 4 + bytes_len;
    }
    if pos != buckets.len() {
        return Err(
            Error::malformed("end of the last bucket (bytes follow the bitmap)", 8 + pos)
                .values((8 + pos) as u64, bytes.len() as u64),
        );
    }
    let bm = FrozenBitmap64 {
        bytes,
        repr: Repr::Portable {
            n,
            buckets,
            layout: BucketLayout::Keyed,
        },
        len,
    };
    Ok((bm, top))
}

/// [`parse_portable`] where [`portable_facts`] did not answer: it decides, and names the
/// fault, so the fast path never rejects what the full parse accepts.
#[cold]
#[inline(never)]
fn parse_portable_cold(bytes: &[u8]) -> Result<FrozenBitmap64<'_>, Error> {
    parse_portable(bytes).map(|(bm, _)| bm)
}

/// [`parse_portable`]'s checks answered in registers: the bucket count, the cardinality
/// and the key of the last bucket that holds a value; `None` if a check fails or a bucket
/// is not a portable stream (then [`parse_portable`] decides, and names the fault). The
/// deletion-vector open takes this path: the `Result` of the whole view, built on the
/// way, went through memory and was read back wider than written on every open.
#[inline(always)]
pub(crate) fn portable_facts(bytes: &[u8]) -> Option<(usize, u64, Option<u32>)> {
    let n = cast::read_u64(bytes, 0)?;
    let buckets = bytes.get(8..)?;
    if n > (buckets.len() / MIN_PORTABLE_BUCKET) as u64 {
        return None;
    }
    let (mut pos, mut len, mut prev, mut top) = (0usize, 0u64, -1i64, None);
    for _ in 0..n {
        let key = cast::read_u32(buckets, pos)?;
        if i64::from(key) <= prev {
            return None;
        }
        prev = i64::from(key);
        let rest = buckets.get(pos + 4..)?;
        if rest.starts_with(&MAGIC) {
            return None;
        }
        let (card, bytes_len) = open::portable_len(rest)?;
        if card != 0 {
            top = Some(key);
        }
        len += card;
        pos += 4 + bytes_len;
    }
    (pos == buckets.len()).then_some((n as usize, len, top))
}

/// The view of a 64-bit portable bitmap whose checks [`portable_facts`] passed with `n`
/// buckets and cardinality `len`.
#[inline(always)]
pub(crate) fn portable_view(bytes: &[u8], n: usize, len: u64) -> FrozenBitmap64<'_> {
    FrozenBitmap64 {
        bytes,
        repr: Repr::Portable {
            n,
            buckets: bytes.get(8..).unwrap_or(&[]),
            layout: BucketLayout::Keyed,
        },
        len,
    }
}

/// The view of a 64-bit frozen bitmap this crate wrote, in O(1) with no check (an empty
/// view where the directory does not fit the bytes, so wrong bytes stay memory-safe).
#[cfg(feature = "alloc")]
pub(crate) fn trusted_frozen(bytes: &[u8]) -> FrozenBitmap64<'_> {
    let empty = FrozenBitmap64 {
        bytes,
        repr: Repr::Frozen {
            keys: &[],
            offsets: &[],
            cums: &[],
            body: &[],
        },
        len: 0,
    };
    let n = cast::read_u32(bytes, 8).unwrap_or(0) as usize;
    let trailer = if bytes.get(5).is_some_and(|f| f & FLAG_CRC != 0) {
        TRAILER_LEN
    } else {
        0
    };
    let Some(body) = bytes.get(..bytes.len().saturating_sub(trailer)) else {
        return empty;
    };
    let dir = || -> Option<_> {
        let end = buckets64_at(n);
        let keys = cast::u32s(body.get(HEADER64_LEN..HEADER64_LEN.checked_add(4 * n)?)?)?;
        let offsets = cast::u64s(body.get(offsets64_at(n)..offsets64_at(n) + 8 * n)?)?;
        let cums = cast::u64s(body.get(offsets64_at(n) + 8 * n..end)?)?;
        Some((keys, offsets, cums))
    };
    let Some((keys, offsets, cums)) = dir() else {
        return empty;
    };
    let repr = Repr::Frozen {
        keys,
        offsets,
        cums,
        body,
    };
    let len = match (n.checked_sub(1), cums.last()) {
        (Some(last), Some(c)) => c.get() + frozen_bucket(&repr, last).len(),
        _ => 0,
    };
    FrozenBitmap64 { bytes, repr, len }
}

/// Checked parse of the 64-bit frozen format (`format-spec/FORMAT64.md`).
fn parse_frozen(bytes: &[u8]) -> Result<FrozenBitmap64<'_>, Error> {
    if bytes.len() < HEADER64_LEN {
        return Err(Error::truncated(
            "header",
            0,
            HEADER64_LEN as u64,
            bytes.len() as u64,
        ));
    }
    if bytes[4] != VERSION {
        return Err(Error::new(ErrorKind::UnsupportedVersion, "version", 4)
            .values(u64::from(VERSION), u64::from(bytes[4])));
    }
    let flags = bytes[5];
    if flags & !FLAG_CRC != 0 {
        return Err(Error::malformed("flags (unknown bits set)", 5)
            .values(u64::from(FLAG_CRC), u64::from(flags)));
    }
    if bytes[6..8] != [0, 0] || bytes[12..16] != [0; 4] {
        return Err(Error::malformed("reserved header field (must be 0)", 6));
    }
    let n = cast::read_u32(bytes, 8).unwrap_or(0) as usize;
    let total = cast::read_u64(bytes, 16).unwrap_or(0);
    let trailer = if flags & FLAG_CRC != 0 {
        TRAILER_LEN
    } else {
        0
    };
    if total > bytes.len() as u64 {
        return Err(Error::truncated("bitmap", 0, total, bytes.len() as u64));
    }
    if total != bytes.len() as u64 {
        return Err(
            Error::malformed("total length (the slice is longer than the bitmap)", 16)
                .values(total, bytes.len() as u64),
        );
    }
    let most = (bytes.len() - HEADER64_LEN) / MIN_FROZEN_BUCKET;
    if n > most {
        return Err(
            Error::malformed("bucket count (more buckets than the bytes can hold)", 8)
                .values(most as u64, n as u64),
        );
    }
    let dir_end = buckets64_at(n);
    if dir_end + trailer > bytes.len() {
        return Err(Error::truncated(
            "bucket directory",
            HEADER64_LEN,
            (dir_end + trailer) as u64,
            bytes.len() as u64,
        ));
    }
    let body = &bytes[..bytes.len() - trailer];
    let dir = || -> Option<_> {
        let keys = cast::u32s(body.get(HEADER64_LEN..HEADER64_LEN + 4 * n)?)?;
        let offsets = cast::u64s(body.get(offsets64_at(n)..offsets64_at(n) + 8 * n)?)?;
        let cums = cast::u64s(body.get(offsets64_at(n) + 8 * n..dir_end)?)?;
        Some((keys, offsets, cums))
    };
    let (keys, offsets, cums) =
        dir().ok_or_else(|| Error::malformed("bucket directory", HEADER64_LEN))?;
    if body[HEADER64_LEN + 4 * n..offsets64_at(n)]
        .iter()
        .any(|&b| b != 0)
    {
        return Err(Error::malformed(
            "directory padding (must be 0)",
            HEADER64_LEN + 4 * n,
        ));
    }
    let (mut pos, mut len) = (dir_end, 0u64);
    for i in 0..n {
        let key = keys[i].get();
        if i > 0 && key <= keys[i - 1].get() {
            return Err(Error::malformed(
                "bucket key (keys must be strictly increasing)",
                HEADER64_LEN + 4 * i,
            )
            .values(u64::from(keys[i - 1].get()) + 1, u64::from(key)));
        }
        let off_at = offsets64_at(n) + 8 * i;
        let off = offsets[i].get();
        if off < pos as u64 || off % 4 != 0 || off >= body.len() as u64 {
            return Err(Error::malformed(
                "bucket offset (must be 4-aligned, after the previous bucket and in bounds)",
                off_at,
            )
            .values(pos as u64, off));
        }
        let off = off as usize;
        // The bucket ends at the next offset; a wrong next offset is reported with its bucket.
        let end = match offsets.get(i + 1).map(|o| o.get()) {
            Some(next) if next >= off as u64 && next <= body.len() as u64 => next as usize,
            _ => body.len(),
        };
        let parsed = open::parse(&body[off..end]).map_err(|e| e.shifted(off))?;
        if parsed.bm.format() != Format::Frozen || parsed.bm.has_checksum() {
            return Err(Error::malformed(
                "bucket bitmap (must be a frozen bitmap without checksum)",
                off,
            ));
        }
        let cum_at = offsets64_at(n) + 8 * n + 8 * i;
        if cums[i].get() != len {
            return Err(Error::malformed("cumulative count", cum_at).values(len, cums[i].get()));
        }
        len += parsed.bm.len();
        pos = off + parsed.len;
    }
    if pos != body.len() {
        return Err(
            Error::malformed("total length (bytes after the last bucket)", 16)
                .values(pos as u64, body.len() as u64),
        );
    }
    Ok(FrozenBitmap64 {
        bytes,
        repr: Repr::Frozen {
            keys,
            offsets,
            cums,
            body,
        },
        len,
    })
}
