//! Opening a view: the checked, strict and unchecked constructors.

use super::dir::{Directory, FrozenDir, PortableDir};
use super::{Format, FrozenBitmap};
use crate::cast::{self, U16, U32};
use crate::container::validate;
use crate::error::{Error, ErrorKind, expect};
use crate::format::*;

mod portable;

#[cfg(test)]
pub(crate) use portable::parse_portable_walk;
pub(crate) use portable::portable_end;
use portable::{parse_portable, portable_checked, portable_cookie, unchecked_portable};

/// What structural validation learned about a bitmap besides its validity.
#[cfg_attr(not(feature = "alloc"), allow(dead_code))]
pub(crate) struct Parsed<'a> {
    /// The view.
    pub(crate) bm: FrozenBitmap<'a>,
    /// Bytes the bitmap spans from the start of the input.
    pub(crate) len: usize,
    /// Whether every payload sits exactly where the writer would put it, with zero padding:
    /// then re-encoding is one copy. Only computed by [`parse_with_layout`].
    pub(crate) canonical_layout: bool,
    /// Whether a bitset container is present (the bitmap then wants 64-byte alignment).
    /// Only computed by [`parse_with_layout`].
    pub(crate) has_bitset: bool,
    /// The cardinality, where the check summed it on the way (the view's `len` otherwise
    /// sums a portable directory again).
    pub(crate) known_len: Option<u64>,
}

impl<'a> Parsed<'a> {
    /// A checked view of the first `len` bytes of `bytes`, with what the parse learned.
    #[inline(always)]
    fn checked(
        bytes: &'a [u8],
        len: usize,
        dir: Directory<'a>,
        canonical_layout: bool,
        has_bitset: bool,
    ) -> Parsed<'a> {
        Parsed {
            bm: FrozenBitmap {
                bytes: &bytes[..len],
                dir,
                checked: true,
            },
            len,
            canonical_layout,
            has_bitset,
            known_len: None,
        }
    }
}

/// Structural validation of a frozen bitmap at the start of `bytes`, in O(containers).
/// Never panics, never allocates. Bytes that start with a portable cookie are parsed as the
/// portable format instead.
#[inline(never)]
pub(crate) fn parse(bytes: &[u8]) -> Result<Parsed<'_>, Error> {
    parse_bitmap::<false>(bytes)
}

/// [`parse`] reduced to the bitmap's cardinality and the bytes it spans: the check of a
/// 64-bit bitmap's buckets, which are portable streams (the callers reject frozen ones).
/// A valid portable stream is answered by [`portable_len`], which builds no view and no
/// error; anything it does not accept goes to the full parse, which decides and names the
/// fault, so both accept the same bytes.
#[inline]
pub(crate) fn parse_len(bytes: &[u8]) -> Result<(u64, usize), Error> {
    match portable_len(bytes) {
        Some(facts) => Ok(facts),
        None => parse_len_slow(bytes),
    }
}

/// [`parse_len`] by the full parse: the error, or the answer for a stream
/// [`portable_len`] does not take (a frozen one).
#[cold]
#[inline(never)]
fn parse_len_slow(bytes: &[u8]) -> Result<(u64, usize), Error> {
    let Parsed {
        bm, len, known_len, ..
    } = parse(bytes)?;
    Ok((known_len.unwrap_or_else(|| bm.len()), len))
}

/// The cardinality and length of a valid portable stream at the start of `bytes`
/// ([`portable_checked`] without the directory).
#[inline(always)]
pub(crate) fn portable_len(bytes: &[u8]) -> Option<(u64, usize)> {
    let (dir, card, end) = portable_checked(bytes)?;
    Some((
        card.unwrap_or_else(|| dir.cards_between(0, dir.descs.len())),
        end,
    ))
}

/// [`FrozenBitmap::from_bytes`]: [`parse`], and the bitmap must span all of `bytes`. A
/// valid bitmap is answered by [`frozen_checked`] or [`portable_checked`], which build no
/// error on the way; anything else goes to the full parse, which decides and names the
/// fault, so both accept the same bytes.
#[inline(never)]
pub(crate) fn parse_exact(bytes: &[u8]) -> Result<FrozenBitmap<'_>, Error> {
    // Each format's view built in its own arm: a `Directory` returned by one function for
    // both was moved through memory (a tenth of the open of a few containers).
    let checked = |dir| FrozenBitmap {
        bytes,
        dir,
        checked: true,
    };
    match frozen_checked::<true>(bytes) {
        Some(dir) => Ok(checked(Directory::Frozen(dir))),
        None => match portable_checked(bytes) {
            Some((dir, _, len)) if len == bytes.len() => Ok(checked(Directory::Portable(dir))),
            _ => parse_exact_slow(bytes),
        },
    }
}

