//! The two renderings of a program's runtime tables agree field for field: the generated
//! `NAME_program.c`, compiled and read back through the runtime's own `ap_program_t`, and the
//! host runner's [`arenaplan_host::Tables`], on real programs (Ethos-U and Neutron calls, CPU
//! kernels with constants, branches, several methods sharing state). Both come from one
//! description (`arenaplan_build::tables`); this shows neither renderer adds a choice of
//! its own but the one the host runner documents: Neutron's model-context spec stays out of
//! its tables (its handles keep no context).

#[path = "../../tests/common/skip.rs"]
mod skip;

use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use arenaplan::sys;
use arenaplan_build::{Blobs, Build, Symbols};

/// The programs compared: (model under `build-support/testdata`, target).
const PROGRAMS: [(&str, &str); 7] = [
    ("fixtures/ethosu_u55_two_calls.pte", "corstone-300"),
    (
        "fixtures/ethosu_u55_two_methods_shared_state.pte",
        "corstone-300",
    ),
    ("fixtures/neutron_v0_one_call_mcxn94x.pte", "mcxn947"),
    ("fixtures/fixture_conv.tflite", "corstone-300"),
    ("exported/cond_nested/program.pte", "corstone-300"),
    (
        "exported/scalar_where_cat_select/program.pte",
        "corstone-300",
    ),
    (
        "exported/state_shared_three_methods/program.pte",
        "corstone-300",
    ),
];

/// The Neutron model-context compile spec, which the host runner leaves out.
const CONTEXT_SPEC: &str = "arenaplan.neutron.context";

/// Prints an `ap_program_t` as text, each pointer as what it points to (bytes as a digest): the
/// same format as [`dump`], in C.
const DUMP_C: &str = r#"
#include <stdio.h>
#include <string.h>
#include "arenaplan/runtime.h"

static unsigned long fnv(const uint8_t *p, uint32_t n) {
    unsigned long h = 2166136261ul;
    for (uint32_t i = 0; i < n; i++) h = ((h ^ p[i]) * 16777619ul) & 0xfffffffful;
    return h;
}

static void dump(const char *name, const ap_program_t *p) {
    printf("program %s\n", name);
    for (uint32_t t = 0; t < p->ntensors; t++) {
        const ap_tensor_desc_t *d = &p->tensors[t];
        printf("tensor %u %u %u ", (unsigned)d->mem_id, (unsigned)d->offset, (unsigned)d->size);
        if (d->constant) printf("%lx\n", fnv(d->constant, d->size)); else printf("-\n");
        const ap_value_meta_t *m = &p->meta[t];
        printf("meta %u %u %u", (unsigned)m->kind, (unsigned)m->dtype, (unsigned)m->rank);
        for (uint16_t r = 0; m->dims && r < m->rank; r++) printf(" %u", (unsigned)m->dims[r]);
        if (m->dim_order) {
            printf(" order");
            for (uint16_t r = 0; r < m->rank; r++) printf(" %u", (unsigned)m->dim_order[r]);
        }
        printf("\n");
    }
    for (uint32_t i = 0; i < p->ninstructions; i++) {
        const ap_instruction_t *x = &p->instructions[i];
        printf("instruction %u %u %u %u %u:", (unsigned)x->kind, (unsigned)x->index,
               (unsigned)x->nargs, (unsigned)x->ninputs, (unsigned)x->noutputs);
        for (uint32_t a = 0; a < x->nargs; a++) printf(" %u", (unsigned)x->args[a]);
        printf("\n");
    }
    for (uint32_t d = 0; d < p->ndelegates; d++) {
        const ap_delegate_desc_t *x = &p->delegates[d];
        printf("delegate %s %u %lx:", x->backend, (unsigned)x->blob_size,
               x->blob_size ? fnv(x->blob, x->blob_size) : 0ul);
        for (uint32_t s = 0; s < x->nspecs; s++) {
            if (strcmp(x->specs[s].key, "arenaplan.neutron.context") == 0) continue;
            printf(" %s=%s", x->specs[s].key, x->specs[s].value);
        }
        printf("\n");
    }
    for (uint32_t k = 0; k < p->nkernels; k++) printf("kernel %s\n", p->kernels[k]);
    printf("inputs");
    for (uint32_t i = 0; i < p->ninputs; i++) printf(" %u", (unsigned)p->inputs[i]);
    printf("\noutputs");
    for (uint32_t i = 0; i < p->noutputs; i++) printf(" %u", (unsigned)p->outputs[i]);
    printf("\n");
}
"#;

