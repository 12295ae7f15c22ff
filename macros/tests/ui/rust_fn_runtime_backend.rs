mod arenaplan_plan {
    //! Stands in for the module the build script generates.
    pub struct Declarations;
    pub mod backend {
        #[allow(non_snake_case)]
        pub mod EthosUBackend {
            pub const SCRATCH: &[usize] = &[64];
        }
    }
}

// A Rust function cannot take the id of a backend the C runtime implements.
#[arenaplan::delegate(backend = "EthosUBackend", scratch = [64], mem_id = arenaplan::spec!(npu_scratch))]
pub fn ethos_u(_call: &mut arenaplan::Call<'_>) -> arenaplan::Result {
    Ok(())
}

fn main() {}
