//! 64-bit bitmaps: both 64-bit formats against a model and against CRoaring's `Bitmap64`,
//! the interchange files, and hostile inputs.

mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;

use common::Rng;
use croaring::{Bitmap64, Portable};
use frozen_roaring::{ErrorKind, Format, FrozenBitmap64, Writer};
use proptest::prelude::*;

fn testdata(name: &str) -> Option<Vec<u8>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/testdata/croaring")
        .join(name);
    let bytes = std::fs::read(&path).ok();
    if bytes.is_none() {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "notice: {} not found, skipping this interchange check",
            path.display()
        );
    }
    bytes
}

fn check_queries(bm: &FrozenBitmap64<'_>, model: &BTreeSet<u64>, seed: u64) {
    let values: Vec<u64> = model.iter().copied().collect();
    assert_eq!(bm.len(), values.len() as u64);
    assert_eq!(bm.is_empty(), values.is_empty());
    assert_eq!(bm.min(), values.first().copied());
    assert_eq!(bm.max(), values.last().copied());
    assert!(bm.iter().eq(values.iter().copied()));
    assert_eq!(bm.to_vec(), values);
    // Appended after what the vector held, with and without room.
    for room in [0, values.len() + 3] {
        let mut out = Vec::with_capacity(room);
        out.push(u64::MAX);
        bm.extend_into(&mut out);
        assert_eq!(out[0], u64::MAX);
        assert_eq!(out[1..], values[..]);
    }
    assert_eq!(bm.iter().fold(0u64, |n, _| n + 1), values.len() as u64);
    let mut rng = Rng(seed);
    let mut probes = vec![0, 1, u64::MAX, u64::MAX - 1, 1 << 32, (1 << 32) - 1];
    for _ in 0..64.min(values.len()) {
        let v = values[rng.below(values.len() as u64) as usize];
        probes.extend([v, v.wrapping_add(1), v.wrapping_sub(1), v ^ (1 << 32)]);
    }
    probes.extend((0..16).map(|_| rng.next()));
    for p in probes {
        assert_eq!(bm.contains(p), model.contains(&p), "contains({p})");
        assert_eq!(bm.rank(p), model.range(..=p).count() as u64, "rank({p})");
    }
    for n in [0, 1, values.len() as u64 / 2, values.len() as u64, u64::MAX] {
        assert_eq!(bm.select(n), values.get(n as usize).copied(), "select({n})");
    }
    let buckets: BTreeSet<u32> = values.iter().map(|v| (v >> 32) as u32).collect();
    assert_eq!(bm.bucket_count(), buckets.len());
    assert!(bm.buckets().map(|(k, _)| k).eq(buckets.iter().copied()));
}

