//! Branches execute: the generated program runs a branch's taken arm only (a JUMP_FALSE over
//! the true arm, which ends in a JUMP over the false one), and the arm not taken never touches
//! its memory. Built from a TOML model, compiled with the C runtime and run.

mod common;

use arenaplan_build::diagnostic::SourceText;
use arenaplan_build::import::parse_toml_model;
use arenaplan_build::Build;

const MODEL: &str = r#"
name = "b"
inputs = ["p", "x"]
outputs = ["y"]
[[tensor]]
name = "p"
dtype = "int32"
shape = [1]
[[tensor]]
name = "x"
dtype = "uint8"
shape = [16]
[[tensor]]
name = "y"
dtype = "uint8"
shape = [16]
[[instruction]]
kind = "branch"
predicate = "p"
arms = [
  [ { kind = "kernel", op = "fill_a", inputs = ["x"], outputs = ["y"] } ],
  [ { kind = "kernel", op = "fill_b", inputs = ["x"], outputs = ["y"] } ],
]
"#;

/// Each kernel writes x + its marker, and its marker over all of its scratch; the program
/// poisons the arena first, runs once per predicate, and checks which arm ran and that the
/// other arm's scratch, where the taken arm's does not cover it, is still poison.
const MAIN: &str = r#"#include <stdio.h>
#include <string.h>
#include "b.h"

static int ran_a, ran_b;
static ap_status_t fill(ap_buffer_t *args, size_t n, uint8_t marker) {
    if (n != 3) return AP_ERR_ARGUMENT_MISMATCH;
    for (size_t i = 0; i < args[1].size; i++) args[1].data[i] = (uint8_t)(args[0].data[i] + marker);
    memset(args[2].data, marker, args[2].size);
    return AP_OK;
}
static ap_status_t fill_a(ap_context_t *c, ap_buffer_t *a, size_t n, void *u) { (void)c; (void)u; ran_a++; return fill(a, n, 0xA0); }
static ap_status_t fill_b(ap_context_t *c, ap_buffer_t *a, size_t n, void *u) { (void)c; (void)u; ran_b++; return fill(a, n, 0xB0); }
const ap_kernel_t ap_kernel_fill__a = {"fill_a", fill_a, NULL};
const ap_kernel_t ap_kernel_fill__b = {"fill_b", fill_b, NULL};

static int run(int32_t predicate, uint8_t marker) {
    memset(b_arena_sram, 0xDB, B_ARENA_SRAM_SIZE);
    uint32_t n;
    int32_t *p = (int32_t *)(void *)b_input(0, &n);
    *p = predicate;
    uint8_t *x = b_input(1, &n);
    for (uint32_t i = 0; i < n; i++) x[i] = (uint8_t)i;
    ran_a = ran_b = 0;
    ap_status_t s = b_run();
    if (s != AP_OK) { printf("run: %s\n", ap_status_name(s)); return 0; }
    if (ran_a + ran_b != 1 || (marker == 0xA0) != (ran_a == 1)) { printf("both or the wrong arm ran\n"); return 0; }
    const uint8_t *y = b_output(0, &n);
    for (uint32_t i = 0; i < n; i++) if (y[i] != (uint8_t)(i + marker)) { printf("y[%u]\n", i); return 0; }
    return 1;
}

int main(void) {
    if (b_init() != AP_OK) { printf("init\n"); return 1; }
    if (!run(1, 0xA0) || !run(0x100, 0xA0)) return 1;
    /* The false arm's scratch beyond the true arm's is still poison. */
    unsigned a0 = B_CALL1_SCRATCH0_OFFSET, a1 = a0 + B_CALL1_SCRATCH0_SIZE;
    unsigned b0 = B_CALL2_SCRATCH0_OFFSET, b1 = b0 + B_CALL2_SCRATCH0_SIZE;
    unsigned untouched = 0;
    for (unsigned i = b0; i < b1; i++) {
        if (i >= a0 && i < a1) continue;
        if (b_arena_sram[i] != 0xDB) { printf("byte %u of the untaken arm's scratch was written\n", i); return 1; }
        untouched++;
    }
    if (untouched == 0) { printf("the arms' scratch coincide: nothing to check\n"); return 1; }
    if (!run(0, 0xB0)) return 1;
    b_deinit();
    printf("ok %u\n", untouched);
    return 0;
}
"#;

#[test]
fn only_the_taken_arm_runs() {
    let program = parse_toml_model(&SourceText::new("b.toml", MODEL), None).unwrap();
    let (dir, rendered) = common::render_for_c(
        "branches",
        program,
        "#[kernel(op = \"fill_a\", scratch = 64, mem_id = spec!(cpu_scratch))]\nfn a() {}\n\
         #[kernel(op = \"fill_b\", scratch = 256, mem_id = spec!(cpu_scratch))]\nfn b() {}\n",
    );
    let program_c = common::text(&rendered.files, "b_program.c");
    assert!(
        program_c.contains("AP_INSTR_JUMP_FALSE, 3u, b_predicate0"),
        "{program_c}"
    );
    assert!(
        program_c.contains("{AP_INSTR_JUMP, 4u, 0, 0u, 0u, 0u}"),
        "{program_c}"
    );
    let stdout = common::run_generated_c(&dir, &["b.c", "b_program.c"], MAIN);
    assert!(stdout.starts_with("ok"), "{stdout}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_branch_of_three_arms_is_refused_at_build_time() {
    let model = MODEL.replace(
        "  [ { kind = \"kernel\", op = \"fill_b\", inputs = [\"x\"], outputs = [\"y\"] } ],\n]",
        "  [ { kind = \"kernel\", op = \"fill_b\", inputs = [\"x\"], outputs = [\"y\"] } ],\n  [ { kind = \"kernel\", op = \"fill_b\", inputs = [\"x\"], outputs = [\"y\"] } ],\n]",
    );
    let program = parse_toml_model(&SourceText::new("b.toml", &model), None).unwrap();
    let err = Build::new()
        .program(program)
        .target("corstone-300")
        .sources(Vec::<std::path::PathBuf>::new())
        .cargo_metadata(false)
        .try_render()
        .unwrap_err()
        .to_string();
    assert!(err.contains("a branch of 3 arms"), "{err}");
}
