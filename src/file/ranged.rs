//! Bitmap files read by byte ranges, for storage that serves ranges rather than whole
//! files (object stores, HTTP, a file read with `pread`): opening costs one read of the
//! file's tail in most cases, a lookup one read, and a batch of lookups a few reads of
//! merged ranges issued concurrently. An optional byte-bounded cache keeps fetched bitmaps.

use alloc::borrow::Cow;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::ops::Range;
use std::collections::HashMap;
use std::io;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{
    FILE_FLAG_BITMAP_CRC, FILE_HEADER_LEN, FILE_MAGIC, FILE_VERSION, FOOTER_LEN, check_directory,
    check_footer, check_header, footer_crc,
};
use crate::buf::FrozenBitmapBuf;
use crate::error::{Error, FILE_FOOTER};
use crate::view::FrozenBitmap;

/// A source of byte ranges: what a [`RangedBitmapFile`] reads through. Implemented for byte
/// slices and vectors, files (with positioned reads) and memory maps; implement it for an
/// object store, an HTTP client or a cache of your own.
pub trait RangeSource {
    /// The source's length in bytes.
    ///
    /// # Errors
    ///
    /// Whatever the storage reports.
    fn size(&self) -> io::Result<u64>;

    /// The bytes of `range` (`range.end <= size`). Returning fewer bytes than asked for is
    /// allowed (a short read); the reader reports it as an error naming what it was
    /// reading.
    ///
    /// # Errors
    ///
    /// Whatever the storage reports.
    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>>;

    /// The source's length and its last `n` bytes (all of it if shorter). The default asks
    /// [`size`](Self::size) then [`read_range`](Self::read_range); a store that answers a
    /// suffix request with the total length (HTTP `Range: bytes=-n`, S3, GCS, Azure)
    /// should do it in one request, which makes opening most files one request.
    ///
    /// # Errors
    ///
    /// Whatever the storage reports.
    fn read_suffix(&self, n: u64) -> io::Result<(u64, Cow<'_, [u8]>)> {
        let size = self.size()?;
        Ok((size, self.read_range(size.saturating_sub(n)..size)?))
    }
}

impl RangeSource for [u8] {
    fn size(&self) -> io::Result<u64> {
        Ok(self.len() as u64)
    }
    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        let r = usize::try_from(range.start).unwrap_or(usize::MAX)
            ..usize::try_from(range.end).unwrap_or(usize::MAX);
        let end = r.end.min(self.len());
        Ok(Cow::Borrowed(
            self.get(r.start.min(end)..end).unwrap_or(&[]),
        ))
    }
}

impl RangeSource for Vec<u8> {
    fn size(&self) -> io::Result<u64> {
        self.as_slice().size()
    }
    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        self.as_slice().read_range(range)
    }
}

impl<T: RangeSource + ?Sized> RangeSource for &T {
    fn size(&self) -> io::Result<u64> {
        (**self).size()
    }
    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        (**self).read_range(range)
    }
    fn read_suffix(&self, n: u64) -> io::Result<(u64, Cow<'_, [u8]>)> {
        (**self).read_suffix(n)
    }
}

impl<T: RangeSource + ?Sized> RangeSource for Arc<T> {
    fn size(&self) -> io::Result<u64> {
        (**self).size()
    }
    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        (**self).read_range(range)
    }
    fn read_suffix(&self, n: u64) -> io::Result<(u64, Cow<'_, [u8]>)> {
        (**self).read_suffix(n)
    }
}

#[cfg(feature = "mmap")]
impl RangeSource for memmap2::Mmap {
    fn size(&self) -> io::Result<u64> {
        (**self).size()
    }
    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        (**self).read_range(range)
    }
}

