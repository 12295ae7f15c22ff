//! Plans the ExecuTorch program of the Cortex-M backend's keyword spotter
//! (`build-support/testdata/exported/cortex_m55_kws`, ExecuTorch 1.5.1's own export for a
//! Cortex-M55) for corstone-300, compiles its tables and ExecuTorch's own kernels of its
//! operators (`EXECUTORCH_PATH`, on the runtime's CMSIS-NN: `CMSIS_NN_PATH`), and writes the
//! recorded calls as `reference.rs` for the firmware to check its outputs against.
//!
//! Without ExecuTorch's or CMSIS-NN's sources, or the program (a packaged copy of the example),
//! the example builds on the host to a program that says so, and refuses to build as firmware.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use arenaplan_build::model::Isa;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(no_kernels)");
    for var in ["EXECUTORCH_PATH", "CMSIS_NN_PATH"] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let case = root.join("../../build-support/testdata/exported/cortex_m55_kws");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let on_board = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "none");
    let program = case.join("program.pte");
    let missing = ["EXECUTORCH_PATH", "CMSIS_NN_PATH"]
        .into_iter()
        .find(|v| std::env::var_os(v).is_none())
        .map(|var| {
            format!(
                "{var} is unset: the program's operators run on ExecuTorch's kernels over CMSIS-NN"
            )
        })
        // The program is the repository's: a packaged copy of the example has none.
        .or_else(|| (!program.is_file()).then(|| format!("no program at {}", program.display())));
    if let Some(why) = missing {
        assert!(!on_board, "{why}");
        println!("cargo::warning=executorch-cortex-m: {why}; the example only says so");
        println!("cargo::rustc-cfg=no_kernels");
        std::fs::write(out.join("skipped.txt"), why).unwrap();
        return;
    }
    let mut build = arenaplan_build::Build::new();
    build
        .model(case.join("program.pte"))
        .target("corstone-300")
        .name("model");
    if !on_board {
        // On the host the runtime's CMSIS-NN is plain C: the Cortex-M operators are made
        // right for it (buffers, fully connected's bias), not for the M55's Helium.
        build.kernel_isa(Isa::Plain);
    }
    let generated = build.compile();
    generated.cc_build().compile("model_tables");
    if let Some(kernels) = generated.executorch_build() {
        kernels.compile("model_kernels");
    }
    generated
        .link_cortex_m_rt("memory.x")
        .expect("memory.x is readable");
    std::fs::write(out.join("reference.rs"), reference_rs(&case)).unwrap();
}

/// The recorded calls as constants: each one's input and output `.npy` files, included.
fn reference_rs(folder: &Path) -> String {
    let file = |k: usize, name: String| folder.join(format!("{k}-forward-{name}.npy"));
    let mut rs = String::from(
        "/// The `.npy` files of one call's inputs or outputs, in order.\n\
         pub type Files = &'static [&'static [u8]];\n\
         /// The recorded calls of `forward`: their inputs, then their outputs.\n\
         pub const CALLS: &[(Files, Files)] = &[\n",
    );
    let mut k = 0;
    while file(k, "in0".into()).is_file() {
        let list = |prefix: &str| {
            let mut items = String::new();
            let mut i = 0;
            while file(k, format!("{prefix}{i}")).is_file() {
                let path = file(k, format!("{prefix}{i}"));
                println!("cargo::rerun-if-changed={}", path.display());
                let _ = write!(items, "include_bytes!({:?}), ", path.to_string_lossy());
                i += 1;
            }
            items
        };
        let _ = writeln!(rs, "    (&[{}], &[{}]),", list("in"), list(""));
        k += 1;
    }
    rs.push_str("];\n");
    rs
}
