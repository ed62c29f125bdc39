//! Bitmap files read by ranges: lookups and batches give what `BitmapFile::from_bytes`
//! gives, with the number of requests asserted (open, `get`, `get_many` of scattered and of
//! clustered keys, the cache), and faults of the storage (failed reads, short reads, bytes
//! changed after open) give typed errors naming the key.

use std::borrow::Cow;
use std::io;
use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use frozen_roaring::{
    BitmapFile, ErrorKind, FileWriter, RangeSource, RangedBitmapFile, RangedOptions,
};

/// A store in memory that counts requests and can fail, cut reads short, or change bytes.
struct Store {
    data: Mutex<Vec<u8>>,
    requests: AtomicU64,
    /// Requests from this many on fail (u64::MAX: never).
    fail_from: AtomicU64,
    /// Requests from this many on return one byte less.
    short_from: AtomicU64,
}

impl Store {
    fn new(data: Vec<u8>) -> Store {
        Store {
            data: Mutex::new(data),
            requests: AtomicU64::new(0),
            fail_from: AtomicU64::new(u64::MAX),
            short_from: AtomicU64::new(u64::MAX),
        }
    }
}

impl RangeSource for Store {
    fn size(&self) -> io::Result<u64> {
        Ok(self.data.lock().unwrap().len() as u64)
    }
    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        let n = self.requests.fetch_add(1, Ordering::SeqCst);
        if n >= self.fail_from.load(Ordering::SeqCst) {
            return Err(io::Error::other("the store is down"));
        }
        let data = self.data.lock().unwrap();
        let mut end = range.end as usize;
        if n >= self.short_from.load(Ordering::SeqCst) {
            end -= 1;
        }
        Ok(Cow::Owned(data[range.start as usize..end].to_vec()))
    }
}

/// `keys` bitmaps: key `k` holds a few values derived from `k`.
fn file_of(keys: u64, checksums: bool) -> Vec<u8> {
    let mut w = FileWriter::new(Vec::new());
    if !checksums {
        w = w.without_bitmap_checksums();
    }
    for k in 0..keys {
        let k32 = k as u32;
        w.add_sorted(
            k * 3,
            [k32, k32 + 7, k32.wrapping_mul(31) | 1 << 31]
                .into_iter()
                .collect::<std::collections::BTreeSet<_>>(),
        )
        .unwrap();
    }
    w.finish().unwrap()
}

