//! Deletion vectors in the tool: `inspect` on a DV file (a Delta DV file, with `--offset`
//! for a frame after the first, or a bare Iceberg blob), a Puffin file or a Delta table
//! folder; `dv-mask` for a DV's deleted positions or kept row ranges in a range.

use std::fs;
use std::io::{self, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use frozen_roaring::{
    DV_MAGIC, DV_NATIVE_MAGIC, DeletionVector, DeletionVectorDescriptor, PuffinFile, StorageType,
};

use crate::inspect::{describe64, min_max};
use crate::{DvMaskArgs, Fail, Result, fail, num, stdout_error};

/// What `inspect` should do with `path`, if it is a deletion-vector input: `Some` when it
/// handled it.
pub(crate) fn inspect(path: &Path, offset: Option<u64>) -> Result<Option<()>> {
    if path.join("_delta_log").is_dir() {
        return delta_table(path).map(Some);
    }
    if path.is_dir() {
        return Ok(None);
    }
    // The first bytes tell a DV or Puffin file; anything else (or an unreadable path) is
    // left to the bitmap readers and their messages.
    let mut head = [0u8; 9];
    let n = match fs::File::open(path).and_then(|mut f| read_head(&mut f, &mut head)) {
        Ok(n) => n,
        Err(_) => return Ok(None),
    };
    let head = &head[..n];
    if !(head.starts_with(b"PFA1") || offset.is_some() || frame_at(head).is_some()) {
        return Ok(None);
    }
    let bytes =
        fs::read(path).map_err(|e| Fail::Msg(format!("cannot read {}: {e}", path.display())))?;
    if bytes.starts_with(b"PFA1") {
        return puffin(path, &bytes).map(Some);
    }
    let at = offset.or_else(|| frame_at(&bytes)).unwrap_or(0);
    dv_file(path, &bytes, at).map(Some)
}

/// Reads up to `head.len()` bytes; how many there were.
pub(crate) fn read_head(f: &mut fs::File, head: &mut [u8]) -> io::Result<usize> {
    use std::io::Read;
    let mut n = 0;
    while n < head.len() {
        match f.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Where a DV frame starts in a file that holds one at its start: 0 for a bare blob, 1 for
/// a Delta DV file (after its version byte).
fn frame_at(bytes: &[u8]) -> Option<u64> {
    let magic_at = |at: usize| {
        bytes
            .get(at + 4..at + 8)
            .is_some_and(|m| m == DV_MAGIC || m == DV_NATIVE_MAGIC)
    };
    [0u64, 1].into_iter().find(|&at| magic_at(at as usize))
}

/// Opens the frame at `at` of a DV file (its length from the frame's own length field).
fn open_at<'a>(path: &Path, bytes: &'a [u8], at: u64) -> Result<DeletionVector<'a>> {
    let size = usize::try_from(at)
        .ok()
        .and_then(|a| bytes.get(a..a.checked_add(4)?))
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    let Some(size) = size else {
        return fail(format!(
            "{}: no deletion vector at offset {at}: the file has {} bytes",
            path.display(),
            bytes.len()
        ));
    };
    DeletionVector::from_delta_file(bytes, at, size).map_err(|e| {
        Fail::Msg(format!(
            "{}: deletion vector at offset {at}: {e}",
            path.display()
        ))
    })
}

fn dv_file(path: &Path, bytes: &[u8], at: u64) -> Result<()> {
    let dv = open_at(path, bytes, at)?;
    say!(
        "deletion vector {} at offset {at}: {} bytes (sizeInBytes {}), {} layout, CRC-32 {}",
        path.display(),
        num(dv.as_bytes().len() as u64),
        num(dv.as_bytes().len() as u64 - 8),
        if dv.is_native() {
            "Delta native"
        } else {
            "portable"
        },
        match dv.verify() {
            Ok(()) => "ok".to_string(),
            Err(e) => format!("MISMATCH ({e})"),
        }
    );
    describe64(path, &dv.bitmap())?;
    let next = at + dv.as_bytes().len() as u64;
    if (next as usize) < bytes.len() {
        say!("next frame: offset {next} (inspect it with --offset {next})");
    }
    dv.validate_payloads()
        .map_err(|e| Fail::Msg(format!("{}: {e}", path.display())))
}

fn puffin(path: &Path, bytes: &[u8]) -> Result<()> {
    let p =
        PuffinFile::from_bytes(bytes).map_err(|e| Fail::Msg(format!("{}: {e}", path.display())))?;
    say!(
        "Puffin file {}: {} bytes, {} blobs{}",
        path.display(),
        num(bytes.len() as u64),
        p.blobs().len(),
        p.properties()
            .get("created-by")
            .map(|c| format!(", created by {c:?}"))
            .unwrap_or_default()
    );
    let mut bad = 0;
    for (i, meta) in p.blobs().iter().enumerate() {
        let mut line = format!(
            "blob {i}: {} at {}..{}",
            meta.blob_type,
            meta.offset,
            meta.offset + meta.length
        );
        if let Some(f) = meta.referenced_data_file() {
            line.push_str(&format!(", data file {f}"));
        }
        if meta.blob_type == "deletion-vector-v1" {
            match p.deletion_vector(i).and_then(|dv| dv.verify().map(|()| dv)) {
                Ok(dv) => line.push_str(&format!(
                    ", {} deleted rows ({}), CRC-32 ok",
                    num(dv.len()),
                    min_max(dv.bitmap().min(), dv.bitmap().max())
                )),
                Err(e) => {
                    bad += 1;
                    line.push_str(&format!(", INVALID: {e}"));
                }
            }
        } else if let Some(c) = &meta.compression_codec {
            line.push_str(&format!(", {c}-compressed"));
        }
        say!("{line}");
    }
    if bad > 0 {
        return fail(format!(
            "{}: {bad} deletion vectors failed their checks",
            path.display()
        ));
    }
    Ok(())
}

/// Lists every data file of a Delta table's log that has a DV, with its checks.
fn delta_table(table: &Path) -> Result<()> {
    let log = table.join("_delta_log");
    let mut commits: Vec<PathBuf> = fs::read_dir(&log)
        .map_err(|e| Fail::Msg(format!("cannot read {}: {e}", log.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    commits.sort();
    say!("Delta table {}: {} commits", table.display(), commits.len());
    let (mut n, mut bad) = (0u64, 0u64);
    for commit in &commits {
        let text = fs::read_to_string(commit)
            .map_err(|e| Fail::Msg(format!("cannot read {}: {e}", commit.display())))?;
        for (line_no, line) in text.lines().enumerate() {
            let Ok(action) = serde_json::from_str::<serde_json::Value>(line) else {
                return fail(format!(
                    "{}: line {}: not JSON",
                    commit.display(),
                    line_no + 1
                ));
            };
            let Some((kind, add)) = ["add", "remove"]
                .into_iter()
                .find_map(|k| action.get(k).map(|a| (k, a)))
            else {
                continue;
            };
            let Some(d) = add.get("deletionVector").filter(|d| !d.is_null()) else {
                continue;
            };
            n += 1;
            let data = add.get("path").and_then(|p| p.as_str()).unwrap_or("?");
            let name = commit
                .file_name()
                .map(|f| f.to_string_lossy().to_string())
                .unwrap_or_default();
            let verdict = check_descriptor(table, d);
            if verdict.starts_with("INVALID") {
                bad += 1;
            }
            say!("{name} {kind} {data}: {verdict}");
        }
    }
    say!("{n} deletion vectors, {bad} invalid");
    if bad > 0 {
        return fail(format!(
            "{}: {bad} deletion vectors failed their checks",
            table.display()
        ));
    }
    Ok(())
}

/// Opens and checks the DV a log's descriptor names; a one-line verdict.
fn check_descriptor(table: &Path, d: &serde_json::Value) -> String {
    let d = match DeletionVectorDescriptor::from_json(d) {
        Ok(d) => d,
        Err(e) => return format!("INVALID descriptor: {e}"),
    };
    let card = |dv: &DeletionVector<'_>| {
        format!(
            "{} deleted rows ({})",
            num(dv.len()),
            min_max(dv.bitmap().min(), dv.bitmap().max())
        )
    };
    if d.storage_type == StorageType::Inline {
        return match d.decode_inline().and_then(|b| {
            let dv = DeletionVector::from_inline(&b)?;
            dv.check_cardinality(d.cardinality)?;
            Ok(card(&dv))
        }) {
            Ok(s) => format!("inline DV, {s}"),
            Err(e) => format!("INVALID inline DV: {e}"),
        };
    }
    let rel = match d.relative_path() {
        Ok(Some(r)) => r,
        Ok(None) => return "INVALID: no path".into(),
        Err(e) => return format!("INVALID: {e}"),
    };
    let file = if d.storage_type == StorageType::Absolute {
        PathBuf::from(rel.trim_start_matches("file://"))
    } else {
        table.join(&rel)
    };
    // Files written with a name prefix (Delta Spark's test setting) are found by the
    // `deletion_vector_<uuid>.bin` the descriptor names.
    let file = if file.is_file() {
        file
    } else {
        match find_suffix(table, &rel) {
            Some(f) => f,
            None => return format!("INVALID: cannot read {}: no such file", file.display()),
        }
    };
    let bytes = match fs::read(&file) {
        Ok(b) => b,
        Err(e) => return format!("INVALID: cannot read {}: {e}", file.display()),
    };
    match d.open(&bytes).and_then(|dv| dv.verify().map(|()| dv)) {
        Ok(dv) => format!(
            "{rel} @ {} ({} bytes), {}, CRC-32 ok",
            d.offset.unwrap_or(0),
            d.size_in_bytes,
            card(&dv)
        ),
        Err(e) => format!("INVALID {rel} @ {}: {e}", d.offset.unwrap_or(0)),
    }
}

/// A file under `dir` whose name ends with the file name of `rel` (percent-decoded, as
/// absolute `p` paths are URIs).
fn find_suffix(dir: &Path, rel: &str) -> Option<PathBuf> {
    let name = percent_decode(rel.rsplit('/').next()?);
    let name = name.as_str();
    let entries = fs::read_dir(dir).ok()?;
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if let Some(f) = find_suffix(&p, rel) {
                return Some(f);
            }
        } else if p
            .file_name()
            .is_some_and(|n| n.to_string_lossy().ends_with(name))
        {
            return Some(p);
        }
    }
    None
}

/// `%XX` escapes decoded (others kept as they are).
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = b
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b[i], hex) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `dv-mask`: a DV's deleted positions (or with --live the kept ranges) in a range.
pub(crate) fn dv_mask(a: DvMaskArgs) -> Result<()> {
    let bytes = fs::read(&a.file)
        .map_err(|e| Fail::Msg(format!("cannot read {}: {e}", a.file.display())))?;
    let range = parse_range(&a.range)?;
    let puffin;
    let dv = if bytes.starts_with(b"PFA1") {
        puffin = PuffinFile::from_bytes(&bytes[..])
            .map_err(|e| Fail::Msg(format!("{}: {e}", a.file.display())))?;
        let i = a.blob.unwrap_or(0);
        if i >= puffin.blobs().len() {
            return fail(format!(
                "{}: no blob {i} (the file has {})",
                a.file.display(),
                puffin.blobs().len()
            ));
        }
        puffin
            .deletion_vector(i)
            .map_err(|e| Fail::Msg(format!("{}: blob {i}: {e}", a.file.display())))?
    } else {
        let at = match a.offset.or_else(|| frame_at(&bytes)) {
            Some(at) => at,
            None => {
                return fail(format!(
                    "{}: not a deletion-vector file or Puffin file (give --offset for a frame inside a file)",
                    a.file.display()
                ));
            }
        };
        open_at(&a.file, &bytes, at)?
    };
    dv.verify()
        .map_err(|e| Fail::Msg(format!("{}: {e}", a.file.display())))?;
    let bm = dv.bitmap();
    let mut out = io::BufWriter::new(io::stdout().lock());
    if a.live {
        for r in bm.live_ranges(range) {
            writeln!(out, "{}..{}", r.start, r.end).map_err(stdout_error)?;
        }
    } else {
        let mut it = bm.iter();
        it.advance_to(range.start);
        for p in it.take_while(|&p| p < range.end) {
            writeln!(out, "{p}").map_err(stdout_error)?;
        }
    }
    out.flush().map_err(stdout_error)
}

/// `START..END` (END exclusive).
fn parse_range(s: &str) -> Result<Range<u64>> {
    let parsed = s
        .split_once("..")
        .and_then(|(a, b)| Some(a.trim().parse::<u64>().ok()?..b.trim().parse::<u64>().ok()?));
    match parsed {
        Some(r) if r.start <= r.end => Ok(r),
        _ => crate::usage(format!(
            "--range {s:?}: expected START..END with START <= END"
        )),
    }
}
