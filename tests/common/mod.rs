//! Helpers shared by the integration tests: set generators, a query-by-query comparison
//! against a `BTreeSet` model, and access to the optional shared datasets.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::PathBuf;

use frozen_roaring::{FrozenBitmap, Writer};

pub mod strategies;

/// SplitMix64: a small deterministic generator for test data.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// How one container's worth of values is generated.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    /// `n` random values.
    Sparse(u16),
    /// Exactly `n` distinct values (hits the 4096/4097 array/bitset boundary).
    Exact(u16),
    /// Runs: `n` runs of random length, including runs touching 0 and 65535.
    Runs(u16),
    /// All 65536 values.
    Full,
    /// Roughly half the values.
    Dense,
    /// Every other value (the most runs a container can have).
    Alternating,
}

/// The low parts of one generated container.
pub fn container_values(shape: Shape, seed: u64) -> BTreeSet<u16> {
    let mut rng = Rng(seed);
    let mut s = BTreeSet::new();
    match shape {
        Shape::Sparse(n) => {
            for _ in 0..n {
                s.insert(rng.next() as u16);
            }
        }
        Shape::Exact(n) => {
            let n = usize::from(n).min(65536);
            let stride = 1 + rng.below(3) as u32;
            let mut v = rng.below(1000) as u32;
            while s.len() < n {
                s.insert((v % 65536) as u16);
                v += stride;
            }
        }
        Shape::Runs(n) => {
            if rng.below(2) == 0 {
                s.extend(0..=rng.below(50) as u16);
            }
            for _ in 0..n {
                let start = rng.below(65536) as u32;
                let len = 1 + rng.below(300) as u32;
                s.extend((start..(start + len).min(65536)).map(|v| v as u16));
            }
            if rng.below(2) == 0 {
                s.extend((65535 - rng.below(50) as u16)..=65535);
            }
        }
        Shape::Full => s.extend(0..=u16::MAX),
        Shape::Dense => {
            for w in 0..1024u32 {
                let bits = rng.next();
                for b in 0..64 {
                    if bits >> b & 1 == 1 {
                        s.insert((w * 64 + b) as u16);
                    }
                }
            }
        }
        Shape::Alternating => s.extend((0..=u16::MAX).step_by(2)),
    }
    s
}

/// A set from `(key, shape, seed)` triples.
pub fn build_set(parts: &[(u16, Shape, u64)]) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for &(key, shape, seed) in parts {
        out.extend(
            container_values(shape, seed)
                .into_iter()
                .map(|lo| (u32::from(key) << 16) | u32::from(lo)),
        );
    }
    out
}

/// Writes `set` and returns its bytes (from offset 0 of a fresh buffer).
pub fn encode(set: &BTreeSet<u32>) -> Vec<u8> {
    let mut out = Vec::new();
    let r = Writer::new()
        .write_sorted(set.iter().copied(), &mut out)
        .unwrap();
    assert_eq!(r, 0..out.len());
    out
}

/// Probe values for `set`: its members, their neighbours, container edges and extremes.
pub fn probes(set: &BTreeSet<u32>, rng: &mut Rng) -> Vec<u32> {
    let mut p = vec![0, 1, 65535, 65536, u32::MAX, u32::MAX - 1];
    let members: Vec<u32> = set.iter().copied().collect();
    for _ in 0..64.min(members.len()) {
        let v = members[rng.below(members.len() as u64) as usize];
        p.extend([
            v,
            v.wrapping_sub(1),
            v.wrapping_add(1),
            v & !0xFFFF,
            v | 0xFFFF,
        ]);
    }
    if let (Some(&a), Some(&b)) = (members.first(), members.last()) {
        p.extend([a, b, a.wrapping_sub(1), b.wrapping_add(1)]);
    }
    for _ in 0..32 {
        p.push(rng.next() as u32);
    }
    p
}

