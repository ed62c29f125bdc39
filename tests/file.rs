//! Bitmap files: large files built and read back, real data, and corrupt files.

mod common;

use common::*;
use frozen_roaring::{BitmapFile, ErrorKind, FileWriter, FrozenBitmap};

/// The values stored under key `i` of the synthetic files (a few shapes).
fn values_of(i: u64) -> Vec<u32> {
    let i32_ = i as u32;
    match i % 4 {
        0 => vec![i32_],
        1 => vec![0, i32_ + 1, i32_ + 8, u32::MAX],
        2 => (i32_ % 1000..i32_ % 1000 + 50).collect(),
        _ => (0..20).map(|k| k * (i32_ % 97 + 1)).collect(),
    }
}

fn build(n: u64, key: impl Fn(u64) -> u64, checksums: bool) -> Vec<u8> {
    let mut w = FileWriter::new(Vec::new()).with_bitmap_checksums(checksums);
    for i in 0..n {
        w.add_sorted(key(i), values_of(i)).unwrap();
    }
    assert_eq!(w.count(), n);
    w.finish().unwrap()
}

#[test]
fn a_million_keys() {
    let n = 1_000_000u64;
    let key = |i: u64| i * 7 + (i >> 10) * (1 << 40);
    let bytes = build(n, key, false);
    let file = BitmapFile::from_bytes(&bytes[..]).unwrap();
    assert_eq!(file.len(), n as usize);
    assert!(file.keys().eq((0..n).map(key)));
    let mut rng = Rng(5);
    for _ in 0..2000 {
        let i = rng.below(n);
        let bm = file.get(key(i)).unwrap().unwrap();
        assert!(bm.iter().eq(values_of(i)), "key {}", key(i));
        assert!(file.get(key(i) + 1).unwrap().is_none());
        let (k, b) = file.get_index(i as usize).unwrap().unwrap();
        assert_eq!((k, b.len()), (key(i), values_of(i).len() as u64));
    }
    // Ranges of keys.
    let r: Vec<u64> = file.range(key(10)..key(20)).map(|x| x.unwrap().0).collect();
    assert_eq!(r, (10..20).map(key).collect::<Vec<_>>());
    assert_eq!(file.range(key(n - 1) + 1..).count(), 0);
    assert_eq!(file.iter().next_back().unwrap().unwrap().0, key(n - 1));
    // Every bitmap opens (spot check of contents above).
    assert_eq!(file.iter().filter(|r| r.is_ok()).count(), n as usize);
}

#[test]
fn checksums_and_verify() {
    let bytes = build(300, |i| i * 3, true);
    let file = BitmapFile::from_bytes(bytes.clone()).unwrap();
    assert!(file.has_bitmap_checksums());
    file.verify().unwrap();
    for (i, r) in file.iter().enumerate() {
        let (k, bm) = r.unwrap();
        assert_eq!(k, i as u64 * 3);
        assert!(bm.has_checksum());
    }
    // A flipped payload byte: the directory is fine, verify() finds the damage.
    let (_, first) = file.get_index(5).unwrap().unwrap();
    let at = first.as_bytes().as_ptr() as usize - file.as_bytes().as_ptr() as usize + 20;
    let mut bad = bytes.clone();
    bad[at] ^= 0x10;
    let bad_file = BitmapFile::from_bytes(&bad[..]).unwrap();
    let err = bad_file.verify().unwrap_err();
    assert_ne!(err.kind(), ErrorKind::Io, "{err}");
}

#[test]
fn keys_must_increase() {
    let mut w = FileWriter::new(Vec::new());
    w.add_sorted(5, [1]).unwrap();
    let err = w.add_sorted(5, [2]).unwrap_err();
    assert_eq!(
        (err.kind(), err.position()),
        (ErrorKind::NotAscending, Some(1))
    );
    assert!(err.to_string().contains("keys"), "{err}");
    let err = w.add_sorted(6, [3, 2]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotAscending);
    // Rejected bitmaps were not written.
    w.add_sorted(6, [4]).unwrap();
    let file = BitmapFile::from_bytes(w.finish().unwrap()).unwrap();
    assert_eq!(file.keys().collect::<Vec<_>>(), [5, 6]);
    assert_eq!(file.get(6).unwrap().unwrap().to_vec(), [4]);
}

