//! Corstone-300 firmware: on the host (`cargo run -p ethos-u-corstone300`) and on an emulated
//! Cortex-M55 (`--target thumbv8m.main-none-eabihf`, run under qemu-system-arm -M mps3-an547),
//! where it reports over semihosting and exits 0 only when the run checked out.
#![cfg_attr(target_os = "none", no_std, no_main)]

arenaplan::include_plan!();

mod firmware;

/// The Ethos-U backend (C, in the runtime): each call's scratch size comes from its Vela blob,
/// in the pool the target's `npu_scratch` spec names.
#[arenaplan::delegate(backend = "EthosUBackend", scratch = blob, mem_id = arenaplan::spec!(npu_scratch))]
pub struct EthosU;

#[cfg(not(target_os = "none"))]
fn main() -> std::process::ExitCode {
    struct Stdout;
    impl core::fmt::Write for Stdout {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
            // A closed pipe (`| head`) ends the output, not the program.
            std::io::Write::write_all(&mut std::io::stdout(), s.as_bytes())
                .map_err(|_| core::fmt::Error)
        }
    }
    if firmware::run(&mut Stdout) {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}

// Each example builds from its own package (a team copies one), so this board bring-up is
// the example's own rather than a file shared with the other examples.
#[cfg(target_os = "none")]
mod board {
    use cortex_m_rt::entry;
    use cortex_m_semihosting::{debug, hio};

    struct Semihosting(hio::HostStream);
    impl core::fmt::Write for Semihosting {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
            self.0.write_all(s.as_bytes()).map_err(|_| core::fmt::Error)
        }
    }

    #[entry]
    fn main() -> ! {
        let ok = match hio::hstdout() {
            Ok(stream) => super::firmware::run(&mut Semihosting(stream)),
            Err(()) => false,
        };
        debug::exit(if ok {
            debug::EXIT_SUCCESS
        } else {
            debug::EXIT_FAILURE
        });
        loop {
            cortex_m::asm::nop();
        }
    }

    /// The emulated NPU's interrupt: the device layer pends PendSV when a job ends, and the
    /// driver's interrupt handler runs from here, as from the Ethos-U IRQ on a board.
    #[cfg(feature = "qemu")]
    #[cortex_m_rt::exception]
    fn PendSV() {
        arenaplan::sim::ethos_u_irq();
    }

    /// On the board: interrupts without a handler of their own (cortex-m-rt without a device
    /// crate, which makes this handler `unsafe fn`); the NPU's goes to Arm's driver.
    #[cfg(not(feature = "qemu"))]
    #[cortex_m_rt::exception]
    unsafe fn DefaultHandler(irq: i16) {
        use arenaplan::board::ethos_u::{on_interrupt, Npu};
        if Npu::CORSTONE_300
            .irq()
            .is_some_and(|n| i32::from(n) == i32::from(irq))
        {
            on_interrupt();
        }
    }

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        debug::exit(debug::EXIT_FAILURE);
        loop {
            cortex_m::asm::nop();
        }
    }
}