/// Positioned reads (`pread`), so that concurrent lookups share the file.
#[cfg(any(unix, windows))]
impl RangeSource for std::fs::File {
    fn size(&self) -> io::Result<u64> {
        Ok(self.metadata()?.len())
    }
    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        let n = usize::try_from(range.end.saturating_sub(range.start))
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "range too large"))?;
        let mut buf = alloc::vec![0u8; n];
        let mut done = 0;
        while done < n {
            #[cfg(unix)]
            let k = std::os::unix::fs::FileExt::read_at(
                self,
                &mut buf[done..],
                range.start + done as u64,
            );
            #[cfg(windows)]
            let k = std::os::windows::fs::FileExt::seek_read(
                self,
                &mut buf[done..],
                range.start + done as u64,
            );
            match k {
                Ok(0) => break,
                Ok(k) => done += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        buf.truncate(done);
        Ok(Cow::Owned(buf))
    }
}

/// How a [`RangedBitmapFile`] reads: the size of the speculative tail read, the gap below
/// which two lookups' ranges are read as one, the bound on concurrent reads, the cache.
#[derive(Clone, Debug)]
pub struct RangedOptions {
    /// Bytes read from the end of the file when opening. The footer (32 bytes) and a
    /// directory of up to `(tail_bytes - 32) / 24` keys then come in one request. Default
    /// 64 KiB: about 2,700 keys, and one round trip's worth of bytes on object storage.
    pub tail_bytes: u64,
    /// Two bitmaps of a `get_many` whose bytes are at most this far apart are read in one
    /// request (the bytes between are read and dropped). Default 256 KiB: on object
    /// storage a request costs about what 256 KiB of transfer does.
    pub merge_gap: u64,
    /// At most this many reads of a `get_many` run at once. Default 32: object stores serve
    /// that many requests of one client in parallel, and 100 scattered keys then take at
    /// most 4 round trips.
    pub concurrency: usize,
    /// Bytes of fetched bitmaps kept for later lookups (least recently used first out);
    /// 0 (the default) keeps none.
    pub cache_bytes: u64,
}

impl Default for RangedOptions {
    fn default() -> Self {
        RangedOptions {
            tail_bytes: 64 << 10,
            merge_gap: 256 << 10,
            concurrency: 32,
            cache_bytes: 0,
        }
    }
}

/// What a [`RangedBitmapFile`] has read so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RangedStats {
    /// Read requests made to the source.
    pub requests: u64,
    /// Bytes those requests returned.
    pub bytes: u64,
    /// Lookups answered from the cache.
    pub cache_hits: u64,
    /// Lookups that had to read.
    pub cache_misses: u64,
}

/// A bitmap file read through a [`RangeSource`]: the footer and directory checked once at
/// open (with their checksums), each bitmap read on lookup and opened with the checked
/// constructor, its CRC32C checked when it has one. Errors about a bitmap name its key and
/// byte range ([`Error::key`], [`Error::byte_range`]).
///
/// ```
/// use frozen_roaring::{FileWriter, RangedBitmapFile};
/// let mut w = FileWriter::new(Vec::new());
/// for key in 0..100u64 {
///     w.add_sorted(key, (0..key as u32).map(|v| v * 3))?;
/// }
/// let bytes = w.finish()?; // on object storage, or a file: anything with ranges
/// let file = RangedBitmapFile::open(&bytes[..])?;
/// assert_eq!(file.stats().requests, 1); // the tail held footer and directory
/// assert_eq!(file.get(42)?.unwrap().len(), 42);
/// let many = file.get_many(&[7, 8, 9, 1000])?;
/// assert_eq!(many.iter().map(|b| b.as_ref().map_or(0, |b| b.len())).sum::<u64>(), 24);
/// assert_eq!(file.stats().requests, 3); // one for the get, one for the three near keys
/// # Ok::<(), frozen_roaring::Error>(())
/// ```
pub struct RangedBitmapFile<S> {
    source: S,
    /// `(key, offset, length)` per bitmap, keys ascending.
    entries: Vec<(u64, u64, u64)>,
    flags: u8,
    size: u64,
    options: RangedOptions,
    requests: AtomicU64,
    bytes: AtomicU64,
    hits: AtomicU64,
    misses: AtomicU64,
    cache: Mutex<Cache>,
}

