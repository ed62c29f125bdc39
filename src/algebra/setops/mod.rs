//! Set operations between views: results of ∩ ∪ − ⊕ between views (pairwise and many-way),
//! written in the frozen format with canonical containers (or, `with_canonical(false)`, as
//! computed) into a caller's buffer, with the writer's reusable scratch: no allocation per
//! call in steady state.

use alloc::vec::Vec;
use core::borrow::Borrow;
use core::ops::Range;

pub(crate) mod grouping;

use super::Op;
use super::kernels;
use super::scratch::Scratch;
use crate::container::{Container, count};
use crate::encode::Encoder;
use crate::error::Error;
use crate::format::{BITSET_ALIGN, payload_start};
use crate::view::{Directory, FrozenBitmap};
use grouping::*;

/// Takes the container of `d0`'s `i`-th key in `d` (looked up from `cur`, which is left
/// there) away from the running difference in `s` (or, if nothing was `found` before,
/// starts it as `d0`'s container minus that one); true once the difference is empty.
#[inline(always)]
fn take_away(
    s: &mut Scratch,
    d0: &Directory<'_>,
    i: usize,
    d: &Directory<'_>,
    cur: &mut usize,
    found: &mut bool,
) -> bool {
    let key = d0.key(i);
    *cur = d.seek(*cur, key);
    if *cur == d.n() || d.key(*cur) != key {
        return false;
    }
    let c = d.container(*cur);
    if *found {
        kernels::andnot_in_place(c, s);
    } else {
        kernels::binary(Op::AndNot, d0.container(i), c, s);
        *found = true;
    }
    s.len() == 0
}

/// Ends [`take_away`]'s difference for `d0`'s container `i`: emits it if `emit` (the
/// container as it is if nothing was `found` to take away) and returns its number of
/// values.
#[inline(always)]
fn finish_difference(
    s: &mut Scratch,
    enc: &mut crate::encode::Encoder,
    d0: &Directory<'_>,
    i: usize,
    found: bool,
    emit: bool,
) -> u64 {
    if found {
        return s.emit_or_clear(d0.key(i), enc, emit);
    }
    if emit {
        kernels::pass_through(d0.container(i), d0.key(i), enc, s);
    }
    u64::from(d0.card(i))
}

/// Reuses a vector's allocation for another element type of the same layout (the standard
/// library collects an emptied `vec.into_iter()` in place).
pub(crate) fn recycle<T, U>(mut v: Vec<T>) -> Vec<U> {
    v.clear();
    v.into_iter().filter_map(|_| None).collect()
}

/// The set-algebra engine: the encoder that results are written with, the scratch of the
/// pairwise kernels and the per-input state of the many-way operations. It keeps every
/// allocation between calls, so that operations allocate nothing in steady state.
pub(crate) struct Engine {
    /// Encodes results (and, for the writer, everything else it writes).
    pub(crate) enc: Encoder,
    /// The result container of a set operation under construction.
    scratch: Scratch,
    /// Inputs of a many-way operation (emptied between calls; only the allocation stays).
    views: Vec<FrozenBitmap<'static>>,
    /// Per-input container positions of a many-way operation.
    cursors: Vec<usize>,
    /// Inputs holding the current key in a many-way union.
    hits: Vec<usize>,
    /// The containers of the current keys of a many-way union, with their cardinalities
    /// (emptied between calls; only the allocation stays).
    entries: Vec<(Container<'static>, u32)>,
    /// Per-key counts, then positions, of the containers of a many-way union.
    counts: Vec<u32>,
    /// `(next key, input)` of each input of a many-way union with sparse keys, as a heap.
    heap: Vec<core::cmp::Reverse<(u16, u32)>>,
}

impl Engine {
    /// An engine with no memory reserved yet.
    pub(crate) fn new() -> Engine {
        Engine {
            enc: Encoder::new(),
            scratch: Scratch::new(),
            views: Vec::new(),
            cursors: Vec::new(),
            hits: Vec::new(),
            entries: Vec::new(),
            counts: Vec::new(),
            heap: Vec::new(),
        }
    }

