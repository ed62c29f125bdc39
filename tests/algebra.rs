//! Set algebra on views: every operation against the `BTreeSet` model (byte-identical to
//! writing the model's result, so containers are canonical), the algebra laws, many-way
//! forms, mixed formats, and CRoaring on the real datasets.

mod common;

use std::collections::BTreeSet;

use common::strategies::*;
use common::*;
use croaring::Bitmap;
use frozen_roaring::{FrozenBitmap, FrozenBitmapBuf, Writer};
use proptest::prelude::*;

fn portable(s: &BTreeSet<u32>) -> Vec<u8> {
    let mut out = Vec::new();
    Writer::new()
        .write_portable_sorted(s.iter().copied(), &mut out)
        .unwrap();
    out
}

/// The four operations of the model.
fn model(a: &BTreeSet<u32>, b: &BTreeSet<u32>) -> [BTreeSet<u32>; 4] {
    [
        a.intersection(b).copied().collect(),
        a.union(b).copied().collect(),
        a.difference(b).copied().collect(),
        a.symmetric_difference(b).copied().collect(),
    ]
}

/// Operation `k` (∩ ∪ − ⊕) into `out`.
fn op_into(
    w: &mut Writer,
    k: usize,
    va: &FrozenBitmap<'_>,
    vb: &FrozenBitmap<'_>,
    out: &mut Vec<u8>,
) -> std::ops::Range<usize> {
    match k {
        0 => w.intersection_into(va, vb, out),
        1 => w.union_into(va, vb, out),
        2 => w.difference_into(va, vb, out),
        _ => w.symmetric_difference_into(va, vb, out),
    }
    .unwrap()
}

