//! Turning strictly ascending values into container payloads, one container at a time.

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::cast::{self, BITSET_WORDS};
use crate::container::{count_array_runs, count_bitset_runs};
use crate::error::Error;
use crate::format::{canonical_kind, ContainerKind, ARRAY_MAX};

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
    lows: Vec<u16>,
    bits: Box<[u64; BITSET_WORDS]>,
    in_bits: bool,
    /// Key of the open container, or `NO_KEY`.
    key: u32,
    card: u32,
    /// Values accepted since `reset`.
    count: u64,
    last: u32,
}

const NO_KEY: u32 = u32::MAX;

impl Encoder {
    pub(crate) fn new() -> Encoder {
        Encoder {
            metas: Vec::new(),
            payload: Vec::new(),
            lows: Vec::with_capacity(ARRAY_MAX as usize),
            bits: Box::new([0; BITSET_WORDS]),
            in_bits: false,
            key: NO_KEY,
            card: 0,
            count: 0,
            last: 0,
        }
    }

    /// Forgets everything encoded so far (keeps the capacity).
    pub(crate) fn reset(&mut self) {
        if self.in_bits {
            self.bits.fill(0);
        }
        self.metas.clear();
        self.payload.clear();
        self.lows.clear();
        self.in_bits = false;
        self.key = NO_KEY;
        self.card = 0;
        self.count = 0;
        self.last = 0;
    }

    /// Number of values accepted since `reset`.
    pub(crate) fn count(&self) -> u64 {
        self.count
    }

    /// Adds the next value; it must be greater than the previous one.
    #[inline]
    pub(crate) fn push(&mut self, v: u32) -> Result<(), Error> {
        if self.count != 0 && v <= self.last {
            return Err(Error::not_ascending(self.count, self.last, v));
        }
        self.last = v;
        self.count += 1;
        let key = v >> 16;
        if key != self.key {
            self.close();
            self.key = key;
        }
        let lo = v as u16;
        self.card += 1;
        if self.in_bits {
            self.bits[usize::from(lo >> 6)] |= 1 << (lo & 63);
        } else if self.lows.len() < ARRAY_MAX as usize {
            self.lows.push(lo);
        } else {
            for &x in &self.lows {
                self.bits[usize::from(x >> 6)] |= 1 << (x & 63);
            }
            self.bits[usize::from(lo >> 6)] |= 1 << (lo & 63);
            self.lows.clear();
            self.in_bits = true;
        }
        Ok(())
    }

    /// Encodes the open container (if any) in its canonical kind.
    pub(crate) fn close(&mut self) {
        if self.key == NO_KEY {
            return;
        }
        let start = self.payload.len();
        let kind = if self.in_bits {
            let runs = count_bitset_runs(self.bits.iter().copied());
            let kind = canonical_kind(self.card, runs);
            if kind == ContainerKind::Run {
                bitset_runs(&self.bits, |s, e| push_run(&mut self.payload, s, e));
            } else {
                cast::extend_u64s(&mut self.payload, &self.bits[..]);
            }
            self.bits.fill(0);
            self.in_bits = false;
            kind
        } else {
            let runs = count_array_runs(self.lows.iter().copied());
            let kind = canonical_kind(self.card, runs);
            if kind == ContainerKind::Run {
                array_runs(&self.lows, |s, e| push_run(&mut self.payload, s, e));
            } else {
                cast::extend_u16s(&mut self.payload, &self.lows);
            }
            self.lows.clear();
            kind
        };
        self.metas.push(Meta {
            key: self.key as u16,
            kind,
            card: self.card,
            start,
            len: self.payload.len() - start,
        });
        self.key = NO_KEY;
        self.card = 0;
    }
}

#[inline]
fn push_run(out: &mut Vec<u8>, start: u16, end: u16) {
    let [a, b] = start.to_le_bytes();
    let [c, d] = (end - start).to_le_bytes();
    out.extend_from_slice(&[a, b, c, d]);
}

/// Calls `f(start, end)` for each maximal run of strictly increasing `values`.
fn array_runs(values: &[u16], mut f: impl FnMut(u16, u16)) {
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

/// Calls `f(start, end)` for each maximal run of set bits.
pub(crate) fn bitset_runs(bits: &[u64; BITSET_WORDS], mut f: impl FnMut(u16, u16)) {
    let mut i = 0usize;
    let mut w = bits[0];
    loop {
        while w == 0 {
            i += 1;
            if i == BITSET_WORDS {
                return;
            }
            w = bits[i];
        }
        let start = i * 64 + w.trailing_zeros() as usize;
        w |= w - 1; // set the bits below the run's start
        while w == u64::MAX {
            i += 1;
            if i == BITSET_WORDS {
                f(start as u16, u16::MAX);
                return;
            }
            w = bits[i];
        }
        let end = i * 64 + (!w).trailing_zeros() as usize - 1;
        f(start as u16, end as u16);
        w &= w.wrapping_add(1); // clear the run
    }
}
