//! The planner: constructive placement, then search where it pays, then the checker.

use std::cmp::Reverse;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use thiserror::Error;

use crate::bound::{items_lower_bound, lower_bound};
use crate::components::independent_groups;
use crate::construct::{
    busiest_moment_first, place, place_shaped, size_descending, tflm_order, Busiest, Fit,
};
use crate::ended::{Ended, Patience, Stall};
use crate::item::{arena_of, Item};
use crate::problem::{Problem, ProblemError};
use crate::rigid::{Part, Units};
use crate::search::{search_until, Outcome};
use crate::verify::{verify, VerifyError};

/// Default search budget in steps (one step: one buffer or instant examined). About ten
/// seconds of search on this project's two-core reference machine when all of it is used
/// (fifteen on one core).
/// The smallest-arena search usually ends well before, when it stops improving
/// ([`crate::Patience`]).
pub const DEFAULT_STEP_BUDGET: u64 = 4_000_000_000;

/// What the search aims for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Goal {
    /// The smallest arena: search until the lower bound is reached or the budget is spent.
    /// With a capacity, fitting it comes first: the whole budget is there for that, and what
    /// is left goes to smaller arenas.
    #[default]
    Smallest,
    /// Any arena within the problem's capacity: stop as soon as one is found (the question
    /// MiniMalloc answers). Without a capacity this is the same as [`Goal::Smallest`].
    FitCapacity,
}

/// A finished, verified plan.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Plan {
    /// One offset per buffer, in the problem's order.
    pub offsets: Vec<u64>,
    /// Bytes the pool must provide: the highest `offset + padded size`.
    pub arena: u64,
    /// The problem's lower bound (see [`lower_bound`]).
    pub lower_bound: u64,
    /// Search steps used, out of the budget.
    pub steps: u64,
    /// Whether a search was cut short by [`Planner::stop_flag`]: the plan is the best verified
    /// one found by then, not (necessarily) the one the budget gives.
    pub stopped: bool,
    /// What ended the planner's work: why the arena is what it is.
    pub ended: Ended,
}

impl Plan {
    /// How far the arena is above the lower bound, in percent of the bound.
    pub fn gap_percent(&self) -> f64 {
        if self.lower_bound == 0 {
            return 0.0;
        }
        (self.arena - self.lower_bound) as f64 * 100.0 / self.lower_bound as f64
    }
}

/// Why no plan came out.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PlanError {
    /// The problem itself is malformed.
    #[error(transparent)]
    Invalid(#[from] ProblemError),
    /// The best plan found needs more than the pool's capacity.
    #[error(
        "no plan fits the capacity of {capacity} bytes: the best found needs {arena} bytes \
         ({over} over; the lower bound is {lower_bound})",
        over = arena - capacity
    )]
    DoesNotFit {
        /// The best arena found.
        arena: u64,
        /// The pool's capacity.
        capacity: u64,
        /// The lower bound: below it nothing can fit.
        lower_bound: u64,
    },
    /// Planning was stopped ([`Planner::stop_flag`]) before a plan within the capacity was
    /// found: the search did not say that none exists.
    #[error(
        "stopped before a plan within the capacity of {capacity} bytes was found (the best so \
         far needs {arena} bytes); give it more time"
    )]
    Stopped {
        /// The best arena found by then.
        arena: u64,
        /// The pool's capacity.
        capacity: u64,
    },
    /// The checker rejected the planner's result. This is a bug in arenaplan; please report it
    /// with the input.
    #[error("internal error, please report: the planner produced an invalid plan: {0}")]
    Unverified(VerifyError),
}

/// Plans problems. Settings are changed through `&mut self` methods.
///
/// ```
/// use arenaplan_planner::{Buffer, Planner, Problem};
/// // Greedy by size puts the 4-byte buffers side by side and the 6-byte one above: 14 bytes.
/// // The search finds the 10-byte arrangement, which is the lower bound.
/// let p = Problem::new(vec![
///     Buffer::new(4, 0, 2), Buffer::new(4, 1, 3), Buffer::new(6, 2, 4), Buffer::new(6, 0, 1),
/// ]);
/// let plan = Planner::new().step_budget(10_000).plan(&p).unwrap();
/// assert_eq!(plan.arena, plan.lower_bound);
/// ```
#[derive(Clone, Debug)]
pub struct Planner {
    step_budget: u64,
    goal: Goal,
    threads: usize,
    stop: Option<Arc<AtomicBool>>,
    progress: Option<ProgressFn>,
    patience: Patience,
}

