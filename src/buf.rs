//! [`FrozenBitmapBuf`], a bitmap that owns its bytes: the result of the convenience forms
//! of the set operations and the operators (`&a & &b`, `buf |= &view`, ...), written by a
//! [`Writer`].

use alloc::vec::Vec;
use core::borrow::Borrow;
use core::fmt;
use core::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Sub, SubAssign};

use crate::algebra::Op;
use crate::view::FrozenBitmap;
use crate::write::Writer;

/// A bitmap that owns its bytes (frozen format): the result of the convenience forms of the
/// set operations ([`FrozenBitmap::intersection`], `&a & &b`, ...). Query it through
/// [`as_view`](Self::as_view) (O(1)); keep its bytes with [`into_bytes`](Self::into_bytes).
/// It does not implement `Deref<Target = FrozenBitmap>`: a view borrows the bytes, and
/// `Deref` cannot return a value that borrows from `self` without unsafe self-reference.
///
/// ```
/// use frozen_roaring::{FrozenBitmap, Writer};
/// let mut w = Writer::new();
/// let (mut a, mut b) = (Vec::new(), Vec::new());
/// w.write_sorted([1, 2, 3, 100], &mut a)?;
/// w.write_sorted([2, 3, 4], &mut b)?;
/// let (a, b) = (FrozenBitmap::from_bytes(&a)?, FrozenBitmap::from_bytes(&b)?);
/// let both = &a & &b;
/// assert_eq!(both.as_view().to_vec(), [2, 3]);
/// assert_eq!((&a | &b).len(), 5);
/// assert_eq!((&a - &b).as_view().to_vec(), [1, 100]);
/// assert_eq!((&a ^ &b).as_view().to_vec(), [1, 4, 100]);
/// # Ok::<(), frozen_roaring::Error>(())
/// ```
///
/// The operators also take views by value (a view is `Copy`), an owned bitmap on either
/// side, and assign (`buf &= &view`, `buf |= &other_buf`, ...: the bitmap's bytes are
/// replaced by the result):
///
/// ```
/// use frozen_roaring::FrozenBitmapBuf;
/// let a = FrozenBitmapBuf::from_sorted_iter([1, 2, 3])?;
/// let b = FrozenBitmapBuf::from_sorted_iter([3, 4])?;
/// let (va, vb) = (a.as_view(), b.as_view());
/// assert_eq!((va | vb).as_view().to_vec(), [1, 2, 3, 4]);
/// assert_eq!((&(&a & &vb) | &va).as_view().to_vec(), [1, 2, 3]);
/// let mut acc = &va ^ &b;
/// acc -= &vb;
/// acc |= &a;
/// assert_eq!(acc.as_view().to_vec(), [1, 2, 3]);
/// # Ok::<(), frozen_roaring::Error>(())
/// ```
#[derive(Clone)]
pub struct FrozenBitmapBuf {
    bytes: Vec<u8>,
}

/// Equal when they hold the same set, whatever their formats or container kinds, as views
/// compare.
impl PartialEq for FrozenBitmapBuf {
    fn eq(&self, other: &Self) -> bool {
        self.as_view() == other.as_view()
    }
}

impl Eq for FrozenBitmapBuf {}

/// Hashes the set (consistent with `==`, as for views): O(values).
impl core::hash::Hash for FrozenBitmapBuf {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.as_view().hash(state);
    }
}

/// The empty bitmap.
impl Default for FrozenBitmapBuf {
    fn default() -> Self {
        FrozenBitmapBuf::from_sorted_iter([]).expect("no values are in order")
    }
}

/// Collects values in any order, with repeats: sorted and deduplicated first (the values
/// are held in memory once), then written.
///
/// ```
/// use frozen_roaring::FrozenBitmapBuf;
/// let b: FrozenBitmapBuf = [9, 3, 3, 70_000].into_iter().collect();
/// assert_eq!(b.as_view().to_vec(), [3, 9, 70_000]);
/// ```
impl FromIterator<u32> for FrozenBitmapBuf {
    fn from_iter<I: IntoIterator<Item = u32>>(values: I) -> Self {
        let mut v: Vec<u32> = values.into_iter().collect();
        v.sort_unstable();
        v.dedup();
        FrozenBitmapBuf::from_sorted_iter(v).expect("sorted and deduplicated")
    }
}

/// A range of values, written as runs (no work per value).
///
/// ```
/// use frozen_roaring::FrozenBitmapBuf;
/// let b = FrozenBitmapBuf::from(5..=1_000_000);
/// assert_eq!((b.len(), b.as_view().min(), b.as_view().max()), (999_996, Some(5), Some(1_000_000)));
/// ```
impl From<core::ops::RangeInclusive<u32>> for FrozenBitmapBuf {
    fn from(range: core::ops::RangeInclusive<u32>) -> Self {
        let mut w = Writer::new();
        let mut b = w.builder();
        // An empty range (start > end) gives the empty bitmap.
        let _ = b.push_range(range);
        let mut bytes = Vec::new();
        b.finish(&mut bytes);
        FrozenBitmapBuf { bytes }
    }
}

