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
