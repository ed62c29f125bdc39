//! Unit tests of the byte-casting paths, small enough to run under Miri
//! (`cargo +nightly miri test --lib`): every container kind read from slices at every
//! alignment, corrupt and truncated inputs, and the writer's output paths.

use alloc::vec::Vec;

use crate::{FrozenBitmap, Writer};

/// A bitmap with an array, a run and a bitset container, plus one value in the last key.
fn sample() -> Vec<u32> {
    let mut v: Vec<u32> = [3, 9, 27, 81].to_vec();
    v.extend(65_536 + 100..65_536 + 400);
    v.extend((131_072..131_072 + 65_536).step_by(13)); // 5042 values: a bitset
    v.push(u32::MAX);
    v
}

fn encode(values: &[u32], checksum: bool) -> Vec<u8> {
    let mut out = Vec::new();
    Writer::new()
        .with_checksum(checksum)
        .write_sorted(values.iter().copied(), &mut out)
        .unwrap();
    out
}

/// The byte offsets the alignment tests place encodings at: all eight natively; under
/// Miri (where these two tests took three minutes of CI) 0, 1, 2 and 4: an odd offset,
/// which puts every 2-, 4- and 8-byte field off its natural alignment, and the offsets
/// that put 8-byte fields at the other 2- and 4-byte boundaries. On a big-endian target
/// under Miri, where the byte order is what is tested (the host's run covers the
/// alignments), 0 and the odd offset.
const SHIFTS: &[usize] = if cfg!(all(miri, target_endian = "big")) {
    &[0, 1]
} else if cfg!(miri) {
    &[0, 1, 2, 4]
} else {
    &[0, 1, 2, 3, 4, 5, 6, 7]
};

#[test]
fn reads_every_kind_at_every_alignment() {
    let values = sample();
    for (checksum, shifts) in [(false, SHIFTS), (true, &[1][..])] {
        let bytes = encode(&values, checksum);
        for &shift in shifts {
            let mut buf = alloc::vec![0u8; shift];
            buf.extend_from_slice(&bytes);
            let bm = FrozenBitmap::from_bytes_strict(&buf[shift..]).unwrap();
            let st = bm.statistics();
            assert_eq!(
                (st.array_containers, st.run_containers, st.bitset_containers),
                (2, 1, 1)
            );
            assert_eq!(bm.len(), values.len() as u64);
            // Whole-set extraction at every alignment, but at one only under Miri, where
            // it is the slowest part of this test (a vector store per byte of the bitset,
            // interpreted): the casts it reads through are the ones `contains`, `rank`
            // and `select` read at every alignment below.
            if shift == 0 || !cfg!(miri) {
                assert_eq!(bm.to_vec(), values);
            }
            // Backward at one alignment only, for the same reason.
            if shift == 0 {
                assert!(bm.iter().rev().eq(values.iter().rev().copied()));
            }
            for (i, &v) in values.iter().enumerate().step_by(509) {
                assert!(bm.contains(v));
                assert!(!bm.contains(v + 1) || values.binary_search(&(v + 1)).is_ok());
                assert_eq!(bm.rank(v), i as u64 + 1);
                assert_eq!(bm.select(i as u32), Some(v));
            }
            assert_eq!(bm.intersection_len(&bm), bm.len());
            assert!(bm.is_subset(&bm) && !bm.is_disjoint(&bm));
        }
    }
}

#[test]
fn portable_and_64_bit_views_at_every_alignment() {
    let values = sample();
    let wide: Vec<u64> = values
        .iter()
        .map(|&v| u64::from(v))
        .chain(values.iter().map(|&v| (7u64 << 32) | u64::from(v)))
        .collect();
    let mut w = Writer::new();
    let (mut portable, mut frozen64, mut portable64) = (Vec::new(), Vec::new(), Vec::new());
    w.write_portable_sorted(values.iter().copied(), &mut portable)
        .unwrap();
    w.write_sorted64(wide.iter().copied(), &mut frozen64)
        .unwrap();
    w.write_portable_sorted64(wide.iter().copied(), &mut portable64)
        .unwrap();
    for &shift in SHIFTS {
        let shifted = |bytes: &[u8]| {
            let mut buf = alloc::vec![0u8; shift];
            buf.extend_from_slice(bytes);
            buf
        };
        let buf = shifted(&portable);
        let bm = FrozenBitmap::from_bytes_strict(&buf[shift..]).unwrap();
        // Whole-set checks once; every alignment reads every container kind below.
        if shift == 0 {
            assert_eq!(bm.to_vec(), values);
            assert!(bm.iter().rev().eq(values.iter().rev().copied()));
        }
        for (i, &v) in values.iter().enumerate().step_by(1009) {
            assert!(bm.contains(v));
            assert_eq!(bm.rank(v), i as u64 + 1);
            assert_eq!(bm.select(i as u32), Some(v));
        }
        for bytes in [&frozen64, &portable64] {
            let buf = shifted(bytes);
            let bm = crate::FrozenBitmap64::from_bytes(&buf[shift..]).unwrap();
            assert_eq!(bm.len(), wide.len() as u64);
            if shift == 0 {
                bm.validate().unwrap();
                assert!(bm.iter().eq(wide.iter().copied()));
            }
            let v = wide[wide.len() - 2];
            assert!(bm.contains(v));
            assert_eq!(bm.rank(v), wide.len() as u64 - 1);
            assert_eq!(bm.select(wide.len() as u64 - 2), Some(v));
            assert_eq!(bm.intersection_len(&bm), bm.len());
        }
    }
}

#[test]
#[allow(unsafe_code)]
fn corrupt_and_truncated_inputs_never_panic() {
    let bytes = encode(&sample(), false);
    for k in (0..bytes.len().min(200)).step_by(3) {
        assert!(FrozenBitmap::from_bytes(&bytes[..k]).is_err());
        // SAFETY: deliberately violated; the implementation must stay memory-safe.
        let bm = unsafe { FrozenBitmap::from_bytes_unchecked(&bytes[..k]) };
        let _ = (
            bm.len(),
            bm.contains(3),
            bm.rank(100),
            bm.select(2),
            bm.iter().take(10).count(),
        );
    }
    // Flip bits of the header and directory, one at a time.
    let dir_end = 16 + 12 * 4;
    for pos in 0..dir_end {
        for bit in [0, 3, 7] {
            let mut b = bytes.clone();
            b[pos] ^= 1 << bit;
            if let Ok(bm) = FrozenBitmap::from_bytes(&b) {
                let _ = (
                    bm.len(),
                    bm.contains(27),
                    bm.rank(70_000),
                    bm.select(5),
                    bm.max(),
                );
                let _ = bm.iter().rev().take(5).count() + bm.iter().take(5).count();
                let _ = bm.validate();
            }
        }
    }
}

#[test]
fn output_paths_agree() {
    let values = sample();
    let mut w = Writer::new();
    let mut out = alloc::vec![1u8; 5];
    let r = w.write_sorted(values.iter().copied(), &mut out).unwrap();
    assert_eq!(r.start % 64, 0);
    let mut slice = alloc::vec![0u8; r.len()];
    assert_eq!(
        w.write_sorted_to_slice(values.iter().copied(), &mut slice)
            .unwrap(),
        r.len()
    );
    assert_eq!(&out[r.clone()], &slice[..]);
    assert_eq!(w.serialized_size(values.iter().copied()).unwrap(), r.len());
    let view = FrozenBitmap::from_bytes(&slice).unwrap();
    let mut again = Vec::new();
    let r2 = w.write_frozen(&view, &mut again).unwrap();
    assert_eq!(&again[r2], &slice[..]);
}

/// A xorshift generator from a seed: each call gives a number below its argument.
fn xorshift(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    move |m| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    }
}

/// Sorted, deduplicated `u16` values from a seed, with a density that varies per seed.
fn random_lows(seed: u64, len: usize) -> Vec<u16> {
    let mut next = xorshift(seed);
    let modulus = 1 + (seed % 7 + 1) * len as u64;
    let mut v: Vec<u16> = (0..len).map(|_| next(modulus.min(65536)) as u16).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Serializes the tests that cap the kernels' CPU level (a process-wide switch), so that
/// one test's forcing does not change which path another test's calls take.
#[cfg(feature = "std")]
static FORCE: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn as_le(v: &[u16]) -> Vec<crate::cast::U16> {
    v.iter().map(|&x| crate::cast::U16::new(x)).collect()
}

#[test]
#[cfg_attr(miri, ignore)] // uses CPU intrinsics
fn accelerated_kernels_match_scalar() {
    let _guard = FORCE.lock();
    use crate::container::{Container, count};
    for seed in 0..400u64 {
        let (la, lb) = ((seed * 37 % 300) as usize, (seed * 91 % 5000) as usize);
        let (a, b) = (random_lows(seed, la), random_lows(seed + 1000, lb));
        let expected = a.iter().filter(|x| b.binary_search(x).is_ok()).count() as u64;
        let (a, b) = (as_le(&a), as_le(&b));
        for (x, y) in [(&a, &b), (&b, &a)] {
            if let Some(n) = crate::simd::scan_count_u16(x, y) {
                assert_eq!(n, expected, "scan, seed {seed}");
            }
        }
        if let Some(n) = crate::simd::intersect_count_u16(&a, &b) {
            assert_eq!(n, expected, "seed {seed}");
            assert_eq!(
                crate::simd::intersect_count_u16(&b, &a),
                Some(expected),
                "seed {seed} swapped"
            );
        }
        let (ca, cb) = (Container::Array(&a), Container::Array(&b));
        assert_eq!(count::intersection_len(ca, cb), expected);
        // Each CPU level's counting kernels.
        for level in CPU_LEVELS {
            cap(level);
            assert_eq!(count::intersection_len(ca, cb), expected, "level {level}");
        }
        cap(0);
    }
}

/// The three encodings of one set of low parts, as stored little-endian.
fn kinds_of(
    lows: &[u16],
) -> (
    Vec<crate::cast::U16>,
    Vec<crate::cast::U64>,
    Vec<crate::cast::RunLE>,
) {
    use crate::cast::{RunLE, U16, U64};
    let mut words = alloc::vec![U64::new(0); crate::cast::BITSET_WORDS];
    for &v in lows {
        let w = &mut words[usize::from(v >> 6)];
        *w = U64::new(w.get() | 1 << (v & 63));
    }
    let mut runs = Vec::new();
    crate::encode::array_runs(lows, |s, e| {
        runs.push(RunLE {
            start: U16::new(s),
            len_minus_one: U16::new(e - s),
        })
    });
    (as_le(lows), words, runs)
}

/// Few values against many runs, many values against few runs, and everything between:
/// the counting kernels of every pair of kinds agree with a count over the values.
#[test]
fn intersection_len_of_every_kind_pair_matches_the_model() {
    use crate::container::{Container, count};
    let sets: Vec<Vec<u16>> = if cfg!(miri) {
        // Interpreted: a few small operands of each shape.
        alloc::vec![
            random_lows(0, 3),
            random_lows(1, 40),
            (100..300).chain(65000..65100).collect(),
            (0..100u16).flat_map(|k| k * 32..k * 32 + 5).collect(),
        ]
    } else {
        let mut sets: Vec<Vec<u16>> = (0..6u64)
            .map(|seed| random_lows(seed, [3, 40, 700, 4000, 9000, 20][seed as usize]))
            .collect();
        sets.push((0..=u16::MAX).collect());
        sets.push((0..=u16::MAX).step_by(2).collect()); // 32768 runs of one
        sets.push((100..3000).chain(5000..5100).chain(65000..=65535).collect());
        sets.push((0..2000u16).flat_map(|k| k * 32..k * 32 + 5).collect());
        sets
    };
    let encoded: Vec<_> = sets.iter().map(|s| kinds_of(s)).collect();
    for (sa, a) in sets.iter().zip(&encoded) {
        for (sb, b) in sets.iter().zip(&encoded) {
            let expected = sa.iter().filter(|x| sb.binary_search(x).is_ok()).count() as u64;
            fn kinds<'e>(
                e: &'e (
                    Vec<crate::cast::U16>,
                    Vec<crate::cast::U64>,
                    Vec<crate::cast::RunLE>,
                ),
                n: usize,
            ) -> Vec<Container<'e>> {
                let mut v = alloc::vec![
                    Container::Bitset(e.1[..].try_into().unwrap()),
                    Container::Run(&e.2[..]),
                ];
                if n <= 4096 {
                    v.push(Container::Array(&e.0[..]));
                }
                v
            }
            for x in kinds(a, sa.len()) {
                for y in kinds(b, sb.len()) {
                    assert_eq!(
                        count::intersection_len(x, y),
                        expected,
                        "{:?} ∩ {:?} of {} and {} values",
                        x.kind(),
                        y.kind(),
                        sa.len(),
                        sb.len()
                    );
                }
            }
        }
    }
}

