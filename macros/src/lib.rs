//! `#[delegate(...)]` and `spec!(...)`: a delegate backend's scratch declaration, checked
//! against the selected target while the firmware compiles.
//!
//! The macros learn the target from `ARENAPLAN_TARGET` and the catalogue from
//! `ARENAPLAN_TARGETS_FILE` (else the built-in one), which arenaplan's build script API sets
//! with `cargo:rustc-env`. They cannot see the plan, so they emit `const` assertions against the
//! constants the build script generated: a stale plan or an edited declaration is a compile
//! error. Use them through the `arenaplan` crate.
//!
//! Phases, one module each: `target` (which target), `arenaplan_syntax::delegate` (parse and
//! check, shared with the build script), `expand` (code generation).

mod expand;
mod target;

use proc_macro::TokenStream;

/// Declares the scratch memory of a delegate backend.
///
/// On a unit struct it binds a backend written in C; on a function
/// `fn(&mut arenaplan::Call<'_>) -> arenaplan::Result` it declares a backend written in Rust.
///
/// ```ignore
/// #[arenaplan::delegate(backend = "EthosUBackend", scratch = blob, mem_id = spec!(npu_scratch))]
/// pub struct EthosU;
/// ```
#[proc_macro_attribute]
pub fn delegate(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::delegate(args.into(), item.into()).into()
}

/// Registers a CPU kernel written in Rust under its operator name: the runtime runs it for the
/// program's kernel calls of that op (the build's tables name `ap_kernel_<op>`; a kernel the
/// program needs and nobody registers is a link error). Same signature as a Rust backend:
/// `fn(&mut arenaplan::Call<'_>) -> arenaplan::Result`, the call's inputs then outputs.
///
/// ```ignore
/// #[arenaplan::kernel(op = "relu")]
/// fn relu(call: &mut arenaplan::Call<'_>) -> arenaplan::Result { /* ... */ Ok(()) }
/// ```
#[proc_macro_attribute]
pub fn kernel(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::kernel(args.into(), item.into()).into()
}

/// The `mem_id` of a compile spec of the selected target, as a `u32` constant.
///
/// ```ignore
/// const SCRATCH_POOL: u32 = arenaplan::spec!(npu_scratch);
/// ```
#[proc_macro]
pub fn spec(input: TokenStream) -> TokenStream {
    expand::spec(input.into()).into()
}
