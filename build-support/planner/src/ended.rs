//! When the planner stops searching: what ended it ([`Ended`]), and the rule that ends a
//! search that has stopped improving ([`Patience`]).
//!
//! Why a patience rule: the smallest-arena search tries ever smaller arenas until the lower
//! bound, a proof, or the budget. On an instance whose bound no placement reaches, only the
//! budget ends it, and the budget is sized for the hardest small instances (MiniMalloc's D
//! finds its last improvement 1.2·10⁹ steps after the one before). Counting the steps since
//! the last improvement, with an allowance proportional to the number of buffers, keeps those
//! (213 buffers: 4.3·10⁹ steps, more than the budget) and ends a twenty-tensor model's
//! hopeless search after 4·10⁸ steps, a fraction of a second. Steps, not time: the plan stays
//! the same on any machine.

use std::cell::Cell;
use std::fmt;

/// Default allowance of search steps without a smaller arena, per buffer planned.
pub const DEFAULT_PATIENCE_PER_BUFFER: u64 = 20_000_000;

/// The least allowance, whatever the instance's size: the search's first attempts cost about
/// this much on small instances.
const MIN_PATIENCE: u64 = 100_000_000;

/// How long the smallest-arena search goes on without finding a smaller arena
/// ([`crate::Planner::patience`]). Fitting a capacity is never cut short by it: that search
/// decides whether the build succeeds.
///
/// ```
/// use arenaplan_planner::Patience;
/// assert_eq!(Patience::default(), Patience::PerBuffer(arenaplan_planner::DEFAULT_PATIENCE_PER_BUFFER));
/// assert_eq!(Patience::PerBuffer(10).steps(3), 100_000_000); // never below the floor
/// assert_eq!(Patience::Unlimited.steps(3), u64::MAX);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Patience {
    /// This many steps per buffer (at least 10⁸ in all).
    PerBuffer(u64),
    /// Exactly this many steps, whatever the instance.
    Steps(u64),
    /// The whole step budget, improving or not.
    Unlimited,
}

impl Default for Patience {
    fn default() -> Self {
        Patience::PerBuffer(DEFAULT_PATIENCE_PER_BUFFER)
    }
}

impl Patience {
    /// The allowance for an instance of `buffers` buffers.
    pub fn steps(self, buffers: usize) -> u64 {
        match self {
            Patience::PerBuffer(per) => per.saturating_mul(buffers as u64).max(MIN_PATIENCE),
            Patience::Steps(steps) => steps,
            Patience::Unlimited => u64::MAX,
        }
    }
}

impl fmt::Display for Patience {
    /// As the CLI's `--patience` takes it: steps per buffer, or `off` (and [`Patience::Steps`],
    /// which the CLI does not take, as `N in all`).
    ///
    /// ```
    /// use arenaplan_planner::Patience;
    /// assert_eq!(Patience::PerBuffer(5).to_string(), "5");
    /// assert_eq!(Patience::Unlimited.to_string(), "off");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Patience::PerBuffer(steps) => write!(f, "{steps}"),
            Patience::Steps(steps) => write!(f, "{steps} in all"),
            Patience::Unlimited => f.write_str("off"),
        }
    }
}

/// What ended the planner's work ([`crate::Plan::ended`]): the reason the arena is what it is.
/// Displayed as what the search did ("the search …").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Ended {
    /// The arena is the lower bound: nothing smaller exists.
    LowerBound,
    /// A plan within the capacity was found ([`crate::Goal::FitCapacity`]).
    FitCapacity,
    /// The search proved that no smaller arena exists.
    Proved,
    /// This many steps went by without a smaller arena ([`Patience`]).
    NoImprovement {
        /// The allowance that ran out.
        steps: u64,
    },
    /// The step budget was spent.
    Budget,
    /// Stopped from outside (a deadline, Ctrl-C: [`crate::Planner::stop_flag`]).
    Stopped,
    /// The instance is beyond the exact search's working-memory limits: the best constructive
    /// placement stands.
    TooLarge,
}

impl fmt::Display for Ended {
    /// ```
    /// use arenaplan_planner::Ended;
    /// assert_eq!(Ended::NoImprovement { steps: 400 }.to_string(), "found no smaller arena in 400 steps");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ended::LowerBound => f.write_str("reached the lower bound"),
            Ended::FitCapacity => f.write_str("found a plan within the capacity"),
            Ended::Proved => f.write_str("proved that no smaller arena exists"),
            Ended::NoImprovement { steps } => write!(f, "found no smaller arena in {steps} steps"),
            Ended::Budget => f.write_str("spent the step budget"),
            Ended::Stopped => f.write_str("was stopped from outside"),
            Ended::TooLarge => f.write_str("was not run: the instance is beyond its working-memory limits (the best constructive placement stands)"),
        }
    }
}

impl Ended {
    /// A short token for machine-readable output (`plan-csv`'s summary line).
    ///
    /// ```
    /// assert_eq!(arenaplan_planner::Ended::LowerBound.token(), "bound");
    /// ```
    pub fn token(self) -> &'static str {
        match self {
            Ended::LowerBound => "bound",
            Ended::FitCapacity => "capacity",
            Ended::Proved => "proved",
            Ended::NoImprovement { .. } => "no-improvement",
            Ended::Budget => "budget",
            Ended::Stopped => "stopped",
            Ended::TooLarge => "too-large",
        }
    }
}

/// The steps the smallest-arena search may still spend before it has to improve.
pub(crate) struct Stall {
    allowance: u64,
    left: Cell<u64>,
}

impl Stall {
    pub(crate) fn new(allowance: u64) -> Self {
        Stall {
            allowance,
            left: Cell::new(allowance),
        }
    }

    /// Steps that may still go by without improvement.
    pub(crate) fn left(&self) -> u64 {
        self.left.get()
    }

    /// `steps` went by; `improved` says whether they found a smaller arena.
    pub(crate) fn spent(&self, steps: u64, improved: bool) {
        if improved {
            self.left.set(self.allowance);
        } else {
            self.left.set(self.left.get().saturating_sub(steps));
        }
    }

    /// The allowance, for [`Ended::NoImprovement`].
    pub(crate) fn allowance(&self) -> u64 {
        self.allowance
    }
}
