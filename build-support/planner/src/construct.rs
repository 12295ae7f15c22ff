//! Constructive placement: largest buffers first, each into a gap among the buffers already
//! placed that are alive at the same time ([`Placed`] answers which memory that is, sorted,
//! in time about proportional to the buffers alive at once).

use crate::item::Item;
use crate::placed::Placed;
use crate::problem::round_up;
use crate::rigid::Part;

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

/// Which key orders the buffers alive at the busiest moment, and which the rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Busiest {
    /// Longest-lived first at the peak, largest first elsewhere.
    LongestThenLargest,
    /// Largest first at the peak, longest-lived first elsewhere.
    LargestThenLongest,
}

/// Busiest moment first: the buffers alive when the most bytes are (their total is the lower
/// bound, so in a plan that reaches it they stack with no gap), then the rest; each part by
/// size or lifetime descending as `keys` says, earlier start first, then index. Pinned
/// buffers come first.
///
/// Size order places small long-lived buffers last, when only the top of memory is free over
/// their whole lifetime: on idealloc's 28,526-buffer training trace it ends 1.6-2.5 % over
/// the bound, and this order reaches it. The two ways round suit different traces (the other
/// halves the gap on its 18,692-buffer trace), so both are candidates.
pub(crate) fn busiest_moment_first(items: &[Item], members: &[usize], keys: Busiest) -> Vec<usize> {
    let peak = alive_at_peak(items, members);
    let mut order = members.to_vec();
    order.sort_by_key(|&i| {
        let it = &items[i];
        let by_size = match keys {
            Busiest::LongestThenLargest => !peak[i],
            Busiest::LargestThenLongest => peak[i],
        };
        let key = if by_size {
            it.size
        } else {
            it.upper - it.lower
        };
        (
            it.fixed.is_none(),
            !peak[i],
            std::cmp::Reverse(key),
            it.lower,
            i,
        )
    });
    order
}

/// Whether each of `members` is alive at an instant where the bytes alive are the most
/// (indexed by item; false outside `members`).
fn alive_at_peak(items: &[Item], members: &[usize]) -> Vec<bool> {
    let mut events: Vec<(u64, bool, u64)> = Vec::with_capacity(2 * members.len());
    for &i in members {
        events.push((items[i].lower, true, items[i].size));
        events.push((items[i].upper, false, items[i].size));
    }
    // Ends before starts at the same instant: lifetimes are half-open.
    events.sort_unstable();
    let (mut live, mut most) = (0u128, 0u128);
    // Instants (as event times) from which the most bytes are alive, until the next event.
    let mut peaks: Vec<(u64, u64)> = Vec::new();
    for (k, &(t, starts, size)) in events.iter().enumerate() {
        if starts {
            live += u128::from(size);
        } else {
            live -= u128::from(size);
        }
        let until = events.get(k + 1).map_or(t, |e| e.0);
        if until > t && live >= most {
            if live > most {
                peaks.clear();
                most = live;
            }
            peaks.push((t, until));
        }
    }
    let mut peak = vec![false; items.len()];
    for &i in members {
        let (lower, upper) = (items[i].lower, items[i].upper);
        // The first peak interval ending after `lower` is the only one that can start
        // before `upper` without one that starts earlier also overlapping.
        let k = peaks.partition_point(|&(_, until)| until <= lower);
        peak[i] = peaks.get(k).is_some_and(|&(from, _)| from < upper);
    }
    peak
}

/// Places `order` (indices into `items`) one at a time and returns an offset for each item
/// (items outside `order` get 0).
pub(crate) fn place(items: &[Item], order: &[usize], fit: Fit) -> Vec<u64> {
    place_counted(items, order, fit).0
}

/// [`place`], and the work it took in steps (the unit of the search budget): one per buffer
/// placed, and per entry, range or node its index touched (set-up included).
pub(crate) fn place_counted(items: &[Item], order: &[usize], fit: Fit) -> (Vec<u64>, u64) {
    let mut index = Placed::new(items, order);
    let set_up = index.work();
    let (offsets, work) = place_in(items, order, fit, &mut index);
    (offsets, set_up + work)
}

/// [`place_counted`] with an index made by `Placed::new` for the same items and members
/// (emptied first, so repeated placements reuse its memory); counts the work from here.
pub(crate) fn place_in(
    items: &[Item],
    order: &[usize],
    fit: Fit,
    index: &mut Placed,
) -> (Vec<u64>, u64) {
    let before = index.work();
    index.clear();
    let work = order.len() as u64;
    let mut offsets = vec![0u64; items.len()];
    let mut neighbours: Vec<(u64, u64)> = Vec::new();
    // Pinned buffers first, wherever the order has them: every other buffer must go around
    // them (an order that learns, as the squeaky wheel's does, may move one ahead of a pin).
    for &i in order {
        if let Some(fixed) = items[i].fixed {
            offsets[i] = fixed;
            index.insert(
                items[i].lower,
                items[i].upper,
                fixed,
                items[i].end_at(fixed),
            );
        }
    }
    for &i in order {
        let item = &items[i];
        if item.fixed.is_some() {
            continue;
        }
        index.occupied_by_start(item.lower, item.upper, &mut neighbours);
        let offset = choose_gap(&neighbours, item.size, item.align, fit);
        offsets[i] = offset;
        index.insert(item.lower, item.upper, offset, item.end_at(offset));
    }
    (offsets, work + index.work() - before)
}

