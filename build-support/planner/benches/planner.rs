//! `cargo bench`: the planner against the baselines on every public instance, and how its time
//! grows with the number of buffers. Prints tables; times are medians of repeated runs on this
//! (shared, noisy) machine, arenas are exact and deterministic.
//!
//! Exits 1 when a goal is missed, each the figure of another tool (never our own earlier one):
//! every public instance's arena at most TFLM's greedy plan; every real model's at most the
//! TFLM interpreter's planned arena (`reference.csv`'s `tflm_arena_head`); every MiniMalloc
//! instance fitting its 1 MiB, on one thread no slower than MiniMalloc's own solver
//! ([`MINIMALLOC_SECONDS`]); and every search ending by itself, never on the step budget
//! alone, when the instance was asked for the smallest arena.
//!
//! `cargo bench -- NAME` runs only the instances whose name contains NAME.
//! `ARENAPLAN_EXTRA_MINIMALLOC=DIR` adds the MiniMalloc-format CSVs in DIR (e.g. a MiniMalloc
//! checkout's `benchmarks/challenging/`, which the corpus does not hold), asked to fit 1 MiB.
//! `ARENAPLAN_EXTRA_TRACES=DIR` adds the lifetime CSVs in DIR planned for the smallest arena
//! (e.g. idealloc's large training traces `pangu_2.6B`, `S_1`, `Y_1`, taken from its
//! repository's `benchmarks/`).

#[path = "support/synthetic.rs"]
mod synthetic;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use arenaplan_planner::baseline;
use arenaplan_planner::lifetime_csv::LifetimeTable;
use arenaplan_planner::verify::verify;
use arenaplan_planner::{Ended, Goal, Plan, PlanError, Planner, Problem};

const MINIMALLOC_CAPACITY: u64 = 1_048_576;

/// MiniMalloc's own solver on its challenging instances, built from its source with default
/// parameters, one thread, CPU seconds on this project's machine (README; H from issue 45's
/// medians of three, the faster of the two figures measured).
const MINIMALLOC_SECONDS: [(&str, f64); 11] = [
    ("A", 13.4),
    ("B", 9.2),
    ("C", 1.7),
    ("D", 9.0),
    ("E", 10.1),
    ("F", 15.6),
    ("G", 3.2),
    ("H", 1.88),
    ("I", 8.7),
    ("J", 2.8),
    ("K", 1.3),
];

/// Goals missed, printed at the end (then exit 1).
static MISSED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

fn miss(what: String) {
    MISSED.lock().unwrap_or_else(|e| e.into_inner()).push(what);
}

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let wanted = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/lifetimes");
    if corpus.is_dir() {
        corpus_table(&corpus, &wanted);
    } else {
        println!("(no corpus at {}: corpus table skipped)", corpus.display());
    }
    scaling_table(&wanted);
    transformer_table(&wanted);
    minimalloc_like_table(&wanted);
    if filter.as_deref() == Some("holed") {
        holed_table();
    }
    let missed = MISSED.lock().unwrap_or_else(|e| e.into_inner());
    if !missed.is_empty() {
        eprintln!("goals missed:");
        for m in missed.iter() {
            eprintln!("  {m}");
        }
        std::process::exit(1);
    }
}

/// Packed rectangles with holes (`synthetic::holed_rectangle`), the structure MiniMalloc's
/// public instances show, at three hole fractions, asked to fit 1 MiB. Only on request
/// (`cargo bench -p arenaplan-planner -- holed`): most of the fuller ones do not fit, and each
/// that does not costs the whole budget three times over.
fn holed_table() {
    println!("## Packed rectangles with holes (capacity 1 MiB; default budget)\n");
    println!("| holes | buffers | seed | lower bound | TFLM greedy | arenaplan | fits | time |");
    println!("|---:|---:|---:|---:|---:|---:|---|---:|");
    for holes in [10, 20, 30] {
        for n in [150, 300, 450] {
            for seed in 1..=4 {
                let (problem, hidden) =
                    synthetic::holed_rectangle(n, MINIMALLOC_CAPACITY, holes, seed);
                verify(&problem, &hidden).expect("the generator's placement is valid");
                let bound = arenaplan_planner::lower_bound(&problem);
                let tflm = baseline::arena(&problem, &baseline::tflm_greedy(&problem));
                let (time, result) = timed(1, || plan(&problem, Goal::FitCapacity));
                let (ours, fits) = fit_cells(&result);
                println!(
                    "| {holes} % | {n} | {seed} | {bound} | {tflm} | {ours} | {fits} | {} |",
                    ms(time)
                );
            }
        }
    }
    println!();
}

