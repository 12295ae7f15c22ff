//! Plans a TFLite model for corstone-300 (Cortex-M55: CMSIS-NN's Helium scratch) and writes
//! TFLite Micro's recorded invocations of it (`build-support/testdata/tflm-reference/`) as
//! `reference.rs` for the firmware to check its outputs against.
//!
//! The model is `ARENAPLAN_TFLITE_MODEL`, by default the corpus's MLPerf Tiny keyword-spotting
//! model beside the repository (`../shared/corpus/`, not shipped with arenaplan). Without it,
//! or without CMSIS-NN (`CMSIS_NN_PATH`), the example builds on the host to a program that says
//! so, and refuses to build as firmware. `ARENAPLAN_FASTEST_KERNELS=1` plans every
//! convolution's fast variant (see `KernelVariants`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use arenaplan_build::model::Isa;
use arenaplan_build::KernelVariants;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(no_model)");
    for var in [
        "ARENAPLAN_TFLITE_MODEL",
        "ARENAPLAN_FASTEST_KERNELS",
        "CMSIS_NN_PATH",
    ] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let model = std::env::var_os("ARENAPLAN_TFLITE_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            root.join("../../../shared/corpus/tflite/mlperftiny__kws_ref_model.tflite")
        });
    let stem = model
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let reference = root
        .join("../../build-support/testdata/tflm-reference")
        .join(&stem);
    let missing = if std::env::var_os("CMSIS_NN_PATH").is_none() {
        Some("CMSIS_NN_PATH is unset: the runtime has no TFLite kernels".to_owned())
    } else if !model.is_file() {
        Some(format!("no model at {}", model.display()))
    } else if !reference.join("0-in0.npy").is_file() {
        Some(format!("no TFLM reference in {}", reference.display()))
    } else {
        None
    };
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let on_board = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "none");
    if let Some(why) = missing {
        // Firmware without a model is no firmware; on the host the example says why instead
        // (CI checks that its run there says it ran).
        assert!(!on_board, "{why}");
        println!("cargo::warning=tflite-cmsis-nn: {why}; the example only says so");
        println!("cargo::rustc-cfg=no_model");
        std::fs::write(out.join("skipped.txt"), why).unwrap();
        return;
    }
    let mut build = arenaplan_build::Build::new();
    build.model(&model).target("corstone-300").name("model");
    if !on_board {
        // On the host the runtime's CMSIS-NN is plain C: plan its scratch, not Helium's.
        build.kernel_isa(Isa::Plain);
    }
    // ARENAPLAN_FASTEST_KERNELS=1: every convolution on its fast variant, its scratch planned
    // even where the arena grows (by default one runs without where its scratch would).
    if std::env::var_os("ARENAPLAN_FASTEST_KERNELS").is_some_and(|v| v == "1") {
        build.kernel_variants(KernelVariants::Fastest);
    }
    let generated = build.compile();
    generated.cc_build().compile("model_tables");
    generated
        .link_cortex_m_rt("memory.x")
        .expect("memory.x is readable");
    std::fs::write(out.join("reference.rs"), reference_rs(&reference)).unwrap();
}

/// TFLM's invocations as constants: each one's input and output `.npy` files, included.
fn reference_rs(folder: &Path) -> String {
    let file = |k: usize, side: &str, i: usize| folder.join(format!("{k}-{side}{i}.npy"));
    let mut rs = String::from(
        "/// The `.npy` files of one invocation's inputs or outputs, in order.\n\
         pub type Files = &'static [&'static [u8]];\n\
         /// TFLite Micro's invocations of the model: its inputs, then its outputs.\n\
         pub const INVOCATIONS: &[(Files, Files)] = &[\n",
    );
    let mut k = 0;
    while file(k, "in", 0).is_file() {
        let list = |side: &str| {
            let mut items = String::new();
            let mut i = 0;
            while file(k, side, i).is_file() {
                println!("cargo::rerun-if-changed={}", file(k, side, i).display());
                let path = file(k, side, i).to_string_lossy().into_owned();
                let _ = write!(items, "include_bytes!({path:?}), ");
                i += 1;
            }
            items
        };
        let _ = writeln!(rs, "    (&[{}], &[{}]),", list("in"), list("out"));
        k += 1;
    }
    rs.push_str("];\n");
    rs
}
