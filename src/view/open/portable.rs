//! The portable format's checks: its cookie and header, the offset header checked in
//! registers, and the walk that names a fault.

use super::*;

/// The directory, cardinality (where the check summed it) and length of a valid portable
/// stream at the start of `bytes`, by the checks of [`parse_portable`] (the offset
/// header's, or the walk of a stream of at most 3 containers without one); `None` if a
/// check fails or the bytes are not a portable stream. Only answers in registers: a view
/// and a `Result` built on the way were moved through memory and read back on every
/// bucket of every deletion vector opened, and on every open of a portable bitmap.
#[inline(always)]
pub(super) fn portable_checked(bytes: &[u8]) -> Option<(PortableDir<'_>, Option<u64>, usize)> {
    if bytes.len() < 8 {
        return None;
    }
    let h = portable_cookie(bytes)?;
    if h.n > MAX_CONTAINERS {
        return None;
    }
    let off_end = h.descs_at + if h.offsets { 8 } else { 4 } * h.n;
    if off_end > bytes.len() {
        return None;
    }
    let mut dir = portable_dir(bytes, h)?;
    if h.n == 0 {
        // A stream of no containers (an empty bucket): its header only.
        dir.body = &bytes[..off_end];
        return Some((dir, Some(0), off_end));
    }
    if h.offsets {
        let (end, _, card) = offsets_hold(&dir, off_end)?;
        dir.body = &bytes[..end];
        return Some((dir, card, end));
    }
    let (mut pos, mut prev_key, mut card) = (off_end, -1i32, 0u64);
    for (i, desc) in dir.descs.iter().enumerate() {
        let key = i32::from(desc.key.get());
        if key <= prev_key {
            return None;
        }
        prev_key = key;
        if let Some(s) = dir.seq.get_mut(i) {
            *s = pos as u32;
        }
        let kind = dir.kind(i);
        let runs = if kind == ContainerKind::Run {
            let runs = u32::from(cast::read_u16(bytes, pos)?);
            if runs == 0 || runs > MAX_RUNS {
                return None;
            }
            runs
        } else {
            0
        };
        pos += payload_len(kind, dir.card(i), runs);
        if pos > bytes.len() {
            return None;
        }
        card += u64::from(dir.card(i));
    }
    dir.body = &bytes[..pos];
    Some((dir, Some(card), pos))
}

/// The layout facts of a portable stream's header: container count, run-flag bytes,
/// whether an offset header is present, and where the descriptors start.
#[derive(Clone, Copy)]
pub(super) struct PortableHeader {
    n: usize,
    run_flags: usize,
    offsets: bool,
    descs_at: usize,
}

/// Reads the cookie of a portable stream (at least 4 bytes). `None` if it is not one.
pub(super) fn portable_cookie(bytes: &[u8]) -> Option<PortableHeader> {
    let cookie = read32(bytes, 0);
    if cookie == PORTABLE_COOKIE_NO_RUNS {
        // The count is checked by the caller (it may be missing or too large).
        let n = read32(bytes, 4) as usize;
        Some(PortableHeader {
            n,
            run_flags: 0,
            offsets: true,
            descs_at: 8,
        })
    } else if cookie & 0xFFFF == PORTABLE_COOKIE_RUNS {
        let n = (cookie >> 16) as usize + 1;
        let run_flags = n.div_ceil(8);
        Some(PortableHeader {
            n,
            run_flags,
            offsets: n >= PORTABLE_NO_OFFSET_THRESHOLD,
            descs_at: 4 + run_flags,
        })
    } else {
        None
    }
}

/// The directory of a portable stream with header `h`; `None` if `bytes` is too short for
/// the descriptors and offsets. `seq` is filled by the caller.
fn portable_dir(bytes: &[u8], h: PortableHeader) -> Option<PortableDir<'_>> {
    let desc_end = h.descs_at + 4 * h.n;
    let off_end = desc_end + if h.offsets { 4 * h.n } else { 0 };
    Some(PortableDir {
        descs: cast::key_cards(bytes.get(h.descs_at..desc_end)?)?,
        run_flags: bytes.get(4..4 + h.run_flags)?,
        offsets: cast::u32s(bytes.get(desc_end..off_end)?)?,
        seq: [off_end as u32; 3],
        body: bytes,
    })
}

