//! An arbitrary set (built from the input bytes as container-sized pieces) → write →
//! strict open → every answer equal to the `BTreeSet` model.
#![no_main]

use std::collections::BTreeSet;

use frozen_roaring::{FrozenBitmap, Writer};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Each 6-byte record adds one piece: key (2 bytes), mode, start (2), length/param.
    let mut set = BTreeSet::new();
    for rec in data.chunks_exact(6) {
        let key = u32::from(u16::from_le_bytes([rec[0], rec[1]]) % 8) << 16
            | if rec[0] & 0x80 != 0 { 0xFFF0_0000 } else { 0 };
        let start = u32::from(u16::from_le_bytes([rec[3], rec[4]]));
        let param = u32::from(rec[5]);
        match rec[2] % 4 {
            0 => {
                set.insert(key | start);
            }
            1 => set.extend((start..(start + param * 64).min(65536)).map(|lo| key | lo)),
            2 => set.extend(
                (start..65536)
                    .step_by(param as usize + 1)
                    .take(5000)
                    .map(|lo| key | lo),
            ),
            _ => set.extend(
                (0..65536u32)
                    .filter(|lo| (lo ^ start).count_ones() % 2 == param % 2)
                    .map(|lo| key | lo),
            ),
        }
    }
    let mut writer = Writer::new().with_checksum(data.len() % 2 == 1);
    let mut out = Vec::new();
    let range = writer.write_sorted(set.iter().copied(), &mut out).unwrap();
    assert_eq!(
        writer.serialized_size(set.iter().copied()).unwrap(),
        range.len()
    );
    let bm = FrozenBitmap::from_bytes_strict(&out[range]).unwrap();
    let model: Vec<u32> = set.iter().copied().collect();
    assert_eq!(bm.len(), model.len() as u64);
    assert_eq!(bm.to_vec(), model);
    assert!(bm.iter().rev().eq(model.iter().rev().copied()));
    for (i, &v) in model.iter().enumerate().step_by(101) {
        assert!(bm.contains(v));
        assert!(!bm.contains(v.wrapping_add(1)) || set.contains(&v.wrapping_add(1)));
        assert_eq!(bm.rank(v), i as u64 + 1);
        assert_eq!(bm.select(i as u32), Some(v));
    }
    assert_eq!(bm.min(), model.first().copied());
    assert_eq!(bm.max(), model.last().copied());
    assert_eq!(bm.intersection_len(&bm), bm.len());
});
