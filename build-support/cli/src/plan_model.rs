//! `arenaplan plan` and `arenaplan inspect`: plan a model for a target; list a model.

use std::io::Write;
use std::path::{Path, PathBuf};

use arenaplan_build::report::describe;
use arenaplan_build::{Blobs, Build, BuildError, Emit, Symbols};
use arenaplan_planner::{Patience, Planner, DEFAULT_STEP_BUDGET};

use crate::{input, Failure};

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
    /// Model files may name files under this folder (TOML `blob = "../x.bin"`); by default
    /// only files inside the model's own folder.
    #[arg(long, value_name = "DIR")]
    files_root: Option<PathBuf>,
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
    /// Steps per buffer the smallest-arena search may go without finding a smaller arena
    /// before it stops (deterministic, like the budget), or `off` to spend the whole budget.
    #[arg(long, value_name = "STEPS|off", default_value_t = Patience::default(), value_parser = crate::supervise::parse_patience)]
    patience: Patience,
    /// Stop after this many seconds with the best verified plans found so far, marked as such
    /// in the report (Ctrl-C does the same; a second Ctrl-C quits). Without it the plans are
    /// the deterministic ones of the budget.
    #[arg(long, value_name = "SECONDS", value_parser = crate::supervise::parse_deadline)]
    deadline: Option<f64>,
    /// Artifacts to write: any of rust, c, linker, json, report, or all.
    #[arg(long, value_delimiter = ',', default_value = "json,report")]
    emit: Vec<EmitKind>,
    /// Firmware sources (or declaration files) to scan for #[delegate] and #[kernel] declarations
    /// (repeatable).
    #[arg(long = "source")]
    sources: Vec<PathBuf>,
    /// Paths of scanned sources are shown relative to this directory (as build.rs shows them
    /// relative to the crate), so both write the same bytes.
    #[arg(long, default_value = ".")]
    base: PathBuf,
    /// Which side defines the arenas and tables.
    #[arg(long, value_enum, default_value = "c")]
    symbols: SymbolSide,
    /// Keep every NPU call's inputs and outputs apart from its scratch, copied in and out at
    /// each call. By default each may sit at its slot inside the scratch, where the NPU reads
    /// and writes it (as Vela's own plan does) when that saves memory; an input there is the
    /// NPU's once its call has run.
    #[arg(long)]
    io_apart: bool,
    /// How delegate blobs reach the object code: `incbin` writes each as NAME_blobN.bin, linked
    /// by NAME_program.c with the assembler's .incbin (GCC or Clang for an ELF target, with the
    /// output folder on the include path); `c` writes them as C arrays, for any C99 compiler.
    #[arg(long, value_enum, default_value = "incbin")]
    blobs: BlobForm,
    /// An operator the firmware links a kernel for in C (`ap_kernel_<op>`), which the scan
    /// cannot see: a TFLite operator arenaplan has no kernel for (`builtin:53`,
    /// `custom:NAME`) is otherwise refused (repeatable).
    #[arg(long = "kernel", value_name = "OP")]
    kernels: Vec<String>,
    /// Plan every CPU kernel's fast variant, its scratch included (CMSIS-NN's im2col columns and
    /// depthwise buffers), even where that makes the arena larger. By default a convolution
    /// whose scratch would grow the arena runs without it: the same output bytes, slower.
    #[arg(long)]
    fastest_kernels: bool,
    /// Compile ExecuTorch's kernels for every dtype they support. By default each kernel file
    /// is compiled only for the dtypes the program's calls use (a selective build).
    #[arg(long)]
    all_kernel_dtypes: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum BlobForm {
    /// Binary files linked with `.incbin`: compiles in milliseconds at any size.
    Incbin,
    /// C arrays: any C99 compiler, about six bytes of C per byte of blob.
    C,
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
    /// Model files may name files under this folder (TOML `blob = "../x.bin"`); by default
    /// only files inside the model's own folder.
    #[arg(long, value_name = "DIR")]
    files_root: Option<PathBuf>,
    /// Also plan it for this target and print the plan summary.
    #[arg(long)]
    target: Option<String>,
    /// The targets catalogue (default: the one built into arenaplan).
    #[arg(long)]
    targets: Option<PathBuf>,
}

