//! Two arbitrary sets (values, ranges and dense patterns, so that every container kind
//! appears) → every set operation, pairwise and many-way, in both input formats → equal to
//! a model of sorted vectors and byte-identical to writing the model's result (or, without
//! canonical kinds, strictly valid with the model's values).
#![no_main]

use frozen_roaring::{FrozenBitmap, Writer};
use libfuzzer_sys::fuzz_target;

/// Values one input set may hold (before its last command): enough for bitset and run
/// containers to appear, few enough that an input takes well under a millisecond with the
/// fuzzer's comparison tracing on every value. Full containers are covered by the
/// property tests (`tests/algebra.rs`).
const MAX_VALUES: usize = 1 << 12;

/// Decodes 5-byte commands into a sorted set: a value, a run, a strided pattern or an
/// alternating pattern at a container's start, until [`MAX_VALUES`] values.
fn decode_set(data: &[u8]) -> Vec<u32> {
    let mut s = Vec::new();
    for c in data.chunks_exact(5) {
        if s.len() >= MAX_VALUES {
            break;
        }
        let v = u32::from_le_bytes([c[1], c[2], c[3], c[4]]);
        // Keep most values in a few containers so that they meet on equal keys.
        let v = if c[0] & 0x80 != 0 { v & 0x3_FFFF } else { v };
        match c[0] & 3 {
            0 => s.push(v),
            1 => s.extend(v..v.saturating_add(u32::from(c[0] >> 2) * 40)),
            2 => s.extend((v..v.saturating_add(6_000)).step_by(1 + usize::from(c[0] >> 4))),
            _ => s.extend(((v & !0xFFFF)..(v & !0xFFFF) + 10_000).step_by(2)),
        }
    }
    s.sort_unstable();
    s.dedup();
    s
}

/// The model's set operations on sorted sets, by merging: ∩ ∪ − ⊕ at once.
fn model_ops(a: &[u32], b: &[u32]) -> [Vec<u32>; 4] {
    let [mut and, mut or, mut andnot, mut xor] = [vec![], vec![], vec![], vec![]];
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(&x), Some(&y)) if x == y => {
                and.push(x);
                or.push(x);
                i += 1;
                j += 1;
            }
            (Some(&x), Some(&y)) if x < y => {
                or.push(x);
                andnot.push(x);
                xor.push(x);
                i += 1;
            }
            (Some(&x), None) => {
                or.push(x);
                andnot.push(x);
                xor.push(x);
                i += 1;
            }
            (_, Some(&y)) => {
                or.push(y);
                xor.push(y);
                j += 1;
            }
            (None, None) => unreachable!("the loop runs while one side has values"),
        }
    }
    [and, or, andnot, xor]
}

thread_local! {
    /// Writers kept from one input to the next, as a real caller keeps them: their scratch
    /// buffers are then allocated once, not faulted in afresh for every input.
    static WRITERS: std::cell::RefCell<[Writer; 3]> = std::cell::RefCell::new([
        Writer::new(),
        Writer::new(),
        Writer::new().with_canonical(false),
    ]);
}

fn frozen(w: &mut Writer, s: &[u32]) -> Vec<u8> {
    let mut out = Vec::new();
    w.write_sorted(s.iter().copied(), &mut out).unwrap();
    out
}

/// Operation `k` (∩ ∪ − ⊕) of `a` and `b` through `w`, appended to `out`.
fn op_into(
    w: &mut Writer,
    k: usize,
    a: &FrozenBitmap<'_>,
    b: &FrozenBitmap<'_>,
    out: &mut Vec<u8>,
) -> std::ops::Range<usize> {
    match k {
        0 => w.intersection_into(a, b, out),
        1 => w.union_into(a, b, out),
        2 => w.difference_into(a, b, out),
        _ => w.symmetric_difference_into(a, b, out),
    }
    .unwrap()
}

