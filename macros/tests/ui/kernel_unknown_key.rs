mod arenaplan_plan {
    pub mod kernel {
        pub mod relu {
            pub const SCRATCH: &[usize] = &[];
        }
    }
}

// `#[kernel]` takes `op`, `scratch` and `mem_id`.
#[arenaplan::kernel(name = "relu")]
fn relu(_call: &mut arenaplan::Call<'_>) -> arenaplan::Result {
    Ok(())
}

fn main() {}
