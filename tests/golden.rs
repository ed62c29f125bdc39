//! Compatibility: the writer still produces the committed golden files byte for byte, the
//! reader still reads them, and the worked example in `format-spec/FORMAT.md` is current.
//!
//! After an intended format change (which needs a new format version), regenerate with
//! `FROZEN_ROARING_BLESS=1 cargo test --test golden`.

mod common;

use std::path::PathBuf;

use frozen_roaring::{FrozenBitmap, Writer};

/// The worked example of the spec: an array container and a run container.
fn worked_example() -> Vec<u32> {
    [1, 5, 9].into_iter().chain(65_536..=66_535).collect()
}

/// The golden sets: name, values, checksum.
fn golden() -> Vec<(&'static str, Vec<u32>, bool)> {
    let mixed = common::build_set(&[
        (0, common::Shape::Sparse(10), 1),
        (1, common::Shape::Runs(3), 2),
        (2, common::Shape::Dense, 3),
        (65535, common::Shape::Sparse(2), 4),
    ]);
    vec![
        ("empty", vec![], false),
        ("single-max", vec![u32::MAX], false),
        ("worked-example", worked_example(), false),
        ("worked-example-crc", worked_example(), true),
        ("mixed-kinds", mixed.into_iter().collect(), false),
    ]
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("format-spec/golden")
}

fn bless() -> bool {
    std::env::var_os("FROZEN_ROARING_BLESS").is_some()
}

#[test]
fn writer_reproduces_golden_files_and_reader_reads_them() {
    for (name, values, checksum) in golden() {
        let mut out = Vec::new();
        Writer::new()
            .with_checksum(checksum)
            .write_sorted(values.iter().copied(), &mut out)
            .unwrap();
        let path = dir().join(format!("{name}.frb"));
        if bless() {
            std::fs::write(&path, &out).unwrap();
        }
        let stored = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            out, stored,
            "{name}: the writer's output changed; a format change needs a new version"
        );
        let bm = FrozenBitmap::from_bytes_strict(&stored).unwrap();
        assert_eq!(bm.to_vec(), values, "{name}: golden file reads differently");
        assert_eq!(bm.has_checksum(), checksum);
    }
}

/// `offset  16 bytes in hex` lines.
fn hexdump(bytes: &[u8]) -> String {
    bytes
        .chunks(16)
        .enumerate()
        .map(|(i, row)| {
            let hex: Vec<String> = row.iter().map(|b| format!("{b:02x}")).collect();
            format!("{:04x}  {}\n", i * 16, hex.join(" "))
        })
        .collect()
}

#[test]
fn worked_example_matches_spec() {
    let mut out = Vec::new();
    Writer::new()
        .write_sorted(worked_example(), &mut out)
        .unwrap();
    let spec_path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("format-spec/FORMAT.md");
    let spec = std::fs::read_to_string(&spec_path).unwrap();
    let (begin, end) = ("<!-- hexdump:begin -->\n", "<!-- hexdump:end -->");
    let start = spec.find(begin).expect("hexdump begin marker") + begin.len();
    let stop = spec.find(end).expect("hexdump end marker");
    let expected = format!("```\n{}```\n", hexdump(&out));
    if bless() {
        let updated = format!("{}{}{}", &spec[..start], expected, &spec[stop..]);
        std::fs::write(&spec_path, updated).unwrap();
        return;
    }
    assert_eq!(
        &spec[start..stop],
        expected,
        "FORMAT.md's worked example is out of date"
    );
}

/// The bitmap file of the golden file tests: three keys, each bitmap with its CRC32C.
fn golden_file() -> (Vec<u8>, Vec<(u64, Vec<u32>)>) {
    let sets = vec![
        (1u64, vec![1, 5, 9]),
        (7, worked_example()),
        (1 << 40, (0..70_000).step_by(2).collect()),
    ];
    let mut w = frozen_roaring::FileWriter::new(Vec::new());
    for (k, s) in &sets {
        w.add_sorted(*k, s.iter().copied()).unwrap();
    }
    (w.finish().unwrap(), sets)
}

/// The same file as version 1 wrote it: version bytes 1, footer checksum over the footer's
/// first 20 bytes alone.
fn as_version_1(mut bytes: Vec<u8>) -> Vec<u8> {
    let n = bytes.len();
    bytes[4] = 1;
    bytes[n - 8] = 1;
    let crc = crc32c(&bytes[n - 32..n - 12]);
    bytes[n - 12..n - 8].copy_from_slice(&crc.to_le_bytes());
    bytes
}

/// CRC32C, bit by bit (Castagnoli polynomial, reflected), independent of the crate's.
fn crc32c(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0x82F6_3B78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn bitmap_files_of_both_versions_read_and_the_writer_reproduces_version_2() {
    let (out, sets) = golden_file();
    let v2 = dir().join("three-keys.frf");
    let v1 = dir().join("three-keys-v1.frf");
    if bless() {
        std::fs::write(&v2, &out).unwrap();
        std::fs::write(&v1, as_version_1(out.clone())).unwrap();
    }
    let stored = std::fs::read(&v2).unwrap();
    assert_eq!(
        out, stored,
        "the file writer's output changed; a format change needs a new version"
    );
    // Version 2's footer checksum covers the header: the CRC of header + footer[..20].
    let n = stored.len();
    let mut covered = stored[..16].to_vec();
    covered.extend_from_slice(&stored[n - 32..n - 12]);
    assert_eq!(stored[n - 12..n - 8], crc32c(&covered).to_le_bytes());
    for bytes in [stored, std::fs::read(&v1).unwrap()] {
        let file = frozen_roaring::BitmapFile::from_bytes(&bytes[..]).unwrap();
        file.verify().unwrap();
        assert!(file.has_bitmap_checksums());
        assert_eq!(file.len(), sets.len());
        for (k, s) in &sets {
            assert_eq!(file.get_verified(*k).unwrap().unwrap().to_vec(), *s);
        }
    }
}

/// The worked example in the portable formats (32-bit, and 64-bit with a second bucket), as
/// CRoaring writes them: golden files that the big-endian Miri run compares with too.
#[test]
fn portable_golden_files_are_croarings_bytes() {
    let values = worked_example();
    let mut portable = Vec::new();
    Writer::new()
        .write_portable_sorted(values.iter().copied(), &mut portable)
        .unwrap();
    let mut cr = croaring::Bitmap::of(&values);
    cr.run_optimize();
    assert_eq!(portable, cr.serialize::<croaring::Portable>());
    let wide: Vec<u64> = values
        .iter()
        .map(|&v| u64::from(v))
        .chain([(3 << 32) + 7])
        .collect();
    let mut portable64 = Vec::new();
    Writer::new()
        .write_portable_sorted64(wide.iter().copied(), &mut portable64)
        .unwrap();
    let mut cr64 = croaring::Bitmap64::of(&wide);
    cr64.run_optimize();
    assert_eq!(portable64, cr64.serialize::<croaring::Portable>());
    for (name, bytes) in [
        ("worked-example.bin", &portable),
        ("worked-example64.bin", &portable64),
    ] {
        let path = dir().join(name);
        if bless() {
            std::fs::write(&path, bytes).unwrap();
        }
        assert_eq!(&std::fs::read(&path).unwrap(), bytes, "{name}");
    }
}
