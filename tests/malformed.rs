//! Malformed input: truncations, single-byte changes, random bytes and crafted headers.
//! Every input gives `Err` or a view whose every query returns without panicking; a
//! strictly validated view answers exactly.

mod common;

#[path = "common/exercise.rs"]
mod exercise;

use std::collections::BTreeSet;

use common::*;
use exercise::{check_exact, check_open_agrees, exercise};
use frozen_roaring::{ErrorKind, FrozenBitmap, Writer};

/// A few valid encodings covering every kind, with and without checksum.
fn samples() -> Vec<(BTreeSet<u32>, Vec<u8>)> {
    let sets = [
        BTreeSet::new(),
        BTreeSet::from([0]),
        BTreeSet::from([u32::MAX]),
        build_set(&[
            (0, Shape::Sparse(5), 1),
            (1, Shape::Runs(2), 2),
            (7, Shape::Sparse(3), 3),
        ]),
        build_set(&[
            (0, Shape::Dense, 4),
            (2, Shape::Sparse(20), 5),
            (65535, Shape::Runs(3), 6),
        ]),
        build_set(&[(3, Shape::Exact(4097), 7), (4, Shape::Alternating, 8)]),
    ];
    let mut out = Vec::new();
    for set in sets {
        for checksum in [false, true] {
            let mut bytes = Vec::new();
            Writer::new()
                .with_checksum(checksum)
                .write_sorted(set.iter().copied(), &mut bytes)
                .unwrap();
            out.push((set.clone(), bytes));
        }
    }
    out
}

/// Opens `bytes` every way and exercises whatever opens; a strict view must be exact.
fn try_all(bytes: &[u8], reference: &FrozenBitmap<'_>) {
    check_open_agrees(bytes);
    if let Ok(bm) = FrozenBitmap::from_bytes(bytes) {
        exercise(&bm, reference);
    }
    if let Ok((bm, _)) = FrozenBitmap::from_prefix(bytes) {
        exercise(&bm, reference);
    }
    if let Ok(bm) = FrozenBitmap::from_bytes_strict(bytes) {
        check_exact(&bm);
    }
    // SAFETY: deliberately violated to show that the current implementation stays
    // memory-safe and panic-free even then (documented as not guaranteed).
    let unchecked = unsafe { FrozenBitmap::from_bytes_unchecked(bytes) };
    exercise(&unchecked, reference);
}

#[test]
fn every_truncation_is_an_error() {
    for (_, bytes) in samples() {
        for k in 0..bytes.len() {
            let err = FrozenBitmap::from_bytes(&bytes[..k]).unwrap_err();
            assert!(
                matches!(err.kind(), ErrorKind::Truncated | ErrorKind::BadMagic),
                "{k}: {err}"
            );
            assert!(FrozenBitmap::from_prefix(&bytes[..k]).is_err());
            let reference = FrozenBitmap::from_bytes(&bytes).unwrap();
            try_all(&bytes[..k], &reference);
        }
    }
}

#[test]
fn every_single_byte_change() {
    for (set, bytes) in samples() {
        let reference = FrozenBitmap::from_bytes(&bytes).unwrap();
        let checksum = reference.has_checksum();
        let small = bytes.len() <= 256;
        // Small encodings: every position, every value. Large ones: every header and
        // directory byte and a sample of payload bytes, with a few values each.
        let dir_end = 16 + 12 * reference.container_count();
        let mut rng = Rng(bytes.len() as u64);
        let mut positions: Vec<usize> = (0..dir_end.min(bytes.len())).collect();
        if small {
            positions = (0..bytes.len()).collect();
        } else {
            positions.extend(
                (0..64).map(|_| dir_end + rng.below((bytes.len() - dir_end) as u64) as usize),
            );
            positions.extend(bytes.len() - 4..bytes.len());
        }
        for pos in positions {
            let orig = bytes[pos];
            let values: Vec<u8> = if small {
                (0..=255).collect()
            } else {
                vec![orig ^ 1, orig ^ 0x80, 0, 0xFF, orig.wrapping_add(1)]
            };
            for v in values.into_iter().filter(|&v| v != orig) {
                let mut b = bytes.clone();
                b[pos] = v;
                try_all(&b, &reference);
                if checksum {
                    // CRC32C detects every single-byte change.
                    assert!(
                        FrozenBitmap::from_bytes_strict(&b).is_err(),
                        "change at {pos} to {v} not detected"
                    );
                } else if let Ok(bm) = FrozenBitmap::from_bytes_strict(&b) {
                    // Without a checksum a change can be a different valid bitmap, never an invalid one.
                    assert!(bm.iter().count() as u64 == bm.len());
                    let _ = set.len();
                }
            }
        }
    }
}

