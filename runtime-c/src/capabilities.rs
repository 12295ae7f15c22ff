//! What this build of the runtime has: its optional parts, each a Cargo feature, and the vendor
//! sources those were compiled from. A runner prints it (`arenaplan --version`) and names the
//! missing part when it refuses a program.

/// One optional part of the runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capability {
    /// The Cargo feature of the `arenaplan` crate that adds it.
    pub feature: &'static str,
    /// What it is.
    pub what: &'static str,
    /// Whether this build has it.
    pub built_in: bool,
    /// The vendor sources it compiles, with the commit arenaplan is tested against, and the
    /// variable naming their folder at build time; `None` for arenaplan's own code.
    pub sources: Option<&'static str>,
}

/// Every optional part of the runtime, in this build or not.
///
/// ```
/// let tflite = arenaplan::capabilities()
///     .iter()
///     .find(|c| c.feature == "tflite-kernels")
///     .unwrap();
/// assert_eq!(tflite.built_in, arenaplan::tflite_kernels().next().is_some());
/// ```
pub fn capabilities() -> &'static [Capability] {
    const fn on(flag: &str) -> bool {
        matches!(flag.as_bytes(), [b'1'])
    }
    const CAPABILITIES: [Capability; 5] = [
        Capability {
            feature: "tflite-kernels",
            what: "kernels of TFLite's builtin operators",
            built_in: on(env!("ARENAPLAN_HAS_TFLITE_KERNELS")),
            sources: Some(env!("ARENAPLAN_SOURCES_TFLITE_KERNELS")),
        },
        Capability {
            feature: "ethos-u-driver",
            what: "the Ethos-U backend through Arm's driver",
            built_in: on(env!("ARENAPLAN_HAS_ETHOS_U_DRIVER")),
            sources: Some(env!("ARENAPLAN_SOURCES_ETHOS_U_DRIVER")),
        },
        Capability {
            feature: "neutron-api",
            what: "the Neutron backend against NXP's driver API",
            built_in: on(env!("ARENAPLAN_HAS_NEUTRON_API")),
            sources: Some(env!("ARENAPLAN_SOURCES_NEUTRON_API")),
        },
        Capability {
            feature: "simulator",
            what: "the emulated NPUs (always on a hosted target)",
            built_in: on(env!("ARENAPLAN_HAS_SIMULATOR")),
            sources: None,
        },
        Capability {
            feature: "board",
            what: "arenaplan::board, the NPUs' bring-up",
            built_in: on(env!("ARENAPLAN_HAS_BOARD")),
            sources: None,
        },
    ];
    &CAPABILITIES
}