#[test]
#[cfg_attr(miri, ignore)] // the assembly step; under Miri both are the portable one
fn bit_op_matches_the_portable_step() {
    use crate::simd::{BitOp, Bmi2, bit_op, bit_op_bmi2, bit_op_portable};
    let mut next = xorshift(99);
    let mut start = [0u64; crate::cast::BITSET_WORDS];
    start
        .iter_mut()
        .for_each(|w| *w = next(u64::MAX) ^ (next(u64::MAX) << 32));
    // The ends of words and of the bitset, then random values with repeats (a flip twice).
    let mut values: Vec<u16> = alloc::vec![0, 1, 63, 64, 127, 65_472, 65_535, 65_535];
    values.extend((0..3000).map(|_| next(65_536) as u16));
    values.extend_from_within(..500);
    // The BMI2 step where the CPU has it, and the other one.
    let bmi2 = Bmi2::detect();
    for (op, with_bmi2) in [BitOp::Set, BitOp::Flip, BitOp::Clear]
        .into_iter()
        .flat_map(|op| [(op, None), (op, bmi2)])
    {
        let (mut fast, mut portable) = (start, start);
        for &v in &values {
            let was = (fast[usize::from(v >> 6)] >> (v & 63)) & 1;
            if let Some(bmi2) = with_bmi2 {
                bit_op_bmi2(bmi2, &mut fast, v, op);
            } else {
                bit_op(&mut fast, v, op);
            }
            bit_op_portable(&mut portable, v, op);
            let now = (fast[usize::from(v >> 6)] >> (v & 63)) & 1;
            let want = match op {
                BitOp::Set => 1,
                BitOp::Flip => was ^ 1,
                BitOp::Clear => 0,
            };
            assert_eq!(now, want, "{op:?} {v}");
        }
        assert!(fast == portable, "{op:?}");
        assert!(fast != start, "{op:?} changed nothing");
    }
}

