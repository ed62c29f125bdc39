//! Property tests: every query against a `BTreeSet<u32>` model, on sets built to hit the
//! format's edges (empty, single values, 0 and u32::MAX, 4096/4097-value containers, full
//! containers, runs at container edges, many containers).

mod common;

use std::collections::BTreeSet;

use common::strategies::*;
use common::*;
use frozen_roaring::{ContainerKind, FrozenBitmap, Writer};
use proptest::prelude::*;

/// The canonical kind, computed independently of the crate from the model's values.
fn expected_kind(lows: &[u32]) -> ContainerKind {
    let card = lows.len() as u64;
    let runs = 1 + lows.windows(2).filter(|w| w[1] != w[0] + 1).count() as u64;
    let (run_size, other) = (2 + 4 * runs, if card <= 4096 { 2 * card } else { 8192 });
    if run_size < other {
        ContainerKind::Run
    } else if card <= 4096 {
        ContainerKind::Array
    } else {
        ContainerKind::Bitset
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: if std::env::var_os("CI").is_some() { 96 } else { 256 }, ..ProptestConfig::default() })]

    #[test]
    fn queries_match_model(s in set(), seed in any::<u64>()) {
        let bytes = encode(&s);
        let bm = FrozenBitmap::from_bytes_strict(&bytes).unwrap();
        check_queries(&bm, &s, seed);
        // The unchecked constructor gives the same view of bytes we wrote.
        // SAFETY: the bytes come straight from our writer.
        let unchecked = unsafe { FrozenBitmap::from_bytes_unchecked(&bytes) };
        prop_assert_eq!(unchecked.to_vec(), bm.to_vec());
        // The same set in the portable format answers identically.
        let mut portable = Vec::new();
        Writer::new().write_portable_sorted(s.iter().copied(), &mut portable).unwrap();
        let pv = FrozenBitmap::from_bytes_strict(&portable).unwrap();
        check_queries(&pv, &s, seed);
        // SAFETY: the bytes come straight from our writer.
        let unchecked = unsafe { FrozenBitmap::from_bytes_unchecked(&portable) };
        prop_assert_eq!(unchecked.to_vec(), pv.to_vec());
    }

    /// Re-encoding a checked view (one pass over its directory) writes the bytes the
    /// general path writes for the same view opened unchecked (which re-parses it), in
    /// both directions, with and without a checksum, after bytes already in the output,
    /// and for frozen input whose small bitsets must become portable arrays.
    #[test]
    fn conversions_of_checked_views_match_the_general_path(a in many_containers(), b in many_containers(), lead in 0usize..70, crc in any::<bool>()) {
        let mut relaxed = Writer::new().with_canonical(false);
        let (ea, eb) = (encode(&a), encode(&b));
        let (va, vb) = (FrozenBitmap::from_bytes(&ea).unwrap(), FrozenBitmap::from_bytes(&eb).unwrap());
        // Without canonical kinds, an intersection of bitsets stays a bitset however few
        // values it keeps.
        let mut out = Vec::new();
        let r = relaxed.intersection_into(&va, &vb, &mut out).unwrap();
        let inter = out[r].to_vec();
        for frozen in [&ea[..], &eb[..], &inter[..]] {
            check_conversions(frozen, lead, crc)?;
        }
    }

    /// The same for bitmaps of one container of every kind, which take a shorter path.
    #[test]
    fn one_container_conversions_match_the_general_path(k in key(), s in shape(), seed in any::<u64>(), lead in 0usize..70, crc in any::<bool>()) {
        check_conversions(&encode(&build_set(&[(k, s, seed)])), lead, crc)?;
    }

    #[test]
    fn pair_counts_match_model(a in set(), b in set(), mix in any::<bool>()) {
        // Half the time make b overlap a heavily so that subsets and equalities occur.
        let b: BTreeSet<u32> = if mix { a.iter().copied().filter(|v| v % 3 != 0).chain(b.iter().copied().take(5)).collect() } else { b };
        let (ea, eb) = (encode(&a), encode(&b));
        let (va, vb) = (FrozenBitmap::from_bytes(&ea).unwrap(), FrozenBitmap::from_bytes(&eb).unwrap());
        check_pair(&va, &vb, &a, &b);
        check_pair(&va, &va, &a, &a);
        // Mixed formats: portable on one side or both.
        let mut pb = Vec::new();
        Writer::new().write_portable(&vb, &mut pb).unwrap();
        let pvb = FrozenBitmap::from_bytes(&pb).unwrap();
        check_pair(&va, &pvb, &a, &b);
        check_pair(&pvb, &va, &b, &a);
        check_pair(&pvb, &pvb, &b, &b);
    }

    /// Subsets and disjoint pairs on shared keys, where the answer takes every container:
    /// a set against itself with values taken out (kinds change: runs with holes, bitsets
    /// thinned to arrays), with one value put back in from outside, and against values of
    /// its containers that it lacks; and the same sets without canonical kinds (bitsets
    /// of a few values), so that every pair of kinds meets.
    #[test]
    fn relations_match_model_on_every_pair_of_kinds(parts in prop::collection::vec((0u16..3, shape(), any::<u64>()), 1..4), seed in any::<u64>()) {
        let a = build_set(&parts);
        let mut rng = Rng(seed);
        let step = 2 + rng.below(40) as u32;
        let sub: BTreeSet<u32> = a.iter().copied().filter(|v| v % step != 0).collect();
        let outside: Vec<u32> = (0..1u32 << 18).filter(|v| !a.contains(v)).step_by(1 + rng.below(97) as usize).collect();
        let mut near = sub.clone();
        near.extend(outside.get(rng.below(outside.len() as u64) as usize));
        let apart: BTreeSet<u32> = outside.iter().copied().collect();
        let sets = [a, sub, near, apart];
        let frozen: Vec<Vec<u8>> = sets.iter().map(encode).collect();
        let views: Vec<_> = frozen.iter().map(|b| FrozenBitmap::from_bytes(b).unwrap()).collect();
        // Without canonical kinds: each set as the intersection of itself with the first
        // set's union with it, which keeps the first operand's kinds where keys meet.
        let mut relaxed = Writer::new().with_canonical(false);
        let mut wide = Vec::new();
        relaxed.union_into(&views[0], &views[3], &mut wide).unwrap();
        let wide = FrozenBitmap::from_bytes(&wide).unwrap();
        let relaxed_bytes: Vec<Vec<u8>> = views.iter().map(|v| {
            let mut out = Vec::new();
            relaxed.intersection_into(&wide, v, &mut out).unwrap();
            out
        }).collect();
        let relaxed_views: Vec<_> = relaxed_bytes.iter().map(|b| FrozenBitmap::from_bytes(b).unwrap()).collect();
        for (x, sx) in views.iter().chain(&relaxed_views).zip(sets.iter().cycle()) {
            for (y, sy) in views.iter().chain(&relaxed_views).zip(sets.iter().cycle()) {
                check_pair(x, y, sx, sy);
            }
        }
        for (v, s) in relaxed_views.iter().zip(&sets) {
            check_queries(v, s, seed);
        }
    }

    #[test]
    fn writer_picks_canonical_kinds(s in set()) {
        let bytes = encode(&s);
        let stats = FrozenBitmap::from_bytes(&bytes).unwrap().statistics();
        let mut expected = [0u32; 3];
        let mut lows: Vec<u32> = Vec::new();
        let mut key = None;
        for v in s.iter().copied().chain([u32::MAX].into_iter().filter(|_| false)) {
            if key != Some(v >> 16) {
                if !lows.is_empty() { expected[expected_kind(&lows) as usize] += 1; }
                lows.clear();
                key = Some(v >> 16);
            }
            lows.push(v & 0xFFFF);
        }
        if !lows.is_empty() { expected[expected_kind(&lows) as usize] += 1; }
        prop_assert_eq!([stats.array_containers, stats.bitset_containers, stats.run_containers], expected);
    }

    #[test]
    fn every_output_path_gives_the_same_bytes(s in set(), checksum in any::<bool>(), prefix in 0usize..70) {
        let mut w = Writer::new().with_checksum(checksum);
        let mut out = vec![0xAAu8; prefix];
        let range = w.write_sorted(s.iter().copied(), &mut out).unwrap();
        prop_assert_eq!(&out[..prefix], &vec![0xAAu8; prefix][..], "bytes before the bitmap are kept");
        prop_assert!(out[prefix..range.start].iter().all(|&b| b == 0), "padding is zero");
        prop_assert_eq!(range.end, out.len());
        let bytes = &out[range.clone()];
        let align = if FrozenBitmap::from_bytes(bytes).unwrap().statistics().bitset_containers > 0 { 64 } else { 4 };
        prop_assert_eq!(range.start % align, 0);
        prop_assert_eq!(w.serialized_size(s.iter().copied()).unwrap(), bytes.len());
        let strict = FrozenBitmap::from_bytes_strict(bytes).unwrap();
        prop_assert_eq!(strict.has_checksum(), checksum);

        let mut slice = vec![0u8; bytes.len() + 3];
        prop_assert_eq!(w.write_sorted_to_slice(s.iter().copied(), &mut slice).unwrap(), bytes.len());
        prop_assert_eq!(&slice[..bytes.len()], bytes);
        if !bytes.is_empty() {
            let err = w.write_sorted_to_slice(s.iter().copied(), &mut slice[..bytes.len() - 1]).unwrap_err();
            prop_assert_eq!(err.needed(), Some(bytes.len() as u64));
        }

        let mut io = Vec::new();
        prop_assert_eq!(w.write_sorted_to(s.iter().copied(), &mut io).unwrap(), bytes.len());
        prop_assert_eq!(&io[..], bytes);

        let mut b = w.builder();
        for v in &s { b.push(*v).unwrap(); }
        let mut built = Vec::new();
        let r = b.finish(&mut built);
        prop_assert_eq!(&built[r], bytes);

        // Re-encoding keeps the bytes, and toggling the checksum twice comes back.
        let mut again = Vec::new();
        let r = w.write_frozen(&strict, &mut again).unwrap();
        prop_assert_eq!(&again[r], bytes);
        let mut other = Writer::new().with_checksum(!checksum);
        let mut toggled = Vec::new();
        let r = other.write_frozen(&strict, &mut toggled).unwrap();
        prop_assert_eq!(other.frozen_size(&strict), r.len());
        let toggled_view = FrozenBitmap::from_bytes_strict(&toggled[r]).unwrap();
        prop_assert_eq!(toggled_view, strict);
        let mut back = Vec::new();
        let r = w.write_frozen(&toggled_view, &mut back).unwrap();
        prop_assert_eq!(&back[r], bytes);
    }

    #[test]
    fn views_work_at_any_address(s in set(), shift in 0usize..64) {
        let bytes = encode(&s);
        let mut shifted = vec![0u8; shift];
        shifted.extend_from_slice(&bytes);
        let bm = FrozenBitmap::from_bytes_strict(&shifted[shift..]).unwrap();
        prop_assert_eq!(bm.to_vec(), s.iter().copied().collect::<Vec<_>>());
    }
}