/// [`FrozenBitmap::from_prefix`]: [`parse`], answered by the same checks as
/// [`parse_exact`] where the bitmap is valid.
#[inline(never)]
pub(crate) fn parse_prefix(bytes: &[u8]) -> Result<(FrozenBitmap<'_>, &[u8]), Error> {
    match checked_prefix(bytes) {
        Some((dir, len)) => {
            let view = FrozenBitmap {
                bytes: &bytes[..len],
                dir,
                checked: true,
            };
            Ok((view, &bytes[len..]))
        }
        None => parse_prefix_slow(bytes),
    }
}

/// [`parse_prefix`] by the full parse.
#[inline(never)]
fn parse_prefix_slow(bytes: &[u8]) -> Result<(FrozenBitmap<'_>, &[u8]), Error> {
    let Parsed { bm, len, .. } = parse(bytes)?;
    Ok((bm, &bytes[len..]))
}

/// The directory of a valid bitmap at the start of `bytes` and the bytes it spans, by the
/// checks of [`parse_exact`]: [`frozen_checked`], or [`portable_checked`] for a portable
/// stream. `None` if a check fails, and the full parse then names the fault.
#[inline(always)]
pub(crate) fn checked_prefix(bytes: &[u8]) -> Option<(Directory<'_>, usize)> {
    match frozen_checked::<false>(bytes) {
        Some(dir) => Some((Directory::Frozen(dir), read32(bytes, 12) as usize)),
        None => {
            let (dir, _, len) = portable_checked(bytes)?;
            Some((Directory::Portable(dir), len))
        }
    }
}

/// The directory of a valid frozen bitmap at the start of `bytes` (its length is the
/// header's total), by the checks of [`parse_bitmap`] (the header's, then
/// [`directory_holds`]); `None` if one fails or the bytes are not a frozen bitmap. Only answers in registers: the view built
/// at the merge of the parse's success and its errors was stored field by field and read
/// back in wider loads (store-forwarding stalls, a fifth of an open of a few containers).
/// With `EXACT`, the bitmap must span all of `bytes`.
#[inline(always)]
fn frozen_checked<const EXACT: bool>(bytes: &[u8]) -> Option<FrozenDir<'_>> {
    if bytes.len() < HEADER_LEN
        || bytes[..4] != MAGIC
        || bytes[4] != VERSION
        || bytes[5] & !FLAG_CRC != 0
        || bytes[6] != 0
        || bytes[7] != 0
    {
        return None;
    }
    let n = read32(bytes, 8) as usize;
    let total = read32(bytes, 12) as usize;
    let trailer = if bytes[5] & FLAG_CRC != 0 {
        TRAILER_LEN
    } else {
        0
    };
    let dir_end = payload_start(n);
    let fits = if EXACT {
        total == bytes.len()
    } else {
        total <= bytes.len()
    };
    if n > MAX_CONTAINERS || !fits || total < dir_end + trailer {
        return None;
    }
    let dir = frozen_dir(&bytes[..total - trailer], n)?;
    let holds = if n >= DISPATCHED_CHECK {
        directory_holds(&dir, dir_end)
    } else {
        directory_holds_impl(&dir, dir_end)
    };
    holds.then_some(dir)
}

/// [`parse_exact`] by the full parse, for bytes that the checks in registers refuse or that
/// go on past the bitmap: the error that names the fault.
#[inline(never)]
fn parse_exact_slow(bytes: &[u8]) -> Result<FrozenBitmap<'_>, Error> {
    let Parsed { bm, len, .. } = parse_bitmap::<false>(bytes)?;
    if len != bytes.len() {
        let (field, at) = match bm.format() {
            Format::Frozen => (
                "total length (the slice is longer than the bitmap; use from_prefix)",
                12,
            ),
            Format::Portable => (
                "end of the last container (bytes follow the bitmap; use from_prefix)",
                len,
            ),
        };
        return Err(Error::malformed(field, at).values(len as u64, bytes.len() as u64));
    }
    Ok(bm)
}