fn fnv(bytes: &[u8]) -> u32 {
    bytes.iter().fold(2166136261u32, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(16777619)
    })
}

/// `n` elements from `p` (none for 0, whatever `p` is).
///
/// # Safety
/// `p` points to `n` elements when `n > 0`.
unsafe fn slice<'a, T>(p: *const T, n: u32) -> &'a [T] {
    if n == 0 {
        &[]
    } else {
        unsafe { std::slice::from_raw_parts(p, n as usize) }
    }
}

/// A C string as text.
///
/// # Safety
/// `p` is a NUL-terminated string.
unsafe fn text(p: *const core::ffi::c_char) -> String {
    unsafe { core::ffi::CStr::from_ptr(p) }
        .to_string_lossy()
        .into_owned()
}

/// The host's `ap_program_t` in [`DUMP_C`]'s format.
fn dump(name: &str, p: &sys::ap_program) -> String {
    let mut out = format!("program {name}\n");
    // SAFETY: every pointer of a `Tables`' program points to as many elements as it counts.
    unsafe {
        for (t, d) in slice(p.tensors, p.ntensors).iter().enumerate() {
            let constant = if d.constant.is_null() {
                "-".to_owned()
            } else {
                format!("{:x}", fnv(slice(d.constant, d.size)))
            };
            writeln!(
                out,
                "tensor {} {} {} {constant}",
                d.mem_id, d.offset, d.size
            )
            .unwrap();
            let m = &*p.meta.add(t);
            let dims = if m.dims.is_null() {
                &[][..]
            } else {
                slice(m.dims, u32::from(m.rank))
            };
            write!(out, "meta {} {} {}", m.kind, m.dtype, m.rank).unwrap();
            for d in dims {
                write!(out, " {d}").unwrap();
            }
            if !m.dim_order.is_null() {
                out.push_str(" order");
                for d in slice(m.dim_order, u32::from(m.rank)) {
                    write!(out, " {d}").unwrap();
                }
            }
            out.push('\n');
        }
        for x in slice(p.instructions, p.ninstructions) {
            write!(
                out,
                "instruction {} {} {} {} {}:",
                x.kind, x.index, x.nargs, x.ninputs, x.noutputs
            )
            .unwrap();
            for a in slice(x.args, x.nargs) {
                write!(out, " {a}").unwrap();
            }
            out.push('\n');
        }
        for x in slice(p.delegates, p.ndelegates) {
            let blob = if x.blob_size == 0 {
                0
            } else {
                fnv(slice(x.blob, x.blob_size))
            };
            write!(
                out,
                "delegate {} {} {blob:x}:",
                text(x.backend),
                x.blob_size
            )
            .unwrap();
            for s in slice(x.specs, x.nspecs) {
                let key = text(s.key);
                if key != CONTEXT_SPEC {
                    write!(out, " {key}={}", text(s.value)).unwrap();
                }
            }
            out.push('\n');
        }
        for &k in slice(p.kernels, p.nkernels) {
            writeln!(out, "kernel {}", text(k)).unwrap();
        }
        out.push_str("inputs");
        for i in slice(p.inputs, p.ninputs) {
            write!(out, " {i}").unwrap();
        }
        out.push_str("\noutputs");
        for i in slice(p.outputs, p.noutputs) {
            write!(out, " {i}").unwrap();
        }
        out.push('\n');
    }
    out
}

