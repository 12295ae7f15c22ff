//! Running a TFLite model on the runtime's CPU kernels against TFLite Micro's recorded
//! results (a folder as `scripts/make_tflm_reference.py` writes it: `K-inI.npy`,
//! `K-outO.npy`), shared by `tflm_kernels.rs` (whole models) and `tflite_kernels/` (one
//! operator each). The crate root declares `mod npy` (`build-support/tests/common/npy.rs`) and
//! has `skip` (`build-support/tests/common/skip.rs`).
#![allow(dead_code)] // each test binary uses its own subset

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use arenaplan_build::model::{Instruction, Isa};
use arenaplan_build::targets::{Catalogue, Target};
use arenaplan_build::KernelVariants;
use arenaplan_build::{Build, BuildError};
use arenaplan_host::{Arenas, Runner, Tables};

use crate::npy;

/// The emulated NPUs are the process's (C statics): one run at a time sets them up and uses
/// them, whichever test thread it is on.
static EMULATED_NPU: Mutex<()> = Mutex::new(());

/// Whether the runtime was built with its TFLite kernels (they need CMSIS-NN,
/// `CMSIS_NN_PATH`). CI builds them, so there their absence is a failure; elsewhere the
/// caller skips, and this says so.
pub fn have_tflite_kernels() -> bool {
    if arenaplan::tflite_kernels().next().is_some() {
        return true;
    }
    crate::skip("the runtime was built without its TFLite kernels (its feature `tflite-kernels`, sources at CMSIS_NN_PATH)");
    false
}

/// Runs `model` on TFLM's recorded inputs in `reference`, invocation after invocation over
/// the same arenas, and compares every output with TFLM's (a difference panics, naming
/// `name`); whether the model's state made a difference to the last invocation (see below),
/// or `Err` with why the host cannot run it yet (operators without kernels).
pub fn matches_tflm(
    name: &str,
    model: &Path,
    reference: &Path,
    variants: KernelVariants,
) -> Result<Ran, String> {
    matches_tflm_on(
        name,
        model,
        reference,
        variants,
        &Catalogue::builtin(),
        "corstone-300",
        true,
    )
}

/// [`matches_tflm`] planned for `target` of `catalogue` (whose emulated NPU runs the model's
/// NPU calls), with a delegate call's inputs and outputs at their slots in its scratch or not
/// (`io_in_scratch`).
pub fn matches_tflm_on(
    name: &str,
    model: &Path,
    reference: &Path,
    variants: KernelVariants,
    catalogue: &Catalogue,
    target: &str,
    io_in_scratch: bool,
) -> Result<Ran, String> {
    let rendered = match Build::new()
        .catalogue(catalogue.clone())
        .model(model)
        .target(target)
        .io_in_scratch(io_in_scratch)
        // The host's CMSIS-NN is its plain-C build: plan its scratch, not Helium's.
        .kernel_isa(Isa::Plain)
        .kernel_variants(variants)
        .sources(Vec::<PathBuf>::new())
        .try_render()
    {
        Ok(r) => r,
        // An operator without a kernel, which the build refuses naming it: not yet.
        Err(e @ BuildError::NoKernel(_)) => return Err(format!("not yet: {e}")),
        Err(e) => panic!("{name}: {e}"),
    };
    let (program, plan) = (&rendered.program, &rendered.plan);
    if let Some(why) = arenaplan_host::why_not_runnable(program) {
        return Err(format!("not yet: {why}"));
    }
    let target = catalogue.target(target).unwrap();
    compare(name, program, plan, reference, target)
}