impl<S: RangeSource> RangedBitmapFile<S> {
    /// Opens a file with the default [`RangedOptions`].
    ///
    /// # Errors
    ///
    /// As [`open_with`](Self::open_with).
    pub fn open(source: S) -> Result<Self, Error> {
        RangedBitmapFile::open_with(source, RangedOptions::default())
    }

    /// Opens a file: one read of its tail (footer, and the directory when it fits), one
    /// more for a directory that does not, and one for the header of a version-1 file; the
    /// checks of [`BitmapFile::from_bytes`](crate::BitmapFile::from_bytes) on what was
    /// read (the header of a version-2 file is checked through the footer's checksum).
    ///
    /// # Errors
    ///
    /// `Io` for a failed or short read; the errors of `BitmapFile::from_bytes`.
    pub fn open_with(source: S, options: RangedOptions) -> Result<Self, Error> {
        let mut file = RangedBitmapFile {
            source,
            entries: Vec::new(),
            flags: 0,
            size: 0,
            options,
            requests: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            cache: Mutex::new(Cache::default()),
        };
        let want = file.options.tail_bytes.max(FOOTER_LEN);
        file.requests.fetch_add(1, Ordering::Relaxed);
        let (size, tail) = file
            .source
            .read_suffix(want)
            .map_err(|e| Error::io(what_read("the footer"), None, e))?;
        file.bytes.fetch_add(tail.len() as u64, Ordering::Relaxed);
        let (mut header, mut dir) = (None, None);
        loop {
            match open_step(size, want, &tail, header, dir.as_deref())? {
                Step::Header => {
                    let h = file.read(0..FILE_HEADER_LEN, "the header")?;
                    header = Some(h[..16].try_into().unwrap_or([0; 16]));
                }
                Step::Directory(r) => dir = Some(file.read(r, "the directory")?.into_owned()),
                Step::Done(entries, flags) => {
                    file.size = size;
                    file.entries = entries;
                    file.flags = flags;
                    return Ok(file);
                }
            }
        }
    }

    /// A file opened elsewhere (by the asynchronous open): its size, entries and flags.
    #[cfg(feature = "object_store")]
    pub(crate) fn from_parts(
        source: S,
        options: RangedOptions,
        size: u64,
        entries: Vec<(u64, u64, u64)>,
        flags: u8,
    ) -> Self {
        RangedBitmapFile {
            source,
            entries,
            flags,
            size,
            options,
            requests: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            cache: Mutex::new(Cache::default()),
        }
    }

    /// Counts one request that returned `bytes` bytes.
    #[cfg_attr(not(feature = "object_store"), allow(dead_code))] // the async readers count here
    pub(crate) fn count(&self, bytes: u64) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    /// The options it was opened with.
    pub fn options(&self) -> &RangedOptions {
        &self.options
    }

    /// Reads `range` as one request, counted; a short read is an error.
    fn read(&self, range: Range<u64>, what: &'static str) -> Result<Cow<'_, [u8]>, Error> {
        self.requests.fetch_add(1, Ordering::Relaxed);
        let want = range.end - range.start;
        let got = self
            .source
            .read_range(range)
            .map_err(|e| Error::io(what_read(what), None, e))?;
        self.bytes.fetch_add(got.len() as u64, Ordering::Relaxed);
        whole(got.len(), want, what)?;
        Ok(got)
    }

    /// The number of bitmaps.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the file holds no bitmap.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The file's size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Whether every bitmap carries a CRC32C trailer.
    pub fn has_bitmap_checksums(&self) -> bool {
        self.flags & FILE_FLAG_BITMAP_CRC != 0
    }

    /// The keys in ascending order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = u64> + ExactSizeIterator + '_ {
        self.entries.iter().map(|e| e.0)
    }

    /// The bytes of `key`'s bitmap in the file, if the file has the key.
    pub fn byte_range(&self, key: u64) -> Option<Range<u64>> {
        let i = self.entries.binary_search_by(|e| e.0.cmp(&key)).ok()?;
        let (_, off, len) = self.entries[i];
        Some(off..off + len)
    }

