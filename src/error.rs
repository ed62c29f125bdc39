//! The crate's one error type.

use core::fmt;

/// What went wrong, for callers that want to react differently to different failures.
///
/// Obtained from [`Error::kind`]. New kinds may be added in minor releases.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The input ends before a section it declares (a truncated file or buffer).
    Truncated,
    /// The first bytes are not a known bitmap format's magic or cookie.
    BadMagic,
    /// A frozen-roaring bitmap of a format version this release does not know.
    UnsupportedVersion,
    /// The structure (header, directory, offsets) is inconsistent: the bytes are corrupt or
    /// were not written as a bitmap.
    Malformed,
    /// The structure is sound but a payload breaks a Roaring invariant (found by strict
    /// validation only).
    Corrupt,
    /// The stored CRC32C does not match the bytes.
    ChecksumMismatch,
    /// Values given to a writer were not strictly ascending.
    NotAscending,
    /// A caller's output slice is too small for the bitmap.
    BufferTooSmall,
    /// An operating-system operation (open, read, map, write, sync, rename) failed. The
    /// message names the operation, the path when there is one, and the OS's cause, which
    /// [`std::error::Error::source`] also returns.
    Io,
}

/// An error from reading or writing a bitmap.
///
/// The message names the field and its byte offset and says what to do. Use
/// [`Error::kind`] to branch on the cause, [`Error::offset`] for the byte offset (relative to
/// the start of the bitmap) and [`Error::position`] for the index of an offending value.
///
/// ```
/// use frozen_roaring::{ErrorKind, FrozenBitmap, Writer};
///
/// let err = Writer::new().write_sorted([1, 3, 2], &mut Vec::new()).unwrap_err();
/// assert_eq!((err.kind(), err.position(), err.offset()), (ErrorKind::NotAscending, Some(2), None));
///
/// let err = FrozenBitmap::from_bytes(b"FRZR\x01\x00\x00\x00").unwrap_err();
/// assert_eq!((err.kind(), err.offset()), (ErrorKind::Truncated, Some(0)));
/// println!("{err}"); // says what is wrong, where, and what to do
///
/// let err = Writer::new().write_sorted_to_slice((0..1000).step_by(2), &mut [0u8; 8]).unwrap_err();
/// assert_eq!((err.kind(), err.needed()), (ErrorKind::BufferTooSmall, Some(16 + 12 + 1000)));
/// ```
pub struct Error {
    kind: ErrorKind,
    field: &'static str,
    offset: u64,
    expected: u64,
    found: u64,
    /// What only some errors carry, boxed so that the error stays small.
    #[cfg(feature = "std")]
    ctx: Option<alloc::boxed::Box<Context>>,
}

/// The context an error may carry: an I/O failure, and the file entry it is about.
#[cfg(feature = "std")]
#[derive(Default)]
struct Context {
    io: Option<IoContext>,
    /// The key and byte range of a bitmap file's entry.
    entry: Option<(u64, core::ops::Range<u64>)>,
}

/// The operation, path and OS error of an [`ErrorKind::Io`] error.
#[cfg(feature = "std")]
struct IoContext {
    path: Option<std::path::PathBuf>,
    err: std::io::Error,
}

/// The field name of a deletion vector's checksum in errors (its message names CRC-32).
pub(crate) const DV_CRC: &str = "CRC-32 of the deletion vector";

/// The magics a reader accepts, for a `BadMagic` message.
pub(crate) mod expect {
    /// A 32-bit bitmap: frozen or portable.
    pub(crate) const BITMAP: &str =
        "a bitmap: the frozen-roaring magic \"FRZR\" or a portable cookie (12346 or 12347)";
    /// A bitmap file.
    pub(crate) const FILE: &str = "a bitmap file: the magic \"FRZF\"";
    /// A deletion vector.
    pub(crate) const DV: &str =
        "a deletion vector: the magic D1 D3 39 64 (1681511377) or Delta's native 1681511376";
    /// A Puffin file.
    pub(crate) const PUFFIN: &str = "a Puffin file: the magic \"PFA1\"";
    /// A bucket of a 64-bit bitmap.
    pub(crate) const BUCKET: &str =
        "a bucket of a 64-bit bitmap: a portable cookie (12346 or 12347)";
}