#[test]
#[cfg_attr(miri, ignore)] // uses CPU intrinsics
fn accelerated_set_kernels_match_scalar() {
    let _guard = FORCE.lock();
    use crate::algebra::{Op, kernels, scratch::Scratch};
    use crate::container::Container;
    use crate::encode::Encoder;
    let mut sets: Vec<Vec<u16>> = (0..8u64)
        .map(|seed| random_lows(seed, [5, 300, 4000, 9000][seed as usize % 4]))
        .collect();
    sets.push((0..=u16::MAX).collect());
    sets.push((100..3000).chain(5000..5100).collect());
    let encoded: Vec<_> = sets.iter().map(|s| kinds_of(s)).collect();
    let mut s = Scratch::new();
    let (mut e1, mut e2) = (Encoder::new(), Encoder::new());
    // Arrays of more than 4096 values are not containers: those sets go as bitsets and runs.
    let fits = |c: &&Container<'_>| !matches!(c, Container::Array(v) if v.len() > 4096);
    // Emits the scratch's container and, through the pairwise kernel, `op` of the two
    // operands' bitset forms, and asserts that the two encode alike.
    fn same_as_bitset_path(
        s: &mut Scratch,
        op: Op,
        x: Container<'_>,
        y: Container<'_>,
        what: core::fmt::Arguments<'_>,
    ) {
        let (mut e1, mut e2) = (Encoder::new(), Encoder::new());
        s.emit(7, &mut e1);
        kernels::binary(op, x, y, s);
        s.emit(7, &mut e2);
        assert_eq!(e1.payload, e2.payload, "{op:?} {what}");
        assert_eq!(e1.metas.len(), e2.metas.len(), "{op:?} {what}");
    }
    for (a, b) in encoded
        .iter()
        .flat_map(|a| encoded.iter().map(move |b| (a, b)))
    {
        let ca = [
            Container::Array(&a.0),
            Container::Bitset(a.1[..].try_into().unwrap()),
            Container::Run(&a.2),
        ];
        let cb = [
            Container::Array(&b.0),
            Container::Bitset(b.1[..].try_into().unwrap()),
            Container::Run(&b.2),
        ];
        for op in [Op::And, Op::Or, Op::AndNot, Op::Xor] {
            for &x in ca.iter().filter(fits) {
                for &y in cb.iter().filter(fits) {
                    e1.reset();
                    e2.reset();
                    kernels::binary(op, x, y, &mut s);
                    s.emit(7, &mut e1);
                    // The lower CPU levels' kernels give the same bytes.
                    for level in &CPU_LEVELS[1..] {
                        cap(*level);
                        e2.reset();
                        kernels::binary(op, x, y, &mut s);
                        s.emit(7, &mut e2);
                        assert_eq!(e1.payload, e2.payload, "{op:?}, level {level}");
                        assert_eq!(e1.metas.len(), e2.metas.len());
                    }
                    cap(0);
                    // Every representation of the same operands gives the same bytes.
                    kernels::binary(op, ca[1], cb[1], &mut s);
                    e2.reset();
                    s.emit(7, &mut e2);
                    assert_eq!(e1.payload, e2.payload, "{op:?} vs the bitset path");
                }
            }
        }
        // The accumulating kernels of the many-way forms (any kind into a bitset), at both
        // CPU levels, agree with the pairwise kernels.
        type Into = fn(&[(Container<'_>, u32)], &mut [u64; crate::cast::BITSET_WORDS]);
        let accumulate: [(Op, Into); 2] = [
            (Op::Or, kernels::or_many_into_bits),
            (Op::Xor, kernels::xor_many_into_bits),
        ];
        for level in CPU_LEVELS {
            cap(level);
            for (op, into) in accumulate {
                for &x in ca.iter().filter(fits) {
                    for &y in cb.iter().filter(fits) {
                        s.clear();
                        s.zero_bits();
                        // The stored cardinalities play no part.
                        into(&[(x, 0), (y, 0)], &mut s.bits);
                        kernels::finish_bits(&mut s);
                        same_as_bitset_path(
                            &mut s,
                            op,
                            ca[1],
                            cb[1],
                            format_args!("accumulated, level {level}"),
                        );
                    }
                }
            }
            // The kernels that build a bitset result in the output (from a bitset and any
            // container, or from two arrays), with the cardinality they return.
            type IntoBits = fn(
                &crate::cast::BitsetLE,
                Container<'_>,
                &mut [u64; crate::cast::BITSET_WORDS],
            ) -> u32;
            let into_bits: [(Op, IntoBits); 2] = [
                (Op::Or, kernels::or_bitset_into),
                (Op::AndNot, kernels::andnot_bitset_into),
            ];
            let Container::Bitset(xb) = ca[1] else {
                unreachable!()
            };
            for (op, into) in into_bits {
                for &y in cb.iter().filter(fits) {
                    // Stale words first: every word must be overwritten.
                    s.bits.fill(!0);
                    let card = into(xb, y, &mut s.bits);
                    s.set_bits_counted(card);
                    assert_eq!(card, crate::bits::bitset_card(&s.bits, |w| w));
                    same_as_bitset_path(
                        &mut s,
                        op,
                        ca[1],
                        cb[1],
                        format_args!("into bits, level {level}"),
                    );
                }
            }
            if let (Container::Array(x), Container::Array(y)) = (ca[0], cb[0])
                && x.len() <= 4096
                && y.len() <= 4096
            {
                s.zero_bits();
                let card = kernels::or_arrays_into_bits(x, y, &mut s.bits);
                s.set_bits_counted(card);
                same_as_bitset_path(
                    &mut s,
                    Op::Or,
                    ca[1],
                    cb[1],
                    format_args!("arrays into bits, level {level}"),
                );
            }
            // Intersecting with, and taking away, a container in place, from each
            // representation.
            type InPlace = fn(Container<'_>, &mut Scratch);
            let in_place: [(Op, InPlace); 2] = [
                (Op::And, kernels::and_in_place),
                (Op::AndNot, kernels::andnot_in_place),
            ];
            for (op, apply) in in_place {
                for &x in ca.iter().filter(fits) {
                    for &y in cb.iter().filter(fits) {
                        s.load(x);
                        apply(y, &mut s);
                        same_as_bitset_path(
                            &mut s,
                            op,
                            ca[1],
                            cb[1],
                            format_args!("in place, level {level}"),
                        );
                    }
                }
            }
        }
        cap(0);
    }
}

#[test]
#[cfg_attr(miri, ignore)] // uses CPU intrinsics
fn simd_array_kernels_match_the_model() {
    let _guard = FORCE.lock();
    let mut cases: Vec<(Vec<u16>, Vec<u16>)> = Vec::new();
    // Lengths around the blocks of 8 (SSE) and 32 (AVX-512) values.
    for seed in 0..900u64 {
        let la = [0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 64, 65, 100, 1000, 4096][seed as usize % 15];
        let lb = [0, 3, 8, 16, 24, 31, 32, 33, 63, 200, 4000][(seed / 15) as usize % 11];
        cases.push((random_lows(seed, la), random_lows(seed + 7777, lb)));
    }
    // Heavily overlapping arrays: a random part of `a` plus values of its own.
    for seed in 0..300u64 {
        let a = random_lows(seed, [9, 40, 700, 4000][seed as usize % 4]);
        let mut b: Vec<u16> = a
            .iter()
            .copied()
            .filter(|v| (u64::from(*v) * 0x9E37 + seed) % 5 < 3)
            .chain(random_lows(seed + 1, a.len() / 3))
            .collect();
        b.sort_unstable();
        b.dedup();
        cases.push((a, b));
    }
    // Overlapping, nested and disjoint arrays.
    let evens: Vec<u16> = (0..4000).map(|x| x * 2).collect();
    let odds: Vec<u16> = (0..4000).map(|x| x * 2 + 1).collect();
    let low: Vec<u16> = (0..100).collect();
    let high: Vec<u16> = (60_000..60_100).collect();
    cases.push((evens.clone(), odds.clone()));
    cases.push((evens.clone(), evens.iter().copied().step_by(3).collect()));
    cases.push((low.clone(), high.clone()));
    cases.push((high, low));
    cases.push((evens.clone(), evens));
    cases.push((odds[..13].to_vec(), odds));
    // Each CPU level's kernels (the levels the CPU lacks run as the highest it has).
    for (level, (a, b)) in CPU_LEVELS
        .iter()
        .flat_map(|l| cases.iter().map(move |c| (l, c)))
    {
        cap(*level);
        let union: Vec<u16> = {
            let mut u: Vec<u16> = a.iter().chain(b.iter()).copied().collect();
            u.sort_unstable();
            u.dedup();
            u
        };
        let inter: Vec<u16> = a
            .iter()
            .copied()
            .filter(|x| b.binary_search(x).is_ok())
            .collect();
        let (la, lb) = (as_le(a), as_le(b));
        for (x, y) in [(&la, &lb), (&lb, &la)] {
            let mut out = alloc::vec![5u16, 6];
            if crate::simd::union_u16(x, y, &mut out) {
                assert_eq!(&out[..2], &[5, 6]);
                let (m, n) = (x.len(), y.len());
                assert_eq!(out[2..], union[..], "union of {m} and {n}, level {level}");
            }
            let mut out = Vec::new();
            if crate::simd::intersect_u16(x, y, &mut out) {
                assert_eq!(out, inter, "intersection of {} and {}", x.len(), y.len());
            }
            // The scan takes any two sorted arrays (it is fastest for lopsided ones), and
            // appends after what `out` holds.
            let mut out = alloc::vec![7u16];
            if crate::simd::scan_u16(x, y, &mut out) {
                assert_eq!(out[0], 7);
                assert_eq!(out[1..], inter[..], "scan of {} in {}", x.len(), y.len());
            }
        }
        let in_both = |v: &u16| a.binary_search(v).is_ok() && b.binary_search(v).is_ok();
        let xor: Vec<u16> = union.iter().copied().filter(|v| !in_both(v)).collect();
        let a_minus_b: Vec<u16> = a.iter().copied().filter(|v| !in_both(v)).collect();
        let b_minus_a: Vec<u16> = b.iter().copied().filter(|v| !in_both(v)).collect();
        for (x, y, minus) in [(&la, &lb, &a_minus_b), (&lb, &la, &b_minus_a)] {
            let mut out = alloc::vec![9u16];
            if crate::simd::difference_u16(x, y, &mut out) {
                assert_eq!(out[0], 9);
                assert_eq!(
                    out[1..],
                    minus[..],
                    "difference of {} and {}",
                    x.len(),
                    y.len()
                );
            }
            let mut out = alloc::vec![9u16];
            if crate::simd::xor_u16(x, y, &mut out) {
                assert_eq!(out[0], 9);
                assert_eq!(out[1..], xor[..], "xor of {} and {}", x.len(), y.len());
            }
        }
    }
    cap(0);
}

/// `max_canonical_runs` is the boundary of `canonical_kind`'s run choice for every size.
#[test]
fn run_count_cap_matches_the_canonical_choice() {
    use crate::format::{ContainerKind, canonical_kind, max_canonical_runs};
    for card in 1..=65_536u32 {
        let max = max_canonical_runs(card);
        if max >= 1 {
            assert_eq!(canonical_kind(card, max), ContainerKind::Run, "{card}");
        }
        assert_ne!(canonical_kind(card, max + 1), ContainerKind::Run, "{card}");
    }
}

/// Bitsets to runs and to values, in both forms of the extraction (words skipped or not),
/// against the values: runs touching 0 and 65535, a full bitset, alternating bits, words
/// with more than 4 and more than 8 boundaries, sparse words with boundaries on both ends.
#[test]
fn bitset_extraction_matches_the_values() {
    use crate::bits::{bitset_card, bitset_runs_capped};
    use crate::encode::{array_runs, bitset_runs_into, packed_runs_into};
    let mut sets: Vec<Vec<u16>> = alloc::vec![
        alloc::vec![0, 65535],
        (0..10).chain(65530..=65535).collect(),
        (0..300u16).map(|k| k * 16 + (k % 3)).collect(), // run by run
        (0..600u16).map(|k| k * 16 + (k % 3)).collect(), // flattened
    ];
    if !cfg!(miri) {
        // Interpreted, the small ones above suffice (both forms, both ends).
        sets.extend(
            (0..6u64)
                .map(|seed| random_lows(seed, [1, 30, 300, 3000, 20000, 60000][seed as usize])),
        );
        sets.push((0..=u16::MAX).collect());
        sets.push((0..=u16::MAX).step_by(2).collect());
        sets.push((1..=u16::MAX).step_by(2).collect());
        sets.push((0..4000u16).map(|k| k * 16 + (k % 3)).collect());
        // Sparse words whose boundaries sit on their first and last bits (bit 63 of each
        // word set: a run from bit 63 to the next word's bit 0), one group of 8 words with
        // more than 8 boundaries among them.
        let mut edges: Vec<u16> = (0..1024u16).map(|k| k * 64 + 63).collect();
        edges.extend((0..32u16).map(|k| 64 * 40 + 2 * k));
        edges.sort_unstable();
        sets.push(edges);
    }
    // No other test may cap the CPU level meanwhile.
    let _guard = FORCE.lock();
    // Each CPU level's extraction (AVX-512, x86-64-v3, baseline; the levels the CPU lacks
    // run as the highest it has).
    let levels = tested_levels();
    for (lows, level) in sets
        .iter()
        .flat_map(|l| levels.iter().map(move |&c| (l, c)))
    {
        cap(level);
        let (_, words, _) = kinds_of(lows);
        let words: &[crate::cast::U64; crate::cast::BITSET_WORDS] = words[..].try_into().unwrap();
        let card = bitset_card(words, |w| w.get());
        let nruns = bitset_runs_capped(words, |w| w.get(), u32::MAX);
        assert_eq!(card as usize, lows.len());
        // Capped counts: exact up to the cap, above it past the cap.
        assert_eq!(bitset_runs_capped(words, |w| w.get(), nruns), nruns);
        assert!(bitset_runs_capped(words, |w| w.get(), nruns - 1) > nruns - 1);
        let mut expected = Vec::new();
        array_runs(lows, |s, e| {
            expected.extend_from_slice(&s.to_le_bytes());
            expected.extend_from_slice(&(e - s).to_le_bytes());
        });
        assert_eq!(expected.len(), 4 * nruns as usize);
        let mut out = alloc::vec![9u8; 3]; // appends after what is there
        bitset_runs_into(words, |w| w.get(), nruns as usize, &mut out);
        assert_eq!(&out[..3], &[9, 9, 9]);
        assert_eq!(
            &out[3..],
            &expected[..],
            "runs of {} values, level {level}",
            lows.len()
        );
        // Counted and packed in one pass (AVX-512 only), then unpacked: the same runs.
        let mut packed = crate::simd::Packed::new();
        match crate::simd::bitset_stats_packed(crate::cast::bytes_of(words), &mut packed) {
            Some(stats) => {
                assert_eq!(stats, (card, nruns), "counts of {} values", lows.len());
                let open_end = words[crate::cast::BITSET_WORDS - 1].get() >> 63 == 1;
                // The runs unpacked from `p` (appended after what `out` holds).
                let unpacked = |p: &crate::simd::Packed| {
                    let mut out = alloc::vec![9u8; 3];
                    assert!(packed_runs_into(p, open_end, nruns as usize, &mut out));
                    assert_eq!(&out[..3], &[9, 9, 9]);
                    out.split_off(3)
                };
                assert_eq!(unpacked(&packed), expected, "packed runs of {}", lows.len());
                // Counted as far as a cap needs: exact (and packed) up to it, above it past.
                let bytes = crate::cast::bytes_of(words);
                let mut capped = crate::simd::Packed::new();
                let below = crate::simd::bitset_runs_packed_capped(bytes, nruns - 1, &mut capped);
                assert!(below.unwrap() > nruns - 1, "capped runs of {}", lows.len());
                let at = crate::simd::bitset_runs_packed_capped(bytes, nruns, &mut capped);
                assert_eq!(at, Some(nruns), "capped runs of {} values", lows.len());
                assert_eq!(unpacked(&capped), expected, "capped packed runs");
                // Counted with the bits in the same pass: the bits' count only up to the cap.
                let below = crate::simd::bitset_stats_packed_capped(bytes, nruns - 1, &mut capped);
                let (no_card, over) = below.unwrap();
                assert!(no_card.is_none() && over > nruns - 1, "stats capped below");
                let at = crate::simd::bitset_stats_packed_capped(bytes, nruns, &mut capped);
                assert_eq!(
                    at,
                    Some((Some(card), nruns)),
                    "stats capped of {}",
                    lows.len()
                );
                assert_eq!(unpacked(&capped), expected, "stats capped packed runs");
            }
            None => {
                // Only where AVX-512 is missing or capped off.
                #[cfg(all(feature = "std", target_arch = "x86_64"))]
                assert!(!crate::simd::x86::has_v4(), "not packed at level {level}");
            }
        }
        let mut out = alloc::vec![9u8; 1];
        crate::algebra::scratch::extract(words, |w| w.get(), card as usize, &mut out);
        let values: Vec<u8> = lows.iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(
            &out[1..],
            &values[..],
            "values of {} values, level {level}",
            lows.len()
        );
    }
    cap(0);
}

/// The caps of [`cap`]: no cap, no AVX-512, baseline only.
const CPU_LEVELS: [u8; 3] = [0, 2, BASELINE];
/// The caps worth a test's time: all of [`CPU_LEVELS`], or under Miri (which runs the
/// baseline kernels whatever the cap) the first only.
fn tested_levels() -> &'static [u8] {
    if cfg!(miri) {
        &CPU_LEVELS[..1]
    } else {
        &CPU_LEVELS[..]
    }
}

/// The cap of [`cap`] that forces the baseline kernels.
const BASELINE: u8 = 1;

/// Caps the SIMD kernels' CPU level (0 lifts the cap; see `crate::simd::x86::cap_level`)
/// where there are levels: a process-wide switch, so callers hold `FORCE`.
fn cap(level: u8) {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    crate::simd::x86::cap_level(level);
    let _ = level;
}

/// Many small run-heavy sets (runs nested in, overlapping, touching and equal to each
/// other's, at both ends of the range): every operation on every pair of kinds gives the
/// bytes of the word-wise bitset path.
#[test]
#[cfg_attr(miri, ignore)] // kernel logic over 8 KiB bitsets, no new casts: too slow interpreted
fn run_kernels_match_the_bitset_path() {
    use crate::algebra::{Op, kernels, scratch::Scratch};
    use crate::container::Container;
    use crate::encode::Encoder;
    let mut next = xorshift(0x2545_F491_4F6C_DD1D);
    let sets: Vec<Vec<u16>> = (0..60)
        .map(|_| {
            let mut v = Vec::new();
            let base = if next(2) == 0 { 0u32 } else { 65_536 - 160 };
            let mut at = u32::try_from(next(6)).unwrap();
            while at < 160 {
                let len = u32::try_from(next(9)).unwrap() + 1;
                v.extend((base + at..(base + at + len).min(base + 160)).map(|x| x as u16));
                at += len + u32::try_from(next(5)).unwrap(); // gaps of 0 make touching runs
            }
            v.dedup();
            v
        })
        .collect();
    let encoded: Vec<_> = sets.iter().map(|s| kinds_of(s)).collect();
    let mut s = Scratch::new();
    let (mut e1, mut e2) = (Encoder::new(), Encoder::new());
    for a in &encoded {
        for b in &encoded {
            let ca = [Container::Array(&a.0), Container::Run(&a.2)];
            let cb = [Container::Array(&b.0), Container::Run(&b.2)];
            let (ba, bb) = (
                Container::Bitset(a.1[..].try_into().unwrap()),
                Container::Bitset(b.1[..].try_into().unwrap()),
            );
            for op in [Op::And, Op::Or, Op::AndNot, Op::Xor] {
                e2.reset();
                kernels::binary(op, ba, bb, &mut s);
                s.emit(3, &mut e2);
                for &x in &ca {
                    for &y in &cb {
                        e1.reset();
                        kernels::binary(op, x, y, &mut s);
                        s.emit(3, &mut e1);
                        assert_eq!(
                            e1.payload,
                            e2.payload,
                            "{op:?} {:?} {:?}",
                            x.kind(),
                            y.kind()
                        );
                        assert_eq!(e1.metas.len(), e2.metas.len());
                    }
                }
            }
        }
    }
}

/// Run counts of arrays (32 or 16 neighbours per step with AVX-512 or AVX2, one by one in
/// the baseline; exact or capped) and the branch-free array → runs conversion agree with
/// the runs found value by value, on arrays whose runs are long, short or single values,
/// touching 65535, of every length around the 16- and 32-lane steps; on unsorted (corrupt)
/// arrays they agree with each other.
#[test]
#[cfg_attr(miri, ignore)] // uses CPU intrinsics
fn array_run_counts_and_conversion_match_the_values() {
    use crate::encode::{array_runs, array_runs_into};
    let _guard = FORCE.lock();
    let mut sets: Vec<Vec<u16>> = alloc::vec![
        alloc::vec![],
        alloc::vec![65535],
        (65500..=65535).collect(),
        (0..4096).collect(),
        (0..4096u16).map(|k| k * 2).collect(),
        (0..4096u16).map(|k| k / 3 * 4).collect(),
    ];
    for len in 0..140u16 {
        sets.push((0..len).map(|k| k * 3 / 2).collect());
    }
    for seed in 0..200u64 {
        sets.push(random_lows(
            seed,
            [5, 17, 33, 100, 1000, 4096][seed as usize % 6],
        ));
    }
    // Corrupt arrays: unsorted, repeated values.
    for seed in 0..50u64 {
        let mut next = xorshift(seed);
        sets.push((0..(seed * 7) as usize).map(|_| next(40) as u16).collect());
    }
    for lows in &sets {
        let mut expected: Vec<u16> = Vec::new();
        array_runs(lows, |s, e| {
            expected.push(s);
            expected.push(e.wrapping_sub(s));
        });
        let runs = expected.len() as u32 / 2;
        let le = as_le(lows);
        for level in CPU_LEVELS {
            cap(level);
            assert_eq!(
                crate::simd::count_runs_u16(&le),
                runs,
                "{lows:?}, level {level}"
            );
            // Capped: exact up to the cap, above it past the cap.
            for limit in [0, 1, runs / 2, runs.saturating_sub(1), runs, runs + 1] {
                let got = crate::simd::count_runs_u16_capped(&le, limit);
                if runs <= limit {
                    assert_eq!(got, runs, "{lows:?}, cap {limit}, level {level}");
                } else {
                    assert!(got > limit, "{lows:?}, cap {limit}, level {level}: {got}");
                }
            }
        }
        for level in CPU_LEVELS {
            cap(level);
            let mut dst = alloc::vec![crate::cast::U16::new(7); 2 * runs as usize];
            let written = array_runs_into(lows, &mut dst);
            let got: Vec<u16> = dst[..written].iter().map(|v| v.get()).collect();
            assert_eq!(got, expected, "{lows:?}, level {level}");
            // Too little room: whole pairs, the first ones, never out of bounds.
            for short in [runs.saturating_sub(1), runs / 2] {
                let mut dst = alloc::vec![crate::cast::U16::new(7); 2 * short as usize + 1];
                let written = array_runs_into(lows, &mut dst);
                assert!(written <= 2 * short as usize, "{lows:?}, level {level}");
                let got: Vec<u16> = dst[..written].iter().map(|v| v.get()).collect();
                assert_eq!(got, expected[..written], "{lows:?}, level {level}");
            }
        }
        cap(0);
    }
}

/// Arrays of a corrupt payload (unsorted, with duplicates), which checked views allow: every
/// accelerated array kernel returns without a panic (the results are unspecified).
#[test]
#[cfg_attr(miri, ignore)] // uses CPU intrinsics
fn accelerated_kernels_never_panic_on_unsorted_arrays() {
    let _guard = FORCE.lock(); // no other test may force the baseline kernels meanwhile
    let mut next = xorshift(23);
    let mut out = Vec::new();
    for round in 0..4000u64 {
        let (la, lb) = (next(80) as usize, next(80) as usize);
        // Small alphabets make many duplicates; some arrays are descending or constant.
        let alphabet = [2, 5, 40, 65536][(round % 4) as usize];
        let mut random_array = |n: usize| -> Vec<u16> {
            let mut v: Vec<u16> = (0..n).map(|_| next(alphabet) as u16).collect();
            match next(4) {
                0 => v.sort_unstable(),
                1 => v.sort_unstable_by(|x, y| y.cmp(x)),
                _ => {}
            }
            v
        };
        let (a, b) = (as_le(&random_array(la)), as_le(&random_array(lb)));
        for (x, y) in [(&a, &b), (&b, &a)] {
            let _ = crate::simd::intersect_count_u16(x, y);
            let _ = crate::simd::scan_count_u16(x, y);
            let _ = crate::simd::count_runs_u16(x);
            let _ = crate::simd::count_runs_u16_capped(x, 7);
            // Runs out of order, overlapping, past 65535.
            let runs: Vec<crate::cast::RunLE> = y
                .chunks_exact(2)
                .map(|p| crate::cast::RunLE {
                    start: p[0],
                    len_minus_one: p[1],
                })
                .collect();
            let mut dst = alloc::vec![0u16; x.len() + 32];
            for (i, j, k) in [
                crate::simd::filter_by_runs_wide::<crate::keep::Intersection>(x, &runs, &mut dst),
                crate::simd::filter_by_runs_wide::<crate::keep::Difference>(x, &runs, &mut dst),
            ] {
                assert!(i <= x.len() && j <= runs.len() && k <= i, "{i} {j} {k}");
            }
            for k in 0..5 {
                out.clear();
                let _ = match k {
                    0 => crate::simd::intersect_u16(x, y, &mut out),
                    4 => crate::simd::scan_u16(x, y, &mut out),
                    1 => crate::simd::union_u16(x, y, &mut out),
                    2 => crate::simd::difference_u16(x, y, &mut out),
                    _ => crate::simd::xor_u16(x, y, &mut out),
                };
            }
        }
    }
}

/// The AVX-512 run fill sets the bits the scalar fill sets, and its clearing form clears
/// and counts what the scalar clear does, on short runs (within a word or across one
/// boundary), long runs (which stop it early), runs at both ends of the range, overlapping
/// runs and runs that run past 65535 (only in unchecked views), at every length modulo 8.
#[test]
#[cfg_attr(miri, ignore)] // uses CPU intrinsics
fn wide_run_fill_matches_the_scalar_fill() {
    // The kernel's level is read twice (by the fill and by the assertion): no other test
    // may cap it in between.
    let _guard = FORCE.lock();
    use crate::bits::fill_bits;
    use crate::cast::{BITSET_WORDS, RunLE, U16};
    let mut wide_used = false;
    for seed in 0..300u64 {
        let mut next = xorshift(seed);
        let n = next(70) as usize;
        // The longest run length: 1 to 2^(seed % 12), so that some seeds are all short.
        let longest = 1u64 << (seed % 12);
        let mut runs: Vec<RunLE> = (0..n)
            .map(|_| {
                let start = match next(10) {
                    0 => 0,
                    1 => 65535 - next(8),
                    _ => next(65536),
                } as u16;
                RunLE {
                    start: U16::new(start),
                    len_minus_one: U16::new(next(longest) as u16),
                }
            })
            .collect();
        if seed % 5 == 0 {
            runs.sort_by_key(|r| r.start());
        }
        let mut expected = [0u64; BITSET_WORDS];
        for r in &runs {
            fill_bits(&mut expected, r.start() as u16, r.end() as u16);
        }
        let mut got = [0u64; BITSET_WORDS];
        let done = crate::simd::fill_runs_wide(&mut got, &runs);
        assert!(
            done <= runs.len() && done.is_multiple_of(8),
            "seed {seed}: {done} of {}",
            runs.len()
        );
        wide_used |= done > 0;
        for r in &runs[done..] {
            fill_bits(&mut got, r.start() as u16, r.end() as u16);
        }
        assert!(got == expected, "seed {seed}");
        // Again with the second words of runs across two deferred, into one `Deferred`
        // over several calls (flushed at the end, as the many-way union does).
        let mut got = [0u64; BITSET_WORDS];
        let mut defer = crate::simd::Deferred::new();
        for _ in 0..3 {
            let done = crate::simd::fill_runs_wide_deferred(&mut got, &runs, &mut defer);
            assert!(done <= runs.len() && done.is_multiple_of(8), "seed {seed}");
            assert_eq!(
                done > 0,
                crate::simd::has_fill_runs_wide() && runs.len() >= 8
            );
            for r in &runs[done..] {
                fill_bits(&mut got, r.start() as u16, r.end() as u16);
            }
        }
        defer.flush(&mut got);
        assert!(got == expected, "seed {seed}: deferred");
        // Clearing the same runs from a random bitset: the bits the scalar clear leaves,
        // and as many bits counted cleared.
        let mut next_word = xorshift(seed + 1000);
        let start: Vec<u64> = (0..BITSET_WORDS)
            .map(|_| next_word(u64::MAX) & next_word(u64::MAX))
            .collect();
        let mut expected: [u64; BITSET_WORDS] = start[..].try_into().unwrap();
        let mut expected_cleared = 0u32;
        for r in &runs {
            crate::bits::run_words(r.start() as u16, r.end() as u16, |w, m| {
                expected_cleared += (expected[w] & m).count_ones();
                expected[w] &= !m;
            });
        }
        let mut got: [u64; BITSET_WORDS] = start[..].try_into().unwrap();
        let (done, mut cleared) = crate::simd::clear_runs_wide(&mut got, &runs);
        assert!(done <= runs.len() && done.is_multiple_of(8), "seed {seed}");
        assert_eq!(
            done > 0,
            crate::simd::has_fill_runs_wide() && runs.len() >= 8
        );
        for r in &runs[done..] {
            cleared += crate::bits::clear_bits(&mut got, r.start() as u16, r.end() as u16);
        }
        assert!(got == expected, "seed {seed}: cleared bits");
        assert_eq!(cleared, expected_cleared, "seed {seed}");
    }
    assert_eq!(wide_used, crate::simd::has_fill_runs_wide());
}

/// Runs all across two words, more than `Deferred` holds in one call: its buffers fill
/// up and are flushed in the middle of the fill, and no second word is lost.
#[test]
#[cfg_attr(miri, ignore)] // uses CPU intrinsics
fn deferred_fill_flushes_when_full() {
    // The kernel's level is read twice (by the fill and by the assertion): no other test
    // may cap it in between.
    let _guard = FORCE.lock();
    use crate::cast::{BITSET_WORDS, RunLE, U16};
    // Runs 60..=67 of each pair of words: 512 runs, each across two words.
    let runs: Vec<RunLE> = (0..512u16)
        .map(|k| RunLE {
            start: U16::new(128 * k + 60),
            len_minus_one: U16::new(7),
        })
        .collect();
    let mut expected = [0u64; BITSET_WORDS];
    for r in &runs {
        crate::bits::fill_bits(&mut expected, r.start() as u16, r.end() as u16);
    }
    let mut got = [0u64; BITSET_WORDS];
    let mut defer = crate::simd::Deferred::new();
    let done = crate::simd::fill_runs_wide_deferred(&mut got, &runs, &mut defer);
    assert_eq!(
        done,
        if crate::simd::has_fill_runs_wide() {
            512
        } else {
            0
        }
    );
    for r in &runs[done..] {
        crate::bits::fill_bits(&mut got, r.start() as u16, r.end() as u16);
    }
    defer.flush(&mut got);
    assert!(got == expected);
    assert_eq!(got.iter().map(|w| w.count_ones()).sum::<u32>(), 512 * 8);
}

/// The many-way union's accumulation over many small run containers (gathered into
/// batches that fill up and are flushed several times per key), large ones, arrays and
/// bitsets, with true stored cardinalities (so that it checks for a full bitset) and with
/// none: the bits of the values, at every CPU level.
#[test]
#[cfg_attr(miri, ignore)] // uses CPU intrinsics
fn many_way_union_of_many_small_run_containers() {
    let _guard = FORCE.lock();
    use crate::algebra::kernels;
    use crate::cast::BITSET_WORDS;
    use crate::container::Container;
    // Value 0 in none of them: a batch padded with zeroed runs would show.
    let sets: Vec<Vec<u16>> = (0..300u64)
        .map(|seed| {
            let len = match seed % 10 {
                0 => 3000,
                1 => 6000,
                _ => 1 + (seed * 7 % 200) as usize,
            };
            let mut v = random_lows(seed + 77, len);
            v.retain(|&x| x != 0);
            v
        })
        .collect();
    let kinds: Vec<_> = sets.iter().map(|v| kinds_of(v)).collect();
    let mut expected = [0u64; BITSET_WORDS];
    for &x in sets.iter().flatten() {
        expected[usize::from(x >> 6)] |= 1 << (x & 63);
    }
    assert_eq!(expected[0] & 1, 0);
    let mut with_cards = Vec::new();
    for (i, (v, k)) in sets.iter().zip(&kinds).enumerate() {
        let c = match i % 15 {
            7 => Container::Bitset(k.1[..].try_into().unwrap()),
            3 | 11 if v.len() <= 4096 => Container::Array(&k.0),
            _ => Container::Run(&k.2),
        };
        with_cards.push((c, v.len() as u32));
    }
    let batched: Vec<usize> = with_cards
        .iter()
        .filter_map(|(c, _)| match c {
            Container::Run(r) if r.len() <= kernels::RUN_BATCH / 4 => Some(r.len()),
            _ => None,
        })
        .collect();
    // Enough to fill a batch several times over, and some too large for one.
    assert!(
        batched.len() > 150,
        "{} small run containers",
        batched.len()
    );
    assert!(batched.iter().sum::<usize>() > 4 * kernels::RUN_BATCH);
    let large = with_cards
        .iter()
        .filter(|(c, _)| matches!(c, Container::Run(r) if r.len() > kernels::RUN_BATCH / 4));
    assert!(large.count() >= 10);
    let without: Vec<_> = with_cards.iter().map(|&(c, _)| (c, 0)).collect();
    for level in CPU_LEVELS {
        cap(level);
        for cs in [&with_cards, &without] {
            let mut got = [0u64; BITSET_WORDS];
            kernels::or_many_into_bits(cs, &mut got);
            assert!(got == expected, "level {level}");
        }
    }
    cap(0);
}

/// A union that is full but for one word until its 26th container: the checks for a
/// full bitset (every 8 containers, once the stored cardinalities reach 65536) resume at
/// that word, and do not stop before it fills.
#[test]
#[cfg_attr(miri, ignore)] // uses CPU intrinsics
fn many_way_union_stops_only_when_full() {
    let _guard = FORCE.lock();
    use crate::algebra::kernels;
    use crate::cast::{BITSET_WORDS, RunLE, U16};
    use crate::container::Container;
    let run = |s: u16, e: u16| RunLE {
        start: U16::new(s),
        len_minus_one: U16::new(e - s),
    };
    // All but word 5 (values 320..=383), then small containers elsewhere, then word 5.
    let most = [run(0, 319), run(384, 65535)];
    let small: Vec<[RunLE; 3]> = (0..24u16)
        .map(|k| {
            [
                run(k * 8, k * 8 + 2),
                run(1000 + k, 1000 + k),
                run(40000, 40001),
            ]
        })
        .collect();
    let last = [run(320, 383)];
    let mut cs = alloc::vec![(Container::Run(&most), 65536 - 64)];
    cs.extend(small.iter().map(|r| (Container::Run(&r[..]), 6)));
    cs.push((Container::Run(&last), 64));
    for level in CPU_LEVELS {
        cap(level);
        let mut got = [0u64; BITSET_WORDS];
        kernels::or_many_into_bits(&cs, &mut got);
        assert!(got.iter().all(|&w| w == u64::MAX), "level {level}");
    }
    cap(0);
}

/// The vendor check behind `prefer_fill_runs_wide` (CPUID) agrees with the vendor that
/// Linux reports in /proc/cpuinfo, where there is one.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[test]
#[cfg_attr(miri, ignore)] // reads /proc/cpuinfo and runs CPUID
fn amd_vendor_check_agrees_with_proc_cpuinfo() {
    let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
        std::println!("skipped: no /proc/cpuinfo here to compare the vendor check with");
        return;
    };
    let Some(vendor) = info.lines().find_map(|l| l.strip_prefix("vendor_id")) else {
        std::println!("skipped: /proc/cpuinfo names no vendor_id");
        return;
    };
    let amd = vendor.trim_start_matches([' ', '\t', ':']).trim() == "AuthenticAMD";
    assert_eq!(crate::simd::x86::is_amd(), amd, "vendor_id{vendor}");
}

/// The vector run-count pass of the frozen directory check answers as the scalar rule
/// (each run container but the last: a count in `1..=MAX_RUNS` read at its offset, and
/// its payload ending at or before the next offset, the count readable as 4 bytes) on
/// directories of 2 to 40 entries,
/// every step's lane count included, with counts of 0, of `MAX_RUNS` and past it, payloads
/// that reach into the next one and offsets at the end of the body.
#[test]
#[cfg_attr(miri, ignore)] // thousands of directories through the vector kernel
fn vector_run_counts_agree_with_the_scalar_rule() {
    use crate::cast::U32;
    use crate::format::MAX_RUNS;
    let rule = |descs: &[u32], body: &[u8]| {
        descs.windows(2).all(|d| {
            d[0] & 3 != 2 || {
                // Read as 4 bytes: a count closer to the end cannot lead a payload (at least
                // 6 bytes), and the whole check then rejects the directory either way.
                let off = (d[0] >> 2) as usize;
                let count = crate::cast::read_u32(body, off).map_or(0, |c| c & 0xFFFF);
                (1..=MAX_RUNS).contains(&count)
                    && off + 2 + 4 * count as usize <= (d[1] >> 2) as usize
            }
        })
    };
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut rnd = |n: u32| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % u64::from(n)) as u32
    };
    let (mut checked, mut failing) = (0, 0);
    for n in 2..=40usize {
        for round in 0..60 {
            // Runs, arrays and bitsets back to back (kinds 2, 0, 1), each run payload
            // `2 + 4 * count` long with a gap of 0 to 2 bytes after it.
            let mut descs = Vec::new();
            let mut body = std::vec![0u8; 16];
            for _ in 0..n {
                let kind = if rnd(4) == 0 { rnd(2) } else { 2 };
                let off = body.len() as u32;
                descs.push((off << 2) | kind);
                let count = 1 + rnd(20);
                body.extend_from_slice(&(count as u16).to_le_bytes());
                body.resize(body.len() + 4 * count as usize + rnd(3) as usize, 0);
            }
            // One to three faults: a count changed, an offset moved, the body cut short.
            for _ in 0..round % 4 {
                let i = rnd(n as u32) as usize;
                let off = (descs[i] >> 2) as usize;
                match rnd(4) {
                    0 => {
                        if let Some(b) = body.get_mut(off..off + 2) {
                            b.copy_from_slice(&[0, 0]);
                        }
                    }
                    1 => {
                        let c = [MAX_RUNS, MAX_RUNS + 1, 0xFFFF, 2 + rnd(30)][rnd(4) as usize];
                        if let Some(b) = body.get_mut(off..off + 2) {
                            b.copy_from_slice(&(c as u16).to_le_bytes());
                        }
                    }
                    2 => {
                        descs[i] =
                            (descs[i] & 3) | ((off as u32 + 4 * rnd(4)).saturating_sub(8) << 2)
                    }
                    _ => body.truncate(off + rnd(6) as usize),
                }
            }
            let entries: Vec<U32> = descs.iter().map(|&d| U32::new(d)).collect();
            #[cfg(feature = "std")]
            let _force = FORCE.lock().unwrap_or_else(|e| e.into_inner());
            for &level in tested_levels() {
                cap(level);
                if let Some(hold) = crate::simd::frozen_run_counts_hold(&entries, &body) {
                    assert_eq!(
                        hold,
                        rule(&descs, &body),
                        "{n} entries, round {round}, level {level}"
                    );
                    checked += 1;
                    failing += usize::from(!hold);
                }
            }
            cap(0);
        }
    }
    // Where the CPU has the kernel, it ran, and both answers came up.
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    assert_eq!(checked > 0, crate::simd::x86::has_v4());
    assert!(
        checked == 0 || (failing > 0 && failing < checked),
        "{failing} of {checked}"
    );
    std::println!("{checked} directories through the kernel, {failing} rejected");
}

