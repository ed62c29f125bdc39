//! Runs every query of a view, for inputs that may be corrupt: it must never panic. Shared
//! by the malformed-input tests and the fuzz targets (`fuzz/fuzz_targets/*.rs` include it).

use std::ops::Bound;

use frozen_roaring::{FrozenBitmap, Writer};

/// Values an iteration may yield per input: enough to cross several containers of every
/// kind, small enough that a fuzz target stays above several thousand inputs a second.
const ITER_BUDGET: usize = 1024;

/// The most values the payloads of `bm` can yield, whatever its stored counts claim: each
/// array value, each bitset container's 65,536 bits, each run's up to 65,536 values.
pub fn value_bound(bm: &FrozenBitmap<'_>) -> u64 {
    let s = bm.statistics();
    s.array_bytes / 2 + (s.run_bytes / 4 + u64::from(s.bitset_containers)) * 65_536
}

/// Calls every method of `bm` (and of `bm` against `other`). Answers are not checked, as a
/// checked view of corrupt payloads may answer wrongly; only termination without panics is.
/// Returns a value derived from the answers so the calls cannot be optimized away. Work per
/// call is bounded: iterations stop after [`ITER_BUDGET`] values, and whole-set forms
/// (`to_vec`, internal iteration) run only when the payloads bound the values to 2^16.
pub fn exercise(bm: &FrozenBitmap<'_>, other: &FrozenBitmap<'_>) -> u64 {
    let mut acc = bm.len() ^ u64::from(bm.is_empty()) ^ bm.container_count() as u64;
    acc ^= u64::from(bm.min().unwrap_or(0)) ^ u64::from(bm.max().unwrap_or(0));
    let probes = [
        0u32,
        1,
        2,
        63,
        64,
        4095,
        4096,
        65535,
        65536,
        65537,
        1 << 20,
        u32::MAX - 1,
        u32::MAX,
    ];
    for &p in &probes {
        acc ^= u64::from(bm.contains(p)) ^ bm.rank(p) ^ u64::from(bm.select(p).unwrap_or(0));
        acc ^= bm.range_cardinality(p..)
            ^ bm.range_cardinality(..=p)
            ^ u64::from(bm.contains_range(p..p.saturating_add(3)));
        let mut it = bm.iter();
        it.advance_to(p);
        acc ^= u64::from(it.next().unwrap_or(0)) ^ u64::from(it.next_back().unwrap_or(0));
        it.advance_back_to(p / 2);
        acc ^= u64::from(it.next_back().unwrap_or(0));
        let mut it = bm.iter();
        it.advance_back_to(p);
        acc ^= u64::from(it.next_back().unwrap_or(0)) ^ u64::from(it.next().unwrap_or(0));
        it.advance_to(p / 2);
        acc ^= u64::from(it.next().unwrap_or(0));
        acc ^= bm.range(p / 2..=p).take(64).map(u64::from).sum::<u64>()
            ^ bm.range(p..).rev().take(64).map(u64::from).sum::<u64>();
    }
    // Bounded iteration: a corrupt view can claim up to 2^32 values.
    acc ^= bm
        .iter()
        .take(ITER_BUDGET)
        .fold(0u64, |a, v| a.wrapping_add(u64::from(v)));
    acc ^= bm
        .iter()
        .rev()
        .take(ITER_BUDGET)
        .fold(0u64, |a, v| a.wrapping_add(u64::from(v)));
    let mut it = bm.iter();
    let mut buf = [0u32; 777];
    for _ in 0..ITER_BUDGET / 777 {
        let n = it.next_many(&mut buf).len();
        if n == 0 {
            break;
        }
        acc ^= u64::from(buf[n - 1]);
        acc ^= u64::from(it.next_back().unwrap_or(0));
    }
    acc ^= it.size_hint().0 as u64;
    // Ranges from both ends, mixed with single steps: 64 calls, each stepping through the
    // containers its range spans once.
    let mut it = bm.iter();
    for k in 0..64 {
        let r = match k % 3 {
            0 => it.next_range(),
            1 => it.next_range_back(),
            _ => it.next().map(|v| v..=v),
        };
        match r {
            Some(r) => acc ^= u64::from(*r.start()) ^ u64::from(*r.end()),
            None => break,
        }
    }
    let stats = bm.statistics();
    // Internal iteration (fold) and `to_vec` when the payloads cannot yield too many
    // values to wait for: every run can hold 65536 values, whatever the stored counts say.
    let bound = value_bound(bm);
    if bound <= 1 << 16 {
        // The bulk extraction gives what the iterator gives, whatever the bytes hold.
        let values = bm.to_vec();
        assert!(
            values.iter().copied().eq(bm.iter()),
            "to_vec differs from iter"
        );
        acc ^= values.len() as u64;
        acc ^= bm.iter().fold(0u64, |a, v| a.wrapping_add(u64::from(v)));
        let mut it = bm.iter();
        it.next();
        it.next_back();
        it.advance_to(70_000);
        acc ^= it.fold(0u64, |a, v| a.wrapping_mul(31).wrapping_add(u64::from(v)));
    }
    acc ^= stats.total_bytes ^ stats.metadata_bytes;
    for o in [bm, other] {
        acc ^= bm.intersection_len(o)
            ^ bm.union_len(o)
            ^ bm.difference_len(o)
            ^ bm.symmetric_difference_len(o);
        acc ^= u64::from(bm.is_subset(o)) ^ u64::from(bm.is_disjoint(o)) ^ u64::from(bm == o);
        acc ^= o.intersection_len(bm) ^ u64::from(o.is_subset(bm));
    }
    acc ^= u64::from(bm.validate().is_ok()) ^ u64::from(bm.verify().is_ok());
    acc ^= format!("{bm:?}").len() as u64;
    acc ^= bm.as_bytes().len() as u64;
    // Set operations never panic, with or without canonical kinds, written in place (an
    // empty buffer) or appended; between views the checked constructor accepts (corrupt
    // payloads included), they give bitmaps it accepts too. (An unchecked view of bytes
    // that fail the structural checks, keys out of order say, may give such bytes back.)
    let mut out = Vec::new();
    let checked = |v: &FrozenBitmap<'_>| FrozenBitmap::from_bytes(v.as_bytes()).is_ok();
    // One of the two result forms per input (chosen by its size), to halve the work.
    let canonical = bm.as_bytes().len().is_multiple_of(2);
    {
        let mut w = Writer::new().with_canonical(canonical);
        for o in [bm, other] {
            let both_checked = checked(bm) && checked(o);
            let opens = |bytes: &[u8], what: &str| -> u64 {
                match FrozenBitmap::from_bytes(bytes) {
                    Ok(r) => r.len(),
                    Err(e) if both_checked => panic!(
                        "{what} of checked views must open: {e}\ninputs {:?}\n{:?}",
                        bm.as_bytes(),
                        o.as_bytes()
                    ),
                    Err(_) => 0,
                }
            };
            for (k, prefix) in (0..4).flat_map(|k| [(k, 0), (k, 5)]) {
                out.clear();
                out.resize(prefix, 0);
                let r = match k {
                    0 => w.intersection_into(bm, o, &mut out),
                    1 => w.union_into(bm, o, &mut out),
                    2 => w.difference_into(bm, o, &mut out),
                    _ => w.symmetric_difference_into(bm, o, &mut out),
                }
                .unwrap();
                acc ^= opens(&out[r], &format!("operation {k}"));
            }
            out.clear();
            let r = w.union_many_into([bm, o, bm], &mut out).unwrap();
            acc ^= opens(&out[r], "a many-way union");
            out.clear();
            let r = w.intersection_many_into([o, bm], &mut out).unwrap();
            acc ^= opens(&out[r], "a many-way intersection");
            out.clear();
            let r = w
                .symmetric_difference_many_into([bm, o, bm, o], &mut out)
                .unwrap();
            acc ^= opens(&out[r], "a many-way symmetric difference");
            acc ^= w.symmetric_difference_many_len([o, bm, o]);
            out.clear();
            let r = w.difference_many_into([bm, o, o, bm], &mut out).unwrap();
            acc ^= opens(&out[r], "a many-way difference");
            out.clear();
            let r = w.difference_many_into([o, bm, o], &mut out).unwrap();
            acc ^= opens(&out[r], "a many-way difference");
            acc ^= w.difference_many_len([bm, o, o]);
        }
    }
    // The owned forms allocate what the values need, whatever the stored counts claim.
    acc ^= bm.union(other).len() ^ bm.intersection(other).len();
    acc ^=
        frozen_roaring::FrozenBitmapBuf::from_bytes(bm.as_bytes().to_vec()).map_or(0, |b| b.len());
    out.clear();
    acc ^= Writer::new()
        .write_portable(bm, &mut out)
        .map_or(0, |r| r.len() as u64);
    // Re-encoding never panics and gives a bitmap the checked constructor accepts.
    out.clear();
    let mut w = Writer::new();
    if let Ok(r) = w.write_frozen(bm, &mut out) {
        assert_eq!(r.len(), w.frozen_size(bm));
        if let Err(e) = FrozenBitmap::from_bytes(&out[r.clone()]) {
            panic!(
                "re-encoded bitmap must open: {e}\ninput {:?}\noutput {:?}",
                bm.as_bytes(),
                &out[r]
            );
        }
    }
    acc
}

