//! Constructive placement: largest buffers first, each into a gap among the buffers already
//! placed that are alive at the same time. `O(n log n)` when lifetimes overlap boundedly.

use crate::item::Item;
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
    let mut index = PlacedIndex::new(items, order);
    let mut neighbours: Vec<(u64, u64)> = Vec::new();
    let mut spare: Vec<(u64, u64)> = Vec::new();
    for &i in order {
        let item = &items[i];
        let offset = match item.fixed {
            Some(fixed) => fixed,
            None => {
                neighbours.clear();
                index.for_each_overlapping(item.lower, item.upper, |j| {
                    neighbours.push((offsets[j], items[j].end_at(offsets[j])));
                });
                sort_by_start(&mut neighbours, &mut spare);
                choose_gap(&neighbours, item.size, item.align, fit)
            }
        };
        offsets[i] = offset;
        index.insert(i, item.upper);
    }
    offsets
}

/// Sorts occupied ranges by start. Only the starts' order matters to [`choose_gap`] (among
/// ranges starting together, none but the first can leave a gap below the start), so the order
/// among equal starts is free. Thousands of ranges (a training trace keeps thousands of tensors
/// alive at once) go through a radix sort on the start, 11 bits a pass and only as many
/// passes as the largest start needs, instead of a comparison sort.
fn sort_by_start(ranges: &mut Vec<(u64, u64)>, spare: &mut Vec<(u64, u64)>) {
    const BITS: u32 = 11;
    if ranges.len() < 256 {
        ranges.sort_unstable_by_key(|r| r.0);
        return;
    }
    let top = ranges.iter().map(|r| r.0).max().unwrap_or(0);
    let passes = (64 - top.leading_zeros()).div_ceil(BITS);
    spare.clear();
    spare.resize(ranges.len(), (0, 0));
    let mut counts = [0usize; 1 << BITS];
    for pass in 0..passes {
        let shift = pass * BITS;
        let digit = |r: &(u64, u64)| ((r.0 >> shift) & ((1 << BITS) - 1)) as usize;
        counts.fill(0);
        for r in ranges.iter() {
            counts[digit(r)] += 1;
        }
        let mut at = 0;
        for c in counts.iter_mut() {
            let n = *c;
            *c = at;
            at += n;
        }
        for r in ranges.iter() {
            let d = digit(r);
            spare[counts[d]] = *r;
            counts[d] += 1;
        }
        std::mem::swap(ranges, spare);
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

/// The placed items, searchable by lifetime: items sorted by `lower`, and a max-tree over
/// that order holding each placed item's `upper` (0 while unplaced). Items overlapping
/// `[lower, upper)` are the placed ones in the prefix with `lower < upper` whose `upper`
/// exceeds `lower`; subtrees whose maximum is too small are skipped.
struct PlacedIndex {
    /// Item indices sorted by `lower`.
    by_lower: Vec<usize>,
    /// `lower` of each entry of `by_lower`.
    lowers: Vec<u64>,
    /// Position of each item in `by_lower` (only for items in the index).
    position: Vec<usize>,
    /// Max-tree over positions, leaves at `size..2*size`.
    tree: Vec<u64>,
    size: usize,
}

impl PlacedIndex {
    fn new(items: &[Item], members: &[usize]) -> Self {
        let mut by_lower = members.to_vec();
        by_lower.sort_by_key(|&i| (items[i].lower, i));
        let lowers = by_lower.iter().map(|&i| items[i].lower).collect();
        let mut position = vec![usize::MAX; items.len()];
        for (p, &i) in by_lower.iter().enumerate() {
            position[i] = p;
        }
        let size = by_lower.len().next_power_of_two().max(1);
        PlacedIndex {
            by_lower,
            lowers,
            position,
            tree: vec![0; 2 * size],
            size,
        }
    }

    fn insert(&mut self, item: usize, upper: u64) {
        let mut node = self.size + self.position[item];
        self.tree[node] = upper;
        while node > 1 {
            node /= 2;
            self.tree[node] = self.tree[2 * node].max(self.tree[2 * node + 1]);
        }
    }

    fn for_each_overlapping(&self, lower: u64, upper: u64, mut visit: impl FnMut(usize)) {
        let prefix = self.lowers.partition_point(|&l| l < upper);
        if prefix == 0 {
            return;
        }
        // Depth-first over the tree, restricted to leaves < prefix with max upper > lower.
        let mut stack = vec![(1usize, 0usize, self.size)];
        while let Some((node, from, to)) = stack.pop() {
            if from >= prefix || self.tree[node] <= lower {
                continue;
            }
            if to - from == 1 {
                visit(self.by_lower[from]);
                continue;
            }
            let mid = (from + to) / 2;
            stack.push((2 * node + 1, mid, to));
            stack.push((2 * node, from, mid));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(size: u64, lower: u64, upper: u64) -> Item {
        Item::free(size, lower, upper)
    }

    #[test]
    fn radix_sort_orders_by_start() {
        let mut ranges: Vec<(u64, u64)> = (0..5_000u64)
            .map(|i| {
                let start = (i * 2_654_435_761) % 40_000_000;
                (start, start + 1 + i % 7)
            })
            .collect();
        let mut expected: Vec<u64> = ranges.iter().map(|r| r.0).collect();
        expected.sort_unstable();
        sort_by_start(&mut ranges, &mut Vec::new());
        assert_eq!(ranges.iter().map(|r| r.0).collect::<Vec<_>>(), expected);
        assert!(ranges.iter().all(|&(s, e)| e > s && e <= s + 7));
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
    fn index_finds_exactly_the_overlapping_placed_items() {
        let items: Vec<Item> = (0..50u64)
            .map(|i| item(1, (i * 7) % 23, (i * 7) % 23 + 1 + i % 5))
            .collect();
        let members: Vec<usize> = (0..items.len()).collect();
        let mut index = PlacedIndex::new(&items, &members);
        for placed in 0..items.len() {
            for q in 0..items.len() {
                let mut found = Vec::new();
                index.for_each_overlapping(items[q].lower, items[q].upper, |j| found.push(j));
                found.sort_unstable();
                let expected: Vec<usize> = (0..placed)
                    .filter(|&j| items[j].lower < items[q].upper && items[q].lower < items[j].upper)
                    .collect();
                assert_eq!(found, expected);
            }
            index.insert(placed, items[placed].upper);
        }
    }
}
