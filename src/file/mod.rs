//! Bitmap files: many bitmaps in one file, looked up by `u64` key in place
//! (`format-spec/FILE.md`). [`FileWriter`] streams bitmaps out as they are produced;
//! [`BitmapFile`] reads a file through any byte container (`Vec<u8>`, `&[u8]`, a memory
//! map) with O(1) lookups beyond a binary search of the directory.

#[cfg(feature = "object_store")]
mod object;
mod ranged;
mod ranged_puffin;
mod writer;

#[cfg(feature = "object_store")]
pub use object::ObjectStoreSource;
pub use ranged::{RangeSource, RangedBitmapFile, RangedOptions, RangedStats};
pub use ranged_puffin::RangedPuffinFile;
pub use writer::{AtomicFile, FileWriter};

use core::ops::{Bound, RangeBounds};
use std::path::Path;

use crate::cast::{self, FileEntryLE};
use crate::checksum::crc32c;
use crate::error::{Error, ErrorKind, FILE_FOOTER, expect};
use crate::view::FrozenBitmap;

/// First four bytes of a bitmap file (and last four).
pub(crate) const FILE_MAGIC: [u8; 4] = *b"FRZF";
/// File format version this release writes: 2, whose footer checksum also covers the
/// header (so that no flag can change unnoticed).
pub(crate) const FILE_VERSION: u8 = 2;
/// The first version, still read: its footer checksum covers the footer alone.
pub(crate) const FILE_VERSION_1: u8 = 1;
/// Header flag: every bitmap carries a CRC32C trailer.
pub(crate) const FILE_FLAG_BITMAP_CRC: u8 = 1;
/// Bytes in the header.
pub(crate) const FILE_HEADER_LEN: u64 = 16;
/// Bytes in the footer.
pub(crate) const FOOTER_LEN: u64 = 32;
/// Bytes per directory entry.
pub(crate) const ENTRY_LEN: u64 = 24;
/// Alignment of every bitmap from the start of the file.
pub(crate) const BITMAP_ALIGN: u64 = 64;

/// A file of bitmaps keyed by `u64`, read in place from `D` (a `Vec<u8>`, a `&[u8]`, or the
/// memory map [`BitmapFile::open`] makes).
///
/// Opening checks the header, the footer (with its own checksum), the directory's CRC32C,
/// bounds and key order in O(keys), never panics and allocates nothing; each bitmap is then
/// opened with the checked constructor when it is looked up, so a corrupt bitmap gives an
/// error, never a panic.
///
/// ```
/// use frozen_roaring::{BitmapFile, FileWriter};
/// let mut w = FileWriter::new(Vec::new());
/// w.add_sorted(7, [1, 2, 3])?;
/// w.add_sorted(1_000_000_000_000, (0..100_000).step_by(2))?;
/// let file = BitmapFile::from_bytes(w.finish()?)?;
/// assert_eq!(file.len(), 2);
/// assert_eq!(file.get(7)?.map(|b| b.len()), Some(3));
/// assert!(file.get(8)?.is_none());
/// let keys: Vec<u64> = file.iter().map(|r| r.map(|(k, _)| k)).collect::<Result<_, _>>()?;
/// assert_eq!(keys, [7, 1_000_000_000_000]);
/// # Ok::<(), frozen_roaring::Error>(())
/// ```
pub struct BitmapFile<D> {
    data: D,
    dir_offset: usize,
    count: usize,
    flags: u8,
}

/// Opens `path` for reading, refusing folders with an error that says so (Linux opens a
/// folder without complaint and only the read or map fails, with a less helpful cause).
fn open_regular(path: &Path) -> Result<std::fs::File, Error> {
    let file = std::fs::File::open(path).map_err(|e| Error::io("open", Some(path), e))?;
    let meta = file
        .metadata()
        .map_err(|e| Error::io("open", Some(path), e))?;
    if meta.is_dir() {
        let err = std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "it is a folder, not a bitmap file",
        );
        return Err(Error::io("open", Some(path), err));
    }
    Ok(file)
}