#[test]
fn random_bytes() {
    let reference_bytes = samples().swap_remove(6).1;
    let reference = FrozenBitmap::from_bytes(&reference_bytes).unwrap();
    let mut rng = Rng(42);
    let rounds = if std::env::var_os("CI").is_some() {
        3_000
    } else {
        20_000
    };
    for round in 0..rounds {
        let len = rng.below(400) as usize;
        let mut b: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        // Most rounds get a valid header start so the directory checks are reached.
        if round % 4 != 0 && len >= 16 {
            b[..6].copy_from_slice(&[b'F', b'R', b'Z', b'R', 1, (rng.below(2)) as u8]);
            b[6] = 0;
            b[7] = 0;
            b[8..12]
                .copy_from_slice(&(rng.below(((len as u64) - 16) / 12 + 2) as u32).to_le_bytes());
            b[12..16].copy_from_slice(&(len as u32).to_le_bytes());
        }
        try_all(&b, &reference);
    }
}

/// A valid three-container bitmap (array, run, bitset) to corrupt field by field.
fn base() -> Vec<u8> {
    let set = build_set(&[
        (0, Shape::Sparse(5), 1),
        (1, Shape::Runs(2), 2),
        (2, Shape::Dense, 3),
    ]);
    encode(&set)
}

fn put32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn expect_err(b: &[u8], kind: ErrorKind, words: &str) {
    let err = FrozenBitmap::from_bytes(b).unwrap_err();
    assert_eq!(err.kind(), kind, "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains(words),
        "message {msg:?} should mention {words:?}"
    );
}

#[test]
fn crafted_headers_give_typed_errors() {
    let good = base();
    let n = u32::from_le_bytes(good[8..12].try_into().unwrap()) as usize;
    assert_eq!(n, 3);
    let desc = |i: usize| 16 + 4 * n + 4 * i;

    expect_err(b"", ErrorKind::Truncated, "header");
    expect_err(b"FRZ", ErrorKind::Truncated, "header");
    expect_err(b"RZRF and more bytes", ErrorKind::BadMagic, "magic");
    let mut b = good.clone();
    b[4] = 2;
    expect_err(&b, ErrorKind::UnsupportedVersion, "version 2");
    let mut b = good.clone();
    b[5] = 0x80;
    expect_err(&b, ErrorKind::Malformed, "flags");
    let mut b = good.clone();
    b[7] = 1;
    expect_err(&b, ErrorKind::Malformed, "reserved");
    // A huge container count in a small buffer: rejected before anything is sized by it.
    let mut b = good.clone();
    put32(&mut b, 8, 65537);
    expect_err(&b, ErrorKind::Malformed, "container count");
    let mut b = good.clone();
    put32(&mut b, 8, 65536);
    expect_err(&b, ErrorKind::Malformed, "total length");
    let mut b = good.clone();
    put32(&mut b, 12, good.len() as u32 + 1);
    expect_err(&b, ErrorKind::Truncated, "bitmap");
    let mut b = good.clone();
    b.push(0);
    expect_err(&b, ErrorKind::Malformed, "from_prefix");
    // Keys out of order.
    let mut b = good.clone();
    b[18] = 0;
    expect_err(&b, ErrorKind::Malformed, "strictly increasing");
    // Kind 3.
    let mut b = good.clone();
    b[desc(0)] |= 3;
    expect_err(&b, ErrorKind::Malformed, "kind 3");
    // The bitset's offset moved off its 64-byte alignment.
    let mut b = good.clone();
    let d = u32::from_le_bytes(b[desc(2)..desc(2) + 4].try_into().unwrap());
    put32(&mut b, desc(2), d + (2 << 2));
    expect_err(&b, ErrorKind::Malformed, "misaligned");
    // An offset pointing back into the directory.
    let mut b = good.clone();
    put32(&mut b, desc(0), 16 << 2);
    expect_err(&b, ErrorKind::Malformed, "overlaps");
    // A run count of zero.
    let mut b = good.clone();
    let run_off = (u32::from_le_bytes(b[desc(1)..desc(1) + 4].try_into().unwrap()) >> 2) as usize;
    b[run_off] = 0;
    b[run_off + 1] = 0;
    expect_err(&b, ErrorKind::Malformed, "run count");
    // A wrong cumulative count.
    let mut b = good.clone();
    let cum1 = 16 + 8 * n + 4;
    b[cum1] ^= 1;
    expect_err(&b, ErrorKind::Malformed, "cumulative");
    // An array claiming more than 4096 values.
    let mut b = good.clone();
    b[16 + 2 * n..16 + 2 * n + 2].copy_from_slice(&5000u16.to_le_bytes());
    expect_err(&b, ErrorKind::Malformed, "4096");
    // Every error names an offset.
    assert!(FrozenBitmap::from_bytes(&b).unwrap_err().offset().is_some());
}

