//! What the Ethos-U examples share: the host's `main` (output on stdout), and on the emulated
//! Cortex-M55 (QEMU `mps3-an547`) the entry point, semihosting output and exit status, the
//! emulated NPU's interrupt and the panic handler. Each example includes it with `#[path]` and
//! keeps its own work in `crate::firmware::run`.

/// Runs `run` with stdout as its output; the exit status says whether everything checked out.
#[cfg(not(target_os = "none"))]
pub fn host(run: fn(&mut dyn core::fmt::Write) -> bool) -> std::process::ExitCode {
    struct Stdout;
    impl core::fmt::Write for Stdout {
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
            Ok(stream) => crate::firmware::run(&mut Semihosting(stream)),
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
    #[cortex_m_rt::exception]
    fn PendSV() {
        arenaplan::sim::ethos_u_irq();
    }

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        debug::exit(debug::EXIT_FAILURE);
        loop {
            cortex_m::asm::nop();
        }
    }
}