#[cfg(feature = "mmap")]
impl BitmapFile<memmap2::Mmap> {
    /// Maps the file at `path` into memory and opens it (checked as
    /// [`from_bytes`](Self::from_bytes) does). Bitmaps are then read straight from the
    /// page cache.
    ///
    /// The file must not be truncated or rewritten in place while it is mapped, by this or
    /// another process: pages cut off by a truncation raise `SIGBUS` when read, which kills
    /// the process, and bytes changed under the map may give wrong answers (never a panic
    /// or an out-of-bounds read: every directory field is bounds-checked where it is used).
    /// Files written by [`FileWriter::create`] and the tool are never rewritten in place (a
    /// new file is renamed over the old one, and a reader that mapped the old one keeps it),
    /// so this only concerns other writers. For files that others may rewrite, use
    /// [`BitmapFile::read`], which copies the file into memory.
    ///
    /// # Errors
    ///
    /// `Io` naming the operation (`open` or `map`), the path and the OS's cause if the file
    /// cannot be opened or mapped (a folder is refused), else the errors of `from_bytes`.
    pub fn open<P: AsRef<Path>>(path: P) -> Result<Self, Error> {
        let path = path.as_ref();
        let file = open_regular(path)?;
        // SAFETY: the map is read-only and every byte read through it is bounds-checked;
        // the documented condition (no truncation while mapped) is the caller's.
        #[allow(unsafe_code)]
        let map =
            unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io("map", Some(path), e))?;
        BitmapFile::from_bytes(map)
    }
}

impl BitmapFile<alloc::vec::Vec<u8>> {
    /// Reads the whole file at `path` into memory and opens it (checked as
    /// [`from_bytes`](Self::from_bytes) does): for files on storage that other processes
    /// may truncate or rewrite while they are read, where [`open`](BitmapFile::open)'s
    /// memory map could fault.
    ///
    /// # Errors
    ///
    /// `Io` naming the operation (`open` or `read`), the path and the OS's cause, else the
    /// errors of `from_bytes`.
    pub fn read<P: AsRef<Path>>(path: P) -> Result<Self, Error> {
        use std::io::Read;
        let path = path.as_ref();
        let mut file = open_regular(path)?;
        let mut data = alloc::vec::Vec::new();
        file.read_to_end(&mut data)
            .map_err(|e| Error::io("read", Some(path), e))?;
        BitmapFile::from_bytes(data)
    }
}

impl<D: AsRef<[u8]>> BitmapFile<D> {
    /// Opens a bitmap file held in `data`, checking the header, footer, directory checksum,
    /// directory bounds and key order in O(keys). Never panics and never allocates.
    ///
    /// # Errors
    ///
    /// `BadMagic`, `UnsupportedVersion`, `Truncated`, `Malformed` or `ChecksumMismatch`,
    /// naming the field and its byte offset in the file.
    pub fn from_bytes(data: D) -> Result<Self, Error> {
        let (dir_offset, count, flags) = check(data.as_ref())?;
        Ok(BitmapFile {
            data,
            dir_offset,
            count,
            flags,
        })
    }

    /// The number of bitmaps.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether the file holds no bitmap.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The file format version (`format-spec/FILE.md`): 2 for files this release writes, 1
    /// for older ones, which it still reads.
    pub fn version(&self) -> u8 {
        self.data.as_ref().get(4).copied().unwrap_or(FILE_VERSION)
    }

    /// Whether every bitmap carries a CRC32C trailer (a writer option, on by default).
    pub fn has_bitmap_checksums(&self) -> bool {
        self.flags & FILE_FLAG_BITMAP_CRC != 0
    }

    /// The bytes of the whole file.
    pub fn as_bytes(&self) -> &[u8] {
        self.data.as_ref()
    }

    /// Takes the byte container back.
    pub fn into_inner(self) -> D {
        self.data
    }

    fn entries(&self) -> &[FileEntryLE] {
        let bytes = self.data.as_ref();
        bytes
            .get(self.dir_offset..self.dir_offset + self.count * ENTRY_LEN as usize)
            .and_then(cast::file_entries)
            .unwrap_or(&[])
    }

