//! Running a Vela-compiled TFLite model on the C runtime over the emulated NPU and the CPU
//! kernels, for the tests of this folder: the emulated NPU reads the inputs where the blob says
//! Vela put them and writes each output byte `j` of output `k` as `(sum of the input bytes +
//! 31·j + 7·k) mod 256` (its inputs include the state a model keeps, such as an LSTM's).

use std::path::{Path, PathBuf};

use arenaplan::RuntimeError;
use arenaplan_build::model::{Instruction, Isa, Program};
use arenaplan_build::{Build, BuildError, CallKind, ModelPlan};
use arenaplan_host::{Arenas, Runner, Tables};

/// Runs `model` once, input byte `j` of input `i` being `7j + i`, byte 0 `seed`, and, where
/// nothing but the NPU computes its outputs, checks them against the emulated NPU's rule; its
/// outputs, or why the runtime cannot run it (an operator without a kernel).
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
    let kernels = arenaplan_host::kernels();
    // SAFETY: the tables, arenas, backends and kernels outlive the runner, which alone uses
    // the arenas.
    let mut runner =
        unsafe { Runner::with_kernels(&tables, arenas.pools(), &backends, &kernels) }.unwrap();
    // The rule holds where the NPU's call reads the program's inputs and state and writes its
    // outputs: a program of that one call. Its inputs' bytes are the program's inputs as
    // written here and the state's initial contents; output `k` of the rule is the program
    // output's place among the call's outputs (an LSTM's call writes its state too).
    let npu_call = match &program.body[..] {
        [Instruction::Delegate(call)] => Some(call),
        _ => None,
    };
    let mut written: Vec<Option<Vec<u8>>> = vec![None; program.values.len()];
    for &v in &program.state {
        written[v] = program.values[v].data.as_ref().map(|d| d.bytes().to_vec());
    }
    for i in 0..program.inputs.len() {
        let input = runner.input(i).unwrap();
        for (j, b) in input.iter_mut().enumerate() {
            *b = if j == 0 {
                seed
            } else {
                (j as u8).wrapping_mul(7).wrapping_add(i as u8)
            };
        }
        written[program.inputs[i]] = Some(input.to_vec());
    }
    runner.execute()?;
    let outputs: Vec<Vec<u8>> = (0..program.outputs.len())
        .map(|k| runner.output(k).unwrap().to_vec())
        .collect();
    // The rule is the placeholder's (the Ethos-U85 for now); the Ethos-U55 computes, and is
    // compared with TFLM in vela_tflm.rs.
    if let Some(call) = npu_call.filter(|_| arenaplan::sim::ethos_u_placeholder_jobs() > 0) {
        let sum = call
            .inputs
            .iter()
            .filter_map(|&v| written[v].as_ref())
            .flatten()
            .fold(0u32, |acc, &b| acc.wrapping_add(u32::from(b)));
        for (o, out) in outputs.iter().enumerate() {
            let k = call
                .outputs
                .iter()
                .position(|&v| v == program.outputs[o])
                .expect("the call writes every output") as u32;
            for (j, &b) in out.iter().enumerate() {
                let want = sum.wrapping_add(31 * j as u32).wrapping_add(7 * k) as u8;
                assert_eq!(b, want, "output {o} (the call's {k}) byte {j}");
            }
        }
    }
    Ok(outputs)
}
