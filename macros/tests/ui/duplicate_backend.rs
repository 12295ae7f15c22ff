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

#[arenaplan::delegate(backend = "Npu", scratch = [64], mem_id = arenaplan::spec!(npu_scratch))]
pub struct Npu;

mod again {
    #[arenaplan::delegate(backend = "Npu", scratch = [64], mem_id = arenaplan::spec!(npu_scratch))]
    pub struct SameBackend;
}

fn main() {}
