//! Kernels on run lists (stored runs, sorted values as runs of one, or the scratch's
//! runs): union, intersection, difference and symmetric difference by interval
//! arithmetic, never expanding runs to values.

use super::*;

/// A list of ascending, disjoint runs read in place: sorted values (runs of one value),
/// stored runs, or the scratch's runs. The run kernels take any two.
pub(super) trait RunList: Copy {
    fn n(self) -> usize;
    fn at(self, i: usize) -> (u16, u16);
    /// Run `i` (or `None` past the end) as `(start, end)` in `u32`, its end not clamped
    /// to 65535 (a corrupt stored run may end up to 131070): one operation fewer than
    /// [`at`](Self::at) for walks that only compare ends with starts and with each other,
    /// and one bounds check for both the end of the walk and the read.
    #[inline(always)]
    fn span(self, i: usize) -> Option<(u32, u32)> {
        (i < self.n()).then(|| {
            let (s, e) = self.at(i);
            (u32::from(s), u32::from(e))
        })
    }
}

impl RunList for &[U16] {
    #[inline(always)]
    fn n(self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn at(self, i: usize) -> (u16, u16) {
        (self[i].get(), self[i].get())
    }
}

impl RunList for &[RunLE] {
    #[inline(always)]
    fn n(self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn at(self, i: usize) -> (u16, u16) {
        run(&self[i])
    }
    #[inline(always)]
    fn span(self, i: usize) -> Option<(u32, u32)> {
        let r = self.get(i)?;
        Some((r.start(), r.start() + u32::from(r.len_minus_one.get())))
    }
}

impl RunList for &[(u16, u16)] {
    #[inline(always)]
    fn n(self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn at(self, i: usize) -> (u16, u16) {
        self[i]
    }
}

/// `a ∪ b`: runs taken in order of start, merged where they overlap or touch.
#[inline(always)]
pub(super) fn merge_runs(a: impl RunList, b: impl RunList, out: &mut alloc::vec::Vec<(u16, u16)>) {
    // Inlined by force (as in `union_array_runs`): the accumulator's last run stays in
    // registers, and the walk is compiled at its caller's CPU level.
    with_runs(
        out,
        a.n() + b.n(),
        #[inline(always)]
        |acc| by_start(a, b, |(s, e)| acc.merge(s, e)),
    );
}

/// `a ∪ r` for sorted values and runs, run by run: a run that ends before the next value
/// is put out as it is (one compare); else the values before it are put out (each a run
/// of one, joined to the last where they touch), then the run, and the values inside it
/// are passed, 8 at a time without a branch. [`merge_runs`] instead decides between the
/// two lists at each element; this costs about that per run that meets no value, and
/// less where values lie inside runs. Values out of order (a corrupt payload) give wrong
/// runs, still ascending and disjoint; never a panic.
#[inline(always)]
pub(super) fn union_array_runs(a: &[U16], r: &[RunLE], out: &mut alloc::vec::Vec<(u16, u16)>) {
    // Inlined into `with_runs`: the accumulator's last run stays in registers.
    with_runs(
        out,
        a.len() + r.len(),
        #[inline(always)]
        |acc| {
            // The value at `i`, or above every value once past the end.
            let at = |i: usize| a.get(i).map_or(u32::MAX, |v| u32::from(v.get()));
            let mut i = 0;
            let mut v = at(0);
            for x in r {
                let (s, e) = run(x);
                if v > u32::from(e) {
                    acc.merge(s, e);
                    continue;
                }
                while v < u32::from(s) {
                    acc.merge(v as u16, v as u16);
                    i += 1;
                    v = at(i);
                }
                acc.merge(s, e);
                // The values inside the run: those of the next 8 that are at most `e` (a
                // prefix, the values being sorted) counted without a branch.
                while let Some(next) = a.get(i..i + 8) {
                    let inside: usize = next.iter().map(|v| usize::from(v.get() <= e)).sum();
                    i += inside;
                    if inside < 8 {
                        break;
                    }
                }
                v = at(i);
                while v <= u32::from(e) {
                    i += 1;
                    v = at(i);
                }
            }
            for v in a.get(i..).unwrap_or(&[]) {
                acc.merge(v.get(), v.get());
            }
        },
    );
}

/// Calls `f` with the runs of `a` and `b` in ascending order of start. Branchy, as
/// `and_runs` (and for the same reason).
#[inline(always)]
pub(super) fn by_start(a: impl RunList, b: impl RunList, mut f: impl FnMut((u16, u16))) {
    let (mut i, mut j) = (0, 0);
    if a.n() > 0 && b.n() > 0 {
        let (mut x, mut y) = (a.at(0), b.at(0));
        loop {
            if x.0 <= y.0 {
                f(x);
                i += 1;
                if i == a.n() {
                    break;
                }
                x = a.at(i);
            } else {
                f(y);
                j += 1;
                if j == b.n() {
                    break;
                }
                y = b.at(j);
            }
        }
    }
    for k in i..a.n() {
        f(a.at(k));
    }
    for k in j..b.n() {
        f(b.at(k));
    }
}

/// `a ∩ b`: the overlap of each pair of runs that meet, put out as it is, not merged
/// into the last run by a [`RunAcc`] (census-income_srt's `and` 3 % faster): the overlaps
/// of well-formed inputs are ascending and apart, and any that touch or overlap (from
/// touching or disordered runs in an input) are merged by `Scratch::set_runs`'s cold path.
#[inline(always)]
pub(super) fn and_runs(a: impl RunList, b: impl RunList, out: &mut alloc::vec::Vec<(u16, u16)>) {
    with_room(
        out,
        a.n() + b.n(),
        #[inline(always)]
        |slots| and_runs_in(a, b, slots),
    );
}

/// [`and_runs`] for two stored run lists, the pair the run ∘ run kernel meets most, out
/// of line so that the walk keeps its cursors, runs and output in registers (inlined into
/// the many-kernel dispatch it kept some on the stack: census-income_srt's `and` 4 %
/// slower).
#[inline(never)]
pub(super) fn and_stored_runs(a: &[RunLE], b: &[RunLE], out: &mut alloc::vec::Vec<(u16, u16)>) {
    and_runs(a, b, out);
}

/// The overlaps of `a` and `b` in `out` (room for one per input run, more than the
/// overlaps can be), and how many.
#[inline(always)]
pub(super) fn and_runs_in(a: impl RunList, b: impl RunList, out: &mut [(u16, u16)]) -> usize {
    // Branches on which run ends first, rather than cursors advanced by comparisons: the
    // branch-free form makes each step wait for the previous step's loads, and is slower
    // (the advances often repeat on one side, which predicts well). Ends unclamped
    // (`RunList::span`): the walk compares them with starts (at most 65535) and with each
    // other, which the clamp would not change, and an overlap's end is clamped as it is
    // put out.
    let (Some((mut s1, mut e1)), Some((mut s2, mut e2))) = (a.span(0), b.span(0)) else {
        return 0;
    };
    let (mut i, mut j, mut k) = (0, 0, 0);
    loop {
        // Runs that end before the other's run starts are passed in tight loops.
        if e1 < s2 {
            i += 1;
            let Some(x) = a.span(i) else { break };
            (s1, e1) = x;
            continue;
        }
        if e2 < s1 {
            j += 1;
            let Some(y) = b.span(j) else { break };
            (s2, e2) = y;
            continue;
        }
        if let Some(slot) = out.get_mut(k) {
            *slot = (s1.max(s2) as u16, e1.min(e2).min(0xFFFF) as u16);
            k += 1;
        }
        let (adv_a, adv_b) = (e1 <= e2, e2 <= e1);
        if adv_a {
            i += 1;
            let Some(x) = a.span(i) else { break };
            (s1, e1) = x;
        }
        if adv_b {
            j += 1;
            let Some(y) = b.span(j) else { break };
            (s2, e2) = y;
        }
    }
    k
}

/// `a − b`: each run of `a` cut by the runs of `b` that overlap it.
#[inline(always)]
pub(super) fn andnot_runs(a: impl RunList, b: impl RunList, out: &mut alloc::vec::Vec<(u16, u16)>) {
    let mut j = 0;
    for i in 0..a.n() {
        let (st, en) = a.at(i);
        let (mut cur, en) = (u32::from(st), u32::from(en));
        // Skip the runs of `b` that end before this run.
        while j < b.n() && u32::from(b.at(j).1) < cur {
            j += 1;
        }
        while j < b.n() && u32::from(b.at(j).0) <= en {
            let (bs, be) = b.at(j);
            if u32::from(bs) > cur {
                push_run(out, cur as u16, (u32::from(bs) - 1) as u16);
            }
            cur = cur.max(u32::from(be) + 1);
            if u32::from(be) >= en {
                break; // this run of `b` may also cut the next run of `a`
            }
            j += 1;
        }
        if cur <= en {
            push_run(out, cur as u16, en as u16);
        }
    }
}

/// `a ⊕ b`: the runs of both, taken in order of start (one branch per run), each combined
/// with the last run of the result (as CRoaring's `run_container_smart_append_exclusive`):
/// every earlier run of the result ends before it, so only the last one can overlap or
/// touch it. The last run is kept in registers and written out once final.
#[inline(always)]
pub(super) fn xor_runs(a: impl RunList, b: impl RunList, out: &mut alloc::vec::Vec<(u16, u16)>) {
    // Inlined by force, as in `merge_runs`.
    with_runs(
        out,
        a.n() + b.n(),
        #[inline(always)]
        |acc| by_start(a, b, |r| acc.xor(r)),
    );
}

/// A run list under construction, written by index into room made for it in advance (no
/// capacity check and length update per run, as `Vec::push` would do), its last run kept
/// in registers until it is final. See [`with_runs`].
pub(super) struct RunAcc<'o> {
    last: Option<(u16, u16)>,
    /// Where the final runs go, and how many there are.
    out: &'o mut [(u16, u16)],
    k: usize,
}

impl RunAcc<'_> {
    /// Appends a final run.
    #[inline(always)]
    fn put(&mut self, r: (u16, u16)) {
        if let Some(slot) = self.out.get_mut(self.k) {
            *slot = r;
            self.k += 1;
        }
    }

