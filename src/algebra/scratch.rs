//! [`Scratch`]: one result container under construction, in whichever representation its
//! kernel produces best (sorted values, a bitset, or runs), and its canonical encoding.

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::cast::{self, BITSET_WORDS};
use crate::container::Container;
use crate::format::{canonical_kind, ContainerKind};
use crate::write::encode::{self, Encoder, Meta};

/// Which buffer holds the container.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Repr {
    /// No value.
    Empty,
    /// Sorted distinct values in `lows`.
    Lows,
    /// A bitset in `bits` with `card` bits set.
    Bits,
    /// Sorted, disjoint, non-adjacent runs in `runs`, `card` values in all.
    Runs,
}

/// Reusable buffers for one container. Invariant: `bits` and `bits2` are all zero unless
/// `repr == Bits` (for `bits`), so kernels that set a few words need not clear 8 KiB first.
pub(crate) struct Scratch {
    pub(crate) lows: Vec<u16>,
    pub(crate) lows2: Vec<u16>,
    pub(crate) bits: Box<[u64; BITSET_WORDS]>,
    pub(crate) bits2: Box<[u64; BITSET_WORDS]>,
    pub(crate) runs: Vec<(u16, u16)>,
    pub(crate) runs2: Vec<(u16, u16)>,
    pub(crate) repr: Repr,
    pub(crate) card: u32,
}

impl Scratch {
    pub(crate) fn new() -> Scratch {
        Scratch {
            lows: Vec::new(),
            lows2: Vec::new(),
            bits: Box::new([0; BITSET_WORDS]),
            bits2: Box::new([0; BITSET_WORDS]),
            runs: Vec::new(),
            runs2: Vec::new(),
            repr: Repr::Empty,
            card: 0,
        }
    }

    /// Forgets the container (restoring the zero-bitset invariant).
    #[inline]
    pub(crate) fn clear(&mut self) {
        if self.repr == Repr::Bits {
            self.bits.fill(0);
        }
        self.repr = Repr::Empty;
        self.card = 0;
    }

    /// Values in the container.
    #[inline]
    pub(crate) fn len(&self) -> u32 {
        match self.repr {
            Repr::Empty => 0,
            Repr::Lows => self.lows.len() as u32,
            Repr::Bits | Repr::Runs => self.card,
        }
    }

    /// Marks `lows` as the container.
    #[inline]
    pub(crate) fn set_lows(&mut self) {
        self.repr = if self.lows.is_empty() {
            Repr::Empty
        } else {
            Repr::Lows
        };
    }

    /// Marks `bits` as the container, counting its bits.
    #[inline]
    pub(crate) fn set_bits(&mut self) {
        self.card = self.bits.iter().map(|w| w.count_ones()).sum();
        if self.card == 0 {
            self.repr = Repr::Empty;
        } else {
            self.repr = Repr::Bits;
        }
    }

    /// Marks `runs` as the container, summing its lengths.
    #[inline]
    pub(crate) fn set_runs(&mut self) {
        self.card = self
            .runs
            .iter()
            .map(|&(s, e)| u32::from(e) - u32::from(s) + 1)
            .sum();
        self.repr = if self.runs.is_empty() {
            Repr::Empty
        } else {
            Repr::Runs
        };
    }

    /// Loads a container as it is (to be re-encoded canonically).
    pub(crate) fn load(&mut self, c: Container<'_>) {
        self.clear();
        match c {
            Container::Array(a) => {
                self.lows.clear();
                self.lows.extend(a.iter().map(|v| v.get()));
                self.set_lows();
            }
            Container::Bitset(b) => {
                for (d, w) in self.bits.iter_mut().zip(b.iter()) {
                    *d = w.get();
                }
                self.set_bits();
            }
            Container::Run(r) => {
                self.runs.clear();
                push_runs(
                    &mut self.runs,
                    r.iter().map(|r| (r.start() as u16, r.end() as u16)),
                );
                self.set_runs();
            }
        }
    }

