//! Exact search: does a placement within `capacity` exist? Branch and bound over canonical
//! placements, after the idea in Moffitt's MiniMalloc paper (ASPLOS 2023); this is our own
//! formulation and code.
//!
//! **Canonical placements.** Push every buffer of a valid placement down until it rests at
//! offset 0 or on a buffer alive at the same time; the result is still valid and no larger.
//! Such a placement is produced by placing buffers in order of non-decreasing offset, each at
//! the top of the *skyline* (the highest end among placed buffers alive at the same time).
//! The search enumerates those orders, so it is complete: if it runs out of branches, no
//! placement within the capacity exists (for uniform alignment without pinned buffers).
//!
//! **Symmetry.** Buffers at the same offset are never alive at the same time, so their order
//! does not matter: within one offset they are placed in increasing index order only.
//!
//! **Pruning.** Offsets never go down, so every unplaced buffer starts at or above the last
//! offset placed, and memory below it that is still free is lost. A branch dies as soon as an
//! unplaced buffer can no longer fit below the capacity, or an instant needs more bytes than
//! the capacity allows (what is already placed or lost, plus what is still to come).
//!
//! **Budget.** Every unit of work (a buffer or instant looked at) costs one step; the search
//! gives up when its budget is spent. Step counts, not time, make it deterministic.

use std::cmp::Reverse;

use super::item::Item;
use super::problem::round_up;

/// The outcome of one search.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Offsets for every item, all ends within the capacity.
    Found(Vec<u64>),
    /// Every branch was explored: no canonical placement fits.
    Exhausted,
    /// The step budget ran out first.
    OutOfBudget,
    /// The instance is too large for the search's working memory limit.
    TooLarge,
}

/// Most pairs of time-overlapping buffers the search will index (bounds its memory).
const MAX_OVERLAP_PAIRS: usize = 8_000_000;

/// Searches for offsets of `items` (one independent group) with every end `<= capacity`.
/// `budget` is decreased by the steps used.
pub(crate) fn search(items: &[Item], capacity: u64, budget: &mut u64) -> Outcome {
    let Some(mut state) = State::new(items, capacity) else {
        return Outcome::TooLarge;
    };
    state.run(budget)
}

/// A pinned buffer, as an obstacle the searched buffers must go around.
#[derive(Clone, Copy)]
struct Obstacle {
    start: u64,
    end: u64,
}

/// One placement done, with what is needed to take it back.
struct Undo {
    item: u32,
    last_offset: u64,
    last_item: Option<u32>,
    floor_log_len: usize,
    height_log_len: usize,
}

/// The candidates of one search node and the next one to try.
struct Frame {
    candidates: Vec<(u64, u32)>,
    next: usize,
}

struct State<'a> {
    items: &'a [Item],
    capacity: u64,
    /// Items the search places (not pinned, non-empty), as indices into `items`.
    free: Vec<usize>,
    /// Section range `[lo, hi)` of each free item (sections: between consecutive endpoints).
    span: Vec<(u32, u32)>,
    /// Free items alive at the same time as each free item.
    overlaps: Vec<Vec<u32>>,
    /// Pinned items alive at the same time as each free item, by start.
    obstacles: Vec<Vec<Obstacle>>,
    /// Static ordering key parts: longer lifetimes and larger sizes first.
    order_key: Vec<(Reverse<u32>, Reverse<u64>)>,
    /// Per section: top of the skyline.
    floor: Vec<u64>,
    /// Per section: bytes of unplaced free items alive there.
    demand: Vec<u64>,
    /// Per free item: highest floor under its span (kept up to date for unplaced items).
    height: Vec<u64>,
    placed: Vec<bool>,
    offset: Vec<u64>,
    remaining: usize,
    last_offset: u64,
    last_item: Option<u32>,
    floor_log: Vec<(u32, u64)>,
    height_log: Vec<(u32, u64)>,
    undo: Vec<Undo>,
}

