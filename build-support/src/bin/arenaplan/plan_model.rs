//! `arenaplan plan` and `arenaplan inspect`: plan a model for a target; list a model.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use arenaplan_build::diagnostic::Diagnostic;
use arenaplan_build::model::{describe, load_model};
use arenaplan_build::output::write_if_changed;
use arenaplan_build::pipeline::{report, Pipeline, PipelineError};
use arenaplan_build::plan::{Planner, DEFAULT_STEP_BUDGET};
use arenaplan_build::targets::Catalogue;

use crate::{EXIT_BAD_INPUT, EXIT_DOES_NOT_FIT};

#[derive(clap::Args)]
pub(crate) struct PlanArgs {
    /// The targets catalogue (default: the one built into arenaplan).
    #[arg(long)]
    targets: Option<PathBuf>,
    /// The target to plan for.
    #[arg(long, env = "ARENAPLAN_TARGET")]
    target: String,
    /// The model (.pte, .tflite or .toml).
    #[arg(long)]
    model: PathBuf,
    /// Directory for the outputs (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// Base name of the outputs (default: the model's name).
    #[arg(long)]
    name: Option<String>,
    /// Search budget in steps per pool.
    #[arg(long, default_value_t = DEFAULT_STEP_BUDGET)]
    budget: u64,
}

#[derive(clap::Args)]
pub(crate) struct InspectArgs {
    /// The model (.pte, .tflite or .toml).
    model: PathBuf,
    /// Also plan it for this target and print the plan summary.
    #[arg(long)]
    target: Option<String>,
    /// The targets catalogue (default: the one built into arenaplan).
    #[arg(long)]
    targets: Option<PathBuf>,
}

pub(crate) fn plan(args: &PlanArgs) -> ExitCode {
    let catalogue = match &args.targets {
        Some(path) => Catalogue::load(path),
        None => Ok(Catalogue::builtin()),
    };
    let catalogue = match catalogue {
        Ok(c) => c,
        Err(d) => return bad_input(&d),
    };
    let target = match catalogue.target(&args.target) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_BAD_INPUT);
        }
    };
    let program = match load_model(&args.model) {
        Ok(p) => p,
        Err(d) => return bad_input(&d),
    };
    let mut planner = Planner::new();
    planner.step_budget(args.budget);
    let (program, plan) = match Pipeline::new(target).planner(planner).run(program) {
        Ok(done) => done,
        Err(e @ PipelineError::Overflow(_)) => {
            eprintln!("error: {}: {e}", args.model.display());
            return ExitCode::from(EXIT_DOES_NOT_FIT);
        }
        Err(e) => {
            eprintln!("error: {}: {e}", args.model.display());
            return ExitCode::from(EXIT_BAD_INPUT);
        }
    };
    let name = args.name.clone().unwrap_or_else(|| program.name.clone());
    let outputs = [
        (format!("{name}.plan.json"), plan.to_json()),
        (
            format!("{name}.report.txt"),
            report(&program, &plan, target),
        ),
    ];
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        eprintln!("error: creating {}: {e}", args.out.display());
        return ExitCode::FAILURE;
    }
    for (file, text) in &outputs {
        let path = args.out.join(file);
        if let Err(e) = write_if_changed(&path, text.as_bytes()) {
            eprintln!("error: writing {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    for p in &plan.pools {
        eprintln!(
            "pool {} (mem_id {}): arena={} lower_bound={} capacity={}",
            p.name, p.mem_id, p.size, p.lower_bound, p.capacity
        );
    }
    eprintln!(
        "wrote {}",
        Path::new(&args.out)
            .join(format!("{name}.plan.json"))
            .display()
    );
    ExitCode::SUCCESS
}

pub(crate) fn inspect(args: &InspectArgs) -> ExitCode {
    let program = match load_model(&args.model) {
        Ok(program) => program,
        Err(d) => return bad_input(&d),
    };
    print!("{}", describe(&program));
    let Some(target_name) = &args.target else {
        return ExitCode::SUCCESS;
    };
    let catalogue = match &args.targets {
        Some(path) => Catalogue::load(path),
        None => Ok(Catalogue::builtin()),
    };
    let catalogue = match catalogue {
        Ok(c) => c,
        Err(d) => return bad_input(&d),
    };
    let target = match catalogue.target(target_name) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_BAD_INPUT);
        }
    };
    match Pipeline::new(target).run(program) {
        Ok((program, plan)) => {
            println!();
            print!("{}", report(&program, &plan, target));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {}: {e}", args.model.display());
            ExitCode::from(EXIT_DOES_NOT_FIT)
        }
    }
}

fn bad_input(d: &Diagnostic) -> ExitCode {
    eprintln!("error: {d}");
    ExitCode::from(EXIT_BAD_INPUT)
}
