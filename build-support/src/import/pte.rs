//! ExecuTorch programs (`.pte`, file identifier `ET12`).
//!
//! An optional extended header (`eh00` at byte 8: header length, program size, segment base
//! offset) locates the segments that may hold delegate blobs and constants. Every execution
//! plan is a method; several become one program ([`Program::join_methods`]), `forward` first,
//! with the buffers they share as state: in a program laid out by ExecuTorch's
//! `share_mutable_buffers` (every method's planned buffers are 1 and a third of one size, the
//! shared buffers at `mem_id` 2), those with the same fully qualified name, else at the same
//! offset there. Each plan becomes a program thus: every value keeps its index
//! (tensors with allocation info are planned in their `mem_id`; tensors with data are
//! constants, their bytes from the constant segment or the inline constant buffers; ints,
//! doubles and bools are constants of 8, 8 and 1 bytes, or planned when a kernel writes them;
//! the rest is not planned), the first chain's instructions become kernel and delegate calls
//! (a kernel's outputs by the out-variant convention), and each delegate's blob goes through
//! its backend plugin, which splits the call's arguments into inputs and outputs and declares
//! its scratch. The program's own plan (`non_const_buffer_sizes` and each tensor's offset) is
//! kept for comparison.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use super::flatbuf::{read_u32, read_u64, root, Table, Vector};
use super::ImportError;
use crate::blobs::plugin_for;
use crate::model::{
    Branch, ConstantData, DType, Delegate, DelegateCall, EValue, Instruction, KernelCall,
    PoolChoice, Program, SourcePlan, Value, ValueKind,
};

/// Most values, instructions or delegates accepted in one plan.
const MAX_ITEMS: usize = 1 << 20;

/// Most methods (execution plans) accepted in one program: bounds what a count in the file can
/// make the importer allocate before it reads the plans.
const MAX_METHODS: usize = 1 << 10;

/// Deepest nesting of branches accepted (as the TOML importer's), so a forged file of nested
/// jumps cannot exhaust the stack.
const MAX_BRANCH_DEPTH: usize = 64;

/// Where the flatbuffer ends and the segments begin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExtendedHeader {
    /// Bytes of the flatbuffer part, from the start of the file.
    pub program_size: u64,
    /// File offset of the first segment.
    pub segment_base_offset: u64,
}

/// Reads the `eh00` extended header, if the file has one.
pub fn extended_header(data: &[u8]) -> Result<Option<ExtendedHeader>, ImportError> {
    if data.get(8..12) != Some(b"eh00") {
        return Ok(None);
    }
    let length = read_u32(data, 12)?;
    if length < 24 {
        return Err(ImportError::Invalid(format!(
            "extended header length {length} is below the minimum of 24"
        )));
    }
    let header = ExtendedHeader {
        program_size: read_u64(data, 16)?,
        segment_base_offset: read_u64(data, 24)?,
    };
    let len = data.len() as u64;
    if header.program_size > len || header.segment_base_offset > len {
        return Err(ImportError::Invalid(format!(
            "extended header places the program at {} bytes and segments at {}, but the file has {len}",
            header.program_size, header.segment_base_offset
        )));
    }
    Ok(Some(header))
}

/// Reads a `.pte` program from memory. `name` is used for the program's name. The constants
/// keep a copy of `data` (one for all of them); [`load_pte`] keeps the file's bytes instead.
pub fn read_pte(data: &[u8], name: &str) -> Result<Program, ImportError> {
    read_shared(&Arc::new(data.to_vec()), name)
}

/// Where a program's constant tensors keep their bytes: ExecuTorch's constant segment (one
/// offset per buffer index) when the program has one, else its inline constant buffers.
struct Constants<'a> {
    file: &'a Arc<Vec<u8>>,
    program: Table<'a>,
    header: Option<ExtendedHeader>,
    inline: Vector<'a>,
    /// The segment's index, and each buffer's offset in it. The segment is located when a
    /// constant needs it (a program without constants may name one it does not have).
    segment: Option<(usize, Vec<u64>)>,
}

impl<'a> Constants<'a> {
    fn new(
        file: &'a Arc<Vec<u8>>,
        program: &Table<'a>,
        header: Option<ExtendedHeader>,
    ) -> Result<Self, ImportError> {
        let inline = program.vector_or_empty(2)?;
        let segment = match program.table(5)? {
            Some(sub) if sub.vector_or_empty(1)?.len() > 0 => {
                let index = sub.u32(0, 0)? as usize;
                let offsets = sub.vector_or_empty(1)?;
                let offsets: Vec<u64> = (0..offsets.len())
                    .map(|i| offsets.u64(i))
                    .collect::<Result<_, _>>()?;
                Some((index, offsets))
            }
            _ => None,
        };
        Ok(Constants {
            file,
            program: *program,
            header,
            inline,
            segment,
        })
    }

