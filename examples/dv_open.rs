//! The paired harness of the deletion-vector targets: ours and the peer alternate round by
//! round on the same DV (so that the machine's drifts, which here reach a factor of 2
//! between minutes, hit both alike), and each cell is the median of the rounds' ratios,
//! the peer's time ÷ ours.
//!
//! ```text
//! cargo run --release --example dv_open            # ROUNDS (default 31)
//! ```
//!
//! Pairs, on the shapes of `benches/dv.rs` (`examples/common/dv_shapes.rs`):
//! - `open_len`: `DeletionVector::from_bytes` + `len` against roaring-rs's
//!   `RoaringTreemap::deserialize_from` + `len` and CRoaring's `Bitmap64` portable
//!   deserialization + `cardinality`;
//! - `strict_len`: `from_bytes_strict` (CRC-32 and every payload) against the same;
//! - `open_mask`: `from_bytes` + `fill_mask` over the file's rows against deserializing
//!   and setting each position's bit.

use std::hint::black_box;
use std::time::Instant;

use croaring::{Bitmap64, Portable};
use frozen_roaring::{DeletionVector, Writer};
use roaring::RoaringTreemap;

#[path = "common/dv_shapes.rs"]
mod dv_shapes;
use dv_shapes::{DV_SHAPES, ROWS, dv_positions};

/// Nanoseconds per call of `f`, over `n` calls.
fn per_call(n: usize, f: &mut dyn FnMut() -> u64) -> f64 {
    let t = Instant::now();
    let mut s = 0u64;
    for _ in 0..n {
        s = s.wrapping_add(f());
    }
    black_box(s);
    t.elapsed().as_secs_f64() * 1e9 / n as f64
}

/// Calls of `f` that take about a millisecond (at least one).
fn calls_per_ms(f: &mut dyn FnMut() -> u64) -> usize {
    let once = per_call(3, f).max(1.0);
    ((1e6 / once) as usize).max(1)
}

/// The median of the rounds' ratios (peer ÷ ours), and the medians of both times.
fn paired(
    rounds: usize,
    ours: &mut dyn FnMut() -> u64,
    peer: &mut dyn FnMut() -> u64,
) -> (f64, f64, f64) {
    let (a, b) = (calls_per_ms(ours), calls_per_ms(peer));
    let (mut ta, mut tb, mut r) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let x = per_call(a, ours);
        let y = per_call(b, peer);
        ta.push(x);
        tb.push(y);
        r.push(y / x);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    (median(&mut r), median(&mut ta), median(&mut tb))
}

fn main() {
    let rounds = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(31);
    println!(
        "ROUNDS={rounds}: the peer's time ÷ ours, median of the rounds' ratios (times: medians)\n"
    );
    println!("| DV | pair | ratio | ours | peer |");
    println!("| --- | --- | ---: | ---: | ---: |");
    let mut mask = vec![0u64; (ROWS / 64) as usize];
    for shape in DV_SHAPES {
        let mut frame = Vec::new();
        Writer::new()
            .write_deletion_vector(dv_positions(shape, 7), &mut frame)
            .expect("sorted positions below 2^63");
        let f = frame.as_slice();
        let m = &f[8..f.len() - 4];
        let mut rr_len = || {
            RoaringTreemap::deserialize_from(black_box(m))
                .unwrap()
                .len()
        };
        let mut cr_len = || {
            Bitmap64::try_deserialize::<Portable>(black_box(m))
                .unwrap()
                .cardinality()
        };
        let mut open_len = || DeletionVector::from_bytes(black_box(f)).unwrap().len();
        let mut strict_len = || {
            DeletionVector::from_bytes_strict(black_box(f))
                .unwrap()
                .len()
        };
        let rows = [
            (
                "open_len / roaring-rs",
                paired(rounds, &mut open_len, &mut rr_len),
            ),
            (
                "open_len / croaring",
                paired(rounds, &mut open_len, &mut cr_len),
            ),
            (
                "strict_len / roaring-rs",
                paired(rounds, &mut strict_len, &mut rr_len),
            ),
            (
                "strict_len / croaring",
                paired(rounds, &mut strict_len, &mut cr_len),
            ),
        ];
        let mask_row = {
            let cell = std::cell::RefCell::new(&mut mask);
            let mut ours = || {
                let mut mask = cell.borrow_mut();
                let dv = DeletionVector::from_bytes(black_box(f)).unwrap();
                dv.bitmap().fill_mask(0..ROWS, &mut mask[..]);
                mask[7]
            };
            let mut peer = || {
                let mut mask = cell.borrow_mut();
                let t = RoaringTreemap::deserialize_from(black_box(m)).unwrap();
                mask.fill(0);
                for p in t.iter() {
                    mask[(p / 64) as usize] |= 1 << (p % 64);
                }
                mask[7]
            };
            (
                "open_mask / roaring-rs",
                paired(rounds, &mut ours, &mut peer),
            )
        };
        for (pair, (ratio, ours, peer)) in rows.into_iter().chain([mask_row]) {
            println!("| {shape} | {pair} | {ratio:.1} | {ours:.1} ns | {peer:.1} ns |");
        }
    }
}
