//! The verify stage, between planning and emission: checks the [`ModelPlan`] that is
//! serialised and emitted against the program and the target, on every build. The emitters
//! take only a [`Verified`] plan, which nothing but [`verify`] makes, so no plan reaches
//! generated code unchecked. The planner's own checker (`arenaplan_planner::verify`) proves
//! each pool's placement; this stage proves what ships — that the plan's buffers, pools and
//! argument lists say what the program needs — so a bug in the stages between them (binding,
//! argument lists, the assembly of the plan) cannot reach firmware.
//!
//! It shares no code with the pipeline: when each value is needed and which values an NPU
//! touches it works out itself from the program (`facts`), so a bug in the pipeline's
//! lifetimes or pool assignment is a disagreement here, not a bug both agree on. The
//! mutation test (`tests/mutants.rs`) plants such bugs in the pipeline and requires this stage
//! to refuse the plans they make.
//!
//! Checked: the plan is for this target; every planned value has exactly one buffer (a tensor's
//! or its call's scratch, as the program says) and nothing else has one; each buffer in
//! an enabled pool of the target, aligned to the pool (and to its data-cache line when the NPU
//! uses it), at least as large as its value, inside its pool's arena; each arena within its
//! capacity and reaching exactly the end of its last buffer, one per pool and named as the
//! target names it; no two buffers alive at the same time sharing a byte; one entry per kernel
//! and delegate call of the program, in order, with its backend, and its arguments the
//! program's inputs, outputs and scratch in that order and counts, each buffer alive during its
//! call.

use thiserror::Error;

use crate::model::{Instruction, Program, ValueKind};
use crate::targets::Target;

use crate::pipeline::{BufferKind, BufferPlan, CallKind, ModelPlan};

mod facts;
use facts::{at_slots, needed, npu_touches, Needed};

/// A plan that does not hold for its program and target: a bug in arenaplan.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("the plan for target `{target}` does not hold: {problem} (a bug in arenaplan; please report it)")]
pub struct PlanCheckError {
    /// The target.
    pub target: String,
    /// What is wrong.
    pub problem: String,
}

/// A plan the verify stage accepted, with the program and target it was checked against: the
/// only input the emitters take.
#[derive(Clone, Copy, Debug)]
pub struct Verified<'a> {
    program: &'a Program,
    plan: &'a ModelPlan,
    target: &'a Target,
}

impl<'a> Verified<'a> {
    /// The program as planned (scratch inserted).
    pub fn program(&self) -> &'a Program {
        self.program
    }

    /// The plan.
    pub fn plan(&self) -> &'a ModelPlan {
        self.plan
    }

    /// The target.
    pub fn target(&self) -> &'a Target {
        self.target
    }
}

/// Checks `plan` against `program` (as planned: scratch inserted) and `target`; the build runs
/// it on every plan before anything is emitted.
///
/// ```
/// use arenaplan_build::diagnostic::SourceText;
/// use arenaplan_build::import::parse_toml_model;
/// use arenaplan_build::pipeline::Pipeline;
/// use arenaplan_build::verify::verify;
/// use arenaplan_build::targets::Catalogue;
///
/// let model = parse_toml_model(&SourceText::new("m.toml", r#"
///     name = "m"
///     inputs = ["x"]
///     outputs = ["y"]
///     [[tensor]]
///     name = "x"
///     dtype = "int8"
///     shape = [64]
///     [[tensor]]
///     name = "y"
///     dtype = "int8"
///     shape = [64]
///     [[instruction]]
///     kind = "kernel"
///     op = "relu"
///     inputs = ["x"]
///     outputs = ["y"]
/// "#), None)?;
/// let catalogue = Catalogue::builtin();
/// let target = catalogue.target("mcxn947")?;
/// let (program, mut plan) = Pipeline::new(target).run(model)?;
/// assert!(verify(&program, &plan, target).is_ok());
/// plan.buffers[1].offset = plan.buffers[0].offset; // y over x, both alive at the kernel
/// assert!(verify(&program, &plan, target).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn verify<'a>(
    program: &'a Program,
    plan: &'a ModelPlan,
    target: &'a Target,
) -> Result<Verified<'a>, PlanCheckError> {
    // The checker's own account of the program, not the pipeline's (see `facts`).
    let life = needed(program);
    let npu_visible = npu_touches(program);
    check(program, plan, target, &life, &npu_visible)?;
    Ok(Verified {
        program,
        plan,
        target,
    })
}

