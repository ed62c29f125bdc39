//! Turning strictly ascending values into container payloads, one container at a time,
//! and laying them out as a frozen bitmap ([`layout`]).

pub(crate) mod layout;

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::bits::{bitset_runs_capped, fill_bits};
use crate::cast::{self, BITSET_WORDS};
use crate::error::Error;
use crate::format::{ARRAY_MAX, ContainerKind, canonical_kind};

/// One encoded container: its directory fields and where its payload is in the scratch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Meta {
    pub key: u16,
    pub kind: ContainerKind,
    pub card: u32,
    pub start: usize,
    pub len: usize,
}

/// Reusable scratch state: payloads are appended to `payload` (for run containers, the
/// runs without their count), directory fields to `metas`.
/// Holds the values of at most one container at a time (in `lows` or `bits`).
pub(crate) struct Encoder {
    pub(crate) metas: Vec<Meta>,
    pub(crate) payload: Vec<u8>,
    /// The open container's low parts while it has at most 4096 values.
    lows: Box<[u16; ARRAY_MAX as usize]>,
    /// Number of values in `lows`.
    n_lows: usize,
    /// The open container's values once it has more than 4096.
    bits: Box<[u64; BITSET_WORDS]>,
    in_bits: bool,
    /// Key of the open container, or `NO_KEY`.
    key: u32,
    card: u32,
    /// Values accepted since `reset`.
    count: u64,
    /// The last value accepted, or -1.
    prev: i64,
    /// Direct mode (set operations writing into the caller's buffer, see
    /// [`begin`](Self::begin)): where the bitmap starts in `payload`.
    pub(crate) direct: Option<usize>,
    /// Whether laid-out bitmaps get a checksum trailer (the writer's setting).
    pub(crate) checksum: bool,
    /// Whether the last bitmap laid out holds a bitset container (and so was aligned to
    /// 64 bytes).
    pub(crate) last_bitset: bool,
}

const NO_KEY: u32 = u32::MAX;

impl Encoder {
    /// Prepares `payload` for the next container's payload and returns where it starts.
    /// Normally payloads are packed (laid out when the bitmap is written); in direct mode
    /// `payload` is the output itself, so the container is laid out as it will stay: the
    /// padding before a bitset (relative to the bitmap's start) and a run container's run
    /// count (`nruns`, checked again by [`record`](Self::record)) come first.
    #[inline(always)]
    pub(crate) fn begin(&mut self, kind: ContainerKind, nruns: usize) -> usize {
        if let Some(base) = self.direct {
            let pos = self.payload.len() - base;
            self.payload
                .resize(base + crate::format::align_up(pos, kind.align()), 0);
            if kind == ContainerKind::Run {
                self.payload
                    .extend_from_slice(&(nruns as u16).to_le_bytes());
            }
        }
        self.payload.len()
    }

    /// Records the container of `key` whose payload was appended from `start` (from
    /// [`begin`](Self::begin)) to the end.
    #[inline]
    pub(crate) fn record(&mut self, key: u16, kind: ContainerKind, card: u32, start: usize) {
        let len = self.payload.len() - start;
        if self.direct.is_some() && kind == ContainerKind::Run {
            // The run count written before the runs, from the runs actually written.
            let count = ((len / 4) as u16).to_le_bytes();
            self.payload[start - 2..start].copy_from_slice(&count);
        }
        self.metas.push(Meta {
            key,
            kind,
            card,
            start,
            len,
        });
    }

    pub(crate) fn new() -> Encoder {
        Encoder {
            metas: Vec::new(),
            payload: Vec::new(),
            lows: Box::new([0; ARRAY_MAX as usize]),
            n_lows: 0,
            bits: Box::new([0; BITSET_WORDS]),
            in_bits: false,
            key: NO_KEY,
            card: 0,
            count: 0,
            prev: -1,
            direct: None,
            checksum: false,
            last_bitset: false,
        }
    }

    /// Forgets everything encoded so far (keeps the capacity).
    pub(crate) fn reset(&mut self) {
        if self.in_bits {
            self.bits.fill(0);
        }
        self.metas.clear();
        self.payload.clear();
        self.n_lows = 0;
        self.in_bits = false;
        self.key = NO_KEY;
        self.card = 0;
        self.count = 0;
        self.prev = -1;
    }

