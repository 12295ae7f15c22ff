//! Static memory planning: give every buffer of a pool an offset so that buffers alive at
//! the same time never share memory, using as few bytes as possible.
//!
//! The pipeline for one pool: [`lower_bound`] → constructive placement (largest first, best
//! fit) → exact search where it can still help, bounded by a step budget → the independent
//! checker in [`crate::verify`]. See the crate README for the algorithm and its measurements.
//!
//! ```
//! use arenaplan_build::plan::{Buffer, Planner, Problem};
//! let problem = Problem::new(vec![
//!     Buffer::new(1024, 0, 2), // alive during instructions 0 and 1
//!     Buffer::new(512, 1, 3),
//!     Buffer::new(1024, 2, 4), // can reuse the first buffer's memory
//! ])
//! .with_alignment(16);
//! let plan = Planner::new().plan(&problem)?;
//! assert_eq!(plan.arena, 1536);
//! assert_eq!(plan.arena, plan.lower_bound);
//! # Ok::<(), arenaplan_build::plan::PlanError>(())
//! ```

mod bound;
mod components;
mod construct;
mod item;
mod planner;
mod problem;
mod search;

pub use bound::lower_bound;
pub use planner::{Goal, Plan, PlanError, Planner, DEFAULT_STEP_BUDGET};
pub use problem::{Buffer, Problem, ProblemError, MAX_BYTES};