/// Every form of every operation on `a`, `b` gives the bytes of writing the model result.
fn check_ops(va: &FrozenBitmap<'_>, vb: &FrozenBitmap<'_>, a: &BTreeSet<u32>, b: &BTreeSet<u32>) {
    let mut w = Writer::new();
    let expected = model(a, b);
    let mut out = vec![1u8; 5]; // results are appended after existing bytes
    for (k, exp) in expected.iter().enumerate() {
        out.truncate(5);
        let r = op_into(&mut w, k, va, vb, &mut out);
        let want = encode(exp);
        assert!(
            out[r.clone()] == want[..],
            "operation {k}: bytes differ from writing the model result"
        );
        let view = FrozenBitmap::from_bytes_strict(&out[r]).unwrap();
        assert!(view.iter().eq(exp.iter().copied()));
        // Written in place (the buffer ends at a multiple of 64), with a checksum: the
        // bytes of writing the model result with the same writer.
        let mut wc = Writer::new().with_checksum(true);
        let mut want_crc = Vec::new();
        wc.write_sorted(exp.iter().copied(), &mut want_crc).unwrap();
        let mut placed = vec![7u8; 64];
        let r = op_into(&mut wc, k, va, vb, &mut placed);
        assert_eq!(r, 64..placed.len());
        assert!(placed[..64].iter().all(|&x| x == 7));
        assert!(
            placed[r] == want_crc[..],
            "operation {k}: in-place bytes differ"
        );
        let buf: FrozenBitmapBuf = match k {
            0 => va & vb,
            1 => va | vb,
            2 => va - vb,
            _ => va ^ vb,
        };
        assert_eq!(buf.as_bytes(), &want[..]);
        let method = match k {
            0 => va.intersection(vb),
            1 => va.union(vb),
            2 => va.difference(vb),
            _ => va.symmetric_difference(vb),
        };
        assert_eq!(method, buf);
        // By value, with owned bitmaps on either side, and assigning: the same bytes.
        let oa = FrozenBitmapBuf::from_sorted_iter(a.iter().copied()).unwrap();
        let ob = FrozenBitmapBuf::from_sorted_iter(b.iter().copied()).unwrap();
        let (mut by_view, mut by_buf) = (oa.clone(), oa.clone());
        let forms: [FrozenBitmapBuf; 4] = match k {
            0 => {
                by_view &= vb;
                by_buf &= &ob;
                [*va & *vb, &oa & vb, va & &ob, &oa & &ob]
            }
            1 => {
                by_view |= vb;
                by_buf |= &ob;
                [*va | *vb, &oa | vb, va | &ob, &oa | &ob]
            }
            2 => {
                by_view -= vb;
                by_buf -= &ob;
                [*va - *vb, &oa - vb, va - &ob, &oa - &ob]
            }
            _ => {
                by_view ^= vb;
                by_buf ^= &ob;
                [*va ^ *vb, &oa ^ vb, va ^ &ob, &oa ^ &ob]
            }
        };
        for (i, f) in forms.iter().chain([&by_view, &by_buf]).enumerate() {
            assert_eq!(f.as_bytes(), &want[..], "operation {k}, operator form {i}");
        }
        // Without canonical kinds: the same values, strictly valid, appended or in place.
        let mut wr = Writer::new().with_canonical(false);
        for fill in [5, 64] {
            let mut relaxed = vec![3u8; fill];
            let r = op_into(&mut wr, k, va, vb, &mut relaxed);
            let v = FrozenBitmap::from_bytes_strict(&relaxed[r]).unwrap();
            assert!(
                v.iter().eq(exp.iter().copied()),
                "operation {k} without canonical kinds"
            );
        }
    }
    // The counting forms agree with the materialized results.
    assert_eq!(va.intersection_len(vb), expected[0].len() as u64);
    assert_eq!(va.union_len(vb), expected[1].len() as u64);
    assert_eq!(w.union_many_len([va, vb]), expected[1].len() as u64);
    assert_eq!(
        w.intersection_many_len([*va, *vb]),
        expected[0].len() as u64
    );
    // The owned many-way forms.
    assert_eq!(
        FrozenBitmapBuf::union_many([va, vb]).as_bytes(),
        &encode(&expected[1])[..]
    );
    assert_eq!(
        FrozenBitmapBuf::intersection_many([*va, *vb]).as_bytes(),
        &encode(&expected[0])[..]
    );
    assert_eq!(
        FrozenBitmapBuf::symmetric_difference_many(&[*va, *vb]).as_bytes(),
        &encode(&expected[3])[..]
    );
    assert_eq!(
        FrozenBitmapBuf::difference_many([va, vb]).as_bytes(),
        &encode(&expected[2])[..]
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: if std::env::var_os("CI").is_some() { 96 } else { 256 }, ..ProptestConfig::default() })]

    #[test]
    fn operations_match_model(a in set(), b in set(), mix in 0u8..3) {
        // Overlapping operands make every pair of container kinds meet on equal keys.
        let b: BTreeSet<u32> = match mix {
            0 => b,
            1 => a.iter().copied().filter(|v| v % 3 != 0).chain(b.iter().copied().take(50)).collect(),
            _ => b.iter().map(|v| (v & 0xFFFF) | (a.iter().next().copied().unwrap_or(0) & !0xFFFF)).collect(),
        };
        let (ea, eb) = (encode(&a), encode(&b));
        let (va, vb) = (FrozenBitmap::from_bytes(&ea).unwrap(), FrozenBitmap::from_bytes(&eb).unwrap());
        check_ops(&va, &vb, &a, &b);
        check_ops(&vb, &va, &b, &a);
        // Portable operands (one or both) give the same results.
        let (pa, pb) = (portable(&a), portable(&b));
        let (qa, qb) = (FrozenBitmap::from_bytes(&pa).unwrap(), FrozenBitmap::from_bytes(&pb).unwrap());
        check_ops(&qa, &vb, &a, &b);
        check_ops(&qa, &qb, &a, &b);
    }

    #[test]
    fn algebra_laws(a in set(), b in set(), c in set()) {
        let bytes: Vec<Vec<u8>> = [&a, &b, &c].iter().map(|s| encode(s)).collect();
        let v: Vec<FrozenBitmap> = bytes.iter().map(|x| FrozenBitmap::from_bytes(x).unwrap()).collect();
        let (a_, b_, c_) = (&v[0], &v[1], &v[2]);
        // Commutativity.
        prop_assert_eq!(a_ & b_, b_ & a_);
        prop_assert_eq!(a_ | b_, b_ | a_);
        prop_assert_eq!(a_ ^ b_, b_ ^ a_);
        // Associativity.
        prop_assert_eq!(&(a_ & b_) & &c_.intersection(c_), &a_.intersection(a_) & &(b_ & c_));
        prop_assert_eq!(&(a_ | b_) | &c_.union(c_), &a_.union(a_) | &(b_ | c_));
        prop_assert_eq!(&(a_ ^ b_) ^ &c_.union(c_), &a_.union(a_) ^ &(b_ ^ c_));
        // De Morgan within the universe u = a ∪ b ∪ c: u − (a ∩ b) = (u − a) ∪ (u − b).
        let u = &(a_ | b_) | &c_.union(c_);
        let uv = u.as_view();
        prop_assert_eq!(uv.difference(&(a_ & b_).as_view()), &uv.difference(a_) | &uv.difference(b_));
        prop_assert_eq!(uv.difference(&(a_ | b_).as_view()), &uv.difference(a_) & &uv.difference(b_));
        // |a ∩ b| + |a ∪ b| = |a| + |b|.
        prop_assert_eq!((a_ & b_).len() + (a_ | b_).len(), a_.len() + b_.len());
        // a ⊕ b = (a − b) ∪ (b − a).
        prop_assert_eq!(a_ ^ b_, &(a_ - b_) | &(b_ - a_));
    }

    /// The first minus the rest when the first has at most one container (the others are
    /// then read as they come, not collected): the first and others with and without its
    /// key in both formats, through a slice, an iterator of references and one of owned
    /// views, with and without canonical kinds, after 0, 3 and 64 bytes.
    #[test]
    fn difference_of_a_one_container_first(
        first in prop_oneof![Just(None), (key(), shape(), any::<u64>()).prop_map(Some)],
        first_frozen in any::<bool>(),
        others in prop::collection::vec((prop_oneof![Just(None), key().prop_map(Some)], shape(), any::<u64>(), any::<bool>()), 0..6),
    ) {
        let first_key = first.map_or(0, |(k, _, _)| k);
        let first: BTreeSet<u32> = first.map_or_else(BTreeSet::new, |p| build_set(&[p]));
        // An other of no key given: the first's key, so that most others take values away.
        let rest: Vec<(BTreeSet<u32>, bool)> = others
            .into_iter()
            .map(|(k, sh, seed, frozen)| (build_set(&[(k.unwrap_or(first_key), sh, seed)]), frozen))
            .collect();
        let first_bytes = if first_frozen { encode(&first) } else { portable(&first) };
        let bytes: Vec<Vec<u8>> = std::iter::once(first_bytes)
            .chain(rest.iter().map(|(s, frozen)| if *frozen { encode(s) } else { portable(s) }))
            .collect();
        let views: Vec<FrozenBitmap> = bytes.iter().map(|x| FrozenBitmap::from_bytes(x).unwrap()).collect();
        let diff: BTreeSet<u32> = first.iter().copied().filter(|v| !rest.iter().any(|(s, _)| s.contains(v))).collect();
        let want = encode(&diff);
        let mut w = Writer::new();
        let mut relaxed = Writer::new().with_canonical(false);
        for prefix in [0usize, 3, 64] {
            let mut out = vec![5u8; prefix];
            let r = w.difference_many_into(&views, &mut out).unwrap();
            prop_assert!(out[..prefix].iter().all(|&b| b == 5));
            prop_assert_eq!(&out[r], &want[..], "after {} bytes", prefix);
            out.truncate(prefix);
            let r = w.difference_many_into(views.iter().copied(), &mut out).unwrap();
            prop_assert_eq!(&out[r], &want[..]);
            out.truncate(prefix);
            let r = relaxed.difference_many_into(views.iter(), &mut out).unwrap();
            let v = FrozenBitmap::from_bytes_strict(&out[r]).unwrap();
            prop_assert!(v.iter().eq(diff.iter().copied()));
        }
        prop_assert_eq!(w.difference_many_len(&views), diff.len() as u64);
        prop_assert_eq!(w.difference_many_len(views.iter().copied()), diff.len() as u64);
        // The other forms through the same writer are not thrown off by the streamed ones.
        let union: BTreeSet<u32> = first.iter().chain(rest.iter().flat_map(|(s, _)| s)).copied().collect();
        prop_assert_eq!(w.union_many_len(&views), union.len() as u64);
    }

    #[test]
    fn many_way_matches_model(sets in prop::collection::vec(set(), 0..7), share in any::<bool>()) {
        // Optionally make every set contain a common part so intersections are non-empty.
        let common_part: BTreeSet<u32> = sets.first().map(|s| s.iter().copied().step_by(2).collect()).unwrap_or_default();
        let sets: Vec<BTreeSet<u32>> = sets.into_iter().map(|s| if share { s.union(&common_part).copied().collect() } else { s }).collect();
        let bytes: Vec<Vec<u8>> = sets.iter().enumerate().map(|(i, s)| if i % 2 == 0 { encode(s) } else { portable(s) }).collect();
        let views: Vec<FrozenBitmap> = bytes.iter().map(|x| FrozenBitmap::from_bytes(x).unwrap()).collect();
        let union: BTreeSet<u32> = sets.iter().flatten().copied().collect();
        let inter: BTreeSet<u32> = match sets.split_first() {
            Some((first, rest)) => first.iter().copied().filter(|v| rest.iter().all(|s| s.contains(v))).collect(),
            None => BTreeSet::new(),
        };
        let mut w = Writer::new();
        let mut out = Vec::new();
        let r = w.union_many_into(&views, &mut out).unwrap();
        prop_assert_eq!(&out[r], &encode(&union)[..]);
        out.clear();
        let r = w.intersection_many_into(views.iter(), &mut out).unwrap();
        prop_assert_eq!(&out[r], &encode(&inter)[..]);
        prop_assert_eq!(w.union_many_len(&views), union.len() as u64);
        prop_assert_eq!(w.intersection_many_len(views.iter().copied()), inter.len() as u64);
        let diff: BTreeSet<u32> = match sets.split_first() {
            Some((first, rest)) => first.iter().copied().filter(|v| !rest.iter().any(|s| s.contains(v))).collect(),
            None => BTreeSet::new(),
        };
        out.clear();
        let r = w.difference_many_into(&views, &mut out).unwrap();
        prop_assert_eq!(&out[r], &encode(&diff)[..]);
        prop_assert_eq!(w.difference_many_len(views.iter()), diff.len() as u64);
        let xor = odd_count(&sets);
        out.clear();
        let r = w.symmetric_difference_many_into(&views, &mut out).unwrap();
        prop_assert_eq!(&out[r], &encode(&xor)[..]);
        prop_assert_eq!(w.symmetric_difference_many_len(views.iter()), xor.len() as u64);
        // After other bytes: written in place (64 bytes before, a multiple of the bitset
        // alignment) or packed and copied (3 bytes before); the bytes before stay.
        for prefix in [3usize, 64] {
            for (k, expected) in [(0, &union), (1, &diff), (2, &xor)] {
                out.clear();
                out.resize(prefix, 7);
                let r = match k {
                    0 => w.union_many_into(&views, &mut out),
                    1 => w.difference_many_into(&views, &mut out),
                    _ => w.symmetric_difference_many_into(&views, &mut out),
                }
                .unwrap();
                prop_assert!(out[..prefix].iter().all(|&b| b == 7));
                prop_assert_eq!(&out[r], &encode(expected)[..], "operation {} after {} bytes", k, prefix);
            }
        }
        // ⊕ is associative: folding pairwise gives the same set.
        if let Some((first, rest)) = bytes.split_first() {
            let mut acc = FrozenBitmap::from_bytes(first).unwrap().to_vec().into_iter().collect::<BTreeSet<u32>>();
            for b in rest {
                let v = FrozenBitmap::from_bytes(b).unwrap();
                acc = acc.symmetric_difference(&v.iter().collect()).copied().collect();
            }
            prop_assert_eq!(acc, xor);
        }
    }
}