/// Runs a planned `program` on TFLM's recorded inputs in `reference`, invocation after
/// invocation, on `target`'s emulated NPUs: what the run showed, or the first output that
/// differs from TFLM's (named after `name`).
pub fn compare(
    name: &str,
    program: &arenaplan_build::model::Program,
    plan: &arenaplan_build::ModelPlan,
    reference: &Path,
    target: &Target,
) -> Result<Ran, String> {
    let folder = reference;
    let invocations = npy::invocations(folder);
    assert!(
        invocations > 0,
        "{name}: no reference in {}",
        folder.display()
    );
    let tables = Tables::new(program, plan).expect("32-bit tables");
    let mut arenas = Arenas::new(program, plan);
    let kernels = arenaplan_host::kernels();
    let _npu = EMULATED_NPU
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let backends = arenaplan_host::emulated_backends_for(target).unwrap();
    // SAFETY: the tables, arenas, backends and kernels outlive the runner, which alone uses
    // the arenas.
    let mut runner =
        unsafe { Runner::with_kernels(&tables, arenas.pools(), &backends, &kernels) }.unwrap();
    for k in 0..invocations {
        // Between invocations only the state is the program's: the rest of the arenas is
        // anything (a board's other code shares them), so nothing else may carry over.
        if k > 0 {
            arenas.forget_all_but_state(program, plan, 0x3C ^ k as u8);
        }
        let got = match invoke(
            &mut runner,
            folder,
            k,
            program.inputs.len(),
            program.outputs.len(),
        ) {
            Ok(got) => got,
            // The NPU model refusing a command it cannot execute: the caller decides.
            Err(why) if arenaplan::sim::ethos_u_fault().is_some() => {
                return Err(format!("refused: {name}: {why}"))
            }
            Err(why) => panic!("{name}: {why}"),
        };
        for (o, got) in got.iter().enumerate() {
            let (_, want) = npy::read(&folder.join(format!("{k}-out{o}.npy")));
            if got != &want {
                let differ = got.iter().zip(&want).filter(|(a, b)| a != b).count();
                return Err(format!(
                    "{name}: invocation {k}, output {o} differs from TFLM's in {differ} of {} bytes",
                    want.len()
                ));
            }
        }
    }
    // With state, the last invocation from fresh arenas (the state as at the start): whether
    // its outputs then differ from TFLM's, i.e. whether the state carried over mattered.
    let state_mattered = !program.state.is_empty() && {
        let arenas = Arenas::new(program, plan);
        // SAFETY: as above.
        let mut fresh =
            unsafe { Runner::with_kernels(&tables, arenas.pools(), &backends, &kernels) }.unwrap();
        let k = invocations - 1;
        let got = invoke(
            &mut fresh,
            folder,
            k,
            program.inputs.len(),
            program.outputs.len(),
        )
        .unwrap_or_else(|why| panic!("{name}: {why}"));
        got.iter()
            .enumerate()
            .any(|(o, got)| npy::read(&folder.join(format!("{k}-out{o}.npy"))).1 != *got)
    };
    let calls: Vec<_> = program
        .flat_instructions()
        .into_iter()
        .filter_map(|(_, i)| match i {
            Instruction::Kernel(k) => Some(k),
            _ => None,
        })
        .collect();
    Ok(Ran {
        state_mattered,
        with_scratch: calls.iter().filter(|k| !k.scratch.is_empty()).count(),
        kernels: calls.iter().map(|k| k.op.clone()).collect(),
    })
}

/// What a run showed: whether the state mattered, how many kernel calls had scratch, and
/// which kernels ran, in order.
pub struct Ran {
    pub state_mattered: bool,
    pub with_scratch: usize,
    pub kernels: Vec<String>,
}

/// Runs TFLM's invocation `k` (its recorded inputs) on `runner`; its outputs.
fn invoke(
    runner: &mut Runner,
    folder: &Path,
    k: usize,
    inputs: usize,
    outputs: usize,
) -> Result<Vec<Vec<u8>>, String> {
    for i in 0..inputs {
        let (_, data) = npy::read(&folder.join(format!("{k}-in{i}.npy")));
        runner.input(i).unwrap().copy_from_slice(&data);
    }
    runner
        .execute()
        .map_err(|(e, at)| arenaplan_host::failure_text(&e, at))?;
    Ok((0..outputs)
        .map(|o| runner.output(o).unwrap().to_vec())
        .collect())
}