/// For a view that passed strict validation: its answers are exact, so iteration is
/// strictly ascending, agrees with `len`, and `contains`, `rank` and `select` agree with it.
pub fn check_exact(bm: &FrozenBitmap<'_>) {
    let values = bm.to_vec();
    assert!(values.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(values.len() as u64, bm.len());
    for (i, &v) in values.iter().enumerate().step_by(31) {
        assert!(bm.contains(v));
        assert_eq!(bm.rank(v), i as u64 + 1);
        assert_eq!(bm.select(i as u32), Some(v));
    }
    // Windows between stored values, and what follows one.
    for w in values.chunks(97) {
        let (lo, hi) = (w[0], w[w.len() - 1]);
        let (a, b) = (
            values.partition_point(|&v| v < lo),
            values.partition_point(|&v| v <= hi),
        );
        assert!(bm.range(lo..=hi).eq(values[a..b].iter().copied()));
        let after = (Bound::Excluded(lo), Bound::Unbounded);
        assert!(
            bm.range(after)
                .rev()
                .take(50)
                .eq(values[a + 1..].iter().rev().take(50).copied())
        );
    }
}

/// `from_bytes` accepts exactly the bytes that `from_prefix` accepts whole (no bytes
/// left over), and gives the same view. (Both answer valid bitmaps by checks in
/// registers; the crate's unit tests hold those checks to the full parse.)
pub fn check_open_agrees(bytes: &[u8]) {
    let exact = FrozenBitmap::from_bytes(bytes);
    let prefix = FrozenBitmap::from_prefix(bytes);
    match (&exact, &prefix) {
        (Ok(a), Ok((b, []))) => {
            assert_eq!(a.as_bytes(), b.as_bytes());
            assert_eq!(a.format(), b.format());
            assert_eq!(a.container_count(), b.container_count());
            assert_eq!(a.len(), b.len());
            assert_eq!(a.min(), b.min());
            assert_eq!(a.max(), b.max());
        }
        (Err(_), Err(_)) | (Err(_), Ok((_, [_, ..]))) => {}
        _ => panic!(
            "from_bytes {:?} but from_prefix {:?}",
            exact.as_ref().map(|_| ()),
            prefix.as_ref().map(|(_, rest)| rest.len())
        ),
    }
}
