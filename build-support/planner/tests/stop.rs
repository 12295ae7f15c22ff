//! Stopping a plan early: a flag set from another thread (a deadline, Ctrl-C) ends the search
//! with the best verified plan found so far, marked as such; without it the plan is the
//! deterministic one of the budget.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use arenaplan_planner::lifetime_csv::LifetimeTable;
use arenaplan_planner::verify::verify;
use arenaplan_planner::{Patience, Phase, Planner, Problem};

/// Buffers in groups of four, living 1 to 40 instants, whose bound is out of reach: the search
/// would spend its whole budget (`build-support/testdata/lifetimes/unreachable_bound.csv`, also
/// what the CLI's tests stop).
fn hard() -> Problem {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../testdata/lifetimes/unreachable_bound.csv"
    );
    let file = std::fs::File::open(path).unwrap();
    LifetimeTable::parse(file).unwrap().to_problem(1)
}

#[test]
fn a_stopped_plan_is_the_best_verified_one_marked() {
    let p = hard();
    let stop = Arc::new(AtomicBool::new(false));
    let phases = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&phases);
    let setter = Arc::clone(&stop);
    let mut planner = Planner::new();
    planner
        .step_budget(u64::MAX)
        .patience(Patience::Unlimited)
        .stop_flag(Arc::clone(&stop))
        .on_progress(move |progress| {
            seen.lock().unwrap().push(progress.phase);
            // Once searching, stop: as a deadline would.
            if progress.phase != Phase::Constructed {
                setter.store(true, Ordering::Relaxed);
            }
        });
    // An unlimited budget: only the flag can end this.
    let plan = planner.plan(&p).unwrap();
    assert!(plan.stopped);
    assert!(verify(&p, &plan.offsets).is_ok());
    assert!(plan.arena >= plan.lower_bound);
    assert_eq!(phases.lock().unwrap()[0], Phase::Constructed);
}

#[test]
fn without_the_flag_set_the_plan_is_the_budgets() {
    let mut p = hard();
    p.buffers.truncate(400);
    let mut with_flag = Planner::new();
    with_flag
        .step_budget(200_000)
        .stop_flag(Arc::new(AtomicBool::new(false)));
    let a = with_flag.plan(&p).unwrap();
    let b = Planner::new().step_budget(200_000).plan(&p).unwrap();
    assert!(!a.stopped);
    assert_eq!(a, b);
}