#[test]
fn empty_file_and_copied_bitmaps() {
    let empty = FileWriter::new(Vec::new()).finish().unwrap();
    assert_eq!(empty.len(), 48);
    let f = BitmapFile::from_bytes(&empty[..]).unwrap();
    assert!(f.is_empty() && f.get(0).unwrap().is_none());
    f.verify().unwrap();
    // `add` copies frozen bitmaps and converts portable ones.
    let mut portable = Vec::new();
    frozen_roaring::Writer::new()
        .write_portable_sorted(0..100_000, &mut portable)
        .unwrap();
    let pv = FrozenBitmap::from_bytes(&portable).unwrap();
    let mut w = FileWriter::new(Vec::new());
    w.add(1, &pv).unwrap();
    let file = BitmapFile::from_bytes(w.finish().unwrap()).unwrap();
    let got = file.get(1).unwrap().unwrap();
    assert_eq!(got.format(), frozen_roaring::Format::Frozen);
    assert_eq!(got, pv);
}

#[test]
fn corrupt_files_give_errors_never_panics() {
    let bytes = build(40, |i| i * 1000, false);
    // Every truncation.
    for len in 0..bytes.len() {
        assert!(
            BitmapFile::from_bytes(&bytes[..len]).is_err(),
            "prefix {len}"
        );
    }
    // Every byte of the footer and the directory, flipped.
    let dir = bytes.len() - 32 - 40 * 24;
    for i in dir..bytes.len() {
        for bit in [0, 5] {
            let mut bad = bytes.clone();
            bad[i] ^= 1 << bit;
            let err = BitmapFile::from_bytes(&bad[..]).unwrap_err();
            assert!(
                matches!(
                    err.kind(),
                    ErrorKind::ChecksumMismatch
                        | ErrorKind::Malformed
                        | ErrorKind::Truncated
                        | ErrorKind::BadMagic
                        | ErrorKind::UnsupportedVersion
                ),
                "byte {i}: {err}"
            );
        }
    }
    // Header bytes: rejected at open, except the checksum flag, which verify() catches
    // (the bitmaps do not carry the promised checksums).
    for i in 0..16 {
        let mut bad = bytes.clone();
        bad[i] ^= 0x01;
        let caught = BitmapFile::from_bytes(&bad[..]).map_or(true, |f| f.verify().is_err());
        assert!(caught, "header byte {i}");
    }
    // Payload bytes: the file opens; each lookup gives a bitmap or an error, verify fails
    // or the bitmap is still valid.
    let mut rng = Rng(9);
    for _ in 0..3000 {
        let mut bad = bytes.clone();
        let i = 16 + rng.below((dir - 16) as u64) as usize;
        bad[i] ^= 1 << rng.below(8);
        let file = BitmapFile::from_bytes(&bad[..]).unwrap();
        for (_, bm) in file.iter().flatten() {
            let _ = (bm.len(), bm.iter().take(100).count(), bm.contains(7));
        }
        let _ = file.verify();
    }
    // A directory entry pointing out of bounds, with its checksums recomputed: the bounds
    // check (not just the CRC) rejects it.
    let mut bad = bytes.clone();
    bad[dir + 8..dir + 16].copy_from_slice(&u64::MAX.to_le_bytes());
    fix_checksums(&mut bad, 40);
    let err = BitmapFile::from_bytes(&bad[..]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Malformed, "{err}");
    // Keys out of order.
    let mut bad = bytes.clone();
    bad[dir..dir + 8].copy_from_slice(&5000u64.to_le_bytes());
    fix_checksums(&mut bad, 40);
    let err = BitmapFile::from_bytes(&bad[..]).unwrap_err();
    assert!(err.to_string().contains("strictly increasing"), "{err}");
    // A huge key count: rejected by arithmetic, not by allocating.
    let mut bad = bytes.clone();
    let f = bad.len() - 32;
    bad[f + 8..f + 16].copy_from_slice(&(u64::MAX / 2).to_le_bytes());
    fix_footer(&mut bad);
    assert_eq!(
        BitmapFile::from_bytes(&bad[..]).unwrap_err().kind(),
        ErrorKind::Malformed
    );
}

