//! Delegates (a backend id, its blob and compile specs), their scratch declarations, the pool
//! a buffer asks for, and where a scratch buffer came from.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use super::Program;

/// Index into [`Program::delegates`].
pub type DelegateId = usize;

/// Whose call a scratch buffer belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScratchOwner {
    /// A delegate's call (its backend declared or its blob asked for the buffer).
    Delegate(DelegateId),
    /// A CPU kernel's call: the operator, whose `#[kernel]` declared the buffer.
    Kernel(String),
}

impl ScratchOwner {
    /// The delegate's name in `program`, or the kernel's operator.
    pub fn name<'a>(&'a self, program: &'a Program) -> &'a str {
        match self {
            ScratchOwner::Delegate(d) => program.delegates.get(*d).map_or("", |d| d.name.as_str()),
            ScratchOwner::Kernel(op) => op,
        }
    }
}

/// A pool named the way a model or a declaration names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PoolChoice {
    /// Through a compile spec of the target (the normal way).
    Spec(String),
    /// By raw `mem_id` (models imported from programs that carry one).
    MemId(i64),
}

impl fmt::Display for PoolChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PoolChoice::Spec(s) => write!(f, "spec `{s}`"),
            PoolChoice::MemId(id) => write!(f, "mem_id {id}"),
        }
    }
}

/// A delegated partition: a backend, its compiled blob and its compile specs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delegate {
    /// Its name in the program.
    pub name: String,
    /// The backend id, e.g. `EthosUBackend`.
    pub backend: String,
    /// The compiled partition, if the model carries one.
    pub blob: Option<Vec<u8>>,
    /// Compile specs as key → value.
    pub compile_specs: BTreeMap<String, String>,
    /// The scratch buffers each call of it needs, in argument order.
    pub scratch: Vec<ScratchSpec>,
}

/// One scratch buffer a delegate declares: size and pool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScratchSpec {
    /// Size in bytes as declared (validated to be positive before planning).
    pub size: i64,
    /// The pool, normally through a compile spec.
    pub pool: PoolChoice,
    /// A name for reports and generated `#define`s.
    pub label: Option<String>,
    /// Where it was declared, for error messages.
    pub origin: Origin,
    /// The backend role it fills, when it comes from a compiled blob or model: the role, not
    /// the declaration order, decides its argument slot (`None`: declaration order).
    pub role: Option<ScratchRole>,
}

/// Where a declaration came from.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Origin {
    /// Nowhere in particular (built in code).
    #[default]
    Unknown,
    /// A line of a file.
    File {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// Read from the delegate's compiled blob by a backend plugin.
    Blob {
        /// The backend plugin.
        backend: String,
    },
    /// Taken from the model's own tensors (a Vela model's scratch tensors).
    ModelTensor {
        /// The tensor's name.
        tensor: String,
    },
    /// Computed by a kernel library's buffer-size function from the model's shapes.
    KernelLibrary {
        /// The function, with its variant's suffix (`arm_convolve_wrapper_s8_get_buffer_size_mve`).
        function: String,
    },
    /// Taken from the target's configuration.
    Target {
        /// The target.
        target: String,
        /// The setting.
        setting: String,
    },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Unknown => f.write_str("(no location)"),
            Origin::File { path, line, column } => write!(f, "{}:{line}:{column}", path.display()),
            Origin::Blob { backend } => write!(f, "the {backend} blob"),
            Origin::ModelTensor { tensor } => write!(f, "tensor `{tensor}` of the model"),
            Origin::KernelLibrary { function } => write!(f, "CMSIS-NN's `{function}`"),
            Origin::Target { target, setting } => write!(f, "target `{target}` ({setting})"),
        }
    }
}

/// One scratch buffer a backend's blob can ask for, by what it is for. Which argument slot,
/// compile spec and label each role has is the backends' knowledge (`backends::slots`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ScratchRole {
    /// Ethos-U region 1: Vela's scratch (feature maps; in Shared_Sram also the fast scratch
    /// and the copies of the call's inputs and outputs). Size: the bin stream's `scratch_size`.
    EthosUScratch,
    /// Ethos-U region 2: the fast scratch of Dedicated_Sram (Vela's arena cache). Not in the
    /// bin stream: from a declaration or the target's `npu.fast_scratch`.
    EthosUFastScratch,
    /// Neutron scratch (microcode word 9).
    NeutronScratch,
    /// Neutron SRAM scratch, for prefetched weights (word 10 in version 0, 12 in version 1).
    NeutronSramScratch,
    /// Neutron profiling buffer (version 1: word 10, low 31 bits).
    NeutronProfile,
    /// Neutron debug buffer (version 1: word 11).
    NeutronDebug,
    /// Where the runtime transposes the Neutron inputs and outputs the payload asks to see
    /// channels-last (NHWC) while the program holds them NCHW: one buffer per call, each
    /// tensor at its offset in the call's descriptor. Sized from the call's tensors.
    NeutronTranspose,
}
