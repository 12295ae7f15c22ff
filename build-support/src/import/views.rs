//! ExecuTorch's views. A view or reshape that needs no copy is emitted without an
//! instruction: its tensor gets the same place in the program's own memory plan as the
//! tensor it views, and nothing writes it. arenaplan keeps it so: the view becomes a
//! [`View`] of the viewed tensor (the same bytes, another shape), and the viewed tensor stays
//! alive while the view is read — no copy, and no memory ExecuTorch does not use.
//!
//! Where an NPU call reads or writes either tensor, or the two are asked for different pools,
//! the view is a move instead (`et:move`, a copy of its bytes right after whatever writes the
//! viewed tensor): an NPU's tensors have placement rules of their own (cache lines, slots in
//! its scratch) that a shared place would have to satisfy twice.
//!
//! A planned tensor that some call reads, nothing writes and that views nothing is left as it
//! is: a buffer a kernel only uses as room (the `cortex_m` kernels take their scratch so),
//! whose contents are undefined in ExecuTorch's runtime too.

use crate::model::{Instruction, KernelCall, Program, ValueId, ValueKind, View};

/// Makes every view of `program` a [`View`] of the tensor it views, or a move from it (see the
/// module's doc). `offsets` is the file's own plan: `(mem_id, offset)` per value, where it
/// places one.
pub(crate) fn materialize_views(program: &mut Program, offsets: &[Option<(i64, u64)>]) {
    let flat = program.flat_instructions();
    // Who writes each value, by flat index (program inputs: before everything).
    let mut writer: Vec<Option<usize>> = vec![None; program.values.len()];
    let mut first_read: Vec<Option<usize>> = vec![None; program.values.len()];
    // The caller writes inputs; state holds its contents from before the run.
    for &v in program.inputs.iter().chain(&program.state) {
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
    // The values the file's plan puts at each place, to find a view's tensor among.
    let mut at_place: std::collections::HashMap<(i64, u64), Vec<ValueId>> = Default::default();
    for (v, place) in offsets.iter().enumerate() {
        if let Some(place) = place {
            at_place.entry(*place).or_default().push(v);
        }
    }
    // (view, viewed).
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
        let viewed = at_place
            .get(&place)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&b| b != v)
            .filter(|&b| program.values[b].bytes == value.bytes)
            .filter(|&b| writer[b].is_some_and(|w| w <= read))
            .max_by_key(|&b| writer[b]);
        if let Some(b) = viewed {
            views.push((v, b));
        }
    }
    let npu_args: std::collections::HashSet<ValueId> = program
        .flat_instructions()
        .iter()
        .flat_map(|(_, i)| match i {
            Instruction::Delegate(d) => d.args().collect(),
            _ => Vec::new(),
        })
        .collect();
    let npu_touches = |v: ValueId| npu_args.contains(&v);
    // A call that writes the viewed tensor while reading the view would have its output
    // passed again (the argument contract gives every written argument bytes of its own).
    let rewrites: std::collections::HashSet<(ValueId, ValueId)> = program
        .flat_instructions()
        .iter()
        .flat_map(|(_, i)| match i {
            Instruction::Kernel(k) => k
                .inputs
                .iter()
                .flat_map(|&a| k.outputs.iter().map(move |&b| (a, b)))
                .collect(),
            _ => Vec::new(),
        })
        .collect();
    let written_while_read = |view: ValueId, viewed: ValueId| rewrites.contains(&(view, viewed));
    let (aliased, copied): (Vec<_>, Vec<_>) = views.into_iter().partition(|&(view, viewed)| {
        program.values[view].pool == program.values[viewed].pool
            && !npu_touches(view)
            && !npu_touches(viewed)
            && !written_while_read(view, viewed)
    });
    program.views.extend(
        aliased
            .into_iter()
            .map(|(value, viewed)| View { value, viewed }),
    );
    for &(view, viewed) in &copied {
        let copy = Instruction::Kernel(KernelCall::new("et:move", vec![viewed], vec![view]));
        let written_before = program.inputs.contains(&viewed) || program.state.contains(&viewed);
        let writer = (!written_before)
            .then(|| path_to(&program.body, &|i| writes(i, viewed)))
            .flatten();
        let reader = path_to(&program.body, &|i| reads(i, view));
        insert(
            &mut program.body,
            writer.as_deref(),
            reader.as_deref(),
            copy,
        );
    }
}

/// Where an instruction sits: at each depth its index in the body and, where it lies deeper,
/// the arm of the branch at that index it lies in.
type Path = Vec<(usize, usize)>;

/// The path of the first instruction (in execution order, a branch before its arms) for which
/// `hit` holds.
fn path_to(body: &[Instruction], hit: &dyn Fn(&Instruction) -> bool) -> Option<Path> {
    for (i, instruction) in body.iter().enumerate() {
        if hit(instruction) {
            return Some(vec![(i, 0)]);
        }
        if let Instruction::Branch(b) = instruction {
            for (a, arm) in b.arms.iter().enumerate() {
                if let Some(mut rest) = path_to(arm, hit) {
                    rest.insert(0, (i, a));
                    return Some(rest);
                }
            }
        }
    }
    None
}

