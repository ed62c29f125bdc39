//! Bitmap files on high-latency storage: a store that adds a fixed latency to every request
//! (20 ms, about one object-store round trip) and transfers 100 MB/s per request, and counts
//! requests and bytes, in front of a
//! file of a million keys. For (a) one key, (b) 100 random keys and (c) 100 clustered keys:
//! the time, requests and bytes of `RangedBitmapFile` (open included), against downloading
//! the whole file and opening it, and against one request per key with no merging.
//!
//! ```text
//! cargo run --release --example ranged_latency            # 20 ms, 1,000,000 keys
//! LATENCY_MS=5 MB_PER_S=500 KEYS=200000 cargo run --release --example ranged_latency
//! ```

use std::borrow::Cow;
use std::io;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use frozen_roaring::{BitmapFile, FileWriter, RangeSource, RangedBitmapFile, RangedOptions};

/// A store in memory with a fixed latency per request and a bandwidth per connection,
/// counting requests and bytes; suffix reads are one request, as on object stores.
struct Slow {
    data: Vec<u8>,
    latency: Duration,
    /// Bytes per second of one request.
    bandwidth: f64,
    requests: AtomicU64,
    bytes: AtomicU64,
}

impl Slow {
    fn serve(&self, range: Range<u64>) -> &[u8] {
        let n = range.end - range.start;
        std::thread::sleep(self.latency + Duration::from_secs_f64(n as f64 / self.bandwidth));
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(n, Ordering::Relaxed);
        &self.data[range.start as usize..range.end as usize]
    }
}

impl RangeSource for Slow {
    fn size(&self) -> io::Result<u64> {
        // A HEAD request.
        self.serve(0..0);
        Ok(self.data.len() as u64)
    }
    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        Ok(Cow::Borrowed(self.serve(range)))
    }
    fn read_suffix(&self, n: u64) -> io::Result<(u64, Cow<'_, [u8]>)> {
        let size = self.data.len() as u64;
        Ok((
            size,
            Cow::Borrowed(self.serve(size.saturating_sub(n)..size)),
        ))
    }
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let keys = env("KEYS", 1_000_000);
    let latency = Duration::from_millis(env("LATENCY_MS", 20));
    let bandwidth = env("MB_PER_S", 100) as f64 * 1e6;
    let mut w = FileWriter::new(Vec::new());
    let mut x = 7u64;
    for k in 0..keys {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let n = 1 + x % 40;
        w.add_sorted(k, (0..n as u32).map(|i| i * 97 + (k as u32 & 63)))
            .unwrap();
    }
    let data = w.finish().unwrap();
    println!(
        "file: {keys} keys, {:.1} MB; {} ms and {} MB/s per request\n",
        data.len() as f64 / 1e6,
        latency.as_millis(),
        bandwidth / 1e6
    );
    let store = Slow {
        data,
        latency,
        bandwidth,
        requests: AtomicU64::new(0),
        bytes: AtomicU64::new(0),
    };
    let mut rng = {
        let mut x = 99u64;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    };
    let one = vec![rng() % keys];
    let random: Vec<u64> = (0..100).map(|_| rng() % keys).collect();
    let start = rng() % (keys - 100);
    let clustered: Vec<u64> = (start..start + 100).collect();
    println!("| query | method | time | requests | bytes |");
    println!("| --- | --- | ---: | ---: | ---: |");
    for (name, keys) in [
        ("(a) one key", &one),
        ("(b) 100 random keys", &random),
        ("(c) 100 clustered keys", &clustered),
    ] {
        for method in [
            "ranged (merged, concurrent)",
            "ranged, one request per key",
            "download whole file",
        ] {
            store.requests.store(0, Ordering::Relaxed);
            store.bytes.store(0, Ordering::Relaxed);
            let t = Instant::now();
            let values: u64 = match method {
                "download whole file" => {
                    let size = store.size().unwrap();
                    let all = store.read_range(0..size).unwrap();
                    let file = BitmapFile::from_bytes(&all[..]).unwrap();
                    keys.iter()
                        .map(|&k| file.get(k).unwrap().map_or(0, |b| b.len()))
                        .sum()
                }
                _ => {
                    let merge_gap = if method.contains("one request") {
                        0
                    } else {
                        256 << 10
                    };
                    let file = RangedBitmapFile::open_with(
                        &store,
                        RangedOptions {
                            merge_gap,
                            ..RangedOptions::default()
                        },
                    )
                    .unwrap();
                    if method.contains("one request") {
                        keys.iter()
                            .map(|&k| file.get(k).unwrap().map_or(0, |b| b.len()))
                            .sum()
                    } else {
                        file.get_many(keys)
                            .unwrap()
                            .iter()
                            .map(|b| b.as_ref().map_or(0, |b| b.len()))
                            .sum()
                    }
                }
            };
            let elapsed = t.elapsed();
            assert!(values > 0);
            println!(
                "| {name} | {method} | {:.0} ms | {} | {} |",
                elapsed.as_secs_f64() * 1e3,
                store.requests.load(Ordering::Relaxed),
                store.bytes.load(Ordering::Relaxed)
            );
        }
    }
}