#[test]
fn not_ascending_is_reported_with_its_position_and_out_is_untouched() {
    let mut w = Writer::new();
    let mut out = vec![1, 2, 3];
    for (values, pos) in [
        (vec![1u32, 5, 5], 2u64),
        (vec![9, 3], 1),
        (vec![0, 1, 2, 100_000, 70_000], 4),
    ] {
        let err = w
            .write_sorted(values.iter().copied(), &mut out)
            .unwrap_err();
        assert_eq!(err.kind(), frozen_roaring::ErrorKind::NotAscending);
        assert_eq!(err.position(), Some(pos), "{values:?}");
        assert!(err.to_string().contains("strictly ascending"), "{err}");
        assert_eq!(out, [1, 2, 3]);
        assert!(w.serialized_size(values.iter().copied()).is_err());
    }
    // The writer is still usable and the builder skips the bad value.
    let r = w.write_sorted([4, 5], &mut out).unwrap();
    assert_eq!(FrozenBitmap::from_bytes(&out[r]).unwrap().to_vec(), [4, 5]);
    let mut b = w.builder();
    b.push(10).unwrap();
    assert!(b.push(10).is_err());
    b.push(11).unwrap();
    let mut o = Vec::new();
    let r = b.finish(&mut o);
    assert_eq!(FrozenBitmap::from_bytes(&o[r]).unwrap().to_vec(), [10, 11]);
}

