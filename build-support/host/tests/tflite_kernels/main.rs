//! Each TFLite operator the runtime has a kernel for, on its own, against the reference
//! runtime, as TFLite Micro's `kernels/*_test.cc` test them: one module per operator (named as
//! its folder of `build-support/testdata/tflite-kernels/`), one test per case — dtypes,
//! broadcasting, padding, strides and dilation, fused activations, extreme quantization,
//! sizes of 1. Each case is a single-operator model TensorFlow's converter exported, run on
//! the inputs the TFLite Micro interpreter was given (the range's ends among them) on the same
//! path as `tflm_kernels.rs` (imported and planned by arenaplan-build with the plain-C
//! CMSIS-NN's scratch, run on the C runtime by arenaplan-host), once with the arena-fitting
//! kernel variants and once with the fastest; every output byte is the interpreter's.
//!
//! The models and TFLM's results are made by `scripts/make_tflite_kernel_tests.py` (pinned:
//! `scripts/requirements-tflm.txt`, `scripts/requirements-tf.txt`):
//!
//! ```text
//! python3 -m venv /tmp/tflm
//! /tmp/tflm/bin/pip install -r scripts/requirements-tflm.txt -r scripts/requirements-tf.txt
//! /tmp/tflm/bin/python scripts/make_tflite_kernel_tests.py           # rewrite the folder
//! /tmp/tflm/bin/python scripts/make_tflite_kernel_tests.py --check   # compare with it
//! ```
//!
//! A new case is a line of the script's `CASES` and its name here, in its operator's
//! `cases!`; `every_generated_case_has_a_test` fails until both agree. The TFLite kernels are
//! CMSIS-NN's: without `CMSIS_NN_PATH` the tests skip, and fail under `CI=true`.

#[path = "../../../tests/common/npy.rs"]
mod npy;
#[path = "../../../tests/common/skip.rs"]
mod skip;
#[path = "../support/tflm_runner.rs"]
mod tflm_runner;
use skip::skip;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use arenaplan_build::KernelVariants;
use tflm_runner::{have_tflite_kernels, matches_tflm};

/// An operator's cases, in its module: `name` runs with every output byte TFLM's;
/// `name: refused "why"` is one the build refuses (no kernel runs that variant), which the
/// test checks stays so until a kernel runs it. Attributes go before the name
/// (`#[ignore = "differs from TFLM: …"]`). Each case is a `#[test]` of its own, and `CASES`
/// lists them for `every_generated_case_has_a_test`.
macro_rules! cases {
    ($( $(#[$attr:meta])* $case:ident $(: refused $why:literal)? ),* $(,)?) => {
        /// The cases' names, as the script names their files.
        pub const CASES: &[&str] = &[$(stringify!($case)),*];
        $(
            #[test]
            $(#[$attr])*
            fn $case() {
                let refused: Option<&str> = None $(.or(Some($why)))?;
                crate::check(crate::operator(module_path!()), stringify!($case), refused);
            }
        )*
    };
}

/// One module per operator, and the list of them with their cases.
macro_rules! operators {
    ($($op:ident),* $(,)?) => {
        $(mod $op;)*
        /// Every operator's folder and cases.
        const OPERATORS: &[(&str, &[&str])] = &[$((stringify!($op), $op::CASES)),*];
    };
}

operators! {
    add,
    average_pool_2d,
    cast,
    concatenation,
    conv_2d,
    depthwise_conv_2d,
    dequantize,
    div,
    fully_connected,
    max_pool_2d,
    maximum,
    mean,
    minimum,
    mul,
    pad,
    quantize,
    relu,
    relu6,
    reshape,
    softmax,
    strided_slice,
    transpose_conv,
}

/// The folder of every operator's cases.
fn cases_folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../build-support/testdata/tflite-kernels")
}

/// The operator a module of this binary tests: the last part of its `module_path!()`.
fn operator(module_path: &'static str) -> &'static str {
    module_path.rsplit("::").next().unwrap()
}

/// Runs `case` of `op` with both kernel variants: every output byte TFLM's, or, when
/// `refused` says why, the build's refusal.
fn check(op: &str, case: &str, refused: Option<&str>) {
    if !have_tflite_kernels() {
        return;
    }
    let folder = cases_folder().join(op);
    let model = folder.join(format!("{case}.tflite"));
    let name = format!("{op}/{case}");
    for variants in [KernelVariants::FitArena, KernelVariants::Fastest] {
        match (
            matches_tflm(&name, &model, &folder.join(case), variants),
            refused,
        ) {
            (Ok(ran), None) => eprintln!("{name} ({variants:?}): TFLM's bytes on {:?}", ran.kernels),
            (Err(why), Some(_)) if why.starts_with("not yet: ") => {}
            (Ok(_), Some(why)) => panic!(
                "{name} now runs with TFLM's bytes, though listed as refused ({why}): list it as a case that runs"
            ),
            (Err(why), _) => panic!("{name}: {why}"),
        }
    }
}

#[test]
fn every_generated_case_has_a_test() {
    let listed: BTreeSet<String> = OPERATORS
        .iter()
        .flat_map(|(op, cases)| cases.iter().map(move |case| format!("{op}/{case}")))
        .collect();
    let mut generated = BTreeSet::new();
    for op in std::fs::read_dir(cases_folder()).unwrap() {
        let op = op.unwrap().path();
        for file in std::fs::read_dir(&op).unwrap() {
            let file = file.unwrap().path();
            if file.extension().is_some_and(|e| e == "tflite") {
                let (op, case) = (op.file_name().unwrap(), file.file_stem().unwrap());
                generated.insert(format!(
                    "{}/{}",
                    op.to_string_lossy(),
                    case.to_string_lossy()
                ));
            }
        }
    }
    assert_eq!(
        listed, generated,
        "the cases listed here and the ones the script made differ"
    );
}
