//! The scratch pass: gives every delegate and kernel call its scratch buffers as trailing
//! arguments.

use crate::model::{DType, Instruction, PoolChoice, Program, ScratchOwner, Value, ValueKind};

use super::bind::{Bound, BoundScratch};

/// Removes the scratch values an earlier run inserted, then appends to every delegate and
/// kernel call, after its inputs and outputs and in the bound order (role slots, else
/// declaration order), one scratch value per buffer bound to its delegate or kernel. Running it
/// twice gives the same program. Returns how many were inserted.
///
/// A scratch value lives exactly during its call; each call gets its own values (sizes are per
/// delegate, so two calls of one backend may differ). An empty slot becomes a value of zero
/// bytes in no pool: it keeps its place in the argument list but is never planned.
pub fn insert_scratch(program: &mut Program, bound: &Bound) -> usize {
    strip_scratch(program);
    let mut new_values: Vec<Value> = Vec::new();
    let first_id = program.values.len();
    let delegates: Vec<String> = program.delegates.iter().map(|d| d.name.clone()).collect();
    program.for_each_instruction_mut(|call_index, instruction| {
        let (owner, buffers, who, scratch_ids) = match instruction {
            Instruction::Delegate(call) => (
                ScratchOwner::Delegate(call.delegate),
                bound.of_delegate(call.delegate),
                delegates[call.delegate].clone(),
                &mut call.scratch,
            ),
            Instruction::Kernel(call) => (
                ScratchOwner::Kernel(call.op.clone()),
                bound.of_kernel(call_index, &call.op),
                call.op.clone(),
                &mut call.scratch,
            ),
            Instruction::Branch(_) => return,
        };
        for (slot, scratch) in buffers.iter().enumerate() {
            let label = label(scratch, slot);
            new_values.push(Value {
                name: format!("{who}@{call_index}.{label}"),
                dtype: DType::Bytes,
                shape: vec![scratch.size],
                bytes: scratch.size,
                kind: ValueKind::Scratch {
                    call: call_index,
                    owner: owner.clone(),
                    slot,
                    label,
                    role: scratch.role,
                    origin: scratch.origin.clone(),
                },
                pool: (!scratch.is_empty()).then(|| PoolChoice::MemId(i64::from(scratch.mem_id))),
                data: None,
                evalue: crate::model::EValue::Tensor,
                dim_order: Vec::new(),
                quant: None,
            });
            scratch_ids.push(first_id + new_values.len() - 1);
        }
    });
    let inserted = new_values.len();
    program.values.extend(new_values);
    inserted
}

/// The label a scratch buffer's value and generated constants carry (`ValueKind::Scratch`'s
/// `label`): its declaration's, as an identifier, or `scratch<slot>`.
pub(super) fn label(scratch: &BoundScratch, slot: usize) -> String {
    scratch
        .label
        .as_deref()
        .map_or_else(|| format!("scratch{slot}"), crate::names::ident)
}

/// Takes out every scratch value and every call's scratch arguments, renumbering the rest.
pub fn strip_scratch(program: &mut Program) {
    let remove: Vec<bool> = program
        .values
        .iter()
        .map(|v| matches!(v.kind, ValueKind::Scratch { .. }))
        .collect();
    if remove.contains(&true) {
        program.remove_values(&remove);
    }
    program.for_each_instruction_mut(|_, instruction| match instruction {
        Instruction::Delegate(call) => call.scratch.clear(),
        Instruction::Kernel(call) => call.scratch.clear(),
        Instruction::Branch(_) => {}
    });
}
