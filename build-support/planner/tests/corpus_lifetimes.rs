//! The public instances in `../shared/corpus/lifetimes/`: every plan verified, real models at
//! their lower bound and agreeing with the reference figures, and the quality targets met with
//! the default budget. The budget counts steps, not time, so these results are the same on
//! every machine; how long they take is the benchmark's business.

// The corpus helpers are the build crate's, shared rather than copied.
#[path = "../../tests/common/corpus.rs"]
mod common;

use std::path::{Path, PathBuf};

use common::corpus;

use arenaplan_planner::lifetime_csv::LifetimeTable;
use arenaplan_planner::verify::verify;
use arenaplan_planner::{lower_bound, Goal, Planner};

fn csvs(dir: &Path) -> Vec<PathBuf> {
    common::files(dir, "csv")
}

fn table(path: &Path) -> LifetimeTable {
    LifetimeTable::parse(std::fs::File::open(path).unwrap()).unwrap()
}

#[test]
fn real_models_reach_the_lower_bound_and_match_the_reference() {
    let Some(corpus) = corpus() else { return };
    let rows = common::reference(&corpus);
    let models = csvs(&corpus.join("lifetimes/models"));
    assert!(models.len() >= 10, "expected the corpus's model instances");
    for path in models {
        let name = path.file_stem().unwrap().to_str().unwrap();
        let problem = table(&path).to_problem(16);
        let plan = Planner::new().plan(&problem).unwrap();
        verify(&problem, &plan.offsets).unwrap();
        let row = &rows
            .iter()
            .find(|(m, _)| m == name)
            .expect("a reference row")
            .1;
        let reference_bound = row["lower_bound_align16"];
        let greedy = row["greedy_first_fit_align16"];
        let tflm = row["tflm_arena_head"];
        assert_eq!(plan.lower_bound, reference_bound, "{name}: lower bound");
        assert_eq!(
            plan.arena, plan.lower_bound,
            "{name}: arena above the bound"
        );
        assert!(plan.arena <= greedy && plan.arena <= tflm, "{name}");
    }
}

#[test]
fn every_public_instance_gets_a_verified_plan() {
    let Some(corpus) = corpus() else { return };
    for folder in ["minimalloc", "idealloc"] {
        for path in csvs(&corpus.join("lifetimes").join(folder)) {
            let problem = table(&path).to_problem(1);
            // A small budget: this test is about validity, the benchmark about quality.
            let plan = Planner::new()
                .step_budget(20_000_000)
                .plan(&problem)
                .unwrap();
            verify(&problem, &plan.offsets).unwrap();
            assert_eq!(plan.lower_bound, lower_bound(&problem));
            assert!(plan.arena >= plan.lower_bound);
        }
    }
}

#[test]
fn minimalloc_challenging_instances_fit_one_mebibyte() {
    let Some(corpus) = corpus() else { return };
    let files = csvs(&corpus.join("lifetimes/minimalloc"));
    assert_eq!(files.len(), 6, "expected instances A to F");
    for path in files {
        let mut problem = table(&path).to_problem(1);
        problem.capacity = Some(1_048_576);
        let plan = Planner::new()
            .goal(Goal::FitCapacity)
            .plan(&problem)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        verify(&problem, &plan.offsets).unwrap();
    }
}

#[test]
fn idealloc_instances_within_a_tenth_of_a_percent() {
    let Some(corpus) = corpus() else { return };
    for path in csvs(&corpus.join("lifetimes/idealloc")) {
        let problem = table(&path).to_problem(1);
        let plan = Planner::new().plan(&problem).unwrap();
        verify(&problem, &plan.offsets).unwrap();
        assert!(
            plan.gap_percent() <= 0.1,
            "{}: gap {:.3}%",
            path.display(),
            plan.gap_percent()
        );
    }
}

/// The smallest-arena mode ends no higher than the capacity mode reaches: on MiniMalloc's D,
/// asking for 1,038,336 bytes fits, and the smallest-arena mode once stopped at 1,039,360
/// (bisection spent its budget on hard midpoints). It now descends from above.
#[test]
fn the_smallest_mode_ends_no_higher_than_the_capacity_mode() {
    let Some(corpus) = corpus() else { return };
    let problem = table(&corpus.join("lifetimes/minimalloc/D.1048576.csv")).to_problem(1);
    let fit = Planner::new()
        .goal(Goal::FitCapacity)
        .plan(&problem.clone().with_capacity(1_038_336))
        .unwrap();
    let smallest = Planner::new().plan(&problem).unwrap();
    verify(&problem, &smallest.offsets).unwrap();
    assert!(
        smallest.arena <= fit.arena,
        "{} > {}",
        smallest.arena,
        fit.arena
    );
}
