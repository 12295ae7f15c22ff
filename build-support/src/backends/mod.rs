//! Backend blob plugins: given a delegate's compiled blob and compile specs, each says how
//! many inputs and outputs the blob takes and which scratch buffers it needs.
//!
//! ```
//! use arenaplan_build::backends::plugin_for;
//! assert!(plugin_for("EthosUBackend").is_some());
//! assert!(plugin_for("MyRustBackend").is_none()); // scratch comes from a declaration
//! ```

mod ethos_u;
mod neutron;

use std::collections::BTreeMap;

use thiserror::Error;

pub use ethos_u::{EthosU, IoRecord, VelaBinStream};
pub use neutron::{Neutron, NeutronHeader};

/// What a plugin learned from a blob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlobInfo {
    /// Inputs the compiled partition takes.
    pub inputs: usize,
    /// Outputs it produces.
    pub outputs: usize,
    /// Scratch buffers it needs, in argument order.
    pub scratch: Vec<BlobScratch>,
    /// Other facts worth showing (`inspect`), as name → value.
    pub facts: Vec<(String, String)>,
}

/// One scratch buffer a blob needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlobScratch {
    /// Bytes.
    pub size: u64,
    /// The compile spec naming its pool (`npu_scratch`, `fast_scratch`).
    pub spec: &'static str,
    /// Its name in reports.
    pub label: &'static str,
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
    /// Reads a blob.
    fn inspect(
        &self,
        blob: &[u8],
        compile_specs: &BTreeMap<String, String>,
    ) -> Result<BlobInfo, BlobError>;
}

static PLUGINS: [&dyn BackendPlugin; 2] = [&EthosU, &Neutron];

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
