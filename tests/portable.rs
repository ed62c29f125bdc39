//! The RoaringFormatSpec portable format: views over bytes other implementations wrote,
//! byte-identical output, conversion both ways, and hostile inputs.

mod common;
#[path = "common/exercise.rs"]
#[allow(dead_code)]
mod exercise;

use std::collections::BTreeSet;
use std::path::PathBuf;

use common::*;
use croaring::{Bitmap, Portable};
use frozen_roaring::{ErrorKind, Format, FrozenBitmap, Writer};

fn testdata(name: &str) -> Option<Vec<u8>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/testdata/croaring")
        .join(name);
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(_) => {
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "notice: {} not found, skipping this interchange check",
                path.display()
            );
            None
        }
    }
}

/// CRoaring's portable bytes for `values` after `run_optimize`.
fn croaring_portable(values: &[u32]) -> Vec<u8> {
    let mut cr = Bitmap::of(values);
    cr.run_optimize();
    cr.serialize::<Portable>()
}

/// Everything the portable path promises for one set: byte-identical writing, a view with
/// the same answers as the frozen view, and conversions that keep the bytes.
fn check_set(values: &[u32], seed: u64) {
    let mut writer = Writer::new();
    let expected = croaring_portable(values);

    let mut portable = vec![0xAA; 3]; // appends after existing bytes, no padding
    let range = writer
        .write_portable_sorted(values.iter().copied(), &mut portable)
        .unwrap();
    assert_eq!(range, 3..portable.len());
    assert!(
        portable[range.clone()] == expected[..],
        "portable bytes differ from CRoaring's for {} values",
        values.len()
    );

    let view = FrozenBitmap::from_bytes_strict(&portable[range.clone()]).unwrap();
    assert_eq!(view.format(), Format::Portable);
    let set: BTreeSet<u32> = values.iter().copied().collect();
    check_queries(&view, &set, seed);

    // Frozen <-> portable conversions keep the bytes of canonical inputs.
    let mut frozen_direct = Vec::new();
    writer
        .write_sorted(values.iter().copied(), &mut frozen_direct)
        .unwrap();
    let mut frozen = Vec::new();
    let r = writer.write_frozen(&view, &mut frozen).unwrap();
    assert_eq!(frozen[r.clone()], frozen_direct[..], "portable -> frozen");
    let frozen_view = FrozenBitmap::from_bytes(&frozen[r]).unwrap();
    let mut back = Vec::new();
    writer.write_portable(&frozen_view, &mut back).unwrap();
    assert_eq!(back, expected, "frozen -> portable");
    assert_eq!(writer.portable_size(&frozen_view), expected.len());
    assert_eq!(writer.portable_size(&view), expected.len());
    assert_eq!(view, frozen_view);
    check_pair(&view, &frozen_view, &set, &set);

    // CRoaring reads our bytes as the same set.
    let cr = Bitmap::try_deserialize::<Portable>(&portable[range]).unwrap();
    assert!(cr.iter().eq(values.iter().copied()));
}

#[test]
fn random_sets_match_croaring_bytes() {
    let mut rng = Rng(7);
    let shape = |rng: &mut Rng| match rng.below(9) {
        0 => Shape::Sparse(1),
        1 => Shape::Sparse(1 + rng.below(300) as u16),
        2 => Shape::Exact(4095 + rng.below(3) as u16),
        3 => Shape::Runs(1 + rng.below(8) as u16),
        4 => Shape::Runs(1 + rng.below(3000) as u16),
        5 => Shape::Full,
        6 => Shape::Dense,
        7 => Shape::Alternating,
        _ => Shape::Exact(1 + rng.below(8000) as u16),
    };
    check_set(&[], 0);
    for round in 0..if std::env::var_os("CI").is_some() {
        60
    } else {
        200
    } {
        let n = 1 + rng.below(if round % 5 == 0 { 40 } else { 6 }) as usize;
        let mut keys: Vec<u16> = (0..n).map(|_| rng.below(1 << 16) as u16).collect();
        keys.sort_unstable();
        keys.dedup();
        let parts: Vec<(u16, Shape, u64)> = keys
            .iter()
            .map(|&k| (k, shape(&mut rng), rng.next()))
            .collect();
        let set = build_set(&parts);
        let values: Vec<u32> = set.into_iter().collect();
        check_set(&values, round);
    }
}