impl<'a> State<'a> {
    fn new(items: &'a [Item], capacity: u64) -> Option<Self> {
        let free: Vec<usize> = (0..items.len())
            .filter(|&i| items[i].fixed.is_none() && items[i].size > 0)
            .collect();
        let mut points: Vec<u64> = free
            .iter()
            .flat_map(|&i| [items[i].lower, items[i].upper])
            .collect();
        points.sort_unstable();
        points.dedup();
        let section_of = |t: u64| points.partition_point(|&p| p < t) as u32;
        let span: Vec<(u32, u32)> = free
            .iter()
            .map(|&i| (section_of(items[i].lower), section_of(items[i].upper)))
            .collect();
        let sections = points.len().saturating_sub(1);

        let overlaps = overlapping_pairs(items, &free)?;
        let pinned: Vec<usize> = (0..items.len())
            .filter(|&i| items[i].fixed.is_some() && items[i].size > 0)
            .collect();
        let obstacles = free
            .iter()
            .map(|&i| {
                let mut obs: Vec<Obstacle> = pinned
                    .iter()
                    .filter(|&&p| items[p].lower < items[i].upper && items[i].lower < items[p].upper)
                    .map(|&p| {
                        let start = items[p].fixed.unwrap_or(0);
                        Obstacle {
                            start,
                            end: start + items[p].size,
                        }
                    })
                    .collect();
                obs.sort_by_key(|o| (o.start, o.end));
                obs
            })
            .collect();

        // Demand per section through a difference array: O(items + sections).
        let mut diff = vec![0i128; sections + 1];
        for (k, &i) in free.iter().enumerate() {
            let (lo, hi) = span[k];
            diff[lo as usize] += items[i].size as i128;
            diff[hi as usize] -= items[i].size as i128;
        }
        let mut demand = Vec::with_capacity(sections);
        let mut running = 0i128;
        for d in diff.iter().take(sections) {
            running += d;
            demand.push(running as u64);
        }
        let order_key = free
            .iter()
            .enumerate()
            .map(|(k, &i)| (Reverse(span[k].1 - span[k].0), Reverse(items[i].size)))
            .collect();
        let n = free.len();
        Some(State {
            items,
            capacity,
            free,
            span,
            overlaps,
            obstacles,
            order_key,
            floor: vec![0; sections],
            demand,
            height: vec![0; n],
            placed: vec![false; n],
            offset: vec![0; n],
            remaining: n,
            last_offset: 0,
            last_item: None,
            floor_log: Vec::new(),
            height_log: Vec::new(),
            undo: Vec::new(),
        })
    }

    fn run(&mut self, budget: &mut u64) -> Outcome {
        // Pinned buffers must fit too; the search cannot move them.
        if self
            .items
            .iter()
            .any(|it| it.fixed.is_some_and(|o| o + it.size > self.capacity))
        {
            return Outcome::Exhausted;
        }
        let mut stack: Vec<Frame> = Vec::new();
        match self.expand(budget) {
            Some(frame) => stack.push(frame),
            None if self.remaining == 0 => return Outcome::Found(self.result()),
            None => return Outcome::Exhausted,
        }
        loop {
            if *budget == 0 {
                return Outcome::OutOfBudget;
            }
            let Some(top) = stack.last_mut() else {
                return Outcome::Exhausted;
            };
            if top.next == top.candidates.len() {
                stack.pop();
                if !stack.is_empty() {
                    self.retract();
                }
                continue;
            }
            let (offset, k) = top.candidates[top.next];
            top.next += 1;
            self.apply(k, offset);
            if self.remaining == 0 {
                return Outcome::Found(self.result());
            }
            match self.expand(budget) {
                Some(frame) => stack.push(frame),
                None => self.retract(),
            }
        }
    }

    fn result(&self) -> Vec<u64> {
        let mut offsets: Vec<u64> = self.items.iter().map(|it| it.fixed.unwrap_or(0)).collect();
        for (k, &i) in self.free.iter().enumerate() {
            offsets[i] = self.offset[k];
        }
        offsets
    }

    /// Where free item `k` would go now: on the skyline, aligned, above pinned obstacles.
    fn position(&self, k: usize) -> u64 {
        let item = &self.items[self.free[k]];
        let mut at = round_up(self.height[k], item.align);
        loop {
            let mut moved = false;
            for obs in &self.obstacles[k] {
                if obs.start < at + item.size && at < obs.end {
                    at = round_up(obs.end, item.align);
                    moved = true;
                }
            }
            if !moved {
                return at;
            }
        }
    }

    /// Checks the node and lists its candidates, best first; `None` when the node is dead.
    fn expand(&self, budget: &mut u64) -> Option<Frame> {
        let cost = (self.free.len() + self.floor.len()) as u64;
        *budget = budget.saturating_sub(cost.max(1));
        if self.remaining == 0 {
            return None;
        }
        let last = self.last_offset;
        // Instants: what is placed or lost below `last`, plus what is still to come.
        for (s, &floor) in self.floor.iter().enumerate() {
            if floor.max(last) + self.demand[s] > self.capacity {
                return None;
            }
        }
        let mut candidates = Vec::new();
        for k in 0..self.free.len() {
            if self.placed[k] {
                continue;
            }
            let item = &self.items[self.free[k]];
            let at = self.position(k);
            let eligible = match self.last_item {
                None => true,
                Some(prev) => at > last || (at == last && k as u32 > prev),
            };
            // A buffer that cannot go next must later rest on something placed at or above
            // `last`: strictly above it.
            let lowest = if eligible {
                at
            } else {
                round_up(at.max(last + 1), item.align)
            };
            if lowest + item.size > self.capacity {
                return None;
            }
            if eligible {
                candidates.push((at, k as u32));
            }
        }
        if candidates.is_empty() {
            return None;
        }
        candidates.sort_by_key(|&(at, k)| (at, self.order_key[k as usize], k));
        Some(Frame {
            candidates,
            next: 0,
        })
    }

