//! TFLite models (`.tflite`, file identifier `TFL3`), including Vela output.
//!
//! The main subgraph becomes the program: tensors become values (with data in a buffer:
//! constant, its bytes from the buffer, inline or at the offset a large model gives; variable:
//! state, planned for the whole program and starting as TFLite Micro resets it; otherwise
//! planned, as TFLite Micro does),
//! operators become kernel calls, and Vela's `ethos-u` custom operator becomes a delegate call
//! with a bin stream built from its constants ([`crate::backends::ethos_u::vela_op`]). The
//! `OfflineMemoryAllocation` metadata, when present, is kept as the file's own plan.

use std::path::Path;
use std::sync::Arc;

use super::flatbuf::{root, Table, Vector};
use super::ImportError;
use crate::model::{ConstantData, DType, Program, SourcePlan, Value, ValueKind};

/// Builtin operator code of custom operators.
const CUSTOM: i32 = 32;
/// Most tensors, operators or buffers accepted in one model.
const MAX_ITEMS: usize = 1 << 20;

/// Reads a `.tflite` model from memory. `name` is used for the program's name. The constants
/// keep a copy of `data` (one for all of them); [`load_tflite`] keeps the file's bytes instead.
pub fn read_tflite(data: &[u8], name: &str) -> Result<Program, ImportError> {
    crate::import::checked(read_unchecked(&Arc::new(data.to_vec()), name))
}

