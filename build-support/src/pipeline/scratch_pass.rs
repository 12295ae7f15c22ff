//! The scratch pass: gives every delegate and kernel call its scratch buffers as trailing
//! arguments.

use crate::model::{
    DType, Instruction, PoolChoice, Program, ScratchOwner, Value, ValueId, ValueKind,
};

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
                bound.of_kernel(&call.op),
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
    let mut remap: Vec<Option<ValueId>> = Vec::with_capacity(program.values.len());
    let mut kept = 0;
    for v in &program.values {
        if matches!(v.kind, ValueKind::Scratch { .. }) {
            remap.push(None);
        } else {
            remap.push(Some(kept));
            kept += 1;
        }
    }
    if kept == program.values.len() {
        program.for_each_instruction_mut(|_, instruction| match instruction {
            Instruction::Delegate(call) => call.scratch.clear(),
            Instruction::Kernel(call) => call.scratch.clear(),
            Instruction::Branch(_) => {}
        });
        return;
    }
    program
        .values
        .retain(|v| !matches!(v.kind, ValueKind::Scratch { .. }));
    let map = |ids: &mut Vec<ValueId>| {
        ids.retain(|&i| remap[i].is_some());
        for i in ids.iter_mut() {
            *i = remap[*i].unwrap_or(*i);
        }
    };
    map(&mut program.inputs);
    map(&mut program.outputs);
    fn walk(body: &mut [crate::model::Instruction], map: &dyn Fn(&mut Vec<ValueId>)) {
        use crate::model::Instruction;
        for instruction in body {
            match instruction {
                Instruction::Kernel(k) => {
                    map(&mut k.inputs);
                    map(&mut k.outputs);
                    k.scratch.clear();
                }
                Instruction::Delegate(d) => {
                    map(&mut d.inputs);
                    map(&mut d.outputs);
                    d.scratch.clear();
                }
                Instruction::Branch(b) => {
                    let mut p = vec![b.predicate];
                    map(&mut p);
                    if let Some(&id) = p.first() {
                        b.predicate = id;
                    }
                    for arm in &mut b.arms {
                        walk(arm, map);
                    }
                }
            }
        }
    }
    walk(&mut program.body, &map);
}