/// Stored size of container `i` of `dir` at `off`: `None` if a run count is out of bounds.
#[inline]
fn portable_payload_len(dir: &PortableDir<'_>, i: usize, off: usize) -> Option<(usize, u16)> {
    let kind = dir.kind(i);
    let runs = match kind {
        ContainerKind::Run => cast::read_u16(dir.body, off)?,
        _ => 0,
    };
    Some((payload_len(kind, dir.card(i), u32::from(runs)), runs))
}

/// From this many containers on, [`offsets_hold`] checks the offset header with the vector
/// kernel: below it, the scalar loop's few predicted steps cost less than the kernel's call
/// and setup (at 4 containers the kernel took a third longer).
const VECTOR_HEADER: usize = 8;

/// The checks of [`parse_portable`]'s walk for a stream with an offset header, made from
/// the header: each container's size (its run count read where its stored offset says)
/// must lead to the next stored offset. No size waits for the one before it, as it does in
/// the walk. Returns the end of the last payload and whether a bitset is present; `None`
/// if a check fails (or there is no offset header), and the walk then says why.
#[inline(always)]
fn offsets_hold(dir: &PortableDir<'_>, off_end: usize) -> Option<(usize, bool, Option<u64>)> {
    let (descs, offsets) = (dir.descs, dir.offsets);
    if descs.len() >= VECTOR_HEADER
        && let Some(facts) =
            crate::simd::portable_offsets_hold(descs, dir.run_flags, offsets, dir.body, off_end)
    {
        return facts.map(|(end, has_bitset, card)| (end, has_bitset, Some(card)));
    }
    let first = offsets.first()?;
    if descs.len() != offsets.len() {
        return None;
    }
    let mut ok = first.get() as usize == off_end;
    let mut has_bitset = false;
    let mut end = 0;
    let mut prev_key = -1i32;
    for (i, (desc, off)) in descs.iter().zip(offsets).enumerate() {
        let key = i32::from(desc.key.get());
        ok &= key > prev_key;
        prev_key = key;
        let off = off.get() as usize;
        let kind = dir.kind(i);
        has_bitset |= kind == ContainerKind::Bitset;
        // The run count read here, a missing one counted as 0, rather than through
        // `portable_payload_len`: its early return made the whole check a quarter slower.
        let runs = if kind == ContainerKind::Run {
            let runs = cast::read_u16(dir.body, off).map_or(0, u32::from);
            ok &= runs != 0 && runs <= MAX_RUNS;
            runs
        } else {
            0
        };
        end = off + payload_len(kind, dir.card(i), runs);
        ok &= offsets
            .get(i + 1)
            .is_none_or(|next| next.get() as usize == end);
    }
    ok &= end <= dir.body.len();
    ok.then_some((end, has_bitset, None))
}

/// Structural validation of a portable (RoaringFormatSpec) stream at the start of `bytes`,
/// in O(containers). Every count is bounded by the bytes present before it is used, and
/// an offset header that disagrees with where the containers actually lie is rejected, so
/// the view and any sequential decoder see the same set.
#[inline(always)]
pub(super) fn parse_portable(bytes: &[u8]) -> Result<Parsed<'_>, Error> {
    let Some(h) = portable_cookie(bytes) else {
        return Err(Error::bad_magic(expect::BITMAP, bytes, 0));
    };
    if h.run_flags == 0 {
        if bytes.len() < 8 {
            return Err(Error::truncated(
                "container count",
                4,
                8,
                bytes.len() as u64,
            ));
        }
        if h.n > MAX_CONTAINERS {
            return Err(Error::malformed("container count (at most 65536)", 4)
                .values(MAX_CONTAINERS as u64, h.n as u64));
        }
    }
    let off_end = h.descs_at + if h.offsets { 8 } else { 4 } * h.n;
    if off_end > bytes.len() {
        // Name the first section that does not fit, at its own offset.
        let (field, at) = if h.descs_at > bytes.len() {
            ("run-flag bitset", 4)
        } else if h.descs_at + 4 * h.n > bytes.len() {
            ("container descriptors", h.descs_at)
        } else {
            ("offset header", h.descs_at + 4 * h.n)
        };
        return Err(Error::truncated(
            field,
            at,
            off_end as u64,
            bytes.len() as u64,
        ));
    }
    let mut dir = portable_dir(bytes, h)
        .ok_or_else(|| Error::malformed("container descriptors", h.descs_at))?;
    if let Some((end, has_bitset, known_len)) = offsets_hold(&dir, off_end) {
        dir.body = &bytes[..end];
        return Ok(Parsed {
            known_len,
            ..Parsed::checked(bytes, end, Directory::Portable(dir), false, has_bitset)
        });
    }
    walk_portable(bytes, h, dir, off_end)
}

