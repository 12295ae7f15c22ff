//! The model IR: values, instructions and delegates, as every importer produces them. It
//! depends on nothing else of arenaplan's.

mod check;
mod delegate;
mod instruction;
mod isa;
mod methods;
mod program;
mod value;

pub use check::{check, ModelError, MAX_NAME_BYTES};
pub use delegate::*;
pub use instruction::*;
pub use isa::*;
pub use methods::Method;
pub use program::*;
pub use value::*;
