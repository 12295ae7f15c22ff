//! Every input a fuzz target once failed on, kept in `testdata/fuzz/<target>/`, run through the
//! same check again: the bug it found stays fixed.

use std::path::Path;

#[path = "support/codegen.rs"]
mod codegen;

/// Runs the codegen check over every file in `folder`; returns (files, models checked).
fn check_folder(folder: &Path) -> (usize, usize) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = codegen::work_dir("fuzz-regressions");
    let mut inputs: Vec<_> = std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    inputs.sort();
    let mut models = 0;
    for input in &inputs {
        let data = std::fs::read(input).unwrap();
        models += usize::from(codegen::check(
            &data,
            &dir,
            &root.join("../runtime-c/include"),
        ));
    }
    let _ = std::fs::remove_dir_all(dir);
    (inputs.len(), models)
}

#[test]
fn codegen_regressions_build() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (files, models) = check_folder(&root.join("testdata/fuzz/codegen"));
    assert!(
        files > 0 && models > 0,
        "the kept inputs still reach the code generator"
    );
    // A fuzzing corpus can be replayed the same way, to count what it exercised:
    // ARENAPLAN_CODEGEN_CORPUS=fuzz/corpus/codegen cargo test --test fuzz_regressions -- --nocapture
    if let Some(corpus) = std::env::var_os("ARENAPLAN_CODEGEN_CORPUS") {
        let (files, models) = check_folder(Path::new(&corpus));
        println!("{files} inputs, {models} accepted models whose code built");
    }
}
