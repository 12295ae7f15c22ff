//! `cargo run -p rust-backend`: a backend written in Rust, its two scratch buffers placed by
//! the plan in two pools (fast SRAM and DDR on corstone-320), with each call's own sizes; the
//! two calls are disjoint in time, so their scratch shares memory.

use arenaplan::{delegate, spec, Call};

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

fn region(r: plan::Region) -> &'static mut [u8] {
    let base = match r.mem_id {
        plan::pool::sram::MEM_ID => plan::ARENA_SRAM.0.get() as *mut u8,
        _ => plan::ARENA_DDR.0.get() as *mut u8,
    };
    // SAFETY: the plan proves buffers alive together are disjoint, and each region is used
    // by one call at a time here.
    unsafe { std::slice::from_raw_parts_mut(base.add(r.offset as usize), r.size as usize) }
}

fn buffer(value: u32) -> &'static mut [u8] {
    let b = plan::BUFFERS
        .iter()
        .find(|b| b.value == value)
        .expect("planned");
    region(plan::Region {
        call: 0,
        value,
        mem_id: b.mem_id,
        offset: b.offset,
        size: b.size,
    })
}

fn main() {
    println!("arenaplan: `{}` on {}", plan::MODEL, plan::TARGET);
    println!(
        "  pool sram: {} B; pool ddr: {} B",
        plan::pool::sram::SIZE,
        plan::pool::ddr::SIZE
    );
    let calls = [
        (
            plan::CALLS[0],
            [plan::scratch::CALL0_COLUMNS, plan::scratch::CALL0_BIAS],
        ),
        (
            plan::CALLS[2],
            [plan::scratch::CALL2_COLUMNS, plan::scratch::CALL2_BIAS],
        ),
    ];
    buffer(calls[0].0.args[0]).fill(2);
    for (call, [columns, bias]) in calls {
        println!(
            "  call {}: columns {} B in mem_id {} at {}, bias {} B in mem_id {} at {}",
            call.index,
            columns.size,
            columns.mem_id,
            columns.offset,
            bias.size,
            bias.mem_id,
            bias.offset
        );
        let mut args: [&mut [u8]; 4] = [
            buffer(call.args[0]),
            buffer(call.args[1]),
            region(columns),
            region(bias),
        ];
        let mut view = Call::new(&mut args, 1, 1).expect("inputs and outputs fit");
        (CONV_IM2COL_DELEGATE.run)(&mut view).expect("the backend runs");
        // The CPU kernel between the calls (relu on int8: here, a copy).
        if call.index == 0 {
            let (a, b) = (
                buffer(plan::CALLS[1].args[0]).to_vec(),
                buffer(plan::CALLS[1].args[1]),
            );
            b.copy_from_slice(&a);
        }
    }
    let shared = plan::scratch::CALL0_COLUMNS.offset == plan::scratch::CALL2_COLUMNS.offset
        && plan::scratch::CALL0_COLUMNS.mem_id == plan::scratch::CALL2_COLUMNS.mem_id;
    println!(
        "  per-call sizes: {} B then {} B of columns; the two calls' scratch {} memory",
        plan::scratch::CALL0_COLUMNS.size,
        plan::scratch::CALL2_COLUMNS.size,
        if shared { "shares" } else { "does not share" }
    );
    println!("  output[0] = {}", buffer(plan::CALLS[2].args[1])[0]);
}
