//! Constants and size rules of the frozen format (see `format-spec/FORMAT.md`).

/// The first four bytes of every frozen bitmap.
pub(crate) const MAGIC: [u8; 4] = *b"FRZR";
/// The format version this release writes and reads.
pub(crate) const VERSION: u8 = 1;
/// Bytes in the fixed header.
pub(crate) const HEADER_LEN: usize = 16;
/// Flag bit: a CRC32C trailer is present.
pub(crate) const FLAG_CRC: u8 = 1;
/// Bytes in the CRC32C trailer.
pub(crate) const TRAILER_LEN: usize = 4;
/// Directory bytes per container.
pub(crate) const DIR_ENTRY_LEN: usize = 12;
/// Largest container count (one per possible key).
pub(crate) const MAX_CONTAINERS: usize = 1 << 16;
/// Largest cardinality of an array container.
pub(crate) const ARRAY_MAX: u32 = 4096;
/// Largest number of runs a container can need (alternating values).
pub(crate) const MAX_RUNS: u32 = 32768;
/// Alignment of bitset payloads relative to the start of the bitmap.
pub(crate) const BITSET_ALIGN: usize = 64;

/// Portable-format cookie of a stream without run containers (count follows as a `u32`).
pub(crate) const PORTABLE_COOKIE_NO_RUNS: u32 = 12346;
/// Portable-format cookie (low 16 bits) of a stream with a run-flag bitset.
pub(crate) const PORTABLE_COOKIE_RUNS: u32 = 12347;
/// From this many containers on, a stream with runs carries an offset header.
pub(crate) const PORTABLE_NO_OFFSET_THRESHOLD: usize = 4;

/// The three kinds of container.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ContainerKind {
    /// Sorted `u16` low parts, at most 4096.
    Array,
    /// 65536-bit bitset.
    Bitset,
    /// Sorted runs of consecutive values.
    Run,
}

impl ContainerKind {
    /// The kind's code in a directory descriptor.
    #[inline]
    pub(crate) fn code(self) -> u32 {
        match self {
            ContainerKind::Array => 0,
            ContainerKind::Bitset => 1,
            ContainerKind::Run => 2,
        }
    }

    /// The kind for a descriptor code, `None` for the invalid code 3.
    pub(crate) fn from_code(code: u32) -> Option<ContainerKind> {
        match code & 3 {
            0 => Some(ContainerKind::Array),
            1 => Some(ContainerKind::Bitset),
            2 => Some(ContainerKind::Run),
            _ => None,
        }
    }

    /// Alignment of this kind's payload relative to the start of the bitmap.
    pub(crate) fn align(self) -> usize {
        match self {
            ContainerKind::Bitset => BITSET_ALIGN,
            _ => 2,
        }
    }
}

/// Payload bytes of a container: `card` values for arrays, `n_runs` runs for runs.
#[inline]
pub(crate) fn payload_len(kind: ContainerKind, card: u32, n_runs: u32) -> usize {
    match kind {
        ContainerKind::Array => 2 * card as usize,
        ContainerKind::Bitset => 8192,
        ContainerKind::Run => 2 + 4 * n_runs as usize,
    }
}

/// The kind of a container of `card` values when runs are not looked for: an array up to
/// 4096 values, else a bitset (results of set operations written without canonical kinds,
/// see `Writer::with_canonical`).
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn plain_kind(card: u32) -> ContainerKind {
    if card <= ARRAY_MAX {
        ContainerKind::Array
    } else {
        ContainerKind::Bitset
    }
}

/// The most maximal runs a container of `card` values can have and still be canonically a
/// run container (`canonical_kind(card, r)` is `Run` exactly for `1 <= r <= this`), so
/// that run counting can stop once past it.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn max_canonical_runs(card: u32) -> u32 {
    if card <= ARRAY_MAX {
        // 2 + 4r < 2c  ⇔  r <= (2c − 3) / 4
        (2 * card).saturating_sub(3) / 4
    } else {
        2047 // 2 + 4r < 8192
    }
}

/// The canonical kind for a container of `card` values forming `n_runs` maximal runs: a run
/// container iff strictly smaller than the non-run choice (array `2c` bytes if `c <= 4096`,
/// else bitset `8192`; run `2 + 4r`). These are the choices of CRoaring's `run_optimize`,
/// checked against it on the real-data sets and random sets.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn canonical_kind(card: u32, n_runs: u32) -> ContainerKind {
    let run = 2 + 4 * u64::from(n_runs);
    if card <= ARRAY_MAX {
        if run < 2 * u64::from(card) {
            ContainerKind::Run
        } else {
            ContainerKind::Array
        }
    } else if run < 8192 {
        ContainerKind::Run
    } else {
        ContainerKind::Bitset
    }
}

/// Rounds `x` up to a multiple of `align` (a power of two).
#[inline]
pub(crate) const fn align_up(x: usize, align: usize) -> usize {
    (x + align - 1) & !(align - 1)
}

/// Offset of the first payload byte for `n` containers.
#[inline]
pub(crate) const fn payload_start(n: usize) -> usize {
    HEADER_LEN + DIR_ENTRY_LEN * n
}

/// The magic of a deletion-vector frame (1681511377, little-endian): here, below the error
/// messages that recognize it, and re-exported as `DV_MAGIC`.
pub(crate) const DV_MAGIC: [u8; 4] = 1_681_511_377u32.to_le_bytes();
