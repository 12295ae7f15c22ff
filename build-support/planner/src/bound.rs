//! The lower bound every plan is measured against.

use crate::item::Item;
use crate::problem::Problem;

/// Max over time of the bytes alive at once, sizes rounded up to their alignment.
///
/// No plan can be smaller: buffers alive at the same instant occupy disjoint memory. A
/// pinned buffer also forces the arena to reach its end.
///
/// ```
/// use arenaplan_planner::{lower_bound, Buffer, Problem};
/// let p = Problem::new(vec![Buffer::new(10, 0, 2), Buffer::new(20, 1, 3), Buffer::new(5, 2, 4)]);
/// assert_eq!(lower_bound(&p), 30);
/// ```
pub fn lower_bound(problem: &Problem) -> u64 {
    items_lower_bound(&Item::from_problem(problem))
}

/// [`lower_bound`] over planner items.
pub(crate) fn items_lower_bound(items: &[Item]) -> u64 {
    // (time, is_start, size): at equal times ends sort before starts (false < true), which is
    // what half-open lifetimes mean.
    let mut events: Vec<(u64, bool, u64)> = Vec::with_capacity(items.len() * 2);
    let mut pinned_end = 0u64;
    for item in items {
        events.push((item.lower, true, item.size));
        events.push((item.upper, false, item.size));
        if let Some(offset) = item.fixed {
            pinned_end = pinned_end.max(item.end_at(offset));
        }
    }
    events.sort_unstable();
    // u128: many buffers near the size limit must not overflow the running sum.
    let (mut live, mut peak) = (0u128, 0u128);
    for (_, is_start, size) in events {
        if is_start {
            live += u128::from(size);
            peak = peak.max(live);
        } else {
            live -= u128::from(size);
        }
    }
    u64::try_from(peak).unwrap_or(u64::MAX).max(pinned_end)
}