    /// The keys in ascending order (O(1) per key, no bitmap opened).
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = u64> + ExactSizeIterator + '_ {
        self.entries().iter().map(|e| e.key.get())
    }

    /// The bitmap of `key` (binary search of the directory, then the checked O(containers)
    /// open of that bitmap alone).
    ///
    /// # Errors
    ///
    /// The errors of [`FrozenBitmap::from_bytes`] if that bitmap is corrupt, with offsets
    /// counted from the start of the file.
    pub fn get(&self, key: u64) -> Result<Option<FrozenBitmap<'_>>, Error> {
        let entries = self.entries();
        match entries.binary_search_by(|e| e.key.get().cmp(&key)) {
            Ok(i) => self.open_entry(&entries[i]).map(Some),
            Err(_) => Ok(None),
        }
    }

    /// The bitmap of `key`, with its CRC32C checked when it has one: one pass over the
    /// bitmap's bytes on top of [`get`](Self::get), so that a payload damaged after writing
    /// gives an error instead of a wrong answer. In a file whose header promises a checksum
    /// for every bitmap, a bitmap without one is an error too.
    ///
    /// ```
    /// use frozen_roaring::{BitmapFile, ErrorKind, FileWriter};
    /// let mut w = FileWriter::new(Vec::new()); // per-bitmap checksums by default
    /// w.add_sorted(7, [1, 2, 3])?;
    /// let mut bytes = w.finish()?;
    /// bytes[16 + 16 + 12] ^= 1; // flip a bit of key 7's payload (value 1 becomes 0)
    /// let file = BitmapFile::from_bytes(&bytes[..])?;
    /// assert_eq!(file.get(7)?.unwrap().len(), 3); // the structure is intact
    /// let err = file.get_verified(7).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ChecksumMismatch);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`get`](Self::get), plus `ChecksumMismatch`, and `Malformed` for a missing
    /// checksum the file promises.
    pub fn get_verified(&self, key: u64) -> Result<Option<FrozenBitmap<'_>>, Error> {
        let entries = self.entries();
        match entries.binary_search_by(|e| e.key.get().cmp(&key)) {
            Ok(i) => {
                let e = &entries[i];
                let bm = self.open_entry(e)?;
                self.verify_entry(&bm, e.offset.get() as usize)?;
                Ok(Some(bm))
            }
            Err(_) => Ok(None),
        }
    }

    /// Checks the CRC32C of a bitmap opened from the entry at file offset `off`.
    fn verify_entry(&self, bm: &FrozenBitmap<'_>, off: usize) -> Result<(), Error> {
        if self.has_bitmap_checksums() && !bm.has_checksum() {
            return Err(Error::malformed(
                "bitmap checksum (the file promises one for every bitmap)",
                off,
            ));
        }
        bm.verify().map_err(|err| err.shifted(off))
    }

    /// The bitmap at position `i` of the directory with its key.
    ///
    /// # Errors
    ///
    /// As [`get`](Self::get).
    pub fn get_index(&self, i: usize) -> Result<Option<(u64, FrozenBitmap<'_>)>, Error> {
        match self.entries().get(i) {
            Some(e) => Ok(Some((e.key.get(), self.open_entry(e)?))),
            None => Ok(None),
        }
    }

    fn open_entry(&self, e: &FileEntryLE) -> Result<FrozenBitmap<'_>, Error> {
        // Bounds were checked when the file was opened.
        let (off, len) = (e.offset.get() as usize, e.len.get() as usize);
        let bytes = self.data.as_ref().get(off..off + len).unwrap_or(&[]);
        FrozenBitmap::from_bytes(bytes).map_err(|err| err.shifted(off))
    }

    /// Every `(key, bitmap)` in key order; a corrupt bitmap yields an error in its place.
    pub fn iter(&self) -> FileIter<'_> {
        FileIter {
            entries: self.entries().iter(),
            bytes: self.data.as_ref(),
        }
    }

    /// The `(key, bitmap)` pairs whose keys lie in `keys`, in key order.
    pub fn range<R: RangeBounds<u64>>(&self, keys: R) -> FileIter<'_> {
        let entries = self.entries();
        let start = match keys.start_bound() {
            Bound::Included(&k) => entries.partition_point(|e| e.key.get() < k),
            Bound::Excluded(&k) => entries.partition_point(|e| e.key.get() <= k),
            Bound::Unbounded => 0,
        };
        let end = match keys.end_bound() {
            Bound::Included(&k) => entries.partition_point(|e| e.key.get() <= k),
            Bound::Excluded(&k) => entries.partition_point(|e| e.key.get() < k),
            Bound::Unbounded => entries.len(),
        };
        FileIter {
            entries: entries[start..end.max(start)].iter(),
            bytes: self.data.as_ref(),
        }
    }

    /// Checks everything: the header and directory checksums again, that the padding
    /// between bitmaps is zero, and every bitmap strictly (structure, every payload
    /// invariant, and its CRC32C, which every bitmap must have when the header says so).
    /// O(file).
    ///
    /// # Errors
    ///
    /// The first problem found, with its offset in the file.
    pub fn verify(&self) -> Result<(), Error> {
        let bytes = self.data.as_ref();
        check(bytes)?;
        let mut end = FILE_HEADER_LEN as usize;
        for e in self.entries() {
            let bm = self.open_entry(e)?;
            let off = e.offset.get() as usize;
            check_padding(bytes, end, off)?;
            self.verify_entry(&bm, off)?;
            bm.validate().map_err(|err| err.shifted(off))?;
            end = off + bm.as_bytes().len();
        }
        check_padding(bytes, end, self.dir_offset)
    }
}

