mod arenaplan_plan {
    pub mod kernel {
        pub mod relu {
            pub const SCRATCH: &[usize] = &[256, 64];
        }
    }
}

// One `spec!` per scratch buffer, as for a delegate.
#[arenaplan::kernel(op = "relu", scratch = [256, 64], mem_id = arenaplan::spec!(cpu_scratch))]
fn relu(_call: &mut arenaplan::Call<'_>) -> arenaplan::Result {
    Ok(())
}

fn main() {}
