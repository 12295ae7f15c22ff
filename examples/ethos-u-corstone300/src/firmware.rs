//! The firmware's work, the same on the host and on the board: run the planned model on the
//! arenaplan runtime and check the result.

use core::fmt::Write;

use crate::arenaplan_plan as plan;

/// What the driver simulator makes of the inputs (see runtime-c's README).
fn simulated(sum: u32, j: u32) -> u8 {
    sum.wrapping_add(31 * j) as u8
}

/// Prints the plan, runs the model, checks the output; whether everything checked out.
pub fn run(out: &mut dyn Write) -> bool {
    let _ = writeln!(
        out,
        "arenaplan on {} ({} model), backend {}",
        plan::TARGET,
        plan::MODEL,
        <crate::EthosU as arenaplan::Delegate>::BACKEND
    );
    let _ = writeln!(
        out,
        "pool sram: arena {} B of {} B (lower bound {} B) at {:p}",
        plan::pool::sram::SIZE,
        plan::pool::sram::CAPACITY,
        plan::pool::sram::LOWER_BOUND,
        plan::ARENA_SRAM.as_ptr()
    );
    for r in [plan::scratch::CALL0_SCRATCH, plan::scratch::CALL1_SCRATCH] {
        let _ = writeln!(
            out,
            "scratch of call {}: {} B at offset {} in mem_id {}",
            r.call, r.size, r.offset, r.mem_id
        );
    }
    // No NPU here: register the emulated Ethos-U55-128 with Arm's driver (or the simulator), as
    // firmware calls ethosu_init on a board.
    if let Err(e) = arenaplan::sim::ethos_u(arenaplan::sim::EthosU::U55_128) {
        let _ = writeln!(out, "NPU set-up failed: {e}");
        return false;
    }
    // The model: its arenas, tables and delegates, generated from the plan.
    let Some(mut model) = plan::Model::take() else {
        let _ = writeln!(out, "the model is taken already");
        return false;
    };
    let mut sum = 0u32;
    for (j, v) in model.input(0).iter_mut().enumerate() {
        *v = (j % 7) as u8;
        sum += u32::from(*v);
    }
    if let Err(e) = model.run() {
        let _ = writeln!(out, "run failed: {e}");
        return false;
    }
    let calls = arenaplan::sim::ethos_u_calls();
    let mid: u32 = (0..512).map(|j| u32::from(simulated(sum, j))).sum();
    let output = model.output(0);
    let ok = (0..output.len()).all(|j| output[j] == simulated(mid, j as u32));
    let _ = writeln!(
        out,
        "ran {calls} Ethos-U call(s) on the emulated NPU; output {} B {}",
        output.len(),
        if ok { "as expected" } else { "WRONG" }
    );
    ok
}
