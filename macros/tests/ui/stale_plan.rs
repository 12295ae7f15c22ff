mod arenaplan_plan {
    //! Stands in for the module the build script generates.
    pub struct Declarations;
    pub mod backend {
        #[allow(non_snake_case)]
        pub mod Npu {
            pub const SCRATCH: &[usize] = &[64];
        }
    }
}

// The plan says 64 bytes; the declaration was edited to 128 without replanning.
#[arenaplan::delegate(backend = "Npu", scratch = [128], mem_id = arenaplan::spec!(npu_scratch))]
pub struct Npu;

fn main() {}
