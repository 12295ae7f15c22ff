//! ExecuTorch's views. A view or reshape that needs no copy is emitted without an
//! instruction: its tensor gets the same place in the program's own memory plan as the
//! tensor it views, and nothing writes it. arenaplan plans every tensor anew, so the view is
//! made explicit: a move (`et:move`, a copy of its bytes) from the viewed tensor, right after
//! whatever writes that — the shapes differ, the bytes are the same. A planned tensor that
//! some call reads, nothing writes and that views nothing is left as it is: a buffer a kernel
//! only uses as room (the `cortex_m` kernels take their scratch so), whose contents are
//! undefined in ExecuTorch's runtime too.

use crate::model::{Instruction, KernelCall, Program, ValueId, ValueKind};

/// Makes every view of `program` a move from the tensor it views. `offsets` is the file's
/// own plan: `(mem_id, offset)` per value, where it places one.
pub(crate) fn materialize_views(program: &mut Program, offsets: &[Option<(i64, u64)>]) {
    let flat = program.flat_instructions();
    // Who writes each value, by flat index (program inputs: before everything).
    let mut writer: Vec<Option<usize>> = vec![None; program.values.len()];
    let mut first_read: Vec<Option<usize>> = vec![None; program.values.len()];
    for &v in &program.inputs {
        writer[v] = Some(0);
    }
    for &(at, instruction) in &flat {
        let (inputs, outputs): (&[ValueId], &[ValueId]) = match instruction {
            Instruction::Kernel(k) => (&k.inputs, &k.outputs),
            Instruction::Delegate(d) => (&d.inputs, &d.outputs),
            Instruction::Branch(b) => (std::slice::from_ref(&b.predicate), &[]),
        };
        for &v in outputs {
            writer[v].get_or_insert(at + 1);
        }
        for &v in inputs {
            first_read[v].get_or_insert(at);
        }
    }
    for &v in &program.outputs {
        first_read[v].get_or_insert(flat.len());
    }
    drop(flat);
    // (view, viewed, position to insert the move after: None for the start).
    let mut views: Vec<(ValueId, ValueId)> = Vec::new();
    for v in 0..program.values.len() {
        let value = &program.values[v];
        let Some(read) = first_read[v] else { continue };
        if writer[v].is_some()
            || value.kind != ValueKind::Planned
            || value.bytes == 0
            || program.state.contains(&v)
        {
            continue;
        }
        let Some(place) = offsets.get(v).copied().flatten() else {
            continue;
        };
        // The viewed tensor: same place and size, written last before the view is first read.
        let viewed = (0..program.values.len())
            .filter(|&b| b != v && offsets.get(b).copied().flatten() == Some(place))
            .filter(|&b| program.values[b].bytes == value.bytes)
            .filter(|&b| writer[b].is_some_and(|w| w <= read))
            .max_by_key(|&b| writer[b]);
        if let Some(b) = viewed {
            views.push((v, b));
        }
    }
    for &(view, viewed) in &views {
        let copy = Instruction::Kernel(KernelCall::new("et:move", vec![viewed], vec![view]));
        if program.inputs.contains(&viewed) {
            program.body.insert(0, copy);
        } else {
            insert_after_writer(&mut program.body, viewed, copy);
        }
    }
}

/// Inserts `copy` right after the instruction (at any depth) that writes `v`.
fn insert_after_writer(body: &mut Vec<Instruction>, v: ValueId, copy: Instruction) -> bool {
    for i in 0..body.len() {
        let writes = match &body[i] {
            Instruction::Kernel(k) => k.outputs.contains(&v),
            Instruction::Delegate(d) => d.outputs.contains(&v),
            Instruction::Branch(_) => false,
        };
        if writes {
            body.insert(i + 1, copy);
            return true;
        }
        if let Instruction::Branch(b) = &mut body[i] {
            for arm in &mut b.arms {
                if insert_after_writer(arm, v, copy.clone()) {
                    return true;
                }
            }
        }
    }
    false
}
