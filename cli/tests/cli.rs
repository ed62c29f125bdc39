//! End-to-end tests of the `frozen-roaring` command for every subcommand, including bad
//! arguments and missing or corrupt inputs.

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

/// `n` with thousands separators, as the tool prints counts.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
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
    assert!(
        summary.contains(&format!("{} values", thousands(total as u64))),
        "{summary}"
    );

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
    assert!(err.contains("wrong magic"), "{err}");
    assert!(err.contains("\"garb\""), "{err}");
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

    fails(&["query", "x.frf", "--and", "1", "--or", "2"], 2);
    fails(&["build", "-o", "x"], 2); // no source
    fails(&["query", "x.frf", "--and", "one"], 2);
    let help = ok(&["--help"]);
    assert!(help.contains("Exit codes"), "{help}");
}

// ---- The tool never loses data, and every error says what, where and why. ----

/// Runs the command with `stdin` as its standard input; returns (exit code, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let out = cmd().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The names in `dir`, sorted (to see that nothing was left behind).
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A small TSV and the file built from it.
fn built(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let tsv = dir.join("pairs.tsv");
    std::fs::write(&tsv, "1\t10\n1\t11\n2\t20\n3\t30\n3\t31\n3\t32\n").unwrap();
    let file = dir.join("pairs.frf");
    ok(&["build", "--from-tsv", p(&tsv), "-o", p(&file)]);
    (tsv, file)
}

#[test]
fn output_that_is_the_input_is_refused_and_the_input_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let tsv = tmp.path().join("p.tsv");
    let text = "1\t2\n1\t3\n5\t7\n";
    std::fs::write(&tsv, text).unwrap();
    let err = fails(&["build", "--from-tsv", p(&tsv), "-o", p(&tsv)], 1);
    assert!(err.contains("is the input"), "{err}");
    assert_eq!(std::fs::read_to_string(&tsv).unwrap(), text);
    // Through a symbolic link to the input.
    let link = tmp.path().join("link.frf");
    std::os::unix::fs::symlink(&tsv, &link).unwrap();
    let err = fails(&["build", "--from-tsv", p(&tsv), "-o", p(&link)], 1);
    assert!(err.contains("is the input"), "{err}");
    assert_eq!(std::fs::read_to_string(&tsv).unwrap(), text);
    // Through a hard link, and in the folder builds and conversions.
    let dir = tmp.path().join("txt");
    text_dir(&dir);
    let hard = tmp.path().join("hard.frf");
    std::fs::hard_link(dir.join("f1.txt"), &hard).unwrap();
    let before = std::fs::read(&hard).unwrap();
    let err = fails(&["build", "--from-text-dir", p(&dir), "-o", p(&hard)], 1);
    assert!(err.contains("is the input"), "{err}");
    assert_eq!(std::fs::read(&hard).unwrap(), before);
    let bin = tmp.path().join("one.bin");
    let mut bytes = Vec::new();
    Writer::new()
        .write_portable_sorted([1, 2, 3], &mut bytes)
        .unwrap();
    std::fs::write(&bin, &bytes).unwrap();
    let err = fails(&["convert", "--to", "frozen", p(&bin), "-o", p(&bin)], 1);
    assert!(err.contains("is the input"), "{err}");
    assert_eq!(std::fs::read(&bin).unwrap(), bytes);
}

#[test]
fn failed_build_leaves_the_previous_output_intact_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, file) = built(tmp.path());
    let before = std::fs::read(&file).unwrap();
    let bad = tmp.path().join("bad.tsv");
    std::fs::write(&bad, "1\t2\n4\t5\nnot a pair\n").unwrap();
    let err = fails(&["build", "--from-tsv", p(&bad), "-o", p(&file)], 1);
    assert!(err.contains("line 3"), "{err}");
    assert_eq!(std::fs::read(&file).unwrap(), before);
    // An external merge (several sorted runs) interrupted by an error late in the input.
    let many = tmp.path().join("many.tsv");
    let mut text: String = (0..1000).map(|i| format!("{}\t{i}\n", i % 17)).collect();
    text.push_str("7\t4294967296\n"); // not a u32
    std::fs::write(&many, text).unwrap();
    let err = fails(
        &[
            "build",
            "--from-tsv",
            p(&many),
            "-o",
            p(&file),
            "--chunk-pairs",
            "100",
        ],
        1,
    );
    assert!(err.contains("line 1001"), "{err}");
    assert_eq!(std::fs::read(&file).unwrap(), before);
}