/// Checks every single-bitmap query of `bm` against the model `set`.
pub fn check_queries(bm: &FrozenBitmap<'_>, set: &BTreeSet<u32>, seed: u64) {
    let mut rng = Rng(seed);
    let model: Vec<u32> = set.iter().copied().collect();
    assert_eq!(bm.len(), model.len() as u64, "len");
    assert_eq!(bm.is_empty(), model.is_empty(), "is_empty");
    assert_eq!(bm.min(), model.first().copied(), "min");
    assert_eq!(bm.max(), model.last().copied(), "max");
    assert_eq!(bm.to_vec(), model, "to_vec");
    assert!(bm.iter().eq(model.iter().copied()), "iter");
    assert!(
        bm.iter().rev().eq(model.iter().rev().copied()),
        "iter().rev()"
    );
    // Internal iteration (fold), whole and after taking values from both ends.
    let folded = bm.iter().fold(Vec::new(), |mut v, x| {
        v.push(x);
        v
    });
    assert_eq!(folded, model, "fold");
    for (skip_front, skip_back) in [(1usize, 0usize), (0, 1), (3, 2), (70_000, 5)] {
        let mut it = bm.iter();
        for _ in 0..skip_front {
            it.next();
        }
        for _ in 0..skip_back {
            it.next_back();
        }
        let rest: Vec<u32> = it.fold(Vec::new(), |mut v, x| {
            v.push(x);
            v
        });
        let start = skip_front.min(model.len());
        let end = model.len().saturating_sub(skip_back).max(start);
        assert_eq!(
            rest,
            model[start..end],
            "fold after skipping {skip_front}/{skip_back}"
        );
        // The same from the back (`rev()`'s internal iteration).
        let mut it = bm.iter();
        for _ in 0..skip_front {
            it.next();
        }
        for _ in 0..skip_back {
            it.next_back();
        }
        let mut back = it.rev().fold(Vec::new(), |mut v, x| {
            v.push(x);
            v
        });
        back.reverse();
        assert_eq!(
            back,
            model[start..end],
            "rev() fold after skipping {skip_front}/{skip_back}"
        );
    }
    if let Some(&mid) = model.get(model.len() / 2) {
        let mut it = bm.iter();
        it.advance_to(mid);
        assert_eq!(
            it.count(),
            model.len() - model.len() / 2,
            "count after advance_to"
        );
    }
    assert_eq!(
        bm.iter().size_hint(),
        (model.len(), Some(model.len())),
        "size_hint"
    );
    for p in probes(set, &mut rng) {
        assert_eq!(bm.contains(p), set.contains(&p), "contains({p})");
        let rank = set.range(..=p).count() as u64;
        assert_eq!(bm.rank(p), rank, "rank({p})");
        let at_or_above: Vec<u32> = set.range(p..).take(2).copied().collect();
        let mut it = bm.iter();
        it.advance_to(p);
        assert_eq!(it.next(), at_or_above.first().copied(), "advance_to({p})");
        let last = (at_or_above.len() == 2).then(|| *model.last().unwrap());
        assert_eq!(it.next_back(), last, "advance_to({p}) then next_back");
        let at_or_below: Vec<u32> = set.range(..=p).rev().take(2).copied().collect();
        let mut it = bm.iter();
        it.advance_back_to(p);
        assert_eq!(
            it.next_back(),
            at_or_below.first().copied(),
            "advance_back_to({p})"
        );
        let first = (at_or_below.len() == 2).then(|| model[0]);
        assert_eq!(it.next(), first, "advance_back_to({p}) then next");
    }
    for _ in 0..32 {
        let n = rng.below(model.len() as u64 + 2) as u32;
        assert_eq!(bm.select(n), model.get(n as usize).copied(), "select({n})");
    }
    // A range's count and containment against the model.
    let check_range = |lo: u32, hi: u32| {
        let expect = set.range(lo..=hi).count() as u64;
        assert_eq!(
            bm.range_cardinality(lo..=hi),
            expect,
            "range_cardinality({lo}..={hi})"
        );
        assert_eq!(
            bm.contains_range(lo..=hi),
            expect == u64::from(hi - lo) + 1,
            "contains_range({lo}..={hi})"
        );
    };
    for _ in 0..32 {
        let (a, b) = (
            rng.next() as u32 >> rng.below(32),
            rng.next() as u32 >> rng.below(32),
        );
        let (lo, hi) = (a.min(b), a.max(b));
        check_range(lo, hi);
        assert_eq!(
            bm.range_cardinality(lo..hi),
            set.range(lo..hi).count() as u64,
            "range_cardinality({lo}..{hi})"
        );
    }
    // Ranges from a value of the set, of 1 to 2^17 values (within a run, across a
    // container's end, over whole containers), where containment holds as often as not.
    for _ in 0..32 {
        let Some(&lo) = model.get(rng.below(model.len() as u64) as usize) else {
            break;
        };
        let hi = lo.saturating_add((rng.next() as u32) >> (15 + rng.below(17) as u32));
        check_range(lo, hi);
    }
    assert_eq!(bm.range_cardinality(..), model.len() as u64);
    // Iteration from both ends, interleaved, meets in the middle exactly once.
    let mut it = bm.iter();
    let (mut front, mut back) = (Vec::new(), Vec::new());
    loop {
        let take_front = rng.below(2) == 0;
        let v = if take_front {
            it.next()
        } else {
            it.next_back()
        };
        match v {
            Some(v) if take_front => front.push(v),
            Some(v) => back.push(v),
            None => break,
        }
    }
    back.reverse();
    front.extend(back);
    assert_eq!(front, model, "interleaved next/next_back");
    // Batches of every size from 1 up.
    for size in [1usize, 3, 64, 4097] {
        let mut it = bm.iter();
        let mut buf = vec![0u32; size];
        let mut got = Vec::new();
        loop {
            let n = it.next_many(&mut buf).len();
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(got, model, "next_many with buffer {size}");
    }
    let stats = bm.statistics();
    assert_eq!(
        stats.array_values + stats.bitset_values + stats.run_values,
        model.len() as u64
    );
    assert_eq!(stats.containers as usize, bm.container_count());
    assert_eq!(stats.total_bytes as usize, bm.as_bytes().len());
}

/// Checks the two-bitmap counts of `a` and `b` against the models.
pub fn check_pair(
    a: &FrozenBitmap<'_>,
    b: &FrozenBitmap<'_>,
    sa: &BTreeSet<u32>,
    sb: &BTreeSet<u32>,
) {
    let inter = sa.intersection(sb).count() as u64;
    assert_eq!(a.intersection_len(b), inter, "intersection_len");
    assert_eq!(b.intersection_len(a), inter, "intersection_len (swapped)");
    assert_eq!(a.union_len(b), sa.union(sb).count() as u64, "union_len");
    assert_eq!(
        a.difference_len(b),
        sa.difference(sb).count() as u64,
        "difference_len"
    );
    assert_eq!(
        a.symmetric_difference_len(b),
        sa.symmetric_difference(sb).count() as u64,
        "symmetric_difference_len"
    );
    assert_eq!(a.is_subset(b), sa.is_subset(sb), "is_subset");
    assert_eq!(a.is_superset(b), sa.is_superset(sb), "is_superset");
    assert_eq!(a.is_disjoint(b), sa.is_disjoint(sb), "is_disjoint");
    assert_eq!(a == b, sa == sb, "eq");
}

/// The shared real-data folder: `$FROZEN_ROARING_REALDATA`, else `../shared/realdata`.
pub fn realdata_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("FROZEN_ROARING_REALDATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/realdata"));
    if dir.is_dir() {
        Some(dir)
    } else {
        // Written to the stderr handle directly so that the test harness does not capture it:
        // a skipped check must be visible in a normal `cargo test` run.
        let _ = writeln!(
            std::io::stderr(),
            "notice: {} not found, skipping real-data checks (set FROZEN_ROARING_REALDATA)",
            dir.display()
        );
        None
    }
}

/// The datasets in the real-data folder: (name, files in name order).
pub fn realdata_sets() -> Vec<(String, Vec<PathBuf>)> {
    let Some(dir) = realdata_dir() else {
        return Vec::new();
    };
    let mut sets = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if !path.is_dir() {
            continue;
        }
        let mut files: Vec<PathBuf> = std::fs::read_dir(&path)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "txt"))
            .collect();
        files.sort();
        sets.push((
            path.file_name().unwrap().to_string_lossy().into_owned(),
            files,
        ));
    }
    sets.sort();
    sets
}

/// Values of a CRoaring-style text file (comma-separated, ascending).
pub fn read_values(path: &std::path::Path) -> Vec<u32> {
    let text = std::fs::read_to_string(path).unwrap();
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect()
}
