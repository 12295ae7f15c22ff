//! Network I/O inside the NPU scratch: which inputs and outputs of a delegate call are planned
//! at their slot in the call's scratch ([`BackendPlugin::io_slots`]), where the NPU reads and
//! writes them itself, so the backend copies nothing and the tensor needs no memory of its own
//! while the call runs (Vela's own plan does the same; TFLM applies it).
//!
//! A tensor goes to its slot when all of these hold, and is copied as before otherwise:
//!
//! - it is a planned tensor of the program, not passed twice to the call, and not state
//!   (state outlives every call) unless the call updates that state in place at the slot
//!   ([`IoSlot::state_in_place`], Vela's LSTM) and no other instruction uses it: then the
//!   state lives at the slot for good, where Vela's own plan keeps it;
//! - it is in the pool of that scratch, and the slot's offset keeps the pool's alignment;
//! - its bytes are the slot's (an output whose rows the NPU pads is copied row by row);
//! - an input is needed by nothing after the call (the NPU may reuse its slot once read), an
//!   output by nothing before it (the slot is the NPU's until the call ends);
//! - it is at no other call's slot: a tensor passed from one call to the next sits in one
//!   call's slot and is copied into the other's scratch ([`Prefer`] says which call keeps it).
//!
//! The pipeline plans the model with each preference and with no tensor at a slot, and keeps
//! the plan with the fewest bytes (the first of equals): never more than without slots.
//!
//! The planner keeps each such tensor at its slot's offset from the scratch
//! ([`arenaplan_planner::Inside`]); the verify stage and the C backend each tell a tensor at its
//! slot by its address, so a plan and a blob that disagree are an error, never a silent copy.
//!
//! [`BackendPlugin::io_slots`]: crate::backends::BackendPlugin::io_slots
//! [`IoSlot::state_in_place`]: crate::backends::IoSlot::state_in_place

use crate::backends::{call_slots, CallSlot};
use crate::model::{Instruction, Program, ValueKind};
use crate::targets::Target;

use super::lifetimes::Lifetime;

/// A tensor planned inside its call's scratch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InScratch {
    /// The tensor.
    pub value: usize,
    /// The scratch value it is inside.
    pub scratch: usize,
    /// Its offset there.
    pub offset: u64,
    /// An input of the call (else an output).
    pub input: bool,
}

/// Which call keeps a tensor that could sit at a slot of two calls (an output of one passed
/// as an input of the next).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Prefer {
    /// The call that writes it: the reader copies it in.
    Producer,
    /// The call that reads it: the writer copies it out.
    Consumer,
}

/// Every tensor of `program` that goes to its slot in a call's scratch, in call order.
pub(super) fn io_in_scratch(
    program: &Program,
    target: &Target,
    life: &[Option<Lifetime>],
    mem_ids: &[Option<u32>],
    prefer: Prefer,
) -> Vec<InScratch> {
    let flat = program.flat_instructions();
    // How many instructions use each value: state at a slot for good is its call's alone.
    let mut users = vec![0usize; program.values.len()];
    for (_, instruction) in &flat {
        let mut seen = instruction.touched();
        seen.sort_unstable();
        seen.dedup();
        for v in seen {
            users[v] += 1;
        }
    }
    let mut candidates = Vec::new();
    for CallSlot {
        call: c,
        slot,
        tensor: t,
        scratch: s,
    } in call_slots(program)
    {
        let Instruction::Delegate(call) = flat[c].1 else {
            continue;
        };
        let (Some(lt), Some(pool)) = (life[t], mem_ids[s].and_then(|id| target.pool(id))) else {
            continue;
        };
        let value = &program.values[t];
        let passed = call.inputs.iter().chain(&call.outputs);
        let once = passed.filter(|&&v| v == t).count() == 1;
        let state = program.state.contains(&t);
        let when = if state {
            slot.state_in_place && users[t] == 1 && !program.outputs.contains(&t)
        } else if slot.input {
            lt.last == c
        } else {
            lt.first == c
        };
        let fits = slot.bytes == value.bytes
            && value.bytes > 0
            && slot.offset % pool.alignment == 0
            && slot.offset + value.bytes <= program.values[s].bytes;
        if value.kind == ValueKind::Planned
            && once
            && when
            && fits
            && mem_ids[t] == Some(pool.mem_id)
        {
            candidates.push(InScratch {
                value: t,
                scratch: s,
                offset: slot.offset,
                input: slot.input,
            });
        }
    }
    // The preferred side claims first; each tensor goes to one slot.
    let preferred = |c: &InScratch| c.input == (prefer == Prefer::Consumer);
    let mut claimed = vec![false; program.values.len()];
    let mut keep = vec![false; candidates.len()];
    for first in [true, false] {
        for (k, c) in candidates.iter().enumerate() {
            if preferred(c) == first && !std::mem::replace(&mut claimed[c.value], true) {
                keep[k] = true;
            }
        }
    }
    candidates
        .into_iter()
        .zip(keep)
        .filter_map(|(c, kept)| kept.then_some(c))
        .collect()
}