#[test]
fn tiny_containers_take_croarings_kinds() {
    // 1 to 5 values in each of three containers, consecutive (a run is smaller from 4
    // values on) or spread out (always an array).
    for n in 1..=5u32 {
        for step in [1u32, 2] {
            let values: Vec<u32> = (0..3u32)
                .flat_map(|k| (0..n).map(move |i| (k << 16) + 7 + i * step))
                .collect();
            check_set(&values, u64::from(n));
        }
    }
}

#[test]
fn no_offset_header_with_fewer_than_four_run_containers() {
    // 1..=3 containers with a run: cookie 12347 and no offset header.
    for n in 1..=4u32 {
        let values: Vec<u32> = (0..n).flat_map(|k| (k << 16)..(k << 16) + 100).collect();
        let bytes = croaring_portable(&values);
        assert_eq!(&bytes[..2], &12347u16.to_le_bytes());
        let view = FrozenBitmap::from_bytes_strict(&bytes).unwrap();
        assert!(view.iter().eq(values.iter().copied()));
        assert_eq!(view.container_count(), n as usize);
        // The unchecked constructor finds the same containers.
        // SAFETY: CRoaring wrote these bytes; they are a valid portable bitmap.
        let unchecked = unsafe { FrozenBitmap::from_bytes_unchecked(&bytes) };
        assert!(unchecked.iter().eq(values.iter().copied()));
        check_set(&values, u64::from(n));
    }
}

#[test]
fn realdata_portable_matches_croaring() {
    let sets = realdata_sets();
    let mut writer = Writer::new();
    let mut out = Vec::new();
    for (_, files) in &sets {
        for (fi, path) in files.iter().enumerate() {
            let values = read_values(path);
            let expected = croaring_portable(&values);
            out.clear();
            writer
                .write_portable_sorted(values.iter().copied(), &mut out)
                .unwrap();
            assert!(out == expected, "{}: bytes differ", path.display());
            // Queries on CRoaring's bytes agree with the frozen view of the same set.
            let view = FrozenBitmap::from_bytes(&expected).unwrap();
            let mut frozen = Vec::new();
            writer.write_frozen(&view, &mut frozen).unwrap();
            let fv = FrozenBitmap::from_bytes_strict(&frozen).unwrap();
            assert_eq!(view.len(), fv.len());
            assert!(view.iter().eq(fv.iter()));
            let mut rng = Rng(fi as u64);
            for _ in 0..200 {
                let p = match rng.below(2) {
                    0 => values[rng.below(values.len() as u64) as usize].wrapping_add(1),
                    _ => rng.next() as u32,
                };
                assert_eq!(view.contains(p), fv.contains(p));
                assert_eq!(view.rank(p), fv.rank(p));
                let n = rng.below(values.len() as u64 + 1) as u32;
                assert_eq!(view.select(n), fv.select(n));
            }
            let mut back = Vec::new();
            writer.write_portable(&fv, &mut back).unwrap();
            assert!(back == expected, "{}: frozen -> portable", path.display());
        }
    }
}

#[test]
fn interchange_files_read_and_come_back_byte_for_byte() {
    let mut writer = Writer::new();
    for name in [
        "bitmapwithoutruns.bin",
        "bitmapwithruns.bin",
        "addoffsetinput.bin",
    ] {
        let Some(bytes) = testdata(name) else {
            continue;
        };
        let cr = Bitmap::try_deserialize::<Portable>(&bytes).unwrap();
        let view = FrozenBitmap::from_bytes_strict(&bytes).unwrap();
        assert_eq!(view.format(), Format::Portable);
        assert_eq!(view.len(), cr.cardinality(), "{name}");
        assert!(view.iter().eq(cr.iter()), "{name}");
        let set: BTreeSet<u32> = cr.iter().collect();
        check_queries(&view, &set, 1);

        let mut same = Vec::new();
        writer.write_portable(&view, &mut same).unwrap();
        assert!(same == bytes, "{name}: portable re-encoding");
        // Through the frozen format and back: kinds are kept, so even the file without
        // runs (not canonical) comes back byte for byte.
        let mut frozen = Vec::new();
        writer.write_frozen(&view, &mut frozen).unwrap();
        let fv = FrozenBitmap::from_bytes_strict(&frozen).unwrap();
        assert_eq!(
            fv.statistics().run_containers,
            view.statistics().run_containers
        );
        let mut back = Vec::new();
        writer.write_portable(&fv, &mut back).unwrap();
        assert!(back == bytes, "{name}: through the frozen format");
        // And CRoaring agrees about its own re-serialization.
        assert_eq!(
            cr.serialize::<Portable>(),
            bytes,
            "{name}: CRoaring round trip"
        );
    }
}

