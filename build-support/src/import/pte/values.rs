//! Values (`EValue`s): tensors, scalars, lists and their place in the program's own plan, and
//! delegates with their blobs read by their backend plugins.

use std::collections::BTreeMap;

use super::constants::{segment_range, Constants};
use super::ExtendedHeader;
use crate::backends::plugin_for;
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::{ConstantData, DType, Delegate, EValue, PoolChoice, Program, Value, ValueKind};

/// One value, and its place in the program's own plan. A non-tensor value is a constant whose
/// bytes are the value ([`EValue`]); an int list's items name other values, which
/// [`resolve_int_lists`] reads once every value is known.
pub(super) fn evalue(
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
        dim_order: Vec::new(),
        quant: None,
    };
    let constant = |what: &str, evalue: EValue, dtype: DType, bytes: Vec<u8>| {
        Value::constant(format!("v{i}:{what}"), evalue, dtype, bytes)
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
pub(super) fn resolve_int_lists(program: &mut Program, items: &BTreeMap<usize, Vec<i64>>) {
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
pub(super) fn tensor(
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
    let dim_order = dim_order(t.vector_or_empty(3)?.bytes()?, shape.len(), i)?;
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
            dim_order,
            quant: None,
        },
        offset,
    ))
}

/// A tensor's dim order: a permutation of its dimensions, or none (the contiguous default,
/// also what the identity permutation becomes).
fn dim_order(order: &[u8], rank: usize, i: usize) -> Result<Vec<u8>, ImportError> {
    let identity = order.iter().enumerate().all(|(k, &d)| usize::from(d) == k);
    if order.is_empty() || (identity && order.len() == rank) {
        return Ok(Vec::new());
    }
    let mut seen = vec![false; rank];
    let valid = order.len() == rank
        && order
            .iter()
            .all(|&d| usize::from(d) < rank && !std::mem::replace(&mut seen[usize::from(d)], true));
    if !valid {
        return Err(ImportError::Invalid(format!(
            "value {i}: dim order {order:?} is not a permutation of its {rank} dimensions"
        )));
    }
    Ok(order.to_vec())
}

/// The IR type and byte size of an ExecuTorch scalar type.
pub(super) fn scalar_type(code: i8) -> Option<(DType, u64)> {
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
pub(super) fn delegate(
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
