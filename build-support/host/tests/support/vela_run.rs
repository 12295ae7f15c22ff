//! Running a Vela-compiled TFLite model on the C runtime over the emulated NPU and the CPU
//! kernels, for the tests of this folder (their outputs are compared with TFLM's in
//! `vela_tflm.rs`).

use std::path::{Path, PathBuf};

use arenaplan::RuntimeError;
use arenaplan_build::model::{Isa, Program};
use arenaplan_build::{Build, BuildError, CallKind, ModelPlan};
use arenaplan_host::{Arenas, Runner, Tables};

/// Runs `model` once, input byte `j` of input `i` being `7j + i`, byte 0 `seed`: its outputs, or
/// why the runtime cannot run it (an operator without a kernel, a command the NPU model
/// refuses).
pub fn run(model: &Path, target: &str, seed: u8, in_scratch: bool) -> Result<Vec<Vec<u8>>, String> {
    let rendered = match Build::new()
        .model(model)
        .target(target)
        .sources(Vec::<PathBuf>::new())
        // The CPU operators run on the host's CMSIS-NN: its scratch.
        .kernel_isa(Isa::Plain)
        .io_in_scratch(in_scratch)
        .try_render()
    {
        Ok(rendered) => rendered,
        // The build refuses a model with an operator no kernel implements, naming it.
        Err(e @ BuildError::NoKernel(_)) => return Err(e.to_string()),
        Err(e) => panic!("{}: {e}", model.display()),
    };
    let (program, plan) = (rendered.program, rendered.plan);
    if let Some(why) = arenaplan_host::why_not_runnable(&program) {
        return Err(why);
    }
    // With slots, a one-call model's input and output sit in the scratch (Vela's own plan):
    // the runs below read and write them there, with no copy.
    let at_slots = plan.buffers.iter().filter(|b| b.within.is_some()).count();
    if !plan.calls.iter().any(|c| c.kind == CallKind::Kernel) {
        assert_eq!(
            at_slots > 0,
            in_scratch,
            "{}: {at_slots} tensors at their slots",
            model.display()
        );
    }
    let outputs = match execute(&program, &plan, target, seed) {
        Ok(outputs) => outputs,
        Err((e, at)) if arenaplan::sim::ethos_u_fault().is_some() => {
            return Err(arenaplan_host::failure_text(&e, at))
        }
        Err((e, at)) => panic!("{}: {e} at instruction {at}", model.display()),
    };
    for (k, out) in outputs.iter().enumerate() {
        assert!(!out.is_empty(), "{}: output {k} is empty", model.display());
    }
    Ok(outputs)
}

/// Runs a planned `program` once on the emulated NPU of `target` (inputs as [`run`] writes
/// them): the outputs, or the runtime's failure and the failing instruction.
pub fn execute(
    program: &Program,
    plan: &ModelPlan,
    target: &str,
    seed: u8,
) -> Result<Vec<Vec<u8>>, (RuntimeError, u32)> {
    let tables = Tables::new(program, plan).expect("32-bit tables");
    let arenas = Arenas::new(program, plan);
    let backends = arenaplan_host::emulated_backends(target).unwrap();
    let kernels = arenaplan_host::kernels();
    // SAFETY: the tables, arenas, backends and kernels outlive the runner, which alone uses
    // the arenas.
    let mut runner =
        unsafe { Runner::with_kernels(&tables, arenas.pools(), &backends, &kernels) }.unwrap();
    for i in 0..program.inputs.len() {
        let input = runner.input(i).unwrap();
        for (j, b) in input.iter_mut().enumerate() {
            *b = if j == 0 {
                seed
            } else {
                (j as u8).wrapping_mul(7).wrapping_add(i as u8)
            };
        }
    }
    runner.execute()?;
    let outputs: Vec<Vec<u8>> = (0..program.outputs.len())
        .map(|k| runner.output(k).unwrap().to_vec())
        .collect();
    Ok(outputs)
}
