//! What the `arenaplan run` tests share: the command, the exported fixtures, `.npy` files.
#![allow(dead_code)] // each test file uses some of these

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "../../src/npy.rs"]
#[allow(dead_code)]
pub mod npy;

/// `build-support/testdata/exported`, the programs ExecuTorch exported.
pub fn exported() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/exported")
}

/// A fresh folder of this test run's, named after `name`.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("arenaplan-run-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `arenaplan run --target TARGET --model MODEL --call C... --out OUT`.
pub fn run(model: &Path, target: &str, calls: &[String], out: &Path) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arenaplan"));
    command
        .arg("run")
        .arg("--target")
        .arg(target)
        .arg("--model")
        .arg(model);
    for call in calls {
        command.arg("--call").arg(call);
    }
    command.arg("--out").arg(out).output().expect("runs")
}

/// What a run printed on standard error.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}
