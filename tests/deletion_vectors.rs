//! Deletion vectors against the real corpus in `../shared/dv` (or `$FROZEN_ROARING_DV`):
//! every DV the corpus README lists opens strictly and gives its cardinality, min, max and
//! positions hash; every Delta log descriptor locates and checks its DV; written DVs are
//! byte-identical to the corpus frames; the damaged file is refused. Skips with a notice
//! when the corpus is absent. Constructed cases the corpus lacks follow.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use frozen_roaring::{
    DeletionVector, DeletionVectorDescriptor, ErrorKind, FrozenBitmap64, PuffinFile, PuffinWriter,
    StorageType, Writer,
};
use sha2::{Digest, Sha256};

fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("FROZEN_ROARING_DV")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/dv"));
    if dir.join("README.md").is_file() {
        Some(dir)
    } else {
        println!(
            "NOTE: deletion-vector corpus not found at {} (set FROZEN_ROARING_DV); corpus checks skipped",
            dir.display()
        );
        None
    }
}

/// The first 16 hex digits of SHA-256 over the positions as u64 little-endian.
fn positions_hash(bm: &FrozenBitmap64<'_>) -> String {
    let mut h = Sha256::new();
    for p in bm.iter() {
        h.update(p.to_le_bytes());
    }
    h.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// One row of the README's expected values.
#[derive(Debug)]
struct Row {
    folder: String,
    file: String,
    offset: Option<u64>,
    bytes: u64,
    card: u64,
    min: Option<u64>,
    max: Option<u64>,
    hash: String,
    note: String,
}

fn rows(dir: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let mut folder = String::new();
    let mut out = Vec::new();
    for line in text.lines() {
        if let Some(f) = line.strip_prefix("#### `dv/") {
            folder = f.trim_end_matches('`').to_string();
            continue;
        }
        if folder.is_empty() || !line.starts_with("| ") || line.starts_with("| file") {
            continue;
        }
        let c: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        if c.len() < 9 {
            continue;
        }
        let num = |s: &str| s.trim_end_matches(" ✓").parse::<u64>().ok();
        out.push(Row {
            folder: folder.clone(),
            file: c[0].to_string(),
            offset: num(c[1]),
            bytes: num(c[2]).unwrap(),
            card: num(c[3]).unwrap(),
            min: num(c[4]),
            max: num(c[5]),
            hash: c[6].trim_matches('`').to_string(),
            note: c[8].to_string(),
        });
    }
    out
}

/// Opens a row's DV and checks it; returns the frame's bytes and the positions.
fn check_row(dir: &Path, row: &Row, inline_text: Option<&str>) -> Option<(Vec<u8>, Vec<u64>)> {
    let ctx = format!("{}/{} @ {:?}", row.folder, row.file, row.offset);
    let (frame, dv_bytes): (Vec<u8>, Vec<u8>);
    let dv = if let Some(text) = inline_text {
        let d = DeletionVectorDescriptor {
            storage_type: StorageType::Inline,
            path_or_inline_dv: text.to_string(),
            offset: None,
            size_in_bytes: row.bytes as u32,
            cardinality: row.card,
        };
        match d.decode_inline() {
            Ok(b) => dv_bytes = b,
            Err(e) => {
                assert!(row.note.contains("z85-crate"), "{ctx}: {e}");
                assert_eq!(e.kind(), ErrorKind::Malformed, "{ctx}");
                assert!(e.to_string().contains("Z85 group"), "{ctx}: {e}");
                return None;
            }
        }
        frame = Vec::new();
        DeletionVector::from_inline(&dv_bytes).unwrap()
    } else {
        let file = std::fs::read(dir.join(&row.folder).join(&row.file)).unwrap();
        let off = row.offset.unwrap();
        frame = if row.folder.starts_with("delta") {
            let r = off as usize..(off + row.bytes + 8) as usize;
            let dv = DeletionVector::from_delta_file(&file, off, row.bytes as u32)
                .unwrap_or_else(|e| panic!("{ctx}: {e}"));
            assert_eq!(dv.as_bytes(), &file[r.clone()], "{ctx}");
            file[r].to_vec()
        } else {
            file[off as usize..(off + row.bytes) as usize].to_vec()
        };
        let dv = DeletionVector::from_bytes_strict(&frame).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        dv_bytes = Vec::new();
        let _ = &dv_bytes;
        let positions: Vec<u64> = dv.bitmap().iter().collect();
        check_dv(&ctx, row, &dv);
        return Some((frame, positions));
    };
    check_dv(&ctx, row, &dv);
    Some((frame, dv.bitmap().iter().collect()))
}

fn check_dv(ctx: &str, row: &Row, dv: &DeletionVector<'_>) {
    let bm = dv.bitmap();
    assert_eq!(dv.len(), row.card, "{ctx}: cardinality");
    assert_eq!(bm.min(), row.min, "{ctx}: min");
    assert_eq!(bm.max(), row.max, "{ctx}: max");
    assert_eq!(positions_hash(&bm), row.hash, "{ctx}: positions hash");
    dv.check_cardinality(row.card).unwrap();
    assert!(dv.check_cardinality(row.card + 1).is_err());
}

#[test]
fn every_corpus_dv_opens_and_matches_its_expected_values() {
    let Some(dir) = corpus() else { return };
    let rows = rows(&dir);
    assert!(
        rows.len() >= 130,
        "the README lists the corpus: {} rows",
        rows.len()
    );
    let (mut checked, mut identical, mut refused_inline) = (0, 0, 0);
    let mut writer = Writer::new();
    for row in &rows {
        let inline = row
            .file
            .strip_prefix("inline `")
            .map(|s| s.trim_end_matches('`'));
        let Some((frame, positions)) = check_row(&dir, row, inline) else {
            refused_inline += 1;
            continue;
        };
        checked += 1;
        if inline.is_none() {
            let mut out = Vec::new();
            let r = writer
                .write_deletion_vector(positions.iter().copied(), &mut out)
                .unwrap();
            assert_eq!(
                out[r],
                frame[..],
                "{}/{}: written bytes",
                row.folder,
                row.file
            );
            identical += 1;
        }
    }
    println!(
        "{checked} corpus DVs checked, {identical} rewritten byte-identical, {refused_inline} non-standard Z85 refused"
    );
    assert_eq!(checked + refused_inline, rows.len());
    assert_eq!(
        refused_inline, 1,
        "only the z85-crate padded inline DV is refused"
    );
}

/// Every `deletionVector` in the Delta logs: located from its descriptor (file name from
/// the UUID, frame at `offset`), cardinality checked.
#[test]
fn every_delta_log_descriptor_locates_its_dv() {
    let Some(dir) = corpus() else { return };
    let mut logs = Vec::new();
    for top in ["delta", "delta-rs", "delta-kernel-rs"] {
        find_logs(&dir.join(top), &mut logs);
    }
    let mut opened = 0;
    for (table, json) in logs {
        for line in std::fs::read_to_string(&json).unwrap().lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            for action in ["add", "remove"] {
                let Some(d) = v.get(action).and_then(|a| a.get("deletionVector")) else {
                    continue;
                };
                let d = DeletionVectorDescriptor::from_json(d).unwrap();
                let ctx = format!("{}: {:?}", json.display(), d);
                let dv_len = match d.storage_type {
                    StorageType::Inline => match d.decode_inline() {
                        Ok(b) => {
                            let dv = DeletionVector::from_inline(&b).unwrap();
                            dv.check_cardinality(d.cardinality).unwrap();
                            dv.len()
                        }
                        Err(e) => {
                            assert!(e.to_string().contains("Z85 group"), "{ctx}: {e}");
                            continue;
                        }
                    },
                    _ => {
                        let path = locate(&table, &d).unwrap_or_else(|| panic!("{ctx}: no file"));
                        let file = std::fs::read(&path).unwrap();
                        let dv = d.open(&file).unwrap_or_else(|e| panic!("{ctx}: {e}"));
                        dv.verify().unwrap();
                        dv.len()
                    }
                };
                assert_eq!(dv_len, d.cardinality, "{ctx}");
                opened += 1;
            }
        }
    }
    println!("{opened} log descriptors located and checked");
    assert!(opened >= 100, "{opened}");
}

