//! Set-algebra counts between two views: nothing is materialized, nothing allocated.

use super::{Directory, FrozenBitmap};
use crate::container::{count, relate};

impl FrozenBitmap<'_> {
    /// `|self ∩ other|`.
    ///
    /// ```
    /// # use frozen_roaring::{FrozenBitmap, Writer};
    /// let mut w = Writer::new();
    /// let (mut a, mut b) = (Vec::new(), Vec::new());
    /// w.write_sorted([1, 2, 3, 70_000], &mut a)?;
    /// w.write_sorted([2, 3, 4, 70_000], &mut b)?;
    /// let (a, b) = (FrozenBitmap::from_bytes(&a)?, FrozenBitmap::from_bytes(&b)?);
    /// assert_eq!(a.intersection_len(&b), 3);
    /// assert_eq!(a.union_len(&b), 5);
    /// assert_eq!(a.difference_len(&b), 1);
    /// assert_eq!(a.symmetric_difference_len(&b), 2);
    /// # Ok::<(), frozen_roaring::Error>(())
    /// ```
    #[inline]
    pub fn intersection_len(&self, other: &FrozenBitmap<'_>) -> u64 {
        // Pairs without a common key (common among small bitmaps) are answered by a short
        // walk, inlined into the caller, without entering the functions that count.
        match crate::view::dir::first_common_key(&self.dir, &other.dir) {
            None => 0,
            Some(from) => intersection_len_from(&self.dir, &other.dir, from),
        }
    }

    /// `|self ∪ other|`.
    pub fn union_len(&self, other: &FrozenBitmap<'_>) -> u64 {
        (self.len() + other.len()).saturating_sub(self.intersection_len(other))
    }

    /// `|self − other|`.
    pub fn difference_len(&self, other: &FrozenBitmap<'_>) -> u64 {
        self.len().saturating_sub(self.intersection_len(other))
    }

    /// `|self ⊕ other|` (values in exactly one of the two).
    pub fn symmetric_difference_len(&self, other: &FrozenBitmap<'_>) -> u64 {
        (self.len() + other.len()).saturating_sub(2 * self.intersection_len(other))
    }

    /// Whether every value of `self` is in `other` (stops at the first value missing).
    pub fn is_subset(&self, other: &FrozenBitmap<'_>) -> bool {
        // From the directories in the views alone (no payload or count read): the empty
        // set, and more containers than `other` has.
        let n = self.dir.n();
        n == 0 || (n <= other.dir.n() && subset_dirs(&self.dir, &other.dir))
    }

    /// Whether `self` is a superset of `other`.
    pub fn is_superset(&self, other: &FrozenBitmap<'_>) -> bool {
        other.is_subset(self)
    }

    /// Whether the two bitmaps have no value in common (stops at the first common value).
    #[inline]
    pub fn is_disjoint(&self, other: &FrozenBitmap<'_>) -> bool {
        // As in `intersection_len`: pairs without a common key answered inline.
        match crate::view::dir::first_common_key(&self.dir, &other.dir) {
            None => true,
            Some(from) => disjoint_from(&self.dir, &other.dir, from),
        }
    }
}

/// Whether no container of `a` shares a value with the container of the same key in `b`,
/// from their first common key on (`from`). The walk and the kernels' match on the pair of
/// kinds are one function: out of line, the kernel took its two containers through the
/// stack, a third of a bitset pair's test.
#[inline(never)]
fn disjoint_from(a: &Directory<'_>, b: &Directory<'_>, from: (usize, usize)) -> bool {
    let mut disjoint = true;
    crate::view::dir::common_keys_from(
        a,
        b,
        from,
        #[inline(always)]
        |i, j| {
            disjoint = !relate::intersects(a.container(i), b.container(j));
            disjoint
        },
    );
    disjoint
}

/// Whether every container of `a` is a subset of the container of the same key in `b`
/// (one function with its kernels' match, as [`disjoint_from`]).
#[inline(never)]
fn subset_dirs(a: &Directory<'_>, b: &Directory<'_>) -> bool {
    let mut matched = 0usize;
    let mut subset = true;
    crate::view::dir::common_keys(
        a,
        b,
        #[inline(always)]
        |i, j| {
            // A key of `a` passed over (`i` ahead of the keys matched) is not in `b`.
            let card = a.card(i);
            subset = i == matched
                && card <= b.card(j)
                && relate::is_subset(a.container(i), b.container(j), card);
            matched += 1;
            subset
        },
    );
    subset && matched == a.n()
}

/// `|a ∩ b|` from the first common key on (`from`). A common key that is the last of either
/// directory is the only one: its pair of containers is counted by the (smaller)
/// dispatched kernel alone.
#[inline(never)]
fn intersection_len_from(a: &Directory<'_>, b: &Directory<'_>, (i, j): (usize, usize)) -> u64 {
    if i + 1 == a.n() || j + 1 == b.n() {
        count::intersection_len(a.container(i), b.container(j))
    } else {
        intersection_len_dirs(a, b, (i, j))
    }
}

crate::simd::dispatch! {
    /// `|a ∩ b|` over two directories from their first common key on (`from`, see
    /// [`first_common_key`](crate::view::dir::first_common_key)): the key walk and the
    /// container kernels compiled together for each CPU level (one level check per pair
    /// of bitmaps, not per container).
    fn intersection_len_dirs(a: &Directory<'_>, b: &Directory<'_>, from: (usize, usize)) -> u64 => intersection_len_dirs_impl;
}

#[inline(always)]
fn intersection_len_dirs_impl(a: &Directory<'_>, b: &Directory<'_>, from: (usize, usize)) -> u64 {
    let mut n = 0u64;
    // Inlined by force: a closure is a function of its own, compiled for the baseline CPU
    // unless inlined into the caller's CPU-level copy (LLVM left this one out of line,
    // which ran every counting kernel without popcnt or AVX2).
    crate::view::dir::common_keys_from(
        a,
        b,
        from,
        #[inline(always)]
        |i, j| {
            n += count::intersection_len_located(a.locate(i), b.locate(j));
            true
        },
    );
    n
}