impl<D: AsRef<[u8]>> core::fmt::Debug for BitmapFile<D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BitmapFile")
            .field("bitmaps", &self.count)
            .field("bytes", &self.data.as_ref().len())
            .finish_non_exhaustive()
    }
}

/// Iterator over the bitmaps of a [`BitmapFile`].
pub struct FileIter<'a> {
    entries: core::slice::Iter<'a, FileEntryLE>,
    bytes: &'a [u8],
}

impl core::fmt::Debug for FileIter<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FileIter")
            .field("remaining", &self.entries.len())
            .finish_non_exhaustive()
    }
}

impl<'a> FileIter<'a> {
    fn open(&self, e: &FileEntryLE) -> Result<(u64, FrozenBitmap<'a>), Error> {
        let (off, len) = (e.offset.get() as usize, e.len.get() as usize);
        let bytes = self.bytes.get(off..off + len).unwrap_or(&[]);
        let bm = FrozenBitmap::from_bytes(bytes).map_err(|err| err.shifted(off))?;
        Ok((e.key.get(), bm))
    }
}

impl<'a> Iterator for FileIter<'a> {
    type Item = Result<(u64, FrozenBitmap<'a>), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let e = self.entries.next()?;
        Some(self.open(e))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.entries.size_hint()
    }
}

impl DoubleEndedIterator for FileIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let e = self.entries.next_back()?;
        Some(self.open(e))
    }
}

impl ExactSizeIterator for FileIter<'_> {}

#[inline]
fn read_u64(bytes: &[u8], off: usize) -> u64 {
    cast::read_u64(bytes, off).unwrap_or(0)
}

/// Checks that `bytes[from..to]`, padding outside every bitmap, is zero.
fn check_padding(bytes: &[u8], from: usize, to: usize) -> Result<(), Error> {
    let pad = bytes.get(from..to).unwrap_or(&[]);
    match pad.iter().position(|&b| b != 0) {
        Some(i) => Err(Error::corrupt(
            "padding between bitmaps (must be zero)",
            from + i,
        )),
        None => Ok(()),
    }
}

/// The footer's checksum: CRC32C of the header then the footer's first 20 bytes in version 2,
/// of those 20 bytes alone in version 1.
pub(crate) fn footer_crc(version: u8, header: &[u8], footer: &[u8]) -> u32 {
    if version == FILE_VERSION_1 {
        crc32c(footer)
    } else {
        crate::checksum::crc32c_append(crc32c(header), footer)
    }
}

/// The checks of `from_bytes`: returns (directory offset, count, flags).
fn check(bytes: &[u8]) -> Result<(usize, usize, u8), Error> {
    let len = bytes.len() as u64;
    if !FILE_MAGIC.starts_with(&bytes[..bytes.len().min(4)]) {
        return Err(Error::bad_magic(expect::FILE, bytes, 0));
    }
    if len < FILE_HEADER_LEN + FOOTER_LEN {
        return Err(Error::truncated(
            FILE_FOOTER,
            0,
            FILE_HEADER_LEN + FOOTER_LEN,
            len,
        ));
    }
    let flags = check_header(&bytes[..FILE_HEADER_LEN as usize])?;
    let f = (len - FOOTER_LEN) as usize;
    let (dir_offset, count, dir_crc) =
        check_footer(&bytes[..FILE_HEADER_LEN as usize], &bytes[f..], len)?;
    check_directory(&bytes[dir_offset..f], dir_offset, dir_crc)?;
    Ok((dir_offset, count, flags))
}

