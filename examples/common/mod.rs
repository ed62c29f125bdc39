//! What the examples share: reading a folder of CRoaring-style text files.

use std::path::Path;

/// The sets of a folder of CRoaring's benchmark text files (one bitmap per file,
/// comma-separated sorted `u32` values), in the order of the files' names. Panics with a
/// message on a missing folder or a malformed file: the examples are tools, run by hand.
pub fn read_sets(dir: &Path) -> Vec<Vec<u32>> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: not a readable folder ({e})", dir.display()))
        .map(|e| e.expect("a readable folder entry").path())
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| {
            std::fs::read_to_string(f)
                .unwrap_or_else(|e| panic!("{}: not readable ({e})", f.display()))
                .trim()
                .split(',')
                .map(|x| {
                    x.trim()
                        .parse()
                        .unwrap_or_else(|_| panic!("{}: {x:?} is not a u32", f.display()))
                })
                .collect()
        })
        .collect()
}

/// The synthetic shapes that stress one container kind each, by name.
pub const SHAPES: [&str; 6] = [
    "one_run",
    "short_runs",
    "dense_bitsets",
    "one_per_container",
    "full_arrays",
    "small_bitmaps",
];

/// The sets of a synthetic shape (see [`SHAPES`]), from a fixed seed:
/// - `one_run`: 64 bitmaps, each one run of 65,536 values (a whole container);
/// - `short_runs`: 64 bitmaps of 16 containers of runs of 1 to 8 values with gaps of 1 to 8;
/// - `dense_bitsets`: 64 bitmaps of 16 containers with each value present at random, 1 in 2;
/// - `one_per_container`: 64 bitmaps of one value in each of 1,000 containers;
/// - `full_arrays`: 64 bitmaps of 16 arrays of 4,096 values;
/// - `small_bitmaps`: 4,000 bitmaps of one container of 1 to 300 values below 6,144 (short
///   posting lists).
pub fn synthetic(shape: &str) -> Vec<Vec<u32>> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut rnd = move |n: u32| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % u64::from(n)) as u32
    };
    let many = |count: usize, f: &mut dyn FnMut(usize) -> Vec<u32>| -> Vec<Vec<u32>> {
        (0..count).map(f).collect()
    };
    match shape {
        "one_run" => many(64, &mut |i| {
            let base = (i as u32 % 16) << 16;
            (base..base + 65_536).collect()
        }),
        "short_runs" => many(64, &mut |_| {
            let mut v = Vec::new();
            let mut at = rnd(8);
            while at < 16 << 16 {
                let len = 1 + rnd(8);
                v.extend(at..(at + len).min(16 << 16));
                at += len + 1 + rnd(8);
            }
            v
        }),
        "dense_bitsets" => many(64, &mut |_| (0..16 << 16).filter(|_| rnd(2) == 0).collect()),
        "one_per_container" => many(64, &mut |_| {
            (0..1000u32).map(|k| (k << 16) | rnd(65_536)).collect()
        }),
        "full_arrays" => many(64, &mut |_| {
            // One value in each aligned block of 16: exactly 4,096 per container.
            (0..16 * 4096u32).map(|j| j * 16 + rnd(16)).collect()
        }),
        "small_bitmaps" => many(4000, &mut |_| {
            let n = 1 + rnd(300);
            let mut v: Vec<u32> = (0..n).map(|_| rnd(6144)).collect();
            v.sort_unstable();
            v.dedup();
            v
        }),
        _ => panic!("unknown synthetic shape {shape} (one of {SHAPES:?})"),
    }
}

/// The sets named by `source`: `synthetic:<shape>` or a folder of text files.
pub fn load_sets(source: &Path) -> Vec<Vec<u32>> {
    match source.to_str().and_then(|s| s.strip_prefix("synthetic:")) {
        Some(shape) => synthetic(shape),
        None => read_sets(source),
    }
}