/// Range counts, the double-ended iterator with its skips and runs, masks and gaps, against
/// the model, at random unaligned ranges.
fn check_ranges_and_iterators(bm: &FrozenBitmap64<'_>, model: &BTreeSet<u64>, seed: u64) {
    let values: Vec<u64> = model.iter().copied().collect();
    let mut rng = Rng(seed);
    let mut points = vec![0, 1, u64::MAX, 1 << 32, (1 << 32) - 1];
    for _ in 0..24.min(values.len()) {
        let v = values[rng.below(values.len() as u64) as usize];
        points.extend([
            v,
            v.wrapping_add(1),
            v.wrapping_sub(1),
            v.wrapping_add(rng.below(5000)),
        ]);
    }
    points.extend((0..8).map(|_| rng.next()));
    for w in points.windows(2) {
        let (lo, hi) = (w[0].min(w[1]), w[0].max(w[1]));
        let count = model.range(lo..hi).count() as u64;
        assert_eq!(
            bm.range_cardinality(lo..hi),
            count,
            "range_cardinality({lo}..{hi})"
        );
        assert_eq!(
            bm.range_cardinality(lo..=hi),
            model.range(lo..=hi).count() as u64
        );
        assert_eq!(
            bm.contains_range(lo..hi),
            count == hi - lo,
            "contains_range({lo}..{hi})"
        );
        assert!(
            bm.range(lo..hi).eq(model.range(lo..hi).copied()),
            "range({lo}..{hi})"
        );
        assert!(
            bm.range(lo..=hi)
                .rev()
                .eq(model.range(lo..=hi).rev().copied()),
            "range({lo}..={hi}).rev()"
        );
        assert!(
            bm.range(lo..).eq(model.range(lo..).copied()),
            "range({lo}..)"
        );
        assert!(
            bm.range(..=lo).eq(model.range(..=lo).copied()),
            "range(..={lo})"
        );
        if lo < hi {
            assert_eq!(bm.range(hi..lo).next(), None, "range({hi}..{lo})");
        }
        // Masks and gaps over ranges of at most 2^13 rows.
        let hi = hi.min(lo.saturating_add(1 << 13));
        let mut mask = vec![!0u64; ((hi - lo) as usize).div_ceil(64) + 1];
        bm.fill_mask(lo..hi, &mut mask);
        let want_words = ((hi - lo) as usize).div_ceil(64);
        assert_eq!(mask[want_words], !0, "fill_mask wrote past its words");
        for (i, v) in (lo..hi).enumerate() {
            let bit = mask[i / 64] >> (i % 64) & 1 == 1;
            assert_eq!(bit, model.contains(&v), "fill_mask({lo}..{hi}) bit {i}");
        }
        if want_words > 0 {
            let tail = (hi - lo) % 64;
            if tail != 0 {
                assert_eq!(mask[want_words - 1] >> tail, 0, "bits past the range");
            }
        }
        let mut expect = Vec::new();
        let mut start = None;
        for v in lo..hi {
            match (model.contains(&v), start) {
                (false, None) => start = Some(v),
                (true, Some(s)) => {
                    expect.push(s..v);
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(s) = start {
            expect.push(s..hi);
        }
        assert_eq!(
            bm.live_ranges(lo..hi).collect::<Vec<_>>(),
            expect,
            "live_ranges({lo}..{hi})"
        );
    }
    // Backward and mixed iteration.
    assert!(bm.iter().rev().eq(values.iter().rev().copied()));
    let mut it = bm.iter();
    let (mut front, mut back) = (0usize, values.len());
    while front < back {
        if rng.below(2) == 0 {
            assert_eq!(it.next(), Some(values[front]));
            front += 1;
        } else {
            back -= 1;
            assert_eq!(it.next_back(), Some(values[back]));
        }
    }
    assert_eq!((it.next(), it.next_back()), (None, None));
    // Skips from either end.
    for &p in &points {
        let mut it = bm.iter();
        it.advance_to(p);
        assert_eq!(
            it.next(),
            model.range(p..).next().copied(),
            "advance_to({p})"
        );
        let mut it = bm.iter();
        it.advance_back_to(p);
        assert_eq!(
            it.next_back(),
            model.range(..=p).next_back().copied(),
            "advance_back_to({p})"
        );
    }
    // next_many in odd chunk sizes, and maximal runs.
    let mut it = bm.iter();
    let mut got = Vec::new();
    let mut buf = [0u64; 37];
    loop {
        let n = it.next_many(&mut buf[..1 + rng.below(36) as usize]).len();
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
    }
    assert_eq!(got, values);
    let mut it = bm.iter();
    let mut forward: Vec<(u64, u64)> = Vec::new();
    let mut flat = Vec::new();
    while let Some(r) = it.next_range() {
        assert!(r.start() <= r.end());
        if let Some(&(_, e)) = forward.last() {
            assert!(*r.start() > e + 1, "ranges {e} and {r:?} touch");
        }
        forward.push((*r.start(), *r.end()));
        flat.extend(r);
        if flat.len() > values.len() {
            break;
        }
    }
    assert_eq!(flat, values);
    // The same maximal runs from the top down.
    let mut backward: Vec<(u64, u64)> = std::iter::from_fn({
        let mut it = bm.iter();
        move || it.next_range_back().map(|r| (*r.start(), *r.end()))
    })
    .take(values.len() + 1)
    .collect();
    backward.reverse();
    assert_eq!(backward, forward);
    // Ranges from both ends at random, meeting in the middle: together the values, each
    // side's ranges maximal within what was left to it.
    let mut it = bm.iter();
    let (mut low, mut high) = (Vec::new(), Vec::new());
    while low.len() + high.len() <= values.len() {
        let r = if rng.below(2) == 0 {
            it.next_range().map(|r| (r, &mut low))
        } else {
            it.next_range_back().map(|r| (r, &mut high))
        };
        let Some((r, side)) = r else { break };
        side.push((*r.start(), *r.end()));
    }
    for w in low.windows(2) {
        assert!(w[0].1 + 1 < w[1].0, "front ranges {w:?} touch");
    }
    for w in high.windows(2) {
        assert!(w[1].1 + 1 < w[0].0, "back ranges {w:?} touch");
    }
    high.reverse();
    let flat: Vec<u64> = low.iter().chain(&high).flat_map(|&(a, b)| a..=b).collect();
    assert_eq!(flat, values);
}

/// A 64-bit set operation of the `Writer`.
type Op64 = fn(
    &mut Writer,
    &FrozenBitmap64<'_>,
    &FrozenBitmap64<'_>,
    &mut Vec<u8>,
) -> Result<std::ops::Range<usize>, frozen_roaring::Error>;

fn set64() -> impl Strategy<Value = BTreeSet<u64>> {
    let hi = prop_oneof![
        Just(0u32),
        Just(1u32),
        Just(u32::MAX),
        0u32..8,
        any::<u32>()
    ];
    let lo = prop_oneof![
        0u32..200,
        any::<u32>(),
        (0u32..4).prop_map(|k| (k << 16) | 0xFFFF),
        Just(u32::MAX),
    ];
    let dense = (hi.clone(), 0u32..3, 1u32..70_000)
        .prop_map(|(h, k, n)| ((u64::from(h) << 32) | u64::from(k << 16), n));
    (
        prop::collection::vec((hi, lo), 0..60),
        prop::collection::vec(dense, 0..3),
    )
        .prop_map(|(points, ranges)| {
            let mut s: BTreeSet<u64> = points
                .into_iter()
                .map(|(h, l)| (u64::from(h) << 32) | u64::from(l))
                .collect();
            for (start, n) in ranges {
                for v in start..(start + u64::from(n)).min(start | 0xFFFF_FFFF) {
                    if v % 3 != 1 || n > 50_000 {
                        s.insert(v);
                    }
                }
            }
            s
        })
}

fn both_formats(s: &BTreeSet<u64>, checksum: bool) -> (Vec<u8>, Vec<u8>) {
    let mut w = Writer::new().with_checksum(checksum);
    let (mut f, mut p) = (Vec::new(), Vec::new());
    let r = w.write_sorted64(s.iter().copied(), &mut f).unwrap();
    assert_eq!(r, 0..f.len());
    let r = w
        .write_portable_sorted64(s.iter().copied(), &mut p)
        .unwrap();
    assert_eq!(r, 0..p.len());
    (f, p)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: if std::env::var_os("CI").is_some() { 48 } else { 160 }, ..ProptestConfig::default() })]

    #[test]
    fn queries_match_model_in_both_formats(s in set64(), seed in any::<u64>(), checksum in any::<bool>()) {
        let (f, p) = both_formats(&s, checksum);
        let fv = FrozenBitmap64::from_bytes_strict(&f).unwrap();
        let pv = FrozenBitmap64::from_bytes_strict(&p).unwrap();
        prop_assert_eq!(fv.format(), Format::Frozen);
        prop_assert_eq!(pv.format(), Format::Portable);
        prop_assert_eq!(fv.has_checksum(), checksum);
        check_queries(&fv, &s, seed);
        check_queries(&pv, &s, seed);
        prop_assert_eq!(fv, pv);

        // CRoaring writes the same portable bytes and reads ours.
        let mut cr = Bitmap64::of(&s.iter().copied().collect::<Vec<_>>());
        cr.run_optimize();
        prop_assert_eq!(cr.serialize::<Portable>(), p.clone());
        let back = Bitmap64::try_deserialize::<Portable>(&p).unwrap();
        prop_assert!(back.iter().eq(s.iter().copied()));
    }

    #[test]
    fn pair_counts_match_model(a in set64(), b in set64(), mix in any::<bool>()) {
        let b: BTreeSet<u64> = if mix { a.iter().copied().filter(|v| v % 3 != 0).chain(b.iter().copied().take(3)).collect() } else { b };
        let (fa, pa) = both_formats(&a, false);
        let (fb, pb) = both_formats(&b, false);
        let inter = a.intersection(&b).count() as u64;
        for x in [&fa, &pa] {
            for y in [&fb, &pb] {
                let (va, vb) = (FrozenBitmap64::from_bytes(x).unwrap(), FrozenBitmap64::from_bytes(y).unwrap());
                prop_assert_eq!(va.intersection_len(&vb), inter);
                prop_assert_eq!(vb.intersection_len(&va), inter);
                prop_assert_eq!(va.union_len(&vb), a.union(&b).count() as u64);
                prop_assert_eq!(va.is_subset(&vb), a.is_subset(&b));
                prop_assert_eq!(vb.is_subset(&va), b.is_subset(&a));
                prop_assert_eq!(va.is_superset(&vb), a.is_superset(&b));
                prop_assert_eq!(va == vb, a == b);
            }
        }
    }

    #[test]
    fn range_iterator_and_mask_queries_match_model(s in set64(), seed in any::<u64>()) {
        let (f, p) = both_formats(&s, false);
        for bytes in [&f, &p] {
            let bm = FrozenBitmap64::from_bytes(bytes).unwrap();
            check_ranges_and_iterators(&bm, &s, seed);
        }
    }

    /// Portable bytes with empty buckets between and around the real ones (as Delta Spark
    /// writes them: one bucket per key up to the highest) answer every query as the model.
    #[test]
    fn empty_buckets_change_no_answer(s in set64(), seed in any::<u64>()) {
        let keys: BTreeSet<u32> = s.iter().map(|v| (v >> 32) as u32).collect();
        let mut all_keys: BTreeSet<u32> = keys.clone();
        for &k in &keys {
            all_keys.extend([k.wrapping_sub(1), k.wrapping_add(1)]);
        }
        all_keys.insert(0);
        let mut w = Writer::new();
        let mut bytes = (all_keys.len() as u64).to_le_bytes().to_vec();
        for &k in &all_keys {
            bytes.extend_from_slice(&k.to_le_bytes());
            let lows = s.range(u64::from(k) << 32..=(u64::from(k) << 32) | 0xFFFF_FFFF).map(|&v| v as u32);
            w.write_portable_sorted(lows, &mut bytes).unwrap();
        }
        let bm = FrozenBitmap64::from_bytes_strict(&bytes).unwrap();
        prop_assert_eq!(bm.bucket_count(), all_keys.len());
        let values: Vec<u64> = s.iter().copied().collect();
        prop_assert_eq!(bm.len(), values.len() as u64);
        prop_assert_eq!(bm.min(), values.first().copied());
        prop_assert_eq!(bm.max(), values.last().copied());
        check_ranges_and_iterators(&bm, &s, seed);
        let (f, _) = both_formats(&s, false);
        let frozen = FrozenBitmap64::from_bytes(&f).unwrap();
        prop_assert!(bm == frozen);
        let mut out = Vec::new();
        let r = w.union64_into(&bm, &frozen, &mut out).unwrap();
        prop_assert!(FrozenBitmap64::from_bytes_strict(&out[r]).unwrap().iter().eq(values.iter().copied()));
        prop_assert_eq!(bm.intersection_len(&frozen), values.len() as u64);
    }

    #[test]
    fn pair_forms_match_model(a in set64(), b in set64(), mix in any::<bool>()) {
        let b: BTreeSet<u64> = if mix { a.iter().copied().filter(|v| v % 3 != 0).chain(b.iter().copied().take(3)).collect() } else { b };
        let (fa, pa) = both_formats(&a, false);
        let (fb, pb) = both_formats(&b, false);
        let inter = a.intersection(&b).count() as u64;
        let (va, vb) = (FrozenBitmap64::from_bytes(&fa).unwrap(), FrozenBitmap64::from_bytes(&pb).unwrap());
        prop_assert_eq!(va.is_disjoint(&vb), inter == 0);
        prop_assert_eq!(va.difference_len(&vb), a.difference(&b).count() as u64);
        prop_assert_eq!(va.symmetric_difference_len(&vb), a.symmetric_difference(&b).count() as u64);
        let _ = pa;
        let _ = fb;
    }

    #[test]
    fn set_operations_into_buffers_match_model(a in set64(), b in set64(), c in set64(), mix in any::<bool>()) {
        let b: BTreeSet<u64> = if mix { a.iter().copied().filter(|v| v % 3 != 0).chain(b.iter().copied().take(3)).collect() } else { b };
        let (fa, pa) = both_formats(&a, false);
        let (fb, pb) = both_formats(&b, false);
        let (_, pc) = both_formats(&c, false);
        let mut w = Writer::new();
        let mut out = vec![7u8; 3]; // results are appended after what is there
        for x in [&fa, &pa] {
            for y in [&fb, &pb] {
                let (va, vb) = (FrozenBitmap64::from_bytes(x).unwrap(), FrozenBitmap64::from_bytes(y).unwrap());
                let cases: [(Op64, BTreeSet<u64>); 4] = [
                    (Writer::intersection64_into, a.intersection(&b).copied().collect()),
                    (Writer::union64_into, a.union(&b).copied().collect()),
                    (Writer::difference64_into, a.difference(&b).copied().collect()),
                    (Writer::symmetric_difference64_into, a.symmetric_difference(&b).copied().collect()),
                ];
                for (op, want) in cases {
                    let r = op(&mut w, &va, &vb, &mut out).unwrap();
                    prop_assert_eq!(&out[..3], &[7u8, 7, 7][..]);
                    let got = FrozenBitmap64::from_bytes_strict(&out[r.clone()]).unwrap();
                    prop_assert!(got.iter().eq(want.iter().copied()));
                    prop_assert!(got.buckets().all(|(_, b)| !b.is_empty()), "no empty buckets");
                    out.truncate(3);
                }
                prop_assert_eq!(va.intersection(&vb).as_view().len(), a.intersection(&b).count() as u64);
                prop_assert_eq!(va.union(&vb), frozen_roaring::FrozenBitmap64Buf::from_sorted_iter(a.union(&b).copied()).unwrap());
            }
        }
        let views: Vec<FrozenBitmap64<'_>> = [&pa, &fb, &pc].iter().map(|x| FrozenBitmap64::from_bytes(x).unwrap()).collect();
        let r = w.union64_many_into(&views, &mut out).unwrap();
        let all: BTreeSet<u64> = a.iter().chain(&b).chain(&c).copied().collect();
        prop_assert!(FrozenBitmap64::from_bytes_strict(&out[r]).unwrap().iter().eq(all.iter().copied()));
        let owned = frozen_roaring::FrozenBitmap64Buf::union_many(&views);
        prop_assert!(owned.as_view().iter().eq(all.iter().copied()));
        prop_assert_eq!(owned.len(), all.len() as u64);
        let from_portable = frozen_roaring::FrozenBitmap64Buf::from_bytes(pa.clone()).unwrap();
        prop_assert!(from_portable.as_view().iter().eq(a.iter().copied()));
        prop_assert_eq!(from_portable.as_view().format(), Format::Frozen);
    }

    #[test]
    fn every_truncation_and_sampled_byte_flip_is_handled(s in set64(), seed in any::<u64>()) {
        let (f, p) = both_formats(&s, true);
        let mut rng = Rng(seed);
        for bytes in [&f, &p] {
            for _ in 0..24 {
                let len = rng.below(bytes.len() as u64) as usize;
                prop_assert!(FrozenBitmap64::from_bytes(&bytes[..len]).is_err());
            }
            for _ in 0..48 {
                let mut bad = bytes.clone();
                let i = rng.below(bad.len() as u64) as usize;
                bad[i] ^= 1 << rng.below(8);
                if let Ok(v) = FrozenBitmap64::from_bytes(&bad) {
                    let _ = (v.len(), v.iter().take(10_000).count(), v.rank(rng.next()), v.select(3), v.max());
                    if let Ok(v) = FrozenBitmap64::from_bytes_strict(&bad) {
                        prop_assert_eq!(v.len(), v.iter().count() as u64);
                    }
                }
            }
        }
    }
}

