//! The build.rs API: deterministic artifacts (the CLI's are compared in arenaplan-cli), rerun triggers,
//! scanning errors, and the generated C compiled by a real C compiler.

use std::path::{Path, PathBuf};
use std::process::Command;

use arenaplan_build::emit::Symbols;
use arenaplan_build::{Build, BuildError};

fn testdata(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(p)
}

mod common;

use common::folder_bytes as files;

fn temp(name: &str) -> PathBuf {
    let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("arenaplan-build-api-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn build(out: &Path, symbols: Symbols) -> Result<arenaplan_build::Generated, BuildError> {
    Build::new()
        .model(testdata("fixtures/ethosu_u55_two_calls.pte"))
        .target("corstone-300")
        .source(testdata("firmware/decls.rs"))
        .symbols(symbols)
        .out_dir(out)
        .cargo_metadata(false)
        .try_compile()
}

#[test]
fn two_builds_write_identical_bytes() {
    let (a, b) = (temp("a"), temp("b"));
    let g = build(&a, Symbols::Rust).unwrap();
    build(&b, Symbols::Rust).unwrap();
    assert_eq!(files(&a), files(&b));
    let names: Vec<String> = files(&a).into_iter().map(|f| f.0).collect();
    assert_eq!(
        names,
        [
            "ethosu_u55_two_calls.c",
            "ethosu_u55_two_calls.h",
            "ethosu_u55_two_calls.plan.json",
            "ethosu_u55_two_calls.report.txt",
            "ethosu_u55_two_calls.rs",
            "ethosu_u55_two_calls.sram.ld",
            "ethosu_u55_two_calls.svg",
            "ethosu_u55_two_calls.x",
            "ethosu_u55_two_calls_blob0.bin",
            "ethosu_u55_two_calls_blob1.bin",
            "ethosu_u55_two_calls_program.c",
            "ethosu_u55_two_calls_program.h",
        ]
    );
    // The declarations reached the generated module.
    let rust = std::fs::read_to_string(&g.rust).unwrap();
    assert!(rust.contains("pub mod ConvIm2col {"), "{rust}");
    assert!(rust.contains("pub const SCRATCH: &[usize] = &[2048, 512];"));
}

#[test]
fn rewriting_is_skipped_when_nothing_changed() {
    let dir = temp("mtime");
    let g = build(&dir, Symbols::Rust).unwrap();
    let before = std::fs::metadata(&g.header).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    build(&dir, Symbols::Rust).unwrap();
    assert_eq!(
        std::fs::metadata(&g.header).unwrap().modified().unwrap(),
        before
    );
}

#[test]
fn cargo_reruns_when_an_input_changes() {
    let g = build(&temp("rerun"), Symbols::Rust).unwrap();
    let has = |line: String| {
        assert!(
            g.cargo_instructions.contains(&line),
            "missing {line}: {:?}",
            g.cargo_instructions
        )
    };
    has(format!(
        "cargo::rerun-if-changed={}",
        testdata("fixtures/ethosu_u55_two_calls.pte").display()
    ));
    has(format!(
        "cargo::rerun-if-changed={}",
        testdata("firmware/decls.rs").display()
    ));
    has("cargo::rerun-if-env-changed=ARENAPLAN_TARGET".into());
    has("cargo::rerun-if-env-changed=ARENAPLAN_TARGETS_FILE".into());
    has("cargo::rustc-env=ARENAPLAN_TARGET=corstone-300".into());
    // One line Cargo shows: each pool's arena against its capacity, and the report's path.
    let summary = g
        .cargo_instructions
        .iter()
        .find(|l| l.starts_with("cargo::warning=arenaplan: "))
        .expect("a summary line");
    assert!(
        summary.contains("on corstone-300: sram ")
            && summary.contains(" of 2 MiB")
            && summary.ends_with(".report.txt"),
        "{summary}"
    );
    let targets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../targets.toml");
    let g = Build::new()
        .model(testdata("fixtures/ethosu_u55_two_calls.pte"))
        .target("corstone-300")
        .targets_file(&targets)
        .source(testdata("firmware/decls.rs"))
        .out_dir(temp("rerun-targets"))
        .cargo_metadata(false)
        .try_compile()
        .unwrap();
    assert!(g
        .cargo_instructions
        .contains(&format!("cargo::rerun-if-changed={}", targets.display())));
}

#[test]
fn scanning_reports_every_bad_declaration_with_its_line() {
    let dir = temp("bad-decls");
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("lib.rs");
    std::fs::write(
        &src,
        "#[delegate(backend = \"A\", scratch = [0], mem_id = spec!(npu_scratch))]\npub struct A;\n\
         #[delegate(backend = \"B\", scratch = [SIZE], mem_id = spec!(nope))]\npub struct B;\n\
         #[delegate(backend = \"A\", scratch = [16], mem_id = spec!(npu_scratch))]\npub struct A2;\n",
    )
    .unwrap();
    let err = Build::new()
        .model(testdata("fixtures/ethosu_u55_two_calls.pte"))
        .target("corstone-300")
        .source(&src)
        .out_dir(dir.join("out"))
        .cargo_metadata(false)
        .try_compile()
        .unwrap_err()
        .to_string();
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines[0].ends_with("lib.rs:1:38: scratch size must be positive, found 0"),
        "{err}"
    );
    assert!(
        err.contains("lib.rs:3:38: the build script cannot evaluate this size"),
        "{err}"
    );
    assert!(
        err.contains("lib.rs:3:60: target `corstone-300` has no compile spec `nope`"),
        "{err}"
    );
    assert!(
        err.contains("lib.rs:5:1: backend `A` is declared twice"),
        "{err}"
    );
    assert!(!dir.join("out").exists(), "nothing written");
}

