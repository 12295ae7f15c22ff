mod arenaplan_plan {
    //! Stands in for the module the build script generates.
    pub mod kernel {
        pub mod relu {
            pub const SCRATCH: &[usize] = &[256];
        }
    }
}

// The plan gives the kernel 256 bytes; the declaration was edited to 512 without replanning.
#[arenaplan::kernel(op = "relu", scratch = 512, mem_id = arenaplan::spec!(cpu_scratch))]
fn relu(_call: &mut arenaplan::Call<'_>) -> arenaplan::Result {
    Ok(())
}

fn main() {}
