//! Laying a bitmap out in the frozen format: header, directory and aligned payloads, from
//! the encoder's containers or a view's, into a growing vector or a caller's slice, with
//! the trailer's checksum when it is on.

use alloc::vec::Vec;
use core::ops::Range;

use super::{Encoder, Meta};
use crate::checksum::crc32c;
use crate::error::{Error, ErrorKind};
use crate::format::*;
use crate::view::FrozenBitmap;

/// Where a container's payload comes from when a bitmap is laid out.
pub(crate) trait Containers {
    fn n(&self) -> usize;
    /// The bytes the payloads are borrowed from: payloads that lie back to back there and
    /// in the output are copied in one piece.
    fn source(&self) -> &[u8];
    /// Key, kind, cardinality and payload bytes of container `i`. For a run container the
    /// bytes are the runs only; the run count before them is written by `emit`.
    fn get(&self, i: usize) -> (u16, ContainerKind, u32, &[u8]);
}

/// Bytes a payload takes in the frozen format (runs get their count in front).
#[inline]
pub(crate) fn stored_len(kind: ContainerKind, payload: &[u8]) -> usize {
    payload.len() + if kind == ContainerKind::Run { 2 } else { 0 }
}

pub(crate) struct Encoded<'a>(pub(crate) &'a Encoder);

impl Containers for Encoded<'_> {
    fn n(&self) -> usize {
        self.0.metas.len()
    }
    fn source(&self) -> &[u8] {
        &self.0.payload
    }
    #[inline]
    fn get(&self, i: usize) -> (u16, ContainerKind, u32, &[u8]) {
        let Meta {
            key,
            kind,
            card,
            start,
            len,
        } = self.0.metas[i];
        (key, kind, card, &self.0.payload[start..start + len])
    }
}

pub(crate) struct Viewed<'a, 'b>(pub(crate) &'b FrozenBitmap<'a>);

impl Containers for Viewed<'_, '_> {
    fn n(&self) -> usize {
        self.0.container_count()
    }
    fn source(&self) -> &[u8] {
        self.0.as_bytes()
    }
    #[inline]
    fn get(&self, i: usize) -> (u16, ContainerKind, u32, &[u8]) {
        let (key, c) = self.0.container_at(i);
        let payload = crate::container::payload_bytes(&c);
        (key, c.kind(), self.0.dir.card(i), payload)
    }
}

/// Output targets: a growing `Vec` or a caller's slice (already checked to be large enough).
pub(crate) trait Sink {
    fn put(&mut self, bytes: &[u8]);
    fn zeros(&mut self, n: usize);
    /// Appends `n` bytes written by `fill` in place.
    fn fill(&mut self, n: usize, fill: impl FnOnce(&mut [u8]));
}

impl Sink for Vec<u8> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        crate::cast::extend_bytes(self, bytes);
    }
    #[inline]
    fn zeros(&mut self, n: usize) {
        self.resize(self.len() + n, 0);
    }
    #[inline]
    fn fill(&mut self, n: usize, fill: impl FnOnce(&mut [u8])) {
        let start = self.len();
        self.resize(start + n, 0);
        fill(&mut self[start..]);
    }
}

pub(crate) struct SliceSink<'b> {
    buf: &'b mut [u8],
    pos: usize,
}

impl Sink for SliceSink<'_> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        crate::cast::copy_bytes(&mut self.buf[self.pos..self.pos + bytes.len()], bytes);
        self.pos += bytes.len();
    }
    #[inline]
    fn zeros(&mut self, n: usize) {
        self.buf[self.pos..self.pos + n].fill(0);
        self.pos += n;
    }
    #[inline]
    fn fill(&mut self, n: usize, fill: impl FnOnce(&mut [u8])) {
        fill(&mut self.buf[self.pos..self.pos + n]);
        self.pos += n;
    }
}

/// Size of the bitmap laid out from `src`, and whether it holds a bitset.
pub(crate) fn layout_size<C: Containers>(src: &C, checksum: bool) -> (usize, bool) {
    let mut pos = payload_start(src.n());
    let mut has_bitset = false;
    for i in 0..src.n() {
        let (_, kind, _, payload) = src.get(i);
        has_bitset |= kind == ContainerKind::Bitset;
        pos = align_up(pos, kind.align()) + stored_len(kind, payload);
    }
    (pos + if checksum { TRAILER_LEN } else { 0 }, has_bitset)
}

/// The header of a bitmap of `n` containers and `total` bytes.
pub(crate) fn header(n: usize, total: usize, checksum: bool) -> [u8; HEADER_LEN] {
    let mut header = [0u8; HEADER_LEN];
    header[..4].copy_from_slice(&MAGIC);
    header[4] = VERSION;
    header[5] = if checksum { FLAG_CRC } else { 0 };
    header[8..12].copy_from_slice(&(n as u32).to_le_bytes());
    header[12..16].copy_from_slice(&(total as u32).to_le_bytes());
    header
}

