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
//! The [model IR](model) is public: [`Build::program`] plans a program made elsewhere. The
//! stages behind it (import, the backends' blob readers in `backends`, the kernels' preparation in `kernels`, pipeline, verify, emit,
//! output) are documented only with the feature `internals`, for arenaplan's own tools and
//! tests: they change without notice.
#![deny(missing_docs)]

pub use arenaplan_planner::{PlanError, Planner};
pub use arenaplan_syntax::{diagnostic, targets};
pub use build::{Build, BuildError, Generated, Rendered};
pub use emit::{Blobs, Emit, EmitError, Symbols};
pub use output::WriteError;
pub use pipeline::{
    BufferKind, BufferPlan, CallKind, CallPlan, KernelVariants, MissingScratch, ModelPlan, PeakBuffer,
    PipelineError, PoolAssignmentError, PoolOverflow, PoolPlan, ScratchError, ScratchProblem,
    ScratchSite,
};
pub use verify::PlanCheckError;

pub mod model;

pub use kernels::tflite::cmsis_nn;

mod c_writer;

// The pipeline's stages: public for arenaplan's own tools and tests, documented only with the
// feature `internals` (they change without notice). Plain declarations, so rustfmt and the
// dead-code lint see every module.
#[cfg_attr(not(feature = "internals"), doc(hidden))]
pub mod backends;
#[cfg_attr(not(feature = "internals"), doc(hidden))]
pub mod build;
#[cfg_attr(not(feature = "internals"), doc(hidden))]
pub mod emit;
#[cfg_attr(not(feature = "internals"), doc(hidden))]
pub mod import;
#[cfg_attr(not(feature = "internals"), doc(hidden))]
pub mod kernels;
#[cfg_attr(not(feature = "internals"), doc(hidden))]
pub mod names;
#[cfg_attr(not(feature = "internals"), doc(hidden))]
pub mod output;
#[cfg_attr(not(feature = "internals"), doc(hidden))]
pub mod pipeline;
#[cfg_attr(not(feature = "internals"), doc(hidden))]
pub mod report;
#[cfg_attr(not(feature = "internals"), doc(hidden))]
pub mod verify;