fn find_logs(dir: &Path, out: &mut Vec<(PathBuf, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.file_name().is_some_and(|n| n == "_delta_log") {
            for j in std::fs::read_dir(&p).unwrap().flatten() {
                if j.path().extension().is_some_and(|x| x == "json") {
                    out.push((dir.to_path_buf(), j.path()));
                }
            }
        } else if p.is_dir() {
            find_logs(&p, out);
        }
    }
}

/// The DV file of a descriptor under `table`: the path the protocol derives, else (test
/// tables written with a file-name prefix, or a `p` URI with a placeholder) the file whose
/// name ends with the same `deletion_vector_<uuid>.bin`.
fn locate(table: &Path, d: &DeletionVectorDescriptor) -> Option<PathBuf> {
    let rel = d.relative_path().unwrap()?;
    let direct = table.join(&rel);
    if direct.is_file() {
        return Some(direct);
    }
    let name = rel.rsplit('/').next()?.replace("%25", "%");
    let suffix = name.rsplit("deletion_vector_").next()?.to_string();
    let mut found = None;
    walk(table, &mut |p| {
        if p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with(&format!("deletion_vector_{suffix}")))
        {
            found = Some(p.to_path_buf());
        }
    });
    found
}

fn walk(dir: &Path, f: &mut dyn FnMut(&Path)) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, f);
        } else {
            f(&p);
        }
    }
}