    /// Appends the container, in its canonical kind, to the encoder's directory and
    /// payload as the container of `key`; then clears it.
    pub(crate) fn emit(&mut self, key: u16, enc: &mut Encoder) {
        let card = self.len();
        if card == 0 {
            self.clear();
            return;
        }
        let start = enc.payload.len();
        let out = &mut enc.payload;
        let kind = match self.repr {
            Repr::Empty => return,
            Repr::Lows => {
                let runs = encode::count_array_runs(self.lows.iter().copied());
                let kind = canonical_kind(card, runs);
                match kind {
                    ContainerKind::Array => cast::extend_u16s(out, &self.lows),
                    ContainerKind::Run => {
                        encode::array_runs(&self.lows, |s, e| encode::push_run(out, s, e))
                    }
                    ContainerKind::Bitset => {
                        for &v in &self.lows {
                            self.bits2[usize::from(v >> 6)] |= 1 << (v & 63);
                        }
                        cast::extend_u64s(out, &self.bits2[..]);
                        self.bits2.fill(0);
                    }
                }
                kind
            }
            Repr::Bits => {
                let runs = encode::count_bitset_runs(self.bits.iter().copied());
                let kind = canonical_kind(card, runs);
                match kind {
                    ContainerKind::Bitset => cast::extend_u64s(out, &self.bits[..]),
                    ContainerKind::Run => {
                        encode::bitset_runs(&self.bits, |s, e| encode::push_run(out, s, e))
                    }
                    ContainerKind::Array => {
                        self.lows2.clear();
                        extract(&self.bits, &mut self.lows2);
                        cast::extend_u16s(out, &self.lows2);
                    }
                }
                self.bits.fill(0);
                kind
            }
            Repr::Runs => {
                let kind = canonical_kind(card, self.runs.len() as u32);
                match kind {
                    ContainerKind::Run => {
                        for &(s, e) in &self.runs {
                            encode::push_run(out, s, e);
                        }
                    }
                    ContainerKind::Array => {
                        self.lows2.clear();
                        for &(s, e) in &self.runs {
                            self.lows2.extend(s..=e);
                        }
                        cast::extend_u16s(out, &self.lows2);
                    }
                    ContainerKind::Bitset => {
                        for &(s, e) in &self.runs {
                            encode::fill_bits(&mut self.bits2, s, e);
                        }
                        cast::extend_u64s(out, &self.bits2[..]);
                        self.bits2.fill(0);
                    }
                }
                kind
            }
        };
        enc.metas.push(Meta {
            key,
            kind,
            card,
            start,
            len: enc.payload.len() - start,
        });
        self.repr = Repr::Empty;
        self.card = 0;
    }
}

/// Appends the set bits of `bits` as values.
#[inline]
pub(crate) fn extract(bits: &[u64; BITSET_WORDS], out: &mut Vec<u16>) {
    for (i, &w) in bits.iter().enumerate() {
        let mut w = w;
        while w != 0 {
            out.push((i * 64) as u16 + w.trailing_zeros() as u16);
            w &= w - 1;
        }
    }
}

/// Appends runs `(start, end)` given in ascending order of start, merging overlapping and
/// adjacent ones (so even a corrupt input gives well-formed runs).
#[inline]
pub(crate) fn push_runs(out: &mut Vec<(u16, u16)>, runs: impl Iterator<Item = (u16, u16)>) {
    for (s, e) in runs {
        push_run(out, s, e);
    }
}

/// Appends one run, merging it into the last one if they overlap or touch. Runs must come
/// in ascending order of start.
#[inline]
pub(crate) fn push_run(out: &mut Vec<(u16, u16)>, s: u16, e: u16) {
    if let Some(last) = out.last_mut() {
        if u32::from(s) <= u32::from(last.1) + 1 {
            if e > last.1 {
                last.1 = e;
            }
            return;
        }
    }
    out.push((s, e));
}
