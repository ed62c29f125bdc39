//! Arbitrary bytes → `FrozenBitmap64` (both 64-bit formats) → every query; strictly
//! validated views must answer exactly, and portable ones must match CRoaring's `Bitmap64`.
#![no_main]

use croaring::{Bitmap64, Portable};
use frozen_roaring::{Format, FrozenBitmap64, Writer};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first byte picks how the rest is read: behind the frozen magic, behind a small
    // bucket count, or as it is (the seeds of real 64-bit bitmaps start with 2).
    let mut bytes = Vec::with_capacity(data.len() + 8);
    match data.first().map(|b| b % 3) {
        Some(0) => {
            bytes.extend_from_slice(b"FR64");
            bytes.extend_from_slice(&data[1..]);
        }
        Some(1) if data.len() >= 2 => {
            bytes.extend_from_slice(&u64::from(data[1] % 8).to_le_bytes());
            bytes.extend_from_slice(&data[2..]);
        }
        Some(_) => bytes.extend_from_slice(&data[1..]),
        None => {}
    }
    let mut reference = Vec::new();
    Writer::new()
        .write_sorted64(
            [1, 2, 3, 1 << 32, (1 << 32) + 70_000, u64::MAX],
            &mut reference,
        )
        .unwrap();
    let reference = FrozenBitmap64::from_bytes(&reference).unwrap();
    let Ok(bm) = FrozenBitmap64::from_bytes(&bytes) else {
        return;
    };
    let probe = u64::from_le_bytes(core::array::from_fn(|i| *data.get(i).unwrap_or(&0)));
    let _ = (
        bm.len(),
        bm.min(),
        bm.max(),
        bm.contains(probe),
        bm.rank(probe),
    );
    let _ = (bm.select(probe % (bm.len() + 1)), bm.select(0));
    let _ = bm.iter().take(4096).count();
    // The allocating forms, where the payloads bound the values (the stored counts may lie).
    let bound: u64 = bm
        .buckets()
        .map(|(_, b)| {
            let s = b.statistics();
            s.array_bytes / 2 + (s.run_bytes / 4 + u64::from(s.bitset_containers)) * 65_536
        })
        .sum();
    if bound <= 1 << 16 {
        // The bulk extraction gives what the iterator gives, whatever the bytes hold.
        assert!(bm.to_vec().into_iter().eq(bm.iter()));
        let mut out = Vec::new();
        let _ = Writer::new().write_sorted64(bm.iter(), &mut out);
    }
    let _ = (
        bm.intersection_len(&reference),
        reference.intersection_len(&bm),
    );
    let _ = (
        bm.union_len(&reference),
        bm.is_subset(&reference),
        reference.is_subset(&bm),
    );
    if bm.validate().is_ok() {
        let values: Vec<u64> = bm.iter().take(2_000_000).collect();
        if values.len() as u64 == bm.len() {
            assert!(values.windows(2).all(|w| w[0] < w[1]));
            for (i, &v) in values.iter().enumerate().step_by(17) {
                assert!(bm.contains(v));
                assert_eq!(bm.rank(v), i as u64 + 1);
                assert_eq!(bm.select(i as u64), Some(v));
            }
        }
        if bm.format() == Format::Portable {
            let cr = Bitmap64::try_deserialize::<Portable>(&bytes)
                .expect("CRoaring rejects a 64-bit bitmap we validated");
            assert_eq!(cr.cardinality(), bm.len());
            assert!(cr.iter().eq(bm.iter()));
        }
    }
});