impl Error {
    #[cold]
    pub(crate) fn new(kind: ErrorKind, field: &'static str, offset: usize) -> Error {
        Error {
            kind,
            field,
            offset: offset as u64,
            expected: 0,
            found: 0,
            #[cfg(feature = "std")]
            ctx: None,
        }
    }

    /// Names the key and the byte range of the file entry the error is about.
    #[cfg(feature = "std")]
    #[cold]
    pub(crate) fn for_entry(mut self, key: u64, range: core::ops::Range<u64>) -> Error {
        self.ctx.get_or_insert_with(Default::default).entry = Some((key, range));
        self
    }

    /// For an error about one bitmap of a file read by ranges: its key.
    #[cfg(feature = "std")]
    pub fn key(&self) -> Option<u64> {
        self.entry().map(|e| e.0)
    }

    /// For an error about one bitmap of a file read by ranges: the bytes of the file it
    /// was read from.
    #[cfg(feature = "std")]
    pub fn byte_range(&self) -> Option<core::ops::Range<u64>> {
        self.entry().map(|e| e.1.clone())
    }

    /// Adds the expected and found values to the message.
    #[cold]
    pub(crate) fn values(mut self, expected: u64, found: u64) -> Error {
        self.expected = expected;
        self.found = found;
        self
    }

    #[cold]
    pub(crate) fn truncated(field: &'static str, offset: usize, needed: u64, have: u64) -> Error {
        Error::new(ErrorKind::Truncated, field, offset).values(needed, have)
    }

    /// Bytes that do not start with the magic a reader expects (`expected`: one of
    /// [`expect`]'s texts). The message shows the first bytes found and, when they are
    /// another format this crate reads, which one and how to open it.
    #[cold]
    pub(crate) fn bad_magic(expected: &'static str, bytes: &[u8], offset: usize) -> Error {
        let n = bytes.len().min(4);
        // Up to 8 bytes are kept: the second four tell a bare deletion vector (its magic
        // after the length field) apart.
        let mut found = [0u8; 8];
        let kept = bytes.len().min(8);
        found[..kept].copy_from_slice(&bytes[..kept]);
        Error::new(ErrorKind::BadMagic, expected, offset)
            .values(n as u64, u64::from_le_bytes(found))
    }

    #[cold]
    pub(crate) fn malformed(field: &'static str, offset: usize) -> Error {
        Error::new(ErrorKind::Malformed, field, offset)
    }

    #[cold]
    pub(crate) fn corrupt(field: &'static str, offset: usize) -> Error {
        Error::new(ErrorKind::Corrupt, field, offset)
    }

    /// Moves the offset of a byte-offset error by `base` (for errors of a bitmap nested in
    /// a larger structure, so that offsets count from the start of the outer bytes).
    #[cold]
    pub(crate) fn shifted(mut self, base: usize) -> Error {
        if self.offset().is_some() {
            self.offset += base as u64;
        }
        self
    }

    /// Keys of a bitmap file that are not strictly increasing.
    #[cfg(feature = "std")]
    #[cold]
    pub(crate) fn keys_not_ascending(position: u64, previous: u64, key: u64) -> Error {
        Error::new(ErrorKind::NotAscending, "keys", 0)
            .values(previous, key)
            .at_position(position)
    }

    #[cfg(feature = "alloc")]
    #[cold]
    pub(crate) fn not_ascending64(position: u64, previous: u64, value: u64) -> Error {
        Error::new(ErrorKind::NotAscending, "values", 0)
            .values(previous, value)
            .at_position(position)
    }

    #[cfg(feature = "alloc")]
    #[cold]
    pub(crate) fn not_ascending(position: u64, previous: u32, value: u32) -> Error {
        Error::new(ErrorKind::NotAscending, "values", 0)
            .values(u64::from(previous), u64::from(value))
            .at_position(position)
    }

    #[cfg(feature = "alloc")]
    #[cold]
    fn at_position(mut self, position: u64) -> Error {
        self.offset = position;
        self
    }

