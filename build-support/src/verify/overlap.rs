//! No two buffers alive at the same time share a byte, but where a slot says so: a tensor at
//! its slot in a call's scratch (found by address, [`super::slots`]) shares bytes with that
//! scratch, and with another tensor at a slot of it while the scratch is alive (the NPU owns
//! the whole scratch then). The plan's own account of which tensor sits inside which scratch
//! (`within`) must be the addresses'. A view ([`crate::model::View`]) shares the bytes of the
//! value it views ([`super::buffers`] checks it lies exactly there).

use crate::model::Program;
use crate::pipeline::{BufferPlan, ModelPlan};
use crate::targets::Target;

use super::needed::Needed;
use super::{cache_lines, slots, Account};

/// Checks the slots the plan claims and that no two live buffers share a byte.
pub(super) fn check(
    program: &Program,
    plan: &ModelPlan,
    target: &Target,
    account: &Account,
) -> Result<(), String> {
    let life = &account.needed;
    let at_slots = slots::at_slots(program, plan, &account.flat, life)?;
    for b in &plan.buffers {
        let agrees = match b.within {
            Some(s) => at_slots[b.id].contains(&s),
            None => at_slots[b.id].is_empty(),
        };
        if !agrees {
            return Err(format!(
                "value {}: the plan puts it inside {:?}, its address at the slot of {:?}",
                b.id, b.within, at_slots[b.id]
            ));
        }
    }
    // A view shares its viewed value's bytes, and so do two views of one value.
    let mut roots: Vec<usize> = (0..program.values.len()).collect();
    for view in &program.views {
        if let Some(r) = roots.get_mut(view.value) {
            *r = view.viewed;
        }
    }
    let root = |v: usize| roots.get(v).copied().unwrap_or(v);
    let declared = |a: &BufferPlan, b: &BufferPlan, x: Needed, y: Needed| {
        if at_slots[a.id].contains(&b.id) || at_slots[b.id].contains(&a.id) {
            return true;
        }
        if root(a.id) == root(b.id) {
            return true;
        }
        // Both at slots of one scratch, meeting only while it is alive.
        let (first, last) = (x.first.max(y.first), x.last.min(y.last));
        at_slots[a.id].iter().any(|s| {
            at_slots[b.id].contains(s)
                && life[*s].is_some_and(|n| n.first <= first && last <= n.last)
        })
    };
    let extent = |b: &BufferPlan| cache_lines::extent(target, b, &account.npu);
    // Sorted by pool and offset: each buffer is compared with those that start before its end.
    let mut order: Vec<_> = plan.buffers.iter().collect();
    order.sort_by_key(|b| (b.mem_id, b.offset));
    for (i, a) in order.iter().enumerate() {
        let a_end = a.offset.saturating_add(extent(a));
        for b in order[i + 1..]
            .iter()
            .take_while(|b| b.mem_id == a.mem_id && b.offset < a_end)
        {
            // When each is needed by the checker's own account (the plan's intervals were
            // checked equal to it).
            let (Some(x), Some(y)) = (life[a.id], life[b.id]) else {
                continue;
            };
            if x.first <= y.last
                && y.first <= x.last
                && a.size > 0
                && b.size > 0
                && !declared(a, b, x, y)
            {
                return Err(format!(
                    "values {} and {} overlap in pool {} while both are alive",
                    a.id, b.id, a.mem_id
                ));
            }
        }
    }
    Ok(())
}