impl FrozenBitmapBuf {
    /// Writes strictly ascending values into an owned bitmap.
    ///
    /// # Errors
    ///
    /// `NotAscending`, as [`Writer::write_sorted`].
    pub fn from_sorted_iter<I: IntoIterator<Item = u32>>(values: I) -> Result<Self, crate::Error> {
        let mut bytes = Vec::new();
        Writer::new().write_sorted(values, &mut bytes)?;
        Ok(FrozenBitmapBuf { bytes })
    }

    /// Takes bytes that hold exactly one bitmap (either format), checking them as
    /// [`FrozenBitmap::from_bytes`] does.
    ///
    /// # Errors
    ///
    /// The errors of [`FrozenBitmap::from_bytes`].
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Self, crate::Error> {
        FrozenBitmap::from_bytes(&bytes)?;
        Ok(FrozenBitmapBuf { bytes })
    }

    /// Takes bytes already checked by `FrozenBitmap::from_bytes`.
    #[cfg(feature = "std")]
    pub(crate) fn from_checked(bytes: Vec<u8>) -> Self {
        FrozenBitmapBuf { bytes }
    }

    /// The bitmap a new `Writer` writes into an empty buffer through `write` (a set
    /// operation on views, which cannot fail; the bytes need no check).
    fn written_by(
        write: impl FnOnce(&mut Writer, &mut Vec<u8>) -> Result<core::ops::Range<usize>, crate::Error>,
    ) -> Self {
        let mut bytes = Vec::new();
        let _ = write(&mut Writer::new(), &mut bytes);
        FrozenBitmapBuf { bytes }
    }

    /// The view of the bitmap, in O(1): the bytes were written by this crate or checked
    /// when the buffer was made, so they are not checked again.
    #[inline]
    pub fn as_view(&self) -> FrozenBitmap<'_> {
        crate::view::open::unchecked(&self.bytes)
    }

    /// The number of values.
    pub fn len(&self) -> u64 {
        self.as_view().len()
    }

    /// Whether the bitmap holds no value.
    pub fn is_empty(&self) -> bool {
        self.as_view().is_empty()
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The bytes, to store.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

impl AsRef<[u8]> for FrozenBitmapBuf {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl fmt::Debug for FrozenBitmapBuf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_view().fmt(f)
    }
}

impl<'a> FrozenBitmap<'a> {
    fn op_buf(&self, other: &FrozenBitmap<'_>, op: Op) -> FrozenBitmapBuf {
        FrozenBitmapBuf::written_by(|w, out| w.binary_into(op, self, other, out))
    }

    /// The values in both bitmaps, as an owned bitmap (see
    /// [`Writer::intersection_into`] to write into a buffer you reuse).
    pub fn intersection(&self, other: &FrozenBitmap<'_>) -> FrozenBitmapBuf {
        self.op_buf(other, Op::And)
    }

    /// The values in either bitmap, as an owned bitmap.
    pub fn union(&self, other: &FrozenBitmap<'_>) -> FrozenBitmapBuf {
        self.op_buf(other, Op::Or)
    }

    /// The values of `self` not in `other`, as an owned bitmap.
    pub fn difference(&self, other: &FrozenBitmap<'_>) -> FrozenBitmapBuf {
        self.op_buf(other, Op::AndNot)
    }

    /// The values in exactly one of the bitmaps, as an owned bitmap.
    pub fn symmetric_difference(&self, other: &FrozenBitmap<'_>) -> FrozenBitmapBuf {
        self.op_buf(other, Op::Xor)
    }
}

/// Many-way forms returning an owned bitmap (see [`Writer::union_many_into`] and the others
/// to write into a buffer you reuse).
///
/// ```
/// use frozen_roaring::{FrozenBitmap, FrozenBitmapBuf};
/// let sets = [vec![1, 2, 3], vec![2, 3, 4], vec![3, 4, 5]];
/// let bufs: Vec<FrozenBitmapBuf> =
///     sets.iter().map(|s| FrozenBitmapBuf::from_sorted_iter(s.iter().copied()).unwrap()).collect();
/// let views: Vec<FrozenBitmap> = bufs.iter().map(|b| b.as_view()).collect();
/// assert_eq!(FrozenBitmapBuf::union_many(&views).as_view().to_vec(), [1, 2, 3, 4, 5]);
/// assert_eq!(FrozenBitmapBuf::intersection_many(&views).as_view().to_vec(), [3]);
/// assert_eq!(FrozenBitmapBuf::symmetric_difference_many(&views).as_view().to_vec(), [1, 3, 5]);
/// assert_eq!(FrozenBitmapBuf::difference_many(&views).as_view().to_vec(), [1]);
/// ```
impl FrozenBitmapBuf {
    /// The values in any of the bitmaps.
    pub fn union_many<'a, I>(bitmaps: I) -> FrozenBitmapBuf
    where
        I: IntoIterator,
        I::Item: Borrow<FrozenBitmap<'a>>,
    {
        FrozenBitmapBuf::written_by(|w, out| w.union_many_into(bitmaps, out))
    }

