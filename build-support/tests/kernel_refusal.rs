//! A TFLite operator no kernel implements is refused at build time, naming it as TFLite names
//! it with what to do, rather than left to fail the link on an undefined `ap_kernel_…`. One test
//! per rule.

use std::path::{Path, PathBuf};

use arenaplan_build::diagnostic::SourceText;
use arenaplan_build::import::parse_toml_model;
use arenaplan_build::model::Program;
use arenaplan_build::{Build, BuildError};

/// Two calls of TFLite's CAST (`builtin:53`), one of a custom operator, one ExecuTorch operator.
const MODEL: &str = r#"
name = "m"
inputs = ["x"]
outputs = ["w"]
[[tensor]]
name = "x"
dtype = "int8"
shape = [16]
[[tensor]]
name = "y"
dtype = "int8"
shape = [16]
[[tensor]]
name = "z"
dtype = "int8"
shape = [16]
[[tensor]]
name = "v"
dtype = "int8"
shape = [16]
[[tensor]]
name = "w"
dtype = "int8"
shape = [16]
[[instruction]]
kind = "kernel"
op = "builtin:53"
inputs = ["x"]
outputs = ["y"]
[[instruction]]
kind = "kernel"
op = "custom:SignalFft"
inputs = ["y"]
outputs = ["z"]
[[instruction]]
kind = "kernel"
op = "builtin:53"
inputs = ["z"]
outputs = ["v"]
[[instruction]]
kind = "kernel"
op = "aten::relu.out"
inputs = ["v"]
outputs = ["w"]
"#;

fn program() -> Program {
    parse_toml_model(&SourceText::new("m.toml", MODEL), None).unwrap()
}

/// A source file holding `text`, for the scan.
fn source(name: &str, text: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "arenaplan-kernel-refusal-{name}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("lib.rs");
    std::fs::write(&path, text).unwrap();
    path
}

fn build() -> Build {
    let mut b = Build::new();
    b.program(program())
        .target("corstone-300")
        .sources(Vec::<PathBuf>::new())
        .cargo_metadata(false);
    b
}

#[test]
fn each_tflite_operator_without_a_kernel_is_named_once_with_its_first_call_and_the_fix() {
    let e = build().try_render().unwrap_err();
    let BuildError::NoKernel(missing) = &e else {
        panic!("{e}")
    };
    let ops: Vec<&str> = missing.iter().map(|m| m.op.as_str()).collect();
    assert_eq!(ops, ["builtin:53", "custom:SignalFft"], "{e}");
    let text = e.to_string();
    assert!(
        text.contains("operator `builtin:53` (TFLite's CAST), instruction 0 and 1 more"),
        "{text}"
    );
    assert!(
        text.contains("(TFLite's custom operator SignalFft), instruction 1,"),
        "{text}"
    );
    assert!(text.contains("#[kernel(op = \"builtin:53\")]"), "{text}");
    assert!(text.contains("--kernel builtin:53"), "{text}");
    // Cannot be built here: status 5, not the 1 of a model that does not fit.
    assert_eq!(e.exit_status(), 5);
}

#[test]
fn a_kernel_the_scan_finds_implements_its_operator() {
    let kernels = source(
        "scanned",
        "#[kernel(op = \"builtin:53\")]\nfn cast(call: &mut Call<'_>) -> Result { Ok(()) }\n",
    );
    let e = build().source(kernels).try_render().unwrap_err();
    let BuildError::NoKernel(missing) = &e else {
        panic!("{e}")
    };
    assert_eq!(missing.len(), 1, "{e}");
    assert_eq!(missing[0].op, "custom:SignalFft");
}

#[test]
fn a_kernel_the_firmware_links_in_c_is_taken_at_its_word() {
    let rendered = build()
        .external_kernel("builtin:53")
        .external_kernel("custom:SignalFft")
        .try_render()
        .unwrap();
    // The tables call the C kernels by their symbols.
    let program_c = rendered
        .files
        .iter()
        .find(|(n, _)| n.ends_with("_program.c"))
        .map(|(_, text)| String::from_utf8_lossy(text).into_owned())
        .unwrap();
    assert!(program_c.contains("ap_kernel_builtin_3a53"), "{program_c}");
}

#[test]
fn other_operators_are_not_the_tflite_rules_business() {
    // ExecuTorch's operators come from the firmware's kernels or ExecuTorch's, linked.
    let mut program = program();
    for instruction in &mut program.body {
        if let arenaplan_build::model::Instruction::Kernel(k) = instruction {
            k.op = "aten::relu.out".into();
        }
    }
    build().program(program).try_render().unwrap();
}
