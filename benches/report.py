#!/usr/bin/env python3
"""Ratio tables from the criterion results of `cargo bench --bench frozen`.

Reads target/criterion/<dataset>/<benchmark>/new/estimates.json (median time) and
target/criterion/allocations.tsv, and prints Markdown tables of *ratios* (peer time / our
time: above 1 means frozen-roaring is faster). Absolute times are not reported: the
machines are shared and noisy. With FR_CRITERION_RUNS (copies of target/criterion from
several runs, colon-separated), each time is the median over those runs.
"""
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "criterion")
# Copies of target/criterion from several runs (`FR_CRITERION_RUNS=dir1:dir2:dir3`): each
# benchmark's time is then the median over the runs that have it, which damps the noise
# of a shared machine. Default: the last run only.
ROOTS = [r for r in os.environ.get("FR_CRITERION_RUNS", "").split(":") if r] or [ROOT]


def median(group, bench, nested=False):
    name = bench if nested else bench.replace("/", "_")
    times = []
    for root in ROOTS:
        path = os.path.join(root, group, *name.split("/"), "new", "estimates.json")
        try:
            with open(path) as f:
                times.append(json.load(f)["median"]["point_estimate"])
        except OSError:
            pass
    if not times:
        return None
    times.sort()
    mid = len(times) // 2
    return times[mid] if len(times) % 2 else (times[mid - 1] + times[mid]) / 2


def ratio(num, den):
    if num is None or den is None or den == 0:
        return "–"
    return f"{num / den:.2f}"


def allocations():
    out = {}
    try:
        with open(os.path.join(ROOTS[0], "allocations.tsv")) as f:
            for line in f:
                g, b, n = line.rstrip("\n").split("\t")
                out[(g, b)] = float(n)
    except OSError:
        pass
    return out


