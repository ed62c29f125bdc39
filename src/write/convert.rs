//! Re-encoding a checked view in the other format: one pass over its directory that writes
//! the new header and directory in place, then the payloads copied in stretches of
//! containers that lie back to back in both layouts (the portable format has no padding,
//! the frozen one pads only before bitsets), so a bitmap of a thousand small containers is
//! a handful of copies, not a thousand.
//!
//! Both functions trust the directory of a view from a checked constructor, and still read
//! every payload through bounds-checked slices: on a directory that lies they stop and
//! report it, and the caller falls back to the general path.

use alloc::vec::Vec;

use crate::cast;
use crate::encode::layout::{header, pad};
use crate::format::*;
use crate::view::dir::{FrozenDir, PortableDir};

/// Copies `body[from..to]` to the end of `out`; `false` if the range is outside `body`.
#[inline]
fn copy_stretch(out: &mut Vec<u8>, body: &[u8], from: usize, to: usize) -> bool {
    match body.get(from..to) {
        Some(bytes) => {
            cast::extend_stretch(out, bytes);
            true
        }
        None => false,
    }
}

/// Payload size of a frozen container (descriptor `desc`, `card` values), with its run
/// count; `None` for a bitset of at most 4096 values (written as an array in the portable
/// format, which the general path does) or a run count outside the body.
#[inline]
fn frozen_payload(body: &[u8], desc: u32, card: u32) -> Option<usize> {
    match desc & 3 {
        0 => Some(2 * card as usize),
        1 if card > ARRAY_MAX => Some(8192),
        2 => Some(2 + 4 * usize::from(cast::read_u16(body, (desc >> 2) as usize)?)),
        _ => None,
    }
}

/// [`frozen_to_portable`] for one container, the common case of short posting lists:
/// the header appended straight from registers (cookie, count or run flag, descriptor and
/// offset), then the payload.
#[inline]
fn one_to_portable(dir: &FrozenDir<'_>, out: &mut Vec<u8>) -> bool {
    let (Some(key), Some(card), Some(desc)) =
        (dir.keys.first(), dir.cards.first(), dir.descs.first())
    else {
        return false;
    };
    let (card_m1, desc) = (card.get(), desc.get());
    let Some(len) = frozen_payload(dir.body, desc, u32::from(card_m1) + 1) else {
        return false;
    };
    let off = (desc >> 2) as usize;
    let Some(payload) = dir.body.get(off..off + len) else {
        return false;
    };
    let pair = u32::from(key.get()) | u32::from(card_m1) << 16;
    out.reserve(16 + len);
    if desc & 3 == 2 {
        // Cookie 12347 with count - 1 = 0 in its high half, the run flag, no offsets.
        out.extend_from_slice(&PORTABLE_COOKIE_RUNS.to_le_bytes());
        out.push(1);
        out.extend_from_slice(&pair.to_le_bytes());
    } else {
        // Cookie 12346, a count of 1, and the payload's offset: 16, right after.
        out.extend_from_slice(&(u64::from(PORTABLE_COOKIE_NO_RUNS) | 1 << 32).to_le_bytes());
        out.extend_from_slice(&(u64::from(pair) | 16 << 32).to_le_bytes());
    }
    cast::extend_stretch(out, payload);
    true
}

