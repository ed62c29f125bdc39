//! Kernels on sorted arrays: intersection, difference and merges, galloping or scanning
//! through a much larger array, and filtering an array by a bitset or by runs.

use super::*;

/// First index `>= lo` whose value is `>= v`, by exponential then binary search.
#[inline(always)]
pub(super) fn gallop(large: &[U16], lo: usize, v: u16) -> usize {
    crate::container::count::gallop_by(large.len(), lo, |k| large[k].get() < v)
}

#[inline(always)]
pub(super) fn and_aa(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if small.len() * GALLOP_RATIO < large.len() {
        // Up to `SCAN_RATIO`, scanned 16 values at a time (on census1881 `and`, the scan
        // makes the difference between slower and faster than CRoaring); galloping above.
        if small.len() * SCAN_RATIO >= large.len() && crate::simd::scan_u16(small, large, out) {
            return;
        }
        let mut j = 0;
        for v in small {
            let v = v.get();
            j = gallop(large, j, v);
            if j == large.len() {
                break;
            }
            if large[j].get() == v {
                out.push(v);
            }
        }
        return;
    }
    // Shorter than one block of the SIMD kernel: merged here (see `count::array_array`).
    if small.len() >= 8 && crate::simd::intersect_u16(small, large, out) {
        return;
    }
    let (mut i, mut j) = (0, 0);
    while i < small.len() && j < large.len() {
        let (x, y) = (small[i].get(), large[j].get());
        if x == y {
            out.push(x);
        }
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
}

/// Appends the values of `a` that `O` keeps given `b` (those whose bit is set for an
/// intersection, clear for a difference), without a branch per value.
#[inline(always)]
pub(super) fn filter_by_bits<O: Keep>(a: &[U16], b: &BitsetLE, out: &mut alloc::vec::Vec<u16>) {
    const { assert!(O::A_ONLY != O::BOTH && !O::B_ONLY) };
    let start = out.len();
    out.resize(start + a.len(), 0);
    let dst = &mut out[start..];
    let mut k = 0;
    for v in a {
        let v = v.get();
        dst[k] = v;
        k += usize::from(bit(b, v) == O::BOTH);
    }
    out.truncate(start + k);
}

#[inline(always)]
pub(super) fn andnot_aa(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) {
    if a.len() * GALLOP_RATIO < b.len() {
        let mut j = 0;
        for v in a {
            let v = v.get();
            j = gallop(b, j, v);
            if j == b.len() || b[j].get() != v {
                out.push(v);
            }
        }
        return;
    }
    if lopsided(a, b) {
        sparse_merge::<Difference>(a, b, out);
        return;
    }
    if !crate::simd::difference_u16(a, b, out) {
        merge_aa::<Difference>(a, b, out);
    }
}

/// Whether `small` is so much shorter than `large` that finding each of its values in
/// `large` beats a merge that reads both.
#[inline(always)]
pub(super) fn lopsided(large: &[U16], small: &[U16]) -> bool {
    small.len() * GALLOP_RATIO < large.len()
}

/// `large` combined with a much shorter `small`: each value of `small` is found in `large`
/// by galloping, and the stretches of `large` between are copied in bulk. `large` is the
/// first operand of `O` and `small` the second: values of `large` alone are always kept
/// (`O` is a union, a symmetric difference or a difference); values of `small` alone and
/// values in both as `O` says.
#[inline(always)]
pub(super) fn sparse_merge<O: Keep>(large: &[U16], small: &[U16], out: &mut alloc::vec::Vec<u16>) {
    const { assert!(O::A_ONLY) };
    let copy = crate::cast::extend_native;
    let mut pos = 0;
    for v in small {
        let v = v.get();
        let at = gallop(large, pos, v);
        copy(out, &large[pos..at]);
        if large.get(at).is_some_and(|x| x.get() == v) {
            if O::BOTH {
                out.push(v);
            }
            pos = at + 1;
        } else {
            if O::B_ONLY {
                out.push(v);
            }
            pos = at;
        }
    }
    copy(out, &large[pos..]);
}

/// Merge of two sorted arrays keeping the values that `O` keeps (union, symmetric
/// difference or difference; intersections have kernels of their own). Not inlined:
/// scalar code gains nothing from the wider target, and a function of its own keeps the
/// loop's state in registers.
#[inline(never)]
pub(super) fn merge_aa<O: Keep>(a: &[U16], b: &[U16], out: &mut alloc::vec::Vec<u16>) {
    // Branch-free: every step writes the smaller value and keeps it (advances the write
    // index) according to `O`; both sides advance on equality.
    let start = out.len();
    out.resize(start + a.len() + b.len(), 0);
    let dst = &mut out[start..];
    let (mut i, mut j, mut k) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i].get(), b[j].get());
        dst[k] = x.min(y);
        let keep = (O::A_ONLY && x < y) | (O::B_ONLY && y < x) | (O::BOTH && x == y);
        k += usize::from(keep);
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    if O::A_ONLY {
        for v in &a[i..] {
            dst[k] = v.get();
            k += 1;
        }
    }
    if O::B_ONLY {
        for v in &b[j..] {
            dst[k] = v.get();
            k += 1;
        }
    }
    out.truncate(start + k);
}

