//! `frozen-roaring`: build, inspect, validate, convert and query bitmap files.
//!
//! Exit codes: 0 success; 1 the input is missing, unreadable, corrupt or does not hold what
//! was asked for (one line on standard error says what and what to do); 2 bad arguments.

use std::collections::BinaryHeap;
use std::fs;
use std::io::{self, BufRead, BufReader, BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand, ValueEnum};
use frozen_roaring::{BitmapFile, FileWriter, FrozenBitmap, Statistics, Writer};

#[derive(Parser)]
#[command(
    name = "frozen-roaring",
    version,
    about = "Build, inspect, validate, convert and query files of Roaring bitmaps read in place",
    after_help = "Exit codes: 0 success, 1 bad or missing input, 2 bad arguments."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build a bitmap file from CRoaring-style text files or key<TAB>value lines.
    Build(BuildArgs),
    /// Print the header, directory statistics, container kinds and sizes (of one key).
    Inspect {
        /// The bitmap file.
        file: PathBuf,
        /// Show this key's bitmap.
        key: Option<u64>,
    },
    /// Check everything strictly (checksums, every bitmap's invariants).
    Validate {
        /// The bitmap file.
        file: PathBuf,
    },
    /// Convert single bitmaps between formats, or a folder of portable .bin files to a file.
    Convert(ConvertArgs),
    /// Combine bitmaps of a file: prints the cardinality, then with --values the values.
    Query(QueryArgs),
    /// Generate a Zipf corpus, build its file, map it and run queries (the main job).
    Demo(DemoArgs),
}

#[derive(Args)]
#[group(required = true, multiple = false, id = "source")]
struct Source {
    /// A folder of text files (comma-separated values); key i = i-th file by name.
    #[arg(long, value_name = "DIR")]
    from_text_dir: Option<PathBuf>,
    /// A file of `key<TAB>value` lines in any order ("-" for standard input).
    #[arg(long, value_name = "PATH")]
    from_tsv: Option<PathBuf>,
}

#[derive(Args)]
struct BuildArgs {
    #[command(flatten)]
    source: Source,
    /// The bitmap file to write.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// Give every bitmap a CRC32C trailer.
    #[arg(long)]
    checksums: bool,
    /// For --from-tsv: pairs sorted in memory at a time (12 bytes each); larger inputs are
    /// sorted in runs on disk and merged.
    #[arg(long, default_value_t = 16 << 20, value_name = "N")]
    chunk_pairs: usize,
}

#[derive(Clone, Copy, ValueEnum)]
enum Target {
    Frozen,
    Portable,
}

#[derive(Args)]
struct ConvertArgs {
    /// Convert one bitmap (either format) to this format.
    #[arg(long, requires = "input", conflicts_with = "from_bin_dir")]
    to: Option<Target>,
    /// The bitmap to convert.
    input: Option<PathBuf>,
    /// A folder of portable .bin bitmaps; key i = i-th file by name.
    #[arg(long, value_name = "DIR")]
    from_bin_dir: Option<PathBuf>,
    /// Output path.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
}

#[derive(Args)]
#[group(required = true, multiple = false, id = "operation")]
struct Operation {
    /// Intersection of these keys.
    #[arg(long, value_name = "K1,K2,...", value_delimiter = ',')]
    and: Option<Vec<u64>>,
    /// Union of these keys.
    #[arg(long, value_name = "K1,K2,...", value_delimiter = ',')]
    or: Option<Vec<u64>>,
    /// The first key minus the others.
    #[arg(long, value_name = "K1,K2", value_delimiter = ',')]
    andnot: Option<Vec<u64>>,
}

#[derive(Args)]
struct QueryArgs {
    /// The bitmap file.
    file: PathBuf,
    #[command(flatten)]
    op: Operation,
    /// Also print the first N values, one per line.
    #[arg(long, value_name = "N")]
    values: Option<u64>,
}

#[derive(Args)]
struct DemoArgs {
    /// Documents in the corpus.
    #[arg(long, default_value_t = 2_000_000)]
    docs: u32,
    /// Terms (one bitmap each).
    #[arg(long, default_value_t = 20_000)]
    terms: u64,
    /// Keep the built file at this path instead of a temporary one.
    #[arg(long, value_name = "FILE")]
    keep: Option<PathBuf>,
}

/// `println!` that ignores a closed standard output (`frozen-roaring inspect F | head`)
/// instead of panicking.
macro_rules! say {
    ($($t:tt)*) => {{
        let _ = writeln!(io::stdout(), $($t)*);
    }};
}

