//! The emulated NPUs a host runner stands in for a board's.

use std::string::{String, ToString};

use arenaplan::sys;
use arenaplan_build::targets::{Catalogue, Target};

/// The backends [`emulated_backends`] returns, for
/// [`Runner::with_kernels`](crate::Runner::with_kernels).
pub type EmulatedBackends = [*const sys::ap_backend; 2];

/// No NPU here: registers the emulated NPUs of `target` of the built-in catalogue (its
/// `npu.config`: the Ethos-U55 or Ethos-U85, computed by the functional model; and Neutron,
/// placeholder outputs) and returns the backends that run on them. A target of another catalogue:
/// [`emulated_backends_for`].
///
/// ```
/// let backends = arenaplan_host::emulated_backends("corstone-300").unwrap();
/// assert_eq!(arenaplan::sim::ethos_u_calls(), 0);
/// assert!(arenaplan_host::emulated_backends("no-such-board").is_err());
/// ```
pub fn emulated_backends(target: &str) -> Result<EmulatedBackends, String> {
    let catalogue = Catalogue::builtin();
    let target = catalogue.target(target).map_err(|e| e.to_string())?;
    emulated_backends_for(target)
}

/// [`emulated_backends`] for a target of any catalogue: the Ethos-U its `npu.config` names
/// (`ethos-u55-256`), the Ethos-U55-128 for a target without an Ethos-U (whose programs have
/// no Ethos-U calls), and Neutron.
pub fn emulated_backends_for(target: &Target) -> Result<EmulatedBackends, String> {
    let npu = match target.npu.as_ref().filter(|n| n.backend == "EthosUBackend") {
        Some(npu) => arenaplan::sim::EthosU::new(&npu.config).ok_or_else(|| {
            format!(
                "target `{}`: no emulated Ethos-U for npu.config `{}` (the emulation has ethos-u55-32/64/128/256 and ethos-u85-128 to -2048)",
                target.name, npu.config
            )
        })?,
        None => arenaplan::sim::EthosU::U55_128,
    };
    arenaplan::sim::ethos_u(npu).map_err(|e| e.to_string())?;
    arenaplan::sim::neutron().map_err(|e| e.to_string())?;
    Ok([
        &raw const sys::ap_ethosu_backend,
        &raw const sys::ap_neutron_backend,
    ])
}
