//! Bitmap files: open time of a 1-million-key file, lookup latency for random keys
//! (lookup + checked open of the bitmap + a query), and build throughput; compared with
//! the same bitmaps stored in the portable format at hand-kept offsets and decoded with
//! roaring-rs (what users do without a bitmap file).
//!
//! `cargo bench --bench file`

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use frozen_roaring::{BitmapFile, FileWriter, Writer};
use roaring::RoaringBitmap;

/// Deterministic small posting lists: key i holds a few values to a few thousand.
fn values_of(i: u64, out: &mut Vec<u32>) {
    out.clear();
    let mut x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let n = match i % 100 {
        0 => 5000,
        1..=9 => 300,
        _ => 4,
    };
    let mut v = 0u32;
    for _ in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v += 1 + (x % 700) as u32;
        out.push(v);
    }
}

const KEYS: u64 = 1_000_000;

fn bench(c: &mut Criterion) {
    let mut values = Vec::new();
    // The bitmap file.
    let mut w = FileWriter::new(Vec::new());
    w.reserve(KEYS as usize);
    for i in 0..KEYS {
        values_of(i, &mut values);
        w.add_sorted(i * 3, values.iter().copied()).unwrap();
    }
    let file_bytes = w.finish().unwrap();
    // The same bitmaps, portable, at hand-kept offsets.
    let mut portable = Vec::new();
    let mut offsets: Vec<(u64, usize, usize)> = Vec::with_capacity(KEYS as usize);
    let mut pw = Writer::new();
    for i in 0..KEYS {
        values_of(i, &mut values);
        let r = pw
            .write_portable_sorted(values.iter().copied(), &mut portable)
            .unwrap();
        offsets.push((i * 3, r.start, r.len()));
    }
    eprintln!(
        "1M-key file: {} bytes; portable bitmaps {} bytes + 24 B/key of hand-kept offsets",
        file_bytes.len(),
        portable.len()
    );

    let mut g = c.benchmark_group("file");
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    g.bench_function("open-1M-keys/frozen-roaring", |b| {
        b.iter(|| {
            BitmapFile::from_bytes(black_box(&file_bytes[..]))
                .unwrap()
                .len()
        })
    });
    let path =
        std::env::temp_dir().join(format!("frozen-roaring-bench-{}.frf", std::process::id()));
    std::fs::write(&path, &file_bytes).unwrap();
    g.bench_function("open-1M-keys/frozen-roaring-mmap", |b| {
        b.iter(|| BitmapFile::open(black_box(&path)).unwrap().len())
    });

    let file = BitmapFile::from_bytes(&file_bytes[..]).unwrap();
    let mut x = 99u64;
    let probes: Vec<u64> = (0..4096)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 33) % KEYS) * 3
        })
        .collect();
    g.throughput(Throughput::Elements(probes.len() as u64));
    g.bench_function("lookup/frozen-roaring", |b| {
        b.iter(|| {
            probes
                .iter()
                .map(|&k| {
                    let bm = file.get(k).unwrap().unwrap();
                    bm.len() + u64::from(bm.contains(k as u32))
                })
                .sum::<u64>()
        })
    });
    // The same lookups with each bitmap's CRC32C checked (what the tool's `query` does).
    g.bench_function("lookup/frozen-roaring-verified", |b| {
        b.iter(|| {
            probes
                .iter()
                .map(|&k| {
                    let bm = file.get_verified(k).unwrap().unwrap();
                    bm.len() + u64::from(bm.contains(k as u32))
                })
                .sum::<u64>()
        })
    });
    g.bench_function("lookup/portable-offsets-roaring-rs", |b| {
        b.iter(|| {
            probes
                .iter()
                .map(|&k| {
                    let i = offsets.binary_search_by_key(&k, |e| e.0).unwrap();
                    let (_, off, len) = offsets[i];
                    let rb = RoaringBitmap::deserialize_from(&portable[off..off + len]).unwrap();
                    rb.len() + u64::from(rb.contains(k as u32))
                })
                .sum::<u64>()
        })
    });
    g.bench_function("lookup/portable-offsets-frozen-roaring-view", |b| {
        b.iter(|| {
            probes
                .iter()
                .map(|&k| {
                    let i = offsets.binary_search_by_key(&k, |e| e.0).unwrap();
                    let (_, off, len) = offsets[i];
                    let bm = frozen_roaring::FrozenBitmap::from_bytes(&portable[off..off + len])
                        .unwrap();
                    bm.len() + u64::from(bm.contains(k as u32))
                })
                .sum::<u64>()
        })
    });

    // Build throughput: 100,000 bitmaps into a reused buffer.
    let n = 100_000u64;
    let lists: Vec<Vec<u32>> = (0..n)
        .map(|i| {
            let mut v = Vec::new();
            values_of(i, &mut v);
            v
        })
        .collect();
    let bytes: usize = {
        let mut w = FileWriter::new(Vec::new());
        for (i, l) in lists.iter().enumerate() {
            w.add_sorted(i as u64, l.iter().copied()).unwrap();
        }
        w.finish().unwrap().len()
    };
    let mut buf = Vec::with_capacity(bytes);
    let mut build = |checksums: bool| {
        buf.clear();
        let mut w = FileWriter::new(std::mem::take(&mut buf)).with_bitmap_checksums(checksums);
        for (i, l) in lists.iter().enumerate() {
            w.add_sorted(i as u64, l.iter().copied()).unwrap();
        }
        buf = w.finish().unwrap();
        buf.len()
    };
    // The same run, reported as bitmaps/s and as MB/s; and without checksums (the default
    // writes them), for their cost.
    g.throughput(Throughput::Elements(n));
    g.bench_function(BenchmarkId::new("build", "bitmaps"), |b| {
        b.iter(|| build(true))
    });
    g.bench_function(
        BenchmarkId::new("build", "bitmaps-without-checksums"),
        |b| b.iter(|| build(false)),
    );
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function(BenchmarkId::new("build", "bytes"), |b| {
        b.iter(|| build(true))
    });
    g.finish();
    let _ = std::fs::remove_file(&path);
}

criterion_group!(benches, bench);
criterion_main!(benches);
