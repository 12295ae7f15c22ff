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

/// Which Ethos-U the emulation is: its product and MACs per cycle, reported in its CONFIG and
/// ID registers (so command streams compiled for another NPU are refused, as on hardware) and
/// modelled by it (the Ethos-U55's SHRAM and weight order follow the MAC count).
///
/// ```
/// use arenaplan::sim::EthosU;
/// assert_eq!(EthosU::new("ethos-u55-256"), Some(EthosU::U55(256)));
/// assert_eq!(EthosU::new("ethos-u55-48"), None);
/// assert_eq!(EthosU::U55_128.config() & 0xF, 7); // macs_per_cc: 2^7
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EthosU {
    /// Ethos-U55 with 32, 64, 128 or 256 MACs per cycle (functional model).
    U55(u32),
    /// Ethos-U85 with 128 to 2048 MACs per cycle (functional model).
    U85(u32),
}

impl EthosU {
    /// Ethos-U55 with 128 MACs (Corstone-300).
    pub const U55_128: EthosU = EthosU::U55(128);
    /// Ethos-U85 with 256 MACs (Corstone-320).
    pub const U85_256: EthosU = EthosU::U85(256);

    /// The NPU a target's `npu.config` names (`ethos-u55-128`, Vela's `--accelerator-config`),
    /// if it is one the emulation has.
    pub fn new(config: &str) -> Option<EthosU> {
        let rest = config.strip_prefix("ethos-u")?;
        let (model, macs) = rest.split_once('-')?;
        let macs: u32 = macs.parse().ok()?;
        let npu = match model {
            "55" => EthosU::U55(macs),
            "85" => EthosU::U85(macs),
            _ => return None,
        };
        npu.valid().then_some(npu)
    }

    fn valid(self) -> bool {
        match self {
            EthosU::U55(m) => matches!(m, 32 | 64 | 128 | 256),
            EthosU::U85(m) => matches!(m, 128 | 256 | 512 | 1024 | 2048),
        }
    }

    /// The CONFIG register: macs_per_cc (log2 of the MACs) in bits 0-3, the command stream
    /// version in 4-7, the SHRAM size in KiB (Ethos-U55) in 8-15, the product in 28-31; as
    /// Vela 5.2.0 writes the word into a stream compiled for this NPU.
    pub fn config(self) -> u32 {
        match self {
            EthosU::U55(m) => {
                let banks = match m {
                    32 | 64 => 16,
                    128 => 24,
                    _ => 48,
                };
                (banks << 8) | m.trailing_zeros()
            }
            EthosU::U85(m) => (2 << 28) | (1 << 8) | (1 << 4) | m.trailing_zeros(),
        }
    }

    /// The ID register (the architecture version Vela 5.2.0 compiles for).
    pub fn id(self) -> u32 {
        match self {
            EthosU::U55(_) => sys::AP_ETHOSU_U55_128_ID,
            EthosU::U85(_) => sys::AP_ETHOSU_U85_256_ID,
        }
    }
}

/// Registers the emulated Ethos-U with the driver (no driver fast memory), replacing an earlier
/// set-up, and clears the records. The emulation is process-wide: callers that run methods
/// concurrently must serialize. `AP_ERR_UNSUPPORTED` for a MAC count the NPU does not come in.
pub fn ethos_u(npu: EthosU) -> Result<(), RuntimeError> {
    if !npu.valid() {
        return Err(RuntimeError(sys::ap_status::AP_ERR_UNSUPPORTED));
    }
    // SAFETY: plain C set-up of the emulation's statics; no pointers are kept.
    check(unsafe { sys::ap_ethosu_host_setup(npu.config(), npu.id(), core::ptr::null(), 0) })
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

/// Why the emulated Ethos-U refused the last job's command stream: the command and what
/// about it (an operation the functional model does not execute, an access outside a region),
/// what a bare `AP_ERR_DRIVER` at the call means.
///
/// ```
/// arenaplan::sim::ethos_u(arenaplan::sim::EthosU::U55_128).unwrap();
/// assert_eq!(arenaplan::sim::ethos_u_fault(), None); // no job refused
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The command's name (`NPU_OP_CONV`, ...), `None` past the stream's end.
    pub command: Option<&'static str>,
    /// Its word offset in the command stream.
    pub word: u32,
    /// What about it.
    pub what: &'static str,
    /// A number `what` refers to (a mode, a size, a region).
    pub detail: u32,
}

/// The fault the last job was refused for, if it was.
pub fn ethos_u_fault() -> Option<Fault> {
    // SAFETY: ap_ethosu_sim_last returns a pointer to the emulation's static record, whose
    // strings are static NUL-terminated C strings or NULL.
    let last = unsafe { &*sys::ap_ethosu_sim_last() };
    if last.status != sys::ap_ethosu_sim_status_AP_ETHOSU_SIM_FAULT || last.fault.is_null() {
        return None;
    }
    let text = |p: *const core::ffi::c_char| -> Option<&'static str> {
        // SAFETY: as above.
        (!p.is_null()).then(|| unsafe { core::ffi::CStr::from_ptr(p) }.to_str().ok())?
    };
    Some(Fault {
        command: text(last.fault_command),
        word: last.fault_word,
        what: text(last.fault).unwrap_or("a fault"),
        detail: last.fault_detail,
    })
}

