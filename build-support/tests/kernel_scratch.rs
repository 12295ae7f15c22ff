//! `#[kernel(op, scratch, mem_id)]`: a kernel's scratch is found by the scan, planned like a
//! delegate's (trailing arguments, alive during its call only, shared across calls), and
//! described in the generated plan for the macro's checks.

mod common;

use std::path::PathBuf;

use arenaplan_build::diagnostic::SourceText;
use arenaplan_build::import::parse_toml_model;
use arenaplan_build::model::{Program, ScratchOwner, ValueKind};
use arenaplan_build::pipeline::{BufferKind, CallKind};
use arenaplan_build::{Build, BuildError, Rendered};

const MODEL: &str = r#"
name = "k"
inputs = ["x"]
outputs = ["z"]
[[tensor]]
name = "x"
dtype = "int8"
shape = [1024]
[[tensor]]
name = "y"
dtype = "int8"
shape = [1024]
[[tensor]]
name = "z"
dtype = "int8"
shape = [1024]
[[instruction]]
kind = "kernel"
op = "aten::relu.out"
inputs = ["x"]
outputs = ["y"]
[[instruction]]
kind = "kernel"
op = "aten::relu.out"
inputs = ["y"]
outputs = ["z"]
"#;

fn program() -> Program {
    parse_toml_model(&SourceText::new("k.toml", MODEL), None).unwrap()
}

fn source(name: &str, text: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "arenaplan-kernel-scratch-{name}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("lib.rs");
    std::fs::write(&path, text).unwrap();
    path
}

fn render(name: &str, text: &str) -> Result<Rendered, BuildError> {
    render_program(name, program(), text)
}

/// `program` built for corstone-300 with the declarations `text` in a source file.
fn render_program(name: &str, program: Program, text: &str) -> Result<Rendered, BuildError> {
    Build::new()
        .program(program)
        .target("corstone-300")
        .source(source(name, text))
        .cargo_metadata(false)
        .try_render()
}

const DECLARED: &str = "#[kernel(op = \"aten::relu.out\", scratch = [256, 64], mem_id = [spec!(cpu_scratch), spec!(cpu_scratch)])]\nfn relu(call: &mut Call<'_>) -> Result { Ok(()) }\n";

#[test]
fn every_call_of_the_kernel_gets_its_scratch_as_trailing_arguments() {
    let r = render("planned", DECLARED).unwrap();
    assert_eq!(r.plan.calls.len(), 2);
    for call in &r.plan.calls {
        assert_eq!(call.kind, CallKind::Kernel);
        assert_eq!((call.inputs, call.outputs, call.scratch), (1, 1, 2));
        let sizes: Vec<u64> = call.args[2..]
            .iter()
            .map(|&a| {
                let ValueKind::Scratch {
                    call: of, owner, ..
                } = &r.program.values[a].kind
                else {
                    panic!("argument {a} is not scratch")
                };
                assert_eq!(*of, call.index);
                assert_eq!(*owner, ScratchOwner::Kernel("aten::relu.out".into()));
                let b = r.plan.buffer(a).unwrap();
                assert_eq!(
                    (b.kind, b.first, b.last),
                    (BufferKind::Scratch, call.index, call.index)
                );
                b.size
            })
            .collect();
        assert_eq!(sizes, [256, 64]);
    }
    // Calls 0 and 1 never run together: their tables share memory.
    let first = r.plan.buffer(r.plan.calls[0].args[2]).unwrap();
    let second = r.plan.buffer(r.plan.calls[1].args[2]).unwrap();
    assert_eq!(first.offset, second.offset);
    let rust = common::text(&r.files, &format!("{}.rs", r.name));
    assert!(rust.contains("pub mod kernel {"), "{rust}");
    assert!(rust.contains("pub mod aten__relu_out {"), "{rust}");
    assert!(
        rust.contains("pub const SCRATCH: &[usize] = &[256, 64];"),
        "{rust}"
    );
    assert!(
        rust.contains("pub const CALL1_SCRATCH1: super::Region"),
        "{rust}"
    );
}

#[test]
fn a_kernel_declaring_no_scratch_gets_none_and_the_plan_says_so() {
    let r = render(
        "none",
        "#[kernel(op = \"aten::relu.out\")]\nfn relu(call: &mut Call<'_>) -> Result { Ok(()) }\n",
    )
    .unwrap();
    assert!(r.plan.calls.iter().all(|c| c.scratch == 0));
    let rust = common::text(&r.files, &format!("{}.rs", r.name));
    assert!(
        rust.contains("pub const SCRATCH: &[usize] = &[];"),
        "{rust}"
    );
}

