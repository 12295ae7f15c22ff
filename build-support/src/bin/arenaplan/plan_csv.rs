//! `arenaplan plan-csv`: plan a lifetime CSV.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use arenaplan_build::lifetime_csv::LifetimeTable;
use arenaplan_build::output::write_if_changed;
use arenaplan_build::plan::{Goal, PlanError, Planner, DEFAULT_STEP_BUDGET};

use crate::{EXIT_BAD_INPUT, EXIT_DOES_NOT_FIT};

#[derive(clap::Args)]
pub(crate) struct Args {
    /// Input CSV (`-` for standard input). Lifetimes are half-open [lower, upper).
    input: PathBuf,
    /// Pool capacity in bytes: stop at the first plan that fits; exit 1 if none is found.
    #[arg(long)]
    capacity: Option<u64>,
    /// Pool alignment in bytes (sizes in the public instances are exact, hence 1).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    alignment: u64,
    /// Write the plan here instead of standard output (written whole or not at all).
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Search budget in steps (deterministic: the same budget gives the same plan anywhere).
    #[arg(long, default_value_t = DEFAULT_STEP_BUDGET)]
    budget: u64,
}

pub(crate) fn run(args: &Args) -> ExitCode {
    let name = args.input.display().to_string();
    let table = match read_input(args) {
        Ok(table) => table,
        Err(message) => {
            eprintln!("error: {name}: {message}");
            return ExitCode::from(EXIT_BAD_INPUT);
        }
    };
    let mut problem = table.to_problem(args.alignment);
    problem.capacity = args.capacity;
    let plan = match Planner::new()
        .step_budget(args.budget)
        .goal(Goal::FitCapacity)
        .plan(&problem)
    {
        Ok(plan) => plan,
        Err(e @ PlanError::DoesNotFit { .. }) => {
            eprintln!("error: {name}: {e}");
            return ExitCode::from(EXIT_DOES_NOT_FIT);
        }
        Err(PlanError::Invalid(e)) => {
            match e.buffer_index().and_then(|i| table.rows.get(i)) {
                Some(row) => eprintln!("error: {name}: line {}: {e}", row.line),
                None => eprintln!("error: {name}: {e}"),
            }
            return ExitCode::from(EXIT_BAD_INPUT);
        }
        Err(e) => {
            eprintln!("error: {name}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut bytes = Vec::new();
    if let Err(e) = table.write_with_offsets(&plan.offsets, &mut bytes) {
        eprintln!("error: formatting the plan: {e}");
        return ExitCode::FAILURE;
    }
    let written = match &args.output {
        Some(path) => write_if_changed(path, &bytes)
            .map(|_| ())
            .map_err(|e| format!("{}: {e}", path.display())),
        None => io::stdout()
            .lock()
            .write_all(&bytes)
            .map_err(|e| format!("standard output: {e}")),
    };
    if let Err(message) = written {
        eprintln!("error: writing {message}");
        return ExitCode::FAILURE;
    }
    eprintln!(
        "buffers={} lower_bound={} arena={} gap={:.2}%",
        table.rows.len(),
        plan.lower_bound,
        plan.arena,
        plan.gap_percent()
    );
    ExitCode::SUCCESS
}

fn read_input(args: &Args) -> Result<LifetimeTable, String> {
    let parsed = if args.input.as_os_str() == "-" {
        LifetimeTable::parse(io::stdin().lock())
    } else {
        let file = File::open(&args.input).map_err(|e| e.to_string())?;
        LifetimeTable::parse(io::BufReader::new(file).take(u64::MAX))
    };
    parsed.map_err(|e| e.to_string())
}
