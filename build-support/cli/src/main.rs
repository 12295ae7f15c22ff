//! `arenaplan`: the command-line front end of arenaplan-build (its flags map onto
//! `arenaplan_build::Build`), for builds without Cargo and for planner experiments.
// The items' doc comments are clap's help texts, written for a terminal, not rustdoc links.
#![allow(rustdoc::broken_intra_doc_links)]

mod input;
mod layout;
mod npy;
mod plan_csv;
mod plan_model;
mod run;
mod supervise;

use std::fmt::Display;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// The one exit-status contract of every subcommand (shown by `--help`; README.md repeats it).
const EXIT_STATUS: &str = arenaplan_build::EXIT_STATUS_TABLE;

/// Compile-time memory planning for microcontrollers with NPUs.
#[derive(Parser)]
#[command(name = "arenaplan", version, about, after_help = EXIT_STATUS)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Plan a model for a target: writes NAME.plan.json and NAME.report.txt.
    #[command(after_help = EXIT_STATUS)]
    Plan(plan_model::PlanArgs),
    /// List a model: tensors, delegates with their scratch, instructions.
    #[command(after_help = EXIT_STATUS)]
    Inspect(plan_model::InspectArgs),
    /// Plan a lifetime CSV (MiniMalloc/idealloc format: id,lower,upper,size[,alignment]).
    #[command(after_help = EXIT_STATUS)]
    PlanCsv(plan_csv::Args),
    /// Run a program on the host (C runtime, arenaplan's kernels, emulated NPUs): .npy in,
    /// .npy out, calls in order with state kept between them.
    #[command(after_help = EXIT_STATUS)]
    Run(run::RunArgs),
}

/// Why a command failed, as its exit status (see [`EXIT_STATUS`]). Usage errors are clap's,
/// which exits with 2 as well.
pub(crate) use arenaplan_build::ExitStatus as Status;

/// A failed command: its status and the messages to print (each after `error: `).
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) status: Status,
    pub(crate) messages: Vec<String>,
}

impl Failure {
    pub(crate) fn new(status: Status, message: impl Display) -> Self {
        Failure {
            status,
            messages: vec![message.to_string()],
        }
    }

    pub(crate) fn bad_input(message: impl Display) -> Self {
        Failure::new(Status::BadInput, message)
    }

    pub(crate) fn io(message: impl Display) -> Self {
        Failure::new(Status::Io, message)
    }
}

/// What `arenaplan --version` says beyond the version: the optional parts of the runtime this
/// build has (features, and the vendor sources they were built from) and where ExecuTorch's
/// kernels come from, so a refusal for a missing part can be traced to the build.
fn long_version() -> String {
    let mut text = format!(
        "{}\nruntime parts (features of the `arenaplan` crate):",
        env!("CARGO_PKG_VERSION")
    );
    for c in arenaplan::capabilities() {
        text.push_str(&format!(
            "\n  [{}] {:<15} {}{}",
            if c.built_in { "x" } else { " " },
            c.feature,
            c.what,
            c.sources.map_or(String::new(), |s| format!("; {s}"))
        ));
    }
    text.push_str(&match arenaplan_host::executorch_sources() {
        Some(Ok(sources)) => format!(
            "\nExecuTorch's kernels: compiled per program from {} (EXECUTORCH_PATH overrides)",
            sources.root().display()
        ),
        Some(Err(e)) => format!("\nExecuTorch's kernels: none usable: {e}"),
        None => "\nExecuTorch's kernels: none (set EXECUTORCH_PATH to a checkout of ExecuTorch to run programs with CPU operators)".to_owned(),
    });
    text
}

fn main() -> ExitCode {
    use clap::{CommandFactory, FromArgMatches};
    // `--version` lists the build's parts; the text is built once, for the process.
    let version: &'static str = Box::leak(long_version().into_boxed_str());
    let matches = Cli::command().long_version(version).get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    // A panic is a bug in arenaplan, whatever the input: exit 4, as documented, not Rust's 101
    // (the panic message itself is printed by the default hook).
    let result = std::panic::catch_unwind(|| match &cli.command {
        Command::Plan(args) => plan_model::plan(args),
        Command::Inspect(args) => plan_model::inspect(args),
        Command::PlanCsv(args) => plan_csv::run(args),
        Command::Run(args) => run::run(args),
    })
    .unwrap_or_else(|_| {
        Err(Failure::new(
            Status::Internal,
            "arenaplan panicked (a bug in arenaplan; please report it with the input)",
        ))
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            for message in &failure.messages {
                eprintln!("error: {}", arenaplan_build::names::display(message));
            }
            ExitCode::from(failure.status as u8)
        }
    }
}
