//! Static memory planning: give every buffer of a pool an offset so that buffers alive at
//! the same time never share memory, using as few bytes as possible.
//!
//! The pipeline for one pool: [`lower_bound`] → constructive placement (largest first, best
//! fit) → exact search where it can still help, bounded by a step budget → the independent
//! checker in [`verify`]. See the crate README for the algorithm and its measurements.
//!
//! This crate knows no model format, target file or build system: a [`Problem`] is sizes,
//! half-open lifetimes and an alignment, so any runtime can plan with it. It also holds the
//! lifetime-CSV format of MiniMalloc and idealloc ([`lifetime_csv`]), the baselines the
//! benchmark compares against ([`baseline`]) and that benchmark (`cargo bench -p
//! arenaplan-planner`).
//!
//! ```
//! use arenaplan_planner::{Buffer, Planner, Problem};
//! let problem = Problem::new(vec![
//!     Buffer::new(1024, 0, 2), // alive during instructions 0 and 1
//!     Buffer::new(512, 1, 3),
//!     Buffer::new(1024, 2, 4), // can reuse the first buffer's memory
//! ])
//! .with_alignment(16);
//! let plan = Planner::new().plan(&problem)?;
//! assert_eq!(plan.arena, 1536);
//! assert_eq!(plan.arena, plan.lower_bound);
//! # Ok::<(), arenaplan_planner::PlanError>(())
//! ```

#![deny(missing_docs)]

mod bound;
mod components;
mod construct;
mod ended;
mod item;
mod placed;
mod planner;
mod problem;
mod rigid;
mod search;
mod squeaky;

pub mod baseline;
#[cfg(feature = "lifetime-csv")]
pub mod lifetime_csv;
pub mod verify;

pub use bound::{end_lower_bound, lower_bound};
pub use ended::{Ended, Patience, DEFAULT_PATIENCE_PER_BUFFER};
pub use planner::{Goal, Phase, Plan, PlanError, Planner, Progress, DEFAULT_STEP_BUDGET};
pub use problem::{Buffer, Inside, Problem, ProblemError, MAX_BYTES};