#[test]
fn puffin_files_of_the_corpus_open_and_list_their_dvs() {
    let Some(dir) = corpus() else { return };
    let declared: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("declared-positions.json")).unwrap(),
    )
    .unwrap();
    for (file, blobs) in [
        (
            "iceberg-go/table/dv/testdata/deletes/single-blob-dv.puffin",
            1,
        ),
        (
            "iceberg-go/table/dv/testdata/deletes/multi-blob-dv.puffin",
            2,
        ),
        ("iceberg-go/puffin/testdata/deletion-vector-v1.puffin", 1),
        (
            "duckdb-iceberg/multi_blob_deletion_vectors/data/multiple-deletion-vectors.puffin",
            2,
        ),
        ("iceberg/puffin/v1/empty-puffin-uncompressed.bin", 0),
        ("iceberg/puffin/v1/sample-metric-data-uncompressed.bin", 0),
        (
            "iceberg/puffin/v1/sample-metric-data-compressed-zstd.bin",
            0,
        ),
    ] {
        let p = PuffinFile::from_bytes(std::fs::read(dir.join(file)).unwrap())
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        let dvs: Vec<_> = p.deletion_vectors().collect();
        assert_eq!(dvs.len(), blobs, "{file}");
        for (i, (meta, dv)) in dvs.into_iter().enumerate() {
            let dv = dv.unwrap_or_else(|e| panic!("{file} blob {i}: {e}"));
            dv.verify().unwrap();
            assert_eq!(Some(dv.len()), meta.cardinality(), "{file}");
            let data_file = meta.referenced_data_file().unwrap();
            assert_eq!(
                p.deletion_vector_for(data_file).unwrap().unwrap().len(),
                dv.len()
            );
            if let Some(want) = declared_set(&declared, file, Some(i)) {
                assert_eq!(
                    dv.bitmap().iter().collect::<BTreeSet<_>>(),
                    want,
                    "{file} blob {i}"
                );
            }
        }
        if blobs == 0 && !p.blobs().is_empty() {
            assert!(p.deletion_vector(0).is_err(), "{file}: not a DV blob");
        }
    }
    // A bare blob named .puffin is not a Puffin file, and the error says what it is.
    let bare = "duckdb-iceberg/legacy_bare_deletion_vector/data/legacy-bare-deletion-vector.puffin";
    let bytes = std::fs::read(dir.join(bare)).unwrap();
    let e = PuffinFile::from_bytes(&bytes).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadMagic);
    assert!(e.to_string().contains("DeletionVector::from_bytes"), "{e}");
    let dv = DeletionVector::from_bytes_strict(&bytes).unwrap();
    assert_eq!(
        dv.bitmap().iter().collect::<BTreeSet<_>>(),
        declared_set(&declared, bare, None).unwrap()
    );
}