    /// The initial contents of a mutable tensor (value `value`, `bytes` bytes): buffer `index`
    /// of mutable data segment list `which` (`Program.mutable_data_segments`).
    fn mutable_data(
        &self,
        which: usize,
        index: u32,
        bytes: u64,
        value: usize,
    ) -> Result<ConstantData, ImportError> {
        let missing = |what: String| {
            ImportError::Invalid(format!(
                "value {value}: initial state {index} of mutable data {which} {what}"
            ))
        };
        let lists = self.program.vector_or_empty(6)?;
        if which >= lists.len() {
            return Err(missing(format!(
                "does not exist: the program has {} lists",
                lists.len()
            )));
        }
        let list = lists.table(which)?;
        let offsets = list.vector_or_empty(1)?;
        let index_usize = index as usize;
        if index_usize >= offsets.len() {
            return Err(missing(format!("is past its {} offsets", offsets.len())));
        }
        let offset = offsets.u64(index_usize)?;
        let segment = segment_range(
            &self.program,
            list.u32(0, 0)? as usize,
            self.header,
            self.file.len(),
            "a mutable tensor's initial state",
        )?;
        let start = segment.start.checked_add(offset);
        let range = match start.zip(start.and_then(|s| s.checked_add(bytes))) {
            Some((s, e)) if e <= segment.end => s as usize..e as usize,
            _ => {
                return Err(missing(format!(
                    "({bytes} bytes at {offset}) runs past its segment ({} bytes)",
                    segment.end - segment.start
                )))
            }
        };
        ConstantData::range(self.file, range).ok_or_else(|| missing("is outside the file".into()))
    }

    /// The `bytes` bytes of constant buffer `index`, for value `value`.
    fn data(&self, index: u32, bytes: u64, value: usize) -> Result<ConstantData, ImportError> {
        let index = index as usize;
        let missing = |what: String| {
            ImportError::Invalid(format!("value {value}: constant buffer {index} {what}"))
        };
        let range = match &self.segment {
            Some((segment, offsets)) => {
                let segment = segment_range(
                    &self.program,
                    *segment,
                    self.header,
                    self.file.len(),
                    "the constant segment",
                )?;
                let offset = *offsets.get(index).ok_or_else(|| {
                    missing(format!(
                        "is past the constant segment's {} offsets",
                        offsets.len()
                    ))
                })?;
                let start = segment.start.checked_add(offset);
                match start.zip(start.and_then(|s| s.checked_add(bytes))) {
                    Some((s, e)) if e <= segment.end => s as usize..e as usize,
                    _ => {
                        return Err(missing(format!(
                            "({bytes} bytes at {offset}) runs past the constant segment ({} bytes)",
                            segment.end - segment.start
                        )))
                    }
                }
            }
            None => {
                if index >= self.inline.len() {
                    return Err(missing(format!(
                        "does not exist: the program has {}",
                        self.inline.len()
                    )));
                }
                let storage = self.inline.table(index)?.vector_or_empty(0)?.byte_range()?;
                if ((storage.end - storage.start) as u64) < bytes {
                    return Err(missing(format!(
                        "holds {} bytes, the tensor needs {bytes}",
                        storage.end - storage.start
                    )));
                }
                storage.start..storage.start + bytes as usize
            }
        };
        ConstantData::range(self.file, range).ok_or_else(|| missing("is outside the file".into()))
    }
}

/// The file range of segment `index`.
fn segment_range(
    program: &Table<'_>,
    index: usize,
    header: Option<ExtendedHeader>,
    file_len: usize,
    what: &str,
) -> Result<std::ops::Range<u64>, ImportError> {
    let segments = program.vector_or_empty(4)?;
    if index >= segments.len() {
        return Err(ImportError::Invalid(format!(
            "{what} uses segment {index}, but the program has {}",
            segments.len()
        )));
    }
    let base = header
        .ok_or_else(|| ImportError::Invalid(format!("{what} is in segment {index}, but the file has no extended header locating segments")))?
        .segment_base_offset;
    let segment = segments.table(index)?;
    let (offset, size) = (segment.u64(0, 0)?, segment.u64(1, 0)?);
    let start = base.checked_add(offset);
    match start.zip(start.and_then(|s| s.checked_add(size))) {
        Some((s, e)) if e <= file_len as u64 => Ok(s..e),
        _ => Err(ImportError::Invalid(format!(
            "segment {index} ({size} bytes at {offset} after base {base}) runs past the end of the file ({file_len} bytes)"
        ))),
    }
}

/// Reads the program and applies the semantic check every importer ends with.
fn read_shared(file: &Arc<Vec<u8>>, name: &str) -> Result<Program, ImportError> {
    let program = read_unchecked(file, name)?;
    crate::model::check(&program)?;
    Ok(program)
}

