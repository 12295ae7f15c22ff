mod arenaplan_plan {
    pub mod kernel {
        pub mod relu {
            pub const SCRATCH: &[usize] = &[];
        }
    }
}

// `mem_id` comes with `scratch`, or neither is written.
#[arenaplan::kernel(op = "relu", mem_id = arenaplan::spec!(cpu_scratch))]
fn relu(_call: &mut arenaplan::Call<'_>) -> arenaplan::Result {
    Ok(())
}

fn main() {}