/// Many-way unions of many inputs whose keys are spread out (next key found through a
/// heap) or close together (containers grouped by key), with few values per key (sorted
/// together) or many (accumulated in a bitset): byte-identical to writing the model.
#[test]
fn many_way_union_key_selection_and_small_keys() {
    let mut w = Writer::new();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move |m: u64| {
        // xorshift
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    for (spread, per_key) in [(4000u64, 3u64), (4000, 400), (3, 3), (3, 400), (60, 40)] {
        let sets: Vec<BTreeSet<u32>> = (0..40)
            .map(|_| {
                (0..next(6) + 1)
                    .flat_map(|_| {
                        let key = next(spread) as u32;
                        let n = next(per_key) + 1;
                        (0..n)
                            .map(|_| (key << 16) | next(65_536) as u32)
                            .collect::<Vec<_>>()
                    })
                    .collect()
            })
            .collect();
        check_many_way_union(
            &mut w,
            &sets,
            &format!("spread {spread}, {per_key} per key"),
        );
    }
}

/// The many-way forms on the shapes that take their shortcuts: dense bitsets whose union
/// fills up part way (the union stops after the bitset that fills it, and arrays and runs
/// follow), arrays of one value in every 16 (set into a bitset in streams; the first minus
/// the rest keeps its values against each array by a merge), and one-run and few-run
/// containers (their symmetric difference folds run lists).
#[test]
fn many_way_forms_on_dense_bitsets_even_arrays_and_few_runs() {
    let mut w = Writer::new();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut next = move |m: u64| rng.below(m);
    let mut dense: Vec<BTreeSet<u32>> = (0..40)
        .map(|_| {
            (0..2u32 << 16)
                .filter(|_| next(2) == 0)
                .collect::<BTreeSet<u32>>()
        })
        .collect();
    // After the bitsets, containers the full union must not be spoiled by.
    dense.push((5..900).chain(70_000..70_100).collect());
    dense.push([3u32, 65_600, 131_071].into_iter().collect());
    check_many_way_union(&mut w, &dense, "dense bitsets, then arrays and runs");
    let even: Vec<BTreeSet<u32>> = (0..24)
        .map(|_| (0..4096u32).map(|j| j * 16 + next(16) as u32).collect())
        .collect();
    check_many_way_union(&mut w, &even, "arrays of one value in every 16");
    let runs: Vec<BTreeSet<u32>> = (0..7u32)
        .map(|i| {
            (0..1 + next(4))
                .flat_map(|_| {
                    let at = (i % 2) << 16 | next(60_000) as u32;
                    at..at + 1 + next(3000) as u32
                })
                .collect()
        })
        .chain([(0..65_536).collect(), (0..65_536).collect()])
        .collect();
    check_many_way_union(&mut w, &runs, "one-run and few-run containers");
}

/// The values in an odd number of `sets` (their symmetric difference).
fn odd_count(sets: &[BTreeSet<u32>]) -> BTreeSet<u32> {
    let mut counts = std::collections::BTreeMap::<u32, usize>::new();
    for v in sets.iter().flatten() {
        *counts.entry(*v).or_default() += 1;
    }
    counts
        .into_iter()
        .filter(|&(_, n)| n % 2 == 1)
        .map(|(v, _)| v)
        .collect()
}

/// The union of `sets` written by `w.union_many_into` (byte-identical to writing the
/// model), counted by `union_many_len`, and written without canonical kinds (strictly
/// valid, the model's values); the same for their symmetric difference.
fn check_many_way_union(w: &mut Writer, sets: &[BTreeSet<u32>], what: &str) {
    let bytes: Vec<Vec<u8>> = sets.iter().map(encode).collect();
    let views: Vec<FrozenBitmap> = bytes
        .iter()
        .map(|b| FrozenBitmap::from_bytes(b).unwrap())
        .collect();
    let union: BTreeSet<u32> = sets.iter().flatten().copied().collect();
    let mut out = Vec::new();
    let r = w.union_many_into(&views, &mut out).unwrap();
    assert!(out[r] == encode(&union)[..], "{what}");
    assert_eq!(w.union_many_len(&views), union.len() as u64, "{what}");
    let mut relaxed = Writer::new().with_canonical(false);
    let r = relaxed.union_many_into(&views, &mut out).unwrap();
    let v = FrozenBitmap::from_bytes_strict(&out[r]).unwrap();
    assert!(v.iter().eq(union.iter().copied()), "{what}");

    let xor = odd_count(sets);
    out.clear();
    let r = w.symmetric_difference_many_into(&views, &mut out).unwrap();
    assert!(out[r] == encode(&xor)[..], "{what}: symmetric difference");
    assert_eq!(
        w.symmetric_difference_many_len(&views),
        xor.len() as u64,
        "{what}"
    );
    let r = relaxed
        .symmetric_difference_many_into(&views, &mut out)
        .unwrap();
    let v = FrozenBitmap::from_bytes_strict(&out[r]).unwrap();
    assert!(
        v.iter().eq(xor.iter().copied()),
        "{what}: symmetric difference"
    );

    // Inputs minus all the others (so the others' containers on their keys are many).
    for k in [0, sets.len() / 2, sets.len() - 1] {
        let diff: BTreeSet<u32> = sets[k]
            .iter()
            .copied()
            .filter(|v| {
                !sets
                    .iter()
                    .enumerate()
                    .any(|(j, s)| j != k && s.contains(v))
            })
            .collect();
        let order: Vec<FrozenBitmap> = std::iter::once(views[k])
            .chain(
                views
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != k)
                    .map(|(_, v)| *v),
            )
            .collect();
        out.clear();
        let r = w.difference_many_into(&order, &mut out).unwrap();
        assert!(
            out[r] == encode(&diff)[..],
            "{what}: input {k} minus the rest"
        );
        assert_eq!(
            w.difference_many_len(order.iter()),
            diff.len() as u64,
            "{what}"
        );
        let r = relaxed.difference_many_into(&order, &mut out).unwrap();
        let v = FrozenBitmap::from_bytes_strict(&out[r]).unwrap();
        assert!(
            v.iter().eq(diff.iter().copied()),
            "{what}: input {k} minus the rest"
        );
    }
}

