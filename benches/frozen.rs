//! Side-by-side benchmarks against CRoaring (`croaring`: frozen and portable views, owned
//! bitmaps) and roaring-rs (`roaring`: owned), on every real-roaring dataset present
//! (`$FROZEN_ROARING_REALDATA`, else `../shared/realdata`; a generated dataset otherwise),
//! on synthetic shapes that stress one container kind each (`synthetic-*`; `FR_SYNTHETIC=0`
//! skips them) and on Go roaring's serialization sets (`../shared/seedbench`).
//!
//! ```text
//! cargo bench --bench frozen                 # everything (about 10 minutes)
//! cargo bench --bench frozen -- census1881   # one dataset
//! python3 benches/report.py                  # ratio tables from target/criterion
//! ```
//!
//! Every benchmark processes a whole dataset (all its bitmaps, or all consecutive pairs),
//! as CRoaring's own real-data benchmarks do. Allocations per operation are counted once
//! per benchmark with a counting allocator and written to
//! `target/criterion/allocations.tsv`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use croaring::{Bitmap, BitmapView, Frozen, Portable};
use frozen_roaring::{FrozenBitmap, Writer};
use roaring::RoaringBitmap;

/// The synthetic shapes, shared with the profile harness.
#[allow(dead_code)] // the harness reads folders too
#[path = "../examples/common/mod.rs"]
mod common;

struct Counting;
static ALLOCS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards to the system allocator; only counts calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is forwarded unchanged.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: the caller's contract is forwarded unchanged.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is forwarded unchanged.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Records how many allocations one run of `f` makes per bitmap (or pair).
fn record_allocs(group: &str, name: &str, per: usize, mut f: impl FnMut()) {
    f(); // warm up reusable buffers
    let before = ALLOCS.load(Ordering::Relaxed);
    f();
    let n = ALLOCS.load(Ordering::Relaxed) - before;
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/criterion");
    let _ = std::fs::create_dir_all(&dir);
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("allocations.tsv"))
    {
        let _ = writeln!(file, "{group}\t{name}\t{:.3}", n as f64 / per.max(1) as f64);
    }
}

/// One dataset: its bitmaps' values.
struct Dataset {
    name: String,
    sets: Vec<Vec<u32>>,
}

fn read_values(path: &Path) -> Vec<u32> {
    let text = std::fs::read_to_string(path).unwrap();
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect()
}

fn datasets() -> Vec<Dataset> {
    let dir = std::env::var_os("FROZEN_ROARING_REALDATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/realdata"));
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten() {
            if !e.path().is_dir() {
                continue;
            }
            let mut files: Vec<PathBuf> = std::fs::read_dir(e.path())
                .unwrap()
                .flatten()
                .map(|f| f.path())
                .filter(|p| p.extension().is_some_and(|x| x == "txt"))
                .collect();
            files.sort();
            out.push(Dataset {
                name: e.file_name().to_string_lossy().into_owned(),
                sets: files.iter().map(|f| read_values(f)).collect(),
            });
        }
    }
    // The synthetic shapes that stress one container kind each (`FR_SYNTHETIC=0` skips
    // them), after the real data.
    let synthetic = std::env::var_os("FR_SYNTHETIC").is_none_or(|v| v != "0");
    let real = out.len();
    if synthetic {
        for shape in common::SHAPES {
            out.push(Dataset {
                name: format!("synthetic-{shape}"),
                sets: common::synthetic(shape),
            });
        }
    }
    if real == 0 {
        eprintln!(
            "notice: no real data at {} (set FROZEN_ROARING_REALDATA); using a generated dataset",
            dir.display()
        );
        let mut x = 1u64;
        let sets = (0..100)
            .map(|i| {
                let mut v: Vec<u32> = (0..20_000)
                    .map(|_| {
                        x = x
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        ((x >> 33) as u32) % (1 << (20 + i % 8))
                    })
                    .collect();
                v.sort_unstable();
                v.dedup();
                v
            })
            .collect();
        out.push(Dataset {
            name: "generated".into(),
            sets,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// Everything a dataset's benchmarks need, prepared outside the timed loops.
struct Prepared {
    frozen: Vec<Vec<u8>>,
    cr: Vec<Bitmap>,
    cr_frozen: Vec<Vec<u8>>,
    cr_portable: Vec<Vec<u8>>,
    rr: Vec<RoaringBitmap>,
    rr_bytes: Vec<Vec<u8>>,
    probes: Vec<u32>,
}

fn prepare(d: &Dataset) -> Prepared {
    let mut w = Writer::new();
    let frozen = d
        .sets
        .iter()
        .map(|s| {
            let mut v = Vec::new();
            w.write_sorted(s.iter().copied(), &mut v).unwrap();
            v
        })
        .collect();
    let cr: Vec<Bitmap> = d
        .sets
        .iter()
        .map(|s| {
            let mut b = Bitmap::of(s);
            b.run_optimize();
            b
        })
        .collect();
    // CRoaring's frozen format needs 32-byte alignment: keep each in an aligned copy.
    let cr_frozen = cr
        .iter()
        .map(|b| {
            let mut v = Vec::new();
            let _ = b.serialize_into_vec::<Frozen>(&mut v);
            v
        })
        .collect();
    let cr_portable = cr.iter().map(|b| b.serialize::<Portable>()).collect();
    let rr: Vec<RoaringBitmap> = d
        .sets
        .iter()
        .map(|s| {
            let mut b = RoaringBitmap::from_sorted_iter(s.iter().copied()).unwrap();
            b.optimize();
            b
        })
        .collect();
    let rr_bytes = rr
        .iter()
        .map(|b| {
            let mut v = Vec::new();
            b.serialize_into(&mut v).unwrap();
            v
        })
        .collect();
    let max = d
        .sets
        .iter()
        .filter_map(|s| s.last())
        .max()
        .copied()
        .unwrap_or(1);
    let mut x = 7u64;
    let probes = (0..1024)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 33) as u32) % (max + 1)
        })
        .collect();
    Prepared {
        frozen,
        cr,
        cr_frozen,
        cr_portable,
        rr,
        rr_bytes,
        probes,
    }
}