/// [`parse`], also finding out whether the layout is canonical and whether a bitset is
/// present (for re-encoding; opening a view does not need it).
#[cfg(feature = "alloc")]
#[inline(never)]
pub(crate) fn parse_with_layout(bytes: &[u8]) -> Result<Parsed<'_>, Error> {
    parse_bitmap::<true>(bytes)
}

/// [`parse`], with the layout checks if `LAYOUT` ([`parse_with_layout`]).
#[inline(always)]
fn parse_bitmap<const LAYOUT: bool>(bytes: &[u8]) -> Result<Parsed<'_>, Error> {
    if bytes.len() >= 4 && bytes[..4] != MAGIC {
        return match portable_cookie(bytes) {
            Some(_) => parse_portable(bytes),
            None => Err(Error::bad_magic(expect::BITMAP, bytes, 0)),
        };
    }
    if bytes.len() < HEADER_LEN {
        return Err(Error::truncated(
            "header",
            0,
            HEADER_LEN as u64,
            bytes.len() as u64,
        ));
    }
    let version = bytes[4];
    if version != VERSION {
        return Err(Error::new(ErrorKind::UnsupportedVersion, "version", 4)
            .values(u64::from(VERSION), u64::from(version)));
    }
    let flags = bytes[5];
    if flags & !FLAG_CRC != 0 {
        return Err(Error::malformed("flags (unknown bits set)", 5)
            .values(u64::from(FLAG_CRC), u64::from(flags)));
    }
    if bytes[6] != 0 || bytes[7] != 0 {
        return Err(Error::malformed("reserved header field (must be 0)", 6));
    }
    let n = read32(bytes, 8) as usize;
    if n > MAX_CONTAINERS {
        return Err(Error::malformed("container count", 8).values(MAX_CONTAINERS as u64, n as u64));
    }
    let total = read32(bytes, 12) as usize;
    let trailer = if flags & FLAG_CRC != 0 {
        TRAILER_LEN
    } else {
        0
    };
    let dir_end = payload_start(n);
    if total < dir_end + trailer {
        return Err(
            Error::malformed("total length (shorter than its directory)", 12)
                .values((dir_end + trailer) as u64, total as u64),
        );
    }
    if total > bytes.len() {
        return Err(Error::truncated(
            "bitmap",
            0,
            total as u64,
            bytes.len() as u64,
        ));
    }
    let body = &bytes[..total - trailer];
    let dir = frozen_dir(body, n).ok_or_else(|| Error::malformed("directory", HEADER_LEN))?;
    if !LAYOUT && n >= VECTOR_WALK && directory_holds(&dir, dir_end) {
        return Ok(Parsed::checked(
            bytes,
            total,
            Directory::Frozen(dir),
            false,
            false,
        ));
    }
    // The walk that names the first fault (or, with `LAYOUT`, learns the layout).
    let mut prev_key: i64 = -1;
    let (mut canonical_layout, mut has_bitset) = (true, false);
    let mut pos = dir_end;
    let mut cum = 0u64;
    for i in 0..n {
        let key = dir.keys[i].get();
        if i64::from(key) <= prev_key {
            return Err(Error::malformed(
                "key (keys must be strictly increasing)",
                HEADER_LEN + 2 * i,
            )
            .values(prev_key as u64 + 1, u64::from(key)));
        }
        prev_key = i64::from(key);
        let card = u32::from(dir.cards[i].get()) + 1;
        let desc_at = HEADER_LEN + 4 * n + 4 * i;
        let desc = dir.descs[i].get();
        let kind = ContainerKind::from_code(desc)
            .ok_or_else(|| Error::malformed("descriptor (container kind 3 is invalid)", desc_at))?;
        let off = (desc >> 2) as usize;
        if !off.is_multiple_of(kind.align()) {
            return Err(
                Error::malformed("payload offset (misaligned for its kind)", desc_at)
                    .values(kind.align() as u64, off as u64),
            );
        }
        if off < pos {
            return Err(Error::malformed(
                "payload offset (overlaps the directory or the previous payload)",
                desc_at,
            )
            .values(pos as u64, off as u64));
        }
        let len = match kind {
            ContainerKind::Array if card > ARRAY_MAX => {
                return Err(Error::malformed(
                    "cardinality (an array holds at most 4096 values)",
                    HEADER_LEN + 2 * n + 2 * i,
                )
                .values(u64::from(ARRAY_MAX), u64::from(card)));
            }
            ContainerKind::Run => {
                let runs = cast::read_u16(body, off).ok_or_else(|| {
                    Error::truncated("run count", off, off as u64 + 2, body.len() as u64)
                })?;
                if runs == 0 || u32::from(runs) > MAX_RUNS {
                    return Err(
                        Error::malformed("run count (1 to 32768)", off).values(1, u64::from(runs))
                    );
                }
                payload_len(kind, card, u32::from(runs))
            }
            _ => payload_len(kind, card, 0),
        };
        if LAYOUT {
            let aligned = align_up(pos, kind.align());
            // `off` may lie past the end here (checked just below).
            canonical_layout &= off == aligned
                && body
                    .get(pos..off)
                    .is_some_and(|pad| pad.iter().all(|&b| b == 0));
            has_bitset |= kind == ContainerKind::Bitset;
        }
        let end = off + len;
        if end > body.len() {
            return Err(Error::truncated(
                "payload",
                off,
                end as u64,
                body.len() as u64,
            ));
        }
        pos = end;
        let stored = u64::from(dir.cums[i].get());
        if stored != cum {
            return Err(
                Error::malformed("cumulative cardinality", HEADER_LEN + 8 * n + 4 * i)
                    .values(cum, stored),
            );
        }
        cum += u64::from(card);
    }
    if pos != body.len() {
        return Err(
            Error::malformed("total length (bytes after the last payload)", 12)
                .values((pos + trailer) as u64, total as u64),
        );
    }
    Ok(Parsed::checked(
        bytes,
        total,
        Directory::Frozen(dir),
        canonical_layout,
        has_bitset,
    ))
}

