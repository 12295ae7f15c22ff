//! The generated C is checked by arenaplan-build itself, not only by the firmware test crate:
//! every offset and size in `NAME.h` is the plan's (a C compile-time check per constant), and a
//! program whose two delegate calls have their scratch at different offsets runs on the C
//! runtime from `NAME_program.c` with a backend that poisons its scratch, so a table that gave
//! a call another call's scratch fails (the runtime refuses the overlap, or the poison reaches a
//! live tensor and the result is wrong).

mod common;

use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use arenaplan_build::diagnostic::SourceText;
use arenaplan_build::emit::{Emit, Symbols};
use arenaplan_build::import::parse_toml_model;
use arenaplan_build::pipeline::BufferKind;
use arenaplan_build::targets::Catalogue;

/// x (512 B, dead after call a) -> a -> y; y and w (alive until call b) -> b -> z. Call b's
/// scratch can reuse x's bytes, call a's cannot: their offsets differ.
const TWO_CALLS: &str = r#"
name = "two_calls"
inputs = ["x", "w"]
outputs = ["z"]
[[tensor]]
name = "x"
dtype = "int8"
shape = [512]
[[tensor]]
name = "w"
dtype = "int8"
shape = [32]
[[tensor]]
name = "y"
dtype = "int8"
shape = [64]
[[tensor]]
name = "z"
dtype = "int8"
shape = [64]
[[delegate]]
name = "a"
backend = "TestNpu"
scratch = [ { size = 256, pool = "npu_scratch", label = "work" } ]
[[delegate]]
name = "b"
backend = "TestNpu"
scratch = [ { size = 256, pool = "npu_scratch", label = "work" } ]
[[instruction]]
kind = "delegate"
delegate = "a"
inputs = ["x"]
outputs = ["y"]
[[instruction]]
kind = "delegate"
delegate = "b"
inputs = ["y", "w"]
outputs = ["z"]
"#;

/// A backend that, like an NPU, reads its inputs, then poisons all of its scratch (the last
/// argument), then writes its output (the one before): out[j] = sum of input bytes + 3j.
const MAIN: &str = r#"#include <stdio.h>
#include <string.h>
#include "t.h"

static ap_status_t run(ap_context_t *ctx, ap_handle_t *h, ap_buffer_t *args, size_t n) {
    (void)ctx;
    (void)h;
    if (n < 3) return AP_ERR_ARGUMENT_MISMATCH;
    unsigned sum = 0;
    for (size_t i = 0; i + 2 < n; i++)
        for (size_t j = 0; j < args[i].size; j++) sum += args[i].data[j];
    memset(args[n - 1].data, 0xDB, args[n - 1].size);
    for (size_t j = 0; j < args[n - 2].size; j++) args[n - 2].data[j] = (uint8_t)(sum + 3u * j);
    return AP_OK;
}
/* The backend the generated tables name for id "TestNpu" (a link error if missing). */
const ap_backend_t ap_backend_TestNpu = {"TestNpu", NULL, run, NULL, 0, NULL, 0};

/* The model's five calls. */
int main(void) {
    ap_status_t s = t_init();
    if (s != AP_OK) { printf("init: %s at %u\n", ap_status_name(s), (unsigned)t_failed_call()); return 1; }
    uint32_t nx, nw, nz;
    uint8_t *x = t_input(0, &nx), *w = t_input(1, &nw);
    if (t_input(2, &nz) != NULL || nz != 0) { printf("input 2 exists\n"); return 1; }
    unsigned sx = 0, sw = 0;
    for (uint32_t i = 0; i < nx; i++) { x[i] = (uint8_t)(i % 5); sx += x[i]; }
    for (uint32_t i = 0; i < nw; i++) { w[i] = (uint8_t)(i % 3 + 1); sw += w[i]; }
    s = t_run();
    if (s != AP_OK) { printf("run: %s\n", ap_status_name(s)); return 1; }
    unsigned sy = 0;
    for (unsigned j = 0; j < 64; j++) sy += (uint8_t)(sx + 3u * j);
    const uint8_t *z = t_output(0, &nz);
    for (unsigned j = 0; j < nz; j++) {
        if (z[j] != (uint8_t)(sy + sw + 3u * j)) { printf("output byte %u wrong\n", j); return 1; }
    }
    t_deinit();
    if (t_run() != AP_ERR_NOT_INITIALIZED) { printf("ran after deinit\n"); return 1; }
    printf("ok\n");
    return 0;
}
"#;

fn dir() -> PathBuf {
    let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("arenaplan-offsets-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn header_offsets_are_the_plans_and_each_call_runs_on_its_own_scratch() {
    let program = parse_toml_model(&SourceText::new("two_calls.toml", TWO_CALLS), None).unwrap();
    let catalogue = Catalogue::builtin();
    let target = catalogue.target("mcxn947").unwrap();
    let (program, plan) = common::planned(target, program).unwrap();
    let scratch: Vec<_> = plan
        .buffers
        .iter()
        .filter(|b| b.kind == BufferKind::Scratch)
        .collect();
    assert_eq!(scratch.len(), 2);
    assert_ne!(
        scratch[0].offset, scratch[1].offset,
        "the fixture needs the calls' scratch apart to tell them apart"
    );
    let files = common::emit_files(&program, &plan, target, "t", Symbols::C, Emit::ALL);
    let d = dir();
    for (name, text) in &files {
        std::fs::write(d.join(name), text).unwrap();
    }

    // Every constant of the header, checked against the plan by the C compiler.
    let mut checks = String::from("#include \"t.h\"\n");
    for (i, b) in scratch.iter().enumerate() {
        let call = b.call.unwrap();
        for (what, value) in [
            ("MEM_ID", u64::from(b.mem_id)),
            ("OFFSET", b.offset),
            ("SIZE", b.size),
        ] {
            let _ = writeln!(
                checks,
                "typedef char check{i}_{what}[(T_CALL{call}_WORK_{what} == {value}u) ? 1 : -1];"
            );
        }
    }
    for p in &plan.pools {
        let up = p.name.to_ascii_uppercase();
        let _ = writeln!(
            checks,
            "typedef char check_{up}[(T_ARENA_{up}_SIZE == {}u && T_MEM_ID_{up} == {}u) ? 1 : -1];",
            p.size, p.mem_id
        );
    }
    std::fs::write(d.join("checks.c"), checks).unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&cc)
        .args(["-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-c"])
        .arg(d.join("checks.c"))
        .arg("-I")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime-c/include"))
        .arg("-o")
        .arg(d.join("checks.o"))
        .status()
        .unwrap();
    assert!(status.success(), "the header's constants are the plan's");

    // The model's C API runs the program, each call on its own scratch.
    let stdout = common::run_generated_c(&d, &["t.c", "t_program.c"], MAIN);
    assert!(stdout.contains("ok"), "{stdout}");
    let _ = std::fs::remove_dir_all(d);
}
