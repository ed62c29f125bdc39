//! End-to-end tests of the `frozen-roaring` command for every subcommand, including bad
//! arguments and missing or corrupt inputs.
#![cfg(feature = "cli")]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use assert_cmd::Command;
use frozen_roaring::{FrozenBitmap, Writer};

fn cmd() -> Command {
    Command::cargo_bin("frozen-roaring").unwrap()
}

/// Runs the command, expects success, returns stdout.
fn ok(args: &[&str]) -> String {
    let out = cmd().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs the command, expects exit code `code` and a one-line error; returns stderr.
fn fails(args: &[&str], code: i32) -> String {
    let out = cmd().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(code), "{args:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    if code == 1 {
        assert!(err.starts_with("error: "), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    }
    err
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Three text files, as in CRoaring's real-data folders.
fn text_dir(dir: &Path) -> Vec<BTreeSet<u32>> {
    let sets: Vec<BTreeSet<u32>> = vec![
        (0..1000).step_by(3).collect(),
        (0..200_000).step_by(2).collect(),
        [5, 6, 999, 70_000, 4_000_000_000].into_iter().collect(),
    ];
    std::fs::create_dir_all(dir).unwrap();
    for (i, s) in sets.iter().enumerate() {
        let text: Vec<String> = s.iter().map(|v| v.to_string()).collect();
        std::fs::write(dir.join(format!("f{i}.txt")), text.join(",")).unwrap();
    }
    sets
}

#[test]
fn build_inspect_validate_query_from_text() {
    let tmp = tempfile::tempdir().unwrap();
    let sets = text_dir(&tmp.path().join("txt"));
    let file = tmp.path().join("out.frf");
    let summary = ok(&[
        "build",
        "--from-text-dir",
        p(&tmp.path().join("txt")),
        "-o",
        p(&file),
    ]);
    assert!(summary.contains("3 keys"), "{summary}");
    let total: usize = sets.iter().map(|s| s.len()).sum();
    assert!(summary.contains(&format!("{total} values")), "{summary}");

    let info = ok(&["inspect", p(&file)]);
    assert!(info.contains("keys: 3"), "{info}");
    let one = ok(&["inspect", p(&file), "2"]);
    assert!(one.contains("key 2: 5 values"), "{one}");
    assert!(ok(&["validate", p(&file)]).starts_with("ok: 3 bitmaps"));

    let and: BTreeSet<u32> = sets[0].intersection(&sets[1]).copied().collect();
    let out = ok(&["query", p(&file), "--and", "0,1", "--values", "5"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], and.len().to_string());
    let first: Vec<String> = and.iter().take(5).map(|v| v.to_string()).collect();
    assert_eq!(&lines[1..], &first[..]);

    let or: BTreeSet<u32> = sets.iter().flatten().copied().collect();
    let out = ok(&["query", p(&file), "--or", "0,1,2"]);
    assert_eq!(out.trim(), or.len().to_string());
    let andnot = sets[1].difference(&sets[0]).count();
    let out = ok(&["query", p(&file), "--andnot", "1,0"]);
    assert_eq!(out.trim(), andnot.to_string());

    // Errors: unknown key, missing file, corrupt file.
    let err = fails(&["query", p(&file), "--and", "0,9"], 1);
    assert!(err.contains("key 9"), "{err}");
    fails(&["inspect", p(&file), "9"], 1);
    let missing = tmp.path().join("missing.frf");
    fails(&["validate", p(&missing)], 1);
    fails(&["query", p(&missing), "--or", "1"], 1);
    let mut bytes = std::fs::read(&file).unwrap();
    let n = bytes.len();
    bytes[n - 40] ^= 0xFF; // in the directory
    let bad = tmp.path().join("bad.frf");
    std::fs::write(&bad, &bytes).unwrap();
    let err = fails(&["validate", p(&bad)], 1);
    assert!(err.contains("checksum"), "{err}");
    fails(&["inspect", p(&bad)], 1);
    std::fs::write(&bad, &bytes[..n / 2]).unwrap();
    fails(&["validate", p(&bad)], 1);
    // A payload byte: the file opens but validate finds it.
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[40] ^= 0x01;
    std::fs::write(&bad, &bytes).unwrap();
    fails(&["validate", p(&bad)], 1);
}

#[test]
fn build_from_tsv_in_any_order_with_external_merge() {
    let tmp = tempfile::tempdir().unwrap();
    let mut model: BTreeMap<u64, BTreeSet<u32>> = BTreeMap::new();
    let mut lines = Vec::new();
    let mut x = 12345u64;
    for _ in 0..5000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let key = (x >> 60) * 1_000_000_007;
        let v = ((x >> 20) % 100_000) as u32;
        model.entry(key).or_default().insert(v);
        lines.push(format!("{key}\t{v}"));
        if x.is_multiple_of(7) {
            lines.push(format!("{key}\t{v}")); // duplicates are fine
        }
    }
    let tsv = tmp.path().join("pairs.tsv");
    std::fs::write(&tsv, lines.join("\n")).unwrap();
    for chunk in ["3", "1000000"] {
        let file = tmp.path().join(format!("tsv{chunk}.frf"));
        ok(&[
            "build",
            "--from-tsv",
            p(&tsv),
            "-o",
            p(&file),
            "--chunk-pairs",
            chunk,
            "--checksums",
        ]);
        ok(&["validate", p(&file)]);
        let f = frozen_roaring::BitmapFile::open(&file).unwrap();
        assert!(f.keys().eq(model.keys().copied()));
        for (k, s) in &model {
            assert!(f.get(*k).unwrap().unwrap().iter().eq(s.iter().copied()));
        }
    }
    std::fs::write(&tsv, "1\t2\nnot a pair\n").unwrap();
    let err = fails(
        &[
            "build",
            "--from-tsv",
            p(&tsv),
            "-o",
            p(&tmp.path().join("x")),
        ],
        1,
    );
    assert!(err.contains("line 2"), "{err}");
}

#[test]
fn convert_single_bitmaps_and_folders() {
    let tmp = tempfile::tempdir().unwrap();
    let values: Vec<u32> = (0..100_000).chain(500_000..500_010).collect();
    let mut portable = Vec::new();
    Writer::new()
        .write_portable_sorted(values.iter().copied(), &mut portable)
        .unwrap();
    let (pin, fout, pout) = (
        tmp.path().join("a.bin"),
        tmp.path().join("a.frb"),
        tmp.path().join("b.bin"),
    );
    std::fs::write(&pin, &portable).unwrap();
    ok(&["convert", "--to", "frozen", p(&pin), "-o", p(&fout)]);
    let frozen = std::fs::read(&fout).unwrap();
    assert!(
        FrozenBitmap::from_bytes_strict(&frozen)
            .unwrap()
            .iter()
            .eq(values.iter().copied())
    );
    ok(&["convert", "--to", "portable", p(&fout), "-o", p(&pout)]);
    assert_eq!(std::fs::read(&pout).unwrap(), portable);

    // A folder of portable files -> one bitmap file.
    let dir = tmp.path().join("bins");
    std::fs::create_dir(&dir).unwrap();
    for k in 0..4u32 {
        let mut b = Vec::new();
        Writer::new()
            .write_portable_sorted((k..1000).step_by(k as usize + 1), &mut b)
            .unwrap();
        std::fs::write(dir.join(format!("{k}.bin")), b).unwrap();
    }
    let file = tmp.path().join("bins.frf");
    ok(&["convert", "--from-bin-dir", p(&dir), "-o", p(&file)]);
    let out = ok(&["query", p(&file), "--or", "0,1,2,3"]);
    assert_eq!(out.trim(), "1000");

    // Errors.
    fails(
        &[
            "convert",
            "--to",
            "frozen",
            p(&tmp.path().join("nope.bin")),
            "-o",
            p(&fout),
        ],
        1,
    );
    std::fs::write(&pin, b"garbage!").unwrap();
    let err = fails(&["convert", "--to", "frozen", p(&pin), "-o", p(&fout)], 1);
    assert!(err.contains("not a Roaring bitmap"), "{err}");
    fails(
        &[
            "convert",
            "--from-bin-dir",
            p(&tmp.path().join("none")),
            "-o",
            p(&file),
        ],
        1,
    );
}

#[test]
fn demo_runs_on_a_small_corpus() {
    let out = ok(&["demo", "--docs", "50000", "--terms", "300"]);
    assert!(out.contains("built 300 bitmaps"), "{out}");
    assert!(out.contains("check: |term 1 AND term 2|"), "{out}");
}

#[test]
fn bad_arguments_exit_with_2() {
    fails(&[], 2);
    fails(&["frobnicate"], 2);
    fails(&["query", "x.frf"], 2); // no operation
    fails(&["query", "x.frf", "--and", "1", "--or", "2"], 2);
    fails(&["build", "-o", "x"], 2); // no source
    fails(&["query", "x.frf", "--and", "one"], 2);
    let help = ok(&["--help"]);
    assert!(help.contains("Exit codes"), "{help}");
}