#[test]
fn many_way_union_groups_keys_window_by_window() {
    // Three inputs of 30,000 one-value containers each (90,000 containers: the keys are
    // grouped in more than one window), partly on shared keys; then 70,000 inputs of one
    // container on the same key (more containers for one key than a window holds).
    let sets: Vec<BTreeSet<u32>> = (0..3u32)
        .map(|v| {
            (0..30_000u32)
                .map(|k| ((k + v * 10_000) << 16) | ((k * 7 + v) % 65_536))
                .collect()
        })
        .collect();
    let mut w = Writer::new();
    check_many_way_union(&mut w, &sets, "90,000 containers");
    let sets: Vec<BTreeSet<u32>> = (0..70_000u32)
        .map(|v| BTreeSet::from([(5 << 16) | (v * 3 % 65_536)]))
        .collect();
    check_many_way_union(&mut w, &sets, "70,000 inputs of one key");
}

#[test]
fn many_way_difference_with_the_others_grouped_by_key() {
    // A first bitmap of five keys (one of them 65535, and some no other has) minus ten
    // others on three keys each, two of them the first's: the others' containers are
    // grouped by key. Arrays, runs and a bitset on the shared keys; some values taken
    // away, some left, one container emptied.
    let mut first: BTreeSet<u32> = BTreeSet::new();
    for key in [0u32, 3, 5, 7, 65535] {
        first.extend((0..3000u32).map(|v| (key << 16) | (v * 7 % 65_536)));
    }
    first.extend((3 << 16)..(3 << 16) + 20_000); // a run on a shared key
    let mut sets = vec![first];
    for k in 0..10u32 {
        let mut s = BTreeSet::new();
        s.extend((0..200u32).map(|v| (3 << 16) | ((v * 35 + k) % 65_536)));
        s.extend((0..500u32).map(|v| (4 << 16) | (v * 11 + k)));
        if k == 4 {
            s.extend((7 << 16)..(8 << 16)); // empties the first's key 7
        } else {
            s.extend((0..5000u32).map(|v| (7 << 16) | (v * 13 % 65_536)));
        }
        sets.push(s);
    }
    let mut w = Writer::new();
    check_many_way_union(&mut w, &sets, "grouped difference");
    // The same with the others' keys spread out (grouped through a heap): their key 4
    // moved to 60,000.
    for s in sets.iter_mut().skip(1) {
        let moved: Vec<u32> = s.iter().copied().filter(|v| v >> 16 == 4).collect();
        for v in moved {
            s.remove(&v);
            s.insert((60_000 << 16) | (v & 0xFFFF));
        }
    }
    check_many_way_union(&mut w, &sets, "grouped difference, keys spread out");
}

