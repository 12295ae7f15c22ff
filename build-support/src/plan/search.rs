//! Exact search: does a placement within `capacity` exist? Branch and bound over settled
//! placements, in the spirit of Moffitt's MiniMalloc (ASPLOS 2023, "canonical solutions");
//! the formulation below and its code are our own.
//!
//! **Settled placements.** Push every buffer of a valid placement down until it rests at
//! offset 0 or on a buffer alive at the same time: still valid, no larger. So it suffices to
//! search placements where every buffer rests on something.
//!
//! **The skyline.** Time is cut into *sections* between consecutive lifetime endpoints. Each
//! section has a *floor*: everything below it is decided (occupied, or given up as unusable).
//! The search always works on the lowest floor among sections that still need memory, the
//! *hole*, and branches on what occupies its bottom byte: one of the unplaced buffers alive
//! there whose whole lifetime sits on that same floor level (it goes exactly there), or
//! nothing (the hole is given up up to the next level where anything could rest). Each settled
//! placement is reached along exactly one path, so the search is complete: when it runs out of
//! branches, nothing fits the capacity (for one alignment and no pinned buffers).
//!
//! **Pruning.** A branch dies when a buffer can no longer fit below the capacity, or when some
//! section needs more than the capacity: the lowest offset any buffer still to come there can
//! take, plus all their sizes.
//!
//! **Memory of failures.** Different orders of decisions reach the same state (same buffers
//! placed, same floors where memory is still needed). A state whose subtree failed is
//! remembered by a 128-bit fingerprint and not searched again.
//!
//! **Budget.** Every unit of work (a buffer or section looked at) costs one step; the search
//! gives up when its budget is spent. Step counts, not time, make it deterministic.

use std::cmp::Reverse;
use std::collections::HashSet;

use super::item::Item;
use super::problem::round_up;

/// The outcome of one search.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Offsets for every item, all ends within the capacity.
    Found(Vec<u64>),
    /// Every branch was explored: nothing fits.
    Exhausted,
    /// The step budget ran out first.
    OutOfBudget,
    /// The instance is too large for the search's working-memory limits.
    TooLarge,
}

/// Most (item, section) or (item, item) incidences the search will index: bounds its memory.
const MAX_INCIDENCES: usize = 16_000_000;
/// Most failed states remembered (16 bytes each plus table overhead).
const MAX_REMEMBERED: usize = 2_000_000;

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

/// One decision at a hole.
#[derive(Clone, Copy, Debug)]
enum Choice {
    /// Free item `k` goes at `at` (the hole's floor).
    Place { k: u32, at: u64 },
    /// Nothing occupies the hole's bottom: its floor rises to `level`.
    GiveUp { section: u32, level: u64 },
}

/// One decision taken, with what is needed to take it back.
struct Undo {
    choice: Choice,
    floor_log_len: usize,
    height_log_len: usize,
}

/// The choices of one search node, the next one to try, and the node's fingerprint.
struct Frame {
    choices: Vec<Choice>,
    next: usize,
    fingerprint: u128,
}