fn read_unchecked(file: &Arc<Vec<u8>>, name: &str) -> Result<Program, ImportError> {
    let data: &[u8] = file;
    let header = extended_header(data)?;
    let program_table = root(data, Some(b"ET12"))?;
    let plans = program_table.vector_or_empty(1)?;
    if plans.len() == 0 {
        return Err(ImportError::Invalid(
            "the program has no execution plan".into(),
        ));
    }
    if plans.len() > MAX_METHODS {
        return Err(ImportError::Invalid(format!(
            "{} execution plans; at most {MAX_METHODS} methods are accepted",
            plans.len()
        )));
    }
    // ExecuTorch's default method first: `forward` if there is one.
    let mut order: Vec<usize> = (0..plans.len()).collect();
    for i in 0..plans.len() {
        if plans.table(i)?.string(0)? == Some("forward") {
            order.retain(|&k| k != i);
            order.insert(0, i);
            break;
        }
    }
    if order.len() == 1 {
        let plan = plans.table(0)?;
        let mut program = read_plan(file, &program_table, &plan, header, name)?.0;
        program.entry_name = plan.string(0)?.filter(|n| !n.is_empty()).map(str::to_owned);
        return Ok(program);
    }
    let mut methods: Vec<(String, Program)> = Vec::with_capacity(order.len());
    let mut names = Vec::with_capacity(order.len());
    let mut total = 0usize;
    for &i in &order {
        let plan = plans.table(i)?;
        // All methods together within one plan's limits: plans may share their tables.
        total = total
            .saturating_add(plan.vector_or_empty(2)?.len())
            .saturating_add(plan.vector_or_empty(6)?.len());
        if total > MAX_ITEMS {
            return Err(ImportError::Invalid(format!(
                "the methods hold more than {MAX_ITEMS} values and operators in all"
            )));
        }
        let method = plan.string(0)?.unwrap_or("").to_owned();
        // Generated C names each method's functions by it (`NAME_<method>_run`).
        let ident = crate::names::ident(&method);
        if method.is_empty()
            || methods
                .iter()
                .any(|(m, _)| crate::names::ident(m.as_str()) == ident)
        {
            return Err(ImportError::Invalid(format!(
                "execution plan {i} is named `{method}`: each method needs a name of its own, also as a C identifier (`{ident}`)"
            )));
        }
        let (program, fqns) = read_plan(file, &program_table, &plan, header, name)?;
        names.push(fqns);
        methods.push((method, program));
    }
    let shared = shares_state(&methods);
    let keys: Vec<Vec<Option<String>>> = methods
        .iter()
        .zip(&names)
        .map(|((_, program), fqns)| {
            (0..program.values.len())
                .map(|v| state_key(program, v, fqns[v].as_deref(), shared))
                .collect()
        })
        .collect();
    // Each state must be one tensor in every method that uses it.
    let mut seen: BTreeMap<&str, (&str, &Value)> = BTreeMap::new();
    for (m, (method, program)) in methods.iter().enumerate() {
        for (v, key) in keys[m].iter().enumerate() {
            let Some(key) = key.as_deref() else { continue };
            let value = &program.values[v];
            match seen.get(key) {
                Some((first, other))
                    if (other.dtype, &other.shape) != (value.dtype, &value.shape)
                        || matches!((&other.data, &value.data), (Some(a), Some(b)) if a.bytes() != b.bytes()) =>
                {
                    return Err(ImportError::Invalid(format!(
                        "methods `{first}` and `{method}` share state `{key}` but disagree on it: {} {:?} and {} {:?}, or on its initial contents",
                        other.dtype.name(),
                        other.shape,
                        value.dtype.name(),
                        value.shape
                    )))
                }
                Some(_) => {}
                None => {
                    seen.insert(key, (method, value));
                }
            }
        }
    }
    Ok(Program::join_methods(name, methods, |m, _, v| {
        keys[m][v].clone()
    }))
}

/// Whether the methods share state as ExecuTorch's `share_mutable_buffers` lays it out: every
/// method's planned buffers are the default one (1) and a third, of the same size in all,
/// holding the shared buffers (`mem_id` 2).
fn shares_state(methods: &[(String, Program)]) -> bool {
    let sizes: Vec<&[u64]> = methods
        .iter()
        .filter_map(|(_, p)| p.source_plan.as_ref().map(|s| s.buffer_sizes.as_slice()))
        .collect();
    sizes.len() == methods.len()
        && sizes
            .iter()
            .all(|s| s.len() == 3 && s[2] > 0 && s[2] == sizes[0][2])
}

/// The name under which value `v` of a method is state shared between methods, in a program
/// laid out by `share_mutable_buffers` (without it, ExecuTorch gives each method its own copy
/// of a buffer): a tensor in the shared buffer, named by its fully qualified name when the file
/// gives one, else by its place there.
fn state_key(program: &Program, v: usize, fqn: Option<&str>, shared: bool) -> Option<String> {
    let place = program
        .source_plan
        .as_ref()?
        .offsets
        .get(v)
        .copied()
        .flatten();
    match (fqn, place) {
        (Some(name), Some((2, _))) if shared => Some(name.to_owned()),
        (None, Some((2, offset))) if shared => Some(format!("state@{offset}")),
        _ => None,
    }
}

