//! Deletion vectors side by side with what lakehouse readers use today: roaring-rs
//! (`RoaringTreemap::deserialize_from`, then `len`, iteration or `contains`) and CRoaring
//! (`Bitmap64` portable deserialization). Large DVs of arrays, bitsets and runs (tens of
//! thousands to a million positions):
//!
//! - open + cardinality: `DeletionVector::from_bytes` (structure only) and
//!   `from_bytes_strict` (CRC-32 and every payload) against deserializing;
//! - open + mask of 2^20 rows: `fill_mask` against deserializing and setting each
//!   position's bit;
//! - merging 10 DVs (many-way union) against `RoaringTreemap` `|=` and CRoaring's `or_inplace`.
//!
//! ```text
//! cargo bench --bench dv
//! python3 benches/report.py dv      # ratio table from target/criterion
//! ```

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use croaring::{Bitmap64, Portable};
use frozen_roaring::{DeletionVector, FrozenBitmap64, Writer};
use roaring::RoaringTreemap;

#[path = "../examples/common/dv_shapes.rs"]
mod dv_shapes;
use dv_shapes::{DV_SHAPES, ROWS, dv_positions as positions};

fn frame(values: &[u64]) -> Vec<u8> {
    let mut f = Vec::new();
    Writer::new()
        .write_deletion_vector(values.iter().copied(), &mut f)
        .unwrap();
    f
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("dv");
    g.warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for shape in DV_SHAPES {
        let values = positions(shape, 7);
        let f = frame(&values);
        let bitmap = &f[8..f.len() - 4];
        println!("{shape}: {} positions, {} bytes", values.len(), f.len());

        g.bench_with_input(BenchmarkId::new("open_len/ours", shape), &f, |b, f| {
            b.iter(|| DeletionVector::from_bytes(black_box(f)).unwrap().len())
        });
        g.bench_with_input(
            BenchmarkId::new("open_len/ours_strict", shape),
            &f,
            |b, f| {
                b.iter(|| {
                    DeletionVector::from_bytes_strict(black_box(f))
                        .unwrap()
                        .len()
                })
            },
        );
        g.bench_with_input(
            BenchmarkId::new("open_len/roaring_rs", shape),
            bitmap,
            |b, m| {
                b.iter(|| {
                    RoaringTreemap::deserialize_from(black_box(m))
                        .unwrap()
                        .len()
                })
            },
        );
        g.bench_with_input(
            BenchmarkId::new("open_len/croaring", shape),
            bitmap,
            |b, m| {
                b.iter(|| {
                    Bitmap64::try_deserialize::<Portable>(black_box(m))
                        .unwrap()
                        .cardinality()
                })
            },
        );

        let mut mask = vec![0u64; (ROWS / 64) as usize];
        g.bench_with_input(BenchmarkId::new("open_mask/ours", shape), &f, |b, f| {
            b.iter(|| {
                let dv = DeletionVector::from_bytes(black_box(f)).unwrap();
                dv.bitmap().fill_mask(0..ROWS, &mut mask);
                mask[7]
            })
        });
        g.bench_with_input(
            BenchmarkId::new("open_mask/roaring_rs", shape),
            bitmap,
            |b, m| {
                b.iter(|| {
                    let t = RoaringTreemap::deserialize_from(black_box(m)).unwrap();
                    mask.fill(0);
                    for p in t.iter() {
                        mask[(p / 64) as usize] |= 1 << (p % 64);
                    }
                    mask[7]
                })
            },
        );
        g.bench_with_input(
            BenchmarkId::new("open_mask/croaring", shape),
            bitmap,
            |b, m| {
                b.iter(|| {
                    let t = Bitmap64::try_deserialize::<Portable>(black_box(m)).unwrap();
                    mask.fill(0);
                    for p in t.iter() {
                        mask[(p / 64) as usize] |= 1 << (p % 64);
                    }
                    mask[7]
                })
            },
        );

        // Ten DVs of the same data file (snapshots), merged.
        let frames: Vec<Vec<u8>> = (0..10).map(|s| frame(&positions(shape, 100 + s))).collect();
        let mut w = Writer::new();
        let mut out = Vec::new();
        g.bench_with_input(BenchmarkId::new("merge10/ours", shape), &frames, |b, fs| {
            b.iter(|| {
                let views = fs
                    .iter()
                    .map(|f| DeletionVector::from_bytes(f).unwrap().bitmap());
                out.clear();
                let r = w.union64_many_into(views, &mut out).unwrap();
                FrozenBitmap64::from_bytes(&out[r])
                    .map(|b| b.len())
                    .unwrap_or(0)
            })
        });
        g.bench_with_input(
            BenchmarkId::new("merge10/roaring_rs", shape),
            &frames,
            |b, fs| {
                b.iter(|| {
                    let mut acc = RoaringTreemap::new();
                    for f in fs {
                        acc |= RoaringTreemap::deserialize_from(&f[8..f.len() - 4]).unwrap();
                    }
                    acc.len()
                })
            },
        );
        g.bench_with_input(
            BenchmarkId::new("merge10/croaring", shape),
            &frames,
            |b, fs| {
                b.iter(|| {
                    let mut acc = Bitmap64::new();
                    for f in fs {
                        acc.or_inplace(
                            &Bitmap64::try_deserialize::<Portable>(&f[8..f.len() - 4]).unwrap(),
                        );
                    }
                    acc.cardinality()
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
