//! arenaplan's build-time library: plans the memory of a neural-network model for a
//! microcontroller when the firmware is compiled.
//!
//! This crate holds the planner ([`plan`]), its independent checker ([`verify`]), the
//! lifetime-CSV format used by planner benchmarks ([`lifetime_csv`]) and the comparison
//! baselines ([`baseline`]). The `arenaplan` command-line tool is built from it.
//!
//! ```
//! use arenaplan_build::plan::{Buffer, Planner, Problem};
//! let problem = Problem::new(vec![Buffer::new(64, 0, 1), Buffer::new(64, 1, 2)]);
//! assert_eq!(Planner::new().plan(&problem)?.arena, 64);
//! # Ok::<(), arenaplan_build::plan::PlanError>(())
//! ```
#![deny(missing_docs)]

pub use arenaplan_syntax::{diagnostic, targets};
pub use build::{Build, BuildError, Generated};

pub mod backends;
pub mod baseline;
pub mod build;
pub mod emit;
pub mod import;
pub mod lifetime_csv;
pub mod model;
pub mod names;
pub mod output;
pub mod pipeline;
pub mod plan;
pub mod verify;
