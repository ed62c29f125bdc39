//! `build`: a bitmap file from a folder of text files or from `key<TAB>value` lines,
//! sorted in memory or in runs on disk and merged.

use super::*;

/// What a build read.
#[derive(Default)]
pub(super) struct Tally {
    /// Values (or pairs) read, duplicates included.
    read: u64,
    /// Duplicates dropped.
    duplicates: u64,
}

pub(super) fn build(a: BuildArgs) -> Result<()> {
    let start = Instant::now();
    let checksums = !a.no_checksums;
    let mut inputs = Vec::new();
    let files = match &a.source.from_text_dir {
        Some(dir) => list(dir, "txt")?,
        None => Vec::new(),
    };
    inputs.extend(files.iter().cloned());
    if let Some(tsv) = &a.source.from_tsv
        && tsv != Path::new("-")
    {
        inputs.push(tsv.clone());
    }
    if a.key_map.is_some() && files.is_empty() {
        return usage("--key-map goes with --from-text-dir (TSV lines carry their keys)");
    }
    check_output(&a.out, &inputs)?;
    let mut w = create(&a.out, checksums)?;
    let counts = if a.source.from_text_dir.is_some() {
        build_text(&files, &mut w)?
    } else if let Some(tsv) = &a.source.from_tsv {
        build_tsv(tsv, a.chunk_pairs.max(1), &mut w)?
    } else {
        return usage("give --from-text-dir DIR or --from-tsv PATH");
    };
    let (keys, values) = (w.count(), w.values());
    let bytes = commit(w, a.out.no_clobber)?;
    let secs = start.elapsed().as_secs_f64();
    if !files.is_empty() {
        report_keys(&files, a.key_map.as_deref())?;
    }
    let dups = if counts.duplicates > 0 {
        format!(" ({} duplicates dropped)", num(counts.duplicates))
    } else {
        String::new()
    };
    if values == 0 {
        let _ = writeln!(
            io::stderr(),
            "note: the input holds no values; {} is an empty bitmap file",
            a.out.output.display()
        );
        say!(
            "built {}: {} keys, 0 values{dups}, {} bytes, {secs:.2} s",
            a.out.output.display(),
            num(keys),
            num(bytes)
        );
        return Ok(());
    }
    // The bytes a portable file of the same bitmaps would take, read back from the output
    // when it is a regular file (not a device or pipe).
    let mut portable = String::new();
    if fs::metadata(&a.out.output).is_ok_and(|m| m.is_file()) {
        let file = open_file(&a.out.output)?;
        let writer = Writer::new();
        let mut sum = 0u64;
        for r in file.iter() {
            sum += writer.portable_size(&r?.1) as u64;
        }
        portable = format!(
            ", portable format {} bytes (ratio {:.3})",
            num(sum),
            bytes as f64 / sum.max(1) as f64
        );
    }
    say!(
        "built {}: {} keys, {} values{dups}, {} bytes ({:.3} bytes/value){portable}, checksums {}, {secs:.2} s",
        a.out.output.display(),
        num(keys),
        num(values),
        num(bytes),
        bytes as f64 / values as f64,
        if checksums { "on" } else { "off" },
    );
    Ok(())
}

/// Finishes `w` and renames it over its target (unless, with `no_clobber`, the target has
/// appeared since [`check_output`]: the rename checks again, where it cannot race).
pub(super) fn commit(w: FileWriter<AtomicFile>, no_clobber: bool) -> Result<u64> {
    let out = w.finish()?.no_clobber(no_clobber);
    let bytes = out.bytes_written();
    out.commit()?;
    Ok(bytes)
}

