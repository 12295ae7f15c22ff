//! `arenaplan`: the command-line front end of arenaplan-build, for builds without Cargo and
//! for planner experiments.

mod plan_csv;

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
        Command::PlanCsv(args) => plan_csv::run(&args),
    }
}
