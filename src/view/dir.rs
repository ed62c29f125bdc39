//! Directories: where each container of a view lies. Queries reach containers only through
//! [`Directory`], so a second on-disk layout (the portable format) plugs in here without
//! touching the container kernels or the query code.

use crate::cast::{self, U16, U32};
use crate::container::{Container, EMPTY};
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

impl FrozenDir<'static> {
    pub(crate) const EMPTY: FrozenDir<'static> = FrozenDir {
        keys: &[],
        cards: &[],
        descs: &[],
        cums: &[],
        body: &[],
    };
}

/// The directory of a view, whatever its format.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Directory<'a> {
    Frozen(FrozenDir<'a>),
}

impl<'a> Directory<'a> {
    /// Number of containers.
    #[inline]
    pub(crate) fn n(&self) -> usize {
        match self {
            Directory::Frozen(d) => d.keys.len(),
        }
    }

    /// Key of container `i` (`i < n`).
    #[inline]
    pub(crate) fn key(&self, i: usize) -> u16 {
        match self {
            Directory::Frozen(d) => d.keys.get(i).map_or(0, |k| k.get()),
        }
    }

    /// Stored cardinality of container `i`.
    #[inline]
    pub(crate) fn card(&self, i: usize) -> u32 {
        match self {
            Directory::Frozen(d) => d.cards.get(i).map_or(0, |c| u32::from(c.get()) + 1),
        }
    }

    /// Stored number of values in containers `0..i` (`i <= n`).
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
        }
    }

    /// Index of the container with `key`, or where it would be inserted.
    #[inline]
    pub(crate) fn find(&self, key: u16) -> Result<usize, usize> {
        match self {
            Directory::Frozen(d) => d.keys.binary_search_by(|k| k.get().cmp(&key)),
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

    /// Index of the last container whose cumulative count is `<= rank` (for `select`).
    #[inline]
    pub(crate) fn container_of_rank(&self, rank: u64) -> Option<usize> {
        match self {
            Directory::Frozen(d) => d
                .cums
                .partition_point(|c| u64::from(c.get()) <= rank)
                .checked_sub(1),
        }
    }

    /// Payload offset of container `i` within the bitmap.
    #[inline]
    pub(crate) fn offset(&self, i: usize) -> usize {
        match self {
            Directory::Frozen(d) => d.descs.get(i).map_or(0, |x| (x.get() >> 2) as usize),
        }
    }

    /// Container `i`. Bytes that do not hold the payload the directory describes (possible
    /// only in views made with `from_bytes_unchecked`) give an empty container.
    #[inline]
    pub(crate) fn container(&self, i: usize) -> Container<'a> {
        match self {
            Directory::Frozen(d) => match (d.descs.get(i), d.cards.get(i)) {
                (Some(desc), Some(card)) => {
                    let desc = desc.get();
                    let kind = ContainerKind::from_code(desc);
                    frozen_container(
                        d.body,
                        kind,
                        (desc >> 2) as usize,
                        u32::from(card.get()) + 1,
                    )
                }
                _ => EMPTY,
            },
        }
    }
}

/// The payload of one container of a frozen bitmap.
#[inline(always)]
fn frozen_container(
    body: &[u8],
    kind: Option<ContainerKind>,
    off: usize,
    card: u32,
) -> Container<'_> {
    let c = match kind {
        Some(ContainerKind::Array) => body
            .get(off..off + 2 * card as usize)
            .and_then(cast::u16s)
            .map(Container::Array),
        Some(ContainerKind::Bitset) => body
            .get(off..off + cast::BITSET_BYTES)
            .and_then(cast::bitset)
            .map(Container::Bitset),
        Some(ContainerKind::Run) => cast::read_u16(body, off).and_then(|n| {
            let start = off + 2;
            body.get(start..start + 4 * usize::from(n))
                .and_then(cast::runs)
                .map(Container::Run)
        }),
        None => None,
    };
    c.unwrap_or(EMPTY)
}
