//! Delta Lake's deletion-vector descriptor (the `deletionVector` field of an `add` or
//! `remove` action), the file name it derives, and its inline form in Z85.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::DeletionVector;
use crate::error::Error;

/// Where a Delta DV is stored: the descriptor's `storageType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StorageType {
    /// `u`: a file in the table's folder, named from a UUID (with an optional prefix).
    Relative,
    /// `p`: a file at an absolute path.
    Absolute,
    /// `i`: the bitmap itself, Z85-encoded in the descriptor.
    Inline,
}

impl StorageType {
    /// The storage type of a descriptor's `storageType` code (`u`, `p` or `i`).
    ///
    /// # Errors
    ///
    /// `Malformed` for any other code.
    pub fn from_code(code: &str) -> Result<StorageType, Error> {
        match code {
            "u" => Ok(StorageType::Relative),
            "p" => Ok(StorageType::Absolute),
            "i" => Ok(StorageType::Inline),
            _ => Err(Error::malformed(
                "storageType (Delta defines u, p and i)",
                0,
            )),
        }
    }

    /// The one-letter code.
    pub fn code(self) -> &'static str {
        match self {
            StorageType::Relative => "u",
            StorageType::Absolute => "p",
            StorageType::Inline => "i",
        }
    }
}

/// A Delta Lake deletion-vector descriptor, with the fields as the Delta protocol names
/// them; fill it from a log's `deletionVector` object (or with
/// [`from_json`](Self::from_json)).
///
/// ```
/// use frozen_roaring::{DeletionVectorDescriptor, StorageType, Writer};
/// // A file with a version byte and one frame at offset 1.
/// let mut file = vec![1u8];
/// let frame = Writer::new().write_deletion_vector([0u64, 9], &mut file)?;
/// let d = DeletionVectorDescriptor {
///     storage_type: StorageType::Relative,
///     path_or_inline_dv: "ab^-aqEH.-t@S}K{vb[*k^".into(),
///     offset: Some(frame.start as u64),
///     size_in_bytes: (frame.len() - 8) as u32,
///     cardinality: 2,
/// };
/// assert_eq!(
///     d.relative_path()?.as_deref(),
///     Some("ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin")
/// );
/// let dv = d.open(&file)?;
/// assert_eq!(dv.bitmap().to_vec(), [0, 9]);
/// # Ok::<(), frozen_roaring::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DeletionVectorDescriptor {
    /// `storageType`.
    pub storage_type: StorageType,
    /// `pathOrInlineDv`: for `u`, an optional random prefix then the file's UUID in 20 Z85
    /// characters; for `p`, the file's absolute path (a URI); for `i`, the Z85-encoded
    /// magic and bitmap.
    pub path_or_inline_dv: String,
    /// `offset`: where the frame's length field is in the file (absent for `i`).
    pub offset: Option<u64>,
    /// `sizeInBytes`: the bytes of magic and bitmap.
    pub size_in_bytes: u32,
    /// `cardinality`: the number of deleted rows.
    pub cardinality: u64,
}