    /// Whether results get their canonical container kinds.
    pub(crate) fn set_canonical(&mut self, canonical: bool) {
        self.scratch.canonical = canonical;
    }

    /// See [`set_canonical`](Self::set_canonical).
    pub(crate) fn canonical(&self) -> bool {
        self.scratch.canonical
    }

    pub(crate) fn binary_into(
        &mut self,
        op: Op,
        a: &FrozenBitmap<'_>,
        b: &FrozenBitmap<'_>,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error> {
        self.enc.reset();
        let (da, db) = (&a.dir, &b.dir);
        let (na, nb) = (da.n(), db.n());
        // Direct mode: the result is written in place into `out` (no copy at the end),
        // after room for the most containers it can have. Only when `out` ends at a
        // multiple of 64, where the bitmap starts whether or not it holds a bitset; not for
        // intersections, whose results are small and often have fewer containers than
        // the bound (the copy saved is smaller than the key walk that finds the bound).
        let direct = (op != Op::And && out.len().is_multiple_of(BITSET_ALIGN)).then(|| {
            let mut common = 0;
            crate::view::common_keys(da, db, |_, _| {
                common += 1;
                true
            });
            match op {
                Op::And => common,
                Op::AndNot => na,
                Op::Or | Op::Xor => na + nb - common,
            }
        });
        let direct = direct.map(|n_bound| self.begin_direct(out, n_bound));
        let (s, enc) = (&mut self.scratch, &mut self.enc);
        s.clear();
        let keep_a = op != Op::And;
        let keep_b = matches!(op, Op::Or | Op::Xor);
        let (mut i, mut j) = (0, 0);
        while i < na && j < nb {
            let (ka, kb) = (da.key(i), db.key(j));
            if ka < kb {
                if keep_a {
                    kernels::pass_through(da.container(i), ka, enc, s);
                    i += 1;
                } else {
                    i = da.lower_bound(kb, i + 1, na);
                }
            } else if kb < ka {
                if keep_b {
                    kernels::pass_through(db.container(j), kb, enc, s);
                    j += 1;
                } else {
                    j = db.lower_bound(ka, j + 1, nb);
                }
            } else {
                let full = 1u32 << 16;
                let (fa, fb) = (da.card(i) == full, db.card(j) == full);
                match op {
                    // A full container decides the result without reading the other.
                    Op::Or if fa => kernels::pass_through(da.container(i), ka, enc, s),
                    Op::Or if fb => kernels::pass_through(db.container(j), ka, enc, s),
                    Op::And if fa => kernels::pass_through(db.container(j), ka, enc, s),
                    Op::And if fb => kernels::pass_through(da.container(i), ka, enc, s),
                    Op::AndNot if fb => {}
                    _ => {
                        let (ca, cb) = (da.container(i), db.container(j));
                        // A union with a bitset is most often a bitset (a canonical one
                        // holds more values than an array), made in place; if not, or
                        // for any other pair, through the scratch.
                        let in_place = match (op, ca, cb) {
                            (Op::Or, Container::Bitset(x), other)
                            | (Op::Or, other, Container::Bitset(x)) => {
                                bits_in_place(ka, s, enc, false, |bits| {
                                    Some(kernels::or_bitset_into(x, other, bits))
                                })
                            }
                            // Two arrays of more values than an array holds, which
                            // most often make a bitset: set in place too (no zeroing of
                            // the scratch bitset and no copy of it into `out`; census-
                            // income's 15 such pairs 5–8 % faster, `examples/kind_pairs`).
                            (Op::Or, Container::Array(x), Container::Array(y))
                                if x.len() + y.len() > crate::format::ARRAY_MAX as usize =>
                            {
                                bits_in_place(ka, s, enc, false, |bits| {
                                    Some(kernels::or_arrays_into_bits(x, y, bits))
                                })
                            }
                            // A bitset minus too few values to leave an array's worth
                            // or less: a bitset (unless runs), made in place too, with
                            // its count taken in the copy (census-income `andnot` 2 %
                            // faster; a branch on each value's bit made it 23 % slower).
                            (Op::AndNot, Container::Bitset(x), other)
                                if da.card(i).saturating_sub(db.card(j))
                                    > crate::format::ARRAY_MAX =>
                            {
                                bits_in_place(ka, s, enc, false, |bits| {
                                    Some(kernels::andnot_bitset_into(x, other, bits))
                                })
                            }
                            _ => None,
                        };
                        if in_place.is_none() {
                            kernels::binary(op, ca, cb, s);
                            s.emit(ka, enc);
                        }
                    }
                }
                i += 1;
                j += 1;
            }
        }
        if keep_a {
            copy_rest(da, i, s, enc);
        }
        if keep_b {
            copy_rest(db, j, s, enc);
        }
        Ok(self.finish_into(out, direct))
    }

