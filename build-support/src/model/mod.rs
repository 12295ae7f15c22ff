//! The model IR: values, instructions and delegates, as every importer produces them. It
//! depends on nothing else of arenaplan's.

mod check;
mod ir;
mod methods;

pub use check::{check, ModelError, MAX_NAME_BYTES};
pub use ir::*;
pub use methods::Method;