pub(crate) fn plan(args: &PlanArgs) -> Result<(), Failure> {
    let mut build = Build::new();
    build
        .catalogue(input::load_catalogue(args.targets.as_deref())?)
        .target(&args.target)
        .program(input::load_model(&args.model, args.files_root.as_deref())?)
        .base(&args.base)
        .emit(emit_set(&args.emit))
        .symbols(match args.symbols {
            SymbolSide::C => Symbols::C,
            SymbolSide::Rust => Symbols::Rust,
        })
        .blobs(match args.blobs {
            BlobForm::Incbin => Blobs::Incbin,
            BlobForm::C => Blobs::CArray,
        })
        .out_dir(&args.out)
        .cargo_metadata(false);
    input::check_sources(&args.sources)?;
    build.sources(&args.sources);
    let mut planner = Planner::new();
    planner.step_budget(args.budget).patience(args.patience);
    let supervisor = crate::supervise::Supervisor::watch(&mut planner, args.deadline);
    build.planner(planner);
    build.io_in_scratch(!args.io_apart);
    for op in &args.kernels {
        build.external_kernel(op);
    }
    if args.fastest_kernels {
        build.kernel_variants(arenaplan_build::KernelVariants::Fastest);
    }
    build.all_kernel_dtypes(args.all_kernel_dtypes);
    if let Some(name) = &args.name {
        build.name(name);
    }
    let result = build.try_compile();
    drop(supervisor);
    let generated = result.map_err(|e| build_failure(&args.model, e))?;
    if generated.plan.pools.iter().any(|p| p.stopped_early) {
        eprintln!("{}", crate::supervise::STOPPED_NOTE);
    }
    for p in &generated.plan.pools {
        eprintln!(
            "pool {} (mem_id {}): arena={} lower_bound={} capacity={}{}",
            p.name,
            p.mem_id,
            p.size,
            p.lower_bound,
            p.capacity,
            p.search_ended
                .as_deref()
                .map(|e| format!(" (search: {e})"))
                .unwrap_or_default()
        );
    }
    for file in &generated.files {
        eprintln!(
            "wrote {}",
            arenaplan_build::names::display(&file.display().to_string())
        );
    }
    Ok(())
}

/// The artifacts `--emit` asks for.
fn emit_set(kinds: &[EmitKind]) -> Emit {
    let all = kinds.contains(&EmitKind::All);
    let has = |k| all || kinds.contains(&k);
    let mut what = Emit::NONE;
    what.rust = has(EmitKind::Rust);
    what.c = has(EmitKind::C);
    what.linker = has(EmitKind::Linker);
    what.json = has(EmitKind::Json);
    what.report = has(EmitKind::Report);
    what
}

pub(crate) fn inspect(args: &InspectArgs) -> Result<(), Failure> {
    let program = input::load_model(&args.model, args.files_root.as_deref())?;
    print_out(&describe(&program))?;
    let Some(target_name) = &args.target else {
        return Ok(());
    };
    let mut report_only = Emit::NONE;
    report_only.report = true;
    let rendered = Build::new()
        .catalogue(input::load_catalogue(args.targets.as_deref())?)
        .target(target_name)
        .program(program)
        // Nothing is written: no file name to check against the model's name.
        .name("inspect")
        .emit(report_only)
        .sources(Vec::<PathBuf>::new())
        .try_render()
        .map_err(|e| build_failure(&args.model, e))?;
    let report = rendered
        .files
        .iter()
        .find(|(file, _)| file.ends_with(".report.txt"))
        .map(|(_, text)| String::from_utf8_lossy(text))
        .unwrap_or_default();
    print_out(&format!("\n{report}"))
}

/// The status of a failed build: over capacity, a bug, an I/O failure, or (anything else) bad
/// input.
pub(crate) fn build_failure(model: &Path, e: BuildError) -> Failure {
    // The contract every arenaplan program shares (`BuildError::exit_status`).
    let status = e.status();
    match e {
        // Located already (file, line), or about the outputs rather than the model.
        BuildError::Input(problems) => Failure {
            status,
            messages: problems.iter().map(ToString::to_string).collect(),
        },
        e @ (BuildError::Write { .. } | BuildError::OutputName(_) | BuildError::Missing(_)) => {
            Failure::new(status, e)
        }
        e => Failure::new(status, format!("{}: {e}", model.display())),
    }
}

/// Writes `text` to standard output; a failure to is an I/O failure.
fn print_out(text: &str) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    out.write_all(arenaplan_build::names::display(text).as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Failure::io(format!("writing standard output: {e}")))
}