#[test]
fn strict_validation_catches_corrupt_payloads() {
    let good = base();
    let off = |b: &[u8], i: usize| payload_offset(b, 3, i);
    // Unsorted array: swap two values.
    let mut b = good.clone();
    let a = off(&b, 0);
    b.swap(a, a + 2);
    b.swap(a + 1, a + 3);
    assert!(
        FrozenBitmap::from_bytes(&b).is_ok(),
        "structure is still sound"
    );
    let err = FrozenBitmap::from_bytes_strict(&b).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Corrupt);
    assert!(err.to_string().contains("array"), "{err}");
    // Bitset popcount off by one.
    let mut b = good.clone();
    let bs = off(&b, 2);
    b[bs] ^= 1;
    let err = FrozenBitmap::from_bytes_strict(&b).unwrap_err();
    assert!(err.to_string().contains("popcount"), "{err}");
    // Overlapping runs: make the second run start inside the first.
    let mut b = good.clone();
    let r = off(&b, 1);
    let first_start = u16::from_le_bytes([b[r + 2], b[r + 3]]);
    b[r + 6..r + 8].copy_from_slice(&first_start.to_le_bytes());
    let err = FrozenBitmap::from_bytes_strict(&b).unwrap_err();
    assert!(err.to_string().contains("run"), "{err}");
    // Checksum mismatch.
    let mut cb = Vec::new();
    Writer::new()
        .with_checksum(true)
        .write_sorted(0..100, &mut cb)
        .unwrap();
    let last = cb.len() - 1;
    cb[last] ^= 0xFF;
    let bm = FrozenBitmap::from_bytes(&cb).unwrap();
    assert_eq!(bm.verify().unwrap_err().kind(), ErrorKind::ChecksumMismatch);
    assert_eq!(
        FrozenBitmap::from_bytes_strict(&cb).unwrap_err().kind(),
        ErrorKind::ChecksumMismatch
    );
}

