//! `arenaplan plan` and `arenaplan inspect` as a user runs them.

use std::path::PathBuf;
use std::process::{Command, Output};

fn arenaplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arenaplan"))
        .args(args)
        .output()
        .expect("runs")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("arenaplan-plan-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const MODEL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/testdata/models/two_npu_calls.toml"
);

#[test]
fn plan_writes_the_plan_and_the_report() {
    let out = temp_dir("ok");
    let result = arenaplan(&[
        "plan",
        "--target",
        "corstone-300",
        "--model",
        MODEL,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let json = std::fs::read_to_string(out.join("two_npu_calls.plan.json")).unwrap();
    assert!(json.starts_with("{\n  \"target\": \"corstone-300\","));
    let report = std::fs::read_to_string(out.join("two_npu_calls.report.txt")).unwrap();
    assert!(
        report.contains("scratch 0 `head@2.scratch`: 1536 bytes in sram"),
        "{report}"
    );
    // The same inputs give the same bytes; --name renames the outputs.
    let again = arenaplan(&[
        "plan",
        "--target",
        "corstone-300",
        "--model",
        MODEL,
        "--out",
        out.to_str().unwrap(),
        "--name",
        "again",
    ]);
    assert!(again.status.success());
    assert_eq!(
        std::fs::read_to_string(out.join("again.plan.json")).unwrap(),
        json
    );
}

#[test]
fn bad_target_or_model_writes_nothing() {
    let out = temp_dir("bad");
    let result = arenaplan(&[
        "plan",
        "--target",
        "corstone-3000",
        "--model",
        MODEL,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(2));
    let stderr = String::from_utf8(result.stderr).unwrap();
    assert!(
        stderr.contains("unknown target `corstone-3000` (did you mean `corstone-300`?)"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0);

    let bad = out.join("bad.toml");
    std::fs::write(&bad, "name = \"m\"\n[[tensor]]\nname = \"x\"\n").unwrap();
    let result = arenaplan(&[
        "plan",
        "--target",
        "corstone-300",
        "--model",
        bad.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(2));
    let stderr = String::from_utf8(result.stderr).unwrap();
    assert!(
        stderr.contains("bad.toml:2:1: missing field `dtype`"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_dir(&out).unwrap().count(),
        1,
        "only the model file itself"
    );
}

#[test]
fn a_zero_sized_pool_in_the_targets_file_is_refused_with_its_line() {
    let dir = temp_dir("zero");
    let targets = dir.join("targets.toml");
    std::fs::write(
        &targets,
        "schema_version = 1\n[[target]]\nname = \"b\"\ncpu = \"m55\"\nrust_target = \"t\"\ndefault_pool = \"s\"\n[[target.pool]]\nmem_id = 1\nname = \"s\"\ncapacity = 0\nsection = \".s\"\nregion = \"S\"\n",
    )
    .unwrap();
    let result = arenaplan(&[
        "plan",
        "--targets",
        targets.to_str().unwrap(),
        "--target",
        "b",
        "--model",
        MODEL,
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(2));
    let stderr = String::from_utf8(result.stderr).unwrap();
    assert!(
        stderr.contains("targets.toml:10:12: pool `s` has capacity 0"),
        "{stderr}"
    );
}

#[test]
fn inspect_lists_delegates_and_their_scratch() {
    let result = arenaplan(&["inspect", MODEL]);
    assert!(result.status.success());
    let text = String::from_utf8(result.stdout).unwrap();
    assert!(text.contains("1 head (EthosUBackend)"), "{text}");
    assert!(
        text.contains("scratch 0 `scratch`: 1536 bytes in spec `npu_scratch`"),
        "{text}"
    );
    assert!(text.contains("arm 0:"), "{text}");
}
