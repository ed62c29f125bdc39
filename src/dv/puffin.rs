//! Apache Iceberg's Puffin files: blobs followed by a JSON footer that lists them, with the
//! magic `PFA1` at both ends. Deletion vectors are its `deletion-vector-v1` blobs, opened
//! here in place.

use alloc::borrow::ToOwned;
use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;
use core::ops::Range;

use super::DeletionVector;
use crate::error::{Error, ErrorKind, expect};

/// Puffin's magic, at the start of the file and at both ends of the footer.
pub const PUFFIN_MAGIC: [u8; 4] = *b"PFA1";
/// The blob type of a deletion vector.
pub const DELETION_VECTOR_V1: &str = "deletion-vector-v1";
/// Footer bytes after the payload: payload size (4), flags (4), magic (4).
pub(crate) const FOOTER_TAIL: usize = 12;
/// Flag bit of the footer's first flag byte: the payload is LZ4-compressed (frame format).
const FLAG_COMPRESSED: u8 = 1;
/// The most JSON a compressed footer may decompress to: a footer lists blobs in about 300
/// bytes each, so 64 MiB is 200,000 blobs, and a small hostile payload cannot make the
/// reader allocate more.
const FOOTER_JSON_LIMIT: u64 = 64 << 20;
/// The field id Iceberg gives the row position of a DV blob (`fields`).
const ROW_POSITION_FIELD: i64 = 2_147_483_645;

/// One blob's entry in a Puffin footer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlobMetadata {
    /// `type`, e.g. `deletion-vector-v1`.
    pub blob_type: String,
    /// `fields`: the field ids the blob is about.
    pub fields: Vec<i64>,
    /// `snapshot-id`.
    pub snapshot_id: i64,
    /// `sequence-number`.
    pub sequence_number: i64,
    /// `offset`: where the blob starts in the file.
    pub offset: u64,
    /// `length`: the blob's bytes (for a DV, the whole frame).
    pub length: u64,
    /// `compression-codec`, if the blob is compressed.
    pub compression_codec: Option<String>,
    /// `properties` (for a DV: `referenced-data-file`, `cardinality`).
    pub properties: BTreeMap<String, String>,
}

impl BlobMetadata {
    /// The blob's byte range in the file.
    pub fn range(&self) -> Range<u64> {
        self.offset..self.offset + self.length
    }

    /// The `referenced-data-file` property: the data file a DV applies to.
    pub fn referenced_data_file(&self) -> Option<&str> {
        self.properties
            .get("referenced-data-file")
            .map(String::as_str)
    }

    /// The `cardinality` property, if present and a number.
    pub fn cardinality(&self) -> Option<u64> {
        self.properties.get("cardinality")?.parse().ok()
    }
}

/// A Puffin file read in place over any bytes (`Vec<u8>`, a memory map, a slice): the
/// magics and the footer are checked and the footer's JSON parsed when it is opened;
/// blobs are read from the bytes when asked for.
///
/// ```
/// use frozen_roaring::{PuffinFile, PuffinWriter};
/// let mut w = PuffinWriter::new();
/// w.add_deletion_vector([1u64, 3, 5], "s3://bucket/data/a.parquet")?;
/// let file = PuffinFile::from_bytes(w.finish())?;
/// let (meta, dv) = file.deletion_vectors().next().unwrap();
/// assert_eq!(meta.referenced_data_file(), Some("s3://bucket/data/a.parquet"));
/// assert_eq!(dv?.bitmap().to_vec(), [1, 3, 5]);
/// # Ok::<(), frozen_roaring::Error>(())
/// ```
pub struct PuffinFile<D> {
    data: D,
    blobs: Vec<BlobMetadata>,
    properties: BTreeMap<String, String>,
    /// Where the footer starts (its first magic).
    footer_start: usize,
}

