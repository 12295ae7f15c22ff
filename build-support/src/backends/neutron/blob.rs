//! NXP eIQ Neutron: the payload ExecuTorch's Neutron backend stores as the delegate blob.
//! `docs/blob-formats.md` is the format's one specification, which this reader and the C
//! backend's follow (a differential test holds them to the same verdicts).
//!
//! A header of bytes — number of Neutron inputs, outputs and input arguments, then one format
//! byte per input and per output, one map byte per input and per output, and a payload version
//! — followed, at the next 16-byte boundary, by the microcode, which starts with the magic
//! `0x64434D6E` and holds `u32` LE words: 6 microcode size, 7 weights size, 9 scratch size;
//! version 0: 10 SRAM scratch size, 11 and 12 the microcode's inputs and outputs; version 1:
//! 10 profile size (low 31 bits), 11 debug size, 12 SRAM scratch size, 13 and 14 inputs and
//! outputs. The weights follow the microcode and the kernels the weights, each 16-aligned.
//!
//! A non-zero format byte asks the runtime to transpose that input or output between NCHW and
//! NHWC around the call: [`super::layout`] applies NXP's rules to the call's tensors
//! and plans the buffer the runtime transposes in.

use std::collections::BTreeMap;

use crate::backends::{u32_at, BackendPlugin, BlobError, BlobInfo, BlobScratch, ScratchRole};

const BACKEND: &str = "NeutronBackend";
/// The compile spec naming the chip NXP's converter compiled the delegate for.
const TARGET_SPEC: &str = "target";
const MAGIC: u32 = 0x6443_4D6E;
/// The compile spec giving the model context's bytes (`AP_NEUTRON_CONTEXT_SPEC`).
pub const CONTEXT_SPEC: &str = "arenaplan.neutron.context";

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
    /// Format byte of each input (0: as planned; otherwise the runtime is to transpose it).
    pub input_formats: Vec<u8>,
    /// Format byte of each output.
    pub output_formats: Vec<u8>,
    /// The call's input argument each Neutron input reads.
    pub input_map: Vec<u8>,
    /// The call's output argument each Neutron output writes.
    pub output_map: Vec<u8>,
    /// Payload version (0 or 1).
    pub version: u8,
    /// Where the microcode starts.
    pub payload_offset: usize,
    /// Microcode bytes.
    pub microcode_size: u32,
    /// Weight bytes.
    pub weights_size: u32,
    /// Where the weights start (after the microcode, 16-aligned).
    pub weights_offset: usize,
    /// Where the kernels start (after the weights, 16-aligned).
    pub kernels_offset: usize,
    /// Scratch bytes.
    pub scratch_size: u32,
    /// SRAM scratch bytes.
    pub sram_scratch_size: u32,
    /// Profiling buffer bytes (version 1).
    pub profile_size: u32,
    /// Debug buffer bytes (version 1).
    pub debug_size: u32,
}

