//! The `build.rs` API: plan the firmware's model at compile time.
//!
//! ```no_run
//! // in build.rs's main:
//! arenaplan_build::Build::new()
//!     .model("model/kws.pte")
//!     .target("corstone-300") // or ARENAPLAN_TARGET
//!     .compile();
//! ```
//!
//! It scans the crate's sources for `#[delegate]` declarations (with the macro's own parser),
//! plans the model for the target, writes the artifacts into `OUT_DIR/arenaplan/` (all of them
//! or none, each file rewritten only when its bytes change), tells the compiler the target and
//! the generated module's path (`cargo:rustc-env`), and asks Cargo to rerun when the model, the
//! targets file, a scanned source or one of its environment variables changes.

mod artifacts;
mod builder;
mod cargo_output;
mod error;
mod exit_status;
mod generated;
mod kernels;
mod scan;

pub use artifacts::{verify_and_emit, Artifacts};
pub use builder::{Build, Rendered};
pub use error::BuildError;
pub use exit_status::{ExitStatus, EXIT_STATUS_TABLE};
pub use generated::Generated;
pub use kernels::{missing_kernels, MissingKernel};
pub use scan::{declarations, rust_files, scan, Declaration, Found};

/// Environment variables the build reads.
pub const ENV_TARGET: &str = "ARENAPLAN_TARGET";
/// Path of a targets catalogue to use instead of the built-in one.
pub const ENV_TARGETS_FILE: &str = "ARENAPLAN_TARGETS_FILE";