#[test]
fn crash_prone_inputs_give_typed_errors() {
    for i in 1..=7 {
        let name = format!("crashproneinput{i}.bin");
        let Some(bytes) = testdata(&name) else {
            continue;
        };
        let err = FrozenBitmap::from_bytes(&bytes).unwrap_err();
        assert!(
            matches!(
                err.kind(),
                ErrorKind::Truncated | ErrorKind::Malformed | ErrorKind::BadMagic
            ),
            "{name}: {err}"
        );
        assert!(FrozenBitmap::from_bytes_strict(&bytes).is_err(), "{name}");
        // Every prefix too.
        for len in 0..bytes.len().min(4096) {
            let _ = FrozenBitmap::from_prefix(&bytes[..len]);
        }
        // The unchecked constructor stays memory-safe on them (documented, not promised).
        // SAFETY: not upheld on purpose; the current implementation bounds-checks.
        let v = unsafe { FrozenBitmap::from_bytes_unchecked(&bytes) };
        let _ = (v.len(), v.iter().take(1000).count(), v.contains(7), v.max());
    }
}

/// Four containers with runs: the offset header is present and must agree with the
/// sequential positions.
fn four_run_containers() -> Vec<u8> {
    let values: Vec<u32> = (0..4u32).flat_map(|k| (k << 16)..(k << 16) + 100).collect();
    croaring_portable(&values)
}

#[test]
fn offset_header_must_agree_with_the_containers() {
    let good = four_run_containers();
    let n = 4;
    let offsets_at = 4 + 1 + 4 * n;
    assert!(FrozenBitmap::from_bytes_strict(&good).is_ok());
    for i in 0..n {
        // Swap two containers' offsets (both still in bounds): a view trusting the
        // header would read a different set than a sequential decoder.
        let mut bad = good.clone();
        let at = offsets_at + 4 * i;
        let v = u32::from_le_bytes(bad[at..at + 4].try_into().unwrap());
        bad[at..at + 4].copy_from_slice(&(v + 2).to_le_bytes());
        let err = FrozenBitmap::from_bytes(&bad).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Malformed, "{err}");
        assert_eq!(err.offset(), Some(at as u64));
        assert!(err.to_string().contains("offset header"), "{err}");
        // The writer refuses to convert it too.
        // SAFETY: not upheld on purpose: the writer must re-check.
        let v = unsafe { FrozenBitmap::from_bytes_unchecked(&bad) };
        assert!(Writer::new().write_frozen(&v, &mut Vec::new()).is_err());
        assert!(Writer::new().write_portable(&v, &mut Vec::new()).is_err());
    }
}

