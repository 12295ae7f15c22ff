//! ExecuTorch's in-place updates of state. A program writes a mutable buffer back with an
//! in-place operator — ATen names them with a trailing underscore: `aten::copy_`,
//! `aten::index_put_`, `aten::add_.Tensor` — whose `self` is the buffer and whose returned
//! value is that same buffer. Such a call reads and writes one value, which the runtime's
//! argument contract (no written argument shares memory with another) cannot express twice;
//! so `self` is passed once, as the call's output, whose memory holds the state's current
//! contents when the kernel runs. Kernels of in-place operators take their arguments so:
//! `[other inputs…, self]`. Any other call passing a value it writes is still refused.

use crate::model::{Instruction, Program, ValueId};

/// Whether `op` is an in-place operator by ATen's naming: its name, before the overload,
/// ends in `_` (and is not all underscores, as `aten::_foo` internal ops are not).
///
/// ```
/// # use arenaplan_build::import::is_in_place_operator;
/// assert!(is_in_place_operator("aten::copy_"));
/// assert!(is_in_place_operator("aten::add_.Tensor"));
/// assert!(!is_in_place_operator("aten::add.out"));
/// assert!(!is_in_place_operator("dim_order_ops::_to_dim_order_copy.out"));
/// ```
pub fn is_in_place_operator(op: &str) -> bool {
    let name = op.rsplit("::").next().unwrap_or(op);
    let base = name.split('.').next().unwrap_or(name);
    base.ends_with('_') && !base.trim_matches('_').is_empty()
}

/// The value a call of an in-place operator updates: its one output, also its first input.
fn updated_value(instruction: &Instruction) -> Option<ValueId> {
    let Instruction::Kernel(call) = instruction else {
        return None;
    };
    let [v] = call.outputs[..] else { return None };
    (is_in_place_operator(&call.op) && call.inputs.first() == Some(&v)).then_some(v)
}

/// The values calls of in-place operators update: mutable buffers, state of the program even
/// when the file gives them no initial contents and no name (ExecuTorch's default export:
/// their memory is planned and persists from run to run).
pub(crate) fn updated_in_place(program: &Program) -> Vec<ValueId> {
    let mut out = Vec::new();
    for (_, instruction) in program.flat_instructions() {
        if let Some(v) = updated_value(instruction) {
            if !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out
}

/// Rewrites each call of an in-place operator on `program`'s state (passed once among its
/// inputs) to pass the state once, as its output.
pub(crate) fn adopt_in_place_updates(program: &mut Program) {
    let state = program.state.clone();
    program.for_each_instruction_mut(|_, instruction| {
        let Some(v) = updated_value(instruction).filter(|v| state.contains(v)) else {
            return;
        };
        if let Instruction::Kernel(call) = instruction {
            if call.inputs.iter().filter(|&&i| i == v).count() == 1 {
                call.inputs.remove(0);
            }
        }
    });
}