fuzz_target!(
    |data: &[u8]| WRITERS.with_borrow_mut(|[model, w, relaxed]| {
        let mid = (data.len() / 10) * 5;
        let (a, b) = (decode_set(&data[..mid]), decode_set(&data[mid..]));
        let (fa, fb) = (frozen(model, &a), frozen(model, &b));
        let mut pb = Vec::new();
        model
            .write_portable_sorted(b.iter().copied(), &mut pb)
            .unwrap();
        let va = FrozenBitmap::from_bytes(&fa).unwrap();
        let expected = model_ops(&a, &b);
        let written: Vec<Vec<u8>> = expected.iter().map(|e| frozen(model, e)).collect();
        let empty = frozen(model, &[]);
        // Relaxed results are compared with the canonical ones as sets (`==` on views compares
        // values, container by container), not value by value through iterators.
        let views_of: Vec<FrozenBitmap<'_>> = written
            .iter()
            .map(|w| FrozenBitmap::from_bytes(w).unwrap())
            .collect();
        for bytes in [&fb, &pb] {
            let vb = FrozenBitmap::from_bytes(bytes).unwrap();
            let mut out = Vec::new();
            for k in 0..4 {
                out.clear();
                let r = op_into(w, k, &va, &vb, &mut out);
                assert_eq!(out[r], written[k][..], "operation {k}");
                // Without canonical kinds: strictly valid, the same values.
                out.clear();
                let r = op_into(relaxed, k, &va, &vb, &mut out);
                let v = FrozenBitmap::from_bytes_strict(&out[r]).unwrap();
                assert_eq!(v, views_of[k], "operation {k}, relaxed");
            }
            assert_eq!(va.intersection_len(&vb), expected[0].len() as u64);
            assert_eq!(va.union_len(&vb), expected[1].len() as u64);
            assert_eq!(va.difference_len(&vb), expected[2].len() as u64);
            assert_eq!(va.symmetric_difference_len(&vb), expected[3].len() as u64);
            let views = [va, vb, va];
            out.clear();
            let r = w.union_many_into(&views, &mut out).unwrap();
            assert_eq!(out[r], written[1][..]);
            out.clear();
            let r = relaxed.union_many_into(&views, &mut out).unwrap();
            let v = FrozenBitmap::from_bytes_strict(&out[r]).unwrap();
            assert_eq!(v, views_of[1]);
            out.clear();
            let r = w.intersection_many_into(&views, &mut out).unwrap();
            assert_eq!(out[r], written[0][..]);
            assert_eq!(w.union_many_len(&views), expected[1].len() as u64);
            assert_eq!(w.intersection_many_len(&views), expected[0].len() as u64);
            // a ⊕ b ⊕ a = b; a ⊕ b ⊕ b ⊕ a = ∅ (four inputs per key: the bitset path).
            out.clear();
            let r = w.symmetric_difference_many_into(&views, &mut out).unwrap();
            assert_eq!(out[r], fb[..], "a ⊕ b ⊕ a");
            out.clear();
            let r = relaxed
                .symmetric_difference_many_into(&views, &mut out)
                .unwrap();
            let v = FrozenBitmap::from_bytes_strict(&out[r]).unwrap();
            assert_eq!(
                v,
                FrozenBitmap::from_bytes(&fb).unwrap(),
                "a ⊕ b ⊕ a, relaxed"
            );
            let four = [va, vb, vb, va];
            assert_eq!(w.symmetric_difference_many_len(&four), 0);
            out.clear();
            let r = w.symmetric_difference_many_into(&four, &mut out).unwrap();
            assert_eq!(out[r], empty[..], "a ⊕ b ⊕ b ⊕ a");
            let pair = [va, vb];
            assert_eq!(
                w.symmetric_difference_many_len(&pair),
                expected[3].len() as u64
            );
            // a − b − b and a − b − b − a (several others per key: the bitset path).
            let three = [va, vb, vb];
            out.clear();
            let r = w.difference_many_into(&three, &mut out).unwrap();
            assert_eq!(out[r], written[2][..], "a − b − b");
            out.clear();
            let r = relaxed.difference_many_into(&three, &mut out).unwrap();
            let v = FrozenBitmap::from_bytes_strict(&out[r]).unwrap();
            assert_eq!(v, views_of[2], "a − b − b, relaxed");
            assert_eq!(w.difference_many_len(&three), expected[2].len() as u64);
            assert_eq!(w.difference_many_len(&pair), expected[2].len() as u64);
            assert_eq!(w.difference_many_len(&four), 0);
        }
    })
);