/// Writes the four directory arrays of `n` containers into `dir` (`12 n` bytes) in one
/// pass; `entry(i)` gives container `i`'s key, kind, cardinality and payload length (for
/// runs, without the run count). Payload offsets follow the layout: from the end of the
/// directory, each payload aligned for its kind.
pub(crate) fn fill_directory(
    dir: &mut [u8],
    n: usize,
    entry: impl Fn(usize) -> (u16, ContainerKind, u32, usize),
) {
    let (keys, rest) = dir.split_at_mut(2 * n);
    let (cards, rest) = rest.split_at_mut(2 * n);
    let (descs, cums) = rest.split_at_mut(4 * n);
    let mut pos = payload_start(n);
    let mut cum = 0u32;
    let fields = keys
        .chunks_exact_mut(2)
        .zip(cards.chunks_exact_mut(2))
        .zip(descs.chunks_exact_mut(4).zip(cums.chunks_exact_mut(4)));
    for (i, ((key, card), (desc, cum_out))) in fields.enumerate() {
        let (k, kind, c, len) = entry(i);
        key.copy_from_slice(&k.to_le_bytes());
        card.copy_from_slice(&((c - 1) as u16).to_le_bytes());
        pos = align_up(pos, kind.align());
        desc.copy_from_slice(&(((pos as u32) << 2) | kind.code()).to_le_bytes());
        pos += len + if kind == ContainerKind::Run { 2 } else { 0 };
        cum_out.copy_from_slice(&cum.to_le_bytes());
        cum = cum.wrapping_add(c);
    }
}

/// Writes the bitmap laid out from `src` (of `total` bytes, from `layout_size`) into `sink`;
/// the trailer is left to the caller.
pub(crate) fn emit<C: Containers, S: Sink>(src: &C, total: usize, checksum: bool, sink: &mut S) {
    let n = src.n();
    sink.put(&header(n, total, checksum));
    sink.fill(12 * n, |dir| {
        fill_directory(dir, n, |i| {
            let (key, kind, card, payload) = src.get(i);
            (key, kind, card, payload.len())
        })
    });
    let mut pos = payload_start(n);
    let mut pending = Pending::new(src.source());
    for i in 0..n {
        let (_, kind, _, payload) = src.get(i);
        let aligned = align_up(pos, kind.align());
        // Arrays and bitsets that need no padding join the payload before them when they
        // follow it in the source too; runs get their count in front, so start anew.
        if aligned != pos || kind == ContainerKind::Run || !pending.join(payload) {
            pending.flush(sink);
            sink.zeros(aligned - pos);
            if kind == ContainerKind::Run {
                sink.put(&((payload.len() / 4) as u16).to_le_bytes());
            }
            pending.start(payload, sink);
        }
        pos = aligned + stored_len(kind, payload);
    }
    pending.flush(sink);
}

/// Payloads that lie back to back in a source, not yet copied: sparse bitmaps (one short
/// array after another) are copied in one piece rather than a call per container.
struct Pending<'s> {
    source: &'s [u8],
    range: Range<usize>,
}

impl<'s> Pending<'s> {
    /// Where no payload can follow: `join` never succeeds until `start`.
    const NOWHERE: Range<usize> = usize::MAX..usize::MAX;

    fn new(source: &'s [u8]) -> Pending<'s> {
        Pending {
            source,
            range: Self::NOWHERE,
        }
    }

    /// Where `payload` lies in the source, if it does.
    #[inline]
    fn locate(&self, payload: &[u8]) -> Option<Range<usize>> {
        let at = (payload.as_ptr() as usize).checked_sub(self.source.as_ptr() as usize)?;
        let range = at..at.checked_add(payload.len())?;
        (range.end <= self.source.len()).then_some(range)
    }

    /// Adds `payload` if it starts where the pending bytes end.
    #[inline]
    fn join(&mut self, payload: &[u8]) -> bool {
        match self.locate(payload) {
            Some(r) if r.start == self.range.end => {
                self.range.end = r.end;
                true
            }
            _ => false,
        }
    }

    /// Makes `payload` the pending bytes (copied at once if it is not in the source).
    #[inline]
    fn start<S: Sink>(&mut self, payload: &[u8], sink: &mut S) {
        match self.locate(payload) {
            Some(r) => self.range = r,
            None => {
                sink.put(payload);
                self.range = Self::NOWHERE;
            }
        }
    }

    /// Copies the pending bytes.
    #[inline]
    fn flush<S: Sink>(&mut self, sink: &mut S) {
        if let Some(bytes) = self.source.get(self.range.clone()) {
            sink.put(bytes);
        }
        self.range = Self::NOWHERE;
    }
}

/// Pads `out` to the alignment a bitmap needs and returns where the bitmap starts.
pub(crate) fn pad(out: &mut Vec<u8>, has_bitset: bool) -> usize {
    let start = align_up(out.len(), if has_bitset { BITSET_ALIGN } else { 4 });
    out.resize(start, 0);
    start
}

impl Encoder {
    /// Writes the encoded bitmap at the end of `out` (after padding).
    pub(crate) fn finish_vec(&mut self, out: &mut Vec<u8>) -> Range<usize> {
        let src = Encoded(self);
        let (total, has_bitset) = layout_size(&src, self.checksum);
        let start = pad(out, has_bitset);
        out.reserve(total);
        emit(&src, total, self.checksum, out);
        self.seal(out, start, total);
        self.last_bitset = has_bitset;
        start..start + total
    }

