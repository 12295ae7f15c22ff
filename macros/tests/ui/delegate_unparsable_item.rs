// An item the macro cannot parse stays in the crate, with the error: `broken` is still
// found below (no "cannot find value" error), as #[kernel] keeps its item.
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
pub fn broken(call: &mut arenaplan::Call<'_>) -> arenaplan::Result {
    let x = ;
    Ok(())
}

fn main() {
    let _ = broken;
}