/// Checks every call of `program` against the firmware's scratch declarations: a kernel's
/// `#[kernel(scratch = ...)]`, and the fixed sizes of a `#[delegate]` of a backend arenaplan
/// has no blob reader for (whose slots are the declaration's order). The call passes as many
/// scratch buffers as declared, each at least as large. [`crate::build::verify_and_emit`], the
/// one door to emission, runs it: a plan made without the declarations it is emitted with
/// (a call missing its declared scratch) fails here, before any file is written.
pub fn check_declarations(
    program: &Program,
    declared: &crate::pipeline::Declarations,
    target: &Target,
) -> Result<(), PlanCheckError> {
    use crate::pipeline::DeclaredScratch;
    let fail = |problem: String| PlanCheckError {
        target: target.name.clone(),
        problem,
    };
    for (at, instruction) in program.flat_instructions() {
        let (who, scratch, specs) = match instruction {
            Instruction::Kernel(k) => match declared.kernels.iter().find(|d| d.op == k.op) {
                Some(d) => (format!("kernel `{}`", k.op), &k.scratch, &d.scratch),
                None => continue,
            },
            Instruction::Delegate(d) => {
                let backend = &program.delegates[d.delegate].backend;
                if crate::backends::plugin_for(backend).is_some() {
                    continue; // slots by role: the binding's business, checked by the tables
                }
                match declared.backends.iter().find(|b| &b.backend == backend) {
                    Some(b) => match &b.scratch {
                        DeclaredScratch::Sizes(specs) => {
                            (format!("backend `{backend}`"), &d.scratch, specs)
                        }
                        _ => continue,
                    },
                    None => continue,
                }
            }
            Instruction::Branch(_) => continue,
        };
        if scratch.len() != specs.len() {
            return Err(fail(format!(
                "instruction {at} ({who}) passes {} scratch buffers, but its declaration has {}",
                scratch.len(),
                specs.len()
            )));
        }
        for (slot, (&v, spec)) in scratch.iter().zip(specs).enumerate() {
            let declared_bytes = u64::try_from(spec.size).unwrap_or(0);
            if program.values[v].bytes < declared_bytes {
                return Err(fail(format!(
                    "instruction {at} ({who}): scratch {slot} has {} bytes, but its declaration asks for {declared_bytes}",
                    program.values[v].bytes
                )));
            }
        }
    }
    Ok(())
}