/// The frozen view inside CRoaring's aligned serialization buffer.
fn cr_view(buf: &[u8], b: &Bitmap) -> BitmapView<'static> {
    let size = b.get_serialized_size_in_bytes::<Frozen>();
    let start = buf.len() - size;
    let slice: &[u8] = &buf[start..];
    // SAFETY: the bytes were produced by `serialize_into_vec::<Frozen>`, which places them
    // 32-byte aligned at the end of the vector; the buffer outlives every benchmark
    // (leaked below) so the 'static lifetime holds.
    unsafe { BitmapView::deserialize::<Frozen>(std::mem::transmute::<&[u8], &'static [u8]>(slice)) }
}

fn bench_dataset(c: &mut Criterion, d: &Dataset) {
    let p: &'static Prepared = Box::leak(Box::new(prepare(d)));
    bench_portable(c, d, p);
    bench_algebra(c, d, p);
    let n = d.sets.len();
    let group_name = d.name.clone();
    let mut g = c.benchmark_group(&group_name);
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));

    // --- build from sorted values, serialized into a reused buffer
    let mut w = Writer::new();
    let mut out = Vec::new();
    let mut build_ours = || {
        for s in &d.sets {
            out.clear();
            black_box(w.write_sorted(s.iter().copied(), &mut out).unwrap());
        }
    };
    record_allocs(&group_name, "build/frozen-roaring", n, &mut build_ours);
    g.bench_function("build/frozen-roaring", |b| b.iter(&mut build_ours));
    let mut buf = Vec::new();
    let mut build_cr = || {
        for s in &d.sets {
            let mut bm = Bitmap::of(s);
            bm.run_optimize();
            buf.clear();
            black_box(bm.serialize_into_vec::<Portable>(&mut buf));
        }
    };
    record_allocs(&group_name, "build/croaring", n, &mut build_cr);
    g.bench_function("build/croaring", |b| b.iter(&mut build_cr));
    let mut build_rr = || {
        for s in &d.sets {
            let mut bm = RoaringBitmap::from_sorted_iter(s.iter().copied()).unwrap();
            bm.optimize();
            buf.clear();
            bm.serialize_into(&mut buf).unwrap();
            black_box(&buf);
        }
    };
    record_allocs(&group_name, "build/roaring-rs", n, &mut build_rr);
    g.bench_function("build/roaring-rs", |b| b.iter(&mut build_rr));

    // --- re-encode an existing bitmap into a reused buffer
    let views: Vec<FrozenBitmap<'static>> = p
        .frozen
        .iter()
        .map(|b| FrozenBitmap::from_bytes(b).unwrap())
        .collect();
    let mut reencode_ours = || {
        for v in &views {
            out.clear();
            black_box(w.write_frozen(v, &mut out).unwrap());
        }
    };
    record_allocs(
        &group_name,
        "reencode/frozen-roaring",
        n,
        &mut reencode_ours,
    );
    g.bench_function("reencode/frozen-roaring", |b| b.iter(&mut reencode_ours));
    let mut reencode_cr = || {
        for bm in &p.cr {
            buf.clear();
            black_box(bm.serialize_into_vec::<Portable>(&mut buf));
        }
    };
    record_allocs(
        &group_name,
        "reencode/croaring-portable",
        n,
        &mut reencode_cr,
    );
    g.bench_function("reencode/croaring-portable", |b| b.iter(&mut reencode_cr));
    let mut reencode_cr_frozen = || {
        for bm in &p.cr {
            buf.clear();
            black_box(bm.serialize_into_vec::<Frozen>(&mut buf));
        }
    };
    record_allocs(
        &group_name,
        "reencode/croaring-frozen",
        n,
        &mut reencode_cr_frozen,
    );
    g.bench_function("reencode/croaring-frozen", |b| {
        b.iter(&mut reencode_cr_frozen)
    });
    let mut reencode_rr = || {
        for bm in &p.rr {
            buf.clear();
            bm.serialize_into(&mut buf).unwrap();
            black_box(&buf);
        }
    };
    record_allocs(&group_name, "reencode/roaring-rs", n, &mut reencode_rr);
    g.bench_function("reencode/roaring-rs", |b| b.iter(&mut reencode_rr));
    let mut memcpy = || {
        for f in &p.frozen {
            buf.clear();
            buf.extend_from_slice(f);
            black_box(&buf);
        }
    };
    g.bench_function("reencode/memcpy", |b| b.iter(&mut memcpy));

    // --- open
    let mut open_checked = || {
        for f in &p.frozen {
            black_box(FrozenBitmap::from_bytes(black_box(f)).unwrap());
        }
    };
    record_allocs(
        &group_name,
        "open/frozen-roaring-checked",
        n,
        &mut open_checked,
    );
    g.bench_function("open/frozen-roaring-checked", |b| b.iter(&mut open_checked));
    let mut open_strict = || {
        for f in &p.frozen {
            black_box(FrozenBitmap::from_bytes_strict(black_box(f)).unwrap());
        }
    };
    g.bench_function("open/frozen-roaring-strict", |b| b.iter(&mut open_strict));
    let mut open_unchecked = || {
        for f in &p.frozen {
            // SAFETY: bytes written by our writer.
            black_box(unsafe { FrozenBitmap::from_bytes_unchecked(black_box(f)) });
        }
    };
    g.bench_function("open/frozen-roaring-unchecked", |b| {
        b.iter(&mut open_unchecked)
    });
    let mut open_cr_frozen = || {
        for (f, bm) in p.cr_frozen.iter().zip(&p.cr) {
            black_box(cr_view(black_box(f), bm));
        }
    };
    record_allocs(
        &group_name,
        "open/croaring-frozen-view",
        n,
        &mut open_cr_frozen,
    );
    g.bench_function("open/croaring-frozen-view", |b| b.iter(&mut open_cr_frozen));
    let mut open_cr_portable = || {
        for f in &p.cr_portable {
            // SAFETY: bytes produced by CRoaring's portable serializer.
            black_box(unsafe { BitmapView::deserialize::<Portable>(black_box(f)) });
        }
    };
    record_allocs(
        &group_name,
        "open/croaring-portable-view",
        n,
        &mut open_cr_portable,
    );
    g.bench_function("open/croaring-portable-view", |b| {
        b.iter(&mut open_cr_portable)
    });
    let mut open_rr = || {
        for f in &p.rr_bytes {
            black_box(RoaringBitmap::deserialize_from(black_box(&f[..])).unwrap());
        }
    };
    record_allocs(&group_name, "open/roaring-rs-deserialize", n, &mut open_rr);
    g.bench_function("open/roaring-rs-deserialize", |b| b.iter(&mut open_rr));

    // --- contains (1024 probes per bitmap)
    let cr_views: Vec<BitmapView<'static>> = p
        .cr_frozen
        .iter()
        .zip(&p.cr)
        .map(|(f, b)| cr_view(f, b))
        .collect();
    g.bench_function("contains/frozen-roaring", |b| {
        b.iter(|| {
            views
                .iter()
                .map(|v| p.probes.iter().filter(|&&x| v.contains(x)).count())
                .sum::<usize>()
        })
    });
    g.bench_function("contains/croaring-frozen-view", |b| {
        b.iter(|| {
            cr_views
                .iter()
                .map(|v| p.probes.iter().filter(|&&x| v.contains(x)).count())
                .sum::<usize>()
        })
    });
    g.bench_function("contains/roaring-rs", |b| {
        b.iter(|| {
            p.rr.iter()
                .map(|v| p.probes.iter().filter(|&&x| v.contains(x)).count())
                .sum::<usize>()
        })
    });

    // --- iterate every value
    g.bench_function("iterate/frozen-roaring", |b| {
        b.iter(|| {
            views
                .iter()
                .map(|v| v.iter().fold(0u64, |a, x| a.wrapping_add(u64::from(x))))
                .sum::<u64>()
        })
    });
    let mut batch = vec![0u32; 1024];
    g.bench_function("iterate/frozen-roaring-next_many", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for v in &views {
                let mut it = v.iter();
                loop {
                    let k = it.next_many(&mut batch).len();
                    if k == 0 {
                        break;
                    }
                    sum = batch[..k]
                        .iter()
                        .fold(sum, |a, &x| a.wrapping_add(u64::from(x)));
                }
            }
            sum
        })
    });
    g.bench_function("iterate/croaring-frozen-view", |b| {
        b.iter(|| {
            cr_views
                .iter()
                .map(|v| v.iter().fold(0u64, |a, x| a.wrapping_add(u64::from(x))))
                .sum::<u64>()
        })
    });
    g.bench_function("iterate/roaring-rs", |b| {
        b.iter(|| {
            p.rr.iter()
                .map(|v| v.iter().fold(0u64, |a, x| a.wrapping_add(u64::from(x))))
                .sum::<u64>()
        })
    });

    // --- bulk extraction, backward iteration, ranges, rank
    g.bench_function("to_vec/frozen-roaring", |b| {
        b.iter(|| views.iter().map(|v| v.to_vec().len()).sum::<usize>())
    });
    g.bench_function("to_vec/croaring-frozen-view", |b| {
        b.iter(|| cr_views.iter().map(|v| v.to_vec().len()).sum::<usize>())
    });
    let mut values = Vec::new();
    let mut extend_ours = || {
        views
            .iter()
            .map(|v| {
                values.clear();
                v.extend_into(&mut values);
                values.len()
            })
            .sum::<usize>()
    };
    record_allocs(&group_name, "extend_into/frozen-roaring", n, || {
        black_box(extend_ours());
    });
    g.bench_function("extend_into/frozen-roaring", |b| b.iter(&mut extend_ours));
    let mut back_ours = || {
        views
            .iter()
            .map(|v| {
                v.iter()
                    .rev()
                    .fold(0u64, |a, x| a.wrapping_add(u64::from(x)))
            })
            .sum::<u64>()
    };
    record_allocs(&group_name, "iterate_back/frozen-roaring", n, || {
        black_box(back_ours());
    });
    g.bench_function("iterate_back/frozen-roaring", |b| b.iter(&mut back_ours));
    g.bench_function("iterate_back/roaring-rs", |b| {
        b.iter(|| {
            p.rr.iter()
                .map(|v| {
                    v.iter()
                        .rev()
                        .fold(0u64, |a, x| a.wrapping_add(u64::from(x)))
                })
                .sum::<u64>()
        })
    });
    // The values the ranges of `$it`'s `next_range` cover (ours and roaring-rs's iterators
    // have the method, but no trait in common).
    macro_rules! range_total {
        ($it:expr) => {{
            let (mut it, mut n) = ($it, 0u64);
            while let Some(r) = it.next_range() {
                n += u64::from(r.end() - r.start()) + 1;
            }
            n
        }};
    }
    let mut ranges_ours = || views.iter().map(|v| range_total!(v.iter())).sum::<u64>();
    record_allocs(&group_name, "next_range/frozen-roaring", n, || {
        black_box(ranges_ours());
    });
    g.bench_function("next_range/frozen-roaring", |b| b.iter(&mut ranges_ours));
    g.bench_function("next_range/roaring-rs", |b| {
        b.iter(|| p.rr.iter().map(|v| range_total!(v.iter())).sum::<u64>())
    });
    g.bench_function("rank/frozen-roaring", |b| {
        b.iter(|| {
            views
                .iter()
                .map(|v| p.probes.iter().map(|&x| v.rank(x)).sum::<u64>())
                .sum::<u64>()
        })
    });
    g.bench_function("rank/roaring-rs", |b| {
        b.iter(|| {
            p.rr.iter()
                .map(|v| p.probes.iter().map(|&x| v.rank(x)).sum::<u64>())
                .sum::<u64>()
        })
    });

    // --- intersection_len of consecutive pairs
    let mut inter_ours = || {
        views
            .windows(2)
            .map(|w| w[0].intersection_len(&w[1]))
            .sum::<u64>()
    };
    record_allocs(
        &group_name,
        "intersection_len/frozen-roaring",
        n - 1,
        || {
            black_box(inter_ours());
        },
    );
    g.bench_function("intersection_len/frozen-roaring", |b| {
        b.iter(&mut inter_ours)
    });
    let mut inter_cr = || {
        cr_views
            .windows(2)
            .map(|w| w[0].and_cardinality(&w[1]))
            .sum::<u64>()
    };
    record_allocs(
        &group_name,
        "intersection_len/croaring-frozen-view",
        n - 1,
        || {
            black_box(inter_cr());
        },
    );
    g.bench_function("intersection_len/croaring-frozen-view", |b| {
        b.iter(&mut inter_cr)
    });
    g.bench_function("intersection_len/roaring-rs", |b| {
        b.iter(|| {
            p.rr.windows(2)
                .map(|w| w[0].intersection_len(&w[1]))
                .sum::<u64>()
        })
    });

    // --- is_disjoint of consecutive pairs (stops at the first common value)
    let mut disjoint_ours = || views.windows(2).filter(|w| w[0].is_disjoint(&w[1])).count();
    record_allocs(&group_name, "is_disjoint/frozen-roaring", n - 1, || {
        black_box(disjoint_ours());
    });
    g.bench_function("is_disjoint/frozen-roaring", |b| b.iter(&mut disjoint_ours));
    g.bench_function("is_disjoint/croaring-frozen-view", |b| {
        b.iter(|| {
            cr_views
                .windows(2)
                .filter(|w| !w[0].intersect(&w[1]))
                .count()
        })
    });
    g.bench_function("is_disjoint/roaring-rs", |b| {
        b.iter(|| p.rr.windows(2).filter(|w| w[0].is_disjoint(&w[1])).count())
    });

    // --- range_cardinality and contains_range over 64 ranges per bitmap: between two
    // probes (any length), and from a value of the set (1 to 32 values)
    let ranges: Vec<(u32, u32)> = p
        .probes
        .chunks_exact(2)
        .take(64)
        .map(|p| (p[0].min(p[1]), p[0].max(p[1])))
        .collect();
    let held: Vec<Vec<(u32, u32)>> = d
        .sets
        .iter()
        .map(|s| {
            (0..64u32)
                .filter_map(|k| {
                    let x = *s.get(p.probes[k as usize] as usize % s.len().max(1))?;
                    Some((x, x.saturating_add(k % 32)))
                })
                .collect()
        })
        .collect();
    // The same loops over each library's bitmaps (the three have no trait in common).
    macro_rules! range_len {
        ($bitmaps:expr) => {
            $bitmaps
                .iter()
                .map(|v| {
                    ranges
                        .iter()
                        .map(|&(lo, hi)| v.range_cardinality(lo..=hi))
                        .sum::<u64>()
                })
                .sum::<u64>()
        };
    }
    macro_rules! ranges_held {
        ($bitmaps:expr) => {
            $bitmaps
                .iter()
                .zip(&held)
                .map(|(v, rs)| {
                    rs.iter()
                        .filter(|&&(lo, hi)| v.contains_range(lo..=hi))
                        .count()
                })
                .sum::<usize>()
        };
    }
    record_allocs(&group_name, "range_cardinality/frozen-roaring", n, || {
        black_box(range_len!(views));
    });
    g.bench_function("range_cardinality/frozen-roaring", |b| {
        b.iter(|| range_len!(views))
    });
    g.bench_function("range_cardinality/croaring-frozen-view", |b| {
        b.iter(|| range_len!(cr_views))
    });
    g.bench_function("range_cardinality/roaring-rs", |b| {
        b.iter(|| range_len!(p.rr))
    });
    record_allocs(&group_name, "contains_range/frozen-roaring", n, || {
        black_box(ranges_held!(views));
    });
    g.bench_function("contains_range/frozen-roaring", |b| {
        b.iter(|| ranges_held!(views))
    });
    g.bench_function("contains_range/croaring-frozen-view", |b| {
        b.iter(|| ranges_held!(cr_views))
    });
    g.bench_function("contains_range/roaring-rs", |b| {
        b.iter(|| ranges_held!(p.rr))
    });
    g.finish();
}

