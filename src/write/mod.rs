//! [`Writer`]: encodes bitmaps in the frozen format with reusable buffers.

mod builder;
mod convert;
mod dv;

mod ops;
mod ops64;
mod portable;
#[cfg(feature = "roaring")]
mod roaring_rs;
mod wide;

use alloc::vec::Vec;
use core::ops::Range;

use crate::algebra::Engine;
use crate::encode::layout::{Encoded, Viewed, emit, layout_size, pad};
use crate::error::Error;
use crate::format::*;
use crate::view::dir::Directory;
use crate::view::{Format, FrozenBitmap};
pub use builder::Builder;

/// Writes bitmaps in the frozen format.
///
/// A `Writer` owns its scratch buffers and reuses them: once it and the output have grown
/// to the largest bitmap written, writing allocates nothing. Payloads are copied in bulk,
/// one copy per container; only the directory (12 bytes per container) is written field
/// by field.
///
/// ```
/// use frozen_roaring::{FrozenBitmap, Writer};
///
/// let mut writer = Writer::new();
/// let mut file = Vec::new();
/// let mut ranges = Vec::new();
/// for term in 0..3u32 {
///     let postings = (0..1000).map(|doc| doc * (term + 1));
///     ranges.push(writer.write_sorted(postings, &mut file)?);
/// }
/// let third = FrozenBitmap::from_bytes(&file[ranges[2].clone()])?;
/// assert_eq!(third.len(), 1000);
/// assert!(third.contains(2997));
/// # Ok::<(), frozen_roaring::Error>(())
/// ```
pub struct Writer {
    /// The encoder, with the set-algebra scratch around it.
    ops: Engine,
    #[cfg(feature = "std")]
    staging: Vec<u8>,
    /// Buckets of a 64-bit frozen bitmap, written before their directory is known.
    stage64: Vec<u8>,
    /// `(key, offset in stage64, cumulative count)` per bucket.
    dir64: Vec<(u32, u64, u64)>,
    /// Per input of a 64-bit many-way union: its next bucket and the rest (emptied between
    /// calls; only the allocation stays).
    heads64: Vec<(
        Option<(u32, FrozenBitmap<'static>)>,
        crate::view64::Buckets<'static>,
    )>,
    /// The buckets of one key of a 64-bit many-way union (emptied between calls).
    group64: Vec<FrozenBitmap<'static>>,
}

impl Default for Writer {
    fn default() -> Writer {
        Writer::new()
    }
}

impl core::fmt::Debug for Writer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Writer")
            .field("checksum", &self.ops.enc.checksum)
            .finish_non_exhaustive()
    }
}

impl Writer {
    /// A writer that writes bitmaps without checksum.
    pub fn new() -> Writer {
        Writer {
            ops: Engine::new(),
            #[cfg(feature = "std")]
            staging: Vec::new(),
            stage64: Vec::new(),
            dir64: Vec::new(),
            heads64: Vec::new(),
            group64: Vec::new(),
        }
    }

    /// Sets whether bitmaps get a CRC32C trailer (checked by `from_bytes_strict` and
    /// [`FrozenBitmap::verify`]). Costs 4 bytes and one pass over the output.
    ///
    /// ```
    /// # use frozen_roaring::Writer;
    /// let writer = Writer::new().with_checksum(true);
    /// assert!(writer.checksum());
    /// ```
    pub fn with_checksum(mut self, checksum: bool) -> Writer {
        self.ops.enc.checksum = checksum;
        self
    }

    /// Whether this writer adds a checksum.
    pub fn checksum(&self) -> bool {
        self.ops.enc.checksum
    }

