//! The firmware's work, the same on the host, under QEMU and on the board: run the planned
//! model on the arenaplan runtime and check the result (against the emulated NPU's rule where
//! the NPU is emulated; on a board the NPU computes the real convolution).

use core::fmt::Write;

use crate::arenaplan_plan as plan;

/// What the driver simulator makes of the inputs (see runtime-c's README).
#[cfg(any(not(target_os = "none"), feature = "qemu"))]
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
    if let Err(e) = npu_up() {
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
    check(out, sum, model.output(0))
}

/// No NPU on the host or under QEMU: the emulated Ethos-U55-128 behind Arm's driver (or the
/// simulator).
#[cfg(any(not(target_os = "none"), feature = "qemu"))]
fn npu_up() -> Result<(), arenaplan::RuntimeError> {
    arenaplan::sim::ethos_u(arenaplan::sim::EthosU::U55_128)
}

/// On the board: Arm's driver for the Ethos-U55 at its base, its interrupt enabled.
#[cfg(all(target_os = "none", not(feature = "qemu")))]
fn npu_up() -> Result<(), arenaplan::RuntimeError> {
    use arenaplan::board::ethos_u::{init, Npu};
    init(Npu::CORSTONE_300, None)
}

/// The emulated NPU's output follows its rule (see runtime-c's README) from the inputs' sum.
#[cfg(any(not(target_os = "none"), feature = "qemu"))]
fn check(out: &mut dyn Write, sum: u32, output: &[u8]) -> bool {
    let calls = arenaplan::sim::ethos_u_calls();
    let mid: u32 = (0..512).map(|j| u32::from(simulated(sum, j))).sum();
    let ok = (0..output.len()).all(|j| output[j] == simulated(mid, j as u32));
    let _ = writeln!(
        out,
        "ran {calls} Ethos-U call(s) on the emulated NPU; output {} B {}",
        output.len(),
        if ok { "as expected" } else { "WRONG" }
    );
    ok
}

/// On the board the NPU computed the model itself: report what it wrote.
#[cfg(all(target_os = "none", not(feature = "qemu")))]
fn check(out: &mut dyn Write, _sum: u32, output: &[u8]) -> bool {
    let first = &output[..output.len().min(8)];
    let _ = writeln!(
        out,
        "ran on the Ethos-U55; output {} B, starting {first:02x?}",
        output.len()
    );
    true
}
