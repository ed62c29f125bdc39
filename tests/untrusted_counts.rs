//! No allocation is sized by a count the bytes claim: crafted bitmaps whose stored
//! cardinalities and cumulative counts lie (run containers that claim to be full but hold
//! one value, in every view kind) pass the structural checks, and then every allocating
//! method runs to the end under a 1 GiB cap on live heap memory. An allocation above the
//! cap returns null, which aborts the test binary: the test cannot pass by accident.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use frozen_roaring::{
    BitmapFile, FileWriter, FrozenBitmap, FrozenBitmap64, FrozenBitmapBuf, Writer,
};

/// Live heap bytes allowed at any moment.
const CAP: usize = 1 << 30;

struct Capped;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged, except that it refuses
// (returns null, as an allocator may) a request that would take the live total above CAP.
unsafe impl GlobalAlloc for Capped {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size() > CAP {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            return std::ptr::null_mut();
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let grow = new_size.saturating_sub(layout.size());
        if LIVE.fetch_add(grow, Ordering::Relaxed) + grow > CAP {
            LIVE.fetch_sub(grow, Ordering::Relaxed);
            return std::ptr::null_mut();
        }
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            LIVE.fetch_sub(grow, Ordering::Relaxed);
        } else {
            LIVE.fetch_sub(layout.size().saturating_sub(new_size), Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Capped = Capped;

/// A portable 32-bit bitmap of `n` run containers (keys 0..n), each claiming 65,536 values
/// in its descriptive header but holding one run of one value (`key`, low bits 7).
fn lying_portable(n: usize) -> Vec<u8> {
    assert!((4..=65536).contains(&n));
    let mut out = Vec::new();
    out.extend_from_slice(&(12347u32 | ((n as u32 - 1) << 16)).to_le_bytes());
    out.extend(std::iter::repeat_n(0xFFu8, n.div_ceil(8))); // every container is a run container
    for key in 0..n {
        out.extend_from_slice(&(key as u16).to_le_bytes());
        out.extend_from_slice(&u16::MAX.to_le_bytes()); // cardinality - 1: "full"
    }
    // The offset header (streams with runs carry one from 4 containers on).
    let mut at = out.len() + 4 * n;
    for _ in 0..n {
        out.extend_from_slice(&(at as u32).to_le_bytes());
        at += 6;
    }
    for _ in 0..n {
        out.extend_from_slice(&1u16.to_le_bytes()); // one run
        out.extend_from_slice(&7u16.to_le_bytes()); // starting at 7
        out.extend_from_slice(&0u16.to_le_bytes()); // length - 1 = 0
    }
    out
}

/// A portable 64-bit bitmap of `buckets` buckets, each [`lying_portable`]`(n)`.
fn lying_portable64(buckets: u32, n: usize) -> Vec<u8> {
    let inner = lying_portable(n);
    let mut out = u64::from(buckets).to_le_bytes().to_vec();
    for b in 0..buckets {
        out.extend_from_slice(&(b * 3).to_le_bytes());
        out.extend_from_slice(&inner);
    }
    out
}

/// Every allocating method of a 32-bit view, run to the end; returns what the set really
/// holds (counted while iterating), to check against the claimed length.
fn exercise(v: FrozenBitmap<'_>) -> u64 {
    let real = v.iter().count() as u64;
    assert_eq!(v.to_vec().len() as u64, real);
    let small = FrozenBitmapBuf::from_sorted_iter([7, 65_536 + 7, 1 << 20]).unwrap();
    let small = small.as_view();
    let mut w = Writer::new();
    let mut out = Vec::new();
    w.write_frozen(&v, &mut out).unwrap();
    out.clear();
    w.write_portable(&v, &mut out).unwrap();
    let _ = (w.frozen_size(&v), w.portable_size(&v));
    for (a, b) in [(v, v), (v, small), (small, v)] {
        out.clear();
        w.intersection_into(&a, &b, &mut out).unwrap();
        out.clear();
        w.union_into(&a, &b, &mut out).unwrap();
        out.clear();
        w.difference_into(&a, &b, &mut out).unwrap();
        out.clear();
        w.symmetric_difference_into(&a, &b, &mut out).unwrap();
        let _ = (a.intersection(&b), a.union(&b), a.difference(&b));
        let _ = a.symmetric_difference(&b);
        let _ = (a.intersection_len(&b), a.union_len(&b), a.is_subset(&b));
    }
    let many = [v, small, v];
    out.clear();
    w.union_many_into(many, &mut out).unwrap();
    out.clear();
    w.intersection_many_into(many, &mut out).unwrap();
    out.clear();
    w.difference_many_into(many, &mut out).unwrap();
    out.clear();
    w.symmetric_difference_many_into(many, &mut out).unwrap();
    let _ = w.union_many_len(many) + w.intersection_many_len(many);
    let _ = FrozenBitmapBuf::union_many(many);
    let _ = FrozenBitmapBuf::from_bytes(v.as_bytes().to_vec());
    let mut file = FileWriter::new(Vec::new());
    file.add(1, &v).unwrap();
    let bytes = file.finish().unwrap();
    let file = BitmapFile::from_bytes(&bytes[..]).unwrap();
    assert_eq!(file.get(1).unwrap().unwrap().iter().count() as u64, real);
    #[cfg(feature = "roaring")]
    assert_eq!(v.to_roaring().len(), real);
    real
}

#[test]
fn lying_counts_allocate_only_what_the_values_need() {
    // 32-bit portable: 65,536 containers that claim 2^32 values and hold 65,536.
    let portable = lying_portable(65_536);
    let v = FrozenBitmap::from_bytes(&portable).expect("structurally sound");
    assert_eq!(v.len(), 1 << 32, "the claimed length");
    assert_eq!(exercise(v), 65_536);
    assert!(FrozenBitmap::from_bytes_strict(&portable).is_err());

    // The same lie in the frozen format (stored cardinalities and cumulative counts at
    // their maximum), as `write_frozen` carries it over from the portable bytes.
    let mut frozen = Vec::new();
    Writer::new().write_frozen(&v, &mut frozen).unwrap();
    let f = FrozenBitmap::from_bytes(&frozen).expect("structurally sound");
    assert_eq!(f.len(), v.len());
    assert_eq!(exercise(f), 65_536);

    // 64-bit portable: 16 such buckets claim 2^36 values.
    let wide = lying_portable64(16, 65_536);
    let v64 = FrozenBitmap64::from_bytes(&wide).expect("structurally sound");
    assert_eq!(v64.len(), 16 << 32);
    let real = 16 * 65_536;
    assert_eq!(v64.iter().count(), real);
    assert_eq!(v64.to_vec().len(), real);
    assert_eq!(v64.intersection_len(&v64), real as u64);
    let _ = (
        v64.union_len(&v64),
        v64.is_subset(&v64),
        v64.min(),
        v64.max(),
    );
    let (_, first) = v64.buckets().next().expect("16 buckets");
    assert_eq!(exercise(first), 65_536);
    let mut out = Vec::new();
    Writer::new()
        .write_sorted64(v64.iter(), &mut out)
        .expect("the real values, ascending");
    #[cfg(feature = "roaring")]
    assert_eq!(v64.to_treemap().len(), real as u64);

    // Counts no bytes can hold are refused before anything is read.
    let mut huge = (1u64 << 60).to_le_bytes().to_vec();
    huge.extend_from_slice(&[0; 64]);
    assert!(FrozenBitmap64::from_bytes(&huge).is_err());
    let mut file = FileWriter::new(Vec::new());
    file.add_sorted(1, [1]).unwrap();
    let mut bytes = file.finish().unwrap();
    let n = bytes.len();
    bytes[n - 24..n - 16].copy_from_slice(&(1u64 << 60).to_le_bytes());
    assert!(BitmapFile::from_bytes(&bytes[..]).is_err());
}
