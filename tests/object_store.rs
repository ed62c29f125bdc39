//! Bitmap files and deletion vectors in object storage (feature `object_store`): through
//! `object_store`'s in-memory store wrapped to count requests and add latency, and through
//! a real S3-protocol server (moto's server mode, started here on 127.0.0.1; `.ci/run`
//! installs it from PyPI): every lookup equals the same file read locally, and the number
//! of requests is what `RangedBitmapFile` promises. The S3 test skips, saying so, only
//! where `moto_server` cannot start.
#![cfg(feature = "object_store")]

use std::borrow::Cow;
use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::ops::Range;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use frozen_roaring::{
    BitmapFile, DeletionVector, FileWriter, ObjectStoreSource, RangeSource, RangedBitmapFile,
    Writer,
};
use object_store::ObjectStore;
use object_store::memory::InMemory;
use object_store::path::Path;

/// Counts the requests that reach the inner source and adds a latency to each.
struct Counted<S> {
    inner: S,
    requests: AtomicU64,
    latency: Duration,
}

impl<S: RangeSource> RangeSource for Counted<S> {
    fn size(&self) -> io::Result<u64> {
        self.requests.fetch_add(1, Ordering::SeqCst);
        std::thread::sleep(self.latency);
        self.inner.size()
    }
    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        self.requests.fetch_add(1, Ordering::SeqCst);
        std::thread::sleep(self.latency);
        self.inner.read_range(range)
    }
    fn read_suffix(&self, n: u64) -> io::Result<(u64, Cow<'_, [u8]>)> {
        self.requests.fetch_add(1, Ordering::SeqCst);
        std::thread::sleep(self.latency);
        self.inner.read_suffix(n)
    }
}

fn file_of(keys: u64) -> Vec<u8> {
    let mut w = FileWriter::new(Vec::new());
    for k in 0..keys {
        let v = k as u32;
        w.add_sorted(k * 2, [v, v + 3, v | 1 << 30]).unwrap();
    }
    w.finish().unwrap()
}

/// Every lookup of `keys` through `ranged` equals the local file's.
fn same_as_local<S: RangeSource + Sync>(
    ranged: &RangedBitmapFile<S>,
    local: &BitmapFile<&[u8]>,
    keys: &[u64],
) {
    for (k, got) in keys.iter().zip(ranged.get_many(keys).unwrap()) {
        let want = local.get(*k).unwrap();
        assert_eq!(got.is_some(), want.is_some(), "key {k}");
        if let (Some(g), Some(w)) = (got, want) {
            assert!(g.as_view().iter().eq(w.iter()), "key {k}");
        }
    }
}

#[test]
fn in_memory_store_counted_with_latency() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let bytes = file_of(100_000);
    let local = BitmapFile::from_bytes(&bytes[..]).unwrap();
    let source = ObjectStoreSource::new(store.clone(), Path::from("big.frf")).unwrap();
    source
        .block_on(store.put(&Path::from("big.frf"), bytes.clone().into()))
        .unwrap();
    let small = file_of(30);
    source
        .block_on(store.put(&Path::from("small.frf"), small.clone().into()))
        .unwrap();
    let counted = Counted {
        inner: source,
        requests: AtomicU64::new(0),
        latency: Duration::from_millis(2),
    };
    let file = RangedBitmapFile::open(&counted).unwrap();
    // One suffix request (footer; the 2.4 MB directory does not fit), one for the directory.
    assert_eq!(counted.requests.load(Ordering::SeqCst), 2);
    assert_eq!(file.len(), local.len());
    let before = counted.requests.load(Ordering::SeqCst);
    assert!(
        file.get(1234).unwrap().unwrap().as_view().iter().eq(local
            .get(1234)
            .unwrap()
            .unwrap()
            .iter())
    );
    assert_eq!(counted.requests.load(Ordering::SeqCst) - before, 1);
    let clustered: Vec<u64> = (500..600).map(|k| k * 2).collect();
    let before = counted.requests.load(Ordering::SeqCst);
    same_as_local(&file, &local, &clustered);
    assert_eq!(counted.requests.load(Ordering::SeqCst) - before, 1);
    let scattered: Vec<u64> = (0..100).map(|i| i * 1999).collect();
    let before = counted.requests.load(Ordering::SeqCst);
    same_as_local(&file, &local, &scattered);
    let used = counted.requests.load(Ordering::SeqCst) - before;
    assert!((1..=100).contains(&used), "{used}");
    // A small file opens in one request.
    let small_source = ObjectStoreSource::new(store, Path::from("small.frf")).unwrap();
    let counted = Counted {
        inner: small_source,
        requests: AtomicU64::new(0),
        latency: Duration::ZERO,
    };
    let file = RangedBitmapFile::open(&counted).unwrap();
    assert_eq!(counted.requests.load(Ordering::SeqCst), 1);
    let local = BitmapFile::from_bytes(&small[..]).unwrap();
    same_as_local(&file, &local, &(0..70).collect::<Vec<_>>());
    // A missing object is an I/O error.
    let missing = ObjectStoreSource::new(Arc::new(InMemory::new()), Path::from("none")).unwrap();
    assert_eq!(
        RangedBitmapFile::open(missing).unwrap_err().kind(),
        frozen_roaring::ErrorKind::Io
    );
}

