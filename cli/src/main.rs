//! `frozen-roaring`: build, inspect, validate, convert and query bitmap files.
//!
//! Exit codes: 0 success (also when standard output is closed early, as by `| head`); 1 the
//! input is missing, unreadable, corrupt or does not hold what was asked for, or an output
//! cannot be written (one line on standard error says what, where and why); 2 bad arguments.
//!
//! Outputs are written to a temporary file beside the target and renamed over it only when
//! complete, so a failed run never leaves a partial file or damages an existing one.

use std::collections::BinaryHeap;
use std::fs;
use std::io::{self, BufRead, BufReader, BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use frozen_roaring::{AtomicFile, BitmapFile, FileWriter, FrozenBitmap, FrozenBitmap64, Writer};

#[derive(Parser)]
#[command(
    name = "frozen-roaring",
    version,
    about = "Build, inspect, validate, convert and query files of Roaring bitmaps read in place",
    after_help = "Inputs: a bitmap file (FRZF), or one bitmap: frozen (FRZR), portable 32-bit \
                  (cookie 12346/12347), frozen or portable 64-bit; told apart by their first bytes. \
                  `inspect` also reads deletion vectors: Delta DV files, Iceberg blobs, Puffin \
                  files and Delta table folders.\n\
                  Exit codes: 0 success, 1 bad or missing input or a failed write, 2 bad arguments."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build a bitmap file from CRoaring-style text files or `key<TAB>value` lines.
    Build(BuildArgs),
    /// Print a file's header, directory statistics, container kinds and sizes (or one key's),
    /// or a single bitmap's.
    Inspect {
        /// A bitmap file or a single bitmap; or a deletion-vector file (Delta DV file or bare
        /// Iceberg blob), a Puffin file, or a Delta table folder (its log's DVs, checked). A
        /// bitmap file may be a URL (s3://, gs://, az://, http(s)://, file://), read by ranges.
        file: PathBuf,
        /// Show this key's bitmap.
        key: Option<u64>,
        /// For a Delta DV file: the offset of the frame to show (a descriptor's `offset`).
        #[arg(long, value_name = "N")]
        offset: Option<u64>,
        /// Print on standard error the requests and bytes read.
        #[arg(long)]
        stats: bool,
    },
    /// Check everything strictly (checksums, every bitmap's invariants).
    Validate {
        /// A bitmap file (or its URL), or a single bitmap.
        file: PathBuf,
        /// Print on standard error the requests and bytes read.
        #[arg(long)]
        stats: bool,
    },
    /// Convert single bitmaps between formats, or a folder of portable .bin files to a file.
    Convert(ConvertArgs),
    /// Combine bitmaps of a file: prints the cardinality, then with --values the values. On a
    /// single bitmap (no operation), prints its cardinality and values.
    Query(QueryArgs),
    /// Generate a Zipf corpus, build its file, map it and run queries (the main job).
    Demo(DemoArgs),
    /// Print a deletion vector's deleted positions in a range (with --live, the ranges of
    /// rows it keeps), from a DV file or a Puffin file.
    DvMask(DvMaskArgs),
}

