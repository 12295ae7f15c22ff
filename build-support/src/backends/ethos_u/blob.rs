//! Ethos-U: the Vela bin stream that ExecuTorch's Arm backend stores as the delegate blob.
//! `docs/blob-formats.md` is the format's one specification, which this reader and the C
//! backend's follow (a differential test holds them to the same verdicts).
//!
//! A sequence of blocks, each a 32-byte header (16-byte NUL-padded name, `u32` LE size, one
//! "external" byte, 11 reserved) followed by its data padded to 16 bytes. An external block's
//! data is a 64-byte key into a named data map held outside the program; arenaplan does not
//! resolve those, so such a stream is refused. The blocks: `vela_bin_stream`
//! (empty, first), `cmd_data` (the command stream, starting `COP1` or `COP2`), `weight_data`,
//! `scratch_size` (`u32` LE), `inputs`, `outputs`, `vela_end_stream` (empty, last). The I/O
//! blocks hold a `u32` count and one record per tensor: `shape[6]`, element size, offset and
//! region, all `u32` LE. Scratch is region 1; fast scratch (region 2) is not in the stream.

use std::collections::BTreeMap;

use crate::backends::{
    u32_at, BackendPlugin, BlobError, BlobInfo, BlobScratch, IoSlot, ScratchRole,
};
use crate::model::{Delegate, Origin, PoolChoice, ScratchSpec};
use crate::targets::Target;

const BACKEND: &str = "EthosUBackend";
const HEADER: usize = 32;
/// The block header's "external" flag.
const EXTERNAL: usize = 20;
/// Most I/O records accepted in one block (a partition has a handful).
const MAX_IO: u32 = 1024;

/// The Ethos-U plugin.
#[derive(Clone, Copy, Debug)]
pub struct EthosU;

/// One input or output of a compiled partition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IoRecord {
    /// Shape, padded to six dimensions.
    pub shape: [u32; 6],
    /// Bytes per element.
    pub elem_size: u32,
    /// Offset in its region.
    pub offset: u32,
    /// The region (1: scratch), with [`IoRecord::STATE_IN_PLACE`] for an output that is
    /// state the NPU updates in place.
    pub region: u32,
}

/// How the backend copies one input or output through the scratch: the C backend's reading
/// of a record (`io_record` in `ethosu_backend.c`), the same rule on both sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoCopy {
    /// Offset of the copy in the scratch.
    pub offset: u32,
    /// Its bytes: the shape's product times the element size.
    pub bytes: u32,
    /// Rows Vela writes an output in (all dimensions but the last).
    pub chunks: u32,
    /// Bytes from one row to the next.
    pub stride: u32,
    /// An output that is state updated in place: where it is not at its slot, the backend
    /// copies its old value in before the job as well as the new one out after.
    pub state_in_place: bool,
}

impl IoRecord {
    /// The region word's flag for state the NPU updates in place (Vela's LSTM writes each
    /// step's state over the variable): its old value is read where the new one is written.
    /// arenaplan's own extension of Vela's record (it writes it for Vela's TFLite operator;
    /// ExecuTorch's blobs never set it).
    pub const STATE_IN_PLACE: u32 = 0x100;

    /// The copy this record describes, checked against a scratch of `scratch_size` bytes as
    /// the C backend checks it at init: region 1, a non-zero element size, sizes within 32
    /// bits, and the copy and its rows inside the scratch.
    pub fn copy(&self, scratch_size: u32) -> Result<IoCopy, &'static str> {
        let elem = u64::from(self.elem_size);
        let (mut bytes, mut chunks) = (elem, 1u64);
        for (d, &dim) in self.shape.iter().enumerate() {
            bytes = bytes.saturating_mul(u64::from(dim));
            if d < 5 {
                chunks = chunks.saturating_mul(u64::from(dim.max(1)));
            }
            if bytes > u64::from(u32::MAX) || chunks > u64::from(u32::MAX) {
                return Err("its size does not fit 32 bits");
            }
        }
        let stride = u64::from(self.shape[5].max(1)) * elem;
        let (offset, scratch) = (u64::from(self.offset), u64::from(scratch_size));
        if self.region & !Self::STATE_IN_PLACE != 1 {
            return Err("its copy is not in region 1 (the scratch)");
        }
        if elem == 0 {
            return Err("its element size is 0");
        }
        let rows_fit = bytes == 0
            || (stride <= scratch
                && chunks <= scratch
                && stride * chunks <= scratch - offset.min(scratch));
        if offset > scratch || bytes > scratch - offset || !rows_fit {
            return Err("its copy does not fit in the scratch Vela computed");
        }
        Ok(IoCopy {
            offset: self.offset,
            bytes: bytes as u32,
            chunks: chunks as u32,
            stride: stride as u32,
            state_in_place: self.region & Self::STATE_IN_PLACE != 0,
        })
    }
}