fn crc32c(bytes: &[u8]) -> u32 {
    // Bitwise CRC32C (Castagnoli, reflected), independent of the crate's implementation.
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0x82F6_3B78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// Recomputes the footer checksum (version 2: over the header and the footer's first 20
/// bytes).
fn fix_footer(b: &mut [u8]) {
    let f = b.len() - 32;
    let mut covered = b[..16].to_vec();
    covered.extend_from_slice(&b[f..f + 20]);
    let crc = crc32c(&covered);
    b[f + 20..f + 24].copy_from_slice(&crc.to_le_bytes());
}

fn fix_checksums(b: &mut [u8], n: usize) {
    let f = b.len() - 32;
    let dir = f - n * 24;
    let crc = crc32c(&b[dir..f]);
    b[f + 16..f + 20].copy_from_slice(&crc.to_le_bytes());
    fix_footer(b);
}

#[test]
fn realdata_files_hold_every_bitmap() {
    for (name, files) in realdata_sets() {
        let mut w = FileWriter::new(Vec::new()).with_bitmap_checksums(true);
        let sets: Vec<Vec<u32>> = files.iter().map(|p| read_values(p)).collect();
        for (i, v) in sets.iter().enumerate() {
            w.add_sorted(i as u64, v.iter().copied()).unwrap();
        }
        let file = BitmapFile::from_bytes(w.finish().unwrap()).unwrap();
        file.verify().unwrap();
        assert_eq!(file.len(), sets.len(), "{name}");
        for (i, v) in sets.iter().enumerate() {
            let bm = file.get(i as u64).unwrap().unwrap();
            assert!(bm.iter().eq(v.iter().copied()), "{name} key {i}");
        }
    }
}

#[cfg(feature = "mmap")]
#[test]
fn open_maps_a_file() {
    let bytes = build(1000, |i| i, true);
    let path = std::env::temp_dir().join(format!("frozen-roaring-test-{}.frf", std::process::id()));
    std::fs::write(&path, &bytes).unwrap();
    let file = BitmapFile::open(&path).unwrap();
    file.verify().unwrap();
    assert!(file.get(999).unwrap().unwrap().iter().eq(values_of(999)));
    drop(file);
    std::fs::remove_file(&path).unwrap();
    let err = BitmapFile::open(&path).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io);
}