    /// Adds run `s..=e`, which starts at or after the last run's start: merged into the
    /// last run if they overlap or touch (so even a corrupt input gives well-formed runs).
    #[inline(always)]
    fn merge(&mut self, s: u16, e: u16) {
        match self.last {
            Some((ls, le)) if joins(le, s) => {
                self.last = Some((ls, le.max(e)));
            }
            Some(l) => {
                self.put(l);
                self.last = Some((s, e));
            }
            None => self.last = Some((s, e)),
        }
    }

    /// Replaces the last run `l` by `l ⊕ r`, for a run `r` starting at or after `l` (and
    /// after every earlier run): `l` is final and written out if they are apart, they join
    /// if touching; if they overlap, the part of `l` before `r` is final and the part of
    /// the longer one after the shorter becomes the last run. A corrupt payload (runs out
    /// of order) gives wrong runs, never a panic.
    #[inline(always)]
    fn xor(&mut self, (s, e): (u16, u16)) {
        let Some((ls, le)) = self.last else {
            self.last = Some((s, e));
            return;
        };
        if u32::from(s) > u32::from(le) + 1 {
            self.put((ls, le));
            self.last = Some((s, e));
        } else if u32::from(s) == u32::from(le) + 1 {
            self.last = Some((ls, e));
        } else {
            if ls < s {
                self.put((ls, s - 1));
            }
            self.last = if le < e {
                Some((le + 1, e))
            } else if e < le {
                Some((e + 1, le))
            } else {
                None
            };
        }
    }
}

/// Clears `out` and fills it with the runs that `f` adds to a [`RunAcc`] with room for
/// `max` runs, the most the operation can give from well-formed inputs (one per input
/// run); any beyond, possible only from a corrupt payload, are dropped.
#[inline(always)]
pub(super) fn with_runs(
    out: &mut alloc::vec::Vec<(u16, u16)>,
    max: usize,
    f: impl FnOnce(&mut RunAcc<'_>),
) {
    with_room(
        out,
        max,
        #[inline(always)]
        |slots| {
            let mut acc = RunAcc {
                last: None,
                out: slots,
                k: 0,
            };
            f(&mut acc);
            if let Some(last) = acc.last {
                acc.put(last);
            }
            acc.k
        },
    );
}

/// Clears `out`, gives `f` room for `max` runs, and keeps the first ones, as many as `f`
/// says it wrote.
#[inline(always)]
pub(super) fn with_room(
    out: &mut alloc::vec::Vec<(u16, u16)>,
    max: usize,
    f: impl FnOnce(&mut [(u16, u16)]) -> usize,
) {
    out.clear();
    out.resize(max, (0, 0));
    let k = f(out);
    out.truncate(k);
}
