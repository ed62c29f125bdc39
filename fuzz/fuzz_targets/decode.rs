//! Arbitrary bytes → every constructor; whatever opens has every query run on it, and a
//! strictly validated view must answer exactly.
#![no_main]

use frozen_roaring::{FrozenBitmap, Writer};
use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/exercise.rs"]
mod exercise;

fuzz_target!(|data: &[u8]| {
    let mut reference_bytes = Vec::new();
    Writer::new()
        .write_sorted([1, 2, 3, 70_000, 70_001, 1 << 20], &mut reference_bytes)
        .unwrap();
    let reference = FrozenBitmap::from_bytes(&reference_bytes).unwrap();
    // One view per input, exercised once: the checked one; else the prefix one (bytes
    // follow the bitmap); else the unchecked one, of bytes the checks refuse (on bytes they
    // accept, it is the same view as the checked one).
    exercise::check_open_agrees(data);
    if let Ok(bm) = FrozenBitmap::from_bytes(data) {
        exercise::exercise(&bm, &reference);
        if bm.validate().is_ok() {
            exercise::check_exact(&bm);
        }
    } else if let Ok((bm, _)) = FrozenBitmap::from_prefix(data) {
        exercise::exercise(&bm, &reference);
    } else {
        // SAFETY: deliberately violated; the implementation is memory-safe regardless.
        let unchecked = unsafe { FrozenBitmap::from_bytes_unchecked(data) };
        exercise::exercise(&unchecked, &reference);
    }
});
