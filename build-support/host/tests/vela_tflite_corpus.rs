//! Every Vela-compiled TFLite model of `../shared/corpus/vela` on the C runtime: imported (the
//! `ethos-u` operator becomes a bin stream built from its constants and Vela's offsets), planned
//! for its Corstone target and run end to end: the NPU's calls through the Ethos-U backend and
//! the driver (Arm's, when `ETHOS_U_CORE_DRIVER_PATH` is set) on the emulated NPU, the operators
//! Vela left on the CPU on the CMSIS-NN kernels, state kept; the same outputs with the I/O at
//! its slots in the scratch and apart. The outputs are compared with TFLM's in `vela_tflm.rs`;
//! here, any inputs: deterministic, input-dependent, and the same whichever way the I/O is
//! placed.

#[path = "../../tests/common/corpus.rs"]
mod corpus;
mod support;

use support::vela_run::run;

#[test]
fn every_vela_model_runs_or_is_refused_for_a_listed_reason() {
    let Some(corpus) = corpus::corpus() else {
        return;
    };
    // The emulated NPU and its driver are one per process: one test runs them all in turn.
    for (config, target) in [
        ("u55-128-shared-sram", "corstone-300"),
        ("u85-256-dedicated-sram", "corstone-320"),
    ] {
        let mut ran = Vec::new();
        let mut refused = Vec::new();
        for model in corpus::files(&corpus.join("vela").join(config), "tflite") {
            let name = model.file_stem().unwrap().to_string_lossy().into_owned();
            match run(&model, target, 3, true) {
                Ok(first) => {
                    // Deterministic: the same inputs give the same outputs.
                    assert_eq!(run(&model, target, 3, true).unwrap(), first, "{name}");
                    // The same as with every tensor apart, copied in and out.
                    assert_eq!(run(&model, target, 3, false).unwrap(), first, "{name}");
                    ran.push(name);
                }
                Err(why) => refused.push(format!("{name}: {why}")),
            }
        }
        eprintln!("{config}: ran {}, refused {refused:?}", ran.len());
        // The corpus's 13 models per configuration all run — the NPU's call alone, with the
        // LSTMs' state, or with CPU operators on the runtime's kernels (the keyword models'
        // SVDFs, the audio preprocessor's signal library) — which need CMSIS-NN.
        let cpu_kernels = arenaplan::tflite_kernels().next().is_some();
        assert!(
            ran.len() >= if cpu_kernels { 13 } else { 10 },
            "{config}: only {ran:?} ran; refused {refused:?}"
        );
        assert!(
            refused.iter().all(|r| !cpu_kernels
                && (r.contains("audio_preprocessor") || r.contains("keyword_scrambled"))),
            "{config}: unexpected refusals {refused:?}"
        );
    }
}
