//! Constructive placement: largest buffers first, each into a gap among the buffers already
//! placed that are alive at the same time ([`Placed`] answers which memory that is, sorted,
//! in time about proportional to the buffers alive at once).

use crate::item::Item;
use crate::placed::Placed;
use crate::problem::round_up;

/// Which gap a buffer goes into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fit {
    /// The smallest gap it fits in (keeps large gaps for large buffers).
    Best,
    /// The lowest gap it fits in.
    First,
}

/// The order the constructive placement uses: pinned first, then size descending, longer
/// lifetime first, then index (so the result does not depend on sort stability).
pub(crate) fn size_descending(items: &[Item], members: &[usize]) -> Vec<usize> {
    let mut order = members.to_vec();
    order.sort_by_key(|&i| {
        let it = &items[i];
        (
            it.fixed.is_none(),
            std::cmp::Reverse(it.size),
            std::cmp::Reverse(it.upper - it.lower),
            i,
        )
    });
    order
}

/// TensorFlow Lite Micro's order: pinned first, then size descending, then index. With
/// [`Fit::First`], [`place`] in this order gives exactly TFLM's greedy plan
/// ([`crate::baseline::tflm_greedy`]), in `O(n log n)` instead of its `O(n²)`.
pub(crate) fn tflm_order(items: &[Item], members: &[usize]) -> Vec<usize> {
    let mut order = members.to_vec();
    order.sort_by_key(|&i| {
        (
            items[i].fixed.is_none(),
            std::cmp::Reverse(items[i].size),
            i,
        )
    });
    order
}

/// Places `order` (indices into `items`) one at a time and returns an offset for each item
/// (items outside `order` get 0).
pub(crate) fn place(items: &[Item], order: &[usize], fit: Fit) -> Vec<u64> {
    let mut offsets = vec![0u64; items.len()];
    let mut index = Placed::new(items, order);
    let mut neighbours: Vec<(u64, u64)> = Vec::new();
    for &i in order {
        let item = &items[i];
        let offset = match item.fixed {
            Some(fixed) => fixed,
            None => {
                index.occupied_by_start(item.lower, item.upper, &mut neighbours);
                choose_gap(&neighbours, item.size, item.align, fit)
            }
        };
        offsets[i] = offset;
        index.insert(item.lower, item.upper, offset, item.end_at(offset));
    }
    offsets
}

/// Picks an offset for a buffer of `size` given the occupied ranges sorted by start.
fn choose_gap(occupied: &[(u64, u64)], size: u64, align: u64, fit: Fit) -> u64 {
    let mut cursor = 0u64;
    let mut best: Option<(u64, u64)> = None; // (gap size, offset)
    for &(start, end) in occupied {
        let at = round_up(cursor, align);
        if at + size <= start {
            match fit {
                Fit::First => return at,
                Fit::Best => {
                    let gap = start - at;
                    if best.is_none_or(|(g, _)| gap < g) {
                        best = Some((gap, at));
                    }
                }
            }
        }
        cursor = cursor.max(end);
    }
    match best {
        Some((_, at)) => at,
        None => round_up(cursor, align),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_fit_prefers_the_tightest_gap() {
        // Occupied [0,10) [14,20) [40,50): gaps of 4 at 10 and 20 at 20.
        let occupied = [(0, 10), (14, 20), (40, 50)];
        assert_eq!(choose_gap(&occupied, 4, 1, Fit::Best), 10);
        assert_eq!(choose_gap(&occupied, 5, 1, Fit::Best), 20);
        assert_eq!(choose_gap(&occupied, 5, 1, Fit::First), 20);
        assert_eq!(choose_gap(&occupied, 30, 1, Fit::Best), 50);
        assert_eq!(choose_gap(&occupied, 4, 16, Fit::Best), 32);
    }
}
