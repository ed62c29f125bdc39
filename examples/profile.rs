//! A profiling harness: runs one operation in a loop over a real-data folder, for `perf`.
//!
//! ```text
//! cargo run --release --example profile -- (inter|contains|iter|to_vec|extend_into|build|and|or|xor|andnot|union_all|union_all_len|xor_all|diff_all, or cr_ and an operation for CRoaring, crv_ and an operation on its frozen views) ../shared/realdata/census1881
//! ```
//!
//! With `VS=<another operation>` the two alternate round by round and the medians of their
//! round times are compared (`VS=cr_union_all ... union_all DIR`): the machines here are
//! shared, and slow drifts then hit both alike. With `BLOCK=n` each takes the fastest of
//! n − 1 runs in a row (after one to warm the caches) in each round: hot-cache times, as
//! criterion's, still paired round by round.
//!
//! `profile sweep ROOT` does that for every operation against CRoaring's on every dataset
//! folder under `ROOT` (e.g. `../shared/realdata`) and prints the table of ratios,
//! CRoaring's time ÷ ours, each the median of the rounds' ratios (`ROUNDS`, default 30;
//! `BLOCK`, default 4; `ONLY=and,union_all` for some operations only):
//!
//! ```text
//! cargo build --release --example profile
//! target/release/examples/profile sweep ../shared/realdata
//! ```
//!
//! `profile queries ROOT` pairs the queries of [`QUERIES`] (subset and disjointness tests,
//! range counts and containment, skipping with `advance_to`) the same way.
//!
//! `profile reads ROOT` does the same for the read paths and conversions ([`READS`]:
//! `to_vec`, `iter` forward, backward and through `dyn Iterator`, `next_range`, `contains`,
//! `rank`, `select`, `write_portable`, `write_frozen`, the checked open, building) against CRoaring
//! and roaring-rs. Both sweeps also run on synthetic shapes that stress one container kind
//! each (`synthetic:<shape>` works as a `DIR` too; `SYNTH=0` skips them).

use std::time::Instant;

use frozen_roaring::{FrozenBitmap, Writer};

mod common;

/// The number of values an iterator's ranges cover, taken with `next_range` (ours and
/// roaring-rs's iterators have the method, but no trait in common).
macro_rules! range_total {
    ($it:expr) => {{
        let (mut it, mut n) = ($it, 0u64);
        while let Some(r) = it.next_range() {
            n += u64::from(r.end() - r.start()) + 1;
        }
        n
    }};
}

/// The sum of the values an iterator gives right after skipping to each of `probes` (in
/// ascending order) with `$skip` (`advance_to`, or CRoaring's `reset_at_or_after`).
macro_rules! skip_total {
    ($it:expr, $skip:ident, $probes:expr) => {{
        let (mut it, mut sum) = ($it, 0u64);
        for &p in $probes {
            it.$skip(p);
            sum += it.next().map_or(0, u64::from);
        }
        sum
    }};
}

/// For each bitmap of `$bitmaps` with its ranges in `$ranges`, how many of them it holds.
macro_rules! ranges_held {
    ($bitmaps:expr, $ranges:expr) => {
        $bitmaps
            .iter()
            .zip($ranges)
            .map(|(v, rs)| rs.iter().filter(|r| v.contains_range((*r).clone())).count() as u64)
            .sum()
    };
}

/// The sum of the values of each bitmap's windows (`range`, then `fold`).
macro_rules! windows_sum {
    ($bitmaps:expr, $windows:expr) => {
        $bitmaps
            .iter()
            .zip($windows)
            .map(|(v, ws)| {
                ws.iter()
                    .map(|r| v.range(r.clone()).fold(0u64, |a, x| a + u64::from(x)))
                    .sum::<u64>()
            })
            .sum()
    };
}

/// The values of each bitmap of `$bitmaps` in each of `$ranges`, summed.
macro_rules! ranges_len {
    ($bitmaps:expr, $ranges:expr) => {
        $bitmaps
            .iter()
            .map(|v| {
                $ranges
                    .iter()
                    .map(|r| v.range_cardinality(r.clone()))
                    .sum::<u64>()
            })
            .sum()
    };
}

