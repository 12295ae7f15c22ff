//! Generated instances of MiniMalloc's challenging family (`benches/support/synthetic.rs`):
//! `minimalloc_like` (shaped as MiniMalloc's public instances measure, with a placement that
//! fits), `packed_rectangle` (every moment full: no slack at all) and `holed_rectangle`
//! (packed on a 1 KiB grid with pieces taken out, as the public ones look). The generators'
//! placements must verify, and the planner must fit the capacity. The bench
//! (`cargo bench -p arenaplan-planner -- minimalloc-like`) has the larger instances, where
//! some do not fit yet.

#[path = "../benches/support/synthetic.rs"]
#[allow(dead_code)]
mod synthetic;

use arenaplan_planner::verify::verify;
use arenaplan_planner::{Goal, Planner, Problem};

const CAPACITY: u64 = 1 << 20;

fn alive_bytes(problem: &Problem, t: u64) -> u64 {
    problem
        .buffers
        .iter()
        .filter(|b| b.lower <= t && t < b.upper)
        .map(|b| b.size)
        .sum()
}

#[test]
fn family_instances_have_the_measured_shape_and_a_valid_placement() {
    for seed in 0..20 {
        for n in [150, 300, 450] {
            let (problem, offsets) = synthetic::minimalloc_like(n, CAPACITY, seed);
            assert_eq!(problem.buffers.len(), n, "seed {seed}");
            verify(&problem, &offsets).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            assert!(problem
                .buffers
                .iter()
                .all(|b| b.size % 1024 == 0 && b.size > 0));
            // Not packed everywhere: some moment has room (MiniMalloc's are 58-98 % full on
            // average over time).
            let end = problem.buffers.iter().map(|b| b.upper).max().unwrap();
            assert!((0..end).any(|t| alive_bytes(&problem, t) < CAPACITY * 9 / 10));
        }
    }
}

#[test]
fn packed_rectangles_have_a_valid_placement_and_no_slack() {
    for seed in 0..50 {
        let (problem, offsets) = synthetic::packed_rectangle(120, CAPACITY, 1, seed);
        assert_eq!(problem.buffers.len(), 120);
        verify(&problem, &offsets).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let end = problem.buffers.iter().map(|b| b.upper).max().unwrap();
        for t in 0..end {
            assert_eq!(alive_bytes(&problem, t), CAPACITY, "seed {seed}, time {t}");
        }
    }
}

fn assert_fits(problem: &Problem, what: &str) {
    let plan = Planner::new()
        .goal(Goal::FitCapacity)
        .plan(problem)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(plan.arena <= CAPACITY, "{what}");
    verify(problem, &plan.offsets).unwrap();
}

#[test]
fn small_packed_rectangles_fit_their_capacity() {
    for seed in 1..=30 {
        let (problem, _) = synthetic::packed_rectangle(30, CAPACITY, 1, seed);
        assert_fits(&problem, &format!("30 buffers, seed {seed}"));
    }
}

#[test]
fn family_instances_fit_their_capacity() {
    // Each of these fits in under a second (before the squeaky wheel joined the search's
    // rounds, seeds 1 of 150 and 2 of 300 did not fit at all; MiniMalloc's solver, built from
    // its source, does not fit either in 30 s).
    for (n, seed) in [
        (150, 1),
        (150, 2),
        (150, 3),
        (150, 4),
        (300, 2),
        (300, 3),
        (300, 4),
    ] {
        let (problem, _) = synthetic::minimalloc_like(n, CAPACITY, seed);
        assert_fits(&problem, &format!("{n} buffers, seed {seed}"));
    }
}

#[test]
fn holed_rectangles_keep_the_grid_and_a_valid_placement() {
    for seed in 0..20 {
        for holes in [10, 30] {
            let (problem, offsets) = synthetic::holed_rectangle(150, CAPACITY, holes, seed);
            assert_eq!(problem.buffers.len(), 150);
            verify(&problem, &offsets).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            assert!(problem
                .buffers
                .iter()
                .all(|b| b.size % 1024 == 0 && b.size > 0 && b.upper > b.lower));
            // About `holes` % of the square is uncovered (pieces are taken out at random,
            // whatever their area): somewhere between none and three times that.
            let end = problem.buffers.iter().map(|b| b.upper).max().unwrap();
            let area: u128 = problem
                .buffers
                .iter()
                .map(|b| u128::from(b.size) * u128::from(b.upper - b.lower))
                .sum();
            let square = u128::from(CAPACITY) * u128::from(end);
            assert!(area < square, "seed {seed}: holes were taken out");
            assert!(
                area * 100 > square * u128::from(100 - 3 * holes),
                "seed {seed}, {holes} %: {area} of {square}"
            );
        }
    }
}

#[test]
fn holed_rectangles_with_room_fit_their_capacity() {
    // With 30 % taken out every one of the bench's fits in milliseconds; at 20 % half fit, at
    // 10 % one of 12, with MiniMalloc's solver no more (README, "What the public instances
    // are made of").
    for seed in 1..=4 {
        let (problem, _) = synthetic::holed_rectangle(150, CAPACITY, 30, seed);
        assert_fits(&problem, &format!("150 buffers, 30 % holes, seed {seed}"));
    }
}

#[test]
fn the_default_goal_gives_fitting_the_capacity_the_whole_budget_first() {
    // The smallest arena is the default goal, but an arena above the capacity is an error: the
    // budget must go to fitting first. (It used to aim at the lower bound with half of it,
    // and MiniMalloc's E, which needs 1.28e9 steps, did not fit in the 2e9 of the time.)
    let (problem, _) = synthetic::holed_rectangle(150, CAPACITY, 5, 2);
    let needed = Planner::new()
        .goal(Goal::FitCapacity)
        .plan(&problem)
        .unwrap()
        .steps;
    assert!(
        needed > 1_000_000,
        "a search, not a construction: {needed} steps"
    );
    // Half of this budget is not enough to fit; all of it is.
    let budget = needed + needed / 2;
    assert!(Planner::new()
        .goal(Goal::FitCapacity)
        .step_budget(budget / 2)
        .plan(&problem)
        .is_err());
    let plan = Planner::new()
        .step_budget(budget)
        .plan(&problem)
        .unwrap_or_else(|e| panic!("{budget} steps: {e}"));
    assert!(plan.arena <= CAPACITY);
    verify(&problem, &plan.offsets).unwrap();
}