#[test]
fn largest_bitmaps() {
    // Every u32: 65536 full containers (run kind), the largest cardinality there is.
    let mut out = Vec::new();
    let r = Writer::new().write_sorted(0..=u32::MAX, &mut out).unwrap();
    let bm = FrozenBitmap::from_bytes_strict(&out[r]).unwrap();
    assert_eq!(bm.len(), 1 << 32);
    assert_eq!(bm.container_count(), 65536);
    assert_eq!(bm.select(u32::MAX), Some(u32::MAX));
    assert_eq!(bm.rank(u32::MAX), 1 << 32);
    assert!(bm.contains_range(..));
    assert_eq!(
        bm.iter().rev().take(2).collect::<Vec<_>>(),
        [u32::MAX, u32::MAX - 1]
    );
    assert_eq!(bm.intersection_len(&bm), 1 << 32);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Our canonical kinds are CRoaring's `run_optimize` choices, container by container.
    #[test]
    fn kinds_match_croaring_run_optimize(s in set()) {
        let values: Vec<u32> = s.iter().copied().collect();
        let mut cr = croaring::Bitmap::of(&values);
        cr.run_optimize();
        let c = cr.statistics();
        let bytes = encode(&s);
        let st = FrozenBitmap::from_bytes(&bytes).unwrap().statistics();
        prop_assert_eq!(
            (st.array_containers, st.bitset_containers, st.run_containers),
            (c.n_array_containers, c.n_bitset_containers, c.n_run_containers)
        );
        prop_assert_eq!((st.array_values, st.bitset_values, st.run_values),
            (u64::from(c.n_values_array_containers), u64::from(c.n_values_bitset_containers), u64::from(c.n_values_run_containers)));
    }
}