/// Checks the 16-byte header (magic, version, flags, reserved); returns the flags.
pub(crate) fn check_header(header: &[u8]) -> Result<u8, Error> {
    if !header.starts_with(&FILE_MAGIC) {
        return Err(Error::bad_magic(expect::FILE, header, 0));
    }
    let version = header[4];
    if version != FILE_VERSION && version != FILE_VERSION_1 {
        return Err(Error::new(ErrorKind::UnsupportedVersion, "file version", 4)
            .values(u64::from(FILE_VERSION), u64::from(version)));
    }
    let flags = header[5];
    if flags & !FILE_FLAG_BITMAP_CRC != 0 || header[6..16].iter().any(|&b| b != 0) {
        return Err(Error::malformed("file header flags or reserved bytes", 5));
    }
    Ok(flags)
}

/// Checks the 32-byte footer of a file of `len` bytes against its header (checked before):
/// magic, version, reserved bytes, footer CRC, and that the directory ends where the
/// footer starts. Returns (directory offset, count, directory CRC).
pub(crate) fn check_footer(
    header: &[u8],
    footer: &[u8],
    len: u64,
) -> Result<(usize, usize, u32), Error> {
    let version = header[4];
    let f = (len - FOOTER_LEN) as usize;
    if footer[28..32] != FILE_MAGIC {
        return Err(Error::truncated(FILE_FOOTER, f + 28, len, len));
    }
    if footer[24] != version || footer[25..28] != [0, 0, 0] {
        return Err(Error::malformed("footer version or reserved bytes", f + 24)
            .values(u64::from(version), u64::from(footer[24])));
    }
    let stored = u32::from_le_bytes([footer[20], footer[21], footer[22], footer[23]]);
    let computed = footer_crc(version, header, &footer[..20]);
    if stored != computed {
        return Err(
            Error::new(ErrorKind::ChecksumMismatch, "footer checksum", f + 20)
                .values(u64::from(computed), u64::from(stored)),
        );
    }
    let dir_offset = read_u64(footer, 0);
    let count = read_u64(footer, 8);
    let dir_crc = u32::from_le_bytes([footer[16], footer[17], footer[18], footer[19]]);
    let dir_len = count.checked_mul(ENTRY_LEN);
    if dir_offset < FILE_HEADER_LEN
        || !dir_offset.is_multiple_of(8)
        || dir_len.and_then(|l| l.checked_add(dir_offset)) != Some(f as u64)
    {
        return Err(Error::malformed(
            "directory offset or key count (the directory must end where the footer starts)",
            f,
        )
        .values(f as u64, dir_offset));
    }
    Ok((dir_offset as usize, count as usize, dir_crc))
}

