//! The mutation test of the verify stage. Built normally, every program here plans and
//! verifies. Built with a `mutant-*` feature, the pipeline carries one planted bug and the
//! verify stage, which works out lifetimes and NPU visibility on its own, must refuse some
//! plan (the mutant is killed); `.ci/run` runs it once per mutant:
//!
//! ```text
//! cargo test -p arenaplan-build --features mutant-lifetime-last --test mutants
//! cargo test -p arenaplan-build --features mutant-npu-visible --test mutants
//! ```

mod common;

use std::path::{Path, PathBuf};

use arenaplan_build::import::load_model;
use arenaplan_build::pipeline::Pipeline;
use arenaplan_build::targets::Catalogue;
use arenaplan_build::verify::verify;

/// The bug planted in this build, if any.
fn mutant() -> Option<&'static str> {
    if cfg!(feature = "mutant-lifetime-last") {
        Some("every lifetime one instruction short")
    } else if cfg!(feature = "mutant-npu-visible") {
        Some("the NPU's buffers not on whole cache lines")
    } else {
        None
    }
}

/// The committed real exports and fixtures, and the corpus's programs when it is here.
fn programs() -> Vec<PathBuf> {
    let testdata = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut files = common::files(&testdata.join("fixtures"), "pte");
    for dir in std::fs::read_dir(testdata.join("exported")).unwrap() {
        let program = dir.unwrap().path().join("program.pte");
        if program.is_file() {
            files.push(program);
        }
    }
    if let Some(corpus) = common::corpus() {
        files.extend(common::files(&corpus.join("pte"), "pte"));
        files.extend(common::files(&corpus.join("pte-delegated"), "pte"));
        files.extend(common::files(&corpus.join("tflite"), "tflite"));
    }
    files.sort();
    files
}

#[test]
fn the_verify_stage_kills_each_planted_mutant_and_passes_the_real_pipeline() {
    let catalogue = Catalogue::builtin();
    let (mut planned, mut refused) = (0, Vec::new());
    for path in programs() {
        let target = if path.to_string_lossy().contains("u85") {
            "corstone-320"
        } else {
            "corstone-300"
        };
        let target = catalogue.target(target).unwrap();
        let Ok(program) = load_model(&path) else {
            continue;
        };
        let Ok((program, plan)) = Pipeline::new(target).run(program) else {
            continue;
        };
        planned += 1;
        if let Err(e) = verify(&program, &plan, target) {
            refused.push(format!("{}: {e}", path.display()));
        }
    }
    assert!(planned >= 10, "only {planned} programs planned");
    match mutant() {
        None => assert!(
            refused.is_empty(),
            "the real pipeline's plans refused: {refused:#?}"
        ),
        Some(m) => {
            assert!(!refused.is_empty(), "mutant `{m}` survived {planned} plans");
            println!(
                "mutant `{m}` killed: {} of {planned} plans refused, e.g. {}",
                refused.len(),
                refused[0]
            );
        }
    }
}