#[test]
fn non_canonical_layout_is_re_encoded_canonically() {
    // Three array containers; move the last payload 2 bytes further (zero gap), which is
    // valid but not where the writer would put it.
    let set: BTreeSet<u32> = [1, 5, 70_000, 70_009, 140_000, 140_002]
        .into_iter()
        .collect();
    let bytes = encode(&set);
    let n = 3;
    let desc_at = 16 + 4 * n + 4 * 2;
    let desc = u32::from_le_bytes(bytes[desc_at..desc_at + 4].try_into().unwrap());
    let off = (desc >> 2) as usize;
    let mut moved = bytes[..off].to_vec();
    moved.extend_from_slice(&[0, 0]);
    moved.extend_from_slice(&bytes[off..]);
    moved[desc_at..desc_at + 4].copy_from_slice(&(desc + (2 << 2)).to_le_bytes());
    let total = moved.len() as u32;
    moved[12..16].copy_from_slice(&total.to_le_bytes());
    let view = FrozenBitmap::from_bytes_strict(&moved).unwrap();
    assert_eq!(view.to_vec(), set.iter().copied().collect::<Vec<_>>());
    let mut w = Writer::new();
    let mut out = Vec::new();
    let r = w.write_frozen(&view, &mut out).unwrap();
    assert_eq!(
        &out[r.clone()],
        &bytes[..],
        "re-encoding gives the canonical bytes"
    );
    assert_eq!(w.frozen_size(&view), r.len());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: if std::env::var_os("CI").is_some() { 64 } else { 256 }, ..ProptestConfig::default() })]

    /// `extend_into` and `to_vec` (which uses it) give the model's values for every
    /// container kind, from any point of a partly consumed iterator (both ends, so that
    /// containers are cut at any alignment), and keep what the vector held.
    #[test]
    fn extend_into_appends_the_rest_of_any_iterator(
        s in set(), prefix in prop::collection::vec(any::<u32>(), 0..5),
        front in any::<u32>(), back in any::<u32>(), takes in 0usize..70, portable in any::<bool>(),
    ) {
        let bytes = encode_as(&s, portable);
        let bm = FrozenBitmap::from_bytes_strict(&bytes).unwrap();
        prop_assert_eq!(bm.to_vec(), s.iter().copied().collect::<Vec<_>>());
        let mut whole = prefix.clone();
        bm.extend_into(&mut whole);
        prop_assert_eq!(&whole[..prefix.len()], &prefix[..]);
        prop_assert!(whole[prefix.len()..].iter().eq(s.iter()));
        // A partly consumed iterator: advanced at both ends, then a few values taken from
        // each end, then the rest appended.
        let (lo, hi) = (front.min(back), front.max(back));
        let mut it = bm.iter();
        it.advance_to(lo);
        it.advance_back_to(hi);
        let mut model: Vec<u32> = s.range(lo..=hi).copied().collect();
        for k in 0..takes {
            if k % 2 == 0 {
                prop_assert_eq!(it.next(), (!model.is_empty()).then(|| model.remove(0)));
            } else {
                prop_assert_eq!(it.next_back(), model.pop());
            }
        }
        let mut out = prefix.clone();
        it.extend_into(&mut out);
        prop_assert_eq!(&out[..prefix.len()], &prefix[..]);
        prop_assert_eq!(&out[prefix.len()..], &model[..]);
        prop_assert_eq!(it.next(), None);
        // next_many from the same kind of point, in odd-sized batches.
        let mut it = bm.iter();
        it.advance_to(lo);
        let mut batch = [0u32; 61];
        let mut got = Vec::new();
        loop {
            let values = it.next_many(&mut batch);
            if values.is_empty() {
                break;
            }
            got.extend_from_slice(values);
        }
        prop_assert!(got.iter().eq(s.range(lo..)));
    }
}