impl Default for Planner {
    fn default() -> Self {
        Planner {
            patience: Patience::default(),
            step_budget: DEFAULT_STEP_BUDGET,
            goal: Goal::Smallest,
            threads: default_threads(),
            stop: None,
            progress: None,
        }
    }
}

/// What the planner is doing, reported to [`Planner::on_progress`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Phase {
    /// The constructive placements are done.
    Constructed,
    /// Searching for a plan within the capacity.
    FittingCapacity,
    /// Searching for a plan at the lower bound.
    ReachingBound,
    /// Lowering the best arena towards the bound, from above (the name is older than the
    /// method: it once bisected).
    Bisecting,
}

/// A snapshot of the planner's work ([`Planner::on_progress`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Progress {
    /// What it is doing.
    pub phase: Phase,
    /// The best arena found so far.
    pub arena: u64,
    /// The lower bound.
    pub lower_bound: u64,
    /// Steps used so far.
    pub steps: u64,
}

/// A progress callback, shared by clones of a planner.
#[derive(Clone)]
struct ProgressFn(Arc<dyn Fn(&Progress) + Send + Sync>);

impl std::fmt::Debug for ProgressFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProgressFn")
    }
}

/// What every search of one `plan` call shares.
struct Work {
    threads: usize,
    stop: Arc<AtomicBool>,
    /// Whether a search was cut short by the stop (the plan is then not the budget's).
    cut: std::cell::Cell<bool>,
    /// What the smallest-arena search may still spend without improving.
    stall: Stall,
}

/// Most threads the planner uses by default: its parallel work comes in a few pieces at a
/// time (construction candidates, a round's search runs), so more rarely pays.
const MAX_DEFAULT_THREADS: usize = 4;

/// The machine's parallelism, at most [`MAX_DEFAULT_THREADS`].
fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_DEFAULT_THREADS)
}

impl Planner {
    /// A planner with the default budget and [`Goal::Smallest`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the search budget in steps; 0 keeps the constructive placement as it is.
    pub fn step_budget(&mut self, steps: u64) -> &mut Self {
        self.step_budget = steps;
        self
    }

    /// Sets how long the smallest-arena search goes on without finding a smaller arena
    /// (default: [`Patience::PerBuffer`] of [`crate::DEFAULT_PATIENCE_PER_BUFFER`] steps);
    /// [`Patience::Unlimited`] spends the whole budget. Steps, not time: the plan is the same
    /// anywhere. [`Plan::ended`] says whether it ended the search.
    ///
    /// ```
    /// use arenaplan_planner::{Buffer, Ended, Patience, Planner, Problem};
    /// let p = Problem::new((0..40).map(|i| Buffer::new(8 + i % 5, i % 7, i % 7 + 3)).collect());
    /// let plan = Planner::new().patience(Patience::Unlimited).plan(&p).unwrap();
    /// assert_ne!(plan.ended, Ended::NoImprovement { steps: 0 });
    /// ```
    pub fn patience(&mut self, patience: Patience) -> &mut Self {
        self.patience = patience;
        self
    }

    /// Sets what the search aims for.
    pub fn goal(&mut self, goal: Goal) -> &mut Self {
        self.goal = goal;
        self
    }

    /// Sets how many threads may work at once (0 counts as 1). The default is the machine's
    /// parallelism, at most 4. The plan, and the steps it used, are the same at any thread
    /// count: threads only change how soon it comes.
    ///
    /// ```
    /// use arenaplan_planner::{Buffer, Planner, Problem};
    /// let p = Problem::new((0..40).map(|i| Buffer::new(8 + i % 5, i % 7, i % 7 + 3)).collect());
    /// let one = Planner::new().threads(1).plan(&p).unwrap();
    /// let two = Planner::new().threads(2).plan(&p).unwrap();
    /// assert_eq!(one, two);
    /// ```
    pub fn threads(&mut self, threads: usize) -> &mut Self {
        self.threads = threads.max(1);
        self
    }