/// The golden files, checked from inside the library so that Miri runs them on a
/// big-endian target too (`.ci/run`): the writer reproduces each byte for byte, and the
/// views read each as the same set, on this host's byte order.
#[test]
fn golden_files_on_this_byte_order() {
    let worked: Vec<u32> = [1, 5, 9].into_iter().chain(65_536..=66_535).collect();
    let frozen: [(&[u8], &[u32], bool); 4] = [
        (
            include_bytes!("../format-spec/golden/empty.frb"),
            &[],
            false,
        ),
        (
            include_bytes!("../format-spec/golden/single-max.frb"),
            &[u32::MAX],
            false,
        ),
        (
            include_bytes!("../format-spec/golden/worked-example.frb"),
            &worked,
            false,
        ),
        (
            include_bytes!("../format-spec/golden/worked-example-crc.frb"),
            &worked,
            true,
        ),
    ];
    for (golden, values, checksum) in frozen {
        assert_eq!(encode(values, checksum), golden);
        let bm = FrozenBitmap::from_bytes_strict(golden).unwrap();
        assert_eq!(bm.to_vec(), values);
        assert_eq!(bm.has_checksum(), checksum);
    }
    let portable: &[u8] = include_bytes!("../format-spec/golden/worked-example.bin");
    let mut out = Vec::new();
    Writer::new()
        .write_portable_sorted(worked.iter().copied(), &mut out)
        .unwrap();
    assert_eq!(out, portable);
    let bm = FrozenBitmap::from_bytes_strict(portable).unwrap();
    assert_eq!(bm.to_vec(), worked);
    // Frozen -> portable and back keep the bytes.
    out.clear();
    Writer::new().write_portable(&bm, &mut out).unwrap();
    assert_eq!(out, portable);
    let wide: Vec<u64> = worked
        .iter()
        .map(|&v| u64::from(v))
        .chain([(3 << 32) + 7])
        .collect();
    let portable64: &[u8] = include_bytes!("../format-spec/golden/worked-example64.bin");
    out.clear();
    Writer::new()
        .write_portable_sorted64(wide.iter().copied(), &mut out)
        .unwrap();
    assert_eq!(out, portable64);
    let bm = crate::FrozenBitmap64::from_bytes_strict(portable64).unwrap();
    assert_eq!(bm.to_vec(), wide);
    #[cfg(feature = "std")]
    for file in [
        &include_bytes!("../format-spec/golden/three-keys.frf")[..],
        &include_bytes!("../format-spec/golden/three-keys-v1.frf")[..],
    ] {
        let file = crate::BitmapFile::from_bytes(file).unwrap();
        assert_eq!(file.keys().collect::<Vec<_>>(), [1, 7, 1 << 40]);
        assert_eq!(file.get_verified(1).unwrap().unwrap().to_vec(), [1, 5, 9]);
        assert_eq!(file.get_verified(7).unwrap().unwrap().to_vec(), worked);
        let big = file.get_verified(1 << 40).unwrap().unwrap();
        assert_eq!(big.len(), 35_000);
        assert!(big.contains(69_998) && !big.contains(69_999));
        assert_eq!(big.select(34_999), Some(69_998));
    }
}

