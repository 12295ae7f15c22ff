//! The firmware's work, the same on the host and on the board: run the planned model on the
//! arenaplan runtime and check the result.

use core::fmt::Write;

use arenaplan::sys;

use crate::arenaplan_plan as plan;

unsafe extern "C" {
    /// The program tables the build script generated (`model_program.c`).
    static model_program: sys::ap_program;
}

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
        plan::ARENA_SRAM.0.get()
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
    // SAFETY: the arena is used only by this method; the tables and storage are statics that
    // outlive it; the counts match the arrays.
    unsafe {
        static mut VALUES: [sys::ap_buffer; 8] = [sys::ap_buffer {
            data: core::ptr::null_mut(),
            size: 0,
        }; 8];
        static mut ARGS: [sys::ap_buffer; 8] = [sys::ap_buffer {
            data: core::ptr::null_mut(),
            size: 0,
        }; 8];
        static mut HANDLES: [sys::ap_handle; 2] = [sys::ap_handle {
            u: sys::ap_handle__bindgen_ty_1 { align_u64: 0 },
        }; 2];
        static mut RESOLVED: [*const sys::ap_backend; 2] = [core::ptr::null(); 2];
        let pools = [sys::ap_pool {
            mem_id: plan::pool::sram::MEM_ID,
            base: plan::ARENA_SRAM.0.get().cast(),
            size: plan::pool::sram::SIZE,
        }];
        let backends = [&raw const sys::ap_ethosu_backend];
        let memory = sys::ap_method_memory {
            values: (&raw mut VALUES).cast(),
            nvalues: 8,
            handles: (&raw mut HANDLES).cast(),
            delegate_backends: (&raw mut RESOLVED).cast(),
            nhandles: 2,
            kernel_fns: core::ptr::null_mut(),
            nkernel_fns: 0,
            args: (&raw mut ARGS).cast(),
            nargs: 8,
            temp: core::ptr::null_mut(),
            temp_size: 0,
        };
        let mut m: sys::ap_method = core::mem::zeroed();
        if let Err(e) = arenaplan::check(sys::ap_method_init(
            &mut m,
            &raw const model_program,
            pools.as_ptr(),
            1,
            backends.as_ptr(),
            1,
            core::ptr::null(),
            0,
            &memory,
        )) {
            let _ = writeln!(out, "init failed: {e}");
            return false;
        }
        let mut input = sys::ap_buffer {
            data: core::ptr::null_mut(),
            size: 0,
        };
        let _ = sys::ap_method_input(&mut m, 0, &mut input);
        let mut sum = 0u32;
        for j in 0..input.size {
            let v = (j % 7) as u8;
            *input.data.add(j) = v;
            sum += u32::from(v);
        }
        let status = arenaplan::check(sys::ap_method_execute(&mut m));
        let calls = sys::ap_ethosu_sim_calls();
        let mut output = sys::ap_buffer {
            data: core::ptr::null_mut(),
            size: 0,
        };
        let _ = sys::ap_method_output(&mut m, 0, &mut output);
        sys::ap_method_destroy(&mut m);
        if let Err(e) = status {
            let _ = writeln!(out, "execute failed: {e}");
            return false;
        }
        let mid: u32 = (0..512).map(|j| u32::from(simulated(sum, j))).sum();
        let ok = (0..output.size).all(|j| *output.data.add(j) == simulated(mid, j as u32));
        let _ = writeln!(
            out,
            "ran {calls} Ethos-U call(s) on the emulated NPU; output {} B {}",
            output.size,
            if ok { "as expected" } else { "WRONG" }
        );
        ok
    }
}
