//! [`FrozenBitmap64Buf`], a 64-bit bitmap that owns its bytes (64-bit frozen format): the
//! result of the convenience forms of the 64-bit set operations, written by a [`Writer`].

use alloc::vec::Vec;
use core::borrow::Borrow;
use core::fmt;

use crate::view64::{self, FrozenBitmap64};
use crate::write::Writer;

/// A 64-bit bitmap that owns its bytes (64-bit frozen format). Query it through
/// [`as_view`](Self::as_view) (O(1)); keep its bytes with [`into_bytes`](Self::into_bytes).
///
/// ```
/// use frozen_roaring::{FrozenBitmap64Buf, Writer};
/// let a = FrozenBitmap64Buf::from_sorted_iter([1, 2, 1 << 40])?;
/// let b: FrozenBitmap64Buf = [2, 3, 1 << 40].into_iter().collect();
/// let both = a.as_view().intersection(&b.as_view());
/// assert_eq!(both.as_view().to_vec(), [2, 1 << 40]);
/// assert_eq!(a.as_view().union(&b.as_view()).len(), 4);
/// # Ok::<(), frozen_roaring::Error>(())
/// ```
#[derive(Clone)]
pub struct FrozenBitmap64Buf {
    bytes: Vec<u8>,
}

impl FrozenBitmap64Buf {
    /// Writes strictly ascending values into an owned bitmap.
    ///
    /// # Errors
    ///
    /// `NotAscending`, as [`Writer::write_sorted64`].
    pub fn from_sorted_iter<I: IntoIterator<Item = u64>>(values: I) -> Result<Self, crate::Error> {
        let mut bytes = Vec::new();
        Writer::new().write_sorted64(values, &mut bytes)?;
        Ok(FrozenBitmap64Buf { bytes })
    }

    /// Takes the bytes of one 64-bit bitmap in either format, checked as
    /// [`FrozenBitmap64::from_bytes`] does; portable bytes are re-encoded in the frozen
    /// format.
    ///
    /// # Errors
    ///
    /// The errors of [`FrozenBitmap64::from_bytes`].
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Self, crate::Error> {
        let view = FrozenBitmap64::from_bytes(&bytes)?;
        if view.format() == crate::Format::Frozen {
            return Ok(FrozenBitmap64Buf { bytes });
        }
        Ok(FrozenBitmap64Buf::written_by(|w, out| {
            w.union64_many_into([view], out)
        }))
    }

    /// The bitmap `write` writes with a new `Writer` into an empty buffer (a set operation
    /// on views, which cannot fail).
    fn written_by(
        write: impl FnOnce(&mut Writer, &mut Vec<u8>) -> Result<core::ops::Range<usize>, crate::Error>,
    ) -> Self {
        let mut bytes = Vec::new();
        let _ = write(&mut Writer::new(), &mut bytes);
        FrozenBitmap64Buf { bytes }
    }

    /// The view of the bitmap, in O(1): the bytes were written by this crate or checked
    /// when the buffer was made.
    #[inline]
    pub fn as_view(&self) -> FrozenBitmap64<'_> {
        view64::trusted_frozen(&self.bytes)
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

    /// The union of any number of 64-bit bitmaps (see [`Writer::union64_many_into`]).
    pub fn union_many<'a, I>(bitmaps: I) -> FrozenBitmap64Buf
    where
        I: IntoIterator,
        I::Item: Borrow<FrozenBitmap64<'a>>,
    {
        FrozenBitmap64Buf::written_by(|w, out| w.union64_many_into(bitmaps, out))
    }
}

/// Set equality, as for views.
impl PartialEq for FrozenBitmap64Buf {
    fn eq(&self, other: &Self) -> bool {
        self.as_view() == other.as_view()
    }
}

impl Eq for FrozenBitmap64Buf {}

/// Hashes the set (consistent with `==`): O(values).
impl core::hash::Hash for FrozenBitmap64Buf {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        let v = self.as_view();
        state.write_u64(v.len());
        for x in v.iter() {
            state.write_u64(x);
        }
    }
}

/// The empty bitmap.
impl Default for FrozenBitmap64Buf {
    fn default() -> Self {
        FrozenBitmap64Buf::from_sorted_iter([]).expect("no values are in order")
    }
}

/// Collects values in any order, with repeats: sorted and deduplicated first, then
/// written.
impl FromIterator<u64> for FrozenBitmap64Buf {
    fn from_iter<I: IntoIterator<Item = u64>>(values: I) -> Self {
        let mut v: Vec<u64> = values.into_iter().collect();
        v.sort_unstable();
        v.dedup();
        FrozenBitmap64Buf::from_sorted_iter(v).expect("sorted and deduplicated")
    }
}

impl AsRef<[u8]> for FrozenBitmap64Buf {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl fmt::Debug for FrozenBitmap64Buf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_view().fmt(f)
    }
}

impl FrozenBitmap64<'_> {
    /// The values in both bitmaps, as an owned bitmap (see
    /// [`Writer::intersection64_into`] to write into a buffer you reuse).
    pub fn intersection(&self, other: &FrozenBitmap64<'_>) -> FrozenBitmap64Buf {
        FrozenBitmap64Buf::written_by(|w, out| w.intersection64_into(self, other, out))
    }

    /// The values in either bitmap, as an owned bitmap.
    pub fn union(&self, other: &FrozenBitmap64<'_>) -> FrozenBitmap64Buf {
        FrozenBitmap64Buf::written_by(|w, out| w.union64_into(self, other, out))
    }

    /// The values of `self` not in `other`, as an owned bitmap.
    pub fn difference(&self, other: &FrozenBitmap64<'_>) -> FrozenBitmap64Buf {
        FrozenBitmap64Buf::written_by(|w, out| w.difference64_into(self, other, out))
    }

    /// The values in exactly one of the two, as an owned bitmap.
    pub fn symmetric_difference(&self, other: &FrozenBitmap64<'_>) -> FrozenBitmap64Buf {
        FrozenBitmap64Buf::written_by(|w, out| w.symmetric_difference64_into(self, other, out))
    }
}
