//! Running a Vela-compiled TFLite model on the C runtime over the emulated NPU, for the tests
//! of this folder: the emulated NPU reads the inputs where the blob says Vela put them and
//! writes each output byte `j` of output `k` as `(sum of the input bytes + 31·j + 7·k) mod 256`.

use std::path::{Path, PathBuf};

use arenaplan::RuntimeError;
use arenaplan_build::model::Program;
use arenaplan_build::{Build, BuildError, CallKind, EmitError, ModelPlan};
use arenaplan_host::{Arenas, Runner, Tables};

/// Runs `model` once, input byte `j` of input `i` being `7j + i`, byte 0 `seed`, and checks its outputs
/// against the emulated NPU's rule; its outputs, or why the runtime cannot run it (the model
/// needs CPU kernels, or keeps state).
pub fn run(
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
    let outputs = execute(&program, &plan, target, seed)
        .unwrap_or_else(|(e, at)| panic!("{}: {e} at instruction {at}", model.display()));
    for (k, out) in outputs.iter().enumerate() {
        assert!(!out.is_empty(), "{}: output {k} is empty", model.display());
    }
    Ok(outputs)
}

/// Runs a planned `program` once on the emulated NPU of `target` (inputs as [`run`] writes
/// them) and checks its outputs against the emulated NPU's rule; the outputs, or the runtime's
/// failure and the failing instruction.
pub fn execute(
    program: &Program,
    plan: &ModelPlan,
    target: &str,
    seed: u8,
) -> Result<Vec<Vec<u8>>, (RuntimeError, u32)> {
    let tables = Tables::new(program, plan).expect("32-bit tables");
    let arenas = Arenas::new(program, plan);
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
    runner.execute()?;
    let outputs: Vec<Vec<u8>> = (0..program.outputs.len())
        .map(|k| runner.output(k).unwrap().to_vec())
        .collect();
    for (k, out) in outputs.iter().enumerate() {
        for (j, &b) in out.iter().enumerate() {
            let want = sum.wrapping_add(31 * j as u32).wrapping_add(7 * k as u32) as u8;
            assert_eq!(b, want, "output {k} byte {j}");
        }
    }
    Ok(outputs)
}
