//! `cargo bench -p arenaplan-build --bench npu_arenas --features internals`: the RAM each
//! corpus Ethos-U model needs, beside the NPU compiler's own plan, and the goals of placing a
//! call's inputs and outputs inside its NPU scratch. Counts, not timings: the same on every
//! machine. Exits 1 when a goal is missed (CI runs it), so a regression fails the build:
//!
//! - every U55 Shared_Sram Vela `.tflite`: arenas at most Vela's offline arena (the
//!   `OfflineMemoryAllocation` plan TFLM applies) rounded up to the data-cache line, or, where
//!   arenaplan's own rules (every offset 16-byte aligned) put the lower bound above that, at
//!   the bound. The line is the price of cache maintenance that never touches a neighbour
//!   (Vela's figure ignores the cache), and no plan under those rules can be smaller than the
//!   bound;
//! - every single-call Ethos-U `.pte` for a Shared_Sram target: arenas at most the call's
//!   scratch, rounded up to the cache line (a Dedicated_Sram target adds the fast scratch it
//!   configures, and keeps ExecuTorch's tensors in their own pool);
//! - every model: arenas at most those with every tensor apart from the scratch (before).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use arenaplan_build::import::load_model;
use arenaplan_build::model::{Instruction, Program, ValueKind};
use arenaplan_build::pipeline::{ModelPlan, Pipeline};
use arenaplan_build::targets::Catalogue;

/// Cortex-M55 and M85 data-cache lines.
const LINE: u64 = 32;

fn models() -> Vec<(PathBuf, &'static str)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = root.join("../../shared/corpus");
    let mut found = Vec::new();
    let mut add = |dir: PathBuf, pick: &dyn Fn(&Path) -> Option<&'static str>| {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            // In CI the corpus is part of the contract: a goal not checked is a failure.
            assert!(
                std::env::var("CI").map_or(true, |v| v != "true"),
                "CI=true but {} is missing",
                dir.display()
            );
            eprintln!("skipping {}: not found", dir.display());
            return;
        };
        let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        for f in files {
            if let Some(target) = pick(&f) {
                found.push((f, target));
            }
        }
    };
    let ext = |p: &Path, e: &str| p.extension().is_some_and(|x| x == e);
    add(corpus.join("vela/u55-128-shared-sram"), &|p| {
        ext(p, "tflite").then_some("corstone-300")
    });
    add(corpus.join("vela/u85-256-dedicated-sram"), &|p| {
        ext(p, "tflite").then_some("corstone-320")
    });
    let pte_target = |p: &Path| {
        let name = p.to_string_lossy();
        match () {
            _ if !ext(p, "pte") || !name.contains("ethosu") => None,
            _ if name.contains("u85") => Some("corstone-320"),
            _ => Some("corstone-300"),
        }
    };
    add(corpus.join("pte-delegated"), &pte_target);
    add(root.join("testdata/fixtures"), &pte_target);
    let exported = root.join("testdata/exported");
    if let Ok(entries) = std::fs::read_dir(&exported) {
        let mut dirs: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        dirs.sort();
        for d in dirs {
            let name = d.to_string_lossy().into_owned();
            if name.contains("ethosu") {
                let target = if name.contains("u85") {
                    "corstone-320"
                } else {
                    "corstone-300"
                };
                found.push((d.join("program.pte"), target));
            }
        }
    }
    found
}

/// Bytes of every arena.
fn arenas(plan: &ModelPlan) -> u64 {
    plan.pools.iter().map(|p| p.size).sum()
}

/// The Ethos-U calls' scratch (region 1) sizes, from the planned program.
fn call_scratch(program: &Program) -> Vec<u64> {
    program
        .flat_instructions()
        .into_iter()
        .filter_map(|(_, i)| match i {
            Instruction::Delegate(d) => Some(d),
            _ => None,
        })
        .filter_map(|d| {
            d.scratch
                .iter()
                .find_map(|&s| match &program.values[s].kind {
                    ValueKind::Scratch { slot: 0, .. } => Some(program.values[s].bytes),
                    _ => None,
                })
        })
        .collect()
}

fn main() -> ExitCode {
    let catalogue = Catalogue::builtin();
    let mut missed = Vec::new();
    println!("| model | target | calls | before (I/O apart) | arenaplan | NPU compiler's figure | copies saved per inference |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    for (path, target_name) in models() {
        // Named from the repository's folder (`../shared/...` for the corpus).
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let name = match path.strip_prefix(root.join("../../shared")) {
            Ok(rest) => format!("shared/{}", rest.display()),
            Err(_) => match path.strip_prefix(root) {
                Ok(rest) => format!("build-support/{}", rest.display()),
                Err(_) => path.display().to_string(),
            },
        };
        let target = catalogue.target(target_name).expect("a built-in target");
        let program = match load_model(&path) {
            Ok(p) => p,
            Err(e) => {
                println!(
                    "| {name} | {target_name} | not imported: {} | | | | |",
                    first_line(&e.to_string())
                );
                continue;
            }
        };
        let before = Pipeline::new(target)
            .io_in_scratch(false)
            .run(program.clone());
        let now = Pipeline::new(target).run(program.clone());
        let (before, (planned, now)) = match (before, now) {
            (Ok((_, before)), Ok(now)) => (before, now),
            (before, now) => {
                println!("| {name} | {target_name} | not planned | | | | |");
                if before.is_ok() {
                    missed.push(format!(
                        "{name}: planned with I/O apart, not with slots: {:?}",
                        now.err().map(|e| e.to_string())
                    ));
                }
                continue;
            }
        };
        let scratch = call_scratch(&planned);
        let saved: u64 = now
            .buffers
            .iter()
            .filter(|b| b.within.is_some())
            .map(|b| b.size)
            .sum();
        let (a, b) = (arenas(&now), arenas(&before));
        let pte = path.extension().is_some_and(|e| e == "pte");
        let figure = if pte {
            let et = planned.source_arena().unwrap_or(0);
            let largest = scratch.iter().copied().max().unwrap_or(0);
            format!(
                "ExecuTorch {} (plan {et} + scratch {largest})",
                et + largest
            )
        } else {
            program
                .source_arena()
                .map_or("—".into(), |v| format!("Vela {v}"))
        };
        println!(
            "| {name} | {target_name} | {} | {b} | {a} | {figure} | {saved} B |",
            scratch.len()
        );
        if a > b {
            missed.push(format!("{name}: {a} bytes, {b} with I/O apart"));
        }
        let shared_sram =
            target.npu.as_ref().and_then(|n| n.memory_mode.as_deref()) == Some("Shared_Sram");
        if shared_sram && !pte {
            let bound: u64 = now.pools.iter().map(|p| p.lower_bound).sum();
            if let Some(v) = program.source_arena() {
                if a > (v.div_ceil(LINE) * LINE).max(bound) {
                    missed.push(format!(
                        "{name}: {a} bytes, Vela's offline arena {v}, the lower bound {bound}"
                    ));
                }
            }
        }
        if pte && shared_sram && scratch.len() == 1 && a > scratch[0].div_ceil(LINE) * LINE {
            missed.push(format!(
                "{name}: {a} bytes, its one call's scratch {}",
                scratch[0]
            ));
        }
    }
    if missed.is_empty() {
        println!("\nevery goal met");
        return ExitCode::SUCCESS;
    }
    println!("\ngoals missed:");
    for m in &missed {
        println!("- {m}");
    }
    ExitCode::FAILURE
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}
