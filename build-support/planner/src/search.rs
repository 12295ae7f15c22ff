//! Exact search: does a placement within `capacity` exist? Branch and bound over canonical
//! placements, following the method of Moffitt's MiniMalloc (ASPLOS 2023): canonical
//! solutions, section inference, dominance, and restarts over several buffer orders. The
//! formulation notes below and the code are our own.
//!
//! **Canonical placements.** Push every buffer of a valid placement down until it rests at
//! offset 0 or on a buffer alive at the same time: still valid, no larger. Such a placement
//! comes out of placing buffers in increasing (offset, rank) order, each at its *minimum
//! offset* (the highest top among placed buffers alive with it, aligned). The search
//! enumerates exactly those orders.
//!
//! **Pruning.** Offsets never go down, so memory below the last offset that is still free is
//! lost. Time is cut into *sections* between lifetime endpoints; a branch dies when some
//! section needs more than the capacity (the lowest offset any buffer still to come there can
//! take, plus their sizes), or a buffer cannot fit at all. A buffer whose minimum offset is at
//! or above the top of another unplaced buffer is not tried next (that one fits underneath:
//! the placement would be dominated). A buffer with no unplaced buffer alive alongside it
//! affects nobody: when the rest fails after it, its siblings are not tried.
//!
//! **Decomposition.** When placements leave the unplaced buffers in parts that share no
//! section, each part is solved on its own, its canonical order starting over. A part's
//! buffers are ranked afresh by what is left: the busiest-section key counts the bytes still
//! to place, not those at the start, so the part's most loaded section is filled first. (Ranks
//! fixed at the root miss this: MiniMalloc's challenging instances H and I, which need it,
//! did not fit within 2e10 steps; with it they fit in seconds.)
//!
//! **Restarts.** Depth-first search commits early. Several buffer orders (by lifetime, area and
//! the busiest section a buffer lives in) take turns with node limits that double each round,
//! until one succeeds, one proves that nothing fits, or the step budget runs out. In the first
//! few rounds each order is also tried with the parts ranked as at the root, which some
//! instances need (cheap while the node limits are small). Each round ends with two runs whose
//! order's first key is scaled by random factors, seeded by the round: how long a run takes to
//! find a placement depends wildly on its order (heavy-tailed), so fresh orders pay on nearly
//! full instances (packed squares with 20 % of the pieces taken out: 6 of 12 fit, 3 without
//! them) for 20-40 % more time where the fixed orders succeed late (MiniMalloc's B and E).
//!
//! **Budget.** Every unit of work (a buffer or section looked at) costs one step. Step counts,
//! not time, make the search deterministic.
//!
//! **Threads.** A round's runs are independent, so from moderate node limits on they go to
//! several threads, each with its own search state. The round is still charged as if its runs
//! went one after the other (see [`Round`]): the outcome and the steps used are the same at
//! any thread count. (A run that finds a placement on the very step that spends the budget
//! counts as out of budget, at any thread count: the price of that rule.)

use std::cmp::Reverse;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::construct::size_descending;
use crate::item::Item;
use crate::problem::round_up;
use crate::squeaky::Squeaky;

/// The outcome of one search.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Offsets for every item, all ends within the capacity.
    Found(Vec<u64>),
    /// Every branch was explored: nothing fits.
    Exhausted,
    /// Stopped from outside ([`search_until`]) before anything else ended it.
    Stopped,
    /// The step budget ran out first.
    OutOfBudget,
    /// The instance is too large for the search's working-memory limits.
    TooLarge,
}

/// Deepest nesting of independent parts solved separately (bounds recursion).
const MAX_NESTING: usize = 2_000;

/// Most (item, item) overlaps, or (item, section) incidences, the search will index: bounds
/// its memory.
const MAX_OVERLAPS: usize = 8_000_000;

/// The buffer orders that take turns: each letter a key, descending (W lifetime, A lifetime
/// times size, T the largest section total the buffer lives in), ties by index.
const ORDERS: [[Key; 3]; 3] = [
    [Key::Width, Key::Area, Key::Total],
    [Key::Total, Key::Area, Key::Width],
    [Key::Total, Key::Width, Key::Area],
];

#[derive(Clone, Copy)]
enum Key {
    Width,
    Area,
    Total,
}

/// Searches for offsets of `items` (one independent group) with every end `<= capacity`.
/// `budget` is decreased by the steps used. Up to `threads` runs of a round go at once; the
/// outcome and the steps charged are the same at any thread count (see [`Round`]).
#[cfg(test)]
pub(crate) fn search(items: &[Item], capacity: u64, budget: &mut u64, threads: usize) -> Outcome {
    search_until(
        items,
        capacity,
        budget,
        threads,
        &Arc::new(AtomicBool::new(false)),
    )
}