    /// Starts direct mode: `out` becomes the encoder's payload, with room after its end for
    /// the header and `n_bound` directory entries; returns where the bitmap starts, and
    /// the bound, for [`finish_into`](Self::finish_into).
    fn begin_direct(&mut self, out: &mut Vec<u8>, n_bound: usize) -> (usize, usize) {
        let base = out.len();
        core::mem::swap(out, &mut self.enc.payload);
        self.enc.payload.resize(base + payload_start(n_bound), 0);
        self.enc.direct = Some(base);
        (base, n_bound)
    }

    /// Appends the encoded bitmap to `out`: in direct mode (from
    /// [`begin_direct`](Self::begin_direct)) finished in place, else laid out and copied.
    fn finish_into(&mut self, out: &mut Vec<u8>, direct: Option<(usize, usize)>) -> Range<usize> {
        match direct {
            Some((base, n_bound)) => {
                self.enc.direct = None;
                core::mem::swap(out, &mut self.enc.payload);
                self.enc.finish_direct(out, base, n_bound)
            }
            None => self.enc.finish_vec(out),
        }
    }

    /// [`many`](Self::many) over any iterator of views, written to `out`. For the union,
    /// the symmetric difference and the difference, in direct mode when `out` ends at a
    /// multiple of 64 (as [`binary_into`](Self::binary_into)): the result is written in
    /// place after room for as many containers as it can have (the distinct keys of the
    /// inputs: counted by the grouping's plan when it groups them, else by
    /// [`container_bound`]; the first input's containers for the difference), which saves
    /// copying the whole result at the end (union of all of census1881: 540 KB). A result
    /// with more containers (possible only with views of bytes `from_bytes` refuses) is
    /// still laid out right, at the cost of a move (see `finish_direct`).
    pub(crate) fn many_into<'a, I>(
        &mut self,
        bitmaps: I,
        op: Many,
        out: &mut Vec<u8>,
    ) -> Result<Range<usize>, Error>
    where
        I: IntoIterator,
        I::Item: Borrow<FrozenBitmap<'a>>,
    {
        self.enc.reset();
        let mut views = bitmaps.into_iter().map(|b| *b.borrow()).peekable();
        if op == Many::AndNot
            && let Some(first) = views.next_if(|first| first.dir.n() <= 1)
        {
            let direct = out
                .len()
                .is_multiple_of(BITSET_ALIGN)
                .then(|| self.begin_direct(out, first.dir.n()));
            self.subtract_streamed(&first, views, true);
            return Ok(self.finish_into(out, direct));
        }
        self.with_views(views, |w, views| {
            let in_place = op != Many::And && out.len().is_multiple_of(BITSET_ALIGN);
            if !in_place || op == Many::AndNot {
                let direct = in_place.then(|| views.first().map_or(0, |first| first.dir.n()));
                let direct = direct.map(|n_bound| w.begin_direct(out, n_bound));
                w.many(views, true, op);
                return Ok(w.finish_into(out, direct));
            }
            // Union or symmetric difference in place: the grouping's plan counts the keys.
            w.reset_many(views);
            let plan = w.plan_group(views);
            let n_bound = match plan {
                // Every view's keys increase (`count_keys` checked): one result container
                // at most per key with a container.
                Some(Plan { grouped: true, .. }) => w.counts.iter().filter(|&&c| c > 0).count(),
                Some(_) => container_bound(views, &mut w.scratch.bits2),
                None => 0,
            };
            let direct = Some(w.begin_direct(out, n_bound));
            if let Some(plan) = plan {
                w.group_many(views, plan, true, op == Many::Xor);
            }
            Ok(w.finish_into(out, direct))
        })
    }