    /// Number of values accepted since `reset`.
    pub(crate) fn count(&self) -> u64 {
        self.count
    }

    /// Adds the next value; it must be greater than the previous one.
    #[inline]
    pub(crate) fn push(&mut self, v: u32) -> Result<(), Error> {
        self.extend(core::iter::once(v))
    }

    /// Adds values in order, stopping at the first that is not greater than its
    /// predecessor (that value and the rest are not added). The per-value state lives in
    /// locals, so the loop keeps it in registers.
    #[inline]
    pub(crate) fn extend<I: IntoIterator<Item = u32>>(&mut self, values: I) -> Result<(), Error> {
        let (mut prev, mut count, mut key, mut card, mut in_bits, mut n_lows) = (
            self.prev,
            self.count,
            self.key,
            self.card,
            self.in_bits,
            self.n_lows,
        );
        // In bitset mode, the bits of word `word` are gathered in `acc` and stored when
        // the word changes: sorted values mostly hit the same word in a row, and a
        // read-modify-write of memory per value would chain on store forwarding.
        let (mut word, mut acc) = (0usize, 0u64);
        let mut result = Ok(());
        for v in values {
            if i64::from(v) <= prev {
                result = Err(Error::not_ascending(count, prev as u32, v));
                break;
            }
            prev = i64::from(v);
            count += 1;
            if v >> 16 != key {
                self.bits[word] |= acc;
                acc = 0;
                (self.key, self.card, self.in_bits, self.n_lows) = (key, card, in_bits, n_lows);
                self.close();
                (key, card, in_bits, n_lows) = (v >> 16, 0, false, 0);
            }
            let lo = v as u16;
            card += 1;
            if in_bits {
                let w = usize::from(lo >> 6);
                if w != word {
                    self.bits[word] |= acc;
                    (word, acc) = (w, 0);
                }
                acc |= 1 << (lo & 63);
            } else if n_lows < self.lows.len() {
                self.lows[n_lows] = lo;
                n_lows += 1;
            } else {
                for &x in self.lows.iter() {
                    self.bits[usize::from(x >> 6)] |= 1 << (x & 63);
                }
                self.bits[usize::from(lo >> 6)] |= 1 << (lo & 63);
                n_lows = 0;
                in_bits = true;
            }
        }
        self.bits[word] |= acc;
        (
            self.prev,
            self.count,
            self.key,
            self.card,
            self.in_bits,
            self.n_lows,
        ) = (prev, count, key, card, in_bits, n_lows);
        result
    }

    /// Adds the values `start..=end` (all greater than the previous value): whole words of
    /// bits at a time once the container is a bitset, so long runs cost no per-value work.
    pub(crate) fn extend_range(&mut self, start: u32, end: u32) -> Result<(), Error> {
        if i64::from(start) <= self.prev || end < start {
            return Err(Error::not_ascending(self.count, self.prev as u32, start));
        }
        let mut s = start;
        loop {
            let e = end.min(s | 0xFFFF);
            if s >> 16 != self.key {
                self.close();
                self.key = s >> 16;
            }
            let n = e - s + 1;
            if !self.in_bits && self.n_lows + n as usize <= self.lows.len() {
                for (slot, v) in self.lows[self.n_lows..].iter_mut().zip(s..=e) {
                    *slot = v as u16;
                }
                self.n_lows += n as usize;
            } else {
                if !self.in_bits {
                    for &x in &self.lows[..self.n_lows] {
                        self.bits[usize::from(x >> 6)] |= 1 << (x & 63);
                    }
                    self.n_lows = 0;
                    self.in_bits = true;
                }
                fill_bits(&mut self.bits, s as u16, e as u16);
            }
            self.card += n;
            self.count += u64::from(n);
            self.prev = i64::from(e);
            if e == end {
                return Ok(());
            }
            s = e + 1;
        }
    }

