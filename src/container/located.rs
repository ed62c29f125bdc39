//! [`Located`]: where a container lies in a bitmap's bytes, before it is made a
//! [`Container`]; the pairwise kernels match on two of them at once.

use crate::cast::{self, U16};
use crate::container::{Container, EMPTY};

/// Where a container lies, not yet made a [`Container`]: its kind's code (0 array,
/// 1 bitset, 2 run, 3 none: [`ContainerKind::code`](crate::format::ContainerKind::code)),
/// the offset of its payload in `body` and its stored cardinality. A kernel over two
/// containers matches the pair of codes once, where two [`Container`]s would be matched
/// for each kind and then for the pair.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Located<'a> {
    pub(crate) body: &'a [u8],
    pub(crate) code: u32,
    pub(crate) off: usize,
    pub(crate) card: u32,
}

impl Located<'static> {
    /// No container (code 3): every kernel counts it as empty.
    pub(crate) const NONE: Located<'static> = Located {
        body: &[],
        code: 3,
        off: 0,
        card: 0,
    };
}

impl<'a> Located<'a> {
    /// The container (the same payload encodings in both formats); empty if the bytes do
    /// not hold the payload (possible only in views made with `from_bytes_unchecked`) or
    /// there is none (code 3).
    #[inline(always)]
    pub(crate) fn container(self) -> Container<'a> {
        let c = match self.code {
            0 => self.try_array().map(Container::Array),
            1 => self.bitset().map(Container::Bitset),
            2 => self.try_runs().map(Container::Run),
            _ => None,
        };
        c.unwrap_or(EMPTY)
    }

    /// The values of an array container (none if the bytes do not hold them).
    #[inline(always)]
    pub(crate) fn array(self) -> &'a [U16] {
        self.try_array().unwrap_or(&[])
    }

    /// The words of a bitset container.
    #[inline(always)]
    pub(crate) fn bitset(self) -> Option<&'a cast::BitsetLE> {
        self.body
            .get(self.off..self.off + cast::BITSET_BYTES)
            .and_then(cast::bitset)
    }

    /// The runs of a run container (none if the bytes do not hold them).
    #[inline(always)]
    pub(crate) fn runs(self) -> &'a [cast::RunLE] {
        self.try_runs().unwrap_or(&[])
    }

    #[inline(always)]
    fn try_array(self) -> Option<&'a [U16]> {
        self.body
            .get(self.off..self.off + 2 * self.card as usize)
            .and_then(cast::u16s)
    }

    #[inline(always)]
    fn try_runs(self) -> Option<&'a [cast::RunLE]> {
        let n = cast::read_u16(self.body, self.off)?;
        let start = self.off + 2;
        self.body
            .get(start..start + 4 * usize::from(n))
            .and_then(cast::runs)
    }
}
