//! NXP eIQ Neutron: the payload a delegate carries (read by [`Neutron`], the build-time plugin)
//! and the NCHW↔NHWC transpositions around a call ([`layout`]).

mod blob;
pub mod layout;

pub use blob::{Neutron, NeutronHeader};