    /// Encodes the open container (if any) in its canonical kind.
    #[inline(never)]
    pub(crate) fn close(&mut self) {
        // Up to 3 values an array is never larger than runs (2 bytes a value against at
        // least 6): sparse bitmaps close most containers here, without the general path's
        // run count and bulk copy.
        const ALWAYS_ARRAY: usize = 3;
        if self.key == NO_KEY {
            return;
        }
        if !self.in_bits && self.n_lows <= ALWAYS_ARRAY {
            let start = self.payload.len();
            for &lo in &self.lows[..self.n_lows] {
                self.payload.extend_from_slice(&lo.to_le_bytes());
            }
            self.record(self.key as u16, ContainerKind::Array, self.card, start);
            (self.key, self.card, self.n_lows) = (NO_KEY, 0, 0);
            return;
        }
        self.close_any();
    }

    /// [`close`](Self::close) for any container.
    fn close_any(&mut self) {
        let start = self.payload.len();
        let kind = if self.in_bits {
            let cap = crate::format::max_canonical_runs(self.card);
            let runs = bitset_runs_capped(&self.bits, |w| w, cap);
            let kind = canonical_kind(self.card, runs);
            if kind == ContainerKind::Run {
                bitset_runs_into(&self.bits, |w| w, runs as usize, &mut self.payload);
            } else {
                cast::extend_u64s(&mut self.payload, &self.bits[..]);
            }
            self.bits.fill(0);
            self.in_bits = false;
            kind
        } else {
            let lows = &self.lows[..self.n_lows];
            let runs = count_u16_runs(lows);
            let kind = canonical_kind(self.card, runs);
            if kind == ContainerKind::Run {
                extend_array_runs(&mut self.payload, lows, runs as usize);
            } else {
                cast::extend_u16s(&mut self.payload, lows);
            }
            self.n_lows = 0;
            kind
        };
        self.record(self.key as u16, kind, self.card, start);
        self.key = NO_KEY;
        self.card = 0;
    }
}

/// [`count_u16_runs`] as far as a canonical kind needs: exact up to `cap` runs, else a
/// count above `cap` ([`crate::simd::count_runs_u16_capped`]).
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn count_u16_runs_capped(values: &[u16], cap: u32) -> u32 {
    #[cfg(target_endian = "little")]
    return crate::simd::count_runs_u16_capped(cast::native_as_le(values), cap);
    #[cfg(not(target_endian = "little"))]
    return {
        let _ = cap;
        crate::bits::count_slice_runs(values, |v| v)
    };
}

/// Maximal runs in sorted native values ([`count_slice_runs`](crate::bits::count_slice_runs)), 16 neighbours per
/// compare where the CPU has AVX2 (see [`crate::simd::count_runs_u16`]).
#[inline]
pub(crate) fn count_u16_runs(values: &[u16]) -> u32 {
    #[cfg(target_endian = "little")]
    return crate::simd::count_runs_u16(cast::native_as_le(values));
    #[cfg(not(target_endian = "little"))]
    return crate::bits::count_slice_runs(values, |v| v);
}

/// Writes the maximal runs of `values` (split where a value is not its predecessor plus
/// one, as [`count_slice_runs`](crate::bits::count_slice_runs) counts them) into `dst` as `(start, length − 1)` pairs;
/// returns how many `u16`s were written (stops early, at whole pairs, if `dst` is too
/// short). With AVX-512, 32 values a step ([`crate::simd::array_runs_u16`]: the union of
/// two arrays that comes out as runs, census-income `or`, 1.6 times faster; building
/// census1881_srt and wikileaks_srt 6–10 % faster). Else without a branch per value: the
/// pair of the current run is written at each step (and rewritten until the run ends),
/// where a branch on each break would mispredict on arrays whose runs are short; each
/// step waits for the previous one's count of runs.
#[inline(always)]
pub(crate) fn array_runs_into(values: &[u16], dst: &mut [cast::U16]) -> usize {
    if let Some(k) = crate::simd::array_runs_u16(values, dst) {
        return boundaries_to_runs(dst, k, false, dst.len());
    }
    let Some((&first, _)) = values.split_first() else {
        return 0;
    };
    let (mut k, mut start) = (0usize, first);
    for (&p, &v) in values.iter().zip(&values[1..]) {
        let Some(pair) = dst.get_mut(2 * k..2 * k + 2) else {
            return 2 * k;
        };
        pair[0].set(start);
        pair[1].set(p.wrapping_sub(start));
        let brk = v != p.wrapping_add(1);
        k += usize::from(brk);
        start = if brk { v } else { start };
    }
    let Some(pair) = dst.get_mut(2 * k..2 * k + 2) else {
        return 2 * k;
    };
    pair[0].set(start);
    pair[1].set(values[values.len() - 1].wrapping_sub(start));
    2 * k + 2
}