/// One execution plan as a program, with each value's fully qualified name if the file gives
/// one.
fn read_plan(
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
    let index = |raw: i32, what: &str| -> Result<usize, ImportError> {
        usize::try_from(raw)
            .ok()
            .filter(|&i| i < count)
            .ok_or_else(|| {
                ImportError::Invalid(format!(
                    "{what} refers to value {raw}, but the plan has {count}"
                ))
            })
    };
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
                let op_index = args_table.i32(0, 0)?;
                let op = usize::try_from(op_index)
                    .ok()
                    .filter(|&i| i < operators.len())
                    .ok_or_else(|| {
                        ImportError::Invalid(format!(
                            "instruction {n} calls operator {op_index}, but the plan has {}",
                            operators.len()
                        ))
                    })?;
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
                let d = args_table.i32(0, 0)?;
                let delegate = usize::try_from(d)
                    .ok()
                    .filter(|&i| i < program.delegates.len())
                    .ok_or_else(|| {
                        ImportError::Invalid(format!(
                            "instruction {n} calls delegate {d}, but the plan has {}",
                            program.delegates.len()
                        ))
                    })?;
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
    let updated = super::in_place::updated_in_place(&program);
    program.state = (0..program.values.len())
        .filter(|&v| {
            let value = &program.values[v];
            value.kind == ValueKind::Planned
                && (value.data.is_some() || fqns[v].is_some() || updated.contains(&v))
        })
        .collect();
    if let Some(source) = &program.source_plan {
        let offsets = source.offsets.clone();
        super::views::materialize_views(&mut program, &offsets);
    }
    super::in_place::adopt_in_place_updates(&mut program);
    Ok((program, fqns))
}

