//! The deletion vectors of the DV benchmark and its paired harness (`benches/dv.rs`,
//! `examples/dv_open.rs`): large DVs of one container kind each over the rows of one data
//! file.

/// Rows of the data file a DV applies to: a mask covers them all.
pub const ROWS: u64 = 1 << 20;

/// The benchmark's DV shapes.
pub const DV_SHAPES: [&str; 3] = ["sparse", "dense", "runs"];

/// The sorted positions of a DV of the given shape, from a seed:
/// - `sparse`: scattered deletes, arrays (about 30,000 positions);
/// - `dense`: half the rows deleted at random, bitsets (about 524,000 positions);
/// - `runs`: 400 deleted stretches (updates of row ranges) of up to 2,500 rows, run
///   containers (about 500,000 positions).
pub fn dv_positions(shape: &str, seed: u64) -> Vec<u64> {
    let mut x = seed | 1;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut v: Vec<u64> = match shape {
        "sparse" => (0..30_000).map(|_| rnd() % ROWS).collect(),
        "dense" => (0..ROWS).filter(|_| rnd() % 2 == 0).collect(),
        _ => (0..400)
            .flat_map(|_| {
                let s = rnd() % ROWS;
                s..(s + 1 + rnd() % 2500).min(ROWS)
            })
            .collect(),
    };
    v.sort_unstable();
    v.dedup();
    v
}
