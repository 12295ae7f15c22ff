//! Arm Ethos-U: the Vela bin stream a delegate carries (read by [`EthosU`], the build-time
//! plugin, and written by [`write_bin_stream`]), and Vela's `ethos-u` operator of a TFLite
//! model lowered to such a call (`vela_op`).

mod blob;
pub(crate) mod vela_op;

pub use blob::{stream_regions, write_bin_stream, BinStreamParts, EthosU, IoRecord, VelaBinStream};