    /// Finishes a bitmap whose payloads the encoder wrote in place, in direct mode, into
    /// `out[base..]` after room for `n_bound` directory entries. If fewer containers came
    /// out, the payloads move down to where the smaller directory puts them (positions only
    /// decrease, so moving them in order never overwrites one not yet moved); then the
    /// header and directory are written in front. If more came out than the room was made
    /// for (only from views of bytes that `from_bytes` refuses, opened unchecked: their
    /// keys need not increase, and the callers' bounds assume they do), all the payloads
    /// first move up by enough, a multiple of 64 so that bitsets stay aligned.
    pub(crate) fn finish_direct(
        &mut self,
        out: &mut Vec<u8>,
        base: usize,
        n_bound: usize,
    ) -> Range<usize> {
        let metas = &mut self.metas;
        let n = metas.len();
        let has_bitset = metas.iter().any(|m| m.kind == ContainerKind::Bitset);
        let (need, room) = (payload_start(n), payload_start(n_bound));
        if need > room {
            let (shift, end) = (align_up(need - room, BITSET_ALIGN), out.len());
            out.resize(end + shift, 0);
            out.copy_within(base + room..end, base + room + shift);
            for m in metas.iter_mut() {
                m.start += shift;
            }
        }
        if n != n_bound {
            let mut pos = payload_start(n);
            for m in metas.iter_mut() {
                let prefix = if m.kind == ContainerKind::Run { 2 } else { 0 };
                let to = base + align_up(pos, m.kind.align());
                out[base + pos..to].fill(0);
                out.copy_within(m.start - prefix..m.start + m.len, to);
                m.start = to + prefix;
                pos = to - base + prefix + m.len;
            }
            out.truncate(base + pos);
        }
        let total = out.len() - base + if self.checksum { TRAILER_LEN } else { 0 };
        out[base..base + HEADER_LEN].copy_from_slice(&header(n, total, self.checksum));
        let metas = &self.metas;
        fill_directory(
            &mut out[base + HEADER_LEN..base + payload_start(n)],
            n,
            |i| {
                let m = &metas[i];
                (m.key, m.kind, m.card, m.len)
            },
        );
        self.last_bitset = has_bitset;
        self.seal(out, base, total);
        base..base + total
    }

    pub(crate) fn finish_slice(&mut self, buf: &mut [u8]) -> Result<usize, Error> {
        let src = Encoded(self);
        let (total, _) = layout_size(&src, self.checksum);
        if buf.len() < total {
            return Err(Error::new(ErrorKind::BufferTooSmall, "output", 0)
                .values(total as u64, buf.len() as u64));
        }
        let body = total - if self.checksum { TRAILER_LEN } else { 0 };
        emit(
            &src,
            total,
            self.checksum,
            &mut SliceSink {
                buf: &mut buf[..body],
                pos: 0,
            },
        );
        if self.checksum {
            let crc = crc32c(&buf[..body]);
            buf[body..total].copy_from_slice(&crc.to_le_bytes());
        }
        Ok(total)
    }

    /// Fixes the header of the bitmap at `out[start..]` for this writer's checksum setting
    /// and appends the trailer if needed.
    pub(crate) fn seal(&self, out: &mut Vec<u8>, start: usize, total: usize) {
        out[start + 5] = if self.checksum { FLAG_CRC } else { 0 };
        out[start + 12..start + 16].copy_from_slice(&(total as u32).to_le_bytes());
        if self.checksum {
            let crc = crc32c(&out[start..]);
            out.extend_from_slice(&crc.to_le_bytes());
        }
        debug_assert_eq!(out.len(), start + total);
    }
}