/// A bitset's values appended to a vector, at every CPU level (the AVX-512 word kernel,
/// the byte-table blocks and the baseline): every density, words of exactly 16, 32, 48
/// and 64 bits (the kernel's store boundaries), cursors moved from either end first, and
/// vectors with exactly enough room (the last words then take the narrower paths).
#[test]
fn bitset_extraction_matches_at_every_level() {
    use crate::container::{Container, iter::ContainerIter};
    let _guard = FORCE.lock();
    let levels = tested_levels();
    let mut next = xorshift(0x5851_F42D_4C95_7F2D);
    let sizes: &[usize] = if cfg!(miri) {
        // Interpreted: two sparse bitsets only.
        &[1, 300]
    } else {
        &[1, 64, 3000, 16_000, 33_000, 60_000]
    };
    let mut sets: Vec<Vec<u16>> = sizes.iter().map(|&n| random_lows(n as u64, n)).collect();
    if !cfg!(miri) {
        // Each word holds 16, 32, 48 or 64 values at random positions.
        sets.push(
            (0..1024u16)
                .flat_map(|w| {
                    let keep = 16 * (1 + (w % 4));
                    let mut bits: Vec<u16> = (0..64).collect();
                    for i in (1..64).rev() {
                        bits.swap(i, next(i as u64 + 1) as usize);
                    }
                    bits.truncate(usize::from(keep));
                    bits.sort_unstable();
                    bits.into_iter()
                        .map(move |b| w * 64 + b)
                        .collect::<Vec<_>>()
                })
                .collect(),
        );
        sets.push((0..=u16::MAX).collect());
    }
    for lows in &sets {
        let (_, words, _) = kinds_of(lows);
        let b: &crate::cast::BitsetLE = words.as_slice().try_into().unwrap();
        for (front, back) in [(0, 0), (1, 0), (0, 1), (70, 130)] {
            if front + back > lows.len() {
                continue;
            }
            let high = 7 << 16;
            let expected: Vec<u32> = [5, 6]
                .into_iter()
                .chain(
                    lows[front..lows.len() - back]
                        .iter()
                        .map(|&v| high | u32::from(v)),
                )
                .collect();
            for &level in levels {
                cap(level);
                for exact in [false, true] {
                    let mut it = ContainerIter::new(Container::Bitset(b));
                    for _ in 0..front {
                        it.next();
                    }
                    for _ in 0..back {
                        it.next_back();
                    }
                    let mut out = alloc::vec![5, 6];
                    if exact {
                        out.shrink_to_fit();
                        out.reserve_exact(expected.len() - 2);
                    }
                    // Or in batches of every size around a word's 64 values (`next_many`).
                    let batch =
                        [1, 5, 64, 72, 200, 1000][(front + 2 * back + 7 * level as usize) % 6];
                    let mut filler = it.clone();
                    let mut batched = alloc::vec![5, 6];
                    let mut buf = alloc::vec![0u32; batch];
                    loop {
                        let n = filler.fill(high, &mut buf);
                        if n == 0 {
                            break;
                        }
                        batched.extend_from_slice(&buf[..n]);
                    }
                    assert!(
                        batched == expected,
                        "batches of {batch}, {} values, cursors {front}/{back}, level {level}",
                        lows.len()
                    );
                    it.extend_vec(high, &mut out);
                    assert!(
                        out == expected,
                        "{} values, cursors {front}/{back}, level {level}, exact room {exact}",
                        lows.len()
                    );
                    assert_eq!(it.next(), None);
                }
            }
        }
    }
    cap(0);
}