/// A one-line error for standard error.
struct Fail(String);

impl<E: std::fmt::Display> From<E> for Fail {
    fn from(e: E) -> Fail {
        Fail(e.to_string())
    }
}

type Result<T> = std::result::Result<T, Fail>;

fn fail<T>(msg: impl Into<String>) -> Result<T> {
    Err(Fail(msg.into()))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Build(a) => build(a),
        Command::Inspect { file, key } => inspect(&file, key),
        Command::Validate { file } => validate(&file),
        Command::Convert(a) => convert(a),
        Command::Query(a) => query(a),
        Command::Demo(a) => demo(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail(msg)) => {
            let _ = writeln!(io::stderr(), "error: {msg}");
            ExitCode::from(1)
        }
    }
}

fn open(path: &Path) -> Result<BitmapFile<memmap2::Mmap>> {
    BitmapFile::open(path).map_err(|e| Fail(format!("{}: {e}", path.display())))
}

fn create(path: &Path) -> Result<BufWriter<fs::File>> {
    let f = fs::File::create(path).map_err(|e| {
        Fail(format!(
            "cannot create {}: {e} (check the folder and permissions)",
            path.display()
        ))
    })?;
    Ok(BufWriter::with_capacity(1 << 20, f))
}

/// Files of `dir` with extension `ext`, sorted by name.
fn list(dir: &Path, ext: &str) -> Result<Vec<PathBuf>> {
    let entries = fs::read_dir(dir).map_err(|e| {
        Fail(format!(
            "cannot read folder {}: {e} (check the path)",
            dir.display()
        ))
    })?;
    let mut files = Vec::new();
    for e in entries {
        let p = e?.path();
        if p.is_file() && p.extension().is_some_and(|x| x == ext) {
            files.push(p);
        }
    }
    files.sort();
    if files.is_empty() {
        return fail(format!("no .{ext} file in {}", dir.display()));
    }
    Ok(files)
}

fn progress(len: Option<u64>, what: &str) -> indicatif::ProgressBar {
    if !io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = match len {
        Some(n) => indicatif::ProgressBar::new(n),
        None => indicatif::ProgressBar::new_spinner(),
    };
    let style = if len.is_some() {
        "{msg} [{bar:40}] {pos}/{len} ({per_sec}, eta {eta})"
    } else {
        "{msg} {spinner} {pos} ({per_sec})"
    };
    if let Ok(s) = indicatif::ProgressStyle::with_template(style) {
        bar.set_style(s.progress_chars("=> "));
    }
    bar.set_message(what.to_string());
    bar
}

fn build(a: BuildArgs) -> Result<()> {
    let start = Instant::now();
    let out = create(&a.output)?;
    let mut w = FileWriter::new(out).with_bitmap_checksums(a.checksums);
    if let Some(dir) = &a.source.from_text_dir {
        let files = list(dir, "txt")?;
        let bar = progress(Some(files.len() as u64), "building");
        let mut values = Vec::new();
        let mut text = String::new();
        for (i, path) in files.iter().enumerate() {
            text.clear();
            fs::File::open(path)
                .and_then(|mut f| f.read_to_string(&mut text))
                .map_err(|e| Fail(format!("cannot read {}: {e}", path.display())))?;
            values.clear();
            for tok in text.split(|c: char| c == ',' || c.is_whitespace()) {
                if tok.is_empty() {
                    continue;
                }
                values.push(tok.parse::<u32>().map_err(|_| {
                    Fail(format!(
                        "{}: {tok:?} is not a u32 (expected comma-separated values)",
                        path.display()
                    ))
                })?);
            }
            if !values.is_sorted_by(|x, y| x < y) {
                values.sort_unstable();
                values.dedup();
            }
            w.add_sorted(i as u64, values.iter().copied())?;
            bar.inc(1);
        }
        bar.finish_and_clear();
    } else if let Some(tsv) = &a.source.from_tsv {
        build_tsv(tsv, a.chunk_pairs.max(1), &mut w)?;
    }
    let (keys, values) = (w.count(), w.values());
    w.finish()?
        .into_inner()
        .map_err(|e| {
            Fail(format!(
                "cannot write {}: {}",
                a.output.display(),
                e.error()
            ))
        })?
        .sync_all()?;
    let secs = start.elapsed().as_secs_f64();
    let file = open(&a.output)?;
    let mut portable = 0u64;
    let writer = Writer::new();
    for r in file.iter() {
        portable += writer.portable_size(&r?.1) as u64;
    }
    let bytes = file.as_bytes().len() as u64;
    say!(
        "built {}: {keys} keys, {values} values, {bytes} bytes ({:.3} bytes/value), portable format {portable} bytes (ratio {:.3}), {:.2} s",
        a.output.display(),
        bytes as f64 / values.max(1) as f64,
        bytes as f64 / portable.max(1) as f64,
        secs
    );
    Ok(())
}