/// A bound of a value of the set, a neighbour of one or an end of the value space, as
/// `kind` picks it (included, excluded, unbounded).
fn bound(kind: u8, at: u32) -> std::ops::Bound<u32> {
    use std::ops::Bound::*;
    match kind % 3 {
        0 => Included(at),
        1 => Excluded(at),
        _ => Unbounded,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: if std::env::var_os("CI").is_some() { 64 } else { 256 }, ..ProptestConfig::default() })]

    /// `range` gives the model's values within any bounds (reversed and empty ones give
    /// none), forward, backward, mixed and by maximal runs, in both formats, and agrees
    /// with `range_cardinality`.
    #[test]
    fn range_iterates_the_model_within_any_bounds(
        s in set(), picks in prop::collection::vec((any::<u8>(), any::<u32>(), 0u32..3), 8),
        portable in any::<bool>(),
    ) {
        let bytes = encode_as(&s, portable);
        let bm = FrozenBitmap::from_bytes(&bytes).unwrap();
        let values: Vec<u32> = s.iter().copied().collect();
        // Ends at the set's values (and next to them) as often as at random points.
        let at = |(pick, shift): (u32, u32)| match values.get(pick as usize % (values.len() + 1)) {
            Some(&v) if pick % 2 == 0 => v.wrapping_add(shift).wrapping_sub(1),
            _ => pick,
        };
        for w in picks.windows(2) {
            let (start, end) = (
                bound(w[0].0, at((w[0].1, w[0].2))),
                bound(w[1].0, at((w[1].1, w[1].2))),
            );
            let range = (start, end);
            let model: Vec<u32> = values
                .iter()
                .copied()
                .filter(|v| std::ops::RangeBounds::contains(&range, v))
                .collect();
            prop_assert_eq!(bm.range(range).collect::<Vec<_>>(), model.clone(), "{:?}", range);
            prop_assert!(bm.range(range).rev().eq(model.iter().rev().copied()));
            prop_assert_eq!(bm.range_cardinality(range), model.len() as u64);
            // Mixed steps from both ends, then the rest.
            let mut it = bm.range(range);
            let mut rest: std::collections::VecDeque<u32> = model.iter().copied().collect();
            for k in 0..9 {
                if k % 2 == 0 {
                    prop_assert_eq!(it.next(), rest.pop_front());
                } else {
                    prop_assert_eq!(it.next_back(), rest.pop_back());
                }
            }
            prop_assert!(it.eq(rest));
            let ranges: Vec<(u32, u32)> =
                model_ranges(&model.iter().copied().collect());
            let mut it = bm.range(range);
            let mut got = Vec::new();
            while let Some(r) = it.next_range() {
                got.push((*r.start(), *r.end()));
            }
            prop_assert_eq!(got, ranges);
        }
    }
}