/// Offsets above 4 GiB: a sparse file with its one bitmap at 4.5 GiB (no disk space used
/// for the hole), built by hand from a small file's pieces, read through the memory map.
#[cfg(all(feature = "mmap", target_pointer_width = "64"))]
#[test]
fn bitmaps_beyond_4_gib() {
    use std::io::{Seek, SeekFrom, Write};
    let mut bitmap = Vec::new();
    frozen_roaring::Writer::new()
        .write_sorted((0..100_000).step_by(3), &mut bitmap)
        .unwrap();
    let at: u64 = (9 << 29) + 64; // 4.5 GiB + 64, a multiple of 64
    let dir_offset = (at + bitmap.len() as u64).next_multiple_of(8);
    let mut dir = Vec::new();
    for x in [42u64, at, bitmap.len() as u64] {
        dir.extend_from_slice(&x.to_le_bytes());
    }
    let mut footer = [0u8; 32];
    footer[..8].copy_from_slice(&dir_offset.to_le_bytes());
    footer[8..16].copy_from_slice(&1u64.to_le_bytes());
    footer[16..20].copy_from_slice(&crc32c(&dir).to_le_bytes());
    let crc = crc32c(&footer[..20]);
    footer[20..24].copy_from_slice(&crc.to_le_bytes());
    footer[24] = 1;
    footer[28..].copy_from_slice(b"FRZF");
    let path = std::env::temp_dir().join(format!("frozen-roaring-big-{}.frf", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&path)?;
        let mut header = [0u8; 16];
        header[..4].copy_from_slice(b"FRZF");
        header[4] = 1;
        f.write_all(&header)?;
        f.set_len(dir_offset + dir.len() as u64 + 32)?; // sparse hole up to the bitmap
        f.seek(SeekFrom::Start(at))?;
        f.write_all(&bitmap)?;
        f.seek(SeekFrom::Start(dir_offset))?;
        f.write_all(&dir)?;
        f.write_all(&footer)
    };
    if let Err(e) = write() {
        let _ = std::fs::remove_file(&path);
        let _ = writeln!(
            std::io::stderr(),
            "notice: cannot make a 4.5 GiB sparse file here ({e}), skipping"
        );
        return;
    }
    let file = BitmapFile::open(&path).unwrap();
    assert_eq!(file.len(), 1);
    assert!(file.as_bytes().len() as u64 > 1 << 32);
    let bm = file.get(42).unwrap().unwrap();
    assert!(bm.iter().eq((0..100_000).step_by(3)));
    let (key, _) = file.iter().next().unwrap().unwrap();
    assert_eq!(key, 42);
    drop(file);
    std::fs::remove_file(&path).unwrap();
}

/// With bitmap checksums (the default), every bit flipped in a sample of the bytes between
/// the header and the directory is caught by `verify`, and, inside a bitmap, by
/// `get_verified` of its key; every bit flipped in the header is caught at open.
#[test]
fn every_flipped_bit_is_caught_by_verify_and_verified_lookups() {
    let mut w = FileWriter::new(Vec::new());
    let shapes: Vec<Vec<u32>> = vec![
        vec![1, 5, 9, 70_000],
        (0..5000).map(|i| i * 7).collect(),
        (100..20_000).collect(),
        (0..200_000).step_by(3).collect(),
        vec![u32::MAX],
    ];
    for (k, s) in shapes.iter().enumerate() {
        w.add_sorted(k as u64 * 10, s.iter().copied()).unwrap();
    }
    let bytes = w.finish().unwrap();
    let file = BitmapFile::from_bytes(&bytes[..]).unwrap();
    file.verify().unwrap();
    let spans: Vec<(u64, usize, usize)> = file
        .iter()
        .map(|r| {
            let (k, bm) = r.unwrap();
            let off = bm.as_bytes().as_ptr() as usize - bytes.as_ptr() as usize;
            (k, off, off + bm.as_bytes().len())
        })
        .collect();
    let dir = bytes.len() - 32 - 24 * shapes.len();
    // Every byte of the small bitmaps and of the padding, and a sample of the large ones.
    let sample = (16..dir).filter(|&i| {
        let large = spans
            .iter()
            .any(|&(_, a, b)| b - a > 4096 && i >= a && i < b);
        !large || i % 97 == 0
    });
    let mut flips = 0;
    for i in sample {
        for bit in 0..8 {
            let mut bad = bytes.clone();
            bad[i] ^= 1 << bit;
            let f = BitmapFile::from_bytes(&bad[..]).expect("the directory is intact");
            assert!(f.verify().is_err(), "verify missed byte {i} bit {bit}");
            if let Some(&(k, ..)) = spans.iter().find(|&&(_, a, b)| i >= a && i < b) {
                assert!(
                    f.get_verified(k).is_err(),
                    "get_verified({k}) missed byte {i} bit {bit}"
                );
            }
            flips += 1;
        }
    }
    assert!(flips > 8 * 500, "{flips}");
    for i in 0..16 {
        for bit in 0..8 {
            let mut bad = bytes.clone();
            bad[i] ^= 1 << bit;
            assert!(
                BitmapFile::from_bytes(&bad[..]).is_err(),
                "header byte {i} bit {bit}"
            );
        }
    }
}