#[test]
fn not_ascending_reports_the_position_and_leaves_out_unchanged() {
    let mut w = Writer::new();
    for values in [
        vec![1u64, 2, 2],
        vec![5, 1 << 40, 3],
        vec![1 << 33, 1 << 32],
    ] {
        let mut out = vec![9u8; 5];
        let err = w.write_sorted64(values.clone(), &mut out).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NotAscending);
        assert_eq!(err.position(), Some(values.len() as u64 - 1));
        assert_eq!(out, [9; 5]);
        let err = w
            .write_portable_sorted64(values.clone(), &mut out)
            .unwrap_err();
        assert_eq!(err.position(), Some(values.len() as u64 - 1));
        assert_eq!(out, [9; 5]);
    }
    // The writer is still usable afterwards.
    let mut out = Vec::new();
    w.write_sorted64([1, 2], &mut out).unwrap();
    assert_eq!(FrozenBitmap64::from_bytes(&out).unwrap().len(), 2);
}

#[test]
fn empty_bitmaps() {
    let (f, p) = both_formats(&BTreeSet::new(), false);
    assert_eq!(p, 0u64.to_le_bytes());
    for bytes in [&f, &p] {
        let v = FrozenBitmap64::from_bytes_strict(bytes).unwrap();
        assert!(v.is_empty() && v.min().is_none() && v.max().is_none());
        assert_eq!(v.iter().next(), None);
    }
}

