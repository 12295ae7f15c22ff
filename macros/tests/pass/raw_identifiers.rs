// Raw identifiers name functions like any other (the macro once panicked on `r#type`).
mod arenaplan_plan {
    //! Stands in for the module the build script generates.
    pub struct Declarations;
    pub mod backend {
        #[allow(non_snake_case)]
        pub mod Typed {
            pub const SCRATCH: &[usize] = &[64];
        }
    }
    pub mod kernel {
        pub mod relu {
            pub const SCRATCH: &[usize] = &[];
        }
    }
}

#[arenaplan::delegate(backend = "Typed", scratch = [64], mem_id = arenaplan::spec!(npu_scratch))]
pub fn r#type(call: &mut arenaplan::Call<'_>) -> arenaplan::Result {
    call.scratch(0, 64).map(|_| ())
}

#[arenaplan::kernel(op = "relu")]
fn r#match(_call: &mut arenaplan::Call<'_>) -> arenaplan::Result {
    Ok(())
}

fn main() {
    let _ = (r#type, r#match);
}