#[test]
fn crafted_headers() {
    let check = |bytes: &[u8], kind: ErrorKind, what: &str| {
        let err = FrozenBitmap::from_bytes(bytes).unwrap_err();
        assert_eq!(err.kind(), kind, "{what}: {err}");
        assert!(err.to_string().contains(what), "{what}: {err}");
    };
    // Empty bitmap: the 8-byte 12346 form.
    let empty = [0x3A, 0x30, 0, 0, 0, 0, 0, 0];
    let v = FrozenBitmap::from_bytes_strict(&empty).unwrap();
    assert!(v.is_empty() && v.format() == Format::Portable);
    check(&empty[..6], ErrorKind::Truncated, "container count");
    // A count far beyond the bytes: bounded before use, no allocation.
    let mut huge = empty;
    huge[4..8].copy_from_slice(&20_000_000u32.to_le_bytes());
    check(&huge, ErrorKind::Malformed, "container count");
    huge[4..8].copy_from_slice(&65536u32.to_le_bytes());
    check(&huge, ErrorKind::Truncated, "container descriptors");
    // Cookie 12347 with 65536 containers claimed and nothing else.
    check(
        &[0x3B, 0x30, 0xFF, 0xFF],
        ErrorKind::Truncated,
        "run-flag bitset",
    );
    // Keys not increasing.
    let mut two = Vec::new();
    Writer::new()
        .write_portable_sorted([1, 1 << 16], &mut two)
        .unwrap();
    two[8..10].copy_from_slice(&2u16.to_le_bytes());
    check(&two, ErrorKind::Malformed, "strictly increasing");
    // Trailing bytes: from_bytes refuses, from_prefix returns them.
    let mut tail = Vec::new();
    Writer::new()
        .write_portable_sorted([1, 2, 3], &mut tail)
        .unwrap();
    tail.extend_from_slice(b"xyz");
    check(&tail, ErrorKind::Malformed, "from_prefix");
    let (v, rest) = FrozenBitmap::from_prefix(&tail).unwrap();
    assert_eq!((v.len(), rest), (3, &b"xyz"[..]));
    // Zero runs in a run container.
    let values: Vec<u32> = (0..100).collect();
    let mut runs = croaring_portable(&values);
    let at = runs.len() - 6;
    runs[at..at + 2].copy_from_slice(&0u16.to_le_bytes());
    check(&runs, ErrorKind::Malformed, "run count");
}

#[test]
fn strict_mode_catches_payload_corruption() {
    // An unsorted array.
    let mut bytes = croaring_portable(&[1, 5, 9]);
    let n = bytes.len();
    bytes[n - 2..].copy_from_slice(&0u16.to_le_bytes());
    assert!(FrozenBitmap::from_bytes(&bytes).is_ok());
    let err = FrozenBitmap::from_bytes_strict(&bytes).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Corrupt, "{err}");
    // A bitset whose popcount is not its stored cardinality.
    let values: Vec<u32> = (0..10_000).map(|i| i * 3).collect();
    let mut bytes = croaring_portable(&values);
    let n = bytes.len();
    bytes[n - 1] ^= 0x80;
    assert!(FrozenBitmap::from_bytes(&bytes).is_ok());
    assert_eq!(
        FrozenBitmap::from_bytes_strict(&bytes).unwrap_err().kind(),
        ErrorKind::Corrupt
    );
}

#[test]
fn every_truncation_and_byte_flip_of_small_streams() {
    let mut writer = Writer::new();
    let sets: [&[u32]; 4] = [
        &[1, 5, 9],
        &[0, 1, 2, 3, 1 << 16, (1 << 16) + 2, 5 << 16],
        &[7, 8, 9, 70_000, 70_001, 140_000, 210_000, 210_001, 210_002],
        &[],
    ];
    for values in sets {
        let mut bytes = Vec::new();
        writer
            .write_portable_sorted(values.iter().copied(), &mut bytes)
            .unwrap();
        for len in 0..bytes.len() {
            assert!(FrozenBitmap::from_bytes(&bytes[..len]).is_err());
            exercise::check_open_agrees(&bytes[..len]);
        }
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut bad = bytes.clone();
                bad[i] ^= 1 << bit;
                exercise::check_open_agrees(&bad);
                if let Ok(v) = FrozenBitmap::from_bytes(&bad) {
                    // Whatever it reads, it must not panic, and strict answers are exact.
                    let _ = (v.len(), v.iter().count(), v.rank(70_000), v.select(2));
                    let mut out = Vec::new();
                    let _ = writer.write_frozen(&v, &mut out);
                    if let Ok(s) = FrozenBitmap::from_bytes_strict(&bad) {
                        assert_eq!(s.len(), s.iter().count() as u64);
                        let cr = Bitmap::try_deserialize::<Portable>(&bad);
                        assert!(cr.is_some_and(|cr| cr.iter().eq(s.iter())));
                    }
                }
            }
        }
    }
}

