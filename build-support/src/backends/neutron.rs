//! NXP eIQ Neutron: the payload ExecuTorch's Neutron backend stores as the delegate blob.
//!
//! A header of bytes — number of Neutron inputs, outputs and input arguments, then one format
//! byte per input and per output, one map byte per input and per output, and a payload version
//! — followed, at the next 16-byte boundary, by the microcode, which starts with the magic
//! `0x64434D6E` and holds `u32` LE words: 6 microcode size, 7 weights size, 9 scratch size;
//! version 0: 10 SRAM scratch size; version 1: 10 profile size (low 31 bits), 11 debug size,
//! 12 SRAM scratch size.

use std::collections::BTreeMap;

use super::{u32_at, BackendPlugin, BlobError, BlobInfo, BlobScratch};

const BACKEND: &str = "NeutronBackend";
const MAGIC: u32 = 0x6443_4D6E;

/// The Neutron plugin.
#[derive(Clone, Copy, Debug)]
pub struct Neutron;

/// A parsed Neutron payload header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NeutronHeader {
    /// Neutron inputs.
    pub inputs: usize,
    /// Neutron outputs.
    pub outputs: usize,
    /// Input arguments of the delegate call.
    pub input_args: usize,
    /// Payload version (0 or 1).
    pub version: u8,
    /// Where the microcode starts.
    pub payload_offset: usize,
    /// Microcode bytes.
    pub microcode_size: u32,
    /// Weight bytes.
    pub weights_size: u32,
    /// Scratch bytes.
    pub scratch_size: u32,
    /// SRAM scratch bytes.
    pub sram_scratch_size: u32,
    /// Profiling buffer bytes (version 1).
    pub profile_size: u32,
    /// Debug buffer bytes (version 1).
    pub debug_size: u32,
}

fn error(offset: usize, problem: impl Into<String>) -> BlobError {
    BlobError {
        backend: BACKEND,
        offset,
        problem: problem.into(),
    }
}

impl NeutronHeader {
    /// Parses the header and the microcode's leading words.
    pub fn parse(blob: &[u8]) -> Result<Self, BlobError> {
        let byte = |at: usize, what: &str| {
            blob.get(at)
                .copied()
                .ok_or_else(|| error(at, format!("{what}: the blob ends at {} bytes", blob.len())))
        };
        let inputs = byte(0, "number of inputs")? as usize;
        let outputs = byte(1, "number of outputs")? as usize;
        let input_args = byte(2, "number of input arguments")? as usize;
        if inputs == 0 && outputs == 0 {
            return Err(error(
                0,
                "header declares no inputs and no outputs (not a Neutron payload?)",
            ));
        }
        let version_at = 3 + 2 * (inputs + outputs);
        let version = byte(version_at, "payload version")?;
        if version > 1 {
            return Err(error(
                version_at,
                format!("payload version {version} is not supported (0 and 1 are)"),
            ));
        }
        let payload_offset = (version_at + 1).div_ceil(16) * 16;
        let word = |i: usize, what: &str| u32_at(BACKEND, blob, payload_offset + 4 * i, what);
        let magic = word(0, "microcode magic")?;
        if magic != MAGIC {
            return Err(error(
                payload_offset,
                format!("microcode magic is {magic:#010x}, expected {MAGIC:#010x}"),
            ));
        }
        let (sram_scratch_size, profile_size, debug_size) = match version {
            0 => (word(10, "SRAM scratch size")?, 0, 0),
            _ => (
                word(12, "SRAM scratch size")?,
                word(10, "profile size")? & 0x7FFF_FFFF,
                word(11, "debug size")?,
            ),
        };
        Ok(NeutronHeader {
            inputs,
            outputs,
            input_args,
            version,
            payload_offset,
            microcode_size: word(6, "microcode size")?,
            weights_size: word(7, "weights size")?,
            scratch_size: word(9, "scratch size")?,
            sram_scratch_size,
            profile_size,
            debug_size,
        })
    }
}

impl BackendPlugin for Neutron {
    fn backend(&self) -> &'static str {
        BACKEND
    }

    fn inspect(
        &self,
        blob: &[u8],
        _specs: &BTreeMap<String, String>,
    ) -> Result<BlobInfo, BlobError> {
        let h = NeutronHeader::parse(blob)?;
        let mut scratch = Vec::new();
        if h.scratch_size > 0 {
            scratch.push(BlobScratch {
                size: u64::from(h.scratch_size),
                spec: "npu_scratch",
                label: "scratch",
            });
        }
        if h.sram_scratch_size > 0 {
            scratch.push(BlobScratch {
                size: u64::from(h.sram_scratch_size),
                spec: "fast_scratch",
                label: "sram_scratch",
            });
        }
        Ok(BlobInfo {
            inputs: h.input_args,
            outputs: h.outputs,
            scratch,
            facts: vec![
                ("payload version".into(), h.version.to_string()),
                ("microcode bytes".into(), h.microcode_size.to_string()),
                ("weight bytes".into(), h.weights_size.to_string()),
                ("scratch bytes".into(), h.scratch_size.to_string()),
                ("SRAM scratch bytes".into(), h.sram_scratch_size.to_string()),
                ("profile bytes".into(), h.profile_size.to_string()),
                ("debug bytes".into(), h.debug_size.to_string()),
            ],
        })
    }
}