/// Our operations and CRoaring's that the sweep pairs: on its frozen views for the pairwise
/// ones, on its owned bitmaps (`fast_or`, `fast_xor`, `andnot` of `fast_or`) for the
/// many-way ones. The union of all is paired three times: with `fast_or` on its frozen
/// views (as the criterion benchmark runs it) and on its owned bitmaps (its containers are
/// bitsets where ours are run containers), and with `fast_or` then `run_optimize` (the
/// same containers as ours).
const SWEEP: [(&str, &str); 10] = [
    ("and", "crv_and"),
    ("or", "crv_or"),
    ("xor", "crv_xor"),
    ("andnot", "crv_andnot"),
    ("inter", "crv_inter"),
    ("union_all", "crv_union_all"),
    ("union_all", "cr_union_all"),
    ("union_all", "cr_union_all_opt"),
    ("xor_all", "cr_xor_all"),
    ("diff_all", "cr_diff_all"),
];

/// The read paths and conversions that `profile reads ROOT` pairs, against CRoaring's frozen
/// views (`crv_`), its owned bitmaps (`cr_`) and roaring-rs's owned bitmaps (`rr_`). The
/// `_for` pair is a `for` loop (a `next` call per value, inlined or not as the compiler
/// decides); the `_dyn` pair iterates through `&mut dyn Iterator`, so `next` is an
/// out-of-line call for both, as it may be in a large program.
const READS: [(&str, &str); 17] = [
    ("to_vec", "crv_to_vec"),
    ("extend_into", "crv_to_vec"),
    ("iter", "rr_iter"),
    ("iter", "crv_iter"),
    ("iter_for", "rr_iter_for"),
    ("iter_back", "rr_iter_back"),
    ("iter_dyn", "rr_iter_dyn"),
    ("next_range", "rr_next_range"),
    ("contains", "rr_contains"),
    ("rank", "rr_rank"),
    ("select", "rr_select"),
    ("write_portable", "cr_portable"),
    ("write_frozen", "cr_frozen"),
    ("write_frozen", "memcpy_frozen"),
    ("open", "crv_open"),
    ("open_portable", "crv_open_portable"),
    ("build", "rr_build"),
];

/// The queries that `profile queries ROOT` pairs, against CRoaring's frozen views (`crv_`)
/// and roaring-rs's owned bitmaps (`rr_`): `subset` asks whether each consecutive pair's
/// intersection is a subset of the first (always so, so every container is compared),
/// `disjoint` whether consecutive bitmaps share no value, `range_len` counts the values in
/// ranges between two probes, `contains_range` asks for ranges that start at a value of the
/// set (of 1 to 32 values, so some hold), and `advance_to` skips through each bitmap to
/// each of the sorted probes and takes the next value (a skipping intersection's step),
/// `range_iter` sums the values of 64 windows per bitmap (`range`, of 1 to 4,033 values
/// from a value of the set).
const QUERIES: [(&str, &str); 11] = [
    ("subset", "crv_subset"),
    ("subset", "rr_subset"),
    ("disjoint", "crv_disjoint"),
    ("disjoint", "rr_disjoint"),
    ("range_len", "crv_range_len"),
    ("range_len", "rr_range_len"),
    ("contains_range", "crv_contains_range"),
    ("contains_range", "rr_contains_range"),
    ("advance_to", "crv_advance_to"),
    ("advance_to", "rr_advance_to"),
    ("range_iter", "rr_range_iter"),
];

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(op), Some(dir)) = (args.next(), args.next()) else {
        eprintln!(
            "usage: profile (inter|contains|iter|to_vec|extend_into|build|and|or|xor|andnot|union_all|union_all_len|xor_all|diff_all, or cr_ and an operation for CRoaring, crv_ and an operation on its frozen views) DIR, or profile sweep ROOT"
        );
        std::process::exit(2);
    };
    if op == "sweep" {
        return sweep(dir.as_ref(), &SWEEP);
    }
    if op == "reads" {
        return sweep(dir.as_ref(), &READS);
    }
    if op == "queries" {
        return sweep(dir.as_ref(), &QUERIES);
    }
    let vs = std::env::var("VS").ok();
    let wanted = [op.as_str(), vs.as_deref().unwrap_or("")];
    with_dataset(dir.as_ref(), &wanted, |run| {
        let rounds = env_number("ROUNDS", 500);
        // VS=<another operation>: the two alternate round by round (so that the machine's
        // slow drifts hit both alike), and the medians of their round times are compared.
        if let Some(vs) = &vs {
            let (m, t, r) = paired(run, &op, vs, rounds, env_number("BLOCK", 1));
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
            start.elapsed().as_secs_f64() * 1e6 / rounds as f64
        );
    });
}

