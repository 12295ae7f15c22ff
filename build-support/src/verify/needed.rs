//! When each value must hold its bytes, worked out by the checker from the program alone:
//! written apart from the pipeline's lifetimes, and sharing no code with them, so that a bug
//! there shows up here as a disagreement instead of passing both (`tests/mutants.rs` plants
//! such bugs).

use crate::model::{Instruction, Program};

/// The first and last instruction (flat, in execution order) during which a value's bytes
/// must stay its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Needed {
    pub first: usize,
    pub last: usize,
}

impl Needed {
    fn widen(this: &mut Option<Needed>, at: usize) {
        *this = Some(match *this {
            None => Needed {
                first: at,
                last: at,
            },
            Some(n) => Needed {
                first: n.first.min(at),
                last: n.last.max(at),
            },
        });
    }
}

/// When each value is needed (`None`: never, so it needs no memory), over the instructions
/// of `flat` (the checker's own order, [`super::order::flat`]).
///
/// - An instruction needs every value it reads or writes: a call's inputs, outputs and
///   scratch, a branch's predicate. Arms are numbered after their branch, one after another,
///   so a value used in one arm only is needed there only.
/// - A program's inputs are needed from the start and its outputs to the end. With several
///   methods (laid end to end), a method's inputs from its first instruction and its outputs to
///   its last: the caller fills them just before its run and reads them just after (one
///   method runs at a time). A method without instructions needs its inputs and outputs
///   throughout.
/// - State that is used keeps its contents between runs: needed throughout.
/// - A view's bytes are its viewed value's: that is needed while the view is.
pub(super) fn needed(program: &Program, flat: &[(usize, &Instruction)]) -> Vec<Option<Needed>> {
    let mut needed = vec![None; program.values.len()];
    let end = flat.len().saturating_sub(1);
    let mark = |needed: &mut Vec<Option<Needed>>, v: usize, at: usize| {
        if let Some(slot) = needed.get_mut(v) {
            Needed::widen(slot, at);
        }
    };
    for (at, instruction) in flat {
        match instruction {
            Instruction::Kernel(k) => {
                for v in k.inputs.iter().chain(&k.outputs).chain(&k.scratch) {
                    mark(&mut needed, *v, *at);
                }
            }
            Instruction::Delegate(d) => {
                for v in d.inputs.iter().chain(&d.outputs).chain(&d.scratch) {
                    mark(&mut needed, *v, *at);
                }
            }
            Instruction::Branch(b) => mark(&mut needed, b.predicate, *at),
        }
    }
    let whole = |needed: &mut Vec<Option<Needed>>, v: usize| {
        mark(needed, v, 0);
        mark(needed, v, end);
    };
    if program.methods.is_empty() {
        for &v in &program.inputs {
            mark(&mut needed, v, 0);
        }
        for &v in &program.outputs {
            mark(&mut needed, v, end);
        }
    } else {
        // Where each top-level instruction lands in `flat`: the body's instructions are the
        // entries not inside any arm, found by skipping each branch's nested entries.
        let top = top_level_positions(program, flat.len());
        for m in &program.methods {
            let (Some(&first), Some(&end)) = (top.get(m.body.start), top.get(m.body.end)) else {
                continue;
            };
            let last = end.saturating_sub(1);
            if m.body.is_empty() {
                for &v in m.inputs.iter().chain(&m.outputs) {
                    whole(&mut needed, v);
                }
                continue;
            }
            for &v in &m.inputs {
                mark(&mut needed, v, first);
            }
            for &v in &m.outputs {
                mark(&mut needed, v, last);
            }
        }
    }
    // Views first: state read only through a view is state that is used.
    for view in &program.views {
        if let Some(Some(n)) = needed.get(view.value).copied() {
            mark(&mut needed, view.viewed, n.first);
            mark(&mut needed, view.viewed, n.last);
        }
    }
    for &v in &program.state {
        if needed.get(v).is_some_and(Option::is_some) {
            whole(&mut needed, v);
        }
    }
    needed
}

/// The flat index at which each top-level instruction of `program` starts, then `total` (the
/// flat length). Counted with a stack of its own, as [`super::order::flat`] walks.
fn top_level_positions(program: &Program, total: usize) -> Vec<usize> {
    let mut positions = Vec::with_capacity(program.body.len() + 1);
    let mut at = 0;
    for instruction in &program.body {
        positions.push(at);
        let mut open = vec![instruction];
        while let Some(i) = open.pop() {
            at += 1;
            if let Instruction::Branch(b) = i {
                open.extend(b.arms.iter().flatten());
            }
        }
    }
    positions.push(total);
    positions
}
