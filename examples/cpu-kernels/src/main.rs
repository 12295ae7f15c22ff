//! `cargo run -p cpu-kernels`: an ExecuTorch-style CPU program (`aten::mul.out`, then
//! `aten::add.out`) run by the C runtime with kernels written in Rust (`#[kernel]`), its
//! constants (weights, and `add`'s `alpha`) in flash, its outputs compared with a reference
//! evaluation the build script made. `ARENAPLAN_MODEL=path/to/program.pte` runs another program
//! of these ops, such as the corpus's `ModuleLinear` and `add` programs.

use arenaplan::{kernel, Call, Error};

arenaplan::include_plan!();

use arenaplan_plan as plan;

include!(concat!(env!("OUT_DIR"), "/expected.rs"));

/// float32 `i` of `bytes` (little-endian, as on Cortex-M and the host).
fn float(bytes: &[u8], i: usize) -> Option<f32> {
    let b = bytes.get(4 * i..4 * i + 4)?;
    Some(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// An elementwise float32 op over two operands, one of them possibly a single element.
fn elementwise(call: &mut Call<'_>, op: impl Fn(f32, f32) -> f32) -> arenaplan::Result {
    let (inputs, outputs, _) = call.split();
    let (Some(a), Some(b), Some(out)) = (inputs.first(), inputs.get(1), outputs.first_mut()) else {
        return Err(Error::BadArguments);
    };
    let (na, nb) = (a.len() / 4, b.len() / 4);
    for (j, o) in out.chunks_exact_mut(4).enumerate() {
        let x = float(a, if na == 1 { 0 } else { j }).ok_or(Error::BadArguments)?;
        let y = float(b, if nb == 1 { 0 } else { j }).ok_or(Error::BadArguments)?;
        o.copy_from_slice(&op(x, y).to_le_bytes());
    }
    Ok(())
}

/// `aten::mul.out(self, other, *, out)`.
#[kernel(op = "aten::mul.out")]
fn mul(call: &mut Call<'_>) -> arenaplan::Result {
    elementwise(call, |a, b| a * b)
}

/// `aten::add.out(self, other, *, alpha, out)`: `alpha` arrives as an 8-byte int constant.
#[kernel(op = "aten::add.out")]
fn add(call: &mut Call<'_>) -> arenaplan::Result {
    let alpha = match call.input(2) {
        Some(bytes) => {
            let bytes: [u8; 8] = bytes.try_into().map_err(|_| Error::BadArguments)?;
            i64::from_le_bytes(bytes) as f32
        }
        None => 1.0,
    };
    elementwise(call, |a, b| a + alpha * b)
}

fn main() -> std::process::ExitCode {
    println!("arenaplan: `{}` on {}", plan::MODEL, plan::TARGET);
    let mut model = plan::Model::take().expect("taken once");
    for i in 0..plan::INPUT_COUNT {
        for (j, x) in model.input(i).chunks_exact_mut(4).enumerate() {
            x.copy_from_slice(&(0.5 * (j + 1) as f32 + i as f32).to_le_bytes());
        }
    }
    if let Err(e) = model.run() {
        println!("  run failed: {e}");
        return std::process::ExitCode::FAILURE;
    }
    let mut right = true;
    for (o, expected) in EXPECTED.iter().enumerate() {
        let got: Vec<f32> = (0..expected.len())
            .map(|j| float(model.output(o), j).unwrap_or(f32::NAN))
            .collect();
        let same = got
            .iter()
            .zip(expected.iter())
            .all(|(g, e)| g.to_bits() == e.to_bits())
            && model.output(o).len() == 4 * expected.len();
        println!(
            "  output {o}: {got:?} {}",
            if same { "(as the reference)" } else { "WRONG" }
        );
        right &= same;
    }
    println!(
        "  {} B of constants in flash; {} call(s) on Rust kernels",
        plan::CONSTANT_BYTES,
        plan::CALLS.len()
    );
    if right {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}