/// Appends the portable encoding of a frozen directory to `out` (byte for byte what the
/// general path writes). Returns `false`, with `out` as it was, if the general path must
/// do it (a bitset written as an array) or the directory disagrees with the bytes.
pub(super) fn frozen_to_portable(dir: &FrozenDir<'_>, out: &mut Vec<u8>) -> bool {
    let (keys, cards, descs, body) = (dir.keys, dir.cards, dir.descs, dir.body);
    let n = keys.len();
    if cards.len() != n || descs.len() != n {
        return false;
    }
    if n == 1 {
        return one_to_portable(dir, out);
    }
    let start = out.len();
    let runs = descs.iter().any(|d| d.get() & 3 == 2);
    let offsets = !runs || n >= PORTABLE_NO_OFFSET_THRESHOLD;
    let flags_len = if runs { n.div_ceil(8) } else { 0 };
    let head = if runs { 4 + flags_len } else { 8 };
    let header_len = head + 4 * n + if offsets { 4 * n } else { 0 };
    out.resize(start + header_len, 0);
    let (cookie, rest) = out[start..].split_at_mut(head);
    if runs {
        let word = PORTABLE_COOKIE_RUNS | ((n as u32).wrapping_sub(1) << 16);
        cookie[..4].copy_from_slice(&word.to_le_bytes());
    } else {
        cookie[..4].copy_from_slice(&PORTABLE_COOKIE_NO_RUNS.to_le_bytes());
        cookie[4..8].copy_from_slice(&(n as u32).to_le_bytes());
    }
    let (pairs, offs) = rest.split_at_mut(4 * n);
    let mut pos = header_len;
    let mut ok = true;
    for (i, ((key, card), desc)) in keys.iter().zip(cards).zip(descs).enumerate() {
        let (card_m1, desc) = (card.get(), desc.get());
        let pair = u32::from(key.get()) | u32::from(card_m1) << 16;
        pairs[4 * i..4 * i + 4].copy_from_slice(&pair.to_le_bytes());
        if offsets {
            offs[4 * i..4 * i + 4].copy_from_slice(&(pos as u32).to_le_bytes());
        }
        if runs && desc & 3 == 2 {
            cookie[4 + i / 8] |= 1 << (i % 8);
        }
        match frozen_payload(body, desc, u32::from(card_m1) + 1) {
            Some(len) => pos += len,
            None => ok = false,
        }
    }
    // The payloads, in stretches that lie back to back in the frozen body too.
    let (mut from, mut to) = (0usize, 0usize);
    for (card, desc) in cards.iter().zip(descs) {
        if !ok {
            break;
        }
        let (off, card) = ((desc.get() >> 2) as usize, u32::from(card.get()) + 1);
        let len = frozen_payload(body, desc.get(), card).unwrap_or(0);
        if off != to {
            ok = copy_stretch(out, body, from, to);
            from = off;
        }
        to = off + len;
    }
    if ok && copy_stretch(out, body, from, to) && out.len() - start == pos {
        return true;
    }
    out.truncate(start);
    false
}

/// [`portable_to_frozen`] for one container, the common case of short posting lists:
/// padding, header and directory entry appended straight from registers, then the
/// payload, with the sizes known before anything is written.
#[inline]
fn one_to_frozen(
    dir: &PortableDir<'_>,
    checksum: bool,
    out: &mut Vec<u8>,
) -> Option<(usize, usize, bool)> {
    let desc = dir.descs.first()?;
    let card_m1 = desc.card_minus_one.get();
    let (kind, off) = (dir.kind(0), dir.offset(0));
    let len = match kind {
        ContainerKind::Run => 2 + 4 * usize::from(cast::read_u16(dir.body, off)?),
        _ => payload_len(kind, u32::from(card_m1) + 1, 0),
    };
    let payload = dir.body.get(off..off.checked_add(len)?)?;
    let has_bitset = kind == ContainerKind::Bitset;
    let at = align_up(payload_start(1), kind.align());
    let total = at + len + if checksum { TRAILER_LEN } else { 0 };
    // Each piece is appended straight from registers: building them in a stack block and
    // copying it would read back, in wide loads, bytes just written in narrow stores.
    let before = out.len();
    let start = align_up(before, if has_bitset { BITSET_ALIGN } else { 4 });
    out.reserve(2 * BITSET_ALIGN + total);
    // Zero padding as a fixed-size block (a constant store, no call), cut back to length.
    out.extend_from_slice(&[0; BITSET_ALIGN]);
    out.truncate(start);
    out.extend_from_slice(&header(1, total, checksum));
    out.extend_from_slice(&desc.key.get().to_le_bytes());
    out.extend_from_slice(&card_m1.to_le_bytes());
    out.extend_from_slice(&(((at as u32) << 2) | kind.code()).to_le_bytes());
    out.extend_from_slice(&[0; BITSET_ALIGN]);
    out.truncate(start + at);
    cast::extend_stretch(out, payload);
    Some((start, total, has_bitset))
}