/// Found by the `decode_portable` fuzz target once set operations joined `exercise`:
/// portable bitmaps that pass the checked constructor, with overlapping runs in their
/// payloads. A symmetric difference summed overlapping runs into a container of 65,540
/// values, and a union copied a container of overlapping runs (131,072 values) through
/// unchanged: bytes the checked constructor then refused. Results of checked views must
/// open, whatever their payloads hold.
#[test]
fn set_operations_on_overlapping_runs_give_valid_bitmaps() {
    let overlapping: &[u8] = &[
        59, 48, 1, 0, 125, 8, 0, 0, 0, 0, 16, 0, 0, 8, 0, 0, 0, 2, 0, 0, 48, 58, 0, 125, 125, 125,
        125, 2, 125, 125, 0, 0, 0, 255, 255, 255, 246, 0, 0, 0, 48, 255, 255, 255, 247, 0, 0, 0,
        29,
    ];
    let a: &[u8] = &[
        59, 48, 1, 0, 237, 0, 0, 0, 0, 2, 35, 0, 0, 3, 0, 0, 0, 0, 0, 193, 193, 193, 193, 0, 0, 0,
        0, 0, 0,
    ];
    let b: &[u8] = &[
        59, 48, 2, 0, 1, 0, 0, 3, 0, 1, 0, 1, 0, 16, 0, 0, 0, 1, 0, 1, 0, 3, 0, 112, 17, 113, 17,
        0, 0,
    ];
    let (va, vb) = (
        FrozenBitmap::from_bytes(a).unwrap(),
        FrozenBitmap::from_bytes(b).unwrap(),
    );
    let mut w = Writer::new();
    let mut out = Vec::new();
    let r = w.symmetric_difference_into(&va, &vb, &mut out).unwrap();
    // Corrupt payloads may give wrong values, but the result must be a bitmap.
    FrozenBitmap::from_bytes(&out[r]).unwrap();
    let vo = FrozenBitmap::from_bytes(overlapping).unwrap();
    out.clear();
    let r = w.union_into(&vo, &vb, &mut out).unwrap();
    FrozenBitmap::from_bytes(&out[r]).unwrap();
    exercise(&vo, &vb);
    exercise(&vb, &vo);
    // And every other operation, both ways, canonical or not (asserted inside).
    exercise(&va, &vb);
    exercise(&vb, &va);
}

/// The byte offset of container `i`'s payload in frozen `bytes` of `n` containers: its
/// descriptor (after the 16-byte header, the keys and the cardinalities) holds it above
/// two kind bits.
fn payload_offset(bytes: &[u8], n: usize, i: usize) -> usize {
    let at = 16 + 4 * n + 4 * i;
    (u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) >> 2) as usize
}

/// A frozen bitmap of one array container whose payload holds `values` as stored, in any
/// order and with repeats: the checked constructor checks the structure, not the order
/// of the values in a payload.
fn array_with_payload(values: &[u16]) -> Vec<u8> {
    // Even values: no two adjacent, so the writer stores them as an array.
    let evens = (0..values.len() as u32).map(|i| 2 * i);
    let mut bytes = Vec::new();
    Writer::new().write_sorted(evens, &mut bytes).unwrap();
    let at = payload_offset(&bytes, 1, 0);
    let crafted: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    bytes[at..at + crafted.len()].copy_from_slice(&crafted);
    bytes
}

/// Found by the `decode` fuzz target: the SIMD intersection of arrays sized its output for
/// sorted arrays, where each value matches once. Values of a corrupt payload can match
/// many times (here one block of `a` against eight blocks of `b`, each holding seven of its
/// values), which overran that room and panicked on a bounds check. Such matches are now
/// dropped: a wrong answer, which the docs allow for corrupt payloads, never a panic.
#[test]
fn intersection_of_arrays_with_repeated_values_does_not_panic() {
    let a: Vec<u16> = (0..7).chain([100]).chain(200..208).collect();
    let b: Vec<u16> = (0..8).flat_map(|_| 0..8).collect();
    let (a, b) = (array_with_payload(&a), array_with_payload(&b));
    let (va, vb) = (
        FrozenBitmap::from_bytes(&a).unwrap(),
        FrozenBitmap::from_bytes(&b).unwrap(),
    );
    assert!(va.validate().is_ok() && vb.validate().is_err());
    let mut out = Vec::new();
    for (x, y) in [(&va, &vb), (&vb, &va)] {
        out.clear();
        let r = Writer::new().intersection_into(x, y, &mut out).unwrap();
        FrozenBitmap::from_bytes(&out[r]).unwrap();
        exercise(x, y);
    }
}

