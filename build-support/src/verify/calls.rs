//! The plan's calls against the program: one per kernel and delegate call, in the checker's
//! execution order, each with its backend, and its arguments the program's inputs, outputs and
//! scratch in that order and counts, each argument's buffer alive during the call.

use crate::model::{Instruction, Program, ValueKind};
use crate::pipeline::{CallKind, ModelPlan};

use super::{order, Account};

/// Checks the calls (`buffer_of`: each value's buffer in `plan.buffers`).
pub(super) fn check(
    program: &Program,
    plan: &ModelPlan,
    account: &Account,
    buffer_of: &[Option<usize>],
) -> Result<(), String> {
    let flat = &account.flat;
    let call_indices = order::calls(flat);
    let planned: Vec<usize> = plan.calls.iter().map(|c| c.index).collect();
    if planned != call_indices {
        return Err(format!(
            "calls {planned:?} in the plan, {call_indices:?} in the program"
        ));
    }
    for c in &plan.calls {
        let Some((_, instruction)) = flat.get(c.index) else {
            return Err(format!("call {} is not in the program", c.index));
        };
        let (kind, backend, counts, expected): (CallKind, Option<&str>, _, Vec<usize>) =
            match instruction {
                Instruction::Kernel(k) => (
                    CallKind::Kernel,
                    None,
                    (k.inputs.len(), k.outputs.len(), k.scratch.len()),
                    k.args().collect(),
                ),
                Instruction::Delegate(d) => (
                    CallKind::Delegate,
                    program
                        .delegates
                        .get(d.delegate)
                        .map(|delegate| delegate.backend.as_str()),
                    (d.inputs.len(), d.outputs.len(), d.scratch.len()),
                    d.args().collect(),
                ),
                Instruction::Branch(_) => return Err(format!("call {} is a branch", c.index)),
            };
        if c.backend.as_deref() != backend {
            return Err(format!(
                "call {}: backend {:?} in the plan, {backend:?} in the program",
                c.index, c.backend
            ));
        }
        if c.kind != kind || c.args != expected || (c.inputs, c.outputs, c.scratch) != counts {
            return Err(format!(
                "call {}: arguments {:?}, the program has {:?}",
                c.index, c.args, expected
            ));
        }
        for &a in &c.args[c.inputs + c.outputs..] {
            if !matches!(program.values[a].kind, ValueKind::Scratch { call, .. } if call == c.index)
            {
                return Err(format!(
                    "call {}: trailing argument {a} is not its scratch",
                    c.index
                ));
            }
        }
        for &a in &c.args {
            if let Some(i) = buffer_of[a] {
                let b = &plan.buffers[i];
                if b.first > c.index || c.index > b.last {
                    return Err(format!(
                        "call {}: argument {a} is not alive during the call",
                        c.index
                    ));
                }
            }
        }
    }
    Ok(())
}
