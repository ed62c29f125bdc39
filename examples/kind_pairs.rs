//! Where a pairwise operation spends its time, by the kinds of the two containers and of
//! the result, next to CRoaring's time for the same containers.
//!
//! ```text
//! cargo run --release --example kind_pairs -- (and|or|xor|andnot) ../shared/realdata/census-income
//! ```
//!
//! For every key that two consecutive files of the folder share, each side's container is
//! written on its own as a one-container bitmap, and the operation is timed on that pair
//! (ours through the `*_into` form, into a reused buffer; CRoaring's on run-optimized
//! bitmaps), `REPS` times (200 unless set). The times are summed by the canonical kinds of
//! the two inputs and of our result (A array, B bitset, R run). Each time includes the
//! per-call cost of both libraries (ours: about 70 ns for two one-value bitmaps), which
//! the real operation pays once per pair of bitmaps, not per container. `ONLY=AAR` (say)
//! times only the pairs of one group, for a profiler. The timing is
//! interleaved pair by pair, so drifts of the machine's speed hit both alike; a group's
//! ratio is still only a guide where it holds few pairs.

use std::collections::BTreeMap;
use std::time::Instant;

use frozen_roaring::{FrozenBitmap, Writer};

mod common;

/// The low halves of the values of each key of a sorted set.
fn by_key(values: &[u32]) -> BTreeMap<u16, Vec<u32>> {
    let mut keys: BTreeMap<u16, Vec<u32>> = BTreeMap::new();
    for &v in values {
        keys.entry((v >> 16) as u16).or_default().push(v & 0xffff);
    }
    keys
}

/// The kind of the one container of `view` (or `-` for an empty result).
fn kind(view: &FrozenBitmap<'_>) -> char {
    let s = view.statistics();
    match (s.array_containers, s.bitset_containers, s.run_containers) {
        (1, 0, 0) => 'A',
        (0, 1, 0) => 'B',
        (0, 0, 1) => 'R',
        _ => '-',
    }
}

#[derive(Default)]
struct Group {
    pairs: u32,
    ours: f64,
    croaring: f64,
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(op), Some(dir)) = (args.next(), args.next()) else {
        eprintln!("usage: kind_pairs (and|or|xor|andnot) DIR");
        std::process::exit(2);
    };
    if !["and", "or", "xor", "andnot"].contains(&op.as_str()) {
        eprintln!("unknown operation {op}: and, or, xor or andnot");
        std::process::exit(2);
    }
    let reps: u32 = std::env::var("REPS").map_or(200, |v| v.parse().expect("REPS: a count"));
    let only = std::env::var("ONLY").ok();
    let sets = common::load_sets(dir.as_ref());
    let mut w = Writer::new();
    let mut groups: BTreeMap<(char, char, char), Group> = BTreeMap::new();
    let (mut ba, mut bb, mut out) = (Vec::new(), Vec::new(), Vec::new());
    for pair in sets.windows(2) {
        let (ka, kb) = (by_key(&pair[0]), by_key(&pair[1]));
        for (key, va) in &ka {
            let Some(vb) = kb.get(key) else { continue };
            ba.clear();
            bb.clear();
            w.write_sorted(va.iter().copied(), &mut ba)
                .expect("sorted values");
            w.write_sorted(vb.iter().copied(), &mut bb)
                .expect("sorted values");
            let x = FrozenBitmap::from_bytes(&ba).expect("a bitmap just written");
            let y = FrozenBitmap::from_bytes(&bb).expect("a bitmap just written");
            let mut cx = croaring::Bitmap::of(va);
            let mut cy = croaring::Bitmap::of(vb);
            cx.run_optimize();
            cy.run_optimize();
            let mut run_ours = |out: &mut Vec<u8>| {
                out.clear();
                match op.as_str() {
                    "and" => w.intersection_into(&x, &y, out),
                    "or" => w.union_into(&x, &y, out),
                    "xor" => w.symmetric_difference_into(&x, &y, out),
                    _ => w.difference_into(&x, &y, out),
                }
                .expect("views")
            };
            let result = run_ours(&mut out);
            let rk = kind(&FrozenBitmap::from_bytes(&out[result]).expect("our result"));
            let group: String = [kind(&x), kind(&y), rk].iter().collect();
            if only.as_ref().is_some_and(|o| *o != group) {
                continue;
            }
            let start = Instant::now();
            for _ in 0..reps {
                std::hint::black_box(run_ours(&mut out));
            }
            let ours = start.elapsed().as_secs_f64() * 1e6 / f64::from(reps);
            let start = Instant::now();
            for _ in 0..reps {
                std::hint::black_box(match op.as_str() {
                    "and" => cx.and(&cy),
                    "or" => cx.or(&cy),
                    "xor" => cx.xor(&cy),
                    _ => cx.andnot(&cy),
                });
            }
            let croaring = start.elapsed().as_secs_f64() * 1e6 / f64::from(reps);
            let g = groups.entry((kind(&x), kind(&y), rk)).or_default();
            g.pairs += 1;
            g.ours += ours;
            g.croaring += croaring;
        }
    }
    println!("inputs → result   pairs   ours µs   CRoaring µs   CRoaring ÷ ours");
    let mut total = Group::default();
    for ((a, b, r), g) in &groups {
        println!(
            "{a}{b} → {r}         {:6}  {:9.1}  {:12.1}  {:6.2}",
            g.pairs,
            g.ours,
            g.croaring,
            g.croaring / g.ours
        );
        total.pairs += g.pairs;
        total.ours += g.ours;
        total.croaring += g.croaring;
    }
    println!(
        "all              {:6}  {:9.1}  {:12.1}  {:6.2}",
        total.pairs,
        total.ours,
        total.croaring,
        total.croaring / total.ours
    );
}
