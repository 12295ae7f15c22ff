//! One execution plan as a program: its values, its instruction chain as calls and branches,
//! its delegates, and the program's own plan kept for comparison.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::chain::{kernel_args, structure, Raw};
use super::constants::Constants;
use super::values::{delegate, evalue, resolve_int_lists};
use super::{ExtendedHeader, MAX_ITEMS};
use crate::import::flatbuf::{Table, Vector};
use crate::import::ImportError;
use crate::model::{
    ConstantData, DType, DelegateCall, EValue, Instruction, KernelCall, Program, SourcePlan, Value,
    ValueKind,
};

/// One execution plan as a program, with each value's fully qualified name if the file gives
/// one.
pub(super) fn read_plan(
    file: &Arc<Vec<u8>>,
    program_table: &Table<'_>,
    plan: &Table<'_>,
    header: Option<ExtendedHeader>,
    name: &str,
) -> Result<(Program, Vec<Option<String>>), ImportError> {
    let data: &[u8] = file;
    let program_table = *program_table;
    let plan = *plan;
    let values = plan.vector_or_empty(2)?;
    if values.len() > MAX_ITEMS {
        return Err(ImportError::Invalid(format!(
            "{} values; at most {MAX_ITEMS} are accepted",
            values.len()
        )));
    }
    let mut program = Program::new(name);
    let mut source = SourcePlan {
        buffer_sizes: plan
            .vector_or_empty(8)?
            .i64s()?
            .into_iter()
            .map(|s| {
                u64::try_from(s)
                    .map_err(|_| ImportError::Invalid(format!("negative planned buffer size {s}")))
            })
            .collect::<Result<_, _>>()?,
        offsets: Vec::with_capacity(values.len()),
    };
    let constants = Constants::new(file, &program_table, header)?;
    let mut fqns = Vec::with_capacity(values.len());
    // Tensor lists' items (a multi-output op returns its outputs as one).
    let mut lists: BTreeMap<usize, Vec<i64>> = BTreeMap::new();
    // Optional tensor lists' items (-1 for None): an index_put's indices.
    let mut optional_lists: BTreeMap<usize, Vec<i64>> = BTreeMap::new();
    // Int lists' items (indices of Int values), resolved once the runtime-written ints are known.
    let mut int_lists: BTreeMap<usize, Vec<i64>> = BTreeMap::new();
    for i in 0..values.len() {
        let table = values.table(i)?;
        // The items of lists: value indices (-1 for None in an optional tensor list).
        let kind = table.u8(0, 0)?;
        if let (7 | 10 | 11, Some(list)) = (kind, table.table(1)?) {
            let items = list.vector_or_empty(0)?;
            match kind {
                7 => int_lists.insert(i, items.i64s()?),
                10 => lists.insert(i, items.i32s()?.into_iter().map(i64::from).collect()),
                _ => optional_lists.insert(i, items.i32s()?.into_iter().map(i64::from).collect()),
            };
        }
        let (value, offset) = evalue(&table, i, &constants)?;
        fqns.push(fully_qualified_name(&table)?);
        program.add_value(value);
        source.offsets.push(offset);
    }
    let count = values.len();
    let list_items = tensor_list_arguments(&mut program, &lists, &optional_lists)?;
    // The `None` value it may add has no place in the file's plan and no name.
    source.offsets.resize(program.values.len(), None);
    fqns.resize(program.values.len(), None);
    let index =
        |raw: i32, what: &str| crate::import::index_below(raw, count, what, "value", "the plan");
    let list = |v: Vector<'_>, what: &str| -> Result<Vec<usize>, ImportError> {
        v.i32s()?.into_iter().map(|i| index(i, what)).collect()
    };
    program.inputs = list(plan.vector_or_empty(3)?, "a plan input")?;
    program.outputs = list(plan.vector_or_empty(4)?, "a plan output")?;
    let operators = plan.vector_or_empty(6)?;
    let delegates = plan.vector_or_empty(7)?;
    let mut io_split: Vec<Option<(usize, usize)>> = Vec::new();
    for d in 0..delegates.len() {
        let (delegate, split) = delegate(&program_table, &delegates.table(d)?, d, data, header)?;
        program.delegates.push(delegate);
        io_split.push(split);
    }
    let chains = plan.vector_or_empty(5)?;
    if chains.len() > 1 {
        return Err(ImportError::Unsupported(format!(
            "the plan has {} chains; arenaplan imports single-chain programs",
            chains.len()
        )));
    }
    let mut raw: Vec<Raw> = Vec::new();
    let mut carried: Vec<usize> = Vec::new();
    let instructions = match chains.len() {
        0 => Vec::new(),
        _ => chains.table(0)?.vector_or_empty(2)?.tables()?,
    };
    if instructions.len() > MAX_ITEMS {
        return Err(ImportError::Invalid(format!(
            "{} instructions; at most {MAX_ITEMS} are accepted",
            instructions.len()
        )));
    }
    for (n, instruction) in instructions.iter().enumerate() {
        let kind = instruction.u8(0, 0)?;
        let args_table = instruction
            .table(1)?
            .ok_or_else(|| ImportError::Invalid(format!("instruction {n} has no arguments")))?;
        let ins = match kind {
            1 => {
                let op = crate::import::index_below(
                    args_table.i32(0, 0)?,
                    operators.len(),
                    &format!("instruction {n}"),
                    "operator",
                    "the plan",
                )?;
                let operator = operators.table(op)?;
                let name = operator.string(0)?.unwrap_or("?");
                let overload = operator.string(1)?.unwrap_or("");
                let op = if overload.is_empty() {
                    name.to_owned()
                } else {
                    format!("{name}.{overload}")
                };
                let args = list(args_table.vector_or_empty(1)?, &format!("instruction {n}"))?;
                let (inputs, outputs) = kernel_args(&op, args, &lists);
                if let Some(&v) = outputs.iter().find(|v| list_items.contains_key(v)) {
                    return Err(ImportError::Unsupported(format!(
                        "instruction {n} (`{op}`) writes tensor list value {v} other than as its `out` list: not an operator arenaplan can run"
                    )));
                }
                let inputs = expand_tensor_lists(inputs, &list_items);
                Instruction::Kernel(KernelCall::new(op, inputs, outputs))
            }
            2 => {
                let delegate = crate::import::index_below(
                    args_table.i32(0, 0)?,
                    program.delegates.len(),
                    &format!("instruction {n}"),
                    "delegate",
                    "the plan",
                )?;
                let args = list(args_table.vector_or_empty(1)?, &format!("instruction {n}"))?;
                let (inputs, outputs) = match io_split[delegate] {
                    Some((i, o)) if i + o == args.len() => (args[..i].to_vec(), args[i..].to_vec()),
                    // Scratch a program already carries (ExecuTorch's delegate scratch, the
                    // pass this project generalises): trailing 1-D byte tensors. Stripped here;
                    // the scratch pass plans them again.
                    Some((i, o))
                        if args.len() > i + o
                            && args[i + o..].iter().all(|&v| program.values[v].is_byte_buffer()) =>
                    {
                        carried.extend_from_slice(&args[i + o..]);
                        (args[..i].to_vec(), args[i..i + o].to_vec())
                    }
                    Some((i, o)) => {
                        return Err(ImportError::Invalid(format!(
                            "instruction {n}: delegate `{}` is called with {} arguments but its blob declares {i} inputs and {o} outputs",
                            program.delegates[delegate].name,
                            args.len()
                        )))
                    }
                    // Unknown backend: the blob alone knows the split; keep the list whole.
                    None => (args, Vec::new()),
                };
                Instruction::Delegate(DelegateCall {
                    delegate,
                    inputs,
                    outputs,
                    scratch: Vec::new(),
                })
            }
            3 => Instruction::Kernel(KernelCall::new(
                "et:move",
                vec![index(args_table.i32(0, 0)?, "a move")?],
                vec![index(args_table.i32(1, 0)?, "a move")?],
            )),
            4 => {
                let destination = args_table.i32(1, 0)?;
                if destination <= n as i32 {
                    return Err(ImportError::Unsupported(format!(
                        "instruction {n} jumps back to {destination} (a loop); arenaplan runs forward jumps (branches) only"
                    )));
                }
                raw.push(Raw::JumpFalse {
                    condition: index(args_table.i32(0, 0)?, "a jump condition")?,
                    to: destination as usize,
                });
                continue;
            }
            // A free returns dynamic memory: planned memory needs none.
            5 => {
                index(args_table.i32(0, 0)?, "a free")?;
                raw.push(Raw::Nothing);
                continue;
            }
            other => {
                return Err(ImportError::Invalid(format!(
                    "instruction {n} has unknown kind {other}"
                )))
            }
        };
        raw.push(Raw::Call(ins));
    }
    // A scalar a kernel writes (a symbolic size, a condition), or the caller gives, is state
    // of the run, not a constant.
    let mut written = program.inputs.clone();
    for r in &raw {
        if let Raw::Call(Instruction::Kernel(k)) = r {
            written.extend(k.outputs.iter().copied());
        }
    }
    for v in written {
        let value = &mut program.values[v];
        if value.kind == ValueKind::Constant
            && value.shape.is_empty()
            && source.offsets[v].is_none()
        {
            value.kind = ValueKind::Planned;
            value.data = None;
        }
    }
    resolve_int_lists(&mut program, &int_lists);
    let count = raw.len();
    program.body = structure(&mut raw, 0, count, &program.values, 0)?;
    program.source_plan = Some(source);
    drop_carried_scratch(&mut program, &carried, &mut fqns)?;
    // Mutable tensors are state: those with initial contents, those the file names, and those
    // an in-place operator updates.
    let updated = crate::import::in_place::updated_in_place(&program);
    program.state = (0..program.values.len())
        .filter(|&v| {
            let value = &program.values[v];
            value.kind == ValueKind::Planned
                && (value.data.is_some() || fqns[v].is_some() || updated.contains(&v))
        })
        .collect();
    if let Some(source) = &program.source_plan {
        let offsets = source.offsets.clone();
        crate::import::views::materialize_views(&mut program, &offsets);
    }
    crate::import::in_place::adopt_in_place_updates(&mut program);
    crate::import::arm_moves::fold_arm_moves(&mut program);
    Ok((program, fqns))
}

