//! [`FileWriter`]: streams bitmaps into a bitmap file.

use alloc::vec::Vec;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::*;
use crate::write::Writer;

/// Writes a bitmap file (`format-spec/FILE.md`) to any `std::io::Write`, one bitmap at a
/// time, as they are produced: keys must come strictly increasing, and nothing needs to be
/// known in advance. Memory: one bitmap's encoding plus 24 bytes of directory per key. No
/// allocation per bitmap in steady state (the directory grows by doubling).
///
/// Every bitmap carries a CRC32C trailer unless [`without_bitmap_checksums`] turns them off
/// (4 bytes a bitmap and one pass over its bytes, so that [`BitmapFile::get_verified`] and
/// [`BitmapFile::verify`] catch payloads damaged after writing).
///
/// To write a file on disk, use [`FileWriter::create`]: it writes a temporary file beside
/// the target and renames it over the target only in [`commit`](FileWriter::commit), so a
/// failed or abandoned build never leaves a partial file or damages the previous one. Any
/// other `Write` works too (wrap it in a `std::io::BufWriter`: the writer issues one
/// `write_all` per bitmap and one per padding).
///
/// [`without_bitmap_checksums`]: FileWriter::without_bitmap_checksums
///
/// ```
/// use frozen_roaring::{BitmapFile, FileWriter};
/// let mut w = FileWriter::new(Vec::new());
/// for term in 0..100u64 {
///     w.add_sorted(term, (0..1000).filter(|d| d % (term as u32 + 1) == 0))?;
/// }
/// assert_eq!(w.count(), 100);
/// let bytes = w.finish()?;
/// let file = BitmapFile::from_bytes(&bytes[..])?;
/// file.verify()?;
/// assert_eq!(file.get(9)?.unwrap().len(), 100);
/// # Ok::<(), frozen_roaring::Error>(())
/// ```
pub struct FileWriter<W: Write> {
    out: W,
    writer: Writer,
    buf: Vec<u8>,
    dir: Vec<u8>,
    pos: u64,
    count: u64,
    values: u64,
    last_key: Option<u64>,
    checksums: bool,
    started: bool,
    /// The file being written, named in I/O errors.
    path: Option<PathBuf>,
}

const ZEROS: [u8; BITMAP_ALIGN as usize] = [0; BITMAP_ALIGN as usize];

impl<W: Write> FileWriter<W> {
    /// A writer of a new file into `out` (nothing is written until the first bitmap or
    /// [`finish`](Self::finish)).
    pub fn new(out: W) -> FileWriter<W> {
        FileWriter {
            out,
            writer: Writer::new(),
            buf: Vec::new(),
            dir: Vec::new(),
            pos: 0,
            count: 0,
            values: 0,
            last_key: None,
            checksums: true,
            started: false,
            path: None,
        }
        .with_bitmap_checksums(true)
    }

    /// Whether every bitmap gets a CRC32C trailer (the default), checked by
    /// [`BitmapFile::get_verified`], [`BitmapFile::verify`] and strict opens. The directory
    /// always has a checksum. Call before the first bitmap.
    pub fn with_bitmap_checksums(mut self, on: bool) -> FileWriter<W> {
        self.checksums = on;
        self.writer = Writer::new().with_checksum(on);
        self
    }

    /// Writes bitmaps without CRC32C trailers: 4 bytes a bitmap smaller and no checksum
    /// pass, but payload damage is then caught only by the strict checks of
    /// [`BitmapFile::verify`], and not always.
    pub fn without_bitmap_checksums(self) -> FileWriter<W> {
        self.with_bitmap_checksums(false)
    }

    /// Reserves directory space for `keys` bitmaps (24 bytes each), so that even the
    /// directory never reallocates.
    pub fn reserve(&mut self, keys: usize) {
        self.dir.reserve(keys.saturating_mul(ENTRY_LEN as usize));
    }

    /// Bitmaps added so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Values added so far (the sum of the bitmaps' lengths).
    pub fn values(&self) -> u64 {
        self.values
    }

    /// Bytes written to the output so far.
    pub fn bytes_written(&self) -> u64 {
        self.pos
    }

    /// Adds the bitmap of strictly ascending `values` under `key`.
    ///
    /// # Errors
    ///
    /// `NotAscending` if `key` is not greater than the previous key (position = the key's
    /// index) or the values are not strictly ascending; `Io` if writing fails. Nothing is
    /// written for a rejected bitmap.
    pub fn add_sorted<I: IntoIterator<Item = u32>>(
        &mut self,
        key: u64,
        values: I,
    ) -> Result<(), Error> {
        self.check_key(key)?;
        self.buf.clear();
        let r = self.writer.write_sorted(values, &mut self.buf)?;
        self.values += self.writer.encoded_len();
        self.put(key, r.start)
    }