impl IoCopy {
    /// Whether an input tensor of `tensor_bytes` can be copied in (the same size), and an
    /// output one out (the same size, or whole rows no wider than Vela's), as the C backend
    /// requires at each call.
    pub fn fits(&self, tensor_bytes: u64, input: bool) -> Result<(), String> {
        let bytes = u64::from(self.bytes);
        if tensor_bytes == bytes {
            return Ok(());
        }
        if input {
            return Err(format!("{tensor_bytes} bytes, but the blob copies {bytes}"));
        }
        if tensor_bytes == 0 {
            // No room for the copy, and zero rows would read as "copy whole" (the C backend's
            // sentinel): refused here, as the backend refuses it at each call.
            return Err(format!(
                "0 bytes (an empty tensor), but the blob writes {bytes}"
            ));
        }
        let chunks = u64::from(self.chunks);
        if bytes == 0 || !tensor_bytes.is_multiple_of(chunks) {
            return Err(format!(
                "{tensor_bytes} bytes, which are neither the blob's {bytes} nor whole rows of its {chunks}"
            ));
        }
        if tensor_bytes / chunks > u64::from(self.stride) {
            return Err(format!(
                "{tensor_bytes} bytes in {chunks} rows of {}, wider than the blob's rows of {}",
                tensor_bytes / chunks,
                self.stride
            ));
        }
        Ok(())
    }
}

/// A parsed Vela bin stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VelaBinStream {
    /// Command stream bytes.
    pub cmd_size: usize,
    /// Weight bytes.
    pub weight_size: usize,
    /// Scratch (region 1) bytes Vela computed.
    pub scratch_size: u32,
    /// The inputs.
    pub inputs: Vec<IoRecord>,
    /// The outputs.
    pub outputs: Vec<IoRecord>,
    /// The NPU Vela compiled the stream for: the CONFIG and ID register values of the command
    /// stream's optimizer-config action, which Arm's driver checks against the NPU's.
    pub optimizer_config: Option<(u32, u32)>,
}