/// `profile sweep ROOT` and `profile reads ROOT`: every pair of `table` on every dataset
/// folder under `root` and on the synthetic shapes (unless `SYNTH=0`; `SETS=a,b` for some
/// datasets only), as a Markdown table of the peer's time ÷ ours (each the median of the
/// rounds' ratios).
fn sweep(root: &std::path::Path, table: &[(&str, &str)]) {
    let (rounds, block) = (env_number("ROUNDS", 30), env_number("BLOCK", 4));
    let only = std::env::var("ONLY").ok();
    let ops: Vec<_> = table
        .iter()
        .filter(|(op, vs)| {
            only.as_deref()
                .is_none_or(|o| o.split(',').any(|x| x == *op || x == *vs))
        })
        .collect();
    let mut folders: Vec<_> = match std::fs::read_dir(root) {
        Ok(entries) => entries
            .map(|e| e.expect("a readable folder entry").path())
            .filter(|p| p.is_dir())
            .collect(),
        Err(e) => {
            eprintln!(
                "{}: not a readable folder ({e}); synthetic shapes only",
                root.display()
            );
            Vec::new()
        }
    };
    folders.sort();
    if std::env::var_os("SYNTH").is_none_or(|v| v != "0") {
        folders.extend(
            common::SHAPES
                .iter()
                .map(|s| format!("synthetic:{s}").into()),
        );
    }
    let sets = std::env::var("SETS").ok();
    folders.retain(|f| {
        let name = f.file_name().unwrap_or(f.as_os_str()).to_string_lossy();
        sets.as_deref()
            .is_none_or(|s| s.split(',').any(|x| name.ends_with(x)))
    });
    println!(
        "ROUNDS={rounds} BLOCK={block}: the peer's time ÷ ours, median of the rounds' ratios\n"
    );
    let names: Vec<_> = ops.iter().map(|(op, vs)| format!("{op} / {vs}")).collect();
    println!("| dataset | {} |", names.join(" | "));
    println!("| --- |{}", " --- |".repeat(ops.len()));
    for folder in folders {
        let name = folder
            .file_name()
            .unwrap_or(folder.as_os_str())
            .to_string_lossy()
            .into_owned();
        let wanted: Vec<&str> = ops.iter().flat_map(|(op, vs)| [*op, *vs]).collect();
        with_dataset(&folder, &wanted, |run| {
            let cells: Vec<String> = ops
                .iter()
                .map(|(op, vs)| format!("{:.2}", paired(run, op, vs, rounds, block).2))
                .collect();
            println!("| {name} | {} |", cells.join(" | "));
        });
    }
}