/// What the generated C's tables print, compiled with `main.c` in `dir`.
fn dump_generated(dir: &Path, files: &[(String, Vec<u8>)]) -> String {
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let file = |name: &str| {
        let (_, bytes) = files.iter().find(|(n, _)| n == name).unwrap();
        String::from_utf8_lossy(bytes).into_owned()
    };
    // Each method's program, in order; the backends and kernels the tables bind, as weak stubs
    // (only the tables are read; the runtime defines some itself).
    let programs: Vec<String> = file("m_program.h")
        .lines()
        .filter_map(|l| l.strip_prefix("extern const ap_program_t "))
        .map(|l| l.trim_end_matches(';').to_owned())
        .collect();
    let mut main = String::from(DUMP_C);
    for line in file("m_program.c").lines() {
        for kind in ["ap_backend_t", "ap_kernel_t"] {
            if let Some(symbol) = line.strip_prefix(&format!("extern const {kind} ")) {
                writeln!(main, "__attribute__((weak)) const {kind} {symbol}").unwrap();
            }
        }
    }
    main.push_str("int main(void) {\n");
    for p in &programs {
        writeln!(main, "    extern const ap_program_t {p};").unwrap();
        writeln!(main, "    dump(\"{p}\", &{p});").unwrap();
    }
    main.push_str("    return 0;\n}\n");
    std::fs::write(dir.join("main.c"), main).unwrap();
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../runtime-c");
    let exe = dir.join("dump");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(&cc)
        .args(["-std=c11", "-o"])
        .arg(&exe)
        .args(["main.c", "m.c", "m_program.c"].map(|f| dir.join(f)))
        .arg(runtime.join("core/runtime.c"))
        .arg(runtime.join("core/dcache.c"))
        .arg("-I")
        .arg(dir)
        .arg("-I")
        .arg(runtime.join("include"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().unwrap();
    assert!(run.status.success());
    String::from_utf8(run.stdout).unwrap()
}

/// Renders `model` for `target` both ways, checks they agree, and returns the generated C's
/// printout.
fn agree(model: &Path, target: &str, k: usize) -> String {
    let name = model.display();
    let rendered = Build::new()
        .model(model)
        .target(target)
        .name("m")
        .symbols(Symbols::C)
        .blobs(Blobs::CArray)
        .sources(Vec::<PathBuf>::new())
        .cargo_metadata(false)
        .try_render()
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("tables-agree-{}-{k}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let generated = dump_generated(&dir, &rendered.files);
    let methods = arenaplan_host::method_tables(&rendered.program, &rendered.plan)
        .unwrap_or_else(|| panic!("{name}: host tables"));
    let symbols: Vec<&str> = generated
        .lines()
        .filter_map(|l| l.strip_prefix("program "))
        .collect();
    assert_eq!(symbols.len(), methods.len(), "{name}");
    let host: String = symbols
        .iter()
        .zip(&methods)
        .map(|(symbol, (_, tables))| dump(symbol, &tables.program()))
        .collect();
    assert!(generated.contains("instruction "), "{name}: no calls");
    assert_eq!(generated, host, "{name}");
    let _ = std::fs::remove_dir_all(&dir);
    generated
}

#[test]
fn generated_c_and_host_tables_agree_field_for_field() {
    let testdata = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata");
    for (k, &(model, target)) in PROGRAMS.iter().enumerate() {
        agree(&testdata.join(model), target, k);
    }
}

/// Tensors with a dim order (the corpus's Arduino keyword model, exported channels-last by
/// ExecuTorch's Cortex-M flow): both renderings carry each order, and the generated C's agree.
#[test]
fn dim_orders_agree() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/pte/arduino_KeywordSpotting_model.pte");
    if !model.is_file() {
        skip::skip(&format!("no corpus model at {}", model.display()));
        return;
    }
    let generated = agree(&model, "corstone-300", PROGRAMS.len());
    assert!(
        generated.lines().any(|l| l.contains(" order 0 2 3 1")),
        "no channels-last tensor in the tables:\n{generated}"
    );
}