impl<D: AsRef<[u8]>> PuffinFile<D> {
    /// Opens a Puffin file: checks the magic at the start and the footer (both magics, the
    /// payload size, the flags), decompresses the footer if its flag says LZ4, parses its
    /// JSON and checks that every blob lies between the header and the footer. Never
    /// panics, for any input.
    ///
    /// # Errors
    ///
    /// `BadMagic` for a file that is not Puffin (with a hint when it is a bare
    /// deletion-vector blob), `Truncated`, and `Malformed` naming the footer field at fault.
    pub fn from_bytes(data: D) -> Result<PuffinFile<D>, Error> {
        let bytes = data.as_ref();
        let len = bytes.len();
        if len < 4 || bytes[..4] != PUFFIN_MAGIC {
            return Err(Error::bad_magic(expect::PUFFIN, bytes, 0));
        }
        if len < 8 + FOOTER_TAIL {
            return Err(Error::truncated(
                "Puffin footer",
                0,
                (8 + FOOTER_TAIL) as u64,
                len as u64,
            ));
        }
        let footer_start = footer_start(len as u64, &bytes[len - FOOTER_TAIL..])? as usize;
        let (blobs, properties) = parse_footer_bytes(&bytes[footer_start..], footer_start)?;
        Ok(PuffinFile {
            data,
            blobs,
            properties,
            footer_start,
        })
    }

    /// The blobs the footer lists, in its order.
    pub fn blobs(&self) -> &[BlobMetadata] {
        &self.blobs
    }

    /// The file's properties (for example `created-by`).
    pub fn properties(&self) -> &BTreeMap<String, String> {
        &self.properties
    }

    /// The bytes of blob `i` (as stored: compressed if its codec says so).
    ///
    /// # Panics
    ///
    /// If `i` is not below the number of blobs.
    pub fn blob_bytes(&self, i: usize) -> &[u8] {
        let r = self.blobs[i].range();
        // In bounds: `from_bytes` checked every blob's range.
        &self.data.as_ref()[r.start as usize..r.end as usize]
    }

    /// Opens blob `i` as a deletion vector in place ([`DeletionVector::from_bytes`]) and
    /// checks it against the footer: the type, no compression, and the `cardinality`
    /// property when present. Errors give offsets from the start of the file.
    ///
    /// # Errors
    ///
    /// `Malformed` for a blob that is not an uncompressed `deletion-vector-v1` or whose
    /// cardinality differs, and the errors of [`DeletionVector::from_bytes`].
    ///
    /// # Panics
    ///
    /// If `i` is not below the number of blobs.
    pub fn deletion_vector(&self, i: usize) -> Result<DeletionVector<'_>, Error> {
        open_dv_blob(&self.blobs[i], self.blob_bytes(i))
    }

    /// Every `deletion-vector-v1` blob with its metadata, opened as
    /// [`deletion_vector`](Self::deletion_vector) does.
    pub fn deletion_vectors(
        &self,
    ) -> impl Iterator<Item = (&BlobMetadata, Result<DeletionVector<'_>, Error>)> {
        self.blobs
            .iter()
            .enumerate()
            .filter(|(_, m)| m.blob_type == DELETION_VECTOR_V1)
            .map(|(i, m)| (m, self.deletion_vector(i)))
    }

    /// The deletion vector of data file `path` (its `referenced-data-file`), if the file
    /// has one.
    pub fn deletion_vector_for(&self, path: &str) -> Option<Result<DeletionVector<'_>, Error>> {
        let i = self.blobs.iter().position(|m| {
            m.blob_type == DELETION_VECTOR_V1 && m.referenced_data_file() == Some(path)
        })?;
        Some(self.deletion_vector(i))
    }

    /// The underlying bytes.
    pub fn get_ref(&self) -> &D {
        &self.data
    }

    /// Where the footer starts (the byte after the last blob's region).
    pub fn footer_offset(&self) -> u64 {
        self.footer_start as u64
    }
}

impl<D> fmt::Debug for PuffinFile<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PuffinFile")
            .field("blobs", &self.blobs)
            .field("properties", &self.properties)
            .finish_non_exhaustive()
    }
}

