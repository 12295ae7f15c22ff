//! `arenaplan plan-csv`: plan a lifetime CSV.

use std::io::{self, Write};
use std::path::PathBuf;

use arenaplan_build::output::write_if_changed;
use arenaplan_planner::lifetime_csv::LifetimeTable;
use arenaplan_planner::{Goal, Patience, PlanError, Planner, DEFAULT_STEP_BUDGET};

use crate::{input, Failure, Status};

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
    /// Write the plan here instead of standard output (`-`): written whole or not at all, and
    /// only over a regular file (a link, FIFO or device is refused and left untouched).
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Search budget in steps (deterministic: the same budget gives the same plan anywhere).
    #[arg(long, default_value_t = DEFAULT_STEP_BUDGET)]
    budget: u64,
    /// Steps per buffer the smallest-arena search may go without finding a smaller arena
    /// before it stops (deterministic, like the budget), or `off` to spend the whole budget.
    #[arg(long, value_name = "STEPS|off", default_value_t = Patience::default(), value_parser = crate::supervise::parse_patience)]
    patience: Patience,
    /// Threads to plan with (default: the machine's, at most 4). The plan is the same at any
    /// count; only the time changes.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..1025))]
    threads: Option<u64>,
    /// Stop after this many seconds with the best verified plan found so far, marked as
    /// such (Ctrl-C does the same; a second Ctrl-C quits). Without it the plan is the
    /// deterministic one of the budget.
    #[arg(long, value_name = "SECONDS", value_parser = crate::supervise::parse_deadline)]
    deadline: Option<f64>,
}

pub(crate) fn run(args: &Args) -> Result<(), Failure> {
    let name = args.input.display().to_string();
    let bytes = if args.input.as_os_str() == "-" {
        input::read_stdin(input::MAX_CSV_FILE)?
    } else {
        input::read(&args.input, input::MAX_CSV_FILE)?
    };
    let table =
        LifetimeTable::parse(&bytes[..]).map_err(|e| Failure::bad_input(format!("{name}: {e}")))?;
    let mut problem = table.to_problem(args.alignment);
    problem.capacity = args.capacity;
    let mut planner = Planner::new();
    planner
        .step_budget(args.budget)
        .goal(Goal::FitCapacity)
        .patience(args.patience);
    if let Some(threads) = args.threads {
        planner.threads(threads as usize);
    }
    let supervisor = crate::supervise::Supervisor::watch(&mut planner, args.deadline);
    let result = planner.plan(&problem);
    drop(supervisor);
    let plan = result.map_err(|e| match e {
        PlanError::DoesNotFit { .. } | PlanError::Stopped { .. } => {
            Failure::new(Status::DoesNotFit, format!("{name}: {e}"))
        }
        PlanError::Invalid(ref invalid) => {
            match invalid.buffer_index().and_then(|i| table.rows.get(i)) {
                Some(row) => Failure::bad_input(format!("{name}: line {}: {e}", row.line)),
                None => Failure::bad_input(format!("{name}: {e}")),
            }
        }
        _ => Failure::new(Status::Internal, format!("{name}: {e}")),
    })?;
    let mut bytes = Vec::new();
    table
        .write_with_offsets(&plan.offsets, &mut bytes)
        .map_err(|e| Failure::new(Status::Internal, format!("formatting the plan: {e}")))?;
    match args.output.as_deref().filter(|p| p.as_os_str() != "-") {
        Some(path) => write_if_changed(path, &bytes).map(|_| ()).map_err(|e| {
            let status = if e.kind() == io::ErrorKind::InvalidInput {
                Status::BadInput
            } else {
                Status::Io
            };
            Failure::new(status, format!("writing {}: {e}", path.display()))
        })?,
        None => {
            let mut out = io::stdout().lock();
            out.write_all(&bytes)
                .and_then(|()| out.flush())
                .map_err(|e| Failure::io(format!("writing standard output: {e}")))?;
        }
    }
    eprintln!(
        "buffers={} lower_bound={} arena={} gap={:.2}% steps={} ended={}{}",
        table.rows.len(),
        plan.lower_bound,
        plan.arena,
        plan.gap_percent(),
        plan.steps,
        plan.ended.token(),
        if plan.stopped { " stopped=early" } else { "" }
    );
    if plan.stopped {
        eprintln!("{}", crate::supervise::STOPPED_NOTE);
    } else if plan.arena > plan.lower_bound {
        eprintln!("note: the search {}", plan.ended);
    }
    Ok(())
}
