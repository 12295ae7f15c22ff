mod arenaplan_plan {
    //! Stands in for the module the build script generates.
    pub mod kernel {
        pub mod relu {
            pub const SCRATCH: &[usize] = &[];
        }
        #[allow(non_snake_case)]
        pub mod aten__add_out {
            pub const SCRATCH: &[usize] = &[256, 64];
        }
    }
}

const TABLE: usize = 256;

// A Rust kernel registered under its operator name: the runtime's descriptor exists.
#[arenaplan::kernel(op = "relu")]
fn relu(call: &mut arenaplan::Call<'_>) -> arenaplan::Result {
    let (inputs, outputs, _) = call.split();
    outputs[0].copy_from_slice(inputs[0]);
    Ok(())
}

// A kernel with planned scratch in two buffers, one size a constant the compiler evaluates.
#[arenaplan::kernel(op = "aten::add.out", scratch = [TABLE, 64],
                    mem_id = [arenaplan::spec!(cpu_scratch), arenaplan::spec!(cpu_scratch)])]
fn add(call: &mut arenaplan::Call<'_>) -> arenaplan::Result {
    call.scratch(1, 64).map(|_| ())
}

fn main() {
    let (x, mut y) = ([1u8, 2], [0u8; 2]);
    let inputs: [&[u8]; 1] = [&x];
    let mut outputs: [&mut [u8]; 1] = [&mut y];
    let mut call = arenaplan::Call::new(&inputs, &mut outputs, 1).unwrap();
    relu(&mut call).unwrap();
    assert_eq!(y, [1, 2]);
    let _ = add;
}
