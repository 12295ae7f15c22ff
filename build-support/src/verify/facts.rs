//! What the checker derives from the program on its own: when each value must hold its bytes,
//! and which values an NPU reads or writes. Written apart from the pipeline's lifetimes and
//! pool assignment, and sharing no code with them, so that a bug there shows up here as a
//! disagreement instead of passing both (`tests/mutants.rs` plants such bugs).

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

/// When each value is needed (`None`: never, so it needs no memory).
///
/// - An instruction needs every value it reads or writes: a call's inputs, outputs and
///   scratch, a branch's predicate. Arms are numbered after their branch, one after another,
///   so a value used in one arm only is needed there only.
/// - A program's inputs are needed from the start and its outputs to the end. With several
///   methods (laid end to end), every method's inputs and outputs are needed throughout: the
///   caller fills and reads them around other methods' runs.
/// - State that is used keeps its contents between runs: needed throughout.
pub(super) fn needed(program: &Program) -> Vec<Option<Needed>> {
    let mut needed = vec![None; program.values.len()];
    let flat = program.flat_instructions();
    let end = flat.len().saturating_sub(1);
    let mark = |needed: &mut Vec<Option<Needed>>, v: usize, at: usize| {
        if let Some(slot) = needed.get_mut(v) {
            Needed::widen(slot, at);
        }
    };
    for (at, instruction) in &flat {
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
        for m in &program.methods {
            for &v in m.inputs.iter().chain(&m.outputs) {
                whole(&mut needed, v);
            }
        }
    }
    for &v in &program.state {
        if needed.get(v).is_some_and(Option::is_some) {
            whole(&mut needed, v);
        }
    }
    needed
}

/// Whether an NPU reads or writes each value: the scratch of every call of a backend with a
/// blob reader (an NPU's), and its inputs and outputs when that NPU reads them in place.
pub(super) fn npu_touches(program: &Program) -> Vec<bool> {
    let mut touched = vec![false; program.values.len()];
    for (_, instruction) in program.flat_instructions() {
        let Instruction::Delegate(call) = instruction else {
            continue;
        };
        let backend = match program.delegates.get(call.delegate) {
            Some(d) => d.backend.as_str(),
            None => continue,
        };
        let Some(npu) = crate::backends::plugin_for(backend) else {
            continue;
        };
        // Its scratch always; its inputs and outputs when the NPU reads them where they are.
        let (inputs, outputs): (&[usize], &[usize]) = if npu.npu_reads_io() {
            (&call.inputs, &call.outputs)
        } else {
            (&[], &[])
        };
        for &v in call.scratch.iter().chain(inputs).chain(outputs) {
            if let Some(t) = touched.get_mut(v) {
                *t = true;
            }
        }
    }
    touched
}

/// For each value, the scratch values it sits inside at its slot, found by address as the C
/// backend finds it: an input or output of a delegate call whose backend gives slots
/// ([`crate::backends::BackendPlugin::io_slots`]), in the pool of that call's scratch of the
/// slot's role, at the scratch's offset plus the slot's, of the slot's bytes. Such a tensor
/// must also be one the NPU may own there: not state, an input needed by nothing after the
/// call, an output by nothing before it; `Err` names a tensor at its slot that is not.
pub(super) fn at_slots(
    program: &Program,
    plan: &crate::pipeline::ModelPlan,
    needed: &[Option<Needed>],
) -> Result<Vec<Vec<usize>>, String> {
    let mut at = vec![Vec::new(); program.values.len()];
    // The blob's slots, as the pipeline reads them too: a format, not a decision.
    for crate::backends::CallSlot {
        call: c,
        slot,
        tensor: t,
        scratch: s,
    } in crate::backends::call_slots(program)
    {
        let Some(tb) = plan.buffer(t) else {
            continue;
        };
        let Some(sb) = plan.buffer(s) else {
            continue;
        };
        if tb.mem_id != sb.mem_id
            || tb.offset != sb.offset.saturating_add(slot.offset)
            || tb.size != slot.bytes
        {
            continue;
        }
        let owned = match needed[t] {
            Some(n) if slot.input => n.last == c,
            Some(n) => n.first == c,
            None => false,
        };
        if !owned || program.state.contains(&t) {
            return Err(format!(
                "value {t} is at its slot in the scratch of call {c} (value {s}), but it is needed {} the call or is state: the NPU would overwrite it",
                if slot.input { "after" } else { "before" }
            ));
        }
        at[t].push(s);
    }
    Ok(at)
}
