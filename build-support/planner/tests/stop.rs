//! Stopping a plan early: a flag set from another thread (a deadline, Ctrl-C) ends the search
//! with the best verified plan found so far, marked as such; without it the plan is the
//! deterministic one of the budget.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use arenaplan_planner::verify::verify;
use arenaplan_planner::{Buffer, Phase, Planner, Problem};

/// Buffers in groups of four, living 1 to 40 instants: the bound is out of reach, so the
/// search would spend its whole budget.
fn hard(n: u64) -> Problem {
    let mut x = 3u64;
    let mut next = |m: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % m
    };
    Problem::new(
        (0..n)
            .map(|i| {
                let lower = i / 4;
                Buffer::new(1 + next(4096), lower, lower + 1 + next(40))
            })
            .collect(),
    )
}

#[test]
fn a_stopped_plan_is_the_best_verified_one_marked() {
    let p = hard(3_000);
    let stop = Arc::new(AtomicBool::new(false));
    let phases = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&phases);
    let setter = Arc::clone(&stop);
    let mut planner = Planner::new();
    planner
        .step_budget(u64::MAX)
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
    let p = hard(400);
    let mut with_flag = Planner::new();
    with_flag
        .step_budget(200_000)
        .stop_flag(Arc::new(AtomicBool::new(false)));
    let a = with_flag.plan(&p).unwrap();
    let b = Planner::new().step_budget(200_000).plan(&p).unwrap();
    assert!(!a.stopped);
    assert_eq!(a, b);
}