    /// Sets whether the results of this writer's set operations (`intersection_into`,
    /// `union_into`, `union_many_into`, ...) get canonical container kinds. On by default
    /// (and always for the owned forms, `a.union(&b)`, `&a | &b`, ...).
    ///
    /// - `true`: each result container is the smallest of array, bitset and runs, as
    ///   [`write_sorted`](Self::write_sorted) picks it, so a result is byte-identical to
    ///   writing its values. This counts the runs of every result container and converts
    ///   bitsets and values that are smaller as runs.
    /// - `false`: result containers keep the representation their kernel computed, as
    ///   CRoaring's operations do (it run-optimizes only on request): values up to 4096,
    ///   a bitset above, and runs where runs were combined (unless values or a bitset
    ///   take less room, which their count tells at no cost). No run is counted or extracted,
    ///   which makes bitset-heavy results (unions of many bitmaps above all) faster. The
    ///   result holds the same values and passes [`FrozenBitmap::from_bytes_strict`] (the
    ///   format does not require canonical kinds), but may be larger and differ in bytes
    ///   from writing the same values. Use it for intermediate results that are read and
    ///   dropped; keep the default for results that are stored or compared by bytes.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// let mut w = Writer::new().with_canonical(false);
    /// assert!(!w.canonical());
    /// let (mut a, mut b, mut out) = (Vec::new(), Vec::new(), Vec::new());
    /// w.write_sorted(0..5000, &mut a)?; // one run
    /// w.write_sorted(5000..10_000, &mut b)?;
    /// let r = w.union_into(&FrozenBitmap::from_bytes(&a)?, &FrozenBitmap::from_bytes(&b)?, &mut out)?;
    /// let u = FrozenBitmap::from_bytes_strict(&out[r])?;
    /// assert_eq!(u.len(), 10_000);
    /// // Two runs combined stay runs even without canonical kinds.
    /// assert_eq!(u.statistics().run_containers, 1);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    ///
    /// [`FrozenBitmap::from_bytes_strict`]: crate::FrozenBitmap::from_bytes_strict
    pub fn with_canonical(mut self, canonical: bool) -> Writer {
        self.ops.set_canonical(canonical);
        self
    }

    /// Whether set-operation results get canonical container kinds (see
    /// [`with_canonical`](Self::with_canonical)).
    pub fn canonical(&self) -> bool {
        self.ops.canonical()
    }

    /// Appends the bitmap of `values` (strictly ascending) to `out` and returns its byte
    /// range in `out`.
    ///
    /// Before the bitmap, `out` is padded with zeros to a multiple of 64 bytes if the bitmap
    /// holds a bitset container, else of 4, so that bitmaps written one after another into
    /// a file are aligned when the file is mapped.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotAscending`] naming the position of the first value that is not
    /// greater than the one before; `out` is then left exactly as it was.
    ///
    /// [`ErrorKind::NotAscending`]: crate::ErrorKind::NotAscending
    pub fn write_sorted<I: IntoIterator<Item = u32>>(
        &mut self,
        values: I,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error> {
        self.encode(values)?;
        Ok(self.ops.enc.finish_vec(out))
    }

    /// Writes the bitmap of `values` into the start of `buf` and returns its length.
    ///
    /// # Errors
    ///
    /// `NotAscending` as [`write_sorted`](Self::write_sorted); `BufferTooSmall` (with
    /// [`Error::needed`]) if `buf` is shorter than the bitmap, in which case nothing is
    /// written.
    pub fn write_sorted_to_slice<I: IntoIterator<Item = u32>>(
        &mut self,
        values: I,
        buf: &mut [u8],
    ) -> Result<usize, Error> {
        self.encode(values)?;
        self.ops.enc.finish_slice(buf)
    }

    /// Writes the bitmap of `values` to `w` and returns the number of bytes written.
    ///
    /// # Errors
    ///
    /// `NotAscending` (nothing is written), or `Io` wrapping the writer's error.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// let mut file = std::io::Cursor::new(Vec::new()); // or a std::fs::File
    /// let n = Writer::new().write_sorted_to([1, 2, 3], &mut file)?;
    /// assert_eq!(FrozenBitmap::from_bytes(&file.get_ref()[..n])?.len(), 3);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn write_sorted_to<I: IntoIterator<Item = u32>, W: std::io::Write>(
        &mut self,
        values: I,
        mut w: W,
    ) -> Result<usize, Error> {
        self.encode(values)?;
        let mut staging = core::mem::take(&mut self.staging);
        staging.clear();
        let range = self.ops.enc.finish_vec(&mut staging);
        let result = w
            .write_all(&staging[range.clone()])
            .map_err(|e| Error::io("write", None, e));
        self.staging = staging;
        result.map(|()| range.len())
    }