/// The set `declared-positions.json` states for `file` (blob `blob` of a Puffin file).
fn declared_set(v: &serde_json::Value, file: &str, blob: Option<usize>) -> Option<BTreeSet<u64>> {
    let mut e = v.get(file)?;
    if let (Some(i), Some(obj)) = (blob, e.as_object()) {
        e = obj.get(&i.to_string())?;
    }
    let mut set = BTreeSet::new();
    for item in e.as_array()? {
        match item {
            serde_json::Value::Array(r) => {
                set.extend(r[0].as_u64()?..=r[1].as_u64()?);
            }
            n => {
                set.insert(n.as_u64()?);
            }
        }
    }
    Some(set)
}

#[test]
fn bare_iceberg_blobs_match_their_declared_sets_and_the_damaged_file_is_refused() {
    let Some(dir) = corpus() else { return };
    let declared: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("declared-positions.json")).unwrap(),
    )
    .unwrap();
    let deletes = dir.join("iceberg/deletes");
    let mut n = 0;
    for e in std::fs::read_dir(&deletes).unwrap().flatten() {
        let name = e.file_name().into_string().unwrap();
        let key = format!("iceberg/deletes/{name}");
        let bytes = std::fs::read(e.path()).unwrap();
        if declared.get(&key).and_then(|v| v.as_str()) == Some("error") {
            let err = DeletionVector::from_bytes(&bytes).unwrap_err();
            println!("{key} refused: {err}");
            assert!(DeletionVector::from_bytes_strict(&bytes).is_err());
            n += 1;
            continue;
        }
        let dv = DeletionVector::from_bytes_strict(&bytes).unwrap_or_else(|e| panic!("{key}: {e}"));
        if let Some(want) = declared_set(&declared, &key, None) {
            assert_eq!(dv.bitmap().iter().collect::<BTreeSet<_>>(), want, "{key}");
            n += 1;
        }
    }
    assert!(n >= 5, "{n}");
}

/// A DV frame around `body` (magic + bitmap).
fn frame_of(body: &[u8]) -> Vec<u8> {
    let mut f = (body.len() as u32).to_be_bytes().to_vec();
    f.extend_from_slice(body);
    f.extend_from_slice(&crc32(body).to_be_bytes());
    f
}

/// zlib's CRC-32, bit by bit: an independent check of the frames' checksums.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// Positions with every container kind, several buckets and positions ≥ 2^32: written,
/// opened strictly, compared with the model and with roaring-rs's reading of the bitmap.
#[test]
fn constructed_dvs_with_bitsets_runs_and_high_buckets_round_trip() {
    let mut positions: BTreeSet<u64> = (0..10_000u64).map(|i| i * 3).collect(); // bitset
    positions.extend(100_000..170_000); // runs
    positions.extend([1 << 32, (1 << 32) + 7, (5 << 32) + 65_535]); // arrays, far buckets
    positions.extend(((7u64 << 32)..(7 << 32) + 80_000).step_by(2)); // bitsets in bucket 7
    let mut out = vec![0xAA]; // odd start: the frame is unaligned
    let r = Writer::new()
        .write_deletion_vector(positions.iter().copied(), &mut out)
        .unwrap();
    let dv = DeletionVector::from_bytes_strict(&out[r.clone()]).unwrap();
    assert_eq!(dv.len(), positions.len() as u64);
    assert!(dv.bitmap().iter().eq(positions.iter().copied()));
    assert_eq!(dv.stored_crc(), Some(crc32(&out[r.start + 4..r.end - 4])));
    let tm = roaring::RoaringTreemap::deserialize_from(&out[r.start + 8..r.end - 4]).unwrap();
    assert!(tm.iter().eq(positions.iter().copied()));
    // The bitmap roaring-rs writes for the same set (bitsets unoptimized) opens too.
    let mut theirs = Vec::new();
    tm.serialize_into(&mut theirs).unwrap();
    let mut body = frozen_roaring::DV_MAGIC.to_vec();
    body.extend_from_slice(&theirs);
    let f = frame_of(&body);
    assert!(
        DeletionVector::from_bytes_strict(&f)
            .unwrap()
            .bitmap()
            .iter()
            .eq(positions.iter().copied())
    );
}