/// Appends the frozen layout of a portable directory to `out`: padding for alignment,
/// header, directory and payloads, without the trailer, which the caller's `seal` adds
/// (it also writes the total). Returns where the bitmap starts, its total size (trailer
/// included when `checksum`) and whether it holds a bitset; `None`, with `out` as it was,
/// if the directory disagrees with the bytes.
pub(super) fn portable_to_frozen(
    dir: &PortableDir<'_>,
    checksum: bool,
    out: &mut Vec<u8>,
) -> Option<(usize, usize, bool)> {
    let (descs, body) = (dir.descs, dir.body);
    let n = descs.len();
    if n == 1 {
        return one_to_frozen(dir, checksum, out);
    }
    let has_bitset = (0..n).any(|i| dir.kind(i) == ContainerKind::Bitset);
    let before = out.len();
    let start = pad(out, has_bitset);
    let at = payload_start(n);
    // Portable payloads lie back to back, and the frozen layout pads only before bitsets.
    let first = dir.offset(0);
    out.reserve(at + body.len().saturating_sub(first) + if has_bitset { 64 * n } else { 0 });
    out.resize(start + at, 0);
    let d = &mut out[start + HEADER_LEN..start + at];
    let (keys, rest) = d.split_at_mut(2 * n);
    let (cards, rest) = rest.split_at_mut(2 * n);
    let (entries, cums) = rest.split_at_mut(4 * n);
    let (mut pos, mut cum) = (at, 0u32);
    let mut ok = true;
    for (i, desc) in descs.iter().enumerate() {
        let card_m1 = desc.card_minus_one.get();
        let kind = dir.kind(i);
        pos = align_up(pos, kind.align());
        let len = match kind {
            ContainerKind::Run => match cast::read_u16(body, dir.offset(i)) {
                Some(runs) => 2 + 4 * usize::from(runs),
                None => {
                    ok = false;
                    0
                }
            },
            _ => payload_len(kind, u32::from(card_m1) + 1, 0),
        };
        keys[2 * i..2 * i + 2].copy_from_slice(&desc.key.get().to_le_bytes());
        cards[2 * i..2 * i + 2].copy_from_slice(&card_m1.to_le_bytes());
        let entry = ((pos as u32) << 2) | kind.code();
        entries[4 * i..4 * i + 4].copy_from_slice(&entry.to_le_bytes());
        cums[4 * i..4 * i + 4].copy_from_slice(&cum.to_le_bytes());
        cum = cum.wrapping_add(u32::from(card_m1) + 1);
        pos += len;
    }
    let total = pos + if checksum { TRAILER_LEN } else { 0 };
    out[start..start + HEADER_LEN].copy_from_slice(&header(n, total, checksum));
    if !has_bitset {
        // No padding anywhere: the payloads are one copy.
        ok &= copy_stretch(out, body, first, first + (pos - at));
    } else {
        let (mut from, mut to) = (first, first);
        let mut written = at;
        for (i, desc) in descs.iter().enumerate() {
            if !ok {
                break;
            }
            let card = u32::from(desc.card_minus_one.get()) + 1;
            let kind = dir.kind(i);
            let len = if kind == ContainerKind::Run {
                cast::read_u16(body, to).map_or(0, |r| 2 + 4 * usize::from(r))
            } else if kind == ContainerKind::Array {
                payload_len(kind, card, 0)
            } else {
                let aligned = align_up(written + (to - from), BITSET_ALIGN);
                if aligned != written + (to - from) {
                    ok = copy_stretch(out, body, from, to);
                    out.resize(start + aligned, 0);
                    (from, written) = (to, aligned);
                }
                8192
            };
            to += len;
        }
        ok &= copy_stretch(out, body, from, to);
    }
    if ok && out.len() - start == pos {
        return Some((start, total, has_bitset));
    }
    out.truncate(before);
    None
}
