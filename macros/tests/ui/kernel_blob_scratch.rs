mod arenaplan_plan {
    pub mod kernel {
        pub mod relu {
            pub const SCRATCH: &[usize] = &[];
        }
    }
}

// A kernel has no compiled blob: its scratch sizes are declared.
#[arenaplan::kernel(op = "relu", scratch = blob, mem_id = arenaplan::spec!(cpu_scratch))]
fn relu(_call: &mut arenaplan::Call<'_>) -> arenaplan::Result {
    Ok(())
}

fn main() {}