/// key<TAB>value lines in any order → sorted runs of at most `chunk` pairs (on disk when
/// there is more than one) → merged by key into the file.
fn build_tsv<W: Write>(path: &Path, chunk: usize, w: &mut FileWriter<W>) -> Result<()> {
    let input: Box<dyn BufRead> = if path == Path::new("-") {
        Box::new(BufReader::new(io::stdin()))
    } else {
        Box::new(BufReader::new(fs::File::open(path).map_err(|e| {
            Fail(format!(
                "cannot read {}: {e} (check the path)",
                path.display()
            ))
        })?))
    };
    let bar = progress(None, "reading pairs");
    let mut pairs: Vec<(u64, u32)> = Vec::new();
    let mut runs: Vec<PathBuf> = Vec::new();
    let spill = |pairs: &mut Vec<(u64, u32)>, runs: &mut Vec<PathBuf>| -> Result<()> {
        pairs.sort_unstable();
        pairs.dedup();
        let p = std::env::temp_dir().join(format!(
            "frozen-roaring-{}-{}.run",
            std::process::id(),
            runs.len()
        ));
        let mut f = BufWriter::new(fs::File::create(&p)?);
        for &(k, v) in pairs.iter() {
            f.write_all(&k.to_le_bytes())?;
            f.write_all(&v.to_le_bytes())?;
        }
        f.flush()?;
        runs.push(p);
        pairs.clear();
        Ok(())
    };
    let mut result = Ok(());
    for (n, line) in input.lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let mut parts = line.split('\t');
        let (k, v) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let (Ok(k), Ok(v)) = (k.trim().parse::<u64>(), v.trim().parse::<u32>()) else {
            result = fail(format!(
                "{} line {}: expected `key<TAB>value` (u64, u32), found {line:?}",
                path.display(),
                n + 1
            ));
            break;
        };
        pairs.push((k, v));
        if pairs.len() >= chunk
            && let Err(e) = spill(&mut pairs, &mut runs)
        {
            result = Err(e);
            break;
        }
        if n % 65536 == 0 {
            bar.set_position(n as u64);
        }
    }
    bar.finish_and_clear();
    if result.is_ok() && !runs.is_empty() && !pairs.is_empty() {
        result = spill(&mut pairs, &mut runs);
    }
    if result.is_ok() {
        result = if runs.is_empty() {
            pairs.sort_unstable();
            pairs.dedup();
            write_groups(pairs.into_iter().map(Ok), w)
        } else {
            merge_runs(&runs, w)
        };
    }
    for r in &runs {
        let _ = fs::remove_file(r);
    }
    result
}

/// Writes sorted, deduplicated (key, value) pairs as one bitmap per key.
fn write_groups<W: Write>(
    pairs: impl Iterator<Item = io::Result<(u64, u32)>>,
    w: &mut FileWriter<W>,
) -> Result<()> {
    let mut values: Vec<u32> = Vec::new();
    let mut key = None;
    for p in pairs {
        let (k, v) = p?;
        if key != Some(k) {
            if let Some(k0) = key {
                w.add_sorted(k0, values.iter().copied())?;
            }
            values.clear();
            key = Some(k);
        }
        if values.last() != Some(&v) {
            values.push(v);
        }
    }
    if let Some(k0) = key {
        w.add_sorted(k0, values.iter().copied())?;
    }
    Ok(())
}

