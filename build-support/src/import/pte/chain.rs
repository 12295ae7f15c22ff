//! The instruction chain as the file lists it, with forward jumps turned into branches, and
//! a kernel call's arguments split into inputs and outputs (the out-variant convention).

use std::collections::BTreeMap;

use super::MAX_BRANCH_DEPTH;
use crate::import::ImportError;
use crate::model::{Branch, Instruction, Value, ValueKind};

/// An instruction as the file lists it, before its jumps become branches.
#[derive(Clone, Debug)]
pub(super) enum Raw {
    /// A kernel or delegate call (taken when structured).
    Call(Instruction),
    /// `JumpFalseCall`: continue at `to` when `condition` is false.
    JumpFalse { condition: usize, to: usize },
    /// Nothing to run (a free), kept so that jump destinations still count it.
    Nothing,
    /// Already taken into a branch.
    Taken,
}

/// The instructions `start..end` with their forward jumps as branches, the shapes ExecuTorch's
/// emitter gives `cond`: `JUMP_FALSE c → e`, the true arm, then, if the arm ends in a jump on a
/// constant false (ExecuTorch's unconditional jump) past `e`, the false arm `e..` that jump's
/// destination. A jump whose destination leaves its block is refused (not a branch).
pub(super) fn structure(
    raw: &mut [Raw],
    start: usize,
    end: usize,
    values: &[Value],
    depth: usize,
) -> Result<Vec<Instruction>, ImportError> {
    if depth > MAX_BRANCH_DEPTH {
        return Err(ImportError::Unsupported(format!(
            "instruction {start}: branches nested deeper than {MAX_BRANCH_DEPTH}"
        )));
    }
    let always = |v: usize| {
        values[v].kind == ValueKind::Constant
            && values[v]
                .data
                .as_ref()
                .is_some_and(|d| d.bytes().iter().all(|&b| b == 0))
    };
    let mut out = Vec::new();
    let mut i = start;
    while i < end {
        match std::mem::replace(&mut raw[i], Raw::Taken) {
            Raw::Call(instruction) => out.push(instruction),
            Raw::Nothing | Raw::Taken => {}
            Raw::JumpFalse { condition, to } => {
                if to > end {
                    return Err(ImportError::Unsupported(format!(
                        "instruction {i} jumps to {to}, out of its block (which ends at {end}): not a branch arenaplan can run"
                    )));
                }
                let skip = match raw.get(to.wrapping_sub(1)) {
                    Some(&Raw::JumpFalse {
                        condition: c,
                        to: t,
                    }) if to - 1 > i && always(c) && t >= to && t <= end => Some(t),
                    _ => None,
                };
                let mut arms = Vec::new();
                match skip {
                    Some(t) => {
                        arms.push(structure(raw, i + 1, to - 1, values, depth + 1)?);
                        raw[to - 1] = Raw::Taken;
                        arms.push(structure(raw, to, t, values, depth + 1)?);
                        i = t;
                    }
                    None => {
                        arms.push(structure(raw, i + 1, to, values, depth + 1)?);
                        i = to;
                    }
                }
                out.push(Instruction::Branch(Branch {
                    predicate: condition,
                    arms,
                }));
                continue;
            }
        }
        i += 1;
    }
    Ok(out)
}

/// A kernel call's arguments as inputs and outputs. An in-place operator (`relu_(self) ->
/// self`) returns its `self`: every argument but the returned one is read, even when they
/// repeat (`[v, v]` is one read of `v` and one write). Any other: [`split_out_args`].
pub(super) fn kernel_args(
    op: &str,
    args: Vec<usize>,
    lists: &BTreeMap<usize, Vec<i64>>,
) -> (Vec<usize>, Vec<usize>) {
    match (args.first(), args.split_last()) {
        (Some(&first), Some((&last, rest)))
            if crate::import::is_in_place_operator(op) && first == last && !rest.is_empty() =>
        {
            (rest.to_vec(), vec![last])
        }
        _ => split_out_args(args, lists),
    }
}

/// A kernel call's one argument list as inputs and outputs, by ExecuTorch's emitter: the
/// arguments, then the op's return value.
/// - An out-variant op returning its out tensor repeats it: `add.out(self, other, alpha, out)
///   -> out` is `[self, other, alpha, out, out]`. The repeated tail is the outputs, kept once.
/// - An op returning several out tensors returns a new tensor list of them: `[…, o0, o1, list]`.
///   The list's items are the outputs; the list is dropped.
/// - Otherwise the last argument is the returned value (a symbolic int, a bool), written by the
///   op: the one output.
pub(super) fn split_out_args(
    mut args: Vec<usize>,
    lists: &BTreeMap<usize, Vec<i64>>,
) -> (Vec<usize>, Vec<usize>) {
    let n = args.len();
    for k in 1..=n / 2 {
        if args[n - 2 * k..n - k] == args[n - k..] {
            args.truncate(n - k);
            let outputs = args.split_off(n - 2 * k);
            return (args, outputs);
        }
    }
    let Some(&last) = args.last() else {
        return (args, Vec::new());
    };
    // An operator writing a tensor list (`split_copy`, `unbind_copy`): its `out` list, then
    // the returned list, the same items; the items are the outputs.
    if n >= 2 {
        if let (Some(out), Some(ret)) = (lists.get(&args[n - 2]), lists.get(&last)) {
            if out == ret && !out.is_empty() {
                let items: Option<Vec<usize>> =
                    out.iter().map(|&i| usize::try_from(i).ok()).collect();
                if let Some(items) = items {
                    args.truncate(n - 2);
                    return (args, items);
                }
            }
        }
    }
    if let Some(items) = lists.get(&last) {
        let m = items.len();
        let matches = m > 0
            && m < n
            && args[n - 1 - m..n - 1]
                .iter()
                .zip(items)
                .all(|(&a, &item)| i64::try_from(a).is_ok_and(|a| a == item));
        if matches {
            args.truncate(n - 1);
            let outputs = args.split_off(n - 1 - m);
            return (args, outputs);
        }
    }
    args.pop();
    (args, vec![last])
}