fn check(
    program: &Program,
    plan: &ModelPlan,
    target: &Target,
    life: &[Option<Needed>],
    npu_visible: &[bool],
) -> Result<(), PlanCheckError> {
    let fail = |problem: String| PlanCheckError {
        target: target.name.clone(),
        problem,
    };
    // The bytes a buffer owns: an NPU buffer in a pool with a data-cache line owns whole lines.
    let extent = |b: &BufferPlan| match target.pool(b.mem_id) {
        Some(pool) => pool.owned_bytes(b.size, npu_visible.get(b.id) == Some(&true)),
        None => b.size,
    };
    if plan.target != target.name {
        return Err(fail(format!("the plan names target `{}`", plan.target)));
    }
    // Every branch is one the runtime runs (the emitters lay out the jumps from this).
    crate::pipeline::steps(program, plan).map_err(|e| fail(e.to_string()))?;
    // Buffers: one per planned value, nothing for the rest.
    let mut buffer_of = vec![None; program.values.len()];
    for (i, b) in plan.buffers.iter().enumerate() {
        let Some(value) = program.values.get(b.id) else {
            return Err(fail(format!(
                "buffer {i} names value {}, which does not exist",
                b.id
            )));
        };
        if !value.is_planned() {
            return Err(fail(format!(
                "value {} (`{}`) is not planned but has a buffer",
                b.id, value.name
            )));
        }
        if buffer_of[b.id].replace(i).is_some() {
            return Err(fail(format!("value {} has two buffers", b.id)));
        }
    }
    for (v, value) in program.values.iter().enumerate() {
        if value.is_planned() && life[v].is_some() && buffer_of[v].is_none() {
            return Err(fail(format!("value {v} (`{}`) has no buffer", value.name)));
        }
    }
    // Each buffer in its pool.
    for b in &plan.buffers {
        let value = &program.values[b.id];
        let pool = target.pool(b.mem_id).filter(|p| p.enabled).ok_or_else(|| {
            fail(format!(
                "value {}: mem_id {} is no enabled pool",
                b.id, b.mem_id
            ))
        })?;
        let arena = plan.pool(b.mem_id).ok_or_else(|| {
            fail(format!(
                "value {}: pool `{}` has no arena in the plan",
                b.id, pool.name
            ))
        })?;
        let alignment = pool.offset_alignment(npu_visible[b.id]);
        if b.offset % alignment != 0 {
            return Err(fail(format!(
                "value {}: offset {} is not a multiple of {alignment}",
                b.id, b.offset
            )));
        }
        let scratch_of = match value.kind {
            ValueKind::Scratch { call, .. } => Some(call),
            _ => None,
        };
        let kind = if scratch_of.is_some() {
            BufferKind::Scratch
        } else {
            BufferKind::Tensor
        };
        if (b.kind, b.call) != (kind, scratch_of) {
            return Err(fail(format!(
                "value {}: a {:?} of call {:?} in the plan, a {kind:?} of call {scratch_of:?} in the program",
                b.id, b.kind, b.call
            )));
        }
        if b.size < value.bytes {
            return Err(fail(format!(
                "value {}: {} bytes planned for {}",
                b.id, b.size, value.bytes
            )));
        }
        let end = b.offset.saturating_add(extent(b));
        if end > arena.size {
            return Err(fail(format!(
                "value {}: ends at {end}, past the arena of {} bytes",
                b.id, arena.size
            )));
        }
        let l = life[b.id]
            .ok_or_else(|| fail(format!("value {} has a buffer but is never used", b.id)))?;
        if (b.first, b.last) != (l.first, l.last) {
            return Err(fail(format!(
                "value {}: alive {}..={} in the plan, {}..={} in the program",
                b.id, b.first, b.last, l.first, l.last
            )));
        }
    }
    // Arenas: one per pool, named as the target names it, within capacity, ending at their
    // last buffer.
    for (i, p) in plan.pools.iter().enumerate() {
        let pool = target.pool(p.mem_id).ok_or_else(|| {
            fail(format!(
                "arena for mem_id {}, which the target does not have",
                p.mem_id
            ))
        })?;
        if p.name != pool.name || plan.pools[..i].iter().any(|q| q.mem_id == p.mem_id) {
            return Err(fail(format!(
                "arena for mem_id {} named `{}` (the target's pool is `{}`), or listed twice",
                p.mem_id, p.name, pool.name
            )));
        }
        let end = plan
            .buffers
            .iter()
            .filter(|b| b.mem_id == p.mem_id)
            .map(|b| b.offset + extent(b))
            .max()
            .unwrap_or(0);
        if p.size != end || p.size > pool.capacity || p.capacity != pool.capacity {
            return Err(fail(format!(
                "pool `{}`: arena of {} bytes, buffers end at {end}, capacity {}",
                p.name, p.size, pool.capacity
            )));
        }
    }
    // Tensors at their slot in a call's scratch, by address (the C backend's own test): the
    // plan must say so, and they may share bytes with that scratch, and with each other
    // while it is alive (the NPU owns the whole scratch then).
    let slots = at_slots(program, plan, life).map_err(fail)?;
    for b in &plan.buffers {
        let agrees = match b.within {
            Some(s) => slots[b.id].contains(&s),
            None => slots[b.id].is_empty(),
        };
        if !agrees {
            return Err(fail(format!(
                "value {}: the plan puts it inside {:?}, its address at the slot of {:?}",
                b.id, b.within, slots[b.id]
            )));
        }
    }
    let declared = |a: &BufferPlan, b: &BufferPlan, x: Needed, y: Needed| {
        if slots[a.id].contains(&b.id) || slots[b.id].contains(&a.id) {
            return true;
        }
        // Both at slots of one scratch, meeting only while it is alive.
        let (first, last) = (x.first.max(y.first), x.last.min(y.last));
        slots[a.id].iter().any(|s| {
            slots[b.id].contains(s) && life[*s].is_some_and(|n| n.first <= first && last <= n.last)
        })
    };
    // No two buffers alive at once share a byte (sorted by pool and offset: each buffer is
    // compared with those that start before its end), but where a slot says so.
    let mut order: Vec<_> = plan.buffers.iter().collect();
    order.sort_by_key(|b| (b.mem_id, b.offset));
    for (i, a) in order.iter().enumerate() {
        for b in order[i + 1..]
            .iter()
            .take_while(|b| b.mem_id == a.mem_id && b.offset < a.offset + extent(a))
        {
            // When each is needed by the checker's own account (the plan's intervals were
            // checked equal to it above).
            let (Some(x), Some(y)) = (life[a.id], life[b.id]) else {
                continue;
            };
            if x.first <= y.last
                && y.first <= x.last
                && a.size > 0
                && b.size > 0
                && !declared(a, b, x, y)
            {
                return Err(fail(format!(
                    "values {} and {} overlap in pool {} while both are alive",
                    a.id, b.id, a.mem_id
                )));
            }
        }
    }
    // Calls: one per kernel and delegate call of the program, in order, with its backend and
    // its arguments, each alive during the call.
    let flat = program.flat_instructions();
    let call_indices: Vec<usize> = flat
        .iter()
        .filter(|(_, i)| !matches!(i, Instruction::Branch(_)))
        .map(|(index, _)| *index)
        .collect();
    let planned: Vec<usize> = plan.calls.iter().map(|c| c.index).collect();
    if planned != call_indices {
        return Err(fail(format!(
            "calls {planned:?} in the plan, {call_indices:?} in the program"
        )));
    }
    for c in &plan.calls {
        let Some((_, instruction)) = flat.get(c.index) else {
            return Err(fail(format!("call {} is not in the program", c.index)));
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
                Instruction::Branch(_) => {
                    return Err(fail(format!("call {} is a branch", c.index)))
                }
            };
        if c.backend.as_deref() != backend {
            return Err(fail(format!(
                "call {}: backend {:?} in the plan, {backend:?} in the program",
                c.index, c.backend
            )));
        }
        if c.kind != kind || c.args != expected || (c.inputs, c.outputs, c.scratch) != counts {
            return Err(fail(format!(
                "call {}: arguments {:?}, the program has {:?}",
                c.index, c.args, expected
            )));
        }
        for &a in &c.args[c.inputs + c.outputs..] {
            if !matches!(program.values[a].kind, ValueKind::Scratch { call, .. } if call == c.index)
            {
                return Err(fail(format!(
                    "call {}: trailing argument {a} is not its scratch",
                    c.index
                )));
            }
        }
        for &a in &c.args {
            if let Some(i) = buffer_of[a] {
                let b = &plan.buffers[i];
                if b.first > c.index || c.index > b.last {
                    return Err(fail(format!(
                        "call {}: argument {a} is not alive during the call",
                        c.index
                    )));
                }
            }
        }
    }
    Ok(())
}