fn writes(instruction: &Instruction, v: ValueId) -> bool {
    match instruction {
        Instruction::Kernel(k) => k.outputs.contains(&v),
        Instruction::Delegate(d) => d.outputs.contains(&v),
        Instruction::Branch(_) => false,
    }
}

fn reads(instruction: &Instruction, v: ValueId) -> bool {
    match instruction {
        Instruction::Kernel(k) => k.inputs.contains(&v),
        Instruction::Delegate(d) => d.inputs.contains(&v),
        Instruction::Branch(b) => b.predicate == v,
    }
}

/// Inserts `copy` where it runs after `writer` (the start of the body for none) on every path
/// that reaches `reader`: in the innermost body holding both, right after the instruction
/// there that is or contains the writer. A value a branch's arms each write, read after the
/// branch, is copied after the whole branch.
fn insert(
    body: &mut Vec<Instruction>,
    writer: Option<&[(usize, usize)]>,
    reader: Option<&[(usize, usize)]>,
    copy: Instruction,
) {
    let Some(&(w, w_arm)) = writer.and_then(|p| p.first()) else {
        body.insert(0, copy);
        return;
    };
    let (writer, reader) = (writer.unwrap_or(&[]), reader.unwrap_or(&[]));
    let deeper = writer.len() > 1 && reader.len() > 1 && reader[0] == (w, w_arm);
    if deeper {
        if let Some(Instruction::Branch(b)) = body.get_mut(w) {
            if let Some(arm) = b.arms.get_mut(w_arm) {
                insert(arm, Some(&writer[1..]), Some(&reader[1..]), copy);
                return;
            }
        }
    }
    body.insert((w + 1).min(body.len()), copy);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Branch, DType, Value};

    fn kernel(op: &str, inputs: Vec<ValueId>, outputs: Vec<ValueId>) -> Instruction {
        Instruction::Kernel(KernelCall::new(op, inputs, outputs))
    }

    /// A cond's output, written in both arms, viewed after the branch: the move follows the
    /// whole branch, so it runs whichever arm ran. A view read inside the arm that writes the
    /// viewed tensor is moved inside that arm.
    #[test]
    fn a_view_is_copied_where_every_path_to_its_reads_passes() {
        let mut p = Program::new("views");
        let c = p.add_value(Value::planned("c", DType::Bool, vec![]));
        let x = p.add_value(Value::planned("x", DType::Float32, vec![2, 3]));
        let y = p.add_value(Value::planned("y", DType::Float32, vec![2, 3]));
        let view = p.add_value(Value::planned("view", DType::Float32, vec![6]));
        let z = p.add_value(Value::planned("z", DType::Float32, vec![6]));
        let inner = p.add_value(Value::planned("inner", DType::Float32, vec![6]));
        let w = p.add_value(Value::planned("w", DType::Float32, vec![6]));
        p.inputs = vec![c, x];
        p.outputs = vec![z, w];
        p.body = vec![
            Instruction::Branch(Branch {
                predicate: c,
                arms: vec![
                    vec![
                        kernel("a", vec![x], vec![y]),
                        kernel("use", vec![inner], vec![w]),
                    ],
                    vec![kernel("b", vec![x], vec![y]), kernel("w", vec![x], vec![w])],
                ],
            }),
            kernel("relu", vec![view], vec![z]),
        ];
        // `view` and `inner` sit where the file's plan put `y`.
        let mut offsets = vec![None; p.values.len()];
        for v in [y, view, inner] {
            offsets[v] = Some((1, 64));
        }
        // An NPU call reads `view` (so it is copied); `inner` stays a view of `y`.
        p.body
            .push(Instruction::Delegate(crate::model::DelegateCall {
                delegate: 0,
                inputs: vec![view],
                outputs: vec![],
                scratch: vec![],
            }));
        materialize_views(&mut p, &offsets);
        let Instruction::Branch(b) = &p.body[0] else {
            panic!("{:?}", p.body)
        };
        assert_eq!(p.body[1], kernel("et:move", vec![y], vec![view]));
        assert_eq!(p.body[2], kernel("relu", vec![view], vec![z]));
        assert_eq!(b.arms[0].len(), 2, "no copy for a CPU view");
        assert_eq!(b.arms[1].len(), 2);
        assert_eq!(
            p.views,
            [View {
                value: inner,
                viewed: y
            }]
        );
    }

    /// A view only CPU kernels read shares its viewed tensor's bytes: no instruction added.
    #[test]
    fn a_cpu_view_is_the_viewed_tensors_bytes() {
        let mut p = Program::new("reshape");
        let x = p.add_value(Value::planned("x", DType::Float32, vec![2, 3]));
        let y = p.add_value(Value::planned("y", DType::Float32, vec![2, 3]));
        let flat = p.add_value(Value::planned("flat", DType::Float32, vec![6]));
        let z = p.add_value(Value::planned("z", DType::Float32, vec![6]));
        p.inputs = vec![x];
        p.outputs = vec![z];
        p.body = vec![
            kernel("relu", vec![x], vec![y]),
            kernel("relu", vec![flat], vec![z]),
        ];
        let mut offsets = vec![None; p.values.len()];
        offsets[y] = Some((1, 0));
        offsets[flat] = Some((1, 0));
        materialize_views(&mut p, &offsets);
        assert_eq!(p.body.len(), 2);
        assert_eq!(p.viewed(flat), Some(y));
    }
}
