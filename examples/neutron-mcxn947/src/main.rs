//! MCX N947 firmware: runs on the host (`cargo run -p neutron-mcxn947`, Neutron driver
//! simulator) and builds for the board (`--target thumbv8m.main-none-eabihf`).
#![cfg_attr(target_os = "none", no_std, no_main)]

arenaplan::include_plan!();

use core::fmt::Write;

/// The Neutron backend (C, in the runtime): scratch and SRAM scratch sizes from each call's
/// payload, in the pools of the target's `npu_scratch` and `fast_scratch` specs.
#[arenaplan::delegate(backend = "NeutronBackend", scratch = blob,
                      mem_id = [arenaplan::spec!(npu_scratch), arenaplan::spec!(fast_scratch)])]
pub struct Neutron;

use crate::arenaplan_plan as plan;

/// Runs the planned program; whether the outputs are what the simulator promises.
fn run(out: &mut dyn Write) -> bool {
    let _ = writeln!(
        out,
        "arenaplan on {} ({}): pool sram arena {} B of {} B",
        plan::TARGET,
        <Neutron as arenaplan::Delegate>::BACKEND,
        plan::pool::sram::SIZE,
        plan::pool::sram::CAPACITY
    );
    for r in [
        plan::scratch::CALL0_SCRATCH,
        plan::scratch::CALL0_SRAM_SCRATCH,
    ] {
        let _ = writeln!(
            out,
            "  call {} scratch: {} B at offset {} (mem_id {})",
            r.call, r.size, r.offset, r.mem_id
        );
    }
    // No NPU here: the simulator implements NXP's API; an application calls neutronInit first.
    if let Err(e) = arenaplan::sim::neutron() {
        let _ = writeln!(out, "neutron set-up failed: {e}");
        return false;
    }
    // The model: its arenas, tables and delegate, generated from the plan.
    let Some(mut model) = plan::Model::take() else {
        return false;
    };
    model.input(0).fill(1);
    let sum = model.input(0).len() as u32;
    if let Err(e) = model.run() {
        let _ = writeln!(out, "  run failed: {e}");
        return false;
    }
    let output = model.output(0);
    let right = (0..output.len()).all(|j| output[j] == sum.wrapping_add(31 * j as u32) as u8);
    let _ = writeln!(
        out,
        "  ran {} Neutron call(s) on the driver simulator: output {} B {} (PLACEHOLDER bytes: the \
         simulator has no model of NXP's microcode and writes a pattern of its inputs, not the \
         model's numbers)",
        arenaplan::sim::neutron_calls(),
        output.len(),
        if right { "as expected" } else { "WRONG" }
    );
    right
}

#[cfg(not(target_os = "none"))]
fn main() -> std::process::ExitCode {
    struct Stdout;
    impl Write for Stdout {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
            // A closed pipe (`| head`) ends the output, not the program.
            std::io::Write::write_all(&mut std::io::stdout(), s.as_bytes())
                .map_err(|_| core::fmt::Error)
        }
    }
    if run(&mut Stdout) {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}

#[cfg(target_os = "none")]
mod board {
    struct Discard;
    impl core::fmt::Write for Discard {
        fn write_str(&mut self, _: &str) -> core::fmt::Result {
            Ok(())
        }
    }

    #[cortex_m_rt::entry]
    fn main() -> ! {
        // On the board, a real integration links NXP's driver (neutron_driver.h's seam) and
        // reports over its console; the check result is left in a register for a debugger.
        let ok = super::run(&mut Discard);
        loop {
            cortex_m::asm::bkpt();
            core::hint::black_box(ok);
        }
    }

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        loop {
            cortex_m::asm::bkpt();
        }
    }
}
