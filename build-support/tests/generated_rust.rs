//! The Rust module generated for every corpus program is data plus the runtime's trait impl:
//! no `unsafe` token in it, on either side that defines the symbols. Prints each module's size
//! (the issue asked for it before and after the `Model` moved into the runtime crate).

mod common;

use std::path::Path;

use arenaplan_build::emit::{emit, Emit, Input, Symbols};
use arenaplan_build::import::load_model;
use arenaplan_build::targets::Catalogue;
use arenaplan_build::verify::verify;
use proc_macro2::{TokenStream, TokenTree};

/// Whether `tokens` hold the keyword `unsafe` anywhere (a model's text inside a doc string or
/// a literal is not a token of its own, so it cannot fake or hide one).
fn has_unsafe(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|t| match t {
        TokenTree::Ident(i) => i == "unsafe",
        TokenTree::Group(g) => has_unsafe(g.stream()),
        _ => false,
    })
}

/// The target a corpus file is compiled for, by its folder and name.
fn target_of(path: &Path) -> &'static str {
    let text = path.to_string_lossy();
    if text.contains("u85") {
        "corstone-320"
    } else if text.contains("neutron") {
        "imxrt700"
    } else {
        "corstone-300"
    }
}

#[test]
fn generated_rust_of_every_corpus_program_has_no_unsafe() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let catalogue = Catalogue::builtin();
    let mut files = Vec::new();
    for dir in ["pte", "pte-delegated", "tflite"] {
        files.extend(common::files(
            &corpus.join(dir),
            if dir == "tflite" { "tflite" } else { "pte" },
        ));
    }
    for dir in std::fs::read_dir(corpus.join("vela")).unwrap() {
        files.extend(common::files(&dir.unwrap().path(), "tflite"));
    }
    let (mut emitted, mut skipped) = (0, Vec::new());
    println!("{:<72} {:>9} {:>9}", "program", "C symbols", "Rust ones");
    for path in &files {
        let name = path
            .strip_prefix(&corpus)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let target = catalogue.target(target_of(path)).unwrap();
        // Programs refused on import or by the pipeline (for a reason the CLI reports) have no
        // module to check.
        let Ok(program) = load_model(path) else {
            skipped.push(name);
            continue;
        };
        let Ok((program, plan)) = arenaplan_build::pipeline::Pipeline::new(target).run(program)
        else {
            skipped.push(name);
            continue;
        };
        let mut sizes = Vec::new();
        for symbols in [Symbols::C, Symbols::Rust] {
            let verified = verify(&program, &plan, target).unwrap_or_else(|e| panic!("{e}"));
            let Ok(files) = emit(
                &Input::new(verified, "model", &Default::default(), symbols),
                Emit::ALL,
            ) else {
                break;
            };
            let rust = common::text(&files, "model.rs");
            let tokens: TokenStream = rust.parse().unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(
                !has_unsafe(tokens),
                "{name}: `unsafe` in the generated Rust:\n{rust}"
            );
            sizes.push(rust.len());
        }
        if sizes.len() < 2 {
            skipped.push(name);
            continue;
        }
        println!("{name:<72} {:>9} {:>9}", sizes[0], sizes[1]);
        emitted += 1;
    }
    println!("{emitted} emitted; not planned or emitted here: {skipped:?}");
    assert!(emitted > 0, "no corpus program reached the emitters");
}