/// Empty buckets (Delta Spark writes one per key up to the highest) are accepted, in the
/// portable and in Delta's native layout.
#[test]
fn empty_buckets_and_the_native_layout_are_read() {
    let empty32 = {
        let mut v = Vec::new();
        roaring::RoaringBitmap::new()
            .serialize_into(&mut v)
            .unwrap();
        v
    };
    let one = {
        let mut v = Vec::new();
        roaring::RoaringBitmap::from_iter([5u32, 6, 70_000])
            .serialize_into(&mut v)
            .unwrap();
        v
    };
    // Portable: buckets 0 and 1 empty, bucket 2 holds three values.
    let mut body = frozen_roaring::DV_MAGIC.to_vec();
    body.extend_from_slice(&3u64.to_le_bytes());
    for (k, b) in [(0u32, &empty32), (1, &empty32), (2, &one)] {
        body.extend_from_slice(&k.to_le_bytes());
        body.extend_from_slice(b);
    }
    let want = [(2u64 << 32) + 5, (2 << 32) + 6, (2 << 32) + 70_000];
    let f = frame_of(&body);
    let dv = DeletionVector::from_bytes_strict(&f).unwrap();
    assert!(dv.bitmap().iter().eq(want));
    assert!(!dv.is_native());
    assert_eq!(dv.bitmap().min(), Some(want[0]));
    // Native: count, then (length, bitmap) per bucket, the key its index.
    let mut body = frozen_roaring::DV_NATIVE_MAGIC.to_vec();
    body.extend_from_slice(&3u32.to_le_bytes());
    for b in [&empty32, &empty32, &one] {
        body.extend_from_slice(&(b.len() as u32).to_le_bytes());
        body.extend_from_slice(b);
    }
    let f = frame_of(&body);
    let dv = DeletionVector::from_bytes_strict(&f).unwrap();
    assert!(dv.is_native());
    assert!(dv.bitmap().iter().eq(want));
    assert_eq!(dv.bitmap().rank(want[1]), 2);
    assert!(dv.contains(want[2]) && !dv.contains(5));
    // A native bucket whose length field disagrees with its bitmap is refused.
    let mut bad = body.clone();
    bad[8..12].copy_from_slice(&(empty32.len() as u32 + 4).to_le_bytes());
    assert!(DeletionVector::from_bytes(&frame_of(&bad)).is_err());
}

#[test]
fn positions_at_or_above_2_pow_63_are_refused_on_read_and_write() {
    let e = Writer::new()
        .write_deletion_vector([1, 1 << 63], &mut Vec::new())
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Malformed);
    let mut tm = roaring::RoaringTreemap::new();
    tm.insert(1 << 63);
    let mut body = frozen_roaring::DV_MAGIC.to_vec();
    tm.serialize_into(&mut body).unwrap();
    let e = DeletionVector::from_bytes(&frame_of(&body)).unwrap_err();
    assert!(e.to_string().contains("2^63"), "{e}");
}

