//! The model IR: values, instructions and delegates, as every importer produces them. It
//! depends on nothing else of arenaplan's.

mod describe;
mod ir;

pub use describe::describe;
pub use ir::*;
