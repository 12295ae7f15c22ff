//! Text for terminals and reports is sanitized: a model's names cannot drive the terminal (ESC
//! sequences) or reorder what a line shows (bidi overrides), in `inspect`'s output, in error
//! messages or in `NAME.report.txt`.

use std::process::Command;

mod support;

use support::{stderr, temp_dir};

const MODEL: &str = r#"name = "m"
inputs = ["x\u202Eevil"]
outputs = ["y\u001B[2J"]
[[tensor]]
name = "x\u202Eevil"
dtype = "int8"
shape = [16]
[[tensor]]
name = "y\u001B[2J"
dtype = "int8"
shape = [16]
[[instruction]]
kind = "kernel"
op = "relu\u2066"
inputs = ["x\u202Eevil"]
outputs = ["y\u001B[2J"]
"#;

fn assert_clean(what: &str, text: &str) {
    for c in ['\u{1b}', '\u{202e}', '\u{2066}'] {
        assert!(!text.contains(c), "{what} holds {c:?}: {text:?}");
    }
    assert!(
        text.contains("\\u{202e}"),
        "{what} shows the character escaped: {text}"
    );
}

#[test]
fn control_and_bidi_characters_reach_no_terminal_and_no_report() {
    let dir = temp_dir("text");
    let model = dir.join("m.toml");
    std::fs::write(&model, MODEL).unwrap();
    let arenaplan = || Command::new(env!("CARGO_BIN_EXE_arenaplan"));

    let out = arenaplan().arg("inspect").arg(&model).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_clean("inspect", &String::from_utf8(out.stdout).unwrap());

    let out_dir = dir.join("out");
    let out = arenaplan()
        .args(["plan", "--target", "corstone-300", "--model"])
        .arg(&model)
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_clean(
        "report.txt",
        &std::fs::read_to_string(out_dir.join("m.report.txt")).unwrap(),
    );

    // An error naming the tensor: read before any write.
    let broken = MODEL.replacen(
        "inputs = [\"x\\u202Eevil\"]\noutputs",
        "inputs = []\noutputs",
        1,
    );
    assert_ne!(broken, MODEL);
    std::fs::write(&model, broken).unwrap();
    let out = arenaplan().arg("inspect").arg(&model).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_clean("error message", &stderr(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}
