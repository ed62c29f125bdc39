//! Roaring bitmaps written once and read in place.
//!
//! `frozen-roaring` writes sets of `u32` as Roaring bitmaps in a byte-exact *frozen*
//! format ([`format-spec/FORMAT.md`][spec]) and queries them where they lie — in a
//! memory-mapped file, a database value, a network buffer — with no decoding, no copy, no
//! allocation, and no alignment requirement on the bytes.
//!
//! - [`Writer`] encodes strictly ascending values (or re-encodes a view), reusing its
//!   buffers: zero allocations per bitmap in steady state, payloads copied in bulk.
//! - [`FrozenBitmap`] is a `Copy` view over `&[u8]` with the query API of roaring-rs:
//!   `contains`, `len`, `rank`, `select`, `iter`, `intersection_len`, `is_subset`, ...
//! - Set algebra straight from the bytes: [`Writer::intersection_into`],
//!   [`Writer::union_into`], [`Writer::difference_into`],
//!   [`Writer::symmetric_difference_into`] and the many-way [`Writer::union_many_into`],
//!   [`Writer::intersection_many_into`], [`Writer::difference_many_into`] and
//!   [`Writer::symmetric_difference_many_into`] append the result to a reused buffer (canonical containers, or as computed with
//!   [`Writer::with_canonical`]`(false)`); counting forms allocate nothing; `&a & &b`,
//!   `|`, `-`, `^` (and `&=`, ... on owned bitmaps) return a [`FrozenBitmapBuf`].
//! - Interchange: the same views read the RoaringFormatSpec **portable** format that
//!   CRoaring, Java, Go and roaring-rs write (see [`Format`]), in place; the writer produces
//!   it byte-identical to CRoaring ([`Writer::write_portable_sorted`]) and converts both
//!   ways keeping container kinds ([`Writer::write_portable`], [`Writer::write_frozen`]).
//! - 64-bit sets: [`FrozenBitmap64`] reads the 64-bit portable format (Iceberg / Delta Lake
//!   deletion vectors, CRoaring `roaring64`, roaring-rs `RoaringTreemap`) and a 64-bit
//!   frozen format with an indexed directory; [`Writer::write_sorted64`] and
//!   [`Writer::write_portable_sorted64`] write them. The 64-bit view has the 32-bit one's
//!   queries (`rank`, `select`, `range_cardinality`, a double-ended [`Iter64`], ...) and set
//!   algebra ([`Writer::intersection64_into`], ..., [`Writer::union64_many_into`],
//!   [`FrozenBitmap64Buf`]), each applied bucket by bucket through the 32-bit kernels.
//! - Deletion vectors: [`DeletionVector`] opens a Delta Lake DV frame or an Iceberg
//!   `deletion-vector-v1` blob in place ([`DeletionVector::from_delta_file`] from a Delta
//!   [`DeletionVectorDescriptor`]); [`PuffinFile`] (`std`) lists a Puffin file's blobs;
//!   [`Writer::write_deletion_vector`] and [`PuffinWriter`] write them byte-identical to
//!   Delta's and Iceberg's writers; [`FrozenBitmap64::fill_mask`] and
//!   [`FrozenBitmap64::live_ranges`] give a scan its deleted-row mask or kept row ranges.
//! - Bitmap files (`std`): many bitmaps under `u64` keys in one file. `FileWriter::create`
//!   writes one atomically (a temporary file renamed over the target on `commit`), each
//!   bitmap with a CRC32C by default; `BitmapFile::open` maps it and checks its footer and
//!   directory in O(keys); `get` opens one bitmap in place and `get_verified` also checks
//!   its CRC32C.
//!
//! # Example
//!
//! ```
//! use frozen_roaring::{FrozenBitmap, Writer};
//!
//! // Write two posting lists one after the other into one buffer (or file).
//! let mut writer = Writer::new();
//! let mut file = Vec::new();
//! let rare = writer.write_sorted([3, 14, 42, 1_000_006], &mut file)?;
//! let sevens = writer.write_sorted((0..2_000_000).step_by(7), &mut file)?;
//!
//! // Open them in place: O(containers) checks, no allocation, no copy.
//! let rare = FrozenBitmap::from_bytes(&file[rare])?;
//! let sevens = FrozenBitmap::from_bytes(&file[sevens])?;
//! assert_eq!(rare.intersection_len(&sevens), 3); // 14, 42 and 1_000_006
//! assert_eq!(sevens.rank(1_000), 143);
//! assert_eq!(sevens.select(2), Some(14));
//! assert_eq!(rare.iter().collect::<Vec<_>>(), [3, 14, 42, 1_000_006]);
//! # Ok::<(), frozen_roaring::Error>(())
//! ```
//!
//! # Safety model
//!
//! | constructor | checks | cost | after `Ok` |
//! | --- | --- | --- | --- |
//! | [`FrozenBitmap::from_bytes`] | header, directory, offsets, lengths | O(containers) | memory-safe, panic-free; answers exact unless payloads are corrupt |
//! | [`FrozenBitmap::from_bytes_strict`] | also every payload invariant and the checksum | O(size) | answers exact |
//! | [`FrozenBitmap::from_bytes_unchecked`] (`unsafe`) | nothing | O(1) | for bytes you wrote |
//!
//! No byte cast uses `unsafe`: every one goes through `zerocopy`'s checked conversions to
//! alignment-1 little-endian integers, so views work at any address. The crate's `unsafe`
//! code is of five kinds, each block with a `// SAFETY:` proof; `#![deny(unsafe_code)]`
//! holds everywhere else (it is allowed only on the `simd` module, on the memory-map block
//! of `file`, and on the declaration of the unchecked constructor):
//!
//! - `simd` calls `#[target_feature]` kernels after run-time detection of those features;
//! - `simd`'s x86 kernels read and write through raw pointers with SIMD intrinsics, within
//!   slice lengths they check first (Miri runs the portable forms of the same kernels, and
//!   the tests compare every level against each other and the model);
//! - `simd` runs one inline-assembly step that sets a bit of a bitset;
//! - `simd` appends values to a vector by writing its spare capacity in blocks of 8 and
//!   then setting its length over the slots written (`to_vec`, `extend_into`);
//! - `file` memory-maps files in [`BitmapFile::open`]: the file must not be truncated or
//!   rewritten in place while mapped (a truncation raises `SIGBUS`; changed bytes can give
//!   wrong answers, never an out-of-bounds read). `open` stays a safe function because the
//!   files this crate writes are never rewritten in place (a new file is renamed over the
//!   old one), and [`BitmapFile::read`] copies a file for storage that others may rewrite.
//!
//! [`FrozenBitmap::from_bytes_unchecked`] is an `unsafe fn` by contract (the bytes must be
//! a bitmap the checks accept), though today it stays memory-safe on any bytes.
//!
//! # Names users know
//!
//! Where the concept is the same, the names and signatures are roaring-rs 0.12's:
//!
//! | roaring-rs | CRoaring | frozen-roaring |
//! | --- | --- | --- |
//! | `RoaringBitmap::deserialize_from` | `roaring_bitmap_portable_deserialize_safe` | [`FrozenBitmap::from_bytes`] (in place, either format) |
//! | `len`, `is_empty`, `contains`, `min`, `max` | `cardinality`, `contains`, `minimum`, `maximum` | the same names on [`FrozenBitmap`] |
//! | `rank`, `select` | `rank`, `select` | [`FrozenBitmap::rank`], [`FrozenBitmap::select`] |
//! | `range_cardinality`, `contains_range` | `range_cardinality`, `contains_range` | [`FrozenBitmap::range_cardinality`], [`FrozenBitmap::contains_range`] |
//! | `iter`, `Iter::advance_to`, `advance_back_to`, `next_many` | `iter`, `reset_at_or_after`, `next_many` | [`FrozenBitmap::iter`], [`Iter::advance_to`], [`Iter::advance_back_to`], [`Iter::next_many`] (returns the filled front of the buffer) |
//! | `Iter::next_range`, `next_range_back` | | [`Iter::next_range`], [`Iter::next_range_back`] |
//! | `range` (an `Iter` over a range of values) | | [`FrozenBitmap::range`], [`FrozenBitmap64::range`] |
//! | `iter().collect::<Vec<_>>()` | `to_vec` | [`FrozenBitmap::to_vec`], [`FrozenBitmap::extend_into`] (into a vector you reuse) |
//! | `intersection_len`, `union_len`, `difference_len`, `symmetric_difference_len` | `and_cardinality`, `or_cardinality`, ... | the same names |
//! | `is_subset`, `is_superset`, `is_disjoint` | `is_subset`, `intersect` | the same names |
//! | `&a & &b`, `\|`, `-`, `^` | `and`, `or`, `andnot`, `xor` | the same operators (into [`FrozenBitmapBuf`]), or [`Writer::intersection_into`] ... into a reused buffer |
//! | `MultiOps::union` ... | `fast_or`, `fast_xor` | [`Writer::union_many_into`], [`FrozenBitmapBuf::union_many`] ... |
//! | `RoaringBitmap::from_sorted_iter` | `of`, `add_many` | [`FrozenBitmapBuf::from_sorted_iter`], [`Writer::write_sorted`], `collect()` |
//! | `serialize_into` | `portable_serialize` | [`Writer::write_portable_sorted`], [`Writer::write_portable`] |
//! | `statistics` | `statistics` | [`FrozenBitmap::statistics`], [`FrozenBitmap::containers`] |
//! | `RoaringTreemap` | `roaring64_bitmap_t` | [`FrozenBitmap64`] |
//!
//! # Features
//!
//! - `std` (default): `std::io::Write` output, hardware CRC32C. Implies `alloc`.
//! - `alloc`: the [`Writer`] and [`FrozenBitmap::to_vec`]. Without it (`no_std`), views
//!   and every query remain available.
//! - `mmap` (default): [`BitmapFile::open`] memory-maps bitmap files (memmap2).
//! - `roaring`: write straight from roaring-rs `RoaringBitmap` / `RoaringTreemap`
//!   (`Writer::write_roaring`, `write_portable_roaring`, `write_treemap`,
//!   `write_portable_treemap`) and convert views back (`to_roaring`, `to_treemap`).
//!
//! [spec]: https://github.com/frozen-roaring/frozen-roaring/blob/main/format-spec/FORMAT.md