fn read_unchecked(file: &Arc<Vec<u8>>, name: &str) -> Result<Program, ImportError> {
    let data: &[u8] = file;
    let model = root(data, Some(b"TFL3"))?;
    let buffers = model.vector_or_empty(4)?;
    let codes = model.vector_or_empty(1)?;
    let subgraphs = model.vector_or_empty(2)?;
    if subgraphs.len() == 0 {
        return Err(ImportError::Invalid("the model has no subgraph".into()));
    }
    if subgraphs.len() > 1 {
        return Err(ImportError::Unsupported(format!(
            "the model has {} subgraphs (control flow); arenaplan imports single-subgraph TFLite models",
            subgraphs.len()
        )));
    }
    let graph = subgraphs.table(0)?;
    let tensors = graph.vector_or_empty(0)?;
    let operators = graph.vector_or_empty(3)?;
    for (what, v) in [
        ("tensors", &tensors),
        ("operators", &operators),
        ("buffers", &buffers),
    ] {
        if v.len() > MAX_ITEMS {
            return Err(ImportError::Invalid(format!(
                "{} {what}; at most {MAX_ITEMS} are accepted",
                v.len()
            )));
        }
    }
    let mut program = Program::new(name);
    for i in 0..tensors.len() {
        let tensor = tensors.table(i)?;
        let value = program.add_value(tensor_value(&tensor, i, &buffers, file)?);
        if is_state(&tensor)? {
            program.state.push(value);
        }
    }
    let count = tensors.len();
    let index = |raw: i32, what: &str| {
        crate::import::index_below(raw, count, what, "tensor", "the subgraph")
    };
    program.inputs = graph
        .vector_or_empty(1)?
        .i32s()?
        .into_iter()
        .map(|t| index(t, "a subgraph input"))
        .collect::<Result<_, _>>()?;
    program.outputs = graph
        .vector_or_empty(2)?
        .i32s()?
        .into_iter()
        .map(|t| index(t, "a subgraph output"))
        .collect::<Result<_, _>>()?;
    // Read first: Vela's operators need it to know where their feature maps sit.
    let plan = offline_plan(&model, &buffers, count)?;
    // Outputs Vela writes over state in place: whoever reads them reads the state.
    let mut is_state_of: Vec<Option<usize>> = vec![None; count];
    for o in 0..operators.len() {
        let op = operators.table(o)?;
        let code_index = op.u32(0, 0)? as usize;
        if code_index >= codes.len() {
            return Err(ImportError::Invalid(format!(
                "operator {o} uses operator code {code_index}, but the model has {}",
                codes.len()
            )));
        }
        let code = codes.table(code_index)?;
        let builtin = i32::from(code.i8(0, 0)?).max(code.i32(3, 0)?);
        let op_name = match code.string(1)? {
            Some(custom) if builtin == CUSTOM => custom.to_owned(),
            _ => crate::import::builtin_name(builtin)
                .map_or(format!("builtin {builtin}"), str::to_owned),
        };
        // By position: -1 marks an omitted optional operand and keeps its place (the lowerings
        // read operands by position); any other negative index is no tensor at all.
        let positional = |v: Vector<'_>, side: &str| -> Result<Vec<Option<usize>>, ImportError> {
            v.i32s()?
                .into_iter()
                .enumerate()
                .map(|(k, t)| match t {
                    -1 => Ok(None),
                    t if t < 0 => Err(ImportError::Invalid(format!(
                        "operator {o} ({op_name})'s {side} {k} is tensor {t}: TFLite marks an omitted operand with -1 and has no other negative index; re-export the model"
                    ))),
                    t => index(t, &format!("operator {o} ({op_name})'s {side} {k}")).map(Some),
                })
                .collect()
        };
        let operands = positional(op.vector_or_empty(1)?, "input")?;
        let absent: Vec<usize> = (0..operands.len())
            .filter(|&k| operands[k].is_none())
            .collect();
        let inputs: Vec<usize> = operands
            .into_iter()
            .flatten()
            .map(|t| is_state_of[t].unwrap_or(t))
            .collect();
        let results = positional(op.vector_or_empty(2)?, "output")?;
        if let Some(k) = results.iter().position(Option::is_none) {
            return Err(ImportError::Invalid(format!(
                "operator {o} ({op_name})'s output {k} is -1: an operator writes every output it lists; re-export the model"
            )));
        }
        let outputs: Vec<usize> = results.into_iter().flatten().collect();
        // Vela writes every operand of its operator (command stream, flash, scratch, fast
        // scratch, then the feature maps): one left out would shift the rest.
        if custom_name(builtin, &code)? == Some("ethos-u") {
            if let Some(&k) = absent.first() {
                return Err(ImportError::Invalid(format!(
                    "operator {o} (ethos-u)'s input {k} is -1: Vela's operator has no optional operand; compile the model with Vela again"
                )));
            }
        }
        let custom = custom_name(builtin, &code)?;
        let instruction = match custom {
            Some("ethos-u") => {
                let call = crate::backends::ethos_u::vela_op::ethos_u_call(
                    &mut program,
                    o,
                    &inputs,
                    outputs,
                    plan.as_ref(),
                )?;
                for (output, state) in call.in_place {
                    is_state_of[output] = Some(state);
                }
                call.instruction
            }
            Some(other) => {
                let options = op.vector(5)?.map(|v| v.bytes()).transpose()?;
                crate::kernels::tflite::custom_call(&mut program, other, options, inputs, outputs)
                    .map_err(|e| match e {
                    ImportError::Flatbuffer(e) => ImportError::Invalid(format!(
                        "operator {o} ({other})'s custom options: {e}; re-export the model"
                    )),
                    e => e,
                })?
            }
            None => {
                let options = match op.table(4)? {
                    Some(t) => Some((op.u8(3, 0)?, t)),
                    None => None,
                };
                crate::kernels::tflite::kernel_call(
                    &mut program,
                    builtin,
                    options,
                    inputs,
                    &absent,
                    outputs,
                )?
            }
        };
        program.body.push(instruction);
    }
    for output in &mut program.outputs {
        *output = is_state_of[*output].unwrap_or(*output);
    }
    program.source_plan = plan;
    Ok(program)
}

/// A custom operator's name (`None` for a builtin).
fn custom_name<'a>(builtin: i32, code: &Table<'a>) -> Result<Option<&'a str>, ImportError> {
    Ok(if builtin == CUSTOM {
        code.string(1)?
    } else {
        None
    })
}

/// Reads a `.tflite` file.
pub fn load_tflite(path: &Path) -> Result<Program, ImportError> {
    let data = super::read_bounded(path)?;
    let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
    crate::import::checked(read_unchecked(&Arc::new(data), name))
}