#[test]
fn failed_build_and_convert_leave_no_file_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let bad = tmp.path().join("bad.tsv");
    std::fs::write(&bad, "1\t2\nx\ty\n").unwrap();
    fails(
        &["build", "--from-tsv", p(&bad), "-o", p(&out.join("a.frf"))],
        1,
    );
    // A folder of .bin files where the second is not a bitmap.
    let bins = tmp.path().join("bins");
    std::fs::create_dir(&bins).unwrap();
    let mut good = Vec::new();
    Writer::new()
        .write_portable_sorted([1, 2], &mut good)
        .unwrap();
    std::fs::write(bins.join("0.bin"), &good).unwrap();
    std::fs::write(bins.join("1.bin"), b"not a bitmap").unwrap();
    let err = fails(
        &[
            "convert",
            "--from-bin-dir",
            p(&bins),
            "-o",
            p(&out.join("b.frf")),
        ],
        1,
    );
    assert!(err.contains("1.bin"), "{err}");
    // A text folder with a bad value in its second file.
    let txt = tmp.path().join("txt");
    std::fs::create_dir(&txt).unwrap();
    std::fs::write(txt.join("a.txt"), "1,2,3").unwrap();
    std::fs::write(txt.join("b.txt"), "4,5\n6,x7,8").unwrap();
    let err = fails(
        &[
            "build",
            "--from-text-dir",
            p(&txt),
            "-o",
            p(&out.join("c.frf")),
        ],
        1,
    );
    assert!(err.contains("line 2 column 3"), "{err}");
    assert!(names(&out).is_empty(), "left behind: {:?}", names(&out));
}

#[test]
fn missing_files_and_folders_name_the_operation_path_and_cause() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing.frf");
    for args in [
        vec!["inspect", p(&missing)],
        vec!["validate", p(&missing)],
        vec!["query", p(&missing), "--or", "1"],
    ] {
        let err = fails(&args, 1);
        assert!(err.contains("cannot open"), "{err}");
        assert!(err.contains(p(&missing)), "{err}");
        assert!(err.contains("No such file or directory"), "{err}");
    }
    for args in [
        vec!["inspect", p(tmp.path())],
        vec!["validate", p(tmp.path())],
        vec!["query", p(tmp.path()), "--or", "1"],
    ] {
        let err = fails(&args, 1);
        assert!(err.contains(p(tmp.path())), "{err}");
        assert!(err.contains("folder"), "{err}");
    }
    let err = fails(
        &[
            "build",
            "--from-tsv",
            p(&tmp.path().join("nope.tsv")),
            "-o",
            p(&tmp.path().join("o")),
        ],
        1,
    );
    assert!(
        err.contains("cannot open") && err.contains("nope.tsv"),
        "{err}"
    );
    assert!(err.contains("No such file or directory"), "{err}");
}

#[test]
fn build_to_a_full_disk_names_the_path_and_the_cause() {
    if !Path::new("/dev/full").exists() {
        eprintln!("SKIPPED: no /dev/full on this system");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (tsv, _) = built(tmp.path());
    let err = fails(&["build", "--from-tsv", p(&tsv), "-o", "/dev/full"], 1);
    assert!(err.contains("cannot write /dev/full"), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
}

#[test]
fn single_bitmaps_are_recognized_by_inspect_validate_and_query() {
    let tmp = tempfile::tempdir().unwrap();
    let values: Vec<u32> = (0..5000)
        .map(|i| i * 3)
        .chain(1 << 20..(1 << 20) + 100)
        .collect();
    let mut w = Writer::new();
    let (mut frozen, mut portable, mut wide) = (Vec::new(), Vec::new(), Vec::new());
    w.write_sorted(values.iter().copied(), &mut frozen).unwrap();
    w.write_portable_sorted(values.iter().copied(), &mut portable)
        .unwrap();
    w.write_portable_sorted64([5u64, 1 << 40, (1 << 40) + 1], &mut wide)
        .unwrap();
    for (name, bytes, format) in [
        ("a.frb", &frozen, "frozen"),
        ("a.bin", &portable, "portable"),
    ] {
        let path = tmp.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let info = ok(&["inspect", p(&path)]);
        assert!(info.contains("5,100 values"), "{info}");
        assert!(info.contains(&format!("{format} format")), "{info}");
        assert!(info.contains("min 0, max 1048675"), "{info}");
        assert!(ok(&["validate", p(&path)]).starts_with("ok: one"), "{name}");
        let out = ok(&["query", p(&path), "--values", "3"]);
        assert_eq!(out, "5100\n0\n3\n6\n");
        // A single bitmap has no keys.
        fails(&["query", p(&path), "--and", "1"], 2);
        fails(&["inspect", p(&path), "1"], 2);
    }
    let path = tmp.path().join("wide.bin");
    std::fs::write(&path, &wide).unwrap();
    let info = ok(&["inspect", p(&path)]);
    assert!(info.contains("64-bit portable format, 3 values"), "{info}");
    assert!(info.contains("min 5, max 1099511627777"), "{info}");
    assert_eq!(
        ok(&["query", p(&path), "--values", "9"]),
        "3\n5\n1099511627776\n1099511627777\n"
    );
    // Where a bitmap file is required, a single bitmap is named as such.
    let fout = tmp.path().join("x.frf");
    let err = fails(
        &[
            "convert",
            "--to",
            "frozen",
            p(&tmp.path().join("wide.bin")),
            "-o",
            p(&fout),
        ],
        1,
    );
    assert!(err.contains("64-bit"), "{err}");
}

#[test]
fn a_truncated_file_is_reported_as_truncated() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, file) = built(tmp.path());
    let bytes = std::fs::read(&file).unwrap();
    let cut = tmp.path().join("cut.frf");
    std::fs::write(&cut, &bytes[..bytes.len() - 1]).unwrap();
    for cmd in ["inspect", "validate"] {
        let err = fails(&[cmd, p(&cut)], 1);
        assert!(
            err.contains("the file is truncated: its footer is missing"),
            "{err}"
        );
        assert!(err.contains(p(&cut)), "{err}");
    }
}

