//! Puffin files read by ranges ([`RangedPuffinFile`]): the footer with one read of the
//! file's tail (two when the footer is larger than the tail read), then each blob with one
//! read of its range.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering};

use super::ranged::{RangeSource, what_read, whole};
use crate::dv::{BlobMetadata, FOOTER_TAIL, footer_start, open_dv_blob, parse_footer_bytes};
use crate::error::Error;

/// Bytes read from the end of a Puffin file when opening it: the footer of a file of a few
/// hundred blobs (about 300 bytes each) comes in one request.
const PUFFIN_TAIL: u64 = 64 << 10;

/// A Puffin file read through a [`RangeSource`] (an object store, a file with positioned
/// reads): the footer is read and checked at open, each blob read when asked for. The
/// leading magic is checked when the tail read covers the file; otherwise every blob range
/// is still checked to lie after it.
///
/// ```
/// use frozen_roaring::{DeletionVector, PuffinWriter, RangedPuffinFile};
/// let mut w = PuffinWriter::new();
/// w.add_deletion_vector([4u64, 8], "data/a.parquet")?;
/// let bytes = w.finish(); // in object storage, read by ranges
/// let file = RangedPuffinFile::open(&bytes[..])?;
/// let frame = file.read_deletion_vector(0)?;
/// assert_eq!(DeletionVector::from_bytes(&frame)?.bitmap().to_vec(), [4, 8]);
/// assert_eq!(file.requests(), 2);
/// # Ok::<(), frozen_roaring::Error>(())
/// ```
pub struct RangedPuffinFile<S> {
    source: S,
    blobs: Vec<BlobMetadata>,
    properties: BTreeMap<String, String>,
    requests: AtomicU64,
}

impl<S: RangeSource> RangedPuffinFile<S> {
    /// Opens a Puffin file: one suffix read for the footer (a second when it is larger
    /// than 64 KiB), checked as [`PuffinFile::from_bytes`](crate::PuffinFile::from_bytes)
    /// checks it.
    ///
    /// # Errors
    ///
    /// `Io` for a failed or short read, and the errors of `PuffinFile::from_bytes`.
    pub fn open(source: S) -> Result<Self, Error> {
        let file = RangedPuffinFile {
            source,
            blobs: Vec::new(),
            properties: BTreeMap::new(),
            requests: AtomicU64::new(1),
        };
        let (len, tail) = file
            .source
            .read_suffix(PUFFIN_TAIL)
            .map_err(|e| Error::io("read the footer of", None, e))?;
        let min = (8 + FOOTER_TAIL) as u64;
        if len < min || (tail.len() as u64) < min.min(len) {
            return Err(Error::truncated("Puffin footer", 0, min, len));
        }
        let tail_start = len - tail.len() as u64;
        if tail_start == 0 && tail[..4] != crate::dv::PUFFIN_MAGIC {
            return Err(Error::bad_magic(crate::error::expect::PUFFIN, &tail, 0));
        }
        let start = footer_start(len, &tail[tail.len() - FOOTER_TAIL..])?;
        let (blobs, properties) = if start >= tail_start {
            parse_footer_bytes(&tail[(start - tail_start) as usize..], start as usize)?
        } else {
            let footer = file.read(start..len)?;
            parse_footer_bytes(&footer, start as usize)?
        };
        Ok(RangedPuffinFile {
            blobs,
            properties,
            ..file
        })
    }

    fn read(&self, range: core::ops::Range<u64>) -> Result<Vec<u8>, Error> {
        self.requests.fetch_add(1, Ordering::Relaxed);
        let want = range.end - range.start;
        let got = self
            .source
            .read_range(range)
            .map_err(|e| Error::io(what_read("the blob"), None, e))?;
        whole(got.len(), want, "the blob")?;
        Ok(got.into_owned())
    }

    /// The blobs the footer lists.
    pub fn blobs(&self) -> &[BlobMetadata] {
        &self.blobs
    }

    /// The file's properties.
    pub fn properties(&self) -> &BTreeMap<String, String> {
        &self.properties
    }

    /// Requests made to the source so far.
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    /// The bytes of blob `i`, in one read.
    ///
    /// # Errors
    ///
    /// `Io` for a failed or short read, naming blob `i`'s byte range.
    ///
    /// # Panics
    ///
    /// If `i` is not below the number of blobs.
    pub fn read_blob(&self, i: usize) -> Result<Vec<u8>, Error> {
        let r = self.blobs[i].range();
        self.read(r.clone()).map_err(|e| e.for_entry(i as u64, r))
    }

    /// The frame of deletion-vector blob `i`, read in one request and checked as
    /// [`PuffinFile::deletion_vector`](crate::PuffinFile::deletion_vector) checks it (type,
    /// no compression, structure, the `cardinality` property); open it with
    /// [`DeletionVector::from_bytes`](crate::DeletionVector::from_bytes) (no check again
    /// needed for its structure).
    ///
    /// # Errors
    ///
    /// As [`read_blob`](Self::read_blob) and `PuffinFile::deletion_vector`.
    ///
    /// # Panics
    ///
    /// If `i` is not below the number of blobs.
    pub fn read_deletion_vector(&self, i: usize) -> Result<Vec<u8>, Error> {
        let bytes = self.read_blob(i)?;
        open_dv_blob(&self.blobs[i], &bytes)?;
        Ok(bytes)
    }
}

impl<S> core::fmt::Debug for RangedPuffinFile<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RangedPuffinFile")
            .field("blobs", &self.blobs)
            .finish_non_exhaustive()
    }
}
