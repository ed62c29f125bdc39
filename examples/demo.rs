//! The main job, on an embedded default: an indexer writes one frozen bitmap per term of a
//! generated corpus into one file, then a query process reads the file, opens the bitmaps
//! in place and answers conjunctive and disjunctive queries.
//!
//! ```text
//! cargo run --release --example demo [-- DOCS TERMS]
//! ```
//!
//! The corpus is deterministic: term frequencies follow a Zipf law (exponent 1) over DOCS
//! documents (default 2,000,000) and TERMS terms (default 2,000); term 0 appears in half
//! the documents.

use std::time::Instant;

use frozen_roaring::{FrozenBitmap, Writer};

/// SplitMix64, so the corpus is the same on every machine.
struct Rng(u64);

impl Rng {
    fn next_f64(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The ascending document ids of one term: each document independently with probability
/// `p`, drawn by geometric gaps (O(postings), not O(documents)).
fn postings(rng: &mut Rng, docs: u32, p: f64, out: &mut Vec<u32>) {
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

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let docs: u32 = args
        .next()
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(2_000_000);
    let terms: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(2_000);
    println!("corpus: {docs} documents, {terms} terms, Zipf term frequencies (seed 1)");

    // Index: one bitmap per term, appended to one buffer, then to a file.
    let mut rng = Rng(1);
    let mut writer = Writer::new();
    let mut file = Vec::new();
    let mut ranges = Vec::with_capacity(terms);
    let mut values = Vec::new();
    let (mut total_values, mut build_secs) = (0u64, 0.0f64);
    for t in 0..terms {
        postings(&mut rng, docs, 0.5 / (t as f64 + 1.0), &mut values);
        total_values += values.len() as u64;
        let start = Instant::now();
        ranges.push(writer.write_sorted(values.iter().copied(), &mut file)?);
        build_secs += start.elapsed().as_secs_f64();
    }
    let path = std::env::temp_dir().join(format!("frozen-roaring-demo-{}.frb", std::process::id()));
    std::fs::write(&path, &file)?;
    println!(
        "indexed {total_values} postings into {} bytes ({:.3} bytes/posting) in {:.1} ms ({:.0} M postings/s)",
        file.len(),
        file.len() as f64 / total_values as f64,
        build_secs * 1e3,
        total_values as f64 / build_secs / 1e6
    );

    // Query: read the file back and open every bitmap in place (checked, no copy).
    let bytes = std::fs::read(&path)?;
    std::fs::remove_file(&path)?;
    let start = Instant::now();
    let bitmaps: Vec<FrozenBitmap<'_>> = ranges
        .iter()
        .map(|r| FrozenBitmap::from_bytes(&bytes[r.clone()]))
        .collect::<Result<_, _>>()?;
    let open = start.elapsed();
    let stats = bitmaps
        .iter()
        .map(|b| b.statistics())
        .fold([0u32; 3], |mut acc, s| {
            acc[0] += s.array_containers;
            acc[1] += s.bitset_containers;
            acc[2] += s.run_containers;
            acc
        });
    println!(
        "opened {} bitmaps in {:.2} ms ({:.0} ns each); containers: {} array, {} bitset, {} run",
        bitmaps.len(),
        open.as_secs_f64() * 1e3,
        open.as_nanos() as f64 / bitmaps.len() as f64,
        stats[0],
        stats[1],
        stats[2]
    );

    // A batch of two-term queries mixing frequent and rare terms.
    let pairs: Vec<(usize, usize)> = (0..200).map(|i| (i % 20, (i * 37 + 5) % terms)).collect();
    let start = Instant::now();
    let mut and_total = 0u64;
    for &(a, b) in &pairs {
        and_total += bitmaps[a].intersection_len(&bitmaps[b]);
    }
    let and_time = start.elapsed();
    let start = Instant::now();
    let mut or_total = 0u64;
    for &(a, b) in &pairs {
        or_total += bitmaps[a].union_len(&bitmaps[b]);
    }
    let or_time = start.elapsed();
    println!(
        "{} AND queries: {} matches, {:.1} µs/query; {} OR queries: {} matches, {:.1} µs/query",
        pairs.len(),
        and_total,
        and_time.as_secs_f64() * 1e6 / pairs.len() as f64,
        pairs.len(),
        or_total,
        or_time.as_secs_f64() * 1e6 / pairs.len() as f64
    );

    // Membership and ranking on the most frequent term.
    let top = &bitmaps[0];
    let start = Instant::now();
    let hits = (0..1_000_000u32)
        .filter(|d| top.contains(d.wrapping_mul(2_654_435_761) % docs))
        .count();
    let contains_ns = start.elapsed().as_nanos() as f64 / 1e6;
    println!(
        "term 0: {} documents, {hits} of 1,000,000 random lookups hit ({contains_ns:.1} ns/lookup); median document {}",
        top.len(),
        top.select((top.len() / 2) as u32).unwrap_or(0)
    );
    // The results agree with a plain merge of the two lists (a self-check of the demo).
    let (a, b) = (bitmaps[1].to_vec(), bitmaps[2].to_vec());
    let merged = a.iter().filter(|v| b.binary_search(v).is_ok()).count() as u64;
    assert_eq!(merged, bitmaps[1].intersection_len(&bitmaps[2]));
    println!(
        "check: intersection of terms 1 and 2 = {merged}, same as a merge of the decoded lists"
    );
    Ok(())
}