fn tensor_value(
    t: &Table<'_>,
    index: usize,
    buffers: &Vector<'_>,
    file: &Arc<Vec<u8>>,
) -> Result<Value, ImportError> {
    let name = t
        .string(3)?
        .map_or_else(|| format!("t{index}"), str::to_owned);
    let type_code = t.i8(1, 0)?;
    let (dtype, bits) = tensor_type(type_code)?;
    let mut shape = Vec::new();
    for d in t.vector_or_empty(0)?.i32s()? {
        let d = u64::try_from(d).map_err(|_| {
            ImportError::Unsupported(format!(
                "tensor `{name}` has a dynamic dimension ({d}); arenaplan plans static shapes"
            ))
        })?;
        shape.push(d);
    }
    let elements = shape
        .iter()
        .try_fold(1u64, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| {
            ImportError::Invalid(format!("tensor `{name}`: shape {shape:?} is too large"))
        })?;
    let bytes = elements
        .checked_mul(bits)
        .map(|b| b.div_ceil(8))
        .ok_or_else(|| {
            ImportError::Invalid(format!("tensor `{name}`: shape {shape:?} is too large"))
        })?;
    let buffer = t.u32(2, 0)? as usize;
    let data = match buffer {
        0 => None,
        _ if buffer >= buffers.len() => {
            return Err(ImportError::Invalid(format!(
                "tensor `{name}` uses buffer {buffer}, but the model has {}",
                buffers.len()
            )))
        }
        _ => buffer_data(&buffers.table(buffer)?, file, &name)?,
    };
    // A sparse tensor's buffer holds its compressed form, shorter than the dense shape.
    let sparse = t.table(6)?.is_some();
    if let (Some(d), false) = (&data, sparse) {
        if (d.bytes().len() as u64) < bytes {
            return Err(ImportError::Invalid(format!(
                "tensor `{name}` needs {bytes} bytes, but its buffer {buffer} holds {}",
                d.bytes().len()
            )));
        }
    }
    let quant = quantization(t)?;
    let (kind, data) = match data {
        // A variable tensor (an LSTM's or SVDF's state) is state: planned for the whole
        // program, kept between invocations, and starting as TFLM's ResetVariableTensors leaves
        // it (whatever its buffer holds) — an int8 tensor at its zero point, any other at zero.
        _ if is_state(t)? => {
            let fill = match (dtype, quant.as_ref().and_then(|q| q.zero_point.first())) {
                (DType::Int8, Some(&zero)) => zero as i8 as u8,
                _ => 0,
            };
            let bytes = usize::try_from(bytes)
                .ok()
                .filter(|&b| b <= MAX_STATE_BYTES)
                .ok_or_else(|| {
                    ImportError::Unsupported(format!(
                        "variable tensor `{name}` has {bytes} bytes; arenaplan keeps at most \
                         {MAX_STATE_BYTES} of state per tensor"
                    ))
                })?;
            (
                ValueKind::Planned,
                Some(ConstantData::new(vec![fill; bytes])),
            )
        }
        Some(d) => (ValueKind::Constant, Some(d)),
        None => (ValueKind::Planned, None),
    };
    Ok(Value {
        name,
        dtype,
        shape,
        bytes,
        kind,
        pool: None,
        data,
        evalue: crate::model::EValue::Tensor,
        dim_order: Vec::new(),
        quant,
    })
}

/// The most bytes one variable tensor may hold: its initial contents are built in memory, so
/// a length read from a file is bounded (16 MiB; a microcontroller's state is far smaller).
const MAX_STATE_BYTES: usize = 16 << 20;

/// Whether a tensor is a variable tensor, which the program keeps (see [`tensor_value`]).
fn is_state(t: &Table<'_>) -> Result<bool, ImportError> {
    Ok(t.bool(5, false)?)
}

/// A tensor's quantization parameters (`Tensor.quantization`: scales, zero points and the
/// channel dimension), when it has any.
fn quantization(t: &Table<'_>) -> Result<Option<crate::model::Quantization>, ImportError> {
    let Some(q) = t.table(4)? else {
        return Ok(None);
    };
    let scales = q.vector_or_empty(2)?;
    let scale_bits = (0..scales.len())
        .map(|i| scales.u32(i))
        .collect::<Result<Vec<u32>, _>>()?;
    let zero_point = q.vector_or_empty(3)?.i64s()?;
    if scale_bits.is_empty() && zero_point.is_empty() {
        return Ok(None);
    }
    Ok(Some(crate::model::Quantization {
        scale_bits,
        zero_point,
        axis: q.i32(6, 0)?,
    }))
}

