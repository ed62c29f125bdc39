//! `inspect` and `validate` on local inputs: a bitmap file's header, directory and
//! container statistics (or one key's bitmap), a single bitmap's, and the strict checks.

use std::io::{self, Write};
use std::path::Path;

use frozen_roaring::{Format, FrozenBitmap, FrozenBitmap64, Statistics};

use crate::{Fail, Input, Result, dv, fail, num, open_input, stdout_error, usage};

pub(crate) fn stats_line(s: &Statistics) -> String {
    format!(
        "{} containers: {} array ({} values, {} B), {} bitset ({} values, {} B), {} run ({} values, {} B); metadata {} B",
        num(s.containers.into()),
        num(s.array_containers.into()),
        num(s.array_values),
        num(s.array_bytes),
        num(s.bitset_containers.into()),
        num(s.bitset_values),
        num(s.bitset_bytes),
        num(s.run_containers.into()),
        num(s.run_values),
        num(s.run_bytes),
        num(s.metadata_bytes)
    )
}

pub(crate) fn format_name(f: Format) -> &'static str {
    match f {
        Format::Frozen => "frozen",
        Format::Portable => "portable",
        _ => "another",
    }
}

/// "min 1, max 9" or "empty".
pub(crate) fn min_max<T: std::fmt::Display>(min: Option<T>, max: Option<T>) -> String {
    match (min, max) {
        (Some(a), Some(b)) => format!("min {a}, max {b}"),
        _ => "empty".to_string(),
    }
}

pub(crate) fn first_values<T: ToString>(values: impl Iterator<Item = T>) -> String {
    let first: Vec<String> = values.take(10).map(|v| v.to_string()).collect();
    if first.is_empty() {
        "first values: none".to_string()
    } else {
        format!("first values: {}", first.join(","))
    }
}

/// Describes one 32-bit bitmap (of a file's key, or a single bitmap).
pub(crate) fn describe(what: &str, bm: &FrozenBitmap<'_>) -> Result<()> {
    say!(
        "{what}: {} values, {} bytes, {} format, {}",
        num(bm.len()),
        num(bm.as_bytes().len() as u64),
        format_name(bm.format()),
        if bm.has_checksum() {
            "with CRC32C checksum"
        } else {
            "no checksum"
        }
    );
    say!("{}", min_max(bm.min(), bm.max()));
    say!("{}", stats_line(&bm.statistics()));
    say!("{}", first_values(bm.iter()));
    Ok(())
}

pub(crate) fn describe64(path: &Path, bm: &FrozenBitmap64<'_>) -> Result<()> {
    say!(
        "bitmap {}: 64-bit {} format, {} values, {} bytes, {} buckets, {}",
        path.display(),
        format_name(bm.format()),
        num(bm.len()),
        num(bm.as_bytes().len() as u64),
        num(bm.bucket_count() as u64),
        if bm.has_checksum() {
            "with CRC32C checksum"
        } else {
            "no checksum"
        }
    );
    say!("{}", min_max(bm.min(), bm.max()));
    let mut total = Statistics::default();
    for (_, b) in bm.buckets() {
        total += b.statistics();
    }
    say!("{}", stats_line(&total));
    say!("{}", first_values(bm.iter()));
    Ok(())
}

