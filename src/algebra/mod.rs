//! Set algebra on views: ∩ ∪ − ⊕ between any two bitmaps (frozen or portable format),
//! pairwise and many-way, computed from the bytes container by container and written in the
//! frozen format with canonical containers. The pairwise dispatch and the many-way
//! accumulation are in [`setops`], the kernels per pair of container kinds in [`kernels`],
//! the result container under construction in [`scratch`]. The public surface is the
//! `Writer`'s methods (`intersection_into`, ...) and the owned `FrozenBitmapBuf`, above
//! this module.

pub(crate) mod kernels;
pub(crate) mod scratch;
mod setops;

pub(crate) use setops::grouping::Many;
pub(crate) use setops::{Engine, recycle};

/// A binary set operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    /// Intersection.
    And,
    /// Union.
    Or,
    /// Difference (`a − b`).
    AndNot,
    /// Symmetric difference.
    Xor,
}