    /// What has been read so far, and the cache's hits and misses.
    pub fn stats(&self) -> RangedStats {
        RangedStats {
            requests: self.requests.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
            cache_hits: self.hits.load(Ordering::Relaxed),
            cache_misses: self.misses.load(Ordering::Relaxed),
        }
    }

    /// The source.
    pub fn get_ref(&self) -> &S {
        &self.source
    }

    /// The bitmap of `key`: one read of its bytes (none if cached), opened with the checked
    /// constructor and its CRC32C checked when it has one.
    ///
    /// # Errors
    ///
    /// `Io` for a failed or short read, and the bitmap's errors (structure, checksum), each
    /// naming the key and byte range.
    pub fn get(&self, key: u64) -> Result<Option<Arc<FrozenBitmapBuf>>, Error> {
        let Some(range) = self.byte_range(key) else {
            return Ok(None);
        };
        if let Some(b) = self.cached(key) {
            return Ok(Some(b));
        }
        let bytes = self
            .read(range.clone(), "the bitmap of")
            .map_err(|e| e.for_entry(key, range.clone()))?;
        self.finish(key, range, &bytes).map(Some)
    }

    /// The bitmaps of `keys` (in their order; `None` for a key the file lacks): the ranges
    /// to read are sorted, those at most [`merge_gap`](RangedOptions::merge_gap) apart
    /// merged into one request, and the requests issued at most
    /// [`concurrency`](RangedOptions::concurrency) at a time. Cached bitmaps are not read.
    ///
    /// # Errors
    ///
    /// As [`get`](Self::get), for the first key that fails.
    pub fn get_many(&self, keys: &[u64]) -> Result<Vec<Option<Arc<FrozenBitmapBuf>>>, Error>
    where
        S: Sync,
    {
        let groups = self.plan(keys);
        let fetched: Mutex<HashMap<u64, Arc<FrozenBitmapBuf>>> = Mutex::new(HashMap::new());
        let failure: Mutex<Option<Error>> = Mutex::new(None);
        let next = AtomicU64::new(0);
        let workers = self.options.concurrency.max(1).min(groups.len());
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                        let Some((span, members)) = groups.get(i) else {
                            break;
                        };
                        if failure.lock().map(|f| f.is_some()).unwrap_or(true) {
                            break;
                        }
                        let result = self
                            .read(span.clone(), "the bitmaps of")
                            .map_err(|e| e.for_entry(members[0].0, span.clone()))
                            .and_then(|bytes| self.split(span, members, &bytes));
                        match result {
                            Ok(got) => {
                                if let Ok(mut f) = fetched.lock() {
                                    f.extend(got);
                                }
                            }
                            Err(e) => {
                                if let Ok(mut f) = failure.lock() {
                                    f.get_or_insert(e);
                                }
                                break;
                            }
                        }
                    }
                });
            }
        });
        if let Some(e) = failure.into_inner().ok().flatten() {
            return Err(e);
        }
        Ok(self.assemble(keys, fetched.into_inner().unwrap_or_default()))
    }

    /// The groups of a `get_many` of `keys`: the bitmaps not cached, sorted by offset, those
    /// at most `merge_gap` apart in one group, each group read as one request.
    pub(crate) fn plan(&self, keys: &[u64]) -> Vec<Group> {
        // (offset, end, key) of each bitmap to read, once per key.
        let mut wanted: BTreeSet<(u64, u64, u64)> = BTreeSet::new();
        for &k in keys {
            if let Some(r) = self.byte_range(k)
                && self.peek_cache(k).is_none()
            {
                wanted.insert((r.start, r.end, k));
            }
        }
        let mut groups: Vec<Group> = Vec::new();
        for (start, end, k) in wanted {
            let r = start..end;
            match groups.last_mut() {
                Some((span, members))
                    if r.start <= span.end.saturating_add(self.options.merge_gap) =>
                {
                    span.end = span.end.max(r.end);
                    members.push((k, r));
                }
                _ => groups.push((r.clone(), alloc::vec![(k, r)])),
            }
        }
        groups
    }

    /// The bitmaps of one group from the bytes read for its span.
    pub(crate) fn split(
        &self,
        span: &Range<u64>,
        members: &[(u64, Range<u64>)],
        bytes: &[u8],
    ) -> Result<Vec<(u64, Arc<FrozenBitmapBuf>)>, Error> {
        let mut got = Vec::with_capacity(members.len());
        for (k, r) in members {
            let at = (r.start - span.start) as usize..(r.end - span.start) as usize;
            got.push((*k, self.finish(*k, r.clone(), &bytes[at])?));
        }
        Ok(got)
    }

    /// The answer of a `get_many` of `keys`, from what was fetched and the cache.
    pub(crate) fn assemble(
        &self,
        keys: &[u64],
        fetched: HashMap<u64, Arc<FrozenBitmapBuf>>,
    ) -> Vec<Option<Arc<FrozenBitmapBuf>>> {
        keys.iter()
            .map(|&k| {
                self.byte_range(k)?;
                match fetched.get(&k) {
                    Some(b) => Some(b.clone()),
                    None => self.cached(k),
                }
            })
            .collect()
    }

    /// Opens the bytes read for `key` (checked, CRC32C when present or promised) and
    /// caches the bitmap.
    pub(crate) fn finish(
        &self,
        key: u64,
        range: Range<u64>,
        bytes: &[u8],
    ) -> Result<Arc<FrozenBitmapBuf>, Error> {
        let named = |e: Error| e.for_entry(key, range.clone());
        let view = FrozenBitmap::from_bytes(bytes).map_err(named)?;
        if view.has_checksum() {
            view.verify().map_err(named)?;
        } else if self.has_bitmap_checksums() {
            return Err(named(Error::malformed(
                "bitmap checksum (the file promises one for every bitmap)",
                0,
            )));
        }
        let b = Arc::new(FrozenBitmapBuf::from_checked(bytes.to_vec()));
        self.misses.fetch_add(1, Ordering::Relaxed);
        if self.options.cache_bytes > 0
            && let Ok(mut c) = self.cache.lock()
        {
            c.insert(key, b.clone(), self.options.cache_bytes);
        }
        Ok(b)
    }

    /// The cached bitmap of `key`, counted as a hit.
    pub(crate) fn cached(&self, key: u64) -> Option<Arc<FrozenBitmapBuf>> {
        let b = self.peek_cache(key)?;
        self.hits.fetch_add(1, Ordering::Relaxed);
        Some(b)
    }

    fn peek_cache(&self, key: u64) -> Option<Arc<FrozenBitmapBuf>> {
        if self.options.cache_bytes == 0 {
            return None;
        }
        self.cache.lock().ok()?.get(key)
    }
}

