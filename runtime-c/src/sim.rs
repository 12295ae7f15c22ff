//! Setting up the emulated NPUs (on a hosted target, and in firmware with the feature
//! `simulator`): the host and QEMU have no NPU, so a program registers the emulated one with
//! the driver before running a method, as firmware calls `ethosu_init` / `neutronInit` on a
//! board.
//!
//! ```
//! arenaplan::sim::ethos_u(arenaplan::sim::EthosU::U55_128).unwrap();
//! arenaplan::sim::neutron().unwrap();
//! ```

use crate::{check, sys, RuntimeError};

/// Which Ethos-U the emulation reports being (its CONFIG and ID registers): command streams
/// compiled for another NPU are refused, as on hardware.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EthosU {
    /// Ethos-U55 with 128 MACs (Corstone-300).
    U55_128,
    /// Ethos-U85 with 256 MACs (Corstone-320).
    U85_256,
}

/// Registers the emulated Ethos-U with the driver (no driver fast memory), replacing an earlier
/// set-up, and clears the records. The emulation is process-wide: callers that run methods
/// concurrently must serialize.
pub fn ethos_u(npu: EthosU) -> Result<(), RuntimeError> {
    let (config, id) = match npu {
        EthosU::U55_128 => (sys::AP_ETHOSU_U55_128_CONFIG, sys::AP_ETHOSU_U55_128_ID),
        EthosU::U85_256 => (sys::AP_ETHOSU_U85_256_CONFIG, sys::AP_ETHOSU_U85_256_ID),
    };
    // SAFETY: plain C set-up of the emulation's statics; no pointers are kept.
    check(unsafe { sys::ap_ethosu_host_setup(config, id, core::ptr::null(), 0) })
}

/// Calls `neutronInit` on the Neutron simulator and clears its records.
pub fn neutron() -> Result<(), RuntimeError> {
    // SAFETY: as above.
    check(unsafe { sys::ap_neutron_host_setup() })
}

/// How many Ethos-U jobs the emulated NPU ran since [`ethos_u`] set it up.
pub fn ethos_u_calls() -> u32 {
    // SAFETY: reads a counter of the emulation.
    unsafe { sys::ap_ethosu_sim_calls() }
}

/// How many Neutron jobs the simulator ran since [`neutron`] set it up.
pub fn neutron_calls() -> u32 {
    // SAFETY: as above.
    unsafe { sys::ap_neutron_sim_calls() }
}

/// Delivers a pending interrupt of the emulated Ethos-U (Arm's `ethosu_irq_handler`), as the
/// NPU's IRQ would; whether one was pending. Firmware under QEMU calls it from the PendSV
/// handler the emulated device pends (on the host the driver's wait calls it).
pub fn ethos_u_irq() -> bool {
    // SAFETY: the emulation's interrupt delivery: reads and clears its pending flag and runs
    // the driver's handler, which only touches the driver's own state.
    unsafe { sys::ap_ethosu_host_irq() != 0 }
}
