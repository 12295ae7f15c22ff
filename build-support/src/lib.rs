//! arenaplan's build-time library: plans the memory of a neural-network model for a
//! microcontroller when the firmware is compiled.
//!
//! [`Build`] is the one entry point, for `build.rs` scripts and the `arenaplan` command alike:
//! it reads the model and the target, scans the crate for `#[delegate]` declarations, plans
//! every pool with the `arenaplan-planner` crate, verifies the whole plan against the program
//! and the target, and writes the generated Rust, C and linker scripts.
//!
//! ```no_run
//! // build.rs of a firmware crate (the README's whole crate is built by CI as it stands)
//! let generated = arenaplan_build::Build::new()
//!     .model("model/kws.pte")
//!     .target("corstone-300")
//!     .name("model")
//!     .compile();
//! generated.cc_build().compile("model_tables"); // the model's tables and C API
//! generated.link_cortex_m_rt("memory.x").expect("memory.x"); // on the board only
//! ```
//!
//! [`Build::try_render`] runs every stage without writing, for tools and tests:
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = std::env::temp_dir().join(format!("arenaplan-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let model = dir.join("kws.toml");
//! std::fs::write(&model, r#"
//!     name = "kws"
//!     inputs = ["x"]
//!     outputs = ["y"]
//!     [[tensor]]
//!     name = "x"
//!     dtype = "int8"
//!     shape = [1024]
//!     [[tensor]]
//!     name = "y"
//!     dtype = "int8"
//!     shape = [1024]
//!     [[delegate]]
//!     name = "npu"
//!     backend = "EthosUBackend"
//!     scratch = [ { size = 1536, pool = "npu_scratch" } ]
//!     [[instruction]]
//!     kind = "delegate"
//!     delegate = "npu"
//!     inputs = ["x"]
//!     outputs = ["y"]
//! "#)?;
//! let rendered = arenaplan_build::Build::new()
//!     .model(&model)
//!     .target("corstone-300")
//!     .sources(Vec::<std::path::PathBuf>::new()) // no firmware sources to scan here
//!     .try_render()?;
//! // Input, output and the call's scratch share one 2 MiB SRAM arena, 32-byte lines.
//! assert_eq!(rendered.plan.pools[0].size, 1024 + 1024 + 1536);
//! assert!(rendered.files.iter().any(|(name, _)| name == "kws.h"));
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(())
//! # }
//! ```
//!
//! Public besides [`Build`] and what it returns: the [model IR](model), so [`Build::program`]
//! plans a program made elsewhere; the importers that make it from a file ([`import`]); the
//! writers that publish output files whole or not at all ([`output`]); the plan's description
//! ([`report`]); the rule that displays untrusted text safely ([`names`]); the runtime's tables
//! for a plan as plain data ([`tables`], what generated C and the host runner both render); the
//! CMSIS-NN scratch sizes ([`cmsis_nn`]). The stages behind the build (the backends' blob readers, the kernels'
//! preparation, pipeline, verify, emit) are private; the feature `internals` makes them public
//! for arenaplan's own tests and benches, with no stability promise. No published crate
//! enables it.
#![deny(missing_docs)]

pub use arenaplan_planner::{PlanError, Planner};
pub use arenaplan_syntax::{diagnostic, targets};
pub use backends::BlobError;
pub use build::{
    Build, BuildError, ExitStatus, Generated, MissingKernel, Rendered, EXIT_STATUS_TABLE,
};
pub use emit::{Blobs, Emit, EmitError, Symbols};
pub use output::WriteError;
pub use pipeline::{
    ArgumentNeedsError, BranchError, BufferKind, BufferPlan, CallKind, CallPlan, IoSizeError,
    KernelVariants, MissingScratch, ModelPlan, NpuMismatchError, PeakBuffer, PipelineError,
    PoolAssignmentError, PoolOverflow, PoolPlan, ScratchError, ScratchProblem, ScratchSite,
    ValueMetas,
};
pub use verify::PlanCheckError;

pub mod model;

pub use emit::tables;
pub use kernels::executorch;
pub use kernels::tflite::cmsis_nn;

mod c_writer;

pub mod import;
pub mod names;
pub mod output;
pub mod report;

// The pipeline's stages: private, or public with the feature `internals` (arenaplan's own tests
// and benches; they change without notice). Plain declarations, one per configuration, so
// rustfmt sees every module.
#[cfg(feature = "internals")]
pub mod backends;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
mod backends;
#[cfg(feature = "internals")]
pub mod build;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
mod build;
#[cfg(feature = "internals")]
pub mod emit;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
mod emit;
#[cfg(feature = "internals")]
pub mod kernels;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
mod kernels;
#[cfg(feature = "internals")]
pub mod pipeline;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
mod pipeline;
#[cfg(feature = "internals")]
pub mod verify;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
mod verify;
