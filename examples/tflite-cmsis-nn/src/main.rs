//! A TFLite model on CMSIS-NN, on the host (`cargo run -p tflite-cmsis-nn`) and on an emulated
//! Cortex-M55 with Helium (`cargo run --target thumbv8m.main-none-eabihf` from this folder runs
//! it under qemu-system-arm -M mps3-an547): it runs every invocation TFLite Micro recorded and
//! exits 0 only when every output byte is TFLM's.
#![cfg_attr(target_os = "none", no_std, no_main)]

#[cfg(not(no_model))]
arenaplan::include_plan!();

#[cfg(not(no_model))]
mod reference {
    include!(concat!(env!("OUT_DIR"), "/reference.rs"));
}

/// The data of a `.npy` file (versions 1 to 3: a 10- or 12-byte preamble, then the header).
#[cfg(not(no_model))]
fn npy_data(file: &[u8]) -> Option<&[u8]> {
    if file.get(..6)? != b"\x93NUMPY" {
        return None;
    }
    let (length, start) = match file.get(6)? {
        1 => (usize::from(u16::from_le_bytes([file[8], file[9]])), 10),
        _ => {
            let b = file.get(8..12)?;
            (u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize, 12)
        }
    };
    file.get(start + length..)
}

/// Runs TFLM's invocations on the planned model; whether every output matched.
#[cfg(not(no_model))]
fn run(out: &mut dyn core::fmt::Write) -> bool {
    use arenaplan_plan as plan;
    let _ = writeln!(
        out,
        "arenaplan: `{}` on {} with CMSIS-NN, arena {} B (lower bound {} B, kernel scratch included)",
        plan::MODEL,
        plan::TARGET,
        plan::pool::sram::SIZE,
        plan::pool::sram::LOWER_BOUND
    );
    let Some(mut model) = plan::Model::take() else {
        let _ = writeln!(out, "the model is taken already");
        return false;
    };
    for (k, (inputs, outputs)) in reference::INVOCATIONS.iter().enumerate() {
        for (i, file) in inputs.iter().enumerate() {
            let input = model.input(i);
            match npy_data(file) {
                Some(data) if data.len() == input.len() => input.copy_from_slice(data),
                _ => {
                    let _ = writeln!(out, "invocation {k}: input {i} does not fit");
                    return false;
                }
            }
        }
        if let Err(e) = model.run() {
            let _ = writeln!(out, "invocation {k}: {e}");
            return false;
        }
        for (o, file) in outputs.iter().enumerate() {
            if npy_data(file) != Some(model.output(o)) {
                let _ = writeln!(out, "invocation {k}: output {o} differs from TFLM's");
                return false;
            }
        }
    }
    let _ = writeln!(
        out,
        "{} invocations, every output byte TFLM's",
        reference::INVOCATIONS.len()
    );
    true
}

/// Built without a model or CMSIS-NN: says why (see build.rs).
#[cfg(no_model)]
fn run(out: &mut dyn core::fmt::Write) -> bool {
    let why = include_str!(concat!(env!("OUT_DIR"), "/skipped.txt"));
    let _ = writeln!(out, "tflite-cmsis-nn: nothing to run: {why}");
    true
}

#[cfg(not(target_os = "none"))]
fn main() -> std::process::ExitCode {
    struct Stdout;
    impl core::fmt::Write for Stdout {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
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
            Ok(stream) => super::run(&mut Semihosting(stream)),
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

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        debug::exit(debug::EXIT_FAILURE);
        loop {
            cortex_m::asm::nop();
        }
    }
}
