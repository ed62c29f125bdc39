//! [`Scratch`]: one result container under construction, in whichever representation its
//! kernel produces best (sorted values, a bitset, or runs), and its canonical encoding.

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::cast::{self, BITSET_WORDS};
use crate::container::Container;
use crate::encode::{self, Encoder};
use crate::format::{ContainerKind, canonical_kind, max_canonical_runs, plain_kind};

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

/// Reusable buffers for one container. `bits2` is all zero between uses; `bits` may hold
/// stale words (`bits_dirty`): kernels that overwrite every word use it as it is, kernels
/// that set a few bits call [`Scratch::zero_bits`] first, so no pass clears 8 KiB for
/// nothing.
pub(crate) struct Scratch {
    pub(crate) lows: Vec<u16>,
    pub(crate) lows2: Vec<u16>,
    pub(crate) bits: Box<[u64; BITSET_WORDS]>,
    pub(crate) bits2: Box<[u64; BITSET_WORDS]>,
    pub(crate) runs: Vec<(u16, u16)>,
    pub(crate) runs2: Vec<(u16, u16)>,
    pub(crate) repr: Repr,
    pub(crate) card: u32,
    /// Whether `bits` may hold non-zero words.
    pub(crate) bits_dirty: bool,
    /// The maximal runs of `bits`, when they were counted with its bits and their
    /// boundaries are in `packed` ([`set_bits_with_runs`](Self::set_bits_with_runs)).
    pub(crate) packed_runs: Option<u32>,
    /// Run boundaries of `bits` when `packed_runs` is set, packed by
    /// [`crate::simd::bitset_stats_packed`].
    pub(crate) packed: Box<crate::simd::Packed>,
    /// Whether results get their canonical kind (runs counted and chosen when smaller); if
    /// not, values and bitsets keep their representation, with no run counting.
    pub(crate) canonical: bool,
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
            bits_dirty: false,
            packed_runs: None,
            packed: crate::simd::Packed::new(),
            canonical: true,
        }
    }

    /// Forgets the container.
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.repr = Repr::Empty;
        self.card = 0;
        self.packed_runs = None;
    }

    /// Clears `bits` if it may hold stale words, for kernels that set only some bits.
    #[inline]
    pub(crate) fn zero_bits(&mut self) {
        if self.bits_dirty {
            self.bits.fill(0);
            self.bits_dirty = false;
        }
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

    /// Marks `bits` as the container, counting its bits (its runs are counted when it is
    /// emitted with canonical kinds, and only as far as the choice of kind needs).
    #[inline(always)] // compiled into each CPU level's copy of the kernels
    pub(crate) fn set_bits(&mut self) {
        let card = crate::bits::bitset_card(&self.bits, |w| w);
        self.set_bits_counted(card);
    }

    /// Marks `bits` as the container, whose bits the caller counted.
    #[inline(always)]
    pub(crate) fn set_bits_counted(&mut self, card: u32) {
        self.bits_dirty = true;
        self.packed_runs = None;
        self.card = card;
        self.repr = if card == 0 { Repr::Empty } else { Repr::Bits };
    }

    /// Marks `bits` as the container, counting its bits and its runs in one pass; with
    /// AVX-512, the run boundaries are also packed for the emit
    /// ([`crate::simd::bitset_stats_packed`]). For results likely to be emitted as runs;
    /// elsewhere [`set_bits`](Self::set_bits) reads less.
    #[inline(always)]
    pub(crate) fn set_bits_with_runs(&mut self) {
        let bytes = cast::bytes_of(&*self.bits);
        match crate::simd::bitset_stats_packed(bytes, &mut self.packed) {
            Some((card, runs)) => {
                self.set_bits_counted(card);
                self.packed_runs = Some(runs);
            }
            None => self.set_bits(),
        }
    }

    /// Marks `runs` as the container, summing its lengths. Kernels give sorted, disjoint,
    /// non-adjacent runs when their inputs are well formed; runs from corrupt payloads
    /// (unsorted or overlapping, which checked views allow) are sorted and merged first, so
    /// that the result is still a container the format allows (at most 65536 values).
    #[inline]
    pub(crate) fn set_runs(&mut self) {
        let pairs = |runs: &[(u16, u16)]| {
            runs_card_ordered(runs.iter().map(|&(s, e)| (u32::from(s), u32::from(e))))
        };
        let (mut card, ordered) = pairs(&self.runs);
        if !ordered {
            self.normalize_runs();
            card = pairs(&self.runs).0;
        }
        self.card = card;
        self.repr = if self.runs.is_empty() {
            Repr::Empty
        } else {
            Repr::Runs
        };
    }

    /// Sorts `runs` and merges overlapping and adjacent ones, dropping inverted ones (the
    /// cold path of [`set_runs`](Self::set_runs), for corrupt inputs; no allocation).
    #[cold]
    fn normalize_runs(&mut self) {
        self.runs.retain(|&(s, e)| s <= e);
        self.runs.sort_unstable();
        // Each run overlapping or touching the run kept before it is merged into that one.
        self.runs.dedup_by(|next, kept| {
            let merge = u32::from(next.0) <= u32::from(kept.1) + 1;
            if merge {
                kept.1 = kept.1.max(next.1);
            }
            merge
        });
    }

    /// Loads a container as it is (to be re-encoded canonically).
    pub(crate) fn load(&mut self, c: Container<'_>) {
        self.clear();
        match c {
            Container::Array(a) => {
                self.lows.clear();
                cast::extend_native(&mut self.lows, a);
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

    /// Emits the container as the container of `key` if `emit` ([`emit`](Self::emit)),
    /// else clears it; returns how many values it had either way.
    #[inline]
    pub(crate) fn emit_or_clear(&mut self, key: u16, enc: &mut Encoder, emit: bool) -> u64 {
        let n = u64::from(self.len());
        if emit {
            self.emit(key, enc);
        } else {
            self.clear();
        }
        n
    }

    /// Appends the container, in its canonical kind, to the encoder's directory and
    /// payload as the container of `key`; then clears it.
    #[inline]
    pub(crate) fn emit(&mut self, key: u16, enc: &mut Encoder) {
        super::kernels::emit(self, key, enc);
    }

    /// The body of [`emit`](Self::emit), compiled for each CPU level by `kernels::emit`.
    #[inline(always)]
    pub(crate) fn emit_impl(&mut self, key: u16, enc: &mut Encoder) {
        let card = self.len();
        if card == 0 {
            self.clear();
            return;
        }
        // The kind first (from counts), so that the encoder can lay out the container.
        let (kind, runs) = match (self.repr, self.canonical) {
            (Repr::Empty, _) => return,
            (Repr::Lows | Repr::Bits, false) => (plain_kind(card), 0),
            (Repr::Lows, true) => {
                // Counted only as far as the kind needs: most array results are arrays.
                let runs = encode::count_u16_runs_capped(&self.lows, max_canonical_runs(card));
                (canonical_kind(card, runs), runs)
            }
            (Repr::Bits, true) => {
                let runs = match self.packed_runs {
                    Some(runs) => runs,
                    None => super::kernels::bits_runs_capped(&self.bits, max_canonical_runs(card)),
                };
                (canonical_kind(card, runs), runs)
            }
            (Repr::Runs, _) => {
                let runs = self.runs.len() as u32;
                (canonical_kind(card, runs), runs)
            }
        };
        let start = enc.begin(kind, runs as usize);
        let out = &mut enc.payload;
        match (self.repr, kind) {
            (Repr::Empty, _) => {}
            (Repr::Lows, ContainerKind::Array) => cast::extend_u16s(out, &self.lows),
            (Repr::Lows, ContainerKind::Run) => {
                encode::extend_array_runs(out, &self.lows, runs as usize)
            }
            (Repr::Lows, ContainerKind::Bitset) => {
                for &v in &self.lows {
                    self.bits2[usize::from(v >> 6)] |= 1 << (v & 63);
                }
                cast::extend_u64s(out, &self.bits2[..]);
                self.bits2.fill(0);
            }
            (Repr::Bits, ContainerKind::Bitset) => cast::extend_u64s(out, &self.bits[..]),
            (Repr::Bits, ContainerKind::Run) => {
                let open_end = self.bits[BITSET_WORDS - 1] >> 63 == 1;
                if !(self.packed_runs.is_some()
                    && encode::packed_runs_into(&self.packed, open_end, runs as usize, out))
                {
                    encode::bitset_runs_into(&self.bits, |w| w, runs as usize, out)
                }
            }
            (Repr::Bits, ContainerKind::Array) => extract(&self.bits, |w| w, card as usize, out),
            (Repr::Runs, ContainerKind::Run) => {
                // A plain loop over pairs, which vectorizes (the runs are known in full).
                let dst = cast::grow_u16s(out, 2 * self.runs.len());
                for (pair, &(s, e)) in dst.chunks_exact_mut(2).zip(&self.runs) {
                    pair[0].set(s);
                    pair[1].set(e.wrapping_sub(s));
                }
            }
            (Repr::Runs, ContainerKind::Array) => {
                self.lows2.clear();
                for &(s, e) in &self.runs {
                    self.lows2.extend(s..=e);
                }
                cast::extend_u16s(out, &self.lows2);
            }
            (Repr::Runs, ContainerKind::Bitset) => {
                for &(s, e) in &self.runs {
                    crate::bits::fill_bits(&mut self.bits2, s, e);
                }
                cast::extend_u64s(out, &self.bits2[..]);
                self.bits2.fill(0);
            }
        }
        enc.record(key, kind, card, start);
        self.clear();
    }
}

/// Appends the `card` set bits of `bits` as little-endian `u16` values, written straight
/// into `out` with AVX-512 where the CPU has it ([`crate::simd::bitset_values`]), else
/// by [`encode::flatten`] (its dense form when there are values in most words).
#[inline(always)] // compiled into each CPU level's copy of `emit`
pub(crate) fn extract<T: Copy + zerocopy::IntoBytes + zerocopy::Immutable>(
    bits: &[T; BITSET_WORDS],
    get: impl Fn(T) -> u64,
    card: usize,
    out: &mut Vec<u8>,
) {
    let start = out.len();
    let dst = cast::grow_u16s(out, card + 64);
    let word = |i: usize| get(bits[i]);
    let k = if let Some(k) = crate::simd::bitset_values(cast::bytes_of(bits), dst) {
        k
    } else if card >= BITSET_WORDS / 4 {
        encode::flatten::<true>(word, dst)
    } else {
        encode::flatten::<false>(word, dst)
    };
    debug_assert_eq!(k, card);
    out.truncate(start + 2 * k.min(card));
}

/// The values in runs `(start, end)`, and whether the runs are well formed: each
/// `start <= end`, sorted, disjoint and non-adjacent (a corrupt payload can break this; the
/// count is then meaningless). One pass, for the result and pass-through paths.
#[inline]
pub(crate) fn runs_card_ordered(runs: impl Iterator<Item = (u32, u32)>) -> (u32, bool) {
    let (mut card, mut ordered, mut next) = (0u32, true, 0u32);
    for (s, e) in runs {
        ordered &= s >= next && s <= e;
        next = e.wrapping_add(2);
        card = card.wrapping_add(e.wrapping_sub(s).wrapping_add(1));
    }
    (card, ordered)
}

/// Appends runs `(start, end)` given in ascending order of start, merging overlapping and
/// adjacent ones (so even a corrupt input gives well-formed runs).
#[inline]
pub(crate) fn push_runs(out: &mut Vec<(u16, u16)>, runs: impl Iterator<Item = (u16, u16)>) {
    for (s, e) in runs {
        push_run(out, s, e);
    }
}

/// Whether a run starting at `s` overlaps or touches a run ending at `end` that starts no
/// later: the two then make one run. The rule of [`push_run`] and of the kernels' run
/// accumulator (`RunAcc`), which appends by index where the room is known in advance.
#[inline(always)]
pub(crate) fn joins(end: u16, s: u16) -> bool {
    u32::from(s) <= u32::from(end) + 1
}

/// Appends one run, merging it into the last one if they overlap or touch. Runs must come
/// in ascending order of start.
#[inline]
pub(crate) fn push_run(out: &mut Vec<(u16, u16)>, s: u16, e: u16) {
    if let Some(last) = out.last_mut()
        && joins(last.1, s)
    {
        if e > last.1 {
            last.1 = e;
        }
        return;
    }
    out.push((s, e));
}
