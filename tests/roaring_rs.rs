//! roaring-rs interop (feature `roaring`): writing straight from `RoaringBitmap` /
//! `RoaringTreemap` gives the bytes of writing their values, views convert back, and the
//! bytes roaring-rs serializes are read in place.
#![cfg(feature = "roaring")]

mod common;

use common::Rng;
use frozen_roaring::{FrozenBitmap, FrozenBitmap64, Writer};
use roaring::{RoaringBitmap, RoaringTreemap};

fn random_bitmap(rng: &mut Rng) -> RoaringBitmap {
    let mut rb = RoaringBitmap::new();
    for _ in 0..rng.below(6) {
        let key = (rng.below(8) as u32) << 16 | if rng.below(4) == 0 { 0xFFFF_0000 } else { 0 };
        match rng.below(5) {
            0 => {
                rb.insert_range(key..=key | 0xFFFF);
            }
            1 => {
                for _ in 0..rng.below(20) {
                    let s = key | rng.below(60_000) as u32;
                    rb.insert_range(s..s + rng.below(3000) as u32);
                }
            }
            2 => {
                for _ in 0..rng.below(6000) {
                    rb.insert(key | rng.below(1 << 16) as u32);
                }
            }
            3 => {
                for v in (0..65536).step_by(2) {
                    rb.insert(key | v);
                }
            }
            _ => {
                rb.insert(key | rng.below(1 << 16) as u32);
            }
        }
    }
    rb
}

#[test]
fn writing_from_roaring_matches_writing_values() {
    let mut rng = Rng(11);
    let mut w = Writer::new();
    for _ in 0..150 {
        let rb = random_bitmap(&mut rng);
        let values: Vec<u32> = rb.iter().collect();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let r = w.write_roaring(&rb, &mut a);
        w.write_sorted(values.iter().copied(), &mut b).unwrap();
        assert_eq!(a[r.clone()], b[..]);
        let view = FrozenBitmap::from_bytes_strict(&a[r]).unwrap();
        assert_eq!(view.to_roaring(), rb);

        let (mut pa, mut pb) = (Vec::new(), Vec::new());
        w.write_portable_roaring(&rb, &mut pa);
        w.write_portable_sorted(values.iter().copied(), &mut pb)
            .unwrap();
        assert_eq!(pa, pb);
        let pv = FrozenBitmap::from_bytes_strict(&pa).unwrap();
        assert_eq!(pv.to_roaring(), rb);

        // roaring-rs's own portable bytes (with and without run containers) read in place.
        let mut ser = Vec::new();
        rb.serialize_into(&mut ser).unwrap();
        let v = FrozenBitmap::from_bytes_strict(&ser).unwrap();
        assert!(v.iter().eq(rb.iter()));
        let mut opt = rb.clone();
        opt.optimize();
        ser.clear();
        opt.serialize_into(&mut ser).unwrap();
        let v = FrozenBitmap::from_bytes_strict(&ser).unwrap();
        assert!(v.iter().eq(rb.iter()));
        // And roaring-rs reads ours.
        assert_eq!(RoaringBitmap::deserialize_from(&pa[..]).unwrap(), rb);
    }
}

#[test]
fn writing_from_treemaps_matches_writing_values() {
    let mut rng = Rng(12);
    let mut w = Writer::new();
    for _ in 0..60 {
        let mut tm = RoaringTreemap::new();
        for _ in 0..rng.below(4) {
            let hi = if rng.below(3) == 0 {
                u64::from(u32::MAX)
            } else {
                rng.below(5)
            };
            for v in random_bitmap(&mut rng).iter() {
                tm.insert(hi << 32 | u64::from(v));
            }
        }
        let values: Vec<u64> = tm.iter().collect();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let r = w.write_treemap(&tm, &mut a);
        w.write_sorted64(values.iter().copied(), &mut b).unwrap();
        assert_eq!(a[r.clone()], b[..]);
        assert_eq!(
            FrozenBitmap64::from_bytes_strict(&a[r])
                .unwrap()
                .to_treemap(),
            tm
        );
        let (mut pa, mut pb) = (Vec::new(), Vec::new());
        w.write_portable_treemap(&tm, &mut pa);
        w.write_portable_sorted64(values.iter().copied(), &mut pb)
            .unwrap();
        assert_eq!(pa, pb);
        assert_eq!(RoaringTreemap::deserialize_from(&pa[..]).unwrap(), tm);
        let mut ser = Vec::new();
        tm.serialize_into(&mut ser).unwrap();
        let v = FrozenBitmap64::from_bytes_strict(&ser).unwrap();
        assert!(v.iter().eq(tm.iter()));
        assert_eq!(v.to_treemap(), tm);
    }
}