/// Most inputs, and most outputs, of one payload (`AP_NEUTRON_MAX_IO` in the runtime).
const MAX_IO: usize = 16;

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
        // As the C backend reads it (`ap_neutron_parse`): at most 16 of each, and every map
        // byte naming an argument that exists.
        if inputs > MAX_IO || outputs > MAX_IO {
            return Err(error(
                0,
                format!("{inputs} inputs and {outputs} outputs; the runtime takes at most {MAX_IO} of each"),
            ));
        }
        let version_at = 3 + 2 * (inputs + outputs);
        let version = byte(version_at, "payload version")?;
        let maps_at = 3 + inputs + outputs;
        for (i, limit, what) in (0..inputs)
            .map(|i| (i, input_args, "input"))
            .chain((0..outputs).map(|o| (o, outputs, "output")))
        {
            let at = maps_at + if what == "input" { i } else { inputs + i };
            let target = blob[at] as usize;
            if target >= limit {
                return Err(error(
                    at,
                    format!("{what} {i} maps to argument {target}, but there are {limit}"),
                ));
            }
        }
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
        let (sram_scratch_size, profile_size, debug_size, io_words) = match version {
            0 => (word(10, "SRAM scratch size")?, 0, 0, (11, 12)),
            _ => (
                word(12, "SRAM scratch size")?,
                word(10, "profile size")? & 0x7FFF_FFFF,
                word(11, "debug size")?,
                (13, 14),
            ),
        };
        for (index, what, header_count) in [
            (io_words.0, "inputs", inputs),
            (io_words.1, "outputs", outputs),
        ] {
            let count = word(index, &format!("microcode's number of {what}"))?;
            if count as usize != header_count {
                return Err(error(
                    payload_offset + 4 * index,
                    format!("the microcode has {count} {what} (word {index}) but the payload header declares {header_count}; the blob is inconsistent, compile the model again"),
                ));
            }
        }
        let microcode_size = word(6, "microcode size")?;
        let weights_size = word(7, "weights size")?;
        // In u64: sizes near 4 GiB must not wrap on any host.
        let align16 = |n: u32| u64::from(n).div_ceil(16) * 16;
        let weights_offset = payload_offset as u64 + align16(microcode_size);
        let kernels_offset = weights_offset + align16(weights_size);
        let len = blob.len() as u64;
        if weights_offset + u64::from(weights_size) > len || kernels_offset > len {
            return Err(error(
                payload_offset + 4 * 6,
                format!(
                    "{microcode_size} bytes of microcode and {weights_size} of weights put the weights at {weights_offset} and the kernels at {kernels_offset}, past the end of the {}-byte blob (truncated, or not a Neutron payload?)",
                    blob.len()
                ),
            ));
        }
        Ok(NeutronHeader {
            inputs,
            outputs,
            input_args,
            // Both lie before the version byte, which was read above.
            input_formats: blob[3..3 + inputs].to_vec(),
            output_formats: blob[3 + inputs..3 + inputs + outputs].to_vec(),
            input_map: blob[maps_at..maps_at + inputs].to_vec(),
            output_map: blob[maps_at + inputs..maps_at + inputs + outputs].to_vec(),
            version,
            payload_offset,
            microcode_size,
            weights_size,
            // Within the blob, so within usize.
            weights_offset: weights_offset as usize,
            kernels_offset: kernels_offset as usize,
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

    fn c_symbol(&self) -> &'static str {
        "ap_neutron_backend"
    }

    fn handle(&self) -> crate::backends::HandleStorage {
        // The parsed payload (four pointers, six 32-bit sizes, four bytes) and six pointers'
        // room for NXP's model config and handle and the transpositions' descriptor.
        crate::backends::HandleStorage {
            c_size: "AP_NEUTRON_HANDLE_BYTES",
            header: Some("arenaplan/neutron.h"),
            bytes_32: 68,
        }
    }

    /// Yes: the Neutron reads the call's inputs and writes its outputs where they are planned.
    fn npu_reads_io(&self) -> bool {
        true
    }

    /// The compile spec `target` (the chip NXP's converter compiled for: `imxrt700`,
    /// `mcxn94x`) against the target's `npu.config`. NXP's library runs microcode for another
    /// Neutron without a word, so this is the only place the mismatch can be caught. A program
    /// without the spec (older exporters) has nothing to compare.
    /// The blob gives no I/O sizes (the microcode knows them), but the NPU reads and writes
    /// every tensor of its call: an empty one (a dimension of 0) has no memory to give it (the
    /// C backend would hand the NPU a NULL address), and is refused.
    fn check_io(&self, _blob: &[u8], inputs: &[u64], outputs: &[u64]) -> Result<(), String> {
        let sides = [("input", inputs), ("output", outputs)];
        for (side, sizes) in sides {
            if let Some(i) = sizes.iter().position(|&b| b == 0) {
                return Err(format!(
                    "{side} {i} is 0 bytes (an empty tensor), but the NPU reads and writes every tensor of its call"
                ));
            }
        }
        Ok(())
    }

    fn check_target(
        &self,
        _blob: &[u8],
        compile_specs: &BTreeMap<String, String>,
        target: &crate::targets::Target,
    ) -> Result<(), String> {
        let (Some(compiled_for), Some(npu)) = (compile_specs.get(TARGET_SPEC), &target.npu) else {
            return Ok(());
        };
        if compiled_for == &npu.config {
            return Ok(());
        }
        Err(format!(
            "the blob was compiled for the Neutron of `{compiled_for}` (its compile spec `{TARGET_SPEC}`), but target `{}` has the Neutron of `{}`; export the program for the target's NPU (NeutronBackend's compile spec `{TARGET_SPEC}` = \"{}\"), or plan it for a target whose `npu.config` is \"{compiled_for}\"",
            target.name, npu.config, npu.config
        ))
    }

    fn target_specs(&self, target: &crate::targets::Target) -> Vec<(String, String)> {
        match &target.npu {
            Some(npu) if npu.backend == BACKEND => npu
                .model_context
                .map(|bytes| vec![(CONTEXT_SPEC.to_owned(), bytes.to_string())])
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// With a model context (`npu.model_context`), the handle holds it after the state, at
    /// `AP_NEUTRON_CONTEXT_OFFSET` (the state's 68 bytes rounded up to 16 on a 32-bit target).
    fn handle_with_specs(&self, specs: &BTreeMap<String, String>) -> Option<(String, u64)> {
        let bytes: u64 = specs.get(CONTEXT_SPEC)?.parse().ok()?;
        let state = self.handle().bytes_32.div_ceil(16) * 16;
        Some((
            format!("AP_NEUTRON_CONTEXT_OFFSET + {bytes}u"),
            state + bytes,
        ))
    }

    /// The transpositions the payload's format bytes ask for, by NXP's rules: their buffer,
    /// and their descriptor for the C backend.
    fn argument_needs(
        &self,
        blob: &[u8],
        inputs: &[&crate::model::Value],
        outputs: &[&crate::model::Value],
    ) -> Result<crate::backends::ArgumentNeeds, String> {
        let h = NeutronHeader::parse(blob).map_err(|e| e.to_string())?;
        let list = super::layout::transpositions(&h, inputs, outputs)?;
        let Some(buffer) = super::layout::buffer(&list) else {
            return Ok(crate::backends::ArgumentNeeds::default());
        };
        Ok(crate::backends::ArgumentNeeds {
            scratch: vec![buffer],
            specs: vec![(
                super::layout::TRANSPOSE_SPEC.into(),
                super::layout::descriptor(&list),
            )],
        })
    }

    fn inspect(
        &self,
        blob: &[u8],
        _specs: &BTreeMap<String, String>,
    ) -> Result<BlobInfo, BlobError> {
        let h = NeutronHeader::parse(blob)?;
        let mut scratch = vec![
            BlobScratch {
                role: ScratchRole::NeutronScratch,
                size: u64::from(h.scratch_size),
            },
            BlobScratch {
                role: ScratchRole::NeutronSramScratch,
                size: u64::from(h.sram_scratch_size),
            },
        ];
        if h.version >= 1 {
            scratch.push(BlobScratch {
                role: ScratchRole::NeutronProfile,
                size: u64::from(h.profile_size),
            });
            scratch.push(BlobScratch {
                role: ScratchRole::NeutronDebug,
                size: u64::from(h.debug_size),
            });
        }
        Ok(BlobInfo {
            inputs: h.input_args,
            outputs: h.outputs,
            scratch,
            facts: vec![
                ("payload version".into(), h.version.to_string()),
                (
                    "format bytes (inputs, outputs)".into(),
                    format!("{:?}, {:?}", h.input_formats, h.output_formats),
                ),
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
