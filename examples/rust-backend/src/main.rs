//! `cargo run -p rust-backend`: a backend written in Rust, run by the C runtime, its two
//! scratch buffers placed by the plan in two pools (fast SRAM and DDR on corstone-320), with
//! each call's own sizes; the two calls are disjoint in time, so their scratch shares memory.
//! The CPU kernel between them (relu) is Rust too, registered with `#[kernel]`, and declares
//! scratch of its own (a lookup table), planned like the backend's.

use arenaplan::{delegate, kernel, spec, Call};

arenaplan::include_plan!();

use arenaplan_plan as plan;

/// im2col-style convolution stand-in: stages the input in scratch 0 (columns), uses scratch 1
/// (bias), writes a deterministic output.
#[delegate(backend = "ConvIm2col", scratch = blob, mem_id = [spec!(fast_scratch), spec!(npu_scratch)])]
pub fn conv_im2col(call: &mut Call<'_>) -> arenaplan::Result {
    let (inputs, outputs, scratch) = call.split();
    let (Some(input), Some(output)) = (inputs.first(), outputs.first_mut()) else {
        return Err(arenaplan::Error::BadArguments);
    };
    let [columns, bias] = scratch else {
        return Err(arenaplan::Error::ScratchTooSmall);
    };
    let n = input.len().min(columns.len());
    columns[..n].copy_from_slice(&input[..n]);
    bias.fill(1);
    for (i, o) in output.iter_mut().enumerate() {
        *o = columns[i % n.max(1)].wrapping_add(bias[i % bias.len().max(1)]);
    }
    Ok(())
}

/// The CPU kernel between the calls: relu on int8, through a 256-entry lookup table built in
/// its planned scratch (the way quantized activation kernels work).
#[kernel(op = "relu", scratch = 256, mem_id = spec!(cpu_scratch))]
fn relu(call: &mut Call<'_>) -> arenaplan::Result {
    let (inputs, outputs, scratch) = call.split();
    let (Some(input), Some(output), Some(table)) =
        (inputs.first(), outputs.first_mut(), scratch.first_mut())
    else {
        return Err(arenaplan::Error::BadArguments);
    };
    if table.len() < 256 {
        return Err(arenaplan::Error::ScratchTooSmall);
    }
    for (x, entry) in table.iter_mut().take(256).enumerate() {
        *entry = if (x as u8 as i8) < 0 { 0 } else { x as u8 };
    }
    for (o, &x) in output.iter_mut().zip(input.iter()) {
        *o = table[usize::from(x)];
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    println!("arenaplan: `{}` on {}", plan::MODEL, plan::TARGET);
    println!(
        "  pool sram: {} B; pool ddr: {} B",
        plan::pool::sram::SIZE,
        plan::pool::ddr::SIZE
    );
    for r in [
        plan::scratch::CALL0_COLUMNS,
        plan::scratch::CALL0_BIAS,
        plan::scratch::CALL1_SCRATCH0,
        plan::scratch::CALL2_COLUMNS,
        plan::scratch::CALL2_BIAS,
    ] {
        println!(
            "  call {}: {} B of scratch in mem_id {} at {}",
            r.call, r.size, r.mem_id, r.offset
        );
    }
    // The runtime runs both calls of the Rust backend and the Rust kernel between them.
    let mut model = plan::Model::take().expect("taken once");
    model.input(plan::input::IMAGE).fill(2);
    if let Err(e) = model.run() {
        println!("  run failed: {e}");
        return std::process::ExitCode::FAILURE;
    }
    let out = model.output(plan::output::OUT);
    // conv_a: 2 + 1 = 3 everywhere; relu keeps it; conv_b: 3 + 1 = 4.
    let right = out.iter().all(|&v| v == 4);
    let shared = plan::scratch::CALL0_COLUMNS.offset == plan::scratch::CALL2_COLUMNS.offset
        && plan::scratch::CALL0_COLUMNS.mem_id == plan::scratch::CALL2_COLUMNS.mem_id;
    println!(
        "  per-call sizes: {} B then {} B of columns; the two calls' scratch {} memory",
        plan::scratch::CALL0_COLUMNS.size,
        plan::scratch::CALL2_COLUMNS.size,
        if shared { "shares" } else { "does not share" }
    );
    println!(
        "  ran on the runtime: output {} B {}",
        out.len(),
        if right { "as expected" } else { "WRONG" }
    );
    if right {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}
