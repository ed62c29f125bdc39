//! [`ObjectStoreSource`]: a [`RangeSource`] over any store of the `object_store` crate (S3,
//! GCS, Azure Blob, HTTP, local files, memory), so that a [`RangedBitmapFile`] reads bitmap
//! files where a DataFusion, delta-rs or iceberg-rust deployment already keeps its data,
//! with the same configuration.
//!
//! [`RangedBitmapFile`]: super::RangedBitmapFile

use alloc::borrow::Cow;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use core::ops::Range;
use std::io;

use object_store::path::Path;
use object_store::{GetOptions, GetRange, ObjectStore};

use super::ranged::{
    RangeSource, RangedBitmapFile, RangedOptions, Step, open_step, what_read, whole,
};
use super::{FILE_HEADER_LEN, FOOTER_LEN};
use crate::buf::FrozenBitmapBuf;
use crate::error::Error;
use alloc::vec::Vec;
use std::collections::HashMap;

/// One object of an `object_store` store, read by ranges. `object_store` is asynchronous;
/// this source runs its requests on a Tokio runtime of its own (or one you hand it), so
/// that lookups are plain calls (from async code, call them inside `spawn_blocking`).
/// Concurrent `get_many` requests run concurrently on that runtime. Retries are the
/// store's own (its `RetryConfig`).
///
/// ```
/// use std::sync::Arc;
/// use frozen_roaring::{FileWriter, ObjectStoreSource, RangedBitmapFile};
/// use object_store::{ObjectStore, memory::InMemory, path::Path};
/// let mut w = FileWriter::new(Vec::new());
/// w.add_sorted(7, [1, 2, 3])?;
/// let store = Arc::new(InMemory::new());
/// let source = ObjectStoreSource::new(store.clone(), Path::from("postings.frf"))?;
/// source.block_on(store.put(&Path::from("postings.frf"), w.finish()?.into()))
///     .expect("in memory");
/// let file = RangedBitmapFile::open(source)?;
/// assert_eq!(file.get(7)?.unwrap().len(), 3);
/// # Ok::<(), frozen_roaring::Error>(())
/// ```
pub struct ObjectStoreSource {
    store: Arc<dyn ObjectStore>,
    path: Path,
    /// The runtime the blocking calls run on, made at the first one: a source used only
    /// from async code never starts (or has to drop) one inside the caller's runtime.
    runtime: std::sync::OnceLock<Arc<tokio::runtime::Runtime>>,
}

impl ObjectStoreSource {
    /// The object at `path` in `store`. Its blocking calls run on a runtime of its own,
    /// started at the first one (two worker threads: requests wait on the network, not on
    /// the CPU); the `*_async` methods of [`RangedBitmapFile`] run on the caller's.
    ///
    /// # Errors
    ///
    /// None today; the `Result` leaves room for checks of the store.
    pub fn new(store: Arc<dyn ObjectStore>, path: Path) -> Result<ObjectStoreSource, Error> {
        Ok(ObjectStoreSource {
            store,
            path,
            runtime: std::sync::OnceLock::new(),
        })
    }

    /// The object at `path` in `store`, its blocking calls run on `runtime`.
    pub fn with_runtime(
        store: Arc<dyn ObjectStore>,
        path: Path,
        runtime: Arc<tokio::runtime::Runtime>,
    ) -> ObjectStoreSource {
        let cell = std::sync::OnceLock::new();
        let _ = cell.set(runtime);
        ObjectStoreSource {
            store,
            path,
            runtime: cell,
        }
    }

    /// The runtime of the blocking calls, started on first use.
    fn runtime(&self) -> io::Result<&Arc<tokio::runtime::Runtime>> {
        if let Some(r) = self.runtime.get() {
            return Ok(r);
        }
        let r = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        Ok(self.runtime.get_or_init(|| Arc::new(r)))
    }