#[test]
fn results_without_canonical_kinds_keep_the_kernels_representation() {
    // Two bitsets whose union is two long runs: canonically one run container, without
    // canonical kinds the bitset the kernel computed.
    let a: BTreeSet<u32> = (0..30_000).filter(|v| v % 2 == 0).collect();
    let b: BTreeSet<u32> = (0..30_000)
        .filter(|v| v % 2 == 1)
        .chain(40_000..50_000)
        .collect();
    let (ea, eb) = (encode(&a), encode(&b));
    let (va, vb) = (
        FrozenBitmap::from_bytes(&ea).unwrap(),
        FrozenBitmap::from_bytes(&eb).unwrap(),
    );
    assert_eq!(va.statistics().bitset_containers, 1);
    let union: BTreeSet<u32> = a.union(&b).copied().collect();
    let (mut canonical, mut relaxed) = (Vec::new(), Vec::new());
    let r = Writer::new().union_into(&va, &vb, &mut canonical).unwrap();
    let c = FrozenBitmap::from_bytes_strict(&canonical[r]).unwrap();
    assert_eq!(c.statistics().run_containers, 1);
    let mut w = Writer::new().with_canonical(false);
    assert!(!w.canonical() && Writer::new().canonical());
    let r = w.union_into(&va, &vb, &mut relaxed).unwrap();
    let v = FrozenBitmap::from_bytes_strict(&relaxed[r]).unwrap();
    assert_eq!(v.statistics().bitset_containers, 1);
    assert!(v.iter().eq(union.iter().copied()));
    assert!(c.iter().eq(v.iter()));
    // A union of many keeps bitsets too; values of at most 4096 stay values.
    let small: BTreeSet<u32> = (0..4096).map(|v| v * 2).collect();
    let es = encode(&small);
    let vs = FrozenBitmap::from_bytes(&es).unwrap();
    let r = w.union_many_into([va, vb, vs], &mut relaxed).unwrap();
    let m = FrozenBitmap::from_bytes_strict(&relaxed[r]).unwrap();
    let all: BTreeSet<u32> = union.union(&small).copied().collect();
    assert!(m.iter().eq(all.iter().copied()));
    assert_eq!(m.statistics().bitset_containers, 1);
    let r = w.intersection_into(&vs, &va, &mut relaxed).unwrap();
    let i = FrozenBitmap::from_bytes_strict(&relaxed[r]).unwrap();
    assert_eq!(i.statistics().array_containers, 1);
    assert_eq!(i.len(), 4096);
}