/// Opens the bytes of the blob `meta` describes as a deletion vector, checked against its
/// metadata: the type, no compression, and the `cardinality` property when present.
/// Errors give offsets from the start of the file.
pub(crate) fn open_dv_blob<'a>(
    meta: &BlobMetadata,
    bytes: &'a [u8],
) -> Result<DeletionVector<'a>, Error> {
    let at = meta.offset as usize;
    if meta.blob_type != DELETION_VECTOR_V1 {
        return Err(Error::malformed(
            "Puffin blob type (not deletion-vector-v1)",
            at,
        ));
    }
    if meta.compression_codec.is_some() {
        return Err(Error::malformed(
            "Puffin blob compression-codec (deletion vectors are stored uncompressed)",
            at,
        ));
    }
    let dv = DeletionVector::from_bytes(bytes).map_err(|e| e.shifted(at))?;
    if let Some(card) = meta.properties.get("cardinality") {
        let card = card
            .parse::<u64>()
            .map_err(|_| Error::malformed("Puffin blob property cardinality (not a number)", at))?;
        dv.check_cardinality(card).map_err(|e| e.shifted(at))?;
    }
    Ok(dv)
}

/// Where the footer of a Puffin file of `len` bytes starts, from its last 12 bytes (payload
/// size, flags, magic); checks the magic and that the footer leaves room for the leading
/// one.
pub(crate) fn footer_start(len: u64, last: &[u8]) -> Result<u64, Error> {
    let at = |back: u64| usize::try_from(len - back).unwrap_or(usize::MAX);
    if last[8..] != PUFFIN_MAGIC {
        return Err(Error::bad_magic(expect::PUFFIN, &last[8..], at(4)));
    }
    let size = i32::from_le_bytes([last[0], last[1], last[2], last[3]]);
    let payload_end = len - FOOTER_TAIL as u64;
    u64::try_from(size)
        .ok()
        .and_then(|s| payload_end.checked_sub(s + 4))
        .filter(|&s| s >= 4)
        .ok_or_else(|| {
            Error::malformed("Puffin footer payload size (larger than the file)", at(12))
                .values(payload_end.saturating_sub(8), i64::from(size) as u64)
        })
}

/// The blobs and properties of the footer `footer` (its bytes from its magic to the end of
/// the file, at `footer_start`): magic, flags, payload (LZ4-decompressed if flagged), JSON.
pub(crate) fn parse_footer_bytes(
    footer: &[u8],
    footer_start: usize,
) -> Result<(Vec<BlobMetadata>, BTreeMap<String, String>), Error> {
    let end = footer_start + footer.len();
    if footer.len() < 4 + FOOTER_TAIL || footer[..4] != PUFFIN_MAGIC {
        return Err(Error::bad_magic(expect::PUFFIN, footer, footer_start));
    }
    let tail = &footer[footer.len() - FOOTER_TAIL..];
    let flags = [tail[4], tail[5], tail[6], tail[7]];
    if flags[0] & !FLAG_COMPRESSED != 0 || flags[1..] != [0, 0, 0] {
        return Err(Error::malformed(
            "Puffin footer flags (unknown flags are set)",
            end - 8,
        ));
    }
    let payload = &footer[4..footer.len() - FOOTER_TAIL];
    let json: serde_json::Value = if flags[0] & FLAG_COMPRESSED != 0 {
        let mut text = Vec::new();
        let decoder = lz4_flex::frame::FrameDecoder::new(payload);
        std::io::Read::read_to_end(
            &mut std::io::Read::take(decoder, FOOTER_JSON_LIMIT + 1),
            &mut text,
        )
        .map_err(|_| Error::malformed("Puffin footer (not a valid LZ4 frame)", footer_start + 4))?;
        if text.len() as u64 > FOOTER_JSON_LIMIT {
            return Err(Error::malformed(
                "Puffin footer (decompresses to more than 64 MiB of JSON)",
                footer_start + 4,
            ));
        }
        serde_json::from_slice(&text)
    } else {
        serde_json::from_slice(payload)
    }
    .map_err(|_| Error::malformed("Puffin footer (not valid JSON)", footer_start + 4))?;
    parse_footer(&json, footer_start)
}