pub(crate) fn inspect(path: &Path, key: Option<u64>, offset: Option<u64>) -> Result<()> {
    if key.is_none()
        && let Some(()) = dv::inspect(path, offset)?
    {
        return Ok(());
    }
    if offset.is_some() {
        return usage("--offset is for deletion-vector files");
    }
    let file = match open_input(path)? {
        Input::File(f) => f,
        single => {
            if key.is_some() {
                return usage(format!(
                    "{} is one bitmap: it has no keys; drop KEY",
                    path.display()
                ));
            }
            return match single {
                Input::Bitmap(bytes) => {
                    let bm = FrozenBitmap::from_bytes(&bytes)?;
                    describe(&format!("bitmap {}", path.display()), &bm)
                }
                Input::Bitmap64(bytes) => describe64(path, &FrozenBitmap64::from_bytes(&bytes)?),
                Input::File(_) => Ok(()),
            };
        }
    };
    let bytes = file.as_bytes().len() as u64;
    if let Some(k) = key {
        let Some(bm) = file
            .get(k)
            .map_err(|e| Fail::Msg(format!("{}: key {k}: {e}", path.display())))?
        else {
            return fail(format!(
                "key {k} is not in {} (list keys with `inspect FILE`)",
                path.display()
            ));
        };
        return describe(&format!("key {k}"), &bm);
    }
    let n = file.len() as u64;
    say!(
        "file {}: frozen-roaring bitmap file version {}, {} bytes",
        path.display(),
        file.version(),
        num(bytes)
    );
    say!(
        "keys: {}{}; bitmap checksums: {}; directory: {} bytes",
        num(n),
        match (file.keys().next(), file.keys().next_back()) {
            (Some(a), Some(b)) => format!(" ({a} ..= {b})"),
            _ => String::new(),
        },
        if file.has_bitmap_checksums() {
            "yes"
        } else {
            "no"
        },
        num(n * 24 + 32)
    );
    let mut total = Statistics::default();
    let mut values = 0u64;
    let (mut largest, mut largest_key) = (0u64, None);
    for r in file.iter() {
        let (k, bm) = r.map_err(|e| Fail::Msg(format!("{}: {e}", path.display())))?;
        values += bm.len();
        if largest_key.is_none() || bm.len() > largest {
            (largest, largest_key) = (bm.len(), Some(k));
        }
        total += bm.statistics();
    }
    match largest_key {
        Some(k) if values > 0 => say!(
            "values: {} ({:.3} bytes/value); largest bitmap: key {k} with {} values",
            num(values),
            bytes as f64 / values as f64,
            num(largest)
        ),
        _ => say!("values: 0"),
    }
    say!("{}", stats_line(&total));
    say!(
        "padding between bitmaps: {} bytes",
        num(bytes.saturating_sub(total.total_bytes + 16 + n * 24 + 32))
    );
    Ok(())
}

pub(crate) fn validate(path: &Path) -> Result<()> {
    let named = |e: frozen_roaring::Error| Fail::Msg(format!("{}: {e}", path.display()));
    match open_input(path)? {
        Input::File(file) => {
            file.verify().map_err(named)?;
            let mut values = 0u64;
            for r in file.iter() {
                values += r.map_err(named)?.1.len();
            }
            let checks = if file.has_bitmap_checksums() {
                "the directory's and every bitmap's checksum and every invariant verified"
            } else {
                "the directory's checksum and every invariant verified; the bitmaps have no checksums, so some payload damage cannot be detected"
            };
            say!(
                "ok: {} bitmaps, {} values, {} bytes, {checks}",
                num(file.len() as u64),
                num(values),
                num(file.as_bytes().len() as u64)
            );
        }
        Input::Bitmap(bytes) => {
            let bm = FrozenBitmap::from_bytes_strict(&bytes).map_err(named)?;
            say!(
                "ok: one {} bitmap, {} values, {} bytes, {}",
                format_name(bm.format()),
                num(bm.len()),
                num(bytes.len() as u64),
                if bm.has_checksum() {
                    "its checksum and every invariant verified"
                } else {
                    "every invariant verified (it has no checksum)"
                }
            );
        }
        Input::Bitmap64(bytes) => {
            let bm = FrozenBitmap64::from_bytes_strict(&bytes).map_err(named)?;
            say!(
                "ok: one 64-bit {} bitmap, {} values, {} bytes, every invariant verified",
                format_name(bm.format()),
                num(bm.len()),
                num(bytes.len() as u64)
            );
        }
    }
    Ok(())
}
