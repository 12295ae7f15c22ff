//! The demo's exit status is the contract every arenaplan program shares
//! (`arenaplan_build::ExitStatus`): 1 when the model's buffers do not fit, 2 when the model or
//! the target cannot be used, 5 when an operator has no kernel, 0 when it ran.

use std::path::{Path, PathBuf};
use std::process::Command;

fn demo(model: &Path, target: &str) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_arenaplan-demo"))
        .arg("--model")
        .arg(model)
        .args(["--target", target])
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A one-kernel model whose tensors have `bytes` each, with `extra` TOML after the tensors.
fn model(dir: &Path, name: &str, bytes: u64, extra: &str) -> PathBuf {
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(
        &path,
        format!(
            r#"name = "{name}"
inputs = ["x"]
outputs = ["y"]
[[tensor]]
name = "x"
dtype = "int8"
shape = [{bytes}]
[[tensor]]
name = "y"
dtype = "int8"
shape = [{bytes}]
{extra}
[[instruction]]
kind = "kernel"
op = "aten::relu.out"
inputs = ["x"]
outputs = ["y"]
"#
        ),
    )
    .unwrap();
    path
}

#[test]
fn the_demo_exits_as_every_arenaplan_program_does() {
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("demo-exit-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Two 3 MiB tensors alive together in corstone-300's 2 MiB SRAM: does not fit.
    let (code, err) = demo(&model(&dir, "too_big", 3 << 20, ""), "corstone-300");
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("error: "), "{err}");
    // A pool the model names that the target does not have: the model cannot be planned.
    let unknown = "[[delegate]]\nname = \"npu\"\nbackend = \"EthosUBackend\"\nscratch = [{ size = 64, pool = \"no_such_spec\" }]";
    let (code, err) = demo(&model(&dir, "bad_spec", 16, unknown), "corstone-300");
    assert_eq!(code, Some(2), "{err}");
    // An operator no kernel implements: cannot be built here, which is not "does not fit".
    let path = model(&dir, "no_kernel", 16, "");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("aten::relu.out", "my_ops::nothing.out");
    std::fs::write(&path, text).unwrap();
    let (code, err) = demo(&path, "corstone-300");
    assert_eq!(code, Some(5), "{err}");
    assert!(err.contains("my_ops::nothing.out"), "{err}");
    // An unknown target.
    let (code, err) = demo(&model(&dir, "fine", 16, ""), "no-such-board");
    assert_eq!(code, Some(2), "{err}");
}