/// Appends the `runs` maximal runs of `values` (their count from [`count_u16_runs`]) to
/// `out` as little-endian `(start, length − 1)` pairs, through [`array_runs_into`].
#[inline(always)]
pub(crate) fn extend_array_runs(out: &mut Vec<u8>, values: &[u16], runs: usize) {
    let start = out.len();
    let written = array_runs_into(values, cast::grow_u16s(out, 2 * runs));
    out.truncate(start + 2 * written);
}

/// Calls `f(start, end)` for each maximal run of strictly increasing `values`, value by
/// value: the reference the tests check [`array_runs_into`] and the run counts against.
#[cfg(test)]
pub(crate) fn array_runs(values: &[u16], mut f: impl FnMut(u16, u16)) {
    let Some((&first, rest)) = values.split_first() else {
        return;
    };
    let (mut start, mut end) = (first, first);
    for &v in rest {
        if u32::from(v) != u32::from(end) + 1 {
            f(start, end);
            start = v;
        }
        end = v;
    }
    f(start, end);
}

/// Appends the `nruns` maximal runs of set bits of a bitset (words read by `get`) as
/// `(start, length − 1)` little-endian pairs. The run boundaries (a set bit after a clear
/// one, a clear bit after a set one) are the set bits of `w ^ (w << 1 | carry)`; they are
/// extracted with AVX-512 where the CPU has it ([`crate::simd::bitset_values`]), else
/// as Lemire's "flatten" does (4 slots stored per step without a branch per boundary) or
/// run by run (few runs), then each pair `(start, end + 1)` is turned into `(start, end − start)`. A
/// run reaching bit 65535 ends at boundary 65536, which wraps to 0, and `0 − start − 1`
/// wraps to `65535 − start`, its right length. `nruns` must be the bitset's run count
/// (from [`bitset_runs_capped`]); a wrong count gives wrong runs, never out-of-bounds writes.
#[inline(always)] // compiled into each CPU level's copy of the callers
pub(crate) fn bitset_runs_into<T: Copy + zerocopy::IntoBytes + zerocopy::Immutable>(
    words: &[T; BITSET_WORDS],
    get: impl Fn(T) -> u64,
    nruns: usize,
    out: &mut Vec<u8>,
) {
    let start = out.len();
    let dst = cast::grow_u16s(out, 2 * nruns + 64);
    let cap = 2 * nruns;
    let mut carry = 0u64;
    let boundaries = |i: usize| {
        let w = get(words[i]);
        let t = w ^ ((w << 1) | carry);
        carry = w >> 63;
        t
    };
    // Fewer boundaries than words: run by run, skipping empty and full words (the skips
    // are long and predictable). More: flattened, skipping words without a boundary (as
    // fast as the dense flatten from 1,700 runs on, faster below). The AVX-512
    // extraction, branch-free, beats both at any count where the CPU has it.
    let vector = crate::simd::bitset_boundaries(cast::bytes_of(words), dst);
    let flat = vector.is_some() || cap >= BITSET_WORDS;
    let k = match vector {
        Some(k) => k,
        None if flat => flatten::<false>(boundaries, dst),
        None => runs_by_scan(words, &get, dst),
    };
    let open_end = flat && get(words[BITSET_WORDS - 1]) >> 63 == 1;
    let k = boundaries_to_runs(dst, k, open_end, cap);
    out.truncate(start + 2 * k);
}

/// Appends the `nruns` maximal runs of set bits of a bitset as [`bitset_runs_into`]
/// does, from its run boundaries as [`crate::simd::bitset_stats_packed`] packed them
/// (`open_end`: the bitset's last bit is set). Returns false, appending nothing, if the
/// CPU lacks the features to unpack them. A wrong `nruns` gives wrong runs, never
/// out-of-bounds writes.
#[inline(always)]
pub(crate) fn packed_runs_into(
    packed: &crate::simd::Packed,
    open_end: bool,
    nruns: usize,
    out: &mut Vec<u8>,
) -> bool {
    let start = out.len();
    let dst = cast::grow_u16s(out, 2 * nruns + 64);
    let Some(k) = crate::simd::packed_positions(packed, dst) else {
        out.truncate(start);
        return false;
    };
    let k = boundaries_to_runs(dst, k, open_end, 2 * nruns);
    out.truncate(start + 2 * k);
    true
}