/// Long runs and arrays are written from a cache-line boundary of the output: every start
/// of the output within a line (a prefix of 0 to 31 values), runs and arrays just below,
/// at and past the length where that starts, several runs in one container and one whole
/// container.
#[test]
fn extend_into_long_containers_at_every_alignment_of_the_output() {
    let mut values: Vec<u32> = Vec::new();
    for (k, len) in [255u32, 256, 257, 271, 1000, 4099].into_iter().enumerate() {
        let start = 7 + 5000 * k as u32;
        values.extend(start..start + len);
    }
    values.extend(3 << 16..4 << 16);
    values.extend((5 << 16) + 1..(5 << 16) + 600);
    // Arrays: values two apart, so that no two are consecutive.
    for (k, len) in [255u32, 256, 257, 303, 4096].into_iter().enumerate() {
        let high = (6 + k as u32) << 16;
        values.extend((0..len).map(|i| high | (2 * i + 1)));
    }
    let mut bytes = Vec::new();
    Writer::new()
        .write_sorted(values.iter().copied(), &mut bytes)
        .unwrap();
    let bm = FrozenBitmap::from_bytes(&bytes).unwrap();
    let kinds: Vec<ContainerKind> = bm.containers().map(|(_, kind, _)| kind).collect();
    assert_eq!(kinds[..3], [ContainerKind::Run; 3]);
    assert_eq!(kinds[3..], [ContainerKind::Array; 5]);
    for prefix in 0..32u32 {
        let mut out: Vec<u32> = (0..prefix).map(|p| p.wrapping_mul(0x9E37_79B9)).collect();
        let kept = out.clone();
        bm.extend_into(&mut out);
        assert_eq!(&out[..kept.len()], &kept[..], "prefix {prefix}");
        assert_eq!(&out[kept.len()..], &values[..], "prefix {prefix}");
    }
}

/// The set in the portable format, or in the frozen one.
fn encode_as(s: &BTreeSet<u32>, portable: bool) -> Vec<u8> {
    if portable {
        let mut out = Vec::new();
        Writer::new()
            .write_portable_sorted(s.iter().copied(), &mut out)
            .unwrap();
        out
    } else {
        encode(s)
    }
}

