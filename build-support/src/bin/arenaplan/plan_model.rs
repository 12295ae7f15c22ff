//! `arenaplan plan` and `arenaplan inspect`: plan a model for a target; list a model.

use std::path::PathBuf;
use std::process::ExitCode;

use arenaplan_build::build::{declarations, plan_and_emit};
use arenaplan_build::diagnostic::Diagnostic;
use arenaplan_build::emit::{c_ident, Emit, Symbols};
use arenaplan_build::model::{describe, load_model};
use arenaplan_build::output::write_if_changed;
use arenaplan_build::pipeline::{report, Pipeline, PipelineError};
use arenaplan_build::plan::{Planner, DEFAULT_STEP_BUDGET};
use arenaplan_build::targets::{Catalogue, Target};

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

pub(crate) fn plan(args: &PlanArgs) -> ExitCode {
    let target = match load_target(args.targets.as_deref(), &args.target) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let target = &target;
    let program = match load_model(&args.model) {
        Ok(p) => p,
        Err(d) => return bad_input(&d),
    };
    let declared = match declarations(&args.sources, &args.base, target) {
        Ok(d) => d,
        Err(problems) => {
            for d in problems {
                eprintln!("error: {d}");
            }
            return ExitCode::from(EXIT_BAD_INPUT);
        }
    };
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
    let name = c_ident(args.name.as_deref().unwrap_or(&program.name));
    let planned = match plan_and_emit(
        program,
        target,
        &declared,
        Some(planner),
        &name,
        symbols,
        what,
    ) {
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
    let (plan, outputs) = (planned.plan, planned.files);
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
    for (file, _) in &outputs {
        eprintln!("wrote {}", args.out.join(file).display());
    }
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
    let target = match load_target(args.targets.as_deref(), target_name) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let target = &target;
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

/// The target `name` of the catalogue at `path` (or the built-in one); errors are printed.
fn load_target(path: Option<&std::path::Path>, name: &str) -> Result<Target, ExitCode> {
    let catalogue = match path {
        Some(path) => Catalogue::load(path).map_err(|d| bad_input(&d))?,
        None => Catalogue::builtin(),
    };
    catalogue.target(name).cloned().map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(EXIT_BAD_INPUT)
    })
}

fn bad_input(d: &Diagnostic) -> ExitCode {
    eprintln!("error: {d}");
    ExitCode::from(EXIT_BAD_INPUT)
}