/// From this many containers on, [`directory_holds`] checks the directory before the walk:
/// below it, the walk's branches (all predicted on a valid bitmap) cost less than the
/// vector pass's setup and call.
const VECTOR_WALK: usize = 64;

/// From this many run containers on, [`directory_holds`] reads their counts with the
/// vector kernel (a gather of sixteen at a time); below it, the scalar loop's few steps
/// cost less than the kernel's call. It is the threshold measured for the portable offset
/// header's kernel (`VECTOR_HEADER`), taken over without a measurement of its own.
const VECTOR_RUN_COUNTS: u32 = 8;

/// From this many containers on, [`frozen_checked`] calls [`directory_holds`] compiled for
/// the CPU; below it, the check inlined at the baseline's vector width costs less than the
/// call (at 16 containers the call took a tenth longer; census1881_srt, a few of whose
/// bitmaps hold 32 to 66 containers, opened a sixth faster with the call from 32 on).
const DISPATCHED_CHECK: usize = 32;

crate::simd::dispatch! {
    /// [`directory_holds_impl`], compiled for each CPU level (its first pass is vector code).
    fn directory_holds(dir: &FrozenDir<'_>, dir_end: usize) -> bool => directory_holds_impl;
}

/// Whether the directory passes every check of [`parse_bitmap`]'s walk (keys, kinds,
/// alignment, payload bounds and order, cardinalities, run counts, cumulative counts, the
/// length). Each check compares neighbouring entries, so the first pass has no chain from
/// one container to the next and compiles to vector code; run containers, whose length is
/// in their payload, get a second pass. A bitmap it rejects goes through the walk, which
/// says why.
#[inline(always)]
fn directory_holds_impl(dir: &FrozenDir<'_>, dir_end: usize) -> bool {
    let FrozenDir {
        keys,
        cards,
        descs,
        cums,
        body,
    } = *dir;
    let (Some(first), Some(last)) = (descs.first(), descs.last()) else {
        return body.len() == dir_end;
    };
    let n = keys.len();
    if cards.len() != n || descs.len() != n || cums.len() != n {
        return false;
    }
    // Payload length of an array or bitset; 0 for a run (checked in the second pass).
    let fixed_len = |desc: u32, card: u32| match desc & 3 {
        0 => 2 * card,
        1 => 8192,
        _ => 0,
    };
    let entry_ok = |desc: u32, card: u32| {
        let code = desc & 3;
        let align_mask = if code == 1 { 63 } else { 1 };
        code != 3 && (desc >> 2) & align_mask == 0 && (code != 0 || card <= ARRAY_MAX)
    };
    let mut ok = cums[0].get() == 0 && (first.get() >> 2) as usize >= dir_end;
    let mut runs = u32::from(first.get() & 3 == 2);
    ok &= entry_ok(first.get(), u32::from(cards[0].get()) + 1);
    let pairs = keys[..n - 1]
        .iter()
        .zip(&keys[1..])
        .zip(cards[..n - 1].iter().zip(&cards[1..]))
        .zip(descs[..n - 1].iter().zip(&descs[1..]))
        .zip(cums[..n - 1].iter().zip(&cums[1..]));
    for (((keys, cards), descs), cums) in pairs {
        let (d0, d1) = (descs.0.get(), descs.1.get());
        let c0 = u32::from(cards.0.get()) + 1;
        let c1 = u32::from(cards.1.get()) + 1;
        ok &= keys.1.get() > keys.0.get();
        ok &= entry_ok(d1, c1);
        ok &= (d1 >> 2) >= (d0 >> 2) + fixed_len(d0, c0);
        // In 32 bits: from `cums[0] == 0`, each count is the sum of at most 65,535
        // containers' cardinalities, below 2^32, so the sum cannot wrap to a match.
        ok &= cums.1.get() == cums.0.get().wrapping_add(c0);
        runs += u32::from(d1 & 3 == 2);
    }
    if !ok {
        return false;
    }
    let end_of = |i: usize, desc: u32| -> Option<usize> {
        let off = (desc >> 2) as usize;
        Some(off + fixed_len(desc, u32::from(cards.get(i)?.get()) + 1) as usize)
    };
    let mut end = end_of(n - 1, last.get());
    if runs > 0 {
        // Each run container's count, and its payload before the next one (or the end).
        ok &= if runs >= VECTOR_RUN_COUNTS {
            run_counts_wide(descs, body)
        } else {
            run_counts_hold(descs, body)
        };
        if last.get() & 3 == 2 {
            let (count_ok, e) = run_end(body, last.get());
            ok &= count_ok;
            end = Some(e);
        }
    }
    ok &= end == Some(body.len());
    ok
}

/// Whether the run container of entry `desc` has a count in `1..=MAX_RUNS`, and where its
/// payload ends (a count past the body read as 0).
#[inline(always)]
fn run_end(body: &[u8], desc: u32) -> (bool, usize) {
    let off = (desc >> 2) as usize;
    let count = cast::read_u16(body, off).map_or(0, u32::from);
    (
        count.wrapping_sub(1) < MAX_RUNS,
        off + 2 + 4 * count as usize,
    )
}

/// The run-count pass of [`directory_holds`] for all containers but the last (of at
/// least one): each run container's count, and its payload before the next one. The
/// checks are folded into one flag, without a branch on their answers, so that only the
/// kind (the same for most neighbours) steers the loop.
#[inline(always)]
fn run_counts_hold(descs: &[U32], body: &[u8]) -> bool {
    let mut ok = true;
    for (d0, d1) in descs.iter().zip(descs.get(1..).unwrap_or(&[])) {
        if d0.get() & 3 == 2 {
            let (count_ok, e) = run_end(body, d0.get());
            ok &= count_ok && e <= (d1.get() >> 2) as usize;
        }
    }
    ok
}

/// [`run_counts_hold`] for a directory of many run containers: sixteen at a time with the
/// vector kernel where the CPU has it. Out of line, so that the check inlined into the
/// open of small bitmaps keeps its code.
#[inline(never)]
fn run_counts_wide(descs: &[U32], body: &[u8]) -> bool {
    crate::simd::frozen_run_counts_hold(descs, body).unwrap_or_else(|| run_counts_hold(descs, body))
}

/// The directory slices for `n` containers; `None` if `body` is too short.
fn frozen_dir(body: &[u8], n: usize) -> Option<FrozenDir<'_>> {
    let section = |i: usize, width: usize| {
        body.get(HEADER_LEN + i * 2 * n..HEADER_LEN + i * 2 * n + width * n)
    };
    let keys: &[U16] = cast::u16s(section(0, 2)?)?;
    let cards: &[U16] = cast::u16s(section(1, 2)?)?;
    let descs: &[U32] = cast::u32s(body.get(HEADER_LEN + 4 * n..HEADER_LEN + 8 * n)?)?;
    let cums: &[U32] = cast::u32s(body.get(HEADER_LEN + 8 * n..HEADER_LEN + 12 * n)?)?;
    Some(FrozenDir {
        keys,
        cards,
        descs,
        cums,
        body,
    })
}