    /// The values in every one of the bitmaps (none if there is no bitmap).
    pub fn intersection_many<'a, I>(bitmaps: I) -> FrozenBitmapBuf
    where
        I: IntoIterator,
        I::Item: Borrow<FrozenBitmap<'a>>,
    {
        FrozenBitmapBuf::written_by(|w, out| w.intersection_many_into(bitmaps, out))
    }

    /// The values of the first bitmap that are in none of the others.
    pub fn difference_many<'a, I>(bitmaps: I) -> FrozenBitmapBuf
    where
        I: IntoIterator,
        I::Item: Borrow<FrozenBitmap<'a>>,
    {
        FrozenBitmapBuf::written_by(|w, out| w.difference_many_into(bitmaps, out))
    }

    /// The values in an odd number of the bitmaps.
    pub fn symmetric_difference_many<'a, I>(bitmaps: I) -> FrozenBitmapBuf
    where
        I: IntoIterator,
        I::Item: Borrow<FrozenBitmap<'a>>,
    {
        FrozenBitmapBuf::written_by(|w, out| w.symmetric_difference_many_into(bitmaps, out))
    }
}

// The operators between views (by reference or by value), owned bitmaps, and the two
// mixed, and the assigning forms on owned bitmaps.
macro_rules! operator {
    ($trait:ident, $method:ident, $assign:ident, $assign_method:ident, $op:expr, $doc:literal) => {
        #[doc = $doc]
        impl<'b> $trait<&FrozenBitmap<'b>> for &FrozenBitmap<'_> {
            type Output = FrozenBitmapBuf;
            fn $method(self, rhs: &FrozenBitmap<'b>) -> FrozenBitmapBuf {
                self.op_buf(rhs, $op)
            }
        }
        #[doc = $doc]
        impl<'b> $trait<FrozenBitmap<'b>> for FrozenBitmap<'_> {
            type Output = FrozenBitmapBuf;
            fn $method(self, rhs: FrozenBitmap<'b>) -> FrozenBitmapBuf {
                self.op_buf(&rhs, $op)
            }
        }
        #[doc = $doc]
        impl $trait<&FrozenBitmapBuf> for &FrozenBitmapBuf {
            type Output = FrozenBitmapBuf;
            fn $method(self, rhs: &FrozenBitmapBuf) -> FrozenBitmapBuf {
                self.as_view().op_buf(&rhs.as_view(), $op)
            }
        }
        #[doc = $doc]
        impl<'b> $trait<&FrozenBitmap<'b>> for &FrozenBitmapBuf {
            type Output = FrozenBitmapBuf;
            fn $method(self, rhs: &FrozenBitmap<'b>) -> FrozenBitmapBuf {
                self.as_view().op_buf(rhs, $op)
            }
        }
        #[doc = $doc]
        impl $trait<&FrozenBitmapBuf> for &FrozenBitmap<'_> {
            type Output = FrozenBitmapBuf;
            fn $method(self, rhs: &FrozenBitmapBuf) -> FrozenBitmapBuf {
                self.op_buf(&rhs.as_view(), $op)
            }
        }
        #[doc = $doc]
        impl<'b> $assign<&FrozenBitmap<'b>> for FrozenBitmapBuf {
            fn $assign_method(&mut self, rhs: &FrozenBitmap<'b>) {
                *self = self.as_view().op_buf(rhs, $op);
            }
        }
        #[doc = $doc]
        impl $assign<&FrozenBitmapBuf> for FrozenBitmapBuf {
            fn $assign_method(&mut self, rhs: &FrozenBitmapBuf) {
                *self = self.as_view().op_buf(&rhs.as_view(), $op);
            }
        }
    };
}

operator!(
    BitAnd,
    bitand,
    BitAndAssign,
    bitand_assign,
    Op::And,
    "Intersection."
);
operator!(BitOr, bitor, BitOrAssign, bitor_assign, Op::Or, "Union.");
operator!(Sub, sub, SubAssign, sub_assign, Op::AndNot, "Difference.");
operator!(
    BitXor,
    bitxor,
    BitXorAssign,
    bitxor_assign,
    Op::Xor,
    "Symmetric difference."
);