#[derive(Args)]
struct DvMaskArgs {
    /// A Delta DV file, a bare Iceberg DV blob or a Puffin file.
    file: PathBuf,
    /// The rows, as START..END (END exclusive).
    #[arg(long, value_name = "START..END")]
    range: String,
    /// For a Delta DV file: the frame's offset (default: the first frame).
    #[arg(long, value_name = "N")]
    offset: Option<u64>,
    /// For a Puffin file: the blob's index (default 0).
    #[arg(long, value_name = "I")]
    blob: Option<usize>,
    /// Print the kept row ranges (START..END) instead of the deleted positions.
    #[arg(long)]
    live: bool,
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
struct Output {
    /// The file to write (replaced only once the new one is complete).
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// Refuse to replace an existing output file.
    #[arg(long)]
    no_clobber: bool,
}

#[derive(Args)]
struct BuildArgs {
    #[command(flatten)]
    source: Source,
    #[command(flatten)]
    out: Output,
    /// Give every bitmap a CRC32C trailer (the default).
    #[arg(long, overrides_with = "no_checksums")]
    checksums: bool,
    /// Write bitmaps without CRC32C trailers (4 bytes smaller each; damage then goes
    /// unnoticed by queries).
    #[arg(long)]
    no_checksums: bool,
    /// For --from-text-dir: write which file became which key, as `key<TAB>path` lines.
    #[arg(long, value_name = "FILE")]
    key_map: Option<PathBuf>,
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
    #[arg(requires = "to")]
    input: Option<PathBuf>,
    /// A folder of portable .bin bitmaps; key i = i-th file by name.
    #[arg(long, value_name = "DIR")]
    from_bin_dir: Option<PathBuf>,
    /// For --from-bin-dir: write which file became which key, as `key<TAB>path` lines.
    #[arg(long, value_name = "FILE", requires = "from_bin_dir")]
    key_map: Option<PathBuf>,
    #[command(flatten)]
    out: Output,
}

#[derive(Args)]
#[group(required = false, multiple = false, id = "operation")]
struct Operation {
    /// Intersection of these keys.
    #[arg(long, value_name = "K1,K2,...", value_delimiter = ',')]
    and: Option<Vec<u64>>,
    /// Union of these keys.
    #[arg(long, value_name = "K1,K2,...", value_delimiter = ',')]
    or: Option<Vec<u64>>,
    /// The first key minus the others (at least two keys).
    #[arg(long, value_name = "K1,K2,...", value_delimiter = ',')]
    andnot: Option<Vec<u64>>,
}

#[derive(Args)]
struct QueryArgs {
    /// A bitmap file (or a single bitmap, with no operation).
    file: PathBuf,
    #[command(flatten)]
    op: Operation,
    /// Also print the first N values, one per line.
    #[arg(long, value_name = "N")]
    values: Option<u64>,
    /// Skip the checksum check of the bitmaps read (one pass over their bytes).
    #[arg(long)]
    no_verify: bool,
    /// Print on standard error the requests and bytes read.
    #[arg(long)]
    stats: bool,
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

/// Why a command did not succeed.
enum Fail {
    /// A one-line error for standard error; exit 1.
    Msg(String),
    /// Bad arguments: clap's message and usage line; exit 2.
    Usage(clap::Error),
    /// Standard output was closed by its reader (`| head`): stop quietly, exit 0.
    Closed,
}

impl<E: std::fmt::Display> From<E> for Fail {
    fn from(e: E) -> Fail {
        Fail::Msg(e.to_string())
    }
}

type Result<T> = std::result::Result<T, Fail>;

fn fail<T>(msg: impl Into<String>) -> Result<T> {
    Err(Fail::Msg(msg.into()))
}

/// Bad arguments, reported as clap reports its own (usage line, exit 2).
fn usage<T>(msg: impl std::fmt::Display) -> Result<T> {
    Err(Fail::Usage(
        Cli::command().error(clap::error::ErrorKind::ArgumentConflict, msg),
    ))
}

/// A write to standard output failed: quiet when the reader went away, else an error.
fn stdout_error(e: io::Error) -> Fail {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Fail::Closed
    } else {
        Fail::Msg(format!("cannot write to standard output: {e}"))
    }
}

/// `writeln!` to standard output that returns a closed pipe or a write error as a [`Fail`].
macro_rules! say {
    ($($t:tt)*) => {
        writeln!(io::stdout(), $($t)*).map_err(stdout_error)?
    };
}

mod build;
mod demo;
mod dv;
mod inspect;
mod query;
mod remote;

use build::{build, commit};
use demo::demo;
use inspect::{format_name, inspect, validate};
use query::{local_stats, query};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Build(a) => build(a),
        Command::Inspect {
            file, key, stats, ..
        } if remote::is_url(&file) => remote::inspect(&file, key, stats),
        Command::Validate { file, stats } if remote::is_url(&file) => {
            remote::validate(&file, stats)
        }
        Command::Query(a) if remote::is_url(&a.file) => remote::query(&a),
        Command::Inspect {
            file,
            key,
            offset,
            stats,
        } => inspect(&file, key, offset).and_then(|()| local_stats(&file, stats)),
        Command::Validate { file, stats } => {
            validate(&file).and_then(|()| local_stats(&file, stats))
        }
        Command::Convert(a) => convert(a),
        Command::Query(a) => {
            let (file, stats) = (a.file.clone(), a.stats);
            query(a).and_then(|()| local_stats(&file, stats))
        }
        Command::Demo(a) => demo(a),
        Command::DvMask(a) => dv::dv_mask(a),
    }
    .and_then(|()| io::stdout().flush().map_err(stdout_error));
    match result {
        Ok(()) | Err(Fail::Closed) => ExitCode::SUCCESS,
        Err(Fail::Usage(e)) => e.exit(),
        Err(Fail::Msg(msg)) => {
            let _ = writeln!(io::stderr(), "error: {msg}");
            ExitCode::from(1)
        }
    }
}

