//! Arbitrary bytes → `DeletionVector` (a frame, Delta's native layout, an inline body) and
//! `PuffinFile` → every query: never a panic; strictly checked DVs answer exactly (the
//! iterator, masks, gaps and counts agree with each other).
#![no_main]

use frozen_roaring::{DeletionVector, FrozenBitmap64, PuffinFile, DV_MAGIC, DV_NATIVE_MAGIC};
use libfuzzer_sys::fuzz_target;

/// zlib's CRC-32, bit by bit (so that frames built from fuzz input can carry a right one).
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn exercise(bm: &FrozenBitmap64<'_>, probe: u64, exact: bool) {
    let _ = (
        bm.len(),
        bm.min(),
        bm.max(),
        bm.contains(probe),
        bm.rank(probe),
    );
    let _ = (
        bm.range_cardinality(probe..),
        bm.contains_range(probe..probe.saturating_add(3)),
    );
    let start = probe % (1 << 34);
    let mut mask = [0u64; 64];
    bm.fill_mask(start..start + 4096, &mut mask);
    let gaps: Vec<_> = bm.live_ranges(start..start + 4096).take(5000).collect();
    let mut it = bm.iter();
    it.advance_to(probe);
    let _ = (
        it.next(),
        it.next_back(),
        it.next_range(),
        it.next_range_back(),
    );
    let _ = bm.iter().rev().take(100).count();
    let _ =
        bm.range(probe / 2..=probe).take(100).count() + bm.range(probe..).rev().take(100).count();
    if exact {
        let set = mask.iter().map(|w| u64::from(w.count_ones())).sum::<u64>();
        assert_eq!(set, bm.range_cardinality(start..start + 4096));
        assert_eq!(set, bm.range(start..start + 4096).count() as u64);
        let live: u64 = gaps.iter().map(|r| r.end - r.start).sum();
        assert_eq!(live + set, 4096);
        for (i, v) in (start..start + 4096).enumerate().step_by(61) {
            assert_eq!(mask[i / 64] >> (i % 64) & 1 == 1, bm.contains(v));
        }
        let values: Vec<u64> = bm.iter().take(100_000).collect();
        if values.len() as u64 == bm.len() {
            assert!(bm.iter().rev().eq(values.iter().rev().copied()));
            // The ranges from the top down hold the values, in descending order.
            let mut it = bm.iter();
            let mut top = Vec::new();
            while let Some(r) = it.next_range_back() {
                top.extend(r.rev().take(values.len() + 1 - top.len()));
                if top.len() > values.len() {
                    break;
                }
            }
            assert!(top.iter().eq(values.iter().rev()));
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let probe = u64::from_le_bytes(core::array::from_fn(|i| *data.get(i).unwrap_or(&0)));
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    match mode % 4 {
        // The rest as a frame.
        0 => {
            if let Ok(dv) = DeletionVector::from_bytes(rest) {
                let strict = DeletionVector::from_bytes_strict(rest).is_ok();
                exercise(&dv.bitmap(), probe, strict);
            }
        }
        // The rest as magic-less bitmap bytes, framed with a right length and CRC.
        1 | 2 => {
            let magic = if mode % 4 == 1 {
                DV_MAGIC
            } else {
                DV_NATIVE_MAGIC
            };
            let mut body = magic.to_vec();
            body.extend_from_slice(rest);
            let mut frame = (body.len() as u32).to_be_bytes().to_vec();
            frame.extend_from_slice(&body);
            frame.extend_from_slice(&crc32(&body).to_be_bytes());
            if let Ok(dv) = DeletionVector::from_bytes(&frame) {
                let strict = DeletionVector::from_bytes_strict(&frame).is_ok();
                exercise(&dv.bitmap(), probe, strict);
            }
            if let Ok(dv) = DeletionVector::from_inline(&body) {
                exercise(&dv.bitmap(), probe, dv.validate_payloads().is_ok());
            }
        }
        // The rest as a Puffin file.
        _ => {
            if let Ok(p) = PuffinFile::from_bytes(rest) {
                for (meta, dv) in p.deletion_vectors() {
                    let _ = meta.referenced_data_file();
                    if let Ok(dv) = dv {
                        exercise(
                            &dv.bitmap(),
                            probe,
                            dv.verify().is_ok() && dv.validate_payloads().is_ok(),
                        );
                    }
                }
            }
        }
    }
});