/// What opening needs next: the header, the directory's range, or nothing more.
pub(crate) enum Step {
    Header,
    Directory(Range<u64>),
    Done(Vec<(u64, u64, u64)>, u8),
}

/// One step of opening a file of `size` bytes from the tail read for `want` bytes, and the
/// header and directory when they were read: the checks of `BitmapFile::from_bytes` on
/// what is there, or what to read next. No I/O, so that every way of reading shares it.
pub(crate) fn open_step(
    size: u64,
    want: u64,
    tail: &[u8],
    header: Option<[u8; 16]>,
    dir: Option<&[u8]>,
) -> Result<Step, Error> {
    let min = FILE_HEADER_LEN + FOOTER_LEN;
    if size < min {
        return Err(Error::truncated(FILE_FOOTER, 0, min, size));
    }
    let tail_len = want.min(size);
    whole(tail.len(), tail_len, "the footer")?;
    let tail = &tail[tail.len() - tail_len as usize..];
    let tail_start = size - tail_len;
    let footer = &tail[tail.len() - FOOTER_LEN as usize..];
    let Some(header) = header.or_else(|| rebuilt_header(tail, tail_start, footer)) else {
        return Ok(Step::Header);
    };
    let flags = check_header(&header)?;
    let (dir_offset, count, dir_crc) = check_footer(&header, footer, size)?;
    let dir_end = size - FOOTER_LEN;
    let dir = if dir_offset as u64 >= tail_start {
        &tail[(dir_offset as u64 - tail_start) as usize..(dir_end - tail_start) as usize]
    } else {
        match dir {
            Some(d) if d.len() as u64 == dir_end - dir_offset as u64 => d,
            _ => return Ok(Step::Directory(dir_offset as u64..dir_end)),
        }
    };
    let entries = check_directory(dir, dir_offset, dir_crc)?;
    let mut list = Vec::with_capacity(count);
    list.extend(
        entries
            .iter()
            .map(|e| (e.key.get(), e.offset.get(), e.len.get())),
    );
    Ok(Step::Done(list, flags))
}