impl DeletionVectorDescriptor {
    /// Reads a descriptor from the JSON of a log action's `deletionVector` object.
    ///
    /// # Errors
    ///
    /// `Malformed` naming the field that is missing or of the wrong type.
    #[cfg(feature = "std")]
    pub fn from_json(value: &serde_json::Value) -> Result<DeletionVectorDescriptor, Error> {
        let field = |name: &'static str| value.get(name);
        let storage = field("storageType")
            .and_then(|v| v.as_str())
            .ok_or_else(|| Error::malformed("storageType (missing or not a string)", 0))?;
        let path = field("pathOrInlineDv")
            .and_then(|v| v.as_str())
            .ok_or_else(|| Error::malformed("pathOrInlineDv (missing or not a string)", 0))?;
        let size = field("sizeInBytes")
            .and_then(|v| v.as_u64())
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| Error::malformed("sizeInBytes (missing or not a u32)", 0))?;
        let cardinality = field("cardinality")
            .and_then(|v| v.as_u64())
            .ok_or_else(|| Error::malformed("cardinality (missing or not a u64)", 0))?;
        let offset = match field("offset") {
            None | Some(serde_json::Value::Null) => None,
            Some(v) => Some(
                v.as_u64()
                    .ok_or_else(|| Error::malformed("offset (not a u64)", 0))?,
            ),
        };
        Ok(DeletionVectorDescriptor {
            storage_type: StorageType::from_code(storage)?,
            path_or_inline_dv: path.into(),
            offset,
            size_in_bytes: size,
            cardinality,
        })
    }

    /// For `u` descriptors, the file's UUID (the last 20 characters of `pathOrInlineDv`,
    /// Z85-decoded).
    ///
    /// # Errors
    ///
    /// `Malformed` if the descriptor is not `u` or the UUID is not 20 Z85 characters.
    pub fn uuid(&self) -> Result<[u8; 16], Error> {
        let p = self.path_or_inline_dv.as_bytes();
        if self.storage_type != StorageType::Relative || p.len() < 20 {
            return Err(Error::malformed(
                "pathOrInlineDv (a `u` descriptor ends with a 20-character Z85 UUID)",
                0,
            ));
        }
        let mut uuid = [0u8; 16];
        z85_decode_into(&p[p.len() - 20..], &mut uuid)?;
        Ok(uuid)
    }

    /// The DV file's path: for `u`, relative to the table's root
    /// (`<prefix>/deletion_vector_<uuid>.bin`, as the Delta protocol derives it); for `p`,
    /// the absolute path as stored; `None` for inline DVs.
    ///
    /// # Errors
    ///
    /// As [`uuid`](Self::uuid).
    pub fn relative_path(&self) -> Result<Option<String>, Error> {
        match self.storage_type {
            StorageType::Inline => Ok(None),
            StorageType::Absolute => Ok(Some(self.path_or_inline_dv.clone())),
            StorageType::Relative => {
                let u = self.uuid()?;
                let p = &self.path_or_inline_dv;
                let prefix = &p[..p.len() - 20];
                let name = format!(
                    "deletion_vector_{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}.bin",
                    u[0],
                    u[1],
                    u[2],
                    u[3],
                    u[4],
                    u[5],
                    u[6],
                    u[7],
                    u[8],
                    u[9],
                    u[10],
                    u[11],
                    u[12],
                    u[13],
                    u[14],
                    u[15]
                );
                Ok(Some(if prefix.is_empty() {
                    name
                } else {
                    format!("{prefix}/{name}")
                }))
            }
        }
    }

    /// Opens this descriptor's frame in the bytes of its DV file (at `offset`, 0 if
    /// absent) and checks the cardinality; see [`DeletionVector::from_delta_file`].
    ///
    /// # Errors
    ///
    /// `Malformed` for an inline descriptor (use [`decode_inline`](Self::decode_inline)),
    /// and the errors of [`DeletionVector::from_delta_file`] and
    /// [`DeletionVector::check_cardinality`].
    pub fn open<'a>(&self, file: &'a [u8]) -> Result<DeletionVector<'a>, Error> {
        if self.storage_type == StorageType::Inline {
            return Err(Error::malformed(
                "storageType (an inline DV has no file: decode it with decode_inline)",
                0,
            ));
        }
        let dv =
            DeletionVector::from_delta_file(file, self.offset.unwrap_or(0), self.size_in_bytes)?;
        dv.check_cardinality(self.cardinality)?;
        Ok(dv)
    }

    /// An inline (`i`) descriptor for a DV's magic and bitmap (a frame without its length
    /// field and checksum, as [`DeletionVector::as_bytes`] gives them after those are cut),
    /// Z85-encoded with Delta's zero padding.
    pub fn inline(magic_and_bitmap: &[u8], cardinality: u64) -> DeletionVectorDescriptor {
        DeletionVectorDescriptor {
            storage_type: StorageType::Inline,
            path_or_inline_dv: z85_encode(magic_and_bitmap),
            offset: None,
            size_in_bytes: magic_and_bitmap.len() as u32,
            cardinality,
        }
    }

    /// The magic and bitmap of an inline (`i`) DV, decoded from Z85 (RFC 32); open them
    /// with [`DeletionVector::from_inline`]. Delta's encoder pads the last group with zero
    /// bytes; the padding is cut off at `sizeInBytes`. A group whose value passes 2^32 (as
    /// some encoders write a short last group) is refused rather than wrapped.
    ///
    /// # Errors
    ///
    /// `Malformed` for a descriptor that is not inline, a length that does not match
    /// `sizeInBytes`, or characters and groups that are not Z85.
    pub fn decode_inline(&self) -> Result<Vec<u8>, Error> {
        if self.storage_type != StorageType::Inline {
            return Err(Error::malformed(
                "storageType (only an `i` descriptor holds its bitmap inline)",
                0,
            ));
        }
        let text = self.path_or_inline_dv.as_bytes();
        let size = self.size_in_bytes as usize;
        if !text.len().is_multiple_of(5) || text.len() / 5 != size.div_ceil(4) {
            return Err(Error::malformed(
                "pathOrInlineDv (Z85 of sizeInBytes bytes, padded to a multiple of 4)",
                0,
            )
            .values((size.div_ceil(4) * 5) as u64, text.len() as u64));
        }
        let mut out = alloc::vec![0u8; text.len() / 5 * 4];
        z85_decode_into(text, &mut out)?;
        out.truncate(size);
        Ok(out)
    }
}

/// Z85's alphabet (RFC 32): the character of each digit 0..85.
const Z85: &[u8; 85] =
    b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

/// Decodes Z85 `text` (a multiple of 5 characters) into `out` (4 bytes per 5 characters).
fn z85_decode_into(text: &[u8], out: &mut [u8]) -> Result<(), Error> {
    let mut digit = [0xFFu8; 256];
    for (i, &c) in Z85.iter().enumerate() {
        digit[usize::from(c)] = i as u8;
    }
    for (i, (group, dst)) in text
        .chunks_exact(5)
        .zip(out.chunks_exact_mut(4))
        .enumerate()
    {
        let mut v = 0u64;
        for &c in group {
            let d = digit[usize::from(c)];
            if d == 0xFF {
                return Err(Error::malformed(
                    "Z85 character (not in the alphabet)",
                    5 * i,
                ));
            }
            v = v * 85 + u64::from(d);
        }
        let v = u32::try_from(v).map_err(|_| {
            Error::malformed(
                "Z85 group (its value passes 2^32: not standard Z85, refused rather than wrapped)",
                5 * i,
            )
        })?;
        dst.copy_from_slice(&v.to_be_bytes());
    }
    Ok(())
}

/// Encodes `bytes` in Z85, the last group padded with zero bytes as Delta's encoder does.
fn z85_encode(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len().div_ceil(4) * 5);
    for w in bytes.chunks(4) {
        let mut word = [0u8; 4];
        word[..w.len()].copy_from_slice(w);
        let mut v = u32::from_be_bytes(word);
        let mut group = [0u8; 5];
        for g in group.iter_mut().rev() {
            *g = Z85[(v % 85) as usize];
            v /= 85;
        }
        s.push_str(core::str::from_utf8(&group).unwrap_or_default());
    }
    s
}