    /// The exact size in bytes of the bitmap of `values` (strictly ascending), as
    /// [`write_sorted`](Self::write_sorted) would write it (without the padding before it).
    /// Allocates nothing and needs no scratch: use it to size an output in advance.
    ///
    /// ```
    /// # use frozen_roaring::Writer;
    /// let mut writer = Writer::new();
    /// let size = writer.serialized_size(0..100_000)?;
    /// let mut buf = vec![0u8; size];
    /// assert_eq!(writer.write_sorted_to_slice(0..100_000, &mut buf)?, size);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// `NotAscending` as [`write_sorted`](Self::write_sorted).
    pub fn serialized_size<I: IntoIterator<Item = u32>>(&self, values: I) -> Result<usize, Error> {
        let mut sizer = Sizer::default();
        let mut last = 0u32;
        for (count, v) in values.into_iter().enumerate() {
            if count != 0 && v <= last {
                return Err(Error::not_ascending(count as u64, last, v));
            }
            sizer.push(v);
            last = v;
        }
        Ok(sizer.finish()
            + if self.ops.enc.checksum {
                TRAILER_LEN
            } else {
                0
            })
    }

    /// The exact size in bytes of `bitmap` re-encoded by [`write_frozen`](Self::write_frozen).
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// let mut buf = Vec::new();
    /// Writer::new().write_sorted(0..10, &mut buf)?;
    /// let bitmap = FrozenBitmap::from_bytes(&buf)?;
    /// assert_eq!(Writer::new().with_checksum(true).frozen_size(&bitmap), buf.len() + 4);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn frozen_size(&self, bitmap: &FrozenBitmap<'_>) -> usize {
        layout_size(&Viewed(bitmap), self.ops.enc.checksum).0
    }

    /// Appends `bitmap` re-encoded with this writer's settings (for example to add or drop
    /// a checksum) and returns its byte range in `out`. Keeps each container's kind and
    /// copies each payload in one piece; a bitmap already laid out as this writer would lay
    /// it out is copied whole.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// let mut plain = Vec::new();
    /// Writer::new().write_sorted(0..10, &mut plain)?;
    /// let mut checked = Vec::new();
    /// let bitmap = FrozenBitmap::from_bytes(&plain)?;
    /// Writer::new().with_checksum(true).write_frozen(&bitmap, &mut checked)?;
    /// let copy = FrozenBitmap::from_bytes_strict(&checked)?;
    /// assert!(copy.has_checksum() && copy == bitmap);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    ///
    /// A portable view from a checked constructor is converted in one pass over its
    /// directory, the payloads copied in stretches (one copy when it has no bitset, which
    /// the frozen layout pads for). A view made with `from_bytes_unchecked` has its
    /// structure checked again first (O(containers)), so that bytes that are not a bitmap
    /// cannot produce output the checked constructor would reject. Payloads are copied as
    /// they are: corrupt payload contents stay corrupt (strict validation of the output
    /// finds them).
    ///
    /// # Errors
    ///
    /// The structural error, if `bitmap`'s bytes are not a valid bitmap; `out` is then
    /// unchanged.
    pub fn write_frozen(
        &mut self,
        bitmap: &FrozenBitmap<'_>,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error> {
        if let (true, Directory::Portable(d)) = (bitmap.checked, bitmap.dir) {
            let checksum = self.ops.enc.checksum;
            if let Some((start, total, has_bitset)) = convert::portable_to_frozen(&d, checksum, out)
            {
                self.ops.enc.last_bitset = has_bitset;
                // The header already holds the flag and the total: only a trailer is left.
                if checksum {
                    self.ops.enc.seal(out, start, total);
                }
                return Ok(start..out.len());
            }
        }
        let parsed = crate::view::open::parse_with_layout(bitmap.as_bytes())?;
        let bitmap = &parsed.bm;
        let start;
        let total;
        if parsed.canonical_layout {
            // Laid out as this writer would: one copy of everything but the trailer.
            let had = if bitmap.has_checksum() {
                TRAILER_LEN
            } else {
                0
            };
            let body = &bitmap.as_bytes()[..parsed.len - had];
            total = body.len()
                + if self.ops.enc.checksum {
                    TRAILER_LEN
                } else {
                    0
                };
            self.ops.enc.last_bitset = parsed.has_bitset;
            start = pad(out, parsed.has_bitset);
            out.reserve(total);
            crate::cast::extend_stretch(out, body);
        } else {
            let src = Viewed(bitmap);
            let has_bitset;
            (total, has_bitset) = layout_size(&src, self.ops.enc.checksum);
            self.ops.enc.last_bitset = has_bitset;
            start = pad(out, has_bitset);
            out.reserve(total);
            emit(&src, total, self.ops.enc.checksum, out);
        }
        self.ops.enc.seal(out, start, total);
        Ok(start..out.len())
    }

    /// Writes strictly ascending `values` in the RoaringFormatSpec portable format, appending
    /// to `out`; returns the range of `out` that holds the bitmap.
    ///
    /// The bytes are identical to CRoaring's `roaring_bitmap_portable_serialize` after
    /// `run_optimize` for the same set (and readable by Java, Go and roaring-rs). The
    /// portable format needs no alignment: nothing is inserted before the bitmap. With
    /// buffers reused, this allocates nothing.
    ///
    /// # Errors
    ///
    /// `NotAscending` as for [`write_sorted`](Self::write_sorted); `out` is then unchanged.
    ///
    /// ```
    /// use frozen_roaring::{Format, FrozenBitmap, Writer};
    /// let mut out = Vec::new();
    /// let range = Writer::new().write_portable_sorted([1, 2, 3, 4, 1 << 20], &mut out)?;
    /// // 1..=4 is stored as a run: cookie 12347, 2 containers (count - 1 in the high half)
    /// assert_eq!(&out[..4], &(12347u32 | 1 << 16).to_le_bytes());
    /// let view = FrozenBitmap::from_bytes(&out[range])?;
    /// assert_eq!((view.format(), view.len()), (Format::Portable, 5));
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn write_portable_sorted<I: IntoIterator<Item = u32>>(
        &mut self,
        values: I,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error> {
        self.encode(values)?;
        let src = Encoded(&self.ops.enc);
        let start = out.len();
        out.reserve(portable::size(&src));
        portable::emit(&src, out);
        Ok(start..out.len())
    }

    /// Writes the portable encoding of `bitmap` (either format), appending to `out`.
    ///
    /// Each container keeps its kind and its payload is copied in bulk, so a canonical
    /// input gives the bytes [`write_portable_sorted`](Self::write_portable_sorted) gives
    /// for its values, and a portable input comes back byte for byte (one copy), canonical
    /// or not. The only exception: a frozen bitset container holding at most 4096 values
    /// (which this crate never writes) becomes an array, as the portable format requires.
    ///
    /// # Errors
    ///
    /// The structural errors of [`FrozenBitmap::from_bytes`] (a view from
    /// `from_bytes_unchecked` is checked again; one from a checked constructor is converted
    /// in one pass over its directory), and `Corrupt` for a bitset to be written as an
    /// array whose popcount is not its stored cardinality. `out` is then unchanged.
    ///
    /// ```
    /// use frozen_roaring::{FrozenBitmap, Writer};
    /// let mut writer = Writer::new();
    /// let (mut frozen, mut portable, mut direct) = (Vec::new(), Vec::new(), Vec::new());
    /// writer.write_sorted(0..100_000, &mut frozen)?;
    /// writer.write_portable(&FrozenBitmap::from_bytes(&frozen)?, &mut portable)?;
    /// writer.write_portable_sorted(0..100_000, &mut direct)?;
    /// assert_eq!(portable, direct);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn write_portable(
        &mut self,
        bitmap: &FrozenBitmap<'_>,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error> {
        let start = out.len();
        if bitmap.checked {
            match bitmap.dir {
                Directory::Portable(_) => {
                    crate::cast::extend_stretch(out, bitmap.as_bytes());
                    return Ok(start..out.len());
                }
                Directory::Frozen(d) => {
                    if convert::frozen_to_portable(&d, out) {
                        return Ok(start..out.len());
                    }
                }
            }
        }
        // A view from `from_bytes_unchecked` (its structure checked here first), or a
        // bitset to write as an array.
        let parsed = crate::view::open::parse(bitmap.as_bytes())?;
        if parsed.bm.format() == Format::Portable {
            crate::cast::extend_stretch(out, parsed.bm.as_bytes());
        } else {
            let src = Viewed(&parsed.bm);
            portable::check(&src)?;
            out.reserve(portable::size(&src));
            portable::emit(&src, out);
        }
        Ok(start..out.len())
    }

    /// The exact size [`write_portable`](Self::write_portable) writes for `bitmap`.
    ///
    /// ```
    /// use frozen_roaring::{FrozenBitmap, Writer};
    /// let mut writer = Writer::new();
    /// let mut buf = Vec::new();
    /// writer.write_sorted([1, 5, 9], &mut buf)?;
    /// assert_eq!(writer.portable_size(&FrozenBitmap::from_bytes(&buf)?), 8 + 8 + 6);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn portable_size(&self, bitmap: &FrozenBitmap<'_>) -> usize {
        match bitmap.format() {
            Format::Portable => bitmap.as_bytes().len(),
            _ => portable::size(&Viewed(bitmap)),
        }
    }

    /// Whether the last frozen bitmap written holds a bitset container (and so was aligned
    /// to 64 bytes).
    #[cfg(feature = "std")]
    pub(crate) fn last_had_bitset(&self) -> bool {
        self.ops.enc.last_bitset
    }

    /// Values in the bitmap last encoded from values.
    #[cfg(feature = "std")]
    pub(crate) fn encoded_len(&self) -> u64 {
        self.ops.enc.count()
    }

    /// A push-style builder for values that arrive one at a time. It holds the values of at
    /// most one container (plus the encoded payloads) until [`Builder::finish`].
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// let mut writer = Writer::new();
    /// let mut builder = writer.builder();
    /// for doc in [3, 9, 27] {
    ///     builder.push(doc)?;
    /// }
    /// let mut out = Vec::new();
    /// let range = builder.finish(&mut out);
    /// assert_eq!(FrozenBitmap::from_bytes(&out[range])?.to_vec(), [3, 9, 27]);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    pub fn builder(&mut self) -> Builder<'_> {
        self.ops.enc.reset();
        Builder { writer: self }
    }

    fn encode<I: IntoIterator<Item = u32>>(&mut self, values: I) -> Result<(), Error> {
        self.ops.enc.reset();
        if let Err(e) = self.ops.enc.extend(values) {
            self.ops.enc.reset();
            return Err(e);
        }
        self.ops.enc.close();
        Ok(())
    }
}