/// Generated instances of MiniMalloc's challenging family (`synthetic::minimalloc_like`: shaped
/// as its public instances measure, a placement within the capacity known) and packed
/// rectangles (`synthetic::packed_rectangle`: full at every moment, no slack), asked to fit
/// 1 MiB.
fn minimalloc_like_table(wanted: &dyn Fn(&str) -> bool) {
    if !wanted("minimalloc-like") {
        return;
    }
    println!("## Generated MiniMalloc-family instances (capacity 1 MiB; default budget)\n");
    println!("| kind | buffers | seed | lower bound | TFLM greedy | ExecuTorch greedy | arenaplan | fits | time |");
    println!("|---|---:|---:|---:|---:|---:|---:|---|---:|");
    for kind in ["family", "packed"] {
        for n in [150, 300, 450] {
            for seed in 1..=4 {
                let (problem, hidden) = match kind {
                    "family" => synthetic::minimalloc_like(n, MINIMALLOC_CAPACITY, seed),
                    _ => synthetic::packed_rectangle(n, MINIMALLOC_CAPACITY, 1, seed),
                };
                verify(&problem, &hidden).expect("the generator's placement is valid");
                let bound = arenaplan_planner::lower_bound(&problem);
                let et = baseline::arena(&problem, &baseline::executorch_greedy(&problem));
                let tflm = baseline::arena(&problem, &baseline::tflm_greedy(&problem));
                let (first, _) = timed(1, || plan(&problem, Goal::FitCapacity));
                let (time, result) = timed(runs_for(first), || plan(&problem, Goal::FitCapacity));
                let (ours, fits) = fit_cells(&result);
                println!(
                    "| {kind} | {} | {seed} | {bound} | {tflm} | {et} | {ours} | {fits} | {} |",
                    problem.buffers.len(),
                    ms(time)
                );
            }
        }
    }
    println!();
}

/// The arena and whether it fits, as table cells.
fn fit_cells(result: &Result<Plan, PlanError>) -> (String, &'static str) {
    match result {
        Ok(p) => (p.arena.to_string(), "yes"),
        Err(PlanError::DoesNotFit { arena, .. }) => (arena.to_string(), "**no**"),
        Err(e) => panic!("{e}"),
    }
}

fn csvs(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "csv"));
    files.sort();
    files
}

/// Median wall time of `runs` calls, and the last result.
fn timed<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let start = Instant::now();
        last = Some(f());
        times.push(start.elapsed());
    }
    times.sort();
    (times[runs / 2], last.expect("at least one run"))
}

fn runs_for(first: Duration) -> usize {
    if first > Duration::from_secs(1) {
        3
    } else {
        5
    }
}

fn plan(problem: &Problem, goal: Goal) -> Result<Plan, PlanError> {
    Planner::new().goal(goal).plan(problem)
}

/// `reference.csv`'s `tflm_arena_head` per model: the TFLM interpreter's planned arena.
fn tflm_heads(corpus: &Path) -> Vec<(String, u64)> {
    let text = std::fs::read_to_string(corpus.join("../reference.csv")).unwrap_or_default();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let Some(column) = header.iter().position(|&h| h == "tflm_arena_head") else {
        return Vec::new();
    };
    lines
        .filter_map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            Some((cells.first()?.to_string(), cells.get(column)?.parse().ok()?))
        })
        .collect()
}

/// Single-thread median seconds of planning `problem` for `goal` (CPU time, to set beside a
/// single-threaded solver's).
fn one_thread_seconds(problem: &Problem, goal: Goal) -> f64 {
    let (time, _) = timed(3, || Planner::new().threads(1).goal(goal).plan(problem));
    time.as_secs_f64()
}