/// The blobs and properties of a footer's JSON; each blob must lie in `4..footer_start`.
#[allow(clippy::type_complexity)]
fn parse_footer(
    json: &serde_json::Value,
    footer_start: usize,
) -> Result<(Vec<BlobMetadata>, BTreeMap<String, String>), Error> {
    let at = footer_start + 4;
    let bad = |field: &'static str| Error::malformed(field, at);
    let blobs = json
        .get("blobs")
        .and_then(|b| b.as_array())
        .ok_or_else(|| bad("Puffin footer blobs (missing or not a list)"))?;
    let mut out = Vec::with_capacity(blobs.len().min(footer_start / 16 + 1));
    for b in blobs {
        let int = |name: &str| b.get(name).and_then(serde_json::Value::as_i64);
        let blob_type = b
            .get("type")
            .and_then(|t| t.as_str())
            .ok_or_else(|| bad("Puffin blob type (missing or not a string)"))?
            .to_owned();
        let fields = match b.get("fields") {
            Some(f) => f
                .as_array()
                .and_then(|f| f.iter().map(serde_json::Value::as_i64).collect())
                .ok_or_else(|| bad("Puffin blob fields (not a list of integers)"))?,
            None => return Err(bad("Puffin blob fields (missing)")),
        };
        let offset = b
            .get("offset")
            .and_then(serde_json::Value::as_u64)
            .ok_or_else(|| bad("Puffin blob offset (missing or negative)"))?;
        let length = b
            .get("length")
            .and_then(serde_json::Value::as_u64)
            .ok_or_else(|| bad("Puffin blob length (missing or negative)"))?;
        if offset < 4
            || offset
                .checked_add(length)
                .is_none_or(|e| e > footer_start as u64)
        {
            return Err(Error::new(
                ErrorKind::Malformed,
                "Puffin blob range (outside the blob area)",
                at,
            )
            .values(footer_start as u64, offset.saturating_add(length)));
        }
        out.push(BlobMetadata {
            blob_type,
            fields,
            snapshot_id: int("snapshot-id").ok_or_else(|| bad("Puffin blob snapshot-id"))?,
            sequence_number: int("sequence-number")
                .ok_or_else(|| bad("Puffin blob sequence-number"))?,
            offset,
            length,
            compression_codec: match b.get("compression-codec") {
                None | Some(serde_json::Value::Null) => None,
                Some(c) => Some(
                    c.as_str()
                        .ok_or_else(|| bad("Puffin blob compression-codec (not a string)"))?
                        .to_owned(),
                ),
            },
            properties: string_map(b.get("properties"))
                .ok_or_else(|| bad("Puffin blob properties (not a map of strings)"))?,
        });
    }
    let properties = string_map(json.get("properties"))
        .ok_or_else(|| bad("Puffin footer properties (not a map of strings)"))?;
    Ok((out, properties))
}

/// A JSON object of strings as a map (absent: empty).
fn string_map(v: Option<&serde_json::Value>) -> Option<BTreeMap<String, String>> {
    match v {
        None | Some(serde_json::Value::Null) => Some(BTreeMap::new()),
        Some(v) => v
            .as_object()?
            .iter()
            .map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
            .collect(),
    }
}

/// Writes a Puffin file: blobs first, then the footer, as Iceberg's `PuffinWriter` lays it
/// out (uncompressed footer, keys in its order). Deletion vectors are written with
/// [`Writer::write_deletion_vector`](crate::Writer::write_deletion_vector), with the
/// metadata Iceberg gives them (`fields` `[2147483645]`, `snapshot-id` and
/// `sequence-number` -1, `referenced-data-file` and `cardinality`).
#[derive(Debug)]
pub struct PuffinWriter {
    out: Vec<u8>,
    blobs: Vec<BlobMetadata>,
    properties: BTreeMap<String, String>,
    writer: crate::Writer,
}

impl Default for PuffinWriter {
    fn default() -> Self {
        PuffinWriter::new()
    }
}

impl PuffinWriter {
    /// A writer with the header written.
    pub fn new() -> PuffinWriter {
        PuffinWriter {
            out: PUFFIN_MAGIC.to_vec(),
            blobs: Vec::new(),
            properties: BTreeMap::new(),
            writer: crate::Writer::new(),
        }
    }

    /// Sets a file property (for example `created-by`).
    pub fn set_property(&mut self, key: &str, value: &str) -> &mut Self {
        self.properties.insert(key.to_owned(), value.to_owned());
        self
    }

