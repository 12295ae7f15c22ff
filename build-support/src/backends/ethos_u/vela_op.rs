//! Vela's `ethos-u` custom operator in a TFLite model, as a delegate call the runtime runs.
//!
//! The operator's inputs are (command stream, weights, scratch, fast scratch, feature maps…),
//! its outputs feature maps. The command stream addresses three regions: 0 the weights, 1 the
//! scratch and 2 the fast scratch (the same tensor as the scratch in Shared_Sram). The feature
//! maps are in region 1 too: Vela's `OfflineMemoryAllocation` metadata places the scratch
//! tensor and every feature map in one arena, and a feature map's place in region 1 is its
//! offset there minus the scratch tensor's.
//!
//! That is everything a Vela bin stream (ExecuTorch's Ethos-U blob) says, so the call gets one,
//! assembled from these constants and offsets ([`write_bin_stream`]): the runtime's Ethos-U
//! backend then runs it as it runs an ExecuTorch partition, copying the feature maps into the
//! scratch at Vela's offsets and the outputs out, while the graph's tensors are planned by
//! arenaplan like any other. Without the metadata the places are unknown: the call plans, but
//! carries no blob (and so cannot run).

use std::collections::BTreeMap;

use super::{write_bin_stream, BinStreamParts, IoRecord};
use crate::backends::ScratchRole;
use crate::import::ImportError;
use crate::model::{
    Delegate, DelegateCall, Instruction, Origin, PoolChoice, Program, ScratchSpec, SourcePlan,
    ValueKind,
};

/// Most feature maps on either side of one operator (the runtime's `AP_ETHOSU_MAX_IO`).
const MAX_IO: usize = 1024;

/// Vela's operator as a call, and the outputs it writes into state in place.
#[derive(Debug)]
pub(crate) struct VelaCall {
    /// The delegate call.
    pub instruction: Instruction,
    /// `(output, state)`: an output of the operator at the place Vela gives a state input of
    /// it. Vela lowers an LSTM so that each step writes the new state over the variable's own
    /// buffer (its offline plan puts them at one offset); such an output is not memory of its
    /// own but the state itself, and readers of it read the state.
    pub in_place: Vec<(usize, usize)>,
}

/// The delegate call for operator `op`; `plan` is the model's `OfflineMemoryAllocation`.
pub(crate) fn ethos_u_call(
    program: &mut Program,
    op: usize,
    inputs: &[usize],
    outputs: Vec<usize>,
    plan: Option<&SourcePlan>,
) -> Result<VelaCall, ImportError> {
    if inputs.len() < 4 {
        return Err(ImportError::Invalid(format!(
            "operator {op} (ethos-u) has {} inputs; Vela's operator takes command stream, weights, scratch and fast scratch first",
            inputs.len()
        )));
    }
    let (scratch, fast) = (inputs[2], inputs[3]);
    let (features, outputs, in_place) = in_place_state(program, &inputs[4..], outputs, plan);
    let blob = match plan {
        Some(plan) => Some(bin_stream(program, op, inputs, &features, &outputs, plan)?),
        None => None,
    };
    let mut declared = Vec::new();
    for (tensor, role) in [
        (scratch, ScratchRole::EthosUScratch),
        (fast, ScratchRole::EthosUFastScratch),
    ] {
        if role == ScratchRole::EthosUFastScratch
            && fast_is_scratch(program, scratch, fast, inputs[0], plan)
        {
            continue; // Shared_Sram: one memory serves both
        }
        let value = &mut program.values[tensor];
        // The scratch tensors are the call's scratch, not tensors of the graph.
        value.kind = ValueKind::Unmanaged;
        // A role of zero bytes keeps its slot when a later role needs memory (binding makes
        // it an empty argument); trailing ones are dropped below.
        declared.push(ScratchSpec {
            size: i64::try_from(value.bytes).unwrap_or(i64::MAX),
            pool: PoolChoice::Spec(role.spec().into()),
            label: Some(role.label().into()),
            origin: Origin::ModelTensor {
                tensor: value.name.clone(),
            },
            role: Some(role),
        });
    }
    while declared.last().is_some_and(|s| s.size == 0) {
        declared.pop();
    }
    for &t in &inputs[..2] {
        program.values[t].kind = ValueKind::Constant;
    }
    let delegate = program.delegates.len();
    program.delegates.push(Delegate {
        name: format!("ethos-u{op}"),
        backend: "EthosUBackend".into(),
        blob,
        compile_specs: BTreeMap::new(),
        scratch: declared,
    });
    Ok(VelaCall {
        instruction: Instruction::Delegate(DelegateCall {
            delegate,
            inputs: features,
            outputs,
            scratch: Vec::new(),
        }),
        in_place,
    })
}