#[inline]
fn read32(bytes: &[u8], off: usize) -> u32 {
    cast::read_u32(bytes, off).unwrap_or(0)
}

/// The unchecked view of the bitmap at the start of `bytes` (either format) and the number
/// of bytes it spans; O(1) for the frozen format and for portable streams with an offset
/// header. For stepping over nested bitmaps already checked.
pub(crate) fn unchecked_prefix(bytes: &[u8]) -> (FrozenBitmap<'_>, usize) {
    let bm = unchecked(bytes);
    match bm.dir {
        Directory::Portable(d) => {
            let end = portable_end(&d).min(bytes.len());
            (unchecked(&bytes[..end]), end)
        }
        Directory::Frozen(_) => (bm, bm.bytes.len()),
    }
}

/// The O(1) constructor for trusted bytes. Reads the header only; anything that does not
/// fit the slice yields an empty directory, so even wrong bytes stay memory-safe.
pub(crate) fn unchecked(bytes: &[u8]) -> FrozenBitmap<'_> {
    if bytes.len() >= 4
        && bytes[..4] != MAGIC
        && let Some(h) = portable_cookie(bytes)
    {
        return unchecked_portable(bytes, h);
    }
    let n = (read32(bytes, 8) as usize).min(MAX_CONTAINERS);
    let total = (read32(bytes, 12) as usize).min(bytes.len());
    let trailer = if bytes.get(5).is_some_and(|f| f & FLAG_CRC != 0) {
        TRAILER_LEN
    } else {
        0
    };
    let body = &bytes[..total.saturating_sub(trailer)];
    let dir = frozen_dir(body, n).unwrap_or(FrozenDir::EMPTY);
    FrozenBitmap {
        bytes: &bytes[..total],
        dir: Directory::Frozen(dir),
        checked: false,
    }
}

