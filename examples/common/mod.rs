//! What the examples share: reading a folder of CRoaring-style text files.

use std::path::Path;

/// The sets of a folder of CRoaring's benchmark text files (one bitmap per file,
/// comma-separated sorted `u32` values), in the order of the files' names. Panics with a
/// message on a missing folder or a malformed file: the examples are tools, run by hand.
pub fn read_sets(dir: &Path) -> Vec<Vec<u32>> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: not a readable folder ({e})", dir.display()))
        .map(|e| e.expect("a readable folder entry").path())
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| {
            std::fs::read_to_string(f)
                .unwrap_or_else(|e| panic!("{}: not readable ({e})", f.display()))
                .trim()
                .split(',')
                .map(|x| {
                    x.trim()
                        .parse()
                        .unwrap_or_else(|_| panic!("{}: {x:?} is not a u32", f.display()))
                })
                .collect()
        })
        .collect()
}
