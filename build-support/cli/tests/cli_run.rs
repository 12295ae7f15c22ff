//! `arenaplan run` as a user runs it: calls in order with state kept, outputs named by call
//! and method, and the exit-status contract — 1 with the reason for a program that cannot run
//! here (each missing operator named), 2 for bad input (naming the file or call), 3 for an
//! output that cannot be written, nothing written then.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "../src/npy.rs"]
#[allow(dead_code)]
mod npy;

fn arenaplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arenaplan"))
        .args(args)
        .output()
        .expect("runs")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("arenaplan-run-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn fixture(case: &str, file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/exported")
        .join(case)
        .join(file)
        .display()
        .to_string()
}

fn floats(path: &Path) -> Vec<f32> {
    let array = npy::parse(&std::fs::read(path).unwrap()).unwrap();
    array
        .data
        .chunks(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn calls_run_in_order_with_state_kept_and_outputs_named_by_call_and_method() {
    let out = temp_dir("counter");
    let program = fixture("state_counter_copy", "program.pte");
    let ones = fixture("state_counter_copy", "0-forward-in0.npy");
    // An empty method is the first; a call without files runs on zeros.
    let result = arenaplan(&[
        "run",
        "--target",
        "corstone-300",
        "--model",
        &program,
        "--call",
        "",
        "--call",
        &format!("forward:{ones}"),
        "--call",
        &format!(":{ones}"),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(result.status.success(), "{}", stderr(&result));
    assert_eq!(floats(&out.join("0-forward-0.npy")), [0.0; 8]);
    assert_eq!(floats(&out.join("1-forward-0.npy")), [1.0; 8]);
    assert_eq!(floats(&out.join("2-forward-0.npy")), [2.0; 8]);
}

#[test]
fn a_program_with_an_operator_no_kernel_implements_exits_1_naming_it() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/models/two_npu_calls.toml");
    let out = temp_dir("missing");
    let result = arenaplan(&[
        "run",
        "--target",
        "corstone-300",
        "--model",
        model.to_str().unwrap(),
        "--call",
        "",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(1), "{}", stderr(&result));
    assert!(
        stderr(&result).contains("`aten::max_pool2d.out`"),
        "{}",
        stderr(&result)
    );
    assert_eq!(
        std::fs::read_dir(&out).unwrap().count(),
        0,
        "nothing written"
    );
}

#[test]
fn bad_input_exits_2_naming_the_call_or_the_file() {
    let out = temp_dir("bad");
    let program = fixture("state_counter_copy", "program.pte");
    let ones = fixture("state_counter_copy", "0-forward-in0.npy");
    let garbage = out.join("garbage.npy");
    std::fs::write(&garbage, b"not an array").unwrap();
    let int8 = out.join("int8.npy");
    let array = npy::Array {
        dtype: arenaplan_build::model::DType::Int8,
        shape: vec![8],
        data: vec![1; 8],
    };
    std::fs::write(&int8, npy::write(&array).unwrap()).unwrap();
    let cases: [(String, &str); 4] = [
        ("nope".into(), "no method `nope`"),
        (
            format!("forward:{}", garbage.display()),
            "garbage.npy: not a .npy file",
        ),
        (
            format!("forward:{}", int8.display()),
            "int8.npy: input 0 is int8",
        ),
        (
            format!("forward:{ones},{ones}"),
            "takes 1 input(s), 2 file(s) given",
        ),
    ];
    for (call, reason) in cases {
        let result = arenaplan(&[
            "run",
            "--target",
            "corstone-300",
            "--model",
            &program,
            "--call",
            &call,
            "--out",
            out.join("o").to_str().unwrap(),
        ]);
        assert_eq!(result.status.code(), Some(2), "{call}: {}", stderr(&result));
        assert!(
            stderr(&result).contains(reason),
            "{call}: {}",
            stderr(&result)
        );
        assert!(!out.join("o").exists(), "{call}: nothing written");
    }
}

#[test]
fn an_output_folder_that_cannot_be_written_exits_3() {
    let dir = temp_dir("io");
    let file = dir.join("a-file");
    std::fs::write(&file, b"").unwrap();
    let result = arenaplan(&[
        "run",
        "--target",
        "corstone-300",
        "--model",
        &fixture("state_counter_copy", "program.pte"),
        "--call",
        "forward",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(3), "{}", stderr(&result));
}