/// Inline DVs: Delta's zero padding is read; a short last group padded the `z85` crate's
/// way (a group above 2^32) is refused, never wrapped.
#[test]
fn inline_dvs_decode_with_zero_padding_and_refuse_non_standard_groups() {
    for positions in [vec![3u64], vec![0, 5], vec![0, 1, 2, 5], (0..100).collect()] {
        let mut f = Vec::new();
        let r = Writer::new()
            .write_deletion_vector(positions.iter().copied(), &mut f)
            .unwrap();
        let body = &f[r.start + 4..r.end - 4];
        let d = DeletionVectorDescriptor::inline(body, positions.len() as u64);
        assert_eq!(d.path_or_inline_dv.len(), body.len().div_ceil(4) * 5);
        let decoded = d.decode_inline().unwrap();
        assert_eq!(decoded, body);
        let dv = DeletionVector::from_inline(&decoded).unwrap();
        dv.check_cardinality(d.cardinality).unwrap();
        assert!(dv.bitmap().iter().eq(positions.iter().copied()));
        assert_eq!(dv.stored_crc(), None);
    }
    // Position 3 as the corpus's z85-crate DV encodes it (34 bytes, last group `##093`).
    let d = DeletionVectorDescriptor {
        storage_type: StorageType::Inline,
        path_or_inline_dv: "^Bg9^0rr910000000000iXQKl0rr91000005c8Xg##093".into(),
        offset: None,
        size_in_bytes: 34,
        cardinality: 1,
    };
    let e = d.decode_inline().unwrap_err();
    assert!(e.to_string().contains("Z85 group"), "{e}");
    // Wrong lengths and characters outside the alphabet are errors too.
    let mut short = d.clone();
    short.size_in_bytes = 40;
    assert!(short.decode_inline().is_err());
    let mut bad = d.clone();
    bad.path_or_inline_dv.replace_range(0..1, "\"");
    assert!(bad.decode_inline().is_err());
}

/// Puffin files: what the writer makes opens, lists its blobs and DVs; LZ4-compressed
/// footers are read; every truncation and single-byte change gives an error or a file
/// whose DVs still open or fail cleanly, never a panic.
#[test]
fn puffin_writer_output_opens_and_lz4_footers_are_read() {
    let mut w = PuffinWriter::new();
    w.set_property("created-by", "frozen-roaring tests");
    w.add_deletion_vector([1u64, 3, 5, 7, 9], "s3://b/data/a.parquet")
        .unwrap();
    w.add_blob("some-blob", vec![1], b"opaque", None, Default::default());
    w.add_deletion_vector((0..70_000u64).chain([1 << 40]), "s3://b/data/b.parquet")
        .unwrap();
    let bytes = w.finish();
    let p = PuffinFile::from_bytes(&bytes).unwrap();
    assert_eq!(p.blobs().len(), 3);
    assert_eq!(p.properties()["created-by"], "frozen-roaring tests");
    assert_eq!(p.blobs()[0].fields, [2_147_483_645]);
    assert_eq!(p.blob_bytes(1), b"opaque");
    let lens: Vec<u64> = p
        .deletion_vectors()
        .map(|(_, d)| d.unwrap().len())
        .collect();
    assert_eq!(lens, [5, 70_001]);
    assert!(p.deletion_vector(1).is_err());
    assert!(p.deletion_vector_for("s3://b/data/none.parquet").is_none());

    // The same footer LZ4-compressed, flag bit 0 set.
    let n = i32::from_le_bytes(bytes[bytes.len() - 12..bytes.len() - 8].try_into().unwrap());
    let footer_start = bytes.len() - 12 - n as usize - 4;
    let json = &bytes[footer_start + 4..bytes.len() - 12];
    let mut enc = lz4_flex::frame::FrameEncoder::new(Vec::new());
    std::io::Write::write_all(&mut enc, json).unwrap();
    let packed = enc.finish().unwrap();
    let mut c = bytes[..footer_start + 4].to_vec();
    c.extend_from_slice(&packed);
    c.extend_from_slice(&(packed.len() as i32).to_le_bytes());
    c.extend_from_slice(&[1, 0, 0, 0]);
    c.extend_from_slice(b"PFA1");
    let q = PuffinFile::from_bytes(&c).unwrap();
    assert_eq!(q.blobs(), p.blobs());
    // Unknown flags are refused.
    let mut f = c.clone();
    let at = f.len() - 8;
    f[at] = 2;
    assert!(PuffinFile::from_bytes(&f).is_err());

    for data in [&bytes, &c] {
        for cut in 0..data.len() {
            if let Ok(p) = PuffinFile::from_bytes(&data[..cut]) {
                panic!(
                    "a truncated Puffin file opened: {cut} bytes, {:?}",
                    p.blobs()
                );
            }
        }
        for i in 0..data.len() {
            for x in [0x01u8, 0x80, 0xFF] {
                let mut d = data.to_vec();
                d[i] ^= x;
                if let Ok(p) = PuffinFile::from_bytes(&d) {
                    for (_, dv) in p.deletion_vectors() {
                        if let Ok(dv) = dv {
                            let _ = (dv.len(), dv.verify(), dv.bitmap().max());
                        }
                    }
                }
            }
        }
    }
}