/// One bitmap per text file, key i = i-th file.
pub(super) fn build_text<W: Write>(files: &[PathBuf], w: &mut FileWriter<W>) -> Result<Tally> {
    let total: u64 = files
        .iter()
        .map(|f| fs::metadata(f).map_or(0, |m| m.len()))
        .sum();
    let bar = progress(Some(total), Unit::Bytes, "building");
    let mut counts = Tally::default();
    let mut values = Vec::new();
    let mut text = String::new();
    for (i, path) in files.iter().enumerate() {
        text.clear();
        fs::File::open(path)
            .and_then(|mut f| f.read_to_string(&mut text))
            .map_err(|e| Fail::Msg(format!("cannot read {}: {e}", path.display())))?;
        values.clear();
        parse_values(path, &text, &mut values)?;
        counts.read += values.len() as u64;
        if !values.is_sorted_by(|x, y| x < y) {
            values.sort_unstable();
            let before = values.len();
            values.dedup();
            counts.duplicates += (before - values.len()) as u64;
        }
        w.add_sorted(i as u64, values.iter().copied())?;
        bar.inc(text.len() as u64);
    }
    bar.finish_and_clear();
    Ok(counts)
}

/// Comma- or whitespace-separated `u32` values; an error names the line and column.
pub(super) fn parse_values(path: &Path, text: &str, out: &mut Vec<u32>) -> Result<()> {
    for (ln, line) in text.lines().enumerate() {
        let mut col = 0;
        for tok in line.split(|c: char| c == ',' || c.is_whitespace()) {
            let at = col;
            col += tok.len() + 1;
            if tok.is_empty() {
                continue;
            }
            match tok.parse::<u32>() {
                Ok(v) => out.push(v),
                Err(_) => {
                    return fail(format!(
                        "{} line {} column {}: {tok:?} is not a u32 (expected comma-separated values from 0 to 4294967295)",
                        path.display(),
                        ln + 1,
                        line[..at].chars().count() + 1
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Counts the bytes read through it, for the progress bar.
pub(super) struct Counting<R> {
    inner: R,
    bytes: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
}

/// `key<TAB>value` lines in any order → sorted runs of at most `chunk` pairs (on disk when
/// there is more than one) → merged by key into the file.
pub(super) fn build_tsv<W: Write>(
    path: &Path,
    chunk: usize,
    w: &mut FileWriter<W>,
) -> Result<Tally> {
    let stdin = path == Path::new("-");
    let (source, len): (Box<dyn Read>, Option<u64>) = if stdin {
        (Box::new(io::stdin()), None)
    } else {
        let f = fs::File::open(path)
            .map_err(|e| Fail::Msg(format!("cannot open {}: {e}", path.display())))?;
        let len = f.metadata().ok().map(|m| m.len());
        (Box::new(f), len)
    };
    let mut input = BufReader::with_capacity(
        1 << 16,
        Counting {
            inner: source,
            bytes: 0,
        },
    );
    let bar = progress(len, Unit::Bytes, "reading pairs");
    let mut counts = Tally::default();
    let mut pairs: Vec<(u64, u32)> = Vec::new();
    let mut runs = Spill::default();
    let mut line = String::new();
    let mut n = 0u64;
    loop {
        line.clear();
        let got = input.read_line(&mut line).map_err(|e| {
            Fail::Msg(format!(
                "cannot read {} line {}: {e}",
                path.display(),
                n + 1
            ))
        })?;
        if got == 0 {
            break;
        }
        n += 1;
        let text = line.trim_end_matches(['\n', '\r']);
        if text.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = text.split('\t').collect();
        let parsed = match fields[..] {
            [k, v] => k
                .trim()
                .parse::<u64>()
                .ok()
                .zip(v.trim().parse::<u32>().ok()),
            _ => None,
        };
        let Some((k, v)) = parsed else {
            return fail(format!(
                "{} line {n}: expected `key<TAB>value` (two fields: a u64 and a u32), found {} field{} in {text:?}",
                path.display(),
                fields.len(),
                if fields.len() == 1 { "" } else { "s" }
            ));
        };
        pairs.push((k, v));
        counts.read += 1;
        if pairs.len() >= chunk {
            counts.duplicates += runs.spill(&mut pairs)?;
        }
        if n.is_multiple_of(65536) {
            bar.set_position(input.get_ref().bytes);
        }
    }
    bar.finish_and_clear();
    if !runs.paths.is_empty() && !pairs.is_empty() {
        counts.duplicates += runs.spill(&mut pairs)?;
    }
    counts.duplicates += if runs.paths.is_empty() {
        pairs.sort_unstable();
        write_groups(pairs.into_iter().map(Ok), w)?
    } else {
        merge_runs(&runs.paths, w)?
    };
    Ok(counts)
}

/// Sorted runs of pairs on disk, removed when dropped.
#[derive(Default)]
pub(super) struct Spill {
    paths: Vec<PathBuf>,
    dir: Option<tempfile::TempDir>,
}

impl Spill {
    /// Sorts `pairs` and writes them as one run; returns the duplicates dropped.
    fn spill(&mut self, pairs: &mut Vec<(u64, u32)>) -> Result<u64> {
        pairs.sort_unstable();
        let before = pairs.len();
        pairs.dedup();
        let dropped = (before - pairs.len()) as u64;
        if self.dir.is_none() {
            self.dir = Some(
                tempfile::Builder::new()
                    .prefix("frozen-roaring-runs")
                    .tempdir()
                    .map_err(|e| {
                        Fail::Msg(format!(
                            "cannot create a temporary folder for sorted runs: {e}"
                        ))
                    })?,
            );
        }
        let dir = self
            .dir
            .as_ref()
            .map(|d| d.path().to_path_buf())
            .unwrap_or_default();
        let p = dir.join(format!("{}.run", self.paths.len()));
        let err = |e: io::Error| Fail::Msg(format!("cannot write {}: {e}", p.display()));
        let mut f = BufWriter::new(fs::File::create(&p).map_err(err)?);
        for &(k, v) in pairs.iter() {
            f.write_all(&k.to_le_bytes()).map_err(err)?;
            f.write_all(&v.to_le_bytes()).map_err(err)?;
        }
        f.flush().map_err(err)?;
        self.paths.push(p);
        pairs.clear();
        Ok(dropped)
    }
}

/// Writes sorted (key, value) pairs as one bitmap per key; returns the duplicates dropped.
pub(super) fn write_groups<W: Write>(
    pairs: impl Iterator<Item = io::Result<(u64, u32)>>,
    w: &mut FileWriter<W>,
) -> Result<u64> {
    let mut values: Vec<u32> = Vec::new();
    let mut key = None;
    let mut dropped = 0;
    for p in pairs {
        let (k, v) = p.map_err(|e| Fail::Msg(format!("cannot read a sorted run: {e}")))?;
        if key != Some(k) {
            if let Some(k0) = key {
                w.add_sorted(k0, values.iter().copied())?;
            }
            values.clear();
            key = Some(k);
        }
        if values.last() == Some(&v) {
            dropped += 1;
        } else {
            values.push(v);
        }
    }
    if let Some(k0) = key {
        w.add_sorted(k0, values.iter().copied())?;
    }
    Ok(dropped)
}

pub(super) fn merge_runs<W: Write>(runs: &[PathBuf], w: &mut FileWriter<W>) -> Result<u64> {
    let mut readers = Vec::with_capacity(runs.len());
    for r in runs {
        let f = fs::File::open(r)
            .map_err(|e| Fail::Msg(format!("cannot open {}: {e}", r.display())))?;
        readers.push(BufReader::with_capacity(1 << 16, f));
    }
    let read = |r: &mut BufReader<fs::File>| -> io::Result<Option<(u64, u32)>> {
        let mut b = [0u8; 12];
        match r.read_exact(&mut b) {
            Ok(()) => {
                let (k, v) = b.split_at(8);
                let k = u64::from_le_bytes(k.try_into().unwrap_or([0; 8]));
                Ok(Some((
                    k,
                    u32::from_le_bytes(v.try_into().unwrap_or([0; 4])),
                )))
            }
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
            Err(e) => Err(e),
        }
    };
    let mut heap = BinaryHeap::new();
    for (i, r) in readers.iter_mut().enumerate() {
        if let Some((k, v)) =
            read(r).map_err(|e| Fail::Msg(format!("cannot read a sorted run: {e}")))?
        {
            heap.push(std::cmp::Reverse((k, v, i)));
        }
    }
    let merged = std::iter::from_fn(|| {
        let std::cmp::Reverse((k, v, i)) = heap.pop()?;
        match read(&mut readers[i]) {
            Ok(Some((k2, v2))) => heap.push(std::cmp::Reverse((k2, v2, i))),
            Ok(None) => {}
            Err(e) => return Some(Err(e)),
        }
        Some(Ok((k, v)))
    });
    write_groups(merged, w)
}