#[test]
fn interchange_files_read_as_croaring_reads_them() {
    for name in [
        "64map32bitvals.bin",
        "64mapempty.bin",
        "64maphighvals.bin",
        "64mapspreadvals.bin",
    ] {
        let Some(bytes) = testdata(name) else {
            continue;
        };
        let cr = Bitmap64::try_deserialize::<Portable>(&bytes).unwrap();
        let v = FrozenBitmap64::from_bytes_strict(&bytes).unwrap();
        assert_eq!(v.len(), cr.cardinality(), "{name}");
        assert!(v.iter().eq(cr.iter()), "{name}");
        let model: BTreeSet<u64> = cr.iter().collect();
        check_queries(&v, &model, 3);
        // Written back from the values: CRoaring's own bytes for the set.
        let mut ours = Vec::new();
        Writer::new()
            .write_portable_sorted64(model.iter().copied(), &mut ours)
            .unwrap();
        let mut cr2 = cr.clone();
        cr2.run_optimize();
        assert_eq!(ours, cr2.serialize::<Portable>(), "{name}");
    }
    for name in [
        "64mapemptyinput.bin",
        "64mapinvalidsize.bin",
        "64mapkeytoosmall.bin",
        "64mapsizetoosmall.bin",
    ] {
        let Some(bytes) = testdata(name) else {
            continue;
        };
        assert!(Bitmap64::try_deserialize::<Portable>(&bytes).is_none());
        let err = FrozenBitmap64::from_bytes(&bytes).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::Truncated | ErrorKind::Malformed),
            "{name}: {err}"
        );
    }
}

