//! The public instances in `../shared/corpus/lifetimes/`: every plan verified, real models at
//! their lower bound and agreeing with the reference figures, and the quality targets met with
//! the default budget. The budget counts steps, not time, so these results are the same on
//! every machine; how long they take is the benchmark's business.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use arenaplan_build::lifetime_csv::LifetimeTable;
use arenaplan_build::plan::{lower_bound, Goal, Planner};
use arenaplan_build::verify::verify;

fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    if dir.is_dir() {
        return Some(dir);
    }
    // In CI the corpus is part of the contract: its absence is a failure, not a skip.
    assert!(
        std::env::var("CI").map_or(true, |v| v != "true"),
        "CI=true but the corpus is missing at {}",
        dir.display()
    );
    eprintln!("skipping: no corpus at {}", dir.display());
    None
}

fn csvs(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .collect();
    files.sort();
    files
}

fn table(path: &Path) -> LifetimeTable {
    LifetimeTable::parse(std::fs::File::open(path).unwrap()).unwrap()
}

#[test]
fn real_models_reach_the_lower_bound_and_match_the_reference() {
    let Some(corpus) = corpus() else { return };
    let reference = std::fs::read_to_string(corpus.join("reference.csv")).unwrap();
    let mut lines = reference.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: HashMap<String, Vec<String>> = lines
        .map(|l| {
            let f: Vec<String> = l.split(',').map(str::to_owned).collect();
            (f[0].clone(), f)
        })
        .collect();
    let models = csvs(&corpus.join("lifetimes/models"));
    assert!(models.len() >= 10, "expected the corpus's model instances");
    for path in models {
        let name = path.file_stem().unwrap().to_str().unwrap();
        let problem = table(&path).to_problem(16);
        let plan = Planner::new().plan(&problem).unwrap();
        verify(&problem, &plan.offsets).unwrap();
        let row = &rows[name];
        let reference_bound: u64 = row[col("lower_bound_align16")].parse().unwrap();
        let greedy: u64 = row[col("greedy_first_fit_align16")].parse().unwrap();
        let tflm: u64 = row[col("tflm_arena_head")].parse().unwrap();
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