/// The maximal runs of consecutive values of a sorted set.
fn model_ranges(s: &BTreeSet<u32>) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for &v in s {
        match out.last_mut() {
            Some((_, e)) if e.checked_add(1) == Some(v) => *e = v,
            _ => out.push((v, v)),
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: if std::env::var_os("CI").is_some() { 64 } else { 256 }, ..ProptestConfig::default() })]

    /// `next_range` and `next_range_back` give the model's maximal runs (never two that
    /// touch), from both ends, mixed with single steps, in both formats.
    #[test]
    fn next_range_gives_maximal_runs_from_both_ends(
        s in set(), steps in prop::collection::vec(0u8..4, 0..40), portable in any::<bool>(),
    ) {
        let bytes = encode_as(&s, portable);
        let bm = FrozenBitmap::from_bytes_strict(&bytes).unwrap();
        let ranges = model_ranges(&s);
        let got: Vec<(u32, u32)> =
            std::iter::from_fn({ let mut it = bm.iter(); move || it.next_range() })
                .map(|r| (*r.start(), *r.end()))
                .collect();
        prop_assert_eq!(&got, &ranges);
        let mut back: Vec<(u32, u32)> =
            std::iter::from_fn({ let mut it = bm.iter(); move || it.next_range_back() })
                .map(|r| (*r.start(), *r.end()))
                .collect();
        back.reverse();
        prop_assert_eq!(&back, &ranges);
        // Mixed: the model is a deque of values; a range taken from the front is the
        // longest consecutive prefix, from the back the longest consecutive suffix.
        let mut model: std::collections::VecDeque<u32> = s.iter().copied().collect();
        let mut it = bm.iter();
        for step in steps {
            match step {
                0 => {
                    let want = model.front().map(|&a| {
                        let mut b = a;
                        while b < u32::MAX && model.get((b - a) as usize + 1) == Some(&(b + 1)) { b += 1; }
                        (a, b)
                    });
                    let got = it.next_range().map(|r| (*r.start(), *r.end()));
                    prop_assert_eq!(got, want);
                    if let Some((a, b)) = want { for _ in a..=b { model.pop_front(); } }
                }
                1 => {
                    let n = model.len();
                    let want = model.back().map(|&b| {
                        let mut a = b;
                        while a > 0 && n > (b - a) as usize + 1 && model.get(n - 2 - (b - a) as usize) == Some(&(a - 1)) { a -= 1; }
                        (a, b)
                    });
                    let got = it.next_range_back().map(|r| (*r.start(), *r.end()));
                    prop_assert_eq!(got, want);
                    if let Some((a, b)) = want { for _ in a..=b { model.pop_back(); } }
                }
                2 => prop_assert_eq!(it.next(), model.pop_front()),
                _ => prop_assert_eq!(it.next_back(), model.pop_back()),
            }
        }
        prop_assert!(it.eq(model.into_iter()));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: if std::env::var_os("CI").is_some() { 64 } else { 256 }, ..ProptestConfig::default() })]

    /// `fill_mask` sets exactly the model's values of random unaligned ranges (and no word
    /// past its count), and `live_ranges` gives exactly the gaps, for every container kind.
    #[test]
    fn fill_mask_and_live_ranges_match_the_model(
        s in set(), cuts in prop::collection::vec((any::<u32>(), 0u32..140_000), 1..6), portable in any::<bool>(),
    ) {
        let bytes = encode_as(&s, portable);
        let bm = FrozenBitmap::from_bytes(&bytes).unwrap();
        let anchors: Vec<u32> = s.iter().copied().step_by(s.len() / 7 + 1).chain([0, u32::MAX - 5]).collect();
        for (i, &(seed, len)) in cuts.iter().enumerate() {
            let lo = anchors[seed as usize % anchors.len()].saturating_sub(seed % 97 + i as u32);
            let hi = lo.saturating_add(len);
            let words = ((hi - lo) as usize).div_ceil(64);
            let mut mask = vec![!0u64; words + 1];
            bm.fill_mask(lo..hi, &mut mask);
            prop_assert_eq!(mask[words], !0u64);
            for (k, v) in (lo..hi).enumerate() {
                prop_assert_eq!(mask[k / 64] >> (k % 64) & 1 == 1, s.contains(&v), "bit {} of {}..{}", k, lo, hi);
            }
            if !(hi - lo).is_multiple_of(64) {
                prop_assert_eq!(mask[words - 1] >> ((hi - lo) % 64), 0);
            }
            let mut gaps = Vec::new();
            let mut next = lo;
            for &v in s.range(lo..hi) {
                if v > next {
                    gaps.push(next..v);
                }
                next = v + 1;
            }
            if next < hi {
                gaps.push(next..hi);
            }
            prop_assert_eq!(bm.live_ranges(lo..hi).collect::<Vec<_>>(), gaps);
        }
    }
}

