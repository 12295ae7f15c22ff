//! Backend blob plugins: given a delegate's compiled blob and compile specs, each says how
//! many inputs and outputs the blob takes and which scratch buffers it needs.
//!
//! ```
//! use arenaplan_build::backends::plugin_for;
//! assert!(plugin_for("EthosUBackend").is_some());
//! assert!(plugin_for("MyRustBackend").is_none()); // scratch comes from a declaration
//! ```

pub mod ethos_u;
pub mod neutron;
pub mod slots;

use std::collections::BTreeMap;

use thiserror::Error;

use crate::model::{Delegate, Origin, PoolChoice, ScratchSpec, Value};
use crate::targets::Target;

pub use ethos_u::{write_bin_stream, BinStreamParts, EthosU, IoRecord, VelaBinStream};
pub use neutron::{Neutron, NeutronHeader};
pub use slots::ScratchRole;

/// What a plugin learned from a blob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlobInfo {
    /// Inputs the compiled partition takes.
    pub inputs: usize,
    /// Outputs it produces.
    pub outputs: usize,
    /// Every scratch role the blob defines, in slot order, with its size (0: not needed).
    /// A call's arguments carry the roles up to the last one with a size (see [`slots`]).
    pub scratch: Vec<BlobScratch>,
    /// Other facts worth showing (`inspect`), as name → value.
    pub facts: Vec<(String, String)>,
}

/// What a call needs from its arguments' tensors ([`BackendPlugin::argument_needs`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArgumentNeeds {
    /// Scratch beyond the blob's.
    pub scratch: Vec<BlobScratch>,
    /// Compile specs the generated program adds for the C backend, as key → value.
    pub specs: Vec<(String, String)>,
}

/// Where one input or output of a call sits inside the call's scratch when the NPU reads or
/// writes it there itself ([`BackendPlugin::io_slots`]): the backend then copies nothing for a
/// tensor planned at its slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoSlot {
    /// An input (else an output).
    pub input: bool,
    /// Its position among the call's inputs (or outputs).
    pub index: usize,
    /// The scratch it is inside.
    pub role: ScratchRole,
    /// Its offset there.
    pub offset: u64,
    /// The bytes the NPU reads or writes there: a tensor of another size (an output whose
    /// rows the NPU pads) is copied, never placed at the slot.
    pub bytes: u64,
    /// An output that is state the NPU updates in place (reads its old value there): the
    /// state may live at the slot for good when no other call uses it.
    pub state_in_place: bool,
}

/// A slot of one delegate call, resolved to the call's values ([`call_slots`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallSlot {
    /// The call's flat instruction index.
    pub call: usize,
    /// The slot, as the blob gives it.
    pub slot: IoSlot,
    /// The input or output the slot is for.
    pub tensor: usize,
    /// The call's scratch of the slot's role, which the slot is inside.
    pub scratch: usize,
}

/// Every slot of every delegate call of `program` (as planned: scratch inserted) whose backend
/// gives slots ([`BackendPlugin::io_slots`]), in call order, with the tensor and the scratch it
/// names: the one reading of slots that the pipeline (which places tensors there) and the
/// verify stage (which finds them there by address) share.
pub fn call_slots(program: &crate::model::Program) -> Vec<CallSlot> {
    use crate::model::{Instruction, ValueKind};
    let mut found = Vec::new();
    for (c, instruction) in program.flat_instructions() {
        let Instruction::Delegate(call) = instruction else {
            continue;
        };
        let delegate = &program.delegates[call.delegate];
        let (Some(plugin), Some(blob)) = (plugin_for(&delegate.backend), &delegate.blob) else {
            continue;
        };
        for slot in plugin.io_slots(blob) {
            // The planted bug of the mutation test: every slot taken at its scratch's start.
            #[cfg(arenaplan_mutant = "call_slots")]
            let slot = IoSlot { offset: 0, ..slot };
            let side = if slot.input {
                &call.inputs
            } else {
                &call.outputs
            };
            let scratch = call.scratch.iter().copied().find(|&s| {
                matches!(program.values[s].kind, ValueKind::Scratch { role: Some(r), .. } if r == slot.role)
            });
            if let (Some(&tensor), Some(scratch)) = (side.get(slot.index), scratch) {
                found.push(CallSlot {
                    call: c,
                    slot,
                    tensor,
                    scratch,
                });
            }
        }
    }
    found
}

/// One scratch role of a blob and the bytes it needs there. The role, not the position in
/// [`BlobInfo::scratch`], decides which argument slot the buffer gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlobScratch {
    /// What the buffer is for (and so its slot, default pool and label).
    pub role: ScratchRole,
    /// Bytes (0: the blob does not need it).
    pub size: u64,
}