    /// Adds a copy of `bitmap` under `key`: its bytes as they are if it is a frozen bitmap
    /// laid out as this crate writes it (one copy), else re-encoded (portable input is
    /// converted to the frozen format, keeping container kinds).
    ///
    /// # Errors
    ///
    /// As [`add_sorted`](Self::add_sorted), plus the structural errors of
    /// [`FrozenBitmap::from_bytes`] for a view whose bytes are not a valid bitmap.
    pub fn add(&mut self, key: u64, bitmap: &FrozenBitmap<'_>) -> Result<(), Error> {
        self.check_key(key)?;
        self.buf.clear();
        let r = self.writer.write_frozen(bitmap, &mut self.buf)?;
        self.values += bitmap.len();
        self.put(key, r.start)
    }

    fn check_key(&self, key: u64) -> Result<(), Error> {
        match self.last_key {
            Some(last) if key <= last => Err(Error::keys_not_ascending(self.count, last, key)),
            _ => Ok(()),
        }
    }

    /// Writes the bitmap in `buf[start..]` at the next 64-aligned position if it holds a
    /// bitset container, else at the next 8-aligned one.
    fn put(&mut self, key: u64, start: usize) -> Result<(), Error> {
        self.start()?;
        let align = if self.writer.last_had_bitset() {
            BITMAP_ALIGN
        } else {
            8
        };
        let pad = (self.pos.next_multiple_of(align) - self.pos) as usize;
        self.write(&ZEROS[..pad])?;
        let offset = self.pos;
        let len = (self.buf.len() - start) as u64;
        let buf = core::mem::take(&mut self.buf);
        let result = self.write(&buf[start..]);
        self.buf = buf;
        result?;
        for x in [key, offset, len] {
            self.dir.extend_from_slice(&x.to_le_bytes());
        }
        self.last_key = Some(key);
        self.count += 1;
        Ok(())
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.out
            .write_all(bytes)
            .map_err(|e| Error::io("write", self.path.as_deref(), e))?;
        self.pos += bytes.len() as u64;
        Ok(())
    }

    /// The file's header.
    fn header(&self) -> [u8; FILE_HEADER_LEN as usize] {
        let mut header = [0u8; FILE_HEADER_LEN as usize];
        header[..4].copy_from_slice(&FILE_MAGIC);
        header[4] = FILE_VERSION;
        header[5] = if self.checksums {
            FILE_FLAG_BITMAP_CRC
        } else {
            0
        };
        header
    }

    fn start(&mut self) -> Result<(), Error> {
        if !self.started {
            self.started = true;
            self.write(&self.header())?;
        }
        Ok(())
    }

    /// Writes the directory and the footer, flushes, and returns the output.
    ///
    /// # Errors
    ///
    /// `Io` if writing or flushing fails.
    pub fn finish(mut self) -> Result<W, Error> {
        self.start()?;
        let pad = (self.pos.next_multiple_of(8) - self.pos) as usize;
        self.write(&ZEROS[..pad])?;
        let dir_offset = self.pos;
        let dir = core::mem::take(&mut self.dir);
        self.write(&dir)?;
        let mut footer = [0u8; FOOTER_LEN as usize];
        footer[..8].copy_from_slice(&dir_offset.to_le_bytes());
        footer[8..16].copy_from_slice(&self.count.to_le_bytes());
        footer[16..20].copy_from_slice(&crc32c(&dir).to_le_bytes());
        let crc = footer_crc(FILE_VERSION, &self.header(), &footer[..20]);
        footer[20..24].copy_from_slice(&crc.to_le_bytes());
        footer[24] = FILE_VERSION;
        footer[28..].copy_from_slice(&FILE_MAGIC);
        self.write(&footer)?;
        self.out
            .flush()
            .map_err(|e| Error::io("write", self.path.as_deref(), e))?;
        Ok(self.out)
    }
}

impl FileWriter<AtomicFile> {
    /// A writer of a new bitmap file at `path`, written to a temporary file in the same
    /// folder and renamed over `path` by [`commit`](Self::commit). Until then `path` is not
    /// touched; if the writer is dropped or an error occurs, the temporary file is removed.
    ///
    /// ```
    /// use frozen_roaring::{BitmapFile, FileWriter};
    /// # let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("postings.frf");
    /// let mut w = FileWriter::create(&path)?;
    /// w.add_sorted(1, [10, 20, 30])?;
    /// w.commit()?;
    /// assert_eq!(BitmapFile::open(&path)?.get(1)?.unwrap().len(), 3);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// `Io` naming the path and the OS's cause if the temporary file cannot be created.
    pub fn create<P: AsRef<Path>>(path: P) -> Result<FileWriter<AtomicFile>, Error> {
        let out = AtomicFile::create(path.as_ref())?;
        let mut w = FileWriter::new(out);
        w.path = Some(path.as_ref().to_path_buf());
        Ok(w)
    }

    /// Writes the directory and footer, syncs the file to storage, and renames it over the
    /// target path: readers see the old file or the whole new one, never a part. Returns
    /// the bytes written.
    ///
    /// # Errors
    ///
    /// `Io` naming the operation (`write`, `sync` or `rename`), the path and the OS's cause;
    /// the target is then left as it was.
    pub fn commit(self) -> Result<u64, Error> {
        let out = self.finish()?;
        let bytes = out.written;
        out.commit()?;
        Ok(bytes)
    }
}

