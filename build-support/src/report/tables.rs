//! What the runtime's tables of a program cost on a 32-bit Cortex-M (4-byte pointers and
//! `size_t`), counted from the plan the way `NAME_program.c` lays them out: the const tables in
//! flash, and the RAM a run needs outside the arenas. The figures are what
//! `arm-none-eabi-nm -S` reports for the generated symbols (checked on the Corstone-300 example).

use crate::model::{Instruction, Program};
use crate::pipeline::{Declarations, ModelPlan};

/// `sizeof` of the runtime's structs on a 32-bit target (`include/arenaplan/runtime.h`). Not
/// trusted: every generated `NAME_program.c` checks each against the C compiler's own `sizeof`
/// when it is built for a 32-bit target ([`ILP32_SIZES`]), so a changed struct fails the
/// firmware's build instead of making the report wrong.
const TENSOR_DESC: u64 = 16;
const INSTRUCTION: u64 = 24;
const DELEGATE_DESC: u64 = 20;
const PROGRAM: u64 = 52;
const VALUE_META: u64 = 12;
const BUFFER: u64 = 8;
const POINTER: u64 = 4;
const INDEX: u64 = 4;
const BOUND_PROGRAM: u64 = 32;
const METHOD: u64 = 56;

/// Each size above with the C type it is of: what the generated C checks.
pub const ILP32_SIZES: [(&str, u64); 10] = [
    ("ap_tensor_desc_t", TENSOR_DESC),
    ("ap_instruction_t", INSTRUCTION),
    ("ap_delegate_desc_t", DELEGATE_DESC),
    ("ap_program_t", PROGRAM),
    ("ap_value_meta_t", VALUE_META),
    ("ap_buffer_t", BUFFER),
    ("void *", POINTER),
    ("uint32_t", INDEX),
    ("ap_bound_program_t", BOUND_PROGRAM),
    ("ap_method_t", METHOD),
];

/// Bytes of one program's runtime tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableSizes {
    /// Const tables (flash), blobs and strings not counted.
    pub flash: u64,
    /// The delegates' blobs (flash, 16-byte aligned).
    pub blobs: u64,
    /// The constants' bytes (flash, each used constant once; alignment padding not counted).
    pub constants: u64,
    /// RAM outside the arenas: handles, one argument list and the method.
    pub ram: u64,
    /// Of `ram`, the delegates' handles.
    pub handles: u64,
}

/// The table sizes of `program` as `plan` placed it, with the backends `declared` (a backend
/// written in Rust keeps no handle).
pub fn table_sizes(program: &Program, plan: &ModelPlan, declared: &Declarations) -> TableSizes {
    let at_least_one = |n: usize| n.max(1) as u64;
    let mut kernels: Vec<&str> = Vec::new();
    for (_, instruction) in program.flat_instructions() {
        if let Instruction::Kernel(k) = instruction {
            if !kernels.contains(&k.op.as_str()) {
                kernels.push(&k.op);
            }
        }
    }
    let (values, delegates) = (program.values.len(), program.delegates.len());
    let args: u64 = plan
        .calls
        .iter()
        .map(|c| INDEX * at_least_one(c.args.len()))
        .sum();
    // Branches add jumps: a JUMP_FALSE has a one-entry predicate list, and the table maps
    // positions back to flat indices.
    let table = crate::pipeline::steps(program, plan).unwrap_or_default();
    let jumps = table.steps.len().saturating_sub(plan.calls.len());
    let predicates = table
        .steps
        .iter()
        .filter(|s| matches!(s, crate::pipeline::Step::JumpFalse { .. }))
        .count() as u64;
    let flat_index = if jumps > 0 {
        INDEX * table.steps.len() as u64
    } else {
        0
    };
    // What each value is: an entry each, a dimensions array per distinct shape and a byte
    // array per distinct non-contiguous dim order.
    let metas = crate::pipeline::ValueMetas::new(program, plan);
    let dims: u64 = metas
        .shapes
        .iter()
        .map(|s| INDEX * s.len() as u64)
        .sum::<u64>()
        + metas.orders.iter().map(|o| o.len() as u64).sum::<u64>();
    let flash = TENSOR_DESC * at_least_one(values)
        + VALUE_META * at_least_one(values)
        + dims
        + INSTRUCTION * at_least_one(table.steps.len())
        + args
        + INDEX * predicates
        + flat_index
        + DELEGATE_DESC * at_least_one(delegates)
        + POINTER * at_least_one(kernels.len())
        + INDEX * at_least_one(program.inputs.len())
        + INDEX * at_least_one(program.outputs.len())
        + PROGRAM
        + BUFFER * at_least_one(values)
        + POINTER * at_least_one(delegates)
        + POINTER * at_least_one(kernels.len())
        + POINTER * at_least_one(delegates)
        + INDEX * at_least_one(delegates)
        + BOUND_PROGRAM;
    let blobs = program
        .delegates
        .iter()
        .filter_map(|d| d.blob.as_ref())
        .map(|b| (b.len().max(1) as u64).div_ceil(16) * 16)
        .sum();
    let longest = plan.calls.iter().map(|c| c.args.len()).max().unwrap_or(0);
    let handles = program
        .delegates
        .iter()
        .map(|d| crate::backends::delegate_handle(&declared.handle_storage(&d.backend), d).1)
        .sum();
    TableSizes {
        flash,
        blobs,
        constants: crate::pipeline::ConstantLayout::new(program).bytes(),
        ram: handles + BUFFER * at_least_one(longest) + METHOD,
        handles,
    }
}