#[test]
fn every_pair_of_container_kinds() {
    // One container per kind and edge shape, all under key 3, against each other.
    let shapes = [
        Shape::Sparse(1),
        Shape::Sparse(30),
        Shape::Exact(4096),
        Shape::Exact(4097),
        Shape::Runs(1),
        Shape::Runs(25),
        Shape::Full,
        Shape::Dense,
        Shape::Alternating,
    ];
    for (i, &x) in shapes.iter().enumerate() {
        for (j, &y) in shapes.iter().enumerate() {
            let a = build_set(&[(3, x, i as u64)]);
            let b = build_set(&[(3, y, 100 + j as u64)]);
            let (ea, eb) = (encode(&a), encode(&b));
            let (va, vb) = (
                FrozenBitmap::from_bytes(&ea).unwrap(),
                FrozenBitmap::from_bytes(&eb).unwrap(),
            );
            check_ops(&va, &vb, &a, &b);
            // With keys before and after in both (the walk over many keys, not the one
            // pair of containers), in both formats; key 1 holds the same array in both.
            let a = build_set(&[
                (1, Shape::Sparse(5), 3),
                (3, x, i as u64),
                (9, Shape::Runs(2), 2),
            ]);
            let b = build_set(&[
                (1, Shape::Sparse(5), 3),
                (3, y, 100 + j as u64),
                (9, Shape::Sparse(9), 4),
            ]);
            let (ea, pb) = (encode(&a), portable(&b));
            let (va, vb) = (
                FrozenBitmap::from_bytes(&ea).unwrap(),
                FrozenBitmap::from_bytes(&pb).unwrap(),
            );
            let common = a.intersection(&b).count() as u64;
            assert_eq!(va.intersection_len(&vb), common, "{x:?} ∩ {y:?}");
            assert_eq!(vb.intersection_len(&va), common, "{y:?} ∩ {x:?}");
            check_ops(&va, &vb, &a, &b);
        }
    }
}

/// A few values against a container of many runs (more than 8 per value: each value's
/// run is found by galloping): values before, inside, between and after the runs, for
/// every operation both ways.
#[test]
fn few_values_against_many_runs() {
    // 300 runs of 5 values, 5 apart: 0..=4, 10..=14, ..., 2990..=2994.
    let runs: BTreeSet<u32> = (0..300u32).flat_map(|i| i * 10..i * 10 + 5).collect();
    let er = encode(&runs);
    let vr = FrozenBitmap::from_bytes(&er).unwrap();
    assert_eq!(vr.statistics().run_containers, 1);
    let arrays: [&[u32]; 6] = [
        &[0],
        &[7],
        &[2994, 2995],
        &[3, 17, 1234, 1239, 2999, 65535],
        &[3000, 40000],
        &[5, 7, 9, 25, 27],
    ];
    for values in arrays {
        let a: BTreeSet<u32> = values.iter().copied().collect();
        let ea = encode(&a);
        let va = FrozenBitmap::from_bytes(&ea).unwrap();
        assert_eq!(va.statistics().array_containers, 1);
        check_ops(&va, &vr, &a, &runs);
        check_ops(&vr, &va, &runs, &a);
    }
}

/// Run containers whose runs touch (not canonical; another writer's portable bytes):
/// intersections give canonical runs, merged where the overlaps touch.
#[test]
fn touching_runs_intersect_into_canonical_runs() {
    // Portable, cookie 12347, one container (key 0, 11 values), flagged as runs:
    // 0..=5 and 6..=10, which touch.
    let touching: &[u8] = &[
        0x3B, 0x30, 0, 0, 1, 0, 0, 10, 0, 2, 0, 0, 0, 5, 0, 6, 0, 4, 0,
    ];
    let vt = FrozenBitmap::from_bytes(touching).unwrap();
    let a: BTreeSet<u32> = (0..=10).collect();
    assert!(vt.iter().eq(a.iter().copied()));
    // Against one run over both, one covering part of both, and runs meeting each.
    let others: [BTreeSet<u32>; 3] = [
        (0..=10).collect(),
        (3..=8).collect(),
        (0..=2).chain(5..=6).chain(9..=20).collect(),
    ];
    for b in &others {
        let eb = encode(b);
        let vb = FrozenBitmap::from_bytes(&eb).unwrap();
        check_ops(&vt, &vb, &a, b);
        check_ops(&vb, &vt, b, &a);
    }
}

