//! `query`: combine bitmaps of a file by key (`--and`, `--or`, `--andnot`) and print the
//! result's cardinality, then with `--values` its first values.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::time::Instant;

use frozen_roaring::{FrozenBitmap, FrozenBitmap64, Writer};

use crate::{Fail, Input, QueryArgs, Result, fail, open_input, stdout_error, usage};

/// Prints a cardinality, then the first `values` values, one per line.
pub(crate) fn print_result<T: std::fmt::Display>(
    len: u64,
    iter: impl Iterator<Item = T>,
    values: Option<u64>,
) -> Result<()> {
    let stdout = io::stdout();
    let mut o = BufWriter::new(stdout.lock());
    writeln!(o, "{len}").map_err(stdout_error)?;
    if let Some(n) = values {
        for v in iter.take(usize::try_from(n).unwrap_or(usize::MAX)) {
            writeln!(o, "{v}").map_err(stdout_error)?;
        }
    }
    o.flush().map_err(stdout_error)
}

pub(crate) fn query(a: QueryArgs) -> Result<()> {
    let file = match open_input(&a.file)? {
        Input::File(f) => f,
        Input::Bitmap(bytes) => {
            no_operation(&a)?;
            let bm = FrozenBitmap::from_bytes(&bytes)?;
            if !a.no_verify {
                bm.verify()
                    .map_err(|e| Fail::Msg(format!("{}: {e}", a.file.display())))?;
            }
            return print_result(bm.len(), bm.iter(), a.values);
        }
        Input::Bitmap64(bytes) => {
            no_operation(&a)?;
            let bm = FrozenBitmap64::from_bytes(&bytes)?;
            return print_result(bm.len(), bm.iter(), a.values);
        }
    };
    let (keys, kind) = operation(&a)?;
    let verify = file.has_bitmap_checksums() && !a.no_verify;
    if !file.has_bitmap_checksums() {
        let _ = writeln!(
            io::stderr(),
            "note: {} has no bitmap checksums: payload damage goes unnoticed here and is only caught (in part) by `frozen-roaring validate`",
            a.file.display()
        );
    }
    let start = Instant::now();
    let mut views = Vec::with_capacity(keys.len());
    for &k in keys {
        let got = if verify {
            file.get_verified(k)
        } else {
            file.get(k)
        };
        match got.map_err(|e| Fail::Msg(format!("{}: key {k}: {e}", a.file.display())))? {
            Some(b) => views.push(b),
            None => {
                return fail(format!(
                    "key {k} is not in {} (list keys with `inspect`)",
                    a.file.display()
                ));
            }
        }
    }
    answer(
        kind,
        &views,
        a.values,
        start,
        if verify { " (checksums verified)" } else { "" },
    )
}

/// Combines `views` (operation `kind`), prints the result, and says on standard error
/// what was done and how long it took since `start` (`how` ends that line).
pub(crate) fn answer(
    kind: usize,
    views: &[FrozenBitmap<'_>],
    values: Option<u64>,
    start: Instant,
    how: &str,
) -> Result<()> {
    let out = combine(kind, views)?;
    let result = FrozenBitmap::from_bytes(&out)?;
    let elapsed = start.elapsed();
    print_result(result.len(), result.iter(), values)?;
    let _ = writeln!(
        io::stderr(),
        "{} of {} bitmaps in {:.3} ms{how}",
        ["intersection", "union", "difference"][kind],
        views.len(),
        elapsed.as_secs_f64() * 1e3,
    );
    Ok(())
}

/// The operation (`OPS[kind]`) of `views`, written into a new buffer.
fn combine(kind: usize, views: &[FrozenBitmap<'_>]) -> Result<Vec<u8>> {
    let mut w = Writer::new();
    let mut out = Vec::new();
    match kind {
        0 => w.intersection_many_into(views, &mut out)?,
        1 => w.union_many_into(views, &mut out)?,
        _ => {
            let mut rest = Vec::new();
            let r = w.union_many_into(&views[1..], &mut rest)?;
            let rest = FrozenBitmap::from_bytes(&rest[r])?;
            w.difference_into(&views[0], &rest, &mut out)?
        }
    };
    Ok(out)
}

/// The operation a query asks for (0 and, 1 or, 2 andnot) and its keys.
pub(crate) fn operation(a: &QueryArgs) -> Result<(&Vec<u64>, usize)> {
    let (keys, kind) = match (&a.op.and, &a.op.or, &a.op.andnot) {
        (Some(k), _, _) => (k, 0),
        (_, Some(k), _) => (k, 1),
        (_, _, Some(k)) => (k, 2),
        _ => return usage("give --and, --or or --andnot with a comma-separated key list"),
    };
    if keys.is_empty() || (kind == 2 && keys.len() < 2) {
        return usage(
            "--andnot needs at least two keys (K1 minus the others); --and and --or at least one",
        );
    }
    Ok((keys, kind))
}

/// `--stats` for a local input: it is mapped or read whole, as one request.
pub(crate) fn local_stats(path: &Path, stats: bool) -> Result<()> {
    if stats {
        let bytes = fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let _ = writeln!(
            io::stderr(),
            "read: 1 requests, {bytes} bytes (a local file, mapped or read whole)"
        );
    }
    Ok(())
}

/// A single bitmap has no keys to combine.
fn no_operation(a: &QueryArgs) -> Result<()> {
    if a.op.and.is_some() || a.op.or.is_some() || a.op.andnot.is_some() {
        return usage(format!(
            "{} is one bitmap: it has no keys to combine; drop --and/--or/--andnot",
            a.file.display()
        ));
    }
    Ok(())
}
