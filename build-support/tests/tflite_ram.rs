//! The RAM a TFLite model on CMSIS-NN takes, against TFLite Micro's arena for it.
//!
//! For every corpus TFLite model whose operators all have kernels, the plan's arena (kernel
//! scratch included) is measured for each instruction set CMSIS-NN has code for, on a board
//! with one SRAM pool and no data cache (TFLM's arena rounds to 16 bytes, as the planner does):
//! - it is printed beside TFLM's planned arena with its reference kernels (`tflm_arena_head` in
//!   the corpus's `reference.csv`, measured with the interpreter), the state apart (TFLM keeps
//!   variable tensors at its arena's other end, outside that figure);
//! - with any instruction set it is no more than TFLM's arena with its reference kernels (the
//!   convolutions whose CMSIS-NN scratch would grow the arena run without it, see
//!   `KernelVariants`), and no more than TFLM's own rule (greedy by size, in
//!   `arenaplan_planner::baseline::tflm_greedy`) places the same buffers in: what TFLM with the
//!   same kernels would ask its arena for;
//! - with every convolution's fast variant (`KernelVariants::Fastest`), Helium's arena is
//!   printed too: the RAM the speed costs.
//!
//! The table it prints is the README's ("RAM against TFLite Micro").

mod common;

use std::path::Path;

use arenaplan_build::diagnostic::SourceText;
use arenaplan_build::model::{Instruction, Isa};
use arenaplan_build::targets::Catalogue;
use arenaplan_build::KernelVariants;
use arenaplan_build::{Build, BuildError};
use arenaplan_planner::{baseline, Buffer, Problem};

use common::{corpus, files, reference};

const BOARD: &str = r#"schema_version = 1
[[target]]
name = "board"
cpu = "cortex-m55"
rust_target = "thumbv8m.main-none-eabihf"
default_pool = "sram"
[[target.pool]]
mem_id = 1
name = "sram"
capacity = "4 MiB"
section = ".arenaplan.sram"
region = "SRAM"
[target.specs]
cpu_scratch = "sram"
"#;

/// The arena of `model` with kernels for `isa`, what TFLM's greedy rule makes of the same
/// buffers, and the bytes of state among them (variable tensors, which TFLM keeps apart, in
/// its arena's persistent tail); `None` when an operator has no kernel.
fn arenas(model: &Path, isa: Isa, variants: KernelVariants) -> Option<(u64, u64, u64)> {
    let catalogue = Catalogue::parse(&SourceText::new("board.toml", BOARD)).unwrap();
    let rendered = match Build::new()
        .catalogue(catalogue)
        .target("board")
        .model(model)
        .kernel_isa(isa)
        .kernel_variants(variants)
        .sources(Vec::<std::path::PathBuf>::new())
        .try_render()
    {
        Ok(r) => r,
        // An operator without a kernel: nothing to measure.
        Err(BuildError::NoKernel(_)) => return None,
        Err(e) => panic!("{}: {e}", model.display()),
    };
    let runnable = rendered
        .program
        .flat_instructions()
        .iter()
        .all(|(_, i)| matches!(i, Instruction::Kernel(k) if k.op.starts_with("tflite:")));
    if !runnable {
        return None;
    }
    let [pool] = &rendered.plan.pools[..] else {
        panic!("{}: one pool expected", model.display());
    };
    let problem = Problem::new(
        rendered
            .plan
            .buffers
            .iter()
            .map(|b| Buffer::new(b.size, b.first as u64, b.last as u64 + 1))
            .collect(),
    )
    .with_alignment(16);
    let greedy = baseline::tflm_greedy(&problem)
        .iter()
        .zip(&problem.buffers)
        .map(|(offset, b)| offset + b.size)
        .max()
        .unwrap_or(0);
    let state = rendered
        .program
        .state
        .iter()
        .filter_map(|&v| rendered.plan.buffer(v))
        .map(|b| b.size.div_ceil(16) * 16)
        .sum();
    Some((pool.size, greedy, state))
}

#[test]
fn tflite_models_on_cmsis_nn_fit_in_tflms_arena() {
    let Some(corpus) = corpus() else {
        return;
    };
    let reference = reference(&corpus);
    let mut rows = Vec::new();
    for model in files(&corpus.join("tflite"), "tflite") {
        let stem = model.file_stem().unwrap().to_string_lossy().into_owned();
        let Some(tflm) = reference
            .iter()
            .find(|(m, _)| *m == stem)
            .map(|(_, r)| r["tflm_arena_head"])
        else {
            continue;
        };
        let mut figures = Vec::new();
        for isa in [Isa::Plain, Isa::Dsp, Isa::Mve] {
            let Some((arena, greedy, state)) = arenas(&model, isa, KernelVariants::FitArena) else {
                break;
            };
            assert!(
                arena <= greedy,
                "{stem} ({isa:?}): {arena} B, more than TFLM's rule's {greedy} B"
            );
            // TFLM's figure leaves out the state, which it keeps in its arena's other end.
            assert!(
                arena - state <= tflm,
                "{stem} ({isa:?}): {} B besides the state, more than TFLM's {tflm} B",
                arena - state
            );
            figures.push((arena, greedy, state));
        }
        let [plain, dsp, mve] = figures[..] else {
            continue;
        };
        let state = plain.2;
        let fastest = arenas(&model, Isa::Mve, KernelVariants::Fastest).map_or(0, |f| f.0);
        rows.push(format!(
            "| `{stem}` | {tflm} | {state} | {} | {} ({}) | {} ({}) | {} |",
            plain.0 - state,
            dsp.0 - state,
            dsp.1 - state,
            mve.0 - state,
            mve.1 - state,
            fastest - state
        ));
    }
    assert!(
        !rows.is_empty(),
        "no corpus TFLite model runs on the kernels"
    );
    eprintln!(
        "| model | TFLM | state | plain C (host) | DSP (Cortex-M33) | Helium (Cortex-M55) | Helium, fastest |"
    );
    eprintln!("|---|---:|---:|---:|---:|---:|---:|");
    for row in rows {
        eprintln!("{row}");
    }
}