#[test]
fn backends_that_would_share_a_generated_module_are_refused() {
    let dir = temp("backend-modules");
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("lib.rs");
    std::fs::write(
        &src,
        "#[delegate(backend = \"my-npu\", scratch = [16], mem_id = spec!(npu_scratch))]\npub struct A;\n\
         #[delegate(backend = \"my_npu\", scratch = [16], mem_id = spec!(npu_scratch))]\npub struct B;\n",
    )
    .unwrap();
    let err = Build::new()
        .model(testdata("fixtures/ethosu_u55_two_calls.pte"))
        .target("corstone-300")
        .source(&src)
        .out_dir(dir.join("out"))
        .cargo_metadata(false)
        .try_compile()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("lib.rs:3:1: backends `my-npu` and `my_npu` would both be `my_npu`"),
        "{err}"
    );
}

#[test]
fn missing_settings_say_how_to_give_them() {
    let err = Build::new()
        .model("m.pte")
        .cargo_metadata(false)
        .out_dir(temp("x"))
        .try_compile();
    if std::env::var_os("ARENAPLAN_TARGET").is_none() {
        let e = err.unwrap_err().to_string();
        assert!(e.starts_with("no target: call .target(\"...\") in build.rs or set ARENAPLAN_TARGET to one of: corstone-300"), "{e}");
    }
    let e = Build::new()
        .target("corstone-300")
        .cargo_metadata(false)
        .try_compile()
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("no model"), "{e}");
}

#[test]
fn the_generated_c_compiles_links_and_agrees_with_the_plan() {
    let dir = temp("c");
    let g = build(&dir, Symbols::C).unwrap();
    let main = dir.join("main.c");
    std::fs::write(
        &main,
        "#include <stdio.h>\n#include \"ethosu_u55_two_calls.h\"\nint main(void) {\n\
         printf(\"%u %u %u %u\\n\", ETHOSU_U55_TWO_CALLS_ARENA_SRAM_SIZE, ETHOSU_U55_TWO_CALLS_CALL0_SCRATCH_OFFSET,\n\
         ETHOSU_U55_TWO_CALLS_CALL1_SCRATCH_SIZE, ethosu_u55_two_calls_calls[1].nargs);\n\
         for (unsigned i = 0; i < ETHOSU_U55_TWO_CALLS_BUFFER_COUNT; i++) {\n\
           const arenaplan_buffer_t *b = &ethosu_u55_two_calls_buffers[i];\n\
           printf(\"%u %u %u %u\\n\", b->value, b->mem_id, b->offset, b->size);\n}\n\
         printf(\"%d\\n\", (int)(((unsigned long)ethosu_u55_two_calls_arena_sram) % 16));\nreturn 0;\n}\n",
    )
    .unwrap();
    let exe = dir.join("probe");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&cc)
        .args([
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-Wno-c11-extensions",
            "-o",
        ])
        .arg(&exe)
        .arg(&main)
        .arg(&g.source)
        .arg("-I")
        .arg(&dir)
        // NAME.h declares the model's API in the runtime's types.
        .arg("-I")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime-c/include"))
        .status()
        .unwrap();
    assert!(status.success(), "the generated C compiles and links");
    let out = String::from_utf8(Command::new(&exe).output().unwrap().stdout).unwrap();
    let mut lines = out.lines();
    let sram = g.plan.pool(1).unwrap();
    let scratch: Vec<_> = g.plan.buffers.iter().filter(|b| b.call.is_some()).collect();
    assert_eq!(
        lines.next().unwrap(),
        format!("{} {} {} 3", sram.size, scratch[0].offset, scratch[1].size)
    );
    for b in &g.plan.buffers {
        assert_eq!(
            lines.next().unwrap(),
            format!("{} {} {} {}", b.id, b.mem_id, b.offset, b.size)
        );
    }
    assert_eq!(lines.next().unwrap(), "0", "the arena is aligned");
}

