//! The `build.rs` API: plan the firmware's model at compile time.
//!
//! ```no_run
//! // in build.rs's main:
//! arenaplan_build::Build::new()
//!     .model("model/kws.pte")
//!     .target("corstone-300") // or ARENAPLAN_TARGET
//!     .compile();
//! ```
//!
//! It scans the crate's sources for `#[delegate]` declarations (with the macro's own parser),
//! plans the model for the target, writes the artifacts into `OUT_DIR/arenaplan/` (all of them
//! or none, each file rewritten only when its bytes change), tells the compiler the target and
//! the generated module's path (`cargo:rustc-env`), and asks Cargo to rerun when the model, the
//! targets file, a scanned source or one of its environment variables changes.

mod scan;

use std::path::{Path, PathBuf};

use thiserror::Error;

pub use scan::{rust_files, scan, Found};

use crate::diagnostic::Diagnostic;
use crate::emit::{emit, Emit, Input, Symbols};
use crate::model::{load_model, Program};
use crate::output::{write_all_if_changed, WriteError};
use crate::pipeline::{BackendScratch, ModelPlan, Pipeline, PipelineError};
use crate::plan::Planner;
use crate::targets::Catalogue;

/// Environment variables the build reads.
pub const ENV_TARGET: &str = "ARENAPLAN_TARGET";
/// Path of a targets catalogue to use instead of the built-in one.
pub const ENV_TARGETS_FILE: &str = "ARENAPLAN_TARGETS_FILE";