/// Whether the fast scratch is the scratch: one tensor (Vela 5's Shared_Sram), or a tensor
/// Vela's offline plan puts at the scratch's place with its size (Vela 2 to 4 write a
/// `scratch_fast` tensor of their own there) when the command stream never addresses region 2.
fn fast_is_scratch(
    program: &Program,
    scratch: usize,
    fast: usize,
    cmd: usize,
    plan: Option<&SourcePlan>,
) -> bool {
    if fast == scratch {
        return true;
    }
    let Some(plan) = plan else {
        return false;
    };
    let place = |t: usize| plan.offsets.get(t).copied().flatten();
    let bytes = |t: usize| program.values[t].bytes;
    let cmd_bytes = program.values[cmd]
        .data
        .as_ref()
        .map_or(&[][..], |d| d.bytes());
    place(scratch).is_some()
        && place(scratch) == place(fast)
        && bytes(scratch) == bytes(fast)
        && super::stream_regions(cmd_bytes).is_some_and(|used| used & 0b100 == 0)
}

/// The call's feature-map inputs and outputs with the state Vela updates in place passed once,
/// as an output (the rule for state updated in place, [`crate::model::check`]), and the
/// outputs it replaced: each output Vela writes over a state input becomes that state. An
/// output is the state's when the offline plan puts it at the state's offset with the state's
/// size.
fn in_place_state(
    program: &Program,
    feature_inputs: &[usize],
    outputs: Vec<usize>,
    plan: Option<&SourcePlan>,
) -> (Vec<usize>, Vec<usize>, Vec<(usize, usize)>) {
    let Some(plan) = plan else {
        return (feature_inputs.to_vec(), outputs, Vec::new());
    };
    let place = |t: usize| plan.offsets.get(t).copied().flatten();
    let mut kept = Vec::new();
    let mut in_place = Vec::new();
    for o in outputs {
        let state = feature_inputs.iter().copied().find(|&s| {
            program.state.contains(&s)
                && place(s).is_some()
                && place(s) == place(o)
                && program.values[s].bytes == program.values[o].bytes
        });
        match state {
            Some(s) => {
                in_place.push((o, s));
                if !kept.contains(&s) {
                    kept.push(s);
                }
            }
            None => kept.push(o),
        }
    }
    let inputs = feature_inputs
        .iter()
        .copied()
        .filter(|s| !in_place.iter().any(|&(_, state)| state == *s))
        .collect();
    (inputs, kept, in_place)
}

