//! The emulated NPUs a host runner stands in for a board's.

use arenaplan::{sys, RuntimeError};

/// No NPU here: registers the emulated NPUs `target`'s programs were compiled for (the
/// Ethos-U85-256 on corstone-320, the Ethos-U55-128 elsewhere, and Neutron) and returns the
/// backends that run on them, for [`Runner::with_kernels`](crate::Runner::with_kernels).
pub fn emulated_backends(target: &str) -> Result<[*const sys::ap_backend; 2], RuntimeError> {
    let npu = if target == "corstone-320" {
        arenaplan::sim::EthosU::U85_256
    } else {
        arenaplan::sim::EthosU::U55_128
    };
    arenaplan::sim::ethos_u(npu)?;
    arenaplan::sim::neutron()?;
    Ok([
        &raw const sys::ap_ethosu_backend,
        &raw const sys::ap_neutron_backend,
    ])
}