/// The header: from the tail when it covers the file, else (version 2) rebuilt from the
/// footer: a header is the magic, the version and one of two flag values, and the
/// footer's checksum covers it, so the value it matches is the header's. `None`: the
/// header must be read.
fn rebuilt_header(tail: &[u8], tail_start: u64, footer: &[u8]) -> Option<[u8; 16]> {
    let mut header = [0u8; 16];
    if tail_start == 0 {
        header.copy_from_slice(&tail[..16]);
        return Some(header);
    }
    if footer[24] != FILE_VERSION {
        return None;
    }
    header[..4].copy_from_slice(&FILE_MAGIC);
    header[4] = FILE_VERSION;
    let stored = u32::from_le_bytes([footer[20], footer[21], footer[22], footer[23]]);
    [0, FILE_FLAG_BITMAP_CRC].into_iter().find_map(|flags| {
        header[5] = flags;
        (footer_crc(FILE_VERSION, &header, &footer[..20]) == stored).then_some(header)
    })
}

/// Bitmaps read as one request: the span read, and each key with its range.
pub(crate) type Group = (Range<u64>, Vec<(u64, Range<u64>)>);

/// A read of `want` bytes that returned `got`: a short one is an `Io` error naming `what`
/// was read (the storage's answers are never trusted to be whole).
pub(crate) fn whole(got: usize, want: u64, what: &'static str) -> Result<(), Error> {
    if (got as u64) < want {
        return Err(Error::io(
            what_read(what),
            None,
            io::Error::new(
                io::ErrorKind::UnexpectedEof,
                alloc::format!("short read: {got} of {want} bytes"),
            ),
        ));
    }
    Ok(())
}

/// The operation word of a read error: "read the footer", "read the bitmap of", ...
pub(crate) fn what_read(what: &'static str) -> &'static str {
    match what {
        "the footer" => "read the footer of",
        "the header" => "read the header of",
        "the directory" => "read the directory of",
        "the bitmaps of" => "read a range of",
        "the blob" => "read a blob of",
        _ => "read a bitmap of",
    }
}

impl<S> core::fmt::Debug for RangedBitmapFile<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RangedBitmapFile")
            .field("keys", &self.entries.len())
            .field("size", &self.size)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// A byte-bounded cache of bitmaps, least recently used out first.
#[derive(Default)]
struct Cache {
    map: HashMap<u64, (Arc<FrozenBitmapBuf>, u64)>,
    /// Use tick → key.
    order: BTreeMap<u64, u64>,
    tick: u64,
    bytes: u64,
}

impl Cache {
    fn get(&mut self, key: u64) -> Option<Arc<FrozenBitmapBuf>> {
        let (b, t) = self.map.get_mut(&key)?;
        self.order.remove(t);
        self.tick += 1;
        *t = self.tick;
        self.order.insert(self.tick, key);
        Some(b.clone())
    }

    fn insert(&mut self, key: u64, b: Arc<FrozenBitmapBuf>, limit: u64) {
        let size = b.as_bytes().len() as u64;
        if size > limit || self.map.contains_key(&key) {
            return;
        }
        while self.bytes + size > limit {
            let Some((_, old)) = self.order.pop_first() else {
                break;
            };
            if let Some((ob, _)) = self.map.remove(&old) {
                self.bytes -= ob.as_bytes().len() as u64;
            }
        }
        self.tick += 1;
        self.order.insert(self.tick, key);
        self.map.insert(key, (b, self.tick));
        self.bytes += size;
    }
}
