//! Every file of the shared real-roaring datasets (when present): written, opened strictly
//! and checked against CRoaring (the `croaring` crate) for len, contains, rank, select, full
//! iteration, container kinds and pairwise intersections; sizes compared with the portable
//! format. Skips with a notice when `../shared/realdata` (or `$FROZEN_ROARING_REALDATA`) is
//! absent.

mod common;

use common::*;
use croaring::{Bitmap, Portable};
use frozen_roaring::{FrozenBitmap, Writer};

#[test]
fn realdata_matches_croaring() {
    let sets = realdata_sets();
    if sets.is_empty() {
        return;
    }
    let mut writer = Writer::new();
    let mut report = Vec::new();
    for (name, files) in &sets {
        let (mut ours, mut portable) = (0usize, 0usize);
        let mut prev: Option<(Vec<u8>, Bitmap)> = None;
        for (fi, path) in files.iter().enumerate() {
            let values = read_values(path);
            let mut cr = Bitmap::of(&values);
            cr.run_optimize();
            let mut out = Vec::new();
            let range = writer
                .write_sorted(values.iter().copied(), &mut out)
                .unwrap();
            assert_eq!(range, 0..out.len());
            let bm = FrozenBitmap::from_bytes_strict(&out).unwrap();
            let ctx = path.display();

            assert_eq!(bm.len(), cr.cardinality(), "{ctx}: len");
            assert_eq!(bm.min(), cr.minimum(), "{ctx}: min");
            assert_eq!(bm.max(), cr.maximum(), "{ctx}: max");
            assert!(bm.iter().eq(cr.iter()), "{ctx}: iteration");
            assert!(
                bm.iter().rev().eq(values.iter().rev().copied()),
                "{ctx}: reverse iteration"
            );
            let mut rng = Rng(fi as u64);
            for _ in 0..500 {
                let p = match rng.below(3) {
                    0 => values[rng.below(values.len() as u64) as usize]
                        .wrapping_add(rng.below(3) as u32)
                        .wrapping_sub(1),
                    1 => rng.below(u64::from(cr.maximum().unwrap_or(0)) + 2) as u32,
                    _ => rng.next() as u32,
                };
                assert_eq!(bm.contains(p), cr.contains(p), "{ctx}: contains({p})");
                assert_eq!(bm.rank(p), cr.rank(p), "{ctx}: rank({p})");
                let n = rng.below(values.len() as u64 + 1) as u32;
                assert_eq!(bm.select(n), cr.select(n), "{ctx}: select({n})");
            }
            let (s, c) = (bm.statistics(), cr.statistics());
            assert_eq!(
                (s.array_containers, s.bitset_containers, s.run_containers),
                (
                    c.n_array_containers,
                    c.n_bitset_containers,
                    c.n_run_containers
                ),
                "{ctx}: container kinds differ from CRoaring's run_optimize"
            );
            ours += out.len();
            portable += cr.get_serialized_size_in_bytes::<Portable>();
            if let Some((prev_bytes, prev_cr)) = &prev {
                let prev_bm = FrozenBitmap::from_bytes(prev_bytes).unwrap();
                assert_eq!(
                    bm.intersection_len(&prev_bm),
                    cr.and_cardinality(prev_cr),
                    "{ctx}: intersection_len"
                );
                assert_eq!(
                    bm.union_len(&prev_bm),
                    cr.or_cardinality(prev_cr),
                    "{ctx}: union_len"
                );
                assert_eq!(
                    bm.difference_len(&prev_bm),
                    cr.andnot_cardinality(prev_cr),
                    "{ctx}: difference_len"
                );
                assert_eq!(
                    bm.symmetric_difference_len(&prev_bm),
                    cr.xor_cardinality(prev_cr),
                    "{ctx}: xor len"
                );
                assert_eq!(
                    bm.is_subset(&prev_bm),
                    cr.is_subset(prev_cr),
                    "{ctx}: is_subset"
                );
            }
            prev = Some((out, cr));
        }
        let ratio = ours as f64 / portable as f64;
        report.push(format!(
            "{name:24} frozen {ours:>10} B  portable {portable:>10} B  ratio {ratio:.3}"
        ));
        // The format's size targets (format-spec/FORMAT.md).
        if name == "census-income" || name == "census1881" {
            assert!(
                ratio <= 1.03,
                "{name}: frozen/portable size ratio {ratio:.3} above 1.03"
            );
        }
        if name == "uscensus2000" {
            assert!(
                ratio <= 1.5,
                "{name}: frozen/portable size ratio {ratio:.3} above 1.5"
            );
        }
    }
    eprintln!("size of all bitmaps, frozen vs portable (CRoaring after run_optimize):");
    for line in report {
        eprintln!("  {line}");
    }
}
