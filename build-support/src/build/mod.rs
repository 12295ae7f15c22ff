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

mod kernels;
mod scan;

use std::path::{Path, PathBuf};

use thiserror::Error;

pub use kernels::{missing_kernels, MissingKernel};
pub use scan::{declarations, rust_files, scan, Declaration, Found};

use crate::diagnostic::Diagnostic;
use crate::emit::{emit, Blobs, Emit, EmitError, Input, Symbols};
use crate::import::{load_model_in, ModelFolder};
use crate::model::Program;
use crate::output::{write_all_if_changed, WriteError};
use crate::pipeline::{Declarations, ModelPlan, Pipeline, PipelineError};
use crate::targets::Catalogue;
use crate::verify::{verify, PlanCheckError};
use arenaplan_planner::Planner;

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
    /// The plan does not hold for its program and target (a bug in arenaplan): nothing was
    /// emitted.
    #[error(transparent)]
    Verify(#[from] PlanCheckError),
    /// The plan cannot be written as the requested artifacts.
    #[error(transparent)]
    Emit(#[from] EmitError),
    /// Operators of the model that no kernel implements (TFLite operators arenaplan has no
    /// kernel for, which no `#[kernel]` or [`Build::external_kernel`] provides): the tables
    /// would not link.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    NoKernel(Vec<MissingKernel>),
    /// An output's file name is not one plain, unique file name (from `.name(...)`), or the
    /// output folder is not one arenaplan may replace (a symbolic link, a device, someone
    /// else's folder: from `.out_dir(...)`), which was left untouched.
    #[error(transparent)]
    OutputName(WriteError),
    /// An output could not be written (then none was: the previous outputs are as they were).
    #[error("writing {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl BuildError {
    /// The exit status every arenaplan program gives for this failure (the CLI and the demo
    /// alike): 1, the model's buffers do not fit (a pool over capacity, or a search stopped
    /// before it found a plan); 2, anything wrong with what the user gave (a model, a target, a
    /// declaration, a setting); 3, an output could not be written; 4, a bug in arenaplan.
    ///
    /// ```
    /// let e = arenaplan_build::BuildError::Missing("no model: call .model(path)".into());
    /// assert_eq!(e.exit_status(), 2);
    /// ```
    pub fn exit_status(&self) -> u8 {
        use arenaplan_planner::PlanError;
        match self {
            BuildError::Plan(
                PipelineError::Overflow(_)
                | PipelineError::Plan {
                    source: PlanError::DoesNotFit { .. } | PlanError::Stopped { .. },
                    ..
                },
            )
            | BuildError::NoKernel(_) => 1,
            BuildError::Plan(PipelineError::Plan {
                source: PlanError::Unverified(_),
                ..
            })
            | BuildError::Verify(_) => 4,
            BuildError::Write { .. } => 3,
            _ => 2,
        }
    }
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
    /// Every artifact of the build, in a fixed order (unchanged ones were not rewritten).
    pub files: Vec<PathBuf>,
    /// The plan.
    pub plan: ModelPlan,
    /// The program as planned (scratch inserted; constants with the bytes the model carries),
    /// e.g. for a build script that computes reference outputs.
    pub program: Program,
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

    /// Links a cortex-m-rt firmware in one call from its build script: on a bare-metal target
    /// (`CARGO_CFG_TARGET_OS` is `none`) it copies the crate's `memory_x` into `OUT_DIR` (where
    /// cortex-m-rt's `link.x` includes it), links with `-Tlink.x` and then the model's `NAME.x`
    /// ([`Generated::link_args`]), and reruns when `memory_x` changes. Where the crate's
    /// rustflags already pass `-Tlink.x` (cortex-m-rt's usual `.cargo/config.toml`), it does not
    /// pass it again (twice, the linker stops at `region 'FLASH' already defined`). On the host
    /// it does nothing. Returns whether it linked.
    ///
    /// ```no_run
    /// let generated = arenaplan_build::Build::new().model("model.pte").target("corstone-300").compile();
    /// generated.link_cortex_m_rt("memory.x").expect("memory.x is readable");
    /// ```
    pub fn link_cortex_m_rt(&self, memory_x: impl AsRef<Path>) -> std::io::Result<bool> {
        if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("none") {
            return Ok(false);
        }
        let memory_x = memory_x.as_ref();
        let out = std::env::var_os("OUT_DIR")
            .map(PathBuf::from)
            .ok_or_else(|| {
                std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "OUT_DIR is not set: call this from build.rs",
                )
            })?;
        std::fs::copy(memory_x, out.join("memory.x"))?;
        println!("cargo::rustc-link-search={}", out.display());
        println!("cargo::rerun-if-changed={}", memory_x.display());
        let rustflags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
        if !passes_link_x(&rustflags) {
            println!("cargo::rustc-link-arg=-Tlink.x");
        }
        self.link_args();
        Ok(true)
    }

    /// A `cc::Build` set up to compile the generated C source (which defines the arenas and
    /// tables when the C side owns the symbols), with the header's directory on the include
    /// path. Add the integrator's own C files and call `compile`. The generated header uses the
    /// runtime's types (`arenaplan/runtime.h`): depend on the `arenaplan` crate, or add its
    /// `include/` folder yourself.
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
    catalogue: Option<Catalogue>,
    target: Option<String>,
    model: Option<PathBuf>,
    files_root: Option<PathBuf>,
    program: Option<Program>,
    sources: Option<Vec<PathBuf>>,
    base: Option<PathBuf>,
    name: Option<String>,
    symbols: Symbols,
    emit: Option<Emit>,
    out_dir: Option<PathBuf>,
    planner: Option<Planner>,
    io_apart: bool,
    kernel_isa: Option<crate::model::Isa>,
    kernel_variants: crate::pipeline::KernelVariants,
    external_kernels: Vec<String>,
    blobs: Option<Blobs>,
    cargo: Option<bool>,
}