#![no_std]
#![deny(missing_docs)]
#![deny(missing_debug_implementations)]
#![deny(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

// Modules by layer; each imports only from the layers above it in this list, never from
// its own layer's neighbours or from below (no two modules import each other):
// 1. formats and bytes: `format` (constants and layout), `cast` (every byte cast),
//    `error`, `checksum`;
// 2. bitset words and sorted values: `bits`, `keep` (set operations as types), then
//    `simd` (CPU dispatch and the vector kernels, with their safe wrappers);
// 3. `container`: queries on one container, where it lies in the bytes;
// 4. `view` (32-bit views, their directory, iterators and queries), then `view64`, then
//    `dv` (deletion vectors and Puffin files);
// 5. `encode` (values to container payloads, and the frozen layout), then `algebra`
//    (pairwise and many-way set operations, their kernels and scratch), then `write`
//    (the public `Writer`, `Builder` and re-encoding);
// 6. `buf` and `buf64` (the owned bitmaps) and `file` (bitmap files, read whole or by
//    ranges, and Puffin files by ranges);
// 7. this file: the public surface.
#[cfg(feature = "alloc")]
mod bits;
mod cast;
mod checksum;
mod error;
mod format;
#[cfg(feature = "alloc")]
mod keep;
#[allow(unsafe_code)]
#[macro_use]
mod simd;
#[cfg(feature = "alloc")]
mod algebra;
#[cfg(feature = "alloc")]
mod buf;
#[cfg(feature = "alloc")]
mod buf64;
mod container;
mod dv;
#[cfg(feature = "alloc")]
mod encode;
#[cfg(feature = "std")]
mod file;
mod view;
mod view64;
#[cfg(feature = "alloc")]
mod write;

#[cfg(all(test, feature = "alloc"))]
mod tests;

#[cfg(feature = "alloc")]
pub use buf::FrozenBitmapBuf;
#[cfg(feature = "alloc")]
pub use buf64::FrozenBitmap64Buf;
#[cfg(feature = "std")]
pub use dv::{BlobMetadata, PuffinFile, PuffinWriter};
pub use dv::{DV_MAGIC, DV_NATIVE_MAGIC, DeletionVector};
#[cfg(feature = "alloc")]
pub use dv::{DeletionVectorDescriptor, StorageType};
pub use error::{Error, ErrorKind};
#[cfg(feature = "object_store")]
pub use file::ObjectStoreSource;
#[cfg(feature = "std")]
pub use file::{
    AtomicFile, BitmapFile, FileIter, FileWriter, RangeSource, RangedBitmapFile, RangedOptions,
    RangedPuffinFile, RangedStats,
};
pub use format::ContainerKind;
pub use view::{Format, FrozenBitmap, Iter, LiveRanges, Statistics};
pub use view64::{Buckets, FrozenBitmap64, Iter64, LiveRanges64};
#[cfg(feature = "alloc")]
pub use write::{Builder, Writer};

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
