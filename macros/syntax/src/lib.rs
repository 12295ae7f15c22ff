//! What arenaplan's proc macro and its build script must agree on: the grammar of
//! `#[delegate(...)]` and its validation ([`delegate`]), and the target catalogue
//! ([`targets`]) that says which compile specs and pools exist. One parser, two users, as
//! cxx shares its syntax module between its macro and its build crate.
//!
//! ```
//! let catalogue = arenaplan_syntax::targets::Catalogue::builtin();
//! assert!(catalogue.target("corstone-300").is_ok());
//! ```
#![deny(missing_docs)]

pub mod delegate;
pub mod diagnostic;
pub mod digest;
pub mod input;
pub mod kernels;
pub mod names;
pub mod targets;