/// Found by the `decode_portable` fuzz target: cookie 12347 with no run container is valid
/// (the run-flag bitset is simply all zero) but is not what CRoaring writes. A portable
/// re-encoding copies it; a trip through the frozen format gives CRoaring's 12346 form.
#[test]
fn cookie_12347_without_runs() {
    // 1 container (count - 1 = 0), run flags 0, key 0, card 1, no offset header, value 512.
    let bytes = [0x3B, 0x30, 0, 0, 0, 0, 0, 0, 0, 0, 2];
    let v = FrozenBitmap::from_bytes_strict(&bytes).unwrap();
    assert_eq!(v.to_vec(), [512]);
    let cr = Bitmap::try_deserialize::<Portable>(&bytes).unwrap();
    assert!(cr.iter().eq(v.iter()));
    let mut w = Writer::new();
    let mut same = Vec::new();
    w.write_portable(&v, &mut same).unwrap();
    assert_eq!(same, bytes);
    let mut frozen = Vec::new();
    w.write_frozen(&v, &mut frozen).unwrap();
    let mut back = Vec::new();
    w.write_portable(&FrozenBitmap::from_bytes(&frozen).unwrap(), &mut back)
        .unwrap();
    assert_eq!(back, cr.serialize::<Portable>());
}

/// Found by the `decode_portable` fuzz target: bits of the run-flag bitset beyond the last
/// container are ignored (as CRoaring ignores them). The view reads the stream, a portable
/// re-encoding copies it, and CRoaring reads the same set.
#[test]
fn spare_run_flag_bits_are_ignored() {
    // Cookie 12347, 1 container; run flags 0b1101: container 0 is a run, bits 2 and 3 spare.
    let bytes = [
        0x3B, 0x30, 0, 0, 0b1101, // cookie, flags
        0, 0, 4, 0, // key 0, card - 1 = 4
        1, 0, 10, 0, 4, 0, // 1 run: 10..=14
    ];
    let v = FrozenBitmap::from_bytes_strict(&bytes).unwrap();
    assert_eq!(v.to_vec(), [10, 11, 12, 13, 14]);
    let cr = Bitmap::try_deserialize::<Portable>(&bytes).unwrap();
    assert!(cr.iter().eq(v.iter()));
    let mut same = Vec::new();
    Writer::new().write_portable(&v, &mut same).unwrap();
    assert_eq!(same, bytes);
}

#[test]
fn a_small_bitset_in_frozen_input_is_written_as_an_array() {
    // 5,000 even values: one bitset container. Keep its first 100 values and store that
    // count: structurally sound (strict validation refuses it), and the portable format
    // can only say so with an array.
    let values: Vec<u32> = (0..5000).map(|v| v * 2).collect();
    let mut bytes = Vec::new();
    Writer::new()
        .write_sorted(values.iter().copied(), &mut bytes)
        .unwrap();
    assert_eq!(
        FrozenBitmap::from_bytes(&bytes)
            .unwrap()
            .statistics()
            .bitset_containers,
        1
    );
    // One container: header (16 bytes), key at 16, stored cardinality - 1 at 18,
    // descriptor (payload offset << 2 | kind) at 20.
    let desc = u32::from_le_bytes(bytes[20..24].try_into().unwrap());
    let off = (desc >> 2) as usize;
    bytes[off + 25..off + 8192].fill(0); // values 0, 2, ..., 198 stay
    bytes[18..20].copy_from_slice(&99u16.to_le_bytes());
    assert!(FrozenBitmap::from_bytes_strict(&bytes).is_err());
    let expected = croaring_portable(&values[..100]);
    let checked = FrozenBitmap::from_bytes(&bytes).unwrap();
    // SAFETY: bytes `from_bytes` accepted.
    let unchecked = unsafe { FrozenBitmap::from_bytes_unchecked(&bytes) };
    for view in [checked, unchecked] {
        let mut out = Vec::new();
        let r = Writer::new().write_portable(&view, &mut out).unwrap();
        assert_eq!(out[r], expected[..]);
    }
}