    /// An I/O error of `op` ("open", "read", "map", "write", "sync", "rename", ...) on
    /// `path`, or on the caller's output when `path` is `None`.
    #[cfg(feature = "std")]
    #[cold]
    pub(crate) fn io(
        op: &'static str,
        path: Option<&std::path::Path>,
        err: std::io::Error,
    ) -> Error {
        let mut e = Error::new(ErrorKind::Io, op, 0);
        e.ctx = Some(alloc::boxed::Box::new(Context {
            io: Some(IoContext {
                path: path.map(std::path::Path::to_path_buf),
                err,
            }),
            entry: None,
        }));
        e
    }

    #[cfg(feature = "std")]
    fn io_context(&self) -> Option<&IoContext> {
        self.ctx.as_ref()?.io.as_ref()
    }

    #[cfg(feature = "std")]
    fn entry(&self) -> Option<&(u64, core::ops::Range<u64>)> {
        self.ctx.as_ref()?.entry.as_ref()
    }

    /// For [`ErrorKind::Io`]: the path of the file the failed operation was on, if any.
    #[cfg(feature = "std")]
    pub fn path(&self) -> Option<&std::path::Path> {
        self.io_context().and_then(|c| c.path.as_deref())
    }

    /// For [`ErrorKind::Io`]: the operating system's error.
    #[cfg(feature = "std")]
    pub fn io_error(&self) -> Option<&std::io::Error> {
        self.io_context().map(|c| &c.err)
    }

    /// The category of the failure.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The byte offset, relative to the start of the bitmap, of the field that failed a
    /// check; `None` for errors that are not about input bytes.
    pub fn offset(&self) -> Option<u64> {
        match self.kind {
            ErrorKind::NotAscending | ErrorKind::BufferTooSmall | ErrorKind::Io => None,
            _ => Some(self.offset),
        }
    }

    /// For [`ErrorKind::NotAscending`]: the 0-based index of the first value that is not
    /// greater than its predecessor.
    pub fn position(&self) -> Option<u64> {
        (self.kind == ErrorKind::NotAscending).then_some(self.offset)
    }

    /// For [`ErrorKind::BufferTooSmall`]: the number of bytes the output needs.
    pub fn needed(&self) -> Option<u64> {
        (self.kind == ErrorKind::BufferTooSmall).then_some(self.expected)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        #[cfg(feature = "std")]
        if let Some(e) = self.entry() {
            write!(
                f,
                "key {} (bytes {}..{} of the file): ",
                e.0, e.1.start, e.1.end
            )?;
        }
        self.fmt_cause(f)
    }
}

impl Error {
    fn fmt_cause(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (field, off, exp, found) = (self.field, self.offset, self.expected, self.found);
        match self.kind {
            ErrorKind::Truncated if field == FILE_FOOTER => write!(
                f,
                "the file is truncated: its footer is missing (a bitmap file of {found} bytes \
                 does not end with the magic \"FRZF\"); it was cut short or is still being \
                 written, rebuild or copy it again"
            ),
            ErrorKind::Truncated => write!(
                f,
                "truncated bitmap: {field} at byte {off} needs {exp} bytes but the input has {found}; \
                 pass the complete bitmap (check the length you stored or mapped)"
            ),
            ErrorKind::BadMagic => bad_magic(f, field, off, exp as usize, found),
            ErrorKind::UnsupportedVersion => write!(
                f,
                "frozen-roaring format version {found} is not supported (this release reads version \
                 {exp}); upgrade frozen-roaring"
            ),
            ErrorKind::Malformed => {
                write!(f, "malformed bitmap: invalid {field} at byte {off}")?;
                if exp != 0 || found != 0 {
                    write!(f, " (expected {exp}, found {found})")?;
                }
                f.write_str(
                    "; the bytes are corrupt or not a bitmap, rewrite them from the source data",
                )
            }
            ErrorKind::Corrupt => write!(
                f,
                "corrupt bitmap payload: {field} at byte {off} breaks a Roaring invariant; \
                 the bytes are damaged, rewrite them from the source data"
            ),
            ErrorKind::ChecksumMismatch if field == DV_CRC => write!(
                f,
                "checksum mismatch: stored {field} {found:#010x}, computed {exp:#010x} over the \
                 magic and bitmap; the deletion vector was damaged after writing, or the \
                 offset that located it is wrong"
            ),
            ErrorKind::ChecksumMismatch => write!(
                f,
                "checksum mismatch: stored CRC32C {found:#010x}, computed {exp:#010x} over bytes 0..{off}; \
                 the bytes were damaged after writing"
            ),
            ErrorKind::NotAscending => write!(
                f,
                "{field} must be strictly ascending: {found} at position {off} follows {exp}; \
                 sort and deduplicate the {field} first"
            ),
            ErrorKind::BufferTooSmall => write!(
                f,
                "output buffer too small: the bitmap needs {exp} bytes, the buffer has {found}; \
                 size it with Writer::serialized_size"
            ),
            ErrorKind::Io => {
                #[cfg(feature = "std")]
                if let Some(c) = self.io_context() {
                    return match &c.path {
                        Some(p) => write!(f, "cannot {field} {}: {}", p.display(), c.err),
                        None => write!(f, "cannot {field} the output: {}", c.err),
                    };
                }
                write!(f, "cannot {field}: I/O error")
            }
        }
    }
}