/// The optimizer config in a command stream (`COP1`/`COP2`, then driver actions: 1 optimizer
/// config with the CONFIG and ID words, 2 a command stream of N words, 5 a no-op), if the
/// actions before it are ones arenaplan reads.
fn optimizer_config(cmd: &[u8]) -> Option<(u32, u32)> {
    let word = |w: usize| {
        cmd.get(4 * w..4 * w + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let mut w = 1;
    while let Some(action) = word(w) {
        match action & 0xFF {
            1 => return Some((word(w + 1)?, word(w + 2)?)),
            2 => w += 1 + (((action >> 8) & 0xFF) << 16 | (action >> 16)) as usize,
            5 => w += 1,
            _ => return None,
        }
    }
    None
}

/// The regions (bit r: region r) the command streams of a driver payload address — feature
/// maps, weights, scales, DMA ends other than SHRAM — as the NPU decodes them: a 32-bit word
/// each, opcode in bits 0-9, a payload word following when bits 14-15 are 1, the region in the
/// parameter's low bits. `None` for a payload arenaplan does not read.
///
/// ```
/// use arenaplan_build::backends::ethos_u::stream_regions;
/// // COP1, a 3-word command stream: IFM_REGION 1, OFM_REGION 2, STOP.
/// let words = [0x3150_4F43u32, 0x0003_0002, 0x0001_010F, 0x0002_011F, 0xFFFF_0000];
/// let cmd: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
/// assert_eq!(stream_regions(&cmd), Some(0b110));
/// ```
pub fn stream_regions(cmd: &[u8]) -> Option<u8> {
    let word = |w: usize| {
        cmd.get(4 * w..4 * w + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let mut used = 0u8;
    let mut w = 1;
    while let Some(action) = word(w) {
        match action & 0xFF {
            1 => w += 3,
            2 => {
                let len = (((action >> 8) & 0xFF) << 16 | (action >> 16)) as usize;
                let mut k = w + 1;
                while k < w + 1 + len {
                    let c = word(k)?;
                    if (c >> 14) & 3 == 1 {
                        k += 2;
                        continue;
                    }
                    let (op, param) = (c & 0x3FF, c >> 16);
                    // IFM, OFM, weight, scale, IFM2 regions; DMA ends unless internal (SHRAM).
                    let region = match op {
                        271 | 287 | 296 | 297 | 399 => Some(param & 7),
                        304 | 305 if param & 0x100 == 0 => Some(param & 7),
                        _ => None,
                    };
                    if let Some(r) = region {
                        used |= 1 << r;
                    }
                    k += 1;
                }
                w = k;
            }
            5 => w += 1,
            _ => return None,
        }
    }
    Some(used)
}

const ORDER: [&str; 7] = [
    "vela_bin_stream",
    "cmd_data",
    "weight_data",
    "scratch_size",
    "inputs",
    "outputs",
    "vela_end_stream",
];

/// A target's `npu.config` (`ethos-u55-128`) as the CONFIG register's product (0 U55, 1 U65,
/// 2 U85) and MACs per cycle.
fn ethos_u_config(config: &str) -> Option<(u32, u32)> {
    let rest = config.strip_prefix("ethos-u")?;
    let (model, macs) = rest.split_once('-')?;
    let product = match model {
        "55" => 0,
        "65" => 1,
        "85" => 2,
        _ => return None,
    };
    Some((product, macs.parse().ok()?))
}

fn error(offset: usize, problem: impl Into<String>) -> BlobError {
    BlobError {
        backend: BACKEND,
        offset,
        problem: problem.into(),
    }
}

impl VelaBinStream {
    /// Parses a bin stream; blocks must come in the documented order.
    pub fn parse(blob: &[u8]) -> Result<Self, BlobError> {
        let mut at = 0usize;
        let mut cmd_size = 0;
        let mut optimizer = None;
        let mut weight_size = 0;
        let mut scratch_size = None;
        let mut inputs = None;
        let mut outputs = None;
        for (k, expected) in ORDER.iter().enumerate() {
            let header = at
                .checked_add(HEADER)
                .and_then(|end| blob.get(at..end))
                .ok_or_else(|| {
                    error(
                        at,
                        format!(
                            "expected block `{expected}`, but the blob ends at {} bytes",
                            blob.len()
                        ),
                    )
                })?;
            let name_len = header[..16].iter().position(|&b| b == 0).unwrap_or(16);
            let name = String::from_utf8_lossy(&header[..name_len]);
            if name != *expected {
                let hint = if k == 0 {
                    " (not a Vela bin stream?)"
                } else {
                    ""
                };
                return Err(error(
                    at,
                    format!("expected block `{expected}`, found `{name}`{hint}"),
                ));
            }
            let size = u32_at(BACKEND, blob, at + 16, "block size")? as usize;
            if header[EXTERNAL] != 0 {
                return Err(error(
                    at + EXTERNAL,
                    format!(
                        "block `{expected}` is external (header byte {EXTERNAL} is {}): its data is a key into a named data map outside the program, which arenaplan does not resolve; export the program with the delegate's data inline",
                        header[EXTERNAL]
                    ),
                ));
            }
            let data_at = at + HEADER;
            let data = data_at
                .checked_add(size)
                .and_then(|end| blob.get(data_at..end))
                .ok_or_else(|| {
                    error(
                        data_at,
                        format!(
                            "block `{expected}` declares {size} bytes but the blob ends at {}",
                            blob.len()
                        ),
                    )
                })?;
            match *expected {
                "vela_bin_stream" | "vela_end_stream" if size != 0 => {
                    return Err(error(
                        at,
                        format!("block `{expected}` must be empty, has {size} bytes"),
                    ));
                }
                "cmd_data" => {
                    if !(data.starts_with(b"COP1") || data.starts_with(b"COP2")) {
                        return Err(error(
                            data_at,
                            "command stream does not start with COP1 or COP2",
                        ));
                    }
                    cmd_size = size;
                    optimizer = optimizer_config(data);
                }
                "weight_data" => weight_size = size,
                "scratch_size" => {
                    if size != 4 {
                        return Err(error(
                            at,
                            format!("block `scratch_size` must hold 4 bytes, has {size}"),
                        ));
                    }
                    scratch_size = Some(u32_at(BACKEND, blob, data_at, "scratch size")?);
                }
                "inputs" => inputs = Some(io_records(data, data_at, scratch_size.unwrap_or(0))?),
                "outputs" => outputs = Some(io_records(data, data_at, scratch_size.unwrap_or(0))?),
                _ => {}
            }
            // Data is padded to 16 bytes.
            at = data_at + size.div_ceil(16) * 16;
        }
        Ok(VelaBinStream {
            cmd_size,
            weight_size,
            scratch_size: scratch_size.unwrap_or(0),
            inputs: inputs.unwrap_or_default(),
            outputs: outputs.unwrap_or_default(),
            optimizer_config: optimizer,
        })
    }
}

/// What a bin stream carries, for [`write_bin_stream`].
#[derive(Clone, Copy, Debug)]
pub struct BinStreamParts<'a> {
    /// The driver payload: `COP1` or `COP2`, then the command stream.
    pub cmd: &'a [u8],
    /// Weights and scales, region 0.
    pub weights: &'a [u8],
    /// Bytes of region 1, which holds the inputs' and outputs' copies.
    pub scratch_size: u32,
    /// Where each input sits in the scratch.
    pub inputs: &'a [IoRecord],
    /// Where each output sits in the scratch.
    pub outputs: &'a [IoRecord],
}

/// Lays out a bin stream from its parts, in the block order [`VelaBinStream::parse`] reads:
/// how a Vela operator of a TFLite model becomes the blob the runtime's Ethos-U backend runs.
///
/// ```
/// use arenaplan_build::backends::{write_bin_stream, BinStreamParts, IoRecord, VelaBinStream};
/// let io = IoRecord { shape: [1, 1, 1, 1, 1, 8], elem_size: 1, offset: 16, region: 1 };
/// let blob = write_bin_stream(&BinStreamParts {
///     cmd: b"COP1\0\0\0\0",
///     weights: &[7; 20],
///     scratch_size: 32,
///     inputs: &[io.clone()],
///     outputs: &[IoRecord { offset: 0, ..io }],
/// });
/// let parsed = VelaBinStream::parse(&blob).unwrap();
/// assert_eq!((parsed.weight_size, parsed.scratch_size, parsed.inputs.len()), (20, 32, 1));
/// ```
pub fn write_bin_stream(parts: &BinStreamParts<'_>) -> Vec<u8> {
    let io = |records: &[IoRecord]| {
        let mut data = Vec::with_capacity(4 + 36 * records.len());
        data.extend_from_slice(&(records.len() as u32).to_le_bytes());
        for r in records {
            for word in r.shape.iter().chain([&r.elem_size, &r.offset, &r.region]) {
                data.extend_from_slice(&word.to_le_bytes());
            }
        }
        data
    };
    let blocks: [(&str, Vec<u8>); 7] = [
        (ORDER[0], Vec::new()),
        (ORDER[1], parts.cmd.to_vec()),
        (ORDER[2], parts.weights.to_vec()),
        (ORDER[3], parts.scratch_size.to_le_bytes().to_vec()),
        (ORDER[4], io(parts.inputs)),
        (ORDER[5], io(parts.outputs)),
        (ORDER[6], Vec::new()),
    ];
    let mut out = Vec::new();
    for (name, data) in blocks {
        let mut header = [0u8; HEADER];
        header[..name.len()].copy_from_slice(name.as_bytes());
        header[16..20].copy_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(&header);
        out.extend_from_slice(&data);
        // Each block's data is padded to 16 bytes, so the weights stay aligned for the NPU.
        out.resize(out.len().next_multiple_of(16), 0);
    }
    out
}

fn io_records(data: &[u8], base: usize, scratch_size: u32) -> Result<Vec<IoRecord>, BlobError> {
    let count =
        u32_at(BACKEND, data, 0, "I/O count").map_err(|e| error(base + e.offset, e.problem))?;
    if count > MAX_IO {
        return Err(error(
            base,
            format!("{count} I/O records; at most {MAX_IO} are accepted"),
        ));
    }
    let expected = 4 + count as usize * 36;
    if data.len() < expected {
        return Err(error(
            base,
            format!(
                "{count} I/O records need {expected} bytes, the block has {}",
                data.len()
            ),
        ));
    }
    let word = |i: usize| {
        u32::from_le_bytes([
            data[4 * i],
            data[4 * i + 1],
            data[4 * i + 2],
            data[4 * i + 3],
        ])
    };
    let records: Vec<IoRecord> = (0..count as usize)
        .map(|r| {
            let w = 1 + 9 * r;
            IoRecord {
                shape: [
                    word(w),
                    word(w + 1),
                    word(w + 2),
                    word(w + 3),
                    word(w + 4),
                    word(w + 5),
                ],
                elem_size: word(w + 6),
                offset: word(w + 7),
                region: word(w + 8),
            }
        })
        .collect();
    for (r, record) in records.iter().enumerate() {
        record
            .copy(scratch_size)
            .map_err(|problem| error(base + 4 + 36 * r, format!("I/O record {r}: {problem}")))?;
    }
    Ok(records)
}

impl BackendPlugin for EthosU {
    fn backend(&self) -> &'static str {
        BACKEND
    }

    fn c_symbol(&self) -> &'static str {
        "ap_ethosu_backend"
    }

    fn handle(&self) -> crate::backends::HandleStorage {
        // The parsed bin stream: four pointers and five 32-bit counts.
        crate::backends::HandleStorage {
            c_size: "AP_ETHOSU_HANDLE_BYTES",
            header: Some("arenaplan/ethosu.h"),
            bytes_32: 36,
        }
    }

    /// No: the backend copies inputs into, and outputs out of, the scratch with the CPU.
    fn npu_reads_io(&self) -> bool {
        false
    }

    /// Region 1, Vela's scratch, holds the copies of the inputs and outputs.
    fn cpu_copies_through(&self, role: ScratchRole) -> bool {
        role == ScratchRole::EthosUScratch
    }

    /// Each record's copy in region 1, the scratch: where Vela's command stream reads the input
    /// or writes the output. A blob that does not parse has none.
    fn io_slots(&self, blob: &[u8]) -> Vec<IoSlot> {
        let Ok(stream) = VelaBinStream::parse(blob) else {
            return Vec::new();
        };
        let sides = [(&stream.inputs, true), (&stream.outputs, false)];
        sides
            .into_iter()
            .flat_map(|(records, input)| {
                records.iter().enumerate().filter_map(move |(index, r)| {
                    let copy = r.copy(stream.scratch_size).ok()?;
                    Some(IoSlot {
                        input,
                        index,
                        role: ScratchRole::EthosUScratch,
                        offset: u64::from(copy.offset),
                        bytes: u64::from(copy.bytes),
                        state_in_place: !input && copy.state_in_place,
                    })
                })
            })
            .collect()
    }

    fn check_io(&self, blob: &[u8], inputs: &[u64], outputs: &[u64]) -> Result<(), String> {
        let stream = VelaBinStream::parse(blob).map_err(|e| e.to_string())?;
        let sides = [
            (&stream.inputs, inputs, true),
            (&stream.outputs, outputs, false),
        ];
        for (records, tensors, input) in sides {
            for (i, (record, &bytes)) in records.iter().zip(tensors).enumerate() {
                let copy = record.copy(stream.scratch_size).map_err(str::to_owned)?;
                copy.fits(bytes, input).map_err(|problem| {
                    let side = if input { "input" } else { "output" };
                    format!("{side} {i} is {problem}")
                })?;
            }
        }
        Ok(())
    }

    /// The stream's optimizer config against the target's NPU (`npu.config`,
    /// `ethos-u55-128`): the product (U55, U65, U85) and the MACs per cycle must be the
    /// target's, as Arm's driver requires before it runs a job.
    fn check_target(
        &self,
        blob: &[u8],
        _compile_specs: &BTreeMap<String, String>,
        target: &Target,
    ) -> Result<(), String> {
        let stream = VelaBinStream::parse(blob).map_err(|e| e.to_string())?;
        let (Some((cfg, _id)), Some(npu)) = (stream.optimizer_config, &target.npu) else {
            return Ok(());
        };
        let Some((product, macs)) = ethos_u_config(&npu.config) else {
            return Ok(());
        };
        let (blob_product, blob_macs) = (cfg >> 28, 1u32 << (cfg & 0xF));
        if (blob_product, blob_macs) != (product, macs) {
            let name = |p: u32| match p {
                0 => "Ethos-U55".to_owned(),
                1 => "Ethos-U65".to_owned(),
                2 => "Ethos-U85".to_owned(),
                other => format!("an Ethos-U of product {other}"),
            };
            return Err(format!(
                "the blob was compiled for {} with {blob_macs} MACs per cycle (its optimizer config, {cfg:#010x}), but target `{}` has {} ({}); compile the model for the target's NPU (Vela `--accelerator-config {}`)",
                name(blob_product),
                target.name,
                name(product),
                npu.config,
                npu.config
            ));
        }
        Ok(())
    }

    fn scratch_from_target(
        &self,
        delegate: &Delegate,
        specs: &[ScratchSpec],
        target: &Target,
    ) -> Option<ScratchSpec> {
        dedicated_sram_fast_scratch(delegate, specs, target)
    }

    fn inspect(
        &self,
        blob: &[u8],
        _specs: &BTreeMap<String, String>,
    ) -> Result<BlobInfo, BlobError> {
        let stream = VelaBinStream::parse(blob)?;
        // The fast scratch size (Dedicated_Sram) is not in the stream: it comes from a
        // declaration or the target (`scratch_from_target`). The scratch role is listed even at
        // size 0, so that fast scratch still lands in its own slot.
        Ok(BlobInfo {
            inputs: stream.inputs.len(),
            outputs: stream.outputs.len(),
            scratch: vec![BlobScratch {
                role: ScratchRole::EthosUScratch,
                size: u64::from(stream.scratch_size),
            }],
            facts: vec![
                ("command stream bytes".into(), stream.cmd_size.to_string()),
                ("weight bytes".into(), stream.weight_size.to_string()),
                (
                    "scratch bytes (Vela)".into(),
                    stream.scratch_size.to_string(),
                ),
            ],
        })
    }
}

/// Ethos-U in Dedicated_Sram mode also needs fast scratch (region 2), whose size Vela does not
/// write into the bin stream. When the blob's declarations lack it, the target's configured
/// size is used (`npu.fast_scratch` in targets.toml), and the plan says so through the origin.
fn dedicated_sram_fast_scratch(
    delegate: &Delegate,
    specs: &[ScratchSpec],
    target: &Target,
) -> Option<ScratchSpec> {
    let from_blob = specs
        .iter()
        .any(|s| matches!(s.origin, Origin::Blob { .. }));
    let has_fast = specs.iter().any(|s| {
        s.role == Some(ScratchRole::EthosUFastScratch)
            || s.pool == PoolChoice::Spec("fast_scratch".into())
    });
    let flags = delegate
        .compile_specs
        .get("compile_flags")
        .map_or("", String::as_str);
    let dedicated = flags.contains("Dedicated_Sram")
        || (!flags.contains("--memory-mode")
            && target.npu.as_ref().and_then(|n| n.memory_mode.as_deref())
                == Some("Dedicated_Sram"));
    if delegate.backend != BACKEND || !from_blob || has_fast || !dedicated {
        return None;
    }
    // With no configured size the declaration is left without one: binding reports it.
    let size = target
        .npu
        .as_ref()
        .and_then(|n| n.fast_scratch_size)
        .map_or(0, |s| i64::try_from(s).unwrap_or(i64::MAX));
    let role = ScratchRole::EthosUFastScratch;
    Some(ScratchSpec {
        size,
        pool: PoolChoice::Spec(role.spec().into()),
        label: Some(role.label().into()),
        origin: Origin::Target {
            target: target.name.clone(),
            setting: "npu.fast_scratch".into(),
        },
        role: Some(role),
    })
}