impl core::fmt::Display for Fault {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.command {
            Some(c) => write!(
                f,
                "the emulated Ethos-U stopped at {c} (command word {}): {} ({})",
                self.word, self.what, self.detail
            ),
            None => write!(
                f,
                "the emulated Ethos-U stopped at command word {}: {}",
                self.word, self.what
            ),
        }
    }
}

/// Delivers a pending interrupt of the emulated Ethos-U (Arm's `ethosu_irq_handler`), as the
/// NPU's IRQ would; whether one was pending. Firmware under QEMU calls it from the PendSV
/// handler the emulated device pends (on the host the driver's wait calls it).
pub fn ethos_u_irq() -> bool {
    // SAFETY: the emulation's interrupt delivery: reads and clears its pending flag and runs
    // the driver's handler, which only touches the driver's own state.
    unsafe { sys::ap_ethosu_host_irq() != 0 }
}

/// The fields of a command stream's optimizer config that Arm's driver found different from
/// the emulated Ethos-U's registers (`ethosu_dev_verify_optimizer_config`), when it refused the
/// last job for them: what a bare `AP_ERR_DRIVER` at the call means.
///
/// ```
/// arenaplan::sim::ethos_u(arenaplan::sim::EthosU::U55_128).unwrap();
/// assert_eq!(arenaplan::sim::ethos_u_config_mismatch(), None); // no job refused
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConfigMismatch {
    /// Which fields differ: `AP_ETHOSU_MISMATCH_*` bits.
    pub fields: u32,
    /// The stream's CONFIG word (as Vela wrote it).
    pub stream_config: u32,
    /// The stream's ID word.
    pub stream_id: u32,
    /// The NPU's CONFIG register.
    pub npu_config: u32,
    /// The NPU's ID register.
    pub npu_id: u32,
}

/// The optimizer-config fields the last job was refused for, if it was.
pub fn ethos_u_config_mismatch() -> Option<ConfigMismatch> {
    // SAFETY: ap_ethosu_sim_last returns a pointer to the emulation's static record.
    let last = unsafe { &*sys::ap_ethosu_sim_last() };
    (last.status == sys::ap_ethosu_sim_status_AP_ETHOSU_SIM_CONFIG_MISMATCH && last.mismatch != 0)
        .then_some(ConfigMismatch {
            fields: last.mismatch,
            stream_config: last.stream_config,
            stream_id: last.stream_id,
            npu_config: last.npu_config,
            npu_id: last.npu_id,
        })
}

impl core::fmt::Display for ConfigMismatch {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let product = |c: u32| match c >> 28 {
            0 => "Ethos-U55",
            1 => "Ethos-U65",
            2 => "Ethos-U85",
            _ => "an unknown Ethos-U",
        };
        let arch = |id: u32| (id >> 28, (id >> 20) & 0xFF, (id >> 16) & 0xF);
        let (s, n) = (self.stream_config, self.npu_config);
        write!(
            f,
            "the command stream's optimizer config is not this NPU's ({} with {} MACs per cycle):",
            product(n),
            1u32 << (n & 0xF)
        )?;
        let (a, b) = (arch(self.stream_id), arch(self.npu_id));
        let mut sep = " ";
        for bit in [
            sys::AP_ETHOSU_MISMATCH_PRODUCT,
            sys::AP_ETHOSU_MISMATCH_MACS_PER_CC,
            sys::AP_ETHOSU_MISMATCH_CMD_STREAM_VERSION,
            sys::AP_ETHOSU_MISMATCH_CUSTOM_DMA,
            sys::AP_ETHOSU_MISMATCH_ARCH,
        ] {
            if self.fields & bit == 0 {
                continue;
            }
            f.write_str(sep)?;
            sep = "; ";
            match bit {
                sys::AP_ETHOSU_MISMATCH_PRODUCT => write!(
                    f,
                    "product {} (the stream's, {}) against {} ({})",
                    s >> 28,
                    product(s),
                    n >> 28,
                    product(n)
                )?,
                sys::AP_ETHOSU_MISMATCH_MACS_PER_CC => write!(
                    f,
                    "macs_per_cc {} ({} MACs) against {} ({})",
                    s & 0xF,
                    1u32 << (s & 0xF),
                    n & 0xF,
                    1u32 << (n & 0xF)
                )?,
                sys::AP_ETHOSU_MISMATCH_CMD_STREAM_VERSION => write!(
                    f,
                    "cmd_stream_version {} against {}",
                    (s >> 4) & 0xF,
                    (n >> 4) & 0xF
                )?,
                sys::AP_ETHOSU_MISMATCH_CUSTOM_DMA => {
                    f.write_str("custom_dma used by the stream, absent from the NPU")?
                }
                _ => write!(
                    f,
                    "architecture {}.{}.{} against {}.{}.{} (the major version must be the NPU's, the minor at most its)",
                    a.0, a.1, a.2, b.0, b.1, b.2
                )?,
            }
        }
        write!(
            f,
            ". Compile the model with Vela for this NPU (--accelerator-config)"
        )
    }
}
