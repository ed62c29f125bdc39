//! Bitmap files at a URL (`s3://`, `gs://`, `az://`, `http(s)://`, `file://`), read by
//! ranges through `object_store`, configured from the environment as its builders read it
//! (`AWS_ENDPOINT`, `AWS_ALLOW_HTTP`, `AWS_ACCESS_KEY_ID`, ...): `inspect`, `validate` and
//! `query` without downloading the file.

use std::io::{self, Write};
use std::path::Path;
use std::time::Instant;

use frozen_roaring::{FrozenBitmap, ObjectStoreSource, RangedBitmapFile};

use crate::inspect::describe;
use crate::query::{answer, operation};
use crate::{Fail, QueryArgs, Result, fail, num, stdout_error};

/// Whether a file argument is a URL.
pub(crate) fn is_url(p: &Path) -> bool {
    p.to_str().is_some_and(|s| s.contains("://"))
}

fn open(url: &Path) -> Result<RangedBitmapFile<ObjectStoreSource>> {
    let u = url.to_string_lossy();
    let named = |e: frozen_roaring::Error| Fail::Msg(format!("{u}: {e}"));
    let source = ObjectStoreSource::from_url_env(&u).map_err(named)?;
    RangedBitmapFile::open(source).map_err(named)
}

/// `--stats`: what was read, on standard error.
fn stats<S: frozen_roaring::RangeSource>(file: &RangedBitmapFile<S>, on: bool) {
    if on {
        let s = file.stats();
        let _ = writeln!(
            io::stderr(),
            "read: {} requests, {} bytes",
            s.requests,
            s.bytes
        );
    }
}

pub(crate) fn inspect(url: &Path, key: Option<u64>, show: bool) -> Result<()> {
    let file = open(url)?;
    let u = url.display();
    if let Some(k) = key {
        let Some(b) = file.get(k).map_err(|e| Fail::Msg(format!("{u}: {e}")))? else {
            return fail(format!(
                "key {k} is not in {u} (list keys with `inspect FILE`)"
            ));
        };
        describe(&format!("key {k}"), &b.as_view())?;
    } else {
        say!(
            "file {u}: frozen-roaring bitmap file, {} bytes (read by ranges)",
            num(file.size())
        );
        say!(
            "keys: {}{}; bitmap checksums: {}; directory: {} bytes",
            num(file.len() as u64),
            match (file.keys().next(), file.keys().next_back()) {
                (Some(a), Some(b)) => format!(" ({a} ..= {b})"),
                _ => String::new(),
            },
            if file.has_bitmap_checksums() {
                "yes"
            } else {
                "no"
            },
            num(file.len() as u64 * 24 + 32)
        );
    }
    stats(&file, show);
    Ok(())
}

pub(crate) fn validate(url: &Path, show: bool) -> Result<()> {
    let file = open(url)?;
    let keys: Vec<u64> = file.keys().collect();
    let mut values = 0u64;
    for chunk in keys.chunks(4096) {
        for b in file
            .get_many(chunk)
            .map_err(|e| Fail::Msg(format!("{}: {e}", url.display())))?
            .into_iter()
            .flatten()
        {
            b.as_view()
                .validate()
                .map_err(|e| Fail::Msg(format!("{}: {e}", url.display())))?;
            values += b.len();
        }
    }
    say!(
        "ok: {} bitmaps, {} values, {} bytes, {}",
        num(file.len() as u64),
        num(values),
        num(file.size()),
        if file.has_bitmap_checksums() {
            "the directory's and every bitmap's checksum and every invariant verified"
        } else {
            "the directory's checksum and every invariant verified; the bitmaps have no checksums, so some payload damage cannot be detected"
        }
    );
    stats(&file, show);
    Ok(())
}

pub(crate) fn query(a: &QueryArgs) -> Result<()> {
    let (keys, kind) = operation(a)?;
    let file = open(&a.file)?;
    let start = Instant::now();
    let got = file
        .get_many(keys)
        .map_err(|e| Fail::Msg(format!("{}: {e}", a.file.display())))?;
    let mut bufs = Vec::with_capacity(keys.len());
    for (k, b) in keys.iter().zip(got) {
        match b {
            Some(b) => bufs.push(b),
            None => {
                return fail(format!(
                    "key {k} is not in {} (list keys with `inspect`)",
                    a.file.display()
                ));
            }
        }
    }
    let views: Vec<FrozenBitmap<'_>> = bufs.iter().map(|b| b.as_view()).collect();
    answer(
        kind,
        &views,
        a.values,
        start,
        " (read by ranges, checksums verified)",
    )?;
    stats(&file, a.stats);
    Ok(())
}
