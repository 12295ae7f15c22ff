//! The checks, the same on the host and on the board: the constant methods' outputs through
//! the C API and the Rust `Model` API equal what ExecuTorch's runtime gave for them, and
//! `forward` runs through both on the emulated NPU. (Its output values are the emulation's:
//! the NPU's arithmetic is not modelled here, so only their size is checked.)

use core::fmt::Write;

use crate::arenaplan_plan as plan;

/// The data of a `.npy` file (after its header), as NumPy writes it.
fn npy_data(file: &[u8]) -> &[u8] {
    let len = match file.get(6) {
        Some(1) => usize::from(u16::from_le_bytes([file[8], file[9]])) + 10,
        _ => u32::from_le_bytes([file[8], file[9], file[10], file[11]]) as usize + 12,
    };
    file.get(len..).unwrap_or(&[])
}

/// What ExecuTorch's runtime returned for the constant methods: input scale, input zero
/// point, output scale, output zero point (8 bytes each: a double, an int64).
const CONSTANTS: [&[u8]; 4] = [
    include_bytes!("../fixture/0-input0_scale-0.npy"),
    include_bytes!("../fixture/1-input0_zp-0.npy"),
    include_bytes!("../fixture/2-output0_scale-0.npy"),
    include_bytes!("../fixture/3-output0_zp-0.npy"),
];
const INPUT: &[u8] = include_bytes!("../fixture/4-forward-in0.npy");
const OUTPUT: &[u8] = include_bytes!("../fixture/4-forward-0.npy");

unsafe extern "C" {
    fn c_api_run(
        input: *const i8,
        input_size: u32,
        constants: *mut [[u8; 8]; 4],
        out: *mut i8,
        out_size: u32,
    ) -> i32;
}

/// Runs the checks; whether all passed.
pub fn run(out: &mut dyn Write) -> bool {
    let _ = writeln!(
        out,
        "arenaplan on {} ({} program)",
        plan::TARGET,
        plan::MODEL
    );
    if let Err(e) = arenaplan::sim::ethos_u(arenaplan::sim::EthosU::U55_128) {
        let _ = writeln!(out, "NPU set-up failed: {e}");
        return false;
    }
    let input = npy_data(INPUT);
    let expected_len = npy_data(OUTPUT).len();
    let mut ok = true;

    // The C API.
    let mut constants = [[0u8; 8]; 4];
    let mut result = [0i8; 4096];
    let n = expected_len.min(result.len());
    // SAFETY: every pointer is to a live buffer of the size passed with it.
    let status = unsafe {
        c_api_run(
            input.as_ptr().cast(),
            input.len() as u32,
            &mut constants,
            result.as_mut_ptr(),
            n as u32,
        )
    };
    let same = status == 0 && (0..4).all(|m| constants[m][..] == *npy_data(CONSTANTS[m]));
    let _ = writeln!(
        out,
        "C API: constant methods {}, forward {}",
        if same {
            "as ExecuTorch's runtime"
        } else {
            "WRONG"
        },
        if status == 0 { "ran" } else { "FAILED" }
    );
    ok &= same && n == expected_len;

    // The Rust API: taking the model zeroes planned inputs and outputs only, never a
    // constant's flash.
    let Some(mut model) = plan::Model::take() else {
        let _ = writeln!(out, "the model is taken already");
        return false;
    };
    let methods = [
        plan::method::INPUT0_SCALE,
        plan::method::INPUT0_ZP,
        plan::method::OUTPUT0_SCALE,
        plan::method::OUTPUT0_ZP,
    ];
    let mut same = true;
    for (m, &method) in methods.iter().enumerate() {
        // Before any run: the constant.
        same &= model.method_output(method, 0) == npy_data(CONSTANTS[m]);
        if let Err(e) = model.run_method(method) {
            let _ = writeln!(out, "constant method {m} failed: {e}");
            return false;
        }
        same &= model.method_output(method, 0) == npy_data(CONSTANTS[m]);
    }
    // The same numbers planned into the program: `forward`'s I/O quantization.
    let number = |m: usize| <[u8; 8]>::try_from(npy_data(CONSTANTS[m])).unwrap_or([0; 8]);
    let recorded = |s: usize, z: usize| {
        Some((
            f64::from_le_bytes(number(s)) as f32,
            i64::from_le_bytes(number(z)),
        ))
    };
    let quant = plan::INPUT_QUANT[0] == recorded(0, 1) && plan::OUTPUT_QUANT[0] == recorded(2, 3);
    let _ = writeln!(
        out,
        "Rust API: forward's I/O quantization {}",
        if quant {
            "as the constant methods'"
        } else {
            "WRONG"
        }
    );
    model.input(0).copy_from_slice(input);
    let ran = model.run().is_ok() && model.output(0).len() == expected_len;
    let _ = writeln!(
        out,
        "Rust API: constant methods {}, forward {} ({} B out)",
        if same {
            "as ExecuTorch's runtime"
        } else {
            "WRONG"
        },
        if ran { "ran" } else { "FAILED" },
        model.output(0).len()
    );
    ok & same & quant & ran
}