/// The structural and strict checks (O(size)).
pub(crate) fn validate(bm: &FrozenBitmap<'_>) -> Result<(), Error> {
    // Re-check the structure first: the view may come from `from_bytes_unchecked`.
    validate_checked(&parse(bm.bytes)?.bm)
}

/// The strict checks of a view whose structure a checked constructor verified: every
/// payload, the padding, the checksum.
pub(crate) fn validate_checked(bm: &FrozenBitmap<'_>) -> Result<(), Error> {
    check_payloads(bm)?;
    if matches!(bm.dir, Directory::Frozen(_)) {
        bm.verify()?;
    }
    Ok(())
}

crate::simd::dispatch! {
    /// Every payload of `bm` against the Roaring invariants, and (frozen format) the zero
    /// padding between them: one call compiled for each CPU level, the loop inside it.
    fn check_payloads(bm: &FrozenBitmap<'_>) -> Result<(), Error> => check_payloads_impl;
}

#[inline(always)]
fn check_payloads_impl(bm: &FrozenBitmap<'_>) -> Result<(), Error> {
    let Directory::Frozen(dir) = bm.dir else {
        // Portable streams have no padding and no checksum: only the payloads to check.
        for i in 0..bm.dir.n() {
            if let Err((what, at)) = validate::check(bm.dir.container(i), bm.dir.card(i)) {
                return Err(Error::corrupt(what, bm.dir.offset(i) + at));
            }
        }
        return Ok(());
    };
    let mut pos = payload_start(bm.dir.n());
    for i in 0..bm.dir.n() {
        let off = bm.dir.offset(i);
        if dir
            .body
            .get(pos..off)
            .is_some_and(|pad| pad.iter().any(|&b| b != 0))
        {
            return Err(Error::corrupt("padding (must be zero)", pos));
        }
        let c = bm.dir.container(i);
        if let Err((what, at)) = validate::check(c, bm.dir.card(i)) {
            return Err(Error::corrupt(what, off + at));
        }
        pos = off + c.stored_len();
    }
    Ok(())
}
