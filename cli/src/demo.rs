//! `demo`: the main job. A Zipf corpus indexed into a bitmap file, mapped and queried.

use super::*;

/// SplitMix64, so the demo corpus is the same on every machine.
pub(super) struct Rng(u64);

impl Rng {
    fn next_f64(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Document ids of one term: each document with probability `p`, by geometric gaps.
pub(super) fn postings(rng: &mut Rng, docs: u32, p: f64, out: &mut Vec<u32>) {
    out.clear();
    if p >= 1.0 {
        out.extend(0..docs);
        return;
    }
    let log_q = (1.0 - p).ln();
    let mut doc = -1.0f64;
    loop {
        let u = rng.next_f64().max(f64::MIN_POSITIVE);
        doc += 1.0 + (u.ln() / log_q).floor();
        if doc >= f64::from(docs) {
            return;
        }
        out.push(doc as u32);
    }
}

pub(super) fn demo(a: DemoArgs) -> Result<()> {
    let (docs, terms) = (a.docs.max(1), a.terms.max(1));
    say!(
        "corpus: {} documents, {} terms, Zipf term frequencies (exponent 1, seed 1)",
        num(docs.into()),
        num(terms)
    );
    let tmp = match &a.keep {
        Some(_) => None,
        None => Some(tempfile::tempdir().map_err(|e| {
            Fail::Msg(format!(
                "cannot create a temporary folder for the demo file: {e}"
            ))
        })?),
    };
    let path = match (&a.keep, &tmp) {
        (Some(p), _) => p.clone(),
        (None, Some(t)) => t.path().join("demo.frf"),
        (None, None) => unreachable!("a temporary folder is made when --keep is absent"),
    };
    // Build: one bitmap per term, streamed into the file.
    let mut rng = Rng(1);
    let mut values = Vec::new();
    let mut w = FileWriter::create(&path)?;
    w.reserve(terms as usize);
    let bar = progress(Some(terms), Unit::Items, "indexing");
    let start = Instant::now();
    let mut portable = 0u64;
    let mut pw = Writer::new();
    let mut pbuf = Vec::new();
    for t in 0..terms {
        postings(&mut rng, docs, 0.5 / (t as f64 + 1.0), &mut values);
        if values.is_empty() {
            continue;
        }
        w.add_sorted(t, values.iter().copied())?;
        pbuf.clear();
        portable += pw
            .write_portable_sorted(values.iter().copied(), &mut pbuf)?
            .len() as u64;
        if t % 1024 == 0 {
            bar.set_position(t);
        }
    }
    bar.finish_and_clear();
    let (keys, total) = (w.count(), w.values());
    w.commit()?;
    let build = start.elapsed();
    let start = Instant::now();
    let file = open_file(&path)?;
    let open_time = start.elapsed();
    let bytes = file.as_bytes().len() as u64;
    say!(
        "built {} bitmaps, {} postings: {} bytes ({:.3} bytes/posting; portable format {} bytes, ratio {:.3}) in {:.0} ms ({:.1} M postings/s)",
        num(keys),
        num(total),
        num(bytes),
        bytes as f64 / total.max(1) as f64,
        num(portable),
        bytes as f64 / portable.max(1) as f64,
        build.as_secs_f64() * 1e3,
        total as f64 / build.as_secs_f64() / 1e6
    );
    say!(
        "mapped and opened the file (footer, directory checksum, {} keys checked) in {:.2} ms",
        num(keys),
        open_time.as_secs_f64() * 1e3
    );
    // Queries: a frequent term with a rarer one, conjunctive and disjunctive.
    let pairs: Vec<(u64, u64)> = (0..400u64)
        .map(|i| (i % 20, (i * 7919 + 5) % keys.max(1)))
        .collect();
    let mut qw = Writer::new();
    for (name, op) in [("AND", Op::And), ("OR", Op::Or)] {
        let (hits, p50, p99) = timed_pairs(&file, &pairs, &mut qw, op)?;
        say!(
            "{} {name} queries (lookup + result written to a reused buffer): {} matches; latency p50 {p50:.1} µs, p99 {p99:.1} µs",
            pairs.len(),
            num(hits)
        );
    }
    let three: Vec<FrozenBitmap> = [1u64, 2, 3]
        .iter()
        .filter_map(|&k| file.get(k).ok().flatten())
        .collect();
    let t = Instant::now();
    let n = qw.intersection_many_len(&three);
    say!(
        "terms 1 AND 2 AND 3: {} documents ({:.1} µs, counted without writing)",
        num(n),
        t.elapsed().as_secs_f64() * 1e6
    );
    // Self-check against a plain merge of the decoded lists.
    if let (Some(a), Some(b)) = (file.get(1)?, file.get(2)?) {
        let (x, y) = (a.to_vec(), b.to_vec());
        let merged = x.iter().filter(|v| y.binary_search(v).is_ok()).count() as u64;
        if merged != a.intersection_len(&b) {
            return fail("self-check failed: intersection differs from a merge of the lists");
        }
        say!(
            "check: |term 1 AND term 2| = {}, same as a merge of the decoded lists",
            num(merged)
        );
    }
    if a.keep.is_some() {
        say!("kept {}", path.display());
    }
    Ok(())
}

#[derive(Clone, Copy)]
pub(super) enum Op {
    And,
    Or,
}

/// Runs one two-key query per pair (lookups included): (matches, p50 µs, p99 µs).
pub(super) fn timed_pairs(
    file: &BitmapFile<memmap2::Mmap>,
    pairs: &[(u64, u64)],
    w: &mut Writer,
    op: Op,
) -> Result<(u64, f64, f64)> {
    let mut out = Vec::new();
    let mut lat = Vec::with_capacity(pairs.len());
    let mut hits = 0u64;
    for &(x, y) in pairs {
        let t = Instant::now();
        let (Some(a), Some(b)) = (file.get(x)?, file.get(y)?) else {
            continue;
        };
        out.clear();
        let r = match op {
            Op::And => w.intersection_into(&a, &b, &mut out)?,
            Op::Or => w.union_into(&a, &b, &mut out)?,
        };
        hits += FrozenBitmap::from_bytes(&out[r])?.len();
        lat.push(t.elapsed().as_secs_f64() * 1e6);
    }
    let (p50, p99) = percentiles(&mut lat);
    Ok((hits, p50, p99))
}

/// (p50, p99) of latencies.
pub(super) fn percentiles(v: &mut [f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.99))
}
