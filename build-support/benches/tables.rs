//! `cargo bench -p arenaplan-build --bench tables`: what the runtime's tables cost per program
//! on a 32-bit Cortex-M (flash of const tables, RAM outside the arenas), for the corpus's
//! delegated ExecuTorch programs and the repository's fixtures, beside ExecuTorch's own runtime
//! (440–800 B of RAM per program for the same role: method, values, argument lists, delegate
//! handles). Counts, not timings: the same on every machine.

use std::path::{Path, PathBuf};

use arenaplan_build::report::table_sizes;
use arenaplan_build::Build;

/// The target a program's blobs were compiled for, from its file name.
fn target_of(file: &str) -> &'static str {
    if file.contains("u85") {
        "corstone-320"
    } else if file.contains("neutron") && file.contains("imxrt700") {
        "imxrt700"
    } else if file.contains("neutron") {
        "mcxn947"
    } else {
        "corstone-300"
    }
}

fn programs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [
        root.join("../../shared/corpus/pte-delegated"),
        root.join("testdata/fixtures"),
    ] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            eprintln!("skipping {}: not found", dir.display());
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "pte"))
            .collect();
        found.sort();
        files.extend(found);
    }
    files
}

fn main() {
    println!(
        "| program | target | calls | const tables (flash) | blobs (flash) | RAM outside arenas | of which handles | RAM vs ExecuTorch 440–800 B |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---|");
    for path in programs() {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let target = target_of(&file);
        let rendered = match Build::new()
            .model(&path)
            .target(target)
            .sources(Vec::<PathBuf>::new())
            .emit(arenaplan_build::Emit::NONE)
            .try_render()
        {
            Ok(r) => r,
            Err(e) => {
                println!(
                    "| {file} | {target} | refused: {} | | | | | |",
                    e.to_string().lines().next().unwrap_or("")
                );
                continue;
            }
        };
        let t = table_sizes(&rendered.program, &rendered.plan, &Default::default());
        println!(
            "| {file} | {target} | {} | {} B | {} B | {} B | {} B | {:.2}–{:.2}× |",
            rendered.plan.calls.len(),
            t.flash,
            t.blobs,
            t.ram,
            t.handles,
            t.ram as f64 / 800.0,
            t.ram as f64 / 440.0
        );
    }
}