/// Sets of up to 40 containers of every shape (the run flags of the portable format
/// take more than one byte).
/// Re-encodes the frozen bitmap `frozen` in both directions through checked and unchecked
/// views after `lead` bytes already in the output, and checks that both paths agree.
fn check_conversions(frozen: &[u8], lead: usize, crc: bool) -> Result<(), TestCaseError> {
    let Ok(checked) = FrozenBitmap::from_bytes(frozen) else {
        return Ok(());
    };
    // SAFETY: bytes `from_bytes` accepted.
    let unchecked = unsafe { FrozenBitmap::from_bytes_unchecked(frozen) };
    let mut w = Writer::new().with_checksum(crc);
    let (mut fast, mut general) = (vec![7u8; lead], vec![7u8; lead]);
    let rf = w.write_portable(&checked, &mut fast).unwrap();
    let rg = w.write_portable(&unchecked, &mut general).unwrap();
    prop_assert_eq!(&fast[rf.clone()], &general[rg]);
    prop_assert_eq!(&fast[..lead], &general[..lead]);
    let portable = &fast[rf];
    let checked = FrozenBitmap::from_bytes(portable).unwrap();
    // SAFETY: bytes `from_bytes` accepted.
    let unchecked = unsafe { FrozenBitmap::from_bytes_unchecked(portable) };
    let (mut fast, mut general) = (vec![7u8; lead], vec![7u8; lead]);
    let rf = w.write_frozen(&checked, &mut fast).unwrap();
    let rg = w.write_frozen(&unchecked, &mut general).unwrap();
    prop_assert_eq!(&fast, &general);
    prop_assert_eq!(rf.clone(), rg);
    let back = FrozenBitmap::from_bytes_strict(&fast[rf]).unwrap();
    prop_assert!(back.iter().eq(checked.iter()));
    Ok(())
}

fn many_containers() -> impl Strategy<Value = BTreeSet<u32>> {
    prop_oneof![
        1 => set(),
        2 => prop::collection::vec((0u16..64, shape(), any::<u64>()), 0..40).prop_map(|p| build_set(&p)),
    ]
}

/// `fill_mask` over ranges whose start is not a multiple of 64 away from a container
/// boundary, so that one mask word holds the top values of one container and the bottom
/// values of the next: each kind of container (array, run, bitset) followed by an array
/// whose values start at its container's first value, the two at every offset of the
/// boundary in the word.
#[test]
fn fill_mask_words_shared_by_two_containers() {
    let tops: [(&str, Vec<u32>); 3] = [
        ("array", (65_400..65_536).step_by(3).collect()),
        ("run", (60_000..65_536).collect()),
        ("bitset", (0..65_536).filter(|v| v % 7 != 3).collect()),
    ];
    for (kind, top) in &tops {
        let next: Vec<u32> = (0..40)
            .map(|v| 65_536 + v * 2)
            .chain([65_536 + 500])
            .collect();
        let s: BTreeSet<u32> = top.iter().chain(&next).copied().collect();
        let bytes = encode(&s);
        let bm = FrozenBitmap::from_bytes(&bytes).unwrap();
        for shift in 0..64u32 {
            let (lo, hi) = (65_536 - 128 - shift, 65_536 + 600);
            assert_mask(&bm, &s, lo..hi, kind);
        }
    }
}

/// `fill_mask` of arrays wholly inside the range, whose values are set in two halves: the
/// array is dense enough that the middle of it falls inside a word, at every length from
/// one value to many, and at several offsets of the container in the mask's words.
#[test]
fn fill_mask_of_arrays_split_inside_a_word() {
    for n in (1..=70u32).chain([129, 1000, 4096]) {
        let s: BTreeSet<u32> = (0..n).map(|i| 65_536 + i * 3 / 2 + i / 40 * 50).collect();
        let bytes = encode(&s);
        let bm = FrozenBitmap::from_bytes(&bytes).unwrap();
        let lows: Vec<u32> = s.iter().map(|v| v - 65_536).collect();
        assert_eq!(expected_kind(&lows), ContainerKind::Array, "{n} values");
        for shift in [0u32, 1, 31, 63, 64] {
            let (lo, hi) = (65_536 - shift, 2 * 65_536 + 70);
            assert_mask(&bm, &s, lo..hi, &format!("{n} values"));
        }
    }
}

/// `fill_mask` of `range` sets exactly the bits of the model's values in it.
fn assert_mask(bm: &FrozenBitmap<'_>, s: &BTreeSet<u32>, range: std::ops::Range<u32>, what: &str) {
    let mut mask = vec![!0u64; (range.len()).div_ceil(64)];
    bm.fill_mask(range.clone(), &mut mask);
    for (k, v) in range.clone().enumerate() {
        assert_eq!(
            mask[k / 64] >> (k % 64) & 1 == 1,
            s.contains(&v),
            "{what}, range {range:?}: bit {k}"
        );
    }
}
