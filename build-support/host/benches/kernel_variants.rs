//! `cargo bench -p arenaplan-host --bench kernel_variants`: what the scratch-free kernel
//! variants cost in time and save in RAM. For the corpus's TFLite models with convolutions
//! (beside the repository), each planned for the host's plain-C CMSIS-NN two ways —
//! `KernelVariants::FitArena` (a convolution whose scratch would grow the arena runs without
//! it) and `KernelVariants::Fastest` (every scratch planned) — it prints the arena, the calls
//! with kernel scratch and the median time of an invocation over 15 (after 3 warm-up runs),
//! with the ratio. Host time, not a Cortex-M's: the direct convolution against plain C's im2col.
//! Needs `CMSIS_NN_PATH` at build time (the runtime's TFLite kernels).

use std::path::{Path, PathBuf};
use std::time::Instant;

use arenaplan_build::model::{Instruction, Isa};
use arenaplan_build::pipeline::KernelVariants;
use arenaplan_build::Build;
use arenaplan_host::{Arenas, Runner, Tables};

const MODELS: [&str; 5] = [
    "mlperftiny__pretrainedResnet_quant",
    "mlperftiny__pretrainedResnet_large_int8",
    "mlperftiny__kws_ref_model",
    "mlperftiny__str_ww_ref_model",
    "tflm__person_detect",
];

/// The arena, the calls with kernel scratch and the median invocation time in µs.
fn measure(model: &Path, variants: KernelVariants) -> (u64, usize, f64) {
    let rendered = Build::new()
        .model(model)
        .target("corstone-300")
        .kernel_isa(Isa::Plain)
        .kernel_variants(variants)
        .sources(Vec::<PathBuf>::new())
        .try_render()
        .unwrap_or_else(|e| panic!("{}: {e}", model.display()));
    let (program, plan) = (&rendered.program, &rendered.plan);
    let with_scratch = program
        .flat_instructions()
        .into_iter()
        .filter(|(_, i)| matches!(i, Instruction::Kernel(k) if !k.scratch.is_empty()))
        .count();
    let tables = Tables::new(program, plan).expect("32-bit tables");
    let arenas = Arenas::new(program, plan);
    let kernels = arenaplan_host::kernels();
    let backends = arenaplan_host::emulated_backends("corstone-300").unwrap();
    // SAFETY: the tables, arenas, backends and kernels outlive the runner, which alone uses
    // the arenas.
    let mut runner =
        unsafe { Runner::with_kernels(&tables, arenas.pools(), &backends, &kernels) }.unwrap();
    let mut times = Vec::new();
    for run in 0..18 {
        for i in 0..program.inputs.len() {
            let input = runner.input(i).unwrap();
            for (k, b) in input.iter_mut().enumerate() {
                *b = (k * 31 + run) as u8;
            }
        }
        let start = Instant::now();
        runner
            .execute()
            .map_err(|(e, at)| arenaplan_host::failure_text(&e, at))
            .unwrap();
        if run >= 3 {
            times.push(start.elapsed().as_secs_f64() * 1e6);
        }
    }
    times.sort_by(f64::total_cmp);
    let arena = plan.pools.iter().map(|p| p.size).sum();
    (arena, with_scratch, times[times.len() / 2])
}

fn main() {
    if arenaplan::tflite_kernels().next().is_none() {
        eprintln!("no TFLite kernels: build with CMSIS_NN_PATH set");
        return;
    }
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/tflite");
    println!("| model | arena, fit | arena, fastest | calls with scratch (fit / fastest) | µs, fit | µs, fastest | time ratio |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for stem in MODELS {
        let model = corpus.join(format!("{stem}.tflite"));
        if !model.is_file() {
            eprintln!("skipping {stem}: not found");
            continue;
        }
        let (fit_arena, fit_calls, fit_us) = measure(&model, KernelVariants::FitArena);
        let (fast_arena, fast_calls, fast_us) = measure(&model, KernelVariants::Fastest);
        println!(
            "| `{stem}` | {fit_arena} | {fast_arena} | {fit_calls} / {fast_calls} | {fit_us:.0} | {fast_us:.0} | {:.2} |",
            fit_us / fast_us
        );
    }
}
