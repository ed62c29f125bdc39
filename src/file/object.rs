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

use super::ranged::RangeSource;
use crate::error::Error;

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
    runtime: Arc<tokio::runtime::Runtime>,
}

impl ObjectStoreSource {
    /// The object at `path` in `store`, with a runtime of its own (two worker threads:
    /// requests wait on the network, not on the CPU).
    ///
    /// # Errors
    ///
    /// `Io` if the runtime cannot start.
    pub fn new(store: Arc<dyn ObjectStore>, path: Path) -> Result<ObjectStoreSource, Error> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| Error::io("start the runtime for", None, e))?;
        Ok(ObjectStoreSource::with_runtime(
            store,
            path,
            Arc::new(runtime),
        ))
    }

    /// The object at `path` in `store`, its requests run on `runtime`.
    pub fn with_runtime(
        store: Arc<dyn ObjectStore>,
        path: Path,
        runtime: Arc<tokio::runtime::Runtime>,
    ) -> ObjectStoreSource {
        ObjectStoreSource {
            store,
            path,
            runtime,
        }
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
    pub fn block_on<F: core::future::Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
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
        let meta = self
            .block_on(self.store.head(&self.path))
            .map_err(io_error)?;
        Ok(meta.size)
    }

    fn read_range(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        if range.start >= range.end {
            return Ok(Cow::Borrowed(&[]));
        }
        let bytes = self
            .block_on(self.store.get_range(&self.path, range))
            .map_err(io_error)?;
        Ok(Cow::Owned(bytes.to_vec()))
    }

    /// One suffix request: its answer carries the object's size.
    fn read_suffix(&self, n: u64) -> io::Result<(u64, Cow<'_, [u8]>)> {
        let options = GetOptions {
            range: Some(GetRange::Suffix(n)),
            ..GetOptions::default()
        };
        let (size, bytes) = self
            .block_on(async {
                let r = self.store.get_opts(&self.path, options).await?;
                let size = r.meta.size;
                Ok::<_, object_store::Error>((size, r.bytes().await?))
            })
            .map_err(io_error)?;
        Ok((size, Cow::Owned(bytes.to_vec())))
    }
}
