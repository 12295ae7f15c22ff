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
/// A buffer inside another ([`crate::Inside`]) counts only while that one is not alive (it
/// shares its memory then), unrounded.
pub fn lower_bound(problem: &Problem) -> u64 {
    items_lower_bound(&crate::rigid::Units::of(problem).bound_items())
}

/// The least end any placement's last byte can reach: a true lower bound of an arena that
/// ends at the last byte a buffer uses (not rounded up to the alignment, as arenaplan's
/// pools are reported), where [`lower_bound`] bounds an arena of whole rounded buffers.
///
/// Among buffers alive at one instant, the one placed highest starts above every other's
/// rounded size, and ends its own unrounded size later: so at each instant the bound is the
/// rounded sizes alive, less the largest rounding among them. A pinned buffer counts its
/// unrounded size (others may sit in its rounding: pinned buffers need only their bytes
/// apart) and forces its own end. A buffer inside another counts as in [`lower_bound`]. It
/// is never above [`lower_bound`], and below it by less than the largest alignment.
///
/// ```
/// use arenaplan_planner::{end_lower_bound, lower_bound, Buffer, Problem};
/// // 100 and 12 bytes alive together, alignment 16: whole buffers need 112 + 16 bytes, but
/// // with the 100-byte one on top its last byte is at 16 + 100.
/// let p = Problem::new(vec![Buffer::new(100, 0, 2), Buffer::new(12, 1, 3)]).with_alignment(16);
/// assert_eq!(lower_bound(&p), 128);
/// assert_eq!(end_lower_bound(&p), 116);
/// ```
pub fn end_lower_bound(problem: &Problem) -> u64 {
    // (time, is_start, rounded size, rounding): ends before starts at equal times.
    let mut events: Vec<(u64, bool, u64, u64)> = Vec::with_capacity(problem.buffers.len() * 2);
    let mut pinned_end = 0u64;
    let within = problem.within_of();
    for (b, inside) in problem.buffers.iter().zip(&within) {
        if b.lower >= b.upper {
            continue;
        }
        if let Some(outer) = inside.and_then(|c| problem.buffers.get(c.within)) {
            for (lower, upper) in crate::rigid::outside(b.lower, b.upper, outer.lower, outer.upper)
            {
                if lower < upper {
                    events.push((lower, true, b.size, 0));
                    events.push((upper, false, b.size, 0));
                }
            }
            continue;
        }
        let rounded = match b.fixed_offset {
            Some(_) => b.size,
            None => b.padded_size(problem.alignment),
        };
        let slack = rounded - b.size.min(rounded);
        events.push((b.lower, true, rounded, slack));
        events.push((b.upper, false, rounded, slack));
        if let Some(offset) = b.fixed_offset {
            pinned_end = pinned_end.max(offset.saturating_add(b.size));
        }
    }
    events.sort_unstable();
    let mut slacks: std::collections::BTreeMap<u64, usize> = std::collections::BTreeMap::new();
    let (mut live, mut peak) = (0u128, 0u128);
    for (_, is_start, rounded, slack) in events {
        if is_start {
            live += u128::from(rounded);
            *slacks.entry(slack).or_default() += 1;
            let largest = slacks.keys().next_back().copied().unwrap_or(0);
            peak = peak.max(live - u128::from(largest));
        } else {
            live -= u128::from(rounded);
            if let Some(n) = slacks.get_mut(&slack) {
                *n -= 1;
                if *n == 0 {
                    slacks.remove(&slack);
                }
            }
        }
    }
    u64::try_from(peak).unwrap_or(u64::MAX).max(pinned_end)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::Buffer;

    /// Pinned at 0, 1 and 8, one byte each, alignments 16, 1 and 8, all alive at once: the
    /// last byte ends at 9, so the bound may not say more.
    #[test]
    fn pinned_buffers_count_their_bytes_only() {
        let pinned = |offset: u64, align: u64| Buffer {
            fixed_offset: Some(offset),
            ..Buffer::new(1, 0, 1).with_alignment(align)
        };
        let p = Problem::new(vec![pinned(0, 16), pinned(1, 1), pinned(8, 8)]);
        assert!(end_lower_bound(&p) <= 9, "{}", end_lower_bound(&p));
    }

    #[test]
    fn an_empty_lifetime_counts_for_nothing() {
        let p = Problem::new(vec![Buffer::new(10, 3, 3), Buffer::new(4, 0, 1)]);
        assert_eq!(end_lower_bound(&p), 4);
    }
}
