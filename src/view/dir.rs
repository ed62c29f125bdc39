//! Directories: where each container of a view lies. Queries reach containers only through
//! [`Directory`], so both on-disk layouts (the frozen format and the RoaringFormatSpec
//! portable format) share the container kernels and the query code.

use crate::cast::{KeyCardLE, U16, U32};
use crate::container::{Container, Located};
use crate::format::ContainerKind;

/// The directory of a frozen-format bitmap: four parallel arrays.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FrozenDir<'a> {
    pub(crate) keys: &'a [U16],
    pub(crate) cards: &'a [U16],
    pub(crate) descs: &'a [U32],
    pub(crate) cums: &'a [U32],
    /// The bitmap's bytes without the trailer; payload offsets index into it.
    pub(crate) body: &'a [u8],
}

impl<'a> FrozenDir<'a> {
    /// The container a directory entry describes (descriptor and stored cardinality − 1),
    /// with its cardinality.
    #[cfg(feature = "alloc")]
    #[inline(always)]
    fn entry(&self, desc: &U32, card: &U16) -> (Container<'a>, u32) {
        let at = self.located(desc, card);
        (at.container(), at.card)
    }

    /// Where a directory entry (descriptor and stored cardinality − 1) says its container
    /// lies: the one decoding of a frozen directory entry.
    #[inline(always)]
    fn located(&self, desc: &U32, card: &U16) -> Located<'a> {
        Located {
            body: self.body,
            code: desc.get() & 3,
            off: (desc.get() >> 2) as usize,
            card: u32::from(card.get()) + 1,
        }
    }
}

impl FrozenDir<'static> {
    pub(crate) const EMPTY: FrozenDir<'static> = FrozenDir {
        keys: &[],
        cards: &[],
        descs: &[],
        cums: &[],
        body: &[],
    };
}

/// The directory of a portable-format bitmap: `(key, card - 1)` pairs, the run-flag bitset
/// and the offset header, all borrowed from the stream.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PortableDir<'a> {
    pub(crate) descs: &'a [KeyCardLE],
    /// Bit `i` set: container `i` is a run container. Empty for cookie 12346.
    pub(crate) run_flags: &'a [u8],
    /// Payload offsets from the start of the stream; empty when the stream has none
    /// (cookie 12347 with fewer than 4 containers), and then `seq` holds them.
    pub(crate) offsets: &'a [U32],
    /// Sequential payload offsets of the (at most 3) containers of a stream without an
    /// offset header.
    pub(crate) seq: [u32; 3],
    /// The bitmap's bytes, from the cookie to the end of the last payload.
    pub(crate) body: &'a [u8],
}

impl PortableDir<'_> {
    /// The kind of container `i`: the run flag, else array up to 4096 values, else bitset.
    #[inline]
    pub(crate) fn kind(&self, i: usize) -> ContainerKind {
        if self
            .run_flags
            .get(i / 8)
            .is_some_and(|b| (b >> (i % 8)) & 1 != 0)
        {
            ContainerKind::Run
        } else if self.card(i) <= crate::format::ARRAY_MAX {
            ContainerKind::Array
        } else {
            ContainerKind::Bitset
        }
    }

    #[inline]
    pub(crate) fn card(&self, i: usize) -> u32 {
        self.descs
            .get(i)
            .map_or(0, |d| u32::from(d.card_minus_one.get()) + 1)
    }

    /// Payload offset of container `i` from the start of the stream.
    #[inline]
    pub(crate) fn offset(&self, i: usize) -> usize {
        if self.offsets.is_empty() {
            self.seq.get(i).map_or(0, |&o| o as usize)
        } else {
            self.offsets.get(i).map_or(0, |o| o.get() as usize)
        }
    }

    /// Values stored in containers `lo..hi`.
    #[inline]
    pub(super) fn cards_between(&self, lo: usize, hi: usize) -> u64 {
        let d = self.descs.get(lo..hi).unwrap_or(&[]);
        d.len() as u64
            + d.iter()
                .map(|d| u64::from(d.card_minus_one.get()))
                .sum::<u64>()
    }
}