    /// The object a URL names (`s3://bucket/key`, `gs://`, `az://`, `http(s)://`,
    /// `file:///path`), with the store configured from `options` (for example
    /// `std::env::vars()`: `AWS_ENDPOINT`, `AWS_ALLOW_HTTP`, `AWS_ACCESS_KEY_ID`, ...), as
    /// `object_store::parse_url_opts` reads them.
    ///
    /// # Errors
    ///
    /// `Io` for a URL that is not one or a store that cannot be configured from `options`.
    pub fn from_url<I, K, V>(url: &str, options: I) -> Result<ObjectStoreSource, Error>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: Into<String>,
    {
        let bad = |e: &dyn core::fmt::Display| {
            Error::io(
                "open",
                Some(std::path::Path::new(url)),
                io::Error::new(io::ErrorKind::InvalidInput, e.to_string()),
            )
        };
        let parsed = url::Url::parse(url).map_err(|e| bad(&e))?;
        let (store, path) = object_store::parse_url_opts(&parsed, options).map_err(|e| bad(&e))?;
        ObjectStoreSource::new(Arc::from(store), path)
    }

    /// The object a URL names, with the store configured from the environment as the
    /// `object_store` builders' `from_env` read it (`AWS_ENDPOINT`, `AWS_ALLOW_HTTP`,
    /// `AWS_ACCESS_KEY_ID`, `GOOGLE_SERVICE_ACCOUNT`, `AZURE_STORAGE_ACCOUNT_NAME`, ...).
    ///
    /// # Errors
    ///
    /// As [`from_url`](Self::from_url).
    pub fn from_url_env(url: &str) -> Result<ObjectStoreSource, Error> {
        ObjectStoreSource::from_url(
            url,
            std::env::vars().map(|(k, v)| (k.to_ascii_lowercase(), v)),
        )
    }

    /// Runs `future` on this source's runtime (for example to upload with the same store).
    ///
    /// # Panics
    ///
    /// If the runtime cannot start, or when called from inside an async runtime.
    pub fn block_on<F: core::future::Future>(&self, future: F) -> F::Output {
        self.runtime()
            .expect("the source's runtime starts")
            .block_on(future)
    }

    /// The block_on of the `RangeSource` calls: an I/O error if the runtime cannot start.
    fn run<T>(
        &self,
        future: impl core::future::Future<Output = object_store::Result<T>>,
    ) -> io::Result<T> {
        self.runtime()?.block_on(future).map_err(io_error)
    }

    async fn suffix_async(&self, n: u64) -> object_store::Result<(u64, bytes::Bytes)> {
        let options = GetOptions {
            range: Some(GetRange::Suffix(n)),
            ..GetOptions::default()
        };
        let r = self.store.get_opts(&self.path, options).await?;
        let size = r.meta.size;
        Ok((size, r.bytes().await?))
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn ObjectStore> {
        &self.store
    }

    /// The object's path in the store.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl core::fmt::Debug for ObjectStoreSource {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ObjectStoreSource")
            .field("store", &self.store.to_string())
            .field("path", &self.path.as_ref())
            .finish()
    }
}

fn io_error(e: object_store::Error) -> io::Error {
    let kind = match e {
        object_store::Error::NotFound { .. } => io::ErrorKind::NotFound,
        _ => io::ErrorKind::Other,
    };
    io::Error::new(kind, e.to_string())
}

impl RangeSource for ObjectStoreSource {
    fn size(&self) -> io::Result<u64> {
        Ok(self.run(self.store.head(&self.path))?.size)
    }

    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        if range.start >= range.end {
            return Ok(Cow::Borrowed(&[]));
        }
        let bytes = self.run(self.store.get_range(&self.path, range))?;
        Ok(Cow::Owned(bytes.to_vec()))
    }

    /// One suffix request: its answer carries the object's size.
    fn read_suffix(&self, n: u64) -> io::Result<(u64, Cow<'_, [u8]>)> {
        let (size, bytes) = self.run(self.suffix_async(n))?;
        Ok((size, Cow::Owned(bytes.to_vec())))
    }
}

