//! A program of ExecuTorch's Cortex-M backend (its `cortex_m::` operators: quantize, conv2d,
//! depthwise conv2d, add, max pool, linear, dequantize) on ExecuTorch's own kernels over
//! CMSIS-NN, on the host (`cargo run -p executorch-cortex-m`) and on an emulated Cortex-M55 with
//! Helium (`cargo run --target thumbv8m.main-none-eabihf` from this folder runs it under
//! qemu-system-arm -M mps3-an547): it runs every recorded call and exits 0 only when every
//! output byte is the reference's (the backend's reference operators, which the host's run
//! equals bit for bit). The input's one channel makes its channels-last layout the `.npy`
//! file's order.
#![cfg_attr(target_os = "none", no_std, no_main)]

#[cfg(not(no_kernels))]
arenaplan::include_plan!();

#[cfg(not(no_kernels))]
mod reference {
    include!(concat!(env!("OUT_DIR"), "/reference.rs"));
}

/// The data of a `.npy` file (versions 1 to 3: a 10- or 12-byte preamble, then the header).
#[cfg(not(no_kernels))]
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

/// Runs the recorded calls on the planned program; whether every output matched.
#[cfg(not(no_kernels))]
fn run(out: &mut dyn core::fmt::Write) -> bool {
    use arenaplan_plan as plan;
    let _ = writeln!(
        out,
        "arenaplan: `{}` on {} on ExecuTorch's Cortex-M kernels, arena {} B (lower bound {} B)",
        plan::MODEL,
        plan::TARGET,
        plan::pool::sram::SIZE,
        plan::pool::sram::LOWER_BOUND
    );
    let Some(mut model) = plan::Model::take() else {
        let _ = writeln!(out, "the model is taken already");
        return false;
    };
    for (k, (inputs, outputs)) in reference::CALLS.iter().enumerate() {
        for (i, file) in inputs.iter().enumerate() {
            let input = model.input(i);
            match npy_data(file) {
                Some(data) if data.len() == input.len() => input.copy_from_slice(data),
                _ => {
                    let _ = writeln!(out, "call {k}: input {i} does not fit");
                    return false;
                }
            }
        }
        if let Err(e) = model.run() {
            let _ = writeln!(out, "call {k}: {e}");
            return false;
        }
        for (o, file) in outputs.iter().enumerate() {
            if npy_data(file) != Some(model.output(o)) {
                let _ = writeln!(out, "call {k}: output {o} differs from the reference");
                return false;
            }
        }
    }
    let _ = writeln!(
        out,
        "{} calls, every output byte the reference's",
        reference::CALLS.len()
    );
    true
}

/// Built without ExecuTorch's or CMSIS-NN's sources, or the program: says why (see build.rs).
#[cfg(no_kernels)]
fn run(out: &mut dyn core::fmt::Write) -> bool {
    let why = include_str!(concat!(env!("OUT_DIR"), "/skipped.txt"));
    let _ = writeln!(out, "executorch-cortex-m: nothing to run: {why}");
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
