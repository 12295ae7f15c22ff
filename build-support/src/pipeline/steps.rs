//! The runtime's instruction table: every call in execution order, and each branch as jumps.
//! A branch of two arms becomes `JUMP_FALSE predicate → arm 1`, arm 0, `JUMP → end`, arm 1;
//! of one arm, `JUMP_FALSE predicate → end`, arm 0. Arm 0 runs when the predicate is true (some
//! byte non-zero), as ExecuTorch's `cond` runs its true branch first. The runtime runs if/else;
//! a branch of more arms is refused here, at build time.

use thiserror::Error;

use crate::model::{Instruction, Program, ValueId, ValueKind};

use super::ModelPlan;

/// One entry of the instruction table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// `plan.calls[i]`.
    Call(usize),
    /// Continue at step `to` when `predicate` is false.
    JumpFalse {
        /// The predicate's value.
        predicate: ValueId,
        /// The step to continue at.
        to: usize,
    },
    /// Continue at step `to`.
    Jump {
        /// The step to continue at.
        to: usize,
    },
}

/// The instruction table, with the flat instruction index each step stands for (a jump: its
/// branch's).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Steps {
    /// The steps, in table order.
    pub steps: Vec<Step>,
    /// Per step, its flat instruction index.
    pub flat: Vec<usize>,
}

impl Steps {
    /// Whether any step is a jump (the program has a branch).
    pub fn has_jumps(&self) -> bool {
        self.steps.iter().any(|s| !matches!(s, Step::Call(_)))
    }
}

/// A branch the runtime cannot run.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BranchError {
    /// More than two arms.
    #[error("instruction {instruction}: a branch of {arms} arms; the runtime runs if/else (one or two arms): nest two-way branches instead")]
    Arms {
        /// Its flat index.
        instruction: usize,
        /// How many arms it has.
        arms: usize,
    },
    /// A predicate without memory at run time.
    #[error("instruction {instruction}: the branch's predicate `{name}` has no memory at run time (a constant without data, or a value the program leaves unplanned)")]
    Predicate {
        /// Its flat index.
        instruction: usize,
        /// The predicate's name.
        name: String,
    },
}

/// The instruction table of `program` as `plan` lists its calls.
///
/// ```
/// use arenaplan_build::model::{Branch, DType, Instruction, KernelCall, Program, Value};
/// use arenaplan_build::pipeline::{steps, ModelPlan, Step};
/// let mut p = Program::new("b");
/// let c = p.add_value(Value::planned("c", DType::Bool, vec![1]));
/// let y = p.add_value(Value::planned("y", DType::Int8, vec![4]));
/// let arm = |op: &str| vec![Instruction::Kernel(KernelCall::new(op, vec![], vec![y]))];
/// p.body.push(Instruction::Branch(Branch { predicate: c, arms: vec![arm("a"), arm("b")] }));
/// # let calls = [1, 2].map(|index| arenaplan_build::CallPlan { index, kind: arenaplan_build::CallKind::Kernel, backend: None, args: vec![y], inputs: 0, outputs: 1, scratch: 0 }).to_vec();
/// # let plan = ModelPlan { target: "t".into(), pools: vec![], buffers: vec![], calls };
/// let table = steps(&p, &plan).unwrap();
/// assert_eq!(table.steps, [Step::JumpFalse { predicate: c, to: 3 }, Step::Call(0), Step::Jump { to: 4 }, Step::Call(1)]);
/// assert_eq!(table.flat, [0, 1, 0, 2]);
/// ```
pub fn steps(program: &Program, plan: &ModelPlan) -> Result<Steps, BranchError> {
    let mut out = Steps::default();
    let mut flat = 0;
    walk(program, plan, &program.body, &mut flat, &mut out)?;
    Ok(out)
}

fn walk(
    program: &Program,
    plan: &ModelPlan,
    body: &[Instruction],
    flat: &mut usize,
    out: &mut Steps,
) -> Result<(), BranchError> {
    for instruction in body {
        let index = *flat;
        *flat += 1;
        let Instruction::Branch(b) = instruction else {
            if let Some(i) = plan.calls.iter().position(|c| c.index == index) {
                out.steps.push(Step::Call(i));
                out.flat.push(index);
            }
            continue;
        };
        if b.arms.len() > 2 {
            return Err(BranchError::Arms {
                instruction: index,
                arms: b.arms.len(),
            });
        }
        let predicate = &program.values[b.predicate];
        let has_memory = match predicate.kind {
            ValueKind::Constant => predicate.data.is_some(),
            _ => predicate.is_planned(),
        };
        if !has_memory {
            return Err(BranchError::Predicate {
                instruction: index,
                name: crate::names::comment(&predicate.name),
            });
        }
        let jump_false = out.steps.len();
        out.steps.push(Step::JumpFalse {
            predicate: b.predicate,
            to: 0,
        });
        out.flat.push(index);
        if let Some(arm) = b.arms.first() {
            walk(program, plan, arm, flat, out)?;
        }
        let end_of_true = match b.arms.get(1) {
            Some(arm) => {
                let jump = out.steps.len();
                out.steps.push(Step::Jump { to: 0 });
                out.flat.push(index);
                let start = out.steps.len();
                walk(program, plan, arm, flat, out)?;
                out.steps[jump] = Step::Jump {
                    to: out.steps.len(),
                };
                start
            }
            None => out.steps.len(),
        };
        // The planted bug of the mutation test: the false jump one step short.
        #[cfg(arenaplan_mutant = "steps")]
        let end_of_true = end_of_true.saturating_sub(1);
        out.steps[jump_false] = Step::JumpFalse {
            predicate: b.predicate,
            to: end_of_true,
        };
    }
    Ok(())
}
