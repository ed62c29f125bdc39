//! Arbitrary bytes behind a valid portable cookie → checked view → every query; views that
//! pass strict validation must answer exactly and survive both conversions unchanged.
#![no_main]

use frozen_roaring::{Format, FrozenBitmap, Writer};
use libfuzzer_sys::fuzz_target;

mod cookie;
#[path = "../../tests/common/exercise.rs"]
mod exercise;

fuzz_target!(|data: &[u8]| {
    let bytes = cookie::with_cookie(data);
    let mut reference_bytes = Vec::new();
    let mut writer = Writer::new();
    writer
        .write_portable_sorted([1, 2, 3, 4, 70_000, 70_001, 1 << 20], &mut reference_bytes)
        .unwrap();
    let reference = FrozenBitmap::from_bytes(&reference_bytes).unwrap();
    exercise::check_open_agrees(&bytes);
    if let Ok((bm, _)) = FrozenBitmap::from_prefix(&bytes) {
        assert_eq!(bm.format(), Format::Portable);
        exercise::exercise(&bm, &reference);
        if bm.validate().is_ok() {
            exercise::check_exact(&bm);
            // Re-encoding a portable view copies it.
            let mut same = Vec::new();
            writer.write_portable(&bm, &mut same).unwrap();
            assert_eq!(same, bm.as_bytes());
            // Portable -> frozen -> portable gives the input back byte for byte, unless
            // the input used cookie 12347 without any run container (CRoaring would have
            // written 12346: that choice is not a container kind and is not kept).
            let cookie12346 = bm.as_bytes()[..4] == 12346u32.to_le_bytes();
            let runs = bm.statistics().run_containers > 0;
            // Nor are set bits of the run-flag bitset beyond the last container (CRoaring
            // ignores them too).
            let n = bm.container_count();
            let spare_flags =
                !cookie12346 && n % 8 != 0 && bm.as_bytes()[4 + (n - 1) / 8] >> (n % 8) != 0;
            let mut frozen = Vec::new();
            let r = writer.write_frozen(&bm, &mut frozen).unwrap();
            let fv = FrozenBitmap::from_bytes_strict(&frozen[r]).unwrap();
            assert_eq!(fv, bm);
            let mut back = Vec::new();
            writer.write_portable(&fv, &mut back).unwrap();
            if (cookie12346 || runs) && !spare_flags {
                assert_eq!(back, bm.as_bytes());
            }
        }
    } else {
        // SAFETY: deliberately violated; the implementation is memory-safe regardless.
        let unchecked = unsafe { FrozenBitmap::from_bytes_unchecked(&bytes) };
        exercise::exercise(&unchecked, &reference);
    }
});