/// Whether rustflags (Cargo's `CARGO_ENCODED_RUSTFLAGS`: arguments joined by 0x1f) pass
/// cortex-m-rt's `-Tlink.x`, in any of the forms a `.cargo/config.toml` writes it.
fn passes_link_x(encoded: &str) -> bool {
    encoded
        .split('\x1f')
        .any(|arg| arg == "-Tlink.x" || arg.ends_with("link-arg=-Tlink.x"))
}

/// A planned, verified and rendered model: what [`Build::try_render`] returns.
#[derive(Clone, Debug)]
pub struct Rendered {
    /// Base name of the files (a C identifier).
    pub name: String,
    /// The target planned for.
    pub target: String,
    /// The program as planned (scratch inserted).
    pub program: Program,
    /// The plan.
    pub plan: ModelPlan,
    /// Every requested artifact as (file name, contents), in a fixed order: text but for the
    /// blob files of [`Blobs::Incbin`].
    pub files: Vec<(String, Vec<u8>)>,
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

    /// Uses this catalogue, already read (instead of [`Build::targets_file`]): for tools that
    /// read the file themselves, like the `arenaplan` command. A build script uses
    /// [`Build::targets_file`] instead, which also points the `#[delegate]` macro at the same
    /// file (`ARENAPLAN_TARGETS_FILE`); with a catalogue given here the macro checks against
    /// the built-in one.
    pub fn catalogue(&mut self, catalogue: Catalogue) -> &mut Self {
        self.catalogue = Some(catalogue);
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

    /// Lets the model name files (a TOML model's `blob = "…"`) anywhere under `dir`, not only
    /// inside its own folder (the default, so that a model cannot pull the build machine's
    /// files into firmware). Absolute paths and system folders stay refused.
    ///
    /// ```no_run
    /// // blobs shared by several models, one folder up
    /// arenaplan_build::Build::new()
    ///     .model("models/kws/kws.toml")
    ///     .files_root("models")
    ///     .compile();
    /// ```
    pub fn files_root(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.files_root = Some(dir.into());
        self
    }

    /// Plans this program, already read (instead of [`Build::model`]).
    pub fn program(&mut self, program: Program) -> &mut Self {
        self.program = Some(program);
        self
    }

    /// Scans this file for `#[delegate]` (default: every `.rs` under the crate's `src/`).
    pub fn source(&mut self, path: impl Into<PathBuf>) -> &mut Self {
        self.sources.get_or_insert_with(Vec::new).push(path.into());
        self
    }

    /// Scans exactly these files for `#[delegate]`, none if empty (default: every `.rs` under
    /// the crate's `src/`).
    pub fn sources<P: Into<PathBuf>>(&mut self, paths: impl IntoIterator<Item = P>) -> &mut Self {
        self.sources = Some(paths.into_iter().map(Into::into).collect());
        self
    }

    /// Scanned sources are named relative to this folder in diagnostics and generated
    /// comments (default: the crate's folder, `CARGO_MANIFEST_DIR`, else the current one), so
    /// builds from different folders write the same bytes.
    pub fn base(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.base = Some(dir.into());
        self
    }

    /// Which artifacts to write (default: [`Emit::ALL`]).
    pub fn emit(&mut self, what: Emit) -> &mut Self {
        self.emit = Some(what);
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

    /// How delegate blobs are linked (default: [`Blobs::Incbin`], or [`Blobs::CArray`] in a
    /// build script for a target whose objects are not ELF: Apple's and Windows').
    ///
    /// ```no_run
    /// use arenaplan_build::{Blobs, Build};
    /// // A compiler without GNU assembler directives: blobs as C arrays.
    /// Build::new().model("model/kws.pte").target("corstone-300").blobs(Blobs::CArray).compile();
    /// ```
    pub fn blobs(&mut self, blobs: Blobs) -> &mut Self {
        self.blobs = Some(blobs);
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

    /// Whether an NPU call's inputs and outputs may sit at their slots inside its scratch,
    /// where the NPU reads and writes them and nothing is copied (default: yes, where that
    /// saves memory, as Vela's own plan does). An input there is the NPU's once its call has
    /// run: write every input before every run. `false` keeps each tensor apart from the
    /// scratch, copied in and out at each call.
    ///
    /// ```no_run
    /// arenaplan_build::Build::new()
    ///     .model("model/kws.pte")
    ///     .target("corstone-300")
    ///     .io_in_scratch(false) // inputs stay valid after a run
    ///     .compile();
    /// ```
    pub fn io_in_scratch(&mut self, allow: bool) -> &mut Self {
        self.io_apart = !allow;
        self
    }

    /// Sizes the scratch of CPU kernels (TFLite operators on CMSIS-NN) for instruction set
    /// `isa` instead of the target's `cpu` (default). A host run of a board's program needs
    /// this: its kernels are the host's plain-C build, whose buffers differ from Helium's.
    ///
    /// ```no_run
    /// use arenaplan_build::model::Isa;
    /// arenaplan_build::Build::new()
    ///     .model("model/kws.tflite")
    ///     .target("corstone-300")
    ///     .kernel_isa(Isa::Plain) // run on the host, the board's pools
    ///     .compile();
    /// ```
    pub fn kernel_isa(&mut self, isa: crate::model::Isa) -> &mut Self {
        self.kernel_isa = Some(isa);
        self
    }

    /// How CPU kernels with a scratch-free variant are chosen (CMSIS-NN's convolution and
    /// depthwise kernels, see [`KernelVariants`](crate::pipeline::KernelVariants)). By default
    /// the fast variant runs wherever its scratch does not make the arena larger;
    /// `KernelVariants::Fastest` plans its scratch everywhere, trading RAM for speed.
    ///
    /// ```no_run
    /// use arenaplan_build::pipeline::KernelVariants;
    /// arenaplan_build::Build::new()
    ///     .model("model/kws.tflite")
    ///     .target("corstone-300")
    ///     .kernel_variants(KernelVariants::Fastest) // im2col everywhere, more RAM
    ///     .compile();
    /// ```
    pub fn kernel_variants(&mut self, variants: crate::pipeline::KernelVariants) -> &mut Self {
        self.kernel_variants = variants;
        self
    }

    /// Says that the firmware links a kernel for operator `op` that the scan cannot see (one
    /// written in C, `ap_kernel_<op>`), so that the build does not refuse a TFLite operator
    /// arenaplan has no kernel for (`builtin:N`, `custom:NAME`).
    ///
    /// ```no_run
    /// arenaplan_build::Build::new()
    ///     .model("model/preprocessor.tflite")
    ///     .target("corstone-300")
    ///     .external_kernel("custom:SignalFft") // ap_kernel_custom_3aSignalFft, in C
    ///     .compile();
    /// ```
    pub fn external_kernel(&mut self, op: impl Into<String>) -> &mut Self {
        self.external_kernels.push(op.into());
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
                for line in crate::names::display(&e.to_string()).lines() {
                    println!("cargo::error=arenaplan: {line}");
                }
                std::process::exit(1);
            }
        }
    }

    /// Plans and writes the artifacts.
    pub fn try_compile(&mut self) -> Result<Generated, BuildError> {
        let mut cargo = CargoOutput::new(
            self.cargo
                .unwrap_or_else(|| std::env::var_os("OUT_DIR").is_some()),
        );
        let rendered = self.render(&mut cargo)?;
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => {
                let dir = std::env::var_os("OUT_DIR")
                    .map(|d| PathBuf::from(d).join("arenaplan"))
                    .ok_or_else(|| BuildError::Missing("no output directory: OUT_DIR is not set (run from build.rs) and .out_dir(...) was not called".into()))?;
                // Cargo's OUT_DIR is the build's own: a plain folder there was written file
                // by file by an earlier arenaplan, and is replaced by a published set (on
                // Unix, where a set is a link; elsewhere the folder is the set).
                if cfg!(unix) && std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
                    std::fs::remove_dir_all(&dir).map_err(|source| BuildError::Write {
                        path: dir.clone(),
                        source,
                    })?;
                }
                dir
            }
        };
        // All artifacts or none: a failure leaves the previous ones as they were.
        write_all_if_changed(&out_dir, &rendered.files).map_err(|e| match e {
            e if e.is_bad_request() => BuildError::OutputName(e),
            _ => BuildError::Write {
                path: e.path(),
                source: e.into_io(),
            },
        })?;
        let name = rendered.name;
        let g = Generated {
            dir: out_dir.clone(),
            rust: out_dir.join(format!("{name}.rs")),
            header: out_dir.join(format!("{name}.h")),
            source: out_dir.join(format!("{name}.c")),
            linker: rendered
                .files
                .iter()
                .filter(|(f, _)| f.ends_with(".ld"))
                .map(|(f, _)| out_dir.join(f))
                .collect(),
            linker_script: out_dir.join(format!("{name}.x")),
            files: rendered
                .files
                .iter()
                .map(|(f, _)| out_dir.join(f))
                .collect(),
            name,
            plan: rendered.plan,
            program: rendered.program,
            cargo_instructions: Vec::new(),
        };
        cargo.line(format!("cargo::rustc-env={ENV_TARGET}={}", rendered.target));
        if let Some(path) = self.targets_path() {
            let absolute = if path.is_absolute() {
                path
            } else {
                manifest_dir().join(path)
            };
            cargo.line(format!(
                "cargo::rustc-env={ENV_TARGETS_FILE}={}",
                absolute.display()
            ));
        }
        cargo.line(format!(
            "cargo::rustc-env=ARENAPLAN_PLAN_RS={}",
            g.rust.display()
        ));
        Ok(Generated {
            cargo_instructions: cargo.lines,
            ..g
        })
    }

    /// Plans, verifies and renders the artifacts without writing anything or printing cargo
    /// instructions (the CLI's `inspect`, tools, tests).
    pub fn try_render(&self) -> Result<Rendered, BuildError> {
        self.render(&mut CargoOutput::new(false))
    }

    /// The targets file in use, if not the built-in catalogue.
    fn targets_path(&self) -> Option<PathBuf> {
        if self.catalogue.is_some() {
            return None;
        }
        self.targets_file
            .clone()
            .or_else(|| std::env::var_os(ENV_TARGETS_FILE).map(PathBuf::from))
    }

    /// Every stage up to the artifacts: inputs → scan → pipeline → verify → emit.
    fn render(&self, cargo: &mut CargoOutput) -> Result<Rendered, BuildError> {
        for var in [ENV_TARGET, ENV_TARGETS_FILE] {
            cargo.line(format!("cargo::rerun-if-env-changed={var}"));
        }
        let manifest_dir = manifest_dir();
        let loaded;
        let catalogue = match (&self.catalogue, self.targets_path()) {
            (Some(c), _) => c,
            (None, Some(path)) => {
                cargo.line(format!("cargo::rerun-if-changed={}", path.display()));
                loaded = Catalogue::load(&path).map_err(|d| BuildError::Input(vec![d]))?;
                &loaded
            }
            (None, None) => {
                loaded = Catalogue::builtin();
                &loaded
            }
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
        // The program given, or the model file to read (after the scan).
        enum Model<'a> {
            Given(&'a Program),
            File(&'a PathBuf),
        }
        let model = match (&self.program, &self.model) {
            (Some(program), _) => Model::Given(program),
            (None, Some(path)) => Model::File(path),
            (None, None) => {
                return Err(BuildError::Missing(
                    "no model: call .model(\"path/to/model.pte\") in build.rs".into(),
                ))
            }
        };
        if let Model::File(path) = model {
            cargo.line(format!("cargo::rerun-if-changed={}", path.display()));
        }
        let sources = match &self.sources {
            Some(given) => given.clone(),
            None => rust_files(&manifest_dir.join("src")),
        };
        for s in &sources {
            cargo.line(format!("cargo::rerun-if-changed={}", s.display()));
        }
        if self.sources.is_none() {
            // New files under src/ must rerun the scan too.
            cargo.line(format!(
                "cargo::rerun-if-changed={}",
                manifest_dir.join("src").display()
            ));
        }
        let base = self.base.clone().unwrap_or_else(|| manifest_dir.clone());
        let found = scan(&sources, &base, target).map_err(BuildError::Input)?;
        let declared = scan::declarations(found);
        let program = match model {
            Model::Given(program) => program.clone(),
            Model::File(path) => {
                let files = ModelFolder::of(path).allow_under(self.files_root.as_ref());
                load_model_in(path, &files).map_err(|d| BuildError::Input(vec![d]))?
            }
        };
        if let Some(line) = &cargo.broken {
            return Err(BuildError::Missing(format!(
                "a path holds a line break, which a cargo instruction cannot carry: {line:?}; rename it"
            )));
        }
        let name = crate::names::base_name(self.name.as_deref().unwrap_or(&program.name)).map_err(
            |e| {
                BuildError::Missing(format!(
                    "{e} with .name(...) in build.rs (--name for the arenaplan command)"
                ))
            },
        )?;
        let missing = missing_kernels(&program, &declared, &self.external_kernels);
        if !missing.is_empty() {
            return Err(BuildError::NoKernel(missing));
        }
        let mut pipeline = Pipeline::new(target);
        if let Some(p) = &self.planner {
            pipeline.planner(p.clone());
        }
        pipeline.io_in_scratch(!self.io_apart);
        if let Some(isa) = self.kernel_isa {
            pipeline.kernel_isa(isa);
        }
        pipeline.kernel_variants(self.kernel_variants);
        for d in &declared.backends {
            pipeline.declare(d.clone());
        }
        for k in &declared.kernels {
            pipeline.declare_kernel(k.clone());
        }
        let (program, plan) = pipeline.run(program)?;
        let files = verify_and_emit(
            &program,
            &plan,
            target,
            &Artifacts {
                name: &name,
                declared: &declared,
                symbols: self.symbols,
                blobs: self.blobs.unwrap_or_else(default_blobs),
                what: self.emit.unwrap_or(Emit::ALL),
            },
        )?;
        Ok(Rendered {
            name,
            target: target.name.clone(),
            program,
            plan,
            files,
        })
    }
}

/// What to generate from a plan, and how to name it.
#[derive(Clone, Copy, Debug)]
pub struct Artifacts<'a> {
    /// Base name of the files and prefix of C symbols (a C identifier).
    pub name: &'a str,
    /// The firmware's `#[delegate]` declarations.
    pub declared: &'a Declarations,
    /// Which side defines the arenas and tables.
    pub symbols: Symbols,
    /// How delegate blobs are linked.
    pub blobs: Blobs,
    /// Which artifacts.
    pub what: Emit,
}