/// The walk over a portable stream's containers that names the first fault (and the only
/// check of a stream without an offset header): each container where the one before it
/// ends, its run count read there.
fn walk_portable<'a>(
    bytes: &'a [u8],
    h: PortableHeader,
    mut dir: PortableDir<'a>,
    off_end: usize,
) -> Result<Parsed<'a>, Error> {
    let mut prev_key: i64 = -1;
    let mut has_bitset = false;
    let mut pos = off_end;
    for i in 0..h.n {
        let key = dir.descs[i].key.get();
        if i64::from(key) <= prev_key {
            return Err(Error::malformed(
                "key (keys must be strictly increasing)",
                h.descs_at + 4 * i,
            )
            .values(prev_key as u64 + 1, u64::from(key)));
        }
        prev_key = i64::from(key);
        if let Some(stored) = dir.offsets.get(i) {
            let stored = stored.get() as usize;
            if stored != pos {
                return Err(Error::malformed(
                    "offset header (disagrees with where the container lies after the previous one)",
                    h.descs_at + 4 * h.n + 4 * i,
                )
                .values(pos as u64, stored as u64));
            }
        } else if let Some(s) = dir.seq.get_mut(i) {
            *s = pos as u32;
        }
        let kind = dir.kind(i);
        has_bitset |= kind == ContainerKind::Bitset;
        let (len, runs) = portable_payload_len(&dir, i, pos).ok_or_else(|| {
            Error::truncated("run count", pos, pos as u64 + 2, bytes.len() as u64)
        })?;
        if kind == ContainerKind::Run && (runs == 0 || u32::from(runs) > MAX_RUNS) {
            return Err(Error::malformed("run count (1 to 32768)", pos).values(1, u64::from(runs)));
        }
        let end = pos + len;
        if end > bytes.len() {
            return Err(Error::truncated(
                "container payload",
                pos,
                end as u64,
                bytes.len() as u64,
            ));
        }
        pos = end;
    }
    dir.body = &bytes[..pos];
    Ok(Parsed::checked(
        bytes,
        pos,
        Directory::Portable(dir),
        false,
        has_bitset,
    ))
}

/// The unchecked constructor for portable bytes: O(1) with an offset header, else a walk
/// over at most 3 containers. Anything that does not fit the slice reads as empty.
pub(super) fn unchecked_portable(bytes: &[u8], mut h: PortableHeader) -> FrozenBitmap<'_> {
    h.n = h.n.min(MAX_CONTAINERS);
    let Some(mut dir) = portable_dir(bytes, h) else {
        return FrozenBitmap {
            bytes,
            dir: Directory::Portable(PortableDir {
                descs: &[],
                run_flags: &[],
                offsets: &[],
                seq: [0; 3],
                body: &[],
            }),
            checked: false,
        };
    };
    if !h.offsets {
        let mut pos = dir.seq[0] as usize;
        for i in 0..h.n.min(3) {
            dir.seq[i] = pos as u32;
            pos += portable_payload_len(&dir, i, pos).map_or(0, |(len, _)| len);
        }
    }
    FrozenBitmap {
        bytes,
        dir: Directory::Portable(dir),
        checked: false,
    }
}

/// End of the last payload of a portable stream, from its header and last container alone
/// (O(1) with an offset header). Used to step over streams without parsing them again.
pub(crate) fn portable_end(dir: &PortableDir<'_>) -> usize {
    let Some(last) = dir.descs.len().checked_sub(1) else {
        return if dir.run_flags.is_empty() {
            8
        } else {
            4 + dir.run_flags.len()
        };
    };
    let off = dir.offset(last);
    off + portable_payload_len(dir, last, off).map_or(0, |(len, _)| len)
}

/// The portable walk alone, for tests that check [`offsets_hold`] against it.
#[cfg(test)]
pub(crate) fn parse_portable_walk(bytes: &[u8]) -> Result<(), Error> {
    let h = portable_cookie(bytes).ok_or_else(|| Error::bad_magic(expect::BITMAP, bytes, 0))?;
    let off_end = h.descs_at + if h.offsets { 8 } else { 4 } * h.n;
    let dir = portable_dir(bytes, h).ok_or_else(|| Error::malformed("descriptors", 4))?;
    walk_portable(bytes, h, dir, off_end).map(|_| ())
}