/// [`place`] for units with shapes ([`crate::rigid`]): a unit with a shape goes to an offset
/// where every part of it is free during the part's own lifetime, not during its whole box; a
/// plain unit is placed as [`place`] places it.
pub(crate) fn place_shaped(
    items: &[Item],
    shapes: &[Vec<Part>],
    order: &[usize],
    fit: Fit,
) -> Vec<u64> {
    let mut index = Placed::new(items, order);
    let mut offsets = vec![0u64; items.len()];
    let mut occupied: Vec<(u64, u64)> = Vec::new();
    let mut forbidden: Vec<(u64, u64)> = Vec::new();
    let insert = |index: &mut Placed, i: usize, at: u64| {
        let item = &items[i];
        if shapes[i].is_empty() {
            index.insert(item.lower, item.upper, at, item.end_at(at));
            return;
        }
        for p in &shapes[i] {
            index.insert(p.lower, p.upper, at + p.rel, at + p.rel + p.size);
        }
    };
    for &i in order {
        if let Some(fixed) = items[i].fixed {
            offsets[i] = fixed;
            insert(&mut index, i, fixed);
        }
    }
    for &i in order {
        let item = &items[i];
        if item.fixed.is_some() {
            continue;
        }
        let at = if shapes[i].is_empty() {
            index.occupied_by_start(item.lower, item.upper, &mut occupied);
            choose_gap(&occupied, item.size, item.align, fit)
        } else {
            // Origins at which some part would meet an occupied range, as intervals.
            forbidden.clear();
            for part in &shapes[i] {
                index.occupied_by_start(part.lower, part.upper, &mut occupied);
                for &(start, end) in &occupied {
                    let lo = (start + 1).saturating_sub(part.rel + part.size);
                    let hi = end.saturating_sub(part.rel);
                    if lo < hi {
                        forbidden.push((lo, hi));
                    }
                }
            }
            forbidden.sort_unstable();
            choose_origin(&forbidden, item.align, fit)
        };
        offsets[i] = at;
        insert(&mut index, i, at);
    }
    offsets
}

/// The lowest aligned origin outside every `forbidden` interval (sorted by start), or with
/// [`Fit::Best`] the one in the narrowest run of free origins.
fn choose_origin(forbidden: &[(u64, u64)], align: u64, fit: Fit) -> u64 {
    let mut cursor = 0u64;
    let mut best: Option<(u64, u64)> = None; // (free origins, origin)
    for &(lo, hi) in forbidden {
        let at = round_up(cursor, align);
        if at < lo {
            match fit {
                Fit::First => return at,
                Fit::Best => {
                    if best.is_none_or(|(room, _)| lo - at < room) {
                        best = Some((lo - at, at));
                    }
                }
            }
        }
        cursor = cursor.max(hi);
    }
    match best {
        Some((_, at)) => at,
        None => round_up(cursor, align),
    }
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
    use crate::item::arena_of;

    fn item(size: u64, lower: u64, upper: u64) -> Item {
        Item::free(size, lower, upper)
    }

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

    #[test]
    fn busiest_moment_first_reaches_the_bound_where_size_order_does_not() {
        // Bound 16, at instant 3. Size order (ours or TFLM's, best or first fit) needs
        // 17; placing the buffers alive then first stacks them with no gap.
        let items = [
            item(1, 3, 7),
            item(4, 2, 7),
            item(3, 2, 6),
            item(6, 0, 2),
            item(3, 0, 5),
            item(5, 1, 4),
        ];
        let all: Vec<usize> = (0..items.len()).collect();
        let bound = crate::bound::items_lower_bound(&items);
        assert_eq!(bound, 16);
        for order in [size_descending(&items, &all), tflm_order(&items, &all)] {
            for fit in [Fit::Best, Fit::First] {
                assert!(arena_of(&items, &place(&items, &order, fit)) > bound);
            }
        }
        let busiest = busiest_moment_first(&items, &all, Busiest::LongestThenLargest);
        assert_eq!(
            arena_of(&items, &place(&items, &busiest, Fit::First)),
            bound
        );
        // Alive at the peak: all but buffer 3, longest first (ties: earlier start first).
        assert_eq!(busiest, vec![4, 1, 2, 0, 5, 3]);
    }

    #[test]
    fn the_peak_may_be_several_separate_moments() {
        // 5 bytes alive during [0, 2) and again during [6, 8); less in between.
        let items = [
            item(5, 0, 2),
            item(1, 2, 6),
            item(2, 6, 8),
            item(3, 6, 9),
            item(1, 8, 9),
        ];
        let all: Vec<usize> = (0..items.len()).collect();
        assert_eq!(
            alive_at_peak(&items, &all),
            vec![true, false, true, true, false]
        );
    }
}
