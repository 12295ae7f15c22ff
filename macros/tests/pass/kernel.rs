// A Rust kernel registered under its operator name: the runtime's descriptor exists.
#[arenaplan::kernel(op = "relu")]
fn relu(call: &mut arenaplan::Call<'_>) -> arenaplan::Result {
    let (inputs, outputs, _) = call.split();
    outputs[0].copy_from_slice(inputs[0]);
    Ok(())
}

fn main() {
    let (mut x, mut y) = ([1u8, 2], [0u8; 2]);
    let mut args: [&mut [u8]; 2] = [&mut x, &mut y];
    let mut call = arenaplan::Call::new(&mut args, 1, 1).unwrap();
    relu(&mut call).unwrap();
    assert_eq!(y, [1, 2]);
}
