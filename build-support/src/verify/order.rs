//! The order the runtime meets the program's instructions in, numbered as the plan numbers
//! them: the verify stage's own walk of the nested body, so that a plan numbered by a wrong
//! walk (an arm out of place) disagrees with it.

use crate::model::{Instruction, Program};

/// Every instruction of `program` with its flat index, in execution order: a branch, then its
/// arms one after another, then what follows the branch. Walked with a stack of its own (no
/// recursion), so a deeply nested program cannot exhaust the checker's stack.
pub(super) fn flat(program: &Program) -> Vec<(usize, &Instruction)> {
    let mut out = Vec::new();
    let mut open = vec![program.body.iter()];
    while let Some(body) = open.last_mut() {
        let Some(instruction) = body.next() else {
            open.pop();
            continue;
        };
        out.push((out.len(), instruction));
        if let Instruction::Branch(b) = instruction {
            // The last arm goes under the first, so arm 0 is walked first.
            open.extend(b.arms.iter().rev().map(|arm| arm.iter()));
        }
    }
    out
}

/// The flat indices of the calls (kernel and delegate instructions), in order: the k-th is
/// the plan's call k.
pub(super) fn calls(flat: &[(usize, &Instruction)]) -> Vec<usize> {
    flat.iter()
        .filter(|(_, i)| !matches!(i, Instruction::Branch(_)))
        .map(|(at, _)| *at)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Branch, DType, KernelCall, Value};

    #[test]
    fn arms_follow_their_branch_one_after_another() {
        let mut p = Program::new("b");
        let c = p.add_value(Value::planned("c", DType::Bool, vec![1]));
        let kernel = |op: &str| Instruction::Kernel(KernelCall::new(op, vec![], vec![]));
        let inner = Instruction::Branch(Branch {
            predicate: c,
            arms: vec![vec![kernel("a1")], vec![]],
        });
        p.body = vec![
            kernel("first"),
            Instruction::Branch(Branch {
                predicate: c,
                arms: vec![vec![inner, kernel("a2")], vec![kernel("b")]],
            }),
            kernel("last"),
        ];
        let ops = |walk: Vec<(usize, &Instruction)>| -> Vec<(usize, String)> {
            walk.into_iter()
                .map(|(at, i)| match i {
                    Instruction::Kernel(k) => (at, k.op.clone()),
                    _ => (at, "branch".into()),
                })
                .collect()
        };
        let expected = ["first", "branch", "branch", "a1", "a2", "b", "last"];
        let expected: Vec<(usize, String)> = expected
            .iter()
            .enumerate()
            .map(|(at, op)| (at, op.to_string()))
            .collect();
        assert_eq!(ops(flat(&p)), expected);
        assert_eq!(calls(&flat(&p)), [0, 3, 4, 5, 6]);
        // The model's own walk agrees: two walks written apart, one order.
        assert_eq!(ops(p.flat_instructions()), expected);
    }
}