/// The bin stream of operator `op`: its command stream and weights, its scratch size, and each
/// feature map's place in the scratch.
fn bin_stream(
    program: &Program,
    op: usize,
    inputs: &[usize],
    features: &[usize],
    outputs: &[usize],
    plan: &SourcePlan,
) -> Result<Vec<u8>, ImportError> {
    let invalid =
        |problem: String| ImportError::Invalid(format!("operator {op} (ethos-u): {problem}"));
    let constant = |t: usize, what: &str| -> Result<&[u8], ImportError> {
        let value = &program.values[t];
        let bytes = value.data.as_ref().map_or(&[][..], |d| d.bytes());
        if bytes.len() > u32::MAX as usize {
            return Err(invalid(format!(
                "its {what} `{}` has {} bytes; a bin stream block holds at most 4 GiB",
                value.name,
                bytes.len()
            )));
        }
        Ok(bytes)
    };
    let cmd = constant(inputs[0], "command stream")?;
    if !(cmd.starts_with(b"COP1") || cmd.starts_with(b"COP2")) {
        return Err(invalid(format!(
            "its command stream `{}` does not start with COP1 or COP2 (the driver's payload header); recompile the model with Vela",
            program.values[inputs[0]].name
        )));
    }
    let weights = constant(inputs[1], "weights")?;
    let scratch = &program.values[inputs[2]];
    let scratch_size = u32::try_from(scratch.bytes).map_err(|_| {
        invalid(format!(
            "its scratch `{}` has {} bytes; the NPU addresses at most 4 GiB",
            scratch.name, scratch.bytes
        ))
    })?;
    let place = |t: usize| plan.offsets.get(t).copied().flatten().map(|(_, o)| o);
    let base = place(inputs[2]).ok_or_else(|| {
        if scratch.bytes == 0 {
            // Vela 1.x: a scratch of no bytes, left to the interpreter, while the stream
            // addresses its intermediate feature maps in region 1 all the same.
            invalid(format!(
                "its scratch `{}` has 0 bytes and no place in Vela's OfflineMemoryAllocation, as Vela releases before 2.0 write it: how much memory the NPU uses is unknown; recompile the model with Vela 2.0 or later",
                scratch.name
            ))
        } else {
            invalid(format!(
                "Vela's OfflineMemoryAllocation leaves the scratch `{}` unplaced, so the feature maps' places in it are unknown",
                scratch.name
            ))
        }
    })?;
    let records = |tensors: &[usize]| -> Result<Vec<IoRecord>, ImportError> {
        if tensors.len() > MAX_IO {
            return Err(ImportError::Unsupported(format!(
                "operator {op} (ethos-u) has {} feature maps on one side; the runtime runs at most {MAX_IO}",
                tensors.len()
            )));
        }
        tensors
            .iter()
            .map(|&t| {
                let mut record = io_record(program, t, place(t), base, scratch_size)?;
                // State updated in place: the NPU reads its old value where it writes the new.
                if program.state.contains(&t) && !features.contains(&t) {
                    record.region |= IoRecord::STATE_IN_PLACE;
                }
                Ok(record)
            })
            .collect::<Result<_, String>>()
            .map_err(invalid)
    };
    Ok(write_bin_stream(&BinStreamParts {
        cmd,
        weights,
        scratch_size,
        inputs: &records(features)?,
        outputs: &records(outputs)?,
    }))
}

/// Feature map `t`'s record: its shape (six dimensions, leading ones added), element size and
/// offset in the scratch, which starts at arena offset `base`.
fn io_record(
    program: &Program,
    t: usize,
    place: Option<u64>,
    base: u64,
    scratch_size: u32,
) -> Result<IoRecord, String> {
    let value = &program.values[t];
    let name = &value.name;
    let at = place.ok_or_else(|| {
        format!("Vela's OfflineMemoryAllocation leaves feature map `{name}` unplaced, so its place in the scratch is unknown")
    })?;
    let offset = at
        .checked_sub(base)
        .and_then(|o| u32::try_from(o).ok())
        .ok_or_else(|| {
            format!("feature map `{name}` is at arena offset {at}, outside the scratch tensor at {base}")
        })?;
    if value.shape.len() > 6 {
        return Err(format!(
            "feature map `{name}` has {} dimensions; the NPU's records hold six",
            value.shape.len()
        ));
    }
    let mut shape = [1u32; 6];
    for (slot, &d) in shape[6 - value.shape.len()..].iter_mut().zip(&value.shape) {
        *slot = u32::try_from(d)
            .map_err(|_| format!("feature map `{name}`: dimension {d} is too large"))?;
    }
    let elements: u64 = value.shape.iter().product();
    let elem_size = match elements {
        0 => 1,
        n if value.bytes.is_multiple_of(n) => value.bytes / n,
        _ => {
            return Err(format!(
                "feature map `{name}` packs elements below a byte ({} bytes for {elements}); the runtime copies whole bytes",
                value.bytes
            ))
        }
    };
    if u64::from(offset) + value.bytes > u64::from(scratch_size) {
        return Err(format!(
            "feature map `{name}` ({} bytes at scratch offset {offset}) does not fit in the scratch's {scratch_size} bytes",
            value.bytes
        ));
    }
    Ok(IoRecord {
        shape,
        elem_size: elem_size as u32,
        offset,
        region: 1,
    })
}

#[cfg(test)]
mod tests {
    use super::ethos_u_call;
    use crate::backends::{IoRecord, VelaBinStream};
    use crate::model::{ConstantData, DType, Instruction, Program, SourcePlan, Value, ValueKind};