/// The `field` of the `Truncated` error of a bitmap file whose footer is missing.
pub(crate) const FILE_FOOTER: &str = "file footer";

/// The message of a `BadMagic` error: what was expected, what was found (`n` bytes packed
/// little-endian in `found`), and, when those bytes are another format this crate reads,
/// which one and how to open it.
#[cold]
fn bad_magic(
    f: &mut fmt::Formatter<'_>,
    expected: &str,
    at: u64,
    n: usize,
    found: u64,
) -> fmt::Result {
    let all = found.to_le_bytes();
    let bytes = &all[..n.min(4)];
    let is_file = expected == expect::FILE;
    let hint = match bytes {
        _ if expected == expect::PUFFIN && all[4..] == crate::format::DV_MAGIC => Some(
            "this is a bare deletion-vector blob, not a Puffin file: open it with \
             DeletionVector::from_bytes",
        ),
        b"PFA1" if expected == expect::DV => {
            Some("this is a Puffin file: open it with PuffinFile and take its deletion vectors")
        }
        b"FRZF" if !is_file => Some(
            "this is a bitmap file, not one bitmap: open it with BitmapFile (the tool reads either)",
        ),
        b"FRZR" if is_file => Some(
            "this is one frozen bitmap, not a bitmap file: open it with FrozenBitmap::from_bytes \
             (the tool reads either)",
        ),
        b"FRZR" => Some("a frozen bitmap where a portable one must be: write the bucket portable"),
        b"FR64" => Some(
            "this is one 64-bit frozen bitmap: open it with FrozenBitmap64::from_bytes \
             (the tool reads either)",
        ),
        [0x3A, 0x30, 0, 0] | [0x3B, 0x30, _, _] if is_file => Some(
            "this is one portable 32-bit bitmap, not a bitmap file: open it with \
             FrozenBitmap::from_bytes (the tool reads either)",
        ),
        _ => None,
    };
    write!(f, "wrong magic at byte {at}: expected {expected}, found ")?;
    if bytes.is_empty() {
        f.write_str("no bytes")?;
    } else {
        for (i, b) in bytes.iter().enumerate() {
            write!(f, "{}{b:02x}", if i == 0 { "" } else { " " })?;
        }
        if bytes.iter().all(|b| b.is_ascii_graphic()) {
            f.write_str(" (\"")?;
            for &b in bytes {
                write!(f, "{}", b as char)?;
            }
            f.write_str("\")")?;
        }
    }
    match hint {
        Some(h) => write!(f, "; {h}"),
        None => {
            f.write_str("; check that the bytes start at the bitmap and are not another format")
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({:?}: {})", self.kind, self)
    }
}

impl core::error::Error for Error {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        #[cfg(feature = "std")]
        if let Some(c) = self.io_context() {
            return Some(&c.err);
        }
        None
    }
}

#[cfg(feature = "std")]
impl From<Error> for std::io::Error {
    fn from(e: Error) -> std::io::Error {
        let kind = match e.io_context() {
            Some(c) => c.err.kind(),
            None => std::io::ErrorKind::InvalidData,
        };
        std::io::Error::new(kind, e)
    }
}