fn merge_runs<W: Write>(runs: &[PathBuf], w: &mut FileWriter<W>) -> Result<()> {
    let mut readers = Vec::with_capacity(runs.len());
    for r in runs {
        readers.push(BufReader::with_capacity(1 << 16, fs::File::open(r)?));
    }
    let read = |r: &mut BufReader<fs::File>| -> io::Result<Option<(u64, u32)>> {
        let mut b = [0u8; 12];
        match r.read_exact(&mut b) {
            Ok(()) => Ok(Some((
                u64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8])),
                u32::from_le_bytes(b[8..].try_into().unwrap_or([0; 4])),
            ))),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
            Err(e) => Err(e),
        }
    };
    let mut heap = BinaryHeap::new();
    for (i, r) in readers.iter_mut().enumerate() {
        if let Some((k, v)) = read(r)? {
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

fn stats_line(s: &Statistics) -> String {
    format!(
        "{} containers: {} array ({} values, {} B), {} bitset ({} values, {} B), {} run ({} values, {} B); metadata {} B",
        s.containers,
        s.array_containers,
        s.array_values,
        s.array_bytes,
        s.bitset_containers,
        s.bitset_values,
        s.bitset_bytes,
        s.run_containers,
        s.run_values,
        s.run_bytes,
        s.metadata_bytes
    )
}

fn inspect(path: &Path, key: Option<u64>) -> Result<()> {
    let file = open(path)?;
    let bytes = file.as_bytes().len() as u64;
    if let Some(k) = key {
        let Some(bm) = file.get(k)? else {
            return fail(format!(
                "key {k} is not in {} (list keys with `inspect FILE`)",
                path.display()
            ));
        };
        let s = bm.statistics();
        say!(
            "key {k}: {} values, {} bytes, format {:?}, checksum {}",
            bm.len(),
            bm.as_bytes().len(),
            bm.format(),
            bm.has_checksum()
        );
        say!("min {:?}, max {:?}", bm.min(), bm.max());
        say!("{}", stats_line(&s));
        let first: Vec<String> = bm.iter().take(10).map(|v| v.to_string()).collect();
        say!("first values: {}", first.join(","));
        return Ok(());
    }
    let n = file.len();
    say!(
        "file {}: format frozen-roaring bitmap file v1, {bytes} bytes",
        path.display()
    );
    say!(
        "keys: {n}{}; bitmap checksums: {}; directory: {} bytes",
        match (file.keys().next(), file.keys().next_back()) {
            (Some(a), Some(b)) => format!(" ({a} ..= {b})"),
            _ => String::new(),
        },
        if file.has_bitmap_checksums() {
            "yes"
        } else {
            "no"
        },
        n * 24 + 32
    );
    let mut total = Statistics::default();
    let mut values = 0u64;
    let (mut largest, mut largest_key) = (0u64, 0u64);
    for r in file.iter() {
        let (k, bm) = r?;
        let s = bm.statistics();
        values += bm.len();
        if bm.len() > largest {
            (largest, largest_key) = (bm.len(), k);
        }
        total += s;
    }
    say!(
        "values: {values} ({:.3} bytes/value); largest bitmap: key {largest_key} with {largest} values",
        bytes as f64 / values.max(1) as f64
    );
    say!("{}", stats_line(&total));
    say!(
        "padding between bitmaps: {} bytes",
        bytes.saturating_sub(total.total_bytes + 16 + n as u64 * 24 + 32)
    );
    Ok(())
}

fn validate(path: &Path) -> Result<()> {
    let file = open(path)?;
    file.verify()
        .map_err(|e| Fail(format!("{}: {e}", path.display())))?;
    let mut values = 0u64;
    for r in file.iter() {
        values += r?.1.len();
    }
    say!(
        "ok: {} bitmaps, {values} values, {} bytes, every checksum and invariant verified",
        file.len(),
        file.as_bytes().len()
    );
    Ok(())
}

fn convert(a: ConvertArgs) -> Result<()> {
    if let Some(dir) = &a.from_bin_dir {
        let files = list(dir, "bin")?;
        let mut w = FileWriter::new(create(&a.output)?);
        let bar = progress(Some(files.len() as u64), "converting");
        for (i, path) in files.iter().enumerate() {
            let bytes =
                fs::read(path).map_err(|e| Fail(format!("cannot read {}: {e}", path.display())))?;
            let bm = FrozenBitmap::from_bytes(&bytes)
                .map_err(|e| Fail(format!("{}: {e}", path.display())))?;
            w.add(i as u64, &bm)?;
            bar.inc(1);
        }
        bar.finish_and_clear();
        let n = w.count();
        w.finish()?.flush()?;
        say!("converted {n} bitmaps into {}", a.output.display());
        return Ok(());
    }
    let (Some(to), Some(input)) = (a.to, &a.input) else {
        return fail(
            "give --to frozen|portable with an INPUT bitmap, or --from-bin-dir DIR (see --help)",
        );
    };
    let bytes = fs::read(input).map_err(|e| {
        Fail(format!(
            "cannot read {}: {e} (check the path)",
            input.display()
        ))
    })?;
    let bm =
        FrozenBitmap::from_bytes(&bytes).map_err(|e| Fail(format!("{}: {e}", input.display())))?;
    let mut out = Vec::new();
    let mut w = Writer::new();
    match to {
        Target::Frozen => w.write_frozen(&bm, &mut out)?,
        Target::Portable => w.write_portable(&bm, &mut out)?,
    };
    fs::write(&a.output, &out)
        .map_err(|e| Fail(format!("cannot write {}: {e}", a.output.display())))?;
    say!(
        "converted {} ({:?}, {} bytes) to {} ({} bytes)",
        input.display(),
        bm.format(),
        bytes.len(),
        a.output.display(),
        out.len()
    );
    Ok(())
}

fn query(a: QueryArgs) -> Result<()> {
    let file = open(&a.file)?;
    let (keys, kind) = match (&a.op.and, &a.op.or, &a.op.andnot) {
        (Some(k), _, _) => (k, 0),
        (_, Some(k), _) => (k, 1),
        (_, _, Some(k)) => (k, 2),
        _ => return fail("give --and, --or or --andnot with a comma-separated key list"),
    };
    if keys.is_empty() || (kind == 2 && keys.len() < 2) {
        return fail(
            "--andnot needs at least two keys (K1 minus the others); --and/--or at least one",
        );
    }
    let start = Instant::now();
    let mut views = Vec::with_capacity(keys.len());
    for &k in keys {
        match file
            .get(k)
            .map_err(|e| Fail(format!("{}: key {k}: {e}", a.file.display())))?
        {
            Some(b) => views.push(b),
            None => {
                return fail(format!(
                    "key {k} is not in {} (list keys with `inspect`)",
                    a.file.display()
                ));
            }
        }
    }
    let mut w = Writer::new();
    let mut out = Vec::new();
    let r = match kind {
        0 => w.intersection_many_into(&views, &mut out)?,
        1 => w.union_many_into(&views, &mut out)?,
        _ => {
            let mut rest = Vec::new();
            let r = w.union_many_into(&views[1..], &mut rest)?;
            let rest = FrozenBitmap::from_bytes(&rest[r])?;
            w.difference_into(&views[0], &rest, &mut out)?
        }
    };
    let result = FrozenBitmap::from_bytes(&out[r])?;
    let elapsed = start.elapsed();
    let stdout = io::stdout();
    let mut o = BufWriter::new(stdout.lock());
    writeln!(o, "{}", result.len())?;
    if let Some(n) = a.values {
        for v in result.iter().take(usize::try_from(n).unwrap_or(usize::MAX)) {
            writeln!(o, "{v}")?;
        }
    }
    o.flush()?;
    let _ = writeln!(
        io::stderr(),
        "{} of {} bitmaps in {:.3} ms",
        ["intersection", "union", "difference"][kind],
        views.len(),
        elapsed.as_secs_f64() * 1e3
    );
    Ok(())
}

/// SplitMix64, so the demo corpus is the same on every machine.
struct Rng(u64);

impl Rng {
    fn next_f64(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Document ids of one term: each document with probability `p`, by geometric gaps.
fn postings(rng: &mut Rng, docs: u32, p: f64, out: &mut Vec<u32>) {
    out.clear();
    if p >= 1.0 {
        out.extend(0..docs);
        return;
    }
    let log_q = (1.0 - p).ln();
    let mut doc = -1.0f64;
    loop {
        let u = rng.next_f64().max(f64::MIN_POSITIVE);
        doc += 1.0 + (u.ln() / log_q).floor();
        if doc >= f64::from(docs) {
            return;
        }
        out.push(doc as u32);
    }
}

fn demo(a: DemoArgs) -> Result<()> {
    let (docs, terms) = (a.docs.max(1), a.terms.max(1));
    say!("corpus: {docs} documents, {terms} terms, Zipf term frequencies (exponent 1, seed 1)");
    let path = a.keep.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("frozen-roaring-demo-{}.frf", std::process::id()))
    });
    // Build: one bitmap per term, streamed into the file.
    let mut rng = Rng(1);
    let mut values = Vec::new();
    let mut w = FileWriter::new(create(&path)?);
    w.reserve(terms as usize);
    let bar = progress(Some(terms), "indexing");
    let start = Instant::now();
    let mut portable = 0u64;
    let mut pw = Writer::new();
    let mut pbuf = Vec::new();
    for t in 0..terms {
        postings(&mut rng, docs, 0.5 / (t as f64 + 1.0), &mut values);
        if values.is_empty() {
            continue;
        }
        w.add_sorted(t, values.iter().copied())?;
        pbuf.clear();
        portable += pw
            .write_portable_sorted(values.iter().copied(), &mut pbuf)?
            .len() as u64;
        if t % 1024 == 0 {
            bar.set_position(t);
        }
    }
    bar.finish_and_clear();
    let (keys, total) = (w.count(), w.values());
    w.finish()?.flush()?;
    let build = start.elapsed();
    let start = Instant::now();
    let file = open(&path)?;
    let open_time = start.elapsed();
    let bytes = file.as_bytes().len() as u64;
    say!(
        "built {keys} bitmaps, {total} postings: {bytes} bytes ({:.3} bytes/posting; portable format {portable} bytes, ratio {:.3}) in {:.0} ms ({:.1} M postings/s)",
        bytes as f64 / total.max(1) as f64,
        bytes as f64 / portable.max(1) as f64,
        build.as_secs_f64() * 1e3,
        total as f64 / build.as_secs_f64() / 1e6
    );
    say!(
        "mapped and opened the file (footer, directory checksum, {keys} keys checked) in {:.2} ms",
        open_time.as_secs_f64() * 1e3
    );
    // Queries: a frequent term with a rarer one, conjunctive and disjunctive.
    let pairs: Vec<(u64, u64)> = (0..400u64)
        .map(|i| (i % 20, (i * 7919 + 5) % keys.max(1)))
        .collect();
    let mut qw = Writer::new();
    for (name, op) in [("AND", Op::And), ("OR", Op::Or)] {
        let (hits, p50, p99) = timed_pairs(&file, &pairs, &mut qw, op)?;
        say!(
            "{} {name} queries (lookup + result written to a reused buffer): {hits} matches; latency p50 {p50:.1} µs, p99 {p99:.1} µs",
            pairs.len()
        );
    }
    let three: Vec<FrozenBitmap> = [1u64, 2, 3]
        .iter()
        .filter_map(|&k| file.get(k).ok().flatten())
        .collect();
    let t = Instant::now();
    let n = qw.intersection_many_len(&three);
    say!(
        "terms 1 AND 2 AND 3: {n} documents ({:.1} µs, counted without writing)",
        t.elapsed().as_secs_f64() * 1e6
    );
    // Self-check against a plain merge of the decoded lists.
    if let (Some(a), Some(b)) = (file.get(1)?, file.get(2)?) {
        let (x, y) = (a.to_vec(), b.to_vec());
        let merged = x.iter().filter(|v| y.binary_search(v).is_ok()).count() as u64;
        if merged != a.intersection_len(&b) {
            return fail("self-check failed: intersection differs from a merge of the lists");
        }
        say!("check: |term 1 AND term 2| = {merged}, same as a merge of the decoded lists");
    }
    if a.keep.is_none() {
        drop(file);
        let _ = fs::remove_file(&path);
    } else {
        say!("kept {}", path.display());
    }
    Ok(())
}

#[derive(Clone, Copy)]
enum Op {
    And,
    Or,
}

/// Runs one two-key query per pair (lookups included): (matches, p50 µs, p99 µs).
fn timed_pairs(
    file: &BitmapFile<memmap2::Mmap>,
    pairs: &[(u64, u64)],
    w: &mut Writer,
    op: Op,
) -> Result<(u64, f64, f64)> {
    let mut out = Vec::new();
    let mut lat = Vec::with_capacity(pairs.len());
    let mut hits = 0u64;
    for &(x, y) in pairs {
        let t = Instant::now();
        let (Some(a), Some(b)) = (file.get(x)?, file.get(y)?) else {
            continue;
        };
        out.clear();
        let r = match op {
            Op::And => w.intersection_into(&a, &b, &mut out)?,
            Op::Or => w.union_into(&a, &b, &mut out)?,
        };
        hits += FrozenBitmap::from_bytes(&out[r])?.len();
        lat.push(t.elapsed().as_secs_f64() * 1e6);
    }
    let (p50, p99) = percentiles(&mut lat);
    Ok((hits, p50, p99))
}

/// (p50, p99) of latencies.
fn percentiles(v: &mut [f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.99))
}