/// The portable format: opening and querying CRoaring's portable bytes in place (vs our
/// frozen views of the same sets, CRoaring's portable view and roaring-rs), portable
/// serialization, and frozen <-> portable conversion vs memcpy of the output.
fn bench_portable(c: &mut Criterion, d: &Dataset, p: &'static Prepared) {
    let n = d.sets.len();
    let group_name = format!("{}.portable", d.name);
    let mut g = c.benchmark_group(&group_name);
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    let frozen: Vec<FrozenBitmap<'static>> = p
        .frozen
        .iter()
        .map(|f| FrozenBitmap::from_bytes(f).unwrap())
        .collect();
    let portable: Vec<FrozenBitmap<'static>> = p
        .cr_portable
        .iter()
        .map(|f| FrozenBitmap::from_bytes(f).unwrap())
        .collect();
    // SAFETY: bytes produced by CRoaring's portable serializer, alive for the whole run.
    let cr_pviews: Vec<BitmapView<'static>> = p
        .cr_portable
        .iter()
        .map(|f| unsafe { BitmapView::deserialize::<Portable>(f) })
        .collect();

    let mut open_ours = || {
        for f in &p.cr_portable {
            black_box(FrozenBitmap::from_bytes(black_box(f)).unwrap());
        }
    };
    record_allocs(
        &group_name,
        "open/frozen-roaring-checked",
        n,
        &mut open_ours,
    );
    g.bench_function("open/frozen-roaring-checked", |b| b.iter(&mut open_ours));
    let mut open_cr = || {
        for f in &p.cr_portable {
            // SAFETY: bytes produced by CRoaring's portable serializer.
            black_box(unsafe { BitmapView::deserialize::<Portable>(black_box(f)) });
        }
    };
    g.bench_function("open/croaring-portable-view", |b| b.iter(&mut open_cr));
    let mut open_rr = || {
        for f in &p.cr_portable {
            black_box(RoaringBitmap::deserialize_from(black_box(&f[..])).unwrap());
        }
    };
    g.bench_function("open/roaring-rs-deserialize", |b| b.iter(&mut open_rr));

    for (name, views) in [("portable", &portable), ("frozen", &frozen)] {
        g.bench_function(format!("contains/{name}"), |b| {
            b.iter(|| {
                views
                    .iter()
                    .map(|v| p.probes.iter().filter(|&&x| v.contains(x)).count())
                    .sum::<usize>()
            })
        });
        g.bench_function(format!("rank/{name}"), |b| {
            b.iter(|| {
                views
                    .iter()
                    .map(|v| p.probes.iter().step_by(8).map(|&x| v.rank(x)).sum::<u64>())
                    .sum::<u64>()
            })
        });
        g.bench_function(format!("iterate/{name}"), |b| {
            b.iter(|| {
                views
                    .iter()
                    .map(|v| v.iter().fold(0u64, |a, x| a.wrapping_add(u64::from(x))))
                    .sum::<u64>()
            })
        });
        g.bench_function(format!("intersection_len/{name}"), |b| {
            b.iter(|| {
                views
                    .windows(2)
                    .map(|w| w[0].intersection_len(&w[1]))
                    .sum::<u64>()
            })
        });
    }
    g.bench_function("contains/croaring-portable-view", |b| {
        b.iter(|| {
            cr_pviews
                .iter()
                .map(|v| p.probes.iter().filter(|&&x| v.contains(x)).count())
                .sum::<usize>()
        })
    });
    g.bench_function("intersection_len/croaring-portable-view", |b| {
        b.iter(|| {
            cr_pviews
                .windows(2)
                .map(|w| w[0].and_cardinality(&w[1]))
                .sum::<u64>()
        })
    });

    // --- portable serialization from sorted values, into a reused buffer
    let mut w = Writer::new();
    let mut out = Vec::new();
    let mut build_ours = || {
        for s in &d.sets {
            out.clear();
            black_box(
                w.write_portable_sorted(s.iter().copied(), &mut out)
                    .unwrap(),
            );
        }
    };
    record_allocs(&group_name, "build/frozen-roaring", n, &mut build_ours);
    g.bench_function("build/frozen-roaring", |b| b.iter(&mut build_ours));
    let mut out = Vec::new();
    g.bench_function("build/croaring", |b| {
        b.iter(|| {
            for s in &d.sets {
                let mut bm = Bitmap::of(s);
                bm.run_optimize();
                out.clear();
                black_box(bm.serialize_into_vec::<Portable>(&mut out).len());
            }
        })
    });
    g.bench_function("build/roaring-rs", |b| {
        b.iter(|| {
            for s in &d.sets {
                let mut bm = RoaringBitmap::from_sorted_iter(s.iter().copied()).unwrap();
                bm.optimize();
                out.clear();
                bm.serialize_into(&mut out).unwrap();
                black_box(out.len());
            }
        })
    });
    // --- serializing an existing bitmap (ours: a frozen view) into portable bytes
    let mut w = Writer::new();
    let mut to_portable = || {
        for v in &frozen {
            out.clear();
            black_box(w.write_portable(v, &mut out).unwrap());
        }
    };
    record_allocs(
        &group_name,
        "convert/frozen-to-portable",
        n,
        &mut to_portable,
    );
    g.bench_function("convert/frozen-to-portable", |b| b.iter(&mut to_portable));
    let mut out = Vec::new();
    g.bench_function("convert/memcpy-portable", |b| {
        b.iter(|| {
            for f in &p.cr_portable {
                out.clear();
                out.extend_from_slice(black_box(f));
            }
            black_box(out.len())
        })
    });
    let mut to_frozen = || {
        for v in &portable {
            out.clear();
            black_box(w.write_frozen(v, &mut out).unwrap());
        }
    };
    record_allocs(&group_name, "convert/portable-to-frozen", n, &mut to_frozen);
    g.bench_function("convert/portable-to-frozen", |b| b.iter(&mut to_frozen));
    let mut out = Vec::new();
    g.bench_function("convert/memcpy-frozen", |b| {
        b.iter(|| {
            for f in &p.frozen {
                out.clear();
                out.extend_from_slice(black_box(f));
            }
            black_box(out.len())
        })
    });
    g.bench_function("serialize/croaring-portable", |b| {
        b.iter(|| {
            for bm in &p.cr {
                out.clear();
                black_box(bm.serialize_into_vec::<Portable>(&mut out).len());
            }
        })
    });
    g.bench_function("serialize/roaring-rs", |b| {
        b.iter(|| {
            for bm in &p.rr {
                out.clear();
                bm.serialize_into(&mut out).unwrap();
                black_box(out.len());
            }
        })
    });
    g.finish();
}

