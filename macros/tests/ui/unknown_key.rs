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

#[arenaplan::delegate(backend = "Npu", scrach = [64], mem_id = arenaplan::spec!(npu_scratch))]
pub struct Npu;

fn main() {}
