use arenaplan::{delegate, spec, Call};

// The plan the build script generated (`crate::arenaplan_plan`), which the declarations below
// are checked against at compile time.
arenaplan::include_plan!();

/// The Ethos-U backend (written in C; bound here), with a fixed scratch size.
#[delegate(backend = "EthosUBackend", scratch = [1536], mem_id = spec!(npu_scratch))]
pub struct EthosU;

/// A backend written in Rust with two scratch buffers in two pools.
#[delegate(backend = "ConvIm2col",
           scratch = [2048, 4 * 128],
           mem_id = [spec!(fast_scratch), spec!(npu_scratch)])]
pub fn conv_im2col(call: &mut Call<'_>) -> arenaplan::Result {
    let (inputs, outputs, scratch) = call.split();
    let (Some(input), Some(output)) = (inputs.first(), outputs.first_mut()) else {
        return Err(arenaplan::Error::BadArguments);
    };
    if scratch.len() != 2 || scratch[0].len() < 2048 || scratch[1].len() < 512 {
        return Err(arenaplan::Error::ScratchTooSmall);
    }
    // Stage the input through both scratch buffers, then write a deterministic output.
    let staged = input.len().min(scratch[0].len());
    scratch[0][..staged].copy_from_slice(&input[..staged]);
    for (i, o) in output.iter_mut().enumerate() {
        *o = scratch[0][i % staged.max(1)].wrapping_add(i as u8);
    }
    scratch[1].fill(0xA5);
    Ok(())
}
