//! Writes the fuzz targets' seed corpora into `fuzz/corpus/<target>/`: the golden files,
//! the interchange and crash files of `../shared/testdata/croaring`, the bitmaps of the
//! deletion vectors in `../shared/dv`, and small bitmaps of each real-data set in every
//! format. Shared data that is absent is skipped with a notice.
//!
//! ```text
//! cargo run --example fuzz_seeds            # then commit fuzz/corpus
//! ```

use std::fs;
use std::path::{Path, PathBuf};

use frozen_roaring::{FrozenBitmap, Writer};

/// Seeds larger than this are left out: the campaign's input limit (`-max_len`, see
/// `fuzz/README.md`) is 4 KiB, and small seeds mutate and run faster.
const MAX_SEED: usize = 4 << 10;

fn main() -> std::io::Result<()> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let shared = std::env::var_os("FROZEN_ROARING_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared"));
    let corpus = root.join("fuzz/corpus");
    let mut seeds = Seeds::default();
    // Golden bitmaps and files.
    for e in fs::read_dir(root.join("format-spec/golden"))? {
        let p = e?.path();
        let bytes = fs::read(&p)?;
        seeds.add("decode", &bytes);
        if p.extension().is_some_and(|x| x == "frb") {
            let bm = FrozenBitmap::from_bytes(&bytes).expect("golden files open");
            let mut portable = Vec::new();
            Writer::new().write_portable(&bm, &mut portable).unwrap();
            seeds.add("decode_portable", &portable);
        }
    }
    // Interchange and crash files written by other implementations.
    match fs::read_dir(shared.join("testdata/croaring")) {
        Ok(dir) => {
            for e in dir {
                let p = e?.path();
                if p.extension().is_some_and(|x| x == "bin") {
                    let bytes = fs::read(&p)?;
                    let name = p.file_name().unwrap().to_string_lossy();
                    let target = if name.starts_with("64") {
                        "decode64"
                    } else {
                        "decode_portable"
                    };
                    seeds.add(target, &bytes);
                    seeds.add("decode", &bytes);
                }
            }
        }
        Err(_) => eprintln!(
            "NOTE: {} absent: no interchange seeds",
            shared.join("testdata").display()
        ),
    }
    // The 64-bit bitmaps inside deletion vectors: frames of u32 BE length, magic, bitmap,
    // u32 BE CRC, back to back after a version byte in Delta files.
    let mut dvs = Vec::new();
    find(&shared.join("dv"), &mut dvs);
    if dvs.is_empty() {
        eprintln!(
            "NOTE: {} absent: no deletion-vector seeds",
            shared.join("dv").display()
        );
    }
    for p in dvs
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "bin"))
    {
        let bytes = fs::read(p)?;
        for start in [0usize, 1] {
            let mut at = start;
            while let Some(len) = bytes.get(at..at + 4) {
                let len = u32::from_be_bytes(len.try_into().unwrap()) as usize;
                let Some(frame) = bytes.get(at + 8..at + 4 + len) else {
                    break;
                };
                if bytes.get(at + 4..at + 8) != Some(&[0xD1, 0xD3, 0x39, 0x64][..]) {
                    break;
                }
                seeds.add("decode64", frame);
                // The dv target reads its first byte as a mode: 0 is a whole frame, 1 the
                // bitmap after the magic (framed by the target), 3 a Puffin file.
                if let Some(whole) = bytes.get(at..at + 4 + len + 4) {
                    seeds.add("dv", &[&[0u8][..], whole].concat());
                }
                seeds.add("dv", &[&[1u8][..], frame].concat());
                at += 4 + len + 4;
            }
        }
    }
    for p in dvs.iter().filter(|p| {
        p.extension().is_some_and(|x| x == "puffin") || p.to_string_lossy().contains("puffin/v1")
    }) {
        seeds.add("dv", &[&[3u8][..], &fs::read(p)?].concat());
    }
    // Constructed deletion vectors with what the real ones lack: bitsets, positions above
    // 2^32, Delta's native layout, Puffin files with several blobs.
    {
        let mut w = Writer::new();
        let shapes: [Vec<u64>; 3] = [
            (0..5000u64).map(|i| i * 5).collect(),
            (70_000..90_000u64)
                .chain([1 << 32, (3 << 32) + 9])
                .collect(),
            vec![0, 1, 2, 3, 65_535, 65_536],
        ];
        let mut puffin = frozen_roaring::PuffinWriter::new();
        for s in &shapes {
            let mut f = Vec::new();
            w.write_deletion_vector(s.iter().copied(), &mut f).unwrap();
            seeds.add("dv", &[&[0u8][..], &f].concat());
            seeds.add("dv", &[&[1u8][..], &f[8..f.len() - 4]].concat());
            puffin
                .add_deletion_vector(s.iter().copied(), "data/f.parquet")
                .unwrap();
        }
        seeds.add("dv", &[&[3u8][..], &puffin.finish()].concat());
        // Native: a count, then (length, 32-bit portable bitmap) per bucket.
        let mut native = vec![2u8];
        native.extend_from_slice(&2u32.to_le_bytes());
        for values in [&[1u32, 5, 9][..], &[0, 65_536]] {
            let mut b = Vec::new();
            w.write_portable_sorted(values.iter().copied(), &mut b)
                .unwrap();
            native.extend_from_slice(&(b.len() as u32).to_le_bytes());
            native.extend_from_slice(&b);
        }
        seeds.add("dv", &native);
    }
    // Small real-data bitmaps in every format, and pairs of them for the algebra target.
    match fs::read_dir(shared.join("realdata")) {
        Ok(dir) => {
            let mut sets: Vec<PathBuf> = dir.filter_map(|e| e.ok().map(|e| e.path())).collect();
            sets.sort();
            for set in sets {
                let mut files: Vec<PathBuf> = match fs::read_dir(&set) {
                    Ok(d) => d.filter_map(|e| e.ok().map(|e| e.path())).collect(),
                    Err(_) => continue,
                };
                files.sort();
                let mut taken = 0;
                for f in files {
                    let text = fs::read_to_string(&f)?;
                    let values: Vec<u32> = text
                        .split([',', '\n', ' '])
                        .filter_map(|t| t.trim().parse().ok())
                        .collect();
                    if values.len() > 600 || !values.is_sorted_by(|a, b| a < b) {
                        continue;
                    }
                    let mut w = Writer::new();
                    let (mut frozen, mut portable, mut wide) = (Vec::new(), Vec::new(), Vec::new());
                    w.write_sorted(values.iter().copied(), &mut frozen).unwrap();
                    w.write_portable_sorted(values.iter().copied(), &mut portable)
                        .unwrap();
                    let shifted = values
                        .iter()
                        .map(|&v| u64::from(v) | (u64::from(v & 7) << 33));
                    let mut shifted: Vec<u64> = shifted.collect();
                    shifted.sort_unstable();
                    w.write_portable_sorted64(shifted.iter().copied(), &mut wide)
                        .unwrap();
                    seeds.add("decode", &frozen);
                    seeds.add("decode_portable", &portable);
                    seeds.add("decode64", &wide);
                    // The algebra target reads 5-byte commands: one value each.
                    let commands: Vec<u8> = values
                        .iter()
                        .take(400)
                        .flat_map(|&v| {
                            let mut c = vec![0u8];
                            c.extend_from_slice(&v.to_le_bytes());
                            c
                        })
                        .collect();
                    seeds.add("algebra", &commands);
                    taken += 1;
                    if taken == 8 {
                        break;
                    }
                }
            }
        }
        Err(_) => eprintln!(
            "NOTE: {} absent: no real-data seeds",
            shared.join("realdata").display()
        ),
    }
    seeds.write(&corpus)
}

/// Every file under `dir`.
fn find(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            find(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Seeds by target, named by content so that rerunning adds nothing twice.
#[derive(Default)]
struct Seeds(Vec<(&'static str, Vec<u8>)>);

impl Seeds {
    fn add(&mut self, target: &'static str, bytes: &[u8]) {
        if bytes.len() < MAX_SEED {
            // The decode64 target reads its first byte as a mode: 2 is "the rest as is".
            let mut seed = if target == "decode64" {
                vec![2]
            } else {
                Vec::new()
            };
            seed.extend_from_slice(bytes);
            self.0.push((target, seed));
        }
    }

    fn write(&self, corpus: &Path) -> std::io::Result<()> {
        for (target, bytes) in &self.0 {
            let dir = corpus.join(target);
            fs::create_dir_all(&dir)?;
            // FNV-1a of the bytes names the file.
            let name = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            });
            fs::write(dir.join(format!("seed-{name:016x}")), bytes)?;
        }
        let mut counts = std::collections::BTreeMap::new();
        for (t, _) in &self.0 {
            *counts.entry(*t).or_insert(0) += 1;
        }
        println!("seeds written to {}: {counts:?}", corpus.display());
        Ok(())
    }
}
