//! ExecuTorch's `cond` results. Each arm of a `cond` ends with a move of its result into the
//! `cond`'s output value: an EValue move, so after the branch the output *is* the tensor the
//! taken arm computed — no bytes are copied. arenaplan runs a move as a copy (`et:move`), so
//! where an arm computes its result into a tensor of its own, used nowhere but in that arm,
//! the arm computes it straight into the output instead and the move goes: the same bytes
//! ExecuTorch reads, one copy less per inference, and one buffer less.
//!
//! A move stays where that would change meaning or layout: a result the arm does not compute
//! (an input, a constant, a value from before the branch), one used after the branch or by
//! the other arm, a view's or a viewed tensor, one an NPU call touches (its placement rules
//! are its own), or one of another shape, type, dim order, quantization or pool than the
//! output (the kernel writing it checks its output's metadata).

use std::collections::{HashMap, HashSet};

use crate::model::{Instruction, Program, ValueId, ValueKind};

/// Folds every foldable arm-end move of `program` (see the module doc), one at a time, each
/// found on the program as the folds before it left it (conds nest: an inner result is often
/// what the outer arm moves on).
pub(crate) fn fold_arm_moves(program: &mut Program) {
    while let Some((path, from, to)) = foldable(program) {
        let Some(arm) = arm_at(&mut program.body, &path) else {
            return;
        };
        arm.pop();
        // `from` is used in this arm only (checked), so renaming it everywhere renames it there.
        program.for_each_instruction_mut(|_, instruction| {
            instruction.for_each_value_mut(|v| {
                if *v == from {
                    *v = to;
                }
            })
        });
    }
}

/// Where an arm sits: per level, the branch's index in its body and the arm's index.
type ArmPath = Vec<(usize, usize)>;

/// The first arm whose closing move can go: its path, and the move's (from, to).
fn foldable(program: &Program) -> Option<(ArmPath, ValueId, ValueId)> {
    let pinned = pinned_values(program);
    let mut everywhere: HashMap<ValueId, usize> = HashMap::new();
    for (_, instruction) in program.flat_instructions() {
        for v in instruction.touched() {
            *everywhere.entry(v).or_default() += 1;
        }
    }
    let mut found = None;
    search(&program.body, &mut Vec::new(), &mut |path, arm| {
        if found.is_some() {
            return;
        }
        let Some((from, to)) = arm_end_move(arm) else {
            return;
        };
        let here = touches(arm);
        // Every instruction touching `from` is in this arm (none after the branch or in the
        // other arm), one of them a kernel before the move writing it; `to` only the move.
        let own = here.get(&from) == everywhere.get(&from);
        let written_here = arm[..arm.len() - 1]
            .iter()
            .any(|i| matches!(i, Instruction::Kernel(c) if c.outputs.contains(&from)));
        let to_only_moved = here.get(&to) == Some(&1);
        let (a, b) = (&program.values[from], &program.values[to]);
        let alike = a.kind == ValueKind::Planned
            && b.kind == ValueKind::Planned
            && a.evalue == b.evalue
            && a.dtype == b.dtype
            && a.shape == b.shape
            && a.dim_order == b.dim_order
            && a.quant == b.quant
            && a.pool == b.pool;
        // A view of `to` would read it through other bytes than `to`'s own touches count.
        let to_viewed = program
            .views
            .iter()
            .any(|w| w.viewed == to || w.value == to);
        if own && written_here && to_only_moved && alike && !to_viewed && !pinned.contains(&from) {
            found = Some((path.to_vec(), from, to));
        }
    });
    found
}

/// What [`search`] calls on each arm: its path and its instructions.
type ArmVisit<'v> = dyn FnMut(&[(usize, usize)], &[Instruction]) + 'v;

/// Calls `visit` on every arm of `body`, nested ones first, with its path.
fn search(body: &[Instruction], path: &mut ArmPath, visit: &mut ArmVisit<'_>) {
    for (at, instruction) in body.iter().enumerate() {
        if let Instruction::Branch(b) = instruction {
            for (k, arm) in b.arms.iter().enumerate() {
                path.push((at, k));
                search(arm, path, visit);
                visit(path, arm);
                path.pop();
            }
        }
    }
}

fn arm_at<'a>(
    body: &'a mut [Instruction],
    path: &[(usize, usize)],
) -> Option<&'a mut Vec<Instruction>> {
    let (&(at, k), rest) = path.split_first()?;
    let Instruction::Branch(b) = body.get_mut(at)? else {
        return None;
    };
    let arm = b.arms.get_mut(k)?;
    if rest.is_empty() {
        Some(arm)
    } else {
        arm_at(arm, rest)
    }
}

/// How many instructions of `body` (nested arms included) touch each value.
fn touches(body: &[Instruction]) -> HashMap<ValueId, usize> {
    let mut count = HashMap::new();
    let mut open = vec![body];
    while let Some(body) = open.pop() {
        for instruction in body {
            for v in instruction.touched() {
                *count.entry(v).or_default() += 1;
            }
            if let Instruction::Branch(b) = instruction {
                open.extend(b.arms.iter().map(Vec::as_slice));
            }
        }
    }
    count
}