/// Checks the directory bytes (at `dir_offset` in the file) against their CRC32C, then key
/// order and entry bounds; returns the entries.
pub(crate) fn check_directory(
    dir: &[u8],
    dir_offset: usize,
    dir_crc: u32,
) -> Result<&[FileEntryLE], Error> {
    let computed = crc32c(dir);
    if computed != dir_crc {
        return Err(Error::new(
            ErrorKind::ChecksumMismatch,
            "directory checksum",
            dir_offset,
        )
        .values(u64::from(computed), u64::from(dir_crc)));
    }
    let entries =
        cast::file_entries(dir).ok_or_else(|| Error::malformed("directory", dir_offset))?;
    let mut end = FILE_HEADER_LEN;
    for (i, e) in entries.iter().enumerate() {
        let at = dir_offset + i * ENTRY_LEN as usize;
        if i > 0 && e.key.get() <= entries[i - 1].key.get() {
            return Err(
                Error::malformed("directory key (keys must be strictly increasing)", at)
                    .values(entries[i - 1].key.get().saturating_add(1), e.key.get()),
            );
        }
        let (off, l) = (e.offset.get(), e.len.get());
        if off < end || off % 4 != 0 || off.checked_add(l).is_none_or(|e| e > dir_offset as u64) {
            return Err(Error::malformed(
                "directory entry (bitmap offset/length out of order or out of bounds)",
                at + 8,
            )
            .values(end, off));
        }
        end = off + l;
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    #[cfg_attr(miri, ignore = "Miri isolates the file system")]
    fn a_missing_file_names_the_operation_path_and_cause() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing.frf");
        #[cfg(feature = "mmap")]
        let errs = [
            BitmapFile::open(&path).unwrap_err(),
            BitmapFile::read(&path).unwrap_err(),
        ];
        #[cfg(not(feature = "mmap"))]
        let errs = [BitmapFile::read(&path).unwrap_err()];
        for err in errs {
            assert_eq!(err.kind(), ErrorKind::Io);
            assert_eq!(err.path(), Some(path.as_path()));
            let text = err.to_string();
            assert!(
                text.starts_with(&std::format!("cannot open {}: ", path.display())),
                "{text}"
            );
            assert!(text.contains("No such file or directory"), "{text}");
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "Miri isolates the file system")]
    fn a_folder_is_refused_as_a_folder() {
        let dir = tempfile::tempdir().unwrap();
        let err = BitmapFile::read(dir.path()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Io);
        let text = err.to_string();
        assert!(
            text.contains(&std::format!("cannot open {}", dir.path().display())),
            "{text}"
        );
        assert!(text.contains("it is a folder, not a bitmap file"), "{text}");
    }

    #[test]
    #[cfg_attr(miri, ignore = "Miri isolates the file system")]
    fn a_full_disk_names_the_path_and_cause() {
        let full = Path::new("/dev/full");
        if !full.exists() {
            std::eprintln!("SKIPPED: no /dev/full on this system");
            return;
        }
        let mut w = FileWriter::create(full).unwrap();
        w.add_sorted(1, 0..100_000).unwrap(); // buffered
        let err = w.commit().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Io);
        let text = err.to_string();
        assert!(text.starts_with("cannot write /dev/full: "), "{text}");
        assert!(text.contains("No space left on device"), "{text}");
    }

    #[test]
    #[cfg_attr(miri, ignore = "Miri isolates the file system")]
    fn a_truncated_file_says_its_footer_is_missing() {
        let mut w = FileWriter::new(alloc::vec::Vec::new());
        w.add_sorted(1, [1, 2, 3]).unwrap();
        let bytes = w.finish().unwrap();
        for cut in [1, 5, 40] {
            let err = BitmapFile::from_bytes(&bytes[..bytes.len() - cut]).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::Truncated, "cut {cut}");
            let text = err.to_string();
            assert!(
                text.starts_with("the file is truncated: its footer is missing"),
                "{text}"
            );
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "Miri isolates the file system")]
    fn magic_errors_say_what_was_found_and_what_was_expected() {
        let mut frozen = alloc::vec::Vec::new();
        crate::Writer::new()
            .write_sorted([1, 2, 3], &mut frozen)
            .unwrap();
        let err = BitmapFile::from_bytes(&frozen[..]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadMagic);
        let text = err.to_string();
        assert!(
            text.contains("expected a bitmap file: the magic \"FRZF\""),
            "{text}"
        );
        assert!(text.contains("found 46 52 5a 52 (\"FRZR\")"), "{text}");
        assert!(
            text.contains("this is one frozen bitmap, not a bitmap file"),
            "{text}"
        );
        let mut portable = alloc::vec::Vec::new();
        crate::Writer::new()
            .write_portable_sorted([1, 2, 3], &mut portable)
            .unwrap();
        let text = BitmapFile::from_bytes(&portable[..])
            .unwrap_err()
            .to_string();
        assert!(
            text.contains("this is one portable 32-bit bitmap"),
            "{text}"
        );
        // The reverse: a bitmap file where one bitmap is expected.
        let mut w = FileWriter::new(alloc::vec::Vec::new());
        w.add_sorted(1, [1]).unwrap();
        let file = w.finish().unwrap();
        let text = FrozenBitmap::from_bytes(&file).unwrap_err().to_string();
        assert!(
            text.contains("this is a bitmap file, not one bitmap"),
            "{text}"
        );
        let text = FrozenBitmap::from_bytes(b"garbage!")
            .unwrap_err()
            .to_string();
        assert!(text.contains("found 67 61 72 62 (\"garb\")"), "{text}");
    }
}
