//! [`FileWriter`]: streams bitmaps into a bitmap file.

use alloc::vec::Vec;
use std::io::Write;

use super::*;
use crate::write::Writer;

/// Writes a bitmap file (`format-spec/FILE.md`) to any `std::io::Write`, one bitmap at a
/// time, as they are produced: keys must come strictly increasing, and nothing needs to be
/// known in advance. Memory: one bitmap's encoding plus 24 bytes of directory per key. No
/// allocation per bitmap in steady state (the directory grows by doubling).
///
/// Wrap files in a `std::io::BufWriter`: the writer issues one `write_all` per bitmap and
/// one per padding.
///
/// ```
/// use frozen_roaring::{BitmapFile, FileWriter};
/// let mut w = FileWriter::new(Vec::new()).with_bitmap_checksums(true);
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
            checksums: false,
            started: false,
        }
    }

    /// Gives every bitmap a CRC32C trailer (checked by [`BitmapFile::verify`] and by
    /// strict opens). The directory always has a checksum.
    pub fn with_bitmap_checksums(mut self, on: bool) -> FileWriter<W> {
        self.checksums = on;
        self.writer = Writer::new().with_checksum(on);
        self
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
        self.out.write_all(bytes).map_err(Error::io)?;
        self.pos += bytes.len() as u64;
        Ok(())
    }

    fn start(&mut self) -> Result<(), Error> {
        if !self.started {
            self.started = true;
            let mut header = [0u8; FILE_HEADER_LEN as usize];
            header[..4].copy_from_slice(&FILE_MAGIC);
            header[4] = FILE_VERSION;
            header[5] = if self.checksums {
                FILE_FLAG_BITMAP_CRC
            } else {
                0
            };
            self.write(&header)?;
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
        let crc = crc32c(&footer[..20]);
        footer[20..24].copy_from_slice(&crc.to_le_bytes());
        footer[24] = FILE_VERSION;
        footer[28..].copy_from_slice(&FILE_MAGIC);
        self.write(&footer)?;
        self.out.flush().map_err(Error::io)?;
        Ok(self.out)
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