#[test]
fn planning_twice_gives_the_same_program() {
    let once = render("twice", DECLARED).unwrap();
    let again = render_program("twice", once.program.clone(), DECLARED).unwrap();
    assert_eq!(once.program, again.program);
    assert_eq!(once.plan, again.plan);
}

#[test]
fn a_kernel_declared_twice_is_refused_at_the_second() {
    let err = render("dup", &format!("{DECLARED}{DECLARED}"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("lib.rs:3:1: kernel `aten::relu.out` is declared twice"),
        "{err}"
    );
}

#[test]
fn kernel_declarations_are_checked_like_delegates() {
    let err = render(
        "bad",
        "#[kernel(op = \"aten::relu.out\", scratch = [0, 16], mem_id = [spec!(cpu_scrach), spec!(planned_fast)])]\nfn relu() {}\n",
    )
    .unwrap_err()
    .to_string();
    for expected in [
        "scratch size must be positive, found 0",
        "has no compile spec `cpu_scrach` (did you mean `cpu_scratch`?)",
        "is disabled by default",
    ] {
        assert!(err.contains(expected), "{expected}: {err}");
    }
}

/// A kernel written in C, registered by defining the symbol the tables name
/// (`ap_kernel_<op>`), its scratch declared with the same grammar in a declarations file (as
/// `arenaplan plan --source` reads it): it gets its planned scratch after its inputs and
/// outputs, and the model's constant from flash.
const C_MODEL: &str = r#"
name = "c"
inputs = ["x"]
outputs = ["y"]
[[tensor]]
name = "x"
dtype = "uint8"
shape = [32]
[[tensor]]
name = "k"
dtype = "uint8"
shape = [1]
constant = true
data = [3]
[[tensor]]
name = "y"
dtype = "uint8"
shape = [32]
[[instruction]]
kind = "kernel"
op = "scale"
inputs = ["x", "k"]
outputs = ["y"]
"#;

const C_KERNEL: &str = r#"#include <stdio.h>
#include <string.h>
#include "c.h"

/* y = x * k, staged through the planned scratch (the last argument). */
static ap_status_t scale(ap_context_t *ctx, ap_buffer_t *args, size_t n, void *user) {
    (void)user;
    if (ctx->ninputs != 2 || ctx->noutputs != 1 || n != 4) return AP_ERR_ARGUMENT_MISMATCH;
    if (args[3].size < C_CALL0_SCRATCH0_SIZE || args[3].data == NULL) return AP_ERR_SCRATCH_TOO_SMALL;
    if (args[1].size != 1 || args[1].data[0] != 3) return AP_ERR_ARGUMENT_MISMATCH;
    memset(args[3].data, 0, args[3].size);
    for (size_t i = 0; i < args[0].size; i++) args[3].data[i] = (uint8_t)(args[0].data[i] * args[1].data[0]);
    memcpy(args[2].data, args[3].data, args[2].size);
    return AP_OK;
}
const ap_kernel_t ap_kernel_scale = {"scale", scale, NULL};

int main(void) {
    if (C_CALL0_SCRATCH0_SIZE != 64u) { printf("scratch size\n"); return 1; }
    ap_status_t s = c_init();
    if (s != AP_OK) { printf("init: %s\n", ap_status_name(s)); return 1; }
    uint32_t n;
    uint8_t *x = c_input(0, &n);
    for (uint32_t i = 0; i < n; i++) x[i] = (uint8_t)i;
    s = c_run();
    if (s != AP_OK) { printf("run: %s\n", ap_status_name(s)); return 1; }
    const uint8_t *y = c_output(0, &n);
    for (uint32_t i = 0; i < n; i++) if (y[i] != (uint8_t)(3u * i)) { printf("byte %u\n", i); return 1; }
    c_deinit();
    printf("ok\n");
    return 0;
}
"#;

#[test]
fn a_c_kernel_runs_with_its_planned_scratch_and_the_constant_in_flash() {
    let program = parse_toml_model(&SourceText::new("c.toml", C_MODEL), None).unwrap();
    let (dir, rendered) = common::render_for_c(
        "c-kernel",
        program,
        "#[kernel(op = \"scale\", scratch = 64, mem_id = spec!(cpu_scratch))]\nfn scale() {}\n",
    );
    let stdout = common::run_generated_c(&dir, &["c.c", "c_program.c"], C_KERNEL);
    assert!(stdout.contains("ok"), "{stdout}");
    let program_c = common::text(&rendered.files, "c_program.c");
    assert!(
        program_c.contains("static const uint8_t c_const0[1]"),
        "{program_c}"
    );
    let _ = std::fs::remove_dir_all(dir);
}
