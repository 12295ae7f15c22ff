//! `arenaplan plan` and `arenaplan inspect`: plan a model for a target; list a model.

use std::io::Write;
use std::path::{Path, PathBuf};

use arenaplan_build::build::{declarations, plan_and_emit};
use arenaplan_build::emit::{Emit, Symbols};
use arenaplan_build::model::describe;
use arenaplan_build::output::{write_all_if_changed, WriteError};
use arenaplan_build::pipeline::{report, Pipeline, PipelineError};
use arenaplan_build::plan::{PlanError, Planner, DEFAULT_STEP_BUDGET};

use crate::{input, Failure, Status};

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
    /// Directory for the outputs (created if missing; written all or none, each file only
    /// when its bytes change).
    #[arg(long)]
    out: PathBuf,
    /// Base name of the outputs (default: the model's name).
    #[arg(long)]
    name: Option<String>,
    /// Search budget in steps per pool.
    #[arg(long, default_value_t = DEFAULT_STEP_BUDGET)]
    budget: u64,
    /// Artifacts to write: any of rust, c, linker, json, report, or all.
    #[arg(long, value_delimiter = ',', default_value = "json,report")]
    emit: Vec<EmitKind>,
    /// Firmware sources to scan for #[delegate] declarations (repeatable).
    #[arg(long = "source")]
    sources: Vec<PathBuf>,
    /// Paths of scanned sources are shown relative to this directory (as build.rs shows them
    /// relative to the crate), so both write the same bytes.
    #[arg(long, default_value = ".")]
    base: PathBuf,
    /// Which side defines the arenas and tables.
    #[arg(long, value_enum, default_value = "c")]
    symbols: SymbolSide,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum EmitKind {
    Rust,
    C,
    Linker,
    Json,
    Report,
    All,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum SymbolSide {
    /// The generated C source defines them (C integrators).
    C,
    /// The generated Rust module defines them (Rust firmware).
    Rust,
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

pub(crate) fn plan(args: &PlanArgs) -> Result<(), Failure> {
    let target = &input::load_target(args.targets.as_deref(), &args.target)?;
    let program = input::load_model(&args.model)?;
    input::check_sources(&args.sources)?;
    let declared = declarations(&args.sources, &args.base, target).map_err(|problems| Failure {
        status: Status::BadInput,
        messages: problems.iter().map(ToString::to_string).collect(),
    })?;
    let mut planner = Planner::new();
    planner.step_budget(args.budget);
    let all = args.emit.contains(&EmitKind::All);
    let what = Emit {
        rust: all || args.emit.contains(&EmitKind::Rust),
        c: all || args.emit.contains(&EmitKind::C),
        linker: all || args.emit.contains(&EmitKind::Linker),
        json: all || args.emit.contains(&EmitKind::Json),
        report: all || args.emit.contains(&EmitKind::Report),
    };
    let symbols = match args.symbols {
        SymbolSide::C => Symbols::C,
        SymbolSide::Rust => Symbols::Rust,
    };
    let name = arenaplan_build::names::base_name(args.name.as_deref().unwrap_or(&program.name))
        .map_err(|e| Failure {
            status: Status::BadInput,
            messages: vec![format!("{e} with --name")],
        })?;
    let planned = plan_and_emit(
        program,
        target,
        &declared,
        Some(planner),
        &name,
        symbols,
        what,
    )
    .map_err(|e| pipeline_failure(&args.model, &e))?;
    let (plan, outputs) = (planned.plan, planned.files);
    // All outputs or none: on failure the previous ones are left as they were.
    write_all_if_changed(&args.out, &outputs).map_err(|e| match e {
        WriteError::BadName { .. } => Failure::bad_input(e),
        _ => Failure::io(e),
    })?;
    for p in &plan.pools {
        eprintln!(
            "pool {} (mem_id {}): arena={} lower_bound={} capacity={}",
            p.name, p.mem_id, p.size, p.lower_bound, p.capacity
        );
    }
    for (file, _) in &outputs {
        eprintln!("wrote {}", args.out.join(file).display());
    }
    Ok(())
}

pub(crate) fn inspect(args: &InspectArgs) -> Result<(), Failure> {
    let program = input::load_model(&args.model)?;
    print_out(&describe(&program))?;
    let Some(target_name) = &args.target else {
        return Ok(());
    };
    let target = &input::load_target(args.targets.as_deref(), target_name)?;
    let (program, plan) = Pipeline::new(target)
        .run(program)
        .map_err(|e| pipeline_failure(&args.model, &e))?;
    print_out(&format!("\n{}", report(&program, &plan, target)))
}

/// The status of a planning failure: over capacity, a bug, or (anything else) bad input.
fn pipeline_failure(model: &Path, e: &PipelineError) -> Failure {
    let status = match e {
        PipelineError::Overflow(_)
        | PipelineError::Plan {
            source: PlanError::DoesNotFit { .. },
            ..
        } => Status::DoesNotFit,
        PipelineError::Plan {
            source: PlanError::Unverified(_),
            ..
        }
        | PipelineError::PlanCheck(_) => Status::Internal,
        _ => Status::BadInput,
    };
    Failure::new(status, format!("{}: {e}", model.display()))
}

/// Writes `text` to standard output; a failure to is an I/O failure.
fn print_out(text: &str) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    out.write_all(crate::printable(text).as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Failure::io(format!("writing standard output: {e}")))
}
