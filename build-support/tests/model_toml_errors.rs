//! Bad native models: every error names the file, line and column and says what to change.

use arenaplan_build::diagnostic::SourceText;
use arenaplan_build::import::parse_toml_model;

fn error(text: &str) -> String {
    parse_toml_model(&SourceText::new("m.toml", text), None)
        .expect_err("expected an error")
        .to_string()
}

const HEAD: &str = "name = \"m\"\ninputs = [\"x\"]\noutputs = [\"y\"]\n[[tensor]]\nname = \"x\"\ndtype = \"int8\"\nshape = [4]\n[[tensor]]\nname = \"y\"\ndtype = \"int8\"\nshape = [4]\n";

#[test]
fn toml_syntax() {
    let e = error("name = \"m\"\n[[tensor]\n");
    assert!(e.starts_with("m.toml:2:"), "{e}");
}

#[test]
fn unknown_field() {
    let e = error(&format!("{HEAD}sahpe = [1]\n"));
    assert!(e.starts_with("m.toml:12:1: unknown field `sahpe`"), "{e}");
}

#[test]
fn dangling_tensor_name() {
    let e = error(&format!("{HEAD}[[instruction]]\nkind = \"kernel\"\nop = \"relu\"\ninputs = [\"xx\"]\noutputs = [\"y\"]\n"));
    assert_eq!(
        e,
        "m.toml:15:11: no tensor named `xx`\n  help: did you mean `x`?"
    );
}

#[test]
fn a_cycle_or_missing_producer() {
    let text = format!(
        "{HEAD}[[tensor]]\nname = \"t\"\ndtype = \"int8\"\nshape = [4]\n[[instruction]]\nkind = \"kernel\"\nop = \"add\"\ninputs = [\"x\", \"t\"]\noutputs = [\"t\"]\n[[instruction]]\nkind = \"kernel\"\nop = \"copy\"\ninputs = [\"t\"]\noutputs = [\"y\"]\n"
    );
    let e = error(&text);
    assert!(
        e.starts_with(
            "m.toml:19:16: instruction 0 reads `t` (value 2) before any instruction writes it"
        ),
        "{e}"
    );
    assert!(
        e.contains("a call reading its own output is a cycle"),
        "{e}"
    );
}

#[test]
fn unknown_delegate_kind_and_dtype() {
    let e = error(&format!(
        "{HEAD}[[instruction]]\nkind = \"delegate\"\ndelegate = \"npu\"\n"
    ));
    assert!(
        e.starts_with("m.toml:14:12: no delegate named `npu`"),
        "{e}"
    );
    let e = error(&format!("{HEAD}[[instruction]]\nkind = \"kernal\"\n"));
    assert!(e.contains("unknown instruction kind `kernal`"), "{e}");
    let e = error(&HEAD.replacen("dtype = \"int8\"", "dtype = \"int7\"", 1));
    assert!(e.starts_with("m.toml:6:9: unknown dtype `int7`"), "{e}");
}

#[test]
fn outputs_must_be_written_and_constants_not() {
    let e = error(HEAD);
    assert!(
        e.starts_with("m.toml:3:12: output `y` (value 1) is never written"),
        "{e}"
    );
    let text = HEAD.replacen(
        "shape = [4]\n[[tensor]]\nname = \"y\"",
        "shape = [4]\n[[tensor]]\nname = \"y\"\nconstant = true",
        1,
    );
    let e = error(&format!("{text}[[instruction]]\nkind = \"kernel\"\nop = \"copy\"\ninputs = [\"x\"]\noutputs = [\"y\"]\n"));
    assert!(
        e.contains("instruction 0 writes `y` (value 1), which is constant"),
        "{e}"
    );
}

#[test]
fn shape_and_bytes_must_agree() {
    let e = error(&HEAD.replacen("shape = [4]\n", "shape = [4]\nbytes = 5\n", 1));
    assert!(
        e.starts_with("m.toml:8:9: tensor `x`: bytes = 5 but int8 [4] needs 4"),
        "{e}"
    );
}

#[test]
fn scratch_needs_a_pool() {
    let e = error(&format!(
        "{HEAD}[[delegate]]\nname = \"d\"\nbackend = \"B\"\nscratch = [ {{ size = 64 }} ]\n"
    ));
    assert!(
        e.contains("delegate `d`, scratch buffer 0: no pool given"),
        "{e}"
    );
}