impl BlobScratch {
    /// The declaration a backend plugin's reading of a blob makes: size and role from the
    /// blob, pool through the role's compile spec. A size of 0 is kept: the role's slot may
    /// still be needed as an empty argument.
    ///
    /// ```
    /// use arenaplan_build::backends::{BlobScratch, ScratchRole};
    /// let s = BlobScratch { role: ScratchRole::NeutronProfile, size: 64 }.to_spec("NeutronBackend");
    /// assert_eq!((s.size, s.label.as_deref()), (64, Some("profile")));
    /// ```
    pub fn to_spec(self, backend: &str) -> ScratchSpec {
        ScratchSpec {
            size: i64::try_from(self.size).unwrap_or(i64::MAX),
            pool: PoolChoice::Spec(self.spec().into()),
            label: Some(self.label().into()),
            origin: Origin::Blob {
                backend: backend.into(),
            },
            role: Some(self.role),
        }
    }

    /// Its slot among the call's scratch arguments.
    pub fn slot(&self) -> usize {
        self.role.slot()
    }

    /// The compile spec naming its pool (`npu_scratch`, `fast_scratch`).
    pub fn spec(&self) -> &'static str {
        self.role.spec()
    }

    /// Its name in reports.
    pub fn label(&self) -> &'static str {
        self.role.label()
    }
}

/// A blob that is not what its backend expects.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{backend} blob, at byte {offset:#x}: {problem}")]
pub struct BlobError {
    /// The backend.
    pub backend: &'static str,
    /// Where in the blob.
    pub offset: usize,
    /// What was expected there.
    pub problem: String,
}

/// Reads one backend's blobs.
pub trait BackendPlugin: Sync {
    /// The backend id it handles, e.g. `EthosUBackend`.
    fn backend(&self) -> &'static str;
    /// The C symbol of the runtime's backend for this id (an `ap_backend_t`).
    fn c_symbol(&self) -> &'static str;

    /// The handle its C backend keeps per delegate: the C constant a generated program sizes
    /// the handle by, the header defining it, and its bytes on a 32-bit target.
    fn handle(&self) -> HandleStorage;
    /// Whether the NPU itself reads the call's inputs and writes its outputs where they are
    /// planned (Neutron), rather than the backend copying them with the CPU (Ethos-U copies
    /// them into its scratch). Such tensors get the same cache-line care as scratch.
    fn npu_reads_io(&self) -> bool;
    /// Whether the backend's C code copies the call's inputs and outputs through its scratch
    /// of `role` with the CPU (Ethos-U: region 1). Such a scratch, like the inputs and outputs
    /// of a backend whose NPU does not read them in place, must be in a pool the CPU can
    /// reach. Default: no.
    fn cpu_copies_through(&self, _role: ScratchRole) -> bool {
        false
    }
    /// Where each input and output of the blob sits in the call's scratch, when the backend
    /// lets a tensor live there: the NPU then reads or writes it in place and the backend
    /// copies nothing (Ethos-U: each record's place in region 1, Vela's own plan). The build
    /// places a tensor at its slot when its lifetime allows; the backend tells a tensor at its
    /// slot by its address. Default: none.
    fn io_slots(&self, _blob: &[u8]) -> Vec<IoSlot> {
        Vec::new()
    }
    /// Checks a call's input and output tensors (their bytes, in order) against what the blob
    /// expects, as the C backend checks them at each call: refused at build time rather than
    /// on the board. Default: nothing to check.
    fn check_io(&self, _blob: &[u8], _inputs: &[u64], _outputs: &[u64]) -> Result<(), String> {
        Ok(())
    }
    /// Checks the blob and the delegate's compile specs against the target's NPU (the NPU it
    /// was compiled for), as the driver checks it before the first job on the board, or where
    /// the driver cannot tell, as the exporter recorded it. Default: nothing to check.
    fn check_target(
        &self,
        _blob: &[u8],
        _compile_specs: &BTreeMap<String, String>,
        _target: &Target,
    ) -> Result<(), String> {
        Ok(())
    }
    /// Compile specs the C backend reads from the target (Neutron: the bytes of the model
    /// context each delegate keeps in its handle, `npu.model_context`). Default: none.
    fn target_specs(&self, _target: &Target) -> Vec<(String, String)> {
        Vec::new()
    }
    /// A delegate's handle when its compile specs make it larger than [`BackendPlugin::handle`]
    /// (Neutron's model context after its state): the C size expression and its bytes on a
    /// 32-bit target. Default: none.
    fn handle_with_specs(&self, _specs: &BTreeMap<String, String>) -> Option<(String, u64)> {
        None
    }
    /// What a call needs beyond the sizes its blob gives, worked out from its argument tensors
    /// (`inputs`, `outputs`, in argument order): scratch, and compile specs the C backend reads
    /// (Neutron: the transpositions its payload asks for). `Err` says which tensor the backend
    /// cannot hand to its NPU. Default: nothing.
    fn argument_needs(
        &self,
        _blob: &[u8],
        _inputs: &[&Value],
        _outputs: &[&Value],
    ) -> Result<ArgumentNeeds, String> {
        Ok(ArgumentNeeds::default())
    }
    /// A scratch buffer the call needs that its blob does not size and the target does (for
    /// Ethos-U in Dedicated_Sram mode, the fast scratch: `npu.fast_scratch`), given the
    /// delegate's declarations so far. Default: none.
    fn scratch_from_target(
        &self,
        _delegate: &Delegate,
        _specs: &[ScratchSpec],
        _target: &Target,
    ) -> Option<ScratchSpec> {
        None
    }
    /// Reads a blob.
    fn inspect(
        &self,
        blob: &[u8],
        compile_specs: &BTreeMap<String, String>,
    ) -> Result<BlobInfo, BlobError>;
}