/// [`search`], stopping ([`Outcome::Stopped`], with no budget left) as soon as `stop` is set:
/// the one way to cut a search short that is not a step count (a deadline, Ctrl-C).
pub(crate) fn search_until(
    items: &[Item],
    capacity: u64,
    budget: &mut u64,
    threads: usize,
    stop: &Arc<AtomicBool>,
) -> Outcome {
    let Some(mut first) = State::new(items, capacity) else {
        return Outcome::TooLarge;
    };
    first.stop = Arc::clone(stop);
    if items
        .iter()
        .any(|it| it.fixed.is_some_and(|o| o + it.size > capacity))
    {
        return Outcome::Exhausted;
    }
    let mut states = vec![first];
    let every: Vec<usize> = (0..items.len()).collect();
    let wheel = Mutex::new(Squeaky::new(items, size_descending(items, &every)));
    let mut node_limit = 2 * states[0].free.len() as u64 + 2;
    for round in 0u32.. {
        if stop.load(Ordering::Relaxed) {
            *budget = 0;
            return Outcome::Stopped;
        }
        // Parts ranked afresh in every round; as at the root for the first few (cheap, and
        // some instances fall to it at once).
        let static_too = round < STATIC_ROUNDS;
        let runs: Vec<RunSpec> = ORDERS
            .iter()
            .flat_map(|o| [(o, true), (o, false)])
            .filter(|&(_, rerank)| rerank || static_too)
            .map(|(order, rerank)| RunSpec {
                order,
                rerank,
                node_limit,
                squeaky: false,
                noise: 0,
            })
            .chain(std::iter::once(RunSpec {
                order: &ORDERS[0],
                rerank: false,
                node_limit,
                squeaky: true,
                noise: 0,
            }))
            .chain((0..NOISY_RUNS).map(|j| RunSpec {
                order: &ORDERS[j as usize % ORDERS.len()],
                rerank: false,
                node_limit,
                squeaky: false,
                noise: 1 + u64::from(round) * NOISY_RUNS + j,
            }))
            .collect();
        // Spawning threads costs more than a round of small node limits.
        let workers = if node_limit >= PARALLEL_NODE_LIMIT {
            threads.clamp(1, runs.len())
        } else {
            1
        };
        while states.len() < workers {
            match State::new(items, capacity) {
                Some(mut state) => {
                    state.stop = Arc::clone(stop);
                    states.push(state)
                }
                None => return Outcome::TooLarge,
            }
        }
        match Round::new(&runs, *budget, &wheel, stop).play(&mut states[..workers]) {
            (RoundEnd::NextRound, left) => *budget = left,
            (RoundEnd::Found(offsets), left) => {
                *budget = left;
                return Outcome::Found(offsets);
            }
            (RoundEnd::Exhausted, left) => {
                *budget = left;
                return Outcome::Exhausted;
            }
            (RoundEnd::OutOfBudget, _) => {
                *budget = 0;
                // A run cancelled by the stop ends its round as out of budget.
                return if stop.load(Ordering::Relaxed) {
                    Outcome::Stopped
                } else {
                    Outcome::OutOfBudget
                };
            }
        }
        node_limit = node_limit.saturating_mul(2);
    }
    Outcome::OutOfBudget
}

/// Node limit from which a round's runs are spread over threads.
const PARALLEL_NODE_LIMIT: u64 = 4_096;

/// One depth-first run of a round: a buffer order, whether parts are ranked afresh, and how
/// many nodes it may open.
#[derive(Clone, Copy)]
struct RunSpec {
    order: &'static [Key; 3],
    rerank: bool,
    node_limit: u64,
    /// Not a depth-first run: the squeaky wheel, for about as many steps as `node_limit`
    /// nodes of depth-first search cost.
    squeaky: bool,
    /// Nonzero: the seed of random factors on the order's first key (ties broken afresh).
    noise: u64,
}

/// Depth-first runs a round adds with the first key of an order scaled by random factors.
const NOISY_RUNS: u64 = 2;

/// How a round ended.
enum RoundEnd {
    Found(Vec<u64>),
    Exhausted,
    OutOfBudget,
    /// Every run reached its node limit.
    NextRound,
}

/// What one finished run reports: its outcome, the steps it used, its placement if found.
struct RunReport {
    run: Run,
    steps: u64,
    offsets: Option<Vec<u64>>,
}

/// One round of runs, played by any number of threads with a result that does not depend on
/// how many.
///
/// The round is charged as if its runs went one after the other, each with the budget the
/// earlier ones left: run `i` counts only if it used fewer steps than that, and the first run
/// that does not, or that finds a placement or proves there is none, ends the round. A run
/// behaves the same under any budget it does not use up, so a thread may start run `i` with
/// more budget (before the earlier runs have reported) without changing what is charged or
/// returned. Runs after the one that ends the round are cancelled; their reports are never read.
struct Round<'r> {
    runs: &'r [RunSpec],
    /// The squeaky wheel's state, carried from round to round (one run a round uses it).
    wheel: &'r Mutex<Squeaky>,
    ledger: Mutex<Ledger>,
    next: AtomicUsize,
    /// Set from outside to stop the whole search.
    stop: &'r AtomicBool,
}

/// The in-order charging of a round's runs.
struct Ledger {
    reports: Vec<Option<RunReport>>,
    /// Set to stop a started run that the round no longer needs.
    cancels: Vec<Option<Arc<AtomicBool>>>,
    /// Runs charged so far (a prefix).
    charged: usize,
    /// Budget left after the charged runs.
    left: u64,
    end: Option<RoundEnd>,
}

