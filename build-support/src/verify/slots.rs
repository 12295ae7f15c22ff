//! Which inputs and outputs of a delegate call sit at their slot inside the call's NPU scratch,
//! worked out by the checker: each slot resolved to the call's arguments as the C backend
//! resolves it (by position in the flat argument list the runtime hands it), and each tensor
//! found there by its address, as the C backend finds it. Written apart from the pipeline's
//! resolution of slots (`backends::call_slots`), which decides where it places tensors, so a
//! slot resolved to the wrong tensor or place there is a disagreement here.
//!
//! Trusted, not derived: the blob's own facts as its backend's reader parses them
//! ([`crate::backends::BackendPlugin::io_slots`]: Vela's I/O records, the offset and bytes of
//! each input's and output's copy in region 1) and the fixed argument position of each scratch
//! role ([`crate::model::ScratchRole::slot`], the ABI the C backends are compiled against).
//! Those are the format and the ABI, read the same way by the C backend at run time, not
//! decisions of the pipeline; the blob readers have their own tests against real Vela output.

use crate::model::{Instruction, Program, ValueKind};
use crate::pipeline::ModelPlan;

use super::needed::Needed;

/// One input or output of a call and the place its blob gives it inside the call's scratch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    /// The call's flat index.
    call: usize,
    /// An input (else an output).
    input: bool,
    /// The input or output.
    tensor: usize,
    /// The scratch argument the slot is inside.
    scratch: usize,
    /// Where inside it.
    offset: u64,
    /// The bytes the NPU reads or writes there.
    bytes: u64,
    /// An output that is state the NPU updates in place there.
    state_in_place: bool,
}

/// Every slot of every delegate call in `flat` whose backend has a blob reader that gives
/// slots. The runtime hands the backend `[inputs…, outputs…, scratch…]`: input `i` is argument
/// `i`, output `j` argument `inputs + j`, and the scratch of a role the argument at the role's
/// position after the inputs and outputs. A slot whose argument is missing, or whose scratch
/// argument is not this call's scratch of that role, is no slot (the C backend copies).
fn slots(program: &Program, flat: &[(usize, &Instruction)]) -> Vec<Slot> {
    let mut found = Vec::new();
    for &(at, instruction) in flat {
        let Instruction::Delegate(call) = instruction else {
            continue;
        };
        let Some(delegate) = program.delegates.get(call.delegate) else {
            continue;
        };
        let (Some(reader), Some(blob)) = (
            crate::backends::plugin_for(&delegate.backend),
            delegate.blob.as_deref(),
        ) else {
            continue;
        };
        let args: Vec<usize> = call.args().collect();
        let io = call.inputs.len() + call.outputs.len();
        for slot in reader.io_slots(blob) {
            let position = if slot.input {
                Some(slot.index).filter(|&i| i < call.inputs.len())
            } else {
                Some(slot.index)
                    .filter(|&j| j < call.outputs.len())
                    .map(|j| call.inputs.len() + j)
            };
            let tensor = position.and_then(|p| args.get(p).copied());
            let scratch = args.get(io + slot.role.slot()).copied().filter(|&s| {
                matches!(
                    program.values.get(s).map(|v| &v.kind),
                    Some(ValueKind::Scratch { call: c, role: Some(r), .. }) if *c == at && *r == slot.role
                )
            });
            if let (Some(tensor), Some(scratch)) = (tensor, scratch) {
                found.push(Slot {
                    call: at,
                    input: slot.input,
                    tensor,
                    scratch,
                    offset: slot.offset,
                    bytes: slot.bytes,
                    state_in_place: slot.state_in_place,
                });
            }
        }
    }
    found
}

/// For each value, the scratch values it sits inside at its slot: the tensor's buffer in the
/// pool of the scratch's, at the scratch's offset plus the slot's, of the slot's bytes. Such a
/// tensor must also be one the NPU may own there: an input needed by nothing after the call,
/// an output by nothing before it, and state only where the call updates it in place there
/// and no other instruction and no method output uses it (then it lives there for good);
/// `Err` names a tensor at its slot that is not.
pub(super) fn at_slots(
    program: &Program,
    plan: &ModelPlan,
    flat: &[(usize, &Instruction)],
    needed: &[Option<Needed>],
) -> Result<Vec<Vec<usize>>, String> {
    let mut at = vec![Vec::new(); program.values.len()];
    for slot in slots(program, flat) {
        let (t, s, c) = (slot.tensor, slot.scratch, slot.call);
        let (Some(tb), Some(sb)) = (plan.buffer(t), plan.buffer(s)) else {
            continue;
        };
        if tb.mem_id != sb.mem_id
            || Some(tb.offset) != sb.offset.checked_add(slot.offset)
            || tb.size != slot.bytes
        {
            continue;
        }
        let state = program.state.contains(&t);
        let owned = match needed.get(t).copied().flatten() {
            _ if state => {
                slot.state_in_place
                    && !program.outputs.contains(&t)
                    && flat
                        .iter()
                        .all(|&(at, i)| at == c || !i.touched().contains(&t))
            }
            Some(n) if slot.input => n.last == c,
            Some(n) => n.first == c,
            None => false,
        };
        if !owned {
            return Err(format!(
                "value {t} is at its slot in the scratch of call {c} (value {s}), but it is needed {} the call or is state: the NPU would overwrite it",
                if slot.input { "after" } else { "before" }
            ));
        }
        if let Some(list) = at.get_mut(t) {
            list.push(s);
        }
    }
    Ok(at)
}