    /// [`many`](Self::many) over any iterator of views (see [`with_views`](Self::with_views)).
    pub(crate) fn many_of<'a, I>(&mut self, bitmaps: I, emit: bool, op: Many) -> u64
    where
        I: IntoIterator,
        I::Item: Borrow<FrozenBitmap<'a>>,
    {
        // The same split as in `many_into`, written out: a helper returning the first view
        // and the rest's iterator kept the iterator from inlining (about 30 % slower on
        // uscensus2000's first minus the rest).
        let mut views = bitmaps.into_iter().map(|b| *b.borrow()).peekable();
        if op == Many::AndNot
            && let Some(first) = views.next_if(|first| first.dir.n() <= 1)
        {
            return self.subtract_streamed(&first, views, emit);
        }
        self.with_views(views, |w, views| w.many(views, emit, op))
    }

    /// Calls `f` with `views` collected into the writer's recycled buffer (no allocation
    /// once it has grown).
    fn with_views<'a, R>(
        &mut self,
        views: impl Iterator<Item = FrozenBitmap<'a>>,
        f: impl FnOnce(&mut Self, &[FrozenBitmap<'a>]) -> R,
    ) -> R {
        let mut buf: Vec<FrozenBitmap<'a>> = recycle(core::mem::take(&mut self.views));
        buf.extend(views);
        let r = f(self, &buf);
        self.views = recycle(buf);
        r
    }

    /// Many-way union, intersection, difference or symmetric difference; emits containers
    /// into the encoder if `emit`, and returns the number of values either way.
    fn many(&mut self, views: &[FrozenBitmap<'_>], emit: bool, op: Many) -> u64 {
        self.reset_many(views);
        let group = |w: &mut Self, xor| match w.plan_group(views) {
            Some(plan) => w.group_many(views, plan, emit, xor),
            None => 0,
        };
        match op {
            Many::And => self.intersect_many(views, emit),
            Many::Or => group(self, false),
            Many::Xor => group(self, true),
            Many::AndNot => self.subtract(views, emit),
        }
    }

    /// Readies the cursors (one per view, at its first container) and the scratch.
    fn reset_many(&mut self, views: &[FrozenBitmap<'_>]) {
        self.cursors.clear();
        self.cursors.resize(views.len(), 0);
        self.scratch.clear();
    }

    /// How [`group_many`](Self::group_many) will bring each key's containers together:
    /// with a counting sort when the keys are close together (each key's containers are
    /// then counted in `counts`, one entry per key of the span), else through a heap;
    /// `None` if no view has a container.
    fn plan_group(&mut self, views: &[FrozenBitmap<'_>]) -> Option<Plan> {
        let (lo, hi) = views
            .iter()
            .filter(|v| v.dir.n() > 0)
            .fold((u16::MAX, 0u16), |(lo, hi), v| {
                (lo.min(v.dir.key(0)), hi.max(v.dir.key(v.dir.n() - 1)))
            });
        if lo > hi {
            return None;
        }
        let containers: usize = views.iter().map(|v| v.dir.n()).sum();
        let span = usize::from(hi - lo) + 1;
        let grouped =
            span <= GROUP_SPAN * containers && count_keys(views, lo, span, &mut self.counts);
        Some(Plan { lo, grouped })
    }

    /// See [`many`](Self::many): the first bitmap minus the others, with the others'
    /// containers grouped by key ([`subtract_grouped`](Self::subtract_grouped)) when
    /// there are many of them on the first's keys: when the lookups of each key of the
    /// first in each other ([`subtract_many`](Self::subtract_many)) would be well over
    /// their containers (at most 0.6 containers a lookup). Above that ratio the lookups
    /// win: the first's containers are often emptied by a few others, after which they
    /// stop (BENCHMARKS.md, design decisions).
    fn subtract(&mut self, views: &[FrozenBitmap<'_>], emit: bool) -> u64 {
        if let Some((first, rest)) = views.split_first() {
            let containers: usize = rest.iter().map(|v| v.dir.n()).sum();
            if 5 * containers <= 3 * first.dir.n() * rest.len()
                && let Some(plan) = self.plan_group(rest)
            {
                return self.subtract_grouped(first, rest, plan, emit);
            }
        }
        self.subtract_many(views, emit)
    }

    /// See [`many`](Self::many): the first bitmap minus the others. Each container of the
    /// first bitmap has the others' containers of its key taken away as they are found,
    /// and the lookups for that key stop once nothing is left.
    fn subtract_many(&mut self, views: &[FrozenBitmap<'_>], emit: bool) -> u64 {
        let (s, enc, cursors) = (&mut self.scratch, &mut self.enc, &mut self.cursors);
        let Some((first, rest)) = views.split_first() else {
            return 0;
        };
        let mut total = 0u64;
        let d0 = &first.dir;
        for i in 0..d0.n() {
            s.clear();
            let mut found = false;
            for (v, cur) in rest.iter().zip(cursors.iter_mut()) {
                if take_away(s, d0, i, &v.dir, cur, &mut found) {
                    break;
                }
            }
            total += finish_difference(s, enc, d0, i, found, emit);
        }
        total
    }

    /// [`subtract_many`](Self::subtract_many) for a first bitmap of at most one container:
    /// the others are read as they come, without being collected (copying them, about 100
    /// bytes a view, was half the time of the first minus the rest on uscensus2000, 199
    /// small others), and no more of them once nothing is left.
    fn subtract_streamed<'a>(
        &mut self,
        first: &FrozenBitmap<'a>,
        rest: impl Iterator<Item = FrozenBitmap<'a>>,
        emit: bool,
    ) -> u64 {
        let (s, enc) = (&mut self.scratch, &mut self.enc);
        let d0 = &first.dir;
        if d0.n() == 0 {
            return 0;
        }
        s.clear();
        let mut found = false;
        for v in rest {
            if take_away(s, d0, 0, &v.dir, &mut 0, &mut found) {
                break;
            }
        }
        finish_difference(s, enc, d0, 0, found, emit)
    }

    /// See [`many`](Self::many): the intersection.
    fn intersect_many(&mut self, views: &[FrozenBitmap<'_>], emit: bool) -> u64 {
        let (s, enc, cursors) = (&mut self.scratch, &mut self.enc, &mut self.cursors);
        let mut total = 0u64;
        // Smallest first: fewest containers to look up, earliest exit.
        let Some(first) = (0..views.len()).min_by_key(|&k| views[k].dir.n()) else {
            return 0;
        };
        let d0 = &views[first].dir;
        'keys: for i in 0..d0.n() {
            let key = d0.key(i);
            s.clear();
            let mut started = false;
            for (k, v) in views.iter().enumerate() {
                if k == first {
                    continue;
                }
                let d = &v.dir;
                let c = d.lower_bound(key, cursors[k], d.n());
                cursors[k] = c;
                if c == d.n() {
                    s.clear();
                    break 'keys; // no later key can be in every bitmap
                }
                if d.key(c) != key {
                    s.clear();
                    continue 'keys;
                }
                if started {
                    kernels::and_in_place(d.container(c), s);
                } else {
                    kernels::binary(Op::And, d0.container(i), d.container(c), s);
                    started = true;
                }
                if s.len() == 0 {
                    continue 'keys;
                }
            }
            if !started {
                s.load(d0.container(i)); // a single input
            }
            total += s.emit_or_clear(key, enc, emit);
        }
        total
    }

    /// See [`many`](Self::many): the union, or the symmetric difference if `xor`; each
    /// key's containers are brought together and combined at once.
    fn group_many(&mut self, views: &[FrozenBitmap<'_>], plan: Plan, emit: bool, xor: bool) -> u64 {
        self.grouped(|g, s, enc| {
            g.for_each_key(views, plan, |key, hits| {
                combine_key(key, hits, emit, xor, s, enc)
            })
        })
    }

    /// [`subtract_many`](Self::subtract_many) with the others' containers grouped by key
    /// ([`Grouping`]): each of their directories is read once, in order, where looking up
    /// each key of the first bitmap in each of the others took a search apiece. For many
    /// others that share the first's keys (first minus the rest on wikileaks: 18 keys in
    /// each of 199 others).
    fn subtract_grouped<'v>(
        &mut self,
        first: &FrozenBitmap<'v>,
        rest: &[FrozenBitmap<'v>],
        plan: Plan,
        emit: bool,
    ) -> u64 {
        let d0 = &first.dir;
        // The first's containers on keys none of the others has go out as they are, in
        // key order: those below each grouped key (`upto`), then all those left.
        let pass =
            |upto: u32, next: &mut usize, s: &mut Scratch, enc: &mut crate::encode::Encoder| {
                let mut n = 0u64;
                while *next < d0.n() && u32::from(d0.key(*next)) < upto {
                    n += u64::from(d0.card(*next));
                    if emit {
                        kernels::pass_through(d0.container(*next), d0.key(*next), enc, s);
                    }
                    *next += 1;
                }
                n
            };
        self.grouped(|g, s, enc| {
            let mut next = 0usize;
            let grouped = g.for_each_key(rest, plan, |key, hits| {
                let mut n = pass(u32::from(key), &mut next, s, enc);
                if next < d0.n() && d0.key(next) == key {
                    let a = d0.container(next);
                    next += 1;
                    s.clear();
                    kernels::binary(Op::AndNot, a, hits[0].0, s);
                    kernels::andnot_many_in_place(&hits[1..], s);
                    n += s.emit_or_clear(key, enc, emit);
                }
                n
            });
            grouped + pass(1 << 16, &mut next, s, enc)
        })
    }

    /// Calls `f` with the writer's grouping buffers ([`Grouping`], its entries recycled
    /// for views of any lifetime), scratch and encoder.
    fn grouped<'v, R>(
        &mut self,
        f: impl FnOnce(&mut Grouping<'_, 'v>, &mut Scratch, &mut crate::encode::Encoder) -> R,
    ) -> R {
        let mut entries = recycle(core::mem::take(&mut self.entries));
        let mut g = Grouping {
            counts: &mut self.counts,
            cursors: &mut self.cursors,
            hits: &mut self.hits,
            heap: &mut self.heap,
            entries: &mut entries,
        };
        let r = f(&mut g, &mut self.scratch, &mut self.enc);
        self.entries = recycle(entries);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::Writer;

    /// `count_keys` counts each key's containers and refuses inputs whose keys are not
    /// strictly increasing (repeated or unordered, possible only through
    /// `from_bytes_unchecked`), which the grouping by windows of keys needs.
    #[test]
    fn count_keys_counts_and_refuses_keys_out_of_order() {
        let mut w = Writer::new();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        w.write_sorted([1, 2 << 16, 5 << 16], &mut a).unwrap();
        w.write_sorted([3 << 16, 5 << 16 | 9], &mut b).unwrap();
        let views = [
            FrozenBitmap::from_bytes(&a).unwrap(),
            FrozenBitmap::from_bytes(&b).unwrap(),
        ];
        let mut counts = Vec::new();
        assert!(count_keys(&views, 0, 6, &mut counts));
        assert_eq!(counts, [1, 0, 1, 1, 0, 2]);
        // A key past the span.
        assert!(!count_keys(&views, 0, 5, &mut counts));
        // Keys repeated or unordered (as the directory of a view from
        // `from_bytes_unchecked` can hold them).
        for order in [[0u16, 2, 2], [0, 5, 2]] {
            let keys = order.map(crate::cast::U16::new);
            let mut v = views[0];
            if let Directory::Frozen(d) = &mut v.dir {
                d.keys = &keys;
            }
            assert!(!count_keys(&[v], 0, 6, &mut counts), "keys {order:?}");
        }
    }
}
