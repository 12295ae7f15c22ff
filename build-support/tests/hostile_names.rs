//! No name in a model can change the meaning of generated code: a model whose every name tries
//! to break out of its string, comment or identifier gives C that compiles as ISO C99 with
//! `-pedantic -Werror` and defines nothing but the plan's symbols, Rust whose identifiers are all
//! the generator's own, a linker fragment with only its own statements, and well-formed XML.
//! (Names from a target file are held to a grammar when the file is read; see the syntax
//! crate's tests.) Also: models with no delegates, no kernels or a single value give ISO C too.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use arenaplan_build::diagnostic::SourceText;
use arenaplan_build::emit::{Emit, Symbols};
use arenaplan_build::import::parse_toml_model;
use arenaplan_build::model::Program;
use arenaplan_build::targets::Catalogue;

/// Strings that would each end a C or Rust string, a comment, a linker statement or an XML
/// element if written raw.
const HOSTILE: &str = r#"\"};int injected_by_model = 42;// */ /* ??/ \n</text><script>injected</script> } > X; INSERT AFTER .text; \u{202e}é"#;

fn toml_string(s: &str) -> String {
    // A TOML basic string holding `s` (the model file's own quoting, not the generator's).
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn hostile_model() -> Program {
    let h = toml_string(&format!("{HOSTILE}\nsecond line"));
    let label = toml_string("a*/b\"c");
    let text = format!(
        r#"
name = {h}
inputs = ["x{h_bare}"]
outputs = ["z"]
[[tensor]]
name = "x{h_bare}"
dtype = "int8"
shape = [64]
[[tensor]]
name = {h}
dtype = "int8"
shape = [64]
[[tensor]]
name = "z"
dtype = "int8"
shape = [64]
[[delegate]]
name = {h}
backend = {h}
scratch = [ {{ size = 100, pool = "npu_scratch", label = {label} }} ]
[[instruction]]
kind = "delegate"
delegate = {h}
inputs = ["x{h_bare}"]
outputs = [{h}]
[[instruction]]
kind = "kernel"
op = {h}
inputs = [{h}]
outputs = ["z"]
"#,
        h_bare = &h[1..h.len() - 1],
    );
    parse_toml_model(&SourceText::new("hostile.toml", text), None).unwrap_or_else(|d| panic!("{d}"))
}

fn out_dir(tag: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("arenaplan-hostile-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Plans `program` for `target`, writes every artifact (C side defining the symbols) to a
/// fresh folder and returns it with the files.
fn generate(program: Program, target: &str, tag: &str) -> (PathBuf, Vec<(String, Vec<u8>)>) {
    let catalogue = Catalogue::builtin();
    let target = catalogue.target(target).unwrap();
    let (program, plan) = common::planned(target, program).unwrap_or_else(|e| panic!("{e}"));
    let files = common::emit_files(&program, &plan, target, "m", Symbols::C, Emit::ALL);
    let dir = out_dir(tag);
    for (name, text) in &files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    (dir, files)
}

/// Compiles each C source as ISO C99, pedantic, warnings as errors; returns the symbols the
/// objects define.
fn compile_c99(dir: &Path) -> Vec<String> {
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime-c/include");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let mut symbols = Vec::new();
    for source in ["m.c", "m_program.c"] {
        let object = dir.join(source.replace(".c", ".o"));
        let out = Command::new(&cc)
            .args(["-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-c"])
            .arg("-I")
            .arg(dir)
            .arg("-I")
            .arg(&runtime)
            .arg(dir.join(source))
            .arg("-o")
            .arg(&object)
            .output()
            .expect("a C compiler");
        assert!(
            out.status.success(),
            "{source} is ISO C99:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let nm = Command::new("nm")
            .arg("--defined-only")
            .arg(&object)
            .output()
            .expect("nm");
        for line in String::from_utf8_lossy(&nm.stdout).lines() {
            if let Some(sym) = line.split_whitespace().nth(2) {
                symbols.push(sym.to_owned());
            }
        }
    }
    symbols
}

/// A linker script without its `/* */` comments (which do not nest).
fn without_comments(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        let end = rest[start + 2..]
            .find("*/")
            .expect("every comment is closed");
        rest = &rest[start + 2 + end + 2..];
    }
    out.push_str(rest);
    out
}

/// What the importer or the pipeline says when it refuses the TOML model `text` for `target`.
fn refusal(text: &str, target: &str) -> String {
    let program = match parse_toml_model(&SourceText::new("m.toml", text), None) {
        Ok(program) => program,
        Err(e) => return e.to_string(),
    };
    let catalogue = Catalogue::builtin();
    common::planned(catalogue.target(target).unwrap(), program)
        .expect_err("the model is refused")
        .to_string()
}

/// Every identifier token of a Rust file.
fn rust_idents(text: &str) -> Vec<String> {
    fn walk(tokens: proc_macro2::TokenStream, out: &mut Vec<String>) {
        for t in tokens {
            match t {
                proc_macro2::TokenTree::Ident(i) => out.push(i.to_string()),
                proc_macro2::TokenTree::Group(g) => walk(g.stream(), out),
                _ => {}
            }
        }
    }
    let file: proc_macro2::TokenStream = text.parse().expect("the Rust module tokenizes");
    let mut out = Vec::new();
    walk(file, &mut out);
    out
}

#[test]
fn hostile_model_names_stay_data() {
    let (dir, files) = generate(hostile_model(), "corstone-300", "names");
    let file = |name: &str| common::text(&files, name);

    // C: compiles as ISO C99 and defines only the plan's own symbols.
    let symbols = compile_c99(&dir);
    assert!(!symbols.is_empty());
    for s in &symbols {
        assert!(
            s.starts_with("m_"),
            "a symbol the plan does not define: {s}"
        );
    }
    // Rust: parses, and no identifier came from the model.
    syn::parse_file(file("m.rs")).expect("the Rust module parses");
    for ident in rust_idents(file("m.rs")) {
        assert!(
            !ident.contains("injected"),
            "identifier from the model: {ident}"
        );
    }
    // Linker fragment: outside its comments, only its own statements.
    let ld = without_comments(file("m.sram.ld"));
    assert!(
        !ld.contains("injected") && ld.matches("INSERT").count() == 1,
        "{ld}"
    );
    // SVG: the hostile name only as escaped text.
    let svg = file("m.svg");
    assert!(!svg.contains("<script>") && svg.contains("&lt;script&gt;"));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn labels_that_would_name_the_same_constant_are_refused() {
    let text = common::one_call(
        "RustConv",
        r#"{ size = 16, pool = "npu_scratch", label = "a-b" }, { size = 16, pool = "npu_scratch", label = "a_b" }"#,
    );
    let e = refusal(&text, "corstone-300");
    assert!(
        e.contains("`a-b`") && e.contains("`a_b`") && e.contains("A_B"),
        "{e}"
    );
}

#[test]
fn programs_without_delegates_kernels_or_values_give_iso_c() {
    let kernels_only = r#"
name = "cpu_only"
inputs = ["x"]
outputs = ["y"]
[[tensor]]
name = "x"
dtype = "int8"
shape = [8]
[[tensor]]
name = "y"
dtype = "int8"
shape = [8]
[[instruction]]
kind = "kernel"
op = "relu"
inputs = ["x"]
outputs = ["y"]
"#;
    let one_value = r#"
name = "one"
inputs = ["x"]
outputs = ["x"]
[[tensor]]
name = "x"
dtype = "int8"
shape = [8]
"#;
    for (tag, text) in [("kernels", kernels_only), ("one", one_value)] {
        let program = parse_toml_model(&SourceText::new("m.toml", text), None).unwrap();
        let (dir, _) = generate(program, "mcxn947", tag);
        compile_c99(&dir);
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn a_call_that_writes_what_it_reads_is_refused() {
    let text = r#"
name = "m"
inputs = ["a"]
outputs = ["a"]
[[tensor]]
name = "a"
dtype = "int8"
shape = [16]
[[instruction]]
kind = "kernel"
op = "relu_"
inputs = ["a"]
outputs = ["a"]
"#;
    let e = refusal(text, "mcxn947");
    assert!(
        e.contains("value 0 (`a`) is written by the call and also passed"),
        "{e}"
    );
}

#[test]
fn unlabelled_and_repeated_labels_cannot_share_a_constant() {
    for scratch in [
        r#"{ size = 16, pool = "npu_scratch", label = "s" }, { size = 16, pool = "npu_scratch", label = "s" }"#,
        r#"{ size = 16, pool = "npu_scratch" }, { size = 16, pool = "npu_scratch", label = "scratch0" }"#,
    ] {
        let text = common::one_call("RustConv", scratch);
        let e = refusal(&text, "corstone-300");
        assert!(e.contains("both become the generated name"), "{e}");
    }
}

#[test]
fn output_names_that_stand_in_for_other_files_are_refused() {
    use arenaplan_build::names::base_name;
    assert!(base_name("stdint").unwrap_err().contains("<stdint.h>"));
    assert!(base_name("string").is_err());
    assert!(base_name("kws_program").unwrap_err().contains("_program"));
    assert_eq!(base_name("runtime").unwrap(), "runtime"); // its guard is ARENAPLAN_MODEL_RUNTIME_H
}