/// The directory of a view, whatever its format.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Directory<'a> {
    Frozen(FrozenDir<'a>),
    Portable(PortableDir<'a>),
}

impl<'a> Directory<'a> {
    /// Number of containers.
    #[inline]
    pub(crate) fn n(&self) -> usize {
        match self {
            Directory::Frozen(d) => d.keys.len(),
            Directory::Portable(d) => d.descs.len(),
        }
    }

    /// Key of container `i` (`i < n`).
    #[inline]
    pub(crate) fn key(&self, i: usize) -> u16 {
        match self {
            Directory::Frozen(d) => d.keys.get(i).map_or(0, |k| k.get()),
            Directory::Portable(d) => d.descs.get(i).map_or(0, |k| k.key.get()),
        }
    }

    /// Stored cardinality of container `i`.
    #[inline]
    pub(crate) fn card(&self, i: usize) -> u32 {
        match self {
            Directory::Frozen(d) => d.cards.get(i).map_or(0, |c| u32::from(c.get()) + 1),
            Directory::Portable(d) => d.card(i),
        }
    }

    /// Stored number of values in containers `0..i` (`i <= n`). O(1) for the frozen format,
    /// O(i) for the portable format, which stores no cumulative counts.
    #[inline]
    pub(crate) fn cum(&self, i: usize) -> u64 {
        match self {
            Directory::Frozen(d) => match d.cums.get(i) {
                Some(c) => u64::from(c.get()),
                None => match d.cums.last() {
                    Some(c) => u64::from(c.get()) + u64::from(self.card(d.cums.len() - 1)),
                    None => 0,
                },
            },
            Directory::Portable(d) => d.cards_between(0, i),
        }
    }

    /// Stored number of values in containers `lo..hi`.
    #[inline]
    pub(crate) fn cards_between(&self, lo: usize, hi: usize) -> u64 {
        match self {
            Directory::Frozen(_) => self.cum(hi).saturating_sub(self.cum(lo)),
            Directory::Portable(d) => d.cards_between(lo, hi),
        }
    }

    /// Index of the container with `key`, or where it would be inserted.
    #[inline]
    pub(crate) fn find(&self, key: u16) -> Result<usize, usize> {
        match self {
            Directory::Frozen(d) => find_key(d.keys, key, |k| k.get()),
            Directory::Portable(d) => find_key(d.descs, key, |k| k.key.get()),
        }
    }

    /// First index in `lo..hi` whose key is `>= key` (`hi` if none).
    #[inline]
    pub(crate) fn lower_bound(&self, key: u16, mut lo: usize, mut hi: usize) -> usize {
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.key(mid) < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// First index from `from` on whose key is `>= key` (`n()` if none), by galloping (see
    /// [`advance`]): O(1) when the key is the next one, as for a cursor that follows
    /// ascending keys.
    #[cfg(feature = "alloc")]
    #[inline]
    pub(crate) fn seek(&self, from: usize, key: u16) -> usize {
        match self {
            Directory::Frozen(d) => advance(d.keys, from, key),
            Directory::Portable(d) => advance(d.descs, from, key),
        }
    }

    /// Index of the last container with at most `rank` values before it, and that count
    /// (for `select`).
    #[inline]
    pub(crate) fn container_of_rank(&self, rank: u64) -> Option<(usize, u64)> {
        match self {
            Directory::Frozen(d) => {
                let i = d
                    .cums
                    .partition_point(|c| u64::from(c.get()) <= rank)
                    .checked_sub(1)?;
                Some((i, u64::from(d.cums[i].get())))
            }
            Directory::Portable(d) => {
                let mut cum = 0u64;
                for i in 0..d.descs.len() {
                    let next = cum + u64::from(d.card(i));
                    if next > rank {
                        return Some((i, cum));
                    }
                    cum = next;
                }
                let last = d.descs.len().checked_sub(1)?;
                Some((last, cum - u64::from(d.card(last))))
            }
        }
    }

    /// Payload offset of container `i` within the bitmap.
    #[inline]
    pub(crate) fn offset(&self, i: usize) -> usize {
        match self {
            Directory::Frozen(d) => d.descs.get(i).map_or(0, |x| (x.get() >> 2) as usize),
            Directory::Portable(d) => d.offset(i),
        }
    }

    /// Where container `i` lies ([`Located`]; code 3, no container, past the end).
    #[inline(always)]
    pub(crate) fn locate(&self, i: usize) -> Located<'a> {
        match self {
            Directory::Frozen(d) => match (d.descs.get(i), d.cards.get(i)) {
                (Some(desc), Some(card)) => d.located(desc, card),
                _ => Located::NONE,
            },
            Directory::Portable(d) => {
                if i < d.descs.len() {
                    Located {
                        body: d.body,
                        code: d.kind(i).code(),
                        off: d.offset(i),
                        card: d.card(i),
                    }
                } else {
                    Located::NONE
                }
            }
        }
    }

    /// Container `i`. Bytes that do not hold the payload the directory describes (possible
    /// only in views made with `from_bytes_unchecked`) give an empty container.
    #[inline(always)] // on every query's path: a call costs more than its body
    pub(crate) fn container(&self, i: usize) -> Container<'a> {
        self.locate(i).container()
    }

    /// Walks containers from `*cur` while their key is below `lo + end`, calling
    /// `f(key - lo, container, stored cardinality)` for each, and leaves `*cur` at the
    /// first one not walked: the grouping loop of the many-way operations (keys at least
    /// `lo`, as the caller checked). The format is matched once, not at every container,
    /// which the many-way union's grouping loop notices (5–7 %).
    #[cfg(feature = "alloc")]
    #[inline(always)]
    pub(crate) fn walk_below(
        &self,
        cur: &mut usize,
        lo: u16,
        end: usize,
        mut f: impl FnMut(usize, Container<'a>, u32),
    ) {
        match self {
            Directory::Frozen(d) => {
                let n = d.keys.len().min(d.cards.len()).min(d.descs.len());
                let from = (*cur).min(n);
                let mut i = from;
                for ((key, card), desc) in d.keys[from..n]
                    .iter()
                    .zip(&d.cards[from..n])
                    .zip(&d.descs[from..n])
                {
                    let k = usize::from(key.get().wrapping_sub(lo));
                    if k >= end {
                        break;
                    }
                    let (c, card) = d.entry(desc, card);
                    f(k, c, card);
                    i += 1;
                }
                *cur = i;
            }
            Directory::Portable(_) => {
                while *cur < self.n() {
                    let k = usize::from(self.key(*cur).wrapping_sub(lo));
                    if k >= end {
                        break;
                    }
                    f(k, self.container(*cur), self.card(*cur));
                    *cur += 1;
                }
            }
        }
    }

    /// Calls `f` with each key in order while it returns `true`; whether it always did.
    /// The format is matched once, not at every key.
    #[cfg(feature = "alloc")]
    #[inline(always)]
    pub(crate) fn all_keys(&self, f: impl FnMut(u16) -> bool) -> bool {
        fn all<K: Keys>(keys: K, mut f: impl FnMut(u16) -> bool) -> bool {
            (0..keys.count()).all(|i| f(keys.at(i)))
        }
        match self {
            Directory::Frozen(d) => all(d.keys, f),
            Directory::Portable(d) => all(d.descs, f),
        }
    }
}

/// The keys of a directory as a slice of one format, so that walks over keys compile to
/// plain loads instead of a match on the format at every step.
pub(crate) trait Keys: Copy {
    /// Number of keys.
    fn count(self) -> usize;
    /// Key `i` (`i < count`; 0 past the end).
    fn at(self, i: usize) -> u16;
}

impl Keys for &[U16] {
    #[inline(always)]
    fn count(self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn at(self, i: usize) -> u16 {
        self.get(i).map_or(0, |k| k.get())
    }
}

impl Keys for &[KeyCardLE] {
    #[inline(always)]
    fn count(self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn at(self, i: usize) -> u16 {
        self.get(i).map_or(0, |k| k.key.get())
    }
}

/// First index `>= from` whose key is `>= key` (`count` if none), by galloping: the next
/// key is checked first (merges of similar directories advance by one), then steps of 1,
/// 2, 4, ... and a binary search in the last step (very unequal directories).
#[inline(always)]
pub(crate) fn advance<K: Keys>(k: K, from: usize, key: u16) -> usize {
    let n = k.count();
    if from >= n || k.at(from) >= key {
        return from;
    }
    // Invariant: k.at(lo) < key.
    let (mut lo, mut step) = (from, 1);
    let mut hi = from + 1;
    while hi < n && k.at(hi) < key {
        lo = hi;
        step *= 2;
        hi = lo + step;
    }
    let mut hi = hi.min(n);
    lo += 1;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if k.at(mid) < key {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Calls `f(i, j)` for each key present in both directories (`i` in `a`, `j` in `b`), in
/// ascending order, until `f` returns `false`. Compiled once per pair of formats (and
/// into each CPU level's copy of its callers).
#[inline(always)]
pub(crate) fn common_keys(
    a: &Directory<'_>,
    b: &Directory<'_>,
    f: impl FnMut(usize, usize) -> bool,
) {
    common_keys_from(a, b, (0, 0), f);
}

/// The positions `(i, j)` of the first key present in both directories.
///
/// Inlined by force into `intersection_len`'s caller: as a plain `#[inline]` LLVM kept it
/// out of line, a call per pair that returned its answer through memory, which the
/// one-container pairs of census1881_srt notice.
#[inline(always)]
pub(crate) fn first_common_key(a: &Directory<'_>, b: &Directory<'_>) -> Option<(usize, usize)> {
    // Key ranges apart (common among small bitmaps: 109 of uscensus2000's 199 consecutive
    // pairs, 73 of census1881_srt's): four loads and two compares, without a search.
    let (na, nb) = (a.n(), b.n());
    if na == 0 || nb == 0 || a.key(na - 1) < b.key(0) || b.key(nb - 1) < a.key(0) {
        return None;
    }
    // A directory of one key (common among small bitmaps): a binary search of the other,
    // without the walk's galloping branches.
    match (na, nb) {
        (1, _) => return b.find(a.key(0)).ok().map(|j| (0, j)),
        (_, 1) => return a.find(b.key(0)).ok().map(|i| (i, 0)),
        _ => {}
    }
    first_common_key_walk(a, b)
}

/// [`first_common_key`] for directories of two keys or more: the galloping walk.
#[inline(never)]
fn first_common_key_walk(a: &Directory<'_>, b: &Directory<'_>) -> Option<(usize, usize)> {
    let mut first = None;
    common_keys(a, b, |i, j| {
        first = Some((i, j));
        false
    });
    first
}

/// [`common_keys`] from positions `from = (i, j)` on (from [`first_common_key`]).
#[inline(always)]
pub(crate) fn common_keys_from(
    a: &Directory<'_>,
    b: &Directory<'_>,
    from: (usize, usize),
    f: impl FnMut(usize, usize) -> bool,
) {
    match (a, b) {
        (Directory::Frozen(x), Directory::Frozen(y)) => walk_common(x.keys, y.keys, from, f),
        (Directory::Frozen(x), Directory::Portable(y)) => walk_common(x.keys, y.descs, from, f),
        (Directory::Portable(x), Directory::Frozen(y)) => walk_common(x.descs, y.keys, from, f),
        (Directory::Portable(x), Directory::Portable(y)) => walk_common(x.descs, y.descs, from, f),
    }
}

#[inline(always)]
fn walk_common<A: Keys, B: Keys>(
    a: A,
    b: B,
    (mut i, mut j): (usize, usize),
    mut f: impl FnMut(usize, usize) -> bool,
) {
    let (na, nb) = (a.count(), b.count());
    while i < na && j < nb {
        let (ka, kb) = (a.at(i), b.at(j));
        if ka < kb {
            i = advance(a, i + 1, kb);
        } else if kb < ka {
            j = advance(b, j + 1, ka);
        } else {
            if !f(i, j) {
                return;
            }
            i += 1;
            j += 1;
        }
    }
}

/// Index of the item whose key is `key` in `items` (keys ascending), or where it would be
/// inserted. Where the keys are consecutive (a dense bitmap's, or a single container's:
/// known from the first and last, the same answer for every probe of a bitmap), `key`
/// sits `key - first` places in, or outside the keys: no search. Elsewhere, and for a
/// directory whose keys are not ascending (from `from_bytes_unchecked`), the binary search.
#[inline(always)]
fn find_key<T>(items: &[T], key: u16, get: impl Fn(&T) -> u16) -> Result<usize, usize> {
    if let (Some(first), Some(last)) = (items.first(), items.last()) {
        let (first, last) = (get(first), get(last));
        if usize::from(last.wrapping_sub(first)) + 1 == items.len() {
            let at = usize::from(key.wrapping_sub(first));
            match items.get(at) {
                // Always so where the keys ascend.
                Some(k) if get(k) == key => return Ok(at),
                Some(_) => {}
                // Below the first key or past the last: which one, without a branch that
                // random probes would mispredict.
                None => {
                    return Err(core::hint::select_unpredictable(
                        key < first,
                        0,
                        items.len(),
                    ));
                }
            }
        }
    }
    items.binary_search_by(|k| get(k).cmp(&key))
}
