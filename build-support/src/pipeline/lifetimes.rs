//! Lifetimes from the linear instruction order.

use crate::model::{Program, ValueId};

/// When a value is alive: inclusive flat instruction indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lifetime {
    /// First instruction that needs it.
    pub first: usize,
    /// Last instruction that needs it.
    pub last: usize,
}

/// The lifetime of every value an instruction touches, or that the program takes or returns
/// (`None` for the rest).
///
/// Instructions are numbered in execution order, an arm's instructions right after the branch
/// that runs them and the arms one after another. A value used only inside an arm is alive only
/// there, so arms share memory with each other and with what the parent no longer needs. Program
/// inputs are alive from the start, outputs to the end. With several methods, laid end to end,
/// a method's inputs and outputs are alive only over its own instructions (the caller fills
/// them just before its run and reads them just after, as with ExecuTorch, which runs one
/// method at a time over memory every method may reuse), so methods share memory; state is
/// alive from the first method's start to the last one's end. A method with no instruction
/// has nowhere of its own on the timeline: its inputs and outputs are alive throughout. A
/// viewed value is alive while its views are read (they are its bytes).
pub fn lifetimes(program: &Program) -> Vec<Option<Lifetime>> {
    let mut life: Vec<Option<Lifetime>> = vec![None; program.values.len()];
    let flat = program.flat_instructions();
    let end = flat.len().saturating_sub(1);
    let mut touch = |id: ValueId, at: usize| {
        let l = life[id].get_or_insert(Lifetime {
            first: at,
            last: at,
        });
        l.first = l.first.min(at);
        l.last = l.last.max(at);
    };
    for (index, instruction) in &flat {
        for id in instruction.touched() {
            touch(id, *index);
        }
    }
    if program.methods.is_empty() {
        for &id in &program.inputs {
            touch(id, 0);
        }
        for &id in &program.outputs {
            touch(id, end);
        }
    } else {
        for (k, method) in program.methods.iter().enumerate() {
            let span = program.method_flat_range(k);
            if span.is_empty() {
                for &id in method.inputs.iter().chain(&method.outputs) {
                    touch(id, 0);
                    touch(id, end);
                }
                continue;
            }
            for &id in &method.inputs {
                touch(id, span.start);
            }
            for &id in &method.outputs {
                touch(id, span.end - 1);
            }
        }
    }
    // A viewed value holds the view's bytes: alive while its views are read (first, so that
    // state read only through a view is kept whole below).
    for view in &program.views {
        if let Some(seen) = life[view.value] {
            let l = life[view.viewed].get_or_insert(seen);
            l.first = l.first.min(seen.first);
            l.last = l.last.max(seen.last);
        }
    }
    for &id in &program.state {
        if let Some(l) = &mut life[id] {
            *l = Lifetime {
                first: 0,
                last: end,
            };
        }
    }
    // The planted bug of the mutation test: every value's last use one instruction early.
    #[cfg(arenaplan_mutant = "lifetime_last")]
    for l in life.iter_mut().flatten() {
        l.last = l.last.saturating_sub(1).max(l.first);
    }
    life
}