def main():
    names = sorted(
        g for g in os.listdir(ROOTS[0])
        if os.path.isdir(os.path.join(ROOTS[0], g)) and g not in ("report", "seedbench")
        and not g.endswith(".portable") and not g.endswith(".algebra")
    )
    groups = [g for g in names if median(g, "build/frozen-roaring") is not None]
    allocs = allocations()
    us = "frozen-roaring"
    print("Peer time ÷ frozen-roaring time (above 1: we are faster), medians of one run of")
    print("`cargo bench --bench frozen`, each operation over a whole dataset.\n")
    print("| dataset | build vs croaring | build vs roaring-rs | checked open vs croaring frozen view | open vs roaring-rs deserialize | contains vs roaring-rs | contains vs croaring | iterate vs croaring | iterate (next_many) vs croaring | intersection_len vs croaring | intersection_len vs roaring-rs |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for g in groups:
        m = lambda b: median(g, b)
        print("| " + " | ".join([
            g,
            ratio(m("build/croaring"), m("build/frozen-roaring")),
            ratio(m("build/roaring-rs"), m("build/frozen-roaring")),
            ratio(m("open/croaring-frozen-view"), m("open/frozen-roaring-checked")),
            ratio(m("open/roaring-rs-deserialize"), m("open/frozen-roaring-checked")),
            ratio(m("contains/roaring-rs"), m("contains/frozen-roaring")),
            ratio(m("contains/croaring-frozen-view"), m("contains/frozen-roaring")),
            ratio(m("iterate/croaring-frozen-view"), m("iterate/frozen-roaring")),
            ratio(m("iterate/croaring-frozen-view"), m("iterate/frozen-roaring-next_many")),
            ratio(m("intersection_len/croaring-frozen-view"), m("intersection_len/frozen-roaring")),
            ratio(m("intersection_len/roaring-rs"), m("intersection_len/frozen-roaring")),
        ]) + " |")
    print("\nQueries: peer time ÷ ours (`is_disjoint` of consecutive pairs, `range_cardinality`")
    print("and `contains_range` over 64 ranges per bitmap), and our heap allocations per bitmap:\n")
    print("| dataset | is_disjoint vs croaring | is_disjoint vs roaring-rs | range_cardinality vs croaring | range_cardinality vs roaring-rs | contains_range vs croaring | contains_range vs roaring-rs | allocations: is_disjoint, range_cardinality, contains_range |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for g in groups:
        m = lambda b: median(g, b)
        a = lambda b: f"{allocs[(g, b)]:g}" if (g, b) in allocs else "–"
        print("| " + " | ".join([g] + [
            ratio(m(f"{op}/{peer}"), m(f"{op}/frozen-roaring"))
            for op in ("is_disjoint", "range_cardinality", "contains_range")
            for peer in ("croaring-frozen-view", "roaring-rs")
        ] + [", ".join(a(f"{op}/frozen-roaring") for op in ("is_disjoint", "range_cardinality", "contains_range"))]) + " |")
    print("\nRead paths: peer time ÷ ours (`to_vec` against CRoaring's on its frozen view; backward")
    print("iteration, `next_range` and `rank` against roaring-rs's owned bitmaps), and our heap")
    print("allocations per bitmap with reused buffers:\n")
    print("| dataset | to_vec vs croaring | extend_into vs croaring to_vec | iterate backward vs roaring-rs | next_range vs roaring-rs | rank vs roaring-rs | allocations: extend_into, iterate backward, next_range |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for g in groups:
        m = lambda b: median(g, b)
        a = lambda b: f"{allocs[(g, b)]:g}" if (g, b) in allocs else "–"
        print("| " + " | ".join([
            g,
            ratio(m("to_vec/croaring-frozen-view"), m("to_vec/frozen-roaring")),
            ratio(m("to_vec/croaring-frozen-view"), m("extend_into/frozen-roaring")),
            ratio(m("iterate_back/roaring-rs"), m("iterate_back/frozen-roaring")),
            ratio(m("next_range/roaring-rs"), m("next_range/frozen-roaring")),
            ratio(m("rank/roaring-rs"), m("rank/frozen-roaring")),
            ", ".join(a(b) for b in ("extend_into/frozen-roaring", "iterate_back/frozen-roaring",
                                     "next_range/frozen-roaring")),
        ]) + " |")
    print("\nRe-encoding an existing bitmap into a reused buffer (our `write_frozen` time ÷ memcpy")
    print("of the same bytes; peers' serialization time ÷ ours), and open variants (÷ checked open):\n")
    print("| dataset | write_frozen ÷ memcpy | croaring portable ÷ ours | croaring frozen ÷ ours | roaring-rs ÷ ours | strict open ÷ checked | unchecked open ÷ checked | croaring portable view ÷ our checked open |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for g in groups:
        m = lambda b: median(g, b)
        print("| " + " | ".join([
            g,
            ratio(m("reencode/frozen-roaring"), m("reencode/memcpy")),
            ratio(m("reencode/croaring-portable"), m("reencode/frozen-roaring")),
            ratio(m("reencode/croaring-frozen"), m("reencode/frozen-roaring")),
            ratio(m("reencode/roaring-rs"), m("reencode/frozen-roaring")),
            ratio(m("open/frozen-roaring-strict"), m("open/frozen-roaring-checked")),
            ratio(m("open/frozen-roaring-unchecked"), m("open/frozen-roaring-checked")),
            ratio(m("open/croaring-portable-view"), m("open/frozen-roaring-checked")),
        ]) + " |")
    pgroups = [g for g in groups if median(g + ".portable", "build/frozen-roaring") is not None]
    if pgroups:
        print("\nThe portable format. Our views over CRoaring's portable bytes: portable-view time ÷")
        print("frozen-view time of the same sets (1.00 = as fast; above 1 = portable slower), and peers ÷")
        print("ours as above; conversions ÷ memcpy of the output bytes:\n")
        print("| dataset | contains portable÷frozen | iterate portable÷frozen | intersection_len portable÷frozen | rank portable÷frozen | open: croaring portable view ÷ ours | open: roaring-rs ÷ ours | contains: croaring portable view ÷ ours | intersection_len: croaring portable view ÷ ours | build portable: croaring ÷ ours | build portable: roaring-rs ÷ ours | frozen→portable ÷ memcpy | portable→frozen ÷ memcpy | croaring serialize ÷ our frozen→portable | roaring-rs serialize ÷ our frozen→portable |")
        print("| --- |" + " ---: |" * 14)
        for g in pgroups:
            m = lambda b: median(g + ".portable", b)
            print("| " + " | ".join([
                g,
                ratio(m("contains/portable"), m("contains/frozen")),
                ratio(m("iterate/portable"), m("iterate/frozen")),
                ratio(m("intersection_len/portable"), m("intersection_len/frozen")),
                ratio(m("rank/portable"), m("rank/frozen")),
                ratio(m("open/croaring-portable-view"), m("open/frozen-roaring-checked")),
                ratio(m("open/roaring-rs-deserialize"), m("open/frozen-roaring-checked")),
                ratio(m("contains/croaring-portable-view"), m("contains/portable")),
                ratio(m("intersection_len/croaring-portable-view"), m("intersection_len/portable")),
                ratio(m("build/croaring"), m("build/frozen-roaring")),
                ratio(m("build/roaring-rs"), m("build/frozen-roaring")),
                ratio(m("convert/frozen-to-portable"), m("convert/memcpy-portable")),
                ratio(m("convert/portable-to-frozen"), m("convert/memcpy-frozen")),
                ratio(m("serialize/croaring-portable"), m("convert/frozen-to-portable")),
                ratio(m("serialize/roaring-rs"), m("convert/frozen-to-portable")),
            ]) + " |")
    # A run of the set-algebra benchmarks alone (`-- 'algebra/'`) has no build results.
    agroups = [g for g in names if median(g + ".algebra", "and/frozen-roaring") is not None]
    if agroups:
        print("\nSet algebra on consecutive pairs (and the union and symmetric difference of all bitmaps): CRoaring on its frozen")
        print("views ÷ ours, and roaring-rs owned operations ÷ ours (above 1: we are faster). Ours write")
        print("canonical frozen bytes into a reused buffer; CRoaring and roaring-rs return owned bitmaps:\n")
        cols = []
        for op in ("and", "or", "andnot", "xor"):
            cols += [(f"{op} vs croaring", f"{op}/croaring", f"{op}/frozen-roaring"),
                     (f"{op} vs roaring-rs", f"{op}/roaring-rs", f"{op}/frozen-roaring"),
                     (f"{op}_len vs croaring", f"{op}_len/croaring", f"{op}_len/frozen-roaring")]
        cols += [("union of all vs croaring fast_or", "union_all/croaring", "union_all/frozen-roaring"),
                 ("union of all vs roaring-rs", "union_all/roaring-rs", "union_all/frozen-roaring"),
                 ("xor of all vs croaring fast_xor", "xor_all/croaring", "xor_all/frozen-roaring"),
                 ("xor of all vs roaring-rs", "xor_all/roaring-rs", "xor_all/frozen-roaring"),
                 ("first minus the rest vs croaring andnot(fast_or)", "diff_all/croaring", "diff_all/frozen-roaring"),
                 ("first minus the rest vs roaring-rs", "diff_all/roaring-rs", "diff_all/frozen-roaring")]
        print("| dataset | " + " | ".join(c[0] for c in cols) + " |")
        print("| --- |" + " ---: |" * len(cols))
        for g in agroups:
            m = lambda b: median(g + ".algebra", b)
            print("| " + g + " | " + " | ".join(ratio(m(peer), m(us_)) for _, peer, us_ in cols) + " |")
        rcols = [(f"{op} vs croaring", f"{op}/croaring", f"{op}/frozen-roaring-relaxed")
                 for op in ("and", "or", "andnot", "xor")]
        rcols += [("union of all vs croaring fast_or", "union_all/croaring", "union_all/frozen-roaring-relaxed"),
                  ("xor of all vs croaring fast_xor", "xor_all/croaring", "xor_all/frozen-roaring-relaxed")]
        if any(median(g + ".algebra", "or/frozen-roaring-relaxed") is not None for g in agroups):
            print("\nThe same without canonical kinds (`Writer::with_canonical(false)`: results keep the")
            print("kernels' representation, as CRoaring's do; no run counting or conversion), CRoaring ÷ ours:\n")
            print("| dataset | " + " | ".join(c[0] for c in rcols) + " |")
            print("| --- |" + " ---: |" * len(rcols))
            for g in agroups:
                m = lambda b: median(g + ".algebra", b)
                print("| " + g + " | " + " | ".join(ratio(m(peer), m(us_)) for _, peer, us_ in rcols) + " |")
        print("\nAllocations per pair: " + "; ".join(
            f"{g}: ours {allocs.get((g + '.algebra', 'and/frozen-roaring'), float('nan')):g}, croaring {allocs.get((g + '.algebra', 'and/croaring'), float('nan')):g}"
            for g in agroups[:1]) + " (and; the other operations alike, see allocations.tsv).")
    if allocs:
        print("\nHeap allocations per bitmap (per pair for intersection_len), steady state:\n")
        names = ["build/frozen-roaring", "build/croaring", "build/roaring-rs", "reencode/frozen-roaring",
                 "open/frozen-roaring-checked", "open/croaring-frozen-view", "open/croaring-portable-view",
                 "open/roaring-rs-deserialize", "intersection_len/frozen-roaring", "intersection_len/croaring-frozen-view"]
        print("| dataset | " + " | ".join(names) + " |")
        print("| --- |" + " ---: |" * len(names))
        for g in groups:
            print("| " + g + " | " + " | ".join(
                f"{allocs[(g, n)]:g}" if (g, n) in allocs else "–" for n in names) + " |")
    seeds = [s for s in ("sparse", "mid", "dense") if median("seedbench", f"write_frozen/{s}", True) is not None]
    if seeds:
        print("\nGo roaring's serialization sets (`../shared/seedbench`), one serialization into a")
        print("reused buffer, time ÷ memcpy of our output bytes:\n")
        cols = ["write_frozen", "write_sorted", "croaring-portable", "croaring-frozen", "roaring-rs"]
        print("| set | " + " | ".join(cols) + " |")
        print("| --- |" + " ---: |" * len(cols))
        for s in seeds:
            mc = median("seedbench", f"memcpy/{s}", True)
            print(f"| {s} | " + " | ".join(ratio(median("seedbench", f"{c}/{s}", True), mc) for c in cols) + " |")
    return 0


def dv():
    """The `cargo bench --bench dv` table: peer time / ours per shape."""
    rows = [
        ("open + len", "open_len", "ours", ["roaring_rs", "croaring"]),
        ("open (strict: CRC + payloads) + len", "open_len", "ours_strict", ["roaring_rs", "croaring"]),
        ("open + fill_mask of 2^20 rows", "open_mask", "ours", ["roaring_rs", "croaring"]),
        ("merge 10 DVs", "merge10", "ours", ["roaring_rs", "croaring"]),
    ]
    shapes = ["sparse", "dense", "runs"]
    print("| operation | peer | " + " | ".join(shapes) + " |")
    print("| --- | --- |" + " ---: |" * len(shapes))
    for label, group, ours, peers in rows:
        for peer in peers:
            cells = []
            for shape in shapes:
                t_ours = median("dv", f"{group}_{ours}/{shape}", nested=True)
                t_peer = median("dv", f"{group}_{peer}/{shape}", nested=True)
                cells.append(ratio(t_peer, t_ours))
            print(f"| {label} | {peer} | " + " | ".join(cells) + " |")


if __name__ == "__main__" and sys.argv[1:] == ["dv"]:
    dv()
    sys.exit(0)

if __name__ == "__main__":
    sys.exit(main())
