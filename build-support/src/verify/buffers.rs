//! The plan's buffers against the program and the target: every planned value has exactly one
//! buffer (a tensor's or its call's scratch, as the program says) and nothing else has one;
//! each buffer in an enabled pool of the target, aligned to the pool (and to its data-cache
//! line when the NPU uses it), at least as large as its value (an NPU scratch whole lines),
//! inside its pool's arena, and alive exactly while the checker's account needs it.

use crate::model::{Program, ValueKind};
use crate::pipeline::{BufferKind, ModelPlan};
use crate::targets::Target;

use super::{cache_lines, Account};

/// Checks the buffers; returns, per value, the index of its buffer in `plan.buffers`.
pub(super) fn check(
    program: &Program,
    plan: &ModelPlan,
    target: &Target,
    account: &Account,
) -> Result<Vec<Option<usize>>, String> {
    let buffer_of = one_per_planned_value(program, plan, account)?;
    for view in &program.views {
        let place =
            |v: usize| buffer_of[v].map(|i| (plan.buffers[i].mem_id, plan.buffers[i].offset));
        if place(view.value).is_some() && place(view.value) != place(view.viewed) {
            return Err(format!(
                "value {} views value {}, but the plan puts them at {:?} and {:?} (mem_id, offset)",
                view.value,
                view.viewed,
                place(view.value),
                place(view.viewed)
            ));
        }
        if program.values[view.value].bytes > program.values[view.viewed].bytes {
            return Err(format!(
                "value {} views value {}, which has fewer bytes",
                view.value, view.viewed
            ));
        }
    }
    for b in &plan.buffers {
        let value = &program.values[b.id];
        let npu = account.npu[b.id];
        let pool = target
            .pool(b.mem_id)
            .filter(|p| p.enabled)
            .ok_or_else(|| format!("value {}: mem_id {} is no enabled pool", b.id, b.mem_id))?;
        let arena = plan.pool(b.mem_id).ok_or_else(|| {
            format!(
                "value {}: pool `{}` has no arena in the plan",
                b.id, pool.name
            )
        })?;
        let alignment = cache_lines::alignment(pool, npu);
        if b.offset % alignment != 0 {
            return Err(format!(
                "value {}: offset {} is not a multiple of {alignment}",
                b.id, b.offset
            ));
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
            return Err(format!(
                "value {}: a {:?} of call {:?} in the plan, a {kind:?} of call {scratch_of:?} in the program",
                b.id, b.kind, b.call
            ));
        }
        if b.size < value.bytes {
            return Err(format!(
                "value {}: {} bytes planned for {}",
                b.id, b.size, value.bytes
            ));
        }
        if kind == BufferKind::Scratch && !cache_lines::whole_lines(pool, b.size, npu) {
            return Err(format!(
                "value {}: an NPU scratch of {} bytes, not whole data-cache lines of pool `{}` (the backend maintains it a line at a time)",
                b.id, b.size, pool.name
            ));
        }
        let end = b
            .offset
            .saturating_add(cache_lines::extent(target, b, &account.npu));
        if end > arena.size {
            return Err(format!(
                "value {}: ends at {end}, past the arena of {} bytes",
                b.id, arena.size
            ));
        }
        let l = account.needed[b.id]
            .ok_or_else(|| format!("value {} has a buffer but is never used", b.id))?;
        if (b.first, b.last) != (l.first, l.last) {
            return Err(format!(
                "value {}: alive {}..={} in the plan, {}..={} in the program",
                b.id, b.first, b.last, l.first, l.last
            ));
        }
    }
    Ok(buffer_of)
}

/// One buffer per planned value that is needed, none for anything else.
fn one_per_planned_value(
    program: &Program,
    plan: &ModelPlan,
    account: &Account,
) -> Result<Vec<Option<usize>>, String> {
    let mut buffer_of = vec![None; program.values.len()];
    for (i, b) in plan.buffers.iter().enumerate() {
        let Some(value) = program.values.get(b.id) else {
            return Err(format!(
                "buffer {i} names value {}, which does not exist",
                b.id
            ));
        };
        if !value.is_planned() {
            return Err(format!(
                "value {} (`{}`) is not planned but has a buffer",
                b.id, value.name
            ));
        }
        if buffer_of[b.id].replace(i).is_some() {
            return Err(format!("value {} has two buffers", b.id));
        }
    }
    for (v, value) in program.values.iter().enumerate() {
        if value.is_planned() && account.needed[v].is_some() && buffer_of[v].is_none() {
            return Err(format!("value {v} (`{}`) has no buffer", value.name));
        }
    }
    Ok(buffer_of)
}