/// Operation `k` (∩ ∪ − ⊕) of every consecutive pair through `w`, each result written into
/// the cleared `out`; returns the total bytes written.
fn pairwise(w: &mut Writer, k: usize, views: &[FrozenBitmap<'_>], out: &mut Vec<u8>) -> usize {
    let mut total = 0usize;
    for pair in views.windows(2) {
        out.clear();
        let r = match k {
            0 => w.intersection_into(&pair[0], &pair[1], out),
            1 => w.union_into(&pair[0], &pair[1], out),
            2 => w.difference_into(&pair[0], &pair[1], out),
            _ => w.symmetric_difference_into(&pair[0], &pair[1], out),
        };
        total += r.unwrap().len();
    }
    total
}
/// Set algebra on consecutive pairs (as CRoaring's own benchmarks do) and on all bitmaps:
/// our `*_into` into a reused buffer and counting forms, vs CRoaring on its frozen views
/// (which allocate their results) and roaring-rs owned operations.
fn bench_algebra(c: &mut Criterion, d: &Dataset, p: &'static Prepared) {
    let n = d.sets.len();
    let group_name = format!("{}.algebra", d.name);
    let mut g = c.benchmark_group(&group_name);
    g.sample_size(15)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    let views: Vec<FrozenBitmap<'static>> = p
        .frozen
        .iter()
        .map(|f| FrozenBitmap::from_bytes(f).unwrap())
        .collect();
    let cr_views: Vec<BitmapView<'static>> = p
        .cr_frozen
        .iter()
        .zip(&p.cr)
        .map(|(f, b)| cr_view(f, b))
        .collect();
    let ops = ["and", "or", "andnot", "xor"];
    let mut w = Writer::new();
    let mut out = Vec::new();
    for (k, op) in ops.iter().enumerate() {
        let mut ours = || pairwise(&mut w, k, &views, &mut out);
        record_allocs(&group_name, &format!("{op}/frozen-roaring"), n - 1, || {
            black_box(ours());
        });
        g.bench_function(format!("{op}/frozen-roaring"), |b| b.iter(&mut ours));
        // CRoaring right after ours, so that the two are measured as close together as
        // criterion allows (shared machines drift over seconds; see BENCHMARKS.md).
        let mut cr = || {
            let mut total = 0u64;
            for pair in cr_views.windows(2) {
                let r = match k {
                    0 => pair[0].and(&pair[1]),
                    1 => pair[0].or(&pair[1]),
                    2 => pair[0].andnot(&pair[1]),
                    _ => pair[0].xor(&pair[1]),
                };
                total += r.cardinality();
            }
            total
        };
        record_allocs(&group_name, &format!("{op}/croaring"), n - 1, || {
            black_box(cr());
        });
        g.bench_function(format!("{op}/croaring"), |b| b.iter(&mut cr));
        // Without canonical kinds (`Writer::with_canonical(false)`): representations as
        // the kernels compute them, as CRoaring's results are.
        let mut wr = Writer::new().with_canonical(false);
        g.bench_function(format!("{op}/frozen-roaring-relaxed"), |b| {
            b.iter(|| pairwise(&mut wr, k, &views, &mut out))
        });
        g.bench_function(format!("{op}/roaring-rs"), |b| {
            b.iter(|| {
                let mut total = 0u64;
                for pair in p.rr.windows(2) {
                    let r = match k {
                        0 => &pair[0] & &pair[1],
                        1 => &pair[0] | &pair[1],
                        2 => &pair[0] - &pair[1],
                        _ => &pair[0] ^ &pair[1],
                    };
                    total += r.len();
                }
                total
            })
        });
        g.bench_function(format!("{op}_len/frozen-roaring"), |b| {
            b.iter(|| {
                views
                    .windows(2)
                    .map(|pair| match k {
                        0 => pair[0].intersection_len(&pair[1]),
                        1 => pair[0].union_len(&pair[1]),
                        2 => pair[0].difference_len(&pair[1]),
                        _ => pair[0].symmetric_difference_len(&pair[1]),
                    })
                    .sum::<u64>()
            })
        });
        g.bench_function(format!("{op}_len/croaring"), |b| {
            b.iter(|| {
                cr_views
                    .windows(2)
                    .map(|pair| match k {
                        0 => pair[0].and_cardinality(&pair[1]),
                        1 => pair[0].or_cardinality(&pair[1]),
                        2 => pair[0].andnot_cardinality(&pair[1]),
                        _ => pair[0].xor_cardinality(&pair[1]),
                    })
                    .sum::<u64>()
            })
        });
    }
    // --- union of all bitmaps
    let mut ours = || {
        out.clear();
        w.union_many_into(&views, &mut out).unwrap().len()
    };
    record_allocs(&group_name, "union_all/frozen-roaring", 1, || {
        black_box(ours());
    });
    g.bench_function("union_all/frozen-roaring", |b| b.iter(&mut ours));
    let refs: Vec<&Bitmap> = cr_views.iter().map(|v| &**v).collect();
    let mut cr = || Bitmap::fast_or(&refs).cardinality();
    record_allocs(&group_name, "union_all/croaring", 1, || {
        black_box(cr());
    });
    g.bench_function("union_all/croaring", |b| b.iter(&mut cr));
    let mut wr = Writer::new().with_canonical(false);
    g.bench_function("union_all/frozen-roaring-relaxed", |b| {
        b.iter(|| {
            out.clear();
            wr.union_many_into(&views, &mut out).unwrap().len()
        })
    });
    g.bench_function("union_all/roaring-rs", |b| {
        b.iter(|| {
            use roaring::MultiOps;
            p.rr.iter().union().len()
        })
    });
    g.bench_function("union_all_len/frozen-roaring", |b| {
        b.iter(|| w.union_many_len(&views))
    });
    // --- symmetric difference of all bitmaps (values in an odd number of them)
    let mut ours = || {
        out.clear();
        w.symmetric_difference_many_into(&views, &mut out)
            .unwrap()
            .len()
    };
    record_allocs(&group_name, "xor_all/frozen-roaring", 1, || {
        black_box(ours());
    });
    g.bench_function("xor_all/frozen-roaring", |b| b.iter(&mut ours));
    let mut cr = || Bitmap::fast_xor(&refs).cardinality();
    record_allocs(&group_name, "xor_all/croaring", 1, || {
        black_box(cr());
    });
    g.bench_function("xor_all/croaring", |b| b.iter(&mut cr));
    g.bench_function("xor_all/frozen-roaring-relaxed", |b| {
        b.iter(|| {
            out.clear();
            wr.symmetric_difference_many_into(&views, &mut out)
                .unwrap()
                .len()
        })
    });
    g.bench_function("xor_all/roaring-rs", |b| {
        b.iter(|| {
            use roaring::MultiOps;
            p.rr.iter().symmetric_difference().len()
        })
    });
    g.bench_function("xor_all_len/frozen-roaring", |b| {
        b.iter(|| w.symmetric_difference_many_len(&views))
    });
    // --- the first bitmap minus all the others
    let mut ours = || {
        out.clear();
        w.difference_many_into(&views, &mut out).unwrap().len()
    };
    record_allocs(&group_name, "diff_all/frozen-roaring", 1, || {
        black_box(ours());
    });
    g.bench_function("diff_all/frozen-roaring", |b| b.iter(&mut ours));
    let mut cr = || refs[0].andnot(&Bitmap::fast_or(&refs[1..])).cardinality();
    record_allocs(&group_name, "diff_all/croaring", 1, || {
        black_box(cr());
    });
    g.bench_function("diff_all/croaring", |b| b.iter(&mut cr));
    g.bench_function("diff_all/roaring-rs", |b| {
        b.iter(|| {
            use roaring::MultiOps;
            p.rr.iter().difference().len()
        })
    });
    g.bench_function("diff_all_len/frozen-roaring", |b| {
        b.iter(|| w.difference_many_len(&views))
    });
    g.finish();
}

/// Go roaring's serialization sets: one serialization into a reused buffer.
fn bench_seedbench(c: &mut Criterion) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/seedbench");
    let mut g = c.benchmark_group("seedbench");
    g.sample_size(30)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for name in ["sparse", "mid", "dense"] {
        let path = dir.join(format!("{name}.txt"));
        if !path.exists() {
            eprintln!(
                "notice: {} not found, skipping the seedbench sets",
                path.display()
            );
            return;
        }
        let values = read_values(&path);
        let mut w = Writer::new();
        let mut bytes = Vec::new();
        w.write_sorted(values.iter().copied(), &mut bytes).unwrap();
        let view = FrozenBitmap::from_bytes(&bytes).unwrap();
        let mut cr = Bitmap::of(&values);
        cr.run_optimize();
        let mut rr = RoaringBitmap::from_sorted_iter(values.iter().copied()).unwrap();
        rr.optimize();
        let mut out = Vec::with_capacity(1 << 20);
        g.bench_function(BenchmarkId::new("write_frozen", name), |b| {
            b.iter(|| {
                out.clear();
                black_box(w.write_frozen(&view, &mut out).unwrap())
            })
        });
        g.bench_function(BenchmarkId::new("write_sorted", name), |b| {
            b.iter(|| {
                out.clear();
                black_box(w.write_sorted(values.iter().copied(), &mut out).unwrap())
            })
        });
        g.bench_function(BenchmarkId::new("croaring-portable", name), |b| {
            b.iter(|| {
                out.clear();
                black_box(cr.serialize_into_vec::<Portable>(&mut out).len())
            })
        });
        g.bench_function(BenchmarkId::new("croaring-frozen", name), |b| {
            b.iter(|| {
                out.clear();
                black_box(cr.serialize_into_vec::<Frozen>(&mut out).len())
            })
        });
        g.bench_function(BenchmarkId::new("roaring-rs", name), |b| {
            b.iter(|| {
                out.clear();
                rr.serialize_into(&mut out).unwrap();
                black_box(out.len())
            })
        });
        g.bench_function(BenchmarkId::new("memcpy", name), |b| {
            b.iter(|| {
                out.clear();
                out.extend_from_slice(black_box(&bytes));
                black_box(out.len())
            })
        });
    }
    g.finish();
}

fn all(c: &mut Criterion) {
    // SAFETY: called before any CRoaring object exists; from here on CRoaring allocates
    // through Rust's global allocator, so its allocations are counted too.
    unsafe { croaring::configure_rust_alloc() };
    let _ = std::fs::remove_file(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/criterion/allocations.tsv"),
    );
    for d in datasets() {
        bench_dataset(c, &d);
    }
    bench_seedbench(c);
}

criterion_group!(benches, all);
criterion_main!(benches);