    fn apply(&mut self, k: u32, at: u64) {
        let ku = k as usize;
        self.undo.push(Undo {
            item: k,
            last_offset: self.last_offset,
            last_item: self.last_item,
            floor_log_len: self.floor_log.len(),
            height_log_len: self.height_log.len(),
        });
        self.last_offset = at;
        self.last_item = Some(k);
        self.placed[ku] = true;
        self.offset[ku] = at;
        self.remaining -= 1;
        let size = self.items[self.free[ku]].size;
        let top = at + size;
        let (lo, hi) = self.span[ku];
        for s in lo..hi {
            self.floor_log.push((s, self.floor[s as usize]));
            self.floor[s as usize] = top;
            self.demand[s as usize] -= size;
        }
        for &j in &self.overlaps[ku] {
            let ju = j as usize;
            if !self.placed[ju] && self.height[ju] < top {
                self.height_log.push((j, self.height[ju]));
                self.height[ju] = top;
            }
        }
    }

    fn retract(&mut self) {
        let Some(u) = self.undo.pop() else { return };
        let ku = u.item as usize;
        let size = self.items[self.free[ku]].size;
        while self.floor_log.len() > u.floor_log_len {
            let Some((s, old)) = self.floor_log.pop() else { break };
            self.floor[s as usize] = old;
            self.demand[s as usize] += size;
        }
        while self.height_log.len() > u.height_log_len {
            let Some((j, old)) = self.height_log.pop() else { break };
            self.height[j as usize] = old;
        }
        self.placed[ku] = false;
        self.remaining += 1;
        self.last_offset = u.last_offset;
        self.last_item = u.last_item;
    }
}

/// For each free item (by position in `free`), the other free items alive at the same time.
/// `None` when there are more pairs than the search may hold in memory.
fn overlapping_pairs(items: &[Item], free: &[usize]) -> Option<Vec<Vec<u32>>> {
    let mut by_lower: Vec<u32> = (0..free.len() as u32).collect();
    by_lower.sort_by_key(|&k| (items[free[k as usize]].lower, k));
    let item = |k: u32| &items[free[k as usize]];
    // Count first, so a dense instance is refused before anything large is allocated.
    let mut pairs = 0usize;
    for (p, &k) in by_lower.iter().enumerate() {
        let upper = item(k).upper;
        pairs += by_lower[p + 1..]
            .iter()
            .take_while(|&&j| item(j).lower < upper)
            .count();
        if pairs > MAX_OVERLAP_PAIRS {
            return None;
        }
    }
    let mut overlaps = vec![Vec::new(); free.len()];
    for (p, &k) in by_lower.iter().enumerate() {
        let upper = item(k).upper;
        for &j in by_lower[p + 1..].iter().take_while(|&&j| item(j).lower < upper) {
            overlaps[k as usize].push(j);
            overlaps[j as usize].push(k);
        }
    }
    Some(overlaps)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(size: u64, lower: u64, upper: u64) -> Item {
        Item {
            size,
            align: 1,
            lower,
            upper,
            fixed: None,
        }
    }

    #[test]
    fn finds_the_tight_packing_greedy_misses() {
        // MiniMalloc's README example: capacity 12 is exactly the lower bound.
        let items = [
            item(4, 0, 3),
            item(4, 3, 9),
            item(4, 0, 9),
            item(4, 9, 21),
            item(4, 0, 21),
        ];
        let mut budget = 1_000_000;
        match search(&items, 12, &mut budget) {
            Outcome::Found(offsets) => {
                assert!(offsets.iter().zip(&items).all(|(o, it)| o + it.size <= 12));
            }
            other => panic!("expected a placement, got {other:?}"),
        }
    }

    #[test]
    fn proves_infeasibility_below_the_bound() {
        let items = [item(4, 0, 2), item(4, 1, 3), item(4, 0, 3)];
        let mut budget = 1_000_000;
        assert_eq!(search(&items, 11, &mut budget), Outcome::Exhausted);
    }

    #[test]
    fn stops_when_the_budget_is_spent() {
        let items: Vec<Item> = (0..30).map(|i| item(3 + i % 7, i % 5, i % 5 + 3)).collect();
        let mut budget = 10;
        assert_eq!(search(&items, 1, &mut budget), Outcome::Exhausted);
        let mut budget = 10;
        assert_eq!(search(&items, 1000, &mut budget), Outcome::OutOfBudget);
    }
}
