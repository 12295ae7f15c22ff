//! The runtime's instruction table, laid out by the checker: every call in execution order,
//! each branch as jumps (two arms: `JUMP_FALSE predicate → arm 1`, arm 0, `JUMP → end`, arm 1;
//! one arm: `JUMP_FALSE predicate → end`, arm 0). Written apart from the pipeline's table
//! (`pipeline::steps`), which the emitters lay out: the verify stage compares the two, so a
//! jump to the wrong step is refused before it reaches firmware.

use crate::model::{Branch, Instruction, Program, ValueKind};
use crate::pipeline::{Step, Steps};

/// Whether the runtime can run `b` (flat index `at`): one or two arms (if/else), and a
/// predicate with memory at run time (a constant with data, or a value with a buffer).
pub(super) fn runnable(program: &Program, at: usize, b: &Branch) -> Result<(), String> {
    if b.arms.len() > 2 {
        return Err(format!(
            "instruction {at}: a branch of {} arms, and the runtime runs if/else (one or two arms)",
            b.arms.len()
        ));
    }
    let has_memory = program
        .values
        .get(b.predicate)
        .is_some_and(|p| match p.kind {
            ValueKind::Constant => p.data.is_some(),
            _ => p.is_planned(),
        });
    if !has_memory {
        return Err(format!(
            "instruction {at}: the branch's predicate (value {}) has no memory at run time",
            b.predicate
        ));
    }
    Ok(())
}

/// Every branch of `flat` is one the runtime can run ([`runnable`]).
pub(super) fn all_runnable(
    program: &Program,
    flat: &[(usize, &Instruction)],
) -> Result<(), String> {
    for &(at, instruction) in flat {
        if let Instruction::Branch(b) = instruction {
            runnable(program, at, b)?;
        }
    }
    Ok(())
}

/// The instruction table of `program`, whose k-th call in execution order is the plan's call
/// k (the calls check proves it), with each step's flat index (a jump: its branch's).
pub(super) fn table(program: &Program) -> Steps {
    let mut layout = Layout::default();
    layout.body(&program.body);
    layout.table
}

/// The table as it grows, and the next flat index and call number.
#[derive(Default)]
struct Layout {
    table: Steps,
    next_flat: usize,
    next_call: usize,
}

impl Layout {
    fn push(&mut self, step: Step, flat: usize) -> usize {
        self.table.steps.push(step);
        self.table.flat.push(flat);
        self.table.steps.len() - 1
    }

    fn body(&mut self, body: &[Instruction]) {
        for instruction in body {
            let at = self.next_flat;
            self.next_flat += 1;
            let Instruction::Branch(b) = instruction else {
                self.push(Step::Call(self.next_call), at);
                self.next_call += 1;
                continue;
            };
            // Jumps go forward, to steps not laid out yet: each is set once its target is.
            let predicate = b.predicate;
            let jump_false = self.push(Step::JumpFalse { predicate, to: 0 }, at);
            if let Some(then) = b.arms.first() {
                self.body(then);
            }
            let otherwise = match b.arms.get(1) {
                Some(arm) => {
                    let jump = self.push(Step::Jump { to: 0 }, at);
                    let start = self.table.steps.len();
                    self.body(arm);
                    self.table.steps[jump] = Step::Jump {
                        to: self.table.steps.len(),
                    };
                    start
                }
                None => self.table.steps.len(),
            };
            self.table.steps[jump_false] = Step::JumpFalse {
                predicate,
                to: otherwise,
            };
        }
    }
}

/// The table the emitters lay out (`shipped`, the pipeline's) is the checker's.
pub(super) fn check_table(program: &Program, shipped: &Steps) -> Result<(), String> {
    let own = table(program);
    if &own == shipped {
        return Ok(());
    }
    let at = own
        .steps
        .iter()
        .zip(&own.flat)
        .zip(shipped.steps.iter().zip(&shipped.flat))
        .position(|(a, b)| a != b)
        .unwrap_or(own.steps.len().min(shipped.steps.len()));
    Err(format!(
        "the instruction table differs at step {at}: {:?} in the plan's table, {:?} by the program",
        shipped.steps.get(at),
        own.steps.get(at)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DType, KernelCall, Value};

    #[test]
    fn a_two_arm_branch_jumps_over_each_arm() {
        let mut p = Program::new("b");
        let c = p.add_value(Value::planned("c", DType::Bool, vec![1]));
        let y = p.add_value(Value::planned("y", DType::Int8, vec![4]));
        let arm = |op: &str| vec![Instruction::Kernel(KernelCall::new(op, vec![], vec![y]))];
        p.body.push(Instruction::Branch(Branch {
            predicate: c,
            arms: vec![arm("a"), arm("b")],
        }));
        p.body.push(arm("after").remove(0));
        let t = table(&p);
        assert_eq!(
            t.steps,
            [
                Step::JumpFalse {
                    predicate: c,
                    to: 3
                },
                Step::Call(0),
                Step::Jump { to: 4 },
                Step::Call(1),
                Step::Call(2),
            ]
        );
        assert_eq!(t.flat, [0, 1, 0, 2, 3]);
        assert!(check_table(&p, &t).is_ok());
        let mut wrong = t.clone();
        wrong.steps[0] = Step::JumpFalse {
            predicate: c,
            to: 2,
        };
        let e = check_table(&p, &wrong).unwrap_err();
        assert!(e.contains("differs at step 0"), "{e}");
    }

    #[test]
    fn a_one_arm_branch_jumps_to_its_end() {
        let mut p = Program::new("b");
        let c = p.add_value(Value::planned("c", DType::Bool, vec![1]));
        let k = Instruction::Kernel(KernelCall::new("k", vec![], vec![]));
        p.body.push(Instruction::Branch(Branch {
            predicate: c,
            arms: vec![vec![k.clone(), k]],
        }));
        let t = table(&p);
        assert_eq!(
            t.steps,
            [
                Step::JumpFalse {
                    predicate: c,
                    to: 3
                },
                Step::Call(0),
                Step::Call(1)
            ]
        );
        assert!(runnable(
            &p,
            0,
            match &p.body[0] {
                Instruction::Branch(b) => b,
                _ => unreachable!(),
            }
        )
        .is_ok());
    }
}