/// The stages after planning, as every build runs them: the verify stage on the plan and on
/// every call against the firmware's declarations, then the emitters on what it accepted. A
/// plan that does not hold fails here, before any byte of generated code exists.
pub fn verify_and_emit(
    program: &Program,
    plan: &ModelPlan,
    target: &crate::targets::Target,
    artifacts: &Artifacts<'_>,
) -> Result<Vec<(String, Vec<u8>)>, BuildError> {
    let verified = verify(program, plan, target)?;
    crate::verify::check_declarations(program, artifacts.declared, target)?;
    let input = Input::new(
        verified,
        artifacts.name,
        artifacts.declared,
        artifacts.symbols,
    )
    .blobs(artifacts.blobs);
    Ok(emit(&input, artifacts.what)?)
}

/// `.incbin` (ELF's GNU assembler directives), but C arrays where a build script compiles for
/// a target whose objects are Mach-O or COFF (Cargo's `CARGO_CFG_TARGET_*`).
fn default_blobs() -> Blobs {
    let cfg = |key: &str| std::env::var(key).unwrap_or_default();
    if cfg("CARGO_CFG_TARGET_VENDOR") == "apple" || cfg("CARGO_CFG_TARGET_OS") == "windows" {
        Blobs::CArray
    } else {
        Blobs::Incbin
    }
}