fn corpus_table(corpus: &Path, wanted: &dyn Fn(&str) -> bool) {
    println!("## Public instances (default budget; time = median wall time of our planner)\n");
    println!(
        "| instance | buffers | lower bound | bump | ExecuTorch greedy | TFLM greedy | arenaplan | gap | vs TFLM | ended | time | one thread vs MiniMalloc |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|");
    let heads = tflm_heads(corpus);
    let mut folders: Vec<(String, PathBuf, u64)> =
        [("models", 16), ("minimalloc", 1), ("idealloc", 1)]
            .into_iter()
            .map(|(f, a)| (f.to_owned(), corpus.join(f), a))
            .collect();
    if let Some(extra) = std::env::var_os("ARENAPLAN_EXTRA_MINIMALLOC") {
        folders.push(("minimalloc-extra".into(), PathBuf::from(extra), 1));
    }
    if let Some(extra) = std::env::var_os("ARENAPLAN_EXTRA_TRACES") {
        folders.push(("traces-extra".into(), PathBuf::from(extra), 1));
    }
    for (folder, dir, alignment) in &folders {
        let (folder, alignment) = (folder.as_str(), *alignment);
        for path in csvs(dir) {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            if !wanted(&name) {
                continue;
            }
            let table = LifetimeTable::parse(std::fs::File::open(&path).unwrap()).unwrap();
            let mut problem = table.to_problem(alignment);
            let goal = if folder.starts_with("minimalloc") {
                problem.capacity = Some(MINIMALLOC_CAPACITY);
                Goal::FitCapacity
            } else {
                Goal::Smallest
            };
            let bump = baseline::arena(&problem, &baseline::bump(&problem));
            let et = baseline::arena(&problem, &baseline::executorch_greedy(&problem));
            let tflm = baseline::arena(&problem, &baseline::tflm_greedy(&problem));
            let (first, _) = timed(1, || plan(&problem, goal));
            let (time, result) = timed(runs_for(first), || plan(&problem, goal));
            let (ours, bound, gap) = match &result {
                Ok(p) => {
                    verify(&problem, &p.offsets).expect("verified");
                    (
                        p.arena.to_string(),
                        p.lower_bound,
                        format!("{:.2}%", p.gap_percent()),
                    )
                }
                Err(PlanError::DoesNotFit {
                    arena, lower_bound, ..
                }) => (format!("{arena} (does not fit)"), *lower_bound, "—".into()),
                Err(e) => panic!("{name}: {e}"),
            };
            let ratio = match &result {
                Ok(p) => format!("{:.3}", p.arena as f64 / tflm as f64),
                Err(_) => "—".into(),
            };
            let ended = result.as_ref().map_or("—", |p| p.ended.token());
            let row = format!("{folder}/{name}");
            match &result {
                Ok(p) if p.arena > tflm => {
                    miss(format!("{row}: {} B, TFLM's greedy {tflm} B", p.arena))
                }
                Ok(p) if goal == Goal::Smallest && p.ended == Ended::Budget => {
                    miss(format!("{row}: the search ended on the step budget alone"))
                }
                Err(_) => miss(format!("{row}: does not fit 1 MiB (MiniMalloc fits it)")),
                _ => {}
            }
            if let (Ok(p), Some((_, head))) = (&result, heads.iter().find(|(m, _)| *m == name)) {
                if p.arena > *head {
                    miss(format!(
                        "{row}: {} B, the TFLM interpreter's {head} B",
                        p.arena
                    ));
                }
            }
            let letter = name.split('.').next().unwrap_or("");
            let against = match MINIMALLOC_SECONDS.iter().find(|(l, _)| *l == letter) {
                Some(&(_, theirs)) if folder.starts_with("minimalloc") => {
                    let ours = one_thread_seconds(&problem, goal);
                    if ours > theirs {
                        miss(format!(
                            "{row}: {ours:.2} s on one thread, MiniMalloc {theirs} s"
                        ));
                    }
                    format!("{ours:.2} s / {theirs} s")
                }
                _ => String::new(),
            };
            println!(
                "| {row} | {} | {bound} | {bump} | {et} | {tflm} | {ours} | {gap} | {ratio} | {ended} | {} | {against} |",
                problem.buffers.len(),
                ms(time)
            );
        }
    }
    println!();
}

fn scaling_table(wanted: &dyn Fn(&str) -> bool) {
    println!("## Scaling on generated model-like instances (alignment 16)\n");
    println!(
        "| buffers | lower bound | TFLM greedy | constructive only | constructive time | ns per n·log2 n | arenaplan (default budget) | gap | total time |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for n in [1_000usize, 10_000, 60_000] {
        let name = format!("synthetic-{n}");
        if !wanted(&name) {
            continue;
        }
        let problem = synthetic::model_like(n, 42);
        let tflm = if n <= 10_000 {
            baseline::arena(&problem, &baseline::tflm_greedy(&problem)).to_string()
        } else {
            "(quadratic: skipped)".into()
        };
        let (t_construct, constructive) =
            timed(5, || Planner::new().step_budget(0).plan(&problem).unwrap());
        let (t_total, full) = timed(3, || Planner::new().plan(&problem).unwrap());
        verify(&problem, &full.offsets).expect("verified");
        let nlogn = n as f64 * (n as f64).log2();
        println!(
            "| {n} | {} | {tflm} | {} | {} | {:.1} | {} | {:.2}% | {} |",
            full.lower_bound,
            constructive.arena,
            ms(t_construct),
            t_construct.as_nanos() as f64 / nlogn,
            full.arena,
            full.gap_percent(),
            ms(t_total)
        );
    }
    println!();
}

fn transformer_table(wanted: &dyn Fn(&str) -> bool) {
    println!("## Generated transformer-like training traces (alignment 16)\n");
    println!(
        "| buffers | lower bound | TFLM greedy | ExecuTorch greedy | arenaplan | gap | vs TFLM | time |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (n, seed) in [(2_000usize, 1u64), (10_000, 2), (30_000, 3)] {
        let name = format!("transformer-{n}");
        if !wanted(&name) {
            continue;
        }
        let problem = synthetic::transformer_like(n, seed);
        let tflm = baseline::arena(&problem, &baseline::tflm_greedy(&problem));
        let et = baseline::arena(&problem, &baseline::executorch_greedy(&problem));
        let (t_total, full) = timed(3, || Planner::new().plan(&problem).unwrap());
        verify(&problem, &full.offsets).expect("verified");
        println!(
            "| {} | {} | {tflm} | {et} | {} | {:.2}% | {:.3} | {} |",
            problem.buffers.len(),
            full.lower_bound,
            full.arena,
            full.gap_percent(),
            full.arena as f64 / tflm as f64,
            ms(t_total)
        );
    }
    println!();
}

fn ms(d: Duration) -> String {
    if d < Duration::from_millis(1) {
        format!("{} µs", d.as_micros())
    } else {
        format!("{:.1} ms", d.as_secs_f64() * 1000.0)
    }
}