/// Turns each tensor list value into the head of its expansion ([`EValue::TensorList`]: its
/// count, 8 bytes) and returns each list's elements as value ids, an optional list's missing
/// elements as one `None` value added for them.
pub(super) fn tensor_list_arguments(
    program: &mut Program,
    lists: &BTreeMap<usize, Vec<i64>>,
    optional: &BTreeMap<usize, Vec<i64>>,
) -> Result<BTreeMap<usize, Vec<usize>>, ImportError> {
    let count = program.values.len();
    let mut none = None;
    let mut out = BTreeMap::new();
    for (&v, items) in lists.iter().chain(optional) {
        let mut elements = Vec::with_capacity(items.len());
        for &item in items {
            let element = match usize::try_from(item) {
                Ok(i) if i < count && program.values[i].evalue == EValue::Tensor => i,
                Err(_) if item == -1 && optional.contains_key(&v) => *none.get_or_insert_with(|| {
                    program.add_value(Value {
                        name: "none".into(),
                        dtype: DType::Bytes,
                        shape: Vec::new(),
                        bytes: 0,
                        kind: ValueKind::Constant,
                        pool: None,
                        data: Some(ConstantData::new(Vec::new())),
                        evalue: EValue::None,
                        dim_order: Vec::new(),
                        quant: None,
                    })
                }),
                _ => {
                    return Err(ImportError::Invalid(format!(
                        "value {v}: a tensor list's item {item} is not a tensor of the plan's {count} values"
                    )))
                }
            };
            elements.push(element);
        }
        let head = &mut program.values[v];
        head.kind = ValueKind::Constant;
        head.evalue = EValue::TensorList;
        head.dtype = DType::Int64;
        head.shape = Vec::new();
        head.bytes = 8;
        head.data = Some(ConstantData::new(
            (elements.len() as u64).to_le_bytes().to_vec(),
        ));
        out.insert(v, elements);
    }
    Ok(out)
}