/// The crate's folder under Cargo, else the current one.
fn manifest_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| PathBuf::from("."), PathBuf::from)
}

/// The `cargo::` instructions of one build: printed under Cargo, and kept for [`Generated`].
struct CargoOutput {
    print: bool,
    lines: Vec<String>,
    /// The first instruction that held a line break (never printed: it would start an
    /// instruction of its own); the build stops on it.
    broken: Option<String>,
}

impl CargoOutput {
    fn new(print: bool) -> Self {
        CargoOutput {
            print,
            lines: Vec::new(),
            broken: None,
        }
    }

    fn line(&mut self, line: String) {
        // Only a printed instruction can be split by a line break (the CLI prints none).
        if self.print && line.contains(['\n', '\r']) {
            self.broken.get_or_insert(line);
            return;
        }
        if self.print {
            println!("{line}");
        }
        self.lines.push(line);
    }
}

#[cfg(test)]
mod link_x_tests {
    #[test]
    fn rustflags_that_pass_link_x_are_seen() {
        for flags in ["-C\x1flink-arg=-Tlink.x", "-Clink-arg=-Tlink.x", "-Tlink.x"] {
            assert!(super::passes_link_x(flags), "{flags:?}");
        }
        for flags in [
            "",
            "-C\x1flink-arg=-Tdefmt.x",
            "-C\x1flink-arg=-Tmy_link.x.in",
        ] {
            assert!(!super::passes_link_x(flags), "{flags:?}");
        }
    }
}