    /// Stops planning early once `flag` is set (by a deadline or Ctrl-C): the plan returned is
    /// the best verified one found by then, marked [`Plan::stopped`] when a search was cut short
    /// (a plan found without searching, or before the flag was set, is the budget's own). With
    /// a capacity not yet reached, planning fails with [`PlanError::Stopped`]. Without the flag
    /// set, the result is the deterministic one of the step budget.
    ///
    /// ```
    /// use std::sync::{atomic::AtomicBool, Arc};
    /// use arenaplan_planner::{Buffer, Planner, Problem};
    /// let p = Problem::new((0..40).map(|i| Buffer::new(8 + i % 5, i % 7, i % 7 + 3)).collect());
    /// let plan = Planner::new().stop_flag(Arc::new(AtomicBool::new(true))).plan(&p).unwrap();
    /// // Stopped before any search: the constructive placement, marked if a search was cut.
    /// assert!(plan.arena >= plan.lower_bound);
    /// assert_eq!(plan.stopped, plan.arena > plan.lower_bound);
    /// ```
    pub fn stop_flag(&mut self, flag: Arc<AtomicBool>) -> &mut Self {
        self.stop = Some(flag);
        self
    }

    /// Calls `f` as the planner moves on (after the constructive placements, and at the start
    /// and end of each phase of search): for a progress display. It never changes the plan.
    pub fn on_progress(&mut self, f: impl Fn(&Progress) + Send + Sync + 'static) -> &mut Self {
        self.progress = Some(ProgressFn(Arc::new(f)));
        self
    }

    fn report(&self, phase: Phase, groups: &[Group], lower_bound: u64, budget: u64) {
        if let Some(ProgressFn(f)) = &self.progress {
            f(&Progress {
                phase,
                arena: groups.iter().map(|g| g.arena).max().unwrap_or(0),
                lower_bound,
                steps: self.step_budget - budget,
            });
        }
    }