#[test]
fn a_flipped_payload_byte_fails_query_naming_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, file) = built(tmp.path());
    let lib = frozen_roaring::BitmapFile::open(&file).unwrap();
    assert!(lib.has_bitmap_checksums(), "checksums are on by default");
    // The first value byte of key 3's array (after its 16-byte header and one 12-byte entry).
    let (_, bm) = lib.get_index(2).unwrap().unwrap();
    let at = bm.as_bytes().as_ptr() as usize - lib.as_bytes().as_ptr() as usize + 16 + 12;
    drop(lib);
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[at] ^= 0x01;
    let bad = tmp.path().join("bad.frf");
    std::fs::write(&bad, &bytes).unwrap();
    let err = fails(&["query", p(&bad), "--or", "1,3"], 1);
    assert!(err.contains("key 3"), "{err}");
    assert!(err.contains("checksum mismatch"), "{err}");
    // Skipping the check is the user's explicit choice: the damaged value is then counted.
    let out = ok(&["query", p(&bad), "--or", "1,3", "--no-verify"]);
    assert_eq!(out.trim(), "5");
    let err = fails(&["validate", p(&bad)], 1);
    assert!(err.contains("checksum"), "{err}");
    // Built without checksums, query says once that damage goes unnoticed.
    let (tsv, _) = built(tmp.path());
    let plain = tmp.path().join("plain.frf");
    ok(&[
        "build",
        "--from-tsv",
        p(&tsv),
        "-o",
        p(&plain),
        "--no-checksums",
    ]);
    let (code, out, err) = run(&["query", p(&plain), "--or", "1,3"]);
    assert_eq!((code, out.trim()), (0, "5"));
    assert_eq!(err.matches("no bitmap checksums").count(), 1, "{err}");
}

#[test]
fn tsv_lines_with_more_or_fewer_than_two_fields_are_errors_with_the_line_number() {
    let tmp = tempfile::tempdir().unwrap();
    let tsv = tmp.path().join("x.tsv");
    let out = tmp.path().join("x.frf");
    for (text, line, fields) in [
        ("1\t2\n3\t4\t5\n", "line 2", "3 fields"),
        ("1\t2\n\n7\n", "line 3", "1 field "),
    ] {
        std::fs::write(&tsv, text).unwrap();
        let err = fails(&["build", "--from-tsv", p(&tsv), "-o", p(&out)], 1);
        assert!(err.contains(line) && err.contains(fields), "{err}");
    }
    assert!(!out.exists());
}

#[test]
fn an_empty_input_builds_an_empty_file_with_a_note() {
    let tmp = tempfile::tempdir().unwrap();
    let tsv = tmp.path().join("empty.tsv");
    std::fs::write(&tsv, "").unwrap();
    let out = tmp.path().join("e.frf");
    let (code, stdout, stderr) = run(&["build", "--from-tsv", p(&tsv), "-o", p(&out)]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("note: the input holds no values"),
        "{stderr}"
    );
    assert!(stdout.contains("0 keys, 0 values"), "{stdout}");
    assert!(!stdout.contains("bytes/value"), "{stdout}");
    assert_eq!(frozen_roaring::BitmapFile::open(&out).unwrap().len(), 0);
}