    /// Appends the deletion vector of strictly ascending `positions` for the data file
    /// `referenced_data_file`; returns its blob's metadata.
    ///
    /// # Errors
    ///
    /// `NotAscending` or `Malformed` as [`Writer::write_deletion_vector`](crate::Writer::write_deletion_vector)
    /// says; nothing is appended then.
    pub fn add_deletion_vector(
        &mut self,
        positions: impl IntoIterator<Item = u64>,
        referenced_data_file: &str,
    ) -> Result<&BlobMetadata, Error> {
        let r = self
            .writer
            .write_deletion_vector(positions, &mut self.out)?;
        let card = DeletionVector::from_bytes(&self.out[r.clone()])?.len();
        let mut properties = BTreeMap::new();
        properties.insert(
            "referenced-data-file".to_owned(),
            referenced_data_file.to_owned(),
        );
        properties.insert("cardinality".to_owned(), card.to_string());
        self.blobs.push(BlobMetadata {
            blob_type: DELETION_VECTOR_V1.to_owned(),
            fields: alloc::vec![ROW_POSITION_FIELD],
            snapshot_id: -1,
            sequence_number: -1,
            offset: r.start as u64,
            length: r.len() as u64,
            compression_codec: None,
            properties,
        });
        Ok(self.blobs.last().expect("just pushed"))
    }

    /// Appends a blob of any type, stored as given (`compression_codec` names how the
    /// caller compressed it, if it did).
    pub fn add_blob(
        &mut self,
        blob_type: &str,
        fields: Vec<i64>,
        bytes: &[u8],
        compression_codec: Option<&str>,
        properties: BTreeMap<String, String>,
    ) -> &BlobMetadata {
        let offset = self.out.len() as u64;
        self.out.extend_from_slice(bytes);
        self.blobs.push(BlobMetadata {
            blob_type: blob_type.to_owned(),
            fields,
            snapshot_id: -1,
            sequence_number: -1,
            offset,
            length: bytes.len() as u64,
            compression_codec: compression_codec.map(str::to_owned),
            properties,
        });
        self.blobs.last().expect("just pushed")
    }

    /// Writes the footer and returns the file's bytes.
    pub fn finish(mut self) -> Vec<u8> {
        let mut json = String::from("{\"blobs\":[");
        for (i, b) in self.blobs.iter().enumerate() {
            if i > 0 {
                json.push(',');
            }
            json.push_str("{\"type\":");
            json.push_str(&quote(&b.blob_type));
            json.push_str(",\"fields\":[");
            for (j, f) in b.fields.iter().enumerate() {
                if j > 0 {
                    json.push(',');
                }
                json.push_str(&f.to_string());
            }
            json.push_str(&alloc::format!(
                "],\"snapshot-id\":{},\"sequence-number\":{},\"offset\":{},\"length\":{}",
                b.snapshot_id,
                b.sequence_number,
                b.offset,
                b.length
            ));
            if let Some(c) = &b.compression_codec {
                json.push_str(",\"compression-codec\":");
                json.push_str(&quote(c));
            }
            if !b.properties.is_empty() {
                json.push_str(",\"properties\":");
                push_map(&mut json, &b.properties, b.blob_type == DELETION_VECTOR_V1);
            }
            json.push('}');
        }
        json.push(']');
        if !self.properties.is_empty() {
            json.push_str(",\"properties\":");
            push_map(&mut json, &self.properties, false);
        }
        json.push('}');
        self.out.extend_from_slice(&PUFFIN_MAGIC);
        self.out.extend_from_slice(json.as_bytes());
        self.out
            .extend_from_slice(&(json.len() as i32).to_le_bytes());
        self.out.extend_from_slice(&[0; 4]);
        self.out.extend_from_slice(&PUFFIN_MAGIC);
        self.out
    }
}

/// A JSON string literal.
fn quote(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}

/// A JSON object of strings; for a DV's properties, `referenced-data-file` first, as
/// Iceberg writes them.
fn push_map(json: &mut String, map: &BTreeMap<String, String>, dv: bool) {
    let first = dv.then_some("referenced-data-file");
    let ordered = first
        .and_then(|k| map.get_key_value(k))
        .into_iter()
        .chain(map.iter().filter(|(k, _)| Some(k.as_str()) != first));
    json.push('{');
    for (i, (k, v)) in ordered.enumerate() {
        if i > 0 {
            json.push(',');
        }
        json.push_str(&quote(k));
        json.push(':');
        json.push_str(&quote(v));
    }
    json.push('}');
}
