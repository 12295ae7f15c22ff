//! The human-readable outputs: a model's listing (`arenaplan inspect`), and from a verified
//! plan the text report (`NAME.report.txt`, also what `arenaplan inspect --target` prints) and
//! the memory map (`NAME.svg`).

mod describe;
mod roles;
mod svg;
mod tables;
mod text;

pub use describe::describe;
pub use svg::{human_bytes, memory_map};
// These take the firmware's declarations, a stage's type: public with `internals` only.
#[cfg(feature = "internals")]
pub use tables::{table_sizes, TableSizes, ILP32_SIZES};
#[cfg(feature = "internals")]
pub use text::report;
#[cfg(not(feature = "internals"))]
pub(crate) use {
    tables::{table_sizes, ILP32_SIZES},
    text::report,
};