    /// Plans `problem` and proves the result with the independent checker.
    ///
    /// A buffer that holds others ([`crate::Inside`]) is planned with them as one unit: the
    /// exact constructions place its shape, the search its box (see the crate README).
    pub fn plan(&self, problem: &Problem) -> Result<Plan, PlanError> {
        problem.validate()?;
        let units = Units::of(problem);
        let items = &units.items;
        let bound = lower_bound(problem);

        // Every baseline the crate ships is a starting point (TFLM's greedy is one of the
        // constructive placements): the plan is never worse than any of them. With groups,
        // the starting points are the exact placements of their shapes instead, and they come
        // first: the boxes' placements can only tie with them where a box is its shape.
        let pinned = problem.buffers.iter().any(|b| b.fixed_offset.is_some());
        let mut apart_steps = 0;
        let (baselines, shaped_first): (Vec<Vec<u64>>, bool) = if units.any_groups() {
            let mut placements = shaped_placements(items, &units.shapes);
            // The problem with every member a buffer of its own, apart from the one it was
            // inside, is planned (construction and search, with a quarter of the budget): its
            // layout, read bottom up, is an order in which the units' shapes often stack as
            // tightly (the boxes alone say nothing of the gaps a shape leaves). Only its order
            // is used.
            let apart = Problem {
                inside: Vec::new(),
                ..problem.clone()
            };
            let mut helper = self.clone();
            helper.step_budget(self.step_budget / 4).on_progress(|_| {});
            if let Ok(plan) = helper.plan(&apart) {
                apart_steps = plan.steps;
                let at = units.unit_offsets(&plan.offsets);
                let mut order: Vec<usize> = (0..items.len()).collect();
                order.sort_by_key(|&u| (items[u].fixed.is_none(), at[u], u));
                for fit in [Fit::First, Fit::Best] {
                    placements.push(place_shaped(items, &units.shapes, &order, fit));
                }
            }
            (placements, true)
        } else if pinned {
            (Vec::new(), false)
        } else {
            let whole = [
                crate::baseline::executorch_greedy(problem),
                crate::baseline::bump(problem),
            ];
            (whole.iter().map(|o| units.unit_offsets(o)).collect(), false)
        };
        let mut groups: Vec<Group> = independent_groups(items)
            .into_iter()
            .map(|members| {
                // With groups, a component's box bound overstates it: construction stops at
                // the exact bound of the whole problem instead (no component can bring the
                // arena below it).
                let stop_at = shaped_first.then_some(bound);
                Group::constructed(items, members, &baselines, stop_at, self.threads)
            })
            .collect();
        let mut budget = self.step_budget - apart_steps.min(self.step_budget);
        let work = Work {
            threads: self.threads,
            stop: self
                .stop
                .clone()
                .unwrap_or_else(|| Arc::new(AtomicBool::new(false))),
            cut: std::cell::Cell::new(false),
            stall: Stall::new(self.patience.steps(problem.buffers.len())),
        };
        // What ended the work, unless the arena reaches the bound or the capacity asked for.
        let mut ended = if budget == 0 {
            Ended::Budget
        } else {
            Ended::Proved
        };
        self.report(Phase::Constructed, &groups, bound, budget);
        // An arena above the capacity is an error, whatever the goal: first every group above
        // it tries to fit, with the whole budget. (Aiming lower from the start, with half of it,
        // lost plans that fit: MiniMalloc's E needs 1.28e9 steps, and the budget was 2e9.)
        if let Some(capacity) = problem.capacity {
            self.report(Phase::FittingCapacity, &groups, bound, budget);
            reach(&mut groups, items, capacity.max(bound), &mut budget, &work);
            self.report(Phase::FittingCapacity, &groups, bound, budget);
        }
        let target = bound;
        let smallest = self.goal == Goal::Smallest || problem.capacity.is_none();
        // Then, for the smallest arena, every group above the bound tries to reach it with
        // half of what is left (unless that is the capacity just tried)...
        // (No more of it than the patience allows: this search has not improved anything yet.)
        if smallest && problem.capacity.is_none_or(|c| c > bound) {
            let given = (budget / 2).min(work.stall.left());
            let mut half = given;
            budget -= half;
            self.report(Phase::ReachingBound, &groups, bound, budget);
            let before: u64 = groups.iter().map(|g| g.arena).sum();
            reach(&mut groups, items, target, &mut half, &work);
            let after: u64 = groups.iter().map(|g| g.arena).sum();
            work.stall.spent(given - half, after < before);
            budget += half;
            self.report(Phase::ReachingBound, &groups, bound, budget);
        }
        // ...and then lowers the arena of the group that sets it, from above.
        // (A group too large to search says so when the descent reaches it: another group
        // too large does not stop the one that sets the arena.)
        loop {
            if !smallest {
                break;
            }
            if budget == 0 {
                ended = Ended::Budget;
                break;
            }
            let Some(worst) = (0..groups.len()).max_by_key(|&g| (groups[g].arena, Reverse(g)))
            else {
                break;
            };
            if groups[worst].arena <= target {
                break;
            }
            self.report(Phase::Bisecting, &groups, bound, budget);
            let (improved, end) = groups[worst].descend(items, target, &mut budget, &work);
            self.report(Phase::Bisecting, &groups, bound, budget);
            if !improved {
                ended = end;
                break;
            }
        }

        let mut unit_offsets = vec![0u64; items.len()];
        for group in &groups {
            for (&i, &o) in group.members.iter().zip(&group.offsets) {
                unit_offsets[i] = o;
            }
        }
        // Members lie inside their unit's outer buffer: the units' ends are the buffers'.
        let arena = arena_of(items, &unit_offsets);
        let offsets = units.buffer_offsets(&unit_offsets);
        let stopped = work.cut.get();
        let ended = if arena <= bound {
            Ended::LowerBound
        } else if problem.capacity.is_some_and(|c| arena <= c) && !smallest {
            Ended::FitCapacity
        } else if stopped {
            Ended::Stopped
        } else {
            ended
        };
        if let Some(capacity) = problem.capacity {
            if arena > capacity && stopped {
                return Err(PlanError::Stopped { arena, capacity });
            }
            if arena > capacity {
                return Err(PlanError::DoesNotFit {
                    arena,
                    capacity,
                    lower_bound: bound,
                });
            }
        }
        verify(problem, &offsets).map_err(PlanError::Unverified)?;
        Ok(Plan {
            offsets,
            arena,
            lower_bound: bound,
            steps: self.step_budget - budget,
            stopped,
            ended,
        })
    }
}

/// Every group above `target` tries to reach it, sharing `budget` fairly (what one leaves goes
/// to the next); `budget` is decreased by the steps used.
fn reach(groups: &mut [Group], items: &[Item], target: u64, budget: &mut u64, work: &Work) {
    // Smaller groups first: they tend to finish early and leave their share to the rest.
    // The search places boxes: below the boxes' own bound (above the exact one where a unit's
    // box overstates its shape) it cannot succeed, so it aims no lower. Without groups that is
    // `target` itself (a component's bound is at most the whole problem's).
    let aim = |g: &Group| target.max(items_lower_bound(&g.local(items)));
    let mut above: Vec<usize> = (0..groups.len())
        .filter(|&g| groups[g].arena > aim(&groups[g]))
        .collect();
    above.sort_by_key(|&g| (groups[g].members.len(), g));
    for (done, &g) in above.iter().enumerate() {
        let mut share = *budget / (above.len() - done) as u64;
        *budget -= share;
        let capacity = aim(&groups[g]);
        groups[g].try_fit(items, capacity, &mut share, work);
        *budget += share;
    }
}

