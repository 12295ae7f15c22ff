//! The generated-code check shared by the `codegen` fuzz target and the regression test over
//! the inputs it once failed on (`testdata/fuzz/codegen/`): for a model the readers accept (TOML
//! when the input starts with `#`, else `.pte`), planned for a target picked by the input's
//! length, the emitted C compiles with `-std=c99 -pedantic -Werror` and the emitted Rust parses.

use std::path::{Path, PathBuf};
use std::process::Command;

use arenaplan_build::diagnostic::SourceText;
use arenaplan_build::emit::{emit, Emit, Input, Symbols};
use arenaplan_build::import::parse_toml_model;
use arenaplan_build::import::read_pte;
use arenaplan_build::pipeline::Pipeline;
use arenaplan_build::targets::Catalogue;
use arenaplan_build::verify::verify;
use arenaplan_build::Planner;

const TARGETS: [&str; 4] = ["corstone-300", "corstone-320", "mcxn947", "imxrt700"];

const RUST: Emit = Emit {
    rust: true,
    c: false,
    linker: false,
    json: false,
    report: false,
};
const C: Emit = Emit {
    rust: false,
    c: true,
    linker: false,
    json: false,
    report: false,
};

/// Checks the code generated for `data`, working in `dir`; panics with the compiler's words
/// and the file when the code does not build. `runtime_include` is `runtime-c/include`.
/// Returns whether there was code to check (the readers and the planner accepted the input).
pub fn check(data: &[u8], dir: &Path, runtime_include: &Path) -> bool {
    let program = if let Some(text) = data.strip_prefix(b"#") {
        let Ok(text) = std::str::from_utf8(text) else {
            return false;
        };
        match parse_toml_model(&SourceText::new("fuzz.toml", text), None) {
            Ok(p) => p,
            Err(_) => return false,
        }
    } else {
        match read_pte(data, "fuzz") {
            Ok(p) => p,
            Err(_) => return false,
        }
    };
    let catalogue = Catalogue::builtin();
    let target = catalogue
        .target(TARGETS[data.len() % TARGETS.len()])
        .unwrap();
    let mut planner = Planner::new();
    planner.step_budget(10_000);
    let Ok((program, plan)) = Pipeline::new(target).planner(planner).run(program) else {
        return false;
    };
    // A program whose calls take values without memory gets no firmware (a refusal, not a
    // bug).
    if program.unplaced_argument().is_some() {
        return false;
    }
    // A plan that fails the verify stage is a bug, as a panic is.
    let verified = verify(&program, &plan, target).unwrap_or_else(|e| panic!("{e}"));
    let files = |symbols, what| {
        emit(
            &Input::new(verified, "m", &Default::default(), symbols),
            what,
        )
        .unwrap_or_else(|e| panic!("{e}"))
    };
    for symbols in [Symbols::Rust, Symbols::C] {
        for (name, bytes) in files(symbols, RUST) {
            let text = String::from_utf8(bytes).unwrap();
            if let Err(e) = syn::parse_file(&text) {
                panic!("{name} does not parse: {e}\n{text}");
            }
        }
    }
    for (name, text) in files(Symbols::C, C) {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    for source in ["m.c", "m_program.c"] {
        let out = Command::new(&cc)
            .args([
                "-std=c99",
                "-pedantic",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-fsyntax-only",
            ])
            .arg("-I")
            .arg(dir)
            .arg("-I")
            .arg(runtime_include)
            .arg(dir.join(source))
            .output()
            .expect("a C compiler");
        if !out.status.success() {
            panic!(
                "{source} is not ISO C99:\n{}\n{}",
                String::from_utf8_lossy(&out.stderr),
                std::fs::read_to_string(dir.join(source)).unwrap_or_default()
            );
        }
    }
    true
}

/// A fresh working folder for one process: under the target folder's `tmp` for tests (Cargo
/// gives them one; `cargo clean` removes it), the system's temporary folder for the fuzz
/// target.
pub fn work_dir(tag: &str) -> PathBuf {
    let base = option_env!("CARGO_TARGET_TMPDIR").map_or_else(std::env::temp_dir, PathBuf::from);
    let d = base.join(format!("arenaplan-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}
