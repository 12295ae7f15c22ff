//! The `arenaplan plan` command and a build script write the same bytes: the CLI maps its
//! flags onto the same `Build`.

use std::path::{Path, PathBuf};
use std::process::Command;

use arenaplan_build::{Build, Symbols};

// The build crate's test helpers (this crate's tests see the same stages with `internals`).
#[path = "../../tests/common/mod.rs"]
mod common;

use common::folder_bytes as files;

fn testdata(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata")
        .join(p)
}

fn temp(name: &str) -> PathBuf {
    let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("arenaplan-cli-same-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn the_cli_and_a_build_script_write_identical_bytes() {
    let (a, c) = (temp("build"), temp("cli"));
    // As a firmware build.rs would, with its crate folder (here build-support) as the base.
    Build::new()
        .model(testdata("fixtures/ethosu_u55_two_calls.pte"))
        .target("corstone-300")
        .source(testdata("firmware/decls.rs"))
        .base(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .symbols(Symbols::Rust)
        .out_dir(&a)
        .cargo_metadata(false)
        .try_compile()
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_arenaplan"))
        .args([
            "plan",
            "--target",
            "corstone-300",
            "--emit",
            "all",
            "--symbols",
            "rust",
            "--model",
        ])
        .arg(testdata("fixtures/ethosu_u55_two_calls.pte"))
        .arg("--source")
        .arg(testdata("firmware/decls.rs"))
        .arg("--base")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .arg("--out")
        .arg(&c)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        files(&a),
        files(&c),
        "build.rs and the CLI write the same bytes"
    );
    let _ = std::fs::remove_dir_all(&a);
    let _ = std::fs::remove_dir_all(&c);
}