/// A buffer's bytes: inline, or at `offset` (from the start of the file) for `size` bytes, as
/// models beyond the flatbuffer's 2 GiB keep them. `None` for an empty buffer.
fn buffer_data(
    b: &Table<'_>,
    file: &Arc<Vec<u8>>,
    tensor: &str,
) -> Result<Option<ConstantData>, ImportError> {
    let range = match b.vector(0)? {
        Some(v) if v.len() > 0 => v.byte_range()?,
        _ => {
            // Only an offset above 1 places data outside the flatbuffer.
            let (offset, size) = (b.u64(1, 0)?, b.u64(2, 0)?);
            if size == 0 || offset <= 1 {
                return Ok(None);
            }
            match offset.checked_add(size) {
                Some(end) if end <= file.len() as u64 => offset as usize..end as usize,
                _ => {
                    return Err(ImportError::Invalid(format!(
                        "tensor `{tensor}`: its buffer ({size} bytes at offset {offset}) is outside the file ({} bytes)",
                        file.len()
                    )))
                }
            }
        }
    };
    Ok(ConstantData::range(file, range))
}

/// The IR type and bits per element of a TFLite tensor type.
fn tensor_type(code: i8) -> Result<(DType, u64), ImportError> {
    Ok(match code {
        0 => (DType::Float32, 32),
        1 => (DType::Float16, 16),
        2 => (DType::Int32, 32),
        3 => (DType::UInt8, 8),
        4 => (DType::Int64, 64),
        6 => (DType::Bool, 8),
        7 => (DType::Int16, 16),
        8 => (DType::Bytes, 64), // complex64
        9 => (DType::Int8, 8),
        10 => (DType::Float64, 64),
        11 => (DType::Bytes, 128), // complex128
        12 => (DType::UInt64, 64),
        15 => (DType::UInt32, 32),
        16 => (DType::UInt16, 16),
        17 => (DType::Bytes, 4), // int4, packed
        18 => (DType::BFloat16, 16),
        other => {
            return Err(ImportError::Unsupported(format!(
                "tensor type {other} (string, resource or variant tensors have no static size)"
            )))
        }
    })
}

/// The `OfflineMemoryAllocation` metadata: `[version, subgraphs, tensors, offset…]` as `i32`,
/// offset −1 for tensors planned online.
fn offline_plan(
    model: &Table<'_>,
    buffers: &Vector<'_>,
    tensors: usize,
) -> Result<Option<SourcePlan>, ImportError> {
    let metadata = model.vector_or_empty(6)?;
    for i in 0..metadata.len() {
        let m = metadata.table(i)?;
        if m.string(0)? != Some("OfflineMemoryAllocation") {
            continue;
        }
        let buffer = m.u32(1, 0)? as usize;
        if buffer >= buffers.len() {
            return Err(ImportError::Invalid(format!(
                "OfflineMemoryAllocation uses buffer {buffer}, but the model has {}",
                buffers.len()
            )));
        }
        let data = buffers.table(buffer)?.vector_or_empty(0)?.bytes()?;
        let word = |k: usize| -> Option<i32> {
            data.get(4 * k..4 * k + 4)
                .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        let n = word(2).unwrap_or(0);
        if n < 0 || n as usize != tensors || data.len() < 12 + 4 * tensors {
            return Err(ImportError::Invalid(format!(
                "OfflineMemoryAllocation lists {n} offsets in {} bytes for {tensors} tensors",
                data.len()
            )));
        }
        let offsets = (0..tensors)
            .map(|t| {
                word(3 + t)
                    .and_then(|o| u64::try_from(o).ok())
                    .map(|o| (1, o))
            })
            .collect();
        return Ok(Some(SourcePlan {
            buffer_sizes: Vec::new(),
            offsets,
        }));
    }
    Ok(None)
}
