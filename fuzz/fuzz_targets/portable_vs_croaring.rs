//! Arbitrary bytes → our strict portable reader and CRoaring's safe decoder (which also
//! runs CRoaring's validate): both reject, or both accept with identical contents. Ours may
//! reject where CRoaring accepts only for the two checks CRoaring does not make: an offset
//! header that disagrees with the sequential positions, and a run container whose stored
//! cardinality differs from its runs.
#![no_main]

use croaring::{Bitmap, Portable};
use frozen_roaring::FrozenBitmap;
use libfuzzer_sys::fuzz_target;

mod cookie;

fuzz_target!(|data: &[u8]| {
    let bytes = cookie::with_cookie(data);
    let ours = FrozenBitmap::from_prefix(&bytes).and_then(|(bm, _)| bm.validate().map(|()| bm));
    let theirs = Bitmap::try_deserialize::<Portable>(&bytes);
    match (ours, theirs) {
        (Ok(bm), Some(cr)) => {
            assert_eq!(bm.len(), cr.cardinality());
            assert!(bm.iter().eq(cr.iter()), "same bytes, different sets");
        }
        (Ok(bm), None) => panic!("we accept what CRoaring rejects: {:?}", bm),
        (Err(e), Some(_)) => {
            let msg = e.to_string();
            assert!(
                msg.contains("offset header")
                    || msg.contains("sum differs from stored cardinality"),
                "CRoaring accepts what we reject: {msg}"
            );
        }
        (Err(_), None) => {}
    }
});
