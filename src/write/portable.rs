//! Emitting the RoaringFormatSpec portable format, byte for byte as CRoaring's
//! `roaring_bitmap_portable_serialize` lays it out: cookie 12346 and a `u32` count when no
//! container is a run container, else cookie 12347 with the count in its high half and a
//! run-flag bitset; `(key, card - 1)` pairs; the offset header unless the stream has runs and
//! fewer than 4 containers; then the payloads back to back.

use crate::encode::layout::{Containers, Sink};
use crate::error::Error;
use crate::format::*;

/// How a container is written in the portable format.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Out {
    /// Its payload bytes as they are (arrays, bitsets, and runs after their count).
    Copy,
    /// A bitset of at most 4096 values: the portable format infers the kind from the
    /// cardinality, so it must be written as an array (only non-canonical frozen input).
    BitsetAsArray,
}

#[inline]
fn how(kind: ContainerKind, card: u32) -> Out {
    if kind == ContainerKind::Bitset && card <= ARRAY_MAX {
        Out::BitsetAsArray
    } else {
        Out::Copy
    }
}

#[inline]
fn stored_len(kind: ContainerKind, card: u32, payload: &[u8]) -> usize {
    match how(kind, card) {
        Out::BitsetAsArray => 2 * card as usize,
        Out::Copy => crate::encode::layout::stored_len(kind, payload),
    }
}

fn has_runs<C: Containers>(src: &C) -> bool {
    (0..src.n()).any(|i| src.get(i).1 == ContainerKind::Run)
}

/// Bytes before the first payload.
fn header_len(n: usize, runs: bool) -> usize {
    if runs {
        4 + n.div_ceil(8)
            + 4 * n
            + if n >= PORTABLE_NO_OFFSET_THRESHOLD {
                4 * n
            } else {
                0
            }
    } else {
        8 + 8 * n
    }
}

/// Size of the portable encoding of `src`.
pub(super) fn size<C: Containers>(src: &C) -> usize {
    let n = src.n();
    let mut total = header_len(n, has_runs(src));
    for i in 0..n {
        let (_, kind, card, payload) = src.get(i);
        total += stored_len(kind, card, payload);
    }
    total
}

/// Checks that every container can be written: a bitset written as an array must hold
/// exactly its stored cardinality (it may not in a view whose payloads were never checked).
pub(super) fn check<C: Containers>(src: &C) -> Result<(), Error> {
    for i in 0..src.n() {
        let (_, kind, card, payload) = src.get(i);
        if how(kind, card) == Out::BitsetAsArray {
            let ones: u32 = payload.iter().map(|b| b.count_ones()).sum();
            if ones != card {
                return Err(Error::corrupt(
                    "bitset container (its popcount differs from its stored cardinality)",
                    0,
                )
                .values(u64::from(card), u64::from(ones)));
            }
        }
    }
    Ok(())
}

/// Writes the portable encoding of `src` (checked by [`check`]).
pub(super) fn emit<C: Containers, S: Sink>(src: &C, sink: &mut S) {
    let n = src.n();
    let runs = has_runs(src);
    if runs {
        let cookie = PORTABLE_COOKIE_RUNS | ((n as u32 - 1) << 16);
        sink.put(&cookie.to_le_bytes());
        let mut byte = 0u8;
        for i in 0..n {
            if src.get(i).1 == ContainerKind::Run {
                byte |= 1 << (i % 8);
            }
            if i % 8 == 7 || i + 1 == n {
                sink.put(&[byte]);
                byte = 0;
            }
        }
    } else {
        sink.put(&PORTABLE_COOKIE_NO_RUNS.to_le_bytes());
        sink.put(&(n as u32).to_le_bytes());
    }
    for i in 0..n {
        let (key, _, card, _) = src.get(i);
        let mut pair = [0u8; 4];
        pair[..2].copy_from_slice(&key.to_le_bytes());
        pair[2..].copy_from_slice(&((card - 1) as u16).to_le_bytes());
        sink.put(&pair);
    }
    if !runs || n >= PORTABLE_NO_OFFSET_THRESHOLD {
        let mut pos = header_len(n, runs);
        for i in 0..n {
            sink.put(&(pos as u32).to_le_bytes());
            let (_, kind, card, payload) = src.get(i);
            pos += stored_len(kind, card, payload);
        }
    }
    for i in 0..n {
        let (_, kind, card, payload) = src.get(i);
        match how(kind, card) {
            Out::Copy => {
                if kind == ContainerKind::Run {
                    sink.put(&((payload.len() / 4) as u16).to_le_bytes());
                }
                sink.put(payload);
            }
            Out::BitsetAsArray => {
                for (w, word) in payload.chunks_exact(8).enumerate() {
                    let mut bits = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
                    while bits != 0 {
                        let lo = (w * 64) as u16 + bits.trailing_zeros() as u16;
                        sink.put(&lo.to_le_bytes());
                        bits &= bits - 1;
                    }
                }
            }
        }
    }
}
