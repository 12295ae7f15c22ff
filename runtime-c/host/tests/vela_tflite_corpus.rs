//! Every Vela-compiled TFLite model of `../shared/corpus/vela` on the C runtime: imported (the
//! `ethos-u` operator becomes a bin stream built from its constants and Vela's offsets), planned
//! for its Corstone target and run through the Ethos-U backend and the driver (Arm's, when
//! `ETHOS_U_CORE_DRIVER_PATH` is set) on the emulated NPU. The emulated NPU reads the inputs
//! where the blob says Vela put them and writes each output byte `j` of output `k` as
//! `(sum of the input bytes + 31·j + 7·k) mod 256`, so an output that is right means the inputs
//! were copied to, and the outputs read from, the places the NPU used. (That those places are
//! where Vela's command stream reads and writes is checked in arenaplan-build's corpus tests.)

#[path = "../../../build-support/tests/common/corpus.rs"]
mod corpus;

use std::path::{Path, PathBuf};

use arenaplan_build::{Build, BuildError, CallKind, EmitError};
use arenaplan_host::{Arenas, Runner, Tables};

/// Runs `model` once, input byte `j` of input `i` being `7j + i`, byte 0 `seed`, and checks its outputs
/// against the emulated NPU's rule; its outputs, or why the runtime cannot run it (the model
/// needs CPU kernels, or keeps state).
fn run(
    model: &Path,
    target: &str,
    seed: u8,
    in_scratch: bool,
) -> Result<Vec<Vec<u8>>, &'static str> {
    let rendered = match Build::new()
        .model(model)
        .target(target)
        .sources(Vec::<PathBuf>::new())
        .io_in_scratch(in_scratch)
        .try_render()
    {
        Ok(rendered) => rendered,
        // The build refuses to generate tables that would pass a call no memory.
        Err(BuildError::Emit(EmitError::UnplacedArgument { .. })) => {
            return Err("state (variable tensors)")
        }
        Err(e) => panic!("{}: {e}", model.display()),
    };
    let (program, plan) = (rendered.program, rendered.plan);
    if plan.calls.iter().any(|c| c.kind == CallKind::Kernel) {
        return Err("CPU kernels");
    }
    // With slots, a one-call model's input and output sit in the scratch (Vela's own plan):
    // the runs below read and write them there, with no copy.
    let at_slots = plan.buffers.iter().filter(|b| b.within.is_some()).count();
    assert_eq!(
        at_slots > 0,
        in_scratch,
        "{}: {at_slots} tensors at their slots",
        model.display()
    );
    let tables = Tables::new(&program, &plan).expect("32-bit tables");
    let arenas = Arenas::new(&program, &plan);
    let backends = arenaplan_host::emulated_backends(target).unwrap();
    // SAFETY: the tables, arenas and backends outlive the runner, which alone uses the arenas.
    let mut runner = unsafe { Runner::new(&tables, arenas.pools(), &backends) }.unwrap();
    let mut sum = 0u32;
    for i in 0..program.inputs.len() {
        for (j, b) in runner.input(i).unwrap().iter_mut().enumerate() {
            *b = if j == 0 {
                seed
            } else {
                (j as u8).wrapping_mul(7).wrapping_add(i as u8)
            };
            sum = sum.wrapping_add(u32::from(*b));
        }
    }
    runner
        .execute()
        .unwrap_or_else(|(e, at)| panic!("{}: {e} at instruction {at}", model.display()));
    let outputs: Vec<Vec<u8>> = (0..program.outputs.len())
        .map(|k| runner.output(k).unwrap().to_vec())
        .collect();
    for (k, out) in outputs.iter().enumerate() {
        assert!(!out.is_empty(), "{}: output {k} is empty", model.display());
        for (j, &b) in out.iter().enumerate() {
            let want = sum.wrapping_add(31 * j as u32).wrapping_add(7 * k as u32) as u8;
            assert_eq!(b, want, "{}: output {k} byte {j}", model.display());
        }
    }
    Ok(outputs)
}

#[test]
fn every_vela_model_runs_or_is_refused_for_a_listed_reason() {
    let Some(corpus) = corpus::corpus() else {
        return;
    };
    // The emulated NPU and its driver are one per process: one test runs them all in turn.
    for (config, target) in [
        ("u55-128-shared-sram", "corstone-300"),
        ("u85-256-dedicated-sram", "corstone-320"),
    ] {
        let mut ran = Vec::new();
        let mut refused = Vec::new();
        for model in corpus::files(&corpus.join("vela").join(config), "tflite") {
            let name = model.file_stem().unwrap().to_string_lossy().into_owned();
            match run(&model, target, 3, true) {
                Ok(first) => {
                    // Deterministic: the same inputs give the same outputs; others differ.
                    assert_eq!(run(&model, target, 3, true).unwrap(), first, "{name}");
                    assert_ne!(run(&model, target, 5, true).unwrap(), first, "{name}");
                    // The same as with every tensor apart, copied in and out.
                    assert_eq!(run(&model, target, 3, false).unwrap(), first, "{name}");
                    ran.push(name);
                }
                Err(why) => refused.push(format!("{name}: {why}")),
            }
        }
        eprintln!("{config}: ran {}, refused {refused:?}", ran.len());
        // The corpus's 13 models per configuration: the 8 with nothing but an Ethos-U call and
        // no state run; the LSTMs keep state, the others need CPU kernels (and keep state).
        assert!(
            ran.len() >= 8,
            "{config}: only {ran:?} ran; refused {refused:?}"
        );
        assert!(
            refused.iter().all(|r| r.contains("audio_preprocessor")
                || r.contains("keyword_scrambled")
                || r.contains("lstm")),
            "{config}: unexpected refusals {refused:?}"
        );
    }
}