#[test]
fn non_canonical_inputs_give_canonical_outputs() {
    // The interchange file without run containers keeps bitsets where runs are smaller;
    // any result must still be canonical (here: a ∪ ∅ re-encodes it canonically).
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/testdata/croaring/bitmapwithoutruns.bin");
    let Ok(bytes) = std::fs::read(&path) else {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "notice: {} not found, skipping",
            path.display()
        );
        return;
    };
    let v = FrozenBitmap::from_bytes(&bytes).unwrap();
    let empty = encode(&BTreeSet::new());
    let e = FrozenBitmap::from_bytes(&empty).unwrap();
    let values: BTreeSet<u32> = v.iter().collect();
    assert_eq!((v | e).as_bytes(), &encode(&values)[..]);
    assert_eq!((v & v).as_bytes(), &encode(&values)[..]);
}

#[test]
fn realdata_matches_croaring() {
    let sets = realdata_sets();
    let mut w = Writer::new();
    let mut out = Vec::new();
    for (name, files) in &sets {
        let values: Vec<Vec<u32>> = files.iter().map(|p| read_values(p)).collect();
        let bytes: Vec<Vec<u8>> = values
            .iter()
            .map(|v| encode(&v.iter().copied().collect()))
            .collect();
        let views: Vec<FrozenBitmap> = bytes
            .iter()
            .map(|b| FrozenBitmap::from_bytes(b).unwrap())
            .collect();
        let crs: Vec<Bitmap> = values
            .iter()
            .map(|v| {
                let mut b = Bitmap::of(v);
                b.run_optimize();
                b
            })
            .collect();
        let step = if std::env::var_os("CI").is_some() {
            4
        } else {
            1
        };
        for i in (1..views.len()).step_by(step) {
            let (a, b) = (&views[i - 1], &views[i]);
            let (ca, cb) = (&crs[i - 1], &crs[i]);
            for k in 0..4 {
                out.clear();
                let (r, expected) = match k {
                    0 => (w.intersection_into(a, b, &mut out), ca.and(cb)),
                    1 => (w.union_into(a, b, &mut out), ca.or(cb)),
                    2 => (w.difference_into(a, b, &mut out), ca.andnot(cb)),
                    _ => (w.symmetric_difference_into(a, b, &mut out), ca.xor(cb)),
                };
                let got = FrozenBitmap::from_bytes_strict(&out[r.unwrap()]).unwrap();
                assert!(
                    got.iter().eq(expected.iter()),
                    "{name} pair {i} operation {k}"
                );
                // Canonical kinds: what CRoaring's run_optimize picks for the result's values
                // (not for its own result containers: on a size tie it keeps a run container
                // as a run but leaves an array as an array).
                let mut canonical = Bitmap::of(&expected.to_vec());
                canonical.run_optimize();
                let st = canonical.statistics();
                let ours = got.statistics();
                assert_eq!(
                    (
                        ours.array_containers,
                        ours.bitset_containers,
                        ours.run_containers
                    ),
                    (
                        st.n_array_containers,
                        st.n_bitset_containers,
                        st.n_run_containers
                    ),
                    "{name} pair {i} operation {k}: container kinds"
                );
            }
        }
        out.clear();
        let r = w.union_many_into(&views, &mut out).unwrap();
        let all = Bitmap::fast_or(&crs.iter().collect::<Vec<_>>());
        let got = FrozenBitmap::from_bytes_strict(&out[r.clone()]).unwrap();
        assert!(got.iter().eq(all.iter()), "{name}: union of all");
        // Canonical kinds (the union's run containers are emitted straight from their
        // bits): byte for byte what writing its values gives.
        let mut written = Vec::new();
        Writer::new()
            .write_sorted(all.iter(), &mut written)
            .unwrap();
        assert!(out[r] == written[..], "{name}: union of all, as written");
        assert_eq!(w.union_many_len(&views), all.cardinality(), "{name}");
        out.clear();
        let rest = Bitmap::fast_or(&crs[1..].iter().collect::<Vec<_>>());
        let diff = crs[0].andnot(&rest);
        let r = w.difference_many_into(&views, &mut out).unwrap();
        let got = FrozenBitmap::from_bytes_strict(&out[r]).unwrap();
        assert!(got.iter().eq(diff.iter()), "{name}: first minus the rest");
        assert_eq!(w.difference_many_len(&views), diff.cardinality(), "{name}");
        // The last minus the rest.
        let order: Vec<FrozenBitmap> = views.iter().rev().copied().collect();
        let rest = Bitmap::fast_or(&crs[..crs.len() - 1].iter().collect::<Vec<_>>());
        let diff = crs[crs.len() - 1].andnot(&rest);
        out.clear();
        let r = w.difference_many_into(&order, &mut out).unwrap();
        let got = FrozenBitmap::from_bytes_strict(&out[r]).unwrap();
        assert!(got.iter().eq(diff.iter()), "{name}: last minus the rest");
        out.clear();
        let r = w.symmetric_difference_many_into(&views, &mut out).unwrap();
        let odd = Bitmap::fast_xor(&crs.iter().collect::<Vec<_>>());
        let got = FrozenBitmap::from_bytes_strict(&out[r]).unwrap();
        assert!(
            got.iter().eq(odd.iter()),
            "{name}: symmetric difference of all"
        );
        assert_eq!(
            w.symmetric_difference_many_len(&views),
            odd.cardinality(),
            "{name}"
        );
        let inter = crs.iter().skip(1).fold(crs[0].clone(), |acc, b| acc.and(b));
        assert_eq!(
            w.intersection_many_len(&views),
            inter.cardinality(),
            "{name}"
        );
    }
}