/// Found by the `decode` fuzzer: bytes whose header, read without checks, gives two
/// containers of key 0 (`from_bytes` rejects them; `from_bytes_unchecked` must stay
/// panic-free anyway, as the `decode` target demands). The many-way union wrote in place
/// after room for the inputs' distinct keys, two containers of one key came out of it, and
/// writing past that room panicked.
#[test]
fn many_way_union_of_repeated_keys_does_not_panic() {
    let bytes = [
        59, 48, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 49, 244, 51,
    ];
    assert!(FrozenBitmap::from_bytes(&bytes).is_err());
    // SAFETY: deliberately violated; the implementation is memory-safe regardless.
    let v = unsafe { FrozenBitmap::from_bytes_unchecked(&bytes) };
    let mut w = Writer::new();
    let mut out = Vec::new();
    for many in [
        Writer::union_many_into,
        Writer::symmetric_difference_many_into,
    ] {
        out.clear();
        let _ = many(&mut w, [&v, &v, &v], &mut out).unwrap();
    }
    exercise(&v, &v);
}

/// Found by the `decode` fuzzer: the pairwise union writes its result in place
/// after room for as many containers as the inputs' keys allow (`a + b − common`), counted
/// by walking the two directories; with the unordered keys of a view from
/// `from_bytes_unchecked`, that walk and the merge disagree, more containers came out than
/// the room, and laying out the result moved payloads past the end of the output.
#[test]
fn pairwise_union_with_unordered_keys_does_not_panic() {
    let bytes = [
        0, 1, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 11, 91, 88, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 59,
        48, 0, 0, 1, 0, 48, 0, 0, 5, 0, 0, 4, 64, 98, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10,
        252, 0, 1, 0, 57, 0, 0, 0, 0, 0, 0, 0, 190, 190, 190, 190, 190, 190, 190, 190, 190, 190,
        190, 190, 190, 190, 255, 255, 255, 255, 190, 190, 190, 190, 190, 190, 190, 190, 190, 190,
        190, 190, 190, 190, 190, 190, 190, 190, 190, 190, 190, 190, 190, 190, 190, 0, 0, 0, 0, 0,
        0,
    ];
    assert!(FrozenBitmap::from_bytes(&bytes).is_err());
    // SAFETY: deliberately violated; the implementation is memory-safe regardless.
    let v = unsafe { FrozenBitmap::from_bytes_unchecked(&bytes) };
    let mut reference_bytes = Vec::new();
    Writer::new()
        .write_sorted([1, 2, 3, 70_000, 70_001, 1 << 20], &mut reference_bytes)
        .unwrap();
    let reference = FrozenBitmap::from_bytes(&reference_bytes).unwrap();
    let mut w = Writer::new();
    let mut out = Vec::new();
    for (a, b) in [(&v, &reference), (&reference, &v), (&v, &v)] {
        for prefix in [0, 64] {
            for op in [
                Writer::intersection_into,
                Writer::union_into,
                Writer::difference_into,
                Writer::symmetric_difference_into,
            ] {
                out.clear();
                out.resize(prefix, 7);
                let r = op(&mut w, a, b, &mut out).unwrap();
                assert_eq!(&out[..prefix], &[7; 64][..prefix], "the prefix is kept");
                assert!(r.start >= prefix && r.end == out.len());
            }
        }
    }
    exercise(&v, &reference);
}

/// Every input a fuzz target once failed on (`tests/regressions/<target>/`), through the
/// same calls as the target: each must now give errors or answers, never a panic.
#[test]
fn fuzz_findings_stay_fixed() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let mut reference = Vec::new();
    Writer::new()
        .write_sorted([1, 2, 3, 70_000, 70_001, 1 << 20], &mut reference)
        .unwrap();
    let reference = FrozenBitmap::from_bytes(&reference).unwrap();
    let mut seen = 0;
    for target in ["decode", "decode_portable"] {
        let Ok(files) = std::fs::read_dir(dir.join(target)) else {
            continue;
        };
        for f in files {
            let bytes = std::fs::read(f.unwrap().path()).unwrap();
            try_all(&bytes, &reference);
            seen += 1;
        }
    }
    assert!(seen >= 1, "the committed regression inputs are read");
}
