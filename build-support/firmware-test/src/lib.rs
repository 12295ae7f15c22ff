//! A firmware-shaped crate: declarations, the generated plan, and a backend written in Rust.
//! Its declarations are the `arenaplan` crate's front-page example, the same file, so the
//! example the documentation shows is compiled against a real plan.
#![no_std]

include!("../../../runtime-c/src/doc/front_page.rs");

/// The pool the fast scratch is in, per the target.
pub const FAST_POOL: u32 = spec!(fast_scratch);

/// The `Model` example of the runtime's documentation, the same file.
pub mod model_example {
    include!("../../../runtime-c/src/doc/model.rs");
}