#[test]
fn crafted_frozen64_headers() {
    let mut f = Vec::new();
    Writer::new()
        .write_sorted64([1, 1 << 32, 2 << 32], &mut f)
        .unwrap();
    let check = |bytes: &[u8], kind: ErrorKind, what: &str| {
        let err = FrozenBitmap64::from_bytes(bytes).unwrap_err();
        assert_eq!(err.kind(), kind, "{what}: {err}");
        assert!(err.to_string().contains(what), "{what}: {err}");
    };
    let mut bad = f.clone();
    bad[4] = 9;
    check(&bad, ErrorKind::UnsupportedVersion, "version");
    let mut bad = f.clone();
    bad[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    check(&bad, ErrorKind::Malformed, "bucket count");
    let mut bad = f.clone();
    bad[28..32].copy_from_slice(&0u32.to_le_bytes()); // second key = first key
    check(&bad, ErrorKind::Malformed, "strictly increasing");
    let mut bad = f.clone();
    let cum1 = 40 + 24 + 8; // offsets at 40 (24 + 12 padded to 8), cums after 3 offsets
    bad[cum1..cum1 + 8].copy_from_slice(&7u64.to_le_bytes());
    check(&bad, ErrorKind::Malformed, "cumulative count");
    let mut bad = f.clone();
    bad[48..56].copy_from_slice(&3u64.to_le_bytes());
    check(&bad, ErrorKind::Malformed, "bucket offset");
    let mut longer = f.clone();
    longer.push(0);
    check(&longer, ErrorKind::Malformed, "total length");
    // A bucket count far beyond the bytes in the portable format: rejected before use.
    let mut p = 20_000_000u64.to_le_bytes().to_vec();
    p.extend_from_slice(&[0; 56]);
    check(&p, ErrorKind::Malformed, "bucket count");
}

/// The maximal runs of a 64-bit set, read both ways; both must agree.
fn ranges_both_ways(values: &[u64]) -> Vec<(u64, u64)> {
    let (f, p) = both_formats(&values.iter().copied().collect(), false);
    let mut out = Vec::new();
    for bytes in [&f, &p] {
        let bm = FrozenBitmap64::from_bytes_strict(bytes).unwrap();
        let forward: Vec<(u64, u64)> = std::iter::from_fn({
            let mut it = bm.iter();
            move || it.next_range().map(|r| (*r.start(), *r.end()))
        })
        .collect();
        let mut backward: Vec<(u64, u64)> = std::iter::from_fn({
            let mut it = bm.iter();
            move || it.next_range_back().map(|r| (*r.start(), *r.end()))
        })
        .collect();
        backward.reverse();
        assert_eq!(backward, forward, "{values:?}");
        out = forward;
    }
    out
}

#[test]
fn ranges_join_only_across_adjacent_buckets_that_meet() {
    const B: u64 = 1 << 32;
    // A run across the boundary of buckets 0 and 1, and a lone value above it.
    let mut v: Vec<u64> = (B - 3..=B + 5).collect();
    v.push(B + 100);
    assert_eq!(ranges_both_ways(&v), [(B - 3, B + 5), (B + 100, B + 100)]);
    // A run over three buckets, the middle one full at both ends only.
    let v = [2 * B - 1, 2 * B, 3 * B - 1, 3 * B, 3 * B + 1];
    assert_eq!(
        ranges_both_ways(&v),
        [(2 * B - 1, 2 * B), (3 * B - 1, 3 * B + 1)]
    );
    // Bucket 1 starts at 0, but bucket 0 does not end at u32::MAX: no join.
    let v = [B - 2, B, B + 1];
    assert_eq!(ranges_both_ways(&v), [(B - 2, B - 2), (B, B + 1)]);
    // Bucket 0 ends at u32::MAX and bucket 2 starts at 0: not adjacent, no join.
    let v = [B - 1, 2 * B];
    assert_eq!(ranges_both_ways(&v), [(B - 1, B - 1), (2 * B, 2 * B)]);
    // The very top of the 64-bit space.
    let v = [u64::MAX - (B + 1), u64::MAX - B, u64::MAX - 1, u64::MAX];
    assert_eq!(
        ranges_both_ways(&v),
        [(u64::MAX - (B + 1), u64::MAX - B), (u64::MAX - 1, u64::MAX)]
    );
}

/// Containment across buckets: a stretch that runs over a bucket's end is held only while
/// both buckets hold their parts, and not past a missing bucket.
#[test]
fn contains_range_crosses_buckets() {
    const B: u64 = 1 << 32;
    let s: BTreeSet<u64> = (B - 300..B + 300)
        .chain(2 * B + 5..2 * B + 10)
        .chain(4 * B - 2..4 * B)
        .collect();
    for bytes in [both_formats(&s, false).0, both_formats(&s, true).1] {
        let bm = FrozenBitmap64::from_bytes(&bytes).unwrap();
        for (lo, hi) in [
            (B - 300, B + 300),
            (B - 1, B + 1),
            (B - 301, B + 1),
            (B - 1, B + 301),
            (B + 299, 2 * B + 6),
            (2 * B + 5, 2 * B + 10),
            (4 * B - 2, 4 * B),
            (4 * B - 2, 4 * B + 1),
            (3 * B, 3 * B + 1),
        ] {
            assert_eq!(
                bm.contains_range(lo..hi),
                (lo..hi).all(|v| s.contains(&v)),
                "contains_range({lo}..{hi})"
            );
        }
    }
}
