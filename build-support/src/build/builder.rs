//! [`Build`]: the settings of one planning build and the run of every stage over them (import,
//! scan, pipeline, verify, emit, write).

use std::path::PathBuf;

use super::artifacts::{verify_and_emit, Artifacts};
use super::cargo_output::CargoOutput;
use super::{
    missing_kernels, rust_files, scan, BuildError, Generated, ENV_TARGET, ENV_TARGETS_FILE,
};
use crate::emit::{Blobs, Emit, Symbols};
use crate::import::{load_model_in, ModelFolder};
use crate::model::Program;
use crate::output::write_all_if_changed;
use crate::pipeline::{ModelPlan, Pipeline};
use crate::targets::Catalogue;
use arenaplan_planner::Planner;

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
    kernel_variants: crate::KernelVariants,
    all_kernel_dtypes: bool,
    external_kernels: Vec<String>,
    blobs: Option<Blobs>,
    cargo: Option<bool>,
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
    /// The operators that run on ExecuTorch's own kernels, in order of first call.
    pub executorch_kernels: Vec<&'static crate::kernels::executorch::Signature>,
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

    /// Compiles ExecuTorch's kernels for every dtype they support rather than only those the
    /// program's calls use (the default, a selective build: `aten::add.out` on float tensors
    /// is about a fifth of all dtypes' code). For a firmware that swaps programs at run time.
    ///
    /// ```no_run
    /// arenaplan_build::Build::new()
    ///     .model("model/encoder.pte")
    ///     .target("corstone-300")
    ///     .all_kernel_dtypes(true)
    ///     .compile();
    /// ```
    pub fn all_kernel_dtypes(&mut self, all: bool) -> &mut Self {
        self.all_kernel_dtypes = all;
        self
    }

    /// How CPU kernels with a scratch-free variant are chosen (CMSIS-NN's convolution and
    /// depthwise kernels, see [`KernelVariants`](crate::KernelVariants)). By default
    /// the fast variant runs wherever its scratch does not make the arena larger;
    /// `KernelVariants::Fastest` plans its scratch everywhere, trading RAM for speed.
    ///
    /// ```no_run
    /// use arenaplan_build::KernelVariants;
    /// arenaplan_build::Build::new()
    ///     .model("model/kws.tflite")
    ///     .target("corstone-300")
    ///     .kernel_variants(KernelVariants::Fastest) // im2col everywhere, more RAM
    ///     .compile();
    /// ```
    pub fn kernel_variants(&mut self, variants: crate::KernelVariants) -> &mut Self {
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
            executorch_kernels: rendered.executorch_kernels,
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
        // One line a firmware engineer sees when the plan changes (Cargo shows a build
        // script's warnings when it runs): each pool's arena and where the report is.
        let pools: Vec<String> = g
            .plan
            .pools
            .iter()
            .map(|p| {
                format!(
                    "{} {} of {}",
                    p.name,
                    crate::report::human_bytes(p.size),
                    crate::report::human_bytes(p.capacity)
                )
            })
            .collect();
        let report = g
            .files
            .iter()
            .find(|f| f.extension().is_some_and(|e| e == "txt"))
            .map_or(String::new(), |r| format!("; report {}", r.display()));
        cargo.line(format!(
            "cargo::warning=arenaplan: `{}` on {}: {}{report}",
            crate::names::display(&g.program.name),
            rendered.target,
            pools.join(", ")
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
        if let Some(why) = super::kernels::tflite_kernels_left_out(&program) {
            return Err(BuildError::RuntimeLacks(why));
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
        let firmware_has = |op: &str| {
            declared.kernels.iter().any(|k| k.op == op)
                || self.external_kernels.iter().any(|e| e == op)
        };
        let executorch_kernels =
            crate::kernels::executorch::program_operators(&program, firmware_has);
        let files = verify_and_emit(
            &program,
            &plan,
            target,
            &Artifacts {
                executorch: &executorch_kernels,
                all_kernel_dtypes: self.all_kernel_dtypes,
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
            executorch_kernels,
        })
    }
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