/// Turns the first `k` run boundaries in `dst` (as `(start, one past the end)` pairs)
/// into `(start, length − 1)` pairs, after adding the boundary 65536 (wrapped to 0) of a
/// run that reaches the last bit if `open_end`; keeps at most `cap` slots and returns
/// how many `u16`s hold runs.
#[inline(always)]
fn boundaries_to_runs(dst: &mut [cast::U16], mut k: usize, open_end: bool, cap: usize) -> usize {
    if open_end && let Some(slot) = dst.get_mut(k) {
        slot.set(0); // boundary 65536
        k += 1;
    }
    let k = k.min(cap).min(dst.len()) & !1;
    // (start, one past the end) to (start, length − 1), as 32-bit lanes (vectorizes).
    for pair in cast::u16_pairs_mut(&mut dst[..k]) {
        let x = pair.get();
        let (s, end) = (x & 0xFFFF, x >> 16);
        pair.set(s | (end.wrapping_sub(s).wrapping_sub(1) << 16));
    }
    k
}

/// The run boundaries of a bitset, run by run: the start of each run, then one past its
/// end (65536, wrapping to 0, for a run reaching the last bit), found by skipping clear
/// words and then full words. Returns how many were written into `dst` (stops early, with
/// wrong runs, if `dst` is too short: a wrong run count from the caller).
#[inline(always)]
fn runs_by_scan<T: Copy>(
    words: &[T; BITSET_WORDS],
    get: &impl Fn(T) -> u64,
    dst: &mut [cast::U16],
) -> usize {
    let mut k = 0;
    let mut i = 0usize;
    let mut w = get(words[0]);
    loop {
        while w == 0 {
            i += 1;
            if i == BITSET_WORDS {
                return k;
            }
            w = get(words[i]);
        }
        let start = i * 64 + w.trailing_zeros() as usize;
        w |= w - 1; // set the bits below the run's start
        while w == u64::MAX {
            i += 1;
            if i == BITSET_WORDS {
                if let Some(pair) = dst.get_mut(k..k + 2) {
                    pair[0].set(start as u16);
                    pair[1].set(0); // boundary 65536
                    k += 2;
                }
                return k;
            }
            w = get(words[i]);
        }
        let end = i * 64 + (!w).trailing_zeros() as usize; // one past the run
        let Some(pair) = dst.get_mut(k..k + 2) else {
            return k;
        };
        pair[0].set(start as u16);
        pair[1].set(end as u16);
        k += 2;
        w &= w.wrapping_add(1); // clear the run
    }
}

/// Writes the positions of the set bits of the words `word(0), word(1), ...,
/// word(BITSET_WORDS - 1)` (word `i` holding positions `64 i ..`) into `dst`, which must
/// have 64 slots more than there are set bits; returns how many. Lemire's "flatten": 4
/// slots are stored per step without a branch per bit (the next word's positions overwrite
/// the unused ones). `DENSE`: words without a bit are not skipped, for when the skip test
/// would mispredict often.
#[inline(always)]
pub(crate) fn flatten<const DENSE: bool>(
    mut word: impl FnMut(usize) -> u64,
    dst: &mut [cast::U16],
) -> usize {
    let mut k = 0;
    for i in 0..BITSET_WORDS {
        let mut t = word(i);
        if !DENSE && t == 0 {
            continue;
        }
        let base = (i * 64) as u16;
        let n = t.count_ones() as usize;
        let Some(slots) = dst.get_mut(k..k + 64) else {
            break; // more bits than room: the caller's count was wrong
        };
        let (first, rest) = slots.split_at_mut(4);
        for slot in first {
            slot.set(base.wrapping_add(t.trailing_zeros() as u16));
            t &= t.wrapping_sub(1);
        }
        if n > 4 {
            for chunk in rest.chunks_exact_mut(4).take((n - 4).div_ceil(4)) {
                for slot in chunk {
                    slot.set(base.wrapping_add(t.trailing_zeros() as u16));
                    t &= t.wrapping_sub(1);
                }
            }
        }
        k += n;
    }
    k
}