/// Whole-problem placements of units by their exact shapes, in the constructive orders that
/// suit them (largest first, best and first fit; busiest moment first): the starting points of
/// a problem with groups.
fn shaped_placements(items: &[Item], shapes: &[Vec<Part>]) -> Vec<Vec<u64>> {
    let Orders {
        ours,
        tflm,
        busiest,
        swapped,
    } = Orders::of(items);
    [
        (&ours, Fit::Best),
        (&ours, Fit::First),
        (&busiest, Fit::First),
        (&busiest, Fit::Best),
        (&swapped, Fit::First),
        (&swapped, Fit::Best),
        (&tflm, Fit::First),
        (&tflm, Fit::Best),
    ]
    .into_iter()
    .map(|(order, fit)| place_shaped(items, shapes, order, fit))
    .collect()
}

/// The constructive orders of `items`, all of them: ours (size descending), TFLM's, and
/// busiest moment first both ways ([`crate::construct`]).
struct Orders {
    ours: Vec<usize>,
    tflm: Vec<usize>,
    busiest: Vec<usize>,
    swapped: Vec<usize>,
}

impl Orders {
    fn of(items: &[Item]) -> Orders {
        let all: Vec<usize> = (0..items.len()).collect();
        Orders {
            ours: size_descending(items, &all),
            tflm: tflm_order(items, &all),
            busiest: busiest_moment_first(items, &all, Busiest::LongestThenLargest),
            swapped: busiest_moment_first(items, &all, Busiest::LargestThenLongest),
        }
    }
}

/// Buffers from which a group's construction candidates are placed on several threads.
const PARALLEL_FROM: usize = 2_000;