/// Values whose identity matters beyond the instructions: inputs, outputs, state, views, and
/// what NPU calls touch.
fn pinned_values(program: &Program) -> HashSet<ValueId> {
    let mut pinned: HashSet<ValueId> = program
        .inputs
        .iter()
        .chain(&program.outputs)
        .chain(&program.state)
        .copied()
        .collect();
    for m in &program.methods {
        pinned.extend(m.inputs.iter().chain(&m.outputs).copied());
    }
    for view in &program.views {
        pinned.insert(view.value);
        pinned.insert(view.viewed);
    }
    for (_, instruction) in program.flat_instructions() {
        if let Instruction::Delegate(d) = instruction {
            pinned.extend(d.args());
        }
    }
    pinned
}

/// The last instruction of `arm` when it is a move: (from, to).
fn arm_end_move(arm: &[Instruction]) -> Option<(ValueId, ValueId)> {
    match arm.last()? {
        Instruction::Kernel(k)
            if k.op == "et:move" && k.inputs.len() == 1 && k.outputs.len() == 1 =>
        {
            Some((k.inputs[0], k.outputs[0]))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Branch, DType, KernelCall, Value};

    fn kernel(op: &str, inputs: Vec<ValueId>, outputs: Vec<ValueId>) -> Instruction {
        Instruction::Kernel(KernelCall::new(op, inputs, outputs))
    }

    /// `out = cond(c, relu(x) -> a, neg(x) -> b)`, each arm ending with its move into `out`.
    fn cond() -> (Program, [ValueId; 5]) {
        let mut p = Program::new("cond");
        let c = p.add_value(Value::planned("c", DType::Bool, vec![]));
        let x = p.add_value(Value::planned("x", DType::Float32, vec![4]));
        let a = p.add_value(Value::planned("a", DType::Float32, vec![4]));
        let b = p.add_value(Value::planned("b", DType::Float32, vec![4]));
        let out = p.add_value(Value::planned("out", DType::Float32, vec![4]));
        p.inputs = vec![c, x];
        p.outputs = vec![out];
        p.body = vec![Instruction::Branch(Branch {
            predicate: c,
            arms: vec![
                vec![
                    kernel("relu", vec![x], vec![a]),
                    kernel("et:move", vec![a], vec![out]),
                ],
                vec![
                    kernel("neg", vec![x], vec![b]),
                    kernel("et:move", vec![b], vec![out]),
                ],
            ],
        })];
        (p, [c, x, a, b, out])
    }

    fn arms(p: &Program) -> &Vec<Vec<Instruction>> {
        match &p.body[0] {
            Instruction::Branch(b) => &b.arms,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_arm_computes_its_result_into_the_cond_output() {
        let (mut p, [_, x, _, _, out]) = cond();
        fold_arm_moves(&mut p);
        assert_eq!(arms(&p)[0], [kernel("relu", vec![x], vec![out])]);
        assert_eq!(arms(&p)[1], [kernel("neg", vec![x], vec![out])]);
    }

    #[test]
    fn a_result_read_after_the_branch_keeps_its_move() {
        let (mut p, [_, _, a, _, _]) = cond();
        let y = p.add_value(Value::planned("y", DType::Float32, vec![4]));
        p.body.push(kernel("tail", vec![a], vec![y]));
        fold_arm_moves(&mut p);
        assert_eq!(arms(&p)[0].len(), 2, "`a` is read after the branch");
        assert_eq!(arms(&p)[1].len(), 1);
    }

    #[test]
    fn a_result_the_arm_does_not_compute_keeps_its_move() {
        let (mut p, [_, x, _, _, out]) = cond();
        // Arm 1 returns the input itself.
        let Instruction::Branch(b) = &mut p.body[0] else {
            unreachable!()
        };
        b.arms[1] = vec![kernel("et:move", vec![x], vec![out])];
        fold_arm_moves(&mut p);
        assert_eq!(arms(&p)[1], [kernel("et:move", vec![x], vec![out])]);
        assert_eq!(arms(&p)[0].len(), 1);
    }

    #[test]
    fn an_output_read_through_a_view_keeps_its_move() {
        let (mut p, [.., out]) = cond();
        let view = p.add_value(Value::planned("view", DType::Float32, vec![2, 2]));
        p.views.push(crate::model::View {
            value: view,
            viewed: out,
        });
        fold_arm_moves(&mut p);
        assert_eq!(arms(&p)[0].len(), 2);
        assert_eq!(arms(&p)[1].len(), 2);
    }

    #[test]
    fn a_result_of_another_dim_order_keeps_its_move() {
        let (mut p, [.., a, _, _]) = cond();
        p.values[a].dim_order = vec![0];
        fold_arm_moves(&mut p);
        assert_eq!(arms(&p)[0].len(), 2);
    }

    #[test]
    fn a_result_of_another_shape_keeps_its_move() {
        let (mut p, [.., a, _, _]) = cond();
        p.values[a] = Value::planned("a", DType::Float32, vec![2, 2]);
        fold_arm_moves(&mut p);
        assert_eq!(arms(&p)[0].len(), 2);
        assert_eq!(arms(&p)[1].len(), 1);
    }
}
