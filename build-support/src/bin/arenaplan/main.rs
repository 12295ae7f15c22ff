//! `arenaplan`: the command-line front end of arenaplan-build, for builds without Cargo and
//! for planner experiments.

mod plan_csv;
mod plan_model;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Compile-time memory planning for microcontrollers with NPUs.
#[derive(Parser)]
#[command(name = "arenaplan", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Plan a model for a target: writes NAME.plan.json and NAME.report.txt.
    Plan(plan_model::PlanArgs),
    /// List a model: tensors, delegates with their scratch, instructions.
    Inspect(plan_model::InspectArgs),
    /// Plan a lifetime CSV (MiniMalloc/idealloc format: id,lower,upper,size[,alignment]).
    PlanCsv(plan_csv::Args),
}

/// Exit status for bad input, as clap uses for bad arguments.
pub(crate) const EXIT_BAD_INPUT: u8 = 2;
/// Exit status when no plan fits the capacity.
pub(crate) const EXIT_DOES_NOT_FIT: u8 = 1;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Plan(args) => plan_model::plan(&args),
        Command::Inspect(args) => plan_model::inspect(&args),
        Command::PlanCsv(args) => plan_csv::run(&args),
    }
}
