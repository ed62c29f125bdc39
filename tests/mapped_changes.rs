//! A mapped file whose bytes change while it is queried (another process rewriting it in
//! place, against `BitmapFile::open`'s documented condition) may give wrong answers but
//! never a panic or an out-of-bounds read: a second, writable mapping of the same file
//! flips bytes of the bitmaps' directories and payloads, and puts them back, while this
//! thread runs every query and set operation on views opened through the first mapping.
#![cfg(all(feature = "mmap", unix))]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use frozen_roaring::{BitmapFile, FileWriter, FrozenBitmap, Writer};

/// A small xorshift generator, so that runs are repeatable.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Bitmaps of every container kind whose keys overlap, so that the many-way operations
/// group containers by key (the two-pass path) as well as through the heap.
fn build(path: &std::path::Path) {
    let mut w = FileWriter::create(path).unwrap();
    for k in 0..24u64 {
        let step = 1 + (k as u32 % 5) * 3;
        let base = (k as u32 % 7) << 16;
        let values: Vec<u32> = match k % 4 {
            0 => (base..base + 300_000).step_by(step as usize).collect(),
            1 => (base..base + 200_000).filter(|v| v % 1000 < 600).collect(),
            2 => (0..40).map(|i| base + i * 70_001 + k as u32).collect(),
            _ => (base..base + 500_000).step_by(61).collect(),
        };
        w.add_sorted(k, values).unwrap();
    }
    w.commit().unwrap();
}

/// Every query and operation, on whichever bitmaps open; the answers are not checked (the
/// bytes are changing), only that each call returns.
fn query_everything(file: &BitmapFile<memmap2::Mmap>, w: &mut Writer, out: &mut Vec<u8>) -> u64 {
    let views: Vec<FrozenBitmap<'_>> = (0..24).filter_map(|k| file.get(k).ok().flatten()).collect();
    let mut sink = 0u64;
    for v in &views {
        sink += v.len() + v.rank(100_000) + u64::from(v.select(5).unwrap_or(0));
        sink += u64::from(v.contains(70_001)) + v.iter().take(500).count() as u64;
        sink += v.iter().rev().take(100).count() as u64 + v.range_cardinality(1000..400_000);
        sink += v.statistics().total_bytes;
        sink += v.to_vec().len() as u64;
    }
    for pair in views.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        sink += a.intersection_len(b) + a.union_len(b) + a.difference_len(b);
        sink += u64::from(a.is_subset(b));
        for op in 0..4 {
            out.clear();
            let r = match op {
                0 => w.intersection_into(a, b, out),
                1 => w.union_into(a, b, out),
                2 => w.difference_into(a, b, out),
                _ => w.symmetric_difference_into(a, b, out),
            };
            sink += r.map_or(0, |r| r.len() as u64);
        }
    }
    for op in 0..4 {
        out.clear();
        let r = match op {
            0 => w.union_many_into(&views, out),
            1 => w.intersection_many_into(&views, out),
            2 => w.difference_many_into(&views, out),
            _ => w.symmetric_difference_many_into(&views, out),
        };
        sink += r.map_or(0, |r| r.len() as u64);
    }
    sink += w.union_many_len(&views) + w.symmetric_difference_many_len(&views);
    sink
}

#[test]
fn bytes_changing_under_the_map_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("changing.frf");
    build(&path);
    let file = BitmapFile::open(&path).unwrap();
    // Each bitmap's header and directory (16 + 12 bytes a container), where a change
    // moves keys, counts and offsets; and its payloads.
    let base = file.as_bytes().as_ptr() as usize;
    let mut dirs = Vec::new();
    let mut payloads = Vec::new();
    for r in file.iter() {
        let (_, bm) = r.unwrap();
        let at = bm.as_bytes().as_ptr() as usize - base;
        let head = 16 + 12 * bm.container_count();
        dirs.push(at..at + head);
        payloads.push(at + head..at + bm.as_bytes().len());
    }
    let writable = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    // SAFETY: the test owns the file; the writable map only changes bytes in place (never
    // the length), which is what this test is about.
    let mut map = unsafe { memmap2::MmapMut::map_mut(&writable) }.unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let flipper = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
            let mut flips = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let r = rng.next();
                let pick = |spans: &[std::ops::Range<usize>], x: u64| {
                    let s = &spans[x as usize % spans.len()];
                    s.start + (x >> 20) as usize % (s.end - s.start).max(1)
                };
                // Mostly directories (keys, cardinalities, offsets), sometimes payloads.
                let at = if r.is_multiple_of(4) {
                    pick(&payloads, r >> 2)
                } else {
                    pick(&dirs, r >> 2)
                };
                let old = map[at];
                map[at] = old ^ (1 << (r % 8)) as u8;
                for _ in 0..(rng.next() % 4096) {
                    std::hint::spin_loop();
                }
                map[at] = old;
                flips += 1;
            }
            flips
        })
    };
    // Seconds of queries (FROZEN_ROARING_CHANGING_SECS for a longer run).
    let secs: f64 = std::env::var("FROZEN_ROARING_CHANGING_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2.0);
    let start = std::time::Instant::now();
    let mut w = Writer::new();
    let mut out = Vec::new();
    let mut sink = 0u64;
    while start.elapsed().as_secs_f64() < secs {
        sink = sink.wrapping_add(query_everything(&file, &mut w, &mut out));
    }
    stop.store(true, Ordering::Relaxed);
    let flips = flipper.join().unwrap();
    assert!(flips > 1000, "the bytes changed {flips} times");
    // With the bytes back as written, the file is whole and answers exactly again.
    file.verify().unwrap();
    std::hint::black_box(sink);
}