/// A file written beside its target and renamed over it on [`commit`](AtomicFile::commit):
/// the output of [`FileWriter::create`], usable on its own for any bytes. Dropped without
/// `commit`, it removes its temporary file and leaves the target as it was.
///
/// A target that is a symbolic link is resolved first, so the file it points to is
/// replaced and the link kept. A target that exists and is not a regular file (a device
/// such as `/dev/stdout`, a named pipe) cannot be replaced by a rename: it is written in
/// place, and `commit` flushes it.
pub struct AtomicFile {
    out: Sink,
    target: PathBuf,
    written: u64,
    no_clobber: bool,
}

enum Sink {
    Temp(BufWriter<tempfile::NamedTempFile>),
    Special(BufWriter<std::fs::File>),
}

impl AtomicFile {
    /// Creates a temporary file in the folder of `target` (so that the final rename stays on
    /// one file system), readable as the process's umask allows, like a new file.
    ///
    /// # Errors
    ///
    /// `Io` naming the target and the OS's cause (a missing folder, no permission).
    pub fn create<P: AsRef<Path>>(target: P) -> Result<AtomicFile, Error> {
        let named = target.as_ref();
        let resolved;
        let mut target = named;
        if let Ok(meta) = std::fs::metadata(named) {
            if !meta.is_file() && !meta.is_dir() {
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .open(named)
                    .map_err(|e| Error::io("open", Some(named), e))?;
                return Ok(AtomicFile {
                    out: Sink::Special(BufWriter::with_capacity(1 << 20, file)),
                    target: named.to_path_buf(),
                    written: 0,
                    no_clobber: false,
                });
            }
            if std::fs::symlink_metadata(named).is_ok_and(|m| m.file_type().is_symlink()) {
                resolved =
                    std::fs::canonicalize(named).map_err(|e| Error::io("open", Some(named), e))?;
                target = &resolved;
            }
        }
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = target.file_name().map_or_else(
            || std::ffi::OsString::from("bitmaps"),
            std::ffi::OsStr::to_os_string,
        );
        let mut prefix = std::ffi::OsString::from(".");
        prefix.push(&name);
        prefix.push(".");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // The kernel applies the umask to this mode, as for any new file.
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let file = builder
            .tempfile_in(dir)
            .map_err(|e| Error::io("create", Some(target), e))?;
        Ok(AtomicFile {
            out: Sink::Temp(BufWriter::with_capacity(1 << 20, file)),
            target: target.to_path_buf(),
            written: 0,
            no_clobber: false,
        })
    }

    /// Makes [`commit`](Self::commit) fail, leaving the existing file alone, if the target
    /// exists by then.
    pub fn no_clobber(mut self, on: bool) -> AtomicFile {
        self.no_clobber = on;
        self
    }

    /// Bytes written so far.
    pub fn bytes_written(&self) -> u64 {
        self.written
    }

    /// The path the file will have once committed.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Flushes, syncs the data to storage, renames the file over the target and syncs the
    /// folder, so that the new file survives a crash once this returns.
    ///
    /// # Errors
    ///
    /// `Io` naming the operation (`write`, `sync`, `rename`), the target and the OS's cause;
    /// the temporary file is then removed and the target left as it was.
    pub fn commit(self) -> Result<(), Error> {
        let target = self.target;
        let out = match self.out {
            Sink::Temp(out) => out,
            Sink::Special(mut out) => {
                return out
                    .flush()
                    .map_err(|e| Error::io("write", Some(&target), e));
            }
        };
        let file = out
            .into_inner()
            .map_err(|e| Error::io("write", Some(&target), e.into_error()))?;
        file.as_file()
            .sync_all()
            .map_err(|e| Error::io("sync", Some(&target), e))?;
        let persisted = if self.no_clobber {
            file.persist_noclobber(&target)
        } else {
            file.persist(&target)
        };
        persisted.map_err(|e| Error::io("rename", Some(&target), e.error))?;
        #[cfg(unix)]
        if let Some(dir) = target.parent() {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            std::fs::File::open(dir)
                .and_then(|d| d.sync_all())
                .map_err(|e| Error::io("sync the folder of", Some(&target), e))?;
        }
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = match &mut self.out {
            Sink::Temp(out) => out.write(buf)?,
            Sink::Special(out) => out.write(buf)?,
        };
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.out {
            Sink::Temp(out) => out.flush(),
            Sink::Special(out) => out.flush(),
        }
    }
}

impl core::fmt::Debug for AtomicFile {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AtomicFile")
            .field("target", &self.target)
            .field("written", &self.written)
            .finish_non_exhaustive()
    }
}

impl<W: Write> core::fmt::Debug for FileWriter<W> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FileWriter")
            .field("count", &self.count)
            .field("bytes_written", &self.pos)
            .finish_non_exhaustive()
    }
}