/// Every truncation and every single-byte change of a frame is an error for the strict
/// constructor (the CRC catches what the structure does not); the plain one never panics.
#[test]
fn every_truncation_and_byte_change_of_a_frame_is_caught() {
    let mut f = Vec::new();
    let positions: Vec<u64> = (0..50)
        .map(|i| i * 7)
        .chain(100_000..100_300)
        .chain([1 << 33])
        .collect();
    let r = Writer::new()
        .write_deletion_vector(positions.iter().copied(), &mut f)
        .unwrap();
    let frame = &f[r];
    for cut in 0..frame.len() {
        assert!(
            DeletionVector::from_bytes(&frame[..cut]).is_err(),
            "cut {cut}"
        );
    }
    let mut longer = frame.to_vec();
    longer.push(0);
    assert!(DeletionVector::from_bytes(&longer).is_err());
    for i in 0..frame.len() {
        for x in [0x01u8, 0x10, 0x80, 0xFF] {
            let mut d = frame.to_vec();
            d[i] ^= x;
            assert!(
                DeletionVector::from_bytes_strict(&d).is_err(),
                "byte {i} ^ {x:#x}"
            );
            if let Ok(dv) = DeletionVector::from_bytes(&d) {
                let bm = dv.bitmap();
                let _ = (
                    bm.len(),
                    bm.min(),
                    bm.max(),
                    bm.iter().count(),
                    bm.rank(1 << 33),
                );
            }
        }
    }
}

/// `from_delta_file` checks the descriptor against the frame it points at.
#[test]
fn delta_descriptors_that_point_wrong_are_errors() {
    let mut file = vec![1u8];
    let a = Writer::new()
        .write_deletion_vector([0u64, 9], &mut file)
        .unwrap();
    let b = Writer::new()
        .write_deletion_vector([4u64], &mut file)
        .unwrap();
    let size = |r: &std::ops::Range<usize>| (r.len() - 8) as u32;
    assert_eq!(
        DeletionVector::from_delta_file(&file, a.start as u64, size(&a))
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        DeletionVector::from_delta_file(&file, b.start as u64, size(&b))
            .unwrap()
            .len(),
        1
    );
    assert!(DeletionVector::from_delta_file(&file, a.start as u64, size(&b)).is_err());
    assert!(DeletionVector::from_delta_file(&file, 0, size(&a)).is_err());
    assert!(DeletionVector::from_delta_file(&file, b.start as u64 + 1, size(&b)).is_err());
    assert!(DeletionVector::from_delta_file(&file, u64::MAX, u32::MAX).is_err());
}