/// Values of `a` that `O` keeps given the runs `r` (inside them for an intersection,
/// outside for a difference): each run's bounds are found in `a`
/// by galloping from the previous one, and the stretches kept are copied in bulk.
#[inline(always)]
pub(super) fn filter_by_runs<O: Keep>(a: &[U16], r: &[RunLE], out: &mut alloc::vec::Vec<u16>) {
    const { assert!(O::A_ONLY != O::BOTH && !O::B_ONLY) };
    let copy = crate::cast::extend_native;
    if r.len() > RUNS_GALLOP_RATIO * a.len() {
        // Many more runs than values (census-income_srt: 4 values against 1055 runs):
        // each value's run found by galloping, rather than every run passed.
        let mut j = 0;
        for (i, v) in a.iter().enumerate() {
            let v32 = u32::from(v.get());
            j = crate::container::count::gallop_by(r.len(), j, |k| r[k].end() < v32);
            let Some(x) = r.get(j) else {
                // No run reaches this value: it and the rest are outside every run.
                if !O::BOTH {
                    copy(out, &a[i..]);
                }
                return;
            };
            if (x.start() <= v32) == O::BOTH {
                out.push(v.get());
            }
        }
        return;
    }
    if a.len() < GALLOP_RATIO * r.len() {
        // Not many more values than runs: one merge pass, begun 32 values a step with
        // AVX-512 where the CPU has it; each value is then stored without a branch and kept
        // by advancing the end of the output.
        let start = out.len();
        out.resize(start + a.len() + 32, 0);
        let dst = &mut out[start..];
        let (mut i, mut j, mut k) = if a.len() >= 32 {
            crate::simd::filter_by_runs_wide::<O>(a, r, dst)
        } else {
            (0, 0, 0)
        };
        while let (Some(v), Some(x)) = (a.get(i), r.get(j)) {
            let v = v.get();
            if x.end() < u32::from(v) {
                j += 1;
                continue;
            }
            dst[k] = v;
            k += usize::from((x.start() <= u32::from(v)) == O::BOTH);
            i += 1;
        }
        if !O::BOTH {
            for v in &a[i..] {
                dst[k] = v.get();
                k += 1;
            }
        }
        out.truncate(start + k);
        return;
    }
    let mut pos = 0;
    for x in r {
        let (st, en) = run(x);
        let lo = gallop(a, pos, st);
        let hi = if en == u16::MAX {
            a.len()
        } else {
            gallop(a, lo, en + 1)
        };
        copy(out, if O::BOTH { &a[lo..hi] } else { &a[pos..lo] });
        pos = hi;
        if pos == a.len() {
            break;
        }
    }
    if !O::BOTH {
        copy(out, &a[pos..]);
    }
}