#[test]
fn a_c_integrator_runs_the_generated_program_on_the_c_runtime() {
    let dir = temp("c-runtime");
    build(&dir, Symbols::C).unwrap();
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime-c");
    let main = dir.join("main.c");
    std::fs::write(
        &main,
        r#"#include <stdio.h>
#include <string.h>
#include "ethosu_u55_two_calls.h"
#include "ethosu_u55_two_calls_program.h"
#include "arenaplan/ethosu.h"
#include "arenaplan/ethosu_sim.h"

INPUT_AND_EXPECTED

int main(void) {
    ap_pool_t pools[] = {{ETHOSU_U55_TWO_CALLS_MEM_ID_SRAM, ethosu_u55_two_calls_arena_sram,
                          ETHOSU_U55_TWO_CALLS_ARENA_SRAM_SIZE}};
    const ap_backend_t *backends[] = {&ap_ethosu_backend};
    static ap_buffer_t values[16], args[8];
    static ap_handle_t handles[4];
    static const ap_backend_t *resolved[4];
    ap_method_memory_t mem = {values, 16, handles, resolved, 4, NULL, 0, args, 8, NULL, 0};
    ap_method_t m;
    ap_status_t s = ap_ethosu_host_setup(AP_ETHOSU_U55_128_CONFIG, AP_ETHOSU_U55_128_ID, NULL, 0);
    if (s != AP_OK) { printf("npu: %s\n", ap_status_name(s)); return 1; }
    s = ap_method_init(&m, &ethosu_u55_two_calls_program, pools, 1, backends, 1, NULL, 0, &mem);
    if (s != AP_OK) { printf("init: %s\n", ap_status_name(s)); return 1; }
    ap_buffer_t in, out;
    ap_method_input(&m, 0, &in);
    if (in.size != sizeof input) { printf("input of %u bytes\n", (unsigned)in.size); return 1; }
    memcpy(in.data, input, sizeof input);
    s = ap_method_execute(&m);
    if (s != AP_OK) { printf("execute: %s\n", ap_status_name(s)); return 1; }
    ap_method_output(&m, 0, &out);
    if (out.size != sizeof expected) { printf("output of %u bytes\n", (unsigned)out.size); return 1; }
    for (unsigned j = 0; j < out.size; j++) {
        if (out.data[j] != expected[j]) { printf("output %u wrong\n", j); return 1; }
    }
    printf("ran %u bytes out\n", (unsigned)out.size);
    ap_method_destroy(&m);
    return 0;
}
"#
            .replace("INPUT_AND_EXPECTED", &reference_arrays()),
    )
    .unwrap();
    let exe = dir.join("integrator");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let c = |f: &str| runtime.join(f);
    let status = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-o"])
        .arg(&exe)
        .args([
            main.clone(),
            dir.join("ethosu_u55_two_calls.c"),
            dir.join("ethosu_u55_two_calls_program.c"),
        ])
        .arg("-DAP_DCACHE_RECORD")
        .args([
            c("core/runtime.c"),
            c("backends/ethos-u/ethosu_backend.c"),
            c("core/dcache.c"),
            c("emulation/ethosu_npu_model.c"),
            c("emulation/ethosu_sim.c"),
        ])
        .args(ethosu_model_sources(&runtime))
        .arg("-I")
        .arg(&dir)
        .arg("-I")
        .arg(runtime.join("include"))
        .status()
        .unwrap();
    assert!(
        status.success(),
        "generated tables, the runtime and the simulator compile and link"
    );
    let out = Command::new(&exe).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert_eq!(stdout.trim(), "ran 128 bytes out");
}

#[test]
fn arenas_beyond_32_bits_are_refused_not_truncated() {
    let dir = temp("huge");
    std::fs::create_dir_all(&dir).unwrap();
    let targets = dir.join("targets.toml");
    std::fs::write(
        &targets,
        "schema_version = 1\n[[target]]\nname = \"big\"\ncpu = \"x\"\nrust_target = \"x\"\ndefault_pool = \"ddr\"\n\
         [[target.pool]]\nmem_id = 1\nname = \"ddr\"\ncapacity = \"8 GiB\"\nsection = \".arenaplan.ddr\"\nregion = \"DDR\"\n",
    )
    .unwrap();
    let model = dir.join("m.toml");
    std::fs::write(
        &model,
        "name = \"m\"\ninputs = [\"x\"]\noutputs = [\"x\"]\n[[tensor]]\nname = \"x\"\ndtype = \"int8\"\nbytes = 5000000000\n",
    )
    .unwrap();
    let err = Build::new()
        .model(&model)
        .targets_file(&targets)
        .target("big")
        .out_dir(dir.join("out"))
        .cargo_metadata(false)
        .try_compile()
        .unwrap_err()
        .to_string();
    assert!(err.contains("beyond the 32-bit offsets"), "{err}");
    assert!(!dir.join("out").exists());
}

