//! The mutation test of the verify stage. Built normally, every program here plans and
//! verifies. Built with a mutant switched on, the pipeline carries one planted bug and the
//! verify stage, which works out lifetimes, NPU visibility, cache lines, I/O slots and the
//! instruction table on its own, must refuse some plan (the mutant is killed).
//!
//! A mutant is a compiler flag, not a feature, so that no build of the published crate can
//! carry one. `.ci/run` runs the test once per mutant, in a target folder of its own (a
//! change of `RUSTFLAGS` rebuilds everything it touches), naming the mutant twice: in the flag
//! that plants it and in `ARENAPLAN_MUTANT`, which the test checks against the build, so a
//! misspelt flag (a build without the bug, which would pass) fails instead of passing:
//!
//! ```text
//! ARENAPLAN_MUTANT=lifetime_last RUSTFLAGS='--cfg arenaplan_mutant="lifetime_last"' \
//!   CARGO_TARGET_DIR=target/mutants cargo test -p arenaplan-build --test mutants
//! ```

mod common;

use std::path::{Path, PathBuf};

use arenaplan_build::import::load_model;
use arenaplan_build::pipeline::Pipeline;
use arenaplan_build::targets::Catalogue;
use arenaplan_build::verify::verify;

/// Every planted bug: its switch (the value of `--cfg arenaplan_mutant`), whether this build
/// carries it, and what it does.
const MUTANTS: [(&str, bool, &str); 5] = [
    (
        "lifetime_last",
        cfg!(arenaplan_mutant = "lifetime_last"),
        "every lifetime one instruction short (pipeline/lifetimes.rs)",
    ),
    (
        "npu_visible",
        cfg!(arenaplan_mutant = "npu_visible"),
        "the NPU's buffers not on whole cache lines (pipeline/pools.rs)",
    ),
    (
        "steps",
        cfg!(arenaplan_mutant = "steps"),
        "each branch's false jump one step short (pipeline/steps.rs)",
    ),
    (
        "call_slots",
        cfg!(arenaplan_mutant = "call_slots"),
        "every I/O slot taken at its scratch's start (backends::call_slots)",
    ),
    (
        "owned_bytes",
        cfg!(arenaplan_mutant = "owned_bytes"),
        "an NPU buffer rounded to its pool's alignment, not to whole lines (Pool::owned_bytes)",
    ),
];

/// The bug planted in this build, if any, as (switch, what it does); panics unless it is the
/// one `ARENAPLAN_MUTANT` names (none when unset).
fn mutant() -> Option<(&'static str, &'static str)> {
    let built: Vec<(&str, &str)> = MUTANTS
        .iter()
        .filter(|(_, on, _)| *on)
        .map(|&(switch, _, what)| (switch, what))
        .collect();
    assert!(
        built.len() <= 1,
        "one mutant at a time, built with {built:?}"
    );
    let built = built.first().copied();
    let asked = std::env::var("ARENAPLAN_MUTANT").ok();
    assert_eq!(
        built.map(|(switch, _)| switch),
        asked.as_deref(),
        "ARENAPLAN_MUTANT names the mutant to plant, and the build must carry exactly that one: \
         build with RUSTFLAGS='--cfg arenaplan_mutant=\"NAME\"', NAME one of {:?}",
        MUTANTS.map(|(switch, _, _)| switch)
    );
    built
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

/// The target a program is planned for: its NPU's board.
fn target_of(path: &Path) -> &'static str {
    let name = path.to_string_lossy();
    if name.contains("u85") {
        "corstone-320"
    } else if name.contains("neutron") {
        "imxrt700"
    } else {
        "corstone-300"
    }
}

#[test]
fn the_verify_stage_kills_each_planted_mutant_and_passes_the_real_pipeline() {
    let mutant = mutant();
    let catalogue = Catalogue::builtin();
    let (mut planned, mut refused) = (0, Vec::new());
    for path in programs() {
        let target = catalogue.target(target_of(&path)).unwrap();
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
    match mutant {
        None => assert!(
            refused.is_empty(),
            "the real pipeline's plans refused: {refused:#?}"
        ),
        Some((switch, what)) => {
            assert!(
                !refused.is_empty(),
                "mutant `{switch}` ({what}) survived {planned} plans"
            );
            println!(
                "mutant `{switch}` ({what}) killed: {} of {planned} plans refused, e.g. {}",
                refused.len(),
                refused[0]
            );
        }
    }
}

/// The mutants are named in four places besides [`MUTANTS`]: `.ci/run`'s loop, which runs each,
/// and the `check-cfg` lists of this crate and of arenaplan-syntax (where `owned_bytes` is
/// planted), which declare the switch. A mutant missing from the loop would never be run.
#[test]
fn every_mutant_is_run_by_ci_and_declared_to_the_compiler() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let switches = MUTANTS.map(|(switch, _, _)| switch);
    let ci = std::fs::read_to_string(manifest.join("../.ci/run")).unwrap();
    let loop_line = ci
        .lines()
        .find_map(|l| l.strip_prefix("for mutant in "))
        .and_then(|l| l.strip_suffix("; do"))
        .expect(".ci/run has a `for mutant in …; do` loop");
    assert_eq!(
        loop_line.split_whitespace().collect::<Vec<_>>(),
        switches,
        "the mutants .ci/run runs"
    );
    for cargo_toml in ["Cargo.toml", "../macros/syntax/Cargo.toml"] {
        let text = std::fs::read_to_string(manifest.join(cargo_toml)).unwrap();
        let declared = text
            .lines()
            .find(|l| l.contains("cfg(arenaplan_mutant, values("))
            .unwrap_or_else(|| panic!("{cargo_toml} declares no arenaplan_mutant cfg"));
        let values: Vec<&str> = declared.split('"').skip(1).step_by(2).collect();
        assert_eq!(values, switches, "the mutants {cargo_toml} declares");
    }
}