    /// Vela's operator over a 32-byte scratch: command stream `cmd`, an 8-byte input at arena
    /// offset `input_at` and an 8-byte output at 0 (the scratch at 0).
    fn operator(cmd: &[u8], input_at: u64) -> (Program, Vec<usize>, SourcePlan) {
        let mut program = Program::new("m");
        let constant = |name: &str, bytes: Vec<u8>| {
            let mut v = Value::planned(name, DType::UInt8, vec![bytes.len() as u64]);
            v.kind = ValueKind::Constant;
            v.data = Some(ConstantData::new(bytes));
            v
        };
        program.add_value(constant("cms", cmd.to_vec()));
        program.add_value(constant("weights", vec![9; 48]));
        program.add_value(Value::planned("scratch", DType::UInt8, vec![32]));
        program.add_value(Value::planned("x", DType::Int8, vec![1, 8]));
        program.add_value(Value::planned("y", DType::Int8, vec![1, 8]));
        let plan = SourcePlan {
            buffer_sizes: Vec::new(),
            offsets: vec![None, None, Some((1, 0)), Some((1, input_at)), Some((1, 0))],
        };
        (program, vec![0, 1, 2, 2, 3], plan)
    }

    #[test]
    fn the_operator_becomes_a_bin_stream_with_vela_s_offsets() {
        let (mut program, inputs, plan) = operator(b"COP1\x01\x00\x10\x00", 16);
        let call = ethos_u_call(&mut program, 0, &inputs, vec![4], Some(&plan)).unwrap();
        assert!(call.in_place.is_empty());
        let Instruction::Delegate(call) = call.instruction else {
            panic!("a delegate call")
        };
        assert_eq!((call.inputs, call.outputs), (vec![3], vec![4]));
        let stream = VelaBinStream::parse(program.delegates[0].blob.as_deref().unwrap()).unwrap();
        assert_eq!(
            (stream.cmd_size, stream.weight_size, stream.scratch_size),
            (8, 48, 32)
        );
        assert_eq!(stream.inputs[0].offset, 16);
        assert_eq!(stream.inputs[0].shape, [1, 1, 1, 1, 1, 8]);
        assert_eq!(
            (stream.outputs[0].offset, stream.outputs[0].elem_size),
            (0, 1)
        );
    }

    #[test]
    fn an_output_at_a_state_input_s_place_is_that_state_written_in_place() {
        // x is state at 16, y (same size) at 16 too: y is the state's new value.
        let (mut program, inputs, mut plan) = operator(b"COP1\x01\x00\x10\x00", 16);
        program.state.push(3);
        plan.offsets[4] = Some((1, 16));
        let call = ethos_u_call(&mut program, 0, &inputs, vec![4], Some(&plan)).unwrap();
        assert_eq!(call.in_place, vec![(4, 3)]);
        let Instruction::Delegate(call) = call.instruction else {
            panic!("a delegate call")
        };
        assert_eq!((call.inputs, call.outputs), (vec![], vec![3]));
        let stream = VelaBinStream::parse(program.delegates[0].blob.as_deref().unwrap()).unwrap();
        assert!(stream.inputs.is_empty());
        assert_eq!(stream.outputs[0].offset, 16);
        assert_eq!(stream.outputs[0].region, 1 | IoRecord::STATE_IN_PLACE);
        // Not state, or another size: an output of its own.
        let (mut program, inputs, mut plan) = operator(b"COP1\x01\x00\x10\x00", 16);
        plan.offsets[4] = Some((1, 16));
        let call = ethos_u_call(&mut program, 0, &inputs, vec![4], Some(&plan)).unwrap();
        assert!(call.in_place.is_empty());
    }

    #[test]
    fn without_vela_s_offsets_the_call_plans_but_carries_no_blob() {
        let (mut program, inputs, _) = operator(b"COP1\x01\x00\x10\x00", 16);
        ethos_u_call(&mut program, 0, &inputs, vec![4], None).unwrap();
        assert!(program.delegates[0].blob.is_none());
        assert_eq!(program.delegates[0].scratch[0].size, 32);
    }

    #[test]
    fn a_feature_map_outside_the_scratch_or_a_foreign_command_stream_is_refused() {
        let (mut program, inputs, plan) = operator(b"COP1\x01\x00\x10\x00", 28);
        let e = ethos_u_call(&mut program, 3, &inputs, vec![4], Some(&plan)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "operator 3 (ethos-u): feature map `x` (8 bytes at scratch offset 28) does not fit in the scratch's 32 bytes"
        );
        let (mut program, inputs, plan) = operator(b"NOPE\x00\x00\x00\x00", 16);
        let e = ethos_u_call(&mut program, 0, &inputs, vec![4], Some(&plan)).unwrap_err();
        assert!(
            e.to_string().contains("does not start with COP1 or COP2"),
            "{e}"
        );
    }
}
