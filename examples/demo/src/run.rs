//! Running a planned program on the C runtime through the `arenaplan` bindings.

use arenaplan_build::model::Program;
use arenaplan_build::{ExitStatus, ModelPlan};
use arenaplan_host::{Arenas, Runner};

/// Runs `program` as planned; a line saying what happened, or why it could not run with the
/// exit status that says so (it cannot run here, or a call failed).
pub fn run(program: &Program, plan: &ModelPlan) -> Result<String, (ExitStatus, String)> {
    let cannot = |why: String| (ExitStatus::CannotRunHere, why);
    let failed = |e: arenaplan::RuntimeError| (ExitStatus::CallFailed, e.to_string());
    if program.delegates.iter().any(|d| d.blob.is_none()) {
        return Err(cannot("a delegate carries no compiled blob (a Vela operator in a TFLite model without Vela's OfflineMemoryAllocation metadata: where its feature maps sit in the scratch is not known)".into()));
    }
    if let Some(why) = arenaplan_host::why_not_runnable(program) {
        return Err(cannot(why));
    }
    // One table per method (a program with several runs them in turn, over the same arenas).
    let tables = arenaplan_host::method_tables(program, plan).ok_or_else(|| {
        cannot(
            "the tables do not fit the runtime (a branch of more than two arms, or sizes beyond 32 bits)"
                .into(),
        )
    })?;
    let arenas = Arenas::new(program, plan);
    let pools = arenas.pools();
    let backends = arenaplan_host::emulated_backends(&plan.target).map_err(cannot)?;
    let kernels = arenaplan_host::ProgramKernels::for_program(program).map_err(cannot)?;
    let kernels = kernels.entries();
    let mut lines = Vec::new();
    for (name, t) in &tables {
        // SAFETY: the tables, arenas, backends and kernels outlive the runner, which alone uses the
        // arenas while it runs (the methods run one after another).
        let mut runner =
            unsafe { Runner::with_kernels(t, pools, &backends, kernels) }.map_err(failed)?;
        let (ninputs, noutputs) = t.io_counts();
        for i in 0..ninputs {
            for (j, byte) in runner.input(i).map_err(failed)?.iter_mut().enumerate() {
                *byte = (j % 251) as u8;
            }
        }
        let placeholders = arenaplan::sim::neutron_calls();
        runner
            .execute()
            .map_err(|(e, at)| (ExitStatus::CallFailed, arenaplan_host::failure_text(&e, at)))?;
        let placeholder = arenaplan::sim::neutron_calls() > placeholders;
        let out: &[u8] = if noutputs == 0 {
            &[]
        } else {
            runner.output(0).map_err(failed)?
        };
        let method = if name.is_empty() {
            String::new()
        } else {
            format!("method `{name}`: ")
        };
        lines.push(format!(
            "{method}{} instruction(s) ran, delegate calls on their planned scratch; output 0: {} bytes, starting {:02x?}{}",
            t.call_count(),
            out.len(),
            &out[..out.len().min(8)],
            if placeholder {
                " (PLACEHOLDER bytes: an emulated NPU without a functional model made them)"
            } else {
                ""
            }
        ));
    }
    Ok(lines.join("\n  "))
}