/// Incremental computation of a bitmap's size from its values, with no scratch memory.
///
/// The padding before a bitset depends on where the payload area starts (`16 + 12n`),
/// which is known only at the end; since that start is a multiple of 4, the sizer follows
/// all 16 possible starting residues modulo 64 at once.
#[derive(Default)]
struct Sizer {
    /// For each residue `4r` of the payload start modulo 64: payload bytes so far.
    ends: [usize; 16],
    containers: usize,
    key: Option<u16>,
    card: u32,
    runs: u32,
    prev: u32,
}

impl Sizer {
    #[inline]
    fn push(&mut self, v: u32) {
        let key = (v >> 16) as u16;
        if self.key != Some(key) {
            self.close();
            self.key = Some(key);
            self.runs = 1;
        } else if v != self.prev + 1 {
            self.runs += 1;
        }
        self.card += 1;
        self.prev = v;
    }

    fn close(&mut self) {
        if self.key.take().is_none() {
            return;
        }
        let kind = canonical_kind(self.card, self.runs);
        let len = payload_len(kind, self.card, self.runs);
        for (r, end) in self.ends.iter_mut().enumerate() {
            let base = 4 * r;
            *end = align_up(base + *end, kind.align()) - base + len;
        }
        self.containers += 1;
        self.card = 0;
    }

    fn finish(mut self) -> usize {
        self.close();
        let start = payload_start(self.containers);
        start + self.ends[(start % 64) / 4]
    }
}