/// Each `(order, fit)` placement, in the same order, each on its own thread.
fn place_all(items: &[Item], candidates: &[(&[usize], Fit)]) -> Vec<Vec<u64>> {
    if candidates.len() <= 1 {
        return candidates
            .iter()
            .map(|&(order, fit)| place(items, order, fit))
            .collect();
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = candidates
            .iter()
            .map(|&(order, fit)| scope.spawn(move || place(items, order, fit)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// How one search for a placement within a capacity ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Attempt {
    /// Found one (the group keeps it).
    Found,
    /// Proved that none exists.
    Infeasible,
    /// Ran out of its budget, or was stopped.
    Unknown,
    /// The group is beyond the search's working-memory limits: no search of it can succeed.
    TooLarge,
}

/// One independent group and its current placement.
struct Group {
    members: Vec<usize>,
    /// Offsets of `members`, in the same order.
    offsets: Vec<u64>,
    arena: u64,
}

impl Group {
    /// Places the group with each constructive rule (best and first fit, in our order, in
    /// TFLM's, whose first fit is TFLM's greedy plan, and busiest moment first both ways) and each
    /// whole-problem `baselines` placement restricted to it, and keeps the smallest (the first
    /// of equals). Stops at the first that reaches the group's lower bound: nothing beats it.
    fn constructed(
        items: &[Item],
        members: Vec<usize>,
        baselines: &[Vec<u64>],
        stop_at: Option<u64>,
        threads: usize,
    ) -> Self {
        let baselines_first = stop_at.is_some();
        // The group on its own (members are in index order, so local order keeps ties).
        let local: Vec<Item> = members.iter().map(|&i| items[i]).collect();
        let Orders {
            ours,
            tflm,
            busiest,
            swapped,
        } = Orders::of(&local);
        let bound = stop_at.unwrap_or_else(|| items_lower_bound(&local));
        // Most likely to reach the bound first: ours on small groups, busiest moment first
        // on long training traces.
        let candidates: [(&[usize], Fit); 8] = [
            (&ours, Fit::Best),
            (&busiest, Fit::First),
            (&ours, Fit::First),
            (&tflm, Fit::First),
            (&swapped, Fit::First),
            (&tflm, Fit::Best),
            (&busiest, Fit::Best),
            (&swapped, Fit::Best),
        ];
        let mut chosen: Option<(u64, Vec<u64>)> = None;
        let mut consider = |offsets: Vec<u64>| {
            let arena = arena_of(&local, &offsets);
            if chosen.as_ref().is_none_or(|(a, _)| arena < *a) {
                chosen = Some((arena, offsets));
            }
            arena <= bound
        };
        // In waves of as many as there are threads (one at a time for small groups, placed
        // faster than a thread starts), considered in order: the choice is the one a single
        // thread makes.
        let wave = if local.len() >= PARALLEL_FROM {
            threads.max(1)
        } else {
            1
        };
        let mut reached = false;
        let from_baselines = |consider: &mut dyn FnMut(Vec<u64>) -> bool| {
            baselines
                .iter()
                .any(|whole| consider(members.iter().map(|&i| whole[i]).collect()))
        };
        if baselines_first {
            reached = from_baselines(&mut consider);
        }
        if !reached {
            for wave in candidates.chunks(wave) {
                reached = place_all(&local, wave).into_iter().any(&mut consider);
                if reached {
                    break;
                }
            }
        }
        if !reached && !baselines_first {
            from_baselines(&mut consider);
        }
        let (arena, offsets) = chosen.unwrap_or_default();
        Group {
            members,
            offsets,
            arena,
        }
    }

    /// The group's items on their own, in member order.
    fn local(&self, items: &[Item]) -> Vec<Item> {
        self.members.iter().map(|&i| items[i]).collect()
    }

    /// Searches for a placement within `capacity`; keeps it if found. Says how it ended.
    fn try_fit(&mut self, items: &[Item], capacity: u64, budget: &mut u64, work: &Work) -> Attempt {
        let local = self.local(items);
        match search_until(&local, capacity, budget, work.threads, &work.stop) {
            Outcome::Found(offsets) => {
                self.arena = arena_of(&local, &offsets);
                self.offsets = offsets;
                Attempt::Found
            }
            Outcome::Stopped => {
                work.cut.set(true);
                Attempt::Unknown
            }
            Outcome::Exhausted => Attempt::Infeasible,
            Outcome::OutOfBudget => Attempt::Unknown,
            // Every later attempt would say the same: it depends on the lifetimes alone.
            // (Looping on it, each attempt free of steps, never ended: pangu's 18,692 buffers.)
            Outcome::TooLarge => Attempt::TooLarge,
        }
    }

    /// Lowers the arena from above, towards `target` (or the group's own bound): each attempt
    /// asks for `step` bytes less than the best arena so far (never more than halfway to what
    /// is ruled out), with a slice of the budget. The step starts at 1/64 of the gap, doubles
    /// after a success and halves after a failure; the slice starts at 1/64 of the budget and
    /// doubles after an attempt that ran out of it, and never exceeds what the patience
    /// ([`Stall`]) leaves. Returns whether the arena went down, and what ended the descent.
    ///
    /// Fitting a little under an arena just found is cheap where fitting halfway to the bound
    /// is dear, and a search's cost is heavy-tailed: bisection spent half of what was left on
    /// each hard midpoint, and on MiniMalloc's D ended at 1,039,360 bytes with too little left
    /// for 1,038,336, which the capacity mode fits in 0.1 s. Cheap attempts from above, with
    /// slices that grow only when they run out, reach it.
    fn descend(
        &mut self,
        items: &[Item],
        target: u64,
        budget: &mut u64,
        work: &Work,
    ) -> (bool, Ended) {
        let local = self.local(items);
        let before = self.arena;
        let mut low = target.max(items_lower_bound(&local)) + 1;
        let mut step = (self.arena.saturating_sub(low) / 64).max(1);
        let mut slice = (*budget / 64).max(1);
        let end = loop {
            if low >= self.arena {
                break Ended::Proved;
            }
            if *budget == 0 {
                break Ended::Budget;
            }
            if work.stop.load(Ordering::Relaxed) {
                break Ended::Stopped;
            }
            if work.stall.left() == 0 {
                break Ended::NoImprovement {
                    steps: work.stall.allowance(),
                };
            }
            let halfway = low + (self.arena - low) / 2;
            let capacity = self.arena.saturating_sub(step).max(halfway);
            let offered = slice.min(*budget).min(work.stall.left());
            let mut given = offered;
            *budget -= given;
            let outcome = self.try_fit(items, capacity, &mut given, work);
            *budget += given;
            work.stall.spent(offered - given, outcome == Attempt::Found);
            match outcome {
                Attempt::TooLarge => break Ended::TooLarge,
                Attempt::Found => step = step.saturating_mul(2),
                Attempt::Infeasible => {
                    low = capacity + 1;
                    step = (step / 2).max(1);
                }
                Attempt::Unknown => {
                    step = (step / 2).max(1);
                    slice = slice.saturating_mul(2);
                }
            }
        };
        (self.arena < before, end)
    }
}