/// A file's bytes and modification time.
type FileState = (Vec<u8>, std::time::SystemTime);

/// Every entry of `dir` (folders too): name, and the bytes and modification time of files.
fn snapshot(dir: &Path) -> Vec<(String, Option<FileState>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let meta = std::fs::metadata(&p).unwrap();
            let file = meta
                .is_file()
                .then(|| (std::fs::read(&p).unwrap(), meta.modified().unwrap()));
            (name, file)
        })
        .collect();
    v.sort();
    v
}

fn temp_folders(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(arenaplan_build::output::TEMP_PREFIX))
        .collect()
}

#[test]
fn artifacts_are_written_all_or_none() {
    let root = temp("all-or-none");
    let dir = root.join("arenaplan");
    build(&dir, Symbols::Rust).unwrap();
    assert!(temp_folders(&dir).is_empty() && temp_folders(&root).is_empty());

    // Someone breaks the published set (a folder where the header was): the next build
    // publishes a whole new set beside it rather than patching the broken one.
    std::fs::remove_file(dir.join("ethosu_u55_two_calls.h")).unwrap();
    std::fs::create_dir(dir.join("ethosu_u55_two_calls.h")).unwrap();
    let g = build(&dir, Symbols::C).unwrap();
    assert!(g.header.is_file());
    assert!(temp_folders(&dir).is_empty() && temp_folders(&root).is_empty());

    // A folder that is not arenaplan's is refused before anything is written, and kept.
    let foreign = root.join("foreign");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), "mine").unwrap();
    let before = snapshot(&foreign);
    match build(&foreign, Symbols::C) {
        Err(BuildError::OutputName(e)) => assert_eq!(e.path(), foreign),
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_eq!(
        snapshot(&foreign),
        before,
        "someone else's folder untouched"
    );
    assert!(!root.join(".foreign.arenaplan").exists());
}

#[test]
fn one_linker_script_includes_every_pool_and_link_args_pass_it() {
    let dir = temp("link-args");
    let g = build(&dir, Symbols::Rust).unwrap();
    let script = std::fs::read_to_string(&g.linker_script).unwrap();
    assert!(!g.linker.is_empty());
    for fragment in &g.linker {
        let file = fragment.file_name().unwrap().to_string_lossy();
        assert!(fragment.exists());
        assert!(script.contains(&format!("INCLUDE \"{file}\"")), "{script}");
    }
    assert_eq!(
        g.link_args(),
        vec![
            format!("-L{}", g.dir.display()),
            format!("-T{}", g.linker_script.display())
        ]
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn plans_stopped_early_are_marked_in_the_report_and_the_plan() {
    let dir = temp("stopped");
    let g = build(&dir, Symbols::Rust).unwrap();
    // A complete plan says nothing of it.
    let json = std::fs::read_to_string(dir.join("ethosu_u55_two_calls.plan.json")).unwrap();
    assert!(!json.contains("stopped_early"));
    // A pool the planner was stopped in (a deadline, Ctrl-C) is marked in both.
    let mut plan = g.plan.clone();
    plan.pools[0].stopped_early = true;
    let catalogue = arenaplan_build::targets::Catalogue::builtin();
    let files = common::emit_files(
        &g.program,
        &plan,
        catalogue.target("corstone-300").unwrap(),
        "m",
        Symbols::Rust,
        arenaplan_build::Emit::ALL,
    );
    let file = |name: &str| common::text(&files, name);
    assert!(
        file("m.report.txt").contains("Planning was stopped early"),
        "{}",
        file("m.report.txt")
    );
    assert!(file("m.plan.json").contains("\"stopped_early\": true"));
}

/// The functional Ethos-U55's sources: every `.c` file of the runtime's `emulation/ethosu_model`.
fn ethosu_model_sources(runtime: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<std::path::PathBuf> =
        std::fs::read_dir(runtime.join("emulation/ethosu_model"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "c"))
            .collect();
    files.sort();
    files
}

/// TFLM's input and output of the fixture's convolution then pooling (the two calls' uncompiled
/// models, `testdata/tflm-reference/fixture_conv_then_pool`), as C arrays `input` and
/// `expected`.
fn reference_arrays() -> String {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/tflm-reference/fixture_conv_then_pool");
    let array = |name: &str, file: &str| {
        let (_, bytes) = common::npy::read(&folder.join(file));
        let items: Vec<String> = bytes.iter().map(|b| b.to_string()).collect();
        format!(
            "static const uint8_t {name}[{}] = {{{}}};",
            bytes.len(),
            items.join(", ")
        )
    };
    format!(
        "{}\n{}",
        array("input", "0-in0.npy"),
        array("expected", "0-out0.npy")
    )
}