/// Why the build could not plan.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A setting is missing (the message says which and how to give it).
    #[error("{0}")]
    Missing(String),
    /// A problem in an input file (targets, model, a scanned source), located.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Input(Vec<Diagnostic>),
    /// The target is not in the catalogue.
    #[error(transparent)]
    Target(#[from] crate::targets::UnknownTarget),
    /// Planning failed (a scratch declaration, a pool rule, a pool overflow).
    #[error(transparent)]
    Plan(#[from] PipelineError),
    /// An output could not be written (then none was: the previous outputs are as they were).
    #[error("writing {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// What a build produced.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The directory of the artifacts.
    pub dir: PathBuf,
    /// Base name of the files (a C identifier).
    pub name: String,
    /// The Rust module.
    pub rust: PathBuf,
    /// The C header.
    pub header: PathBuf,
    /// The C source.
    pub source: PathBuf,
    /// One linker-script fragment per pool.
    pub linker: Vec<PathBuf>,
    /// The model's linker script, `NAME.x`, which includes every fragment.
    pub linker_script: PathBuf,
    /// The plan.
    pub plan: ModelPlan,
    /// The `cargo::` instructions the build gave (printed when running under Cargo).
    pub cargo_instructions: Vec<String>,
}

impl Generated {
    /// Links every pool's arena section into firmware: prints (under Cargo) the instructions
    /// that put the output folder on the linker's search path and pass `NAME.x` after the main
    /// script, and returns the linker arguments. One line in a build script, after the main
    /// script's own `-T` (cortex-m-rt's `link.x`). With GNU ld, `INCLUDE NAME.x` from
    /// `memory.x` instead (GNU ld does not apply `INSERT` from a later `-T`).
    ///
    /// ```no_run
    /// let generated = arenaplan_build::Build::new().model("model.pte").target("corstone-300").compile();
    /// println!("cargo::rustc-link-arg=-Tlink.x");
    /// generated.link_args();
    /// ```
    pub fn link_args(&self) -> Vec<String> {
        let args = vec![
            format!("-L{}", self.dir.display()),
            format!("-T{}", self.linker_script.display()),
        ];
        if std::env::var_os("OUT_DIR").is_some() {
            for a in &args {
                println!("cargo::rustc-link-arg={a}");
            }
        }
        args
    }

    /// A `cc::Build` set up to compile the generated C source (which defines the arenas and
    /// tables when the C side owns the symbols), with the header's directory on the include
    /// path. Add the integrator's own C files and call `compile`.
    ///
    /// In a build script of a crate that depends on the `arenaplan` crate, the runtime's headers
    /// are known (`DEP_ARENAPLAN_RUNTIME_INCLUDE`): then they are on the include path too, and
    /// the runtime's program tables (`NAME_program.c`) are compiled as well.
    pub fn cc_build(&self) -> cc::Build {
        let mut build = cc::Build::new();
        build.include(&self.dir).file(&self.source);
        if let Some(runtime) = std::env::var_os("DEP_ARENAPLAN_RUNTIME_INCLUDE") {
            build
                .include(runtime)
                .file(self.dir.join(format!("{}_program.c", self.name)));
        }
        build
    }
}

/// Settings of one planning build, changed through `&mut self` methods.
#[derive(Clone, Debug, Default)]
pub struct Build {
    targets_file: Option<PathBuf>,
    target: Option<String>,
    model: Option<PathBuf>,
    sources: Vec<PathBuf>,
    name: Option<String>,
    symbols: Symbols,
    out_dir: Option<PathBuf>,
    planner: Option<Planner>,
    cargo: Option<bool>,
}

impl Build {
    /// A build with the built-in targets, the target from `ARENAPLAN_TARGET`, and the crate's
    /// `src/` scanned.
    pub fn new() -> Self {
        Self::default()
    }

    /// Uses this targets catalogue (default: `ARENAPLAN_TARGETS_FILE`, else the built-in one).
    pub fn targets_file(&mut self, path: impl Into<PathBuf>) -> &mut Self {
        self.targets_file = Some(path.into());
        self
    }

    /// Plans for this target (default: `ARENAPLAN_TARGET`).
    pub fn target(&mut self, name: impl Into<String>) -> &mut Self {
        self.target = Some(name.into());
        self
    }

    /// The model to plan (`.pte`, `.tflite` or `.toml`).
    pub fn model(&mut self, path: impl Into<PathBuf>) -> &mut Self {
        self.model = Some(path.into());
        self
    }

    /// Scans this file for `#[delegate]` (default: every `.rs` under the crate's `src/`).
    pub fn source(&mut self, path: impl Into<PathBuf>) -> &mut Self {
        self.sources.push(path.into());
        self
    }

    /// Base name of the generated files and prefix of their C symbols (default: the model's
    /// name).
    pub fn name(&mut self, name: impl Into<String>) -> &mut Self {
        self.name = Some(name.into());
        self
    }

    /// Which side defines the arenas and tables (default: Rust).
    pub fn symbols(&mut self, side: Symbols) -> &mut Self {
        self.symbols = side;
        self
    }

    /// Writes the artifacts here (default: `OUT_DIR/arenaplan`).
    pub fn out_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Uses this planner (default: [`Planner::new`]).
    pub fn planner(&mut self, planner: Planner) -> &mut Self {
        self.planner = Some(planner);
        self
    }

    /// Whether to print `cargo:` instructions (default: when running under Cargo, i.e. when
    /// `OUT_DIR` is set).
    pub fn cargo_metadata(&mut self, on: bool) -> &mut Self {
        self.cargo = Some(on);
        self
    }

    /// Plans and writes the artifacts; on failure prints every problem as `cargo::error=` and
    /// exits with status 1, failing the build with the messages and nothing else.
    pub fn compile(&mut self) -> Generated {
        match self.try_compile() {
            Ok(g) => g,
            Err(e) => {
                for line in e.to_string().lines() {
                    println!("cargo::error=arenaplan: {line}");
                }
                std::process::exit(1);
            }
        }
    }

    /// Plans and writes the artifacts.
    pub fn try_compile(&mut self) -> Result<Generated, BuildError> {
        let cargo = self
            .cargo
            .unwrap_or_else(|| std::env::var_os("OUT_DIR").is_some());
        let instructions = std::cell::RefCell::new(Vec::new());
        // A line break in a path would start a cargo instruction of its own: such a line is
        // never printed, and the build stops below.
        let broken = std::cell::RefCell::new(None::<String>);
        let emit_cargo = |line: String| {
            if line.contains(['\n', '\r']) {
                broken.borrow_mut().get_or_insert(line);
                return;
            }
            if cargo {
                println!("{line}");
            }
            instructions.borrow_mut().push(line);
        };
        for var in [ENV_TARGET, ENV_TARGETS_FILE] {
            emit_cargo(format!("cargo::rerun-if-env-changed={var}"));
        }
        let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR")
            .map_or_else(|| PathBuf::from("."), PathBuf::from);
        let targets_file = self
            .targets_file
            .clone()
            .or_else(|| std::env::var_os(ENV_TARGETS_FILE).map(PathBuf::from));
        let catalogue = match &targets_file {
            Some(path) => {
                emit_cargo(format!("cargo::rerun-if-changed={}", path.display()));
                Catalogue::load(path).map_err(|d| BuildError::Input(vec![d]))?
            }
            None => Catalogue::builtin(),
        };
        let target_name = match self
            .target
            .clone()
            .or_else(|| std::env::var(ENV_TARGET).ok())
        {
            Some(t) => t,
            None => {
                let names: Vec<&str> = catalogue.targets.iter().map(|t| t.name.as_str()).collect();
                return Err(BuildError::Missing(format!(
                    "no target: call .target(\"...\") in build.rs or set {ENV_TARGET} to one of: {}",
                    names.join(", ")
                )));
            }
        };
        let target = catalogue.target(&target_name)?;
        let model_path = self.model.clone().ok_or_else(|| {
            BuildError::Missing("no model: call .model(\"path/to/model.pte\") in build.rs".into())
        })?;
        emit_cargo(format!("cargo::rerun-if-changed={}", model_path.display()));
        let sources = if self.sources.is_empty() {
            rust_files(&manifest_dir.join("src"))
        } else {
            self.sources.clone()
        };
        for s in &sources {
            emit_cargo(format!("cargo::rerun-if-changed={}", s.display()));
        }
        if self.sources.is_empty() {
            // New files under src/ must rerun the scan too.
            emit_cargo(format!(
                "cargo::rerun-if-changed={}",
                manifest_dir.join("src").display()
            ));
        }
        let found = scan(&sources, &manifest_dir, target).map_err(BuildError::Input)?;
        let declared: Vec<BackendScratch> = found.into_iter().map(|f| f.declaration).collect();
        let program = load_model(&model_path).map_err(|d| BuildError::Input(vec![d]))?;
        if let Some(line) = broken.borrow().as_ref() {
            return Err(BuildError::Missing(format!(
                "a path holds a line break, which a cargo instruction cannot carry: {line:?}; rename it"
            )));
        }
        let name = crate::names::base_name(self.name.as_deref().unwrap_or(&program.name))
            .map_err(|e| BuildError::Missing(format!("{e} with .name(...) in build.rs")))?;
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(|d| PathBuf::from(d).join("arenaplan"))
                .ok_or_else(|| BuildError::Missing("no output directory: OUT_DIR is not set (run from build.rs) and .out_dir(...) was not called".into()))?,
        };
        let planned = plan_and_emit(
            program,
            target,
            &declared,
            self.planner.clone(),
            &name,
            self.symbols,
            Emit::ALL,
        )?;
        // All artifacts or none: a failure leaves the previous ones as they were.
        write_all_if_changed(&out_dir, &planned.files).map_err(|e| BuildError::Write {
            path: match &e {
                WriteError::BadName { name } => out_dir.join(name),
                _ => e.path(),
            },
            source: e.into_io(),
        })?;
        let g = Generated {
            dir: out_dir.clone(),
            rust: out_dir.join(format!("{name}.rs")),
            header: out_dir.join(format!("{name}.h")),
            source: out_dir.join(format!("{name}.c")),
            linker: planned
                .files
                .iter()
                .filter(|(f, _)| f.ends_with(".ld"))
                .map(|(f, _)| out_dir.join(f))
                .collect(),
            linker_script: out_dir.join(format!("{name}.x")),
            name,
            plan: planned.plan,
            cargo_instructions: Vec::new(),
        };
        emit_cargo(format!("cargo::rustc-env={ENV_TARGET}={}", target.name));
        if let Some(path) = &targets_file {
            let absolute = if path.is_absolute() {
                path.clone()
            } else {
                manifest_dir.join(path)
            };
            emit_cargo(format!(
                "cargo::rustc-env={ENV_TARGETS_FILE}={}",
                absolute.display()
            ));
        }
        emit_cargo(format!(
            "cargo::rustc-env=ARENAPLAN_PLAN_RS={}",
            g.rust.display()
        ));
        Ok(Generated {
            cargo_instructions: instructions.into_inner(),
            ..g
        })
    }
}