/// An array's values appended to a vector, at every CPU level (the AVX-512 widening with
/// its masked last step, the CPU-level copy and the inline loop): every length around the
/// steps of 32 and the thresholds, into vectors with and without spare room.
#[test]
#[cfg_attr(miri, ignore)] // uses CPU intrinsics
fn array_extraction_matches_at_every_level() {
    use crate::container::Container;
    let _guard = FORCE.lock();
    let lengths = (0..=100).chain([127, 128, 129, 4095, 4096]);
    for len in lengths {
        let lows = random_lows(len as u64 + 3, len);
        let le = as_le(&lows);
        check_extend(
            Container::Array(&le),
            0xFFFF_0000,
            &lows,
            &alloc::format!("{len} values"),
        );
    }
    cap(0);
}

/// Runs appended to a vector, at every CPU level: runs of 1 to 40 values and longer, and
/// whole containers, into vectors with exactly enough room (the last run's blocks then
/// stop short) and with spare room.
#[test]
fn run_extraction_matches_at_every_level() {
    use crate::container::Container;
    let _guard = FORCE.lock();
    let mut next = xorshift(0x9E6C_63D0_676A_9A99);
    let mut sets: Vec<Vec<u16>> = alloc::vec![(0..=u16::MAX).collect(), alloc::vec![65535]];
    let lengths: &[u64] = if cfg!(miri) {
        &[3]
    } else {
        &[1, 3, 17, 40, 300, 5000]
    };
    for &max_len in lengths {
        let mut lows = Vec::new();
        let mut at = next(20) as u32;
        while at <= 0xFFFF {
            let len = 1 + next(max_len) as u32;
            lows.extend((at..(at + len).min(0x1_0000)).map(|v| v as u16));
            at += len + 1 + next(30) as u32;
        }
        sets.push(lows);
    }
    if cfg!(miri) {
        // Interpreted: a long run and the first few hundred values of the rest.
        sets[0].truncate(700);
        for lows in &mut sets {
            lows.retain(|&v| v < 700 || v == u16::MAX);
        }
    }
    for lows in &sets {
        let (_, _, runs) = kinds_of(lows);
        let what = alloc::format!("{} values in {} runs", lows.len(), runs.len());
        check_extend(Container::Run(&runs), 3 << 16, lows, &what);
    }
    cap(0);
}