fn rng(mut x: u64) -> impl FnMut() -> u64 {
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

#[test]
fn a_million_keys_by_ranges_match_the_whole_file() {
    let keys = 1_000_000;
    let bytes = file_of(keys, true);
    let whole = BitmapFile::from_bytes(&bytes[..]).unwrap();
    let store = Store::new(bytes.clone());
    let file = RangedBitmapFile::open(&store).unwrap();
    // The directory (24 bytes a key) does not fit the 64 KiB tail: one more read.
    assert_eq!(store.requests.load(Ordering::SeqCst), 2);
    assert_eq!(file.stats().requests, 2);
    assert_eq!(file.len(), whole.len());
    assert!(file.has_bitmap_checksums());

    let mut next = rng(99);
    for _ in 0..200 {
        let k = next() % (keys * 3 + 5);
        let before = file.stats().requests;
        let got = file.get(k).unwrap();
        let want = whole.get(k).unwrap();
        assert_eq!(got.is_some(), want.is_some(), "key {k}");
        if let (Some(g), Some(w)) = (got, want) {
            assert!(g.as_view().iter().eq(w.iter()), "key {k}");
            assert_eq!(file.stats().requests, before + 1, "one request per get");
        } else {
            assert_eq!(
                file.stats().requests,
                before,
                "no request for a missing key"
            );
        }
    }

    // 100 scattered keys: at most one request each (neighbours closer than the gap share).
    let scattered: Vec<u64> = (0..100).map(|_| (next() % keys) * 3).collect();
    let before = file.stats().requests;
    let got = file.get_many(&scattered).unwrap();
    let used = file.stats().requests - before;
    assert!((1..=100).contains(&used), "{used} requests");
    for (k, g) in scattered.iter().zip(&got) {
        assert!(
            g.as_ref()
                .unwrap()
                .as_view()
                .iter()
                .eq(whole.get(*k).unwrap().unwrap().iter())
        );
    }
    // 100 clustered keys: one request.
    let start = (next() % (keys - 200)) * 3;
    let clustered: Vec<u64> = (0..100).map(|i| start + 3 * i).rev().collect();
    let before = file.stats().requests;
    let got = file.get_many(&clustered).unwrap();
    assert_eq!(file.stats().requests - before, 1);
    for (k, g) in clustered.iter().zip(&got) {
        assert!(
            g.as_ref()
                .unwrap()
                .as_view()
                .iter()
                .eq(whole.get(*k).unwrap().unwrap().iter())
        );
    }
    // With no merging at all, one request per key.
    let strict = RangedBitmapFile::open_with(
        &bytes[..],
        RangedOptions {
            merge_gap: 0,
            ..RangedOptions::default()
        },
    )
    .unwrap();
    let before = strict.stats().requests;
    let keys_far: Vec<u64> = (0..20).map(|i| i * 3 * (keys / 20)).collect();
    strict.get_many(&keys_far).unwrap();
    assert_eq!(strict.stats().requests - before, 20);
}

#[test]
fn small_files_open_in_one_request_and_the_cache_saves_reads() {
    for checksums in [true, false] {
        let bytes = file_of(50, checksums);
        let store = Store::new(bytes.clone());
        let file = RangedBitmapFile::open_with(
            &store,
            RangedOptions {
                cache_bytes: 1 << 20,
                ..RangedOptions::default()
            },
        )
        .unwrap();
        assert_eq!(file.stats().requests, 1);
        assert_eq!(file.has_bitmap_checksums(), checksums);
        // A tail that holds the footer only: the directory is a second read; the header is
        // checked through the footer's checksum, not read.
        let narrow = RangedBitmapFile::open_with(
            &bytes[..],
            RangedOptions {
                tail_bytes: 32,
                ..RangedOptions::default()
            },
        )
        .unwrap();
        assert_eq!(narrow.stats().requests, 2);
        assert_eq!(narrow.has_bitmap_checksums(), checksums);

        let a = file.get(9).unwrap().unwrap();
        let b = file.get(9).unwrap().unwrap();
        assert_eq!(a, b);
        let s = file.stats();
        assert_eq!((s.requests, s.cache_hits, s.cache_misses), (2, 1, 1));
        file.get_many(&[9, 12, 15]).unwrap();
        let s = file.stats();
        assert_eq!((s.requests, s.cache_hits), (3, 2));
        assert_eq!(file.get(1).unwrap(), None);
    }
    // A cache too small for anything keeps nothing and still answers.
    let bytes = file_of(5, true);
    let file = RangedBitmapFile::open_with(
        &bytes[..],
        RangedOptions {
            cache_bytes: 8,
            ..RangedOptions::default()
        },
    )
    .unwrap();
    file.get(3).unwrap().unwrap();
    file.get(3).unwrap().unwrap();
    assert_eq!(file.stats().cache_hits, 0);
}

#[test]
fn faults_of_the_store_give_typed_errors_naming_the_key() {
    let bytes = file_of(40, true);
    // A read that fails.
    let store = Store::new(bytes.clone());
    let file = RangedBitmapFile::open(&store).unwrap();
    store.fail_from.store(0, Ordering::SeqCst);
    let e = file.get(30).unwrap_err();
    assert_eq!((e.kind(), e.key()), (ErrorKind::Io, Some(30)));
    assert_eq!(e.byte_range(), file.byte_range(30));
    assert!(
        e.to_string().contains("key 30") && e.to_string().contains("the store is down"),
        "{e}"
    );
    let e = file.get_many(&[3, 6, 90]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
    assert!(e.key().is_some());
    // A short read.
    let store = Store::new(bytes.clone());
    let file = RangedBitmapFile::open(&store).unwrap();
    store.short_from.store(0, Ordering::SeqCst);
    let e = file.get(60).unwrap_err();
    assert_eq!((e.kind(), e.key()), (ErrorKind::Io, Some(60)));
    assert!(e.to_string().contains("short read"), "{e}");
    // Bytes changed after open (the file overwritten in place): every byte of one bitmap
    // in turn; each lookup is an error naming the key or, never, a wrong answer.
    let store = Store::new(bytes.clone());
    let file = RangedBitmapFile::open(&store).unwrap();
    let whole = BitmapFile::from_bytes(&bytes[..]).unwrap();
    let r = file.byte_range(27).unwrap();
    for at in r.clone() {
        let mut changed = bytes.clone();
        changed[at as usize] ^= 0x20;
        *store.data.lock().unwrap() = changed;
        match file.get(27) {
            Err(e) => assert_eq!(e.key(), Some(27), "{e}"),
            Ok(Some(b)) => assert!(
                b.as_view()
                    .iter()
                    .eq(whole.get(27).unwrap().unwrap().iter()),
                "byte {at}"
            ),
            Ok(None) => panic!("the key vanished"),
        }
    }
    // Opening: a failed tail read, a short one, a truncated or damaged file.
    let store = Store::new(bytes.clone());
    store.fail_from.store(0, Ordering::SeqCst);
    assert_eq!(
        RangedBitmapFile::open(&store).unwrap_err().kind(),
        ErrorKind::Io
    );
    let store = Store::new(bytes.clone());
    store.short_from.store(0, Ordering::SeqCst);
    assert_eq!(
        RangedBitmapFile::open(&store).unwrap_err().kind(),
        ErrorKind::Io
    );
    for cut in [0, 10, 47, bytes.len() - 1] {
        assert!(RangedBitmapFile::open(&bytes[..cut]).is_err(), "cut {cut}");
    }
    for at in (0..bytes.len()).filter(|&i| i < 16 || i >= bytes.len() - 40 * 24 - 32) {
        let mut d = bytes.clone();
        d[at] ^= 1;
        for tail in [32, 1 << 16] {
            // With a tail short of the file, the header is never read (its content is
            // authenticated through the footer's checksum instead): damage there is not
            // seen, and harms no lookup.
            if tail == 32 && at < 16 {
                continue;
            }
            let opts = RangedOptions {
                tail_bytes: tail,
                ..RangedOptions::default()
            };
            let ranged = RangedBitmapFile::open_with(&d[..], opts).map(|f| f.len());
            let local = BitmapFile::from_bytes(&d[..]).map(|f| f.len());
            assert_eq!(ranged.is_ok(), local.is_ok(), "byte {at}, tail {tail}");
        }
    }
}

#[test]
fn files_on_disk_are_read_with_positioned_reads() {
    let bytes = file_of(1000, true);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.frf");
    std::fs::write(&path, &bytes).unwrap();
    let file = RangedBitmapFile::open(std::fs::File::open(&path).unwrap()).unwrap();
    let whole = BitmapFile::from_bytes(&bytes[..]).unwrap();
    let keys: Vec<u64> = (0..1000).step_by(37).map(|k| k * 3).collect();
    for (k, b) in keys.iter().zip(file.get_many(&keys).unwrap()) {
        assert!(
            b.unwrap()
                .as_view()
                .iter()
                .eq(whole.get(*k).unwrap().unwrap().iter())
        );
    }
}