#[test]
fn duplicates_are_counted_and_counts_have_thousands_separators() {
    let tmp = tempfile::tempdir().unwrap();
    let tsv = tmp.path().join("d.tsv");
    let mut text: String = (0..12_345u32).map(|v| format!("9\t{v}\n")).collect();
    text.push_str("9\t5\n9\t6\n");
    std::fs::write(&tsv, text).unwrap();
    for chunk in ["100", "1000000"] {
        let out = tmp.path().join(format!("d{chunk}.frf"));
        let s = ok(&[
            "build",
            "--from-tsv",
            p(&tsv),
            "-o",
            p(&out),
            "--chunk-pairs",
            chunk,
        ]);
        assert!(
            s.contains("1 keys, 12,345 values (2 duplicates dropped)"),
            "{s}"
        );
    }
    let dir = tmp.path().join("txt");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("a.txt"), "5,3,3,1").unwrap();
    let s = ok(&[
        "build",
        "--from-text-dir",
        p(&dir),
        "-o",
        p(&tmp.path().join("t.frf")),
    ]);
    assert!(s.contains("3 values (1 duplicates dropped)"), "{s}");
}

#[test]
fn a_closed_stdout_ends_quietly_and_a_failed_stdout_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let tsv = tmp.path().join("big.tsv");
    let text: String = (0..200_000u32).map(|v| format!("1\t{v}\n")).collect();
    std::fs::write(&tsv, text).unwrap();
    let file = tmp.path().join("big.frf");
    ok(&["build", "--from-tsv", p(&tsv), "-o", p(&file)]);
    // `query ... | head -2`: the reader goes away after two lines.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("frozen-roaring"))
        .args(["query", p(&file), "--or", "1", "--values", "200000"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains("error") && !err.contains("Broken pipe"),
        "{err}"
    );
    // Standard output on a full disk: exit 1 with the cause.
    if Path::new("/dev/full").exists() {
        for args in [
            vec!["inspect", p(&file)],
            vec!["validate", p(&file)],
            vec!["query", p(&file), "--or", "1"],
        ] {
            let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("frozen-roaring"))
                .args(&args)
                .stdout(std::fs::File::create("/dev/full").unwrap())
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(1), "{args:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains("cannot write to standard output") && err.contains("No space left"),
                "{err}"
            );
        }
    }
}

#[test]
fn bad_argument_combinations_exit_2_with_the_usage_line() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, file) = built(tmp.path());
    for args in [
        vec!["query", p(&file), "--andnot", "1"],
        vec!["query", p(&file)],
    ] {
        let err = fails(&args, 2);
        assert!(err.contains("Usage:"), "{args:?}: {err}");
    }
    let err = fails(
        &[
            "build",
            "--from-tsv",
            "x.tsv",
            "-o",
            "y",
            "--key-map",
            "k.tsv",
        ],
        2,
    );
    assert!(err.contains("Usage:"), "{err}");
}

#[test]
fn inspect_prints_values_not_debug_forms() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, file) = built(tmp.path());
    let out = ok(&["inspect", p(&file), "3"]);
    assert!(out.contains("key 3: 3 values"), "{out}");
    assert!(out.contains("frozen format, with CRC32C checksum"), "{out}");
    assert!(out.contains("min 30, max 32"), "{out}");
    assert!(out.contains("first values: 30,31,32"), "{out}");
    assert!(
        !out.contains("Some(") && !out.contains("Frozen") && !out.contains("false"),
        "{out}"
    );
}

#[test]
fn no_clobber_keeps_an_existing_output_and_key_map_lists_every_file() {
    let tmp = tempfile::tempdir().unwrap();
    let (tsv, file) = built(tmp.path());
    let before = std::fs::read(&file).unwrap();
    let err = fails(
        &[
            "build",
            "--from-tsv",
            p(&tsv),
            "-o",
            p(&file),
            "--no-clobber",
        ],
        1,
    );
    assert!(err.contains("--no-clobber"), "{err}");
    assert_eq!(std::fs::read(&file).unwrap(), before);
    let dir = tmp.path().join("txt");
    text_dir(&dir);
    let map = tmp.path().join("keys.tsv");
    let out = ok(&[
        "build",
        "--from-text-dir",
        p(&dir),
        "-o",
        p(&tmp.path().join("t.frf")),
        "--key-map",
        p(&map),
    ]);
    assert!(out.contains("0 = f0.txt, 1 = f1.txt, 2 = f2.txt"), "{out}");
    let lines: Vec<String> = std::fs::read_to_string(&map)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[1], format!("1\t{}", dir.join("f1.txt").display()));
}