/// Inputs the `dv` fuzz target once crashed on (`tests/regressions/dv`), replayed in the
/// target's modes: the first byte picks a frame (0), the bitmap framed here (1 portable,
/// 2 native), or a Puffin file (3).
#[test]
fn dv_fuzz_findings_stay_fixed() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions/dv");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let data = std::fs::read(e.path()).unwrap();
        let probe = u64::from_le_bytes(core::array::from_fn(|i| *data.get(i).unwrap_or(&0)));
        let Some((&mode, rest)) = data.split_first() else {
            continue;
        };
        let mut views = Vec::new();
        let framed;
        match mode % 4 {
            0 => views.extend(DeletionVector::from_bytes(rest).ok().map(|d| d.bitmap())),
            1 | 2 => {
                let magic = if mode % 4 == 1 {
                    frozen_roaring::DV_MAGIC
                } else {
                    frozen_roaring::DV_NATIVE_MAGIC
                };
                framed = frame_of(&[&magic[..], rest].concat());
                views.extend(DeletionVector::from_bytes(&framed).ok().map(|d| d.bitmap()));
            }
            _ => {
                if let Ok(p) = PuffinFile::from_bytes(rest) {
                    let _ = p.deletion_vectors().count();
                }
            }
        }
        for bm in views {
            let start = probe % (1 << 34);
            let mut mask = [0u64; 64];
            bm.fill_mask(start..start + 4096, &mut mask);
            let _ = bm.live_ranges(start..start + 4096).take(5000).count();
            let _ = (
                bm.range_cardinality(probe..),
                bm.iter().rev().take(100).count(),
            );
        }
        n += 1;
    }
    assert!(n >= 1, "the regression inputs are in the repository");
}

/// Puffin files by ranges: the corpus's files list the same blobs and DVs as read whole;
/// a footer larger than the tail read takes a second request; damaged footers are errors.
#[test]
fn puffin_files_read_by_ranges_match_reading_them_whole() {
    use frozen_roaring::RangedPuffinFile;
    let mut files: Vec<Vec<u8>> = Vec::new();
    if let Some(dir) = corpus() {
        for f in [
            "iceberg-go/table/dv/testdata/deletes/multi-blob-dv.puffin",
            "duckdb-iceberg/multi_blob_deletion_vectors/data/multiple-deletion-vectors.puffin",
            "iceberg/puffin/v1/sample-metric-data-compressed-zstd.bin",
            "iceberg/puffin/v1/empty-puffin-uncompressed.bin",
        ] {
            files.push(std::fs::read(dir.join(f)).unwrap());
        }
    }
    // Many blobs: a footer of about 90 KB, past the 64 KiB tail read.
    let mut w = PuffinWriter::new();
    for i in 0..300u64 {
        w.add_deletion_vector(
            [i, i + 5, 1 << 40],
            &format!(
                "s3://bucket/warehouse/db/table/data/{i:05}-0-0f2f141bb-fa8f-4553-a5db.parquet"
            ),
        )
        .unwrap();
    }
    let big = w.finish();
    files.push(big.clone());
    for bytes in &files {
        let whole = PuffinFile::from_bytes(&bytes[..]).unwrap();
        let ranged = RangedPuffinFile::open(&bytes[..]).unwrap();
        assert_eq!(ranged.blobs(), whole.blobs());
        assert_eq!(ranged.properties(), whole.properties());
        for (i, meta) in whole.blobs().iter().enumerate() {
            assert_eq!(ranged.read_blob(i).unwrap(), whole.blob_bytes(i));
            if meta.blob_type == "deletion-vector-v1" {
                let frame = ranged.read_deletion_vector(i).unwrap();
                assert_eq!(
                    DeletionVector::from_bytes(&frame).unwrap().len(),
                    whole.deletion_vector(i).unwrap().len()
                );
            } else {
                assert!(ranged.read_deletion_vector(i).is_err());
            }
        }
    }
    let ranged = RangedPuffinFile::open(&big[..]).unwrap();
    assert_eq!(ranged.requests(), 2, "the footer passes the tail read");
    for cut in [0, 11, 30, big.len() - 1] {
        assert!(RangedPuffinFile::open(&big[..cut]).is_err());
    }
    let mut bad = big.clone();
    let n = bad.len();
    bad[n - 9] ^= 0x40; // the payload size
    assert!(RangedPuffinFile::open(&bad[..]).is_err());
}
