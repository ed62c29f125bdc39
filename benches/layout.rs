//! The cost of reading without alignment: the same kernels over native slices (`&[u16]`,
//! `&[u64]`, which need aligned bytes) and over zerocopy's alignment-1 little-endian
//! `U16`/`U64` slices at an odd address (what `FrozenBitmap` uses). The ratios go into the
//! design notes of `format-spec/FORMAT.md`.
//!
//! ```text
//! cargo bench --bench layout
//! ```

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use zerocopy::FromBytes;
use zerocopy::little_endian::{U16, U64};

fn lcg(x: &mut u64) -> u64 {
    *x = x
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *x >> 33
}

fn sorted_u16(n: usize, seed: u64) -> Vec<u16> {
    let mut x = seed;
    let mut v: Vec<u16> = (0..n).map(|_| lcg(&mut x) as u16).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// `bytes` of `values` stored at an odd address inside the returned buffer.
fn odd_copy(bytes: &[u8]) -> Vec<u8> {
    let mut v = vec![0u8; 1];
    v.extend_from_slice(bytes);
    v
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("layout");
    g.warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));

    // Binary search in a 4096-value array (the `contains` kernel).
    let arr = sorted_u16(4096, 1);
    let arr_bytes: Vec<u8> = arr.iter().flat_map(|v| v.to_le_bytes()).collect();
    let odd = odd_copy(&arr_bytes);
    let le = <[U16]>::ref_from_bytes(&odd[1..]).unwrap();
    let probes: Vec<u16> = (0..1024u32)
        .map(|i| (i.wrapping_mul(40503)) as u16)
        .collect();
    g.bench_function("search/native-u16", |b| {
        b.iter(|| {
            probes
                .iter()
                .filter(|&&p| black_box(&arr[..]).binary_search(&p).is_ok())
                .count()
        })
    });
    g.bench_function("search/unaligned-U16", |b| {
        b.iter(|| {
            probes
                .iter()
                .filter(|&&p| black_box(le).binary_search_by(|x| x.get().cmp(&p)).is_ok())
                .count()
        })
    });

    // Merge intersection count of two arrays (the array ∩ array kernel, scalar).
    let other = sorted_u16(3000, 2);
    let other_bytes: Vec<u8> = other.iter().flat_map(|v| v.to_le_bytes()).collect();
    let odd2 = odd_copy(&other_bytes);
    let le2 = <[U16]>::ref_from_bytes(&odd2[1..]).unwrap();
    fn merge<T: Copy>(a: &[T], b: &[T], get: impl Fn(T) -> u16) -> u32 {
        let (mut i, mut j, mut n) = (0, 0, 0);
        while i < a.len() && j < b.len() {
            let (x, y) = (get(a[i]), get(b[j]));
            n += u32::from(x == y);
            i += usize::from(x <= y);
            j += usize::from(y <= x);
        }
        n
    }
    g.bench_function("merge/native-u16", |b| {
        b.iter(|| merge(black_box(&arr[..]), black_box(&other[..]), |x| x))
    });
    g.bench_function("merge/unaligned-U16", |b| {
        b.iter(|| merge(black_box(le), black_box(le2), |x: U16| x.get()))
    });

    // AND + popcount of two bitsets (the bitset ∩ bitset kernel).
    let mut x = 3u64;
    let w1: Vec<u64> = (0..1024)
        .map(|_| lcg(&mut x) | (lcg(&mut x) << 31))
        .collect();
    let w2: Vec<u64> = (0..1024)
        .map(|_| lcg(&mut x) | (lcg(&mut x) << 31))
        .collect();
    let b1: Vec<u8> = w1.iter().flat_map(|v| v.to_le_bytes()).collect();
    let b2: Vec<u8> = w2.iter().flat_map(|v| v.to_le_bytes()).collect();
    let (o1, o2) = (odd_copy(&b1), odd_copy(&b2));
    let (l1, l2) = (
        <[U64]>::ref_from_bytes(&o1[1..]).unwrap(),
        <[U64]>::ref_from_bytes(&o2[1..]).unwrap(),
    );
    g.bench_function("and_popcount/native-u64", |b| {
        b.iter(|| {
            black_box(&w1)
                .iter()
                .zip(black_box(&w2))
                .map(|(a, b)| (a & b).count_ones())
                .sum::<u32>()
        })
    });
    g.bench_function("and_popcount/unaligned-U64", |b| {
        b.iter(|| {
            black_box(l1)
                .iter()
                .zip(black_box(l2))
                .map(|(a, b)| (a.get() & b.get()).count_ones())
                .sum::<u32>()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