/// `op` and `vs` alternated for `rounds` rounds, each taking the fastest of `block − 1`
/// runs after a first one (or the one run with `block` 1): the median times of both, in
/// µs, and the median of the rounds' ratios (`vs`'s time ÷ `op`'s).
fn paired(
    run: &mut dyn FnMut(&str) -> u64,
    op: &str,
    vs: &str,
    rounds: usize,
    block: usize,
) -> (f64, f64, f64) {
    let block = block.max(1);
    let (mut mine, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..rounds.max(1) {
        for (o, times) in [(op, &mut mine), (vs, &mut theirs)] {
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
    // Each round's ratio too: the two halves of a round run back to back, so their ratio
    // drifts less than the separate medians when the machine's speed changes.
    let mut ratios: Vec<f64> = theirs.iter().zip(&mine).map(|(t, m)| t / m).collect();
    let r = median(&mut ratios);
    (median(&mut mine), median(&mut theirs), r)
}

/// Loads the dataset in `dir` (our views, CRoaring's bitmaps, and its frozen views or
/// roaring-rs's bitmaps if one of the `wanted` operations runs on them) and calls `f` with
/// the function that runs an operation on it once.
fn with_dataset(
    dir: &std::path::Path,
    wanted: &[&str],
    f: impl FnOnce(&mut dyn FnMut(&str) -> u64),
) {
    let crv = wanted.iter().any(|o| o.starts_with("crv_"));
    let sets = common::load_sets(dir);
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
    let crv_bytes: Vec<&'static [u8]> = if crv {
        cr.iter()
            .map(|b| {
                let mut buf = Vec::new();
                let _ = b.serialize_into_vec::<croaring::Frozen>(&mut buf);
                let size = b.get_serialized_size_in_bytes::<croaring::Frozen>();
                let buf: &'static [u8] = Vec::leak(buf);
                &buf[buf.len() - size..]
            })
            .collect()
    } else {
        Vec::new()
    };
    let crv: Vec<croaring::BitmapView<'static>> = crv_bytes
        .iter()
        // SAFETY: `serialize_into_vec` places the frozen bytes 32-byte aligned at the end
        // of the vector, which is leaked, so it outlives the view.
        .map(|bytes| unsafe { croaring::BitmapView::deserialize::<croaring::Frozen>(bytes) })
        .collect();
    // Our bitmaps in the portable format, for `write_frozen` (portable → frozen, what a
    // reader of another library's bytes does once).
    let portable: Vec<Vec<u8>> = views
        .iter()
        .map(|v| {
            let mut o = Vec::new();
            w.write_portable(v, &mut o).unwrap();
            o
        })
        .collect();
    let portable_views: Vec<_> = portable
        .iter()
        .map(|b| FrozenBitmap::from_bytes(b).unwrap())
        .collect();
    let mut bytes_out: Vec<u8> = Vec::new();
    let mut values_out: Vec<u32> = Vec::new();
    // roaring-rs's owned bitmaps, run-optimized as the benchmarks build them, for
    // `rr_contains`, `rr_inter` and the many-way `rr_union_all`, `rr_diff_all`.
    let rr: Vec<roaring::RoaringBitmap> = if wanted.iter().any(|o| o.starts_with("rr_")) {
        sets.iter()
            .map(|s| {
                let mut b = roaring::RoaringBitmap::from_sorted_iter(s.iter().copied()).unwrap();
                b.optimize();
                b
            })
            .collect()
    } else {
        Vec::new()
    };
    // For `subset`: the intersection of each consecutive pair, ours as frozen bytes,
    // CRoaring's as frozen views (leaked like the others), roaring-rs's owned.
    let subset = wanted.iter().any(|o| o.ends_with("subset"));
    let and_bufs: Vec<Vec<u8>> = if subset {
        views
            .windows(2)
            .map(|p| {
                let mut o = Vec::new();
                w.intersection_into(&p[0], &p[1], &mut o).unwrap();
                o
            })
            .collect()
    } else {
        Vec::new()
    };
    let and_views: Vec<_> = and_bufs
        .iter()
        .map(|b| FrozenBitmap::from_bytes(b).unwrap())
        .collect();
    let crv_and: Vec<croaring::BitmapView<'static>> = if subset && !crv.is_empty() {
        cr.windows(2)
            .map(|p| {
                let b = p[0].and(&p[1]);
                let mut buf = Vec::new();
                let _ = b.serialize_into_vec::<croaring::Frozen>(&mut buf);
                let size = b.get_serialized_size_in_bytes::<croaring::Frozen>();
                let buf: &'static [u8] = Vec::leak(buf);
                // SAFETY: as for `crv` above: frozen bytes CRoaring wrote, 32-byte aligned
                // at the end of a leaked vector.
                unsafe {
                    croaring::BitmapView::deserialize::<croaring::Frozen>(&buf[buf.len() - size..])
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    let rr_and: Vec<roaring::RoaringBitmap> = if subset {
        rr.windows(2).map(|p| &p[0] & &p[1]).collect()
    } else {
        Vec::new()
    };
    let mut sorted_probes = probes.clone();
    sorted_probes.sort_unstable();
    // For `range_len`: ranges between two consecutive probes, of every length.
    let ranges: Vec<core::ops::RangeInclusive<u32>> = probes
        .chunks_exact(2)
        .map(|p| p[0].min(p[1])..=p[0].max(p[1]))
        .collect();
    // For `contains_range`: per bitmap, 64 ranges of 1 to 32 values from one of its values.
    let set_ranges: Vec<Vec<core::ops::RangeInclusive<u32>>> = sets
        .iter()
        .map(|s| {
            (0..64u32)
                .filter_map(|k| {
                    let x = *s.get((probes[k as usize] as usize) % s.len().max(1))?;
                    Some(x..=x.saturating_add(k % 32))
                })
                .collect()
        })
        .collect();
    // For `range_iter`: per bitmap, 64 windows of 1 to 4,033 values from one of its values.
    let windows: Vec<Vec<core::ops::RangeInclusive<u32>>> = sets
        .iter()
        .map(|s| {
            (0..64u32)
                .filter_map(|k| {
                    let x = *s.get((probes[64 + k as usize] as usize) % s.len().max(1))?;
                    Some(x..=x.saturating_add(k * 64))
                })
                .collect()
        })
        .collect();
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
            "to_vec" => views.iter().map(|v| v.to_vec().len() as u64).sum(),
            "extend_into" => views
                .iter()
                .map(|v| {
                    values_out.clear();
                    v.extend_into(&mut values_out);
                    values_out.len() as u64
                })
                .sum(),
            "iter" => views.iter().map(|v| sum_values(v.iter())).sum(),
            "iter_back" => views.iter().map(|v| sum_values(v.iter().rev())).sum(),
            "iter_dyn" => views.iter().map(|v| sum_dyn(&mut v.iter())).sum(),
            "iter_for" => views.iter().map(|v| sum_for(v.iter())).sum(),
            "next_range" => views.iter().map(|v| range_total!(v.iter())).sum(),
            "rank" => views
                .iter()
                .map(|v| probes.iter().map(|&p| v.rank(p)).sum::<u64>())
                .sum(),
            // The probes taken as ranks below each bitmap's length.
            "select" => views
                .iter()
                .map(|v| {
                    let len = v.len().max(1);
                    probes
                        .iter()
                        .filter_map(|&p| v.select((u64::from(p) % len) as u32))
                        .map(u64::from)
                        .sum::<u64>()
                })
                .sum(),
            "open" => bufs
                .iter()
                .map(|b| FrozenBitmap::from_bytes(b).unwrap().container_count() as u64)
                .sum(),
            "open_portable" => portable
                .iter()
                .map(|b| FrozenBitmap::from_bytes(b).unwrap().container_count() as u64)
                .sum(),
            "write_portable" => views
                .iter()
                .map(|v| {
                    bytes_out.clear();
                    w.write_portable(v, &mut bytes_out).unwrap().len() as u64
                })
                .sum(),
            "write_frozen" => portable_views
                .iter()
                .map(|v| {
                    bytes_out.clear();
                    w.write_frozen(v, &mut bytes_out).unwrap().len() as u64
                })
                .sum(),
            "memcpy_frozen" => bufs
                .iter()
                .map(|b| {
                    bytes_out.clear();
                    bytes_out.extend_from_slice(b);
                    bytes_out.len() as u64
                })
                .sum(),
            "rr_iter" => rr.iter().map(|v| sum_values(v.iter())).sum(),
            "rr_iter_back" => rr.iter().map(|v| sum_values(v.iter().rev())).sum(),
            "rr_iter_dyn" => rr.iter().map(|v| sum_dyn(&mut v.iter())).sum(),
            "rr_iter_for" => rr.iter().map(|v| sum_for(v.iter())).sum(),
            "rr_next_range" => rr.iter().map(|v| range_total!(v.iter())).sum(),
            "rr_select" => rr
                .iter()
                .map(|v| {
                    let len = v.len().max(1);
                    probes
                        .iter()
                        .filter_map(|&p| v.select((u64::from(p) % len) as u32))
                        .map(u64::from)
                        .sum::<u64>()
                })
                .sum(),
            "rr_rank" => rr
                .iter()
                .map(|v| probes.iter().map(|&p| v.rank(p)).sum::<u64>())
                .sum(),
            "rr_build" => sets
                .iter()
                .map(|s| {
                    roaring::RoaringBitmap::from_sorted_iter(s.iter().copied())
                        .unwrap()
                        .len()
                })
                .sum(),
            "crv_iter" => crv.iter().map(|v| sum_values(v.iter())).sum(),
            "crv_open" => crv_bytes
                .iter()
                .map(|b| {
                    // SAFETY: frozen bytes CRoaring wrote, 32-byte aligned, leaked above.
                    let v = unsafe { croaring::BitmapView::deserialize::<croaring::Frozen>(b) };
                    u64::from(v.is_empty())
                })
                .sum(),
            "crv_open_portable" => portable
                .iter()
                .map(|b| {
                    // SAFETY: portable bytes (ours, which CRoaring's validating reader
                    // accepts: the interop tests), alive for the view's short life.
                    let v = unsafe { croaring::BitmapView::deserialize::<croaring::Portable>(b) };
                    u64::from(v.is_empty())
                })
                .sum(),
            "cr_portable" => cr
                .iter()
                .map(|b| {
                    bytes_out.clear();
                    b.serialize_into_vec::<croaring::Portable>(&mut bytes_out)
                        .len() as u64
                })
                .sum(),
            "cr_frozen" => cr
                .iter()
                .map(|b| {
                    bytes_out.clear();
                    b.serialize_into_vec::<croaring::Frozen>(&mut bytes_out)
                        .len() as u64
                })
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
            "rr_inter" => rr.windows(2).map(|p| p[0].intersection_len(&p[1])).sum(),
            "rr_union_all" => {
                use roaring::MultiOps;
                rr.iter().union().len()
            }
            "rr_diff_all" => {
                use roaring::MultiOps;
                rr.iter().difference().len()
            }
            "subset" => and_views
                .iter()
                .zip(&views)
                .filter(|(a, b)| a.is_subset(b))
                .count() as u64,
            "crv_subset" => crv_and
                .iter()
                .zip(&crv)
                .filter(|(a, b)| a.is_subset(b))
                .count() as u64,
            "rr_subset" => rr_and
                .iter()
                .zip(&rr)
                .filter(|(a, b)| a.is_subset(b))
                .count() as u64,
            "disjoint" => views.windows(2).filter(|p| p[0].is_disjoint(&p[1])).count() as u64,
            "crv_disjoint" => crv.windows(2).filter(|p| !p[0].intersect(&p[1])).count() as u64,
            "rr_disjoint" => rr.windows(2).filter(|p| p[0].is_disjoint(&p[1])).count() as u64,
            "range_len" => ranges_len!(views, ranges),
            "crv_range_len" => ranges_len!(crv, ranges),
            "rr_range_len" => ranges_len!(rr, ranges),
            "range_iter" => windows_sum!(views, &windows),
            "rr_range_iter" => windows_sum!(rr, &windows),
            "contains_range" => ranges_held!(views, &set_ranges),
            "crv_contains_range" => ranges_held!(crv, &set_ranges),
            "rr_contains_range" => ranges_held!(rr, &set_ranges),
            "advance_to" => views
                .iter()
                .map(|v| skip_total!(v.iter(), advance_to, &sorted_probes))
                .sum(),
            "crv_advance_to" => crv
                .iter()
                .map(|v| skip_total!(v.iter(), reset_at_or_after, &sorted_probes))
                .sum(),
            "rr_advance_to" => rr
                .iter()
                .map(|v| skip_total!(v.iter(), advance_to, &sorted_probes))
                .sum(),
            "crv_to_vec" => crv.iter().map(|v| v.to_vec().len() as u64).sum(),
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
            // The same containers as ours (canonical kinds): `fast_or`, then
            // `run_optimize`, which turns the run-like bitsets into run containers.
            "cr_union_all_opt" => {
                let refs: Vec<&croaring::Bitmap> = cr.iter().collect();
                let mut u = croaring::Bitmap::fast_or(&refs);
                u.run_optimize();
                u.cardinality()
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
            // The many-way ones on CRoaring's frozen views, as the criterion benchmarks
            // run them: its containers are copied out of the views as it goes.
            "crv_union_all" => {
                let refs: Vec<&croaring::Bitmap> = crv.iter().map(|v| &**v).collect();
                croaring::Bitmap::fast_or(&refs).cardinality()
            }
            _ => panic!("unknown operation {op}"),
        }
    };
    f(&mut run);
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

/// The wrapping sum of the values an iterator yields (the loop users write), kept out of
/// line so that it is compiled once per iterator type whatever the caller.
#[inline(never)]
fn sum_values(it: impl Iterator<Item = u32>) -> u64 {
    it.fold(0u64, |a, x| a.wrapping_add(u64::from(x)))
}

/// [`sum_values`] as a `for` loop, which calls `next` for each value (where `fold` lets
/// the iterator run its own loop).
#[inline(never)]
fn sum_for(it: impl Iterator<Item = u32>) -> u64 {
    let mut a = 0u64;
    for x in it {
        a = a.wrapping_add(u64::from(x));
    }
    a
}

/// [`sum_values`] through `&mut dyn Iterator`: every `next` an out-of-line call.
#[inline(never)]
fn sum_dyn(it: &mut dyn Iterator<Item = u32>) -> u64 {
    let mut a = 0u64;
    for x in it {
        a = a.wrapping_add(u64::from(x));
    }
    a
}