/// Turns each tensor list value into the head of its expansion ([`EValue::TensorList`]: its
/// count, 8 bytes) and returns each list's elements as value ids, an optional list's missing
/// elements as one `None` value added for them.
fn tensor_list_arguments(
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
fn expand_tensor_lists(inputs: Vec<usize>, lists: &BTreeMap<usize, Vec<usize>>) -> Vec<usize> {
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
fn fully_qualified_name(e: &Table<'_>) -> Result<Option<String>, ImportError> {
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

/// A 1-D tensor of bytes: the shape of delegate scratch in an ExecuTorch program.
/// Takes the scratch values a program carried out of it (each used by its call only), so the
/// program is the one without them and the plan the same.
fn drop_carried_scratch(
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

/// An instruction as the file lists it, before its jumps become branches.
#[derive(Clone, Debug)]
enum Raw {
    /// A kernel or delegate call (taken when structured).
    Call(Instruction),
    /// `JumpFalseCall`: continue at `to` when `condition` is false.
    JumpFalse { condition: usize, to: usize },
    /// Nothing to run (a free), kept so that jump destinations still count it.
    Nothing,
    /// Already taken into a branch.
    Taken,
}

/// The instructions `start..end` with their forward jumps as branches, the shapes ExecuTorch's
/// emitter gives `cond`: `JUMP_FALSE c → e`, the true arm, then, if the arm ends in a jump on a
/// constant false (ExecuTorch's unconditional jump) past `e`, the false arm `e..` that jump's
/// destination. A jump whose destination leaves its block is refused (not a branch).
fn structure(
    raw: &mut [Raw],
    start: usize,
    end: usize,
    values: &[Value],
    depth: usize,
) -> Result<Vec<Instruction>, ImportError> {
    if depth > MAX_BRANCH_DEPTH {
        return Err(ImportError::Unsupported(format!(
            "instruction {start}: branches nested deeper than {MAX_BRANCH_DEPTH}"
        )));
    }
    let always = |v: usize| {
        values[v].kind == ValueKind::Constant
            && values[v]
                .data
                .as_ref()
                .is_some_and(|d| d.bytes().iter().all(|&b| b == 0))
    };
    let mut out = Vec::new();
    let mut i = start;
    while i < end {
        match std::mem::replace(&mut raw[i], Raw::Taken) {
            Raw::Call(instruction) => out.push(instruction),
            Raw::Nothing | Raw::Taken => {}
            Raw::JumpFalse { condition, to } => {
                if to > end {
                    return Err(ImportError::Unsupported(format!(
                        "instruction {i} jumps to {to}, out of its block (which ends at {end}): not a branch arenaplan can run"
                    )));
                }
                let skip = match raw.get(to.wrapping_sub(1)) {
                    Some(&Raw::JumpFalse {
                        condition: c,
                        to: t,
                    }) if to - 1 > i && always(c) && t >= to && t <= end => Some(t),
                    _ => None,
                };
                let mut arms = Vec::new();
                match skip {
                    Some(t) => {
                        arms.push(structure(raw, i + 1, to - 1, values, depth + 1)?);
                        raw[to - 1] = Raw::Taken;
                        arms.push(structure(raw, to, t, values, depth + 1)?);
                        i = t;
                    }
                    None => {
                        arms.push(structure(raw, i + 1, to, values, depth + 1)?);
                        i = to;
                    }
                }
                out.push(Instruction::Branch(Branch {
                    predicate: condition,
                    arms,
                }));
                continue;
            }
        }
        i += 1;
    }
    Ok(out)
}

/// A kernel call's arguments as inputs and outputs. An in-place operator (`relu_(self) ->
/// self`) returns its `self`: every argument but the returned one is read, even when they
/// repeat (`[v, v]` is one read of `v` and one write). Any other: [`split_out_args`].
fn kernel_args(
    op: &str,
    args: Vec<usize>,
    lists: &BTreeMap<usize, Vec<i64>>,
) -> (Vec<usize>, Vec<usize>) {
    match (args.first(), args.split_last()) {
        (Some(&first), Some((&last, rest)))
            if super::is_in_place_operator(op) && first == last && !rest.is_empty() =>
        {
            (rest.to_vec(), vec![last])
        }
        _ => split_out_args(args, lists),
    }
}

/// A kernel call's one argument list as inputs and outputs, by ExecuTorch's emitter: the
/// arguments, then the op's return value.
/// - An out-variant op returning its out tensor repeats it: `add.out(self, other, alpha, out)
///   -> out` is `[self, other, alpha, out, out]`. The repeated tail is the outputs, kept once.
/// - An op returning several out tensors returns a new tensor list of them: `[…, o0, o1, list]`.
///   The list's items are the outputs; the list is dropped.
/// - Otherwise the last argument is the returned value (a symbolic int, a bool), written by the
///   op: the one output.
fn split_out_args(
    mut args: Vec<usize>,
    lists: &BTreeMap<usize, Vec<i64>>,
) -> (Vec<usize>, Vec<usize>) {
    let n = args.len();
    for k in 1..=n / 2 {
        if args[n - 2 * k..n - k] == args[n - k..] {
            args.truncate(n - k);
            let outputs = args.split_off(n - 2 * k);
            return (args, outputs);
        }
    }
    let Some(&last) = args.last() else {
        return (args, Vec::new());
    };
    // An operator writing a tensor list (`split_copy`, `unbind_copy`): its `out` list, then
    // the returned list, the same items; the items are the outputs.
    if n >= 2 {
        if let (Some(out), Some(ret)) = (lists.get(&args[n - 2]), lists.get(&last)) {
            if out == ret && !out.is_empty() {
                let items: Option<Vec<usize>> =
                    out.iter().map(|&i| usize::try_from(i).ok()).collect();
                if let Some(items) = items {
                    args.truncate(n - 2);
                    return (args, items);
                }
            }
        }
    }
    if let Some(items) = lists.get(&last) {
        let m = items.len();
        let matches = m > 0
            && m < n
            && args[n - 1 - m..n - 1]
                .iter()
                .zip(items)
                .all(|(&a, &item)| i64::try_from(a).is_ok_and(|a| a == item));
        if matches {
            args.truncate(n - 1);
            let outputs = args.split_off(n - 1 - m);
            return (args, outputs);
        }
    }
    args.pop();
    (args, vec![last])
}

/// Reads a `.pte` file. Its constants share the file's bytes (no second copy).
pub fn load_pte(path: &Path) -> Result<Program, ImportError> {
    let data = Arc::new(super::read_bounded(path)?);
    let name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("program");
    read_shared(&data, name)
}

/// One value, and its place in the program's own plan. A non-tensor value is a constant whose
/// bytes are the value ([`EValue`]); an int list's items name other values, which
/// [`resolve_int_lists`] reads once every value is known.
fn evalue(
    e: &Table<'_>,
    i: usize,
    constants: &Constants<'_>,
) -> Result<(Value, Option<(i64, u64)>), ImportError> {
    let kind = e.u8(0, 0)?;
    let other = |what: &str| Value {
        name: format!("v{i}:{what}"),
        dtype: DType::Bytes,
        shape: Vec::new(),
        bytes: 0,
        kind: ValueKind::Unmanaged,
        pool: None,
        data: None,
        evalue: EValue::Tensor,
    };
    let constant = |what: &str, evalue: EValue, dtype: DType, bytes: Vec<u8>| Value {
        name: format!("v{i}:{what}"),
        dtype,
        shape: Vec::new(),
        bytes: bytes.len() as u64,
        kind: ValueKind::Constant,
        pool: None,
        data: Some(ConstantData::new(bytes)),
        evalue,
    };
    let body = || {
        e.table(1)?
            .ok_or_else(|| ImportError::Invalid(format!("value {i} has no body")))
    };
    let mut value = match kind {
        // ExecuTorch writes `None` as the union's Null member (and an absent one as NONE).
        0 | 1 => constant("none", EValue::None, DType::Bytes, Vec::new()),
        2 => {
            let v = body()?.u64(0, 0)?;
            constant("int", EValue::Int, DType::Int64, v.to_le_bytes().to_vec())
        }
        3 => {
            let v = body()?.bool(0, false)?;
            constant("bool", EValue::Bool, DType::Bool, vec![u8::from(v)])
        }
        4 => {
            let v = body()?.u64(0, 0)?;
            constant(
                "double",
                EValue::Double,
                DType::Float64,
                v.to_le_bytes().to_vec(),
            )
        }
        6 => {
            let text = body()?.string(0)?.unwrap_or("").as_bytes().to_vec();
            constant("string", EValue::String, DType::UInt8, text)
        }
        // The items are value indices: resolved by `resolve_int_lists`.
        7 => {
            let mut v = constant("int_list", EValue::IntList, DType::Int64, Vec::new());
            v.data = None;
            v
        }
        8 => {
            let items = body()?.vector_or_empty(0)?.i64s()?;
            let bytes = items.iter().flat_map(|d| d.to_le_bytes()).collect();
            constant("double_list", EValue::DoubleList, DType::Float64, bytes)
        }
        9 => {
            let items = body()?.vector_or_empty(0)?.bytes()?;
            let bytes = items.iter().map(|&b| u8::from(b != 0)).collect();
            constant("bool_list", EValue::BoolList, DType::Bool, bytes)
        }
        5 => return tensor(e, i, constants),
        10 => other("tensor_list"),
        11 => other("optional_tensor_list"),
        _ => other("unknown"),
    };
    value.shape = match value.evalue {
        EValue::IntList | EValue::DoubleList => vec![value.bytes / 8],
        EValue::BoolList | EValue::String => vec![value.bytes],
        _ => Vec::new(),
    };
    Ok((value, None))
}

/// Each int list's bytes from the ints its items name (ExecuTorch keeps a list of ints as
/// indices of Int values, so that an item can be a size known only at run time). A list with
/// an item that is not an int constant is left without data: a call taking it is refused.
fn resolve_int_lists(program: &mut Program, items: &BTreeMap<usize, Vec<i64>>) {
    for (&v, list) in items {
        let mut bytes = Vec::with_capacity(list.len() * 8);
        let known = list.iter().all(|&item| {
            let Some(value) = usize::try_from(item)
                .ok()
                .and_then(|i| program.values.get(i))
            else {
                return false;
            };
            match (&value.data, value.evalue, &value.kind) {
                (Some(d), EValue::Int, ValueKind::Constant) => {
                    bytes.extend_from_slice(d.bytes());
                    true
                }
                _ => false,
            }
        });
        let value = &mut program.values[v];
        if known {
            value.shape = vec![list.len() as u64];
            value.bytes = bytes.len() as u64;
            value.data = Some(ConstantData::new(bytes));
        } else {
            value.name = format!("{}:known only at run time", value.name);
            value.kind = ValueKind::Unmanaged;
            value.bytes = 0;
        }
    }
}

/// A tensor value, and its place in the program's own plan.
fn tensor(
    e: &Table<'_>,
    i: usize,
    constants: &Constants<'_>,
) -> Result<(Value, Option<(i64, u64)>), ImportError> {
    let t = e
        .table(1)?
        .ok_or_else(|| ImportError::Invalid(format!("value {i} is a tensor without a body")))?;
    let (dtype, size) = scalar_type(t.i8(0, 0)?).ok_or_else(|| {
        ImportError::Unsupported(format!(
            "value {i}: scalar type {} is not supported",
            t.i8(0, 0).unwrap_or(-1)
        ))
    })?;
    let mut shape = Vec::new();
    for d in t.vector_or_empty(2)?.i32s()? {
        shape.push(u64::try_from(d).map_err(|_| {
            ImportError::Invalid(format!("value {i} has a negative dimension {d}"))
        })?);
    }
    let bytes = shape
        .iter()
        .try_fold(size, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| ImportError::Invalid(format!("value {i}: shape {shape:?} is too large")))?;
    let data_buffer = t.u32(5, 0)?;
    let allocation = t.table(6)?;
    let (kind, pool, offset, data) = match allocation {
        Some(a) => {
            let mem_id = i64::from(a.u32(0, 0)?);
            let offset = u64::from(a.u32(1, 0)?) | (u64::from(a.u32(2, 0)?) << 32);
            // Planned with a buffer index: a mutable tensor (state) and its initial contents.
            let initial = match data_buffer {
                0 => None,
                index => {
                    let which = match t.table(9)? {
                        Some(extra) => usize::try_from(extra.u64(0, 0)?).unwrap_or(usize::MAX),
                        None => 0,
                    };
                    Some(constants.mutable_data(which, index, bytes, i)?)
                }
            };
            (
                ValueKind::Planned,
                Some(PoolChoice::MemId(mem_id)),
                Some((mem_id, offset)),
                initial,
            )
        }
        None if data_buffer > 0 => (
            ValueKind::Constant,
            None,
            None,
            Some(constants.data(data_buffer, bytes, i)?),
        ),
        None => (ValueKind::Unmanaged, None, None, None),
    };
    Ok((
        Value {
            name: format!("v{i}"),
            dtype,
            shape,
            bytes,
            kind,
            pool,
            data,
            evalue: EValue::Tensor,
        },
        offset,
    ))
}

/// The IR type and byte size of an ExecuTorch scalar type.
fn scalar_type(code: i8) -> Option<(DType, u64)> {
    Some(match code {
        0 => (DType::UInt8, 1),
        1 => (DType::Int8, 1),
        2 => (DType::Int16, 2),
        3 => (DType::Int32, 4),
        4 => (DType::Int64, 8),
        5 => (DType::Float16, 2),
        6 => (DType::Float32, 4),
        7 => (DType::Float64, 8),
        11 => (DType::Bool, 1),
        12 | 13 | 16 | 17 | 23..=26 => (DType::Bytes, 1),
        14 | 28 => (DType::Bytes, 4),
        15 => (DType::BFloat16, 2),
        22 | 27 => (DType::Bytes, 2),
        29 => (DType::Bytes, 8),
        _ => return None,
    })
}

/// A delegate: its blob (inline or in a segment), compile specs, and what its plugin reads
/// from the blob (argument split and scratch).
fn delegate(
    program: &Table<'_>,
    d: &Table<'_>,
    index: usize,
    data: &[u8],
    header: Option<ExtendedHeader>,
) -> Result<(Delegate, Option<(usize, usize)>), ImportError> {
    let backend = d.string(0)?.unwrap_or("").to_owned();
    let mut compile_specs = BTreeMap::new();
    let specs = d.vector_or_empty(2)?;
    for s in 0..specs.len() {
        let spec = specs.table(s)?;
        let key = spec.string(0)?.unwrap_or("").to_owned();
        let value = spec.vector_or_empty(1)?.bytes()?;
        compile_specs.insert(key, String::from_utf8_lossy(value).into_owned());
    }
    let reference = d.table(1)?.ok_or_else(|| {
        ImportError::Invalid(format!(
            "delegate {index} ({backend}) has no processed data"
        ))
    })?;
    let location = reference.i8(0, 0)?;
    let at = reference.u32(1, 0)? as usize;
    let blob: &[u8] = match location {
        0 => {
            let inline = program.vector_or_empty(3)?;
            if at >= inline.len() {
                return Err(ImportError::Invalid(format!(
                    "delegate {index} ({backend}) uses inline data {at}, but the program has {}",
                    inline.len()
                )));
            }
            inline.table(at)?.vector_or_empty(0)?.bytes()?
        }
        1 => {
            let what = format!("delegate {index} ({backend})");
            let range = segment_range(program, at, header, data.len(), &what)?;
            &data[range.start as usize..range.end as usize]
        }
        other => {
            return Err(ImportError::Invalid(format!(
                "delegate {index} ({backend}) has unknown data location {other}"
            )))
        }
    };
    let (scratch, split) = match plugin_for(&backend) {
        Some(plugin) => {
            let info = plugin.inspect(blob, &compile_specs)?;
            let scratch = info.scratch.iter().map(|s| s.to_spec(&backend)).collect();
            (scratch, Some((info.inputs, info.outputs)))
        }
        None => (Vec::new(), None),
    };
    Ok((
        Delegate {
            name: format!("{backend}#{index}"),
            backend,
            blob: Some(blob.to_vec()),
            compile_specs,
            scratch,
        },
        split,
    ))
}

#[cfg(test)]
mod tests {
    use super::{kernel_args, resolve_int_lists, split_out_args, structure, Raw};
    use crate::model::{
        Branch, ConstantData, DType, EValue, Instruction, KernelCall, Program, Value, ValueKind,
    };
    use std::collections::BTreeMap;

    fn call(op: &str) -> Raw {
        Raw::Call(Instruction::Kernel(KernelCall::new(op, vec![], vec![])))
    }

    fn values() -> Vec<Value> {
        let condition = Value::planned("c", DType::Bool, vec![1]);
        let mut never = Value::planned("false", DType::Bool, vec![]);
        never.kind = ValueKind::Constant;
        never.data = Some(ConstantData::new(vec![0]));
        vec![condition, never]
    }

    fn kernel(op: &str) -> Instruction {
        Instruction::Kernel(KernelCall::new(op, vec![], vec![]))
    }

    /// `relu_(v) -> v` is emitted `[v, v]`: one read and one write of `v`, not a write alone
    /// (which would lose the input). The model check then gives it the TOML verdict.
    #[test]
    fn a_pte_in_place_kernel_keeps_its_input() {
        let lists = BTreeMap::new();
        assert_eq!(
            kernel_args("aten::relu_", vec![1, 1], &lists),
            (vec![1], vec![1])
        );
        assert_eq!(
            kernel_args("aten::add_.Tensor", vec![1, 2, 3, 1], &lists),
            (vec![1, 2, 3], vec![1])
        );
        // An out-variant op returning its out tensor keeps the repeated tail once.
        assert_eq!(
            kernel_args("aten::add.out", vec![1, 2, 3, 4, 4], &lists),
            (vec![1, 2, 3], vec![4])
        );
    }

    #[test]
    fn executorch_cond_becomes_an_if_else_branch() {
        // 0: if !c goto 3; 1: a; 2: goto 4 (jump_false on a constant false); 3: b; 4: after.
        let mut raw = vec![
            Raw::JumpFalse {
                condition: 0,
                to: 3,
            },
            call("a"),
            Raw::JumpFalse {
                condition: 1,
                to: 4,
            },
            call("b"),
            call("after"),
        ];
        let body = structure(&mut raw, 0, 5, &values(), 0).unwrap();
        assert_eq!(
            body,
            [
                Instruction::Branch(Branch {
                    predicate: 0,
                    arms: vec![vec![kernel("a")], vec![kernel("b")]],
                }),
                kernel("after"),
            ]
        );
        // Without the jump at the end of the true arm: an if without else.
        let mut raw = vec![
            Raw::JumpFalse {
                condition: 0,
                to: 2,
            },
            call("a"),
            call("after"),
        ];
        let body = structure(&mut raw, 0, 3, &values(), 0).unwrap();
        assert_eq!(body.len(), 2);
        // A jump out of its block is refused.
        let mut raw = vec![
            Raw::JumpFalse {
                condition: 0,
                to: 2,
            },
            Raw::JumpFalse {
                condition: 0,
                to: 4,
            },
            call("a"),
            call("b"),
        ];
        assert!(structure(&mut raw, 0, 4, &values(), 0).is_err());
    }

    /// An int list takes its items' values; one with an item only known at run time (an int
    /// a kernel writes, such as a `sym_size`) gets no data, and the call taking it is the one
    /// named when the program is refused.
    #[test]
    fn int_lists_take_their_items_or_are_refused_by_the_call_that_takes_them() {
        let mut p = Program::new("lists");
        let int = |v: i64| Value {
            name: format!("int{v}"),
            dtype: DType::Int64,
            shape: vec![],
            bytes: 8,
            kind: ValueKind::Constant,
            pool: None,
            data: Some(ConstantData::new(v.to_le_bytes().to_vec())),
            evalue: EValue::Int,
        };
        let list = || Value {
            name: "list".into(),
            dtype: DType::Int64,
            shape: vec![],
            bytes: 0,
            kind: ValueKind::Constant,
            pool: None,
            data: None,
            evalue: EValue::IntList,
        };
        let two = p.add_value(int(2));
        let three = p.add_value(int(3));
        let mut written = int(0);
        written.kind = ValueKind::Planned; // a size a kernel computes
        written.data = None;
        let dynamic = p.add_value(written);
        let known = p.add_value(list());
        let unknown = p.add_value(list());
        let x = p.add_value(Value::planned("x", DType::Float32, vec![2, 3]));
        let y = p.add_value(Value::planned("y", DType::Float32, vec![3, 2]));
        p.body.push(Instruction::Kernel(KernelCall::new(
            "aten::permute_copy.out",
            vec![x, known],
            vec![y],
        )));
        p.body.push(Instruction::Kernel(KernelCall::new(
            "aten::view_copy.out",
            vec![y, unknown],
            vec![x],
        )));
        let items = BTreeMap::from([
            (known, vec![two as i64, three as i64]),
            (unknown, vec![two as i64, dynamic as i64]),
        ]);
        resolve_int_lists(&mut p, &items);
        let bytes: Vec<u8> = [2i64, 3].iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(
            p.values[known].data.as_ref().map(|d| d.bytes().to_vec()),
            Some(bytes)
        );
        assert_eq!(p.values[known].shape, [2]);
        assert_eq!(p.values[unknown].kind, ValueKind::Unmanaged);
        assert_eq!(p.unplaced_argument(), Some((1, unknown)));
    }

    #[test]
    fn outputs_by_the_emitters_return_conventions() {
        let none = std::collections::BTreeMap::new();
        // An out tensor returned as itself.
        assert_eq!(
            split_out_args(vec![1, 0, 3, 2, 2], &none),
            (vec![1, 0, 3], vec![2])
        );
        assert_eq!(split_out_args(vec![7, 7], &none), (vec![], vec![7]));
        // Several out tensors returned as a new list of them.
        let lists = std::collections::BTreeMap::from([(6usize, vec![4i64, 5])]);
        assert_eq!(
            split_out_args(vec![0, 4, 5, 6], &lists),
            (vec![0], vec![4, 5])
        );
        // A tensor list written (split_copy): its out list, then the returned one; the
        // items are the outputs.
        let lists = std::collections::BTreeMap::from([(6usize, vec![4i64, 5]), (7, vec![4, 5])]);
        assert_eq!(
            split_out_args(vec![0, 2, 6, 7], &lists),
            (vec![0, 2], vec![4, 5])
        );
        // A returned scalar (sym_size): the last argument, written by the op.
        assert_eq!(split_out_args(vec![0, 1, 2], &none), (vec![0, 1], vec![2]));
        assert_eq!(split_out_args(vec![], &none), (vec![], vec![]));
    }
}