/// A call's inputs with each tensor list followed by its elements.
pub(super) fn expand_tensor_lists(
    inputs: Vec<usize>,
    lists: &BTreeMap<usize, Vec<usize>>,
) -> Vec<usize> {
    let mut out = Vec::with_capacity(inputs.len());
    for v in inputs {
        out.push(v);
        if let Some(elements) = lists.get(&v) {
            out.extend_from_slice(elements);
        }
    }
    out
}

/// A tensor's fully qualified name (`ExtraTensorInfo`), if the file gives one.
pub(super) fn fully_qualified_name(e: &Table<'_>) -> Result<Option<String>, ImportError> {
    if e.u8(0, 0)? != 5 {
        return Ok(None);
    }
    let Some(tensor) = e.table(1)? else {
        return Ok(None);
    };
    Ok(match tensor.table(9)? {
        Some(extra) => extra
            .string(1)?
            .filter(|n| !n.is_empty())
            .map(str::to_owned),
        None => None,
    })
}

/// Takes the scratch values a program carried out of it (each used by its call only), so the
/// program is the one without them and the plan the same.
pub(super) fn drop_carried_scratch(
    program: &mut Program,
    carried: &[usize],
    fqns: &mut Vec<Option<String>>,
) -> Result<(), ImportError> {
    if carried.is_empty() {
        return Ok(());
    }
    let mut uses = vec![0usize; program.values.len()];
    for (_, instruction) in program.flat_instructions() {
        for v in instruction.touched() {
            uses[v] += 1;
        }
    }
    for &v in program.inputs.iter().chain(&program.outputs) {
        uses[v] += 1;
    }
    for &v in carried {
        if uses[v] > 0 {
            return Err(ImportError::Unsupported(format!(
                "value {v} is a delegate call's trailing byte buffer (scratch) but is also used elsewhere"
            )));
        }
    }
    let mut remove = vec![false; program.values.len()];
    for &v in carried {
        remove[v] = true;
    }
    program.remove_values(&remove);
    if let Some(source) = &mut program.source_plan {
        let mut i = 0;
        source.offsets.retain(|_| {
            i += 1;
            !remove[i - 1]
        });
    }
    let mut i = 0;
    fqns.retain(|_| {
        i += 1;
        !remove[i - 1]
    });
    Ok(())
}
