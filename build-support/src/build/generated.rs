//! What a build produced, and how a firmware build script links it: the arenas' linker
//! sections (`link_args`, cortex-m-rt's `memory.x`) and a `cc::Build` for the generated C.

use std::path::{Path, PathBuf};

use crate::model::Program;
use crate::pipeline::ModelPlan;

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
    /// The program's operators that run on ExecuTorch's own kernels
    /// ([`Generated::executorch_build`] compiles them), in order of first call.
    pub executorch_kernels: Vec<&'static crate::kernels::executorch::Signature>,
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

impl Generated {
    /// A `cc::Build` (C++) of ExecuTorch's own kernels for the operators the program calls
    /// ([`Generated::executorch_kernels`]): each operator's file from ExecuTorch's sources
    /// (`EXECUTORCH_PATH`), the utilities they share, the bridge (from arenaplan-kernels, which
    /// the firmware depends on) and the generated shims (`NAME_kernels.cpp`); `None` when the
    /// program calls none. On a failure it prints `cargo::error=` and exits with status 1.
    ///
    /// ```no_run
    /// let generated = arenaplan_build::Build::new().model("model.pte").target("corstone-300").compile();
    /// generated.cc_build().compile("model_tables");
    /// if let Some(kernels) = generated.executorch_build() {
    ///     kernels.compile("model_kernels");
    /// }
    /// ```
    pub fn executorch_build(&self) -> Option<cc::Build> {
        match self.try_executorch_build() {
            Ok(b) => b,
            Err(e) => {
                for line in e.lines() {
                    println!("cargo::error=arenaplan: {line}");
                }
                std::process::exit(1);
            }
        }
    }

    /// [`Generated::executorch_build`], with its failure returned.
    pub fn try_executorch_build(&self) -> Result<Option<cc::Build>, String> {
        use crate::kernels::executorch::{
            ExecuTorchSources, DEFINES, ENV_EXECUTORCH_PATH, EXECUTORCH_FETCH, FLAGS,
        };
        if std::env::var_os("OUT_DIR").is_some() {
            println!("cargo::rerun-if-env-changed={ENV_EXECUTORCH_PATH}");
            println!("cargo::rerun-if-env-changed=CMSIS_NN_PATH");
        }
        if self.executorch_kernels.is_empty() {
            return Ok(None);
        }
        let ops: Vec<&str> = self.executorch_kernels.iter().map(|s| s.op).collect();
        let sources = ExecuTorchSources::from_env().ok_or_else(|| {
            format!(
                "the program's operators {} run on ExecuTorch's own kernels, compiled from its \
                 sources: set {ENV_EXECUTORCH_PATH} to a checkout of ExecuTorch (a folder named \
                 `executorch`; {EXECUTORCH_FETCH})",
                ops.join(", ")
            )
        })??;
        let bridge = std::env::var_os("DEP_ARENAPLAN_KERNELS_BRIDGE")
            .map(PathBuf::from)
            .ok_or_else(|| {
                format!(
                    "the program's operators {} run on ExecuTorch's own kernels, which bind \
                     through arenaplan-kernels: add `arenaplan-kernels` to [dependencies]",
                    ops.join(", ")
                )
            })?;
        let mut build = cc::Build::new();
        build.cpp(true).warnings(false).include(&self.dir);
        // Firmware links no C++ runtime library: the kernels build without exceptions or RTTI,
        // and the bridge defines the little they ask of one (ap_et_platform.cpp).
        if std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "none") {
            build
                .cpp_link_stdlib(None)
                .define("AP_ET_FREESTANDING", Some("1"));
        }
        // The core the runtime's C is built for (its `-march`/`-mtune` from rustc's
        // target-cpu), so the kernels and the CMSIS-NN they call run one instruction set.
        if let Ok(flags) = std::env::var("DEP_ARENAPLAN_RUNTIME_CORE_FLAGS") {
            for flag in flags.split_whitespace() {
                build.flag(flag);
            }
        }
        for dir in sources.includes() {
            build.include(dir);
        }
        build.include(&bridge);
        if let Some(runtime) = std::env::var_os("DEP_ARENAPLAN_RUNTIME_INCLUDE") {
            build.include(runtime);
        }
        if crate::kernels::executorch::need_cmsis_nn(&self.executorch_kernels) {
            // The runtime compiles CMSIS-NN's functions from the same checkout (CMSIS_NN_PATH).
            let nn = std::env::var_os("CMSIS_NN_PATH")
                .map(PathBuf::from)
                .ok_or_else(|| {
                    format!(
                    "the program's Cortex-M operators ({}) call CMSIS-NN: set CMSIS_NN_PATH to a \
                     checkout of Arm's CMSIS-NN (the runtime compiles it from there too)",
                    ops.join(", ")
                )
                })?;
            build.include(nn.join("Include"));
        }
        for flag in FLAGS {
            build.flag(flag);
        }
        build.define("ET_LOG_ENABLED", Some("0"));
        for define in DEFINES {
            let (name, value) = define
                .split_once('=')
                .map_or((*define, None), |(n, v)| (n, Some(v)));
            build.define(name, value);
        }
        // Firmware keeps only the functions it calls.
        build
            .flag_if_supported("-ffunction-sections")
            .flag_if_supported("-fdata-sections");
        use crate::kernels::executorch::{kernel_files, shims_file, unit_file, BRIDGE_SOURCE};
        for file in kernel_files(&self.executorch_kernels) {
            build.file(self.dir.join(unit_file(&self.name, file)));
        }
        for file in sources.support_files(&self.executorch_kernels) {
            build.file(file);
        }
        build
            .file(bridge.join(BRIDGE_SOURCE))
            .file(self.dir.join(shims_file(&self.name)));
        Ok(Some(build))
    }
}

/// Whether rustflags (Cargo's `CARGO_ENCODED_RUSTFLAGS`: arguments joined by 0x1f) pass
/// cortex-m-rt's `-Tlink.x`, in any of the forms a `.cargo/config.toml` writes it.
fn passes_link_x(encoded: &str) -> bool {
    encoded
        .split('\x1f')
        .any(|arg| arg == "-Tlink.x" || arg.ends_with("link-arg=-Tlink.x"))
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
