//! The corpus under `../shared/corpus/` (shared with the planner crate's tests).
#![allow(dead_code)] // each test binary uses its own subset
use std::path::{Path, PathBuf};

#[path = "skip.rs"]
mod skip;
pub use skip::skip;

/// The corpus directory, or `None` (with a note) outside CI when it is absent. Under
/// `CI=true` its absence fails the test: the corpus is part of the contract there.
pub fn corpus() -> Option<PathBuf> {
    // `shared/` sits beside the repository; this file serves crates at different depths.
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    if let Some(dir) = manifest
        .ancestors()
        .map(|a| a.join("shared/corpus"))
        .find(|d| d.is_dir())
    {
        return Some(dir);
    }
    let dir = manifest.join("../../shared/corpus");
    skip(&format!(
        "no corpus at {} (../shared/corpus beside the repository)",
        dir.display()
    ));
    None
}

/// Files in `dir` with extension `ext`, sorted.
pub fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    files
}

/// `reference.csv` as rows of (model, column → value).
pub fn reference(corpus: &Path) -> Vec<(String, std::collections::HashMap<String, u64>)> {
    let text = std::fs::read_to_string(corpus.join("reference.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let values = header[1..]
                .iter()
                .zip(&f[1..])
                .map(|(h, v)| (h.to_string(), v.parse().unwrap()))
                .collect();
            (f[0].to_owned(), values)
        })
        .collect()
}
