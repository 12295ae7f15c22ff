//! The firmware's work, the same on the host, under QEMU and on the board: run the planned
//! model on the arenaplan runtime and check the result against TFLite Micro's (the model's two
//! calls are Vela's compilation of a convolution and a pooling; TFLM ran the uncompiled ones).
//! On the host and under QEMU the emulated Ethos-U55 computes them, on a board the NPU.

use core::fmt::Write;

use crate::arenaplan_plan as plan;

/// TFLM's input and output (`INPUT`, `EXPECTED`), written by the build script.
mod reference {
    include!(concat!(env!("OUT_DIR"), "/reference.rs"));
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
    for (v, &x) in model.input(0).iter_mut().zip(&reference::INPUT) {
        *v = x as u8;
    }
    if let Err(e) = model.run() {
        let _ = writeln!(out, "run failed: {e}");
        return false;
    }
    check(out, model.output(0))
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

/// Whether the output is TFLM's, said with where it was computed.
fn check(out: &mut dyn Write, output: &[u8]) -> bool {
    let ok = output.len() == reference::EXPECTED.len()
        && output
            .iter()
            .zip(&reference::EXPECTED)
            .all(|(&o, &e)| o as i8 == e);
    let first = &output[..output.len().min(8)];
    let _ = writeln!(
        out,
        "ran {} on {}; output {} B, starting {first:02x?}: {}",
        plan::MODEL,
        NPU,
        output.len(),
        if ok {
            "TFLite Micro's bytes"
        } else {
            "NOT TFLite Micro's bytes"
        }
    );
    ok
}

#[cfg(any(not(target_os = "none"), feature = "qemu"))]
const NPU: &str = "the emulated Ethos-U55-128";
#[cfg(all(target_os = "none", not(feature = "qemu")))]
const NPU: &str = "the Ethos-U55";
