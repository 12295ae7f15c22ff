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

use arenaplan::sys;

use crate::arenaplan_plan as plan;

unsafe extern "C" {
    static model_program: sys::ap_program;
}

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
    // SAFETY: single user of the arena; statics outlive the method; counts match.
    unsafe {
        static mut VALUES: [sys::ap_buffer; 8] = [sys::ap_buffer {
            data: core::ptr::null_mut(),
            size: 0,
        }; 8];
        static mut ARGS: [sys::ap_buffer; 8] = [sys::ap_buffer {
            data: core::ptr::null_mut(),
            size: 0,
        }; 8];
        static mut HANDLES: [sys::ap_handle; 1] = [sys::ap_handle {
            u: sys::ap_handle__bindgen_ty_1 { align_u64: 0 },
        }; 1];
        static mut RESOLVED: [*const sys::ap_backend; 1] = [core::ptr::null(); 1];
        let pools = [sys::ap_pool {
            mem_id: plan::pool::sram::MEM_ID,
            base: plan::ARENA_SRAM.0.get().cast(),
            size: plan::pool::sram::SIZE,
        }];
        let backends = [&raw const sys::ap_neutron_backend];
        let memory = sys::ap_method_memory {
            values: (&raw mut VALUES).cast(),
            nvalues: 8,
            handles: (&raw mut HANDLES).cast(),
            delegate_backends: (&raw mut RESOLVED).cast(),
            nhandles: 1,
            kernel_fns: core::ptr::null_mut(),
            nkernel_fns: 0,
            args: (&raw mut ARGS).cast(),
            nargs: 8,
            temp: core::ptr::null_mut(),
            temp_size: 0,
        };
        let mut m: sys::ap_method = core::mem::zeroed();
        if arenaplan::check(sys::ap_method_init(
            &mut m,
            &raw const model_program,
            pools.as_ptr(),
            1,
            backends.as_ptr(),
            1,
            core::ptr::null(),
            0,
            &memory,
        ))
        .is_err()
        {
            return false;
        }
        let mut input = sys::ap_buffer {
            data: core::ptr::null_mut(),
            size: 0,
        };
        let _ = sys::ap_method_input(&mut m, 0, &mut input);
        let mut sum = 0u32;
        for j in 0..input.size {
            *input.data.add(j) = 1;
            sum += 1;
        }
        let ok = arenaplan::check(sys::ap_method_execute(&mut m)).is_ok();
        let mut output = sys::ap_buffer {
            data: core::ptr::null_mut(),
            size: 0,
        };
        let _ = sys::ap_method_output(&mut m, 0, &mut output);
        sys::ap_method_destroy(&mut m);
        let right = ok
            && (0..output.size)
                .all(|j| *output.data.add(j) == sum.wrapping_add(31 * j as u32) as u8);
        let _ = writeln!(
            out,
            "  ran the Neutron call on the driver simulator: output {} B {}",
            output.size,
            if right { "as expected" } else { "WRONG" }
        );
        right
    }
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