/// `n` with thousands separators: 1234567 -> "1,234,567".
fn num(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A file the tool reads: a bitmap file, or one bitmap in a format it recognizes.
enum Input {
    File(BitmapFile<memmap2::Mmap>),
    /// One 32-bit bitmap (frozen or portable), read into memory.
    Bitmap(Vec<u8>),
    /// One 64-bit bitmap (frozen or portable), read into memory.
    Bitmap64(Vec<u8>),
}

/// Opens `path` as a bitmap file or a single bitmap, telling them apart by the first bytes.
fn open_input(path: &Path) -> Result<Input> {
    let named = |e: frozen_roaring::Error| Fail::Msg(format!("{}: {e}", path.display()));
    let mut head = [0u8; 16];
    let n = {
        let mut f = fs::File::open(path)
            .map_err(|e| Fail::Msg(format!("cannot open {}: {e}", path.display())))?;
        if f.metadata().is_ok_and(|m| m.is_dir()) {
            return fail(format!(
                "cannot open {}: it is a folder, not a bitmap file",
                path.display()
            ));
        }
        dv::read_head(&mut f, &mut head)
            .map_err(|e| Fail::Msg(format!("cannot read {}: {e}", path.display())))?
    };
    let head = &head[..n];
    let read =
        || fs::read(path).map_err(|e| Fail::Msg(format!("cannot read {}: {e}", path.display())));
    let portable_cookie =
        head.len() >= 4 && (head[..4] == [0x3A, 0x30, 0, 0] || head[..2] == [0x3B, 0x30]);
    if head.starts_with(b"FRZR") || portable_cookie {
        let bytes = read()?;
        FrozenBitmap::from_bytes(&bytes).map_err(named)?;
        return Ok(Input::Bitmap(bytes));
    }
    if head.starts_with(b"FR64") {
        let bytes = read()?;
        FrozenBitmap64::from_bytes(&bytes).map_err(named)?;
        return Ok(Input::Bitmap64(bytes));
    }
    // A portable 64-bit bitmap starts with its bucket count (u64), then a bucket's key and
    // a portable cookie; the empty one is 8 zero bytes.
    let cookie_at_12 =
        head.len() >= 16 && (head[12..16] == [0x3A, 0x30, 0, 0] || head[12..14] == [0x3B, 0x30]);
    if cookie_at_12 || head == [0u8; 8] {
        let bytes = read()?;
        FrozenBitmap64::from_bytes(&bytes).map_err(named)?;
        return Ok(Input::Bitmap64(bytes));
    }
    BitmapFile::open(path).map(Input::File).map_err(|e| {
        if e.kind() == frozen_roaring::ErrorKind::Io {
            Fail::Msg(e.to_string())
        } else {
            named(e)
        }
    })
}

fn open_file(path: &Path) -> Result<BitmapFile<memmap2::Mmap>> {
    match open_input(path)? {
        Input::File(f) => Ok(f),
        _ => fail(format!(
            "{} is one bitmap, not a bitmap file: build a file from it with \
             `frozen-roaring convert --from-bin-dir` or query it without --and/--or/--andnot",
            path.display()
        )),
    }
}

/// The (device, inode) of an existing path, following links; `None` if it does not exist.
#[cfg(unix)]
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(path: &Path) -> Option<PathBuf> {
    fs::canonicalize(path).ok()
}

/// Refuses an output that is one of the inputs (the same file, also through links) or, with
/// `--no-clobber`, one that exists; before anything is opened for writing.
fn check_output(out: &Output, inputs: &[PathBuf]) -> Result<()> {
    if let Some(id) = identity(&out.output) {
        if let Some(input) = inputs.iter().find(|i| identity(i).as_ref() == Some(&id)) {
            return fail(format!(
                "the output {} is the input {}: writing it would destroy the input; choose another output path",
                out.output.display(),
                input.display()
            ));
        }
        if out.no_clobber {
            return fail(format!(
                "{} exists and --no-clobber was given: remove it or choose another output path",
                out.output.display()
            ));
        }
    }
    Ok(())
}

/// A writer of a bitmap file at `out`, written atomically.
fn create(out: &Output, checksums: bool) -> Result<FileWriter<AtomicFile>> {
    let w = FileWriter::create(&out.output)?.with_bitmap_checksums(checksums);
    Ok(w)
}

/// Files of `dir` with extension `ext`, sorted by name.
fn list(dir: &Path, ext: &str) -> Result<Vec<PathBuf>> {
    let entries = fs::read_dir(dir)
        .map_err(|e| Fail::Msg(format!("cannot read folder {}: {e}", dir.display())))?;
    let mut files = Vec::new();
    for e in entries {
        let p = e
            .map_err(|e| Fail::Msg(format!("cannot read folder {}: {e}", dir.display())))?
            .path();
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

/// Prints which file became which key (the first few) and writes them all to `key_map`.
fn report_keys(files: &[PathBuf], key_map: Option<&Path>) -> Result<()> {
    const SHOWN: usize = 5;
    let name = |p: &PathBuf| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let mut line = format!("keys 0..={} are the files in name order:", files.len() - 1);
    for (k, f) in files.iter().enumerate().take(SHOWN) {
        line.push_str(&format!(" {k} = {},", name(f)));
    }
    if files.len() > SHOWN {
        line.push_str(&format!(
            " ... {} = {}",
            files.len() - 1,
            name(&files[files.len() - 1])
        ));
    } else {
        line.pop();
    }
    if let Some(path) = key_map {
        let mut out = AtomicFile::create(path)?;
        for (k, f) in files.iter().enumerate() {
            writeln!(out, "{k}\t{}", f.display())
                .map_err(|e| Fail::Msg(format!("cannot write {}: {e}", path.display())))?;
        }
        out.commit()?;
        line.push_str(&format!(
            "; all {} in {}",
            num(files.len() as u64),
            path.display()
        ));
    } else if files.len() > SHOWN {
        line.push_str("; --key-map FILE writes them all");
    }
    say!("{line}");
    Ok(())
}

/// What a progress bar counts.
#[derive(Clone, Copy)]
enum Unit {
    /// Bytes of input read, so that the rate and the time left follow the input.
    Bytes,
    /// Items made (the demo's terms).
    Items,
}

/// A progress bar on standard error when it is a terminal, of `len` units (a spinner when
/// the length is unknown).
fn progress(len: Option<u64>, unit: Unit, what: &str) -> indicatif::ProgressBar {
    if !io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = match len {
        Some(n) => indicatif::ProgressBar::new(n),
        None => indicatif::ProgressBar::new_spinner(),
    };
    let style = match (len.is_some(), unit) {
        (true, Unit::Bytes) => {
            "{msg} [{bar:40}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta} left)"
        }
        (true, Unit::Items) => "{msg} [{bar:40}] {pos}/{len} ({per_sec}, {eta} left)",
        (false, Unit::Bytes) => "{msg} {spinner} {bytes} ({bytes_per_sec})",
        (false, Unit::Items) => "{msg} {spinner} {pos} ({per_sec})",
    };
    if let Ok(s) = indicatif::ProgressStyle::with_template(style) {
        bar.set_style(s.progress_chars("=> "));
    }
    bar.set_message(what.to_string());
    bar
}

fn convert(a: ConvertArgs) -> Result<()> {
    if let Some(dir) = &a.from_bin_dir {
        let files = list(dir, "bin")?;
        check_output(&a.out, &files)?;
        let mut w = create(&a.out, true)?;
        let total: u64 = files
            .iter()
            .map(|f| fs::metadata(f).map_or(0, |m| m.len()))
            .sum();
        let bar = progress(Some(total), Unit::Bytes, "converting");
        for (i, path) in files.iter().enumerate() {
            let bytes = fs::read(path)
                .map_err(|e| Fail::Msg(format!("cannot read {}: {e}", path.display())))?;
            let bm = FrozenBitmap::from_bytes(&bytes)
                .map_err(|e| Fail::Msg(format!("{}: {e}", path.display())))?;
            w.add(i as u64, &bm)?;
            bar.inc(bytes.len() as u64);
        }
        bar.finish_and_clear();
        let n = w.count();
        commit(w, a.out.no_clobber)?;
        report_keys(&files, a.key_map.as_deref())?;
        say!(
            "converted {} bitmaps into {}",
            num(n),
            a.out.output.display()
        );
        return Ok(());
    }
    let (Some(to), Some(input)) = (a.to, &a.input) else {
        return usage("give --to frozen|portable with an INPUT bitmap, or --from-bin-dir DIR");
    };
    check_output(&a.out, std::slice::from_ref(input))?;
    let bytes = match open_input(input)? {
        Input::Bitmap(bytes) => bytes,
        Input::Bitmap64(_) => {
            return fail(format!(
                "{} is a 64-bit bitmap: convert converts 32-bit bitmaps",
                input.display()
            ));
        }
        Input::File(_) => {
            return fail(format!(
                "{} is a bitmap file, not one bitmap: convert converts single bitmaps",
                input.display()
            ));
        }
    };
    let bm = FrozenBitmap::from_bytes(&bytes)
        .map_err(|e| Fail::Msg(format!("{}: {e}", input.display())))?;
    let mut out = Vec::new();
    let mut w = Writer::new();
    match to {
        Target::Frozen => w.write_frozen(&bm, &mut out)?,
        Target::Portable => w.write_portable(&bm, &mut out)?,
    };
    let mut file = AtomicFile::create(&a.out.output)?.no_clobber(a.out.no_clobber);
    file.write_all(&out)
        .map_err(|e| Fail::Msg(format!("cannot write {}: {e}", a.out.output.display())))?;
    file.commit()?;
    say!(
        "converted {} ({} format, {} bytes) to {} ({} format, {} bytes)",
        input.display(),
        format_name(bm.format()),
        num(bytes.len() as u64),
        a.out.output.display(),
        match to {
            Target::Frozen => "frozen",
            Target::Portable => "portable",
        },
        num(out.len() as u64)
    );
    Ok(())
}
