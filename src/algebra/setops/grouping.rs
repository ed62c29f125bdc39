//! Many-way operations: bringing each key's containers of many views together (a
//! counting sort over close keys, a heap over spread ones) and combining them.

use super::*;

/// The writer's buffers for bringing many views' containers together key by key.
pub(super) struct Grouping<'w, 'v> {
    pub(super) counts: &'w mut Vec<u32>,
    pub(super) cursors: &'w mut Vec<usize>,
    pub(super) hits: &'w mut Vec<usize>,
    pub(super) heap: &'w mut Vec<core::cmp::Reverse<(u16, u32)>>,
    pub(super) entries: &'w mut Vec<(Container<'v>, u32)>,
}

impl<'v> Grouping<'_, 'v> {
    /// Calls `f` with each key that some view has, in increasing order, and that key's
    /// containers (each with its stored cardinality, in the views' order); returns the
    /// sum of what `f` returned. `plan` from [`Engine::plan_group`] over the same views;
    /// the cursors at each view's first container.
    pub(super) fn for_each_key(
        &mut self,
        views: &[FrozenBitmap<'v>],
        plan: Plan,
        mut f: impl FnMut(u16, &[(Container<'v>, u32)]) -> u64,
    ) -> u64 {
        let (cursors, hits, entries) = (&mut *self.cursors, &mut *self.hits, &mut *self.entries);
        let mut total = 0u64;
        let lo = plan.lo;
        let counts = &mut *self.counts;
        let span = counts.len();
        if plan.grouped {
            // Keys close together: the inputs' containers are grouped by key, a window of
            // keys at a time, with a counting sort. Each directory is read once, in order,
            // and each key's containers are then at hand together; nothing is compared
            // per input at every key.
            let mut k0 = 0;
            while k0 < span {
                // As many keys as make at most WINDOW entries (and at least one key).
                let (mut k1, mut n) = (k0, 0usize);
                while k1 < span && (k1 == k0 || n + counts[k1] as usize <= WINDOW) {
                    let c = counts[k1] as usize;
                    counts[k1] = n as u32; // where key k1's entries start
                    n += c;
                    k1 += 1;
                }
                entries.clear();
                entries.resize(n, (crate::container::EMPTY, 0));
                for (v, cur) in views.iter().zip(cursors.iter_mut()) {
                    // Keys are at least `lo` and increasing (`count_keys` checked). The
                    // keys are read again here: if the bytes changed since (a mapped file
                    // rewritten in place), a key may not be where it was counted, and its
                    // container is then dropped rather than written out of bounds.
                    v.dir.walk_below(cur, lo, k1, |k, c, card| {
                        if let Some(slot) = counts.get_mut(k)
                            && let Some(e) = entries.get_mut(*slot as usize)
                        {
                            *e = (c, card);
                            *slot += 1; // ends as where the key's entries end
                        }
                    });
                }
                let mut begin = 0;
                for (k, &end) in (k0..k1).zip(&counts[k0..k1]) {
                    let end = end as usize;
                    if end > begin {
                        total += f(lo + k as u16, &entries[begin..end]);
                    }
                    begin = end;
                }
                k0 = k1;
            }
        } else {
            // Keys spread out: the next key is the smallest in a heap of the inputs' next
            // keys.
            let mut heap = alloc::collections::BinaryHeap::from(core::mem::take(self.heap));
            heap.extend(
                views
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| v.dir.n() > 0)
                    .map(|(k, v)| core::cmp::Reverse((v.dir.key(0), k as u32))),
            );
            while let Some(core::cmp::Reverse((key, k))) = heap.pop() {
                hits.clear();
                hits.push(k as usize);
                while let Some(&core::cmp::Reverse((next, k))) = heap.peek() {
                    if next != key {
                        break;
                    }
                    heap.pop();
                    hits.push(k as usize);
                }
                entries.clear();
                for &k in hits.iter() {
                    let (d, c) = (&views[k].dir, cursors[k]);
                    entries.push((d.container(c), d.card(c)));
                    cursors[k] += 1;
                    if cursors[k] < d.n() {
                        heap.push(core::cmp::Reverse((d.key(cursors[k]), k as u32)));
                    }
                }
                total += f(key, entries);
            }
            let mut heap = heap.into_vec();
            heap.clear();
            *self.heap = heap;
        }
        total
    }
}

/// How [`Engine::group_many`] finds each key's containers (from
/// [`Engine::plan_group`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Plan {
    /// The smallest key of any view.
    pub(super) lo: u16,
    /// Whether the containers are grouped by a counting sort, with each key's count from
    /// `lo` in the writer's `counts`; else they come through a heap.
    pub(super) grouped: bool,
}

/// A many-way operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Many {
    /// Union.
    Or,
    /// Intersection.
    And,
    /// Symmetric difference (values in an odd number of the inputs).
    Xor,
    /// Difference (the first input minus the others).
    AndNot,
}