/// `extract::extend` of container `c` (holding `lows`) under `high`, at every tested CPU
/// level, into a vector with exactly the room it needs (the last blocks then take the
/// narrower paths) and into one with spare room: gives what the vector held, then the
/// values in order.
fn check_extend(c: crate::container::Container<'_>, high: u32, lows: &[u16], what: &str) {
    let held = [1u32, 2, 3];
    let expected: Vec<u32> = held
        .iter()
        .copied()
        .chain(lows.iter().map(|&v| high | u32::from(v)))
        .collect();
    for &level in tested_levels() {
        cap(level);
        for exact in [false, true] {
            let mut out = held.to_vec();
            if exact {
                out.shrink_to_fit();
            } else {
                out.reserve(lows.len() + 100);
            }
            crate::container::extract::extend(c, high, &mut out);
            assert!(out == expected, "{what}, level {level}, exact room {exact}");
        }
    }
}

#[test]
fn windowed_searches_match_the_model_around_their_windows() {
    use crate::cast::RunLE;
    use crate::container::Container;
    // Lengths on both sides of the vector windows (16 values, 8 runs) and of the
    // halvings that end on them; every low part probed near each stored one.
    // Under Miri (slow), the lengths next to the windows only, one seed and a few probes.
    let lengths: Vec<usize> = if cfg!(miri) {
        alloc::vec![0, 1, 7, 8, 9, 15, 16, 17, 33]
    } else {
        (0..=40).chain([63, 64, 65, 127, 129, 300]).collect()
    };
    let (seeds, most_probes) = if cfg!(miri) { (1, 12) } else { (3, usize::MAX) };
    for len in lengths {
        for seed in 0..seeds {
            let values = random_lows(seed * 101 + len as u64, len);
            let le = as_le(&values);
            let probes: Vec<u16> = values
                .iter()
                .flat_map(|&v| [v.wrapping_sub(1), v, v.wrapping_add(1)])
                .chain([0, 1, 65534, 65535])
                .step_by(if cfg!(miri) { 5 } else { 1 })
                .take(most_probes)
                .collect();
            for &lo in &probes {
                let want = values.binary_search(&lo).is_ok();
                assert_eq!(Container::Array(&le).contains(lo), want, "array {len} {lo}");
                let rank = values.partition_point(|&v| v <= lo) as u32;
                assert_eq!(
                    Container::Array(&le).rank(lo),
                    rank,
                    "array rank {len} {lo}"
                );
            }
            // The same values as runs of 1 to 3, and one run clamped at 65535 as a
            // corrupt payload would state it (longer than the container).
            let mut runs = Vec::new();
            // The model: each run's first and last value (inclusive).
            let mut model: Vec<(u32, u32)> = Vec::new();
            for (k, &v) in values.iter().enumerate() {
                let extra = (k % 3) as u16;
                if runs
                    .last()
                    .is_some_and(|r: &RunLE| r.end() + 1 >= u32::from(v))
                {
                    continue;
                }
                runs.push(RunLE {
                    start: crate::cast::U16::new(v),
                    len_minus_one: crate::cast::U16::new(extra),
                });
                let last = (u32::from(v) + u32::from(extra)).min(0xFFFF);
                model.push((u32::from(v), last));
            }
            if let (Some(run), Some(span)) = (runs.last_mut(), model.last_mut()) {
                run.len_minus_one = crate::cast::U16::new(65535);
                span.1 = 0xFFFF;
            }
            for &lo in &probes {
                let lo32 = u32::from(lo);
                let want = model.iter().any(|&(a, b)| a <= lo32 && lo32 <= b);
                assert_eq!(
                    Container::Run(&runs).contains(lo),
                    want,
                    "runs {} {lo}",
                    runs.len()
                );
            }
        }
    }
}

/// The key search's shortcut for consecutive keys: directories of consecutive keys (from
/// 0, from inside the range, up to 65535, a single one) and with one gap, in both
/// formats, probed at every key around them, give the model's `contains` and `rank`.
#[test]
fn key_search_matches_the_model_with_and_without_consecutive_keys() {
    let key_sets: Vec<Vec<u32>> = alloc::vec![
        (0..9).collect(),
        (7..20).collect(),
        (65_525..=65_535).collect(),
        alloc::vec![300],
        (0..9).chain(10..12).collect(),
        (3..6).chain(40..50).collect(),
    ];
    for keys in &key_sets {
        // Two values a container: its low parts 5 and 9.
        let values: Vec<u32> = keys
            .iter()
            .flat_map(|&k| [k << 16 | 5, k << 16 | 9])
            .collect();
        let mut portable = Vec::new();
        Writer::new()
            .write_portable_sorted(values.iter().copied(), &mut portable)
            .unwrap();
        for bytes in [encode(&values, false), portable] {
            let bm = FrozenBitmap::from_bytes(&bytes).unwrap();
            let lo = keys[0].saturating_sub(2);
            let hi = (keys[keys.len() - 1] + 2).min(65_535);
            for key in (lo..=hi).chain([0, 65_535]) {
                for low in [0u32, 5, 7, 9, 65_535] {
                    let v = key << 16 | low;
                    let rank = values.partition_point(|&x| x <= v) as u64;
                    assert_eq!(bm.contains(v), values.contains(&v), "{keys:?} {v}");
                    assert_eq!(bm.rank(v), rank, "{keys:?} {v}");
                }
            }
        }
    }
}

/// The window count of `rank` counts like the scalar loop on sorted windows anywhere in
/// the range of `u16` (both sides of 0x8000, where a signed comparison would differ, and
/// the ends), with repeated values, and stops at the first value above the probe in a
/// window out of order.
#[test]
fn window_count_matches_the_scalar_count() {
    let starts: &[u16] = if cfg!(miri) {
        &[0, 0x7FF8, 0xFFEF]
    } else {
        &[0, 1, 0x7FF0, 0x7FF8, 0x8000, 0xC000, 0xFFE0, 0xFFEF]
    };
    for &start in starts {
        for step in [1u16, 2] {
            let mut w = [0u16; 16];
            for (j, x) in w.iter_mut().enumerate() {
                *x = start.saturating_add(step * j as u16 / 2 * 2);
            }
            let le: [crate::cast::U16; 16] = core::array::from_fn(|j| crate::cast::U16::new(w[j]));
            let probes = w
                .iter()
                .flat_map(|&x| [x.wrapping_sub(1), x, x.saturating_add(1)])
                .chain([0, 0x7FFF, 0x8000, u16::MAX]);
            for lo in probes {
                let want = w.iter().filter(|&&x| x <= lo).count() as u32;
                assert_eq!(crate::simd::window_at_or_below(&le, lo), want, "{w:?} {lo}");
            }
        }
    }
    let mut shuffled = [0u16; 16];
    for (j, x) in shuffled.iter_mut().enumerate() {
        *x = (j * 7919 % 16 * 0x1000) as u16;
    }
    let le: [crate::cast::U16; 16] = core::array::from_fn(|j| crate::cast::U16::new(shuffled[j]));
    for lo in [0, 0x1000, 0x8000, u16::MAX] {
        let want = shuffled.iter().take_while(|&&x| x <= lo).count() as u32;
        assert_eq!(
            crate::simd::window_at_or_below(&le, lo),
            want,
            "out of order, {lo}"
        );
    }
}

/// The directory check of many-container bitmaps (a vector pass, then the walk only for a
/// bitmap it rejects) accepts exactly what the walk accepts, under every single-byte
/// change of the header, the directory and the run counts, and every truncation.
#[test]
#[cfg_attr(miri, ignore)] // thousands of parses; no unsafe code of its own
fn many_container_check_agrees_with_the_walk() {
    use crate::view::open::{parse, parse_with_layout};
    // 80 containers: arrays of 1 to 40 values, runs, and three bitsets.
    let mut values = Vec::new();
    for key in 0..80u32 {
        let base = key << 16;
        match key % 9 {
            0 if key < 27 => values.extend((0..40_000).step_by(7).map(|v| base + v)),
            1 | 4 => values.extend((0..5).flat_map(|r| base + r * 100..base + r * 100 + 30)),
            _ => values.extend((0..=key % 40).map(|v| base + v * 3)),
        }
    }
    let bytes = encode(&values, false);
    assert!(parse(&bytes).is_ok() && parse_with_layout(&bytes).is_ok());
    #[cfg(feature = "std")]
    let _force = FORCE.lock().unwrap_or_else(|e| e.into_inner());
    let agree = |b: &[u8], what: &str| {
        for &level in tested_levels() {
            cap(level);
            assert_eq!(parse(b).is_ok(), parse_with_layout(b).is_ok(), "{what}");
        }
        cap(0);
    };
    let bm = FrozenBitmap::from_bytes(&bytes).unwrap();
    let run_counts: Vec<usize> = (0..bm.container_count())
        .filter(|&i| bm.dir.locate(i).code == 2)
        .map(|i| bm.dir.offset(i))
        .collect();
    assert!(run_counts.len() > 10);
    let dir_end = 16 + 12 * bm.container_count();
    let places = (0..dir_end).chain(run_counts.iter().flat_map(|&o| [o, o + 1]));
    for pos in places {
        for change in [1u8, 4, 0x80, 0xFF] {
            let mut b = bytes.clone();
            b[pos] ^= change;
            agree(&b, &alloc::format!("byte {pos} ^ {change:#x}"));
        }
        let mut b = bytes.clone();
        b[pos] = 0;
        agree(&b, &alloc::format!("byte {pos} = 0"));
    }
    for len in (0..bytes.len()).rev().step_by(97) {
        agree(&bytes[..len], &alloc::format!("first {len} bytes"));
    }
}

