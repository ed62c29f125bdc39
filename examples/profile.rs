//! A profiling harness: runs one operation in a loop over a real-data folder, for `perf`.
//!
//! ```text
//! cargo run --release --example profile -- (inter|contains|iter|build|and|or|xor|andnot|union_all|union_all_len|xor_all|diff_all, or cr_ and an operation for CRoaring, crv_ and an operation on its frozen views) ../shared/realdata/census1881
//! ```
//!
//! With `VS=<another operation>` the two alternate round by round and the medians of their
//! round times are compared (`VS=cr_union_all ... union_all DIR`): the machines here are
//! shared, and slow drifts then hit both alike. With `BLOCK=n` each takes the fastest of
//! n − 1 runs in a row (after one to warm the caches) in each round: hot-cache times, as
//! criterion's, still paired round by round.

use std::time::Instant;

use frozen_roaring::{FrozenBitmap, Writer};

mod common;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(op), Some(dir)) = (args.next(), args.next()) else {
        eprintln!("usage: profile (inter|contains|iter|build|and|or|xor|andnot|union_all|union_all_len|xor_all|diff_all, or cr_ and an operation for CRoaring, crv_ and an operation on its frozen views) DIR");
        std::process::exit(2);
    };
    let sets = common::read_sets(dir.as_ref());
    let mut w = Writer::new();
    let bufs: Vec<Vec<u8>> = sets
        .iter()
        .map(|v| {
            let mut o = Vec::new();
            w.write_sorted(v.iter().copied(), &mut o).unwrap();
            o
        })
        .collect();
    let views: Vec<_> = bufs
        .iter()
        .map(|b| FrozenBitmap::from_bytes(b).unwrap())
        .collect();
    let max = sets
        .iter()
        .filter_map(|s| s.last())
        .max()
        .copied()
        .unwrap_or(1);
    let probes: Vec<u32> = (0..1024u32)
        .map(|i| i.wrapping_mul(2_654_435_761) % (max + 1))
        .collect();
    let cr: Vec<croaring::Bitmap> = sets
        .iter()
        .map(|s| {
            let mut b = croaring::Bitmap::of(s);
            b.run_optimize();
            b
        })
        .collect();
    // CRoaring's frozen views (as the benchmarks use), for `crv_inter`: each serialized
    // 32-byte aligned at the end of its own buffer, which is leaked.
    let crv: Vec<croaring::BitmapView<'static>> =
        if op.starts_with("crv_") || std::env::var("VS").is_ok_and(|v| v.starts_with("crv_")) {
            cr.iter()
                .map(|b| {
                    let mut buf = Vec::new();
                    let _ = b.serialize_into_vec::<croaring::Frozen>(&mut buf);
                    let size = b.get_serialized_size_in_bytes::<croaring::Frozen>();
                    let buf: &'static [u8] = Vec::leak(buf);
                    let bytes = &buf[buf.len() - size..];
                    // SAFETY: `serialize_into_vec` places the frozen bytes 32-byte aligned at
                    // the end of the vector, which is leaked, so it outlives the view.
                    unsafe { croaring::BitmapView::deserialize::<croaring::Frozen>(bytes) }
                })
                .collect()
        } else {
            Vec::new()
        };
    // roaring-rs's owned bitmaps, for `rr_contains`.
    let rr: Vec<roaring::RoaringBitmap> = if op.starts_with("rr_") {
        sets.iter()
            .map(|s| roaring::RoaringBitmap::from_sorted_iter(s.iter().copied()).unwrap())
            .collect()
    } else {
        Vec::new()
    };
    let rounds: u32 = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(500);
    // RELAXED=1: set operations without canonical kinds (`Writer::with_canonical(false)`).
    if std::env::var_os("RELAXED").is_some_and(|v| v == "1") {
        w = Writer::new().with_canonical(false);
    }
    let mut out = Vec::new();
    let mut run = |op: &str| -> u64 {
        match op {
            "inter" => views
                .windows(2)
                .map(|w| w[0].intersection_len(&w[1]))
                .sum::<u64>(),
            "contains" => views
                .iter()
                .map(|v| probes.iter().filter(|&&p| v.contains(p)).count() as u64)
                .sum(),
            "iter" => views
                .iter()
                .map(|v| v.iter().fold(0u64, |a, x| a.wrapping_add(u64::from(x))))
                .sum(),
            "build" => sets
                .iter()
                .map(|s| {
                    out.clear();
                    w.write_sorted(s.iter().copied(), &mut out).unwrap().len() as u64
                })
                .sum(),
            "union_all" => {
                out.clear();
                w.union_many_into(&views, &mut out).unwrap().len() as u64
            }
            "union_all_len" => w.union_many_len(&views),
            "diff_all" => {
                out.clear();
                w.difference_many_into(&views, &mut out).unwrap().len() as u64
            }
            "xor_all" => {
                out.clear();
                w.symmetric_difference_many_into(&views, &mut out)
                    .unwrap()
                    .len() as u64
            }
            "and" | "or" | "xor" | "andnot" => views
                .windows(2)
                .map(|p| {
                    out.clear();
                    let r = match op {
                        "and" => w.intersection_into(&p[0], &p[1], &mut out),
                        "or" => w.union_into(&p[0], &p[1], &mut out),
                        "xor" => w.symmetric_difference_into(&p[0], &p[1], &mut out),
                        _ => w.difference_into(&p[0], &p[1], &mut out),
                    };
                    r.unwrap().len() as u64
                })
                .sum(),
            "rr_contains" => rr
                .iter()
                .map(|v| probes.iter().filter(|&&p| v.contains(p)).count() as u64)
                .sum(),
            "crv_contains" => crv
                .iter()
                .map(|v| probes.iter().filter(|&&p| v.contains(p)).count() as u64)
                .sum(),
            "cr_inter" => cr.windows(2).map(|p| p[0].and_cardinality(&p[1])).sum(),
            "crv_inter" => crv.windows(2).map(|p| p[0].and_cardinality(&p[1])).sum(),
            // The same pairs through CRoaring (owned bitmaps, or its frozen views, which
            // dereference to bitmaps), for a side-by-side figure.
            "cr_and" | "cr_or" | "cr_xor" | "cr_andnot" => {
                cr.windows(2).map(|p| cr_pair(&op[3..], &p[0], &p[1])).sum()
            }
            "crv_and" | "crv_or" | "crv_xor" | "crv_andnot" => crv
                .windows(2)
                .map(|p| cr_pair(&op[4..], &p[0], &p[1]))
                .sum(),
            "cr_union_all" => {
                let refs: Vec<&croaring::Bitmap> = cr.iter().collect();
                croaring::Bitmap::fast_or(&refs).cardinality()
            }
            "cr_diff_all" => {
                let refs: Vec<&croaring::Bitmap> = cr.iter().collect();
                refs[0]
                    .andnot(&croaring::Bitmap::fast_or(&refs[1..]))
                    .cardinality()
            }
            "cr_xor_all" => {
                let refs: Vec<&croaring::Bitmap> = cr.iter().collect();
                croaring::Bitmap::fast_xor(&refs).cardinality()
            }
            _ => panic!("unknown operation {op}"),
        }
    };
    // VS=<another operation>: the two alternate round by round (so that the machine's
    // slow drifts hit both alike), and the medians of their round times are compared.
    if let Ok(vs) = std::env::var("VS") {
        // BLOCK=n: each half of a round runs its operation n times and keeps the fastest
        // of the n − 1 after the first, a hot-cache time as criterion's loops measure
        // (the default, 1, times one run right after the other operation's).
        let block: usize = std::env::var("BLOCK")
            .ok()
            .and_then(|b| b.parse().ok())
            .unwrap_or(1)
            .max(1);
        let (mut mine, mut theirs) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            for (o, times) in [(op.as_str(), &mut mine), (vs.as_str(), &mut theirs)] {
                let mut best = f64::INFINITY;
                for k in 0..block {
                    let start = Instant::now();
                    std::hint::black_box(run(o));
                    if k > 0 || block == 1 {
                        best = best.min(start.elapsed().as_secs_f64() * 1e6);
                    }
                }
                times.push(best);
            }
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        // Each round's ratio too: the two halves of a round run back to back, so their
        // ratio drifts less than the separate medians when the machine's speed changes.
        let mut ratios: Vec<f64> = theirs.iter().zip(&mine).map(|(t, m)| t / m).collect();
        let r = median(&mut ratios);
        let (m, t) = (median(&mut mine), median(&mut theirs));
        println!(
            "{op} {m:.1} µs, {vs} {t:.1} µs: {vs} ÷ {op} = {:.2} (median of the rounds' ratios {r:.2})",
            t / m
        );
        return;
    }
    let start = Instant::now();
    let mut t = 0u64;
    for _ in 0..rounds {
        t += run(&op);
    }
    println!(
        "{op}: {t} ({:.1} µs per round)",
        start.elapsed().as_secs_f64() * 1e6 / f64::from(rounds)
    );
}

/// The cardinality of CRoaring's result of `op` (and, or, xor, andnot) on `a` and `b`.
fn cr_pair(op: &str, a: &croaring::Bitmap, b: &croaring::Bitmap) -> u64 {
    let r = match op {
        "and" => a.and(b),
        "or" => a.or(b),
        "xor" => a.xor(b),
        _ => a.andnot(b),
    };
    r.cardinality()
}
