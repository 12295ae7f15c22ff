//! NXP's real eIQ program (the corpus's `neutron_imxrt700_v1.pte`, whose input the payload asks
//! to see channels-last) through the five-call C API a C integrator uses: generated for
//! i.MX RT700, compiled with the runtime's Neutron backend and NXP's API simulator, which checks
//! the transposed input element by element; the output is the simulator's formula in the
//! program's order.

mod common;

use arenaplan_build::diagnostic::SourceText;
use arenaplan_build::emit::{Emit, Symbols};
use arenaplan_build::import::load_pte;
use arenaplan_build::targets::Catalogue;

#[test]
fn the_corpus_neutron_program_runs_through_the_c_api() {
    let Some(printed) = run(Catalogue::builtin()) else {
        return;
    };
    assert_eq!(printed.trim(), "3072 10 2 as the simulator's formula");
}

/// With `npu.model_context` (NXP's library built with `NO_HEAP_USAGE`), each delegate's model
/// context is static storage in its handle, checked at init against what the library asks for
/// (the simulator: 256 bytes).
#[test]
fn the_model_context_is_static_storage_of_the_size_the_target_declares() {
    let with_context = |bytes: u32| {
        let text = arenaplan_build::targets::BUILTIN_TARGETS.replacen(
            "config = \"imxrt700\"",
            &format!("config = \"imxrt700\"\nmodel_context = {bytes}"),
            1,
        );
        Catalogue::parse(&SourceText::new("targets.toml", &text)).unwrap()
    };
    let Some(printed) = run(with_context(256)) else {
        return;
    };
    assert_eq!(printed.trim(), "3072 10 2 as the simulator's formula");
    let printed = run(with_context(255)).unwrap();
    assert_eq!(printed.trim(), "init: AP_ERR_STORAGE");
}

/// The five calls on imxrt700 from `catalogue`; what the program printed (None: no corpus).
fn run(catalogue: Catalogue) -> Option<String> {
    let corpus = common::corpus()?;
    let pte = corpus.join("pte-delegated/neutron_imxrt700_v1.pte");
    let target = catalogue.target("imxrt700").unwrap();
    let (program, plan) = common::planned(target, load_pte(&pte).unwrap()).unwrap();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "arenaplan-neutron-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in common::emit_files(&program, &plan, target, "m", Symbols::C, Emit::ALL) {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let main_c = r#"
#include <stdio.h>
#include "m.h"
#include "arenaplan/neutron_sim.h"

int main(void) {
    if (ap_neutron_host_setup() != AP_OK) { return 1; }
    ap_status_t s = m_init();
    if (s != AP_OK) { printf("init: %s\n", ap_status_name(s)); return 0; }
    uint32_t in_size = 0, out_size = 0, sum = 0;
    uint8_t *in = m_input(0, &in_size);
    for (uint32_t i = 0; i < in_size; i++) { in[i] = (uint8_t)(i * 13u + 5u); sum += in[i]; }
    for (int run = 0; run < 2; run++) {
        s = m_run();
        if (s != AP_OK) {
            printf("run: %s (simulator status %d)\n", ap_status_name(s), (int)ap_neutron_sim_last()->status);
            return 1;
        }
    }
    const uint8_t *out = m_output(0, &out_size);
    int ok = out_size == 10;
    for (uint32_t j = 0; j < out_size; j++) { ok &= out[j] == (uint8_t)(sum + 31u * j); }
    printf("%u %u %u %s\n", (unsigned)in_size, (unsigned)out_size, (unsigned)ap_neutron_sim_calls(), ok ? "as the simulator's formula" : "WRONG");
    m_deinit();
    return ok ? 0 : 1;
}
"#;
    Some(common::run_generated_c_with(
        &dir,
        &["m.c", "m_program.c"],
        main_c,
        &[
            "backends/neutron/neutron_backend.c",
            "emulation/neutron_sim.c",
        ],
    ))
}