struct State<'a> {
    items: &'a [Item],
    capacity: u64,
    /// Items the search places (not pinned, non-empty), as indices into `items`.
    free: Vec<usize>,
    /// Section range `[lo, hi)` of each free item.
    span: Vec<(u32, u32)>,
    /// Free items alive at the same time as each free item.
    overlaps: Vec<Vec<u32>>,
    /// Free items alive in each section.
    covers: Vec<Vec<u32>>,
    /// Pinned items alive at the same time as each free item, by start.
    obstacles: Vec<Vec<Obstacle>>,
    /// Preference among buffers that can fill the same hole (0 first): longer lifetime, then
    /// larger size, then index.
    rank: Vec<u32>,
    /// Random keys for fingerprints, one per free item (fixed seed: deterministic).
    item_key: Vec<u64>,
    floor: Vec<u64>,
    /// Per section: bytes of unplaced free items alive there.
    demand: Vec<u64>,
    /// Per free item: highest floor under its span (kept up to date for unplaced items).
    height: Vec<u64>,
    placed: Vec<bool>,
    offset: Vec<u64>,
    remaining: usize,
    placed_key: u64,
    floor_log: Vec<(u32, u64)>,
    height_log: Vec<(u32, u64)>,
    undo: Vec<Undo>,
    failed: HashSet<u128>,
    /// Reused working memory of `expand`.
    scratch_lowest: Vec<(u64, u32)>,
    scratch_base: Vec<u64>,
    scratch_next: Vec<u32>,
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
        let incidences: usize = span.iter().map(|&(lo, hi)| (hi - lo) as usize).sum();
        if incidences > MAX_INCIDENCES {
            return None;
        }
        let mut covers = vec![Vec::new(); sections];
        for (k, &(lo, hi)) in span.iter().enumerate() {
            for s in lo..hi {
                covers[s as usize].push(k as u32);
            }
        }
        let overlaps = overlapping_pairs(items, &free)?;
        let obstacles = obstacles_of(items, &free);
        let mut demand = vec![0u64; sections];
        for (k, &(lo, hi)) in span.iter().enumerate() {
            for d in &mut demand[lo as usize..hi as usize] {
                *d += items[free[k]].size;
            }
        }
        let n = free.len();
        let mut by_preference: Vec<usize> = (0..n).collect();
        by_preference
            .sort_by_key(|&k| (Reverse(span[k].1 - span[k].0), Reverse(items[free[k]].size), k));
        let mut rank = vec![0u32; n];
        for (r, &k) in by_preference.iter().enumerate() {
            rank[k] = r as u32;
        }
        let mut seed = 0x5eed_a7e7_a9a1_u64;
        let item_key = (0..n).map(|_| splitmix(&mut seed)).collect();
        Some(State {
            items,
            capacity,
            free,
            span,
            overlaps,
            covers,
            obstacles,
            rank,
            item_key,
            floor: vec![0; sections],
            demand,
            height: vec![0; n],
            placed: vec![false; n],
            offset: vec![0; n],
            remaining: n,
            placed_key: 0,
            floor_log: Vec::new(),
            height_log: Vec::new(),
            undo: Vec::new(),
            failed: HashSet::new(),
            scratch_lowest: Vec::new(),
            scratch_base: Vec::new(),
            scratch_next: Vec::new(),
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
        if self.remaining == 0 {
            return Outcome::Found(self.result());
        }
        let mut stack: Vec<Frame> = Vec::new();
        match self.expand(budget) {
            Some(frame) => stack.push(frame),
            None => return Outcome::Exhausted,
        }
        let mut nodes = 0u64; let mut best_rem = usize::MAX;
        loop {
            nodes += 1; best_rem = best_rem.min(self.remaining);
            if *budget == 0 {
                if std::env::var_os("AP_DEBUG").is_some() { eprintln!("cap {} nodes {nodes} best_remaining {best_rem} of {} failed {}", self.capacity, self.free.len(), self.failed.len()); }
                return Outcome::OutOfBudget;
            }
            let Some(top) = stack.last_mut() else {
                return Outcome::Exhausted;
            };
            if top.next == top.choices.len() {
                if self.failed.len() < MAX_REMEMBERED {
                    self.failed.insert(top.fingerprint);
                }
                stack.pop();
                if !stack.is_empty() {
                    self.retract();
                }
                continue;
            }
            let choice = top.choices[top.next];
            top.next += 1;
            self.apply(choice);
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

    /// Lowest offset free item `k` can take now: on its floors, aligned, above obstacles.
    fn position(&self, k: usize, from: u64) -> u64 {
        let item = &self.items[self.free[k]];
        let mut at = round_up(from, item.align);
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

    /// The fingerprint of the state: placed items, and floors where memory is still needed.
    fn fingerprint(&self) -> u128 {
        let (mut a, mut b) = (self.placed_key, !self.placed_key);
        for (s, (&f, &d)) in self.floor.iter().zip(&self.demand).enumerate() {
            if d > 0 {
                let mut x = (s as u64) << 48 ^ f;
                a = a.rotate_left(5) ^ splitmix(&mut x);
                b = b.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ splitmix(&mut x);
            }
        }
        (u128::from(a) << 64) | u128::from(b)
    }

    /// Checks the node and lists its choices, best first; `None` when the node is dead.
    fn expand(&mut self, budget: &mut u64) -> Option<Frame> {
        let cost = (self.free.len() + self.floor.len()) as u64;
        *budget = budget.saturating_sub(cost.max(1));
        let fingerprint = self.fingerprint();
        if self.failed.contains(&fingerprint) {
            return None;
        }
        let mut lowest = std::mem::take(&mut self.scratch_lowest);
        lowest.clear();
        let mut fits = true;
        for k in 0..self.free.len() {
            if !self.placed[k] {
                let at = self.position(k, self.height[k]);
                fits &= at + self.items[self.free[k]].size <= self.capacity;
                lowest.push((at, k as u32));
            }
        }
        fits = fits && self.sections_fit(&mut lowest);
        self.scratch_lowest = lowest;
        if !fits {
            return None;
        }
        let hole = self.hole()?;
        let choices = self.choices_at(hole);
        Some(Frame {
            choices,
            next: 0,
            fingerprint,
        })
    }

    /// The section to decide next: lowest floor among those still needing memory, leftmost.
    fn hole(&self) -> Option<u32> {
        (0..self.floor.len())
            .filter(|&s| self.demand[s] > 0)
            .min_by_key(|&s| (self.floor[s], s))
            .map(|s| s as u32)
    }

    fn choices_at(&self, hole: u32) -> Vec<Choice> {
        let f = self.floor[hole as usize];
        let mut fill: Vec<u32> = Vec::new();
        let mut level = u64::MAX;
        for &k in &self.covers[hole as usize] {
            let ku = k as usize;
            if self.placed[ku] {
                continue;
            }
            let at = self.position(ku, self.height[ku]);
            if at == f {
                fill.push(k);
                level = level.min(self.next_rest(ku, f));
            } else {
                level = level.min(at);
            }
        }
        fill.sort_by_key(|&k| self.rank[k as usize]);
        let mut choices: Vec<Choice> = fill.iter().map(|&k| Choice::Place { k, at: f }).collect();
        if level != u64::MAX && level <= self.capacity {
            choices.push(Choice::GiveUp {
                section: hole,
                level,
            });
        }
        choices
    }

    /// Lowest offset above `f` where free item `k` (now able to sit at `f`) could rest if the
    /// hole at `f` is given up: a higher floor in its span, or the top of another unplaced
    /// buffer alive with it, which itself cannot sit below `f`.
    fn next_rest(&self, k: usize, f: u64) -> u64 {
        let (lo, hi) = self.span[k];
        let mut rest = self.floor[lo as usize..hi as usize]
            .iter()
            .copied()
            .filter(|&x| x > f)
            .min()
            .unwrap_or(u64::MAX);
        for &j in &self.overlaps[k] {
            let ju = j as usize;
            if !self.placed[ju] {
                let top = self.height[ju].max(f) + self.items[self.free[ju]].size;
                rest = rest.min(top);
            }
        }
        if rest == u64::MAX {
            rest
        } else {
            self.position(k, rest)
        }
    }

    /// Whether every section can still hold what is to come: the unplaced buffers alive there
    /// stack up from the lowest offset any of them can take, so that offset plus their total
    /// size must stay within the capacity. `lowest` holds (lowest offset, item) per unplaced
    /// item.
    fn sections_fit(&mut self, lowest: &mut [(u64, u32)]) -> bool {
        // Paint each section with the smallest `lowest` among the items covering it: items in
        // increasing order, each painting only still-unpainted sections (skip pointers).
        lowest.sort_unstable();
        let sections = self.floor.len();
        let base = &mut self.scratch_base;
        base.clear();
        base.resize(sections, u64::MAX);
        let next = &mut self.scratch_next;
        next.clear();
        next.extend(0..=sections as u32);
        for &(low, k) in lowest.iter() {
            let (lo, hi) = self.span[k as usize];
            let mut s = find_unpainted(next, lo);
            while s < hi {
                base[s as usize] = low;
                next[s as usize] = s + 1;
                s = find_unpainted(next, s + 1);
            }
        }
        base.iter()
            .zip(&self.demand)
            .all(|(&b, &d)| d == 0 || b + d <= self.capacity)
    }

    fn set_floor(&mut self, s: u32, value: u64) {
        self.floor_log.push((s, self.floor[s as usize]));
        self.floor[s as usize] = value;
    }

    fn raise_height(&mut self, k: u32, value: u64) {
        let ku = k as usize;
        if !self.placed[ku] && self.height[ku] < value {
            self.height_log.push((k, self.height[ku]));
            self.height[ku] = value;
        }
    }

    fn apply(&mut self, choice: Choice) {
        self.undo.push(Undo {
            choice,
            floor_log_len: self.floor_log.len(),
            height_log_len: self.height_log.len(),
        });
        match choice {
            Choice::Place { k, at } => {
                let ku = k as usize;
                self.placed[ku] = true;
                self.offset[ku] = at;
                self.remaining -= 1;
                self.placed_key ^= self.item_key[ku];
                let size = self.items[self.free[ku]].size;
                let (lo, hi) = self.span[ku];
                for s in lo..hi {
                    self.set_floor(s, at + size);
                    self.demand[s as usize] -= size;
                }
                for j in 0..self.overlaps[ku].len() {
                    let j = self.overlaps[ku][j];
                    self.raise_height(j, at + size);
                }
            }
            Choice::GiveUp { section, level } => {
                self.set_floor(section, level);
                for j in 0..self.covers[section as usize].len() {
                    let j = self.covers[section as usize][j];
                    self.raise_height(j, level);
                }
            }
        }
    }

    fn retract(&mut self) {
        let Some(u) = self.undo.pop() else { return };
        while self.floor_log.len() > u.floor_log_len {
            let Some((s, old)) = self.floor_log.pop() else { break };
            self.floor[s as usize] = old;
        }
        while self.height_log.len() > u.height_log_len {
            let Some((j, old)) = self.height_log.pop() else { break };
            self.height[j as usize] = old;
        }
        if let Choice::Place { k, .. } = u.choice {
            let ku = k as usize;
            let size = self.items[self.free[ku]].size;
            let (lo, hi) = self.span[ku];
            for d in &mut self.demand[lo as usize..hi as usize] {
                *d += size;
            }
            self.placed[ku] = false;
            self.placed_key ^= self.item_key[ku];
            self.remaining += 1;
        }
    }
}

/// SplitMix64: a small, well-mixed deterministic generator.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The first unpainted section at or after `s` (path-halving skip pointers).
fn find_unpainted(next: &mut [u32], mut s: u32) -> u32 {
    while next[s as usize] != s {
        let skip = next[next[s as usize] as usize];
        next[s as usize] = skip;
        s = skip;
    }
    s
}

/// Pinned items alive at the same time as each free item, sorted by start.
fn obstacles_of(items: &[Item], free: &[usize]) -> Vec<Vec<Obstacle>> {
    let pinned: Vec<usize> = (0..items.len())
        .filter(|&i| items[i].fixed.is_some() && items[i].size > 0)
        .collect();
    free.iter()
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
        .collect()
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
        if pairs > MAX_INCIDENCES / 2 {
            return None;
        }
    }
    let mut overlaps = vec![Vec::new(); free.len()];
    for (p, &k) in by_lower.iter().enumerate() {
        let upper = item(k).upper;
        for &j in by_lower[p + 1..]
            .iter()
            .take_while(|&&j| item(j).lower < upper)
        {
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
        // Three buffers pairwise alive together need 12 bytes.
        let items = [item(4, 0, 2), item(4, 1, 3), item(4, 0, 3)];
        let mut budget = 1_000_000;
        assert_eq!(search(&items, 11, &mut budget), Outcome::Exhausted);
        // Bound 8, but the pair alive at instant 1 cannot also sit around the long buffer.
        let items = [item(4, 0, 2), item(4, 2, 4), item(4, 1, 3), item(2, 0, 1), item(2, 3, 4)];
        let mut budget = 1_000_000;
        assert!(matches!(search(&items, 12, &mut budget), Outcome::Found(_)));
    }

    #[test]
    fn stops_when_the_budget_is_spent() {
        let items: Vec<Item> = (0..30).map(|i| item(3 + i % 7, i % 5, i % 5 + 3)).collect();
        let mut budget = 10;
        assert_eq!(search(&items, 1000, &mut budget), Outcome::OutOfBudget);
    }
}