/// Calls `f` with each of four single-byte changes of `bytes` (which `bm` reads) at every
/// byte before the first payload (header and directory) and at each run container's count,
/// and a description of the change.
fn header_changes(bm: &FrozenBitmap<'_>, bytes: &[u8], mut f: impl FnMut(&[u8], &str)) {
    let run_counts: Vec<usize> = (0..bm.container_count())
        .filter(|&i| bm.dir.locate(i).code == 2)
        .map(|i| bm.dir.offset(i))
        .collect();
    let places = (0..bm.dir.offset(0)).chain(run_counts.iter().flat_map(|&o| [o, o + 1]));
    for pos in places {
        for change in [1u8, 4, 0x80, 0xFF] {
            let mut b = bytes.to_vec();
            b[pos] ^= change;
            f(&b, &alloc::format!("byte {pos} ^ {change:#x}"));
        }
    }
}

/// The offset-header check of portable streams (each container's size against the next
/// stored offset) accepts exactly what the walk accepts, under every single-byte change of
/// the header, the descriptors, the offsets and the run counts, and every truncation.
#[test]
#[cfg_attr(miri, ignore)] // thousands of parses; no unsafe code of its own
fn portable_offset_check_agrees_with_the_walk() {
    use crate::view::open::{parse, parse_portable_walk};
    // 37 containers: two full steps of the 16-container vector check and a tail.
    let with_runs: Vec<u32> = (0..36u32)
        .flat_map(|key| {
            let base = key << 16;
            let runs = (0..4).flat_map(move |r| base + r * 50..base + r * 50 + 20);
            let array = (0..=key * 3).map(move |v| base + 30_000 + v * 5);
            let bitset =
                (0..if key % 15 == 5 { 6000 } else { 0 }).map(move |v| base + 40_000 + v * 3);
            runs.chain(array).chain(bitset)
        })
        // The last container a run container too.
        .chain((36 << 16) + 7..(36 << 16) + 900)
        .collect();
    let no_runs = |keys: u32| -> Vec<u32> {
        (0..keys)
            .flat_map(|key| (0..=key * 7).map(move |v| (key << 16) + v * 9))
            .collect()
    };
    // Streams of fewer containers than the vector check takes, and of more.
    for values in [with_runs, no_runs(6), no_runs(20)] {
        let mut bytes = Vec::new();
        Writer::new()
            .write_portable_sorted(values.iter().copied(), &mut bytes)
            .unwrap();
        let bm = FrozenBitmap::from_bytes(&bytes).unwrap();
        assert_eq!(bm.to_vec(), values);
        assert!(parse_portable_walk(&bytes).is_ok());
        let counted = crate::view::open::parse_len(&bytes).unwrap();
        assert_eq!(counted, (values.len() as u64, bytes.len()));
        let agree = |b: &[u8], what: &str| {
            let full = parse(b);
            assert_eq!(full.is_ok(), parse_portable_walk(b).is_ok(), "{what}");
            // The register-only check of a 64-bit bitmap's buckets answers only what the
            // full parse accepts, and with the same answer.
            if let Some(facts) = crate::view::open::portable_len(b) {
                let full = full.as_ref().expect(what);
                let card = full.known_len.unwrap_or_else(|| full.bm.len());
                assert_eq!(facts, (card, full.len), "{what}");
            }
        };
        assert!(crate::view::open::portable_len(&bytes).is_some());
        header_changes(&bm, &bytes, |b, what| agree(b, what));
        // Every cut through the last run container's count and runs, and some before.
        let cuts = (0..bytes.len()).rev().step_by(37);
        for len in cuts.chain(bytes.len() - 12..bytes.len()) {
            agree(&bytes[..len], &alloc::format!("first {len} bytes"));
        }
    }
}

/// The register-only check of a 64-bit portable bitmap (the deletion-vector open's) takes
/// every valid bitmap, with the full parse's answer, and nothing the full parse rejects:
/// buckets of 1 to 3 containers (no offset header), of 4 to 7 (the scalar header check),
/// of 16 and more (the vector one), empty buckets, under every single-byte change and
/// truncation.
#[test]
#[cfg_attr(miri, ignore)] // thousands of parses; no unsafe code of its own
fn portable64_fast_check_agrees_with_the_full_parse() {
    use crate::view64::{parse_portable, portable_facts};
    let mut values: Vec<u64> = Vec::new();
    // Bucket 0: 2 containers (a run and an array); bucket 3: 5 containers; bucket 9: 17
    // containers of runs, arrays and a bitset.
    values.extend((0..300).chain(70_000..70_010).map(|v| v as u64));
    for key in 0..5u64 {
        values.extend((0..=key).map(|v| (3 << 32) + (key << 16) + v * 11));
    }
    for key in 0..17u64 {
        let base = (9 << 32) + (key << 16);
        match key % 3 {
            0 => values.extend((0..40).map(|v| base + v * 3)),
            1 => values.extend((0..4).flat_map(|r| base + r * 100..base + r * 100 + 30)),
            _ => values.extend((0..5000).map(|v| base + v * 7)),
        }
    }
    let mut bytes = Vec::new();
    Writer::new()
        .write_portable_sorted64(values.iter().copied(), &mut bytes)
        .unwrap();
    // An empty bucket (a stream of no containers) between buckets 3 and 9.
    // Bucket 9 starts after the first two buckets (a key and a stream each).
    let mut bucket9 = 8;
    for _ in 0..2 {
        let (_, len) = crate::view::open::parse_len(&bytes[bucket9 + 4..]).unwrap();
        bucket9 += 4 + len;
    }
    let mut with_empty = bytes.clone();
    with_empty[..8].copy_from_slice(&4u64.to_le_bytes());
    let empty_bucket = [
        5u32.to_le_bytes(),
        12346u32.to_le_bytes(),
        0u32.to_le_bytes(),
    ]
    .concat();
    with_empty.splice(bucket9..bucket9, empty_bucket);
    for b in [&bytes, &with_empty] {
        let (bm, top) = parse_portable(b).unwrap();
        assert_eq!(portable_facts(b), Some((bm.bucket_count(), bm.len(), top)));
        assert_eq!(bm.len(), values.len() as u64);
        let agree = |c: &[u8], what: &str| {
            if let Some((n, len, top)) = portable_facts(c) {
                let (full, full_top) = parse_portable(c).expect(what);
                assert_eq!(
                    (n, len, top),
                    (full.bucket_count(), full.len(), full_top),
                    "{what}"
                );
            }
        };
        for pos in 0..b.len().min(600) {
            for change in [1u8, 4, 0x80, 0xFF] {
                let mut c = b.clone();
                c[pos] ^= change;
                agree(&c, &alloc::format!("byte {pos} ^ {change:#x}"));
            }
        }
        for len in 0..b.len() {
            agree(&b[..len], &alloc::format!("first {len} bytes"));
        }
    }
}

/// The checks in registers that answer `from_bytes` and `from_prefix` for valid bitmaps
/// accept exactly what the full parse accepts, with the same directory and length:
/// frozen bitmaps of 1 to 80 containers (the inlined directory check and the one compiled
/// for each CPU level), portable streams with and without an offset header, under every
/// single-byte change of the header, the directory and the run counts, and truncations.
#[test]
#[cfg_attr(miri, ignore)] // thousands of parses; no unsafe code of its own
fn register_checks_agree_with_the_full_parse() {
    use crate::view::open::{checked_prefix, parse};
    let set = |keys: u32| -> Vec<u32> {
        let mut values = Vec::new();
        for key in 0..keys {
            let base = key << 16;
            match key % 7 {
                3 => values.extend((0..40_000).step_by(7).map(|v| base + v)),
                1 | 5 => values.extend((0..4).flat_map(|r| base + r * 100..base + r * 100 + 30)),
                _ => values.extend((0..=key % 30).map(|v| base + v * 3)),
            }
        }
        values
    };
    #[cfg(feature = "std")]
    let _force = FORCE.lock().unwrap_or_else(|e| e.into_inner());
    let agree = |b: &[u8], what: &str| {
        for &level in tested_levels() {
            cap(level);
            let fast = checked_prefix(b);
            let full = parse(b);
            assert_eq!(fast.is_some(), full.is_ok(), "{what}");
            if let (Some((dir, len)), Ok(full)) = (fast, full) {
                assert_eq!(len, full.len, "{what}");
                let other = full.bm.dir;
                assert_eq!(dir.n(), other.n(), "{what}");
                for i in 0..dir.n() {
                    let (a, b) = (dir.locate(i), other.locate(i));
                    assert_eq!(dir.key(i), other.key(i), "{what}");
                    assert_eq!((a.code, a.off, a.card), (b.code, b.off, b.card), "{what}");
                    assert_eq!(a.body.len(), b.body.len(), "{what}");
                }
            }
        }
        cap(0);
    };
    for keys in [1, 2, 3, 4, 20, 33, 80] {
        let values = set(keys);
        let mut portable = Vec::new();
        Writer::new()
            .write_portable_sorted(values.iter().copied(), &mut portable)
            .unwrap();
        for bytes in [encode(&values, false), encode(&values, true), portable] {
            let bm = FrozenBitmap::from_bytes(&bytes).unwrap();
            assert_eq!(bm.to_vec(), values);
            assert!(checked_prefix(&bytes).is_some());
            header_changes(&bm, &bytes, |b, what| {
                agree(b, &alloc::format!("{keys} keys: {what}"))
            });
            for len in (0..bytes.len())
                .rev()
                .step_by(41)
                .chain(bytes.len() - 12..bytes.len())
            {
                agree(
                    &bytes[..len],
                    &alloc::format!("{keys} keys: first {len} bytes"),
                );
            }
            // Bytes after the bitmap: the prefix answers, with the bitmap's own length.
            let mut longer = bytes.clone();
            longer.extend_from_slice(&[0, 7, 9]);
            agree(&longer, &alloc::format!("{keys} keys and a tail"));
        }
    }
}
