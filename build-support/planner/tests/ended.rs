//! What ends the planner's work ([`Plan::ended`]): the lower bound, the capacity, the budget,
//! the patience (steps without a smaller arena), or an instance too large to search. One test
//! per way, each on an instance where only that way applies.

use arenaplan_planner::lifetime_csv::LifetimeTable;
use arenaplan_planner::{Buffer, Ended, Goal, Patience, Planner, Problem};

/// 400 buffers whose bound no placement reaches (`build-support/testdata/lifetimes/
/// unreachable_bound.csv`, cut short): the search improves for a while, then stalls.
fn stalling() -> Problem {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../testdata/lifetimes/unreachable_bound.csv"
    );
    let file = std::fs::File::open(path).unwrap();
    let mut p = LifetimeTable::parse(file).unwrap().to_problem(1);
    p.buffers.truncate(400);
    p
}

#[test]
fn an_arena_at_the_bound_ends_there() {
    let p = Problem::new(vec![Buffer::new(4, 0, 2), Buffer::new(4, 2, 4)]);
    let plan = Planner::new().plan(&p).unwrap();
    assert_eq!((plan.arena, plan.ended), (4, Ended::LowerBound));
}

#[test]
fn fitting_a_capacity_ends_when_it_fits() {
    let mut p = stalling();
    let greedy = Planner::new().step_budget(0).plan(&p).unwrap().arena;
    p.capacity = Some(greedy);
    let plan = Planner::new().goal(Goal::FitCapacity).plan(&p).unwrap();
    assert_eq!(plan.ended, Ended::FitCapacity);
    assert_eq!(plan.steps, 0, "the construction already fits");
}

#[test]
fn the_budget_ends_a_search_with_unlimited_patience() {
    let plan = Planner::new()
        .step_budget(300_000)
        .patience(Patience::Unlimited)
        .plan(&stalling())
        .unwrap();
    assert!(plan.arena > plan.lower_bound);
    assert_eq!((plan.ended, plan.steps), (Ended::Budget, 300_000));
}

#[test]
fn patience_ends_a_search_that_stops_improving_and_is_deterministic() {
    let p = stalling();
    let run = || {
        Planner::new()
            .step_budget(50_000_000)
            .patience(Patience::Steps(100_000))
            .plan(&p)
            .unwrap()
    };
    let plan = run();
    assert_eq!(plan.ended, Ended::NoImprovement { steps: 100_000 });
    assert!(plan.steps < 50_000_000, "stopped long before the budget");
    // Never worse than what the same steps give without the rule: it only stops earlier.
    let capped = Planner::new()
        .step_budget(plan.steps)
        .patience(Patience::Unlimited)
        .plan(&p)
        .unwrap();
    assert!(plan.arena <= capped.arena);
    assert_eq!(run(), plan);
    assert_eq!(
        plan.ended.to_string(),
        "found no smaller arena in 100000 steps"
    );
}

#[test]
fn an_instance_beyond_the_search_ends_with_its_construction_at_once() {
    // 6,000 buffers each alive for 1,500 to 2,500 of 7,500 instants: more overlapping pairs
    // than the search indexes. Sizes vary, so the construction stays above the bound.
    let p = Problem::new(
        (0..6_000u64)
            .map(|i| {
                let lower = (i * 7_919) % 6_000;
                Buffer::new(
                    1 + (i * 104_729) % 1_000,
                    lower,
                    lower + 1_500 + (i * 13) % 1_000,
                )
            })
            .collect(),
    );
    let plan = Planner::new().plan(&p).unwrap();
    assert!(plan.arena > plan.lower_bound, "{}", plan.arena);
    assert_eq!((plan.ended, plan.steps), (Ended::TooLarge, 0));
}
