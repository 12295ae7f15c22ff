//! Running a plan made on the host (`arenaplan_build`) on the C runtime (`arenaplan`), without
//! generated C: the runtime's tables built from a [`ModelPlan`](arenaplan_build::ModelPlan), for demos, tests and tools.
//! Firmware uses the generated `NAME_program.c` instead. A crate of its own so that the
//! runtime crate firmware links never depends on the build crate.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = std::env::temp_dir().join(format!("arenaplan-host-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let model = dir.join("m.toml");
//! std::fs::write(&model, r#"
//!     name = "m"
//!     inputs = ["x"]
//!     outputs = ["y"]
//!     [[tensor]]
//!     name = "x"
//!     dtype = "int8"
//!     shape = [64]
//!     [[tensor]]
//!     name = "y"
//!     dtype = "int8"
//!     shape = [64]
//!     [[delegate]]
//!     name = "npu"
//!     backend = "EthosUBackend"
//!     scratch = [ { size = 256, pool = "npu_scratch" } ]
//!     [[instruction]]
//!     kind = "delegate"
//!     delegate = "npu"
//!     inputs = ["x"]
//!     outputs = ["y"]
//! "#)?;
//! let rendered = arenaplan_build::Build::new()
//!     .model(&model)
//!     .target("corstone-300")
//!     .sources(Vec::<std::path::PathBuf>::new())
//!     .try_render()?;
//! // The runtime's tables for the plan: one delegate call, its scratch after its I/O.
//! let tables = arenaplan_host::Tables::new(&rendered.program, &rendered.plan)
//!     .expect("delegate calls only");
//! # let _ = tables;
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

mod arenas;
mod emulated;
mod executorch;
mod failure;
mod kernels;
mod methods;
mod runnable;
mod runner;
mod tables;

pub use arenas::Arenas;
pub use emulated::{emulated_backends, emulated_backends_for, EmulatedBackends};
pub use executorch::{
    executorch_library, sources as executorch_sources, ExecuTorchKernels, ENV_KERNEL_CACHE,
};
pub use failure::failure_text;
pub use kernels::{kernels, ProgramKernels};
pub use methods::method_tables;
pub use runnable::why_not_runnable;
pub use runner::Runner;
pub use tables::Tables;