/// The most containers a union or symmetric difference of `views` can have: their
/// distinct keys (each key's bit set in `keys`, left clear again), one container per key
/// as long as each view's keys increase, as checked views' do. A view from
/// `from_bytes_unchecked` of bytes `from_bytes` refuses can give more; `finish_direct`
/// makes room for them then.
pub(super) fn container_bound(
    views: &[FrozenBitmap<'_>],
    keys: &mut [u64; crate::cast::BITSET_WORDS],
) -> usize {
    for v in views {
        for i in 0..v.dir.n() {
            let k = v.dir.key(i);
            keys[usize::from(k >> 6)] |= 1 << (k & 63);
        }
    }
    let distinct = keys.iter().map(|w| w.count_ones() as usize).sum();
    keys.fill(0);
    distinct
}

/// Counts each key's containers into `counts` (`span` keys from `lo`); `false` if the keys
/// of some input are not strictly increasing (possible only in a view from
/// `from_bytes_unchecked`), which the grouping needs.
pub(super) fn count_keys(
    views: &[FrozenBitmap<'_>],
    lo: u16,
    span: usize,
    counts: &mut Vec<u32>,
) -> bool {
    counts.clear();
    counts.resize(span, 0);
    views.iter().all(|v| {
        let mut next = 0usize; // every key is at least lo
        v.dir.all_keys(|key| {
            let k = usize::from(key.wrapping_sub(lo));
            match counts.get_mut(k) {
                Some(c) if k >= next => {
                    *c += 1;
                    next = k + 1;
                    true
                }
                _ => false,
            }
        })
    })
}

/// Keys are grouped by a counting sort (rather than through a heap) when their span is at
/// most this many times the number of containers.
pub(super) const GROUP_SPAN: usize = 8;

/// At most this many containers are grouped at a time (unless one key has more), which
/// bounds the writer's scratch memory.
pub(super) const WINDOW: usize = 1 << 16;

/// The union (or, if `xor`, the symmetric difference: values in an odd number of them) of
/// one key's containers, each with its stored cardinality: emitted into `enc` if `emit`;
/// returns the number of values.
pub(super) fn combine_key(
    key: u16,
    hits: &[(Container<'_>, u32)],
    emit: bool,
    xor: bool,
    s: &mut Scratch,
    enc: &mut crate::encode::Encoder,
) -> u64 {
    match *hits {
        [] => return 0,
        [(_, card)] if !emit => return u64::from(card),
        [(c, card)] => {
            kernels::pass_through(c, key, enc, s);
            return u64::from(card);
        }
        [(a, x), (b, y)] if !emit => {
            let both = count::intersection_len(a, b) << u32::from(xor);
            return (u64::from(x) + u64::from(y)).saturating_sub(both);
        }
        [(a, _), (b, _)] => kernels::binary(if xor { Op::Xor } else { Op::Or }, a, b, s),
        _ => {
            s.clear();
            // A full container (stored cardinality 65536) makes the union full: nothing
            // else needs reading.
            if let Some(&(c, _)) = hits.iter().find(|&&(_, card)| card == 1 << 16 && !xor) {
                if emit {
                    kernels::pass_through(c, key, enc, s);
                }
                return 1 << 16;
            }
            // A few values, all in arrays: sorted together (the bitset path would clear,
            // count and scan 8 KiB for them). For a symmetric difference, likewise a few
            // runs, all in run containers: their lists folded together (for a union the
            // bitset path measured faster: wikileaks and census-income_srt 8 %).
            let values: u64 = hits.iter().map(|&(_, card)| u64::from(card)).sum();
            if xor && few_runs_only(hits) {
                kernels::xor_runs_folded(hits, s);
            } else if values <= SMALL_UNION
                && hits.iter().all(|(c, _)| matches!(c, Container::Array(_)))
            {
                s.lows.clear();
                for (c, _) in hits {
                    if let Container::Array(a) = c {
                        crate::cast::extend_native(&mut s.lows, a);
                    }
                }
                s.lows.sort_unstable();
                if xor {
                    keep_odd(&mut s.lows);
                } else {
                    s.lows.dedup();
                }
                s.set_lows();
            } else if xor {
                s.zero_bits();
                kernels::xor_many_into_bits(hits, &mut s.bits);
                let (values, runs) = input_shape(hits);
                finish_many(s, emit, values, runs);
            } else {
                let (values, runs) = input_shape(hits);
                if emit
                    && likely_bitset(values, runs)
                    && let Some(n) = union_in_place(key, hits, s, enc)
                {
                    return n;
                }
                s.zero_bits();
                kernels::or_many_into_bits(hits, &mut s.bits);
                finish_many(s, emit, values, runs);
            }
        }
    }
    s.emit_or_clear(key, enc, emit)
}

/// Marks the scratch's bits, a many-way result, as the container, with their runs
/// counted in the same pass when it will be emitted with its canonical kind and it is
/// likely a run container (then the emit, on AVX-512, also finds their boundaries
/// packed). Else only the bits are counted; the emit counts runs as far as it needs.
/// `values` and `runs`: the inputs' ([`input_shape`]).
#[inline]
pub(super) fn finish_many(s: &mut Scratch, emit: bool, values: u64, runs: u64) {
    if emit && s.canonical && likely_runs(values, runs) {
        kernels::finish_bits_runs(s);
    } else {
        kernels::finish_bits(s);
    }
}

/// The values and the runs in the run containers of `hits`.
pub(super) fn input_shape(hits: &[(Container<'_>, u32)]) -> (u64, u64) {
    let (mut values, mut runs) = (0u64, 0u64);
    for &(c, card) in hits {
        values += u64::from(card);
        if let Container::Run(r) = c {
            runs += r.len() as u64;
        }
    }
    (values, runs)
}

/// Whether a union of containers with `values` values, `runs` of them in runs
/// ([`input_shape`]), is likely a bitset: more values than an array holds, and few runs
/// among them (many make a run result likely).
pub(super) fn likely_bitset(values: u64, runs: u64) -> bool {
    values > u64::from(crate::format::ARRAY_MAX) && runs * 16 < values
}

/// Whether that union is likely a run container: runs of more than two values on
/// average (else the values are mostly apart, an array or a bitset).
pub(super) fn likely_runs(values: u64, runs: u64) -> bool {
    runs * 2 < values
}

/// The union of `hits` accumulated straight in the output ([`bits_in_place`]), counted
/// there with its runs.
pub(super) fn union_in_place(
    key: u16,
    hits: &[(Container<'_>, u32)],
    s: &mut Scratch,
    enc: &mut crate::encode::Encoder,
) -> Option<u64> {
    bits_in_place(key, s, enc, true, |bits| {
        kernels::or_many_into_bits(hits, bits);
        None
    })
}

/// A result likely to be a bitset, computed by `fill` (which overwrites or sets every
/// bit it needs and returns the cardinality, or `None` to leave the count to this)
/// straight in the output, where a bitset container of `key` goes, so that it is not
/// copied there from the scratch (8 KiB a key: the union of all of census1881 is 66 of
/// them). If the result's kind is another, it is emitted from there: a run container
/// from its packed boundaries, anything else from the scratch, where the bits move.
/// Returns the number of values, or `None` (nothing done) if the place is not aligned
/// for words.
///
/// With `pack_runs` (and AVX-512), the runs are counted with their boundaries packed in
/// the same pass (and the bits, if `fill` did not), for the emit of a run result: worth
/// it where runs are a likely result (the many-way union: wikileaks_srt's union of all is
/// 6 % slower with a plain count). Without, a plain count that stops once past the kind's
/// cap: the union of a pair with a bitset is nearly always a bitset (census-income `or`
/// 2–3 % faster than packing).
pub(super) fn bits_in_place(
    key: u16,
    s: &mut Scratch,
    enc: &mut crate::encode::Encoder,
    pack_runs: bool,
    fill: impl FnOnce(&mut [u64; crate::cast::BITSET_WORDS]) -> Option<u32>,
) -> Option<u64> {
    use crate::format::{ContainerKind, canonical_kind, max_canonical_runs, plain_kind};
    let before = enc.payload.len();
    let start = enc.begin(ContainerKind::Bitset, 0);
    enc.payload.resize(start + crate::cast::BITSET_BYTES, 0);
    let Some(bits) = crate::cast::bitset_words_mut(&mut enc.payload[start..]) else {
        enc.payload.truncate(before);
        return None;
    };
    let counted = fill(bits);
    let open_end = bits[crate::cast::BITSET_WORDS - 1] >> 63 == 1;
    // Packed boundaries, if any, are what the emit of a run container then only unpacks:
    // the union of many arrays can come out as runs (wikileaks_srt: 20 of its 21 keys)
    // though no input was one.
    let mut packed = None;
    let (card, kind) = if s.canonical {
        // The bits and the runs in one pass, as far as any kind needs (the cap of a
        // result of more values than an array holds; of fewer, the exact count decides).
        let fused = match counted {
            None if pack_runs => {
                let (bytes, cap) = (
                    crate::cast::bytes_of(&bits[..]),
                    max_canonical_runs(1 << 16),
                );
                crate::simd::bitset_stats_packed_capped(bytes, cap, &mut s.packed)
            }
            _ => None,
        };
        let (card, runs) = match fused {
            Some((Some(card), runs)) => {
                packed = Some(runs).filter(|&runs| runs <= max_canonical_runs(card));
                (card, runs)
            }
            // More runs than any run container holds.
            Some((None, runs)) => (kernels::bits_card(bits), runs),
            None => {
                let card = counted.unwrap_or_else(|| kernels::bits_card(bits));
                let (runs, boundaries) = counted_runs(bits, card, pack_runs, &mut s.packed);
                packed = boundaries;
                (card, runs)
            }
        };
        (card, canonical_kind(card, runs))
    } else {
        let card = counted.unwrap_or_else(|| kernels::bits_card(bits));
        (card, plain_kind(card))
    };
    match (kind, packed) {
        (ContainerKind::Bitset, _) => enc.record(key, ContainerKind::Bitset, card, start),
        // A run container straight from its packed boundaries: the bits are not copied.
        (ContainerKind::Run, Some(runs)) => {
            enc.payload.truncate(before);
            let start = enc.begin(ContainerKind::Run, runs as usize);
            let unpacked = crate::encode::packed_runs_into(
                &s.packed,
                open_end,
                runs as usize,
                &mut enc.payload,
            );
            if !unpacked {
                // Not reached (boundaries are packed only where they can be unpacked);
                // nothing is written, and the caller computes the result again.
                enc.payload.truncate(before);
                return None;
            }
            enc.record(key, ContainerKind::Run, card, start);
        }
        _ => {
            s.bits.copy_from_slice(bits);
            enc.payload.truncate(before);
            s.set_bits_counted(card);
            s.emit(key, enc);
        }
    }
    Some(u64::from(card))
}

/// The runs of a result bitset of `card` values, counted as far as its canonical kind
/// needs, and `Some` of them if their boundaries are in `packed` (see [`bits_in_place`]).
pub(super) fn counted_runs(
    bits: &[u64; crate::cast::BITSET_WORDS],
    card: u32,
    pack_runs: bool,
    packed: &mut crate::simd::Packed,
) -> (u32, Option<u32>) {
    let cap = crate::format::max_canonical_runs(card);
    // Each run but the last ends before a clear bit: a result with fewer clear bits than
    // the cap is a run container whatever its runs, and their boundaries are packed in
    // the pass that counts them (census-income `or`: two bitsets whose union is nearly
    // full, 15 pairs).
    let surely_runs = (1u32 << 16) - card < cap;
    let packing = if pack_runs || surely_runs {
        crate::simd::bitset_runs_packed_capped(crate::cast::bytes_of(&bits[..]), cap, packed)
    } else {
        None
    };
    match packing {
        Some(runs) => (runs, Some(runs).filter(|&runs| runs <= cap)),
        None => (kernels::bits_runs_capped(bits, cap), None),
    }
}

/// Keeps, once, each value that occurs an odd number of times in sorted `values`.
pub(super) fn keep_odd(values: &mut Vec<u16>) {
    let (mut k, mut i) = (0, 0);
    while i < values.len() {
        let v = values[i];
        let mut j = i + 1;
        while j < values.len() && values[j] == v {
            j += 1;
        }
        if (j - i) % 2 == 1 {
            values[k] = v;
            k += 1;
        }
        i = j;
    }
    values.truncate(k);
}

/// Up to this many values in the array containers of one key, a many-way union sorts them
/// instead of accumulating a bitset.
pub(super) const SMALL_UNION: u64 = 128;

/// Up to this many run steps (the containers times their runs in all, a bound on the work
/// of folding their lists), a many-way symmetric difference of run containers folds their
/// run lists instead of accumulating a bitset: about what clearing, filling, counting and
/// scanning the bitset costs (BENCHMARKS.md, design decisions).
pub(super) const RUN_FOLD_MAX: usize = 4096;

/// Whether `hits` are all run containers, with few enough runs to fold ([`RUN_FOLD_MAX`]).
fn few_runs_only(hits: &[(Container<'_>, u32)]) -> bool {
    let mut runs = 0usize;
    for (c, _) in hits {
        match c {
            Container::Run(r) => runs += r.len(),
            _ => return false,
        }
    }
    runs.saturating_mul(hits.len()) <= RUN_FOLD_MAX
}

/// Re-encodes containers `from..` of `d` canonically.
pub(super) fn copy_rest(
    d: &Directory<'_>,
    from: usize,
    s: &mut Scratch,
    enc: &mut crate::encode::Encoder,
) {
    for i in from..d.n() {
        kernels::pass_through(d.container(i), d.key(i), enc, s);
    }
}