impl<'r> Round<'r> {
    fn new(
        runs: &'r [RunSpec],
        budget: u64,
        wheel: &'r Mutex<Squeaky>,
        stop: &'r AtomicBool,
    ) -> Self {
        Round {
            runs,
            wheel,
            stop,
            ledger: Mutex::new(Ledger {
                reports: runs.iter().map(|_| None).collect(),
                cancels: runs.iter().map(|_| None).collect(),
                charged: 0,
                left: budget,
                end: None,
            }),
            next: AtomicUsize::new(0),
        }
    }

    /// Plays the round with one thread per state; returns how it ended and the budget left.
    fn play(self, states: &mut [State<'_>]) -> (RoundEnd, u64) {
        match states {
            [] => {}
            [only] => self.work(only),
            [first, rest @ ..] => std::thread::scope(|scope| {
                for state in rest {
                    let round = &self;
                    scope.spawn(move || round.work(state));
                }
                self.work(first);
            }),
        }
        let ledger = self.ledger.into_inner().unwrap_or_else(|e| e.into_inner());
        let end = ledger.end.unwrap_or(RoundEnd::NextRound);
        (end, ledger.left)
    }

    /// Takes runs in index order until none is left or needed.
    fn work(&self, state: &mut State<'_>) {
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= self.runs.len() {
                return;
            }
            let cancel = Arc::new(AtomicBool::new(false));
            // At least what run `i` is charged against: the budget left by the runs charged
            // so far (the others only lower it further).
            let mut budget = {
                let mut ledger = self.lock();
                if ledger.end.is_some() && i >= ledger.charged {
                    return; // the round ended before run `i`
                }
                ledger.cancels[i] = Some(Arc::clone(&cancel));
                ledger.left
            };
            let before = budget;
            let spec = self.runs[i];
            let (run, offsets) = if spec.squeaky {
                // About what `node_limit` nodes of a depth-first run cost.
                let limit = spec
                    .node_limit
                    .saturating_mul(2 * state.free.len() as u64 + 2);
                let mut wheel = self.wheel.lock().unwrap_or_else(|e| e.into_inner());
                match wheel.run(
                    state.items,
                    state.capacity,
                    &mut budget,
                    limit,
                    [&*cancel, self.stop],
                ) {
                    Some(offsets) => (Run::Found, Some(offsets)),
                    None if cancel.load(Ordering::Relaxed) || self.stop.load(Ordering::Relaxed) => {
                        (Run::Cancelled, None)
                    }
                    None if budget == 0 => (Run::OutOfBudget, None),
                    None => (Run::NodeLimit, None),
                }
            } else {
                state.set_order(spec.order, spec.noise);
                state.rerank_parts = spec.rerank;
                state.cancel = Some(cancel);
                let outcome = state.run(&mut budget, spec.node_limit);
                state.cancel = None;
                outcome
            };
            self.report(
                i,
                RunReport {
                    run,
                    steps: before - budget,
                    offsets,
                },
            );
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Ledger> {
        self.ledger.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records run `i`'s report and charges every run now reported in order.
    fn report(&self, i: usize, report: RunReport) {
        let mut ledger = self.lock();
        ledger.reports[i] = Some(report);
        while ledger.end.is_none() && ledger.charged < self.runs.len() {
            let at = ledger.charged;
            let Some(report) = ledger.reports[at].take() else {
                break;
            };
            ledger.charged += 1;
            let end = if report.steps >= ledger.left || matches!(report.run, Run::OutOfBudget) {
                ledger.left = 0;
                Some(RoundEnd::OutOfBudget)
            } else {
                ledger.left -= report.steps;
                match report.run {
                    Run::Found => Some(RoundEnd::Found(report.offsets.unwrap_or_default())),
                    Run::Exhausted => Some(RoundEnd::Exhausted),
                    Run::NodeLimit => None,
                    // Only runs after the end are cancelled, and the loop stops at the end.
                    Run::OutOfBudget | Run::Cancelled => Some(RoundEnd::OutOfBudget),
                }
            };
            if end.is_some() {
                for cancel in ledger.cancels[at + 1..].iter().flatten() {
                    cancel.store(true, Ordering::Relaxed);
                }
                ledger.end = end;
            }
        }
    }
}

/// Rounds in which every order is also tried with parts ranked as at the root.
const STATIC_ROUNDS: u32 = 4;

enum Run {
    Found,
    Exhausted,
    OutOfBudget,
    NodeLimit,
    /// The round ended at an earlier run: this one's result is not needed.
    Cancelled,
}

/// A pinned buffer, as an obstacle the searched buffers must go around.
#[derive(Clone, Copy)]
struct Obstacle {
    start: u64,
    end: u64,
}

/// One placement, with what is needed to take it back.
struct Undo {
    item: u32,
    last_offset: u64,
    last_rank: u32,
    placed_any: bool,
    floor_log_len: usize,
    height_log_len: usize,
    /// No unplaced buffer was alive alongside it.
    hatless: bool,
}

/// The candidates of one search node.
struct Frame {
    /// (minimum offset, item), by offset then rank.
    candidates: Vec<(u64, u32)>,
    next: usize,
    /// Lowest top among the candidates: nothing at or above it goes next.
    min_top: u64,
    /// Stop trying candidates (a hatless child failed).
    done: bool,
    /// The part's unplaced items at this node (lent to `feasible` and `expand` while a
    /// candidate is tried; the child's frame keeps its own, without the candidate).
    open: Vec<u32>,
}

struct State<'a> {
    items: &'a [Item],
    capacity: u64,
    /// Items the search places (not pinned, non-empty), as indices into `items`.
    free: Vec<usize>,
    /// Size and alignment of each free item, and whether a pinned item is alive alongside it:
    /// what the inner loops read, kept compact (reading them through `items` and `obstacles`
    /// cost a third of the search's time in cache misses).
    size: Vec<u64>,
    align: Vec<u64>,
    obstructed: Vec<bool>,
    /// Section range `[lo, hi)` of each free item.
    span: Vec<(u32, u32)>,
    /// Free items alive at the same time as each free item.
    overlaps: Vec<Vec<u32>>,
    /// Pinned items alive at the same time as each free item, by start.
    obstacles: Vec<Vec<Obstacle>>,
    /// Position of each free item in the current buffer order.
    rank: Vec<u32>,
    /// Sort keys of each free item: lifetime, area, busiest section total.
    keys: Vec<(u64, u128, u64)>,
    floor: Vec<u64>,
    /// Per section: bytes of unplaced free items alive there.
    demand: Vec<u64>,
    /// Per pair of neighbouring sections `(s, s + 1)`: unplaced free items alive in both.
    bridges: Vec<u32>,
    /// Per free item: highest top among placed items alive alongside it.
    height: Vec<u64>,
    placed: Vec<bool>,
    offset: Vec<u64>,
    remaining: usize,
    last_offset: u64,
    /// Rank of the last item placed (`u32::MAX` below the root's first placement is never
    /// compared: the root has no last item).
    last_rank: u32,
    placed_any: bool,
    floor_log: Vec<(u32, u64)>,
    height_log: Vec<(u32, u64)>,
    undo: Vec<Undo>,
    /// Free items alive in each section, the unplaced ones first (the first `unplaced[s]`).
    covers: Vec<Vec<u32>>,
    /// Per section: how many of `covers[s]` are unplaced.
    unplaced: Vec<u32>,
    /// Where each free item is in `covers[s]`, for each section `s` of its span (in order,
    /// from `first[k]`). Placing an item swaps it behind the unplaced ones; taking placements
    /// back in reverse order only moves the boundary back.
    cover_at: Vec<u32>,
    /// Start of each free item's run in `cover_at`.
    first: Vec<usize>,
    /// Working memory of `feasible`: lowest offset each unplaced item can still take.
    lowest: Vec<u64>,
    /// Lowest offset each unplaced item of the part can take at or above its height: set by
    /// `feasible` for the `expand` that follows it (heights change only when items are
    /// placed), and by an `expand` that does not follow one.
    resting: Vec<u64>,
    /// The buffer order of the current run.
    order: [Key; 3],
    /// Whether independent parts found below the root are ranked afresh.
    rerank_parts: bool,
    /// Set by another thread when the current run is no longer needed.
    cancel: Option<Arc<AtomicBool>>,
    /// Set from outside to stop the whole search ([`search_until`]).
    stop: Arc<AtomicBool>,
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
        let obstacles = obstacles_of(items, &free);
        let demand = demand_per_section(items, &free, &span, sections);
        let incidences: usize = span.iter().map(|&(lo, hi)| (hi - lo) as usize).sum();
        if incidences > MAX_OVERLAPS {
            return None;
        }
        let mut covers = vec![Vec::new(); sections];
        let mut bridges = vec![0u32; sections.saturating_sub(1)];
        let mut cover_at = Vec::with_capacity(incidences);
        let mut first = Vec::with_capacity(span.len());
        for (k, &(lo, hi)) in span.iter().enumerate() {
            first.push(cover_at.len());
            for s in lo..hi {
                cover_at.push(covers[s as usize].len() as u32);
                covers[s as usize].push(k as u32);
            }
            for c in &mut bridges[lo as usize..(hi - 1) as usize] {
                *c += 1;
            }
        }
        let keys = free
            .iter()
            .enumerate()
            .map(|(k, &i)| {
                let it = &items[i];
                let width = it.upper - it.lower;
                let (lo, hi) = span[k];
                let total = demand[lo as usize..hi as usize]
                    .iter()
                    .copied()
                    .max()
                    .unwrap_or(0);
                (width, u128::from(width) * u128::from(it.size), total)
            })
            .collect();
        let n = free.len();
        Some(State {
            items,
            capacity,
            size: free.iter().map(|&i| items[i].size).collect(),
            align: free.iter().map(|&i| items[i].align).collect(),
            obstructed: obstacles.iter().map(|o| !o.is_empty()).collect(),
            free,
            span,
            overlaps,
            obstacles,
            rank: (0..n as u32).collect(),
            keys,
            floor: vec![0; sections],
            bridges,
            demand,
            height: vec![0; n],
            placed: vec![false; n],
            offset: vec![0; n],
            remaining: n,
            last_offset: 0,
            last_rank: 0,
            placed_any: false,
            floor_log: Vec::new(),
            height_log: Vec::new(),
            undo: Vec::new(),
            unplaced: covers.iter().map(|c| c.len() as u32).collect(),
            covers,
            cover_at,
            first,
            lowest: vec![0; n],
            resting: vec![0; n],
            order: ORDERS[0],
            rerank_parts: false,
            cancel: None,
            stop: Arc::new(AtomicBool::new(false)),
        })
    }

    /// Ranks the free items by `order` (descending keys, ties by index).
    fn set_order(&mut self, order: &[Key; 3], noise: u64) {
        self.order = *order;
        let key = |k: usize, which: Key| -> u128 {
            let (w, a, t) = self.keys[k];
            match which {
                Key::Width => u128::from(w),
                Key::Area => a,
                Key::Total => u128::from(t),
            }
        };
        // With noise, the first key times a factor in [1/2, 3/2) drawn per item (in 1/64ths).
        let factor = |k: usize| -> u128 {
            if noise == 0 {
                1
            } else {
                32 + u128::from(
                    crate::squeaky::mix(noise ^ (k as u64).wrapping_mul(0x9e37_79b9)) % 64,
                )
            }
        };
        let mut by: Vec<usize> = (0..self.free.len()).collect();
        by.sort_by_key(|&k| {
            let mut keys = order.map(|which| key(k, which));
            keys[0] = keys[0].saturating_mul(factor(k));
            (Reverse(keys), k)
        });
        for (r, &k) in by.iter().enumerate() {
            self.rank[k] = r as u32;
        }
    }

    /// Depth-first search from the empty placement, at most `node_limit` nodes. Returns the
    /// placement if it finds one, and leaves the state empty again either way.
    fn run(&mut self, budget: &mut u64, node_limit: u64) -> (Run, Option<Vec<u64>>) {
        let all: Vec<u32> = (0..self.free.len() as u32).collect();
        let mut nodes = 0u64;
        let outcome = self.solve(&all, budget, &mut nodes, node_limit, 0);
        let offsets = matches!(outcome, Run::Found).then(|| self.result());
        while !self.undo.is_empty() {
            self.retract();
        }
        (outcome, offsets)
    }

    /// Places the unplaced items of `part` (a set of items whose sections no other unplaced
    /// item shares) on top of the current state. On success the placements stay applied;
    /// on `Exhausted` the state is as it was.
    fn solve(
        &mut self,
        part: &[u32],
        budget: &mut u64,
        nodes: &mut u64,
        node_limit: u64,
        depth: usize,
    ) -> Run {
        let saved = (self.last_offset, self.last_rank, self.placed_any);
        // Canonical order is per independent part: its offsets start over, and its buffers
        // are ranked afresh by what is left (the busiest section now, not at the start).
        self.last_offset = 0;
        self.placed_any = false;
        let saved_ranks: Vec<u32> = if depth > 0 && self.rerank_parts {
            let ranks = part.iter().map(|&k| self.rank[k as usize]).collect();
            self.rerank(part, budget);
            ranks
        } else {
            Vec::new()
        };
        let base = self.undo.len();
        let range = self.section_range(part);
        let mut stack = vec![self.expand(part, part.len(), budget, false)];
        let outcome = loop {
            if *budget == 0 {
                break Run::OutOfBudget;
            }
            if *nodes >= node_limit {
                break Run::NodeLimit;
            }
            if self
                .cancel
                .as_ref()
                .is_some_and(|c| c.load(Ordering::Relaxed))
                || self.stop.load(Ordering::Relaxed)
            {
                break Run::Cancelled;
            }
            let Some(top) = stack.last_mut() else {
                break Run::Exhausted;
            };
            if top.done || top.next == top.candidates.len() {
                stack.pop();
                if !stack.is_empty() && self.retract() {
                    if let Some(parent) = stack.last_mut() {
                        parent.done = true;
                    }
                }
                continue;
            }
            let (at, k) = top.candidates[top.next];
            top.next += 1;
            let rank = self.rank[k as usize];
            if self.placed_any
                && (at < self.last_offset || (at == self.last_offset && rank < self.last_rank))
            {
                continue; // not canonical: this order is tried the other way round
            }
            if at >= top.min_top {
                top.done = true; // dominated, and so is every later candidate
                continue;
            }
            *nodes += 1;
            // This node's unplaced items: all its children need to look at (not the part).
            let open = std::mem::take(&mut top.open);
            let split = self.apply(k, at);
            let mut alive = self.feasible(&open, part.len(), range, budget);
            if alive && self.undo.len() - base == part.len() {
                break Run::Found;
            }
            if alive && split && depth < MAX_NESTING {
                let pieces = self.pieces(part);
                if pieces.len() > 1 {
                    match self.solve_pieces(&pieces, budget, nodes, node_limit, depth) {
                        Run::Found => break Run::Found,
                        Run::Exhausted => alive = false,
                        other => break other,
                    }
                }
            }
            if !alive {
                let hatless = self.retract();
                if let Some(top) = stack.last_mut() {
                    top.done |= hatless;
                    top.open = open;
                }
                continue;
            }
            // `feasible` has just looked at these items in this state.
            let child = self.expand(&open, part.len(), budget, true);
            if let Some(top) = stack.last_mut() {
                top.open = open;
            }
            stack.push(child);
        };
        (self.last_offset, self.last_rank, self.placed_any) = saved;
        for (&k, &r) in part.iter().zip(&saved_ranks) {
            self.rank[k as usize] = r;
        }
        debug_assert!(
            matches!(outcome, Run::Found)
                || !matches!(outcome, Run::Exhausted)
                || self.undo.len() == base
        );
        outcome
    }

    /// Ranks the unplaced items of `part` by the current order, the busiest-section key taken
    /// from the bytes still to place (ties by index), after the ranks of everything else.
    fn rerank(&mut self, part: &[u32], budget: &mut u64) {
        *budget = budget.saturating_sub(part.len() as u64);
        let mut by: Vec<(Reverse<[u128; 3]>, u32)> = part
            .iter()
            .filter(|&&k| !self.placed[k as usize])
            .map(|&k| {
                let (w, a, _) = self.keys[k as usize];
                let (lo, hi) = self.span[k as usize];
                let t = self.demand[lo as usize..hi as usize]
                    .iter()
                    .copied()
                    .max()
                    .unwrap_or(0);
                let key = self.order.map(|which| match which {
                    Key::Width => u128::from(w),
                    Key::Area => a,
                    Key::Total => u128::from(t),
                });
                (Reverse(key), k)
            })
            .collect();
        by.sort_unstable();
        for (r, &(_, k)) in by.iter().enumerate() {
            self.rank[k as usize] = r as u32;
        }
    }

    /// Solves independent pieces one after the other; if one fails, takes back what the
    /// others placed.
    fn solve_pieces(
        &mut self,
        pieces: &[Vec<u32>],
        budget: &mut u64,
        nodes: &mut u64,
        node_limit: u64,
        depth: usize,
    ) -> Run {
        let mark = self.undo.len();
        let saved = (self.last_offset, self.last_rank, self.placed_any);
        for piece in pieces {
            match self.solve(piece, budget, nodes, node_limit, depth + 1) {
                Run::Found => {}
                other => {
                    while self.undo.len() > mark {
                        self.retract();
                    }
                    (self.last_offset, self.last_rank, self.placed_any) = saved;
                    return other;
                }
            }
        }
        Run::Found
    }

    /// Sections `[lo, hi)` spanned by the items of `part`.
    fn section_range(&self, part: &[u32]) -> (u32, u32) {
        let lo = part
            .iter()
            .map(|&k| self.span[k as usize].0)
            .min()
            .unwrap_or(0);
        let hi = part
            .iter()
            .map(|&k| self.span[k as usize].1)
            .max()
            .unwrap_or(0);
        (lo, hi)
    }

    /// The unplaced items of `part`, grouped into parts that share no section.
    fn pieces(&self, part: &[u32]) -> Vec<Vec<u32>> {
        let mut open: Vec<u32> = part
            .iter()
            .copied()
            .filter(|&k| !self.placed[k as usize])
            .collect();
        open.sort_by_key(|&k| (self.span[k as usize].0, k));
        let mut pieces: Vec<Vec<u32>> = Vec::new();
        let mut reach = 0u32;
        for k in open {
            let (lo, hi) = self.span[k as usize];
            match pieces.last_mut() {
                Some(piece) if lo < reach => {
                    piece.push(k);
                    reach = reach.max(hi);
                }
                _ => {
                    pieces.push(vec![k]);
                    reach = hi;
                }
            }
        }
        pieces
    }

    fn result(&self) -> Vec<u64> {
        let mut offsets: Vec<u64> = self.items.iter().map(|it| it.fixed.unwrap_or(0)).collect();
        for (k, &i) in self.free.iter().enumerate() {
            offsets[i] = self.offset[k];
        }
        offsets
    }

    /// Lowest offset free item `k` can take at or above `from`: aligned, above obstacles.
    #[inline(always)]
    fn position(&self, k: usize, from: u64) -> u64 {
        let at = round_up(from, self.align[k]);
        if !self.obstructed[k] {
            at // the usual case, in the search's inner loops
        } else {
            self.position_among_obstacles(k, at)
        }
    }

    /// [`Self::position`] from an aligned `at`, for an item with pinned neighbours.
    fn position_among_obstacles(&self, k: usize, mut at: u64) -> u64 {
        let item = &self.items[self.free[k]];
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

    /// The candidates of the current node worth trying, by (minimum offset, rank): those the
    /// canonical order allows next and that are not dominated. `items` holds every unplaced
    /// item of the part (and maybe placed ones), `part_len` is the part's size (what is
    /// charged). With `after_feasible`, the positions `feasible` left for `items` in this very
    /// state are used instead of recomputed.
    fn expand(
        &mut self,
        items: &[u32],
        part_len: usize,
        budget: &mut u64,
        after_feasible: bool,
    ) -> Frame {
        *budget = budget.saturating_sub(part_len as u64 + 1);
        let mut min_top = u64::MAX;
        let mut open = Vec::with_capacity(items.len());
        for &k in items {
            let ku = k as usize;
            if !self.placed[ku] {
                if !after_feasible {
                    self.resting[ku] = self.position(ku, self.height[ku]);
                }
                min_top = min_top.min(self.resting[ku] + self.size[ku]);
                open.push(k);
            }
        }
        let mut candidates = Vec::new();
        for &k in &open {
            let ku = k as usize;
            let at = self.resting[ku];
            let canonical = !self.placed_any
                || at > self.last_offset
                || (at == self.last_offset && self.rank[ku] > self.last_rank);
            if canonical && at < min_top {
                candidates.push((at, k));
            }
        }
        candidates.sort_unstable_by_key(|&(at, k)| (at, self.rank[k as usize]));
        Frame {
            candidates,
            next: 0,
            min_top,
            done: false,
            open,
        }
    }

    /// Whether the current partial placement can still be completed, as far as the bounds
    /// can tell: every unplaced buffer fits, and every section holds what is still to come.
    /// `items` holds every unplaced item of the part (and maybe placed ones), `part_len` is
    /// the part's size (what is charged).
    fn feasible(
        &mut self,
        items: &[u32],
        part_len: usize,
        (from, to): (u32, u32),
        budget: &mut u64,
    ) -> bool {
        *budget = budget.saturating_sub((part_len + (to - from) as usize) as u64 + 1);
        let last = self.last_offset;
        let last_rank = self.last_rank;
        for &k in items {
            let k = k as usize;
            if self.placed[k] {
                continue;
            }
            let at = self.position(k, self.height[k]);
            self.resting[k] = at;
            let can_go_next = at > last || (at == last && self.rank[k] > last_rank);
            // Otherwise it must rest on something placed later, strictly above `last`.
            let low = if can_go_next {
                at
            } else {
                self.position(k, last + 1)
            };
            if low + self.size[k] > self.capacity {
                return false;
            }
            self.lowest[k] = low;
        }
        // Each section: the unplaced buffers alive there stack up from the lowest offset any
        // of them can take; that plus their total size must fit.
        for s in from as usize..to as usize {
            let demand = self.demand[s];
            if demand == 0 {
                continue;
            }
            *budget = budget.saturating_sub(self.covers[s].len() as u64 / 8);
            // Some unplaced buffer there must be able to start at or below `room`: looking
            // stops at the first that can (usually one of the first few).
            let Some(room) = self.capacity.checked_sub(demand) else {
                return false;
            };
            if !self.covers[s][..self.unplaced[s] as usize]
                .iter()
                .any(|&k| self.lowest[k as usize] <= room)
            {
                return false;
            }
        }
        true
    }

    /// Places free item `k` at `at`; returns whether some pair of neighbouring sections is no
    /// longer bridged by any unplaced item (the problem may have split).
    fn apply(&mut self, k: u32, at: u64) -> bool {
        let ku = k as usize;
        let size = self.size[ku];
        let top = at + size;
        let undo = Undo {
            item: k,
            last_offset: self.last_offset,
            last_rank: self.last_rank,
            placed_any: self.placed_any,
            floor_log_len: self.floor_log.len(),
            height_log_len: self.height_log.len(),
            hatless: true,
        };
        self.undo.push(undo);
        self.last_offset = at;
        self.last_rank = self.rank[ku];
        self.placed_any = true;
        self.placed[ku] = true;
        self.offset[ku] = at;
        self.remaining -= 1;
        let (lo, hi) = self.span[ku];
        for s in lo..hi {
            let su = s as usize;
            self.floor_log.push((s, self.floor[su]));
            self.floor[su] = top;
            self.demand[su] -= size;
            // Swap `k` with the last unplaced item of the section and move the boundary.
            let at = self.cover_at[self.first[ku] + (s - lo) as usize] as usize;
            self.unplaced[su] -= 1;
            let last = self.unplaced[su] as usize;
            let other = self.covers[su][last] as usize;
            self.covers[su].swap(at, last);
            self.cover_at[self.first[other] + (s - self.span[other].0) as usize] = at as u32;
            self.cover_at[self.first[ku] + (s - lo) as usize] = last as u32;
        }
        let mut hatless = true;
        for &j in &self.overlaps[ku] {
            let ju = j as usize;
            if !self.placed[ju] {
                hatless = false;
                if self.height[ju] < top {
                    self.height_log.push((j, self.height[ju]));
                    self.height[ju] = top;
                }
            }
        }
        if let Some(u) = self.undo.last_mut() {
            u.hatless = hatless;
        }
        let mut split = false;
        for c in &mut self.bridges[lo as usize..(hi - 1) as usize] {
            *c -= 1;
            split |= *c == 0;
        }
        split
    }

    /// Takes back the last placement; returns whether it was hatless.
    fn retract(&mut self) -> bool {
        let Some(u) = self.undo.pop() else {
            return false;
        };
        let ku = u.item as usize;
        let size = self.size[ku];
        while self.floor_log.len() > u.floor_log_len {
            let Some((s, old)) = self.floor_log.pop() else {
                break;
            };
            self.floor[s as usize] = old;
            self.demand[s as usize] += size;
        }
        while self.height_log.len() > u.height_log_len {
            let Some((j, old)) = self.height_log.pop() else {
                break;
            };
            self.height[j as usize] = old;
        }
        let (lo, hi) = self.span[ku];
        for c in &mut self.bridges[lo as usize..(hi - 1) as usize] {
            *c += 1;
        }
        // `k` sits just behind the unplaced items of each section it spans (what was placed
        // after it has been taken back): moving the boundary takes it back in.
        for s in lo as usize..hi as usize {
            self.unplaced[s] += 1;
            debug_assert_eq!(self.covers[s][self.unplaced[s] as usize - 1], u.item);
        }
        self.placed[ku] = false;
        self.remaining += 1;
        self.last_offset = u.last_offset;
        self.last_rank = u.last_rank;
        self.placed_any = u.placed_any;
        u.hatless
    }
}

/// Bytes of free items alive in each section: O(items + sections) with a difference array.
fn demand_per_section(
    items: &[Item],
    free: &[usize],
    span: &[(u32, u32)],
    sections: usize,
) -> Vec<u64> {
    let mut diff = vec![0i128; sections + 1];
    for (k, &(lo, hi)) in span.iter().enumerate() {
        diff[lo as usize] += i128::from(items[free[k]].size);
        diff[hi as usize] -= i128::from(items[free[k]].size);
    }
    let mut running = 0i128;
    diff.iter()
        .take(sections)
        .map(|d| {
            running += d;
            running as u64
        })
        .collect()
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
        if pairs > MAX_OVERLAPS {
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
        Item::free(size, lower, upper)
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
        match search(&items, 12, &mut budget, 1) {
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
        assert_eq!(search(&items, 11, &mut budget, 2), Outcome::Exhausted);
        // Bound 8, but the pair alive at instant 1 cannot also sit around the long buffer.
        let items = [
            item(4, 0, 2),
            item(4, 2, 4),
            item(4, 1, 3),
            item(2, 0, 1),
            item(2, 3, 4),
        ];
        let mut budget = 1_000_000;
        assert!(matches!(
            search(&items, 12, &mut budget, 1),
            Outcome::Found(_)
        ));
    }

    fn spec() -> RunSpec {
        RunSpec {
            order: &ORDERS[0],
            rerank: true,
            node_limit: 1,
            squeaky: false,
            noise: 0,
        }
    }

    fn report(run: Run, steps: u64, found: bool) -> RunReport {
        RunReport {
            run,
            steps,
            offsets: found.then(|| vec![7]),
        }
    }

    /// How the round ended (so far) and the budget it left.
    fn ending(round: &Round<'_>) -> (&'static str, u64) {
        let ledger = round.lock();
        let end = match ledger.end {
            None | Some(RoundEnd::NextRound) => "not yet",
            Some(RoundEnd::Found(_)) => "found",
            Some(RoundEnd::Exhausted) => "exhausted",
            Some(RoundEnd::OutOfBudget) => "out of budget",
        };
        (end, ledger.left)
    }

    #[test]
    fn a_round_is_charged_in_run_order_whatever_order_runs_report_in() {
        let runs = [spec(), spec(), spec()];
        let items = [item(1, 0, 1)];
        let wheel = Mutex::new(Squeaky::new(&items, vec![0]));
        // Run 1 finds a placement before run 0 reports: charged after run 0's 20 steps.
        let never = AtomicBool::new(false);
        let round = Round::new(&runs, 100, &wheel, &never);
        round.report(1, report(Run::Found, 10, true));
        assert_eq!(ending(&round), ("not yet", 100));
        round.report(0, report(Run::NodeLimit, 20, false));
        assert_eq!(ending(&round), ("found", 70));
        // Run 1 was given more than run 0 left it: with 95 spent first, its 10 steps are over
        // budget, as they would have been on one thread.
        let never = AtomicBool::new(false);
        let round = Round::new(&runs, 100, &wheel, &never);
        round.report(1, report(Run::Found, 10, true));
        round.report(0, report(Run::NodeLimit, 95, false));
        assert_eq!(ending(&round), ("out of budget", 0));
        // An earlier run's end wins over a later run's, and a later run still going is
        // cancelled.
        let never = AtomicBool::new(false);
        let round = Round::new(&runs, 100, &wheel, &never);
        let cancel = Arc::new(AtomicBool::new(false));
        round.lock().cancels[2] = Some(Arc::clone(&cancel));
        round.report(1, report(Run::Exhausted, 5, false));
        round.report(0, report(Run::Found, 5, true));
        assert!(cancel.load(Ordering::Relaxed));
        assert_eq!(ending(&round), ("found", 95));
        // Every run at its node limit: on to the next round, charged for all three.
        let never = AtomicBool::new(false);
        let round = Round::new(&runs, 100, &wheel, &never);
        for i in [2, 0, 1] {
            round.report(i, report(Run::NodeLimit, 30, false));
        }
        assert_eq!(ending(&round), ("not yet", 10));
    }

    #[test]
    fn stops_when_the_budget_is_spent() {
        let items: Vec<Item> = (0..30).map(|i| item(3 + i % 7, i % 5, i % 5 + 3)).collect();
        let mut budget = 10;
        assert_eq!(search(&items, 1000, &mut budget, 2), Outcome::OutOfBudget);
    }

    #[test]
    fn noisy_orders_differ_from_the_plain_one_and_repeat_for_a_seed() {
        let items: Vec<Item> = (0..40).map(|i| item(1 + i % 9, i % 7, i % 7 + 4)).collect();
        let mut state = State::new(&items, 1000).expect("small enough");
        let ranks = |state: &mut State, noise: u64| {
            state.set_order(&ORDERS[0], noise);
            state.rank.clone()
        };
        let plain = ranks(&mut state, 0);
        let noisy = ranks(&mut state, 7);
        assert_ne!(plain, noisy);
        assert_eq!(noisy, ranks(&mut state, 7));
        assert_ne!(noisy, ranks(&mut state, 8));
        // Still a ranking: every item once.
        let mut sorted = noisy.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..40).collect::<Vec<u32>>());
    }
}