/// moto's S3 server on a free port, stopped when dropped.
struct Moto {
    child: Child,
    port: u16,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_moto() -> Option<Moto> {
    let port = TcpListener::bind("127.0.0.1:0")
        .ok()?
        .local_addr()
        .ok()?
        .port();
    let child = Command::new("moto_server")
        .args(["-H", "127.0.0.1", "-p", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let child = match child {
        Ok(c) => c,
        Err(e) => {
            println!(
                "NOTE: moto_server cannot start ({e}); the S3 test is skipped (pip install \"moto[server]\")"
            );
            return None;
        }
    };
    let moto = Moto { child, port };
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline {
            println!("NOTE: moto_server did not listen within 30 s; the S3 test is skipped");
            return None;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Some(moto)
}

/// Creates a bucket with a bare HTTP request (the S3 API's CreateBucket).
fn create_bucket(port: u16, bucket: &str) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "PUT /{bucket} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
}

#[test]
fn s3_server_serves_bitmap_files_and_deletion_vectors() {
    let Some(moto) = start_moto() else { return };
    create_bucket(moto.port, "bitmaps");
    let options = [
        ("aws_endpoint", format!("http://127.0.0.1:{}", moto.port)),
        ("aws_allow_http", "true".into()),
        ("aws_access_key_id", "test".into()),
        ("aws_secret_access_key", "test".into()),
        ("aws_region", "us-east-1".into()),
    ];
    let bytes = file_of(20_000);
    let source = ObjectStoreSource::from_url("s3://bitmaps/postings.frf", options.clone()).unwrap();
    source
        .block_on(source.store().put(source.path(), bytes.clone().into()))
        .unwrap();
    let local = BitmapFile::from_bytes(&bytes[..]).unwrap();
    let file = RangedBitmapFile::open(source).unwrap();
    assert_eq!(file.stats().requests, 2);
    same_as_local(
        &file,
        &local,
        &(0..300).map(|i| i * 131).collect::<Vec<_>>(),
    );
    let before = file.stats().requests;
    assert!(file.get(7).unwrap().is_none());
    assert!(
        file.get(8)
            .unwrap()
            .unwrap()
            .as_view()
            .iter()
            .eq(local.get(8).unwrap().unwrap().iter())
    );
    assert_eq!(file.stats().requests - before, 1);

    // A Delta DV file: two frames after the version byte, each read by its range.
    let mut dv_file = vec![1u8];
    let mut w = Writer::new();
    let a = w
        .write_deletion_vector([3u64, 5, 1 << 35], &mut dv_file)
        .unwrap();
    let b = w.write_deletion_vector(0..70_000u64, &mut dv_file).unwrap();
    let dv_source =
        ObjectStoreSource::from_url("s3://bitmaps/deletion_vector_x.bin", options).unwrap();
    dv_source
        .block_on(
            dv_source
                .store()
                .put(dv_source.path(), dv_file.clone().into()),
        )
        .unwrap();
    for (r, len) in [(a, 3), (b, 70_000)] {
        let frame = dv_source.read_range(r.start as u64..r.end as u64).unwrap();
        let dv = DeletionVector::from_bytes_strict(&frame).unwrap();
        assert_eq!(dv.len(), len);
        assert_eq!(frame[..], dv_file[r]);
    }
}

/// The asynchronous forms on the caller's runtime (here the runtime of a second source):
/// the same answers and the same requests as the blocking ones.
#[test]
fn async_forms_answer_as_the_blocking_ones() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let bytes = file_of(50_000);
    let path = Path::from("async.frf");
    let runner = ObjectStoreSource::new(store.clone(), path.clone()).unwrap();
    runner
        .block_on(store.put(&path, bytes.clone().into()))
        .unwrap();
    let local = BitmapFile::from_bytes(&bytes[..]).unwrap();
    let keys: Vec<u64> = (0..200).map(|i| i * 499).chain(1000..1100).collect();
    let (got, stats) = runner.block_on(async {
        let source = ObjectStoreSource::new(store.clone(), path.clone()).unwrap();
        let file = RangedBitmapFile::open_async(source, frozen_roaring::RangedOptions::default())
            .await
            .unwrap();
        assert_eq!(file.stats().requests, 2);
        let one = file.get_async(998).await.unwrap().unwrap();
        assert!(
            one.as_view()
                .iter()
                .eq(local.get(998).unwrap().unwrap().iter())
        );
        assert_eq!(file.stats().requests, 3);
        assert!(file.get_async(999).await.unwrap().is_none());
        (file.get_many_async(&keys).await.unwrap(), file.stats())
    });
    for (k, g) in keys.iter().zip(&got) {
        let want = local.get(*k).unwrap();
        assert_eq!(g.is_some(), want.is_some());
        if let (Some(g), Some(w)) = (g, want) {
            assert!(g.as_view().iter().eq(w.iter()), "key {k}");
        }
    }
    // The blocking form makes the same requests for the same batch.
    let source = ObjectStoreSource::new(store, path).unwrap();
    let file = RangedBitmapFile::open(source).unwrap();
    file.get(998).unwrap();
    file.get_many(&keys).unwrap();
    assert_eq!(file.stats().requests, stats.requests);
}
