//! The plan's arenas against the target: one per pool, named as the target names it, of the
//! pool's capacity, and reaching exactly the end of its last buffer (the bytes that buffer
//! owns, cache lines included).

use crate::pipeline::ModelPlan;
use crate::targets::Target;

use super::cache_lines;

/// Checks the arenas (`npu`: whether the NPU touches each value).
pub(super) fn check(plan: &ModelPlan, target: &Target, npu: &[bool]) -> Result<(), String> {
    for (i, p) in plan.pools.iter().enumerate() {
        let pool = target.pool(p.mem_id).ok_or_else(|| {
            format!(
                "arena for mem_id {}, which the target does not have",
                p.mem_id
            )
        })?;
        if p.name != pool.name || plan.pools[..i].iter().any(|q| q.mem_id == p.mem_id) {
            return Err(format!(
                "arena for mem_id {} named `{}` (the target's pool is `{}`), or listed twice",
                p.mem_id, p.name, pool.name
            ));
        }
        let end = plan
            .buffers
            .iter()
            .filter(|b| b.mem_id == p.mem_id)
            .map(|b| b.offset.saturating_add(cache_lines::extent(target, b, npu)))
            .max()
            .unwrap_or(0);
        if p.size != end || p.size > pool.capacity || p.capacity != pool.capacity {
            return Err(format!(
                "pool `{}`: arena of {} bytes, buffers end at {end}, capacity {}",
                p.name, p.size, pool.capacity
            ));
        }
    }
    Ok(())
}