/// A planned program and its artifacts.
pub struct Planned {
    /// The program as planned.
    pub program: Program,
    /// Its plan.
    pub plan: ModelPlan,
    /// (file name, contents) of every artifact.
    pub files: Vec<(String, String)>,
}

/// The one pipeline behind both the build API and `arenaplan plan`: plan `program` for
/// `target` with the firmware's declarations, and render the artifacts.
pub fn plan_and_emit(
    program: Program,
    target: &crate::targets::Target,
    declared: &[BackendScratch],
    planner: Option<Planner>,
    name: &str,
    symbols: Symbols,
    what: Emit,
) -> Result<Planned, PipelineError> {
    let mut pipeline = Pipeline::new(target);
    if let Some(p) = planner {
        pipeline.planner(p);
    }
    for d in declared {
        pipeline.declare(d.clone());
    }
    let (program, plan) = pipeline.run(program)?;
    if what.rust || what.c {
        if let Some(p) = plan.pools.iter().find(|p| p.size > u64::from(u32::MAX)) {
            return Err(PipelineError::TableOverflow {
                pool: p.name.clone(),
                size: p.size,
            });
        }
    }
    let files = emit(
        &Input {
            name,
            program: &program,
            plan: &plan,
            target,
            declared,
            symbols,
        },
        what,
    );
    Ok(Planned {
        program,
        plan,
        files,
    })
}

/// Scans `sources` relative to `base` and returns the declarations, for the CLI.
pub fn declarations(
    sources: &[PathBuf],
    base: &Path,
    target: &crate::targets::Target,
) -> Result<Vec<BackendScratch>, Vec<Diagnostic>> {
    scan(sources, base, target).map(|f| f.into_iter().map(|f| f.declaration).collect())
}