/// Found by `many_way_matches_model`: an intersection that stops early (a later input has
/// no more keys) left its partial container in the writer's scratch, and the next counting
/// union added it to its total.
#[test]
fn early_exit_leaves_no_state_behind() {
    let sets: [BTreeSet<u32>; 3] = [
        ((5 << 16)..(5 << 16) + 100)
            .chain(6 << 16..(6 << 16) + 9)
            .collect(),
        ((5 << 16)..(5 << 16) + 50)
            .chain(6 << 16..(6 << 16) + 3)
            .collect(),
        (0..10).chain(70_000..70_010).collect(),
    ];
    let bytes: Vec<Vec<u8>> = sets.iter().map(encode).collect();
    let views: Vec<FrozenBitmap> = bytes
        .iter()
        .map(|b| FrozenBitmap::from_bytes(b).unwrap())
        .collect();
    let mut w = Writer::new();
    // Key 5 of the first input is in the second (a partial result of 50 values), and the
    // third has no key >= 5: the loop stops there.
    assert_eq!(w.intersection_many_len(&views), 0);
    assert_eq!(w.union_many_len(&views[2..]), 20);
    let mut out = Vec::new();
    let r = w.intersection_many_into(&views, &mut out).unwrap();
    assert_eq!(&out[r], &encode(&BTreeSet::new())[..]);
    assert_eq!(w.union_many_len(&views[2..]), 20);
}

/// The first minus the rest, for a first bitmap of one container, reads no more of the
/// others once nothing is left of it (and none at all for an empty first): they are taken
/// as they come, not collected beforehand.
#[test]
fn difference_of_a_one_container_first_stops_reading_once_empty() {
    let sets: [&[u32]; 4] = [&[1, 2, 3, 70_000], &[2], &[1, 3, 70_000, 9], &[4]];
    let bytes: Vec<Vec<u8>> = sets
        .iter()
        .map(|s| encode(&s.iter().copied().collect()))
        .collect();
    let views: Vec<FrozenBitmap> = bytes
        .iter()
        .map(|b| FrozenBitmap::from_bytes(b).unwrap())
        .collect();
    let mut w = Writer::new();
    let mut out = Vec::new();
    for (first, taken, len) in [(&views[0], 4, 0), (&views[1], 2, 0), (&views[3], 4, 1)] {
        let mut read = 0;
        let others = views.iter().filter(|v| !std::ptr::eq(*v, first));
        let all = std::iter::once(first).chain(others).inspect(|_| read += 1);
        out.clear();
        let r = w.difference_many_into(all, &mut out).unwrap();
        let expected: Vec<u32> = first
            .iter()
            .filter(|x| {
                !views
                    .iter()
                    .any(|v| !std::ptr::eq(v, first) && v.contains(*x))
            })
            .collect();
        assert_eq!(
            FrozenBitmap::from_bytes(&out[r]).unwrap().to_vec(),
            expected
        );
        assert_eq!(expected.len(), len);
        // {1, 2, 3, 70 000} has two containers: all collected; {2} is emptied by the
        // second input, so the last two are never read; {4} by none, so all are read.
        assert_eq!(read, taken, "inputs read for {:?}", first.to_vec());
    }
    let empty = encode(&BTreeSet::new());
    let empty = FrozenBitmap::from_bytes(&empty).unwrap();
    let mut read = 0;
    let all = std::iter::once(&empty).chain(&views).inspect(|_| read += 1);
    assert_eq!(w.difference_many_len(all), 0);
    assert_eq!(read, 1);
}

/// Owned bitmaps compare and hash by set, as views do: one frozen and one portable bitmap
/// of the same values are equal and hash alike; `collect` and ranges build them.
#[test]
fn owned_bitmaps_compare_and_hash_by_set() {
    use std::hash::{BuildHasher, RandomState};
    let values: Vec<u32> = (0..5000).map(|i| i * 3).chain(100_000..100_500).collect();
    let frozen = FrozenBitmapBuf::from_sorted_iter(values.iter().copied()).unwrap();
    let mut portable = Vec::new();
    Writer::new()
        .write_portable_sorted(values.iter().copied(), &mut portable)
        .unwrap();
    let portable = FrozenBitmapBuf::from_bytes(portable).unwrap();
    assert_ne!(frozen.as_bytes(), portable.as_bytes());
    assert_eq!(frozen, portable);
    let h = RandomState::new();
    assert_eq!(h.hash_one(&frozen), h.hash_one(&portable));
    assert_eq!(h.hash_one(frozen.as_view()), h.hash_one(portable.as_view()));
    let shuffled: FrozenBitmapBuf = values.iter().rev().chain(values.iter()).copied().collect();
    assert_eq!(shuffled, frozen);
    let other = FrozenBitmapBuf::from_sorted_iter(values.iter().copied().skip(1)).unwrap();
    assert_ne!(other, frozen);
    assert_eq!(FrozenBitmapBuf::default().len(), 0);
    let (start, end) = (7, 6); // an empty range
    assert_eq!(FrozenBitmapBuf::from(start..=end).len(), 0);
    let range = FrozenBitmapBuf::from(65_530..=200_000);
    assert_eq!(
        range,
        FrozenBitmapBuf::from_sorted_iter(65_530..=200_000).unwrap()
    );
    assert_eq!(
        range.as_bytes(),
        FrozenBitmapBuf::from_sorted_iter(65_530..=200_000)
            .unwrap()
            .as_bytes()
    );
}
