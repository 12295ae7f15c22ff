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
//!
//! The steps, one file each: `constants` (where constant bytes are), `plan` (one execution
//! plan as a program), `chain` (the instruction list as calls and branches), `values`
//! (values and delegates).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use crate::import::flatbuf::{read_u32, read_u64, root};
use crate::import::ImportError;
use crate::model::{Program, Value};
use plan::read_plan;

mod chain;
mod constants;
mod io_quant;
mod plan;
#[cfg(test)]
mod tests;
mod values;

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
    crate::import::checked(read_unchecked(&Arc::new(data.to_vec()), name))
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
    io_quant::attach(&mut methods);
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

/// Reads a `.pte` file. Its constants share the file's bytes (no second copy).
pub fn load_pte(path: &Path) -> Result<Program, ImportError> {
    let data = Arc::new(crate::import::read_bounded(path)?);
    let name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("program");
    crate::import::checked(read_unchecked(&data, name))
}
