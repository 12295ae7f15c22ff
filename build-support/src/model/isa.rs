//! A CPU's instruction-set extensions, as kernels tell their variants apart (plain C, the DSP
//! extension, Helium): each variant may need its own scratch.

/// The instruction-set variants a CPU kernel library has code for (CMSIS-NN, for one, has a
/// plain, a DSP and a Helium variant of most kernels): each may need its own scratch.
///
/// ```
/// use arenaplan_build::model::Isa;
/// assert_eq!(Isa::of_cpu("cortex-m55"), Some(Isa::Mve));
/// assert_eq!(Isa::of_cpu("cortex-m33"), Some(Isa::Dsp));
/// assert_eq!(Isa::of_cpu("cortex-m0plus"), Some(Isa::Plain));
/// assert_eq!(Isa::of_cpu("riscv"), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
    /// Plain C: the host, and cores without the DSP extension (Cortex-M0, M0+, M3, M23).
    Plain,
    /// The DSP extension without Helium (Cortex-M4, M7, M33, M35P).
    Dsp,
    /// Helium, the M-profile vector extension (Cortex-M52, M55, M85).
    Mve,
}

impl Isa {
    /// The variant a core runs, by the name a target's `cpu` gives it (`host` for the machine
    /// running the build); `None` for a core arenaplan does not know.
    pub fn of_cpu(cpu: &str) -> Option<Isa> {
        match cpu {
            "host" | "cortex-m0" | "cortex-m0plus" | "cortex-m1" | "cortex-m3" | "cortex-m23" => {
                Some(Isa::Plain)
            }
            "cortex-m4" | "cortex-m7" | "cortex-m33" | "cortex-m35p" => Some(Isa::Dsp),
            "cortex-m52" | "cortex-m55" | "cortex-m85" => Some(Isa::Mve),
            _ => None,
        }
    }

    /// The suffix of CMSIS-NN's buffer-size function for it (`""`, `_dsp`, `_mve`).
    pub fn suffix(self) -> &'static str {
        match self {
            Isa::Plain => "",
            Isa::Dsp => "_dsp",
            Isa::Mve => "_mve",
        }
    }
}

/// A kernel call's scratch in bytes for each [`Isa`], and the library function that says so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScratchByIsa {
    /// Plain C.
    pub plain: u64,
    /// DSP extension.
    pub dsp: u64,
    /// Helium.
    pub mve: u64,
    /// The function computing it, without the variant's suffix (for messages and reports).
    pub function: &'static str,
    /// Whether the runtime's kernel has a variant that needs none (slower): the pipeline runs
    /// it where this scratch would make the arena larger ([`KernelVariants`](crate::pipeline::KernelVariants)).
    pub optional: bool,
}

impl ScratchByIsa {
    /// The bytes for `isa`.
    pub fn bytes(&self, isa: Isa) -> u64 {
        match isa {
            Isa::Plain => self.plain,
            Isa::Dsp => self.dsp,
            Isa::Mve => self.mve,
        }
    }
}
