//! The set operations as types, for kernels compiled once per operation: each says which
//! values of two sorted sets its result keeps. A kernel written over [`Keep`] reads as
//! `merge::<Union>`, and the compiler removes the branches on the constants.

/// Which values a set operation on `a` and `b` keeps.
pub(crate) trait Keep {
    /// Values in `a` only.
    const A_ONLY: bool;
    /// Values in both.
    const BOTH: bool;
    /// Values in `b` only.
    const B_ONLY: bool;
}

/// `a ∩ b`: the values in both.
pub(crate) struct Intersection;
/// `a ∪ b`: every value.
pub(crate) struct Union;
/// `a − b`: the values in `a` only.
pub(crate) struct Difference;
/// `a ⊕ b`: the values in one of the two only.
pub(crate) struct SymmetricDifference;

impl Keep for Intersection {
    const A_ONLY: bool = false;
    const BOTH: bool = true;
    const B_ONLY: bool = false;
}

impl Keep for Union {
    const A_ONLY: bool = true;
    const BOTH: bool = true;
    const B_ONLY: bool = true;
}

impl Keep for Difference {
    const A_ONLY: bool = true;
    const BOTH: bool = false;
    const B_ONLY: bool = false;
}

impl Keep for SymmetricDifference {
    const A_ONLY: bool = true;
    const BOTH: bool = false;
    const B_ONLY: bool = true;
}