static PLUGINS: [&dyn BackendPlugin; 2] = [&EthosU, &Neutron];

/// The C symbol of the `ap_backend_t` that runs backend `id`: the runtime's own for the
/// backends arenaplan knows (`ap_ethosu_backend`, `ap_neutron_backend`), else
/// `ap_backend_<id as an identifier>`, which the integrator (or a `#[delegate]` in Rust)
/// defines. A program bound at build time names it, so a missing backend is a link error.
///
/// ```
/// use arenaplan_build::backends::backend_symbol;
/// assert_eq!(backend_symbol("EthosUBackend"), "ap_ethosu_backend");
/// assert_eq!(backend_symbol("ConvIm2col"), "ap_backend_ConvIm2col");
/// ```
pub fn backend_symbol(id: &str) -> String {
    match plugin_for(id) {
        Some(plugin) => plugin.c_symbol().to_owned(),
        None => arenaplan_syntax::names::backend_symbol(id),
    }
}

/// The storage a delegate's handle gets in a generated program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HandleStorage {
    /// Its size as a C constant expression.
    pub c_size: &'static str,
    /// The header that defines it, if not `arenaplan/runtime.h`.
    pub header: Option<&'static str>,
    /// Its size on a 32-bit target (the report's figure).
    pub bytes_32: u64,
}

/// The handle a delegate of backend `id` gets: its C backend's size for the runtime's own
/// backends; none for a backend written in Rust (`rust`: declared by `#[delegate] fn`), which
/// keeps no state; the runtime's most, `AP_HANDLE_BYTES`, for an integrator's C backend.
///
/// ```
/// use arenaplan_build::backends::handle_storage;
/// assert_eq!(handle_storage("EthosUBackend", false).bytes_32, 36);
/// assert_eq!(handle_storage("ConvIm2col", true).bytes_32, 0);
/// assert_eq!(handle_storage("Vendor", false).c_size, "AP_HANDLE_BYTES");
/// ```
pub fn handle_storage(id: &str, rust: bool) -> HandleStorage {
    match plugin_for(id) {
        Some(plugin) => plugin.handle(),
        None if rust => HandleStorage {
            c_size: "0",
            header: None,
            bytes_32: 0,
        },
        None => HandleStorage {
            c_size: "AP_HANDLE_BYTES",
            header: None,
            bytes_32: 128,
        },
    }
}

/// The handle storage of one delegate: its backend's ([`handle_storage`], `base`), grown where
/// the delegate's compile specs say (Neutron's model context), as the C size expression the
/// generated program declares and its bytes on a 32-bit target.
pub fn delegate_handle(base: &HandleStorage, delegate: &Delegate) -> (String, u64) {
    plugin_for(&delegate.backend)
        .and_then(|p| p.handle_with_specs(&delegate.compile_specs))
        .unwrap_or_else(|| (base.c_size.to_owned(), base.bytes_32))
}

// The C symbol of the `ap_kernel_t` that runs a kernel: arenaplan-syntax's, the one rule that
// `#[kernel]` and the shipped kernels follow too.
pub use arenaplan_syntax::names::kernel_symbol;

/// The plugin for a backend id, if arenaplan has one.
pub fn plugin_for(backend: &str) -> Option<&'static dyn BackendPlugin> {
    PLUGINS.iter().copied().find(|p| p.backend() == backend)
}

/// Little-endian `u32` at `at`, or an error naming the backend and offset.
pub(crate) fn u32_at(
    backend: &'static str,
    data: &[u8],
    at: usize,
    what: &str,
) -> Result<u32, BlobError> {
    at.checked_add(4)
        .and_then(|end| data.get(at..end))
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| BlobError {
            backend,
            offset: at,
            problem: format!("{what}: the blob ends at {} bytes", data.len()),
        })
}

#[cfg(test)]
mod tests;
