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
    /// Writing to an `std::io::Write` failed; see [`std::error::Error::source`].
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
    #[cfg(feature = "std")]
    io: Option<std::io::Error>,
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
            io: None,
        }
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

    #[cfg(feature = "std")]
    #[cold]
    pub(crate) fn io(err: std::io::Error) -> Error {
        let mut e = Error::new(ErrorKind::Io, "output", 0);
        e.io = Some(err);
        e
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
        let (field, off, exp, found) = (self.field, self.offset, self.expected, self.found);
        match self.kind {
            ErrorKind::Truncated => write!(
                f,
                "truncated bitmap: {field} at byte {off} needs {exp} bytes but the input has {found}; \
                 pass the complete bitmap (check the length you stored or mapped)"
            ),
            ErrorKind::BadMagic => write!(
                f,
                "not a Roaring bitmap: the first bytes ({field}) are neither the frozen-roaring magic \
                 \"FRZR\" nor a portable cookie; check that the slice starts at the bitmap"
            ),
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
            ErrorKind::Io => f.write_str("writing the bitmap failed: I/O error"),
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
        if let Some(e) = &self.io {
            return Some(e);
        }
        None
    }
}

#[cfg(feature = "std")]
impl From<Error> for std::io::Error {
    fn from(e: Error) -> std::io::Error {
        match e.io {
            Some(io) => io,
            None => std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        }
    }
}
