//! The model IR: values, instructions and delegates, as every importer produces them. It
//! depends on nothing else of arenaplan's.

mod ir;
mod methods;

pub use ir::*;
pub use methods::Method;
