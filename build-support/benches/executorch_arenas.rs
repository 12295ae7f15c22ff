//! `cargo bench -p arenaplan-build --bench executorch_arenas --features internals`: the arena of
//! every ExecuTorch program the real exporter made (`testdata/exported/`, CPU programs), beside
//! ExecuTorch's own memory plan in the same program. Counts, not timings: the same on every
//! machine. Exits 1 when a goal is missed (CI runs it):
//!
//! - no program needs more arena than ExecuTorch's plan (its planned buffers, each the largest
//!   any method asks for: ExecuTorch runs one method at a time over them), but where that plan
//!   is unsound and the row says why ([`ABOVE_FOR_A_REASON`]);
//! - every program the importer takes is planned.
//!
//! The NPU programs are `npu_arenas`'s: their arenas hold the NPU scratch, which ExecuTorch
//! takes from its temp allocator on top of its plan.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use arenaplan_build::import::load_model;
use arenaplan_build::pipeline::Pipeline;
use arenaplan_build::targets::Catalogue;

/// Programs whose arena may exceed ExecuTorch's plan, and why.
const ABOVE_FOR_A_REASON: &[(&str, &str)] = &[(
    "state_unshared_three_methods",
    "ExecuTorch's plan lays each method's own copy of the state where the other methods' \
     tensors go, so a run of one method overwrites another's state (its runtime's outputs \
     show it); arenaplan keeps each copy",
)];

fn programs() -> Vec<(String, PathBuf)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/exported");
    let mut found: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .expect("the committed exported programs")
        .filter_map(|e| e.ok())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .filter(|(name, path)| !name.starts_with("ethosu") && path.join("program.pte").is_file())
        .map(|(name, path)| (name, path.join("program.pte")))
        .collect();
    found.sort();
    found
}

fn main() -> ExitCode {
    let catalogue = Catalogue::builtin();
    let target = catalogue.target("corstone-300").expect("a built-in target");
    let mut missed = Vec::new();
    let (mut planned, mut total_ours, mut total_theirs) = (0, 0u64, 0u64);
    println!("| program | methods | ExecuTorch's plan | arenaplan | ratio | note |");
    println!("|---|---:|---:|---:|---:|---|");
    for (name, path) in programs() {
        let program = match load_model(&path) {
            Ok(p) => p,
            Err(e) => {
                let e = e.to_string();
                println!("| {name} | | | | | not imported: {} |", first_line(&e));
                continue;
            }
        };
        let methods = program.methods.len().max(1);
        let theirs = program.source_arena();
        let plan = match Pipeline::new(target).plan(program) {
            Ok(plan) => plan,
            Err(e) => {
                let e = e.to_string();
                println!(
                    "| {name} | {methods} | | | | not planned: {} |",
                    first_line(&e)
                );
                missed.push(format!("{name}: not planned: {e}"));
                continue;
            }
        };
        planned += 1;
        let ours: u64 = plan.pools.iter().map(|p| p.size).sum();
        let Some(theirs) = theirs else {
            println!("| {name} | {methods} | (none) | {ours} | | |");
            continue;
        };
        total_ours += ours;
        total_theirs += theirs;
        let reason = ABOVE_FOR_A_REASON
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, why)| *why);
        let note = match (ours > theirs, reason) {
            (true, Some(why)) => format!("above: {why}"),
            (true, None) => {
                missed.push(format!("{name}: {ours} B against ExecuTorch's {theirs} B"));
                "**above ExecuTorch's plan**".to_owned()
            }
            (false, _) => String::new(),
        };
        println!(
            "| {name} | {methods} | {theirs} | {ours} | {:.3} | {note} |",
            ours as f64 / theirs.max(1) as f64
        );
    }
    println!(
        "\n{planned} programs planned; in all {total_ours} B against ExecuTorch's {total_theirs} B."
    );
    if missed.is_empty() {
        ExitCode::SUCCESS
    } else {
        eprintln!("goals missed:");
        for m in &missed {
            eprintln!("  {m}");
        }
        ExitCode::FAILURE
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}