/// The asynchronous forms, for callers inside a Tokio runtime (DataFusion, delta-rs,
/// iceberg-rust): the same checks, requests and cache as the blocking ones, on the
/// caller's runtime; `get_many_async` keeps at most
/// [`concurrency`](RangedOptions::concurrency) requests in flight.
impl RangedBitmapFile<ObjectStoreSource> {
    /// [`open_with`](RangedBitmapFile::open_with), awaiting the store.
    ///
    /// # Errors
    ///
    /// As `open_with`.
    pub async fn open_async(
        source: ObjectStoreSource,
        options: RangedOptions,
    ) -> Result<Self, Error> {
        let want = options.tail_bytes.max(FOOTER_LEN);
        let (size, tail) = source
            .suffix_async(want)
            .await
            .map_err(|e| Error::io(what_read("the footer"), None, io_error(e)))?;
        let mut reads = alloc::vec![tail.len() as u64];
        let (mut header, mut dir) = (None, None::<bytes::Bytes>);
        loop {
            match open_step(size, want, &tail, header, dir.as_deref())? {
                Step::Header => {
                    let h = fetch(&source, 0..FILE_HEADER_LEN, "the header").await?;
                    reads.push(h.len() as u64);
                    header = Some(h[..16].try_into().unwrap_or([0; 16]));
                }
                Step::Directory(r) => {
                    let d = fetch(&source, r, "the directory").await?;
                    reads.push(d.len() as u64);
                    dir = Some(d);
                }
                Step::Done(entries, flags) => {
                    let file = RangedBitmapFile::from_parts(source, options, size, entries, flags);
                    for n in reads {
                        file.count(n);
                    }
                    return Ok(file);
                }
            }
        }
    }

    /// [`get`](RangedBitmapFile::get), awaiting the store.
    ///
    /// # Errors
    ///
    /// As `get`.
    pub async fn get_async(&self, key: u64) -> Result<Option<Arc<FrozenBitmapBuf>>, Error> {
        let Some(range) = self.byte_range(key) else {
            return Ok(None);
        };
        if let Some(b) = self.cached(key) {
            return Ok(Some(b));
        }
        let bytes = fetch(self.get_ref(), range.clone(), "the bitmap of")
            .await
            .map_err(|e| e.for_entry(key, range.clone()))?;
        self.count(bytes.len() as u64);
        self.finish(key, range, &bytes).map(Some)
    }

    /// [`get_many`](RangedBitmapFile::get_many), awaiting the store.
    ///
    /// # Errors
    ///
    /// As `get_many`.
    pub async fn get_many_async(
        &self,
        keys: &[u64],
    ) -> Result<Vec<Option<Arc<FrozenBitmapBuf>>>, Error> {
        use futures::StreamExt;
        let groups = self.plan(keys);
        let mut reads = futures::stream::iter(groups.iter())
            .map(|(span, members)| async move {
                let bytes = fetch(self.get_ref(), span.clone(), "the bitmaps of")
                    .await
                    .map_err(|e| e.for_entry(members[0].0, span.clone()))?;
                self.count(bytes.len() as u64);
                self.split(span, members, &bytes)
            })
            .buffer_unordered(self.options().concurrency.max(1));
        let mut fetched = HashMap::new();
        while let Some(got) = reads.next().await {
            fetched.extend(got?);
        }
        Ok(self.assemble(keys, fetched))
    }
}

/// One ranged read of the store, awaited; a short answer is an error.
async fn fetch(
    source: &ObjectStoreSource,
    range: Range<u64>,
    what: &'static str,
) -> Result<bytes::Bytes, Error> {
    let want = range.end - range.start;
    let got = source
        .store
        .get_range(&source.path, range)
        .await
        .map_err(|e| Error::io(what_read(what), None, io_error(e)))?;
    whole(got.len(), want, what)?;
    Ok(got)
}