/// `inspect` on a Delta table folder, a DV file (first frame and `--offset`), a Puffin
/// file; `dv-mask` for deleted positions and kept ranges; a damaged DV fails with exit 1.
#[test]
fn deletion_vectors_inspected_and_masked() {
    use frozen_roaring::{DeletionVectorDescriptor, PuffinWriter, StorageType};
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("table");
    std::fs::create_dir_all(table.join("_delta_log")).unwrap();
    // A DV file with two frames after the version byte, named as the protocol derives it.
    let mut file = vec![1u8];
    let mut w = Writer::new();
    let a = w.write_deletion_vector([0u64, 9], &mut file).unwrap();
    let b = w
        .write_deletion_vector((100u64..200).chain([1 << 33]), &mut file)
        .unwrap();
    let d = |r: &std::ops::Range<usize>, card: u64| DeletionVectorDescriptor {
        storage_type: StorageType::Relative,
        path_or_inline_dv: "ab^-aqEH.-t@S}K{vb[*k^".into(),
        offset: Some(r.start as u64),
        size_in_bytes: (r.len() - 8) as u32,
        cardinality: card,
    };
    let name = d(&a, 2).relative_path().unwrap().unwrap();
    let dv_path = table.join(&name);
    std::fs::create_dir_all(dv_path.parent().unwrap()).unwrap();
    std::fs::write(&dv_path, &file).unwrap();
    let line = |data: &str, d: &DeletionVectorDescriptor| {
        format!(
            r#"{{"add":{{"path":"{data}","deletionVector":{{"storageType":"u","pathOrInlineDv":"{}","offset":{},"sizeInBytes":{},"cardinality":{}}}}}}}"#,
            d.path_or_inline_dv.replace('\\', "\\\\"),
            d.offset.unwrap(),
            d.size_in_bytes,
            d.cardinality
        )
    };
    let log = format!(
        "{}\n{}\n{{\"commitInfo\":{{}}}}\n",
        line("a.parquet", &d(&a, 2)),
        line("b.parquet", &d(&b, 101))
    );
    std::fs::write(table.join("_delta_log/00000000000000000001.json"), log).unwrap();
    let out = ok(&["inspect", table.to_str().unwrap()]);
    assert!(
        out.contains("a.parquet: ab/deletion_vector_d2c639aa"),
        "{out}"
    );
    assert!(
        out.contains("2 deleted rows (min 0, max 9), CRC-32 ok"),
        "{out}"
    );
    assert!(
        out.contains("101 deleted rows (min 100, max 8589934592)"),
        "{out}"
    );
    assert!(out.ends_with("2 deletion vectors, 0 invalid\n"), "{out}");

    let p = dv_path.to_str().unwrap();
    let out = ok(&["inspect", p]);
    assert!(
        out.contains("at offset 1: ") && out.contains("CRC-32 ok"),
        "{out}"
    );
    assert!(
        out.contains(&format!("next frame: offset {}", b.start)),
        "{out}"
    );
    let out = ok(&["inspect", p, "--offset", &b.start.to_string()]);
    assert!(out.contains("101 values"), "{out}");
    let err = fails(&["inspect", p, "--offset", "2"], 1);
    assert!(err.contains("offset 2"), "{err}");

    let masked = ok(&[
        "dv-mask",
        p,
        "--offset",
        &b.start.to_string(),
        "--range",
        "150..10000000000",
    ]);
    let want: String = (150..200)
        .chain([1u64 << 33])
        .map(|v| format!("{v}\n"))
        .collect();
    assert_eq!(masked, want);
    assert_eq!(
        ok(&["dv-mask", p, "--range", "0..12", "--live"]),
        "1..9\n10..12\n"
    );
    fails(&["dv-mask", p, "--range", "9..3"], 2);

    // A damaged frame: the table check reports it and fails.
    let mut bad = file.clone();
    bad[a.start + 9] ^= 0x40;
    std::fs::write(&dv_path, &bad).unwrap();
    let out = cmd()
        .args(["inspect", table.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("INVALID"));

    // Puffin: blobs listed with their data files; dv-mask by blob.
    let mut pw = PuffinWriter::new();
    pw.set_property("created-by", "cli test");
    pw.add_deletion_vector([3u64, 4, 5], "data/x.parquet")
        .unwrap();
    pw.add_deletion_vector([7u64], "data/y.parquet").unwrap();
    let puffin = dir.path().join("dv.puffin");
    std::fs::write(&puffin, pw.finish()).unwrap();
    let pp = puffin.to_str().unwrap();
    let out = ok(&["inspect", pp]);
    assert!(out.contains("2 blobs, created by \"cli test\""), "{out}");
    assert!(
        out.contains("data file data/y.parquet, 1 deleted rows"),
        "{out}"
    );
    assert_eq!(
        ok(&["dv-mask", pp, "--blob", "1", "--range", "0..100"]),
        "7\n"
    );
    fails(&["dv-mask", pp, "--blob", "5", "--range", "0..1"], 1);
}

/// `inspect`, `validate` and `query` on URLs read the file by ranges and print what they
/// print for the local file; `--stats` reports the requests and bytes. `file://` always;
/// `s3://` against moto's S3 server when `moto_server` can start (`.ci/run` installs it).
#[test]
fn urls_are_read_by_ranges_with_the_same_answers() {
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("f.frf");
    let mut w = frozen_roaring::FileWriter::new(Vec::new());
    for k in 0..500u64 {
        w.add_sorted(k, (0..(k as u32 % 50) + 1).map(|i| i * 3 + (k as u32 % 3)))
            .unwrap();
    }
    let bytes = w.finish().unwrap();
    std::fs::write(&local, &bytes).unwrap();
    let l = local.to_str().unwrap();
    let url = format!("file://{l}");
    let run = |file: &str, extra: &[&str]| {
        let mut args = vec![
            "query", file, "--and", "30,33,36", "--values", "5", "--stats",
        ];
        args.extend_from_slice(extra);
        let out = cmd().args(&args).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (want, _) = run(l, &[]);
    let (got, err) = run(&url, &[]);
    assert_eq!(got, want);
    assert!(
        err.contains("2 requests") && err.contains(" bytes"),
        "{err}"
    );
    let out = ok(&["validate", &url]);
    assert!(out.starts_with("ok: 500 bitmaps"), "{out}");
    let out = ok(&["inspect", &url, "31"]);
    assert_eq!(out, ok(&["inspect", l, "31"]));
    let err = fails(
        &[
            "query",
            &format!("file://{}/none.frf", dir.path().display()),
            "--or",
            "1",
        ],
        1,
    );
    assert!(err.contains("none.frf"), "{err}");

    // The same through an S3 server.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let Ok(mut moto) = std::process::Command::new("moto_server")
        .args(["-H", "127.0.0.1", "-p", &port.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    else {
        println!(
            "NOTE: moto_server cannot start; the s3:// part is skipped (pip install \"moto[server]\")"
        );
        return;
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "moto_server did not listen"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let endpoint = format!("http://127.0.0.1:{port}");
    let http = |method: &str, path: &str, body: &[u8]| {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(
            s,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .unwrap();
        s.write_all(body).unwrap();
        let mut reply = Vec::new();
        s.read_to_end(&mut reply).unwrap();
        assert!(
            reply.starts_with(b"HTTP/1.1 200"),
            "{}",
            String::from_utf8_lossy(&reply)
        );
    };
    http("PUT", "/bucket", b"");
    http("PUT", "/bucket/f.frf", &bytes);
    let s3 = |args: &[&str]| {
        let out = cmd()
            .args(args)
            .env("AWS_ENDPOINT", &endpoint)
            .env("AWS_ALLOW_HTTP", "true")
            .env("AWS_ACCESS_KEY_ID", "test")
            .env("AWS_SECRET_ACCESS_KEY", "test")
            .env("AWS_REGION", "us-east-1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (got, err) = s3(&[
        "query",
        "s3://bucket/f.frf",
        "--and",
        "30,33,36",
        "--values",
        "5",
        "--stats",
    ]);
    assert_eq!(got, want);
    assert!(err.contains("2 requests"), "{err}");
    let (out, _) = s3(&["inspect", "s3://bucket/f.frf", "31"]);
    assert_eq!(out, ok(&["inspect", l, "31"]));
    let (out, _) = s3(&["validate", "s3://bucket/f.frf"]);
    assert!(out.starts_with("ok: 500 bitmaps"), "{out}");
    let _ = moto.kill();
    let _ = moto.wait();
}
