//! Generated instances of MiniMalloc's shape (`benches/support/synthetic.rs`,
//! `minimalloc_like`): no slack anywhere, and a known placement at exactly the capacity. The
//! generator's placement must verify, and the planner must fit the capacity. Larger instances
//! of the family are in the bench (`cargo bench -p arenaplan-planner -- minimalloc-like`), where
//! some do not fit yet.

#[path = "../benches/support/synthetic.rs"]
#[allow(dead_code)]
mod synthetic;

use arenaplan_planner::verify::verify;
use arenaplan_planner::{Goal, Planner};

const CAPACITY: u64 = 1 << 20;

#[test]
fn the_generator_s_placement_is_valid_and_leaves_no_slack() {
    for seed in 0..50 {
        let (problem, offsets) = synthetic::minimalloc_like(120, CAPACITY, seed);
        assert_eq!(problem.buffers.len(), 120);
        verify(&problem, &offsets).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        // Fully packed: the bytes alive at every moment are the capacity.
        let end = problem.buffers.iter().map(|b| b.upper).max().unwrap();
        for t in 0..end {
            let alive: u64 = problem
                .buffers
                .iter()
                .filter(|b| b.lower <= t && t < b.upper)
                .map(|b| b.size)
                .sum();
            assert_eq!(alive, CAPACITY, "seed {seed}, time {t}");
        }
    }
}

#[test]
fn small_generated_instances_fit_their_capacity() {
    for seed in 1..=30 {
        let (problem, _) = synthetic::minimalloc_like(30, CAPACITY, seed);
        let plan = Planner::new()
            .goal(Goal::FitCapacity)
            .plan(&problem)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert_eq!(plan.arena, CAPACITY, "seed {seed}");
        verify(&problem, &plan.offsets).unwrap();
    }
}
